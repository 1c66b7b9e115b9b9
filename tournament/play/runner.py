"""Run a tournament: N games at once, each stored the moment it ends, until the plan is done.

The plan comes from `schedule` (fixed formats) or the ladder planner; the database says which slots
are already played, so the same call resumes a killed run. A match may stop early on an SPRT
decision. Everything the engines do goes through `game.play_game`; this module only schedules,
stores and reports progress.
"""
from __future__ import annotations

import dataclasses
import logging
import os
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import trio

from protocol.rules import Rules
from tournament.engines.spec import EngineSpec, parse_engine_spec
from tournament.game.export import write_game
from tournament.play.game import play_game
from tournament.play.openings import Opening, OpeningBook, parse_offset_line
from tournament.progress import Progress, format_duration
from tournament.results.ratings import SprtResult, Tally, fit_ratings, sprt_pentanomial, sprt_trinomial
from tournament.game.record import GameRecord
from tournament.game.referee import GameReferee
from tournament.play.schedule import (
    LadderPlanner,
    Slot,
    gauntlet_plan,
    match_plan,
    pair_for_slot,
    remaining,
    round_robin_plan,
    tally_of,
)
from tournament.engines.session import EnginePool, GameConfig, TimeControl
from tournament.results.store import Store, StoreError

log = logging.getLogger(__name__)

KINDS = ("match", "gauntlet", "roundrobin", "ladder")


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def default_concurrency() -> int:
    """One game per core, keeping one core for the manager and the system (at least one game).

    Without pondering only one engine of a game thinks at a time, so a game needs about one core.
    """
    return max(1, cpu_count() - 1)


@dataclass(frozen=True)
class SprtSettings:
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    pentanomial: bool = True


@dataclass
class TournamentSettings:
    kind: str
    engines: list[EngineSpec]
    game: GameConfig = GameConfig()
    pairs: int = 1  # game pairs per couple (match, gauntlet, round robin)
    openings: list[Opening] = field(default_factory=list)
    opening_order: str = "sequential"
    seed: int = 0
    symmetries: bool = False
    concurrency: int = 1
    sprt: SprtSettings | None = None
    max_games: int | None = None  # ladder: games to add in this run
    max_seconds: float | None = None  # ladder: stop starting new pairs after this long
    psq_dir: str | None = None
    sgf_dir: str | None = None

    def usable_openings(self) -> list[Opening]:
        """Openings that fit the board and leave a game to play (no five or renju foul among their stones)."""
        g = self.game
        out = []
        for opening in self.openings:
            if not opening.fits(g.width, g.height):
                continue
            referee = GameReferee(g.width, g.height, g.rules, g.win_length, g.move_limit)
            if referee.place_opening(opening.squares(g.width, g.height)).game_over:
                log.warning("opening %s ends the game by itself under %s; skipped", opening.text(), g.rules.name)
                continue
            out.append(opening)
        return out

    def book(self) -> OpeningBook:
        return OpeningBook(self.usable_openings(), order=self.opening_order, seed=self.seed, symmetries=self.symmetries)

    # ------------------------------------------------------------ persistence (for --resume and report)
    def plan_json(self) -> dict[str, Any]:
        """What defines the tournament's games (compared on resume); run-only knobs are left out."""
        g, tc = self.game, self.game.time
        return {
            "kind": self.kind,
            "engines": [{"name": e.name, "spec": e.text, "cwd": e.cwd, "env": dict(e.env)} for e in self.engines],
            "board": [g.width, g.height],
            "rule": g.rules.code,
            "win_length": g.win_length,
            "time": dataclasses.asdict(tc),
            "max_memory": g.max_memory,
            "move_limit": g.move_limit,
            "start_timeout": g.start_timeout,
            "suspend_idle": g.suspend_idle,
            "pairs": self.pairs,
            "openings": [o.text() for o in self.openings],
            "opening_order": self.opening_order,
            "seed": self.seed,
            "symmetries": self.symmetries,
            "sprt": dataclasses.asdict(self.sprt) if self.sprt else None,
        }

    @classmethod
    def from_plan_json(cls, data: dict[str, Any], **run_options: Any) -> "TournamentSettings":
        engines = []
        for e in data["engines"]:
            spec = parse_engine_spec(e["spec"], cwd=e.get("cwd"), env=e.get("env") or None)
            engines.append(dataclasses.replace(spec, name=e["name"]))
        game = GameConfig(
            width=data["board"][0],
            height=data["board"][1],
            rules=Rules.from_code(data["rule"]),
            win_length=data["win_length"],
            time=TimeControl(**data["time"]),
            max_memory=data["max_memory"],
            move_limit=data["move_limit"],
            start_timeout=data["start_timeout"],
            suspend_idle=data.get("suspend_idle", False),
        )
        openings = [parse_offset_line(t) if t != "-" else Opening(()) for t in data["openings"]]
        return cls(
            kind=data["kind"], engines=engines, game=game, pairs=data["pairs"], openings=openings,
            opening_order=data["opening_order"], seed=data["seed"], symmetries=data["symmetries"],
            sprt=SprtSettings(**data["sprt"]) if data.get("sprt") else None, **run_options,
        )


@dataclass
class RunSummary:
    games_played: int = 0  # in this run
    games_total: int = 0  # in the database
    stopped_by: str = ""  # "plan complete", "sprt H1", "time", "games"...
    sprt: SprtResult | None = None
    wall_seconds: float = 0.0
    manager_cpu_seconds: float = 0.0


def prepare_store(store: Store, settings: TournamentSettings, resume: bool) -> TournamentSettings:
    """Check the database against the settings: a fresh file takes them, a used one must match (or be resumed).

    A ladder database accumulates: engines may be added, and its game settings must stay the same.
    """
    stored = store.get_config()
    plan = settings.plan_json()
    if stored is not None:
        if settings.kind == "ladder" and stored.get("kind") == "ladder":
            merged = dict(stored)
            known = {e["name"] for e in stored["engines"]}
            merged["engines"] = stored["engines"] + [e for e in plan["engines"] if e["name"] not in known]
            mismatched = [k for k in plan if k not in ("engines",) and plan[k] != stored.get(k)]
            if mismatched and not resume:
                raise StoreError(
                    f"{store.path} is a ladder with other settings ({', '.join(mismatched)}); "
                    "use the same options, --resume to keep the stored ones, or another --db"
                )
            if resume:
                merged = dict(stored, engines=merged["engines"])
            else:
                merged.update({k: plan[k] for k in plan if k != "engines"})
            store.set_config(merged)
            run = {k: getattr(settings, k) for k in ("concurrency", "max_games", "max_seconds", "psq_dir", "sgf_dir")}
            # only the engines named now take part (all of them when none were named)
            chosen = {e.name for e in settings.engines} or None
            settings = TournamentSettings.from_plan_json(merged, **run)
            if chosen:
                settings.engines = [e for e in settings.engines if e.name in chosen]
        elif resume:
            run = {k: getattr(settings, k) for k in ("concurrency", "max_games", "max_seconds", "psq_dir", "sgf_dir")}
            settings = TournamentSettings.from_plan_json(stored, **run)
        elif stored != plan:
            raise StoreError(f"{store.path} already holds another tournament; use --resume to continue it or choose another --db")
    else:
        if resume and settings.kind != "ladder":
            raise StoreError(f"nothing to resume in {store.path}")
        store.set_config(plan)
    for spec in settings.engines:
        store.add_engine(spec.name, spec.text)
    return settings


def fixed_plan(settings: TournamentSettings) -> list[Slot]:
    names = [e.name for e in settings.engines]
    if settings.kind == "match":
        if len(names) != 2:
            raise ValueError("a match needs exactly two engines")
        return match_plan(names[0], names[1], settings.pairs)
    if settings.kind == "gauntlet":
        if len(names) < 2:
            raise ValueError("a gauntlet needs a champion and at least one opponent")
        return gauntlet_plan(names[0], names[1:], settings.pairs)
    if settings.kind == "roundrobin":
        if len(names) < 2:
            raise ValueError("a round robin needs at least two engines")
        return round_robin_plan(names, settings.pairs)
    raise ValueError(f"no fixed plan for {settings.kind}")


def half_played_pairs(games: list[GameRecord], done_slots: set[int], engines: set[str]) -> list[Slot]:
    """The missing partner games of pairs a killed ladder run left half-played (among `engines`)."""
    todo = []
    for g in games:
        partner = g.slot ^ 1
        if partner not in done_slots and g.black in engines and g.white in engines:
            todo.append(Slot(partner, g.pair_index, g.white, g.black))
    return todo


async def play_slot(
    game: GameConfig, pool: EnginePool, specs: dict[str, EngineSpec], slot: Slot, opening_index: int, opening: Opening
) -> GameRecord:
    """Play one planned game with engines from `pool` (handed back afterwards) and label its record with the slot.

    The local runner and the cluster workers (`tournament.cluster`) both play every game through here.
    """
    black = pool.acquire(specs[slot.black])
    white = pool.acquire(specs[slot.white])
    try:
        record = await play_game(game, black, white, opening.squares(game.width, game.height), opening_text=opening.text())
    finally:
        with trio.CancelScope(shield=True):
            await pool.release(black)
            await pool.release(white)
    record.slot, record.pair_index, record.opening_index = slot.slot, slot.pair_index, opening_index
    return record


def sprt_state(games: list[GameRecord], engine: str, sprt: SprtSettings) -> SprtResult:
    """SPRT for `engine` against its opponent from the games so far (pentanomial over complete pairs)."""
    if not sprt.pentanomial:
        w = sum(1 for g in games if g.winner == engine)
        l = sum(1 for g in games if g.loser == engine)
        d = len(games) - w - l
        return sprt_trinomial(w, d, l, sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta)
    by_pair: dict[int, list[GameRecord]] = {}
    for g in games:
        by_pair.setdefault(g.pair_index, []).append(g)
    counts = [0] * 5
    for pair in by_pair.values():
        if len(pair) == 2:
            counts[int(round(2 * sum(g.score_for(engine) for g in pair)))] += 1
    return sprt_pentanomial(counts, sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta)


@dataclass
class SprtTrail:
    """The SPRT over a finished run, game by game: where it stands now, and when it first crossed
    each bound (a test that is not stopped may cross one and later the other)."""

    final: SprtResult
    crossed: dict[str, int]  # "H0" / "H1" -> games played when the LLR first crossed that bound


def sprt_trail(games: list[GameRecord], engine: str, sprt: SprtSettings) -> SprtTrail:
    """Replay the SPRT over ``games`` in the order they were played (by slot), as a match with
    ``--sprt`` would have seen them, without stopping: a match run to a fixed length can still say
    whether, and after how many games, the test accepted on the way."""
    ordered = sorted(games, key=lambda g: g.slot)
    crossed: dict[str, int] = {}
    for n in range(1, len(ordered) + 1):
        state = sprt_state(ordered[:n], engine, sprt)
        if state.decision and state.decision not in crossed:
            crossed[state.decision] = n
    return SprtTrail(sprt_state(ordered, engine, sprt), crossed)


def progress_text(games: list[GameRecord], tally: Tally, total: int | None, elapsed: float, played_now: int, sprt: SprtResult | None, engines: list[str]) -> str:
    done = len(games)
    parts = [f"games {done}/{total}" if total else f"games {done}"]
    if len(engines) == 2:
        a, b = engines
        w = sum(1 for g in games if g.winner == a)
        l = sum(1 for g in games if g.winner == b)
        d = sum(1 for g in games if g.winner is None and {g.black, g.white} == {a, b})
        ratings, _ = fit_ratings(tally.scores(), prior_draws=1.0)
        diff = ratings[a].elo - ratings[b].elo if a in ratings and b in ratings else 0.0
        err = 2 * ratings[a].error95 if a in ratings else float("inf")
        parts.append(f"{a} {w + d / 2:g}-{l + d / 2:g} {b} (+{w}={d}-{l})")
        parts.append(f"Elo {diff:+.0f} ± {err:.0f}" if err != float("inf") else f"Elo {diff:+.0f}")
    elif games:
        ratings, _ = fit_ratings(tally.scores(), prior_draws=1.0)
        leader = max(ratings, key=lambda n: ratings[n].elo)
        parts.append(f"leader {leader} {ratings[leader].elo:+.0f} ± {ratings[leader].error95:.0f}")
    if sprt is not None:
        parts.append(f"LLR {sprt.llr:+.2f} [{sprt.lower:.2f}, {sprt.upper:.2f}]")
    if total and played_now:
        parts.append(f"ETA {format_duration(elapsed / played_now * max(0, total - done))}")
    else:
        parts.append(f"{format_duration(elapsed)}")
    return " | ".join(parts)


async def run_tournament(
    settings: TournamentSettings, store: Store, progress: Progress | None = None, handle_signals: bool = False
) -> RunSummary:
    """Play what the database still lacks; returns when the plan is done or a stop rule fires.

    With `handle_signals` (the command line), SIGINT/SIGTERM/SIGHUP abandon the games in progress
    (they are not stored, so a resume replays them), close every engine and return normally.
    """
    progress = progress or Progress(enabled=False)
    summary = RunSummary()
    wall0, cpu0 = time.monotonic(), time.process_time()
    games = store.games()
    names = [e.name for e in settings.engines]
    specs = {e.name: e for e in settings.engines}
    book = settings.book()
    cores = cpu_count()
    if settings.concurrency > cores:
        progress.note(f"warning: {settings.concurrency} games at once on {cores} cores; engines will starve each other and lose on time")

    ladder = settings.kind == "ladder"
    todo: list[Slot] = []
    total: int | None = None
    if ladder:
        planner = LadderPlanner(names)
        todo = half_played_pairs(games, store.done_slots(), set(specs))
        next_pair = store.max_slot() // 2 + 1
        if settings.max_games is not None:
            total = len(games) + settings.max_games + len(todo)
    else:
        plan = fixed_plan(settings)
        todo = remaining(plan, store.done_slots())
        total = len(plan)
        names_in_plan = set(names)
        games = [g for g in games if g.black in names_in_plan and g.white in names_in_plan]

    sprt_engine = names[0] if settings.kind == "match" else None
    stop_reason = ""
    if settings.sprt and sprt_engine:
        summary.sprt = sprt_state(games, sprt_engine, settings.sprt)
        if summary.sprt.decision:
            stop_reason = f"sprt {summary.sprt.decision}"
    in_flight: Counter = Counter()
    tally = tally_of(games)
    played_now = 0
    started_new = 0

    def next_slot() -> Slot | None:
        nonlocal next_pair, stop_reason, started_new
        if stop_reason:
            return None
        if todo:
            return todo.pop(0)
        if not ladder:
            stop_reason = stop_reason or "plan complete"
            return None
        if settings.max_games is not None and started_new >= settings.max_games:
            stop_reason = "game limit"
            return None
        if settings.max_seconds is not None and time.monotonic() - wall0 >= settings.max_seconds:
            stop_reason = "time limit"
            return None
        a, b = planner.choose(tally, in_flight)
        pair = next_pair
        next_pair += 1
        todo.append(pair_for_slot(2 * pair + 1, (a, b)))
        started_new += 2
        return pair_for_slot(2 * pair, (a, b))

    def show() -> None:
        if not progress.enabled:
            return
        text = progress_text(games, tally, total, time.monotonic() - wall0, played_now, summary.sprt, names)
        if ladder and settings.max_seconds is not None and not stop_reason:
            text += f" | new pairs for {format_duration(max(0.0, settings.max_seconds - (time.monotonic() - wall0)))}"
        elif stop_reason:
            text += f" | {stop_reason}: finishing games in progress"
        progress.update(text)

    async def worker(pool: EnginePool) -> None:
        nonlocal played_now, stop_reason
        while (slot := next_slot()) is not None:
            opening_index, opening = book.for_pair(slot.pair_index, settings.game.width, settings.game.height)
            key = (slot.black, slot.white)
            in_flight[key] += 1
            try:
                record = await play_slot(settings.game, pool, specs, slot, opening_index, opening)
            finally:
                in_flight[key] -= 1
            if not store.record_game(record):
                log.warning("slot %d was already stored; result ignored", slot.slot)
                continue
            games.append(record)
            tally.add(record.black, record.white, record.score_for(record.black))
            played_now += 1
            if settings.psq_dir or settings.sgf_dir:
                write_game(record, settings.psq_dir, settings.sgf_dir)
            if settings.sprt and sprt_engine:
                summary.sprt = sprt_state(games, sprt_engine, settings.sprt)
                if summary.sprt.decision and not stop_reason:
                    stop_reason = f"sprt {summary.sprt.decision}"
                    progress.note(f"SPRT decided {summary.sprt.decision} (LLR {summary.sprt.llr:.2f}); finishing games in progress")
            show()

    async def on_signals(workers: trio.Nursery) -> None:
        nonlocal stop_reason
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM, signal.SIGHUP) as signals:
            async for signum in signals:
                stop_reason = f"interrupted ({signal.Signals(signum).name})"
                workers.cancel_scope.cancel()
                return

    show()
    async with trio.open_nursery() as service:
        pool = EnginePool(service)
        try:
            async with trio.open_nursery() as workers:
                if handle_signals:
                    service.start_soon(on_signals, workers)
                for _ in range(max(1, settings.concurrency)):
                    workers.start_soon(worker, pool)
        finally:
            await pool.close_all()
            service.cancel_scope.cancel()
    progress.finish()
    summary.games_played = played_now
    summary.games_total = store.game_count()
    summary.stopped_by = stop_reason or "plan complete"
    summary.wall_seconds = time.monotonic() - wall0
    summary.manager_cpu_seconds = time.process_time() - cpu0
    return summary
