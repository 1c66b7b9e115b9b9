"""Final-move selection at the root, and the difficulty levels for human play.

Final move (Lim's criteria): a proven win first; never a proven loss while anything else is
left; then ``robust`` (most visits, the default -- least noisy), ``max`` (best mean value) or
``max-robust`` (the child that is best on both; when they disagree the driver keeps searching
until the deadline and then falls back to robust).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ROBUST, MAX, MAX_ROBUST = "robust", "max", "max-robust"
FINAL_POLICIES = (ROBUST, MAX, MAX_ROBUST)


def root_children(tree) -> range:
    f = int(tree.first[0])
    n = int(tree.nch[0])
    return range(f, f + n) if f >= 0 else range(0)


def child_mean(tree, i: int) -> float:
    v = int(tree.visits[i])
    return float(tree.wsum[i]) / v if v else -2.0


def ranked_children(tree, excluded_flag: int = 4) -> list[int]:
    """Root children, best first: proven wins, then by visits, proven losses last."""
    kids = [i for i in root_children(tree) if not (int(tree.flags[i]) & excluded_flag)]

    def key(i: int):
        proven = int(tree.proven[i])
        return (-proven, -int(tree.visits[i]), -child_mean(tree, i))

    return sorted(kids, key=key)


def choose_final(tree, policy: str = ROBUST, temperature: float = 0.0, rng=None) -> tuple[int, bool]:
    """Index of the chosen root child and whether robust and max agree (for max-robust).

    ``temperature`` > 0 samples a child with probability proportional to visits^(1/T) among the
    children that are not proven lost (the low difficulty levels).
    """
    kids = [i for i in root_children(tree) if not (int(tree.flags[i]) & 4)]
    if not kids:
        return -1, True
    wins = [i for i in kids if int(tree.proven[i]) == 1]
    if wins:
        return wins[0], True
    alive = [i for i in kids if int(tree.proven[i]) != -1] or kids
    robust = max(alive, key=lambda i: (int(tree.visits[i]), child_mean(tree, i)))
    visited = [i for i in alive if int(tree.visits[i]) > 0] or alive
    best_mean = max(visited, key=lambda i: (child_mean(tree, i), int(tree.visits[i])))
    agree = robust == best_mean
    if temperature > 0.0 and len(alive) > 1:
        rng = rng or np.random.default_rng()
        v = np.array([max(int(tree.visits[i]), 0) for i in alive], dtype=np.float64) + 1e-9
        w = v ** (1.0 / temperature)
        return alive[int(rng.choice(len(alive), p=w / w.sum()))], agree
    if policy == MAX:
        return best_mean, agree
    return robust, agree


@dataclass(frozen=True)
class Level:
    """One difficulty step: share of the time budget, a sampling temperature, a node-budget cap."""

    number: int
    time_share: float
    temperature: float
    max_iterations: int  # 0 = no cap


# level 1 plays quickly and loosely; the top level is the full-strength brain
LEVELS: dict[int, Level] = {
    1: Level(1, 0.05, 1.0, 200),
    2: Level(2, 0.10, 0.6, 1_000),
    3: Level(3, 0.25, 0.3, 5_000),
    4: Level(4, 0.50, 0.1, 30_000),
    5: Level(5, 1.00, 0.0, 0),
}
TOP_LEVEL = max(LEVELS)


def level(number: int | None) -> Level:
    """The level for a `--level` value (clamped into 1..TOP_LEVEL; None = full strength)."""
    if number is None:
        return LEVELS[TOP_LEVEL]
    return LEVELS[min(max(int(number), 1), TOP_LEVEL)]


class RootView:
    """Root children of one or more trees merged by move, shaped like a `Tree` (node 0 the root,
    children 1..n) so the functions above read it unchanged.

    Root parallelism (one tree per thread) decides on the sum: visits and value sums add up,
    a proof found in any tree holds for the move (proofs are facts about the position), flags
    are joined.
    """

    def __init__(self, move, visits, wsum, proven, flags, root_visits: int) -> None:
        n = len(move)
        self.move = np.concatenate((np.array([-1], dtype=np.int64), np.asarray(move, dtype=np.int64)))
        self.visits = np.concatenate((np.array([root_visits], dtype=np.int64), np.asarray(visits, dtype=np.int64)))
        self.wsum = np.concatenate((np.zeros(1), np.asarray(wsum, dtype=np.float64)))
        self.proven = np.concatenate((np.zeros(1, dtype=np.int8), np.asarray(proven, dtype=np.int8)))
        self.flags = np.concatenate((np.zeros(1, dtype=np.int8), np.asarray(flags, dtype=np.int8)))
        self.first = np.array([1 if n else -1], dtype=np.int64)
        self.nch = np.array([n], dtype=np.int64)
        self.proven[0] = root_proof(self.proven[1:], self.flags[1:])

    def index_of(self, move: int) -> int:
        hits = np.nonzero(self.move[1:] == move)[0]
        return int(hits[0]) + 1 if len(hits) else -1


def root_proof(child_proven, child_flags, excluded_flag: int = 4) -> int:
    """The root's MCTS-solver value (from the opponent's side, as stored in a tree): -1 when a
    child is a proven win, +1 when every child left is a proven loss, else 0."""
    alive = (np.asarray(child_flags) & excluded_flag) == 0
    pv = np.asarray(child_proven)[alive]
    if len(pv) == 0:
        return 0
    if (pv == 1).any():
        return -1
    if (pv == -1).all():
        return 1
    return 0


def merged_root(trees, size: int) -> RootView:
    """One `RootView` over the root children of ``trees`` (same root position, any child order)."""
    base = next((t for t in trees if int(t.nch[0]) > 0), trees[0])
    f, n = int(base.first[0]), int(base.nch[0])
    if f < 0 or n <= 0:
        return RootView([], [], [], [], [], sum(int(t.visits[0]) for t in trees))
    sl = slice(f, f + n)
    moves = base.move[sl].astype(np.int64)
    visits = base.visits[sl].astype(np.int64)
    wsum = base.wsum[sl].astype(np.float64)
    proven = base.proven[sl].copy()
    flags = base.flags[sl].copy()
    others = [t for t in trees if t is not base and int(t.nch[0]) > 0 and int(t.first[0]) >= 0]
    if others:
        where = np.full(size, -1, dtype=np.int64)
        where[moves] = np.arange(n)
        for t in others:
            f2, n2 = int(t.first[0]), int(t.nch[0])
            sl2 = slice(f2, f2 + n2)
            idx = where[t.move[sl2]]
            ok = idx >= 0
            i = idx[ok]
            visits[i] += t.visits[sl2][ok]
            wsum[i] += t.wsum[sl2][ok]
            p2 = t.proven[sl2][ok]
            proven[i] = np.where(proven[i] != 0, proven[i], p2)
            flags[i] |= t.flags[sl2][ok]
    return RootView(moves, visits, wsum, proven, flags, sum(int(t.visits[0]) for t in trees))
