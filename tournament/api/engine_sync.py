"""`SimpleEngine`: the engine API for plain scripts and notebooks, no async code needed.

Each SimpleEngine runs its own trio event loop in a background thread, with one async `Engine`
in it; every method hands the call to that loop and blocks until it is done (the shape of
python-chess's `SimpleEngine`). `close()` (or leaving `with`) ends the engine and joins the
thread, so nothing is left running. Errors are the same typed errors as the async API's.

The thread is also where the engine process is forked, which matters on Linux: the manager's
"the engine dies with me" signal is tied to the forking thread, and this one lives exactly as
long as the engine.
"""
from __future__ import annotations

import queue
import threading
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

import trio

from tournament.engines.spec import EngineSpec, parse_engine_spec
from tournament.api.errors import EngineTerminatedError

if TYPE_CHECKING:
    from tournament.api.engine_async import AnalysisStream, Engine, Info, Limit, PlayResult, Position, Rules

__all__ = ["SimpleAnalysis", "SimpleEngine"]


class SimpleEngine:
    """One engine, driven synchronously. Open it with `SimpleEngine.popen(command)`,
    `.connect("tcp://host:port")`, `.builtin("gomocup-bot")` or `.open(spec)`; use it in `with`
    or call `close()`. Options are the async Engine's (`tolerance`, `start_timeout`, `close_grace`);
    `timeout` bounds every call in seconds (None: as long as the engine's own limits allow)."""

    def __init__(self, spec: EngineSpec, *, timeout: float | None = None, **options: Any) -> None:
        self.spec = spec
        self.name = spec.name
        self.timeout = timeout
        self._engine: Engine | None = None
        self._token: trio.lowlevel.TrioToken | None = None
        self._closing: trio.Event | None = None
        started: queue.Queue[BaseException | None] = queue.Queue()
        self._thread = threading.Thread(target=self._main, args=(options, started),
                                        name=f"gomocup-engine {spec.name}", daemon=True)
        self._thread.start()
        problem = started.get()
        if problem is not None:
            self._thread.join()
            raise problem

    # ------------------------------------------------------------------ opening
    @classmethod
    def popen(cls, command: str | Sequence[str], *, name: str | None = None, cwd: str | None = None,
              env: Mapping[str, str] | None = None, **options: Any) -> "SimpleEngine":
        """A brain process (a command line, split like a shell, or an argv list)."""
        from tournament.api.engine_async import Engine

        return cls(Engine._process_spec(command, name=name, cwd=cwd, env=env), **options)

    @classmethod
    def connect(cls, address: str, *, name: str | None = None, **options: Any) -> "SimpleEngine":
        """A remote session: `tcp://HOST:PORT` (e.g. `gomocup-bot serve`)."""
        from tournament.api.engine_async import Engine

        return cls(Engine._tcp_spec(address, name=name), **options)

    @classmethod
    def builtin(cls, engine: str = "gomocup-bot", *, name: str | None = None, timeout: float | None = None,
                tolerance: float = 1.0, start_timeout: float = 10.0, close_grace: float = 0.5,
                **engine_options: Any) -> "SimpleEngine":
        """One of our engines (random, greedy, mcts-plain, minimax, gomocup-bot) as a process;
        other keywords are its options (`SimpleEngine.builtin("gomocup-bot", backend="mcts")`)."""
        from tournament.api.engine_async import Engine

        return cls(Engine._builtin_spec(engine, name=name, **engine_options), timeout=timeout, tolerance=tolerance,
                   start_timeout=start_timeout, close_grace=close_grace)

    @classmethod
    def open(cls, spec: str | EngineSpec, **options: Any) -> "SimpleEngine":
        """Any `gomocup-tournament` engine specification."""
        return cls(parse_engine_spec(spec) if isinstance(spec, str) else spec, **options)

    # ------------------------------------------------------------------ the loop thread
    def _main(self, options: dict[str, Any], started: "queue.Queue[BaseException | None]") -> None:
        from tournament.api.engine_async import Engine

        async def serve() -> None:
            try:
                async with Engine.open(self.spec, **options) as engine:
                    self._engine = engine
                    self._token = trio.lowlevel.current_trio_token()
                    self._closing = trio.Event()
                    started.put(None)
                    await self._closing.wait()
            except BaseException as exc:  # noqa: BLE001 - handed to the thread that waits for the start
                if self._token is None:
                    started.put(exc)
                else:
                    raise

        try:
            trio.run(serve)
        except BaseException:  # noqa: BLE001 - an error after the start has been reported to a caller already
            pass
        finally:
            self._token = None

    def _call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        token = self._token
        if token is None or self._engine is None or self._engine.closed:
            raise EngineTerminatedError(self.name, "the engine is closed")

        async def run() -> Any:
            with trio.fail_after(self.timeout) if self.timeout is not None else trio.CancelScope():
                return await fn(*args, **kwargs)

        try:
            return trio.from_thread.run(run, trio_token=token)
        except trio.RunFinishedError:
            raise EngineTerminatedError(self.name, "the engine is closed") from None
        except trio.TooSlowError:
            from tournament.api.errors import EngineTimeoutError

            raise EngineTimeoutError(self.name, f"no answer within {self.timeout:g} s (SimpleEngine timeout)",
                                     float(self.timeout or 0)) from None

    def _call_sync(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        token = self._token
        if token is None:
            raise EngineTerminatedError(self.name, "the engine is closed")
        try:
            return trio.from_thread.run_sync(partial(fn, *args, **kwargs), trio_token=token)
        except trio.RunFinishedError:
            raise EngineTerminatedError(self.name, "the engine is closed") from None

    # ------------------------------------------------------------------ the API
    @property
    def about(self) -> dict[str, str]:
        """The engine's ABOUT fields ({} if it gave none)."""
        return self._engine.about if self._engine is not None else {}

    @property
    def pid(self) -> int | None:
        return self._engine.pid if self._engine is not None else None

    def configure(self, *, rule: "str | int | Rules | None" = None, board: int | tuple[int, int] | None = None,
                  max_memory: int | None = None, threads: int | None = None, **extra_info: Any) -> None:
        """See Engine.configure."""
        assert self._engine is not None
        self._call(self._engine.configure, rule=rule, board=board, max_memory=max_memory, threads=threads, **extra_info)

    def play(self, position: "Position", limit: "Limit", *, info: bool = False,
             on_info: "Callable[[Info], None] | None" = None) -> "PlayResult":
        """See Engine.play (`on_info` runs in the engine's thread)."""
        assert self._engine is not None
        return self._call(self._engine.play, position, limit, info=info, on_info=on_info)

    def analyse(self, position: "Position", limit: "Limit", *, multipv: int | None = None) -> "Info | list[Info]":
        """See Engine.analyse."""
        assert self._engine is not None
        return self._call(self._engine.analyse, position, limit, multipv=multipv)

    def analysis(self, position: "Position", limit: "Limit | None" = None, *, multipv: int | None = None) -> "SimpleAnalysis":
        """See Engine.analysis: iterate the result for updates, `stop()` it, `wait()` for the end."""
        assert self._engine is not None
        stream = self._call_sync(self._engine.analysis, position, limit, multipv=multipv)
        return SimpleAnalysis(self, stream)

    def close(self) -> None:
        """END, kill after the grace period, stop the thread. Safe to call twice."""
        token, closing = self._token, self._closing
        if token is not None and closing is not None:
            try:
                trio.from_thread.run_sync(closing.set, trio_token=token)
            except trio.RunFinishedError:
                pass
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    def __enter__(self) -> "SimpleEngine":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<SimpleEngine {self.name!r} ({self.spec.text})>"


class SimpleAnalysis:
    """A running analysis seen from synchronous code: iterate for Info updates; `stop()`,
    `wait()`, `info`, `lines`, `move` as on AnalysisStream. Leaving `with` stops and waits."""

    def __init__(self, engine: SimpleEngine, stream: "AnalysisStream") -> None:
        self._engine = engine
        self._stream = stream

    @property
    def info(self) -> "Info":
        return self._stream.info

    @property
    def lines(self) -> "list[Info]":
        return self._stream.lines

    @property
    def move(self) -> tuple[int, int] | None:
        return self._stream.move

    def stop(self) -> None:
        self._engine._call_sync(self._stream.stop)

    def wait(self) -> "Info":
        return self._engine._call(self._stream.wait)

    def __iter__(self) -> Iterator["Info"]:
        return self

    def __next__(self) -> "Info":
        try:
            return self._engine._call(self._stream.__anext__)
        except StopAsyncIteration:
            raise StopIteration from None

    def __enter__(self) -> "SimpleAnalysis":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            self.stop()
            self.wait()
        except Exception:  # noqa: BLE001
            if exc is None:
                raise
