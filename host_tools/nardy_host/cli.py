"""The ``nardy`` command: one sub-command per module, each with ``register()``."""

import argparse
import importlib
import sys

from nardy_host.errors import UserError  # noqa: F401 (cli.UserError: the old home)

# Modules under nardy_host that add a sub-command (each has register(subparsers)).
COMMANDS = ["moves", "sim", "selfplay", "export", "log", "flash", "deploy", "calibrate",
            "script", "live", "duel", "judge", "analyse", "selftest", "netcast"]


def build_parser():
    parser = argparse.ArgumentParser(
        prog="nardy", description="Tools for the electronic nardy board.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        importlib.import_module("nardy_host." + name).register(sub)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args) or 0
    except KeyboardInterrupt:
        return 130
    except UserError as e:
        print("nardy %s: error: %s" % (args.command, e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
