"""`gomocup-bot connect`: a real relay process between a test "manager" (its pipes) and a server on
127.0.0.1 — same answers as the server, its own ABOUT, and prompt ERROR lines when the server is
unreachable, refuses AUTH or dies."""
from __future__ import annotations

import socket
import time

import trio

from server_testkit import brain_handler, relay_process, serving


def _free_port() -> int:
    """A port nobody listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_unreachable_server_gives_errors_with_the_reason_quickly():
    port = _free_port()
    async with relay_process(f"127.0.0.1:{port}") as (manager, proc):
        about = await manager.ask("ABOUT")
        assert 'relay="to gomocup-bot serve at 127.0.0.1:%d"' % port in about
        started = time.monotonic()
        answer = await manager.ask("START 15")
        assert answer.startswith(f"ERROR relay: no connection to 127.0.0.1:{port}")
        assert "connection refused" in answer
        assert time.monotonic() - started < 2
        await manager.send("INFO timeout_turn 100")  # no answer owed: nothing comes back
        assert (await manager.ask("BEGIN")).startswith("ERROR relay: no connection")
        await manager.send("END")
        with trio.fail_after(5):
            assert await proc.wait() == 0


async def test_relay_plays_through_and_answers_about_itself():
    async with serving(brain_handler()) as server:
        async with relay_process(f"127.0.0.1:{server.port}") as (manager, proc):
            assert "relay" in await manager.ask("ABOUT")
            assert await manager.ask("START 15") == "OK"
            await manager.send("INFO timeout_turn 200")
            first = await manager.ask("BEGIN")
            assert first is not None and "," in first
            await manager.send("END")
            with trio.fail_after(5):
                assert await proc.wait() == 0


async def test_server_dropping_mid_game_gives_an_error_within_a_second():
    async with serving(brain_handler()) as server:
        async with relay_process(f"127.0.0.1:{server.port}") as (manager, proc):
            assert await manager.ask("START 15") == "OK"
            await manager.send("INFO timeout_turn 200")
            assert "," in await manager.ask("BEGIN")
            server.shutdown("test: the server goes away")
            started = time.monotonic()
            answer = await manager.ask("TURN 3,3")
            assert answer.startswith("ERROR relay: ")
            assert time.monotonic() - started < 2
            assert (await manager.ask("TURN 4,4")).startswith("ERROR relay: no connection")


async def test_relay_sends_the_token_and_reports_a_refused_one(tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text("letmein\n")
    async with serving(brain_handler(), token="letmein") as server:
        async with relay_process(f"127.0.0.1:{server.port}", "--token-file", str(token_file)) as (manager, _):
            assert await manager.ask("START 15") == "OK"
        async with relay_process(f"127.0.0.1:{server.port}", "--token", "guess") as (manager, _):
            answer = await manager.ask("START 15")
            assert answer == (f"ERROR relay: no connection to 127.0.0.1:{server.port} "
                              "(server refused AUTH: ERROR authentication failed)")
