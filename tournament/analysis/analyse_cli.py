"""`gomocup-tournament analyse`: find the blunders in game records with an analysing engine.

Reads the records first (every one is replayed by the referee, so a bad record stops the run
before any engine starts), then analyses game after game (`tournament.analysis.analyser`), printing a
line per finished game on stderr (and a live progress line on a terminal), and at the end the
table per game and the summary on stdout; `--json` and `--html` write the same findings as data
and as one self-contained page. docs/analyse.md has the guide.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import trio

from tournament.analysis.analyser import DEFAULT_ENGINE, AnalysisAborted, Budget, analyse_games
from tournament.analysis.findings import GameAnalysis
from tournament.analysis.report import document, game_text, summary, summary_text
from tournament.engines.spec import EngineSpecError, parse_engine_spec
from tournament.api.errors import EngineError
from tournament.progress import Progress, format_duration
from tournament.analysis.records import RecordError, Selection, read_records
from tournament.engines.warmup import warm_up_builtins

DESCRIPTION = """Evaluate the position before every move of game records with an analysing engine and report
per game: the evaluation trail from each side's view, the move after which the game was lost by force,
and each blunder (a move after which the opponent has a forced win the position before did not have)
with the refutation line and the alternatives that would have held. A fast pass looks at every
position; a deep pass goes where the fast one saw a forced win or a fall of the evaluation."""

EPILOG = """records: gomocup-tournament databases (*.sqlite, read-only: safe while a match writes), SGF files
(ours, or a c-gomoku-cli file with many games), Piskvork .psq files, or folders of them.
The analysing engine: builtin:gomocup-bot (default) or any engine specification of the other commands
(a Gomocup brain command line, tcp://HOST:PORT); it must print its evaluation in MESSAGE lines
(depth/eval/winrate/mate, see docs/api.md) and should report forced wins as mates.
Example: gomocup-tournament analyse match.sqlite --engine gomocup-bot --lost --html losses.html"""


class AnalyseUsageError(Exception):
    """A command line that cannot run: the message says why."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("records", nargs="+", metavar="RECORD", help="database, SGF or PSQ files, or folders of them")
    g = p.add_argument_group("which games")
    g.add_argument("--engine", metavar="NAME", help="only the games this player played (its name in the records)")
    g.add_argument("--lost", action="store_true", help="only the games --engine lost (without --engine: games with a winner)")
    g.add_argument("--game", type=int, action="append", default=[], metavar="N",
                   help="only game N of each file (repeatable): a database's game number as in exported file names, an SGF's GN[]")
    g.add_argument("--rule", metavar="RULE", help="the rule of .psq records (they do not say; default freestyle) and of SGF without RU[]")
    a = p.add_argument_group("analysing engine")
    a.add_argument("--analyser", default=DEFAULT_ENGINE, metavar="SPEC", help=f"the engine that judges (default {DEFAULT_ENGINE})")
    a.add_argument("--fast", type=float, default=Budget.fast, metavar="SEC", help=f"seconds per position, every position (default {Budget.fast:g})")
    a.add_argument("--deep", type=float, default=Budget.deep, metavar="SEC", help=f"seconds per position of the deep pass and per alternative (default {Budget.deep:g})")
    a.add_argument("--candidates", type=int, default=Budget.candidates, metavar="N", help=f"alternatives checked per blunder (default {Budget.candidates})")
    a.add_argument("--back", type=int, default=Budget.back, metavar="N", help=f"deep rounds walking back from a proven position (default {Budget.back})")
    a.add_argument("--drop", type=float, default=Budget.drop, metavar="X", help=f"a fall of the mover's winrate (0..1) that earns a deep look (default {Budget.drop:g})")
    a.add_argument("--drops", type=int, default=Budget.drops, metavar="N", help=f"at most this many falls per game looked at deeply (default {Budget.drops})")
    a.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="engines analysing at once, one game each (default 1)")
    o = p.add_argument_group("output")
    o.add_argument("--json", metavar="FILE", help="write the findings as JSON (rewritten after every game)")
    o.add_argument("--html", metavar="FILE", help="write one self-contained page: an evaluation graph per game, blunders that jump the replay board")
    o.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    o.add_argument("--no-warmup", action="store_true", help="do not run `gomocup-bot warmup` before a built-in analysing engine")
    o.add_argument("--log-level", default="warning", help="log level for stderr (default warning)")


def _budget(args: argparse.Namespace) -> Budget:
    try:
        return Budget(fast=args.fast, deep=args.deep, candidates=args.candidates, back=args.back,
                      drop=args.drop, drops=args.drops)
    except ValueError as exc:
        raise AnalyseUsageError(str(exc)) from None


def _settings(args: argparse.Namespace, budget: Budget) -> dict[str, Any]:
    return {"analyser": args.analyser, "fast": budget.fast, "deep": budget.deep, "candidates": budget.candidates,
            "back": budget.back, "drop": budget.drop, "drops": budget.drops, "engine": args.engine, "lost": args.lost,
            "made": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise AnalyseUsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    """The subcommand; raises AnalyseUsageError or RecordError for the caller to print (exit 2)."""
    budget = _budget(args)
    if args.jobs < 1:
        raise AnalyseUsageError("--jobs must be at least 1")
    try:
        spec = parse_engine_spec(args.analyser)
    except EngineSpecError as exc:
        raise AnalyseUsageError(f"--analyser: {exc}") from None
    selection = Selection(engine=args.engine, lost=args.lost, numbers=frozenset(args.game))
    games = read_records(args.records, rule=args.rule, selection=selection)
    if not games:
        raise AnalyseUsageError("no game in the records matches the selection" if (args.engine or args.game)
                                else "the records hold no game")
    progress = Progress(enabled=False if args.quiet else None)
    quiet = args.quiet
    if not args.no_warmup:
        warm_up_builtins([spec], progress)
    settings = _settings(args, budget)
    started = time.monotonic()
    finished: dict[int, GameAnalysis] = {}

    def done(i: int, analysis: GameAnalysis) -> None:
        finished[i] = analysis
        if not quiet:
            lost = f", lost by force after move {analysis.lost_at}" if analysis.lost_at is not None else ""
            progress.note(f"[{len(finished)}/{len(games)}] {analysis.game.label}: {len(analysis.plies)} positions, "
                          f"{len(analysis.blunders)} blunders{lost} ({format_duration(time.monotonic() - started)})")
        if args.json:
            ordered = [finished[k] for k in sorted(finished)]
            _write(args.json, json.dumps(document(ordered, settings, args.engine), indent=1))

    def report(text: str) -> None:
        progress.update(f"[{len(finished) + 1}/{len(games)}] {text}")

    if not quiet:
        progress.note(f"analysing {len(games)} games with {spec.name} ({budget.fast:g} s per position, "
                      f"{budget.deep:g} s deep)")
    try:
        analyses = trio.run(lambda: analyse_games(games, args.analyser, budget, jobs=args.jobs, report=report, done=done))
    except AnalysisAborted as exc:
        progress.finish()
        print(f"gomocup-tournament: {exc}", file=sys.stderr)
        return 1
    except EngineError as exc:
        progress.finish()
        print(f"gomocup-tournament: the analysing engine cannot start: {exc}", file=sys.stderr)
        return 1
    progress.finish()
    for analysis in analyses:
        print(game_text(analysis))
        print()
    print(summary_text(summary(analyses, args.engine)))
    if args.json:
        _write(args.json, json.dumps(document(analyses, settings, args.engine), indent=1))
    if args.html:
        from tournament.analysis.html import render_page

        _write(args.html, render_page(document(analyses, settings, args.engine)))
        print(f"wrote {args.html}")
    return 0
