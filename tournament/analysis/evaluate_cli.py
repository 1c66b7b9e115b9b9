"""`gomocup-tournament evaluate`: one engine's evaluation of many positions, as JSON lines.

Why: the trained evaluation (`gomocup-bot train-eval --teacher`) learns from another engine's
view of the training positions, and any Gomocup brain that prints its evaluation can give it.
The positions come as JSON lines (``gomocup-bot train-eval --positions-out`` writes them); the
output repeats each position with what the engine said, one line per position, appended as it
comes, so an interrupted run resumes where it stopped and a partial file is already usable.
"""
from __future__ import annotations

import argparse
import gzip
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from protocol.rules import RuleError
from tournament.api.engine_async import Engine, Limit
from tournament.engines.spec import EngineSpecError, parse_engine_spec
from tournament.api.errors import EngineError, EngineStartError, PositionError
from tournament.api.position import Position
from tournament.progress import Progress, format_duration
from tournament.engines.warmup import warm_up_builtins

log = logging.getLogger(__name__)

DESCRIPTION = """Ask one engine for its evaluation of every position of JSON-lines files (a line: "rule",
"size" (default 15) and "moves", two letters a move as in gomocup-bot's game records, a = 0, column
then row) and append one JSON line per position to --out: the position's fields plus the engine's
eval, mate, winrate, depth and best move, as far as it reported them. A rerun skips the positions
--out already holds."""

EPILOG = """The engine is any specification of the other commands (a Gomocup brain command line,
tcp://HOST:PORT, builtin:NAME); it must print its evaluation in MESSAGE lines (docs/api.md).
Example: gomocup-bot train-eval data/selfplay/*.jsonl.gz --positions-out kept.jsonl
         gomocup-tournament evaluate kept.jsonl --engine "/path/to/pbrain-x" --turn 0.1 -j 2 --out teacher.jsonl"""


GIVE_UP = 5  # positions in a row an engine fails on (twice each) before the run stops


class EvaluateUsageError(Exception):
    """A command line or input that cannot run: the message says why."""


@dataclass(frozen=True)
class Item:
    key: tuple[str, int, str]  # rule, size, moves
    position: Position


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("positions", nargs="+", metavar="FILE", help="JSON-lines files of positions (.gz read as gzip)")
    p.add_argument("--engine", required=True, metavar="SPEC", help="the engine that evaluates")
    p.add_argument("--out", required=True, metavar="FILE", help="JSON lines to append to (resumed if it exists)")
    p.add_argument("--turn", type=float, default=0.1, metavar="SEC", help="seconds per position (default 0.1)")
    p.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="engines evaluating at once (default 1)")
    p.add_argument("--max-memory", type=int, default=0, metavar="BYTES",
                   help="INFO max_memory for the engine (default 0: none sent); smaller hash tables restart faster")
    p.add_argument("--pause", type=float, default=0.05, metavar="SEC",
                   help="wait this long after each answer before the next position (default 0.05: Embryo 1.1.1 "
                        "refuses a RESTART that comes right after its move)")
    p.add_argument("--limit", type=int, default=0, metavar="N", help="stop after N new positions (default: all)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    p.add_argument("--no-warmup", action="store_true", help="do not run `gomocup-bot warmup` before a built-in engine")
    p.add_argument("--log-level", default="warning", help="log level for stderr (default warning)")


def _lines(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            return f.read().split("\n")
    except OSError as exc:
        raise EvaluateUsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def _key(data: Any, where: str) -> tuple[str, int, str]:
    if not isinstance(data, dict) or not isinstance(data.get("moves"), str) or not isinstance(data.get("rule"), str):
        raise EvaluateUsageError(f"{where}: not a position (needs \"rule\" and \"moves\")")
    size = data.get("size", 15)
    if not isinstance(size, int) or isinstance(size, bool):
        raise EvaluateUsageError(f"{where}: \"size\" must be a whole number")
    return data["rule"], size, data["moves"]


def position_of(key: tuple[str, int, str], where: str) -> Position:
    """The referee's position of a line (an illegal move or unknown rule is refused, naming the line)."""
    rule, size, moves = key
    if len(moves) % 2 or not all("a" <= c <= "z" for c in moves):
        raise EvaluateUsageError(f"{where}: \"moves\" must be two letters a move (a = 0)")
    squares = [(ord(moves[i]) - 97, ord(moves[i + 1]) - 97) for i in range(0, len(moves), 2)]
    try:
        position = Position.from_moves((), size, rule)
        for square in squares:
            position = position.push(square)
    except (PositionError, RuleError, ValueError) as exc:
        raise EvaluateUsageError(f"{where}: {exc}") from None
    return position


def read_positions(paths: list[str]) -> list[Item]:
    """Every position of the files, in order, each once; all checked before any engine starts."""
    items: list[Item] = []
    seen: set[tuple[str, int, str]] = set()
    for name in paths:
        path = Path(name)
        for n, line in enumerate(_lines(path), 1):
            if not line.strip():
                continue
            where = f"{path}:{n}"
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise EvaluateUsageError(f"{where}: not JSON ({exc.msg})") from None
            key = _key(data, where)
            if key not in seen:
                seen.add(key)
                items.append(Item(key, position_of(key, where)))
    return items


def done_keys(path: Path) -> set[tuple[str, int, str]]:
    """The positions an earlier run wrote (a line cut by an interruption is ignored)."""
    if not path.exists():
        return set()
    keys = set()
    for line in _lines(path):
        try:
            keys.add(_key(json.loads(line), str(path)))
        except (json.JSONDecodeError, EvaluateUsageError):
            continue
    return keys


def record(item: Item, info: Any, engine: str, turn: float) -> dict[str, Any]:
    rule, size, moves = item.key
    out: dict[str, Any] = {"rule": rule, "size": size, "moves": moves}
    for name in ("eval", "mate", "winrate", "depth"):
        value = getattr(info, name)
        if value is not None:
            out[name] = round(value, 4) if isinstance(value, float) else value
    if info.best is not None:
        out["best"] = list(info.best)
    out["engine"] = engine
    out["turn"] = turn
    return out


async def evaluate_all(items: list[Item], spec: str, args: argparse.Namespace, out: Path,
                       report: Any) -> tuple[int, int]:
    """Evaluate `items` with `args.jobs` engines, appending each answer to `out`; returns
    (written, failed). A position the engine fails on twice is skipped (logged); a slow or lost
    engine is restarted by the next request, and the run stops after GIVE_UP failures in a row."""
    send, receive = trio.open_memory_channel[Item](len(items))
    for item in items:
        send.send_nowait(item)
    send.close()
    counts = {"written": 0, "failed": 0}
    limit = Limit(turn=args.turn, match=1_000_000.0, time_left=1_000_000.0)
    name = parse_engine_spec(spec).name

    with out.open("a", encoding="utf-8") as sink:
        async def worker() -> None:
            async with Engine.open(spec, tolerance=max(5.0, 2 * args.turn), start_timeout=60.0) as engine:
                if args.max_memory:
                    await engine.configure(max_memory=args.max_memory)
                failing = 0  # positions in a row the engine failed on
                async for item in receive:
                    info = None
                    for attempt in (1, 2):
                        try:
                            info = await engine.analyse(item.position, limit)
                            break
                        except EngineError as exc:  # the next request restarts the engine
                            log.warning("%s failed on %s (attempt %d): %s", name, item.key[2], attempt, exc)
                            await trio.sleep(max(args.pause, 0.5))
                    failing = failing + 1 if info is None else 0
                    if failing >= GIVE_UP:
                        raise EngineStartError(name, f"failed on {GIVE_UP} positions in a row; stopped")
                    if info is None:
                        counts["failed"] += 1
                    else:
                        sink.write(json.dumps(record(item, info, name, args.turn), separators=(",", ":")) + "\n")
                        sink.flush()
                        counts["written"] += 1
                    report(counts)
                    await trio.sleep(args.pause)

        async with trio.open_nursery() as nursery:
            for _ in range(max(1, min(args.jobs, len(items)))):
                nursery.start_soon(worker)
    return counts["written"], counts["failed"]


def run(args: argparse.Namespace) -> int:
    """The subcommand; raises EvaluateUsageError for the caller to print (exit 2)."""
    if args.jobs < 1:
        raise EvaluateUsageError("--jobs must be at least 1")
    if not args.turn > 0:
        raise EvaluateUsageError("--turn must be positive")
    if args.max_memory < 0 or args.pause < 0 or args.limit < 0:
        raise EvaluateUsageError("--max-memory, --pause and --limit must not be negative")
    try:
        spec = parse_engine_spec(args.engine)
    except EngineSpecError as exc:
        raise EvaluateUsageError(f"--engine: {exc}") from None
    out = Path(args.out)
    items = read_positions(args.positions)
    done = done_keys(out)
    todo = [item for item in items if item.key not in done]
    already = len(items) - len(todo)
    if args.limit:
        todo = todo[: args.limit]
    progress = Progress(enabled=False if args.quiet else None)
    if not args.quiet:
        progress.note(f"{len(items)} positions, {already} already in {out}; evaluating {len(todo)} with {spec.name} at {args.turn:g} s, {args.jobs} at once")
    if not todo:
        return 0
    if not args.no_warmup:
        warm_up_builtins([spec], progress)
    started = time.monotonic()

    def report(counts: dict[str, int]) -> None:
        n = counts["written"] + counts["failed"]
        elapsed = time.monotonic() - started
        rest = elapsed / n * (len(todo) - n) if n else 0.0
        progress.update(f"[{n}/{len(todo)}] {counts['failed']} failed, {format_duration(elapsed)} "
                        f"elapsed, about {format_duration(rest)} left")

    try:
        written, failed = trio.run(evaluate_all, todo, args.engine, args, out, report)
    except EngineError as exc:
        progress.finish()
        raise EvaluateUsageError(f"the engine cannot run: {exc}") from None
    progress.finish()
    print(f"wrote {written} positions to {out}" + (f"; {failed} failed twice and were skipped" if failed else ""))
    return 0 if not failed else 1
