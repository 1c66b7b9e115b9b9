"""Which evaluation a board gets from the option ``net``: 0 the tables, 1 the net wherever the
shipped file has one, 2 (the engine's default) the net only where it played stronger than the
tables (freestyle and exact five), the tables elsewhere. A search under each mode must expand exactly the tree of
the evaluation it chose, so the fixed-depth node counts tell which one ran."""
from __future__ import annotations

import numpy as np
import pytest

from gomocup_bot.core.board import board_from_stones
from gomocup_bot.core.constants import RULE_EXACT, RULE_FREESTYLE, RULE_RENJU
from gomocup_bot.engines.full import DEFAULT_NET
from gomocup_bot.neteval import network
from gomocup_bot.neteval.network import NET_AUTO, NET_OFF, NET_ON, STRONGER_RULES, network_for
from gomocup_bot.neteval.weights import NetWeightsError
from gomocup_bot.search.bench import MIDGAMES
from gomocup_bot.search.pvs_driver import PvsConfig, PvsSearcher

STONES = [tuple(int(v) for v in m.split(",")) for m in MIDGAMES[0].split()]


def _board(rule: int, size: int = 15):
    return board_from_stones(size, size, [(x, y, 1 + i % 2) for i, (x, y) in enumerate(STONES)], rule=rule)


def test_auto_takes_the_net_only_for_the_rules_it_played_stronger_at():
    assert STRONGER_RULES == {"freestyle", "standard"}  # the shipped file's renju net lost to the tables
    for rule, name in ((RULE_FREESTYLE, "freestyle"), (RULE_EXACT, "standard")):
        auto = network_for(_board(rule), NET_AUTO)
        assert auto is not None and auto[1] is auto[0].rules[name]
        assert network_for(_board(rule, 20), NET_AUTO) is None  # trained on 15 x 15 only
    on = network_for(_board(RULE_RENJU), NET_ON)
    assert on is not None and on[1] is on[0].rules["renju"]  # the file has that net: `net=1` takes it
    assert network_for(_board(RULE_RENJU), NET_AUTO) is None


def test_the_exact_five_net_is_the_freestyle_net():
    """The exact-five net that plays by default is the freestyle net, copied array for array: a
    net trained on exact-five games alone lost to the tables, the freestyle net beat them."""
    w = network.weights()
    free, exact = w.rules["freestyle"], w.rules["standard"]
    for name in ("cbsel", "codebook", "w1", "b1", "w2", "b2", "wp", "bp", "tw"):
        assert np.array_equal(np.asarray(getattr(free, name)), np.asarray(getattr(exact, name))), name
    assert exact.boards == free.boards


def test_off_never_reads_the_weights_file(monkeypatch, tmp_path):
    monkeypatch.setenv("GOMOCUP_BOT_NET", str(tmp_path / "missing.gbn"))
    monkeypatch.setattr(network, "_loaded", {})
    assert network_for(_board(RULE_FREESTYLE), NET_OFF) is None
    with pytest.raises(NetWeightsError):  # the same board with the net wanted does read it
        network_for(_board(RULE_FREESTYLE), NET_AUTO)


def _nodes(board, side: int, net: int, **config) -> tuple[int, int]:
    searcher = PvsSearcher(8 << 20, PvsConfig(threads=1, net=net, **config))
    out = searcher.search(board, side, np.zeros(1, dtype=np.int32), soft_deadline=None, hard_deadline=None,
                          max_depth=6)
    return out.nodes, out.move


@pytest.mark.parametrize("rule, same_as", [(RULE_FREESTYLE, NET_ON), (RULE_EXACT, NET_ON), (RULE_RENJU, NET_OFF)])
def test_the_engines_default_searches_the_tree_of_the_evaluation_it_chose(rule, same_as):
    assert DEFAULT_NET == NET_AUTO
    board = _board(rule)
    side = 1 + len(STONES) % 2
    on, off = _nodes(board, side, NET_ON), _nodes(board, side, NET_OFF)
    assert on != off  # the two evaluations search different trees here, so the test can tell them apart
    assert _nodes(board, side, NET_AUTO) == (on if same_as == NET_ON else off)


@pytest.mark.parametrize("given, used", [(None, NET_AUTO), ("0", NET_OFF), ("1", NET_ON), ("7", NET_AUTO)])
def test_the_engine_reads_the_option_and_falls_back_to_the_default_on_a_bad_value(given, used):
    from gomocup_bot.engines import create_engine

    engine = create_engine("gomocup-bot", threads=1, **({} if given is None else {"net": given}))
    engine.prepare()
    assert engine.net == used and engine._pvs.config.net == used
    assert ("pvs-net" in engine.warm_parts) == (used != NET_OFF)


def _use(monkeypatch, tmp_path, name: str, weights) -> None:
    from gomocup_bot.neteval import weights as W

    path = tmp_path / name
    W.save(weights, path)
    monkeypatch.setenv("GOMOCUP_BOT_NET", str(path))
    monkeypatch.setattr(network, "_loaded", {})


def test_a_net_for_another_board_plays_that_board(monkeypatch, tmp_path):
    """A file whose freestyle net has a sibling for 20 x 20 searches a 20 x 20 board with the
    sibling: the same tree as a file whose one net plays both boards, and not the tables'."""
    import copy

    shipped = network.weights()
    board, side = _board(RULE_FREESTYLE, 20), 1 + len(STONES) % 2
    one = copy.deepcopy(shipped)
    one.sized = []
    one.rules["freestyle"].boards = ((15, 15), (20, 20))
    _use(monkeypatch, tmp_path, "one.gbn", one)
    both = _nodes(board, side, NET_AUTO)
    two = copy.deepcopy(shipped)
    two.sized = [("freestyle", copy.deepcopy(one.rules["freestyle"]))]
    two.sized[0][1].boards = ((20, 20),)
    two.rules["freestyle"].boards = ((15, 15),)
    two.rules["freestyle"].codebook = np.zeros_like(two.rules["freestyle"].codebook)  # not this one on 20 x 20
    _use(monkeypatch, tmp_path, "two.gbn", two)
    assert network_for(board, NET_AUTO)[1] is network.weights().sized[0][1]
    assert _nodes(board, side, NET_AUTO) == both != _nodes(board, side, NET_OFF)
    assert network_for(_board(RULE_FREESTYLE, 19), NET_AUTO) is None  # neither net plays 19 x 19


def test_a_net_search_keeps_net_width_moves_and_a_tables_search_width():
    """``net_width`` (18) is the quiet inner nodes' width where the net evaluates, ``width`` (14)
    where the tables do: each search ignores the other's, and the widths differ in its tree."""
    assert (PvsConfig.width, PvsConfig.net_width) == (14, 18)
    board = _board(RULE_FREESTYLE)
    side = 1 + len(STONES) % 2
    net = _nodes(board, side, NET_ON)
    assert _nodes(board, side, NET_ON, width=30) == net
    assert _nodes(board, side, NET_ON, net_width=14) != net
    assert _nodes(board, side, NET_ON, net_width=14) == _nodes(board, side, NET_ON, net_width=14, width=30)
    tables = _nodes(board, side, NET_OFF)
    assert _nodes(board, side, NET_OFF, net_width=30) == tables != _nodes(board, side, NET_OFF, width=18)
