"""One set of self-play games for the training tests: generating them is the slow part (two
worker processes loading their kernels), so both files share it."""
from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.fixture(scope="session")
def games(tmp_path_factory):
    """Twelve self-play games at a small node budget, seed 5 (the fit under test needs about 100
    positions with nothing forced pending; these give more), each move capped at 0.2 s: the root's
    defence otherwise deepens for seconds in sharp positions, and the games' length depends on the
    evaluation (12 games took 65 s with the class weights, 168 s with the trained tables)."""
    out = tmp_path_factory.mktemp("selfplay") / "games.jsonl"
    proc = subprocess.run([sys.executable, "-m", "gomocup_bot", "selfplay", "--out", str(out), "--games", "12",
                           "--workers", "2", "--nodes", "1500", "--root-nodes", "3000", "--move-seconds", "0.2", "--seed", "5"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out
