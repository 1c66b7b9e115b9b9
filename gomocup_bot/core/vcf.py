"""VCF: victory by continuous fours, for either side, rule-aware, with a transposition table.

The attacker only plays fours; the defender's reply to a simple four is forced (its completing
point). The search is a depth-first walk on an explicit stack (numba cannot cache recursive
functions). The table stores positions (attacker to move) proven to have no VCF; they stay valid
for the whole game, so one table can serve many calls.

Renju: black's fours must not be fouls; a white four whose only block is a black foul wins.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .constants import BLACK, EMPTY, M_HEIGHT, M_NMOVES, M_RULE, M_WIDTH, P_FOUR, P_FOUR_OPEN, RULE_RENJU
from .board import make, to_pos, unmake
from .patterns import line_pattern, point_score, sync_patterns
from .rules import is_legal, is_win_move
from .threats import win_points, win_points_through

VCF_WIN = 1  # a forced win found: seq holds attacker, defender, ..., attacker's last four
VCF_NONE = 0  # proven: no VCF exists
VCF_UNKNOWN = -1  # node budget or stop flag ended the search first

ATTACKER_KEY = np.uint64(0x9E3779B97F4A7C15)  # xored into the hash when white attacks
STOP_POLL = 256  # nodes between two looks at the stop flag (well under a millisecond)


def new_tt(entries: int) -> np.ndarray:
    """A VCF transposition table with `entries` slots (rounded down to a power of two, >= 1024)."""
    size = 1024
    while size * 2 <= entries:
        size *= 2
    return np.zeros(size, dtype=np.uint64)


@njit(cache=True, nogil=True)
def _tt_key(b, attacker):
    h = b.hash[0]
    if attacker != BLACK:
        h ^= ATTACKER_KEY
    if h == 0:
        h = np.uint64(1)  # 0 marks an empty slot
    return h


@njit(cache=True, nogil=True)
def _gen_fours(b, attacker, forced, buf, start, cap, scores):
    """Attacker four moves into buf[start:], best first; `forced` >= 0 restricts to that point.
    Returns the count (truncated at cap - start). `scores` is int64 scratch (>= width·height)."""
    sync_patterns(b)
    n = 0
    limit = cap - start
    w = b.meta[M_WIDTH]
    h = b.meta[M_HEIGHT]
    for y in range(h):
        base = to_pos(b, 0, y)
        for x in range(w):
            p = base + x
            if forced >= 0 and p != forced:
                continue
            if b.cells[p] != EMPTY or b.nbr[p] == 0 or n >= limit:
                continue
            four = False
            for d in range(4):
                c = line_pattern(b, attacker, d, p)
                if c == P_FOUR or c == P_FOUR_OPEN:
                    four = True
                    break
            if four:
                buf[start + n] = p
                scores[n] = point_score(b, attacker, p)
                n += 1
    if attacker == BLACK and b.meta[M_RULE] == RULE_RENJU:
        m = 0
        for j in range(n):
            if is_legal(b, buf[start + j], attacker):
                buf[start + m] = buf[start + j]
                scores[m] = scores[j]
                m += 1
        n = m
    for i in range(1, n):
        p = buf[start + i]
        sc = scores[i]
        j = i - 1
        while j >= 0 and scores[j] < sc:
            buf[start + j + 1] = buf[start + j]
            scores[j + 1] = scores[j]
            j -= 1
        buf[start + j + 1] = p
        scores[j + 1] = sc
    return n


@njit(cache=True, nogil=True)
def vcf(b, attacker, max_nodes, stop, tt, seq):
    """Search a VCF for `attacker` (who is to move). Returns (VCF_* status, sequence length, nodes).

    `stop`: int32[1] flag, polled every STOP_POLL nodes. `tt`: table from `new_tt` (uint64, power-of-two
    length). `seq` (int32, >= width·height) receives the winning line: attacker, defender, ...,
    ending on the attacker's move that leaves two winning points (or an immediate five). The board is
    restored before returning.
    """
    size = b.meta[M_WIDTH] * b.meta[M_HEIGHT]
    defender = 3 - attacker
    renju = b.meta[M_RULE] == RULE_RENJU
    n0 = b.meta[M_NMOVES]
    mask = np.uint64(tt.shape[0] - 1)
    tmp = np.empty(size, dtype=np.int32)
    scores = np.empty(size, dtype=np.int64)
    # immediate win
    n = win_points(b, attacker, tmp)
    if n > 0:
        seq[0] = tmp[0]
        return VCF_WIN, 1, 0
    dw = win_points(b, defender, tmp)
    if dw >= 2:
        return VCF_NONE, 0, 0
    max_frames = size // 2 + 2
    cap = 8 * size + 64
    buf = np.empty(cap, dtype=np.int32)
    f_start = np.empty(max_frames, dtype=np.int64)
    f_n = np.empty(max_frames, dtype=np.int64)
    f_i = np.empty(max_frames, dtype=np.int64)
    f_clean = np.empty(max_frames, dtype=np.bool_)  # no truncation below: a failure may be stored
    f_key = np.empty(max_frames, dtype=np.uint64)
    wp = np.empty(4 * b.meta[2] + 8, dtype=np.int32)
    nodes = 0
    top = 0
    f_start[0] = 0
    f_n[0] = _gen_fours(b, attacker, tmp[0] if dw == 1 else -1, buf, 0, cap, scores)
    f_i[0] = 0
    f_clean[0] = f_start[0] + f_n[0] < cap
    f_key[0] = _tt_key(b, attacker)
    status = VCF_NONE
    length = 0
    undo = 0  # moves to take back before the next step (one unmake site keeps compile time down)
    while True:
        while undo > 0:
            unmake(b)
            undo -= 1
        if f_i[top] >= f_n[top]:
            # every four failed here
            if f_clean[top]:
                key = f_key[top]
                tt[key & mask] = key
            if top == 0:
                break
            clean = f_clean[top]
            top -= 1
            undo = 2  # the defender's block and the attacker's four
            f_i[top] += 1
            if not clean:
                f_clean[top] = False
            continue
        if nodes >= max_nodes or (nodes % STOP_POLL == 0 and stop[0] != 0):
            status = VCF_UNKNOWN
            break
        a = buf[f_start[top] + f_i[top]]
        nodes += 1
        make(b, a, attacker)
        m = win_points_through(b, a, attacker, wp, 0)
        if m == 0:
            undo = 1
            f_i[top] += 1
            continue
        seq[2 * top] = a
        if m >= 2:
            status = VCF_WIN
            length = 2 * top + 1
            break
        q = wp[0]
        if defender == BLACK and renju and not is_legal(b, q, BLACK):
            status = VCF_WIN  # the only block is a foul for black
            length = 2 * top + 1
            break
        if is_win_move(b, q, defender):
            undo = 1
            f_i[top] += 1
            continue
        make(b, q, defender)
        seq[2 * top + 1] = q
        key = _tt_key(b, attacker)
        if tt[key & mask] == key or top + 1 >= max_frames:
            undo = 2
            f_i[top] += 1
            continue
        # the defender's only new threats come from its block q
        dwn = win_points_through(b, q, defender, wp, 0)
        if dwn >= 2:
            undo = 2
            f_i[top] += 1
            continue
        start = f_start[top] + f_n[top]
        top += 1
        f_start[top] = start
        f_n[top] = _gen_fours(b, attacker, wp[0] if dwn == 1 else -1, buf, start, cap, scores)
        f_i[top] = 0
        f_clean[top] = start + f_n[top] < cap
        f_key[top] = key
    while b.meta[M_NMOVES] > n0:
        unmake(b)
    return status, length, nodes
