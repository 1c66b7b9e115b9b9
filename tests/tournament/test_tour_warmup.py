"""The built-in engines' warm-up (`tournament.engines.warmup`), shared by the command line and the cluster
workers: when it runs `gomocup-bot warmup`, and that a failure is a warning, not an error."""
from __future__ import annotations

import io
import subprocess
import sys

import pytest

from tournament.engines import warmup
from tournament.engines.spec import parse_engine_spec
from tournament.progress import Progress

from tour_helpers import fake_spec


@pytest.fixture
def calls(monkeypatch) -> list[list[str]]:
    """Every command the warm-up would run; each "exits" with 3 and four lines of stderr."""
    seen: list[list[str]] = []

    def run(argv, **_kwargs):
        seen.append(list(argv))
        return subprocess.CompletedProcess(argv, 3, stdout=None, stderr="one\ntwo\nthree\nfour\n")

    monkeypatch.setattr(warmup.subprocess, "run", run)
    return seen


def test_no_builtin_engine_no_warmup(calls) -> None:
    out = io.StringIO()
    warmup.warm_up_builtins([fake_spec("a"), parse_engine_spec("tcp://127.0.0.1:9")], Progress(stream=out, enabled=False))
    assert calls == [] and out.getvalue() == ""


def test_a_builtin_runs_gomocup_bot_warmup_once_and_a_failure_is_a_warning(calls) -> None:
    out = io.StringIO()
    engines = (e for e in [parse_engine_spec("builtin:greedy"), parse_engine_spec("builtin:random")])  # any iterable
    warmup.warm_up_builtins(engines, Progress(stream=out, enabled=False))
    assert calls == [[sys.executable, "-m", "gomocup_bot", "warmup"]]
    assert out.getvalue() == "warning: warmup exited with 3 (two | three | four); first moves may be slow\n"
