"""Threat-window heuristics: a per-square move score and an incrementally kept board score.

Both count the k-long windows through a square that hold stones of only one colour (Dong &
Zhang's open/half-closed/closed counts collapse into "how many own stones does a clean window
hold"): a window with m own stones and no opponent stone is worth ``weights[m]``. The move score
adds what a stone gains for its owner (attack) and takes away from the opponent (defence); the
board score is black's total minus white's, updated per move from the windows through it.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from gomocup_bot.search.board import G_H, G_K, G_W, WALL, dir_step, reach, row_start


def make_weights(k: int):
    """(attack, defence, board) weight tables indexed by the own-stone count of a clean window."""
    att = np.zeros(k + 1, dtype=np.float64)
    dfn = np.zeros(k + 1, dtype=np.float64)
    brd = np.zeros(k + 1, dtype=np.float64)
    for m in range(k + 1):
        att[m] = 8.0 ** m
        dfn[m] = 0.7 * 8.0 ** m
        brd[m] = 0.0 if m == 0 else 6.0 ** m
    att[k - 1] = 1e7  # completing a five
    dfn[k - 1] = 1e6  # stopping the opponent's five
    att[k - 2] *= 4.0  # a four is a forcing move
    dfn[k - 2] *= 2.0
    brd[k] = 1e9
    return att, dfn, brd


@njit(cache=True, nogil=True)
def move_score(cells, geo, p, c, att, dfn):
    """How good is square p for colour c: own windows it extends plus opponent windows it spoils."""
    k = geo[G_K]
    opp = 3 - c
    total = 0.0
    for d in range(4):
        st = dir_step(geo, d)
        back = reach(cells, p, -st, k - 1)
        fwd = reach(cells, p, st, k - 1)
        for off in range(k - 1 - fwd, back + 1):
            start = p - off * st
            own = 0
            other = 0
            for i in range(k):
                v = cells[start + i * st]
                if v == c:
                    own += 1
                elif v == opp:
                    other += 1
            if other == 0:
                total += att[own]
            if own == 0:
                total += dfn[other]
    return total


@njit(cache=True, nogil=True)
def window_delta(cells, geo, p, c, brd):
    """Change of (black - white) board score when colour c is placed on empty p (call before placing)."""
    k = geo[G_K]
    delta = 0.0
    for d in range(4):
        st = dir_step(geo, d)
        back = reach(cells, p, -st, k - 1)
        fwd = reach(cells, p, st, k - 1)
        for off in range(k - 1 - fwd, back + 1):
            start = p - off * st
            nb = 0
            nw = 0
            for i in range(k):
                v = cells[start + i * st]
                if v == 1:
                    nb += 1
                elif v == 2:
                    nw += 1
            before = 0.0
            if nw == 0:
                before += brd[nb]
            if nb == 0:
                before -= brd[nw]
            if c == 1:
                nb += 1
            else:
                nw += 1
            after = 0.0
            if nw == 0:
                after += brd[nb]
            if nb == 0:
                after -= brd[nw]
            delta += after - before
    return delta


@njit(cache=True, nogil=True)
def board_score(cells, geo, brd):
    """(black - white) board score from scratch: the sum of window values over the whole board."""
    w = geo[G_W]
    h = geo[G_H]
    k = geo[G_K]
    total = 0.0
    for y in range(h):
        base = row_start(geo, y)
        for p in range(base, base + w):
            if cells[p] == WALL:
                continue
            for d in range(4):
                st = dir_step(geo, d)
                if reach(cells, p, st, k - 1) < k - 1:
                    continue
                nb = 0
                nw = 0
                for i in range(k):
                    v = cells[p + i * st]
                    if v == 1:
                        nb += 1
                    elif v == 2:
                        nw += 1
                if nw == 0:
                    total += brd[nb]
                if nb == 0:
                    total -= brd[nw]
    return total


@njit(cache=True, nogil=True)
def bounded(score, scale):
    """Map a raw score into (-1, 1) (Lim: unbounded win values wreck UCT's averages)."""
    return np.tanh(score / scale)
