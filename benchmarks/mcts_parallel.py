"""MCTS iterations per second with one and two threads (root parallel, and any other variant),
on 15x15 middlegame positions, measured as ratios in the same run.

Positions: each built-in opening, continued by the greedy engine (seeded) to ``--stones`` stones,
kept only when neither side has a five-square (a decided position ends the search at once).
Every position is searched by each variant for ``--seconds`` of wall time (hard deadline only, so
the adaptive stop cannot end it early), the variants alternating in the order 1, 2, ..., 2, 1 so a
change in machine load hits both; the load average is printed with every line.

Two figures per variant: iterations per wall second (what the search gets) and per CPU second
(what a thread costs: the parallel overhead, independent of how many cores the scheduler gave
us). On a shared machine with autogroup scheduling a process gets its session's fair share of
the cores whatever its thread count, so the wall-clock gain of a second thread shows only when a
core is really free; the "cpu" column (CPU seconds per wall second) says how much we got.

    python benchmarks/mcts_parallel.py --positions 8 --seconds 1.0
    python benchmarks/mcts_parallel.py --variant threads=1 --variant threads=2 --variant threads=2,parallel=tree
"""
from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np  # noqa: E402

from gomocup_bot.engine import BLACK, Position, SearchLimits, SearchRequest, StopFlag  # noqa: E402
from gomocup_bot.engines.greedy import GreedyEngine  # noqa: E402
from gomocup_bot.core.board import board_from_position  # noqa: E402
from gomocup_bot.core.classes import C_FIVE  # noqa: E402
from gomocup_bot.search.mcts_driver import MctsConfig, MctsSearcher  # noqa: E402
from protocol.rules import FREESTYLE  # noqa: E402
from tournament.play.openings import BUILTIN_OPENINGS  # noqa: E402


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def midgame_positions(count: int, stones: int, seed: int, size: int = 15) -> list[Position]:
    """Openings continued by the greedy engine; only positions with no five-square for either side."""
    out: list[Position] = []
    rng = random.Random(seed)
    attempt = 0
    while len(out) < count and attempt < 20 * count:
        opening = BUILTIN_OPENINGS[attempt % len(BUILTIN_OPENINGS)].transformed(rng.randrange(8))
        attempt += 1
        moves = [(x, y, BLACK if i % 2 == 0 else 3 - BLACK) for i, (x, y) in enumerate(opening.squares(size, size))]
        engine = GreedyEngine(seed=rng.randrange(1 << 30))
        while len(moves) < stones:
            side = BLACK if len(moves) % 2 == 0 else 3 - BLACK
            pos = Position(size, size, FREESTYLE, tuple(moves), side)
            x, y = engine.search(SearchRequest(pos, SearchLimits.from_budget(1.0)), StopFlag()).move
            moves.append((x, y, side))
        side = BLACK if len(moves) % 2 == 0 else 3 - BLACK
        pos = Position(size, size, FREESTYLE, tuple(moves), side)
        b = board_from_position(pos)
        if b.cnt[0, C_FIVE] == 0 and b.cnt[1, C_FIVE] == 0:
            out.append(pos)
    return out


def parse_variant(text: str) -> dict:
    """``threads=2,parallel=tree`` -> MctsConfig keyword arguments."""
    kw: dict = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        kw[key] = int(value) if value.isdigit() else value
    return kw


def rate(pos: Position, variant: dict, seconds: float, seed: int) -> tuple[float, float]:
    """(iterations per second, CPU seconds per wall second) of one search of ``seconds`` (a fresh
    searcher, default config). The CPU share shows whether the second thread really got a core."""
    board = board_from_position(pos)
    searcher = MctsSearcher(MctsConfig(seed=seed, **variant), 1 << 21)
    stop = np.zeros(1, dtype=np.int32)
    c0 = time.process_time()
    t0 = time.monotonic()
    out = searcher.run(board, pos.to_move, stop, hard_deadline=t0 + seconds)
    wall = time.monotonic() - t0
    return out.iterations / wall, (time.process_time() - c0) / wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=8)
    ap.add_argument("--stones", type=int, default=24, help="stones on the board (default %(default)s)")
    ap.add_argument("--seconds", type=float, default=1.0, help="search time per measurement")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--variant", action="append", default=[],
                    help="MctsConfig overrides, e.g. threads=2 (default: threads=1 and threads=2)")
    args = ap.parse_args(argv)
    variants = args.variant or ["threads=1", "threads=2"]
    kws = [parse_variant(v) for v in variants]
    # warm the kernels (and the helper-thread path) before timing anything
    warm = midgame_positions(1, 12, args.seed)[0]
    for kw in kws:
        rate(warm, kw, 0.2, 1)  # noqa: the result is not used
    positions = midgame_positions(args.positions, args.stones, args.seed)
    print(f"{len(positions)} positions, {args.stones} stones, {args.seconds} s each; variants {variants}")
    logs = {v: [] for v in variants}
    per_cpu: dict[str, list[float]] = {v: [] for v in variants}
    for i, pos in enumerate(positions):
        order = list(range(len(kws))) + list(reversed(range(len(kws))))
        got: dict[str, list[tuple[float, float]]] = {v: [] for v in variants}
        for j in order:
            got[variants[j]].append(rate(pos, kws[j], args.seconds, i + 1))
        means = {v: sum(r for r, _ in xs) / len(xs) for v, xs in got.items()}
        cpu = {v: sum(c for _, c in xs) / len(xs) for v, xs in got.items()}
        for v in variants:
            logs[v].append(means[v])
            per_cpu[v].append(means[v] / max(cpu[v], 1e-9))
        cells = "  ".join(f"{v}: {means[v]:7.0f}/s ({per_cpu[v][-1]:6.0f}/cpu-s, cpu {cpu[v]:.2f})" for v in variants)
        ratios = "  ".join(f"{means[v] / means[variants[0]]:.2f}" for v in variants[1:])
        print(f"position {i + 1}: {cells}  ratio vs {variants[0]}: {ratios}  (load {loadavg()})", flush=True)
    def gmean_ratio(xs, ys) -> float:
        return math.exp(sum(math.log(a / b) for a, b in zip(xs, ys)) / len(xs))

    for v in variants[1:]:
        print(f"geometric mean ratio {v} / {variants[0]}: wall {gmean_ratio(logs[v], logs[variants[0]]):.2f}, "
              f"per CPU second {gmean_ratio(per_cpu[v], per_cpu[variants[0]]):.2f}")
    print(f"load average at the end: {loadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
