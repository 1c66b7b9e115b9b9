"""The game referee: turns, illegal moves, fouls and draws as Ending reasons.

The rules it applies are `protocol.judge`'s, tested in tests/protocol/test_judge.py.
"""
from __future__ import annotations

from protocol.rules import FREESTYLE, RENJU
from tournament.game.endings import Ending
from tournament.game.referee import BLACK, WHITE, Board, GameReferee, renju_foul

ROW = 7


def board_with(black=(), white=(), size=(15, 15)) -> Board:
    return Board(*size, [(x, y, BLACK) for x, y in black] + [(x, y, WHITE) for x, y in white])


def row(*xs):
    return [(x, ROW) for x in xs]


def test_renju_fouls_are_reported_as_endings() -> None:
    assert renju_foul(board_with(row(5, 6) + [(7, 5), (7, 6)]), 7, ROW) is Ending.FOUL_DOUBLE_THREE
    assert renju_foul(board_with(row(3, 5, 7, 9)), 6, ROW) is Ending.FOUL_DOUBLE_FOUR  # X.XXX.X
    assert renju_foul(board_with(row(2, 3, 4, 5, 6)), 7, ROW) is Ending.FOUL_OVERLINE
    assert renju_foul(board_with(row(4, 5, 6)), 7, ROW) is None


def test_exact_five_beats_a_foul_in_a_game() -> None:
    # five horizontally + what would be a double four elsewhere: the five wins
    board = board_with(row(3, 4, 5, 6) + [(8, 4), (8, 5), (8, 6), (9, 8), (10, 9), (11, 10)], white=[(8, 3), (6, 5)])
    ref = GameReferee(15, 15, RENJU)
    ref.board = board  # black to move (even number of moves recorded)
    verdict = ref.play(7, ROW)
    assert verdict.ending is Ending.FIVE and not verdict.loser_moved


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
