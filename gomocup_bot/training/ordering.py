"""The move-ordering tables, learned from the moves the searching brain chose.

The search orders a quiet node's candidates by a score per square: a value for the mover's code
there (attack) plus one for the opponent's code (defence), then history and killers. Here those two
tables are fitted as a softmax policy over the candidates of each position (the empty squares
within two of a stone, as the search generates them): P(q) ∝ exp(A[mover's code] + D[opponent's
code]), maximising the likelihood of the move the generating search played. Only plies past the
exploration window of `selfplay` count (there the search's own choice was played), and only
positions with nothing forced pending (the search orders those by other means).

The fitted logits are scaled to the hand-set tables' spread (`scale_to`), so history and killers
keep their weight beside them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gomocup_bot.core.board import new_board, play, to_pos
from gomocup_bot.core.constants import EMPTY
from gomocup_bot.core.evaltables import N_CANON, canonical_index
from gomocup_bot.training.features import RULE_CODES, WIN_BOUND, _board_squares, forced
from gomocup_bot.training.records import GameRecord
from gomocup_bot.training.selfplay import EXPLORE_PLIES


@dataclass
class Choices:
    own: np.ndarray  # int16[m]: each candidate's code for the mover
    opp: np.ndarray  # int16[m]: ... for the opponent
    start: np.ndarray  # int64[n + 1]: position i's candidates are own[start[i]:start[i + 1]]
    chosen: np.ndarray  # int64[n]: index (into own) of the move played
    game: np.ndarray  # int32[n]


def game_choices(rec: GameRecord):
    canon = canonical_index()
    b = new_board(rec.size, rec.size, 5, RULE_CODES[rec.rule])
    squares = _board_squares(b)
    out = []
    for i, (x, y) in enumerate(rec.move_list()):
        side = 1 + i % 2
        p = to_pos(b, x, y)
        value = rec.scores[i] if i < len(rec.scores) else None
        if i >= rec.opening + EXPLORE_PLIES and value is not None and abs(value) < WIN_BOUND:
            me, op = side - 1, 2 - side
            if not forced(b.cnt[me], b.cnt[op]):
                cand = squares[(b.cells[squares] == EMPTY) & (b.nbr[squares] > 0)]
                hit = np.nonzero(cand == p)[0]
                if len(hit):
                    out.append((canon[b.combo[me, cand]], canon[b.combo[op, cand]], int(hit[0])))
        play(b, p, side)
    return out


def choices_of(records) -> Choices:
    own, opp, start, chosen, game = [], [], [0], [], []
    for rec in records:
        for o, d, k in game_choices(rec):
            chosen.append(start[-1] + k)
            own.append(o)
            opp.append(d)
            start.append(start[-1] + len(o))
            game.append(rec.id)
    if not own:
        z = np.zeros(0, dtype=np.int16)
        return Choices(z, z, np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32))
    return Choices(np.concatenate(own).astype(np.int16), np.concatenate(opp).astype(np.int16),
                   np.array(start, dtype=np.int64), np.array(chosen, dtype=np.int64), np.array(game, dtype=np.int32))


def _log_softmax_loss(logits: np.ndarray, c: Choices) -> tuple[float, np.ndarray]:
    """(mean −log P(chosen), d loss / d logits)."""
    starts = c.start[:-1]
    mx = np.maximum.reduceat(logits, starts)
    seg = np.repeat(np.arange(len(starts)), np.diff(c.start))
    e = np.exp(logits - mx[seg])
    z = np.add.reduceat(e, starts)
    p = e / z[seg]
    loss = float(np.mean(np.log(z) + mx - logits[c.chosen]))
    g = p
    g[c.chosen] -= 1.0
    return loss, g / len(starts)


def fit(c: Choices, iters: int = 300, lr: float = 0.05, l2: float = 1e-5, log=print) -> tuple[np.ndarray, np.ndarray]:
    """(A, D) logits per canonical code, full-batch Adam."""
    w = np.zeros(2 * N_CANON)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    own, opp = c.own.astype(np.int64), c.opp.astype(np.int64) + N_CANON
    for it in range(1, iters + 1):
        logits = w[own] + w[opp]
        loss, g = _log_softmax_loss(logits, c)
        grad = np.bincount(own, weights=g, minlength=2 * N_CANON) + np.bincount(opp, weights=g, minlength=2 * N_CANON)
        grad += l2 * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w -= lr * (m / (1 - 0.9**it)) / (np.sqrt(v / (1 - 0.999**it)) + 1e-8)
        if it % 100 == 0 or it == iters:
            log(f"  ordering iteration {it}: loss {loss:.4f}")
    return w[:N_CANON], w[N_CANON:]


def loss_of(a: np.ndarray, d: np.ndarray, c: Choices) -> float:
    return _log_softmax_loss(a[c.own] + d[c.opp], c)[0]


def top1(a: np.ndarray, d: np.ndarray, c: Choices) -> float:
    """Share of positions whose played move the tables rank first."""
    logits = a[c.own] + d[c.opp]
    best = np.maximum.reduceat(logits, c.start[:-1])
    return float(np.mean(logits[c.chosen] >= best))


def scale_to(a: np.ndarray, d: np.ndarray, ref_a: np.ndarray, ref_d: np.ndarray, c: Choices) -> float:
    """The factor that gives the fitted scores the hand-set tables' spread over real candidates."""
    fitted = (a[c.own] + d[c.opp]).std()
    ref = (ref_a[c.own] + ref_d[c.opp]).std()
    return float(ref / fitted) if fitted > 0 else 1.0


def split(c: Choices, mask: np.ndarray) -> Choices:
    """The positions of ``c`` where ``mask`` holds."""
    idx = np.nonzero(mask)[0]
    lens = c.start[idx + 1] - c.start[idx]
    start = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    take = np.concatenate([np.arange(c.start[i], c.start[i + 1]) for i in idx]) if len(idx) else np.zeros(0, np.int64)
    return Choices(c.own[take], c.opp[take], start, start[:-1] + (c.chosen[idx] - c.start[idx]), c.game[idx])


def best_scale(a: np.ndarray, d: np.ndarray, c: Choices) -> float:
    """The factor that makes hand-set scores the best logits they can be (to report their loss fairly)."""
    grid = np.geomspace(1e-3, 1.0, 31)
    return float(grid[int(np.argmin([loss_of(a * k, d * k, c) for k in grid]))])
