"""The async engine API: `Engine` on trio, its `Limit`, `PlayResult` and `AnalysisStream`.

Users import it from `tournament.engine` (which also gives the sync `SimpleEngine` of
`tournament.api.engine_sync`, itself built on this module). docs/api.md has the guide.

Built on the manager's own layers, so an engine is launched, clocked and judged exactly as in a
tournament: `tournament.engines.connection` (pipes / TCP), `tournament.engines.session` (START/RESTART, INFO,
clocks, failures), `tournament.api.position` on the referee and `protocol.judge` (legality),
`tournament.api.info` (what engines print while thinking). On the wire, each call sends the
position's board size and rule (START again if the size changed, RESTART + BOARD for a new
position) and the limit's INFO keys; a position that continues the engine's own last move by one
opponent move goes as TURN, as in a game. Failures are raised as the typed errors of
`tournament.api.errors`; after one, the next call starts the engine afresh (a new process or connection).
"""
from __future__ import annotations

import logging
import math
import shlex
from collections import deque
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Mapping, Sequence
from urllib.parse import urlencode

import trio

from protocol import messages as m
from protocol.rules import Rules
from tournament.engines.connection import ReplyLine
from tournament.game.endings import Ending
from tournament.engines.spec import EngineSpec, parse_engine_spec
from tournament.api.errors import (
    EngineError,
    EngineReplyError,
    EngineStartError,
    EngineTerminatedError,
    EngineTimeoutError,
    IllegalMoveError,
    PositionError,
)
from tournament.api.info import Info, InfoReader
from tournament.api.position import BLACK, WHITE, Position, Square, board_command
from tournament.engines.session import UNLIMITED, EngineSession, Failure, GameConfig, TimeControl

__all__ = [
    "AnalysisStream", "BLACK", "WHITE", "Engine", "EngineError", "EngineReplyError", "EngineStartError",
    "EngineTerminatedError", "EngineTimeoutError", "IllegalMoveError", "Info", "Limit", "PlayResult",
    "Position", "PositionError", "Square",
]

log = logging.getLogger(__name__)

DEFAULT_TOLERANCE = 1.0  # seconds an answer may come after its time limit (Gomocup's tolerance)
DEFAULT_START_TIMEOUT = 10.0  # seconds to launch or connect and answer START
DETAIL_PLAY, DETAIL_SUMMARY, DETAIL_ALL = 0, 2, 3  # INFO show_detail: none, summaries, summaries + REALTIME


@dataclass(frozen=True)
class Limit:
    """How long the engine may think, sent as INFO keys before the move is asked for.

    Times are in seconds (the wire carries milliseconds): `turn` -> `timeout_turn`, `match` ->
    `timeout_match` (the whole game's time), `time_left` -> `time_left` (what is left of it; the
    match time when not given); `nodes` -> `max_node`, `depth` -> `max_depth` (Yixin/Rapfi keys,
    which Gomocup-only brains ignore). `turn=0` asks for an answer as fast as possible. A move
    that takes longer than min(turn, time_left) plus the engine's tolerance raises
    EngineTimeoutError; with no time given, nothing is timed.
    """

    turn: float | None = None
    match: float | None = None
    time_left: float | None = None
    nodes: int | None = None
    depth: int | None = None

    def __post_init__(self) -> None:
        for name in ("turn", "match", "time_left", "nodes", "depth"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"Limit({name}=...) must be a number, got {value!r}")
            if value < 0 and name != "time_left":
                raise ValueError(f"Limit({name}=...) must not be negative, got {value!r}")
            if name in ("nodes", "depth") and int(value) != value:
                raise ValueError(f"Limit({name}=...) must be a whole number, got {value!r}")

    @property
    def is_limited(self) -> bool:
        return any(getattr(self, name) is not None for name in ("turn", "match", "time_left", "nodes", "depth"))

    @staticmethod
    def _ms(seconds: float | None) -> int | None:
        return None if seconds is None else int(round(seconds * 1000))

    def time_control(self, tolerance: float) -> TimeControl:
        """The session's clock settings; a `time_left` without `match` still tells the brain that a
        game clock runs (some brains read time_left only when timeout_match is not 0)."""
        match = self.match if self.match is not None else self.time_left
        return TimeControl(turn_ms=self._ms(self.turn), match_ms=self._ms(match),
                           tolerance_ms=int(round(tolerance * 1000)), late_grace_ms=0)

    def time_left_ms(self) -> int | None:
        return self._ms(self.time_left if self.time_left is not None else self.match)


@dataclass(frozen=True)
class PlayResult:
    """The engine's move, how long it took on our clock (ms, from sending the command to reading
    the move) and what it said while thinking (`info.move` is the move too)."""

    move: Square
    time_ms: int
    info: Info = field(default_factory=Info)


class AnalysisStream:
    """A running analysis: iterate it (`async for info in stream`) for the engine's updates as they
    come, `stop()` it (YXSTOP: the engine answers with its best move now), `await wait()` for
    the final Info. Leaving `async with` stops it and waits, so the engine is free again.

    `info` is the latest view of the principal line, `lines` every line of a multi-PV search.
    """

    _END = object()

    def __init__(self, position: Position, limit: Limit, multipv: int | None) -> None:
        self.position = position
        self.limit = limit
        self.multipv = multipv
        self.info = Info()
        self.lines: list[Info] = []
        self.move: Square | None = None
        self.time_ms: int | None = None
        self._pending: deque[Any] = deque(maxlen=10_000)  # a consumer that does not read loses the oldest
        self._lot = trio.lowlevel.ParkingLot()
        self._stop = trio.Event()
        self._done = trio.Event()
        self._error: BaseException | None = None

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def stop(self) -> None:
        """Ask the engine to answer now (YXSTOP); returns at once. No-op once it has answered."""
        self._stop.set()

    async def wait(self) -> Info:
        """The final Info (with the engine's `move`), once the engine has answered."""
        await self._done.wait()
        if self._error is not None:
            raise self._error
        return self.info

    # -- the engine's side
    def _update(self, info: Info, lines: list[Info]) -> None:
        if info.multipv in (None, 1):
            self.info = info
        self.lines = lines
        self._pending.append(info)
        self._lot.unpark_all()

    def _finish(self, info: Info, lines: list[Info], move: Square | None, ms: int | None, error: BaseException | None) -> None:
        self.info, self.lines, self.move, self.time_ms, self._error = info, lines, move, ms, error
        self._pending.append(self._END)
        self._done.set()
        self._lot.unpark_all()

    # -- the consumer's side
    def __aiter__(self) -> "AnalysisStream":
        return self

    async def __anext__(self) -> Info:
        while not self._pending:
            await self._lot.park()
        item = self._pending[0]
        if item is self._END:
            if self._error is not None:
                raise self._error
            raise StopAsyncIteration
        self._pending.popleft()
        return item

    async def __aenter__(self) -> "AnalysisStream":
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.stop()
        with trio.CancelScope(shield=True):
            await self._done.wait()
        if exc is None and self._error is not None:
            raise self._error


def _single(group: BaseExceptionGroup) -> BaseException:
    """The one exception that crossed our nursery (trio wraps it in a group of one), so callers of
    `async with Engine...` see the typed error itself; a group of several stays a group."""
    return group.exceptions[0] if len(group.exceptions) == 1 else group


class Engine:
    """One engine (a brain process or a remote session), async on trio.

    Open it with `Engine.popen(command)`, `Engine.connect("tcp://host:port")`,
    `Engine.builtin("gomocup-bot")` or `Engine.open(spec)` in `async with` (closing sends END and
    kills the process after a grace period), or inside your own nursery with `await Engine.start(nursery, spec)`
    and `await engine.aclose()`. Calls on one engine run one at a time; a call made while an
    `analysis()` runs stops that analysis first.
    """

    def __init__(self, spec: EngineSpec, nursery: trio.Nursery, *, tolerance: float = DEFAULT_TOLERANCE,
                 start_timeout: float = DEFAULT_START_TIMEOUT, close_grace: float = 0.5, warm_up: bool = True) -> None:
        self.spec = spec
        self.name = spec.name
        self.tolerance = tolerance
        self.start_timeout = start_timeout
        self.close_grace = close_grace
        self.warm_up = warm_up
        self._nursery = nursery
        self._session = EngineSession(spec, nursery)
        self._session.ask_about = True
        self._lock = trio.Lock()
        self._known: Position | None = None  # the engine's board right after its own last move
        self._empty: Position | None = None  # ... or the empty board it was just STARTed on
        self._sent: dict[str, str] = {}  # INFO values sent on the current connection
        self._sent_on: object = None  # ... which is this one
        self._board = (15, 15)
        self._rules = Rules()
        self._max_memory = 0
        self._extra: dict[str, str] = {}
        self._analysis: AnalysisStream | None = None
        self._closed = False

    # ------------------------------------------------------------------ opening and closing
    @staticmethod
    def _process_spec(command: str | Sequence[str], *, name: str | None = None, cwd: str | None = None,
                      env: Mapping[str, str] | None = None) -> EngineSpec:
        argv = tuple(shlex.split(command)) if isinstance(command, str) else tuple(str(a) for a in command)
        if not argv:
            raise ValueError("empty command")
        text = command if isinstance(command, str) else shlex.join(argv)
        env_items = tuple(sorted((env or {}).items()))
        guess = parse_engine_spec(shlex.join(argv))  # its naming of command lines (`python x.py` -> x)
        label = name or (guess.name if guess.kind == "process" else argv[0].rsplit("/", 1)[-1])
        return EngineSpec(label, text, "process", argv, cwd=cwd, env=env_items)

    @staticmethod
    def _tcp_spec(address: str, *, name: str | None = None) -> EngineSpec:
        text = address if address.startswith("tcp://") else f"tcp://{address}"
        return parse_engine_spec(f"{name}={text}" if name else text)

    @staticmethod
    def _builtin_spec(engine: str, *, name: str | None = None, **engine_options: Any) -> EngineSpec:
        query = urlencode({k.replace("_", "-"): str(v) for k, v in engine_options.items()})
        text = f"builtin:{engine}" + (f"?{query}" if query else "")
        return parse_engine_spec(f"{name}={text}" if name else text)

    @classmethod
    def popen(cls, command: str | Sequence[str], *, name: str | None = None, cwd: str | None = None,
              env: Mapping[str, str] | None = None, **options: Any) -> AbstractAsyncContextManager["Engine"]:
        """A brain process: `command` is a command line (split like a shell) or an argv list;
        `cwd` and `env` (added to ours) as for a subprocess."""
        return cls._opened(cls._process_spec(command, name=name, cwd=cwd, env=env), **options)

    @classmethod
    def connect(cls, address: str, *, name: str | None = None, **options: Any) -> AbstractAsyncContextManager["Engine"]:
        """A remote brain session, e.g. `gomocup-bot serve`: `tcp://HOST:PORT` (or `HOST:PORT`)."""
        return cls._opened(cls._tcp_spec(address, name=name), **options)

    @classmethod
    def builtin(cls, engine: str = "gomocup-bot", *, name: str | None = None, tolerance: float = DEFAULT_TOLERANCE,
                start_timeout: float = DEFAULT_START_TIMEOUT, close_grace: float = 0.5, warm_up: bool = True,
                **engine_options: Any) -> AbstractAsyncContextManager["Engine"]:
        """One of our engines as a process (`python -m gomocup_bot --engine NAME`): random, greedy,
        mcts-plain, minimax, gomocup-bot; other keywords are its options, as in
        `builtin:NAME?level=3&backend=mcts` (`Engine.builtin("gomocup-bot", backend="mcts")`).

        `warm_up`: before returning, wait until its search is loaded (one depth-1 search), so that
        the first real call gets a real search and not the quick move a brain answers with while its
        numba kernels load."""
        return cls._opened(cls._builtin_spec(engine, name=name, **engine_options), tolerance=tolerance,
                           start_timeout=start_timeout, close_grace=close_grace, warm_up=warm_up)

    @classmethod
    def open(cls, spec: str | EngineSpec, **options: Any) -> AbstractAsyncContextManager["Engine"]:
        """Any engine specification `gomocup-tournament` takes: a command line, `tcp://HOST:PORT`,
        `builtin:NAME[?opt=val]`, optionally as `LABEL=SPEC`."""
        return cls._opened(parse_engine_spec(spec) if isinstance(spec, str) else spec, **options)

    @classmethod
    @asynccontextmanager
    async def _opened(cls, spec: EngineSpec, **options: Any) -> AsyncIterator["Engine"]:
        problem: BaseException | None = None
        try:
            async with trio.open_nursery() as nursery:
                engine = await cls.start(nursery, spec, **options)
                try:
                    yield engine
                finally:
                    await engine.aclose()
        except BaseExceptionGroup as group:
            problem = _single(group)
        if problem is not None:
            raise problem  # outside the handler: no "during handling of the group" chain

    @classmethod
    async def start(cls, nursery: trio.Nursery, spec: str | EngineSpec, **options: Any) -> "Engine":
        """Launch (or connect) and START the engine, its reader tasks running in `nursery`;
        raises EngineStartError. Close it with `aclose()`."""
        engine = cls(parse_engine_spec(spec) if isinstance(spec, str) else spec, nursery, **options)
        try:
            await engine._begin(Position(*engine._board, engine._rules), Limit())
            if engine.spec.kind == "builtin" and engine.warm_up:
                await engine._warm()
        except BaseException:
            await engine.aclose()
            raise
        return engine

    async def _warm(self) -> None:
        """One depth-1 move with no time limit: our brain answers it only once its search is loaded."""
        width, height = self._board
        centre = Position.from_moves([(width // 2, height // 2)], (width, height), self._rules)
        with trio.fail_after(max(self.start_timeout, 60.0)):
            await self.play(centre, Limit(depth=1))

    async def aclose(self) -> None:
        """Stop any analysis, send END, wait `close_grace` seconds, then kill. Never raises."""
        if self._closed:
            return
        self._closed = True
        if self._analysis is not None:
            self._analysis.stop()
        with trio.CancelScope(shield=True):
            await self._session.close(self.close_grace)

    async def __aenter__(self) -> "Engine":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    # ------------------------------------------------------------------ what it is
    @property
    def about(self) -> dict[str, str]:
        """The engine's ABOUT answer (name, version, author, country, www, email, ...); {} if it gave none."""
        about = self._session.about
        return dict(about.fields) if about is not None else {}

    @property
    def pid(self) -> int | None:
        """The process id (None for a remote engine or when not running)."""
        conn = self._session.conn
        return conn.pid if conn is not None and not conn.closed else None

    @property
    def closed(self) -> bool:
        return self._closed

    def __repr__(self) -> str:
        return f"<Engine {self.name!r} ({self.spec.text}){' closed' if self._closed else ''}>"

    # ------------------------------------------------------------------ settings
    async def configure(self, *, rule: str | int | Rules | None = None, board: int | tuple[int, int] | None = None,
                        max_memory: int | None = None, threads: int | None = None, **extra_info: Any) -> None:
        """Settings kept for every later position: `board` (START now if the size changes), `rule`
        (name, code or Rules), `max_memory` in bytes (0 = none), `threads` (INFO thread_num) and any
        other INFO key as a keyword (`hash_size=...`, `caution_factor=...`). Positions of another
        board or rule switch the engine to theirs when they are played."""
        for key in extra_info:
            if not key.isidentifier() or not key.islower():
                raise ValueError(f"INFO key {key!r} must be a lower-case word")
        async with self._exclusive():
            probe = Position.from_moves((), board if board is not None else self._board,
                                        rule if rule is not None else self._rules)
            self._board, self._rules = (probe.width, probe.height), probe.rules
            if max_memory is not None:
                if max_memory < 0:
                    raise ValueError("max_memory must be 0 (no limit) or a number of bytes")
                self._max_memory = int(max_memory)
            if threads is not None:
                self._extra["thread_num"] = str(int(threads))
            self._extra.update({k: str(v) for k, v in extra_info.items()})
            self._known = None
            await self._begin(probe, Limit())

    # ------------------------------------------------------------------ thinking
    async def play(self, position: Position, limit: Limit, *, info: bool = False,
                   on_info: Callable[[Info], None] | None = None) -> PlayResult:
        """The engine's move in `position` (for the side to move) within `limit`.

        `info=True` asks the engine for its search summaries (INFO show_detail); whatever it
        prints is read into `PlayResult.info` either way, and each update goes to `on_info` as
        it arrives. Raises PositionError (nothing is sent), EngineTimeoutError,
        EngineTerminatedError, EngineReplyError, IllegalMoveError, EngineStartError.
        """
        reader = self._reader(position)
        async with self._exclusive():
            move, ms = await self._ask(position, limit, detail=DETAIL_SUMMARY if info else DETAIL_PLAY,
                                       reader=reader, on_info=on_info)
        return PlayResult(move, ms, reader.finish(move))

    async def analyse(self, position: Position, limit: Limit, *, multipv: int | None = None,
                      on_info: Callable[[Info], None] | None = None) -> Info | list[Info]:
        """What the engine thinks of `position` within `limit`: the last Info it reported (depth,
        eval, winrate, nodes, speed, PV ...) with its answer as `move` and its lines in `raw`.

        With `multipv=n` the engine is asked for its n best moves (YXNBEST, a Yixin/Rapfi
        extension) and the result is a list of Info, best first, as many as it reported.
        """
        if not limit.is_limited:
            raise ValueError("analyse needs a limit (turn, match, time_left, nodes or depth); use analysis() to think until stopped")
        reader = self._reader(position)
        async with self._exclusive():
            move, _ = await self._ask(position, limit, detail=DETAIL_SUMMARY, reader=reader, on_info=on_info,
                                      multipv=multipv)
        best = reader.finish(move)
        return reader.all() if multipv else best

    def analysis(self, position: Position, limit: Limit | None = None, *, multipv: int | None = None) -> AnalysisStream:
        """Start analysing `position` (without a limit: until stopped) and return the stream of
        updates at once. Use it in `async with`; see AnalysisStream."""
        if self._closed:
            raise EngineTerminatedError(self.name, "the engine is closed")
        self._check(position)
        stream = AnalysisStream(position, limit or Limit(), multipv)
        if self._analysis is not None:
            self._analysis.stop()
        self._analysis = stream
        self._nursery.start_soon(self._run_analysis, stream)
        return stream

    async def _run_analysis(self, stream: AnalysisStream) -> None:
        reader = self._reader(stream.position)
        error: BaseException | None = None
        move: Square | None = None
        ms: int | None = None

        def on_info(info: Info) -> None:
            stream._update(info, reader.all())

        try:
            async with self._lock:
                if self._closed:
                    raise EngineTerminatedError(self.name, "the engine is closed")
                move, ms = await self._ask(stream.position, stream.limit, detail=DETAIL_ALL, reader=reader,
                                           on_info=on_info, stop=stream._stop, multipv=stream.multipv)
        except (EngineError, PositionError, ValueError) as exc:
            error = exc
        except Exception as exc:  # noqa: BLE001 - a bug here must reach the stream's reader, not the nursery
            log.exception("%s: analysis failed", self.name)
            error = exc
        except trio.Cancelled:
            error = EngineTerminatedError(self.name, "the engine was closed during the analysis")
            raise
        finally:
            best = reader.finish(move) if move is not None else reader.info
            stream._finish(best, reader.all(), move, ms, error)
            if self._analysis is stream:
                self._analysis = None

    # ------------------------------------------------------------------ the exchange
    @asynccontextmanager
    async def _exclusive(self) -> AsyncIterator[None]:
        """One exchange at a time; a running analysis is stopped first."""
        if self._closed:
            raise EngineTerminatedError(self.name, "the engine is closed")
        if self._analysis is not None:
            self._analysis.stop()
        async with self._lock:
            if self._closed:
                raise EngineTerminatedError(self.name, "the engine is closed")
            yield

    def _reader(self, position: Position) -> InfoReader:
        self._check(position)
        return InfoReader(position.width, position.height)

    def _check(self, position: Position) -> None:
        if not isinstance(position, Position):
            raise TypeError(f"expected a Position, got {type(position).__name__} (see Position.from_moves)")
        if position.is_over():
            raise PositionError(f"no move to play: the game is over ({position.ending.description})")  # type: ignore[union-attr]

    def _config(self, position: Position, limit: Limit) -> GameConfig:
        return GameConfig(
            width=position.width, height=position.height, rules=position.rules, time=limit.time_control(self.tolerance),
            max_memory=self._max_memory, start_timeout=self.start_timeout, game_type=1,
            extra_info=tuple(self._extra.items()),
        )

    async def _begin(self, position: Position, limit: Limit) -> GameConfig:
        """START (or RESTART) the engine on an empty board of the position's size and rule, with the settings."""
        config = self._config(position, limit)
        gone = self._session.conn
        gone_reason = gone.close_reason if gone is not None and gone.closed else ""
        failure = await self._session.begin_game(config)
        if failure is not None:
            self._known = None
            if gone_reason and failure.ending is Ending.START_FAILED:  # it died while idle, and will not come back
                failure = Failure(failure.ending, f"it had stopped ({gone_reason}); {failure.detail}", failure.line)
            raise self._error(failure, limit)
        if self._session.conn is not self._sent_on:
            self._sent_on, self._sent = self._session.conn, {}
        self._empty = Position(position.width, position.height, position.rules)
        tc = config.time
        self._sent.update(timeout_turn=str(tc.turn_ms if tc.turn_ms is not None else UNLIMITED),
                          timeout_match=str(tc.match_ms or 0), rule=str(position.rules.code))
        return config

    def _healthy(self) -> bool:
        session = self._session
        return (session.conn is not None and not session.conn.closed and session.started and session.reusable
                and session.conn is self._sent_on)

    def _continues(self, position: Position) -> bool:
        """Is `position` the engine's own last position plus one opponent move (so TURN will do)?"""
        known = self._known
        return (
            known is not None and self._healthy()
            and (known.width, known.height, known.rules) == (position.width, position.height, position.rules)
            and len(position.moves) == len(known.moves) + 1 and position.moves[:-1] == known.moves
        )

    def _on_empty_board(self, position: Position) -> bool:
        """Was the engine just STARTed (or RESTARTed) on this position's board and rule, nothing played yet?"""
        empty = self._empty
        return (empty is not None and self._healthy()
                and (empty.width, empty.height, empty.rules) == (position.width, position.height, position.rules))

    def _limit_infos(self, limit: Limit, detail: int) -> list[m.Info]:
        """The INFO lines whose value differs from what this connection was last told."""
        tc = limit.time_control(self.tolerance)
        wanted = {
            "timeout_turn": str(tc.turn_ms if tc.turn_ms is not None else UNLIMITED),
            "timeout_match": str(tc.match_ms or 0),
            "max_node": str(limit.nodes or 0),
            "max_depth": str(limit.depth or 0),
            "show_detail": str(detail),
        }
        out = []
        for key, value in wanted.items():
            if self._sent.get(key, "0") != value:
                out.append(m.Info(key, value))
                self._sent[key] = value
        return out

    async def _ask(self, position: Position, limit: Limit, *, detail: int, reader: InfoReader,
                   on_info: Callable[[Info], None] | None, stop: trio.Event | None = None,
                   multipv: int | None = None) -> tuple[Square, int]:
        """Send the position and limit, wait for the move on our clock, judge it."""
        self._check(position)
        if multipv is not None and multipv < 1:
            raise ValueError("multipv must be at least 1")
        session = self._session
        if multipv is None and self._continues(position):
            config = self._config(position, limit)
            prelude: list[m.Command] = []
            command: m.Command = m.Turn(*position.moves[-1])
        else:
            self._known = None
            if self._on_empty_board(position):
                config = self._config(position, limit)
            else:
                config = await self._begin(position, limit)
            if multipv is not None:
                stones = board_command(position.moves, position.to_move)
                prelude = [m.YxBoard(stones.stones if isinstance(stones, m.Board) else ())]
                command = m.YxNBest(multipv)
            else:
                prelude, command = [], board_command(position.moves, position.to_move)
        self._known = self._empty = None  # until the move is in

        def on_line(line: ReplyLine) -> None:
            update = reader.feed(line.reply, line.text)
            if update is not None and on_info is not None:
                try:
                    on_info(update)
                except Exception:  # noqa: BLE001 - the caller's callback must not cost the move
                    log.exception("%s: on_info callback failed", self.name)

        session.on_line = on_line
        try:
            answer = await session.request_move(
                command, config, infos=[*self._limit_infos(limit, detail), *prelude],
                time_left_ms=limit.time_left_ms(), stop=stop,
            )
        finally:
            session.on_line = None
        if isinstance(answer, Failure):
            raise self._error(answer, limit)
        move = (answer.x, answer.y)
        ending = position.judge(move)
        if ending is not None and ending not in (Ending.FIVE, Ending.FULL_BOARD, Ending.MOVE_LIMIT):
            if ending in (Ending.OCCUPIED, Ending.OFF_BOARD):
                session.reusable = False  # its idea of the board is wrong: start it afresh next time
            raise IllegalMoveError(self.name, f"answered {move[0]},{move[1]}: {ending.description}", move, ending)
        if multipv is None:
            after = position.push(move)
            self._known = after if not after.is_over() else None
        return move, answer.ms

    def _error(self, failure: Failure, limit: Limit) -> EngineError:
        """The typed error for a session's Failure."""
        conn = self._session.conn
        if failure.ending in (Ending.TIME_TURN, Ending.TIME_MATCH):
            tc = limit.time_control(self.tolerance)
            budget, _ = self._session.budget_ms(tc, limit.time_left_ms())
            return EngineTimeoutError(self.name, failure.detail, (budget + tc.tolerance_ms) / 1000, failure.ending)
        if failure.ending is Ending.BAD_REPLY:
            return EngineReplyError(self.name, failure.detail, failure.line or "")
        if failure.ending is Ending.START_FAILED:
            return EngineStartError(self.name, failure.detail)
        exit_code = getattr(conn, "returncode", None)
        stderr = tuple(getattr(conn, "stderr_tail", ()))[-5:]
        return EngineTerminatedError(self.name, failure.detail, exit_code, stderr)

