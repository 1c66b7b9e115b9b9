"""The net computed from the cells alone, in plain numpy: the yardstick of the kernels.

Nothing here is incremental or shared with `state`: the windows are read off a padded copy of the
board, the sums built from the codebook, the pool and both heads evaluated in float64 from the
same integer sums. Tests compare the kernels' state and outputs with it; the trainer compares its
own forward pass with it after an export.
"""
from __future__ import annotations

import numpy as np

from .weights import MASK_BITS, N_WINDOWS, WINDOW_HALF, NetWeights, RuleNet

K = WINDOW_HALF  # cells on each side of a square in a window
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (-1, 1))  # (dx, dy) of the board's four lines, in its order
OFFSETS = tuple(range(-K, 0)) + tuple(range(1, K + 1))  # digit j of a window is the cell at OFFSETS[j]


def windows(cells: np.ndarray, colour: int) -> np.ndarray:
    """int64[4, h, w]: each square's window number per line for side ``colour`` (1 black, 2 white):
    digit 1 its own stone, 2 the opponent's or a wall (the edge, a blocked square = 3), 0 empty."""
    h, w = cells.shape
    pad = np.full((h + 2 * K, w + 2 * K), 2, dtype=np.int64)
    inner = np.where(cells == colour, 1, np.where(cells == 0, 0, 2))
    pad[K:K + h, K:K + w] = inner
    out = np.zeros((4, h, w), dtype=np.int64)
    for d, (dx, dy) in enumerate(DIRECTIONS):
        for j, off in enumerate(OFFSETS):
            out[d] += pad[K + off * dy:K + off * dy + h, K + off * dx:K + off * dx + w] * 3 ** j
    return out


def sums(net: RuleNet, cells: np.ndarray, view: int) -> np.ndarray:
    """int64[h, w, F]: every square's codebook sum for side ``view`` (0 black, 1 white) to move."""
    win = windows(cells, view + 1)
    assert win.max() < N_WINDOWS
    cb = np.asarray(net.codebook[int(net.cbsel[view])], dtype=np.int64)
    return cb[win].sum(axis=0)


def pool(weights: NetWeights, net: RuleNet, cells: np.ndarray, view: int) -> np.ndarray:
    """int64[F]: Σ over empty squares of clip(sum, 0, S) − clip(4 · row 0, 0, S)."""
    s = weights.act_scale
    act = np.clip(sums(net, cells, view), 0, s)
    act0 = np.clip(4 * np.asarray(net.codebook[int(net.cbsel[view])][0], dtype=np.int64), 0, s)
    empty = cells == 0
    return (act[empty] - act0).sum(axis=0)


def logit(weights: NetWeights, net: RuleNet, cells: np.ndarray, view: int, mask: int, tables: float = 0.0) -> float:
    """The value head's logit for side ``view`` to move with threat mask ``mask`` and the tables'
    static value ``tables`` (evaluation units)."""
    base = pool(weights, net, np.zeros_like(cells), view)
    return _head(weights, net, pool(weights, net, cells, view) - base, view, mask, tables)


def logit_mean(weights: NetWeights, net: RuleNet, cells: np.ndarray, before: np.ndarray, view: int, mask: int,
               tables: float = 0.0) -> float:
    """`logit` on the mean of the pools of ``cells`` and ``before`` (the position a move earlier),
    both seen by side ``view``."""
    base = pool(weights, net, np.zeros_like(cells), view)
    both = pool(weights, net, cells, view) + pool(weights, net, before, view) - 2 * base
    return _head(weights, net, both / 2.0, view, mask, tables)


def _head(weights: NetWeights, net: RuleNet, pooled: np.ndarray, view: int, mask: int, tables: float) -> float:
    """The value head on ``pooled`` (the pool less the empty board's, in the integer units)."""
    x = pooled / (weights.act_scale * weights.pool_norm)
    bits = np.array([(mask >> t) & 1 for t in range(MASK_BITS)], dtype=np.float64)
    inp = np.concatenate([x, bits])
    hid = np.maximum(np.asarray(net.w1[view], np.float64) @ inp + np.asarray(net.b1[view], np.float64), 0.0)
    return float(np.asarray(net.w2[view], np.float64) @ hid + float(net.b2[view])
                 + float(net.tw[view]) * tables / weights.scale)


def policy(weights: NetWeights, net: RuleNet, cells: np.ndarray, view: int) -> np.ndarray:
    """float64[h, w]: the policy head's logit of every square (meaningful on the empty ones)."""
    act = np.clip(sums(net, cells, view), 0, weights.act_scale) / weights.act_scale
    return act @ np.asarray(net.wp[view], np.float64) + float(net.bp[view])


def random_weights(feature: int = 8, hidden: int = 8, seed: int = 0, rules=("freestyle",),
                   two_codebooks: tuple[str, ...] = ("renju",)) -> NetWeights:
    """Weights with random values of a plausible size (tests: a net whose every part matters)."""
    rng = np.random.default_rng(seed)
    out = NetWeights(feature, hidden, act_scale=256, pool_norm=16.0, scale=250.0, notes={"random": seed})
    for name in rules:
        cbs = 2 if name in two_codebooks else 1
        out.rules[name] = RuleNet(
            cbsel=np.array([0, cbs - 1], dtype=np.int8),
            codebook=rng.integers(-200, 200, size=(cbs, N_WINDOWS, feature)).astype(np.int16),
            w1=rng.normal(0, 0.5, size=(2, hidden, feature + MASK_BITS)).astype(np.float32),
            b1=rng.normal(0, 0.1, size=(2, hidden)).astype(np.float32),
            w2=rng.normal(0, 0.5, size=(2, hidden)).astype(np.float32),
            b2=rng.normal(0, 0.1, size=2).astype(np.float32),
            wp=rng.normal(0, 1.0, size=(2, feature)).astype(np.float32),
            bp=rng.normal(0, 0.1, size=2).astype(np.float32),
            tw=rng.normal(1.0, 0.2, size=2).astype(np.float32),
        )
    return out
