"""Fixtures for the tournament tests."""
from __future__ import annotations

import pytest

from tournament.engines.session import EnginePool


@pytest.fixture
async def pool(nursery):
    engines = EnginePool(nursery)
    yield engines
    await engines.close_all()


@pytest.fixture
def no_leftovers():
    """Fails the test if an engine process or a thread it started is still there afterwards."""
    from api_helpers import child_processes, leftovers, our_threads

    pids, threads = child_processes(), our_threads()
    yield
    left_pids, left_threads = leftovers(pids, threads)
    assert not left_pids and not left_threads, f"left behind: processes {sorted(left_pids)}, threads {sorted(left_threads)}"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`gomocup-bot serve --engine greedy` for the module's tests."""
    from api_helpers import ServeProcess

    server = ServeProcess(tmp_path_factory.mktemp("serve") / "serve.log", "--engine", "greedy")
    yield server
    server.stop()
