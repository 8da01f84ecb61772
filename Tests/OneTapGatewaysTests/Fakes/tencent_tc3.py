#!/usr/bin/env python3
"""Tencent Cloud API 3.0's signature v3 (TC3-HMAC-SHA256), written from Tencent's "签名方法 v3" / "Signature v3"
document (Data/gateways/tencent-sms.md names it), not from OneTap's Swift. Standard library only.

Imported by the Tencent fakes (tencent_sms_send_sms.py, tencent_captcha_describe_captcha_result.py) to check a
request's Authorization header the way Tencent's server does; run alone, it is the cross-check of the worked example:

  tencent_tc3.py example       prints the document's example's canonical request, string to sign and signature
  tencent_tc3.py sign SECRET_KEY SERVICE HOST TIMESTAMP < BODY
                               prints the canonical request, the string to sign and the signature for a POST of BODY
"""
import datetime
import hashlib
import hmac
import re
import sys
import time

ALGORITHM = "TC3-HMAC-SHA256"


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def hmac_sha256(key, message):
    return hmac.new(key, message.encode("utf-8"), hashlib.sha256).digest()


def utc_date(timestamp):
    return datetime.datetime.fromtimestamp(int(timestamp), datetime.timezone.utc).strftime("%Y-%m-%d")


def canonical_request(method, query, headers, signed_headers, body):
    """headers: lower-case name -> value, as received; signed_headers: the names, in the header's order."""
    canonical_headers = "".join("%s:%s\n" % (name, headers.get(name, "").strip().lower()) for name in signed_headers)
    return "\n".join([method, "/", query, canonical_headers, ";".join(signed_headers), sha256_hex(body)])


def string_to_sign(timestamp, scope, canonical):
    return "\n".join([ALGORITHM, str(timestamp), scope, sha256_hex(canonical.encode("utf-8"))])


def signature(secret_key, date, service, to_sign):
    secret_date = hmac_sha256(("TC3" + secret_key).encode("utf-8"), date)
    secret_service = hmac_sha256(secret_date, service)
    secret_signing = hmac_sha256(secret_service, "tc3_request")
    return hmac.new(secret_signing, to_sign.encode("utf-8"), hashlib.sha256).hexdigest()


AUTHORIZATION = re.compile(r"^TC3-HMAC-SHA256 Credential=([^/]+)/(\d{4}-\d{2}-\d{2})/([a-z]+)/tc3_request, "
                           r"SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$")


def check(method, query, headers, body, secrets, service, now=None):
    """Checks a request as Tencent's API does. headers: lower-case name -> value. secrets: SecretId -> SecretKey.
    Returns None, or the common error code the document gives for the first thing wrong."""
    authorization = headers.get("authorization", "")
    match = AUTHORIZATION.match(authorization)
    if not match:
        return "AuthFailure.InvalidAuthorization"
    secret_id, date, scope_service, signed, sent_signature = match.groups()
    if secret_id not in secrets:
        return "AuthFailure.SecretIdNotFound"
    timestamp = headers.get("x-tc-timestamp", "")
    if not timestamp.isdigit():
        return "MissingParameter"
    if abs((now or time.time()) - int(timestamp)) > 300:
        return "AuthFailure.SignatureExpire"
    signed_headers = signed.split(";")
    if "content-type" not in signed_headers or "host" not in signed_headers or signed_headers != sorted(signed_headers):
        return "AuthFailure.InvalidAuthorization"
    if scope_service != service or date != utc_date(timestamp):
        return "AuthFailure.SignatureFailure"
    canonical = canonical_request(method, query, headers, signed_headers, body)
    expected = signature(secrets[secret_id], date, service, string_to_sign(timestamp, "%s/%s/tc3_request" % (date, service), canonical))
    if not hmac.compare_digest(expected, sent_signature):
        return "AuthFailure.SignatureFailure"
    return None


def example():
    # The document's worked example: cvm DescribeInstances in ap-guangzhou at 1551113065.
    body = b'{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}'
    headers = {"content-type": "application/json; charset=utf-8", "host": "cvm.tencentcloudapi.com"}
    canonical = canonical_request("POST", "", headers, ["content-type", "host"], body)
    to_sign = string_to_sign(1551113065, "2019-02-25/cvm/tc3_request", canonical)
    return canonical, to_sign, signature("Gu5t9xGARNpq86cd98joQYCN3EXAMPLE", "2019-02-25", "cvm", to_sign)


def main():
    if sys.argv[1:2] == ["example"]:
        for part in example():
            print(part)
            print("--")
    elif sys.argv[1:2] == ["sign"] and len(sys.argv) == 6:
        secret_key, service, host, timestamp = sys.argv[2:6]
        body = sys.stdin.buffer.read()
        headers = {"content-type": "application/json; charset=utf-8", "host": host}
        canonical = canonical_request("POST", "", headers, ["content-type", "host"], body)
        date = utc_date(timestamp)
        to_sign = string_to_sign(timestamp, "%s/%s/tc3_request" % (date, service), canonical)
        for part in (canonical, to_sign, signature(secret_key, date, service, to_sign)):
            print(part)
            print("--")
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(64)


if __name__ == "__main__":
    main()
