"""What the aggregators' fakes share beyond http_behaviours.py (standard library only): each token or nonce used
once, a handler that answers JSON and reads forms, and the faults a token's prefix chooses once a request was checked
(http_behaviours.answer_fault: slow-*, status-NNN-*, truncated-*, malformed-*, html-*). The script using it prints its
port on stdout's first line and serves until stdin closes (http_behaviours.serve).
"""
import json
import threading
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs

import http_behaviours

serve = http_behaviours.serve


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
    """Every fake's handler: HTTP/1.1, silent, answers with send_body (its JSON content type a class attribute, as
    each vendor writes it)."""
    protocol_version = "HTTP/1.1"
    json_content_type = "application/json;charset=UTF-8"

    def log_message(self, *a):
        pass

    def send_body(self, status, body, content_type=None):
        content_type = content_type or self.json_content_type
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def reply_json(self, value):
        self.send_body(200, json.dumps(value, ensure_ascii=False).encode())

    def read_body(self):
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def content_type(self):
        return (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()

    def form(self, raw):
        """An application/x-www-form-urlencoded body's parameters, each sent once; None for anything else."""
        try:
            parsed = parse_qs(raw.decode("utf-8"), keep_blank_values=True, strict_parsing=True)
        except (UnicodeDecodeError, ValueError):
            return None
        if self.content_type() != "application/x-www-form-urlencoded" or any(len(values) != 1 for values in parsed.values()):
            return None
        return {name: values[0] for name, values in parsed.items()}

    def fault(self, token):
        """Acts out the fault a token's prefix names; True when it answered (the caller stops)."""
        return http_behaviours.answer_fault(self, token, b'{"code":')
