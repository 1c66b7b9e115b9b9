"""The probe of the root's check (search/probe.py): after our candidate, the opponent's own move
search. On real defence-set positions (tests/search/data/defence_positions.json): a move our brain
played at 1 s loses to a forced win that is no VCT (the threat solver proves there is none of at
most seven threes), and the probe proves it. (A test of the check moving on from a losing four to
the position's holding move went on 2026-11-28 (a9b98e5; tests/search/data/README.md, step 9): the
whole-board check proved that "holding" move lost as well, so the probe had been right.)"""
from __future__ import annotations

import time

import numpy as np

from gomocup_bot.core.board import board_from_rows, board_from_stones, to_pos
from gomocup_bot.core.constants import RULE_FREESTYLE
from gomocup_bot.search.probe import prober, settle
from gomocup_bot.search.pvs_driver import PvsSearcher
from gomocup_bot.search.vct import FAIL, ThreatSolver
from tests.search.defence_data import record as _record

# the brain at 1 s played (11, 6), proved lost by the whole-board check (data/defence/); the position
# itself has no right answer (its one holding move, (8, 6), was proved lost too: it is in `dropped`)
SOURCE = "fast_free.sqlite game 58 move 12"
LOSING = (11, 6)


def _setup(source: str = SOURCE):
    rec = _record(source)
    board = board_from_stones(15, 15, [tuple(m) for m in rec["moves"]], 5, RULE_FREESTYLE)
    return rec, board, rec["to_move"]


def test_the_blunder_is_no_vct_but_the_probe_proves_it_lost() -> None:
    rec, board, side = _setup()
    assert list(LOSING) not in rec["holding"] and [8, 6] in rec["refuted"]
    q = int(to_pos(board, *LOSING))
    before = board.hash[0]
    from gomocup_bot.core.board import play, take

    play(board, q, side)
    try:
        result, _, _ = ThreatSolver(board).run(board, 3 - side, vct=True, max_depth=7, max_nodes=2_000_000)
        assert result == FAIL  # no VCT of at most seven threes: the threat checks alone pass it
    finally:
        take(board)
    stop = np.zeros(1, dtype=np.int32)
    probe = prober(board, side, PvsSearcher(8 << 20), stop)
    assert probe(q, time.monotonic() + 3.0)  # the opponent's own search proves the win
    assert board.hash[0] == before  # the board comes back as it was


def test_settle_reads_won_and_lost_positions() -> None:
    # x (black) has an open four: to move, it wins; o to move cannot block both ends
    rows = ["...............",
            "...............",
            "...xxxx........",
            "...ooo.........",
            "...............",
            "...............",
            "......o........"]
    board, _ = board_from_rows(rows)
    stop = np.zeros(1, dtype=np.int32)
    searcher = PvsSearcher(4 << 20)
    assert settle(board, 1, searcher, stop, time.monotonic() + 1.0) == 1
    assert settle(board, 2, searcher, stop, time.monotonic() + 1.0) == -1
