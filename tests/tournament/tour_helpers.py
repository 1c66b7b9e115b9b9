"""Helpers shared by the tournament tests (a unique module name: several test folders have a conftest)."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

from tournament.engines.spec import EngineSpec, parse_engine_spec

FAKE_BRAIN = Path(__file__).with_name("fake_brain.py")


def fake_command(*args: str) -> str:
    return " ".join(shlex.quote(a) for a in [sys.executable, str(FAKE_BRAIN), *args])


def fake_spec(name: str, *args: str) -> EngineSpec:
    """An engine spec running the fake brain with these arguments."""
    return parse_engine_spec(f"{name}={fake_command(*args)}")
