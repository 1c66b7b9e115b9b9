"""Standings and crosstable from stored games (what `report DB` and the end of every run print)."""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass

from tournament.game.endings import Ending
from tournament.results.ratings import GameScore, fit_ratings, los_from_fit
from tournament.game.record import GameRecord

PRIOR_DRAWS = 1.0  # virtual draws per couple that met: keeps all-win/all-loss ratings finite


@dataclass(frozen=True)
class Standing:
    name: str
    elo: float
    error95: float
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    los_next: float | None  # P(stronger than the engine ranked just below)
    losses_by: dict[str, int]  # ending -> count, for games this engine lost not by a five
    avg_ms: float  # mean thinking time per move
    peak_rss: int  # bytes, 0 if never measured


def standings(games: list[GameRecord]) -> list[Standing]:
    """Engines ranked by fitted Elo (mean 0, 95 % errors, LOS against the next one down)."""
    scores = [GameScore(g.black, g.white, g.score_for(g.black)) for g in games if g.black != g.white]
    ratings, cov = fit_ratings(scores, prior_draws=PRIOR_DRAWS)
    wins, draws, losses = Counter(), Counter(), Counter()
    faults: dict[str, Counter] = defaultdict(Counter)
    think_ms, think_moves, peak = Counter(), Counter(), Counter()
    for g in games:
        played = range(g.opening_stones, len(g.moves))
        black_moves = sum(1 for i in played if i % 2 == 0)
        for name, ms, rss, moves in (
            (g.black, g.black_ms, g.black_peak_rss, black_moves),
            (g.white, g.white_ms, g.white_peak_rss, len(played) - black_moves),
        ):
            think_ms[name] += ms
            think_moves[name] += moves
            peak[name] = max(peak[name], rss)
        if g.winner is None:
            draws[g.black] += 1
            draws[g.white] += 1
        else:
            wins[g.winner] += 1
            losses[g.loser] += 1
            if g.ending is not Ending.FIVE:
                faults[g.loser][g.ending.value] += 1
    order = sorted(ratings, key=lambda n: (-ratings[n].elo, str(n)))
    out = []
    for i, name in enumerate(order):
        r = ratings[name]
        los_next = None
        if i + 1 < len(order):
            below = order[i + 1]
            los_next = los_from_fit(r.elo, ratings[below].elo, cov[(name, name)], cov[(below, below)], cov[(name, below)])
        out.append(
            Standing(
                name=str(name), elo=r.elo, error95=r.error95, games=r.games, wins=wins[name], draws=draws[name],
                losses=losses[name], score=r.score, los_next=los_next, losses_by=dict(faults[name]),
                avg_ms=think_ms[name] / think_moves[name] if think_moves[name] else 0.0, peak_rss=peak[name],
            )
        )
    return out


def _fmt_error(error: float) -> str:
    return "inf" if not math.isfinite(error) else f"{error:.0f}"


def standings_table(games: list[GameRecord]) -> str:
    rows = standings(games)
    if not rows:
        return "no games yet"
    header = f"{'#':>2}  {'engine':<20} {'Elo':>6} {'±95%':>5} {'games':>5} {'score':>6} {'%':>5}  {'W-D-L':<11} {'LOS':>5}  {'ms/move':>7} {'MiB':>5}  losses not by five"
    lines = [header, "-" * len(header)]
    for i, s in enumerate(rows, 1):
        pct = 100.0 * s.score / s.games if s.games else 0.0
        los_text = "" if s.los_next is None else f"{100 * s.los_next:.0f}%"
        faults = ", ".join(f"{k} {v}" for k, v in sorted(s.losses_by.items())) or "-"
        mib = f"{s.peak_rss / 2**20:.0f}" if s.peak_rss else "-"
        lines.append(
            f"{i:>2}  {s.name[:20]:<20} {s.elo:>+6.0f} {_fmt_error(s.error95):>5} {s.games:>5} {s.score:>6.1f} {pct:>5.1f}  "
            f"{f'{s.wins}-{s.draws}-{s.losses}':<11} {los_text:>5}  {s.avg_ms:>7.0f} {mib:>5}  {faults}"
        )
    lines.append("Elo: maximum-likelihood logistic fit of all games (draws = half), mean 0, 95 % error; "
                 "LOS: probability of being stronger than the next engine down.")
    return "\n".join(lines)


def crosstable(games: list[GameRecord]) -> str:
    """Points each row engine scored against each column engine (points/games)."""
    names = [s.name for s in standings(games)]
    if len(names) < 2:
        return ""
    points: Counter = Counter()
    played: Counter = Counter()
    for g in games:
        for me, other in ((g.black, g.white), (g.white, g.black)):
            points[(me, other)] += g.score_for(me)
            played[(me, other)] += 1
    short = [n[:9] for n in names]
    width = max(9, max(len(s) for s in short))
    lines = [" " * 22 + " ".join(f"{s:>{width}}" for s in short)]
    for name in names:
        cells = []
        for other in names:
            if other == name:
                cells.append(f"{'.':>{width}}")
            elif played[(name, other)]:
                cells.append(f"{points[(name, other)]:g}/{played[(name, other)]}".rjust(width))
            else:
                cells.append(f"{'-':>{width}}")
        lines.append(f"{name[:20]:<22}" + " ".join(cells))
    return "\n".join(lines)


def endings_summary(games: list[GameRecord]) -> str:
    counts = Counter(g.ending.value for g in games)
    return ", ".join(f"{k} {v}" for k, v in counts.most_common())


@dataclass(frozen=True)
class ColourTallies:
    """Points and games of each engine by colour and opening size (the text and HTML reports' table)."""
    columns: list[tuple[str, int]]  # (colour, opening stones), fewest stones first, black before white
    rows: list[tuple[str, list[tuple[float, int] | None]]]  # (engine, (points, games) per column, None if none)


def colour_tallies(games: list[GameRecord], names: list[str] | None = None) -> ColourTallies:
    """Each engine's points as black and as white, by the opening's number of stones.

    An opening set balanced as a whole need not be balanced by colour (black wins most of
    Piskvork's three-stone openings even between equal engines): the total hides whether an
    engine loses on the colour that must defend or fails to convert the one that leads.
    Engines come in the order of `names` (default: the standings'; a caller that has ranked them
    already passes its order and saves the fit); a game of an engine against itself is left out."""
    points: Counter = Counter()
    played: Counter = Counter()
    sizes: set[int] = set()
    for g in games:
        if g.black == g.white:
            continue
        sizes.add(g.opening_stones)
        for name, colour in ((g.black, "black"), (g.white, "white")):
            points[(name, colour, g.opening_stones)] += g.score_for(name)
            played[(name, colour, g.opening_stones)] += 1
    columns = [(colour, k) for k in sorted(sizes) for colour in ("black", "white")]
    rows = []
    for name in names if names is not None else [s.name for s in standings(games)]:
        cells: list[tuple[float, int] | None] = []
        for colour, k in columns:
            n = played[(name, colour, k)]
            cells.append((float(points[(name, colour, k)]), n) if n else None)
        rows.append((name, cells))
    return ColourTallies(columns, rows)


def colour_table(games: list[GameRecord]) -> str:
    """`colour_tallies` as text (`report DB`); empty when there is no game."""
    tallies = colour_tallies(games)
    if not tallies.rows:
        return ""
    width = 11
    lines = ["points as black and as white, by the opening's stones (points/games)",
             " " * 22 + " ".join(f"{f'{c} {k}':>{width}}" for c, k in tallies.columns)]
    for name, cells in tallies.rows:
        shown = [(f"{cell[0]:g}/{cell[1]}" if cell else "-").rjust(width) for cell in cells]
        lines.append(f"{name[:20]:<22}" + " ".join(shown))
    return "\n".join(lines)
