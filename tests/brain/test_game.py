"""Whole games and mid-search control against real brain processes.

The manager here is a few lines built on `protocol/` (encoder for commands, parse_reply for
answers); the five check is written out independently of the brain's own rules code.
"""
from __future__ import annotations

import time

from protocol import messages as m
from protocol.encoder import encode_lines
from protocol.parser import parse_reply


def send(proc, command: m.Command) -> None:
    proc.send(*encode_lines(command))


def ask_move(proc, command: m.Command, timeout: float = 10.0) -> tuple[int, int]:
    send(proc, command)
    while True:
        reply = parse_reply(proc.read(timeout))
        if isinstance(reply, (m.MessageReply, m.DebugReply, m.RealtimeReply)):
            continue
        assert isinstance(reply, m.MoveReply), reply
        return reply.x, reply.y


def five_through(board: dict[tuple[int, int], int], x: int, y: int) -> bool:
    colour = board[(x, y)]
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        n = 1
        for sign in (1, -1):
            k = 1
            while board.get((x + sign * k * dx, y + sign * k * dy)) == colour:
                n += 1
                k += 1
        if n >= 5:
            return True
    return False


def test_two_brains_play_a_whole_game_to_five(brain):
    black = brain("--engine", "greedy")
    white = brain("--engine", "random", "--seed", "7")
    for proc in (black, white):
        for info in (m.Info("timeout_turn", "2000"), m.Info("timeout_match", "0"), m.Info("rule", "0")):
            send(proc, info)
        send(proc, m.Start(15))
        assert parse_reply(proc.read()) == m.OkReply()

    board: dict[tuple[int, int], int] = {}
    move = ask_move(black, m.Begin())
    players = {1: black, 2: white}
    colour, winner = 1, None
    for _ in range(225):
        x, y = move
        assert 0 <= x < 15 and 0 <= y < 15, move
        assert move not in board, f"occupied square {move}"
        board[move] = colour
        if five_through(board, x, y):
            winner = colour
            break
        colour = 3 - colour
        move = ask_move(players[colour], m.Turn(x, y))
    assert winner == 1  # the greedy brain beats the random one
    assert 9 <= len(board) < 100
    for proc in (black, white):
        assert proc.end() == 0


def test_end_mid_search_exits_within_half_a_second(brain):
    # the default engine (the full brain) with a 30 s turn: it is thinking (or still loading
    # its kernels) when END arrives; either way the process must be gone at once
    b = brain("--log-level", "INFO")
    assert b.ask("START 15") == "OK"
    b.send("INFO timeout_turn 30000", "INFO timeout_match 1000000", "INFO time_left 1000000")
    b.send("BOARD", "7,7,2", "8,8,1", "9,6,2", "DONE")
    assert b.read_or_none(1.0) is None  # still thinking: the move is owed
    start = time.monotonic()
    b.send("END")
    b.proc.wait(timeout=5)
    elapsed = time.monotonic() - start
    assert elapsed < 2.0, f"exit took {elapsed:.3f} s"
    assert b.proc.returncode == 0
    rest = b.rest_of_stdout().decode().split()
    assert len(rest) <= 1 and all(isinstance(parse_reply(r), m.MoveReply) for r in rest)


def test_yxstop_mid_search_answers_at_once(brain):
    b = brain("--log-level", "INFO")
    assert b.ask("START 15") == "OK"
    b.send("INFO timeout_turn 30000", "YXBOARD", "7,7,2", "8,8,1", "9,6,2", "DONE", "YXNBEST 1")
    assert b.read_or_none(1.0) is None
    start = time.monotonic()
    b.send("YXSTOP")
    reply = parse_reply(b.read(timeout=5))
    assert time.monotonic() - start < 2.0
    assert isinstance(reply, m.MoveReply) and (reply.x, reply.y) not in {(7, 7), (8, 8), (9, 6)}
    assert b.end() == 0
