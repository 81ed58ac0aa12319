# Sourced by the guest halves of the camera benchmarks (camera-guest.sh, agent-guest.sh): vivid's
# HDMI output looped into its capture node (recipe: shared/spec/hardware.md).

# Results go to /run/edge-vm-out, shared with the host by .ci/vivid-vm (EDGE_VM_OUT).
out=/run/edge-vm-out
mountpoint -q "$out" || { echo "$(basename "$0"): $out is not shared (EDGE_VM_OUT)" >&2; exit 1; }

# The first dv-timings index for WxH on the HDMI input, from v4l2-ctl's list.
timings_index() {
    v4l2-ctl -d0 --list-dv-timings | awk -v w="$1" -v h="$2" '
        /Index: / {i=$2} /Active width:/ {aw=$3}
        /Active height:/ {if (aw == w && $3 == h && !done) {print i; done=1}}'
}

# start_loop W H FRAME.yuyv: capture node 0 on HDMI at WxH YUYV, output node 1 streaming FRAME in
# a loop; sets $loop to the streaming v4l2-ctl's pid.
start_loop() {
    local w="$1" h="$2" frame="$3" idx
    v4l2-ctl -d0 -i 3 >/dev/null
    idx="$(timings_index "$w" "$h")"
    v4l2-ctl -d0 --set-dv-bt-timings "index=$idx" >/dev/null
    v4l2-ctl -d0 -v "width=$w,height=$h,pixelformat=YUYV"; v4l2-ctl -d0 --set-ctrl loop_video=1,osd_text_mode=2
    v4l2-ctl -d1 -o 1 >/dev/null; v4l2-ctl -d1 --set-dv-bt-timings "index=$idx" >/dev/null
    v4l2-ctl -d1 -x "width=$w,height=$h,pixelformat=YUYV"
    v4l2-ctl -d1 --stream-out-mmap=3 --stream-from="$frame" --stream-loop >/dev/null 2>&1 &
    loop=$!
    sleep 1
    echo "vivid-loop: ${w}x${h} (timings index $idx)" >&2
}

# stop_loop: SIGTERM, then SIGKILL (v4l2-ctl can stay blocked while the capture side streams).
stop_loop() {
    kill "$loop" 2>/dev/null || true
    sleep 1
    kill -9 "$loop" 2>/dev/null || true
    wait "$loop" 2>/dev/null || true
}
