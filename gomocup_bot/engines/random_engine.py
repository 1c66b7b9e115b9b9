"""`random`: a uniformly random legal move. The weakest ladder opponent and a smoke-test engine."""
from __future__ import annotations

import random

from gomocup_bot.engine import BLACK, Position, SearchRequest, SearchResult, StopFlag
from protocol.judge import Board as Grid, is_renju_foul
from protocol.rules import Rules


class RandomEngine:
    """Picks any empty square (not YXBLOCK-excluded, not a renju foul for black) at random."""

    name = "random"
    # answers in microseconds to milliseconds: a server runs it without queueing for a search slot
    needs_search_slot = False

    def __init__(self, seed: int | None = None, **_: object) -> None:
        self._rng = random.Random(seed)

    def prepare(self) -> None:
        """Nothing to load."""

    def new_game(self, width: int, height: int, rules: Rules) -> None:
        """No per-game state."""

    def search(self, request: SearchRequest, stop: StopFlag) -> SearchResult:
        pos: Position = request.position
        grid = Grid(pos.width, pos.height, pos.stones)
        empties = grid.empties()
        if not empties:
            raise ValueError("no empty square left")
        allowed = [p for p in empties if p not in request.excluded] or empties
        self._rng.shuffle(allowed)
        if pos.rules.renju and pos.to_move == BLACK:
            for p in allowed:
                if not is_renju_foul(grid, *p):
                    return SearchResult(move=p, alternatives=[p])
        return SearchResult(move=allowed[0], alternatives=allowed[: max(1, request.nbest)])
