"""Games per hour on this machine: local concurrency N against `--cluster local:N`, and what coordinating costs.

Both modes play the same match (same engines, openings, pairs, time control) into a fresh database:
  local     runner.run_tournament with `concurrency` games at once (engines are children of this process)
  cluster   cluster.run_cluster on a Dask local cluster of N worker processes on 127.0.0.1 (the scheduler
            and the nannies live in this process, so they count as coordinator CPU)

Per mode: games, wall time, games per hour, the coordinator's CPU (`time.process_time()` of this process:
manager or coordinator + scheduler + nannies) as a share of wall time and per game, in cluster mode the
worker processes' own CPU (psutil, engines not included), time losses, and the load average. The local
cluster is started before the clock starts and stopped after it stops; what starting and stopping costs
is measured on its own (a `--cluster local:N` run that has nothing left to play).

Scenarios:
  search      builtin:gomocup-bot vs builtin:minimax at --turn seconds per move (default 0.2): real engines
              that think on their clock, the throughput question
  fake-sleep  the tests' fake brain thinking 50 ms per move by sleeping (engines use ~no CPU): isolates
              what the manager, or the coordinator and workers, cost per game

Usage: python benchmarks/cluster_throughput.py [--pairs N] [--turn SEC] [--workers N] [--scenarios a,b] [--modes local,cluster]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tournament.cluster.coordinator import run_cluster  # noqa: E402
from tournament.cluster.target import ClusterTarget  # noqa: E402
from tournament.engines.spec import parse_engine_spec  # noqa: E402
from tournament.play.openings import BUILTIN_OPENINGS  # noqa: E402
from tournament.play.runner import TournamentSettings, prepare_store, run_tournament  # noqa: E402
from tournament.engines.session import GameConfig, TimeControl  # noqa: E402
from tournament.results.store import Store  # noqa: E402

FAKE = Path(__file__).resolve().parents[1] / "tests" / "tournament" / "fake_brain.py"


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def scenario(name: str, turn: float) -> tuple[list[str], TimeControl]:
    if name == "search":
        return ["builtin:gomocup-bot", "builtin:minimax"], TimeControl(turn_ms=int(turn * 1000), tolerance_ms=1000)
    if name == "fake-sleep":
        fake = f"{sys.executable} {FAKE} --delay 0.05"
        return [f"a={fake} --row 0", f"b={fake} --row 2"], TimeControl(turn_ms=1000)
    raise SystemExit(f"unknown scenario {name!r}")


def measure(mode: str, engines: list[str], tc: TimeControl, pairs: int, workers: int) -> dict:
    specs = [parse_engine_spec(e) for e in engines]
    settings = TournamentSettings(
        "match", specs, GameConfig(time=tc, start_timeout=30.0), pairs=pairs, openings=list(BUILTIN_OPENINGS), concurrency=workers
    )
    cluster = None
    if mode == "cluster":
        import distributed
        import psutil

        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None)
        worker_procs = [p for p in psutil.Process().children() if "spawn_main" in " ".join(p.cmdline())]
        worker_cpu0 = sum(sum(p.cpu_times()[:2]) for p in worker_procs)
    try:
        with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.sqlite") as store:
            settings = prepare_store(store, settings, resume=False)
            load_before = loadavg()
            cpu0, wall0 = time.process_time(), time.monotonic()
            if cluster is None:
                summary = trio.run(run_tournament, settings, store)
            else:
                summary = run_cluster(settings, store, None, ClusterTarget(cluster.scheduler_address), warmup=False)
            wall = time.monotonic() - wall0
            cpu = time.process_time() - cpu0
            worker_cpu = sum(sum(p.cpu_times()[:2]) for p in worker_procs) - worker_cpu0 if cluster is not None else None
            games = store.games()
    finally:
        if cluster is not None:
            cluster.close()
    endings = Counter(g.ending.value for g in games)
    return {
        "mode": "local -j %d" % workers if mode == "local" else f"cluster local:{workers}",
        "games": len(games),
        "wall": wall,
        "per_hour": 3600 * len(games) / wall,
        "cpu": cpu,
        "cpu_share": 100 * cpu / wall,
        "cpu_per_game_ms": 1000 * cpu / max(1, len(games)),
        "workers_cpu": "-" if worker_cpu is None else f"{worker_cpu:.2f}",
        "time_losses": endings.get("time-turn", 0) + endings.get("time-match", 0),
        "moves_per_game": sum(len(g.moves) - g.opening_stones for g in games) / max(1, len(games)),
        "moves_per_s": sum(len(g.moves) - g.opening_stones for g in games) / wall,
        "load": f"{load_before} -> {loadavg()}",
        "stopped": summary.stopped_by,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--turn", type=float, default=0.2, help="seconds per move in the search scenario (default 0.2)")
    ap.add_argument("--workers", type=int, default=2, help="local concurrency and local cluster size (default 2)")
    ap.add_argument("--scenarios", default="search,fake-sleep")
    ap.add_argument("--modes", default="local,cluster")
    args = ap.parse_args()
    subprocess.run([sys.executable, "-m", "gomocup_bot", "warmup"], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, {args.pairs} pairs, workers {args.workers}")
    print(
        f"{'scenario':11} {'mode':17} {'games':>5} {'wall s':>7} {'games/h':>8} {'coord CPU s':>11} {'% wall':>7} "
        f"{'ms/game':>8} {'workers CPU s':>13} {'moves/g':>7} {'moves/s':>7} {'t-loss':>6}  load 1/5/15 min before -> after"
    )
    for name in args.scenarios.split(","):
        engines, tc = scenario(name, args.turn)
        for mode in args.modes.split(","):
            r = measure(mode, engines, tc, args.pairs, args.workers)
            print(
                f"{name:11} {r['mode']:17} {r['games']:5d} {r['wall']:7.1f} {r['per_hour']:8.0f} {r['cpu']:11.2f} "
                f"{r['cpu_share']:6.1f}% {r['cpu_per_game_ms']:8.1f} {r['workers_cpu']:>13} {r['moves_per_game']:7.1f} {r['moves_per_s']:7.1f} "
                f"{r['time_losses']:6d}  {r['load']}",
                flush=True,
            )
    if "cluster" in args.modes:
        engines, tc = scenario("fake-sleep", args.turn)
        settings = TournamentSettings("match", [parse_engine_spec(e) for e in engines], GameConfig(time=tc), pairs=1, openings=list(BUILTIN_OPENINGS))
        with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "empty.sqlite") as store:
            settings = prepare_store(store, settings, resume=False)
            run_cluster(settings, store, None, f"local:{args.workers}", warmup=False)  # plays the pair
            wall0 = time.monotonic()
            run_cluster(settings, store, None, f"local:{args.workers}", warmup=False)  # nothing left to play
            print(f"fixed cost of a cluster run (start local:{args.workers}, plan, stop; no game): {time.monotonic() - wall0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
