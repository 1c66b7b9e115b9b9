"""The defence test set (tests/search/data/defence_positions.json) checks itself with the independent
threat solver (tests/search/threat_solver.py, no brain code):

- every position is legal, its blunder is not among its holding moves, and the set covers the issue
  (100 positions or more, both colours, freestyle, standard and renju);
- every blunder really loses: the solver finds the attacker's VCT after it, exactly as short as
  recorded (`length` threat moves);
- every move the set's `prove` step removed really loses: its recorded strategy, replayed as the
  attacker's moves by the whole-board check (tests/search/proof_check.py), meets every legal reply
  of the defender (cheap proofs always, the rest in the full run); a dropped position (no holding
  move left) has such a proof for each of its former holding moves;
- every holding move really holds at its recorded proof: after it the attacker has no VCT of at
  most `proofs[i][0]` threat moves (the blunder's own length for most, see the data's README),
  a complete search within the recorded nodes.

Searches that took the solver more than CHEAP nodes when the set was made, and a position's
holding moves past HOLD_SHARE nodes in all, run only with GOMOKU_DEFENCE_FULL=1 (the full check
takes minutes: tests/search/data/README.md); the rest always run. `benchmarks/defence_set.py` measures a brain on the set.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from protocol.rules import Rules
from tests.search import threat_solver as T

DATA = Path(__file__).parent / "data" / "defence_positions.json"
DOC = json.loads(DATA.read_text())
POSITIONS = DOC["positions"]
# every move the `prove` step found losing, with the strategy that proves it: (record, entry)
REFUTED = [(rec, e) for rec in POSITIONS + DOC.get("dropped", []) for e in rec.get("proved", []) if "strategy" in e]
CHEAP_PROOF = 8  # defender positions: larger recorded proofs are replayed only in the full run
RULES = {"freestyle": Rules(), "standard": Rules(exact_five=True), "renju": Rules(renju=True)}
CHEAP = 10_000  # solver nodes: searches above this are left to the full run
HOLD_SHARE = 6_000  # solver nodes per position for its holding moves, outside the full run
FULL = os.environ.get("GOMOKU_DEFENCE_FULL") == "1"


def _id(rec: dict) -> str:
    colour = "black" if rec["to_move"] == T.BLACK else "white"
    return f"{rec['rule']}-{colour}-{rec['source'].replace(' ', '_')}"


def _stones(rec: dict) -> list[tuple[int, int, int]]:
    return [tuple(m) for m in rec["moves"]]


def test_the_set_covers_the_issue() -> None:
    assert len(POSITIONS) >= 100
    kinds = {(r["rule"], r["to_move"]) for r in POSITIONS}
    assert {(rule, colour) for rule in RULES for colour in (T.BLACK, T.WHITE)} <= kinds
    assert len({(r["rule"], tuple(map(tuple, r["moves"]))) for r in POSITIONS}) == len(POSITIONS)  # no repeats


@pytest.mark.parametrize("rec", POSITIONS, ids=_id)
def test_position_is_a_legal_defence(rec: dict) -> None:
    stones = _stones(rec)
    assert T.is_legal_position(rec["size"], RULES[rec["rule"]], stones) is None
    assert rec["to_move"] == (T.BLACK if len(stones) % 2 == 0 else T.WHITE)
    taken = {(x, y) for x, y, _ in stones}
    holding = {tuple(m) for m in rec["holding"]}
    assert holding and tuple(rec["blunder"]) not in holding | {tuple(m) for m in rec["unconfirmed"]}
    assert not holding & {tuple(m) for m in rec.get("refuted", [])}  # a move proved lost never holds
    assert not (holding | {tuple(rec["blunder"])}) & taken
    assert len(rec["winrate"]) == len(rec["proofs"]) == len(rec["holding"]) and rec["legal"] > len(holding)
    assert all(depth >= min(rec["length"], rec["check"]["depth"]) for depth, _ in rec["proofs"])


@pytest.mark.parametrize("rec", POSITIONS, ids=_id)
def test_blunder_really_loses(rec: dict) -> None:
    if rec["blunder_nodes"] > CHEAP and not FULL:
        pytest.skip(f"a long proof ({rec['blunder_nodes']} nodes): GOMOKU_DEFENCE_FULL=1 checks it")
    d = rec["to_move"]
    after = _stones(rec) + [(*rec["blunder"], d)]
    result = T.solve(rec["size"], RULES[rec["rule"]], after, 3 - d, rec["length"], True, rec["blunder_nodes"] + 1000)
    assert result.status == T.WIN and result.length == rec["length"], result


@pytest.mark.parametrize("rec", POSITIONS, ids=_id)
def test_holding_moves_really_hold(rec: dict) -> None:
    checked, spent = 0, 0
    for move, (depth, nodes) in zip(rec["holding"], rec["proofs"]):
        if not FULL and (nodes > CHEAP or spent + nodes > HOLD_SHARE):
            continue
        spent += nodes
        answer = T.replies(rec["size"], RULES[rec["rule"]], _stones(rec), rec["to_move"], depth, 2 * nodes + 1000,
                           moves=[tuple(move)])
        assert answer[tuple(move)][0] == T.FAIL, (move, depth, answer)
        checked += 1
    if not checked:
        pytest.skip("long proofs only: GOMOKU_DEFENCE_FULL=1 checks them")


FOUR_REPLIES = [(rec, f) for rec in POSITIONS for f in rec.get("four_replies", [])]


@pytest.mark.parametrize("item", FOUR_REPLIES, ids=lambda it: f"{_id(it[0])}-{it[1]['move'][0]},{it[1]['move'][1]}")
def test_an_admitted_four_holds_after_its_block_and_reply(item) -> None:
    # the solver's check of a four itself says nothing (the block comes first): the position after
    # the block and the recorded reply (no four) must leave the attacker no VCT at the recorded depth
    rec, f = item
    d = rec["to_move"]
    x, y = f["move"]
    assert [x, y] in rec["holding"]
    board = T.ThreatBoard(rec["size"], RULES[rec["rule"]], _stones(rec))
    bx, by = f["block"]
    assert board.makes_fives(y * rec["size"] + x, d) == {by * rec["size"] + bx}
    depth, nodes = f["proof"]
    if nodes > CHEAP and not FULL:
        pytest.skip(f"a long proof ({nodes} nodes): GOMOKU_DEFENCE_FULL=1 checks it")
    stones = _stones(rec) + [(x, y, d), (bx, by, 3 - d)]
    reply = tuple(f["reply"])
    status, _, four = T.replies(rec["size"], RULES[rec["rule"]], stones, d, depth, 2 * nodes + 1000, moves=[reply])[reply]
    assert status == T.FAIL and not four, (reply, status)


@pytest.mark.parametrize("item", REFUTED, ids=lambda it: f"{_id(it[0])}-{it[1]['move'][0]},{it[1]['move'][1]}")
def test_a_proved_refutation_replays(item) -> None:
    from tests.search.proof_check import ProofChecker, strategy_oracle

    rec, entry = item
    if entry["defender_nodes"] > CHEAP_PROOF and not FULL:
        pytest.skip(f"a large proof ({entry['defender_nodes']} defender positions): GOMOKU_DEFENCE_FULL=1 replays it")
    d = rec["to_move"]
    after = _stones(rec) + [(*entry["move"], d)]
    # the limits the proof was found under at most (step 11 raised them past the checker's defaults)
    checker = ProofChecker(rec["size"], RULES[rec["rule"]], strategy_oracle(entry["strategy"], len(after)),
                           max_oracle=max(300, entry["oracle_calls"]), max_plies=60)
    assert checker.attacker_wins(after, 3 - d).status == T.WIN
    assert entry["move"] not in rec["holding"] + rec["unconfirmed"]


def test_dropped_positions_lost_every_holding_move_to_a_proof() -> None:
    for rec in DOC.get("dropped", []):
        proved = {tuple(e["move"]) for e in rec["proved"]
                  if e.get("status") == T.WIN and "strategy" in e and not e.get("played")}  # (a played move never held)
        assert not rec["holding"] and set(map(tuple, rec["refuted"])) >= proved and proved


def test_judging_played_moves_skips_only_the_ones_already_proved() -> None:
    """`judge-played` spends a 10 s screen and a whole-board check per played move: it skips the
    blunder and the moves with a proof, and never a move the set counts as holding."""
    from tools.make_defence_set import proved_lost

    for rec in POSITIONS:
        assert proved_lost(rec, tuple(rec["blunder"]))
        for m in rec.get("refuted", []):
            assert proved_lost(rec, tuple(m))
        for m in rec["holding"] + rec["unconfirmed"]:
            assert not proved_lost(rec, tuple(m))
