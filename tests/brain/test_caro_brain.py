"""Caro through a real brain process (`gomocup-bot` over stdio, the default engine): under
`INFO rule 8` (caro) and `9` (caro with exact five) a five between two opponent stones is no
five, so the brain must take the real win, block only the real five, and ignore a blocked one."""
from __future__ import annotations

import pytest

from protocol import messages as m
from protocol.parser import parse_reply

FIRST_MOVE_TIMEOUT = 300.0  # a cold numba cache compiles the kernels first
# a long turn lets the engine finish loading its kernels before it must answer (with a short one a
# cold start answers with the quick fallback move instead); the positions are tactical, so the
# root checks answer at once. A cold compile took more than 57 s on a loaded CI machine.
TURN_MS = 240000


def move_of(line: str) -> tuple[int, int]:
    reply = parse_reply(line)
    assert isinstance(reply, m.MoveReply), f"expected a move, got {line!r}"
    return reply.x, reply.y


def ask_move(brain, rule: int, stones) -> tuple[int, int]:
    """A fresh default brain, `rule`, the BOARD (field 1 own, 2 opponent); its move."""
    b = brain("--log-level", "INFO")
    b.send("START 15", f"INFO timeout_turn {TURN_MS}", f"INFO rule {rule}")
    assert b.read(FIRST_MOVE_TIMEOUT) == "OK"
    b.send("BOARD", *(f"{x},{y},{f}" for x, y, f in stones), "DONE")
    move = move_of(b.read(FIRST_MOVE_TIMEOUT))
    assert b.end() == 0
    log = b.log()
    assert "answering with" not in log, log  # the engine's move, not the fallback's
    return move


def own(*xy):
    return [(x, y, 1) for x, y in xy]


def theirs(*xy):
    return [(x, y, 2) for x, y in xy]


FAKE = [(1, 3), (2, 3), (3, 3), (4, 3)]  # with stones on (0, 3) and (6, 3): (5, 3) is a blocked five
REAL = [(1, 9), (2, 9), (3, 9), (4, 9)]  # with a stone on (0, 9) only: (5, 9) is a real five
FAR = [(14, 14), (12, 14), (10, 14), (8, 14), (14, 12)]


@pytest.mark.parametrize("rule", [8, 9])
def test_caro_brain_wins_with_the_unblocked_five(brain, rule):
    stones = own(*FAKE, *REAL) + theirs((0, 3), (6, 3), (0, 9), *FAR)
    assert ask_move(brain, rule, stones) == (5, 9)


@pytest.mark.parametrize("rule", [8, 9])
def test_caro_brain_blocks_only_the_real_five(brain, rule):
    stones = theirs(*FAKE, *REAL) + own((0, 3), (6, 3), (0, 9), *FAR[:4])
    assert ask_move(brain, rule, stones) == (5, 9)


@pytest.mark.parametrize("rule, expected", [(8, {(10, 5), (10, 9)}), (0, {(5, 3)})])
def test_blocked_five_is_ignored_only_under_caro(brain, rule, expected):
    # the opponent's only four is the blocked one; our open three on column 10 makes an open four
    # (caro: a win). Freestyle: the opponent's (5, 3) is a real five and must be blocked first.
    stones = theirs(*FAKE, (7, 7), (3, 12), (12, 2)) + own((0, 3), (6, 3), (10, 6), (10, 7), (10, 8), (14, 14))
    assert ask_move(brain, rule, stones) in expected


@pytest.mark.parametrize("rule, expected", [(8, (4, 5)), (9, (5, 11))])
def test_caro_six_wins_but_not_under_caro_exact(brain, rule, expected):
    # o x x x . x x o on row 5: (4, 5) makes six -- a win under caro, nothing under caro-exact,
    # where the opponent's four on row 11 must be blocked at (5, 11) instead
    stones = own((1, 5), (2, 5), (3, 5), (5, 5), (6, 5), (0, 11)) + theirs((0, 5), (7, 5), (1, 11), (2, 11), (3, 11), (4, 11))
    assert ask_move(brain, rule, stones) == expected
