"""A real broker for the tests (Debian's mosquitto on 127.0.0.1, a free port), the
MQTT client the board runs (micropython-lib's umqtt.simple, from PyPI, never copied
into the repository) and a subscriber (paho-mqtt) that keeps what it gets."""

import contextlib
import getpass
import json
import os
import shutil
import socket
import subprocess
import threading
import time

import paho.mqtt.client as paho

# micropython-lib's umqtt.simple (fetched from PyPI, checked against its pinned hash,
# compiled: never copied into the repository) and the network's heap, as the
# simulator's pair of boards (``nardy sim --pair``) has them
from nardy_host.umqttlib import NET_HEAP, umqtt_lib  # noqa: F401

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mosquitto:
    """mosquitto on 127.0.0.1:``port``; ``users``: {name: password} (then anonymous
    logins are refused); ``acl``: an ACL file's text; ``tls``: (certfile, keyfile).
    Persistent: a restart keeps subscriptions and queued messages (as a club's
    broker would)."""

    def __init__(self, workdir, port=None, users=None, acl=None, tls=None):
        self.dir = workdir
        os.makedirs(workdir, exist_ok=True)
        self.port = port or free_port()
        conf = ["listener %d 127.0.0.1" % self.port]
        if tls is not None:         # (certfile, keyfile): the listener speaks TLS only
            conf += ["certfile " + tls[0], "keyfile " + tls[1]]
        conf += ["persistence true",
                "persistence_location %s/" % workdir, "autosave_interval 1",
                "autosave_on_changes true", "log_dest file %s/log" % workdir,
                # as root mosquitto drops to the "mosquitto" user, which cannot read
                # a test's private directory: it stays the user who runs the tests
                "user " + getpass.getuser()]
        if users:
            pw = os.path.join(workdir, "passwd")
            open(pw, "w").close()
            for u, p in users.items():
                subprocess.run(["mosquitto_passwd", "-b", pw, u, p], check=True)
            conf += ["allow_anonymous false", "password_file " + pw]
        if acl is not None:         # the text of an ACL file (docs/NETWORK.md's)
            path = os.path.join(workdir, "acl")
            with open(path, "w") as f:
                f.write(acl)
            # (the denials are logged at debug level: a test waits for them)
            conf += ["acl_file " + path, "log_type all"]
        else:
            conf.append("allow_anonymous true")
        self.conf = os.path.join(workdir, "mosquitto.conf")
        with open(self.conf, "w") as f:
            f.write("\n".join(conf) + "\n")
        self.p = None
        self.start()

    def start(self):
        self.p = subprocess.Popen([MOSQUITTO, "-c", self.conf],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        with open(self.conf) as f:
            raise RuntimeError("mosquitto did not start: " + f.read())

    def log(self):
        try:
            with open(os.path.join(self.dir, "log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def stop(self):
        if self.p is not None and self.p.poll() is None:
            self.p.terminate()
            self.p.wait(timeout=10)
        self.p = None


class Subscriber:
    """paho-mqtt on ``topic`` (QoS 1, a session the broker keeps across reconnects):
    ``got`` lists (topic, payload as JSON or text, retained) in arrival order."""

    made = 0

    def __init__(self, port, topic="nardy/#", user=None, password=None, tls_ca=None):
        self.got = []
        self.lock = threading.Lock()
        self.topic = topic
        Subscriber.made += 1        # each its own client id: a second with the same
        self.c = paho.Client(paho.CallbackAPIVersion.VERSION2,   # id would take over
                             client_id="sub-%d-%d" % (os.getpid(), Subscriber.made),
                             clean_session=False)
        if user:
            self.c.username_pw_set(user, password)
        if tls_ca:
            self.c.tls_set(ca_certs=tls_ca)
        self.c.reconnect_delay_set(0.1, 1)
        self.subscribed = threading.Event()
        self.c.on_connect = self._on_connect
        self.c.on_subscribe = lambda *a: self.subscribed.set()
        self.c.on_message = self._on_message
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        assert self.subscribed.wait(10), "the subscriber did not subscribe"

    def _on_connect(self, client, userdata, flags, rc, props=None):
        client.subscribe(self.topic, qos=1)

    def _on_message(self, client, userdata, msg):
        try:
            body = json.loads(msg.payload)
        except ValueError:
            body = msg.payload.decode()
        with self.lock:
            self.got.append((msg.topic, body, msg.retain))

    def events(self):
        with self.lock:
            return [b for t, b, _ in self.got if t.endswith("/event")]

    def wait_for(self, cond, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if cond(self):
                return True
            time.sleep(0.05)
        return False

    def close(self):
        self.c.loop_stop()
        self.c.disconnect()


def dedup(events):
    """The events by (game, seq), each once, in first-arrival order: a subscriber's
    view (QoS 1 may repeat a message whose acknowledgement was lost)."""
    seen = set()
    out = []
    for e in events:
        k = (e["game"], e["seq"])
        if k not in seen:
            seen.add(k)
            out.append(e)
    return out


class Proxy:
    """A TCP relay from a free port on 127.0.0.1 to the broker's ``port``: a board
    connected through it loses its link (and only it) on ``cut()``, as a board whose
    Wi-Fi drops; it may connect again at once."""

    def __init__(self, port):
        self.target = port
        self.srv = socket.socket()
        self.srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(8)
        self.port = self.srv.getsockname()[1]
        self.lock = threading.Lock()
        self.open = []
        self.cuts = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.srv.accept()
            except OSError:
                return
            try:
                u = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                c.close()
                continue
            u.settimeout(None)
            with self.lock:
                self.open += [c, u]
            for a, b in ((c, u), (u, c)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a, b):
        try:
            while True:
                data = a.recv(4096)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self):
        """Every connection through the relay is closed now."""
        with self.lock:
            socks, self.open = self.open, []
        for s in socks:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
        self.cuts += 1

    def close(self):
        self.srv.close()
        self.cut()
