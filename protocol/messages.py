"""Typed Gomocup/Piskvork messages, both directions.

Commands travel manager -> brain, replies brain -> manager. Each is a frozen dataclass so a message
can be compared, hashed and round-tripped through `protocol.encoder` and `protocol.parser`.
Coordinates are `(x, y)`: x = column, y = row, 0-based, exactly as on the wire; nothing here checks
them against a board (that is the session's job, it knows the size).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

Point = tuple[int, int]  # (x, y)
BoardStone = tuple[int, int, int]  # (x, y, field): 1 own, 2 opponent, 3 blocked (continuous game)

OWN = 1
OPPONENT = 2
BLOCKED_FIELD = 3

# INFO keys of the reference (Gomocup + Yixin/Rapfi extensions). Values arrive as text; these lists
# say how a session should read them. Unknown keys are still delivered, never an error.
INFO_INT_KEYS = frozenset(
    {
        "timeout_turn", "timeout_match", "time_left", "max_memory", "game_type", "rule",
        "max_depth", "max_node", "time_increment", "thread_num", "thread_split_depth",
        "hash_size", "pondering", "vcthread", "usedatabase", "start_depth", "nbestsym",
        "checkmate", "show_detail", "strength", "max_moves", "draw_result", "swapable",
        "search_type",
    }
)
INFO_TEXT_KEYS = frozenset({"folder", "evaluate", "caution_factor"})
UNLIMITED = 2147483647  # `time_left` / `timeout_*` value meaning "no limit"


# ----------------------------------------------------------------------------- commands


@dataclass(frozen=True)
class Start:
    """`START n`: new empty n x n board (Yixin's `START w h` is read as `START w`)."""

    size: int


@dataclass(frozen=True)
class RectStart:
    """`RECTSTART w,h`: new empty rectangular board, width along X."""

    width: int
    height: int


@dataclass(frozen=True)
class Restart:
    """`RESTART`: clear the board, keep its size."""


@dataclass(frozen=True)
class Begin:
    """`BEGIN`: the brain plays the first move on the empty board."""


@dataclass(frozen=True)
class Turn:
    """`TURN X,Y`: the opponent played here; reply with our move."""

    x: int
    y: int


@dataclass(frozen=True)
class Board:
    """`BOARD` block: the whole position (fields 1 own, 2 opponent, 3 blocked); reply a move."""

    stones: tuple[BoardStone, ...] = ()


@dataclass(frozen=True)
class Info:
    """`INFO key value`: a setting; never answered. `key` is lower case, `value` raw text."""

    key: str
    value: str

    def int_value(self) -> int | None:
        """The value as an integer, or None if it is not one."""
        text = self.value.strip()
        if text[:1] in ("+", "-"):
            sign, digits = text[0], text[1:]
        else:
            sign, digits = "", text
        if not digits.isascii() or not digits.isdigit() or len(digits) > 19:
            return None
        return int(sign + digits)


@dataclass(frozen=True)
class End:
    """`END`: stop and exit quickly, writing nothing more."""


@dataclass(frozen=True)
class About:
    """`ABOUT`: reply one `key="value"` line."""


@dataclass(frozen=True)
class Takeback:
    """`TAKEBACK X,Y`: remove that stone, reply OK."""

    x: int
    y: int


@dataclass(frozen=True)
class Play:
    """`PLAY X,Y`: after our SUGGEST, play X,Y and echo it."""

    x: int
    y: int


@dataclass(frozen=True)
class Swap2Board:
    """`SWAP2BOARD` block: 0, 3 or 5 stones in play order (black first)."""

    stones: tuple[Point, ...] = ()


@dataclass(frozen=True)
class YxShowInfo:
    """`YXSHOWINFO`: GUI handshake."""


@dataclass(frozen=True)
class YxStop:
    """`YXSTOP` (also plain `STOP`): answer with the best move found so far, now."""


@dataclass(frozen=True)
class YxBoard:
    """`YXBOARD` block: set the position like BOARD, but reply nothing."""

    stones: tuple[BoardStone, ...] = ()


@dataclass(frozen=True)
class YxShowForbid:
    """`YXSHOWFORBID`: reply the renju-forbidden points for black."""


@dataclass(frozen=True)
class YxHashClear:
    """`YXHASHCLEAR`: forget search memory."""


@dataclass(frozen=True)
class YxNBest:
    """`YXNBEST n`: analyse the n best moves, then reply the best as a normal move line."""

    n: int


@dataclass(frozen=True)
class YxBlock:
    """`YXBLOCK` block: root moves the search must not play."""

    points: tuple[Point, ...] = ()


@dataclass(frozen=True)
class YxBlockUndo:
    """`YXBLOCKUNDO` block: root moves to allow again."""

    points: tuple[Point, ...] = ()


@dataclass(frozen=True)
class YxBlockReset:
    """`YXBLOCKRESET`: allow every root move again."""


@dataclass(frozen=True)
class UnknownCommand:
    """A line whose first word is no command we know; the brain answers `UNKNOWN`.

    Also lets a manager send arbitrary text (its encoding is `text` itself).
    """

    text: str

    @property
    def word(self) -> str:
        parts = self.text.split(None, 1)
        return parts[0].upper() if parts else ""


Command = Union[
    Start, RectStart, Restart, Begin, Turn, Board, Info, End, About, Takeback, Play, Swap2Board,
    YxShowInfo, YxStop, YxBoard, YxShowForbid, YxHashClear, YxNBest, YxBlock, YxBlockUndo,
    YxBlockReset, UnknownCommand,
]

# ----------------------------------------------------------------------------- replies


@dataclass(frozen=True)
class MoveReply:
    """`X,Y`: the move (answer to BEGIN, TURN, BOARD, PLAY, YXNBEST, one-stone SWAP2BOARD)."""

    x: int
    y: int


@dataclass(frozen=True)
class MultiMoveReply:
    """`X,Y X,Y ...` on one line: SWAP2BOARD answers with 2 or 3 stones."""

    moves: tuple[Point, ...]


@dataclass(frozen=True)
class OkReply:
    """`OK`: answer to START, RECTSTART, RESTART, TAKEBACK."""


@dataclass(frozen=True)
class ErrorReply:
    """`ERROR reason`: a known command that cannot be honoured."""

    text: str = ""


@dataclass(frozen=True)
class UnknownReply:
    """`UNKNOWN reason`: a command not understood."""

    text: str = ""


@dataclass(frozen=True)
class MessageReply:
    """`MESSAGE text`: a log line for the user (one line; text starting `REALTIME ` is reserved)."""

    text: str = ""


@dataclass(frozen=True)
class DebugReply:
    """`DEBUG text`: a log line for the author."""

    text: str = ""


@dataclass(frozen=True)
class SuggestReply:
    """`SUGGEST X,Y`: propose a move without committing (manager answers PLAY or END)."""

    x: int
    y: int


@dataclass(frozen=True)
class SwapReply:
    """`SWAP`: SWAP2BOARD answer, take the other colour."""


@dataclass(frozen=True)
class ForbidReply:
    """`FORBID XXYY...XXYY.`: renju-forbidden points, two digits per coordinate."""

    points: tuple[Point, ...] = ()


@dataclass(frozen=True)
class AboutReply:
    """`key="value", key="value"`: the ABOUT answer, pairs in order."""

    fields: tuple[tuple[str, str], ...]

    def get(self, key: str) -> str | None:
        for k, v in self.fields:
            if k == key:
                return v
        return None


REALTIME_KINDS_WITH_MOVE = frozenset({"POS", "DONE", "BEST", "LOST", "LOSE"})
REALTIME_KINDS = REALTIME_KINDS_WITH_MOVE | {"REFRESH"}


@dataclass(frozen=True)
class RealtimeReply:
    """`MESSAGE REALTIME KIND [X,Y]`: search progress for GUIs that asked (INFO show_detail)."""

    kind: str  # one of REALTIME_KINDS
    move: Point | None = None


Reply = Union[
    MoveReply, MultiMoveReply, OkReply, ErrorReply, UnknownReply, MessageReply, DebugReply,
    SuggestReply, SwapReply, ForbidReply, AboutReply, RealtimeReply,
]

Message = Union[Command, Reply]


@dataclass(frozen=True)
class ProtocolError:
    """A malformed line or block, as a value: `reason` is what the brain sends after `ERROR`.

    `silent`: the brain must log it but not answer (a bad INFO line: managers do not read replies
    to INFO, so an ERROR there would be taken as the answer to the next command).
    """

    reason: str
    line: str | None = None
    silent: bool = False
