"""`gomocup-bot serve`: brain sessions over TCP, one per connection, with a network server's limits.

Each connection runs the very same brain session as the stdio brain (`gomocup_bot.brain.runner.run_brain`),
so clients see the same replies and errors. Around it the server adds what a shared box needs: an
allow-list, connection caps (total and per address), an optional `AUTH <token>` first line, the
per-session guards of `gomocup_bot.net.guard`, a shared pool of search slots (one search per
usable core; a session that cannot get one in time plays a quick move instead of losing on time),
logs of every connection and counters on SIGUSR1 and at shutdown.
"""
from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import signal
import sys
from dataclasses import dataclass
from typing import Awaitable, Callable

import trio

from gomocup_bot.core.cpu import usable_cores
from gomocup_bot.net.guard import GuardedLineStream
from gomocup_bot.net.limits import (
    DEFAULT_AUTH_TIMEOUT,
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_BAD_REPLIES,
    DEFAULT_MAX_BOARD,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_LINE,
    DEFAULT_PER_ADDRESS,
    DEFAULT_SESSION_MEMORY,
    Admission,
    ServerLimits,
    parse_networks,
    read_token_file,
)
from gomocup_bot.net.stats import ServerCounters
from gomocup_bot.net.traffic import command_word
from protocol.transport import LineStream, TcpLineStream

log = logging.getLogger("gomocup_bot.net.server")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 6789
SHUTDOWN_GRACE = 0.8  # seconds sessions get to stop after SIGINT/SIGTERM before the process exits anyway
_ACCEPT_PAUSE_ERRNOS = {24, 23, 12, 105}  # EMFILE, ENFILE, ENOMEM, ENOBUFS: wait and accept again

# A brain session over one stream; the default runs `run_brain`, tests may pass any coroutine.
SessionHandler = Callable[[LineStream, trio.CapacityLimiter], Awaitable[None]]


@dataclass
class _Connection:
    number: int
    peer: str
    host: str
    opened: float
    guard: GuardedLineStream | None = None


class BotServer:
    """Accepts connections and runs one guarded brain session per admitted connection."""

    def __init__(self, limits: ServerLimits, handler: SessionHandler, *, search_slots: int | None = None) -> None:
        self.limits = limits
        self.handler = handler
        self.slots = trio.CapacityLimiter(search_slots or usable_cores())
        self.admission = Admission(limits)
        self.counters = ServerCounters(slots_total=int(self.slots.total_tokens))
        self.addresses: list[tuple[str, int]] = []
        self.closing = False
        self.stopped = trio.Event()
        self._connections: dict[int, _Connection] = {}
        self._next_number = 1
        self._accept_scope = trio.CancelScope()

    @property
    def port(self) -> int:
        return self.addresses[0][1]

    # ---- lifecycle ----------------------------------------------------------------------------

    async def serve(self, host: str, port: int, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Listen on host:port (port 0 = any free port) until `shutdown()`; `started` once listening."""
        try:
            listeners = await trio.open_tcp_listeners(port, host=host)
            self.addresses = [tuple(listener.socket.getsockname()[:2]) for listener in listeners]
            for address in self.addresses:
                log.info("listening on %s:%d (search slots %d)", address[0], address[1], self.slots.total_tokens)
            async with trio.open_nursery() as sessions:
                task_status.started(self)
                with self._accept_scope:
                    async with trio.open_nursery() as acceptors:
                        for listener in listeners:
                            acceptors.start_soon(self._accept_loop, listener, sessions)
                with trio.CancelScope(shield=True):
                    for listener in listeners:
                        await listener.aclose()
        finally:
            self.stopped.set()

    def shutdown(self, why: str) -> None:
        """Stop accepting and end every session (their searches are cancelled)."""
        if self.closing:
            return
        self.closing = True
        log.info("shutting down (%s): %d active session(s)", why, len(self._connections))
        self._accept_scope.cancel()
        for connection in list(self._connections.values()):
            if connection.guard is not None:
                connection.guard.end_session("server shutting down")

    def report_counters(self, when: str) -> str:
        self.counters.slots_busy = int(self.slots.borrowed_tokens)
        text = self.counters.summary()
        log.info("counters (%s): %s", when, text)
        return text

    # ---- connections --------------------------------------------------------------------------

    async def _accept_loop(self, listener: trio.SocketListener, sessions: trio.Nursery) -> None:
        while True:
            try:
                sock = await listener.accept()
            except OSError as exc:
                if exc.errno in _ACCEPT_PAUSE_ERRNOS:
                    log.error("accept failed (%s); pausing 0.1 s", exc)
                    await trio.sleep(0.1)
                    continue
                raise
            sessions.start_soon(self._serve_connection, sock)

    async def _serve_connection(self, sock: trio.SocketStream) -> None:
        try:
            host, port = sock.socket.getpeername()[:2]
        except OSError:  # gone before we looked
            await trio.aclose_forcefully(sock)
            return
        peer = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        refusal = "server shutting down" if self.closing else self.admission.refusal(host)
        if refusal is not None:
            self.counters.rejected += 1
            log.warning("refused %s: %s", peer, refusal)
            await self._refuse_raw(sock, refusal)
            return
        self.admission.admit(host)
        self.counters.active += 1
        connection = _Connection(self._next_number, peer, host, trio.current_time())
        self._next_number += 1
        self._connections[connection.number] = connection
        log.info("open #%d %s", connection.number, peer)
        stream = TcpLineStream(sock, max_line=self.limits.max_line)
        try:
            await self._run_session(connection, stream)
        finally:
            guard = connection.guard
            reason = (guard.close_reason if guard else None) or "session ended"
            with trio.CancelScope(shield=True):
                if guard is not None and self.closing:
                    await guard.say_goodbye("server shutting down")
                with trio.move_on_after(0.5):
                    await stream.aclose()
            del self._connections[connection.number]
            self.admission.release(host)
            self.counters.active -= 1
            log.info(
                "close #%d %s after %.1f s: %s (moves %d, errors %d)",
                connection.number, peer, trio.current_time() - connection.opened, reason,
                guard.moves if guard else 0, guard.errors if guard else 0,
            )

    async def _run_session(self, connection: _Connection, stream: TcpLineStream) -> None:
        with trio.CancelScope() as scope:
            guard = GuardedLineStream(stream, limits=self.limits, counters=self.counters, scope=scope,
                                      label=f"#{connection.number} {connection.peer}")
            connection.guard = guard
            if self.closing:  # shutdown began while this connection was being set up
                guard.end_session("server shutting down")
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(guard.watchdog)
                    nursery.start_soon(guard.pump)
                    if await self._authenticate(guard):
                        self.counters.sessions += 1
                        await self.handler(guard, self.slots)
                        if guard.close_reason is None:
                            guard.close_reason = "session ended"
                    nursery.cancel_scope.cancel()
            except Exception:  # a bug in one session must not take the server down
                log.exception("session #%d failed", connection.number)
                guard.close_reason = guard.close_reason or "internal error"

    async def _authenticate(self, guard: GuardedLineStream) -> bool:
        """With `--token`, the first line must be `AUTH <token>` (answered `OK`); otherwise no step."""
        if guard.authenticated:
            return True
        line = await guard.receive_line()
        if line is None:
            guard.close_reason = guard.close_reason or "closed before AUTH"
            return False
        parts = line.split(None, 1)
        if command_word(line) == "AUTH" and len(parts) == 2 and self.limits.token_matches(parts[1].strip()):
            guard.authenticated = True
            guard.changed.set()
            await guard.send_line("OK")
            return True
        self.counters.rejected += 1
        if command_word(line) == "AUTH":
            await guard.refuse("authentication failed", close_reason="wrong AUTH token")
        else:
            await guard.refuse("authentication required: the first line must be AUTH <token>",
                               close_reason="no AUTH line")
        return False

    async def _refuse_raw(self, sock: trio.SocketStream, reason: str) -> None:
        """Tell a refused client why (bounded: a client that does not read is simply dropped)."""
        with trio.move_on_after(0.5):
            try:
                await sock.send_all(f"ERROR {reason}\n".encode("utf-8"))
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass
        await trio.aclose_forcefully(sock)


# ---- the default session: the real brain ------------------------------------------------------


def brain_session_handler(brain_argv: list[str], search_slots: int, keep_tables: bool = False) -> SessionHandler:
    """Sessions running `run_brain` with the stdio brain's options (`gomocup-bot brain --help`).

    The engine is built and prepared once here, before the server listens: the imports and the
    numba cache load it triggers then cost the first clients nothing (a stdio brain pays them on
    its first move, once; a server would otherwise make dozens of simultaneous sessions wait).
    Unless `keep_tables`, each session drops its engine's search tables after every move.
    """
    import time

    from gomocup_bot.brain import runner
    from gomocup_bot.engine import StopFlag
    from gomocup_bot.engines import greedy  # noqa: F401  (the quick fallback, imported now)

    # one search per slot: each search gets its share of the cores, so slots never oversubscribe them
    options = runner.BrainOptions.from_argv(brain_argv).with_threads(max(1, usable_cores() // max(1, search_slots)))
    options = dataclasses.replace(options, release_tables=not keep_tables)
    started = time.monotonic()
    StopFlag()  # numpy
    choice = runner.choose_engine(options)
    choice.factory().prepare()
    if runner.preload_numba_quick():  # what answers a session whose move finds every slot busy
        log.info("numba quick move loaded")
    log.info("engine %s prepared in %.2f s", choice.label, time.monotonic() - started)

    async def handle(stream: LineStream, slots: trio.CapacityLimiter) -> None:
        await runner.run_brain(stream, options=options, search_slots=slots)

    return handle


# ---- command line -----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gomocup-bot serve",
        description="Serve Gomocup brain sessions over TCP: every connection is its own brain session "
        "speaking the stdio brain's line protocol. Options not listed here are brain options "
        "(see `gomocup-bot brain --help`), e.g. --engine.",
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help="address to bind (default %(default)s: loopback only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="TCP port, 0 = any free one (default %(default)s)")
    parser.add_argument("--search-slots", type=int, default=0,
                        help="searches running at once (default: usable cores, here %d)" % usable_cores())
    parser.add_argument("--max-connections", type=int, default=DEFAULT_MAX_CONNECTIONS,
                        help="open connections at most (default %(default)s)")
    parser.add_argument("--per-address", type=int, default=DEFAULT_PER_ADDRESS,
                        help="open connections per client address, 0 = no cap (default %(default)s)")
    parser.add_argument("--max-line", type=int, default=DEFAULT_MAX_LINE,
                        help="longest accepted line in bytes (default %(default)s)")
    parser.add_argument("--max-board", type=int, default=DEFAULT_MAX_BOARD,
                        help="largest board side accepted by START/RECTSTART (default %(default)s)")
    parser.add_argument("--max-block", type=int, default=0,
                        help="most lines in a BOARD-like block (default: max-board squared)")
    parser.add_argument("--idle-timeout", type=float, default=DEFAULT_IDLE_TIMEOUT,
                        help="close a connection silent this many seconds while no search runs, 0 = never "
                        "(default %(default)s)")
    parser.add_argument("--auth-timeout", type=float, default=DEFAULT_AUTH_TIMEOUT,
                        help="seconds to send the AUTH line when a token is required (default %(default)s)")
    parser.add_argument("--max-bad-lines", type=int, default=DEFAULT_MAX_BAD_REPLIES,
                        help="close after this many ERROR/UNKNOWN answers in a row, 0 = never (default %(default)s)")
    parser.add_argument("--session-memory", type=int, default=DEFAULT_SESSION_MEMORY // (1024 * 1024), metavar="MB",
                        help="memory each session's engine may plan for, passed to it as `INFO max_memory` "
                        "(a client's smaller value is kept), 0 = whatever the client says (default %(default)s)")
    parser.add_argument("--keep-tables", action="store_true",
                        help="keep each session's hash table and search tree from one move to its next (memory "
                        "then grows with the open sessions, 15-30 MB each). Default: dropped after "
                        "every move, so memory follows the searches running")
    parser.add_argument("--allow", action="append", default=[], metavar="NETS",
                        help="client networks allowed, comma-separated CIDRs, repeatable (default: any)")
    secret = parser.add_mutually_exclusive_group()
    secret.add_argument("--token", help="shared secret; clients must first send `AUTH <token>`")
    secret.add_argument("--token-file", help="read the shared secret from the first line of this file")
    parser.add_argument("--log-level", default="INFO", help="logging level on stderr (default %(default)s)")
    parser.add_argument("--brain-log-level", default="WARNING",
                        help="logging level of the brain sessions (one line per move at INFO; default %(default)s)")
    return parser


def limits_from_args(args: argparse.Namespace) -> ServerLimits:
    token = args.token
    if args.token_file:
        token = read_token_file(args.token_file)
    for name in ("max_connections", "per_address", "max_line", "max_board", "max_block", "max_bad_lines",
                 "session_memory", "search_slots"):
        if getattr(args, name) < 0:
            raise ValueError(f"--{name.replace('_', '-')} must not be negative")
    if args.max_line < 16 or args.max_board < 5:
        raise ValueError("--max-line must be at least 16 and --max-board at least 5")
    return ServerLimits(
        max_connections=args.max_connections,
        per_address=args.per_address,
        max_line=args.max_line,
        max_board=args.max_board,
        max_block_lines=args.max_block,
        idle_timeout=max(0.0, args.idle_timeout),
        auth_timeout=max(0.0, args.auth_timeout),
        max_bad_replies=args.max_bad_lines,
        session_memory=args.session_memory * 1024 * 1024,
        allow=parse_networks(args.allow),
        token=token or None,
    )


async def run_server(server: BotServer, host: str, port: int) -> int:
    """Serve until SIGINT/SIGTERM; SIGUSR1 logs the counters. Returns the exit status.

    A second SIGINT/SIGTERM during the shutdown is left to its default action (a hard exit).
    """
    usr1 = getattr(signal, "SIGUSR1", None)  # not on Windows
    watched = [signal.SIGINT, signal.SIGTERM] + ([usr1] if usr1 is not None else [])
    with trio.open_signal_receiver(*watched) as signals:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.serve, host, port)
            async for signum in signals:
                if signum == usr1:
                    server.report_counters("SIGUSR1")
                    continue
                server.shutdown(signal.Signals(signum).name)
                break
            with trio.move_on_after(SHUTDOWN_GRACE):
                await server.stopped.wait()
            if not server.stopped.is_set():
                log.error("sessions did not stop within %.1f s; exiting anyway", SHUTDOWN_GRACE)
                server.report_counters("shutdown")
                _flush_logs()
                os._exit(1)
        server.report_counters("shutdown")
    return 0


def _flush_logs() -> None:
    for handler in logging.getLogger().handlers:
        handler.flush()
    sys.stderr.flush()


def main(argv: list[str]) -> int:
    parser = build_parser()
    args, brain_argv = parser.parse_known_args(argv)
    logging.basicConfig(
        level=getattr(logging, str(args.log_level).upper(), logging.INFO),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    brain_level = getattr(logging, str(args.brain_log_level).upper(), logging.WARNING)
    for name in ("gomocup_bot.brain",):  # the runner, the session and the entry point
        logging.getLogger(name).setLevel(brain_level)
    # sessions allocate and drop tens of MB of tables per move: freed blocks must leave the RSS
    from gomocup_bot.core.memory import give_big_blocks_back_to_the_os

    if not give_big_blocks_back_to_the_os():
        log.info("could not fix malloc's mmap threshold (not glibc): freed tables may stay resident")
    try:
        limits = limits_from_args(args)
        handler = brain_session_handler(brain_argv, args.search_slots or usable_cores(), args.keep_tables)
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    server = BotServer(limits, handler, search_slots=args.search_slots or None)
    try:
        return trio.run(run_server, server, args.host, args.port)
    except KeyboardInterrupt:  # a second SIGINT while shutting down
        return 130
    except Exception as exc:  # typically: address in use, or not allowed to bind
        os_error = _first_os_error(exc)
        if os_error is None:
            raise
        log.error("cannot serve on %s:%d: %s", args.host, args.port, os_error)
        return 2


def _first_os_error(exc: BaseException) -> OSError | None:
    """The OSError inside a (possibly nested) exception group from trio's nurseries."""
    if isinstance(exc, OSError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _first_os_error(inner)
            if found is not None:
                return found
    return None
