"""Proof-number threat-space search: the tree of `search.vct`, searched best-first.

The depth-first VCT (`search.vct`) deepens on the number of threes and gives up at its node
budget; on real defences (docs/search.md, "The defence set proved over the whole board") it
answered "unknown" for most candidate moves even at 2 M nodes, so the root could not tell a
holding move from a losing one. A proof-number search (Allis 1994) grows the same AND/OR tree
where a proof or a disproof is cheapest (the attacker's most promising threat, the defender's
most stubborn reply), which settles such trees with far fewer nodes. The node rules are those of
`search.vct.node` (the attacker's threats, the defender's blocks and counter-fours, renju fouls),
so a result of either search means the same thing.

The tree lives in preallocated arrays (`new_tree`); each iteration walks down from the root
playing the moves on the board, expands the most-proving node and walks back up, restoring the
board. Nodes are counted as created; the search stops at its node budget, when the arrays are
full, or on the stop flag (then the answer is unknown).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from gomocup_bot.core.board import play, take
from gomocup_bot.core.classes import C_FIVE, C_FLEX4, C_FOUR, C_FOUR3, C_FOURP
from gomocup_bot.search.layer import find_class, legal_for
from gomocup_bot.search.vct import (FAIL, MAX_GEN, MAX_PLY, UNKNOWN, WIN, ThreatSolver, _gen_attacks, _gen_replies,
                                    new_work)

PN_INF = 1 << 28
EXPANDED, DEFENDER = 1, 2  # flag bits: children made; the defender is to move (an AND node)
DEFAULT_CAPACITY = 1 << 19  # nodes (about 12 MB)
DFS_SHARE = 0.25  # of a run's nodes for the depth-first search first
THREE_PN = 2  # a three's extra starting proof number over a four's (it has more replies to refute)

PnTree = namedtuple("PnTree", ["parent", "first", "count", "move", "pn", "dn", "threes", "flags"])


def new_tree(capacity: int = DEFAULT_CAPACITY) -> PnTree:
    return PnTree(np.zeros(capacity, dtype=np.int32), np.zeros(capacity, dtype=np.int32),
                  np.zeros(capacity, dtype=np.int32), np.zeros(capacity, dtype=np.int32),
                  np.zeros(capacity, dtype=np.int32), np.zeros(capacity, dtype=np.int32),
                  np.zeros(capacity, dtype=np.int16), np.zeros(capacity, dtype=np.int8))


@njit(cache=True, nogil=True, forceinline=True)
def _settle(t, i, result, q=-1):
    """A leaf: won or lost for the attacker; ``q`` the attacker's winning square, if it has one
    to play (kept where the children would be, for `proof_line`)."""
    if result == WIN:
        t.pn[i], t.dn[i] = 0, PN_INF
    else:
        t.pn[i], t.dn[i] = PN_INF, 0
    t.flags[i] = t.flags[i] | EXPANDED
    t.count[i] = 0
    t.first[i] = q


@njit(cache=True, nogil=True, forceinline=True)
def _child(t, j, parent, q, threes, defender, pn=1):
    t.parent[j], t.first[j], t.count[j], t.move[j] = parent, 0, 0, q
    t.pn[j], t.dn[j], t.threes[j] = pn, 1, threes
    t.flags[j] = DEFENDER if defender else 0


@njit(cache=True, nogil=True)
def _expand(b, a, i, ply, t, w, nxt):
    """Node ``i`` (the board at its position): settle it, or make its children from ``nxt`` on;
    returns the next free slot."""
    ai = a - 1
    di = 1 - ai
    d = 3 - a
    last = t.move[i]
    threes = t.threes[i]
    if ply >= MAX_PLY - 4:
        _settle(t, i, FAIL)
        return nxt
    if t.flags[i] & DEFENDER:
        if b.cnt[di, C_FIVE] > 0:
            _settle(t, i, FAIL)  # the defender wins first
            return nxt
        na = b.cnt[ai, C_FIVE]
        if na >= 2:
            _settle(t, i, WIN)
            return nxt
        if na == 1:
            q = find_class(b, ai, C_FIVE, last)
            if q < 0:
                _settle(t, i, FAIL)
                return nxt
            if not legal_for(b, q, d):
                _settle(t, i, WIN)  # renju: black cannot block on a foul square
                return nxt
            _child(t, nxt, i, q, threes, False)
            t.first[i], t.count[i] = nxt, 1
            t.flags[i] = t.flags[i] | EXPANDED
            return nxt + 1
        if w.limits[1] == 0 or (b.cnt[ai, C_FLEX4] == 0 and b.cnt[ai, C_FOUR3] == 0):
            _settle(t, i, FAIL)  # nothing pending: the attacker lost the initiative
            return nxt
        n = _gen_replies(b, a, 0, w)
        made = 0
        for k in range(n):
            q = w.moves[k]
            if legal_for(b, q, d):
                _child(t, nxt + made, i, q, threes, False)
                made += 1
        if made == 0:
            _settle(t, i, WIN if n > 0 else FAIL)  # renju: every reply a foul square for black
            return nxt
        t.first[i], t.count[i] = nxt, made
        t.flags[i] = t.flags[i] | EXPANDED
        return nxt + made
    # the attacker to move
    if b.cnt[ai, C_FIVE] > 0:
        _settle(t, i, WIN, find_class(b, ai, C_FIVE, last))
        return nxt
    nd = b.cnt[di, C_FIVE]
    if nd >= 2:
        _settle(t, i, FAIL)
        return nxt
    if nd == 1:
        q = find_class(b, di, C_FIVE, last)
        if q < 0 or not legal_for(b, q, a):
            _settle(t, i, FAIL)
            return nxt
        _child(t, nxt, i, q, threes, True)
        t.first[i], t.count[i] = nxt, 1
        t.flags[i] = t.flags[i] | EXPANDED
        return nxt + 1
    fours_d = b.cnt[di, C_FOUR] + b.cnt[di, C_FOURP] + b.cnt[di, C_FOUR3] + b.cnt[di, C_FLEX4]
    if b.cnt[ai, C_FLEX4] > 0 or (b.cnt[ai, C_FOUR3] > 0 and fours_d == 0):
        q = find_class(b, ai, C_FLEX4, last)
        if q < 0:
            q = find_class(b, ai, C_FOUR3, last)
        _settle(t, i, WIN, q)
        return nxt
    n = _gen_attacks(b, a, 0, w)
    made = 0
    for k in range(n):
        q = w.moves[k]
        cost = 0 if w.scores[k] >= 1000 else 1  # a four forces its block: only threes spend
        if cost > threes or not legal_for(b, q, a):
            continue
        _child(t, nxt + made, i, q, threes - cost, True, 1 + THREE_PN * cost)
        made += 1
    if made == 0:
        _settle(t, i, FAIL)
        return nxt
    t.first[i], t.count[i] = nxt, made
    t.flags[i] = t.flags[i] | EXPANDED
    return nxt + made


@njit(cache=True, nogil=True, forceinline=True)
def _update(t, i):
    """Node ``i``'s numbers from its children's."""
    f = t.first[i]
    c = t.count[i]
    if t.flags[i] & DEFENDER:  # AND: every reply must be refuted
        s, m = 0, PN_INF
        for j in range(f, f + c):
            s = min(PN_INF, s + t.pn[j])
            m = min(m, t.dn[j])
        t.pn[i], t.dn[i] = s, m
    else:
        m, s = PN_INF, 0
        for j in range(f, f + c):
            m = min(m, t.pn[j])
            s = min(PN_INF, s + t.dn[j])
        t.pn[i], t.dn[i] = m, s


@njit(cache=True, nogil=True)
def pn_search(b, a, threes, max_nodes, t, w):
    """Attacker ``a`` to move: does it win by threats, spending at most ``threes`` threes (fours
    are free)? (WIN/FAIL/UNKNOWN, nodes created). The board is restored on return."""
    cap = min(max_nodes, t.pn.shape[0] - MAX_GEN - 2)
    _child(t, 0, -1, -1, threes, False)
    nxt = 1
    while t.pn[0] != 0 and t.dn[0] != 0:
        if w.stop[0] != 0 or nxt >= cap:
            break
        i = 0
        ply = 0
        while t.flags[i] & EXPANDED:
            f = t.first[i]
            best = f
            if t.flags[i] & DEFENDER:
                for j in range(f + 1, f + t.count[i]):
                    if t.dn[j] < t.dn[best]:
                        best = j
                play(b, t.move[best], 3 - a)
            else:
                for j in range(f + 1, f + t.count[i]):
                    if t.pn[j] < t.pn[best]:
                        best = j
                play(b, t.move[best], a)
            i = best
            ply += 1
        nxt = _expand(b, a, i, ply, t, w, nxt)
        while True:
            if t.count[i] > 0:
                _update(t, i)
            if i == 0:
                break
            take(b)
            i = t.parent[i]
    if t.pn[0] == 0:
        return WIN, nxt
    if t.dn[0] == 0:
        return FAIL, nxt
    return UNKNOWN, nxt


@njit(cache=True, nogil=True)
def proof_line(t, out):
    """The proved line from the root (the attacker's proving threat, the defender's first reply,
    ...) into ``out``; returns its length."""
    i = 0
    n = 0
    while t.count[i] > 0 and n < out.shape[0]:
        f = t.first[i]
        nxt = f
        if not (t.flags[i] & DEFENDER):
            for j in range(f, f + t.count[i]):
                if t.pn[j] == 0:
                    nxt = j
                    break
        i = nxt
        out[n] = t.move[i]
        n += 1
    if t.pn[i] == 0 and t.first[i] >= 0 and not (t.flags[i] & DEFENDER) and n < out.shape[0]:
        out[n] = t.first[i]  # the attacker's last move: its five, open four or four-three
        n += 1
    return n


class PnSolver:
    """Drop-in for `search.vct.ThreatSolver` (same `run`): the depth-first search first with a
    share of the nodes (it finds the short wins, VCFs above all, fastest), then, if it could not
    settle the question, the proof-number search with the rest (it proves failures far sooner:
    docs/search.md)."""

    def __init__(self, board, stop=None, capacity: int = DEFAULT_CAPACITY, dfs_share: float = DFS_SHARE) -> None:
        self.stop = stop if stop is not None else np.zeros(1, dtype=np.int32)
        self.dfs = ThreatSolver(board, self.stop)
        self.work = new_work(board, self.stop, 1 << 10)
        self.tree = new_tree(capacity)
        self.dfs_share = dfs_share
        self._line = np.full(MAX_PLY, -1, dtype=np.int32)

    def run(self, board, attacker: int, *, vct: bool, max_depth: int, max_nodes: int,
            min_depth: int = 0) -> tuple[int, list[int], int]:
        """(WIN/FAIL/UNKNOWN, the winning line from the attacker's first move, nodes);
        ``max_depth`` bounds the threes (``min_depth`` applies to the depth-first part)."""
        first = int(max_nodes * self.dfs_share)
        used = 0
        if first > 0:
            result, line, used = self.dfs.run(board, attacker, vct=vct, max_depth=max_depth, max_nodes=first,
                                              min_depth=min_depth)
            if result != UNKNOWN or self.stop[0] != 0:
                return result, line, used
        w = self.work
        w.limits[1] = 1 if vct else 0
        result, nodes = pn_search(board, attacker, max_depth if vct else 0, max(1, max_nodes - used), self.tree, w)
        line = []
        if result == WIN:
            n = proof_line(self.tree, self._line)
            line = [int(q) for q in self._line[:n]]
        return int(result), line, used + int(nodes)
