"""`gomocup-bot experiment NAME [--quick] [--out DIR]`: reproduce the papers' experiments.

Each experiment is one module exposing `HELP`, `add_arguments(parser)` and `run(args) -> Report`.
Modules must be cheap to import (numba and the engines are imported inside `run`), because the
argument parser imports all of them to list their flags.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

# name -> module; order is the order of `--help`
EXPERIMENTS: dict[str, str] = {
    "rps-tictactoe": "gomocup_bot.experiments.rps_tictactoe",
    "sudden": "gomocup_bot.experiments.sudden",
    "mnk": "gomocup_bot.experiments.mnk",
    "threat-tests": "gomocup_bot.experiments.threat_tests",
}

DEFAULT_OUT = Path("docs") / "experiments"


class NotAvailable(RuntimeError):
    """The experiment needs a part of the product that is missing; the message says which."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gomocup-bot experiment",
        description="Reproduce an experiment from the papers and write a Markdown report.",
    )
    sub = parser.add_subparsers(dest="name", metavar="NAME", required=True)
    for name, module_name in EXPERIMENTS.items():
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        p.add_argument("--quick", action="store_true", help="a scaled-down run that finishes in under 5 minutes")
        p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"report folder (default {DEFAULT_OUT}/)")
        p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
        module.add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    from gomocup_bot.experiments.report import progress

    parser = build_parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # argparse exits 2 on bad usage, 0 on --help
        return int(exc.code or 0)
    module = importlib.import_module(EXPERIMENTS[args.name])
    started = time.monotonic()
    try:
        report = module.run(args)
    except NotAvailable as exc:
        progress(f"experiment {args.name}: not available yet: {exc}")
        return 2
    except KeyboardInterrupt:
        progress(f"experiment {args.name}: interrupted, no report written")
        return 130
    report.settings.setdefault("wall time", f"{time.monotonic() - started:.0f} s")
    path = report.write(args.out)
    progress(f"experiment {args.name}: report written to {path} ({time.monotonic() - started:.1f} s)")
    print(path)
    return 0
