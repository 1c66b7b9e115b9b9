"""`gomocup-bot` command line: the stdio brain by default, plus subcommands.

Each subcommand lives in its own module and is imported only when chosen, so the brain's start-up
(billed to the match clock by Gomocup) never pays for the server, the benchmarks or numba.
"""
from __future__ import annotations

import importlib
import sys

# subcommand -> (module, one-line help). Each module exposes `main(argv: list[str]) -> int`.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "brain": ("gomocup_bot.brain.main", "run the stdio brain (the default when no subcommand is given)"),
    "serve": ("gomocup_bot.net.server", "serve brain sessions over TCP"),
    "connect": ("gomocup_bot.net.relay", "a stdio brain that relays to a remote `gomocup-bot serve`"),
    "bench": ("gomocup_bot.bench", "measure the engine core's and the search's speed, with node checksums"),
    "warmup": ("gomocup_bot.warmup", "compile every numba kernel into the on-disk cache"),
    "experiment": ("gomocup_bot.experiments", "reproduce the papers' experiments and write reports"),
    "selfplay": ("gomocup_bot.training.selfplay", "play training games of the brain against itself (resumable)"),
    "records-from-db": ("gomocup_bot.training.fromdb", "turn gomocup-tournament games into training records"),
    "train-eval": ("gomocup_bot.training.train", "fit the evaluation's pattern-code tables to game records"),
    "train-net": ("gomocup_bot.training.nettrain", "train the network evaluation on game records (needs the [train] extra)"),
}

USAGE = """usage: gomocup-bot [SUBCOMMAND] [options]

With no subcommand, runs the Gomocup brain on stdin/stdout (what Piskvork, GomocupJudge and
c-gomoku-cli launch). Brain options: see `gomocup-bot brain --help`.

subcommands:
""" + "\n".join(f"  {name:<11} {text}" for name, (_, text) in SUBCOMMANDS.items())


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    if args and args[0] in SUBCOMMANDS:
        name, rest = args[0], args[1:]
    else:
        name, rest = "brain", args
    module = importlib.import_module(SUBCOMMANDS[name][0])
    return int(module.main(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
