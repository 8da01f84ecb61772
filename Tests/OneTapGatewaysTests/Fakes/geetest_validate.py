#!/usr/bin/env python3
"""A fake of GeeTest CAPTCHA v4's secondary validation (/validate, 二次校验), on loopback, written from GeeTest's
server document and its server error list (Data/gateways/geetest-validate.md names them), not from OneTap's Swift.
Standard library only.

Run: geetest_validate.py --captcha-id ID --captcha-key KEY
Prints its port on stdout's first line; serves until stdin closes.

It takes GET or POST application/x-www-form-urlencoded, captcha_id in the query or the form, and checks: captcha_id
(missing -50101, another -50102), lot_number (missing -50302), gen_time digits (-50005), the five values present,
sign_token = HMAC-SHA256(captcha_key, lot_number) in hexadecimal (a wrong one: result fail; GeeTest's documents do not
say what it answers). Answers {"status": "success", "result": ..., "reason": ..., "captcha_args": {...}} or
{"status": "error", "code": ..., "msg": ..., "desc": {"type": "defined error"}}. A lot_number used twice: -50003
(illegal verify). The lot_number chooses the rest:
  expired-*  result fail, reason "pass_token expire"
  slow-* (3 s), status-NNN-*, truncated-*, malformed-*, html-*: http_behaviours.answer_fault's faults
Anything else: result success.
"""
import argparse
import hashlib
import hmac
import json
import threading
from urllib.parse import urlparse, parse_qs

import fake_faults
import http_behaviours

ERRORS = {"-50101": "not captcha_id", "-50102": "illegal captcha_id", "-50302": "not lot_number",
          "-50005": "illegal gen_time", "-50003": "illegal verify"}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--captcha-id", required=True)
    parser.add_argument("--captcha-key", required=True)
    args = parser.parse_args()
    used = set()
    lock = threading.Lock()

    class Handler(fake_faults.Handler):
        json_content_type = "application/json"

        def json_reply(self, value):
            self.send_body(200, json.dumps(value).encode())

        def error(self, code):
            self.json_reply({"status": "error", "code": code, "msg": ERRORS[code], "desc": {"type": "defined error"}})

        def result(self, result, reason, lot_number):
            self.json_reply({"status": "success", "result": result, "reason": reason,
                             "captcha_args": {"used_type": "slide", "user_ip": self.client_address[0], "lot_number": lot_number}})

        def answer(self):
            url = urlparse(self.path)
            if url.path != "/validate":
                return self.send_body(404, b'{"error":"no such path"}')
            fields = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
            if self.command == "POST":
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if (self.headers.get("Content-Type") or "").split(";")[0].strip() != "application/x-www-form-urlencoded":
                    return self.error("-50101")
                try:
                    form = parse_qs(raw.decode("utf-8"), keep_blank_values=True, strict_parsing=bool(raw))
                except (UnicodeDecodeError, ValueError):
                    return self.error("-50101")
                fields.update({k: v[0] for k, v in form.items()})
            if not fields.get("captcha_id"):
                return self.error("-50101")
            if fields["captcha_id"] != args.captcha_id:
                return self.error("-50102")
            lot_number = fields.get("lot_number", "")
            if not lot_number:
                return self.error("-50302")
            if not fields.get("gen_time", "").isdigit():
                return self.error("-50005")
            if not fields.get("captcha_output") or not fields.get("pass_token"):
                return self.result("fail", "missing captcha_output or pass_token", lot_number)
            expected = hmac.new(args.captcha_key.encode(), lot_number.encode(), hashlib.sha256).hexdigest()
            if not hmac.compare_digest(expected, fields.get("sign_token", "")):
                return self.result("fail", "sign_token error", lot_number)
            with lock:
                if lot_number in used:
                    return self.error("-50003")
                used.add(lot_number)
            if http_behaviours.answer_fault(self, lot_number, b'{"status": "success", "result": '):
                return
            if lot_number.startswith("expired-"):
                return self.result("fail", "pass_token expire", lot_number)
            return self.result("success", "", lot_number)

        do_GET = answer
        do_POST = answer

    http_behaviours.serve(Handler)


if __name__ == "__main__":
    main()
