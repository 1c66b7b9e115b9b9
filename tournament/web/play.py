"""One human-vs-engine game per browser connection, played through the manager's own code.

The engine is an `EngineSession` (tournament/engines/session.py): launched or RESTARTed, given the INFO
settings, asked for moves on the manager's clock, closed with END and killed if it lingers. Every
move, the human's and the engine's, is judged by `GameReferee` (tournament/game/referee.py on
protocol/judge.py). This module only adds what a person needs on top: choosing the settings,
undo (TAKEBACK), swapping colours, and forwarding the engine's thinking lines as they arrive.

`PlayController.handle(text)` takes one WebSocket message (JSON) and never raises for bad input:
whatever cannot be understood or is not allowed now is answered with `{"type": "error"}`.
"""
from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import trio

from protocol import messages as m
from protocol.parser import parse_reply
from protocol.rules import Rules
from tournament.engines.connection import EngineClosed, ReplyLine
from tournament.game.endings import Ending
from tournament.engines.spec import EngineSpec
from tournament.api.info import parse_text
from tournament.api.position import board_command
from tournament.game.referee import BLACK, WHITE, GameReferee
from tournament.engines.session import EngineSession, Failure, GameConfig, TimeControl

log = logging.getLogger(__name__)

MAX_MESSAGE_CHARS = 4096  # a longer WebSocket message is refused unread
RULE_NAMES = ("freestyle", "exact-five", "renju", "caro")
MIN_SIZE, MAX_SIZE = 5, 22
MIN_TURN, MAX_TURN = 0.1, 60.0
TAKEBACK_TIMEOUT = 5.0


class BadRequest(Exception):
    """A message that is malformed or not allowed now; its text goes back to the page."""


def thinking_info(line: str, width: int = MAX_SIZE, height: int = MAX_SIZE) -> dict[str, Any] | None:
    """A brain's thinking line as the page shows it, or None for lines that say nothing useful.

    Summaries are read by the engine API's reader (`tournament.api.info`), so every dialect it knows
    (ours, Rapfi's, Yixin's, plain `depth .. eval ..`) shows its depth, score, winrate and PV.
    """
    reply = parse_reply(line)
    if isinstance(reply, m.RealtimeReply):
        if reply.move is None:
            return None
        return {"kind": reply.kind.lower(), "move": list(reply.move)}
    if not isinstance(reply, m.MessageReply):
        return None
    text = reply.text.strip()[:200]
    info: dict[str, Any] = {"kind": "summary", "text": text}
    fields = parse_text(reply.text, width, height)
    for key, name in (("depth", "depth"), ("nodes", "nodes"), ("eval", "score"), ("winrate", "winrate")):
        if fields.get(key) is not None:
            info[name] = fields[key]
    if fields.get("pv"):
        info["pv"] = [list(square) for square in fields["pv"]][:30]
    return info


@dataclass
class GameState:
    """The game in progress on one page."""

    id: int
    engine: str
    config: GameConfig
    human: int  # BLACK or WHITE
    referee: GameReferee
    ms: list[int] = field(default_factory=list)  # thinking time per stone (human's measured by us)
    result: dict[str, Any] | None = None
    foul_pending: bool = False  # the game ended on a human foul (that stone was never placed)
    engine_knows: int = 0  # how many of the moves the engine has been told (or played)
    human_ms: int = 0
    turn_started: float = 0.0

    @property
    def to_move(self) -> int:
        return self.referee.to_move

    @property
    def over(self) -> bool:
        return self.result is not None


def _int(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or int(value) != value:
        raise BadRequest(f"{name} must be a whole number")
    value = int(value)
    if not low <= value <= high:
        raise BadRequest(f"{name} must be between {low} and {high}")
    return value


class PlayController:
    """One page's games. `send` queues a JSON-able dict for the page (never blocks)."""

    def __init__(
        self,
        engines: dict[str, EngineSpec],
        send: Callable[[dict[str, Any]], None],
        nursery: trio.Nursery,
        *,
        engine_slots: trio.Semaphore | None = None,
        tolerance_ms: int = 1000,
        start_timeout: float = 15.0,
    ) -> None:
        self.engines = engines
        self.send = send
        self.nursery = nursery
        self.slots = engine_slots
        self.tolerance_ms = tolerance_ms
        self.start_timeout = start_timeout
        self.session: EngineSession | None = None
        self.holding_slot = False
        self.game: GameState | None = None
        self.game_ids = 0
        self.busy: trio.CancelScope | None = None  # the engine is starting or thinking
        self.busy_what = ""
        self.closed = False
        self.engine_lock = trio.Lock()  # one engine exchange at a time (a cancelled one finishes first)

    # ------------------------------------------------------------------ messages in
    def hello(self) -> dict[str, Any]:
        return {
            "type": "hello",
            "engines": list(self.engines),
            "rules": list(RULE_NAMES),
            "size": [MIN_SIZE, MAX_SIZE],
            "turn": [MIN_TURN, MAX_TURN],
        }

    async def handle(self, raw: Any) -> None:
        """Answer one message from the page; bad input gets an error reply, nothing else."""
        try:
            if not isinstance(raw, str):
                raise BadRequest("messages must be JSON text")
            if len(raw) > MAX_MESSAGE_CHARS:
                raise BadRequest(f"message longer than {MAX_MESSAGE_CHARS} characters")
            try:
                message = json.loads(raw)
            except (ValueError, RecursionError):
                raise BadRequest("not JSON") from None
            if not isinstance(message, dict) or not isinstance(message.get("type"), str):
                raise BadRequest('a message is a JSON object with a "type"')
            kind = message["type"]
            if kind == "new":
                await self._new(message)
            elif kind == "move":
                await self._human_move(message)
            elif kind == "undo":
                await self._undo()
            elif kind == "swap":
                await self._swap()
            elif kind == "state":
                self._send_state()
            elif kind == "ping":
                self.send({"type": "pong"})
            else:
                raise BadRequest(f"unknown message type {kind[:40]!r}")
        except BadRequest as exc:
            self.send({"type": "error", "error": str(exc)})
        except Exception:  # noqa: BLE001 - a bug must cost this message, not the server or the page
            log.exception("message not handled")
            self.send({"type": "error", "error": "internal error; the message was not handled"})

    # ------------------------------------------------------------------ new game
    def _config(self, message: dict[str, Any]) -> tuple[EngineSpec, GameConfig, int]:
        name = message.get("engine")
        if not isinstance(name, str) or name not in self.engines:
            raise BadRequest("engine must be one of: " + ", ".join(self.engines))
        size = _int(message.get("size", 15), "size", MIN_SIZE, MAX_SIZE)
        rule = message.get("rule", "freestyle")
        if rule not in RULE_NAMES:
            raise BadRequest("rule must be one of: " + ", ".join(RULE_NAMES))
        turn = message.get("turn", 1.0)
        if isinstance(turn, bool) or not isinstance(turn, (int, float)) or not math.isfinite(turn) or not MIN_TURN <= turn <= MAX_TURN:
            raise BadRequest(f"turn (seconds per move) must be between {MIN_TURN:g} and {MAX_TURN:g}")
        colour = message.get("colour", "black")
        if colour not in ("black", "white"):
            raise BadRequest('colour must be "black" or "white"')
        config = GameConfig(
            width=size, height=size, rules=Rules.from_name(rule),
            time=TimeControl(turn_ms=int(round(turn * 1000)), match_ms=None, tolerance_ms=self.tolerance_ms),
            start_timeout=self.start_timeout,
        )
        return self.engines[name], config, BLACK if colour == "black" else WHITE

    async def _new(self, message: dict[str, Any]) -> None:
        spec, config, human = self._config(message)
        if self.busy is not None:
            self.busy.cancel()  # the old game's engine is cut off; its session will be relaunched
            self.busy = None
        if not self.holding_slot and self.slots is not None:
            try:
                self.slots.acquire_nowait()
            except trio.WouldBlock:
                raise BadRequest("the server is running as many engines as it may; try again later") from None
            self.holding_slot = True
        self.game_ids += 1
        self.game = GameState(
            self.game_ids, spec.name, config, human,
            GameReferee(config.width, config.height, config.rules, config.win_length, config.move_limit),
        )
        self._start_busy("starting " + spec.name, self._begin, self.game, spec)

    async def _begin(self, game: GameState, spec: EngineSpec) -> None:
        if self.session is not None and self.session.spec != spec:
            await self.session.close()
            self.session = None
        if self.session is None:
            self.session = EngineSession(spec, self.nursery)
            self.session.on_line = self._thinking_line
        session = self.session
        failure = await session.begin_game(game.config)
        if failure is None and session.conn is not None:
            try:  # ask for the thinking lines: REALTIME moves (1) and one-line summaries (2)
                await session.conn.send(m.Info("show_detail", "3"))
            except EngineClosed:
                failure = Failure(Ending.CRASH, "exited while receiving INFO")
        if failure is not None:
            self._finish(game, loser=3 - game.human, ending=failure.ending, detail=failure.detail)
            return
        game.turn_started = trio.current_time()
        if game.to_move != game.human:
            await self._engine_move(game)
        else:
            self._send_state()

    # ------------------------------------------------------------------ moves
    async def _human_move(self, message: dict[str, Any]) -> None:
        game = self._game_on()
        if game.to_move != game.human:
            raise BadRequest("it is the engine's turn")
        x = _int(message.get("x"), "x", 0, game.config.width - 1)
        y = _int(message.get("y"), "y", 0, game.config.height - 1)
        if game.referee.board.get(x, y) != 0:
            raise BadRequest(f"{x},{y} is not empty")
        now = trio.current_time()
        spent = int(round((now - game.turn_started) * 1000))
        verdict = game.referee.play(x, y)
        game.human_ms += spent
        if verdict.ending is not None and verdict.loser_moved:
            game.foul_pending = True
            self._finish(game, loser=game.human, ending=verdict.ending, detail=f"you at {x},{y}")
            return
        game.ms.append(spent)
        if verdict.ending is Ending.FIVE:
            self._finish(game, loser=3 - game.human, ending=verdict.ending, detail=f"you at {x},{y}")
            return
        if verdict.ending is not None:
            self._finish(game, loser=None, ending=verdict.ending, detail=f"{len(game.referee.moves)} stones")
            return
        self._start_busy("thinking", self._engine_move, game)

    async def _engine_move(self, game: GameState) -> None:
        session = self.session
        assert session is not None
        referee = game.referee
        command = board_command(referee.moves, referee.to_move) if not session.synced else m.Turn(*referee.moves[-1])
        self.busy_what = "thinking"
        self._send_state(thinking=True)
        answer = await session.request_move(command, game.config)
        if isinstance(answer, Failure):
            self._finish(game, loser=3 - game.human, ending=answer.ending, detail=answer.detail)
            return
        session.synced = True
        verdict = referee.play(answer.x, answer.y)
        if verdict.ending is not None and verdict.loser_moved:
            if verdict.ending in (Ending.OCCUPIED, Ending.OFF_BOARD):
                session.reusable = False
            self._finish(game, loser=3 - game.human, ending=verdict.ending, detail=f"{session.name} at {answer.x},{answer.y}")
            return
        game.ms.append(answer.ms)
        game.engine_knows = len(referee.moves)
        game.turn_started = trio.current_time()
        memory = session.check_memory(game.config)
        if memory is not None:
            self._finish(game, loser=3 - game.human, ending=memory.ending, detail=memory.detail)
        elif verdict.ending is Ending.FIVE:
            self._finish(game, loser=game.human, ending=verdict.ending, detail=f"{session.name} at {answer.x},{answer.y}")
        elif verdict.ending is not None:
            self._finish(game, loser=None, ending=verdict.ending, detail=f"{len(referee.moves)} stones")
        else:
            self._send_state()

    # ------------------------------------------------------------------ undo and swap
    async def _undo(self) -> None:
        game = self.game
        if game is None:
            raise BadRequest("no game to take back moves from")
        if self.busy is not None:
            raise BadRequest(f"wait: the engine is {self.busy_what}")
        if game.over and not self._engine_healthy():
            raise BadRequest("the engine is out of this game (" + str(game.result.get("ending")) + "); start a new game")
        if game.foul_pending:  # the foul stone was never placed: forgive it
            game.foul_pending = False
            game.result = None
            game.turn_started = trio.current_time()
            self._send_state()
            return
        moves = list(game.referee.moves)
        human_indices = [i for i in range(len(moves)) if (BLACK if i % 2 == 0 else WHITE) == game.human]
        if not human_indices:
            raise BadRequest("you have no move to take back")
        keep = human_indices[-1]
        self._start_busy("taking back", self._take_back, game, keep)

    async def _take_back(self, game: GameState, keep: int) -> None:
        session = self.session
        moves = list(game.referee.moves)
        for i in range(len(moves) - 1, keep - 1, -1):
            x, y = moves[i]
            if i < game.engine_knows and session is not None and session.synced:
                if not await self._send_takeback(session, x, y):
                    session.synced = False  # it will get the whole position with BOARD instead
            if i % 2 != game.human - 1 and session is not None:
                session.used_ms = max(0, session.used_ms - game.ms[i])
        referee = GameReferee(game.config.width, game.config.height, game.config.rules, game.config.win_length, game.config.move_limit)
        referee.place_opening(moves[:keep])
        game.referee = referee
        del game.ms[keep:]
        game.engine_knows = min(game.engine_knows, keep)
        game.result = None
        game.turn_started = trio.current_time()
        self._send_state()

    @staticmethod
    async def _send_takeback(session: EngineSession, x: int, y: int) -> bool:
        """TAKEBACK x,y and wait for its OK; False if the engine refused, failed or took too long."""
        conn = session.conn
        if conn is None or conn.closed:
            return False
        conn.drain()
        try:
            await conn.send(m.Takeback(x, y))
            with trio.move_on_after(TAKEBACK_TIMEOUT):
                while True:
                    line = await conn.receive()
                    if isinstance(line.reply, m.LOG_REPLIES):
                        continue
                    return isinstance(line.reply, m.OkReply)
        except EngineClosed:
            return False
        session.reusable = False
        return False

    async def _swap(self) -> None:
        game = self._game_on()
        if game.to_move != game.human:
            raise BadRequest("swap when it is your turn: the engine then plays your side")
        game.human = 3 - game.human
        if self.session is not None:
            self.session.synced = False  # BOARD tells it which stones are its own now
        self._start_busy("thinking", self._engine_move, game)

    # ------------------------------------------------------------------ helpers
    def _game_on(self) -> GameState:
        game = self.game
        if game is None:
            raise BadRequest("start a game first")
        if self.busy is not None:
            raise BadRequest(f"wait: the engine is {self.busy_what}")
        if game.over:
            raise BadRequest("the game is over: start a new one (or undo)")
        return game

    def _engine_healthy(self) -> bool:
        s = self.session
        return s is not None and s.conn is not None and not s.conn.closed and s.started and s.reusable

    def _start_busy(self, what: str, fn: Callable[..., Any], *args: Any) -> None:
        scope = trio.CancelScope()
        self.busy = scope
        self.busy_what = what

        async def run() -> None:
            try:
                with scope:
                    async with self.engine_lock:
                        await fn(*args)
            except Exception:  # noqa: BLE001 - a bug in one game must not take the server down
                log.exception("game task failed")
                game = self.game
                if game is not None and not game.over:
                    self._finish(game, loser=None, ending=Ending.CRASH, detail="internal error in the web board")
                if self.session is not None:
                    self.session.reusable = False
            finally:
                if self.busy is scope:
                    self.busy = None
                    self.busy_what = ""
                    if self.game is not None and not scope.cancelled_caught:
                        self._send_state()

        self.nursery.start_soon(run)

    def _thinking_line(self, line: ReplyLine) -> None:
        """The engine's thinking lines (MESSAGE, MESSAGE REALTIME), handed to the page as they arrive."""
        game = self.game
        if game is None:
            return
        info = thinking_info(line.text, game.config.width, game.config.height)
        if info is not None:
            info.update(type="thinking", game=game.id)
            self.send(info)

    def _finish(self, game: GameState, *, loser: int | None, ending: Ending, detail: str) -> None:
        if loser is None:
            winner = "draw"
        else:
            winner = "black" if loser == WHITE else "white"
        who = "draw" if loser is None else ("you" if loser != game.human else game.engine)
        game.result = {
            "winner": winner, "who": who, "ending": ending.value, "description": ending.description, "detail": detail[:300],
        }
        self._send_state()

    def state(self, thinking: bool = False) -> dict[str, Any]:
        game = self.game
        if game is None:
            return {"type": "state", "game": None}
        session = self.session
        tc = game.config.time
        moves = [[x, y, game.ms[i] if i < len(game.ms) else 0] for i, (x, y) in enumerate(game.referee.moves)]
        return {
            "type": "state",
            "game": {
                "id": game.id,
                "engine": game.engine,
                "width": game.config.width,
                "height": game.config.height,
                "rule": game.config.rules.name,
                "human": "black" if game.human == BLACK else "white",
                "to_move": "black" if game.to_move == BLACK else "white",
                "moves": moves,
                "result": game.result,
                "busy": self.busy_what if self.busy is not None else "",
                "thinking": thinking,
                "clock": {
                    "turn_ms": tc.turn_ms,
                    "engine_ms": session.used_ms if session is not None else 0,
                    "human_ms": game.human_ms,
                },
            },
        }

    def _send_state(self, thinking: bool = False) -> None:
        self.send(self.state(thinking))

    async def close(self) -> None:
        """The page is gone: stop whatever runs and end the engine process. Never raises."""
        self.closed = True
        if self.busy is not None:
            self.busy.cancel()
            self.busy = None
        with trio.CancelScope(shield=True):
            if self.session is not None:
                try:
                    await self.session.close()
                except Exception:  # noqa: BLE001
                    log.exception("closing the engine failed")
                    self.session.kill()
                self.session = None
        if self.holding_slot and self.slots is not None:
            self.slots.release()
            self.holding_slot = False
