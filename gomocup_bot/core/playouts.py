"""Playout kernels: light (uniform among candidates), heavy (win > block > 70 % best / 30 % random),
and depth-limited heavy playouts scored by the bounded heuristic at the cut.

Every playout leaves the board exactly as it found it. Results: the winner (BLACK/WHITE, or
RESULT_DRAW) and the ply count at which the game ended (or was cut). Renju fouls are not checked
inside playouts (too costly per move); black's overline does not win (exact five).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .constants import EMPTY, M_HEIGHT, M_K, M_NMOVES, M_RULE, M_WIDTH, RESULT_DRAW
from .board import make, to_pos, unmake
from .candidates import candidates
from .patterns import evaluate, move_score, sync_patterns
from .rng import rand_below, rand_unit
from .rules import line_wins
from .threats import wins_at

KIND_LIGHT = 0
KIND_HEAVY = 1
IN_SET = 4  # scratch-cell mark: empty and already a candidate
BEST_SHARE = 0.7  # heavy policy: share of moves that take the best-scored candidate


@njit(cache=True, nogil=True)
def light_playout(b, colour, rng, scratch, cand):
    """Uniformly random moves among empty points within distance 2 of a stone until a win or a full
    board. `scratch` int8[size] and `cand` int32[width·height] are work buffers. Returns (winner, plies)."""
    cells = scratch
    cells[:] = b.cells
    k = b.meta[M_K]
    rule = b.meta[M_RULE]
    s = b.dirs[1]
    n = 0
    w = b.meta[M_WIDTH]
    h = b.meta[M_HEIGHT]
    any_stone = False
    for y in range(h):
        base = to_pos(b, 0, y)
        for x in range(w):
            p = base + x
            v = cells[p]
            if v == EMPTY:
                if b.nbr[p] > 0:
                    cells[p] = IN_SET
                    cand[n] = p
                    n += 1
            elif v != 3:
                any_stone = True
    if not any_stone:
        p = to_pos(b, w // 2, h // 2)
        if cells[p] == EMPTY:
            cells[p] = IN_SET
            cand[n] = p
            n += 1
    side = colour
    plies = 0
    dirs = b.dirs
    one = np.uint64(1)
    while True:
        if n == 0:
            # nothing near the stones: fall back to any empty point, else the board is full
            for y in range(h):
                base = to_pos(b, 0, y)
                for x in range(w):
                    p = base + x
                    if cells[p] == EMPTY:
                        cells[p] = IN_SET
                        cand[n] = p
                        n += 1
            if n == 0:
                return RESULT_DRAW, plies
        # unsigned indices below: numba skips its negative-index branch (1.3x playouts/s)
        i = np.uint64(rand_below(rng, n))
        p = cand[i]
        n -= 1
        cand[i] = cand[np.uint64(n)]
        plies += 1
        won = False
        for d in range(4):
            if line_wins(cells, p, dirs[d], side, k, rule):
                won = True
                break
        cells[np.uint64(p)] = side
        if won:
            return side, plies
        for dy in range(-2, 3):
            q = np.uint64(p + dy * s - 2)
            for dx in range(5):
                if cells[q] == EMPTY:
                    cells[q] = IN_SET
                    cand[np.uint64(n)] = q
                    n += 1
                q += one
        side = 3 - side


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
    size = b.cells.shape[0]
    scratch = np.empty(size, dtype=np.int8)
    cand = np.empty(b.meta[M_WIDTH] * b.meta[M_HEIGHT] + 1, dtype=np.int32)
    done = 0
    for _ in range(count):
        if stop[0] != 0:
            break
        if kind == KIND_LIGHT:
            winner, plies = light_playout(b, colour, rng, scratch, cand)
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
