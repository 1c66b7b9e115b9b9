"""The probe of the root's check: after one of our candidate moves, the opponent's own move search.

The check of the tree search's choice (`rootcheck.verify`) tests it with the threat solver, which
sees only wins made of fours and threes from the first move on. Defence-set positions showed the
other kind: the opponent's win starts with a quiet move, or it needs more threes than the solver
reaches, and the opponent's own search (its root checks, then the PVS on its narrowed root) proves
it in a few hundredths of a second. `prober` gives `verify` that search as a callable.
"""
from __future__ import annotations

import logging
import time
from typing import Callable

from gomocup_bot.core.board import play, take
from gomocup_bot.search import rootcheck
from gomocup_bot.search.pvs_driver import PvsSearcher

log = logging.getLogger(__name__)

CHECKS_SHARE = 0.4  # of a probe's time, at most, for the opponent's root checks
NEST = 4  # forced blocks followed, at most (each one answers one of our fours)


def settle(board, side: int, searcher: PvsSearcher, stop_array, until: float, *,
           root_nodes: int = 300_000, nest: int = NEST) -> int:
    """+1 / -1 when ``side`` to move is proven to win / lose by its own move search until
    ``until`` (the root checks, whose defence narrows the root when the other side threatens,
    then ``searcher``'s PVS), else 0. A forced block is played and the other side's search
    follows (a four only delays), ``nest`` times at most. The board is restored."""
    t0 = time.monotonic()
    plan = rootcheck.analyse(board, side, stop_array, t0 + CHECKS_SHARE * max(0.0, until - t0),
                             vct_nodes=root_nodes, rounds=True, threads=1)
    if plan.proven != 0 or time.monotonic() >= until:
        return plan.proven
    if plan.reason == "block":
        if nest <= 0:
            return 0
        play(board, plan.move, side)
        try:
            return -settle(board, 3 - side, searcher, stop_array, until, root_nodes=root_nodes, nest=nest - 1)
        finally:
            take(board)
    out = searcher.search(board, side, stop_array, soft_deadline=until, hard_deadline=until, allowed=plan.allowed)
    log.debug("settle: %s allowed, pvs proven %d score %d depth %d in %.3f s", len(plan.allowed or ()),
              out.proven, out.score, out.depth, time.monotonic() - t0)
    return out.proven


def prober(board, side: int, searcher: PvsSearcher, stop_array, root_nodes: int = 300_000) -> Callable[[int, float], bool]:
    """probe(q, until): True when, after ``side``'s move ``q``, the opponent's search until
    ``until`` proves its forced win (`settle`)."""

    def probe(q: int, until: float) -> bool:
        play(board, q, side)
        try:
            return settle(board, 3 - side, searcher, stop_array, until, root_nodes=root_nodes) > 0
        finally:
            take(board)

    return probe
