"""The brain's layered root checks, before any tree search (issue 4, pipeline steps 1-2).

In order: my win-in-1; the opponent's five to block; my VCF; Li's depth-4 minimax at the root
(drops every move that loses within 4 plies and takes a level-3 win); then, if the opponent
would have a VCF were it to move, the defence set -- the candidate replies after which the
opponent's VCF no longer works. What is left goes to the tree search as its allowed root moves.
Under renju black's forbidden squares are never proposed (the kernels below skip them) and a five
that black could only block on a forbidden square is a lost position, not a block.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from gomocup_bot.search.board import first_five_point, five_points, is_legal_for, makes_four, place, remove
from gomocup_bot.search.clock import Watchdog
from gomocup_bot.search.heuristic import make_weights, move_score
from gomocup_bot.search.sudden_old import UNKNOWN, root_values, vcf


@dataclass
class RootPlan:
    move: int = -1  # a decided move (padded index), -1 if the search must decide
    reason: str = ""  # "win", "block", "vcf", "level3", "lost"
    allowed: list[int] | None = None  # restrict the root to these squares (None = no restriction)
    losing: list[int] = field(default_factory=list)  # root squares proven to lose within 4 plies
    proven: int = 0  # +1 root side wins, -1 loses (as far as the checks can tell)
    line: list[int] = field(default_factory=list)  # VCF line when reason == "vcf"
    seconds: float = 0.0


def analyse_root(cells, near, geo, side: int, stop_array, deadline: float | None, *,
                 vcf_depth: int = 20, vcf_nodes: int = 30_000, minimax_depth: int = 4,
                 defence_nodes: int = 3_000, defence_width: int = 24) -> RootPlan:
    """Run the root checks for ``side``; returns as much as it could settle before ``deadline``."""
    t0 = time.monotonic()
    plan = RootPlan()
    opp = 3 - side
    win = first_five_point(cells, near, geo, side)
    if win >= 0:
        plan.move, plan.reason, plan.proven = int(win), "win", 1
        return _done(plan, t0)
    fbuf = np.zeros(8, dtype=np.int64)
    nf = five_points(cells, near, geo, opp, fbuf)
    if nf >= 1:
        blocks = [int(q) for q in fbuf[:min(nf, 8)] if is_legal_for(cells, geo, int(q), side)]
        if nf == 1 and blocks:
            plan.move, plan.reason = blocks[0], "block"
        else:
            # two fives, or (renju) the only block is forbidden for black: lost; a legal block if
            # any, else the tree search picks a legal square
            plan.move, plan.reason, plan.proven = (blocks[0] if blocks else -1), "lost", -1
        return _done(plan, t0)
    with Watchdog(stop_array, deadline) as abort:
        line = np.full(2 * vcf_depth + 4, -1, dtype=np.int64)
        for depth in (1, vcf_depth):  # a win in 3 plies first, then any VCF
            counter = np.zeros(2, dtype=np.int64)
            counter[1] = vcf_nodes
            if vcf(cells, near, geo, side, depth, abort, counter, line, 0) == 1:
                plan.move, plan.reason, plan.proven = int(line[0]), "vcf", 1
                plan.line = [int(v) for v in line if v >= 0]
                return _done(plan, t0)
        if abort[0]:
            return _done(plan, t0)
        size = cells.shape[0]
        moves = np.zeros(size, dtype=np.int64)
        values = np.zeros(size, dtype=np.int64)
        counter = np.zeros(2, dtype=np.int64)
        n = root_values(cells, near, geo, side, minimax_depth, moves, values, abort, counter)
        if n < 0:
            return _done(plan, t0)
        far_value = 0
        for i in range(n):
            if near[moves[i]] == 0:
                far_value = int(values[i])
            if values[i] == 1:
                plan.move, plan.reason, plan.proven = int(moves[i]), "level3", 1
                return _done(plan, t0)
        survivors = [int(moves[i]) for i in range(n) if values[i] >= 0 and near[moves[i]] > 0]
        plan.losing = [int(moves[i]) for i in range(n) if values[i] < 0]
        if not survivors and far_value < 0:
            plan.proven = -1
            return _done(plan, t0)
        if plan.losing and survivors:
            plan.allowed = survivors
        # the opponent's VCF threat: find the replies that defuse it
        line[:] = -1
        counter = np.zeros(2, dtype=np.int64)
        counter[1] = vcf_nodes
        threat = vcf(cells, near, geo, opp, vcf_depth, abort, counter, line, 0)
        if threat == 1:
            base = survivors if plan.allowed is not None else _near_squares(cells, near, geo, side)
            defence = _defence_set(cells, near, geo, side, base, [int(v) for v in line if v >= 0],
                                   abort, vcf_depth, defence_nodes, defence_width)
            if defence:
                plan.allowed = defence
    return _done(plan, t0)


def _done(plan: RootPlan, t0: float) -> RootPlan:
    plan.seconds = time.monotonic() - t0
    return plan


def _near_squares(cells, near, geo, side) -> list[int]:
    """Candidate squares that ``side`` may play (renju fouls left out for black)."""
    return [int(p) for p in np.nonzero((cells == 0) & (near > 0))[0] if is_legal_for(cells, geo, int(p), side)]


def _defence_set(cells, near, geo, side, base, threat_line, abort, depth, nodes, width) -> list[int]:
    """Squares from ``base`` after which the opponent has no VCF (within the node budget).

    Tested: the squares of the opponent's winning line, all my fours, and the best-scored squares;
    a test cut short by the budget counts as a defence (we cannot show it fails).
    """
    opp = 3 - side
    k = int(geo[3])
    att, dfn, _ = make_weights(k)
    base_set = set(base)
    scored = sorted(base, key=lambda p: -move_score(cells, geo, p, side, att, dfn))
    fours = [p for p in base if makes_four(cells, near, geo, p, side)]  # counter-attacks gain a tempo
    tests: list[int] = []
    for p in threat_line + fours + scored[:width]:
        if p in base_set and p not in tests:
            tests.append(p)
    line = np.full(2 * depth + 4, -1, dtype=np.int64)
    defence = []
    for p in tests:
        if abort[0]:
            break
        counter = np.zeros(2, dtype=np.int64)
        counter[1] = nodes
        place(cells, near, geo, p, side)
        try:
            r = vcf(cells, near, geo, opp, depth, abort, counter, line, 0)
        finally:
            remove(cells, near, geo, p)
        if r != 1 and not (r == UNKNOWN and abort[0]):
            defence.append(p)
    return defence
