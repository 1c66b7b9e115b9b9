"""The engine core's part of `gomocup-bot warmup` (`gomocup_bot/warmup.py`): compile every core
kernel into numba's on-disk cache.

Run once after installing (or let the first brain start do it): later processes load the cached
machine code instead of compiling, which is what Gomocup's clock sees. Each kernel has two type
signatures, one per board kind (table boards k <= 5, and k > 5 boards, whose int32 `kdelta` makes
them another numba type: `board.play`), with Python ints and fixed dtypes for output arrays, so
one call each on a small board of each kind fills the cache for every board size, k and rule.
"""
from __future__ import annotations


TABLE_BOARDS = "k5"  # boards with k <= 5 (pattern tables): every Gomocup rule
BIG_K_BOARDS = "k6"  # boards with k > 5: the m,n,k experiments


def warm_all(kinds: tuple[str, ...] = (TABLE_BOARDS, BIG_K_BOARDS)) -> int:
    """Call every public kernel once on a board of each kind in `kinds` (the two kinds are
    separate numba types, so two processes can compile one each at the same time); returns how
    many kernels are now compiled or loaded. The brain's quick move goes with the table boards."""
    import numpy as np

    from . import board as bd
    from . import candidates as cd
    from . import patterns as pt
    from . import playouts as pl
    from . import rules as rl
    from . import threats as th
    from .bench import _make_unmake_loop, _threat_loop
    from .constants import BLACK, RULE_FREESTYLE, RULE_RENJU, WHITE
    from .rng import new_rng, rand_below, rand_unit

    boards = {TABLE_BOARDS: (5, RULE_RENJU), BIG_K_BOARDS: (6, RULE_FREESTYLE)}
    unknown = set(kinds) - set(boards)
    if unknown:
        raise ValueError(f"unknown board kinds {sorted(unknown)}; known: {sorted(boards)}")
    for k, rule in (boards[kind] for kind in kinds):
        b = bd.board_from_stones(9, 9, [(4, 4, BLACK), (5, 5, WHITE), (3, 3, 3)], k, rule)
        size = 9 * 9 + 1
        out = np.zeros(size, dtype=np.int32)
        scores = np.zeros(size, dtype=np.int64)
        stop = np.zeros(1, dtype=np.int32)
        rng = new_rng(1)
        p = bd.to_pos(b, 2, 2)
        bd.pos_x(b, p), bd.pos_y(b, p), bd.on_board(b, 2, 2)
        bd.make(b, p, BLACK)
        bd.unmake(b)
        c = bd.copy_board(b)
        bd.block(c, bd.to_pos(c, 0, 0))
        bd.recompute(c)
        bd.window_key(b, BLACK, 0, p), bd.is_full(b), bd.stones_count(b)
        rl.is_win_move(b, p, BLACK), rl.renju_foul(b, p), rl.is_legal(b, p, BLACK)
        rl.forbidden_points(b, out), rl.move_outcome(b, p, BLACK)
        pt.sync_patterns(b)
        pt.line_pattern(b, BLACK, 0, p), pt.scan_pattern(b, BLACK, 0, p)
        pt.point_summary(b, BLACK, p), pt.point_score(b, BLACK, p), pt.move_score(b, BLACK, p)
        counts = np.zeros((3, k + 1), dtype=np.int64)
        pt.run_counts(b, BLACK, counts), pt.heuristic(b, BLACK, 1.0), pt.bounded(1.0), pt.evaluate(b, BLACK, 1.0)
        cd.candidates(b, out), cd.ordered_candidates(b, BLACK, out, scores)
        th.wins_at(b, p, BLACK), th.win_points(b, BLACK, out), th.win_points_through(b, p, BLACK, out, 0)
        th.four_points(b, BLACK, out), th.threat_moves(b, BLACK, out), th.open_four_points(b, BLACK, out)
        th.defence_points(b, BLACK, out), th.threat_check(b, WHITE, out)
        work = np.empty(pl.light_work_size(9, 9), dtype=np.uint64)
        pl.light_playout(b, BLACK, rng, work, out)
        pl.heavy_playout(b, BLACK, 3, 1.0, rng, out)
        stats = np.zeros(5)
        pl.playout_batch(b, BLACK, pl.KIND_LIGHT, 0, 1.0, 1, stop, rng, stats)
        pl.play_policy(bd.copy_board(b), BLACK, 2, 1.0, rng, out)
        rand_below(rng, 5), rand_unit(rng)
        _make_unmake_loop(b, out[:1].copy(), 1)
        _threat_loop(b, BLACK, 1, out)
    from . import quick as qk

    if TABLE_BOARDS in kinds:
        qk.warm_quick()  # the brain's GIL-free quick move: it only ever loads it from the cache
    return _count_ready((bd, cd, pt, pl, rl, th, qk))


def _count_ready(modules) -> int:
    """How many njit kernels of these modules now have a compiled (or cache-loaded) signature."""
    from numba.core.registry import CPUDispatcher

    seen = set()
    for mod in modules:
        for value in vars(mod).values():
            if isinstance(value, CPUDispatcher) and value.signatures:
                seen.add(value)
    return len(seen)
