"""Hand-built positions for the search tests, drawn as text: X = black, O = white, # = blocked."""
from __future__ import annotations

from gomocup_bot.engine import BLACK, WHITE, Position
from protocol.rules import FREESTYLE, Rules


def parse(rows: list[str], to_move: int, rules: Rules = FREESTYLE, k: int = 5) -> Position:
    stones = []
    for y, row in enumerate(rows):
        for x, ch in enumerate(row.replace(" ", "")):
            if ch == "X":
                stones.append((x, y, BLACK))
            elif ch == "O":
                stones.append((x, y, WHITE))
            elif ch == "#":
                stones.append((x, y, 3))
    width = len(rows[0].replace(" ", ""))
    return Position(width, len(rows), rules, tuple(stones), to_move, k)


def padded(rows: list[str], size: int = 15) -> list[str]:
    """Centre a small drawing on a size x size board."""
    h, w = len(rows), len(rows[0])
    top, left = (size - h) // 2, (size - w) // 2
    out = ["." * size for _ in range(size)]
    for y, row in enumerate(rows):
        out[top + y] = "." * left + row + "." * (size - left - w)
    return out


def shift(rows: list[str], size: int = 15) -> tuple[int, int]:
    h, w = len(rows), len(rows[0])
    return (size - w) // 2, (size - h) // 2


# X to move wins at once on (5, 2)
WIN_IN_1 = ["..........",
            "..........",
            ".XXXX.....",
            "..........",
            ".OOO......",
            "..........",
            ".......O..",
            ".........."]
WIN_IN_1_ANSWERS = {(5, 2), (0, 2)}

# O to move must block X's four at (5, 2)
BLOCK_FIVE = ["..........",
              "..........",
              "OXXXX.....",
              "..........",
              ".OO.......",
              "..........",
              "......O...",
              ".........."]
BLOCK_FIVE_ANSWERS = {(5, 2)}

# X to move (15x15): a VCF of two fours, (4,5) then (4,6); no single move
# wins sooner, and O has nothing forcing
VCF_STONES = {
    "X": [(1, 5), (2, 5), (3, 5), (4, 7), (4, 8)],
    "O": [(0, 5), (10, 1), (12, 3), (11, 11), (13, 13)],
}
VCF_FIRST_MOVES = {(4, 5)}  # the four on row 5, then (4, 6) makes an open four


def from_stones(stones: dict[str, list[tuple[int, int]]], to_move: int, size: int = 15,
                rules: Rules = FREESTYLE) -> Position:
    flat = [(x, y, BLACK) for x, y in stones["X"]] + [(x, y, WHITE) for x, y in stones["O"]]
    return Position(size, size, rules, tuple(flat), to_move, 5)


# O to move: X threatens level-3 wins from an open three; O has nothing forcing
OPEN_THREE = ["............",
              "............",
              "............",
              "...XXX......",
              "............",
              "....O.......",
              "......O.....",
              "............"]
OPEN_THREE_DEFENCES = {(2, 3), (6, 3)}


def alternating_stones(raw: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """Random squares (a hypothesis draw) as stones, black and white in turn by draw order; a
    square drawn again is skipped."""
    stones, seen = [], set()
    for i, (x, y) in enumerate(raw):
        if (x, y) not in seen:
            seen.add((x, y))
            stones.append((x, y, BLACK if i % 2 == 0 else WHITE))
    return stones
