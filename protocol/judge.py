"""The game rules of protocol reference §11, as both sides of the protocol need them.

The manager's referee judges every move with it, the brain's session checks BOARD positions and
answers YXSHOWFORBID with it, and the baseline engines find wins with it. One plain-Python
implementation, so the two sides cannot disagree; the numba core (`gomocup_bot.core.rules`) is a
separate, faster one that the tests cross-check against this module. Importing it is cheap
(stdlib and protocol.rules only), so it may sit on the brain's START path.

Rules (any width x height, any win length k, blocked squares allowed):
- freestyle: k or more in a row wins;
- exact five: exactly k wins, an overline wins nothing (both colours);
- caro (code 8): a run of exactly k wins unless opponent stones sit on both squares just beyond it
  (the board edge and blocked squares do not block); a longer run wins regardless. Caro with exact
  five (code 9): only an unblocked run of exactly k wins;
- renju (black restricted): white wins with k or more; black wins only with exactly k, and that
  takes precedence over every foul; otherwise two fours (possibly on one line), two real threes (a
  three is real only if its straight-four key point is itself legal, checked recursively) or an
  overline are fouls, in that order.

Each direction is judged on a short copy of the line through the square (the squares within k
steps): a run through the square of up to k stones, its two end squares, and any longer run are all
seen in that window, and list operations on it are much cheaper than coordinate arithmetic.
"""
from __future__ import annotations

from enum import Enum
from typing import Iterable

from protocol.rules import Rules

EMPTY, BLACK, WHITE, BLOCKED = 0, 1, 2, 3
OFF_BOARD = -1  # what `Board.get` answers outside the board
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (1, 1), (1, -1))

Square = tuple[int, int]


class Foul(str, Enum):
    """Why a renju black move is forbidden."""

    DOUBLE_FOUR = "double-four"
    DOUBLE_THREE = "double-three"
    OVERLINE = "overline"

    def __str__(self) -> str:
        return self.value


def opponent(colour: int) -> int:
    return WHITE if colour == BLACK else BLACK


class Board:
    """A mutable width x height grid of colours, indexed (x, y) with x the column, as on the wire.

    `cells` is row-major (index y * width + x): 0 empty, 1 black, 2 white, 3 blocked. `stones` counts
    the non-empty squares, so a full board costs nothing to detect.
    """

    __slots__ = ("width", "height", "cells", "stones")

    def __init__(self, width: int, height: int, stones: Iterable[tuple[int, int, int]] = ()) -> None:
        if width < 1 or height < 1:
            raise ValueError(f"bad board size {width}x{height}")
        self.width = width
        self.height = height
        self.cells = [EMPTY] * (width * height)
        self.stones = 0
        for x, y, colour in stones:
            self.set(x, y, colour)

    @classmethod
    def from_rows(cls, rows: list[str]) -> "Board":
        """A board from text rows: `x`/`X`/`B` black, `o`/`O`/`W` white, `#` blocked, anything else empty.

        Row 0 is y = 0; the width is the longest row. Handy for hand-built positions.
        """
        board = cls(max((len(r) for r in rows), default=0), len(rows))
        for y, row in enumerate(rows):
            for x, ch in enumerate(row):
                colour = _ROW_CHARS.get(ch.lower(), EMPTY)
                if colour:
                    board.set(x, y, colour)
        return board

    def inside(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def get(self, x: int, y: int) -> int:
        """The colour on (x, y), or OFF_BOARD outside the board."""
        if 0 <= x < self.width and 0 <= y < self.height:
            return self.cells[y * self.width + x]
        return OFF_BOARD

    def set(self, x: int, y: int, colour: int) -> None:
        index = y * self.width + x
        self.stones += (colour != EMPTY) - (self.cells[index] != EMPTY)
        self.cells[index] = colour

    def is_full(self) -> bool:
        return self.stones >= self.width * self.height

    def empties(self) -> list[Square]:
        """The empty squares in row-major order."""
        w = self.width
        return [(i % w, i // w) for i, c in enumerate(self.cells) if c == EMPTY]

    def copy(self) -> "Board":
        other = Board.__new__(Board)
        other.width, other.height, other.cells, other.stones = self.width, self.height, list(self.cells), self.stones
        return other


_ROW_CHARS = {"x": BLACK, "b": BLACK, "o": WHITE, "w": WHITE, "#": BLOCKED}


# ----------------------------------------------------------------------------- one line at a time

def _segment(board: Board, x: int, y: int, dx: int, dy: int, reach: int) -> tuple[list[int], int]:
    """The colours on the line through (x, y) along (dx, dy), up to `reach` steps each side (clipped
    to the board), and the index of (x, y) in that list."""
    w, h = board.width, board.height
    back = fwd = reach
    if dx:
        back, fwd = min(back, x), min(fwd, w - 1 - x)
    if dy > 0:
        back, fwd = min(back, y), min(fwd, h - 1 - y)
    elif dy < 0:
        back, fwd = min(back, h - 1 - y), min(fwd, y)
    step = dy * w + dx
    start = (y - back * dy) * w + x - back * dx
    if back + fwd == 0:  # also covers step 0 (anti-diagonal of a one-column board)
        return [board.cells[start]], 0
    stop = start + (back + fwd + 1) * step
    return board.cells[start : stop if stop >= 0 else None : step], back


def _run(line: list[int], i: int, colour: int) -> tuple[int, int]:
    """First and last index of the unbroken `colour` run through i (line[i] itself is not looked at)."""
    lo = i
    while lo > 0 and line[lo - 1] == colour:
        lo -= 1
    hi, last = i, len(line) - 1
    while hi < last and line[hi + 1] == colour:
        hi += 1
    return lo, hi


def _line_wins(line: list[int], c: int, colour: int, rules: Rules, k: int) -> bool:
    """Does `colour` on line[c] complete a winning run on this line? (The window must reach k.)"""
    lo, hi = _run(line, c, colour)
    length = hi - lo + 1
    if length < k:
        return False
    if rules.renju:
        return colour == WHITE or length == k
    if rules.caro:
        if length > k:
            return not rules.exact_five
        other = opponent(colour)  # a run of exactly k: its end squares lie inside the window
        return not (lo > 0 and line[lo - 1] == other and hi < len(line) - 1 and line[hi + 1] == other)
    return length == k or not rules.exact_five


# ----------------------------------------------------------------------------- wins

def makes_win(board: Board, x: int, y: int, colour: int, rules: Rules, k: int = 5) -> bool:
    """Does a `colour` stone on (x, y) complete a winning line under `rules`?

    The square's content is ignored, so this answers "what if I played here" for an empty square and
    "is this stone part of a win" for an occupied one. Renju fouls are not checked (see
    `renju_foul`; a black exact five is never a foul). (x, y) must be on the board.
    """
    for dx, dy in DIRECTIONS:
        line, c = _segment(board, x, y, dx, dy, k)
        if _line_wins(line, c, colour, rules, k):
            return True
    return False


def has_win(board: Board, colour: int, rules: Rules, k: int = 5) -> bool:
    """Does `colour` already have a winning line on the board?"""
    w = board.width
    return any(
        c == colour and makes_win(board, i % w, i // w, colour, rules, k) for i, c in enumerate(board.cells)
    )


def winning_squares(board: Board, colour: int, rules: Rules, k: int = 5) -> list[Square]:
    """Every empty square where `colour` would win at once, in row-major order.

    No renju foul check is needed: black wins only with an exact five, which beats every foul.
    """
    candidates = _next_to(board, colour) if k > 1 else board.empties()  # a run of 2+ has a neighbour
    return [(x, y) for x, y in candidates if makes_win(board, x, y, colour, rules, k)]


def _next_to(board: Board, colour: int) -> list[Square]:
    """Empty squares adjacent (in any of the 8 directions) to a `colour` stone, row-major."""
    w, h = board.width, board.height
    near = set()
    for i, c in enumerate(board.cells):
        if c != colour:
            continue
        x, y = i % w, i // w
        for ny in range(max(0, y - 1), min(h, y + 2)):
            for nx in range(max(0, x - 1), min(w, x + 2)):
                if board.cells[ny * w + nx] == EMPTY:
                    near.add(ny * w + nx)
    return [(i % w, i // w) for i in sorted(near)]


# ----------------------------------------------------------------------------- renju fouls

def renju_foul(board: Board, x: int, y: int, k: int = 5) -> Foul | None:
    """The foul a black stone on the empty square (x, y) would commit under renju, or None if legal.

    The board is left unchanged. Raises ValueError for an occupied or off-board square.
    """
    if board.get(x, y) != EMPTY:
        raise ValueError(f"square {x},{y} is not an empty square of the board")
    return _foul(board, x, y, k)


def is_renju_foul(board: Board, x: int, y: int, k: int = 5) -> bool:
    return renju_foul(board, x, y, k) is not None


def forbidden_points(board: Board, k: int = 5) -> list[Square]:
    """Every empty square where black would commit a foul, in row-major order (for YXSHOWFORBID)."""
    return [(x, y) for x, y in board.empties() if _foul(board, x, y, k) is not None]


def _foul(board: Board, x: int, y: int, k: int) -> Foul | None:
    """renju_foul without the argument check; recursion goes through here (key points of threes).

    Each level puts one more black stone down, so the depth is bounded by the empty squares.
    """
    index = y * board.width + x
    board.cells[index] = BLACK
    try:
        return _foul_of_placed(board, x, y, k)
    finally:
        board.cells[index] = EMPTY


def _foul_of_placed(board: Board, x: int, y: int, k: int) -> Foul | None:
    """The foul of the black stone already on (x, y), by the precedence of §11."""
    lines = [_segment(board, x, y, dx, dy, k) for dx, dy in DIRECTIONS]
    lengths = []
    for line, c in lines:
        lo, hi = _run(line, c, BLACK)
        lengths.append(hi - lo + 1)
    if k in lengths:
        return None  # an exact five wins, whatever else the stone makes
    fours = [_count_fours(line, c, k) for line, c in lines]
    if sum(fours) >= 2:
        return Foul.DOUBLE_FOUR
    threes = 0
    for (line, c), n_fours, (dx, dy) in zip(lines, fours, DIRECTIONS):
        if not n_fours and _has_real_three(board, line, c, x, y, dx, dy, k):
            threes += 1
            if threes >= 2:
                return Foul.DOUBLE_THREE
    if max(lengths) > k:
        return Foul.OVERLINE
    return None


def _blacks_near(line: list[int], c: int, k: int) -> int:
    """Black stones (c included) within k - 1 squares of c: a four needs k - 1 of them, a three k - 2."""
    return line[max(0, c - k + 1) : c + k].count(BLACK)


def _four_keys(line: list[int], c: int, k: int, hold: int = -1) -> list[tuple[int, int]]:
    """One entry per empty square that would give black an exact-k run through c (and through `hold`,
    if given): the (first, last) index of the four stones that run would complete.

    Two squares with the same entry complete the same four from both ends (a straight four); distinct
    entries are distinct fours, which is how two fours can share a line.
    """
    keys = []
    for j in range(max(0, c - k + 1), min(len(line), c + k)):
        if line[j] != EMPTY:
            continue
        lo, hi = _run(line, j, BLACK)
        if hi - lo + 1 != k or not lo <= c <= hi or (hold >= 0 and not lo <= hold <= hi):
            continue
        keys.append((lo + (j == lo), hi - (j == hi)))
    return keys


def _count_fours(line: list[int], c: int, k: int) -> int:
    if _blacks_near(line, c, k) < k - 1:
        return 0
    return len(set(_four_keys(line, c, k)))


def _has_real_three(board: Board, line: list[int], c: int, x: int, y: int, dx: int, dy: int, k: int) -> bool:
    """Is the black stone on (x, y) part of a real three on this line (which holds no four)?

    Some empty key square must turn it into a straight four (without making a five or overline on
    this line), and the key square must itself be a legal black move.
    """
    if _blacks_near(line, c, k) < k - 2:
        return False
    for j in range(max(0, c - k + 1), min(len(line), c + k)):
        if line[j] != EMPTY:
            continue
        lo, hi = _run(line, j, BLACK)
        if hi - lo + 1 >= k:
            continue
        line[j] = BLACK
        keys = _four_keys(line, c, k, hold=j)
        line[j] = EMPTY
        if len(set(keys)) < len(keys) and _foul(board, x + (j - c) * dx, y + (j - c) * dy, k) is None:
            return True
    return False
