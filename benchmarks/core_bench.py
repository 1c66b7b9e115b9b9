"""The engine core's speed figures (same as `gomocup-bot bench`), with the machine's state noted.

Times are this thread's CPU time, so a busy shared machine distorts them less than wall time, but
hyper-threads and caches are still shared: run it a few times and read the spread.

    .venv/bin/python benchmarks/core_bench.py [--repeat 3] [--scale 1.0]
"""
from __future__ import annotations

import argparse
import os
import platform
import sys

from gomocup_bot.core.bench import run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
          f"load average before: {os.getloadavg()[0]:.1f}")
    rows: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        for key, value in run(args.scale).items():
            rows.setdefault(key, []).append(value)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    width = max(map(len, rows))
    for key, values in rows.items():
        v = sorted(values)
        print(f"{key:<{width}}  median {v[len(v) // 2]:>14,.2f}   min {v[0]:>14,.2f}   max {v[-1]:>14,.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
