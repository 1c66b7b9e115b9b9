"""The async engine API with real processes: our brain, the built-ins, the scripted fake brain (which
talks in several dialects and misbehaves on cue) over pipes, and `gomocup-bot serve` over TCP.
Every test checks that no engine process or thread is left behind."""
from __future__ import annotations

from pathlib import Path

import pytest
import trio

from api_helpers import fake_argv
from tournament.game.endings import Ending
from tournament.engine import (
    BLACK,
    Engine,
    EngineReplyError,
    EngineStartError,
    EngineTerminatedError,
    EngineTimeoutError,
    IllegalMoveError,
    Info,
    Limit,
    Position,
    PositionError,
)

pytestmark = pytest.mark.usefixtures("no_leftovers")

ROOMY = Limit(turn=2.0)  # for the fake brain, which answers at once: room for a busy machine
# black to move with four in a row open at both ends: any engine must complete the five
OPEN_FOUR = Position.from_moves([(5, 7), (5, 9), (6, 7), (6, 9), (7, 7), (7, 9), (8, 7), (12, 12)])
FIVES = {(4, 7), (9, 7)}


async def test_random_plays_legal_moves_and_says_who_it_is() -> None:
    async with Engine.builtin("random", tolerance=5.0) as engine:  # turn 0, but a busy machine may be slow
        assert engine.about["name"] == "gomocup-bot" and engine.about["engine"] == "random"
        assert engine.pid is not None and engine.name == "random"
        position = Position()
        for _ in range(12):
            result = await engine.play(position, Limit(turn=0))
            assert position.is_legal(result.move) and result.time_ms >= 0 and result.info.move == result.move
            position = position.push(result.move)
        pid = engine.pid
    assert engine.closed and not Path(f"/proc/{pid}").exists()


async def test_what_goes_over_the_wire(tmp_path: Path) -> None:
    """START once, BEGIN / BOARD for new positions (RESTART first when the board is not empty), TURN
    when the position continues the engine's own move, START again for another size, INFO for
    limits and settings only when they change."""
    log = tmp_path / "wire.log"
    async with Engine.popen(fake_argv("--log", str(log), "--name", "Wire")) as engine:
        assert engine.about == {"name": "Wire", "version": "1.0", "author": "tests"}
        first = await engine.play(Position(), ROOMY)  # the fresh engine is on an empty 15x15 board: BEGIN
        assert first.move == (0, 0)
        after = Position.from_moves([first.move, (7, 7)])
        second = await engine.play(after, ROOMY)  # one more opponent move: TURN
        assert second.move == (1, 0)
        await engine.play(Position.from_moves("h8"), Limit(turn=1.5, nodes=1000, depth=3))  # a new position
        await engine.configure(threads=2, hash_size=1024)
        await engine.play(Position.from_moves("h8", board=19, rule="renju"), Limit(turn=1.5, nodes=1000, depth=3))
    lines = log.read_text().splitlines()
    asked = [line for line in lines if line.split(" ")[0] in ("START", "RESTART", "BEGIN", "TURN", "BOARD", "END")]
    assert asked == ["START 15", "BEGIN", "TURN 7,7", "RESTART", "BOARD", "RESTART", "START 19", "BOARD", "END"]
    assert lines[0] == "ABOUT" and "INFO timeout_turn 2000" in lines and "INFO rule 4" in lines
    assert lines.count("INFO max_node 1000") == 1 and lines.count("INFO max_depth 3") == 1  # sent once, kept
    assert lines.count("INFO thread_num 2") == 2 and lines.count("INFO hash_size 1024") == 2  # at configure and START 19
    assert lines.count("INFO timeout_turn 1500") == 2  # RESTART re-sends the game settings


@pytest.mark.parametrize(
    "talk, expected",
    [
        ("ours", Info(depth=7, seldepth=9, eval=88, winrate=0.615, nodes=12345, speed=61725, time_ms=200)),
        ("rapfi", Info(depth=9, seldepth=14, eval=120, winrate=0.6, nodes=4321, speed=78563, time_ms=55, multipv=1)),
        ("uci", Info(depth=11, seldepth=17, eval=-35, nodes=2_000_000, speed=1_234_000, time_ms=1620)),
        ("plain", Info(depth=3, eval=35)),
        ("yixin", Info(eval=77)),
    ],
)
async def test_analyse_reads_each_dialect_from_a_real_process(talk: str, expected: Info) -> None:
    async with Engine.popen(fake_argv("--talk", talk)) as engine:
        info = await engine.analyse(Position.from_moves("h8"), ROOMY)
    assert info.move == (0, 0)
    pv = ((0, 0), (0, 1), (0, 2)) if talk not in ("plain", "yixin") else ((0, 0),) if talk == "yixin" else ()
    assert info == Info(**{**expected.__dict__, "pv": pv, "move": (0, 0), "raw": info.raw})
    assert info.raw and all(line.startswith(("MESSAGE", "INFO")) for line in info.raw)


async def test_our_brain_analyses_and_finds_the_win() -> None:
    async with Engine.builtin("gomocup-bot") as engine:
        position = Position.from_moves("h8 i9 g9 i7")
        deep = await engine.analyse(position, Limit(depth=4))  # no time limit: it waits for its search to load
        assert deep.depth == 4 and deep.nodes and deep.nodes > 0 and deep.eval is not None
        assert 0.0 <= deep.winrate <= 1.0 and deep.pv and deep.pv[0] == deep.move and position.is_legal(deep.move)
        assert any(line.startswith("MESSAGE pvs depth 4") for line in deep.raw)
        win = await engine.analyse(OPEN_FOUR, Limit(turn=1.0))
        assert win.move in FIVES and win.winrate == 1.0
        played = await engine.play(OPEN_FOUR, Limit(turn=1.0), info=True)
        assert played.move in FIVES and OPEN_FOUR.push(played.move).winner() == BLACK
        lines = await engine.analyse(position, Limit(depth=3), multipv=2)  # YXNBEST: our brain reports its best line
        assert isinstance(lines, list) and lines and lines[0].move is not None


async def test_analysis_streams_updates_until_stopped(tmp_path: Path) -> None:
    log = tmp_path / "think.log"
    updates = []
    async with Engine.popen(fake_argv("--mode", "until-stop", "--talk", "rapfi", "--log", str(log))) as engine:
        async with engine.analysis(Position.from_moves("h8")) as stream:
            async for info in stream:
                updates.append(info)
                if info.depth == 9:
                    stream.stop()
        final = await stream.wait()
        assert final.move == (0, 0) and stream.move == (0, 0) and final.depth == 9
        assert updates[0].pv[0] == (0, 0) and stream.done
        # the engine is free again: a plain move afterwards
        assert (await engine.play(Position.from_moves("h8"), Limit(turn=1.0))).move == (0, 0)
    lines = log.read_text().splitlines()
    assert "INFO show_detail 3" in lines and lines.count("YXSTOP") == 1
    assert lines.index("YXSTOP") > lines.index("BOARD")


async def test_a_new_call_stops_a_running_analysis_and_our_brain_answers_yxstop() -> None:
    async with Engine.builtin("gomocup-bot") as engine:
        stream = engine.analysis(Position.from_moves("h8 i9"))  # no limit: it thinks until stopped
        first = await stream.__anext__()
        assert first.pv  # its best move so far (MESSAGE REALTIME BEST)
        with trio.fail_after(30):
            result = await engine.play(Position.from_moves("h8 i9 j10"), Limit(depth=2))
        assert stream.done and stream.move is not None
        assert Position.from_moves("h8 i9").is_legal(stream.move) and result.move is not None


async def test_multipv_asks_yxnbest() -> None:
    async with Engine.popen(fake_argv()) as engine:
        lines = await engine.analyse(Position.from_moves("h8"), ROOMY, multipv=3)
    assert [(i.multipv, i.eval, i.pv) for i in lines] == [(1, 50, ((0, 0),)), (2, 40, ((0, 1),)), (3, 30, ((0, 2),))]
    assert lines[0].move == (0, 0)


@pytest.mark.parametrize(
    "mode, error, check",
    [
        ("crash", EngineTerminatedError, lambda e: e.exit_code == 3 and "fake brain: crashing on purpose" in e.stderr),
        ("garbage", EngineReplyError, lambda e: e.kind == "garbage" and e.line == "what is this"),
        ("error", EngineReplyError, lambda e: e.kind == "ERROR" and e.text == "cannot move" and "ERROR" in str(e)),
        ("unknown", EngineReplyError, lambda e: e.kind == "UNKNOWN" and e.text == "no moves today"),
        ("occupied", IllegalMoveError, lambda e: e.move == (7, 7) and e.ending is Ending.OCCUPIED),
        ("offboard", IllegalMoveError, lambda e: e.move == (15, 14) and e.ending is Ending.OFF_BOARD),
        ("hang", EngineTimeoutError, lambda e: e.seconds == pytest.approx(0.4) and e.ending is Ending.TIME_TURN),
    ],
)
async def test_misbehaving_brains_raise_typed_errors_and_the_next_call_starts_afresh(mode, error, check) -> None:
    async with Engine.popen(fake_argv("--mode", mode, "--at", "2", "--talk", "plain"), tolerance=0.3) as engine:
        assert (await engine.play(Position.from_moves("h8"), ROOMY)).move == (0, 0)
        first_pid = engine.pid
        with pytest.raises(error) as caught:
            await engine.play(Position.from_moves("h8"), Limit(turn=0.1) if mode == "hang" else ROOMY)
        assert check(caught.value), caught.value
        assert caught.value.engine == engine.name and isinstance(caught.value.ending, Ending)
        # the brain misbehaves on its second move only: the next call works, with a fresh process
        assert (await engine.play(Position.from_moves("h8"), ROOMY)).move == (0, 0)
        assert engine.pid != first_pid


async def test_a_flood_of_thinking_lines_is_read_and_kept_bounded() -> None:
    async with Engine.popen(fake_argv("--mode", "flood")) as engine:
        result = await engine.play(Position.from_moves("h8"), Limit(turn=10.0))
    # the connection drops log lines beyond 10000 unread ones; the reader keeps the last 200 it saw
    assert result.move == (0, 0) and len(result.info.raw) == 200 and result.info.raw[-1].startswith("MESSAGE flood 4")


async def test_a_renju_foul_is_an_illegal_move() -> None:
    moves = [(6, 7), (0, 0), (8, 7), (0, 2), (7, 6), (0, 4), (7, 8), (0, 6)]
    async with Engine.popen(fake_argv("--mode", "script", "--moves", "7,7")) as engine:
        with pytest.raises(IllegalMoveError) as caught:
            await engine.play(Position.from_moves(moves, rule="renju"), ROOMY)
    assert caught.value.ending is Ending.FOUL_DOUBLE_THREE and caught.value.move == (7, 7)


async def test_bad_calls_are_refused_before_anything_is_sent(tmp_path: Path) -> None:
    log = tmp_path / "quiet.log"
    five = Position.from_moves([(3, 7), (3, 8), (4, 7), (4, 8), (5, 7), (5, 8), (6, 7), (6, 8), (7, 7)])
    async with Engine.popen(fake_argv("--log", str(log))) as engine:
        with pytest.raises(PositionError, match="game is over"):
            await engine.play(five, ROOMY)
        with pytest.raises(PositionError, match="game is over"):
            engine.analysis(five)
        with pytest.raises(ValueError, match="needs a limit"):
            await engine.analyse(Position(), Limit())
        with pytest.raises(TypeError, match="Position"):
            await engine.play([(7, 7)], ROOMY)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="negative"):
            Limit(turn=-1)
    assert [line for line in log.read_text().splitlines() if not line.startswith("INFO")] == ["ABOUT", "START 15", "END"]


async def test_start_failures_and_closed_engines() -> None:
    with pytest.raises(EngineStartError, match="cannot start|exited"):
        async with Engine.popen(fake_argv("--mode", "crash-start")):
            pass
    with pytest.raises(EngineStartError, match="no answer to"):
        async with Engine.popen(fake_argv("--mode", "no-start"), start_timeout=0.5):
            pass
    with pytest.raises(EngineStartError, match="cannot start"):
        async with Engine.popen(["/nonexistent/pbrain-nothing"]):
            pass
    async with Engine.popen(fake_argv()) as engine:
        pass
    with pytest.raises(EngineTerminatedError, match="closed"):
        await engine.play(Position(), ROOMY)


async def test_close_kills_a_brain_that_ignores_end() -> None:
    async with Engine.popen(fake_argv("--ignore-end"), close_grace=0.2) as engine:
        pid = engine.pid
        started = trio.current_time()
    assert 0.2 <= trio.current_time() - started < 5 and not Path(f"/proc/{pid}").exists()


async def test_engine_in_our_own_nursery_and_info_callbacks() -> None:
    seen: list[Info] = []
    async with trio.open_nursery() as nursery:
        engine = await Engine.start(nursery, f"talker={' '.join(fake_argv('--talk', 'rapfi'))}")
        assert engine.name == "talker"
        result = await engine.play(Position(), ROOMY, on_info=seen.append)
        await engine.aclose()
        await engine.aclose()  # twice is fine
    assert result.info.depth == 9 and seen and seen[0].depth == 9


async def test_over_tcp_to_gomocup_bot_serve(served) -> None:
    async with Engine.connect(served.address) as engine:
        assert engine.pid is None and engine.about["engine"] == "greedy"
        position = Position.from_moves("h8 i9")
        result = await engine.play(position, Limit(turn=1.0))
        assert position.is_legal(result.move)
        follow = position.push(result.move)
        follow = follow.push(follow.legal_moves()[0])
        assert follow.is_legal((await engine.play(follow, Limit(turn=1.0))).move)  # TURN over the socket
        win = await engine.analyse(OPEN_FOUR, Limit(turn=1.0))
        assert win.move in FIVES
    async with Engine.connect(served.address.removeprefix("tcp://"), name="again") as engine:
        assert engine.name == "again" and (await engine.play(Position(), Limit(turn=1.0))).move is not None


def test_the_leftover_check_sees_processes_and_threads() -> None:
    """The check every test here relies on is not vacuous: a process or thread left running is seen."""
    import subprocess
    import threading

    from api_helpers import child_processes, leftovers, our_threads

    pids, threads = child_processes(), our_threads()
    proc = subprocess.Popen(["sleep", "30"])
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="left-behind")
    thread.start()
    try:
        assert leftovers(pids, threads, wait=0.1) == ({proc.pid}, {"left-behind"})
    finally:
        proc.kill()
        stop.set()
        thread.join()
    assert leftovers(pids, threads, wait=0.1) == ({proc.pid}, set())  # killed but not reaped: a zombie counts
    proc.wait()
    assert leftovers(pids, threads, wait=0.1) == (set(), set())


async def test_a_remote_engine_that_goes_away(tmp_path: Path) -> None:
    """Over TCP to `gomocup-bot serve`: the server killed while our brain thinks, then gone for good."""
    from api_helpers import ServeProcess

    server = ServeProcess(tmp_path / "serve.log", "--engine", "gomocup-bot")
    try:
        async with Engine.connect(server.address) as engine:
            stream = engine.analysis(Position.from_moves("h8 i9"))  # thinks until stopped
            with trio.fail_after(60):
                await stream.__anext__()  # it is thinking
            server.proc.kill()
            server.proc.wait()
            with pytest.raises(EngineTerminatedError) as caught:
                await stream.wait()
            assert caught.value.exit_code is None and caught.value.stderr == ()  # a socket has neither
            with pytest.raises(EngineStartError, match="had stopped .*cannot start"):  # the next call tries again
                await engine.play(Position.from_moves("h8"), Limit(turn=1.0))
    finally:
        server.stop()
