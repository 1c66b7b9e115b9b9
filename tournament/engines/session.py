"""One engine as the game runner sees it: launch or reuse, START/RESTART + INFO, ask for moves.

This is where the protocol is spoken and clocks are kept; the rules of the game live in the
referee (`tournament/game/referee.py`) and the flow of a game in `tournament/play/game.py`. Every
failure comes back as a value (`Failure`), never as an exception, so a misbehaving engine can only
lose its game.
"""
from __future__ import annotations

import logging
import math
import os
import signal
from dataclasses import dataclass, field
from typing import Callable, Sequence

import trio

from protocol import messages as m
from protocol.rules import Rules
from tournament.engines.connection import Connection, EngineClosed, ProcessConnection, ReplyLine, TcpConnection
from tournament.game.endings import Ending
from tournament.engines.spec import EngineSpec
from tournament.engines.memory import tree_rss_bytes

log = logging.getLogger(__name__)

UNLIMITED = m.UNLIMITED


@dataclass(frozen=True)
class TimeControl:
    """Per-move and per-game limits in milliseconds (None = no limit) and how strictly they are kept.

    tolerance_ms: a move is on time if it arrives within budget + tolerance (Piskvork/Gomocup: 1000).
    stop_at_budget: send YXSTOP when the budget is used up (c-gomoku-cli does), still scoring by the tolerance.
    late_grace_ms: keep listening this long after the deadline so a late move is seen and reported
        in the ending detail (it still loses on time).
    """

    turn_ms: int | None = 5000
    match_ms: int | None = None
    tolerance_ms: int = 1000
    stop_at_budget: bool = False
    late_grace_ms: int = 250

    def describe(self) -> str:
        turn = f"{self.turn_ms / 1000:g}s/move" if self.turn_ms is not None else "no move limit"
        match = f"{self.match_ms / 1000:g}s/game" if self.match_ms is not None else "no game limit"
        return f"{turn}, {match}, tolerance {self.tolerance_ms}ms"


@dataclass(frozen=True)
class GameConfig:
    width: int = 15
    height: int = 15
    rules: Rules = Rules()
    win_length: int = 5
    time: TimeControl = TimeControl()
    max_memory: int = 0  # bytes, 0 = unlimited (Gomocup: 350 MiB)
    move_limit: int | None = None  # stones on the board at which the game is drawn; None = full board
    start_timeout: float = 10.0  # seconds to launch and answer START
    game_type: int = 1  # INFO game_type (GomocupJudge sends 1)
    suspend_idle: bool = False  # SIGSTOP an engine's process group while it is not on move (no pondering)
    extra_info: tuple[tuple[str, str], ...] = ()  # more `INFO key value` after the standard ones (API's configure)


@dataclass(frozen=True)
class Failure:
    ending: Ending
    detail: str
    line: str | None = None  # the engine's own reply line when it was the problem (BAD_REPLY)


@dataclass(frozen=True)
class MoveAnswer:
    x: int
    y: int
    ms: int


class EngineSession:
    """A connection to one engine plus the state needed to reuse it for the next game."""

    def __init__(self, spec: EngineSpec, nursery: trio.Nursery) -> None:
        self.spec = spec
        self.nursery = nursery
        self.conn: Connection | None = None
        self.started = False  # START answered on this connection
        self.reusable = True  # last exchange completed cleanly
        self.synced = False  # has received the position in this game
        self.used_ms = 0  # match clock for the current game
        self.total_ms = 0  # sum of move times this game
        self.peak_rss = 0
        self.launches = 0
        self._suspended = False
        self.board_size: tuple[int, int] | None = None  # what START/RECTSTART set on this connection
        self.ask_about = False  # send ABOUT with START on a new connection (the API reads `about`)
        self.about: m.AboutReply | None = None  # its answer, if it gave a proper one
        # called with each thinking or log line (MESSAGE, REALTIME, DEBUG, INFO detail) while a move is awaited
        self.on_line: Callable[[ReplyLine], None] | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    # ---------------------------------------------------------------- launching and starting
    async def _launch(self) -> None:
        self.launches += 1
        log.info("%s: launching (%s)", self.name, self.spec.text)
        self._suspended = False
        if self.spec.kind == "tcp":
            self.conn = await TcpConnection.connect(self.nursery, self.spec.name, self.spec.host, self.spec.port)
        else:
            self.conn = await ProcessConnection.launch(
                self.nursery, self.spec.name, self.spec.argv, cwd=self.spec.cwd, env=dict(self.spec.env) or None
            )
        self.started = False

    async def close(self, grace: float = 0.5) -> None:
        """END, `grace` seconds to exit, then kill (see Connection.close)."""
        if self.conn is not None:
            self.set_suspended(False)
            await self.conn.close(grace)
            self.conn = None
        self.started = False

    def set_suspended(self, suspended: bool) -> None:
        """Stop or continue the engine's process group (GomocupJudge's "no pondering"); no-op for remote engines."""
        conn = self.conn
        if conn is None or conn.pid is None or conn.closed or suspended == self._suspended:
            return
        try:
            os.killpg(conn.pid, signal.SIGSTOP if suspended else signal.SIGCONT)
            self._suspended = suspended
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self) -> None:
        if self.conn is not None:
            self.conn.kill()  # type: ignore[attr-defined]

    def _detail_closed(self, what: str) -> str:
        conn = self.conn
        text = f"{what}: {conn.close_reason if conn else 'no connection'}"
        code = getattr(conn, "returncode", None)
        if code is not None and "code" not in text:
            text += f" (exit code {code})"
        tail = getattr(conn, "stderr_tail", None)
        if tail:
            text += f"; stderr: {' | '.join(list(tail)[-3:])}"
        return text

    async def _closed_detail(self, what: str) -> str:
        """Like _detail_closed, after giving a dying process a moment to report its exit code."""
        exit_code = getattr(self.conn, "exit_code", None)
        if exit_code is not None:
            await exit_code(0.3)
        return self._detail_closed(what)

    async def _await_reply(self, deadline: float, what: str) -> Failure | m.Reply:
        """Read lines until a non-log reply and return it (garbage as ErrorReply); Failure on death/timeout."""
        assert self.conn is not None
        with trio.move_on_at(deadline):
            try:
                while True:
                    line = await self.conn.receive()
                    if isinstance(line.reply, m.LOG_REPLIES):
                        continue
                    return line.reply if not isinstance(line.reply, m.ProtocolError) else m.ErrorReply(line.text)
            except EngineClosed:
                detail = await self._closed_detail(f"exited before answering {what}")
                return Failure(Ending.START_FAILED if what in ("START", "ABOUT") else Ending.CRASH, detail)
        return Failure(Ending.START_FAILED, f"no answer to {what} within the start-up time")

    async def _await_ok(self, deadline: float, what: str) -> Failure | m.Reply | None:
        """Read lines until a non-log reply; None on OK, the reply if it is something else, Failure on death/timeout."""
        answer = await self._await_reply(deadline, what)
        return None if isinstance(answer, m.OkReply) else answer

    async def begin_game(self, config: GameConfig) -> Failure | None:
        """Get the engine onto an empty board with this game's settings: RESTART if it can, else (re)launch + START.

        A running engine asked for another board size gets START (or RECTSTART) again, which the
        protocol defines as a new empty board of that size; RESTART would keep the old size.
        """
        self.synced = False
        self.used_ms = self.total_ms = 0
        self.peak_rss = 0
        deadline = trio.current_time() + config.start_timeout
        if self.conn is not None and (self.conn.closed or not self.reusable):
            await self.close()
        if self.conn is not None and self.started and self.board_size != (config.width, config.height):
            log.info("%s: board %s -> %dx%d; sending START again", self.name, self.board_size, config.width, config.height)
            self.conn.drain()
            self.started = False
        if self.conn is not None and self.started:
            self.conn.drain()
            try:
                await self.conn.send(m.Restart())
                answer = await self._await_ok(deadline, "RESTART")
            except EngineClosed:
                answer = Failure(Ending.CRASH, "closed")
            if answer is None:
                self.reusable = True
                return await self._send_infos(config)
            log.info("%s: RESTART not accepted (%s); relaunching", self.name, answer)
            await self.close()
        if self.conn is None:
            try:
                with trio.fail_after(max(0.1, deadline - trio.current_time())):
                    await self._launch()
            except (OSError, trio.TooSlowError, ValueError) as exc:
                self.conn = None
                return Failure(Ending.START_FAILED, f"cannot start {self.spec.text!r}: {exc}")
            about_now = self.ask_about
        else:
            about_now = False
        assert self.conn is not None
        start = m.Start(config.width) if config.width == config.height else m.RectStart(config.width, config.height)
        self.board_size = None
        try:
            await self.conn.send(*((m.About(),) if about_now else ()), start)
        except EngineClosed:
            return Failure(Ending.START_FAILED, self._detail_closed("exited at start-up"))
        answer: Failure | m.Reply | None = None
        if about_now:  # the first answer is ABOUT's, unless the brain ignores ABOUT and this is START's OK
            first = await self._await_reply(deadline, "ABOUT")
            if isinstance(first, (Failure, m.OkReply)):
                answer = None if isinstance(first, m.OkReply) else first
            else:
                self.about = first if isinstance(first, m.AboutReply) else None
                answer = await self._await_ok(deadline, "START")
        else:
            answer = await self._await_ok(deadline, "START")
        if isinstance(answer, Failure):
            self.reusable = False
            return answer
        if answer is not None:
            self.reusable = False
            return Failure(Ending.START_FAILED, f"START answered with {answer!r} instead of OK")
        self.started = True
        self.reusable = True
        self.board_size = (config.width, config.height)
        return await self._send_infos(config)

    async def _send_infos(self, config: GameConfig) -> Failure | None:
        assert self.conn is not None
        tc = config.time
        infos = [
            m.Info("timeout_turn", str(tc.turn_ms if tc.turn_ms is not None else UNLIMITED)),
            m.Info("timeout_match", str(tc.match_ms if tc.match_ms is not None else 0)),
            m.Info("max_memory", str(config.max_memory)),
            m.Info("game_type", str(config.game_type)),
            m.Info("rule", str(config.rules.code)),
            *(m.Info(key, value) for key, value in config.extra_info),
        ]
        try:
            await self.conn.send(*infos)
        except EngineClosed:
            self.reusable = False
            return Failure(Ending.CRASH, self._detail_closed("exited while receiving INFO"))
        return None

    # ---------------------------------------------------------------- moves
    def budget_ms(self, tc: TimeControl, left_ms: float | None = None) -> tuple[float, Ending]:
        """The time this move may take and which limit binds (turn or match).

        `left_ms` is the match time left when the caller keeps that clock itself (the API's
        `Limit(time_left=...)`); by default it is the match time minus what this game used.
        """
        turn = tc.turn_ms if tc.turn_ms is not None else math.inf
        if left_ms is None:
            left_ms = tc.match_ms - self.used_ms if tc.match_ms is not None else math.inf
        return (turn, Ending.TIME_TURN) if turn <= left_ms else (max(left_ms, 0), Ending.TIME_MATCH)

    async def request_move(
        self,
        command: m.Command,
        config: GameConfig,
        opponent: "EngineSession | None" = None,
        *,
        infos: Sequence[m.Command] = (),
        time_left_ms: int | None = None,
        stop: trio.Event | None = None,
    ) -> MoveAnswer | Failure:
        """Send `infos`, time_left and the move command, then wait for a move on our clock.

        While waiting, the opponent's death is watched too (it would otherwise go unnoticed until its
        turn); that comes back as a Failure with `opponent_crashed` in the detail prefix. Thinking and
        log lines go to `on_line` as they arrive. `time_left_ms` replaces the game clock's time_left
        (and bounds the budget); setting `stop` sends YXSTOP (as `stop_at_budget` does at the budget).
        """
        assert self.conn is not None
        tc = config.time
        budget, binding = self.budget_ms(tc, time_left_ms)
        if time_left_ms is not None:
            time_left = time_left_ms
        else:
            time_left = UNLIMITED if tc.match_ms is None else tc.match_ms - self.used_ms
        for stale in self.conn.drain():
            log.debug("%s: stale line %r", self.name, stale.text)
        self.reusable = False  # until the move arrives
        try:
            await self.conn.send(*infos, m.Info("time_left", str(time_left)), command)
        except EngineClosed:
            return Failure(Ending.CRASH, self._detail_closed("exited"))
        sent = trio.current_time()
        allowed = budget + tc.tolerance_ms  # ms; inf when nothing limits this move
        stop_at = sent + budget / 1000 if tc.stop_at_budget and math.isfinite(budget) else None
        give_up = sent + (allowed + tc.late_grace_ms) / 1000 if math.isfinite(allowed) else math.inf

        result: list[ReplyLine | Failure] = []
        on_line = self.on_line

        async def wait_reply(cancel: trio.CancelScope) -> None:
            assert self.conn is not None
            try:
                while True:
                    line = await self.conn.receive()
                    if isinstance(line.reply, m.LOG_REPLIES):
                        if on_line is not None:
                            try:
                                on_line(line)
                            except Exception:  # noqa: BLE001 - a listener's failure must not cost the move
                                log.exception("%s: thinking-line listener failed", self.name)
                        continue
                    result.append(line)
                    break
            except EngineClosed:
                result.append(Failure(Ending.CRASH, await self._closed_detail("exited while thinking")))
            cancel.cancel()

        async def send_stop() -> None:
            assert self.conn is not None
            if stop is None:
                assert stop_at is not None
                await trio.sleep_until(stop_at)
            else:
                with trio.move_on_at(stop_at if stop_at is not None else math.inf):
                    await stop.wait()
            try:
                await self.conn.send(m.YxStop())
            except EngineClosed:
                pass

        async def watch_opponent(cancel: trio.CancelScope) -> None:
            assert opponent is not None and opponent.conn is not None
            await opponent.conn.closed_event.wait()
            result.append(Failure(Ending.CRASH, "opponent:" + await opponent._closed_detail("exited while waiting")))
            cancel.cancel()

        with trio.move_on_at(give_up):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(wait_reply, nursery.cancel_scope)
                if stop_at is not None or stop is not None:
                    nursery.start_soon(send_stop)
                if opponent is not None and opponent.conn is not None:
                    nursery.start_soon(watch_opponent, nursery.cancel_scope)
        if not result:
            seconds = (allowed) / 1000
            return Failure(binding, f"no move within {seconds:.3g}s (budget {budget:.0f}ms + tolerance {tc.tolerance_ms}ms)")
        first = result[0]
        if isinstance(first, Failure):
            if first.detail.startswith("opponent:"):
                self.reusable = True  # we were interrupted, not at fault; the game is over anyway
            return first
        elapsed_ms = (first.at - sent) * 1000.0
        reply = first.reply
        if not isinstance(reply, m.MoveReply):
            return Failure(Ending.BAD_REPLY, f"reply {first.text[:80]!r} is not a move", line=first.text)
        self.used_ms += int(round(elapsed_ms))
        self.total_ms += int(round(elapsed_ms))
        if elapsed_ms > allowed:
            return Failure(
                binding,
                f"move {reply.x},{reply.y} arrived after {elapsed_ms:.0f}ms; allowed {budget:.0f}ms + tolerance {tc.tolerance_ms}ms",
            )
        self.reusable = True
        return MoveAnswer(reply.x, reply.y, int(round(elapsed_ms)))

    def check_memory(self, config: GameConfig) -> Failure | None:
        """Measure the engine's process tree; a Failure if it exceeds max_memory."""
        if self.conn is None or self.conn.pid is None:
            return None
        rss = tree_rss_bytes(self.conn.pid)
        self.peak_rss = max(self.peak_rss, rss)
        if config.max_memory and rss > config.max_memory:
            self.reusable = False
            return Failure(Ending.MEMORY, f"resident memory {rss / 2**20:.1f} MiB > limit {config.max_memory / 2**20:.1f} MiB")
        return None


@dataclass
class EnginePool:
    """Idle engine sessions per engine name, so a game can RESTART an engine instead of relaunching it."""

    nursery: trio.Nursery
    idle: dict[str, list[EngineSession]] = field(default_factory=dict)
    all_sessions: list[EngineSession] = field(default_factory=list)

    def acquire(self, spec: EngineSpec) -> EngineSession:
        sessions = self.idle.setdefault(spec.name, [])
        while sessions:
            session = sessions.pop()
            if session.conn is not None and not session.conn.closed and session.spec == spec:
                return session
        session = EngineSession(spec, self.nursery)
        self.all_sessions.append(session)
        return session

    async def release(self, session: EngineSession) -> None:
        """Keep a healthy process for the next game; close anything else (remote sessions are one per game)."""
        healthy = session.conn is not None and not session.conn.closed and session.reusable and session.started
        if healthy and not session.spec.is_remote:
            self.idle.setdefault(session.name, []).append(session)
        else:
            await session.close()
            if session in self.all_sessions:
                self.all_sessions.remove(session)

    async def close_all(self) -> None:
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:
                for session in self.all_sessions:
                    nursery.start_soon(session.close)
        self.all_sessions.clear()
        self.idle.clear()
