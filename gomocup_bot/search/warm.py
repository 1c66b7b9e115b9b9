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
PNS = "pns"  # the proof-number threat search (option ``tss=pn``)
PVS_NET = "pvs-net"  # the PVS on the network evaluation: the weights file read, its state built and searched
MCTS_NET = "mcts-net"  # the MCTS on the network: its state built and refreshed, policy priors, value leaves
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
        from gomocup_bot.core.board import copy_board

        copy_board(b)  # the lazy-SMP helper's board, copied only where a core is free
    if PVS_NET in todo:
        from gomocup_bot.core.board import board_from_stones
        from gomocup_bot.neteval.network import net_board
        from gomocup_bot.search.pvs_driver import PvsConfig, PvsSearcher

        w, h = net_board()  # raises NetWeightsError for a missing or bad file: the brain then refuses to play
        # one rule does: every rule's net is the same kernel type; a board size the net plays
        b = board_from_stones(w, h, [(4, 4, 1), (4, 5, 2), (5, 4, 1), (3, 3, 2), (5, 5, 1)], 5, 0)
        PvsSearcher(1 << 16, PvsConfig(net=1)).search(b, 2, stop, soft_deadline=None, hard_deadline=None, max_depth=3)
    if PVS_BIG_K in todo:
        from gomocup_bot.core.board import board_from_stones
        from gomocup_bot.search.pvs_driver import PvsSearcher

        from gomocup_bot.search.rootcheck import analyse

        b = board_from_stones(9, 9, [(4, 4, 1), (4, 5, 2), (5, 4, 1), (3, 3, 2), (5, 5, 1)], 6, 0)
        PvsSearcher(1 << 16).search(b, 2, stop, soft_deadline=None, hard_deadline=None, max_depth=3)
        analyse(b, 2, stop, None, vct_nodes=500)
    if PNS in todo:
        from gomocup_bot.core.board import board_from_stones
        from gomocup_bot.search.pns import PnSolver

        b = board_from_stones(9, 9, [(4, 4, 1), (4, 5, 2), (5, 4, 1), (3, 3, 2), (5, 5, 1)], 5, 4)
        PnSolver(b, stop, capacity=1 << 12, dfs_share=0.0).run(b, 1, vct=True, max_depth=2, max_nodes=500)
    if MCTS in todo or MCTS_PLAIN in todo or MCTS_SHARED in todo:
        from gomocup_bot.core.board import board_from_stones

        board = board_from_stones(7, 7, [(3, 3, 1), (3, 4, 2), (4, 3, 1), (2, 2, 2)])
    if MCTS in todo or MCTS_PLAIN in todo:
        from gomocup_bot.search.mcts_driver import MctsConfig, MctsSearcher

        configs = []
        if MCTS in todo:  # both leaf kinds: playouts and the class-count evaluation
            configs += [MctsConfig(), MctsConfig(leaf="eval", prior="class")]
        if MCTS_PLAIN in todo:
            configs.append(MctsConfig.baseline())
        for cfg in configs:
            MctsSearcher(cfg, 4096).run(board, 1, stop, max_iterations=64)
        if MCTS in todo:
            _warm_reuse(board, stop, MctsConfig(reuse=True))
            _warm_minimax_rules(board, stop)
    if MCTS_NET in todo:
        from gomocup_bot.core.board import board_from_stones
        from gomocup_bot.neteval.network import net_board
        from gomocup_bot.search.mcts_driver import MctsConfig, MctsSearcher

        w, h = net_board()  # raises NetWeightsError for a missing or bad file, as for the PVS
        b = board_from_stones(w, h, [(4, 4, 1), (4, 5, 2), (5, 4, 1), (3, 3, 2), (5, 5, 1)], 5, 0)
        MctsSearcher(MctsConfig(net=1, prior="net", select="puct", leaf="quiesce"), 4096).run(
            b, 2, stop, max_iterations=64)
    if MCTS_SHARED in todo:
        from gomocup_bot.search.mcts_driver import MctsConfig

        _warm_reuse(board, stop, MctsConfig(reuse=True, threads=2, parallel="tree"))
    if {MCTS_SHARED, MCTS_NET} & set(todo) and {MCTS_SHARED, MCTS_NET} <= set(todo) | _done:
        # the tree-parallel kernels on the net's state are another numba type than the tables'
        # (`neteval.optional`): left cold, `run_shared` compiled in a game's first move
        from gomocup_bot.core.board import board_from_stones
        from gomocup_bot.neteval.network import net_board
        from gomocup_bot.search.mcts_driver import MctsConfig

        w, h = net_board()
        b = board_from_stones(w, h, [(4, 4, 1), (4, 5, 2), (5, 4, 1), (3, 3, 2)], 5, 0)  # black to move
        _warm_reuse(b, stop, MctsConfig.on_net(reuse=True, threads=2, parallel="tree"))
    _done.update(todo)


def _warm_minimax_rules(board, stop) -> None:
    """The kernels the MCTS driver calls from Python only when a rule fires (Li's root minimax, the
    heuristic rules, a helper thread's board copy): loaded on first use they took 0.2-0.3 s under
    load, holding the GIL, so neither the deadline watchdog nor the brain's stop could cut in."""
    from gomocup_bot.core.board import copy_board, make, unmake
    from gomocup_bot.search.sudden import root_values, sudden, win_squares, wins_now

    copy_board(board)
    size = board.cells.shape[0]
    win_squares(board, 1, np.zeros(size, dtype=np.int32))
    p = int(np.nonzero((board.cells == 0) & (board.nbr > 0))[0][0])
    wins_now(board, p, 1)
    make(board, p, 1)
    sudden(board, 2, 3, stop, np.zeros(2, dtype=np.int64))
    unmake(board)
    root_values(board, 1, 2, np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64), stop,
                np.zeros(2, dtype=np.int64))


def _warm_reuse(board, stop, cfg) -> None:
    """Two searches a move pair apart: loads the re-rooting kernel too (and the shared-tree ones)."""
    import time

    from gomocup_bot.core.board import make, unmake
    from gomocup_bot.search.mcts_driver import MctsSearcher

    searcher = MctsSearcher(cfg, 1 << 14)
    out = searcher.run(board, 1, stop, max_iterations=200)
    tree = searcher.tree
    if out.child < 0:
        return
    f, n = int(tree.first[out.child]), int(tree.nch[out.child])
    if f < 0 or n <= 0:
        return
    reply = int(tree.move[f + int(np.argmax(tree.visits[f:f + n]))])
    make(board, out.move, 1)
    make(board, reply, 2)
    try:
        searcher.run(board, 1, stop, hard_deadline=time.monotonic() + 0.01)
    finally:
        unmake(board)
        unmake(board)
