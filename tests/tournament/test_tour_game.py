"""Real games between real processes: the scripted fake brain misbehaves and the right ending is recorded."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
import trio

from tour_helpers import fake_spec
from protocol.rules import FREESTYLE, RENJU
from tournament.game.endings import Ending
from tournament.play.game import play_game
from tournament.game.record import BLACK_WON, WHITE_WON
from tournament.engines.session import GameConfig, TimeControl

FAST = TimeControl(turn_ms=1000, match_ms=None, tolerance_ms=1500, late_grace_ms=300)  # roomy: CI machines are busy
CONFIG = GameConfig(width=15, height=15, rules=FREESTYLE, time=FAST, start_timeout=5.0)


async def play(pool, black_args, white_args, config=CONFIG, opening=()):
    black = pool.acquire(fake_spec("black", "--row", "0", *black_args))
    white = pool.acquire(fake_spec("white", "--row", "2", *white_args))
    record = await play_game(config, black, white, list(opening))
    await pool.release(black)
    await pool.release(white)
    return record


async def test_normal_game_first_mover_wins(pool) -> None:
    record = await play(pool, [], [])
    assert record.ending is Ending.FIVE and record.result == BLACK_WON
    assert [(mv.x, mv.y) for mv in record.moves[::2]] == [(x, 0) for x in range(5)]
    assert len(record.moves) == 9
    assert all(mv.ms < 1500 for mv in record.moves)
    assert record.black_peak_rss > 1_000_000  # measured from /proc


async def test_opening_goes_by_board_and_transcript_is_real(pool, tmp_path: Path) -> None:
    log_b, log_w = tmp_path / "b.log", tmp_path / "w.log"
    opening = [(7, 7), (8, 8), (9, 9)]
    record = await play(pool, ["--log", str(log_b)], ["--log", str(log_w)], opening=opening)
    assert record.result == WHITE_WON and record.ending is Ending.FIVE  # white moves first after 3 stones
    assert record.opening_stones == 3 and [(mv.x, mv.y, mv.ms) for mv in record.moves[:3]] == [(7, 7, 0), (8, 8, 0), (9, 9, 0)]
    white_lines = log_w.read_text().splitlines()
    assert white_lines[:6] == ["START 15", "INFO timeout_turn 1000", "INFO timeout_match 0", "INFO max_memory 0", "INFO game_type 1", "INFO rule 0"]
    assert white_lines[6:12] == ["INFO time_left 2147483647", "BOARD", "7,7,2", "8,8,1", "9,9,2", "DONE"]
    assert white_lines[12:14] == ["INFO time_left 2147483647", "TURN 0,0"]  # black answered on its row
    black_lines = log_b.read_text().splitlines()
    board_at = black_lines.index("BOARD")
    # black's first command: the opening plus white's first move, own stones = 1
    assert black_lines[board_at + 1 : board_at + 6] == ["7,7,1", "8,8,2", "9,9,1", "0,2,2", "DONE"]


@pytest.mark.parametrize(
    "mode, extra, ending",
    [
        ("crash-start", [], Ending.START_FAILED),
        ("crash", ["--at", "2"], Ending.CRASH),
        ("garbage", ["--at", "2"], Ending.BAD_REPLY),
        ("error", ["--at", "1"], Ending.BAD_REPLY),
        ("occupied", ["--at", "2"], Ending.OCCUPIED),
        ("offboard", ["--at", "3"], Ending.OFF_BOARD),
        ("hang", ["--at", "2"], Ending.TIME_TURN),
    ],
)
async def test_misbehaving_black_loses_with_the_right_reason(pool, mode, extra, ending) -> None:
    record = await play(pool, ["--mode", mode, *extra], [])
    assert record.ending is ending, record.detail
    assert record.result == WHITE_WON
    assert record.detail.startswith("black")


async def test_never_answering_start_is_a_start_failure(pool) -> None:
    config = GameConfig(time=FAST, start_timeout=1.0)
    t0 = time.monotonic()
    record = await play(pool, [], ["--mode", "no-start"], config=config)
    assert record.ending is Ending.START_FAILED and record.result == BLACK_WON
    assert "START" in record.detail
    assert time.monotonic() - t0 < 8


async def test_slow_but_within_tolerance_is_fine(pool) -> None:
    tc = TimeControl(turn_ms=300, tolerance_ms=2000, late_grace_ms=300)
    record = await play(pool, ["--mode", "slow", "--at", "2", "--sleep", "0.5"], [], config=GameConfig(time=tc))
    assert record.ending is Ending.FIVE and record.result == BLACK_WON
    assert 450 <= record.moves[2].ms < 2300


async def test_a_move_arriving_after_deadline_plus_tolerance_loses_even_though_it_arrived(pool) -> None:
    tc = TimeControl(turn_ms=300, tolerance_ms=200, late_grace_ms=3000)
    record = await play(pool, ["--mode", "slow", "--at", "2", "--sleep", "0.8"], [], config=GameConfig(time=tc))
    assert record.ending is Ending.TIME_TURN and record.result == WHITE_WON
    assert "arrived after" in record.detail and "1,0" in record.detail


async def test_match_clock_runs_out(pool) -> None:
    tc = TimeControl(turn_ms=5000, match_ms=1500, tolerance_ms=300, late_grace_ms=200)
    record = await play(pool, [], ["--mode", "slow", "--at", "1", "--sleep", "2.5"], config=GameConfig(time=tc))
    assert record.ending is Ending.TIME_MATCH and record.result == BLACK_WON


async def test_death_with_no_clock_running_is_detected_at_once(pool) -> None:
    unlimited = TimeControl(turn_ms=None, match_ms=None)
    t0 = time.monotonic()
    record = await play(pool, ["--mode", "crash", "--at", "2"], [], config=GameConfig(time=unlimited))
    assert record.ending is Ending.CRASH and record.result == WHITE_WON
    assert time.monotonic() - t0 < 8
    # the idle side dies while the other thinks (without limit, for 30 s): noticed at once too
    t0 = time.monotonic()
    record = await play(pool, ["--mode", "exit-idle", "--at", "2"], ["--mode", "slow", "--at", "2", "--sleep", "30"], config=GameConfig(time=unlimited))
    assert record.ending is Ending.CRASH and record.result == WHITE_WON, record.detail
    assert time.monotonic() - t0 < 8


async def test_renju_foul_by_black(pool) -> None:
    script = "5,7 6,7 7,5 7,6 7,7"  # the fifth stone makes two open threes
    config = GameConfig(rules=RENJU, time=FAST)
    record = await play(pool, ["--mode", "script", "--moves", script], [], config=config)
    assert record.ending is Ending.FOUL_DOUBLE_THREE and record.result == WHITE_WON
    assert len(record.moves) == 8  # the foul itself is not on the board


async def test_memory_limit(pool) -> None:
    config = GameConfig(time=FAST, max_memory=80 * 2**20)
    record = await play(pool, ["--mode", "memory", "--at", "2", "--megabytes", "120"], [], config=config)
    assert record.ending is Ending.MEMORY and record.result == WHITE_WON
    assert record.black_peak_rss > 120 * 2**20


async def test_restart_reuses_the_process_and_unknown_restart_relaunches(pool, tmp_path: Path) -> None:
    log_b = tmp_path / "b.log"
    black = fake_spec("black", "--row", "0", "--log", str(log_b))
    white = fake_spec("white", "--row", "2", "--no-restart")
    sessions = []
    for _ in range(2):
        b, w = pool.acquire(black), pool.acquire(white)
        record = await play_game(CONFIG, b, w, [])
        assert record.ending is Ending.FIVE
        sessions.append((b, w))
        await pool.release(b)
        await pool.release(w)
    (b1, w1), (b2, w2) = sessions
    assert b1 is b2 and b1.launches == 1  # reused with RESTART
    assert w1 is w2 and w1.launches == 2  # UNKNOWN to RESTART: END, relaunch, START
    lines = log_b.read_text().splitlines()
    assert lines.count("START 15") == 1 and lines.count("RESTART") == 1


async def test_yxstop_is_sent_at_the_budget(pool, tmp_path: Path) -> None:
    log_b = tmp_path / "b.log"
    tc = TimeControl(turn_ms=200, tolerance_ms=3000, stop_at_budget=True)
    record = await play(pool, ["--mode", "slow", "--at", "1", "--sleep", "0.5", "--log", str(log_b)], [], config=GameConfig(time=tc))
    assert record.ending is Ending.FIVE  # answered within the tolerance
    assert "YXSTOP" in log_b.read_text().splitlines()


async def test_rectangular_board_uses_rectstart(pool, tmp_path: Path) -> None:
    log_b = tmp_path / "b.log"
    config = GameConfig(width=12, height=8, time=FAST)
    record = await play(pool, ["--log", str(log_b)], [], config=config)
    assert record.ending is Ending.FIVE
    assert log_b.read_text().splitlines()[0] == "RECTSTART 12,8"


async def test_engines_survive_trio_retiring_its_worker_threads(nursery, monkeypatch) -> None:
    """Regression: engines forked from a trio worker thread died with that thread (parent-death signal)."""
    import trio._core._thread_cache as thread_cache

    from tournament.engines.connection import ProcessConnection
    from tournament.engines.session import EngineSession  # noqa: F401 - same import path as the runner

    monkeypatch.setattr(thread_cache, "IDLE_TIMEOUT", 0.05)
    spec = fake_spec("x", "--row", "0")
    conn = await ProcessConnection.launch(nursery, "x", spec.argv)
    for _ in range(3):
        await trio.to_thread.run_sync(lambda: None)
        await trio.sleep(0.2)  # idle worker threads exit meanwhile
    assert not conn.closed
    from protocol import messages as m

    await conn.send(m.Start(15))
    with trio.fail_after(5):
        line = await conn.receive()
    assert line.text == "OK"
    await conn.close()
    assert conn.returncode is not None


async def test_crash_detail_has_exit_code(pool) -> None:
    record = await play(pool, ["--mode", "crash", "--at", "1"], [])
    assert record.ending is Ending.CRASH and "exit code 3" in record.detail, record.detail


async def test_engine_gets_its_own_working_directory_and_environment(pool, tmp_path: Path) -> None:
    import dataclasses

    folder = tmp_path / "engine-home"
    folder.mkdir()
    spec = fake_spec("black", "--row", "0", "--log", "brain.log", "--log-env", "FAKE_MARK")
    spec = dataclasses.replace(spec, cwd=str(folder), env=(("FAKE_MARK", "hello"),))
    black, white = pool.acquire(spec), pool.acquire(fake_spec("white", "--row", "2"))
    record = await play_game(CONFIG, black, white, [])
    assert record.ending is Ending.FIVE
    lines = (folder / "brain.log").read_text().splitlines()  # relative --log landed in the engine's cwd
    assert lines[0] == "ENV FAKE_MARK=hello" and lines[1] == f"CWD {folder}"


async def test_move_limit_draw_and_output_flood(pool) -> None:
    config = GameConfig(time=FAST, move_limit=6)
    record = await play(pool, [], [], config=config)
    assert record.ending is Ending.MOVE_LIMIT and record.result == 0 and len(record.moves) == 6
    record = await play(pool, ["--mode", "flood", "--at", "2"], [])
    assert record.ending is Ending.FIVE and record.result == BLACK_WON  # 50000 MESSAGE lines change nothing


def test_line_splitting_accepts_every_line_ending() -> None:
    from tournament.engines.connection import _split_lines

    lines, rest = _split_lines(bytearray(b"OK\r\n7,7\r8,8\nMESSAGE x\r\npartial"))
    assert [l for l in lines if l] == [b"OK", b"7,7", b"8,8", b"MESSAGE x"]
    assert rest == bytearray(b"partial")
    lines, rest = _split_lines(bytearray(b"no end yet"))
    assert lines == [] and rest == bytearray(b"no end yet")


@pytest.mark.parametrize("suspend", [False, True])
async def test_suspend_idle_stops_pondering(pool, tmp_path: Path, suspend: bool) -> None:
    ponder = tmp_path / "ponder.log"
    config = GameConfig(time=FAST, suspend_idle=suspend)
    # black thinks in the background all the time; white takes 1 s over its first move
    record = await play(pool, ["--ponder-log", str(ponder)], ["--mode", "slow", "--at", "1", "--sleep", "1.0"], config=config)
    assert record.ending is Ending.FIVE and record.result == BLACK_WON
    stamps = [float(t) for t in ponder.read_text().split()]
    white_first = record.moves[1]
    assert white_first.ms >= 950
    # white's move took about a second: with black stopped there is a gap that long between its ticks
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    if suspend:
        assert max(gaps) >= 0.9, "black was stopped while white thought"
    else:
        assert max(gaps) < 0.8, "black kept running while white thought"


async def test_a_new_board_size_gets_start_again_not_restart(pool, tmp_path: Path) -> None:
    """RESTART keeps the board size: an engine reused on another size must get START (the web board
    lets the same engine play 15x15, then 19x19)."""
    log_b = tmp_path / "b.log"
    black = fake_spec("black", "--row", "0", "--log", str(log_b))
    white = fake_spec("white", "--row", "2")
    for size in (15, 19, 19):
        b, w = pool.acquire(black), pool.acquire(white)
        record = await play_game(GameConfig(width=size, height=size, time=FAST), b, w, [])
        assert record.ending is Ending.FIVE and b.board_size == (size, size)
        await pool.release(b)
        await pool.release(w)
    assert b.launches == 1
    starts = [line for line in log_b.read_text().splitlines() if line.split(" ")[0] in ("START", "RESTART")]
    assert starts == ["START 15", "START 19", "RESTART"]


async def test_thinking_lines_reach_the_listener_and_rapfi_detail_lines_are_no_bad_reply(pool) -> None:
    seen = []
    black = pool.acquire(fake_spec("black", "--row", "0", "--talk", "rapfi"))
    black.on_line = lambda line: seen.append(line.text)
    white = pool.acquire(fake_spec("white", "--row", "2", "--talk", "yixin"))
    white.on_line = lambda line: 1 / 0  # a failing listener costs nothing
    record = await play_game(CONFIG, black, white, [])
    assert record.ending is Ending.FIVE and record.result == BLACK_WON
    assert seen.count("INFO PV DONE") == 5 and "DEBUG fake brain move" in seen
    assert seen[:2] == ["INFO PV 0", "INFO NUMPV 1"] and any(t.startswith("MESSAGE Depth 9-14") for t in seen)


async def test_about_is_asked_with_start_when_wanted(pool) -> None:
    session = pool.acquire(fake_spec("named", "--name", "Pbrain X"))
    session.ask_about = True
    assert await session.begin_game(CONFIG) is None
    assert session.about is not None and session.about.get("name") == "Pbrain X"
    silent = pool.acquire(fake_spec("silent", "--mode", "crash-start"))
    silent.ask_about = True
    failure = await silent.begin_game(CONFIG)
    assert failure is not None and failure.ending is Ending.START_FAILED and "cannot start" in failure.detail
