"""The async brain runner: one protocol session over any `LineStream` (stdio or TCP).

Two tasks share the session: the reader keeps reading while the engine thinks, so END and YXSTOP
act at once (INFO too, when nothing is queued before it); every other command waits its turn in a
queue and the processor handles them in order, running searches in a worker thread. A search is
stopped through its `StopFlag`; the thread is abandoned only if it ignores the flag for
`STOP_GRACE` seconds. The engine is built and prepared (numba cache load) in a worker thread, for
a stdio brain as soon as it runs and for a server session once START is answered; the START
reply never waits for numba.
"""
from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

import trio

from gomocup_bot.engine import Engine, SearchInfo, SearchLimits, SearchRequest, SearchResult, StopFlag
from gomocup_bot.core.evalfile import EvalWeightsError, verify
from gomocup_bot.engines import DEFAULT_ENGINE, ENGINE_NAMES, QUICK_ENGINE, WEIGHTLESS, create_engine, is_available
from gomocup_bot.brain.session import Action, BrainSession, Exit, ResetEngine, Search, Send, StopSearch
from gomocup_bot.brain.timeman import INSTANT_S, move_budget
from protocol import messages as m
from protocol.encoder import encode
from protocol.parser import CommandParser
from protocol.transport import LineStream, LineTooLong

log = logging.getLogger("gomocup_bot.brain.runner")

STOP_GRACE = 0.25  # seconds a stopped search may take to return before its thread is abandoned
END_DEADLINE = 0.3  # after END, seconds the queue gets to drain (a hurried search answering) before we leave
QUEUE_SIZE = 10000
FIRST_SEARCH_S = 0.1  # a move that waits for the loading engine keeps this much for the real search
START_HOLD_S = 1.0  # START's OK waits up to this long for the loading engine (see `_hold_ok`)
WAIT_STEP_S = 0.02  # that wait sleeps in steps this long, to see how late this thread wakes up
STARTUP_CAP_S = 2.0  # a process older than this at its first read was suspended or kept waiting
FIRST_READ_WAIT_S = 0.05  # a first read that returns later than this waited: its input is fresh

# Search threads still running (abandoned ones included); brain_main exits hard when this is > 0.
_live_threads = 0
_live_lock = threading.Lock()


def live_search_threads() -> int:
    return _live_threads


class SlotHandoff:
    """Who gives a search slot back: the caller when the search thread returned in time, or the
    thread itself when it was abandoned past its deadline -- so a runaway search keeps holding its
    slot (and the server keeps counting its CPU) until it really ends."""

    def __init__(self, release: Callable[[], None]) -> None:
        self._release = release
        self._lock = threading.Lock()
        self._thread_done = False
        self.owned_by_thread = False

    def abandon(self) -> None:
        """The caller stops waiting: if the thread still runs, it inherits the release."""
        with self._lock:
            if not self._thread_done:
                self.owned_by_thread = True

    def thread_exit(self, trio_token: "trio.lowlevel.TrioToken") -> None:
        with self._lock:
            self._thread_done = True
            release = self.owned_by_thread
        if release:
            try:
                trio.from_thread.run_sync(self._release, trio_token=trio_token)
            except (trio.RunFinishedError, RuntimeError):  # the event loop is gone: nothing to give back
                pass

    def release_if_caller(self) -> None:
        if not self.owned_by_thread:
            self._release()


@dataclass
class BrainOptions:
    """How a brain session is set up (the `gomocup-bot brain` flags)."""

    engine_name: str = DEFAULT_ENGINE
    level: int | None = None
    seed: int | None = None
    yixin_rule2: bool = False
    log_level: str = "WARNING"
    log_file: str | None = None
    threads: int | None = None  # search threads per move (None: the engine's default)
    engine_options: tuple[tuple[str, str], ...] = ()  # `--option KEY=VALUE`, engine-specific
    release_tables: bool = False  # drop the engine's search tables after each move (server sessions)

    @classmethod
    def from_argv(cls, argv: list[str]) -> "BrainOptions":
        """Parse brain flags (exits with usage on --help or a bad flag, like any argparse CLI)."""
        args = build_arg_parser().parse_args(argv)
        return cls(
            engine_name=args.engine,
            level=args.level,
            seed=args.seed,
            yixin_rule2=args.yixin_rule2,
            log_level=args.log_level,
            log_file=args.log_file,
            threads=args.threads,
            engine_options=tuple(args.option),
        )

    def with_threads(self, threads: int) -> "BrainOptions":
        """The same options with `threads` set, unless the user chose a thread count."""
        if self.threads is not None:
            return self
        return dataclasses.replace(self, threads=threads)


def build_arg_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gomocup-bot brain",
        description=(
            "A Gomocup/Piskvork brain on stdin/stdout: launch it from Piskvork, GomocupJudge, "
            "c-gomoku-cli or `gomocup-tournament`. Only protocol lines go to stdout; logs go to "
            "stderr (or --log-file)."
        ),
    )
    parser.add_argument(
        "--engine",
        default=DEFAULT_ENGINE,
        choices=ENGINE_NAMES,
        help=f"search engine (default {DEFAULT_ENGINE}; while it is not built, greedy is used and ABOUT says so)",
    )
    parser.add_argument("--level", type=int, default=None, help="engine strength level (engine-specific)")
    parser.add_argument("--seed", type=int, default=None, help="random seed for engines that use randomness")
    parser.add_argument(
        "--threads", type=_positive_int, default=None, metavar="N",
        help="search threads per move for engines that can use more than one (gomocup-bot: "
        "1 or 2; default: the engine's own, for gomocup-bot 2, and 1 with backend=mcts; backend=auto "
        "runs its MCTS moves on one thread)",
    )
    parser.add_argument(
        "--option", action="append", default=[], type=_engine_option, metavar="KEY=VALUE",
        help="an engine-specific option, repeatable; for gomocup-bot e.g. backend=mcts (quiescence leaves "
        "and class priors unless leaf=eval|playout, prior=score), trigger=h1, playout=depth, final=max "
        "(see docs/search.md)",
    )
    parser.add_argument(
        "--yixin-rule2", action="store_true", help="read `INFO rule 2` as renju (Yixin), not continuous game"
    )
    parser.add_argument(
        "--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"], help="stderr log level"
    )
    parser.add_argument("--log-file", default=None, help="append logs to this file instead of stderr")
    return parser


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _engine_option(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key.replace("_", "").replace("-", "").isalnum():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.replace("-", "_"), value.strip()


@dataclass(frozen=True)
class EngineChoice:
    """Which engine a session builds, and what ABOUT calls it (a fallback is spelled out)."""

    factory: Callable[[], Engine]
    label: str
    problem: str | None = None  # why the engine cannot play at all (START answers ERROR with it)


def choose_engine(options: BrainOptions, engine_factory: Callable[[], Engine] | None = None) -> EngineChoice:
    if engine_factory is not None:
        return EngineChoice(engine_factory, options.engine_name)
    extra: dict[str, Any] = {}
    if options.level is not None:
        extra["level"] = options.level
    if options.seed is not None:
        extra["seed"] = options.seed
    extra.update(dict(options.engine_options))
    if options.threads is not None:
        extra["threads"] = options.threads
    name = options.engine_name
    if is_available(name):
        problem = None
        if name not in WEIGHTLESS:
            problem = verify()
            if problem:
                problem = f"engine {name} cannot play: {problem}"
                log.error("%s", problem)
        return EngineChoice(lambda: create_engine(name, **extra), name, problem)
    log.warning("engine %r is not available yet; falling back to %r", name, QUICK_ENGINE)
    return EngineChoice(lambda: create_engine(QUICK_ENGINE, **extra), f"{QUICK_ENGINE} (fallback: {name} not built)")


async def run_brain(
    stream: LineStream,
    *,
    options: BrainOptions,
    search_slots: trio.CapacityLimiter | None = None,
    engine_factory: Callable[[], Engine] | None = None,
    input_origin: float | None = None,
) -> None:
    """Run one session until END or end of input. Returns (never exits the process).

    Cancelling it stops a running search through its StopFlag.
    """
    runner = _Runner(stream, options, search_slots, choose_engine(options, engine_factory), input_origin)
    await runner.run()


class _Runner:
    def __init__(
        self,
        stream: LineStream,
        options: BrainOptions,
        search_slots: trio.CapacityLimiter | None,
        choice: EngineChoice,
        input_origin: float | None = None,
    ) -> None:
        self.stream = stream
        # the earliest instant the peer can have written input (time.monotonic); lines that were
        # already buffered when first read are dated back to it (see `_reader`)
        self.input_origin = time.monotonic() if input_origin is None else input_origin
        self.command_stamp: float | None = None  # arrival of the command being handled
        self.line_stamp: float | None = None  # arrival of the line last read
        self.options = options
        self.slots = search_slots
        self.choice = choice
        self.session = BrainSession(engine_label=choice.label, yixin_rule2=options.yixin_rule2,
                                    engine_problem=choice.problem)
        self.parser = CommandParser()
        self.send_queue, self.receive_queue = trio.open_memory_channel[Any](QUEUE_SIZE)
        self.pending = 0  # commands queued and not yet handled
        self.stop: StopFlag | None = None  # the running search's flag
        self.searching = False
        self.hurried = False
        self.wait_scope: trio.CancelScope | None = None
        self.hold_scope: trio.CancelScope | None = None  # an OK waiting for the engine (`_hold_ok`)
        self.ending = False
        self.eof = False
        self.engine: Engine | None = None
        self.engine_ready = trio.Event()
        self.engine_game: object = None  # (game, size, rules) the engine was last told about
        self.warmup_started = False
        self.nursery: trio.Nursery | None = None

    # ------------------------------------------------------------------ top level

    async def run(self) -> None:
        try:
            async with trio.open_nursery() as nursery:
                self.nursery = nursery
                if self.slots is None:
                    # a stdio brain plays one game: load the engine at once, beside START (whose
                    # OK waits for it a while: `_hold_ok`), so the first move comes from the search
                    self._start_warmup()
                nursery.start_soon(self._reader)
                await self._processor()
                nursery.cancel_scope.cancel()
        except* (trio.BrokenResourceError, trio.ClosedResourceError, BrokenPipeError, ConnectionError):
            log.info("the manager went away; session over")
        finally:
            if self.stop is not None:
                self.stop.set()  # a cancelled session must not leave a search burning CPU

    async def _send(self, replies: tuple[m.Reply, ...] | list[m.Reply]) -> None:
        for reply in replies:
            await self.stream.send_line(encode(reply))

    # ------------------------------------------------------------------ reader

    async def _reader(self) -> None:
        """Read lines as they come, dating each one: a manager's turn clock runs from when it wrote
        TURN/BOARD, not from when the brain got round to it. A line is dated by the read that
        brought it (the stream's `arrival`). Lines of a first read that found them already there
        get `input_origin` (process creation for a stdio brain: a manager writing START, INFO and
        BOARD in one burst starts the clock while Python is still importing); a first read that
        had to wait (a GUI launching the brain long before the game) dates them on arrival."""
        arrival = getattr(self.stream, "arrival", None)
        first_read = time.monotonic()
        while True:
            try:
                line = await self.stream.receive_line()
            except LineTooLong as exc:
                await self._enqueue(m.ProtocolError(str(exc)))
                continue
            if line is None:
                break
            chunk, stamp = arrival() if arrival is not None else (0, time.monotonic())
            backdate = chunk == 1 and stamp - first_read < FIRST_READ_WAIT_S
            self.line_stamp = self.input_origin if backdate else stamp
            for cmd in self.parser.feed(line):
                if isinstance(cmd, m.End):
                    await self._end()
                    return
                if isinstance(cmd, m.YxStop):
                    if self.searching:
                        log.info("YXSTOP: stopping the search")
                        self._hurry()
                    continue
                if isinstance(cmd, m.Info) and self.pending == 0:
                    self.session.handle(cmd)  # acts at once, even during a search
                    continue
                await self._enqueue(cmd)
        for cmd in self.parser.finish():
            await self._enqueue(cmd)
        log.info("end of input")
        self.eof = True
        self._hurry()  # nobody may be left to read a long search's answer; finish promptly
        await self._enqueue(None)

    def _hurry(self) -> None:
        """Make the running search (if any) answer now with what it has."""
        if not self.searching:
            return
        self.hurried = True
        if self.stop is not None:
            self.stop.set()
        if self.wait_scope is not None:
            self.wait_scope.cancel()

    async def _enqueue(self, item: Any) -> None:
        self.pending += 1
        if self.hold_scope is not None:
            self.hold_scope.cancel()  # a command behind START: its OK goes now
        await self.send_queue.send((item, self.line_stamp))

    async def _end(self) -> None:
        """END: hurry any search, let the queue drain (START/BEGIN/END arriving in one burst still get
        their replies), but leave after END_DEADLINE whatever happens."""
        log.info("END")
        self.ending = True
        self._hurry()
        await self._enqueue(m.End())
        await trio.sleep(END_DEADLINE)
        log.warning("session did not finish within %.2f s of END; cancelling", END_DEADLINE)
        assert self.nursery is not None
        self.nursery.cancel_scope.cancel()

    # ------------------------------------------------------------------ processor

    async def _processor(self) -> None:
        while True:
            item, self.command_stamp = await self.receive_queue.receive()
            self.pending -= 1
            if item is None:
                return
            action = self.session.handle(item)
            if isinstance(item, (m.Start, m.RectStart, m.Restart)):
                await self._hold_ok(action)
            if not await self._act(action):
                return

    async def _act(self, action: Action) -> bool:
        """Carry out one action; False means the session is over."""
        match action:
            case Send(replies):
                await self._send(replies)
                if replies and isinstance(replies[0], m.OkReply) and self.session.started:
                    self._start_warmup()
            case Search():
                await self._search(action)
            case StopSearch():
                pass  # nothing is running when the processor sees it
            case ResetEngine():
                self.engine_game = None  # the next search starts with engine.new_game()
            case Exit():
                return False
        return True

    # ------------------------------------------------------------------ engine lifecycle

    async def _hold_ok(self, action: Action) -> None:
        """Let an OK to START (RECTSTART, RESTART) wait, up to `START_HOLD_S` after the command
        arrived, for the engine still loading beside it. The protocol leaves initialisation out of
        the turn's time (Piskvork subtracts it; c-gomoku-cli allows its tolerance, 3 s by default),
        and a manager that waits for the OK sends the first BOARD only then: its turn no longer
        pays for the load, so the first move is the engine's own. The OK goes at once when another
        command already waits behind START (a manager that does not wait for it), at END or at the
        end of input, and in a server (it loads the engine at the first move)."""
        if not (isinstance(action, Send) and action.replies and isinstance(action.replies[0], m.OkReply)):
            return
        if self.slots is not None or not self.warmup_started:
            return
        if self.pending or self.ending or self.eof:
            return
        arrived = self.command_stamp or time.monotonic()
        left = max(0.0, arrived + START_HOLD_S - time.monotonic())
        with trio.move_on_after(left) as self.hold_scope:  # `_enqueue` cancels it
            await self.engine_ready.wait()
        self.hold_scope = None

    def _start_warmup(self) -> None:
        if self.warmup_started:
            return
        self.warmup_started = True
        assert self.nursery is not None
        self.nursery.start_soon(self._warmup)

    async def _warmup(self) -> None:
        def build() -> Engine:
            StopFlag()  # imports numpy now rather than during the first search
            engine = self.choice.factory()
            engine.prepare()
            return engine

        started = time.monotonic()
        try:
            self.engine = await trio.to_thread.run_sync(build, abandon_on_cancel=True)
            log.info("engine %s ready in %.3f s", self.choice.label, time.monotonic() - started)
        except EvalWeightsError as exc:  # never play without the evaluation: refuse every move
            log.error("engine %s cannot play: %s", self.choice.label, exc)
            self.session.engine_problem = f"engine {self.choice.label} cannot play: {exc}"
            self.engine = create_engine(QUICK_ENGINE)
        except Exception:
            log.exception("engine %s failed to start; using %s", self.choice.label, QUICK_ENGINE)
            self.engine = create_engine(QUICK_ENGINE)
            self.session.engine_label = f"{QUICK_ENGINE} (fallback: {self.choice.label} failed to start)"
        self.engine_ready.set()
        if self.slots is not None:  # a server session: the quick move is what answers under load
            await _load_numba_quick()

    # ------------------------------------------------------------------ searching

    async def _search(self, search: Search) -> None:
        session = self.session
        # the clock runs from the command's arrival (it may have waited in the queue or the pipe)
        now = time.monotonic()
        started = min(now, self.command_stamp or now)
        limits = move_budget(session.info, now=started, empty_squares=session.empty_count())
        if self.eof:
            limits = SearchLimits.from_budget(INSTANT_S)
        self._start_warmup()
        self.searching = True
        self.hurried = self.ending  # a search queued before END answers at once
        try:
            result = await self._obtain_result(search, limits)
            replies = session.complete_search(search, result)
            log.info(
                "%s -> %s in %.3f s (budget %.3f s; %.3f s of it before the command was handled)",
                search.command, encode(replies[0]), time.monotonic() - started, limits.hard_deadline - started,
                now - started,
            )
            await self._send(replies)
        finally:
            self.searching = False
            self.stop = None
        if self.options.release_tables and self.engine is not None:
            release = getattr(self.engine, "release_memory", None)
            if release is not None:
                release()  # after the reply: freeing tens of MB is off the move's clock

    async def _obtain_result(self, search: Search, limits: SearchLimits) -> SearchResult | None:
        """The engine's answer, or a quick greedy one when the engine/slot is not there in time."""
        left = max(0.0, limits.hard_deadline - time.monotonic())
        half = left / 2
        if not self.hurried and not self.engine_ready.is_set():
            # wait for the loading engine while a short search still fits after it
            early = await self._engine_or_quick(search, max(half, left - FIRST_SEARCH_S))
            if early is not None:
                return early
        if self.hurried or not self.engine_ready.is_set():
            log.log(
                logging.INFO if self.hurried else logging.WARNING,
                "engine %s in time; answering with %s", "not needed" if self.hurried else "not ready", _quick_label(),
            )
            return await self._quick(search)
        engine = self.engine
        assert engine is not None
        if not getattr(engine, "needs_search_slot", True):  # random/greedy: cheaper than the queue
            return await self._engine_search(engine, search, limits)
        token = object()
        acquired = False
        if self.slots is not None and not self.hurried and _queue_too_long(self.slots):
            log.warning("search slots busy and %d sessions already waiting; answering with %s",
                        self.slots.statistics().tasks_waiting, _quick_label())
            return await self._quick(search)
        if self.slots is not None and not self.hurried:
            with trio.move_on_after(half) as self.wait_scope:
                await self.slots.acquire_on_behalf_of(token)
                acquired = True
            self.wait_scope = None
        if self.slots is not None and not acquired:
            log.warning("no search slot in time; answering with %s", _quick_label())
            return await self._quick(search)
        handoff = None
        if acquired:
            slots = self.slots
            assert slots is not None
            handoff = SlotHandoff(lambda: slots.release_on_behalf_of(token))
        try:
            return await self._engine_search(engine, search, limits, handoff)
        finally:
            if handoff is not None:
                handoff.release_if_caller()

    async def _engine_or_quick(self, search: Search, wait: float) -> SearchResult | None:
        """Wait up to `wait` seconds for the engine (still loading: a first move), with the quick
        answer computed meanwhile; None once the engine is ready, else the quick answer. Started
        at once rather than after the wait, because the engine's load holds the GIL for long
        stretches and a greedy move computed only then could run past the budget."""
        answers: list[SearchResult] = []

        async def quick() -> None:
            answers.append(await self._quick(search))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(quick)
            with trio.CancelScope() as self.wait_scope:
                await _wait_watching_delays(self.engine_ready, time.monotonic() + wait)
            self.wait_scope = None
            if self.engine_ready.is_set() and not self.hurried:
                nursery.cancel_scope.cancel()  # the engine answers; the quick thread is abandoned
                return None
        log.log(logging.INFO if self.hurried else logging.WARNING,
                "engine %s in time; answering with %s", "not needed" if self.hurried else "not ready", _quick_label())
        return answers[0]

    async def _engine_search(
        self, engine: Engine, search: Search, limits: SearchLimits, handoff: SlotHandoff | None = None
    ) -> SearchResult | None:
        session = self.session
        pos = search.position
        stop = StopFlag()
        self.stop = stop
        if self.hurried:
            stop.set()
        request = SearchRequest(
            position=pos,
            limits=limits,
            nbest=search.nbest,
            excluded=search.excluded,
            report=self._reporter() if session.show_detail & 3 else None,
            max_memory=session.info.get("max_memory", 0),
        )
        game_key = (session.game_id, pos.width, pos.height, pos.rules)
        try:
            if self.engine_game != game_key:
                await trio.to_thread.run_sync(engine.new_game, pos.width, pos.height, pos.rules)
                self.engine_game = game_key
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_stop_at, limits.hard_deadline, stop)
                try:
                    result = await run_in_worker(
                        lambda: engine.search(request, stop), stop, STOP_GRACE, limits, handoff
                    )
                finally:
                    nursery.cancel_scope.cancel()
        except Exception:  # an engine bug must not cost the game: answer with the quick engine
            log.exception("engine %s failed on %s; answering with %s", self.choice.label, search.command, _quick_label())
            return await self._quick(search)
        if result is None:
            log.error("engine ignored its stop flag; answering with %s", _quick_label())
            return await self._quick(search)
        return result

    async def _quick(self, search: Search) -> SearchResult:
        """The quick tactical answer, in a worker thread: the numba quick move once it is loaded in
        this process (one GIL-free call), else greedy (pure Python, holds the GIL)."""
        pos, excluded, nbest = search.position, search.excluded, search.nbest
        numba_quick = _numba_quick()
        if numba_quick is not None:
            try:
                fields = await trio.to_thread.run_sync(
                    lambda: numba_quick(pos, excluded, nbest), abandon_on_cancel=True
                )
                return SearchResult(**fields)
            except ValueError as exc:  # a board the core does not take (a side under k): greedy can
                log.info("numba quick move declined (%s); answering with %s", exc, QUICK_ENGINE)
            except Exception:  # a bug there must not cost the move
                log.exception("numba quick move failed; answering with %s", QUICK_ENGINE)
        from gomocup_bot.engines.greedy import choose

        fields = await trio.to_thread.run_sync(lambda: choose(pos, excluded, nbest), abandon_on_cancel=True)
        return SearchResult(**fields)

    def _reporter(self) -> Callable[[SearchInfo], None]:
        """A thread-safe callback turning engine progress into `MESSAGE REALTIME` lines."""
        detail = self.session.show_detail
        token = trio.lowlevel.current_trio_token()

        def report(info: SearchInfo) -> None:
            reply: m.Reply | None = None
            kind = info.kind.upper()
            if detail & 1 and kind == "REFRESH":
                reply = m.RealtimeReply("REFRESH")
            elif detail & 1 and kind in m.REALTIME_KINDS_WITH_MOVE and info.move is not None:
                reply = m.RealtimeReply(kind, info.move)
            elif detail & 2 and kind == "SUMMARY" and info.text:
                reply = m.MessageReply(info.text.replace("\n", " ").replace("\r", " "))
            if reply is None:
                return
            try:  # waits until written, so progress lines always precede the move
                trio.from_thread.run(self._send, (reply,), trio_token=token)
            except Exception:  # the session is gone: drop progress silently
                pass

        return report


# `gomocup_bot.core.quick.choose` once `_load_numba_quick` has loaded it in this process, else None
_numba_quick_choose: Callable[..., dict] | None = None
_quick_load_tried = False


def _numba_quick() -> Callable[..., dict] | None:
    """The numba quick move when it is loaded in this process, else None (then greedy answers).

    Why not load it on demand: a first call would compile for a minute (or load for ~0.1-0.7 s),
    far past a move budget; `_load_numba_quick` does that once, off the move path.
    """
    return _numba_quick_choose


def _quick_label() -> str:
    """What `_quick` answers with right now, for the logs."""
    return "the numba quick move" if _numba_quick() is not None else QUICK_ENGINE


def preload_numba_quick() -> bool:
    """For a server before it listens: load (or, with an empty cache, compile once) the numba quick
    move, so that even the sessions it admits at once answer an overload with it. No-op without numba."""
    global _numba_quick_choose, _quick_load_tried
    if "numba" not in sys.modules:
        return False
    from gomocup_bot.core import quick

    quick.warm_quick()
    _numba_quick_choose = quick.choose
    _quick_load_tried = True
    return True


async def _load_numba_quick() -> None:
    """Once per process, after the engine is ready: load the numba quick move from numba's cache.

    Only where numba is already imported (a numba engine): a greedy or random brain does not grow
    by numba's import for it. Never compiles: when the cache lacks it, quick moves stay greedy.
    The thread publishes the result itself, so a session ending mid-load loses nothing.
    """
    global _quick_load_tried
    if _quick_load_tried or "numba" not in sys.modules:
        return
    _quick_load_tried = True

    def load() -> bool:
        global _numba_quick_choose
        from gomocup_bot.core import quick

        if not quick.load_cached():
            return False
        _numba_quick_choose = quick.choose
        return True

    try:
        loaded = await trio.to_thread.run_sync(load, abandon_on_cancel=True)
    except Exception:  # the quick move is an optimisation: greedy still answers
        log.exception("loading the numba quick move failed; quick moves stay %s", QUICK_ENGINE)
        return
    if not loaded:
        log.warning("the numba quick move is not in numba's cache (run `gomocup-bot warmup`); "
                    "quick moves stay %s", QUICK_ENGINE)


def _queue_too_long(slots: "trio.CapacityLimiter") -> bool:
    """True when every slot is busy and at least as many sessions already queue as there are slots.

    Why: a queued session then waits for a whole search to end before its own starts, which rarely
    fits in half its budget; answering quickly at once keeps its clock instead of burning half of it.
    """
    stats = slots.statistics()
    return slots.available_tokens == 0 and stats.tasks_waiting >= stats.total_tokens


async def _wait_watching_delays(event: trio.Event, until: float) -> None:
    """Wait for ``event`` until ``until``, in short sleeps, and give up earlier by twice the longest
    delay a sleep overran by. While the engine loads (seconds on a busy machine) its thread and the
    other processes delay this one: a single wait to 0.1 s before the deadline sent the quick
    answer up to 2 s into a 1 s turn with both cores busy. Steady delays are seen coming; one long
    stall is not."""
    delay = 0.0
    while not event.is_set():
        left = until - time.monotonic() - 2 * delay
        if left <= 0:
            return
        step = min(WAIT_STEP_S, left)
        t0 = time.monotonic()
        with trio.move_on_after(step):
            await event.wait()
        if not event.is_set():
            delay = max(delay, time.monotonic() - t0 - step)


def _stack_of(idents: list[int]) -> str:
    """Where a thread is now (the last lines of its stack), to tell what ignored the stop flag."""
    import traceback

    frame = sys._current_frames().get(idents[0]) if idents else None
    return "".join(traceback.format_stack(frame)[-6:]) if frame is not None else "(not running)"


async def _stop_at(deadline: float, stop: StopFlag) -> None:
    """Raise the stop flag at the hard deadline, whatever the engine thinks of its own clock."""
    await trio.sleep(max(0.0, deadline - time.monotonic()))
    stop.set()


async def run_in_worker(
    work: Callable[[], Any],
    stop: StopFlag,
    grace: float,
    limits: SearchLimits | None = None,
    handoff: SlotHandoff | None = None,
) -> Any:
    """Run `work()` in a thread and return its result (or re-raise its exception).

    The thread is asked to stop through `stop` and abandoned only as a last resort: at the hard
    deadline + `grace` if it ignores the flag (then None is returned), and on cancellation after
    setting `stop` and waiting `grace` seconds for it. An abandoned thread gives `handoff`'s
    search slot back itself when it finally returns.
    """
    trio_token = trio.lowlevel.current_trio_token()
    finished = trio.Event()
    box: list[tuple[bool, Any]] = []
    worker_ident: list[int] = []  # the thread running `work`, for the log if it has to be abandoned
    shield = trio.CancelScope(shield=True)

    def tracked() -> Any:
        global _live_threads
        worker_ident.append(threading.get_ident())
        with _live_lock:
            _live_threads += 1
        try:
            return work()
        finally:
            with _live_lock:
                _live_threads -= 1
            if handoff is not None:
                handoff.thread_exit(trio_token)

    async def worker() -> None:
        with shield:
            try:
                box.append((True, await trio.to_thread.run_sync(tracked, abandon_on_cancel=True)))
            except Exception as exc:  # the engine's own failure: hand it to the caller
                box.append((False, exc))
        finished.set()
        nursery.cancel_scope.cancel()

    async def watchdog() -> None:
        try:
            if limits is not None:
                await trio.sleep(max(0.0, limits.hard_deadline - time.monotonic()) + grace)
                if not finished.is_set():
                    log.error("search ignored its stop flag past the deadline; abandoning its thread, now in:\n%s",
                              _stack_of(worker_ident))
                    stop.set()
                    if handoff is not None:
                        handoff.abandon()
                    shield.cancel()
            await trio.sleep_forever()
        except trio.Cancelled:
            if not finished.is_set():
                stop.set()
                with trio.CancelScope(shield=True):
                    with trio.move_on_after(grace):
                        await finished.wait()
                if handoff is not None and not finished.is_set():
                    handoff.abandon()
                shield.cancel()
            raise

    async with trio.open_nursery() as nursery:
        nursery.start_soon(worker)
        nursery.start_soon(watchdog)
    if not box:
        return None
    ok, value = box[0]
    if not ok:
        raise value
    return value
