"""The old board view's VCF (`search/sudden_old.py`, used by `search/tactics.py`); delete with
`search/board.py`."""
from __future__ import annotations

import numpy as np

from gomocup_bot.engine import BLACK, WHITE
from gomocup_bot.search.board import board_from_position, to_xy
from gomocup_bot.search.sudden_old import sudden, vcf
from tests.search import positions as P
from tests.search.test_sudden import _ref_wins, _stop


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


