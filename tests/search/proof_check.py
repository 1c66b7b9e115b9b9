"""Check a claimed forced win move by move, trusting no engine: an AND/OR proof over the whole board.

An engine (our brain's long search) may claim that the attacker A wins by force in a position. Its
word is not a proof: a pruned search can miss a defence. This module checks such a claim with the
independent solver's board (tests/search/threat_solver.py; no brain code): A's moves come from an
*oracle* (any function giving a move, e.g. the brain's answer), but every legal reply of the
defender D is tried, so a found proof holds whatever the oracle is. The oracle only decides how
fast a proof is found, never whether a claim is accepted.

A to move: A's five point -> won. Else the independent solver's short VCT (at most `quick_depth`
threat moves, `quick_nodes` nodes) -> won. Else the oracle's move (it must block D's five point if
D has one, and be legal), then every legal D reply, each answered the same way. D to move with a
five point of its own -> the proof fails. Results are memoised by position (hash and side to move).
The search gives up (UNKNOWN) past `max_plies` plies or `max_oracle` oracle calls.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from protocol.rules import Rules
from tests.search import threat_solver as T

WIN, FAIL, UNKNOWN = T.WIN, T.FAIL, T.UNKNOWN
Move = tuple[int, int]
# (moves so far as (x, y, colour) in play order, the colour to move) -> that side's move (x, y)
Oracle = Callable[[list[tuple[int, int, int]], int], Move]


@dataclass
class Proof:
    status: str  # WIN (the claim holds), FAIL (a defence refutes the oracle's line) or UNKNOWN
    oracle_calls: int = 0
    defender_nodes: int = 0  # D positions whose every reply was tried
    solver_nodes: int = 0
    seconds: float = 0.0
    refutation: list[Move] | None = None  # FAIL: the line (A, D, A, ...) where the proof broke
    # A's move at every position where the oracle was asked, keyed by the line from the root
    # ("x,y x,y ..."): replayed as the oracle (`strategy_oracle`), it checks the proof again
    strategy: dict[str, list[int]] | None = None


class ProofChecker:
    def __init__(self, size: int, rules: Rules, oracle: Oracle, *, quick_depth: int = 4, quick_nodes: int = 20_000,
                 max_plies: int = 40, max_oracle: int = 300) -> None:
        self.size, self.rules, self.oracle = size, rules, oracle
        self.quick_depth, self.quick_nodes = quick_depth, quick_nodes
        self.max_plies, self.max_oracle = max_plies, max_oracle

    def attacker_wins(self, moves, attacker: int) -> Proof:
        """Does `attacker`, to move after `moves` ((x, y, colour) in play order), win by force?"""
        self.b = T.ThreatBoard(self.size, self.rules, moves)
        self.moves = [tuple(m) for m in moves]
        self.memo: dict[tuple[int, int], str] = {}
        self.line: list[Move] = []
        self.proof = Proof(UNKNOWN, strategy={})
        t0 = time.monotonic()
        try:
            self.proof.status = self._attack(attacker, 0)
        except _GiveUp:
            self.proof.status = UNKNOWN
        self.proof.seconds = time.monotonic() - t0
        return self.proof

    # ------------------------------------------------------------------ the AND/OR search
    def _attack(self, a: int, plies: int) -> str:
        b = self.b
        key = (b.hash, a)
        if key in self.memo:
            return self.memo[key]
        if b.five_points(a):
            return WIN
        if self._quick_vct(a):
            self.memo[key] = WIN
            return WIN
        if plies >= self.max_plies or self.proof.oracle_calls >= self.max_oracle:
            raise _GiveUp
        self.proof.oracle_calls += 1
        x, y = self.oracle(list(self.moves), a)
        self.proof.strategy[line_key(self.line)] = [x, y]
        m = y * self.size + x
        theirs = b.five_points(3 - a)
        if not (0 <= x < self.size and 0 <= y < self.size) or b.cells[m] != T.EMPTY or b.foul(m, a) \
                or (theirs and m not in theirs):
            raise _GiveUp  # the oracle gave no usable move: no proof either way
        self._play(m, a)
        try:
            status = self._defend(a, plies + 1)
        finally:
            self._take(m)
        if status != UNKNOWN:
            self.memo[key] = status
        return status

    def _defend(self, a: int, plies: int) -> str:
        """D to move after A's move: every legal reply must lose."""
        b = self.b
        d = 3 - a
        if b.has_line_of_five(a):
            return WIN
        if b.five_points(d):
            self._fail()
            return FAIL
        self.proof.defender_nodes += 1
        mine = b.five_points(a)
        for r in range(self.size * self.size):
            if b.cells[r] != T.EMPTY or b.foul(r, d):
                continue
            if mine and r not in mine:
                continue  # A's five comes next move
            self._play(r, d)
            try:
                status = self._attack(a, plies + 1)
            finally:
                self._take(r)
            if status != WIN:
                return status
        return WIN

    def _quick_vct(self, a: int) -> bool:
        b = self.b
        b.nodes = 0
        b.node_limit = self.quick_nodes
        try:
            for depth in range(1, self.quick_depth + 1):
                status, _ = b.attack(a, depth, True)
                if status == WIN:
                    return True
        except T._OutOfNodes:
            return False
        finally:
            self.proof.solver_nodes += b.nodes
            b.node_limit = 0
        return False

    def _play(self, m: int, colour: int) -> None:
        self.b.place(m, colour)
        x, y = self.b.xy(m)
        self.moves.append((x, y, colour))
        self.line.append((x, y))

    def _take(self, m: int) -> None:
        self.b.remove(m)
        self.moves.pop()
        self.line.pop()

    def _fail(self) -> None:
        if self.proof.refutation is None:
            self.proof.refutation = list(self.line)


class _GiveUp(Exception):
    pass


def line_key(line) -> str:
    return " ".join(f"{x},{y}" for x, y in line)


def strategy_oracle(strategy: dict[str, list[int]], root_moves: int) -> Oracle:
    """An oracle that replays a recorded proof: the move stored for the line played since the
    root (the first `root_moves` moves); a line the proof never met has no move (the check gives up)."""
    def oracle(moves, colour: int) -> Move:
        move = strategy.get(line_key((x, y) for x, y, _ in moves[root_moves:]))
        if move is None:
            return (-1, -1)
        return move[0], move[1]
    return oracle
