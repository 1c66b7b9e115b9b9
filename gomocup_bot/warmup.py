"""`gomocup-bot warmup`: compile every numba kernel into numba's on-disk cache.

Run once after installing (or let the first brain start do it): later processes load the cached
machine code instead of compiling, which is what Gomocup's clock sees. This module sits above both
kernel packages and calls each one's own warm-up: the engine core's (`gomocup_bot.core.warmup`,
which includes the brain's quick move) and the search's (`gomocup_bot.search.warm`), so the core
never imports the search.

A cold compile takes minutes of one core, and the kernels fall into two halves that share no
numba type (boards with k <= 5 and boards with k > 5), so `--jobs 2` (the default on a machine
with two cores or more) compiles the halves in two processes at once.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

CORE, CORE_BIG_K = "core", "core-big-k"
SEARCH_PARTS = ("pvs", "pvs-net", "pvs-big-k", "pns", "mcts", "mcts-plain", "mcts-shared", "mcts-net")  # search.warm's names
ALL_PARTS = (CORE, CORE_BIG_K) + SEARCH_PARTS
# Two processes of about equal work (cold, one core each: about 260 s CPU a half here): the table
# boards' kernels with the MCTS, and the k > 5 boards' with the proof-number search, whose
# table-board core kernels the first process has cached by the time the second reaches them.
HALVES = ((CORE, "pvs", "pvs-net", "mcts", "mcts-plain", "mcts-shared", "mcts-net"), (CORE_BIG_K, "pvs-big-k", "pns"))


def warm_parts(parts: tuple[str, ...]) -> int:
    """Compile (or load) the kernels of `parts` in this process; returns how many core kernels
    are ready."""
    from gomocup_bot.core.warmup import BIG_K_BOARDS, TABLE_BOARDS, warm_all

    kinds = tuple(kind for part, kind in ((CORE, TABLE_BOARDS), (CORE_BIG_K, BIG_K_BOARDS)) if part in parts)
    ready = warm_all(kinds) if kinds else 0
    search = tuple(p for p in SEARCH_PARTS if p in parts)
    if search:
        from gomocup_bot.neteval.weights import NetWeightsError
        from gomocup_bot.search.warm import warm_up

        try:
            warm_up(search)
        except NetWeightsError as exc:  # the tables still work; a brain with the net on will refuse to play
            print(f"warning: the network evaluation's kernels are not warmed: {exc}", file=sys.stderr)
            warm_up(tuple(p for p in search if p != "pvs-net"))
    return ready


def _parse_parts(text: str) -> tuple[str, ...]:
    parts = tuple(p.strip() for p in text.split(",") if p.strip())
    unknown = [p for p in parts if p not in ALL_PARTS]
    if unknown or not parts:
        raise argparse.ArgumentTypeError(f"unknown part(s) {unknown or text!r}; choose from {','.join(ALL_PARTS)}")
    return parts


def _default_jobs() -> int:
    return 2 if (os.cpu_count() or 1) >= 2 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="gomocup-bot warmup",
        description=__doc__.splitlines()[0],
        epilog="Cold, the whole warm-up takes several minutes of CPU; warm, a few seconds (it only loads).",
    )
    parser.add_argument("--core-only", action="store_true", help="only the engine core, not the search kernels")
    parser.add_argument(
        "--parts", type=_parse_parts, default=ALL_PARTS, metavar="LIST",
        help=f"comma-separated parts to warm (default all: {','.join(ALL_PARTS)})",
    )
    parser.add_argument(
        "--jobs", type=int, choices=(1, 2), default=_default_jobs(),
        help="processes compiling at once (default %(default)s here: 2 on a machine with two cores or more)",
    )
    args = parser.parse_args(argv)
    parts = tuple(p for p in args.parts if not (args.core_only and p in SEARCH_PARTS))
    t0 = time.perf_counter()
    halves = [tuple(p for p in half if p in parts) for half in HALVES]
    halves = [half for half in halves if half]
    if args.jobs == 1 or len(halves) < 2:
        n = warm_parts(parts)
        print(f"warmed {','.join(parts)} ({n} core kernels) in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        return 0
    # the second half in a child process, the first here; the child's stderr passes through
    child = subprocess.Popen([sys.executable, "-m", "gomocup_bot", "warmup", "--jobs", "1", "--parts", ",".join(halves[1])])
    try:
        n = warm_parts(halves[0])
        print(f"warmed {','.join(halves[0])} ({n} core kernels) in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    finally:
        code = child.wait()
    if code != 0:
        print(f"warmup: the process warming {','.join(halves[1])} exited with {code}", file=sys.stderr)
        return 1
    print(f"warmup done in {time.perf_counter() - t0:.1f} s (2 processes)", file=sys.stderr)
    return 0
