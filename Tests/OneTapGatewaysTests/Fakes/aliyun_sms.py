#!/usr/bin/env python3
"""A fake of Aliyun's 短信服务 SendSms (dysmsapi.aliyuncs.com, version 2017-05-25), on loopback.

Written from Aliyun's public documents (Data/gateways/aliyun-sms.md names them), not from OneTap's Swift: the
signature V3 is recomputed (aliyun_acs3.py); PhoneNumbers, SignName, TemplateCode and TemplateParam (a JSON string of
the template's variables, each a string) are checked; the answer is {"Code","Message","BizId","RequestId"}.

Run: aliyun_sms.py --access-key-id ID --secret SECRET --sign-name NAME --template-code SMS_1 --variable code
Prints its port on stdout's first line; serves until stdin closes. GET /_sent?number=N (not Aliyun's) answers the
TemplateParam last sent to N, so a test can see the code arrived in the template.

Numbers choose the answer (after every check):
  13800000011 isv.MOBILE_NUMBER_ILLEGAL   13800000012 isv.BUSINESS_LIMIT_CONTROL   13800000013 isv.DAY_LIMIT_CONTROL
  13800000014 isv.OUT_OF_SERVICE          13800000001 slow    13800000500 / 13800000503 status 500 / 503
  13800000002 truncated                   13800000003 malformed                    13800000004 html
Any other 11-digit number (with or without +86/0086/86) is OK; anything else isv.MOBILE_NUMBER_ILLEGAL.
"""
import argparse
import json
import re
import threading
from urllib.parse import urlsplit, parse_qs

import aliyun_rpc

VERSION = "2017-05-25"
CODES = {"13800000011": "isv.MOBILE_NUMBER_ILLEGAL", "13800000012": "isv.BUSINESS_LIMIT_CONTROL",
         "13800000013": "isv.DAY_LIMIT_CONTROL", "13800000014": "isv.OUT_OF_SERVICE"}
FAULTS = {"13800000001": "slow-", "13800000500": "status-500-", "13800000503": "status-503-", "13800000002": "truncated-",
          "13800000003": "malformed-", "13800000004": "html-"}


def make_handler(args):
    sent, lock = {}, threading.Lock()

    class Handler(aliyun_rpc.RPCHandler):
        ACTIONS = {"SendSms": (VERSION, ["PhoneNumbers", "SignName", "TemplateCode"])}
        secrets = {args.access_key_id: args.secret}
        nonces = aliyun_rpc.Nonces()

        def do_GET(self):
            url = urlsplit(self.path)
            if url.path == "/_sent":
                with lock:
                    value = sent.get(parse_qs(url.query).get("number", [""])[0])
                return self.send_body(200, json.dumps({"TemplateParam": value}).encode())
            return self.handle_rpc()

        def answer(self, action, params):
            match = re.fullmatch(r"(?:\+86|0086|86)?(1\d{10})", params["PhoneNumbers"])
            if not match:
                return self.answer_json(200, "isv.MOBILE_NUMBER_ILLEGAL")
            number = match.group(1)
            if params["SignName"] != args.sign_name:
                return self.answer_json(200, "isv.SMS_SIGNATURE_ILLEGAL")
            if params["TemplateCode"] != args.template_code:
                return self.answer_json(200, "isv.SMS_TEMPLATE_ILLEGAL")
            try:
                variables = json.loads(params.get("TemplateParam", ""))
            except ValueError:
                return self.answer_json(200, "isv.INVALID_JSON_PARAM")
            if not isinstance(variables, dict) or any(not isinstance(v, str) for v in variables.values()):
                return self.answer_json(200, "isv.INVALID_JSON_PARAM")
            if args.variable not in variables:
                return self.answer_json(200, "isv.TEMPLATE_MISSING_PARAMETERS")
            if number in CODES:
                return self.answer_json(200, CODES[number])
            if number in FAULTS and self.fault(FAULTS[number]):
                return
            with lock:
                sent[number] = params["TemplateParam"]
            return self.answer_json(200, "OK", message="OK", BizId="900619746936498440^0")

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--access-key-id", required=True)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--sign-name", required=True)
    parser.add_argument("--template-code", required=True)
    parser.add_argument("--variable", default="code")
    aliyun_rpc.serve(make_handler(parser.parse_args()))


if __name__ == "__main__":
    main()
