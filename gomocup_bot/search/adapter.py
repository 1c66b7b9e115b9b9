"""Glue between the engine contract (`gomocup_bot.engine`) and the search kernels.

Everything an engine needs around a search: the board view of a `Position`, a legal fallback
move, deadlines scaled by the difficulty level, memory sizing from ``INFO max_memory``, the
YXBLOCK exclusions as padded indices, and the `SearchResult` with its legality re-checked.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np

from gomocup_bot.engine import Move, SearchInfo, SearchRequest, SearchResult

log = logging.getLogger(__name__)

MB = 1024 * 1024
# what Python, numpy, numba and LLVM take before any table (measured peak RSS after warm load)
BASE_PROCESS_BYTES = 170 * MB


def renju_fouls(board) -> set[int]:
    """Black's forbidden squares on core board ``board``, by the core's exact renju check; empty
    unless the rule is renju."""
    from gomocup_bot.core.rules import forbidden_points

    try:
        out = np.zeros(int(board.cells.shape[0]), dtype=np.int32)
        n = forbidden_points(board, out)
        return {int(q) for q in out[:n]}
    except Exception:  # noqa: BLE001 -- a core failure must not cost the move; log it loudly
        log.exception("renju foul check failed; black's fouls are not filtered this move")
        return set()


@dataclass
class Budget:
    soft: float
    hard: float
    max_nodes: int
    max_depth: int


def deadlines(request: SearchRequest, time_share: float = 1.0) -> Budget:
    """The request's deadlines, the soft one shrunk to ``time_share`` of the time left."""
    lim = request.limits
    now = time.monotonic()
    soft = now + max(0.0, lim.soft_deadline - now) * time_share
    hard = min(lim.hard_deadline, max(soft, now))
    if time_share >= 1.0:
        hard = lim.hard_deadline
    return Budget(soft=min(soft, hard), hard=hard, max_nodes=lim.max_nodes, max_depth=lim.max_depth)


# room for what a search needs beside its tree and what the process already holds (the root
# checks' and the quiescence's arrays, a helper thread's board and net state; four 5 s moves of the
# two-thread net MCTS grew the process by its tree's bytes and no more)
TREE_MARGIN_BYTES = 16 * MB


def tree_bytes_within(max_memory: int, tree_bytes: int, resident: int | None = None) -> int:
    """The MCTS tree's bytes: `memory_split`'s, but no more than ``max_memory`` leaves past what the
    process holds now (``resident``, read from the OS if None) and `TREE_MARGIN_BYTES`. Called with
    the search's kernels loaded, where `BASE_PROCESS_BYTES` is too little: the net MCTS on two
    threads held 230-240 MB before its tree and passed a 333 MB cap in 8 games of 20 (333.1-333.8 MB).
    No limit given, or no reading, leaves ``tree_bytes``; never less than 8 MB (or ``tree_bytes``)."""
    if not max_memory or max_memory <= 0:
        return tree_bytes
    from gomocup_bot.core.memory import current_rss

    used = current_rss() if resident is None else resident
    if used <= 0:
        return tree_bytes
    return min(tree_bytes, max(8 * MB, max_memory - used - TREE_MARGIN_BYTES))


def memory_split(max_memory: int) -> tuple[int, int]:
    """(tree bytes, hash-table bytes) that keep the process under ``max_memory`` (0 = unlimited)."""
    tree, table = 96 * MB, 32 * MB
    if max_memory and max_memory > 0:
        spare = max(8 * MB, max_memory - BASE_PROCESS_BYTES)
        tree = min(tree, int(spare * 0.6))
        table = min(table, int(spare * 0.25))
    return tree, table


class BoardView:
    """The request's position on the core board (the one board every search uses), its squares as
    the kernels index them, and conversions both ways."""

    def __init__(self, request: SearchRequest) -> None:
        from gomocup_bot.core.board import board_from_position
        from gomocup_bot.core.constants import M_PAD, M_STRIDE

        pos = request.position
        self.position = pos
        self.side = pos.to_move
        self.board = board_from_position(pos)
        self.cells, self.near = self.board.cells, self.board.nbr
        # plain-Python index arithmetic (`core.board.to_pos`'s): no kernel call per conversion
        self._pad, self._stride = int(self.board.meta[M_PAD]), int(self.board.meta[M_STRIDE])
        self.excluded = {self.index((x, y)) for x, y in request.excluded
                         if 0 <= x < pos.width and 0 <= y < pos.height}
        # renju: black's fouls are illegal, not merely avoided (judged by the engine core)
        self.forbidden = renju_fouls(self.board) if (pos.rules.renju and self.side == 1) else set()
        self.excluded |= self.forbidden

    def index(self, move: Move) -> int:
        return (int(move[1]) + self._pad) * self._stride + int(move[0]) + self._pad

    def xy(self, p: int) -> Move:
        y, x = divmod(int(p), self._stride)
        return x - self._pad, y - self._pad

    def is_legal(self, p: int) -> bool:
        return 0 <= p < self.cells.shape[0] and int(self.cells[p]) == 0 and p not in self.forbidden

    def fallback(self) -> int:
        """A legal square, not excluded if avoidable: the centre, else the first candidate."""
        empties = [int(p) for p in np.nonzero(self.cells == 0)[0] if int(p) not in self.forbidden]
        if not empties:
            return -1
        allowed = [p for p in empties if p not in self.excluded] or empties
        c = self.index((self.position.width // 2, self.position.height // 2))
        if c in allowed:
            return c
        near = [p for p in allowed if self.near[p] > 0]
        return (near or allowed)[0]


def make_result(view: BoardView, p: int, *, proven: int = 0, winrate: float | None = None,
                depth: int = 0, nodes: int = 0, pv=(), alternatives=(), nbest: int = 1,
                score: int | None = None) -> SearchResult:
    """A `SearchResult` for square p, replaced by the fallback if p is not a legal choice."""
    if not view.is_legal(p) or (p in view.excluded and view.fallback() not in view.excluded):
        log.warning("search produced an unusable square %s; using the fallback", p)
        p = view.fallback()
    if p < 0:
        raise RuleViolation("no empty square left")
    alts = [p] + [int(a) for a in alternatives if int(a) != p and view.is_legal(int(a))
                  and int(a) not in view.excluded]
    return SearchResult(
        move=view.xy(p),
        proven=proven,
        winrate=winrate,
        depth=depth,
        nodes=nodes,
        pv=tuple(view.xy(int(q)) for q in pv if int(q) >= 0),
        alternatives=[view.xy(a) for a in alts[:max(1, nbest)]],
        score=score,
    )


def pad_alternatives(result: SearchResult, view: BoardView, extra: list[int], nbest: int) -> SearchResult:
    """YXNBEST wants n moves even when fewer survive the root checks: losing ones go last."""
    if len(result.alternatives) < nbest:
        more = [view.xy(p) for p in extra if p not in view.excluded and view.is_legal(p)]
        more = [m for m in more if m not in result.alternatives]
        result.alternatives = (result.alternatives + more)[:max(1, nbest)]
    return result


class RuleViolation(RuntimeError):
    """The position leaves no move at all (a full board)."""


def summary_text(engine: str, view: BoardView, *, depth: int, nodes: int, winrate: float | None,
                 pv, seconds: float, extra: str = "") -> str:
    """The one-line search summary for `MESSAGE` (show_detail 2): depth, nodes, winrate, PV."""
    wr = "-" if winrate is None else f"{100.0 * winrate:.1f}%"
    line = " ".join(f"{x},{y}" for x, y in (view.xy(int(p)) for p in pv if int(p) >= 0))
    nps = int(nodes / seconds) if seconds > 0 else 0
    text = f"{engine} depth {depth} nodes {nodes} ({nps}/s) winrate {wr} time {seconds * 1000:.0f} ms pv {line or '-'}"
    return text + (f" {extra}" if extra else "")


def report(request: SearchRequest, kind: str, view: BoardView | None = None, p: int = -1, **kw) -> None:
    """Send a `SearchInfo` to the GUI side if it asked for it; never lets a reporting error escape."""
    if request.report is None:
        return
    try:
        move = view.xy(p) if (view is not None and p >= 0) else None
        request.report(SearchInfo(kind=kind, move=move, **kw))
    except Exception:  # noqa: BLE001 -- a broken reporter must not cost the move
        log.exception("info reporter failed")
