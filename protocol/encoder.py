"""Messages -> protocol text, for both sides (a manager encodes commands, a brain encodes replies).

`encode_lines(m)` gives the wire lines (several for BOARD-like blocks), `encode(m)` joins them with
"\\n". Output is canonical upper-case text without line terminators; the transport adds them.
"""
from __future__ import annotations

from protocol import messages as m


class EncodeError(ValueError):
    """The message cannot be written as one protocol line (e.g. it contains a newline)."""


def _point(p: tuple[int, int]) -> str:
    return f"{p[0]},{p[1]}"


def _text(word: str, text: str) -> str:
    if "\n" in text or "\r" in text:
        raise EncodeError(f"{word} text must be a single line")
    return f"{word} {text}" if text else word


def _forbid(points: tuple[tuple[int, int], ...]) -> str:
    parts = []
    for x, y in points:
        if not (0 <= x < 100 and 0 <= y < 100):
            raise EncodeError("FORBID coordinates must be 0..99")
        parts.append(f"{x:02d}{y:02d}")
    return "FORBID " + "".join(parts) + "."


def _about(fields: tuple[tuple[str, str], ...]) -> str:
    out = []
    for key, value in fields:
        if not key.isidentifier() or any(c in value for c in '"\r\n'):
            raise EncodeError(f"ABOUT field {key!r} cannot be encoded")
        out.append(f'{key}="{value}"')
    return ", ".join(out)


def encode_lines(msg: m.Message) -> list[str]:
    """The protocol lines for one message, in order."""
    match msg:
        # commands
        case m.Start(size):
            return [f"START {size}"]
        case m.RectStart(w, h):
            return [f"RECTSTART {w},{h}"]
        case m.Restart():
            return ["RESTART"]
        case m.Begin():
            return ["BEGIN"]
        case m.Turn(x, y):
            return [f"TURN {x},{y}"]
        case m.Board(stones):
            return ["BOARD", *(f"{x},{y},{f}" for x, y, f in stones), "DONE"]
        case m.YxBoard(stones):
            return ["YXBOARD", *(f"{x},{y},{f}" for x, y, f in stones), "DONE"]
        case m.Info(key, value):
            if not key or any(c.isspace() for c in key):
                raise EncodeError(f"bad INFO key {key!r}")
            return [_text(f"INFO {key}", value)]
        case m.End():
            return ["END"]
        case m.About():
            return ["ABOUT"]
        case m.Takeback(x, y):
            return [f"TAKEBACK {x},{y}"]
        case m.Play(x, y):
            return [f"PLAY {x},{y}"]
        case m.Swap2Board(stones):
            return ["SWAP2BOARD", *(_point(p) for p in stones), "DONE"]
        case m.YxShowInfo():
            return ["YXSHOWINFO"]
        case m.YxStop():
            return ["YXSTOP"]
        case m.YxShowForbid():
            return ["YXSHOWFORBID"]
        case m.YxHashClear():
            return ["YXHASHCLEAR"]
        case m.YxNBest(n):
            return [f"YXNBEST {n}"]
        case m.YxBlock(points):
            return ["YXBLOCK", *(_point(p) for p in points), "DONE"]
        case m.YxBlockUndo(points):
            return ["YXBLOCKUNDO", *(_point(p) for p in points), "DONE"]
        case m.YxBlockReset():
            return ["YXBLOCKRESET"]
        case m.UnknownCommand(text):
            return [_text("", text).strip()]
        # replies
        case m.MoveReply(x, y):
            return [f"{x},{y}"]
        case m.MultiMoveReply(moves):
            return [" ".join(_point(p) for p in moves)]
        case m.OkReply():
            return ["OK"]
        case m.ErrorReply(text):
            return [_text("ERROR", text)]
        case m.UnknownReply(text):
            return [_text("UNKNOWN", text)]
        case m.MessageReply(text):
            return [_text("MESSAGE", text)]
        case m.DebugReply(text):
            return [_text("DEBUG", text)]
        case m.SuggestReply(x, y):
            return [f"SUGGEST {x},{y}"]
        case m.SwapReply():
            return ["SWAP"]
        case m.ForbidReply(points):
            return [_forbid(points)]
        case m.AboutReply(fields):
            return [_about(fields)]
        case m.DetailReply(key, value):
            if not key or any(c.isspace() for c in key):
                raise EncodeError(f"INFO key {key!r} must be one word")
            return [_text(f"INFO {key.upper()}", value)]
        case m.RealtimeReply(kind, move):
            if move is None:
                return [f"MESSAGE REALTIME {kind}"]
            return [f"MESSAGE REALTIME {kind} {_point(move)}"]
    raise EncodeError(f"not a protocol message: {msg!r}")


def encode(msg: m.Message) -> str:
    """The message as text; block messages span several lines joined by "\\n"."""
    return "\n".join(encode_lines(msg))
