"""Threat checks and the evaluation: hand-built positions with known answers, and random positions
checked against definitions computed by brute force (make the move, rescan the board)."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings, strategies as st

from gomocup_bot.core.board import board_from_rows, board_from_stones, make, to_pos, unmake
from gomocup_bot.core.constants import BLACK, EMPTY, P_FOUR_OPEN, RULE_FREESTYLE, RULE_RENJU, WHITE
from gomocup_bot.core.patterns import bounded, evaluate, heuristic, line_pattern, run_counts, scan_pattern
from gomocup_bot.core.rules import is_legal
from gomocup_bot.core.threats import (
    TC_ATTACK,
    TC_BLOCK,
    TC_DEFEND,
    TC_LOSS,
    TC_QUIET,
    TC_WIN,
    defence_points,
    four_points,
    open_four_points,
    threat_check,
    threat_moves,
)

from .conftest import blank, buf, points, put


def status_of(rows, colour, rule=RULE_FREESTYLE):
    board, _ = board_from_rows(rows, rule=rule)
    out = buf(board)
    status, n = threat_check(board, colour, out)
    return status, points(board, out, n)


def test_threat_check_layers():
    four = put(blank(), [(3, 3), (4, 3), (5, 3), (6, 3)], "x")
    assert status_of(put(four, [(2, 3)], "o"), BLACK) == (TC_WIN, {(7, 3)})
    assert status_of(put(four, [(2, 3)], "o"), WHITE) == (TC_BLOCK, {(7, 3)})
    assert status_of(four, WHITE) == (TC_LOSS, {(2, 3), (7, 3)})  # open four: two win points
    three = put(put(blank(), [(5, 7), (6, 7), (7, 7)], "x"), [(9, 9)], "o")
    assert status_of(three, BLACK) == (TC_ATTACK, {(4, 7), (8, 7)})
    status, defence = status_of(three, WHITE)
    assert status == TC_DEFEND and defence == {(4, 7), (8, 7)}
    broken = put(put(blank(), [(5, 7), (7, 7), (8, 7)], "x"), [(1, 1)], "o")
    status, defence = status_of(broken, WHITE)
    assert status == TC_DEFEND and defence == {(4, 7), (6, 7), (9, 7)}
    assert status_of(put(put(blank(), [(7, 7)], "x"), [(8, 8)], "o"), WHITE) == (TC_QUIET, set())


def test_renju_black_threats_skip_fouls_and_a_foul_block_is_a_loss():
    # X.X.X.X with black to fill the middle: two fours on one line, an open-four-like threat in
    # freestyle but a double-four foul in renju
    rows = blank()
    rows[7] = "...x.x.x.x....."
    board, _ = board_from_rows(rows, rule=RULE_RENJU)
    out = buf(board)
    assert (6, 7) not in points(board, out, threat_moves(board, BLACK, out))
    assert not is_legal(board, to_pos(board, 6, 7), BLACK)
    free, _ = board_from_rows(rows)
    assert (6, 7) in points(free, out, threat_moves(free, BLACK, out))
    # a white four whose only block is that foul point: black is lost in renju
    rows = put(put(rows, [(6, 3), (6, 4), (6, 5), (6, 6)], "o"), [(6, 2)], "x")
    assert status_of(rows, BLACK, RULE_RENJU)[0] == TC_LOSS
    assert status_of(rows, BLACK, RULE_FREESTYLE) == (TC_BLOCK, {(6, 7)})


@st.composite
def positions(draw):
    k = draw(st.sampled_from([4, 5]))
    w = draw(st.integers(7, 11))
    h = draw(st.integers(7, 11))
    raw = draw(st.lists(st.tuples(st.integers(0, w - 1), st.integers(0, h - 1)), min_size=4, max_size=24))
    stones, seen = [], set()
    for i, (x, y) in enumerate(raw):
        if (x, y) not in seen:
            seen.add((x, y))
            stones.append((x, y, BLACK if i % 2 == 0 else WHITE))
    return k, w, h, stones


def open_four_exists(board, colour):
    """Brute force: any empty point where `colour` makes an open four (scan from scratch)."""
    w, h = int(board.meta[0]), int(board.meta[1])
    for y in range(h):
        for x in range(w):
            p = to_pos(board, x, y)
            if board.cells[p] == EMPTY and any(scan_pattern(board, colour, d, p) == P_FOUR_OPEN for d in range(4)):
                return True
    return False


@settings(max_examples=40, deadline=None)
@given(positions())
def test_defence_set_is_exactly_the_replies_that_kill_every_open_four(case):
    k, w, h, stones = case
    board = board_from_stones(w, h, stones, k)
    out, tmp = buf(board), buf(board)
    defence = points(board, out, defence_points(board, WHITE, out))
    if not open_four_exists(board, BLACK):
        assert defence == set()
        return
    fours = points(board, tmp, four_points(board, WHITE, tmp))
    for y in range(h):
        for x in range(w):
            p = to_pos(board, x, y)
            if board.cells[p] != EMPTY:
                continue
            make(board, p, WHITE)
            kills = not open_four_exists(board, BLACK)
            unmake(board)
            assert ((x, y) in defence) == (kills or (x, y) in fours), (x, y)


def brute_runs(board, colour):
    w, h, k = int(board.meta[0]), int(board.meta[1]), int(board.meta[2])
    g = [[int(board.cells[to_pos(board, x, y)]) for x in range(w)] for y in range(h)]
    counts = np.zeros((3, k + 1), dtype=np.int64)
    for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
        for y in range(h):
            for x in range(w):
                if g[y][x] != colour:
                    continue
                px, py = x - dx, y - dy
                if 0 <= px < w and 0 <= py < h and g[py][px] == colour:
                    continue
                n = 0
                while 0 <= x + n * dx < w and 0 <= y + n * dy < h and g[y + n * dy][x + n * dx] == colour:
                    n += 1
                ex, ey = x + n * dx, y + n * dy
                closed = int(not (0 <= px < w and 0 <= py < h and g[py][px] == EMPTY))
                closed += int(not (0 <= ex < w and 0 <= ey < h and g[ey][ex] == EMPTY))
                counts[closed, min(n, k)] += 1
    return counts


@settings(max_examples=40, deadline=None)
@given(positions())
def test_run_counts_and_heuristic(case):
    k, w, h, stones = case
    board = board_from_stones(w, h, stones, k)
    out = np.zeros((3, k + 1), dtype=np.int64)
    for colour in (BLACK, WHITE):
        run_counts(board, colour, out)
        assert np.array_equal(out, brute_runs(board, colour))
    hb = heuristic(board, BLACK, 1.0)
    assert math.isclose(hb, -heuristic(board, WHITE, 1.0), rel_tol=1e-9, abs_tol=1e-9)
    assert -1.0 <= evaluate(board, BLACK, 0.7) <= 1.0


def test_heuristic_values_follow_dong_zhang_table():
    board, _ = board_from_rows(put(blank(), [(5, 7), (6, 7), (7, 7)], "x"))
    # one open three (100) in its row and, in each of the other three directions, three open ones (1 each)
    assert heuristic(board, BLACK, 1.0) == 100 + 9 * 1
    board, _ = board_from_rows(put(put(blank(), [(5, 7), (6, 7), (7, 7)], "x"), [(4, 7)], "o"))
    # black: half-closed three (10) + 9 open ones; white: its single stone, one side closed in the row
    assert heuristic(board, BLACK, 2.0) == (10 + 9) - 2.0 * (0.1 + 3 * 1)
    assert bounded(1e10) == 1.0 and bounded(-1e10) == -1.0 and bounded(0.0) == 0.0
    assert 0.55 < bounded(1e6) < 0.65
