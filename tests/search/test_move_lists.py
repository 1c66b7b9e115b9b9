"""The kernels' move lists stop scanning the board once the class counts say every square they
look for is found (search/vct.py `_gen_attacks`, `_gen_replies`; search/pvs.py `gen_moves` modes
1 and 2). Checked here against a whole-board scan in plain Python over the same test, on
positions along the defence set's games (every third move: real positions of all three rules,
both sides)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from gomocup_bot.core.board import board_from_stones, to_pos
from gomocup_bot.core.classes import C_DOUBLE3, C_FIVE, C_FLEX4, C_FOUR, C_FOUR3, C_FOURP, C_THREE, C_THREEP
from gomocup_bot.core.constants import EMPTY, RULE_EXACT, RULE_FREESTYLE, RULE_RENJU
from gomocup_bot.search import pvs as K
from gomocup_bot.search import vct as T
from tests.search.defence_data import DATA

RULES = {"freestyle": RULE_FREESTYLE, "standard": RULE_EXACT, "renju": RULE_RENJU}
ATTACKS = (C_FOUR, C_FOURP, C_FOUR3)
THREES = (C_THREE, C_THREEP, C_DOUBLE3)


def _positions(rule: str, limit: int):
    """Boards after every third move of the set's positions of ``rule`` (up to ``limit`` positions)."""
    recs = [r for r in json.loads(DATA.read_text())["positions"] if r["rule"] == rule][:limit]
    for rec in recs:
        moves = [tuple(m) for m in rec["moves"]]
        for n in range(4, len(moves) + 1, 3):
            yield board_from_stones(15, 15, moves[:n], 5, RULES[rule])


def _squares(b, keep) -> list[int]:
    """Every empty on-board square, in the kernels' scan order, that ``keep(q)`` accepts."""
    out = []
    for y in range(15):
        for x in range(15):
            q = int(to_pos(b, x, y))
            if b.cells[q] == EMPTY and keep(q):
                out.append(q)
    return out


@pytest.mark.parametrize("rule", sorted(RULES))
def test_the_move_lists_hold_every_square_a_whole_board_scan_finds(rule: str) -> None:
    checked = 0
    for b in _positions(rule, 12):
        tw = T.new_work(b, np.zeros(1, dtype=np.int32), 1 << 10)
        pw = K.new_work(b, K.new_tt(1 << 14), K.default_params(), np.zeros(1, dtype=np.int32))
        for a in (1, 2):
            ai, di = a - 1, 2 - a
            near = lambda q: b.nbr[q] > 0  # noqa: E731
            for vct in (0, 1):
                tw.limits[1] = vct
                n = T._gen_attacks(b, a, 0, tw)
                classes = ATTACKS + (THREES if vct else ())
                want = _squares(b, lambda q: near(q) and b.cls[ai, q] in classes)
                assert sorted(int(q) for q in tw.moves[:n]) == sorted(want)
            n = T._gen_replies(b, a, 0, tw)
            lowest = C_FOUR if b.cnt[ai, C_FLEX4] > 0 else C_THREE
            want = _squares(b, lambda q: lowest <= b.cls[ai, q] < C_FIVE or C_FOUR <= b.cls[di, q] < C_FIVE)
            assert sorted(int(q) for q in tw.moves[:n]) == sorted(want)
            # the PVS's lists keep the scan order (the search's ties depend on it)
            for mode, keep in ((1, lambda q: C_FOUR <= b.cls[ai, q] < C_FIVE or C_FOUR <= b.cls[di, q] < C_FIVE),
                               (2, lambda q: C_FOUR <= b.cls[ai, q] < C_FIVE)):
                n = K.gen_moves(b, a, pw, 0, mode, -1)
                assert [int(q) for q in pw.moves[:n]] == _squares(b, lambda q: near(q) and keep(q)), mode
            checked += 1
    assert checked > 50
