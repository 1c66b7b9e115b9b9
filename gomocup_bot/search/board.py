"""The search's view of a position: a padded flat grid plus a "stones nearby" counter.

Why a view of its own: the search kernels need a handful of O(1) operations on one compact
state (place/remove a stone, "does this stone win", "is this square near the fight") that can be
copied cheaply per thread. The state is three numpy arrays and a small geometry vector:

* ``cells``  int8, ``(h + 2) * s + 2`` entries with ``s = w + 1``: square (x, y) lives at
  ``(y + 1) * s + x + 1``; every other entry is a wall (3). One wall column serves as both the
  left and the right border, so a scan that stops at the first wall never leaves the array.
* ``near``   int16, same shape: number of stones within Chebyshev distance 2 of a square;
  empty squares with ``near > 0`` are the move candidates (the practical article's distance-2 set).
* ``geo``    int64[8]: ``w, h, s, k, rule, stones_on_board, 0, 0``.

Rules are small integers (``RULE_*``); renju's forbidden points for black are not judged here
(a renju foul check belongs to the engine core) -- black only wins with an exact five.
"""
from __future__ import annotations

import numpy as np
from numba import njit

EMPTY = 0
BLACK = 1
WHITE = 2
WALL = 3

RULE_FREESTYLE = 0
RULE_EXACT = 1
RULE_CARO = 2
RULE_CARO_EXACT = 3
RULE_RENJU = 4

G_W, G_H, G_S, G_K, G_RULE, G_COUNT = 0, 1, 2, 3, 4, 5


def rule_id(rules) -> int:
    """Map a `protocol.rules.Rules` value to the search's rule id."""
    if rules.renju:
        return RULE_RENJU
    if rules.caro:
        return RULE_CARO_EXACT if rules.exact_five else RULE_CARO
    return RULE_EXACT if rules.exact_five else RULE_FREESTYLE


def new_board(width: int, height: int, k: int = 5, rule: int = RULE_FREESTYLE):
    """Empty ``(cells, near, geo)`` for a ``width`` x ``height`` board and win length ``k``."""
    s = width + 1
    size = (height + 2) * s + 2
    cells = np.full(size, WALL, dtype=np.int8)
    for y in range(height):
        base = (y + 1) * s + 1
        cells[base:base + width] = EMPTY
    near = np.zeros(size, dtype=np.int16)
    geo = np.zeros(8, dtype=np.int64)
    geo[G_W], geo[G_H], geo[G_S], geo[G_K], geo[G_RULE] = width, height, s, k, rule
    return cells, near, geo


def board_from_position(position, k: int | None = None):
    """Build ``(cells, near, geo)`` from an `engine.Position` (blocked squares become walls)."""
    rule = rule_id(position.rules)
    cells, near, geo = new_board(position.width, position.height, k or position.win_length, rule)
    s = int(geo[G_S])
    for x, y, c in position.stones:
        p = (y + 1) * s + x + 1
        if c == WALL:
            cells[p] = WALL
        elif cells[p] == EMPTY:
            place(cells, near, geo, p, c)
    return cells, near, geo


def to_index(x: int, y: int, geo) -> int:
    return (y + 1) * int(geo[G_S]) + x + 1


def to_xy(p: int, geo) -> tuple[int, int]:
    s = int(geo[G_S])
    return int((p - 1) % s), int((p - 1) // s - 1)


@njit(cache=True, nogil=True)
def dir_step(geo, d):
    """Offset of direction d (0: row, 1: column, 2: diagonal, 3: anti-diagonal)."""
    s = geo[G_S]
    if d == 0:
        return 1
    if d == 1:
        return s
    if d == 2:
        return s + 1
    return s - 1


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
    s = geo[G_S]
    w = geo[G_W]
    h = geo[G_H]
    x = (p - 1) % s
    y = (p - 1) // s - 1
    for dy in range(-2, 3):
        yy = y + dy
        if yy < 0 or yy >= h:
            continue
        for dx in range(-2, 3):
            xx = x + dx
            if xx < 0 or xx >= w:
                continue
            near[(yy + 1) * s + xx + 1] += delta


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
    s = geo[G_S]
    return (geo[G_H] // 2 + 1) * s + geo[G_W] // 2 + 1


@njit(cache=True, nogil=True)
def five_points(cells, near, geo, c, out):
    """Write the empty squares where c wins at once into ``out``; return how many (at most len(out))."""
    n = 0
    size = cells.shape[0]
    for p in range(size):
        if cells[p] == EMPTY and near[p] > 0 and wins_at(cells, geo, p, c):
            if n < out.shape[0]:
                out[n] = p
            n += 1
    return n


@njit(cache=True, nogil=True)
def first_five_point(cells, near, geo, c):
    """One square where c wins at once, or -1."""
    size = cells.shape[0]
    for p in range(size):
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
