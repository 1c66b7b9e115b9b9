"""Line patterns of empty points, per-point threat scores, and the Dong & Zhang board evaluation.

`line_pattern(b, colour, d, p)` is the `P_*` code a `colour` stone on empty p would make along
direction d: one table lookup on the incrementally kept key when k <= TABLE_MAX_K, otherwise the
code kept by `make` from the same classifier run on the cells. Exact under every rule, caro's
both-ends block included (`tables.classify_window`).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .constants import (
    BLACK,
    EMPTY,
    M_HEIGHT,
    M_K,
    M_WIDTH,
    P_FIVE,
    P_FOUR,
    P_FOUR_OPEN,
    P_THREE_BROKEN,
)
from .board import scan_window, to_pos
from .board import sync_layer as sync_patterns  # noqa: F401 -- the name the kernels use

MASK32 = (1 << 32) - 1

# score of one line code for ordering and playout policy (index = P_* code)
LINE_SCORE = np.array([0, 1, 6, 10, 40, 50, 120, 3000, 200000], dtype=np.int64)
FOUR_THREE_BONUS = 2500  # a four plus an open three (or two fours) wins like an open four
DOUBLE_THREE_BONUS = 400

# Dong & Zhang Table 1, rows open / half-closed / closed, column = run length 1..5 (index 0 unused)
DZ_VALUES = np.array(
    [
        [0.0, 1.0, 10.0, 100.0, 1e6, 1e10],
        [0.0, 0.1, 1.0, 10.0, 1000.0, 1e10],
        [0.0, 0.01, 0.1, 1.0, 100.0, 1e10],
    ]
)


@njit(cache=True, nogil=True)
def scan_pattern(b, colour, d, p):
    """`line_pattern` computed from the cells (any k; the from-scratch reference for the table)."""
    w = np.empty(2 * b.meta[M_K] + 1, dtype=np.int8)
    return scan_window(b, colour, d, p, w)


@njit(cache=True, nogil=True, forceinline=True)
def line_pattern(b, colour, d, p):
    """The P_* code of a `colour` stone on empty point p along direction d (0..3).

    Call-free on purpose (numba keeps reference counting out of call-free loops). For k > TABLE_MAX_K
    the codes are only as fresh as the last `sync_patterns(b)`.
    """
    key = b.keys[d, np.uint64(p)]  # unsigned: no wraparound branch (0.7 -> 0.5 ns a lookup)
    if colour == BLACK:
        return b.table[0, np.uint64(key & MASK32)]
    return b.table[1, np.uint64(key >> 32)]


@njit(cache=True, nogil=True)
def point_summary(b, colour, p):
    """(best code, lines with a five, lines with a four (any), lines with an open four, lines with an open three)."""
    best = 0
    fives = 0
    fours = 0
    open_fours = 0
    threes = 0
    for d in range(4):
        c = line_pattern(b, colour, d, p)
        if c > best:
            best = c
        if c == P_FIVE:
            fives += 1
        elif c >= P_FOUR:
            fours += 1
            if c == P_FOUR_OPEN:
                open_fours += 1
        elif c >= P_THREE_BROKEN:
            threes += 1
    return best, fives, fours, open_fours, threes


@njit(cache=True, nogil=True)
def point_score(b, colour, p):
    """How good `colour` on p is for `colour` (sum of line scores plus combination bonuses)."""
    total = 0
    fours = 0
    threes = 0
    for d in range(4):
        c = line_pattern(b, colour, d, p)
        total += LINE_SCORE[c]
        if c == P_FOUR or c == P_FOUR_OPEN:
            fours += 1
        elif c >= P_THREE_BROKEN and c < P_FOUR:
            threes += 1
    if fours >= 2 or (fours >= 1 and threes >= 1):
        total += FOUR_THREE_BONUS
    elif threes >= 2:
        total += DOUBLE_THREE_BONUS
    return total


@njit(cache=True, nogil=True)
def move_score(b, colour, p):
    """Ordering score of `colour` playing p: own gain plus most of what it takes from the opponent."""
    return point_score(b, colour, p) * 5 + point_score(b, 3 - colour, p) * 4


@njit(cache=True, nogil=True)
def run_counts(b, colour, out):
    """Fill out[3, k+1] with `colour`'s maximal runs by ends (0 open, 1 half-closed, 2 closed) and length
    (capped at k), over the four directions: the counting values cv of Dong & Zhang."""
    out[:, :] = 0
    k = b.meta[M_K]
    for y in range(b.meta[M_HEIGHT]):
        for x in range(b.meta[M_WIDTH]):
            p = to_pos(b, x, y)
            if b.cells[p] != colour:
                continue
            for d in range(4):
                s = b.dirs[d]
                if b.cells[p - s] == colour:
                    continue  # not the start of the run
                n = 1
                q = p + s
                while b.cells[q] == colour:
                    n += 1
                    q += s
                closed = (b.cells[p - s] != EMPTY) + (b.cells[q] != EMPTY)
                out[closed, min(n, k)] += 1


@njit(cache=True, nogil=True)
def heuristic(b, colour, attack_lambda):
    """H = sum hv·cv(colour) − λ·sum hv·cv(opponent) (Dong & Zhang eq. 3); lengths scale to k, so run
    length k maps to the table's 5 and k-1 to 4."""
    k = b.meta[M_K]
    counts = np.zeros((3, k + 1), dtype=np.int64)
    h = 0.0
    for side in range(2):
        c = colour if side == 0 else 3 - colour
        run_counts(b, c, counts)
        sub = 0.0
        for e in range(3):
            for n in range(1, k + 1):
                col = 5 - (k - n)
                if col >= 1 and counts[e, n] > 0:
                    sub += DZ_VALUES[e, col] * counts[e, n]
        h += sub if side == 0 else -attack_lambda * sub
    return h


@njit(cache=True, nogil=True)
def bounded(h):
    """Map H into [−1, 1]: sign(H)·log10(1+|H|)/10, so a five (1e10) is ±1, an open four ≈ ±0.6,
    an open three ≈ ±0.2 (a bounded value keeps UCT's averages meaningful, per Lim)."""
    v = math.log10(1.0 + abs(h)) / 10.0
    if v > 1.0:
        v = 1.0
    return v if h >= 0 else -v


@njit(cache=True, nogil=True)
def evaluate(b, colour, attack_lambda):
    """Bounded heuristic value of the position for `colour`, in [−1, 1]."""
    return bounded(heuristic(b, colour, attack_lambda))
