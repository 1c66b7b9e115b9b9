"""`gomocup-bot connect`: a real relay process between a test "manager" (its pipes) and a server on
127.0.0.1 — same answers as the server, its own ABOUT, and prompt ERROR lines when the server is
unreachable, refuses AUTH or dies."""
from __future__ import annotations

import re
import socket
import subprocess
import time

import trio

from server_testkit import PYTHON, REPO, Client, ServerProcess, SpinEngine, brain_handler, relay_process, serving


# What a command gets once the server is gone: "no connection" when the relay saw the close before
# the command came, "lost the connection" when the command raced the close. Both are right.
DROPPED = re.compile(r"ERROR relay: (no|lost the) connection to 127\.0\.0\.1:\d+ \(")


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
            assert await manager.ask("ABOUT") == (
                f'name="gomocup-bot relay", version="0.1.0", author="gomocup-bot developers", '
                f'relay="to gomocup-bot serve at 127.0.0.1:{server.port}", remote_name="gomocup-bot"'
            )
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
            assert DROPPED.match(answer), answer
            assert time.monotonic() - started < 2
            assert (await manager.ask("TURN 4,4")).startswith("ERROR relay: no connection")  # stays down


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


# The same conversation for the stdio brain and for the relay: (line sent, answers expected).
# Mistakes are part of it, so the errors must match too. ABOUT is left out: the relay's is its own.
TRANSCRIPT: list[tuple[str, int]] = [
    ("START 40", 1), ("START 15", 1), ("INFO timeout_turn 300", 0), ("INFO rule 0", 0), ("BEGIN", 1),
    ("TURN 3,3", 1), ("TURN 3,3", 1), ("TURN 20,1", 1), ("TAKEBACK 3,3", 1), ("FOO", 1), ("DONE", 1),
    ("TURN 4,4", 1), ("RESTART", 1), ("BOARD", 0), ("7,7,2", 0), ("8,7,1", 0), ("9,9,2", 0), ("DONE", 1),
    ("TURN 8,8", 1), ("YXSHOWFORBID", 1), ("RECTSTART 20,15", 1), ("BEGIN", 1), ("TURN 0,0", 1),
]


async def _converse(client: Client) -> list[str]:
    answers: list[str] = []
    for line, expected in TRANSCRIPT:
        await client.send(line)
        for _ in range(expected):
            answers.append(await client.reply())
    await client.send("END")
    return answers


async def test_game_through_the_relay_equals_the_game_over_pipes(tmp_path):
    from protocol.transport import StreamLineStream

    brain = await trio.lowlevel.open_process(
        [PYTHON, "-m", "gomocup_bot", "--engine", "greedy"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, cwd=REPO,
    )
    try:
        over_pipes = await _converse(Client(StreamLineStream(trio.StapledStream(brain.stdin, brain.stdout))))
        with trio.fail_after(5):
            assert await brain.wait() == 0
    finally:
        if brain.returncode is None:
            brain.kill()
    server = ServerProcess(tmp_path, "--engine", "greedy")
    try:
        async with relay_process(f"127.0.0.1:{server.port}") as (manager, relay):
            through_relay = await _converse(manager)
            with trio.fail_after(5):
                assert await relay.wait() == 0
    finally:
        server.stop()
    assert through_relay == over_pipes
    assert sum(1 for answer in over_pipes if re.fullmatch(r"\d+,\d+", answer)) == 6
    assert sum(1 for answer in over_pipes if answer.startswith(("ERROR", "UNKNOWN"))) == 7


async def test_killed_server_gives_the_relay_caller_an_error_within_a_second(tmp_path):
    server = ServerProcess(tmp_path, "--engine", "greedy")
    try:
        async with relay_process(f"127.0.0.1:{server.port}") as (manager, _):
            assert await manager.ask("START 15") == "OK"
            await manager.send("INFO timeout_turn 300")
            assert re.fullmatch(r"\d+,\d+", await manager.ask("BEGIN"))
            server.proc.kill()
            await trio.to_thread.run_sync(server.proc.wait)
            started = time.monotonic()
            answer = await manager.ask("TURN 0,0", timeout=5)
            assert time.monotonic() - started < 1.0
            assert DROPPED.match(answer), answer
    finally:
        server.stop()


async def test_server_dropping_mid_search_answers_the_owed_move_with_an_error():
    engine = SpinEngine()
    async with serving(brain_handler(engine_factory=lambda: engine)) as server:
        async with relay_process(f"127.0.0.1:{server.port}") as (manager, _):
            assert await manager.ask("START 15") == "OK"
            await manager.send("INFO timeout_turn 30000", "BEGIN")
            with trio.fail_after(5):
                while not engine.searches:
                    await trio.sleep(0.01)
            server.shutdown("test: the server goes away mid-search")
            started = time.monotonic()
            answer = await manager.reply(timeout=5)
            assert time.monotonic() - started < 1.0
            assert answer == (f"ERROR relay: lost the connection to 127.0.0.1:{server.port} "
                              "(the server closed the connection)")
            assert manager.chatter == ["MESSAGE server shutting down"]


async def test_relay_reconnects_on_the_next_start_after_the_server_returns():
    port = _free_port()
    async with relay_process(f"127.0.0.1:{port}") as (manager, _):
        assert (await manager.ask("START 15")).startswith("ERROR relay: no connection")
        # Both servers run the instant SpinEngine: the default engine's load, abandoned in its
        # thread when the first server stops, would hold the GIL (and this test's event loop)
        # for a second or more. A 1 s turn leaves the loading engine time to answer (on 100 ms
        # the runner's quick move may answer first when the process is fresh).
        async with serving(brain_handler(engine_factory=SpinEngine), port=port):
            assert await manager.ask("START 15") == "OK"
            await manager.send("INFO timeout_turn 1000")
            assert re.fullmatch(r"\d+,\d+", await manager.ask("BEGIN"))
        assert DROPPED.match(await manager.ask("TURN 0,0"))
        engine = SpinEngine()
        async with serving(brain_handler(engine_factory=lambda: engine), port=port):
            assert await manager.ask("START 15") == "OK"  # a fresh session on the new server
            assert await manager.ask("BEGIN") == "0,0"
        # The INFO sent to the first server was replayed: the engine got a 0.7 s budget, not the
        # 3.75 s of a session without timeout_turn.
        started, ended = engine.searches[0]
        assert ended - started < 1.5


async def test_an_unasked_server_line_reaches_the_manager_as_a_message_only():
    async with serving(brain_handler(), idle_timeout=0.3) as server:
        async with relay_process(f"127.0.0.1:{server.port}") as (manager, _):
            assert await manager.ask("START 15") == "OK"
            await trio.sleep(1.0)  # the server closes the idle connection with an ERROR line
            answer = await manager.ask("BEGIN")
            # "no connection" if the relay saw the close first, "lost the connection" if BEGIN raced it
            assert DROPPED.match(answer), answer
            assert manager.chatter == [
                f"MESSAGE server 127.0.0.1:{server.port} said: ERROR idle for 0.3 s, closing the connection"
            ]


async def test_a_server_that_never_answers_auth_costs_the_manager_one_second_at_most():
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    accepted: list = []

    async def accept_and_stay_silent() -> None:
        while True:
            accepted.append(await listeners[0].accept())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(accept_and_stay_silent)
        async with relay_process(f"127.0.0.1:{port}", "--token", "t") as (manager, _):
            started = time.monotonic()
            answer = await manager.ask("START 15", timeout=10)
            assert answer == f"ERROR relay: no connection to 127.0.0.1:{port} (no answer within 0.9 s)"
            assert time.monotonic() - started < 2.0  # process start-up + one 0.9 s attempt
        nursery.cancel_scope.cancel()
    assert accepted  # the relay did reach the socket; the silence is what it reported


async def test_about_during_a_search_is_answered_after_the_move_as_by_the_stdio_brain():
    engine = SpinEngine()
    async with serving(brain_handler(engine_factory=lambda: engine)) as server:
        async with relay_process(f"127.0.0.1:{server.port}") as (manager, _):
            assert await manager.ask("START 15") == "OK"
            await manager.send("INFO timeout_turn 1000", "BEGIN", "ABOUT")
            assert await manager.reply() == "0,0"
            assert (await manager.reply()).startswith('name="gomocup-bot relay"')


async def test_manager_closing_its_end_ends_the_relay_quietly(tmp_path):
    errors = tmp_path / "relay.err"
    async with serving(brain_handler()) as server:
        async with relay_process(f"127.0.0.1:{server.port}", stderr_path=errors) as (manager, proc):
            await proc.stdout.aclose()  # the manager stops reading
            await manager.send("START 15", "INFO timeout_turn 100", "BEGIN")
            with trio.fail_after(10):
                assert await proc.wait() == 0
    assert "Traceback" not in errors.read_text()
