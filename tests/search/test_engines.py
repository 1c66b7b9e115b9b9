"""The three search engines on tactical positions with known answers, at small time budgets."""
from __future__ import annotations

import threading
import time

import pytest

from gomocup_bot.engine import BLACK, WHITE, Position, SearchLimits, SearchRequest, StopFlag
from gomocup_bot.engines.full import FullEngine
from gomocup_bot.engines.mcts_plain import MctsPlainEngine
from gomocup_bot.engines.minimax import MinimaxEngine
from protocol.rules import FREESTYLE as FREESTYLE_RULES
from tests.search import positions as P

import numpy as np

BUDGET = 0.3


def _engines():
    return [FullEngine(), FullEngine(backend="mcts"), MinimaxEngine(tactics=True),
            FullEngine(backend="mcts", leaf="playout", prior="score", tactics=False), MinimaxEngine(),
            FullEngine(backend="mcts", leaf="eval", prior="class", tactics=False),
            FullEngine(backend="mcts", leaf="quiesce", prior="class", tactics=False)]


ENGINE_IDS = ["full", "full-mcts", "minimax", "mcts-playout-no-root-checks", "minimax-no-root-checks",
              "mcts-eval-no-root-checks", "mcts-quiesce-no-root-checks"]


def _ask(engine, pos, budget=BUDGET, **kw):
    engine.prepare()
    req = SearchRequest(pos, SearchLimits.from_budget(budget, budget * 2), **kw)
    return engine.search(req, StopFlag())


def _shifted(rows, answers):
    dx, dy = P.shift(rows)
    return P.padded(rows), {(x + dx, y + dy) for x, y in answers}


@pytest.mark.parametrize("engine", _engines(), ids=ENGINE_IDS)
def test_win_in_one(engine):
    rows, answers = _shifted(P.WIN_IN_1, P.WIN_IN_1_ANSWERS)
    assert _ask(engine, P.parse(rows, BLACK)).move in answers


@pytest.mark.parametrize("engine", _engines(), ids=ENGINE_IDS)
def test_block_five(engine):
    rows, answers = _shifted(P.BLOCK_FIVE, P.BLOCK_FIVE_ANSWERS)
    assert _ask(engine, P.parse(rows, WHITE)).move in answers


@pytest.mark.parametrize("engine", _engines(), ids=ENGINE_IDS)
def test_level4_sudden_death_open_three(engine):
    rows, answers = _shifted(P.OPEN_THREE, P.OPEN_THREE_DEFENCES)
    assert _ask(engine, P.parse(rows, WHITE)).move in answers


@pytest.mark.parametrize("engine", _engines()[:3], ids=ENGINE_IDS[:3])
def test_own_vcf_is_played(engine):
    res = _ask(engine, P.from_stones(P.VCF_STONES, BLACK))
    assert res.move in P.VCF_FIRST_MOVES
    assert res.proven == 1


@pytest.mark.parametrize("engine", _engines()[:3], ids=ENGINE_IDS[:3])
def test_opponent_vcf_is_defused(engine):
    pos = P.from_stones(P.VCF_STONES, WHITE)
    # white to move: one white stone too few is fine for the engine; it answers for `to_move`
    res = _ask(engine, pos)
    x, y = res.move
    after = P.from_stones({"X": P.VCF_STONES["X"], "O": P.VCF_STONES["O"] + [(x, y)]}, BLACK)
    from gomocup_bot.core.board import board_from_position
    from gomocup_bot.search.vct import FAIL, ThreatSolver

    b = board_from_position(after)
    result, _, _ = ThreatSolver(b).run(b, BLACK, vct=False, max_depth=0, max_nodes=2_000_000)
    assert result == FAIL  # black has no VCF left


def test_stop_mid_search_returns_a_legal_move_at_once():
    for engine in (FullEngine(tactics=False), FullEngine(backend="mcts", tactics=False), MinimaxEngine(),
                   MctsPlainEngine()):
        engine.prepare()
        pos = P.parse(P.padded(P.OPEN_THREE), WHITE)
        req = SearchRequest(pos, SearchLimits.from_budget(30.0, 30.0))
        stop = StopFlag()
        box = {}

        def run():
            box["result"] = engine.search(req, stop)
            box["t"] = time.monotonic()

        th = threading.Thread(target=run)
        th.start()
        time.sleep(0.3)
        t_stop = time.monotonic()
        stop.set()
        th.join(5.0)
        assert not th.is_alive(), engine.name
        assert box["t"] - t_stop < 0.5, engine.name
        x, y = box["result"].move
        assert (x, y) not in pos.occupied() and 0 <= x < 15 and 0 <= y < 15


@pytest.mark.parametrize("engine", [FullEngine(), MinimaxEngine(), MctsPlainEngine()],
                         ids=["full", "minimax", "mcts-plain"])
def test_excluded_moves_are_avoided_and_nbest_lists_distinct_moves(engine):
    pos = P.parse(P.padded(P.OPEN_THREE), WHITE)
    dx, dy = P.shift(P.OPEN_THREE)
    banned = frozenset({(2 + dx, 3 + dy)})
    res = _ask(engine, pos, excluded=banned, nbest=3)
    assert res.move not in banned
    assert res.move not in pos.occupied()
    assert res.alternatives[0] == res.move
    assert len(set(res.alternatives)) == len(res.alternatives) >= 2
    assert not banned & set(res.alternatives)


@pytest.mark.parametrize("engine", [FullEngine(), MinimaxEngine(), MctsPlainEngine()],
                         ids=["full", "minimax", "mcts-plain"])
def test_one_empty_square_left_and_empty_board(engine):
    rows = ["XOXOX", "OXOXO", "OXOXO", "XOXOX", "XOXO."]
    pos = P.parse(rows, BLACK)
    assert _ask(engine, pos, budget=0.1).move == (4, 4)
    empty = P.parse(["." * 15] * 15, BLACK)
    x, y = _ask(engine, empty, budget=0.1).move
    assert 0 <= x < 15 and 0 <= y < 15


def test_zero_budget_still_answers_legally():
    pos = P.parse(P.padded(P.OPEN_THREE), WHITE)
    for engine in (FullEngine(), MinimaxEngine(), MctsPlainEngine()):
        engine.prepare()
        req = SearchRequest(pos, SearchLimits.from_budget(0.0, 0.0))
        t0 = time.monotonic()
        res = engine.search(req, StopFlag())
        assert time.monotonic() - t0 < 1.0
        assert res.move not in pos.occupied()


@pytest.mark.parametrize("backend", ["ab", "mcts"])
def test_realtime_reports_carry_best_moves_and_a_summary_line(backend):
    seen = []
    pos = P.parse(P.padded(P.OPEN_THREE), WHITE)
    engine = FullEngine(tactics=False, backend=backend)
    _ask(engine, pos, report=seen.append)
    kinds = {info.kind for info in seen}
    assert "summary" in kinds and "best" in kinds
    assert all(info.move is None or info.move not in pos.occupied() for info in seen)
    summary = [info.text for info in seen if info.kind == "summary"][-1]
    assert "depth" in summary and "nodes" in summary and "pv" in summary and "\n" not in summary


def test_level_one_searches_less_than_full_strength():
    pos = P.parse(P.padded(P.OPEN_THREE), WHITE)
    weak = _ask(FullEngine(level=1, tactics=False, backend="mcts"), pos, budget=1.0)
    strong = _ask(FullEngine(tactics=False, backend="mcts"), pos, budget=1.0)
    assert weak.nodes <= 200 < strong.nodes
    assert weak.move not in pos.occupied()


def test_renju_black_never_plays_a_foul_even_when_it_is_the_best_looking_square():
    from protocol.rules import RENJU
    from tournament.game.referee import Board, renju_foul

    # black to move: the crossing square of the diagonal pair and the row pair would make two
    # open threes at once (a double-three foul) -- the square every threat score likes best
    rows = P.padded(["...........",
                     "...........",
                     "...........",
                     "...X.......",
                     "....X......",
                     "......XX...",
                     "...........",
                     "O..........",
                     "...O.......",
                     "O......O...",
                     "..........."])
    pos = P.parse(rows, BLACK, rules=RENJU)
    ref = Board.from_rows(rows)
    fouls = {(x, y) for y in range(15) for x in range(15)
             if ref.get(x, y) == 0 and renju_foul(ref, x, y) is not None}
    assert fouls, "the position must contain a foul square"
    # under freestyle the same square is the brain's choice: the filter is what keeps it out
    assert _ask(FullEngine(), P.parse(rows, BLACK), budget=0.3).move in fouls
    for engine in (FullEngine(), MinimaxEngine(), MctsPlainEngine()):
        res = _ask(engine, pos, budget=0.3)
        assert res.move not in fouls, engine.name
        assert res.move not in pos.occupied()


def test_two_thread_pvs_uses_the_helper_and_agrees_on_a_forced_answer():
    from gomocup_bot.core.board import board_from_position as core_board
    from gomocup_bot.core.board import pos_x, pos_y
    from gomocup_bot.search.pvs_driver import PvsConfig, PvsSearcher

    rows, answers = _shifted(P.OPEN_THREE, P.OPEN_THREE_DEFENCES)
    pos = P.parse(rows, WHITE)
    board = core_board(pos)
    before = board.cells.copy(), board.cnt.copy(), int(board.hash[0])
    now = time.monotonic()
    out = PvsSearcher(1 << 22, PvsConfig(threads=2)).search(board, WHITE, np.zeros(1, dtype=np.int32),
                                                           soft_deadline=now + 0.4, hard_deadline=now + 0.8)
    assert out.threads == 2
    assert (int(pos_x(board, out.move)), int(pos_y(board, out.move))) in answers
    assert (board.cells == before[0]).all() and (board.cnt == before[1]).all() and int(board.hash[0]) == before[2]


# ----------------------------------------------------------------------------- win length k > 5
# (the m,n,k experiment asks the engines for any k; the protocol itself always plays five)


@pytest.mark.parametrize("k", [6, 7])
@pytest.mark.parametrize("make_engine", [FullEngine, MinimaxEngine], ids=["full", "minimax"])
def test_big_win_length_takes_the_win_and_blocks_it(make_engine, k):
    from protocol.judge import Board as Grid, makes_win

    stones = [(x, 5, BLACK) for x in range(1, k)] + [(0, 5, WHITE)] + [(x, 11, WHITE) for x in (1, 4, 7, 10)]
    grid = Grid(13, 13, stones)
    wins = {(x, y) for x, y in grid.empties() if makes_win(grid, x, y, BLACK, FREESTYLE_RULES, k)}
    assert wins == {(k, 5)}
    engine = make_engine()
    for side in (BLACK, WHITE):
        res = _ask(engine, Position(13, 13, FREESTYLE_RULES, tuple(stones), side, k))
        assert res.move == (k, 5), (side, res.move)


def test_big_win_length_self_play_is_legal_and_judged_like_the_referee():
    """The default engine plays both sides of a 9x9, k = 6 game: every move legal, and it stops
    taking moves only where the referee sees a six (or a full board)."""
    from protocol.judge import Board as Grid, has_win

    engine = FullEngine()
    grid = Grid(9, 9)
    stones: list[tuple[int, int, int]] = []
    side = BLACK
    for _ in range(81):
        res = _ask(engine, Position(9, 9, FREESTYLE_RULES, tuple(stones), side, 6), budget=0.05)
        x, y = res.move
        assert grid.get(x, y) == 0
        grid.set(x, y, side)
        stones.append((x, y, side))
        if has_win(grid, side, FREESTYLE_RULES, 6) or grid.is_full():
            break
        side = 3 - side
    assert len(stones) >= 11  # a six needs at least six stones of one side


def test_a_second_search_never_runs_on_the_tables_of_one_still_running():
    """The brain abandons a search that overstays its deadline and may ask for the next move while
    it still runs: that one must not search the same tree (it would corrupt it), so it waits
    while its plan allows and then answers a legal move without searching."""
    engine = FullEngine(backend="mcts", leaf="eval", prior="class", tactics=False)
    engine.prepare()
    pos = Position(15, 15, FREESTYLE_RULES, ((7, 7, BLACK), (8, 8, WHITE), (8, 6, BLACK)), WHITE)
    stop = StopFlag()
    first = {}
    runner = threading.Thread(
        target=lambda: first.update(result=engine.search(SearchRequest(pos, SearchLimits.from_budget(30.0)), stop)))
    runner.start()
    try:
        time.sleep(0.3)
        t0 = time.monotonic()
        second = engine.search(SearchRequest(pos, SearchLimits.from_budget(0.2, 0.4)), StopFlag())
        waited = time.monotonic() - t0
        assert runner.is_alive()
    finally:
        stop.set()
        runner.join(10.0)
    assert 0.15 <= waited < 0.6
    assert second.nodes == 0 and second.move not in pos.occupied()
    assert first["result"].nodes > 0 and first["result"].move not in pos.occupied()


def test_a_checked_choice_leaves_the_check_its_share_of_the_time():
    # when the opponent has a VCT, the tree search plans verify_plan and stops by verify_cut of the
    # time left; the rest is the check's (a search run to the hard deadline would leave it nothing)
    from gomocup_bot.engines.full import Budget, checked_budget

    full = Budget(soft=10.8, hard=11.0, max_nodes=0, max_depth=0)
    b = checked_budget(full, now=10.0, plan_share=0.4, cut_share=0.5)
    assert b.soft == pytest.approx(10.4) and b.hard == pytest.approx(10.5)
    assert full.hard - b.hard == pytest.approx(0.5)  # the check's half
    # a plan already shorter than the share stays as it was; a deadline already past gives nothing
    assert checked_budget(full, now=10.0, plan_share=0.9, cut_share=0.95).soft == pytest.approx(10.8)
    late = checked_budget(full, now=11.5, plan_share=0.4, cut_share=0.5)
    assert late.hard == pytest.approx(11.5)


def test_verify_shares_out_of_order_fall_back_to_the_defaults():
    from gomocup_bot.engines.full import VERIFY_CUT, VERIFY_PLAN

    engine = FullEngine(verify_plan=0.9, verify_cut=0.5)
    assert (engine.verify_plan, engine.verify_cut) == (VERIFY_PLAN, VERIFY_CUT)
    engine = FullEngine(verify_plan=0.3, verify_cut=0.45)
    assert (engine.verify_plan, engine.verify_cut) == (0.3, 0.45)
