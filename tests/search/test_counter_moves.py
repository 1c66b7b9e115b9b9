"""The counter-move heuristic (search/pvs.py, option `counter`, on by default): a quiet move that
cut a node off is remembered as the answer to the opponent's move before it, and at the next node
that answers the same move it is tried right after the killers. Checked on real positions of the
defence set: what the search records, what the move list makes of it, and that the option off
records nothing."""
from __future__ import annotations

import json

import numpy as np

from gomocup_bot.core.board import board_from_stones, to_pos
from gomocup_bot.core.constants import EMPTY, RULE_EXACT, RULE_FREESTYLE, RULE_RENJU, WALL
from gomocup_bot.search import pvs as K
from tests.search.defence_data import DATA

RULES = {"freestyle": RULE_FREESTYLE, "standard": RULE_EXACT, "renju": RULE_RENJU}


def _position(index: int):
    """The set's ``index``-th position: (board, side to move, the last move's square)."""
    rec = json.loads(DATA.read_text())["positions"][index]
    b = board_from_stones(rec["size"], rec["size"], [tuple(m) for m in rec["moves"]], 5, RULES[rec["rule"]])
    x, y, _ = rec["moves"][-1]
    return b, rec["to_move"], int(to_pos(b, x, y))


def _work(b, counter: int):
    params = K.default_params()
    params[K.P_COUNTER] = counter
    return K.new_work(b, K.new_tt(1 << 20), params, np.zeros(1, dtype=np.int32))


def test_a_search_records_answers_to_moves_only_on_squares_it_could_play() -> None:
    for index in (0, 20, 60, 100):
        b, side, last = _position(index)
        cells_before = b.cells.copy()
        w = _work(b, 1)
        v = K.negamax(b, side, 6, -K.INF, K.INF, 1, last, w)
        assert v != K.NO_SCORE
        assert np.array_equal(b.cells, cells_before)  # the search gave every move back
        size = w.counter_moves.shape[0] // 2
        entries = [(i, int(q)) for i, q in enumerate(w.counter_moves) if q >= 0]
        assert entries, index  # a depth-6 search of a midgame has quiet cut-offs
        for i, q in entries:
            answered = i % size
            # the answer was played in the tree, so it is empty at the root; the move it answers
            # is the root's last move or one played in the tree
            assert b.cells[q] == EMPTY, (index, i, q)
            assert answered == last or b.cells[answered] == EMPTY, (index, i, q)
            assert b.cells[answered] != WALL


def test_the_option_off_records_nothing() -> None:
    b, side, last = _position(20)
    w = _work(b, 0)
    assert K.negamax(b, side, 6, -K.INF, K.INF, 1, last, w) != K.NO_SCORE
    assert (w.counter_moves == -1).all()
    assert (w.cmove == -1).all()


def test_the_move_list_ranks_the_counter_move_after_the_killers_in_quiet_nodes_only() -> None:
    b, side, _ = _position(60)
    w = _work(b, 1)
    ply = 3
    n = K.gen_moves(b, side, w, ply, 0, -1)
    plain = dict(zip(w.moves[ply * K.MAX_MOVES:ply * K.MAX_MOVES + n].tolist(),
                     w.scores[ply * K.MAX_MOVES:ply * K.MAX_MOVES + n].tolist()))
    weakest = min(plain, key=plain.get)
    w.cmove[ply] = weakest
    w.killers[2 * ply] = max(plain, key=plain.get)
    n2 = K.gen_moves(b, side, w, ply, 0, -1)
    scored = dict(zip(w.moves[ply * K.MAX_MOVES:ply * K.MAX_MOVES + n2].tolist(),
                      w.scores[ply * K.MAX_MOVES:ply * K.MAX_MOVES + n2].tolist()))
    assert set(scored) == set(plain)
    for q, s in scored.items():
        if q == weakest:
            assert s == plain[q] + (1 << 19)
        elif q == w.killers[2 * ply]:
            assert s == plain[q] + (1 << 20)
        else:
            assert s == plain[q]
    ranked = sorted(scored, key=scored.get, reverse=True)
    assert ranked[:2] == [w.killers[2 * ply], weakest]
    # the quiescence's list of fours has no such bonus
    n4 = K.gen_moves(b, side, w, ply, 2, -1)
    for i in range(n4):
        q = int(w.moves[ply * K.MAX_MOVES + i])
        assert q != weakest or w.scores[ply * K.MAX_MOVES + i] < (1 << 19)
