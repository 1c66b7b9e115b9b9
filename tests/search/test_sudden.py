"""Li's level-k minimax on the core board against known answers and an exhaustive reference."""
from __future__ import annotations

import random

import numpy as np
import pytest

from gomocup_bot.engine import BLACK, WHITE
from gomocup_bot.core.board import board_from_position, pos_x, pos_y
from gomocup_bot.search.sudden import root_values, sudden
from tests.search import positions as P


def _stop():
    return np.zeros(1, dtype=np.int32), np.zeros(2, dtype=np.int64)


def _xy(b, p):
    return int(pos_x(b, p)), int(pos_y(b, p))


def _values(pos, side, depth):
    b = board_from_position(pos)
    size = b.cells.shape[0]
    moves = np.zeros(size, dtype=np.int64)
    values = np.zeros(size, dtype=np.int64)
    stop, counter = _stop()
    n = root_values(b, side, depth, moves, values, stop, counter)
    assert n > 0
    return {_xy(b, int(moves[i])): int(values[i]) for i in range(n)}, b


def test_open_three_is_a_level4_sudden_death_with_exactly_the_two_blocks():
    pos = P.parse(P.OPEN_THREE, WHITE)
    vals, b = _values(pos, WHITE, 4)
    saving = {m for m, v in vals.items() if v >= 0}
    assert saving == P.OPEN_THREE_DEFENCES
    cells = b.cells.copy()
    stop, counter = _stop()
    assert sudden(b, WHITE, 2, stop, counter) == 0  # nothing within 2 plies
    assert sudden(b, BLACK, 3, stop, counter) == 1  # X to move: level-3 win
    assert (b.cells == cells).all() and int(b.meta[6]) == len(pos.stones)  # the board is restored


def test_block_five_is_a_level2_sudden_death():
    pos = P.parse(P.BLOCK_FIVE, WHITE)
    vals, _ = _values(pos, WHITE, 2)
    assert {m for m, v in vals.items() if v >= 0} == P.BLOCK_FIVE_ANSWERS


def test_win_in_one_is_a_level1_sudden_win():
    pos = P.parse(P.WIN_IN_1, BLACK)
    vals, _ = _values(pos, BLACK, 1)
    assert {m for m, v in vals.items() if v == 1} == P.WIN_IN_1_ANSWERS


# ---------------------------------------------------------------- exhaustive cross-check


def _ref_wins(grid, w, h, x, y, c, k, exact=False):
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        n = 1
        for sgn in (1, -1):
            xx, yy = x + sgn * dx, y + sgn * dy
            while 0 <= xx < w and 0 <= yy < h and grid[yy][xx] == c:
                n += 1
                xx += sgn * dx
                yy += sgn * dy
        if n == k or (n > k and not exact):
            return True
    return False


def _ref_minimax(grid, w, h, c, d, k, exact=False):
    """Full-width level-d minimax (Li §4.1), plain Python: +1 win, -1 loss, 0 otherwise."""
    if d == 0:
        return 0
    best = -1
    any_move = False
    for y in range(h):
        for x in range(w):
            if grid[y][x]:
                continue
            any_move = True
            if _ref_wins(grid, w, h, x, y, c, k, exact):
                return 1
            grid[y][x] = c
            v = -_ref_minimax(grid, w, h, 3 - c, d - 1, k, exact)
            grid[y][x] = 0
            if v > best:
                best = v
                if best == 1:
                    grid[y][x] = 0
                    return 1
    return best if any_move else 0


def _random_position(rng, w, h, k, stones):
    from gomocup_bot.engine import Position
    from protocol.rules import FREESTYLE

    grid = [[0] * w for _ in range(h)]
    placed = []
    c = BLACK
    while len(placed) < stones:
        x, y = rng.randrange(w), rng.randrange(h)
        if grid[y][x] or _ref_wins(grid, w, h, x, y, c, k):
            continue
        grid[y][x] = c
        placed.append((x, y, c))
        c = 3 - c
    return grid, Position(w, h, FREESTYLE, tuple(placed), c, k)


@pytest.mark.parametrize("seed", range(12))
def test_level_k_minimax_equals_full_width_reference(seed):
    rng = random.Random(seed)
    w = h = 6
    k = 4
    grid, pos = _random_position(rng, w, h, k, 6 + seed % 5)
    side = pos.to_move
    b = board_from_position(pos)
    stop, counter = _stop()
    for d in (1, 2, 3):
        expect = _ref_minimax(grid, w, h, side, d, k)
        assert sudden(b, side, d, stop, counter) == expect, (seed, d)


@pytest.mark.parametrize("seed", range(3))
def test_level4_minimax_equals_full_width_reference_small_board(seed):
    rng = random.Random(100 + seed)
    w = h = 5
    k = 4
    grid, pos = _random_position(rng, w, h, k, 8)
    side = pos.to_move
    b = board_from_position(pos)
    stop, counter = _stop()
    assert sudden(b, side, 4, stop, counter) == _ref_minimax(grid, w, h, side, 4, k)


def test_a_node_budget_or_the_stop_flag_cuts_the_search_and_restores_the_board():
    pos = P.from_stones(P.VCF_STONES, BLACK)
    b = board_from_position(pos)
    cells = b.cells.copy()
    stop = np.zeros(1, dtype=np.int32)
    counter = np.array([0, 3], dtype=np.int64)
    assert sudden(b, BLACK, 5, stop, counter) == 2  # UNKNOWN
    stop[0] = 1
    counter[:] = 0
    assert sudden(b, BLACK, 4, stop, counter) == 2
    assert (b.cells == cells).all()
    stop[0] = 0
    assert sudden(b, BLACK, 5, stop, counter) == 1  # the VCF of these stones is a level-5 win
    assert sudden(b, BLACK, 3, stop, counter) == 0


@pytest.mark.parametrize("seed", range(6))
def test_level_k_minimax_on_the_exact_rule_equals_the_reference(seed):
    """Exact five (k = 4 here): an overline does not win, on both sides."""
    from gomocup_bot.engine import Position
    from protocol.rules import Rules

    rng = random.Random(300 + seed)
    w = h = 6
    k = 4
    grid, pos = _random_position(rng, w, h, k, 7 + seed % 4)
    pos = Position(w, h, Rules(exact_five=True), pos.stones, pos.to_move, k)
    b = board_from_position(pos)
    stop, counter = _stop()
    for d in (1, 2, 3):
        assert sudden(b, pos.to_move, d, stop, counter) == _ref_minimax(grid, w, h, pos.to_move, d, k, exact=True), (seed, d)
