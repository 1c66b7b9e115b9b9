"""Typed Gomocup/Piskvork messages, both directions.

Commands travel manager -> brain, replies brain -> manager. Each is a small immutable value (equal
by type and fields, hashable, usable in `match` patterns) that round-trips through
`protocol.encoder` and `protocol.parser`. They are built on `_Value` rather than dataclasses
because this module is on the brain's START path: ~35 dataclasses cost tens of milliseconds of
code generation at import, billed to the Gomocup match clock.
Coordinates are `(x, y)`: x = column, y = row, 0-based, exactly as on the wire; nothing here checks
them against a board (that is the session's job, it knows the size).
"""
from __future__ import annotations

from typing import Any, Union

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


class _Value:
    """Immutable record: subclasses list their fields in `__slots__` (defaults in `_defaults`)."""

    __slots__: tuple[str, ...] = ()
    _defaults: dict[str, Any] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.__match_args__ = cls.__slots__

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        names = self.__slots__
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes {len(names)} fields, got {len(args)}")
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names or key in values:
                raise TypeError(f"{type(self).__name__}: unexpected or repeated field {key!r}")
            values[key] = value
        for name in names:
            if name in values:
                value = values[name]
            elif name in self._defaults:
                value = self._defaults[name]
            else:
                raise TypeError(f"{type(self).__name__}: missing field {name!r}")
            object.__setattr__(self, name, value)

    def _astuple(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._astuple() == other._astuple()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._astuple()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), self._astuple())



# ----------------------------------------------------------------------------- commands


class Start(_Value):
    """`START n`: new empty n x n board (Yixin's `START w h` is read as `START w`)."""

    __slots__ = ("size",)
    size: int


class RectStart(_Value):
    """`RECTSTART w,h`: new empty rectangular board, width along X."""

    __slots__ = ("width", "height")
    width: int
    height: int


class Restart(_Value):
    """`RESTART`: clear the board, keep its size."""

    __slots__ = ()


class Begin(_Value):
    """`BEGIN`: the brain plays the first move on the empty board."""

    __slots__ = ()


class Turn(_Value):
    """`TURN X,Y`: the opponent played here; reply with our move."""

    __slots__ = ("x", "y")
    x: int
    y: int


class Board(_Value):
    """`BOARD` block: the whole position (fields 1 own, 2 opponent, 3 blocked); reply a move."""

    __slots__ = ("stones",)
    _defaults = {"stones": ()}
    stones: tuple[BoardStone, ...]


class Info(_Value):
    """`INFO key value`: a setting; never answered. `key` is lower case, `value` raw text."""

    __slots__ = ("key", "value")
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


class End(_Value):
    """`END`: stop and exit quickly, writing nothing more."""

    __slots__ = ()


class About(_Value):
    """`ABOUT`: reply one `key="value"` line."""

    __slots__ = ()


class Takeback(_Value):
    """`TAKEBACK X,Y`: remove that stone, reply OK."""

    __slots__ = ("x", "y")
    x: int
    y: int


class Play(_Value):
    """`PLAY X,Y`: after our SUGGEST, play X,Y and echo it."""

    __slots__ = ("x", "y")
    x: int
    y: int


class Swap2Board(_Value):
    """`SWAP2BOARD` block: 0, 3 or 5 stones in play order (black first)."""

    __slots__ = ("stones",)
    _defaults = {"stones": ()}
    stones: tuple[Point, ...]


class YxShowInfo(_Value):
    """`YXSHOWINFO`: GUI handshake."""

    __slots__ = ()


class YxStop(_Value):
    """`YXSTOP` (also plain `STOP`): answer with the best move found so far, now."""

    __slots__ = ()


class YxBoard(_Value):
    """`YXBOARD` block: set the position like BOARD, but reply nothing."""

    __slots__ = ("stones",)
    _defaults = {"stones": ()}
    stones: tuple[BoardStone, ...]


class YxShowForbid(_Value):
    """`YXSHOWFORBID`: reply the renju-forbidden points for black."""

    __slots__ = ()


class YxHashClear(_Value):
    """`YXHASHCLEAR`: forget search memory."""

    __slots__ = ()


class YxNBest(_Value):
    """`YXNBEST n`: analyse the n best moves, then reply the best as a normal move line."""

    __slots__ = ("n",)
    n: int


class YxBlock(_Value):
    """`YXBLOCK` block: root moves the search must not play."""

    __slots__ = ("points",)
    _defaults = {"points": ()}
    points: tuple[Point, ...]


class YxBlockUndo(_Value):
    """`YXBLOCKUNDO` block: root moves to allow again."""

    __slots__ = ("points",)
    _defaults = {"points": ()}
    points: tuple[Point, ...]


class YxBlockReset(_Value):
    """`YXBLOCKRESET`: allow every root move again."""

    __slots__ = ()


class UnknownCommand(_Value):
    """A line whose first word is no command we know; the brain answers `UNKNOWN`.

    Also lets a manager send arbitrary text (its encoding is `text` itself).
    """

    __slots__ = ("text",)
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


class MoveReply(_Value):
    """`X,Y`: the move (answer to BEGIN, TURN, BOARD, PLAY, YXNBEST, one-stone SWAP2BOARD)."""

    __slots__ = ("x", "y")
    x: int
    y: int


class MultiMoveReply(_Value):
    """`X,Y X,Y ...` on one line: SWAP2BOARD answers with 2 or 3 stones."""

    __slots__ = ("moves",)
    moves: tuple[Point, ...]


class OkReply(_Value):
    """`OK`: answer to START, RECTSTART, RESTART, TAKEBACK."""

    __slots__ = ()


class ErrorReply(_Value):
    """`ERROR reason`: a known command that cannot be honoured."""

    __slots__ = ("text",)
    _defaults = {"text": ""}
    text: str


class UnknownReply(_Value):
    """`UNKNOWN reason`: a command not understood."""

    __slots__ = ("text",)
    _defaults = {"text": ""}
    text: str


class MessageReply(_Value):
    """`MESSAGE text`: a log line for the user (one line; text starting `REALTIME ` is reserved)."""

    __slots__ = ("text",)
    _defaults = {"text": ""}
    text: str


class DebugReply(_Value):
    """`DEBUG text`: a log line for the author."""

    __slots__ = ("text",)
    _defaults = {"text": ""}
    text: str


class SuggestReply(_Value):
    """`SUGGEST X,Y`: propose a move without committing (manager answers PLAY or END)."""

    __slots__ = ("x", "y")
    x: int
    y: int


class SwapReply(_Value):
    """`SWAP`: SWAP2BOARD answer, take the other colour."""

    __slots__ = ()


class ForbidReply(_Value):
    """`FORBID XXYY...XXYY.`: renju-forbidden points, two digits per coordinate."""

    __slots__ = ("points",)
    _defaults = {"points": ()}
    points: tuple[Point, ...]


class AboutReply(_Value):
    """`key="value", key="value"`: the ABOUT answer, pairs in order."""

    __slots__ = ("fields",)
    fields: tuple[tuple[str, str], ...]

    def get(self, key: str) -> str | None:
        for k, v in self.fields:
            if k == key:
                return v
        return None


REALTIME_KINDS_WITH_MOVE = frozenset({"POS", "DONE", "BEST", "LOST", "LOSE"})
REALTIME_KINDS = REALTIME_KINDS_WITH_MOVE | {"REFRESH"}


class RealtimeReply(_Value):
    """`MESSAGE REALTIME KIND [X,Y]`: search progress for GUIs that asked (INFO show_detail)."""

    __slots__ = ("kind", "move")
    _defaults = {"move": None}
    kind: str  # one of REALTIME_KINDS
    move: Point | None


class DetailReply(_Value):
    """`INFO KEY value` from a brain: Rapfi's search detail (INFO show_detail bit 2), e.g.
    `INFO DEPTH 12`, `INFO BESTLINE 7,7 8,8`, a block opened by `INFO PV 0` and closed by `INFO PV DONE`.

    Not a command (a brain never receives it): a log line like MESSAGE. `key` is upper case.
    """

    __slots__ = ("key", "value")
    _defaults = {"value": ""}
    key: str
    value: str


Reply = Union[
    MoveReply, MultiMoveReply, OkReply, ErrorReply, UnknownReply, MessageReply, DebugReply,
    SuggestReply, SwapReply, ForbidReply, AboutReply, RealtimeReply, DetailReply,
]

# Replies that only report (thinking, logs): a manager reads past them while it waits for an answer.
LOG_REPLIES = (MessageReply, DebugReply, RealtimeReply, DetailReply)

Message = Union[Command, Reply]


class ProtocolError(_Value):
    """A malformed line or block, as a value: `reason` is what the brain sends after `ERROR`.

    `silent`: the brain must log it but not answer (a bad INFO line: managers do not read replies
    to INFO, so an ERROR there would be taken as the answer to the next command).
    """

    __slots__ = ("reason", "line", "silent")
    _defaults = {"line": None, "silent": False}
    reason: str
    line: str | None
    silent: bool
