"""`gomocup-bot experiment ...` run as a real process: exit codes, report files, stderr progress."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def run_cli(*args: str, timeout: float = 280) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gomocup_bot", "experiment", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_rps_tictactoe_quick_writes_a_report(tmp_path: Path):
    proc = run_cli("rps-tictactoe", "--quick", "--out", str(tmp_path), "--position", "xx. o.. ...")
    assert proc.returncode == 0, proc.stderr
    report = (tmp_path / "rps-tictactoe.md").read_text()
    assert proc.stdout.strip() == str(tmp_path / "rps-tictactoe.md")
    assert "rps-tictactoe" in proc.stderr  # progress goes to stderr
    assert "| 100000 |" in report  # the convergence table reached the quick playout count
    assert "-2/3" in report and "-1/3" in report
    assert "Requested position `xx. o.. ...`" in report
    assert "Which of Li's claims held" in report


def test_unknown_experiment_is_a_usage_error(tmp_path: Path):
    proc = run_cli("no-such-experiment", "--out", str(tmp_path))
    assert proc.returncode == 2
    assert not list(tmp_path.iterdir())


def test_bad_position_is_reported_not_crashed(tmp_path: Path):
    proc = run_cli("rps-tictactoe", "--quick", "--playouts", "500", "--out", str(tmp_path), "--position", "xxq")
    assert proc.returncode == 0, proc.stderr
    assert "Could not read it" in (tmp_path / "rps-tictactoe.md").read_text()
