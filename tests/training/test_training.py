"""The training pipeline end to end on real games: `gomocup-bot selfplay` writes records and
resumes an interrupted file, the features keep only positions with nothing forced pending, and
`gomocup-bot train-eval` writes a weights file the brain loads and that fits its training data
better than the weights it started from."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gomocup_bot.core.board import board_from_stones, to_pos
from gomocup_bot.core.constants import RULE_FREESTYLE
from gomocup_bot.core.evaltables import N_CANON, canonical_index, load
from gomocup_bot.training import features, records
from gomocup_bot.training.records import GameRecord, RecordError, encode_moves


def run(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gomocup_bot", *args], capture_output=True, text=True,
                          timeout=timeout)


def test_selfplay_writes_whole_games(games) -> None:
    recs = list(records.read(games))
    assert sorted(r.id for r in recs) == list(range(12))
    for r in recs:
        moves = r.move_list()
        assert len(set(moves)) == len(moves) and len(r.scores) == len(moves)
        assert 2 <= r.opening <= 6 and all(s is None for s in r.scores[:r.opening])
        assert r.end in ("five", "proven", "full") and r.winner in (0, 1, 2)
        if r.end == "five":  # the last move made five: check it on a fresh board
            b = board_from_stones(15, 15, [(x, y, 1 + i % 2) for i, (x, y) in enumerate(moves[:-1])])
            side = 1 + (len(moves) - 1) % 2
            assert r.winner == side and b.cls[side - 1, to_pos(b, *moves[-1])] == 14


def test_selfplay_resumes_an_interrupted_file(games, tmp_path) -> None:
    lines = games.read_text().splitlines()
    part = tmp_path / "part.jsonl"
    part.write_text("\n".join(lines[:3]) + "\n" + lines[3][: len(lines[3]) // 2])  # cut mid-record
    proc = run("selfplay", "--out", str(part), "--games", "5", "--workers", "1", "--nodes", "1500",
               "--root-nodes", "3000", "--move-seconds", "0.2", "--seed", "5")
    assert proc.returncode == 0, proc.stderr
    kept = [r.id for r in records.read(part)]
    assert sorted(kept) == list(range(5)) and kept[:3] == [int(records.parse_line(ln).id) for ln in lines[:3]]


def test_selfplay_stopped_by_ctrl_c_keeps_whole_games_and_says_how_to_resume(tmp_path) -> None:
    import signal
    import time

    out = tmp_path / "stop.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "gomocup_bot", "selfplay", "--out", str(out), "--games", "200",
                             "--workers", "1", "--nodes", "1500", "--root-nodes", "3000", "--move-seconds", "0.2",
                             "--seed", "6"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # as from a terminal: a test worker may run with SIGINT ignored, which a
                            # child inherits (Python then installs no KeyboardInterrupt handler)
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 200
        while not (out.exists() and out.read_text().count("\n") >= 1):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() else ""
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "the same command resumes" in err and "Traceback" not in err.split("stopped at")[-1]
    text = out.read_text()
    assert text.endswith("\n")
    assert len(list(records.read(out))) == text.count("\n") >= 1


def test_selfplay_with_a_node_bounded_check_repeats_its_games(tmp_path) -> None:
    # --check-nodes: the root's defence stops at solver nodes, not the clock, so one worker writes
    # the same games from the same seed (the files name the same commit and settings)
    outs = []
    for name in ("a.jsonl", "b.jsonl"):
        out = tmp_path / name
        proc = run("selfplay", "--out", str(out), "--games", "3", "--workers", "1", "--nodes", "1500",
                   "--root-nodes", "3000", "--check-nodes", "20000", "--seed", "5")
        assert proc.returncode == 0, proc.stderr
        outs.append(out.read_text())
    assert outs[0] == outs[1] and len(outs[0].splitlines()) == 3
    assert "root 3000 check 20000" in outs[0]  # the settings are in every record's source
    bad = run("selfplay", "--out", str(tmp_path / "c.jsonl"), "--games", "1", "--check-nodes", "-5")
    assert bad.returncode != 0 and "--check-nodes" in bad.stderr


def test_bad_records_are_refused(tmp_path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "rule": "gomoku", "size": 15, "opening": 0, "moves": "hh"}\n{"id": 2}\n')
    with pytest.raises(RecordError, match="bad rule"):
        list(records.read(bad))


def test_features_count_the_codes_and_skip_forced_positions() -> None:
    # black builds an open three at ply 4 (white must answer), then an open four at ply 6
    moves = [(7, 7), (0, 0), (8, 7), (0, 2), (9, 7), (0, 4), (10, 7), (14, 14)]
    rec = GameRecord(id=3, rule="freestyle", size=15, opening=2, moves=encode_moves(moves),
                     scores=[None, None, 10, -20, 30, -400, 29990, None], winner=1, end="five")
    rows = features.game_rows(rec)
    # ply 2, 3, 4, 5 have values short of a proven result; ply 6 is proven, ply 7 has an open four
    assert list(rows.colour) == [1, 2, 1, 2]
    assert list(rows.result) == [1.0, 0.0, 1.0, 0.0] and list(rows.score) == [10, -20, 30, -400]
    # the counts are the board's own codes at that ply
    b = board_from_stones(15, 15, [(x, y, 1 + i % 2) for i, (x, y) in enumerate(moves[:2])], 5, RULE_FREESTYLE)
    canon = canonical_index()
    expect = np.zeros(N_CANON, dtype=np.int64)
    for y in range(15):
        for x in range(15):
            if (x, y) not in moves[:2]:
                expect[canon[b.combo[0, to_pos(b, x, y)]]] += 1
    assert np.array_equal(rows.own[0], expect) and rows.own[0].sum() == 223


def test_train_eval_fits_and_writes_a_loadable_file(games, tmp_path) -> None:
    out = tmp_path / "w.gbw"
    proc = run("train-eval", str(games), "--out", str(out), "--iters", "150")
    assert proc.returncode == 0, proc.stderr
    w = load(out)
    report = w.notes["trained"]["freestyle"]
    assert report["rows"] > 50
    assert w.notes["copied"] == {"standard": "freestyle", "caro": "freestyle"}
    assert not np.array_equal(w.tables["freestyle"].v_self, load().tables["freestyle"].v_self)
    # the fit explains its own training rows better than its start (the blended label it minimises)
    from gomocup_bot.training.train import Model, labels, log_loss, _sigmoid

    rows = features.rows_of(records.read(games))
    start = Model(("freestyle", "freestyle"), load().tables, 250.0)
    fitted = Model(("freestyle", "freestyle"), w.tables, 250.0)
    y = labels(rows, 0.5, 250.0)
    assert log_loss(_sigmoid(fitted.logits(fitted.w0, rows)), y) < log_loss(_sigmoid(start.logits(start.w0, rows)), y)


def test_train_eval_refuses_bad_files_with_a_clear_error(games, tmp_path) -> None:
    """A missing or corrupt start file and a missing or broken data file stop `train-eval` with
    a message naming the file, not a traceback."""
    out = tmp_path / "w.gbw"
    corrupt = tmp_path / "corrupt.gbw"
    corrupt.write_bytes(b"not a weights file at all")
    not_gzip = tmp_path / "games.jsonl.gz"
    not_gzip.write_text("plain text, not gzip")
    cases = [(str(games), "--start", str(tmp_path / "missing.gbw")), (str(games), "--start", str(corrupt)),
             (str(tmp_path / "missing.jsonl"),), (str(not_gzip),)]
    for args in cases:
        proc = run("train-eval", *args, "--out", str(out), "--iters", "1")
        named = next(a for a in args if a.startswith(str(tmp_path)))
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr and Path(named).name in proc.stderr, (args, proc.stderr)
    assert not out.exists()


def test_train_eval_part_threat_moves_only_the_threat_tables(games, tmp_path) -> None:
    out = tmp_path / "w.gbw"
    proc = run("train-eval", str(games), "--out", str(out), "--iters", "150", "--part", "threat", "--no-ordering")
    assert proc.returncode == 0, proc.stderr
    w, start = load(out).tables["freestyle"], load().tables["freestyle"]
    assert np.array_equal(w.v_self, start.v_self) and np.array_equal(w.v_opp, start.v_opp)
    assert not np.array_equal(w.threat, start.threat)
    assert load(out).notes["trained"]["freestyle"]["part"] == "threat"


def test_train_eval_rules_keeps_the_other_tables(games, tmp_path) -> None:
    """`--rules freestyle` fits the freestyle table only: standard and caro keep the starting tables
    instead of taking the freestyle fit; a rule it does not know is refused."""
    out = tmp_path / "w.gbw"
    proc = run("train-eval", str(games), "--out", str(out), "--iters", "50", "--rules", "freestyle", "--no-ordering")
    assert proc.returncode == 0, proc.stderr
    w, start = load(out), load()
    assert not np.array_equal(w.tables["freestyle"].v_self, start.tables["freestyle"].v_self)
    for name in ("standard", "caro", "renju-black", "renju-white"):
        assert np.array_equal(w.tables[name].v_self, start.tables[name].v_self), name
        assert np.array_equal(w.tables[name].threat, start.tables[name].threat), name
    assert "copied" not in w.notes
    bad = run("train-eval", str(games), "--out", str(out), "--rules", "gomoku")
    assert bad.returncode != 0 and "--rules" in bad.stderr


def test_match_games_become_result_labelled_rows(tmp_path) -> None:
    db = tmp_path / "m.sqlite"
    proc = subprocess.run([sys.executable, "-m", "tournament.cli", "match", "builtin:greedy", "builtin:random",
                           "--pairs", "1", "--turn", "0.2", "--db", str(db), "--quiet", "--no-warmup"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "m.jsonl"
    proc = run("records-from-db", str(db), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    recs = list(records.read(out))
    assert len(recs) == 2 and all("greedy" in r.source and "random" in r.source for r in recs)
    rows = features.rows_of(recs)
    assert len(rows) > 0 and np.isnan(rows.score).all()
    from gomocup_bot.training.train import labels

    assert np.array_equal(labels(rows, 0.5, 250.0), rows.result)  # the result alone
    # a database given twice (or a game met again) is taken once
    twice = tmp_path / "twice.jsonl"
    proc = run("records-from-db", str(db), str(db), "--out", str(twice))
    assert proc.returncode == 0, proc.stderr
    assert [r.moves for r in records.read(twice)] == [r.moves for r in recs]
    assert "2 repeated games left out" in proc.stderr
    assert run("records-from-db", str(tmp_path / "absent.sqlite"), "--out", str(out)).returncode != 0


def test_averaged_rows_are_the_searchs_averaged_evaluation(games) -> None:
    """`--average` rows read by the model give what `search.pvs.evaluate` returns with eval_avg=1
    on the same positions (within the search's integer halving), and the plain rows what it
    returns without: the fit is of the function the search uses."""
    from gomocup_bot.core.board import new_board, play
    from gomocup_bot.search import pvs as K
    from gomocup_bot.training.train import Model

    # the games are capped by time, so their length varies with the load: read every game (a
    # few milliseconds each) rather than a fixed few, which once gave exactly the bound below
    recs = list(records.read(games))
    weights = load()
    model = Model(("freestyle", "freestyle"), weights.tables, weights.scale)
    checked = 0
    for average in (0, 1):
        params = K.default_params()
        params[K.P_EVAL_AVG] = average
        for rec in recs:
            rows = features.game_rows(rec, average=bool(average))
            logits = model.logits(model.w0, rows) * weights.scale
            b = new_board(15, 15, 5, RULE_FREESTYLE)
            work = K.new_work(b, K.new_tt(1 << 12), params, np.zeros(1, dtype=np.int32))
            expected = []
            moves = rec.move_list()
            for i, (x, y) in enumerate(moves):
                value = rec.scores[i] if i < len(rec.scores) else None
                if i >= rec.opening and value is not None and abs(value) < features.WIN_BOUND:
                    side = 1 + i % 2
                    if not features.forced(b.cnt[side - 1], b.cnt[2 - side]):
                        expected.append(K.evaluate(b, side, work))
                play(b, to_pos(b, x, y), 1 + i % 2)
            assert len(expected) == len(rows)
            assert np.all(np.abs(logits - np.array(expected)) <= (0.51 if average else 1e-6))
            checked += len(rows)
    assert checked > 40


@pytest.mark.parametrize("part", ["factored", "shape"])
def test_train_eval_factored_moves_codes_by_class_and_line_values(games, tmp_path, part) -> None:
    """`--part factored`: every code's change is its class's value plus one value per line code
    it holds (a least-squares solve reproduces the changes up to the tables' integer rounding),
    and the codes no training row can hold (the mover's open four or five) keep their values;
    `--part shape` the same, with every code from an open three up kept as it was."""
    from gomocup_bot.core.classes import C_FIVE, C_FLEX4, C_THREE
    from gomocup_bot.core.evaltables import CANONICAL
    from gomocup_bot.training.classic import canonical_classes

    out = tmp_path / "w.gbw"
    proc = run("train-eval", str(games), "--out", str(out), "--iters", "150", "--part", part, "--average",
               "--no-ordering")
    assert proc.returncode == 0, proc.stderr
    fitted, start = load(out).tables["freestyle"], load().tables["freestyle"]
    assert load(out).notes["trained"]["freestyle"]["part"] == part
    assert load(out).notes["trained"]["freestyle"]["average"] is True
    cls = canonical_classes(False)
    counts = np.zeros((N_CANON, 13))
    for i, codes in enumerate(CANONICAL):
        for c in codes:
            counts[i, c] += 1
    design = np.hstack([np.eye(15)[cls], counts])
    for name, unseen in (("v_self", (C_FLEX4, C_FIVE)), ("v_opp", (C_FIVE,))):
        delta = getattr(fitted, name).astype(float) - getattr(start, name)
        fixed = np.isin(cls, unseen) | ((cls >= C_THREE) if part == "shape" else False)
        assert not delta[fixed].any()
        assert np.abs(delta[~fixed]).max() > 1  # it moved
        coef, *_ = np.linalg.lstsq(design[~fixed], delta[~fixed], rcond=None)
        assert np.abs(design[~fixed] @ coef - delta[~fixed]).max() <= 1.0  # rounding only


def test_the_blockwise_gradient_is_the_loss_derivative_and_the_split_copies_nothing(games, monkeypatch) -> None:
    """`Model.loss_gradient` over blocks of rows (a block size that cuts the rows unevenly, and
    renju's two tables) agrees with central differences of the log loss; the held-out games put
    last make the training and held-out rows views of one array, with the same rows a by-game
    selection picks."""
    from gomocup_bot.training import train

    recs = list(records.read(games))
    for r in recs:  # the same games read as renju: black's and white's rows use different tables
        r.rule = "renju"
    rows = features.rows_of(train.held_last(recs), average=True)
    assert rows.own.dtype == np.float32
    monkeypatch.setattr(train, "CHUNK", 37)
    weights = load()
    model = train.Model(train.GROUPS["renju"], weights.tables, weights.scale)
    rng = np.random.default_rng(3)
    w = model.w0 + rng.normal(0, 0.01, model.w0.shape)
    y = train.labels(rows, 0.5, model.scale)
    p, grad = model.loss_gradient(w, rows, y)
    assert np.allclose(p, train._sigmoid(model.logits(w, rows)))
    loss = lambda ww: train.log_loss(train._sigmoid(model.logits(ww, rows)), y)  # noqa: E731
    used = np.flatnonzero(np.abs(grad) > 1e-5)
    assert len(used) > 20
    for i in rng.choice(used, 20, replace=False):
        step = np.zeros_like(w)
        step[i] = 1e-3
        numeric = (loss(w + step) - loss(w - step)) / 2e-3
        assert abs(numeric - grad[i]) <= 1e-3 * max(abs(grad[i]), 1e-3), (i, numeric, grad[i])
    fit_rows, held = train.split(rows)
    assert np.shares_memory(fit_rows.own, rows.own) and np.shares_memory(held.opp, rows.opp)
    test = train.held_out(rows.game)
    assert held.game.size and np.array_equal(held.own, rows.own[test]) and np.array_equal(fit_rows.game, rows.game[~test])
    shuffled = features.rows_of(list(reversed(recs)), average=True)  # held-out games not last: copies
    a, b = train.split(shuffled)
    assert not np.shares_memory(a.own, shuffled.own) and sorted(b.game) == sorted(held.game)
