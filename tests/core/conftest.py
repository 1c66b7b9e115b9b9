"""Shared helpers for the engine-core tests: text boards and point conversions."""
from __future__ import annotations

import numpy as np
import pytest

from gomocup_bot.core.board import board_from_rows, pos_x, pos_y, to_pos


def blank(width: int = 15, height: int = 15) -> list[str]:
    return ["." * width for _ in range(height)]


def put(rows: list[str], stones: list[tuple[int, int]], ch: str) -> list[str]:
    rows = list(rows)
    for x, y in stones:
        r = list(rows[y])
        r[x] = ch
        rows[y] = "".join(r)
    return rows


def points(board, arr, n) -> set[tuple[int, int]]:
    return {(int(pos_x(board, p)), int(pos_y(board, p))) for p in arr[:n]}


def buf(board) -> np.ndarray:
    return np.zeros(int(board.meta[0]) * int(board.meta[1]) + 1, dtype=np.int32)


@pytest.fixture
def make_board():
    return board_from_rows


__all__ = ["blank", "put", "points", "buf", "to_pos"]
