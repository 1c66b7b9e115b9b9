"""Talking to one engine: a subprocess over pipes or a remote brain over TCP.

A connection writes protocol commands (CR LF terminated, as the spec asks of managers) and hands
out reply lines stamped with the trio clock at the moment they were read, so the game runner can
judge time on its own clock even if it looks at a line a little later. A background reader task per
connection notices end of output (and, for processes, the process exiting) at once: a brain that
dies while no clock runs is never waited on.
"""
from __future__ import annotations

import ctypes
import logging
import math
import os
import signal
import subprocess
from collections import deque
from dataclasses import dataclass
from typing import Sequence

import trio

from protocol import messages as m
from protocol.encoder import encode_lines
from protocol.parser import parse_reply

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 1 << 20  # a "line" longer than this is cut and treated as garbage
SEND_TIMEOUT = 10.0  # seconds a write may block (engine not reading its input)
MAX_QUEUED_LINES = 10_000  # unread reply lines kept per engine; more are dropped (output flood)


class EngineClosed(Exception):
    """The engine's output ended (process exited, pipe or socket closed)."""


@dataclass(frozen=True)
class ReplyLine:
    text: str
    at: float  # trio.current_time() when the line was read
    reply: m.Reply | m.ProtocolError


def _split_lines(buffer: bytearray) -> tuple[list[bytes], bytearray]:
    """Cut complete lines (ended by LF, CR LF or CR) off the front of `buffer`.

    A CR LF split across two reads yields one extra empty line, which callers skip anyway.
    """
    last = max(buffer.rfind(b"\n"), buffer.rfind(b"\r"))
    if last < 0:
        if len(buffer) > MAX_LINE_BYTES:
            return [bytes(buffer[:200])], bytearray()
        return [], buffer
    complete = bytes(buffer[: last + 1])
    lines = complete.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")[:-1]
    return lines, bytearray(buffer[last + 1 :])


class Connection:
    """Common part: the reader task, the reply queue, sending commands."""

    kind = "engine"

    def __init__(self, name: str) -> None:
        self.name = name
        self.pid: int | None = None
        self.closed = False
        self.close_reason = ""
        self._send_lines, self._receive_lines = trio.open_memory_channel[ReplyLine | None](math.inf)
        self._scope = trio.CancelScope()
        self.lines_received = 0
        self.lines_dropped = 0
        self.closed_event = trio.Event()  # set once the output has ended (or the process exited)
        self._reader_done = trio.Event()

    # -- to be provided by subclasses
    async def _write(self, data: bytes) -> None:
        raise NotImplementedError

    async def _read_some(self) -> bytes:
        raise NotImplementedError

    async def _shutdown(self, grace: float) -> None:
        raise NotImplementedError

    # -- common machinery
    def _background_tasks(self) -> list:
        return [self._reader]

    async def _run(self) -> None:
        """All background tasks of this connection, cancelled together by `close()`."""
        with self._scope:
            async with trio.open_nursery() as nursery:
                for task in self._background_tasks():
                    nursery.start_soon(task)

    async def _reader(self) -> None:
        buffer = bytearray()
        try:
            while True:
                data = await self._read_some()
                if not data:
                    break
                buffer.extend(data)
                lines, buffer = _split_lines(buffer)
                now = trio.current_time()
                for raw in lines:
                    text = raw.decode("utf-8", errors="replace").strip()
                    if not text:
                        continue
                    self.lines_received += 1
                    reply = parse_reply(text)
                    if (
                        self._send_lines.statistics().current_buffer_used >= MAX_QUEUED_LINES
                        and isinstance(reply, m.LOG_REPLIES)
                    ):
                        self.lines_dropped += 1  # a flood of log lines nobody is reading: keep memory bounded
                        continue
                    self._send_lines.send_nowait(ReplyLine(text, now, reply))
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            log.debug("%s: read ended: %s", self.name, exc)
        self._reader_done.set()
        self._mark_closed("output closed")

    def _mark_closed(self, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.close_reason = reason
            self.closed_event.set()
            try:
                self._send_lines.send_nowait(None)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass

    async def send(self, *commands: m.Command) -> None:
        """Write the commands' lines; raises EngineClosed if the engine cannot take them."""
        lines = [line for c in commands for line in encode_lines(c)]
        data = "".join(line + "\r\n" for line in lines).encode()
        if self.closed:
            raise EngineClosed(self.close_reason)
        with trio.move_on_after(SEND_TIMEOUT) as scope:
            try:
                await self._write(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                self._mark_closed(f"write failed: {exc}")
                raise EngineClosed(self.close_reason) from None
        if scope.cancelled_caught:
            raise EngineClosed("engine does not read its input")

    async def receive(self) -> ReplyLine:
        """The next reply line; raises EngineClosed once the output has ended and all lines were read."""
        item = await self._receive_lines.receive()
        if item is None:
            self._send_lines.send_nowait(None)  # stay closed for later callers
            raise EngineClosed(self.close_reason)
        return item

    def drain(self) -> list[ReplyLine]:
        """Lines already received and not yet consumed (stale replies before a new command)."""
        out = []
        while True:
            try:
                item = self._receive_lines.receive_nowait()
            except trio.WouldBlock:
                return out
            if item is None:
                self._send_lines.send_nowait(None)
                return out
            out.append(item)

    async def close(self, grace: float = 0.5) -> None:
        """Send END, give the engine `grace` seconds to exit, then kill it. Never raises."""
        with trio.CancelScope(shield=True):
            if not self.closed:
                with trio.move_on_after(1.0):
                    try:
                        await self._write(b"END\r\n")
                    except Exception:  # noqa: BLE001 - closing must not fail
                        pass
            try:
                await self._shutdown(grace)
            except Exception as exc:  # noqa: BLE001
                log.debug("%s: shutdown: %s", self.name, exc)
            self._scope.cancel()
            self._mark_closed("closed by manager")


def _die_with_parent() -> None:
    """In the child before exec: get SIGKILL if the manager dies (even by kill -9)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - not Linux: nothing to do
        pass


class _SpawnedProcess:
    """A child process started on the manager's main thread, with trio streams on its pipes.

    Why not `trio.lowlevel.open_process`: it forks from a worker thread, and Linux ties the
    parent-death signal to the *thread* that forked, so engines were killed whenever trio retired that
    idle worker thread. Forking here (a few milliseconds, on the trio thread that lives as long as the
    manager) keeps "engines die with the manager, even on kill -9" without that accident.
    """

    def __init__(self, popen: subprocess.Popen) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.stdin = trio.lowlevel.FdStream(_take_fd(popen.stdin))
        self.stdout = trio.lowlevel.FdStream(_take_fd(popen.stdout))
        self.stderr = trio.lowlevel.FdStream(_take_fd(popen.stderr))
        try:
            self._pidfd: int | None = os.pidfd_open(popen.pid)
        except (AttributeError, OSError):
            self._pidfd = None

        self.exited = trio.Event()

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    async def watch(self) -> int:
        """Wait for the exit (only one task may run this: the connection's exit watcher)."""
        try:
            if self.popen.poll() is None:
                if self._pidfd is not None:
                    await trio.lowlevel.wait_readable(self._pidfd)
                else:
                    while self.popen.poll() is None:
                        await trio.sleep(0.05)
            return self.popen.wait()
        finally:
            if self.popen.poll() is not None:
                self.exited.set()
                if self._pidfd is not None:
                    fd, self._pidfd = self._pidfd, None
                    os.close(fd)

    async def wait(self) -> int:
        """Wait for the exit as seen by the watcher (polling if the watcher is gone)."""
        while self.popen.poll() is None:
            with trio.move_on_after(0.05):
                await self.exited.wait()
        return self.popen.wait()

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()


def _take_fd(file) -> int:  # noqa: ANN001 - a Popen pipe file object
    """Move a Popen pipe's descriptor out of its file object (so garbage collection cannot close it)."""
    fd = os.dup(file.fileno())
    file.close()
    return fd


class ProcessConnection(Connection):
    """An engine subprocess; stdout carries protocol lines, stderr is kept as a short tail for reports."""

    kind = "process"

    def __init__(self, name: str, process: _SpawnedProcess) -> None:
        super().__init__(name)
        self.process = process
        self.pid = process.pid
        self.stderr_tail: deque[str] = deque(maxlen=20)

    @classmethod
    async def launch(
        cls,
        nursery: trio.Nursery,
        name: str,
        argv: Sequence[str],
        cwd: str | None = None,
        env: dict[str, str] | None = None,
    ) -> "ProcessConnection":
        """Start the process and its reader tasks; raises OSError if it cannot be started."""
        full_env = None
        if env:
            full_env = dict(os.environ)
            full_env.update(env)
        popen = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=full_env,
            bufsize=0,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        conn = cls(name, _SpawnedProcess(popen))
        nursery.start_soon(conn._run)
        await trio.lowlevel.checkpoint()
        return conn

    def _background_tasks(self) -> list:
        return [self._reader, self._stderr_reader, self._exit_watcher]

    async def _write(self, data: bytes) -> None:
        await self.process.stdin.send_all(data)

    async def _read_some(self) -> bytes:
        return await self.process.stdout.receive_some(65536)

    async def _stderr_reader(self) -> None:
        buffer = bytearray()
        try:
            while data := await self.process.stderr.receive_some(65536):
                buffer.extend(data)
                lines, buffer = _split_lines(buffer)
                for raw in lines:
                    if raw.strip():
                        self.stderr_tail.append(raw.decode("utf-8", errors="replace")[:300])
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass

    async def _exit_watcher(self) -> None:
        """A process that exits while a child still holds its stdout open is still a dead engine."""
        code = await self.process.watch()
        with trio.move_on_after(0.5):  # let the reader deliver lines written just before exiting
            await self._reader_done.wait()
        self._mark_closed(f"process exited with code {code}")

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    async def exit_code(self, timeout: float = 0.5) -> int | None:
        """The exit code, waiting briefly for it (a closed pipe usually means the process is exiting)."""
        with trio.move_on_after(timeout):
            while self.process.returncode is None:
                await trio.sleep(0.01)
        return self.process.returncode

    def kill(self) -> None:
        """SIGKILL the engine's whole process group (wrapper scripts included)."""
        if self.process.returncode is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.process.kill()

    async def _shutdown(self, grace: float) -> None:
        try:
            await self.process.stdin.aclose()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        with trio.move_on_after(grace):
            await self.process.wait()
        if self.process.returncode is None:
            self.kill()
        with trio.move_on_after(2.0):
            await self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            try:
                await stream.aclose()
            except (trio.ClosedResourceError, OSError):
                pass


class TcpConnection(Connection):
    """A remote brain speaking the protocol over one TCP connection (e.g. `gomocup-bot serve`)."""

    kind = "tcp"

    def __init__(self, name: str, stream: trio.SocketStream) -> None:
        super().__init__(name)
        self.stream = stream

    @classmethod
    async def connect(cls, nursery: trio.Nursery, name: str, host: str, port: int, timeout: float = 10.0) -> "TcpConnection":
        """Open the connection; raises OSError on failure or timeout."""
        with trio.move_on_after(timeout) as scope:
            stream = await trio.open_tcp_stream(host, port)
        if scope.cancelled_caught:
            raise OSError(f"connection to {host}:{port} timed out")
        conn = cls(name, stream)
        nursery.start_soon(conn._run)
        return conn

    async def _write(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def _read_some(self) -> bytes:
        return await self.stream.receive_some(65536)

    def kill(self) -> None:
        try:
            self.stream.socket.close()
        except OSError:
            pass

    async def _shutdown(self, grace: float) -> None:
        try:
            await self.stream.send_eof()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError, AttributeError):
            pass
        with trio.move_on_after(grace):
            while not self.closed:
                await trio.sleep(0.02)
        await self.stream.aclose()
