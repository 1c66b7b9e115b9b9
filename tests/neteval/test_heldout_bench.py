"""`benchmarks/net_heldout.py --bootstrap`: the interval of a loss difference resamples whole games,
so rows that move together within a game do not pass for independent evidence."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

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
    from gomocup_bot.training.nettrain import bce
    assert abs(heldout.row_losses(lg, y).mean() - bce(lg, y)) < 1e-12
