"""Playout kernels: light (uniform among candidates), heavy (win > block > 70 % best / 30 % random),
and depth-limited heavy playouts scored by the bounded heuristic at the cut.

Every playout leaves the board exactly as it found it. Results: the winner (BLACK/WHITE, or
RESULT_DRAW) and the ply count at which the game ended (or was cut). Renju fouls are not checked
inside playouts (too costly per move); black's overline does not win (exact five).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .bits import load8, lz64, tz64
from .constants import (
    EMPTY,
    M_HEIGHT,
    M_K,
    M_NMOVES,
    M_PAD,
    M_RULE,
    M_STRIDE,
    M_WIDTH,
    RESULT_DRAW,
    RULE_CARO,
    RULE_CARO_EXACT,
    RULE_EXACT,
    RULE_RENJU,
    WALL,
    WHITE,
)
from .board import make, unmake
from .candidates import candidates
from .patterns import evaluate, move_score, sync_patterns
from .rng import below, rand_below, rand_unit, xorshift
from .threats import wins_at

KIND_LIGHT = 0
KIND_HEAVY = 1
BEST_SHARE = 0.7  # heavy policy: share of moves that take the best-scored candidate


@njit(cache=True, nogil=True)
def light_work_size(width, height):
    """Length of the uint64 work buffer `light_playout` needs on a width×height board."""
    return 2 * (3 * (width + height) - 2) + height + 4


@njit(cache=True, nogil=True, forceinline=True)
def _run_ends(line, bit):
    """Own stones right before / after `bit` on a line word of own stones (bit 0 is never a stone,
    1 <= bit <= 32): (leading ones below bit, trailing ones above bit), branch-free."""
    m = ~line
    return lz64(m << (np.uint64(64) - bit)), tz64(m >> (bit + np.uint64(1)))


@njit(cache=True, nogil=True, forceinline=True)
def _wins_exactly(work, base, obase, c, side, k, rule, w, h):
    """The rule check of `rules.line_wins` on the line words: does `side` on packed point c win?
    (Only reached when some line holds k stones or more.)"""
    x = np.uint64(c & 31)
    y = np.uint64(c >> 5)
    one = np.uint64(1)
    for d in range(4):
        if d == 0:
            i = y
            bit = x + one
        elif d == 1:
            i = np.uint64(h) + x
            bit = y + one
        elif d == 2:
            i = np.uint64(2 * h + w - 1) + x - y
            bit = x + one
        else:
            i = np.uint64(2 * h + 2 * w - 1) + x + y
            bit = x + one
        a, f = _run_ends(work[base + i], bit)
        length = a + f + one
        if length < k:
            continue
        if rule == RULE_RENJU:
            if side == WHITE or length == k:
                return True
        elif rule == RULE_EXACT:
            if length == k:
                return True
        elif rule == RULE_CARO or rule == RULE_CARO_EXACT:
            if length > k:
                if rule == RULE_CARO:
                    return True
            else:
                # blocked only by opponent stones at both ends (the edge and blocked squares are
                # in no colour's words, so they do not block)
                o = work[obase + i]
                if not ((o >> (bit - a - one)) & one and (o >> (bit + f + one)) & one):
                    return True
        else:
            return True
    return False


@njit(cache=True, nogil=True)
def _light_run(cells, nbr, w, h, k, rule, pad, stride, colour, rng, work, cand):
    """The light playout on bit words (see `light_playout`); board arrays and scalars only, so the
    caller's Board tuple costs no reference counting in here.

    work (uint64) holds, per colour, one word per line of each direction -- rows (bit x+1), columns
    (bit y+1), ↘ diagonals x-y+h-1 and ↙ diagonals x+y (bit x+1) -- then `occ`: h+4 row words, bit
    x+2 set for every stone, blocked square, candidate already in the set and off-board column (the
    two rows above and below are all set). Candidates are packed y·32 + x.
    """
    lpc = 3 * (w + h) - 2  # line words per colour
    nl = 2 * lpc
    # checked here, not in light_playout: a raise there kept numba from pruning the Board's
    # reference counts (-6 % playouts/s)
    if work.shape[0] < nl + h + 4 or cand.shape[0] < w * h:
        raise ValueError("light_playout: work or cand buffer too short")
    for j in range(nl):
        work[j] = 0
    one = np.uint64(1)
    full = ~np.uint64(0)
    inner = ((one << np.uint64(w)) - one) << np.uint64(2)
    uo = np.uint64(nl)  # occ word of board row y: work[uo + y + 2]
    work[uo] = full
    work[uo + one] = full
    work[uo + np.uint64(h + 2)] = full
    work[uo + np.uint64(h + 3)] = full
    n = 0
    any_stone = False
    for y in range(h):
        pbase = np.uint64((y + pad) * stride + pad)
        row = ~inner
        x0 = 0
        while x0 < w:
            # 8 cells at a time: skip them when all empty with no stone within distance 2
            rem = w - x0
            q = pbase + np.uint64(x0)
            if rem >= 8:
                mc = full
                m0 = full
                m1 = full
            else:  # the row's last cells: mask the padding off (shifts stay below 64)
                mc = (one << np.uint64(8 * rem)) - one
                if rem >= 4:
                    m0 = full
                    m1 = (one << np.uint64(16 * (rem - 4))) - one
                else:
                    m0 = (one << np.uint64(16 * rem)) - one
                    m1 = np.uint64(0)
            if (load8(cells, q) & mc) | (load8(nbr, q) & m0) | (load8(nbr, q + np.uint64(4)) & m1) == 0:
                x0 += 8
                continue
            for x in range(x0, min(x0 + 8, w)):
                p = pbase + np.uint64(x)
                v = cells[p]
                if v == EMPTY:
                    if nbr[p] > 0:
                        row |= one << np.uint64(x + 2)
                        cand[n] = y * 32 + x
                        n += 1
                else:
                    row |= one << np.uint64(x + 2)
                    if v != WALL:
                        any_stone = True
                        lb = (v - 1) * lpc
                        bx = one << np.uint64(x + 1)
                        work[lb + y] |= bx
                        work[lb + h + x] |= one << np.uint64(y + 1)
                        work[lb + 2 * h + w - 1 + x - y] |= bx
                        work[lb + 2 * h + 2 * w - 1 + x + y] |= bx
            x0 += 8
        work[uo + np.uint64(y + 2)] = row
    if not any_stone:
        x = w // 2
        y = h // 2
        if cells[np.uint64((y + pad) * stride + pad + x)] == EMPTY:
            work[uo + np.uint64(y + 2)] |= one << np.uint64(x + 2)
            cand[n] = y * 32 + x
            n += 1
    side = colour
    plies = 0
    st = rng[0]  # the generator word stays in a register (+6 %), stored back on return
    uk = np.uint64(k)
    oc = np.uint64(h)
    od = np.uint64(2 * h + w - 1)
    oa = np.uint64(2 * h + 2 * w - 1)
    while True:
        if n == 0:
            # nothing near the stones: fall back to any empty point, else the board is full
            for r in range(2, h + 2):
                free = ~work[uo + np.uint64(r)]
                work[uo + np.uint64(r)] = full
                while free:
                    t = np.int64(tz64(free))
                    cand[n] = (r - 2) * 32 + t - 2
                    n += 1
                    free &= free - one
            if n == 0:
                rng[0] = st
                return RESULT_DRAW, plies
        st = xorshift(st)
        i = below(st, n)
        c = np.int64(cand[i])
        n -= 1
        cand[i] = cand[np.uint64(n)]
        plies += 1
        x = np.uint64(c & 31)
        y = np.uint64(c >> 5)
        base = np.uint64((side - 1) * lpc)
        bx = x + one
        by = y + one
        i_r = base + y
        i_c = base + oc + x
        i_d = base + od + x - y
        i_a = base + oa + x + y
        lr = work[i_r]
        lc = work[i_c]
        ld = work[i_d]
        la = work[i_a]
        # longest own run through the point over the four lines, without a branch
        a0, f0 = _run_ends(lr, bx)
        a1, f1 = _run_ends(lc, by)
        a2, f2 = _run_ends(ld, bx)
        a3, f3 = _run_ends(la, bx)
        if max(max(a0 + f0, a1 + f1), max(a2 + f2, a3 + f3)) + one >= uk:
            if _wins_exactly(work, base, np.uint64((2 - side) * lpc), c, side, k, rule, w, h):
                rng[0] = st
                return side, plies
        work[i_r] = lr | (one << bx)
        work[i_c] = lc | (one << by)
        work[i_d] = ld | (one << bx)
        work[i_a] = la | (one << bx)
        # new candidates: the free points of the 5×5 square, gathered as 5 bits per byte
        m = np.uint64(0)
        ro = uo + y
        for j in range(5):
            r = ro + np.uint64(j)
            o = work[r]
            nw = ~o & (np.uint64(0x1F) << x)
            work[r] = o | nw
            m |= (nw >> x) << np.uint64(8 * j)
        cb = c - 66  # (y - 2)·32 + x - 2
        while m:
            t = np.int64(tz64(m))
            cand[np.uint64(n)] = cb + ((t >> 3) << 5) + (t & 7)
            n += 1
            m &= m - one
        side = 3 - side


@njit(cache=True, nogil=True)
def light_playout(b, colour, rng, work, cand):
    """Uniformly random moves among empty points within distance 2 of a stone (the centre on an
    empty board) until a win or a full board. `work` uint64[light_work_size(w, h)] and `cand`
    int32[width·height] are work buffers; the board is only read. Returns (winner, plies).

    Stones live in one bit word per line and colour, so the win test is four tzcnt/lzcnt pairs and
    the candidate growth five word operations (1.7x the cell-scanning kernel; docs/core.md)."""
    meta = b.meta
    w = meta[M_WIDTH]
    h = meta[M_HEIGHT]
    return _light_run(b.cells, b.nbr, w, h, meta[M_K], meta[M_RULE], meta[M_PAD], meta[M_STRIDE], colour, rng, work, cand)


@njit(cache=True, nogil=True)
def heavy_playout(b, colour, max_plies, attack_lambda, rng, cand):
    """Heavy policy playout for `colour` to move: win if possible, else block the opponent's five,
    else the best `move_score` candidate with probability 0.7 or a uniform one. Stops after
    `max_plies` (0 = play out). Returns (winner, plies, value for `colour` in [−1, 1])."""
    n0 = b.meta[M_NMOVES]
    side = colour
    plies = 0
    winner = RESULT_DRAW
    value = 0.0
    while True:
        if max_plies > 0 and plies >= max_plies:
            value = evaluate(b, colour, attack_lambda)
            break
        sync_patterns(b)
        n = candidates(b, cand)
        if n == 0 or b.cells[cand[0]] != EMPTY:
            break  # full board: draw
        opp = 3 - side
        win_p = -1
        block_p = -1
        best_p = cand[0]
        best_s = -1
        for j in range(n):
            p = cand[j]
            if wins_at(b, p, side):
                win_p = p
                break
            if block_p < 0 and wins_at(b, p, opp):
                block_p = p
            sc = move_score(b, side, p)
            if sc > best_s:
                best_s = sc
                best_p = p
        if win_p >= 0:
            make(b, win_p, side)
            plies += 1
            winner = side
            value = 1.0 if side == colour else -1.0
            break
        if block_p >= 0:
            p = block_p
        elif rand_unit(rng) < BEST_SHARE:
            p = best_p
        else:
            p = cand[rand_below(rng, n)]
        make(b, p, side)
        plies += 1
        side = opp
    while b.meta[M_NMOVES] > n0:
        unmake(b)
    return winner, plies, value


@njit(cache=True, nogil=True)
def playout_batch(b, colour, kind, max_plies, attack_lambda, count, stop, rng, stats):
    """Run up to `count` playouts of `kind` (KIND_LIGHT / KIND_HEAVY) from the position, `colour` to
    move, stopping early when stop[0] != 0 (polled between playouts: each takes microseconds).

    stats (float64[5]) accumulates: black wins, white wins, draws/cuts, total plies, sum of values for
    `colour`. Returns the number of playouts done.
    """
    work = np.empty(light_work_size(b.meta[M_WIDTH], b.meta[M_HEIGHT]), dtype=np.uint64)
    cand = np.empty(b.meta[M_WIDTH] * b.meta[M_HEIGHT] + 1, dtype=np.int32)
    done = 0
    for _ in range(count):
        if stop[0] != 0:
            break
        if kind == KIND_LIGHT:
            winner, plies = light_playout(b, colour, rng, work, cand)
            value = 0.0 if winner == RESULT_DRAW else (1.0 if winner == colour else -1.0)
        else:
            winner, plies, value = heavy_playout(b, colour, max_plies, attack_lambda, rng, cand)
        if winner == RESULT_DRAW:
            stats[2] += 1
        else:
            stats[winner - 1] += 1
        stats[3] += plies
        stats[4] += value
        done += 1
    return done


@njit(cache=True, nogil=True)
def play_policy(b, colour, plies, attack_lambda, rng, cand):
    """Play up to `plies` heavy-policy moves on the board and leave them there (bench and test
    positions). Stops before a move that would win. Returns the number of moves played."""
    side = colour
    done = 0
    while done < plies:
        sync_patterns(b)
        n = candidates(b, cand)
        if n == 0 or b.cells[cand[0]] != EMPTY:
            break
        best_p = cand[0]
        best_s = -1
        for j in range(n):
            sc = move_score(b, side, cand[j])
            if sc > best_s:
                best_s = sc
                best_p = cand[j]
        p = best_p if rand_unit(rng) < BEST_SHARE else cand[rand_below(rng, n)]
        if wins_at(b, p, side) or wins_at(b, best_p, side):
            break
        make(b, p, side)
        done += 1
        side = 3 - side
    return done
