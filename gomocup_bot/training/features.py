"""Training rows from game records: each kept position's pattern-code counts, threat mask, labels.

A position is kept when its side to move has nothing forced pending: no five square for either
side, no open-four square for the mover, no four-three of the mover's the opponent cannot meet
with a four, and the generating search gave it a value short of a proven result (a position the
root's threat checks decided carries no value). Its row holds, for the mover and for the opponent,
how many empty squares carry each canonical code (`core.evaltables`), the threat mask, the colour
to move, the game's result for the mover (1 won, 0 lost, 0.5 drawn) and the search's value.

With ``average`` the code counts are the mean of this position's and the previous one's (before
the opponent's last move, the same colours as mover and opponent): the pattern part the PVS
evaluates with ``eval_avg`` (search.pvs.evaluate), so the fit is of the function the search uses.
The threat mask stays this position's, as in the search. The rows of all games are written into
one array sized for every move of the records (its unused end is never touched, so never in
memory): at half a million averaged positions the two float32 matrices take 7.3 GB, and loading
them takes no second copy.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gomocup_bot.core.board import new_board, play, to_pos
from gomocup_bot.core.classes import C_FIVE, C_FLEX4, C_FOUR, C_FOUR3, C_FOURP
from gomocup_bot.core.constants import EMPTY, M_HEIGHT, M_PAD, M_STRIDE, M_WIDTH, RULE_CARO, RULE_EXACT, RULE_FREESTYLE, RULE_RENJU
from gomocup_bot.core.evaltables import N_CANON, canonical_index, threat_mask
from gomocup_bot.training.records import GameRecord

RULE_CODES = {"freestyle": RULE_FREESTYLE, "standard": RULE_EXACT, "renju": RULE_RENJU, "caro": RULE_CARO}
WIN_BOUND = 29000  # a searched value beyond this is a proven result (search.pvs.WIN_BOUND)


@dataclass
class Rows:
    own: np.ndarray  # uint8[n, N_CANON] (float32 averaged): the mover's squares by code
    opp: np.ndarray  # uint8[n, N_CANON] (float32 averaged): the opponent's squares by code
    mask: np.ndarray  # int16[n]
    colour: np.ndarray  # int8[n]: 1 black, 2 white to move
    result: np.ndarray  # float32[n]: the game's result for the mover
    score: np.ndarray  # float32[n]: the generating search's value for the mover (NaN: none, a match game)
    game: np.ndarray  # int32[n]: the record's id (held-out splits are by game)
    ply: np.ndarray  # int16[n]: how many moves the game had made (the position's place in its record)

    def __len__(self) -> int:
        return len(self.mask)

    def select(self, part: slice | np.ndarray) -> "Rows":
        """Rows ``part`` of these: views for a slice (no copy), a copy for a boolean mask."""
        return Rows(*(getattr(self, f)[part] for f in Rows.__dataclass_fields__))


def forced(cnt_me: np.ndarray, cnt_op: np.ndarray) -> bool:
    """Is something forced pending for the side to move (a five, an open four, a four-three)?"""
    if cnt_me[C_FIVE] or cnt_op[C_FIVE] or cnt_me[C_FLEX4]:
        return True
    op_fours = cnt_op[C_FOUR] + cnt_op[C_FOURP] + cnt_op[C_FOUR3] + cnt_op[C_FLEX4]
    return bool(cnt_me[C_FOUR3] and op_fours == 0)


def _board_squares(b) -> np.ndarray:
    pad, stride = int(b.meta[M_PAD]), int(b.meta[M_STRIDE])
    w, h = int(b.meta[M_WIDTH]), int(b.meta[M_HEIGHT])
    return np.array([(y + pad) * stride + x + pad for y in range(h) for x in range(w)], dtype=np.int64)


def _counts(b, canon: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """int[2, N_CANON]: black's and white's empty squares by canonical code."""
    empty = squares[b.cells[squares] == EMPTY]
    return np.stack([np.bincount(canon[b.combo[c, empty]], minlength=N_CANON) for c in (0, 1)])


def game_rows(rec: GameRecord, average: bool = False) -> Rows:
    """The kept positions of one game (``average``: the counts averaged over two plies)."""
    canon = canonical_index()
    b = new_board(rec.size, rec.size, 5, RULE_CODES[rec.rule])
    squares = _board_squares(b)
    moves = rec.move_list()
    searched = any(v is not None for v in rec.scores)  # else a match game: its result is the label
    own, opp, mask, colour, result, score, ply = [], [], [], [], [], [], []
    previous = None
    for i, (x, y) in enumerate(moves):
        current = _counts(b, canon, squares) if average else None  # also the next ply's previous
        side = 1 + i % 2
        value = rec.scores[i] if i < len(rec.scores) else None
        if not searched and i >= rec.opening and i < len(moves) - 1:
            value = float("nan")
        if i >= rec.opening and value is not None and not abs(value) >= WIN_BOUND:
            me, op = side - 1, 2 - side
            if not forced(b.cnt[me], b.cnt[op]):
                now = (current + (current if previous is None else previous)) / 2 if average else _counts(b, canon, squares)
                own.append(now[me])
                opp.append(now[op])
                mask.append(threat_mask(b.cnt[me], b.cnt[op]))
                colour.append(side)
                result.append(0.5 if rec.winner == 0 else float(rec.winner == side))
                score.append(float(value))
                ply.append(i)
        previous = current
        play(b, to_pos(b, x, y), side)
    n = len(mask)
    kind = np.float32 if average else np.uint8  # halves when averaged
    return Rows(np.array(own, dtype=kind).reshape(n, N_CANON), np.array(opp, dtype=kind).reshape(n, N_CANON),
                np.array(mask, dtype=np.int16), np.array(colour, dtype=np.int8), np.array(result, dtype=np.float32),
                np.array(score, dtype=np.float32), np.full(n, rec.id, dtype=np.int32),
                np.array(ply, dtype=np.int16))


def rows_of(records, average: bool = False) -> Rows:
    """The kept positions of ``records``, in their order, as views of one array per field."""
    records = list(records)
    cap = sum(len(r.move_list()) for r in records)  # at most one row a move
    kind = np.float32 if average else np.uint8
    out = Rows(np.empty((cap, N_CANON), kind), np.empty((cap, N_CANON), kind), np.empty(cap, np.int16),
               np.empty(cap, np.int8), np.empty(cap, np.float32), np.empty(cap, np.float32), np.empty(cap, np.int32),
               np.empty(cap, np.int16))
    n = 0
    for r in records:
        part = game_rows(r, average)
        for f in Rows.__dataclass_fields__:
            getattr(out, f)[n:n + len(part)] = getattr(part, f)
        n += len(part)
    return out.select(slice(0, n))
