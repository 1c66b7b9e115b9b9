"""Strength ladder of the search engines, played in-process (a stand-in until the tournament
manager drives real brain processes).

Every pair plays the built-in balanced openings of `tournament.play.openings`, each with both colours,
15x15 freestyle. Moves are refereed by the independent plain-Python referee of the tournament
package. Each move gets the deadlines the brain's time manager would compute for the given
`timeout_turn` (and optional match clock); the driver measures the wall time of every search
from its own side and reports max and 99th percentile of time / turn budget.

    python benchmarks/strength_ladder.py --games 40 --turn-ms 500 \
        --pair gomocup-bot:random --pair gomocup-bot:mcts-plain --pair gomocup-bot:minimax
    python benchmarks/strength_ladder.py --busy ...   # keep the other core busy meanwhile
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from gomocup_bot.engine import BLACK, WHITE, Position, SearchRequest, StopFlag  # noqa: E402
from gomocup_bot.brain.timeman import move_budget  # noqa: E402
from protocol.rules import FREESTYLE  # noqa: E402
from tournament.play.openings import BUILTIN_OPENINGS  # noqa: E402
from tournament.game.referee import Board, makes_win  # noqa: E402


def make_engine(spec: str):
    """`name` or `name?key=value&key=value` -> an engine instance from the registry."""
    from gomocup_bot.engines import create_engine

    name, _, query = spec.partition("?")
    options = dict(kv.split("=", 1) for kv in query.split("&") if "=" in kv)
    engine = create_engine(name, **options)
    engine.prepare()
    return engine


def _busy() -> None:  # pragma: no cover -- a CPU hog for the "other core busy" measurement
    x = 0
    while True:
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF


def play_game(black, white, opening, turn_ms: int, match_ms: int, size: int = 15, max_moves: int = 225):
    """Play one game; returns (winner colour or 0, moves, [time / budget ratios], illegal flag)."""
    board = Board(size, size)
    stones: list[tuple[int, int, int]] = []
    colour = BLACK
    for x, y in opening.squares(size, size):
        board.set(x, y, colour)
        stones.append((x, y, colour))
        colour = 3 - colour
    for eng in (black, white):
        eng.new_game(size, size, FREESTYLE)
    clocks = {BLACK: match_ms, WHITE: match_ms}
    ratios: list[float] = []
    while len(stones) < max_moves:
        eng = black if colour == BLACK else white
        info = {"timeout_turn": turn_ms}
        if match_ms:
            info["timeout_match"] = match_ms
            info["time_left"] = clocks[colour]
        empty = size * size - len(stones)
        t0 = time.monotonic()
        limits = move_budget(info, now=t0, empty_squares=empty)
        pos = Position(size, size, FREESTYLE, tuple(stones), colour)
        res = eng.search(SearchRequest(pos, limits), StopFlag())
        elapsed = time.monotonic() - t0
        budget = turn_ms / 1000.0
        if match_ms:
            clocks[colour] -= int(elapsed * 1000)
            budget = min(budget, max(clocks[colour] + elapsed * 1000, 1) / 1000.0)
        ratios.append(elapsed / budget)
        x, y = res.move
        if not board.inside(x, y) or board.get(x, y) != 0:
            return 3 - colour, len(stones), ratios, True
        win = makes_win(board, x, y, colour, FREESTYLE)
        board.set(x, y, colour)
        stones.append((x, y, colour))
        if win:
            return colour, len(stones), ratios, False
        colour = 3 - colour
    return 0, len(stones), ratios, False


def run_pair(spec_a: str, spec_b: str, games: int, turn_ms: int, match_ms: int, log) -> dict:
    a, b = make_engine(spec_a), make_engine(spec_b)
    score = {"a_wins": 0, "b_wins": 0, "draws": 0, "illegal": 0, "a_black_wins": 0, "a_white_wins": 0}
    ratios_a: list[float] = []
    ratios_b: list[float] = []
    lengths = []
    for g in range(games):
        opening = BUILTIN_OPENINGS[(g // 2) % len(BUILTIN_OPENINGS)].transformed((g // (2 * len(BUILTIN_OPENINGS))) % 8)
        a_black = g % 2 == 0
        black, white = (a, b) if a_black else (b, a)
        winner, n, ratios, illegal = play_game(black, white, opening, turn_ms, match_ms)
        # the mover sequence alternates from the side to move after the opening (white for 3 stones)
        first = WHITE if len(opening.offsets) % 2 else BLACK
        for i, r in enumerate(ratios):
            mover = first if i % 2 == 0 else 3 - first
            (ratios_a if (mover == BLACK) == a_black else ratios_b).append(r)
        lengths.append(n)
        score["illegal"] += int(illegal)
        if winner == 0:
            score["draws"] += 1
        elif (winner == BLACK) == a_black:
            score["a_wins"] += 1
            score["a_black_wins" if a_black else "a_white_wins"] += 1
        else:
            score["b_wins"] += 1
        log(f"  game {g + 1}/{games}: {spec_a} {'black' if a_black else 'white'} -> "
            f"{'draw' if winner == 0 else ('A' if (winner == BLACK) == a_black else 'B')} in {n} stones")
    def pct(xs, q):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0
    score.update({
        "a": spec_a, "b": spec_b, "games": games, "turn_ms": turn_ms, "match_ms": match_ms,
        "a_score": (score["a_wins"] + 0.5 * score["draws"]) / games,
        "a_time_max": max(ratios_a, default=0.0), "a_time_p99": pct(ratios_a, 0.99),
        "b_time_max": max(ratios_b, default=0.0), "b_time_p99": pct(ratios_b, 0.99),
        "a_moves": len(ratios_a), "mean_length": sum(lengths) / max(1, len(lengths)),
    })
    return score


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pair", action="append", default=[], help="A:B engine specs (name?opt=val&...)")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--turn-ms", type=int, default=500)
    ap.add_argument("--match-ms", type=int, default=0, help="match clock per player (0 = none)")
    ap.add_argument("--busy", action="store_true", help="keep the other core busy while playing")
    ap.add_argument("--json", help="append the results as JSON lines to this file")
    args = ap.parse_args(argv)
    pairs = args.pair or ["gomocup-bot:random", "gomocup-bot:mcts-plain", "gomocup-bot:minimax"]
    hog = None
    if args.busy:
        hog = mp.Process(target=_busy, daemon=True)
        hog.start()
    print(f"# machine: {os.cpu_count()} cores; busy other core: {args.busy}; turn {args.turn_ms} ms;"
          f" match {args.match_ms} ms", flush=True)
    try:
        for pair in pairs:
            a, b = pair.split(":", 1)
            res = run_pair(a, b, args.games, args.turn_ms, args.match_ms, lambda s: print(s, flush=True))
            print(json.dumps(res), flush=True)
            print(f"{a} vs {b}: {res['a_wins']}-{res['b_wins']}-{res['draws']} (score {res['a_score']:.1%}),"
                  f" illegal {res['illegal']}, time/budget max {res['a_time_max']:.2f} p99 {res['a_time_p99']:.2f}"
                  f" | {b}: max {res['b_time_max']:.2f} p99 {res['b_time_p99']:.2f}", flush=True)
            if args.json:
                with open(args.json, "a") as fh:
                    fh.write(json.dumps(res) + "\n")
    finally:
        if hog is not None:
            hog.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
