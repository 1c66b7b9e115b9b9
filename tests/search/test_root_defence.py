"""The root's defence against the opponent's VCT (search/rootcheck.py), on real positions of the
defence set (tests/search/data/defence_positions.json: the position before a real blunder, each
holding move confirmed by the independent solver): the rounds of deeper checks keep only moves
that hold and never the blunder, on one thread or two."""
from __future__ import annotations

import json
import time

import numpy as np
import pytest

from gomocup_bot.core.board import board_from_stones, pos_x, pos_y, to_pos
from gomocup_bot.core.constants import RULE_EXACT, RULE_FREESTYLE, RULE_RENJU
from gomocup_bot.search import rootcheck
from gomocup_bot.search.vct import FAIL, WIN, ThreatSolver
from tests.search.defence_data import DATA, record as _record

RULES = {"freestyle": RULE_FREESTYLE, "standard": RULE_EXACT, "renju": RULE_RENJU}
# two positions the untimed rounds settle in well under a second, each a blunder our brain played
# at 1 s before the rounds (a lone losing "defence" or the search's own choice)
CASES = ["fast15_freestyle.sqlite game 18 move 14", "fast_free.sqlite game 18 move 20"]
# renju: a blunder the cheapest rung refutes and a holding move whose deepest rung is long
LADDER = "renju_self.sqlite game 9 move 30"


def _board(rec: dict):
    return board_from_stones(15, 15, [tuple(m) for m in rec["moves"]], 5, RULES[rec["rule"]])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("source", CASES)
def test_the_rounds_keep_only_holding_moves(source: str, threads: int) -> None:
    rec = _record(source)
    board = _board(rec)
    plan = rootcheck.analyse(board, rec["to_move"], np.zeros(1, dtype=np.int32), None, rounds=True, threads=threads)
    assert plan.threat, "the opponent's VCT (were it to move) is found"
    assert plan.allowed, plan
    allowed = {(int(pos_x(board, q)), int(pos_y(board, q))) for q in plan.allowed}
    assert allowed <= {tuple(m) for m in rec["holding"]}, (allowed, rec["holding"])
    assert tuple(rec["blunder"]) not in allowed
    assert plan.rounds >= 2  # the first, cheap round alone did not settle it
    assert board.hash[0] == _board(rec).hash[0]  # the board is given back as it came


def test_a_four_is_followed_by_its_block() -> None:
    """Our four forces the block, then it is our move again: a four that leaves the opponent's
    threat standing reads as refuted (a delay), not as a defence the solver cannot see past."""
    # (a position the set dropped on 2026-11-28 in a9b98e5, tests/search/data/README.md step 9: its
    # two holding moves, fours, were proved lost by the whole-board check, by wins deeper than this
    # test's VCT)
    doc = json.loads(DATA.read_text())
    rec = next(r for r in doc["dropped"] if r["source"] == "fast_free.sqlite game 60 move 30")
    board = _board(rec)
    side = rec["to_move"]
    solver = ThreatSolver(board)
    fours = [q for q in range(board.cells.shape[0]) if board.cells[q] == 0 and board.nbr[q] > 0
             and board.cls[side - 1, q] in rootcheck.FOURS]
    assert fours
    before = board.hash[0]
    results = {q: rootcheck._test(board, solver, q, side, rootcheck.VCT_DEPTH, 50_000)[0] for q in fours}
    assert board.hash[0] == before
    holding = {to_pos(board, *m) for m in rec["refuted"]}  # the moves the set counted holding until then
    # every other four leaves the opponent its VCT after the block
    assert all(results[q] == WIN for q in fours if q not in holding), results


def test_a_four_followed_by_the_real_defence_holds_and_one_without_is_a_delay() -> None:
    """After our four and its block it is our move again: a four whose stone breaks a line of the
    threat, followed by the reply that stops the rest, is a defence (it was read as a mere delay);
    a four after which every reply that could matter is refuted stays a delay."""
    held = _record("m-t1.sqlite game 70 move 20")
    board = _board(held)
    solver = ThreatSolver(board)
    four = to_pos(board, 3, 9)
    assert [3, 9] in held["holding"] and board.cls[held["to_move"] - 1, four] in rootcheck.FOURS
    assert rootcheck._test(board, solver, four, held["to_move"], rootcheck.VCT_DEPTH + 3, 400_000)[0] == FAIL
    # without the follow-up the same four reads as refuted
    assert rootcheck._test(board, solver, four, held["to_move"], rootcheck.VCT_DEPTH + 3, 400_000, 0)[0] == WIN

    lost = _record("free_aiwine.sqlite game 22 move 22")
    board = _board(lost)
    solver = ThreatSolver(board)
    four = to_pos(board, 4, 3)
    assert [4, 3] not in lost["holding"] + lost["unconfirmed"]
    assert board.cls[lost["to_move"] - 1, four] in rootcheck.FOURS
    assert rootcheck._test(board, solver, four, lost["to_move"], rootcheck.VCT_DEPTH + 3, 400_000)[0] == WIN


@pytest.mark.parametrize("threads", [1, 2])
def test_the_ladder_check_never_keeps_a_refuted_choice_when_its_time_runs_out(threads: int) -> None:
    # renju, white to move: (3, 9) is the blunder white played (proved lost), (8, 5) a holding move
    # whose deep test (7 threes, 400k nodes) takes about 200k solver nodes, well over 0.15 s here.
    # With 0.15 s for the check, the deep test alone refutes the choice, runs out of time on the
    # runner-up and lets the refuted choice stand (the default before 2026-11-28); the ladder plays
    # the runner-up, whatever rung the clock stops it on. (Until 2026-11-29 this was fast15_renju
    # 16/10's (8, 7), which a 7-three VCT turned out to refute: that position left the set.)
    rec = _record(LADDER)
    assert [8, 5] in rec["holding"] and rec["blunder"] == [3, 9]
    board = _board(rec)
    side = rec["to_move"]
    ranked = [int(to_pos(board, 3, 9)), int(to_pos(board, 8, 5))]
    result, _ = rootcheck._test(board, ThreatSolver(board), ranked[0], side, rootcheck.VCT_DEPTH + 1, 20_000)
    assert result == WIN  # the cheap rung refutes the choice
    stop = np.zeros(1, dtype=np.int32)
    deadline = time.monotonic() + 0.15
    assert rootcheck.verify(board, side, ranked, stop, deadline, ladder=True, threads=threads) == ranked[1]
    assert rootcheck.verify(board, side, ranked, stop, None, ladder=True, threads=threads) == ranked[1]  # untimed
    assert board.hash[0] == _board(rec).hash[0]


def test_the_ladder_tries_lower_ranked_moves_when_it_refutes_every_one_it_tried() -> None:
    # the same renju position: the opponent has a VCT were it to move, so a move in a far corner
    # lets it in; with four such moves ranked first, the check once played the first of them
    # (all VERIFY_WIDTH refuted: "the choice stands"); now the next moves of the ranking go up the
    # ladder and the holding move (8, 5), ranked fifth, is played
    rec = _record(LADDER)
    board = _board(rec)
    side = rec["to_move"]
    corners = [(0, 0), (14, 0), (0, 14), (14, 14)]
    assert not {tuple(m[:2]) for m in rec["moves"]} & set(corners)
    ranked = [int(to_pos(board, x, y)) for x, y in corners] + [int(to_pos(board, 8, 5))]
    assert len(ranked) > rootcheck.VERIFY_WIDTH and rootcheck.VERIFY_MAX >= len(ranked)
    solver = ThreatSolver(board)
    for q in ranked[:4]:
        assert rootcheck._test(board, solver, q, side, rootcheck.VCT_DEPTH + 1, 20_000)[0] == WIN
    stop = np.zeros(1, dtype=np.int32)
    assert rootcheck.verify(board, side, ranked, stop, None, ladder=True) == ranked[4]
    assert rootcheck.verify(board, side, ranked, stop, time.monotonic() + 2.0, ladder=True, threads=2) == ranked[4]
    assert board.hash[0] == _board(rec).hash[0]


def test_a_node_bounded_defence_stops_at_its_nodes_and_repeats_itself() -> None:
    # self-play's checks (engine option check_nodes): the rounds and the check of the choice stop
    # at a node budget instead of the clock, so the same position gives the same answer, cheaply
    doc = json.loads(DATA.read_text())
    rec = next(r for r in doc["positions"] + doc["dropped"] if r["source"] == "fast_free.sqlite game 18 move 20")
    board = _board(rec)
    side = rec["to_move"]
    stop = np.zeros(1, dtype=np.int32)
    vct, cap = 40_000, 30_000
    plans = [rootcheck.analyse(board, side, stop, None, rounds=True, vct_nodes=vct, defence_nodes=cap) for _ in range(2)]
    assert plans[0].threat and plans[0].allowed
    assert (plans[0].nodes, plans[0].allowed) == (plans[1].nodes, plans[1].allowed)
    untimed = rootcheck.analyse(board, side, stop, None, rounds=True, vct_nodes=vct)
    assert plans[0].nodes < untimed.nodes
    # each test is cut to what the budget leaves; only a four's follow-up (16 replies at a quarter
    # of the test's nodes, at least 1,000 each) may run past it
    follow = rootcheck.FOLLOW_WIDTH * rootcheck.FOLLOW_MIN_NODES + 4 * cap
    assert plans[0].nodes <= vct + vct // 2 + cap + follow
    ranked = list(plans[0].allowed) + [q for q in untimed.allowed or [] if q not in plans[0].allowed]
    picks = {rootcheck.verify(board, side, ranked, stop, None, ladder=True, max_nodes=cap) for _ in range(2)}
    assert len(picks) == 1 and picks <= set(ranked)
    assert board.hash[0] == _board(rec).hash[0]
