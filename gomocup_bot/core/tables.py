"""Line-pattern classification and the lookup table built from it.

A point's view of one line is the 2k cells around it (k each side), each seen by one colour as
empty (0), own (1) or other (2: opponent stone, edge or blocked square). `classify_window` says what
a stone of that colour on the centre makes (a `P_*` code). For k <= TABLE_MAX_K every window is
classified once into a table indexed by the base-3 window number, which the board keeps
incrementally (`Board.keys`); for larger k the same function runs on demand.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from .constants import (
    P_FIVE,
    P_FOUR,
    P_FOUR_OPEN,
    P_NONE,
    P_ONE,
    P_THREE,
    P_THREE_BROKEN,
    P_THREE_OPEN,
    P_TWO,
)


@njit(cache=True, nogil=True)
def _win_cells(w, k, exact):
    """How many empty cells (within k-1 of the centre) complete a winning run that contains the centre."""
    n = 0
    c = k
    for q in range(1, 2 * k):
        if w[q] != 0:
            continue
        w[q] = 1
        a = q
        while a > 0 and w[a - 1] == 1:
            a -= 1
        b = q
        while b < 2 * k and w[b + 1] == 1:
            b += 1
        w[q] = 0
        if a <= c <= b:
            length = b - a + 1
            if length == k or (length > k and not exact):
                n += 1
    return n


@njit(cache=True, nogil=True)
def classify_window(w, k, exact):
    """The `P_*` code of a stone on the centre of window `w` (int8[2k+1], values 0/1/2; centre ignored).

    `exact`: only runs of exactly k win (exact-five rules, renju black). `w` is used as scratch and
    restored before returning.
    """
    c = k
    saved = w[c]
    w[c] = 1
    a = c
    while a > 0 and w[a - 1] == 1:
        a -= 1
    b = c
    while b < 2 * k and w[b + 1] == 1:
        b += 1
    run = b - a + 1
    code = P_NONE
    if run == k or (run > k and not exact):
        code = P_FIVE
    elif run > k:
        code = P_NONE  # an overline under exact rules: every extension stays too long
    else:
        nw = _win_cells(w, k, exact)
        if nw >= 2:
            code = P_FOUR_OPEN
        elif nw == 1:
            code = P_FOUR
        else:
            best = 0
            for q in range(1, 2 * k):
                if w[q] != 0:
                    continue
                w[q] = 1
                n2 = _win_cells(w, k, exact)
                w[q] = 0
                if n2 > best:
                    best = n2
                    if best >= 2:
                        break
            if best >= 2:
                code = P_THREE_OPEN if run >= k - 2 else P_THREE_BROKEN
            elif best == 1:
                code = P_THREE
            else:
                most = -1
                for s in range(1, k + 1):  # k-long segments [s, s+k-1] holding the centre
                    own = 0
                    clean = True
                    for i in range(s, s + k):
                        if w[i] == 2:
                            clean = False
                            break
                        if w[i] == 1:
                            own += 1
                    if clean and own > most:
                        most = own
                if most < 0:
                    code = P_NONE
                elif most >= 2 and most >= k - 3:
                    code = P_TWO
                else:
                    code = P_ONE
    w[c] = saved
    return code


@njit(cache=True, nogil=True)
def build_table(k, exact):
    """Classify all 3**(2k) windows; entry i is the code of the window whose base-3 digits are i.

    Digit j (weight 3**j) is the cell at offset j-k for j < k and j-k+1 for j >= k.
    """
    size = 1
    for _ in range(2 * k):
        size *= 3
    table = np.zeros(size, dtype=np.uint8)
    w = np.zeros(2 * k + 1, dtype=np.int8)
    for key in range(size):
        x = key
        for j in range(2 * k):
            pos = j if j < k else j + 1
            w[pos] = x % 3
            x //= 3
        table[key] = classify_window(w, k, exact)
    return table


@lru_cache(maxsize=None)
def _table(k: int, exact: bool) -> np.ndarray:
    return build_table(k, exact)


def pattern_tables(k: int, exact_black: bool, exact_white: bool) -> np.ndarray:
    """uint8[2, 3**(2k)]: row 0 for black, row 1 for white (built once per process and k)."""
    out = np.empty((2, 3 ** (2 * k)), dtype=np.uint8)
    out[0] = _table(k, exact_black)
    out[1] = _table(k, exact_white)
    return out
