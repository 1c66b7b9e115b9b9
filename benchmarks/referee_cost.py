"""What does the manager's referee cost per move? Current code vs the referee of an older commit.

The manager calls `GameReferee.play` once per move; under renju that is a foul check for every
black move (recursive double-three analysis) plus the win check. This replays the same renju games
(greedy vs greedy with seeded jitter, so the positions hold real threes and fours) through both
referees, alternating old and new in every round so machine load hits both alike, checks that they
give the same verdicts, and reports microseconds per move over all moves and over the midgame
(move 20 on).

Usage: python benchmarks/referee_cost.py [--old REV] [--games N] [--moves N] [--rounds N]
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import subprocess
import sys
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gomocup_bot.engine import BLACK, WHITE, Position  # noqa: E402
from gomocup_bot.engines.greedy import choose  # noqa: E402
from protocol.rules import RENJU  # noqa: E402
from tournament.game import referee as new_referee  # noqa: E402

MIDGAME = 20  # moves before this index count as the opening


def load_old_referee(rev: str) -> types.ModuleType:
    """tournament/game/referee.py as it was at `rev`, imported under another name."""
    source = subprocess.run(["git", "show", f"{rev}:tournament/game/referee.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    spec = importlib.util.spec_from_loader("old_referee", loader=None)
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_referee"] = module  # dataclasses look their module up
    exec(compile(source, f"{rev}:tournament/game/referee.py", "exec"), module.__dict__)
    return module


def play_game(seed: int, max_moves: int) -> list[tuple[int, int]]:
    """A renju game of greedy vs greedy (jittered by `seed`), stopped at a five or `max_moves`."""
    rng = random.Random(seed)
    ref = new_referee.GameReferee(15, 15, RENJU)
    stones: list[tuple[int, int, int]] = []
    while len(ref.moves) < max_moves:
        colour = BLACK if len(stones) % 2 == 0 else WHITE
        move = choose(Position(15, 15, RENJU, tuple(stones), colour), rng=rng)["move"]
        if ref.play(*move).game_over:
            break
        stones.append((*move, colour))
    return list(ref.moves)


def replay(module: types.ModuleType, games: list[list[tuple[int, int]]], totals: dict[str, list[int]]) -> list:
    """Play every game through `module.GameReferee`, adding ns per move to totals; returns the verdicts."""
    verdicts = []
    clock = time.perf_counter_ns
    for moves in games:
        ref = module.GameReferee(15, 15, RENJU)
        for i, (x, y) in enumerate(moves):
            t0 = clock()
            verdict = ref.play(x, y)
            dt = clock() - t0
            totals["all"][0] += dt
            totals["all"][1] += 1
            if i >= MIDGAME:
                totals["mid"][0] += dt
                totals["mid"][1] += 1
            verdicts.append(verdict.ending)
    return verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", default="6ffa5e4", help="commit holding the old referee (default: before protocol.judge)")
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--moves", type=int, default=80)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args(argv)

    old = load_old_referee(args.old)
    games = [play_game(seed, args.moves) for seed in range(args.games)]
    totals = {name: {"all": [0, 0], "mid": [0, 0]} for name in ("old", "new")}
    for r in range(args.rounds):
        order = [("old", old), ("new", new_referee)] if r % 2 == 0 else [("new", new_referee), ("old", old)]
        seen = {name: replay(module, games, totals[name]) for name, module in order}
        if [getattr(v, "value", v) for v in seen["old"]] != [getattr(v, "value", v) for v in seen["new"]]:
            raise SystemExit("the two referees disagree on a verdict")
    print(f"{args.games} renju games, {sum(map(len, games))} moves, {args.rounds} rounds; loadavg {os.getloadavg()[0]:.2f}")
    for part, label in (("all", "every move"), ("mid", f"moves {MIDGAME}+")):
        old_us = totals["old"][part][0] / totals["old"][part][1] / 1000
        new_us = totals["new"][part][0] / totals["new"][part][1] / 1000
        print(f"{label:>12}: old {old_us:8.1f} us/move   new {new_us:8.1f} us/move   old/new {old_us / new_us:5.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
