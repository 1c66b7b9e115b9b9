"""A real `python -m gomocup_bot` process driven over pipes, for transcript tests."""
from __future__ import annotations

import os
import selectors
import subprocess
import sys
import tempfile
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class BrainProcess:
    """One brain process. `send` writes CR LF lines like Gomocup managers; `read` waits for a line."""

    def __init__(self, *args: str) -> None:
        self.stderr = tempfile.TemporaryFile()
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gomocup_bot", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            cwd=REPO,
        )
        self._buffer = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)
        os.set_blocking(self.proc.stdout.fileno(), False)

    def send(self, *lines: str) -> None:
        self.proc.stdin.write("".join(line + "\r\n" for line in lines).encode())
        self.proc.stdin.flush()

    def read(self, timeout: float = 10.0) -> str:
        """The next stdout line (without terminator); fails the test after `timeout` seconds."""
        line = self.read_or_none(timeout)
        assert line is not None, f"no reply within {timeout} s; stderr:\n{self.log()}"
        return line

    def read_or_none(self, timeout: float) -> str | None:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                return None
            chunk = self.proc.stdout.read(65536)
            if not chunk:  # EOF
                if self._buffer:
                    break
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode().rstrip("\r")

    def expect_silence(self, seconds: float = 0.3) -> None:
        line = self.read_or_none(seconds)
        assert line is None, f"unexpected output {line!r}"

    def ask(self, *lines: str, timeout: float = 10.0) -> str:
        self.send(*lines)
        return self.read(timeout)

    def end(self, timeout: float = 5.0) -> int:
        try:
            self.send("END")
        except BrokenPipeError:
            pass
        return self.proc.wait(timeout)

    def rest_of_stdout(self) -> bytes:
        """Everything written after the last read, once the process has exited."""
        os.set_blocking(self.proc.stdout.fileno(), True)
        return self._buffer + self.proc.stdout.read()

    def log(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()
        self.stderr.close()
        self._selector.close()


@pytest.fixture
def brain():
    """Factory: `brain("--engine", "greedy")` starts a process; all are killed at teardown."""
    procs: list[BrainProcess] = []

    def start(*args: str) -> BrainProcess:
        p = BrainProcess(*args)
        procs.append(p)
        return p

    yield start
    for p in procs:
        p.kill()


@pytest.fixture(scope="session")
def brain_process_class() -> type[BrainProcess]:
    """The class itself, for fixtures with a wider scope than `brain` (no `from conftest import`:
    several test folders have a conftest.py and the bare module name is ambiguous)."""
    return BrainProcess
