#!/usr/bin/env python3
"""A fake of Tencent Captcha DescribeCaptchaResult (API 3.0, version 2019-07-22), on loopback, written from Tencent's
DescribeCaptchaResult document (Data/gateways/tencent-captcha.md names it), not from OneTap's Swift. Standard library
only (tencent_api_fake.py, tencent_tc3.py).

Run: tencent_captcha_describe_captcha_result.py --secret-id ID --secret-key KEY --captcha-app-id 199999164
     --app-secret-key K
Prints its port on stdout's first line; serves until stdin closes.

It checks the common parameters and the TC3 signature (no region required), then the body: CaptchaType the integer 9,
Ticket, UserIp, Randstr non-empty strings, CaptchaAppId an integer (not this app's: CaptchaCode 16), AppSecretKey (not
this app's: 100). The ticket chooses the answer (each a valid ticket otherwise, used once; a second use is 9):
  expired-*  8 (ticket expired)      diff-*   21 (diff)      busy-*  26 (system busy)
  evil-*     1 (OK) with EvilLevel 100: the invisible mode (无感验证) answers a malicious request's ticket so, and the
             verdict is EvilLevel's ("无感验证方式如何接入", cloud.tencent.com/document/product/1110/83666)
  throttled-*  Response.Error RequestLimitExceeded (the common error of an account or caller address past the API's
             request frequency limit; the common error codes, one list for every product:
             cloud.tencent.com/document/api/382/52075)
  slow-*, status-NNN-*, truncated-*, malformed-*, html-*: the faults of http_behaviours.answer_fault
Randstr "bad": 7 (captcha no match). Anything else: 1 (OK), EvilLevel 0.
"""
import threading

import tencent_api_fake
from tencent_api_fake import Refused

KNOWN = {"CaptchaType", "Ticket", "UserIp", "Randstr", "CaptchaAppId", "AppSecretKey", "BusinessId", "SceneId",
         "MacAddress", "Imei", "NeedGetCaptchaTime"}


def main():
    def extra(parser):
        parser.add_argument("--captcha-app-id", required=True, type=int)
        parser.add_argument("--app-secret-key", required=True)

    args = tencent_api_fake.arguments(extra)
    used = set()
    lock = threading.Lock()

    def integer(value):
        return isinstance(value, int) and not isinstance(value, bool)

    def handle(fields, fault):
        if any(name not in KNOWN for name in fields):
            raise Refused("InvalidParameter", "a member DescribeCaptchaResult does not take")
        if fields.get("CaptchaType") != 9 or not integer(fields.get("CaptchaType")):
            raise Refused("InvalidParameterValue", "CaptchaType must be 9")
        for name in ("Ticket", "UserIp", "Randstr", "AppSecretKey"):
            if not isinstance(fields.get(name), str) or not fields[name]:
                raise Refused("MissingParameter", name)
        if not integer(fields.get("CaptchaAppId")):
            raise Refused("InvalidParameter", "CaptchaAppId must be an integer")

        def code(value, message, evil=0):
            return {"CaptchaCode": value, "CaptchaMsg": message, "EvilLevel": evil, "GetCaptchaTime": 0}

        if fields["CaptchaAppId"] != args.captcha_app_id:
            return code(16, "appid-ticket mismatch")
        if fields["AppSecretKey"] != args.app_secret_key:
            return code(100, "appid-secretkey-ticket mismatch")
        ticket = fields["Ticket"]
        if ticket.startswith("throttled-"):
            raise Refused("RequestLimitExceeded", "request frequency limit exceeded")
        with lock:
            if ticket in used:
                return code(9, "ticket reused")
            used.add(ticket)
        if fields["Randstr"] == "bad":
            return code(7, "captcha no match")
        for prefix, value, message in (("expired-", 8, "ticket expired"), ("diff-", 21, "diff"), ("busy-", 26, "system busy")):
            if ticket.startswith(prefix):
                return code(value, message)
        if ticket.startswith("evil-"):
            return code(1, "OK", evil=100)
        fault(ticket)
        return code(1, "OK")

    tencent_api_fake.serve(args, "DescribeCaptchaResult", "2019-07-22", "captcha", handle, region_required=False)


if __name__ == "__main__":
    main()
