#!/usr/bin/env python3
"""The common part of the Tencent Cloud API 3.0 fakes (standard library only), written from Tencent's "请求结构",
"公共参数", "签名方法 v3" and "返回结果" documents (Data/gateways/tencent-sms.md names them), not from OneTap's Swift:
POST / with a JSON body, the common parameters in X-TC-* headers, the TC3-HMAC-SHA256 signature checked by
tencent_tc3.check, and every answer {"Response": {..., "RequestId": ...}} with HTTP 200, a failure as
{"Response": {"Error": {"Code": ..., "Message": ...}, "RequestId": ...}}.

An API's fake calls serve(action, version, service, handle, region_required): handle(fields, fault) returns the
Response's members, or raises Refused(code). `fault(value)` hands a value the test chose to http_behaviours.answer_fault:
its prefix (slow-, status-NNN-, truncated-, malformed-, html-) makes the answer slow (3 s), an HTTP status,
truncated, not JSON, or text/html after the request was checked.
"""
import argparse
import json
import uuid

import fake_faults
import http_behaviours
import tencent_tc3

# The content type of the signature document's example, signed as sent.
CONTENT_TYPE = "application/json; charset=utf-8"
REGIONS = {"ap-beijing", "ap-guangzhou", "ap-nanjing", "ap-shanghai", "ap-chengdu", "ap-chongqing", "ap-hongkong", "ap-singapore"}


class Refused(Exception):
    def __init__(self, code, message="refused by the fake"):
        super().__init__(code)
        self.code = code
        self.message = message


def arguments(extra):
    parser = argparse.ArgumentParser()
    parser.add_argument("--secret-id", required=True)
    parser.add_argument("--secret-key", required=True)
    extra(parser)
    return parser.parse_args()


def serve(args, action, version, service, handle, region_required):
    secrets = {args.secret_id: args.secret_key}

    class Handler(fake_faults.Handler):
        json_content_type = "application/json"

        def answer(self, members):
            members = dict(members)
            members["RequestId"] = str(uuid.uuid4())
            self.send_body(200, json.dumps({"Response": members}, ensure_ascii=False).encode("utf-8"))

        def error(self, code, message="refused by the fake"):
            self.answer({"Error": {"Code": code, "Message": message}})

        def do_GET(self):
            self.error("InvalidParameter", "the fake serves POST with a JSON body")

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            headers = {k.lower(): v for k, v in self.headers.items()}
            if self.path != "/":
                return self.send_body(404, b'{"error":"no such path"}')
            if headers.get("content-type") != CONTENT_TYPE:
                return self.error("InvalidParameter", "content-type")
            if headers.get("x-tc-action") != action:
                return self.error("InvalidAction")
            if headers.get("x-tc-version") != version:
                return self.error("NoSuchVersion")
            region = headers.get("x-tc-region")
            if (region_required and region is None) or (region is not None and region not in REGIONS):
                return self.error("UnsupportedRegion" if region else "MissingParameter")
            refused = tencent_tc3.check("POST", "", headers, body, secrets, service)
            if refused:
                return self.error(refused)
            try:
                fields = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                return self.error("InvalidParameter", "body is not JSON")
            if not isinstance(fields, dict):
                return self.error("InvalidParameter", "body is not an object")
            faults = []
            try:
                members = handle(fields, faults.append)
            except Refused as refusal:
                return self.error(refusal.code, refusal.message)
            if faults and http_behaviours.answer_fault(self, faults[0], b'{"Response": {"RequestId": "x"'):
                return
            return self.answer(members)

    http_behaviours.serve(Handler)


