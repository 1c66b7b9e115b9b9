"""Load benchmark of `gomocup-bot serve` on loopback: concurrent games against one server process.

For each concurrency level K (default 1, 2, 8, 32) K clients connect at once and each plays short
games (random legal replies, `INFO timeout_turn` = the budget) against a server started here on
127.0.0.1. Reported per level: sessions, server moves per second, and the 50th/99th percentile and
maximum of (move time seen by the client) / budget, plus late (> budget) and illegal answers.
Bounded in count (K x games x moves) and in time (--max-seconds), loopback only.

    .venv/bin/python benchmarks/server_load.py --engine greedy
    .venv/bin/python benchmarks/server_load.py --engine mcts-plain --budget-ms 300

The machine and its load average are printed with the figures: on a shared 2-core box other
processes change the numbers noticeably; compare runs made under similar load only.
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import trio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from protocol.transport import TcpLineStream  # noqa: E402

MOVE = re.compile(r"^(\d+),(\d+)$")


@dataclass
class LevelResult:
    clients: int
    sessions: int = 0
    moves: int = 0
    wall: float = 0.0
    ratios: list[float] = field(default_factory=list)
    late: int = 0
    illegal: int = 0
    failures: list[str] = field(default_factory=list)
    load_before: float = 0.0

    def percentile(self, q: float) -> float:
        if not self.ratios:
            return float("nan")
        ordered = sorted(self.ratios)
        index = min(len(ordered) - 1, max(0, int(round(q * (len(ordered) - 1)))))
        return ordered[index]


async def _reply(stream: TcpLineStream) -> str | None:
    while True:
        line = await stream.receive_line()
        if line is None or line.split(" ", 1)[0].upper() not in ("MESSAGE", "DEBUG"):
            return line


async def play_games(port: int, result: LevelResult, *, games: int, moves: int, budget_ms: int,
                     size: int, seed: int) -> None:
    rng = random.Random(seed)
    budget = budget_ms / 1000
    for _ in range(games):
        stream = TcpLineStream(await trio.open_tcp_stream("127.0.0.1", port))
        try:
            await stream.send_line(f"START {size}")
            if await _reply(stream) != "OK":
                result.failures.append("START not answered OK")
                return
            result.sessions += 1
            for line in (f"INFO timeout_turn {budget_ms}", "INFO timeout_match 0", "INFO rule 0"):
                await stream.send_line(line)
            taken: set[tuple[int, int]] = set()
            command = "BEGIN"
            for _ in range(moves):
                started = time.monotonic()
                await stream.send_line(command)
                with trio.fail_after(budget + 30):
                    answer = await _reply(stream)
                elapsed = time.monotonic() - started
                match = MOVE.match(answer or "")
                if not match:
                    result.failures.append(f"{command} -> {answer!r}")
                    return
                move = (int(match[1]), int(match[2]))
                if move in taken or not (0 <= move[0] < size and 0 <= move[1] < size):
                    result.illegal += 1
                    return
                taken.add(move)
                result.moves += 1
                result.ratios.append(elapsed / budget)
                if elapsed > budget:
                    result.late += 1
                free = [(x, y) for x in range(size) for y in range(size) if (x, y) not in taken]
                if len(free) < 2:
                    break
                mine = rng.choice(free)
                taken.add(mine)
                command = f"TURN {mine[0]},{mine[1]}"
            await stream.send_line("END")
        finally:
            await stream.aclose()


async def run_level(port: int, clients: int, args: argparse.Namespace) -> LevelResult:
    result = LevelResult(clients=clients, load_before=os.getloadavg()[0])
    started = time.monotonic()
    async with trio.open_nursery() as nursery:
        for i in range(clients):
            nursery.start_soon(lambda i=i: play_games(
                port, result, games=args.games, moves=args.moves, budget_ms=args.budget_ms,
                size=args.size, seed=1000 * clients + i))
    result.wall = time.monotonic() - started
    return result


def start_server(args: argparse.Namespace, log_file) -> tuple[subprocess.Popen, int]:
    command = [sys.executable, "-m", "gomocup_bot", "serve", "--host", "127.0.0.1", "--port", "0",
               "--per-address", "0", "--engine", args.engine]
    if args.slots:
        command += ["--search-slots", str(args.slots)]
    command += args.server_arg
    proc = subprocess.Popen(command, cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=log_file)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", Path(log_file.name).read_text())
        if found:
            return proc, int(found[1])
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {Path(log_file.name).read_text()}")
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("server did not start")


def _peak_rss_mb(pid: int) -> float:
    """VmHWM of a live process (Linux), in MB; nan elsewhere."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="greedy")
    parser.add_argument("--budget-ms", type=int, default=200, help="INFO timeout_turn sent by every client")
    parser.add_argument("--levels", default="1,2,8,32", help="concurrent games per level")
    parser.add_argument("--games", type=int, default=2, help="games per client per level")
    parser.add_argument("--moves", type=int, default=8, help="server moves per game")
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--slots", type=int, default=0, help="--search-slots for the server (default: cores)")
    parser.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                        help="one more argument for `gomocup-bot serve` (repeatable), e.g. --server-arg=--keep-tables")
    parser.add_argument("--max-seconds", type=float, default=600, help="give up after this long")
    args = parser.parse_args()
    levels = [int(v) for v in args.levels.split(",") if v.strip()]
    if max(levels) * args.games * args.moves > 20000:
        raise SystemExit("too many moves requested; keep the benchmark bounded")

    print(f"machine: {platform.machine()} {os.cpu_count()} cpu(s), usable {len(os.sched_getaffinity(0))}, "
          f"python {platform.python_version()}, load avg {os.getloadavg()[0]:.2f}")
    print(f"engine {args.engine}, budget {args.budget_ms} ms, {args.games} game(s) x {args.moves} moves per client")
    with tempfile.NamedTemporaryFile("w+b", suffix=".log", delete=False) as log_file:
        proc, port = start_server(args, log_file)
        results: list[LevelResult] = []
        try:
            async def all_levels() -> None:
                with trio.move_on_after(args.max_seconds):
                    for clients in levels:
                        results.append(await run_level(port, clients, args))

            trio.run(all_levels)
            peak_rss_mb = _peak_rss_mb(proc.pid)
        finally:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
        server_log = Path(log_file.name).read_text()
        counters = re.findall(r"counters \(shutdown\): (.*)", server_log)
        fallbacks = len(re.findall(r"no search slot in time", server_log))
        early = len(re.findall(r"sessions already waiting; answering with", server_log))
    print(f"{'games':>5} {'sessions':>8} {'moves':>6} {'wall s':>7} {'moves/s':>8} {'p50 t/b':>8} "
          f"{'p99 t/b':>8} {'max t/b':>8} {'late':>5} {'illegal':>7} {'load':>5}")
    for r in results:
        print(f"{r.clients:>5} {r.sessions:>8} {r.moves:>6} {r.wall:>7.2f} {r.moves / r.wall:>8.1f} "
              f"{r.percentile(0.5):>8.3f} {r.percentile(0.99):>8.3f} {max(r.ratios, default=float('nan')):>8.3f} "
              f"{r.late:>5} {r.illegal:>7} {r.load_before:>5.2f}")
        for failure in r.failures[:3]:
            print(f"      failure: {failure}")
    if counters:
        print(f"server counters: {counters[-1]}")
    print(f"server peak resident memory: {peak_rss_mb:.0f} MB")
    print(f"quick answers because no search slot freed in half the budget: {fallbacks} (all levels)")
    print(f"quick answers at once because the slot queue was already long: {early} (all levels)")
    print(f"server log: {log_file.name}")
    return 0 if all(not r.failures and not r.illegal for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
