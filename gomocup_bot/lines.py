"""Former home of the brain's pure-Python rules, which now live in `protocol.judge`.

Only the names other code still imports are kept (tests/brain/test_baseline_engines.py); new code
imports `protocol.judge`.
"""
from __future__ import annotations

from protocol.judge import Board as Grid
from protocol.judge import renju_foul

__all__ = ["Grid", "renju_foul"]
