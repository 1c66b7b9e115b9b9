"""`gomocup-bot bench`: single-core speed of the engine core and a node-count checksum.

Prints, per core (one thread): make/unmake pairs/s, light / heavy / depth-3 playouts/s from the
empty 15×15 board, threat-check µs on fixed midgame positions, VCF nodes/s, and a checksum of
node counts from fixed seeds (it changes exactly when search behaviour changes). Times are CPU
time of this thread (`time.thread_time`), so other processes on a shared machine distort them
less than wall time would; wall time is printed too.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from numba import njit

from .board import Board, board_from_stones, make, new_board, unmake
from .candidates import candidates
from .constants import BLACK
from .playouts import KIND_HEAVY, KIND_LIGHT, play_policy, playout_batch
from .rng import new_rng, rand_below
from .threats import threat_check, win_points

MIDGAME_SEEDS = (11, 12, 13, 14, 15, 16, 17, 18)
MIDGAME_PLIES = 30


@njit(cache=True, nogil=True)
def _make_unmake_loop(b, points, reps):
    """reps × len(points) make/unmake pairs over precomputed empty points; returns a hash sum."""
    acc = np.uint64(0)
    n = points.shape[0]
    colour = 1
    for r in range(reps):
        for i in range(n):
            make(b, points[i], colour)
            acc ^= b.hash[0]
            unmake(b)
            colour = 3 - colour
    return acc


@njit(cache=True, nogil=True)
def _threat_loop(b, colour, reps, out):
    total = 0
    for _ in range(reps):
        status, n = threat_check(b, colour, out)
        total += status + n
    return total


def midgame_positions(seeds=MIDGAME_SEEDS, plies=MIDGAME_PLIES) -> list[tuple[Board, int]]:
    """Fixed 15×15 freestyle positions: heavy-policy games from seeded generators, cut at the
    last ply <= `plies` where neither side can win at once (so VCF and threat checks have work)."""
    out = []
    buf = np.empty(226, dtype=np.int32)
    for seed in seeds:
        for cut in range(plies, 0, -1):
            b = new_board(15, 15)
            done = play_policy(b, BLACK, cut, 1.0, new_rng(seed), buf)
            colour = BLACK if done % 2 == 0 else 3 - BLACK
            if win_points(b, colour, buf) == 0 and win_points(b, 3 - colour, buf) == 0:
                out.append((b, colour))
                break
    return out


VCF_SEEDS = (119, 266, 305, 328)  # two proven non-wins with big trees, two long wins
_LINES = ((1, 0), (0, 1), (1, 1), (1, -1))


def vcf_positions(seeds=VCF_SEEDS) -> list[Board]:
    """15×15 boards strewn with nine closed threes for black (o x x x . .) in random places and
    directions: many fours, so VCF has a real tree to search (black attacks)."""
    boards = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        occ: dict[tuple[int, int], int] = {}
        for _ in range(9):
            for _attempt in range(50):
                dx, dy = _LINES[int(rng.integers(4))]
                x, y = int(rng.integers(15)), int(rng.integers(15))
                cells = [(x + i * dx, y + i * dy) for i in range(6)]
                if all(0 <= a < 15 and 0 <= c < 15 and (a, c) not in occ for a, c in cells):
                    occ[cells[0]] = 2
                    for cell in cells[1:4]:
                        occ[cell] = 1
                    for cell in cells[4:]:
                        occ[cell] = 0
                    break
        boards.append(board_from_stones(15, 15, [(a, c, v) for (a, c), v in occ.items() if v]))
    return boards


class Timer:
    def __enter__(self):
        self.cpu = time.thread_time()
        self.wall = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.cpu = time.thread_time() - self.cpu
        self.wall = time.perf_counter() - self.wall


def run(scale: float = 1.0) -> dict[str, float]:
    """All measurements; `scale` multiplies the work (0.05 for a smoke run)."""
    res: dict[str, float] = {}
    checksum = 0
    positions = midgame_positions()
    # make/unmake: every empty candidate of the first midgame position
    b, _ = positions[0]
    cand = np.empty(226, dtype=np.int32)
    n = candidates(b, cand)
    pts = cand[:n].copy()
    _make_unmake_loop(b, pts, 1)
    reps = max(1, int(20000 * scale))
    with Timer() as t:
        _make_unmake_loop(b, pts, reps)
    res["make_unmake_ns_per_pair"] = t.cpu / (reps * n) * 1e9
    res["make_unmake_pairs_per_s"] = reps * n / t.cpu

    empty = new_board(15, 15)
    stop = np.zeros(1, dtype=np.int32)
    for key, kind, plies, count in (
        ("light", KIND_LIGHT, 0, 200000),
        ("heavy", KIND_HEAVY, 0, 3000),
        ("depth3", KIND_HEAVY, 3, 100000),
    ):
        stats = np.zeros(5)
        playout_batch(empty, BLACK, kind, plies, 1.0, 2, stop, new_rng(0), stats)  # compiled/cached
        stats[:] = 0
        count = max(10, int(count * scale))
        with Timer() as t:
            done = playout_batch(empty, BLACK, kind, plies, 1.0, count, stop, new_rng(2024), stats)
        res[f"{key}_playouts_per_s"] = done / t.cpu
        res[f"{key}_mean_plies"] = stats[3] / done
        checksum += int(stats[3]) + 7 * int(stats[0]) + 13 * int(stats[1])

    out = np.empty(226, dtype=np.int32)
    reps = max(10, int(20000 * scale))
    total_cpu = 0.0
    for b, colour in positions:
        _threat_loop(b, colour, 1, out)
        with Timer() as t:
            checksum += _threat_loop(b, colour, reps, out) // reps
        total_cpu += t.cpu
    res["threat_check_us"] = total_cpu / (reps * len(positions)) * 1e6

    # the VCF's speed is the search bench's (`search.bench`: the one threat search, on vcf_positions)
    res["checksum"] = checksum
    return res
