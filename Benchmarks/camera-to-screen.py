#!/usr/bin/env python3
"""Camera read to screen (issue #27): how long a scan takes from the camera's frame to a connected
screen's live event, and what an idle station spends while a screen is open.

    swift build -c release --product edge
    python3 Benchmarks/camera-to-screen.py [--bin .build/release/edge] [--baseline EARLIER_EDGE]
                                            [--reads 200] [--idle 20]

For each binary (the baseline first, when given, then --bin), in one run:
1. `edge run` (role dock, no backend) with a replay camera showing samples/po-code128.png at
   20 fps and repeat_gap 0.05 s, so every frame is a recorded scan event, and the kiosk on a free
   127.0.0.1 port. One client holds `GET /api/v1/events` open; for each `scan` event the latency
   is the client's wall clock at arrival minus the event's `captured_at` (the frame's dequeue
   time): decode, the event's commit, the station's fact stream and the SSE write. Median and
   p99 over --reads events (the first 10 are warm-up and not counted).
2. The page: the same station with /dock open in Debian's Chromium (Playwright, headless). A
   MutationObserver on "Last scans" stamps each new row with the page's wall clock; the latency is
   that stamp minus the scan's `captured_at` (read from a second SSE client): everything in 1, then
   the page's own work to show it (for an older agent, its re-read of the page). Median and p99
   over --reads rows after 10 warm-up rows. --no-browser skips it.
3. Idle: `edge run` with no camera and one open screen; the process's CPU time (utime + stime
   from /proc/PID/stat) over --idle seconds, as ms of CPU per second. A station that polls its
   own database spends it; one that waits for facts should spend next to nothing.
Ratios are --bin / --baseline.
"""
import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(binary, cameras, directory):
    port = free_port()
    config = {"station": {"name": "bench", "role": "dock", "state_dir": directory, "vault_backend": "keyfile",
                          "repeat_gap": 0.05, "cameras": cameras},
              "ui": {"listen": f"127.0.0.1:{port}"}}
    path = os.path.join(directory, "edge.json")
    with open(path, "w") as f:
        json.dump(config, f)
    env = dict(os.environ, EDGE_STATE_DIR=directory)
    process = subprocess.Popen([binary, "run", "--config", path], env=env, stdout=subprocess.DEVNULL,
                               stderr=open(os.path.join(directory, "edge.log"), "w"))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{binary} run exited with {process.returncode}; see {directory}/edge.log")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/api/v1/session")
            if c.getresponse().status == 200:
                return process, port
        except OSError:
            pass
        time.sleep(0.1)
    process.kill()
    raise SystemExit(f"{binary}: the kiosk did not answer within 30 s")


def stop(process):
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def open_events(port):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", "/api/v1/events", headers={"Accept": "text/event-stream"})
    response = c.getresponse()
    if response.status != 200:
        raise SystemExit(f"/api/v1/events: HTTP {response.status}")
    return c, response


def read_to_screen(binary, reads):
    directory = tempfile.mkdtemp(prefix="edge-c2s-")
    try:
        sample = os.path.join(ROOT, "samples", "po-code128.png")
        process, port = start(binary, [{"name": "dock", "device": "replay:" + sample, "fps": 20}], directory)
        try:
            _, response = open_events(port)
            latencies, event = [], None
            deadline = time.monotonic() + 120
            while len(latencies) < reads + 10 and time.monotonic() < deadline:
                line = response.fp.readline().decode()
                if not line:
                    raise SystemExit("the event stream ended")
                if line.startswith("event: "):
                    event = line[7:].strip()
                elif line.startswith("data: ") and event == "scan":
                    arrived = time.time()
                    latencies.append((arrived - json.loads(line[6:])["captured_at"]) * 1000)
            if len(latencies) < reads + 10:
                raise SystemExit(f"only {len(latencies)} scan events in 120 s")
            return latencies[10:]
        finally:
            stop(process)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
        shutil.rmtree(directory + "-keys", ignore_errors=True)  # the vault keys beside the state directory


def read_to_dom(binary, reads, chromium):
    """Scan rows added to the open /dock page: DOM time minus the frame's captured_at, in ms."""
    from playwright.sync_api import sync_playwright
    directory = tempfile.mkdtemp(prefix="edge-c2d-")
    try:
        sample = os.path.join(ROOT, "samples", "po-code128.png")
        process, port = start(binary, [{"name": "dock", "device": "replay:" + sample, "fps": 20}], directory)
        captured, stop_reading = {}, threading.Event()

        def follow():
            # captured_at per scan id, from the stream itself (the page's rows do not carry it).
            _, response = open_events(port)
            event, ident = None, None
            while not stop_reading.is_set():
                line = response.fp.readline().decode()
                if not line:
                    return
                if line.startswith("id: "):
                    ident = line[4:].strip()
                elif line.startswith("event: "):
                    event = line[7:].strip()
                elif line.startswith("data: ") and event == "scan":
                    captured[ident] = json.loads(line[6:])["captured_at"]

        reader = threading.Thread(target=follow, daemon=True)
        reader.start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium, headless=True)
                page = browser.new_page()
                page.add_init_script("""window.__rows = [];
                    document.addEventListener('DOMContentLoaded', () => {
                      const seen = new Set();
                      const stamp = () => { for (const li of document.querySelectorAll('#recent-scans li[data-scan-id]')) {
                        const id = li.dataset.scanId; if (!seen.has(id)) { seen.add(id); window.__rows.push([id, Date.now()]); } } };
                      stamp();
                      // The region may be replaced whole (an older page re-reads it): observe the document.
                      new MutationObserver(stamp).observe(document.body, {childList: true, subtree: true});
                    });""")
                page.goto(f"http://127.0.0.1:{port}/dock")
                page.wait_for_function(f"() => window.__rows.length >= {reads + 20}", timeout=180_000, polling=250)
                rows = page.evaluate("() => window.__rows")
                browser.close()
        finally:
            stop_reading.set()
            stop(process)
        # Rows already in the page when it loaded are not live; then 10 warm-up rows.
        live = [(i, t) for i, t in rows[2:] if i in captured]
        latencies = [t - captured[i] * 1000 for i, t in live][10:10 + reads]
        if len(latencies) < reads:
            raise SystemExit(f"only {len(latencies)} live rows measured")
        return latencies
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cpu(binary, seconds):
    directory = tempfile.mkdtemp(prefix="edge-idle-")
    try:
        process, port = start(binary, [], directory)
        try:
            connection, _ = open_events(port)
            time.sleep(1)
            before = cpu_seconds(process.pid)
            time.sleep(seconds)
            after = cpu_seconds(process.pid)
            connection.close()
            return (after - before) * 1000 / seconds
        finally:
            stop(process)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
        shutil.rmtree(directory + "-keys", ignore_errors=True)  # the vault keys beside the state directory


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(len(ordered) * p)) - 1))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release", "edge"))
    parser.add_argument("--baseline", help="an earlier edge binary, measured in the same run")
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--idle", type=float, default=20)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium DOM measurement")
    args = parser.parse_args()
    binaries = ([("baseline", args.baseline)] if args.baseline else []) + [("edge", args.bin)]
    results = {}
    for name, binary in binaries:
        if not os.access(binary, os.X_OK):
            raise SystemExit(f"{binary}: not an executable (swift build -c release --product edge)")
        latencies = read_to_screen(binary, args.reads)
        dom = None if args.no_browser else read_to_dom(binary, args.reads, args.chromium)
        idle = idle_cpu(binary, args.idle)
        results[name] = (statistics.median(latencies), percentile(latencies, 0.99), idle,
                         dom and statistics.median(dom), dom and percentile(dom, 0.99))
        median, p99, idle, dom_median, dom_p99 = results[name]
        print(f"{name:8s} read to SSE event: median {median:.2f} ms, p99 {p99:.2f} ms ({len(latencies)} reads); "
              + (f"read to DOM row in Chromium: median {dom_median:.2f} ms, p99 {dom_p99:.2f} ms; " if dom else "")
              + f"idle with one screen: {idle:.2f} ms CPU per s")
        sys.stdout.flush()
    if "baseline" in results:
        (m0, p0, i0, d0, dp0), (m1, p1, i1, d1, dp1) = results["baseline"], results["edge"]
        print(f"ratio edge/baseline: median {m1 / m0:.2f}, p99 {p1 / p0:.2f}"
              + (f", DOM median {d1 / d0:.2f}, DOM p99 {dp1 / dp0:.2f}" if d0 and d1 else "")
              + (f", idle CPU {i1 / i0:.2f}" if i0 > 0 else ""))


if __name__ == "__main__":
    main()
