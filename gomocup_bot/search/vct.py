"""Threat-space search on the pattern layer: VCF (fours only) and VCT (fours and threes).

An AND/OR proof search, depth-first with iterative deepening on the number of attacker threats:

* attacker node: an own five square wins; an opponent five square must be blocked (the block
  costs no threat); an own open-four square, or a four-three square while the defender has no
  four to interpose, wins; otherwise every threat square is tried -- fours (VCF mode), or fours,
  open threes and double-three makers (VCT mode);
* defender node: a five square of the attacker must be blocked (a renju foul square cannot be:
  black loses); an open-four or four-three square of the attacker must be answered: the defender
  may play any square where the attacker would make a four (the blocks of every three, near and
  far; with only a four-three pending, any square where it would make a three too, since the
  four-three also breaks on its three's line) or any own four (counter-play, which the attacker
  must block in turn), and the attack succeeds only if it succeeds against every one of them. No
  pending threat: the attack failed.

The replies are a superset of the moves that stop the threat, so a proof is a proof. Proven
failures are stored with their depth in a small table (a failure at depth d holds for every
smaller depth); the search gives up (unknown) on its node budget or the stop flag. Renju: black's
threats on foul squares are never played, and a defender's block on a foul square is no block.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from gomocup_bot.core.board import play, take
from gomocup_bot.core.classes import (
    C_DOUBLE3,
    C_FIVE,
    C_FLEX4,
    C_FOUR,
    C_FOUR3,
    C_FOURP,
    C_THREE,
    C_THREEP,
    combo_tables,
)
from gomocup_bot.core.constants import EMPTY, M_HEIGHT, M_NMOVES, M_PAD, M_RULE, M_STRIDE, M_WIDTH, RULE_RENJU
from gomocup_bot.search.layer import find_class, legal_for, sort_moves

# hot kernels without reference counting (``_nrt=False``): see `search.pvs`

WIN, FAIL, UNKNOWN = 1, 0, -1
MAX_PLY = 128
MAX_GEN = 64  # moves a node keeps (threats are few; more means a wild position)
ATTACKER_SALT = np.uint64(0x5D4C3B2A19081726)
VCT_SALT = np.uint64(0x3C6EF372FE94F82B)  # VCF failures say nothing of VCT
NARROW_SALT = np.uint64(0x2545F4914F6CDD1D)  # nor do a narrowed search's failures of the exact one's
NEAR = 4  # a narrowed VCF's next four lies on a line through the attacker's last one, this close

ThreatWork = namedtuple("ThreatWork", ["tt_key", "tt_depth", "tt_rem", "moves", "scores", "line", "counter",
                                       "limits", "stop", "attack", "kept", "killer"])
# killer: the attacker's last two winning threats at each ply (2 * ply the newer), tried first at
# that ply: the refutation after one candidate defence is mostly the one after the next (the
# solver is kept across a round's candidates), and within a proof after each of the defender's
# replies (the defence set's round 1 at 3 k nodes: 4,387 of 6,603 tests refuted against 4,083,
# 16 % fewer nodes; docs/search.md);
# kept: row `ply` holds a defender node's first refuted reply's line (plies ply+1 onwards) while
# its other replies are searched, since they overwrite the deeper plies of `line`;
# counter: [nodes, best line length, attacker nodes cut by the ply limit];
# limits: [max nodes, vct (1) or vcf (0), first VCT depth, ply limit, narrow]: with narrow = k > 0
# a VCF past its first move tries only the k best fours on a line through the attacker's last four
# within NEAR squares (the shape of the horizon VCF of PentaZen's search: a follow-up four mostly
# grows from the stones just played); the defender is never narrowed, so a win is still a proof,
# but a failure proves nothing beyond the narrowed search.
# The ply limits a VCT deepens through (the last one the array bound): a short line is found
# before the tree of long four sequences is searched (a 15-ply renju VCT of the tactics set took
# 921k nodes with only the threes bounded, 8.0k through 10 and 16 plies; docs/search.md).
PLY_STEPS = (10, 16, 24, MAX_PLY - 4)
REM_ANY = 32767  # tt_rem of a failure proven with no ply cut under it: it holds at any limit


def new_work(board, stop, tt_entries: int = 1 << 16) -> ThreatWork:
    n = 1024
    while n * 2 <= tt_entries:
        n *= 2
    _, attack, _ = combo_tables(int(board.meta[M_RULE]) == RULE_RENJU)
    return ThreatWork(np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=np.int8), np.zeros(n, dtype=np.int16),
                      np.zeros(MAX_PLY * MAX_GEN, dtype=np.int32), np.zeros(MAX_PLY * MAX_GEN, dtype=np.int32),
                      np.full(MAX_PLY, -1, dtype=np.int32), np.zeros(3, dtype=np.int64),
                      np.array([0, 0, 0, MAX_PLY - 4, 0], dtype=np.int64), stop, attack,
                      np.zeros((MAX_PLY, MAX_PLY), dtype=np.int32), np.full(2 * MAX_PLY, -1, dtype=np.int32))


@njit(cache=True, nogil=True, forceinline=True)
def _is_four_class(c):
    return c >= C_FOUR and c < C_FIVE


@njit(cache=True, nogil=True, _nrt=False)
def _gen_attacks(b, a, ply, w):
    """The attacker's threat squares, best first; returns the count."""
    ai = a - 1
    vct = w.limits[1] != 0
    base0 = ply * MAX_GEN
    n = 0
    width = b.meta[M_WIDTH]
    # the class counts say how many squares it looks for: the scan stops at the last one
    wanted = b.cnt[ai, C_FOUR] + b.cnt[ai, C_FOURP] + b.cnt[ai, C_FOUR3]
    if vct:
        wanted += b.cnt[ai, C_THREE] + b.cnt[ai, C_THREEP] + b.cnt[ai, C_DOUBLE3]
    for y in range(b.meta[M_HEIGHT]):
        if n >= wanted:
            break
        base = (y + b.meta[M_PAD]) * b.meta[M_STRIDE] + b.meta[M_PAD]
        for q in range(base, base + width):
            if b.cells[q] != EMPTY or b.nbr[q] == 0:
                continue
            c = b.cls[ai, q]
            if c == C_FOUR or c == C_FOURP or c == C_FOUR3:  # (a four-three the defender can answer with a four)
                sc = 1000 + w.attack[ai, b.combo[ai, q]]
            elif vct and (c == C_THREE or c == C_THREEP or c == C_DOUBLE3):
                sc = w.attack[ai, b.combo[ai, q]]
            else:
                continue
            if n >= MAX_GEN:
                break
            w.moves[base0 + n] = q
            w.scores[base0 + n] = sc
            n += 1
    sort_moves(w, base0, n)
    return n


@njit(cache=True, nogil=True, _nrt=False)
def _gen_near_fours(b, a, ply, w, centre):
    """The attacker's four squares on the four lines through ``centre``, within NEAR of it, best
    first; returns the count (the narrowed VCF's candidates: 32 squares, not a board scan)."""
    ai = a - 1
    base0 = ply * MAX_GEN
    n = 0
    for d in range(4):
        step = b.dirs[d]
        for s in range(-NEAR, NEAR + 1):
            if s == 0:
                continue
            q = centre + s * step
            if b.cells[q] != EMPTY:
                continue
            c = b.cls[ai, q]
            if c == C_FOUR or c == C_FOURP or c == C_FOUR3:
                w.moves[base0 + n] = q
                w.scores[base0 + n] = 1000 + w.attack[ai, b.combo[ai, q]]
                n += 1
    sort_moves(w, base0, n)
    return n


@njit(cache=True, nogil=True, _nrt=False)
def _gen_replies(b, a, ply, w):
    """The defender's answers to a pending threat: squares where the attacker makes a four (also
    a three when only a four-three is pending), and the defender's own fours; returns the count."""
    ai = a - 1
    di = 1 - ai
    base0 = ply * MAX_GEN
    n = 0
    width = b.meta[M_WIDTH]
    # only a four-three pending: it can also be broken on its three's line, where the attacker
    # would make a three, not a four
    lowest = C_FOUR if b.cnt[ai, C_FLEX4] > 0 else C_THREE
    # at most this many squares pass the test below (the class counts of both sides): the scan
    # stops once it has them all
    wanted = 0
    for c in range(lowest, C_FIVE):
        wanted += b.cnt[ai, c]
    for c in range(C_FOUR, C_FIVE):
        wanted += b.cnt[di, c]
    for y in range(b.meta[M_HEIGHT]):
        if n >= wanted:
            break
        base = (y + b.meta[M_PAD]) * b.meta[M_STRIDE] + b.meta[M_PAD]
        for q in range(base, base + width):
            if b.cells[q] != EMPTY:
                continue
            ca = b.cls[ai, q]
            cd = b.cls[di, q]
            if not ((ca >= lowest and ca < C_FIVE) or _is_four_class(cd)):
                continue
            if n >= MAX_GEN:
                break
            w.moves[base0 + n] = q
            w.scores[base0 + n] = np.int32(ca) * 16 + cd
            n += 1
    sort_moves(w, base0, n)
    return n


@njit(cache=True, nogil=True, forceinline=True)
def _to_front(w, base0, n, q):
    """Move ``q`` (if among the n moves at base0) to the front, the others kept in order."""
    if q < 0:
        return
    for i in range(1, n):
        if w.moves[base0 + i] == q:
            sc = w.scores[base0 + i]
            for j in range(i, 0, -1):
                w.moves[base0 + j] = w.moves[base0 + j - 1]
                w.scores[base0 + j] = w.scores[base0 + j - 1]
            w.moves[base0] = q
            w.scores[base0] = sc
            return


@njit(cache=True, nogil=True, forceinline=True)
def _key(b, a, vct, narrow):
    k = b.hash[0]
    if a == 2:
        k ^= ATTACKER_SALT
    if vct != 0:
        k ^= VCT_SALT
    if narrow != 0:
        k ^= NARROW_SALT * np.uint64(narrow)
    return k


@njit(cache=True, nogil=True, _nrt=False)
def node(b, a, attacking, depth, ply, last, w):
    """Attacker ``a`` to move (``attacking`` 1) or the defender facing its last threat (0): can the
    attacker force a win within ``depth`` more threats? WIN/FAIL/UNKNOWN. One self-recursive
    kernel (numba caches self-recursion; every call passes int64 scalars)."""
    if attacking == 0:  # the defender (the side not ``a``) to move, facing the last threat
        ai = a - 1
        di = 1 - ai
        d = 3 - a
        w.counter[0] += 1
        if b.cnt[di, C_FIVE] > 0:
            return FAIL  # the defender wins first
        na = b.cnt[ai, C_FIVE]
        if na >= 2:
            w.line[ply] = find_class(b, ai, C_FIVE, last)
            w.counter[1] = ply + 1
            return WIN
        if na == 1:
            q = find_class(b, ai, C_FIVE, last)
            if q < 0:
                return FAIL
            if not legal_for(b, q, d):
                w.line[ply] = q
                w.counter[1] = ply + 1
                return WIN  # renju: black cannot block on a foul square
            play(b, q, d)
            r = node(b, a, np.int64(1), depth, ply + 1, np.int64(q), w)
            take(b)
            if r == WIN:
                w.line[ply] = q
            return r
        if w.limits[1] == 0 or (b.cnt[ai, C_FLEX4] == 0 and b.cnt[ai, C_FOUR3] == 0):
            return FAIL  # nothing pending (VCF: only a four is pending): the attacker lost the initiative
        n = _gen_replies(b, a, ply, w)
        base0 = ply * MAX_GEN
        first = -1
        end = 0
        for i in range(n):
            q = w.moves[base0 + i]
            if not legal_for(b, q, d):
                continue
            play(b, q, d)
            r = node(b, a, np.int64(1), depth, ply + 1, np.int64(q), w)
            take(b)
            if r != WIN:
                return r
            if first < 0:
                first = q
                end = w.counter[1]
                for j in range(ply + 1, end):
                    w.kept[ply, j] = w.line[j]
        if first < 0:
            return WIN if n > 0 else FAIL  # renju: every reply a foul square for black
        # the line shows the first (most natural) reply, kept from its own search (searching it
        # again cost each level of a proof its first subtree twice over)
        for j in range(ply + 1, end):
            w.line[j] = w.kept[ply, j]
        w.counter[1] = end
        w.line[ply] = first
        return WIN

    ai = a - 1
    di = 1 - ai
    w.counter[0] += 1
    if w.counter[0] > w.limits[0] or w.stop[0] != 0:
        return UNKNOWN
    if ply >= MAX_PLY - 4:
        return FAIL
    if b.cnt[ai, C_FIVE] > 0:
        w.line[ply] = find_class(b, ai, C_FIVE, last)
        w.counter[1] = ply + 1
        return WIN
    nd = b.cnt[di, C_FIVE]
    if nd >= 2:
        return FAIL
    if nd == 1:
        q = find_class(b, di, C_FIVE, last)
        if q < 0 or not legal_for(b, q, a):
            return FAIL
        play(b, q, a)
        r = node(b, a, np.int64(0), depth, ply + 1, np.int64(q), w)
        take(b)
        if r == WIN:
            w.line[ply] = q
        return r
    fours_d = b.cnt[di, C_FOUR] + b.cnt[di, C_FOURP] + b.cnt[di, C_FOUR3] + b.cnt[di, C_FLEX4]
    if b.cnt[ai, C_FLEX4] > 0 or (b.cnt[ai, C_FOUR3] > 0 and fours_d == 0):
        q = find_class(b, ai, C_FLEX4, last)
        if q < 0:
            q = find_class(b, ai, C_FOUR3, last)
        w.line[ply] = q
        w.counter[1] = ply + 1
        return WIN
    if depth < 0:
        return FAIL
    rem = w.limits[3] - ply  # plies left under the ply limit
    if rem <= 0:
        w.counter[2] += 1
        return FAIL
    narrow = w.limits[4] if w.limits[1] == 0 else 0
    key = _key(b, a, w.limits[1], narrow)
    mask = np.uint64(w.tt_key.shape[0] - 1)
    slot = key & mask
    if w.tt_key[slot] == key and w.tt_depth[slot] >= depth + 1 and w.tt_rem[slot] >= rem:
        if w.tt_rem[slot] != REM_ANY:
            w.counter[2] += 1  # proven under a ply limit only: a longer limit must look again
        return FAIL
    cuts = w.counter[2]
    if narrow > 0 and ply >= 2:  # the attacker's last four is on the stack under the block
        n = _gen_near_fours(b, a, ply, w, np.int64(b.stack[b.meta[M_NMOVES] - 2]))
    else:
        n = _gen_attacks(b, a, ply, w)
    base0 = ply * MAX_GEN
    _to_front(w, base0, n, w.killer[2 * ply + 1])  # the older killer, then the newer in front of it
    _to_front(w, base0, n, w.killer[2 * ply])
    if narrow > 0 and ply >= 2 and n > narrow:
        n = narrow
    unknown = False
    for i in range(n):
        q = w.moves[base0 + i]
        if not legal_for(b, q, a):
            continue
        # a four forces its block: only threes spend the depth
        cost = 0 if w.scores[base0 + i] >= 1000 else 1
        if cost > depth:
            continue
        play(b, q, a)
        r = node(b, a, np.int64(0), depth - cost, ply + 1, np.int64(q), w)
        take(b)
        if r == WIN:
            w.line[ply] = q
            if w.killer[2 * ply] != q:
                w.killer[2 * ply + 1] = w.killer[2 * ply]
                w.killer[2 * ply] = q
            return WIN
        if r == UNKNOWN:
            unknown = True
            if w.counter[0] > w.limits[0] or w.stop[0] != 0:
                return UNKNOWN
    if unknown:
        return UNKNOWN
    held = REM_ANY if w.counter[2] == cuts else rem  # a cut below: proven under this limit only
    if w.tt_key[slot] != key or (w.tt_depth[slot] <= depth + 1 and w.tt_rem[slot] <= held):
        w.tt_key[slot] = key
        w.tt_depth[slot] = depth + 1  # stored + 1: 0 marks an empty slot
        w.tt_rem[slot] = held
    return FAIL


@njit(cache=True, nogil=True, _nrt=False)
def solve(b, a, max_depth, w):
    """Attacker ``a`` (to move): VCF (fours only, one pass), or VCT by iterative deepening on the
    number of threes: the VCF first (0 threes, one pass: a VCF is narrow), then 1..max_depth threes
    under each ply limit of PLY_STEPS in turn (the next limit only when the last one cut a line);
    (result, threes used)."""
    vct = w.limits[1] != 0
    first = w.limits[2] if vct else max_depth
    if not vct or first == 0:
        w.limits[3] = PLY_STEPS[len(PLY_STEPS) - 1]
        r = node(b, a, np.int64(1), np.int64(first), np.int64(0), np.int64(-1), w)
        if r == WIN:
            return WIN, first
        if r == UNKNOWN or not vct:
            return r, 0
        first = 1
    for step in range(len(PLY_STEPS)):
        w.limits[3] = PLY_STEPS[step]
        cuts = w.counter[2]
        for depth in range(first, max_depth + 1):
            r = node(b, a, np.int64(1), np.int64(depth), np.int64(0), np.int64(-1), w)
            if r == WIN:
                return WIN, depth
            if r == UNKNOWN:
                return UNKNOWN, 0
        if w.counter[2] == cuts:
            break  # nothing was cut: the failure is complete
    return FAIL, 0


class ThreatSolver:
    """VCF/VCT for either side of a core board, with a node budget; keeps its failure table across
    calls on the same game (proven failures stay proven)."""

    def __init__(self, board, stop=None, tt_entries: int = 1 << 16) -> None:
        self.stop = stop if stop is not None else np.zeros(1, dtype=np.int32)
        self.work = new_work(board, self.stop, tt_entries)

    def run(self, board, attacker: int, *, vct: bool, max_depth: int, max_nodes: int,
            min_depth: int = 0, narrow: int = 0) -> tuple[int, list[int], int]:
        """(WIN/FAIL/UNKNOWN, the winning line from the attacker's first move, nodes). VCT deepens
        from ``min_depth`` threes to ``max_depth``; ``narrow`` > 0 narrows a VCF (see `limits`)."""
        w = self.work
        w.counter[:] = 0
        w.limits[4] = narrow
        w.limits[0] = max_nodes
        w.limits[1] = 1 if vct else 0
        w.limits[2] = min(max(0, min_depth), max_depth)
        w.line[:] = -1
        result, _ = solve(board, attacker, max_depth, w)
        line: list[int] = []
        if result == WIN:
            for q in w.line[:max(0, int(w.counter[1]))]:
                if q < 0:
                    break
                line.append(int(q))
        return int(result), line, int(w.counter[0])
