#!/usr/bin/env bash
# Guest half of Benchmarks/camera.sh: runs in the vivid VM (.ci/vivid-vm --exec). For each
# size, loops a QR frame through vivid (HDMI out → HDMI in, loop_video), runs
# `edge scan --camera` for N frames with --repeat-gap 0 (every decoded frame is an event), and
# saves one captured frame for the host's decode timing. Results go to /run/edge-vm-out.
set -euo pipefail
edge="$1"; frames="${2:-300}"
out=/run/edge-vm-out
mountpoint -q "$out" || { echo "camera-guest: $out is not shared (EDGE_VM_OUT)" >&2; exit 1; }
timings_index() {  # the first dv-timings index for WxH on the HDMI input, from v4l2-ctl's list
    v4l2-ctl -d0 --list-dv-timings | awk -v w="$1" -v h="$2" '
        /Index: / {i=$2} /Active width:/ {aw=$3}
        /Active height:/ {if (aw == w && $3 == h && !done) {print i; done=1}}'
}
for size in 640x480 1280x720; do
    w=${size%x*}; h=${size#*x}
    v4l2-ctl -d0 -i 3 >/dev/null
    idx="$(timings_index "$w" "$h")"
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
    v4l2-ctl -d0 -i 3 >/dev/null; v4l2-ctl -d0 --set-dv-bt-timings "index=$idx" >/dev/null
    v4l2-ctl -d0 -v "width=$w,height=$h,pixelformat=YUYV"; v4l2-ctl -d0 --set-ctrl loop_video=1,osd_text_mode=2
    v4l2-ctl -d1 -o 1 >/dev/null; v4l2-ctl -d1 --set-dv-bt-timings "index=$idx" >/dev/null
    v4l2-ctl -d1 -x "width=$w,height=$h,pixelformat=YUYV"
    v4l2-ctl -d1 --stream-out-mmap=3 --stream-from="/tmp/qr-$size.yuyv" --stream-loop >/dev/null 2>&1 &
    loop=$!
    sleep 1
    "$edge" scan --json --camera /dev/video0 --pixel-format YUYV --size "$size" --frames "$frames" --repeat-gap 0 \
        > "$out/scan-$size.jsonl" 2> "$out/scan-$size.err" || true
    v4l2-ctl -d0 --stream-mmap --stream-count=1 --stream-to="$out/frame-$size.yuyv"
    kill "$loop"; wait "$loop" 2>/dev/null || true
    echo "camera-guest: $size (timings index $idx): $(tail -1 "$out/scan-$size.err")"
done
