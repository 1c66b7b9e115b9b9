"""Immediate-threat checks, cheap enough for every tree node.

All lists are points in `out` (int32, >= width·height), functions return the count. "Legal" means
empty and, for renju black, not a foul. Win points are exact under every rule: the line codes
are (caro's both-ends block included, `tables.classify_window`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .constants import (
    BLACK,
    EMPTY,
    M_HEIGHT,
    M_K,
    M_RULE,
    M_WIDTH,
    P_FIVE,
    P_FOUR,
    P_FOUR_OPEN,
    P_THREE_BROKEN,
    RULE_RENJU,
)
from .board import make, to_pos, unmake
from .patterns import line_pattern, sync_patterns
from .rules import is_legal

# threat_check statuses
TC_QUIET = 0  # nothing urgent: search normally
TC_WIN = 1  # out = the side's winning points: play one
TC_LOSS = 2  # opponent has two or more win points (or the only block is a renju foul): out = them
TC_BLOCK = 3  # opponent has exactly one win point: out = [it], the only move that does not lose
TC_ATTACK = 4  # the side can make an open four, double four or four-three: out = those moves
TC_DEFEND = 5  # opponent threatens an open four: out = blocking moves + the side's own fours


@njit(cache=True, nogil=True, forceinline=True)
def wins_at(b, p, colour):
    """Does `colour` win by playing empty p? (The line codes are exact under every rule.)"""
    for d in range(4):
        if line_pattern(b, colour, d, p) == P_FIVE:
            return True
    return False


@njit(cache=True, nogil=True)
def _drop_fouls(b, colour, out, n):
    """Keep only legal points (a second pass, so the scanning loops stay call-free)."""
    if colour != BLACK or b.meta[M_RULE] != RULE_RENJU:
        return n
    m = 0
    for j in range(n):
        if is_legal(b, out[j], colour):
            out[m] = out[j]
            m += 1
    return m


@njit(cache=True, nogil=True)
def win_points(b, colour, out):
    """Every empty point where `colour` wins at once."""
    sync_patterns(b)
    n = 0
    for y in range(b.meta[M_HEIGHT]):
        base = to_pos(b, 0, y)
        for x in range(b.meta[M_WIDTH]):
            p = base + x
            if b.cells[p] == EMPTY and b.nbr[p] > 0 and wins_at(b, p, colour):
                out[n] = p
                n += 1
    return n


@njit(cache=True, nogil=True)
def win_points_through(b, p, colour, out, n):
    """Append to out[n:] the empty points on the four lines through p (within k−1) where `colour`
    wins along that line; returns the new count (duplicates skipped)."""
    sync_patterns(b)
    k = b.meta[M_K]
    for d in range(4):
        s = b.dirs[d]
        for i in range(-(k - 1), k):
            q = p + i * s
            if i == 0 or b.cells[q] != EMPTY:
                continue
            if line_pattern(b, colour, d, q) == P_FIVE:
                dup = False
                for j in range(n):
                    if out[j] == q:
                        dup = True
                        break
                if not dup:
                    out[n] = q
                    n += 1
    return n


@njit(cache=True, nogil=True)
def four_points(b, colour, out):
    """Legal points where `colour` makes at least one four (simple or open), fives excluded."""
    sync_patterns(b)
    n = 0
    for y in range(b.meta[M_HEIGHT]):
        base = to_pos(b, 0, y)
        for x in range(b.meta[M_WIDTH]):
            p = base + x
            if b.cells[p] != EMPTY or b.nbr[p] == 0:
                continue
            four = False
            for d in range(4):
                c = line_pattern(b, colour, d, p)
                if c == P_FOUR or c == P_FOUR_OPEN:
                    four = True
                    break
            if four:
                out[n] = p
                n += 1
    return _drop_fouls(b, colour, out, n)


@njit(cache=True, nogil=True)
def _is_winning_shape(b, colour, p):
    fours = 0
    threes = 0
    for d in range(4):
        c = line_pattern(b, colour, d, p)
        if c == P_FOUR_OPEN:
            fours += 2
        elif c == P_FOUR:
            fours += 1
        elif c >= P_THREE_BROKEN:
            threes += 1
    return fours >= 2 or (fours == 1 and threes >= 1)


@njit(cache=True, nogil=True)
def threat_moves(b, colour, out):
    """Legal points where `colour` makes an open four, a double four or a four-three."""
    sync_patterns(b)
    n = 0
    for y in range(b.meta[M_HEIGHT]):
        base = to_pos(b, 0, y)
        for x in range(b.meta[M_WIDTH]):
            p = base + x
            if b.cells[p] == EMPTY and b.nbr[p] > 0 and _is_winning_shape(b, colour, p):
                out[n] = p
                n += 1
    return _drop_fouls(b, colour, out, n)


@njit(cache=True, nogil=True)
def open_four_points(b, colour, out):
    """Legal points where `colour` makes an open four (its open threes' key points)."""
    sync_patterns(b)
    n = 0
    for y in range(b.meta[M_HEIGHT]):
        base = to_pos(b, 0, y)
        for x in range(b.meta[M_WIDTH]):
            p = base + x
            if b.cells[p] != EMPTY or b.nbr[p] == 0:
                continue
            hit = False
            for d in range(4):
                if line_pattern(b, colour, d, p) == P_FOUR_OPEN:
                    hit = True
                    break
            if hit:
                out[n] = p
                n += 1
    return _drop_fouls(b, colour, out, n)


@njit(cache=True, nogil=True)
def _still_open_four(b, colour, pts, m):
    for j in range(m):
        a = pts[j]
        if b.cells[a] != EMPTY:
            continue
        for d in range(4):
            if line_pattern(b, colour, d, a) == P_FOUR_OPEN:
                return True
    return False


@njit(cache=True, nogil=True)
def _append_unique(out, n, p):
    for j in range(n):
        if out[j] == p:
            return n
    out[n] = p
    return n + 1


@njit(cache=True, nogil=True)
def defence_points(b, colour, out):
    """`colour`'s replies to the opponent's open threes: points after which the opponent has no
    open-four point left, plus `colour`'s own four moves (forcing counter-play). 0 when the opponent
    has no open three."""
    size = b.meta[M_WIDTH] * b.meta[M_HEIGHT]
    opp = 3 - colour
    threats = np.empty(size, dtype=np.int32)
    m = open_four_points(b, opp, threats)
    if m == 0:
        return 0
    k = b.meta[M_K]
    n = 0
    for j in range(m):
        a = threats[j]
        for d in range(4):
            if line_pattern(b, opp, d, a) != P_FOUR_OPEN:
                continue
            s = b.dirs[d]
            for i in range(-k, k + 1):
                q = a + i * s
                if b.cells[q] != EMPTY:
                    continue
                seen = False
                for t in range(n):
                    if out[t] == q:
                        seen = True
                        break
                if seen or not is_legal(b, q, colour):
                    continue
                make(b, q, colour)
                sync_patterns(b)
                still = _still_open_four(b, opp, threats, m)
                unmake(b)
                if not still:
                    out[n] = q
                    n += 1
    fours = np.empty(size, dtype=np.int32)
    f = four_points(b, colour, fours)
    for j in range(f):
        n = _append_unique(out, n, fours[j])
    return n


@njit(cache=True, nogil=True)
def threat_check(b, colour, out):
    """The layered tactical check for `colour` to move; returns (TC_* status, count in out).

    Order: own win now > opponent's win points (block or lost) > own open-four/4-4/4-3 > defend
    against the opponent's open three > quiet.
    """
    n = win_points(b, colour, out)
    if n > 0:
        return TC_WIN, n
    n = win_points(b, 3 - colour, out)
    if n >= 2:
        return TC_LOSS, n
    if n == 1:
        if not is_legal(b, out[0], colour):
            return TC_LOSS, 1
        return TC_BLOCK, 1
    n = threat_moves(b, colour, out)
    if n > 0:
        return TC_ATTACK, n
    n = defence_points(b, colour, out)
    if n > 0:
        return TC_DEFEND, n
    return TC_QUIET, 0
