"""Iterative deepening around the numba alpha-beta: depth by depth until the clock says stop.

Each iteration searches the root moves in the order the previous one ranked them (Lim: move
ordering from the previous iteration); the transposition table persists across iterations and
moves of one game. An iteration that the watchdog cuts short is thrown away, except that its
first move, when already searched completely and better than the previous best, is kept.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from gomocup_bot.search import alphabeta as AB
from gomocup_bot.search.clock import Watchdog
from gomocup_bot.search.heuristic import board_score, make_weights


@dataclass
class AbConfig:
    node_width: int = 14
    root_width: int = 0  # 0 = every candidate
    tempo: int = 30
    max_depth: int = 30
    threads: int = 1  # 2 = a helper thread shares the hash table (lazy SMP, numba releases the GIL)


@dataclass
class AbOutcome:
    move: int = -1
    score: int = 0
    depth: int = 0
    nodes: int = 0
    ranked: list[int] = field(default_factory=list)
    pv: list[int] = field(default_factory=list)
    proven: int = 0
    nodes_helper: int = 0
    stopped_by: str = ""


class AlphaBetaSearcher:
    """Holds the transposition table and Zobrist keys for one board geometry."""

    def __init__(self, tt_bytes: int = 64 * 1024 * 1024, config: AbConfig | None = None) -> None:
        self.config = config or AbConfig()
        self.tt = AB.make_tt(tt_bytes // AB.TT_ENTRY_BYTES)
        self._zob_size = -1
        self.zob = None
        self._weights: dict[int, tuple] = {}

    def clear(self) -> None:
        """Forget everything: a fresh (lazily zeroed) table, no page is touched here."""
        self.tt = AB.make_tt(self.tt[0].shape[0])

    def _zobrist(self, size: int):
        if size != self._zob_size:
            self.zob = AB.make_zobrist(size)
            self._zob_size = size
            self.clear()
        return self.zob

    def search(self, cells, near, geo, side: int, stop_array, *, soft_deadline: float | None,
               hard_deadline: float | None, allowed: list[int] | None = None,
               excluded: set[int] | None = None, max_depth: int = 0, max_nodes: int = 0,
               on_iteration=None) -> AbOutcome:
        cfg = self.config
        k = int(geo[3])
        if k not in self._weights:
            self._weights[k] = make_weights(k)
        att, dfn, brd = self._weights[k]
        zob = self._zobrist(cells.shape[0])
        hkey = np.zeros(1, dtype=np.uint64)
        for p in np.nonzero((cells == 1) | (cells == 2))[0]:
            hkey[0] ^= zob[int(cells[p]), int(p)]
        ev = np.zeros(1, dtype=np.float64)
        ev[0] = board_score(cells, geo, brd)
        params = np.zeros(4, dtype=np.int64)
        params[AB.P_NODE_WIDTH] = cfg.node_width
        params[AB.P_ROOT_WIDTH] = cfg.root_width
        params[AB.P_TEMPO] = cfg.tempo

        size = cells.shape[0]
        moves = np.zeros(size, dtype=np.int64)
        scores = np.zeros(size, dtype=np.float64)
        n = AB.ordered_moves(cells, near, geo, side, att, dfn, moves, scores, cfg.root_width)
        root = [int(m) for m in moves[:n]]
        if allowed is not None:
            allow = set(allowed)
            kept = [m for m in root if m in allow]
            root = kept + [m for m in allowed if m not in set(kept)]
        if excluded:
            kept = [m for m in root if m not in excluded]
            root = kept or root
        out = AbOutcome(move=root[0] if root else -1, ranked=list(root))
        if len(root) <= 1:
            out.stopped_by = "single"
            return out
        root_moves = np.array(root, dtype=np.int64)
        root_scores = np.zeros(len(root), dtype=np.int64)
        counter = np.zeros(2, dtype=np.int64)
        counter[1] = max_nodes
        limit = max_depth or cfg.max_depth
        last_iter = 0.0
        helper = None
        helper_stop = np.zeros(1, dtype=np.int32)
        helper_out: dict = {}
        if cfg.threads > 1 and max_nodes == 0:
            helper = threading.Thread(
                target=self._helper,
                args=(cells.copy(), near.copy(), geo.copy(), side, root_moves.copy(), hkey.copy(), ev.copy(),
                      att, dfn, brd, zob, params, helper_stop, max_depth or cfg.max_depth, helper_out),
                name="alphabeta-helper", daemon=True)
        with Watchdog(stop_array, hard_deadline if soft_deadline is None else min(soft_deadline, hard_deadline or soft_deadline)) as abort:
            if helper is not None:
                helper_stop[0] = 0
                helper.start()
            for depth in range(1, limit + 1):
                t0 = time.monotonic()
                if soft_deadline is not None and depth > 2:
                    # an iteration costs several times the previous one: do not start what cannot end
                    if t0 + 2.0 * last_iter > soft_deadline:
                        out.stopped_by = "soft"
                        break
                best_i = AB.search_root(cells, near, geo, side, depth, root_moves, root_scores, len(root),
                                        zob, hkey, ev, att, dfn, brd, *self.tt, params, abort, counter)
                last_iter = time.monotonic() - t0
                if best_i < 0:
                    out.stopped_by = "stop" if stop_array[0] else "deadline"
                    break
                order = np.argsort(-root_scores[:len(root)], kind="stable")
                root_moves[:len(root)] = root_moves[order]
                root_scores[:len(root)] = root_scores[order]
                out.move = int(root_moves[0])
                out.score = int(root_scores[0])
                out.depth = depth
                out.ranked = [int(m) for m in root_moves[:len(root)]]
                if on_iteration is not None:
                    on_iteration(out)
                if abs(out.score) > AB.WIN_BOUND:
                    out.proven = 1 if out.score > 0 else -1
                    if out.score > 0 or all(int(s) < -AB.WIN_BOUND for s in root_scores[:len(root)]):
                        out.stopped_by = "proven"
                        break
                if max_nodes and counter[0] >= max_nodes:
                    out.stopped_by = "nodes"
                    break
            if helper is not None:
                helper_stop[0] = 1
                helper.join()
                # a deeper finished iteration of the helper is worth more than ours
                if helper_out.get("depth", 0) > out.depth and helper_out.get("move", -1) >= 0:
                    out.move, out.score, out.depth = helper_out["move"], helper_out["score"], helper_out["depth"]
                    out.ranked = [out.move] + [m for m in out.ranked if m != out.move]
                out.nodes_helper = helper_out.get("nodes", 0)
        out.nodes = int(counter[0]) + getattr(out, "nodes_helper", 0)
        if out.move >= 0:
            out.pv = self.principal_variation(cells, near, geo, side, out.move, hkey)
        return out

    def _helper(self, cells, near, geo, side, root_moves, hkey, ev, att, dfn, brd, zob, params, stop, limit, out):
        """Lazy-SMP helper: its own board copy, the shared table, one ply ahead of the main thread so
        the two threads fill the table with different lines. Runs until ``stop`` is raised."""
        n = len(root_moves)
        scores = np.zeros(n, dtype=np.int64)
        counter = np.zeros(2, dtype=np.int64)
        depth = 1
        while depth <= limit and not stop[0]:
            d = depth + 1
            best_i = AB.search_root(cells, near, geo, side, d, root_moves, scores, n,
                                    zob, hkey, ev, att, dfn, brd, *self.tt, params, stop, counter)
            if best_i < 0:
                break
            order = np.argsort(-scores[:n], kind="stable")
            root_moves[:n] = root_moves[order]
            scores[:n] = scores[order]
            out.update(depth=d, move=int(root_moves[0]), score=int(scores[0]))
            if abs(int(scores[0])) > AB.WIN_BOUND:
                break
            depth += 1
        out["nodes"] = int(counter[0])

    def principal_variation(self, cells, near, geo, side: int, first: int, hkey, limit: int = 10) -> list[int]:
        """Follow the hash moves from the root (the board is restored before returning)."""
        from gomocup_bot.search.board import place, remove

        zob = self.zob
        key_arr, val_arr, depth_arr, flag_arr, move_arr = self.tt
        mask = key_arr.shape[0] - 1
        key = int(hkey[0])
        pv: list[int] = []
        p, c = first, side
        try:
            while p >= 0 and len(pv) < limit and int(cells[p]) == 0:
                place(cells, near, geo, p, c)
                pv.append(p)
                key ^= int(zob[c, p])
                c = 3 - c
                slot = key & mask
                check = int(AB.tt_mix(val_arr[slot], depth_arr[slot], flag_arr[slot], move_arr[slot]))
                p = int(move_arr[slot]) if (int(key_arr[slot]) ^ check) == key else 0
                p = p if p > 0 else -1
        finally:
            for q in reversed(pv):
                remove(cells, near, geo, q)
        return pv
