"""Hand-built 15x15 test positions of the four kinds Dong & Zhang's §4 describes (defence, attack,
trap, attack-vs-defence balance); their figures are not in our copy, so each position here is
built to fit the description, with the set of correct answers argued in `why`.

Diagrams are 9x9 windows placed at (3, 3) on the 15x15 board: `X` our stones (the side to move),
`O` the opponent's, `*` the correct answers (empty squares), `.` empty.
"""
from __future__ import annotations

from dataclasses import dataclass

BOARD = 15
OFFSET = 3
# far, isolated squares used to even out stone counts so the side to move is consistent
FILLERS = ((0, 0), (14, 14), (14, 0), (0, 14), (0, 7), (14, 7))


@dataclass(frozen=True)
class ThreatTest:
    name: str
    paper: str  # which figure/description of Dong & Zhang it stands for
    diagram: str
    why: str
    paper_steps: str  # the simulation count the paper reports for convergence
    paper_seconds: str

    def cells(self) -> list[tuple[int, int, str]]:
        rows = [r.replace(" ", "") for r in self.diagram.strip().splitlines()]
        out = []
        for y, row in enumerate(rows):
            for x, ch in enumerate(row):
                out.append((x + OFFSET, y + OFFSET, ch))
        return out

    def answers(self) -> set[tuple[int, int]]:
        return {(x, y) for x, y, ch in self.cells() if ch == "*"}

    def stones(self) -> tuple[tuple[tuple[int, int, int], ...], int]:
        """(stones in an alternating order, colour of the side to move)."""
        ours = [(x, y) for x, y, ch in self.cells() if ch == "X"]
        theirs = [(x, y) for x, y, ch in self.cells() if ch == "O"]
        fill = iter(FILLERS)
        # black moves first: equal counts -> black to move; one more black -> white to move
        if len(theirs) > len(ours) + 1:
            while len(theirs) > len(ours) + 1:
                ours.append(next(fill))
        while len(ours) > len(theirs):
            theirs.append(next(fill))
        if len(theirs) == len(ours) + 1:
            me, black, white = 2, theirs, ours
        else:
            me, black, white = 1, ours, theirs
        order = []
        for i in range(max(len(black), len(white))):
            if i < len(black):
                order.append((*black[i], 1))
            if i < len(white):
                order.append((*white[i], 2))
        return tuple(order), me


TESTS: tuple[ThreatTest, ...] = (
    ThreatTest(
        "defence",
        "Fig. 1, test for defence: the one move that averts an imminent loss",
        """
        .........
        .........
        .XOOOO*..
        ...X.....
        ....X....
        .........
        .........
        .........
        .........
        """,
        "O has four in a row, closed on the left by X: only the square on the right stops a five.",
        "≥ 30,000",
        "~150 s",
    ),
    ThreatTest(
        "attack",
        "Fig. 2, test for attack: the move that wins the game directly",
        """
        .........
        ..O......
        ..OXXXX*.
        ..O......
        .........
        ....O....
        .........
        .........
        .........
        """,
        "X has four in a row (closed on the left): the square on the right makes five. O's open-ended "
        "three in the column is a distraction.",
        "5,000",
        "~40 s",
    ),
    ThreatTest(
        "trap",
        "Fig. 3, recognise the trap: a broken three along a horizontal line",
        """
        .........
        .........
        .........
        ..*OO*O*.
        .........
        ...X.X...
        ....X....
        .........
        .........
        """,
        "O's broken three .OO.O. is open at both ends: if X ignores it, O fills the gap for an open four "
        "and wins two moves later. The gap and the two outer ends all stop it.",
        "≥ 30,000",
        "~150 s",
    ),
    ThreatTest(
        "balance",
        "Fig. 4, balance between defence and attack: a trap on the board, but a faster win",
        """
        .........
        .........
        ...OOO...
        .........
        .........
        .*XXX*...
        .........
        .........
        .........
        """,
        "O has an open three (it threatens an open four), but X is to move with its own open three: "
        "extending it to an open four wins first (O can only make a four, which X ignores by making five). "
        "Blocking O's three instead is not losing but throws the win away, so here only the two squares "
        "that make X's open four count as correct.",
        "≥ 30,000",
        "~150 s",
    ),
)

