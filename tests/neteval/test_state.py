"""The kernels' incremental sums and outputs against the plain-numpy net computed from the cells."""
from __future__ import annotations

import numpy as np
import pytest

from gomocup_bot.core.board import new_board, play, take, to_pos, block
from gomocup_bot.core.constants import EMPTY, M_HEIGHT, M_NMOVES, M_WIDTH, RULE_EXACT, RULE_FREESTYLE, RULE_RENJU
from gomocup_bot.neteval import reference as R
from gomocup_bot.neteval import weights as W
from gomocup_bot.neteval.state import net_logit, net_logit_mean, net_play, net_policy, net_take, new_state

RULES = {"freestyle": RULE_FREESTYLE, "standard": RULE_EXACT, "renju": RULE_RENJU}


def _cells(b) -> np.ndarray:
    w, h = int(b.meta[M_WIDTH]), int(b.meta[M_HEIGHT])
    out = np.zeros((h, w), dtype=np.int64)
    for y in range(h):
        for x in range(w):
            out[y, x] = b.cells[to_pos(b, x, y)]
    return out


def _check(st, b, weights, net) -> None:
    cells = _cells(b)
    h, w = cells.shape
    for view in range(2):
        ref = R.sums(net, cells, view)
        for y in range(h):
            for x in range(w):
                if cells[y, x] == EMPTY:
                    assert np.array_equal(st.acc[view, to_pos(b, x, y)], ref[y, x]), (view, x, y)
        base = R.pool(weights, net, np.zeros_like(cells), view)
        assert np.array_equal(st.base[view], base)
        assert np.array_equal(st.pool[view], R.pool(weights, net, cells, view)), view


@pytest.mark.parametrize("rule", sorted(RULES))
@pytest.mark.parametrize("size", [(15, 15), (7, 5), (20, 20), (32, 9)])
def test_incremental_sums_equal_a_computation_from_the_cells(rule, size):
    weights = R.random_weights(feature=8, hidden=4, seed=hash((rule, size)) % 1000, rules=(rule,))
    _random_walk(weights, rule, size)


@pytest.mark.parametrize("rule", ["freestyle", "renju"])
@pytest.mark.parametrize("feature", [32, 45, 3])
def test_every_row_width_takes_its_vector_steps_exactly(rule, feature):
    """The kernels step through a row 32, 8 and 1 lanes at a time (`neteval.lanes`): a width of
    32 (the shipped net's) takes only the widest step, 45 all three, 3 only single lanes."""
    weights = R.random_weights(feature=feature, hidden=4, seed=feature, rules=(rule,))
    _random_walk(weights, rule, (15, 15))


def test_sums_stay_exact_with_every_entry_at_the_files_limit():
    """Four rows of ±CODEBOOK_LIMIT sum to ±32,764: the int16 accumulators must not wrap."""
    weights = R.random_weights(feature=16, hidden=4, seed=9)
    cb = weights.rules["freestyle"].codebook
    signs = np.where(np.random.default_rng(1).random(cb.shape) < 0.5, -1, 1)
    weights.rules["freestyle"].codebook = (signs * W.CODEBOOK_LIMIT).astype(np.int16)
    weights.rules["freestyle"].codebook[:, 0, :] = W.CODEBOOK_LIMIT  # the open board's row: all four lines agree
    _random_walk(weights, "freestyle", (15, 15))


def _random_walk(weights, rule, size):
    """Random moves and take-backs, the sums checked against the cells' every few steps."""
    net = weights.rules[rule]
    rng = np.random.default_rng(7)
    w, h = size
    b = new_board(w, h, 5, RULES[rule])
    st = new_state(b, weights, net)
    _check(st, b, weights, net)
    played = []
    side = 1
    for step in range(60):
        empties = [(x, y) for y in range(h) for x in range(w) if b.cells[to_pos(b, x, y)] == EMPTY]
        if played and (rng.random() < 0.35 or not empties):
            p, colour = played.pop()
            assert take(b) == p
            net_take(st, b, p, colour)
            side = colour
        elif empties:
            x, y = empties[rng.integers(len(empties))]
            p = to_pos(b, x, y)
            play(b, p, side)
            net_play(st, b, p, side)
            played.append((p, side))
            side = 3 - side
        if step % 7 == 0:
            _check(st, b, weights, net)
    _check(st, b, weights, net)
    while played:
        p, colour = played.pop()
        take(b)
        net_take(st, b, p, colour)
    _check(st, b, weights, net)


def test_a_blocked_square_is_a_wall_for_the_net():
    weights = R.random_weights(feature=6, hidden=4, seed=3)
    net = weights.rules["freestyle"]
    b = new_board(12, 12, 5, RULE_FREESTYLE)
    block(b, to_pos(b, 5, 5))
    play(b, to_pos(b, 6, 5), 1)
    st = new_state(b, weights, net)
    _check(st, b, weights, net)


def _play_random(b, st, rng, side: int) -> int:
    """A ``side`` stone on a random empty square of the 15 x 15 board, the net's state with it;
    returns the side to move next."""
    while True:
        x, y = rng.integers(15, size=2)
        p = to_pos(b, x, y)
        if b.cells[p] == EMPTY:
            break
    play(b, p, side)
    net_play(st, b, p, side)
    return 3 - side


@pytest.mark.parametrize("rule", sorted(RULES))
def test_the_heads_equal_the_numpy_reference(rule):
    weights = R.random_weights(feature=16, hidden=12, seed=11, rules=(rule,))
    net = weights.rules[rule]
    rng = np.random.default_rng(5)
    for trial in range(6):
        b = new_board(15, 15, 5, RULES[rule])
        st = new_state(b, weights, net)
        side = 1
        for _ in range(rng.integers(3, 40)):
            side = _play_random(b, st, rng, side)
        cells = _cells(b)
        for view in range(2):
            mask = int(rng.integers(0, 1 << 11))
            tables = float(rng.integers(-600, 600))
            got = float(net_logit(st, view, mask, tables))
            want = R.logit(weights, net, cells, view, mask, tables)
            assert got == pytest.approx(want, rel=1e-4, abs=1e-4)
            pol = R.policy(weights, net, cells, view)
            for y in range(15):
                for x in range(15):
                    if cells[y, x] == EMPTY:
                        assert float(net_policy(st, view, to_pos(b, x, y))) == pytest.approx(pol[y, x], rel=1e-4, abs=1e-4)


def test_the_mean_head_reads_the_mean_of_this_and_the_previous_positions_pool():
    """`net_logit_mean` against the reference on both positions' cells; at a state's first
    position (a search's root) the pool "before" is its own, so the mean is the plain head."""
    weights = R.random_weights(feature=16, hidden=12, seed=12)
    net = weights.rules["freestyle"]
    rng = np.random.default_rng(9)
    b = new_board(15, 15, 5, RULE_FREESTYLE)
    for x, y, side in ((7, 7, 1), (8, 8, 2), (6, 8, 1)):
        play(b, to_pos(b, x, y), side)
    st = new_state(b, weights, net)
    root = int(b.meta[M_NMOVES])
    for view in range(2):
        assert float(net_logit_mean(st, view, 5, 40.0, root - 1)) == pytest.approx(float(net_logit(st, view, 5, 40.0)),
                                                                                      abs=1e-6)
    side = 2
    before = _cells(b)
    for _ in range(25):
        side = _play_random(b, st, rng, side)
        cells = _cells(b)
        for view in range(2):
            mask = int(rng.integers(0, 1 << 11))
            tables = float(rng.integers(-600, 600))
            got = float(net_logit_mean(st, view, mask, tables, int(b.meta[M_NMOVES]) - 1))
            want = R.logit_mean(weights, net, cells, before, view, mask, tables)
            assert got == pytest.approx(want, rel=1e-4, abs=1e-4)
            assert want != pytest.approx(R.logit(weights, net, cells, view, mask, tables), abs=1e-3)
        before = cells


def test_a_new_net_never_gets_an_earlier_nets_empty_board_pool():
    """The empty board's pool is cached per net: a net made after another one was dropped (and
    that may reuse its id) gets its own."""
    b = new_board(15, 15, 5, RULE_FREESTYLE)
    for seed in range(30):
        weights = R.random_weights(feature=4, hidden=2, seed=seed)
        st = new_state(b, weights, weights.rules["freestyle"])
        assert np.array_equal(st.base[0], R.pool(weights, weights.rules["freestyle"], np.zeros((15, 15), np.int64), 0))
        del weights, st
