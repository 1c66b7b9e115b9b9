"""`gomocup-bot train-net` end to end on a few real self-play games: it writes a sound weights
file, an interrupted run resumes, a warm start takes an earlier run's net, and a bad warm-start
file stops the run with the reason (skipped where torch, the optional [train] extra, is absent)."""
from __future__ import annotations

import argparse
import gzip
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gomocup_bot.neteval import weights as W  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "data" / "selfplay" / "freestyle-net1-s51.jsonl.gz"
GAMES_20 = ROOT / "data" / "selfplay" / "freestyle20-s61.jsonl.gz"  # 20 x 20 self-play
SMALL = ["--feature", "8", "--hidden", "4", "--mapping", "8", "--batch", "128", "--threads", "1"]


def _train(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gomocup_bot", "train-net", *args], capture_output=True,
                          text=True, timeout=600, cwd=ROOT)


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("games") / "few.jsonl"
    with gzip.open(GAMES, "rt") as src:
        path.write_text("".join(line for _, line in zip(range(40), src)))
    return path


def test_a_run_writes_a_sound_file_and_a_warm_start_takes_the_earlier_net(records, tmp_path):
    first = tmp_path / "g1.gbn"
    run = _train(str(records), "--out", str(first), "--cache", str(tmp_path / "pos.npz"), "--epochs", "1", *SMALL)
    assert run.returncode == 0, run.stderr
    assert W.verify(first) is None and "held out, final" in run.stderr
    assert set(W.load(first).rules) >= {"freestyle"}
    # the same command again finds its checkpoint finished and only writes the file
    again = _train(str(records), "--out", str(first), "--cache", str(tmp_path / "pos.npz"), "--epochs", "1", *SMALL)
    assert again.returncode == 0 and "resumed from" in again.stderr
    warm = _train("--cache", str(tmp_path / "pos.npz"), "--out", str(tmp_path / "g2.gbn"), "--epochs", "1",
                  "--init", str(first) + ".ckpt", *SMALL)
    assert warm.returncode == 0, warm.stderr
    assert "started from the model of" in warm.stderr and W.verify(tmp_path / "g2.gbn") is None


def _held_out(stderr: str, which: str) -> float:
    line = next(x for x in stderr.splitlines() if x.startswith(f"held out, {which}: "))
    return float(line.split("net_blend ")[1].split(",")[0])


def test_a_warm_start_from_a_weights_file_keeps_that_net(records, tmp_path):
    """``--init NET.gbn`` (a shipped generation, its checkpoint gone): the heads copied and the
    mapping network fitted to the codebook, with what the fit misses in the residual table, give
    before any step the held-out loss the file's net had at the end of its own run, as a start
    from its checkpoint does."""
    first = tmp_path / "g1.gbn"
    cache = str(tmp_path / "pos.npz")
    run = _train(str(records), "--out", str(first), "--cache", cache, "--epochs", "1", *SMALL)
    assert run.returncode == 0, run.stderr
    trained = _held_out(run.stderr, "final")
    warm = _train("--cache", cache, "--out", str(tmp_path / "g2.gbn"), "--epochs", "1", "--init", str(first), *SMALL)
    assert warm.returncode == 0, warm.stderr
    assert "started from the freestyle net of" in warm.stderr
    kept = _held_out(warm.stderr, "at the start")
    exact = _train("--cache", cache, "--out", str(tmp_path / "g0.gbn"), "--epochs", "1", "--seed", "2",
                   "--init", str(tmp_path / "g1.gbn.ckpt"), *SMALL)
    assert abs(_held_out(exact.stderr, "at the start") - trained) < 1e-4
    assert abs(kept - trained) < 1e-4, (kept, trained)  # what the fit misses is in the residual table
    # a corrupt weights file or one of another shape stops the run with the reason
    bad = tmp_path / "bad.gbn"
    data = bytearray(first.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad.write_bytes(bytes(data))
    broken = _train("--cache", cache, "--out", str(tmp_path / "g3.gbn"), "--epochs", "1", "--init", str(bad), *SMALL)
    assert broken.returncode != 0 and "--init" in broken.stderr and "checksum mismatch" in broken.stderr
    other_head = [a if a != "4" else "6" for a in SMALL]
    other = _train("--cache", cache, "--out", str(tmp_path / "g4.gbn"), "--epochs", "1", "--init", str(first), *other_head)
    assert other.returncode != 0 and "no freestyle net of this shape" in other.stderr
    assert not (tmp_path / "g4.gbn").exists()
    narrower = [a if a != "8" else "4" for a in SMALL]
    other = _train("--cache", cache, "--out", str(tmp_path / "g5.gbn"), "--epochs", "1", "--init", str(first), *narrower)
    assert other.returncode != 0 and "no freestyle net of this shape" in other.stderr


def test_a_wider_net_starts_from_a_narrower_file_exactly_and_its_new_features_learn(records, tmp_path):
    """``--init NET.gbn --feature F`` with F above the file's: the file's features come first, the
    new ones start at zero weight in both heads, so before any step the held-out loss is the file's
    own; one epoch later the new features carry weight in the value head, and the file written has
    the wider codebook and passes its checks."""
    first = tmp_path / "g1.gbn"
    cache = str(tmp_path / "pos.npz")
    run = _train(str(records), "--out", str(first), "--cache", cache, "--epochs", "1", *SMALL)
    assert run.returncode == 0, run.stderr
    trained = _held_out(run.stderr, "final")
    wider = list(SMALL)
    wider[wider.index("--feature") + 1] = "16"
    warm = _train("--cache", cache, "--out", str(tmp_path / "w.gbn"), "--epochs", "1", "--init", str(first), *wider)
    assert warm.returncode == 0, warm.stderr
    assert abs(_held_out(warm.stderr, "at the start") - trained) < 1e-4
    net = W.load(tmp_path / "w.gbn").rules["freestyle"]
    assert net.codebook.shape[-1] == 16 and W.verify(tmp_path / "w.gbn") is None
    assert np.abs(np.asarray(net.w1)[..., 8:16]).max() > 0  # the new features' weights moved off zero
    assert np.abs(np.asarray(net.wp)[..., 8:16]).max() > 0


def test_a_warm_start_keeps_its_residual_table_and_what_freeze_names(records, tmp_path):
    """After ``--init NET.gbn`` the residual table holds what the mapping network's fit missed. By
    default (``--freeze residual``) it stays as the start set it and the codebook learns only
    through the mapping network; ``--freeze ''`` trains it too, and ``--freeze`` keeps any named
    part (here the tables' weight ``tw``) while the rest learns."""
    first = tmp_path / "g1.gbn"
    cache = str(tmp_path / "pos.npz")
    assert _train(str(records), "--out", str(first), "--cache", cache, "--epochs", "1", *SMALL).returncode == 0

    def residual_after(name: str, *extra: str) -> np.ndarray:
        run = _train("--cache", cache, "--out", str(tmp_path / name), "--init", str(first), *extra, *SMALL)
        assert run.returncode == 0, run.stderr
        return torch.load(tmp_path / f"{name}.ckpt", weights_only=False)["model"]["residual"].numpy()

    start = residual_after("start.gbn", "--epochs", "0")
    assert np.abs(start).max() > 0  # the fit of a small mapping network leaves something to keep
    kept = residual_after("kept.gbn", "--epochs", "2")
    assert np.array_equal(kept, start)
    trained = residual_after("trained.gbn", "--epochs", "2", "--freeze", "")
    assert np.abs(trained - start).max() > 1e-3
    nets = {name: W.load(tmp_path / f"{name}.gbn").rules["freestyle"] for name in ("start", "kept", "trained")}
    # the kept run's codebook still learned (through the mapping network), and so did its tables' weight
    assert not np.array_equal(nets["kept"].codebook, nets["start"].codebook)
    assert not np.array_equal(nets["kept"].tw, nets["start"].tw)
    residual_after("tw.gbn", "--epochs", "2", "--freeze", "residual,tw")
    held = W.load(tmp_path / "tw.gbn").rules["freestyle"]
    assert np.array_equal(held.tw, nets["start"].tw) and not np.array_equal(held.w2, nets["start"].w2)
    wrong = _train("--cache", cache, "--out", str(tmp_path / "x.gbn"), "--freeze", "tw,pool", *SMALL)
    assert wrong.returncode != 0 and "not a part of the net: pool" in wrong.stderr


def test_a_warm_start_from_a_missing_or_other_shaped_net_stops_with_the_reason(records, tmp_path):
    missing = _train(str(records), "--out", str(tmp_path / "x.gbn"), "--epochs", "1",
                     "--init", str(tmp_path / "none.ckpt"), *SMALL)
    assert missing.returncode != 0 and "--init" in missing.stderr and "not a checkpoint" in missing.stderr
    first = tmp_path / "f8.gbn"
    assert _train(str(records), "--out", str(first), "--epochs", "1", *SMALL).returncode == 0
    wider = [a if a != "8" else "16" for a in SMALL]  # feature 16 against the checkpoint's 8
    other = _train(str(records), "--out", str(tmp_path / "y.gbn"), "--epochs", "1", "--init", str(first) + ".ckpt", *wider)
    assert other.returncode != 0 and "not a checkpoint of this net's shape" in other.stderr
    assert not (tmp_path / "y.gbn").exists()


def test_a_run_on_two_board_sizes_writes_a_net_for_both(records, tmp_path):
    """Games of 15 x 15 and 20 x 20 in one run: the net learns both and is written to play both;
    the trainer's own forward pass on each size matches the exported net's reference."""
    both = tmp_path / "both.jsonl"
    with gzip.open(GAMES_20, "rt") as src:
        both.write_text(records.read_text() + "".join(line for _, line in zip(range(40), src)))
    out = tmp_path / "mixed.gbn"
    run = _train(str(both), "--out", str(out), "--sizes", "15,20", "--epochs", "1", *SMALL)
    assert run.returncode == 0, run.stderr
    assert W.load(out).rules["freestyle"].boards == ((15, 15), (20, 20))
    within = float(run.stderr.split("the export within ")[1].split()[0])
    assert within < 1e-4
    only15 = _train(str(both), "--out", str(tmp_path / "only15.gbn"), "--epochs", "1", *SMALL)
    assert only15.returncode == 0 and "40 games of other sizes skipped" in only15.stderr
    assert W.load(tmp_path / "only15.gbn").rules["freestyle"].boards == ((15, 15),)


def test_a_run_beside_the_main_net_adds_a_net_for_the_other_board(records, tmp_path):
    """``--beside``: the base file's 15 x 15 net stays as it is, and the run's net is written for
    20 x 20 only; a run whose boards are all the main net's stops with the reason."""
    both = tmp_path / "both.jsonl"
    with gzip.open(GAMES_20, "rt") as src:
        both.write_text(records.read_text() + "".join(line for _, line in zip(range(40), src)))
    base = tmp_path / "base.gbn"
    assert _train(str(records), "--out", str(base), "--epochs", "1", *SMALL).returncode == 0
    out = tmp_path / "beside.gbn"
    run = _train(str(both), "--out", str(out), "--sizes", "15,20", "--epochs", "1", "--base", str(base),
                 "--beside", *SMALL)
    assert run.returncode == 0, run.stderr
    kept, made = W.load(base), W.load(out)
    assert np.array_equal(made.rules["freestyle"].codebook, kept.rules["freestyle"].codebook)
    assert made.rules["freestyle"].boards == ((15, 15),)
    twenty = made.net_for("freestyle", 20, 20)
    assert twenty is not None and twenty.boards == ((20, 20),)
    assert not np.array_equal(twenty.codebook, kept.rules["freestyle"].codebook)
    assert float(run.stderr.split("the export within ")[1].split()[0]) < 1e-4  # on 20 x 20 rows
    assert "freestyle 20x20" in made.notes
    same = _train(str(records), "--out", str(tmp_path / "same.gbn"), "--epochs", "1", "--base", str(base),
                  "--beside", *SMALL)
    assert same.returncode != 0 and "is the main net's" in same.stderr


def test_an_exact_five_or_renju_run_can_start_from_the_freestyle_net(records, tmp_path):
    """``--init NET.gbn --init-rule freestyle``: a renju run (two codebooks, one a colour) starts
    with both colours' codebooks and heads taken from the freestyle net's one, before any step;
    a file without the named rule's net of this shape stops the run with the reason."""
    first = tmp_path / "free.gbn"
    assert _train(str(records), "--out", str(first), "--epochs", "1", *SMALL).returncode == 0
    renju_games = tmp_path / "renju.jsonl"
    with gzip.open(ROOT / "data" / "selfplay" / "renju-s31.jsonl.gz", "rt") as src:
        renju_games.write_text("".join(line for _, line in zip(range(40), src)))
    out = tmp_path / "renju.gbn"
    run = _train(str(renju_games), "--rule", "renju", "--out", str(out), "--epochs", "0",
                 "--init", str(first), "--init-rule", "freestyle", *SMALL)
    assert run.returncode == 0, run.stderr
    assert "started from the freestyle net of" in run.stderr
    free, renju = W.load(first).rules["freestyle"], W.load(out).rules["renju"]
    assert renju.codebook.shape[0] == 2 and free.codebook.shape[0] == 1
    for c in range(2):
        err = np.abs(renju.codebook[c].astype(int) - free.codebook[0].astype(int))
        assert err.max() <= 1, (c, err.mean(), err.max())  # the fit and its residual table: the file's codebook
    for view in range(2):
        assert np.allclose(renju.w1[view], free.w1[0]) and np.allclose(renju.wp[view], free.wp[0])
    # a two-codebook renju net cannot seed a one-codebook exact-five run
    std = _train(str(records), "--rule", "standard", "--out", str(tmp_path / "std.gbn"), "--epochs", "0",
                 "--init", str(out), "--init-rule", "renju", *SMALL)
    assert std.returncode != 0 and "no renju net of this shape" in std.stderr
    assert not (tmp_path / "std.gbn").exists()
    # --init-rule names a rule of a weights file: alone, or with a checkpoint, it stops the run
    alone = _train(str(records), "--out", str(tmp_path / "a.gbn"), "--epochs", "0", "--init-rule", "freestyle", *SMALL)
    assert alone.returncode != 0 and "--init-rule needs --init" in alone.stderr
    ckpt = _train(str(renju_games), "--rule", "renju", "--out", str(tmp_path / "c.gbn"), "--epochs", "0",
                  "--init", str(first) + ".ckpt", "--init-rule", "freestyle", *SMALL)
    assert ckpt.returncode != 0 and "not a checkpoint" in ckpt.stderr
    assert not (tmp_path / "a.gbn").exists() and not (tmp_path / "c.gbn").exists()


def _replayed(moves: str, size: int = 15) -> np.ndarray:
    """The cells after ``moves`` as the side to move sees them (1 own, 2 the opponent's), worked
    out here from the letters alone, apart from the trainer's board."""
    cells = np.zeros(size * size, dtype=np.uint8)
    plies = len(moves) // 2
    for j in range(plies):
        x, y = ord(moves[2 * j]) - 97, ord(moves[2 * j + 1]) - 97
        cells[y * size + x] = 1 if j % 2 == plies % 2 else 2
    return cells


def test_a_teachers_labels_replace_the_searched_values_of_the_positions_it_judged(records, tmp_path):
    """``--teacher``: each teacher line names a position by its moves; the row of exactly that
    position (its cells replayed here from the letters) gets the teacher's view in our units, the
    rows it did not judge keep their searched value, and ``--teacher-only`` trains the value on
    the judged rows alone. A cache without plies, or no record files, stops the run with why."""
    from gomocup_bot.training import nettrain
    from gomocup_bot.training.netdata import rows_of_files
    from gomocup_bot.training.records import read

    recs = list(read(records))
    labels = {}  # moves -> (eval, mate): the position after 12 and after 20 plies of every other game
    for k, rec in enumerate(recs[::2]):
        for ply, line in ((12, {"eval": 100 * (k % 3 - 1)}), (20, {"mate": 7 if k % 2 else -4})):
            if 2 * ply < len(rec.moves):
                labels[rec.moves[: 2 * ply]] = line
    file = tmp_path / "teacher.jsonl"
    file.write_text("".join(json.dumps({"rule": "freestyle", "size": 15, "moves": m, **v}) + "\n"
                            for m, v in labels.items()) + '{"rule": "freestyle", "mo')  # cut mid-write: ignored
    rows = rows_of_files([str(records)], "freestyle", log=lambda _: None)
    before = rows.score.copy()
    args = argparse.Namespace(
        teacher=[str(file)], files=[str(records)], rule="freestyle", teacher_scale=100.0, teacher_mate=0.95,
        teacher_only=False)
    same, notes = nettrain._taught(rows, args, lambda _: None)
    assert same is rows
    cap = 250 * math.log(0.95 / 0.05)
    changed = np.flatnonzero(~np.isclose(rows.score, before, equal_nan=True))
    judged_rows = []
    for rec in recs:
        for i in np.flatnonzero(rows.game == nettrain_hash(records, rec.id)):
            key = rec.moves[: 2 * int(rows.ply[i])]
            assert np.array_equal(rows.cells[i, :225], _replayed(key))  # the row is that position
            if key in labels and rows.value_row[i]:
                judged_rows.append(i)
                want = cap * np.sign(labels[key]["mate"]) if "mate" in labels[key] else 2.5 * labels[key]["eval"]
                assert rows.score[i] == pytest.approx(want, abs=1e-3)
            else:
                assert i not in changed
    judged = len(judged_rows)
    assert judged == notes["rows"] > 10 and notes["scale"] == 100.0
    value_rows = int(rows.value_row.sum())
    only = argparse.Namespace(**{**vars(args), "teacher_only": True})
    fresh = rows_of_files([str(records)], "freestyle", log=lambda _: None)
    kept, _ = nettrain._taught(fresh, only, lambda _: None)
    assert len(kept) == int(kept.value_row.sum()) == judged < value_rows
    assert np.array_equal(kept.score, rows.score[sorted(judged_rows)])

    out = tmp_path / "t.gbn"
    run = _train(str(records), "--out", str(out), "--cache", str(tmp_path / "pos.npz"), "--epochs", "1",
                 "--teacher", str(file), "--teacher-scale", "100", "--teacher-only", *SMALL)
    assert run.returncode == 0, run.stderr
    note = W.load(out).notes["freestyle"]["teacher"]
    assert note["rows"] == judged and note["only"] and note["files"] == ["teacher.jsonl"]
    assert note["scale"] == 100.0
    # a cache of rows without plies (written before rows had them) cannot be taught
    with np.load(tmp_path / "pos.npz") as z:
        np.savez_compressed(tmp_path / "old.npz", **{k: z[k] for k in z.files if k != "ply"})
    old = _train(str(records), "--out", str(tmp_path / "o.gbn"), "--cache", str(tmp_path / "old.npz"),
                 "--epochs", "1", "--teacher", str(file), *SMALL)
    assert old.returncode != 0 and "without each row's ply" in old.stderr
    alone = _train("--cache", str(tmp_path / "pos.npz"), "--out", str(tmp_path / "a.gbn"), "--teacher", str(file), *SMALL)
    assert alone.returncode != 0 and "--teacher needs the record files" in alone.stderr


def nettrain_hash(records: Path, rec_id: int) -> int:
    from gomocup_bot.training.netdata import game_hash
    return game_hash(str(records), rec_id)

