"""The PVS on the network evaluation: its static value is the net's, and a search's thousands of
moves and take-backs leave the net's state exactly as a fresh computation has it."""
from __future__ import annotations

import numba
import numpy as np
import pytest

from gomocup_bot.core.board import board_from_stones
from gomocup_bot.core.constants import BLACK, M_NMOVES
from gomocup_bot.search import pvs as K
from gomocup_bot.search.bench import midgame_boards
from gomocup_bot.neteval import reference as R
from gomocup_bot.neteval.state import net_policy, net_value, net_value_mean, new_state
from protocol.rules import FREESTYLE
from tests.search import threat_solver as TS


def test_the_policy_weight_moves_the_ordering_scores_by_the_heads_logits():
    weights = R.random_weights(feature=8, hidden=8, seed=7)
    net = weights.rules["freestyle"]
    board, side = midgame_boards()[2]
    scores = {}
    for policy in (0, 1000):
        st = new_state(board, weights, net)
        w = _work(board, st, policy)
        n = K.gen_moves(board, side, w, 0, 0, -1)
        scores[policy] = {int(w.moves[i]): int(w.scores[i]) for i in range(n)}
    assert scores[0].keys() == scores[1000].keys() and len(scores[0]) > 10
    for q, sc in scores[0].items():
        assert scores[1000][q] == sc + int(1000 * float(net_policy(st, side - 1, q))), q


def _work(board, st, policy=0, avg=0):
    params = K.default_params()
    params[K.P_NET] = 1
    params[K.P_NET_POLICY] = policy
    params[K.P_NET_AVG] = avg
    return K.new_work(board, K.new_tt(1 << 16), params, np.zeros(1, dtype=np.int32), st)


@pytest.mark.parametrize("policy", [0, 500])
def test_a_search_leaves_the_net_state_as_it_found_it(policy):
    """With the policy head read in the ordering (``policy``) or not."""
    weights = R.random_weights(feature=8, hidden=8, seed=5)
    net = weights.rules["freestyle"]
    for board, side in midgame_boards()[:4]:
        st = new_state(board, weights, net)
        w = _work(board, st, policy)
        v = K.negamax(board, side, 5, -K.INF, K.INF, 0, -1, w)
        assert v != K.NO_SCORE and w.counter[K.K_NODES] > 200
        fresh = new_state(board, weights, net)
        assert np.array_equal(st.pool, fresh.pool)
        empty = board.cells == 0
        assert np.array_equal(st.acc[:, empty], fresh.acc[:, empty])


def test_the_static_value_is_the_nets_read_with_the_threat_mask_and_the_tables_value():
    weights = R.random_weights(feature=8, hidden=8, seed=6)
    net = weights.rules["freestyle"]
    board, side = midgame_boards()[5]
    st = new_state(board, weights, net)
    w = _work(board, st)
    me = side - 1
    tables = K.new_work(board, K.new_tt(1 << 16), K.default_params(), np.zeros(1, dtype=np.int32))
    assert tables.params[K.P_NET] == 0
    table_value = K.evaluate(board, side, tables)
    want = int(net_value(st, me, K.threat_mask(board, me, 1 - me), table_value))
    want = max(-(K.WIN_BOUND - 1), min(K.WIN_BOUND - 1, want))
    assert K.evaluate(board, side, w) == want != table_value


def test_with_net_avg_the_static_value_below_the_root_reads_the_mean_pool():
    """``P_NET_AVG``: a node below the search's root is valued on the mean of its pool and its
    parent's; the root itself (its parent's pool unknown to the state) on its own."""
    weights = R.random_weights(feature=8, hidden=8, seed=6)
    net = weights.rules["freestyle"]
    board, side = midgame_boards()[5]
    st = new_state(board, weights, net)
    w = _work(board, st, avg=1)
    plain = _work(board, new_state(board, weights, net))
    assert K.evaluate(board, side, w) == K.evaluate(board, side, plain)
    tables = K.new_work(board, K.new_tt(1 << 16), K.default_params(), np.zeros(1, dtype=np.int32))
    n = K.gen_moves(board, side, w, 0, 0, -1)
    differ = 0
    for i in range(n):
        q = np.int64(w.moves[i])
        K._play(board, q, side, w)
        other = 3 - side
        mask = K.threat_mask(board, 2 - side, side - 1)
        want = int(net_value_mean(st, other - 1, mask, K.evaluate(board, other, tables), int(board.meta[M_NMOVES]) - 1))
        want = max(-(K.WIN_BOUND - 1), min(K.WIN_BOUND - 1, want))
        got = K.evaluate(board, other, w)
        assert got == want
        differ += got != int(net_value(st, other - 1, mask, K.evaluate(board, other, tables)))
        K._take(board, side, w)
    assert n > 10 and differ > n // 2


def test_a_search_on_the_tables_carries_no_net_and_searches_as_with_the_net_switched_off():
    """Without a state the work holds `NoNet`, another numba type (the tables' kernels pass no net
    arrays); its searches visit the same nodes to the same values as a work holding a real state
    with the net off."""
    weights = R.random_weights(feature=8, hidden=8, seed=8)
    for board, side in midgame_boards()[:4]:
        tables = K.new_work(board, K.new_tt(1 << 16), K.default_params(), np.zeros(1, dtype=np.int32))
        off = K.new_work(board, K.new_tt(1 << 16), K.default_params(), np.zeros(1, dtype=np.int32),
                         new_state(board, weights, weights.rules["freestyle"]))
        assert off.params[K.P_NET] == 0 and numba.typeof(tables.net) != numba.typeof(off.net)
        v = K.negamax(board, side, 5, -K.INF, K.INF, 0, -1, tables)
        assert v == K.negamax(board, side, 5, -K.INF, K.INF, 0, -1, off) != K.NO_SCORE
        assert tables.counter[K.K_NODES] == off.counter[K.K_NODES] > 200


def test_the_leaf_vcf_scores_a_win_by_fours_the_horizons_one_four_misses():
    """``P_LEAF_VCF``: black (to move) wins here by a VCF nine plies long, which the independent
    solver of tests/search/threat_solver.py proves; the horizon's one four and its block do not
    show it, so a search of no depth stands pat, and with the threat search's VCF at the horizon
    scores a win. The solver plays on the board only: the net's state after searches that call it
    is still a fresh computation's."""
    stones = [(8, 9, 1), (9, 10, 2), (11, 10, 1), (8, 6, 2), (10, 4, 1), (11, 7, 2), (10, 11, 1), (9, 4, 2),
              (5, 10, 1), (9, 9, 2), (8, 8, 1), (3, 10, 2), (5, 5, 1), (3, 5, 2), (5, 9, 1), (4, 6, 2),
              (4, 11, 1), (10, 10, 2), (8, 7, 1), (6, 8, 2), (9, 6, 1), (10, 9, 2), (9, 8, 1), (3, 9, 2),
              (7, 5, 1), (4, 7, 2), (5, 3, 1), (6, 11, 2)]
    proof = TS.solve(15, FREESTYLE, stones, TS.BLACK, 10, vct=False)
    assert proof.status == TS.WIN and proof.length >= 3
    board = board_from_stones(15, 15, stones)
    weights = R.random_weights(feature=8, hidden=8, seed=9)
    net = weights.rules["freestyle"]
    values = {}
    for budget in (0, 5000):
        st = new_state(board, weights, net)
        w = _work(board, st)
        w.params[K.P_LEAF_VCF] = budget
        values[budget] = K.negamax(board, BLACK, 0, -K.INF, K.INF, 0, -1, w)
        assert (w.counter[K.K_VCT_WINS] > 0) == (budget > 0)
        assert K.negamax(board, 3 - BLACK, 3, -K.INF, K.INF, 0, -1, w) != K.NO_SCORE  # white to move: many leaves
        fresh = new_state(board, weights, net)
        assert np.array_equal(st.pool, fresh.pool)
        empty = board.cells == 0
        assert np.array_equal(st.acc[:, empty], fresh.acc[:, empty])
    assert -K.WIN_BOUND < values[0] < K.WIN_BOUND
    assert values[5000] >= K.WIN_BOUND
