"""The root's threat checks on the core board, before the principal-variation search.

In order: an own five; the opponent's five (block it, or the game is lost); an own VCT (deepened
from zero threes, i.e. a VCF first); then, if the opponent would have a VCT were it to move, the defence set -- the candidate
moves after which the opponent's VCT no longer works -- which the tree search is then limited to.
Each step runs against a share of the move's time (a watchdog raises the solvers' stop flag).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from gomocup_bot.core.board import play, take
from gomocup_bot.core.classes import C_FIVE, C_FLEX4, C_FOUR, C_FOUR3, C_FOURP
from gomocup_bot.core.constants import M_SIZE
from gomocup_bot.search import pvs as K
from gomocup_bot.search.clock import Watchdog
from gomocup_bot.search.vct import UNKNOWN, WIN, ThreatSolver

VCT_DEPTH = 4  # threes in the attacker's line (fours are free)
DEFENCE_WIDTH = 40  # candidate replies checked against the opponent's VCT
DEFENCE_NODES = 8_000  # a candidate's budget: all of them should fit in the time


@dataclass
class RootPlan:
    move: int = -1  # a decided move, -1 if the tree search decides
    reason: str = ""  # win / block / lost / vcf / vct
    proven: int = 0  # +1 win, -1 loss (as far as the checks can tell)
    allowed: list[int] | None = None  # limit the tree search's root to these
    line: list[int] = field(default_factory=list)
    threat: list[int] = field(default_factory=list)  # the opponent's VCT line, when one was found
    seconds: float = 0.0
    nodes: int = 0


def analyse(board, side: int, stop_array, deadline: float | None, *, excluded=frozenset(),
            vct_nodes: int = 300_000) -> RootPlan:
    """Run the checks for ``side`` to move on ``board`` (restored on return) until ``deadline``."""
    t0 = time.monotonic()
    plan = RootPlan()
    me, op = side - 1, 2 - side
    if board.cnt[me, C_FIVE] > 0:
        plan.move, plan.reason, plan.proven = K.find_class(board, me, C_FIVE, -1), "win", 1
        return _done(plan, t0)
    if board.cnt[op, C_FIVE] > 0:
        q = K.find_class(board, op, C_FIVE, -1)
        if board.cnt[op, C_FIVE] == 1 and K.legal_for(board, q, side):
            plan.move, plan.reason = q, "block"
        else:
            # two fives, or (renju) the one block is a foul for black: lost; still a legal move
            if not K.legal_for(board, q, side):
                buf = np.zeros(int(board.meta[M_SIZE]), dtype=np.int32)
                work = K.new_work(board, K.new_tt(1 << 14), K.default_params(), np.zeros(1, dtype=np.int32))
                n = K.root_candidates(board, side, work, buf)
                q = int(buf[0]) if n else -1
            plan.move, plan.reason, plan.proven = q, "lost", -1
        return _done(plan, t0)
    with Watchdog(stop_array, deadline) as abort:
        solver = ThreatSolver(board, abort)
        # the VCT deepens from 0 threes, which is the VCF: one search finds the shortest kind first
        result, line, n = solver.run(board, side, vct=True, max_depth=VCT_DEPTH, max_nodes=vct_nodes)
        plan.nodes += n
        if result == WIN and line and line[0] not in excluded:
            plan.move, plan.reason, plan.proven, plan.line = line[0], "vct", 1, line
            return _done(plan, t0)
        if abort[0]:
            return _done(plan, t0)
        # the opponent's threats, as if it were to move
        result, line, n = solver.run(board, 3 - side, vct=True, max_depth=VCT_DEPTH, max_nodes=vct_nodes // 2)
        plan.nodes += n
        if result != WIN:
            return _done(plan, t0)
        plan.threat = line
        plan.allowed = _defences(board, side, solver, abort, DEFENCE_NODES, plan)
    return _done(plan, t0)


def _defences(board, side: int, solver: ThreatSolver, abort, nodes: int, plan: RootPlan) -> list[int] | None:
    """The candidates that refute the opponent's VCT. Each gets a small node budget so that all
    can be tried in the time: proven refutations are kept; failing those, the candidates the
    solver could not decide; own fours only delay, so they come in only when nothing else does.
    None when the check could say nothing in time."""
    me = side - 1
    buf = np.zeros(int(board.meta[M_SIZE]), dtype=np.int32)
    work = K.new_work(board, K.new_tt(1 << 14), K.default_params(), np.zeros(1, dtype=np.int32))
    n = K.root_candidates(board, side, work, buf)
    cands = [int(q) for q in buf[:n]]
    # the squares of the opponent's line first: that is where the defences usually are
    first = [q for q in plan.threat if q in set(cands)]
    cands = first + [q for q in cands if q not in set(first)]
    proven: list[int] = []
    undecided: list[int] = []
    fours: list[int] = []
    checked = 0
    for q in cands[:DEFENCE_WIDTH]:
        if abort[0]:
            break
        four = board.cls[me, q] in (C_FOUR, C_FOURP, C_FOUR3, C_FLEX4)
        play(board, q, side)
        try:
            result, _, n = solver.run(board, 3 - side, vct=True, max_depth=VCT_DEPTH, max_nodes=nodes)
        finally:
            take(board)
        plan.nodes += n
        if result == UNKNOWN and abort[0]:
            break  # cut by the clock: says nothing
        checked += 1
        if result != WIN:
            (fours if four else (proven if result != UNKNOWN else undecided)).append(q)
    if checked == 0:
        return None
    kept = proven or undecided
    if kept:
        return kept + (fours if not proven else [])
    if fours:
        return fours
    if checked < min(len(cands), DEFENCE_WIDTH):
        return None  # not every candidate was tried: let the search choose
    plan.proven = -1  # nothing defends, as far as the solver can see
    return None


def _done(plan: RootPlan, t0: float) -> RootPlan:
    plan.seconds = time.monotonic() - t0
    return plan
