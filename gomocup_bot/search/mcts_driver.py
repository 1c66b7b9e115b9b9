"""The anytime MCTS driver: runs kernel chunks against the clock and applies Li's minimax rules.

Searches a core board (`core/board.py`), which it leaves as it found it; a helper thread searches
a `copy_board` copy.

The numba kernel cannot read the clock, so the driver calls it in chunks sized to a few
milliseconds by the measured speed and checks the planned time in between; a watchdog raises the
flag the kernels poll on every iteration (and the minimax rules on every node) at YXSTOP/END or
at the cap, 1.15 x the plan (as the PVS), so nothing, not even a thread descheduled mid-chunk,
runs far past the plan.

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

Two threads (``threads=2``): root parallelism. Each thread owns a tree, a board copy and a
random stream; the helper runs one long nogil kernel call until the main thread raises its halt
flag, the main thread runs the clocked chunks, the minimax rules and the stop checks. Decisions
(adaptive stop, final move) use the root children of both trees merged by move
(`policy.merged_root`); a root proof found by either side is copied into the other tree.

Tree reuse (``reuse=True``): each tree remembers the position of its root. When the next search's
position is that position plus stones that a path in the tree played (our move and the reply, or
any number of plies), the tree is re-rooted there (`Tree.reroot` compacts the subtree to the front
of the arrays; statistics and proofs kept); anything else starts a fresh tree.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from gomocup_bot.core.board import copy_board, make, unmake
from gomocup_bot.core.constants import M_HEIGHT, M_RULE, M_TABLE, M_WIDTH, RULE_CARO, RULE_CARO_EXACT
from gomocup_bot.search import mcts as K
from gomocup_bot.search import pvs
from gomocup_bot.search.clock import Watchdog
from gomocup_bot.search.policy import (ROBUST, MAX_ROBUST, RootView, child_mean, choose_final, merged_root,
                                       ranked_children, root_proof)
from gomocup_bot.search.sudden import UNKNOWN, root_values, sudden, win_squares, wins_now

log = logging.getLogger(__name__)

TRIGGERS = ("none", "brute", "triggered", "h1", "h2")
PLAYOUTS = {"random": K.PLAYOUT_RANDOM, "light": K.PLAYOUT_LIGHT, "heavy": K.PLAYOUT_HEAVY,
            "depth": K.PLAYOUT_DEPTH}
LEAVES = {"playout": K.LEAF_PLAYOUT, "eval": K.LEAF_EVAL, "quiesce": K.LEAF_QUIESCE}
PRIORS = {"score": K.PRIOR_SCORE, "class": K.PRIOR_CLASS, "net": K.PRIOR_NET}
SELECTS = {"ucb": K.SELECT_UCB, "puct": K.SELECT_PUCT}
CHUNK_SECONDS = 0.004  # a kernel call between two looks at the clock
ABORT_STRETCH = 1.15  # nothing runs past this multiple of the plan (the PVS's cap)


def cap(start: float, soft_deadline: float | None, hard_deadline: float | None) -> float | None:
    """The instant no part of a search may pass: the hard deadline, or ``ABORT_STRETCH`` x the
    planned time from ``start`` if that comes first (None: no clock, an iteration-capped run)."""
    if soft_deadline is None:
        return hard_deadline
    stretched = start + ABORT_STRETCH * max(0.0, soft_deadline - start)
    return stretched if hard_deadline is None else min(hard_deadline, stretched)


# the MCTS on the network (`MctsConfig.on_net`): PUCT's exploration weight (values in [-1, 1]) and the
# softmax temperature of the policy's logits, chosen by matches at 1 s (docs/search.md)
NET_C = 2.5
NET_PRIOR_TEMP = 1.0


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
    attack_lambda: float = 1.0  # depth playouts' Dong & Zhang evaluation: weight of the opponent's runs
    leaf: str = "playout"  # "eval": the class-count evaluation instead of a playout, "quiesce": the
    # PVS's quiescence search (table boards)
    quiesce_fours: int = 2  # leaf=quiesce: fours the quiescence may play in a row
    prior: str = "score"  # "class": priors from the pattern layer's threat classes (table boards),
    # "net": the network's policy head (with ``net``; else the classes)
    net: int = 0  # 1: the network evaluation (`neteval`) where the rule has a net: the leaves
    # (eval, quiesce) read its value head, ``prior="net"`` its policy head; else the tables
    select: str = "ucb"  # "puct": PUCT, u = q + c * prior * sqrt(N) / (1 + n), the prior a probability
    fpu: float = 0.2  # PUCT: an unvisited child counts as its parent's mean for its mover less this
    prior_temp: float = 1.0  # prior=net: the softmax's temperature on the policy's logits
    eval_scale: float = 500.0  # leaf=eval: value = tanh(evaluation / eval_scale)
    prior_sharpness: float = 0.35
    x1: float = 20.0
    x2: float = 20.0
    check_every: int = 2000
    final: str = ROBUST
    seed: int = 1
    threads: int = 1  # 2 = a helper thread searches too
    parallel: str = "root"  # with 2 threads: "root" (a tree each) or "tree" (one shared tree, virtual loss)
    reuse: bool = False  # keep the tree from one move to the next

    @classmethod
    def on_net(cls, **kw) -> "MctsConfig":
        """The MCTS on the network as the engine plays it (``backend=mcts net=1``): the policy's
        priors at `NET_PRIOR_TEMP`, PUCT at `NET_C`, quiescence leaves on the net's value."""
        base = dict(net=1, prior="net", select="puct", c=NET_C, prior_temp=NET_PRIOR_TEMP, leaf="quiesce")
        base.update(kw)
        return cls(**base)

    @classmethod
    def baseline(cls, **kw) -> "MctsConfig":
        """Li's plain UCT MCTS: whole-board children, UCB1 c = sqrt(2), random playouts."""
        base = dict(plain=True, playout="random", trigger="none", c=2 ** 0.5, prior_weight=0.0)
        base.update(kw)
        return cls(**base)


@dataclass
class MctsOutcome:
    child: int  # index of the chosen root child in the main tree (`MctsSearcher.tree`), -1 if none
    iterations: int
    move: int = -1  # the chosen square (padded index)
    minimax_runs: int = 0
    minimax_seconds: float = 0.0
    stopped_by: str = ""
    proven_root: int = 0  # +1 root side wins, -1 root side loses, 0 open
    reused: int = 0  # root visits kept from the previous search (summed over the trees)
    threads: int = 1
    notes: list[str] = field(default_factory=list)


@dataclass
class RootKey:
    """The position a tree's root stands for, to recognise it in the next search."""

    cells: np.ndarray
    meta: np.ndarray  # the board's meta: size, k and rule are its first four entries
    side: int
    restricted: bool  # the root's children were limited to an `allowed` set


class _Worker:
    """One thread's share: a tree, a random stream, counters, and the root it last searched."""

    def __init__(self, capacity: int, seed: int, tree: K.Tree | None = None) -> None:
        self.tree = tree if tree is not None else K.Tree(capacity)
        self.pool = np.zeros(2, dtype=np.int64)  # shared tree: [next free node, end) of this thread
        self.rng = np.zeros(1, dtype=np.uint64)
        self.rng[0] = np.uint64(0x9E3779B97F4A7C15 ^ (seed * 0x100000001B3 + 1))
        self.stats = np.zeros(8, dtype=np.int64)  # the kernel adds S_ITER when a call returns
        self.root: RootKey | None = None
        self.start_visits = 0  # root visits when the current search began


def find_descendant(tree, key: RootKey | None, board, side: int) -> int:
    """The node of ``tree`` whose position is (the board's stones, side), reached from the root
    position ``key`` by moves of the tree; -1 if there is none (other stones, a takeback, another game)."""
    cells = board.cells
    if key is None or key.cells.shape != cells.shape or not np.array_equal(key.meta[:4], board.meta[:4]):
        return -1
    diff = np.nonzero(key.cells != cells)[0]
    if len(diff) and (key.cells[diff] != 0).any():
        return -1  # a stone was taken back or changed
    extra = {int(p): int(cells[p]) for p in diff}
    if any(c not in (1, 2) for c in extra.values()):
        return -1
    if (len(extra) % 2 == 0) != (side == key.side):
        return -1
    return _walk(tree, 0, key.side, extra)


def _walk(tree, node: int, side: int, extra: dict[int, int]) -> int:
    """Depth-first search for a path of tree moves that plays exactly the squares of ``extra``."""
    if not extra:
        return node
    f, n = int(tree.first[node]), int(tree.nch[node])
    if f < 0 or n <= 0:
        return -1
    moves = tree.move[f:f + n]
    for p, c in extra.items():
        if c != side:
            continue
        hit = np.nonzero(moves == p)[0]
        if len(hit):
            rest = {q: v for q, v in extra.items() if q != p}
            found = _walk(tree, f + int(hit[0]), 3 - side, rest)
            if found >= 0:
                return found
    return -1


class MctsSearcher:
    """Owns the trees (one per thread) and the numba parameter vectors; one `run` per move."""

    def __init__(self, config: MctsConfig, node_capacity: int = 2_000_000) -> None:
        self.config = config
        n = max(1, min(2, int(config.threads)))
        self.shared = n > 1 and config.parallel == "tree"
        if self.shared:  # one tree, each thread allocating from its own pool of it
            first = _Worker(node_capacity, config.seed)
            self.workers = [first, _Worker(0, config.seed + 7919, tree=first.tree)]
        else:  # the memory budget is shared: each tree gets its part of the nodes
            self.workers = [_Worker(node_capacity // n, config.seed + 7919 * i) for i in range(n)]
        self._ev: dict[tuple[int, int], pvs.Work] = {}
        self.view: RootView | None = None  # merged root statistics, refreshed during `run`
        self.active = self.workers[:1]  # the workers of the current or last search
        self._size = 0

    # the main thread's tree and state (single-thread callers and the experiments use these)
    @property
    def tree(self) -> K.Tree:
        return self.workers[0].tree

    @property
    def rng(self) -> np.ndarray:
        return self.workers[0].rng

    @property
    def stats(self) -> np.ndarray:
        return self.workers[0].stats

    def forget(self) -> None:
        """A new game: no tree is reused."""
        for w in self.workers:
            w.root = None
            w.tree.reset()

    def iterations(self) -> int:
        """Iterations of the current or last search, all threads (live: one root visit each)."""
        return sum(int(w.tree.visits[0]) - w.start_visits for w in self._owners())

    def _owners(self) -> list[_Worker]:
        """The active workers that own a distinct tree."""
        return self.active[:1] if self.shared else self.active

    def params(self, board=None):
        """The kernel's integer and float parameter vectors; with a ``board`` the class-based
        leaf and priors fall back to playouts and line scores where the layer cannot serve them
        (caro's fives depend on both ends, k > 5 keeps no layer)."""
        cfg = self.config
        ip = np.zeros(K.I_LEN, dtype=np.int64)
        ip[K.I_MODE] = K.MODE_PLAIN if cfg.plain else K.MODE_IMPROVED
        ip[K.I_PLAYOUT] = PLAYOUTS[cfg.playout]
        ip[K.I_PDEPTH] = cfg.playout_depth
        ip[K.I_TRIGGER_K] = cfg.k if cfg.trigger != "none" else 0
        ip[K.I_SAMPLE] = cfg.sample
        ip[K.I_LEAF] = LEAVES.get(cfg.leaf, K.LEAF_PLAYOUT)
        ip[K.I_PRIOR] = PRIORS.get(cfg.prior, K.PRIOR_SCORE)
        ip[K.I_QDEPTH] = cfg.quiesce_fours
        ip[K.I_SELECT] = SELECTS.get(cfg.select, K.SELECT_UCB)
        if ip[K.I_PRIOR] == K.PRIOR_NET and (board is None or self._net_for(board) is None):
            ip[K.I_PRIOR] = K.PRIOR_CLASS  # no net for this board: the threat classes order it
        if board is not None and not layer_serves(board):
            ip[K.I_LEAF] = K.LEAF_PLAYOUT
            ip[K.I_PRIOR] = K.PRIOR_SCORE
        fp = np.zeros(K.F_LEN, dtype=np.float64)
        fp[K.F_C] = cfg.c
        fp[K.F_PRIOR_W] = cfg.prior_weight
        fp[K.F_PW_BASE] = cfg.pw_base
        fp[K.F_PW_A] = cfg.pw_a
        fp[K.F_PW_B] = cfg.pw_b
        fp[K.F_GREEDY] = cfg.greedy
        fp[K.F_LAMBDA] = cfg.attack_lambda
        fp[K.F_EVAL_SCALE] = cfg.eval_scale
        fp[K.F_PRIOR_SCALE] = cfg.prior_sharpness
        fp[K.F_FPU] = cfg.fpu
        fp[K.F_PRIOR_TEMP] = max(1e-3, cfg.prior_temp)
        return ip, fp

    def _net_for(self, board):
        """(weights, the rule's net) when ``net`` is on and the board's rule has one, else None."""
        if not self.config.net:
            return None
        from gomocup_bot.neteval.network import network_for

        return network_for(board)

    def evaluator(self, board, thread: int = 0) -> pvs.Work:
        """The PVS work record of one thread for its leaves (the evaluation weights; the quiescence
        search's move lists and counters too, hence one per thread); one per board size and rule,
        with the network's state (``net``) refreshed to ``board``."""
        key = (int(board.meta[M_WIDTH]), int(board.meta[M_HEIGHT]), int(board.meta[M_RULE]), thread)
        if key not in self._ev:
            net = self._net_for(board)
            params = pvs.default_params()
            state = None
            if net is not None:
                from gomocup_bot.neteval.state import new_state

                params[pvs.P_NET] = 1
                state = new_state(board, *net)
            self._ev[key] = pvs.new_work(board, pvs.new_tt(1 << 14), params, np.zeros(1, dtype=np.int32), state)
        ev = self._ev[key]
        if ev.params[pvs.P_NET]:  # the net's sums follow the tree from this search's root
            from gomocup_bot.neteval.state import refresh

            refresh(ev.net, board)
        return ev

    # ------------------------------------------------------------------ the search
    def run(self, board, side: int, stop, *, soft_deadline: float | None = None,
            hard_deadline: float | None = None, max_iterations: int = 0,
            allowed: np.ndarray | None = None, excluded: np.ndarray | None = None,
            on_progress=None) -> MctsOutcome:
        """Search ``board`` (a core board, restored on return) for ``side`` to move.

        Aims at ``soft_deadline`` (the plan: chunks and the adaptive stop look at it between kernel
        calls) and never passes `cap` (the hard deadline, or 1.15 x the plan like the PVS): a
        watchdog raises the flag every kernel polls there, so a chunk or a minimax rule running long,
        or a thread descheduled under load, is cut at the cap."""
        with Watchdog(stop, cap(time.monotonic(), soft_deadline, hard_deadline)) as abort:
            return self._run(board, side, abort, soft_deadline, max_iterations, allowed, excluded, on_progress)

    def _run(self, board, side: int, stop, soft_deadline: float | None, max_iterations: int,
             allowed, excluded, on_progress) -> MctsOutcome:
        cfg = self.config
        self._size = board.cells.shape[0]
        # an iteration cap (levels, the experiments) is a reproducible budget: one thread
        workers = self.workers[:1] if max_iterations else self.workers
        self.active = workers
        for w in self.workers:
            w.stats[:] = 0
        ip, fp = self.params(board)
        allowed_arr = np.zeros(0, dtype=np.int64) if allowed is None else np.asarray(allowed, dtype=np.int64)
        out = MctsOutcome(child=-1, iterations=0, threads=len(workers))
        boards = [board] + [copy_board(board) for _ in workers[1:]]
        evs = [self.evaluator(b_, i) for i, b_ in enumerate(boards)]
        ev = evs[0]
        for w, b_, ev_ in zip(self._owners(), boards, evs):
            out.reused += self._take_root(w, board, side, allowed)
            w.start_visits = int(w.tree.visits[0])
            # expand the root once so exclusions and proofs can be written onto its children
            K.run_iterations(b_, side, 1, *w.tree.arrays(), ip, fp, ev_, w.rng, allowed_arr, stop, w.stats)
            self._exclude(w.tree, excluded, allowed)
        shared = self.shared and len(workers) > 1
        if shared:
            self._split_pools()
        self._refresh()

        halt = np.zeros(1, dtype=np.int32)
        helpers = [threading.Thread(target=self._helper, name="mcts-helper", daemon=True,
                                    args=(w, b, side, ip, fp, e, allowed_arr, halt, shared))
                   for w, b, e in zip(workers[1:], boards[1:], evs[1:])]
        for h in helpers:
            h.start()
        try:
            self._main_loop(board, side, stop, soft_deadline, max_iterations,
                            ip, fp, ev, allowed_arr, on_progress, out, shared)
        finally:
            halt[0] = 1
            for h in helpers:
                h.join()
        if shared:  # the highest node in use, for the next search's bookkeeping
            self.tree.count[0] = max(int(w.pool[0]) for w in workers)
        self._sync_proofs()
        if cfg.trigger == "h2":
            self._heuristic_rules(board, side, stop, out, prune_all=True)
        view = self._refresh()
        out.iterations = self.iterations()
        out.proven_root = -int(view.proven[0])
        i, _ = choose_final(view, cfg.final if cfg.final != MAX_ROBUST else ROBUST)
        if cfg.final == MAX_ROBUST:
            i, _ = choose_final(view, MAX_ROBUST)
        if i > 0:
            out.move = int(view.move[i])
            out.child = self.child_index(self.tree, out.move)
        return out

    def _main_loop(self, board, side, stop, soft_deadline, max_iterations,
                   ip, fp, ev, allowed_arr, on_progress, out: MctsOutcome, shared: bool) -> None:
        """Kernel chunks against the clock, with Li's minimax rules in between. ``stop`` is the
        run's watchdog flag (external stop or the cap), which the minimax rules poll too."""
        cfg = self.config
        w0 = self.workers[0]
        tree = w0.tree
        if cfg.trigger == "brute":
            self._root_minimax(board, side, stop, out)
        triggered_done = cfg.trigger == "brute"
        next_check = cfg.check_every
        chunk = 32
        t_start = time.monotonic()
        v_start = self._root_visits()
        rate = 0.0
        while True:
            if stop[0]:
                out.stopped_by = "stop"  # a YXSTOP/END or the cap
                break
            if self.view.proven[0] != 0:
                out.stopped_by = "proven"
                break
            now = time.monotonic()
            if soft_deadline is not None and now >= soft_deadline:
                out.stopped_by = "soft"
                break
            n_iter = chunk
            if max_iterations:
                left = max_iterations - self.iterations()
                if left <= 0:
                    out.stopped_by = "iterations"
                    break
                n_iter = min(n_iter, left)
            t0 = time.monotonic()
            if shared:
                K.run_shared(board, side, n_iter, *tree.arrays()[:-1], w0.pool, ip, fp, ev, w0.rng, stop, w0.stats)
            else:
                K.run_iterations(board, side, n_iter, *tree.arrays(), ip, fp, ev, w0.rng, allowed_arr, stop, w0.stats)
            now = time.monotonic()
            dt, elapsed = now - t0, now - t_start
            if dt > 0 and elapsed > 0:
                # the rate since the start, every thread's iterations counted, is what the time left
                # allows (one chunk's rate jumps when the thread is descheduled); the next chunk is
                # sized by the slower of that and this chunk's per-thread rate, to about 4 ms and at
                # most half the time to the plan
                rate = (self._root_visits() - v_start) / elapsed
                per_thread = min(n_iter / dt, rate / len(self.active))
                target = CHUNK_SECONDS
                if soft_deadline is not None:
                    target = min(target, max(0.0005, (soft_deadline - now) * 0.5))
                chunk = int(min(max(per_thread * target, 8), 4096))
            if len(self._owners()) > 1:
                self._sync_proofs()  # refreshes the merged view too
            else:
                self._refresh()
            if not triggered_done and cfg.trigger == "triggered" and any(
                    w.stats[K.S_TRIGGER_LOSS] or w.stats[K.S_TRIGGER_WIN] for w in self.active):
                triggered_done = True
                self._root_minimax(board, side, stop, out)
                self._refresh()
            if cfg.trigger == "h1" and self._root_visits() - v_start >= next_check:
                next_check += cfg.check_every
                self._heuristic_rules(board, side, stop, out, prune_all=False)
                self._refresh()
            if on_progress is not None:
                on_progress(self)
            if self._settled(rate, soft_deadline, max_iterations):
                out.stopped_by = "settled"
                break

    @staticmethod
    def _helper(w: _Worker, board, side, ip, fp, ev, allowed_arr, halt, shared) -> None:
        """The second thread: iterate (on its own tree, or its pool of the shared one) until the
        main thread raises ``halt`` (polled every iteration) or the root is proven."""
        if shared:
            K.run_shared(board, side, 1 << 40, *w.tree.arrays()[:-1], w.pool, ip, fp, ev, w.rng, halt, w.stats)
        else:
            K.run_iterations(board, side, 1 << 40, *w.tree.arrays(), ip, fp, ev, w.rng, allowed_arr, halt, w.stats)

    def _split_pools(self) -> None:
        """Shared tree: the nodes not yet used, half to each thread."""
        tree = self.tree
        lo, cap = int(tree.count[0]), tree.capacity
        mid = lo + (cap - lo) // 2
        self.workers[0].pool[:] = (lo, mid)
        self.workers[1].pool[:] = (mid, cap)

    # ------------------------------------------------------------ trees: reuse, views, proofs
    def _take_root(self, w: _Worker, board, side: int, allowed) -> int:
        """Re-root ``w``'s tree at the node of this position if it has one, else start fresh.
        Returns the root visits kept (0 = fresh)."""
        tree = w.tree
        node = -1
        if self.config.reuse:
            node = find_descendant(tree, w.root, board, side)
            if node == 0 and w.root.restricted:
                node = -1  # the old root only has the children an `allowed` set let in
            if node >= 0 and allowed is not None and not self._covers(tree, node, allowed):
                node = -1
        if node >= 0:
            tree.reroot(node, any_layout=self.shared)
        else:
            tree.reset()
        w.root = RootKey(board.cells.copy(), board.meta.copy(), side, allowed is not None)
        return int(tree.visits[0]) if node >= 0 else 0

    @staticmethod
    def _covers(tree, node: int, allowed) -> bool:
        """Does the node's children block hold every allowed square (it was expanded unrestricted,
        so a fresh restricted root could not have more)? An unexpanded node is fine."""
        f, n = int(tree.first[node]), int(tree.nch[node])
        if f < 0 or n <= 0:
            return int(tree.nch[node]) == 0 and f != -2
        return set(int(p) for p in allowed) <= set(int(m) for m in tree.move[f:f + n])

    def _exclude(self, tree, excluded, allowed) -> None:
        """Flag the root children not to search: YXBLOCK / renju fouls, and on a reused root the
        squares outside the ``allowed`` set; then settle the root's proof from what is left."""
        f, n = int(tree.first[0]), int(tree.nch[0])
        if f < 0 or n <= 0:
            return
        ex = set(int(p) for p in excluded) if excluded is not None and len(excluded) else set()
        keep = set(int(p) for p in allowed) if allowed is not None else None
        sl = slice(f, f + n)
        moves = tree.move[sl]
        if ex or keep is not None:
            mask = np.array([int(m) in ex or (keep is not None and int(m) not in keep) for m in moves])
            if mask.all():  # nothing left: give up the exclusions (never the allowed set)
                mask = np.array([keep is not None and int(m) not in keep for m in moves])
            tree.flags[sl] = np.where(mask, tree.flags[sl] | K.FL_EXCLUDED, tree.flags[sl] & ~K.FL_EXCLUDED)
        if not self.config.plain:
            tree.proven[0] = root_proof(tree.proven[sl], tree.flags[sl], K.FL_EXCLUDED)

    def _root_visits(self) -> int:
        return sum(int(w.tree.visits[0]) for w in self._owners())

    def _refresh(self) -> RootView:
        self.view = merged_root([w.tree for w in self._owners()], self._size)
        return self.view

    def _sync_proofs(self) -> None:
        """Refresh the merged view and copy root-child proofs between the trees (a proof is a
        fact about the position)."""
        view = self._refresh()
        if len(self._owners()) < 2:
            return
        if not view.proven[1:].any():
            return
        for w in self._owners():
            self._apply(w.tree, view.move[1:], view.proven[1:], 0)

    def _apply(self, tree, moves, proven, flag_bits: int, overwrite: bool = False) -> None:
        """Write proofs (where the tree has none, or over its own with ``overwrite``: the exact
        root minimax outranks the tree's candidate-limited solver) and flag bits onto the root
        children of ``tree`` that play ``moves``, then settle the root's proof."""
        f, n = int(tree.first[0]), int(tree.nch[0])
        if f < 0 or n <= 0:
            return
        where = np.full(self._size, -1, dtype=np.int64)
        where[np.asarray(moves, dtype=np.int64)] = np.arange(len(moves))
        sl = slice(f, f + n)
        idx = where[tree.move[sl]]
        ok = idx >= 0
        if proven is not None:
            new = np.zeros(n, dtype=np.int8)
            new[ok] = np.asarray(proven, dtype=np.int8)[idx[ok]]
            cur = tree.proven[sl]
            put = ((cur == 0) | overwrite) & (new != 0)
            if put.any():
                tree.proven[f + np.nonzero(put)[0]] = new[put]
        if flag_bits:
            tree.flags[f + np.nonzero(ok)[0]] |= flag_bits
        if not self.config.plain:
            p0 = root_proof(tree.proven[sl], tree.flags[sl], K.FL_EXCLUDED)
            if p0 != 0:
                tree.proven[0] = p0

    @staticmethod
    def child_index(tree, move: int) -> int:
        f, n = int(tree.first[0]), int(tree.nch[0])
        if f < 0 or n <= 0:
            return -1
        hit = np.nonzero(tree.move[f:f + n] == move)[0]
        return f + int(hit[0]) if len(hit) else -1

    def principal_variation(self, move: int, limit: int = 12) -> list[int]:
        """Most-visited line after root move ``move``, read in the tree that searched it most."""
        best = None
        for w in self._owners():
            i = self.child_index(w.tree, move)
            if i >= 0 and (best is None or int(w.tree.visits[i]) > int(best[0].visits[best[1]])):
                best = (w.tree, i)
        if best is None:
            return [move]
        tree, node = best
        pv = []
        while node >= 0 and len(pv) < limit:
            pv.append(int(tree.move[node]))
            f, n = int(tree.first[node]), int(tree.nch[node])
            if f < 0 or n <= 0:
                break
            kids = tree.visits[f:f + n]
            node = f + int(np.argmax(kids))
            if int(tree.visits[node]) == 0:
                break
        return pv

    def _settled(self, rate: float, soft_deadline: float | None, max_iterations: int) -> bool:
        """Dong & Zhang's adaptive steps: stop once the most visited child cannot be overtaken."""
        view = self.view
        kids = [i for i in ranked_children(view) if int(view.proven[i]) != -1]
        if len(kids) <= 1:
            return self._root_visits() >= 1
        if self.config.final == MAX_ROBUST:
            _, agree = choose_final(view, MAX_ROBUST)
            if not agree:
                return False
        gap = int(view.visits[kids[0]]) - int(view.visits[kids[1]])
        if max_iterations:
            left = max_iterations - int(self.stats[K.S_ITER])
        elif soft_deadline is not None and rate > 0:
            left = rate * max(0.0, soft_deadline - time.monotonic())
        else:
            return False
        return gap > left

    # ------------------------------------------------------------ Li's minimax rules
    def _root_minimax(self, board, side, stop, out: MctsOutcome) -> None:
        """Depth-k minimax from the root; proofs go onto the root children."""
        t0 = time.monotonic()
        size = board.cells.shape[0]
        buf = np.zeros(int(board.meta[M_WIDTH]) * int(board.meta[M_HEIGHT]) + 1, dtype=np.int32)
        if win_squares(board, side, buf) > 0:
            # the shortest win first: a depth-k proof would also mark slower wins
            out.minimax_runs += 1
            self._write_proofs({int(buf[0]): 1}, None, board.nbr)
            out.minimax_seconds += time.monotonic() - t0
            return
        moves = np.zeros(size, dtype=np.int64)
        values = np.zeros(size, dtype=np.int64)
        depth = self.config.k
        while True:
            counter = np.zeros(2, dtype=np.int64)
            n = root_values(board, side, depth, moves, values, stop, counter)
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
            if board.nbr[int(moves[i])] == 0:
                far_value = int(values[i])
        self._write_proofs(known, far_value, board.nbr)

    def _write_proofs(self, known: dict[int, int], far_value, near) -> None:
        """Proofs by square (a far square stands for every far square) onto every tree's root."""
        view = self.view if self.view is not None else self._refresh()
        moves, proofs = [], []
        for p in (int(m) for m in view.move[1:]):
            v = known.get(p)
            if v is None and near[p] == 0:
                v = far_value
            if v:
                moves.append(p)
                proofs.append(v)
        for w in self._owners():
            self._apply(w.tree, moves, proofs, 0, overwrite=True)

    def _child_value(self, board, side, p: int, depth: int, stop) -> int | None:
        """Depth-``depth`` minimax value for the root side after root move p (None if cut)."""
        if wins_now(board, p, side):
            return 1
        counter = np.zeros(2, dtype=np.int64)
        make(board, p, side)
        try:
            v = sudden(board, 3 - side, depth, stop, counter)
        finally:
            unmake(board)
        return None if v == UNKNOWN else -int(v)

    def _heuristic_rules(self, board, side, stop, out: MctsOutcome, prune_all: bool) -> None:
        """Li's §5.3 rules 1 and 2 over the marked root children (depth k-1 from each child)."""
        t0 = time.monotonic()
        view = self._refresh()
        cfg = self.config
        kids = [i for i in ranked_children(view) if int(view.visits[i]) > 0 and int(view.proven[i]) == 0]
        kids.sort(key=lambda i: -child_mean(view, i))
        if not kids:
            return
        top1 = kids[:max(1, int(round(len(kids) * cfg.x1 / 100.0)))]
        top2 = kids[:max(1, int(round(len(kids) * cfg.x2 / 100.0)))]
        depth = cfg.k - 1

        def settle(i: int, value: int = 0, bits: int = 0) -> None:
            for w in self._owners():
                self._apply(w.tree, [int(view.move[i])], [value], bits)

        if prune_all:
            # strategy 2, rule 1: walk down the best-mean list while its head is a proven death
            for i in kids:
                if not (int(view.flags[i]) & K.FL_MARK_DEATH):
                    break
                v = self._child_value(board, side, int(view.move[i]), depth, stop)
                out.minimax_runs += 1
                if v == -1:
                    settle(i, -1)
                else:
                    break
        else:
            for i in top1:
                if int(view.flags[i]) & K.FL_MARK_DEATH and not (int(view.flags[i]) & K.FL_CHECKED):
                    v = self._child_value(board, side, int(view.move[i]), depth, stop)
                    out.minimax_runs += 1
                    settle(i, -1 if v == -1 else 0, K.FL_CHECKED)
        for i in top2:
            if int(view.flags[i]) & K.FL_MARK_WIN and int(view.proven[i]) == 0:
                v = self._child_value(board, side, int(view.move[i]), depth, stop)
                out.minimax_runs += 1
                if v == 1:
                    settle(i, 1)
                    break
        out.minimax_seconds += time.monotonic() - t0


def layer_serves(board) -> bool:
    """Can the pattern layer's classes stand for the position (eval leaves, class priors)? Table
    boards (k <= 5) under every rule but caro, whose fives depend on both ends -- the boards the
    PVS covers too."""
    rule = int(board.meta[M_RULE])
    return bool(board.meta[M_TABLE]) and rule not in (RULE_CARO, RULE_CARO_EXACT)
