"""Run every search kernel once on a tiny position so numba loads (or compiles) them up front.

Called from `Engine.prepare()` off the event loop: the first real search then pays nothing.
"""
from __future__ import annotations

import numpy as np

_done = False


def warm_up() -> None:
    global _done
    if _done:
        return
    from gomocup_bot.search.board import new_board, place, to_index
    from gomocup_bot.search.driver import MctsConfig, MctsSearcher
    from gomocup_bot.search.idsearch import AlphaBetaSearcher
    from gomocup_bot.search.tactics import analyse_root

    cells, near, geo = new_board(7, 7)
    for i, (x, y) in enumerate([(3, 3), (3, 4), (4, 3), (2, 2)]):
        place(cells, near, geo, to_index(x, y, geo), 1 + i % 2)
    stop = np.zeros(1, dtype=np.int32)
    analyse_root(cells, near, geo, 1, stop, None, vcf_nodes=200, defence_nodes=50)
    for cfg in (MctsConfig(), MctsConfig(playout="depth"), MctsConfig.baseline(trigger="triggered")):
        MctsSearcher(cfg, 4096).run(cells, near, geo, 1, stop, max_iterations=64)
    AlphaBetaSearcher(1 << 16).search(cells, near, geo, 1, stop, soft_deadline=None, hard_deadline=None,
                                      max_depth=2)
    _done = True
