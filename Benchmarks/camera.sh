#!/usr/bin/env bash
# Camera benchmark (HW-2, SCN-8, SCN-12): on vivid in the QEMU guest (.ci/vivid-vm), frames per
# second sustained and frame-to-event latency of `edge scan --camera` at 640x480 and 1280x720;
# on the host, decode time per frame for the same captured frames (edge-bench frame).
#
# The guest is emulated (QEMU TCG, no KVM): its figures are far below what a station's CPU
# does and say more about the emulator than about edge. Compare the host decode time with the
# guest's per-frame budget, not guest figures with real cameras.
#
# Usage: Benchmarks/camera.sh [FRAMES]   (default 300 per size)
#   EDGE_SCRATCH  build directory (default .build); the release build is used when present.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${EDGE_SCRATCH:-.build}"
frames="${1:-300}"
swift build -c release --scratch-path "$scratch" --product edge >/dev/null
swift build -c release --scratch-path "$scratch" --product edge-agent >/dev/null
swift build -c release --scratch-path "$scratch" --product edge-bench >/dev/null
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
EDGE_VM_OUT="$out" EDGE_VM_REQUIRED=1 EDGE_BUILD_PATH="$scratch" EDGE_VM_TIMEOUT=900 \
    .ci/vivid-vm --exec bash Benchmarks/camera-guest.sh "$scratch/release/edge" "$frames" >&2
python3 - "$out" "$scratch/release/edge-bench" <<'PY'
import json, re, subprocess, sys
out, bench = sys.argv[1], sys.argv[2]
def pct(xs, p): xs = sorted(xs); return xs[min(len(xs) - 1, len(xs) * p // 100)] if xs else None
rows = []
for size in ("640x480", "1280x720"):
    w, h = map(int, size.split("x"))
    summary = open(f"{out}/scan-{size}.err").read()
    m = re.search(r"(\d+) frames in ([\d.]+) ms \(([\d.]+) fps\), (\d+) codes reported, frame-to-decode p50 ([\d.]+) ms p95 ([\d.]+) ms", summary)
    events = [json.loads(l) for l in open(f"{out}/scan-{size}.jsonl") if l.strip()]
    lat = [e["latency_ms"] for e in events if "latency_ms" in e]
    yuyv = open(f"{out}/frame-{size}.yuyv", "rb").read()
    pgm = f"{out}/frame-{size}.pgm"
    with open(pgm, "wb") as f:
        f.write(f"P5 {w} {h} 255\n".encode()); f.write(yuyv[0:w * h * 2:2])
    host = json.loads(subprocess.run([bench, "frame", pgm, "qr", "200"], capture_output=True, text=True, check=True).stdout)
    rows.append({"size": size, "guest_frames": int(m.group(1)) if m else None, "guest_fps": float(m.group(3)) if m else None,
                 "guest_events": len(events), "guest_decode_p50_ms": float(m.group(5)) if m else None,
                 "guest_decode_p95_ms": float(m.group(6)) if m else None,
                 "guest_event_latency_p50_ms": pct(lat, 50), "guest_event_latency_p95_ms": pct(lat, 95),
                 "host_decode_median_ms": host["median_ms"], "host_decode_p90_ms": host["p90_ms"], "host_codes": host["codes"]})
print(f"{'size':>9} {'guest fps':>9} {'events':>6} {'decode p50/p95 (guest)':>23} {'event latency p50/p95 (guest)':>31} {'host decode median/p90':>23}")
for r in rows:
    print(f"{r['size']:>9} {r['guest_fps']!s:>9} {r['guest_events']:>6} {str(r['guest_decode_p50_ms'])+' / '+str(r['guest_decode_p95_ms'])+' ms':>23} "
          f"{str(r['guest_event_latency_p50_ms'])+' / '+str(r['guest_event_latency_p95_ms'])+' ms':>31} "
          f"{'%.2f / %.2f ms' % (r['host_decode_median_ms'], r['host_decode_p90_ms']):>23}")
print(json.dumps(rows))
PY
