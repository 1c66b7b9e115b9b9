"""A watchdog that turns "external stop or deadline passed" into one flag the kernels poll.

Numba kernels cannot read the clock, and an alpha-beta iteration or a VCF proof cannot be cut
into chunks, so a tiny thread polls the brain's stop flag and the deadline every half
millisecond and raises a private abort flag; kernels read only that flag.

One polling thread serves every watchdog of the process, started with the first one (the
warm-up's): starting a thread per search waited for the new thread to be scheduled, which took
over 0.6 s with both cores busy and sent a 1 s turn's reply at 1.3-1.7 s.
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

    def check(self, now: float) -> None:
        if self.stop_array[0] != 0 or (self.deadline is not None and now >= self.deadline):
            self.abort[0] = 1

    def __enter__(self):
        self.check(time.monotonic())
        _POLLER.add(self)
        return self.abort

    def __exit__(self, *exc) -> None:
        _POLLER.remove(self)


class _Poller:
    """The one thread that checks the watchdogs in use, every `Watchdog.POLL`; idle without any."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watched: set[Watchdog] = set()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def add(self, dog: Watchdog) -> None:
        with self._lock:
            self._watched.add(dog)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="search-watchdog", daemon=True)
                self._thread.start()
        self._wake.set()

    def remove(self, dog: Watchdog) -> None:
        with self._lock:
            self._watched.discard(dog)

    def _run(self) -> None:
        while True:
            with self._lock:
                watched = list(self._watched)
            if not watched:
                self._wake.wait()
                self._wake.clear()
                continue
            now = time.monotonic()
            for dog in watched:
                dog.check(now)
            time.sleep(Watchdog.POLL)


_POLLER = _Poller()
