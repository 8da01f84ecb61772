"""What China Mobile's fakes share beyond http_behaviours (its serving loop and fault answers): the JSON handler's
plumbing, reading a JSON POST, China Mobile's 17-digit UTC+8 time, and first-use state. The vendor rules stay in each
fake, written from its document. Standard library only.
"""
import datetime
import json
import threading
import fake_faults

from http_behaviours import answer_fault, serve  # noqa: F401 (serve: re-exported for the fakes)


CHINA = datetime.timezone(datetime.timedelta(hours=8))


def china_time17():
    """Now at UTC+8 as China Mobile's 17 digits, yyyyMMddHHmmssSSS."""
    now = datetime.datetime.now(CHINA)
    return now.strftime("%Y%m%d%H%M%S") + "%03d" % (now.microsecond // 1000)


class State:
    """Counts requests and remembers the values of each kind (token, msgid) a fake has seen."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seen = {}
        self.requests = 0

    def count_request(self):
        with self.lock:
            self.requests += 1

    def first_use(self, kind, value):
        with self.lock:
            seen = self.seen.setdefault(kind, set())
            if value in seen:
                return False
            seen.add(value)
            return True


NOT_FOUND = object()  # posted_json's answer for another path


class FakeHandler(fake_faults.Handler):
    """fake_faults' handler with reply() (send_body's name here); GET is refused."""

    def reply(self, status, body, content_type=None):
        self.send_body(status, body, content_type)

    def do_GET(self):
        self.reply(405, b'{"error":"POST only"}')

    def posted_json(self, path):
        """Reads a POST's body: the JSON value, None when it is not JSON sent as application/json, or NOT_FOUND when
        the path is not `path` (answered 404)."""
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path != path:
            self.reply(404, b'{"error":"no such path"}')
            return NOT_FOUND
        if (self.headers.get("Content-Type") or "").split(";")[0].strip().lower() != "application/json":
            return None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None


    def token_fault(self, token, partial, malformed):
        """Answers the fault the token's prefix names (http_behaviours.answer_fault), with a malformed body of its own:
        True when answered (the caller returns), False to answer as usual (after 3 s for slow-*). partial: the start
        of a JSON answer cut short; malformed: a body that is not JSON."""
        if token.startswith("malformed-"):
            self.reply(200, malformed)
            return True
        return answer_fault(self, token, partial)
