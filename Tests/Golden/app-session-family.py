# Writes Tests/Golden/app-session/account-family.json, a session whose refresh tokens are of format 2 (a family),
# from the format of onetap-app-session/1 with its `familySeed` and `generation` members (run once, in that directory; never again:
# the file is pinned). Python 3 standard library only. The keys are app-session.py's.
import hmac, hashlib, base64, json
def b64u(b): return base64.urlsafe_b64encode(b).rstrip(b'=').decode()
keys = {"k1": b"golden-app-session-key-00000-k1!", "k2": b"golden-app-session-key-00000-k2!"}
def digest(kid, token): return hmac.new(keys[kid], b"onetap-refresh-1\0"+token.encode(), hashlib.sha256).hexdigest()
def token(kid, sid, generation, seed):
    code = hmac.new(keys[kid], b"onetap-refresh-2\0"+sid.encode()+b"\0"+str(generation).encode()+b"\0"+seed, hashlib.sha256).digest()
    return "otr2.%s.%d.%s" % (sid, generation, b64u(code))
# An account's session: its family started at the login under k1 (generation 1), rotated three times under k2,
# on a server that remembers no ancestors (AppSessionPolicy ancestors 0), within the grace of its last rotation.
sid = "Golden-app-session-005"
seed = b"golden-refresh-family-seed-00005"
assert len(seed) == 32
g1 = token("k1", sid, 1, seed); g2 = token("k2", sid, 2, seed); g3 = token("k2", sid, 3, seed); g4 = token("k2", sid, 4, seed)
nonce = bytes(range(97, 129))
text = ('{"format":"onetap-app-session/1","id":"%s","version":5,"account":"42","createdAtMs":1796115660000,'
  '"current":{"kid":"k2","digest":"%s"},"expiresAtMs":1798707960000,'
  '"previous":{"kid":"k2","digest":"%s","rotatedAtMs":1796115960000,"nonce":"%s"},'
  '"ancestors":[],"familySeed":"%s","generation":4}') % (sid, digest("k2", g4), digest("k2", g3), nonce.hex(), seed.hex())
json.loads(text)
open("account-family.json", "w", encoding="utf-8").write(text)
print("tokens:", g1, g2, g3, g4, "generation 5:", token("k2", sid, 5, seed), sep="\n")
