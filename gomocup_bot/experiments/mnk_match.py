"""Play refereed m,n,k games between agents, and adapt our engines to the agent interface.

The referee is the pure-Python `MNKGame` (independent of every agent's own board code): an
illegal move, an exception or a wildly late move loses the game for the agent that made it.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Protocol

from gomocup_bot.experiments.mnk_game import Board, MNKGame

log = logging.getLogger(__name__)


class Agent(Protocol):
    name: str

    def new_game(self, game: MNKGame) -> None: ...

    def choose(self, board: Board, player: int, seconds: float) -> int: ...


@dataclass
class GameRecord:
    first: str
    second: str
    winner: int  # 0 draw, 1 the first player, 2 the second
    reason: str  # "k in a row", "board full", "illegal move", "crash", "time"
    moves: list[int] = field(default_factory=list)
    think: dict[int, float] = field(default_factory=lambda: {1: 0.0, 2: 0.0})

    def points_for(self, name: str) -> int:
        """+1 if `name` won, -1 if it lost, 0 for a draw."""
        if self.winner == 0:
            return 0
        won = self.first if self.winner == 1 else self.second
        return 1 if won == name else -1


def play_game(game: MNKGame, first: Agent, second: Agent, seconds: float, late_factor: float = 5.0) -> GameRecord:
    """One game; `first` plays X. A move later than `late_factor * seconds + 1 s` forfeits."""
    agents = {1: first, 2: second}
    record = GameRecord(first.name, second.name, 0, "board full")
    for agent in agents.values():
        agent.new_game(game)
    board = game.empty_board()
    player = 1
    for _ in range(game.size):
        agent = agents[player]
        started = time.monotonic()
        try:
            cell = int(agent.choose(board, player, seconds))
        except Exception:  # a crashing agent loses, the match goes on
            log.exception("%s crashed", agent.name)
            record.winner, record.reason = 3 - player, "crash"
            return record
        spent = time.monotonic() - started
        record.think[player] += spent
        if not (0 <= cell < game.size) or board[cell] != 0:
            record.winner, record.reason = 3 - player, "illegal move"
            return record
        if spent > late_factor * seconds + 1.0:
            record.winner, record.reason = 3 - player, "time"
            return record
        board = game.play(board, cell, player)
        record.moves.append(cell)
        if game.wins_with(board, cell):
            record.winner, record.reason = player, "k in a row"
            return record
        player = 3 - player
    return record


class EngineAgent:
    """One of our engines (`gomocup_bot.engines.create_engine`) seen as an m,n,k agent.

    The game is presented as a freestyle board of the m,n size with `win_length = k`; stones are
    given in game order, as a Gomocup manager would.
    """

    def __init__(self, engine_name: str = "gomocup-bot", **options) -> None:
        from gomocup_bot.engines import create_engine

        self.engine_name = engine_name
        self.name = f"ours:{engine_name}"
        self.engine = create_engine(engine_name, **options)
        self.engine.prepare()
        self.game: MNKGame | None = None
        self.history: list[int] = []
        self.last_nodes = 0

    def new_game(self, game: MNKGame) -> None:
        from protocol.rules import FREESTYLE

        self.game = game
        self.history = []
        self.engine.new_game(game.width, game.height, FREESTYLE)

    def choose(self, board: Board, player: int, seconds: float) -> int:
        from gomocup_bot.engine import Position, SearchLimits, SearchRequest, StopFlag
        from protocol.rules import FREESTYLE

        assert self.game is not None
        w = self.game.width
        stones = self._ordered_stones(board)
        position = Position(w, self.game.height, FREESTYLE, tuple(stones), player, self.game.k)
        result = self.engine.search(SearchRequest(position, SearchLimits.from_budget(seconds, seconds * 1.5)), StopFlag())
        self.last_nodes = result.nodes
        x, y = result.move
        cell = y * w + x
        self.history.append(cell)
        return cell

    def _ordered_stones(self, board: Board) -> list[tuple[int, int, int]]:
        """Stones in game order: our own memory of the game when it matches the board, else any order."""
        w = self.game.width
        known = [c for c in self.history if board[c] != 0]
        seen = set(known)
        new = [c for c, v in enumerate(board) if v != 0 and c not in seen]
        self.history = known + new
        return [(c % w, c // w, board[c]) for c in self.history]
