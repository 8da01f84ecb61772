#!/usr/bin/env python3
"""A fake of China Telecom's 天翼账号 open API (open.e.189.cn): the user-info call (accessToken -> mobileName) and the
refresh of the month-long accessToken (refreshToken.do), on loopback.

Written from the public sources Data/gateways/tianyi.md names (integrators' public code for userInfo.do, the login
box's XXTEA `paras` + HMAC-SHA1 sample, refreshToken.do callers, OneTap's TianyiRefreshResponse reading), not from
OneTap's Swift: it checks every field those sources name and the signature, decrypts `paras` with its own XXTEA
(tianyi_xxtea.py), and answers as they show. Standard library only.

Two request forms are accepted, each checked exactly:
  encrypted: appId, clientType, format, version, paras, sign; paras = XXTEA(app secret, "name=value&..."),
             sign = HMAC(sign key, appId + clientType + format + version + paras) in hex
  plain:     clientId, clientType, format, version, sign and the call's parameters in the clear;
             sign = HMAC(sign key, the values of every other field, concatenated in the order of their names)
The call's parameters: userInfo.do: accessToken, timeStamp [, clientIp]; refreshToken.do: refreshToken,
grantType=refresh_token, timeStamp [, clientIp]. timeStamp: milliseconds, within 10 minutes of now.

No public source gives the open API's error codes (only result 0 = success and a non-zero result with msg), so every
refusal answers a non-zero `result` that is plainly this fake's, never a guess at China Telecom's:
  FAKE_BAD_REQUEST (a field missing, extra, repeated or malformed; a stale timeStamp), FAKE_APP_UNKNOWN (another
  appId), FAKE_SIGN_ERROR, FAKE_PARAS_ERROR (paras does not decrypt), FAKE_TOKEN_INVALID, FAKE_REFRESH_REFUSED.

Run: tianyi_open_api.py --app-id ID --app-secret S --number 18912345678 [--sign-secret S2] [--sign-digest sha1|md5]
     [--sign-case upper|lower]
Prints its port on stdout's first line; serves until stdin closes.

Tokens (accessToken or refreshToken) choose a fault after the request was checked:
  expired-* / revoked-*  FAKE_TOKEN_INVALID / FAKE_REFRESH_REFUSED
  slow-*        the answer after 3 s
  plain-*       the success answer under Content-Type text/plain;charset=UTF-8 (the document shows no content type)
  status-NNN-*  HTTP status NNN
  truncated-*   a Content-Length longer than the body sent, then the connection closed
  malformed-*   200 application/json, not JSON
  html-*        200 text/html
"""
import argparse
import hashlib
import hmac
import json
import os
import re
import secrets
import sys
import time
from urllib.parse import parse_qsl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import http_behaviours  # noqa: E402
import tianyi_xxtea  # noqa: E402

USER_INFO = "/api/oauth2/account/userInfo.do"
REFRESH = "/api/oauth2/refreshToken.do"
COMMON_ENCRYPTED = ["appId", "clientType", "format", "version", "paras", "sign"]
COMMON_PLAIN = ["clientId", "clientType", "format", "version", "sign"]
CALLS = {USER_INFO: ["accessToken", "timeStamp"], REFRESH: ["refreshToken", "grantType", "timeStamp"]}
MONTH = 30 * 24 * 3600


class Refused(Exception):
    def __init__(self, code, msg):
        super().__init__(msg)
        self.code, self.msg = code, msg


def signature(args, text):
    key = (args.sign_secret or args.app_secret).encode("utf-8")
    digest = hashlib.sha1 if args.sign_digest == "sha1" else hashlib.md5
    tag = hmac.new(key, text.encode("utf-8"), digest).hexdigest()
    return tag.upper() if args.sign_case == "upper" else tag


def call_parameters(args, path, fields):
    """The call's parameters, after the form, the app and the signature were checked."""
    names = [name for name, _ in fields]
    if len(set(names)) != len(names):
        raise Refused("FAKE_BAD_REQUEST", "a field is repeated")
    form = dict(fields)
    if "paras" in form:
        if sorted(names) != sorted(COMMON_ENCRYPTED):
            raise Refused("FAKE_BAD_REQUEST", "the encrypted form takes exactly " + ", ".join(COMMON_ENCRYPTED))
        app = form["appId"]
    else:
        app = form.get("clientId")
        allowed = COMMON_PLAIN + CALLS[path] + ["clientIp"]
        if any(n not in allowed for n in names) or any(n not in names for n in COMMON_PLAIN + CALLS[path]):
            raise Refused("FAKE_BAD_REQUEST", "the plain form takes " + ", ".join(allowed))
    if form["format"] != "json" or not form["clientType"] or not form["version"]:
        raise Refused("FAKE_BAD_REQUEST", "format must be json; clientType and version must be given")
    if app != args.app_id:
        raise Refused("FAKE_APP_UNKNOWN", "no such app")
    if "paras" in form:
        signed = form["appId"] + form["clientType"] + form["format"] + form["version"] + form["paras"]
    else:
        signed = "".join(value for name, value in sorted(fields) if name != "sign")
    if not hmac.compare_digest(form["sign"], signature(args, signed)):
        raise Refused("FAKE_SIGN_ERROR", "sign error")
    if "paras" in form:
        plain = tianyi_xxtea.decrypt_hex(form["paras"], args.app_secret)
        if plain is None:
            raise Refused("FAKE_PARAS_ERROR", "paras does not decrypt")
        pairs = [part.partition("=") for part in plain.split("&")]
        params = [(name, value) for name, _, value in pairs]
        pnames = [name for name, _ in params]
        allowed = CALLS[path] + ["clientIp"]
        if len(set(pnames)) != len(pnames) or any(n not in allowed for n in pnames) or any(n not in pnames for n in CALLS[path]):
            raise Refused("FAKE_BAD_REQUEST", "paras takes " + ", ".join(allowed))
        params = dict(params)
    else:
        params = {name: form[name] for name in CALLS[path] + ["clientIp"] if name in form}
    if not re.fullmatch(r"\d{13}", params["timeStamp"]) or abs(time.time() * 1000 - int(params["timeStamp"])) > 600_000:
        raise Refused("FAKE_BAD_REQUEST", "timeStamp must be now in milliseconds")
    if path == REFRESH and params["grantType"] != "refresh_token":
        raise Refused("FAKE_BAD_REQUEST", "grantType must be refresh_token")
    return params


def make_handler(args):
    class Handler(http_behaviours.Handler):
        def answer(self, media_type="application/json;charset=UTF-8", **members):
            self.send_body(200, json.dumps(members).encode(), media_type)

        def do_GET(self):
            self.send_body(405, b'{"error":"POST only"}')

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if self.path not in CALLS:
                return self.send_body(404, b'{"error":"no such path"}')
            media = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            try:
                if media != "application/x-www-form-urlencoded":
                    raise Refused("FAKE_BAD_REQUEST", "the body must be a form")
                try:
                    fields = parse_qsl(raw.decode("utf-8"), keep_blank_values=True, strict_parsing=True)
                except (UnicodeDecodeError, ValueError):
                    raise Refused("FAKE_BAD_REQUEST", "the body is not a form")
                params = call_parameters(args, self.path, fields)
            except Refused as refused:
                return self.answer(result=refused.code, msg=refused.msg)
            token = params["accessToken"] if self.path == USER_INFO else params["refreshToken"]
            if token.startswith("expired-"):
                return self.answer(result="FAKE_TOKEN_INVALID", msg="accessToken invalid")
            if token.startswith("revoked-"):
                return self.answer(result="FAKE_REFRESH_REFUSED", msg="refreshToken invalid")
            if http_behaviours.answer_fault(self, token, b'{"result":0,"mobileName":"18912345678"'):
                return
            media_type = "text/plain;charset=UTF-8" if token.startswith("plain-") else "application/json;charset=UTF-8"
            if self.path == USER_INFO:
                return self.answer(media_type, result=0, msg="success", mobileName=args.number)
            return self.answer(media_type, result=0, msg="success", accessToken="AT-" + secrets.token_hex(16),
                               refreshToken="RT-" + secrets.token_hex(16), expiresIn=str(MONTH))

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--app-id", required=True)
    parser.add_argument("--app-secret", required=True)
    parser.add_argument("--number", required=True)
    parser.add_argument("--sign-secret")
    parser.add_argument("--sign-digest", choices=["sha1", "md5"], default="sha1")
    parser.add_argument("--sign-case", choices=["upper", "lower"], default="upper")
    args = parser.parse_args()
    http_behaviours.serve(make_handler(args))


if __name__ == "__main__":
    main()
