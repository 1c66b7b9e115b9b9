"""Remote engines over real TCP on 127.0.0.1: our own relay around the fake brain, and `gomocup-bot serve`."""
from __future__ import annotations

import socket
import subprocess
import sys
import time
from functools import partial

import trio

from tour_helpers import FAKE_BRAIN, fake_spec
from tournament.game.endings import Ending
from tournament.engines.spec import parse_engine_spec
from tournament.play.game import play_game
from tournament.play.openings import BUILTIN_OPENINGS
from tournament.game.record import BLACK_WON, WHITE_WON
from tournament.engines.session import GameConfig, TimeControl

# a generous turn: no test here waits for a timeout with it, and the builtin greedy brain (a Python process
# that imports its kernels) once took more than 3 s for a move beside the suite's other worker
CONFIG = GameConfig(time=TimeControl(turn_ms=5000, tolerance_ms=1000), start_timeout=10.0)


async def _serve_fake_brain(args: list[str], stream: trio.SocketStream) -> None:
    """One connection = one fake brain process; bytes copied both ways until either side ends."""
    process = await trio.lowlevel.open_process([sys.executable, str(FAKE_BRAIN), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:

        async def pump_in() -> None:
            try:
                while data := await stream.receive_some(4096):
                    await process.stdin.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
            await process.stdin.aclose()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(pump_in)
            try:
                while data := await process.stdout.receive_some(4096):
                    await stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
            await stream.aclose()
            nursery.cancel_scope.cancel()
    finally:
        process.kill()
        await process.wait()


async def start_fake_server(nursery: trio.Nursery, args: list[str]) -> int:
    listeners = await nursery.start(partial(trio.serve_tcp, partial(_serve_fake_brain, args), 0, host="127.0.0.1"))
    return listeners[0].socket.getsockname()[1]


async def test_tcp_engine_plays_and_its_crash_is_detected(nursery, pool) -> None:
    port = await start_fake_server(nursery, ["--row", "2"])
    remote = parse_engine_spec(f"tcp://127.0.0.1:{port}")
    assert remote.name == f"127.0.0.1:{port}"
    black, white = pool.acquire(fake_spec("local", "--row", "0")), pool.acquire(remote)
    record = await play_game(CONFIG, black, white, [])
    assert record.ending is Ending.FIVE and record.result == BLACK_WON
    assert white.peak_rss == 0  # a remote engine's memory is not ours to measure
    await pool.release(black)
    await pool.release(white)

    crash_port = await start_fake_server(nursery, ["--row", "2", "--mode", "crash", "--at", "2"])
    black, white = pool.acquire(fake_spec("local", "--row", "0")), pool.acquire(parse_engine_spec(f"tcp://127.0.0.1:{crash_port}"))
    record = await play_game(GameConfig(time=TimeControl(turn_ms=None, match_ms=None)), black, white, [])
    assert record.ending is Ending.CRASH and record.result == BLACK_WON


async def test_unreachable_tcp_engine_fails_to_start(pool) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nobody listens there
    black = pool.acquire(fake_spec("local", "--row", "0"))
    white = pool.acquire(parse_engine_spec(f"tcp://127.0.0.1:{port}"))
    record = await play_game(CONFIG, black, white, [])
    assert record.ending is Ending.START_FAILED and record.result == BLACK_WON


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_builtin_match_over_tcp_matches_the_pipe_match(pool) -> None:
    """greedy is deterministic, so the same games must come out move for move over TCP and over pipes."""
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gomocup_bot", "serve", "--port", str(port), "--engine", "greedy"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, "server did not come up"
                await trio.sleep(0.1)
        local = parse_engine_spec("builtin:greedy")
        remote = parse_engine_spec(f"served=tcp://127.0.0.1:{port}")
        piped = parse_engine_spec("piped=builtin:greedy")
        opening = BUILTIN_OPENINGS[0].squares(15, 15)
        results = {}
        for label, other in (("tcp", remote), ("pipe", piped)):
            games = []
            for black_spec, white_spec in ((local, other), (other, local)):
                black, white = pool.acquire(black_spec), pool.acquire(white_spec)
                games.append(await play_game(CONFIG, black, white, opening))
                await pool.release(black)
                await pool.release(white)
            results[label] = games
        for tcp_game, pipe_game in zip(results["tcp"], results["pipe"]):
            assert tcp_game.ending == pipe_game.ending
            assert tcp_game.ending in (Ending.FIVE, Ending.FULL_BOARD, Ending.MOVE_LIMIT)
            assert tcp_game.result == pipe_game.result
            assert [(m.x, m.y) for m in tcp_game.moves] == [(m.x, m.y) for m in pipe_game.moves]
    finally:
        server.terminate()
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
