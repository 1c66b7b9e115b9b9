"""Labels from a teacher engine, end to end: `train-eval --positions-out` lists the kept positions,
`gomocup-tournament evaluate` has a real engine (our brain, a real process) judge them and resumes
an interrupted file, and `train-eval --teacher` fits on exactly the positions it labelled. The
label arithmetic is checked against values worked out by hand, the scale fit on data drawn from a
known scale."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gomocup_bot.core.evaltables import load
from gomocup_bot.training import features, records, teacher
from gomocup_bot.training.records import GameRecord

ROOT = Path(__file__).resolve().parents[2]


def run(module: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.slow
def test_positions_evaluated_by_an_engine_become_the_labels(games, tmp_path) -> None:
    positions = tmp_path / "kept.jsonl"
    proc = run("gomocup_bot", "train-eval", str(games), "--positions-out", str(positions))
    assert proc.returncode == 0, proc.stderr
    listed = [json.loads(line) for line in positions.read_text().splitlines()]
    recs = list(records.read(games))
    rows = features.rows_of(recs)
    expected = {(r.moves[: 2 * int(p)]) for r in recs for p, g in zip(rows.ply, rows.game) if g == r.id}
    assert {p["moves"] for p in listed} == expected and len(listed) == len(expected)
    assert all(p["rule"] == "freestyle" and p["size"] == 15 for p in listed)

    labels = tmp_path / "teacher.jsonl"
    first = run("tournament.cli", "evaluate", str(positions), "--engine", "builtin:gomocup-bot", "--turn", "0.05",
                "--limit", "40", "--out", str(labels), "--no-warmup", "-q")
    assert first.returncode == 0, first.stderr
    assert len(labels.read_text().splitlines()) == 40
    # a second run resumes: it skips what the file holds and appends the rest
    second = run("tournament.cli", "evaluate", str(positions), "--engine", "builtin:gomocup-bot", "--turn", "0.05",
                 "--out", str(labels), "--no-warmup", "-q", "-j", "2")
    assert second.returncode == 0, second.stderr
    written = [json.loads(line) for line in labels.read_text().splitlines()]
    assert sorted(w["moves"] for w in written) == sorted(p["moves"] for p in listed)
    assert all(w["engine"] == "gomocup-bot" for w in written)
    # an answer may carry no value (a quick fallback on a loaded machine): it is written as said,
    # and the teacher reader skips it
    assert sum(1 for w in written if "eval" in w or "mate" in w) >= 0.8 * len(written)

    out = tmp_path / "w.gbw"
    proc = run("gomocup_bot", "train-eval", str(games), "--teacher", str(labels), "--teacher-scale", "250",
               "--out", str(out), "--iters", "50", "--no-ordering")
    assert proc.returncode == 0, proc.stderr
    note = load(out).notes["trained"]["freestyle"]
    valued = sum(1 for w in written if w.get("mate") or w.get("eval") is not None)
    assert note["taught_rows"] == valued and note["teacher_scale"] == 250.0
    assert note["rows"] + note["held_out_rows"] == valued


def test_teacher_values_become_searched_values_in_our_units() -> None:
    rec = GameRecord(0, "freestyle", 15, 2, "hhiihjgjhkhl", [None, None, 10, -20, 30, -40, 50], winner=1)
    rows = features.game_rows(rec)
    assert len(rows) >= 3
    key = lambda ply: ("freestyle", rec.moves[: 2 * ply])  # noqa: E731
    plies = [int(p) for p in rows.ply]
    table = {key(plies[0]): (300.0, None), key(plies[1]): (None, 7), key(plies[2]): (None, -3)}
    ev, mate = teacher.values_of(rows, {0: ("freestyle", rec.moves)}, table)
    assert ev[0] == 300.0 and list(mate[:3]) == [0, 1, -1] and np.isnan(ev[1:]).all()
    got = teacher.scores(ev, mate, 600.0, 0.95, 250.0)
    cap = 250.0 * math.log(0.95 / 0.05)
    assert got[0] == pytest.approx(125.0) and got[1] == pytest.approx(cap) and got[2] == pytest.approx(-cap)


def test_the_scale_fit_recovers_a_known_scale() -> None:
    rng = np.random.default_rng(3)
    ev = rng.normal(0, 500, 20000)
    result = (rng.random(20000) < 1 / (1 + np.exp(-ev / 300))).astype(float)
    assert teacher.fit_scale(ev, result) == pytest.approx(300, rel=0.12)


def test_bad_teacher_and_position_files_are_refused(games, tmp_path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"rule": "freestyle", "moves": "hh", "eval": 3}\nnot json at all\n{"rule": "x", "moves": ""}\n')
    proc = run("gomocup_bot", "train-eval", str(games), "--teacher", str(bad), "--out", str(tmp_path / "w.gbw"))
    assert proc.returncode == 2 and "bad.jsonl:2: not a teacher label" in proc.stderr
    occupied = tmp_path / "pos.jsonl"
    occupied.write_text('{"rule": "freestyle", "moves": "hhii"}\n{"rule": "freestyle", "moves": "hhhh"}\n')
    proc = run("tournament.cli", "evaluate", str(occupied), "--engine", "builtin:gomocup-bot",
               "--out", str(tmp_path / "o.jsonl"))
    assert proc.returncode == 2 and "pos.jsonl:2" in proc.stderr
    assert not (tmp_path / "o.jsonl").exists()  # refused before any engine started
