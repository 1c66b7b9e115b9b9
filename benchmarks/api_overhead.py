"""What does the engine API cost per move, against speaking the protocol by hand?

One `builtin:random` process (seeded, answering at `turn 0`) plays games against replies chosen
here (seeded too); each engine move is asked for in four ways, over the same wire lines:

  raw      blocking pipes: write `INFO time_left` + `TURN x,y`, read lines until `x,y` (the floor)
  session  the tournament's own layer: `EngineSession.request_move` on trio
  engine   the async API: `await Engine.play(position, Limit(turn=0))` (checks, TURN, judging)
  simple   the sync API: `SimpleEngine.play(...)`, a call across to the engine's trio thread

Each game starts with RESTART (wait for OK) and BEGIN and is cut at `--plies` stones. Before the
clock starts, every variant makes the API's warm-up move (a depth-1 move with no time limit, which
our brain answers only once its engine is loaded), so no variant gets quick fallback moves. The four
variants take turns in rounds, so a change of machine load hits them alike; all four must play the
same moves (the same seed, the same commands), which the script checks. Reported per variant: engine
moves per second of wall time, the median round-trip per move, and this process's own CPU per move
(`time.process_time()`: the API's work, whatever the machine load). `uptime` is printed before and after.

Usage: python benchmarks/api_overhead.py [--moves N] [--rounds R] [--plies P]
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from protocol import messages as m  # noqa: E402
from tournament.engine import Engine, Limit, Position, SimpleEngine  # noqa: E402
from tournament.engines.spec import builtin_argv, parse_engine_spec  # noqa: E402
from tournament.engines.session import EngineSession, Failure, GameConfig, TimeControl  # noqa: E402

SEED = "7"
UNLIMITED = m.UNLIMITED


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return f"load average {os.getloadavg()}"


class Replies:
    """The opponent: a seeded random empty square near the engine's stones."""

    def __init__(self) -> None:
        self.rng = random.Random(1)

    def pick(self, position: Position) -> tuple[int, int]:
        return self.rng.choice(position.legal_moves())


def games(moves: int, plies: int):
    """Yields (position to ask, is_new_game); the caller sends back the engine's move."""
    done = 0
    replies = Replies()
    while done < moves:
        position = Position()
        new = True
        while done < moves and len(position.moves) < plies and not position.is_over():
            move = yield position, new
            done += 1
            new = False
            position = position.push(move)
            if position.is_over():
                break
            position = position.push(replies.pick(position))


# ---------------------------------------------------------------------------------------- the four ways

def run_raw(moves: int, plies: int) -> tuple[list[tuple[int, int]], list[float]]:
    argv = builtin_argv("random", {"seed": SEED})
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    out = proc.stdout
    assert proc.stdin is not None and out is not None
    reader = out  # unbuffered: one readline per reply line

    def send(*lines: str) -> None:
        proc.stdin.write("".join(line + "\r\n" for line in lines).encode())  # type: ignore[union-attr]

    def reply() -> str:
        while True:
            line = reader.readline().decode().strip()
            if not line:
                raise RuntimeError("engine closed")
            if not line.startswith(("MESSAGE", "DEBUG")):
                return line

    send("ABOUT", "START 15")
    reply(), reply()
    send(f"INFO timeout_turn {UNLIMITED}", "INFO timeout_match 0", "INFO max_memory 0", "INFO game_type 1", "INFO rule 0")
    send("INFO max_depth 1", f"INFO time_left {UNLIMITED}", "BOARD", "7,7,2", "DONE")  # the warm-up move
    reply()
    played: list[tuple[int, int]] = []
    times: list[float] = []
    gen = games(moves, plies)
    position, new = next(gen)
    try:
        while True:
            t0 = time.perf_counter()
            if new:
                send("RESTART")
                assert reply() == "OK"
                send("INFO timeout_turn 0", "INFO timeout_match 0", "INFO max_memory 0", "INFO game_type 1", "INFO rule 0",
                     "INFO max_depth 0", f"INFO time_left {UNLIMITED}", "BEGIN")
            else:
                x, y = position.moves[-1]
                send(f"INFO time_left {UNLIMITED}", f"TURN {x},{y}")
            text = reply()
            times.append(time.perf_counter() - t0)
            move = tuple(int(v) for v in text.split(","))
            played.append(move)  # type: ignore[arg-type]
            position, new = gen.send(move)
    except StopIteration:
        pass
    finally:
        send("END")
        proc.stdin.close()
        proc.wait()
    return played, times


async def run_session(moves: int, plies: int) -> tuple[list[tuple[int, int]], list[float]]:
    spec = parse_engine_spec(f"builtin:random?seed={SEED}")
    config = GameConfig(time=TimeControl(turn_ms=0, match_ms=None), start_timeout=30.0)
    played: list[tuple[int, int]] = []
    times: list[float] = []
    async with trio.open_nursery() as nursery:
        session = EngineSession(spec, nursery)
        session.ask_about = True
        unlimited = GameConfig(time=TimeControl(turn_ms=None, match_ms=None), start_timeout=30.0)
        assert await session.begin_game(unlimited) is None
        warm = await session.request_move(m.Board(((7, 7, 2),)), unlimited, infos=[m.Info("max_depth", "1")])
        assert not isinstance(warm, Failure), warm
        gen = games(moves, plies)
        position, new = next(gen)
        try:
            while True:
                t0 = time.perf_counter()
                infos: list[m.Command] = []
                if new:
                    assert await session.begin_game(config) is None
                    command: m.Command = m.Begin()
                    infos = [m.Info("max_depth", "0")]
                else:
                    command = m.Turn(*position.moves[-1])
                answer = await session.request_move(command, config, infos=infos)
                times.append(time.perf_counter() - t0)
                assert not isinstance(answer, Failure), answer
                move = (answer.x, answer.y)
                played.append(move)
                position, new = gen.send(move)
        except StopIteration:
            pass
        finally:
            await session.close()
    return played, times


async def run_engine(moves: int, plies: int) -> tuple[list[tuple[int, int]], list[float]]:
    played: list[tuple[int, int]] = []
    times: list[float] = []
    async with Engine.builtin("random", seed=SEED) as engine:
        gen = games(moves, plies)
        position, _ = next(gen)
        try:
            while True:
                t0 = time.perf_counter()
                result = await engine.play(position, Limit(turn=0))
                times.append(time.perf_counter() - t0)
                played.append(result.move)
                position, _ = gen.send(result.move)
        except StopIteration:
            pass
    return played, times


def run_simple(moves: int, plies: int) -> tuple[list[tuple[int, int]], list[float]]:
    played: list[tuple[int, int]] = []
    times: list[float] = []
    with SimpleEngine.builtin("random", seed=SEED) as engine:
        gen = games(moves, plies)
        position, _ = next(gen)
        try:
            while True:
                t0 = time.perf_counter()
                result = engine.play(position, Limit(turn=0))
                times.append(time.perf_counter() - t0)
                played.append(result.move)
                position, _ = gen.send(result.move)
        except StopIteration:
            pass
    return played, times


VARIANTS = {
    "raw": lambda n, p: run_raw(n, p),
    "session": lambda n, p: trio.run(run_session, n, p),
    "engine": lambda n, p: trio.run(run_engine, n, p),
    "simple": lambda n, p: run_simple(n, p),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=300, help="engine moves per variant and round (default 300)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of all four variants (default 3)")
    ap.add_argument("--plies", type=int, default=60, help="stones after which a game is cut and a new one begins")
    args = ap.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus")
    print("before:", uptime())
    wall: dict[str, float] = {k: 0.0 for k in VARIANTS}
    cpu: dict[str, float] = {k: 0.0 for k in VARIANTS}
    rtts: dict[str, list[float]] = {k: [] for k in VARIANTS}
    reference = None
    for _ in range(args.rounds):
        for name, run in VARIANTS.items():
            c0, w0 = time.process_time(), time.perf_counter()
            played, times = run(args.moves, args.plies)
            cpu[name] += time.process_time() - c0
            wall[name] += sum(times)
            rtts[name] += times
            if reference is None:
                reference = played
            elif played != reference:
                raise SystemExit(f"{name} played other moves than the first variant: not the same work")
    print("after: ", uptime())
    total = args.moves * args.rounds
    print(f"\n{total} engine moves per variant (games cut at {args.plies} stones), builtin:random at turn 0")
    print(f"{'variant':8} {'moves/s':>9} {'median ms':>10} {'p90 ms':>8} {'our CPU ms/move':>16} {'vs raw':>8}")
    for name in VARIANTS:
        rate = total / wall[name]
        ordered = sorted(rtts[name])
        print(f"{name:8} {rate:9.0f} {statistics.median(ordered) * 1000:10.2f} {ordered[int(0.9 * len(ordered))] * 1000:8.2f} "
              f"{cpu[name] / total * 1000:16.3f} {wall[name] / wall['raw']:7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
