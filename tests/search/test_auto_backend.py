"""The default search (the PVS) and `backend=auto`, the engine's choice of search by the time a
move has: the PVS for short moves, the MCTS on the network for long ones at freestyle where the net
plays, the PVS whenever a node or depth limit stands (self-play, Yixin's max_node / max_depth)."""
from __future__ import annotations

import time

import pytest

from gomocup_bot.brain.timeman import move_budget
from gomocup_bot.core.board import board_from_position
from gomocup_bot.engine import BLACK, WHITE, Position, SearchInfo, SearchLimits, SearchRequest, StopFlag
from gomocup_bot.engines.full import AUTO_MCTS_SECONDS, DEFAULT_BACKEND, FullEngine
from gomocup_bot.search.adapter import deadlines
from protocol.rules import FREESTYLE, RENJU, Rules

EXACT = Rules(exact_five=True)
STONES = ((7, 7, BLACK), (8, 8, WHITE), (8, 7, BLACK), (6, 7, WHITE), (9, 6, BLACK), (7, 9, WHITE))


def position(rules: Rules = FREESTYLE, size: int = 15) -> Position:
    return Position(size, size, rules, STONES, BLACK)


def chosen(engine: FullEngine, pos: Position, limits: SearchLimits, threads: int = 1) -> bool:
    """Whether the engine would run the MCTS for this request (read at the request's start) on
    ``threads`` threads."""
    return engine.uses_mcts(board_from_position(pos), deadlines(SearchRequest(pos, limits)), time.monotonic(),
                            threads)


def test_the_default_runs_the_pvs_at_every_time_control():
    """The net MCTS scored under 50 % against the net PVS at 1 s and at 5 s + 120 s (issue 69's
    rule keeps the PVS the default there)."""
    assert DEFAULT_BACKEND == "ab" and FullEngine().backend == "ab"
    engine = FullEngine()
    for turn in (1000, 5000, 30000):
        assert not chosen(engine, position(), move_budget({"timeout_turn": turn}))
    assert not chosen(engine, position(), move_budget({"timeout_turn": 5000}), threads=2)


def test_auto_runs_the_net_mcts_for_a_5_s_turn_and_the_pvs_for_a_1_s_turn():
    engine = FullEngine(backend="auto")
    assert engine.backend == "auto" and engine.mcts_from == AUTO_MCTS_SECONDS
    # its MCTS runs on one thread as measured; the PVS has a helper where a core is free
    assert engine.threads == 2 and engine.mcts_config.threads == 1
    assert not chosen(engine, position(), move_budget({"timeout_turn": 1000}))
    assert chosen(engine, position(), move_budget({"timeout_turn": 5000}))
    # with a second core free the PVS runs with its helper
    assert not chosen(engine, position(), move_budget({"timeout_turn": 5000}), threads=2)
    # the match clock's share decides when it is the smaller: 40 s left over 21 moves is 1.9 s
    assert not chosen(engine, position(),
                      move_budget({"timeout_turn": 5000, "timeout_match": 120000, "time_left": 40000},
                                  empty_squares=200))


def test_auto_keeps_the_pvs_without_a_net_or_under_a_node_or_depth_limit():
    engine = FullEngine(backend="auto")
    five = move_budget({"timeout_turn": 5000})
    assert not chosen(engine, position(RENJU), five)  # renju plays the tables (neteval.network)
    assert not chosen(engine, position(EXACT), five)  # exact five plays the net, its MCTS unmeasured
    assert not chosen(engine, position(size=20), five)  # 20 x 20: its MCTS unmeasured there, net or not
    assert not chosen(FullEngine(backend="auto", net="0"), position(), five)
    assert not chosen(engine, position(), move_budget({"timeout_turn": 5000, "max_node": 20000}))
    assert not chosen(engine, position(), move_budget({"timeout_turn": 5000, "max_depth": 8}))
    assert not chosen(FullEngine(backend="ab"), position(), five)
    assert chosen(FullEngine(backend="mcts"), position(), move_budget({"timeout_turn": 1000}))


def test_an_unknown_backend_falls_back_to_the_default_with_a_warning(caplog):
    with caplog.at_level("WARNING"):
        assert FullEngine(backend="minimax").backend == DEFAULT_BACKEND
    assert "backend='minimax'" in caplog.text


@pytest.mark.slow
def test_a_real_search_runs_each_search_by_its_time():
    """The summary line names the search that ran; both moves are legal and answered in time."""
    engine = FullEngine(backend="auto", threads=1, mcts_from="0.5")
    engine.prepare()
    pos = position()
    engine.new_game(15, 15, pos.rules)
    for hard, label in ((0.3, "pvs"), (0.9, "mcts"), (0.3, "pvs")):
        lines: list[str] = []

        def report(info: SearchInfo, lines=lines) -> None:
            if info.kind == "summary" and info.text:
                lines.append(info.text)

        started = time.monotonic()
        result = engine.search(SearchRequest(position=pos, limits=SearchLimits.from_budget(hard * 0.8, hard),
                                             report=report), StopFlag())
        took = time.monotonic() - started
        assert lines and lines[-1].split()[0] == label, lines
        x, y = result.move
        assert 0 <= x < 15 and 0 <= y < 15 and (x, y) not in {(a, b) for a, b, _ in STONES}
        # the MCTS's first move loads its kernels from numba's cache inside the move's time
        assert took < hard + 0.35, took
        # one search's table at a time (the memory cap)
        assert (engine._mcts is None) == (label == "pvs") and (engine._pvs is None) == (label == "mcts")
