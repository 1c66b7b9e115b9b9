"""Depth reached in one second on the search bench's midgames, by this checkout's PVS and by the
window-count alpha-beta of an older checkout (issue 12's base, 614fec6), back to back at the same
machine load.

The old searcher is gone from this tree, so it runs in the base checkout's own interpreter:

    git worktree add --detach ../base 614fec6 && python3 -m venv ../base/.venv \
        && ../base/.venv/bin/pip install -e ../base && ../base/.venv/bin/gomocup-bot warmup
    python benchmarks/depth_at_one_second.py --old-python ../base/.venv/bin/python --runs 3

Each position gets a fresh table, one thread, soft and hard deadline one second after the start
(each searcher applies its own rule for starting another iteration). Positions a searcher proves
won or lost are left out of its figures, as in `gomocup-bot bench`.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

# run inside the old checkout (its modules, gone from this tree): builds each midgame on its board
# view and searches one second
OLDER_CHECKOUT_CODE = r"""
import json, sys, time
import numpy as np
from gomocup_bot.search.board import new_board, place, to_index
from gomocup_bot.search.idsearch import AbConfig, AlphaBetaSearcher
games, seconds = json.loads(sys.argv[1]), float(sys.argv[2])
s = AlphaBetaSearcher(16 << 20, AbConfig(threads=1))
stop = np.zeros(1, dtype=np.int32)
out = []
for line in games:
    cells, near, geo = new_board(15, 15)
    moves = [tuple(int(v) for v in m.split(",")) for m in line.split()]
    for i, (x, y) in enumerate(moves):
        place(cells, near, geo, to_index(x, y, geo), 1 + i % 2)
    s.clear()
    t0 = time.monotonic()
    r = s.search(cells, near, geo, 1 + len(moves) % 2, stop, soft_deadline=t0 + seconds, hard_deadline=t0 + seconds)
    out.append(-1 if r.proven else r.depth)
print(json.dumps(out))
"""


def new_depths(seconds: float) -> list[int]:
    """This checkout's default PVS, one thread; -1 where the position was proven."""
    import numpy as np

    from gomocup_bot.search.bench import midgame_boards
    from gomocup_bot.search.pvs_driver import PvsConfig, PvsSearcher

    stop = np.zeros(1, dtype=np.int32)
    searcher = PvsSearcher(16 << 20, PvsConfig(threads=1))
    boards = midgame_boards()
    searcher.search(boards[0][0], boards[0][1], stop, soft_deadline=None, hard_deadline=None, max_depth=2)
    out = []
    for board, side in boards:
        searcher.clear()
        t0 = time.monotonic()
        r = searcher.search(board, side, stop, soft_deadline=t0 + seconds, hard_deadline=t0 + seconds)
        out.append(-1 if r.proven else r.depth)
    return out


def old_depths(python: str, seconds: float) -> list[int]:
    from gomocup_bot.search.bench import MIDGAMES

    env = dict(os.environ, PYTHONPATH="")
    res = subprocess.run([python, "-c", OLDER_CHECKOUT_CODE, json.dumps(list(MIDGAMES)), str(seconds)],
                         capture_output=True, text=True, env=env, cwd="/", check=False)
    if res.returncode != 0:
        sys.exit(f"the old checkout's search failed:\n{res.stderr[-2000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def summary(depths: list[int]) -> str:
    d = [x for x in depths if x > 0]
    if not d:
        return "every position proven"
    return f"median {statistics.median(d):g}, min {min(d)} ({' '.join(str(x) if x > 0 else 'p' for x in depths)})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old-python", help="the base checkout's python (omit to measure this checkout only)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each searcher, alternating (default 3)")
    ap.add_argument("--seconds", type=float, default=1.0, help="time per position (default 1)")
    a = ap.parse_args()
    sys.path.insert(0, str(HERE))
    for run in range(1, a.runs + 1):
        load = os.getloadavg()[0]
        new = new_depths(a.seconds)
        line = f"run {run} (load {load:.1f}): this checkout {summary(new)}"
        if a.old_python:
            old = old_depths(a.old_python, a.seconds)
            both = [(n, o) for n, o in zip(new, old) if n > 0 and o > 0]
            ratio = statistics.median(n / o for n, o in both) if both else float("nan")
            line += f"; old {summary(old)}; median per-position ratio {ratio:.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
