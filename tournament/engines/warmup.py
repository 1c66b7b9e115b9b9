"""The warm-up of built-in engines: `gomocup-bot warmup` in a subprocess fills the numba cache
before the first game, so no game pays compile time on its clock.

A module of its own because two places need it: the local command line (`cli`) before its games,
and each Dask worker process (`cluster`) before its first built-in game there.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Iterable

from tournament.engines.spec import EngineSpec
from tournament.progress import Progress


def warm_up_builtins(engines: Iterable[EngineSpec], progress: Progress) -> None:
    """Compile the numba kernels of built-in engines once, so no game pays compile time on its clock.

    Does nothing without a built-in among `engines` or without `gomocup_bot` installed; a failed
    warm-up is a warning on `progress`, never an error (the games still run, only slower at first).
    """
    if not any(e.kind == "builtin" for e in engines):
        return
    try:
        if importlib.util.find_spec("gomocup_bot.warmup") is None:
            return
    except (ImportError, ValueError):
        return
    if progress.enabled:
        progress.note("warming up built-in engines (gomocup-bot warmup; slow only the first time) ...")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "gomocup_bot", "warmup"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=900, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        progress.note(f"warning: warmup failed ({exc}); first moves may be slow")
        return
    if done.returncode != 0:
        tail = " | ".join(done.stderr.strip().splitlines()[-3:])
        progress.note(f"warning: warmup exited with {done.returncode} ({tail}); first moves may be slow")
