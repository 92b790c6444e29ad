"""The host tools' two kinds of failure, in a module that imports nothing: every
command module raises them without importing ``cli`` (no import inside a function
to dodge a cycle).

- ``UserError``: a problem the user can fix (bad input, a missing tool). ``nardy``
  prints it as one line and exits 2, never with a traceback.
- ``LinkError``: the board went away or did not answer (unplugged, reset, the
  virtual board's process ended, a reply that never came). Every link to a board
  (``link.Link``, ``session.VirtualLink``/``SerialLink``) raises this one type.
"""


class UserError(Exception):
    """A problem the user can fix (bad input, missing tool): printed, exit 2."""


class LinkError(Exception):
    """The board went away or did not answer."""
