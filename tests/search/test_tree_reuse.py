"""MCTS tree reuse: the subtree of the position actually reached is kept, anything else is fresh."""
from __future__ import annotations

import re

import numpy as np

from gomocup_bot.engine import BLACK, WHITE, Position, SearchLimits, SearchRequest, StopFlag
from gomocup_bot.engines.full import FullEngine
from gomocup_bot.search import mcts as K
from gomocup_bot.core.board import board_from_position, make, pos_x, pos_y, unmake
from gomocup_bot.search.mcts_driver import MctsConfig, MctsSearcher
from tests.search import positions as P


def _open_three():
    pos = P.parse(P.padded(P.OPEN_THREE), WHITE)
    return pos, board_from_position(pos)


def to_xy(p, b):
    return int(pos_x(b, p)), int(pos_y(b, p))


def _most_visited_child(tree, node: int) -> int:
    f, n = int(tree.first[node]), int(tree.nch[node])
    return f + int(np.argmax(tree.visits[f:f + n]))


def _subtree(tree, node: int):
    """The subtree below ``node`` as nested tuples (move, visits, wsum, proven, children)."""
    f, n = int(tree.first[node]), int(tree.nch[node])
    kids = tuple(_subtree(tree, i) for i in range(f, f + n)) if f >= 0 and n > 0 else ()
    return (int(tree.move[node]), int(tree.visits[node]), float(tree.wsum[node]), int(tree.proven[node]), kids)


def _size(sub) -> int:
    return 1 + sum(_size(k) for k in sub[4])


def _searched(threads: int = 1, iterations: int = 2500):
    pos, b = _open_three()
    searcher = MctsSearcher(MctsConfig(reuse=True, threads=threads), 1 << 20)
    out = searcher.run(b, WHITE, np.zeros(1, dtype=np.int32), max_iterations=iterations)
    return pos, b, searcher, out


def test_reroot_keeps_exactly_the_subtree_with_its_statistics():
    _, _, searcher, out = _searched()
    tree = searcher.tree
    grandchild = _most_visited_child(tree, out.child)
    before = _subtree(tree, grandchild)
    assert before[4], "the test needs an expanded grandchild"
    count = tree.reroot(grandchild)
    after = _subtree(tree, 0)
    assert count == int(tree.count[0]) == _size(before)
    assert after[1:] == before[1:]  # only the root's own move is dropped


def test_after_a_move_pair_the_root_is_the_old_grandchild():
    _, b, searcher, out = _searched()
    tree = searcher.tree
    ours = int(tree.move[out.child])
    g = _most_visited_child(tree, out.child)
    reply, g_visits = int(tree.move[g]), int(tree.visits[g])
    make(b, ours, WHITE)
    make(b, reply, BLACK)
    out2 = searcher.run(b, WHITE, np.zeros(1, dtype=np.int32), max_iterations=1)
    assert out2.reused == g_visits > 0
    assert int(searcher.tree.visits[0]) == g_visits + 1  # plus the one new iteration


def test_reuse_is_found_through_any_number_of_plies():
    _, b, searcher, out = _searched(iterations=4000)
    tree = searcher.tree
    node, side, path = out.child, WHITE, []
    for _ in range(3):  # our move, the reply, our next move: the opponent is to move afterwards
        path.append((int(tree.move[node]), side))
        side = 3 - side
        node = _most_visited_child(tree, node) if len(path) < 3 else node
    expect = int(tree.visits[node])
    for p, c in path:
        make(b, p, c)
    out2 = searcher.run(b, BLACK, np.zeros(1, dtype=np.int32), max_iterations=1)
    assert out2.reused == expect > 0


def test_a_different_history_and_a_takeback_start_fresh():
    _, b, searcher, out = _searched()
    tree = searcher.tree
    ours = int(tree.move[out.child])
    # the opponent answers on a square the tree never played after our move (a far one)
    f, n = int(tree.first[out.child]), int(tree.nch[out.child])
    tried = {int(tree.move[i]) for i in range(f, f + n)}
    other = next(p for p in range(b.cells.shape[0]) if b.cells[p] == 0 and p != ours and p not in tried)
    make(b, ours, WHITE)
    make(b, other, BLACK)
    fresh = searcher.run(b, WHITE, np.zeros(1, dtype=np.int32), max_iterations=50)
    assert fresh.reused == 0
    assert int(searcher.tree.visits[0]) == fresh.iterations  # nothing but this search
    # take both moves back: the position is no descendant of the last root
    unmake(b)
    unmake(b)
    back = searcher.run(b, WHITE, np.zeros(1, dtype=np.int32), max_iterations=50)
    assert back.reused == 0
    assert b.cells[back.move] == 0


def test_proven_nodes_stay_proven_after_reroot():
    pos = P.from_stones(P.VCF_STONES, BLACK)
    b = board_from_position(pos)
    searcher = MctsSearcher(MctsConfig(reuse=True), 1 << 20)
    out = searcher.run(b, BLACK, np.zeros(1, dtype=np.int32), max_iterations=3000)
    tree = searcher.tree
    assert out.proven_root == 1 and to_xy(out.move, b) in P.VCF_FIRST_MOVES
    block = _most_visited_child(tree, out.child)  # white's only answer to the four
    assert int(tree.proven[block]) == -1  # proven lost for white, who played it
    make(b, out.move, BLACK)
    make(b, int(tree.move[block]), WHITE)
    out2 = searcher.run(b, BLACK, np.zeros(1, dtype=np.int32), max_iterations=3000)
    assert out2.reused > 0
    assert int(searcher.tree.proven[0]) == -1  # still a win for black, the side to move
    assert out2.stopped_by == "proven" and out2.iterations == 0  # nothing left to search
    assert out2.proven_root == 1 and int(searcher.tree.proven[out2.child]) == 1


def test_two_trees_are_both_reused():
    import time

    pos, b = _open_three()
    searcher = MctsSearcher(MctsConfig(reuse=True, threads=2), 1 << 20)
    out = searcher.run(b, WHITE, np.zeros(1, dtype=np.int32), hard_deadline=time.monotonic() + 0.5)
    assert out.threads == 2
    ours = out.move
    # the reply the trees explored most (on a loaded machine the main thread, which also runs the
    # minimax, may not have expanded our move yet)
    best = max(searcher.workers, key=lambda w: int(w.tree.visits[searcher.child_index(w.tree, ours)]))
    reply = int(best.tree.move[_most_visited_child(best.tree, searcher.child_index(best.tree, ours))])
    expect = 0
    for w in searcher.workers:
        c = searcher.child_index(w.tree, ours)
        f, n = int(w.tree.first[c]), int(w.tree.nch[c])
        hit = [i for i in range(f, f + n) if int(w.tree.move[i]) == reply] if f >= 0 else []
        expect += int(w.tree.visits[hit[0]]) if hit else 0
    assert int(searcher.workers[1].tree.visits[0]) > 0  # the helper did search
    make(b, ours, WHITE)
    make(b, reply, BLACK)
    out2 = searcher.run(b, WHITE, np.zeros(1, dtype=np.int32), hard_deadline=time.monotonic())
    assert out2.reused == expect > 0


def _summary_reused(engine, pos) -> int:
    seen = []
    engine.search(SearchRequest(pos, SearchLimits.from_budget(0.3, 0.6), report=seen.append), StopFlag())
    text = [i.text for i in seen if i.kind == "summary"][-1]
    return int(re.search(r"reused (\d+)", text).group(1))


def test_engine_reuses_within_a_game_and_forgets_on_new_game():
    from protocol.rules import FREESTYLE

    engine = FullEngine(backend="mcts", reuse=True, tactics=False, threads=1)
    engine.prepare()
    engine.new_game(15, 15, FREESTYLE)
    stones = [(7, 7, BLACK), (8, 8, WHITE), (8, 7, BLACK), (6, 9, WHITE)]
    pos = Position(15, 15, FREESTYLE, tuple(stones), BLACK)
    assert _summary_reused(engine, pos) == 0
    tree = engine._mcts.tree
    reply_node = _most_visited_child(tree, _most_visited_child(tree, 0))
    b = board_from_position(pos)
    mine, theirs = to_xy(int(tree.move[_most_visited_child(tree, 0)]), b), to_xy(int(tree.move[reply_node]), b)
    nxt = Position(15, 15, FREESTYLE, tuple(stones + [(*mine, BLACK), (*theirs, WHITE)]), BLACK)
    assert _summary_reused(engine, nxt) > 0
    engine.new_game(15, 15, FREESTYLE)
    assert _summary_reused(engine, nxt) == 0
