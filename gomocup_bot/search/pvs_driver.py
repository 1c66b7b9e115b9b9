"""Iterative deepening around the PVS kernels: aspiration windows, time, the lazy-SMP helper.

Time follows the strongest engines' habit: the soft deadline is the *planned* time, the hard one
the cap (a watchdog aborts the kernels there). After every finished iteration the plan is
stretched when the best move just changed or the score fell, and shrunk when the best move has
been the same for several iterations; an iteration cut by the clock still counts for the moves
it finished (the first root move is the previous best, re-searched deeper; a later move that
beat it was proven better with a full window).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from gomocup_bot.core.board import copy_board
from gomocup_bot.core.constants import M_SIZE
from gomocup_bot.neteval.network import network_for
from gomocup_bot.neteval.state import new_state
from gomocup_bot.search import pvs as K
from gomocup_bot.search.clock import Watchdog

ASPIRATION = 60  # half-width of the first window around the last score (depth >= 5)
NEXT_ITERATION_SHARE = 0.5  # always start another iteration before this share of the plan
NEXT_ITERATION_END = 1.0  # start another iteration only if it is predicted to end by this share of the plan
GROWTH_MIN, GROWTH_MAX = 1.5, 3.0  # bounds on an iteration's predicted cost over the last one's
ABORT_STRETCH = 1.15  # the kernels stop at this multiple of the planned time (or the hard deadline)
SHARP_SHARE = 0.95  # a sharp position plans this share of the hard budget (no shrinking when stable)


def another_iteration(elapsed: float, plan: float, cost: float, growth: float, end_share: float,
                      start_share: float = NEXT_ITERATION_SHARE) -> bool:
    """Whether a search `elapsed` seconds into a plan of `plan` seconds starts another iteration:
    always before `start_share` of the plan, later only if it should end by `end_share` of the
    plan, costing the last iteration's `cost` times `growth` (the last ratio of two iterations'
    costs, bounded). A fixed share alone stops early even when the next iteration is cheap."""
    if elapsed < start_share * plan:
        return True
    return elapsed + cost * growth <= end_share * plan


def iteration_ranks(best_i: int, best: int, alpha: int, stopped: bool) -> bool:
    """Whether an iteration's root result may replace the last one's. Not when no move finished
    (``best_i`` < 0), and not when it was stopped after failing low: then every score is an upper
    bound (fail-soft values of null-window searches that all failed), which does not rank the
    moves. Taking the largest bound played moves a longer search rejects in 10 of 12 positions
    where it mattered (docs/search.md, "Where the time goes, and a stopped iteration that failed low")."""
    if best_i < 0:
        return False
    return not (stopped and alpha > -K.INF and best <= alpha)


@dataclass
class PvsConfig:
    threads: int = 1
    max_depth: int = 60
    width: int = 14  # moves kept at a quiet inner node on the tables
    net_width: int = 18  # ... when the net evaluates (its slower, better-ordered nodes: 54.7 % of 300 against 14)
    qdepth: int = 1  # fours the horizon's quiescence plays in a row (2 measured weaker: docs/search.md)
    prune: int = 1  # 1: depth-scaled selectivity (pvs.py); 0: only one or two plies off late quiet moves
    iteration_end: float = NEXT_ITERATION_END  # another iteration must be predicted to end by this share of the plan
    iteration_start: float = NEXT_ITERATION_SHARE  # ... unless it starts before this share of the plan
    lmr_scale: int = 100  # reduction = log(depth) * log(move number) * this / 100
    vct_depth: int = 0  # probe the threat search at nodes with at most this depth left (0: never)
    vct_nodes: int = 200  # threat-search nodes per probe
    lmr: bool = True  # late-move reductions (off for the plain `minimax` baseline)
    order: int = 0  # move ordering: 0 the hand-set class tables, 1 the trained tables (pvs.P_ORDER)
    sharp_time: bool = False  # a best move that changes with a mate score plans the whole budget
    eval_avg: int = 1  # 1: evaluate the mean of this and the previous position's pattern sums (pvs.P_EVAL_AVG)
    extend: int = 0  # the defence against an open three costs no depth: 1 everywhere, 2 at PV nodes (pvs.P_EXTEND)
    iir: int = 0  # nodes at least this deep without a hash move search one ply less, 0 off (pvs.P_IIR)
    mate_width: int = 0  # 1: past the width cut while every move so far loses by force (pvs.P_MATE_WIDTH)
    mated: int = 0  # 1: a root that sees itself lost goes on with mate_width, where the cut may have lied
    root_lmr: int = 1  # 1: the root's late quiet moves are searched shallower first (pvs.P_ROOT_LMR; docs/search.md)
    singular: int = 0  # singular extension from this remaining depth, 0 off (pvs.P_SINGULAR)
    singular_margin: int = 4  # units a ply below the hash move's value that make it singular (pvs.P_SINGULAR_MARGIN)
    cut_lmr: int = 0  # plies more off a late move at an expected cut node, 0 off (pvs.P_CUT_LMR)
    hist_lmr: int = 0  # 1: killers and the history, with a malus, steer reductions (pvs.P_HIST_LMR)
    tt_age: int = 0  # 1: entries of earlier searches give way in the depth-preferred slot (pvs.P_TT_GEN)
    latent: int = 0  # weight of the evaluation's latent-threat term, 0 off (pvs.P_LATENT)
    counter: int = 1  # 1: the counter-move heuristic orders quiet moves after the killers (pvs.P_COUNTER; docs/search.md)
    distract: int = 1  # 1: own fours far from both last moves, against an open three, reduced (pvs.P_DISTRACT; docs/search.md)
    net: int = 0  # 1: the network evaluation where the weights file has a net for the rule (k = 5), else the tables;
    # 2: only where it measured stronger (`neteval.network.STRONGER_RULES`), the engine's default
    net_policy: int = 0  # with net: the policy head's logit times this joins the move ordering's score (0: off)
    net_avg: int = 0  # with net: 1, the value head reads the mean of this and the previous position's pool (pvs.P_NET_AVG)
    static_margin: int = K.STATIC_CUT_MARGIN  # the static cut's margin a ply of remaining depth (pvs.P_STATIC_MARGIN)
    razor: int = 100  # the razor's margins in hundredths of `pvs.RAZOR_MARGIN` (pvs.P_RAZOR_SCALE)
    leaf_vcf: int = 0  # threat-search nodes a horizon node may spend on a VCF, 0 off (pvs.P_LEAF_VCF) ...
    leaf_vcf_fours: int = 3  # ... when its side to move has this many four-making squares (pvs.P_LEAF_VCF_FOURS) ...
    leaf_vcf_width: int = 0  # ... narrowed past its first four to this many near fours a node, 0 every four (pvs.P_LEAF_VCF_WIDTH)
    defence_cap: int = 0  # against an open three, at most this many moves (fewer near the horizon) once one holds, 0 all (pvs.P_DEFENCE_CAP)
    move_count: int = 0  # quiet nodes' move count: 0 ours (3 + depth ** 1.32, halved when not improving), 1 PentaZen's, wider near the horizon (pvs.P_MOVE_COUNT)


@dataclass
class PvsOutcome:
    move: int = -1
    score: int = 0
    depth: int = 0
    seldepth: int = 0
    nodes: int = 0
    ranked: list[int] = field(default_factory=list)
    pv: list[int] = field(default_factory=list)
    proven: int = 0
    stopped_by: str = ""
    seconds: float = 0.0
    threads: int = 1


class PvsSearcher:
    """Holds the transposition table (kept across the moves of a game) and runs one search a move."""

    def __init__(self, tt_bytes: int = 32 * 1024 * 1024, config: PvsConfig | None = None) -> None:
        self.config = config or PvsConfig()
        self.tt_bytes = tt_bytes
        self.tt = K.new_tt(tt_bytes)
        self.generation = 0  # the table's search counter when ageing (tt_age)

    def clear(self) -> None:
        self.tt = K.new_tt(self.tt_bytes)

    def _params(self, max_nodes: int) -> np.ndarray:
        p = K.default_params()
        p[K.P_WIDTH] = self.config.width
        p[K.P_QDEPTH] = self.config.qdepth
        p[K.P_PRUNE] = int(self.config.prune)
        p[K.P_LMR_SCALE] = int(self.config.lmr_scale)
        p[K.P_VCT_DEPTH] = self.config.vct_depth
        p[K.P_VCT_NODES] = self.config.vct_nodes
        p[K.P_ORDER] = self.config.order
        p[K.P_EVAL_AVG] = self.config.eval_avg
        p[K.P_EXTEND] = self.config.extend
        p[K.P_IIR] = self.config.iir
        p[K.P_MATE_WIDTH] = self.config.mate_width
        p[K.P_ROOT_LMR] = self.config.root_lmr
        p[K.P_SINGULAR] = self.config.singular
        p[K.P_SINGULAR_MARGIN] = self.config.singular_margin
        p[K.P_CUT_LMR] = self.config.cut_lmr
        p[K.P_HIST_LMR] = self.config.hist_lmr
        p[K.P_DISTRACT] = self.config.distract
        p[K.P_LATENT] = self.config.latent
        p[K.P_COUNTER] = self.config.counter
        p[K.P_NET] = self.config.net
        p[K.P_NET_POLICY] = self.config.net_policy
        p[K.P_NET_AVG] = self.config.net_avg
        p[K.P_LEAF_VCF] = self.config.leaf_vcf
        p[K.P_LEAF_VCF_FOURS] = self.config.leaf_vcf_fours
        p[K.P_LEAF_VCF_WIDTH] = self.config.leaf_vcf_width
        p[K.P_DEFENCE_CAP] = self.config.defence_cap
        p[K.P_MOVE_COUNT] = self.config.move_count
        p[K.P_STATIC_MARGIN] = self.config.static_margin
        p[K.P_RAZOR_SCALE] = self.config.razor
        if self.config.tt_age:
            self.generation = self.generation % 63 + 1
            p[K.P_TT_GEN] = self.generation
        if not self.config.lmr:  # the plain baseline: no reductions and no selectivity
            p[K.P_LMR_MIN] = K.MAX_MOVES  # no move index reaches it
            p[K.P_PRUNE] = 0
        p[K.P_MAX_NODES] = max_nodes
        return p

    def search(self, board, side: int, stop_array, *, soft_deadline: float | None, hard_deadline: float | None,
               allowed: list[int] | None = None, excluded=None, max_depth: int = 0, max_nodes: int = 0,
               on_iteration=None, sharp: bool = False, whole: bool = False) -> PvsOutcome:
        """Iterative deepening until the plan (``soft_deadline``) says stop. ``sharp`` (the root
        found the opponent's forced win, were it to move): plan nearly the whole hard budget and
        never shrink it; with ``config.sharp_time`` a best move that changes with a mate score makes
        the search sharp too. ``whole`` (time left over is worth nothing: no match clock): deepen
        until the hard deadline, whose last, unfinished iteration counts for the root moves it
        finished."""
        t_start = time.monotonic()
        whole = whole and hard_deadline is not None
        if whole:
            soft_deadline = hard_deadline
        if sharp and soft_deadline is not None and hard_deadline is not None:
            soft_deadline = max(soft_deadline, t_start + SHARP_SHARE * (hard_deadline - t_start))
        cfg = self.config
        out = PvsOutcome(threads=1)
        params = self._params(max_nodes)
        abort = np.zeros(1, dtype=np.int32)
        net = network_for(board, cfg.net)
        if net is not None:
            params[K.P_WIDTH] = cfg.net_width
        work = K.new_work(board, self.tt, params, abort, None if net is None else new_state(board, *net))
        buf = np.zeros(int(board.meta[M_SIZE]), dtype=np.int32)
        n = K.root_candidates(board, side, work, buf)
        root = [int(q) for q in buf[:n]]
        if allowed is not None:
            allow = set(allowed)
            root = [q for q in root if q in allow] + [q for q in allowed if q not in set(root)]
        if excluded:
            root = [q for q in root if q not in excluded] or root
        out.ranked = list(root)
        out.move = root[0] if root else -1
        if len(root) <= 1:
            out.stopped_by = "single"
            return out
        moves = np.array(root, dtype=np.int32)
        scores = np.zeros(len(root), dtype=np.int64)
        limit = max(1, min(max_depth or cfg.max_depth, K.MAX_PLY - 8))
        helper = None
        helper_stop = np.zeros(1, dtype=np.int32)
        helper_out: dict = {}
        hparams = params
        if cfg.threads > 1 and not max_nodes:
            hparams = params.copy()
            hboard = copy_board(board)
            hwork = K.new_work(hboard, self.tt, hparams, helper_stop, None if net is None else new_state(hboard, *net))
            helper = threading.Thread(target=self._helper, name="pvs-helper", daemon=True,
                                      args=(hboard, side, moves.copy(), hwork, limit, helper_out))
            out.threads = 2
        deadline = hard_deadline if hard_deadline is not None else soft_deadline
        if soft_deadline is not None:
            # an iteration started late may run past the plan, but not far: the cap
            cap = t_start + ABORT_STRETCH * max(0.0, soft_deadline - t_start)
            deadline = cap if deadline is None else min(deadline, cap)
            if sharp and hard_deadline is not None:
                deadline = hard_deadline
        prev_score = None
        stable = 0
        last_cost = 0.0  # seconds the last finished iteration took
        growth = 2.0  # the cost of an iteration over the one before it, as last seen
        dog = Watchdog(stop_array, deadline)
        with dog as wd:
            work = work._replace(stop=wd)
            if helper is not None:
                helper.start()
            for depth in range(1, limit + 1):
                iteration_start = time.monotonic()
                score = prev_score if prev_score is not None else 0
                if depth >= 5 and prev_score is not None and abs(prev_score) < K.WIN_BOUND:
                    alpha, beta = score - ASPIRATION, score + ASPIRATION
                else:
                    alpha, beta = -K.INF, K.INF
                while True:
                    best_i, best, done = K.search_root(board, side, depth, alpha, beta, moves, scores, len(root), work)
                    if done < len(root) and wd[0]:
                        break  # stopped
                    if best <= alpha and alpha > -K.INF:
                        alpha = -K.INF  # fail low: every move is worse than hoped
                        continue
                    if best >= beta and beta < K.INF:
                        beta = K.INF  # fail high
                        continue
                    break
                stopped = bool(wd[0]) and done < len(root)
                if not iteration_ranks(best_i, best, alpha, stopped):
                    out.stopped_by = "stop" if stop_array[0] else "deadline"
                    break
                changed = int(moves[best_i]) != out.move
                # best first, then the rest in the order of their (bound) scores
                order = [best_i] + sorted((i for i in range(len(root)) if i != best_i),
                                          key=lambda i: (i >= done, -int(scores[i])))
                moves[:] = moves[order]
                scores[:] = scores[order]
                out.move = int(moves[0])
                out.score = int(best)
                out.ranked = [int(q) for q in moves]
                if stopped:
                    out.stopped_by = "deadline" if not stop_array[0] else "stop"
                    break
                out.depth = depth
                if on_iteration is not None:
                    on_iteration(out)
                if abs(out.score) > K.WIN_BOUND:
                    out.proven = 1 if out.score > 0 else -1
                    if out.proven < 0 and cfg.mated and params[K.P_MATE_WIDTH] == 0:
                        # every root move loses, but the width cut of our own inner nodes may be the reason
                        params[K.P_MATE_WIDTH] = hparams[K.P_MATE_WIDTH] = 1
                    elif out.score > 0 or depth >= 12:
                        out.stopped_by = "proven"
                        break
                elif cfg.mated:
                    out.proven = 0  # a loss an earlier iteration claimed is gone
                if max_nodes and work.counter[K.K_NODES] >= max_nodes:
                    out.stopped_by = "nodes"
                    break
                stable = 0 if changed else stable + 1
                if (cfg.sharp_time and changed and abs(out.score) > K.WIN_BOUND and soft_deadline is not None
                        and hard_deadline is not None):
                    sharp = True  # the best move changed with a mate score: use the time
                    soft_deadline = max(soft_deadline, t_start + SHARP_SHARE * (hard_deadline - t_start))
                    dog.deadline = hard_deadline  # the watchdog reads it on every poll
                now = time.monotonic()
                cost = now - iteration_start
                if last_cost > 1e-3:
                    growth = min(GROWTH_MAX, max(GROWTH_MIN, cost / last_cost))
                last_cost = cost
                if soft_deadline is not None and not whole:
                    factor = 1.0
                    if changed and depth > 4:
                        factor = 1.4
                    elif stable >= 4 and not sharp:
                        factor = 0.8
                    if prev_score is not None and out.score < prev_score - 40:
                        factor = max(factor, 1.5)
                    plan = t_start + (soft_deadline - t_start) * factor
                    if hard_deadline is not None:
                        plan = min(plan, hard_deadline)
                    # one that runs long is cut at the cap and counts for the root moves it finished
                    if not another_iteration(now - t_start, plan - t_start, cost, growth, cfg.iteration_end,
                                             cfg.iteration_start):
                        out.stopped_by = "time"
                        break
                prev_score = out.score
            if helper is not None:
                helper_stop[0] = 1
                helper.join()
                if helper_out.get("depth", 0) > out.depth and helper_out.get("move", -1) >= 0 \
                        and abs(out.score) <= K.WIN_BOUND:
                    out.move, out.score, out.depth = helper_out["move"], helper_out["score"], helper_out["depth"]
                    out.ranked = [out.move] + [q for q in out.ranked if q != out.move]
        out.nodes = int(work.counter[K.K_NODES]) + int(helper_out.get("nodes", 0))
        out.seldepth = int(work.counter[K.K_SELDEPTH])
        out.seconds = time.monotonic() - t_start
        if out.move >= 0:
            out.pv = self.principal_variation(board, side, out.move)
        return out

    def _helper(self, board, side, moves, work, limit, out) -> None:
        """Lazy SMP: the same root on a board copy, one ply deeper than the main thread, filling the
        shared table with other lines; runs until its stop flag is raised."""
        n = len(moves)
        scores = np.zeros(n, dtype=np.int64)
        depth = 2
        while depth <= limit and not work.stop[0]:
            best_i, best, done = K.search_root(board, side, depth, -K.INF, K.INF, moves, scores, n, work)
            if best_i < 0 or done < n:
                break
            order = [best_i] + [i for i in range(n) if i != best_i]
            moves[:] = moves[order]
            out.update(depth=depth, move=int(moves[0]), score=int(best))
            if abs(int(best)) > K.WIN_BOUND:
                break
            depth += 1
        out["nodes"] = int(work.counter[K.K_NODES])

    def principal_variation(self, board, side: int, first: int, limit: int = 12) -> list[int]:
        """The hash moves from the root (the board is restored)."""
        from gomocup_bot.core.board import play, take

        pv: list[int] = []
        work = K.new_work(board, self.tt, K.default_params(), np.zeros(1, dtype=np.int32))
        q, c = first, side
        try:
            while q >= 0 and len(pv) < limit and int(board.cells[q]) == 0:
                play(board, q, c)
                pv.append(q)
                c = 3 - c
                found, _, _, _, mv = K.tt_probe(work, np.uint64(int(board.hash[0]) ^ c))
                q = int(mv) if found and mv > 0 else -1
        finally:
            for _ in pv:
                take(board)
        return pv
