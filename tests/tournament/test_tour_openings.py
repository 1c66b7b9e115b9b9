"""Opening formats, transforms, ordering, and the Piskvork list as test data."""
from __future__ import annotations

from pathlib import Path

import pytest

from protocol.rules import FREESTYLE
from tournament.play.openings import (
    BUILTIN_OPENINGS,
    Opening,
    OpeningBook,
    OpeningError,
    load_openings,
    parse_offset_line,
    parse_pos_line,
    read_openings,
)
from tournament.game.referee import GameReferee

PISKVORK = Path("/work/shared/data/openings/piskvork_openings.txt")


def test_offset_format_with_and_without_spaces() -> None:
    assert parse_offset_line("0,0, 1,0, 1,3").offsets == ((0, 0), (1, 0), (1, 3))
    assert parse_offset_line("0,0,-1,1,2,-2\r").offsets == ((0, 0), (-1, 1), (2, -2))
    for bad in ("0,0, 1", "a,b", "", "1,2,x,4"):
        with pytest.raises(OpeningError):
            parse_offset_line(bad)


def test_pos_format() -> None:
    # h8 is the centre of 15x15: x = 7, y = 7
    opening = parse_pos_line("h8i9j10")
    assert opening.squares(15, 15) == [(7, 7), (8, 8), (9, 9)]
    assert parse_pos_line("a1", 20).squares(20, 20) == [(0, 0)]
    for bad in ("h8 9", "8h", "z1", "h99"):
        with pytest.raises(OpeningError):
            parse_pos_line(bad)


def test_centre_is_size_div_2_and_off_board_is_refused() -> None:
    opening = parse_offset_line("0,0, 1,1")
    assert opening.squares(20, 20) == [(10, 10), (11, 11)]
    assert opening.squares(15, 10) == [(7, 5), (8, 6)]
    assert not parse_offset_line("-8,-6").fits(15, 15)
    with pytest.raises(OpeningError):
        parse_offset_line("0,0, 0,0").squares(15, 15)


def test_piskvork_file() -> None:
    openings = load_openings(PISKVORK)
    assert len(openings) == 41
    assert sum(len(o.offsets) == 3 for o in openings) == 22
    assert sum(len(o.offsets) == 5 for o in openings) == 19
    assert openings[0].offsets == ((0, 0), (1, 0), (1, 3))
    assert all(o.fits(20, 20) for o in openings)
    assert not openings[-1].fits(15, 15)  # documented: the last line only fits 20x20


def test_mixed_file_with_comments_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "o.txt"
    path.write_bytes(b"# my openings\r\n0,0, 1,1\r\n\r\nh8i9\r\n0,0,2,2")
    openings = load_openings(path)
    assert [o.offsets for o in openings] == [((0, 0), (1, 1)), ((0, 0), (1, 1)), ((0, 0), (2, 2))]
    with pytest.raises(OpeningError, match="line 2"):
        read_openings(["0,0", "oops!"])


def test_symmetries_are_the_eight_of_the_square() -> None:
    opening = parse_offset_line("0,0, 1,0, 2,1")
    images = {opening.transformed(s).offsets for s in range(8)}
    assert len(images) == 8
    assert opening.transformed(0) == opening
    for s in range(8):
        assert opening.transformed(s).offsets[0] == (0, 0)


def test_book_order_is_deterministic_and_covers_every_opening() -> None:
    openings = [parse_offset_line(f"0,0, {i},1") for i in range(1, 6)]
    seq = OpeningBook(openings)
    assert [seq.for_pair(i)[0] for i in range(7)] == [0, 1, 2, 3, 4, 0, 1]
    rnd = OpeningBook(openings, order="random", seed=3)
    first_cycle = [rnd.for_pair(i)[0] for i in range(5)]
    assert sorted(first_cycle) == [0, 1, 2, 3, 4]
    assert first_cycle == [OpeningBook(openings, order="random", seed=3).for_pair(i)[0] for i in range(5)]
    other = [OpeningBook(openings, order="random", seed=4).for_pair(i)[0] for i in range(5)]
    assert sorted(other) == [0, 1, 2, 3, 4]
    sym = OpeningBook(openings, symmetries=True, seed=1)
    assert {sym.for_pair(i, 15, 15)[1].offsets for i in range(40)} != {o.offsets for o in openings}
    assert OpeningBook([]).for_pair(5)[1].offsets == ()


def test_builtin_set_is_legal_and_quiet() -> None:
    assert len(BUILTIN_OPENINGS) >= 8
    assert len({o.offsets for o in BUILTIN_OPENINGS}) == len(BUILTIN_OPENINGS)
    for opening in BUILTIN_OPENINGS:
        for size in (15, 20):
            referee = GameReferee(size, size, FREESTYLE)
            assert not referee.place_opening(opening.squares(size, size)).game_over
        assert len(opening.offsets) % 2 == 1  # white to move after the opening, like Gomocup's
