"""Which net plays a board: the process's weights, loaded once, and the rule's net if it has one."""
from __future__ import annotations

import threading

from gomocup_bot.core.constants import M_K, M_RULE, M_TABLE, RULE_EXACT, RULE_FREESTYLE, RULE_RENJU

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
    """(weights, the rule's net) for a k = 5 table board whose rule has a net, else None (the
    tables evaluate: other win lengths, caro, or a file without that rule)."""
    if int(board.meta[M_K]) != 5 or not int(board.meta[M_TABLE]):
        return None
    name = RULE_NETS.get(int(board.meta[M_RULE]))
    if name is None:
        return None
    w = weights()
    net = w.rules.get(name)
    return None if net is None else (w, net)
