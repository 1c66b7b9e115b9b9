"""The baseline engines (random, greedy) and the lazy engine registry."""
import collections
import subprocess
import sys

import pytest

from gomocup_bot.engine import BLACK, WHITE, Position, SearchLimits, SearchRequest, StopFlag
from gomocup_bot.engines import ENGINE_NAMES, EngineUnavailable, create_engine
from protocol.judge import Board as Grid, renju_foul
from protocol.rules import EXACT_FIVE, FREESTYLE, RENJU


def search(engine, pos, **kw):
    return engine.search(SearchRequest(pos, SearchLimits.from_budget(1.0), **kw), StopFlag())


def test_registry_names_and_errors():
    assert set(ENGINE_NAMES) == {"random", "greedy", "mcts-plain", "minimax", "gomocup-bot"}
    assert create_engine("random").name == "random"
    assert create_engine("greedy", seed=3, level=2).name == "greedy"
    with pytest.raises(EngineUnavailable):
        create_engine("no-such-engine")


def test_start_path_imports_neither_numpy_nor_numba():
    code = (
        "import sys, gomocup_bot.brain.main, gomocup_bot.brain.runner, gomocup_bot.brain.session, gomocup_bot.engines, "
        "protocol.transport; bad = [m for m in ('numpy', 'numba') if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


def test_random_is_legal_uniform_and_reproducible():
    stones = ((0, 0, BLACK),)
    pos = Position(5, 5, FREESTYLE, stones, to_move=WHITE)
    engine = create_engine("random", seed=1)
    counts = collections.Counter(search(engine, pos).move for _ in range(2400))
    assert (0, 0) not in counts and len(counts) == 24
    assert all(50 <= n <= 150 for n in counts.values())  # 100 expected each
    a, b = create_engine("random", seed=9), create_engine("random", seed=9)
    assert [search(a, pos).move for _ in range(10)] == [search(b, pos).move for _ in range(10)]


def test_random_respects_exclusions_and_renju_fouls():
    pos = Position(5, 5, FREESTYLE, (), to_move=BLACK)
    allowed = {(2, 2)}
    excluded = frozenset((x, y) for x in range(5) for y in range(5)) - allowed
    assert search(create_engine("random", seed=0), pos, excluded=excluded).move == (2, 2)
    # black double-three square (7,7) must never be chosen under renju
    stones = ((5, 7, BLACK), (6, 7, BLACK), (7, 5, BLACK), (7, 6, BLACK), (0, 0, WHITE), (14, 0, WHITE), (0, 14, WHITE), (14, 14, WHITE))
    pos = Position(15, 15, RENJU, stones, to_move=BLACK)
    grid = Grid(15, 15, stones)
    engine = create_engine("random", seed=5)
    for _ in range(300):
        move = search(engine, pos).move
        assert renju_foul(grid, *move) is None


def test_greedy_wins_before_it_blocks():
    # black to move has four (row 7, x=3..6) and white has four (row 9): win, don't block
    stones = ((3, 7, BLACK), (4, 7, BLACK), (5, 7, BLACK), (6, 7, BLACK), (0, 14, BLACK),
              (3, 9, WHITE), (4, 9, WHITE), (5, 9, WHITE), (6, 9, WHITE), (14, 14, WHITE))
    result = search(create_engine("greedy"), Position(15, 15, FREESTYLE, stones, to_move=BLACK))
    assert result.move in {(2, 7), (7, 7)} and result.proven == 1


def test_greedy_blocks_a_four():
    stones = ((3, 9, WHITE), (4, 9, WHITE), (5, 9, WHITE), (6, 9, WHITE), (0, 0, BLACK), (14, 14, BLACK), (7, 9, BLACK))
    result = search(create_engine("greedy"), Position(15, 15, FREESTYLE, stones, to_move=BLACK))
    assert result.move == (2, 9)
    # with two open ends at once, it blocks one and knows it is lost
    stones = ((3, 9, WHITE), (4, 9, WHITE), (5, 9, WHITE), (6, 9, WHITE), (0, 0, BLACK), (14, 14, BLACK), (7, 0, BLACK))
    result = search(create_engine("greedy"), Position(15, 15, FREESTYLE, stones, to_move=BLACK))
    assert result.move in {(2, 9), (7, 9)} and result.proven == -1


def test_greedy_exact_five_does_not_count_an_overline():
    stones = ((0, 7, BLACK), (1, 7, BLACK), (2, 7, BLACK), (3, 7, BLACK), (5, 7, BLACK),
              (0, 0, WHITE), (14, 0, WHITE), (0, 14, WHITE), (14, 14, WHITE), (7, 0, WHITE))
    assert search(create_engine("greedy"), Position(15, 15, FREESTYLE, stones, to_move=BLACK)).move == (4, 7)
    assert search(create_engine("greedy"), Position(15, 15, EXACT_FIVE, stones, to_move=BLACK)).move != (4, 7)


def test_greedy_never_plays_a_renju_foul_or_an_excluded_square():
    stones = ((5, 7, BLACK), (6, 7, BLACK), (7, 5, BLACK), (7, 6, BLACK), (0, 0, WHITE), (14, 0, WHITE), (0, 14, WHITE), (14, 14, WHITE))
    free = search(create_engine("greedy"), Position(15, 15, FREESTYLE, stones, to_move=BLACK)).move
    assert free == (7, 7)  # the double three is the best square when it is allowed
    renju = search(create_engine("greedy"), Position(15, 15, RENJU, stones, to_move=BLACK)).move
    assert renju != (7, 7) and renju_foul(Grid(15, 15, stones), *renju) is None
    blocked = search(create_engine("greedy"), Position(15, 15, FREESTYLE, stones, to_move=BLACK), excluded=frozenset({(7, 7)}))
    assert blocked.move != (7, 7)


def test_greedy_nbest_gives_distinct_alternatives():
    pos = Position(15, 15, FREESTYLE, ((7, 7, BLACK),), to_move=WHITE)
    result = search(create_engine("greedy"), pos, nbest=4)
    assert len(result.alternatives) == 4 and len(set(result.alternatives)) == 4
    assert result.alternatives[0] == result.move
