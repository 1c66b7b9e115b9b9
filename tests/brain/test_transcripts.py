"""One transcript per protocol command, against the real `python -m gomocup_bot` process.

The baseline `greedy` engine is used so answers are known: it completes a five when it can and
blocks the opponent's five otherwise.
"""
from __future__ import annotations

import pytest

from protocol import messages as m
from protocol.parser import parse_reply

GREEDY = ("--engine", "greedy")


def move_of(line: str) -> tuple[int, int]:
    reply = parse_reply(line)
    assert isinstance(reply, m.MoveReply), f"expected a move, got {line!r}"
    return reply.x, reply.y


def board_lines(*stones: tuple[int, int, int]) -> list[str]:
    return ["BOARD", *(f"{x},{y},{f}" for x, y, f in stones), "DONE"]


# ------------------------------------------------------------------ START / RECTSTART / RESTART


def test_start_answers_bare_ok_and_rejects_unsupported_sizes(brain):
    b = brain(*GREEDY)
    assert b.ask("START 15") == "OK"
    assert b.ask("START 20 20") == "OK"  # Yixin-Board's two-number form
    assert b.ask("start 32") == "OK"
    assert b.ask("START 5") == "OK"
    assert b.ask("START 4").startswith("ERROR ")
    assert b.ask("START 33").startswith("ERROR ")
    assert b.ask("START x").startswith("ERROR ")
    # the rejected STARTs left the 5x5 board in place
    assert b.ask("TURN 4,4") != "" and b.ask("TURN 5,5").startswith("ERROR ")
    assert b.end() == 0


def test_rectstart_uses_width_for_x(brain):
    b = brain(*GREEDY)
    assert b.ask("RECTSTART 20,10") == "OK"
    assert b.ask("TURN 15,2").startswith("ERROR ") is False
    assert b.ask("TURN 2,15").startswith("ERROR ")  # y beyond the height
    x, y = move_of(b.ask("TURN 19,9"))
    assert 0 <= x < 20 and 0 <= y < 10
    assert b.ask("RECTSTART 4,10").startswith("ERROR ")
    assert b.end() == 0


def test_restart_clears_the_board(brain):
    b = brain(*GREEDY)
    assert b.ask("RESTART").startswith("ERROR ")  # no board yet
    b.send("START 15")
    assert b.read() == "OK"
    move_of(b.ask("BEGIN"))
    assert b.ask("BEGIN").startswith("ERROR ")  # not an empty board any more
    assert b.ask("RESTART") == "OK"
    assert move_of(b.ask("BEGIN")) == (7, 7)
    assert b.end() == 0


# ------------------------------------------------------------------ BEGIN / TURN


def test_begin_plays_on_the_empty_board(brain):
    b = brain(*GREEDY)
    assert b.ask("BEGIN").startswith("ERROR ")  # before START
    assert b.ask("START 15") == "OK"
    assert move_of(b.ask("BEGIN")) == (7, 7)  # greedy takes the centre
    assert b.end() == 0


def test_turn_records_both_moves_and_rejects_bad_squares(brain):
    b = brain(*GREEDY)
    assert b.ask("TURN 1,1").startswith("ERROR ")  # before START
    assert b.ask("START 15") == "OK"
    mine = move_of(b.ask("TURN 7,7"))
    assert mine != (7, 7)
    assert b.ask("TURN 7,7").startswith("ERROR ")  # the opponent's own earlier stone
    assert b.ask(f"TURN {mine[0]},{mine[1]}").startswith("ERROR ")  # our stone
    assert b.ask("TURN 15,0").startswith("ERROR ")
    assert b.ask("TURN -1,3").startswith("ERROR ")
    assert b.ask("TURN 3").startswith("ERROR ")
    # nothing was recorded by the rejected TURNs: the game goes on normally
    second = move_of(b.ask("TURN 0,0"))
    assert second not in {(7, 7), mine, (0, 0)}
    assert b.end() == 0


def test_turn_answer_blocks_an_open_four(brain):
    b = brain(*GREEDY)
    b.send("START 15")
    assert b.read() == "OK"
    b.send(*board_lines((3, 7, 2), (4, 7, 2), (5, 7, 2), (0, 0, 1), (0, 14, 1), (14, 0, 1)))
    mine = move_of(b.read())
    assert mine in {(2, 7), (6, 7)}  # the three must be stopped... or at least one end closed
    other_end = (6, 7) if mine == (2, 7) else (2, 7)
    # the opponent extends to a four; the brain must block the five
    four_end = (7, 7) if other_end == (6, 7) else (1, 7)
    answer = move_of(b.ask(f"TURN {other_end[0]},{other_end[1]}"))
    assert answer == four_end
    assert b.end() == 0


# ------------------------------------------------------------------ BOARD


def test_board_with_own_four_completes_five(brain):
    b = brain(*GREEDY)
    b.send("START 15")
    assert b.read() == "OK"
    # we (field 1) are black: 4 own, 4 opponent stones; (7,7) is blocked (field 3), so the only five is at 2,7
    b.send(*board_lines((3, 7, 1), (4, 7, 1), (5, 7, 1), (6, 7, 1), (3, 9, 2), (4, 9, 2), (5, 9, 2), (6, 9, 2), (7, 7, 3)))
    assert move_of(b.read()) == (2, 7)
    assert b.end() == 0


def test_board_as_white_blocks_the_five(brain):
    b = brain(*GREEDY)
    b.send("START 15")
    assert b.read() == "OK"
    # opponent (black, one stone more) has four in a column with one end at the edge
    b.send(*board_lines((0, 0, 2), (0, 1, 2), (0, 2, 2), (0, 3, 2), (9, 9, 1), (12, 3, 1), (3, 12, 1)))
    assert move_of(b.read()) == (0, 4)
    assert b.end() == 0


@pytest.mark.parametrize(
    "stones, reason",
    [
        (((1, 1, 1), (2, 2, 1)), "impossible"),  # two own stones, no opponent stone
        (((1, 1, 2), (2, 2, 2), (3, 3, 2)), "impossible"),
        (((1, 1, 1), (1, 1, 2)), "twice"),
        (((15, 1, 1), (2, 2, 2)), "off the"),
        (((0, 0, 1), (1, 0, 1), (2, 0, 1), (3, 0, 1), (4, 0, 1), (0, 5, 2), (1, 5, 2), (2, 5, 2), (3, 5, 2), (9, 9, 2)), "five"),
    ],
)
def test_impossible_board_is_an_error_and_changes_nothing(brain, stones, reason):
    b = brain(*GREEDY)
    b.send("START 15")
    assert b.read() == "OK"
    b.send(*board_lines((7, 7, 2)))  # a valid position first: we are white
    first = move_of(b.read())
    b.send(*board_lines(*stones))
    line = b.read()
    assert line.startswith("ERROR ") and reason in line
    # the earlier position is intact: both stones are still there
    assert b.ask("TURN 7,7").startswith("ERROR ")
    assert b.ask(f"TURN {first[0]},{first[1]}").startswith("ERROR ")
    assert b.end() == 0


def test_board_block_with_a_bad_line_is_rejected(brain):
    b = brain(*GREEDY)
    b.send("START 15")
    assert b.read() == "OK"
    b.send("BOARD", "7,7,1", "8,8,9", "DONE")
    assert b.read().startswith("ERROR ")
    assert move_of(b.ask("BEGIN")) == (7, 7)  # board still empty
    assert b.end() == 0


# ------------------------------------------------------------------ INFO


def test_info_is_never_answered(brain):
    b = brain(*GREEDY)
    b.send(
        "INFO timeout_turn 1000",
        "INFO timeout_match 100000",
        "INFO time_left 100000",
        "INFO max_memory 367001600",
        "INFO game_type 1",
        "INFO rule 1",
        "INFO folder /tmp/x y",
        "INFO evaluate 3,4",
        "INFO some_new_key 17",
        "INFO timeout_turn notanumber",
        "INFO",
    )
    b.expect_silence(0.5)
    assert b.ask("START 15") == "OK"
    assert b.end() == 0


def test_info_rule_changes_what_wins(brain):
    # row 7: own stones at x = 0..3 and 5; x = 4 makes six in a row
    stones = [(0, 7, 1), (1, 7, 1), (2, 7, 1), (3, 7, 1), (5, 7, 1), (0, 0, 2), (14, 0, 2), (0, 14, 2), (14, 14, 2), (7, 0, 2)]
    b = brain(*GREEDY)
    b.send("START 15", "INFO rule 0")
    assert b.read() == "OK"
    b.send(*board_lines(*stones))
    assert move_of(b.read()) == (4, 7)  # freestyle: the overline wins
    b.send("RESTART", "INFO rule 1")
    assert b.read() == "OK"
    b.send(*board_lines(*stones))
    assert move_of(b.read()) != (4, 7)  # exact five: six in a row wins nothing
    assert b.end() == 0


def test_unsupported_rule_refuses_moves_until_fixed(brain):
    b = brain(*GREEDY)
    b.send("START 15", "INFO rule 16")
    assert b.read() == "OK"
    b.expect_silence(0.2)
    line = b.ask("BEGIN")
    assert line.startswith("ERROR ") and "rule" in line
    b.send("INFO rule 4")
    assert move_of(b.ask("BEGIN")) == (7, 7)
    assert b.end() == 0


# ------------------------------------------------------------------ END / ABOUT / EOF


def test_end_exits_silently(brain):
    b = brain(*GREEDY)
    assert b.ask("START 15") == "OK"
    assert b.end(timeout=5) == 0
    assert b.rest_of_stdout() == b""


def test_eof_exits_cleanly(brain):
    b = brain(*GREEDY)
    b.send("START 15", "BEGIN")
    b.proc.stdin.close()
    assert b.read() == "OK"
    move_of(b.read())
    assert b.proc.wait(5) == 0


def test_about_is_the_first_and_only_line(brain):
    b = brain(*GREEDY)
    line = b.ask("ABOUT")  # c-gomoku-cli sends ABOUT first and takes the first line
    assert line == (
        'name="gomocup-bot", version="0.1.0", author="gomocup-bot developers", '
        'country="International", www="", engine="greedy"'
    )
    reply = parse_reply(line)
    assert isinstance(reply, m.AboutReply) and reply.get("name") == "gomocup-bot"
    b.expect_silence(0.2)
    assert b.end() == 0


def test_unknown_command_and_garbage(brain):
    b = brain(*GREEDY)
    assert b.ask("FROBNICATE 1 2") == "UNKNOWN unknown command FROBNICATE"
    assert b.ask("YXBALANCEONE 3").startswith("UNKNOWN ")
    assert b.ask("\x00\x01 \xff").startswith("UNKNOWN ")
    assert b.ask("x" * 10000).startswith("ERROR ")  # over the line cap
    assert b.ask("DONE").startswith("ERROR ")
    assert b.ask("START 15") == "OK"
    assert b.end() == 0


# ------------------------------------------------------------------ TAKEBACK / PLAY


def test_takeback(brain):
    b = brain(*GREEDY)
    assert b.ask("TAKEBACK 1,1").startswith("ERROR ")  # before START
    assert b.ask("START 15") == "OK"
    mine = move_of(b.ask("BEGIN"))
    theirs_answer = move_of(b.ask("TURN 0,0"))
    assert b.ask("TAKEBACK 5,5").startswith("ERROR ")  # empty square
    assert b.ask("TAKEBACK 0,0").startswith("ERROR ")  # not the side that moved last
    assert b.ask(f"TAKEBACK {theirs_answer[0]},{theirs_answer[1]}") == "OK"
    assert b.ask("TAKEBACK 0,0") == "OK"
    # both squares are free again, our first stone is not
    assert b.ask(f"TURN {mine[0]},{mine[1]}").startswith("ERROR ")
    move_of(b.ask("TURN 0,0"))
    assert b.end() == 0


def test_play_echoes_the_move(brain):
    b = brain(*GREEDY)
    assert b.ask("START 15") == "OK"
    assert b.ask("PLAY 10,16").startswith("ERROR ")  # off board
    assert b.ask("PLAY 10,12") == "10,12"
    assert b.ask("PLAY 10,12").startswith("ERROR ")  # now occupied
    assert b.end() == 0


# ------------------------------------------------------------------ SWAP2BOARD


def test_swap2board_stages(brain):
    b = brain(*GREEDY)
    assert b.ask("START 15") == "OK"
    b.send("SWAP2BOARD", "DONE")
    reply = parse_reply(b.read())
    assert isinstance(reply, m.MultiMoveReply) and len(reply.moves) == 3
    assert len(set(reply.moves)) == 3 and all(0 <= x < 15 and 0 <= y < 15 for x, y in reply.moves)
    b.send("SWAP2BOARD", "7,7", "8,7", "9,9", "DONE")
    fourth = move_of(b.read())
    assert fourth not in {(7, 7), (8, 7), (9, 9)}
    b.send("SWAP2BOARD", "7,7", "8,7", "9,9", "8,8", "6,6", "DONE")
    sixth = move_of(b.read())
    assert sixth not in {(7, 7), (8, 7), (9, 9), (8, 8), (6, 6)}
    b.send("SWAP2BOARD", "7,7", "8,7", "DONE")
    assert b.read().startswith("ERROR ")
    b.send("SWAP2BOARD", "7,7", "7,7", "9,9", "DONE")
    assert b.read().startswith("ERROR ")
    # SWAP2BOARD does not touch the board: BEGIN still sees an empty one
    assert move_of(b.ask("BEGIN")) == (7, 7)
    assert b.end() == 0


# ------------------------------------------------------------------ Yixin extensions


def test_yxshowinfo(brain):
    b = brain(*GREEDY)
    b.send("YXSHOWINFO")
    assert b.read() == "MESSAGE INFO MAX_THREAD_NUM 1"
    assert b.read() == "MESSAGE INFO MAX_HASH_SIZE 20"
    assert b.end() == 0


def test_yxboard_yxnbest_and_blocks(brain):
    b = brain(*GREEDY)
    assert b.ask("START 15") == "OK"
    # own (to move) open four on row 7: x = 3..6, completions at 2,7 and 7,7
    b.send("YXBOARD", "3,7,1", "4,7,1", "5,7,1", "6,7,1", "3,9,2", "4,9,2", "5,9,2", "9,3,2", "DONE")
    b.send("YXHASHCLEAR")
    b.expect_silence(0.3)  # YXBOARD and YXHASHCLEAR are not answered
    assert move_of(b.ask("YXNBEST 2")) == (2, 7)
    b.send("YXBLOCK", "2,7", "DONE")
    assert move_of(b.ask("YXNBEST 1")) == (7, 7)
    b.send("YXBLOCKUNDO", "2,7", "DONE")
    assert move_of(b.ask("YXNBEST 1")) == (2, 7)
    b.send("YXBLOCK", "2,7", "7,7", "DONE", "YXBLOCKRESET")
    assert move_of(b.ask("YXNBEST 1")) == (2, 7)
    # YXNBEST is analysis: the board was not changed, so the same answer comes again
    assert move_of(b.ask("YXNBEST 1")) == (2, 7)
    assert b.ask("YXNBEST 0").startswith("ERROR ")
    assert b.end() == 0


def test_yxshowforbid(brain):
    b = brain(*GREEDY)
    assert b.ask("YXSHOWFORBID").startswith("ERROR ")  # no board
    assert b.ask("START 15") == "OK"
    assert b.ask("YXSHOWFORBID") == "FORBID ."  # freestyle: nothing is forbidden
    b.send("INFO rule 4")
    # black (to move, field 1) stones make a double three at 7,7: (5,7),(6,7) and (7,5),(7,6)
    b.send("YXBOARD", "5,7,1", "6,7,1", "7,5,1", "7,6,1", "0,0,2", "14,0,2", "0,14,2", "14,14,2", "DONE")
    line = b.ask("YXSHOWFORBID")
    reply = parse_reply(line)
    assert isinstance(reply, m.ForbidReply)
    assert (7, 7) in reply.points
    assert line.startswith("FORBID ") and line.endswith(".") and "0707" in line
    assert b.end() == 0


def test_yxstop_when_idle_is_ignored(brain):
    b = brain(*GREEDY)
    b.send("YXSTOP", "STOP")
    b.expect_silence(0.3)
    assert b.ask("START 15") == "OK"
    assert b.end() == 0


# ------------------------------------------------------------------ CLI flags and streams


def test_logs_go_to_stderr_only(brain):
    b = brain(*GREEDY, "--log-level", "DEBUG")
    assert b.ask("START 15") == "OK"
    move_of(b.ask("BEGIN"))
    assert b.end() == 0
    assert b.rest_of_stdout() == b""
    assert "BEGIN" in b.log()


def test_log_file(brain, tmp_path):
    path = tmp_path / "brain.log"
    b = brain(*GREEDY, "--log-level", "INFO", "--log-file", str(path))
    assert b.ask("START 15") == "OK"
    assert b.end() == 0
    assert "END" in path.read_text()
    assert b.log() == ""


def test_help_and_bad_flags(brain):
    b = brain("brain", "--help")
    assert b.proc.wait(10) == 0
    out = b.rest_of_stdout().decode()
    assert "--engine" in out and "--level" in out and "--log-level" in out
    b = brain("--engine", "no-such-engine")
    assert b.proc.wait(10) == 2


NOISY_BRAIN = """
import os
import gomocup_bot.engines.greedy as greedy
real_search = greedy.GreedyEngine.search
def noisy_search(self, request, stop):
    print("stray print from an engine")
    os.write(1, b"C-level write to fd 1\\n")
    return real_search(self, request, stop)
greedy.GreedyEngine.search = noisy_search
from gomocup_bot.brain.main import main
main(["--engine", "greedy"])
"""


def test_stray_output_of_libraries_goes_to_stderr(tmp_path):
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", NOISY_BRAIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    # a long turn, so the engine itself answers (not the quick path used when END hurries a search)
    proc.stdin.write(b"START 15\r\nINFO timeout_turn 10000\r\nBEGIN\r\n")
    proc.stdin.flush()
    assert proc.stdout.readline() == b"OK\n"
    assert proc.stdout.readline() == b"7,7\n"
    out, err = proc.communicate(b"END\r\n", timeout=20)
    assert out == b""
    assert b"stray print from an engine" in err and b"C-level write to fd 1" in err
