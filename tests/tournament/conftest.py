"""Shared helpers for the tournament tests: the scripted fake brain and an engine pool fixture."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tournament.engines import EngineSpec, parse_engine_spec
from tournament.session import EnginePool

FAKE_BRAIN = Path(__file__).with_name("fake_brain.py")


def fake_spec(name: str, *args: str) -> EngineSpec:
    """An engine spec running the fake brain with these arguments."""
    command = " ".join(shlex.quote(a) for a in [sys.executable, str(FAKE_BRAIN), *args])
    return parse_engine_spec(f"{name}={command}")


@pytest.fixture
async def pool(nursery):
    engines = EnginePool(nursery)
    yield engines
    await engines.close_all()
