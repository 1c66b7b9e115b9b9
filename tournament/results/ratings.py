"""Ratings from results: a maximum-likelihood logistic (Bradley–Terry) Elo fit with error bars,
likelihood of superiority, and the generalised SPRT (trinomial and pentanomial) used by fastchess.

Pure Python on purpose (no scipy in our dependencies): the fits involve at most a few dozen engines,
so Newton's method with a hand-written linear solve is instant and easy to check by hand.

Model: engine i has strength r_i (Elo); i scores against j with expectation
E = 1 / (1 + 10^((r_j - r_i) / 400)); a game's score is 1, 1/2 or 0 (draws count as half a win and
half a loss in the likelihood, as Ordo and most Elo tools do). Ratings are anchored to mean 0.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Hashable, Iterable, Sequence

ELO_SCALE = 400.0 / math.log(10.0)  # Elo per natural-log unit of odds
Z95 = 1.959963984540054


def expected_score(elo_diff: float) -> float:
    """Expected score of the side that is `elo_diff` Elo stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo_diff / 400.0))


def elo_from_score(score: float) -> float:
    """The Elo difference whose expected score is `score` (0 < score < 1)."""
    if not 0.0 < score < 1.0:
        return math.copysign(math.inf, score - 0.5)
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True)
class Rating:
    elo: float
    error95: float  # half-width of the 95 % interval; inf when the data cannot bound it
    games: int
    score: float  # points scored (wins + draws / 2)


@dataclass(frozen=True)
class GameScore:
    """One game seen from `a`: score_a is 1, 0.5 or 0."""

    a: Hashable
    b: Hashable
    score_a: float  # mean score of `a` over the games this entry stands for
    weight: float = 1.0  # how many games this entry stands for
    virtual: bool = False  # a prior or a placeholder: shapes the fit, not counted as played


class Tally:
    """Games and points per ordered couple, kept up to date game by game so refits stay cheap."""

    def __init__(self) -> None:
        self.games: dict[tuple[Hashable, Hashable], float] = {}
        self.points: dict[tuple[Hashable, Hashable], float] = {}

    def add(self, a: Hashable, b: Hashable, score_a: float) -> None:
        self.games[(a, b)] = self.games.get((a, b), 0.0) + 1.0
        self.points[(a, b)] = self.points.get((a, b), 0.0) + score_a

    def met(self, a: Hashable, b: Hashable) -> float:
        """Games played between a and b, either way round."""
        return self.games.get((a, b), 0.0) + self.games.get((b, a), 0.0)

    def scores(self) -> list[GameScore]:
        return [GameScore(a, b, self.points[(a, b)] / n, weight=n) for (a, b), n in self.games.items() if a != b]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the systems here are tiny)."""
    n = len(vector)
    m = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[pivot][col]) < 1e-300:
            raise ZeroDivisionError("singular system")
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[r][col] != 0.0:
                factor = m[r][col] / m[col][col]
                for c in range(col, n + 1):
                    m[r][c] -= factor * m[col][c]
    return [m[i][n] / m[i][i] for i in range(n)]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    columns = [_solve(matrix, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[columns[j][i] for j in range(n)] for i in range(n)]


def fit_ratings(
    games: Iterable[GameScore], prior_draws: float = 0.0, max_iterations: int = 100
) -> tuple[dict[Hashable, Rating], dict[tuple[Hashable, Hashable], float]]:
    """Maximum-likelihood Elo for every engine that played, mean 0, with 95 % errors.

    `prior_draws` adds that many virtual draws between every pair that met (as BayesElo's prior does),
    which keeps the fit finite when an engine won or lost everything; 0 gives the pure MLE.
    Returns (ratings, covariance) where covariance[(i, j)] is in Elo².
    Engines in components that never met each other are rated within their own component only; their
    errors are then computed as if the components were tied together by the mean-0 anchor.
    """
    games = list(games)
    players: list[Hashable] = []
    index: dict[Hashable, int] = {}
    for g in games:
        for p in (g.a, g.b):
            if p not in index:
                index[p] = len(players)
                players.append(p)
    n = len(players)
    if n == 0:
        return {}, {}
    # aggregate per ordered pair: games and points for the first
    pair_games: dict[tuple[int, int], float] = {}
    pair_points: dict[tuple[int, int], float] = {}
    game_count = [0.0] * n
    points = [0.0] * n
    for g in games:
        i, j = index[g.a], index[g.b]
        if i == j:
            continue
        key, s = ((i, j), g.score_a) if i < j else ((j, i), 1.0 - g.score_a)
        pair_games[key] = pair_games.get(key, 0.0) + g.weight
        pair_points[key] = pair_points.get(key, 0.0) + s * g.weight
        if not g.virtual:
            game_count[i] += g.weight
            game_count[j] += g.weight
            points[i] += g.score_a * g.weight
            points[j] += (1.0 - g.score_a) * g.weight
    if prior_draws > 0:
        for key in pair_games:
            pair_games[key] += prior_draws
            pair_points[key] += prior_draws / 2.0

    r = [0.0] * n  # natural-log units
    hessian: list[list[float]] = [[0.0] * n for _ in range(n)]
    for _ in range(max_iterations):
        grad = [0.0] * n
        hessian = [[0.0] * n for _ in range(n)]
        for (i, j), count in pair_games.items():
            p = 1.0 / (1.0 + math.exp(r[j] - r[i]))
            residual = pair_points[(i, j)] - count * p
            grad[i] += residual
            grad[j] -= residual
            w = count * p * (1.0 - p)
            hessian[i][i] += w
            hessian[j][j] += w
            hessian[i][j] -= w
            hessian[j][i] -= w
        # anchor: add the mean-zero constraint as a rank-one term (keeps the system regular)
        system = [[hessian[i][j] + 1.0 / n for j in range(n)] for i in range(n)]
        try:
            step = _solve(system, grad)
        except ZeroDivisionError:
            break
        biggest = max(abs(s) for s in step)
        scale = 1.0 if biggest <= 2.0 else 2.0 / biggest  # damp steps toward a divergent (perfect) score
        r = [ri + scale * si for ri, si in zip(r, step)]
        mean = sum(r) / n
        r = [ri - mean for ri in r]
        if biggest < 1e-10:
            break
    # covariance of the mean-zero ratings: pseudo-inverse of the information matrix
    try:
        inverse = _inverse([[hessian[i][j] + 1.0 / n for j in range(n)] for i in range(n)])
        cov = [[inverse[i][j] - 1.0 / n for j in range(n)] for i in range(n)]
    except ZeroDivisionError:
        cov = [[math.inf] * n for _ in range(n)]
    ratings = {}
    covariance = {}
    for i, p in enumerate(players):
        var = cov[i][i]
        unbounded = abs(r[i]) > 15.0 or not math.isfinite(var) or var < 0
        error = math.inf if unbounded else Z95 * math.sqrt(var) * ELO_SCALE
        ratings[p] = Rating(r[i] * ELO_SCALE, error, int(round(game_count[i])), points[i])
        for j, q in enumerate(players):
            covariance[(p, q)] = cov[i][j] * ELO_SCALE**2
    return ratings, covariance


def los(wins: float, losses: float) -> float:
    """Likelihood of superiority from a head-to-head (draws carry no information): Φ((W−L)/√(W+L))."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def los_from_fit(elo_a: float, elo_b: float, var_a: float, var_b: float, cov_ab: float) -> float:
    """P(a stronger than b) from the fitted ratings and their covariance (normal approximation)."""
    var = var_a + var_b - 2.0 * cov_ab
    if not math.isfinite(var) or var <= 0:
        return 0.5 if elo_a == elo_b else float(elo_a > elo_b)
    return 0.5 * (1.0 + math.erf((elo_a - elo_b) / math.sqrt(2.0 * var)))


@dataclass(frozen=True)
class SprtResult:
    llr: float
    lower: float  # accept H0 (elo <= elo0) at or below
    upper: float  # accept H1 (elo >= elo1) at or above
    decision: str | None  # "H0", "H1" or None (continue)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds: (ln(β/(1−α)), ln((1−β)/α))."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _mle_with_mean(probs: Sequence[float], scores: Sequence[float], target: float) -> list[float]:
    """The distribution closest (max. likelihood) to `probs` on the same outcomes whose mean score is `target`.

    It has the form p_j = probs_j / (1 + λ (score_j − target)); λ is found by bisection, since the
    mean condition Σ probs_j (score_j − target) / (1 + λ (score_j − target)) = 0 is decreasing in λ.
    """
    lo = -1.0 / (max(scores) - target) if max(scores) > target else -1e9
    hi = -1.0 / (min(scores) - target) if min(scores) < target else 1e9
    eps = 1e-12
    lo, hi = lo + eps * abs(lo) + eps, hi - eps * abs(hi) - eps

    def mean_gap(lam: float) -> float:
        return sum(p * (x - target) / (1.0 + lam * (x - target)) for p, x in zip(probs, scores))

    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mean_gap(mid) > 0:
            lo = mid
        else:
            hi = mid
    lam = (lo + hi) / 2.0
    return [p / (1.0 + lam * (x - target)) for p, x in zip(probs, scores)]


def gsprt_llr(counts: Sequence[float], scores: Sequence[float], elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of the generalised SPRT (logistic Elo), as fishtest and fastchess compute it.

    The outcome distribution under each hypothesis is the maximum-likelihood one whose expected score is
    s0 (resp. s1); LLR = Σ n_j ln(p1_j / p0_j). Empty categories get 1e-3 of a count so that a handful of
    identical results cannot produce an absurd ratio.
    """
    total = sum(counts)
    if total <= 0:
        return 0.0
    regular = [c if c > 0 else 1e-3 for c in counts]
    n = sum(regular)
    probs = [c / n for c in regular]
    s0, s1 = expected_score(elo0), expected_score(elo1)
    p0 = _mle_with_mean(probs, scores, s0)
    p1 = _mle_with_mean(probs, scores, s1)
    return sum(c * math.log(a / b) for c, a, b in zip(counts, p1, p0) if c > 0)


def gsprt_llr_normal(counts: Sequence[float], scores: Sequence[float], elo0: float, elo1: float) -> float:
    """The normal approximation of the same LLR: N (s1 − s0)(2m − s0 − s1) / (2v) for N outcomes of mean m, variance v.

    Close to `gsprt_llr` once there are a few dozen results; kept as a cross-check.
    """
    total = sum(counts)
    if total <= 0:
        return 0.0
    mean = sum(c * x for c, x in zip(counts, scores)) / total
    var = sum(c * (x - mean) ** 2 for c, x in zip(counts, scores)) / total
    if var <= 0:
        return 0.0
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return total * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


def _decide(llr: float, alpha: float, beta: float) -> SprtResult:
    lower, upper = sprt_bounds(alpha, beta)
    decision = "H1" if llr >= upper else "H0" if llr <= lower else None
    return SprtResult(llr, lower, upper, decision)


def sprt_trinomial(wins: int, draws: int, losses: int, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05) -> SprtResult:
    """SPRT on single games (score 1, 1/2, 0)."""
    return _decide(gsprt_llr([losses, draws, wins], [0.0, 0.5, 1.0], elo0, elo1), alpha, beta)


def sprt_pentanomial(pairs: Sequence[int], elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05) -> SprtResult:
    """SPRT on game pairs: pairs[k] = number of pairs in which the engine scored k/2 points (k = 0..4).

    Pairing the two colours of one opening removes most of the opening's bias from the variance,
    which is why fastchess prefers this form.
    """
    if len(pairs) != 5:
        raise ValueError("pentanomial needs five counts (0, 1/2, 1, 3/2, 2 points per pair)")
    return _decide(gsprt_llr(pairs, [0.0, 0.25, 0.5, 0.75, 1.0], elo0, elo1), alpha, beta)


def match_elo(wins: int, draws: int, losses: int) -> tuple[float, float]:
    """Elo difference and 95 % error from a trinomial result (for a quick match summary)."""
    n = wins + draws + losses
    if n == 0:
        return 0.0, math.inf
    score = (wins + draws / 2.0) / n
    var = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / n
    if not 0.0 < score < 1.0:
        return elo_from_score(score), math.inf
    sd = math.sqrt(var / n)
    low = elo_from_score(max(score - Z95 * sd, 1e-9))
    high = elo_from_score(min(score + Z95 * sd, 1 - 1e-9))
    return elo_from_score(score), (high - low) / 2.0
