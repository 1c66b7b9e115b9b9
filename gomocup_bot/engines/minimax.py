"""`minimax`: iterative-deepening alpha-beta with a transposition table (Lim's minimax agent).

The ladder's plain alpha-beta baseline: the core board's PVS (`search.pvs`) with its extras
switched off -- one thread, no late-move reductions, no quiescence fours -- so what is left is ID
alpha-beta with a bound-flagged table, ordering from the table move, killers, history and the
threat classes, and forced blocks that cost no depth. With ``tactics=1`` it runs the full brain's
root checks first (win, block, VCF/VCT, the defence set). Options: ``width`` (moves searched per
inner node), ``tactics``, ``max_depth``.
"""
from __future__ import annotations

import time

from gomocup_bot.engine import SearchRequest, SearchResult, StopFlag
from gomocup_bot.search.adapter import BoardView, deadlines, make_result, report
from gomocup_bot.search.engines_common import SearchEngineBase, pvs_result, warm_big_k
from gomocup_bot.search.pvs_driver import PvsConfig, PvsSearcher


class MinimaxEngine(SearchEngineBase):
    name = "minimax"
    warm_parts = ("pvs",)

    def __init__(self, level=None, **options) -> None:
        super().__init__(level, **options)
        self.config = PvsConfig(threads=1, width=max(1, self.option("width", 14, int)),
                                max_depth=max(1, self.option("max_depth", 30, int)), qdepth=0, lmr=False,
                                eval_avg=0, counter=0)  # the plain baseline: one-position evaluation, no counter moves
        self.tactics = self.option("tactics", False, bool)
        self._searcher: PvsSearcher | None = None
        self._tt_bytes = 0

    def prepare(self) -> None:
        super().prepare()
        if self._searcher is None:
            _, self._tt_bytes = self.memory_for(0)
            self._searcher = PvsSearcher(self._tt_bytes, self.config)

    def _reset(self) -> None:
        if self._searcher is not None:
            self._searcher.clear()

    def release_memory(self) -> None:
        self._searcher = None

    def _search(self, request: SearchRequest, stop: StopFlag, view: BoardView) -> SearchResult:
        from gomocup_bot.core.board import board_from_position

        _, tt_bytes = self.memory(request)
        if self._searcher is None or tt_bytes != self._tt_bytes:
            self._searcher = PvsSearcher(tt_bytes, self.config)
            self._tt_bytes = tt_bytes
        warm_big_k(request.position)
        budget = deadlines(request, self.level.time_share)
        board = board_from_position(request.position)
        allowed = None
        if self.tactics:
            from gomocup_bot.search import rootcheck

            share = max(budget.soft - time.monotonic(), 0.0)
            plan = rootcheck.analyse(board, view.side, stop.array, time.monotonic() + 0.4 * share,
                                     excluded=view.excluded)
            if plan.move >= 0 and plan.move not in view.excluded:
                report(request, "best", view, plan.move)
                return make_result(view, plan.move, proven=plan.proven, pv=plan.line,
                                   alternatives=[plan.move], nbest=request.nbest)
            if plan.allowed is not None:
                allowed = [p for p in plan.allowed if p not in view.excluded] or None
        return pvs_result(self._searcher, request, stop, view, budget, allowed, "minimax", board=board)


def create(**options) -> MinimaxEngine:
    return MinimaxEngine(**options)
