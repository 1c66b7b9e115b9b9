"""Move-time statistics of a tournament database, as the manager measured them.

For every move of every game in a `gomocup-tournament` SQLite database: the move's wall time
(manager side, from sending the command to reading the move) divided by its budget, the
smaller of the turn limit and the player's match time left before the move. Prints, per
engine: moves, the maximum and the 99th percentile of time / budget, moves over budget, and the
peak RSS the manager recorded.

With ``--sharp`` it also splits each engine's moves by what the position was, as our root checks
see it with a fixed node budget (the same threat solver, so the split does not depend on the
machine's speed): *decided* (the mover has a VCF/VCT of its own, or a five to make or block),
*sharp* (the opponent would have a VCT were it to move: the moves the brain may think longer on)
and *quiet* (neither), and prints the mean and median share of the move's budget used in each.
With ``--match`` it prints the share of the match clock each engine used per game (mean, median,
minimum, maximum).

    python benchmarks/strength_timestats.py match.sqlite --turn 1 --match 40
    python benchmarks/strength_timestats.py match.sqlite --turn 1 --sharp
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections import defaultdict
from statistics import mean, median


def stats(db: str, turn_s: float, match_s: float | None) -> dict[str, dict]:
    con = sqlite3.connect(db)
    rows = con.execute("SELECT black, white, moves, opening_stones, black_peak_rss, white_peak_rss FROM games").fetchall()
    ratios: dict[str, list[float]] = defaultdict(list)
    rss: dict[str, int] = defaultdict(int)
    for black, white, moves_json, opening, brss, wrss in rows:
        moves = json.loads(moves_json)
        used = {black: 0.0, white: 0.0}
        rss[black] = max(rss[black], int(brss))
        rss[white] = max(rss[white], int(wrss))
        for i, (_x, _y, ms) in enumerate(moves):
            if i < opening:
                continue
            # colours alternate from black at index 0
            player = black if i % 2 == 0 else white
            budget = turn_s * 1000.0
            if match_s:
                budget = min(budget, match_s * 1000.0 - used[player])
            used[player] += ms
            ratios[player].append(ms / budget if budget > 0 else float("inf"))
    out = {}
    for name, rs in ratios.items():
        rs_sorted = sorted(rs)
        out[name] = {
            "moves": len(rs),
            "max": rs_sorted[-1],
            "p99": rs_sorted[min(len(rs) - 1, int(0.99 * len(rs)))],
            "over": sum(1 for r in rs if r > 1.0),
            "peak_rss_mb": rss[name] / 2**20,
        }
    return out


def classify(width: int, height: int, rule_code_gomocup: int, moves: list, nodes: int) -> list[str]:
    """For the position before each move: "decided", "sharp" or "quiet" (see the module's text)."""
    from gomocup_bot.core.board import new_board, play, rule_code, to_pos
    from gomocup_bot.core.classes import C_FIVE
    from gomocup_bot.search.vct import WIN, ThreatSolver
    from protocol.rules import Rules

    board = new_board(width, height, 5, rule_code(Rules.from_code(rule_code_gomocup)))
    solver = ThreatSolver(board)
    kinds = []
    for i, (x, y, _ms) in enumerate(moves):
        side = 1 if i % 2 == 0 else 2
        me, op = side - 1, 2 - side
        if board.cnt[me, C_FIVE] > 0 or board.cnt[op, C_FIVE] > 0:
            kinds.append("decided")
        elif solver.run(board, side, vct=True, max_depth=4, max_nodes=nodes)[0] == WIN:
            kinds.append("decided")
        elif solver.run(board, 3 - side, vct=True, max_depth=4, max_nodes=nodes // 2)[0] == WIN:
            kinds.append("sharp")
        else:
            kinds.append("quiet")
        play(board, to_pos(board, x, y), side)
    return kinds


def sharp_split(db: str, turn_s: float, nodes: int) -> dict[str, dict[str, list[float]]]:
    """Per engine and kind of position, the moves' time / turn limit (opening stones skipped)."""
    con = sqlite3.connect(db)
    rows = con.execute("SELECT black, white, moves, opening_stones, width, height, rule FROM games ORDER BY id").fetchall()
    out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for n, (black, white, moves_json, opening, width, height, rule) in enumerate(rows, 1):
        moves = json.loads(moves_json)
        kinds = classify(width, height, rule, moves, nodes)
        for i, (_x, _y, ms) in enumerate(moves):
            if i >= opening:
                out[black if i % 2 == 0 else white][kinds[i]].append(ms / (turn_s * 1000.0))
        if n % 20 == 0:
            print(f"  classified {n}/{len(rows)} games", file=sys.stderr, flush=True)
    return out


def clock_shares(db: str, match_s: float) -> dict[str, list[float]]:
    """Per engine, the share of the match clock it used in each game."""
    con = sqlite3.connect(db)
    out: dict[str, list[float]] = defaultdict(list)
    for black, white, bms, wms in con.execute("SELECT black, white, black_ms, white_ms FROM games"):
        out[black].append(bms / (match_s * 1000.0))
        out[white].append(wms / (match_s * 1000.0))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db")
    ap.add_argument("--turn", type=float, required=True, help="turn limit in seconds")
    ap.add_argument("--match", type=float, default=None, help="match limit in seconds per player")
    ap.add_argument("--sharp", action="store_true", help="split the moves' time by the kind of position (replays every game: minutes)")
    ap.add_argument("--nodes", type=int, default=150_000, help="threat-solver nodes per check with --sharp (default 150000, the brain's own)")
    args = ap.parse_args(argv)
    for name, s in sorted(stats(args.db, args.turn, args.match).items()):
        print(f"{name:24s} moves {s['moves']:5d}  time/budget max {s['max']:.3f}  p99 {s['p99']:.3f}"
              f"  over budget {s['over']}  peak RSS {s['peak_rss_mb']:.0f} MB")
    if args.match:
        for name, shares in sorted(clock_shares(args.db, args.match).items()):
            shares.sort()
            print(f"{name:24s} match clock used per game: mean {mean(shares):.2f}  median {median(shares):.2f}"
                  f"  min {shares[0]:.2f}  max {shares[-1]:.2f}  ({len(shares)} games)")
    if args.sharp:
        for name, kinds in sorted(sharp_split(args.db, args.turn, args.nodes).items()):
            for kind in ("quiet", "sharp", "decided"):
                rs = kinds.get(kind, [])
                if rs:
                    print(f"{name:24s} {kind:8s} moves {len(rs):5d}  time/turn mean {mean(rs):.3f}  median {median(rs):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
