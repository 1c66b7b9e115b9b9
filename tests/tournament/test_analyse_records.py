"""Game records for `gomocup-tournament analyse`: databases, SGF (ours and c-gomoku-cli collections),
PSQ, folders, the game selection, and bad records refused with the file and game named."""
from __future__ import annotations

from pathlib import Path

import pytest

from protocol.judge import BLACK, WHITE
from tournament.game.endings import Ending
from tournament.game.export import to_psq, to_sgf
from tournament.api.position import sgf_games
from tournament.game.record import BLACK_WON, WHITE_WON, GameRecord, MoveRecord
from tournament.analysis.records import RecordError, Selection, read_records
from tournament.results.store import Store

# black fills row 7 from x=3, white row 8: black's fifth stone (7,7) wins
FIVE_GAME = [(3, 7), (3, 8), (4, 7), (4, 8), (5, 7), (5, 8), (6, 7), (6, 8), (7, 7)]

# the head of a c-gomoku-cli file: several games in one, opening stones marked in comments
CLI_SGF = (
    "(;FF[4]GM[4]GN[1]EV[A x B]RU[0]SZ[15]PB[A]PW[B]RE[W+1]TE[White win by five connection]\n"
    ";B[hh]C[opening move];W[hg]C[opening move];B[hf]C[opening move];W[gi]C[822ms];B[ig]C[1006ms])\n\n"
    "(;FF[4]GM[4]GN[2]EV[B x A]RU[4]SZ[15]PB[B]PW[A]RE[B+1]TE[Black win by five connection]\n"
    ";B[hh]C[opening move];W[ii]C[12ms])\n"
)


def _record(moves, *, slot=0, black="mine", white="other", result=BLACK_WON, rule=0, opening=0) -> GameRecord:
    return GameRecord(black=black, white=white, width=15, height=15, rule=rule, win_length=5, result=result,
                      ending=Ending.FIVE, moves=[MoveRecord(x, y, 10) for x, y in moves], slot=slot,
                      opening_stones=opening, started="2026-11-25T10:00:00+00:00")


def _database(path: Path, records: list[GameRecord]) -> Path:
    with Store(path) as store:
        for name in {n for r in records for n in (r.black, r.white)}:
            store.add_engine(name, f"builtin:{name}")
        for r in records:
            store.record_game(r)
    return path


def test_database_games_numbered_as_exported_and_selected(tmp_path: Path) -> None:
    swapped = [(x, y) for x, y in FIVE_GAME[:8]] + [(0, 0), (7, 8)]  # white completes row 8 from x=3: (7,8)
    db = _database(tmp_path / "m.sqlite", [
        _record(FIVE_GAME, slot=0, opening=3),
        _record(swapped, slot=1, black="other", white="mine", result=WHITE_WON),
        _record(FIVE_GAME, slot=2, black="other", white="mine"),
    ])
    games = read_records([db])
    assert [g.number for g in games] == [1, 2, 3]
    first = games[0]
    assert (first.black, first.white, first.winner, first.ending, first.opening_stones) == ("mine", "other", BLACK, "five", 3)
    assert first.position.winner() == BLACK and first.label == "m.sqlite game 1"
    assert [g.number for g in read_records([db], selection=Selection(engine="mine", lost=True))] == [3]
    assert [g.number for g in read_records([db], selection=Selection(engine="mine"))] == [1, 2, 3]
    assert [g.number for g in read_records([db], selection=Selection(numbers=frozenset({2})))] == [2]
    assert games[1].loser == BLACK and games[1].colour_of("mine") == WHITE


def test_sgf_collections_psq_and_folders(tmp_path: Path) -> None:
    (tmp_path / "run.sgf").write_text(CLI_SGF)
    assert len(sgf_games(CLI_SGF)) == 2
    games = read_records([tmp_path / "run.sgf"])
    assert [(g.number, g.black, g.white, g.winner, g.opening_stones) for g in games] == [
        (1, "A", "B", WHITE, 3), (2, "B", "A", BLACK, 1)]
    assert games[1].position.rules.renju and not games[0].position.rules.renju
    ours = _record(FIVE_GAME, slot=4, opening=2)
    (tmp_path / "ours.sgf").write_text(to_sgf(ours))
    (tmp_path / "ours.psq").write_text(to_psq(ours))
    folder = read_records([tmp_path], rule="freestyle")
    assert [g.label for g in folder] == ["ours.psq game 1", "ours.sgf game 5", "run.sgf game 1", "run.sgf game 2"]
    psq, sgf = folder[0], folder[1]
    assert psq.position == sgf.position and (psq.black, psq.white, psq.winner) == ("mine", "other", BLACK)
    assert sgf.opening_stones == 2 and psq.opening_stones == 0  # a .psq file does not mark its opening
    assert read_records([tmp_path / "ours.psq"], rule="renju")[0].position.rules.renju


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("missing.sgf", None, "missing.sgf: no such file"),
        ("noise.sgf", b"\x00\x01\x02 binary", "noise.sgf: not a game record"),
        ("twice.sgf", "(;GM[4]SZ[15]RU[0];B[hh];W[ii];B[hh])", "twice.sgf: move 3 (7,7) is illegal"),
        ("rule.sgf", "(;GM[4]SZ[15]RU[99];B[hh])", "rule.sgf: unknown rule '99'"),
        ("many.sgf", "(;GM[4]GN[1]SZ[15];B[hh])(;GM[4]GN[2]SZ[15];B[hh];W[hh])", "many.sgf: game 2: move 2 (7,7) is illegal"),
        ("late.psq", "Piskvorky 15x15, 11:11, 0\n" + "".join(f"{x + 1},{y + 1},0\n" for x, y in FIVE_GAME + [(1, 1)]),
         "late.psq: move 10 (1,1) comes after the game ended"),
        ("empty", "", "empty: no game records"),
    ],
)
def test_bad_records_are_refused_naming_the_file(tmp_path: Path, name: str, content, expected: str) -> None:
    path = tmp_path / name
    if name == "empty":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(RecordError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        read_records([path])


def test_bad_database_games_and_rules(tmp_path: Path) -> None:
    db = _database(tmp_path / "bad.sqlite", [_record(FIVE_GAME, slot=0), _record([(7, 7), (8, 8), (7, 7)], slot=1)])
    with pytest.raises(RecordError, match=r"bad.sqlite: game 2: move 3 \(7,7\) is illegal"):
        read_records([db])
    with pytest.raises(RecordError, match="--rule: unknown rule 'gomoku-ninja'"):
        read_records([db], rule="gomoku-ninja")
    (tmp_path / "plain.sqlite").write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    with pytest.raises(RecordError, match="plain.sqlite: "):
        read_records([tmp_path / "plain.sqlite"])
