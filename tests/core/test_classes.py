"""Four-direction threat classes: what the board's pattern layer says of known shapes, and the
renju foul shapes."""
from __future__ import annotations

from gomocup_bot.core.board import board_from_rows, to_pos
from gomocup_bot.core.classes import (
    C_DOUBLE3,
    C_FIVE,
    C_FLEX4,
    C_FORBID,
    C_FOUR,
    C_FOUR3,
    C_THREE,
    CLASS_NAMES,
)
from gomocup_bot.core.constants import BLACK, RULE_FREESTYLE, RULE_RENJU, WHITE
from gomocup_bot.core.rules import is_legal

from .conftest import blank, put


def cls(board, colour, x, y):
    return int(board.cls[colour - 1, to_pos(board, x, y)])


def test_shapes_and_their_squares():
    # a closed four for black on row 7: the one completing square is a five square
    board, _ = board_from_rows(put(blank(), [(3, 7), (4, 7), (5, 7), (6, 7)], "x") + [])
    assert cls(board, BLACK, 7, 7) == C_FIVE and cls(board, BLACK, 2, 7) == C_FIVE
    assert board.cnt[0, C_FIVE] == 2  # an open four has two
    # an open three: both ends make an open four
    board, _ = board_from_rows(put(blank(), [(5, 7), (6, 7), (7, 7)], "x"))
    assert cls(board, BLACK, 4, 7) == C_FLEX4 and cls(board, BLACK, 8, 7) == C_FLEX4
    assert cls(board, BLACK, 3, 7) == C_FOUR  # the far square makes a broken four
    assert board.cnt[0, C_FLEX4] == 2
    # a two on a row and a two on a column crossing at an empty square: a double three there
    board, _ = board_from_rows(put(blank(), [(5, 7), (6, 7), (8, 5), (8, 6)], "x"))
    assert cls(board, BLACK, 8, 7) == C_DOUBLE3, CLASS_NAMES[cls(board, BLACK, 8, 7)]
    # a closed three plus an open two crossing: a four-three square
    rows = put(put(blank(), [(4, 7), (5, 7), (6, 7)], "x"), [(3, 7)], "o")
    rows = put(rows, [(7, 5), (7, 6)], "x")
    board, _ = board_from_rows(rows)
    assert cls(board, BLACK, 7, 7) == C_FOUR3, CLASS_NAMES[cls(board, BLACK, 7, 7)]
    # white sees none of black's threats as its own
    assert board.cnt[1, C_FIVE] == 0 and board.cnt[1, C_FLEX4] == 0 and board.cnt[1, C_THREE] == 0


def test_renju_black_foul_shapes_are_marked_and_checked():
    rows = put(blank(), [(5, 7), (6, 7), (8, 5), (8, 6)], "x")
    free, _ = board_from_rows(rows, rule=RULE_FREESTYLE)
    renju, _ = board_from_rows(rows, rule=RULE_RENJU)
    assert cls(free, BLACK, 8, 7) == C_DOUBLE3
    assert cls(renju, BLACK, 8, 7) == C_FORBID  # a double three: black's foul
    assert not is_legal(renju, to_pos(renju, 8, 7), BLACK)
    assert cls(renju, WHITE, 8, 7) != C_FORBID
    # an overline maker for black: five stones with a gap of one next to them
    rows = put(blank(), [(2, 3), (3, 3), (4, 3), (6, 3), (7, 3)], "x")
    renju, _ = board_from_rows(rows, rule=RULE_RENJU)
    assert cls(renju, BLACK, 5, 3) == C_FORBID
    free, _ = board_from_rows(rows, rule=RULE_FREESTYLE)
    assert cls(free, BLACK, 5, 3) == C_FIVE  # freestyle: six in a row wins
