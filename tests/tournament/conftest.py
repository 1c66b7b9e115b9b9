"""Fixtures for the tournament tests."""
from __future__ import annotations

import pytest

from tournament.session import EnginePool


@pytest.fixture
async def pool(nursery):
    engines = EnginePool(nursery)
    yield engines
    await engines.close_all()
