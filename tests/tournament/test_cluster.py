"""`--cluster local:2`: real Dask local clusters on 127.0.0.1, real manager, worker and engine processes.

What is checked: the plan slots a local run would record, exactly once each, also when a worker process
or the coordinator is killed mid-run; crashes recorded as locally; SPRT and SIGTERM stops; bad input.
"""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tour_helpers import fake_command
from tournament.cluster.target import ClusterError, ClusterTarget, parse_cluster

CLI = [sys.executable, "-c", "import sys; from tournament.cli import main; sys.exit(main())"]
SLOT_COLUMNS = "slot, pair_index, black, white, opening_index, opening"


def run_cli(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout)


def rows(db: Path, columns: str) -> list[tuple]:
    with sqlite3.connect(db, timeout=5) as conn:
        return conn.execute(f"SELECT {columns} FROM games ORDER BY slot").fetchall()


def count_games(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process we can read."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        if not stat.rpartition(")")[2].split()[0] == "Z":
            out[int(entry.name)] = (ppid, cmdline)
    return out


def worker_pids(coordinator: int) -> list[int]:
    """The local cluster's worker processes (multiprocessing children of the coordinator)."""
    return [pid for pid, (ppid, cmd) in processes().items() if ppid == coordinator and "spawn_main" in cmd]


def engine_pids(marker: str) -> dict[int, int]:
    """pid -> parent pid of the fake engines carrying this marker."""
    return {pid: ppid for pid, (ppid, cmd) in processes().items() if marker in cmd and "fake_brain" in cmd}


def wait_for(condition, timeout: float, step: float = 0.05) -> bool:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def slow_fakes(marker: str, delay: str = "0.05") -> list[str]:
    """Two fake brains on different rows: ~9 moves a game, `delay` seconds each: games in progress to kill."""
    return [f"a={fake_command('--row', '0', '--delay', delay, '--name', marker)}", f"b={fake_command('--row', '2', '--delay', delay, '--name', marker)}"]


# ------------------------------------------------------------------------------------------ the option
def test_parse_cluster_accepts_addresses_and_local_clusters() -> None:
    assert parse_cluster("local:2") == ClusterTarget(None, 2)
    assert parse_cluster("local").workers >= 1
    assert parse_cluster("tcp://127.0.0.1:8786") == ClusterTarget("tcp://127.0.0.1:8786")
    assert parse_cluster("127.0.0.1:8786") == ClusterTarget("tcp://127.0.0.1:8786")
    assert parse_cluster("tls://scheduler.example:8786/") == ClusterTarget("tls://scheduler.example:8786")
    for bad in ("local:0", "local:x", "local:-1", "tcp://host", "tcp://:8786", "http://h:1", "h:99999", "", "udp://h:1"):
        with pytest.raises(ClusterError):
            parse_cluster(bad)


def test_bad_cluster_values_are_usage_errors(tmp_path: Path) -> None:
    from tournament.cli import main

    db = tmp_path / "m.sqlite"
    assert main(["match", "builtin:greedy", "builtin:random", "--db", str(db), "--cluster", "local:none"]) == 2
    assert main(["match", "builtin:greedy", "builtin:random", "--db", str(db), "--cluster", "local:2", "-j", "3"]) == 2
    assert not db.exists()
    unreachable = run_cli("match", "builtin:greedy", "builtin:random", "--db", str(db), "--cluster", "tcp://127.0.0.1:9", "--no-warmup")
    assert unreachable.returncode == 1
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in unreachable.stderr
    assert "Traceback" not in unreachable.stderr
    no_certificates = run_cli("match", "builtin:greedy", "builtin:random", "--db", str(db), "--cluster", "tls://127.0.0.1:9", "--no-warmup")
    assert no_certificates.returncode == 1
    assert "DASK_DISTRIBUTED__COMM__TLS__CA_FILE" in no_certificates.stderr and "Traceback" not in no_certificates.stderr


def test_without_distributed_the_option_says_how_to_get_it(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['distributed'] = None\n"  # as if the extra were not installed
        "from tournament.cli import main\n"
        f"sys.exit(main(['match', 'builtin:greedy', 'builtin:random', '--db', {str(tmp_path / 'm.sqlite')!r}, '--cluster', 'local:2']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "pip install 'gomocup-bot[cluster]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_help_explains_the_cluster_option() -> None:
    for command in ("match", "gauntlet", "roundrobin", "ladder"):
        text = run_cli(command, "--help").stdout
        assert "--cluster" in text and "local:N" in text and "gomocup-bot[cluster]" in text


# ------------------------------------------------------------------------------------------ real runs
def test_match_on_local_cluster_records_the_local_plan_slots(tmp_path: Path) -> None:
    common = ["builtin:greedy", "builtin:random", "--pairs", "10", "--turn", "1", "--quiet", "--no-warmup", "--openings", "builtin", "--opening-order", "random", "--seed", "7"]
    local = run_cli("match", *common, "--db", str(tmp_path / "local.sqlite"), "-j", "2")
    assert local.returncode == 0, local.stderr
    cluster = run_cli("match", *common, "--db", str(tmp_path / "cluster.sqlite"), "--cluster", "local:2")
    assert cluster.returncode == 0, cluster.stderr
    assert "20 games" in cluster.stdout and "stopped: plan complete" in cluster.stdout
    slots = rows(tmp_path / "cluster.sqlite", SLOT_COLUMNS)
    assert [r[0] for r in slots] == list(range(20))
    assert slots == rows(tmp_path / "local.sqlite", SLOT_COLUMNS)
    # every game was played to its end by the real engines
    assert {r[0] for r in rows(tmp_path / "cluster.sqlite", "ending")} == {"five"}


def test_a_worker_killed_mid_game_costs_a_replay_not_a_game(tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite"
    marker = f"wk-{os.getpid()}-{time.monotonic_ns()}"
    args = ["match", *slow_fakes(marker), "--pairs", "10", "--turn", "5", "--db", str(db), "--cluster", "local:2", "--quiet"]
    coordinator = subprocess.Popen([*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: count_games(db) >= 3, 60)
        victims: list[int] = []

        def thinking(pid: int) -> bool:
            """The fake brain sleeps its --delay while on move: a game is in progress. Its process is
            also some moves old, so the coordinator has long had the game's start from that worker (a
            start still in the dying worker's outbox leaves nothing to call a replay)."""
            try:
                where = Path(f"/proc/{pid}/wchan").read_text()
                started = int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[19])
                uptime = float(Path("/proc/uptime").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                return False
            return "nanosleep" in where and uptime - started / os.sysconf("SC_CLK_TCK") >= 0.2

        def busy_worker() -> bool:
            workers = set(worker_pids(coordinator.pid))
            victims[:] = sorted({ppid for pid, ppid in engine_pids(marker).items() if ppid in workers and thinking(pid)})
            return bool(victims)

        assert wait_for(busy_worker, 20, step=0.01), "a worker should be playing a game"
        os.kill(victims[0], signal.SIGKILL)
        # its engines die with it (parent-death signal), the game is replayed elsewhere
        assert wait_for(lambda: all(ppid != victims[0] for ppid in engine_pids(marker).values()), 10)
        out, err = coordinator.communicate(timeout=120)
    finally:
        if coordinator.poll() is None:
            coordinator.kill()
    assert coordinator.returncode == 0, err
    assert "left" in err and "replayed on" in err and "was lost with that worker" in err
    assert [r[0] for r in rows(db, "slot")] == list(range(20))
    assert "20 games" in out


def test_kill_9_of_the_coordinator_then_resume_plays_exactly_the_missing_games(tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite"
    marker = f"ck-{os.getpid()}-{time.monotonic_ns()}"
    args = ["match", *slow_fakes(marker), "--pairs", "10", "--turn", "5", "--db", str(db), "--cluster", "local:2", "--quiet"]
    coordinator = subprocess.Popen([*CLI, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_for(lambda: count_games(db) >= 4, 60)
        assert wait_for(lambda: bool(engine_pids(marker)), 10), "games should be in progress"
        workers = worker_pids(coordinator.pid)
        assert len(workers) == 2
        coordinator.send_signal(signal.SIGKILL)
        coordinator.wait(timeout=10)
    finally:
        if coordinator.poll() is None:
            coordinator.kill()
    # workers and engines go with the coordinator: nothing plays on for a dead run
    assert wait_for(lambda: not engine_pids(marker) and not set(workers) & set(processes()), 15)
    before = count_games(db)
    assert 4 <= before < 20
    resumed = run_cli("match", "--resume", "--db", str(db), "--cluster", "local:2", "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert [r[0] for r in rows(db, "slot")] == list(range(20))
    assert f"this run: {20 - before} games" in resumed.stdout


def test_an_engine_crashing_on_a_worker_is_recorded_as_locally(tmp_path: Path) -> None:
    engines = [f"crasher={fake_command('--row', '0', '--mode', 'crash', '--at', '3')}", f"steady={fake_command('--row', '2')}"]
    common = ["match", *engines, "--pairs", "2", "--turn", "5", "--quiet"]
    local = run_cli(*common, "--db", str(tmp_path / "local.sqlite"), "-j", "1")
    assert local.returncode == 0, local.stderr
    cluster = run_cli(*common, "--db", str(tmp_path / "cluster.sqlite"), "--cluster", "local:2")
    assert cluster.returncode == 0, cluster.stderr
    columns = "slot, black, white, result, ending, substr(detail, 1, 30)"
    got = rows(tmp_path / "cluster.sqlite", columns)
    assert got == rows(tmp_path / "local.sqlite", columns)
    crashes = [r for r in got if r[4] == "crash"]
    assert len(crashes) == 4 and all(r[5].startswith("crasher: exited while thinking") for r in crashes)


def test_sprt_decision_stops_the_remaining_tasks(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    done = run_cli("match", "builtin:greedy", "builtin:random", "--pairs", "200", "--turn", "1", "--sprt", "0,100", "--db", str(db), "--cluster", "local:2", "--quiet", "--no-warmup")
    assert done.returncode == 0, done.stderr
    assert "stopped: sprt H1" in done.stdout
    games = count_games(db)
    assert 10 <= games <= 40  # decided after a dozen pairs; at most the games in progress then are added
    assert len(set(r[0] for r in rows(db, "slot"))) == games


def test_sigterm_cancels_the_cluster_work_cleanly(tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite"
    marker = f"st-{os.getpid()}-{time.monotonic_ns()}"
    args = ["match", *slow_fakes(marker), "--pairs", "10", "--turn", "5", "--db", str(db), "--cluster", "local:2", "--quiet"]
    coordinator = subprocess.Popen([*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: count_games(db) >= 2 and bool(engine_pids(marker)), 60)
        workers = worker_pids(coordinator.pid)
        coordinator.send_signal(signal.SIGTERM)
        out, err = coordinator.communicate(timeout=30)
    finally:
        if coordinator.poll() is None:
            coordinator.kill()
    assert coordinator.returncode == 130, err
    assert "interrupted (SIGTERM)" in err and "--resume" in err
    assert "Traceback" not in err
    assert not engine_pids(marker) and not set(workers) & set(processes())
    stored = count_games(db)
    assert 2 <= stored < 20
    assert all(r[0] == "five" for r in rows(db, "ending"))


# ------------------------------------------------------------------------------------------ a scheduler of its own
@pytest.fixture
def dask_cluster():
    """`dask scheduler` and `dask worker --nworkers 2` as separate processes on 127.0.0.1, as on several machines."""
    import socket

    from distributed import Client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    started = [
        subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
    ]
    try:
        started.append(
            subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", address, "--host", "127.0.0.1", "--nworkers", "2", "--nthreads", "1", "--no-dashboard"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
        )
        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        yield address, started[1].pid
    finally:
        for process in reversed(started):  # workers first; their processes and engines die with them
            process.kill()
        for process in reversed(started):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


def test_separate_scheduler_and_workers_ladder_and_a_killed_coordinator(tmp_path: Path, dask_cluster) -> None:  # noqa: ANN001
    address, worker_parent = dask_cluster
    # a ladder stops at its game limit on complete pairs (--no-warmup: greedy and random need no numba cache,
    # and a cold cache would make this test pay the whole compile)
    ladder = run_cli(
        "ladder", "builtin:greedy", "builtin:random", f"steady={fake_command('--row', '3')}", "--games", "8",
        "--db", str(tmp_path / "l.sqlite"), "--cluster", address, "--quiet", "--no-warmup",
    )
    assert ladder.returncode == 0, ladder.stderr
    assert "stopped: game limit" in ladder.stdout
    assert [r[0] for r in rows(tmp_path / "l.sqlite", "slot")] == list(range(8))

    # a coordinator killed with -9 releases its tasks: the workers abandon their games and stay up for the resume
    db = tmp_path / "m.sqlite"
    marker = f"rk-{os.getpid()}-{time.monotonic_ns()}"
    args = ["match", *slow_fakes(marker), "--pairs", "3", "--turn", "5", "--db", str(db), "--cluster", address, "--quiet"]
    coordinator = subprocess.Popen([*CLI, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_for(lambda: count_games(db) >= 2 and bool(engine_pids(marker)), 60)
        coordinator.send_signal(signal.SIGKILL)
        coordinator.wait(timeout=10)
    finally:
        if coordinator.poll() is None:
            coordinator.kill()
    assert wait_for(lambda: not engine_pids(marker), 15), "orphaned games should be abandoned"
    assert worker_pids(worker_parent), "the workers stay up"
    before = count_games(db)
    resumed = run_cli("match", "--resume", "--db", str(db), "--cluster", address, "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert [r[0] for r in rows(db, "slot")] == list(range(6))
    assert f"this run: {6 - before} games" in resumed.stdout
