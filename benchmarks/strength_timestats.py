"""Move-time statistics of a tournament database, as the manager measured them.

For every move of every game in a `gomocup-tournament` SQLite database: the move's wall time
(manager side, from sending the command to reading the move) divided by its budget, the
smaller of the turn limit and the player's match time left before the move. Prints, per
engine: moves, the maximum and the 99th percentile of time / budget, moves over budget, and the
peak RSS the manager recorded.

    python benchmarks/strength_timestats.py match.sqlite --turn 1 --match 40
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections import defaultdict


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db")
    ap.add_argument("--turn", type=float, required=True, help="turn limit in seconds")
    ap.add_argument("--match", type=float, default=None, help="match limit in seconds per player")
    args = ap.parse_args(argv)
    for name, s in sorted(stats(args.db, args.turn, args.match).items()):
        print(f"{name:24s} moves {s['moves']:5d}  time/budget max {s['max']:.3f}  p99 {s['p99']:.3f}"
              f"  over budget {s['over']}  peak RSS {s['peak_rss_mb']:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
