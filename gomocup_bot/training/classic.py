"""The evaluation before training, as a weights file: every code valued by its threat class.

The hand-fitted class-count evaluation (13 weights per side, fitted by a logistic regression of game results on class counts) is the
special case of the pattern-code tables in which a code's value depends only on its threat class.
Written as a weights file it reproduces the old search node for node, which checks the
incremental sums, and it is the baseline the trained tables are measured against.
"""
from __future__ import annotations

import numpy as np

from gomocup_bot.core.classes import ATTACK_ORDER, DEFEND_ORDER, LINE_ORDER, N_CODES, classify
from gomocup_bot.core.evaltables import CANONICAL, N_THREAT, TABLE_NAMES, EvalTable, EvalWeights

# the fitted class weights that were the evaluation until the trained tables (docs/eval.md)
CLASS_SELF = np.array([0, 0, -3, -1, 6, 5, 5, 30, 43, 107, 58, 100, 581, 0, 0, 0], dtype=np.int64)
CLASS_OPP = np.array([0, 0, -3, -2, 5, 4, 6, 12, 35, 94, 43, 94, 223, 152, 0, 0], dtype=np.int64)
CLASS_TEMPO = -17


def canonical_counts() -> np.ndarray:
    """int[N_CANON, N_CODES]: how many of each line code a canonical code's four lines hold."""
    counts = np.zeros((len(CANONICAL), N_CODES), dtype=np.int32)
    for i, codes in enumerate(CANONICAL):
        for c in codes:
            counts[i, c] += 1
    return counts


def canonical_classes(renju_black: bool) -> np.ndarray:
    """The threat class of each canonical code."""
    return classify(canonical_counts(), renju_black)


def class_ordering() -> tuple[np.ndarray, np.ndarray]:
    """The hand-set ordering scores by code (`classes.combo_tables`' rows, by the plain class)."""
    counts = canonical_counts()
    plain = classify(counts, False)
    lines = (counts * LINE_ORDER[None, :]).sum(axis=1)
    return ATTACK_ORDER[plain] + lines, DEFEND_ORDER[plain] + lines


def classic_weights() -> EvalWeights:
    tables = {}
    attack, defend = class_ordering()
    for name in TABLE_NAMES:
        cls = canonical_classes(name == "renju-black")
        tables[name] = EvalTable(CLASS_SELF[cls], CLASS_OPP[cls], np.zeros(N_THREAT, dtype=np.int64), CLASS_TEMPO,
                                 attack, defend)
    return EvalWeights(tables, 250.0, {"source": "class-count weights (before training)"})
