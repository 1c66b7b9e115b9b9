"""Candidate moves: empty points within Chebyshev distance 2 of a stone, or the centre on an empty board."""
from __future__ import annotations

import numpy as np
from numba import njit

from .constants import EMPTY, M_HEIGHT, M_NMOVES, M_WIDTH
from .board import to_pos
from .patterns import move_score, sync_patterns


@njit(cache=True, nogil=True)
def candidates(b, out):
    """Fill `out` (int32, >= width*height) with candidate points in board order; returns the count.

    With no stone on the board the only candidate is the centre (or the first empty point if the
    centre is blocked).
    """
    n = 0
    w = b.meta[M_WIDTH]
    h = b.meta[M_HEIGHT]
    for y in range(h):
        base = to_pos(b, 0, y)
        for x in range(w):
            p = base + x
            if b.cells[p] == EMPTY and b.nbr[p] > 0:
                out[n] = p
                n += 1
    if n == 0:
        c = to_pos(b, w // 2, h // 2)
        if b.cells[c] == EMPTY:
            out[0] = c
            return 1
        for y in range(h):
            for x in range(w):
                p = to_pos(b, x, y)
                if b.cells[p] == EMPTY:
                    out[0] = p
                    return 1
    return n


@njit(cache=True, nogil=True)
def ordered_candidates(b, colour, out, scores):
    """Candidates sorted by `move_score` for `colour`, best first; `scores` (int64) receives the scores.

    Returns the count. Ties keep board order (stable insertion sort: lists are short).
    """
    sync_patterns(b)
    n = candidates(b, out)
    for i in range(n):
        scores[i] = move_score(b, colour, out[i])
    for i in range(1, n):
        p = out[i]
        s = scores[i]
        j = i - 1
        while j >= 0 and scores[j] < s:
            out[j + 1] = out[j]
            scores[j + 1] = scores[j]
            j -= 1
        out[j + 1] = p
        scores[j + 1] = s
    return n
