"""Game records for training: one JSON object a line, compact enough to commit.

A record holds what the evaluation's training needs and nothing it can recompute: the rule and
board size, how many leading stones were the opening (not chosen by the engine), the moves as two
letters each (``a`` = 0 … column then row), the value the generating search gave each move for the
side that made it (evaluation units; ``None`` where the root's threat checks chose the move
without a search, or inside the opening), and the result. Positions are rebuilt from the moves.

Files are plain JSON lines while a generator appends to them (resumable: a record's ``id``
says which game of the seeded sequence it is) and may be gzipped for the repository; `read`
takes either.
"""
from __future__ import annotations

import gzip
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator

RULES = {"freestyle": 0, "standard": 1, "renju": 4, "caro": 8}


@dataclass
class GameRecord:
    id: int
    rule: str  # a key of RULES
    size: int
    opening: int  # leading moves that were the opening
    moves: str  # two letters a move: column, row
    scores: list[int | None] = field(default_factory=list)  # per move, the mover's searched value
    winner: int = 0  # 1 black, 2 white, 0 draw
    end: str = ""  # five | proven (a proven result stopped the game) | full
    nodes: int = 0  # the search's node budget per move
    source: str = ""  # who played it (e.g. "selfplay 7e0faed")

    def move_list(self) -> list[tuple[int, int]]:
        return [(ord(self.moves[i]) - 97, ord(self.moves[i + 1]) - 97) for i in range(0, len(self.moves), 2)]

    def to_line(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))


def encode_moves(moves: list[tuple[int, int]]) -> str:
    return "".join(chr(97 + x) + chr(97 + y) for x, y in moves)


class RecordError(ValueError):
    """A record line that is not a game record (the message says which file and line)."""


def parse_line(line: str, where: str = "") -> GameRecord:
    try:
        data = json.loads(line)
        rec = GameRecord(**data)
    except (json.JSONDecodeError, TypeError) as exc:
        raise RecordError(f"{where}: not a game record ({exc})") from None
    if rec.rule not in RULES or len(rec.moves) % 2 or not 5 <= rec.size <= 32:
        raise RecordError(f"{where}: bad rule, size or moves in record {rec.id}")
    return rec


def read(path: str | Path) -> Iterator[GameRecord]:
    """The records of a file (``.gz`` read as gzip). A truncated last line -- an interrupted
    append -- is skipped; any other bad line raises `RecordError`."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            yield parse_line(line, f"{path}:{i + 1}")
        except RecordError:
            if i >= len(lines) - 2 and not line.endswith("}"):
                return  # the generator was stopped mid-write
            raise
