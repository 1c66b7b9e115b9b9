"""tools/pack_data.py: the committed match databases are packed without losing a byte."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tools import pack_data

ROOT = Path(__file__).resolve().parents[2]
PACKED_FOLDERS = [ROOT / "data" / "matches", ROOT / "data" / "defence" / "games"]


def make_db(path: Path, rows: int) -> bytes:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, result TEXT)")
        conn.executemany("INSERT INTO games (result) VALUES (?)", [("1-0" if i % 3 else "draw",) for i in range(rows)])
    conn.close()
    return path.read_bytes()


def test_pack_then_unpack_gives_the_same_bytes(tmp_path: Path) -> None:
    raw = make_db(tmp_path / "m.sqlite", 500)
    assert pack_data.main(["pack", str(tmp_path)]) == 0
    assert not (tmp_path / "m.sqlite").exists()
    archive = tmp_path / "m.sqlite.xz"
    assert archive.stat().st_size < len(raw)
    assert pack_data.read_sums(tmp_path) == {"m.sqlite": pack_data.sha256(raw)}
    assert pack_data.main(["unpack", str(tmp_path), "--to", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "m.sqlite").read_bytes() == raw
    with sqlite3.connect(tmp_path / "out" / "m.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*) FROM games").fetchone() == (500,)
    conn.close()


def test_the_files_the_tests_read_stay_unpacked(tmp_path: Path) -> None:
    kept = next(iter(pack_data.KEEP))
    raw = make_db(tmp_path / kept, 10)
    make_db(tmp_path / "other.sqlite", 10)
    pack_data.main(["pack", str(tmp_path)])
    assert (tmp_path / kept).read_bytes() == raw
    assert sorted(p.name for p in tmp_path.iterdir()) == ["SHA256SUMS", kept, "other.sqlite.xz"]


def test_unpack_refuses_bytes_that_do_not_match_the_sums(tmp_path: Path) -> None:
    make_db(tmp_path / "m.sqlite", 10)
    pack_data.main(["pack", str(tmp_path)])
    pack_data.write_sums(tmp_path, {"m.sqlite": "0" * 64})
    with pytest.raises(SystemExit, match="do not match"):
        pack_data.unpack(tmp_path / "m.sqlite.xz", tmp_path)


@pytest.mark.parametrize("folder", PACKED_FOLDERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_committed_archive_unpacks_to_its_recorded_sum(folder: Path, tmp_path: Path) -> None:
    archives = sorted(folder.glob("*.sqlite.xz"))
    sums = pack_data.read_sums(folder)
    assert archives and {a.name.removesuffix(".xz") for a in archives} == set(sums)
    for archive in archives:
        target = pack_data.unpack(archive, tmp_path)  # raises on a mismatch
        assert target.read_bytes()[:16] == b"SQLite format 3\x00"
