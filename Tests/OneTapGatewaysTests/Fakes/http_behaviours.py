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
  /challenge/N        status N (401 or 407) asking for credentials (WWW-Authenticate / Proxy-Authenticate), a JSON body
  /text               200 text/html
  /read-then-close    the request read whole, then the connection closed with no answer
  /redirect-stream?chunks=N  302 to /json, N chunks of 4 KiB of body, then the connection held open 30 s
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import socketserver
from urllib.parse import urlparse, parse_qs

# Every fake answers without Nagle's delay: Python writes the status line and the body apart, and the second write
# would wait for the client's delayed ACK (40 ms a call on Linux).
socketserver.StreamRequestHandler.disable_nagle_algorithm = True


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
        elif url.path.startswith("/challenge/"):
            status = int(url.path.rsplit("/", 1)[1])
            body = b'{"error":"credentials"}'
            self.send_response(status)
            self.send_header("WWW-Authenticate" if status == 401 else "Proxy-Authenticate", 'Basic realm="fake"')
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif url.path == "/read-then-close":
            # The request and its body were read whole (above): the connection closes with no answer.
            self.close_connection = True
            self.wfile.flush()
            self.connection.shutdown(2)
        elif url.path == "/redirect-stream":
            self.send_response(302)
            self.send_header("Location", "/json")
            self.send_header("Content-Type", "text/html")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for _ in range(int(query["chunks"][0])):
                self.wfile.write(b"%x\r\n%s\r\n" % (4096, b" " * 4096))
            self.wfile.flush()
            time.sleep(30)
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


def main():
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    os._exit(0)


# Shared by the vendor fakes (added for tianyi_open_api.py): the faults a token's prefix chooses, and the serving loop.

def answer_fault(handler, token, cut_short):
    """Answers the fault a token's prefix names, after the request was checked: slow-* (the answer after 3 s: returns
    False so the caller answers), status-NNN-* (HTTP NNN), truncated-* (a Content-Length of 400, cut_short sent, the
    connection closed), malformed-* (200 application/json, cut_short: not JSON), html-* (200 text/html).
    Returns True when it answered."""
    if token.startswith("slow-"):
        time.sleep(3)
        return False
    if token.startswith("status-"):
        handler.send_body(int(token.split("-")[1]), b"<html>gateway error</html>", "text/html")
    elif token.startswith("truncated-"):
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", "400")
        handler.end_headers()
        handler.wfile.write(cut_short)
        handler.wfile.flush()
        handler.close_connection = True
    elif token.startswith("malformed-"):
        handler.send_body(200, cut_short)
    elif token.startswith("html-"):
        handler.send_body(200, b"<html>maintenance</html>", "text/html")
    else:
        return False
    return True


def serve(handler_class):
    """Serves on a loopback port, printed on stdout's first line, until stdin closes."""
    server = Server(("127.0.0.1", 0), handler_class)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()
