"""Generate the tactical test sets (tests/search/data/*.jsonl) with the independent threat solver.

Why: tests/search/test_tactics_sets.py asks the brain for a move in VCF, VCT and defence positions
whose answers no brain code decided. This tool finds such positions and their answers; the tests
only read the files (and prove the answers again with the same solver).

    python -m tools.make_tactics_sets --rule freestyle --games 200 --seed 1 --out /tmp/cands.jsonl

Noisy greedy self-play (a window-count evaluation in plain Python, never a black foul under renju)
produces middlegames; every position on the way is scanned:

- attack, kind "vcf": the side to move has no five point, no double-five move, and its shortest VCF
  takes `length` fours (3..15);
- attack, kind "vct": no VCF within VCF_DEPTH fours, and the shortest VCT takes `length` threat moves
  (2..8);
- defence: the side to move has no VCT of its own, the opponent would have a VCT if it were to move
  (and has no open three on the board yet), and only 1..4 of the side's legal moves leave the
  opponent without one, none of them a four (a four that only delays would count as a refutation).

Longer VCFs (to 15 fours) come from found ones: `--lengthen` takes stone pairs out, `--grow` walks
randomly over stone changes (see `grow`).

Each kept record carries the move list (x, y, colour in play order), the rule, the side to move, the
kind, the length, the answers and the solver's node counts. `--select` then picks a balanced set
from candidate files (see `select`).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time

from protocol.rules import Rules
from tests.search import threat_solver as T

SIZE = 15
VCF_DEPTH = 16  # the longest VCF looked for (fours before the five)
MAX_VCF_LENGTH = 15  # the longest VCF kept in the set
VCT_DEPTH = 8  # the longest VCT looked for (threat moves before the five)
VCF_NODES = 200_000
VCT_NODES = 20_000
DEFENCE_DEPTH = 6  # opponent VCTs up to this many threat moves, in defence positions
DEFENCE_NODES = 60_000  # per defender move checked

RULE_NAMES = {"freestyle": Rules(), "standard": Rules(exact_five=True), "renju": Rules(renju=True)}


# ---------------------------------------------------------------------- self-play
OWN = [0, 1, 8, 60, 800, 100000]
OPP = [0, 1, 6, 40, 500, 50000]


def greedy_game(rules: Rules, rng: random.Random, max_moves: int, opp_weight: float = 1.0):
    """A noisy greedy game; returns its moves (x, y, colour). Stops before any five."""
    b = T.ThreatBoard(SIZE, rules, ())
    moves = []
    colour = T.BLACK
    centre = (SIZE // 2) * SIZE + SIZE // 2
    for ply in range(max_moves):
        if ply == 0:
            c = centre + rng.choice([0, 1, -1, SIZE, -SIZE])
        else:
            cand = _near(b, 2)
            scored = []
            for c in cand:
                s = 0
                for w in b.geo.of_cell[c]:
                    mine, theirs = b.count[colour][w], b.count[3 - colour][w]
                    if theirs == 0:
                        s += OWN[mine]
                    if mine == 0:
                        s += OPP[theirs] * (opp_weight if theirs < 4 else 1.0)
                scored.append((s * (0.5 + rng.random()), c))
            scored.sort(reverse=True)
            c = -1
            for _, q in scored[:8]:
                if not b.foul(q, colour):
                    c = q
                    break
            if c < 0:
                return moves
            if rng.random() < 0.25:  # some variety: a random square among the better ones
                pool = [q for _, q in scored[:6] if not b.foul(q, colour)]
                c = rng.choice(pool) if pool else c
        b.place(c, colour)
        if b.has_line_of_five(colour):
            return moves
        moves.append((c % SIZE, c // SIZE, colour))
        colour = 3 - colour
    return moves


def _near(b: T.ThreatBoard, dist: int) -> list[int]:
    n = b.n
    out = set()
    for c in range(n * n):
        if b.cells[c] != T.EMPTY:
            x, y = c % n, c // n
            for yy in range(max(0, y - dist), min(n, y + dist + 1)):
                for xx in range(max(0, x - dist), min(n, x + dist + 1)):
                    if b.cells[yy * n + xx] == T.EMPTY:
                        out.add(yy * n + xx)
    return sorted(out)


# ---------------------------------------------------------------------- scanning
def quiet_for(b: T.ThreatBoard, side: int) -> bool:
    """No five point for either side and no double-five move for `side` (the win is not instant)."""
    return not b.five_points(side) and not b.five_points(3 - side) and not b.double_five_moves(side)


def scan_position(rule: str, moves, want: set[str]) -> list[dict]:
    rules = RULE_NAMES[rule]
    side = T.BLACK if len(moves) % 2 == 0 else T.WHITE
    b = T.ThreatBoard(SIZE, rules, moves)
    if not quiet_for(b, side):
        return []
    out = []
    base = {"rule": rule, "size": SIZE, "moves": [list(m) for m in moves], "to_move": side}
    t0 = time.perf_counter()
    vcf = b.solve(side, VCF_DEPTH, False, VCF_NODES)
    if vcf.status == T.UNKNOWN:
        return []
    if vcf.status == T.WIN:
        if "vcf" in want and vcf.length >= 3:
            first = T.winning_first_moves(SIZE, rules, moves, side, vcf.length, False, VCF_NODES)
            if first:
                out.append(dict(base, kind="vcf", length=vcf.length, answers=sorted(map(list, first)),
                                line=[list(m) for m in vcf.line], nodes=vcf.nodes,
                                seconds=round(time.perf_counter() - t0, 3)))
        return out
    if not want & {"vct", "defence"}:
        return out
    vct = T.ThreatBoard(SIZE, rules, moves).solve(side, VCT_DEPTH, True, VCT_NODES)
    if vct.status == T.UNKNOWN:
        return []
    if vct.status == T.WIN:
        if "vct" in want and vct.length >= 2:
            first = T.winning_first_moves(SIZE, rules, moves, side, vct.length, True, VCT_NODES)
            if first:
                out.append(dict(base, kind="vct", length=vct.length, answers=sorted(map(list, first)),
                                line=[list(m) for m in vct.line], nodes=vct.nodes,
                                seconds=round(time.perf_counter() - t0, 3)))
        return out
    if "defence" not in want:
        return out
    # the side to move has no VCT: does the opponent have one, were it to move?
    opp = 3 - side
    if b.double_five_moves(opp):
        return out  # an open three on the board: the textbook case, kept out
    threat = T.ThreatBoard(SIZE, rules, moves).solve(opp, DEFENCE_DEPTH, True, VCT_NODES)
    if threat.status != T.WIN or threat.length < 2:
        return out
    refute, nodes = T.refutations(SIZE, rules, moves, side, DEFENCE_DEPTH, DEFENCE_NODES, give_up_above=4)
    if refute is None or not 1 <= len(refute) <= 4:
        return out
    if any(b.makes_fives(y * SIZE + x, side) for x, y in refute):
        return out  # a four that only delays would count as a refutation: such positions are left out
    out.append(dict(base, kind="defence", length=threat.length, answers=sorted(map(list, refute)),
                    line=[list(m) for m in threat.line], nodes=nodes,
                    seconds=round(time.perf_counter() - t0, 3)))
    return out


def generate(rule: str, games: int, seed: int, want: set[str], out_path: str, min_ply: int, max_ply: int,
             per_game: int) -> None:
    """Play games to their end (a five) and scan them backwards from there, where the forced wins
    are: positions with the eventual winner to move are attack candidates, the others defence
    candidates. A game's scan stops after `per_game` finds or three winner positions in a row
    without a win."""
    rng = random.Random(seed)
    rules = RULE_NAMES[rule]
    found = 0
    with open(out_path, "a") as f:
        for g in range(games):
            moves = greedy_game(rules, rng, max_ply)
            if len(moves) >= max_ply:
                continue  # no five: no winner to look back from
            winner = T.BLACK if len(moves) % 2 == 0 else T.WHITE  # the side to move has the five
            kept = misses = 0
            ply = len(moves)
            while ply >= min_ply and kept < per_game and misses < 3:
                side = T.BLACK if ply % 2 == 0 else T.WHITE
                recs = scan_position(rule, moves[:ply], want if side != winner else want - {"defence"})
                if side == winner:
                    short = T.ThreatBoard(SIZE, rules, moves[:ply]).solve(side, 3, True, 3000)
                    misses = 0 if recs or short.status == T.WIN else misses + 1
                for rec in recs:
                    rec["source"] = f"{rule} seed {seed} game {g} ply {ply}"
                    f.write(json.dumps(rec) + "\n")
                    f.flush()
                    found += 1
                    kept += 1
                ply -= 1
            print(f"game {g}: {len(moves)} moves, {found} found", file=sys.stderr, flush=True)


def forward_vcf(rule: str, games: int, seed: int, out_path: str, opp_weight: float) -> None:
    """VCF candidates: every position of games whose players defend little (so threes pile up)."""
    rng = random.Random(seed)
    found = 0
    with open(out_path, "a") as f:
        for g in range(games):
            moves = greedy_game(RULE_NAMES[rule], rng, 80, opp_weight)
            skip_to = 6
            for ply in range(6, len(moves) + 1):
                if ply < skip_to:
                    continue
                for rec in scan_position(rule, moves[:ply], {"vcf"}):
                    rec["source"] = f"{rule} seed {seed} vcf game {g} ply {ply}"
                    f.write(json.dumps(rec) + "\n")
                    f.flush()
                    found += 1
                    skip_to = ply + 3
            print(f"game {g}: {len(moves)} moves, {found} found", file=sys.stderr, flush=True)


def interleave(moves):
    """The same stones in an alternating order: black and white each in their own original order."""
    blacks = [m for m in moves if m[2] == T.BLACK]
    whites = [m for m in moves if m[2] == T.WHITE]
    out = []
    for i in range(len(blacks)):
        out.append(blacks[i])
        if i < len(whites):
            out.append(whites[i])
    return out


def lengthen(path: str, out_path: str, seed: int, tries: int) -> None:
    """Longer VCFs from found ones: take out one attacker stone and one defender stone (the order
    re-interleaved, legality checked), keep the change when the shortest VCF stays and grows."""
    rng = random.Random(seed)
    with open(path) as src, open(out_path, "a") as f:
        for line in src:
            rec = json.loads(line)
            if rec["kind"] != "vcf":
                continue
            rules = RULE_NAMES[rec["rule"]]
            moves = [tuple(m) for m in rec["moves"]]
            side, length = rec["to_move"], rec["length"]
            best_written = length
            for _ in range(tries):
                mine = [m for m in moves if m[2] == side]
                theirs = [m for m in moves if m[2] != side]
                if len(mine) < 4 or len(theirs) < 4:
                    break
                drop = {rng.choice(mine), rng.choice(theirs)}
                cand = interleave([m for m in moves if m not in drop])
                if (T.BLACK if len(cand) % 2 == 0 else T.WHITE) != side:
                    continue
                if T.is_legal_position(SIZE, rules, cand) is not None:
                    continue
                b = T.ThreatBoard(SIZE, rules, cand)
                if not quiet_for(b, side):
                    continue
                r = b.solve(side, VCF_DEPTH, False, VCF_NODES)
                if r.status != T.WIN or r.length < length:
                    continue
                moves, length = cand, r.length
                if length > best_written and length >= 7:
                    for rec2 in scan_position(rec["rule"], moves, {"vcf"}):
                        rec2["source"] = rec.get("source", "") + " lengthened"
                        f.write(json.dumps(rec2) + "\n")
                        f.flush()
                        best_written = rec2["length"]
                        print("vcf", rec2["length"], file=sys.stderr, flush=True)


GROW_NODES = 40_000  # the solver's budget per step of `grow` (a longer search is not worth keeping)


def grow(paths: list[str], out_path: str, seed: int, steps: int, min_length: int, rules_only: set[str],
         max_length: int = 15) -> None:
    """Longer VCFs from found ones (lengths 12-15 and more) by a random walk over stone changes.

    Each step takes out one attacker and one defender stone (as `lengthen`), or moves one stone to a
    neighbouring empty square, or puts a defender stone on one of the attacker's squares of the
    current shortest VCF (that VCF is gone) together with an attacker stone on an empty square next
    to one of its own stones (the counts stay alternating; the new stones are played last). A change
    is kept when the position stays legal and not instant and its shortest VCF (within GROW_NODES)
    is at least as long as before and at most `max_length`: equal lengths are kept too, so the walk
    can cross plateaus. Every position longer than the longest already written from the same start,
    and at least `min_length`, is scanned in full (answers, cost) and written.
    """
    rng = random.Random(seed)
    starts = []
    for path in paths:
        for line in open(path):
            rec = json.loads(line)
            if rec["kind"] == "vcf" and (not rules_only or rec["rule"] in rules_only) and rec["length"] <= max_length:
                starts.append(rec)
    for rec in starts:
        rules = RULE_NAMES[rec["rule"]]
        moves = [tuple(m) for m in rec["moves"]]
        side, length = rec["to_move"], rec["length"]
        line = [tuple(m) for m in rec["line"]]
        best_written = max(length, min_length - 1)
        t0 = time.perf_counter()
        for step in range(steps):
            mine = [m for m in moves if m[2] == side]
            theirs = [m for m in moves if m[2] != side]
            kind = rng.random()
            if kind < 0.4 and len(mine) >= 6 and len(theirs) >= 6:
                drop = {rng.choice(mine), rng.choice(theirs)}
                cand = interleave([m for m in moves if m not in drop])
            elif kind < 0.6:
                taken = {(m[0], m[1]) for m in moves}
                old = rng.choice(moves)
                near = [(old[0] + i, old[1] + j) for i in (-1, 0, 1) for j in (-1, 0, 1)]
                near = [q for q in near if 0 <= q[0] < SIZE and 0 <= q[1] < SIZE and q not in taken]
                if not near:
                    continue
                q = rng.choice(near)
                cand = interleave([m if m != old else (q[0], q[1], old[2]) for m in moves])
            else:
                taken = {(m[0], m[1]) for m in moves}
                targets = [xy for xy in line[0::2] if tuple(xy) not in taken and xy[0] >= 0]
                if not targets:
                    continue
                dx, dy = rng.choice(targets)
                near = [(m[0] + i, m[1] + j) for m in mine for i in (-1, 0, 1) for j in (-1, 0, 1)]
                near = [q for q in near if 0 <= q[0] < SIZE and 0 <= q[1] < SIZE and q not in taken
                        and q != (dx, dy)]
                if not near:
                    continue
                ax, ay = rng.choice(near)
                cand = interleave(moves + [(dx, dy, 3 - side), (ax, ay, side)])
            if (T.BLACK if len(cand) % 2 == 0 else T.WHITE) != side:
                continue
            if T.is_legal_position(SIZE, rules, cand) is not None:
                continue
            b = T.ThreatBoard(SIZE, rules, cand)
            if not quiet_for(b, side):
                continue
            r = b.solve(side, VCF_DEPTH, False, GROW_NODES)
            if r.status != T.WIN or not length <= r.length <= max_length:
                continue
            moves, length, line = cand, r.length, r.line
            if length > best_written:
                for rec2 in scan_position(rec["rule"], moves, {"vcf"}):
                    rec2["source"] = rec.get("source", "") + f" grown {step + 1} steps"
                    f_out = open(out_path, "a")
                    f_out.write(json.dumps(rec2) + "\n")
                    f_out.close()
                    best_written = rec2["length"]
                    print("vcf", rec["rule"], side, rec2["length"], rec2["nodes"], rec2["seconds"],
                          f"step {step + 1}", file=sys.stderr, flush=True)
        print(f"start {rec.get('source', '')}: {rec['length']} -> {length} in {time.perf_counter() - t0:.0f} s",
              file=sys.stderr, flush=True)


def defence_from(path: str, out_path: str) -> None:
    """For each attack record, the positions 1, 3, 5 and 7 plies earlier (the loser to move) as
    defence candidates."""
    seen = set()
    with open(path) as src, open(out_path, "a") as f:
        for line in src:
            rec = json.loads(line)
            if rec["kind"] == "defence":
                continue
            for back in (1, 3, 5, 7):
                moves = [tuple(m) for m in rec["moves"]][:-back]
                key = (rec["rule"], tuple(moves))
                if key in seen or len(moves) < 6:
                    continue
                seen.add(key)
                for out in scan_position(rec["rule"], moves, {"defence"}):
                    out["source"] = rec.get("source", "") + f" minus {back} plies"
                    f.write(json.dumps(out) + "\n")
                    f.flush()
                    print("defence", out["length"], out["answers"], out["nodes"], out["seconds"], file=sys.stderr,
                          flush=True)


def rescan(paths: list[str], out_path: str, kinds: set[str]) -> None:
    """Scan the positions of earlier candidate records again (after a solver change)."""
    with open(out_path, "a") as f:
        for path in paths:
            for line in open(path):
                rec = json.loads(line)
                if rec["kind"] not in kinds:
                    continue
                for out in scan_position(rec["rule"], [tuple(m) for m in rec["moves"]], {rec["kind"]}):
                    out["source"] = rec.get("source", "")
                    f.write(json.dumps(out) + "\n")
                    f.flush()
                    print(out["kind"], out["length"], out["seconds"], file=sys.stderr, flush=True)


def select(paths: list[str], data_dir: str, per_bucket: dict[str, int], max_seconds: float,
           keep: list[str] = (), kinds: tuple[str, ...] = ("vcf", "vct", "defence")) -> None:
    """Pick the sets from candidate files: per (kind, rule, colour, length) at most `per_bucket[kind]`
    positions, the cheapest to verify first (attack positions that took more than `max_seconds` to
    find, twice that under renju, and defence positions of more than 120 k nodes are left out); one
    file per kind in `kinds`. Records of the `keep` files (the current sets) come first in their
    buckets whatever their cost, so a new selection only fills buckets that were short."""
    import os

    seen = set()
    buckets: dict[tuple, list[dict]] = {}
    kept = set()
    for path in list(keep) + list(paths):
        for line in open(path):
            rec = json.loads(line)
            key = (rec["rule"], tuple(map(tuple, rec["moves"])))
            limit = max_seconds * (2 if rec["rule"] == "renju" else 1)
            if path in keep:
                kept.add(key)
            elif key in seen or (rec["kind"] != "defence" and rec["seconds"] > limit):
                continue
            if rec["kind"] == "defence" and rec["nodes"] > 120_000 and path not in keep:
                continue
            if rec["kind"] == "vcf" and rec["length"] > MAX_VCF_LENGTH:
                continue
            seen.add(key)
            rec.pop("index", None)
            buckets.setdefault((rec["kind"], rec["rule"], rec["to_move"], rec["length"]), []).append(rec)
    os.makedirs(data_dir, exist_ok=True)

    def order(r):
        return (r["rule"], tuple(map(tuple, r["moves"]))) not in kept, r["seconds"]

    for kind in kinds:
        chosen = []
        for (k, rule, side, length), recs in sorted(buckets.items()):
            if k != kind:
                continue
            take = per_bucket[kind]
            chosen += sorted(recs, key=order)[:take]
        with open(os.path.join(data_dir, f"{kind}.jsonl"), "w") as f:
            for rec in chosen:
                f.write(json.dumps(rec, separators=(",", ":")) + "\n")
        print(kind, len(chosen), file=sys.stderr)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rule", choices=sorted(RULE_NAMES), default="freestyle")
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--want", default="vcf,vct,defence")
    ap.add_argument("--min-ply", type=int, default=8)
    ap.add_argument("--max-ply", type=int, default=60)
    ap.add_argument("--per-game", type=int, default=2)
    ap.add_argument("--out", required=True)
    ap.add_argument("--vcf-forward", action="store_true", help="scan every position for VCFs only")
    ap.add_argument("--opp-weight", type=float, default=0.3)
    ap.add_argument("--rescan", help="comma-separated candidate files to scan again (--want: which kinds)")
    ap.add_argument("--select", help="comma-separated candidate files: write the sets into --out (a directory)")
    ap.add_argument("--keep", help="--select: comma-separated current set files whose records stay")
    ap.add_argument("--max-seconds", type=float, default=3.0)
    ap.add_argument("--lengthen", help="VCF candidate file to grow longer VCFs from (--games: tries each)")
    ap.add_argument("--grow", help="comma-separated VCF candidate files to grow long VCFs from by a random walk "
                    "(--games: steps each)")
    ap.add_argument("--rule-all", action="store_true", help="--grow: start from every rule's records")
    ap.add_argument("--min-length", type=int, default=12, help="--grow: the shortest VCF worth writing")
    ap.add_argument("--max-length", type=int, default=15, help="--grow: the longest VCF the walk may reach")
    ap.add_argument("--vct-nodes", type=int, default=VCT_NODES)
    ap.add_argument("--defence-from", help="candidate file: scan the position one ply before each attack record")
    a = ap.parse_args(argv)
    globals()["VCT_NODES"] = a.vct_nodes
    if a.vcf_forward:
        forward_vcf(a.rule, a.games, a.seed, a.out, a.opp_weight)
        return
    if a.rescan:
        rescan(a.rescan.split(","), a.out, set(a.want.split(",")))
        return
    if a.select:
        select(a.select.split(","), a.out, {"vcf": 1, "vct": 2, "defence": 3}, a.max_seconds,
               a.keep.split(",") if a.keep else [], tuple(a.want.split(",")))
        return
    if a.lengthen:
        lengthen(a.lengthen, a.out, a.seed, a.games)
        return
    if a.grow:
        grow(a.grow.split(","), a.out, a.seed, a.games, a.min_length, set() if a.rule_all else {a.rule},
             a.max_length)
        return
    if a.defence_from:
        defence_from(a.defence_from, a.out)
        return
    generate(a.rule, a.games, a.seed, set(a.want.split(",")), a.out, a.min_ply, a.max_ply, a.per_game)


if __name__ == "__main__":
    main()
