#!/usr/bin/env python3
"""A fault-injecting HTTP proxy for the object-store retry tests.

Listens on 127.0.0.1 only and forwards each request unchanged (the Host
header included, so SigV4 signatures still verify) to an upstream S3 server
that must itself be on loopback. At the given rates it instead answers
503 SlowDown, resets the connection before answering, resets it halfway
through a response body (so ranged reads must resume), or forwards the
request and then resets instead of answering (a "lost reply": the write
happened, the client cannot know, and its retry must not call its own
write a conflict). Rates are per
request, drawn from a seeded generator so a run can be repeated. With
--delay every request is held that long before it is answered (a slow
server, for the cancellation tests); with --delay-while FILE only while
FILE exists, so a test can open a checkpoint at full speed and then slow
the store down.

    s3-fault-proxy.py --upstream http://127.0.0.1:8333 --slowdown 0.10 --reset 0.02
prints "port N" on its first line once it listens; stops on SIGTERM/SIGINT
and prints what it injected ("requests R slowdown S reset T midreset M lostreply L").
"""

import argparse
import http.client
import http.server
import os
import random
import signal
import socket
import struct
import sys
import threading
import time
import urllib.parse

SLOWDOWN_BODY = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
                 b'<Message>Please reduce your request rate.</Message></Error>')


class Counters:
    def __init__(self):
        self.lock = threading.Lock()
        self.values = {"requests": 0, "slowdown": 0, "reset": 0, "midreset": 0, "lostreply": 0}

    def add(self, name):
        with self.lock:
            self.values[name] += 1

    def line(self):
        with self.lock:
            return " ".join(f"{k} {v}" for k, v in self.values.items())


CONDITION_HEADERS = ("if-none-match", "if-match", "x-goog-if-generation-match")


def make_handler(upstream_host, upstream_port, rates, rng, rng_lock, counters, ignore_range, lose_conditional=False,
                 strip_conditions=False, delay=0.0, delay_while=None):
    conditional_seen = set()
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def log_error(self, *args):
            pass

        def draw(self):
            with rng_lock:
                x = rng.random()
            for name in ("slowdown", "reset", "midreset", "lostreply"):
                if x < rates[name]:
                    return name
                x -= rates[name]
            return None

        def reset_connection(self):
            # SO_LINGER with a zero timeout: close() sends RST, not FIN.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()

        def handle_any(self):
            counters.add("requests")
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            if delay > 0 and (delay_while is None or os.path.exists(delay_while)):
                time.sleep(delay)
            fault = self.draw()
            if lose_conditional and (self.headers.get("If-None-Match") or self.headers.get("If-Match")):
                # The first attempt of each conditional write is applied and its answer lost.
                with rng_lock:
                    first = (self.command, self.path) not in conditional_seen
                    conditional_seen.add((self.command, self.path))
                if first:
                    fault = "lostreply"
            if fault == "slowdown":
                counters.add("slowdown")
                self.send_response(503)
                self.send_header("Content-Type", "application/xml")
                # A HEAD answer has no body (as S3's): only its length.
                self.send_header("Content-Length", str(len(SLOWDOWN_BODY)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(SLOWDOWN_BODY)
                return
            if fault == "reset":
                counters.add("reset")
                self.reset_connection()
                return
            up = http.client.HTTPConnection(upstream_host, upstream_port, timeout=60)
            try:
                headers = {k: v for k, v in self.headers.items()
                           if not (ignore_range and k.lower() == "range")
                           and not (strip_conditions and k.lower() in CONDITION_HEADERS)}
                up.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
                for k, v in headers.items():
                    up.putheader(k, v)
                up.endheaders(body if body else None)
                resp = up.getresponse()
                data = resp.read()
            finally:
                up.close()
            if fault == "lostreply":
                counters.add("lostreply")
                self.reset_connection()
                return
            self.send_response_only(resp.status, resp.reason)
            for k, v in resp.getheaders():
                if k.lower() in ("transfer-encoding", "connection", "content-length"):
                    continue
                self.send_header(k, v)
            length = resp.getheader("Content-Length") if self.command == "HEAD" else None
            self.send_header("Content-Length", length if length is not None else str(len(data)))
            self.end_headers()
            if self.command == "HEAD":
                return
            if fault == "midreset" and len(data) > 1:
                counters.add("midreset")
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                self.reset_connection()
                return
            try:
                self.wfile.write(data)
            except OSError:
                self.close_connection = True  # the client stopped reading (it had what it needed)

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_any

    return Handler


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--upstream", required=True, help="http://127.0.0.1:PORT of the real server")
    ap.add_argument("--slowdown", type=float, default=0.0, help="rate of 503 SlowDown answers")
    ap.add_argument("--reset", type=float, default=0.0, help="rate of resets before any answer")
    ap.add_argument("--midreset", type=float, default=0.0, help="rate of resets halfway through a body")
    ap.add_argument("--lostreply", type=float, default=0.0, help="rate of requests forwarded, then reset unanswered")
    ap.add_argument("--lose-conditional-replies", action="store_true",
                    help="forward the first attempt of every If-None-Match/If-Match request, then reset it unanswered")
    ap.add_argument("--strip-conditions", action="store_true",
                    help="drop If-None-Match, If-Match and x-goog-if-generation-match, as servers that ignore them do")
    ap.add_argument("--ignore-range", action="store_true",
                    help="drop Range headers, as servers do that answer 200 with the whole object")
    ap.add_argument("--delay", type=float, default=0.0, help="seconds to hold every request before answering")
    ap.add_argument("--delay-while", metavar="FILE", help="hold requests (--delay) only while FILE exists")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--port", type=int, default=0, help="0: any free port")
    args = ap.parse_args()
    up = urllib.parse.urlsplit(args.upstream)
    if up.scheme != "http" or up.hostname not in ("127.0.0.1", "localhost"):
        sys.exit("s3-fault-proxy: the upstream must be http on 127.0.0.1")
    rates = {"slowdown": args.slowdown, "reset": args.reset, "midreset": args.midreset, "lostreply": args.lostreply}
    if not 0 <= args.delay <= 600:
        sys.exit("s3-fault-proxy: --delay is 0 to 600 seconds")
    if any(r < 0 for r in rates.values()) or sum(rates.values()) > 1:
        sys.exit("s3-fault-proxy: rates must be >= 0 and add up to at most 1")
    counters = Counters()
    handler = make_handler(up.hostname, up.port, rates, random.Random(args.seed), threading.Lock(), counters,
                           args.ignore_range, args.lose_conditional_replies, args.strip_conditions, args.delay,
                           args.delay_while)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    server.daemon_threads = True

    def stop(*_):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"port {server.server_address[1]}", flush=True)
    server.serve_forever()
    print(counters.line(), flush=True)


if __name__ == "__main__":
    main()
