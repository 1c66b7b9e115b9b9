"""Run the search kernels an engine needs once on a tiny position, so numba loads (or compiles)
them before the first real search.

Called from `Engine.prepare()` off the event loop. Only the parts an engine uses are loaded:
loading a cached kernel still costs milliseconds, and the brain answers with a quick fallback
until `prepare` is done.
"""
from __future__ import annotations

import numpy as np

MCTS, MCTS_PLAIN = "mcts", "mcts-plain"
PVS = "pvs"  # the pattern-layer principal-variation search on the core board, and the root checks
PVS_BIG_K = "pvs-big-k"  # the same kernels compiled for k > 5 boards (another numba type: `core.board.play`)
MCTS_SHARED = "mcts-shared"  # the tree-parallel kernels (`parallel=tree`)
_done: set[str] = set()


def warm_up(parts: tuple[str, ...] = (PVS, PVS_BIG_K, MCTS, MCTS_PLAIN)) -> None:
    todo = [p for p in parts if p not in _done]
    if not todo:
        return
    stop = np.zeros(1, dtype=np.int32)
    if PVS in todo:
        from gomocup_bot.core.board import board_from_stones
        from gomocup_bot.search.pvs_driver import PvsSearcher

        from gomocup_bot.search.rootcheck import analyse

        # one board type for every rule at k <= 5: renju's foul check is compiled into the same
        # kernels, caro differs only in the tables' contents
        b = board_from_stones(9, 9, [(4, 4, 1), (4, 5, 2), (5, 4, 1), (3, 3, 2), (5, 5, 1)], 5, 4)
        PvsSearcher(1 << 16).search(b, 2, stop, soft_deadline=None, hard_deadline=None, max_depth=4)
        analyse(b, 2, stop, None, vct_nodes=2000)
    if PVS_BIG_K in todo:
        from gomocup_bot.core.board import board_from_stones
        from gomocup_bot.search.pvs_driver import PvsSearcher

        from gomocup_bot.search.rootcheck import analyse

        b = board_from_stones(9, 9, [(4, 4, 1), (4, 5, 2), (5, 4, 1), (3, 3, 2), (5, 5, 1)], 6, 0)
        PvsSearcher(1 << 16).search(b, 2, stop, soft_deadline=None, hard_deadline=None, max_depth=3)
        analyse(b, 2, stop, None, vct_nodes=500)
    if MCTS in todo or MCTS_PLAIN in todo or MCTS_SHARED in todo:
        from gomocup_bot.search.board import new_board, place, to_index

        cells, near, geo = new_board(7, 7)
        for i, (x, y) in enumerate([(3, 3), (3, 4), (4, 3), (2, 2)]):
            place(cells, near, geo, to_index(x, y, geo), 1 + i % 2)
    if MCTS in todo or MCTS_PLAIN in todo:
        from gomocup_bot.search.driver import MctsConfig, MctsSearcher

        configs = []
        if MCTS in todo:
            configs.append(MctsConfig())
        if MCTS_PLAIN in todo:
            configs.append(MctsConfig.baseline())
        for cfg in configs:
            MctsSearcher(cfg, 4096).run(cells, near, geo, 1, stop, max_iterations=64)
        if MCTS in todo:
            _warm_reuse(cells, near, geo, stop, MctsConfig(reuse=True))
    if MCTS_SHARED in todo:
        from gomocup_bot.search.driver import MctsConfig

        _warm_reuse(cells, near, geo, stop, MctsConfig(reuse=True, threads=2, parallel="tree"))
    _done.update(todo)


def _warm_reuse(cells, near, geo, stop, cfg) -> None:
    """Two searches a move pair apart: loads the re-rooting kernel too (and the shared-tree ones)."""
    import time

    from gomocup_bot.search.board import place, remove
    from gomocup_bot.search.driver import MctsSearcher

    searcher = MctsSearcher(cfg, 1 << 14)
    out = searcher.run(cells, near, geo, 1, stop, max_iterations=200)
    tree = searcher.tree
    if out.child < 0:
        return
    f, n = int(tree.first[out.child]), int(tree.nch[out.child])
    if f < 0 or n <= 0:
        return
    reply = int(tree.move[f + int(np.argmax(tree.visits[f:f + n]))])
    place(cells, near, geo, out.move, 1)
    place(cells, near, geo, reply, 2)
    try:
        searcher.run(cells, near, geo, 1, stop, hard_deadline=time.monotonic() + 0.01)
    finally:
        remove(cells, near, geo, reply)
        remove(cells, near, geo, out.move)
