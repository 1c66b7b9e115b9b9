"""Exact rule checks by scanning the cells: wins under every rule and renju fouls for black.

These are the authority (the pattern table is only a fast filter); they follow the protocol
reference §11 and the precedence of Piskvork's `foulr`: an exact five wins first, then double four,
then double three (a three counts only if its key point is itself legal, recursively), then overline.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .constants import (
    BLACK,
    EMPTY,
    FOUL_DOUBLE_FOUR,
    FOUL_DOUBLE_THREE,
    FOUL_NONE,
    FOUL_OVERLINE,
    M_HEIGHT,
    M_K,
    M_RULE,
    M_WIDTH,
    RULE_CARO,
    RULE_CARO_EXACT,
    RULE_EXACT,
    RULE_RENJU,
    WHITE,
)
from .board import to_pos


@njit(cache=True, nogil=True, forceinline=True)
def run_ends(cells, p, s, colour):
    """Steps back and forward from p over `colour` stones along step s (p itself not examined).
    Unsigned indices (the wall padding keeps them in range) spare numba's negative-index branch."""
    a = 0
    q = p - s
    while cells[np.uint64(q)] == colour:
        a += 1
        q -= s
    f = 0
    q = p + s
    while cells[np.uint64(q)] == colour:
        f += 1
        q += s
    return a, f


@njit(cache=True, nogil=True, forceinline=True)
def line_wins(cells, p, s, colour, k, rule):
    """Does a `colour` stone on p (whatever p holds) complete a winning line along step s?"""
    a, f = run_ends(cells, p, s, colour)
    length = a + f + 1
    if length < k:
        return False
    if rule == RULE_RENJU:
        return colour == WHITE or length == k
    if rule == RULE_EXACT:
        return length == k
    if rule == RULE_CARO or rule == RULE_CARO_EXACT:
        if length > k:
            return rule == RULE_CARO
        other = 3 - colour
        return not (cells[p - (a + 1) * s] == other and cells[p + (f + 1) * s] == other)
    return True


@njit(cache=True, nogil=True)
def is_win_move(b, p, colour):
    """Would a `colour` stone on p win under the board's rule? (p's content is ignored.)"""
    k = b.meta[M_K]
    rule = b.meta[M_RULE]
    for d in range(4):
        if line_wins(b.cells, p, b.dirs[d], colour, k, rule):
            return True
    return False


@njit(cache=True, nogil=True)
def _four_keys(cells, p, s, k, hold, out):
    """Renju black fours on one line: canonical keys (first, last stone) of every exact-k run that one
    more stone completes, restricted to runs holding p and `hold` (-1 = none); returns how many."""
    n = 0
    for i in range(-(k - 1), k):
        if i == 0:
            continue
        q = p + i * s
        if cells[q] != EMPTY:
            continue
        a, f = run_ends(cells, q, s, BLACK)
        if a + f + 1 != k:
            continue
        lo = q - a * s
        hi = q + f * s
        if not (lo <= p <= hi):
            continue
        if hold >= 0 and not (lo <= hold <= hi):
            continue
        # the stones of this four: the run without q; its extreme stones identify it
        first = lo + s if q == lo else lo
        last = hi - s if q == hi else hi
        out[n, 0] = first
        out[n, 1] = last
        n += 1
    return n


@njit(cache=True, nogil=True)
def _distinct_fours(out, n):
    m = 0
    for i in range(n):
        dup = False
        for j in range(i):
            if out[i, 0] == out[j, 0] and out[i, 1] == out[j, 1]:
                dup = True
                break
        if not dup:
            m += 1
    return m


@njit(cache=True, nogil=True)
def _foul_before_threes(cells, dirs, k, p, buf):
    """With black on p: FOUL_NONE for an exact five, FOUL_DOUBLE_FOUR, or -1 - (bitmask of four lines)
    when the threes still have to be examined."""
    for d in range(4):
        a, f = run_ends(cells, p, dirs[d], BLACK)
        if a + f + 1 == k:
            return FOUL_NONE
    fours = 0
    four_dirs = 0
    for d in range(4):
        n = _distinct_fours(buf, _four_keys(cells, p, dirs[d], k, -1, buf))
        if n > 0:
            four_dirs |= 1 << d
        fours += n
    if fours >= 2:
        return FOUL_DOUBLE_FOUR
    return -1 - four_dirs


@njit(cache=True, nogil=True)
def _overline(cells, dirs, k, p):
    for d in range(4):
        a, f = run_ends(cells, p, dirs[d], BLACK)
        if a + f + 1 > k:
            return FOUL_OVERLINE
    return FOUL_NONE


@njit(cache=True, nogil=True)
def _foul(cells, dirs, k, p0, max_depth):
    """Renju foul code of a black stone on empty p0 (cells restored on return).

    The recursion "a three is real only if its key point is legal" runs on an explicit stack (numba
    cannot cache recursive functions); each frame is one point under test, with its scan position.
    """
    buf = np.empty((2 * k, 2), dtype=np.int64)
    fp = np.empty(max_depth, dtype=np.int64)  # point under test
    fd = np.empty(max_depth, dtype=np.int64)  # direction being scanned for key points
    fi = np.empty(max_depth, dtype=np.int64)  # offset of the key point being tried
    fthrees = np.empty(max_depth, dtype=np.int64)
    ffours = np.empty(max_depth, dtype=np.int64)  # bitmask of lines that hold a four
    top = -1
    call_p = p0
    calling = True
    child = -1
    while True:
        if calling:
            calling = False
            if top + 1 >= max_depth:
                # cannot go deeper: treat this key point as legal (never reached on real boards)
                child = FOUL_NONE
            else:
                top += 1
                fp[top] = call_p
                cells[call_p] = BLACK
                r = _foul_before_threes(cells, dirs, k, call_p, buf)
                if r >= 0:
                    cells[call_p] = EMPTY
                    top -= 1
                    if top < 0:
                        return r
                    child = r
                else:
                    fd[top] = 0
                    fi[top] = -(k - 1)
                    fthrees[top] = 0
                    ffours[top] = -1 - r
                    child = -1
        p = fp[top]
        d = fd[top]
        i = fi[top]
        result = -1
        if child >= 0:
            if child == FOUL_NONE:  # the key point is legal: a real three on line d
                fthrees[top] += 1
                if fthrees[top] >= 2:
                    result = FOUL_DOUBLE_THREE
                d += 1
                i = -(k - 1)
            else:
                i += 1
            child = -1
        found = -1
        if result < 0:
            while d < 4:
                if ffours[top] & (1 << d):
                    d += 1
                    i = -(k - 1)
                    continue
                s = dirs[d]
                while i < k:
                    if i != 0:
                        q = p + i * s
                        if cells[q] == EMPTY:
                            a, f = run_ends(cells, q, s, BLACK)
                            if a + f + 1 < k:  # a five or overline here is not a straight four
                                cells[q] = BLACK
                                n = _four_keys(cells, p, s, k, q, buf)
                                straight = _distinct_fours(buf, n) < n
                                cells[q] = EMPTY
                                if straight:
                                    found = q
                                    break
                    i += 1
                if found >= 0:
                    break
                d += 1
                i = -(k - 1)
        if found >= 0:
            fd[top] = d
            fi[top] = i
            call_p = found
            calling = True
            continue
        if result < 0:
            result = _overline(cells, dirs, k, p)
        cells[p] = EMPTY
        top -= 1
        if top < 0:
            return result
        child = result


@njit(cache=True, nogil=True)
def renju_foul(b, p):
    """The renju foul (FOUL_* code) a black stone on empty p would commit; FOUL_NONE when legal or
    when the rule is not renju."""
    if b.meta[M_RULE] != RULE_RENJU or b.cells[p] != EMPTY:
        return FOUL_NONE
    return _foul(b.cells, b.dirs, b.meta[M_K], p, b.stack.shape[0])


@njit(cache=True, nogil=True)
def is_legal(b, p, colour):
    """Empty and, for renju black, not a foul."""
    if b.cells[p] != EMPTY:
        return False
    if colour == BLACK and b.meta[M_RULE] == RULE_RENJU:
        return _foul(b.cells, b.dirs, b.meta[M_K], p, b.stack.shape[0]) == FOUL_NONE
    return True


@njit(cache=True, nogil=True)
def forbidden_points(b, out):
    """Fill `out` (int32, >= width*height) with black's forbidden points (renju only); returns the count.

    The answer to YXSHOWFORBID.
    """
    n = 0
    if b.meta[M_RULE] != RULE_RENJU:
        return 0
    k = b.meta[M_K]
    for y in range(b.meta[M_HEIGHT]):
        for x in range(b.meta[M_WIDTH]):
            p = to_pos(b, x, y)
            if b.cells[p] == EMPTY and _foul(b.cells, b.dirs, k, p, b.stack.shape[0]) != FOUL_NONE:
                out[n] = p
                n += 1
    return n


@njit(cache=True, nogil=True)
def move_outcome(b, p, colour):
    """What playing `colour` on empty p does: +1 wins, -1 loses (renju foul), 0 game goes on.

    A renju exact five wins before any foul is considered (precedence rule 1).
    """
    if colour == BLACK and b.meta[M_RULE] == RULE_RENJU:
        if _foul(b.cells, b.dirs, b.meta[M_K], p, b.stack.shape[0]) != FOUL_NONE:
            return -1
    return 1 if is_win_move(b, p, colour) else 0
