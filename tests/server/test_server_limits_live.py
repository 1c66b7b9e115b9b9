"""Each server limit over real loopback sockets: the offender gets an ERROR and/or a closed
connection, and a well-behaved game running at the same time is not affected."""
from __future__ import annotations

import time

import pytest
import trio

from server_testkit import Client, SpinEngine, brain_handler, play_short_game, serving


async def _good_game(port: int, results: list, *, seed: int = 1, server_moves: int = 4) -> None:
    client = await Client.open(port)
    results.append(await play_short_game(client, budget_ms=200, server_moves=server_moves, seed=seed))
    await client.aclose()


def _assert_clean(results: list, games: int = 1) -> None:
    assert len(results) == games
    for record in results:
        assert record.problems == []
        assert len(record.moves) >= 1


async def test_connection_over_the_total_cap_is_refused_with_a_reason():
    async with serving(brain_handler(), max_connections=2, per_address=0) as server:
        first, second = await Client.open(server.port), await Client.open(server.port)
        assert await first.ask("START 15") == "OK"
        third = await Client.open(server.port)
        assert await third.closed_by_server() == ["ERROR server full (2 connections)"]
        assert await second.ask("START 15") == "OK"
        await first.aclose()
        await trio.sleep(0.1)
        fourth = await Client.open(server.port)  # a slot freed up
        assert await fourth.ask("START 15") == "OK"
        assert server.counters.rejected == 1
        for client in (second, third, fourth):
            await client.aclose()


async def test_per_address_cap_refuses_the_extra_connection_only():
    async with serving(brain_handler(), per_address=2) as server:
        playing, other = await Client.open(server.port), await Client.open(server.port)
        assert await other.ask("START 15") == "OK"
        extra = await Client.open(server.port)
        assert await extra.closed_by_server() == ["ERROR too many connections from 127.0.0.1 (limit 2)"]
        record = await play_short_game(playing, budget_ms=200, server_moves=4)
        assert record.problems == [] and len(record.moves) == 4
        assert await other.ask("START 15") == "OK"
        for client in (playing, other):
            await client.aclose()


async def test_allow_list_refuses_loopback_unless_listed():
    async with serving(brain_handler(), allow=_networks("10.0.0.0/8")) as server:
        client = await Client.open(server.port)
        lines = await client.closed_by_server()
        assert lines == ["ERROR address 127.0.0.1 is not in the server's allow-list"]
    async with serving(brain_handler(), allow=_networks("10.0.0.0/8,127.0.0.0/8")) as server:
        client = await Client.open(server.port)
        assert await client.ask("START 15") == "OK"
        await client.aclose()


def _networks(spec: str):
    from gomocup_bot.net.limits import parse_networks

    return parse_networks([spec])


async def test_token_auth_first_line():
    async with serving(brain_handler(), token="open sesame") as server:
        good = await Client.open(server.port)
        assert await good.ask("AUTH open sesame") == "OK"
        assert await good.ask("START 15") == "OK"
        wrong = await Client.open(server.port)
        await wrong.send("AUTH open sesame!")
        assert await wrong.closed_by_server() == ["ERROR authentication failed"]
        missing = await Client.open(server.port)
        await missing.send("START 15")
        assert await missing.closed_by_server() == [
            "ERROR authentication required: the first line must be AUTH <token>"
        ]
        assert await good.ask("START 15") == "OK"  # still served
        assert server.counters.rejected == 2
        await good.aclose()


async def test_silent_client_loses_its_connection_at_the_auth_timeout():
    async with serving(brain_handler(), token="t", auth_timeout=0.3) as server:
        client = await Client.open(server.port)
        started = time.monotonic()
        lines = await client.closed_by_server(timeout=5)
        assert lines == ["ERROR no AUTH in time, closing the connection"]
        assert time.monotonic() - started < 3


async def test_overlong_line_is_refused_and_the_session_goes_on():
    async with serving(brain_handler(), max_line=256) as server:
        results: list = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_good_game, server.port, results)
            client = await Client.open(server.port)
            await client.send("START " + "1" * 5000)
            assert await client.reply() == "ERROR line longer than 256 bytes ignored"
            assert await client.ask("START 15") == "OK"
            await client.aclose()
        _assert_clean(results)


async def test_oversized_board_is_refused_and_block_flood_is_cut():
    async with serving(brain_handler(), max_board=20) as server:
        client = await Client.open(server.port)
        assert await client.ask("START 21") == "ERROR board 21x21 is larger than this server allows (20x20)"
        assert await client.ask("RECTSTART 15,40") == "ERROR board 15x40 is larger than this server allows (20x20)"
        assert await client.ask("START 20") == "OK"
        flood = await Client.open(server.port)
        await flood.send("START 20", "BOARD")
        assert await flood.reply() == "OK"
        with trio.move_on_after(10):  # the server closes mid-way; sending may then fail
            try:
                for i in range(1000):
                    await flood.send(f"{i % 20},{i // 20 % 20},1")
            except trio.BrokenResourceError:
                pass
        lines = await flood.closed_by_server()
        assert lines[-1] == "ERROR BOARD block longer than 400 lines"
        assert await client.ask("START 20") == "OK"
        await client.aclose()


async def test_garbage_flood_is_cut_off_and_others_play_on():
    async with serving(brain_handler(), max_bad_replies=50) as server:
        results: list = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_good_game, server.port, results)
            flood = await Client.open(server.port)
            garbage = bytes(range(256)).replace(b"\n", b"").replace(b"\r", b"")
            with trio.move_on_after(10):
                try:
                    for i in range(2000):
                        await flood.stream.stream.send_all(b"%d" % i + garbage + b"\n")
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    pass
            lines = await flood.closed_by_server()
            assert lines[-1] == "ERROR 50 invalid commands in a row, closing the connection"
            assert len(lines) == 51
        _assert_clean(results)
        assert server.counters.errors >= 51


async def test_slow_client_one_byte_a_second_does_not_hold_up_others():
    async with serving(brain_handler(), slots=2) as server:
        results: list = []
        slow = await Client.open(server.port)

        async def dribble() -> None:
            for byte in b"ABOUT\n":
                await slow.stream.stream.send_all(bytes([byte]))
                await trio.sleep(1.0)

        async def games_meanwhile() -> None:
            for seed in range(3):  # one after the other, all while the slow line trickles in
                await _good_game(server.port, results, seed=seed)

        started = time.monotonic()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(dribble)
            nursery.start_soon(games_meanwhile)
        _assert_clean(results, games=3)
        assert max(t for record in results for t in record.move_seconds) < 1.0  # not stalled
        assert (await slow.reply()).startswith('name="gomocup-bot"')  # and the slow one is served
        assert time.monotonic() - started >= 5.0


async def test_idle_connection_is_closed_but_not_during_a_search():
    async with serving(brain_handler(), idle_timeout=0.5) as server:
        idle = await Client.open(server.port)
        assert await idle.ask("START 15") == "OK"
        started = time.monotonic()
        assert await idle.closed_by_server(timeout=5) == ["ERROR idle for 0.5 s, closing the connection"]
        assert 0.4 < time.monotonic() - started < 3
        # A search longer than the idle timeout is not cut: the manager is waiting, not idle.
        busy = await Client.open(server.port)
        record = await play_short_game(busy, budget_ms=900, server_moves=2)
        assert record.problems == []


async def _wait_for(predicate, timeout: float = 5.0) -> float:
    """Poll until predicate() holds; returns the seconds it took (fails after `timeout`)."""
    started = time.monotonic()
    with trio.fail_after(timeout):
        while not predicate():
            await trio.sleep(0.005)
    return time.monotonic() - started


async def test_client_vanishing_mid_search_frees_its_slot_at_once():
    engine = SpinEngine()
    async with serving(brain_handler(engine_factory=lambda: engine), slots=1) as server:
        gone = await Client.open(server.port)
        assert await gone.ask("START 15") == "OK"
        await gone.send("INFO timeout_turn 20000", "BEGIN")
        await _wait_for(lambda: server.slots.borrowed_tokens == 1)
        await gone.aclose()
        closed_at = time.monotonic()
        assert await _wait_for(lambda: server.slots.borrowed_tokens == 0) < 1.0
        await _wait_for(lambda: engine.searches[0][1] is not None)
        assert engine.searches[0][1] - closed_at < 0.5  # the search itself stopped, not just the slot
        # The next client gets the slot at once: its BEGIN reaches the engine (no quick fallback).
        later = await Client.open(server.port)
        assert await later.ask("START 15") == "OK"
        await later.send("INFO timeout_turn 1000")
        asked = time.monotonic()
        assert await later.ask("BEGIN") == "0,0"
        assert len(engine.searches) == 2
        assert engine.searches[1][0] - asked < 0.5
        assert server.counters.slots_total == 1
        await later.aclose()


async def test_search_longer_than_the_idle_timeout_is_not_cut():
    engine = SpinEngine()
    async with serving(brain_handler(engine_factory=lambda: engine), idle_timeout=0.4) as server:
        client = await Client.open(server.port)
        assert await client.ask("START 15") == "OK"
        await client.send("INFO timeout_turn 2000")
        asked = time.monotonic()
        assert await client.ask("BEGIN") == "0,0"
        assert time.monotonic() - asked > 0.6  # the engine thought longer than the idle timeout
        assert await client.closed_by_server() == ["ERROR idle for 0.4 s, closing the connection"]


async def test_shutdown_mid_search_stops_the_search_and_says_so():
    engine = SpinEngine()
    async with serving(brain_handler(engine_factory=lambda: engine), slots=2) as server:
        searching, waiting = await Client.open(server.port), await Client.open(server.port)
        assert await searching.ask("START 15") == "OK"
        assert await waiting.ask("START 15") == "OK"
        await searching.send("INFO timeout_turn 20000", "BEGIN")
        await _wait_for(lambda: server.slots.borrowed_tokens == 1)
        server.shutdown("test")
        asked = time.monotonic()
        for client in (searching, waiting):
            lines = await client.closed_by_server(timeout=5)
            assert lines[-1] == "MESSAGE server shutting down"
        await _wait_for(lambda: server.stopped.is_set())
        assert time.monotonic() - asked < 1.0
        assert engine.searches[0][1] is not None and engine.searches[0][1] - asked < 0.5
        with pytest.raises(OSError):  # no longer accepting
            await Client.open(server.port)


async def test_each_session_memory_is_capped_unless_the_client_asks_for_less():
    engine = SpinEngine()
    mb = 1024 * 1024
    async with serving(brain_handler(engine_factory=lambda: engine), session_memory=200 * mb) as server:
        for info in ([], ["INFO max_memory 0"], [f"INFO max_memory {4000 * mb}"], [f"INFO max_memory {100 * mb}"]):
            client = await Client.open(server.port)
            await client.send(*info, "INFO timeout_turn 0")
            assert await client.ask("START 15") == "OK"
            assert await client.ask("BEGIN") == "0,0"
            await client.aclose()
    assert engine.max_memory == [200 * mb, 200 * mb, 200 * mb, 100 * mb]


async def test_random_bytes_and_half_valid_commands_never_break_the_server():
    import random

    rng = random.Random(6)
    words = ["START", "BEGIN", "TURN", "BOARD", "DONE", "INFO", "RECTSTART", "TAKEBACK", "YXNBEST",
             "SWAP2BOARD", "YXBLOCK", "PLAY", "RESTART", "ABOUT", "YXSHOWFORBID", "AUTH"]
    async with serving(brain_handler(), slots=2, max_bad_replies=0) as server:
        for round_ in range(3):
            fuzz = await Client.open(server.port)
            payload = bytearray()
            for _ in range(150):
                if rng.random() < 0.5:
                    args = ",".join(str(rng.randint(-3, 40)) for _ in range(rng.randint(0, 3)))
                    payload += f"{rng.choice(words)} {args}".encode()
                else:
                    payload += bytes(rng.randrange(256) for _ in range(rng.randint(0, 60)))
                payload += rng.choice([b"\n", b"\r\n", b"\r"])
            with trio.move_on_after(10):
                try:
                    await fuzz.stream.stream.send_all(bytes(payload))
                    await fuzz.send("END")
                except trio.BrokenResourceError:
                    pass
            await fuzz.closed_by_server(timeout=20)  # it ends (END or limits), it does not hang
            healthy = await Client.open(server.port)
            assert (await healthy.ask("ABOUT")).startswith('name="gomocup-bot"'), round_
            await healthy.aclose()
        await _wait_for(lambda: server.counters.active == 0)  # every session ended, none stuck


async def test_session_kept_waiting_for_a_slot_still_answers_in_its_budget():
    engine = SpinEngine()
    async with serving(brain_handler(engine_factory=lambda: engine), slots=1) as server:
        hog, late = await Client.open(server.port), await Client.open(server.port)
        for client in (hog, late):
            assert await client.ask("START 15") == "OK"
        await hog.send("INFO timeout_turn 20000", "BEGIN")
        await _wait_for(lambda: server.slots.borrowed_tokens == 1)
        await late.send("INFO timeout_turn 1000")
        asked = time.monotonic()
        answer = await late.ask("BEGIN")
        took = time.monotonic() - asked
        # The quick tactical move (greedy opens in the centre), not the slot-holding engine's 0,0,
        # and inside the 1 s budget although the only slot never freed.
        assert answer == "7,7"
        assert 0.3 < took < 1.0
        assert len(engine.searches) == 1
        await hog.aclose()
        await late.aclose()
