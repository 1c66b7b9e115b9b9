"""The MCTS tree is sized from what the process holds when it is built, so a search never takes
the process past INFO max_memory (the manager's cap): with the net and two threads, a tree sized
from the nominal base alone passed a 333 MB cap in 8 games of 20."""
from __future__ import annotations

import numpy as np

from gomocup_bot.core.memory import current_rss
from gomocup_bot.engines.full import FullEngine
from gomocup_bot.search.adapter import MB, TREE_MARGIN_BYTES, memory_split, tree_bytes_within
from gomocup_bot.search.mcts import NODE_BYTES


def test_the_tree_takes_what_the_cap_leaves_past_the_resident_process():
    nominal, _ = memory_split(333 * MB)
    assert nominal == 96 * MB
    # 239 MB resident (the two-thread net MCTS before its tree): 78 MB are left for the tree
    assert tree_bytes_within(333 * MB, nominal, resident=239 * MB) == 333 * MB - 239 * MB - TREE_MARGIN_BYTES
    assert tree_bytes_within(350 * MB, nominal, resident=200 * MB) == nominal  # room: the nominal size
    assert tree_bytes_within(333 * MB, nominal, resident=330 * MB) == 8 * MB  # never below 8 MB ...
    assert tree_bytes_within(333 * MB, 5 * MB, resident=330 * MB) == 5 * MB  # ... nor above the split
    assert tree_bytes_within(0, nominal, resident=300 * MB) == nominal  # no limit given
    assert tree_bytes_within(333 * MB, nominal, resident=0) == nominal  # no reading (not Linux)


def test_an_engine_builds_its_tree_from_its_own_resident_size(monkeypatch):
    from gomocup_bot.core import memory

    engine = FullEngine(backend="mcts", threads="1")
    engine._searchers_for(0, mcts=True)  # loads the MCTS's kernels: the process's size now includes them
    assert engine._mcts.tree.capacity * NODE_BYTES > 90 * MB  # no limit: memory_split's 96 MB
    # a process bigger than a brain with the net and both threads' kernels (about 240 MB), under a
    # cap whose nominal split is the unlimited one's: the tree `prepare` built must be sized again
    ballast = np.ones(max(0, 300 * MB - current_rss()), dtype=np.uint8)
    cap = current_rss() + 40 * MB  # 340 MB here, more in a test worker that already holds more
    nominal, _ = memory_split(cap)
    assert nominal == memory_split(0)[0]
    # what the engine reads: the OS's figure itself, recorded. Readings taken before and after the
    # call do not bound it in a test worker that holds a gigabyte: the old tree given back inside
    # the call moved the process's size by tens of MB between the two
    seen: list[int] = []

    def recorded() -> int:
        seen.append(current_rss())
        return seen[-1]

    monkeypatch.setattr(memory, "current_rss", recorded)
    engine._searchers_for(cap, mcts=True)
    tree = engine._mcts.tree.capacity * NODE_BYTES
    assert tree < nominal - 8 * MB  # sized again, from the process
    assert len(seen) == 1 and 200 * MB < seen[0] < cap  # one real reading of this process
    assert cap - seen[0] - TREE_MARGIN_BYTES - MB <= tree <= cap - seen[0] - TREE_MARGIN_BYTES
    del ballast
