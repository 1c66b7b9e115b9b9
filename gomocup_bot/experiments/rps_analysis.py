"""Exact and simulated random playout search (RPS) on small m,n,k-games (Li 2018, §2–3).

Li's Eq. 3 says the expected playout score of a position is the plain average of its children's
scores, because a random playout picks every legal move with equal probability whoever moves.
Solving it backwards from terminal positions with exact fractions gives the value RPS converges to
(his Eq. 6); comparing that with minimax shows where RPS is *structurally* wrong, independent of
how many playouts it gets. Depth-2 RPS (his Eq. 7) replaces the opponent's average by a minimum.

Scores are always from the point of view of the side to move at the root ("the computer"):
+1 win, 0 draw, -1 loss.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from gomocup_bot.experiments.mnk_game import EMPTY, X, Board, MNKGame, other


class ExactRPS:
    """Exact expected playout scores and minimax values, memoised per position."""

    def __init__(self, game: MNKGame) -> None:
        self.game = game
        self._playout: dict[Board, Fraction] = {}  # expected score for X under random play
        self._minimax: dict[Board, int] = {}  # game-theoretic value for X

    # --- random playouts (Eq. 3) -------------------------------------------------------------
    def playout_value_x(self, board: Board) -> Fraction:
        """Expected result for X of a uniformly random playout from `board`."""
        cached = self._playout.get(board)
        if cached is not None:
            return cached
        game = self.game
        w = game.winner(board)
        if w:
            value = Fraction(1 if w == X else -1)
        elif EMPTY not in board:
            value = Fraction(0)
        else:
            mover = game.to_move(board)
            moves = game.legal_moves(board)
            value = sum((self.playout_value_x(game.play(board, c, mover)) for c in moves), Fraction(0)) / len(moves)
        self._playout[board] = value
        return value

    def playout_value(self, board: Board, player: int) -> Fraction:
        v = self.playout_value_x(board)
        return v if player == X else -v

    def move_scores(self, board: Board) -> dict[int, Fraction]:
        """s_i of Eq. 3: the expected RPS score of each legal move, for the side to move."""
        me = self.game.to_move(board)
        return {c: self.playout_value(self.game.play(board, c, me), me) for c in self.game.legal_moves(board)}

    def depth2_scores(self, board: Board) -> dict[int, Fraction]:
        """Eq. 7 with exact level-2 scores: the opponent picks the reply worst for us."""
        game = self.game
        me = game.to_move(board)
        scores: dict[int, Fraction] = {}
        for c in game.legal_moves(board):
            child = game.play(board, c, me)
            if game.is_terminal(child):
                scores[c] = Fraction(game.result_for(child, me))
            else:
                scores[c] = min(
                    self.playout_value(game.play(child, r, other(me)), me) for r in game.legal_moves(child)
                )
        return scores

    # --- perfect play ------------------------------------------------------------------------
    def minimax_value_x(self, board: Board) -> int:
        """Game-theoretic value for X (+1 X wins, 0 draw, -1 O wins) with perfect play."""
        cached = self._minimax.get(board)
        if cached is not None:
            return cached
        game = self.game
        w = game.winner(board)
        if w:
            value = 1 if w == X else -1
        elif EMPTY not in board:
            value = 0
        else:
            mover = game.to_move(board)
            best = -2
            for c in game.legal_moves(board):
                v = self.minimax_value_x(game.play(board, c, mover))
                v = v if mover == X else -v
                if v > best:
                    best = v
                    if best == 1:
                        break  # cannot do better than a win
            value = best if mover == X else -best
        self._minimax[board] = value
        return value

    def minimax_move_values(self, board: Board) -> dict[int, int]:
        """Perfect-play value of each legal move for the side to move."""
        me = self.game.to_move(board)
        out = {}
        for c in self.game.legal_moves(board):
            v = self.minimax_value_x(self.game.play(board, c, me))
            out[c] = v if me == X else -v
        return out


def brute_force_scores(game: MNKGame, board: Board) -> dict[int, Fraction]:
    """s_i by enumerating every random playout with its probability, no memo, no recursion trick.

    Independent of Eq. 3's averaging argument: each complete move sequence is weighted by the
    product of 1/(legal moves) along it, exactly how a uniform random playout samples it.
    """
    me = game.to_move(board)
    scores: dict[int, Fraction] = {}
    for first in game.legal_moves(board):
        total = Fraction(0)
        # explicit stack of (board, probability) so long sequences cost no recursion depth
        stack = [(game.play(board, first, me), Fraction(1))]
        while stack:
            pos, prob = stack.pop()
            if game.is_terminal(pos):
                total += prob * game.result_for(pos, me)
                continue
            moves = game.legal_moves(pos)
            mover = game.to_move(pos)
            share = prob / len(moves)
            for c in moves:
                stack.append((game.play(pos, c, mover), share))
        scores[first] = total
    return scores


@dataclass
class Checkpoint:
    """RPS statistics after `t` playouts: S_i(t) (Eq. 1) and the depth-2 estimate (Eq. 7)."""

    t: int
    depth1: dict[int, float]
    depth2: dict[int, float]


def simulate_rps(game: MNKGame, board: Board, playouts: int, checkpoints: list[int], seed: int = 1) -> list[Checkpoint]:
    """Run Li's RPS (Fig. 2) on `board` and record S_i(t) at the given playout counts.

    Each playout picks the first move i uniformly, then plays uniformly random moves to the end;
    M_i counts picks, N_i wins minus losses. The first random reply j also feeds level-2 counters,
    which is exactly the information depth-2 RPS keeps (Fig. 6b).
    """
    rng = random.Random(seed)
    me = game.to_move(board)
    moves = game.legal_moves(board)
    m1 = {i: 0 for i in moves}
    n1 = {i: 0 for i in moves}
    m2: dict[tuple[int, int], int] = {}
    n2: dict[tuple[int, int], int] = {}
    terminal_after: dict[int, int | None] = {}
    for i in moves:
        child = game.play(board, i, me)
        terminal_after[i] = game.result_for(child, me) if game.is_terminal(child) else None
    marks = sorted(set(checkpoints))
    out: list[Checkpoint] = []
    lines_through = game.lines_through
    for t in range(1, playouts + 1):
        i = rng.choice(moves)
        cells = list(board)
        cells[i] = me
        player = me
        reply = -1
        result = 0
        if any(all(cells[c] == me for c in line) for line in lines_through[i]):
            result = 1
        else:
            empties = [c for c in range(len(cells)) if cells[c] == EMPTY]
            rng.shuffle(empties)
            for c in empties:
                player = other(player)
                cells[c] = player
                if reply < 0:
                    reply = c
                if any(all(cells[q] == player for q in line) for line in lines_through[c]):
                    result = 1 if player == me else -1
                    break
        m1[i] += 1
        n1[i] += result
        if reply >= 0:
            key = (i, reply)
            m2[key] = m2.get(key, 0) + 1
            n2[key] = n2.get(key, 0) + result
        if marks and t == marks[0]:
            marks.pop(0)
            out.append(Checkpoint(t, _depth1(m1, n1), _depth2(moves, m2, n2, terminal_after)))
    return out


def _depth1(m1: dict[int, int], n1: dict[int, int]) -> dict[int, float]:
    return {i: (n1[i] / m1[i] if m1[i] else float("nan")) for i in m1}


def _depth2(moves, m2, n2, terminal_after) -> dict[int, float]:
    out = {}
    for i in moves:
        if terminal_after[i] is not None:
            out[i] = float(terminal_after[i])
            continue
        seen = [n2[k] / m2[k] for k in m2 if k[0] == i and m2[k]]
        out[i] = min(seen) if seen else float("nan")
    return out


@dataclass
class Verdict:
    """How a move selector fares on one position compared with perfect play.

    `p_wrong`: probability (over ties broken uniformly) that it picks a non-optimal move;
    `p_losing`: probability that it picks a move that loses a game perfect play would not lose.
    """

    p_wrong: float
    p_losing: float


def judge(scores: dict[int, Fraction] | dict[int, int], values: dict[int, int]) -> Verdict:
    """Compare the argmax set of `scores` (ties uniform) with the minimax `values` of the moves."""
    top = max(scores.values())
    picks = [c for c, s in scores.items() if s == top]
    best = max(values.values())
    wrong = sum(1 for c in picks if values[c] < best)
    losing = sum(1 for c in picks if values[c] == -1 and best > -1)
    return Verdict(wrong / len(picks), losing / len(picks))
