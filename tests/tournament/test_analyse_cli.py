"""`gomocup-tournament analyse` end to end: real records, the real command, our brain as the
analysing engine (a real process), small budgets. The findings are checked against the
independent threat solver (tests/search/threat_solver.py), not against the brain itself."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.rules import Rules
from tests.search import threat_solver as T

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

# A short game (our SGF export): black builds a closed three on row 7 (4..6, white at 3,7) and,
# with move 9 (7,6), an open two on column 7, so that (7,7) would be a four and an open three at
# once. White's move 10 (5,5) ignores it: black plays the four-three and wins.
KNOWN_BLUNDER = (
    "(;FF[4]GM[4]GN[1]EV[constructed]RU[0]SZ[15]PB[alice]PW[bob]RE[B+1]TE[five connection]"
    ";B[fh];W[gg];B[eh];W[dh];B[gh];W[fg];B[hf];W[eg];B[hg];W[ff];B[hh];W[ih];B[hi];W[dg];B[hj])\n"
)
BLUNDER_PLY, BLUNDER_MOVE = 9, (5, 5)  # move 10, on the position of 9 stones

# The first 6 moves of a real game between two strong engines (Wine, AIWine; c-gomoku-cli, 1 s
# a move): nobody lets a forced win in. (Longer prefixes are not clean: after move 8 our brain
# proves a win for white in 14 plies that the solver cannot settle, so move 7 reads as a blunder.)
CLEAN_OPENING = "7,7 7,6 7,5 6,8 5,9 8,7"


def _analyse(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tournament.cli", "analyse", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def _stones(moves, upto: int) -> list[tuple[int, int, int]]:
    return [(x, y, 1 if i % 2 == 0 else 2) for i, (x, y) in enumerate(moves[:upto])]


def _psq(moves: str) -> str:
    squares = [tuple(int(v) for v in s.split(",")) for s in moves.split()]
    return "Piskvorky 15x15, 11:11, 0\n" + "".join(f"{x + 1},{y + 1},0\n" for x, y in squares) + "Wine\nAIWine\n-1\n"


# the analysing engines: the default (builtin:gomocup-bot, the PVS) and the MCTS on the network as a
# process, whose winrates come from its tree's visits and values and whose proofs from its solver
ANALYSERS = {"pvs": (), "mcts-net": ("--analyser", f"mcts-net={sys.executable} -m gomocup_bot "
                                      "--option backend=mcts --option net=1")}


@pytest.mark.parametrize("analyser", sorted(ANALYSERS))
def test_a_known_blunder_is_found_with_its_refutation_and_defences(tmp_path: Path, analyser: str) -> None:
    (tmp_path / "known.sgf").write_text(KNOWN_BLUNDER)
    (tmp_path / "clean.psq").write_text(_psq(CLEAN_OPENING))
    out = tmp_path / "a.json"
    done = _analyse(str(tmp_path / "known.sgf"), str(tmp_path / "clean.psq"), "--fast", "0.2", "--deep", "0.6",
                    "--candidates", "4", "--no-warmup", "--json", str(out), *ANALYSERS[analyser])
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    known, clean = doc["games"]

    # the known game: exactly the one blunder, the loss begins there
    (b,) = known["blunders"]
    assert (b["ply"], tuple(b["move"]), b["colour"], b["player"]) == (BLUNDER_PLY, BLUNDER_MOVE, "white", "bob")
    assert b["starts_loss"] and known["lost_at"]["ply"] == BLUNDER_PLY + 1
    moves = [tuple(m) for m in known["moves"]]
    rules = Rules()
    after = _stones(moves, BLUNDER_PLY) + [(*BLUNDER_MOVE, 2)]
    # the refutation is a real forced win: the solver proves black wins after its first move
    assert b["refutation"], b
    first = tuple(b["refutation"][0])
    assert T.ThreatBoard(15, rules, after).wins_after(1, first[1] * 15 + first[0], 6, True, 200_000).status == T.WIN
    # the position before was not lost: the alternatives the tool says hold, hold for the solver
    # (white's move, then black has no VCT of up to 6 threats), and the tool found at least one
    holding = {tuple(m) for m in b["holding"]}
    truth, _ = T.refutations(15, rules, _stones(moves, BLUNDER_PLY), 2, 6, node_limit=200_000)
    assert truth is not None and holding and holding <= truth, (holding, truth)
    assert all(not c["holds"] for c in b["candidates"] if tuple(c["move"]) not in truth)
    # the evaluation trail covers every position before a move, from both sides
    trail = known["trail"]
    assert [p["ply"] for p in trail] == list(range(len(moves)))
    assert all(p["black"] is None or abs(p["black"] + p["white"] - 1) < 1e-9 for p in trail)
    assert trail[-1]["proven"] == "black" and trail[BLUNDER_PLY + 1]["proven"] == "black"

    # the clean opening: no blunder, nothing lost
    assert clean["blunders"] == [] and clean["lost_at"] is None and clean["winner"] is None
    assert len(clean["trail"]) == 6
    squares = [tuple(int(v) for v in s.split(",")) for s in CLEAN_OPENING.split()]
    for k in range(1, len(squares) + 1):  # independently: after each move, the side to move has no VCT
        proof = T.solve(15, rules, _stones(squares, k), 1 if k % 2 == 0 else 2, 6, True, 100_000)
        assert proof.status == T.FAIL, (k, proof)

    # the terminal table says the same
    assert "lost by force for white after move 10" in done.stdout
    assert "the loss began here" in done.stdout and "clean.psq game 1" in done.stdout
    assert "no blunder found" in done.stdout.split("clean.psq game 1")[1]
    assert doc["summary"]["began_with_blunder"] == 1 and doc["summary"]["losses"] == 1


def test_the_games_of_one_player_from_a_database(tmp_path: Path) -> None:
    """--engine NAME --lost picks that player's lost games; --game N one game."""
    from tournament.game.endings import Ending
    from tournament.game.record import BLACK_WON, GameRecord, MoveRecord
    from tournament.results.store import Store

    db = tmp_path / "m.sqlite"
    moves = [(5, 7), (6, 6), (4, 7), (3, 7), (6, 7), (5, 6), (7, 5), (4, 6), (7, 6), (5, 5), (7, 7), (8, 7), (7, 8), (3, 6), (7, 9)]
    with Store(db) as store:
        for name in ("alice", "bob"):
            store.add_engine(name, f"builtin:{name}")
        for slot, (black, white) in enumerate((("alice", "bob"), ("bob", "alice"))):
            store.record_game(GameRecord(black=black, white=white, width=15, height=15, rule=0, win_length=5,
                                         result=BLACK_WON, ending=Ending.FIVE, slot=slot,
                                         moves=[MoveRecord(x, y, 50) for x, y in moves]))
    done = _analyse(str(db), "--engine", "bob", "--lost", "--fast", "0.1", "--deep", "0.3", "--candidates", "0",
                    "--back", "1", "--no-warmup", "-q")
    assert done.returncode == 0, done.stderr
    assert "m.sqlite game 1: alice (black) vs bob (white)" in done.stdout and "game 2" not in done.stdout
    assert "bob's 1 losses: 1 lost by force, 1 began with a blunder" in done.stdout
    nothing = _analyse(str(db), "--engine", "carol", "--no-warmup", "-q")
    assert nothing.returncode == 2 and "no game in the records matches" in nothing.stderr


@pytest.mark.parametrize(
    "name, content, args, message",
    [
        ("gone.sgf", None, (), "gone.sgf: no such file or folder"),
        ("noise.psq", "just some text\n", (), "noise.psq: not a game record"),
        ("twice.sgf", "(;GM[4]SZ[15]RU[0];B[hh];W[ii];B[hh])", (), r"twice.sgf: move 3 \(7,7\) is illegal: illegal move \(occupied square\)"),
        ("rule.sgf", "(;GM[4]SZ[15]RU[77];B[hh])", (), "rule.sgf: unknown rule '77'"),
        ("ok.psq", "Piskvorky 15x15, 11:11, 0\n8,8,0\n", ("--rule", "go"), "--rule: unknown rule 'go'"),
        ("ok.psq", "Piskvorky 15x15, 11:11, 0\n8,8,0\n", ("--analyser", "tcp://nohost"), "--analyser: expected tcp://HOST:PORT"),
    ],
)
def test_bad_records_are_refused_before_any_engine(tmp_path: Path, name: str, content, args, message: str) -> None:
    import re

    if content is not None:
        (tmp_path / name).write_text(content)
    done = _analyse(str(tmp_path / name), *args, "--no-warmup", timeout=60)
    assert done.returncode == 2 and re.search(message, done.stderr), done.stderr
    assert done.stdout == ""


def test_an_engine_that_cannot_start_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "ok.psq").write_text(_psq("7,7 8,8 7,8"))
    for spec, named in ((str(tmp_path / "no-such-brain"), "no-such-brain"), ("builtin:nonesuch", "invalid choice: 'nonesuch'")):
        done = _analyse(str(tmp_path / "ok.psq"), "--analyser", spec, "--no-warmup", "-q", timeout=60)
        assert done.returncode == 1 and "the analysing engine cannot start" in done.stderr and named in done.stderr, done.stderr
