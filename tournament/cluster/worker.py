"""The worker's side of a cluster run: the Dask task `play_pair` plays one pair's remaining games on
this worker, through the local runner's `play_slot`, and reports each game the moment it ends.

Each worker process keeps, per task thread, a game host: a thread of its own running a trio loop with
an `EnginePool`, so engines are reused from pair to pair (RESTART) as in a local run, and engine
processes are forked from a thread that lives as long as the worker (their parent-death signal is
tied to it: a worker killed even by SIGKILL takes its engines along).
"""
from __future__ import annotations

import dataclasses
import logging
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

import trio

from tournament.engines.session import EnginePool, GameConfig
from tournament.engines.spec import EngineSpec, EngineSpecError, parse_engine_spec
from tournament.engines.warmup import warm_up_builtins
from tournament.game.endings import Ending
from tournament.game.record import GameRecord, MoveRecord
from tournament.play.openings import Opening
from tournament.play.runner import play_slot
from tournament.play.schedule import Slot
from tournament.progress import Progress

log = logging.getLogger(__name__)

# bumped whenever the task's payload or results change shape; a worker with another version says so
CLUSTER_PROTOCOL = 1
CANCEL_POLL = 0.2  # seconds between a worker's checks that its task is still wanted
ENGINE_IDLE_SECONDS = 5.0  # a worker closes engines no task has used for this long


# ---------------------------------------------------------------------------------------- records on the wire
def record_to_dict(record: GameRecord) -> dict[str, Any]:
    """A game record as plain data (Dask events must be msgpack-able)."""
    data = dataclasses.asdict(record)
    data["ending"] = record.ending.value
    data["moves"] = [[mv.x, mv.y, mv.ms] for mv in record.moves]
    return data


def record_from_dict(data: dict[str, Any]) -> GameRecord:
    fields = dict(data)
    fields["ending"] = Ending(fields["ending"])
    fields["moves"] = [MoveRecord(int(x), int(y), int(ms)) for x, y, ms in fields["moves"]]
    return GameRecord(**fields)


# ---------------------------------------------------------------------------------------- the task
@dataclass(frozen=True)
class PairJob:
    """What a worker needs to play the remaining games of one pair (pickled by Dask)."""

    run: str  # run id: the event topic and the name of the state Variable
    game: GameConfig
    engines: tuple[tuple[str, str, str | None, tuple[tuple[str, str], ...]], ...]  # name, spec text, cwd, env
    games: tuple[tuple[Slot, int, Opening], ...]  # slot, opening index, the opening as played by this pair
    warmup: bool = False  # run `gomocup-bot warmup` once in this worker process before built-ins play
    protocol: int = CLUSTER_PROTOCOL


def _worker_specs(job: PairJob) -> dict[str, EngineSpec]:
    """Resolve the engines on the worker: built-ins run with this worker's Python, not the coordinator's."""
    specs = {}
    for name, text, cwd, env in job.engines:
        try:
            spec = parse_engine_spec(text, cwd=cwd, env=dict(env) or None)
        except EngineSpecError as exc:  # cannot happen for specs the coordinator accepted, unless versions differ
            raise RuntimeError(f"engine {name!r}: {exc}") from None
        specs[name] = dataclasses.replace(spec, name=name)
    return specs


class _GameHost:
    """A thread with its own trio loop and engine pool; plays the games of one task at a time.

    Engines stay in the pool between tasks (RESTART instead of a relaunch, as in a local run) and are
    closed after ENGINE_IDLE_SECONDS without a task, so nothing lingers on a worker after a run.
    """

    def __init__(self) -> None:
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._failure: BaseException | None = None
        self._busy = False
        self._last_used = time.monotonic()
        self.pool: EnginePool | None = None
        self._thread = threading.Thread(target=self._main, name="gomocup-game-host", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            raise RuntimeError(f"cannot start a game host: {self._failure!r}")

    def _main(self) -> None:
        try:
            trio.run(self._serve)
        except BaseException as exc:  # noqa: BLE001 - reported to the task that wanted this host
            self._failure = exc
            self._ready.set()

    async def _serve(self) -> None:
        async with trio.open_nursery() as nursery:
            self.pool = EnginePool(nursery)
            self._token = trio.lowlevel.current_trio_token()
            self._ready.set()
            try:
                while True:
                    await trio.sleep(1.0)
                    if not self._busy and self.pool.idle and time.monotonic() - self._last_used > ENGINE_IDLE_SECONDS:
                        await self._close_idle()
            finally:
                await self.pool.close_all()

    async def _close_idle(self) -> None:
        pool = self.pool
        assert pool is not None
        sessions = [session for idle in pool.idle.values() for session in idle]
        pool.idle.clear()
        for session in sessions:
            await session.close()
            if session in pool.all_sessions:
                pool.all_sessions.remove(session)

    async def _job(self, async_fn: Callable, *args: Any) -> Any:
        self._busy = True
        try:
            return await async_fn(self.pool, *args)
        finally:
            self._busy = False
            self._last_used = time.monotonic()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and self._token is not None

    def run(self, async_fn: Callable, *args: Any) -> Any:
        return trio.from_thread.run(self._job, async_fn, *args, trio_token=self._token)


_hosts_lock = threading.Lock()
_idle_hosts: list[_GameHost] = []
_warmup_lock = threading.Lock()
_warmed_up = False


def _take_host() -> _GameHost:
    with _hosts_lock:
        while _idle_hosts:
            host = _idle_hosts.pop()
            if host.alive:
                return host
    return _GameHost()


def _give_back(host: _GameHost) -> None:
    with _hosts_lock:
        _idle_hosts.append(host)


def _warm_up_once(specs: dict[str, EngineSpec]) -> None:
    """Fill this machine's numba cache before the first built-in plays here (not on any game clock)."""
    global _warmed_up
    if not any(s.kind == "builtin" for s in specs.values()):
        return
    with _warmup_lock:
        if _warmed_up:
            return
        warm_up_builtins(specs.values(), Progress(stream=sys.stderr, enabled=False))
        _warmed_up = True


def play_pair(job: PairJob) -> list[dict[str, Any]]:
    """The Dask task: play the job's games on this worker, report each as it ends, return them all."""
    from distributed import Variable, get_client, get_worker

    if job.protocol != CLUSTER_PROTOCOL:
        raise RuntimeError(
            f"this worker runs cluster protocol {CLUSTER_PROTOCOL}, the coordinator {job.protocol}: "
            "install the same gomocup-bot version on the coordinator and every worker"
        )
    worker = get_worker()
    key = worker.get_current_task()
    specs = _worker_specs(job)
    if job.warmup:
        _warm_up_once(specs)
    state = Variable(job.run, client=get_client())

    def cancelled() -> bool:
        try:
            task = worker.state.tasks.get(key)
        except Exception:  # noqa: BLE001 - the worker's internals moved: rely on the stop flag only
            return False
        return task is None or task.state in ("cancelled", "released", "forgotten")

    def skip(slot: int) -> bool:
        """Whether not to start this game: the run stops, or the coordinator already has it (a rerun)."""
        try:
            current = state.get(timeout=10)
        except Exception:  # noqa: BLE001 - no state (the run is over or the scheduler is gone): play nothing more
            return True
        return bool(current.get("stop")) or slot in current.get("stored", ())

    def emit(message: dict[str, Any]) -> None:
        message = dict(message, task=str(key), worker=worker.address)
        try:
            worker.log_event(job.run, message)
        except Exception as exc:  # noqa: BLE001 - the result still carries the record
            log.warning("cannot report %s: %s", message.get("kind"), exc)

    host = _take_host()
    try:
        return host.run(_play_job, job, specs, skip, cancelled, emit)
    finally:
        _give_back(host)


async def _play_job(pool: EnginePool, job: PairJob, specs: dict[str, EngineSpec], skip, cancelled, emit) -> list[dict[str, Any]]:  # noqa: ANN001
    """On the game host's trio loop: the pair's games in order, abandoned at once if the task is cancelled."""
    records: list[dict[str, Any]] = []

    async def watch(scope: trio.CancelScope) -> None:
        while not cancelled():
            await trio.sleep(CANCEL_POLL)
        scope.cancel()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(watch, nursery.cancel_scope)
        for slot, opening_index, opening in job.games:
            if await trio.to_thread.run_sync(skip, slot.slot):
                continue
            emit({"kind": "start", "slot": slot.slot})
            record = await play_slot(job.game, pool, specs, slot, opening_index, opening)
            data = record_to_dict(record)
            emit({"kind": "done", "slot": slot.slot, "record": data})
            records.append(data)
        nursery.cancel_scope.cancel()
    return records

