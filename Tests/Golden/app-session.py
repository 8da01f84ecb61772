# Writes Tests/Golden/app-session/*.json from the format of onetap-app-session/1 (run once, in that directory;
# never again: the files are pinned). Python 3 standard library only.
import hmac, hashlib, base64, json
def b64u(b): return base64.urlsafe_b64encode(b).rstrip(b'=').decode()
keys = {"k1": b"golden-app-session-key-00000-k1!", "k2": b"golden-app-session-key-00000-k2!"}
assert all(len(v)==32 for v in keys.values())
def digest(kid, token): return hmac.new(keys[kid], b"onetap-refresh-1\0"+token.encode(), hashlib.sha256).hexdigest()
def successor(kid, token, nonce, sid): return "otr1.%s.%s" % (sid, b64u(hmac.new(keys[kid], b"onetap-refresh-successor-1\0"+token.encode()+b"\0"+nonce, hashlib.sha256).digest()))
out = {}
# 1. A fresh guest session.
sid1 = "Golden-app-session-001"
t1 = "otr1.%s.%s" % (sid1, b64u(b"golden-refresh-secret-guest-0001"))
out["guest-fresh"] = ('{"format":"onetap-app-session/1","id":"%s","version":1,"guest":"GoldenGuest-app-000001","createdAtMs":1796115600250,'
  '"current":{"kid":"k1","digest":"%s"},"expiresAtMs":1798707600250,"ancestors":[]}') % (sid1, digest("k1", t1))
# 2. An account's session, rotated three times (the last under k2), within the grace of its last rotation.
sid2 = "Golden-app-session-002"
a0 = "otr1.%s.%s" % (sid2, b64u(b"golden-refresh-secret-account-01"))  # issued at the login, under k1
n1 = bytes(range(1, 33)); a1 = successor("k1", a0, n1, sid2)
n2 = bytes(range(33, 65)); a2 = successor("k2", a1, n2, sid2)   # k2 signs from here
n3 = bytes(range(65, 97)); a3 = successor("k2", a2, n3, sid2)
out["account-rotated"] = ('{"format":"onetap-app-session/1","id":"%s","version":5,"account":"acct-golden-app 账户","createdAtMs":1796115600500,'
  '"current":{"kid":"k2","digest":"%s"},"expiresAtMs":1798707900125,'
  '"previous":{"kid":"k2","digest":"%s","rotatedAtMs":1796115900125,"nonce":"%s"},'
  '"ancestors":[{"kid":"k1","digest":"%s"},{"kid":"k1","digest":"%s"}]}') % (
  sid2, digest("k2", a3), digest("k2", a2), n3.hex(), digest("k1", a1), digest("k1", a0))
# 3. A revoked session: a rotated token presented after the grace.
sid3 = "Golden-app-session-003"
r0 = "otr1.%s.%s" % (sid3, b64u(b"golden-refresh-secret-revoked-01"))
n = bytes([0xa5]*32); r1 = successor("k1", r0, n, sid3)
out["revoked-reuse"] = ('{"format":"onetap-app-session/1","id":"%s","version":3,"guest":"GoldenGuest-app-000003","createdAtMs":1796115601000,'
  '"current":{"kid":"k1","digest":"%s"},"expiresAtMs":1798707610999,'
  '"previous":{"kid":"k1","digest":"%s","rotatedAtMs":1796115610999,"nonce":"%s"},"ancestors":[],'
  '"revokedAtMs":1796115641000,"revocation":"reuse"}') % (sid3, digest("k1", r1), digest("k1", r0), n.hex())
for name, text in out.items():
    json.loads(text)
    open(name + ".json", "w", encoding="utf-8").write(text)
print("tokens:", t1, a0, a1, a2, a3, r0, r1, sep="\n")
