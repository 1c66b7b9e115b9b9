"""The typed errors of the engine API (`tournament.engine`), one class per way things go wrong.

Each engine error names the engine, says what happened in its message, and carries the details a
script may want to act on (exit code and last stderr lines, the offending move or reply line). The
tournament's own code reports the same events as `Failure` values instead (an engine that
misbehaves in a game just loses it); `ending` links the two vocabularies so a caller of the API
can score a failure the way the referee would.
"""
from __future__ import annotations

from tournament.game.endings import Ending

Square = tuple[int, int]


class PositionError(ValueError):
    """A position that cannot be played or sent: a square off the board or taken twice, a renju
    foul or a move after the game ended, an unsupported board size, or no move left to play.

    Raised before anything reaches an engine.
    """


class EngineError(Exception):
    """Something an engine did (or failed to do). `engine` is its name; `ending` is how the
    tournament referee would score it."""

    ending: Ending = Ending.CRASH

    def __init__(self, engine: str, message: str) -> None:
        super().__init__(f"{engine}: {message}")
        self.engine = engine
        self.message = message


class EngineStartError(EngineError):
    """The engine could not be launched or reached, or did not answer START with OK in time."""

    ending = Ending.START_FAILED


class EngineTerminatedError(EngineError):
    """The engine's process exited or its connection closed. `exit_code` (None for a remote
    engine or when unknown) and `stderr` (its last lines) say why, where the engine said."""

    ending = Ending.CRASH

    def __init__(self, engine: str, message: str, exit_code: int | None = None, stderr: tuple[str, ...] = ()) -> None:
        super().__init__(engine, message)
        self.exit_code = exit_code
        self.stderr = stderr


class EngineTimeoutError(EngineError):
    """No answer within the time limit plus the engine's tolerance. `seconds` is how long it was given."""

    ending = Ending.TIME_TURN

    def __init__(self, engine: str, message: str, seconds: float, ending: Ending = Ending.TIME_TURN) -> None:
        super().__init__(engine, message)
        self.seconds = seconds
        self.ending = ending


class EngineReplyError(EngineError):
    """The engine answered something other than a move: `ERROR text`, `UNKNOWN text`, or a line
    that is no reply at all. `kind` is "ERROR", "UNKNOWN" or "garbage"; `line` is what it sent and
    `text` its reason (the part after ERROR / UNKNOWN)."""

    ending = Ending.BAD_REPLY

    def __init__(self, engine: str, message: str, line: str) -> None:
        super().__init__(engine, message)
        self.line = line
        word, _, rest = line.strip().partition(" ")
        self.kind = word.upper() if word.upper() in ("ERROR", "UNKNOWN") else "garbage"
        self.text = rest.strip() if self.kind != "garbage" else line.strip()


class IllegalMoveError(EngineError):
    """The engine answered a move the position does not allow: `move` is that move and `ending`
    the reason (off the board, occupied, or a renju foul by black)."""

    ending = Ending.OCCUPIED

    def __init__(self, engine: str, message: str, move: Square, ending: Ending) -> None:
        super().__init__(engine, message)
        self.move = move
        self.ending = ending
