"""Line-pattern classification and the lookup table built from it.

A point's view of one line is the 2k cells around it (k each side), each seen by one colour as
empty (0), own (1), opponent (2) or wall (3: board edge or blocked square). Outside caro a wall is
just another "other" cell (digit 2, base-3 windows); under caro the two differ -- an opponent stone
at an end blocks a run, a wall does not -- so caro windows are base 4. The k cells on each side are
enough to see both ends of every k-run through the centre. `classify_window` says what a stone of
that colour on the centre makes (a `P_*` code); for k <= TABLE_MAX_K every window is classified
once into a table indexed by the window number, which the board keeps incrementally (`Board.keys`);
for larger k the same function runs on demand.
"""
from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path

import numpy as np
from numba import njit

from .constants import (
    L_ONE_OPEN,
    L_TWO_FLEX,
    L_TWO_OPEN,
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

OPP = 2  # window digit of an opponent stone (and, outside caro, of a wall)
WALL_DIGIT = 3  # caro windows only


@njit(cache=True, nogil=True, forceinline=True)
def run_wins(w, a, b, k, exact, caro):
    """Does the own run w[a..b] win? (caro: a run of exactly k with opponent stones at both ends
    does not; the ends of such a run lie inside the window when the run holds the centre)."""
    length = b - a + 1
    if length < k:
        return False
    if length > k:
        return not exact
    if caro:
        return not (w[a - 1] == OPP and w[b + 1] == OPP)
    return True


@njit(cache=True, nogil=True, forceinline=True)
def _run_ends(w, q, k):
    """First and last cell of the run of own stones (digit 1) through cell q of window w."""
    a = q
    while a > 0 and w[a - 1] == 1:
        a -= 1
    b = q
    while b < 2 * k and w[b + 1] == 1:
        b += 1
    return a, b


@njit(cache=True, nogil=True)
def _win_cells(w, k, exact, caro):
    """How many empty cells (within k-1 of the centre) complete a winning run that contains the centre."""
    n = 0
    c = k
    for q in range(1, 2 * k):
        if w[q] != 0:
            continue
        w[q] = 1
        a, b = _run_ends(w, q, k)
        if a <= c <= b and run_wins(w, a, b, k, exact, caro):
            n += 1
        w[q] = 0
    return n


@njit(cache=True, nogil=True)
def classify_window(w, k, exact, caro):
    """The `P_*` code of a stone on the centre of window `w` (int8[2k+1], digits 0..3; centre ignored).

    `exact`: only runs of exactly k win (exact-five rules, renju black); `caro`: a k-run between
    two opponent stones does not win (walls, digit 3, do not block). A four is a point with one cell
    that makes a real win, a three one that makes such a four. `w` is scratch, restored on return.
    """
    c = k
    saved = w[c]
    w[c] = 1
    a, b = _run_ends(w, c, k)
    run = b - a + 1
    code = P_NONE
    if run_wins(w, a, b, k, exact, caro):
        code = P_FIVE
    elif run > k:
        code = P_NONE  # an overline under exact rules: every extension stays too long
    else:
        nw = _win_cells(w, k, exact, caro)
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
                n2 = _win_cells(w, k, exact, caro)
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
                        if w[i] >= OPP:
                            clean = False
                            break
                        if w[i] == 1:
                            own += 1
                    if clean and caro and w[s - 1] == OPP and w[s + k] == OPP:
                        clean = False  # caro: a k-gap between two opponent stones can never win
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
def renju_line_foul(w, k):
    """Renju black on the centre of window `w` (digits 0/1/2): no exact five on this line, but six
    or more, or two different fours (X.X.X.X, XX.X.XX: fours told apart by their stones, as
    `rules._four_keys` does) -- one-line foul shapes the line code alone would read as a five or an
    open four. `w` is scratch, restored on return."""
    c = k
    saved = w[c]
    w[c] = 1
    a, b = _run_ends(w, c, k)
    foul = False
    if b - a + 1 > k:
        foul = True
    elif b - a + 1 < k:
        first = -1
        last = -1
        for q in range(1, 2 * k):
            if w[q] != 0:
                continue
            w[q] = 1
            lo, hi = _run_ends(w, q, k)
            w[q] = 0
            if lo <= c <= hi and hi - lo + 1 == k:
                f = lo + 1 if q == lo else lo  # the four's own stones: the run without q
                la = hi - 1 if q == hi else hi
                if first < 0:
                    first, last = f, la
                elif f != first or la != last:
                    foul = True
                    break
    w[c] = saved
    return foul


@njit(cache=True, nogil=True, forceinline=True)
def _window_of(key, k, base, w):
    """Fill w with the window whose digits are `key` (see `build_table`)."""
    x = key
    for j in range(2 * k):
        pos = j if j < k else j + 1
        w[pos] = x % base
        x //= base


@njit(cache=True, nogil=True)
def build_renju_foul_table(k):
    """`renju_line_foul` of every base-3 window (renju has no caro digits)."""
    size = 3 ** (2 * k)
    out = np.zeros(size, dtype=np.bool_)
    w = np.zeros(2 * k + 1, dtype=np.int8)
    for key in range(size):
        _window_of(key, k, 3, w)
        out[key] = renju_line_foul(w, k)
    return out


@njit(cache=True, nogil=True)
def build_table(k, exact, caro):
    """Classify all base**(2k) windows (base 4 under caro, else 3); entry i is the code of the window
    whose digits are i. Digit j (weight base**j) is the cell at offset j-k for j < k and j-k+1 for
    j >= k. Outside caro digit 3 never occurs."""
    base = 4 if caro else 3
    size = 1
    for _ in range(2 * k):
        size *= base
    table = np.zeros(size, dtype=np.uint8)
    w = np.zeros(2 * k + 1, dtype=np.int8)
    for key in range(size):
        _window_of(key, k, base, w)
        table[key] = classify_window(w, k, exact, caro)
    return table


@njit(cache=True, nogil=True)
def _open_three_cells(w, k, exact, caro):
    """With the centre's stone on w: how many empty cells then make an open three through it."""
    n = 0
    for q in range(1, 2 * k):
        if w[q] != 0 or q == k:
            continue
        w[q] = 1
        code = classify_window(w, k, exact, caro)
        w[q] = 0
        if code == P_THREE_OPEN or code == P_THREE_BROKEN:
            n += 1
    return n


@njit(cache=True, nogil=True)
def refine_code(w, k, exact, caro, code):
    """The evaluation's finer code for a two or a one (`classes`' line codes), else ``code``.

    A two is open (`L_TWO_OPEN`) when one more stone can make it an open three, in one or two
    ways, and `L_TWO_FLEX` in three or more; otherwise it stays `P_TWO` (a two that can only
    become a closed three). A one is open (`L_ONE_OPEN`) when at least two cells make it an open
    two; otherwise it stays `P_ONE`. The threat classes do not tell them apart (tactics do not
    change); the evaluation's tables do.
    """
    if code != P_TWO and code != P_ONE:
        return code
    saved = w[k]
    w[k] = 1
    out = code
    if code == P_TWO:
        n3 = _open_three_cells(w, k, exact, caro)
        if n3 >= 3:
            out = L_TWO_FLEX
        elif n3 >= 1:
            out = L_TWO_OPEN
    else:
        n2 = 0
        for q in range(1, 2 * k):
            if w[q] != 0 or q == k:
                continue
            w[q] = 1
            if classify_window(w, k, exact, caro) == P_TWO and _open_three_cells(w, k, exact, caro) > 0:
                n2 += 1
            w[q] = 0
            if n2 >= 2:
                out = L_ONE_OPEN
                break
    w[k] = saved
    return out


@njit(cache=True, nogil=True)
def build_eval_codes(table, k, exact):
    """The line codes of every base-3 window (`refine_code` of the pattern `table`'s entry): what
    the pattern layer keeps. Only twos and ones are reclassified, so this costs a fraction of
    `build_table`."""
    out = table.copy()
    w = np.zeros(2 * k + 1, dtype=np.int8)
    for key in range(table.shape[0]):
        code = table[key]
        if code == P_TWO or code == P_ONE:
            _window_of(key, k, 3, w)
            out[key] = refine_code(w, k, exact, False, code)
    return out


def _source_digest() -> str:
    """A digest of the code the tables are built from: a cached table of other code is never read."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for name in ("tables.py", "constants.py"):
        h.update((here / name).read_bytes())
    return h.hexdigest()[:16]


def _disk_cached(name: str, build) -> np.ndarray:
    """``build()``, kept on disk beside numba's cache (``core/__pycache__``) so a new process reads
    it instead of classifying every window again: building the k = 5 tables took 0.3-0.8 s of a
    brain's start-up (on the match clock), reading them takes a millisecond. A cache that cannot be
    written (read-only install) is skipped; a damaged one is rebuilt."""
    path = Path(__file__).resolve().parent / "__pycache__" / f"table-{name}-{_source_digest()}.npy"
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        pass
    table = build()
    try:
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            np.save(f, table, allow_pickle=False)
        os.replace(tmp, path)
    except OSError:
        pass
    return table


@lru_cache(maxsize=None)
def _table(k: int, exact: bool, caro: bool) -> np.ndarray:
    return _disk_cached(f"pattern-{k}-{int(exact)}-{int(caro)}", lambda: build_table(k, exact, caro))


@lru_cache(maxsize=None)
def eval_code_table(k: int, exact: bool, caro: bool) -> np.ndarray:
    """uint8[base**(2k)]: the line codes of the pattern layer for one colour (caro keeps the plain
    patterns: its base-4 windows are eighteen times as many, and caro has no data of its own)."""
    table = _table(k, exact, caro)
    if caro:
        return table
    return _disk_cached(f"eval-{k}-{int(exact)}", lambda: build_eval_codes(table, k, exact))


@lru_cache(maxsize=None)
def renju_foul_table(k: int) -> np.ndarray:
    """bool[3**(2k)]: the windows where renju black makes a one-line foul shape (built once per k)."""
    return _disk_cached(f"renju-foul-{k}", lambda: build_renju_foul_table(k))


def eval_code_tables(k: int, exact_black: bool, exact_white: bool, caro: bool = False) -> np.ndarray:
    """uint8[2, base**(2k)]: `eval_code_table` for black (row 0) and white (row 1)."""
    return np.stack([eval_code_table(k, exact_black, caro), eval_code_table(k, exact_white, caro)])


def pattern_tables(k: int, exact_black: bool, exact_white: bool, caro: bool = False) -> np.ndarray:
    """uint8[2, base**(2k)]: row 0 for black, row 1 for white (built once per process and k)."""
    return np.stack([_table(k, exact_black, caro), _table(k, exact_white, caro)])
