"""The `--cluster` option: a Dask scheduler's address or a local cluster of N worker processes, and
the check that Dask distributed is installed, both said before a run starts."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tournament.play.runner import cpu_count

INSTALL_HINT = "pip install 'gomocup-bot[cluster]' (or: pip install distributed)"


class ClusterError(Exception):
    """A cluster run cannot start or go on (bad --cluster value, no Dask, unreachable scheduler, failing tasks)."""


@dataclass(frozen=True)
class ClusterTarget:
    address: str | None  # a scheduler's address, or None: start a local cluster
    workers: int = 0  # local cluster: worker processes, one game at a time each

    def describe(self) -> str:
        if self.address is None:
            return f"local cluster of {self.workers} worker process{'es' if self.workers != 1 else ''}"
        return f"scheduler {self.address}"


SCHEMES = ("tcp", "tls")


def parse_cluster(text: str) -> ClusterTarget:
    """`local:N`, `local` (cores - 1 workers), `tcp://HOST:PORT`, `tls://HOST:PORT` or `HOST:PORT` (tcp)."""
    raw = text.strip()
    if raw == "local" or raw.startswith("local:"):
        count = raw.partition(":")[2]
        if not count:
            return ClusterTarget(None, max(1, cpu_count() - 1))
        if not count.isdigit() or not 1 <= int(count) <= 256:
            raise ClusterError(f"--cluster local:N wants a number of worker processes from 1 to 256, not {count!r}")
        return ClusterTarget(None, int(count))
    scheme, sep, rest = raw.partition("://")
    if not sep:
        scheme, rest = "tcp", raw
    if scheme not in SCHEMES:
        raise ClusterError(f"--cluster wants tcp://HOST:PORT, tls://HOST:PORT or local:N, not {text!r}")
    host, sep, port = rest.rstrip("/").rpartition(":")
    if not sep or not host.strip("[]") or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterError(f"--cluster wants {scheme}://HOST:PORT (a Dask scheduler, usually port 8786), not {text!r}")
    return ClusterTarget(f"{scheme}://{host}:{int(port)}")


def require_distributed() -> Any:
    """The `distributed` module, or a ClusterError that says how to install it."""
    try:
        import distributed
    except ImportError as exc:
        raise ClusterError(f"--cluster needs Dask distributed, which is not installed ({exc}); {INSTALL_HINT}") from None
    return distributed


def cluster_target(text: str) -> ClusterTarget:
    """Parse --cluster and check that Dask is there: everything that can be said before a run starts."""
    target = parse_cluster(text)
    require_distributed()
    return target
