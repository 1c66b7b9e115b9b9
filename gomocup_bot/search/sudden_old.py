"""The old board view's level-k minimax and VCF (`search/board.py`), kept only for `search/tactics.py`
(the root checks of caro and k > 5) until it moves off the view; delete with `search/board.py`.
The MCTS's level-k minimax is `search/sudden.py`, on the core board.

Exact short-horizon win/loss search: Li's level-k minimax, and a VCF solver.

Li (2018, §4.1) detects a level-k sudden win/death with a depth-k minimax whose leaves score
+1/-1 for a finished game and 0 otherwise. Searched full-width that is hopeless on 15x15, but
most of the width is provably irrelevant, which keeps the answer exact while the work stays small
(values are for the side to move; ``d`` = plies left):

* d <= 0: 0.  A win-in-1 for the mover: +1.  d == 1 otherwise: 0.
* the opponent has two squares that win at once: -1 (one stone blocks only one; not for caro,
  where a stone beyond the end can also spoil a five -- caro falls back to full width);
  exactly one: the block is the only move worth searching.
* no opponent five-square and d == 2: 0 (my stone cannot give the opponent a five).
* d == 3: only moves that make a four can reach +1; every other move scores exactly 0.
* d >= 4: every empty square within distance 2 of a stone, plus one far square standing for all
  of them (a stone farther away touches no window that can fill up within 4 plies, k = 5).

Under renju black's forbidden squares are no moves at all: never generated for black, and a
black block that would have to stand on one is no block (the node is lost). Far squares are never
fouls, but under renju they are not quite interchangeable (a distant stone can decide whether a
black three is real), so there the far-square shortcut is a close approximation, not exact.

`vcf` searches victory by continuous fours for the attacker with a node budget; black's fours
on forbidden squares are not fours, and a white four whose only block is a black foul wins.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from gomocup_bot.search.board import (
    EMPTY,
    G_H,
    G_RULE,
    G_W,
    RULE_CARO,
    RULE_CARO_EXACT,
    first_five_point,
    five_points,
    fouls_apply,
    is_foul,
    makes_four,
    place,
    remove,
    row_start,
    wins_at,
)

UNKNOWN = 2  # returned when the node budget or the stop flag cut the search short


@njit(cache=True, nogil=True)
def _stopped(stop, counter):
    counter[0] += 1
    return stop[0] != 0 or (counter[1] > 0 and counter[0] > counter[1])


@njit(cache=True, nogil=True)
def sudden(cells, near, geo, c, d, stop, counter):
    """Value in {-1, 0, +1} for side c with d plies to go (exact, see module doc); UNKNOWN if cut."""
    if _stopped(stop, counter):
        return UNKNOWN
    if d <= 0:
        return 0
    if first_five_point(cells, near, geo, c) >= 0:
        return 1
    if d == 1:
        return 0
    opp = 3 - c
    fbuf = np.empty(4, dtype=np.int64)
    nf = five_points(cells, near, geo, opp, fbuf)
    rule = geo[G_RULE]
    caro = rule == RULE_CARO or rule == RULE_CARO_EXACT
    fouls = fouls_apply(geo, c)
    if nf > 0 and not caro:
        if nf >= 2:
            return -1
        q = fbuf[0]
        if fouls and is_foul(cells, geo, q):
            return -1  # renju: black cannot block on a forbidden square
        place(cells, near, geo, q, c)
        v = sudden(cells, near, geo, opp, d - 1, stop, counter)
        remove(cells, near, geo, q)
        if v == UNKNOWN:
            return UNKNOWN
        return -v
    if nf == 0 and d == 2:
        return 0
    w = geo[G_W]
    h = geo[G_H]
    if nf == 0 and d == 3:
        best = 0
        for y in range(h):
            base = row_start(geo, y)
            for p in range(base, base + w):
                if cells[p] != EMPTY or near[p] == 0:
                    continue
                if not makes_four(cells, near, geo, p, c):
                    continue
                if fouls and is_foul(cells, geo, p):
                    continue
                place(cells, near, geo, p, c)
                v = sudden(cells, near, geo, opp, d - 1, stop, counter)
                remove(cells, near, geo, p)
                if v == UNKNOWN:
                    return UNKNOWN
                if -v > best:
                    return 1
        return best
    # full width: fours first (quick +1), then the rest until one move holds the position
    best = -1
    for phase in range(2):
        far_done = False
        for y in range(h):
            base = row_start(geo, y)
            for p in range(base, base + w):
                if cells[p] != EMPTY:
                    continue
                if near[p] == 0:
                    if phase == 0 or far_done:
                        continue
                    far_done = True
                is_four = near[p] > 0 and makes_four(cells, near, geo, p, c)
                if (phase == 0) != is_four:
                    continue
                if fouls and near[p] > 0 and is_foul(cells, geo, p):
                    continue
                place(cells, near, geo, p, c)
                v = sudden(cells, near, geo, opp, d - 1, stop, counter)
                remove(cells, near, geo, p)
                if v == UNKNOWN:
                    return UNKNOWN
                if -v > best:
                    best = -v
                    if best == 1:
                        return 1
        if phase == 1 and best >= 0:
            break
    return best


@njit(cache=True, nogil=True)
def root_values(cells, near, geo, c, d, moves, values, stop, counter):
    """Level-d value of each root move for side c (moves: every candidate square that is legal for
    c, plus one far square if the board has one). Fills ``moves``/``values``; returns the count,
    or -1 if cut."""
    n = 0
    far_done = False
    opp = 3 - c
    fouls = fouls_apply(geo, c)
    w = geo[G_W]
    for y in range(geo[G_H]):
        base = row_start(geo, y)
        for p in range(base, base + w):
            if cells[p] != EMPTY:
                continue
            if near[p] == 0:
                if far_done and geo[5] > 0:
                    continue
                far_done = True
            elif fouls and is_foul(cells, geo, p):
                continue
            if n >= moves.shape[0]:
                return n
            # a win-in-1 is decided by the move itself
            if near[p] > 0 and wins_at(cells, geo, p, c):
                v = 1
            else:
                place(cells, near, geo, p, c)
                r = sudden(cells, near, geo, opp, d - 1, stop, counter)
                remove(cells, near, geo, p)
                if r == UNKNOWN:
                    return -1
                v = -r
            moves[n] = p
            values[n] = v
            n += 1
    return n


@njit(cache=True, nogil=True)
def vcf(cells, near, geo, c, depth, stop, counter, line, ofs):
    """Can c (to move) win by continuous fours within ``depth`` own moves? 1 yes, 0 no, UNKNOWN.

    On a win, ``line[ofs::2]`` gets the attacker's moves and ``line[ofs+1::2]`` the forced
    replies (-1 after the final five, or when the only block is a renju foul for black);
    unused entries are left alone.
    """
    if _stopped(stop, counter):
        return UNKNOWN
    p0 = first_five_point(cells, near, geo, c)
    if p0 >= 0:
        if ofs + 1 < line.shape[0]:
            line[ofs] = p0
            line[ofs + 1] = -1
        return 1
    if depth <= 0:
        return 0
    opp = 3 - c
    fbuf = np.empty(4, dtype=np.int64)
    nf = five_points(cells, near, geo, opp, fbuf)
    if nf >= 2:
        return 0
    attacker_fouls = fouls_apply(geo, c)
    defender_fouls = fouls_apply(geo, opp)
    gbuf = np.empty(4, dtype=np.int64)
    unknown = False
    w = geo[G_W]
    for y in range(geo[G_H]):
        base = row_start(geo, y)
        for p in range(base, base + w):
            if cells[p] != EMPTY or near[p] == 0:
                continue
            if nf == 1 and p != fbuf[0]:
                continue
            if not makes_four(cells, near, geo, p, c):
                continue
            if attacker_fouls and is_foul(cells, geo, p):
                continue  # renju: a black four on a forbidden square is no four
            place(cells, near, geo, p, c)
            r = 0
            q = -1
            # the defender may win first
            if first_five_point(cells, near, geo, opp) < 0:
                n = five_points(cells, near, geo, c, gbuf)
                if n >= 2:
                    r = 1
                elif n == 1:
                    if defender_fouls and is_foul(cells, geo, gbuf[0]):
                        r = 1  # renju: black's only block is forbidden
                    else:
                        q = gbuf[0]
                        place(cells, near, geo, q, opp)
                        r = vcf(cells, near, geo, c, depth - 1, stop, counter, line, ofs + 2)
                        remove(cells, near, geo, q)
            remove(cells, near, geo, p)
            if r == 1:
                if ofs + 1 < line.shape[0]:
                    line[ofs] = p
                    line[ofs + 1] = q
                    if q < 0 and ofs + 3 < line.shape[0]:
                        line[ofs + 2] = -1
                return 1
            if r == UNKNOWN:
                if stop[0] != 0 or (counter[1] > 0 and counter[0] > counter[1]):
                    return UNKNOWN
                unknown = True
    return UNKNOWN if unknown else 0
