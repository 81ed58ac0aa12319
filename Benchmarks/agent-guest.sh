#!/usr/bin/env bash
# Guest half of Benchmarks/agent.py --vivid: runs in the vivid VM (.ci/vivid-vm --exec). For
# each size, loops a frame holding a QR code through vivid (HDMI out → HDMI in), runs
# `edge run` on /dev/video0 for SECONDS with a repeat gap of 0 (every decoded frame is one scan
# event, a transaction each: the worst case), and writes the agent's CPU seconds, wall time, frames
# and the latency of each scan event to /run/edge-vm-out/agent-SIZE.json.
set -euo pipefail
edge="$1"; seconds="${2:-20}"
. "$(dirname "$0")/vivid-loop.sh"
for size in 640x480 1280x720; do
    w=${size%x*}; h=${size#*x}
    state="$(mktemp -d)"
    qrencode -s 6 -m 4 -o "$state/qr.png" PO-2024-00042
    # The frame as YUYV: white, the QR centred; luma in video range, neutral chroma.
    convert -size "${w}x${h}" xc:white "$state/qr.png" -gravity center -composite -colorspace Gray -depth 8 gray:"$state/y.raw"
    python3 - "$state/y.raw" "$state/frame.yuyv" <<'PY'
import sys
y = open(sys.argv[1], "rb").read()
frame = bytearray(len(y) * 2)
frame[0::2] = bytes(16 + v * 219 // 255 for v in y)
frame[1::2] = b"\x80" * len(y)
open(sys.argv[2], "wb").write(frame)
PY
    start_loop "$w" "$h" "$state/frame.yuyv"
    cat > "$state/edge.json" <<JSON
{"station": {"name": "vivid-bench", "state_dir": "$state", "vault_backend": "keyfile", "repeat_gap": 0,
             "scan_events": {"default": "keep", "classes": {"purchase-order": "keep"}},
             "cameras": [{"name": "vivid", "device": "/dev/video0", "format": "YUYV", "width": $w, "height": $h}]}}
JSON
    "$edge" run --config "$state/edge.json" 2> "$state/run.log" &
    agent=$!
    sleep 5
    cpu0=$(awk '{print $14 + $15}' "/proc/$agent/stat"); t0=$(date +%s.%N)
    sleep "$seconds"
    cpu1=$(awk '{print $14 + $15}' "/proc/$agent/stat"); t1=$(date +%s.%N)
    kill -TERM "$agent"; wait "$agent" || true
    stop_loop
    python3 - "$state" "$out/agent-$size.json" "$cpu0" "$cpu1" "$t0" "$t1" "$(getconf CLK_TCK)" <<'PY'
import json, sqlite3, sys
state, target, cpu0, cpu1, t0, t1, tck = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:])
status = json.load(open(f"{state}/agent-status.json"))
db = sqlite3.connect(f"{state}/edge.sqlite")
latencies = [r[0] for r in db.execute("SELECT latency_ms FROM scan_events WHERE captured_at BETWEEN ? AND ?", (t0, t1))]
json.dump({"cpu_seconds": (cpu1 - cpu0) / tck, "wall_seconds": t1 - t0, "latencies_ms": latencies,
           "frames": status["snapshot"]["cameras"]["vivid"]["frames"], "camera": status["snapshot"]["cameras"]["vivid"]}, open(target, "w"))
PY
    echo "agent-guest: $size: $(cat "$out/agent-$size.json" | head -c 300)"
    rm -rf "$state"
done
