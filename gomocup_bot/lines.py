"""Pure-Python line rules for the brain's cheap paths: fives per rule set and renju fouls.

The session uses it to reject impossible BOARDs and to answer YXSHOWFORBID; the baseline engines
use it to find wins and blocks. It must stay importable without numpy/numba (it sits on the START
path) and simple enough to trust; the numba core has its own, faster implementation.
"""
from __future__ import annotations

from protocol.rules import Rules

EMPTY, BLACK, WHITE, BLOCKED = 0, 1, 2, 3
OFF_BOARD = -1
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def opponent(colour: int) -> int:
    return WHITE if colour == BLACK else BLACK


class Grid:
    """A mutable width x height board of colours (0 empty, 1 black, 2 white, 3 blocked)."""

    __slots__ = ("width", "height", "cells")

    def __init__(self, width: int, height: int, stones=()) -> None:
        self.width = width
        self.height = height
        self.cells = [EMPTY] * (width * height)
        for x, y, c in stones:
            self.cells[y * width + x] = c

    def inside(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def get(self, x: int, y: int) -> int:
        if 0 <= x < self.width and 0 <= y < self.height:
            return self.cells[y * self.width + x]
        return OFF_BOARD

    def set(self, x: int, y: int, colour: int) -> None:
        self.cells[y * self.width + x] = colour

    def empties(self) -> list[tuple[int, int]]:
        w = self.width
        return [(i % w, i // w) for i, c in enumerate(self.cells) if c == EMPTY]

    def copy(self) -> "Grid":
        g = Grid.__new__(Grid)
        g.width, g.height, g.cells = self.width, self.height, list(self.cells)
        return g


def run_ends(grid: Grid, x: int, y: int, dx: int, dy: int, colour: int) -> tuple[int, int]:
    """How many `colour` stones continue from (x, y) backwards and forwards (excluding (x, y))."""
    back = 0
    while grid.get(x - (back + 1) * dx, y - (back + 1) * dy) == colour:
        back += 1
    fwd = 0
    while grid.get(x + (fwd + 1) * dx, y + (fwd + 1) * dy) == colour:
        fwd += 1
    return back, fwd


def _line_wins(grid: Grid, x: int, y: int, dx: int, dy: int, colour: int, rules: Rules) -> bool:
    """Does the run of `colour` through (x, y) (which holds or would hold `colour`) win in this line?"""
    back, fwd = run_ends(grid, x, y, dx, dy, colour)
    length = back + fwd + 1
    if length < 5:
        return False
    exact_only = rules.exact_five or (rules.renju and colour == BLACK)
    if length > 5 and exact_only:
        return False
    if rules.caro and not (length > 5 and not rules.exact_five):
        other = opponent(colour)
        before = grid.get(x - (back + 1) * dx, y - (back + 1) * dy)
        after = grid.get(x + (fwd + 1) * dx, y + (fwd + 1) * dy)
        if before == other and after == other:
            return False
    return True


def makes_five(grid: Grid, x: int, y: int, colour: int, rules: Rules) -> bool:
    """Would `colour` win by playing the empty square (x, y)? (Renju fouls are not checked here.)"""
    saved = grid.get(x, y)
    grid.set(x, y, colour)
    try:
        return any(_line_wins(grid, x, y, dx, dy, colour, rules) for dx, dy in DIRECTIONS)
    finally:
        grid.set(x, y, saved)


def has_five(grid: Grid, colour: int, rules: Rules) -> bool:
    """Does `colour` already have a winning line on the board?"""
    w = grid.width
    for i, c in enumerate(grid.cells):
        if c != colour:
            continue
        x, y = i % w, i // w
        for dx, dy in DIRECTIONS:
            # look at each run once, from its first stone
            if grid.get(x - dx, y - dy) != colour and _line_wins(grid, x, y, dx, dy, colour, rules):
                return True
    return False


def winning_squares(grid: Grid, colour: int, rules: Rules) -> list[tuple[int, int]]:
    """Every empty square where `colour` would complete a win (renju fouls for black excluded)."""
    out = []
    for x, y in _near_stones(grid, colour, reach=4):
        if makes_five(grid, x, y, colour, rules):
            if rules.renju and colour == BLACK and is_renju_foul(grid, x, y):
                continue
            out.append((x, y))
    return out


def _near_stones(grid: Grid, colour: int, reach: int) -> list[tuple[int, int]]:
    """Empty squares on a line within `reach` of a `colour` stone (the only ones that can matter)."""
    seen = set()
    w = grid.width
    for i, c in enumerate(grid.cells):
        if c != colour:
            continue
        x, y = i % w, i // w
        for dx, dy in DIRECTIONS:
            for k in range(-reach, reach + 1):
                px, py = x + k * dx, y + k * dy
                if grid.get(px, py) == EMPTY:
                    seen.add((px, py))
    return sorted(seen, key=lambda p: (p[1], p[0]))


# ----------------------------------------------------------------------------- renju fouls
# RIF rules for black: an exact five always wins; otherwise two fours, two real threes, or an
# overline is a foul. A three counts only if the square that makes it a straight four is itself
# a legal move for black (checked recursively, as referees do).

_RENJU = Rules(renju=True)


def _exact_five_at(grid: Grid, x: int, y: int, dx: int, dy: int) -> bool:
    back, fwd = run_ends(grid, x, y, dx, dy, BLACK)
    return back + fwd + 1 == 5


def _five_points(grid: Grid, x: int, y: int, dx: int, dy: int) -> list[int]:
    """Offsets k along (dx, dy) of empty squares that give black an exact five through (x, y)."""
    out = []
    for k in range(-4, 5):
        if k == 0:
            continue
        px, py = x + k * dx, y + k * dy
        if grid.get(px, py) != EMPTY:
            continue
        grid.set(px, py, BLACK)
        back, fwd = run_ends(grid, px, py, dx, dy, BLACK)
        # the five must contain (x, y): (x, y) lies within the run through (px, py)
        if back + fwd + 1 == 5 and -back <= -k <= fwd:
            out.append(k)
        grid.set(px, py, EMPTY)
    return out


def _count_fours(grid: Grid, x: int, y: int, dx: int, dy: int) -> int:
    points = _five_points(grid, x, y, dx, dy)
    if len(points) == 2 and abs(points[0] - points[1]) == 5:
        return 1  # a straight four: two completions of the same four stones
    return len(points)


def _is_straight_four(grid: Grid, x: int, y: int, dx: int, dy: int) -> bool:
    points = _five_points(grid, x, y, dx, dy)
    return any(abs(a - b) == 5 for a in points for b in points)


def _is_real_three(grid: Grid, x: int, y: int, dx: int, dy: int, depth: int) -> bool:
    for k in range(-4, 5):
        if k == 0:
            continue
        px, py = x + k * dx, y + k * dy
        if grid.get(px, py) != EMPTY:
            continue
        grid.set(px, py, BLACK)
        try:
            if _exact_five_at(grid, px, py, dx, dy):
                continue
            if not _is_straight_four(grid, x, y, dx, dy):
                continue
        finally:
            grid.set(px, py, EMPTY)
        if depth > 0 and _foul(grid, px, py, depth - 1) is not None:
            continue
        return True
    return False


def _foul(grid: Grid, x: int, y: int, depth: int) -> str | None:
    grid.set(x, y, BLACK)
    try:
        if any(_exact_five_at(grid, x, y, dx, dy) for dx, dy in DIRECTIONS):
            return None
        fours = sum(_count_fours(grid, x, y, dx, dy) for dx, dy in DIRECTIONS)
        if fours >= 2:
            return "double-four"
        threes = 0
        for dx, dy in DIRECTIONS:
            if _count_fours(grid, x, y, dx, dy) == 0 and _is_real_three(grid, x, y, dx, dy, depth):
                threes += 1
        if threes >= 2:
            return "double-three"
        for dx, dy in DIRECTIONS:
            back, fwd = run_ends(grid, x, y, dx, dy, BLACK)
            if back + fwd + 1 > 5:
                return "overline"
        return None
    finally:
        grid.set(x, y, EMPTY)


def renju_foul(grid: Grid, x: int, y: int, depth: int = 3) -> str | None:
    """The foul black would commit at the empty square (x, y), or None if the move is legal."""
    if grid.get(x, y) != EMPTY:
        return None
    return _foul(grid, x, y, depth)


def is_renju_foul(grid: Grid, x: int, y: int) -> bool:
    return renju_foul(grid, x, y) is not None


def forbidden_points(grid: Grid) -> list[tuple[int, int]]:
    """Every empty square where black would commit a foul, in row-major order (for YXSHOWFORBID)."""
    candidates = [p for p in _near_stones(grid, BLACK, reach=4)]
    return [(x, y) for x, y in candidates if is_renju_foul(grid, x, y)]
