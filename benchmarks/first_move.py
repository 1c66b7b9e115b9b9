"""The first move of a fresh brain process, timed as a manager times it.

Piskvork, c-gomoku-cli and gomocup-tournament write START, wait for OK, then send the INFO lines
and BEGIN (or BOARD); some managers write it all in one burst at spawn (`--burst`), and then the
turn clock runs while Python is still starting. The brain loads its engine (numba's cached
kernels, 0.5-1.5 s) in a thread beside START, whose OK waits for it up to 1 s (not in a burst),
so the first move is the one most at risk of running over: it is answered by the quick fallback
unless the engine is ready in time.

    .venv/bin/python benchmarks/first_move.py [--runs N] [--budgets-ms 500,1000] [--busy]

`--busy` keeps the other core busy with a spinning process, as a second game would. Prints, per
budget: median, p90 and max of (first move time / budget), how many were over budget and how
many were answered by the engine rather than the fallback (from the brain's log). The machine
is shared: compare runs made in the same minutes, not with figures from another day.
"""
from __future__ import annotations

import argparse
import os
import select
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _read_line(proc: subprocess.Popen, timeout: float, *, skip: tuple[str, ...] = ()) -> tuple[str | None, float]:
    """The first line not starting with one of `skip`, and when it was complete."""
    fd = proc.stdout.fileno()
    buf = b""
    deadline = time.perf_counter() + timeout
    while True:
        left = deadline - time.perf_counter()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None, time.perf_counter()
        chunk = os.read(fd, 4096)
        if not chunk:
            return None, time.perf_counter()
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            text = line.decode().strip()
            if text and not text.upper().startswith(skip):
                return text, time.perf_counter()


def first_move(budget_ms: int, engine_args: list[str], burst_start: bool) -> tuple[float, bool]:
    """(first move seconds from BEGIN, whether the engine rather than the fallback answered)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "gomocup_bot", "--log-level", "INFO", *engine_args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, env=ENV,
    )
    burst = (f"START 15\r\nINFO timeout_turn {budget_ms}\r\nINFO timeout_match 180000\r\n"
             f"INFO time_left 180000\r\nINFO max_memory 367001600\r\nINFO rule 0\r\n")
    if burst_start:  # everything at once: the move's clock runs while Python is still starting
        proc.stdin.write(burst.encode())
        proc.stdin.flush()
    else:  # Piskvork, c-gomoku-cli and gomocup-tournament wait for START's OK first
        proc.stdin.write(burst.splitlines(keepends=True)[0].encode())
        proc.stdin.flush()
        ok, _ = _read_line(proc, 30)
        assert ok == "OK", ok
        proc.stdin.write("".join(burst.splitlines(keepends=True)[1:]).encode())
        proc.stdin.flush()
    sent = time.perf_counter()
    proc.stdin.write(b"BOARD\r\n7,7,2\r\n8,7,1\r\n8,8,2\r\nDONE\r\n")
    proc.stdin.flush()
    move, at = _read_line(proc, 30, skip=("OK", "MESSAGE", "DEBUG"))
    assert move is not None and "," in move, move
    proc.stdin.write(b"END\r\n")
    proc.stdin.flush()
    _, err = proc.communicate(timeout=10)
    fallback = b"; answering with" in err  # the brain logs every quick fallback so
    return at - sent, not fallback


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--budgets-ms", default="500,1000")
    parser.add_argument("--busy", action="store_true", help="keep the other core busy")
    parser.add_argument("--burst", action="store_true",
                        help="write START, INFO and BOARD at once at spawn instead of waiting for OK")
    parser.add_argument("engine_args", nargs="*", help="extra brain arguments (after --)")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets_ms.split(",")]
    spinner = None
    if args.busy:
        spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        first_move(budgets[0], args.engine_args, args.burst)  # untimed: writes the byte-code caches
        print(f"load average {os.getloadavg()[0]:.2f}, busy core: {args.busy}, burst start: {args.burst}")
        print("budget ms  runs  median t/b  p90 t/b  max t/b  over  engine answered")
        for budget in budgets:
            ratios, engine = [], 0
            for _ in range(args.runs):
                seconds, by_engine = first_move(budget, args.engine_args, args.burst)
                ratios.append(seconds * 1000 / budget)
                engine += by_engine
            ratios.sort()
            p90 = ratios[min(len(ratios) - 1, int(0.9 * len(ratios)))]
            over = sum(r > 1 for r in ratios)
            print(f"{budget:9d}  {len(ratios):4d}  {statistics.median(ratios):10.3f}  {p90:7.3f}  "
                  f"{ratios[-1]:7.3f}  {over:4d}  {engine}/{len(ratios)}")
        print(f"load average after {os.getloadavg()[0]:.2f}")
    finally:
        if spinner is not None:
            spinner.kill()


if __name__ == "__main__":
    main()
