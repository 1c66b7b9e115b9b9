"""Reading the line traffic of a brain session from the outside, without parsing it fully.

The TCP server and the relay sit between a manager and a brain and must know a little about the
conversation they carry: whether the manager is now waiting for an answer (so an idle timer must
not fire, or so a dropped server must be reported as an `ERROR`), which command is inside a
multi-line block, and which replies were moves or errors (for the counters). This module holds that
knowledge in one place so the server and the relay cannot disagree about it.
"""
from __future__ import annotations

import re

# Commands that open a block of `x,y[,f]` lines closed by DONE.
BLOCK_COMMANDS = frozenset({"BOARD", "YXBOARD", "SWAP2BOARD", "YXBLOCK", "YXBLOCKUNDO"})

# Blocks whose DONE asks the brain for a move (a search); YXBOARD/YXBLOCK* only set state.
SEARCH_BLOCKS = frozenset({"BOARD", "SWAP2BOARD"})

# Single-line commands that start a search: the brain may take its whole turn budget to answer.
# (Yixin's YXBALANCE*/YXSEARCHDEFEND are not implemented by our brain: answered UNKNOWN at once.)
SEARCH_COMMANDS = frozenset({"BEGIN", "TURN", "PLAY", "YXNBEST"})

# Single-line commands that get an immediate one-line answer (besides the unknown ones, which get
# `UNKNOWN`). Commands in neither set and in no block get no answer at all.
QUICK_REPLY_COMMANDS = frozenset({"START", "RECTSTART", "RESTART", "ABOUT", "TAKEBACK", "YXSHOWFORBID"})

# Known commands that are answered by nothing (or only by MESSAGE lines).
SILENT_COMMANDS = frozenset({"INFO", "END", "YXSTOP", "STOP", "YXHASHCLEAR", "YXBLOCKRESET", "YXSHOWINFO"})

KNOWN_COMMANDS = BLOCK_COMMANDS | SEARCH_COMMANDS | QUICK_REPLY_COMMANDS | SILENT_COMMANDS

_BLOCK_LINE = re.compile(r"^[\d\s,+\-]+$")  # looks like a stone line (maybe a bad one): stays in the block
_MOVE_REPLY = re.compile(r"^\s*\d+,\d+(\s+\d+,\d+)*\s*$")


def command_word(line: str) -> str:
    """The upper-cased first word of a line ('' for a blank line)."""
    parts = line.split(None, 1)
    return parts[0].upper() if parts else ""


def is_move_reply(line: str) -> bool:
    """A brain line that plays a move (`7,7`, or the several moves of a SWAP2 answer)."""
    return bool(_MOVE_REPLY.match(line))


def is_error_reply(line: str) -> bool:
    """A brain line that refuses a command (`ERROR …` or `UNKNOWN …`)."""
    return command_word(line) in ("ERROR", "UNKNOWN")


def is_reply(line: str) -> bool:
    """Any brain line that answers a command, as opposed to MESSAGE/DEBUG chatter."""
    return command_word(line) not in ("MESSAGE", "DEBUG", "")


class RequestTracker:
    """Follows the manager's lines to tell whether the brain currently owes answers.

    `observe_request(line)` for each manager line, `observe_reply(line)` for each brain line.
    `owed` counts answers the manager is waiting for; `searching` says the oldest of them may take
    a whole search (an idle timer must not run then). Block contents are recognised the way the
    protocol's skeletons do: a line that is neither coordinates nor DONE ends the block. One known
    gap: a state-only block (YXBOARD, YXBLOCK) the brain refuses gets an ERROR nobody waits for; it
    is not counted (a test checks every other command against the real brain).
    """

    def __init__(self) -> None:
        self.block: str | None = None  # the command whose block is open, if any
        self.block_lines = 0
        self._owed: list[tuple[bool, str]] = []  # per owed answer: (needs a search?, command word)

    @property
    def owed(self) -> int:
        return len(self._owed)

    @property
    def searching(self) -> bool:
        return bool(self._owed) and self._owed[0][0]

    def observe_request(self, line: str) -> None:
        if self.block is not None:
            if command_word(line) == "DONE":
                opened, self.block = self.block, None
                if opened in SEARCH_BLOCKS:
                    self._owed.append((True, opened))
                return
            if _BLOCK_LINE.match(line):
                self.block_lines += 1
                return
            # Not a stone line: the brain ends the block with an error, then obeys the line only
            # if it is a known command (so END still works).
            self._owed.append((False, self.block))
            self.block = None
            if command_word(line) not in KNOWN_COMMANDS or command_word(line) == "DONE":
                return
        word = command_word(line)
        if not word:
            return
        if word in BLOCK_COMMANDS:
            self.block, self.block_lines = word, 0
        elif word in SEARCH_COMMANDS:
            self._owed.append((True, word))
        elif word in SILENT_COMMANDS:
            return
        else:  # quick replies and unknown commands (answered `UNKNOWN`) alike
            self._owed.append((False, word))

    def observe_reply(self, line: str) -> str | None:
        """Note a brain line; returns the command word it answers (None for chatter or unasked lines)."""
        if is_reply(line) and self._owed:
            return self._owed.pop(0)[1]
        return None

    def forget(self) -> None:
        """Drop every owed answer (after the other side has been told the session is over)."""
        self._owed.clear()
        self.block = None
