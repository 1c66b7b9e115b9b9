"""A/B of the light playout kernel: the cell-scanning kernel of main 00f28e5 (kept verbatim as the
reference in tests/core/test_light_playout.py) against `core.playouts.light_playout`, in one
process, alternating, from the empty 15×15 board (or a midgame position) with the same seed (both play the same games).

    PYTHONPATH=. .venv/bin/python benchmarks/light_ab.py [--rounds 7] [--count 100000]

Prints this thread's CPU-time playouts/s per round, the medians and the load average.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from gomocup_bot.core.board import new_board  # noqa: E402
from gomocup_bot.core.playouts import light_playout, light_work_size  # noqa: E402
from gomocup_bot.core.rng import new_rng  # noqa: E402
from tests.core.test_light_playout import reference_light_playout  # noqa: E402


@njit(nogil=True)
def _old_batch(b, colour, count, rng, out):
    scratch = np.empty(b.cells.shape[0], dtype=np.int8)
    cand = np.empty(b.meta[0] * b.meta[1] + 1, dtype=np.int32)
    for _ in range(count):
        winner, plies = reference_light_playout(b, colour, rng, scratch, cand)
        out[winner] += 1
        out[3] += plies


@njit(nogil=True)
def _new_batch(b, colour, count, rng, out):
    work = np.empty(light_work_size(b.meta[0], b.meta[1]), dtype=np.uint64)
    cand = np.empty(b.meta[0] * b.meta[1] + 1, dtype=np.int32)
    for _ in range(count):
        winner, plies = light_playout(b, colour, rng, work, cand)
        out[winner] += 1
        out[3] += plies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--count", type=int, default=100000)
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--midgame", action="store_true", help="from the bench's first midgame position instead")
    args = parser.parse_args()
    board = new_board(args.size, args.size)
    colour = 1
    if args.midgame:
        from gomocup_bot.core.bench import midgame_positions

        board, colour = midgame_positions()[0]
    kernels = {"old": _old_batch, "new": _new_batch}
    for fn in kernels.values():
        fn(board, colour, 2, new_rng(0), np.zeros(4, dtype=np.int64))
    print(f"load average before: {os.getloadavg()}")
    rates: dict[str, list[float]] = {name: [] for name in kernels}
    stats = {}
    for r in range(args.rounds):
        for name in (("old", "new") if r % 2 == 0 else ("new", "old")):
            out = np.zeros(4, dtype=np.int64)
            t = time.thread_time()
            kernels[name](board, colour, args.count, new_rng(2024), out)
            rates[name].append(args.count / (time.thread_time() - t))
            stats[name] = out.tolist()
    print(f"load average after: {os.getloadavg()}")
    for name, v in rates.items():
        print(f"{name}: median {statistics.median(v) / 1e3:6.1f} k/s  rounds {[round(x / 1e3, 1) for x in v]}"
              f"  (draws, black, white, plies) {stats[name]}")
    print(f"new/old: {statistics.median(rates['new']) / statistics.median(rates['old']):.2f}x")
    return 0 if stats["old"] == stats["new"] else 1


if __name__ == "__main__":
    sys.exit(main())
