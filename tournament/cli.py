"""`gomocup-tournament`: matches, gauntlets, round robins, a persistent ladder, reports and exports.

Every subcommand has `--help`. `gomocup-tournament ladder` with no arguments plays a short ladder
among the built-in engines into ./ladder.sqlite and prints the standings.
"""
from __future__ import annotations

import argparse
import logging
import math
import os
import sys
from pathlib import Path

import trio

from protocol.rules import RuleError, Rules
from tournament.engines.spec import EngineSpecError, available_builtins, parse_engine_spec, unique_names
from tournament.game.export import write_game
from tournament.play.openings import BUILTIN_OPENINGS, EMPTY_OPENING, OpeningError, load_openings
from tournament.progress import Progress, format_duration
from tournament.report.tables import colour_table, crosstable, endings_summary, standings_table
from tournament.play.runner import (
    RunSummary,
    SprtSettings,
    TournamentSettings,
    cpu_count,
    default_concurrency,
    prepare_store,
    run_tournament,
)
from tournament.engines.session import GameConfig, TimeControl
from tournament.results.store import Store, StoreError
from tournament.engines.warmup import warm_up_builtins

log = logging.getLogger("tournament")

ENGINE_HELP = """engines: a command line ("./pbrain-foo" or "python brain.py --fast", quote it), tcp://HOST:PORT for a
remote brain session (e.g. `gomocup-bot serve`), or builtin:NAME[?level=N] for a built-in engine
(%s). Prefix LABEL= to name an engine (fast=builtin:greedy)."""


class UsageError(Exception):
    pass


def _seconds_ms(text: str) -> int | None:
    """'5' / '0.25' seconds -> ms; 'none' / 'inf' / 'unlimited' -> None."""
    if text.strip().lower() in ("none", "inf", "unlimited", "-"):
        return None
    value = float(text)
    if value < 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"bad time {text!r}")
    return int(round(value * 1000))


def _board(text: str) -> tuple[int, int]:
    parts = text.lower().replace("x", " ").split()
    try:
        sizes = [int(p) for p in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(f"board must be N or WxH, not {text!r}") from None
    if len(sizes) == 1:
        sizes *= 2
    if len(sizes) != 2 or not all(3 <= s <= 100 for s in sizes):
        raise argparse.ArgumentTypeError(f"board must be N or WxH with sides 3..100, not {text!r}")
    return sizes[0], sizes[1]


def _add_game_options(p: argparse.ArgumentParser, *, turn: str, match: str, db: str) -> None:
    g = p.add_argument_group("games")
    g.add_argument("--db", default=db, help=f"SQLite results database (default: {db})")
    g.add_argument("--resume", action="store_true", help="continue the tournament stored in --db with its stored settings")
    g.add_argument("--board", type=_board, default=(15, 15), metavar="N|WxH", help="board size (default 15)")
    g.add_argument("--rule", default="freestyle", help="freestyle, exact-five (standard), renju, caro, caro-exact, or a Gomocup rule code (default freestyle)")
    g.add_argument("--win-length", type=int, default=5, metavar="K", help="stones in a row that win (default 5)")
    g.add_argument("--turn", type=_seconds_ms, default=_seconds_ms(turn), metavar="SEC", help=f"time per move in seconds, or none (default {turn})")
    g.add_argument("--match", dest="match_time", type=_seconds_ms, default=_seconds_ms(match), metavar="SEC", help=f"time per game and engine in seconds, or none (default {match})")
    g.add_argument("--tolerance", type=float, default=1.0, metavar="SEC", help="grace beyond the limits before a time loss (default 1, as Gomocup)")
    g.add_argument("--yxstop", action="store_true", help="send YXSTOP when a move's budget is used up (still scored with the tolerance)")
    g.add_argument("--max-memory", type=float, default=350.0, metavar="MIB", help="memory limit per engine process tree in MiB, 0 = none (default 350, as Gomocup)")
    g.add_argument("--draw-after", default="full", metavar="N|piskvork|full", help="draw when N stones are on the board; piskvork = width*height-25; full = play to a full board (default)")
    g.add_argument("--suspend-idle", action="store_true", help="stop (SIGSTOP) each engine while its opponent is on move, as GomocupJudge does: no pondering")
    g.add_argument("--start-timeout", type=float, default=15.0, metavar="SEC", help="time to launch an engine and answer START (default 15)")
    o = p.add_argument_group("openings")
    o.add_argument("--openings", default="builtin", metavar="FILE|builtin|none", help="opening file (offset `dx,dy, ...` or pos `h8i9j10` lines), the built-in balanced set (default), or none (empty board)")
    o.add_argument("--opening-order", choices=("sequential", "random"), default="sequential", help="order of openings (default sequential)")
    o.add_argument("--seed", type=int, default=0, help="seed for random opening order and symmetries")
    o.add_argument("--symmetries", action="store_true", help="apply a random board symmetry to each pair's opening")
    r = p.add_argument_group("running")
    r.add_argument("--concurrency", "-j", type=int, default=None, metavar="N", help=f"games at once (default: cores - 1 = {default_concurrency()})")
    r.add_argument("--psq", metavar="DIR", help="write every finished game as a Piskvork .psq file into DIR")
    r.add_argument("--sgf", metavar="DIR", help="write every finished game as an .sgf file into DIR")
    r.add_argument("--engine-cwd", action="append", default=[], metavar="LABEL=DIR", help="working directory of an engine (repeatable)")
    r.add_argument("--engine-env", action="append", default=[], metavar="LABEL:KEY=VALUE", help="environment variable for an engine (repeatable)")
    r.add_argument(
        "--cluster", metavar="tcp://HOST:PORT|local:N",
        help="play the game pairs as tasks on a Dask cluster: a running scheduler's address, or local:N to start N "
        "worker processes here; this process alone writes --db (needs: pip install 'gomocup-bot[cluster]'; see docs/tournament.md)",
    )
    r.add_argument("--quiet", "-q", action="store_true", help="no progress line even on a terminal")
    r.add_argument("--no-warmup", action="store_true", help="do not run `gomocup-bot warmup` before games with built-in engines")
    r.add_argument("--log-level", default="warning", help="log level for stderr (default warning)")


def _parse_engines(texts: list[str], args: argparse.Namespace) -> list:
    cwds: dict[str, str] = {}
    for item in args.engine_cwd:
        label, sep, folder = item.partition("=")
        if not sep:
            raise UsageError(f"--engine-cwd wants LABEL=DIR, got {item!r}")
        cwds[label] = folder
    envs: dict[str, dict[str, str]] = {}
    for item in args.engine_env:
        label, sep, rest = item.partition(":")
        key, sep2, value = rest.partition("=")
        if not sep or not sep2 or not key:
            raise UsageError(f"--engine-env wants LABEL:KEY=VALUE, got {item!r}")
        envs.setdefault(label, {})[key] = value
    specs = []
    for text in texts:
        try:
            base = parse_engine_spec(text)
            specs.append(parse_engine_spec(text, cwd=cwds.get(base.name), env=envs.get(base.name)))
        except EngineSpecError as exc:
            raise UsageError(str(exc)) from None
    return unique_names(specs)


def _settings(kind: str, engines: list, args: argparse.Namespace) -> TournamentSettings:
    try:
        rules = Rules.from_name(args.rule)
    except RuleError as exc:
        raise UsageError(str(exc)) from None
    width, height = args.board
    if args.draw_after == "full":
        move_limit = None
    elif args.draw_after == "piskvork":
        move_limit = max(1, width * height - 25)
    elif args.draw_after.isdigit() and int(args.draw_after) > 0:
        move_limit = int(args.draw_after)
    else:
        raise UsageError(f"--draw-after wants N, piskvork or full, not {args.draw_after!r}")
    if args.openings == "builtin":
        openings = list(BUILTIN_OPENINGS)
    elif args.openings == "none":
        openings = [EMPTY_OPENING]
    else:
        try:
            openings = load_openings(args.openings, width, height)
        except (OSError, OpeningError) as exc:
            raise UsageError(f"cannot read openings: {exc}") from None
    if not any(o.fits(width, height) for o in openings):
        raise UsageError(f"no opening fits a {width}x{height} board")
    tc = TimeControl(
        turn_ms=args.turn, match_ms=args.match_time, tolerance_ms=int(round(args.tolerance * 1000)), stop_at_budget=args.yxstop
    )
    game = GameConfig(
        width=width, height=height, rules=rules, win_length=args.win_length, time=tc,
        max_memory=int(args.max_memory * 2**20), move_limit=move_limit, start_timeout=args.start_timeout,
        suspend_idle=args.suspend_idle,
    )
    sprt = _sprt_settings(args)
    concurrency = args.concurrency if args.concurrency is not None else default_concurrency()
    if concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    return TournamentSettings(
        kind=kind, engines=engines, game=game, pairs=getattr(args, "pairs", 1), openings=openings,
        opening_order=args.opening_order, seed=args.seed, symmetries=args.symmetries, concurrency=concurrency,
        sprt=sprt, max_games=getattr(args, "games", None),
        max_seconds=(args.minutes * 60 if getattr(args, "minutes", None) else None), psq_dir=args.psq, sgf_dir=args.sgf,
    )


def _sprt_settings(args: argparse.Namespace) -> SprtSettings | None:
    """The SPRT asked for by ``--sprt ELO0,ELO1`` (and ``--alpha/--beta/--trinomial``), if any."""
    if not getattr(args, "sprt", None):
        return None
    try:
        elo0, elo1 = (float(v) for v in args.sprt.split(","))
    except ValueError:
        raise UsageError("--sprt wants ELO0,ELO1 (e.g. 0,10)") from None
    return SprtSettings(elo0, elo1, args.alpha, args.beta, pentanomial=not args.trinomial)


def _print_results(store: Store, summary: RunSummary | None, names: list[str] | None = None,
                   by_colour: bool = False) -> None:
    games = store.games()
    if names is not None:
        wanted = set(names)
        games = [g for g in games if g.black in wanted and g.white in wanted]
    print(standings_table(games))
    table = crosstable(games)
    if table:
        print()
        print(table)
    if by_colour and games:
        print()
        print(colour_table(games))
    if games:
        print()
        print(f"{len(games)} games; endings: {endings_summary(games)}")
    if summary is not None:
        line = f"this run: {summary.games_played} games in {format_duration(summary.wall_seconds)}, stopped: {summary.stopped_by}"
        if summary.games_played:
            line += f"; manager CPU {summary.manager_cpu_seconds:.2f}s ({100 * summary.manager_cpu_seconds / summary.wall_seconds:.1f}% of wall)"
        print(line)
        if summary.sprt is not None:
            s = summary.sprt
            print(f"SPRT: LLR {s.llr:.3f} bounds [{s.lower:.3f}, {s.upper:.3f}] -> {s.decision or 'undecided'}")


def _run(kind: str, engine_texts: list[str], args: argparse.Namespace) -> int:
    engines = _parse_engines(engine_texts, args)
    settings = _settings(kind, engines, args)
    target = None
    if args.cluster:
        from tournament.cluster.coordinator import run_cluster
        from tournament.cluster.target import ClusterError, cluster_target

        if args.concurrency is not None:
            raise UsageError("--concurrency is for local runs; on a cluster each worker thread plays one game (dask worker --nthreads)")
        try:
            target = cluster_target(args.cluster)
        except ClusterError as exc:
            raise UsageError(str(exc)) from None
    progress = Progress(enabled=False if args.quiet else None)
    db = Path(args.db)
    with Store(db) as store:
        settings = prepare_store(store, settings, args.resume)
        if kind == "ladder" and len(settings.engines) < 2:
            raise UsageError("a ladder needs at least two engines")
        if settings.concurrency > cpu_count():
            pass  # the runner warns
        if not args.no_warmup:
            warm_up_builtins(settings.engines, progress)
        if progress.enabled:
            progress.note(
                f"{kind}: {', '.join(e.name for e in settings.engines)}; {settings.game.width}x{settings.game.height} "
                f"{settings.game.rules.name}; {settings.game.time.describe()}; "
                f"{target.describe() if target else f'{settings.concurrency} at once'}; db {db}"
            )
        if target is not None:
            try:
                summary = run_cluster(settings, store, progress, target, handle_signals=True, warmup=not args.no_warmup)
            except ClusterError as exc:
                print(f"gomocup-tournament: {exc}", file=sys.stderr)
                return 1
        else:
            summary = trio.run(run_tournament, settings, store, progress, True)
        _print_results(store, summary, [e.name for e in settings.engines])
        if summary.stopped_by.startswith("interrupted"):
            again = "run the same ladder again" if kind == "ladder" else f"continue with: gomocup-tournament {kind} --db {db} --resume"
            print(f"{summary.stopped_by}: finished games are in {db}; {again}", file=sys.stderr)
            return 130
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    if not Path(args.db).exists():
        raise UsageError(f"no database at {args.db}")
    if args.html:
        from tournament.report.html import write_html_report

        try:
            count = write_html_report(args.db, args.html)
        except OSError as exc:
            raise UsageError(f"cannot write {args.html}: {exc}") from None
        print(f"wrote {args.html} ({count} games)")
        return 0
    with Store(args.db) as store:
        _print_results(store, None, by_colour=True)
        _print_sprt_trail(store, args)
    return 0


def _print_sprt_trail(store: Store, args: argparse.Namespace) -> None:
    """With ``--sprt``, or for a match stored with one: the SPRT replayed over the stored games."""
    from tournament.play.runner import sprt_trail

    config = store.get_config() or {}
    names = [e["name"] if isinstance(e, dict) else str(e) for e in config.get("engines", [])]
    settings = _sprt_settings(args)
    if settings is None and config.get("sprt"):
        settings = SprtSettings(**config["sprt"])
    if settings is None:
        return
    games = store.games()
    players = sorted({g.black for g in games} | {g.white for g in games})
    engine = args.engine or (names[0] if names else None)
    if engine is None or engine not in players:
        raise UsageError(f"say which engine the SPRT is for: --engine NAME, one of {', '.join(players) or '(no games)'}")
    if len(players) != 2:
        raise UsageError(f"an SPRT compares two engines; this database has {len(players)}")
    trail = sprt_trail(games, engine, settings)
    f = trail.final
    kind = "trinomial" if not settings.pentanomial else "pentanomial"
    print(f"SPRT [{settings.elo0:g}, {settings.elo1:g}] for {engine} ({kind}, alpha {settings.alpha:g}, beta {settings.beta:g}):"
          f" LLR {f.llr:.3f} bounds [{f.lower:.3f}, {f.upper:.3f}] -> {f.decision or 'undecided'} after {len(games)} games")
    if trail.crossed:
        crossings = "; then ".join(f"{h} after {n} games" for h, n in sorted(trail.crossed.items(), key=lambda kv: kv[1]))
        print(f"  first crossed: {crossings}")
    else:
        print("  never crossed a bound")


def _cmd_export(args: argparse.Namespace) -> int:
    if not args.psq and not args.sgf:
        raise UsageError("say where: --psq DIR and/or --sgf DIR")
    if not Path(args.db).exists():
        raise UsageError(f"no database at {args.db}")
    with Store(args.db) as store:
        games = store.games()
    for game in games:
        write_game(game, args.psq, args.sgf)
    print(f"exported {len(games)} games")
    return 0


def build_parser() -> argparse.ArgumentParser:
    builtins = ", ".join(available_builtins()) or "none installed"
    parser = argparse.ArgumentParser(
        prog="gomocup-tournament",
        description="Play Gomocup brains against each other by the Gomocup protocol: matches, gauntlets, round "
        "robins and a persistent ladder; results in SQLite (resumable), Elo with error bars, SPRT.",
        epilog=ENGINE_HELP % builtins + "\n\nStart with: gomocup-tournament ladder",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("match", help="two engines, game pairs with colours swapped, optional SPRT", epilog=ENGINE_HELP % builtins)
    p.add_argument("engines", nargs="*", metavar="ENGINE", help="the two engines (none with --resume)")
    p.add_argument("--pairs", type=int, default=10, help="game pairs to play (default 10 = 20 games)")
    s = p.add_argument_group("SPRT (stops the match when decided)")
    s.add_argument("--sprt", metavar="ELO0,ELO1", help="test H0: elo <= ELO0 against H1: elo >= ELO1 for the first engine")
    s.add_argument("--alpha", type=float, default=0.05, help="false positive rate (default 0.05)")
    s.add_argument("--beta", type=float, default=0.05, help="false negative rate (default 0.05)")
    s.add_argument("--trinomial", action="store_true", help="score single games instead of game pairs (pentanomial)")
    _add_game_options(p, turn="5", match="none", db="match.sqlite")

    p = sub.add_parser("gauntlet", help="the first engine against each of the others", epilog=ENGINE_HELP % builtins)
    p.add_argument("engines", nargs="*", metavar="ENGINE", help="champion first, then its opponents (none with --resume)")
    p.add_argument("--pairs", type=int, default=5, help="game pairs against each opponent (default 5)")
    _add_game_options(p, turn="5", match="none", db="gauntlet.sqlite")

    p = sub.add_parser("roundrobin", help="every engine against every other", epilog=ENGINE_HELP % builtins)
    p.add_argument("engines", nargs="*", metavar="ENGINE", help="two or more engines (none with --resume)")
    p.add_argument("--pairs", type=int, default=2, help="game pairs per couple (default 2)")
    _add_game_options(p, turn="5", match="none", db="roundrobin.sqlite")

    p = sub.add_parser(
        "ladder",
        help="a persistent ladder: adds games where ratings are least certain (no arguments: built-ins, ~2 minutes)",
        description="Keeps adding game pairs between the engines whose rating difference is least certain, into a "
        "database that grows from run to run. With no engines, the built-in engines play a short ladder.",
        epilog=ENGINE_HELP % builtins,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("engines", nargs="*", metavar="ENGINE", help="engines to add or play (default: every built-in engine)")
    p.add_argument("--minutes", type=float, default=1.5, help="start no new game pair after this many minutes (default 1.5)")
    p.add_argument("--games", type=int, default=None, help="add at most this many games in this run")
    _add_game_options(p, turn="0.2", match="10", db="ladder.sqlite")

    p = sub.add_parser(
        "report",
        help="standings, crosstable and points by colour of a database, at any time (even during a run)",
        description="Print the standings (maximum-likelihood Elo with 95 % errors, score, W-D-L, likelihood of "
        "superiority, losses by reason, thinking time, peak memory), the crosstable and each engine's points as "
        "black and as white by the opening's number of stones (where a match is won or lost) of a results "
        "database. Safe while a tournament is writing to it.",
    )
    p.add_argument("db", metavar="DB", help="a database written by match, gauntlet, roundrobin or ladder")
    p.add_argument("--html", metavar="FILE", help="write one self-contained HTML page instead (standings with an Elo chart, "
                   "crosstable, endings, SPRT state, every game as a replayable board; no network needed to view it)")
    p.add_argument("--sprt", metavar="ELO0,ELO1", help="replay an SPRT over the stored games in the order played (default: "
                   "the match's own --sprt, if it had one): the LLR now, and after how many games it first crossed a bound")
    p.add_argument("--engine", metavar="NAME", help="the engine the SPRT is for (default: the match's first engine)")
    p.add_argument("--alpha", type=float, default=0.05, help="false positive rate (default 0.05)")
    p.add_argument("--beta", type=float, default=0.05, help="false negative rate (default 0.05)")
    p.add_argument("--trinomial", action="store_true", help="score single games instead of game pairs (pentanomial)")

    p = sub.add_parser(
        "export",
        help="write the games of a database as .psq and/or .sgf files",
        description="Write every stored game as a Piskvork .psq file (1-based x,y,ms lines, names, -1) and/or an "
        "SGF file (GM[4], ending in TE[], move times in comments), one file per game.",
    )
    p.add_argument("db", metavar="DB", help="a results database")
    p.add_argument("--psq", metavar="DIR", help="folder for .psq files")
    p.add_argument("--sgf", metavar="DIR", help="folder for .sgf files")

    from tournament.analysis import analyse_cli, evaluate_cli

    for name, module, summary in (
        ("analyse", analyse_cli,
         "find the blunders in game records (database, SGF, PSQ) with an analysing engine; table, --json, --html"),
        ("evaluate", evaluate_cli,
         "one engine's evaluation of many positions (JSON lines in and out; resumable): training labels"),
    ):
        p = sub.add_parser(name, help=summary, description=module.DESCRIPTION, epilog=module.EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(p)

    p = sub.add_parser(
        "web",
        help="a local web board: play against an engine, watch a running tournament, replay games",
        description="Serve a page (default http://127.0.0.1:8765/) to play against one of the engines named here "
        "(undo, swap, the engine's thinking, clocks), and to watch and replay the games of --db databases. "
        "Needs the web extra: pip install 'gomocup-bot[web]'.",
        epilog=ENGINE_HELP % builtins,
    )
    from tournament.web.options import add_arguments as add_web_arguments

    add_web_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    logging.basicConfig(level=getattr(logging, str(getattr(args, "log_level", "warning")).upper(), logging.WARNING), stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    try:
        if args.command == "report":
            return _cmd_report(args)
        if args.command == "export":
            return _cmd_export(args)
        if args.command == "analyse":
            from tournament.analysis.analyse_cli import AnalyseUsageError, run as run_analyse
            from tournament.analysis.records import RecordError

            try:
                return run_analyse(args)
            except (AnalyseUsageError, RecordError) as exc:
                raise UsageError(str(exc)) from None
        if args.command == "evaluate":
            from tournament.analysis.evaluate_cli import EvaluateUsageError, run as run_evaluate

            try:
                return run_evaluate(args)
            except EvaluateUsageError as exc:
                raise UsageError(str(exc)) from None
        if args.command == "web":
            try:
                from tournament.web.server import run as run_web
            except ImportError as exc:
                raise UsageError(f"the web board needs its extra: pip install 'gomocup-bot[web]' ({exc})") from None
            return run_web(args)
        engines = list(args.engines)
        needed = {"match": (2, 2), "gauntlet": (2, None), "roundrobin": (2, None)}.get(args.command)
        if needed and not args.resume:
            low, high = needed
            if len(engines) < low or (high is not None and len(engines) > high):
                raise UsageError(f"{args.command} needs {'exactly' if high else 'at least'} {low} engines")
        if needed and args.resume and engines:
            raise UsageError("--resume takes the engines from the database; do not name them")
        if getattr(args, "pairs", 1) < 1:
            raise UsageError("--pairs must be at least 1")
        if args.command == "ladder" and not engines:
            engines = [f"builtin:{name}" for name in available_builtins()]
            if len(engines) < 2 and not args.resume:
                raise UsageError("fewer than two built-in engines are installed; name engines to ladder")
        return _run(args.command, engines, args)
    except UsageError as exc:
        print(f"gomocup-tournament: {exc}", file=sys.stderr)
        return 2
    except StoreError as exc:
        print(f"gomocup-tournament: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `report DB | head`: the reader left; say nothing more, as a Unix filter does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush would raise again
        return 141


if __name__ == "__main__":
    sys.exit(main())
