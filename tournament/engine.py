"""Drive any Gomocup brain from Python: the engine API, in the shape of python-chess's `chess.engine`.

    from tournament.engine import Engine, Limit, Position

    async with Engine.builtin("gomocup-bot") as engine:
        result = await engine.play(Position.from_moves("h8 i9"), Limit(turn=0.5))
        info = await engine.analyse(Position.from_moves("h8 i9"), Limit(turn=0.5))

`Engine` is async on trio (`tournament.api.engine_async`); `SimpleEngine` (`tournament.api.engine_sync`)
runs one in a background thread for scripts and notebooks. This module is the one import path for
both (the two implementation modules import each other in one direction only). docs/api.md has
the guide and runnable examples.
"""
from __future__ import annotations

from tournament.api.engine_async import (  # noqa: F401 (the public API)
    BLACK,
    WHITE,
    AnalysisStream,
    Engine,
    EngineError,
    EngineReplyError,
    EngineStartError,
    EngineTerminatedError,
    EngineTimeoutError,
    IllegalMoveError,
    Info,
    Limit,
    PlayResult,
    Position,
    PositionError,
    Square,
)
from tournament.api.engine_sync import SimpleAnalysis, SimpleEngine  # noqa: F401

__all__ = [
    "AnalysisStream", "BLACK", "WHITE", "Engine", "EngineError", "EngineReplyError", "EngineStartError",
    "EngineTerminatedError", "EngineTimeoutError", "IllegalMoveError", "Info", "Limit", "PlayResult",
    "Position", "PositionError", "SimpleAnalysis", "SimpleEngine", "Square",
]
