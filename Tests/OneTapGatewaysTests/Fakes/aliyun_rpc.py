"""What Aliyun's RPC gateway does before an API runs, for the fakes of PNVS and SMS (standard library only).

From Aliyun's documents (Data/gateways/aliyun-pnvs.md and aliyun-sms.md name them): an RPC API is POST (or GET) to
the endpoint's "/", its parameters in the query string, signed with signature V3 (aliyun_acs3.py); the answer is a JSON
object with Code, Message and RequestId. A gateway-level error comes with a 4xx status and the same shape
(SignatureDoesNotMatch, InvalidAccessKeyId.NotFound, SignatureNonceUsed, InvalidTimeStamp.Expired, Missing<Parameter>).

Faults chosen by a value the test controls (a token, a number), after the request was checked: the shared ones of
http_behaviours.answer_fault (slow-*, status-NNN-*, truncated-*, malformed-*, html-*).
"""
import json
import uuid
from urllib.parse import urlsplit, parse_qsl

import aliyun_acs3
import fake_faults
import http_behaviours
from fake_faults import Once as Nonces  # noqa: F401 (the fakes' nonce memory: Once.first_use)


class RPCHandler(fake_faults.Handler):
    """Subclasses set ACTIONS = {action: (version, [required parameters])} and implement answer(action, params)."""
    ACTIONS = {}
    secrets = {}
    nonces = None

    def answer_json(self, status, code, **members):
        body = {"RequestId": str(uuid.uuid4()).upper(), "Code": code, "Message": members.pop("message", code)}
        body.update(members)
        self.send_body(status, json.dumps(body, ensure_ascii=False).encode())

    def fault(self, kind):
        """Plays the fault a value names (http_behaviours.answer_fault); True when one was played."""
        return http_behaviours.answer_fault(self, kind, b'{"Code":"OK","RequestId":"x"')

    def handle_rpc(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        if url.path != "/":
            return self.answer_json(404, "InvalidApi.NotFound")
        pairs = parse_qsl(url.query, keep_blank_values=True)
        headers = {k.lower(): v for k, v in self.headers.items()}
        action = headers.get("x-acs-action", "")
        if action not in self.ACTIONS:
            return self.answer_json(404, "InvalidApi.NotFound")
        version, required = self.ACTIONS[action]
        refused = aliyun_acs3.check(self.command, "/", pairs, headers, body, self.secrets, action, version, self.nonces.first_use)
        if refused:
            return self.answer_json(refused[0], refused[1])
        params = dict(pairs)
        if len(params) != len(pairs):
            return self.answer_json(400, "InvalidParameter")
        for name in required:
            if not params.get(name):
                return self.answer_json(400, "Missing" + name)
        self.answer(action, params)

    do_POST = handle_rpc
    do_GET = handle_rpc


# Served by http_behaviours' loop: a loopback port printed on stdout's first line, until stdin closes.
serve = http_behaviours.serve
