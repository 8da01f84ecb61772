#!/usr/bin/env python3
"""A fake of China Mobile's loginTokenValidate (统一认证: one-tap token -> number), on loopback.

Written from China Mobile's public document (Data/gateways/cmcc-login-token-validate.md names it: "iOS 5.3.6接入文档.md"
§2.7 and §4.2, and the 2018 Android document §3.1), not from OneTap's Swift: it checks every field the document names
and the signature, and answers as the document says. Standard library and python3-cryptography only.

Run: cmcc_login_token_validate.py --appid ID --number 13800138000 (--secret S | --public-key PEM [--msisdn-encoding hex|base64]
     [--msisdn-text utf-8|utf-16le]) [--whitelist IP ...] [--task-ids]
The document does not say which bytes `msisdn` encrypts: UTF-8 by default; a public integration (flipped-aurora/gin-vue-admin,
server/plugin/oneLogin/service) decodes the plaintext as UTF-16LE, which --msisdn-text utf-16le encrypts.
Prints its port on stdout's first line; serves until stdin closes.

Tokens choose a fault after the request was checked (each is otherwise a valid token, used once):
  expired-*     104201 (凭证已失效或不存在)
  slow-*, status-NNN-*, truncated-*, malformed-*, html-*: fake_support.token_fault
Any token sent twice: 104201. A msgid sent twice: 103107.
"""
import argparse
import datetime
import hashlib
import json
import re
import base64

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

from fake_support import NOT_FOUND, CHINA, FakeHandler, State, china_time17, serve

PATH = "/unisdk/rsapi/loginTokenValidate"
REQUIRED = ["version", "msgid", "systemtime", "strictcheck", "appid", "token", "sign"]
OPTIONAL = ["expandparams", "encryptionalgorithm", "signType"]


def make_handler(args, state, public_key):
    class Handler(FakeHandler):
        def answer(self, msgid, code, **extra):
            body = {"inresponseto": msgid, "systemtime": china_time17(), "resultCode": code}
            body.update(extra)
            self.reply(200, json.dumps(body).encode())

        def do_POST(self):
            state.count_request()
            fields = self.posted_json(PATH)
            if fields is NOT_FOUND:
                return
            if not isinstance(fields, dict):  # not JSON, not application/json, or not an object
                return self.answer("", "103412")  # 无效的请求
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
            if self.token_fault(token, b'{"inresponseto":"' + msgid.encode() + b'","resultCode":"103000","msisdn":"1380',
                                b'{"resultCode":"103000","msisdn":"13800138000"'):
                return
            msisdn = args.number
            if rsa:
                ciphertext = public_key.encrypt(args.number.encode(args.msisdn_text), padding.PKCS1v15())
                msisdn = ciphertext.hex() if args.msisdn_encoding == "hex" else base64.b64encode(ciphertext).decode()
            extra = {"msisdn": msisdn}
            if args.task_ids:
                extra["taskId"] = "task-%d" % state.requests
            return self.answer(msgid, "103000", **extra)

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--appid", required=True)
    parser.add_argument("--number", required=True)
    parser.add_argument("--secret")
    parser.add_argument("--public-key")
    parser.add_argument("--msisdn-encoding", choices=["hex", "base64"], default="hex")
    parser.add_argument("--msisdn-text", choices=["utf-8", "utf-16le"], default="utf-8")
    parser.add_argument("--whitelist", nargs="*", default=[])
    parser.add_argument("--task-ids", action="store_true")
    args = parser.parse_args()
    public_key = None
    if args.public_key:
        with open(args.public_key, "rb") as f:
            public_key = serialization.load_pem_public_key(f.read())
    serve(make_handler(args, State(), public_key))


if __name__ == "__main__":
    main()
