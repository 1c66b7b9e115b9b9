"""The numba quick move (`gomocup_bot.core.quick`): positions with known answers, a property test
against the rules judge and the greedy engine, and a real server whose search slot is taken.

Legality is judged by `protocol.judge` (the plain-Python rules the referee, the session and greedy
share), never by the numba core the quick move itself is built on.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gomocup_bot.core import quick
from gomocup_bot.engine import BLACK, WHITE, Position
from gomocup_bot.engines import greedy
from protocol import judge
from protocol.judge import Board, has_win, is_renju_foul, opponent, winning_squares
from protocol.rules import Rules

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from server_testkit import REPO, Client, ServerProcess, play_short_game  # noqa: E402

FREESTYLE, EXACT, RENJU, CARO = Rules(), Rules(exact_five=True), Rules(renju=True), Rules(caro=True)


@pytest.fixture(scope="module", autouse=True)
def quick_kernels():
    """Compile (first run) or load the kernels once for this module."""
    quick.warm_quick()


def position(rows: list[str], to_move: int, rules: Rules = FREESTYLE, size: int = 15) -> Position:
    """A size x size position from text rows at the top-left (x black, o white, # blocked)."""
    colours = {"x": BLACK, "o": WHITE, "#": 3}
    stones = tuple(
        (x, y, colours[ch]) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch in colours
    )
    return Position(size, size, rules, stones, to_move=to_move)


def judge_board(pos: Position) -> Board:
    return Board(pos.width, pos.height, pos.stones)


def assert_legal(pos: Position, move: tuple[int, int]) -> None:
    x, y = move
    assert 0 <= x < pos.width and 0 <= y < pos.height, move
    assert move not in pos.occupied(), move
    if pos.rules.renju and pos.to_move == BLACK:
        assert judge.renju_foul(judge_board(pos), x, y) is None, move


def wins_after(pos: Position, move: tuple[int, int]) -> set[tuple[int, int]]:
    """The mover's winning squares once `move` is on the board (the plain-Python judge)."""
    board = judge_board(pos)
    board.set(*move, pos.to_move)
    return set(winning_squares(board, pos.to_move, pos.rules))


# ---- positions with known answers --------------------------------------------------------------


def test_empty_board_takes_the_centre():
    assert quick.decide(Position(15, 15, FREESTYLE)).moves == [(7, 7)]
    assert quick.decide(Position(19, 19, RENJU)).moves == [(9, 9)]


@pytest.mark.parametrize("me", [BLACK, WHITE])
@pytest.mark.parametrize("rules", [FREESTYLE, RENJU])
def test_win_in_one_for_either_colour(me, rules):
    mine, theirs = ("x", "o") if me == BLACK else ("o", "x")
    rows = [
        "",
        "",
        "  " + theirs + mine * 4 + ".",  # (7,2) completes a five for `me`
        "",
        "   " + theirs * 3,
        "        " + theirs,
    ]
    answer = quick.decide(position(rows, me, rules))
    assert answer.layer == quick.Q_WIN and answer.proven == 1
    assert answer.moves == [(7, 2)]


def test_own_five_comes_before_blocking_theirs():
    rows = [
        "",
        "oxxxx.",  # black wins at (5,1) only
        "",
        " oooo.",  # white would win at (5,3) or (0,3)
    ]
    answer = quick.decide(position(rows, BLACK))
    assert answer.layer == quick.Q_WIN and answer.moves == [(5, 1)]


def test_blocks_the_only_five_square():
    rows = [
        "",
        "xoooo.",  # white wins at (5,1) only
        "  x",
        "   x",
    ]
    answer = quick.decide(position(rows, BLACK))
    assert answer.layer == quick.Q_BLOCK and answer.proven == 0
    assert answer.moves == [(5, 1)]


def test_two_five_squares_still_blocks_one_and_knows_it_is_lost():
    rows = [
        "",
        " .oooo.",  # open four: white wins at (1,1) or (6,1)
        "",
        "  x x x",
    ]
    answer = quick.decide(position(rows, BLACK), nbest=3)
    assert answer.layer == quick.Q_BLOCK and answer.proven == -1
    assert answer.moves[0] in {(1, 1), (6, 1)}
    assert set(answer.moves) == {(1, 1), (6, 1)}  # only the blocks, never a losing extra


def test_makes_an_open_four_from_an_open_three():
    rows = [
        "",
        "",
        "   .xxx..",  # black's open three on row 2
        "",
        "   o  o",
        "      o",
    ]
    pos = position(rows, BLACK)
    answer = quick.decide(pos)
    assert answer.layer == quick.Q_ATTACK
    assert len(wins_after(pos, answer.moves[0])) >= 2  # an open four: two squares to finish


def test_defends_an_open_three_at_a_legal_end():
    rows = [
        "",
        "",
        "     o",
        "",
        "",
        "",
        "",
        "     ooo",  # white's open three (5..7, 7): ends (4,7) and (8,7)
    ]
    pos = position(rows, BLACK)
    answer = quick.decide(pos)
    assert answer.layer == quick.Q_DEFEND
    assert answer.moves[0] in {(4, 7), (8, 7)}


# Black stones that make (8,7) a double three for black: (8,5),(8,6) vertically and (6,5),(7,6)
# diagonally both become open threes with a stone on (8,7).
RENJU_TRAP = {5: "      x x", 6: "       xx"}


def _renju_rows(row7: str) -> list[str]:
    rows = ["", "", "", "  o", "", RENJU_TRAP[5], RENJU_TRAP[6], row7]
    return rows


def test_renju_black_defends_at_the_end_that_is_not_a_foul():
    pos = position(_renju_rows("     ooo"), BLACK, RENJU)  # white open three 5..7: ends (4,7), (8,7)
    assert judge.renju_foul(judge_board(pos), 8, 7) is not None  # the trap is real
    answer = quick.decide(pos)
    assert answer.layer == quick.Q_DEFEND
    assert answer.moves == [(4, 7)]


def test_renju_black_never_blocks_on_a_foul_even_when_lost():
    pos = position(_renju_rows("   xoooo"), BLACK, RENJU)  # white's only five square is (8,7)
    assert judge.renju_foul(judge_board(pos), 8, 7) is not None
    answer = quick.decide(pos, nbest=4)
    assert answer.proven == -1
    assert (8, 7) not in answer.moves
    for move in answer.moves:
        assert_legal(pos, move)
    # white is not restricted: the same square is its block in the mirror position
    mirror = Position(15, 15, RENJU, tuple((x, y, 3 - c) for x, y, c in pos.stones), to_move=WHITE)
    assert quick.decide(mirror).moves == [(8, 7)]


def test_excluded_squares_are_never_returned():
    rows = ["", " xxxx.", "", " oooo"]
    pos = position(rows, BLACK)
    wins = {(5, 1), (0, 1)}
    answer = quick.decide(pos, excluded=frozenset(wins), nbest=5)
    assert not set(answer.moves) & wins
    assert answer.layer == quick.Q_BLOCK  # no win left: block white's five instead
    assert answer.moves[0] in {(0, 3), (5, 3)}
    # every candidate near the stones excluded: it still finds a legal square elsewhere
    near = frozenset((x, y) for x in range(9) for y in range(8))
    answer = quick.decide(Position(15, 15, FREESTYLE, ((3, 3, BLACK), (4, 4, WHITE)), BLACK), near, nbest=3)
    assert answer.layer == quick.Q_ANY and answer.moves[0] not in near


def test_nbest_gives_distinct_empty_moves_best_first():
    stones = ((7, 7, BLACK), (8, 8, WHITE), (6, 8, BLACK), (8, 6, WHITE), (8, 7, BLACK), (6, 6, WHITE))
    pos = Position(15, 15, FREESTYLE, stones, to_move=BLACK)
    five = quick.decide(pos, nbest=5)
    assert len(five.moves) == 5 and len(set(five.moves)) == 5
    assert five.moves[0] == quick.decide(pos).moves[0]
    assert not set(five.moves) & pos.occupied()
    fields = quick.choose(pos, nbest=5)  # the greedy.choose shape, for SearchResult(**fields)
    assert fields["move"] == five.moves[0] and fields["alternatives"] == five.moves


def _no_five_filling(size: int) -> dict[tuple[int, int], int]:
    """A full-board colouring without five in a row: rows of XXOO.., alternating colours row to row."""
    return {(x, y): BLACK if (x // 2 + y) % 2 == 0 else WHITE for x in range(size) for y in range(size)}


def test_near_full_board_plays_the_last_square_and_full_board_raises():
    filling = _no_five_filling(9)
    board = Board(9, 9, [(x, y, c) for (x, y), c in filling.items()])
    assert not has_win(board, BLACK, FREESTYLE) and not has_win(board, WHITE, FREESTYLE)  # precondition
    last = (4, 4)
    stones = tuple((x, y, c) for (x, y), c in filling.items() if (x, y) != last)
    assert quick.decide(Position(9, 9, FREESTYLE, stones, to_move=WHITE)).moves == [last]
    # the only empty square excluded: still the only square there is (as greedy answers)
    assert quick.decide(Position(9, 9, FREESTYLE, stones, to_move=WHITE), frozenset({last})).moves == [last]
    full = tuple((x, y, c) for (x, y), c in filling.items())
    with pytest.raises(ValueError, match="no empty square"):
        quick.choose(Position(9, 9, FREESTYLE, full, to_move=BLACK))


def test_blocked_squares_are_not_played_and_bad_stones_are_refused():
    ring = {(6, 6), (7, 6), (8, 6), (6, 7), (8, 7), (6, 8), (7, 8)}
    stones = ((7, 7, BLACK), *((x, y, 3) for x, y in ring))
    answer = quick.decide(Position(15, 15, FREESTYLE, stones, to_move=WHITE), nbest=12)
    assert len(answer.moves) == 12 and not set(answer.moves) & (ring | {(7, 7)})
    only = (1, 3)  # a board all blocked but one square
    walls = tuple((x, y, 3) for x in range(5) for y in range(5) if (x, y) != only)
    assert quick.decide(Position(5, 5, FREESTYLE, walls, to_move=BLACK)).moves == [only]
    with pytest.raises(ValueError):
        quick.decide(Position(15, 15, FREESTYLE, ((7, 7, BLACK), (7, 7, WHITE)), to_move=BLACK))


# ---- property: legal, and greedy's win / block decisions --------------------------------------


@st.composite
def random_positions(draw):
    """A position reached by legal play (no five yet, no renju foul by black) and a few exclusions."""
    size = draw(st.integers(min_value=7, max_value=15))
    rules = draw(st.sampled_from([FREESTYLE, EXACT, RENJU, CARO]))
    board = Board(size, size)
    stones: list[tuple[int, int, int]] = []
    lo = draw(st.integers(0, size - 7))  # stones in a 7x7 window: dense enough for fours and fives
    for _ in range(draw(st.integers(min_value=0, max_value=40))):
        x = lo + draw(st.integers(0, 6))
        y = lo + draw(st.integers(0, 6))
        colour = BLACK if len(stones) % 2 == 0 else WHITE
        if board.get(x, y) != judge.EMPTY:
            continue
        if rules.renju and colour == BLACK and judge.renju_foul(board, x, y) is not None:
            continue
        if judge.makes_win(board, x, y, colour, rules):
            continue  # keep the game running: the interesting case is a five in the air
        board.set(x, y, colour)
        stones.append((x, y, colour))
    to_move = BLACK if len(stones) % 2 == 0 else WHITE
    pos = Position(size, size, rules, tuple(stones), to_move=to_move)
    free = pos.empty_squares()
    excluded = frozenset(draw(st.lists(st.sampled_from(free), max_size=3))) if free else frozenset()
    return pos, excluded


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_positions(), st.integers(min_value=1, max_value=4))
def test_quick_move_is_legal_and_agrees_with_greedy_on_wins_and_blocks(case, nbest):
    pos, excluded = case
    answer = quick.decide(pos, excluded, nbest)
    assert 1 <= len(answer.moves) <= nbest and len(set(answer.moves)) == len(answer.moves)
    for move in answer.moves:
        assert_legal(pos, move)
        assert move not in excluded  # a few exclusions never leave nothing legal
    board = judge_board(pos)
    me = pos.to_move
    wins = {p for p in winning_squares(board, me, pos.rules) if p not in excluded}
    threats = {
        p for p in winning_squares(board, opponent(me), pos.rules)
        if p not in excluded and not (pos.rules.renju and me == BLACK and is_renju_foul(board, *p))
    }
    chosen = greedy.choose(pos, excluded, nbest)
    move = answer.moves[0]
    if wins:
        assert answer.layer == quick.Q_WIN and move in wins and chosen["move"] in wins
    elif threats:
        assert answer.layer == quick.Q_BLOCK and move in threats and chosen["move"] in threats
        if len(threats) == 1:
            assert move == chosen["move"]
    else:
        assert answer.layer not in (quick.Q_WIN, quick.Q_BLOCK)


# ---- loading: from the cache only ---------------------------------------------------------------

_LOAD = (
    "import logging, sys; logging.basicConfig(level=logging.INFO); "
    "from gomocup_bot.core import quick; "
    "print(quick.load_cached(), quick.is_ready(), len(quick.quick_move.signatures))"
)


def test_load_cached_loads_from_the_cache_and_never_compiles(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}  # an empty cache: everything would compile
    cold = subprocess.run([sys.executable, "-c", _LOAD], capture_output=True, text=True, timeout=120, env=env,
                          cwd=REPO)
    assert cold.stdout.split() == ["False", "False", "0"], cold.stderr
    assert "is not in numba's cache" in cold.stderr
    warm = subprocess.run([sys.executable, "-c", _LOAD], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert warm.stdout.split() == ["True", "True", "1"], warm.stderr  # the module fixture filled the cache


# ---- a real server whose only search slot is taken ----------------------------------------------


@pytest.mark.slow
async def test_server_with_its_slot_taken_answers_legal_quick_moves(tmp_path):
    # the server loads the quick move before it listens (from the cache the module fixture filled)
    server = ServerProcess(tmp_path, "--engine", "mcts-plain", "--search-slots", "1",
                           "--brain-log-level", "INFO", start_timeout=300)
    try:
        hog = await Client.open(server.port)
        assert await hog.ask("START 15") == "OK"
        await hog.send("INFO timeout_turn 60000", "INFO timeout_match 0", "BEGIN")  # holds the slot
        with trio.fail_after(60):
            while "quick move loaded" not in server.log():  # before listening (serve) or by a session
                await trio.sleep(0.05)
        records = []

        async def play(seed: int) -> None:
            client = await Client.open(server.port)
            try:  # a generous tolerance: this test is about legal answers, timings are benchmarks'
                records.append(await play_short_game(client, budget_ms=300, server_moves=6, seed=seed,
                                                     tolerance=20.0))
            finally:
                await client.aclose()

        async with trio.open_nursery() as nursery:
            for seed in range(4):
                nursery.start_soon(play, seed)
        assert [r.problems for r in records] == [[]] * 4
        assert sum(len(r.moves) for r in records) == 24
        log = server.log()
        quick_answers = re.findall(r"answering with (the numba quick move|greedy)", log)
        assert len(quick_answers) == 24  # the hog's search never gave its slot up
        assert set(quick_answers) == {"the numba quick move"}
    finally:
        server.stop()
