"""How many cores are free right now, so a search does not run more threads than it can use.

A second search thread pays only on a core of its own: measured through gomocup-tournament at
0.5 s/move against plain alpha-beta with a CPU hog on the other core, the two-thread brain scored
22/40 and the one-thread brain 27.5/40 on the same openings (with the core free: 29/40 and 24/40).
Linux reports the tasks running at this instant in /proc/stat (`procs_running`, ourselves
included); elsewhere nothing is known and every usable core counts as free.
"""
from __future__ import annotations

import os

SAMPLES = 3  # the minimum of a few readings ignores a task that was only passing through


def usable_cores() -> int:
    """CPUs this process may run on (the affinity mask, not the machine's total)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _running_tasks() -> int | None:
    try:
        with open("/proc/stat", "rb") as f:
            for line in f:
                if line.startswith(b"procs_running"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def free_cores() -> int:
    """Usable cores minus the tasks other than the caller running now (at least 1)."""
    readings = [r for r in (_running_tasks() for _ in range(SAMPLES)) if r is not None]
    cores = usable_cores()
    if not readings:
        return cores
    others = max(0, min(readings) - 1)  # the caller itself is running while it reads
    return max(1, cores - others)
