"""Resident memory of an engine's process tree, read from /proc (Linux; no psutil).

GomocupJudge bills a brain for its whole process tree, so a wrapper script that starts the real
engine is measured with its child. Unreadable entries (process gone, not Linux) count as 0.
"""
from __future__ import annotations

from pathlib import Path

PROC = Path("/proc")


def rss_bytes(pid: int) -> int:
    """VmRSS of one process in bytes (0 if it is gone or /proc is unavailable)."""
    try:
        text = (PROC / str(pid) / "status").read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith("VmRSS:"):
            parts = line.split()
            try:
                return int(parts[1]) * 1024  # the kernel reports kB
            except (IndexError, ValueError):
                return 0
    return 0


def children(pid: int) -> list[int]:
    """Direct children of `pid`, from every thread's /proc/<pid>/task/<tid>/children."""
    out: list[int] = []
    try:
        tasks = list((PROC / str(pid) / "task").iterdir())
    except OSError:
        return out
    for task in tasks:
        try:
            out.extend(int(v) for v in (task / "children").read_text().split())
        except (OSError, ValueError):
            continue
    return out


def tree_rss_bytes(pid: int, max_processes: int = 64) -> int:
    """Summed VmRSS of `pid` and its descendants (bounded, in case of a fork bomb)."""
    total, seen, todo = 0, set(), [pid]
    while todo and len(seen) < max_processes:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        total += rss_bytes(current)
        todo.extend(children(current))
    return total
