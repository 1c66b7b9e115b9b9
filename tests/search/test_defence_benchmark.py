"""`benchmarks/defence_set.py` as a real subprocess on the first positions of the defence set: the
outcome records, the summary and the machine's speed reading that lets two machines' shares be
compared (a share at 1 s a move follows the machine's speed: docs/search.md)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "defence_set.py"
DATA = ROOT / "tests" / "search" / "data" / "defence_positions.json"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_two_positions_are_judged_and_the_machine_speed_is_read(tmp_path):
    out = tmp_path / "run.json"
    done = run("builtin:gomocup-bot", "--limit", "2", "--turn", "0.3", "--json", str(out))
    assert done.returncode == 0, done.stderr
    assert re.search(r"held [\d.]+ of 2 positions = [\d.]+ %", done.stdout), done.stdout
    speed = re.search(r"this machine: PVS (\d+) k nodes/s before, (\d+) k after", done.stdout)
    assert speed and int(speed.group(1)) > 0 and int(speed.group(2)) > 0, done.stdout
    records = json.loads(out.read_text())
    positions = json.loads(DATA.read_text())["positions"][:2]
    assert [r["source"] for r in records] == [p["source"] for p in positions]
    for r, p in zip(records, positions):
        occupied = {(x, y) for x, y, _ in p["moves"]}
        assert tuple(r["played"]) not in occupied and all(0 <= v < p["size"] for v in r["played"])
        move = tuple(r["played"])
        expected = ("hold" if move in {tuple(m) for m in p["holding"]}
                    else "unconfirmed" if move in {tuple(m) for m in p["unconfirmed"]} else "lose")
        assert r["outcome"] == expected


def test_no_speed_skips_the_reading_and_bad_arguments_are_refused():
    done = run("builtin:gomocup-bot", "--limit", "1", "--turn", "0.2", "--no-speed")
    assert done.returncode == 0, done.stderr
    assert "held" in done.stdout and "this machine" not in done.stdout
    refused = run("--repeat", "0")
    assert refused.returncode == 2 and "--repeat must be at least 1" in refused.stderr


def test_reference_speed_scales_each_pass_by_the_speed_read_before_it(tmp_path):
    out = tmp_path / "run.json"
    done = run("builtin:gomocup-bot", "--limit", "1", "--repeat", "2", "--turn", "0.5", "--reference-speed", "300",
               "--json", str(out))
    assert done.returncode == 0, done.stderr
    passes = re.findall(r"pass (\d)/2: held \d of 1 at ([\d.]+) s \(PVS (\d+) k nodes/s\)", done.stdout)
    assert [p[0] for p in passes] == ["1", "2"], done.stdout
    turns = []
    for _, turn, speed in passes:
        # the speed printed in whole thousands and the turn to three figures
        assert abs(float(turn) - 0.5 * 300 / int(speed)) < 0.01, done.stdout
        turns.append(float(turn))
    assert [r["turn"] for r in json.loads(out.read_text())] == pytest.approx(turns, abs=0.01)
    mean = re.search(r"at ([\d.]+) s per move \(0\.5 s on a machine of 300 k nodes/s\)", done.stdout)
    assert mean and abs(float(mean.group(1)) - sum(turns) / 2) < 0.01, done.stdout
    for bad, message in ((("--reference-speed", "300", "--no-speed"), "drop --no-speed"),
                         (("--reference-speed", "0"), "must be positive"), (("--turn", "0"), "--turn must be positive")):
        refused = run("builtin:gomocup-bot", *bad)
        assert refused.returncode == 2 and message in refused.stderr, refused.stderr
