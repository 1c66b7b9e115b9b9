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


def test_the_html_report_shows_the_same_tallies_escaped():
    from tournament.report.html import render_html, summary

    games = [
        _game("a<b", "weak", BLACK_WON, 3), _game("weak", "a<b", BLACK_WON, 3),
        _game("weak", "a<b", DRAW, 5),
    ]
    data = summary(games, None)["by_colour"]
    assert data["columns"] == [{"colour": "black", "stones": 3}, {"colour": "white", "stones": 3},
                               {"colour": "black", "stones": 5}, {"colour": "white", "stones": 5}]
    rows = {r["name"]: r["cells"] for r in data["rows"]}
    assert rows["a<b"] == [[1.0, 1], [0.0, 1], None, [0.5, 1]]
    assert rows["weak"] == [[1.0, 1], [0.0, 1], [0.5, 1], None]
    page = render_html(summary(games, None), "colours")
    table = page[page.index('<table id="by-colour">'):]
    table = table[:table.index("</table>")]
    assert "a&lt;b" in table and "a<b" not in table
    assert "<td>0.5/1 (50 %)</td>" in table and table.count("<td>-</td>") == 2
