"""The referee on hand-built positions with known answers (protocol reference §11)."""
from __future__ import annotations

import pytest

from protocol.rules import CARO, CARO_EXACT, EXACT_FIVE, FREESTYLE, RENJU, Rules
from tournament.endings import Ending
from tournament.referee import BLACK, WHITE, Board, GameReferee, makes_win, renju_foul


def board_with(black=(), white=(), size=(15, 15)) -> Board:
    board = Board(*size)
    for x, y in black:
        board.set(x, y, BLACK)
    for x, y in white:
        board.set(x, y, WHITE)
    return board


ROW = 7


def row(*xs):
    return [(x, ROW) for x in xs]


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


def test_caro_blocked_both_ends_is_no_win_but_edge_does_not_block() -> None:
    both = board_with(row(3, 4, 5, 6), white=row(2, 8))
    assert not makes_win(both, 7, ROW, BLACK, CARO)
    assert makes_win(both, 7, ROW, BLACK, FREESTYLE)
    one = board_with(row(3, 4, 5, 6), white=row(2))
    assert makes_win(one, 7, ROW, BLACK, CARO)
    edge = board_with(row(1, 2, 3, 4), white=row(6))  # x=0 completes 0..4: edge + white
    assert makes_win(edge, 0, ROW, BLACK, CARO)


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


def test_renju_double_three() -> None:
    board = board_with(row(5, 6) + [(7, 5), (7, 6)])
    assert renju_foul(board, 7, ROW) is Ending.FOUL_DOUBLE_THREE
    assert board.get(7, ROW) == 0  # left unchanged


def test_renju_split_three_counts() -> None:
    board = board_with(row(4, 6) + [(7, 5), (7, 6)])  # .X.XX. horizontally after x=7
    assert renju_foul(board, 7, ROW) is Ending.FOUL_DOUBLE_THREE


def test_renju_four_three_is_legal() -> None:
    board = board_with(row(4, 5, 6) + [(7, 5), (7, 6)])
    assert renju_foul(board, 7, ROW) is None


def test_renju_blocked_three_is_not_a_three() -> None:
    board = board_with(row(5, 6) + [(7, 5), (7, 6)], white=row(4, 9))
    # horizontally: O X X X . O -> no straight four reachable
    assert renju_foul(board, 7, ROW) is None


def test_renju_double_four_across_lines() -> None:
    board = board_with(row(4, 5, 6) + [(7, 4), (7, 5), (7, 6)], white=row(3) + [(7, 3)])
    assert renju_foul(board, 7, ROW) is Ending.FOUL_DOUBLE_FOUR


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
    board = board_with(stones)
    assert renju_foul(board, move, ROW) is Ending.FOUL_DOUBLE_FOUR


def test_straight_four_is_one_four() -> None:
    board = board_with(row(4, 5, 6))
    assert renju_foul(board, 7, ROW) is None


def test_renju_overline_and_exact_five_precedence() -> None:
    board = board_with(row(2, 3, 4, 5, 6))
    assert renju_foul(board, 7, ROW) is Ending.FOUL_OVERLINE
    # five horizontally + what would be a double four elsewhere: the five wins
    board = board_with(row(3, 4, 5, 6) + [(8, 4), (8, 5), (8, 6), (9, 8), (10, 9), (11, 10)], white=[(8, 3), (6, 5)])
    assert renju_foul(board, 7, ROW) is None
    ref = GameReferee(15, 15, RENJU)
    ref.board = board  # black to move (even number of moves recorded)
    assert ref.play(7, ROW).ending is Ending.FIVE


def test_renju_three_whose_key_point_is_forbidden_is_not_a_three() -> None:
    # horizontally O . X X m . . : the only key point for a straight four is (8,7); vertically m makes a three too
    base_black = row(5, 6) + [(7, 5), (7, 6)]
    white = row(3)
    board = board_with(base_black, white)
    assert renju_foul(board, 7, ROW) is Ending.FOUL_DOUBLE_THREE
    # add stones that make (8,7) a double three (vertical split three + anti-diagonal three): the horizontal three is fake
    board = board_with(base_black + [(8, 9), (8, 10), (9, 6), (10, 5)], white)
    board.set(7, ROW, BLACK)
    assert renju_foul(board, 8, ROW) is Ending.FOUL_DOUBLE_THREE
    board.set(7, ROW, 0)
    assert renju_foul(board, 7, ROW) is None


def test_referee_game_flow_and_illegal_moves() -> None:
    ref = GameReferee(15, 15, FREESTYLE)
    assert ref.play(7, 7).ending is None
    assert ref.play(7, 7).ending is Ending.OCCUPIED
    assert ref.play(15, 0).ending is Ending.OFF_BOARD
    assert ref.play(-1, 3).ending is Ending.OFF_BOARD
    assert ref.to_move == WHITE
    for i in range(4):
        ref.play(0, i)  # white
        verdict = ref.play(8 + i, 7) if i < 3 else ref.play(11, 7)
    assert verdict.ending is Ending.FIVE and not verdict.loser_moved


def test_renju_foul_ends_game_against_black() -> None:
    ref = GameReferee(15, 15, RENJU)
    for black, white in [((5, 7), (0, 0)), ((6, 7), (0, 1)), ((7, 5), (0, 2)), ((7, 6), (0, 3))]:
        assert not ref.play(*black).game_over
        assert not ref.play(*white).game_over
    verdict = ref.play(7, 7)
    assert verdict.ending is Ending.FOUL_DOUBLE_THREE and verdict.loser_moved
    assert ref.board.get(7, 7) == 0


def test_full_board_and_move_limit_draws() -> None:
    ref = GameReferee(3, 3, FREESTYLE, k=5)
    squares = [(x, y) for y in range(3) for x in range(3)]
    verdicts = [ref.play(x, y) for x, y in squares]
    assert all(v.ending is None for v in verdicts[:-1])
    assert verdicts[-1].ending is Ending.FULL_BOARD
    ref = GameReferee(6, 6, FREESTYLE, move_limit=6 * 6 - 25)
    moves = [(x, y) for y in range(0, 6, 2) for x in range(6)][:11]
    verdicts = [ref.play(x, y) for x, y in moves]
    assert verdicts[-1].ending is Ending.MOVE_LIMIT


def test_from_rows() -> None:
    board = Board.from_rows(["x.o", "#..", "..X"])
    assert (board.width, board.height) == (3, 3)
    assert board.get(0, 0) == BLACK and board.get(2, 0) == WHITE and board.get(0, 1) == 3 and board.get(2, 2) == BLACK


# ---------------------------------------------------------------- property check against a window-based oracle
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


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
    rules=st.sampled_from([FREESTYLE, EXACT_FIVE, RENJU, CARO, CARO_EXACT]),
    k=st.sampled_from([3, 4, 5]),
)
def test_makes_win_agrees_with_a_window_oracle(cells, x, y, colour, rules, k) -> None:
    board = Board(7, 7)
    for i, c in enumerate(cells):
        if c:
            board.set(i % 7, i // 7, c)
    board.set(x, y, 0)
    assert makes_win(board, x, y, colour, rules, k) == _window_oracle(board, x, y, colour, rules, k)
