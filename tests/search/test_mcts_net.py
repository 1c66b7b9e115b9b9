"""The MCTS on the network (``net=1``): the tree's moves keep the net's state in step, the root's
priors are the policy head's softmax, PUCT finds the known answers, and a board without a net
falls back to the threat classes. The shipped weights file is the net (the brain's own)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from gomocup_bot.core.board import board_from_position, board_from_stones
from gomocup_bot.core.constants import M_HEIGHT, M_PAD, M_STRIDE, M_WIDTH, RULE_CARO, RULE_FREESTYLE, RULE_RENJU
from gomocup_bot.engine import BLACK, WHITE
from gomocup_bot.neteval import reference as R
from gomocup_bot.neteval.network import network_for, weights
from gomocup_bot.neteval.state import new_state
from gomocup_bot.search import mcts as K
from gomocup_bot.search.bench import midgame_boards
from gomocup_bot.search.mcts_driver import MctsConfig, MctsSearcher
from tests.search import positions as P

NET = dict(net=1, prior="net", select="puct", c=1.5)


def _cells(b) -> np.ndarray:
    """The board's stones as an int array [h, w] (the reference's input)."""
    w, h, pad, stride = (int(b.meta[i]) for i in (M_WIDTH, M_HEIGHT, M_PAD, M_STRIDE))
    return np.array([[int(b.cells[(y + pad) * stride + pad + x]) for x in range(w)] for y in range(h)])


def _xy(b, p: int) -> tuple[int, int]:
    pad, stride = int(b.meta[M_PAD]), int(b.meta[M_STRIDE])
    return p % stride - pad, p // stride - pad


def _boards():
    """Two freestyle midgames, a renju midgame and a rectangular freestyle board."""
    out = [midgame_boards()[1], midgame_boards()[6]]
    stones = [(7, 7, 1), (8, 7, 2), (7, 8, 1), (6, 6, 2), (8, 9, 1), (9, 8, 2), (6, 9, 1)]
    out.append((board_from_stones(15, 15, stones, 5, RULE_RENJU), WHITE))
    stones = [(5, 4, 1), (6, 4, 2), (6, 5, 1), (4, 3, 2), (7, 6, 1)]
    out.append((board_from_stones(13, 9, stones, 5, RULE_FREESTYLE), WHITE))
    return out


@pytest.mark.parametrize("leaf", ["eval", "quiesce"])
@pytest.mark.parametrize("case", range(4))
def test_a_search_leaves_the_nets_state_as_a_fresh_computation_has_it(leaf, case, monkeypatch):
    board, side = _boards()[case]
    # the kernels on a rectangular board: the shipped net plays 15 x 15 only, so let it play 13 x 9 here
    free = weights().rules["freestyle"]
    monkeypatch.setattr(free, "boards", free.boards + ((13, 9),))
    net = network_for(board)
    assert net is not None, "the shipped file has a net for freestyle and renju"
    cells_before = board.cells.copy()
    searcher = MctsSearcher(MctsConfig(leaf=leaf, **NET), 1 << 18)
    out = searcher.run(board, side, np.zeros(1, dtype=np.int32), max_iterations=3000)
    assert out.iterations > 500 and out.move >= 0
    assert int(searcher.tree.count[0]) > 100  # the tree grew: many moves were made and taken back
    (ev,) = searcher._ev.values()
    assert ev.params[K.P_NET] == 1
    fresh = new_state(board, *net)
    empty = board.cells == 0
    assert np.array_equal(board.cells, cells_before)
    assert np.array_equal(ev.net.pool, fresh.pool)
    assert np.array_equal(ev.net.acc[:, empty], fresh.acc[:, empty])


@pytest.mark.parametrize("temp", [1.0, 0.5])
def test_root_priors_are_the_softmax_of_the_policy_heads_logits(temp):
    board, side = midgame_boards()[3]
    weights, net = network_for(board)
    searcher = MctsSearcher(MctsConfig(prior_temp=temp, **NET), 1 << 16)
    searcher.run(board, side, np.zeros(1, dtype=np.int32), max_iterations=1)
    tree = searcher.tree
    f, n = int(tree.first[0]), int(tree.nch[0])
    assert n > 10
    logits = R.policy(weights, net, _cells(board), side - 1)  # the plain numpy reference
    want = np.array([logits[_xy(board, int(tree.move[i]))[::-1]] for i in range(f, f + n)]) / temp
    want = np.exp(want - want.max())
    want /= want.sum()
    got = tree.prior[f:f + n].astype(np.float64)
    assert got.sum() == pytest.approx(1.0, abs=1e-5)
    assert np.allclose(got, want, atol=1e-5)
    assert np.all(np.diff(got) <= 1e-7)  # the children are sorted by prior: the best first


def test_puct_picks_by_prior_first_then_by_value():
    """Unvisited children: the largest prior; a visited child with a poor mean loses to the next."""
    move = np.arange(4, dtype=np.int32)
    first = np.array([1, -1, -1, -1, -1], dtype=np.int32)
    nch = np.array([3, 0, 0, 0, 0], dtype=np.int32)
    visits = np.array([1, 0, 0, 0, 0], dtype=np.int32)
    wsum = np.zeros(5)
    prior = np.array([0.0, 0.6, 0.3, 0.1, 0.0], dtype=np.float32)
    proven = np.zeros(5, dtype=np.int8)
    flags = np.zeros(5, dtype=np.int8)
    searcher = MctsSearcher(MctsConfig(**NET), 1024)
    ip, fp = searcher.params(None)
    assert ip[K.I_SELECT] == K.SELECT_PUCT
    pick = K.select_child(0, 1, 3, move, visits, wsum, prior, proven, flags, ip, fp)
    assert pick == 1
    visits[0], visits[1], wsum[1] = 10, 9, -9.0  # the favourite lost every visit
    pick = K.select_child(0, 1, 3, move, visits, wsum, prior, proven, flags, ip, fp)
    assert pick == 2
    c = fp[K.F_C]
    fpu = -wsum[0] / visits[0] - fp[K.F_FPU]
    u = [-1.0 + c * 0.6 * math.sqrt(11) / 10, fpu + c * 0.3 * math.sqrt(11), fpu + c * 0.1 * math.sqrt(11)]
    assert int(np.argmax(u)) + 1 == pick


@pytest.mark.parametrize("case", ["win", "block", "open-three"])
def test_net_mcts_finds_the_known_answers(case):
    rows, answers, side = {
        "win": (P.WIN_IN_1, P.WIN_IN_1_ANSWERS, BLACK),
        "block": (P.BLOCK_FIVE, P.BLOCK_FIVE_ANSWERS, WHITE),
        "open-three": (P.OPEN_THREE, P.OPEN_THREE_DEFENCES, WHITE),
    }[case]
    pos = P.parse(P.padded(rows), side)
    dx, dy = P.shift(rows)
    b = board_from_position(pos)
    out = MctsSearcher(MctsConfig(leaf="quiesce", **NET), 1 << 18).run(
        b, side, np.zeros(1, dtype=np.int32), max_iterations=3000)
    assert _xy(b, out.move) in {(x + dx, y + dy) for x, y in answers}


def test_net_mcts_proves_the_vcf():
    b = board_from_position(P.from_stones(P.VCF_STONES, BLACK))
    out = MctsSearcher(MctsConfig(leaf="quiesce", **NET), 1 << 18).run(
        b, BLACK, np.zeros(1, dtype=np.int32), max_iterations=20000)
    assert out.proven_root == 1 and _xy(b, out.move) in P.VCF_FIRST_MOVES


def test_a_board_without_a_net_falls_back_to_the_classes_and_the_tables():
    caro = board_from_stones(15, 15, [(7, 7, 1), (8, 8, 2)], 5, RULE_CARO)
    free = board_from_stones(15, 15, [(7, 7, 1), (8, 8, 2)], 5, RULE_FREESTYLE)
    searcher = MctsSearcher(MctsConfig(leaf="quiesce", **NET), 1 << 16)
    assert searcher.params(free)[0][K.I_PRIOR] == K.PRIOR_NET
    assert searcher.params(caro)[0][K.I_PRIOR] == K.PRIOR_SCORE  # caro: no layer, no net
    out = searcher.run(caro, BLACK, np.zeros(1, dtype=np.int32), max_iterations=500)
    assert out.move >= 0
    assert all(ev.params[K.P_NET] == 0 for ev in searcher._ev.values())
    tables = MctsSearcher(MctsConfig(leaf="quiesce", prior="net"), 1 << 16)  # net off: the classes
    assert tables.params(free)[0][K.I_PRIOR] == K.PRIOR_CLASS


def test_a_board_size_the_net_was_not_trained_on_is_left_to_the_tables():
    """The shipped net was trained on 15 x 15 and plays there only: on Gomocup's 20 x 20 its value
    of the same stones moves (the walls' distance is part of every window near them), so both
    searches evaluate with the tables there."""
    from gomocup_bot.search.pvs_driver import PvsConfig, PvsSearcher

    stones = [(10, 10, 1), (9, 10, 2), (12, 10, 1), (9, 11, 2), (8, 12, 1)]
    big = board_from_stones(20, 20, stones, 5, RULE_FREESTYLE)
    small = board_from_stones(15, 15, [(x - 3, y - 3, c) for x, y, c in stones], 5, RULE_FREESTYLE)
    assert weights().rules["freestyle"].boards == ((15, 15),)
    assert network_for(small) is not None and network_for(big) is None
    searcher = MctsSearcher(MctsConfig(leaf="quiesce", **NET), 1 << 16)
    assert searcher.params(small)[0][K.I_PRIOR] == K.PRIOR_NET
    assert searcher.params(big)[0][K.I_PRIOR] == K.PRIOR_CLASS  # the threat classes order it
    assert searcher.run(big, WHITE, np.zeros(1, dtype=np.int32), max_iterations=500).move >= 0
    assert all(ev.params[K.P_NET] == 0 for ev in searcher._ev.values())
    # the PVS with net=1 on 20 x 20 visits the tables' nodes to the tables' value
    on = PvsSearcher(1 << 20, PvsConfig(net=1)).search(big, WHITE, np.zeros(1, dtype=np.int32), soft_deadline=None, hard_deadline=None, max_depth=4)
    off = PvsSearcher(1 << 20, PvsConfig(net=0)).search(big, WHITE, np.zeros(1, dtype=np.int32), soft_deadline=None, hard_deadline=None, max_depth=4)
    assert on.nodes > 100 and (on.nodes, on.score, on.move) == (off.nodes, off.score, off.move)
    on_small = PvsSearcher(1 << 20, PvsConfig(net=1)).search(small, WHITE, np.zeros(1, dtype=np.int32), soft_deadline=None, hard_deadline=None, max_depth=4)
    off_small = PvsSearcher(1 << 20, PvsConfig(net=0)).search(small, WHITE, np.zeros(1, dtype=np.int32), soft_deadline=None, hard_deadline=None, max_depth=4)
    assert (on_small.nodes, on_small.score) != (off_small.nodes, off_small.score)  # where it is trained, the net plays


def test_the_engine_option_net_turns_the_mcts_backend_onto_the_network():
    from gomocup_bot.engine import SearchLimits, SearchRequest, StopFlag
    from gomocup_bot.engines.full import FullEngine

    engine = FullEngine(backend="mcts", net=1, tactics=False)
    cfg = engine.mcts_config
    on_net = MctsConfig.on_net()
    assert (cfg.net, cfg.prior, cfg.select, cfg.leaf) == (1, "net", "puct", "quiesce")
    assert (cfg.c, cfg.prior_temp, cfg.fpu) == (on_net.c, on_net.prior_temp, on_net.fpu)
    tuned = FullEngine(backend="mcts", net=1, c=0.8, prior_temp=3, fpu=0.1).mcts_config
    assert (tuned.c, tuned.prior_temp, tuned.fpu) == (0.8, 3.0, 0.1)
    engine.prepare()
    dx, dy = P.shift(P.OPEN_THREE)
    answers = {(x + dx, y + dy) for x, y in P.OPEN_THREE_DEFENCES}
    pos = P.parse(P.padded(P.OPEN_THREE), WHITE)
    res = engine.search(SearchRequest(pos, SearchLimits.from_budget(0.4, 0.8)), StopFlag())
    assert res.move in answers
    plain = FullEngine(backend="mcts").mcts_config
    assert (plain.net, plain.prior, plain.select) == (0, "class", "ucb")
