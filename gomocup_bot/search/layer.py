"""Questions on the core board's pattern layer shared by the alpha-beta (`search.pvs`) and the
threat-space search (`search.vct`): where is a square of a given threat class, may a side play a
square (renju fouls), and the move-list sort both searches use. A module of its own so the
alpha-beta can call the threat search without an import cycle."""
from __future__ import annotations

from numba import njit

from gomocup_bot.core.classes import C_FORBID
from gomocup_bot.core.constants import EMPTY, M_HEIGHT, M_PAD, M_RULE, M_STRIDE, M_WIDTH, RULE_RENJU
from gomocup_bot.core.rules import is_legal


@njit(cache=True, nogil=True, _nrt=False)
def find_class(b, side_i, cls, last):
    """A square where colour side_i+1 has class ``cls``: first on the lines through ``last``
    (where a new threat comes from), else anywhere; -1 if none."""
    if last > 0:
        for d in range(4):
            s = b.dirs[d]
            for i in range(-4, 5):
                q = last + i * s
                if i != 0 and b.cells[q] == EMPTY and b.cls[side_i, q] == cls:
                    return q
    w = b.meta[M_WIDTH]
    for y in range(b.meta[M_HEIGHT]):
        base = (y + b.meta[M_PAD]) * b.meta[M_STRIDE] + b.meta[M_PAD]
        for q in range(base, base + w):
            if b.cells[q] == EMPTY and b.cls[side_i, q] == cls:
                return q
    return -1


@njit(cache=True, nogil=True, forceinline=True)
def legal_for(b, q, side):
    """Can ``side`` play empty q? (renju: black's foul shapes get the exact check)."""
    if side == 1 and b.cls[0, q] == C_FORBID and b.meta[M_RULE] == RULE_RENJU:
        return is_legal(b, q, side)
    return True


@njit(cache=True, nogil=True, _nrt=False)
def sort_moves(w, base0, n):
    """Insertion sort of moves[base0:base0+n] by score, best first."""
    for i in range(1, n):
        q = w.moves[base0 + i]
        sc = w.scores[base0 + i]
        j = i - 1
        while j >= 0 and w.scores[base0 + j] < sc:
            w.moves[base0 + j + 1] = w.moves[base0 + j]
            w.scores[base0 + j + 1] = w.scores[base0 + j]
            j -= 1
        w.moves[base0 + j + 1] = q
        w.scores[base0 + j + 1] = sc
