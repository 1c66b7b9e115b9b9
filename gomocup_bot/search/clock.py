"""A watchdog that turns "external stop or deadline passed" into one flag the kernels poll.

Numba kernels cannot read the clock, and an alpha-beta iteration or a VCF proof cannot be cut
into chunks, so a tiny thread polls the brain's stop flag and the deadline every half
millisecond and raises a private abort flag; kernels read only that flag.
"""
from __future__ import annotations

import threading
import time

import numpy as np


class Watchdog:
    """``with Watchdog(stop_array, deadline) as abort:`` -- abort[0] becomes 1 on stop or deadline."""

    POLL = 0.0005

    def __init__(self, stop_array, deadline: float | None) -> None:
        self.stop_array = stop_array
        self.deadline = deadline
        self.abort = np.zeros(1, dtype=np.int32)
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def _watch(self) -> None:
        while not self._done.is_set():
            if self.stop_array[0] != 0 or (self.deadline is not None and time.monotonic() >= self.deadline):
                self.abort[0] = 1
                return
            self._done.wait(self.POLL)

    def __enter__(self):
        if self.stop_array[0] != 0:
            self.abort[0] = 1
        self._thread = threading.Thread(target=self._watch, name="search-watchdog", daemon=True)
        self._thread.start()
        return self.abort

    def __exit__(self, *exc) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()
