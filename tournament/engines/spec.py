"""Engine specifications: what the user types, resolved into something the manager can launch.

Three kinds, all spoken to with the same protocol and measured the same way:
- a command line (`./pbrain-foo`, `"python my_brain.py --fast"`), run as a subprocess;
- `tcp://HOST:PORT`, a remote brain session (e.g. `gomocup-bot serve`), one connection per game;
- `builtin:NAME[?opt=val&...]`, one of our own engines, launched as
  `python -m gomocup_bot --engine NAME --level 3 --option backend=mcts ...` (brain flags as flags,
  engine options through `--option`) so it is a process like any other.
An optional `LABEL=` prefix names the engine in tables and the database (`fast=builtin:greedy`).
"""
from __future__ import annotations

import importlib
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl

# Every built-in the project plans, strongest last; the ladder default keeps only those that exist.
PLANNED_BUILTINS = ("random", "greedy", "mcts-plain", "minimax", "gomocup-bot")
_LABEL = re.compile(r"^([A-Za-z0-9_.+-]{1,64})=(.+)$", re.S)
_OPTION_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")  # the brain's own options use underscores (mate_width)


class EngineSpecError(ValueError):
    """An engine specification that cannot be understood."""


@dataclass(frozen=True)
class EngineSpec:
    name: str  # label used everywhere (unique within a tournament)
    text: str  # the specification as given (stored in the database)
    kind: str  # "process" | "tcp" | "builtin"
    argv: tuple[str, ...] = ()
    host: str = ""
    port: int = 0
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = field(default=())

    @property
    def is_remote(self) -> bool:
        return self.kind == "tcp"


# options of `builtin:NAME?opt=val` that are brain flags; any other goes to the engine (`--option`)
BRAIN_FLAGS = frozenset({"level", "seed", "threads", "log-level", "log-file"})


def builtin_argv(name: str, options: dict[str, str]) -> tuple[str, ...]:
    """The command line of a built-in engine (same interpreter as the manager)."""
    argv = [sys.executable, "-m", "gomocup_bot", "--engine", name]
    for key, value in options.items():
        if not _OPTION_KEY.match(key):
            raise EngineSpecError(f"bad option name {key!r} for builtin:{name}")
        if key in BRAIN_FLAGS:
            argv += [f"--{key}", value]
        else:  # anything else is the engine's own option
            argv += ["--option", f"{key}={value}"]
    return tuple(argv)


def available_builtins() -> list[str]:
    """Built-in engine names the installed `gomocup_bot` actually registers (in PLANNED_BUILTINS order)."""
    try:
        engines = importlib.import_module("gomocup_bot.engines")
        names = list(getattr(engines, "ENGINE_NAMES"))
    except Exception:  # noqa: BLE001 - the brain package is not ready or broken: no built-ins
        return []
    ordered = [n for n in PLANNED_BUILTINS if n in names]
    return ordered + sorted(n for n in names if n not in ordered)


def parse_engine_spec(text: str, cwd: str | None = None, env: dict[str, str] | None = None) -> EngineSpec:
    """Parse one engine specification (see the module docstring)."""
    raw = text.strip()
    if not raw:
        raise EngineSpecError("empty engine specification")
    label = None
    match = _LABEL.match(raw)
    if match and not match.group(1).startswith("-"):
        label, raw = match.group(1), match.group(2).strip()
    env_items = tuple(sorted((env or {}).items()))
    if raw.startswith("builtin:"):
        body = raw[len("builtin:") :]
        name, _, query = body.partition("?")
        if not re.match(r"^[a-z][a-z0-9-]*$", name):
            raise EngineSpecError(f"bad built-in engine name {name!r}")
        options = dict(parse_qsl(query, keep_blank_values=True, strict_parsing=False)) if query else {}
        shown = [f"{k}{v}" for k, v in options.items() if len(v) <= 8 and re.fullmatch(r"[A-Za-z0-9_.+-]*", v)]
        suffix = "".join(f"-{item}" for item in shown)
        return EngineSpec(label or f"{name}{suffix}", text.strip(), "builtin", builtin_argv(name, options), cwd=cwd, env=env_items)
    if raw.startswith("tcp://"):
        address = raw[len("tcp://") :].rstrip("/")
        host, sep, port_text = address.rpartition(":")
        host = host.strip("[]")
        if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise EngineSpecError(f"expected tcp://HOST:PORT, got {raw!r}")
        return EngineSpec(label or f"{host}:{port_text}", text.strip(), "tcp", host=host, port=int(port_text))
    try:
        argv = tuple(shlex.split(raw))
    except ValueError as exc:
        raise EngineSpecError(f"cannot split command line {raw!r}: {exc}") from None
    if not argv:
        raise EngineSpecError("empty command line")
    default = Path(argv[0]).name
    if default.startswith("python") and len(argv) > 1:
        default = Path(argv[-1] if not argv[1].startswith("-m") else argv[2] if len(argv) > 2 else argv[1]).stem
    return EngineSpec(label or default, text.strip(), "process", argv, cwd=cwd, env=env_items)


def unique_names(specs: list[EngineSpec]) -> list[EngineSpec]:
    """Rename duplicates (`greedy`, `greedy#2`, ...) so every engine has its own row."""
    seen: dict[str, int] = {}
    out = []
    for spec in specs:
        count = seen.get(spec.name, 0) + 1
        seen[spec.name] = count
        if count > 1:
            spec = EngineSpec(f"{spec.name}#{count}", spec.text, spec.kind, spec.argv, spec.host, spec.port, spec.cwd, spec.env)
        out.append(spec)
    return out
