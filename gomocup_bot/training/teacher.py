"""Labels from a teacher: another engine's evaluation of the training positions.

Why: the self-play labels (the game result of a 20 k-node brain, and that brain's own value) are
the brain judging itself; seven table sets fitted to them played no stronger. A stronger engine's
evaluation of the same positions, read through `gomocup-tournament evaluate`, tells the fit what
a position is worth independently of our search.

A teacher file has one JSON object a line: ``rule``, ``moves`` (two letters a move, as in the
game records: the position after them) and the engine's ``eval`` (its own unit, for the side to
move) or ``mate`` (moves to a forced win, negative: a loss); a line with neither is ignored.
"""
from __future__ import annotations

import gzip
import json
import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # the rows' type only: the features module loads the board and the search
    from gomocup_bot.training import features

Key = tuple[str, str]  # (rule, moves)


class TeacherError(ValueError):
    """A teacher file that cannot be read (the message names the file and line)."""


def add_scale_arguments(ap) -> None:
    """The options that turn a teacher's units into ours, shared by `train-eval` and `train-net`."""
    ap.add_argument("--teacher-scale", type=float, default=None, metavar="UNITS",
                    help="the teacher's evaluation units per logit (default: the scale that best predicts "
                         "the training games' results)")
    ap.add_argument("--teacher-mate", type=float, default=0.95, metavar="P",
                    help="the winrate a teacher's forced win counts as (default 0.95)")


def check_scale_arguments(ap, args) -> None:
    """Refuse a mate winrate outside (0.5, 1) or a scale that is not positive (argparse's error)."""
    if not 0.5 < args.teacher_mate < 1 or (args.teacher_scale is not None and not args.teacher_scale > 0):
        ap.error("--teacher-mate must lie between 0.5 and 1, --teacher-scale must be positive")


def read(paths: list[str]) -> dict[Key, tuple[float | None, int | None]]:
    """Every labelled position of the files: (rule, moves) -> (eval, mate). Later files win."""
    table: dict[Key, tuple[float | None, int | None]] = {}
    for path in paths:
        opener = gzip.open if str(path).endswith(".gz") else open
        try:
            with opener(path, "rt", encoding="utf-8") as f:
                lines = f.read().split("\n")
        except OSError as exc:
            raise TeacherError(f"{path}: {exc}") from None
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                key = (str(data["rule"]), str(data["moves"]))
                value, mate = data.get("eval"), data.get("mate")
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                if n >= len(lines) - 1 and not line.rstrip().endswith("}"):
                    break  # the labeller was stopped mid-write
                raise TeacherError(f"{path}:{n}: not a teacher label ({exc})") from None
            if mate:
                table[key] = (None, int(mate))
            elif value is not None:
                table[key] = (float(value), None)
    return table


def values_of(rows: features.Rows, moves_of: dict[int, tuple[str, str]],
              table: dict[Key, tuple[float | None, int | None]]) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the teacher's eval (NaN: none or a mate) and mate sign (+1, -1; 0: none)."""
    ev = np.full(len(rows), np.nan)
    mate = np.zeros(len(rows), dtype=np.int8)
    for i, (game, ply) in enumerate(zip(rows.game, rows.ply)):
        rule, moves = moves_of[int(game)]
        got = table.get((rule, moves[: 2 * int(ply)]))
        if got is None:
            continue
        value, m = got
        if m:
            mate[i] = 1 if m > 0 else -1
        else:
            ev[i] = value
    return ev, mate


def fit_scale(ev: np.ndarray, result: np.ndarray) -> float:
    """The teacher's units per logit that best predict the game results (log loss, a grid search
    over 10..10,000 on a log scale): its evaluation read as a winrate."""
    ok = ~np.isnan(ev)
    if ok.sum() < 50:
        raise TeacherError("fewer than 50 labelled positions with a value: give --teacher-scale")
    y = np.clip(result[ok], 1e-6, 1 - 1e-6)
    best, best_loss = 0.0, math.inf
    for scale in np.exp(np.linspace(math.log(10), math.log(10000), 200)):
        p = np.clip(1 / (1 + np.exp(-ev[ok] / scale)), 1e-6, 1 - 1e-6)
        loss = float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
        if loss < best_loss:
            best, best_loss = float(scale), loss
    return best


def scores(ev: np.ndarray, mate: np.ndarray, teacher_scale: float, mate_winrate: float, scale: float) -> np.ndarray:
    """The teacher's view in our units (``scale`` per logit), so the label blend reads it like a
    searched value: a mate becomes ``mate_winrate`` (or 1 minus it); NaN where it said nothing."""
    cap = scale * math.log(mate_winrate / (1 - mate_winrate))
    out = np.clip(ev / teacher_scale, -cap / scale, cap / scale) * scale
    out = np.where(mate > 0, cap, np.where(mate < 0, -cap, out))
    return out.astype(np.float32)
