"""Lim's agents (numba) on positions with known answers, and the m,n,k referee."""
from __future__ import annotations

import random

import numpy as np
import pytest

from gomocup_bot.experiments import lim_kernels as K
from gomocup_bot.experiments.lim_agents import LimMCTS, LimMinimax, RandomAgent
from gomocup_bot.experiments.mnk_game import MNKGame
from gomocup_bot.experiments.mnk_match import play_game


def scratch_scores(game: MNKGame, board) -> tuple[float, float]:
    """Lim's heuristic recomputed from nothing: open windows only, 1/k per stone, +1 at k-1."""
    totals = {1: 0.0, 2: 0.0}
    for line in game.lines:
        stones = [board[c] for c in line if board[c]]
        if stones and len(set(stones)) == 1:
            c = len(stones)
            totals[stones[0]] += c / game.k + (1.0 if c == game.k - 1 else 0.0)
    return totals[1], totals[2]


def test_incremental_scores_match_a_recount_through_play_and_undo():
    game = MNKGame(7, 6, 4)
    win_cells, cell_windows, value = K.build_tables(game.width, game.height, game.k)
    rng = random.Random(3)
    for _ in range(20):
        board = np.zeros(game.size, dtype=np.int8)
        cnt = np.zeros((win_cells.shape[0], 3), dtype=np.int16)
        score = np.zeros(3)
        cells = list(range(game.size))
        rng.shuffle(cells)
        played = []
        for i, c in enumerate(cells[:25]):
            p = 1 + i % 2
            won = K.place(board, cnt, score, cell_windows, value, game.k, c, p)
            played.append((c, p))
            assert won == game.wins_with(tuple(board), c)
            assert np.allclose(score[1:], scratch_scores(game, tuple(board)))
            if won:
                break
        for c, p in reversed(played[-8:]):
            K.unplace(board, cnt, score, cell_windows, value, c, p)
            assert np.allclose(score[1:], scratch_scores(game, tuple(board)))


@pytest.mark.parametrize("m,n,k,value,depth", [(3, 3, 3, 0.0, 9), (4, 4, 4, 0.0, 16)])
def test_minimax_solves_known_draws(m, n, k, value, depth):
    game = MNKGame(m, n, k)
    agent = LimMinimax(tt_bits=22)
    agent.new_game(game)
    _, v, reached = agent.solve(game.empty_board(), 1, seconds=60)
    assert reached == depth  # searched to the end of the game: the value is exact
    assert v == value


@pytest.mark.parametrize("m,n,k", [(4, 4, 3), (4, 3, 3)])
def test_minimax_proves_known_first_player_wins(m, n, k):
    game = MNKGame(m, n, k)
    agent = LimMinimax()
    agent.new_game(game)
    _, v, _ = agent.solve(game.empty_board(), 1, seconds=30)
    assert v == K.WIN


def test_both_agents_take_a_win_and_block_a_loss():
    game = MNKGame(8, 8, 4)
    # X: three in a row on row 3 with (4,3) free; O to move must block, X to move wins there
    b = list(game.empty_board())
    for x in (1, 2, 3):
        b[3 * 8 + x] = 1
    for c in (0, 9, 63):
        b[c] = 2
    x_three = tuple(b)  # 3 X, 3 O: X to move
    for agent in (LimMinimax(), LimMCTS(seed=5)):
        agent.new_game(game)
        win = agent.choose(x_three, 1, 0.3)
        assert win in (3 * 8 + 0, 3 * 8 + 4)
    o_to_move = list(x_three)
    o_to_move[3 * 8 + 0] = 2  # O has blocked one end already; X extra stone elsewhere
    o_to_move[7 * 8 + 7] = 1
    for agent in (LimMinimax(), LimMCTS(seed=5)):
        agent.new_game(game)
        assert agent.choose(tuple(o_to_move), 2, 0.3) == 3 * 8 + 4


def test_agents_play_legal_full_games_against_random():
    game = MNKGame(5, 5, 4)
    for agent in (LimMinimax(), LimMCTS(max_nodes=200_000), LimMCTS(scaled=True, max_nodes=200_000)):
        for seed in range(3):
            rec = play_game(game, RandomAgent(seed=seed), agent, 0.02)
            assert rec.reason in ("k in a row", "board full")
            assert rec.winner != 1 or rec.reason == "k in a row"


class _Cheater:
    name = "cheater"

    def new_game(self, game):
        pass

    def choose(self, board, player, seconds):
        return next(c for c, v in enumerate(board) if v != 0) if any(board) else 0


class _Crasher:
    name = "crasher"

    def new_game(self, game):
        pass

    def choose(self, board, player, seconds):
        raise RuntimeError("boom")


def test_referee_forfeits_illegal_moves_and_crashes():
    game = MNKGame(3, 3, 3)
    rec = play_game(game, RandomAgent(seed=1), _Cheater(), 0.01)
    assert (rec.winner, rec.reason) == (1, "illegal move")
    rec = play_game(game, _Crasher(), RandomAgent(seed=1), 0.01)
    assert (rec.winner, rec.reason) == (2, "crash")
    assert rec.points_for("crasher") == -1 and rec.points_for("random") == 1
