"""How renju games were lost: count the games black lost because white's last four could only be
blocked on a square forbidden to black, per black engine, from `gomocup-tournament` databases.

Why: a search that judges fouls inside its tree should stop walking into such positions as black
(and find them as white); the match score alone mixes that with everything else.

    python benchmarks/renju_foul_losses.py match1.sqlite match2.sqlite
"""
from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from gomocup_bot.core import board as CB  # noqa: E402
from gomocup_bot.core.constants import RULE_RENJU  # noqa: E402
from gomocup_bot.core.rules import forbidden_points  # noqa: E402
from gomocup_bot.core.threats import win_points  # noqa: E402


def lost_on_forbidden_block(moves, width: int, height: int) -> bool:
    """Did white win by a five whose square was, before black's last move, white's only five point
    and forbidden to black?"""
    b = CB.new_board(width, height, 5, RULE_RENJU)
    out = np.zeros(width * height + 1, dtype=np.int32)
    for i, (x, y, *_rest) in enumerate(moves):
        colour = 1 if i % 2 == 0 else 2
        if colour == 1 and i == len(moves) - 2:
            fives = set(int(q) for q in out[:win_points(b, 2, out)])
            fouls = set(int(q) for q in out[:forbidden_points(b, out)])
            return len(fives) == 1 and fives <= fouls
        CB.make(b, CB.to_pos(b, x, y), colour)
    return False


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db", nargs="+")
    args = ap.parse_args(argv)
    stats: dict[tuple[str, str], list[int]] = {}
    for db in args.db:
        con = sqlite3.connect(db)
        rows = con.execute("select black, result, moves, width, height, rule from games").fetchall()
        for black, result, moves, width, height, rule in rows:
            if rule != 4:  # Gomocup rule code of renju
                continue
            winner = {1: "black", 2: "white"}.get(result, "draw")
            s = stats.setdefault((black, winner), [0, 0])
            s[0] += 1
            if winner == "white":
                s[1] += lost_on_forbidden_block(json.loads(moves), width, height)
    for (black, winner), (games, foul) in sorted(stats.items()):
        extra = f", {foul} of them on a forbidden block" if winner == "white" else ""
        print(f"black = {black:12s} {winner:5s} won {games:4d}{extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
