"""`mcts-plain`: the papers' baseline -- UCT over every empty square with random playouts.

No threat knowledge, no proofs, no minimax: Li's and Dong & Zhang's starting point, kept as a
ladder opponent and as the baseline column of the sudden-death table. Options: ``c`` (UCB
constant, default sqrt 2), ``iterations`` (a fixed budget instead of the clock), ``seed``.
"""
from __future__ import annotations

from gomocup_bot.engine import SearchRequest, SearchResult, StopFlag
from gomocup_bot.search.adapter import BoardView, deadlines, make_result, report
from gomocup_bot.search.mcts_driver import MctsConfig, MctsSearcher
from gomocup_bot.search.engines_common import SearchEngineBase
from gomocup_bot.search.mcts import NODE_BYTES
from gomocup_bot.search.policy import child_mean, ranked_children


class MctsPlainEngine(SearchEngineBase):
    name = "mcts-plain"
    warm_parts = ("mcts-plain",)

    def __init__(self, level=None, **options) -> None:
        super().__init__(level, **options)
        self.config = MctsConfig.baseline(c=self.option("c", 2 ** 0.5, float), seed=self.option("seed", 1, int))
        self.iterations = self.option("iterations", 0, int)
        self._searcher: MctsSearcher | None = None

    def release_memory(self) -> None:
        self._searcher = None

    def _search(self, request: SearchRequest, stop: StopFlag, view: BoardView) -> SearchResult:
        tree_bytes, _ = self.memory(request)
        if self._searcher is None or self._searcher.tree.capacity != max(1024, tree_bytes // NODE_BYTES):
            self._searcher = MctsSearcher(self.config, tree_bytes // NODE_BYTES)
        budget = deadlines(request, self.level.time_share)
        cap = self.iterations or request.limits.max_nodes or self.level.max_iterations
        from gomocup_bot.core.board import board_from_position

        out = self._searcher.run(board_from_position(request.position), view.side, stop.array,
                                 soft_deadline=budget.soft, hard_deadline=budget.hard,
                                 max_iterations=cap, excluded=sorted(view.excluded))
        tree = self._searcher.tree
        if out.child < 0:
            return make_result(view, view.fallback())
        p = int(tree.move[out.child])
        ranked = [int(tree.move[i]) for i in ranked_children(tree)]
        q = child_mean(tree, out.child)
        report(request, "summary", view, p, nodes=out.iterations, winrate=(q + 1) / 2,
               text=f"mcts-plain iterations {out.iterations}")
        return make_result(view, p, winrate=(q + 1) / 2, nodes=out.iterations,
                           alternatives=ranked, nbest=request.nbest)


def create(**options) -> MctsPlainEngine:
    return MctsPlainEngine(**options)
