"""``nardy live --port PORT``: the simulator's page for a real board over USB serial.

The page (``simweb``, microdot) is imported only when the command runs, so the
``nardy`` command also starts where microdot is not installed (``pypy3 -m
nardy_host.cli selfplay``)."""


def register(sub):
    p = sub.add_parser(
        "live", help="the simulator's page for a real board on USB serial",
        description="Serve the simulator's page for a board on a serial port: its "
                    "position, OLED and events mirrored (the board asked for them after "
                    "each change). Only 127.0.0.1 is served.")
    p.add_argument("--port", required=True, metavar="PORT",
                   help="the board's serial port (/dev/ttyACM0, COM5, a pty)")
    p.add_argument("--http-port", type=int, default=0, metavar="N",
                   help="web server port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-browser", action="store_true", help="do not open the browser")
    p.set_defaults(func=run_live)


def run_live(args):
    from nardy_host import simweb
    return simweb.run_live(args)
