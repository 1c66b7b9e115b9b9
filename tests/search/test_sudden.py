"""Li's level-k minimax and the VCF solver against known answers and an exhaustive reference."""
from __future__ import annotations

import random

import numpy as np
import pytest

from gomocup_bot.engine import BLACK, WHITE
from gomocup_bot.search.board import board_from_position, to_index, to_xy
from gomocup_bot.search.sudden import root_values, sudden, vcf
from tests.search import positions as P


def _stop():
    return np.zeros(1, dtype=np.int32), np.zeros(2, dtype=np.int64)


def _values(pos, side, depth):
    cells, near, geo = board_from_position(pos)
    size = cells.shape[0]
    moves = np.zeros(size, dtype=np.int64)
    values = np.zeros(size, dtype=np.int64)
    stop, counter = _stop()
    n = root_values(cells, near, geo, side, depth, moves, values, stop, counter)
    assert n > 0
    return {to_xy(int(moves[i]), geo): int(values[i]) for i in range(n)}, (cells, near, geo)


def test_open_three_is_a_level4_sudden_death_with_exactly_the_two_blocks():
    pos = P.parse(P.OPEN_THREE, WHITE)
    vals, (cells, near, geo) = _values(pos, WHITE, 4)
    saving = {m for m, v in vals.items() if v >= 0}
    assert saving == P.OPEN_THREE_DEFENCES
    stop, counter = _stop()
    assert sudden(cells, near, geo, WHITE, 2, stop, counter) == 0  # nothing within 2 plies
    assert sudden(cells, near, geo, BLACK, 3, stop, counter) == 1  # X to move: level-3 win


def test_block_five_is_a_level2_sudden_death():
    pos = P.parse(P.BLOCK_FIVE, WHITE)
    vals, _ = _values(pos, WHITE, 2)
    assert {m for m, v in vals.items() if v >= 0} == P.BLOCK_FIVE_ANSWERS


def test_win_in_one_is_a_level1_sudden_win():
    pos = P.parse(P.WIN_IN_1, BLACK)
    vals, _ = _values(pos, BLACK, 1)
    assert {m for m, v in vals.items() if v == 1} == P.WIN_IN_1_ANSWERS


def test_vcf_found_for_attacker_and_not_before_it_exists():
    pos = P.from_stones(P.VCF_STONES, BLACK)
    cells, near, geo = board_from_position(pos)
    stop, counter = _stop()
    line = np.full(64, -1, dtype=np.int64)
    assert vcf(cells, near, geo, BLACK, 10, stop, counter, line, 0) == 1
    _replay_vcf(pos, [to_xy(int(v), geo) if v >= 0 else None for v in line])
    assert to_xy(int(line[0]), geo) in P.VCF_FIRST_MOVES
    # one attacking move is not enough: no level-3 win, but a level-5 one
    assert sudden(cells, near, geo, BLACK, 3, stop, counter) == 0
    assert sudden(cells, near, geo, BLACK, 5, stop, counter) == 1
    # the defender has no VCF of its own
    assert vcf(cells, near, geo, WHITE, 10, stop, counter, line, 0) == 0
    # a depth-1 VCF (one four) does not reach the win
    assert vcf(cells, near, geo, BLACK, 1, stop, counter, line, 0) == 0


def _replay_vcf(pos, line):
    """Check a VCF line with the plain-Python reference: every attacking move is a four whose only
    five-square is the recorded reply, and the last one leaves two five-squares (or is a five)."""
    w, h, k = pos.width, pos.height, pos.win_length
    grid = [[0] * w for _ in range(h)]
    for x, y, c in pos.stones:
        grid[y][x] = c
    att = pos.to_move
    i = 0
    while True:
        p, q = line[i], line[i + 1]
        assert p is not None
        x, y = p
        assert grid[y][x] == 0
        if _ref_wins(grid, w, h, x, y, att, k):
            return
        assert not any(_ref_wins(grid, w, h, xx, yy, 3 - att, k)
                       for yy in range(h) for xx in range(w) if grid[yy][xx] == 0), "defender wins first"
        grid[y][x] = att
        fives = {(xx, yy) for yy in range(h) for xx in range(w)
                 if grid[yy][xx] == 0 and _ref_wins(grid, w, h, xx, yy, att, k)}
        if q is None:
            assert len(fives) >= 2
            return
        assert fives == {q}
        grid[q[1]][q[0]] = 3 - att
        i += 2


def test_vcf_respects_the_node_budget():
    pos = P.from_stones(P.VCF_STONES, BLACK)
    cells, near, geo = board_from_position(pos)
    stop = np.zeros(1, dtype=np.int32)
    counter = np.array([0, 2], dtype=np.int64)
    line = np.full(64, -1, dtype=np.int64)
    assert vcf(cells, near, geo, BLACK, 10, stop, counter, line, 0) == 2  # UNKNOWN
    stop[0] = 1
    counter[:] = 0
    assert sudden(cells, near, geo, BLACK, 4, stop, counter) == 2


# ---------------------------------------------------------------- exhaustive cross-check


def _ref_wins(grid, w, h, x, y, c, k):
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        n = 1
        for sgn in (1, -1):
            xx, yy = x + sgn * dx, y + sgn * dy
            while 0 <= xx < w and 0 <= yy < h and grid[yy][xx] == c:
                n += 1
                xx += sgn * dx
                yy += sgn * dy
        if n >= k:
            return True
    return False


def _ref_minimax(grid, w, h, c, d, k):
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
            if _ref_wins(grid, w, h, x, y, c, k):
                return 1
            grid[y][x] = c
            v = -_ref_minimax(grid, w, h, 3 - c, d - 1, k)
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
    cells, near, geo = board_from_position(pos, k=k)
    stop, counter = _stop()
    for d in (1, 2, 3):
        expect = _ref_minimax(grid, w, h, side, d, k)
        assert sudden(cells, near, geo, side, d, stop, counter) == expect, (seed, d)


@pytest.mark.parametrize("seed", range(3))
def test_level4_minimax_equals_full_width_reference_small_board(seed):
    rng = random.Random(100 + seed)
    w = h = 5
    k = 4
    grid, pos = _random_position(rng, w, h, k, 8)
    side = pos.to_move
    cells, near, geo = board_from_position(pos, k=k)
    stop, counter = _stop()
    assert sudden(cells, near, geo, side, 4, stop, counter) == _ref_minimax(grid, w, h, side, 4, k)
