"""Helpers for the server and relay tests: servers on 127.0.0.1, protocol clients, game drivers.

Everything here talks over real loopback sockets or real processes; nothing is mocked.
"""
from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import AsyncIterator

import trio

from gomocup_bot.net.server import BotServer, SessionHandler
from gomocup_bot.net.limits import ServerLimits
from protocol.transport import TcpLineStream

REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


# ---- in-process servers -------------------------------------------------------------------------


@asynccontextmanager
async def serving(handler: SessionHandler, *, slots: int = 1, port: int = 0, **limits) -> AsyncIterator[BotServer]:
    """A BotServer on 127.0.0.1 (a free port unless given) for the duration of the block."""
    server = BotServer(ServerLimits(**limits), handler, search_slots=slots)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve, "127.0.0.1", port)
        try:
            yield server
        finally:
            server.shutdown("test over")
            with trio.move_on_after(5):
                await server.stopped.wait()
            nursery.cancel_scope.cancel()


# ---- protocol clients ---------------------------------------------------------------------------


class Client:
    """The manager side of one connection: send lines, read replies (MESSAGE/DEBUG skipped)."""

    def __init__(self, stream: TcpLineStream) -> None:
        self.stream = stream
        self.chatter: list[str] = []

    @classmethod
    async def open(cls, port: int, host: str = "127.0.0.1") -> "Client":
        return cls(TcpLineStream(await trio.open_tcp_stream(host, port)))

    async def send(self, *lines: str) -> None:
        for line in lines:
            await self.stream.send_line(line)

    async def reply(self, timeout: float = 10.0) -> str | None:
        """The next answer line; None when the server closed the connection."""
        with trio.fail_after(timeout):
            while True:
                line = await self.stream.receive_line()
                if line is None:
                    return None
                if line.split(" ", 1)[0].upper() in ("MESSAGE", "DEBUG"):
                    self.chatter.append(line)
                    continue
                return line

    async def ask(self, line: str, timeout: float = 10.0) -> str | None:
        await self.send(line)
        return await self.reply(timeout)

    async def closed_by_server(self, timeout: float = 10.0) -> list[str]:
        """Read until the server closes; returns every line seen on the way (fails on timeout)."""
        seen: list[str] = []
        with trio.fail_after(timeout):
            while (line := await self.stream.receive_line()) is not None:
                seen.append(line)
        return seen

    async def aclose(self) -> None:
        await self.stream.aclose()


MOVE = re.compile(r"^(\d+),(\d+)$")


@dataclass
class GameRecord:
    """What a driven game produced: the server's moves with their times, and any problem seen."""

    moves: list[tuple[int, int]] = field(default_factory=list)
    move_seconds: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


async def play_short_game(
    client: Client, *, size: int = 15, budget_ms: int = 100, server_moves: int = 5, seed: int = 0,
    tolerance: float = 1.0,
) -> GameRecord:
    """Play `server_moves` moves against the server with random legal replies and check each answer.

    A problem is recorded for an answer that is not a move, is off the board or occupied, or comes
    later than the budget plus `tolerance` seconds (the Gomocup manager's tolerance is 1 s).
    """
    rng = random.Random(seed)
    record = GameRecord()
    taken: set[tuple[int, int]] = set()
    answer = await client.ask(f"START {size}")
    if answer != "OK":
        record.problems.append(f"START answered {answer!r}")
        return record
    await client.send(f"INFO timeout_turn {budget_ms}", "INFO timeout_match 0", "INFO rule 0")
    command = "BEGIN"
    for _ in range(server_moves):
        started = time.monotonic()
        answer = await client.ask(command, timeout=budget_ms / 1000 + tolerance + 30)
        elapsed = time.monotonic() - started
        match = MOVE.match(answer or "")
        if not match:
            record.problems.append(f"{command} answered {answer!r}")
            return record
        move = (int(match[1]), int(match[2]))
        if not (0 <= move[0] < size and 0 <= move[1] < size) or move in taken:
            record.problems.append(f"illegal move {move} after {command}")
            return record
        if elapsed > budget_ms / 1000 + tolerance:
            record.problems.append(f"move {move} took {elapsed:.3f} s for a {budget_ms} ms budget")
        taken.add(move)
        record.moves.append(move)
        record.move_seconds.append(elapsed)
        free = [(x, y) for x in range(size) for y in range(size) if (x, y) not in taken]
        mine = rng.choice(free)
        taken.add(mine)
        command = f"TURN {mine[0]},{mine[1]}"
    await client.send("END")
    return record


# ---- processes ----------------------------------------------------------------------------------


class ServerProcess:
    """`gomocup-bot serve` as a real process on 127.0.0.1 with a free port; stderr kept in a file."""

    def __init__(self, tmp_path: Path, *args: str, start_timeout: float = 30.0) -> None:
        self.log_path = tmp_path / f"serve-{os.getpid()}-{time.monotonic_ns()}.log"
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [PYTHON, "-m", "gomocup_bot", "serve", "--host", "127.0.0.1", "--port", "0", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._log, cwd=REPO,
        )
        self.port = self._wait_for_port(start_timeout)

    def _wait_for_port(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(r"listening on 127\.0\.0\.1:(\d+)", self.log())
            if found:
                return int(found[1])
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log()}")
            time.sleep(0.02)
        raise RuntimeError(f"server did not start:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def signal(self, signum: int) -> None:
        self.proc.send_signal(signum)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


# ---- the brain behind in-process servers --------------------------------------------------------


def brain_handler(engine: str = "greedy", engine_factory=None) -> SessionHandler:
    """The real brain session (`run_brain`), as `gomocup-bot serve --engine ENGINE` runs it."""
    from gomocup_bot.brain.runner import BrainOptions, run_brain

    options = BrainOptions(engine_name=engine)

    async def handle(stream, slots: trio.CapacityLimiter) -> None:
        await run_brain(stream, options=options, search_slots=slots, engine_factory=engine_factory)

    return handle


class SpinEngine:
    """A real engine with a predictable clock: it "thinks" until its soft deadline or its stop flag,
    then plays the first empty square. Records every search's start and end (monotonic seconds)."""

    name = "spin"

    def __init__(self) -> None:
        self.searches: list[tuple[float, float | None]] = []
        self.max_memory: list[int] = []  # request.max_memory of each search

    def prepare(self) -> None:
        pass

    def new_game(self, width, height, rules) -> None:
        pass

    def search(self, request, stop):
        from gomocup_bot.engine import SearchResult

        index = len(self.searches)
        self.searches.append((time.monotonic(), None))
        self.max_memory.append(request.max_memory)
        while not stop.is_set() and time.monotonic() < request.limits.soft_deadline:
            time.sleep(0.002)
        self.searches[index] = (self.searches[index][0], time.monotonic())
        taken = request.position.occupied()
        pos = request.position
        move = next((x, y) for y in range(pos.height) for x in range(pos.width) if (x, y) not in taken)
        return SearchResult(move=move)


@asynccontextmanager
async def relay_process(address: str, *args: str, stderr_path: Path | None = None) -> AsyncIterator[tuple[Client, trio.Process]]:
    """`gomocup-bot connect ADDRESS` as a real process, driven over its stdin/stdout pipes."""
    from protocol.transport import StreamLineStream

    err = open(stderr_path, "wb") if stderr_path else subprocess.DEVNULL
    proc = await trio.lowlevel.open_process(
        [PYTHON, "-m", "gomocup_bot", "connect", address, *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, cwd=REPO,
    )
    assert proc.stdin is not None and proc.stdout is not None
    client = Client(StreamLineStream(trio.StapledStream(proc.stdin, proc.stdout)))  # type: ignore[arg-type]
    try:
        yield client, proc
    finally:
        with trio.CancelScope(shield=True):
            if proc.returncode is None:
                proc.kill()
            await proc.wait()
            if stderr_path:
                err.close()  # type: ignore[union-attr]
