"""The command line as users run it: real manager processes, kill -9 and --resume, report, export, help."""
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

CLI = [sys.executable, "-c", "import sys; from tournament.cli import main; sys.exit(main())"]


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout)


def engine_pids(marker: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if marker in cmdline and "fake_brain" in cmdline:
                pids.append(int(entry.name))
    return pids


def count_games(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_kill_9_mid_tournament_then_resume_gives_exactly_the_plan(tmp_path: Path) -> None:
    db = tmp_path / "rr.sqlite"
    marker = f"marker-{os.getpid()}-{time.monotonic_ns()}"
    engines = [f"e{i}={fake_command('--row', str(2 * i), '--delay', '0.04', '--name', marker)}" for i in range(3)]
    args = ["roundrobin", *engines, "--pairs", "3", "--db", str(db), "--turn", "2", "-j", "2", "--quiet"]
    manager = subprocess.Popen([*CLI, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while count_games(db) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert count_games(db) >= 4
        assert engine_pids(marker), "games should be in progress when the manager is killed"
        manager.send_signal(signal.SIGKILL)
        manager.wait(timeout=10)
    finally:
        if manager.poll() is None:
            manager.kill()
    killed_at = count_games(db)
    assert 4 <= killed_at < 18
    deadline = time.monotonic() + 5
    while engine_pids(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not engine_pids(marker), "engines must not outlive a killed manager"

    result = run_cli("roundrobin", "--db", str(db), "--resume", "-j", "2", "--quiet")
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(db) as conn:
        slots = [row[0] for row in conn.execute("SELECT slot FROM games ORDER BY slot")]
        pairs = conn.execute("SELECT COUNT(DISTINCT black || '/' || white || '/' || pair_index) FROM games").fetchone()[0]
    assert slots == list(range(18))  # every planned game exactly once
    assert pairs == 18
    assert "18 games" in result.stdout
    # resuming a finished tournament plays nothing
    again = run_cli("roundrobin", "--db", str(db), "--resume", "--quiet")
    assert again.returncode == 0 and "this run: 0 games" in again.stdout


def test_match_report_and_export(tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite"
    a = f"alpha={fake_command('--row', '0')}"
    b = f"beta={fake_command('--row', '2', '--mode', 'offboard', '--at', '2')}"
    result = run_cli("match", a, b, "--pairs", "2", "--db", str(db), "--turn", "1", "--openings", "none", "--psq", str(tmp_path / "psq"))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # not a terminal: no progress line
    lines = result.stdout.splitlines()
    assert lines[2].split()[1] == "alpha" and "4-0-0" in lines[2]
    assert "off-board 4" in lines[3]
    report = run_cli("report", str(db))
    assert report.returncode == 0 and "alpha" in report.stdout and "beta" in report.stdout
    # no opening: alpha won its two games as black and its two as white
    colours = report.stdout.split("by the opening's stones")[1].splitlines()
    assert colours[1].split() == ["black", "0", "white", "0"]
    assert colours[2].split() == ["alpha", "2/2", "2/2"] and colours[3].split() == ["beta", "0/2", "0/2"]
    psq = sorted((tmp_path / "psq").glob("*.psq"))
    assert len(psq) == 4
    first = psq[0].read_text().splitlines()
    assert first[0] == "Piskvorky 15x15, 11:11, 0" and first[1].startswith("1,1,")  # alpha's first move, 1-based
    assert first[-3:] == ["alpha", "beta", "-1"]
    export = run_cli("export", str(db), "--sgf", str(tmp_path / "sgf"))
    assert export.returncode == 0 and "exported 4 games" in export.stdout
    sgf = sorted((tmp_path / "sgf").glob("*.sgf"))[0].read_text()
    assert sgf.startswith("(;FF[4]GM[4]") and "PB[alpha]PW[beta]RE[B+1]" in sgf and ";B[aa]" in sgf


@pytest.mark.parametrize("command", [[], ["match"], ["gauntlet"], ["roundrobin"], ["ladder"], ["report"], ["export"]])
def test_help_everywhere(command: list[str]) -> None:
    result = run_cli(*command, "--help")
    assert result.returncode == 0
    assert "usage: gomocup-tournament" in result.stdout
    assert len(result.stdout) > 200


def test_usage_errors_are_clean(tmp_path: Path) -> None:
    bad = run_cli("match", "tcp://nohost", "builtin:greedy", "--db", str(tmp_path / "x.sqlite"))
    assert bad.returncode == 2 and "tcp://HOST:PORT" in bad.stderr and "Traceback" not in bad.stderr
    missing = run_cli("report", str(tmp_path / "none.sqlite"))
    assert missing.returncode == 2 and "no database" in missing.stderr
    rule = run_cli("match", "a", "b", "--rule", "chess", "--db", str(tmp_path / "y.sqlite"))
    assert rule.returncode == 2 and "unknown rule" in rule.stderr


def test_oversubscription_warns(tmp_path: Path) -> None:
    a, b = f"a={fake_command('--row', '0')}", f"b={fake_command('--row', '2')}"
    result = run_cli("match", a, b, "--pairs", "1", "-j", "64", "--db", str(tmp_path / "o.sqlite"))
    assert result.returncode == 0
    assert "warning: 64 games at once" in result.stderr


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_stops_cleanly_and_resume_finishes(tmp_path: Path, signum: int) -> None:
    db = tmp_path / "i.sqlite"
    marker = f"int-{signum}-{os.getpid()}-{time.monotonic_ns()}"
    a = f"a={fake_command('--row', '0', '--delay', '0.05', '--name', marker)}"
    b = f"b={fake_command('--row', '2', '--delay', '0.05', '--name', marker)}"
    manager = subprocess.Popen(
        [*CLI, "match", a, b, "--pairs", "4", "--db", str(db)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # background jobs may inherit SIG_IGN
    )
    deadline = time.monotonic() + 30
    while count_games(db) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    manager.send_signal(signum)
    out, err = manager.communicate(timeout=30)
    assert manager.returncode == 130, err
    assert "interrupted" in err and "--resume" in err and "Traceback" not in err
    assert "stopped: interrupted" in out
    assert not engine_pids(marker)
    done = count_games(db)
    assert 2 <= done < 8
    result = run_cli("match", "--db", str(db), "--resume", "--quiet")
    assert result.returncode == 0 and f"this run: {8 - done} games" in result.stdout


def test_ladder_with_no_engines_uses_the_builtins(tmp_path: Path) -> None:
    from tournament.engines.spec import available_builtins

    builtins = available_builtins()
    assert {"random", "greedy"} <= set(builtins)
    # --no-warmup: the first couple chosen (random, greedy) is pure Python, so no kernel compiling is needed
    result = subprocess.run([*CLI, "ladder", "--games", "2", "--quiet", "--no-warmup"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "ladder.sqlite").exists()  # the default database, in the working directory
    with sqlite3.connect(tmp_path / "ladder.sqlite") as conn:
        specs = [row[0] for row in conn.execute("SELECT spec FROM engines ORDER BY rowid")]
        played = conn.execute("SELECT COUNT(*), COUNT(DISTINCT black) FROM games").fetchone()
    assert specs == [f"builtin:{name}" for name in builtins]
    assert played == (2, 2)  # one pair, colours swapped
    assert result.stderr == ""
    assert "this run: 2 games" in result.stdout and "stopped: game limit" in result.stdout


MATCHES = Path(__file__).resolve().parents[2] / "data" / "matches"


def test_report_piped_into_head_ends_quietly(tmp_path: Path) -> None:
    """`report DB | head -3`: the reader closes the pipe early; the report stops without a traceback."""
    db = tmp_path / "m.sqlite"
    db.write_bytes((MATCHES / "defence-rounds-vs-base.sqlite").read_bytes())
    proc = subprocess.run(f"{subprocess.list2cmdline(CLI)} report {db} | head -3", shell=True, capture_output=True,
                          text=True, timeout=120)
    assert proc.stdout.count("\n") == 3 and "engine" in proc.stdout
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr


def test_report_replays_the_sprt_of_a_real_match(tmp_path: Path) -> None:
    """The committed defence match ran with --sprt 0,60 and stopped the moment H1 was accepted (108
    games): replayed by `report`, the LLR must cross H1 at the last game and never before; for the
    other engine the same games accept H0, earlier; a bound the games never reach says so."""
    db = tmp_path / "m.sqlite"
    db.write_bytes((MATCHES / "defence-rounds-vs-base.sqlite").read_bytes())  # report must not touch the committed file
    stored = run_cli("report", str(db))
    assert stored.returncode == 0, stored.stderr
    assert "SPRT [0, 60] for pbrain-rounds" in stored.stdout and "-> H1 after 108 games" in stored.stdout
    assert "first crossed: H1 after 108 games" in stored.stdout
    other = run_cli("report", str(db), "--sprt", "0,60", "--engine", "pbrain-base22")
    assert "-> H0 after 108 games" in other.stdout
    first = int(other.stdout.split("first crossed: H0 after ")[1].split()[0])
    assert 2 <= first < 108
    assert "then" not in stored.stdout  # it stopped there: the other bound was never reached
    wide = run_cli("report", str(db), "--sprt", "0,30")
    assert "-> undecided" in wide.stdout and "never crossed a bound" in wide.stdout
    for bad, message in ((["--sprt", "x"], "--sprt wants ELO0,ELO1"), (["--sprt", "0,60", "--engine", "nobody"], "say which engine")):
        refused = run_cli("report", str(db), *bad)
        assert refused.returncode != 0 and message in refused.stderr
