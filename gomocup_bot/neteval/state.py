"""The net's numba kernels: accumulators kept beside a board, updated on a move and its take-back.

Per side to move (a *view*: black's or white's; the board's keys hold both colours' window
numbers, `core.board`) and per square q, ``acc[view, q]`` is the sum over q's four lines of the
codebook row its window indexes (int16, exact: the file bounds every entry so that four fit;
in int16 lanes a move and its take-back cost a third less than in int32). The board's windows
hold five cells on each side; the net's hold four (`window_of`: 3**8 rows, a codebook that stays
in the core's cache; the fifth cell decides overlines and a few long shapes, which the threat
classes and the mask tell). The square's features are ``clip(acc, 0, S)``
(S = the file's ``act_scale`` stands for 1.0); ``pool[view]`` is the sum over the empty squares
of their features minus those of a square with no stone on its lines (``act0``), so a square far
from every stone adds nothing and the pool does not grow with the board. The value head reads
``(pool - base) / (S · pool_norm)``, ``base`` being the pool of the empty board of this size
(the walls' share), and the threat mask's eleven bits.

A move changes the net's windows of at most 4 × 8 squares; `net_play` (called after
`core.board.play`) adds each one's new codebook row and takes off the old one, and updates the
pool by the change of its clipped features, saving each square's sums first (``saved``, ``savedq``,
``top`` by move number); `net_take` (after `core.board.take`) copies the saved sums back and
restores the pool from ``hist`` (the pool before each move). Occupied squares are not
updated: with strictly last-in-first-out play and take-back their sums are exact again when their
stone is taken back, as the board's own pattern layer does it.

The row arithmetic (a square's sums, the saved copies, the pool, the head's first layer) is
`lanes`'s: whole-row vector steps on flat offsets, with the plain loops' values.

The kernels compile without reference counting (``_nrt=False``) like the search's, so they take
every array they write from the state and allocate nothing.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from gomocup_bot.core.board import new_board
from gomocup_bot.core.constants import EMPTY, M_HEIGHT, M_NMOVES, M_PAD, M_RULE, M_SIZE, M_STRIDE, M_WIDTH, TABLE_MAX_K

from .lanes import axpy_row, copy_row, shift_row, unpool_row
from .weights import MASK_BITS, N_WINDOWS, WINDOW_HALF, NetWeights, RuleNet

assert WINDOW_HALF == 4 and TABLE_MAX_K == 5  # `window_of` cuts the board's fifth cells off

NetState = namedtuple("NetState", ["cb", "sel", "acc", "pool", "hist", "base", "act0", "w1t", "b1", "w2", "b2",
                                   "wp", "bp", "tw", "h", "conf", "saved", "savedq", "top"])


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def window_of(half):
    """The net's window number from one colour's half of a board key (ten cells, digit j the
    cell at offset j - 5, or j - 4 past the square): the middle eight digits (unsigned: no sign
    fix-up of Python's floor division)."""
    return (np.uint64(half) // np.uint64(3)) % np.uint64(N_WINDOWS)


SAVED_PER_MOVE = 4 * 2 * WINDOW_HALF  # squares whose net windows a stone changes (at most)

# conf: the file's scales as float64 (numba freezes module globals, the state carries them)
C_ACT = 0  # act_scale: the integer standing for 1.0
C_INV = 1  # 1 / (act_scale * pool_norm): pool units to the head's input
C_SCALE = 2  # evaluation units a logit
C_LEN = 3


def new_state(board, weights: NetWeights, net: RuleNet) -> NetState:
    """A state for ``board`` (k = 5, a table board) with one rule's ``net``, refreshed from the
    board's keys. The pool base is the empty board's of the same size."""
    feature = weights.feature
    size = int(board.meta[M_SIZE])
    rows = int(board.meta[M_WIDTH]) * int(board.meta[M_HEIGHT]) + 1
    conf = np.zeros(C_LEN, dtype=np.float64)
    conf[C_ACT] = weights.act_scale
    conf[C_INV] = 1.0 / (weights.act_scale * weights.pool_norm)
    conf[C_SCALE] = weights.scale
    cb = np.ascontiguousarray(net.codebook, dtype=np.int16)
    sel = np.asarray(net.cbsel, dtype=np.int64)
    act0 = np.zeros((2, feature), dtype=np.int32)
    for view in range(2):
        act0[view] = np.clip(4 * cb[sel[view], 0].astype(np.int32), 0, weights.act_scale)
    f32 = np.float32
    st = NetState(cb, sel, np.zeros((2, size, feature), dtype=np.int16), np.zeros((2, feature), dtype=np.int32),
                  np.zeros((rows, 2, feature), dtype=np.int32), np.zeros((2, feature), dtype=np.int32), act0,
                  np.ascontiguousarray(np.swapaxes(net.w1, 1, 2), dtype=f32), np.ascontiguousarray(net.b1, dtype=f32),
                  np.ascontiguousarray(net.w2, dtype=f32), np.ascontiguousarray(net.b2, dtype=f32),
                  np.ascontiguousarray(net.wp, dtype=f32), np.ascontiguousarray(net.bp, dtype=f32),
                  np.ascontiguousarray(net.tw, dtype=f32),
                  np.zeros(weights.hidden, dtype=f32), conf,
                  np.zeros((rows * SAVED_PER_MOVE, 2, feature), dtype=np.int16),
                  np.zeros(rows * SAVED_PER_MOVE, dtype=np.int64), np.zeros(rows + 1, dtype=np.int64))
    shape = (id(net), int(board.meta[M_WIDTH]), int(board.meta[M_HEIGHT]), int(board.meta[M_RULE]))
    cached = _BASES.get(shape)
    if cached is None or cached[0] is not net:  # (an id can be reused by a later net)
        refresh(st, new_board(shape[1], shape[2], 5, shape[3]))
        cached = _BASES[shape] = (net, st.pool.copy())
    st.base[:, :] = cached[1]
    refresh(st, board)
    return st


# the empty board's pool by (net, width, height, rule), with the net itself to tell a reused id
_BASES: dict[tuple[int, int, int, int], tuple[RuleNet, np.ndarray]] = {}


@njit(cache=True, nogil=True)
def refresh(n, b):
    """Every square's sums and the pool from the board's keys, from scratch (a search's start)."""
    feature = n.acc.shape[2]
    s_act = np.int32(n.conf[C_ACT])
    n.pool[:, :] = 0
    nm = b.meta[M_NMOVES]
    n.top[nm] = 0
    w = b.meta[M_WIDTH]
    for y in range(b.meta[M_HEIGHT]):
        base = (y + b.meta[M_PAD]) * b.meta[M_STRIDE] + b.meta[M_PAD]
        for q in range(base, base + w):
            for view in range(2):
                c = n.sel[view]
                for f in range(feature):
                    n.acc[view, q, f] = 0
                for d in range(4):
                    key = b.keys[d, q]
                    half = (key & 0xFFFFFFFF) if view == 0 else (key >> 32)
                    row = window_of(half)
                    for f in range(feature):
                        n.acc[view, q, f] += n.cb[c, row, f]
                if b.cells[q] == EMPTY:
                    for f in range(feature):
                        a = min(max(n.acc[view, q, f], 0), s_act)
                        n.pool[view, f] += a - n.act0[view, f]
    if nm > 0:  # the pool "before the last move" at the root is the root's own (no mean there)
        for view in range(2):
            for f in range(feature):
                n.hist[nm - 1, view, f] = n.pool[view, f]


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def _acc_at(n, view, q):
    """The flat offset of square q's sums for side ``view`` in ``n.acc`` (what the vector lanes,
    `lanes`, index by)."""
    return (np.int64(view) * np.int64(n.acc.shape[1]) + np.int64(q)) * np.int64(n.acc.shape[2])


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def _shift_view(n, view, q, new, old, s_act, sp):
    """One side to move's sums of square q: saved at ``sp`` first, codebook row ``new`` in,
    ``old`` out, and the pool by the change of the square's clipped features (`lanes.shift_row`,
    on flat offsets into the state's arrays)."""
    feature = np.int64(n.acc.shape[2])
    rows = np.int64(n.cb.shape[1])
    c = np.int64(n.sel[view])
    shift_row(n.acc, _acc_at(n, view, q), n.saved, (sp * 2 + view) * feature,
              n.cb, (c * rows + new) * feature, (c * rows + old) * feature, n.pool, view * feature, s_act, feature)


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def _shift(n, q, key, d0, d1, s_act, sp):
    """Square q's window numbers on one line are now ``key``'s; they were ``d0`` / ``d1`` less
    (black's / white's half). Its sums as they were go to the saved rows at ``sp``."""
    n.savedq[sp] = q
    w0 = np.int64(window_of(key & 0xFFFFFFFF))
    w1 = np.int64(window_of(key >> 32))
    _shift_view(n, 0, np.int64(q), w0, w0 - d0, s_act, np.int64(sp))
    _shift_view(n, 1, np.int64(q), w1, w1 - d1, s_act, np.int64(sp))


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def _around(n, b, p, colour, s_act, sp):
    """`_shift` for every empty square whose net window holds p (a ``colour`` stone just put
    there); the squares five away keep their window. The stone changes one digit of the window
    (its offsets are inside it), so a window number grows by the board key's change over three.
    Returns the saved rows' new top."""
    ci = colour - 1
    kd = b.kdelta
    cells = b.cells
    s16 = np.int16(s_act)
    for i in range(1, WINDOW_HALF + 1):
        ka = np.int64(kd[ci, TABLE_MAX_K - 1 + i])  # p is i steps after q
        kb = np.int64(kd[ci, TABLE_MAX_K - i])  # p is i steps before q
        a0 = (ka & 0xFFFFFFFF) // 3
        a1 = (ka >> 32) // 3
        b0 = (kb & 0xFFFFFFFF) // 3
        b1 = (kb >> 32) // 3
        for d in range(4):
            s = b.dirs[d]
            keys = b.keys[d]
            q = p - i * s
            if cells[np.uint64(q)] == EMPTY:
                _shift(n, q, keys[np.uint64(q)], a0, a1, s16, sp)
                sp += 1
            q = p + i * s
            if cells[np.uint64(q)] == EMPTY:
                _shift(n, q, keys[np.uint64(q)], b0, b1, s16, sp)
                sp += 1
    return sp


@njit(cache=True, nogil=True, _nrt=False)
def net_play(n, b, p, colour):
    """After `core.board.play(b, p, colour)`: the sums of the squares whose windows the stone
    changed (their rows as they were saved for `net_take`), the pool (p leaves it), and the pool
    as it was kept in ``hist``."""
    feature = np.int64(n.acc.shape[2])
    s_act = np.int32(n.conf[C_ACT])
    m = np.int64(b.meta[M_NMOVES] - 1)
    for view in range(2):
        unpool_row(n.pool, view * feature, n.hist, (m * 2 + view) * feature,
                   n.acc, _acc_at(n, view, p), n.act0, s_act, feature)
    n.top[m + 1] = _around(n, b, p, colour, s_act, n.top[m])


@njit(cache=True, nogil=True, _nrt=False)
def net_take(n, b, p, colour):
    """After `core.board.take(b)` freed p (a ``colour`` stone): the saved sums back, the pool from
    ``hist``. Copying the rows back costs less than computing them again: the codebook (420 kB)
    does not stay in the first-level cache, the saved rows of the last moves do."""
    feature = np.int64(n.acc.shape[2])
    m = np.int64(b.meta[M_NMOVES])
    copy_row(n.pool, 0, n.hist, m * 2 * feature, 2 * feature)
    for k in range(n.top[m], n.top[m + 1]):
        q = np.int64(n.savedq[k])
        for view in range(2):
            copy_row(n.acc, _acc_at(n, view, q), n.saved, (k * 2 + view) * feature, feature)


@njit(cache=True, nogil=True, fastmath=True, _nrt=False)
def net_logit(n, view, mask, tables):
    """The value head for side ``view`` (0 black, 1 white) to move, as a logit of its winning;
    ``tables``: the tables' static value of the position (evaluation units), weighted by ``tw``."""
    return _head(n, view, mask, tables, -1)


@njit(cache=True, nogil=True, fastmath=True, _nrt=False)
def net_logit_mean(n, view, mask, tables, prev):
    """`net_logit` on the mean of this position's pool and ``hist[prev]``'s (the pool before move
    number ``prev``, seen by the same side), as the tables' ``eval_avg`` averages their sums:
    it damps the swing of a value read by the side to move from one ply to the next."""
    return _head(n, view, mask, tables, prev)


@njit(cache=True, nogil=True, fastmath=True, forceinline=True, _nrt=False)
def _head(n, view, mask, tables, prev):
    """The value head on the pool (``prev`` < 0) or on its mean with ``hist[prev]``.
    The hidden layer is built input by input from the transposed first layer (``w1t``, one row of
    hidden weights an input): each step is one multiply-add over the hidden units the compiler
    vectorises, with no sum across lanes, and a mask bit that is not set costs nothing. (A dot
    product a hidden unit over the 43 inputs took 0.6 µs an evaluation, most of a net node's
    extra cost beside its make and take-back.)"""
    feature = n.acc.shape[2]
    h = n.h
    hidden = np.int64(h.shape[0])
    inputs = np.int64(n.w1t.shape[1])
    at = np.int64(view) * inputs * hidden  # the view's first layer in the flat w1t
    copy_row(h, 0, n.b1, np.int64(view) * hidden, hidden)
    inv = np.float32(n.conf[C_INV])
    if prev >= 0:
        inv = inv * np.float32(0.5)
    for f in range(feature):
        if prev >= 0:
            xf = np.float32(n.pool[view, f] + n.hist[prev, view, f] - 2 * n.base[view, f]) * inv
        else:
            xf = np.float32(n.pool[view, f] - n.base[view, f]) * inv
        axpy_row(h, xf, n.w1t, at + f * hidden, hidden)
    for t in range(MASK_BITS):
        if (mask >> t) & 1:
            axpy_row(h, np.float32(1.0), n.w1t, at + (feature + t) * hidden, hidden)
    w2 = n.w2[view]
    out = np.float32(n.b2[view]) + n.tw[view] * np.float32(tables / n.conf[C_SCALE])
    for j in range(hidden):
        if h[j] > 0:
            out += w2[j] * h[j]
    return out


@njit(cache=True, nogil=True, _nrt=False)
def net_value(n, view, mask, tables):
    """The value head in evaluation units (the search's scale), rounded."""
    return np.int64(np.round(net_logit(n, view, mask, tables) * n.conf[C_SCALE]))


@njit(cache=True, nogil=True, _nrt=False)
def net_value_mean(n, view, mask, tables, prev):
    """`net_logit_mean` in evaluation units, rounded."""
    return np.int64(np.round(net_logit_mean(n, view, mask, tables, prev) * n.conf[C_SCALE]))


@njit(cache=True, nogil=True, _nrt=False)
def net_policy(n, view, q):
    """The policy head's score (a logit) of empty square q for side ``view`` to move."""
    feature = n.acc.shape[2]
    s_act = np.int32(n.conf[C_ACT])
    inv = np.float32(1.0 / n.conf[C_ACT])
    s = n.bp[view]
    acc = n.acc[view, np.uint64(q)]
    wp = n.wp[view]
    for f in range(feature):
        s += wp[f] * (np.float32(min(max(acc[f], 0), s_act)) * inv)
    return s
