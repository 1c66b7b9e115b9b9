"""`benchmarks/net_heldout.py`: `--bootstrap`'s interval of a loss difference resamples whole games,
so rows that move together within a game do not pass for independent evidence; `--side-of`'s
shifts take out what a net gains by knowing who is to move, and nothing else."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from gomocup_bot.training.netdata import rows_of_files
from gomocup_bot.training.nettrain import bce

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("net_heldout", ROOT / "benchmarks" / "net_heldout.py")
heldout = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(heldout)


def test_the_interval_is_over_games_not_rows():
    rng = np.random.default_rng(3)
    games = np.repeat(np.arange(40), 60)  # 40 games of 60 rows each
    per_game = rng.normal(0.0, 0.05, 40)  # one net better in some games, worse in others
    diff = per_game[games] + rng.normal(0.0, 0.001, games.size)
    mean, lo, hi = heldout.paired_by_game(diff, games * 7919 + 11, 2000)
    assert mean == diff.mean() and lo < mean < hi
    # the spread of 40 game means, not of 2,400 rows: a rows' interval would be about 8 times narrower
    games_se = per_game.std(ddof=1) / np.sqrt(40)
    assert 0.6 * 3.92 * games_se < hi - lo < 1.5 * 3.92 * games_se
    rows_se = diff.std(ddof=1) / np.sqrt(diff.size)
    assert hi - lo > 4 * 3.92 * rows_se


def test_a_difference_in_every_game_is_told_apart_from_none():
    games = np.repeat(np.arange(30), 20)
    same = heldout.paired_by_game(np.zeros(games.size), games, 500)
    assert same == (0.0, 0.0, 0.0)
    worse = heldout.paired_by_game(np.full(games.size, 0.01) + 0.002 * np.sin(games), games, 500)
    assert worse[1] > 0  # the whole interval above zero


def test_row_losses_average_to_the_trainers_loss():
    rng = np.random.default_rng(5)
    lg, y = rng.normal(0, 1, 500), rng.uniform(0, 1, 500)
    assert abs(heldout.row_losses(lg, y).mean() - bce(lg, y)) < 1e-12


def test_the_best_shift_finds_an_offset_every_logit_shares():
    rng = np.random.default_rng(7)
    lg = rng.normal(0, 1.2, 20000)
    y = (rng.uniform(size=lg.size) < 1 / (1 + np.exp(-(lg + 0.7)))).astype(np.float64)
    assert abs(heldout.best_shift(lg, y) - 0.7) < 0.05
    assert abs(heldout.best_shift(lg + 0.7, y)) < 0.05
    s = heldout.best_shift(lg, y)
    assert bce(lg + s, y) < min(bce(lg + s - 0.02, y), bce(lg + s + 0.02, y))


def test_a_net_that_only_knows_who_is_to_move_gains_nothing_after_the_shifts():
    # labels from a judgement of the position plus who is to move (the stronger side wins more):
    # a net with the judgement alone and one that adds each side's offset differ before the shifts,
    # not after them; a net with a worse judgement stays worse after them
    rng = np.random.default_rng(11)
    judgement = rng.normal(0, 1, 30000)
    sides = rng.uniform(size=judgement.size) < 0.5
    offset = np.where(sides, 0.8, -0.8)
    y = (rng.uniform(size=judgement.size) < 1 / (1 + np.exp(-(judgement + offset)))).astype(np.float64)
    blind, knowing = judgement, judgement + offset
    assert bce(knowing, y) < bce(blind, y) - 0.03
    a, own, other = heldout.shift_by_side(blind, y, sides)
    b, _, _ = heldout.shift_by_side(knowing, y, sides)
    assert abs(bce(a, y) - bce(b, y)) < 1e-6 and own > 0.6 and other < -0.6
    worse, _, _ = heldout.shift_by_side(judgement + rng.normal(0, 0.8, judgement.size), y, sides)
    assert bce(worse, y) > bce(a, y) + 0.01


def test_the_side_to_move_is_read_from_the_records_source(tmp_path):
    lines = ['{"id":0,"rule":"freestyle","size":15,"opening":3,"moves":"hhihggiiighggfghhfiffifheheigejekdjhhefggjdgfdeceefegcgddfhbcg",'
             '"scores":[],"winner":1,"end":"five","nodes":0,"source":"match pbrain-pentazen - base"}',
             '{"id":1,"rule":"freestyle","size":15,"opening":3,"moves":"hhihggiiighggfghhfiffifheheigejekdjhhefggjdgfdeceefegcgddfhbcg",'
             '"scores":[],"winner":1,"end":"five","nodes":0,"source":"match base - pbrain-pentazen"}']
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(lines) + "\n")
    rows = rows_of_files([str(path)], "freestyle", log=lambda *a: None)
    rows = rows.select(rows.value_row)
    sides = heldout.engine_to_move(rows, [str(path)], "pentazen")
    first = rows.game == heldout.game_hash(str(path), 0)
    assert first.any() and (~first).any()
    # game 0: PentaZen is black, so it is to move on black's rows; game 1 the other way round
    assert (sides[first] == (rows.colour[first] == 1)).all()
    assert (sides[~first] == (rows.colour[~first] == 2)).all()
    with pytest.raises(SystemExit, match="no record"):
        heldout.engine_to_move(rows, [str(path)], "embryo")
