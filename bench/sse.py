"""A page's event stream (Server-Sent Events) read the plain way, for the page
benches (board_page.py, room_page.py): what a browser's EventSource gets, timed on
arrival without a browser in between."""

import http.client
import json
import urllib.parse


def data(url, path, stop):
    """Each ``data:`` item of the stream at ``path`` on ``url``'s server, parsed, as
    it arrives, until ``stop`` is set or the server ends the stream."""
    u = urllib.parse.urlparse(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    c.request("GET", path)
    r = c.getresponse()
    while not stop.is_set():
        ln = r.fp.readline()
        if not ln:
            return
        if ln.startswith(b"data: "):
            yield json.loads(ln[6:])
