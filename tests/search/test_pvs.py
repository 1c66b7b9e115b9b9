"""The principal-variation search on the pattern layer: forced lines it must see, the root's
threat checks, and the clock."""
from __future__ import annotations

import time

import numpy as np

from gomocup_bot.core.board import board_from_rows, copy_board, make, pos_x, pos_y, to_pos, unmake
from gomocup_bot.core.constants import BLACK, RULE_RENJU, WHITE
from gomocup_bot.search import rootcheck
from gomocup_bot.search.pvs import WIN_BOUND
from gomocup_bot.search.pvs_driver import PvsConfig, PvsSearcher
from gomocup_bot.search.vct import WIN, ThreatSolver
from tests.core.conftest import blank, put

STOP = np.zeros(1, dtype=np.int32)


def xy(board, p):
    return int(pos_x(board, p)), int(pos_y(board, p))


def search(board, side, depth=6, **kw):
    return PvsSearcher(1 << 20, PvsConfig(threads=1, **kw)).search(
        board, side, STOP, soft_deadline=None, hard_deadline=None, max_depth=depth)


def test_blocks_a_four_and_takes_a_five():
    rows = put(put(blank(), [(3, 3), (4, 3), (5, 3), (6, 3)], "x"), [(7, 3)], "o")
    rows = put(rows, [(8, 8), (9, 9), (10, 10)], "o")
    board, _ = board_from_rows(rows)
    out = search(board, WHITE)
    assert xy(board, out.move) == (2, 3)  # the only block
    rows = put(put(blank(), [(3, 3), (4, 3), (5, 3), (6, 3)], "x"), [(8, 8), (9, 9), (10, 10)], "o")
    board, _ = board_from_rows(rows)
    out = search(board, BLACK)
    assert xy(board, out.move) in ((2, 3), (7, 3)) and out.score > WIN_BOUND


def test_defends_an_open_three_on_a_line_that_matters():
    # black's open three on row 7; white has nothing: white must play on the three's line
    rows = put(put(blank(), [(5, 7), (6, 7), (7, 7)], "x"), [(6, 8), (7, 9)], "o")
    board, side = board_from_rows(rows)
    assert side == WHITE
    out = search(board, WHITE, depth=5)
    x, y = xy(board, out.move)
    assert y == 7 and x in (2, 3, 4, 8, 9), (x, y)
    assert out.score > -WIN_BOUND


def test_finds_a_double_three_win():
    # black to move: (8, 7) makes two open threes at once; white has no counter-play
    rows = put(put(blank(), [(5, 7), (6, 7), (8, 5), (8, 6)], "x"), [(0, 0), (14, 14), (0, 14)], "o")
    board, _ = board_from_rows(rows)
    out = search(board, BLACK, depth=7)
    assert out.score > WIN_BOUND


def test_search_restores_the_board_and_honours_the_clock():
    rows = put(put(blank(), [(7, 7), (8, 8), (6, 8)], "x"), [(7, 8), (8, 7), (6, 6)], "o")
    board, side = board_from_rows(rows)
    before = copy_board(board)
    t0 = time.monotonic()
    out = PvsSearcher(1 << 20).search(board, side, STOP, soft_deadline=t0 + 0.15, hard_deadline=t0 + 0.3)
    spent = time.monotonic() - t0
    assert out.move >= 0 and board.cells[out.move] == 0
    assert spent < 0.3 + 0.05
    assert (board.cells == before.cells).all() and (board.keys == before.keys).all()
    assert (board.cnt == before.cnt).all() and board.hash[0] == before.hash[0]


def test_renju_black_never_plays_a_foul():
    # (8, 7) would be black's double three: forbidden under renju, the winning move in freestyle
    rows = put(put(blank(), [(5, 7), (6, 7), (8, 5), (8, 6)], "x"), [(0, 0), (14, 14), (0, 14)], "o")
    board, _ = board_from_rows(rows, rule=RULE_RENJU)
    out = search(board, BLACK, depth=4)
    assert xy(board, out.move) != (8, 7)
    plan = rootcheck.analyse(board, BLACK, STOP, None)
    assert plan.move != to_pos(board, 8, 7)


def test_root_checks_find_the_vct_and_the_defence():
    rows = put(put(blank(), [(5, 7), (6, 7), (8, 5), (8, 6)], "x"), [(0, 0), (14, 14), (0, 14)], "o")
    board, _ = board_from_rows(rows)
    plan = rootcheck.analyse(board, BLACK, STOP, None)
    assert plan.proven == 1 and plan.reason in ("vct", "vcf")
    # white to move in the same position faces that VCT: the plan names it, and every defence it
    # keeps really leaves black without one (checked again with a fresh solver)
    plan = rootcheck.analyse(board, WHITE, STOP, None)
    assert plan.threat and plan.threat[0] == to_pos(board, 8, 7)
    assert plan.allowed is not None or plan.proven == -1
    for q in plan.allowed or []:
        make(board, q, WHITE)
        result, _, _ = ThreatSolver(board).run(board, BLACK, vct=True, max_depth=rootcheck.VCT_DEPTH,
                                               max_nodes=200_000)
        unmake(board)
        assert result != WIN
