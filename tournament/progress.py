"""The live progress line: rewritten in place on a terminal, silent otherwise (logs and pipes stay clean)."""
from __future__ import annotations

import shutil
import sys
from typing import TextIO


def format_duration(seconds: float) -> str:
    if seconds != seconds or seconds == float("inf"):
        return "?"
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class Progress:
    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self._shown = False

    def update(self, text: str) -> None:
        if not self.enabled:
            return
        columns = shutil.get_terminal_size((100, 20)).columns
        self.stream.write("\r" + text[: max(10, columns - 1)] + "\x1b[K")
        self.stream.flush()
        self._shown = True

    def note(self, text: str) -> None:
        """A line that stays (warnings, SPRT decisions): printed above the progress line."""
        if self.enabled and self._shown:
            self.stream.write("\r\x1b[K")
        self.stream.write(text + "\n")
        self.stream.flush()
        self._shown = False

    def finish(self) -> None:
        if self.enabled and self._shown:
            self.stream.write("\n")
            self.stream.flush()
        self._shown = False
