#!/usr/bin/env bash
# Guest half of Benchmarks/camera.sh: runs in the vivid VM (.ci/vivid-vm --exec). For each
# size, loops a QR frame through vivid (HDMI out → HDMI in, loop_video), runs
# `edge scan --camera` for N frames with --repeat-gap 0 (every decoded frame is an event), and
# saves one captured frame for the host's decode timing. Results go to /run/edge-vm-out.
set -euo pipefail
edge="$1"; frames="${2:-300}"
. "$(dirname "$0")/vivid-loop.sh"
for size in 640x480 1280x720; do
    w=${size%x*}; h=${size#*x}
    python3 - "$w" "$h" "/tmp/qr-$size.yuyv" <<'PY'
import subprocess, sys
w, h, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rows = [[row[i] == '#' for i in range(0, len(row), 2)]
        for row in subprocess.run(["qrencode", "-t", "ASCII", "-m", "4", "PO-2024-00042"], capture_output=True, text=True).stdout.splitlines()]
scale = 8; side = len(rows[0]); left = (w - side * scale) // 2; top = (h - side * scale) // 2
frame = bytearray(w * h * 2)
for y in range(h):
    for x in range(w):
        mx, my = (x - left) // scale, (y - top) // scale
        dark = x >= left and y >= top and my < len(rows) and mx < len(rows[my]) and rows[my][mx]
        frame[(y * w + x) * 2] = 16 if dark else 235
        frame[(y * w + x) * 2 + 1] = 128
open(path, "wb").write(frame)
PY
    start_loop "$w" "$h" "/tmp/qr-$size.yuyv"
    "$edge" scan --json --camera /dev/video0 --pixel-format YUYV --size "$size" --frames "$frames" --repeat-gap 0 \
        > "$out/scan-$size.jsonl" 2> "$out/scan-$size.err" || true
    v4l2-ctl -d0 --stream-mmap --stream-count=1 --stream-to="$out/frame-$size.yuyv"
    stop_loop
    echo "camera-guest: $size: $(tail -1 "$out/scan-$size.err")"
done
