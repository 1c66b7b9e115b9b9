"""The first move of a fresh process is the engine's own, not the quick fallback's.

Gomocup's managers start the brain afresh for every game, send START, and on its OK the first
BOARD; the turn's clock starts with it. The engine loads beside START (numba's cached kernels,
the pattern tables from their disk cache, the network's weights); START's OK waits for it up to
`brain.runner.START_HOLD_S` (initialisation is not turn time), and the first move waits for it
while a short search still fits in the turn. Here a new process gets START and, on its OK, the
first BOARD at 1 s a move, with its default options (the network evaluation plays freestyle
15 x 15, `neteval.network.STRONGER_RULES`), and its log must show the engine
ready and no fallback. The suite's other worker keeps the second core busy, at times with two
brains of its own: a process is given up to five tries a second apart, and the test fails when
none of them plays its own move.
"""
from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.slow

TRIES = 5


def _first_move(brain) -> tuple[bool, str, str]:
    p = brain("--log-level", "INFO")
    assert p.ask("START 15", timeout=10) == "OK"  # as the managers do: the first BOARD follows the OK
    p.send("INFO timeout_turn 1000", "INFO timeout_match 180000", "INFO time_left 180000",
           "BOARD", "7,7,2", "8,8,1", "DONE")
    line = p.read(10)
    while line.startswith(("MESSAGE", "DEBUG")):
        line = p.read(10)
    p.end()
    log = p.log()
    own = "not ready in time" not in log and "ready in" in log and "cannot play" not in log
    return own, line, log


def test_a_fresh_process_answers_its_first_board_with_its_own_search(brain):
    logs = []
    for _ in range(TRIES):
        own, move, log = _first_move(brain)
        x, y = (int(v) for v in move.split(","))
        assert 0 <= x < 15 and 0 <= y < 15 and (x, y) not in ((7, 7), (8, 8))
        if own:
            return
        logs.append(log)
        time.sleep(1.0)
    pytest.fail(f"the quick fallback answered in all {TRIES} fresh processes:\n" + "\n----\n".join(logs))
