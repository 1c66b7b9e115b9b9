"""The coordinator's side of a cluster run (`run_cluster`): it plans exactly as a local run does,
submits every game pair as one Dask task (`worker.play_pair`), stores each game once as its event or
result arrives (it alone writes the database), replays what a dead worker lost, and stops on an SPRT
decision, a signal or failing tasks.
"""
from __future__ import annotations

import logging
import queue
import signal
import socket
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tournament.cluster.target import ClusterError, ClusterTarget, INSTALL_HINT, parse_cluster, require_distributed
from tournament.cluster.worker import PairJob, play_pair, record_from_dict
from tournament.game.export import write_game
from tournament.play.runner import (
    RunSummary,
    TournamentSettings,
    fixed_plan,
    half_played_pairs,
    progress_text,
    sprt_state,
)
from tournament.play.schedule import LadderPlanner, Slot, pair_for_slot, remaining, tally_of
from tournament.progress import Progress
from tournament.results.ratings import fit_ratings
from tournament.results.store import Store

log = logging.getLogger(__name__)

TICK = 0.25  # longest wait for news before looking at signals, workers and progress
SCHEDULER_PATIENCE = 30.0  # seconds without an answer from the scheduler before the run gives up


def _job_engines(settings: TournamentSettings, names: set[str]) -> tuple:
    return tuple((e.name, e.text, e.cwd, tuple(e.env)) for e in settings.engines if e.name in names)

@dataclass
class _Task:
    future: Any
    pair_index: int
    slots: list[Slot]
    attempt: int
    started: bool = False


@dataclass
class _Coordinator:
    settings: TournamentSettings
    store: Store
    progress: Progress
    client: Any
    address: str
    warmup: bool
    run: str = field(default_factory=lambda: f"gomocup-tournament-{uuid.uuid4().hex[:12]}")

    def __post_init__(self) -> None:
        self.news: queue.Queue = queue.Queue()
        self.pending: dict[str, _Task] = {}
        self.planned: dict[int, Slot] = {}  # every game this run has handed to a task
        self.running: dict[int, str] = {}  # slot -> worker address
        self.lost: dict[int, str] = {}  # slot -> the worker that died playing it (until it is replayed)
        self.workers: dict[str, int] = {}  # address -> threads
        self.stop_reason = ""
        self.halt = False  # tell workers to start no more games (SPRT); limits only stop new pairs
        self.signal_name = ""
        self.failure = ""
        self.played_now = 0
        self.summary = RunSummary()
        self.wall0 = time.monotonic()
        self.waiting_noted = False
        self.unreachable_since: float | None = None
        self.look_now = False

    # ------------------------------------------------------------------ planning (as runner.run_tournament)
    def plan(self) -> None:
        s = self.settings
        self.names = [e.name for e in s.engines]
        self.specs = {e.name: e for e in s.engines}
        self.book = s.book()
        self.ladder = s.kind == "ladder"
        games = self.store.games()
        self.done_slots = self.store.done_slots()
        self.total: int | None = None
        if self.ladder:
            self.planner = LadderPlanner(self.names)
            todo = half_played_pairs(games, self.done_slots, set(self.specs))
            self.next_pair = self.store.max_slot() // 2 + 1
            if s.max_games is not None:
                self.total = len(games) + s.max_games + len(todo)
        else:
            plan = fixed_plan(s)
            todo = remaining(plan, self.done_slots)
            self.total = len(plan)
            games = [g for g in games if g.black in self.specs and g.white in self.specs]
        self.games = games
        self.tally = tally_of(games)
        self.groups: list[list[Slot]] = []  # the remaining games, one list per pair, in plan order
        for slot in todo:
            if self.groups and self.groups[-1][0].pair_index == slot.pair_index:
                self.groups[-1].append(slot)
            else:
                self.groups.append([slot])
        self.started_new = 0
        self.sprt_engine = self.names[0] if s.kind == "match" else None
        if s.sprt and self.sprt_engine:
            self.summary.sprt = sprt_state(self.games, self.sprt_engine, s.sprt)
            if self.summary.sprt.decision:
                self.stop_reason = f"sprt {self.summary.sprt.decision}"
                self.halt = True

    def next_group(self) -> list[Slot] | None:
        s = self.settings
        if self.stop_reason:
            return None
        if self.groups:
            return self.groups.pop(0)
        if not self.ladder:
            return None
        if s.max_games is not None and self.started_new >= s.max_games:
            self.stop_reason = "game limit"
            return None
        if s.max_seconds is not None and time.monotonic() - self.wall0 >= s.max_seconds:
            self.stop_reason = "time limit"
            return None
        in_flight: Counter = Counter()
        for task in self.pending.values():
            for slot in task.slots:
                if slot.slot not in self.done_slots:
                    in_flight[(slot.black, slot.white)] += 1
        couple = self.planner.choose(self.tally, in_flight)
        pair = self.next_pair
        self.next_pair += 1
        self.started_new += 2
        return [pair_for_slot(2 * pair, couple), pair_for_slot(2 * pair + 1, couple)]

    # ------------------------------------------------------------------ tasks
    def capacity(self) -> int:
        threads = sum(self.workers.values())
        return threads + 1 if threads else 1

    def submit(self, slots: list[Slot], attempt: int = 0) -> None:
        g = self.settings.game
        pair_index = slots[0].pair_index
        opening_index, opening = self.book.for_pair(pair_index, g.width, g.height)
        job = PairJob(
            run=self.run,
            game=g,
            engines=_job_engines(self.settings, {n for s in slots for n in (s.black, s.white)}),
            games=tuple((slot, opening_index, opening) for slot in slots),
            warmup=self.warmup,
        )
        key = f"gomocup-pair-{self.run}-{pair_index}-{attempt}"
        try:
            future = self.client.submit(play_pair, job, key=key, pure=False)
        except Exception as exc:  # noqa: BLE001 - the client lost its scheduler
            self.failure = f"cannot submit to the Dask scheduler at {self.address}: {exc}"
            return
        self.pending[key] = _Task(future, pair_index, list(slots), attempt)
        self.planned.update((slot.slot, slot) for slot in slots)
        future.add_done_callback(lambda f: self.news.put(("task", f.key)))

    def fill(self) -> None:
        while not self.stop_reason and not self.failure and len(self.pending) < self.capacity():
            group = self.next_group()
            if group is None:
                return
            self.submit(group)

    def cancel(self, tasks: list[_Task]) -> None:
        if not tasks:
            return
        for task in tasks:
            self.pending.pop(task.future.key, None)
            for slot in task.slots:
                self.running.pop(slot.slot, None)
        try:
            self.client.cancel([t.future for t in tasks])
        except Exception as exc:  # noqa: BLE001 - a scheduler already gone cancels nothing
            log.warning("cancelling cluster tasks: %s", exc)

    def publish_state(self) -> None:
        """Tell workers what to skip: everything once halted, else the stored games of pairs in flight."""
        stored = sorted(s.slot for t in self.pending.values() for s in t.slots if s.slot in self.done_slots)
        try:
            self.state.set({"stop": self.halt, "stored": stored})
        except Exception as exc:  # noqa: BLE001 - reruns then replay a game the store will drop
            log.warning("cannot update the run state on the scheduler: %s", exc)

    def stop(self, reason: str) -> None:
        """An SPRT decision: no new pairs; pairs in progress finish their current game only."""
        if self.halt:
            return
        self.stop_reason = reason
        self.halt = True
        self.publish_state()
        self.cancel([t for t in self.pending.values() if not t.started])

    # ------------------------------------------------------------------ news from workers
    def on_event(self, message: dict[str, Any]) -> None:
        kind = message.get("kind")
        slot = message.get("slot")
        task = self.pending.get(message.get("task", ""))
        if kind == "start" and task is not None:
            task.started = True
            where = message.get("worker", "?")
            before = self.running.get(slot) or self.lost.pop(slot, None)
            if before is not None and before != where:
                self.progress.note(f"game {slot} (pair {task.pair_index}) replayed on {where}: its game on {before} was lost with that worker")
            self.running[slot] = where
            if where not in self.workers:
                self.look_now = True  # a worker we have not counted yet: refresh before the next tick
        elif kind == "done":
            self.running.pop(slot, None)
            self.store_record(message["record"])

    def store_record(self, data: dict[str, Any]) -> None:
        record = record_from_dict(data)
        if record.slot in self.done_slots:
            return  # the other copy (event or result) came first
        planned = self.planned.get(record.slot)
        if planned is None or (planned.black, planned.white) != (record.black, record.white):
            log.warning("ignored a game for slot %d that no task of this run plays", record.slot)
            return
        if not self.store.record_game(record):
            log.warning("slot %d was already stored; result ignored", record.slot)
            self.done_slots.add(record.slot)
            return
        self.done_slots.add(record.slot)
        self.games.append(record)
        self.tally.add(record.black, record.white, record.score_for(record.black))
        self.played_now += 1
        s = self.settings
        if s.psq_dir or s.sgf_dir:
            write_game(record, s.psq_dir, s.sgf_dir)
        if s.sprt and self.sprt_engine:
            self.summary.sprt = sprt_state(self.games, self.sprt_engine, s.sprt)
            if self.summary.sprt.decision and not self.stop_reason:
                self.progress.note(f"SPRT decided {self.summary.sprt.decision} (LLR {self.summary.sprt.llr:.2f}); finishing games in progress")
                self.stop(f"sprt {self.summary.sprt.decision}")
                return
        self.publish_state()

    def on_task_done(self, key: str) -> None:
        task = self.pending.pop(key, None)
        if task is None:
            return  # cancelled by us
        for slot in task.slots:
            self.running.pop(slot.slot, None)
        future = task.future
        if future.status == "finished":
            try:
                results = future.result()
            except Exception as exc:  # noqa: BLE001 - lost between done and result: treat as a dead worker
                results = []
                log.warning("result of pair %d lost: %s", task.pair_index, exc)
            for data in results:
                self.store_record(data)
        elif future.status != "error":  # cancelled or lost without us asking: play the pair again
            if self.client.status != "running":
                self.failure = f"lost the Dask scheduler at {self.address}"
                return
            log.warning("task of pair %d ended as %s; submitting it again", task.pair_index, future.status)
        else:
            exc = future.exception()
            if type(exc).__name__ != "KilledWorker":
                self.failure = f"a task of pair {task.pair_index} failed on a worker: {type(exc).__name__}: {exc}"
                if isinstance(exc, (ImportError, AttributeError)):
                    self.failure += f" (does every worker have the same gomocup-bot installed? {INSTALL_HINT})"
                return
            self.progress.note(f"pair {task.pair_index}: its workers kept dying ({exc}); trying again")
        missing = [s for s in task.slots if s.slot not in self.done_slots]
        if missing and not self.halt:
            if task.attempt >= 5:
                self.failure = f"pair {task.pair_index} was submitted {task.attempt + 1} times and never finished (its workers died or lost it)"
                return
            self.submit(missing, task.attempt + 1)

    # ------------------------------------------------------------------ workers and progress
    def refresh_workers(self) -> None:
        if self.client.status in ("closing", "closed"):  # Dask's client gave up reconnecting
            self.failure = f"lost the Dask scheduler at {self.address}"
            return
        try:
            now = dict(self.client.nthreads())
        except Exception as exc:  # noqa: BLE001 - keep the last known set; the scheduler may be busy
            log.debug("nthreads: %s", exc)
            if self.unreachable_since is None:
                self.unreachable_since = time.monotonic()
            elif time.monotonic() - self.unreachable_since > SCHEDULER_PATIENCE:
                self.failure = f"lost the Dask scheduler at {self.address} ({exc})"
            return
        self.unreachable_since = None
        for address in set(self.workers) - set(now):
            lost = [slot for slot, where in self.running.items() if where == address]
            for slot in lost:
                self.lost[slot] = self.running.pop(slot)
            what = f"; game{'s' if len(lost) != 1 else ''} {', '.join(map(str, sorted(lost)))} will be replayed" if lost else ""
            self.progress.note(f"worker {address} left{what}")
        for address in set(now) - set(self.workers):
            if self.workers or self.waiting_noted:
                self.progress.note(f"worker {address} joined ({now[address]} thread{'s' if now[address] != 1 else ''})")
        self.workers = now
        if not now and not self.waiting_noted and time.monotonic() - self.wall0 > 3:
            self.progress.note(f"waiting for workers: start them with `dask worker {self.address} --nthreads CORES`")
            self.waiting_noted = True

    def show(self) -> None:
        if not self.progress.enabled:
            return
        elapsed = time.monotonic() - self.wall0
        parts = progress_text(self.games, self.tally, self.total, elapsed, self.played_now, self.summary.sprt, self.names).split(" | ")
        if len(self.names) > 2 and self.games:  # the whole table, not only the leader
            ratings, _ = fit_ratings(self.tally.scores(), prior_draws=1.0)
            order = sorted(ratings, key=lambda n: -ratings[n].elo)
            parts = [parts[0], " ".join(f"{n} {ratings[n].elo:+.0f}" for n in order)] + [p for p in parts[1:] if not p.startswith("leader ")]
        rate = f"{3600 * self.played_now / elapsed:.0f} games/h" if elapsed > 0 and self.played_now else "- games/h"
        head = [f"{len(self.workers)} workers, {sum(self.workers.values())} at once", f"running {len(self.running)}", parts[0], rate]
        text = " | ".join(head + parts[1:])
        if self.stop_reason:
            text += f" | {self.stop_reason}: finishing games in progress"
        self.progress.update(text)

    # ------------------------------------------------------------------ the loop
    def execute(self, handle_signals: bool) -> RunSummary:
        from distributed import Variable

        cpu0 = time.process_time()
        self.plan()
        self.state = Variable(self.run, client=self.client)
        self.publish_state()
        self.client.subscribe_topic(self.run, lambda event: self.news.put(("event", event[1])))
        previous: dict[int, Any] = {}

        def on_signal(signum: int, frame: Any) -> None:  # noqa: ARG001
            self.signal_name = signal.Signals(signum).name

        if handle_signals and threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                previous[signum] = signal.signal(signum, on_signal)
        try:
            self.refresh_workers()
            last_look = time.monotonic()
            while True:
                if self.signal_name:
                    self.stop_reason = f"interrupted ({self.signal_name})"
                    self.cancel(list(self.pending.values()))
                    break
                if self.failure:
                    self.cancel(list(self.pending.values()))
                    break
                if self.look_now or time.monotonic() - last_look >= 1.0:
                    self.look_now = False
                    self.refresh_workers()
                    self.show()
                    last_look = time.monotonic()
                self.fill()
                if not self.pending:
                    break
                try:
                    item = self.news.get(timeout=TICK)
                except queue.Empty:
                    continue
                while True:
                    kind, payload = item
                    if kind == "event":
                        self.on_event(payload)
                    else:
                        self.on_task_done(payload)
                    try:
                        item = self.news.get_nowait()
                    except queue.Empty:
                        break
                self.show()
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            if self.pending:
                self.cancel(list(self.pending.values()))
            try:
                self.client.unsubscribe_topic(self.run)
                self.state.delete()
            except Exception as exc:  # noqa: BLE001 - the scheduler may be gone already
                log.debug("cleanup: %s", exc)
            self.progress.finish()
        summary = self.summary
        summary.games_played = self.played_now
        summary.games_total = self.store.game_count()
        summary.stopped_by = self.stop_reason or ("error" if self.failure else "plan complete")
        summary.wall_seconds = time.monotonic() - self.wall0
        summary.manager_cpu_seconds = time.process_time() - cpu0
        if self.failure:
            raise ClusterError(f"{self.failure}; the {self.played_now} games finished in this run are stored, --resume continues")
        return summary


def _set_dask_log_level(level: int) -> None:
    """Dask's configuration gives some of its loggers levels of their own: set them all."""
    names = ["distributed"] + [n for n in logging.Logger.manager.loggerDict if n.startswith("distributed.")]
    for name in names:
        logging.getLogger(name).setLevel(level)


def _quiet_dask_logs() -> None:
    """Dask's own warnings (a worker restarted, a cancelled task's thread still busy) repeat what we report."""
    if log.getEffectiveLevel() >= logging.WARNING:
        _set_dask_log_level(logging.ERROR)


def _check_tls_configured() -> None:
    """A tls:// scheduler needs the client's certificate from Dask's configuration (else Dask fails obscurely)."""
    import dask

    missing = [
        env for key, env in (
            ("distributed.comm.tls.ca-file", "DASK_DISTRIBUTED__COMM__TLS__CA_FILE"),
            ("distributed.comm.tls.client.cert", "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT"),
        )
        if not dask.config.get(key, None)
    ]
    if missing:
        raise ClusterError(
            f"a tls:// scheduler needs Dask's TLS settings for this client: set {' and '.join(missing)} "
            "(and ..._CLIENT__KEY unless the key is in the certificate file), or the same keys in ~/.config/dask/; see docs/tournament.md"
        )


def _check_reachable(address: str, timeout: float) -> None:
    """Fail at once on a refused or unresolvable address (Dask's client would retry until its time-out)."""
    host, _, port = address.partition("://")[2].rpartition(":")
    with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
        pass


def run_cluster(
    settings: TournamentSettings,
    store: Store,
    progress: Progress | None = None,
    target: ClusterTarget | str = "local:2",
    *,
    handle_signals: bool = False,
    warmup: bool = True,
    connect_timeout: float = 10.0,
) -> RunSummary:
    """Play what the database still lacks on a Dask cluster; same stops and summary as `run_tournament`.

    `warmup`: let each remote worker process fill its numba cache before its first built-in game (a
    local cluster shares this machine's cache, which the command line has warmed up already).
    """
    progress = progress or Progress(enabled=False)
    if isinstance(target, str):
        target = parse_cluster(target)
    distributed = require_distributed()
    _quiet_dask_logs()
    cluster = None
    try:
        if target.address is None:
            cluster = distributed.LocalCluster(
                n_workers=target.workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                dashboard_address=None, silence_logs=logging.ERROR if log.getEffectiveLevel() >= logging.WARNING else logging.WARNING,
            )
            client = distributed.Client(cluster, set_as_default=False)
            address = cluster.scheduler_address
        else:
            if target.address.startswith("tls://"):
                _check_tls_configured()
            _check_reachable(target.address, connect_timeout)
            client = distributed.Client(target.address, timeout=connect_timeout, set_as_default=False)
            address = target.address
    except Exception as exc:  # noqa: BLE001 - refused, unresolvable, timed out, TLS refused...: all said the same way
        if cluster is not None:
            cluster.close()
        where = target.address or "a local cluster"
        detail = str(exc) if isinstance(exc, (OSError, TimeoutError)) else f"{type(exc).__name__}: {exc}"
        raise ClusterError(f"cannot reach the Dask scheduler at {where}: {detail}") from None
    try:
        if progress.enabled and target.address is None:
            progress.note(f"cluster: {target.describe()}, scheduler {address}")
        coordinator = _Coordinator(settings, store, progress, client, address, warmup=warmup and target.address is not None)
        return coordinator.execute(handle_signals)
    finally:
        if log.getEffectiveLevel() >= logging.WARNING:
            _set_dask_log_level(logging.CRITICAL)  # closing a client whose scheduler is gone logs its reconnect attempts
        try:
            client.close()
            if cluster is not None:
                cluster.close()
        finally:
            _quiet_dask_logs()
