"""Helpers for the engine API tests: the fake brain's command line, `gomocup-bot serve` as a real
process, and the check that no engine process or thread outlives a test."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tour_helpers import FAKE_BRAIN

REPO = Path(__file__).resolve().parents[2]


def fake_argv(*args: str) -> list[str]:
    """The scripted brain (tests/tournament/fake_brain.py) with these options, as an argv list."""
    return [sys.executable, str(FAKE_BRAIN), *args]


def child_processes() -> set[int]:
    """Our direct children that still exist, zombies included (an unreaped child is a leftover too)."""
    me, found = os.getpid(), set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        if int(stat.rsplit(b")", 1)[1].split()[1]) == me:
            found.add(int(entry))
    return found


def our_threads() -> set[threading.Thread]:
    """Live threads, leaving out trio's idle worker-thread cache (it retires its own threads)."""
    return {t for t in threading.enumerate() if not t.name.startswith("Trio thread")}


def leftovers(before_pids: set[int], before_threads: set[threading.Thread], wait: float = 2.0) -> tuple[set[int], set[str]]:
    """Children and threads that appeared since `before_*` and are still there after `wait` seconds."""
    deadline = time.monotonic() + wait
    while True:
        pids = child_processes() - before_pids
        threads = {t.name for t in our_threads() - before_threads}
        if (not pids and not threads) or time.monotonic() > deadline:
            return pids, threads
        time.sleep(0.02)


class ServeProcess:
    """`gomocup-bot serve` on 127.0.0.1 with a free port, as a real process (stderr to a file)."""

    def __init__(self, log_path: Path, *args: str, start_timeout: float = 60.0) -> None:
        self.log_path = log_path
        self._log = open(log_path, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gomocup_bot", "serve", "--host", "127.0.0.1", "--port", "0", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log, cwd=REPO,
        )
        deadline = time.monotonic() + start_timeout
        while True:
            found = re.search(r"listening on 127\.0\.0\.1:(\d+)", log_path.read_text(errors="replace"))
            if found:
                self.port = int(found.group(1))
                break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"gomocup-bot serve did not start:\n{log_path.read_text(errors='replace')}")
            time.sleep(0.05)

    @property
    def address(self) -> str:
        return f"tcp://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
