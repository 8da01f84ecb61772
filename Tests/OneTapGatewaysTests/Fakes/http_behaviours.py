#!/usr/bin/env python3
"""An HTTP server on loopback with fixed behaviours, for the transport's tests (standard library only).

Prints its port on the first line of stdout, then serves until stdin closes (the test process ending closes it).
Paths:
  /json               200 application/json {"ok": "yes", "client_port": "<the client's source port>"}
  /echo               200 application/json: the method, the headers (lower-case names) and the body received
  /slow?ms=N          the /json answer after N milliseconds
  /big?bytes=N        200 application/json with a Content-Length body of N bytes
  /big-chunked?bytes=N  the same in chunks, no Content-Length
  /truncated          Content-Length 100, 20 bytes sent, the connection closed
  /status/N           status N, a JSON body
  /text               200 text/html
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse, parse_qs


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_body(self, status, body, content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def answer(self):
        url = urlparse(self.path)
        query = parse_qs(url.query)
        length = int(self.headers.get("Content-Length") or 0)
        received = self.rfile.read(length) if length else b""
        if url.path == "/json":
            self.send_body(200, json.dumps({"ok": "yes", "client_port": str(self.client_address[1])}).encode())
        elif url.path == "/echo":
            echoed = {"method": self.command, "headers": {k.lower(): v for k, v in self.headers.items()},
                      "body": received.decode("utf-8", "replace")}
            self.send_body(200, json.dumps(echoed).encode())
        elif url.path == "/slow":
            time.sleep(int(query["ms"][0]) / 1000)
            self.send_body(200, b'{"ok":"late"}')
        elif url.path == "/big":
            self.send_body(200, b"[" + b" " * (int(query["bytes"][0]) - 2) + b"]")
        elif url.path == "/big-chunked":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            remaining = int(query["bytes"][0])
            while remaining > 0:
                chunk = b" " * min(4096, remaining)
                remaining -= len(chunk)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.write(b"0\r\n\r\n")
        elif url.path == "/truncated":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b'{"ok": "cut short...')
            self.wfile.flush()
            self.close_connection = True
        elif url.path.startswith("/status/"):
            self.send_body(int(url.path.rsplit("/", 1)[1]), b'{"error":"status"}')
        elif url.path == "/text":
            self.send_body(200, b"<html>busy</html>", "text/html")
        else:
            self.send_body(404, b'{"error":"no such path"}')

    do_GET = answer
    do_POST = answer


class Server(ThreadingHTTPServer):
    # The standard library's backlog of 5 resets connections when a test opens many at once.
    request_queue_size = 256
    daemon_threads = True

# Shared by the vendor fakes (tencent_api_fake.py, geetest_validate.py): the faults a fake answers after it has
# checked a request, chosen by a prefix of a value the test picks, and the server that lives until stdin closes.
FAULTS = ("slow", "status500", "status503", "truncated", "malformed", "html")


def fault_of(value):
    """The fault a value names by its prefix (slow-…, status500-…, truncated-…, malformed-…, html-…), or None."""
    return next((fault for fault in FAULTS if value.startswith(fault + "-")), None)


def reply(handler, status, body, content_type="application/json"):
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def answer_fault(handler, fault, partial, malformed):
    """Answers a fault: slow sleeps 3 s and returns False (the caller then answers as usual); the others answer
    (an HTTP status with an HTML body, `partial` under a longer Content-Length then the connection closed,
    `malformed` as 200 JSON, or 200 text/html) and return True."""
    if fault == "slow":
        time.sleep(3)
        return False
    if fault.startswith("status"):
        reply(handler, int(fault[6:]), b"<html>gateway error</html>", "text/html")
    elif fault == "truncated":
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(partial) + 300))
        handler.end_headers()
        handler.wfile.write(partial)
        handler.wfile.flush()
        handler.close_connection = True
    elif fault == "malformed":
        reply(handler, 200, malformed)
    else:
        reply(handler, 200, b"<html>maintenance</html>", "text/html")
    return True


def serve(handler_class):
    """Serves on a loopback port, printed on stdout's first line, until stdin closes."""
    server = Server(("127.0.0.1", 0), handler_class)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    os._exit(0)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()

