"""Many pages at once, hostile messages, abandoned games and the access rules, over real WebSockets.

No browser here: each "page" is a WebSocket client speaking the page's JSON messages, against a real
server process whose engines are real processes (its children, counted from /proc).
"""
from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request

import pytest
import trio
from trio_websocket import ConnectionClosed, HandshakeError, connect_websocket_url, open_websocket_url

from web_helpers import HERE, children_of, wait_no_children

pytestmark = pytest.mark.slow

GARBAGE_TEXT = [
    "not json", "", "{", "[]", "null", "123", '"move"', '{"type": 5}', '{"no": "type"}',
    '{"type": "launch", "cmd": "rm -rf /"}',
    '{"type": "new", "engine": "python3 -c \'import os\'"}',
    '{"type": "new", "engine": "greedy", "size": 1000}',
    '{"type": "new", "engine": "greedy", "size": "15"}',
    '{"type": "new", "engine": "greedy", "size": 15.5}',
    '{"type": "new", "engine": "greedy", "turn": -1}',
    '{"type": "new", "engine": "greedy", "turn": 1e999}',
    '{"type": "new", "engine": "greedy", "rule": "anything goes"}',
    '{"type": "new", "engine": "greedy", "colour": "green"}',
    '{"type": "move", "x": NaN, "y": 1}',
    '{"type": "move", "x": 1, "y": 1}',
    '{"type": "undo"}', '{"type": "swap"}',
    "x" * 5000, "[" * 3000, '{"type": "' + "a" * 3000 + '"}',
]


def ws_url(server) -> str:
    return server.base.replace("http://", "ws://") + "ws"


async def receive(ws, kind: str | None = None, timeout: float = 30.0) -> dict:
    with trio.fail_after(timeout):
        while True:
            message = json.loads(await ws.get_message())
            if kind is None or message["type"] == kind:
                return message


async def settled(ws, timeout: float = 30.0) -> dict:
    """The next state in which the engine is idle (the human to move, or the game over)."""
    with trio.fail_after(timeout):
        while True:
            message = await receive(ws, "state")
            game = message["game"]
            if game and not game["busy"] and (game["result"] or game["to_move"] == game["human"]):
                return game


def next_free(game: dict) -> tuple[int, int]:
    taken = {(x, y) for x, y, _ in game["moves"]}
    for y in (0, game["height"] - 1, 1, game["height"] - 2):
        for x in range(game["width"]):
            if (x, y) not in taken:
                return x, y
    raise AssertionError("board full")


async def play_to_the_end(ws, *, garbage: bool = False) -> dict:
    await ws.send_message(json.dumps({"type": "new", "engine": "greedy", "size": 15, "rule": "freestyle", "turn": 3, "colour": "black"}))
    game = await settled(ws)
    for _ in range(60):
        if game["result"]:
            return game
        x, y = next_free(game)
        await ws.send_message(json.dumps({"type": "move", "x": x, "y": y}))
        if garbage:  # while the engine thinks: another move, an occupied square, nonsense
            for text in ('{"type": "move", "x": 7, "y": 7}', json.dumps({"type": "move", "x": x, "y": y}), "}{", '{"type": "swap"}'):
                await ws.send_message(text)
            await ws.send_message(b"\x00\xff binary")
        game = await settled(ws)
    raise AssertionError("the game did not end")


async def test_twenty_pages_at_once_one_sends_garbage(start_server):
    server = start_server("builtin:greedy", "builtin:random")
    results: dict[int, dict] = {}
    errors: list[str] = []
    all_done = trio.Event()
    finished = [0]

    async def page(i: int) -> None:
        async with open_websocket_url(ws_url(server)) as ws:
            hello = await receive(ws, "hello")
            assert hello["engines"] == ["greedy", "random"]
            if i == 0:
                for text in GARBAGE_TEXT:
                    await ws.send_message(text)
                    errors.append((await receive(ws, "error"))["error"])
                await ws.send_message(b"\x01\x02")
                errors.append((await receive(ws, "error"))["error"])
            results[i] = await play_to_the_end(ws, garbage=(i == 0))
            finished[0] += 1
            if finished[0] == 20:
                all_done.set()
            await all_done.wait()  # keep every page open until all games are over

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            for i in range(20):
                nursery.start_soon(page, i)
            await all_done.wait()
            engines = children_of(server.pid)
    assert len(errors) == len(GARBAGE_TEXT) + 1
    assert any("engine must be one of" in e for e in errors)
    assert len(results) == 20
    for game in results.values():
        assert game["result"]["ending"] == "five", game["result"]
        assert game["result"]["who"] == "greedy"
    assert len(engines) == 20  # one engine process per page while the pages were open
    await trio.to_thread.run_sync(lambda: None)
    assert await trio.to_thread.run_sync(wait_no_children, server.pid) == []
    assert server.proc.poll() is None  # the server is still up
    assert server.stop() == 0


async def test_abandoned_games_end_their_engines_and_limits_hold(start_server, tmp_path):
    thinker = f"thinker={sys.executable} {HERE / 'thinking_brain.py'} --delay 20"
    server = start_server(thinker, "builtin:greedy", "--max-games", "2")
    async with trio.open_nursery() as nursery:
        # two pages start games in which the engine thinks for a long time
        pages = []
        for _ in range(2):
            ws = await connect_websocket_url(nursery, ws_url(server))
            await receive(ws, "hello")
            await ws.send_message(json.dumps({"type": "new", "engine": "thinker", "colour": "white", "turn": 30}))
            await receive(ws, "thinking")
            pages.append(ws)
        assert len(children_of(server.pid)) == 2
        # a third engine would exceed --max-games 2: refused with an error, nothing launched
        async with open_websocket_url(ws_url(server)) as third:
            await receive(third, "hello")
            await third.send_message(json.dumps({"type": "new", "engine": "greedy"}))
            assert "as many engines" in (await receive(third, "error"))["error"]
        assert len(children_of(server.pid)) == 2
        # a new game on the same page while the engine thinks: the thinking engine is cut off
        await pages[0].send_message(json.dumps({"type": "new", "engine": "greedy", "colour": "white"}))
        game = await settled(pages[0])
        assert game["engine"] == "greedy" and len(game["moves"]) == 1
        # both pages vanish, one of them while its engine thinks
        for ws in pages:
            await ws.aclose()
    assert await trio.to_thread.run_sync(wait_no_children, server.pid) == []
    # the server still serves new pages afterwards
    async with open_websocket_url(ws_url(server)) as ws:
        await receive(ws, "hello")
        await ws.send_message(json.dumps({"type": "new", "engine": "greedy", "colour": "white"}))
        game = await settled(ws)
        assert len(game["moves"]) == 1
    assert await trio.to_thread.run_sync(wait_no_children, server.pid) == []


async def test_board_size_rule_and_time_reach_the_engine(start_server, tmp_path):
    log = tmp_path / "thinker.log"
    server = start_server(f"thinker={sys.executable} {HERE / 'thinking_brain.py'} --delay 0 --log {log}")
    async with open_websocket_url(ws_url(server)) as ws:
        await receive(ws, "hello")
        await ws.send_message(json.dumps({"type": "new", "engine": "thinker", "size": 9, "rule": "renju", "turn": 0.5, "colour": "black"}))
        game = await settled(ws)
        assert (game["width"], game["height"], game["rule"], game["clock"]["turn_ms"]) == (9, 9, "renju", 500)
        await ws.send_message(json.dumps({"type": "move", "x": 9, "y": 0}))
        assert "between 0 and 8" in (await receive(ws, "error"))["error"]
        await ws.send_message(json.dumps({"type": "move", "x": 0, "y": 0}))
        game = await settled(ws)
        assert game["moves"][:2] == [[0, 0, game["moves"][0][2]], [4, 4, game["moves"][1][2]]]
    transcript = log.read_text().splitlines()
    for line in ("START 9", "INFO rule 4", "INFO timeout_turn 500", "INFO show_detail 3", "BOARD", "0,0,2"):
        assert line in transcript, (line, transcript)
    assert await trio.to_thread.run_sync(wait_no_children, server.pid) == []


async def test_an_engine_that_crashes_loses_and_the_page_goes_on(start_server):
    fake = HERE.parent / "tournament" / "fake_brain.py"
    server = start_server(f"crasher={sys.executable} {fake} --row 7 --mode crash --at 2", "builtin:greedy")
    async with open_websocket_url(ws_url(server)) as ws:
        await receive(ws, "hello")
        await ws.send_message(json.dumps({"type": "new", "engine": "crasher", "colour": "black", "turn": 2}))
        game = await settled(ws)
        for x, y in ((0, 0), (1, 0)):
            await ws.send_message(json.dumps({"type": "move", "x": x, "y": y}))
            game = await settled(ws)
        assert game["result"]["ending"] == "crash" and game["result"]["who"] == "you"
        await ws.send_message(json.dumps({"type": "undo"}))
        assert "start a new game" in (await receive(ws, "error"))["error"]
        await ws.send_message(json.dumps({"type": "new", "engine": "greedy", "colour": "white"}))
        game = await settled(ws)
        assert game["engine"] == "greedy" and len(game["moves"]) == 1 and not game["result"]
    assert await trio.to_thread.run_sync(wait_no_children, server.pid) == []


def _get(url: str, headers: dict | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


async def test_token_host_and_origin_rules(start_server):
    server = start_server("builtin:greedy", "--token", "s3cret")
    assert "token=s3cret" in server.url
    assert await trio.to_thread.run_sync(_get, server.base) == 403
    assert await trio.to_thread.run_sync(_get, server.base + "?token=wrong") == 403
    assert await trio.to_thread.run_sync(_get, server.base + "?token=s3cret") == 200
    assert await trio.to_thread.run_sync(_get, server.base + "static/app.js", {"Cookie": "gomoku_token=s3cret"}) == 200
    with pytest.raises(HandshakeError):
        async with open_websocket_url(ws_url(server)):
            pass
    async with open_websocket_url(ws_url(server) + "?token=s3cret") as ws:
        assert (await receive(ws, "hello"))["engines"] == ["greedy"]

    plain = start_server("builtin:greedy")
    assert await trio.to_thread.run_sync(_get, plain.base) == 200
    # DNS rebinding: a page served under another name must not reach the board
    assert await trio.to_thread.run_sync(_get, plain.base, {"Host": "attacker.example:80"}) == 403
    assert await trio.to_thread.run_sync(_get, plain.base + "static/nothere.js") == 404
    # a WebSocket opened by another site's page is refused
    with pytest.raises((HandshakeError, ConnectionClosed)):
        async with open_websocket_url(ws_url(plain), extra_headers=[("Origin", "http://attacker.example")]) as ws:
            await receive(ws, "hello", timeout=5)
