"""Li's level-k sudden win / sudden death minimax on the core board (`core/board.py`).

Li (2018, §4.1) detects a level-k sudden win/death with a depth-k minimax whose leaves score
+1/-1 for a finished game and 0 otherwise. Searched full-width that is hopeless on 15x15, but
most of the width is provably irrelevant, which keeps the answer exact while the work stays small
(values are for the side to move; ``d`` = plies left):

* d <= 0: 0.  A win-in-1 for the mover: +1.  d == 1 otherwise: 0.
* the opponent has two squares that win at once: -1 (one stone blocks only one; not for caro,
  where a stone beyond the end can also spoil a five -- caro falls back to full width);
  exactly one: the block is the only move worth searching.
* no opponent five-square and d == 2: 0 (my stone cannot give the opponent a five).
* d == 3: only moves that make a four (`core.threats.four_points`) can reach +1; every other move
  scores exactly 0.
* d >= 4: every empty square within distance 2 of a stone, fours first, plus one far square
  standing for all of them (a stone farther away touches no window that can fill up within 4
  plies, k = 5).

Under renju black's forbidden squares are no moves at all: never generated for black, and a
black block that would have to stand on one is no block (the node is lost). Far squares are never
fouls, but under renju they are not quite interchangeable (a distant stone can decide whether a
black three is real), so there the far-square shortcut is a close approximation, not exact.

Win squares come from the core's threat helpers; on table boards (k <= 5) the pattern layer's
class counts answer "has the side a five square at all" in O(1) first, which is most nodes.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from gomocup_bot.core.board import make, to_pos, unmake
from gomocup_bot.core.classes import C_FIVE
from gomocup_bot.core.constants import (
    BLACK,
    EMPTY,
    M_HEIGHT,
    M_NMOVES,
    M_RULE,
    M_TABLE,
    M_WIDTH,
    RULE_CARO,
    RULE_CARO_EXACT,
    RULE_RENJU,
)
from gomocup_bot.core.rules import is_legal, is_win_move
from gomocup_bot.core.threats import four_points, win_points
from gomocup_bot.core.threats import wins_at as table_wins_at

UNKNOWN = 2  # returned when the node budget or the stop flag cut the search short


@njit(cache=True, nogil=True, forceinline=True)
def wins_now(b, p, c):
    """Does c win by playing empty p? The pattern table on table boards, the cells for k > 5
    (whose pattern codes are only refreshed by a whole-board sync)."""
    if b.meta[M_TABLE]:
        return table_wins_at(b, p, c)
    return is_win_move(b, p, c)


@njit(cache=True, nogil=True)
def win_squares(b, c, out):
    """c's win-in-1 squares into ``out`` (int32, >= width*height); returns the count."""
    if b.meta[M_TABLE] and b.cnt[c - 1, C_FIVE] == 0:
        return 0  # the layer's count is a superset (caro's both-ends block aside): none at all
    return win_points(b, c, out)


@njit(cache=True, nogil=True)
def fouls_apply(b, c):
    """Must moves of colour c be checked for renju fouls? (The one rule branch per node.)"""
    return c == BLACK and b.meta[M_RULE] == RULE_RENJU


@njit(cache=True, nogil=True)
def _stopped(stop, counter):
    counter[0] += 1
    return stop[0] != 0 or (counter[1] > 0 and counter[0] > counter[1])


@njit(cache=True, nogil=True)
def _listed(buf, n, p):
    for i in range(n):
        if buf[i] == p:
            return True
    return False


@njit(cache=True, nogil=True)
def sudden(b, c, d, stop, counter):
    """Value in {-1, 0, +1} for side c with d plies to go (exact, see module doc); UNKNOWN if cut.
    ``counter`` = [nodes so far, node budget (0 = none)]. The board is restored on return."""
    if _stopped(stop, counter):
        return UNKNOWN
    if d <= 0:
        return 0
    w = b.meta[M_WIDTH]
    h = b.meta[M_HEIGHT]
    wb = np.empty(w * h + 1, dtype=np.int32)
    if win_squares(b, c, wb) > 0:
        return 1
    if d == 1:
        return 0
    opp = 3 - c
    nf = win_squares(b, opp, wb)
    rule = b.meta[M_RULE]
    caro = rule == RULE_CARO or rule == RULE_CARO_EXACT
    fouls = fouls_apply(b, c)
    if nf > 0 and not caro:
        if nf >= 2:
            return -1
        q = wb[0]
        if fouls and not is_legal(b, q, c):
            return -1  # renju: black cannot block on a forbidden square
        make(b, q, c)
        v = sudden(b, opp, d - 1, stop, counter)
        unmake(b)
        if v == UNKNOWN:
            return UNKNOWN
        return -v
    if nf == 0 and d == 2:
        return 0
    fb = np.empty(w * h + 1, dtype=np.int32)
    n4 = four_points(b, c, fb)  # legal for c (renju fouls dropped)
    # fours first (a quick +1); at d == 3 without a five to block nothing else can win
    best = 0 if (nf == 0 and d == 3) else -1
    for i in range(n4):
        make(b, fb[i], c)
        v = sudden(b, opp, d - 1, stop, counter)
        unmake(b)
        if v == UNKNOWN:
            return UNKNOWN
        if -v > best:
            best = -v
            if best == 1:
                return 1
    if nf == 0 and d == 3:
        return best
    # the rest, until one move holds the position; one far square stands for all of them
    far_done = False
    for y in range(h):
        base = to_pos(b, 0, y)
        for p in range(base, base + w):
            if b.cells[p] != EMPTY:
                continue
            if b.nbr[p] == 0:
                if far_done:
                    continue
                far_done = True
            elif _listed(fb, n4, p) or (fouls and not is_legal(b, p, c)):
                continue
            make(b, p, c)
            v = sudden(b, opp, d - 1, stop, counter)
            unmake(b)
            if v == UNKNOWN:
                return UNKNOWN
            if -v > best:
                best = -v
                if best == 1:
                    return 1
    return best


@njit(cache=True, nogil=True)
def root_values(b, c, d, moves, values, stop, counter):
    """Level-d value of each root move for side c (moves: every candidate square that is legal for
    c, plus one far square if the board has stones; every square on an empty board). Fills
    ``moves``/``values``; returns the count, or -1 if cut."""
    n = 0
    far_done = False
    opp = 3 - c
    fouls = fouls_apply(b, c)
    w = b.meta[M_WIDTH]
    for y in range(b.meta[M_HEIGHT]):
        base = to_pos(b, 0, y)
        for p in range(base, base + w):
            if b.cells[p] != EMPTY:
                continue
            if b.nbr[p] == 0:
                if far_done and b.meta[M_NMOVES] > 0:
                    continue
                far_done = True
            elif fouls and not is_legal(b, p, c):
                continue
            if n >= moves.shape[0]:
                return n
            # a win-in-1 is decided by the move itself
            if b.nbr[p] > 0 and wins_now(b, p, c):
                v = 1
            else:
                make(b, p, c)
                r = sudden(b, opp, d - 1, stop, counter)
                unmake(b)
                if r == UNKNOWN:
                    return -1
                v = -r
            moves[n] = p
            values[n] = v
            n += 1
    return n
