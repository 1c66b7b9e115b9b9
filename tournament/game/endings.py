"""Why a game ended: one closed vocabulary shared by the referee, the game runner and the store.

Keeping the reasons in one enum means the database, the PSQ/SGF exports and the reports can
never disagree on spelling, and a test can assert an exact reason.
"""
from __future__ import annotations

from enum import Enum


class Ending(str, Enum):
    FIVE = "five"  # a winning line under the rule in force
    FOUL_DOUBLE_FOUR = "foul-double-four"  # renju: black made two fours
    FOUL_DOUBLE_THREE = "foul-double-three"  # renju: black made two real threes
    FOUL_OVERLINE = "foul-overline"  # renju: black made six or more
    OCCUPIED = "occupied"  # the square already holds a stone
    OFF_BOARD = "off-board"  # coordinates outside the board
    BAD_REPLY = "bad-reply"  # a reply that is not `X,Y` (or ERROR/UNKNOWN instead of a move)
    TIME_TURN = "time-turn"  # the move took longer than timeout_turn + tolerance
    TIME_MATCH = "time-match"  # the game clock ran out (+ tolerance)
    CRASH = "crash"  # the engine process exited or the connection closed mid-game
    START_FAILED = "start-failed"  # could not launch, or START not answered with OK in time
    MEMORY = "memory"  # resident memory above max_memory
    FULL_BOARD = "full-board"  # draw: no empty square left
    MOVE_LIMIT = "move-limit"  # draw: the chosen move limit (e.g. width*height-25) was reached

    @property
    def is_draw(self) -> bool:
        return self in (Ending.FULL_BOARD, Ending.MOVE_LIMIT)

    @property
    def is_foul(self) -> bool:
        return self.value.startswith("foul-")

    @property
    def description(self) -> str:
        return _DESCRIPTIONS[self]


_DESCRIPTIONS = {
    Ending.FIVE: "five connection",
    Ending.FOUL_DOUBLE_FOUR: "forbidden move (double four)",
    Ending.FOUL_DOUBLE_THREE: "forbidden move (double three)",
    Ending.FOUL_OVERLINE: "forbidden move (overline)",
    Ending.OCCUPIED: "illegal move (occupied square)",
    Ending.OFF_BOARD: "illegal move (off the board)",
    Ending.BAD_REPLY: "illegal reply (not a move)",
    Ending.TIME_TURN: "time forfeit (turn)",
    Ending.TIME_MATCH: "time forfeit (match clock)",
    Ending.CRASH: "crash",
    Ending.START_FAILED: "failed to start",
    Ending.MEMORY: "memory limit exceeded",
    Ending.FULL_BOARD: "full board",
    Ending.MOVE_LIMIT: "move limit",
}
