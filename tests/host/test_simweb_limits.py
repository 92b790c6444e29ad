"""The simulator server's connection limits (issue 22): a POST from another origin
is refused, a request that does not arrive whole in time is dropped (slowloris),
and the number of connections is capped. A stand-in hub: only the connection
layer is under test here."""

import json
import socket
import urllib.error
import urllib.request

import pytest

from nardy_host.simweb import Server

BOUND = 30       # s: an upper bound on a reply, never a measured time


class _Hub:
    mode = "sim"
    stopping = False
    gid = None
    frame_no = 0
    frames = {"leds": None, "oled": None}

    def __init__(self):
        self.actions = []

    def state(self):
        return {"mode": "sim"}

    def action(self, a):
        self.actions.append(a)
        return {"ok": True, "feed": 0}

    def since(self, i):
        return []


@pytest.fixture()
def server():
    hub = _Hub()
    srv = Server(hub, idle_s=0.5, max_clients=4).start()
    srv.hub_ = hub
    yield srv
    srv.stop()


def _post(srv, path, body, ctype="application/json", headers=None):
    h = {"Content-Type": ctype}
    h.update(headers or {})
    req = urllib.request.Request(srv.url.rstrip("/") + path, data=body, headers=h,
                                 method="POST")
    try:
        with urllib.request.urlopen(req, timeout=BOUND) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


ACTION = json.dumps({"action": "press", "button": "ok"}).encode()
JOURNAL = b'{"r": "game"}\n'


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example"},
    {"Origin": "null"},
    {"Origin": "http://127.0.0.1:1"},            # another port: another origin
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},
], ids=["other-site", "null", "other-port", "fetch-cross-site", "fetch-same-site"])
def test_a_cross_origin_post_is_refused(server, headers):
    # issue 22: any web page could POST a journal to /api/analyse (text/plain: no
    # CORS preflight) and burn this machine's CPU
    for path, body, ctype in (("/api/analyse", JOURNAL, "text/plain"),
                              ("/api/action", ACTION, "application/json")):
        code, reply = _post(server, path, body, ctype, headers)
        assert code == 403 and "cross-origin" in reply["error"], (path, reply)
    assert server.hub_.actions == []


def test_a_same_origin_post_and_a_plain_client_are_served(server):
    own = "http://127.0.0.1:%d" % server.port
    for h in ({"Origin": own, "Sec-Fetch-Site": "same-origin"}, {}):
        code, reply = _post(server, "/api/action", ACTION, headers=h)
        assert code == 200 and reply["ok"], reply
    assert len(server.hub_.actions) == 2


def _connect(srv):
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=BOUND)
    return s


def _read_all(s):
    out = b""
    while True:
        b = s.recv(4096)
        if not b:
            return out
        out += b


def test_a_request_that_does_not_arrive_in_time_is_dropped(server):
    # issue 22: 300 slowloris sockets held 310 descriptors: none was ever timed out
    s = _connect(server)
    s.sendall(b"GET /api/state HTTP/1.0\r\nHost: 127.0.0.1\r\n")   # never ends
    reply = _read_all(s)              # the server closes it (BOUND: never reached)
    s.close()
    assert reply.startswith(b"HTTP/1.0 408"), reply
    s = _connect(server)              # nothing sent at all
    assert _read_all(s).startswith(b"HTTP/1.0 408")
    s.close()


def test_connections_over_the_cap_get_503_and_room_comes_back(server):
    held = [_connect(server) for _ in range(4)]
    for s in held:
        s.sendall(b"G")               # begun, so surely accepted before the next
    extra = _connect(server)
    reply = _read_all(extra)
    extra.close()
    assert reply.startswith(b"HTTP/1.0 503") and b"too many clients" in reply, reply
    for s in held:
        s.close()
    # the idle ones are dropped in time; then a request is served again
    for _ in range(100):
        s = _connect(server)
        s.sendall(b"GET /api/state HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        try:
            reply = _read_all(s)
        except ConnectionResetError:    # refused before it read the request
            reply = b"HTTP/1.0 503"
        s.close()
        if not reply.startswith(b"HTTP/1.0 503"):
            break
    assert reply.startswith(b"HTTP/1.0 200"), reply
