#!/usr/bin/env python3
"""A fake of China Mobile's loginTokenValidate (统一认证: one-tap token -> number), on loopback.

Written from China Mobile's public document (Data/gateways/cmcc-login-token-validate.md names it: "iOS 5.3.6接入文档.md"
§2.7 and §4.2, and the 2018 Android document §3.1), not from OneTap's Swift: it checks every field the document names
and the signature, and answers as the document says. Standard library and python3-cryptography only.

Run: cmcc_login_token_validate.py --appid ID --number 13800138000 (--secret S | --public-key PEM [--msisdn-encoding hex|base64])
     [--whitelist IP ...] [--task-ids]
Prints its port on stdout's first line; serves until stdin closes.

Tokens choose a fault after the request was checked (each is otherwise a valid token, used once):
  expired-*     104201 (凭证已失效或不存在)
  slow-*        the answer after 3 s
  status-NNN-*  HTTP status NNN
  truncated-*   a Content-Length longer than the body sent, then the connection closed
  malformed-*   200 application/json, not JSON
  html-*        200 text/html
Any token sent twice: 104201. A msgid sent twice: 103107.
"""
import argparse
import datetime
import hashlib
import json
import os
import re
import sys
import threading
import time
import base64
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

PATH = "/unisdk/rsapi/loginTokenValidate"
REQUIRED = ["version", "msgid", "systemtime", "strictcheck", "appid", "token", "sign"]
OPTIONAL = ["expandparams", "encryptionalgorithm", "signType"]
CHINA = datetime.timezone(datetime.timedelta(hours=8))


def systemtime():
    now = datetime.datetime.now(CHINA)
    return now.strftime("%Y%m%d%H%M%S") + "%03d" % (now.microsecond // 1000)


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.tokens = set()
        self.msgids = set()
        self.requests = 0

    def first_use(self, kind, value):
        with self.lock:
            seen = self.tokens if kind == "token" else self.msgids
            if value in seen:
                return False
            seen.add(value)
            return True


def make_handler(args, state, public_key):
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

        def answer(self, msgid, code, **extra):
            body = {"inresponseto": msgid, "systemtime": systemtime(), "resultCode": code}
            body.update(extra)
            self.reply(200, json.dumps(body).encode())

        def do_GET(self):
            self.reply(405, b'{"error":"POST only"}')

        def do_POST(self):
            with state.lock:
                state.requests += 1
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if self.path != PATH:
                return self.reply(404, b'{"error":"no such path"}')
            if (self.headers.get("Content-Type") or "").split(";")[0].strip().lower() != "application/json":
                return self.answer("", "103412")  # 无效的请求
            try:
                fields = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                return self.answer("", "103412")
            if not isinstance(fields, dict):
                return self.answer("", "103412")
            msgid = fields.get("msgid") if isinstance(fields.get("msgid"), str) else ""
            # Every parameter is a string; the required ones present; nothing the document does not name.
            if any(not isinstance(v, str) for v in fields.values()):
                return self.answer(msgid, "103414")
            if any(name not in fields for name in REQUIRED) or any(name not in REQUIRED + OPTIONAL for name in fields):
                return self.answer(msgid, "103414")
            if fields["version"] != "2.0" or not (1 <= len(msgid) <= 36) or fields["strictcheck"] not in ("0", "1"):
                return self.answer(msgid, "103414")
            if not re.fullmatch(r"\d{17}", fields["systemtime"]):
                return self.answer(msgid, "103414")
            try:
                sent = datetime.datetime.strptime(fields["systemtime"][:14], "%Y%m%d%H%M%S").replace(tzinfo=CHINA)
            except ValueError:
                return self.answer(msgid, "103414")
            if abs((datetime.datetime.now(CHINA) - sent).total_seconds()) > 600:
                return self.answer(msgid, "103414")
            if fields["appid"] != args.appid:
                return self.answer(msgid, "103119")  # appid不存在
            if fields["token"] == "":
                return self.answer(msgid, "103811")  # token为空
            if args.whitelist and self.client_address[0] not in args.whitelist:
                return self.answer(msgid, "103511")  # 源IP不合法
            rsa = fields.get("encryptionalgorithm") == "RSA"
            if rsa:
                if public_key is None:
                    return self.answer(msgid, "103101")
                try:
                    signature = bytes.fromhex(fields["sign"])
                    public_key.verify(signature, (fields["appid"] + fields["token"]).encode(), padding.PKCS1v15(), hashes.SHA256())
                except (ValueError, InvalidSignature):
                    return self.answer(msgid, "103101")  # 签名错误
            else:
                if args.secret is None:
                    return self.answer(msgid, "103101")
                text = "".join(fields[n] for n in ["appid", "version", "msgid", "systemtime", "strictcheck", "token"]) + args.secret
                if fields["sign"] != hashlib.md5(text.encode()).hexdigest().upper():
                    return self.answer(msgid, "103101")
            if not state.first_use("msgid", msgid):
                return self.answer(msgid, "103107")  # 已存在相同的随机数
            token = fields["token"]
            if not state.first_use("token", token) or token.startswith("expired-"):
                return self.answer(msgid, "104201")  # 凭证已失效或不存在
            if token.startswith("slow-"):
                time.sleep(3)
            elif token.startswith("status-"):
                return self.reply(int(token.split("-")[1]), b"<html>gateway error</html>", "text/html")
            elif token.startswith("truncated-"):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "400")
                self.end_headers()
                self.wfile.write(b'{"inresponseto":"' + msgid.encode() + b'","resultCode":"103000","msisdn":"1380')
                self.wfile.flush()
                self.close_connection = True
                return
            elif token.startswith("malformed-"):
                return self.reply(200, b'{"resultCode":"103000","msisdn":"13800138000"')
            elif token.startswith("html-"):
                return self.reply(200, b"<html>maintenance</html>", "text/html")
            msisdn = args.number
            if rsa:
                ciphertext = public_key.encrypt(args.number.encode(), padding.PKCS1v15())
                msisdn = ciphertext.hex() if args.msisdn_encoding == "hex" else base64.b64encode(ciphertext).decode()
            extra = {"msisdn": msisdn}
            if args.task_ids:
                extra["taskId"] = "task-%d" % state.requests
            return self.answer(msgid, "103000", **extra)

    return Handler


class Server(ThreadingHTTPServer):
    # The standard library's backlog of 5 resets connections when a test opens many at once.
    request_queue_size = 256
    daemon_threads = True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--appid", required=True)
    parser.add_argument("--number", required=True)
    parser.add_argument("--secret")
    parser.add_argument("--public-key")
    parser.add_argument("--msisdn-encoding", choices=["hex", "base64"], default="hex")
    parser.add_argument("--whitelist", nargs="*", default=[])
    parser.add_argument("--task-ids", action="store_true")
    args = parser.parse_args()
    public_key = None
    if args.public_key:
        with open(args.public_key, "rb") as f:
            public_key = serialization.load_pem_public_key(f.read())
    server = Server(("127.0.0.1", 0), make_handler(args, State(), public_key))
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()
