"""`benchmarks/fatal_moves.py`: the positions of a player's lost games are read from a real match
database with the right side to move and the move that was played, and the fatal move is the
loser's first move after which the analyser proves a forced win, never a forced one."""
from __future__ import annotations

import importlib.util
import json
import lzma
import sqlite3
from pathlib import Path

import pytest

from gomocup_bot.training.records import encode_moves

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("fatal_moves", ROOT / "benchmarks" / "fatal_moves.py")
fatal = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fatal)

DB = ROOT / "data" / "matches" / "net-lanes-vs-pentazen-6807.sqlite.xz"


@pytest.fixture(scope="module")
def match_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("db") / "m.sqlite"
    path.write_bytes(lzma.decompress(DB.read_bytes()))
    return path


def test_the_lost_games_positions_are_read_with_the_side_to_move(match_db):
    positions = fatal.lost_positions([str(match_db)], ["net"])
    con = sqlite3.connect(match_db)
    lost = con.execute("SELECT slot, black, opening_stones, moves FROM games WHERE (black = 'net' AND result = 2) "
                       "OR (white = 'net' AND result = 1)").fetchall()
    con.close()
    assert {p["game"].split(":")[1] for p in positions} == {str(slot) for slot, *_ in lost}
    by_game = {str(slot): (black, stones, json.loads(moves)) for slot, black, stones, moves in lost}
    assert len(positions) == sum(len(m) - s for _b, s, m in by_game.values())
    for p in positions:
        black, stones, moves = by_game[p["game"].split(":")[1]]
        k = p["ply"]
        assert stones <= k < len(moves) and len(p["moves"]) == 2 * k
        x, y, _ms = moves[k]
        assert p["played"] == encode_moves([(x, y)])
        # black moves at even plies: net is to move when its colour's turn comes
        assert p["ours"] == ((k % 2 == 0) == (black == "net"))
        assert p["rule"] == "freestyle" and p["size"] == 15
    # a name that plays no game, or both players' names, leaves no loser: nothing is read
    assert fatal.lost_positions([str(match_db)], ["lanes"]) == []
    assert fatal.lost_positions([str(match_db)], ["net", "pentazen"]) == []


def _at(moves: str):
    return fatal._key("freestyle", 15, moves)


def _one_game(match_db) -> list[dict]:
    positions = fatal.lost_positions([str(match_db)], ["net"])
    game = positions[0]["game"]
    return [p for p in positions if p["game"] == game]


def test_the_fatal_move_is_the_first_one_after_which_a_win_is_proven(match_db):
    rows = _one_game(match_db)
    ours = [p for p in rows if p["ours"]]
    target = ours[len(ours) // 2]
    answers = {}
    for p in rows:
        proven = p["ply"] > target["ply"]
        answers[_at(p["moves"])] = {"moves": p["moves"], "depth": 12, **({"mate": 9} if proven else {"eval": -40})}
    # the position after the last move of the game
    last = rows[-1]
    answers[_at(last["moves"] + last["played"])] = {"depth": 12, "mate": 1}
    found = fatal.fatal_moves(rows, answers)
    assert [(f["ply"], f["played"]) for f in found] == [(target["ply"], target["played"])]
    assert found[0]["mate"] == 9 and found[0]["before"] == target["moves"]
    # a later move where the analyser lost sight of the win and found it again does not count
    later = ours[-1]
    assert later["ply"] > target["ply"]
    answers[_at(later["moves"])] = {"moves": later["moves"], "depth": 12, "eval": -300}
    assert [f["ply"] for f in fatal.fatal_moves(rows, answers)] == [target["ply"]]

    # an answer for the same stones under another rule is not this position's
    other = {fatal._key("standard", 15, key[2]): a for key, a in answers.items()}
    assert fatal.fatal_moves(rows, other) == []

    # the same, but the loser had one move only there (the analyser answered at depth 1): not counted
    answers[_at(target["moves"])] = {"moves": target["moves"], "depth": 1, "eval": 0}
    assert fatal.fatal_moves(rows, answers) == []
