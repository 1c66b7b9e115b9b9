"""Which net plays a board: the process's weights, loaded once, and the rule's net if it has one."""
from __future__ import annotations

import threading

from gomocup_bot.core.constants import M_HEIGHT, M_K, M_RULE, M_TABLE, M_WIDTH, RULE_EXACT, RULE_FREESTYLE, RULE_RENJU

from .weights import TRAINED_BOARDS, NetWeights, RuleNet, load

RULE_NETS = {RULE_FREESTYLE: "freestyle", RULE_EXACT: "standard", RULE_RENJU: "renju"}  # caro: the tables

# The option ``net``: 0 the tables everywhere; 1 the net wherever the weights file has one for the
# board; 2 (the engine's default) the net only for the rules whose net played stronger than the
# tables (``STRONGER_RULES``), the tables elsewhere.
NET_OFF, NET_ON, NET_AUTO = 0, 1, 2
# freestyle: 59.3 % of 300 games against the tables' brain at 1 s, 57.5 % of 100 at 5 s + 120 s;
# exact five: the freestyle net itself (the file's standard net is a copy of it) beat the tables'
# brain at 1 s, where a net trained on exact-five games alone scored 48 %; renju's nets scored
# 48 % and 36 %, so renju keeps the tables unless asked (docs/eval.md has the figures)
STRONGER_RULES = frozenset({"freestyle", "standard"})

_lock = threading.Lock()
_loaded: dict[str, NetWeights] = {}


def weights() -> NetWeights:
    """The weights ($GOMOCUP_BOT_NET or the package's file), read on first use (raises
    `weights.NetWeightsError` for a missing or bad file)."""
    with _lock:
        if "w" not in _loaded:
            _loaded["w"] = load()
        return _loaded["w"]


def network_for(board, mode: int = NET_ON) -> tuple[NetWeights, RuleNet] | None:
    """(weights, the rule's net) for a k = 5 table board whose rule has a net trained on its size
    (``RuleNet.boards``; a rule may have one net for 15 × 15 and another for 20 × 20), else None:
    the tables evaluate (other win lengths, caro, a file without that rule, other board sizes: a
    15 × 15 net lost its first seven games on 20 × 20, docs/eval.md). ``mode``: the option
    ``net`` (`NET_AUTO`: only the rules in `STRONGER_RULES`; `NET_OFF`: None without reading the
    file)."""
    if mode == NET_OFF or int(board.meta[M_K]) != 5 or not int(board.meta[M_TABLE]):
        return None
    name = RULE_NETS.get(int(board.meta[M_RULE]))
    if name is None or (mode == NET_AUTO and name not in STRONGER_RULES):
        return None
    w = weights()
    net = w.net_for(name, int(board.meta[M_WIDTH]), int(board.meta[M_HEIGHT]))
    return None if net is None else (w, net)


def net_board() -> tuple[int, int]:
    """A (width, height) the freestyle net plays (the warm-up builds the net's kernels there);
    reads the weights, so a missing or bad file raises `weights.NetWeightsError` here."""
    net = weights().rules.get("freestyle")
    return net.boards[0] if net is not None else TRAINED_BOARDS[0]
