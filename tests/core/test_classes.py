"""Four-direction threat classes: what the board's pattern layer says of known shapes, and the
renju foul shapes."""
from __future__ import annotations

import numpy as np
import pytest

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
from gomocup_bot.core.constants import (
    BLACK,
    L_ONE_OPEN,
    L_TWO_FLEX,
    L_TWO_OPEN,
    P_ONE,
    P_TWO,
    RULE_FREESTYLE,
    RULE_RENJU,
    WHITE,
)
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


def test_renju_same_line_double_four_is_marked_not_an_open_four():
    # x . x X x . x on row 7: (7, 7) makes two fours on one line -- a foul, not an open four
    rows = put(blank(), [(4, 7), (6, 7), (8, 7), (10, 7)], "x")
    renju, _ = board_from_rows(rows, rule=RULE_RENJU)
    assert cls(renju, BLACK, 7, 7) == C_FORBID and not is_legal(renju, to_pos(renju, 7, 7), BLACK)
    free, _ = board_from_rows(rows, rule=RULE_FREESTYLE)
    assert cls(free, BLACK, 7, 7) == C_FLEX4
    # a real open four from an open three stays one for renju black
    renju, _ = board_from_rows(put(blank(), [(5, 7), (6, 7), (7, 7)], "x"), rule=RULE_RENJU)
    assert cls(renju, BLACK, 4, 7) == C_FLEX4 and cls(renju, BLACK, 8, 7) == C_FLEX4


def test_renju_every_black_foul_square_is_classed_forbid():
    """The class layer never hides a foul: on crowded random renju boards each square the exact
    check forbids for black is `C_FORBID` (the one class the search sends to that check)."""
    rng = np.random.default_rng(7)
    fouls = 0
    for _ in range(60):
        rows = ["".join(rng.choice(list(".xo"), p=[0.6, 0.25, 0.15]) for _ in range(15)) for _ in range(15)]
        board, _ = board_from_rows(rows, rule=RULE_RENJU)
        for p in np.flatnonzero(board.cells == 0):
            if not is_legal(board, int(p), BLACK):
                fouls += 1
                assert board.cls[0, p] == C_FORBID, CLASS_NAMES[board.cls[0, p]]
    assert fouls >= 30  # the boards really hold fouls


# The evaluation's finer twos and ones (`tables.refine_code`): each line below is row 7 of an
# otherwise empty 15x15 board; `*` is the empty square whose horizontal code (for black) is read.
# The expected codes were worked out by hand from the definitions: an open two has one or two
# cells that make an open three with it, a flexible two three or more, a closed two none; an open
# one has two or more cells that make it an open two.
FINER_CODES = [
    ("......x*.......", L_TWO_FLEX),  # XX in the open: 5 and 8 (straight), 4 and 9 (broken) make open threes
    ("......ox*......", P_TWO),  # blocked on the left: every three it can become is closed
    ("...o.x*..o.....", P_TWO),  # five cells between the white stones: room for a five, never an open four
    ("...o.x*........", L_TWO_OPEN),  # white two cells to the left: only 7 and 8 make open threes
    (".......*.......", L_ONE_OPEN),  # a lone stone in the open
    ("......o*....o..", P_ONE),  # exactly five cells of room: nothing it becomes is ever open
    ("#...*.#........", P_ONE),  # the same between two blocked squares
]


@pytest.mark.parametrize("row, code", FINER_CODES)
def test_finer_twos_and_ones_in_the_layer(row: str, code: int) -> None:
    rows = ["." * 15] * 15
    rows[7] = row.replace("*", ".")
    board, _ = board_from_rows(rows)
    p = to_pos(board, row.index("*"), 7)
    assert int(board.lc[0, p]) == code  # black (row 0 of the layer), direction 0 (horizontal)


def test_finer_codes_do_not_change_the_classes() -> None:
    """The threat classes read an open or flexible two as a two and an open one as a one."""
    from gomocup_bot.core.classes import N_CODES, N_COMBOS, combo_tables

    cls_table = combo_tables(False)[0][0]
    plain = {L_TWO_OPEN: P_TWO, L_TWO_FLEX: P_TWO, L_ONE_OPEN: P_ONE}
    combos = np.arange(N_COMBOS)
    digits = np.stack([(combos // N_CODES**d) % N_CODES for d in range(4)], axis=1)
    mapped = np.vectorize(lambda c: plain.get(int(c), int(c)))(digits)
    back = (mapped * N_CODES ** np.arange(4)).sum(axis=1)
    assert np.array_equal(cls_table, cls_table[back])
