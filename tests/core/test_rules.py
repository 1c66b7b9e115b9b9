"""Rule checks: hand-built positions with known verdicts for every rule, and random positions
cross-checked against the plain-Python judge the referee uses (`protocol/judge.py`)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gomocup_bot.core.board import board_from_rows, board_from_stones, to_pos
from gomocup_bot.core.constants import (
    BLACK,
    FOUL_DOUBLE_FOUR,
    FOUL_DOUBLE_THREE,
    FOUL_NONE,
    FOUL_OVERLINE,
    RULE_CARO,
    RULE_CARO_EXACT,
    RULE_EXACT,
    RULE_FREESTYLE,
    RULE_RENJU,
    WHITE,
)
from gomocup_bot.core.rules import forbidden_points, is_win_move, move_outcome, renju_foul
from protocol.rules import CARO, CARO_EXACT, EXACT_FIVE, FREESTYLE, RENJU
from tournament.game import referee
from tournament.game.endings import Ending

from .conftest import blank, buf, points, put

RULES = {RULE_FREESTYLE: FREESTYLE, RULE_EXACT: EXACT_FIVE, RULE_CARO: CARO, RULE_CARO_EXACT: CARO_EXACT, RULE_RENJU: RENJU}
FOUL_OF = {None: FOUL_NONE, Ending.FOUL_DOUBLE_FOUR: FOUL_DOUBLE_FOUR, Ending.FOUL_DOUBLE_THREE: FOUL_DOUBLE_THREE, Ending.FOUL_OVERLINE: FOUL_OVERLINE}


def at(rows, x, y, rule=RULE_RENJU):
    board, _ = board_from_rows(rows, rule=rule)
    return board, to_pos(board, x, y)


# --- renju -----------------------------------------------------------------------------------

def test_double_three_is_a_foul():
    rows = put(blank(), [(5, 7), (6, 7), (7, 8), (7, 9)], "x")
    board, p = at(rows, 7, 7)
    assert renju_foul(board, p) == FOUL_DOUBLE_THREE
    assert move_outcome(board, p, BLACK) == -1
    assert move_outcome(board, p, WHITE) == 0  # white is never restricted


def test_double_three_allowed_when_a_key_point_is_itself_forbidden():
    # horizontal three 5,6,[7] on row 7: its only straight-four key point (4,7) is an overline point
    # for black (column 4: XXX.XX), and (8,7) gives no straight four because of the stone on (10,7).
    base = put(blank(), [(5, 7), (6, 7), (10, 7), (7, 8), (7, 9)], "x")
    rows = put(base, [(4, 4), (4, 5), (4, 6), (4, 8), (4, 9)], "x")
    board, p = at(rows, 7, 7)
    assert renju_foul(board, to_pos(board, 4, 7)) == FOUL_OVERLINE
    assert renju_foul(board, p) == FOUL_NONE
    ref = referee.Board.from_rows(rows)
    assert referee.renju_foul(ref, 7, 7) is None
    # without the overline trap the same shape is a double three
    board2, p2 = at(base, 7, 7)
    assert renju_foul(board2, p2) == FOUL_DOUBLE_THREE


@pytest.mark.parametrize(
    "line, x",
    [
        ("...x.xxx.x.....", 6),  # X.XXX.X, new stone in the middle
        ("..xx.xx.xx.....", 5),  # XX.XX.XX, new stone one of the middle pair
        ("xxx.x.xxx......", 4),  # XXX.X.XXX, new stone the lone middle one
    ],
)
def test_double_four_on_one_line(line, x):
    rows = blank()
    rows[7] = line
    if line[x] == "x":  # the "new stone" is one of the inner stones: take it off first
        rows[7] = line[:x] + "." + line[x + 1 :]
    board, p = at(rows, x, 7)
    assert renju_foul(board, p) == FOUL_DOUBLE_FOUR
    assert move_outcome(board, p, WHITE) == 0


def test_exact_five_wins_despite_double_four():
    rows = put(blank(), [(3, 7), (4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6), (4, 4), (5, 5), (6, 6)], "x")
    board, p = at(rows, 7, 7)
    assert renju_foul(board, p) == FOUL_NONE
    assert move_outcome(board, p, BLACK) == 1


def test_overline_foul_for_black_win_for_white():
    rows = blank()
    rows[7] = "...xxx.xx......"
    board, p = at(rows, 6, 7)
    assert renju_foul(board, p) == FOUL_OVERLINE
    assert move_outcome(board, p, BLACK) == -1
    rows[7] = "...ooo.oo......"
    board, p = at(rows, 6, 7)
    assert move_outcome(board, p, WHITE) == 1
    assert is_win_move(board, p, WHITE)


def test_forbidden_points_lists_every_foul():
    rows = put(blank(), [(5, 7), (6, 7), (7, 8), (7, 9)], "x")
    board, _ = at(rows, 0, 0)
    out = buf(board)
    found = points(board, out, forbidden_points(board, out))
    ref = referee.Board.from_rows(rows)
    expected = {(x, y) for y in range(15) for x in range(15) if ref.get(x, y) == 0 and referee.renju_foul(ref, x, y) is not None}
    assert found == expected and (7, 7) in found
    free, _ = board_from_rows(rows, rule=RULE_FREESTYLE)
    assert forbidden_points(free, out) == 0


# --- other rules -------------------------------------------------------------------------------

def test_overline_under_freestyle_and_exact():
    rows = blank()
    rows[7] = "...xxx.xx......"
    for rule, wins in ((RULE_FREESTYLE, True), (RULE_EXACT, False), (RULE_CARO, True), (RULE_CARO_EXACT, False)):
        board, p = at(rows, 6, 7, rule)
        assert bool(is_win_move(board, p, BLACK)) is wins, rule


def test_caro_five_blocked_at_both_ends_does_not_win():
    rows = blank()
    rows[7] = "..oxxxx.o......"
    for rule, wins in ((RULE_CARO, False), (RULE_CARO_EXACT, False), (RULE_FREESTYLE, True), (RULE_EXACT, True)):
        board, p = at(rows, 7, 7, rule)
        assert bool(is_win_move(board, p, BLACK)) is wins, rule


def test_caro_five_at_the_edge_wins():
    rows = blank()
    rows[7] = "xxxx.o........."
    board, p = at(rows, 4, 7, RULE_CARO)
    assert is_win_move(board, p, BLACK)
    rows[7] = "oxxxx.o........"
    board, p = at(rows, 5, 7, RULE_CARO)
    assert not is_win_move(board, p, BLACK)


def test_caro_blocked_squares_do_not_block():
    rows = blank()
    rows[7] = "..#xxxx.o......"
    board, p = at(rows, 7, 7, RULE_CARO)
    assert is_win_move(board, p, BLACK)


def test_small_k_and_tictactoe():
    board, _ = board_from_rows(["x.o", "x.o", "..."], k=3)
    assert is_win_move(board, to_pos(board, 0, 2), BLACK)
    assert is_win_move(board, to_pos(board, 2, 2), WHITE)
    assert not is_win_move(board, to_pos(board, 1, 1), BLACK)


# --- random positions against the referee ------------------------------------------------------

@st.composite
def positions(draw):
    rule = draw(st.sampled_from(sorted(RULES)))
    k = 5 if rule == RULE_RENJU else draw(st.sampled_from([3, 4, 5, 5, 6]))
    width = draw(st.integers(max(k, 5), 11))
    height = draw(st.integers(max(k, 5), 11))
    n = draw(st.integers(0, width * height // 2))
    cells = draw(st.lists(st.tuples(st.integers(0, width - 1), st.integers(0, height - 1), st.sampled_from([1, 1, 2, 2, 3])), max_size=n))
    seen, stones = set(), []
    for x, y, c in cells:
        if (x, y) not in seen:
            seen.add((x, y))
            stones.append((x, y, c))
    return rule, k, width, height, stones


@settings(max_examples=120, deadline=None)
@given(positions())
def test_wins_and_fouls_match_the_referee(case):
    rule, k, width, height, stones = case
    board = board_from_stones(width, height, stones, k, rule)
    ref = referee.Board(width, height)
    for x, y, c in stones:
        ref.set(x, y, c)
    for y in range(height):
        for x in range(width):
            if ref.get(x, y) != 0:
                continue
            p = to_pos(board, x, y)
            for colour in (BLACK, WHITE):
                assert bool(is_win_move(board, p, colour)) == referee.makes_win(ref, x, y, colour, RULES[rule], k), (x, y, colour)
            if rule == RULE_RENJU:
                assert renju_foul(board, p) == FOUL_OF[referee.renju_foul(ref, x, y, k)], (x, y)
