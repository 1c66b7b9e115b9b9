"""Protocol text -> typed messages, for both sides.

`CommandParser` is the brain side: it is fed one line at a time (any case, CR and blank lines
tolerated) and hands back complete commands, assembling the multi-line blocks (BOARD, YXBOARD,
SWAP2BOARD, YXBLOCK, YXBLOCKUNDO). Anything malformed becomes a `ProtocolError` value carrying a
human reason, so the caller can answer `ERROR reason` and carry on; it never raises.
`parse_reply` is the manager side: one brain line -> one typed reply (or a `ProtocolError`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from protocol import messages as m

MAX_LINE = 4096  # characters; longer lines are rejected whole
MAX_BLOCK = 1024  # stone lines in one block (a 32 x 32 board holds 1024)
_INT = r"[+-]?\d{1,9}"
_PAIR_RE = re.compile(rf"^\s*({_INT})\s*[,\s]\s*({_INT})\s*$")
_TRIPLE_RE = re.compile(rf"^\s*({_INT})\s*,\s*({_INT})\s*,\s*({_INT})\s*$")
_NUMBERISH_RE = re.compile(r"^[\d\s,+\-]+$")  # looks like a stone line, even if a bad one
_MOVE_RE = re.compile(rf"^({_INT}),({_INT})$")
_ABOUT_PAIR_RE = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"([^"]*)"\s*(,|$)')
_FORBID_RE = re.compile(r"^FORBID\s*((?:\d{4})*)\s*\.?$", re.IGNORECASE)

ParseResult = m.Command | m.ProtocolError

_SIMPLE = {
    "RESTART": m.Restart,
    "BEGIN": m.Begin,
    "END": m.End,
    "ABOUT": m.About,
    "YXSHOWINFO": m.YxShowInfo,
    "YXSTOP": m.YxStop,
    "STOP": m.YxStop,
    "YXSHOWFORBID": m.YxShowForbid,
    "YXHASHCLEAR": m.YxHashClear,
    "YXBLOCKRESET": m.YxBlockReset,
}
_POINT_COMMANDS = {"TURN": m.Turn, "TAKEBACK": m.Takeback, "PLAY": m.Play}
# block keyword -> (message class, stone lines have a field?)
_BLOCKS = {
    "BOARD": (m.Board, True),
    "YXBOARD": (m.YxBoard, True),
    "SWAP2BOARD": (m.Swap2Board, False),
    "YXBLOCK": (m.YxBlock, False),
    "YXBLOCKUNDO": (m.YxBlockUndo, False),
}
KNOWN_WORDS = frozenset(
    {*_SIMPLE, *_POINT_COMMANDS, *_BLOCKS, "START", "RECTSTART", "INFO", "YXNBEST", "DONE"}
)


def parse_point(text: str) -> m.Point | None:
    """`X,Y` (spaces tolerated, a space may replace the comma) -> (x, y), or None."""
    match = _PAIR_RE.match(text)
    return (int(match.group(1)), int(match.group(2))) if match else None


@dataclass
class _OpenBlock:
    word: str
    items: list = field(default_factory=list)
    problem: str | None = None  # first bad line seen; the block is rejected at DONE


class CommandParser:
    """Feed lines with `feed`; get complete commands or `ProtocolError`s back, in order."""

    def __init__(self, *, max_line: int = MAX_LINE, max_block: int = MAX_BLOCK) -> None:
        self.max_line = max_line
        self.max_block = max_block
        self._block: _OpenBlock | None = None

    @property
    def in_block(self) -> bool:
        return self._block is not None

    def feed(self, line: str) -> list[ParseResult]:
        """Consume one line (without its terminator); return 0, 1 or 2 results."""
        text = line.strip()
        if len(text) > self.max_line:
            return [m.ProtocolError(f"line longer than {self.max_line} characters", text[:80] + "...")]
        if not text:
            return []
        if self._block is not None:
            return self._feed_block(text)
        result = self._parse_line(text)
        return [] if result is None else [result]

    def finish(self) -> list[ParseResult]:
        """At end of input: an unterminated block is an error."""
        if self._block is None:
            return []
        word = self._block.word
        self._block = None
        return [m.ProtocolError(f"{word} block ended without DONE")]

    # ----------------------------------------------------------------- blocks

    def _feed_block(self, text: str) -> list[ParseResult]:
        block = self._block
        assert block is not None
        cls, with_field = _BLOCKS[block.word]
        if text.upper() == "DONE":
            self._block = None
            if block.problem:
                return [m.ProtocolError(block.problem)]
            return [cls(tuple(block.items))]
        if _NUMBERISH_RE.match(text):
            item = self._block_item(text, with_field)
            if isinstance(item, str):
                block.problem = block.problem or f"bad {block.word} line {text!r}: {item}"
            elif len(block.items) >= self.max_block:
                block.problem = block.problem or f"{block.word} block longer than {self.max_block} lines"
            else:
                block.items.append(item)
            return []
        # Not a stone line: the block is over. A known command is still obeyed (END must work).
        self._block = None
        error = m.ProtocolError(f"{block.word} block interrupted before DONE", text[:80])
        first = text.split(None, 1)[0].upper()
        if first in KNOWN_WORDS and first != "DONE":
            result = self._parse_line(text)
            return [error] if result is None else [error, result]
        return [error]

    @staticmethod
    def _block_item(text: str, with_field: bool):
        """A parsed stone/point, or a string saying what is wrong with the line."""
        if with_field:
            match = _TRIPLE_RE.match(text)
            if not match:
                return "expected X,Y,field"
            x, y, f = (int(g) for g in match.groups())
            if f not in (m.OWN, m.OPPONENT, m.BLOCKED_FIELD):
                return "field must be 1, 2 or 3"
            return (x, y, f)
        point = parse_point(text)
        return point if point is not None else "expected X,Y"

    # ----------------------------------------------------------------- single lines

    def _parse_line(self, text: str) -> ParseResult | None:
        """One non-block line -> its command; None when it opens a block."""
        parts = text.split(None, 1)
        word = parts[0].upper()
        rest = parts[1] if len(parts) > 1 else ""
        if word in _SIMPLE:
            return _SIMPLE[word]()
        if word in _POINT_COMMANDS:
            point = parse_point(rest)
            if point is None:
                return m.ProtocolError(f"{word} expects X,Y, got {rest!r}", text)
            return _POINT_COMMANDS[word](*point)
        if word in _BLOCKS:
            self._block = _OpenBlock(word)
            return None
        if word == "START":
            tokens = rest.replace(",", " ").split()
            if not tokens or not re.fullmatch(r"\d{1,9}", tokens[0]):
                return m.ProtocolError(f"START expects a board size, got {rest!r}", text)
            return m.Start(int(tokens[0]))
        if word == "RECTSTART":
            point = parse_point(rest)
            if point is None:
                return m.ProtocolError(f"RECTSTART expects WIDTH,HEIGHT, got {rest!r}", text)
            return m.RectStart(*point)
        if word == "YXNBEST":
            if not re.fullmatch(r"\s*\d{1,9}\s*", rest):
                return m.ProtocolError(f"YXNBEST expects a count, got {rest!r}", text)
            return m.YxNBest(int(rest))
        if word == "INFO":
            kv = rest.split(None, 1)
            if not kv:
                return m.ProtocolError("INFO without a key", text, silent=True)
            return m.Info(kv[0].lower(), kv[1].strip() if len(kv) > 1 else "")
        if word == "DONE":
            return m.ProtocolError("DONE outside a block", text)
        return m.UnknownCommand(text)


def parse_command(text: str) -> ParseResult:
    """Parse text holding exactly one command (several lines for a block); for tests and tools."""
    parser = CommandParser()
    results: list[ParseResult] = []
    for line in text.splitlines():
        results.extend(parser.feed(line))
    results.extend(parser.finish())
    if len(results) != 1:
        return m.ProtocolError(f"expected one command, got {len(results)}", text[:80])
    return results[0]


# ----------------------------------------------------------------------------- replies


def parse_reply(line: str) -> m.Reply | m.ProtocolError:
    """One line from a brain -> a typed reply; a `ProtocolError` if it is none of the known forms."""
    text = line.strip()
    if not text:
        return m.ProtocolError("empty reply line")
    if len(text) > MAX_LINE:
        return m.ProtocolError(f"reply longer than {MAX_LINE} characters", text[:80] + "...")
    parts = text.split(None, 1)
    word = parts[0].upper()
    rest = parts[1].strip() if len(parts) > 1 else ""
    if word == "OK" and not rest:
        return m.OkReply()
    if word == "SWAP" and not rest:
        return m.SwapReply()
    if word == "ERROR":
        return m.ErrorReply(rest)
    if word == "UNKNOWN":
        return m.UnknownReply(rest)
    if word == "DEBUG":
        return m.DebugReply(rest)
    if word == "MESSAGE":
        return _parse_message(rest)
    if word == "INFO" and rest:  # Rapfi's search detail; a manager never gets INFO otherwise
        kv = rest.split(None, 1)
        return m.DetailReply(kv[0].upper(), kv[1].strip() if len(kv) > 1 else "")
    if word == "SUGGEST":
        point = _move(rest)
        return m.SuggestReply(*point) if point else m.ProtocolError("SUGGEST expects X,Y", text)
    if word == "FORBID" or text.upper().startswith("FORBID"):
        match = _FORBID_RE.match(text)
        if not match:
            return m.ProtocolError("malformed FORBID line", text)
        digits = match.group(1)
        points = tuple((int(digits[i : i + 2]), int(digits[i + 2 : i + 4])) for i in range(0, len(digits), 4))
        return m.ForbidReply(points)
    tokens = text.split()
    moves = [_move(t) for t in tokens]
    if all(p is not None for p in moves):
        if len(moves) == 1:
            return m.MoveReply(*moves[0])  # type: ignore[misc]
        return m.MultiMoveReply(tuple(moves))  # type: ignore[arg-type]
    if "=" in text:
        about = _parse_about(text)
        if about is not None:
            return about
    return m.ProtocolError("unrecognised reply", text[:80])


def _move(token: str) -> m.Point | None:
    match = _MOVE_RE.match(token.replace(" ", ""))
    return (int(match.group(1)), int(match.group(2))) if match else None


def _parse_message(rest: str) -> m.Reply:
    tokens = rest.split()
    if len(tokens) >= 2 and tokens[0].upper() == "REALTIME":
        kind = tokens[1].upper()
        if kind == "REFRESH" and len(tokens) == 2:
            return m.RealtimeReply(kind)
        if kind in m.REALTIME_KINDS_WITH_MOVE and len(tokens) == 3:
            point = _move(tokens[2])
            if point is not None:
                return m.RealtimeReply(kind, point)
    return m.MessageReply(rest)


def _parse_about(text: str) -> m.AboutReply | None:
    fields = []
    pos = 0
    while pos < len(text):
        match = _ABOUT_PAIR_RE.match(text, pos)
        if not match:
            return None
        fields.append((match.group(1), match.group(2)))
        pos = match.end()
        if match.group(3) == "" and pos < len(text):
            return None
    return m.AboutReply(tuple(fields)) if fields else None
