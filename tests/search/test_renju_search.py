"""Renju fouls judged inside the search (issue 4): positions with known answers, each checked with
the engine core (`forbidden_points`, `win_points`, the core's own rule-aware VCF), and random
renju middlegames in which no search backend may generate a black foul at any depth.

The search's cells use the core's layout, so a search index is a core index: the core's answers
are compared with the search's directly, square for square.
"""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

from gomocup_bot.core import board as CB
from gomocup_bot.core.rules import forbidden_points, is_legal, is_win_move
from gomocup_bot.core.threats import win_points
from gomocup_bot.search.vct import FAIL as VCF_NONE, WIN as VCF_WIN
from gomocup_bot.engine import BLACK, WHITE, Position, SearchLimits, SearchRequest, StopFlag
from gomocup_bot.engines.full import FullEngine
from gomocup_bot.engines.minimax import MinimaxEngine
from gomocup_bot.search import pvs as K
from gomocup_bot.search import rootcheck
from gomocup_bot.search.mcts_driver import MctsConfig, MctsSearcher
from gomocup_bot.search.pvs_driver import PvsConfig, PvsSearcher
from gomocup_bot.search.sudden import root_values, sudden
from gomocup_bot.search.vct import ThreatSolver
from protocol.rules import FREESTYLE, RENJU
from tests.search import threat_solver

SIZE = 15
# white stones far from everything, to give black the move
QUIET = [(14, 0), (0, 14), (14, 14), (12, 1), (1, 12), (13, 9), (10, 14), (14, 5), (0, 8)]

# (a) black to move; white's four (6,6) . (8,8) (9,9) (10,10) is completed only on (7,7), which is
# a double three for black (row 5,6 + column 5,6): under renju black cannot block and is lost
FOUL_BLOCK = {"X": [(5, 7), (6, 7), (7, 5), (7, 6), (11, 11)], "O": [(6, 6), (8, 8), (9, 9), (10, 10), (1, 13)]}
FOUL_SQUARE = (7, 7)
# (d) the same, one move earlier: white to move wins by (6,6), a four whose only block is the foul
FORCE_FOUL = {"X": [(5, 7), (6, 7), (7, 5), (7, 6), (11, 11)], "O": [(8, 8), (9, 9), (10, 10), (1, 13)]}
FORCING_FOUR = (6, 6)

# (b) black to move; under freestyle each is a win, under renju the finishing square is a foul:
FAKE_WINS = {
    # two closed threes crossing at (7,7): a double four there (the white stones inside the angle
    # take away black's diagonal chances, so that renju leaves black no win at all)
    "crossing-double-four": ({"X": [(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)],
                              "O": [(3, 7), (7, 3), (6, 5), (5, 6), (6, 6), (8, 5)]}, (7, 7)),
    # X.X.X.X on one row: (7,7) makes two fours on the same line
    "same-line-double-four": ({"X": [(4, 7), (6, 7), (8, 7), (10, 7)], "O": QUIET[:4]}, (7, 7)),
    # OXXX.XXO: (6,7) makes six in a row
    "overline": ({"X": [(3, 7), (4, 7), (5, 7), (7, 7), (8, 7)], "O": [(2, 7), (9, 7)] + QUIET[:3]}, (6, 7)),
    # two moves: the four (7,6) (row 6) then (7,7) is a double four (row 7 + column 7), or the
    # other way round; each first move is legal, each finishing move is a foul
    "two-step-double-four": ({"X": [(8, 6), (9, 6), (10, 6), (4, 7), (5, 7), (6, 7), (7, 4), (7, 5)],
                              "O": [(11, 6), (3, 7), (7, 3), (8, 4), (4, 8), (6, 5), (5, 6), (8, 5)]}, None),
}

# (c) black to move: (7,3) is a double four (row 3 + column 7 against the edge) and the first four
# in board order; the real VCF is elsewhere: the four-three (7,10), then an open four on column 7
REAL_VCF = {"X": [(4, 3), (5, 3), (6, 3), (7, 0), (7, 1), (7, 2), (4, 10), (5, 10), (6, 10), (7, 11), (7, 12)],
            "O": [(3, 3), (3, 10)] + QUIET[:9]}
REAL_VCF_FOUL = (7, 3)


def _position(stones, to_move, rules=RENJU) -> Position:
    flat = [(x, y, BLACK) for x, y in stones["X"]] + [(x, y, WHITE) for x, y in stones["O"]]
    return Position(SIZE, SIZE, rules, tuple(flat), to_move, 5)


def _xy(b, p) -> tuple[int, int]:
    return int(CB.pos_x(b, p)), int(CB.pos_y(b, p))


def _core_forbidden(b) -> set[int]:
    out = np.zeros(SIZE * SIZE + 1, dtype=np.int32)
    return {int(q) for q in out[:forbidden_points(b, out)]}


def _core_wins(b, colour) -> set[int]:
    out = np.zeros(SIZE * SIZE + 1, dtype=np.int32)
    return {int(q) for q in out[:win_points(b, colour, out)]}


def _vcf_verdict(b, attacker) -> int:
    """The threat search's VCF verdict on core board ``b`` (1 win, 0 none)."""
    status, _, _ = ThreatSolver(b).run(b, attacker, vct=False, max_depth=0, max_nodes=2_000_000)
    return int(status)


def _search_vcf(pos, attacker):
    """The threat search in VCF mode on the core board: (1 win / 0 none, the line padded with -1)."""
    b = CB.board_from_position(pos)
    r, line, _ = ThreatSolver(b).run(b, attacker, vct=False, max_depth=0, max_nodes=2_000_000)
    assert r >= 0, "the VCF search ran out of nodes"
    return r, line + [-1] * 4


def _sudden(pos, side, d):
    return sudden(CB.board_from_position(pos), side, d, np.zeros(1, dtype=np.int32), np.zeros(2, dtype=np.int64))


def _pvs(b, side, depth):
    """The PVS on core board ``b`` to a fixed depth (one thread: deterministic)."""
    return PvsSearcher(1 << 20, PvsConfig(threads=1)).search(b, side, np.zeros(1, dtype=np.int32), soft_deadline=None,
                                                             hard_deadline=None, max_depth=depth)


def _ask(engine, pos, budget=0.4):
    engine.prepare()
    return engine.search(SearchRequest(pos, SearchLimits.from_budget(budget, budget * 2)), StopFlag())


def _replay_vcf_with_core(pos, attacker, line):
    """The line is a real win under the position's rule, judged move by move by the core: every
    attacker move legal and a four; every reply the single block; the end two fives, a block that
    is forbidden for black, or a four-three (the block, then a legal open four)."""
    b = CB.board_from_position(pos)
    defender = 3 - attacker
    renju = pos.rules.renju
    i = 0
    while True:
        p = line[i]
        assert p >= 0, "the line ended without a win"
        assert is_legal(b, p, attacker), f"attacker move {_xy(b, p)} is not legal"
        if is_win_move(b, p, attacker):
            return
        CB.make(b, p, attacker)
        assert not _core_wins(b, defender), "the defender could win first"
        fives = _core_wins(b, attacker)
        assert fives, f"{_xy(b, p)} is not a four"
        if len(fives) >= 2:
            return
        (q,) = fives
        if renju and defender == BLACK and not is_legal(b, q, BLACK):
            return  # the only block is a foul
        if line[i + 1] < 0 and line[i + 2] < 0:
            # the threat search stops at a four-three: after the forced block the attacker must
            # have a legal open four (two five squares) the defender cannot answer by a five
            CB.make(b, q, defender)
            assert not _core_wins(b, defender), "the defender could win first"
            for m in np.nonzero(b.cells == 0)[0]:
                m = int(m)
                if is_legal(b, m, attacker):
                    CB.make(b, m, attacker)
                    fours = _core_wins(b, attacker)
                    CB.unmake(b)
                    if len(fours) >= 2:
                        return
            raise AssertionError("the line ended on a four with no open four to follow")
        assert line[i + 1] == q, "the reply is not the forced block"
        CB.make(b, q, defender)
        i += 2


# ----------------------------------------------------------------------------- (a) and (d)
def test_a_black_whose_only_block_is_a_foul_is_lost():
    pos = _position(FOUL_BLOCK, BLACK)
    b = CB.board_from_position(pos)
    q = CB.to_pos(b, *FOUL_SQUARE)
    assert _core_wins(b, WHITE) == {q} and not _core_wins(b, BLACK)
    assert q in _core_forbidden(b)
    assert _sudden(pos, BLACK, 2) == -1
    assert _sudden(_position(FOUL_BLOCK, BLACK, FREESTYLE), BLACK, 2) == 0  # freestyle: just block
    plan = rootcheck.analyse(b, BLACK, np.zeros(1, dtype=np.int32), None)
    assert plan.proven == -1 and plan.move != q and plan.move not in _core_forbidden(b)
    out = _pvs(b, BLACK, 3)
    assert out.proven == -1 and out.move not in _core_forbidden(b)


@pytest.mark.parametrize("engine", [FullEngine(), FullEngine(backend="mcts"), MinimaxEngine(tactics=True)],
                         ids=["full", "full-mcts", "minimax"])
def test_a_the_brain_still_plays_a_legal_move_when_lost_to_a_foul_block(engine):
    pos = _position(FOUL_BLOCK, BLACK)
    b = CB.board_from_position(pos)
    res = _ask(engine, pos)
    p = CB.to_pos(b, *res.move)
    assert b.cells[p] == 0 and p not in _core_forbidden(b)
    assert res.proven == -1


def test_d_white_wins_by_a_four_whose_only_block_is_a_black_foul():
    pos = _position(FORCE_FOUL, WHITE)
    b = CB.board_from_position(pos)
    # the proof, by the core: after white's four, black's single block is forbidden and black has
    # no five of its own, so white's five follows
    CB.make(b, CB.to_pos(b, *FORCING_FOUR), WHITE)
    (q,) = _core_wins(b, WHITE)
    assert q in _core_forbidden(b) and not _core_wins(b, BLACK)
    r, line = _search_vcf(pos, WHITE)
    assert r == 1
    assert line[0] == CB.to_pos(b, *FORCING_FOUR)
    _replay_vcf_with_core(pos, WHITE, line)
    assert _sudden(pos, WHITE, 3) == 1
    b = CB.board_from_position(pos)
    out = _pvs(b, WHITE, 3)
    assert out.proven == 1 and _xy(b, out.move) == FORCING_FOUR
    # under freestyle black simply blocks: nothing forced
    free = _position(FORCE_FOUL, WHITE, FREESTYLE)
    assert _search_vcf(free, WHITE)[0] == 0 and _sudden(free, WHITE, 3) == 0
    assert _vcf_verdict(CB.board_from_position(free), WHITE) == VCF_NONE
    assert _ask(FullEngine(), pos).move == FORCING_FOUR


# ----------------------------------------------------------------------------- (b)
@pytest.mark.parametrize("name", list(FAKE_WINS))
def test_b_a_win_that_ends_on_a_foul_is_no_win_under_renju(name):
    stones, foul = FAKE_WINS[name]
    free, renju = _position(stones, BLACK, FREESTYLE), _position(stones, BLACK, RENJU)
    assert _vcf_verdict(CB.board_from_position(free), BLACK) == VCF_WIN
    assert _vcf_verdict(CB.board_from_position(renju), BLACK) == VCF_NONE
    r, line = _search_vcf(free, BLACK)
    assert r == 1
    _replay_vcf_with_core(free, BLACK, line)
    assert _search_vcf(renju, BLACK)[0] == 0
    b = CB.board_from_position(renju)
    if foul is not None:  # a one-move win: a level-3 win (or a five) under freestyle only
        assert CB.to_pos(b, *foul) in _core_forbidden(b)
        assert line[0] == CB.to_pos(b, *foul)  # the freestyle win starts on the foul square
        assert _sudden(free, BLACK, 3) == 1 and _sudden(renju, BLACK, 3) == 0
    # the foul-blind win is gone; the root checks' VCT (and the PVS) may still find a real win by
    # threes, which the independent plain-Python solver must then confirm from the same first move
    plan = rootcheck.analyse(b, BLACK, np.zeros(1, dtype=np.int32), None)
    out = _pvs(b, BLACK, 5)
    assert plan.move not in _core_forbidden(b) and out.move not in _core_forbidden(b)
    claimed = {_xy(b, m) for m, proven in ((plan.move, plan.proven), (out.move, out.proven)) if proven == 1}
    if claimed:
        # shortest first: a win of 7 threat moves costs the solver a quarter of a search to 8
        flat = [(x, y, BLACK) for x, y in stones["X"]] + [(x, y, WHITE) for x, y in stones["O"]]
        wins: set | None = set()
        for length in range(1, 9):
            wins = threat_solver.winning_first_moves(SIZE, RENJU, flat, BLACK, length, vct=True,
                                                     node_limit=400_000, moves=claimed)
            if wins is None or claimed <= wins:
                break
        assert wins is not None and claimed <= wins, (claimed, wins)


def test_b_two_step_double_four_each_finishing_square_is_forbidden_after_the_first_four():
    stones, _ = FAKE_WINS["two-step-double-four"]
    pos = _position(stones, BLACK)
    for first, finish in [((7, 6), (7, 7)), ((7, 7), (7, 6))]:
        b = CB.board_from_position(pos)
        p = CB.to_pos(b, *first)
        assert is_legal(b, p, BLACK)
        CB.make(b, p, BLACK)
        (q,) = _core_wins(b, BLACK)
        CB.make(b, q, WHITE)
        assert CB.to_pos(b, *finish) in _core_forbidden(b)


# ----------------------------------------------------------------------------- (c)
def test_c_a_real_vcf_that_avoids_the_foul_is_found():
    renju, free = _position(REAL_VCF, BLACK, RENJU), _position(REAL_VCF, BLACK, FREESTYLE)
    b = CB.board_from_position(renju)
    foul = CB.to_pos(b, *REAL_VCF_FOUL)
    assert foul in _core_forbidden(b)
    assert _vcf_verdict(b, BLACK) == VCF_WIN
    # foul-blind, the first four in board order is the double four
    r, line = _search_vcf(free, BLACK)
    assert r == 1 and line[0] == foul
    r, line = _search_vcf(renju, BLACK)
    assert r == 1 and foul not in line[0::2]
    _replay_vcf_with_core(renju, BLACK, line)
    res = _ask(FullEngine(), renju)
    assert res.proven == 1
    # the brain's move starts a win the core confirms: a legal four after whose forced block the
    # core still finds black's VCF
    p = CB.to_pos(b, *res.move)
    assert is_legal(b, p, BLACK)
    CB.make(b, p, BLACK)
    (q,) = _core_wins(b, BLACK)
    CB.make(b, q, WHITE)
    assert _vcf_verdict(b, BLACK) == VCF_WIN


# ----------------------------------------------------------------------------- (e)
def _random_middlegame(seed: int, stones: int):
    """A renju game of random moves near the stones (black never fouls, nobody makes five),
    played with the core's rules. Returns the position (colour to move by stone count)."""
    rng = random.Random(seed)
    b = CB.new_board(SIZE, SIZE, 5, CB.RULE_RENJU)
    played = []
    colour = BLACK
    c = SIZE // 2
    while len(played) < stones:
        if not played:
            x, y = c, c
        else:
            x0, y0 = rng.choice(played)[:2]
            x, y = x0 + rng.randint(-2, 2), y0 + rng.randint(-2, 2)
        if not (0 <= x < SIZE and 0 <= y < SIZE):
            continue
        p = CB.to_pos(b, x, y)
        if not is_legal(b, p, colour) or is_win_move(b, p, colour):
            continue
        CB.make(b, p, colour)
        played.append((x, y, colour))
        colour = 3 - colour
    return Position(SIZE, SIZE, RENJU, tuple(played), colour, 5)


def _middlegames(count=6, want_fouls=True):
    """Seeded random middlegames with black to move and at least one forbidden square."""
    out = []
    seed = 0
    while len(out) < count:
        seed += 1
        pos = _random_middlegame(seed, 24 + 2 * (seed % 6))
        if pos.to_move != BLACK:
            continue
        b = CB.board_from_position(pos)
        if want_fouls and not _core_forbidden(b):
            continue
        if _core_wins(b, WHITE) or _core_wins(b, BLACK):
            continue
        out.append(pos)
    return out


MIDDLEGAMES = _middlegames()


@pytest.mark.parametrize("pos", MIDDLEGAMES, ids=[f"game{i}" for i in range(len(MIDDLEGAMES))])
def test_e_move_generators_leave_out_exactly_the_fouls(pos):
    """The PVS's root list (on the core board) and the root minimax's move list, along a random
    line: black's lists hold every legal candidate and no foul."""
    b = CB.board_from_position(pos)
    cells, near = b.cells, b.nbr
    work = K.new_work(b, K.new_tt(1 << 14), K.default_params(), np.zeros(1, dtype=np.int32))
    rng = random.Random(len(pos.stones))
    side = pos.to_move
    size = cells.shape[0]
    moves = np.zeros(size, dtype=np.int64)
    buf = np.zeros(size, dtype=np.int32)
    for _ply in range(8):
        forb = _core_forbidden(b) if side == BLACK else set()
        cands = {int(p) for p in np.nonzero((cells == 0) & (near > 0))[0]}
        listed = {int(q) for q in buf[:K.root_candidates(b, side, work, buf)]}
        assert not listed & forb
        if not b.cnt[2 - side, K.C_FLEX4] and not b.cnt[2 - side, K.C_FIVE]:  # no forced replies: every move
            assert listed == cands - forb
        vals = np.zeros(size, dtype=np.int64)
        m = root_values(b, side, 2, moves, vals, np.zeros(1, dtype=np.int32), np.zeros(2, dtype=np.int64))
        listed = {int(q) for q in moves[:m] if b.nbr[q] > 0}
        assert listed == cands - forb
        legal = sorted(cands - forb)
        p = rng.choice(legal)
        if is_win_move(b, p, side):
            break
        CB.make(b, p, side)
        side = 3 - side


@pytest.mark.parametrize("pos", MIDDLEGAMES[:4], ids=[f"game{i}" for i in range(4)])
def test_e_pvs_never_plays_a_foul_in_its_line(pos):
    b = CB.board_from_position(pos)
    forb = _core_forbidden(b)
    out = _pvs(b, BLACK, 5)
    b = CB.board_from_position(pos)
    assert out.move not in forb
    assert not set(out.ranked) & forb
    # the principal variation, replayed: no black move in it is a foul at its turn
    side = BLACK
    for p in out.pv:
        if side == BLACK:
            assert p not in _core_forbidden(b)
        if is_win_move(b, p, side):
            break
        CB.make(b, p, side)
        side = 3 - side


def _assert_no_foul_children(tree, pos, cap=150) -> int:
    """Walk the expanded nodes of ``tree`` (breadth first, capped), whose root stands for ``pos``
    with black to move: black's children are never forbidden (judged by the core on the node's
    position). Returns the number of black nodes checked."""
    checked = 0
    queue = [(0, ())]
    while queue and checked < cap:
        node, path = queue.pop(0)
        f, n = int(tree.first[node]), int(tree.nch[node])
        if f < 0 or n <= 0:
            continue
        side = BLACK if len(path) % 2 == 0 else WHITE
        if side == BLACK:
            nb = CB.board_from_position(pos)
            colour = BLACK
            for p in path:
                CB.make(nb, p, colour)
                colour = 3 - colour
            forb = _core_forbidden(nb)
            kids = {int(tree.move[i]) for i in range(f, f + n)}
            assert not kids & forb, (path, kids & forb)
            checked += 1
        for i in range(f, f + n):
            if int(tree.visits[i]) > 1:
                queue.append((i, path + (int(tree.move[i]),)))
    return checked


@pytest.mark.parametrize("pos", MIDDLEGAMES[:4], ids=[f"game{i}" for i in range(4)])
def test_e_mcts_tree_holds_no_foul_at_any_depth(pos):
    searcher = MctsSearcher(MctsConfig(), 200_000)
    out = searcher.run(CB.board_from_position(pos), BLACK, np.zeros(1, dtype=np.int32), max_iterations=3000)
    tree = searcher.tree
    b = CB.board_from_position(pos)
    assert int(tree.move[out.child]) not in _core_forbidden(b)
    assert _assert_no_foul_children(tree, pos) >= 5


# the two-thread variants (root parallel: a tree per thread; tree parallel: one shared tree
# filled from two node pools) expand through the same kernel: no foul in any tree
@pytest.mark.parametrize("variant", [dict(threads=2), dict(threads=2, parallel="tree")], ids=["root", "tree"])
def test_e_two_thread_mcts_trees_hold_no_foul(variant):
    pos = MIDDLEGAMES[4]  # an open game (games 0-2 and 5 hold a black VCF, their trees stay narrow)
    b = CB.board_from_position(pos)
    searcher = MctsSearcher(MctsConfig(**variant), 200_000)
    out = searcher.run(b, BLACK, np.zeros(1, dtype=np.int32), hard_deadline=time.monotonic() + 0.6)
    assert out.threads == 2 and b.cells[out.move] == 0
    assert out.move not in _core_forbidden(CB.board_from_position(pos))
    trees = [searcher.tree] if variant.get("parallel") == "tree" else [w.tree for w in searcher.workers]
    assert sum(_assert_no_foul_children(t, pos) for t in trees) >= 5


def _after(pos, moves, b) -> Position:
    """``pos`` with the core-board-index ``moves`` played in turn."""
    colour = pos.to_move
    stones = list(pos.stones)
    for p in moves:
        x, y = int(CB.pos_x(b, p)), int(CB.pos_y(b, p))
        stones.append((x, y, colour))
        colour = 3 - colour
    return Position(pos.width, pos.height, pos.rules, tuple(stones), colour, pos.win_length)


# tree reuse re-roots at the node of our move and the reply: the kept subtree must still stand for
# the squares it was searched on (same indices in the next search), fouls left out, and the new
# root's children are the ones a fresh search lists
@pytest.mark.parametrize("variant", [dict(), dict(threads=2, parallel="tree")], ids=["one-thread", "tree-parallel"])
def test_e_reused_mcts_tree_holds_no_foul_after_rerooting(variant):
    pos = MIDDLEGAMES[3]  # an open game: the kept subtree is wide
    b = CB.board_from_position(pos)
    cells = b.cells
    searcher = MctsSearcher(MctsConfig(reuse=True, **variant), 400_000)
    stop = np.zeros(1, dtype=np.int32)
    out = searcher.run(b, BLACK, stop, hard_deadline=time.monotonic() + 0.6)
    tree = searcher.tree
    f, n = int(tree.first[out.child]), int(tree.nch[out.child])
    assert f >= 0 and n > 0
    reply_node = f + int(np.argmax(tree.visits[f:f + n]))
    reply = int(tree.move[reply_node])
    kept_visits = int(tree.visits[reply_node])
    CB.make(b, out.move, BLACK)
    CB.make(b, reply, WHITE)
    pos2 = _after(pos, [out.move, reply], b)
    assert (CB.board_from_position(pos2).cells == cells).all()
    out2 = searcher.run(b, BLACK, stop, hard_deadline=time.monotonic() + 0.3)
    assert out2.reused == kept_visits > 0  # the exact subtree was kept
    assert out2.move not in _core_forbidden(CB.board_from_position(pos2)) and cells[out2.move] == 0
    tree = searcher.tree
    kids = {int(tree.move[i]) for i in range(int(tree.first[0]), int(tree.first[0]) + int(tree.nch[0]))}
    fresh = MctsSearcher(MctsConfig(), 50_000)
    fresh.run(CB.board_from_position(pos2), BLACK, stop, max_iterations=1)
    ft = fresh.tree
    assert kids == {int(ft.move[i]) for i in range(int(ft.first[0]), int(ft.first[0]) + int(ft.nch[0]))}
    assert _assert_no_foul_children(tree, pos2) >= 3
