"""`gomocup-bot records-from-db`: the games of `gomocup-tournament` databases as training records.

Match games (the brain against an older brain or a sparring engine, at real time controls) are
the positions the evaluation meets in play. They carry no search value, so their rows are
labelled by the game's result alone (`features`). Only games that ended on the board (a five or
a draw) are taken: a forfeit says nothing about the position. A game met again (the same rule,
size and moves: two deterministic brains from one opening, or one database given twice) is taken
once, so it does not weigh double in the fit or sit on both sides of its held-out split.
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path

from gomocup_bot.training.records import RULES, GameRecord, encode_moves

CODE_RULES = {code: name for name, code in RULES.items()}


def records_of(db: str | Path, start_id: int = 0,
               seen: set[tuple[str, int, str]] | None = None) -> tuple[list[GameRecord], int]:
    """The database's finished games as records, numbered from ``start_id``, and how many were
    skipped as repeats: a game whose (rule, size, moves) is in ``seen`` (each taken game is added)."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        rows = con.execute("select moves, opening_stones, result, ending, rule, width, height, win_length, "
                           "black, white from games order by id").fetchall()
    except sqlite3.Error as exc:
        raise SystemExit(f"{db}: not a gomocup-tournament database ({exc})") from None
    out, repeated = [], 0
    for moves, opening, result, ending, rule, width, height, k, black, white in rows:
        if ending not in ("five", "draw") or width != height or k != 5 or rule not in CODE_RULES:
            continue
        played = [(int(m[0]), int(m[1])) for m in json.loads(moves)]
        key = (CODE_RULES[rule], int(width), encode_moves(played))
        if seen is not None:
            if key in seen:
                repeated += 1
                continue
            seen.add(key)
        out.append(GameRecord(id=start_id + len(out), rule=key[0], size=width, opening=int(opening),
                              moves=key[2], scores=[None] * len(played), winner=int(result),
                              end="five" if ending == "five" else "full", source=f"match {black} - {white}"))
    return out, repeated


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gomocup-bot records-from-db", description=__doc__.split("\n\n")[0])
    ap.add_argument("db", nargs="+", help="gomocup-tournament SQLite databases")
    ap.add_argument("--out", required=True, help="JSON-lines record file to write")
    args = ap.parse_args(argv)
    recs: list[GameRecord] = []
    seen: set[tuple[str, int, str]] = set()
    repeated = 0
    for db in args.db:
        if not Path(db).exists():
            ap.error(f"{db}: no such file")
        got, skipped = records_of(db, len(recs), seen)
        recs += got
        repeated += skipped
    with open(args.out, "w", encoding="utf-8") as f:
        for r in recs:
            f.write(r.to_line() + "\n")
    print(f"{len(recs)} games written to {args.out} ({repeated} repeated games left out)", file=sys.stderr)
    return 0
