"""Sizing tables from the INFO max_memory budget.

Gomocup counts the whole process (Python, numpy, numba/LLVM and our tables) against max_memory
(350 MB there). We measure what the process already holds and give tables a share of the rest.
"""
from __future__ import annotations

import os

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
DEFAULT_BUDGET = 350 * 1024 * 1024
SAFETY = 32 * 1024 * 1024  # headroom for transient allocations (arrays per call, trio, logging)


def current_rss() -> int:
    """Resident set size of this process in bytes (0 if unknown)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        return 0


def peak_rss() -> int:
    """Peak resident set size in bytes (Linux ru_maxrss is in KiB)."""
    try:
        import resource

        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024
    except (ImportError, OSError):
        return 0


def table_budget(max_memory: int, share: float = 0.6, rss: int | None = None) -> int:
    """Bytes the search may spend on tables: `share` of what max_memory leaves after the current RSS
    and a safety margin. max_memory <= 0 means "no limit given": use the Gomocup default 350 MB."""
    limit = max_memory if max_memory > 0 else DEFAULT_BUDGET
    used = current_rss() if rss is None else rss
    free = limit - used - SAFETY
    return max(0, int(free * share))


def entries_for(budget_bytes: int, entry_bytes: int, minimum: int = 1024, maximum: int = 1 << 26) -> int:
    """The largest power of two of entries that fits the budget (clamped to [minimum, maximum])."""
    n = minimum
    while n * 2 <= maximum and n * 2 * entry_bytes <= budget_bytes:
        n *= 2
    return n


M_MMAP_THRESHOLD = -3  # mallopt parameter number in glibc's malloc.h
BIG_BLOCK_BYTES = 256 * 1024


def give_big_blocks_back_to_the_os() -> bool:
    """Fix glibc's mmap threshold so every big block (hash tables, trees, boards of numpy) gets its
    own mapping, returned to the OS when freed. Returns whether it was set (False off glibc).

    By default glibc raises the threshold each time such a block is freed (up to 32 MB); blocks
    are then carved from per-thread heaps and stay resident once freed. A server dropping a 16 MB
    hash table per move stayed at 0.8 GB after its sessions had ended, 0.16 GB with this set.
    """
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, BIG_BLOCK_BYTES))
