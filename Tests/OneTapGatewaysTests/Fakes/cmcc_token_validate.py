#!/usr/bin/env python3
"""A fake of China Mobile's tokenValidate (本机号码校验: is this number the SIM's own?), on loopback.

Written from China Mobile's public document (Data/gateways/cmcc-token-validate.md names it: "本机校验-Android.md"
§3.1 and §4.2 of CMCC-MobileAuth/mobile-Auth-android-STD), not from OneTap's Swift: it checks every field the
document names, recomputes phoneNum and the HMAC-SHA256 sign, and answers as the document says. Standard library only.

Run: cmcc_token_validate.py --appid ID --appkey KEY --number 13800138000 [--whitelist IP ...] [--sms-assist]
Prints its port on stdout's first line; serves until stdin closes.

The verdict: phoneNum equal to SHA-256(number + appKey + timestamp) is 000 (是本机号码), any other 001 (非本机号码;
with --sms-assist the answer carries an accessToken, as the document says when 短验辅助 is configured).
Tokens choose a fault after the request was checked (each is otherwise a valid token, used once):
  expired-*       606 (验证Token失败)
  code-NNN-*      the documented code NNN (002, 003, 999, 102315, ...)
  slow-*, status-NNN-*, truncated-*, malformed-*, html-*: fake_support.token_fault
Any token sent twice: 606.
Where the document names no code the fake chooses one, said beside it (an unknown appId: 102 参数无效).
"""
import argparse
import hashlib
import hmac
import json
import re

from fake_support import NOT_FOUND, FakeHandler, State, china_time17, serve

PATH = "/openapi/rs/tokenValidate"
HEADER_REQUIRED = ["version", "msgId", "timestamp", "appId"]
BODY_REQUIRED = ["requesterType", "phoneNum", "token", "sign"]
BODY_OPTIONAL = ["openType", "message", "expandParams", "keyType"]
HEX64 = re.compile(r"[0-9A-F]{64}")


def make_handler(args, state):
    class Handler(FakeHandler):
        def answer(self, msg_id, code, description, **extra):
            body = {"resultDesc": description, "message": ""}
            body.update(extra)
            header = {"msgId": msg_id, "timestamp": china_time17(), "appId": args.appid, "resultCode": code}
            self.reply(200, json.dumps({"header": header, "body": body}, ensure_ascii=False).encode())

        def do_POST(self):
            state.count_request()
            message = self.posted_json(PATH)
            if message is NOT_FOUND:
                return
            # §5 Q&A: a body that is not standard JSON, or not sent as application/json, is 参数解析错误.
            if not isinstance(message, dict) or set(message) != {"header", "body"}:
                return self.answer("", "303", "参数解析错误")
            header, body = message["header"], message["body"]
            if not isinstance(header, dict) or not isinstance(body, dict):
                return self.answer("", "303", "参数解析错误")
            msg_id = header.get("msgId") if isinstance(header.get("msgId"), str) else ""
            # Every parameter is a string; the required ones present; nothing the document does not name.
            if any(not isinstance(v, str) for v in list(header.values()) + list(body.values())):
                return self.answer(msg_id, "102", "参数无效")
            if set(header) != set(HEADER_REQUIRED):
                return self.answer(msg_id, "102", "参数无效")
            if any(n not in body for n in BODY_REQUIRED) or any(n not in BODY_REQUIRED + BODY_OPTIONAL for n in body):
                return self.answer(msg_id, "102", "参数无效")
            if body["requesterType"] not in ("0", "1") or (body["requesterType"] == "0" and body.get("openType") not in ("0", "1", "2", "3")):
                return self.answer(msg_id, "102", "参数无效")
            if header["version"] != "1.0" or msg_id == "" or not re.fullmatch(r"\d{17}", header["timestamp"]):
                return self.answer(msg_id, "102", "参数无效")
            if body.get("keyType") == "1":  # RSA: 暂未支持
                return self.answer(msg_id, "102", "参数无效")
            if header["appId"] != args.appid:  # the document names no code for an unknown appId: the fake's choice
                return self.answer(msg_id, "102", "参数无效")
            if args.whitelist and self.client_address[0] not in args.whitelist:
                return self.answer(msg_id, "124", "白名单校验失败")
            signed = header["appId"] + msg_id + body["phoneNum"] + header["timestamp"] + body["token"] + header["version"]
            expected = hmac.new(args.appkey.encode(), signed.encode(), hashlib.sha256).hexdigest().upper()
            if body["sign"] != expected:
                return self.answer(msg_id, "302", "sign校验失败")
            if not HEX64.fullmatch(body["phoneNum"]):
                return self.answer(msg_id, "004", "加密手机号码错误")
            token = body["token"]
            if not state.first_use("token", token) or token.startswith("expired-"):
                return self.answer(msg_id, "606", "验证Token失败")
            if token.startswith("code-"):
                return self.answer(msg_id, token.split("-")[1], "documented error")
            if self.token_fault(token, b'{"header":{"msgId":"' + msg_id.encode() + b'","resultCode":"00', b'{"header":{"resultCode":"000"},"body":{'):
                return
            own = hashlib.sha256((args.number + args.appkey + header["timestamp"]).encode()).hexdigest().upper()
            if body["phoneNum"] == own:
                return self.answer(msg_id, "000", "是本机号码")
            extra = {"accessToken": "sms-assist-%d" % state.requests} if args.sms_assist else {}
            return self.answer(msg_id, "001", "非本机号码", **extra)

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--appid", required=True)
    parser.add_argument("--appkey", required=True)
    parser.add_argument("--number", required=True)
    parser.add_argument("--whitelist", nargs="*", default=[])
    parser.add_argument("--sms-assist", action="store_true")
    args = parser.parse_args()
    serve(make_handler(args, State()))


if __name__ == "__main__":
    main()
