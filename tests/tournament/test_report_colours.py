"""The report's points by colour and opening size, on games whose tallies are counted by hand."""
from __future__ import annotations

from tournament.game.endings import Ending
from tournament.game.record import BLACK_WON, DRAW, WHITE_WON, GameRecord
from tournament.report.tables import colour_table


def _game(black: str, white: str, result: int, stones: int) -> GameRecord:
    return GameRecord(black, white, 15, 15, 0, 5, result, Ending.FIVE if result != DRAW else Ending.FULL_BOARD,
                      opening_stones=stones)


def test_points_are_split_by_colour_and_opening_stones():
    games = [
        _game("strong", "weak", BLACK_WON, 3), _game("weak", "strong", WHITE_WON, 3),  # 3 stones: strong wins both
        _game("strong", "weak", BLACK_WON, 5), _game("weak", "strong", BLACK_WON, 5),  # 5 stones: each wins as black
        _game("weak", "strong", DRAW, 5),
    ]
    lines = colour_table(games).splitlines()
    assert lines[1].split() == ["black", "3", "white", "3", "black", "5", "white", "5"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    assert rows["strong"] == ["1/1", "1/1", "1/1", "0.5/2"]
    assert rows["weak"] == ["0/1", "0/1", "1.5/2", "0/1"]
    assert list(rows) == ["strong", "weak"]  # ranked as the standings


def test_an_empty_database_gives_no_table():
    assert colour_table([]) == ""
