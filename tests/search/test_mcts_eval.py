"""The MCTS on the core board: leaves valued by the class-count evaluation (issue 13), the
fallback where the pattern layer cannot serve, and playouts that leave the board as they found it."""
from __future__ import annotations

import math

import numpy as np
import pytest

from gomocup_bot.core.board import board_from_position, board_from_rows
from gomocup_bot.core.constants import RULE_CARO, RULE_FREESTYLE
from gomocup_bot.core.rng import new_rng
from gomocup_bot.engine import BLACK, WHITE, Position
from gomocup_bot.search import mcts as K
from gomocup_bot.search import pvs
from gomocup_bot.search.mcts_driver import MctsConfig, MctsSearcher
from protocol.rules import RENJU
from tests.search import positions as P


def _state(b):
    """What make/unmake must restore. For k > 5 the keys are a cache of pattern codes that
    `sync_patterns` refreshes whenever the hash moved on, so they are left out there."""
    keys = b.keys.copy() if b.meta[7] else None
    return (b.cells.copy(), keys, b.nbr.copy(), int(b.hash[0]), b.cnt.copy(), b.cls.copy(), int(b.meta[6]))


def _same(a, b) -> bool:
    return all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(a, b))


def test_state_sees_a_stone_left_behind():
    b, _ = board_from_rows(["....", "....", "....", "...."], 3)
    before = _state(b)
    from gomocup_bot.core.board import make

    make(b, int(np.nonzero(b.cells == 0)[0][0]), BLACK)
    assert not _same(_state(b), before)


@pytest.mark.parametrize("leaf, code", [("eval", K.LEAF_EVAL), ("quiesce", K.LEAF_QUIESCE)])
def test_eval_leaves_and_class_priors_only_where_the_layer_serves(leaf, code):
    searcher = MctsSearcher(MctsConfig(leaf=leaf, prior="class"), 1024)
    free, _ = board_from_rows(["." * 9] * 9, 5, RULE_FREESTYLE)
    caro, _ = board_from_rows(["." * 9] * 9, 5, RULE_CARO)
    six, _ = board_from_rows(["." * 9] * 9, 6, RULE_FREESTYLE)
    ip, _ = searcher.params(free)
    assert ip[K.I_LEAF] == code and ip[K.I_PRIOR] == K.PRIOR_CLASS
    for b in (caro, six):
        ip, _ = searcher.params(b)
        assert ip[K.I_LEAF] == K.LEAF_PLAYOUT and ip[K.I_PRIOR] == K.PRIOR_SCORE


def test_leaf_value_is_certain_for_fives_and_the_squashed_evaluation_otherwise():
    searcher = MctsSearcher(MctsConfig(leaf="eval"), 1024)
    rng = new_rng(1)
    # black to move with four in a row: a win
    b, _ = board_from_rows([".........", ".xxxx....", ".ooo.....", "......o..", "........."])
    ip, fp = searcher.params(b)
    ev = searcher.evaluator(b)
    assert K.leaf_value(b, BLACK, ip, fp, ev, rng, K.new_scratch(b)) == (1.0, 1, True)
    # white to move facing an open four (two five squares): lost
    b, _ = board_from_rows(["..........", "..xxxx....", ".ooo......", "......o...", ".........."])
    assert K.leaf_value(b, WHITE, ip, fp, ev, rng, K.new_scratch(b)) == (-1.0, 2, True)
    # a quiet position: tanh(evaluation / 500), for the side to move
    b, _ = board_from_rows([".........", "...x.....", "...ox....", ".....o...", "........."])
    v, plies, terminal = K.leaf_value(b, BLACK, ip, fp, ev, rng, K.new_scratch(b))
    assert not terminal and plies == 0
    assert v == pytest.approx(math.tanh(pvs.evaluate(b, BLACK, ev) / 500.0))
    assert -1.0 < v < 1.0


def test_quiesce_leaves_see_the_forced_win_a_static_evaluation_misses():
    searcher = MctsSearcher(MctsConfig(leaf="quiesce"), 1024)
    rng = new_rng(1)
    # black to move makes a four-three at c (x=4, y=4): the quiescence scores it as a win in a few plies
    b, _ = board_from_rows(["...........", "....x......", "....x......", "....x......", "..xx.......",
                            "...........", ".o.o.o.o...", "o.........."])
    ip, fp = searcher.params(b)
    ev = searcher.evaluator(b)
    v, plies, terminal = K.leaf_value(b, BLACK, ip, fp, ev, rng, K.new_scratch(b))
    assert (v, terminal) == (1.0, True) and 1 <= plies <= 5
    # a quiet position: the quiescence is the evaluation there (no four to play)
    b, _ = board_from_rows([".........", "...x.....", "...ox....", ".....o...", "........."])
    v, plies, terminal = K.leaf_value(b, BLACK, ip, fp, searcher.evaluator(b), rng, K.new_scratch(b))
    assert not terminal and v == pytest.approx(math.tanh(pvs.evaluate(b, BLACK, searcher.evaluator(b)) / 500.0))


@pytest.mark.parametrize("kind", [K.PLAYOUT_RANDOM, K.PLAYOUT_LIGHT, K.PLAYOUT_HEAVY, K.PLAYOUT_DEPTH])
@pytest.mark.parametrize("k, rule", [(5, RULE_FREESTYLE), (5, RULE_CARO), (4, RULE_FREESTYLE), (6, RULE_FREESTYLE)])
def test_every_playout_leaves_the_board_exactly_as_it_found_it(kind, k, rule):
    b, side = board_from_rows(["...........", "....x......", "...oxo.....", "....xo.....", ".....x.o...",
                               "...........", "..........."], k, rule)
    before = _state(b)
    searcher = MctsSearcher(MctsConfig(), 1024)
    ip, fp = searcher.params(b)
    ip[K.I_PLAYOUT] = kind
    rng = new_rng(7)
    scratch = K.new_scratch(b)
    ends = set()
    for _ in range(60):
        r, plies, terminal = K.playout(b, side, ip, fp, rng, scratch)
        assert -1.0 <= r <= 1.0 and plies >= 0
        ends.add(terminal)
        assert _same(_state(b), before)
    if kind != K.PLAYOUT_DEPTH:
        assert True in ends  # these boards fill up or somebody wins: playouts do end in a result


@pytest.mark.parametrize("leaf", ["eval", "quiesce"])
def test_eval_mcts_finds_the_open_three_defence_and_a_vcf(leaf):
    pos = P.parse(P.padded(P.OPEN_THREE), WHITE)
    searcher = MctsSearcher(MctsConfig(leaf=leaf, prior="class"), 1 << 18)
    out = searcher.run(board_from_position(pos), WHITE, np.zeros(1, dtype=np.int32), max_iterations=3000)
    b = board_from_position(pos)
    dx, dy = P.shift(P.OPEN_THREE)
    answers = {(x + dx, y + dy) for x, y in P.OPEN_THREE_DEFENCES}
    assert (int(out.move % b.meta[5] - b.meta[4]), int(out.move // b.meta[5] - b.meta[4])) in answers
    pos = P.from_stones(P.VCF_STONES, BLACK)
    b = board_from_position(pos)
    out = MctsSearcher(MctsConfig(leaf=leaf, prior="class"), 1 << 18).run(
        b, BLACK, np.zeros(1, dtype=np.int32), max_iterations=20000)
    assert out.proven_root == 1
    assert (int(out.move % b.meta[5] - b.meta[4]), int(out.move // b.meta[5] - b.meta[4])) in P.VCF_FIRST_MOVES


@pytest.mark.parametrize("leaf", ["eval", "quiesce"])
def test_eval_mcts_under_renju_never_lists_a_black_foul(leaf):
    from gomocup_bot.core.rules import forbidden_points

    # black to move; the centre square would make a double three
    stones = ((5, 7, BLACK), (6, 7, BLACK), (7, 5, BLACK), (7, 6, BLACK), (0, 0, WHITE), (14, 0, WHITE),
              (0, 14, WHITE), (14, 14, WHITE))
    pos = Position(15, 15, RENJU, stones, BLACK, 5)
    b = board_from_position(pos)
    out = np.zeros(225, dtype=np.int32)
    forb = {int(q) for q in out[:forbidden_points(b, out)]}
    assert forb, "the test needs a forbidden square"
    searcher = MctsSearcher(MctsConfig(leaf=leaf, prior="class"), 1 << 18)
    res = searcher.run(b, BLACK, np.zeros(1, dtype=np.int32), max_iterations=2000)
    tree = searcher.tree
    kids = {int(tree.move[i]) for i in range(int(tree.first[0]), int(tree.first[0]) + int(tree.nch[0]))}
    assert kids and not kids & forb and res.move not in forb
