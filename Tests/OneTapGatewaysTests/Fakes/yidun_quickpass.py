#!/usr/bin/env python3
"""A fake of Netease Yidun's number authentication (网易易盾 号码认证): v1/oneclick/check and v1/check, on loopback.

Written from Yidun's public server demo (Data/gateways/yidun.md names it: yidun/quickpass-java-demo OneclickDemo.java,
ValidateDemo.java, SignatureUtils.java), not from OneTap's Swift: POST form parameters secretId, businessId,
version v1, timestamp (milliseconds, within 6 s of now), nonce, accessToken, token (and phone for check), signature =
MD5 of every parameter's name and value (names sorted, signature excluded) followed by the secretKey, lower-case hex;
answers {"code": 200, "data": {"phone", "resultCode"}} and {"code": 200, "data": {"result": 1|2|3}}.

Run: yidun_quickpass.py --secret-id ID --secret-key K --business-id B --number 13800138000
Yidun's failure codes are not public: this fake answers them with its own, named fake-*. Tokens: carrier-CODE-* a 200
without phone, resultCode CODE; unknown-* result 3; expired-* or a token or nonce sent twice fake-token-invalid;
fake_faults.py's prefixes.
"""
import argparse
import hashlib
import hmac
import time

import fake_faults

COMMON = ["secretId", "businessId", "version", "timestamp", "nonce", "accessToken", "token", "signature"]
PATHS = {"/v1/oneclick/check": COMMON, "/v1/check": COMMON + ["phone"]}


def make_handler(args, tokens, nonces):
    class Handler(fake_faults.Handler):
        def answer(self, code, msg, data=None):
            body = {"code": code, "msg": msg}
            if data is not None:
                body["data"] = data
            self.reply_json(body)

        def do_GET(self):
            self.answer("fake-method", "POST only")

        def do_POST(self):
            raw = self.read_body()
            if self.path not in PATHS:
                return self.send_body(404, b'{"error":"no such path"}')
            fields = self.form(raw)
            if fields is None or sorted(fields) != sorted(PATHS[self.path]):
                return self.answer("fake-parameters", "not a form of the documented parameters, each sent once")
            if fields["secretId"] != args.secret_id or fields["businessId"] != args.business_id or fields["version"] != "v1":
                return self.answer("fake-secret-id", "secretId, businessId or version wrong")
            if not fields["timestamp"].isdigit() or abs(int(fields["timestamp"]) - time.time() * 1000) > args.timestamp_window_ms:
                return self.answer("fake-timestamp", "timestamp not milliseconds within the window")
            signed = "".join(name + fields[name] for name in sorted(fields) if name != "signature") + args.secret_key
            if not hmac.compare_digest(fields["signature"], hashlib.md5(signed.encode()).hexdigest()):
                return self.answer("fake-signature", "signature error")
            if not nonces.first_use(fields["nonce"]):
                return self.answer("fake-nonce", "nonce used")
            token, access = fields["token"], fields["accessToken"]
            if not token or not access or not tokens.first_use(token) or not tokens.first_use("access:" + access) or token.startswith("expired-"):
                return self.answer("fake-token-invalid", "token invalid or used")
            if self.fault(token):
                return
            if "phone" in fields:
                result = 3 if token.startswith("unknown-") else 1 if fields["phone"] == args.number else 2
                return self.answer(200, "ok", {"result": result})
            if token.startswith("carrier-"):
                return self.answer(200, "ok", {"phone": "", "resultCode": token.split("-")[1]})
            return self.answer(200, "ok", {"phone": args.number, "resultCode": "0"})

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--secret-id", required=True)
    parser.add_argument("--secret-key", required=True)
    parser.add_argument("--business-id", required=True)
    parser.add_argument("--number", required=True)
    # The demo's rule: the timestamp within 6 s of now. Suites that test other things may widen it, so that a
    # loaded machine's delay between signing and arrival cannot fail them; the stale-timestamp test keeps 6 s.
    parser.add_argument("--timestamp-window-ms", type=int, default=6000)
    args = parser.parse_args()
    fake_faults.serve(make_handler(args, fake_faults.Once(), fake_faults.Once()))


if __name__ == "__main__":
    main()
