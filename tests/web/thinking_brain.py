"""A small scripted brain for the web tests: it 'thinks' visibly, then plays.

Before each move it prints `MESSAGE REALTIME BEST X,Y` and a summary line shaped like the real
brain's (`NAME depth D nodes N (R/s) winrate W% time T ms pv X,Y ...`), waits `--delay` seconds and
plays the empty square nearest the centre. It answers TAKEBACK and RESTART with OK and logs every
received line to `--log` (so tests can read the transcript).
"""
from __future__ import annotations

import argparse
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--delay", type=float, default=0.5)
    ap.add_argument("--log", default="")
    args = ap.parse_args()
    log = open(args.log, "a", buffering=1) if args.log else None
    width = height = 15
    stones: set[tuple[int, int]] = set()
    block: list[tuple[int, int]] | None = None

    def out(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def move() -> None:
        cx, cy = width // 2, height // 2
        empty = sorted(((x - cx) ** 2 + (y - cy) ** 2, x, y) for x in range(width) for y in range(height) if (x, y) not in stones)
        picks = [(x, y) for _, x, y in empty[:3]]
        x, y = picks[0]
        out(f"MESSAGE REALTIME BEST {x},{y}")
        pv = " ".join(f"{a},{b}" for a, b in picks)
        out(f"MESSAGE thinker depth 4 nodes 1234 (5000/s) winrate 61.5% time 250 ms pv {pv}")
        time.sleep(args.delay)
        stones.add((x, y))
        out(f"{x},{y}")

    for raw in sys.stdin:
        line = raw.strip()
        if log:
            log.write(line + "\n")
        word = line.split(" ")[0].upper()
        if block is not None:
            if word == "DONE":
                stones.update(block)
                block = None
                move()
            else:
                x, y, _ = (int(v) for v in line.split(","))
                block.append((x, y))
            continue
        if word in ("START", "RECTSTART"):
            size = line.split(" ", 1)[1].split(",")
            width, height = int(size[0]), int(size[-1])
            stones.clear()
            out("OK")
        elif word == "RESTART":
            stones.clear()
            out("OK")
        elif word == "BEGIN":
            move()
        elif word == "TURN":
            x, y = (int(v) for v in line.split(" ", 1)[1].split(","))
            stones.add((x, y))
            move()
        elif word == "BOARD":
            stones.clear()
            block = []
        elif word == "TAKEBACK":
            x, y = (int(v) for v in line.split(" ", 1)[1].split(","))
            stones.discard((x, y))
            out("OK")
        elif word == "END":
            return 0
        elif word == "ABOUT":
            out('name="thinker", version="1"')
    return 0


if __name__ == "__main__":
    sys.exit(main())
