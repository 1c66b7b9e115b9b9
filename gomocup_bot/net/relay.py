"""`gomocup-bot connect HOST:PORT`: a stdio brain that relays every line to a `gomocup-bot serve`.

Managers and GUIs that can only launch a local executable (Piskvork, c-gomoku-cli, GomocupJudge)
launch this instead and so play with a bot running on another machine. Lines pass through
unchanged both ways, except `ABOUT`, answered here (saying this is a relay, and to where). When
the server cannot be reached or drops, every answer the manager is owed becomes an `ERROR` line
with the reason at once — a manager waiting on a dead connection would otherwise hang until its
own timeout. A later `START`/`RECTSTART` tries to connect again.
"""
from __future__ import annotations

import argparse
import logging
import math
import re
import sys

import trio

from gomocup_bot import __version__
from gomocup_bot.net.limits import read_token_file
from gomocup_bot.net.traffic import RequestTracker, command_word, is_reply
from protocol.transport import LineStream, LineTooLong, StdioLineStream, TcpLineStream

log = logging.getLogger("gomocup_bot.net.relay")

DEFAULT_CONNECT_TIMEOUT = 0.9  # seconds; the issue asks for an ERROR within a second
END_LINGER_SECONDS = 1.0  # after END, how long answers still in flight are passed on
EOF_DRAIN_SECONDS = 30.0  # at end of input, how long owed answers may still take
_CONNECTION_ERRORS = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)


def parse_address(text: str) -> tuple[str, int]:
    """`host:port` or `[v6-address]:port` -> (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"expected HOST:PORT, got {text!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


def _connect_failure(exc: OSError) -> str:
    """The root cause of a failed connect (trio wraps each attempt's error in one OSError)."""
    cause = exc.__cause__
    while isinstance(cause, BaseExceptionGroup) and cause.exceptions:
        cause = cause.exceptions[0]
    if isinstance(cause, OSError) and cause.strerror:
        return cause.strerror.lower()
    return exc.strerror or str(exc)


class Relay:
    """Carries one manager's session (on `local`) to the server, one TCP connection at a time."""

    def __init__(self, local: LineStream, host: str, port: int, *, token: str | None = None,
                 connect_timeout: float = DEFAULT_CONNECT_TIMEOUT) -> None:
        self.local = local
        self.host, self.port = host, port
        self.token = token
        self.connect_timeout = connect_timeout
        self.remote: TcpLineStream | None = None
        self.down_reason: str | None = "not connected yet"
        self.tracker = RequestTracker()
        self._nursery: trio.Nursery | None = None
        self.ending = False
        self.infos: dict[str, str] = {}  # INFO key -> its last line, replayed to a new connection
        self._retry_after = -math.inf  # no new attempt before this (after one that timed out)

    @property
    def where(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def about_line(self, remote: str | None = None) -> str:
        """The relay's own ABOUT; with the server's ABOUT line, its brain's name is added.

        Passed through the server (when connected) rather than answered at once, so that an ABOUT
        sent during a search is answered after the move, as the stdio brain would.
        """
        line = (f'name="gomocup-bot relay", version="{__version__}", author="gomocup-bot developers", '
                f'relay="to gomocup-bot serve at {self.where}"')
        found = re.search(r'name="([^"]*)"', remote or "")
        if found:
            line += f', remote_name="{found[1]}"'
        return line

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            first_attempt = trio.Event()

            async def connect_at_start() -> None:
                await self._connect()
                first_attempt.set()

            # Connect while the manager's first lines are on their way; they wait for the outcome.
            nursery.start_soon(connect_at_start)
            while True:
                line = await self.local.receive_line()
                await first_attempt.wait()
                if line is None:  # like the stdio brain: answer what was asked, then leave
                    await self._drain_owed()
                    self.ending = True
                    await self._forward("END")
                    break
                word = command_word(line)
                if word == "ABOUT" and self.tracker.block is None and self.remote is None:
                    await self.local.send_line(self.about_line())  # connected, the server's is rewritten
                    continue
                if (self.remote is None and word in ("START", "RECTSTART") and self.tracker.block is None
                        and trio.current_time() >= self._retry_after):
                    await self._connect()
                await self._forward(line)
                if word == "END" and self.tracker.block is None:
                    self.ending = True  # from now on nothing of ours goes to the manager
                    await self._await_server_close()
                    break
            await self._disconnect()
            nursery.cancel_scope.cancel()

    async def _await_server_close(self) -> None:
        """After END the server may still flush answers owed before it (as a stdio brain does in
        its last moments); pass them on until it closes the connection, briefly."""
        with trio.move_on_after(END_LINGER_SECONDS):
            while self.remote is not None:
                await trio.sleep(0.01)

    async def _drain_owed(self) -> None:
        """Wait (bounded) until the server has answered every owed command, or is gone."""
        with trio.move_on_after(EOF_DRAIN_SECONDS):
            while self.remote is not None and self.tracker.owed:
                await trio.sleep(0.01)

    # ---- manager -> server --------------------------------------------------------------------

    async def _forward(self, line: str) -> None:
        owed_before = self.tracker.owed
        if command_word(line) == "INFO" and self.tracker.block is None and len(line.split()) >= 2:
            self.infos[line.split()[1].lower()] = line
        self.tracker.observe_request(line)
        remote = self.remote
        if remote is not None:
            try:
                await remote.send_line(line)
                return
            except _CONNECTION_ERRORS as exc:
                await self._lost(f"sending failed ({exc.__class__.__name__})")
                return  # _lost has answered everything owed, this line included
        for _ in range(self.tracker.owed - owed_before):
            await self.local.send_line(f"ERROR relay: no connection to {self.where} ({self.down_reason})")
        self.tracker.forget()

    # ---- connection ---------------------------------------------------------------------------

    async def _connect(self) -> None:
        """Open a fresh server session (and AUTH); on failure remember why, within the timeout."""
        await self._disconnect()
        reason = f"no answer within {self.connect_timeout:g} s"
        stream: TcpLineStream | None = None
        with trio.move_on_after(self.connect_timeout) as timer:
            try:
                stream = TcpLineStream(await trio.open_tcp_stream(self.host, self.port))
            except OSError as exc:
                reason = _connect_failure(exc)
            else:
                refusal = await self._handshake(stream)
                if refusal is None:
                    refusal = await self._replay_infos(stream)
                if refusal is None:
                    self.remote, self.down_reason = stream, None
                    self.tracker = RequestTracker()
                    assert self._nursery is not None
                    self._nursery.start_soon(self._pump_from_server, stream)
                    log.info("connected to %s", self.where)
                    return
                reason = refusal
        if stream is not None:  # refused, or the handshake ran out of time
            await trio.aclose_forcefully(stream.stream)
        self.down_reason = reason
        if timer.cancelled_caught:  # a silent server: do not make the next command wait again at once
            self._retry_after = trio.current_time() + self.connect_timeout
        log.warning("cannot use server %s: %s", self.where, reason)

    async def _handshake(self, stream: TcpLineStream) -> str | None:
        """Send AUTH if we have a token; None when the session may start, else the server's refusal."""
        if self.token is None:
            return None
        try:
            await stream.send_line(f"AUTH {self.token}")
            while True:
                answer = await stream.receive_line()
                if answer is None:
                    return "server closed the connection during AUTH"
                if is_reply(answer):
                    return None if answer.strip().upper() == "OK" else f"server refused AUTH: {answer}"
        except _CONNECTION_ERRORS as exc:
            return f"AUTH failed ({exc.__class__.__name__})"

    async def _replay_infos(self, stream: TcpLineStream) -> str | None:
        """A new server session starts knowing the INFO values (time limits, rule…) sent so far."""
        try:
            for line in self.infos.values():
                await stream.send_line(line)
        except _CONNECTION_ERRORS as exc:
            return f"sending failed ({exc.__class__.__name__})"
        return None

    async def _disconnect(self) -> None:
        remote, self.remote = self.remote, None
        if remote is not None:
            self.down_reason = "connection closed by the relay"
            with trio.CancelScope(shield=True), trio.move_on_after(0.5):
                await remote.aclose()

    async def _lost(self, reason: str) -> None:
        """The server went away: answer every owed command with an ERROR now."""
        if self.remote is None:
            return
        self.remote = None
        self.down_reason = reason
        if self.ending:
            return
        log.warning("lost the server %s: %s", self.where, reason)
        for _ in range(self.tracker.owed):
            await self.local.send_line(f"ERROR relay: lost the connection to {self.where} ({reason})")
        self.tracker.forget()

    # ---- server -> manager --------------------------------------------------------------------

    async def _pump_from_server(self, stream: TcpLineStream) -> None:
        reason = "the server closed the connection"
        while True:
            try:
                line = await stream.receive_line()
            except LineTooLong:
                continue  # nothing a manager could use; the transport skipped it
            except _CONNECTION_ERRORS as exc:
                line, reason = None, f"receive failed ({exc.__class__.__name__})"
            if line is None:
                if self.remote is stream:
                    await self._lost(reason)
                return
            if is_reply(line) and not self.tracker.owed:
                # Nobody asked (e.g. the server closing an idle connection): a bare ERROR here would
                # be taken by the manager as the answer to its next command.
                line = f"MESSAGE server {self.where} said: {line}"
            if self.tracker.observe_reply(line) == "ABOUT":
                line = self.about_line(remote=line)
            await self.local.send_line(line)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gomocup-bot connect",
        description="A stdio Gomocup brain that relays to a remote `gomocup-bot serve`: give this command "
        "line to any manager or GUI that launches local brains.",
    )
    parser.add_argument("address", metavar="HOST:PORT", help="the server, e.g. 192.168.1.5:6789")
    secret = parser.add_mutually_exclusive_group()
    secret.add_argument("--token", help="shared secret sent as `AUTH <token>` (if the server requires one)")
    secret.add_argument("--token-file", help="read the shared secret from the first line of this file")
    parser.add_argument("--connect-timeout", type=float, default=DEFAULT_CONNECT_TIMEOUT,
                        help="seconds to reach the server before answering ERROR (default %(default)s)")
    parser.add_argument("--log-level", default="WARNING", help="logging level on stderr (default %(default)s)")
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=getattr(logging, str(args.log_level).upper(), logging.WARNING),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        host, port = parse_address(args.address)
        token = read_token_file(args.token_file) if args.token_file else args.token
    except (ValueError, OSError) as exc:
        parser.error(str(exc))

    async def relay() -> None:
        await Relay(StdioLineStream(), host, port, token=token, connect_timeout=args.connect_timeout).run()

    try:
        trio.run(relay)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if not _has_os_error(exc):
            raise
        # The manager closed our stdout (or stdin broke): nobody is left to talk to.
        log.info("manager went away: %s", exc)
    return 0


def _has_os_error(exc: BaseException) -> bool:
    if isinstance(exc, OSError):
        return True
    if isinstance(exc, BaseExceptionGroup):
        return any(_has_os_error(inner) for inner in exc.exceptions)
    return False
