"""Elo fit, LOS and SPRT against values worked out by hand on small fixed result sets."""
from __future__ import annotations

import math

import pytest

from tournament.results.ratings import (
    GameScore,
    _mle_with_mean,
    gsprt_llr,
    gsprt_llr_normal,
    elo_from_score,
    expected_score,
    fit_ratings,
    los,
    los_from_fit,
    match_elo,
    sprt_bounds,
    sprt_pentanomial,
    sprt_trinomial,
)


def games(a, b, wins, draws, losses):
    return [GameScore(a, b, 1.0)] * wins + [GameScore(a, b, 0.5)] * draws + [GameScore(a, b, 0.0)] * losses


def test_elo_score_conversions() -> None:
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))  # 190.85
    assert elo_from_score(10 / 11) == pytest.approx(400)


def test_two_engines_7_of_10() -> None:
    # MLE: 10^(d/400) = 7/3 -> d = 400 log10(7/3) = 147.19; mean 0 -> +-73.6
    ratings, cov = fit_ratings(games("A", "B", 7, 0, 3))
    d = 400 * math.log10(7 / 3)
    assert ratings["A"].elo == pytest.approx(d / 2, abs=1e-6)
    assert ratings["B"].elo == pytest.approx(-d / 2, abs=1e-6)
    # Fisher information of d (log-odds units): n p (1-p) = 10 * 0.7 * 0.3 = 2.1; each rating is d/2
    sd_half = math.sqrt(1 / 2.1) / 2 * 400 / math.log(10)  # 59.93 Elo
    assert ratings["A"].error95 == pytest.approx(1.959964 * sd_half, rel=1e-5)  # 117.5
    assert ratings["A"].error95 == pytest.approx(117.46, abs=0.05)
    assert ratings["A"].games == 10 and ratings["A"].score == 7
    assert cov[("A", "B")] == pytest.approx(-sd_half**2)


def test_draws_count_as_half() -> None:
    # 4 wins, 4 draws, 2 losses = 6/10 -> d = 400 log10(6/4) = 70.44
    ratings, _ = fit_ratings(games("A", "B", 4, 4, 2))
    assert ratings["A"].elo - ratings["B"].elo == pytest.approx(400 * math.log10(1.5), abs=1e-6)


def test_cyclic_results_give_equal_ratings() -> None:
    result = games("A", "B", 2, 0, 1) + games("B", "C", 2, 0, 1) + games("C", "A", 2, 0, 1)
    ratings, _ = fit_ratings(result)
    for r in ratings.values():
        assert r.elo == pytest.approx(0.0, abs=1e-9)


def test_mle_condition_expected_equals_actual_score() -> None:
    result = games("A", "B", 6, 2, 2) + games("A", "C", 8, 1, 1) + games("B", "C", 5, 3, 2) + games("C", "D", 4, 4, 2) + games("A", "D", 7, 2, 1)
    ratings, _ = fit_ratings(result)
    for player in "ABCD":
        expected = sum(
            expected_score(ratings[g.a].elo - ratings[g.b].elo) if g.a == player else 1 - expected_score(ratings[g.a].elo - ratings[g.b].elo)
            for g in result
            if player in (g.a, g.b)
        )
        assert expected == pytest.approx(ratings[player].score, abs=1e-7)
    assert sum(r.elo for r in ratings.values()) == pytest.approx(0.0, abs=1e-9)
    assert ratings["A"].elo > ratings["B"].elo > ratings["C"].elo > ratings["D"].elo


def test_perfect_score_needs_the_prior() -> None:
    ratings, _ = fit_ratings(games("A", "B", 5, 0, 0))
    assert ratings["A"].error95 == math.inf
    ratings, _ = fit_ratings(games("A", "B", 5, 0, 0), prior_draws=1.0)
    # 5.5 of 6 -> 400 log10(11) = 416.6
    assert ratings["A"].elo - ratings["B"].elo == pytest.approx(400 * math.log10(11), abs=1e-6)
    assert math.isfinite(ratings["A"].error95)


def test_los() -> None:
    assert los(0, 0) == 0.5
    assert los(5, 5) == 0.5
    # W-L = 10 over 30 decisive games: Phi(10/sqrt(30)) = Phi(1.8257) = 0.96605
    assert los(20, 10) == pytest.approx(0.96605, abs=1e-5)
    assert los_from_fit(10, 0, 25, 25, 0) == pytest.approx(0.5 * (1 + math.erf(10 / math.sqrt(100))))


def test_sprt_bounds() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944439, abs=1e-6)  # ln(0.05/0.95)
    assert upper == pytest.approx(2.944439, abs=1e-6)


def test_gsprt_on_two_outcomes_is_walds_binomial_sprt() -> None:
    # only wins and losses: the distribution with mean s is (1-s, s), so
    # LLR = W ln(s1/s0) + L ln((1-s1)/(1-s0)); with s0 = 0.5, s1 = expected(20) = 0.528751
    s1 = 1 / (1 + 10 ** (-20 / 400))
    assert s1 == pytest.approx(0.528751, abs=1e-6)
    expected = 30 * math.log(s1 / 0.5) + 20 * math.log((1 - s1) / 0.5)  # = 30*0.05599 + 20*(-0.05934) = 0.4929
    assert expected == pytest.approx(0.4929, abs=1e-3)
    assert gsprt_llr([20, 30], [0.0, 1.0], 0, 20) == pytest.approx(expected, rel=1e-9)


def test_constrained_mle_has_the_asked_mean() -> None:
    probs = [40 / 120, 20 / 120, 60 / 120]
    for target in (0.3, 0.5, 0.5143871, 0.7):
        p = _mle_with_mean(probs, [0, 0.5, 1], target)
        assert sum(p) == pytest.approx(1.0, abs=1e-9)
        assert sum(pi * x for pi, x in zip(p, [0, 0.5, 1])) == pytest.approx(target, abs=1e-9)
    assert _mle_with_mean(probs, [0, 0.5, 1], 70 / 120) == pytest.approx(probs)  # already has that mean


def test_sprt_normal_approximation_by_hand() -> None:
    # W=60 D=20 L=40: m = 70/120; v = (60(1-m)^2 + 20(0.5-m)^2 + 40 m^2)/120 = 0.2013889
    # s0 = 0.5, s1 = 1/(1+10^(-10/400)) = 0.5143871; LLR = 120 (s1-s0)(2m-s0-s1)/(2v) = 0.65264
    m = 70 / 120
    v = (60 * (1 - m) ** 2 + 20 * (0.5 - m) ** 2 + 40 * m**2) / 120
    assert v == pytest.approx(0.2013889, abs=1e-7)
    s1 = 1 / (1 + 10 ** (-10 / 400))
    approx = gsprt_llr_normal([40, 20, 60], [0, 0.5, 1], 0, 10)
    assert approx == pytest.approx(120 * (s1 - 0.5) * (2 * m - 0.5 - s1) / (2 * v), rel=1e-9)
    assert approx == pytest.approx(0.6526, abs=1e-3)
    # the exact GSPRT agrees within a few percent at this sample size
    assert gsprt_llr([40, 20, 60], [0, 0.5, 1], 0, 10) == pytest.approx(approx, rel=0.05)


def test_sprt_trinomial_decisions() -> None:
    result = sprt_trinomial(60, 20, 40, 0, 10)
    assert result.decision is None and 0.6 < result.llr < 0.66
    assert sprt_trinomial(600, 200, 400, 0, 10).decision == "H1"  # 10x the games: LLR about 6.3
    assert sprt_trinomial(400, 200, 600, 0, 10).decision == "H0"
    # one lost game is weak evidence, not a decision (a naive variance would explode here)
    one = sprt_trinomial(0, 0, 1, 0, 100)
    assert one.decision is None and -1 < one.llr < 0


def test_sprt_pentanomial_by_hand() -> None:
    # pairs scoring 0, 1/2, 1, 3/2, 2 points: 5, 10, 30, 15, 10 (70 pairs)
    counts = [5, 10, 30, 15, 10]
    scores = [0, 0.25, 0.5, 0.75, 1]
    m = sum(c * s for c, s in zip(counts, scores)) / 70  # 38.75 / 70 = 0.553571
    v = sum(c * (s - m) ** 2 for c, s in zip(counts, scores)) / 70
    assert m == pytest.approx(0.553571, abs=1e-6)
    assert v == pytest.approx(0.073023, abs=1e-6)
    s0, s1 = 0.5, 1 / (1 + 10 ** (-20 / 400))
    assert gsprt_llr_normal(counts, scores, 0, 20) == pytest.approx(70 * (s1 - s0) * (2 * m - s0 - s1) / (2 * v), rel=1e-9)
    assert gsprt_llr_normal(counts, scores, 0, 20) == pytest.approx(1.0803, abs=1e-3)
    result = sprt_pentanomial(counts, 0, 20)
    assert result.llr == pytest.approx(gsprt_llr(counts, scores, 0, 20))
    assert result.llr == pytest.approx(1.0803, rel=0.05) and result.decision is None
    with pytest.raises(ValueError):
        sprt_pentanomial([1, 2, 3], 0, 5)


def test_match_elo_summary() -> None:
    elo, err = match_elo(7, 0, 3)
    assert elo == pytest.approx(147.19, abs=0.01)
    assert 0 < err < 400
    assert match_elo(0, 0, 0)[1] == math.inf


def test_tally_gives_the_same_fit_as_single_games() -> None:
    from tournament.results.ratings import Tally

    result = games("A", "B", 6, 2, 2) + games("B", "C", 3, 3, 4) + games("C", "A", 1, 1, 8)
    tally = Tally()
    for g in result:
        tally.add(g.a, g.b, g.score_a)
    single, _ = fit_ratings(result, prior_draws=1.0)
    grouped, _ = fit_ratings(tally.scores(), prior_draws=1.0)
    for name in "ABC":
        assert grouped[name].elo == pytest.approx(single[name].elo, abs=1e-9)
        assert grouped[name].error95 == pytest.approx(single[name].error95, abs=1e-9)
        assert grouped[name].games == single[name].games == 20
    assert tally.met("A", "C") == 10
