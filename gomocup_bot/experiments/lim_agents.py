"""Lim's MCTS and minimax agents, a random agent, and our engines, behind one tiny interface.

An agent is told the game once (`new_game`) and then asked for a move on a flat board tuple
(`choose`), with a per-move time budget. The m,n,k match runner only talks to this interface, so
Lim's agents and our full brain are interchangeable in the tournament grid.
"""
from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from gomocup_bot.experiments import lim_kernels as K
from gomocup_bot.experiments.mnk_game import Board, MNKGame


@dataclass
class MoveStats:
    """What an agent did for its last move (for reports)."""

    seconds: float = 0.0
    depth: int = 0  # minimax: deepest completed iteration
    nodes: int = 0  # minimax nodes or MCTS iterations
    value: float = 0.0
    extra: dict = field(default_factory=dict)


class _Deadline:
    """Sets a StopFlag-like array after `seconds` from a timer thread (kernels poll it, GIL-free)."""

    def __init__(self, seconds: float) -> None:
        self.stop = np.zeros(1, dtype=np.int32)
        self._timer = threading.Timer(max(0.0, seconds), self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        self.stop[0] = 1

    def __enter__(self) -> "_Deadline":
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()


class _LimBase:
    def __init__(self) -> None:
        self.game: MNKGame | None = None
        self.last = MoveStats()

    def new_game(self, game: MNKGame) -> None:
        self.game = game
        self.win_cells, self.cell_windows, self.value = K.build_tables(game.width, game.height, game.k)

    def _board_array(self, board: Board) -> np.ndarray:
        return np.asarray(board, dtype=np.int8)


class LimMinimax(_LimBase):
    """Iterative-deepening alpha-beta with a bound-flag transposition table and root move ordering."""

    name = "lim-minimax"

    def __init__(self, tt_bits: int = 20, max_depth: int = 0, seed: int = 11) -> None:
        super().__init__()
        self.tt_bits = tt_bits
        self.max_depth = max_depth
        self.seed = seed

    def new_game(self, game: MNKGame) -> None:
        super().new_game(game)
        size = 1 << self.tt_bits
        rng = np.random.default_rng(self.seed)
        self.zob = rng.integers(1, np.iinfo(np.int64).max, size=(game.size, 3), dtype=np.int64).astype(np.uint64)
        self.tt_key = np.zeros(size, dtype=np.uint64)
        self.tt_val = np.zeros(size, dtype=np.float64)
        self.tt_depth = np.full(size, -1, dtype=np.int8)
        self.tt_flag = np.zeros(size, dtype=np.int8)
        self.tt_move = np.full(size, -1, dtype=np.int16)
        self.mask = np.uint64(size - 1)
        # load the kernel here, not on the move's clock (a first move spent loading it had no iteration
        # done and played the first empty square), then forget what that search stored
        order = np.arange(game.size, dtype=np.int32)
        self._search(game.empty_board(), 1, 1, np.zeros(1, dtype=np.int32), order, np.zeros(2, dtype=np.int64),
                     np.full(game.size, -3.0 * K.WIN))
        for table, empty in ((self.tt_key, 0), (self.tt_val, 0), (self.tt_depth, -1), (self.tt_flag, 0), (self.tt_move, -1)):
            table.fill(empty)

    def _search(self, board: Board, player: int, depth: int, stop: np.ndarray, order: np.ndarray,
                stats: np.ndarray, values: np.ndarray):
        """One iteration of the root search over ``order``: (cell, value, done)."""
        assert self.game is not None
        return K.minimax_root(
            self._board_array(board), player, depth, order, self.win_cells, self.cell_windows, self.value, self.game.k,
            self.zob, self.tt_key, self.tt_val, self.tt_depth, self.tt_flag, self.tt_move, self.mask,
            stop, stats, values,
        )

    def solve(self, board: Board, player: int, seconds: float = 60.0) -> tuple[int, float, int]:
        """Search without a depth cap until proven or out of time: (cell, value, depth)."""
        cell = self.choose(board, player, seconds)
        return cell, self.last.value, self.last.depth

    def choose(self, board: Board, player: int, seconds: float) -> int:
        assert self.game is not None
        started = time.monotonic()
        order = np.array([c for c in range(len(board)) if board[c] == 0], dtype=np.int32)
        best, best_value, reached = int(order[0]), 0.0, 0
        stats = np.zeros(2, dtype=np.int64)
        limit = len(order) if self.max_depth <= 0 else min(self.max_depth, len(order))
        with _Deadline(seconds) as dl:
            for depth in range(1, limit + 1):
                values = np.full(len(order), -3.0 * K.WIN)
                cell, value, done = self._search(board, player, depth, dl.stop, order, stats, values)
                if not done:
                    break
                best, best_value, reached = int(cell), float(value), depth
                if abs(value) >= K.WIN / 2:
                    break  # proven win or loss: deeper search cannot change the verdict
                order = order[np.argsort(-values, kind="stable")]  # Lim: order by last iteration
        self.last = MoveStats(time.monotonic() - started, reached, int(stats[0]), best_value)
        return best


class LimMCTS(_LimBase):
    """UCT (c = sqrt 2), full expansion, two-ply random rollout + heuristic, max-child final move."""

    name = "lim-mcts"

    def __init__(self, c_uct: float = 2 ** 0.5, max_nodes: int = 1_000_000, max_iterations: int = 0, seed: int = 1,
                 scaled: bool = False) -> None:
        super().__init__()
        self.scaled = scaled
        if scaled:
            self.name = "lim-mcts-scaled"
        self.c_uct = c_uct
        self.max_nodes = max_nodes
        self.max_iterations = max_iterations
        self.rng = random.Random(seed)

    def new_game(self, game: MNKGame) -> None:
        super().new_game(game)
        if not hasattr(self, "_pool"):
            n = self.max_nodes
            self._pool = (
                np.empty(n, np.int32), np.empty(n, np.int32), np.empty(n, np.int32), np.empty(n, np.int32),
                np.empty(n, np.int8), np.empty(n, np.int8), np.empty(n, np.float64), np.empty(n, np.float64),
            )
        self._run(game.empty_board(), 1, 1, 0, np.zeros(1, dtype=np.int32))  # load the kernel off the clock

    def _run(self, board: Board, player: int, iterations: int, seed: int, stop: np.ndarray, stats=None):
        """One MCTS search: (cell, visits, means)."""
        assert self.game is not None
        stats = np.zeros(2, dtype=np.int64) if stats is None else stats
        visits = np.zeros(len(board), dtype=np.float64)
        means = np.zeros(len(board), dtype=np.float64)
        cell = K.mcts_search(
            self._board_array(board), player, self.win_cells, self.cell_windows, self.value, self.game.k,
            self.c_uct, self.scaled, iterations, seed, *self._pool, stop, stats, visits, means,
        )
        return cell, visits, means

    def choose(self, board: Board, player: int, seconds: float) -> int:
        assert self.game is not None
        started = time.monotonic()
        stats = np.zeros(2, dtype=np.int64)
        iterations = self.max_iterations if self.max_iterations > 0 else 1 << 40
        with _Deadline(seconds) as dl:
            cell, visits, means = self._run(board, player, iterations, self.rng.randrange(1 << 30), dl.stop, stats)
        self.last = MoveStats(time.monotonic() - started, 0, int(stats[0]), float(means[cell]),
                              {"tree_nodes": int(stats[1])})
        return int(cell)


class RandomAgent:
    """Uniformly random legal moves (Lim's baseline opponent)."""

    name = "random"

    def __init__(self, seed: int = 1) -> None:
        self.rng = random.Random(seed)
        self.last = MoveStats()

    def new_game(self, game: MNKGame) -> None:
        self.game = game

    def choose(self, board: Board, player: int, seconds: float) -> int:
        return self.rng.choice([c for c, v in enumerate(board) if v == 0])


def warm_up() -> None:
    """Compile (or load from cache) every kernel on a tiny board so no timed move pays for it."""
    game = MNKGame(4, 4, 3)
    for agent in (LimMinimax(tt_bits=10), LimMCTS(max_nodes=1000, max_iterations=50)):
        agent.new_game(game)
        agent.choose(game.empty_board(), 1, 0.5)
