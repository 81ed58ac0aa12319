#!/usr/bin/env python3
"""HTTP(S) server for EdgeHTTPTests (python3 stdlib only).

Listens on 127.0.0.1 only, on an ephemeral port, and prints the port on stdout (one line) once
it accepts connections. Exits when stdin closes (the test process went away) or on SIGTERM.

    test_server.py [--tls CERT KEY]

Behaviours, by path (query parameters in brackets):
    /echo                 JSON: method, path, headers ([name, value] pairs in order), body
                          (text, UTF-8 with replacement; "" over 64 KiB), body_length, body_sha256,
                          client_port (one per TCP connection) and connection_requests
                          (requests served on this connection so far, this one included).
    /status/N [header=Name:Value ...]
                          status N with those headers and a short body.
    /slow [seconds=S]     waits S seconds (default 10), then answers 200.
    /drop                 reads the request and closes the connection without a reply.
    /huge [bytes=N] [chunked=1]
                          N bytes of 'x' (default 8 MiB), with Content-Length, or chunked.
    /interim              an unsolicited "100 Continue" and a "103 Early Hints" block with
                          their own headers, then 200 with X-Final: yes.
"""
import hashlib
import json
import signal
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so connection reuse is observable

    def setup(self):
        super().setup()
        # Headers and body are separate writes: without TCP_NODELAY, Nagle plus the client's
        # delayed ACK adds ~40 ms to every kept-alive request.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.connection_requests = 0

    def log_message(self, format, *args):  # quiet: the test output is the XCTest log
        pass

    def do_GET(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def do_PUT(self):
        self.dispatch()

    def do_DELETE(self):
        self.dispatch()

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def reply(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def dispatch(self):
        self.connection_requests += 1
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        body = self.read_body()
        path = parts.path
        if path == "/echo":
            document = {
                "method": self.command,
                "path": self.path,
                "headers": [[name, value] for name, value in self.headers.items()],
                "body": body.decode("utf-8", "replace") if len(body) <= 65536 else "",
                "body_length": len(body),
                "body_sha256": hashlib.sha256(body).hexdigest(),
                "client_port": self.client_address[1],
                "connection_requests": self.connection_requests,
            }
            self.reply(200, json.dumps(document).encode(), [("Content-Type", "application/json")])
        elif path.startswith("/status/"):
            status = int(path[len("/status/"):])
            headers = [tuple(h.split(":", 1)) for h in query.get("header", [])]
            self.reply(status, f"status {status}".encode(), headers)
        elif path == "/slow":
            time.sleep(float(query.get("seconds", ["10"])[0]))
            self.reply(200, b"slow")
        elif path == "/drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif path == "/huge":
            size = int(query.get("bytes", [str(8 * 1024 * 1024)])[0])
            chunk = b"x" * 65536
            self.send_response(200)
            if query.get("chunked") == ["1"]:
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                remaining = size
                while remaining > 0:
                    piece = chunk[: min(remaining, len(chunk))]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    remaining -= len(piece)
                self.wfile.write(b"0\r\n\r\n")
            else:
                self.send_header("Content-Length", str(size))
                self.end_headers()
                remaining = size
                while remaining > 0:
                    piece = chunk[: min(remaining, len(chunk))]
                    self.wfile.write(piece)
                    remaining -= len(piece)
        elif path == "/interim":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\nX-Interim: continue\r\n\r\n")
            self.wfile.write(b"HTTP/1.1 103 Early Hints\r\nX-Interim: hints\r\nLink: </a.css>; rel=preload\r\n\r\n")
            self.reply(200, b"final", [("X-Final", "yes")])
        else:
            self.reply(404, b"no such behaviour")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):  # dropped clients are expected in these tests
        pass


def main():
    server = Server(("127.0.0.1", 0), Handler)
    if len(sys.argv) == 4 and sys.argv[1] == "--tls":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    elif len(sys.argv) != 1:
        sys.exit("usage: test_server.py [--tls CERT KEY]")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()  # returns when the parent closes our stdin or exits


if __name__ == "__main__":
    main()
