"""``nardy live --port PORT``: the simulator's page for a real board over USB serial."""


def register(sub):
    from nardy_host import simweb
    simweb.register_live(sub)
