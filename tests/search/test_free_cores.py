"""The brain's alpha-beta runs its second thread only where a core is free right now.

Real CPU hogs (spinning processes) occupy every usable core; the free-core count and the search
summary that the GUI sees (`MESSAGE ... threads N`) must then say one thread.
"""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from gomocup_bot.core.cpu import free_cores, usable_cores
from gomocup_bot.engine import Position, SearchInfo, SearchLimits, SearchRequest, StopFlag
from gomocup_bot.engines import create_engine
from protocol.rules import Rules

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/stat")


@pytest.fixture
def every_core_busy():
    if usable_cores() > 16:
        pytest.skip("one spinning process per core: too many cores here")
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(usable_cores())]
    time.sleep(0.5)  # past the interpreters' start-up: all spinning
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def test_free_cores_is_within_the_usable_ones():
    assert 1 <= free_cores() <= usable_cores()


def test_no_free_core_when_every_core_spins(every_core_busy):
    assert free_cores() == 1  # at least the caller's own


def summary_of_a_search(threads: int) -> str:
    engine = create_engine("gomocup-bot", threads=threads)
    engine.prepare()
    lines: list[str] = []

    def report(info: SearchInfo) -> None:
        if info.kind == "summary" and info.text:
            lines.append(info.text)

    pos = Position(15, 15, Rules(0), ((7, 7, 1), (8, 8, 2), (8, 7, 1), (6, 7, 2), (9, 6, 1), (7, 9, 2)), 1)
    engine.new_game(15, 15, pos.rules)
    engine.search(SearchRequest(position=pos, limits=SearchLimits.from_budget(0.3), report=report), StopFlag())
    assert lines, "no summary line"
    return lines[-1]


def test_two_thread_search_drops_its_helper_when_no_core_is_free(every_core_busy):
    assert "threads 1" in summary_of_a_search(threads=2)

