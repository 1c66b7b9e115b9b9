"""The exact RPS recursion (Li Eq. 3) against brute force, minimax values, and RPS simulation."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest

from gomocup_bot.experiments.mnk_game import O, TIC_TAC_TOE, X, MNKGame, reachable_positions
from gomocup_bot.experiments.rps_analysis import ExactRPS, brute_force_scores, judge, simulate_rps

GAME = TIC_TAC_TOE


@pytest.fixture(scope="module")
def exact() -> ExactRPS:
    return ExactRPS(GAME)


@pytest.fixture(scope="module")
def positions() -> list:
    return sorted(reachable_positions(GAME))


def test_reachable_position_count_is_the_known_5478(positions):
    assert len(positions) == 5478


def test_exact_recursion_equals_enumerating_every_playout(exact, positions):
    rng = random.Random(7)
    playable = [p for p in positions if not GAME.is_terminal(p) and sum(c == 0 for c in p) <= 7]
    for board in rng.sample(playable, 40):
        assert exact.move_scores(board) == brute_force_scores(GAME, board)


def test_exact_recursion_on_a_hand_made_position(exact):
    # O to move; X threatens the bottom row. Only blocking at (1,2) saves O.
    board = GAME.parse("o.. x.o x.x")
    scores = exact.move_scores(board)
    assert scores == brute_force_scores(GAME, board)
    # O blocks: the rest is X at (1,0) or (1,1) with O filling the other: hand count gives -1/3
    assert scores[7] == Fraction(-1, 3)
    assert exact.minimax_move_values(board) == {1: -1, 2: -1, 4: -1, 7: 0}


def test_empty_board_is_a_draw_and_random_play_favours_x(exact):
    empty = GAME.empty_board()
    assert exact.minimax_value_x(empty) == 0
    # published random-play odds of tic-tac-toe: X wins 737/1260, O wins 121/420 (the rest are draws)
    assert exact.playout_value_x(empty) == Fraction(737, 1260) - Fraction(121, 420)


@pytest.mark.parametrize(
    "m,n,k,value",
    [(3, 3, 3, 0), (3, 3, 2, 1), (4, 3, 3, 1), (3, 4, 3, 1), (4, 4, 3, 1), (2, 2, 2, 1), (3, 2, 3, 0)],
)
def test_minimax_values_of_known_small_mnk_games(m, n, k, value):
    game = MNKGame(m, n, k)
    assert ExactRPS(game).minimax_value_x(game.empty_board()) == value


def test_paper_fig3_score_pattern_exists_with_a_losing_tie(exact, positions):
    pattern = sorted([Fraction(-2, 3), Fraction(-1, 3), Fraction(-2, 3), Fraction(-1, 3)])
    found = 0
    for board in positions:
        if GAME.is_terminal(board):
            continue
        scores = exact.move_scores(board)
        if sorted(scores.values()) == pattern:
            verdict = judge(scores, exact.minimax_move_values(board))
            if verdict.p_wrong > 0:
                found += 1
                # depth-2 (Eq. 7) repairs this kind of position
                assert judge(exact.depth2_scores(board), exact.minimax_move_values(board)).p_wrong == 0
    assert found > 0


def test_depth2_scores_take_the_opponents_best_reply(exact):
    board = GAME.parse("o.. x.o x.x")  # O to move
    d2 = exact.depth2_scores(board)
    # after O blocks at 7, X's best reply (1 or 4) leaves O an expected -1/2 in random play
    assert d2[7] == Fraction(-1, 2)
    # not blocking lets X complete the bottom row at once
    assert d2[1] == d2[2] == d2[4] == -1


def test_judge_counts_ties_uniformly():
    verdict = judge({0: 1, 1: 1, 2: 0}, {0: 0, 1: -1, 2: -1})
    assert verdict.p_wrong == 0.5 and verdict.p_losing == 0.5
    assert judge({0: 1, 1: 0}, {0: 0, 1: 0}).p_wrong == 0


def test_simulated_rps_converges_to_the_exact_scores(exact):
    board = GAME.parse("o.. x.o x.x")
    checkpoints = simulate_rps(GAME, board, 40_000, [1_000, 40_000], seed=3)
    scores = exact.move_scores(board)
    last = checkpoints[-1]
    assert last.t == 40_000
    for cell, s in scores.items():
        assert abs(last.depth1[cell] - float(s)) < 0.03  # ~10k samples per move: sd < 0.01
    assert max(last.depth2, key=last.depth2.get) == 7


def test_simulation_scores_for_o_are_from_os_point_of_view(exact):
    board = GAME.parse("xx. o.. ...")  # O to move, must block at (2,0)
    assert GAME.to_move(board) == O
    last = simulate_rps(GAME, board, 20_000, [20_000], seed=5)[-1]
    for cell, s in exact.move_scores(board).items():
        assert abs(last.depth1[cell] - float(s)) < 0.06
