"""The core VCT's ply limits (`search.vct.PLY_STEPS`): short lines are found before the tree of long
four sequences, and the deepening never changes what the search proves."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from hypothesis import example, given, settings, strategies as st

from gomocup_bot.core.board import board_from_stones
from gomocup_bot.core.constants import BLACK, RULE_EXACT, RULE_FREESTYLE, RULE_RENJU, WHITE
from gomocup_bot.search import vct as V
from tests.search.positions import alternating_stones

DATA = Path(__file__).parent / "data" / "vct.jsonl"
RULES = {"freestyle": RULE_FREESTYLE, "standard": RULE_EXACT, "renju": RULE_RENJU}
THREES = 4  # the root's own VCT (search.rootcheck.VCT_DEPTH)
# Every VCT of the tactics set (each proved by the plain-Python solver of tests/search/threat_solver.py)
# within this many nodes. With the threes bounded alone the worst took 921k nodes (a 15-ply renju
# VCT; four more took 134k-383k), more than the root's 300k-node check reaches in its time.
MAX_NODES = 60_000


def _records() -> list[dict]:
    return [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]


def test_every_vct_of_the_tactics_set_is_found_within_a_small_budget():
    slow = []
    for i, rec in enumerate(_records()):
        board = board_from_stones(rec["size"], rec["size"], [tuple(m) for m in rec["moves"]], 5, RULES[rec["rule"]])
        status, line, nodes = V.ThreatSolver(board).run(board, rec["to_move"], vct=True, max_depth=THREES,
                                                        max_nodes=MAX_NODES)
        if status != V.WIN:
            slow.append((i, rec["rule"], rec["length"], status, nodes))
    assert not slow, slow


def _one_pass(board, attacker: int, max_depth: int, nodes: int) -> int:
    """The VCT as it was before the ply limits: threes 0..max_depth, each one full pass."""
    w = V.new_work(board, np.zeros(1, dtype=np.int32))
    w.limits[0], w.limits[1], w.limits[3] = nodes, 1, V.MAX_PLY - 4
    for depth in range(max_depth + 1):
        r = V.node(board, attacker, np.int64(1), np.int64(depth), np.int64(0), np.int64(-1), w)
        if r != V.FAIL:
            return int(r)
    return V.FAIL


@st.composite
def positions(draw):
    rule = draw(st.sampled_from(sorted(RULES.values())))
    n = draw(st.integers(9, 12))
    count = draw(st.integers(8, 26))
    raw = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=count, max_size=count))
    stones = alternating_stones(raw)
    return rule, n, stones, draw(st.sampled_from([BLACK, WHITE]))


@settings(max_examples=80, deadline=None)
@given(positions())
# found on CI: a failure-table hit proven under a ply limit ended the deepening at 10 plies (a
# 13-ply win of two threes was missed)
@example(case=(RULE_FREESTYLE, 9, [(1, 2, BLACK), (0, 0, WHITE), (2, 2, BLACK), (0, 2, BLACK), (2, 1, BLACK), (1, 6, BLACK)],
               BLACK))
def test_the_ply_limits_prove_what_one_full_pass_proves(case):
    # and a solver kept across calls (its failure table holds entries proven under a ply limit)
    # answers both sides as a fresh one does
    rule, n, stones, attacker = case
    board = board_from_stones(n, n, stones, 5, rule)
    kept = V.ThreatSolver(board)
    for side in (attacker, 3 - attacker, attacker):
        want = _one_pass(board, side, 2, 2_000_000)
        fresh, _, _ = V.ThreatSolver(board).run(board, side, vct=True, max_depth=2, max_nodes=2_000_000)
        again, _, _ = kept.run(board, side, vct=True, max_depth=2, max_nodes=2_000_000)
        if want != V.UNKNOWN:
            assert fresh == want and again == want, (rule, n, stones, side)


def test_every_winning_line_replays_to_the_win_it_claims():
    """A proof's line is one branch of it: the attacker's threat, the defender's first (most
    natural) reply, and that reply's own continuation, down to a five or an unstoppable four.
    The later replies' searches overwrite the deeper plies; the first reply's line is kept while
    they run (`ThreatWork.kept`), and this replays it."""
    from gomocup_bot.core.board import play
    from gomocup_bot.core.classes import C_FIVE, C_FLEX4, C_FOUR3
    from gomocup_bot.core.constants import EMPTY

    broken = []
    for i, rec in enumerate(_records()):
        board = board_from_stones(rec["size"], rec["size"], [tuple(m) for m in rec["moves"]], 5, RULES[rec["rule"]])
        attacker = rec["to_move"]
        status, line, _ = V.ThreatSolver(board).run(board, attacker, vct=True, max_depth=THREES, max_nodes=MAX_NODES)
        assert status == V.WIN and line, (i, status)
        for j, q in enumerate(line):
            mover = attacker if j % 2 == 0 else 3 - attacker
            if board.cells[q] != EMPTY:
                broken.append((i, j, "occupied"))
                break
            if j == len(line) - 1:  # the attacker's winning square (on the defender's ply: a five it cannot stop)
                wins = (C_FIVE, C_FLEX4, C_FOUR3) if mover == attacker else (C_FIVE,)
                if board.cls[attacker - 1, q] not in wins:
                    broken.append((i, j, "no win at the end"))
                break
            play(board, q, mover)
    assert not broken, broken
