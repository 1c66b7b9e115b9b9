"""Game records to analyse, from wherever games are kept: a tournament database, SGF files (one game
or a c-gomoku-cli collection), Piskvork .psq files, or folders of them.

Every record is replayed by the referee (`Position`) when it is read, so an illegal move, an unknown
rule or a broken file is refused here with the file and game named, before any engine starts.
Records carry what the analysis needs beyond the moves: who played which colour, who won and how,
and how many moves were an opening (not chosen by the players, so never judged).
"""
from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from protocol.judge import BLACK, WHITE
from protocol.rules import RuleError, Rules
from tournament.api.errors import PositionError
from tournament.api.position import Position, sgf_games, sgf_main_line

RECORD_SUFFIXES = (".sqlite", ".db", ".sqlite3", ".sgf", ".psq")


class RecordError(ValueError):
    """A record that cannot be analysed: unreadable, not a game record, an illegal move, an unknown
    rule. The message names the file (and the game in it)."""


@dataclass(frozen=True)
class GameSource:
    """One game to analyse.

    `position` holds every move (opening stones first); `winner` is BLACK, WHITE or None (draw or
    not known); `ending` how it ended as the record says (`five`, `time-turn`, ... or "").
    `number` identifies the game in its file: the database's game number (as in exported file
    names), an SGF's GN[] (else its place in the file), 1 for a .psq file.
    """

    file: str
    number: int
    position: Position
    black: str = "black"
    white: str = "white"
    winner: int | None = None
    ending: str = ""
    opening_stones: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{Path(self.file).name} game {self.number}"

    @property
    def loser(self) -> int | None:
        return None if self.winner is None else (WHITE if self.winner == BLACK else BLACK)

    def name_of(self, colour: int) -> str:
        return self.black if colour == BLACK else self.white

    def colour_of(self, name: str) -> int | None:
        """BLACK or WHITE if `name` played this game, else None."""
        if name == self.black:
            return BLACK
        if name == self.white:
            return WHITE
        return None


@dataclass(frozen=True)
class Selection:
    """Which games of the records to keep: those `engine` played (and with `lost`, lost), and
    with `numbers`, only those game numbers."""

    engine: str | None = None
    lost: bool = False
    numbers: frozenset[int] = frozenset()

    def keeps(self, game: GameSource) -> bool:
        if self.numbers and game.number not in self.numbers:
            return False
        if self.engine is not None:
            colour = game.colour_of(self.engine)
            if colour is None or (self.lost and game.loser != colour):
                return False
        elif self.lost and game.winner is None:
            return False
        return True


def read_records(paths: Iterable[str | Path], *, rule: str | None = None,
                 selection: Selection = Selection()) -> list[GameSource]:
    """The games in `paths` (files or folders, read in the order given, folders sorted) that
    `selection` keeps. `rule` is the rule of .psq files (they do not say) and overrides a
    missing RU[] in SGF. Raises RecordError on the first bad record."""
    rules = _rule(rule, "--rule") if rule is not None else None
    games: list[GameSource] = []
    for path in _expand(paths):
        games.extend(g for g in read_file(path, rules) if selection.keeps(g))
    return games


def _expand(paths: Iterable[str | Path]) -> list[Path]:
    out: list[Path] = []
    for item in paths:
        path = Path(item)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix.lower() in RECORD_SUFFIXES and p.is_file())
            if not found:
                raise RecordError(f"{path}: no game records (*.sqlite, *.sgf, *.psq) in this folder")
            out.extend(found)
        elif path.exists():
            out.append(path)
        else:
            raise RecordError(f"{path}: no such file or folder")
    return out


def read_file(path: Path, rules: Rules | None = None) -> list[GameSource]:
    """The games of one file, by its content (a database, SGF or PSQ), whatever its name."""
    try:
        head = path.read_bytes()[:16]
    except OSError as exc:
        raise RecordError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if head.startswith(b"SQLite format 3"):
        return read_database(path)
    try:
        text = path.read_text(encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        try:
            text = path.read_text(encoding="latin-1")
        except OSError as exc:
            raise RecordError(f"{path}: cannot read it ({exc})") from None
    except OSError as exc:
        raise RecordError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("("):
        return read_sgf(path, text, rules)
    if stripped.lower().startswith("piskvorky"):
        return [read_psq(path, text, rules or Rules())]
    raise RecordError(f"{path}: not a game record (expected a tournament database, SGF or Piskvork .psq)")


# ---------------------------------------------------------------------------------------- databases

def read_database(path: Path) -> list[GameSource]:
    """Every game of a `gomocup-tournament` database, read-only (safe while a match writes it).

    Numbered as `export` names them (slot + 1)."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
    except sqlite3.Error as exc:
        raise RecordError(f"{path}: cannot open the database ({exc})") from None
    try:
        rows = conn.execute(
            "SELECT slot, black, white, result, ending, width, height, rule, win_length, opening_stones, moves,"
            " started FROM games ORDER BY slot"
        ).fetchall()
    except sqlite3.Error as exc:
        raise RecordError(f"{path}: not a gomocup-tournament database ({exc})") from None
    finally:
        conn.close()
    games = []
    for slot, black, white, result, ending, width, height, rule, win_length, opening, moves, started in rows:
        number = slot + 1
        where = f"{path}: game {number}"
        if win_length != 5:
            raise RecordError(f"{where}: {win_length} in a row wins; the analysis knows five in a row only")
        try:
            squares = [(x, y) for x, y, _ in json.loads(moves)]
        except (ValueError, TypeError) as exc:
            raise RecordError(f"{where}: unreadable moves ({exc})") from None
        position = _replay(where, (width, height), _rule(rule, where), squares)
        winner = {1: BLACK, 2: WHITE}.get(result)
        games.append(GameSource(str(path), number, position, black, white, winner, ending, opening,
                                {"started": started}))
    return games


# ---------------------------------------------------------------------------------------- SGF

def read_sgf(path: Path, text: str, rules: Rules | None = None) -> list[GameSource]:
    """Every game tree of an SGF file (ours: one per file; c-gomoku-cli: a collection)."""
    trees = sgf_games(text)
    if not trees:
        raise RecordError(f"{path}: no SGF game tree found")
    games = []
    for index, tree in enumerate(trees, 1):
        nodes = sgf_main_line(tree)
        root = nodes[0] if nodes else {}
        number = _int(_prop(root, "GN")) or index
        where = f"{path}: game {number}" if len(trees) > 1 or _prop(root, "GN") else str(path)
        rule = _prop(root, "RU")
        game_rules = _rule(rule, where) if rule else (rules or Rules())
        try:
            position = Position.from_sgf(tree, rule=game_rules)
        except PositionError as exc:
            raise RecordError(f"{where}: {exc}") from None
        opening = sum(1 for node in nodes if ("B" in node or "W" in node)
                      and "opening" in " ".join(node.get("C", [])).lower())
        result = _prop(root, "RE").upper()
        winner = BLACK if result.startswith("B+") else WHITE if result.startswith("W+") else position.winner()
        ending = "five" if position.winner() is not None else _prop(root, "TE")
        games.append(GameSource(str(path), number, position, _prop(root, "PB") or "black",
                                _prop(root, "PW") or "white", winner, ending, opening))
    return games


def _prop(node: dict[str, list[str]], key: str) -> str:
    values = node.get(key)
    return values[0].strip() if values else ""


def _int(text: str) -> int | None:
    return int(text) if text.isdigit() else None


# ---------------------------------------------------------------------------------------- PSQ

def read_psq(path: Path, text: str, rules: Rules) -> GameSource:
    """A Piskvork record: `Piskvorky WxH, ...`, `x,y,ms` lines (1-based), then the players'
    names (black first) when the manager wrote them. The rule is not in the file."""
    lines = [line.strip() for line in text.replace("\r", "\n").split("\n") if line.strip()]
    try:
        position = Position.from_psq(text, rule=rules)
    except PositionError as exc:
        raise RecordError(f"{path}: {exc}") from None
    after = lines[1 + len(position.moves):]
    names = [line for line in after[:2] if not re.fullmatch(r"-?\d+", line)]
    black = names[0] if names else "black"
    white = names[1] if len(names) > 1 else "white"
    return GameSource(str(path), 1, position, black, white, position.winner(),
                      "five" if position.winner() is not None else "")


# ---------------------------------------------------------------------------------------- shared

def _rule(rule: str | int, where: str) -> Rules:
    """A rule from a Gomocup code or a name; RecordError naming `where` if it is unknown."""
    try:
        if isinstance(rule, int) or str(rule).strip().isdigit():
            return Rules.from_code(int(rule))
        return Rules.from_name(str(rule))
    except RuleError as exc:
        raise RecordError(f"{where}: unknown rule {rule!r} ({exc})") from None


def _replay(where: str, board: tuple[int, int], rules: Rules, squares: list[tuple[int, int]]) -> Position:
    try:
        return Position.from_moves(squares, board, rules)
    except PositionError as exc:
        raise RecordError(f"{where}: {exc}") from None
