"""The manager's referee: judges each move of one game under the rules of protocol reference §11.

The rules themselves live in `protocol.judge` (shared with the brain); this module adds what a game
needs on top of them: whose turn it is, illegal moves, fouls and draws as `Ending` reasons. The
manager calls `GameReferee.play` once per move.
"""
from __future__ import annotations

from dataclasses import dataclass

from protocol import judge
from protocol.judge import BLACK, EMPTY, WHITE, Board, Foul, Square, makes_win
from protocol.rules import Rules
from tournament.game.endings import Ending

__all__ = ["BLACK", "WHITE", "Board", "CONTINUE", "GameReferee", "Verdict", "makes_win", "renju_foul"]

_FOUL_ENDING = {
    Foul.DOUBLE_FOUR: Ending.FOUL_DOUBLE_FOUR,
    Foul.DOUBLE_THREE: Ending.FOUL_DOUBLE_THREE,
    Foul.OVERLINE: Ending.FOUL_OVERLINE,
}


def renju_foul(board: Board, x: int, y: int, k: int = 5) -> Ending | None:
    """The judge's renju foul for a black stone on the empty square (x, y), as the game's Ending."""
    foul = judge.renju_foul(board, x, y, k)
    return None if foul is None else _FOUL_ENDING[foul]


@dataclass(frozen=True)
class Verdict:
    """What one move did to the game. `ending` is None while the game goes on.

    `loser_moved` tells who is scored: True when the side that just moved loses (foul, illegal move),
    False when it wins (five); irrelevant for draws.
    """

    ending: Ending | None = None
    loser_moved: bool = False

    @property
    def game_over(self) -> bool:
        return self.ending is not None


CONTINUE = Verdict()


class GameReferee:
    """Tracks one game and judges each move for the side to move (black first).

    `move_limit`: declare a draw once this many stones are on the board (Piskvork's width·height−25);
    None plays to a full board.
    """

    def __init__(self, width: int, height: int, rules: Rules, k: int = 5, move_limit: int | None = None) -> None:
        self.board = Board(width, height)
        self.rules = rules
        self.k = k
        self.move_limit = move_limit
        self.moves: list[Square] = []

    @property
    def to_move(self) -> int:
        return BLACK if len(self.moves) % 2 == 0 else WHITE

    def play(self, x: int, y: int) -> Verdict:
        """Judge and (if legal) place the side to move's stone at (x, y)."""
        board, colour = self.board, self.to_move
        if not board.inside(x, y):
            return Verdict(Ending.OFF_BOARD, loser_moved=True)
        if board.get(x, y) != EMPTY:
            return Verdict(Ending.OCCUPIED, loser_moved=True)
        if self.rules.renju and colour == BLACK:
            foul = renju_foul(board, x, y, self.k)
            if foul is not None:
                return Verdict(foul, loser_moved=True)
        won = makes_win(board, x, y, colour, self.rules, self.k)
        board.set(x, y, colour)
        self.moves.append((x, y))
        if won:
            return Verdict(Ending.FIVE, loser_moved=False)
        if board.is_full():
            return Verdict(Ending.FULL_BOARD)
        if self.move_limit is not None and len(self.moves) >= self.move_limit:
            return Verdict(Ending.MOVE_LIMIT)
        return CONTINUE

    def copy(self) -> "GameReferee":
        """An independent referee in the same state (to judge a move without playing it here)."""
        other = GameReferee.__new__(GameReferee)
        other.board, other.rules, other.k = self.board.copy(), self.rules, self.k
        other.move_limit, other.moves = self.move_limit, list(self.moves)
        return other

    def place_opening(self, stones: list[Square]) -> Verdict:
        """Lay down opening stones (alternating, black first) with the same checks as moves."""
        for x, y in stones:
            verdict = self.play(x, y)
            if verdict.game_over:
                return verdict
        return CONTINUE
