"""Cut the defence test set (tests/search/data/defence_positions.json) from real blunders.

Why: the search tests and `benchmarks/defence_set.py` need positions where the side to move must
find a defence, with every holding move known and every losing one proved lost, taken from games
our brain really lost. This tool builds and maintains that set; the tests only read it
(tests/search/test_defence_positions.py replays its proofs with the independent solver).

    python -m tools.make_defence_set verify RUN.json ... --out /tmp/defence_cands.jsonl [--shard 0/2]
    python -m tools.make_defence_set select /tmp/defence_cands*.jsonl --out tests/search/data/defence_positions.json
    python -m tools.make_defence_set recheck|deepen|prove SET ...
    python -m tools.make_defence_set judge-played SET RUNS.json ... --out JUDGED.jsonl; ... admit SET JUDGED.jsonl ...

The input is what `gomocup-tournament analyse --json` wrote for real games (our brain's losses):
every blunder found there, with the position right before it. `verify` checks each:

1. **the blunder loses**, by the independent threat solver (tests/search/threat_solver.py, no brain
   code): after it the attacker A has a VCT of at most MAX_LENGTH threat moves, found within
   `--blunder-nodes` nodes (its shortest length and line are kept). Blunders refuted only by longer
   or quieter wins are left out.
2. the defender D (to move) has no short VCT of its own (the solver, OWN_DEPTH threat moves): the
   position is a defence, not a win.
3. **every legal move of D is judged by a long run of the analysing engine** (`--engine`, our brain
   by default, through `tournament.analysis.analyser`, so a forced block is followed to the position after
   it): first `--quick` seconds, then, if that did not prove a win for A, `--long` seconds. A move
   after which the engine proves a forced win for A lets it in; the others hold, as far as the
   engine sees (its winrate for D after the move is kept). Deep threats (VCTs of 8-20 plies) are
   beyond what the plain-Python solver settles in a budget we can afford for 200 moves a position;
   the engine's threat search and PVS settle them in seconds.
4. **the solver cross-checks every holding move**: A must have no VCT of at most CHECK_DEPTH threat
   moves after it (a complete search within CHECK_NODES nodes). A move the solver refutes is not
   holding (the proof wins); a move it cannot settle in the nodes is kept apart (`unconfirmed`).

5. `recheck` (on the written set): the solver again on every holding (and unconfirmed) move, now as
   deep as the blunder's own VCT (`length` threat moves, RECHECK_NODES nodes): a move it refutes
   goes, a move it settles is recorded with that depth in `proofs`.

6. `deepen` (on the written set): each holding and unconfirmed move once more against deeper
   threats. The brain's own threat solver screens it (up to DEEPEN_THREES threes, DEEPEN_NODES
   nodes; fast, but brain code); a VCT it finds is only a lead: the independent solver must prove
   it (`replies` up to CONFIRM_EXTRA threat moves deeper than the lead's line, whose other
   branches may need more, CONFIRM_NODES nodes) before the move goes. A second pass with
   `--floor 12 --nodes 10000000` settles leads the first pass could not prove that shallow.

7. `prove` (on the written set): each holding and unconfirmed move once more, now against any forced
   win, threats or not. The engine (`--engine`, `--long` seconds as the attacker) screens the move;
   where it claims a forced win, tests/search/proof_check.py checks the claim over the whole board:
   the engine only proposes the attacker's moves (`--oracle` seconds each), every legal reply of the
   defender is tried, and the independent solver ends the lines it can. A move goes only when the
   check proves the win; a position left without a holding move goes to `dropped` (with the proofs),
   so the set keeps only positions that have a right answer.

8. `judge-played` (on a written set and benchmarks/defence_set.py --json runs): each move a measured
   brain played that the set counts as lost, and has no proof yet, is judged like step 7 judges a
   holding move (the step-3 word "lost" came from a short engine run); `admit` applies the verdicts: a move proved lost joins
   `proved` (marked `played`), a move no engine run claims a win after and the solver confirms like
   the other holding moves joins `holding` (listed in `admitted`); a played four is followed first
   (the block, then the engine's reply, which the solver confirms: `four_replies`).
   `prove --only SOURCE --no-screen`
   sends one position's holding moves to the whole-board check whatever the engine claims;
   `prove --played RUN.json` screens only the holding moves a measured brain played there (the
   moves its score counted as held), so that a correction weighs both sides of the score.

A position is kept when its blunder is proven and at least one move holds and is confirmed. The
candidates are appended to `--out` one per line as they are done (a stopped run starts again where
it was: positions already in the file are skipped). `select` writes the set, one record per position.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import trio

from protocol.rules import Rules
from tests.search import threat_solver as T
from tournament.analysis.analyser import Analyser, Budget
from tournament.api.engine_async import Engine
from tournament.api.position import Position

SIZE = 15
RULES = {"freestyle": Rules(), "exact-five": Rules(exact_five=True), "standard": Rules(exact_five=True),
         "renju": Rules(renju=True)}
MAX_LENGTH = 7  # the blunder's refutation: a VCT of at most this many threat moves
BLUNDER_NODES = 100_000
OWN_DEPTH, OWN_NODES = 5, 20_000  # D's own VCT (only a found win matters)
CHECK_DEPTH, CHECK_NODES = 4, 20_000  # the solver's cross-check of each holding move
RECHECK_NODES = 100_000  # the solver again on each holding move, as deep as the blunder's VCT
DEEPEN_THREES, DEEPEN_NODES = 9, 2_000_000  # the brain's solver screening each holding move (step 6)
CONFIRM_NODES = 3_000_000  # the independent solver proving a lead of the screen
CONFIRM_EXTRA = 4  # ... this many threat moves deeper than the lead's principal line
QUICK, LONG = 0.3, 3.0  # seconds of the engine per defender move
PROVE_LONG, PROVE_ORACLE = 10.0, 1.0  # step 7: the engine's screen of a holding move, then a second an oracle move
PROVE_ENGINE = "builtin:gomocup-bot?mate_width=1"
ADMIT_ABOUT = ("admitted: holding moves added after the set was made: a measured brain played them, the set counted "
               "them lost by the first engine's word, and today's engine (step 7's screen) claims no win after "
               "them while the solver confirms them like the other holding moves; a `proved` entry with "
               "`played` is such a move proved lost.")
FOUR_ABOUT = ("four_replies: admitted moves that are fours of the defender: the solver's check of the four "
              "itself says nothing (the attacker must block), so it was made after the block and the "
              "engine's reply for the defender (no four), at `proof` [threat moves, nodes].")
PROVE_ABOUT = ("proved: each holding and unconfirmed move screened by the engine as the attacker; where it claimed a "
               "forced win, the whole-board check (tests/search/proof_check.py) tried every defender reply: status win "
               "= proved losing (the move went to `refuted`; `strategy`: the attacker's move at each line from the "
               "position after it, which replays the proof); dropped: positions left without a holding move.")


def rule_name(rule: str) -> str:
    return "standard" if rule in ("exact-five", "standard") else rule


def key_of(rule: str, moves) -> str:
    return rule_name(rule) + ":" + " ".join(f"{x},{y}" for x, y, *_ in moves)


def shard_of(key: str, n: int) -> int:
    return int(hashlib.sha1(key.encode()).hexdigest(), 16) % n


def blunders_in(path: Path):
    """(position dict, blunder dict, game dict) for every blunder of an analysis file."""
    doc = json.loads(path.read_text())
    for game in doc["games"]:
        for b in game["blunders"]:
            yield b["position"], b, game


def solver_part(rule: str, moves, blunder, blunder_nodes: int = BLUNDER_NODES) -> dict:
    """Steps 1 and 2 (the independent solver); `status` is "ok" when the engine scan should follow."""
    rules = RULES[rule]
    d = T.BLACK if len(moves) % 2 == 0 else T.WHITE
    out: dict = {"rule": rule_name(rule), "size": SIZE, "moves": [list(m) for m in moves], "to_move": d,
                 "blunder": list(blunder)}
    problem = T.is_legal_position(SIZE, rules, moves)
    if problem:
        return {**out, "status": "illegal", "why": problem}
    after = list(moves) + [(blunder[0], blunder[1], d)]
    refute = T.solve(SIZE, rules, after, 3 - d, MAX_LENGTH, True, blunder_nodes)
    out["blunder_nodes"] = refute.nodes
    if refute.status != T.WIN:
        return {**out, "status": "blunder-" + refute.status}
    out.update(length=refute.length, refutation=[list(s) for s in refute.line])
    own = T.solve(SIZE, rules, moves, d, OWN_DEPTH, True, OWN_NODES)
    if own.status == T.WIN:
        return {**out, "status": "own-win"}
    return {**out, "status": "ok"}


async def engine_part(analyser: Analyser, rec: dict, quick: float, long: float) -> None:
    """Step 3: every legal defender move judged by the engine; fills `holding`, `losing`, `engine`."""
    position = Position.from_moves([(x, y) for x, y, _ in rec["moves"]], SIZE, rec["rule"])
    holding: dict[tuple[int, int], float | None] = {}
    losing: list[tuple[int, int]] = []
    for square in position.legal_moves():
        after = position.push(square)
        if after.is_over():  # a five of its own: not a defence position after all
            rec["status"] = "own-five"
            return
        e = await analyser.evaluate(after, quick)
        if not e.proven > 0:
            e = await analyser.evaluate(after, long)
        if e.proven > 0:
            losing.append(square)
        else:
            holding[square] = None if e.winrate is None else round(1.0 - e.winrate, 3)
    rec["engine_holding"] = sorted([list(m), w] for m, w in holding.items())
    rec["losing"] = len(losing)
    rec["legal"] = len(losing) + len(holding)


def cross_check(rec: dict) -> None:
    """Step 4: the solver on each engine-holding move; sets `holding`, `unconfirmed`, `status`."""
    rules = RULES[rec["rule"]]
    stones = [tuple(m) for m in rec["moves"]]
    moves = [tuple(m) for m, _ in rec["engine_holding"]]
    answers = T.replies(SIZE, rules, stones, rec["to_move"], CHECK_DEPTH, CHECK_NODES, moves=moves)
    winrate = {tuple(m): w for m, w in rec["engine_holding"]}
    holding = sorted(m for m in moves if answers[m][0] == T.FAIL)
    rec["holding"] = [list(m) for m in holding]
    rec["winrate"] = [winrate[m] for m in holding]
    rec["unconfirmed"] = [list(m) for m in sorted(m for m in moves if answers[m][0] == T.UNKNOWN)]
    rec["refuted"] = [list(m) for m in sorted(m for m in moves if answers[m][0] == T.WIN)]
    rec["check_nodes"] = sum(answers[m][1] for m in holding)
    if tuple(rec["blunder"]) in holding:
        rec["status"] = "inconsistent"  # the solver proved the blunder loses: never expected
    else:
        rec["status"] = "kept" if holding else "no-hold"


async def verify(paths: list[Path], out_path: Path, engine_spec: str, quick: float, long: float,
                 rules: set[str], limit: int, shard: tuple[int, int], blunder_nodes: int = BLUNDER_NODES) -> None:
    done = set()
    if out_path.exists():
        for line in out_path.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                done.add(key_of(rec["rule"], rec["moves"]))
    todo = []
    for path in paths:
        for position, blunder, game in blunders_in(path):
            rule = rule_name(position["rule"])
            moves = [tuple(m) for m in position["moves"]]
            key = key_of(rule, moves)
            if rule not in rules or key in done:
                continue
            done.add(key)
            if shard_of(key, shard[1]) != shard[0]:
                continue
            todo.append((priority(blunder), rule, moves, blunder, game))
    todo.sort(key=lambda item: item[0])
    count = 0
    async with Engine.open(engine_spec, tolerance=max(10.0, 2 * long), start_timeout=60.0) as engine:
        analyser = Analyser(engine, Budget(fast=quick, deep=long))
        with out_path.open("a") as out:
            for _, rule, moves, blunder, game in todo:
                t0 = time.monotonic()
                rec = solver_part(rule, moves, tuple(blunder["move"]), blunder_nodes)
                if rec["status"] == "ok":
                    await engine_part(analyser, rec, quick, long)
                if rec["status"] == "ok":
                    cross_check(rec)
                rec.update(source=f"{Path(game['file']).name} game {game['number']} move {blunder['move_number']}",
                           blunderer=blunder["player"], seconds=round(time.monotonic() - t0, 1),
                           engine={"spec": engine_spec, "quick": quick, "long": long},
                           check={"depth": CHECK_DEPTH, "nodes": CHECK_NODES},
                           found_by={"before": blunder["before"], "engine_refutation": blunder["refutation"][:12]})
                out.write(json.dumps(rec, separators=(",", ":")) + "\n")
                out.flush()
                count += 1
                print(f"{count}/{len(todo)}: {rec['source']} {rule} {rec['status']} holding {len(rec.get('holding', []))} "
                      f"of {len(rec.get('engine_holding', []))} {rec['seconds']}s", file=sys.stderr, flush=True)
                if limit and count >= limit:
                    return


def priority(blunder: dict) -> tuple:
    """Blunders most likely to make a position first: the analysis found a move that held, and the
    refutation is short (a short VCT is what the solver proves)."""
    return (not blunder["holding"], blunder["mate"] or 99)


FIELDS = ("rule", "size", "moves", "to_move", "blunder", "refutation", "length", "blunder_nodes", "holding", "winrate",
          "unconfirmed", "legal", "engine", "check", "source", "blunderer")


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
            kept.append({k: rec[k] for k in FIELDS})
    kept.sort(key=lambda r: (r["rule"] != "freestyle", r["rule"], r["source"]))
    doc = {
        "about": "Real defence positions: the position right before a blunder in a lost game of our brain "
                 "(found by `gomocup-tournament analyse`), made by tools/make_defence_set.py (its "
                 "docstring has the method). blunder: the move played, after which the attacker has a VCT of "
                 "`length` threat moves (refutation: the independent solver's line, [-1, -1] = any reply). "
                 "holding: the defender's moves after which the analysing engine (engine: spec and seconds) "
                 "proves no forced win for the attacker and the independent solver finds no VCT: proofs gives, "
                 "per holding move, [depth, nodes] of the solver's complete search (depth = `length` when it "
                 "settled that deep within its nodes, else the cross-check's depth, see check); winrate: the "
                 "engine's for the defender after each; unconfirmed: engine-holding moves the solver could not "
                 "settle; refuted: engine-holding moves the solver refuted (not holding); every other legal "
                 "move lets a forced win in, by the engine. Squares are [x, y], 0-based; moves are [x, y, "
                 "colour] in play order, black = 1.",
        "positions": kept,
    }
    write_set(out_path, doc)


def recheck(path: Path) -> None:
    """Step 5, on a written set: each holding move again, now against VCTs as long as the one the
    blunder let in (`length` threat moves, RECHECK_NODES nodes). A move the solver refutes is not
    holding (the brain's 3 s missed that VCT) and goes; a position left without one goes too. Each
    holding move's `proofs` entry says how deep the solver confirmed it and with how many nodes:
    [length, n] when that search completed, else the cross-check's [CHECK_DEPTH, n]."""
    doc = json.loads(path.read_text())
    kept = []
    for rec in doc["positions"]:
        rules = RULES[rec["rule"]]
        stones = [tuple(m) for m in rec["moves"]]
        moves = [tuple(m) for m in rec["holding"]]
        unsure = [tuple(m) for m in rec["unconfirmed"]]
        deep = T.replies(SIZE, rules, stones, rec["to_move"], rec["length"], RECHECK_NODES, moves=moves + unsure)
        shallow = T.replies(SIZE, rules, stones, rec["to_move"], CHECK_DEPTH, CHECK_NODES, moves=moves)
        holding, winrate, proofs, refuted, still_unsure = [], [], [], [], []
        for m, w in zip(moves, rec["winrate"]):
            status, nodes, _ = deep[m]
            if status == T.WIN:
                refuted.append(list(m))
                continue
            if status != T.FAIL and shallow[m][0] != T.FAIL:  # settled by neither search now
                (refuted if shallow[m][0] == T.WIN else still_unsure).append(list(m))
                continue
            holding.append(list(m))
            winrate.append(w)
            proofs.append([rec["length"], nodes] if status == T.FAIL else [CHECK_DEPTH, shallow[m][1]])
        for m in unsure:  # the cross-check ran out of nodes: a complete search to the length settles it
            status, nodes, _ = deep[m]
            if status == T.FAIL:
                holding.append(list(m))
                winrate.append(None)
                proofs.append([rec["length"], nodes])
            elif status == T.WIN:
                refuted.append(list(m))
            else:
                still_unsure.append(list(m))
        rec["unconfirmed"] = still_unsure
        print(f"{rec['source']}: {len(holding)} of {len(moves)} hold, {sum(p[0] == rec['length'] for p in proofs)} to "
              f"depth {rec['length']}, {len(refuted)} refuted", file=sys.stderr, flush=True)
        if holding:
            rec.update(holding=holding, winrate=winrate, proofs=proofs)
            rec.setdefault("refuted", [])
            rec["refuted"] += refuted
            kept.append(rec)
    doc["positions"] = kept
    write_set(path, doc)


def _brain_board(rule: str, moves):
    """The brain's core board for a set position (stones as (x, y, colour) in play order)."""
    from gomocup_bot.core.board import board_from_stones
    from gomocup_bot.core.constants import RULE_EXACT, RULE_FREESTYLE, RULE_RENJU

    code = {"freestyle": RULE_FREESTYLE, "standard": RULE_EXACT, "renju": RULE_RENJU}[rule]
    return board_from_stones(SIZE, SIZE, [tuple(m) for m in moves], 5, code)


def _screen(rec: dict, move: tuple[int, int]) -> tuple[int, int]:
    """The brain's threat solver on the position after ``move``: (the threat moves of a VCT it
    found for the attacker, 0 if none; nodes)."""
    import numpy as np

    from gomocup_bot.core.board import play, take, to_pos
    from gomocup_bot.search.vct import WIN, ThreatSolver

    board = _brain_board(rec["rule"], rec["moves"])
    d = rec["to_move"]
    play(board, to_pos(board, *move), d)
    try:
        solver = ThreatSolver(board, np.zeros(1, dtype=np.int32))
        result, line, nodes = solver.run(board, 3 - d, vct=True, max_depth=DEEPEN_THREES, max_nodes=DEEPEN_NODES)
    finally:
        take(board)
    return ((len(line) + 1) // 2 - 1 if result == WIN else 0), nodes


def deepen(path: Path, floor: int = 0, nodes: int = CONFIRM_NODES) -> None:
    """Step 6, on a written set: a holding (or unconfirmed) move goes when the brain's solver finds a
    deeper VCT after it and the independent solver proves one as deep; a position left without a
    holding move goes too. The independent solver searches at least ``floor`` threat moves deep
    (a second pass with a high floor settles the leads a first pass left open), with ``nodes``."""
    doc = json.loads(path.read_text())
    kept = []
    for rec in doc["positions"]:
        rules = RULES[rec["rule"]]
        stones = [tuple(m) for m in rec["moves"]]
        refuted = []
        for group in ("holding", "unconfirmed"):
            for m in [tuple(m) for m in rec[group]]:
                t0 = time.monotonic()
                depth, screened = _screen(rec, m)
                if not depth:
                    continue
                status, used, _ = T.replies(SIZE, rules, stones, rec["to_move"],
                                            max(depth + CONFIRM_EXTRA, floor), nodes, moves=[m])[m]
                print(f"  {rec['source']} {m}: the screen's VCT of {depth} threat moves ({screened} nodes); independent "
                      f"solver {status} ({used} nodes, {time.monotonic() - t0:.0f} s)", file=sys.stderr, flush=True)
                if status == T.WIN:
                    refuted.append(m)
        drop_refuted(rec, refuted)
        print(f"{rec['source']}: {len(refuted)} refuted deeper, {len(rec['holding'])} hold", file=sys.stderr, flush=True)
        if rec["holding"]:
            kept.append(rec)
    doc["positions"] = kept
    write_set(path, doc)


class WinProver:
    """Does the attacker win by force after these moves? The engine screens (`long` seconds as the
    side to move); where it claims a win, tests/search/proof_check.py checks the claim over the whole
    board with the engine as the oracle of the attacker's moves (`oracle` seconds each)."""

    def __init__(self, engine_spec: str, long: float, oracle_seconds: float, solver_nodes: int = 0,
                 max_oracle: int = 300, max_plies: int = 40) -> None:
        from tournament.engine import SimpleEngine

        self.long, self.oracle_seconds, self.solver_nodes = long, oracle_seconds, solver_nodes
        self.max_oracle, self.max_plies = max_oracle, max_plies  # the whole-board check's limits
        self.engine = SimpleEngine.open(engine_spec, tolerance=max(10.0, 2 * long))

    def __enter__(self) -> "WinProver":
        return self

    def __exit__(self, *exc) -> None:
        self.engine.close()

    def _ask(self, rule: str, moves, seconds: float):
        from tournament.engine import Limit

        position = Position.from_moves([(x, y) for x, y, _ in moves], SIZE, rule)
        return self.engine.analyse(position, Limit(turn=seconds))

    def _propose(self, rule: str, moves, lines: dict) -> tuple[int, int]:
        """The attacker's move for the check: with ``solver_nodes``, the next move of a VCT line the
        brain's threat solver found earlier in this check (``lines``: stones played -> move) or
        finds now (a long threat line the engine may not see at `oracle` seconds), else the
        engine's. Either only proposes: the check tries every reply."""
        key = tuple(tuple(m[:2]) for m in moves)
        if key in lines:
            return lines[key]
        if self.solver_nodes:
            from gomocup_bot.core.board import pos_x, pos_y
            from gomocup_bot.search.rootcheck import VCT_DEPTH
            from gomocup_bot.search.vct import WIN, ThreatSolver

            board = _brain_board(rule, moves)
            attacker = 1 if len(moves) % 2 == 0 else 2
            result, line, _ = ThreatSolver(board).run(board, attacker, vct=True, max_depth=VCT_DEPTH + 3,
                                                      max_nodes=self.solver_nodes)
            if result == WIN and line:
                xy = [(int(pos_x(board, q)), int(pos_y(board, q))) for q in line]
                for i in range(0, len(xy), 2):  # the line's later attacker moves, for the replies it expects
                    lines[key + tuple(xy[:i])] = xy[i]
                return xy[0]
        return tuple(self._ask(rule, moves, self.oracle_seconds).move)

    def claims_win(self, rule: str, moves) -> bool:
        """The engine's view for the side to move; an answer with no value (a forced block) is read
        from the position after it."""
        from tournament.analysis.findings import eval_from_info

        info = self._ask(rule, moves, self.long)
        seen = eval_from_info(info, self.long)
        if seen.known or info.move is None:
            return seen.proven > 0
        x, y = info.move
        colour = 1 if len(moves) % 2 == 0 else 2
        return eval_from_info(self._ask(rule, moves + [(x, y, colour)], self.long), self.long).proven < 0

    def judge(self, rule: str, moves, attacker: int, screen: bool = True) -> dict:
        """{"claim": bool} and, for a claim, the whole-board check's status, cost and (won) strategy.
        Without ``screen`` the check runs whatever the engine says (`claim` is then None)."""
        from tests.search.proof_check import WIN, ProofChecker

        entry: dict = {"claim": self.claims_win(rule, moves) if screen else None}
        if entry["claim"] or not screen:
            lines: dict = {}
            checker = ProofChecker(SIZE, RULES[rule], lambda ms, colour: self._propose(rule, ms, lines),
                                   max_oracle=self.max_oracle, max_plies=self.max_plies)
            proof = checker.attacker_wins(moves, attacker)
            entry.update(status=proof.status, oracle_calls=proof.oracle_calls, defender_nodes=proof.defender_nodes,
                         seconds=round(proof.seconds, 1))
            if proof.status == WIN:
                entry["strategy"] = proof.strategy
        return entry


def prove(path: Path, engine_spec: str, long: float, oracle_seconds: float, limit: int = 0,
          shard: tuple[int, int] = (0, 1), only: frozenset[str] = frozenset(), screen: bool = True,
          solver_nodes: int = 0, moves: frozenset[tuple[int, int]] = frozenset(), max_oracle: int = 300,
          max_plies: int = 40, played: dict[str, set[tuple[int, int]]] | None = None) -> None:
    """Step 7, on a written set (see the module docstring). Resumable: a position that carries
    `proved` is skipped; the set is rewritten after every position. With ``shard`` (I, N) only
    every N-th position from the I-th: run the shards on copies of the set, then `merge` them.
    With ``only`` (sources), just those positions, proved or not (a longer look at moves an
    earlier run could not settle; their new entries join the old). Without ``screen`` every move
    goes to the whole-board check, whatever the engine claims. With ``moves``, only those of the
    position's holding and unconfirmed moves. With ``played`` (source -> moves, from
    benchmarks/defence_set.py runs: `played_moves`), only the holding and unconfirmed moves a
    measured brain played, in those positions: the moves its score counted as held."""
    from tests.search.proof_check import WIN

    doc = json.loads(path.read_text())
    doc.setdefault("dropped", [])
    if PROVE_ABOUT not in doc["about"]:
        doc["about"] += " " + PROVE_ABOUT
    done = 0
    with WinProver(engine_spec, long, oracle_seconds, solver_nodes, max_oracle, max_plies) as prover:
        for rec in list(doc["positions"]):
            if played is not None:  # sharded like a first run, whether proved before or not
                if rec["source"] not in played or shard_of(key_of(rec["rule"], rec["moves"]), shard[1]) != shard[0]:
                    continue
            elif only:
                if rec["source"] not in only:
                    continue
            elif "proved" in rec or shard_of(key_of(rec["rule"], rec["moves"]), shard[1]) != shard[0]:
                continue
            if limit and done >= limit:
                break
            rule = rec["rule"]
            stones = [tuple(m) for m in rec["moves"]]
            d = rec["to_move"]
            earlier = rec.get("proved", [])
            rec["proved"] = []
            refuted = []
            for group in ("holding", "unconfirmed"):
                for m in [tuple(m) for m in rec[group]]:
                    if (moves and m not in moves) or (played is not None and m not in played[rec["source"]]):
                        continue
                    after = stones + [(m[0], m[1], d)]
                    entry = {"move": list(m), **prover.judge(rule, after, 3 - d, screen)}
                    claim = entry["claim"] or not screen
                    if entry.get("status") == WIN:
                        refuted.append(m)
                    rec["proved"].append(entry)
                    said = "not asked" if entry["claim"] is None else ("claims a win" if claim else "claims no win")
                    print(f"  {rec['source']} {m}: engine {said}"
                          + (f"; check {entry['status']} ({entry['oracle_calls']} oracle moves, "
                             f"{entry['defender_nodes']} defender positions, {entry['seconds']} s)" if claim else ""),
                          file=sys.stderr, flush=True)
            rec["proved"] = earlier + rec["proved"]
            drop_refuted(rec, refuted)
            if not rec["holding"]:
                doc["positions"].remove(rec)
                doc["dropped"].append(rec)
            print(f"{rec['source']}: {len(refuted)} proved losing, {len(rec['holding'])} hold"
                  + ("; dropped" if not rec["holding"] else ""), file=sys.stderr, flush=True)
            write_set(path, doc)
            done += 1


def played_moves(runs: list[Path], outcome: str = "hold") -> dict[str, set[tuple[int, int]]]:
    """Source -> the moves a brain played there with this outcome, in benchmarks/defence_set.py
    --json runs."""
    out: dict[str, set[tuple[int, int]]] = {}
    for path in runs:
        for r in json.loads(path.read_text()):
            if r["outcome"] == outcome:
                out.setdefault(r["source"], set()).add(tuple(r["played"]))
    return out


def judge_played(set_path: Path, runs: list[Path], out_path: Path, engine_spec: str, long: float,
                 oracle_seconds: float, max_oracle: int = 300, max_plies: int = 40, shard: tuple[int, int] = (0, 1)) -> None:
    """The moves a measured brain played and the set counts as lost (outcome `lose` in
    benchmarks/defence_set.py's --json files), each judged like step 7 judges a holding move: the
    engine screens, the whole-board check decides. One line per (position, move) appended to
    `out_path`; a stopped run starts again where it was. The set itself is not changed."""
    records = {r["source"]: r for r in json.loads(set_path.read_text())["positions"]}
    pairs: dict[tuple[str, tuple[int, int]], int] = {}
    for run in runs:
        for o in json.loads(run.read_text()):
            if o["outcome"] == "lose" and o["source"] in records and not proved_lost(records[o["source"]], tuple(o["played"])):
                key = (o["source"], tuple(o["played"]))
                pairs[key] = pairs.get(key, 0) + 1
    done = set()
    if out_path.exists():
        for line in out_path.read_text().splitlines():
            if line.strip():
                e = json.loads(line)
                done.add((e["source"], tuple(e["move"])))
    todo = [k for k in sorted(pairs, key=lambda k: -pairs[k])
            if k not in done and shard_of(f"{k[0]} {k[1]}", shard[1]) == shard[0]]
    print(f"{len(pairs)} lost (position, move) pairs in the runs, {len(todo)} to judge", file=sys.stderr)
    with WinProver(engine_spec, long, oracle_seconds, max_oracle=max_oracle, max_plies=max_plies) as prover, \
            out_path.open("a") as out:
        for n, (source, m) in enumerate(todo, 1):
            rec = records[source]
            d = rec["to_move"]
            after = [tuple(x) for x in rec["moves"]] + [(m[0], m[1], d)]
            t0 = time.monotonic()
            entry = {"source": source, "move": list(m), "times_played": pairs[(source, m)],
                     **prover.judge(rec["rule"], after, 3 - d)}
            if entry["claim"] is False:
                follow = _four_followed(prover, rec, m)
                if follow is not None:
                    entry["four"] = follow
            out.write(json.dumps(entry, separators=(",", ":")) + "\n")
            out.flush()
            print(f"[{n}/{len(todo)}] {source} {m}: claim {entry['claim']} {entry.get('status', '')} "
                  f"({time.monotonic() - t0:.0f} s)", file=sys.stderr, flush=True)


def proved_lost(rec: dict, m: tuple[int, int]) -> bool:
    """Is this move already proved to let the attacker's win in (the blunder, a refuted holding move,
    or a played move with a proof)? Then judging it again can only repeat the proof."""
    return (m == tuple(rec["blunder"]) or m in {tuple(x) for x in rec.get("refuted", [])}
            or any(tuple(p["move"]) == m and p.get("status") == T.WIN for p in rec.get("proved", [])))


def _four_followed(prover: "WinProver", rec: dict, m: tuple[int, int]) -> dict | None:
    """For a played move that is a four of the defender D: the attacker's block and the engine's
    reply for D after it (`long` seconds), which `admit` has the solver confirm; None for a quiet
    move (or an open four, which wins)."""
    rules = RULES[rec["rule"]]
    d = rec["to_move"]
    stones = [tuple(x) for x in rec["moves"]]
    b = T.ThreatBoard(SIZE, rules, stones)
    if b.five_points(3 - d):
        return None  # a block of the attacker's five first: no delay
    fives = b.makes_fives(m[1] * SIZE + m[0], d)
    if len(fives) != 1:
        return None
    block = b.xy(next(iter(fives)))
    after = stones + [(m[0], m[1], d), (block[0], block[1], 3 - d)]
    reply = prover._ask(rec["rule"], after, prover.long).move
    return {"block": list(block), "reply": list(reply) if reply is not None else None}


def _solver_check(rules: Rules, stones, d: int, length: int, move: tuple[int, int]) -> tuple[str, list[int], bool]:
    """The solver's confirmation of a holding move: the attacker has no VCT of ``length`` threat
    moves (RECHECK_NODES), or else of CHECK_DEPTH (CHECK_NODES) after it. (status, [depth, nodes],
    whether the move is a four, whose check says nothing of the four itself.)"""
    status, nodes, four = T.replies(SIZE, rules, stones, d, length, RECHECK_NODES, moves=[move])[move]
    proof = [length, nodes]
    if status != T.FAIL and not four:
        status, nodes, _ = T.replies(SIZE, rules, stones, d, CHECK_DEPTH, CHECK_NODES, moves=[move])[move]
        proof = [CHECK_DEPTH, nodes]
    return status, proof, four


def _confirm_four(rec: dict, m: tuple[int, int], follow: dict | None) -> tuple[str, list[int]]:
    """The solver on a four's follow-up: after the four, the block and D's reply (itself no four,
    else not followed further), as `_solver_check`. (status, [depth, nodes])."""
    if not follow or not follow.get("reply"):
        return T.UNKNOWN, [0, 0]
    d = rec["to_move"]
    stones = [tuple(x) for x in rec["moves"]] + [(m[0], m[1], d), (follow["block"][0], follow["block"][1], 3 - d)]
    status, proof, four = _solver_check(RULES[rec["rule"]], stones, d, rec["length"], tuple(follow["reply"]))
    return (T.UNKNOWN, [0, 0]) if four else (status, proof)


def admit(set_path: Path, judged_paths: list[Path]) -> None:
    """Apply `judge-played` files to a written set (a move is judged by all its entries: one
    proof proves it lost, one claim keeps it out of holding). A played move proved lost joins the position's
    `proved` entries (with its strategy, which the tests replay): the set's word `lost` is then a proof.
    A played move after which the engine claims no win meets the set's own definition of holding once
    the independent solver confirms it like the others (no VCT of the blunder's `length` threat moves
    within RECHECK_NODES nodes, else of CHECK_DEPTH within CHECK_NODES): it joins `holding` and is
    listed in `admitted`. A claim the check could not settle changes nothing."""
    doc = json.loads(set_path.read_text())
    records = {r["source"]: r for r in doc["positions"]}
    proved = admitted = 0
    judged: dict[tuple[str, tuple[int, int]], list[dict]] = {}
    for path in judged_paths:
        for line in path.read_text().splitlines():
            if line.strip():
                e = json.loads(line)
                judged.setdefault((e["source"], tuple(e["move"])), []).append(e)
    for (source, m), entries in judged.items():
        rec = records.get(source)
        if rec is None or m in {tuple(x) for x in rec["holding"] + rec["unconfirmed"] + rec.get("refuted", [])}:
            continue  # already holding, or proved lost (a proof outweighs any engine's silence)
        won = [e for e in entries if e.get("status") == T.WIN]
        if won:
            if all(tuple(p["move"]) != m for p in rec.get("proved", [])):
                entry = {k: v for k, v in won[0].items() if k not in ("source", "times_played")}
                rec.setdefault("proved", []).append({**entry, "played": True})
                proved += 1
            continue
        if any(e["claim"] for e in entries):
            continue
        e = entries[0]
        stones = [tuple(x) for x in rec["moves"]]
        status, proof, four = _solver_check(RULES[rec["rule"]], stones, rec["to_move"], rec["length"], m)
        follow = None
        if four:  # the attacker's block comes first: the solver's "no VCT" says nothing of the four itself
            follow = next((x["four"] for x in entries if x.get("four")), None)
            status, proof = _confirm_four(rec, m, follow)
            print(f"{e['source']} {m}: no claim, a four; after its block and the engine's reply "
                  f"{follow and follow.get('reply')} the solver says {status} at {proof[0]} threat moves "
                  f"({proof[1]} nodes)", file=sys.stderr, flush=True)
        else:
            print(f"{e['source']} {m}: no claim; the solver {status} at {proof[0]} threat moves ({proof[1]} nodes)",
                  file=sys.stderr, flush=True)
        if status == T.FAIL:
            rec["holding"].append(list(m))
            rec["winrate"].append(None)
            rec["proofs"].append(proof)
            rec.setdefault("admitted", []).append(list(m))
            if follow:
                rec.setdefault("four_replies", []).append({"move": list(m), **follow, "proof": proof})
            admitted += 1
    if ADMIT_ABOUT not in doc["about"]:
        doc["about"] += " " + ADMIT_ABOUT
    if any(r.get("four_replies") for r in doc["positions"]) and FOUR_ABOUT not in doc["about"]:
        doc["about"] += " " + FOUR_ABOUT
    print(f"{proved} played moves proved lost, {admitted} admitted as holding", file=sys.stderr)
    write_set(set_path, doc)


def join(base_path: Path, new_paths: list[Path], out_path: Path) -> None:
    """A written set with the positions of other written sets (each made by steps 1-7 itself) added
    after its own, repeats left out; the dropped positions of all are kept."""
    doc = json.loads(base_path.read_text())
    seen = {key_of(r["rule"], r["moves"]) for r in doc["positions"] + doc.get("dropped", [])}
    doc.setdefault("dropped", [])
    for path in new_paths:
        new = json.loads(path.read_text())
        for group in ("positions", "dropped"):
            for r in new.get(group, []):
                k = key_of(r["rule"], r["moves"])
                if k not in seen:
                    seen.add(k)
                    doc[group].append(r)
    write_set(out_path, doc)


def merge(paths: list[Path], out_path: Path) -> None:
    """The shards of a `prove` run, or copies that `prove --only` ran on (copies of one set), as one
    set: each position as the copy that proved it furthest left it (the most `proved` entries;
    kept or dropped), in the set's order."""
    docs = [json.loads(p.read_text()) for p in paths]
    order = [key_of(r["rule"], r["moves"]) for r in docs[0]["positions"] + docs[0].get("dropped", [])]
    kept: dict[str, dict] = {}
    dropped: dict[str, dict] = {}
    for doc in docs:
        for r in doc["positions"]:
            k = key_of(r["rule"], r["moves"])
            if k not in kept or len(r.get("proved", [])) > len(kept[k].get("proved", [])):
                kept[k] = r
        for r in doc.get("dropped", []):
            dropped[key_of(r["rule"], r["moves"])] = r
    out = dict(docs[0])
    if PROVE_ABOUT not in out["about"]:
        out["about"] += " " + PROVE_ABOUT
    out["positions"] = [kept[k] for k in order if k in kept and k not in dropped]
    out["dropped"] = [dropped[k] for k in order if k in dropped]
    write_set(out_path, out)


def drop_refuted(rec: dict, refuted: list[tuple[int, int]]) -> None:
    """Move the proven-losing moves out of a record's holding (with their winrates and proofs) and
    unconfirmed lists into `refuted`."""
    if not refuted:
        return
    keep = [i for i, m in enumerate(rec["holding"]) if tuple(m) not in refuted]
    rec["holding"] = [rec["holding"][i] for i in keep]
    rec["winrate"] = [rec["winrate"][i] for i in keep]
    rec["proofs"] = [rec["proofs"][i] for i in keep]
    rec["unconfirmed"] = [m for m in rec["unconfirmed"] if tuple(m) not in refuted]
    rec.setdefault("refuted", [])
    rec["refuted"] += [list(m) for m in refuted]


def write_set(path: Path, doc: dict) -> None:
    text = json.dumps(doc, separators=(",", ":")).replace('{"rule"', '\n{"rule"')
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text + "\n")
    tmp.replace(path)  # a run stopped while writing leaves the last whole set
    by: dict[tuple[str, str], int] = {}
    for r in doc["positions"]:
        k = (r["rule"], "black" if r["to_move"] == 1 else "white")
        by[k] = by.get(k, 0) + 1
    print(f"{len(doc['positions'])} positions: " + ", ".join(f"{r} {c} {n}" for (r, c), n in sorted(by.items())),
          file=sys.stderr)


def _check_limits(parser: argparse.ArgumentParser) -> None:
    """The whole-board check's limits, for the commands that run it."""
    parser.add_argument("--max-oracle", type=int, default=300,
                        help="the whole-board check gives up (unknown) after this many attacker moves asked (default 300)")
    parser.add_argument("--max-plies", type=int, default=40,
                        help="... or past this many plies from the position (default 40)")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("verify", help="check every blunder of analysis files")
    v.add_argument("runs", nargs="+", type=Path)
    v.add_argument("--out", type=Path, required=True)
    v.add_argument("--engine", default="builtin:gomocup-bot", help="the analysing engine (default builtin:gomocup-bot)")
    v.add_argument("--quick", type=float, default=QUICK)
    v.add_argument("--long", type=float, default=LONG)
    v.add_argument("--rules", default="freestyle,standard,renju")
    v.add_argument("--limit", type=int, default=0, help="stop after this many positions")
    v.add_argument("--blunder-nodes", type=int, default=BLUNDER_NODES,
                   help=f"the solver's nodes proving the blunder's VCT (default {BLUNDER_NODES})")
    v.add_argument("--shard", default="0/1", help="I/N: only the positions whose key hashes to I modulo N (parallel runs)")
    s = sub.add_parser("select", help="write the set from candidate files")
    s.add_argument("candidates", nargs="+", type=Path)
    s.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("recheck", help="the solver again on a written set's holding moves, as deep as each blunder's VCT")
    r.add_argument("set", type=Path)
    dp = sub.add_parser("deepen", help="screen each holding move for deeper VCTs; the independent solver decides")
    dp.add_argument("set", type=Path)
    dp.add_argument("--floor", type=int, default=0, help="the independent solver's least depth in threat moves")
    dp.add_argument("--nodes", type=int, default=CONFIRM_NODES, help="the independent solver's node budget a move")
    pr = sub.add_parser("prove", help="screen each holding move for any forced win; a whole-board check decides")
    pr.add_argument("set", type=Path)
    pr.add_argument("--engine", default=PROVE_ENGINE, help=f"the screening engine and oracle (default {PROVE_ENGINE!r})")
    pr.add_argument("--long", type=float, default=PROVE_LONG, help="the engine's seconds screening a move")
    pr.add_argument("--oracle", type=float, default=PROVE_ORACLE, help="the engine's seconds for each move it proposes")
    pr.add_argument("--limit", type=int, default=0, help="stop after this many positions")
    pr.add_argument("--shard", default="0/1", help="I/N: only the positions whose key hashes to I modulo N (parallel runs on copies)")
    pr.add_argument("--only", action="append", default=[], metavar="SOURCE",
                    help="just this position (its `source`, repeatable), even if proved before")
    pr.add_argument("--no-screen", action="store_true",
                    help="the whole-board check for every move, whatever the engine claims (with --only)")
    pr.add_argument("--solver-nodes", type=int, default=0,
                    help="the attacker's moves from the brain's threat solver (this many nodes, up to "
                         "VCT_DEPTH + 3 threes) where it finds a VCT, else from the engine")
    pr.add_argument("--move", action="append", default=[], metavar="X,Y",
                    help="only this holding move of the position (repeatable; with --only)")
    pr.add_argument("--played", action="append", default=[], type=Path, metavar="RUN.json",
                    help="only the holding moves a brain played in this benchmarks/defence_set.py --json run "
                         "(repeatable): the moves its score counted as held")
    _check_limits(pr)
    ad = sub.add_parser("admit", help="apply a judge-played file to a written set")
    ad.add_argument("set", type=Path)
    ad.add_argument("judged", nargs="+", type=Path, help="judge-played files")
    jp = sub.add_parser("judge-played", help="judge the moves a measured brain played that the set counts as lost")
    jp.add_argument("set", type=Path)
    jp.add_argument("runs", nargs="+", type=Path, help="benchmarks/defence_set.py --json files")
    jp.add_argument("--out", type=Path, required=True, help="JSON lines, appended (resumable)")
    jp.add_argument("--engine", default=PROVE_ENGINE, help=f"the screening engine and oracle (default {PROVE_ENGINE!r})")
    jp.add_argument("--long", type=float, default=PROVE_LONG, help="the engine's seconds screening a move")
    jp.add_argument("--oracle", type=float, default=PROVE_ORACLE, help="the engine's seconds for each move it proposes")
    _check_limits(jp)
    jp.add_argument("--shard", default="0/1", help="I/N: only the pairs whose key hashes to I modulo N (parallel runs, separate --out files)")
    jn = sub.add_parser("join", help="add the positions of other written sets to a written set")
    jn.add_argument("base", type=Path)
    jn.add_argument("new", nargs="+", type=Path)
    jn.add_argument("--out", type=Path, required=True)
    mg = sub.add_parser("merge", help="join the copies that `prove --shard` runs wrote")
    mg.add_argument("shards", nargs="+", type=Path)
    mg.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "verify":
        i, n = (int(v) for v in args.shard.split("/"))
        trio.run(verify, args.runs, args.out, args.engine, args.quick, args.long, set(args.rules.split(",")),
                 args.limit, (i, n), args.blunder_nodes)
    elif args.cmd == "select":
        select(args.candidates, args.out)
    elif args.cmd == "recheck":
        recheck(args.set)
    elif args.cmd == "prove":
        i, n = (int(v) for v in args.shard.split("/"))
        prove(args.set, args.engine, args.long, args.oracle, args.limit, (i, n), frozenset(args.only),
              not args.no_screen, args.solver_nodes,
              frozenset(tuple(int(v) for v in m.split(",")) for m in args.move), args.max_oracle, args.max_plies,
              played_moves(args.played) if args.played else None)
    elif args.cmd == "admit":
        admit(args.set, args.judged)
    elif args.cmd == "judge-played":
        i, n = (int(v) for v in args.shard.split("/"))
        judge_played(args.set, args.runs, args.out, args.engine, args.long, args.oracle, args.max_oracle,
                     args.max_plies, (i, n))
    elif args.cmd == "join":
        join(args.base, args.new, args.out)
    elif args.cmd == "merge":
        merge(args.shards, args.out)
    else:
        deepen(args.set, args.floor, args.nodes)


if __name__ == "__main__":
    main()
