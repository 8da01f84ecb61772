#!/usr/bin/env python3
"""A fake of Shanyan's V2 server API (闪验, 创蓝): mobile-query and mobile-validate, on loopback.

Written from 创蓝's public document (Data/gateways/shanyan.md names it: the V2 服务端接口 document, §2-§5), not from
OneTap's Swift: POST, application/x-www-form-urlencoded, the documented parameters, sign = HMAC-SHA256 keyed with the
appKey over every parameter's name and value (names sorted, sign excluded), hexadecimal; mobileName AES-CBC with the
first 16 characters of md5(appKey) as key and the last 16 as IV, hexadecimal (encryptType 0), or RSA to the app's
public key (encryptType 1).

Run: shanyan_flashsdk.py --app-id ID --app-key K --number 13800138000 [--public-key PEM] [--rsa-encoding hex|base64]
The document's failure codes are not public: this fake answers them with its own codes, named fake-*, which no
gateway can mistake for Shanyan's. Tokens: expired-* or a token sent twice fake-token-invalid; fake_faults.py's
prefixes.
"""
import argparse
import base64
import hashlib
import hmac

from cryptography.hazmat.primitives import padding as sympadding
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

import fake_faults

PATHS = {
    "/open/flashsdk/mobile-query": (["appId", "token", "sign"], ["outId", "clientIp", "encryptType"]),
    "/open/flashsdk/mobile-validate": (["appId", "token", "mobile", "sign"], ["outId"]),
}


def aes_hex(app_key, text):
    digest = hashlib.md5(app_key.encode()).hexdigest()
    padder = sympadding.PKCS7(128).padder()
    data = padder.update(text.encode()) + padder.finalize()
    encryptor = Cipher(algorithms.AES(digest[:16].encode()), modes.CBC(digest[16:].encode())).encryptor()
    return (encryptor.update(data) + encryptor.finalize()).hex()


def make_handler(args, public_key, once):
    class Handler(fake_faults.Handler):
        def answer(self, code, message, data=None):
            body = {"code": code, "message": message}
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
            if fields is None:
                return self.answer("fake-parameters", "not a form of parameters each sent once")
            required, optional = PATHS[self.path]
            if any(name not in fields for name in required) or any(name not in required + optional for name in fields):
                return self.answer("fake-parameters", "missing or unknown parameters")
            if fields["appId"] != args.app_id:
                return self.answer("fake-app", "no such appId")
            signed = "".join(name + fields[name] for name in sorted(fields) if name != "sign")
            expected = hmac.new(args.app_key.encode(), signed.encode(), hashlib.sha256).hexdigest()
            if not hmac.compare_digest(fields["sign"].lower(), expected):
                return self.answer("fake-sign", "sign error")
            token = fields["token"]
            if not token or not once.first_use(token) or token.startswith("expired-"):
                return self.answer("fake-token-invalid", "token invalid or used")
            if self.fault(token):
                return
            trade_no = "trade-%d" % once.next()
            if "mobile" in fields:
                return self.answer("200000", "成功", {"isVerify": "1" if fields["mobile"] == args.number else "0", "tradeNo": trade_no})
            encrypt_type = fields.get("encryptType", "0")
            if encrypt_type == "0":
                mobile_name = aes_hex(args.app_key, args.number)
            elif encrypt_type == "1" and public_key is not None:
                ciphertext = public_key.encrypt(args.number.encode(), padding.PKCS1v15())
                mobile_name = ciphertext.hex() if args.rsa_encoding == "hex" else base64.b64encode(ciphertext).decode()
            else:
                return self.answer("fake-encrypt-type", "encryptType 1 needs an RSA public key in the console")
            return self.answer("200000", "成功", {"mobileName": mobile_name, "tradeNo": trade_no})

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--app-id", required=True)
    parser.add_argument("--app-key", required=True)
    parser.add_argument("--number", required=True)
    parser.add_argument("--public-key")
    parser.add_argument("--rsa-encoding", choices=["hex", "base64"], default="hex")
    args = parser.parse_args()
    public_key = None
    if args.public_key:
        with open(args.public_key, "rb") as f:
            public_key = serialization.load_pem_public_key(f.read())
    fake_faults.serve(make_handler(args, public_key, fake_faults.Once()))


if __name__ == "__main__":
    main()
