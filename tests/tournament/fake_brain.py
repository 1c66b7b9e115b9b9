"""A scripted Gomocup brain for the tournament tests: fast, deterministic, and able to misbehave on cue.

It plays by filling one row from the left (`--row`), first completing its own five if it can, so two
fake brains on different rows give short games that the side to move first wins. `--mode` makes it
misbehave on its `--at`-th move (1-based, counting only its own replies to BEGIN/TURN/BOARD):

  crash-start   exit before answering START          no-start   never answer START (but keep reading)
  crash         exit instead of moving               hang       never answer that move
  slow          sleep --sleep seconds, then move     garbage    reply a line that is not a move
  occupied      play on an occupied square           offboard   play outside the board
  error         reply ERROR instead of a move        memory     allocate --megabytes MB, then move
  script        play the moves in --moves in order   exit-idle  exit right after that move is sent
  flood         print 50000 MESSAGE lines, then move unknown    reply UNKNOWN instead of a move
  until-stop    say nothing until YXSTOP arrives, then move (a brain thinking without a limit)

`--delay S` thinks S seconds before every move (for tests that need games in progress).
`--talk DIALECT` prints thinking lines before every move, as brains do: `ours` (our brain's
summary), `rapfi` (Rapfi's INFO block and MESSAGE line), `uci` (Rapfi's UCI-like MESSAGE), `yixin`
(REALTIME VAL / BEST), `plain` (`MESSAGE depth 3 eval 35`); the PV starts with the coming move.
A crash (`crash`, `crash-start`) first writes a line to stderr. `--ignore-end` keeps running after
END and after its input closed (the manager must kill it). YXBOARD sets the board silently; YXNBEST n prints n Rapfi-style
INFO blocks (PV 0 .. n-1, eval falling) and then moves.

`--no-restart` answers RESTART with UNKNOWN (the manager must relaunch). `--log FILE` appends every
received line, so tests can check the real transcript. Stdout carries protocol lines only.
"""
from __future__ import annotations

import argparse
import os
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--row", type=int, default=0)
    ap.add_argument("--mode", default="normal")
    ap.add_argument("--at", type=int, default=1)
    ap.add_argument("--sleep", type=float, default=0.0)
    ap.add_argument("--delay", type=float, default=0.0, help="think this long before every move")
    ap.add_argument("--megabytes", type=int, default=0)
    ap.add_argument("--moves", default="")
    ap.add_argument("--no-restart", action="store_true")
    ap.add_argument("--log", default="")
    ap.add_argument("--name", default="fake")
    ap.add_argument("--ponder-log", default="", help="a background thread appends a line here every 20 ms (pondering)")
    ap.add_argument("--log-env", default="", help="write this environment variable and the cwd into the log at start")
    ap.add_argument("--talk", default="", help="thinking lines before every move: ours, rapfi, uci, yixin, plain")
    ap.add_argument("--ignore-end", action="store_true", help="do not exit on END")
    args = ap.parse_args()

    log = open(args.log, "a", buffering=1) if args.log else None
    if log and args.log_env:
        log.write(f"ENV {args.log_env}={os.environ.get(args.log_env, '')}\nCWD {os.getcwd()}\n")
    width = height = 0
    board: dict[tuple[int, int], int] = {}  # 1 own, 2 opponent
    my_moves = 0
    scripted = [tuple(int(v) for v in m.split(",")) for m in args.moves.split()] if args.moves else []
    script = list(scripted)  # restarted with every game: a brain kept across games by RESTART replays it
    hoard = []
    waiting_for_stop = False

    def out(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def choose(peek: bool = False) -> tuple[int, int]:
        if args.mode == "script" and script:
            return script[0] if peek else script.pop(0)
        for x in range(width):  # complete our five on our row if we can
            if (x, args.row) not in board and sum(board.get((x + d, args.row)) == 1 for d in range(-4, 5) if d) >= 4:
                return x, args.row
        for y in list(range(args.row, height)) + list(range(args.row)):
            for x in range(width):
                if (x, y) not in board:
                    return x, y
        return 0, 0

    def talk(x: int, y: int) -> None:
        def label(a: int, b: int) -> str:
            return f"{chr(ord('A') + a)}{b + 1}"

        pv = [(x, y), (x, (y + 1) % height), (x, (y + 2) % height)]
        wire = " ".join(f"{a},{b}" for a, b in pv)
        labels = " ".join(label(a, b) for a, b in pv)
        if args.talk == "ours":
            out(f"MESSAGE pvs depth 7 nodes 12345 (61725/s) winrate 61.5% time 200 ms pv {wire} sel 9 threads 1 score 88 stop time")
        elif args.talk == "rapfi":
            for key, value in (("PV", "0"), ("NUMPV", "1"), ("DEPTH", "9"), ("SELDEPTH", "14"), ("NODES", "100"),
                               ("TOTALNODES", "4321"), ("TOTALTIME", "55"), ("SPEED", "78563"), ("EVAL", "120"),
                               ("WINRATE", "0.600000"), ("BESTLINE", wire), ("PV", "DONE")):
                out(f"INFO {key} {value}")
            out(f"MESSAGE Depth 9-14 | Eval 120 | Time 55ms | {labels}")
        elif args.talk == "uci":
            out(f"MESSAGE depth 11-17 ev -35 n 2M n/ms 1234 tm 1620 pv {labels}")
        elif args.talk == "yixin":
            out("MESSAGE REALTIME VAL 77")
            out(f"MESSAGE REALTIME BEST {x},{y}")
        elif args.talk == "plain":
            out("MESSAGE depth 3 eval 35")

    def move() -> None:
        nonlocal my_moves, waiting_for_stop
        my_moves += 1
        misbehave = my_moves == args.at
        if args.delay:
            time.sleep(args.delay)
        if args.talk:
            talk(*choose(peek=True))
        if misbehave:
            if args.mode == "crash":
                sys.stderr.write("fake brain: crashing on purpose\n")
                sys.stderr.flush()
                os._exit(3)
            if args.mode == "hang":
                return
            if args.mode == "unknown":
                out("UNKNOWN no moves today")
                return
            if args.mode == "until-stop" and not waiting_for_stop:
                waiting_for_stop = True
                my_moves -= 1  # this move is owed, and counted when it is made
                return
            if args.mode == "slow":
                time.sleep(args.sleep)
            if args.mode == "garbage":
                out("MESSAGE thinking hard")
                out("what is this")
                return
            if args.mode == "error":
                out("ERROR cannot move")
                return
            if args.mode == "occupied" and board:
                x, y = next(iter(board))
                out(f"{x},{y}")
                return
            if args.mode == "offboard":
                out(f"{width},{height - 1}")
                return
            if args.mode == "flood":
                for i in range(50_000):
                    sys.stdout.write(f"MESSAGE flood {i}\n")
                sys.stdout.flush()
            if args.mode == "memory":
                hoard.append(bytearray(os.urandom(1)) * (args.megabytes * 1024 * 1024))
        x, y = choose()
        board[(x, y)] = 1
        out("DEBUG fake brain move")
        out(f"{x},{y}")
        if misbehave and args.mode == "exit-idle":
            os._exit(0)

    if args.ponder_log:
        import threading

        def ponder() -> None:
            with open(args.ponder_log, "a", buffering=1) as f:
                while True:
                    f.write(f"{time.time():.3f}\n")
                    time.sleep(0.02)

        threading.Thread(target=ponder, daemon=True).start()

    block: list[str] | None = None
    block_word = ""
    for raw in sys.stdin:
        line = raw.strip()
        if log:
            log.write(line + "\n")
        if not line:
            continue
        word = line.split()[0].upper()
        if block is not None:
            if word == "DONE":
                for item in block:
                    x, y, f = (int(v) for v in item.split(","))
                    board[(x, y)] = 1 if f == 1 else 2
                block = None
                if block_word == "BOARD":
                    move()
            else:
                block.append(line)
            continue
        if word in ("START", "RECTSTART"):
            if args.mode == "crash-start":
                sys.stderr.write("fake brain: cannot start\n")
                sys.stderr.flush()
                os._exit(2)
            if args.mode == "no-start":
                continue
            rest = line.split(None, 1)[1].replace(",", " ").split()
            width = int(rest[0])
            height = int(rest[1]) if word == "RECTSTART" else width
            board.clear()
            script[:] = scripted
            out("OK")
        elif word == "RESTART":
            if args.no_restart:
                out("UNKNOWN restart not supported")
            else:
                board.clear()
                script[:] = scripted
                out("OK")
        elif word == "BEGIN":
            move()
        elif word == "TURN":
            x, y = (int(v) for v in line.split(None, 1)[1].split(","))
            board[(x, y)] = 2
            move()
        elif word in ("BOARD", "YXBOARD"):
            board.clear()
            block, block_word = [], word
        elif word == "YXNBEST":
            x, y = choose(peek=True)
            for i in range(int(line.split()[1])):
                for key, value in (("PV", str(i)), ("DEPTH", "6"), ("EVAL", str(50 - 10 * i)), ("BESTLINE", f"{x},{(y + i) % height}"),
                                   ("PV", "DONE")):
                    out(f"INFO {key} {value}")
            move()
        elif word == "YXSTOP":
            if waiting_for_stop:
                move()  # still waiting_for_stop, so this time it moves
                waiting_for_stop = False
        elif word == "INFO":
            pass
        elif word == "ABOUT":
            out(f'name="{args.name}", version="1.0", author="tests"')
        elif word == "END":
            if not args.ignore_end:
                return 0
        else:
            out(f"UNKNOWN {word}")
    if args.ignore_end:  # not even the end of its input makes it leave
        while True:
            time.sleep(1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
