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
2. Idle: `edge run` with no camera and one open screen; the process's CPU time (utime + stime
   from /proc/PID/stat) over --idle seconds, as ms of CPU per second. A station that polls its
   own database spends it; one that waits for facts should spend next to nothing.
Ratios are --bin / --baseline. The page's DOM update in Chromium is not measured here.
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
    args = parser.parse_args()
    binaries = ([("baseline", args.baseline)] if args.baseline else []) + [("edge", args.bin)]
    results = {}
    for name, binary in binaries:
        if not os.access(binary, os.X_OK):
            raise SystemExit(f"{binary}: not an executable (swift build -c release --product edge)")
        latencies = read_to_screen(binary, args.reads)
        idle = idle_cpu(binary, args.idle)
        results[name] = (statistics.median(latencies), percentile(latencies, 0.99), idle)
        median, p99, idle = results[name]
        print(f"{name:8s} read to SSE event: median {median:.2f} ms, p99 {p99:.2f} ms ({len(latencies)} reads); "
              f"idle with one screen: {idle:.2f} ms CPU per s")
        sys.stdout.flush()
    if "baseline" in results:
        (m0, p0, i0), (m1, p1, i1) = results["baseline"], results["edge"]
        print(f"ratio edge/baseline: median {m1 / m0:.2f}, p99 {p1 / p0:.2f}, idle CPU {i1 / i0:.2f}" if i0 > 0 else
              f"ratio edge/baseline: median {m1 / m0:.2f}, p99 {p1 / p0:.2f}")


if __name__ == "__main__":
    main()
