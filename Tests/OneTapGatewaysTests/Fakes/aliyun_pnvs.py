#!/usr/bin/env python3
"""A fake of Aliyun's 号码认证服务 (PNVS) GetMobile and VerifyMobile (dypnsapi.aliyuncs.com, version 2017-05-25), on loopback.

Written from Aliyun's public documents (Data/gateways/aliyun-pnvs.md names them), not from OneTap's Swift: the
signature V3 is recomputed (aliyun_acs3.py), the parameters checked, and the answers shaped as the documents show:
  GetMobile(AccessToken[, OutId])                -> {"Code":"OK","GetMobileResultDTO":{"Mobile":"<11 digits>"},...}
  VerifyMobile(AccessCode, PhoneNumber[, OutId]) -> {"Code":"OK","GateVerifyResultDTO":{"VerifyId":"…","VerifyResult":"PASS|REJECT|UNKNOWN"},...}

Run: aliyun_pnvs.py --access-key-id ID --secret SECRET --number 13800138000
Prints its port on stdout's first line; serves until stdin closes.

Tokens choose the answer (each token is used once; a second use is isv.TOKEN_INVALID, as is expired-*):
  verify-*   a number-verification token: GetMobile answers isv.TOKEN_UNAUTHORIZED_USED
  unknown-*  VerifyMobile answers UNKNOWN
  slow-*, status-NNN-*, truncated-*, malformed-*, html-*: the faults of aliyun_rpc.py
VerifyMobile answers PASS when PhoneNumber is --number, REJECT otherwise; a PhoneNumber that is not 11 digits is
isv.MOBILE_NUMBER_ILLEGAL.
"""
import argparse
import re
import threading

import aliyun_rpc

VERSION = "2017-05-25"


def make_handler(args):
    tokens, lock = set(), threading.Lock()

    def first_use(token):
        with lock:
            if token in tokens:
                return False
            tokens.add(token)
            return True

    class Handler(aliyun_rpc.RPCHandler):
        ACTIONS = {"GetMobile": (VERSION, ["AccessToken"]), "VerifyMobile": (VERSION, ["AccessCode", "PhoneNumber"])}
        secrets = {args.access_key_id: args.secret}
        nonces = aliyun_rpc.Nonces()

        def answer(self, action, params):
            token = params["AccessToken" if action == "GetMobile" else "AccessCode"]
            if action == "VerifyMobile" and not re.fullmatch(r"1\d{10}", params["PhoneNumber"]):
                return self.answer_json(200, "isv.MOBILE_NUMBER_ILLEGAL")
            if not first_use(token) or token.startswith("expired-"):
                return self.answer_json(200, "isv.TOKEN_INVALID")
            if action == "GetMobile" and token.startswith("verify-"):
                return self.answer_json(200, "isv.TOKEN_UNAUTHORIZED_USED")
            if self.fault(token):
                return
            if action == "GetMobile":
                return self.answer_json(200, "OK", message="请求成功", GetMobileResultDTO={"Mobile": args.number})
            result = "UNKNOWN" if token.startswith("unknown-") else "PASS" if params["PhoneNumber"] == args.number else "REJECT"
            return self.answer_json(200, "OK", message="请求成功", GateVerifyResultDTO={"VerifyId": "121343241", "VerifyResult": result})

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--access-key-id", required=True)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--number", required=True)
    aliyun_rpc.serve(make_handler(parser.parse_args()))


if __name__ == "__main__":
    main()
