#!/usr/bin/env python3
"""Agent benchmark (issue #11): CPU of `edge run` per camera stream and frame-to-event latency.

One `edge run` (release build) with one replayed camera at 30 fps (the host frame source: images
decoded once, then handed to the scanning loop like a camera's frames), per frame size:
640x480 and 1280x720. A second of frames is one frame with a Code 128 purchase-order label and
29 without a code (mild Gaussian noise over a gradient), so the stream is mostly what a station's camera sees:
nothing. With a repeat gap of 0.5 s each sighting of the label becomes one scan event (kept
locally, no backend), about one a second.

Measured after a 3 s warm-up, over --seconds: the agent's CPU from /proc/PID/stat (user+system,
all threads: capture, decode, store, metrics, status), as % of one core and ms per frame; frames
from /metrics; and every event's frame-to-event latency as the agent recorded it (dequeued to
the row written in its transaction). Each size runs --runs times; the table shows each run and
the spread. Nothing here is asserted: compare within one run.

With --vivid, the same agent also runs in the vivid VM (.ci/vivid-vm, QEMU TCG: emulated, no
KVM) on /dev/video0 with a QR frame looped through vivid at each size (Benchmarks/agent-guest.sh),
once per size: CPU % of one emulated core and frame-to-event latency. Those figures measure the
emulator as much as edge; they show the agent works on a real V4L2 driver, not its speed.

Usage: python3 Benchmarks/agent.py [--runs 3] [--seconds 20] [--no-build] [--vivid]
Needs: Swift, ImageMagick (convert), zint, sqlite3 (Debian: imagemagick zint sqlite3).
"""
import argparse, json, os, re, shutil, signal, sqlite3, statistics, subprocess, sys, tempfile, time, urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")


def build(scratch):
    # `edge run` is edge-agent's; `edge` execs it (Sources/edge/EdgeFront.swift).
    for product in ("edge", "edge-agent"):
        subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--scratch-path", str(scratch), "--product", product],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def frames(directory, width, height):
    """One frame with a Code 128 label, one without a code; returns the replay list (1 + 29)."""
    # The label's width in pixels: about half the frame's, as a label held under the camera.
    label = directory / f"label-{width}.png"
    subprocess.run(["zint", "--barcode=20", f"--scale={1 if width < 1000 else 2}", "-d", "PO-2026-00042", "-o", str(label)],
                   check=True, stdout=subprocess.DEVNULL)
    empty = directory / f"empty-{width}x{height}.png"
    code = directory / f"code-{width}x{height}.png"
    subprocess.run(["convert", "-size", f"{width}x{height}", "gradient:gray70-gray40", "-seed", "7", "-attenuate", "0.1",
                    "+noise", "Gaussian", "-colorspace", "Gray", str(empty)], check=True)
    subprocess.run(["convert", str(empty), str(label), "-gravity", "center", "-composite", "-colorspace", "Gray", str(code)], check=True)
    return [str(code)] + [str(empty)] * 29


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def metric(address, name):
    text = urllib.request.urlopen(f"http://{address}/metrics", timeout=5).read().decode()
    match = re.search(rf'^{re.escape(name)} ([0-9.e+]+)$', text, re.M)
    return float(match.group(1)) if match else 0.0


def run_once(edge, replay, seconds, width, height):
    state = Path(tempfile.mkdtemp(prefix="edge-agent-bench-"))
    try:
        config = state / "edge.json"
        config.write_text(json.dumps({"station": {
            "name": "bench", "state_dir": str(state), "vault_backend": "keyfile", "metrics": "127.0.0.1:0", "repeat_gap": 0.5,
            "scan_events": {"default": "keep", "classes": {"purchase-order": "keep"}},
            "cameras": [{"name": "bench", "device": "replay:" + ",".join(replay), "fps": 30}]}}))
        env = {k: v for k, v in os.environ.items() if not k.startswith("EDGE_")}
        agent = subprocess.Popen([str(edge), "run", "--config", str(config)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            status = state / "agent-status.json"
            deadline = time.time() + 30
            address = None
            while time.time() < deadline and not address:
                time.sleep(0.1)
                try:
                    address = json.loads(status.read_text())["snapshot"].get("metricsAddress")
                except (OSError, ValueError, KeyError):
                    pass
            if not address:
                raise SystemExit("edge run did not start (no metrics address in agent-status.json)")
            time.sleep(3)
            start_wall, start_cpu = time.time(), cpu_seconds(agent.pid)
            start_frames = metric(address, 'edge_frames_total{camera="bench"}')
            time.sleep(seconds)
            wall, cpu = time.time() - start_wall, cpu_seconds(agent.pid) - start_cpu
            frames_seen = metric(address, 'edge_frames_total{camera="bench"}') - start_frames
        finally:
            agent.send_signal(signal.SIGTERM)
            agent.wait(timeout=20)
        db = sqlite3.connect(state / "edge.sqlite")
        latencies = sorted(r[0] for r in db.execute("SELECT latency_ms FROM scan_events WHERE captured_at >= ?", (start_wall,)))
        db.close()
        pct = lambda p: latencies[min(len(latencies) - 1, len(latencies) * p // 100)] if latencies else float("nan")
        return {"size": f"{width}x{height}", "fps": frames_seen / wall, "cpu_pct": 100 * cpu / wall,
                "cpu_ms_per_frame": 1000 * cpu / max(frames_seen, 1), "events": len(latencies), "p50_ms": pct(50), "p99_ms": pct(99),
                "exit": agent.returncode}
    finally:
        shutil.rmtree(state, ignore_errors=True)
        shutil.rmtree(str(state) + "-keys", ignore_errors=True)  # the vault keys beside the state directory


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--vivid", action="store_true", help="also run once per size in the vivid VM (emulated)")
    args = parser.parse_args()
    scratch = Path(os.environ.get("EDGE_SCRATCH") or ROOT / ".build")
    if not args.no_build:
        build(scratch)
    edge = scratch / "release" / "edge"
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for width, height in ((640, 480), (1280, 720)):
            replay = frames(Path(work), width, height)
            for run in range(args.runs):
                row = run_once(edge, replay, args.seconds, width, height)
                row["run"] = run + 1
                rows.append(row)
                print(f"{row['size']:>9} run {row['run']}: {row['fps']:5.1f} fps, CPU {row['cpu_pct']:5.1f} % of a core "
                      f"({row['cpu_ms_per_frame']:.2f} ms/frame), {row['events']} events, frame-to-event p50 {row['p50_ms']:.2f} ms "
                      f"p99 {row['p99_ms']:.2f} ms, exit {row['exit']}", flush=True)
    print(f"\n{'size':>9} {'CPU % of a core (min-max)':>27} {'ms CPU/frame':>14} {'p50 ms (min-max)':>18} {'p99 ms (min-max)':>18}")
    for size in ("640x480", "1280x720"):
        rs = [r for r in rows if r["size"] == size]
        span = lambda k: f"{statistics.median(r[k] for r in rs):.2f} ({min(r[k] for r in rs):.2f}-{max(r[k] for r in rs):.2f})"
        print(f"{size:>9} {span('cpu_pct'):>27} {span('cpu_ms_per_frame'):>14} {span('p50_ms'):>18} {span('p99_ms'):>18}")
    if args.vivid:
        rows += vivid(edge, scratch, args.seconds)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


def vivid(edge, scratch, seconds):
    """One run per size in the VM; returns rows marked emulated."""
    rows = []
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, EDGE_VM_OUT=out, EDGE_VM_REQUIRED="1", EDGE_BUILD_PATH=str(scratch), EDGE_VM_TIMEOUT="600")
        subprocess.run([str(ROOT / ".ci/vivid-vm"), "--exec", "bash", "Benchmarks/agent-guest.sh", str(edge), str(int(seconds))],
                       cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
        print(f"\n{'vivid (emulated)':>16} {'CPU % of a core':>16} {'events':>7} {'p50 ms':>8} {'p99 ms':>8}")
        for size in ("640x480", "1280x720"):
            result = json.loads(Path(out, f"agent-{size}.json").read_text())
            lat = sorted(result["latencies_ms"])
            pct = lambda p: lat[min(len(lat) - 1, len(lat) * p // 100)] if lat else float("nan")
            row = {"size": size, "emulated": True, "cpu_pct": 100 * result["cpu_seconds"] / result["wall_seconds"],
                   "events": len(lat), "p50_ms": pct(50), "p99_ms": pct(99), "frames_total": result["frames"]}
            rows.append(row)
            print(f"{size:>16} {row['cpu_pct']:16.1f} {row['events']:7d} {row['p50_ms']:8.2f} {row['p99_ms']:8.2f}")
    return rows


if __name__ == "__main__":
    sys.exit(main())
