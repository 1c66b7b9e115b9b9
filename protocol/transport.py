"""Line streams on trio: the one small interface a session talks through (stdio or TCP).

Lines are split on LF, CR LF or a lone CR, decoded as UTF-8 (bad bytes replaced, never an error)
and capped in length: an over-long line raises `LineTooLong` once and is skipped up to its end, so
the stream stays usable. Each `send_line` writes the line and "\\n" in one write, which for a pipe
means the manager sees it at once (there is no user-space buffer to flush).
"""
from __future__ import annotations

import os
import stat
import time
from typing import Awaitable, Callable, Protocol, runtime_checkable

import trio

MAX_LINE_BYTES = 4096
_RECEIVE_SIZE = 65536


class LineTooLong(Exception):
    """A received line exceeded the cap; the rest of it is discarded."""


@runtime_checkable
class LineStream(Protocol):
    async def receive_line(self) -> str | None:
        """The next line without CR/LF; None at end of input."""

    async def send_line(self, line: str) -> None:
        """Write `line` + "\\n" in one write."""

    async def aclose(self) -> None:
        """Release the underlying resource."""


class _LineSplitter:
    """Turns chunks of bytes into lines, enforcing the length cap."""

    def __init__(self, receive_some: Callable[[], Awaitable[bytes]], max_line: int) -> None:
        self._receive_some = receive_some
        self._max_line = max_line
        self._buffer = bytearray()
        self._eof = False
        self._skip_lf = False  # the previous line ended with CR: a leading LF belongs to it
        self._discarding = False  # inside an over-long line, dropping bytes up to its end
        self.chunks = 0  # chunks read so far
        self.chunk_time = 0.0  # time.monotonic() when the latest chunk was read

    async def receive_line(self) -> str | None:
        while True:
            if self._skip_lf and self._buffer[:1] == b"\n":
                del self._buffer[:1]
                self._skip_lf = False
            if self._buffer:
                self._skip_lf = False
            end = _find_terminator(self._buffer)
            if end >= 0:
                raw = bytes(self._buffer[:end])
                self._skip_lf = self._buffer[end] == 0x0D
                del self._buffer[: end + 1]
                if self._discarding:
                    self._discarding = False
                    continue
                if len(raw) > self._max_line:
                    raise LineTooLong(f"line of {len(raw)} bytes exceeds {self._max_line}")
                return raw.decode("utf-8", errors="replace")
            if len(self._buffer) > self._max_line:
                self._buffer.clear()
                if not self._discarding:
                    self._discarding = True
                    raise LineTooLong(f"line exceeds {self._max_line} bytes")
            if self._eof:
                if self._buffer and not self._discarding:
                    raw = bytes(self._buffer)
                    self._buffer.clear()
                    return raw.decode("utf-8", errors="replace")
                return None
            chunk = await self._receive_some()
            self.chunks += 1
            self.chunk_time = time.monotonic()
            if not chunk:
                self._eof = True
            else:
                self._buffer += chunk


def line_arrival(splitter: _LineSplitter) -> tuple[int, float]:
    """When the line just returned reached us, for a peer's clock (a manager times a move from
    writing TURN). The splitter reads only when no whole line is buffered, so a returned line's
    end always came with the latest chunk. Chunk 1 holds whatever was written before the first
    read, possibly long before it (a process still starting up)."""
    return splitter.chunks, splitter.chunk_time


def _find_terminator(buffer: bytearray) -> int:
    lf = buffer.find(b"\n")
    cr = buffer.find(b"\r")
    if lf < 0:
        return cr
    if cr < 0:
        return lf
    return min(lf, cr)


class StreamLineStream:
    """A LineStream over any trio `Stream` (socket, memory stream pair, pipe)."""

    def __init__(self, stream: trio.abc.Stream, *, max_line: int = MAX_LINE_BYTES) -> None:
        self.stream = stream
        self._splitter = _LineSplitter(lambda: stream.receive_some(_RECEIVE_SIZE), max_line)
        self._send_lock = trio.Lock()
        self._receive_lock = trio.Lock()

    async def receive_line(self) -> str | None:
        async with self._receive_lock:
            try:
                return await self._splitter.receive_line()
            except (trio.BrokenResourceError, trio.ClosedResourceError, ConnectionError):
                return None

    async def send_line(self, line: str) -> None:
        async with self._send_lock:
            await self.stream.send_all((line + "\n").encode("utf-8"))

    def arrival(self) -> tuple[int, float]:
        """(how many chunks were read, time.monotonic() of the latest): the last line returned
        arrived with the latest chunk. See `line_arrival`."""
        return line_arrival(self._splitter)

    async def aclose(self) -> None:
        await self.stream.aclose()


class TcpLineStream(StreamLineStream):
    """A LineStream over a connected `trio.SocketStream` (server or client side)."""

    def __init__(self, stream: trio.SocketStream, *, max_line: int = MAX_LINE_BYTES) -> None:
        super().__init__(stream, max_line=max_line)

    def peer(self) -> str:
        try:
            host, port = self.stream.socket.getpeername()[:2]  # type: ignore[attr-defined]
            return f"{host}:{port}"
        except OSError:
            return "?"


async def open_tcp_line_stream(host: str, port: int) -> TcpLineStream:
    """Connect to `host:port` and wrap the socket."""
    return TcpLineStream(await trio.open_tcp_stream(host, port))


def _pollable(fd: int) -> bool:
    """Pipes, sockets and terminals can be waited on with epoll; regular files cannot."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


class StdioLineStream:
    """Lines from stdin (fd 0) and to stdout (fd 1).

    Reading uses `trio.lowlevel.FdStream` on a duplicate of fd 0 when it is a pipe, socket or
    terminal (a regular file, e.g. `< transcript`, is read in a worker thread instead because epoll
    refuses files). Writing is a blocking `os.write` in a worker thread rather than an FdStream: an
    FdStream would switch fd 1 to non-blocking mode, and when stderr shares that file (`2>&1`) the
    log handler would then fail with EAGAIN. One `os.write` per line keeps lines whole and unbuffered.
    """

    def __init__(self, *, max_line: int = MAX_LINE_BYTES, stdin_fd: int = 0, stdout_fd: int = 1) -> None:
        self._stdout_fd = stdout_fd
        self._fd_stream: trio.lowlevel.FdStream | None = None
        if _pollable(stdin_fd):
            self._fd_stream = trio.lowlevel.FdStream(os.dup(stdin_fd))
            fd_stream = self._fd_stream
            receive = lambda: fd_stream.receive_some(_RECEIVE_SIZE)  # noqa: E731
        else:
            receive = lambda: trio.to_thread.run_sync(  # noqa: E731
                os.read, stdin_fd, _RECEIVE_SIZE, abandon_on_cancel=True
            )
        self._splitter = _LineSplitter(receive, max_line)
        self._send_lock = trio.Lock()
        self._receive_lock = trio.Lock()

    async def receive_line(self) -> str | None:
        async with self._receive_lock:
            try:
                return await self._splitter.receive_line()
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                return None

    async def send_line(self, line: str) -> None:
        data = (line + "\n").encode("utf-8")
        async with self._send_lock:
            await trio.to_thread.run_sync(_write_all, self._stdout_fd, data, abandon_on_cancel=True)

    def arrival(self) -> tuple[int, float]:
        """As `StreamLineStream.arrival`."""
        return line_arrival(self._splitter)

    async def aclose(self) -> None:
        if self._fd_stream is not None:
            await self._fd_stream.aclose()
            self._fd_stream = None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
