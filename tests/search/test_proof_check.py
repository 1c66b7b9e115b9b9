"""The whole-board proof check (tests/search/proof_check.py) that decides the defence set's `prove`
step: it must confirm real forced wins whatever the oracle's quality allows, and never confirm one
where the defender has a defence, however bad or good the oracle's moves are."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from protocol.rules import Rules
from tests.search import threat_solver as T
from tests.search.proof_check import FAIL, UNKNOWN, WIN, ProofChecker, strategy_oracle

DATA = Path(__file__).parent / "data"
RULES = {"freestyle": Rules(), "standard": Rules(exact_five=True), "renju": Rules(renju=True)}


def records(kind: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / f"{kind}.jsonl").read_text().splitlines() if line.strip()]


def solver_oracle(rule: str):
    """The independent solver's first move of a shortest VCT; else the block of a five point; else
    any empty square (the checker must not be fooled by such a move)."""
    rules = RULES[rule]

    def oracle(moves, colour: int) -> tuple[int, int]:
        result = T.solve(15, rules, moves, colour, 6, True, 20_000)
        if result.status == WIN and result.line:
            return result.line[0]
        board = T.board_of(15, rules, moves)
        theirs = board.five_points(3 - colour)
        if theirs:
            return board.xy(min(theirs))
        return next(board.xy(c) for c in range(225) if board.cells[c] == T.EMPTY)
    return oracle


def random_oracle(seed: int):
    rng = random.Random(seed)

    def oracle(moves, colour: int) -> tuple[int, int]:
        taken = {(x, y) for x, y, _ in moves}
        return rng.choice([(x, y) for x in range(15) for y in range(15) if (x, y) not in taken])
    return oracle


def pick(kind: str, lengths: range) -> list[dict]:
    """One position per rule with a VCT length in `lengths` (the cheapest first)."""
    chosen: dict[str, dict] = {}
    for rec in sorted(records(kind), key=lambda r: r["nodes"]):
        if rec["length"] in lengths and rec["rule"] not in chosen:
            chosen[rec["rule"]] = rec
    return list(chosen.values())


@pytest.mark.parametrize("rec", pick("vct", range(3, 6)), ids=lambda r: f"{r['rule']}-len{r['length']}")
def test_a_real_vct_is_confirmed_move_by_move(rec):
    stones = [tuple(m) for m in rec["moves"]]
    checker = ProofChecker(15, RULES[rec["rule"]], solver_oracle(rec["rule"]), quick_depth=1, quick_nodes=5_000)
    proof = checker.attacker_wins(stones, rec["to_move"])
    assert proof.status == WIN
    assert proof.oracle_calls >= 1 and proof.defender_nodes >= 1  # the oracle's line, every reply tried
    # the recorded strategy proves it again with no solver oracle; without its first move it cannot
    rules = RULES[rec["rule"]]
    replay = ProofChecker(15, rules, strategy_oracle(proof.strategy, len(stones)), quick_depth=1, quick_nodes=5_000)
    assert replay.attacker_wins(stones, rec["to_move"]).status == WIN
    cut = {k: v for k, v in proof.strategy.items() if k}
    replay = ProofChecker(15, rules, strategy_oracle(cut, len(stones)), quick_depth=1, quick_nodes=5_000)
    assert replay.attacker_wins(stones, rec["to_move"]).status == UNKNOWN


@pytest.mark.parametrize("rec", sorted(records("defence"), key=lambda r: r["nodes"])[:2],
                         ids=lambda r: r["source"].replace(" ", "_"))
def test_no_oracle_makes_a_held_position_a_win(rec):
    """After a move the independent solver proved holding (no VCT up to 6 threat moves) the check
    confirms no win, with the solver's moves or random ones; after a move that lets the VCT in, it
    confirms the win."""
    stones = [tuple(m) for m in rec["moves"]]
    d = rec["to_move"]
    held = stones + [(*rec["answers"][0], d)]
    for oracle in (solver_oracle(rec["rule"]), random_oracle(1)):
        checker = ProofChecker(15, RULES[rec["rule"]], oracle, quick_depth=2, quick_nodes=2_000, max_oracle=4)
        assert checker.attacker_wins(held, 3 - d).status in (FAIL, UNKNOWN)
    taken = {(x, y) for x, y, _ in stones}
    answers = {tuple(a) for a in rec["answers"]}
    rules = RULES[rec["rule"]]
    board = T.board_of(15, rules, stones)
    # a move far from everything, which is no answer and no four: the attacker's VCT stands
    far = next((x, y) for x, y in ((0, 0), (14, 0), (0, 14), (14, 14))
               if (x, y) not in taken and (x, y) not in answers and not board.foul(y * 15 + x, d))
    checker = ProofChecker(15, rules, solver_oracle(rec["rule"]), quick_depth=1, quick_nodes=5_000)
    assert checker.attacker_wins(stones + [(*far, d)], 3 - d).status == WIN
