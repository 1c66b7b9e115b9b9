"""The widened search (search/engines_common.py, the engine's ``widen`` option): when the PVS
proves every move the root checks allowed lost, it searches the moves they left out, so a wrong
allowed set does not turn into a lost game. On a constructed position where white's four must be
blocked: an allowed set without the block is proven lost at once, and the widened search finds the
block."""
from __future__ import annotations

import time

from gomocup_bot.engine import Position, SearchLimits, SearchRequest, StopFlag
from gomocup_bot.search.adapter import BoardView, Budget
from gomocup_bot.search.engines_common import pvs_result
from gomocup_bot.search.pvs_driver import PvsConfig, PvsSearcher
from protocol.rules import Rules

# black to move; white (2) has four in a row on row 7, (3..6, 7), open at (2, 7) only: (7, 7) is black's
STONES = ((7, 7, 1), (3, 7, 2), (8, 8, 1), (4, 7, 2), (9, 9, 1), (5, 7, 2), (10, 6, 1), (6, 7, 2))
BLOCK = (2, 7)


def _run(allowed_xy, widen_xy, depth: int = 6, nbest: int = 1):
    pos = Position(15, 15, Rules(), STONES, 1)
    now = time.monotonic()
    request = SearchRequest(pos, SearchLimits(now + 5.0, now + 5.0), nbest=nbest)
    view = BoardView(request)
    budget = Budget(soft=now + 5.0, hard=now + 5.0, max_nodes=0, max_depth=depth)
    searcher = PvsSearcher(1 << 18, PvsConfig(threads=1))
    stop = StopFlag()
    widen = None if widen_xy is None else (lambda: [view.index(m) for m in widen_xy])
    return pvs_result(searcher, request, stop, view, budget, [view.index(m) for m in allowed_xy], "pvs",
                      widen=widen)


def test_a_lost_allowed_set_is_widened_to_the_move_that_holds() -> None:
    lost = _run([(0, 0), (14, 14)], None)
    assert lost.proven == -1 and lost.move in ((0, 0), (14, 14))
    held = _run([(0, 0), (14, 14)], [BLOCK, (12, 3)], nbest=4)
    assert held.move == BLOCK
    assert held.proven != -1
    assert held.alternatives[0] == BLOCK and set(held.alternatives[2:]) == {(0, 0), (14, 14)}  # the allowed ones last


def test_an_allowed_set_that_holds_is_not_widened() -> None:
    out = _run([BLOCK, (0, 0)], [(12, 3)])
    assert out.move == BLOCK and out.proven != -1
