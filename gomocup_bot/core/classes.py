"""Four-direction threat classes of a square, and the tables the board keeps them with.

A square's four line codes (`P_*`, one per direction, what a stone of one colour there makes on
that line) combine into one small integer, the *combo* ``c0 + 13·c1 + 169·c2 + 2197·c3`` (code 9
is renju black's overline maker, 10-12 the open twos and ones of `constants.L_*`). One lookup in
`class_table` turns a combo into a *threat class* (`C_*`, ordered by strength), one lookup in the
ordering tables into the square's move-ordering score.
The board keeps the combo, the class and per-side counts of squares in each class incrementally
(`core.board.make`), so "can the side to move make five", "does the opponent have an open-four
point" are O(1) questions for the search.

Why classes and not raw line codes: tactics are decided by combinations (a four plus an open three
wins like an open four; two open threes win unless blocked at once), and under renju the same
combinations are black's fouls. The ordering follows the strongest classical engines' "pattern4".
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .constants import (
    L_ONE_OPEN,
    L_TWO_FLEX,
    L_TWO_OPEN,
    N_PATTERNS,
    P_FIVE,
    P_FOUR,
    P_FOUR_OPEN,
    P_ONE,
    P_THREE,
    P_THREE_BROKEN,
    P_THREE_OPEN,
    P_TWO,
)

P_OVERLINE = 9  # renju black: a one-line foul shape -- six or more, or two fours on the line (a foul unless a five)
# then the finer twos and ones (`constants.L_*`): P_TWO and P_ONE in the layer are the closed ones
N_CODES = 13
N_COMBOS = N_CODES**4

# threat classes, weakest first
C_NONE = 0
C_FORBID = 1  # renju black: a double three / double four / overline shape (the exact check decides)
C_LOW = 2  # a one somewhere, nothing more
C_TWO = 3  # makes one two
C_TWO2 = 4  # makes two twos
C_CLOSED3 = 5  # makes a closed three (one more stone: a simple four)
C_CLOSED3P = 6  # closed three plus a two or another closed three
C_THREE = 7  # makes an open three
C_THREEP = 8  # open three plus a closed three or a two
C_DOUBLE3 = 9  # two open threes
C_FOUR = 10  # a simple four
C_FOURP = 11  # a simple four plus a closed three or two
C_FOUR3 = 12  # a four plus an open three: wins unless the opponent has a four to counter
C_FLEX4 = 13  # an open four or two fours: wins unless the opponent makes five first
C_FIVE = 14  # five: wins at once
N_CLASSES = 16  # (padded so a side's counts are 16 int32s)

CLASS_NAMES = ("none", "forbid", "low", "two", "two2", "closed3", "closed3+", "three", "three+",
               "double3", "four", "four+", "four3", "flex4", "five")

# move ordering: own class (attack) and the opponent's class on the same square (defence), plus a
# small sum over the square's four line codes (breaks ties between squares of one class)
LINE_ORDER = np.array([0, 0, 1, 1, 3, 3, 3, 8, 12, 0, 1, 1, 0], dtype=np.int32)  # by line code
ATTACK_ORDER = np.array([0, 0, 1, 4, 8, 6, 10, 20, 26, 60, 30, 36, 300, 600, 5000, 0], dtype=np.int32)
DEFEND_ORDER = np.array([0, 0, 1, 3, 6, 4, 7, 14, 18, 40, 22, 26, 200, 400, 3000, 0], dtype=np.int32)


def classify(counts: np.ndarray, renju_black: bool) -> np.ndarray:
    """Threat class for each row of ``counts`` (how many of the four lines carry each code)."""
    n5 = counts[:, P_FIVE]
    n4o = counts[:, P_FOUR_OPEN]
    n4 = counts[:, P_FOUR]
    n3o = counts[:, P_THREE_OPEN] + counts[:, P_THREE_BROKEN]
    n3 = counts[:, P_THREE]
    n2 = counts[:, P_TWO] + counts[:, L_TWO_OPEN] + counts[:, L_TWO_FLEX]
    n1 = counts[:, P_ONE] + counts[:, L_ONE_OPEN]
    novl = counts[:, P_OVERLINE]
    fours = n4o + n4
    out = np.full(len(counts), C_NONE, dtype=np.uint8)
    # assign weakest first; stronger rules overwrite
    out[n1 > 0] = C_LOW
    out[n2 == 1] = C_TWO
    out[n2 >= 2] = C_TWO2
    out[n3 >= 1] = C_CLOSED3
    out[(n3 >= 1) & (n3 + n2 >= 2)] = C_CLOSED3P
    out[n3o == 1] = C_THREE
    out[(n3o == 1) & (n3 + n2 >= 1)] = C_THREEP
    out[n3o >= 2] = C_DOUBLE3
    out[n4 == 1] = C_FOUR
    out[(n4 == 1) & (n3 + n2 >= 1)] = C_FOURP
    out[(n4 == 1) & (n3o >= 1)] = C_FOUR3
    out[(n4o >= 1) | (fours >= 2)] = C_FLEX4
    if renju_black:
        foul = (novl > 0) | (fours >= 2) | (n3o >= 2)
        out[foul] = C_FORBID
    out[n5 > 0] = C_FIVE
    return out


@lru_cache(maxsize=None)
def _combo_counts() -> np.ndarray:
    combos = np.arange(N_COMBOS)
    codes = np.stack([(combos // N_CODES**d) % N_CODES for d in range(4)], axis=1)
    counts = np.zeros((N_COMBOS, N_CODES), dtype=np.int32)
    for d in range(4):
        np.add.at(counts, (combos, codes[:, d]), 1)
    return counts


@lru_cache(maxsize=None)
def combo_tables(renju: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(class uint8[2, N_COMBOS], attack int32[2, N_COMBOS], defence int32[2, N_COMBOS]); row 0
    black, row 1 white. Under renju black's fouls get `C_FORBID` in the class row, while the
    ordering rows keep the plain class (a shape that the exact check finds legal is still ordered
    by what it threatens). Writable on purpose: numba compiles read-only arrays into a far slower
    kernel (measured: make/unmake 400 ns -> 13 us)."""
    counts = _combo_counts()
    plain = classify(counts, False)
    cls = np.stack([classify(counts, renju), plain])
    lines = (counts[:, :N_CODES] * LINE_ORDER[None, :]).sum(axis=1).astype(np.int32)
    attack = np.stack([ATTACK_ORDER[plain] + lines, ATTACK_ORDER[plain] + lines]).astype(np.int32)
    defence = np.stack([DEFEND_ORDER[plain] + lines, DEFEND_ORDER[plain] + lines]).astype(np.int32)
    return cls, attack, defence


def line_code_tables(pattern_table: np.ndarray, renju_foul: np.ndarray | None,
                     eval_codes: np.ndarray | None = None) -> np.ndarray:
    """uint8[2, 3**(2k)]: the board's line-code lookup per colour: ``eval_codes``
    (`tables.eval_code_tables`, the patterns with the finer twos and ones) or else the plain
    patterns. Under renju (``renju_foul`` = `tables.renju_foul_table`) a black window with a
    one-line foul shape and no exact five gets `P_OVERLINE`: its class is then `C_FORBID` and the
    exact check decides, where the plain code would have called an overline a five and a
    same-line double four an open four."""
    out = (pattern_table if eval_codes is None else eval_codes).copy()
    if renju_foul is not None:
        out[0, renju_foul & (pattern_table[0] != P_FIVE)] = P_OVERLINE
    return out


assert N_PATTERNS == 9 and P_OVERLINE == N_PATTERNS
