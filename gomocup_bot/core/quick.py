"""The quick move: one-ply tactics in a single GIL-free kernel, for the brain under overload.

When every search slot of the server is busy, a session still has to answer inside its budget.
The pure-Python `greedy` engine holds the GIL for milliseconds per move, which at dozens of games
on two cores is what makes moves late; `quick_move` does the same job in one `nogil` numba call:

1. my five (win-in-1);
2. else block the opponent's five (legal squares only; with two or more, block one: lost anyway);
3. else my open four / double four / four-three;
4. else the defence set against the opponent's open three (blocks that leave no open four, plus my
   own fours);
5. else the best candidate by `move_score`;
6. else any legal square (everything near is excluded or a renju foul).

Never a renju foul for black, never an excluded (YXBLOCK) square while another empty one is legal.
Everything is decided by the core's own kernels (threats, candidates, rules): this is an ordering
of them, not another rules implementation.

The Python side (`choose`) only turns an `engine.Position` into arrays and copies a cached empty
board per (size, k, rule), so the GIL is held for a few microseconds. `load_cached()` loads the
kernels from numba's on-disk cache and refuses to compile: a game must never pay a JIT compile,
so the brain keeps `greedy` until `is_ready()`.
"""
from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

import numpy as np
from numba import njit

from .board import Board, block, copy_board, make, new_board, pos_x, pos_y, rule_code, to_pos
from .candidates import ordered_candidates
from .constants import BLACK, EMPTY, M_HEIGHT, M_WIDTH, RULE_EXACT, RULE_FREESTYLE, RULE_RENJU, WALL, WHITE
from .patterns import move_score, sync_patterns
from .rules import is_legal
from .threats import defence_points, threat_moves, win_points

log = logging.getLogger(__name__)

# what decided the move (the kernel's first return value)
Q_BAD_STONES = -1  # a stone off the board, on an occupied square, or of an unknown colour
Q_FULL = 0  # no empty square left
Q_WIN = 1
Q_BLOCK = 2
Q_ATTACK = 3
Q_DEFEND = 4
Q_BEST = 5
Q_ANY = 6

LAYER_NAMES = {Q_WIN: "win", Q_BLOCK: "block", Q_ATTACK: "attack", Q_DEFEND: "defend", Q_BEST: "best", Q_ANY: "any"}


# ---------------------------------------------------------------------------------------- kernel


@njit(cache=True, nogil=True)
def _place_stones(b, stones):
    """Play `stones` (rows x, y, colour; colour 3 = blocked) in order; False on a bad stone."""
    w = b.meta[M_WIDTH]
    h = b.meta[M_HEIGHT]
    for i in range(stones.shape[0]):
        x, y, colour = stones[i, 0], stones[i, 1], stones[i, 2]
        if not (0 <= x < w and 0 <= y < h):
            return False
        p = to_pos(b, x, y)
        if b.cells[p] != EMPTY:
            return False
        if colour == BLACK or colour == WHITE:
            make(b, p, colour)
        elif colour == WALL:
            block(b, p)
        else:
            return False
    return True


@njit(cache=True, nogil=True)
def _excluded_mask(b, excluded):
    """A per-point flag array: 1 on YXBLOCK squares (off-board entries are ignored)."""
    mask = np.zeros(b.cells.shape[0], dtype=np.int8)
    for i in range(excluded.shape[0]):
        x, y = excluded[i, 0], excluded[i, 1]
        if 0 <= x < b.meta[M_WIDTH] and 0 <= y < b.meta[M_HEIGHT]:
            mask[to_pos(b, x, y)] = 1
    return mask


@njit(cache=True, nogil=True)
def _keep(b, colour, pts, n, mask, check_legal):
    """Drop excluded points (and, when asked, illegal ones) from pts[:n] in place; returns the count."""
    m = 0
    for j in range(n):
        p = pts[j]
        if mask[p] or (check_legal and not is_legal(b, p, colour)):
            continue
        pts[m] = p
        m += 1
    return m


@njit(cache=True, nogil=True)
def _emit_ranked(b, colour, pts, n, scores, out):
    """Sort pts[:n] by `move_score` (best first, ties in board order) and write the first
    len(out) of them to out as (x, y); returns how many were written."""
    for i in range(n):
        scores[i] = move_score(b, colour, pts[i])
    for i in range(1, n):
        p = pts[i]
        s = scores[i]
        j = i - 1
        while j >= 0 and scores[j] < s:
            pts[j + 1] = pts[j]
            scores[j + 1] = scores[j]
            j -= 1
        pts[j + 1] = p
        scores[j + 1] = s
    m = min(n, out.shape[0])
    for i in range(m):
        _write_xy(b, pts[i], out, i)
    return m


@njit(cache=True, nogil=True)
def _write_xy(b, p, out, i):
    out[i, 0] = pos_x(b, p)
    out[i, 1] = pos_y(b, p)


@njit(cache=True, nogil=True)
def _best_legal(b, colour, pts, scores, mask, out):
    """The first len(out) legal, non-excluded candidates by score (renju checks only as needed)."""
    n = ordered_candidates(b, colour, pts, scores)
    m = 0
    for j in range(n):
        if m >= out.shape[0]:
            break
        p = pts[j]
        if mask[p] == 0 and is_legal(b, p, colour):
            _write_xy(b, p, out, m)
            m += 1
    return m


@njit(cache=True, nogil=True)
def _any_square(b, colour, mask, out):
    """Last resort, in board order: a legal non-excluded square, else a non-excluded one, else any."""
    w = b.meta[M_WIDTH]
    h = b.meta[M_HEIGHT]
    for level in range(3):
        for y in range(h):
            for x in range(w):
                p = to_pos(b, x, y)
                if b.cells[p] != EMPTY:
                    continue
                if level < 2 and mask[p]:
                    continue
                if level == 0 and not is_legal(b, p, colour):
                    continue
                out[0, 0] = x
                out[0, 1] = y
                return 1
    return 0


@njit(cache=True, nogil=True)
def quick_move(template, stones, excluded, colour, out):
    """The quick move for `colour` on `template` (an empty board) plus `stones` (int32 rows x, y, c).

    `excluded`: int32 rows (x, y) never to play while another empty square is legal. Writes up to
    len(out) distinct moves, best first, as (x, y) rows of `out`. Returns (layer Q_*, count, proven)
    where proven is +1 for a win now, -1 when the opponent has a five we cannot stop, else 0.
    """
    b = copy_board(template)
    if not _place_stones(b, stones):
        return Q_BAD_STONES, 0, 0
    sync_patterns(b)
    size = b.meta[M_WIDTH] * b.meta[M_HEIGHT] + 1
    pts = np.empty(size, dtype=np.int32)
    scores = np.empty(size, dtype=np.int64)
    mask = _excluded_mask(b, excluded)
    opp = 3 - colour

    n = _keep(b, colour, pts, win_points(b, colour, pts), mask, False)  # a five wins, foul or not
    if n > 0:
        return Q_WIN, _emit_ranked(b, colour, pts, n, scores, out), 1
    threats = win_points(b, opp, pts)
    n = _keep(b, colour, pts, threats, mask, True)
    proven = -1 if threats >= 2 or (threats == 1 and n == 0) else 0
    if n > 0:
        return Q_BLOCK, _emit_ranked(b, colour, pts, n, scores, out), proven
    n = _keep(b, colour, pts, threat_moves(b, colour, pts), mask, False)  # already legal
    if n > 0:
        return Q_ATTACK, _emit_ranked(b, colour, pts, n, scores, out), proven
    n = _keep(b, colour, pts, defence_points(b, colour, pts), mask, False)  # already legal
    if n > 0:
        return Q_DEFEND, _emit_ranked(b, colour, pts, n, scores, out), proven
    m = _best_legal(b, colour, pts, scores, mask, out)
    if m > 0:
        return Q_BEST, m, proven
    m = _any_square(b, colour, mask, out)
    return (Q_ANY if m > 0 else Q_FULL), m, proven


# ---------------------------------------------------------------------------------------- Python side


@dataclass(frozen=True)
class QuickAnswer:
    """What the kernel decided: the layer (Q_*), the moves best first, and the proven flag."""

    layer: int
    moves: list[tuple[int, int]]
    proven: int

    @property
    def layer_name(self) -> str:
        return LAYER_NAMES.get(self.layer, str(self.layer))


@lru_cache(maxsize=32)
def _template(width: int, height: int, k: int, rule: int) -> Board:
    """An empty board per (size, k, rule), built once (numpy Zobrist keys, pattern table) and
    copied by the kernel: building one costs far more than the move itself."""
    return new_board(width, height, k, rule)


def decide(position, excluded=frozenset(), nbest: int = 1) -> QuickAnswer:
    """The quick move for `position.to_move`. Raises ValueError on a board the core does not take
    (sizes outside 3..32), on bad stones, and when no empty square is left (as `greedy.choose`)."""
    rule = rule_code(position.rules)
    return decide_codes(position.width, position.height, position.win_length, rule, position.stones, position.to_move, excluded, nbest)


def decide_codes(width: int, height: int, k: int, rule: int, stones, to_move: int, excluded=frozenset(), nbest: int = 1) -> QuickAnswer:
    """`decide` on plain values: `rule` is a kernel rule code (RULE_*), `stones` (x, y, colour) triples."""
    template = _template(width, height, k, rule)
    stones = np.array(stones, dtype=np.int32).reshape(-1, 3)
    blocked = np.array(sorted(excluded), dtype=np.int32).reshape(-1, 2)
    out = np.zeros((max(1, min(int(nbest), width * height)), 2), dtype=np.int32)
    layer, count, proven = quick_move(template, stones, blocked, int(to_move), out)
    if layer == Q_BAD_STONES:
        raise ValueError("a stone is off the board, doubly placed or of an unknown colour")
    if layer == Q_FULL:
        raise ValueError("no empty square left")
    moves = [(int(out[i, 0]), int(out[i, 1])) for i in range(count)]
    return QuickAnswer(int(layer), moves, int(proven))


def choose(position, excluded=frozenset(), nbest: int = 1) -> dict:
    """The quick move as `SearchResult` fields, like `engines.greedy.choose` (move, proven, alternatives)."""
    answer = decide(position, excluded, nbest)
    return {"move": answer.moves[0], "proven": answer.proven, "alternatives": answer.moves}


# ---------------------------------------------------------------------------------------- loading

_ready = False
_load_lock = threading.Lock()


def is_ready() -> bool:
    """Has the quick move run once in this process (so every kernel it needs is loaded)?"""
    return _ready


def warm_quick() -> None:
    """Run the quick move on small positions of every rule family: compiles (or loads from numba's
    cache) the kernel, the empty-board builders and both k = 5 pattern tables."""
    global _ready
    stones = ((4, 4, BLACK), (5, 4, WHITE), (4, 5, BLACK), (0, 0, WALL))
    for rule in (RULE_FREESTYLE, RULE_RENJU, RULE_EXACT):
        decide_codes(9, 9, 5, rule, stones, WHITE, frozenset({(6, 6)}), 2)
    _ready = True


class _CompileRefused(RuntimeError):
    """Raised inside numba when loading would have meant compiling."""


@contextmanager
def _no_compile_in_this_thread() -> Iterator[None]:
    """Make numba raise `_CompileRefused` instead of compiling anything in the calling thread.

    Cache hits never fire numba's "numba:compile" event; only a real compile does, in the thread
    that compiles. Other threads' compiles are left alone.
    """
    from numba.core import event

    me = threading.get_ident()

    class Refuse(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            if threading.get_ident() == me:
                raise _CompileRefused(f"{ev.data.get('dispatcher') if isinstance(ev.data, dict) else ev.data} is not in numba's cache")

        def on_end(self, ev: event.Event) -> None:
            pass

    with event.install_listener("numba:compile", Refuse()):
        yield


def load_cached() -> bool:
    """Load the quick move's kernels from numba's on-disk cache, never compiling; True when ready.

    False when something is missing from the cache (`gomocup-bot warmup` fills it): the caller
    keeps using `greedy` for quick moves rather than spend seconds of a game compiling.
    """
    with _load_lock:
        if _ready:
            return True
        started = time.perf_counter()
        try:
            with _no_compile_in_this_thread():
                warm_quick()
        except _CompileRefused as exc:
            log.info("quick move not loaded: %s", exc)
            return False
        log.info("quick move loaded from numba's cache in %.3f s", time.perf_counter() - started)
        return True
