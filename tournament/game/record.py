"""What a finished game leaves behind: the record the store keeps and the exporters write."""
from __future__ import annotations

from dataclasses import dataclass, field

from tournament.game.endings import Ending

DRAW, BLACK_WON, WHITE_WON = 0, 1, 2


@dataclass(frozen=True)
class MoveRecord:
    x: int
    y: int
    ms: int  # thinking time measured by the manager (0 for opening stones)


@dataclass
class GameRecord:
    """One game, complete. `moves` holds the opening stones first (`opening_stones` of them, 0 ms)."""

    black: str
    white: str
    width: int
    height: int
    rule: int  # Gomocup rule code
    win_length: int
    result: int  # DRAW, BLACK_WON, WHITE_WON
    ending: Ending
    detail: str = ""
    moves: list[MoveRecord] = field(default_factory=list)
    opening_stones: int = 0
    opening: str = ""  # offset-format text of the opening as played
    opening_index: int = -1
    slot: int = -1  # position in the tournament's plan (unique per database)
    pair_index: int = -1
    started: str = ""  # ISO 8601 UTC
    duration: float = 0.0  # wall seconds
    black_ms: int = 0  # total thinking time
    white_ms: int = 0
    black_peak_rss: int = 0  # bytes, 0 if not measured (remote engine)
    white_peak_rss: int = 0

    def score_for(self, name: str) -> float:
        """Points for engine `name` in this game (1, 0.5, 0)."""
        if self.result == DRAW:
            return 0.5
        winner = self.black if self.result == BLACK_WON else self.white
        return 1.0 if winner == name else 0.0

    @property
    def winner(self) -> str | None:
        return None if self.result == DRAW else self.black if self.result == BLACK_WON else self.white

    @property
    def loser(self) -> str | None:
        return None if self.result == DRAW else self.white if self.result == BLACK_WON else self.black

    @property
    def result_text(self) -> str:
        return {DRAW: "1/2-1/2", BLACK_WON: "black", WHITE_WON: "white"}[self.result]
