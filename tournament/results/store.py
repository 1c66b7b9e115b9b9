"""Results in SQLite: one transaction per finished game, WAL journal, so a killed run resumes exactly.

A game is written only once it is over (moves, per-move times, ending, reason), inside a single
transaction, and its plan slot is UNIQUE: a game killed half-way leaves no trace and is replayed on
resume, and no slot can ever be counted twice. The tournament's settings live in `meta` so
`--resume` and `report` need nothing but the database file.
"""
from __future__ import annotations

import datetime as dt
import json
import sqlite3
from pathlib import Path
from typing import Any

from tournament.game.endings import Ending
from tournament.game.record import GameRecord, MoveRecord

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS engines (
    name  TEXT PRIMARY KEY,
    spec  TEXT NOT NULL,
    added TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id              INTEGER PRIMARY KEY,
    slot            INTEGER NOT NULL UNIQUE,
    pair_index      INTEGER NOT NULL,
    black           TEXT NOT NULL REFERENCES engines(name),
    white           TEXT NOT NULL REFERENCES engines(name),
    result          INTEGER NOT NULL CHECK (result IN (0, 1, 2)),
    ending          TEXT NOT NULL,
    detail          TEXT NOT NULL,
    width           INTEGER NOT NULL,
    height          INTEGER NOT NULL,
    rule            INTEGER NOT NULL,
    win_length      INTEGER NOT NULL,
    opening         TEXT NOT NULL,
    opening_index   INTEGER NOT NULL,
    opening_stones  INTEGER NOT NULL,
    moves           TEXT NOT NULL,  -- JSON [[x, y, ms], ...], opening stones first
    started         TEXT NOT NULL,
    duration        REAL NOT NULL,
    black_ms        INTEGER NOT NULL,
    white_ms        INTEGER NOT NULL,
    black_peak_rss  INTEGER NOT NULL,
    white_peak_rss  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS games_players ON games (black, white);
"""


class StoreError(RuntimeError):
    """The database cannot be used for what was asked (wrong tournament, newer schema...)."""


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


class Store:
    """A tournament database. Use as a context manager or call `close()`."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.conn = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        with self.transaction():
            for statement in _statements(SCHEMA):
                self.conn.execute(statement)
            version = self.get_meta("schema_version")
            if version is None:
                self._set_meta("schema_version", str(SCHEMA_VERSION))
            elif int(version) > SCHEMA_VERSION:
                raise StoreError(f"{self.path} was written by a newer version (schema {version})")

    # ------------------------------------------------------------------ plumbing
    def transaction(self) -> "_Transaction":
        return _Transaction(self.conn)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ meta and engines
    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def _set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            self._set_meta(key, value)

    def get_config(self) -> dict[str, Any] | None:
        text = self.get_meta("config")
        return None if text is None else json.loads(text)

    def set_config(self, config: dict[str, Any]) -> None:
        self.set_meta("config", json.dumps(config, sort_keys=True))

    def add_engine(self, name: str, spec: str) -> None:
        """Register an engine; an existing name must keep its specification (else it is another engine)."""
        with self.transaction():
            row = self.conn.execute("SELECT spec FROM engines WHERE name = ?", (name,)).fetchone()
            if row is None:
                self.conn.execute("INSERT INTO engines (name, spec, added) VALUES (?, ?, ?)", (name, spec, _now()))
            elif row[0] != spec:
                raise StoreError(f"engine {name!r} is already in {self.path} as {row[0]!r}; give the new one another label (LABEL=SPEC)")

    def engines(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT name, spec FROM engines ORDER BY rowid").fetchall())

    # ------------------------------------------------------------------ games
    def record_game(self, game: GameRecord) -> bool:
        """Store a finished game in one transaction; False if its slot was already stored (nothing written)."""
        moves = json.dumps([[mv.x, mv.y, mv.ms] for mv in game.moves], separators=(",", ":"))
        try:
            with self.transaction():
                self.conn.execute(
                    """INSERT INTO games (slot, pair_index, black, white, result, ending, detail, width, height,
                       rule, win_length, opening, opening_index, opening_stones, moves, started, duration,
                       black_ms, white_ms, black_peak_rss, white_peak_rss)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                    (
                        game.slot, game.pair_index, game.black, game.white, game.result, game.ending.value,
                        game.detail[:2000], game.width, game.height, game.rule, game.win_length, game.opening,
                        game.opening_index, game.opening_stones, moves, game.started, game.duration,
                        game.black_ms, game.white_ms, game.black_peak_rss, game.white_peak_rss,
                    ),
                )
        except sqlite3.IntegrityError as exc:
            if "UNIQUE" in str(exc) and "slot" in str(exc):
                return False
            raise
        return True

    def done_slots(self) -> set[int]:
        return {row[0] for row in self.conn.execute("SELECT slot FROM games")}

    def game_count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def max_slot(self) -> int:
        row = self.conn.execute("SELECT MAX(slot) FROM games").fetchone()
        return -1 if row[0] is None else int(row[0])

    def games(self) -> list[GameRecord]:
        rows = self.conn.execute(
            """SELECT slot, pair_index, black, white, result, ending, detail, width, height, rule, win_length,
               opening, opening_index, opening_stones, moves, started, duration, black_ms, white_ms,
               black_peak_rss, white_peak_rss FROM games ORDER BY slot"""
        ).fetchall()
        out = []
        for r in rows:
            out.append(
                GameRecord(
                    slot=r[0], pair_index=r[1], black=r[2], white=r[3], result=r[4], ending=Ending(r[5]),
                    detail=r[6], width=r[7], height=r[8], rule=r[9], win_length=r[10], opening=r[11],
                    opening_index=r[12], opening_stones=r[13],
                    moves=[MoveRecord(x, y, ms) for x, y, ms in json.loads(r[14])],
                    started=r[15], duration=r[16], black_ms=r[17], white_ms=r[18],
                    black_peak_rss=r[19], white_peak_rss=r[20],
                )
            )
        return out


def _statements(script: str) -> list[str]:
    """Split the schema into statements (executescript would commit our transaction)."""
    cleaned = "\n".join(line.split("--", 1)[0] for line in script.splitlines())
    return [s.strip() for s in cleaned.split(";") if s.strip()]


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (or ROLLBACK on error) on an autocommit connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")
