"""The search's view of a position: the engine core's padded flat grid plus a "stones nearby" counter.

Why a view of its own: the search kernels need a handful of O(1) operations on one compact
state (place/remove a stone, "does this stone win", "is this square near the fight") that can be
copied cheaply per thread. The state is three numpy arrays:

* ``cells``  int8, the core's layout (`gomocup_bot.core.board.new_board`): ``pad = max(k, 5)`` wall
  cells (3) on every side, row stride ``s = w + 2 * pad``, square (x, y) at ``(y + pad) * s + x + pad``.
  The same indices as a core `Board` of that size, so the core's raw-cells rule kernels (the
  renju foul check ``rules._foul``, which reads up to k cells past a point) run on it unchanged.
* ``near``   int16, same shape: number of stones within Chebyshev distance 2 of a square;
  empty squares with ``near > 0`` are the move candidates (the practical article's distance-2 set).
  Wall cells may count stones too; every reader checks ``cells[p] == EMPTY`` first.
* ``geo``    int64[12]: ``w, h, s, k, rule, stones_on_board, pad, 0`` and the four direction
  steps (->, down, down-right, down-left: the core's ``dirs``) at ``G_DIRS``.

Rules are small integers (``RULE_*``, the core's codes). Under renju black wins only with an
exact five, and black's forbidden squares (`is_foul`, the core's exact check behind a cheap
necessary-condition filter) are never generated as black moves by the search kernels.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from gomocup_bot.core.constants import FOUL_NONE, TABLE_MAX_K
from gomocup_bot.core.rules import _foul

EMPTY = 0
BLACK = 1
WHITE = 2
WALL = 3

RULE_FREESTYLE = 0
RULE_EXACT = 1
RULE_CARO = 2
RULE_CARO_EXACT = 3
RULE_RENJU = 4

G_W, G_H, G_S, G_K, G_RULE, G_COUNT, G_PAD = 0, 1, 2, 3, 4, 5, 6
G_DIRS = 8  # geo[G_DIRS:G_DIRS + 4]: the core's direction steps
G_LEN = 12


def rule_id(rules) -> int:
    """Map a `protocol.rules.Rules` value to the search's rule id."""
    if rules.renju:
        return RULE_RENJU
    if rules.caro:
        return RULE_CARO_EXACT if rules.exact_five else RULE_CARO
    return RULE_EXACT if rules.exact_five else RULE_FREESTYLE


def new_board(width: int, height: int, k: int = 5, rule: int = RULE_FREESTYLE):
    """Empty ``(cells, near, geo)`` for a ``width`` x ``height`` board and win length ``k``."""
    pad = max(k, TABLE_MAX_K)  # the core's pad (core.board.new_board); tests compare the layouts
    s = width + 2 * pad
    size = (height + 2 * pad) * s
    cells = np.full(size, WALL, dtype=np.int8)
    for y in range(height):
        base = (y + pad) * s + pad
        cells[base:base + width] = EMPTY
    near = np.zeros(size, dtype=np.int16)
    geo = np.zeros(G_LEN, dtype=np.int64)
    geo[G_W], geo[G_H], geo[G_S], geo[G_K], geo[G_RULE], geo[G_PAD] = width, height, s, k, rule, pad
    geo[G_DIRS:G_DIRS + 4] = (1, s, s + 1, s - 1)
    return cells, near, geo


def board_from_position(position, k: int | None = None):
    """Build ``(cells, near, geo)`` from an `engine.Position` (blocked squares become walls)."""
    rule = rule_id(position.rules)
    cells, near, geo = new_board(position.width, position.height, k or position.win_length, rule)
    for x, y, c in position.stones:
        p = to_index(x, y, geo)
        if c == WALL:
            cells[p] = WALL
        elif cells[p] == EMPTY:
            place(cells, near, geo, p, c)
    return cells, near, geo


def to_index(x: int, y: int, geo) -> int:
    pad = int(geo[G_PAD])
    return (y + pad) * int(geo[G_S]) + x + pad


def to_xy(p: int, geo) -> tuple[int, int]:
    s = int(geo[G_S])
    pad = int(geo[G_PAD])
    return int(p % s - pad), int(p // s - pad)


@njit(cache=True, nogil=True)
def dir_step(geo, d):
    """Offset of direction d (0: row, 1: column, 2: diagonal, 3: anti-diagonal)."""
    return geo[G_DIRS + d]


@njit(cache=True, nogil=True)
def row_start(geo, y):
    """Index of square (0, y); the row's squares follow at +1 .. +w-1 (scans visit only these)."""
    pad = geo[G_PAD]
    return (y + pad) * geo[G_S] + pad


@njit(cache=True, nogil=True)
def place(cells, near, geo, p, c):
    """Put colour c on empty square p and update the neighbourhood counter."""
    cells[p] = c
    _touch(near, geo, p, 1)
    geo[G_COUNT] += 1


@njit(cache=True, nogil=True)
def remove(cells, near, geo, p):
    """Take the stone off square p (undo of `place`)."""
    cells[p] = EMPTY
    _touch(near, geo, p, -1)
    geo[G_COUNT] -= 1


@njit(cache=True, nogil=True)
def _touch(near, geo, p, delta):
    # pad >= 5: the 5x5 box around a board square never leaves the array (walls count too)
    s = geo[G_S]
    for dy in range(-2, 3):
        row = p + dy * s
        near[row - 2] += delta
        near[row - 1] += delta
        near[row] += delta
        near[row + 1] += delta
        near[row + 2] += delta


@njit(cache=True, nogil=True)
def run_length(cells, p, step, c):
    """How many stones of colour c follow p (exclusive) in direction +step."""
    n = 0
    q = p + step
    while cells[q] == c:
        n += 1
        q += step
    return n


@njit(cache=True, nogil=True)
def wins_at(cells, geo, p, c):
    """Would colour c win by playing on empty square p, under the board's rule?"""
    k = geo[G_K]
    rule = geo[G_RULE]
    opp = 3 - c
    for d in range(4):
        st = dir_step(geo, d)
        a = run_length(cells, p, st, c)
        b = run_length(cells, p, -st, c)
        n = a + b + 1
        if n < k:
            continue
        if rule == RULE_FREESTYLE:
            return True
        if rule == RULE_EXACT:
            if n == k:
                return True
            continue
        if rule == RULE_RENJU:
            if c == WHITE or n == k:
                return True
            continue
        # caro: a five with opponent stones just beyond both ends does not win (the edge is no block)
        if rule == RULE_CARO and n > k:
            return True
        if n == k:
            e1 = cells[p + (a + 1) * st]
            e2 = cells[p - (b + 1) * st]
            if not (e1 == opp and e2 == opp):
                return True
    return False


@njit(cache=True, nogil=True)
def reach(cells, p, step, limit):
    """How many squares (at most ``limit``) lie on the board from p in direction +step."""
    n = 0
    q = p + step
    while n < limit and cells[q] != WALL:
        n += 1
        q += step
    return n


@njit(cache=True, nogil=True)
def is_candidate(cells, near, p):
    return cells[p] == EMPTY and near[p] > 0


@njit(cache=True, nogil=True)
def centre(geo):
    return row_start(geo, geo[G_H] // 2) + geo[G_W] // 2


@njit(cache=True, nogil=True)
def five_points(cells, near, geo, c, out):
    """Write the empty squares where c wins at once into ``out``; return how many (at most len(out))."""
    n = 0
    w = geo[G_W]
    for y in range(geo[G_H]):
        base = row_start(geo, y)
        for p in range(base, base + w):
            if cells[p] == EMPTY and near[p] > 0 and wins_at(cells, geo, p, c):
                if n < out.shape[0]:
                    out[n] = p
                n += 1
    return n


@njit(cache=True, nogil=True)
def first_five_point(cells, near, geo, c):
    """One square where c wins at once, or -1."""
    w = geo[G_W]
    for y in range(geo[G_H]):
        base = row_start(geo, y)
        for p in range(base, base + w):
            if cells[p] == EMPTY and near[p] > 0 and wins_at(cells, geo, p, c):
                return p
    return -1


@njit(cache=True, nogil=True)
def five_points_through(cells, geo, p, c, out, n):
    """Append to ``out[n:]`` the squares where c wins at once on the lines through p.

    Only lines through a freshly placed stone can gain a five-point, which lets playouts track
    threats incrementally. Returns the new count (duplicates are possible and harmless).
    """
    k = geo[G_K]
    for d in range(4):
        st = dir_step(geo, d)
        for sign in (1, -1):
            q = p
            for _ in range(k):
                q += sign * st
                v = cells[q]
                if v == WALL or v == 3 - c:
                    break
                if v == EMPTY:
                    # a five through p needs own stones all the way from p to q
                    if wins_at(cells, geo, q, c):
                        if n < out.shape[0]:
                            out[n] = q
                            n += 1
                    break
    return n


@njit(cache=True, nogil=True)
def makes_four(cells, near, geo, p, c):
    """Does playing c on empty p create at least one square where c then wins at once?"""
    k = geo[G_K]
    cells[p] = c
    found = False
    for d in range(4):
        st = dir_step(geo, d)
        for sign in (1, -1):
            q = p
            for _ in range(k):
                q += sign * st
                v = cells[q]
                if v == WALL or v == 3 - c:
                    break
                if v == EMPTY:
                    if wins_at(cells, geo, q, c):
                        found = True
                    break
            if found:
                break
        if found:
            break
    cells[p] = EMPTY
    return found


@njit(cache=True, nogil=True)
def count_new_fives(cells, geo, p, c, buf):
    """With c already on p: the number of distinct five-points of c on the lines through p."""
    n = five_points_through(cells, geo, p, c, buf, 0)
    distinct = 0
    for i in range(n):
        dup = False
        for j in range(i):
            if buf[j] == buf[i]:
                dup = True
                break
        if not dup:
            distinct += 1
    return distinct


# --------------------------------------------------------------------------- renju fouls
@njit(cache=True, nogil=True)
def _black_within(cells, p, st):
    """Black stones at most 4 steps from p along +st, counted up to the first white stone or wall."""
    n = 0
    q = p
    for _ in range(4):
        q += st
        v = cells[q]
        if v == BLACK:
            n += 1
        elif v != EMPTY:
            break
    return n


@njit(cache=True, nogil=True)
def may_be_foul(cells, geo, p):
    """Cheap necessary condition for a renju foul of black on empty p.

    Every foul needs black company on p's lines, within 4 steps and before any white stone or
    wall: an overline or two fours on one line need 3 such stones on that line, a four 3, a
    three 2 -- so a foul needs one line with >= 3 or two lines with >= 2. Most candidate squares
    fail this and skip the exact (recursive) check.
    """
    lines2 = 0
    for d in range(4):
        st = geo[G_DIRS + d]
        m = _black_within(cells, p, st) + _black_within(cells, p, -st)
        if m >= 3:
            return True
        if m == 2:
            lines2 += 1
    return lines2 >= 2


@njit(cache=True, nogil=True)
def is_foul(cells, geo, p):
    """Is a black stone on empty p a renju foul (overline, double four, double three)? The core's
    exact check (`core.rules._foul`, exact five first, recursive three legality), on our cells."""
    if not may_be_foul(cells, geo, p):
        return False
    return _foul(cells, geo[G_DIRS:G_DIRS + 4], geo[G_K], p, geo[G_W] * geo[G_H] + 1) != FOUL_NONE


@njit(cache=True, nogil=True)
def fouls_apply(geo, c):
    """Must moves of colour c be checked for renju fouls? (The one rule branch per node.)"""
    return c == BLACK and geo[G_RULE] == RULE_RENJU


@njit(cache=True, nogil=True)
def is_legal_for(cells, geo, p, c):
    """Empty, and not a renju foul when c is black under renju."""
    if cells[p] != EMPTY:
        return False
    if c == BLACK and geo[G_RULE] == RULE_RENJU:
        return not is_foul(cells, geo, p)
    return True


@njit(cache=True, nogil=True)
def foul_points(cells, geo, out):
    """Black's forbidden squares under renju into ``out`` (board order); returns the count (0
    under other rules). Same answer as the core's `forbidden_points` on the same stones."""
    if geo[G_RULE] != RULE_RENJU:
        return 0
    n = 0
    w = geo[G_W]
    for y in range(geo[G_H]):
        base = row_start(geo, y)
        for p in range(base, base + w):
            if cells[p] == EMPTY and is_foul(cells, geo, p):
                out[n] = p
                n += 1
    return n
