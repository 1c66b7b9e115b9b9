"""`gomocup-bot bench`: the engine's speed figures -- the core's (make/unmake, threat checks,
playouts, its VCF) and the search's (PVS nodes/s on one thread, depth in one second, VCF and VCT
solve times; MCTS iterations/s) -- each with a node checksum.

Sits above both kernel packages, like the warm-up: the core never imports the search.
"""
from __future__ import annotations

import argparse
import sys
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gomocup-bot bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run (numbers are rough)")
    parser.add_argument("--scale", type=float, default=None, help="multiply the amount of work")
    parser.add_argument("--only", choices=("core", "search", "mcts"), help="run one section")
    args = parser.parse_args(argv)
    scale = args.scale if args.scale is not None else (0.05 if args.quick else 1.0)
    t0 = time.perf_counter()
    res: dict[str, float] = {}
    if args.only in (None, "core"):
        from gomocup_bot.core.bench import run as core_run

        res.update(core_run(scale))
    if args.only in (None, "search"):
        from gomocup_bot.search.bench import run as search_run

        res.update(search_run(scale))
    if args.only in (None, "mcts"):
        from gomocup_bot.search.bench import run_mcts

        res.update(run_mcts(scale))
    width = max(len(k) for k in res)
    for key, value in res.items():
        whole = key.endswith(("checksum", "_nodes", "_cases", "_depth", "_depth_median", "_depth_min", "_positions"))
        text = f"{value:.0f}" if whole else f"{value:,.2f}"
        print(f"{key:<{width}}  {text}")
    print(f"{'wall_s':<{width}}  {time.perf_counter() - t0:.1f}")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
