"""Openings: the Gomocup offset format, the pos format, symmetry transforms and a built-in set.

An opening is a short list of stones, black first, colours alternating. Offsets are kept relative
to the board centre (`size // 2` on each axis) so one file serves every board size; an opening is
placed on a concrete board only when a game starts, and one that does not fit is an error then.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

Offset = tuple[int, int]


class OpeningError(ValueError):
    """An opening line that cannot be read or does not fit the board."""


@dataclass(frozen=True)
class Opening:
    """Stones as offsets from the centre, in play order (black first)."""

    offsets: tuple[Offset, ...]
    label: str = ""

    def squares(self, width: int, height: int) -> list[tuple[int, int]]:
        """Absolute (x, y) squares on a width×height board; raises OpeningError if a stone is off it or repeated."""
        cx, cy = width // 2, height // 2
        squares = [(cx + dx, cy + dy) for dx, dy in self.offsets]
        for x, y in squares:
            if not (0 <= x < width and 0 <= y < height):
                raise OpeningError(f"opening {self.text()} does not fit a {width}x{height} board")
        if len(set(squares)) != len(squares):
            raise OpeningError(f"opening {self.text()} repeats a square")
        return squares

    def fits(self, width: int, height: int) -> bool:
        try:
            self.squares(width, height)
        except OpeningError:
            return False
        return True

    def text(self) -> str:
        """The offset-format line (`dx,dy, dx,dy, …`); the empty opening is `-`."""
        return ", ".join(f"{dx},{dy}" for dx, dy in self.offsets) or "-"

    def transformed(self, symmetry: int) -> "Opening":
        """One of the 8 symmetries of the square around the centre (0 = identity)."""
        return Opening(tuple(_transform(o, symmetry) for o in self.offsets), self.label)


def _transform(offset: Offset, symmetry: int) -> Offset:
    dx, dy = offset
    if symmetry & 4:
        dx, dy = dy, dx
    if symmetry & 1:
        dx = -dx
    if symmetry & 2:
        dy = -dy
    return dx, dy


_OFFSET_PAIR = re.compile(r"\s*(-?\d+)\s*,\s*(-?\d+)\s*")
_POS_STONE = re.compile(r"([a-zA-Z])(\d+)")


def parse_offset_line(line: str) -> Opening:
    """`0,0, 1,0, 1,3` (spaces optional) -> Opening. Raises OpeningError on anything else."""
    numbers = [t for t in re.split(r"[,\s]+", line.strip()) if t]
    if not numbers or len(numbers) % 2:
        raise OpeningError(f"offset opening needs pairs of integers: {line!r}")
    try:
        values = [int(t) for t in numbers]
    except ValueError:
        raise OpeningError(f"offset opening needs pairs of integers: {line!r}") from None
    return Opening(tuple(zip(values[0::2], values[1::2])))


def parse_pos_line(line: str, width: int = 15, height: int | None = None) -> Opening:
    """`h8i9j10` (letter = column from `a`, number = row + 1) on a board of the given size -> Opening."""
    text = line.strip().replace(" ", "")
    stones = _POS_STONE.findall(text)
    if not stones or "".join(a + b for a, b in stones) != text:
        raise OpeningError(f"pos opening must look like h8i9j10: {line!r}")
    height = width if height is None else height
    cx, cy = width // 2, height // 2
    offsets = []
    for letter, number in stones:
        x, y = ord(letter.lower()) - ord("a"), int(number) - 1
        if not (0 <= x < width and 0 <= y < height):
            raise OpeningError(f"pos stone {letter}{number} is off a {width}x{height} board")
        offsets.append((x - cx, y - cy))
    return Opening(tuple(offsets))


def parse_line(line: str, width: int = 15, height: int | None = None) -> Opening | None:
    """Either format; None for a blank or comment (`#`) line."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    if text[0].isalpha():
        return parse_pos_line(text, width, height)
    return parse_offset_line(text)


def read_openings(lines: Iterable[str], width: int = 15, height: int | None = None) -> list[Opening]:
    """Parse an opening file's lines; errors name the line number."""
    out = []
    for number, line in enumerate(lines, 1):
        try:
            opening = parse_line(line, width, height)
        except OpeningError as exc:
            raise OpeningError(f"line {number}: {exc}") from None
        if opening is not None:
            out.append(Opening(opening.offsets, label=f"line {number}"))
    return out


def load_openings(path: str | Path, width: int = 15, height: int | None = None) -> list[Opening]:
    """Read an opening file (offset or pos format, mixed allowed, any line endings)."""
    text = Path(path).read_text(encoding="utf-8-sig", errors="replace")
    return read_openings(text.splitlines(), width, height)


# A small built-in set, chosen by hand for this project: three-stone openings with the stones close
# together and no immediate threat, in varied shapes (direct and indirect), so neither colour starts
# with a known forced win. Each is played twice with colours swapped, which cancels most first-move bias.
BUILTIN_OPENINGS: tuple[Opening, ...] = tuple(
    Opening(parse_offset_line(text).offsets, label=f"builtin {i + 1}")
    for i, text in enumerate(
        [
            "0,0, 1,0, 2,2",
            "0,0, 1,1, 3,0",
            "0,0, -1,1, 2,1",
            "0,0, 0,1, 2,-1",
            "0,0, 1,-1, 1,2",
            "0,0, 2,0, 1,2",
            "0,0, 1,1, -1,2",
            "0,0, 0,2, 2,1",
            "0,0, 1,0, -1,2",
            "0,0, 2,1, 0,3",
            "0,0, 1,2, 3,1",
            "0,0, -1,1, 1,3",
        ]
    )
)

EMPTY_OPENING = Opening((), label="empty board")


@dataclass
class OpeningBook:
    """Hands out openings for game pairs: pair i gets the i-th entry of a fixed (possibly shuffled) order.

    The order is a pure function of (openings, seed, symmetries), so a resumed tournament gives every
    pair the same opening it would have had, and both games of a pair share it.
    """

    openings: list[Opening]
    order: str = "sequential"  # or "random"
    seed: int = 0
    symmetries: bool = False  # apply a seeded random symmetry per pair

    def __post_init__(self) -> None:
        if not self.openings:
            self.openings = [EMPTY_OPENING]
        if self.order not in ("sequential", "random"):
            raise ValueError(f"opening order must be sequential or random, not {self.order!r}")

    def for_pair(self, pair_index: int, width: int | None = None, height: int | None = None) -> tuple[int, Opening]:
        """(index into `openings`, the opening as transformed for this pair).

        With symmetries on and a board size given, a symmetry that would push a stone off the board
        (possible on rectangular boards) falls back to the untransformed opening.
        """
        n = len(self.openings)
        cycle, position = divmod(pair_index, n)
        if self.order == "random":
            permutation = list(range(n))
            random.Random(f"{self.seed}:{cycle}").shuffle(permutation)
            index = permutation[position]
        else:
            index = position
        opening = self.openings[index]
        if self.symmetries:
            moved = opening.transformed(random.Random(f"{self.seed}:sym:{pair_index}").randrange(8))
            if width is None or height is None or moved.fits(width, height):
                opening = moved
        return index, opening


def iter_fitting(openings: Iterable[Opening], width: int, height: int) -> Iterator[Opening]:
    """The openings that fit a board, in order (used to filter a file for a smaller board)."""
    return (o for o in openings if o.fits(width, height))
