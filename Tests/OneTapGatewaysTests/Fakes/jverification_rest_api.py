#!/usr/bin/env python3
"""A fake of JVerification's REST API (极光认证): loginTokenVerify and verify, on loopback.

Written from JiGuang's public documents (Data/gateways/jverification.md names them: jpush/jpush-docs
zh/jverification/server/rest_api/*.md and docs.jiguang.cn's REST API pages), not from OneTap's Swift: POST with a JSON
body, HTTP Basic "appKey:masterSecret", the documented fields and codes; phone RSA-encrypted (PKCS#1 v1.5, Base64,
as the document's Java/Python/PHP decryption examples read it) to the app's public key.

Run: jverification_rest_api.py --app-key K --master-secret S --public-key PEM --number 13800138000
Tokens: fail-* 8001 / unknown-* 9002; expired-* or a token sent twice 9003; plus fake_faults.py's prefixes.
"""
import argparse
import base64
import json

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import padding

import fake_faults

PATHS = {"/v1/web/loginTokenVerify": ("loginToken", []), "/v1/web/verify": ("token", ["phone"])}


def make_handler(args, public_key, once):
    expected = "Basic " + base64.b64encode(f"{args.app_key}:{args.master_secret}".encode()).decode()

    class Handler(fake_faults.Handler):
        def answer(self, code, content, **extra):
            body = {"code": code, "content": content}
            body.update(extra)
            self.reply_json(body)

        def do_GET(self):
            self.answer(9013, "request method not supported")

        def do_POST(self):
            raw = self.read_body()
            if self.path not in PATHS:
                return self.send_body(404, b'{"error":"no such path"}')
            if self.content_type() != "application/json":
                return self.answer(9015, "http media type not supported")
            authorization = self.headers.get("Authorization")
            if not authorization:
                return self.answer(9010, "miss auth")
            if authorization != expected:
                return self.answer(9011, "auth failed")
            try:
                fields = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                return self.answer(9012, "parameter invalid")
            token_name, more = PATHS[self.path]
            allowed = {token_name, "exID", *more}
            if not isinstance(fields, dict) or any(name not in fields for name in [token_name, *more]) or any(name not in allowed for name in fields):
                return self.answer(9012, "parameter invalid")
            token, ex_id = fields[token_name], fields.get("exID")
            if not isinstance(token, str) or not token or (ex_id is not None and not isinstance(ex_id, str)):
                return self.answer(9012, "parameter invalid")
            echo = {"exID": ex_id} if ex_id else {}
            serial = 117270465679982592 + once.next()
            if not once.first_use(token) or token.startswith("expired-"):
                return self.answer(9003, "token expired or not exist", id=serial, **echo)
            if self.fault(token):
                return
            if token_name == "loginToken":
                if token.startswith("fail-"):
                    return self.answer(8001, "get phone fail", id=serial, **echo)
                phone = base64.b64encode(public_key.encrypt(args.number.encode(), padding.PKCS1v15())).decode()
                return self.answer(8000, "get phone success", id=serial, phone=phone, **echo)
            phone = fields["phone"]
            if not isinstance(phone, (str, int)) or not str(phone).isdigit():
                return self.answer(9012, "parameter invalid")
            if token.startswith("unknown-"):
                return self.answer(9002, "unknown result", id=serial, **echo)
            if str(phone) == args.number:
                return self.answer(9000, "verify consistent", id=serial, **echo)
            return self.answer(9001, "verify not consistent", id=serial, **echo)

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--app-key", required=True)
    parser.add_argument("--master-secret", required=True)
    parser.add_argument("--public-key", required=True)
    parser.add_argument("--number", required=True)
    args = parser.parse_args()
    with open(args.public_key, "rb") as f:
        public_key = serialization.load_pem_public_key(f.read())
    fake_faults.serve(make_handler(args, public_key, fake_faults.Once()))


if __name__ == "__main__":
    main()
