"""Host tools for the nardy board: the ``nardy`` command (CPython)."""
