"""What the aggregators' fakes share (standard library only): the loopback server, each token used once, and the
faults a token's prefix chooses once a request was checked:
  slow-*        the answer after 3 s
  status-NNN-*  HTTP status NNN, text/html
  truncated-*   a Content-Length longer than the body sent, then the connection closed
  malformed-*   200 application/json, not JSON
  html-*        200 text/html
The script using it prints its port on stdout's first line and serves until stdin closes.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs


class Once:
    """Remembers what was used: a token (or nonce) sent a second time is refused."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seen = set()
        self.count = 0

    def first_use(self, value):
        with self.lock:
            if value in self.seen:
                return False
            self.seen.add(value)
            return True

    def next(self):
        with self.lock:
            self.count += 1
            return self.count


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, body, content_type="application/json;charset=UTF-8"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def reply_json(self, value):
        self.reply(200, json.dumps(value, ensure_ascii=False).encode())

    def read_body(self):
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def form(self, raw):
        """An application/x-www-form-urlencoded body's parameters, each sent once; None for anything else."""
        try:
            parsed = parse_qs(raw.decode("utf-8"), keep_blank_values=True, strict_parsing=True)
        except (UnicodeDecodeError, ValueError):
            return None
        if self.content_type() != "application/x-www-form-urlencoded" or any(len(values) != 1 for values in parsed.values()):
            return None
        return {name: values[0] for name, values in parsed.items()}

    def content_type(self):
        return (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()

    def fault(self, token):
        """Acts out the fault a token's prefix names; True when it answered (the caller stops)."""
        if token.startswith("slow-"):
            time.sleep(3)
            return False
        if token.startswith("status-"):
            self.reply(int(token.split("-")[1]), b"<html>gateway error</html>", "text/html")
            return True
        if token.startswith("truncated-"):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "400")
            self.end_headers()
            self.wfile.write(b'{"code":')
            self.wfile.flush()
            self.close_connection = True
            return True
        if token.startswith("malformed-"):
            self.reply(200, b'{"code":')
            return True
        if token.startswith("html-"):
            self.reply(200, b"<html>maintenance</html>", "text/html")
            return True
        return False


class Server(ThreadingHTTPServer):
    # The standard library's backlog of 5 resets connections when a test opens many at once.
    request_queue_size = 256
    daemon_threads = True


def serve(handler):
    server = Server(("127.0.0.1", 0), handler)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    os._exit(0)
