"""How much does the tournament manager itself cost per game?

Runs short matches in-process and reports, per game: wall time, the manager's own CPU time
(`time.process_time()`, which excludes children), the engines' CPU time (reaped children, from
`os.times()`), and the manager's share: manager CPU / wall and manager CPU / engine CPU. Also the
"protocol gap": game wall minus the engines' measured thinking time, per move — what a move costs
beyond thinking (pipes, parsing, refereeing, the SQLite commit, process start amortised).

Scenarios:
  fake-sleep   the test suite's fake brain thinking 50 ms per move by sleeping (engines use ~no CPU):
               isolates the manager's cost per move
  greedy       builtin:greedy vs builtin:random (fast real engines, short games)
  search       builtin:minimax vs builtin:mcts-plain at 100 ms per move (engines use their time)

Usage: python benchmarks/tournament_overhead.py [--pairs N] [--scenarios a,b,...] [--concurrency N]
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tournament.engines.spec import available_builtins, parse_engine_spec  # noqa: E402
from tournament.play.openings import BUILTIN_OPENINGS  # noqa: E402
from tournament.play.runner import TournamentSettings, prepare_store, run_tournament  # noqa: E402
from tournament.engines.session import GameConfig, TimeControl  # noqa: E402
from tournament.results.store import Store  # noqa: E402

FAKE = Path(__file__).resolve().parents[1] / "tests" / "tournament" / "fake_brain.py"


def scenarios() -> dict[str, tuple[list[str], TimeControl]]:
    fake = f"{sys.executable} {FAKE} --delay 0.05"
    builtins = set(available_builtins())
    out = {"fake-sleep": ([f"a={fake} --row 0", f"b={fake} --row 2"], TimeControl(turn_ms=1000))}
    if {"greedy", "random"} <= builtins:
        out["greedy"] = (["builtin:greedy", "builtin:random"], TimeControl(turn_ms=1000))
    if {"minimax", "mcts-plain"} <= builtins:
        out["search"] = (["builtin:minimax", "builtin:mcts-plain"], TimeControl(turn_ms=100, tolerance_ms=1000))
    return out


def measure(name: str, engines: list[str], tc: TimeControl, pairs: int, concurrency: int) -> dict[str, float]:
    specs = [parse_engine_spec(e) for e in engines]
    settings = TournamentSettings(
        "match", specs, GameConfig(time=tc, start_timeout=30.0), pairs=pairs, openings=list(BUILTIN_OPENINGS), concurrency=concurrency
    )
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.sqlite") as store:
        settings = prepare_store(store, settings, resume=False)
        before = os.times()
        cpu0, wall0 = time.process_time(), time.monotonic()
        summary = trio.run(run_tournament, settings, store)
        wall = time.monotonic() - wall0
        manager_cpu = time.process_time() - cpu0
        after = os.times()
        games = store.games()
    engine_cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    moves = sum(len(g.moves) - g.opening_stones for g in games)
    thinking = sum(g.black_ms + g.white_ms for g in games) / 1000.0
    n = max(1, summary.games_played)
    return {
        "scenario": name,
        "games": summary.games_played,
        "moves": moves,
        "wall/game s": wall / n,
        "mgr cpu/game s": manager_cpu / n,
        "engine cpu/game s": engine_cpu / n,
        "mgr cpu % wall": 100 * manager_cpu / wall,
        "mgr/engine cpu %": 100 * manager_cpu / engine_cpu if engine_cpu else float("nan"),
        "gap/move ms": 1000 * (wall * concurrency - thinking) / max(1, moves),
        "mgr cpu/move ms": 1000 * manager_cpu / max(1, moves),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--scenarios", default="")
    args = ap.parse_args()
    chosen = scenarios()
    if args.scenarios:
        chosen = {k: v for k, v in chosen.items() if k in args.scenarios.split(",")}
    cpu = "?"
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(f"machine: {cpu}; {os.cpu_count()} cores; Python {platform.python_version()}; concurrency {args.concurrency}; {args.pairs} pairs per scenario")
    rows = [measure(name, engines, tc, args.pairs, args.concurrency) for name, (engines, tc) in chosen.items()]
    keys = list(rows[0])
    print(" | ".join(f"{k:>17}" for k in keys))
    for row in rows:
        print(" | ".join(f"{row[k]:>17.3f}" if isinstance(row[k], float) else f"{row[k]:>17}" for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
