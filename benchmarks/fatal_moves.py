"""The moves that lost our games to a stronger engine, and a screen of engines on them.

A match against an outside engine says how often we lose, not where. Here an analysing engine
(any brain that reports forced wins as mates: PentaZen does, `+v23`) looks at every position of
the games one player lost; a **fatal move** is that player's first move after which the analyser
proves a forced win for the opponent where it proved none before (a proof is trusted; a missing
one is not, so a later move of the same game is not counted). Positions where the loser had one
move only (the analyser answers at depth 1) are left out: the fault lies earlier.

    python benchmarks/fatal_moves.py collect DB [DB ...] --player net lanes --analyser "/path/to/pbrain-x" --dir OUT
    python benchmarks/fatal_moves.py screen OUT --candidate "default=/path/to/pbrain-ours --threads 1" \\
        --candidate "tables=/path/to/pbrain-ours --threads 1 --option net=0" --analyser "/path/to/pbrain-x"
    python benchmarks/fatal_moves.py solver OUT --threes 7 --nodes 400000

`collect` writes OUT/positions.jsonl (every position of the lost games), OUT/analysed.jsonl (the
analyser's answers, resumable: `gomocup-tournament evaluate`) and OUT/fatal.jsonl. `screen`
measures each candidate twice: **attack**, playing the winner's side in the position after the
fatal move, does it prove the win (a mate or a winrate of 1 in its answer)? **defence**, in the
position before it, is the move it plays at `--turn` one after which the analyser (at
`--judge-turn`) finds no forced win? The second counts a win the analyser misses as a hold, so it
is an upper bound, and it is only as steady as the candidate's choice: an engine whose move at
`--turn` depends on which iteration finishes swings it by tens between two runs (run such a
candidate twice under two labels and compare its `-moves.jsonl`; docs/journal/search-2026-12.md).
`solver` runs our own threat solver (the root checks' VCF/VCT) for the winner on the positions
after the fatal moves, with the given budget. Every step appends to files in
OUT and skips what they hold, so a stopped run resumes. Opponents' command lines are arguments:
nothing here builds or names a binary.
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from gomocup_bot.training.records import GameRecord, encode_moves
from protocol.rules import Rules


def lost_positions(dbs: list[str], players: list[str]) -> list[dict]:
    """Every position (after the opening) of the games lost by one of `players` (the loser's
    names: a database may call the same engine otherwise), with who was to move."""
    out = []
    for db in dbs:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        rows = con.execute("SELECT slot, black, white, result, opening_stones, moves, width, height, rule "
                           "FROM games").fetchall()
        con.close()
        for slot, black, white, result, stones, moves, width, height, rule in rows:
            if (black in players) == (white in players) or width != height:
                continue  # neither of them, or both: no loser to look at
            ours = 1 if black in players else 2
            if result == 0 or result == ours:
                continue
            text = encode_moves([(x, y) for x, y, _ms in json.loads(moves)])
            name = Rules.from_code(int(rule)).name
            for k in range(stones, len(text) // 2):
                out.append({"rule": name, "size": width, "moves": text[:2 * k], "game": f"{Path(db).name}:{slot}",
                            "ply": k, "ours": (k % 2) + 1 == ours, "played": text[2 * k:2 * k + 2]})
    return out


Key = tuple[str, int, str]  # rule, size, moves: a position as `evaluate` names it


def _key(rule: str, size: int, moves: str) -> Key:
    return rule, size, moves


def evaluate(positions: Path, engine: str, turn: float, out: Path, jobs: int) -> dict[Key, dict]:
    """`gomocup-tournament evaluate` (resumable) and its answers by position."""
    subprocess.run([sys.executable, "-m", "tournament.cli", "evaluate", str(positions), "--engine", engine,
                    "--turn", str(turn), "-j", str(jobs), "-q", "--max-memory", "300000000", "--out", str(out)],
                   check=True)
    return {_key(r["rule"], r.get("size", 15), r["moves"]): r for r in _read(out)}


def _read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _proves_win(answer: dict | None) -> bool:
    return answer is not None and ((answer.get("mate") or 0) > 0 or answer.get("winrate") == 1.0)


def fatal_moves(positions: list[dict], answers: dict[Key, dict]) -> list[dict]:
    """Each lost game's fatal move (see the module's docstring), unforced ones only."""
    games: dict[str, list[dict]] = {}
    for p in positions:
        games.setdefault(p["game"], []).append(p)
    out = []
    for game, rows in games.items():
        for p in sorted(rows, key=lambda r: r["ply"]):
            if not p["ours"]:
                continue
            before = answers.get(_key(p["rule"], p["size"], p["moves"]))
            after = answers.get(_key(p["rule"], p["size"], p["moves"] + p["played"]))
            if before is None or after is None:
                continue
            if before.get("mate") is None and (after.get("mate") or 0) > 0:
                if (before.get("depth") or 0) > 1:
                    out.append({"rule": p["rule"], "size": p["size"], "game": game, "ply": p["ply"],
                                "before": p["moves"], "played": p["played"], "mate": after["mate"],
                                "analyser_best": before.get("best"), "eval_before": before.get("eval")})
                break
    return out


def collect(args: argparse.Namespace) -> None:
    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    positions = lost_positions(args.dbs, args.player)
    if not positions:
        raise SystemExit(f"no lost game of {' or '.join(args.player)} in {', '.join(args.dbs)}")
    _write(out / "positions.jsonl", positions)
    answers = evaluate(out / "positions.jsonl", args.analyser, args.turn, out / "analysed.jsonl", args.jobs)
    fatal = fatal_moves(positions, answers)
    _write(out / "fatal.jsonl", fatal)
    games = len({p["game"] for p in positions})
    lengths = sorted(f["mate"] for f in fatal)
    print(f"{games} lost games, {len(positions)} positions; {len(fatal)} unforced fatal moves; the analyser's "
          f"forced win after them: median {lengths[len(lengths) // 2] if lengths else '-'} plies "
          f"({lengths[0] if lengths else '-'}-{lengths[-1] if lengths else '-'})")


def screen(args: argparse.Namespace) -> None:
    out = Path(args.dir)
    fatal = _read(out / "fatal.jsonl")
    if not fatal:
        raise SystemExit(f"{out / 'fatal.jsonl'} is empty or missing: run `collect` first")
    after = out / "after.jsonl"
    before = out / "before.jsonl"
    _write(after, [{"rule": f["rule"], "size": f["size"], "moves": f["before"] + f["played"]} for f in fatal])
    _write(before, [{"rule": f["rule"], "size": f["size"], "moves": f["before"]} for f in fatal])
    for spec in args.candidate:
        label, _, engine = spec.partition("=")
        if not engine:
            raise SystemExit(f"--candidate {spec!r}: expected LABEL=COMMAND")
        t0 = time.monotonic()
        attack = evaluate(after, engine, args.turn, out / f"{label}-attack.jsonl", args.jobs)
        proved = sum(_proves_win(attack.get(_key(f["rule"], f["size"], f["before"] + f["played"]))) for f in fatal)
        moves = evaluate(before, engine, args.turn, out / f"{label}-moves.jsonl", args.jobs)
        replies = []
        for f in fatal:
            best = (moves.get(_key(f["rule"], f["size"], f["before"])) or {}).get("best")
            if best is not None:
                replies.append({"rule": f["rule"], "size": f["size"], "moves": f["before"] + encode_moves([tuple(best)])})
        _write(out / f"{label}-replies.jsonl", replies)
        judged = evaluate(out / f"{label}-replies.jsonl", args.analyser, args.judge_turn,
                          out / f"{label}-judged.jsonl", args.jobs)
        held = sum(1 for r in replies if (judged.get(_key(r["rule"], r["size"], r["moves"]), {}).get("mate") or 0) <= 0)
        print(f"{label}: attack proved {proved} of {len(fatal)}; defence held {held} of {len(replies)} "
              f"({time.monotonic() - t0:.0f} s)", flush=True)


def solver(args: argparse.Namespace) -> None:
    from gomocup_bot.core.board import board_from_stones
    from gomocup_bot.core.constants import RULE_EXACT, RULE_FREESTYLE, RULE_RENJU
    from gomocup_bot.search.vct import WIN, ThreatSolver

    codes = {"freestyle": RULE_FREESTYLE, "standard": RULE_EXACT, "renju": RULE_RENJU}
    fatal = _read(Path(args.dir) / "fatal.jsonl")
    wins = nodes = 0
    t0 = time.monotonic()
    for f in fatal:
        squares = GameRecord(0, f["rule"], f["size"], 0, f["before"] + f["played"]).move_list()
        stones = [(x, y, 1 + i % 2) for i, (x, y) in enumerate(squares)]
        board = board_from_stones(f["size"], f["size"], stones, rule=codes[f["rule"]])
        attacker = 1 + len(stones) % 2
        result, _line, used = ThreatSolver(board).run(board, attacker, vct=args.threes > 0, max_depth=args.threes,
                                                      max_nodes=args.nodes)
        wins += result == WIN
        nodes += used
    print(f"threat solver, {args.threes} threes, {args.nodes} nodes: proves {wins} of {len(fatal)} "
          f"({nodes / max(1, len(fatal)) / 1000:.0f} k nodes a position, {time.monotonic() - t0:.1f} s)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="find the fatal moves of a player's lost games")
    c.add_argument("dbs", nargs="+", metavar="DB", help="gomocup-tournament databases")
    c.add_argument("--player", required=True, nargs="+", metavar="NAME",
                   help="the loser's name in the databases (several if they name it differently)")
    c.add_argument("--analyser", required=True, help="the judging engine's command line (reports mates)")
    c.add_argument("--turn", type=float, default=0.5, help="the analyser's seconds a position (default 0.5)")
    c.add_argument("--dir", required=True, help="folder for the files (resumable)")
    c.add_argument("-j", "--jobs", type=int, default=2, help="engines at once (default 2)")
    s = sub.add_parser("screen", help="attack and defence of candidate engines on the fatal moves")
    s.add_argument("dir", help="the folder `collect` wrote")
    s.add_argument("--candidate", action="append", required=True, metavar="LABEL=COMMAND", help="repeatable")
    s.add_argument("--analyser", required=True, help="the judging engine's command line")
    s.add_argument("--turn", type=float, default=1.0, help="a candidate's seconds a position (default 1)")
    s.add_argument("--judge-turn", type=float, default=0.5, help="the analyser's seconds (default 0.5)")
    s.add_argument("-j", "--jobs", type=int, default=2, help="engines at once (default 2)")
    v = sub.add_parser("solver", help="our threat solver on the positions after the fatal moves")
    v.add_argument("dir", help="the folder `collect` wrote")
    v.add_argument("--threes", type=int, default=7, help="VCT depth in threes (0: VCF; default 7)")
    v.add_argument("--nodes", type=int, default=400_000, help="node budget a position (default 400000)")
    args = p.parse_args()
    {"collect": collect, "screen": screen, "solver": solver}[args.command](args)


if __name__ == "__main__":
    main()
