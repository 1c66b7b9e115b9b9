"""`greedy`: win if possible, else block the opponent's five, else the best one-ply threat score.

Pure Python and cheap (a few milliseconds on 15x15), so the brain can also use it as the quick
answer when no search slot is free in time. The score counts, for every 5-square window through a
candidate square, how many of our (attack) or the opponent's (defence) stones the window holds when
the other side has none there: windows close to a five weigh most.
"""
from __future__ import annotations

import random

from gomocup_bot.engine import BLACK, Position, SearchRequest, SearchResult, StopFlag
from protocol.judge import DIRECTIONS, EMPTY, Board as Grid, is_renju_foul, opponent, winning_squares
from protocol.rules import Rules

# value of a window holding k stones of one side and none of the other (k = 0..4)
WINDOW_VALUE = (1, 12, 90, 800, 10000)
DEFENCE_WEIGHT = 0.8
NEAR = 2  # candidates: empty squares within this Chebyshev distance of a stone


def window_score(grid: Grid, x: int, y: int, colour: int, rules: Rules = Rules()) -> tuple[int, int]:
    """(attack, defence) sums of window values through the empty square (x, y) for `colour`.

    Where only an exact five wins for a side, its windows flanked by its own stone count nothing:
    filling them would make an overline.
    """
    other = opponent(colour)
    exact_own = rules.exact_five or (rules.renju and colour == BLACK)
    exact_other = rules.exact_five or (rules.renju and other == BLACK)
    attack = defence = 0
    for dx, dy in DIRECTIONS:
        for start in range(-4, 1):
            own = theirs = 0
            ok = True
            for k in range(start, start + 5):
                c = grid.get(x + k * dx, y + k * dy)
                if c == colour:
                    own += 1
                elif c == other:
                    theirs += 1
                elif c != EMPTY:  # off board or blocked
                    ok = False
                    break
            if not ok:
                continue
            before = grid.get(x + (start - 1) * dx, y + (start - 1) * dy)
            after = grid.get(x + (start + 5) * dx, y + (start + 5) * dy)
            if theirs == 0 and not (exact_own and colour in (before, after)):
                attack += WINDOW_VALUE[own]
            if own == 0 and not (exact_other and other in (before, after)):
                defence += WINDOW_VALUE[theirs]
    return attack, defence


def candidates(grid: Grid) -> list[tuple[int, int]]:
    """Empty squares near a stone; the centre-most empty square on an empty board."""
    w, h = grid.width, grid.height
    near = set()
    for i, c in enumerate(grid.cells):
        if c == EMPTY:
            continue
        x, y = i % w, i // w
        for yy in range(max(0, y - NEAR), min(h, y + NEAR + 1)):
            for xx in range(max(0, x - NEAR), min(w, x + NEAR + 1)):
                if grid.cells[yy * w + xx] == EMPTY:
                    near.add((xx, yy))
    if not near:
        near = set(grid.empties())
    return sorted(near, key=lambda p: (p[1], p[0]))


class GreedyEngine:
    """One-ply tactics: five > block five > threat score. Deterministic unless given a seed."""

    name = "greedy"
    # answers in microseconds to milliseconds: a server runs it without queueing for a search slot
    needs_search_slot = False

    def __init__(self, seed: int | None = None, **_: object) -> None:
        self._rng = random.Random(seed) if seed is not None else None

    def prepare(self) -> None:
        """Nothing to load."""

    def new_game(self, width: int, height: int, rules: Rules) -> None:
        """No per-game state."""

    def search(self, request: SearchRequest, stop: StopFlag) -> SearchResult:
        pos: Position = request.position
        return SearchResult(**choose(pos, request.excluded, request.nbest, self._rng))


def choose(pos: Position, excluded=frozenset(), nbest: int = 1, rng: random.Random | None = None) -> dict:
    """The greedy choice as SearchResult fields (move, proven, alternatives)."""
    grid = Grid(pos.width, pos.height, pos.stones)
    me, rules = pos.to_move, pos.rules
    empties = grid.empties()
    if not empties:
        raise ValueError("no empty square left")

    def legal(p: tuple[int, int]) -> bool:
        if p in excluded:
            return False
        return not (rules.renju and me == BLACK and is_renju_foul(grid, *p))

    wins = [p for p in winning_squares(grid, me, rules) if p not in excluded]
    if wins:
        return {"move": wins[0], "proven": 1, "alternatives": wins[: max(1, nbest)]}
    threats = [p for p in winning_squares(grid, opponent(me), rules) if legal(p)]
    if threats:
        proven = -1 if len(threats) > 1 else 0
        best = max(threats, key=lambda p: _score(grid, p, me, pos, rng))
        return {"move": best, "proven": proven, "alternatives": [best]}
    ranked = sorted(candidates(grid), key=lambda p: _score(grid, p, me, pos, rng), reverse=True)
    chosen = []
    for p in ranked:  # lazily: a renju foul check costs far more than a score
        if legal(p):
            chosen.append(p)
            if len(chosen) >= max(1, nbest):
                break
    if not chosen:  # everything near is excluded or a foul: any legal square, else any square
        chosen = [p for p in empties if legal(p)][:1] or [p for p in empties if p not in excluded][:1] or empties[:1]
    return {"move": chosen[0], "alternatives": chosen}


def _score(grid: Grid, p: tuple[int, int], me: int, pos: Position, rng: random.Random | None) -> float:
    attack, defence = window_score(grid, p[0], p[1], me, pos.rules)
    cx, cy = (pos.width - 1) / 2, (pos.height - 1) / 2
    centre = -0.01 * (abs(p[0] - cx) + abs(p[1] - cy))
    jitter = rng.random() * 0.5 if rng is not None else 0.0
    return attack + DEFENCE_WEIGHT * defence + centre + jitter
