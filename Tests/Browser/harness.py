"""The processes and HTTP calls the browser scenarios stand on: the stand-in backend
(`edge-standin --control --seed-demo-data`), one station (`edge run` with a temporary
edge.json, a keyfile vault and a replay camera) and small JSON helpers.

Nothing here waits a fixed time: every wait polls a condition until a deadline and fails
saying what it waited for, with the tail of the process's log.
"""

import json
import os
import re
import shutil
import signal
import struct
import subprocess
import time
import urllib.error
import urllib.request
import uuid
import zlib

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLES = os.path.join(REPO, "samples")
TENANT = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"  # DemoData.tenantID


class Failure(Exception):
    """A scenario failed: the message says which check and what was seen."""


def wait_until(what, condition, timeout=20.0, interval=0.05, detail=None):
    """Polls `condition` (returning a truthy value) until `timeout`; returns its value or fails
    naming `what` (and `detail()` when given: a log tail, the last answer)."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = condition()
            if value:
                return value
        except Failure:
            raise
        except Exception as error:  # a refused connection while a server starts, a half-written file
            last_error = error
        if time.monotonic() >= deadline:
            extra = f"; last error: {last_error!r}" if last_error else ""
            if detail:
                extra += "\n" + detail()
            raise Failure(f"timed out after {timeout:.0f} s waiting for {what}{extra}")
        time.sleep(interval)


def http(method, url, body=None, headers=None, timeout=10.0):
    """One HTTP request; returns (status, headers, body bytes) whatever the status."""
    data = None
    all_headers = dict(headers or {})
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        all_headers.setdefault("Content-Type", "application/json")
    request = urllib.request.Request(url, data=data, method=method, headers=all_headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def http_json(method, url, body=None, headers=None, expect=(200,)):
    status, _, data = http(method, url, body, headers)
    if status not in expect:
        raise Failure(f"{method} {url} answered {status}, expected {expect}: {data[:500]!r}")
    return json.loads(data) if data else None


def tail(path, lines=40):
    try:
        with open(path, "r", errors="replace") as handle:
            return "".join(handle.readlines()[-lines:])
    except OSError:
        return f"(no log at {path})"


def blank_png(path, width=320, height=240):
    """A white PNG without any code: a camera that is up and sees nothing."""
    row = b"\x00" + b"\xff" * width
    raw = zlib.compress(row * height)

    def chunk(kind, payload):
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)

    with open(path, "wb") as handle:
        handle.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
                     + chunk(b"IDAT", raw) + chunk(b"IEND", b""))


class Standin:
    """`edge-standin --port 0 --control --seed-demo-data --token TOKEN`; the port from its banner."""

    def __init__(self, bin_dir, work_dir):
        self.executable = os.path.join(bin_dir, "edge-standin")
        if not os.access(self.executable, os.X_OK):
            raise Failure(f"edge-standin is not built at {self.executable} (swift build --build-tests builds it)")
        self.token = "browser-" + uuid.uuid4().hex
        self.log_path = os.path.join(work_dir, "standin.log")
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [self.executable, "--port", "0", "--token", self.token, "--control", "--seed-demo-data"],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

        def port():
            if self.process.poll() is not None:
                raise Failure(f"edge-standin exited with {self.process.returncode}:\n{tail(self.log_path)}")
            match = re.search(r"http://127\.0\.0\.1:([0-9]+)", tail(self.log_path))
            return int(match.group(1)) if match else None

        self.port = wait_until("edge-standin to print its port", port, timeout=20, detail=lambda: tail(self.log_path))
        self.url = f"http://127.0.0.1:{self.port}"

    def control(self, method, path, body=None):
        return http_json(method, self.url + path, body)

    def fault(self, **fault):
        return self.control("POST", "/_standin/faults", {"faults": [fault]})

    def clear_faults(self):
        return self.control("DELETE", "/_standin/faults")

    def applied(self, path=None):
        records = self.control("GET", "/_standin/applied") or []
        return [r for r in records if path is None or r.get("path") == path]

    def requests(self, prefix=None):
        records = self.control("GET", "/_standin/requests") or []
        return [r for r in records if prefix is None or r.get("path", "").startswith(prefix)]

    def order(self, po_number):
        """The purchase order as the backend has it now (the contract's barcode lookup)."""
        answer = http_json("POST", self.url + "/api/mobile/scan/barcode", {"value": po_number},
                           {"Authorization": "Bearer " + self.token})
        return answer.get("purchase_order") or answer.get("order") or answer

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


class Station:
    """One `edge run` with its own state directory, vault (keyfile) and edge.json."""

    def __init__(self, bin_dir, work_dir, standin, name="browser", role="both", camera=None, enrollment=None,
                 receiving=None, listen="127.0.0.1:0"):
        self.edge = os.path.join(bin_dir, "edge")
        if not os.access(self.edge, os.X_OK):
            raise Failure(f"edge is not built at {self.edge} (swift build --build-tests builds it)")
        self.dir = os.path.join(work_dir, name)
        os.makedirs(self.dir, exist_ok=True)
        self.config_path = os.path.join(self.dir, "edge.json")
        self.log_path = os.path.join(self.dir, "agent.log")
        self.standin = standin
        self.process = None
        self.address = None
        self.starts = 0
        # The environment the CLI tests give edge: no inherited EDGE_* or systemd notify socket;
        # the state (database, vault) in this station's directory, the vault keys beside it.
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("EDGE_") and k != "NOTIFY_SOCKET"}
        self.env["EDGE_STATE_DIR"] = self.dir
        self.config = {
            "sponsors": [
                {"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": standin.url},
                {"prefix": "CD", "sponsor_id": "sponsor-cd", "backend_url": standin.url},
            ],
            "sync": {"base_url": standin.url, "connect_timeout": 2, "total_timeout": 4},
            "receiving": dict({"tenant_id": TENANT}, **(receiving or {})),
            "enrollment": dict({"retry_delay": 0.05, "request_timeout": 2}, **(enrollment or {})),
            "station": {
                "name": "browser-" + name, "role": role, "state_dir": self.dir, "vault_backend": "keyfile",
                "pull_interval": 1, "metrics": "127.0.0.1:0",
                # A label in view is reported once, not every frame: the lookup on screen stays
                # the one the test opened.
                "repeat_gap": 3600,
                "cameras": [] if camera is None else [{"name": "dock", "device": "replay:" + ",".join(camera), "fps": 2}],
            },
            "ui": {"listen": listen},
        }
        self.write_config()
        self.put_secret("sync.token", standin.token)

    def put_secret(self, name, value):
        """`edge vault put NAME` with the value on standard input (never argv), into the vault
        where `edge run` has it (EDGE_STATE_DIR): keys beside the state directory."""
        put = subprocess.run([self.edge, "vault", "put", name, "--backend", "keyfile"],
                             input=value.encode(), env=self.env, capture_output=True, cwd=self.dir, timeout=60)
        if put.returncode != 0:
            raise Failure(f"edge vault put {name} failed ({put.returncode}): {put.stderr.decode(errors='replace')}")

    def write_config(self):
        with open(self.config_path, "w") as handle:
            json.dump(self.config, handle, indent=1)

    def start(self):
        """Starts `edge run` and waits for the UI's bound address (log line or `edge status --json`)."""
        self.starts += 1
        self.log = open(self.log_path, "ab")
        self.log.write(f"--- start {self.starts} ---\n".encode())
        self.log.flush()
        offset = os.path.getsize(self.log_path)
        self.process = subprocess.Popen([self.edge, "run", "--config", self.config_path], env=self.env, cwd=self.dir,
                                        stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

        checked = [time.monotonic()]

        def address():
            if self.process.poll() is not None:
                raise Failure(f"edge run exited with {self.process.returncode}:\n{tail(self.log_path)}")
            with open(self.log_path, "r", errors="replace") as handle:
                handle.seek(offset)
                for line in handle.read().splitlines():
                    if re.search(r"\bevent=\"?ui\.listening\b", line):
                        match = re.search(r"\baddress=\"?([^\"\s]+)", line)
                        if match:
                            return match.group(1)
            if time.monotonic() - checked[0] < 1:
                return None
            checked[0] = time.monotonic()
            status = subprocess.run([self.edge, "status", "--json", "--config", self.config_path], env=self.env,
                                    capture_output=True, cwd=self.dir, timeout=30)
            try:
                agent = json.loads(status.stdout).get("agent") or {}
            except ValueError:
                return None
            ui = agent.get("ui")
            if isinstance(ui, dict):
                ui = ui.get("address") or ui.get("listen") or ui.get("url")
            if ui and agent.get("running") and agent.get("pid") == self.process.pid:
                return ui
            return None

        self.address = wait_until("edge run to report the UI address (event=ui.listening or agent.ui)", address,
                                  timeout=60, interval=0.2, detail=lambda: tail(self.log_path))
        self.address = re.sub(r"^https?://", "", self.address).rstrip("/")
        self.url = "http://" + self.address
        # 200, or 401 while a PIN is required (`ui.require_pin`): either way the kiosk answers.
        wait_until("the UI to answer GET /api/v1/session", lambda: http("GET", self.url + "/api/v1/session")[0] in (200, 401),
                   timeout=20, detail=lambda: tail(self.log_path))
        return self.url

    def stop(self, sig=signal.SIGTERM, timeout=20):
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise Failure(f"edge run did not stop within {timeout} s of signal {sig}:\n{tail(self.log_path)}")
        if self.process:
            self.log.close()
        return self.process.returncode if self.process else None

    def session(self):
        return http_json("GET", self.url + "/api/v1/session")

    def post(self, path, body, token=None, headers=None):
        """A POST to the kiosk's API the way a script would send it: returns (status, json or None)."""
        all_headers = dict(headers or {})
        if token is not None:
            all_headers["X-CSRF-Token"] = token
        status, _, data = http("POST", self.url + path, body, all_headers)
        try:
            return status, json.loads(data) if data else None
        except ValueError:
            return status, data

    def edge_cli(self, *arguments):
        return subprocess.run([self.edge, *arguments, "--config", self.config_path], env=self.env, capture_output=True,
                              cwd=self.dir, timeout=60, text=True)

    def log_text(self):
        return tail(self.log_path, 100000)


def copy_tree_files(source, destination, names):
    os.makedirs(destination, exist_ok=True)
    copied = []
    for name in names:
        path = os.path.join(source, name)
        if os.path.exists(path):
            shutil.copy2(path, os.path.join(destination, name))
            copied.append(name)
    return copied
