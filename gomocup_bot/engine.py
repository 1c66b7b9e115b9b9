"""The contract between the brain session (protocol side) and any search engine.

The session owns the game state and the clock; an engine only ever sees a `Position`, a
`SearchRequest` with absolute deadlines, and a `StopFlag` it must poll. Engines run in a worker
thread (numba kernels release the GIL), so nothing here may touch trio or stdout.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Protocol, runtime_checkable

from protocol.rules import Rules

EMPTY = 0
BLACK = 1
WHITE = 2
BLOCKED = 3  # BOARD field 3 (continuous game): a square nobody may use

Move = tuple[int, int]  # (x, y): x = column, y = row, 0-based


@dataclass(frozen=True)
class Position:
    """A game position as the protocol delivers it.

    `stones` lists (x, y, colour) in the order the manager gave them (game order for every real
    manager); black moved first. `to_move` is the colour of the side the engine plays for.
    """

    width: int
    height: int
    rules: Rules
    stones: tuple[tuple[int, int, int], ...] = ()
    to_move: int = BLACK
    win_length: int = 5

    def grid(self):  # -> numpy.ndarray, imported lazily to keep the START path cheap
        """A (height, width) int8 array: 0 empty, 1 black, 2 white, 3 blocked."""
        import numpy as np

        g = np.zeros((self.height, self.width), dtype=np.int8)
        for x, y, c in self.stones:
            g[y, x] = c
        return g

    def occupied(self) -> set[Move]:
        return {(x, y) for x, y, _ in self.stones}

    def empty_squares(self) -> list[Move]:
        taken = self.occupied()
        return [(x, y) for y in range(self.height) for x in range(self.width) if (x, y) not in taken]


class StopFlag:
    """A one-element int32 numpy array that numba kernels poll; any thread may set it.

    Kernels receive `flag.array` and stop within about a millisecond once `array[0] != 0`.
    """

    def __init__(self) -> None:
        import numpy as np

        self.array = np.zeros(1, dtype=np.int32)

    def set(self) -> None:
        self.array[0] = 1

    def clear(self) -> None:
        self.array[0] = 0

    def is_set(self) -> bool:
        return bool(self.array[0])


@dataclass(frozen=True)
class SearchLimits:
    """When to stop, as absolute `time.monotonic()` instants chosen by the time manager.

    `soft_deadline`: aim to be done by then (the engine may stop earlier when the move is settled).
    `hard_deadline`: never return later than this. `max_nodes`/`max_depth`: 0 = no limit.
    `clock_free`: a finite turn and no match clock, so time saved on this move buys nothing later.
    """

    soft_deadline: float
    hard_deadline: float
    max_nodes: int = 0
    max_depth: int = 0
    clock_free: bool = False

    @classmethod
    def from_budget(cls, seconds: float, hard_seconds: float | None = None) -> "SearchLimits":
        now = time.monotonic()
        hard = seconds if hard_seconds is None else hard_seconds
        return cls(soft_deadline=now + seconds, hard_deadline=now + hard)

    def remaining(self) -> float:
        return self.hard_deadline - time.monotonic()


@dataclass(frozen=True)
class SearchInfo:
    """Progress an engine reports while searching (for `MESSAGE REALTIME …` and summaries)."""

    kind: str  # "best" | "pos" | "done" | "lost" | "refresh" | "summary"
    move: Move | None = None
    depth: int = 0
    nodes: int = 0
    winrate: float | None = None
    pv: tuple[Move, ...] = ()
    text: str = ""


@dataclass
class SearchRequest:
    position: Position
    limits: SearchLimits
    nbest: int = 1  # YXNBEST n
    excluded: frozenset[Move] = frozenset()  # YXBLOCK: root moves not to play
    report: Callable[[SearchInfo], None] | None = None  # thread-safe; None = nobody asked
    max_memory: int = 0  # bytes for the whole process; 0 = unlimited


@dataclass
class SearchResult:
    move: Move
    proven: int = 0  # +1 proven win for the mover, -1 proven loss, 0 unknown
    winrate: float | None = None
    depth: int = 0
    nodes: int = 0
    pv: tuple[Move, ...] = ()
    alternatives: list[Move] = field(default_factory=list)  # YXNBEST: best first, `move` included
    score: int | None = None  # the search's value for the mover in evaluation units (None: not searched)


@runtime_checkable
class Engine(Protocol):
    """What the brain session drives. Implementations live in `gomocup_bot.engines`.

    An engine may set a class attribute `needs_search_slot = False` when a move costs it no more
    than the server's quick fallback would (random, greedy): it then never queues for a slot.
    An engine with big search tables may offer `release_memory()`: a server session calls it
    after each move, so the server's memory follows its running searches, not its open sessions.
    """

    name: str

    def prepare(self) -> None:
        """Load or compile heavy parts (numba kernels). Called off the event loop, may be slow."""

    def new_game(self, width: int, height: int, rules: Rules) -> None:
        """Forget per-game state (trees, tables) for a new game of this size and rule."""

    def search(self, request: SearchRequest, stop: StopFlag) -> SearchResult:
        """Choose a move for `request.position.to_move`. Must poll `stop` and honour the limits.

        Must return a legal move (never an occupied, off-board, excluded-if-avoidable square).
        """
