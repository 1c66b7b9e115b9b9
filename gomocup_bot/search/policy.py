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
