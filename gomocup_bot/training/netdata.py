"""Training positions for the network evaluation, from game records (`training.records`).

Every position of a game past its opening becomes a row: the cells as the side to move sees them
(0 empty, 1 own, 2 opponent), its colour, the threat mask (the value head reads it, as the search
gives it), the game's result for the mover, the generating search's value (NaN for match games,
which carry none), the move played next (the policy's target), and the tables' static value of
the same position for the same side (the yardstick the net's held-out loss is set beside).

A row is a **value** row when the position is kept by the tables' trainer's rule
(`training.features`: past the opening, nothing forced pending, a value short of a proven
result): the same positions, so the two losses compare. Every row with a next move is a
**policy** row. Games are split by a hash of (file name, record id), so a game is wholly in
training or wholly held out, whatever order the files are read in.

Boards are square, of the sizes asked for (15 × 15 unless told; other sizes are skipped and
counted); a row keeps its board's side in ``size``, its cells row-major at that size and padded
with 3 up to the largest board of the set, its move as y · size + x. The net is
invariant under the board's eight symmetries by construction (`neteval`), so no symmetric copies
are stored: each would give the same features.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gomocup_bot.core.board import new_board, play, to_pos
from gomocup_bot.core.constants import EMPTY
from gomocup_bot.core.evaltables import threat_mask
from gomocup_bot.search import pvs as K
from gomocup_bot.training.features import RULE_CODES, WIN_BOUND, forced
from gomocup_bot.training.records import GameRecord, read

SIZE = 15
HELD_OUT_MOD = 10  # a game is held out when its hash is 0 mod this


@dataclass
class NetRows:
    cells: np.ndarray  # uint8[n, S²]: 0 empty, 1 the mover's, 2 the opponent's (3: past the row's own size²)
    colour: np.ndarray  # int8[n]: 1 black, 2 white to move
    mask: np.ndarray  # int16[n]: the threat mask (core.evaltables.threat_mask)
    result: np.ndarray  # float32[n]: the game's result for the mover
    score: np.ndarray  # float32[n]: the searched value for the mover (NaN: none)
    move: np.ndarray  # int16[n]: the next move, y * size + x (-1: none)
    value_row: np.ndarray  # bool[n]: kept for the value (the tables' rule)
    table_eval: np.ndarray  # float32[n]: the tables' static value for the mover (evaluation units)
    held: np.ndarray  # bool[n]: a held-out game's
    game: np.ndarray  # int64[n]: the game's hash
    size: np.ndarray  # int8[n]: the board's side
    ply: np.ndarray  # int16[n]: the moves played before the position (-1: a cache written without it)

    def __len__(self) -> int:
        return len(self.colour)

    def select(self, part) -> "NetRows":
        return NetRows(*(getattr(self, f)[part] for f in NetRows.__dataclass_fields__))

    def save(self, path: str | Path) -> None:
        np.savez_compressed(path, **{f: getattr(self, f) for f in NetRows.__dataclass_fields__})

    @staticmethod
    def load(path: str | Path) -> "NetRows":
        with np.load(path) as z:
            n = len(z["colour"])
            side = int(round(z["cells"].shape[1] ** 0.5))
            # caches written before rows carried their size (one square board) or their ply (unknown)
            missing = {"size": np.full(n, side, dtype=np.int8), "ply": np.full(n, -1, dtype=np.int16)}
            return NetRows(*(z[f] if f in z else missing[f] for f in NetRows.__dataclass_fields__))

    def sizes(self) -> list[int]:
        """The board sides present, smallest first."""
        return sorted(int(v) for v in np.unique(self.size))

    @staticmethod
    def concat(parts: list["NetRows"]) -> "NetRows":
        width = max(p.cells.shape[1] for p in parts)
        cells = [np.pad(p.cells, ((0, 0), (0, width - p.cells.shape[1])), constant_values=3) for p in parts]
        return NetRows(np.concatenate(cells), *(np.concatenate([getattr(p, f) for p in parts])
                                                for f in list(NetRows.__dataclass_fields__)[1:]))


def game_hash(file_name: str, rec_id: int) -> int:
    return zlib.crc32(f"{Path(file_name).name}:{rec_id}".encode())


def _evaluator(b):
    params = K.default_params()
    params[K.P_EVAL_AVG] = 1  # the engine's default (search.pvs_driver.PvsConfig.eval_avg)
    return K.new_work(b, K.new_tt(1 << 12), params, np.zeros(1, dtype=np.int32))


def game_rows(rec: GameRecord, file_name: str) -> list[tuple]:
    """The rows of one game as tuples in `NetRows` field order."""
    b = new_board(rec.size, rec.size, 5, RULE_CODES[rec.rule])
    w = _evaluator(b)
    squares = np.array([to_pos(b, x, y) for y in range(rec.size) for x in range(rec.size)], dtype=np.int64)
    moves = rec.move_list()
    searched = any(v is not None for v in rec.scores)
    gh = game_hash(file_name, rec.id)
    held = gh % HELD_OUT_MOD == 0
    result_black = 0.5 if rec.winner == 0 else float(rec.winner == 1)
    out = []
    for i, (x, y) in enumerate(moves):
        side = 1 + i % 2
        if i >= rec.opening:
            me, op = side - 1, 2 - side
            value = rec.scores[i] if i < len(rec.scores) else None
            if not searched and i < len(moves) - 1:
                value = float("nan")
            keep = value is not None and not abs(value) >= WIN_BOUND and not forced(b.cnt[me], b.cnt[op])
            raw = b.cells[squares]
            cells = np.where(raw == side, 1, np.where(raw == EMPTY, 0, 2)).astype(np.uint8)
            result = result_black if side == 1 else 1.0 - result_black
            out.append((cells, side, threat_mask(b.cnt[me], b.cnt[op]), result,
                        np.nan if value is None else float(value), y * rec.size + x, keep,
                        float(K.evaluate(b, side, w)), held, gh, rec.size, i))
        play(b, to_pos(b, x, y), side)
    return out


def rows_of_files(paths: list[str], rule: str, log=print, sizes: tuple[int, ...] = (SIZE,)) -> NetRows:
    """The rows of every ``rule`` game on a board of one of ``sizes`` in ``paths``."""
    rows: list[tuple] = []
    skipped = games = 0
    for path in paths:
        for rec in read(path):
            if rec.rule != rule:
                continue
            if rec.size not in sizes:
                skipped += 1
                continue
            rows.extend(game_rows(rec, str(path)))
            games += 1
            if games % 2000 == 0:
                log(f"  {games} games, {len(rows)} positions")
    log(f"{rule}: {games} games, {len(rows)} positions ({skipped} games of other sizes skipped)")
    n = len(rows)
    cols = list(zip(*rows)) if rows else [[] for _ in NetRows.__dataclass_fields__]
    width = max((len(c) for c in cols[0]), default=SIZE * SIZE)
    cells = np.full((n, width), 3, dtype=np.uint8)
    for j, c in enumerate(cols[0]):
        cells[j, :len(c)] = c
    return NetRows(cells, np.array(cols[1], dtype=np.int8),
                   np.array(cols[2], dtype=np.int16), np.array(cols[3], dtype=np.float32),
                   np.array(cols[4], dtype=np.float32), np.array(cols[5], dtype=np.int16),
                   np.array(cols[6], dtype=bool), np.array(cols[7], dtype=np.float32), np.array(cols[8], dtype=bool),
                   np.array(cols[9], dtype=np.int64), np.array(cols[10], dtype=np.int8),
                   np.array(cols[11], dtype=np.int16))
