#!/usr/bin/env python3
"""Request latency of a running kiosk (issue #14): median and p99 of N requests per route on one
keep-alive connection, as the station's browser makes them. No peer: the figure is for the
closing note and for noticing regressions.

    .build/debug/edge-standin --port 8787 --token demo --seed-demo-data &
    export EDGE_STATE_DIR=$(mktemp -d); echo -n demo | edge vault put sync.token --backend keyfile
    edge run --config samples/edge.json &      # a release build: swift build -c release
    python3 Benchmarks/kiosk-latency.py         # three times, for the spread
"""
import argparse
import http.client
import json
import statistics
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("-n", type=int, default=200, help="requests per route")
    args = parser.parse_args()

    def connect():
        return http.client.HTTPConnection(args.host, args.port, timeout=10)

    c = connect()
    c.request("GET", "/api/v1/session")
    token = json.loads(c.getresponse().read())["csrf_token"]

    def timed(method, path, body=None):
        c = connect()
        times = []
        for _ in range(args.n):
            start = time.perf_counter()
            c.request(method, path, body=body, headers={"Content-Type": "application/json", "X-CSRF-Token": token})
            response = c.getresponse()
            response.read()
            if response.status != 200:
                raise SystemExit(f"{method} {path}: HTTP {response.status}")
            times.append((time.perf_counter() - start) * 1000)
        times.sort()
        return statistics.median(times), times[max(0, int(len(times) * 0.99) - 1)]

    routes = [("GET /dock (the page, rendered)", "GET", "/dock", None),
              ("GET /api/v1/status", "GET", "/api/v1/status", None),
              ("POST /api/v1/clinic/code-check", "POST", "/api/v1/clinic/code-check", '{"code": "AB-7KX-M4"}'),
              ("POST /api/v1/dock/scans (order lookup at the backend)", "POST", "/api/v1/dock/scans", '{"text": "PO-2026-00042"}')]
    for name, method, path, body in routes:
        median, p99 = timed(method, path, body)
        print(f"{name}: median {median:.2f} ms, p99 {p99:.2f} ms ({args.n} requests)")


if __name__ == "__main__":
    main()
