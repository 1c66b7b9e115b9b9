"""The options of `gomocup-tournament web` (argparse only: `--help` must not import the web stack)."""
from __future__ import annotations

import argparse

DEFAULT_PORT = 8765


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "engines", nargs="*", metavar="ENGINE",
        help="the engines the page may start (default: every built-in, builtin:NAME). Only these are ever launched: "
        "the page picks one by name and never sends a command line. Same syntax as the other commands "
        "(LABEL=SPEC, builtin:NAME?opt=val, a command line, tcp://HOST:PORT).",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only). "
                   "Any other address requires a token.")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT}; 0 = any free port)")
    p.add_argument("--token", default=None, help="secret the page must present (?token=...). Required off this machine; "
                   "when --host is not a loopback address and no token is given, a random one is made and printed.")
    p.add_argument("--db", action="append", default=[], metavar="FILE",
                   help="a results database to watch live and replay (repeatable; a running match or ladder is fine)")
    p.add_argument("--max-games", type=int, default=32, metavar="N",
                   help="engine processes the pages may run at once (default 32); more pages get an error")
    p.add_argument("--idle-minutes", type=float, default=30.0, metavar="MIN",
                   help="close a page's connection (and end its engine) after this long without a message (default 30)")
    p.add_argument("--tolerance", type=float, default=1.0, metavar="SEC",
                   help="grace beyond the time per move before the engine loses on time (default 1)")
    p.add_argument("--start-timeout", type=float, default=15.0, metavar="SEC", help="time to launch an engine and answer START (default 15)")
    p.add_argument("--no-warmup", action="store_true", help="do not run `gomocup-bot warmup` before serving built-in engines")
    p.add_argument("--log-level", default="warning", help="log level for stderr (default warning)")
