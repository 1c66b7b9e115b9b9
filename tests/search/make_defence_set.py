"""Cut the defence test set (tests/search/data/defence_positions.json) from real blunders.

    python -m tests.search.make_defence_set verify RUN.json ... --out /tmp/defence_cands.jsonl [--shard 0/2]
    python -m tests.search.make_defence_set select /tmp/defence_cands*.jsonl --out tests/search/data/defence_positions.json

The input is what `gomocup-tournament analyse --json` wrote for real games (our brain's losses):
every blunder found there, with the position right before it. `verify` asks the independent threat
solver (tests/search/threat_solver.py, no brain code) about each:

- the blunder really loses: after it the attacker A has a VCT of at most MAX_LENGTH threat moves
  (found within `--blunder-nodes` nodes; its shortest length L and line are kept). Blunders refuted
  only by longer or non-VCT wins are left out: their defences cannot be settled at any budget we
  can afford in plain Python;
- the defender D (to move) has no VCT of its own of at most `depth` = max(MIN_DEPTH, L + MARGIN)
  threat moves (else the position is a win, not a defence; a search that runs out of its
  `--own-nodes` is noted as `own: unknown`);
- every legal move of D is tried: it *holds* when A then has no VCT of at most `depth` threat moves
  (a complete search within `--nodes` nodes); D's fours are set apart (they only delay: A's block
  is forced, then D must defend again), and so are the moves the solver could not settle within
  the nodes (`undecided`).

A position is kept when its blunder is proven and at least one move holds. Candidates are appended
to `--out` one per line as they are done (a stopped run starts again where it was: positions
already in the file are skipped). `select` writes the set: the kept candidates, one per position.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

from protocol.rules import Rules
from tests.search import threat_solver as T

SIZE = 15
RULES = {"freestyle": Rules(), "exact-five": Rules(exact_five=True), "standard": Rules(exact_five=True),
         "renju": Rules(renju=True)}
MIN_DEPTH = 6  # threat moves of A's VCT looked for after each defender move: at least this ...
MARGIN = 1  # ... and at least one more than the blunder's refutation needs
MAX_LENGTH = 6  # blunders refuted by a longer VCT are left out (their defences cannot be settled in time)
NODES = 50_000  # per defender move
BLUNDER_NODES = 300_000  # for the blunder's refutation (a win: found sooner or later)
OWN_NODES = 30_000  # D's own VCT (a win only has to be found)


def rule_name(rule: str) -> str:
    return "standard" if rule in ("exact-five", "standard") else rule


def key_of(rule: str, moves) -> str:
    return rule_name(rule) + ":" + " ".join(f"{x},{y}" for x, y, _ in moves)


def blunders_in(path: Path):
    """(source, position dict, blunder dict, game dict) for every blunder of an analysis file."""
    doc = json.loads(path.read_text())
    for game in doc["games"]:
        for b in game["blunders"]:
            yield f"{game['label']} move {b['move_number']} ({b['player']}, {b['colour']})", b["position"], b, game


def verify_one(rule: str, moves, blunder, nodes: int, blunder_nodes: int, own_nodes: int) -> dict:
    """The solver's verdict on one blunder position (see the module docstring)."""
    rules = RULES[rule]
    d = T.BLACK if len(moves) % 2 == 0 else T.WHITE
    a = 3 - d
    out: dict = {"rule": rule_name(rule), "size": SIZE, "moves": [list(m) for m in moves], "to_move": d,
                 "blunder": list(blunder), "nodes": nodes}
    problem = T.is_legal_position(SIZE, rules, moves)
    if problem:
        return {**out, "status": "illegal", "why": problem}
    t0 = time.monotonic()
    after = list(moves) + [(blunder[0], blunder[1], d)]
    refute = T.solve(SIZE, rules, after, a, MAX_LENGTH, True, blunder_nodes)
    out["blunder_nodes"] = refute.nodes
    if refute.status != T.WIN:
        return {**out, "status": "blunder-" + refute.status, "seconds": round(time.monotonic() - t0, 1)}
    depth = max(MIN_DEPTH, refute.length + MARGIN)
    out.update(length=refute.length, refutation=[list(s) for s in refute.line], depth=depth)
    own = T.solve(SIZE, rules, moves, d, depth, True, own_nodes)
    if own.status == T.WIN:
        return {**out, "status": "own-win", "seconds": round(time.monotonic() - t0, 1)}
    out["own"] = own.status
    answers = T.replies(SIZE, rules, moves, d, depth, nodes)
    holding = sorted(m for m, (status, _, four) in answers.items() if status == T.FAIL and not four)
    fours = sorted(m for m, (_, _, four) in answers.items() if four)
    unknown = sorted(m for m, (status, _, four) in answers.items() if status == T.UNKNOWN and not four)
    out.update(holding=[list(m) for m in holding], fours=[list(m) for m in fours],
               undecided=[list(m) for m in unknown], legal=len(answers),
               scan_nodes=sum(n for _, n, _ in answers.values()),
               hold_nodes=sum(answers[m][1] for m in holding),
               seconds=round(time.monotonic() - t0, 1))
    if tuple(blunder) in holding:
        out["status"] = "inconsistent"  # the blunder both loses and holds: never expected
    elif not holding:
        out["status"] = "no-hold"
    else:
        out["status"] = "kept"
    return out


def verify(paths: list[Path], out_path: Path, nodes: int, blunder_nodes: int, own_nodes: int,
           rules: set[str], limit: int, shard: tuple[int, int] = (0, 1)) -> None:
    done = set()
    if out_path.exists():
        for line in out_path.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                done.add(key_of(rec["rule"], rec["moves"]))
    count = 0
    with out_path.open("a") as out:
        for path in paths:
            for source, position, blunder, game in blunders_in(path):
                rule = rule_name(position["rule"])
                if rule not in rules:
                    continue
                moves = [tuple(m) for m in position["moves"]]
                key = key_of(rule, moves)
                if key in done:
                    continue
                done.add(key)
                serial = int(hashlib.sha1(key.encode()).hexdigest(), 16)
                if serial % shard[1] != shard[0]:
                    continue
                rec = verify_one(rule, moves, tuple(blunder["move"]), nodes, blunder_nodes, own_nodes)
                rec["source"] = f"{Path(game['file']).name} game {game['number']} move {blunder['move_number']}"
                rec["blunderer"] = blunder["player"]
                rec["found_by"] = {"before": blunder["before"], "engine_holding": blunder["holding"],
                                   "engine_refutation": blunder["refutation"][:12]}
                out.write(json.dumps(rec, separators=(",", ":")) + "\n")
                out.flush()
                count += 1
                print(f"{count}: {rec['source']} {rule} {rec['status']} holding {len(rec.get('holding', []))} "
                      f"{rec.get('seconds', 0)}s", file=sys.stderr)
                if limit and count >= limit:
                    return


def select(paths: list[Path], out_path: Path) -> None:
    kept, seen = [], set()
    for path in paths:
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            rec = json.loads(line)
            key = key_of(rec["rule"], rec["moves"])
            if rec["status"] != "kept" or key in seen:
                continue
            seen.add(key)
            kept.append({k: rec[k] for k in ("rule", "size", "moves", "to_move", "blunder", "refutation", "length",
                                             "holding", "fours", "undecided", "depth", "nodes", "own", "source",
                                             "blunderer")})
    kept.sort(key=lambda r: (r["rule"] != "freestyle", r["rule"], r["source"]))
    doc = {
        "about": "Real defence positions: the position right before a blunder in a lost game of our brain "
                 "(found by `gomocup-tournament analyse`), made by tests/search/make_defence_set.py. "
                 "holding: the defender's moves after which the attacker has no VCT of at most `depth` threat "
                 "moves (the independent solver, complete within `nodes` nodes per move); fours: the "
                 "defender's fours (they only delay); undecided: moves the solver could not settle in the "
                 "nodes; every other legal move lets a VCT in. refutation: the solver's shortest winning line "
                 "after the blunder, `length` threat moves ([-1, -1] = any reply). Squares are [x, y], "
                 "0-based; moves are [x, y, colour] in play order, black = 1.",
        "positions": kept,
    }
    out_path.write_text(json.dumps(doc, indent=None, separators=(",", ":")).replace('{"rule"', '\n{"rule"') + "\n")
    by = {}
    for r in kept:
        k = (r["rule"], "black" if r["to_move"] == 1 else "white")
        by[k] = by.get(k, 0) + 1
    print(f"{len(kept)} positions: " + ", ".join(f"{r} {c} {n}" for (r, c), n in sorted(by.items())), file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("verify", help="ask the solver about every blunder of analysis files")
    v.add_argument("runs", nargs="+", type=Path)
    v.add_argument("--out", type=Path, required=True)
    v.add_argument("--nodes", type=int, default=NODES)
    v.add_argument("--blunder-nodes", type=int, default=BLUNDER_NODES)
    v.add_argument("--own-nodes", type=int, default=OWN_NODES)
    v.add_argument("--rules", default="freestyle,standard,renju")
    v.add_argument("--limit", type=int, default=0, help="stop after this many positions")
    v.add_argument("--shard", default="0/1", help="I/N: only the positions whose key hashes to I modulo N (parallel runs)")
    s = sub.add_parser("select", help="write the set from candidate files")
    s.add_argument("candidates", nargs="+", type=Path)
    s.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "verify":
        i, n = (int(v) for v in args.shard.split("/"))
        verify(args.runs, args.out, args.nodes, args.blunder_nodes, args.own_nodes, set(args.rules.split(",")),
               args.limit, (i, n))
    else:
        select(args.candidates, args.out)


if __name__ == "__main__":
    main()
