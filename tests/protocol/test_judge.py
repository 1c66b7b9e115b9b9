"""The rules judge (protocol reference §11): hand-built positions with known answers for every rule,
a window-based oracle for wins, and random positions cross-checked against the numba core."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.judge import (
    BLACK,
    BLOCKED,
    OFF_BOARD,
    WHITE,
    Board,
    Foul,
    forbidden_points,
    has_win,
    makes_win,
    renju_foul,
    winning_squares,
)
from protocol.rules import CARO, CARO_EXACT, EXACT_FIVE, FREESTYLE, RENJU, Rules

ALL_RULES = [FREESTYLE, EXACT_FIVE, RENJU, CARO, CARO_EXACT]
ROW = 7


def board_with(black=(), white=(), size=(15, 15)) -> Board:
    return Board(*size, [(x, y, BLACK) for x, y in black] + [(x, y, WHITE) for x, y in white])


def row(*xs: int) -> list[tuple[int, int]]:
    return [(x, ROW) for x in xs]


# ----------------------------------------------------------------------------- the board

def test_board_from_rows_stones_and_edges() -> None:
    board = Board.from_rows(["x.o", "#..", "..X"])
    assert (board.width, board.height, board.stones) == (3, 3, 4)
    assert board.get(0, 0) == BLACK and board.get(2, 0) == WHITE and board.get(0, 1) == BLOCKED and board.get(2, 2) == BLACK
    assert board.get(-1, 0) == OFF_BOARD and board.get(3, 2) == OFF_BOARD and board.get(0, 3) == OFF_BOARD
    assert board.empties() == [(1, 0), (1, 1), (2, 1), (0, 2), (1, 2)]
    copy = board.copy()
    copy.set(1, 0, WHITE)
    assert board.get(1, 0) == 0 and copy.stones == 5 and not copy.is_full()
    copy.set(0, 0, 0)
    assert copy.stones == 4
    with pytest.raises(ValueError):
        Board(0, 5)


# ----------------------------------------------------------------------------- wins

@pytest.mark.parametrize(
    "rules, black, expected",
    [
        (FREESTYLE, row(3, 4, 5, 6), True),  # five
        (FREESTYLE, row(3, 4, 5, 6, 8), True),  # six
        (FREESTYLE, row(4, 5, 6), False),  # four
        (EXACT_FIVE, row(3, 4, 5, 6), True),
        (EXACT_FIVE, row(3, 4, 5, 6, 8), False),  # overline wins nothing
        (RENJU, row(3, 4, 5, 6, 8), False),  # black overline is no win (it is a foul)
    ],
)
def test_black_line_at_x7(rules: Rules, black, expected: bool) -> None:
    assert makes_win(board_with(black), 7, ROW, BLACK, rules) is expected


def test_white_overline_wins_in_renju_but_not_in_exact_five() -> None:
    board = board_with(white=row(3, 4, 5, 6, 8))
    assert makes_win(board, 7, ROW, WHITE, RENJU)
    assert not makes_win(board, 7, ROW, WHITE, EXACT_FIVE)


def test_lines_in_every_direction() -> None:
    for squares in ([(7, y) for y in range(3, 7)], [(i, i) for i in range(3, 7)], [(14 - i, i) for i in range(3, 7)]):
        board = board_with(squares)
        tail = squares[-1]
        dx, dy = squares[1][0] - squares[0][0], squares[1][1] - squares[0][1]
        assert makes_win(board, tail[0] + dx, tail[1] + dy, BLACK, FREESTYLE)
        assert not makes_win(board, tail[0] + 2 * dx, tail[1] + 2 * dy, BLACK, FREESTYLE)


def test_five_overline_and_caro_on_text_rows() -> None:
    board = Board.from_rows(["xxxx.x.........", "..............."])
    assert makes_win(board, 4, 0, BLACK, FREESTYLE)  # six in a row wins in freestyle
    assert not makes_win(board, 4, 0, BLACK, EXACT_FIVE)
    assert not makes_win(board, 4, 0, BLACK, RENJU)  # black overline is no five in renju
    board = Board.from_rows(["oxxxx.o........"])
    assert makes_win(board, 5, 0, BLACK, FREESTYLE)
    assert not makes_win(board, 5, 0, BLACK, CARO)  # blocked at both ends
    board = Board.from_rows(["xxxx.o........."])
    assert makes_win(board, 4, 0, BLACK, CARO)  # the board edge does not block
    board = Board.from_rows(["oxxxx.xo......."])
    assert makes_win(board, 5, 0, BLACK, CARO)  # an overline wins regardless under rule 8
    assert not makes_win(board, 5, 0, BLACK, CARO_EXACT)


def test_caro_blocked_both_ends_is_no_win_but_edge_does_not_block() -> None:
    both = board_with(row(3, 4, 5, 6), white=row(2, 8))
    assert not makes_win(both, 7, ROW, BLACK, CARO)
    assert makes_win(both, 7, ROW, BLACK, FREESTYLE)
    one = board_with(row(3, 4, 5, 6), white=row(2))
    assert makes_win(one, 7, ROW, BLACK, CARO)
    edge = board_with(row(1, 2, 3, 4), white=row(6))  # x=0 completes 0..4: edge + white
    assert makes_win(edge, 0, ROW, BLACK, CARO)
    edge = board_with(row(1, 2, 3, 4), white=row(5))  # the same with the white stone right at the end
    assert makes_win(edge, 0, ROW, BLACK, CARO) and makes_win(edge, 0, ROW, BLACK, CARO_EXACT)


def test_caro_blocked_squares_do_not_block() -> None:
    board = Board.from_rows(["..#xxxx.o......"])
    assert makes_win(board, 7, 0, BLACK, CARO) and makes_win(board, 7, 0, BLACK, CARO_EXACT)


def test_caro_overline_wins_with_code_8_not_with_9() -> None:
    board = board_with(row(3, 4, 5, 6, 8), white=row(2, 9))
    assert makes_win(board, 7, ROW, BLACK, CARO)
    assert not makes_win(board, 7, ROW, BLACK, CARO_EXACT)
    exact = board_with(row(3, 4, 5, 6), white=row(9))
    assert makes_win(exact, 7, ROW, BLACK, CARO_EXACT)


def test_other_win_lengths_and_rectangular_boards() -> None:
    board = Board(7, 4)  # width 7, height 4
    for x in range(3):
        board.set(x, 3, BLACK)
    assert makes_win(board, 3, 3, BLACK, FREESTYLE, k=4)
    assert not makes_win(board, 3, 3, BLACK, FREESTYLE, k=5)
    board.set(6, 0, WHITE)
    board.set(5, 1, WHITE)
    assert makes_win(board, 4, 2, WHITE, FREESTYLE, k=3)  # anti-diagonal at the corner


def test_one_square_wide_boards() -> None:
    column = Board(1, 6, [(0, y, BLACK) for y in (0, 1, 3)])
    assert makes_win(column, 0, 2, BLACK, FREESTYLE, k=4)
    assert not makes_win(column, 0, 4, BLACK, FREESTYLE, k=4)
    line = Board(6, 1, [(x, 0, WHITE) for x in (1, 2, 3)])
    assert winning_squares(line, WHITE, EXACT_FIVE, k=4) == [(0, 0), (4, 0)]


def test_has_win_and_winning_squares() -> None:
    board = Board.from_rows([".....", ".ooo.", "xxxxx", ".....", "....."])
    assert has_win(board, BLACK, FREESTYLE) and not has_win(board, WHITE, FREESTYLE)
    board = Board.from_rows(["......", ".oooo.", "xxx...", "......", "......", "......"])
    assert winning_squares(board, WHITE, FREESTYLE) == [(0, 1), (5, 1)]
    assert winning_squares(board, BLACK, FREESTYLE) == []
    assert winning_squares(Board(2, 2, [(0, 0, BLACK)]), WHITE, FREESTYLE, k=1) == [(1, 0), (0, 1), (1, 1)]
    overline = Board.from_rows(["xxxxxx", "......"])
    assert has_win(overline, BLACK, FREESTYLE) and not has_win(overline, BLACK, EXACT_FIVE)
    assert not has_win(overline, BLACK, RENJU) and has_win(Board.from_rows(["oooooo"]), WHITE, RENJU)


# ----------------------------------------------------------------------------- renju fouls

@pytest.mark.parametrize(
    "rows, point, foul",
    [
        (["xxx.xx........."], (3, 0), Foul.OVERLINE),
        # double three at (7,7): (5,7),(6,7) on the row and (7,5),(7,6) on the column
        ([".........."] * 5 + [".......x..", ".......x..", ".....xx...", "..........", ".........."], (7, 7), Foul.DOUBLE_THREE),
        # two fours on one line: x.x.x.x, playing the middle gap gives x.xxx.x
        (["x.x.x.x........"], (3, 0), Foul.DOUBLE_FOUR),
        (["xx..x.xx......."], (3, 0), Foul.DOUBLE_FOUR),  # -> xx.xx.xx
        (["xx.x.xx........"], (2, 0), None),  # -> xxxx.xx: the gap would make seven, not five
        (["..xxx.........."], (5, 0), None),  # a single straight four is legal
    ],
)
def test_renju_fouls_on_text_rows(rows, point, foul) -> None:
    assert renju_foul(Board.from_rows(rows), *point) is foul


def test_scattered_stones_make_no_foul() -> None:
    assert forbidden_points(Board.from_rows([".......", "..x.x..", "...x...", "..x....", "......."])) == []


def test_renju_double_three() -> None:
    board = board_with(row(5, 6) + [(7, 5), (7, 6)])
    assert renju_foul(board, 7, ROW) is Foul.DOUBLE_THREE
    assert board.get(7, ROW) == 0 and board.stones == 4  # left unchanged


def test_renju_split_three_counts() -> None:
    board = board_with(row(4, 6) + [(7, 5), (7, 6)])  # .X.XX. horizontally after x=7
    assert renju_foul(board, 7, ROW) is Foul.DOUBLE_THREE


def test_renju_four_three_is_legal() -> None:
    board = board_with(row(4, 5, 6) + [(7, 5), (7, 6)])
    assert renju_foul(board, 7, ROW) is None
    # four on the row (3..6) and three on the column (6,5),(6,6),(6,7)
    board = board_with(row(3, 4, 5) + [(6, 5), (6, 6)])
    assert renju_foul(board, 6, ROW) is None


def test_renju_blocked_three_is_not_a_three() -> None:
    board = board_with(row(5, 6) + [(7, 5), (7, 6)], white=row(4, 9))
    # horizontally: O X X X . O -> no straight four reachable
    assert renju_foul(board, 7, ROW) is None


def test_renju_double_four_across_lines() -> None:
    board = board_with(row(4, 5, 6) + [(7, 4), (7, 5), (7, 6)], white=row(3) + [(7, 3)])
    assert renju_foul(board, 7, ROW) is Foul.DOUBLE_FOUR


@pytest.mark.parametrize(
    "stones, move",
    [
        (row(3, 5, 7, 9), 6),  # X.XXX.X, new stone inside
        (row(2, 3, 5, 6, 8, 9), 5),  # XX.XX.XX
        (row(1, 2, 3, 5, 7, 8, 9), 5),  # XXX.X.XXX
    ],
)
def test_renju_double_four_on_one_line(stones, move: int) -> None:
    stones = [s for s in stones if s != (move, ROW)]
    assert renju_foul(board_with(stones), move, ROW) is Foul.DOUBLE_FOUR


def test_straight_four_is_one_four() -> None:
    assert renju_foul(board_with(row(4, 5, 6)), 7, ROW) is None


def test_renju_overline_and_exact_five_precedence() -> None:
    assert renju_foul(board_with(row(2, 3, 4, 5, 6)), 7, ROW) is Foul.OVERLINE
    # five horizontally + what would be a double four elsewhere: the five wins
    board = board_with(row(3, 4, 5, 6) + [(8, 4), (8, 5), (8, 6), (9, 8), (10, 9), (11, 10)], white=[(8, 3), (6, 5)])
    assert renju_foul(board, 7, ROW) is None
    assert (7, ROW) in winning_squares(board, BLACK, RENJU)
    # an exact five on the row beats an overline on the column
    board = Board(15, 15, [(x, 7, BLACK) for x in (2, 3, 4, 5)] + [(6, y, BLACK) for y in (2, 3, 4, 5, 6)])
    assert renju_foul(board, 6, 7) is None
    board.set(2, 7, 0)
    assert renju_foul(board, 6, 7) is Foul.OVERLINE


def test_renju_three_whose_key_point_is_forbidden_is_not_a_three() -> None:
    # horizontally O . X X m . . : the only key point for a straight four is (8,7); vertically m makes a three too
    base_black = row(5, 6) + [(7, 5), (7, 6)]
    white = row(3)
    board = board_with(base_black, white)
    assert renju_foul(board, 7, ROW) is Foul.DOUBLE_THREE
    # add stones that make (8,7) a double three (vertical split three + anti-diagonal three): the horizontal three is fake
    board = board_with(base_black + [(8, 9), (8, 10), (9, 6), (10, 5)], white)
    board.set(7, ROW, BLACK)
    assert renju_foul(board, 8, ROW) is Foul.DOUBLE_THREE
    board.set(7, ROW, 0)
    assert renju_foul(board, 7, ROW) is None


def test_forbidden_points_lists_only_fouls() -> None:
    board = Board(15, 15, [(5, 7, BLACK), (6, 7, BLACK), (7, 5, BLACK), (7, 6, BLACK)])
    points = forbidden_points(board)
    assert (7, 7) in points and points == sorted(points, key=lambda p: (p[1], p[0]))
    assert all(renju_foul(board, x, y) is not None for x, y in points)


def test_renju_foul_wants_an_empty_square_of_the_board() -> None:
    board = board_with(row(5))
    with pytest.raises(ValueError):
        renju_foul(board, 5, ROW)
    with pytest.raises(ValueError):
        renju_foul(board, 15, 0)


# ----------------------------------------------------------------------------- wins against a window-based oracle

def _window_oracle(board: Board, x: int, y: int, colour: int, rules: Rules, k: int) -> bool:
    """Winning lines described with fixed-length windows instead of maximal runs (an independent formulation)."""
    opponent = WHITE if colour == BLACK else BLACK

    def cell(cx: int, cy: int) -> int | None:
        if (cx, cy) == (x, y):
            return colour
        return board.get(cx, cy) if board.inside(cx, cy) else None

    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for length in (k, k + 1):
            for shift in range(length):
                sx, sy = x - shift * dx, y - shift * dy
                squares = [(sx + i * dx, sy + i * dy) for i in range(length)]
                if not all(cell(cx, cy) == colour for cx, cy in squares):
                    continue
                before = cell(sx - dx, sy - dy)
                after = cell(sx + length * dx, sy + length * dy)
                exact = length == k and before != colour and after != colour
                if length == k + 1:  # an overline exists through (x, y)
                    if rules.renju:
                        if colour == WHITE:
                            return True
                    elif rules.caro:
                        if not rules.exact_five:
                            return True
                    elif not rules.exact_five:
                        return True
                    continue
                if rules.renju:
                    if colour == WHITE or exact:
                        return True
                elif rules.caro:
                    if exact and not (before == opponent and after == opponent):
                        return True
                elif rules.exact_five:
                    if exact:
                        return True
                else:
                    return True
    return False


@settings(max_examples=300, deadline=None)
@given(
    cells=st.lists(st.sampled_from([0, 0, 1, 1, 2]), min_size=49, max_size=49),
    x=st.integers(0, 6),
    y=st.integers(0, 6),
    colour=st.sampled_from([BLACK, WHITE]),
    rules=st.sampled_from(ALL_RULES),
    k=st.sampled_from([3, 4, 5]),
)
def test_makes_win_agrees_with_a_window_oracle(cells, x, y, colour, rules, k) -> None:
    board = Board(7, 7, [(i % 7, i // 7, c) for i, c in enumerate(cells) if c])
    board.set(x, y, 0)
    assert makes_win(board, x, y, colour, rules, k) == _window_oracle(board, x, y, colour, rules, k)


# ----------------------------------------------------------------------------- against the numba core

# the core is imported lazily: it costs numba, which the rest of this file must not need
FOULS = {None: 0, Foul.DOUBLE_FOUR: 1, Foul.DOUBLE_THREE: 2, Foul.OVERLINE: 3}  # core FOUL_* codes


def _core_rule(rules: Rules) -> int:
    from gomocup_bot.core import constants as c

    return {FREESTYLE: c.RULE_FREESTYLE, EXACT_FIVE: c.RULE_EXACT, CARO: c.RULE_CARO,
            CARO_EXACT: c.RULE_CARO_EXACT, RENJU: c.RULE_RENJU}[rules]


def _compare_with_core(width: int, height: int, k: int, rules: Rules, stones: list[tuple[int, int, int]]) -> list[Foul | None]:
    """Assert the judge and the core agree on every square; return the judge's fouls (renju) for counting."""
    import numpy as np

    from gomocup_bot.core.board import board_from_stones, pos_x, pos_y, to_pos
    from gomocup_bot.core.rules import forbidden_points as core_forbidden
    from gomocup_bot.core.rules import is_win_move
    from gomocup_bot.core.rules import renju_foul as core_foul

    core = board_from_stones(width, height, stones, k, _core_rule(rules))
    board = Board(width, height, stones)
    fouls = []
    for y in range(height):
        for x in range(width):
            p = to_pos(core, x, y)
            held = board.get(x, y)
            for colour in (BLACK, WHITE):
                if held in (0, colour):  # empty squares, and stones asking "is this stone in a win"
                    assert makes_win(board, x, y, colour, rules, k) == bool(is_win_move(core, p, colour)), (x, y, colour)
            if rules.renju and held == 0:
                foul = renju_foul(board, x, y, k)
                assert FOULS[foul] == core_foul(core, p), (x, y, foul)
                fouls.append(foul)
    for colour in (BLACK, WHITE):
        in_core = any(bool(is_win_move(core, to_pos(core, x, y), colour)) for x, y, s in stones if s == colour)
        assert has_win(board, colour, rules, k) == in_core
    if rules.renju:
        out = np.zeros(width * height + 1, dtype=np.int32)
        n = core_forbidden(core, out)
        core_points = sorted((int(pos_x(core, p)), int(pos_y(core, p))) for p in out[:n])
        assert sorted(forbidden_points(board, k)) == core_points
    return fouls


@st.composite
def positions(draw):
    """A board (15x15 or small, square or not), rules, k and stones clustered so lines form."""
    rules = draw(st.sampled_from(ALL_RULES))
    k = draw(st.sampled_from([4, 5, 5, 6])) if rules.renju else draw(st.sampled_from([3, 4, 5, 5, 6]))
    if draw(st.booleans()):
        width = height = 15
    else:
        width, height = draw(st.integers(max(k, 5), 11)), draw(st.integers(max(k, 5), 11))
    cx, cy = draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1))
    spread = draw(st.integers(2, 7))
    n = draw(st.integers(0, 60))
    raw = draw(st.lists(st.tuples(st.integers(-spread, spread), st.integers(-spread, spread),
                                  st.sampled_from([1, 1, 1, 2, 2, 3])), max_size=n))
    stones, seen = [], set()
    for dx, dy, colour in raw:
        x, y = min(width - 1, max(0, cx + dx)), min(height - 1, max(0, cy + dy))
        if (x, y) not in seen:
            seen.add((x, y))
            stones.append((x, y, colour))
    return width, height, k, rules, stones


@settings(max_examples=150, deadline=None)
@given(positions())
def test_judge_agrees_with_the_numba_core(case) -> None:
    _compare_with_core(*case)


def test_core_cross_check_meets_every_foul() -> None:
    """Seeded renju positions dense enough that all three fouls occur, so the comparison is not vacuous."""
    rng = random.Random(0)
    seen = []
    for _ in range(20):
        cx, cy = rng.randrange(4, 11), rng.randrange(4, 11)
        stones = {}
        for _ in range(rng.randrange(15, 45)):
            stones[(cx + rng.randint(-4, 4), cy + rng.randint(-4, 4))] = rng.choice([BLACK, BLACK, WHITE])
        seen += _compare_with_core(15, 15, 5, RENJU, [(x, y, c) for (x, y), c in stones.items()])
    assert {Foul.DOUBLE_FOUR, Foul.DOUBLE_THREE, Foul.OVERLINE} <= set(seen)
