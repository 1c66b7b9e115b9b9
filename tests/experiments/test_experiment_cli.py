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


def test_mnk_quick_path_on_one_board_size_with_both_grids(tmp_path: Path):
    # the --quick code path, shrunk to one board side so the suite stays fast (the full --quick run
    # is timed in the committed report's settings line)
    proc = run_cli("mnk", "--quick", "--sizes", "8", "--baseline-games", "2", "--seconds", "0.03", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    report = (tmp_path / "mnk.md").read_text()
    assert "| lim-minimax | tic-tac-toe | 2 |" in report
    assert "k=4:" in report and "k=5:" in report  # both of Lim's k values for 8x8
    assert "grid 1 2/2" in proc.stderr and "grid 2 2/2" in proc.stderr
    assert "## Grid 2: our brain (`gomocup-bot`) vs Lim's minimax" in report
    assert "ours:gomocup-bot first:" in report  # the appendix lists the brain's games
    assert "illegal move" not in report and "crash" not in report


def test_mnk_rejects_bad_sizes_with_exit_code_2(tmp_path: Path):
    proc = run_cli("mnk", "--sizes", "2-40", "--out", str(tmp_path))
    assert proc.returncode == 2
    assert "bad settings" in proc.stderr


def test_threat_tests_quick_path(tmp_path: Path):
    proc = run_cli("threat-tests", "--quick", "--ladder", "100,1000", "--repeats", "1", "--seconds", "0.2",
                   "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    report = (tmp_path / "threat-tests.md").read_text()
    for name in ("defence", "attack", "trap", "balance"):
        assert f"## {name}:" in report
    # our full brain finds a forced answer in the two tactical tests whatever the budget
    assert "| defence | gomocup-bot | (9, 5) | yes |" in report
    assert "| attack | gomocup-bot | (10, 5) | yes |" in report


def test_sudden_quick_path_on_a_few_positions(tmp_path: Path):
    proc = run_cli("sudden", "--quick", "--sizes", "7", "--per-cell", "2", "--configs", "plain-3k,li-trig-3k",
                   "--cost-positions", "3", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    report = (tmp_path / "sudden.md").read_text()
    assert "Table 1 — sudden death, level 4" in report
    assert "| 7 | 80% | 60% |" in report  # Li's numbers sit beside ours
    assert "Mean triggered-minimax time / mean move time" in report


def test_sudden_rejects_unknown_configuration(tmp_path: Path):
    proc = run_cli("sudden", "--configs", "nonsense", "--out", str(tmp_path))
    assert proc.returncode == 2
    assert "unknown configuration" in proc.stderr
