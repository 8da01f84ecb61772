"""Aliyun's signature V3 (ACS3-HMAC-SHA256), recomputed by the fakes from Aliyun's document, not from OneTap's Swift.

Document: "V3版本请求体&签名机制" / "Request syntax and signature method V3",
https://help.aliyun.com/zh/sdk/product-overview/v3-request-structure-and-signature
(https://www.alibabacloud.com/help/en/sdk/product-overview/v3-request-structure-and-signature):
  CanonicalRequest = Method \n CanonicalURI \n CanonicalQueryString \n CanonicalHeaders \n SignedHeaders \n HashedRequestPayload
  CanonicalQueryString: parameters sorted by name, names and values RFC 3986-encoded (unreserved A-Z a-z 0-9 - _ . ~ kept,
    everything else %XX upper case; space %20), name=value joined with &.
  CanonicalHeaders: the x-acs-* headers, host and content-type, names lower case, sorted, values trimmed, "name:value\n" each.
  SignedHeaders: those names joined with ';'.
  HashedRequestPayload = lower-case hex SHA-256 of the body (of "" when there is none), also sent as x-acs-content-sha256.
  StringToSign = "ACS3-HMAC-SHA256\n" + lower-case hex SHA-256 of CanonicalRequest.
  Signature = lower-case hex HMAC-SHA256(AccessKeySecret, StringToSign).
  Authorization: ACS3-HMAC-SHA256 Credential=<AccessKeyId>,SignedHeaders=<SignedHeaders>,Signature=<Signature>
  x-acs-date: UTC, yyyy-MM-ddTHH:mm:ssZ, within 15 minutes of the server's time.
"""
import datetime
import hashlib
import hmac
import re
from urllib.parse import quote

ALGORITHM = "ACS3-HMAC-SHA256"
AUTHORIZATION = re.compile(r"^ACS3-HMAC-SHA256 Credential=([^,]+),SignedHeaders=([^,]+),Signature=([0-9a-f]{64})$")
REQUIRED_HEADERS = ["host", "x-acs-action", "x-acs-content-sha256", "x-acs-date", "x-acs-signature-nonce", "x-acs-version"]


def encode(text):
    return quote(text, safe="-_.~")


def canonical_query(pairs):
    return "&".join(encode(k) + "=" + encode(v) for k, v in sorted(pairs, key=lambda kv: kv[0]))


def canonical_request(method, path, pairs, headers, body):
    """headers: dict of lower-case name -> value (those to sign). Returns (canonical request, signed headers)."""
    names = sorted(headers)
    canonical_headers = "".join("%s:%s\n" % (n, headers[n].strip()) for n in names)
    signed = ";".join(names)
    payload = hashlib.sha256(body).hexdigest()
    return "\n".join([method, path, canonical_query(pairs), canonical_headers, signed, payload]), signed


def signature(secret, canonical):
    to_sign = ALGORITHM + "\n" + hashlib.sha256(canonical.encode()).hexdigest()
    return hmac.new(secret.encode(), to_sign.encode(), hashlib.sha256).hexdigest()


def check(method, path, pairs, headers, body, secrets, action, version, nonces, now=None):
    """Checks a request as Aliyun's gateway does. headers: lower-case names. secrets: AccessKeyId -> secret.
    Returns None when the request is signed right, else (HTTP status, Code)."""
    authorization = headers.get("authorization", "")
    match = AUTHORIZATION.match(authorization)
    if not match:
        return 400, "IncompleteSignature"
    key_id, signed_names, sent_signature = match.groups()
    for name in REQUIRED_HEADERS:
        if not headers.get(name):
            return 400, "MissingParameter"
    if headers["x-acs-action"] != action or headers["x-acs-version"] != version:
        return 404, "InvalidApi.NotFound"
    if key_id not in secrets:
        return 404, "InvalidAccessKeyId.NotFound"
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", headers["x-acs-date"]):
        return 400, "InvalidTimeStamp.Format"
    sent = datetime.datetime.strptime(headers["x-acs-date"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    now = now or datetime.datetime.now(datetime.timezone.utc)
    if abs((now - sent).total_seconds()) > 15 * 60:
        return 400, "InvalidTimeStamp.Expired"
    if headers["x-acs-content-sha256"] != hashlib.sha256(body).hexdigest():
        return 400, "SignatureDoesNotMatch"
    # Every x-acs-* header, host and content-type sent must be signed; the signed names are what the client says.
    to_sign = {n: v for n, v in headers.items() if n.startswith("x-acs-") or n in ("host", "content-type")}
    if sorted(to_sign) != signed_names.split(";"):
        return 400, "SignatureDoesNotMatch"
    canonical, _ = canonical_request(method, path, pairs, to_sign, body)
    if not hmac.compare_digest(signature(secrets[key_id], canonical), sent_signature):
        return 400, "SignatureDoesNotMatch"
    if not nonces(headers["x-acs-signature-nonce"]):
        return 400, "SignatureNonceUsed"
    return None


if __name__ == "__main__":
    # The document's worked example ("签名示例" / "Signature examples", fixed parameter values).
    pairs = [("ImageId", "win2019_1809_x64_dtc_zh-cn_40G_alibase_20230811.vhd"), ("RegionId", "cn-shanghai")]
    headers = {"host": "ecs.cn-shanghai.aliyuncs.com", "x-acs-action": "RunInstances", "x-acs-version": "2014-05-26",
               "x-acs-date": "2023-10-26T10:22:32Z", "x-acs-signature-nonce": "3156853299f313e23d1673dc12e1703d",
               "x-acs-content-sha256": hashlib.sha256(b"").hexdigest()}
    canonical, signed = canonical_request("POST", "/", pairs, headers, b"")
    print(hashlib.sha256(canonical.encode()).hexdigest())
    print(signature("YourAccessKeySecret", canonical))
