"""Incremental board state against from-scratch recomputation, after every make and unmake
(random games, hypothesis), plus line-pattern semantics checked by a direct line scan."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gomocup_bot.core.board import (
    HISTORY_FIELDS,
    board_from_rows,
    board_from_stones,
    copy_board,
    make,
    new_board,
    play,
    pos_x,
    rebuild_layer,
    pos_y,
    take,
    to_pos,
    unmake,
    window_key,
)
from gomocup_bot.core.candidates import candidates, ordered_candidates
from gomocup_bot.core.constants import (
    BLACK,
    M_UNDO_FLOOR,
    EMPTY,
    P_FIVE,
    P_FOUR,
    P_FOUR_OPEN,
    P_THREE_BROKEN,
    P_THREE_OPEN,
    RULE_CARO,
    RULE_CARO_EXACT,
    RULE_EXACT,
    RULE_FREESTYLE,
    RULE_RENJU,
    WHITE,
)
from gomocup_bot.core.patterns import line_pattern, scan_pattern, sync_patterns
from gomocup_bot.core.rules import is_win_move, line_wins, run_ends
from gomocup_bot.core.threats import four_points, threat_moves, win_points

from .conftest import buf, points

STEPS = ((1, 0), (0, 1), (1, 1), (-1, 1))  # the kernel's direction order: →, ↓, ↘, ↙


def grid_of(board):
    w, h = int(board.meta[0]), int(board.meta[1])
    return [[int(board.cells[to_pos(board, x, y)]) for x in range(w)] for y in range(h)]


def scratch_hash(board):
    w, h = int(board.meta[0]), int(board.meta[1])
    v = np.uint64(0)
    for y in range(h):
        for x in range(w):
            p = to_pos(board, x, y)
            c = board.cells[p]
            if c:
                v ^= board.zobrist[c, p]
    return v


def scratch_nbr(grid, x, y):
    h, w = len(grid), len(grid[0])
    return sum(
        1
        for dy in range(-2, 3)
        for dx in range(-2, 3)
        if 0 <= x + dx < w and 0 <= y + dy < h and grid[y + dy][x + dx] in (BLACK, WHITE)
    )


def line_win_count(board, p, d, colour):
    """The judge's count: with `colour` on empty p, how many empty points of direction d complete a
    winning run (`rules.line_wins`, caro's both-ends block included) that contains p? (The meaning
    of the four codes.)"""
    k, rule, s = int(board.meta[2]), int(board.meta[3]), int(board.dirs[d])
    make(board, p, colour)
    n = 0
    for i in range(-(k - 1), k):
        q = p + i * s
        if i == 0 or board.cells[q] != EMPTY:
            continue
        a, f = run_ends(board.cells, q, s, colour)
        if -a <= -i <= f and line_wins(board.cells, q, s, colour, k, rule):
            n += 1
    unmake(board)
    return n


def check_codes_against_judge(board):
    """Every empty square's code per colour and direction means what the judge says: five iff the
    stone wins on that line, an open four / four iff two+ / one empty cell then completes a win."""
    k, rule = int(board.meta[2]), int(board.meta[3])
    sync_patterns(board)
    for p in np.flatnonzero(board.cells == EMPTY):
        p = int(p)
        for d in range(4):
            for c in (BLACK, WHITE):
                code = line_pattern(board, c, d, p)
                assert (code == P_FIVE) == bool(line_wins(board.cells, p, int(board.dirs[d]), c, k, rule))
                if code == P_FIVE:
                    continue
                n0 = line_win_count(board, p, d, c)
                assert (code == P_FOUR_OPEN) == (n0 >= 2) and (code == P_FOUR) == (n0 == 1), (code, n0)


def check_layer(board):
    """The incrementally kept pattern layer equals one rebuilt from scratch (empty squares)."""
    fresh = copy_board(board)
    rebuild_layer(fresh)
    empty = board.cells == EMPTY
    assert (fresh.cnt == board.cnt).all()
    assert (fresh.combo[:, empty] == board.combo[:, empty]).all()
    assert (fresh.cls[:, empty] == board.cls[:, empty]).all()


def check_against_scratch(board):
    w, h, k = int(board.meta[0]), int(board.meta[1]), int(board.meta[2])
    grid = grid_of(board)
    assert board.hash[0] == scratch_hash(board)
    sync_patterns(board)
    for y in range(h):
        for x in range(w):
            p = to_pos(board, x, y)
            if grid[y][x] != EMPTY:
                continue
            assert board.nbr[p] == scratch_nbr(grid, x, y)
            for d in range(4):
                if board.meta[7]:
                    assert board.keys[d, p] == window_key(board, BLACK, d, p) + (window_key(board, WHITE, d, p) << 32)
                for colour in (BLACK, WHITE):
                    assert line_pattern(board, colour, d, p) == scan_pattern(board, colour, d, p)
    check_layer(board)
    # threat lists on the incremental board equal those of a board built from scratch
    stones = [(x, y, grid[y][x]) for y in range(h) for x in range(w) if grid[y][x]]
    fresh = board_from_stones(w, h, stones, k, int(board.meta[3]))
    a, b = buf(board), buf(fresh)
    for colour in (BLACK, WHITE):
        wins = points(board, a, win_points(board, colour, a))
        assert wins == points(fresh, b, win_points(fresh, colour, b))
        brute = {(x, y) for y in range(h) for x in range(w) if grid[y][x] == EMPTY and is_win_move(board, to_pos(board, x, y), colour)}
        assert wins == brute
        assert points(board, a, four_points(board, colour, a)) == points(fresh, b, four_points(fresh, colour, b))
        assert points(board, a, threat_moves(board, colour, a)) == points(fresh, b, threat_moves(fresh, colour, b))


@st.composite
def games(draw):
    rule = draw(st.sampled_from([RULE_FREESTYLE, RULE_EXACT, RULE_CARO, RULE_CARO_EXACT, RULE_RENJU]))
    k = 5 if rule == RULE_RENJU else draw(st.sampled_from([3, 4, 5, 5, 6, 7]))
    w = draw(st.integers(max(k, 5), 13))
    h = draw(st.integers(max(k, 5), 13))
    ops = draw(st.lists(st.tuples(st.integers(0, w - 1), st.integers(0, h - 1), st.booleans()), min_size=1, max_size=40))
    blocked = draw(st.lists(st.tuples(st.integers(0, w - 1), st.integers(0, h - 1)), max_size=2))
    return rule, k, w, h, ops, blocked


@settings(max_examples=40, deadline=None)
@given(games())
def test_incremental_state_equals_recomputation(game):
    """`play` / `take` (what the search uses; `make` / `unmake` on table boards, plus the scanned
    layer for k > 5) keep keys, layer and hash equal to a recomputation after every move."""
    rule, k, w, h, ops, blocked = game
    board = board_from_stones(w, h, [(x, y, 3) for x, y in dict.fromkeys(blocked)], k, rule)
    colour = BLACK
    for x, y, undo in ops:
        if undo and board.meta[6] > 0:
            take(board)
            colour = 3 - colour
        else:
            p = to_pos(board, x, y)
            if board.cells[p] != EMPTY:
                continue
            play(board, p, colour)
            colour = 3 - colour
        check_against_scratch(board)
    while board.meta[6] > 0:
        take(board)
    check_against_scratch(board)


def test_make_alone_on_a_big_k_board_is_caught_up_by_sync():
    """k > 5: `make` keeps no layer; the next `play` (or `sync_patterns`) rebuilds it first."""
    board = new_board(12, 12, 7)
    for i, (x, y) in enumerate([(5, 5), (6, 6), (5, 6), (4, 4), (5, 7)]):
        make(board, to_pos(board, x, y), BLACK if i % 2 == 0 else WHITE)
    play(board, to_pos(board, 5, 8), WHITE)
    check_layer(board)
    take(board)
    unmake(board)
    sync_patterns(board)
    check_layer(board)
    check_against_scratch(board)


@settings(max_examples=60, deadline=None)
@given(games())
def test_four_and_five_codes_mean_what_they_say(game):
    rule, k, w, h, ops, blocked = game
    board = board_from_stones(w, h, [(x, y, 3) for x, y in dict.fromkeys(blocked)], k, rule)
    colour = BLACK
    for x, y, _ in ops:
        p = to_pos(board, x, y)
        if board.cells[p] == EMPTY:
            make(board, p, colour)
            colour = 3 - colour
    check_codes_against_judge(board)


@pytest.mark.parametrize("rule", [RULE_CARO, RULE_CARO_EXACT, RULE_FREESTYLE])
@pytest.mark.parametrize("k", [3, 4, 5, 6])
def test_dense_random_lines_against_the_judge(rule, k):
    """Crowded rows (stones of both colours, blocked squares, the edges) make the caro cases random
    games rarely reach: k-runs between two opponent stones, runs ended by a wall or the edge."""
    rng = np.random.default_rng(100 * k + rule)
    width = 2 * k + 3
    for _ in range(25):
        row = "".join(rng.choice(list(".xo#"), p=[0.4, 0.27, 0.27, 0.06]) for _ in range(width))
        board, _ = board_from_rows([row] + ["." * width] * (k - 1), k=k, rule=rule)
        check_codes_against_judge(board)


def test_caro_codes_of_known_lines():
    # o x x x x . o: the five at (5, 0) would be blocked at both ends -- no five, no four, under caro
    board, _ = board_from_rows(["oxxxx.o...", "." * 10, "." * 10, "." * 10, "." * 10], rule=RULE_CARO)
    assert line_pattern(board, BLACK, 0, to_pos(board, 5, 0)) != P_FIVE
    # the same run against the edge and a blocked square: both ends are not opponent stones -- a five
    for row in ("xxxx.o....", "#xxxx.o..."):
        board, _ = board_from_rows([row] + ["." * 10] * 4, rule=RULE_CARO)
        assert line_pattern(board, BLACK, 0, to_pos(board, row.index("."), 0)) == P_FIVE
    # a six is a win under caro even between opponent stones, never under caro-exact
    row = "oxxx.xxo.."
    for rule, five in ((RULE_CARO, True), (RULE_CARO_EXACT, False)):
        board, _ = board_from_rows([row] + ["." * 10] * 4, rule=rule)
        assert (line_pattern(board, BLACK, 0, to_pos(board, 4, 0)) == P_FIVE) == five
    # o x x x . . o: under caro the only five that x x x can grow into here is blocked -- no four
    board, _ = board_from_rows(["oxxx..o..."] + ["." * 10] * 4, rule=RULE_CARO)
    assert line_pattern(board, BLACK, 0, to_pos(board, 4, 0)) not in (P_FOUR, P_FOUR_OPEN, P_FIVE)
    board, _ = board_from_rows(["oxxx...o.."] + ["." * 10] * 4, rule=RULE_CARO)
    assert line_pattern(board, BLACK, 0, to_pos(board, 4, 0)) == P_FOUR  # (5, 0) completes x at 1..5, (6, 0) stays open


def test_known_line_codes():
    board, _ = board_from_rows(["..........", "...xx.....", "..........", ".....", ".", ".", ".", ".", ".", "."], k=5)
    sync_patterns(board)
    assert line_pattern(board, BLACK, 0, to_pos(board, 5, 1)) == P_THREE_OPEN  # ..xxX..
    assert line_pattern(board, BLACK, 0, to_pos(board, 6, 1)) == P_THREE_BROKEN  # ..xx.X..
    board, _ = board_from_rows([".xxx......", "..........", "..........", ".", ".", "."], k=5)
    assert line_pattern(board, BLACK, 0, to_pos(board, 4, 0)) == P_FOUR_OPEN  # .xxxX.
    assert line_pattern(board, BLACK, 0, to_pos(board, 0, 0)) == P_FOUR  # edge on the left
    board, _ = board_from_rows(["oxxx......", "..........", "..........", ".", ".", "."], k=5)
    assert line_pattern(board, BLACK, 0, to_pos(board, 4, 0)) == P_FOUR


def test_unmake_restores_everything_exactly():
    board = new_board(15, 15)
    snapshot = [a.copy() for a in board]
    rng = np.random.default_rng(3)
    colour = BLACK
    for _ in range(60):
        p = to_pos(board, int(rng.integers(15)), int(rng.integers(15)))
        if board.cells[p] == EMPTY:
            make(board, p, colour)
            colour = 3 - colour
    while board.meta[6]:
        unmake(board)
    for before, after, name in zip(snapshot, board, board._fields):
        if name not in HISTORY_FIELDS:
            assert np.array_equal(before, after), name


def test_unmake_past_a_rebuilt_layer_recomputes_and_records_again():
    """A square blocked after some stones rebuilds the layer: `unmake` may not write back those
    stones' undo records (they hold the codes from before the wall), so it recomputes them; the
    moves made after that are recorded again. Checked against a recomputation after every step."""
    stones = [(6, 6, BLACK), (7, 6, WHITE), (6, 7, BLACK), (8, 8, WHITE), (6, 8, BLACK), (5, 5, WHITE)]
    board = board_from_stones(13, 13, stones + [(6, 9, 3), (4, 4, 3)])  # walls beside the stones: their records are stale
    assert int(board.meta[M_UNDO_FLOOR]) == len(stones)
    take(board)  # (5, 5): beside the wall at (4, 4)
    check_against_scratch(board)
    assert int(board.meta[M_UNDO_FLOOR]) == len(stones) - 1
    for x, y in [(5, 5), (7, 7), (9, 9)]:  # recorded moves, made and taken back
        play(board, to_pos(board, x, y), BLACK if board.meta[6] % 2 == 0 else WHITE)
        check_against_scratch(board)
    for _ in range(3):
        take(board)
        check_against_scratch(board)
    while board.meta[6] > 0:
        take(board)
        check_against_scratch(board)
    assert int(board.meta[M_UNDO_FLOOR]) == 0


def test_copy_is_independent():
    board = new_board(9, 9)
    other = copy_board(board)
    make(other, to_pos(other, 4, 4), BLACK)
    assert board.cells[to_pos(board, 4, 4)] == EMPTY and board.hash[0] == 0


def test_candidates_empty_board_centre_and_distance_two():
    board = new_board(15, 15)
    out = buf(board)
    assert points(board, out, candidates(board, out)) == {(7, 7)}
    make(board, to_pos(board, 7, 7), BLACK)
    got = points(board, out, candidates(board, out))
    assert got == {(x, y) for x in range(5, 10) for y in range(5, 10)} - {(7, 7)}
    tiny = new_board(3, 3, 3)
    assert points(tiny, out, candidates(tiny, out)) == {(1, 1)}


def test_ordered_candidates_put_the_win_and_the_block_first():
    board, _ = board_from_rows(["...............", ".xxxx..........", "...............", "....ooo........"] + ["." * 15] * 11)
    out = buf(board)
    scores = np.zeros(out.shape[0], dtype=np.int64)
    n = ordered_candidates(board, BLACK, out, scores)
    first = (int(pos_x(board, out[0])), int(pos_y(board, out[0])))
    assert first in {(0, 1), (5, 1)}
    assert list(scores[:n]) == sorted(scores[:n], reverse=True)


def test_bad_sizes_raise_value_error():
    for args in ((2, 15), (33, 15), (15, 15, 16), (15, 15, 2)):
        with pytest.raises(ValueError):
            new_board(*args)
    with pytest.raises(ValueError):
        board_from_stones(5, 5, [(5, 0, 1)])
    with pytest.raises(ValueError):
        board_from_stones(5, 5, [(1, 1, 1), (1, 1, 2)])


def test_board_from_engine_position():
    from gomocup_bot.core.board import board_from_position
    from gomocup_bot.engine import Position
    from protocol.rules import RENJU

    pos = Position(width=10, height=12, rules=RENJU, stones=((1, 2, 1), (3, 4, 2), (5, 5, 3)), to_move=1)
    board = board_from_position(pos)
    assert (int(board.meta[0]), int(board.meta[1]), int(board.meta[2]), int(board.meta[3])) == (10, 12, 5, RULE_RENJU)
    assert [int(board.cells[to_pos(board, x, y)]) for x, y, _ in pos.stones] == [1, 2, 3]
    assert int(board.meta[6]) == 2  # the blocked square is not a move
