"""GNU Backgammon's own move generator (PyPI gnubg-nn) as the reference for short
nardy. gnubg's board is [opponent, player on roll], each 25 long: index i is the
point i + 1 counted from that side's home, index 24 its bar. Our path point k is
gnubg's point 25 - k."""

import gnubg_nn

from nardy_host.train import to_gnubg


def gnubg_results(pos, dice):
    """Set of resulting boards (as gnubg sees them) for every distinct legal play."""
    board = to_gnubg(pos)
    keys = gnubg_nn.moves(board, dice[0], dice[1], 0)
    if not keys:
        return {_freeze(board)}
    return {_freeze(gnubg_nn.boardfromkey(k)) for k in keys}


def our_results(variant, pos, dice):
    out = set()
    for _, res in variant.legal_turns(pos, dice):
        res.turn = pos.turn  # compare from the mover's side, as gnubg does
        out.add(_freeze(to_gnubg(res)))
    return out


def _freeze(board):
    return (tuple(board[0]), tuple(board[1]))
