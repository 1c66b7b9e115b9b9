"""`gomocup-bot warmup`: compile every numba kernel into numba's on-disk cache.

Run once after installing (or let the first brain start do it): later processes load the cached
machine code instead of compiling, which is what Gomocup's clock sees. This module sits above both
kernel packages and calls each one's own warm-up: the engine core's (`gomocup_bot.core.warmup`,
which includes the brain's quick move) and the search's (`gomocup_bot.search.warm`), so the core
never imports the search.
"""
from __future__ import annotations

import argparse
import sys
import time


def warm_core() -> int:
    """Every engine-core kernel; returns how many are now compiled or loaded."""
    from gomocup_bot.core.warmup import warm_all

    return warm_all()


def warm_search() -> bool:
    """Also warm the search kernels (gomocup_bot.search), which the built-in engines use."""
    try:
        from gomocup_bot.search.warm import warm_up
    except ImportError:
        return False
    warm_up()
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gomocup-bot warmup", description=__doc__.splitlines()[0])
    parser.add_argument("--core-only", action="store_true", help="only the engine core, not the search kernels")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    n = warm_core()
    print(f"warmed {n} core kernels in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    if not args.core_only:
        t1 = time.perf_counter()
        if warm_search():
            print(f"warmed the search kernels in {time.perf_counter() - t1:.1f} s", file=sys.stderr)
    return 0
