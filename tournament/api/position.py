"""`Position`: a board size, a rule and the moves in order -- what the engine API sends and judges.

A small immutable value. Every position is checked when it is made (squares on the board, none
taken twice, no renju foul, nothing after a five), by the tournament referee on `protocol.judge`:
the rules have one implementation, shared with the brain and the manager. A finished game is a
valid position (`is_over()`), it just has no move to play. Colours alternate from black (1); white
is 2. Squares are `(x, y)`, 0-based, x the column, as on the wire.

Readers: `from_moves` (pairs, `"7,7 8,8"` or `"h8 i9"`), `from_psq` (Piskvork records, e.g. from
`gomocup-tournament export`) and `from_sgf` (the c-gomoku-cli dialect our export writes, GM[4]).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Union

from protocol import judge
from protocol import messages as m
from protocol.judge import BLACK, WHITE
from protocol.rules import RuleError, Rules
from tournament.game.endings import Ending
from tournament.api.errors import PositionError
from tournament.game.referee import GameReferee, Verdict

__all__ = ["BLACK", "WHITE", "Position", "PositionError", "Square", "parse_square", "sgf_games", "sgf_main_line", "square_text"]

Square = tuple[int, int]
MIN_SIZE, MAX_SIZE = 5, 32  # the protocol's blocks hold at most 32 x 32 stones
BoardArg = Union[int, tuple[int, int]]
RuleArg = Union[str, int, Rules]

_WIRE_SQUARE = re.compile(r"^\(?\s*(\d{1,2})\s*,\s*(\d{1,2})\s*\)?$")
_LABEL_SQUARE = re.compile(r"^\[?([A-Za-z])(\d{1,2})\]?$")
_SGF_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def parse_square(token: str, width: int = MAX_SIZE, height: int = MAX_SIZE) -> Square | None:
    """`7,7` (wire, 0-based) or `h8` / `H8` / `[H8]` (letter = column from a, number = row + 1, the
    pos format and Rapfi's labels) -> (x, y) on a width x height board; None for anything else."""
    token = token.strip()
    found = _WIRE_SQUARE.match(token)
    if found:
        x, y = int(found.group(1)), int(found.group(2))
    else:
        found = _LABEL_SQUARE.match(token)
        if not found:
            return None
        x, y = ord(found.group(1).lower()) - ord("a"), int(found.group(2)) - 1
    return (x, y) if 0 <= x < width and 0 <= y < height else None


def square_text(square: Square) -> str:
    """The wire form `x,y`."""
    return f"{square[0]},{square[1]}"


def _board_size(board: BoardArg) -> tuple[int, int]:
    if isinstance(board, tuple):
        if len(board) != 2:
            raise PositionError(f"board must be a size or (width, height), got {board!r}")
        width, height = board
    else:
        width = height = board
    if isinstance(width, bool) or isinstance(height, bool) or not isinstance(width, int) or not isinstance(height, int):
        raise PositionError(f"board size must be whole numbers, got {board!r}")
    return width, height


def _rules(rule: RuleArg) -> Rules:
    if isinstance(rule, Rules):
        return rule
    try:
        return Rules.from_code(rule) if isinstance(rule, int) else Rules.from_name(str(rule))
    except RuleError as exc:
        raise PositionError(str(exc)) from None


@dataclass(frozen=True)
class Position:
    """A width x height board under `rules`, with `moves` played in order (black first).

    Construction replays and checks the moves, so an impossible position never exists.
    """

    width: int = 15
    height: int = 15
    rules: Rules = Rules()
    moves: tuple[Square, ...] = ()
    _referee: GameReferee = field(init=False, repr=False, compare=False, hash=False)
    _ending: Ending | None = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not (MIN_SIZE <= self.width <= MAX_SIZE and MIN_SIZE <= self.height <= MAX_SIZE):
            raise PositionError(f"board {self.width}x{self.height} is not supported ({MIN_SIZE} to {MAX_SIZE} per side)")
        if not isinstance(self.rules, Rules):
            object.__setattr__(self, "rules", _rules(self.rules))
        moves = tuple(self._square(mv, i) for i, mv in enumerate(self.moves))
        object.__setattr__(self, "moves", moves)
        referee = GameReferee(self.width, self.height, self.rules)
        ending: Ending | None = None
        for i, (x, y) in enumerate(moves):
            if ending is not None:
                raise PositionError(f"move {i + 1} ({x},{y}) comes after the game ended ({ending.description})")
            ending = self._judged(referee.play(x, y), i, (x, y))
        object.__setattr__(self, "_referee", referee)
        object.__setattr__(self, "_ending", ending)

    @staticmethod
    def _square(move: object, index: int) -> Square:
        if isinstance(move, str):
            square = parse_square(move)
            if square is None:
                raise PositionError(f"move {index + 1}: cannot read {move!r} as a square")
            return square
        try:
            x, y = move  # type: ignore[misc]
        except (TypeError, ValueError):
            raise PositionError(f"move {index + 1}: expected (x, y), got {move!r}") from None
        if isinstance(x, bool) or isinstance(y, bool) or not isinstance(x, int) or not isinstance(y, int):
            raise PositionError(f"move {index + 1}: coordinates must be whole numbers, got {move!r}")
        return (x, y)

    @staticmethod
    def _judged(verdict: Verdict, index: int, square: Square) -> Ending | None:
        """The game's ending after this move (None: it goes on); an illegal move is an error."""
        if verdict.ending is not None and verdict.loser_moved:
            raise PositionError(f"move {index + 1} ({square[0]},{square[1]}) is illegal: {verdict.ending.description}")
        return verdict.ending

    # ------------------------------------------------------------------ readers
    @classmethod
    def from_moves(cls, moves: Iterable[object] | str = (), board: BoardArg = 15, rule: RuleArg = "freestyle") -> "Position":
        """A position from its moves: pairs, or one string of squares (`"7,7 8,8"`, `"h8 i9"`, `"h8i9"`).

        `board` is a size or (width, height); `rule` a name (freestyle, standard/exact-five, renju,
        caro, caro-exact), a Gomocup rule code or a `Rules`.
        """
        width, height = _board_size(board)
        if isinstance(moves, str):
            moves = _squares_in_text(moves, width, height)
        return cls(width, height, _rules(rule), tuple(moves))  # type: ignore[arg-type]

    @classmethod
    def from_psq(cls, text: str, rule: RuleArg = "freestyle") -> "Position":
        """A Piskvork record (`Piskvorky WxH, ...` then `x,y,ms` lines, 1-based). PSQ files do not
        name the rule, so give it. Reading stops at the first line that is not a move (the names)."""
        lines = [line.strip() for line in text.replace("\r", "\n").split("\n") if line.strip()]
        if not lines:
            raise PositionError("empty PSQ record")
        header = re.match(r"^Piskvorky\s+(\d+)\s*x\s*(\d+)", lines[0], re.IGNORECASE)
        if not header:
            raise PositionError(f"not a PSQ record: first line {lines[0][:60]!r}")
        width, height = int(header.group(1)), int(header.group(2))
        moves = []
        for line in lines[1:]:
            found = re.match(r"^(-?\d+)\s*,\s*(-?\d+)(?:\s*,\s*-?\d+)?$", line)
            if not found:
                break
            moves.append((int(found.group(1)) - 1, int(found.group(2)) - 1))
        return cls(width, height, _rules(rule), tuple(moves))

    @classmethod
    def from_sgf(cls, text: str, rule: RuleArg | None = None) -> "Position":
        """The main line of an SGF game record (GM[4]; SZ[n] or SZ[w:h]; ;B[hh];W[ii] with `a` = 0).

        The rule comes from RU[] (a Gomocup code or a rule name) unless given. Setup stones
        (AB/AW) are refused: they have no order, and renju needs one.
        """
        nodes = sgf_main_line(text)
        if not nodes:
            raise PositionError("no SGF game tree found")
        root = nodes[0]
        game = root.get("GM", ["4"])[0].strip()
        if game not in ("4", ""):
            raise PositionError(f"SGF game type GM[{game}] is not gomoku (GM[4])")
        size = root.get("SZ", ["15"])[0].strip()
        try:
            width, height = (int(v) for v in size.split(":")) if ":" in size else (int(size), int(size))
        except ValueError:
            raise PositionError(f"bad SGF board size SZ[{size}]") from None
        if rule is None:
            rule = root.get("RU", ["freestyle"])[0].strip() or "freestyle"
        moves: list[Square] = []
        for node in nodes:
            if "AB" in node or "AW" in node:
                raise PositionError("SGF setup stones (AB/AW) have no move order; only B/W moves are read")
            for colour in ("B", "W"):
                for value in node.get(colour, []):
                    value = value.strip()
                    if len(value) != 2 or value[0] not in _SGF_LETTERS or value[1] not in _SGF_LETTERS:
                        raise PositionError(f"SGF move {colour}[{value}] is not a square (passes are not played in gomoku)")
                    expected = "B" if len(moves) % 2 == 0 else "W"
                    if colour != expected:
                        raise PositionError(f"SGF move {len(moves) + 1} is {colour}[{value}], expected a {expected} move")
                    moves.append((_SGF_LETTERS.index(value[0]), _SGF_LETTERS.index(value[1])))
        return cls(width, height, _rules(rule), tuple(moves))

    # ------------------------------------------------------------------ the game
    @property
    def to_move(self) -> int:
        """BLACK (1) or WHITE (2): whose move it is."""
        return BLACK if len(self.moves) % 2 == 0 else WHITE

    @property
    def ending(self) -> Ending | None:
        """How the game ended (five, full board), or None while it goes on."""
        return self._ending

    def is_over(self) -> bool:
        return self._ending is not None

    def winner(self) -> int | None:
        """BLACK or WHITE if the last move made a winning line, else None (game on, or a draw)."""
        if self._ending is Ending.FIVE:
            return WHITE if self.to_move == BLACK else BLACK
        return None

    def colour(self, square: Square) -> int:
        """0 empty, 1 black, 2 white at `square` (-1 off the board)."""
        return self._referee.board.get(*square)

    def judge(self, move: Square) -> Ending | None:
        """What playing `move` would do for the side to move: None if it is legal and the game
        goes on, else the ending (FIVE wins, FULL_BOARD draws; OFF_BOARD, OCCUPIED and the renju
        fouls are illegal). Raises PositionError if the game is already over."""
        if self._ending is not None:
            raise PositionError(f"the game is over ({self._ending.description})")
        return self._referee.copy().play(*move).ending

    def is_legal(self, move: Square) -> bool:
        """Can the side to move play `move`? False once the game is over."""
        if self._ending is not None:
            return False
        verdict = self._referee.copy().play(*move)
        return not (verdict.ending is not None and verdict.loser_moved)

    def legal_moves(self) -> list[Square]:
        """Every square the side to move may play, row by row (renju fouls left out for black)."""
        if self._ending is not None:
            return []
        board = self._referee.board
        if self.rules.renju and self.to_move == BLACK:
            banned = set(judge.forbidden_points(board.copy()))
            return [sq for sq in board.empties() if sq not in banned]
        return board.empties()

    def forbidden(self) -> list[Square]:
        """Renju: the empty squares where black would commit a foul (what YXSHOWFORBID answers),
        whoever is to move; empty under every other rule."""
        if not self.rules.renju:
            return []
        return judge.forbidden_points(self._referee.board.copy())

    def push(self, move: Square | str) -> "Position":
        """This position with `move` played by the side to move; PositionError if it is illegal."""
        if isinstance(move, str):
            square = parse_square(move, self.width, self.height)
            if square is None:
                raise PositionError(f"cannot read {move!r} as a square of a {self.width}x{self.height} board")
            move = square
        square = self._square(move, len(self.moves))
        if self._ending is not None:
            raise PositionError(f"move {len(self.moves) + 1} ({square[0]},{square[1]}) comes after the game ended ({self._ending.description})")
        referee = self._referee.copy()
        ending = self._judged(referee.play(*square), len(self.moves), square)
        child = object.__new__(Position)
        for name, value in (("width", self.width), ("height", self.height), ("rules", self.rules),
                            ("moves", self.moves + (square,)), ("_referee", referee), ("_ending", ending)):
            object.__setattr__(child, name, value)
        return child

    def board(self) -> judge.Board:
        """A copy of the board as the rules judge sees it (`protocol.judge.Board`)."""
        return self._referee.board.copy()

    def stones(self) -> list[tuple[int, int, int]]:
        """(x, y, colour) of every stone, in move order."""
        return [(x, y, BLACK if i % 2 == 0 else WHITE) for i, (x, y) in enumerate(self.moves)]

    def command(self) -> m.Command:
        """What a manager sends to ask for the side to move's move: BEGIN on an empty board, else
        BOARD with every stone in move order (field 1 = the mover's own, 2 = the opponent's)."""
        return board_command(self.moves, self.to_move)

    def __str__(self) -> str:
        """The board as text: `x` black, `o` white, `.` empty, the last move in capitals; row 0 on top."""
        last = self.moves[-1] if self.moves else None
        rows = []
        for y in range(self.height):
            row = []
            for x in range(self.width):
                ch = ".xo#"[self._referee.board.get(x, y)]
                row.append(ch.upper() if (x, y) == last else ch)
            rows.append(" ".join(row))
        return "\n".join(rows)


def board_command(moves: Iterable[Square], colour: int) -> m.Command:
    """BEGIN when nothing is played, else BOARD with the stones in game order as `colour` sees them."""
    stones = tuple((x, y, m.OWN if (BLACK if i % 2 == 0 else WHITE) == colour else m.OPPONENT) for i, (x, y) in enumerate(moves))
    return m.Board(stones) if stones else m.Begin()


def _squares_in_text(text: str, width: int, height: int) -> list[Square]:
    """`7,7 8,8`, `h8 i9 j10`, `h8i9j10` or `[H8] [I9]` -> squares; PositionError on anything else."""
    tokens = re.findall(r"\d+\s*,\s*\d+|\[?[A-Za-z]\d{1,2}\]?|\S", text.replace(";", " "))
    out = []
    for token in tokens:
        square = parse_square(token, width, height)
        if square is None:
            raise PositionError(f"cannot read {token!r} as a square of a {width}x{height} board (in {text[:60]!r})")
        out.append(square)
    return out


def sgf_games(text: str) -> list[str]:
    """The game trees of an SGF collection, each as its own text: c-gomoku-cli writes all the games
    of a run into one file, `(;...)(;...)`. Brackets inside property values (escapes honoured) do
    not count; text outside any tree is dropped."""
    games: list[str] = []
    depth, start, i, n = 0, -1, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "[":  # skip a property value
            i += 1
            while i < n and text[i] != "]":
                i += 2 if text[i] == "\\" else 1
        elif ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")" and depth > 0:
            depth -= 1
            if depth == 0:
                games.append(text[start : i + 1])
        i += 1
    return games


def sgf_main_line(text: str) -> list[dict[str, list[str]]]:
    """The nodes of the first game tree's main line, each a property -> values dict.

    The main line follows the first variation at every branch, so it ends at the first `)`: what
    comes after belongs to other variations. Escapes inside values are honoured.
    """
    nodes: list[dict[str, list[str]]] = []
    i, n = text.find("("), len(text)
    if i < 0:
        return nodes
    node: dict[str, list[str]] | None = None
    prop = ""
    while i < n:
        ch = text[i]
        if ch == "[":
            i += 1
            value = []
            while i < n and text[i] != "]":
                if text[i] == "\\" and i + 1 < n:
                    i += 1
                value.append(text[i])
                i += 1
            if node is not None and prop:
                node.setdefault(prop, []).append("".join(value))
        elif ch == ")":
            break
        elif ch == ";":
            node = {}
            nodes.append(node)
            prop = ""
        elif ch.isalpha():
            start = i
            while i + 1 < n and text[i + 1].isalpha():
                i += 1
            prop = "".join(c for c in text[start : i + 1] if c.isupper())
        i += 1
    return nodes
