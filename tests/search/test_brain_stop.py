"""The real brain process with the real search engines: YXSTOP mid-search answers at once."""
from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time

import pytest


class Brain:
    def __init__(self, engine: str, *options: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gomocup_bot", "--engine", engine, "--log-level", "INFO", *options],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
        )
        self.out: queue.Queue[str] = queue.Queue()
        self.err: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.out), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.err), daemon=True).start()

    @staticmethod
    def _pump(stream, q) -> None:
        for line in stream:
            q.put(line.rstrip("\r\n"))

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def reply(self, timeout: float) -> str:
        end = time.monotonic() + timeout
        while True:
            line = self.out.get(timeout=max(0.01, end - time.monotonic()))
            if not line.upper().startswith(("MESSAGE", "DEBUG")):
                return line

    def wait_log(self, needle: str, timeout: float) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                if needle in self.err.get(timeout=0.2):
                    return
            except queue.Empty:
                pass
        raise AssertionError(f"no log line containing {needle!r}")

    def close(self) -> None:
        try:
            self.send("END")
            self.proc.wait(5)
        except Exception:  # noqa: BLE001
            self.proc.kill()


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["gomocup-bot", "minimax", "mcts-plain",
                                    "gomocup-bot --threads 2 --option backend=mcts --option reuse=on",
                                    "gomocup-bot --threads 2 --option backend=mcts --option parallel=tree"])
def test_yxstop_mid_search_answers_a_legal_move_at_once(engine):
    brain = Brain(*engine.split())
    try:
        brain.send("START 15")
        assert brain.reply(30) == "OK"
        brain.wait_log("ready in", 360)  # the engine itself, not the quick fallback, must search (minutes on a cold cache)
        brain.send("INFO timeout_turn 60000")
        brain.send("INFO timeout_match 0")
        brain.send("BOARD")
        for stone in ("7,7,2", "8,8,1", "7,8,2", "6,9,1", "9,6,2"):  # 1 = own, 2 = opponent
            brain.send(stone)
        brain.send("DONE")
        time.sleep(1.0)
        early = [line for line in list(brain.out.queue) if not line.upper().startswith(("MESSAGE", "DEBUG"))]
        assert not early, f"the move came before YXSTOP: {early}"  # the search was really running
        t0 = time.monotonic()
        brain.send("YXSTOP")
        move = brain.reply(5)
        elapsed = time.monotonic() - t0
        x, y = (int(v) for v in move.split(","))
        assert (x, y) not in {(7, 7), (8, 8), (7, 8), (6, 9), (9, 6)}
        assert 0 <= x < 15 and 0 <= y < 15
        assert elapsed < 0.5, elapsed
    finally:
        brain.close()
