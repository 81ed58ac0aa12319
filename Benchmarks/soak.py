#!/usr/bin/env python3
"""Soak (issue #30 item 5): `edge run` under steady load for --minutes, its memory, file
descriptors and threads sampled every --interval seconds; at the end every scan event must have
been applied exactly once by the backend.

The load, all at once for the whole run:
- one station with role `both` (dock, clinic, kiosk, push relay) and two `replay:` cameras looping
  over the receiving labels of samples/ (purchase orders, material, product, vendor, GS1) among
  empty frames, at 2 and 4 fps: each label in view once every 15 s, about 40 scan events a minute,
  under the 100 backend requests a minute a station may send (SYN-8) with room for retries;
- the stand-in backend (`edge-standin --control`) with random faults on every contract and FCM
  request (refuse, delay, drop after apply, drop before apply, 503, double answer; not the
  black-hole `stall`/`trickle`), and now and then an FCM-only fault (503, 429 with Retry-After,
  a slow answer, an HTML 502);
- push: notifications appended to the backend's pull log for three users (the relay's intake:
  pulled, then sent to the FCM stand-in), and now and then `edge push send --no-send` from the
  command line (another process writing the same database; the agent sends it);
- a kiosk client: GET /api/v1/status every second, a Server-Sent Events reader on
  /api/v1/events that reconnects every 20-90 s (with Last-Event-ID), keyboard-wedge scans
  (POST /api/v1/dock/scans with the CSRF token of GET /api/v1/session) every 2-4 s, a receipt
  discarded every minute, and /metrics scraped every 10 s.

Sampled from /proc/PID: VmRSS and Threads (status), open descriptors (fd/, by kind in CSV.fds.jsonl), CPU seconds (stat);
also the scan events recorded and the outbox depth (the station's database, read-only). Every
sample is a CSV row (--csv).

At the end: the load stops, the faults are cleared, the cameras are removed (edge.json rewritten,
SIGHUP), the outbox drains, one quiet sample is taken, then SIGTERM: the agent must exit 0. The
check: for each scan event that was queued (`scan_events.outbox_id`) the stand-in has an applied
record (`GET /_standin/applied`) on its stream at its sequence with `applications == 1`, and no
applied record on a scan stream lacks an event; no dead letters, no conflicts. A station's outbox
row id and its sequence are the same number on a fresh database (both start at 1 and advance
together in `Outbox.enqueue`; only salvage, import and requeue break that, and none runs here):
the script checks this on every outbox row it sees while running.

The figures: RSS, fds and threads at warm-up end (10 minutes in, or a third of a shorter run)
and at the end of the load; growth over the last 20 minutes (or the two-thirds after warm-up) as
the median of the last minute's samples against the median of the minute before the window
starts, and as a least-squares trend over the window; the maxima. RSS is two parts
(/proc/PID/status): file pages (the binary's and libraries' code and data, paged in as code paths
run for the first time, as the rarer faults do hours in; bounded by the files) and anonymous
memory (the heaps and stacks, where a leak grows). SQLite's own memory (`edge_sqlite_memory_bytes`
from /metrics: its page caches, each up to 2000 KiB per connection, fill as the database grows)
is anonymous too, and bounded. Anonymous memory less SQLite's is what must stay flat: PASS needs
its growth under 1 MB by both measures (RSS and its parts are printed beside it), threads and the
descriptors other than the station's connections to the backend flat (growth under 1 by both
measures). Those connections are pools (BACKEND_POOL_BOUND says which) whose count moves by one or
two between samples with the load's overlaps and the injected faults, so a one-minute median
flips with it: they must stay within the pools' bound, and their five-minute means at the two
ends of the window and their trend must grow by under 1 (one connection kept open for good is a
leak). Also needed: the applied-once
check, and a clean exit (the report names the threads and the kinds of descriptors that moved); and a puller that waits: no more pulls than one per `pull_interval`
plus one after each send (the backend's request log, tallied every minute). Exit status: 0 pass,
1 fail, 2 could not run.

This is a benchmark, not a CI step: the figures depend on the machine and on what else it does.

Usage: python3 Benchmarks/soak.py [--minutes 30] [--interval 10] [--csv FILE] [--bin DIR] [--keep]
Needs: edge and edge-standin built (`swift build`), Python 3 (stdlib only), Linux /proc.
"""
import argparse
import http.client as httpclient
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(REPO, "samples")
TENANT = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"  # DemoData.tenantID
SYNC_PUSH = "/api/sync/push"
# The cameras: what a dock camera and a bench camera would see over and over, each label once
# in 15 s among empty frames (`BLANK`): about 40 scan events a minute for both, under the
# backend's 100 requests a minute (SYN-8, `sync.requests_per_minute`) with room for retries.
CAMERAS = [
    ("dock", ["po-code128.png", "material.png", "product-ean13.png", "vendor.png", "gs1-128.png"], 2, 5),
    ("bench", ["po-code39.png", "product-ean13.png", "gs1-qr.png", "material.png", "po-code128.png"], 4, 11),
]
BLANK = "blank.png"
# station.pull_interval: the puller asks every 2 s, and once more after each send that reached the
# backend (`SenderService`); the soak checks that it asks no more often than that.
PULL_INTERVAL = 2
# The station's client connections to the stand-in (its one port serves the contract, FCM and the
# OAuth token) are pools: the sync transport shared by sender, puller and dock
# (8, `StationParts.syncTransport`), the FCM transport (AsyncHTTPClient, 4)
# and the clinic's portal transport (4). How many are open at a sample follows how many requests
# overlapped lately and the injected faults, which close connections (drop, refuse, 503 with
# close), so the count moves by one or two from sample to sample in a healthy station.
BACKEND_POOL_BOUND = 16
# What the keyboard wedge sends: the demo data's orders, material and products, and a stranger.
WEDGE_LABELS = ["PO-2026-00042", "PO-2026-00043", "MAT-ST-4471", "4006381333931", "PO-2026-00077", "PO-1999-00001", "4006381333931"]
ORDERS = ["PO-2026-00042", "PO-2026-00043", "PO-2026-00077"]
PUSH_TYPES = ["KPI_ALERT", "ANOMALY_ALERT", "APPROVAL_PENDING", "DELIVERY_UPDATE", "BUDGET_WARNING", "ASSIGNMENT_CREATED", "ENROLLMENT_UPDATE"]
# ana and dock-lead get every type now (overrides), ben keeps the standard quiet hours: his
# notifications are held and digested when they fall in them, as a real team's would be.
PUSH_USERS = ["ana", "ben", "dock-lead"]
FCM_FAULTS = [
    {"kind": "server_error", "status": 503},
    {"kind": "quota_exceeded", "retry_after": "1"},
    {"kind": "slow", "seconds": 2},
    {"kind": "bad_gateway_html"},
]


# The browser suite's harness (standard library only) has the small helpers both need.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Browser"))
import harness  # noqa: E402
from harness import blank_png, tail, wait_until  # noqa: E402


class SoakError(harness.Failure):
    """The soak could not run (a process did not start, a setup call failed)."""


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def http(method, url, body=None, headers=None, timeout=15.0):
    """One request; (status, body bytes) whatever the status."""
    status, _, data = harness.http(method, url, body, headers, timeout)
    return status, data


def http_json(method, url, body=None, expect=(200,)):
    status, data = http(method, url, body)
    if status not in expect:
        raise SoakError(f"{method} {url} answered {status}: {data[:300]!r}")
    return json.loads(data) if data else None


# MARK: the processes


class Standin:
    """`edge-standin --port 0 --control --seed-demo-data --fcm-service-account FILE`."""

    def __init__(self, bin_dir, work):
        executable = os.path.join(bin_dir, "edge-standin")
        if not os.access(executable, os.X_OK):
            raise SoakError(f"no edge-standin at {executable} (swift build builds it; --bin DIR)")
        self.token = "soak-" + uuid.uuid4().hex
        self.account_path = os.path.join(work, "fcm-service-account.json")
        self.log_path = os.path.join(work, "standin.log")
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [executable, "--port", "0", "--token", self.token, "--control", "--seed-demo-data", "--fcm-service-account", self.account_path],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

        def ready():
            if self.process.poll() is not None:
                raise SoakError(f"edge-standin exited with {self.process.returncode}:\n{tail(self.log_path)}")
            text = tail(self.log_path)
            match = re.search(r"http://127\.0\.0\.1:([0-9]+)", text)
            return int(match.group(1)) if match and "service account" in text else None

        self.port = wait_until("edge-standin's banner (port, service account)", ready, 30, detail=lambda: tail(self.log_path))
        self.url = f"http://127.0.0.1:{self.port}"

    def control(self, method, path, body=None):
        return http_json(method, self.url + path, body)

    # The harness's stop: terminate, kill after 10 s, close the log (same attributes).
    stop = harness.Standin.stop


class Station:
    """`edge run` with its own state directory, keyfile vault and edge.json."""

    def __init__(self, bin_dir, work, standin, repeat_gap):
        self.edge = os.path.join(bin_dir, "edge")
        # `edge run` is edge-agent's: the front execs it in the same process (same PID).
        for binary in (self.edge, os.path.join(bin_dir, "edge-agent")):
            if not os.access(binary, os.X_OK):
                raise SoakError(f"no {os.path.basename(binary)} at {binary} (swift build builds it; --bin DIR)")
        self.dir = os.path.join(work, "station")
        os.makedirs(self.dir)
        self.config_path = os.path.join(self.dir, "edge.json")
        self.database = os.path.join(self.dir, "edge.sqlite")
        self.log_path = os.path.join(self.dir, "agent.log")
        self.process = None
        # As the CLI tests give it: nothing inherited from EDGE_* or a systemd notify socket.
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("EDGE_") and k != "NOTIFY_SOCKET"}
        self.env["EDGE_STATE_DIR"] = self.dir
        blank = os.path.join(work, BLANK)
        blank_png(blank)
        cameras = []
        for name, images, fps, blanks in CAMERAS:
            frames = []
            for image in images:
                frames += [os.path.join(SAMPLES, image)] + [blank] * blanks
            cameras.append({"name": name, "device": "replay:" + ",".join(frames), "fps": fps})
        self.config = {
            "sponsors": [
                {"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": standin.url},
                {"prefix": "CD", "sponsor_id": "sponsor-cd", "backend_url": standin.url},
            ],
            "sync": {"base_url": standin.url, "connect_timeout": 2, "total_timeout": 5},
            "receiving": {"tenant_id": TENANT},
            "enrollment": {"request_timeout": 5},
            "push": {"endpoint": standin.url, "station_zone": "UTC", "receiving_team": ["dock-lead"], "request_timeout": 10},
            "station": {
                "name": "soak", "role": "both", "state_dir": self.dir, "vault_backend": "keyfile",
                "pull_interval": PULL_INTERVAL, "metrics": "127.0.0.1:0", "repeat_gap": repeat_gap, "cameras": cameras,
            },
            "ui": {"listen": "127.0.0.1:0"},
        }
        self.write_config()
        self.put_secret("sync.token", standin.token.encode())
        with open(standin.account_path, "rb") as handle:
            self.put_secret("push.service-account", handle.read())

    def write_config(self):
        with open(self.config_path, "w") as handle:
            json.dump(self.config, handle, indent=1)

    def put_secret(self, name, value):
        """`edge vault put NAME` with the value on stdin, never argv."""
        put = subprocess.run([self.edge, "vault", "put", name, "--backend", "keyfile"], input=value, env=self.env,
                             capture_output=True, cwd=self.dir, timeout=60)
        if put.returncode != 0:
            raise SoakError(f"edge vault put {name} failed ({put.returncode}): {put.stderr.decode(errors='replace')}")

    def cli(self, *arguments, stdin=None, timeout=60):
        return subprocess.run([self.edge, *arguments, "--config", self.config_path], env=self.env, capture_output=True,
                              cwd=self.dir, timeout=timeout, input=stdin)

    def logged(self, event, field):
        """`field` of the first log line with `event=EVENT`, or None."""
        with open(self.log_path, "r", errors="replace") as handle:
            for line in handle:
                if re.search(rf"\bevent=\"?{re.escape(event)}\b", line):
                    match = re.search(rf"\b{field}=\"?([^\"\s]+)", line)
                    if match:
                        return match.group(1)
        return None

    def start(self):
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen([self.edge, "run", "--config", self.config_path], env=self.env, cwd=self.dir,
                                        stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

        def address():
            if self.process.poll() is not None:
                raise SoakError(f"edge run exited with {self.process.returncode}:\n{tail(self.log_path)}")
            return self.logged("ui.listening", "address")

        self.address = re.sub(r"^https?://", "", wait_until("edge run's UI address (event=ui.listening)", address, 90,
                                                            detail=lambda: tail(self.log_path))).rstrip("/")
        self.url = "http://" + self.address
        wait_until("GET /api/v1/session", lambda: http("GET", self.url + "/api/v1/session")[0] == 200, 30, detail=lambda: tail(self.log_path))

        def metrics():
            status = json.loads(open(os.path.join(self.dir, "agent-status.json")).read())
            return status["snapshot"].get("metricsAddress")

        self.metrics = wait_until("the metrics address (agent-status.json)", metrics, 30, detail=lambda: tail(self.log_path))

    def stop(self, timeout=60):
        """SIGTERM; (exit status, seconds to exit)."""
        started = time.monotonic()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                self.log.close()
                return None, time.monotonic() - started
        self.log.close()
        return self.process.returncode, time.monotonic() - started


def database_query(path, sql, arguments=()):
    """A short read-only query on the station's database (WAL: the agent keeps writing)."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        return connection.execute(sql, arguments).fetchall()
    finally:
        connection.close()


# MARK: the load


class Load:
    """The kiosk client, the SSE reader, the push feeder and the FCM faults, each on its own thread."""

    def __init__(self, station, standin, seed):
        self.station = station
        self.standin = standin
        self.random = random.Random(seed)
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.counts = {}
        self.errors = []
        self.sse_socket = None
        self.threads = [threading.Thread(target=self.guard, args=(target,), name=target.__name__, daemon=True)
                        for target in (self.kiosk, self.sse, self.push, self.scrape)]

    def count(self, name, by=1):
        with self.lock:
            self.counts[name] = self.counts.get(name, 0) + by

    def error(self, what):
        self.count("errors")
        with self.lock:
            if len(self.errors) < 20:
                self.errors.append(f"{time.strftime('%H:%M:%S')} {what}")

    def guard(self, target):
        while not self.stopping.is_set():
            try:
                target()
            except Exception as error:  # noted, and the part starts again: one failure must not end the load
                self.error(f"{target.__name__}: {error!r}")
                self.stopping.wait(1)

    def start(self):
        for thread in self.threads:
            thread.start()

    def stop(self):
        self.stopping.set()
        sse = self.sse_socket
        if sse is not None:
            try:
                sse.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for thread in self.threads:
            thread.join(timeout=30)

    def kiosk(self):
        url = self.station.url
        token = http_json("GET", url + "/api/v1/session")["csrf_token"]
        headers = {"X-CSRF-Token": token}
        next_scan = time.monotonic()
        next_discard = time.monotonic() + 60
        while not self.stopping.wait(1.0):
            status, _ = http("GET", url + "/api/v1/status")
            self.count("status_ok" if status == 200 else "status_other")
            if status != 200:
                self.error(f"GET /api/v1/status answered {status}")
            now = time.monotonic()
            if now >= next_scan:
                next_scan = now + self.random.uniform(2, 4)
                label = self.random.choice(WEDGE_LABELS)
                status, body = http("POST", url + "/api/v1/dock/scans", {"text": label}, headers, timeout=30)
                # 200 with the lookup or the notice; a refusal the backend's fault explains is an
                # answer too (4xx/5xx with the kiosk's error document). Only no answer is an error.
                self.count(f"wedge_{status}")
            if now >= next_discard:
                next_discard = now + 60
                for po in ORDERS:
                    status, _ = http("DELETE", f"{url}/api/v1/dock/receipts/{po}", None, dict(headers, **{"Content-Type": "application/json"}))
                    self.count(f"discard_{status}")

    def sse(self):
        """One connection for 20-90 s, then another resuming from the last event id."""
        last_id = None
        while not self.stopping.is_set():
            connection = httpclient.HTTPConnection(self.station.address.rsplit(":", 1)[0], int(self.station.address.rsplit(":", 1)[1]), timeout=60)
            headers = {"Accept": "text/event-stream"}
            if last_id is not None:
                headers["Last-Event-ID"] = last_id
            connection.request("GET", "/api/v1/events", headers=headers)
            self.sse_socket = connection.sock
            response = connection.getresponse()
            if response.status != 200:
                self.error(f"GET /api/v1/events answered {response.status}")
                connection.close()
                self.stopping.wait(2)
                continue
            self.count("sse_connections")
            until = time.monotonic() + self.random.uniform(20, 90)
            try:
                while time.monotonic() < until and not self.stopping.is_set():
                    line = response.readline()
                    if not line:
                        if not self.stopping.is_set():
                            self.error("the event stream ended")
                        break
                    if line.startswith(b"event:"):
                        self.count("sse_events")
                    elif line.startswith(b"id:"):
                        last_id = line[3:].strip().decode()
            except OSError:
                if not self.stopping.is_set():
                    raise
            finally:
                self.sse_socket = None
                connection.close()

    def push(self):
        next_cli = time.monotonic() + 15
        next_fcm_fault = time.monotonic() + 20
        number = 0
        while not self.stopping.wait(self.random.uniform(3, 7)):
            number += 1
            user = self.random.choice(PUSH_USERS)
            kind = self.random.choice(PUSH_TYPES)
            self.standin.control("POST", "/_standin/changes", {"stream": f"push:{user}", "kind": "NOTIFICATION", "payload": {
                "user_id": user, "type": kind, "priority": self.random.choice(["HIGH", "NORMAL"]),
                "title": f"Soak notification {number}", "body": "Something happened at the dock", "deep_link": f"/soak/{number}"}})
            self.count("push_pulled_fed")
            now = time.monotonic()
            if now >= next_cli:
                next_cli = now + self.random.uniform(20, 40)
                sent = self.station.cli("push", "send", "--user", self.random.choice(PUSH_USERS), "--type", "DELIVERY_UPDATE",
                                        "--title", f"Soak delivery {number}", "--no-send", timeout=60)
                self.count("push_cli_ok" if sent.returncode == 0 else f"push_cli_exit_{sent.returncode}")
                if sent.returncode not in (0, 1):
                    self.error(f"edge push send exited {sent.returncode}: {sent.stderr.decode(errors='replace')[:200]}")
            if now >= next_fcm_fault:
                next_fcm_fault = now + self.random.uniform(15, 30)
                self.standin.control("POST", "/_standin/fcm/faults", dict(self.random.choice(FCM_FAULTS), times=1))
                self.count("fcm_faults_set")

    def scrape(self):
        """/metrics every 10 s, as Prometheus would; the stand-in's records tallied and forgotten
        every minute so its own memory stays small."""
        next_tally = time.monotonic() + 60
        while not self.stopping.wait(10):
            status, _ = http("GET", f"http://{self.station.metrics}/metrics")
            self.count("metrics_ok" if status == 200 else "metrics_other")
            if time.monotonic() >= next_tally:
                next_tally = time.monotonic() + 60
                self.tally()

    def tally(self):
        """Counts the faults the stand-in injected and the FCM answers, then clears both lists
        (the applied records stay: the final check reads them)."""
        for record in self.standin.control("GET", "/_standin/requests") or []:
            if record.get("fault"):
                self.count(f"fault_{record['fault']}")
            self.count("backend_requests")
            self.count("path " + re.sub(r"/[0-9a-fA-F-]{6,}|/PO-[0-9-]+", "/ID", record.get("path", "?")))
        self.standin.control("DELETE", "/_standin/requests")
        for message in self.standin.control("GET", "/_standin/fcm/messages") or []:
            self.count("fcm_accepted" if message.get("status") == 200 else "fcm_refused")
        self.standin.control("DELETE", "/_standin/fcm/messages")


# MARK: sampling and figures


def proc_sample(pid):
    with open(f"/proc/{pid}/status") as handle:
        status = handle.read()
    rss = int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1))
    anon = int(re.search(r"^RssAnon:\s+(\d+) kB", status, re.M).group(1))
    threads = int(re.search(r"^Threads:\s+(\d+)", status, re.M).group(1))
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return rss, anon, fds, threads, cpu


MEMORY_GAUGES = {"sqlite_kb": b"edge_sqlite_memory_bytes", "heap_kb": b"edge_malloc_in_use_bytes",
                 "heap_free_kb": b"edge_malloc_free_retained_bytes"}


def memory_metrics_kb(metrics_address):
    """The agent's own memory gauges from /metrics, in kB: SQLite's memory, malloc's bytes in use
    and malloc's freed-but-kept bytes (None when /metrics is unreadable or lacks one)."""
    status, body = http("GET", f"http://{metrics_address}/metrics", timeout=5)
    if status != 200:
        return None
    values = {}
    for key, name in MEMORY_GAUGES.items():
        found = re.search(rb"^" + name + rb"(?:\{[^}]*\})? ([0-9.e+]+)$", body, re.M)
        if not found:
            return None
        values[key] = float(found.group(1)) / 1024
    return values


def tcp_sockets():
    """inode -> (local port, remote port, listening) of this machine's TCP sockets."""
    table = {}
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(path) as handle:
                lines = handle.readlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9:
                port = lambda address: int(address.rsplit(":", 1)[1], 16)
                table[fields[9]] = (port(fields[1]), port(fields[2]), fields[3] == "0A")
    return table


def fd_kinds(pid):
    """How many open descriptors of each kind: files by name, TCP sockets by port (listening on
    one, accepted on one of the process's listening ports, or connected to a server's port),
    other sockets and anonymous inodes by type. A pool that grew (SQLite readers, kept-alive
    connections) is told from a leak by which kind moved."""
    tcp = tcp_sockets()
    targets = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            targets.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            continue
    sockets = [tcp.get(m.group(1)) for m in (re.match(r"socket:\[(\d+)\]$", t) for t in targets) if m]
    listening = {entry[0] for entry in sockets if entry and entry[2]}
    kinds = {}
    for target in targets:
        found = re.match(r"socket:\[(\d+)\]$", target)
        if found:
            entry = tcp.get(found.group(1))
            if entry is None:
                kind = "socket, not TCP"
            elif entry[2]:
                kind = f"tcp listening :{entry[0]}"
            elif entry[0] in listening:
                kind = f"tcp accepted on :{entry[0]}"
            else:
                kind = f"tcp to :{entry[1]}"
        elif target.startswith("anon_inode:"):
            kind = target[len("anon_inode:"):].strip("[]")
        else:
            kind = os.path.basename(target)
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


def thread_names(pid):
    """How many threads of each name the process has (/proc/PID/task/*/comm)."""
    names = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/comm") as handle:
                name = handle.read().strip()
        except OSError:
            continue
        names[name] = names.get(name, 0) + 1
    return names


def trend(points):
    """Least-squares slope of (t, value) points, per second."""
    if len(points) < 2:
        return 0.0
    mean_t = statistics.fmean(t for t, _ in points)
    mean_v = statistics.fmean(v for _, v in points)
    denominator = sum((t - mean_t) ** 2 for t, _ in points)
    return sum((t - mean_t) * (v - mean_v) for t, v in points) / denominator if denominator else 0.0


def figures(samples, warm_up, window_start, span):
    """Per measure: at warm-up end, at the end, growth over the window (medians of `span` seconds
    of samples at each end, means of five minutes, and the trend), max."""
    def mean_before(key, t, seconds=300):
        values = [s[key] for s in samples if t - seconds < s["t"] <= t]
        return statistics.fmean(values) if values else float("nan")

    out = {}
    end_t = samples[-1]["t"]
    for key in ("rss_kb", "anon_kb", "sqlite_kb", "anon_less_sqlite_kb", "heap_kb", "heap_free_kb", "fds", "fds_less_backend",
                "backend_conns", "threads"):
        def median_before(t):
            values = [s[key] for s in samples if t - span < s["t"] <= t]
            return statistics.median(values) if values else None
        window = [(s["t"], s[key]) for s in samples if s["t"] >= window_start]
        out[key] = {
            "warm_up": median_before(warm_up),
            "window_start": median_before(window_start),
            "end": median_before(end_t),
            "growth": median_before(end_t) - median_before(window_start),
            "trend": trend(window) * (end_t - window_start),
            "max": max(s[key] for s in samples),
            # Means of five minutes at each end: a pool's count moves by one from sample to
            # sample, so a one-minute median flips with it; a connection leaked shifts the mean.
            "mean_growth": mean_before(key, end_t) - mean_before(key, window_start),
        }
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30, help="how long the load runs (default 30)")
    parser.add_argument("--interval", type=float, default=10, help="seconds between samples (default 10)")
    parser.add_argument("--csv", help="write every sample here (default: $TMPDIR/edge-soak-<time>.csv, kept)")
    parser.add_argument("--bin", help="directory holding edge and edge-standin (default: swift build --show-bin-path)")
    parser.add_argument("--seed", type=int, default=30, help="seeds the stand-in's random faults and the load's choices")
    parser.add_argument("--fault-probability", type=float, default=0.1, help="share of backend and FCM requests hit by a random fault")
    parser.add_argument("--repeat-gap", type=float, default=3.0, help="station.repeat_gap (seconds; under the 15 s between sightings of a label)")
    parser.add_argument("--drain-timeout", type=float, default=300, help="seconds the outbox gets to drain after the load")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (state, logs) even when the soak passes")
    args = parser.parse_args()

    bin_dir = args.bin
    if bin_dir is None:
        bin_dir = subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    work = tempfile.mkdtemp(prefix="edge-soak-")
    csv_path = args.csv or os.path.join(tempfile.gettempdir(), f"edge-soak-{time.strftime('%Y%m%d-%H%M%S')}.csv")
    duration = args.minutes * 60
    warm_up = min(600.0, duration / 3)
    window_start = max(warm_up, duration - 1200.0)
    # One minute of samples at each end of the window, or a quarter of the window when shorter.
    span = min(60.0, (duration - window_start) / 4)
    load_start = os.getloadavg()
    log(f"soak: {args.minutes:g} min, sample every {args.interval:g} s, binaries {bin_dir}, work {work}")
    log(f"load average at start: {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f} ({os.cpu_count()} CPUs)")

    standin = station = load = None
    failures = []
    try:
        standin = Standin(bin_dir, work)
        station = Station(bin_dir, work, standin, args.repeat_gap)
        station.start()
        backend_started = time.monotonic()
        pid = station.process.pid
        log(f"edge run pid {pid}, kiosk {station.url}, metrics {station.metrics}, stand-in {standin.url}")
        for user in PUSH_USERS:
            device = station.cli("push", "devices", user, "--add", "android", stdin=f"fcm-soak-{user}-{uuid.uuid4().hex}\n".encode())
            if device.returncode != 0:
                raise SoakError(f"edge push devices {user} --add failed: {device.stderr.decode(errors='replace')}")
            if user != "ben":
                prefs = station.cli("push", "prefs", user, "--override", ",".join(PUSH_TYPES))
                if prefs.returncode != 0:
                    raise SoakError(f"edge push prefs {user} failed: {prefs.stderr.decode(errors='replace')}")
        standin.control("POST", "/_standin/faults", {"random": {
            "seed": args.seed, "probability": args.fault_probability,
            "kinds": ["refuse", "delay", "drop", "dropBeforeApply", "status", "double"],
            "parameters": {"status": 503, "delay_ms": 1500}}})

        load = Load(station, standin, args.seed)
        load.start()
        started = time.monotonic()
        samples = []
        sequence_checked = sequence_mismatches = 0
        with open(csv_path, "w") as csv, open(csv_path + ".fds.jsonl", "w") as kinds_log:
            csv.write("t_s,rss_kb,fds,threads,cpu_s,scan_events,outbox_depth,load1,sqlite_kb,anon_kb,heap_kb,heap_free_kb,backend_conns\n")
            names_at_warm_up = None
            backend_kind = "tcp to :" + standin.url.rsplit(":", 1)[1].strip("/")
            fd_samples = []  # (t, {kind: count}) per sample: which kind of descriptor moved
            next_sample = started
            while True:
                now = time.monotonic()
                if now - started > duration:
                    break
                if station.process.poll() is not None:
                    raise SoakError(f"edge run exited with {station.process.returncode} during the soak:\n{tail(station.log_path)}")
                rss, anon, fds, threads, cpu = proc_sample(pid)
                gauges = memory_metrics_kb(station.metrics)
                if gauges is None:
                    raise SoakError("the memory gauges (" + ", ".join(n.decode() for n in MEMORY_GAUGES.values()) + ") missing from /metrics")
                sqlite_kb = gauges["sqlite_kb"]
                if names_at_warm_up is None and now - started >= warm_up:
                    names_at_warm_up = thread_names(pid)
                events, = database_query(station.database, "SELECT COUNT(*) FROM scan_events")[0]
                depth, mismatched = database_query(station.database, "SELECT COUNT(*), COALESCE(SUM(id != sequence), 0) FROM outbox")[0]
                sequence_checked += depth
                sequence_mismatches += mismatched
                kinds = fd_kinds(pid)
                fd_samples.append((now - started, kinds))
                kinds_log.write(json.dumps({"t": round(now - started, 1), "kinds": kinds}) + "\n")
                backend_conns = kinds.get(backend_kind, 0)
                sample = {"t": now - started, "rss_kb": rss, "fds": fds, "threads": threads, "cpu": cpu, "events": events, "depth": depth,
                          "backend_conns": backend_conns, "fds_less_backend": sum(kinds.values()) - backend_conns,
                          "anon_kb": anon, "sqlite_kb": sqlite_kb, "anon_less_sqlite_kb": anon - sqlite_kb,
                          "heap_kb": gauges["heap_kb"], "heap_free_kb": gauges["heap_free_kb"]}
                samples.append(sample)
                csv.write(f"{sample['t']:.1f},{rss},{fds},{threads},{cpu:.2f},{events},{depth},{os.getloadavg()[0]:.2f},{sqlite_kb:.0f},{anon},{gauges['heap_kb']:.0f},{gauges['heap_free_kb']:.0f},{backend_conns}\n")
                csv.flush()
                if len(samples) % max(1, int(60 / args.interval)) == 1:
                    log(f"t={sample['t']:.0f}s rss={rss} kB anon={anon} kB sqlite={sqlite_kb:.0f} kB heap={gauges['heap_kb']:.0f}+{gauges['heap_free_kb']:.0f} free kB fds={fds} threads={threads} cpu={cpu:.0f}s events={events} outbox={depth}")
                next_sample += args.interval
                time.sleep(max(0.0, next_sample - time.monotonic()))

        # The end: no more load, no more faults, no more cameras; the outbox drains.
        names_at_end = thread_names(pid)
        log("load stopping")
        load.stop()
        standin.control("DELETE", "/_standin/faults")
        standin.control("DELETE", "/_standin/fcm/faults")
        reloads_before = open(station.log_path, errors="replace").read().count("event=agent.reloaded")
        station.config["station"]["cameras"] = []
        station.write_config()
        station.process.send_signal(signal.SIGHUP)
        wait_until("the reload without cameras to be logged", lambda: open(station.log_path, errors="replace").read().count("event=agent.reloaded") > reloads_before,
                   30, detail=lambda: tail(station.log_path))
        drain_started = time.monotonic()

        def drained():
            status = station.cli("sync", "status", "--json")
            document = json.loads(status.stdout)
            return document if document["depth"] == 0 else None

        sync_status = wait_until("the outbox to drain", drained, args.drain_timeout, interval=2, detail=lambda: tail(station.log_path))
        log(f"outbox drained in {time.monotonic() - drain_started:.0f} s")
        quiet = proc_sample(pid)
        quiet_kinds = fd_kinds(pid)
        quiet_gauges = memory_metrics_kb(station.metrics) or {key: 0.0 for key in MEMORY_GAUGES}
        quiet_sqlite = quiet_gauges["sqlite_kb"]
        load.tally()
        backend_seconds = time.monotonic() - backend_started
        exit_status, exit_seconds = station.stop()
        load_end = os.getloadavg()

        # The applied-once check, on the database the agent left.
        queued = database_query(station.database, "SELECT id, camera, outbox_id FROM scan_events WHERE outbox_id IS NOT NULL ORDER BY id")
        kept = database_query(station.database, "SELECT COUNT(*) FROM scan_events WHERE outbox_id IS NULL")[0][0]
        leftovers = {table: database_query(station.database, f"SELECT COUNT(*) FROM {table}")[0][0]
                     for table in ("outbox", "dead_letters", "conflicts")}
        applied = [r for r in standin.control("GET", "/_standin/applied") if r.get("path") == SYNC_PUSH]
        by_place = {}
        for record in applied:
            by_place.setdefault((record.get("stream"), record.get("sequence")), []).append(record)
        missing, doubled, unexpected = [], [], []
        expected_places = set()
        for event_id, camera, outbox_id in queued:
            place = ("scan:" + camera, outbox_id)
            expected_places.add(place)
            records = by_place.get(place, [])
            if not records:
                missing.append(event_id)
            elif len(records) > 1 or any(r["applications"] != 1 for r in records):
                doubled.append(event_id)
        for (stream, sequence), records in by_place.items():
            if stream and stream.startswith("scan:") and (stream, sequence) not in expected_places:
                unexpected.append(f"{stream}#{sequence}")
        replays = sum(r.get("replays", 0) for r in applied if (r.get("stream") or "").startswith("scan:"))

        stats = figures(samples, warm_up, window_start, span)
        with load.lock:
            counts = dict(sorted(load.counts.items()))
            errors = list(load.errors)

        # The report.
        window_minutes = (samples[-1]["t"] - window_start) / 60
        print()
        print(f"== soak: {args.minutes:g} min, {len(samples)} samples every {args.interval:g} s ({csv_path})")
        print(f"load average: start {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f}, "
              f"end {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f} ({os.cpu_count()} CPUs)")
        print(f"warm-up end at {warm_up / 60:.1f} min; growth window {window_start / 60:.1f}-{samples[-1]['t'] / 60:.1f} min "
              f"({window_minutes:.1f} min); values are medians of {span:.0f} s of samples")
        print(f"{'':11}{'warm-up end':>12}{'end':>12}{'growth':>12}{'trend':>12}{'max':>12}{'quiet end':>12}")
        units = {"rss_kb": "RSS kB", "anon_kb": "anon kB", "sqlite_kb": "SQLite kB", "anon_less_sqlite_kb": "anon-SQLite",
                 "heap_kb": "malloc used", "heap_free_kb": "malloc free", "fds": "fds", "fds_less_backend": "fds-backend",
                 "backend_conns": "backend", "threads": "threads"}
        quiet_values = {"rss_kb": quiet[0], "anon_kb": quiet[1], "sqlite_kb": quiet_sqlite, "anon_less_sqlite_kb": quiet[1] - quiet_sqlite,
                        "heap_kb": quiet_gauges["heap_kb"], "heap_free_kb": quiet_gauges["heap_free_kb"], "fds": quiet[2],
                        "fds_less_backend": sum(quiet_kinds.values()) - quiet_kinds.get(backend_kind, 0),
                        "backend_conns": quiet_kinds.get(backend_kind, 0), "threads": quiet[3]}
        for key, label in units.items():
            f = stats[key]
            print(f"{label:11}{f['warm_up']:>12.0f}{f['end']:>12.0f}{f['growth']:>+12.0f}{f['trend']:>+12.1f}{f['max']:>12.0f}{quiet_values[key]:>12.0f}")
        if names_at_warm_up is not None:
            changed = {name: (names_at_warm_up.get(name, 0), names_at_end.get(name, 0))
                       for name in set(names_at_warm_up) | set(names_at_end) if names_at_warm_up.get(name, 0) != names_at_end.get(name, 0)}
            listed = ", ".join(f"{name!r} {a} -> {b}" for name, (a, b) in sorted(changed.items())) or "unchanged"
            everything = ", ".join(f"{name!r} {count}" for name, count in sorted(names_at_end.items()))
            print(f"threads by name, warm-up end -> end: {listed} (at the end: {everything})")
        before = [k for t, k in fd_samples if window_start - span <= t <= window_start]
        last = [k for t, k in fd_samples if t >= samples[-1]["t"] - span]
        if before and last:
            kinds = sorted(set().union(*before, *last))
            median = lambda group, kind: statistics.median(k.get(kind, 0) for k in group)
            moved = [f"{kind!r} {median(before, kind):g} -> {median(last, kind):g}" for kind in kinds if median(before, kind) != median(last, kind)]
            everything = ", ".join(f"{kind!r} {median(last, kind):g}" for kind in kinds)
            print(f"fds by kind, medians of {span:.0f} s, window start -> end: {', '.join(moved) or 'unchanged'} (at the end: {everything})")
        print(f"connections to the backend: five-minute means {stats['backend_conns']['mean_growth']:+.2f} over the window, "
              f"trend {stats['backend_conns']['trend']:+.1f}, at most {stats['backend_conns']['max']} at once (the pools allow {BACKEND_POOL_BOUND})")
        def cpu_share(t0, t1):
            inside = [x for x in samples if t0 <= x["t"] <= t1]
            if len(inside) < 2 or inside[-1]["t"] == inside[0]["t"]:
                return float("nan")
            return 100 * (inside[-1]["cpu"] - inside[0]["cpu"]) / (inside[-1]["t"] - inside[0]["t"])
        print(f"cpu (% of one core): warm-up {cpu_share(0, warm_up):.0f}, window {cpu_share(window_start, samples[-1]['t']):.0f}; "
              f"{samples[-1]['cpu']:.0f} s in all")
        print(f"scan events: {len(queued) + kept} recorded ({len(queued)} queued for the backend, {kept} kept locally); "
              f"applied once: {len(queued) - len(missing) - len(doubled)}; missing {len(missing)}; applied more than once {len(doubled)}; "
              f"applied without an event {len(unexpected)}; repeats answered from the key (replays) {replays}")
        print(f"outbox after drain: {leftovers['outbox']} entries, {leftovers['dead_letters']} dead letters, {leftovers['conflicts']} conflicts; "
              f"outbox rows seen while running {sequence_checked}, id != sequence {sequence_mismatches}")
        print(f"shutdown: SIGTERM -> exit {exit_status} in {exit_seconds:.1f} s")
        paths = {k[5:]: v for k, v in counts.items() if k.startswith("path ")}
        print(f"backend requests per minute over {backend_seconds / 60:.1f} min: "
              + ", ".join(f"{path} {60 * n / backend_seconds:.1f}" for path, n in sorted(paths.items(), key=lambda item: -item[1])))
        print("load: " + ", ".join(f"{k} {v}" for k, v in counts.items() if not k.startswith("path ")))
        for line in errors:
            print(f"  load error: {line}")

        # The verdict.
        rss, fds, threads, backend = stats["anon_less_sqlite_kb"], stats["fds_less_backend"], stats["threads"], stats["backend_conns"]
        if not (rss["growth"] < 1024 and rss["trend"] < 1024):
            failures.append(f"anonymous memory less SQLite's grew over the window: {rss['growth']:+.0f} kB (medians), "
                            f"{rss['trend']:+.0f} kB (trend); goal under 1024 kB")
        for key, f in (("fds less the connections to the backend", fds), ("threads", threads)):
            if not (f["growth"] < 1 and f["trend"] < 1):
                failures.append(f"{key} not flat over the window: {f['growth']:+g} (medians), {f['trend']:+.1f} (trend)")
        if not (backend["mean_growth"] < 1 and backend["trend"] < 1):
            failures.append(f"connections to the backend grew over the window: {backend['mean_growth']:+.2f} (five-minute means), "
                            f"{backend['trend']:+.1f} (trend)")
        if backend["max"] > BACKEND_POOL_BOUND:
            failures.append(f"{backend['max']} connections to the backend at once; the pools allow {BACKEND_POOL_BOUND}")
        if missing or doubled or unexpected:
            failures.append(f"applied-once check: missing {missing[:10]}, more than once {doubled[:10]}, without an event {unexpected[:10]}")
        if not queued:
            failures.append("no scan event was queued: the check checked nothing")
        if any(leftovers.values()):
            failures.append(f"left after the drain: {leftovers}")
        if sequence_mismatches:
            failures.append(f"{sequence_mismatches} outbox rows had id != sequence: the event-to-record mapping does not hold")
        # The puller's own bound: one pull per interval, one more per send (a wake after a drain
        # that sent), a tenth more for the drains that overlap. More is a puller that does not wait.
        pulls = paths.get("/api/sync/pull", 0)
        pull_bound = 1.1 * (backend_seconds / PULL_INTERVAL + paths.get(SYNC_PUSH, 0)) + 10
        if pulls > pull_bound:
            failures.append(f"the puller asked {pulls} times in {backend_seconds / 60:.1f} min ({60 * pulls / backend_seconds:.0f}/min); "
                            f"its interval ({PULL_INTERVAL} s) and the sends allow {pull_bound:.0f}")
        if exit_status != 0:
            failures.append(f"edge run did not exit cleanly on SIGTERM: {exit_status}")
        print()
        print("PASS" if not failures else "FAIL")
        for failure in failures:
            print(f"  {failure}")
        return 0 if not failures else 1
    except harness.Failure as error:
        print(f"soak could not run: {error}", file=sys.stderr)
        failures.append(str(error))
        return 2
    finally:
        if load is not None:
            load.stop()
        if station is not None and station.process is not None and station.process.poll() is None:
            station.stop()
        if standin is not None:
            standin.stop()
        if failures or args.keep:
            print(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
