"""A line stream that enforces the server's per-session limits around an unmodified brain session.

The brain runner (`gomocup_bot.brain.runner.run_brain`) speaks the protocol over any line stream and
knows nothing about networks. The server hands it this wrapper instead of the raw TCP stream, so
every network concern stays here: overlong lines and blocks, oversized boards, floods of bad
commands, clients that stop reading, idle clients and clients that vanish mid-search. Each of them
ends in an `ERROR` line and/or a closed connection, with the reason kept for the close log.
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import trio

from gomocup_bot.brain.session import MAX_SIZE as BRAIN_MAX_SIZE
from gomocup_bot.net.limits import ServerLimits
from gomocup_bot.net.stats import ServerCounters
from gomocup_bot.net.traffic import RequestTracker, command_word, is_error_reply, is_move_reply, is_reply
from protocol.transport import LineStream, LineTooLong

log = logging.getLogger("gomocup_bot.net.server")

QUEUE_LINES = 8  # lines read ahead of the brain
SEND_TIMEOUT = 30.0  # a client that does not read one reply for this long is gone for our purposes
EOF_GRACE = 2.0  # after the client half-closes, seconds left to flush answers already owed
_CONNECTION_ERRORS = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)


def requested_board_size(line: str) -> tuple[int, int] | None:
    """(width, height) asked by `START n` / `START w h` / `RECTSTART w,h`; None if not such a line."""
    word = command_word(line)
    if word not in ("START", "RECTSTART"):
        return None
    rest = line.split(None, 1)[1] if len(line.split(None, 1)) > 1 else ""
    numbers = rest.replace(",", " ").split()
    try:
        if word == "START" and numbers:
            width = int(numbers[0])
            height = int(numbers[1]) if len(numbers) > 1 else width
            return width, height
        if word == "RECTSTART" and len(numbers) >= 2:
            return int(numbers[0]), int(numbers[1])
    except ValueError:
        return None  # malformed: the brain answers it as it would on stdin
    return None


@dataclass(frozen=True)
class _Refusal:
    """The server's own `ERROR` answer, queued in place of the line it refuses."""

    message: str
    close_reason: str | None = None  # None: the session goes on


class GuardedLineStream:
    """Wraps one connection's line stream; ends the session (cancels `scope`) when a limit is hit."""

    def __init__(
        self,
        inner: LineStream,
        *,
        limits: ServerLimits,
        counters: ServerCounters,
        scope: trio.CancelScope,
        label: str = "",
    ) -> None:
        self.inner = inner
        self.label = label  # "#N peer", for the log
        self.limits = limits
        self.counters = counters
        self.scope = scope
        self.tracker = RequestTracker()
        self.close_reason: str | None = None
        self.moves = 0
        self.errors = 0
        self._bad_in_row = 0
        self._send_lock = trio.Lock()
        self.last_activity = trio.current_time()
        self.eof_at: float | None = None
        self.authenticated = limits.token is None
        self._auth_line_pending = not self.authenticated
        self._memory_capped = False
        self._lines_in, self._lines_out = trio.open_memory_channel[str | _Refusal](QUEUE_LINES)
        self.changed = trio.Event()  # set whenever a deadline may have moved (see `watchdog`)

    # ---- ending the session -------------------------------------------------------------------

    def end_session(self, reason: str) -> None:
        """Record why the session ends (first reason wins) and cancel it; safe to call twice."""
        if self.close_reason is None:
            self.close_reason = reason
        self.scope.cancel()

    async def refuse(self, message: str, *, close_reason: str | None = None) -> None:
        """Answer `ERROR message` on the server's own behalf; end the session if a reason is given."""
        self.errors += 1
        self.counters.errors += 1
        self._bad_in_row += 1
        log.info("%s: answered ERROR %s", self.label, message)
        await self._send_raw(f"ERROR {message}")
        if close_reason is not None:
            self.end_session(close_reason)
        else:
            await self._check_flood()

    async def say_goodbye(self, text: str) -> None:
        """A last MESSAGE line before the server closes the connection (best effort, bounded)."""
        with trio.move_on_after(0.2) as scope:
            scope.shield = True
            try:
                async with self._send_lock:
                    await self.inner.send_line(f"MESSAGE {text}")
            except _CONNECTION_ERRORS:
                pass

    # ---- LineStream ---------------------------------------------------------------------------

    async def pump(self) -> None:
        """Reads the client all the time, even while the brain is busy, into a short queue.

        Reading ahead is what notices a client that vanishes mid-search (the search is then
        cancelled at once), whatever the brain does meanwhile. The queue is short, so a flooding
        client is slowed down by TCP back-pressure rather than buffered. Refusals travel through
        the queue as well, so every answer still comes out in the order of the commands.
        """
        async with self._lines_in:
            while True:
                try:
                    line = await self.inner.receive_line()
                except LineTooLong:
                    # The transport skipped the line; the session goes on, as a stdio brain's would.
                    await self._lines_in.send(_Refusal(f"line longer than {self.limits.max_line} bytes ignored"))
                    continue
                except _CONNECTION_ERRORS as exc:
                    self.end_session(f"connection lost while reading ({type(exc).__name__})")
                    return
                if line is None:
                    self._on_eof()
                    return
                self._touch()
                if self._auth_line_pending:  # the server reads it before the brain starts
                    self._auth_line_pending = False
                    await self._lines_in.send(line)
                    continue
                refusal = self._screen(line)
                if refusal is not None:
                    await self._lines_in.send(refusal)
                    if refusal.close_reason is not None:
                        return
                    continue
                if command_word(line) == "END" and self.tracker.block is None:
                    self.close_reason = self.close_reason or "client sent END"
                if not self._memory_capped and self.limits.session_memory:
                    self._memory_capped = True  # before anything else, as INFO may come first
                    await self._lines_in.send(f"INFO max_memory {self.limits.session_memory}")
                await self._lines_in.send(self._cap_memory(line))

    async def receive_line(self) -> str | None:
        while True:
            try:
                item = await self._lines_out.receive()
            except (trio.EndOfChannel, trio.ClosedResourceError):
                return None
            if isinstance(item, str):
                return item
            await self.refuse(item.message, close_reason=item.close_reason)
            if item.close_reason is not None:
                return None

    async def send_line(self, line: str) -> None:
        if is_reply(line):
            self.tracker.observe_reply(line)
            self._touch()
        if is_move_reply(line):
            self.moves += 1
            self.counters.moves += 1
            self._bad_in_row = 0
        elif is_error_reply(line):
            self.errors += 1
            self.counters.errors += 1
            self._bad_in_row += 1
        elif is_reply(line):
            self._bad_in_row = 0
        await self._send_raw(line)
        await self._check_flood()

    async def aclose(self) -> None:
        """The server owns the connection; the brain closing its stream only ends the session."""

    # ---- internals ----------------------------------------------------------------------------

    async def _send_raw(self, line: str) -> None:
        async with self._send_lock:
            with trio.move_on_after(SEND_TIMEOUT) as timer:
                try:
                    await self.inner.send_line(line)
                except _CONNECTION_ERRORS as exc:
                    self.end_session(f"connection lost while writing ({type(exc).__name__})")
            if timer.cancelled_caught:
                self.end_session(f"client did not read a reply for {SEND_TIMEOUT:g} s")

    async def _check_flood(self) -> None:
        cap = self.limits.max_bad_replies
        if cap and self._bad_in_row >= cap and self.close_reason is None:
            self.errors += 1
            self.counters.errors += 1
            await self._send_raw(f"ERROR {cap} invalid commands in a row, closing the connection")
            self.end_session("flood of invalid commands")

    def _cap_memory(self, line: str) -> str:
        """`INFO max_memory N` above the server's per-session cap (or 0 = unlimited) becomes the cap."""
        cap = self.limits.session_memory
        if not cap or command_word(line) != "INFO" or self.tracker.block is not None:
            return line
        parts = line.split()
        if len(parts) < 3 or parts[1].lower() != "max_memory":
            return line
        try:
            asked = int(parts[2])
        except ValueError:
            return line  # malformed: the brain deals with it as on stdin
        return line if 0 < asked <= cap else f"INFO max_memory {cap}"

    def _touch(self) -> None:
        self.last_activity = trio.current_time()
        self.changed.set()

    def _on_eof(self) -> None:
        if self.tracker.searching:
            # Nobody is left to read the move: stop the search now so its slot frees at once.
            self.end_session("client closed the connection mid-search")
        else:
            self.close_reason = self.close_reason or "client closed the connection"
            self.eof_at = trio.current_time()
            self.changed.set()

    def _screen(self, line: str) -> _Refusal | None:
        """The refusal this line earns under the server's limits, if any."""
        size = requested_board_size(line)
        # Only a limit stricter than the brain's own is the server's to enforce: otherwise the
        # brain answers, with the very words of the stdio brain.
        if size is not None and max(size) > self.limits.max_board and self.limits.max_board < BRAIN_MAX_SIZE:
            return _Refusal(f"board {size[0]}x{size[1]} is larger than this server allows "
                            f"({self.limits.max_board}x{self.limits.max_board})")
        self.tracker.observe_request(line)
        if self.tracker.block is not None and self.tracker.block_lines > self.limits.block_cap:
            return _Refusal(f"{self.tracker.block} block longer than {self.limits.block_cap} lines", "block too long")
        return None

    # ---- deadlines ----------------------------------------------------------------------------

    def deadline(self) -> tuple[float, str]:
        """When the session must end if nothing happens, and why."""
        candidates: list[tuple[float, str]] = []
        if self.eof_at is not None:
            candidates.append((self.eof_at + EOF_GRACE, "client closed the connection"))
        if not self.authenticated and self.limits.auth_timeout:
            candidates.append((self.last_activity + self.limits.auth_timeout, "no AUTH in time"))
        if self.limits.idle_timeout and not self.tracker.searching:
            candidates.append((self.last_activity + self.limits.idle_timeout,
                               f"idle for {self.limits.idle_timeout:g} s"))
        return min(candidates, default=(math.inf, ""))

    async def watchdog(self) -> None:
        """Ends the session at its deadline; wakes on every activity to move the deadline."""
        while True:
            when, reason = self.deadline()
            with trio.move_on_at(when):
                await self.changed.wait()
                self.changed = trio.Event()
                continue
            when, reason = self.deadline()
            if trio.current_time() >= when:
                if reason.startswith("idle") or reason.startswith("no AUTH"):
                    await self.refuse(f"{reason}, closing the connection")
                self.end_session(reason)
                return
