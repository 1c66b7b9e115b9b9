"""Which net plays a board: the process's weights, loaded once, and the rule's net if it has one."""
from __future__ import annotations

import threading

from gomocup_bot.core.constants import M_HEIGHT, M_K, M_RULE, M_TABLE, M_WIDTH, RULE_EXACT, RULE_FREESTYLE, RULE_RENJU

from .weights import NetWeights, RuleNet, load

RULE_NETS = {RULE_FREESTYLE: "freestyle", RULE_EXACT: "standard", RULE_RENJU: "renju"}  # caro: the tables

_lock = threading.Lock()
_loaded: dict[str, NetWeights] = {}


def weights() -> NetWeights:
    """The weights ($GOMOCUP_BOT_NET or the package's file), read on first use (raises
    `weights.NetWeightsError` for a missing or bad file)."""
    with _lock:
        if "w" not in _loaded:
            _loaded["w"] = load()
        return _loaded["w"]


def network_for(board) -> tuple[NetWeights, RuleNet] | None:
    """(weights, the rule's net) for a k = 5 table board whose rule has a net and whose size the
    net was trained on (``NetWeights.boards``), else None: the tables evaluate (other win
    lengths, caro, a file without that rule, other board sizes: a 15 × 15 net lost its first
    seven games on 20 × 20, docs/eval.md)."""
    if int(board.meta[M_K]) != 5 or not int(board.meta[M_TABLE]):
        return None
    name = RULE_NETS.get(int(board.meta[M_RULE]))
    if name is None:
        return None
    w = weights()
    if (int(board.meta[M_WIDTH]), int(board.meta[M_HEIGHT])) not in w.boards:
        return None
    net = w.rules.get(name)
    return None if net is None else (w, net)
