"""The limits of `gomocup-bot serve` and the admission decision made for each new connection.

Kept apart from the server's I/O so every rule (allow-list, caps, token) can be read and tested in
one place: a connection is admitted or refused with a reason that the server both sends to the
client (as an `ERROR` line) and logs.
"""
from __future__ import annotations

import hmac
import ipaddress
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

DEFAULT_MAX_CONNECTIONS = 128  # each session holds its own engine (~20 MB measured for gomocup-bot)
DEFAULT_PER_ADDRESS = 32
DEFAULT_MAX_LINE = 4096  # bytes; real protocol lines are < 100, `INFO folder <path>` the longest
DEFAULT_MAX_BOARD = 32  # = the brain's own limit (session.MAX_SIZE; not imported: the relay loads this)
DEFAULT_IDLE_TIMEOUT = 900.0  # seconds; must outlast the opponent's longest turn (Gomocup: 300 s)
DEFAULT_AUTH_TIMEOUT = 10.0  # seconds an unauthenticated connection may hold a connection slot
DEFAULT_SESSION_MEMORY = 256 * 1024 * 1024  # bytes, read by the engine as a brain process's max_memory
DEFAULT_MAX_BAD_REPLIES = 64  # consecutive ERROR/UNKNOWN answers before a flood is cut off


def parse_networks(specs: list[str]) -> tuple[IPNetwork, ...]:
    """Parse `--allow` values (each possibly comma-separated) into networks; host bits are tolerated."""
    networks: list[IPNetwork] = []
    for spec in specs:
        for part in spec.split(","):
            part = part.strip()
            if part:
                networks.append(ipaddress.ip_network(part, strict=False))
    return tuple(networks)


def read_token_file(path: str | os.PathLike[str]) -> str:
    """The shared secret is the file's first line, without surrounding white space."""
    text = Path(path).read_text(encoding="utf-8")
    token = text.splitlines()[0].strip() if text.strip() else ""
    if not token:
        raise ValueError(f"token file {path} is empty")
    return token


def normalise_address(host: str) -> IPAddress | None:
    """The peer's IP address, IPv4-mapped IPv6 addresses unwrapped; None if not an IP literal."""
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


@dataclass(frozen=True)
class ServerLimits:
    """Every limit of the server; 0 (or an empty allow-list) means "no limit" where noted."""

    max_connections: int = DEFAULT_MAX_CONNECTIONS
    per_address: int = DEFAULT_PER_ADDRESS  # 0 = no per-address cap
    max_line: int = DEFAULT_MAX_LINE
    max_board: int = DEFAULT_MAX_BOARD
    max_block_lines: int = 0  # 0 = max_board squared (a board cannot hold more stones)
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT  # 0 = never
    auth_timeout: float = DEFAULT_AUTH_TIMEOUT
    max_bad_replies: int = DEFAULT_MAX_BAD_REPLIES  # 0 = never cut off
    session_memory: int = DEFAULT_SESSION_MEMORY  # cap on each session's `INFO max_memory`; 0 = none
    allow: tuple[IPNetwork, ...] = ()  # empty = every address
    token: str | None = field(default=None, repr=False)

    @property
    def block_cap(self) -> int:
        return self.max_block_lines or self.max_board * self.max_board

    def token_matches(self, offered: str) -> bool:
        """Constant-time comparison, so the secret cannot be guessed from response times."""
        assert self.token is not None
        return hmac.compare_digest(offered.encode("utf-8"), self.token.encode("utf-8"))


class Admission:
    """Counts live connections (total and per address) and decides whether a new one may stay.

    `admit` is called with no await between the decision and the bookkeeping, so under trio's
    single-threaded scheduling the counts are always exact.
    """

    def __init__(self, limits: ServerLimits) -> None:
        self.limits = limits
        self.active = 0
        self.per_address: Counter[str] = Counter()

    def refusal(self, host: str) -> str | None:
        """Why a connection from `host` must be refused, or None if it may be admitted."""
        limits = self.limits
        if limits.allow:
            address = normalise_address(host)
            if address is None or not any(address in net for net in limits.allow if net.version == address.version):
                return f"address {host} is not in the server's allow-list"
        if limits.max_connections and self.active >= limits.max_connections:
            return f"server full ({limits.max_connections} connections)"
        if limits.per_address and self.per_address[host] >= limits.per_address:
            return f"too many connections from {host} (limit {limits.per_address})"
        return None

    def admit(self, host: str) -> None:
        self.active += 1
        self.per_address[host] += 1

    def release(self, host: str) -> None:
        self.active -= 1
        self.per_address[host] -= 1
        if self.per_address[host] <= 0:
            del self.per_address[host]
