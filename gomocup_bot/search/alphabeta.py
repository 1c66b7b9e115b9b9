"""Iterative-deepening alpha-beta (negamax) with a transposition table and threat-ordered moves.

Lim's minimax agent, in numba: memoisation with exact/lower/upper bound flags, move ordering
from the previous iteration (root) and from the hash move plus the threat-window move score
(inner nodes), and forced-reply extensions -- when the opponent threatens a five, the block is
the only move and costs no depth, so four-chains are read to their end. Scores are integers
for the side to move; a win at ply p scores ``WIN - p`` so shorter wins are preferred.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from gomocup_bot.search.board import (
    EMPTY,
    G_H,
    G_W,
    centre,
    first_five_point,
    five_points,
    five_points_through,
    fouls_apply,
    is_foul,
    is_legal_for,
    place,
    remove,
    row_start,
)
from gomocup_bot.search.heuristic import move_score, window_delta

WIN = 10_000_000
WIN_BOUND = WIN - 1000
MAX_PLY = 60
FLAG_EXACT, FLAG_LOWER, FLAG_UPPER = 1, 2, 3
UNKNOWN_SCORE = -2 * WIN  # returned when the search was stopped

# params vector
P_NODE_WIDTH, P_ROOT_WIDTH, P_TEMPO = 0, 1, 2


def make_zobrist(size: int, seed: int = 12345):
    rng = np.random.default_rng(seed)
    return rng.integers(1, 2**63 - 1, size=(3, size), dtype=np.int64).astype(np.uint64)


def make_tt(n_entries: int):
    """Transposition table arrays for a power-of-two entry count (16 bytes an entry).

    All zeros, so the pages are mapped lazily and a fresh table costs no time: best move 0 is
    a wall square and means "none".
    """
    n = 1
    while n * 2 <= max(1024, n_entries):
        n *= 2
    return (
        np.zeros(n, dtype=np.uint64),  # key
        np.zeros(n, dtype=np.int32),   # value
        np.zeros(n, dtype=np.int8),    # depth
        np.zeros(n, dtype=np.int8),    # flag
        np.zeros(n, dtype=np.int16),   # best move (0 = none)
    )


TT_ENTRY_BYTES = 8 + 4 + 1 + 1 + 2


@njit(cache=True, nogil=True)
def ordered_moves(cells, near, geo, c, att, dfn, moves, scores, limit):
    """Candidate squares for c, best threat score first; at most ``limit`` (0 = all). Returns n.

    Under renju black's fouls are left out: the list is sorted first, then walked best-first
    with the foul check until ``limit`` legal squares are found, so an inner node checks only
    about ``limit`` squares. No candidate at all (empty board): the centre.
    """
    n = 0
    w = geo[G_W]
    for y in range(geo[G_H]):
        base = row_start(geo, y)
        for p in range(base, base + w):
            if cells[p] == EMPTY and near[p] > 0:
                if n >= moves.shape[0]:
                    break
                moves[n] = p
                scores[n] = move_score(cells, geo, p, c, att, dfn)
                n += 1
    if n == 0:
        return _lone_move(cells, geo, c, moves, scores, centre(geo))
    order = np.argsort(-scores[:n])
    tm = moves[:n].copy()
    ts = scores[:n].copy()
    if fouls_apply(geo, c):
        m = 0
        for i in range(n):
            if limit > 0 and m >= limit:
                break
            p = tm[order[i]]
            if not is_foul(cells, geo, p):
                moves[m] = p
                scores[m] = ts[order[i]]
                m += 1
        if m == 0:
            # every candidate is forbidden: any legal square (a far one is never a foul)
            return _lone_move(cells, geo, c, moves, scores, -1)
        return m
    for i in range(n):
        moves[i] = tm[order[i]]
        scores[i] = ts[order[i]]
    if limit > 0 and n > limit:
        n = limit
    return n


@njit(cache=True, nogil=True)
def _lone_move(cells, geo, c, moves, scores, first):
    """A single move: ``first`` if legal for c, else the first legal square in board order; 0 if none."""
    if first >= 0 and is_legal_for(cells, geo, first, c):
        moves[0] = first
        scores[0] = 0.0
        return 1
    w = geo[G_W]
    for y in range(geo[G_H]):
        base = row_start(geo, y)
        for q in range(base, base + w):
            if is_legal_for(cells, geo, q, c):
                moves[0] = q
                scores[0] = 0.0
                return 1
    return 0


@njit(cache=True, nogil=True)
def _make(cells, near, geo, p, c, zob, hkey, ev, brd):
    ev[0] += window_delta(cells, geo, p, c, brd)
    place(cells, near, geo, p, c)
    hkey[0] ^= zob[c, p]


@njit(cache=True, nogil=True)
def _unmake(cells, near, geo, p, c, zob, hkey, ev, brd):
    remove(cells, near, geo, p)
    hkey[0] ^= zob[c, p]
    ev[0] -= window_delta(cells, geo, p, c, brd)


@njit(cache=True, nogil=True)
def negamax(cells, near, geo, c, depth, alpha, beta, ply, last, zob, hkey, ev, att, dfn, brd,
            tt_key, tt_val, tt_depth, tt_flag, tt_move, params, stop, counter):
    counter[0] += 1
    if stop[0] != 0:
        return UNKNOWN_SCORE
    if counter[1] > 0 and counter[0] > counter[1]:
        return UNKNOWN_SCORE
    opp = 3 - c
    fbuf = np.empty(16, dtype=np.int64)
    if ply <= 1:
        if first_five_point(cells, near, geo, c) >= 0:
            return WIN - ply - 1
        nf = five_points(cells, near, geo, opp, fbuf)
    else:
        # deeper, a five-square of mine would have been blocked by force one ply ago, and the
        # opponent's can only come from its last stone: no board scans needed
        nf = _distinct(fbuf, five_points_through(cells, geo, last, opp, fbuf, 0))
    if nf >= 2:
        return -(WIN - ply - 2)
    if ply >= MAX_PLY:
        return _static(c, ev, params)
    if nf == 0 and depth <= 0:
        return _static(c, ev, params)

    # transposition table
    mask = tt_key.shape[0] - 1
    slot = hkey[0] & mask
    tt_best = -1
    e_val = tt_val[slot]
    e_depth = tt_depth[slot]
    e_flag = tt_flag[slot]
    e_move = tt_move[slot]
    if tt_key[slot] ^ tt_mix(e_val, e_depth, e_flag, e_move) == hkey[0]:
        tt_best = e_move
        if e_depth >= depth:
            v = e_val
            if v > WIN_BOUND:
                v -= ply
            elif v < -WIN_BOUND:
                v += ply
            f = e_flag
            if f == FLAG_EXACT:
                return v
            if f == FLAG_LOWER and v >= beta:
                return v
            if f == FLAG_UPPER and v <= alpha:
                return v

    if nf == 1:
        if fouls_apply(geo, c) and is_foul(cells, geo, fbuf[0]):
            return -(WIN - ply - 2)  # renju: black may not block on a forbidden square
        moves = np.empty(1, dtype=np.int64)
        moves[0] = fbuf[0]
        n = 1
        child_depth = depth  # forced block: extend
    else:
        moves = np.empty(512, dtype=np.int64)
        scores = np.empty(512, dtype=np.float64)
        n = ordered_moves(cells, near, geo, c, att, dfn, moves, scores, params[P_NODE_WIDTH])
        child_depth = depth - 1
        if tt_best > 0:
            for i in range(n):
                if moves[i] == tt_best:
                    for j in range(i, 0, -1):
                        moves[j] = moves[j - 1]
                    moves[0] = tt_best
                    break
    if n == 0:
        return 0

    alpha0 = alpha
    best = -3 * WIN
    best_move = moves[0]
    for i in range(n):
        p = moves[i]
        _make(cells, near, geo, p, c, zob, hkey, ev, brd)
        v = negamax(cells, near, geo, opp, child_depth, -beta, -alpha, ply + 1, p, zob, hkey, ev,
                    att, dfn, brd, tt_key, tt_val, tt_depth, tt_flag, tt_move, params, stop, counter)
        _unmake(cells, near, geo, p, c, zob, hkey, ev, brd)
        if v == UNKNOWN_SCORE:
            return UNKNOWN_SCORE
        v = -v
        if v > best:
            best = v
            best_move = p
        if v > alpha:
            alpha = v
        if alpha >= beta:
            break

    store = best
    if store > WIN_BOUND:
        store += ply
    elif store < -WIN_BOUND:
        store -= ply
    if best <= alpha0:
        flag = FLAG_UPPER
    elif best >= beta:
        flag = FLAG_LOWER
    else:
        flag = FLAG_EXACT
    d8 = min(depth, 127)
    tt_val[slot] = store
    tt_depth[slot] = d8
    tt_move[slot] = best_move
    tt_flag[slot] = flag
    # the key is stored XOR the entry's data: a half-written entry seen by the other search
    # thread fails the check instead of lending a wrong value (lockless hashing)
    tt_key[slot] = hkey[0] ^ tt_mix(tt_val[slot], tt_depth[slot], tt_flag[slot], tt_move[slot])
    return best


@njit(cache=True, nogil=True)
def tt_mix(value, depth, flag, move):
    """The entry's data folded into 64 bits, XORed into the stored key."""
    return (np.uint64(np.int64(value) & 0xFFFFFFFF)
            | (np.uint64(np.int64(depth) & 0xFF) << np.uint64(32))
            | (np.uint64(np.int64(flag) & 0xFF) << np.uint64(40))
            | (np.uint64(np.int64(move) & 0xFFFF) << np.uint64(48)))


@njit(cache=True, nogil=True)
def _distinct(buf, n):
    """Deduplicate buf[:n] in place; returns the number of distinct entries."""
    m = 0
    for i in range(n):
        dup = False
        for j in range(m):
            if buf[j] == buf[i]:
                dup = True
                break
        if not dup:
            buf[m] = buf[i]
            m += 1
    return m


@njit(cache=True, nogil=True)
def _static(c, ev, params):
    v = ev[0] if c == 1 else -ev[0]
    v += params[P_TEMPO]
    if v > WIN_BOUND - 1:
        v = WIN_BOUND - 1
    if v < -(WIN_BOUND - 1):
        v = -(WIN_BOUND - 1)
    return int(v)


@njit(cache=True, nogil=True)
def search_root(cells, near, geo, c, depth, root_moves, root_scores, n_root, zob, hkey, ev,
                att, dfn, brd, tt_key, tt_val, tt_depth, tt_flag, tt_move, params, stop, counter):
    """One ID iteration over ``root_moves[:n_root]`` (in that order). Writes each move's score
    into ``root_scores`` (a fail-low bound for non-best moves) and returns the best index, or -1
    if the search was stopped before the iteration completed."""
    alpha = -3 * WIN
    beta = 3 * WIN
    best_i = -1
    opp = 3 - c
    # a computed int64, not the literal 1: a cached recursive kernel must see a single signature
    ply1 = depth - depth + 1
    for i in range(n_root):
        p = root_moves[i]
        _make(cells, near, geo, p, c, zob, hkey, ev, brd)
        if i == 0:
            v = negamax(cells, near, geo, opp, depth - 1, -beta, -alpha, ply1, p, zob, hkey, ev,
                        att, dfn, brd, tt_key, tt_val, tt_depth, tt_flag, tt_move, params, stop, counter)
        else:
            # null-window probe, re-search when it beats the best so far
            v = negamax(cells, near, geo, opp, depth - 1, -alpha - 1, -alpha, ply1, p, zob, hkey, ev,
                        att, dfn, brd, tt_key, tt_val, tt_depth, tt_flag, tt_move, params, stop, counter)
            if v != UNKNOWN_SCORE and -v > alpha:
                v = negamax(cells, near, geo, opp, depth - 1, -beta, -alpha, ply1, p, zob, hkey, ev,
                            att, dfn, brd, tt_key, tt_val, tt_depth, tt_flag, tt_move, params, stop, counter)
        _unmake(cells, near, geo, p, c, zob, hkey, ev, brd)
        if v == UNKNOWN_SCORE:
            return -1
        v = -v
        root_scores[i] = v
        if v > alpha or best_i < 0:
            alpha = max(alpha, v)
            best_i = i
    return best_i
