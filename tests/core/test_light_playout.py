"""The bit-word light playout against the cell-scanning kernel it replaced (kept here as the
reference): same candidate order and the same rule checks (`rules.line_wins`), so from the same
generator state both must give the same (winner, plies) sequence on every board size, k, rule and
position, and leave the generator in the same state. Plus hand positions with a forced result."""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from gomocup_bot.core.board import board_from_rows, board_from_stones, new_board, to_pos
from gomocup_bot.core.constants import (
    BLACK,
    EMPTY,
    M_HEIGHT,
    M_K,
    M_RULE,
    M_WIDTH,
    RESULT_DRAW,
    RULE_CARO,
    RULE_CARO_EXACT,
    RULE_EXACT,
    RULE_FREESTYLE,
    RULE_RENJU,
    WHITE,
)
from gomocup_bot.core.playouts import light_playout, light_work_size
from gomocup_bot.core.rng import new_rng, rand_below
from gomocup_bot.core.rules import line_wins

RULES = (RULE_FREESTYLE, RULE_EXACT, RULE_CARO, RULE_CARO_EXACT, RULE_RENJU)
IN_SET = 4


@njit(nogil=True)
def reference_light_playout(b, colour, rng, scratch, cand):
    """The light playout of main 00f28e5 verbatim (cells copied to scratch, cell scans)."""
    cells = scratch
    cells[:] = b.cells
    k = b.meta[M_K]
    rule = b.meta[M_RULE]
    s = b.dirs[1]
    n = 0
    w = b.meta[M_WIDTH]
    h = b.meta[M_HEIGHT]
    any_stone = False
    for y in range(h):
        base = to_pos(b, 0, y)
        for x in range(w):
            p = base + x
            v = cells[p]
            if v == EMPTY:
                if b.nbr[p] > 0:
                    cells[p] = IN_SET
                    cand[n] = p
                    n += 1
            elif v != 3:
                any_stone = True
    if not any_stone:
        p = to_pos(b, w // 2, h // 2)
        if cells[p] == EMPTY:
            cells[p] = IN_SET
            cand[n] = p
            n += 1
    side = colour
    plies = 0
    dirs = b.dirs
    one = np.uint64(1)
    while True:
        if n == 0:
            # nothing near the stones: fall back to any empty point, else the board is full
            for y in range(h):
                base = to_pos(b, 0, y)
                for x in range(w):
                    p = base + x
                    if cells[p] == EMPTY:
                        cells[p] = IN_SET
                        cand[n] = p
                        n += 1
            if n == 0:
                return RESULT_DRAW, plies
        # unsigned indices below: numba skips its negative-index branch (1.3x playouts/s)
        i = np.uint64(rand_below(rng, n))
        p = cand[i]
        n -= 1
        cand[i] = cand[np.uint64(n)]
        plies += 1
        won = False
        for d in range(4):
            if line_wins(cells, p, dirs[d], side, k, rule):
                won = True
                break
        cells[np.uint64(p)] = side
        if won:
            return side, plies
        for dy in range(-2, 3):
            q = np.uint64(p + dy * s - 2)
            for dx in range(5):
                if cells[q] == EMPTY:
                    cells[q] = IN_SET
                    cand[np.uint64(n)] = q
                    n += 1
                q += one
        side = 3 - side


def both(board, colour, count, seed):
    """(new results, reference results, rng states) for `count` playouts from the same seed."""
    w, h = int(board.meta[M_WIDTH]), int(board.meta[M_HEIGHT])
    work = np.empty(light_work_size(w, h), dtype=np.uint64)
    cand = np.empty(w * h + 1, dtype=np.int32)
    scratch = np.empty(board.cells.shape[0], dtype=np.int8)
    rng_new, rng_ref = new_rng(seed), new_rng(seed)
    new = [tuple(map(int, light_playout(board, colour, rng_new, work, cand))) for _ in range(count)]
    ref = [tuple(map(int, reference_light_playout(board, colour, rng_ref, scratch, cand))) for _ in range(count)]
    return new, ref, (int(rng_new[0]), int(rng_ref[0]))


def random_position(w, h, k, rule, stones, walls, seed):
    rs = np.random.default_rng(seed)
    cells = [(x, y) for y in range(h) for x in range(w)]
    picks = rs.permutation(len(cells))[: stones + walls]
    placed = [(cells[j][0], cells[j][1], BLACK if i % 2 == 0 else WHITE) for i, j in enumerate(picks[:stones])]
    placed += [(cells[j][0], cells[j][1], 3) for j in picks[stones:]]
    return board_from_stones(w, h, placed, k, rule)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("w,h,k", [(15, 15, 5), (9, 9, 4), (5, 5, 3), (20, 20, 5), (32, 32, 5), (32, 7, 6), (7, 32, 7), (11, 13, 5)])
def test_same_games_as_the_cell_scanning_kernel_from_the_empty_board(rule, w, h, k):
    board = new_board(w, h, k, rule)
    before = [a.copy() for a in board]
    for colour in (BLACK, WHITE):
        new, ref, (s_new, s_ref) = both(board, colour, 150, seed=w * 1000 + h * 10 + k + rule)
        assert new == ref and s_new == s_ref
    assert all(np.array_equal(a, c) for a, c in zip(board, before))


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("seed", range(6))
def test_same_games_from_positions_with_stones_and_blocked_squares(rule, seed):
    w, h = (15, 15) if seed < 2 else ((9, 12), (32, 32), (6, 5), (20, 8))[seed - 2]
    k = (5, 5, 4, 6, 3, 5)[seed]
    stones = min(w * h // 3, 4 + 7 * seed)
    board = random_position(w, h, k, rule, stones, walls=seed % 3 * 3, seed=seed)
    for colour in (BLACK, WHITE):
        new, ref, (s_new, s_ref) = both(board, colour, 100, seed=seed + 17)
        assert new == ref and s_new == s_ref


def test_sparse_far_stones_use_the_fallback_the_same_way():
    # a nearly full board whose empty points are far from every stone: blocked squares fill the rest
    rows = ["#" * 12 for _ in range(12)]
    rows[0] = "x" + "#" * 11
    rows[11] = "#" * 8 + "...."
    rows[10] = "#" * 8 + "...."
    board, _ = board_from_rows(rows, 4, RULE_FREESTYLE)
    new, ref, states = both(board, WHITE, 200, seed=3)
    assert new == ref and states[0] == states[1]
    assert {r[0] for r in new} <= {RESULT_DRAW, WHITE, BLACK}


def one_hole(row, k, rule, colour=BLACK):
    """A board whose only empty point is the '.' of `row` (other rows blocked): the playout has one
    move, and its result says whether that move wins under the rule."""
    w = len(row)
    rows = [row] + ["#" * w for _ in range(max(k, 5) - 1)]
    board, _ = board_from_rows(rows, k, rule)
    work = np.empty(light_work_size(w, len(rows)), dtype=np.uint64)
    cand = np.empty(w * len(rows) + 1, dtype=np.int32)
    return tuple(map(int, light_playout(board, colour, new_rng(1), work, cand)))


@pytest.mark.parametrize("rule", RULES)
def test_an_immediate_five_ends_the_playout_in_one_ply(rule):
    assert one_hole("xxxx.", 5, rule) == (BLACK, 1)
    assert one_hole("oooo.", 5, rule, WHITE) == (WHITE, 1)
    assert one_hole("xx.x", 4, rule) == (BLACK, 1)
    assert one_hole("#oo.oo#", 5, rule, WHITE) == (WHITE, 1)


def test_overlines_and_caro_blocks_follow_each_rule():
    # black overline: wins in freestyle and caro, not in exact, caro-exact or renju
    for rule, won in ((RULE_FREESTYLE, True), (RULE_CARO, True), (RULE_EXACT, False), (RULE_CARO_EXACT, False), (RULE_RENJU, False)):
        assert one_hole("xxx.xx", 5, rule) == ((BLACK, 1) if won else (RESULT_DRAW, 1))
    # white overline wins under renju
    assert one_hole("ooo.oo", 5, RULE_RENJU, WHITE) == (WHITE, 1)
    # caro: an exact five with opponent stones at both ends does not win; the edge does not block
    for rule in (RULE_CARO, RULE_CARO_EXACT):
        assert one_hole("oxx.xxo", 5, rule) == (RESULT_DRAW, 1)
        assert one_hole("xx.xxo", 5, rule) == (BLACK, 1)
        assert one_hole("#xx.xxo", 5, rule) == (BLACK, 1)
    assert one_hole("oxx.xxo", 5, RULE_FREESTYLE) == (BLACK, 1)
    # the other directions: a vertical, a diagonal and an anti-diagonal five
    for rows in (["x....", "x....", "x....", "x....", "....."],
                 ["x....", ".x...", "..x..", "...x.", "....."],
                 ["....x", "...x.", "..x..", ".x...", "....."]):
        board, _ = board_from_rows(rows, 5, RULE_FREESTYLE)
        work = np.empty(light_work_size(5, 5), dtype=np.uint64)
        cand = np.empty(26, dtype=np.int32)
        new, ref, _ = both(board, BLACK, 200, seed=9)
        assert new == ref
        assert any(r == (BLACK, 1) for r in new)


def test_short_buffers_are_refused():
    board = new_board(15, 15)
    with pytest.raises(ValueError):
        light_playout(board, BLACK, new_rng(1), np.empty(light_work_size(15, 15) - 1, dtype=np.uint64), np.empty(226, dtype=np.int32))
