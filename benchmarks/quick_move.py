"""Per-call cost of the brain's quick move: the numba kernel (`gomocup_bot.core.quick`) vs `greedy`.

Positions: 15x15 midgames from games between two jittered greedy players (seeded), taken every
`--every` plies from ply 10 on, before any five. Two figures, each measured old/new alternating in
the same run so machine load hits both alike:

- wall time per call (median over the positions of the best of `--repeat` calls);
- how much of a numba quick move is Python (so holds the GIL): the whole `quick.choose` call vs
  the kernel call alone on prepared arrays (greedy is Python, and holds the GIL, throughout).

    .venv/bin/python benchmarks/quick_move.py
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gomocup_bot.core import quick  # noqa: E402
from gomocup_bot.engine import BLACK, WHITE, Position  # noqa: E402
from gomocup_bot.engines import greedy  # noqa: E402
from protocol.judge import Board, winning_squares  # noqa: E402
from protocol.rules import Rules  # noqa: E402


def midgame_positions(games: int, plies: int, every: int, rules: Rules) -> list[Position]:
    """Positions from jittered greedy-vs-greedy games, every `every` plies from ply 10."""
    out: list[Position] = []
    for seed in range(games):
        rngs = {BLACK: random.Random(seed), WHITE: random.Random(10_000 + seed)}
        stones: list[tuple[int, int, int]] = [(7, 7, BLACK)]
        for ply in range(1, plies):
            me = BLACK if ply % 2 == 0 else WHITE
            pos = Position(15, 15, rules, tuple(stones), to_move=me)
            if ply >= 10 and ply % every == 0:
                out.append(pos)
            move = greedy.choose(pos, rng=rngs[me])["move"]
            if move in winning_squares(Board(15, 15, stones), me, rules):
                break  # the game is over with this move
            stones.append((*move, me))
    return out


def per_call_seconds(positions: list[Position], repeat: int) -> tuple[list[float], list[float]]:
    """Best-of-`repeat` time of each chooser on each position, the two alternating call by call."""
    new_times, old_times = [], []
    for pos in positions:
        best_new = best_old = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            quick.choose(pos)
            t1 = time.perf_counter()
            greedy.choose(pos)
            t2 = time.perf_counter()
            best_new, best_old = min(best_new, t1 - t0), min(best_old, t2 - t1)
        new_times.append(best_new)
        old_times.append(best_old)
    return new_times, old_times


def kernel_share(positions: list[Position], repeat: int) -> tuple[float, float]:
    """Median best-of-`repeat` seconds of `quick.choose` and of the bare kernel call it makes."""
    whole, kernel = [], []
    for pos in positions:
        template = quick._template(pos.width, pos.height, pos.win_length, quick.rule_code(pos.rules))
        stones = np.array(pos.stones, dtype=np.int32).reshape(-1, 3)
        excluded = np.zeros((0, 2), dtype=np.int32)
        out = np.zeros((1, 2), dtype=np.int32)
        best_whole = best_kernel = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            quick.choose(pos)
            t1 = time.perf_counter()
            quick.quick_move(template, stones, excluded, pos.to_move, out)
            t2 = time.perf_counter()
            best_whole, best_kernel = min(best_whole, t1 - t0), min(best_kernel, t2 - t1)
        whole.append(best_whole)
        kernel.append(best_kernel)
    return statistics.median(whole), statistics.median(kernel)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--plies", type=int, default=60)
    parser.add_argument("--every", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rule", default="freestyle", help="freestyle, renju, exact-five, caro")
    args = parser.parse_args()

    quick.warm_quick()
    positions = midgame_positions(args.games, args.plies, args.every, Rules.from_name(args.rule))
    stones = [len(p.stones) for p in positions]
    print(f"load avg {os.getloadavg()[0]:.2f} over {len(os.sched_getaffinity(0))} usable cpu(s); "
          f"{len(positions)} positions, {args.rule}, {min(stones)}-{max(stones)} stones")
    new, old = per_call_seconds(positions, args.repeat)
    ratios = [o / n for n, o in zip(new, old)]
    print(f"per call, median: numba quick {statistics.median(new) * 1e3:.3f} ms, "
          f"greedy {statistics.median(old) * 1e3:.3f} ms; greedy/quick median ratio {statistics.median(ratios):.1f} "
          f"(min {min(ratios):.1f}, max {max(ratios):.1f})")
    whole, kernel = kernel_share(positions, args.repeat)
    print(f"numba quick, median: whole call {whole * 1e6:.0f} us, kernel call alone {kernel * 1e6:.0f} us "
          f"(its Python side, GIL held: ~{(whole - kernel) * 1e6:.0f} us plus the kernel's argument unboxing)")
    print(f"load avg after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
