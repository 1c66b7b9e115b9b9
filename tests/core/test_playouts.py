"""Playouts: results and ply counts are consistent with the rules, the board is restored, the stop
flag is honoured, and the outcome statistics behave as known games say."""
from __future__ import annotations

import numpy as np

from gomocup_bot.core.board import HISTORY_FIELDS, board_from_rows, new_board, to_pos
from gomocup_bot.core.constants import BLACK, RULE_FREESTYLE, WHITE
from gomocup_bot.core.playouts import KIND_HEAVY, KIND_LIGHT, heavy_playout, light_playout, light_work_size, playout_batch
from gomocup_bot.core.rng import new_rng

from .conftest import blank, put


def snapshot(board):
    return [a.copy() for a in board]


def same(board, snap):
    """Everything equal except the stack's unused tail (unmake does not wipe it)."""
    return all(np.array_equal(a, b) for a, b, name in zip(board, snap, board._fields) if name not in HISTORY_FIELDS)


def run(board, colour, kind, count, max_plies=0, seed=1, stop=None):
    stats = np.zeros(5)
    stop = np.zeros(1, dtype=np.int32) if stop is None else stop
    done = playout_batch(board, colour, kind, max_plies, 1.0, count, stop, new_rng(seed), stats)
    return done, stats


def test_light_playouts_on_tictactoe_match_known_odds():
    # uniformly random tic-tac-toe: first player wins ~58.5 %, second ~28.8 %, draws ~12.7 %
    board = new_board(3, 3, 3)
    done, stats = run(board, BLACK, KIND_LIGHT, 20000)
    assert done == 20000
    # on an empty board the first move is the centre (the only candidate), then uniform near stones
    # (everything is within distance 2 on 3x3): X wins more than O, draws exist, plies within 5..9
    assert stats[0] > stats[1] > 0 and stats[2] > 0
    assert 5 * done <= stats[3] <= 9 * done


def test_playouts_restore_the_board_and_count_plies():
    board, _ = board_from_rows(put(put(blank(), [(7, 7)], "x"), [(8, 8)], "o"))
    snap = snapshot(board)
    rng = new_rng(5)
    work = np.empty(light_work_size(15, 15), dtype=np.uint64)
    cand = np.empty(226, dtype=np.int32)
    for _ in range(50):
        winner, plies = light_playout(board, BLACK, rng, work, cand)
        assert winner in (0, BLACK, WHITE) and 1 <= plies <= 223
        if winner:  # black moves on odd plies
            assert (winner == BLACK) == (plies % 2 == 1)
        winner, plies, value = heavy_playout(board, BLACK, 0, 1.0, rng, cand)
        assert winner in (0, BLACK, WHITE) and (winner == BLACK) == (value == 1.0)
        assert same(board, snap)


def test_heavy_playout_takes_the_win_and_blocks_the_five():
    board, _ = board_from_rows(put(put(blank(), [(3, 3), (4, 3), (5, 3), (6, 3)], "x"), [(3, 5), (4, 5), (5, 5)], "o"))
    cand = np.empty(226, dtype=np.int32)
    for seed in range(20):
        winner, plies, value = heavy_playout(board, BLACK, 0, 1.0, new_rng(seed), cand)
        assert (winner, plies, value) == (BLACK, 1, 1.0)
    # with the four closed (white on (2,3)) white to move must block on (7,3): black cannot win on ply 2
    board, _ = board_from_rows(put(put(blank(), [(3, 3), (4, 3), (5, 3), (6, 3)], "x"), [(2, 3), (3, 5), (4, 5), (5, 5)], "o"))
    for seed in range(20):
        winner, plies, _ = heavy_playout(board, WHITE, 0, 1.0, new_rng(seed), cand)
        assert plies > 2 or winner != BLACK


def test_depth_limited_playout_returns_bounded_value():
    board, _ = board_from_rows(put(put(blank(), [(7, 7), (8, 7)], "x"), [(7, 8)], "o"))
    done, stats = run(board, WHITE, KIND_HEAVY, 200, max_plies=3)
    assert done == 200 and stats[3] == 600 and stats[2] == 200
    assert -200 <= stats[4] <= 200


def test_stop_flag_stops_a_batch():
    board = new_board(15, 15)
    done, _ = run(board, BLACK, KIND_LIGHT, 10**9, stop=np.ones(1, dtype=np.int32))
    assert done == 0


def test_same_seed_same_statistics():
    board = new_board(9, 9, 5, RULE_FREESTYLE)
    assert np.array_equal(run(board, BLACK, KIND_LIGHT, 300, seed=7)[1], run(board, BLACK, KIND_LIGHT, 300, seed=7)[1])
    assert np.array_equal(run(board, BLACK, KIND_HEAVY, 30, seed=7)[1], run(board, BLACK, KIND_HEAVY, 30, seed=7)[1])


def test_stop_flag_set_from_another_thread_ends_a_long_batch_quickly():
    import threading
    import time

    board = new_board(15, 15)
    stop = np.zeros(1, dtype=np.int32)
    run(board, BLACK, KIND_LIGHT, 10)  # compiled
    timer = threading.Timer(0.2, lambda: stop.__setitem__(0, 1))
    t0 = time.monotonic()
    timer.start()
    done, _ = run(board, BLACK, KIND_LIGHT, 10**9, stop=stop)
    elapsed = time.monotonic() - t0
    assert 0 < done < 10**9 and elapsed < 2.0
