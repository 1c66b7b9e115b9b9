"""The kernels an engine warms before its first move are all that its searches run.

A kernel left cold compiles inside a game: seconds of the turn and, with LLVM's memory, over the
manager's memory cap (a net MCTS with the tree-parallel helper lost a game that way when its
shared-tree kernel took the net's state type). Each case runs in a fresh process, so what other
tests compiled cannot hide a gap: the engine prepares, then every numba kernel's compiled
signatures are counted before and after a few searches."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]

_PROBE = r"""
import json, sys
from numba.core.registry import CPUDispatcher
from gomocup_bot.engine import BLACK, WHITE, Position, SearchLimits, SearchRequest, StopFlag
from gomocup_bot.engines.full import FullEngine
from protocol.rules import FREESTYLE

def compiled():
    out = {}
    for name, mod in list(sys.modules.items()):
        if name.startswith("gomocup_bot."):
            for attr, obj in vars(mod).items():
                if isinstance(obj, CPUDispatcher):
                    out[f"{obj.py_func.__module__}.{attr}"] = len(obj.signatures)
    return out

engine = FullEngine(**json.loads(sys.argv[1]))
engine.prepare()
if engine.backend == "auto" and engine.mcts_from < 0.3:
    engine.prepare_mcts()  # what its first MCTS move loads
before = compiled()
stones = [(7, 7, BLACK), (8, 8, WHITE), (8, 6, BLACK), (6, 8, WHITE)]
for extra in ([], [(9, 7, BLACK), (6, 6, WHITE)]):
    pos = Position(15, 15, FREESTYLE, tuple(stones + extra), BLACK)
    engine.search(SearchRequest(pos, SearchLimits.from_budget(0.3, 0.6)), StopFlag())
after = compiled()
print(json.dumps(sorted(k for k, n in after.items() if n > before.get(k, 0))))
"""

CASES = {
    "the default engine": {},
    "the net PVS": {"net": "1"},
    "backend=auto's MCTS (a long move on one thread)": {"backend": "auto", "mcts_from": "0.1", "threads": "1"},
    "the default MCTS": {"backend": "mcts"},
    "the net MCTS": {"backend": "mcts", "net": "1"},
    "the net MCTS, root-parallel helper": {"backend": "mcts", "net": "1", "threads": "2", "parallel": "root"},
    "the net MCTS, tree-parallel helper": {"backend": "mcts", "net": "1", "threads": "2", "parallel": "tree"},
    "the MCTS, tree-parallel helper": {"backend": "mcts", "threads": "2", "parallel": "tree"},
}


@pytest.mark.parametrize("options", list(CASES.values()), ids=list(CASES))
def test_a_prepared_engine_compiles_nothing_in_its_searches(options):
    run = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(options)], capture_output=True, text=True,
                         timeout=900, cwd=REPO)
    assert run.returncode == 0, run.stderr[-3000:]
    assert json.loads(run.stdout.strip().splitlines()[-1]) == [], "compiled in a search after prepare()"
