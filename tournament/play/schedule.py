"""Who plays whom: fixed plans (match, gauntlet, round robin) and the ladder's adaptive choice.

Games always come in pairs on one opening with colours swapped: slot 2p has the pair's first engine
as black, slot 2p+1 the other. A fixed plan is a pure function of its settings, so a resumed run
recomputes it and plays exactly the slots the database lacks.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from tournament.results.ratings import GameScore, Tally, fit_ratings
from tournament.game.record import GameRecord


@dataclass(frozen=True)
class Slot:
    slot: int
    pair_index: int
    black: str
    white: str


def _pairs_to_slots(couples: Iterable[tuple[str, str]]) -> list[Slot]:
    slots = []
    for pair_index, (a, b) in enumerate(couples):
        slots.append(Slot(2 * pair_index, pair_index, a, b))
        slots.append(Slot(2 * pair_index + 1, pair_index, b, a))
    return slots


def match_plan(a: str, b: str, pairs: int) -> list[Slot]:
    """`pairs` game pairs between two engines."""
    return _pairs_to_slots((a, b) if p % 2 == 0 else (b, a) for p in range(pairs))


def gauntlet_plan(champion: str, opponents: list[str], pairs: int) -> list[Slot]:
    """The champion plays `pairs` pairs against each opponent, opponents interleaved round by round."""
    return _pairs_to_slots((champion, o) for _ in range(pairs) for o in opponents)


def round_robin_plan(engines: list[str], rounds: int) -> list[Slot]:
    """Every couple plays one pair per round; within a round, the circle method spreads each engine's games."""
    names = list(engines)
    if len(names) % 2:
        names.append("")  # bye
    n = len(names)
    couples = []
    for r in range(rounds):
        order = names[:]
        for turn in range(n - 1):
            for i in range(n // 2):
                a, b = order[i], order[n - 1 - i]
                if a and b:
                    couples.append((a, b) if (turn + r) % 2 == 0 else (b, a))
            order = [order[0]] + [order[-1]] + order[1:-1]
    return _pairs_to_slots(couples)


def remaining(plan: list[Slot], done: set[int]) -> list[Slot]:
    return [s for s in plan if s.slot not in done]


class LadderPlanner:
    """Chooses the next game pair of a persistent ladder: the couple whose result would teach the most.

    Ratings are fitted on every stored game plus, for every couple, a quarter of a virtual draw (so the
    fit is defined from the first game and couples that never met look uncertain, not unknown). A couple's
    value is the variance of its rating difference times p(1−p) at the current estimate: the expected
    information one more game brings. Games still being played count as draws, so concurrent workers spread
    out instead of all picking the same couple.
    """

    def __init__(self, engines: list[str]) -> None:
        if len(engines) < 2:
            raise ValueError("a ladder needs at least two engines")
        self.engines = list(engines)

    def choose(self, tally: Tally, in_flight: Counter) -> tuple[str, str]:
        """The couple to play next, given every stored result (`tally`) and the games being played."""
        scores = [sc for sc in tally.scores() if sc.a in self.engines and sc.b in self.engines]
        for (a, b), count in in_flight.items():
            if count:
                scores.append(GameScore(a, b, 0.5, weight=count, virtual=True))
        for a, b in itertools.combinations(self.engines, 2):
            scores.append(GameScore(a, b, 0.5, weight=0.25, virtual=True))
        ratings, cov = fit_ratings(scores)
        best, best_value = None, -1.0
        for a, b in itertools.combinations(self.engines, 2):
            var = cov[(a, a)] + cov[(b, b)] - 2 * cov[(a, b)]
            if not math.isfinite(var):
                var = 1e12
            diff = ratings[a].elo - ratings[b].elo
            p = 1.0 / (1.0 + 10 ** (-diff / 400.0))
            met = tally.met(a, b) + in_flight[(a, b)] + in_flight[(b, a)]
            value = var * p * (1 - p) / (1 + 0.01 * met)
            if value > best_value + 1e-9:
                best, best_value = (a, b), value
        assert best is not None
        return best


def tally_of(games: Iterable[GameRecord]) -> Tally:
    tally = Tally()
    for g in games:
        tally.add(g.black, g.white, g.score_for(g.black))
    return tally


def pair_for_slot(slot: int, pair_order: tuple[str, str]) -> Slot:
    """The ladder's slots: a pair occupies 2p and 2p+1 with colours swapped."""
    pair_index = slot // 2
    a, b = pair_order
    return Slot(slot, pair_index, a, b) if slot % 2 == 0 else Slot(slot, pair_index, b, a)
