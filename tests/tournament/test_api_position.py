"""The engine API's Position: built on the referee and `protocol.judge`, read from our own exports."""
from __future__ import annotations

import pytest

from protocol import judge
from protocol import messages as m
from protocol.rules import RENJU, Rules
from tournament.game.endings import Ending
from tournament.api.position import BLACK, WHITE, Position, PositionError
from tournament.game.export import to_psq, to_sgf
from tournament.api.position import parse_square
from tournament.game.record import BLACK_WON, GameRecord, MoveRecord

# black fills row 7 from x=3, white row 8: black's fifth stone (7,7) wins
FIVE_GAME = [(3, 7), (3, 8), (4, 7), (4, 8), (5, 7), (5, 8), (6, 7), (6, 8), (7, 7)]


def test_moves_in_every_notation_and_the_side_to_move() -> None:
    a = Position.from_moves([(7, 7), (8, 8)])
    assert a == Position.from_moves("7,7 8,8") == Position.from_moves("h8 i9") == Position.from_moves("h8i9")
    assert a == Position.from_moves(["h8", "8,8"]) == Position().push((7, 7)).push("i9")
    assert a.to_move == BLACK and a.push((0, 0)).to_move == WHITE
    assert a.colour((7, 7)) == BLACK and a.colour((8, 8)) == WHITE and a.colour((0, 0)) == 0
    assert a.stones() == [(7, 7, BLACK), (8, 8, WHITE)]
    assert hash(a) == hash(Position.from_moves("h8 i9")) and a != Position.from_moves("h8 i9", board=19)
    assert Position.from_moves("a1", board=(20, 15)).width == 20 and parse_square("V22", 22, 22) == (21, 21)
    assert parse_square("W1", 22, 22) is None and parse_square("15,0") is not None and parse_square("15,0", 15, 15) is None


@pytest.mark.parametrize(
    "moves, board, rule, reason",
    [
        ([(7, 7), (7, 7)], 15, "freestyle", "occupied"),
        ([(15, 0)], 15, "freestyle", "off the board"),
        (FIVE_GAME + [(0, 0)], 15, "freestyle", "after the game ended"),
        ([(7, 7)], 4, "freestyle", "not supported"),
        ([(7, 7)], 15, "gomoku-ninja", "unknown rule"),
        (["zz"], 15, "freestyle", "cannot read"),
        ([(1.5, 2)], 15, "freestyle", "whole numbers"),
    ],
)
def test_impossible_positions_are_refused(moves, board, rule, reason) -> None:
    with pytest.raises(PositionError, match=reason):
        Position.from_moves(moves, board=board, rule=rule)


def test_a_five_ends_the_game_and_says_who_won() -> None:
    done = Position.from_moves(FIVE_GAME)
    assert done.is_over() and done.ending is Ending.FIVE and done.winner() == BLACK
    assert done.legal_moves() == [] and not done.is_legal((0, 0))
    with pytest.raises(PositionError, match="after the game ended"):
        done.push((0, 0))
    with pytest.raises(PositionError, match="the game is over"):
        done.judge((0, 0))
    before = Position.from_moves(FIVE_GAME[:-1])
    assert not before.is_over() and before.winner() is None
    assert before.judge((7, 7)) is Ending.FIVE and before.judge((0, 0)) is None and before.judge((3, 7)) is Ending.OCCUPIED
    # exact five: black's overline wins nothing, and the game goes on
    six = [(3, 7), (3, 8), (4, 7), (4, 8), (6, 7), (6, 8), (7, 7), (7, 8), (8, 7), (0, 0)]
    assert Position.from_moves(six, rule="standard").judge((5, 7)) is None
    assert Position.from_moves(six, rule="freestyle").judge((5, 7)) is Ending.FIVE


def test_renju_fouls_come_from_the_judge() -> None:
    # black stones at (6,7), (8,7), (7,6), (7,8) with whites far away: (7,7) makes two open threes
    moves = [(6, 7), (0, 0), (8, 7), (0, 2), (7, 6), (0, 4), (7, 8), (0, 6)]
    pos = Position.from_moves(moves, rule="renju")
    assert pos.rules == RENJU and pos.to_move == BLACK
    assert not pos.is_legal((7, 7)) and pos.judge((7, 7)) is Ending.FOUL_DOUBLE_THREE
    assert (7, 7) in pos.forbidden() and (7, 7) not in pos.legal_moves()
    board = pos.board()
    assert pos.forbidden() == judge.forbidden_points(board)
    with pytest.raises(PositionError, match="double three"):
        pos.push((7, 7))
    with pytest.raises(PositionError, match="double three"):
        Position.from_moves(moves + [(7, 7)], rule="renju")
    free = Position.from_moves(moves)
    assert free.is_legal((7, 7)) and free.forbidden() == []
    # white may play there in renju (no restriction), the judge agrees
    assert pos.push((1, 1)).is_legal((7, 7)) is True


def test_position_commands_are_what_the_tournament_sends() -> None:
    assert Position().command() == m.Begin()
    pos = Position.from_moves("h8 i9 j10")  # white to move: its own stone is field 1
    assert pos.command() == m.Board(((7, 7, 2), (8, 8, 1), (9, 9, 2)))


def _record(moves: list[tuple[int, int]], **kw) -> GameRecord:
    return GameRecord(black="b", white="w", width=kw.get("width", 15), height=kw.get("height", 15), rule=kw.get("rule", 0),
                      win_length=5, result=BLACK_WON, ending=Ending.FIVE, detail="",
                      moves=[MoveRecord(x, y, 10) for x, y in moves], opening_stones=3)


def test_our_psq_and_sgf_exports_read_back() -> None:
    record = _record(FIVE_GAME, width=20, height=20)
    psq = Position.from_psq(to_psq(record))
    assert (psq.width, psq.height, psq.moves) == (20, 20, tuple(FIVE_GAME)) and psq.winner() == BLACK
    sgf = Position.from_sgf(to_sgf(record))
    assert sgf == psq
    renju = Position.from_sgf(to_sgf(_record([(7, 7), (8, 8), (9, 6)], rule=4, width=15, height=20)))
    assert renju.rules == Rules(renju=True) and (renju.width, renju.height) == (15, 20)
    assert Position.from_psq(to_psq(_record([(7, 7)])), rule="renju").rules == RENJU


def test_sgf_main_line_variations_and_refusals() -> None:
    text = "(;GM[4]SZ[15]PB[a\\]b];B[hh]C[note [x\\]];W[ii](;B[jj];W[kk])(;B[aa]))"
    assert Position.from_sgf(text).moves == ((7, 7), (8, 8), (9, 9), (10, 10))
    with pytest.raises(PositionError, match="setup stones"):
        Position.from_sgf("(;GM[4]SZ[15]AB[hh][ii];W[jj])")
    with pytest.raises(PositionError, match="expected a B move"):
        Position.from_sgf("(;GM[4]SZ[15];W[hh])")
    with pytest.raises(PositionError, match="not gomoku"):
        Position.from_sgf("(;GM[1]SZ[19];B[dd])")
    with pytest.raises(PositionError, match="not a PSQ"):
        Position.from_psq("hello\n1,1,0")


def test_the_text_board() -> None:
    text = str(Position.from_moves("a1 b2", board=5))
    assert text.splitlines()[0] == "x . . . ." and text.splitlines()[1] == ". O . . ."
