"""A plain-Python referee of the Gomocup rules (protocol reference §11), for any m×n board and win length k.

Deliberately simple and slow-but-obvious: it scans lines square by square, with no bit tricks, so
that it can serve as the independent oracle the numba core is cross-checked against. The manager
calls it once per move, which costs microseconds to a few milliseconds (renju recursion).

Rules implemented:
- freestyle: k or more in a row wins;
- exact five: exactly k wins, an overline wins nothing (both colours);
- caro (code 8): a run of exactly k wins unless opponent stones sit on both squares just beyond it
  (the board edge does not block); a longer run wins regardless. Caro with exact five (code 9): only
  an unblocked run of exactly k wins;
- renju (black restricted): black wins with exactly k; black loses on an overline, a double four
  (two fours may share one line) or a double three whose key points are checked recursively;
  an exact five takes precedence over every foul; white wins with k or more.
"""
from __future__ import annotations

from dataclasses import dataclass

from protocol.rules import Rules
from tournament.endings import Ending

EMPTY, BLACK, WHITE, BLOCKED = 0, 1, 2, 3
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (1, 1), (1, -1))

Square = tuple[int, int]


class Board:
    """A width×height grid of colours, indexed (x, y) with x the column, as on the wire."""

    def __init__(self, width: int, height: int) -> None:
        if width < 1 or height < 1:
            raise ValueError(f"bad board size {width}x{height}")
        self.width = width
        self.height = height
        self.cells = [EMPTY] * (width * height)
        self.stones = 0

    @classmethod
    def from_rows(cls, rows: list[str]) -> "Board":
        """Build a board from text rows (`x`/`X`/`B` = black, `o`/`O`/`W` = white, `#` = blocked, anything else empty).

        Row 0 is y = 0. Handy for hand-built test positions.
        """
        height = len(rows)
        width = max((len(r) for r in rows), default=0)
        board = cls(width, height)
        for y, row in enumerate(rows):
            for x, ch in enumerate(row):
                colour = {"x": BLACK, "b": BLACK, "o": WHITE, "w": WHITE, "#": BLOCKED}.get(ch.lower(), EMPTY)
                if colour:
                    board.set(x, y, colour)
        return board

    def inside(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def get(self, x: int, y: int) -> int:
        return self.cells[y * self.width + x]

    def set(self, x: int, y: int, colour: int) -> None:
        index = y * self.width + x
        before = self.cells[index]
        self.cells[index] = colour
        self.stones += (colour != EMPTY) - (before != EMPTY)

    def is_full(self) -> bool:
        return self.stones >= self.width * self.height

    def copy(self) -> "Board":
        other = Board(self.width, self.height)
        other.cells = list(self.cells)
        other.stones = self.stones
        return other


def run_through(board: Board, x: int, y: int, dx: int, dy: int, colour: int) -> list[Square]:
    """The maximal unbroken run of `colour` along (dx, dy) that contains (x, y), in line order.

    (x, y) itself is counted as `colour` whatever it holds, so callers may ask "what if I played here".
    """
    back: list[Square] = []
    cx, cy = x - dx, y - dy
    while board.inside(cx, cy) and board.get(cx, cy) == colour:
        back.append((cx, cy))
        cx, cy = cx - dx, cy - dy
    forward: list[Square] = []
    cx, cy = x + dx, y + dy
    while board.inside(cx, cy) and board.get(cx, cy) == colour:
        forward.append((cx, cy))
        cx, cy = cx + dx, cy + dy
    return back[::-1] + [(x, y)] + forward


def _beyond(run: list[Square], dx: int, dy: int) -> tuple[Square, Square]:
    (fx, fy), (lx, ly) = run[0], run[-1]
    return (fx - dx, fy - dy), (lx + dx, ly + dy)


def _blocked_both_ends(board: Board, run: list[Square], dx: int, dy: int, opponent: int) -> bool:
    ends = _beyond(run, dx, dy)
    return all(board.inside(ex, ey) and board.get(ex, ey) == opponent for ex, ey in ends)


def makes_win(board: Board, x: int, y: int, colour: int, rules: Rules, k: int = 5) -> bool:
    """Does a `colour` stone at (x, y) complete a winning line under `rules`? (The square's content is ignored.)"""
    opponent = WHITE if colour == BLACK else BLACK
    for dx, dy in DIRECTIONS:
        length = len(run := run_through(board, x, y, dx, dy, colour))
        if length < k:
            continue
        if rules.renju:
            if colour == WHITE or length == k:
                return True
        elif rules.caro:
            if length > k and not rules.exact_five:
                return True
            if length == k and not _blocked_both_ends(board, run, dx, dy, opponent):
                return True
        elif rules.exact_five:
            if length == k:
                return True
        else:
            return True
    return False


def _makes_exact_five(board: Board, x: int, y: int, k: int) -> bool:
    return any(len(run_through(board, x, y, dx, dy, BLACK)) == k for dx, dy in DIRECTIONS)


def _line_squares(board: Board, x: int, y: int, dx: int, dy: int, reach: int) -> list[Square]:
    """On-board squares along the line through (x, y), up to `reach` steps either side, excluding (x, y)."""
    out = []
    for step in range(-reach, reach + 1):
        if step == 0:
            continue
        sx, sy = x + step * dx, y + step * dy
        if board.inside(sx, sy):
            out.append((sx, sy))
    return out


def _four_completions(board: Board, x: int, y: int, dx: int, dy: int, k: int, must_hold: tuple[Square, ...]) -> list[frozenset]:
    """For black on this line: the stone sets of every exact k-run one more black stone would complete.

    Each entry is the set of existing black stones in the five that an empty square would make; only
    fives containing all of `must_hold` count. Two completing squares with the same stone set are one
    straight four; different stone sets are different fours (this is how two fours share a line).
    """
    sets = []
    for px, py in _line_squares(board, x, y, dx, dy, k - 1):
        if board.get(px, py) != EMPTY:
            continue
        run = run_through(board, px, py, dx, dy, BLACK)
        if len(run) != k or not all(sq in run for sq in must_hold):
            continue
        sets.append(frozenset(sq for sq in run if sq != (px, py)))
    return sets


def _count_fours(board: Board, x: int, y: int, dx: int, dy: int, k: int) -> int:
    return len(set(_four_completions(board, x, y, dx, dy, k, ((x, y),))))


def _is_straight_four(board: Board, x: int, y: int, dx: int, dy: int, k: int, key: Square) -> bool:
    completions = _four_completions(board, x, y, dx, dy, k, ((x, y), key))
    return len(completions) != len(set(completions))


def _is_real_three(board: Board, x: int, y: int, dx: int, dy: int, k: int, depth: int) -> bool:
    """Black (already placed at (x, y)) has a three on this line: some empty key square would turn it into a
    straight four (without making a five), and that key square is itself a legal black move."""
    for px, py in _line_squares(board, x, y, dx, dy, k - 1):
        if board.get(px, py) != EMPTY:
            continue
        if len(run_through(board, px, py, dx, dy, BLACK)) >= k:
            continue  # that would be a five or an overline on this line, not a straight four
        board.set(px, py, BLACK)
        try:
            straight = _is_straight_four(board, x, y, dx, dy, k, (px, py))
        finally:
            board.set(px, py, EMPTY)
        if straight and _foul(board, px, py, k, depth + 1) is None:
            return True
    return False


def _foul(board: Board, x: int, y: int, k: int, depth: int) -> Ending | None:
    board.set(x, y, BLACK)
    try:
        if _makes_exact_five(board, x, y, k):
            return None
        fours = 0
        four_lines = set()
        for dx, dy in DIRECTIONS:
            n = _count_fours(board, x, y, dx, dy, k)
            if n:
                four_lines.add((dx, dy))
            fours += n
        if fours >= 2:
            return Ending.FOUL_DOUBLE_FOUR
        threes = 0
        for dx, dy in DIRECTIONS:
            if (dx, dy) in four_lines:
                continue
            if _is_real_three(board, x, y, dx, dy, k, depth):
                threes += 1
                if threes >= 2:
                    return Ending.FOUL_DOUBLE_THREE
        if any(len(run_through(board, x, y, dx, dy, BLACK)) > k for dx, dy in DIRECTIONS):
            return Ending.FOUL_OVERLINE
        return None
    finally:
        board.set(x, y, EMPTY)


def renju_foul(board: Board, x: int, y: int, k: int = 5) -> Ending | None:
    """The foul a black stone on the empty square (x, y) would commit under renju, or None if it is legal.

    The board is left unchanged.
    """
    if board.get(x, y) != EMPTY:
        raise ValueError(f"square {x},{y} is not empty")
    return _foul(board, x, y, k, 0)


@dataclass(frozen=True)
class Verdict:
    """What one move did to the game. `ending` is None while the game goes on.

    `loser_moved` tells who is scored: True when the side that just moved loses (foul, illegal move),
    False when it wins (five); irrelevant for draws.
    """

    ending: Ending | None = None
    loser_moved: bool = False

    @property
    def game_over(self) -> bool:
        return self.ending is not None


CONTINUE = Verdict()


class GameReferee:
    """Tracks one game and judges each move for the side to move (black first).

    `move_limit`: declare a draw once this many stones are on the board (Piskvork's width·height−25);
    None plays to a full board.
    """

    def __init__(self, width: int, height: int, rules: Rules, k: int = 5, move_limit: int | None = None) -> None:
        self.board = Board(width, height)
        self.rules = rules
        self.k = k
        self.move_limit = move_limit
        self.moves: list[Square] = []

    @property
    def to_move(self) -> int:
        return BLACK if len(self.moves) % 2 == 0 else WHITE

    def play(self, x: int, y: int) -> Verdict:
        """Judge and (if legal) place the side to move's stone at (x, y)."""
        board, colour = self.board, self.to_move
        if not board.inside(x, y):
            return Verdict(Ending.OFF_BOARD, loser_moved=True)
        if board.get(x, y) != EMPTY:
            return Verdict(Ending.OCCUPIED, loser_moved=True)
        if self.rules.renju and colour == BLACK:
            foul = renju_foul(board, x, y, self.k)
            if foul is not None:
                return Verdict(foul, loser_moved=True)
        won = makes_win(board, x, y, colour, self.rules, self.k)
        board.set(x, y, colour)
        self.moves.append((x, y))
        if won:
            return Verdict(Ending.FIVE, loser_moved=False)
        if board.is_full():
            return Verdict(Ending.FULL_BOARD)
        if self.move_limit is not None and len(self.moves) >= self.move_limit:
            return Verdict(Ending.MOVE_LIMIT)
        return CONTINUE

    def place_opening(self, stones: list[Square]) -> Verdict:
        """Lay down opening stones (alternating, black first) with the same checks as moves."""
        for x, y in stones:
            verdict = self.play(x, y)
            if verdict.game_over:
                return verdict
        return CONTINUE
