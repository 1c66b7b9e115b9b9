"""A tiny pure-Python m,n,k-game (tic-tac-toe and friends) for the exact analyses.

The random-playout analysis of Li §2 needs exact fractions over every reachable position, which
is only feasible on tiny boards; plain tuples keep that code obvious and independent of the numba
core, so it doubles as a cross-check of the theory rather than of our engine.

A position is a tuple of `width * height` cells (0 empty, 1 first player "X", 2 second "O"),
indexed `y * width + x`. The side to move follows from the stone counts (X moves first).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

EMPTY, X, O = 0, 1, 2
Board = tuple[int, ...]


def other(player: int) -> int:
    return 3 - player


@dataclass(frozen=True)
class MNKGame:
    """Rules of the m,n,k-game: `k` in a row (any direction) on a `width` x `height` board wins."""

    width: int = 3
    height: int = 3
    k: int = 3

    @property
    def size(self) -> int:
        return self.width * self.height

    def empty_board(self) -> Board:
        return (EMPTY,) * self.size

    @cached_property
    def lines(self) -> tuple[tuple[int, ...], ...]:
        """Every window of k cells in a row, column or diagonal (cell indices)."""
        found = []
        for y in range(self.height):
            for x in range(self.width):
                for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    ex, ey = x + dx * (self.k - 1), y + dy * (self.k - 1)
                    if 0 <= ex < self.width and 0 <= ey < self.height:
                        found.append(tuple((y + dy * i) * self.width + x + dx * i for i in range(self.k)))
        return tuple(found)

    @cached_property
    def lines_through(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """For each cell, the windows that contain it (to test a win after one move cheaply)."""
        per_cell: list[list[tuple[int, ...]]] = [[] for _ in range(self.size)]
        for line in self.lines:
            for cell in line:
                per_cell[cell].append(line)
        return tuple(tuple(lines) for lines in per_cell)

    def to_move(self, board: Board) -> int:
        xs = board.count(X)
        os_ = board.count(O)
        return X if xs == os_ else O

    def winner(self, board: Board) -> int:
        """1 or 2 if that player has k in a row, else 0."""
        for line in self.lines:
            first = board[line[0]]
            if first and all(board[c] == first for c in line):
                return first
        return 0

    def wins_with(self, board: Board, cell: int) -> bool:
        """Did the stone on `cell` complete a line? (cheaper than `winner` after one move)."""
        player = board[cell]
        return any(all(board[c] == player for c in line) for line in self.lines_through[cell])

    def legal_moves(self, board: Board) -> list[int]:
        return [i for i, v in enumerate(board) if v == EMPTY]

    def play(self, board: Board, cell: int, player: int | None = None) -> Board:
        who = self.to_move(board) if player is None else player
        return board[:cell] + (who,) + board[cell + 1:]

    def is_terminal(self, board: Board) -> bool:
        return self.winner(board) != 0 or EMPTY not in board

    def result_for(self, board: Board, player: int) -> int:
        """+1 / -1 / 0 for `player` at a terminal board."""
        w = self.winner(board)
        return 0 if w == 0 else (1 if w == player else -1)

    def symmetries(self, board: Board) -> list[Board]:
        """The board under the 8 (square) or 4 (rectangle) symmetries of the grid."""
        w, h = self.width, self.height
        maps = [
            lambda x, y: (x, y),
            lambda x, y: (w - 1 - x, y),
            lambda x, y: (x, h - 1 - y),
            lambda x, y: (w - 1 - x, h - 1 - y),
        ]
        if w == h:
            maps += [
                lambda x, y: (y, x),
                lambda x, y: (h - 1 - y, x),
                lambda x, y: (y, w - 1 - x),
                lambda x, y: (h - 1 - y, w - 1 - x),
            ]
        images = []
        for f in maps:
            out = [EMPTY] * self.size
            for y in range(h):
                for x in range(w):
                    nx, ny = f(x, y)
                    out[ny * w + nx] = board[y * w + x]
            images.append(tuple(out))
        return images

    def canonical(self, board: Board) -> Board:
        return min(self.symmetries(board))

    def parse(self, text: str) -> Board:
        """Read a board written row by row with `x`/`o`/`.` (whitespace and `|` ignored)."""
        cells = [c for c in text.lower() if c in "xo.-_"]
        if len(cells) != self.size:
            raise ValueError(f"expected {self.size} cells, got {len(cells)}")
        return tuple(X if c == "x" else O if c == "o" else EMPTY for c in cells)

    def render(self, board: Board, labels: dict[int, str] | None = None) -> str:
        """Rows of `X`, `O`, `.`; `labels` writes a marker (e.g. a move number) on empty cells."""
        labels = labels or {}
        rows = []
        for y in range(self.height):
            row = []
            for x in range(self.width):
                i = y * self.width + x
                v = board[i]
                row.append("X" if v == X else "O" if v == O else labels.get(i, "."))
            rows.append(" ".join(row))
        return "\n".join(rows)


TIC_TAC_TOE = MNKGame(3, 3, 3)


def reachable_positions(game: MNKGame) -> set[Board]:
    """Every position reachable from the empty board by legal play (play stops at a win)."""
    seen: set[Board] = set()
    stack = [game.empty_board()]
    while stack:
        board = stack.pop()
        if board in seen:
            continue
        seen.add(board)
        if game.is_terminal(board):
            continue
        player = game.to_move(board)
        for cell in game.legal_moves(board):
            stack.append(game.play(board, cell, player))
    return seen
