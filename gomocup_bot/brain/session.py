"""The brain's protocol state machine: commands in, actions out. Pure, synchronous, never raises.

`BrainSession.handle(command)` updates the game state (board size, rules, stones, whose turn, INFO
values, YXBLOCK set) and returns an `Action` telling the async runner (`gomocup_bot.brain.runner`) what to
do: send replies, search a position, stop a search, reset the engine, or exit. A rejected command
leaves the state exactly as it was and answers `ERROR reason` (never a move). Searching is the
runner's job; when it has a result it calls `complete_search`, which validates the move, records it
when the command asked for that, and returns the reply lines.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Union

from gomocup_bot import __version__
from gomocup_bot.engine import BLACK, BLOCKED, EMPTY, WHITE, Move, Position, SearchResult
from protocol import messages as m
from protocol.judge import Board, forbidden_points, has_win, renju_foul
from protocol.rules import FREESTYLE, RuleError, Rules

log = logging.getLogger("gomocup_bot.brain.session")

MIN_SIZE = 5
MAX_SIZE = 32


# ----------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class Send:
    """Send these replies now (possibly none, e.g. for INFO)."""

    replies: tuple[m.Reply, ...] = ()


@dataclass(frozen=True)
class Search:
    """Search `position` (for `position.to_move`) and answer with `complete_search`.

    `record`: the chosen move is ours and goes on the board (BEGIN/TURN/BOARD); analysis
    (YXNBEST) and SWAP2 answers leave the board alone.
    """

    position: Position
    record: bool = True
    nbest: int = 1
    excluded: frozenset[Move] = frozenset()
    command: str = ""  # the command word, for logs


@dataclass(frozen=True)
class StopSearch:
    """YXSTOP: finish the running search now with its best move (nothing to do when idle)."""


@dataclass(frozen=True)
class ResetEngine:
    """YXHASHCLEAR: the engine should forget what it learned."""


@dataclass(frozen=True)
class Exit:
    """END: stop everything and leave without writing anything more."""


Action = Union[Send, Search, StopSearch, ResetEngine, Exit]


def _error(reason: str) -> Send:
    return Send((m.ErrorReply(reason),))


# ----------------------------------------------------------------------------- the session


@dataclass
class BrainSession:
    """Game state of one brain session. `engine_label` goes into ABOUT's `engine` field."""

    engine_label: str = "gomocup-bot"
    yixin_rule2: bool = False  # read `INFO rule 2` as renju (Yixin); set by YXSHOWINFO too
    width: int | None = None
    height: int | None = None
    stones: list[tuple[int, int, int]] = field(default_factory=list)  # (x, y, colour), in order
    info: dict[str, int] = field(default_factory=dict)  # integer INFO values
    info_text: dict[str, str] = field(default_factory=dict)  # every INFO value as received
    rules: Rules = FREESTYLE
    rule_problem: str | None = None  # set while the last `INFO rule` was unsupported
    excluded: set[Move] = field(default_factory=set)  # YXBLOCK
    game_id: int = 0  # bumped on every new game, so the runner knows to call engine.new_game
    engine_problem: str | None = None  # the engine cannot play (its weights are unusable): refuse games

    # ------------------------------------------------------------------ queries

    @property
    def started(self) -> bool:
        return self.width is not None

    @property
    def show_detail(self) -> int:
        return self.info.get("show_detail", 0)

    def colour_at(self, x: int, y: int) -> int:
        for sx, sy, c in self.stones:
            if sx == x and sy == y:
                return c
        return EMPTY

    def to_move(self) -> int:
        """Black moves when both colours have as many stones, else white (blocked squares don't count)."""
        black = sum(1 for *_, c in self.stones if c == BLACK)
        white = sum(1 for *_, c in self.stones if c == WHITE)
        return BLACK if black == white else WHITE

    def empty_count(self) -> int:
        if self.width is None or self.height is None:
            return 0
        return self.width * self.height - len(self.stones)

    def position(self, to_move: int | None = None) -> Position:
        assert self.width is not None and self.height is not None
        return Position(
            width=self.width,
            height=self.height,
            rules=self.rules,
            stones=tuple(self.stones),
            to_move=self.to_move() if to_move is None else to_move,
        )

    def grid(self) -> Board:
        assert self.width is not None and self.height is not None
        return Board(self.width, self.height, self.stones)

    def _on_board(self, x: int, y: int) -> bool:
        return self.width is not None and self.height is not None and 0 <= x < self.width and 0 <= y < self.height

    def about(self) -> m.AboutReply:
        return m.AboutReply(
            (
                ("name", "gomocup-bot"),
                ("version", __version__),
                ("author", "gomocup-bot developers"),
                ("country", "International"),
                ("www", ""),
                ("engine", self.engine_label),
            )
        )

    # ------------------------------------------------------------------ commands

    def handle(self, cmd: m.Command | m.ProtocolError) -> Action:
        """Apply one command; never raises (an internal bug becomes `ERROR internal error`)."""
        try:
            return self._dispatch(cmd)
        except Exception:  # pragma: no cover - a bug, but the brain must keep answering
            log.exception("internal error while handling %r", cmd)
            return Send() if isinstance(cmd, m.Info) else _error("internal error")

    def _dispatch(self, cmd: m.Command | m.ProtocolError) -> Action:
        match cmd:
            case m.ProtocolError(reason, line, silent):
                if silent:
                    log.warning("ignored malformed line %r: %s", line, reason)
                    return Send()
                return _error(reason)
            case m.Start(size):
                return self._start(size, size)
            case m.RectStart(w, h):
                return self._start(w, h)
            case m.Restart():
                if not self.started:
                    return _error("RESTART before START")
                self._new_game(self.width, self.height)  # type: ignore[arg-type]
                return Send((m.OkReply(),))
            case m.Info(key, value):
                self._info(key, value)
                return Send()
            case m.Begin():
                return self._begin()
            case m.Turn(x, y):
                return self._turn(x, y)
            case m.Board(stones):
                return self._board(stones, reply=True)
            case m.YxBoard(stones):
                return self._board(stones, reply=False)
            case m.Takeback(x, y):
                return self._takeback(x, y)
            case m.Play(x, y):
                return self._play(x, y)
            case m.Swap2Board(points):
                return self._swap2(points)
            case m.End():
                return Exit()
            case m.About():
                return Send((self.about(),))
            case m.YxShowInfo():
                self.yixin_rule2 = True
                return Send(
                    (m.MessageReply("INFO MAX_THREAD_NUM 1"), m.MessageReply("INFO MAX_HASH_SIZE 20"))
                )
            case m.YxStop():
                return StopSearch()
            case m.YxShowForbid():
                if not self.started:
                    return _error("YXSHOWFORBID before START")
                if not self.rules.renju:
                    return Send((m.ForbidReply(()),))
                return Send((m.ForbidReply(tuple(forbidden_points(self.grid()))),))
            case m.YxHashClear():
                return ResetEngine()
            case m.YxNBest(n):
                if n < 1:
                    return _error("YXNBEST needs a count of at least 1")
                problem = self._cannot_move()
                if problem:
                    return _error(problem)
                return Search(
                    self.position(), record=False, nbest=n, excluded=frozenset(self.excluded), command="YXNBEST"
                )
            case m.YxBlock(points):
                self.excluded.update(points)
                return Send()
            case m.YxBlockUndo(points):
                self.excluded.difference_update(points)
                return Send()
            case m.YxBlockReset():
                self.excluded.clear()
                return Send()
            case m.UnknownCommand(text):
                word = text.split(None, 1)[0] if text.split() else text
                return Send((m.UnknownReply(f"unknown command {word[:40]}"),))
        return _error(f"unsupported command {type(cmd).__name__}")

    # ------------------------------------------------------------------ helpers

    def _start(self, width: int, height: int) -> Action:
        if self.engine_problem:
            return _error(self.engine_problem)
        for n in (width, height):
            if not MIN_SIZE <= n <= MAX_SIZE:
                return _error(f"unsupported board size {width}x{height} (supported: {MIN_SIZE}..{MAX_SIZE})")
        self._new_game(width, height)
        return Send((m.OkReply(),))

    def _new_game(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.stones = []
        self.excluded = set()
        self.game_id += 1

    def _info(self, key: str, value: str) -> None:
        self.info_text[key] = value
        if key in m.INFO_INT_KEYS:
            number = m.Info(key, value).int_value()
            if number is None:
                log.warning("INFO %s: %r is not an integer; ignored", key, value)
                return
            self.info[key] = number
            if key == "rule":
                self._set_rule(number)
        elif key not in m.INFO_TEXT_KEYS:
            log.info("INFO %s %r: unknown key, kept", key, value)

    def _set_rule(self, code: int) -> None:
        try:
            self.rules = Rules.from_code(code, yixin=self.yixin_rule2)
            self.rule_problem = None
        except RuleError as exc:
            # The reference says: stay silent now, refuse the next move request with ERROR.
            self.rule_problem = str(exc)
            log.warning("INFO rule %d: %s", code, exc)

    def _cannot_move(self) -> str | None:
        """Why a move request cannot be served now, or None."""
        if self.engine_problem:
            return self.engine_problem
        if not self.started:
            return "no board yet: send START first"
        if self.rule_problem:
            return self.rule_problem
        if self.empty_count() <= 0:
            return "the board is full"
        return None

    def _begin(self) -> Action:
        problem = self._cannot_move()
        if problem:
            return _error(problem)
        if any(c in (BLACK, WHITE) for *_, c in self.stones):
            return _error("BEGIN on a board that already has stones")
        return Search(self.position(BLACK), excluded=frozenset(self.excluded), command="BEGIN")

    def _turn(self, x: int, y: int) -> Action:
        problem = self._cannot_move()
        if problem:
            return _error(problem)
        if not self._on_board(x, y):
            return _error(f"TURN {x},{y} is off the {self.width}x{self.height} board")
        if self.colour_at(x, y) != EMPTY:
            return _error(f"TURN {x},{y}: square already occupied")
        if self.empty_count() <= 1:
            return _error(f"TURN {x},{y} fills the board: no move left to answer")
        self.stones.append((x, y, self.to_move()))
        return Search(self.position(), excluded=frozenset(self.excluded), command="TURN")

    def _board(self, stones: tuple[tuple[int, int, int], ...], *, reply: bool) -> Action:
        word = "BOARD" if reply else "YXBOARD"
        if not self.started:
            return _error(f"{word} before START")
        if reply and self.rule_problem:
            return _error(self.rule_problem)
        seen: set[Move] = set()
        own = sum(1 for *_, f in stones if f == m.OWN)
        theirs = sum(1 for *_, f in stones if f == m.OPPONENT)
        for x, y, _ in stones:
            if not self._on_board(x, y):
                return _error(f"{word}: {x},{y} is off the {self.width}x{self.height} board")
            if (x, y) in seen:
                return _error(f"{word}: {x},{y} is listed twice")
            seen.add((x, y))
        if own == theirs:
            mine, other = BLACK, WHITE
        elif theirs == own + 1:
            mine, other = WHITE, BLACK
        else:
            return _error(f"{word}: impossible position ({own} own and {theirs} opponent stones)")
        colour = {m.OWN: mine, m.OPPONENT: other, m.BLOCKED_FIELD: BLOCKED}
        new_stones = [(x, y, colour[f]) for x, y, f in stones]
        assert self.width is not None and self.height is not None
        grid = Board(self.width, self.height, new_stones)
        if not self.rules.continuous:
            for c, who in ((BLACK, "black"), (WHITE, "white")):
                if has_win(grid, c, self.rules):
                    return _error(f"{word}: impossible position, {who} already has five")
        if reply and len(new_stones) >= self.width * self.height:
            return _error(f"{word}: the board is full")
        self.stones = new_stones
        if not reply:
            return Send()
        return Search(self.position(mine), excluded=frozenset(self.excluded), command="BOARD")

    def _takeback(self, x: int, y: int) -> Action:
        if not self.started:
            return _error("TAKEBACK before START")
        if not self._on_board(x, y):
            return _error(f"TAKEBACK {x},{y} is off the board")
        colour = self.colour_at(x, y)
        if colour not in (BLACK, WHITE):
            return _error(f"TAKEBACK {x},{y}: no stone there")
        last = next((c for *_, c in reversed(self.stones) if c in (BLACK, WHITE)), EMPTY)
        if colour != last:
            return _error(f"TAKEBACK {x},{y}: only a stone of the side that moved last can be taken back")
        self.stones = [s for s in self.stones if (s[0], s[1]) != (x, y)]
        return Send((m.OkReply(),))

    def _play(self, x: int, y: int) -> Action:
        problem = self._cannot_move()
        if problem:
            return _error(problem)
        if not self._on_board(x, y) or self.colour_at(x, y) != EMPTY:
            return _error(f"PLAY {x},{y}: not an empty square on the board")
        self.stones.append((x, y, self.to_move()))
        return Send((m.MoveReply(x, y),))

    def _swap2(self, points: tuple[Move, ...]) -> Action:
        if not self.started:
            return _error("SWAP2BOARD before START")
        if len(points) not in (0, 3, 5):
            return _error(f"SWAP2BOARD needs 0, 3 or 5 stones, got {len(points)}")
        if len(set(points)) != len(points) or not all(self._on_board(x, y) for x, y in points):
            return _error("SWAP2BOARD: stones must be distinct squares on the board")
        assert self.width is not None and self.height is not None
        if not points:
            # Our opening: a compact, roughly balanced three-stone start near the centre.
            cx, cy = self.width // 2, self.height // 2
            return Send((m.MultiMoveReply(((cx, cy), (cx + 1, cy - 1), (cx + 1, cy + 1))),))
        # 3 or 5 stones: we stay white and place the next white stone (a legal, simple policy).
        stones = tuple((x, y, BLACK if i % 2 == 0 else WHITE) for i, (x, y) in enumerate(points))
        position = Position(self.width, self.height, self.rules, stones, to_move=WHITE)
        return Search(position, record=False, command="SWAP2BOARD")

    # ------------------------------------------------------------------ search results

    def complete_search(self, search: Search, result: SearchResult | None) -> tuple[m.Reply, ...]:
        """The replies for a finished search; records our move when `search.record`.

        A missing or illegal result (an engine bug: off board, occupied, a renju foul for black) is
        replaced by the greedy engine's choice, and logged: a legal answer beats a lost game.
        """
        pos = search.position
        move = result.move if result is not None else None
        problem = self._illegal(pos, move)
        if problem:
            log.error("engine answered %r for %s (%s); playing the greedy move instead", move, search.command, problem)
            if not pos.empty_squares():
                return (m.ErrorReply("the board is full"),)
            from gomocup_bot.engines.greedy import choose

            move = choose(pos, search.excluded)["move"]
        assert move is not None
        if search.record:
            self.stones.append((move[0], move[1], pos.to_move))
        return (m.MoveReply(*move),)

    @staticmethod
    def _illegal(pos: Position, move: Move | None) -> str | None:
        if move is None:
            return "no move"
        x, y = move
        if not (0 <= x < pos.width and 0 <= y < pos.height):
            return "off the board"
        if move in pos.occupied():
            return "occupied"
        if pos.rules.renju and pos.to_move == BLACK:
            foul = renju_foul(Board(pos.width, pos.height, pos.stones), x, y)
            if foul:
                return f"renju foul: {foul}"
        return None
