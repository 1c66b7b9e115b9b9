"""`minimax`: iterative-deepening alpha-beta with a transposition table (Lim's minimax agent).

The alternative engine of issue 4: ID alpha-beta, bound-flagged transposition table, ordering
from the previous iteration and the threat score, forced-block extensions -- and nothing else.
With ``tactics=1`` it runs the full brain's root checks first (win, block, VCF, depth-4 sudden
death, the defence set), which makes it the full brain's alpha-beta backend. Options: ``width``
(moves searched per inner node), ``tactics``, ``max_depth``.
"""
from __future__ import annotations

import time

from gomocup_bot.engine import SearchRequest, SearchResult, StopFlag
from gomocup_bot.search.adapter import BoardView, deadlines, make_result, pad_alternatives, report
from gomocup_bot.search.engines_common import SearchEngineBase, alpha_beta_result
from gomocup_bot.search.idsearch import AbConfig, AlphaBetaSearcher
from gomocup_bot.search.tactics import analyse_root


class MinimaxEngine(SearchEngineBase):
    name = "minimax"
    warm_parts = ("tactics", "alphabeta")

    def __init__(self, level=None, **options) -> None:
        super().__init__(level, **options)
        self.config = AbConfig(node_width=self.option("width", 14, int),
                               max_depth=self.option("max_depth", 30, int))
        self.tactics = self.option("tactics", False, bool)
        self._searcher: AlphaBetaSearcher | None = None
        self._tt_bytes = 0

    def prepare(self) -> None:
        super().prepare()
        if self._searcher is None:
            _, self._tt_bytes = self.memory_for(0)
            self._searcher = AlphaBetaSearcher(self._tt_bytes, self.config)

    def _reset(self) -> None:
        if self._searcher is not None:
            self._searcher.clear()

    def release_memory(self) -> None:
        self._searcher = None

    def _search(self, request: SearchRequest, stop: StopFlag, view: BoardView) -> SearchResult:
        _, tt_bytes = self.memory(request)
        if self._searcher is None or tt_bytes != self._tt_bytes:
            self._searcher = AlphaBetaSearcher(tt_bytes, self.config)
            self._tt_bytes = tt_bytes
        budget = deadlines(request, self.level.time_share)
        allowed = None
        lost: list[int] = []
        if self.tactics:
            share = budget.soft - time.monotonic()
            plan = analyse_root(view.cells, view.near, view.geo, view.side, stop.array,
                                time.monotonic() + 0.4 * max(share, 0.0))
            if plan.move >= 0 and plan.move not in view.excluded:
                report(request, "best", view, plan.move)
                return make_result(view, plan.move, proven=plan.proven, pv=plan.line,
                                   alternatives=[plan.move], nbest=request.nbest)
            allowed = plan.allowed
            lost = plan.losing

        result = alpha_beta_result(self._searcher, request, stop, view, budget, allowed, "minimax", show_score=True)
        return pad_alternatives(result, view, lost, request.nbest)


def create(**options) -> MinimaxEngine:
    return MinimaxEngine(**options)
