"""What the vendor fakes share (standard library only): the loopback server, the JSON handler's plumbing, and the
faults a test chooses by the token's prefix. The vendor rules stay in each fake, written from its document.

Faults by token prefix (token_fault):
  slow-*          the answer after 3 s
  status-NNN-*    HTTP status NNN
  truncated-*     a Content-Length longer than the body sent, then the connection closed
  malformed-*     200 application/json, not JSON
  html-*          200 text/html
"""
import datetime
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


CHINA = datetime.timezone(datetime.timedelta(hours=8))


def china_time17():
    """Now at UTC+8 as China Mobile's 17 digits, yyyyMMddHHmmssSSS."""
    now = datetime.datetime.now(CHINA)
    return now.strftime("%Y%m%d%H%M%S") + "%03d" % (now.microsecond // 1000)


class State:
    """Counts requests and remembers the values of each kind (token, msgid) a fake has seen."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seen = {}
        self.requests = 0

    def count_request(self):
        with self.lock:
            self.requests += 1

    def first_use(self, kind, value):
        with self.lock:
            seen = self.seen.setdefault(kind, set())
            if value in seen:
                return False
            seen.add(value)
            return True


class Server(ThreadingHTTPServer):
    # The standard library's backlog of 5 resets connections when a test opens many at once.
    request_queue_size = 256
    daemon_threads = True


NOT_FOUND = object()  # posted_json's answer for another path


class FakeHandler(BaseHTTPRequestHandler):
    """HTTP/1.1, silent, with reply(); GET is refused."""
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, body, content_type="application/json;charset=UTF-8"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.reply(405, b'{"error":"POST only"}')

    def posted_json(self, path):
        """Reads a POST's body: the JSON value, None when it is not JSON sent as application/json, or NOT_FOUND when
        the path is not `path` (answered 404)."""
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path != path:
            self.reply(404, b'{"error":"no such path"}')
            return NOT_FOUND
        if (self.headers.get("Content-Type") or "").split(";")[0].strip().lower() != "application/json":
            return None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None

    def token_fault(self, token, partial, malformed):
        """Answers the fault the token's prefix names: True when answered (the caller returns), False to answer as
        usual (after 3 s for slow-*). partial: the start of a JSON answer cut short; malformed: a body that is not JSON."""
        if token.startswith("slow-"):
            time.sleep(3)
        elif token.startswith("status-"):
            self.reply(int(token.split("-")[1]), b"<html>gateway error</html>", "text/html")
            return True
        elif token.startswith("truncated-"):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "400")
            self.end_headers()
            self.wfile.write(partial)
            self.wfile.flush()
            self.close_connection = True
            return True
        elif token.startswith("malformed-"):
            self.reply(200, malformed)
            return True
        elif token.startswith("html-"):
            self.reply(200, b"<html>maintenance</html>", "text/html")
            return True
        return False


def serve(handler):
    """Serves on a loopback port printed on stdout's first line, until stdin closes."""
    server = Server(("127.0.0.1", 0), handler)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    os._exit(0)
