"""The anytime MCTS driver: runs kernel chunks against the clock and applies Li's minimax rules.

The numba kernel cannot read the clock, so the driver calls it in chunks sized to a few
milliseconds and checks the deadlines in between; the stop flag is polled by the kernel on
every iteration, so YXSTOP/END cut in within one iteration.

Sudden death/win variants (``trigger``), after Li 2018 §5:

* ``none``      plain MCTS;
* ``brute``     Fig. 17a -- a depth-k minimax from the root before any MCTS iteration;
* ``triggered`` Fig. 17b -- the depth-k minimax runs once a playout ends within k plies of the
  root (the default: it costs nothing in quiet positions);
* ``h1``        first heuristic strategy (§5.3): every ``check_every`` iterations, root children
  in the top x1 % by mean value that were marked as potential sudden deaths get a depth k-1
  minimax (proven losses are pruned), those in the top x2 % marked as potential wins too (a
  proven win ends the search);
* ``h2``        second heuristic strategy: the same two rules, once, at the end.

Whatever the variant, the root minimax's proofs are written into the tree as MCTS-solver flags,
so a proven root child is never searched again and a proven win ends the search at once.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import numpy as np

from gomocup_bot.search import mcts as K
from gomocup_bot.search.board import first_five_point
from gomocup_bot.search.heuristic import make_weights
from gomocup_bot.search.policy import ROBUST, MAX_ROBUST, child_mean, choose_final, ranked_children
from gomocup_bot.search.sudden import UNKNOWN, root_values, sudden

log = logging.getLogger(__name__)

TRIGGERS = ("none", "brute", "triggered", "h1", "h2")
PLAYOUTS = {"random": K.PLAYOUT_RANDOM, "light": K.PLAYOUT_LIGHT, "heavy": K.PLAYOUT_HEAVY,
            "depth": K.PLAYOUT_DEPTH}


@dataclass
class MctsConfig:
    plain: bool = False
    playout: str = "heavy"
    playout_depth: int = 6
    trigger: str = "triggered"
    k: int = 4
    c: float = 0.5
    prior_weight: float = 3.0
    pw_base: float = 4.0
    pw_a: float = 1.5
    pw_b: float = 0.5
    greedy: float = 0.7
    sample: int = 6
    eval_scale: float = 2000.0
    prior_sharpness: float = 0.35
    x1: float = 20.0
    x2: float = 20.0
    check_every: int = 2000
    final: str = ROBUST
    seed: int = 1

    @classmethod
    def baseline(cls, **kw) -> "MctsConfig":
        """Li's plain UCT MCTS: whole-board children, UCB1 c = sqrt(2), random playouts."""
        base = dict(plain=True, playout="random", trigger="none", c=2 ** 0.5, prior_weight=0.0)
        base.update(kw)
        return cls(**base)


@dataclass
class MctsOutcome:
    child: int
    iterations: int
    minimax_runs: int = 0
    minimax_seconds: float = 0.0
    stopped_by: str = ""
    proven_root: int = 0  # +1 root side wins, -1 root side loses, 0 open
    notes: list[str] = field(default_factory=list)


class MctsSearcher:
    """Owns a tree and the numba parameter vectors; one `run` per move."""

    def __init__(self, config: MctsConfig, node_capacity: int = 2_000_000) -> None:
        self.config = config
        self.tree = K.Tree(node_capacity)
        self.rng = np.zeros(1, dtype=np.uint64)
        self.rng[0] = np.uint64(0x9E3779B97F4A7C15 ^ (config.seed * 0x100000001B3 + 1))
        self.stats = np.zeros(8, dtype=np.int64)
        self._weights: dict[int, tuple] = {}

    def params(self):
        cfg = self.config
        ip = np.zeros(8, dtype=np.int64)
        ip[K.I_MODE] = K.MODE_PLAIN if cfg.plain else K.MODE_IMPROVED
        ip[K.I_PLAYOUT] = PLAYOUTS[cfg.playout]
        ip[K.I_PDEPTH] = cfg.playout_depth
        ip[K.I_TRIGGER_K] = cfg.k if cfg.trigger != "none" else 0
        ip[K.I_SAMPLE] = cfg.sample
        fp = np.zeros(8, dtype=np.float64)
        fp[K.F_C] = cfg.c
        fp[K.F_PRIOR_W] = cfg.prior_weight
        fp[K.F_PW_BASE] = cfg.pw_base
        fp[K.F_PW_A] = cfg.pw_a
        fp[K.F_PW_B] = cfg.pw_b
        fp[K.F_GREEDY] = cfg.greedy
        fp[K.F_EVAL_SCALE] = cfg.eval_scale
        fp[K.F_PRIOR_SCALE] = cfg.prior_sharpness
        return ip, fp

    def weights(self, k: int):
        if k not in self._weights:
            self._weights[k] = make_weights(k)
        return self._weights[k]

    # ------------------------------------------------------------------ the search
    def run(self, cells, near, geo, side: int, stop, *, soft_deadline: float | None = None,
            hard_deadline: float | None = None, max_iterations: int = 0,
            allowed: np.ndarray | None = None, excluded: np.ndarray | None = None,
            on_progress=None) -> MctsOutcome:
        cfg = self.config
        tree = self.tree
        tree.reset()
        self.stats[:] = 0
        ip, fp = self.params()
        att, dfn, brd = self.weights(int(geo[3]))
        allowed_arr = np.zeros(0, dtype=np.int64) if allowed is None else np.asarray(allowed, dtype=np.int64)
        out = MctsOutcome(child=-1, iterations=0)
        arrays = tree.arrays()

        # expand the root once so exclusions and proofs can be written onto its children
        K.run_iterations(cells, near, geo, side, 1, *arrays, ip, fp, att, dfn, brd, self.rng,
                         allowed_arr, stop, self.stats)
        if excluded is not None and len(excluded):
            ex = set(int(p) for p in excluded)
            for i in range(int(tree.first[0]), int(tree.first[0] + tree.nch[0])):
                if int(tree.move[i]) in ex:
                    tree.flags[i] |= K.FL_EXCLUDED
            if all(int(tree.flags[i]) & K.FL_EXCLUDED for i in range(int(tree.first[0]), int(tree.first[0] + tree.nch[0]))):
                for i in range(int(tree.first[0]), int(tree.first[0] + tree.nch[0])):
                    tree.flags[i] &= ~K.FL_EXCLUDED  # nothing left: ignore the exclusions

        if cfg.trigger == "brute":
            self._root_minimax(cells, near, geo, side, stop, out)
        triggered_done = cfg.trigger == "brute"
        next_check = cfg.check_every
        chunk = 32
        t_start = time.monotonic()
        rate = 0.0
        while True:
            if stop[0]:
                out.stopped_by = "stop"
                break
            if tree.proven[0] != 0:
                out.stopped_by = "proven"
                break
            now = time.monotonic()
            if hard_deadline is not None and now >= hard_deadline:
                out.stopped_by = "hard"
                break
            if soft_deadline is not None and now >= soft_deadline:
                out.stopped_by = "soft"
                break
            n_iter = chunk
            if max_iterations:
                left = max_iterations - int(self.stats[K.S_ITER])
                if left <= 0:
                    out.stopped_by = "iterations"
                    break
                n_iter = min(n_iter, left)
            t0 = time.monotonic()
            K.run_iterations(cells, near, geo, side, n_iter, *arrays, ip, fp, att, dfn, brd, self.rng,
                             allowed_arr, stop, self.stats)
            dt = time.monotonic() - t0
            # size the next chunk to about 4 ms (and never past the deadline)
            if dt > 0:
                rate = n_iter / dt
                target = 0.004
                if soft_deadline is not None:
                    target = min(target, max(0.0005, (soft_deadline - time.monotonic()) * 0.5))
                chunk = int(min(max(rate * target, 8), 4096))
            if not triggered_done and cfg.trigger == "triggered" and (
                    self.stats[K.S_TRIGGER_LOSS] or self.stats[K.S_TRIGGER_WIN]):
                triggered_done = True
                self._root_minimax(cells, near, geo, side, stop, out)
            if cfg.trigger == "h1" and self.stats[K.S_ITER] >= next_check:
                next_check += cfg.check_every
                self._heuristic_rules(cells, near, geo, side, stop, out, prune_all=False)
            if on_progress is not None:
                on_progress(self)
            if self._settled(rate, soft_deadline, max_iterations):
                out.stopped_by = "settled"
                break
        if cfg.trigger == "h2":
            self._heuristic_rules(cells, near, geo, side, stop, out, prune_all=True)
        out.iterations = int(self.stats[K.S_ITER])
        out.proven_root = -int(tree.proven[0])
        out.child, _ = choose_final(tree, cfg.final if cfg.final != MAX_ROBUST else ROBUST)
        if cfg.final == MAX_ROBUST:
            out.child, _ = choose_final(tree, MAX_ROBUST)
        return out

    def _settled(self, rate: float, soft_deadline: float | None, max_iterations: int) -> bool:
        """Dong & Zhang's adaptive steps: stop once the most visited child cannot be overtaken."""
        tree = self.tree
        kids = [i for i in ranked_children(tree) if int(tree.proven[i]) != -1]
        if len(kids) <= 1:
            return int(self.stats[K.S_ITER]) >= 1
        if self.config.final == MAX_ROBUST:
            _, agree = choose_final(tree, MAX_ROBUST)
            if not agree:
                return False
        gap = int(tree.visits[kids[0]]) - int(tree.visits[kids[1]])
        if max_iterations:
            left = max_iterations - int(self.stats[K.S_ITER])
        elif soft_deadline is not None and rate > 0:
            left = rate * max(0.0, soft_deadline - time.monotonic())
        else:
            return False
        return gap > left

    # ------------------------------------------------------------ Li's minimax rules
    def _root_minimax(self, cells, near, geo, side, stop, out: MctsOutcome) -> None:
        """Depth-k minimax from the root; proofs go onto the root children."""
        t0 = time.monotonic()
        size = cells.shape[0]
        win = first_five_point(cells, near, geo, side)
        if win >= 0:
            # the shortest win first: a depth-k proof would also mark slower wins
            out.minimax_runs += 1
            self._write_proofs({int(win): 1}, None, near)
            out.minimax_seconds += time.monotonic() - t0
            return
        moves = np.zeros(size, dtype=np.int64)
        values = np.zeros(size, dtype=np.int64)
        depth = self.config.k
        while True:
            counter = np.zeros(2, dtype=np.int64)
            n = root_values(cells, near, geo, side, depth, moves, values, stop, counter)
            out.minimax_runs += 1
            if n < 0:
                out.minimax_seconds += time.monotonic() - t0
                return
            # everything loses within `depth` plies: lose as late as possible instead
            if depth <= 2 or any(int(values[i]) >= 0 for i in range(n)):
                break
            depth -= 2
        out.minimax_seconds += time.monotonic() - t0
        known = {int(moves[i]): int(values[i]) for i in range(n)}
        far_value = None
        for i in range(n):
            if near[int(moves[i])] == 0:
                far_value = int(values[i])
        self._write_proofs(known, far_value, near)

    def _write_proofs(self, known: dict[int, int], far_value, near) -> None:
        tree = self.tree
        f, n = int(tree.first[0]), int(tree.nch[0])
        any_win = False
        for i in range(f, f + n):
            p = int(tree.move[i])
            v = known.get(p)
            if v is None and near[p] == 0:
                v = far_value
            if v is None or v == 0:
                continue
            tree.proven[i] = v
            any_win |= v == 1
        kids = [i for i in range(f, f + n) if not (int(tree.flags[i]) & K.FL_EXCLUDED)]
        if any_win:
            tree.proven[0] = -1
        elif kids and all(int(tree.proven[i]) == -1 for i in kids):
            tree.proven[0] = 1

    def _child_value(self, cells, near, geo, side, p: int, depth: int, stop) -> int:
        """Depth-``depth`` minimax value for the root side after root move p (None if cut)."""
        from gomocup_bot.search.board import place, remove, wins_at

        if wins_at(cells, geo, p, side):
            return 1
        counter = np.zeros(2, dtype=np.int64)
        place(cells, near, geo, p, side)
        try:
            v = sudden(cells, near, geo, 3 - side, depth, stop, counter)
        finally:
            remove(cells, near, geo, p)
        return None if v == UNKNOWN else -int(v)

    def _heuristic_rules(self, cells, near, geo, side, stop, out: MctsOutcome, prune_all: bool) -> None:
        """Li's §5.3 rules 1 and 2 over the marked root children (depth k-1 from each child)."""
        t0 = time.monotonic()
        tree = self.tree
        cfg = self.config
        kids = [i for i in ranked_children(tree) if int(tree.visits[i]) > 0 and int(tree.proven[i]) == 0]
        kids.sort(key=lambda i: -child_mean(tree, i))
        if not kids:
            return
        top1 = kids[:max(1, int(round(len(kids) * cfg.x1 / 100.0)))]
        top2 = kids[:max(1, int(round(len(kids) * cfg.x2 / 100.0)))]
        depth = cfg.k - 1
        if prune_all:
            # strategy 2, rule 1: walk down the best-mean list while its head is a proven death
            for i in kids:
                if not (int(tree.flags[i]) & K.FL_MARK_DEATH):
                    break
                v = self._child_value(cells, near, geo, side, int(tree.move[i]), depth, stop)
                out.minimax_runs += 1
                if v == -1:
                    tree.proven[i] = -1
                else:
                    break
        else:
            for i in top1:
                if int(tree.flags[i]) & K.FL_MARK_DEATH and not (int(tree.flags[i]) & K.FL_CHECKED):
                    v = self._child_value(cells, near, geo, side, int(tree.move[i]), depth, stop)
                    out.minimax_runs += 1
                    tree.flags[i] |= K.FL_CHECKED
                    if v == -1:
                        tree.proven[i] = -1
        for i in top2:
            if int(tree.flags[i]) & K.FL_MARK_WIN and int(tree.proven[i]) == 0:
                v = self._child_value(cells, near, geo, side, int(tree.move[i]), depth, stop)
                out.minimax_runs += 1
                if v == 1:
                    tree.proven[i] = 1
                    tree.proven[0] = -1
                    break
        out.minimax_seconds += time.monotonic() - t0
