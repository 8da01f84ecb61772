"""What Aliyun's RPC gateway does before an API runs, for the fakes of PNVS and SMS (standard library only).

From Aliyun's documents (Data/gateways/aliyun-pnvs.md and aliyun-sms.md name them): an RPC API is POST (or GET) to
the endpoint's "/", its parameters in the query string, signed with signature V3 (aliyun_acs3.py); the answer is a JSON
object with Code, Message and RequestId. A gateway-level error comes with a 4xx status and the same shape
(SignatureDoesNotMatch, InvalidAccessKeyId.NotFound, SignatureNonceUsed, InvalidTimeStamp.Expired, Missing<Parameter>).

Faults chosen by a value the test controls (a token, a number), after the request was checked:
  slow      the answer after 3 s
  status-N  HTTP status N, text/html
  truncated a Content-Length longer than the body sent, then the connection closed
  malformed 200 application/json, not JSON
  html      200 text/html
"""
import json
import os
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qsl

import aliyun_acs3


class Nonces:
    def __init__(self):
        self.lock = threading.Lock()
        self.seen = set()

    def first_use(self, value):
        with self.lock:
            if value in self.seen:
                return False
            self.seen.add(value)
            return True


class RPCHandler(BaseHTTPRequestHandler):
    """Subclasses set ACTIONS = {action: (version, [required parameters])} and implement answer(action, params)."""
    protocol_version = "HTTP/1.1"
    ACTIONS = {}
    secrets = {}
    nonces = None

    def log_message(self, *a):
        pass

    def reply(self, status, body, content_type="application/json;charset=utf-8"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def answer_json(self, status, code, **members):
        body = {"RequestId": str(uuid.uuid4()).upper(), "Code": code, "Message": members.pop("message", code)}
        body.update(members)
        self.reply(status, json.dumps(body, ensure_ascii=False).encode())

    def fault(self, kind):
        """Plays a fault; returns True when one was played."""
        if kind.startswith("slow"):
            time.sleep(3)
            return False
        if kind.startswith("status-"):
            self.reply(int(kind.split("-")[1]), b"<html>gateway error</html>", "text/html")
        elif kind.startswith("truncated"):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "400")
            self.end_headers()
            self.wfile.write(b'{"Code":"OK","RequestId":"cut')
            self.wfile.flush()
            self.close_connection = True
        elif kind.startswith("malformed"):
            self.reply(200, b'{"Code":"OK","RequestId":"x"')
        elif kind.startswith("html"):
            self.reply(200, b"<html>maintenance</html>", "text/html")
        else:
            return False
        return True

    def handle_rpc(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        if url.path != "/":
            return self.answer_json(404, "InvalidApi.NotFound")
        pairs = parse_qsl(url.query, keep_blank_values=True)
        headers = {k.lower(): v for k, v in self.headers.items()}
        action = headers.get("x-acs-action", "")
        if action not in self.ACTIONS:
            return self.answer_json(404, "InvalidApi.NotFound")
        version, required = self.ACTIONS[action]
        refused = aliyun_acs3.check(self.command, "/", pairs, headers, body, self.secrets, action, version, self.nonces.first_use)
        if refused:
            return self.answer_json(refused[0], refused[1])
        params = dict(pairs)
        if len(params) != len(pairs):
            return self.answer_json(400, "InvalidParameter")
        for name in required:
            if not params.get(name):
                return self.answer_json(400, "Missing" + name)
        self.answer(action, params)

    do_POST = handle_rpc
    do_GET = handle_rpc


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
