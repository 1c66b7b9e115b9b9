"""The synchronous SimpleEngine (trio in a background thread) with real processes and over TCP; no
process or thread may outlive a test."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from api_helpers import fake_argv
from tournament.engine import (
    EngineReplyError,
    EngineStartError,
    EngineTerminatedError,
    EngineTimeoutError,
    Limit,
    Position,
    PositionError,
    SimpleEngine,
)

pytestmark = pytest.mark.usefixtures("no_leftovers")


def test_greedy_plays_and_the_thread_goes_with_close() -> None:
    engine = SimpleEngine.builtin("greedy")
    thread = engine._thread
    assert thread.is_alive() and thread.name == "gomocup-engine greedy" and thread is not threading.current_thread()
    assert engine.about["engine"] == "greedy" and engine.pid is not None
    position = Position.from_moves("h8 i9 h9")
    result = engine.play(position, Limit(turn=1.0))
    assert position.is_legal(result.move)
    pid = engine.pid
    engine.close()
    engine.close()  # twice is fine
    assert not thread.is_alive() and not Path(f"/proc/{pid}").exists()
    with pytest.raises(EngineTerminatedError, match="closed"):
        engine.play(position, Limit(turn=1.0))


def test_analyse_and_a_stopped_analysis(tmp_path: Path) -> None:
    log = tmp_path / "sync.log"
    with SimpleEngine.popen(fake_argv("--talk", "rapfi", "--mode", "until-stop", "--log", str(log))) as engine:
        with engine.analysis(Position.from_moves("h8")) as analysis:
            for info in analysis:
                assert info.depth == 9 and info.pv[0] == (0, 0)
                analysis.stop()
        assert analysis.move == (0, 0) and analysis.info.depth == 9
        info = engine.analyse(Position.from_moves("h8"), Limit(turn=2.0))  # the brain stalls only on its first move
        assert (info.depth, info.eval, info.nodes, info.move) == (9, 120, 4321, (0, 0))
        lines = engine.analyse(Position.from_moves("h8"), Limit(turn=2.0), multipv=2)
        assert [line.multipv for line in lines] == [1, 2]
    assert log.read_text().splitlines().count("YXSTOP") == 1


def test_typed_errors_cross_the_thread() -> None:
    with SimpleEngine.popen(fake_argv("--mode", "error")) as engine:
        with pytest.raises(EngineReplyError) as caught:
            engine.play(Position(), Limit(turn=2.0))
        assert caught.value.kind == "ERROR" and caught.value.text == "cannot move"
        with pytest.raises(PositionError):
            engine.play(Position.from_moves("a1 b1 a2 b2 a3 b3 a4 b4 a5"), Limit(turn=1.0))
    with pytest.raises(EngineStartError):
        SimpleEngine.popen(fake_argv("--mode", "crash-start"))


def test_the_call_timeout_bounds_a_silent_brain() -> None:
    with SimpleEngine.popen(fake_argv("--mode", "hang"), timeout=0.3) as engine:
        started = time.monotonic()
        with pytest.raises(EngineTimeoutError, match="SimpleEngine timeout"):
            engine.play(Position(), Limit(depth=5))  # no time limit: only the call's timeout ends it
        assert time.monotonic() - started < 5
        engine.timeout = None
        with pytest.raises(EngineTimeoutError):  # the engine's own clock: turn + tolerance
            engine.play(Position.from_moves("h8"), Limit(turn=0.1))


def test_over_tcp(served) -> None:
    with SimpleEngine.connect(served.address) as engine:
        assert engine.pid is None
        engine.configure(board=20, rule="standard")
        position = Position.from_moves("k11", board=20, rule="standard")
        assert position.is_legal(engine.play(position, Limit(turn=1.0)).move)
