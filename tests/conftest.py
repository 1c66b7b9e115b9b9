"""Suite-wide set-up: fill numba's on-disk cache once, before any test or xdist worker starts.

On a fresh checkout (CI) every kernel is cold. Without this, each xdist worker compiled what its
first tests touched, so the two workers spent minutes compiling the same kernels side by side;
`gomocup-bot warmup` compiles each kernel once, its two halves in two processes, and the workers
then only load. On a warm cache it costs a few seconds.
"""
from __future__ import annotations

import subprocess
import sys

import pytest


def pytest_sessionstart(session: pytest.Session) -> None:
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller has done it
        return
    done = subprocess.run([sys.executable, "-m", "gomocup_bot", "warmup"], stderr=subprocess.PIPE, text=True, check=False)
    tail = done.stderr.strip().splitlines()[-1:] or [""]
    if done.returncode != 0:  # the tests still run, compiling as they go; say why it is slow
        print(f"\nwarning: gomocup-bot warmup exited with {done.returncode}: {done.stderr.strip()}", file=sys.stderr)
    else:
        print(f"\n{tail[0]}", file=sys.stderr)
