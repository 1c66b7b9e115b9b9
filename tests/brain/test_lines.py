"""The brain's pure-Python line rules: known positions, and a cross-check against the tournament
referee (an independent implementation) on random positions."""
from __future__ import annotations

import random

import pytest

from gomocup_bot.lines import BLACK, WHITE, Grid, forbidden_points, has_five, makes_five, renju_foul, winning_squares
from protocol.rules import CARO, CARO_EXACT, EXACT_FIVE, FREESTYLE, RENJU
from tournament import referee

ALL_RULES = [FREESTYLE, EXACT_FIVE, RENJU, CARO, CARO_EXACT]


def grid_from_rows(rows: list[str]) -> Grid:
    g = Grid(len(rows[0]), len(rows))
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            g.set(x, y, {"x": BLACK, "o": WHITE}.get(ch, 0))
    return g


def test_five_overline_and_caro():
    g = grid_from_rows(["xxxx.x.........", "..............."])
    assert makes_five(g, 4, 0, BLACK, FREESTYLE)  # six in a row wins in freestyle
    assert not makes_five(g, 4, 0, BLACK, EXACT_FIVE)
    assert not makes_five(g, 4, 0, BLACK, RENJU)  # black overline is no five in renju
    g = grid_from_rows(["oxxxx.o........"])
    assert makes_five(g, 5, 0, BLACK, FREESTYLE)
    assert not makes_five(g, 5, 0, BLACK, CARO)  # blocked at both ends
    g = grid_from_rows(["xxxx.o........."])
    assert makes_five(g, 4, 0, BLACK, CARO)  # the board edge does not block
    g = grid_from_rows(["oxxxx.xo......."])
    assert makes_five(g, 5, 0, BLACK, CARO)  # an overline wins regardless under rule 8
    assert not makes_five(g, 5, 0, BLACK, CARO_EXACT)


def test_has_five_and_winning_squares():
    g = grid_from_rows([".....", ".ooo.", "xxxxx", ".....", "....."])
    assert has_five(g, BLACK, FREESTYLE) and not has_five(g, WHITE, FREESTYLE)
    g = grid_from_rows(["......", ".oooo.", "xxx...", "......", "......", "......"])
    assert winning_squares(g, WHITE, FREESTYLE) == [(0, 1), (5, 1)]
    assert winning_squares(g, BLACK, FREESTYLE) == []


@pytest.mark.parametrize(
    "rows, point, foul",
    [
        ([".......", "..x.x..", "...x...", "..x....", "......."], None, None),
        (["xxx.xx........."], (3, 0), "overline"),
        # double three at (7,7): (5,7),(6,7) on the row and (7,5),(7,6) on the column
        ([".........."] * 5 + [".......x..", ".......x..", ".....xx...", "..........", ".........."], (7, 7), "double-three"),
        # two fours on one line: x.x.x.x, playing the middle gap gives x.xxx.x
        (["x.x.x.x........"], (3, 0), "double-four"),
        (["xx..x.xx......."], (3, 0), "double-four"),  # -> xx.xx.xx
        (["xx.x.xx........"], (2, 0), None),  # -> xxxx.xx: the gap would make seven, not five
        # a single straight four is legal
        (["..xxx.........."], (5, 0), None),
    ],
)
def test_renju_known_fouls(rows, point, foul):
    g = grid_from_rows(rows)
    if point is not None:
        assert renju_foul(g, *point) == foul


def test_four_three_is_legal_and_an_exact_five_beats_any_foul():
    # four on the row (3..6) and three on the column (6,5),(6,6),(6,7)
    g = Grid(15, 15, [(3, 7, BLACK), (4, 7, BLACK), (5, 7, BLACK), (6, 5, BLACK), (6, 6, BLACK)])
    assert renju_foul(g, 6, 7) is None
    # (6,7) makes an exact five on the row and an overline on the column: the five wins
    g = Grid(15, 15, [(2, 7, BLACK), (3, 7, BLACK), (4, 7, BLACK), (5, 7, BLACK),
                      (6, 2, BLACK), (6, 3, BLACK), (6, 4, BLACK), (6, 5, BLACK), (6, 6, BLACK)])
    assert renju_foul(g, 6, 7) is None
    g.set(2, 7, 0)
    assert renju_foul(g, 6, 7) == "overline"


def _referee_board(grid: Grid) -> referee.Board:
    b = referee.Board(grid.width, grid.height)
    for i, c in enumerate(grid.cells):
        if c:
            b.set(i % grid.width, i // grid.width, c)
    return b


@pytest.mark.parametrize("seed", range(3))
def test_cross_check_with_the_referee(seed):
    rng = random.Random(seed)
    checked_fouls = 0
    for _ in range(25):
        size = rng.choice([9, 11, 15])
        g = Grid(size, size)
        # clustered stones, so lines, fours and threes actually occur
        cx, cy = rng.randrange(size), rng.randrange(size)
        for _ in range(rng.randrange(6, 40)):
            x = min(size - 1, max(0, cx + rng.randint(-4, 4)))
            y = min(size - 1, max(0, cy + rng.randint(-4, 4)))
            g.set(x, y, rng.choice([BLACK, BLACK, WHITE]))
        ref = _referee_board(g)
        empties = g.empties()
        for x, y in rng.sample(empties, min(30, len(empties))):
            for colour in (BLACK, WHITE):
                for rules in ALL_RULES:
                    assert makes_five(g, x, y, colour, rules) == referee.makes_win(ref, x, y, colour, rules), (
                        g.cells, x, y, colour, rules)
            if not makes_five(g, x, y, BLACK, RENJU):
                mine = renju_foul(g, x, y)
                theirs = referee.renju_foul(ref, x, y)
                assert (mine is None) == (theirs is None), (size, g.cells, x, y, mine, theirs)
                checked_fouls += mine is not None
        for rules in ALL_RULES:
            for colour in (BLACK, WHITE):
                expected = any(
                    ref.get(x, y) == colour and referee.makes_win(ref, x, y, colour, rules)
                    for y in range(size) for x in range(size)
                )
                assert has_five(g, colour, rules) == expected
    assert checked_fouls > 0  # the sample did contain fouls


def test_forbidden_points_lists_only_fouls():
    g = Grid(15, 15, [(5, 7, BLACK), (6, 7, BLACK), (7, 5, BLACK), (7, 6, BLACK)])
    points = forbidden_points(g)
    assert (7, 7) in points
    assert all(renju_foul(g, x, y) is not None for x, y in points)
