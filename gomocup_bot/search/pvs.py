"""Principal-variation search on the core board's pattern layer (numba kernels).

Everything a node needs is an O(1) read of the board's threat counts (`core.classes`): an own
five point wins, two opponent five points lose, an own open-four point (or a four-three with no
opponent four to interpose) wins by force, one opponent five point leaves only its block (no
depth spent), an opponent open-four point (an open three on the board) leaves only the squares
that stop it plus our own fours. Quiet nodes order every candidate (empty, a stone within two
squares) by its class for both sides, the hash move, two killers and the history table, and keep
the best `P_WIDTH` (the hash move is searched before the rest are generated: a cut-off on it
spares the generation, and the rest are scored with the history its subtree left); the
selectivity grows with the depth left (late-move reductions of log(depth) x log(move number) plies, a move-count limit, static cuts near the horizon). At the
horizon a quiescence search plays the side's fours (a VCF probe) over a stand-pat evaluation, the
fitted weights of both sides' threat-class counts.

The transposition table is two uint64 arrays (key XOR data, data): lockless, so the lazy-SMP
helper thread shares it; two slots a bucket, the first kept for the deeper entry.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from gomocup_bot.core.board import play, take
from gomocup_bot.core.classes import (
    C_FIVE,
    C_FLEX4,
    C_DOUBLE3,
    C_FOUR,
    C_FOUR3,
    C_FOURP,
    C_LOW,
    C_THREE,
    C_THREEP,
    combo_tables,
)
from gomocup_bot.core.evaltables import runtime_order, runtime_tables
from gomocup_bot.core.constants import (EMPTY, M_HEIGHT, M_NMOVES, M_PAD, M_RULE, M_SIZE, M_STRIDE, M_TABLE, M_WIDTH,
                                         RULE_RENJU)
from gomocup_bot.neteval.optional import maybe_play, maybe_policy, maybe_take, maybe_value, no_net
from gomocup_bot.search import vct as T
from gomocup_bot.search.layer import find_class, legal_for, sort_moves  # noqa: F401 (re-exported)

# The kernels on the search's hot path are compiled with ``_nrt=False`` (no reference counting):
# a board and a work tuple hold some 60 arrays, and numba otherwise increfs and decrefs every one
# of them (an atomic add each) on every call of a recursive or not inlined function. That was 44 %
# of the PVS's time (perf and gdb samples, docs/core.md). Such a kernel may not allocate an array
# (numba refuses to compile it), so it only reads and writes the arrays it is given.

WIN = 30000
WIN_BOUND = WIN - 1000  # scores beyond this are forced wins/losses (WIN - plies)
INF = 32000
MAX_PLY = 96
MAX_MOVES = 256  # per node (the candidate area of a 32x32 board never gets near this in practice)
NO_SCORE = -32767  # returned when the search was stopped

FLAG_UPPER, FLAG_LOWER, FLAG_EXACT = 1, 2, 3

# params
P_WIDTH = 0  # moves kept at a quiet inner node
P_QDEPTH = 1  # fours the quiescence may play in a row
P_LMR_MIN = 2  # first move index that may be reduced
P_MAX_NODES = 3  # 0 = no limit
P_PRUNE = 4  # 1: depth-scaled selectivity (below); 0: plain late-move reductions of quiet moves only
P_VCT_DEPTH = 5  # probe the threat search (VCT) at quiet PV nodes with at most this depth left (0: never)
P_VCT_NODES = 6  # threat-search nodes one probe may spend
P_VCT_THREES = 7  # threes the probe's VCT may use (fours are free)
P_LMR_SCALE = 8  # log-log reduction scale, hundredths
P_ORDER = 9  # move-ordering scores: 0 the hand-set class tables, 1 the weights file's trained tables
P_EVAL_AVG = 10  # 1: the pattern sums are the mean of this and the previous position's (damps the swing)
P_EXTEND = 11  # answering the opponent's open three (a flex four to stop) costs no depth: 1 everywhere, 2 at PV nodes
P_IIR = 12  # internal iterative reduction: a node this deep or deeper with no hash move searches one ply less (0: off)
P_MATE_WIDTH = 13  # 1: a quiet node whose kept moves all lose by force searches the rest (no false mate from the width cut)
P_ROOT_LMR = 14  # 1: the root's late quiet moves get a reduced null-window look first, as inner PV nodes' do
P_SINGULAR = 15  # singular extension from this remaining depth (0: off): a hash move alone above the rest gets a ply more
P_SINGULAR_MARGIN = 16  # ... "alone": every other move fails below its hash value minus this many units a ply
P_CUT_LMR = 17  # plies more off a late move at an expected cut node (0: off)
P_HIST_LMR = 18  # 1: killers and the history (with a malus for moves that failed to cut) steer reductions
P_TT_GEN = 19  # this search's generation, 1-63, stored with each entry; 0: no ageing (depth alone keeps an entry)
P_DISTRACT = 20  # 1: against an open three, our own fours far from both last moves get more reduction (pruned near the horizon)
P_LATENT = 21  # weight of the latent-threat term: both sides' squares that make a three, squared (0: off)
P_COUNTER = 22  # 1: the quiet move that last refuted the opponent's previous move is tried after the killers
P_NET = 23  # 1: the network evaluation (`neteval`, the work's `net` state) gives the static value, 0: the tables
P_NET_POLICY = 24  # with P_NET: the policy head's logit times this joins a candidate's ordering score (0: off)
P_STATIC_MARGIN = 25  # the static cut's margin, evaluation units a ply of remaining depth
P_RAZOR_SCALE = 26  # the razor's margins (`RAZOR_MARGIN`) in hundredths
P_NET_AVG = 27  # with P_NET: 1, the value head reads the mean of this and the previous position's pool
P_LEAF_VCF = 28  # threat-search nodes a horizon node may spend proving a VCF (0: off) ...
P_LEAF_VCF_FOURS = 29  # ... when the side to move has at least this many squares that make a four
P_LEAF_VCF_WIDTH = 30  # ... narrowed past its first four to this many near fours a node (0: every four; `vct`)
P_DEFENCE_CAP = 31  # against an open three, at most min(this, DEFENCE_COUNT[depth]) moves once one holds (0: all)
P_MOVE_COUNT = 32  # quiet nodes' move count: 0, MOVE_COUNT_LIMIT (halved when not improving); 1, MOVE_COUNT_WIDE
P_LEN = 33

# depth-scaled selectivity (P_PRUNE 1), the shape the strong classical engines use: reductions grow
# with log(depth) * log(move number); past a move count that grows with depth the rest are not
# searched once a non-losing move is known; a null-window node whose static value stands a
# depth-scaled margin above beta (or, near the horizon, below alpha and its fours do not help) is
# cut. The margins are in evaluation units (250 a logit).
LOG100 = np.array([0] + [int(round(100 * np.log(i))) for i in range(1, 257)], dtype=np.int64)
MOVE_COUNT_LIMIT = np.array([3 + int(d ** 1.32) for d in range(MAX_PLY + 1)], dtype=np.int64)
# PentaZen's count at a node with no four or open three on the board: wider near the horizon
# (3, 9, 14, 18, 22 ... moves at 1-5 plies left, at most 32), the same whether improving or not
MOVE_COUNT_WIDE = np.array([3] + [min(32, int(round(15 * np.sqrt(d) - 12))) for d in range(1, MAX_PLY + 1)],
                           dtype=np.int64)
# against an open three (the blocks first, then our fours) PentaZen's count: 3, 5, 7, 8, 9, ... moves
# at 1, 2, 3, 4, 5 ... plies left, capped by P_DEFENCE_CAP
DEFENCE_COUNT = np.array([3] + [int(round(5 * np.sqrt(d) - 2)) for d in range(1, MAX_PLY + 1)], dtype=np.int64)
STATIC_CUT_DEPTH = 6  # reverse futility up to this remaining depth
STATIC_CUT_MARGIN = 60  # per ply of remaining depth (the default of P_STATIC_MARGIN)
RAZOR_MARGIN = (0, 40, 90)  # remaining depth 1, 2: static value this far below alpha -> quiescence (x P_RAZOR_SCALE / 100)
HIST_LMR_HIGH = 4  # hist_lmr: a history above this many depth**2 cut-offs reduces a ply less
TRIVIAL_DEPTH = 4  # below this remaining depth skip moves that give neither side even a two

# counters
K_NODES = 0
K_SELDEPTH = 1
K_VCT_NODES = 2  # threat-search nodes spent by the probes
K_VCT_WINS = 3  # probes that proved a win
K_LEN = 4

Work = namedtuple("Work", ["tt_key", "tt_data", "killers", "history", "moves", "scores", "counter",
                           "params", "stop", "attack", "defend", "eval_threat", "eval_tempo", "threat", "evals",
                           "skip", "cut", "counter_moves", "cmove", "net"])


def default_params() -> np.ndarray:
    p = np.zeros(P_LEN, dtype=np.int64)
    p[P_WIDTH] = 14
    p[P_QDEPTH] = 1
    p[P_LMR_MIN] = 4
    p[P_PRUNE] = 1
    p[P_VCT_DEPTH] = 0
    p[P_VCT_NODES] = 200
    p[P_VCT_THREES] = 2
    p[P_LMR_SCALE] = 100
    p[P_SINGULAR_MARGIN] = 4
    p[P_ROOT_LMR] = 1
    p[P_DISTRACT] = 1
    p[P_STATIC_MARGIN] = STATIC_CUT_MARGIN
    p[P_RAZOR_SCALE] = 100
    p[P_LEAF_VCF_FOURS] = 3
    return p


def new_tt(n_bytes: int) -> tuple[np.ndarray, np.ndarray]:
    """A table of about ``n_bytes`` (16 bytes an entry, power-of-two count). Zeroed lazily by the OS."""
    n = 1024
    while n * 2 * 16 <= n_bytes:
        n *= 2
    return np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=np.uint64)


def new_work(board, tt, params: np.ndarray, stop: np.ndarray, net=None) -> Work:
    """Per-thread scratch around a shared table ``tt`` (the history and killers are per thread).
    ``net``: a `neteval.state.NetState` of this board (its own: the state follows the board's
    moves), read when ``params[P_NET]`` is set; without one the tables evaluate."""
    if net is None:
        net = no_net()  # another numba type: the tables' kernels compile without the net's code
        params[P_NET] = 0
    size = int(board.meta[M_SIZE])
    if params[P_ORDER] == 1:
        attack, defend = runtime_order(int(board.meta[M_RULE]))
    else:
        _, attack, defend = combo_tables(int(board.meta[M_RULE]) == RULE_RENJU)
    _, threat, tempo = runtime_tables(int(board.meta[M_RULE]))
    return Work(tt[0], tt[1], np.zeros(MAX_PLY * 2, dtype=np.int32), np.zeros(2 * size, dtype=np.int32),
                np.zeros(MAX_PLY * MAX_MOVES, dtype=np.int32), np.zeros(MAX_PLY * MAX_MOVES, dtype=np.int32),
                np.zeros(K_LEN, dtype=np.int64), params, stop, attack, defend, threat, tempo,
                T.new_work(board, stop, 1 << 14), np.zeros(MAX_PLY + 2, dtype=np.int64),
                np.full(MAX_PLY + 2, -1, dtype=np.int64), np.zeros(MAX_PLY + 2, dtype=np.int64),
                np.full(2 * size, -1, dtype=np.int32), np.full(MAX_PLY + 2, -1, dtype=np.int64), net)


# ---------------------------------------------------------------------------------------------
# transposition table


@njit(cache=True, nogil=True, forceinline=True)
def _pack(value, depth, flag, move):
    return (np.uint64(value + 32768) | (np.uint64(depth & 0xFF) << np.uint64(16))
            | (np.uint64(flag) << np.uint64(24)) | (np.uint64(move) << np.uint64(32)))


@njit(cache=True, nogil=True, _nrt=False)
def tt_probe(w, key):
    """(found, value, depth, flag, move) for hash ``key``."""
    mask = np.uint64(w.tt_key.shape[0] - 2)
    i = key & mask
    for j in range(2):
        slot = i + np.uint64(j)
        data = w.tt_data[slot]
        if w.tt_key[slot] ^ data == key and data != 0:
            value = np.int64(data & np.uint64(0xFFFF)) - 32768
            depth = np.int64((data >> np.uint64(16)) & np.uint64(0xFF))
            flag = np.int64((data >> np.uint64(24)) & np.uint64(0x3))  # (the byte's top six bits: the generation)
            move = np.int64(data >> np.uint64(32))
            return True, value, depth, flag, move
    return False, 0, 0, 0, 0


@njit(cache=True, nogil=True, _nrt=False)
def tt_store(w, key, value, depth, flag, move):
    mask = np.uint64(w.tt_key.shape[0] - 2)
    i = key & mask
    gen = w.params[P_TT_GEN] & 63
    data = _pack(value, max(0, min(depth, 255)), flag | (gen << 2), move)
    d0 = np.int64((w.tt_data[i] >> np.uint64(16)) & np.uint64(0xFF))
    g0 = np.int64((w.tt_data[i] >> np.uint64(26)) & np.uint64(0x3F))
    same0 = (w.tt_key[i] ^ w.tt_data[i]) == key
    same1 = (w.tt_key[i + np.uint64(1)] ^ w.tt_data[i + np.uint64(1)]) == key
    # the first slot keeps the deeper entry, unless it is left from an earlier search (ageing)
    if same0 or (not same1 and (depth >= d0 or g0 != gen)):
        slot = i
    else:
        slot = i + np.uint64(1)
    w.tt_data[slot] = data
    w.tt_key[slot] = key ^ data


@njit(cache=True, nogil=True, forceinline=True)
def _to_tt(v, ply):
    if v > WIN_BOUND:
        return v + ply
    if v < -WIN_BOUND:
        return v - ply
    return v


@njit(cache=True, nogil=True, forceinline=True)
def _from_tt(v, ply):
    if v > WIN_BOUND:
        return v - ply
    if v < -WIN_BOUND:
        return v + ply
    return v


# ---------------------------------------------------------------------------------------------
# board questions


@njit(cache=True, nogil=True, forceinline=True)
def threat_mask(b, me, op):
    """Which threats each side can make somewhere, as the trained threat table's index (the bits
    of `core.evaltables.threat_mask`)."""
    c = b.cnt
    m = 1 if c[op, C_FIVE] > 0 else 0
    if c[me, C_FLEX4] > 0:
        m |= 2
    if c[op, C_FLEX4] > 0:
        m |= 4
    if c[me, C_FOUR3] > 0:
        m |= 8
    if c[me, C_FOUR] + c[me, C_FOURP] > 0:
        m |= 16
    if c[me, C_THREEP] + c[me, C_DOUBLE3] > 0:
        m |= 32
    if c[me, C_THREE] > 0:
        m |= 64
    if c[op, C_FOUR3] > 0:
        m |= 128
    if c[op, C_FOUR] + c[op, C_FOURP] > 0:
        m |= 256
    if c[op, C_THREEP] + c[op, C_DOUBLE3] > 0:
        m |= 512
    if c[op, C_THREE] > 0:
        m |= 1024
    return m


@njit(cache=True, nogil=True, forceinline=True)
def _pattern_sum(s_me, s_op):
    """Σ V_self over the mover's squares − Σ V_opp over the opponent's, from the packed sums (the
    low 32 bits hold V_opp's sum, signed; the rest V_self's)."""
    lo_me = ((s_me + 0x80000000) & 0xFFFFFFFF) - 0x80000000
    lo_op = ((s_op + 0x80000000) & 0xFFFFFFFF) - 0x80000000
    return ((s_me - lo_me) >> 32) - lo_op


@njit(cache=True, nogil=True, _nrt=False)
def evaluate(b, side, w):
    """Static value for ``side`` to move: the trained pattern-code sums the board keeps (the
    mover's squares by V_self, the opponent's by V_opp, `core.evaltables`), the threat table and
    the tempo of the mover's colour. With ``P_EVAL_AVG`` the pattern part is the mean of this
    position's and the previous one's (before the opponent's last move, seen from the same side)."""
    me = side - 1
    op = 1 - me
    v = _pattern_sum(b.vsum[me], b.vsum[op])
    if w.params[P_EVAL_AVG] != 0 and b.meta[M_TABLE] != 0:
        n = b.meta[M_NMOVES]
        if n > 0:
            h = b.vhist[n - 1]
            v = (v + _pattern_sum(h[me], h[op])) // 2
    v += w.eval_tempo[me] + w.eval_threat[me, threat_mask(b, me, op)]
    lat = w.params[P_LATENT]
    if lat != 0:
        v += lat * (_latent(b, me) - _latent(b, op)) // 16
    if v > WIN_BOUND - 1:
        v = WIN_BOUND - 1
    elif v < -(WIN_BOUND - 1):
        v = -(WIN_BOUND - 1)
    if w.params[P_NET] != 0:  # the net reads the tables' value beside its own features
        prev = -1
        if w.params[P_NET_AVG] != 0 and b.meta[M_NMOVES] > 0:
            prev = b.meta[M_NMOVES] - 1
        v = maybe_value(w.net, me, threat_mask(b, me, op), v, prev)
        if v > WIN_BOUND - 1:
            v = WIN_BOUND - 1
        elif v < -(WIN_BOUND - 1):
            v = -(WIN_BOUND - 1)
    return v


@njit(cache=True, nogil=True, forceinline=True)
def _latent(b, me):
    """The square of the count (up to 10) of side index ``me``'s squares that make an open three:
    many of them are the seed of a threat sequence, which the pattern sums count only linearly."""
    n = b.cnt[me, C_THREE] + b.cnt[me, C_THREEP] + b.cnt[me, C_DOUBLE3]
    if n > 10:
        n = 10
    return n * n


@njit(cache=True, nogil=True, forceinline=True)
def _far(b, q, r):
    """Whether squares q and r are more than 4 apart on either axis (r < 0: no such move)."""
    if r < 0:
        return False
    st = b.meta[M_STRIDE]
    return abs(q // st - r // st) > 4 or abs(q % st - r % st) > 4


@njit(cache=True, nogil=True, forceinline=True)
def _threat_makers(b, me):
    """Squares where side index ``me`` would make an open three or better (a VCT needs one)."""
    return b.cnt[me, C_THREE] + b.cnt[me, C_THREEP] + b.cnt[me, C_DOUBLE3] + _fours_of(b, me)


@njit(cache=True, nogil=True, forceinline=True)
def _fours_of(b, me):
    return b.cnt[me, C_FOUR] + b.cnt[me, C_FOUR + 1] + b.cnt[me, C_FOUR3] + b.cnt[me, C_FLEX4]


@njit(cache=True, nogil=True, _nrt=False)
def gen_moves(b, side, w, ply, mode, tt_move):
    """Fill w.moves[ply*MAX_MOVES:] with scored candidates (unsorted); returns the count.

    mode 0: every candidate; mode 1: defence against an open-four point (squares where the
    opponent would make a four, plus our own fours); mode 2: our fours only (quiescence).
    """
    me = side - 1
    op = 1 - me
    base0 = ply * MAX_MOVES
    n = 0
    width = b.meta[M_WIDTH]
    hist = w.history
    hoff = me * (w.history.shape[0] // 2)
    pol = w.params[P_NET_POLICY] if (mode == 0 and w.params[P_NET] != 0) else 0
    # modes 1 and 2 know how many squares they look for at most (the class counts): the scan
    # stops once it has them all (a four's square always has a stone within two, so none is
    # skipped by `nbr`; a square that is a four for both sides counts twice, and then the scan
    # just runs to the end)
    if mode == 2:
        wanted = _fours_of(b, me)
    elif mode == 1:
        wanted = _fours_of(b, me) + _fours_of(b, op)
    else:
        wanted = MAX_MOVES
    for y in range(b.meta[M_HEIGHT]):
        if n >= wanted:
            break
        base = (y + b.meta[M_PAD]) * b.meta[M_STRIDE] + b.meta[M_PAD]
        for q in range(base, base + width):
            if b.cells[q] != EMPTY or b.nbr[q] == 0:
                continue
            cm = b.cls[me, q]
            if mode == 1:
                co = b.cls[op, q]
                if not (cm >= C_FOUR and cm < C_FIVE) and not (co >= C_FOUR and co < C_FIVE):
                    continue
            elif mode == 2:
                if not (cm >= C_FOUR and cm < C_FIVE):
                    continue
            if n >= MAX_MOVES:
                break
            sc = w.attack[me, b.combo[me, q]] + w.defend[op, b.combo[op, q]]
            sc = sc * 8 + min(hist[hoff + q] >> 4, 4000)
            if pol != 0:
                sc += np.int64(pol * maybe_policy(w.net, me, q))
            if q == tt_move:
                sc = 1 << 28
            elif q == w.killers[2 * ply] or q == w.killers[2 * ply + 1]:
                sc += 1 << 20
            elif mode == 0 and q == w.cmove[ply]:
                sc += 1 << 19
            w.moves[base0 + n] = q
            w.scores[base0 + n] = sc
            n += 1
    return n


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def pick_next(w, base0, i, n):
    """Bring the best of moves[base0+i:base0+n] to position i (lazy selection: most nodes cut
    after a few moves, so sorting them all would be wasted)."""
    best = i
    bs = w.scores[base0 + i]
    for j in range(i + 1, n):
        if w.scores[base0 + j] > bs:
            bs = w.scores[base0 + j]
            best = j
    if best != i:
        q = w.moves[base0 + best]
        w.moves[base0 + best] = w.moves[base0 + i]
        w.scores[base0 + best] = w.scores[base0 + i]
        w.moves[base0 + i] = q
        w.scores[base0 + i] = bs


# ---------------------------------------------------------------------------------------------
# the search


# Both recursive kernels must see exactly one signature (numba's cache reloads a recursive
# function by its first-inferred types): every call site passes int64 scalars, np.int64(q) for
# squares read from int32 arrays.


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def _play(b, q, side, w):
    """`play` with the network's state kept in step when the net evaluates."""
    play(b, q, side)
    if w.params[P_NET] != 0:
        maybe_play(w.net, b, q, side)


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def _take(b, side, w):
    """`take` of a ``side`` stone, the network's state with it."""
    p = take(b)
    if w.params[P_NET] != 0:
        maybe_take(w.net, b, p, side)


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def _threat_win(b, side, nodes, vct, threes, narrow, w):
    """Does the threat search prove a win for ``side`` within ``nodes`` (VCT with up to
    ``threes`` threes when ``vct`` is 1, else VCF, narrowed to ``narrow`` near fours a node when
    > 0)? Its nodes and wins are counted as the probes'; the line's length is left in
    ``w.threat.counter[1]``, its first move in ``w.threat.line[0]``."""
    tw = w.threat
    tw.counter[0] = 0
    tw.counter[1] = 0
    tw.limits[0] = nodes
    tw.limits[1] = vct
    tw.limits[2] = 0
    tw.limits[4] = narrow
    r, _ = T.solve(b, side, threes, tw)
    w.counter[K_VCT_NODES] += tw.counter[0]
    if r != T.WIN:
        return False
    w.counter[K_VCT_WINS] += 1
    return True


@njit(cache=True, nogil=True, _nrt=False)
def quiesce(b, side, alpha, beta, ply, qdepth, last, w):
    """Horizon: stand pat on the evaluation, or play a four (a forced block follows)."""
    w.counter[K_NODES] += 1
    if w.stop[0] != 0:
        return NO_SCORE
    me = side - 1
    op = 1 - me
    if b.cnt[me, C_FIVE] > 0:
        return WIN - ply - 1
    nf = b.cnt[op, C_FIVE]
    if nf >= 2:
        return -(WIN - ply - 2)
    if nf == 1:
        q = find_class(b, op, C_FIVE, last)
        if q < 0 or not legal_for(b, q, side) or ply >= MAX_PLY - 2:
            return -(WIN - ply - 2)
        _play(b, q, side, w)
        v = quiesce(b, 3 - side, -beta, -alpha, ply + 1, qdepth, np.int64(q), w)
        _take(b, side, w)
        if v == NO_SCORE:
            return NO_SCORE
        return -v
    if b.cnt[me, C_FLEX4] > 0:
        return WIN - ply - 3
    if b.cnt[me, C_FOUR3] > 0 and _fours_of(b, op) == 0:
        return WIN - ply - 5
    stand = evaluate(b, side, w)
    if stand >= beta or qdepth <= 0 or ply >= MAX_PLY - 2 or _fours_of(b, me) == 0:
        return stand
    if w.params[P_LEAF_VCF] > 0 and qdepth == w.params[P_QDEPTH] and _fours_of(b, me) >= w.params[P_LEAF_VCF_FOURS]:
        # a win by fours alone the horizon's one four would not see: the threat search's VCF
        # (its own moves on the board, not the net's; the failures it proves it keeps)
        if _threat_win(b, side, w.params[P_LEAF_VCF], 0, 0, w.params[P_LEAF_VCF_WIDTH], w):
            return WIN - ply - w.threat.counter[1] - 1
    if stand > alpha:
        alpha = stand
    best = stand
    n = gen_moves(b, side, w, ply, 2, -1)
    base0 = ply * MAX_MOVES
    sort_moves(w, base0, n)
    for i in range(n):
        q = w.moves[base0 + i]
        if not legal_for(b, q, side):
            continue
        _play(b, q, side, w)
        v = quiesce(b, 3 - side, -beta, -alpha, ply + 1, qdepth - 1, np.int64(q), w)
        _take(b, side, w)
        if v == NO_SCORE:
            return NO_SCORE
        v = -v
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if v >= beta:
                    break
    return best


@njit(cache=True, nogil=True, _nrt=False)
def negamax(b, side, depth, alpha, beta, ply, last, w):
    """Score of the position for ``side`` to move, within (alpha, beta) fail-soft."""
    me = side - 1
    op = 1 - me
    # tactics first: these need no depth
    if b.cnt[me, C_FIVE] > 0:
        w.counter[K_NODES] += 1
        return WIN - ply - 1
    nf = b.cnt[op, C_FIVE]
    if nf >= 2:
        w.counter[K_NODES] += 1
        return -(WIN - ply - 2)
    if nf == 0:
        if b.cnt[me, C_FLEX4] > 0:
            w.counter[K_NODES] += 1
            return WIN - ply - 3
        if b.cnt[me, C_FOUR3] > 0 and _fours_of(b, op) == 0:
            w.counter[K_NODES] += 1
            return WIN - ply - 5
    if depth <= 0 and nf == 0:
        return quiesce(b, side, alpha, beta, ply, w.params[P_QDEPTH], np.int64(last), w)
    w.counter[K_NODES] += 1
    if w.stop[0] != 0:
        return NO_SCORE
    if w.params[P_MAX_NODES] > 0 and w.counter[K_NODES] > w.params[P_MAX_NODES]:
        return NO_SCORE
    if ply > w.counter[K_SELDEPTH]:
        w.counter[K_SELDEPTH] = ply
    if ply >= MAX_PLY - 2:
        return evaluate(b, side, w)
    # mate-distance pruning
    if alpha < -(WIN - ply):
        alpha = -(WIN - ply)
    if beta > WIN - ply - 1:
        beta = WIN - ply - 1
    if alpha >= beta:
        return alpha

    key = b.hash[0] ^ np.uint64(side)
    cut = w.cut[ply]  # 1: the parent expects this node to fail high (a null-window child)
    skip = w.skip[ply]
    if skip >= 0:  # the singular test's search without the hash move: an entry of its own
        key ^= np.uint64(skip + 1) * np.uint64(0x9E3779B97F4A7C15)
    found, tv, td, tf, tmove = tt_probe(w, key)
    if found:
        tv = _from_tt(tv, ply)
        if td >= depth:
            if tf == FLAG_EXACT or (tf == FLAG_LOWER and tv >= beta) or (tf == FLAG_UPPER and tv <= alpha):
                return tv
    else:
        tmove = -1
    if tmove < 0 and w.params[P_IIR] > 0 and depth >= w.params[P_IIR] and nf == 0:
        depth -= 1  # no hash move (the node is not in the table): a shallower look first

    sel = w.params[P_PRUNE] != 0
    improving = True
    if sel:
        ev = evaluate(b, side, w)
        w.evals[ply] = ev
        if ply >= 2:
            improving = ev > w.evals[ply - 2]
        if (nf == 0 and b.cnt[op, C_FLEX4] == 0 and b.cnt[op, C_FOUR3] == 0 and beta - alpha == 1
                and beta < WIN_BOUND and alpha > -WIN_BOUND):
            # a static cut: far above beta with little depth left, or hopeless near the horizon
            # unless its fours (the quiescence) find something
            if depth <= STATIC_CUT_DEPTH and ev - w.params[P_STATIC_MARGIN] * (depth - (1 if improving else 0)) >= beta:
                return ev
            if depth <= 2 and ev + RAZOR_MARGIN[depth] * w.params[P_RAZOR_SCALE] // 100 < alpha:
                v = quiesce(b, side, alpha, alpha + 1, ply, w.params[P_QDEPTH], np.int64(last), w)
                if v == NO_SCORE or v <= alpha:
                    return v

    # singular extension: when every other move stays well below the hash move's (lower-bound)
    # value on a shallower look, the hash move is the only one and gets a ply more
    ext_move = -1
    se = w.params[P_SINGULAR]
    if (se > 0 and depth >= se and skip < 0 and found and tmove >= 0 and nf == 0 and b.cnt[op, C_FLEX4] == 0
            and (tf & FLAG_LOWER) != 0 and td >= depth - 3 and tv > -WIN_BOUND and tv < WIN_BOUND
            and ply < MAX_PLY // 2):
        sb = tv - w.params[P_SINGULAR_MARGIN] * depth
        w.skip[ply] = tmove
        v = negamax(b, side, (depth - 1) // 2, sb - 1, sb, ply, np.int64(last), w)
        w.skip[ply] = -1
        if v == NO_SCORE:
            return NO_SCORE
        if v < sb:
            ext_move = tmove
        elif sb >= beta:
            return sb  # even without the hash move this node holds beta: a multi-cut

    base0 = ply * MAX_MOVES
    child_depth = depth - 1
    # a quiet node with a hash move searches it alone first and generates the other candidates
    # only if it does not cut; they are then scored with the history its subtree left
    staged = False
    if nf == 1:
        q = find_class(b, op, C_FIVE, last)
        if q < 0 or not legal_for(b, q, side):
            return -(WIN - ply - 2)
        w.moves[base0] = q
        n = 1
        child_depth = depth  # a forced block costs no depth
        mode = 3
    elif b.cnt[op, C_FLEX4] > 0:
        n = gen_moves(b, side, w, ply, 1, tmove)
        mode = 1
        if n == 0:
            return -(WIN - ply - 4)
        ext = w.params[P_EXTEND]
        if ext != 0 and ply < MAX_PLY // 2 and (ext == 1 or beta - alpha > 1):
            child_depth = depth  # a forced defence: the threat sequence is searched to its end
    else:
        # a forced win by threes and fours the horizon would not see: ask the threat search
        if beta - alpha > 1 and depth <= w.params[P_VCT_DEPTH] and depth >= 1 and _threat_makers(b, me) > 0:
            if _threat_win(b, side, w.params[P_VCT_NODES], 1, w.params[P_VCT_THREES], 0, w):
                v = WIN - ply - w.threat.counter[1] - 1
                tt_store(w, key, _to_tt(v, ply), depth, FLAG_LOWER, w.threat.line[0])
                return v
        if w.params[P_COUNTER] != 0:
            w.cmove[ply] = w.counter_moves[me * (w.counter_moves.shape[0] // 2) + last] if last >= 0 else -1
        mode = 0
        if tmove >= 0 and tmove < b.cells.shape[0] and b.cells[tmove] == EMPTY and b.nbr[tmove] > 0:
            # the hash move is a candidate and ordered first: searched before the rest is
            # generated, which a cut-off on it spares (`staged`)
            staged = True
            w.moves[base0] = tmove
            w.scores[base0] = 1 << 28
            n = 1
        else:
            n = gen_moves(b, side, w, ply, 0, tmove)
            if n == 0:
                return 0  # a full board: a draw
    limit = n
    if mode == 0 and n > w.params[P_WIDTH]:
        limit = w.params[P_WIDTH]

    alpha0 = alpha
    best = -INF
    best_move = w.moves[base0]
    searched = 0
    if w.params[P_MOVE_COUNT] != 0:
        move_limit = MOVE_COUNT_WIDE[min(depth, MAX_PLY)]
    else:
        move_limit = MOVE_COUNT_LIMIT[min(depth, MAX_PLY)]
        if not improving:
            move_limit = move_limit // 2
    i = -1
    while True:
        i += 1
        if staged and i == 1:
            # the hash move did not cut: every candidate now, the hash move at the head of the
            # list (the highest score) where it was searched
            staged = False
            n = gen_moves(b, side, w, ply, 0, tmove)
            pick_next(w, base0, 0, n)
            limit = n
            if n > w.params[P_WIDTH]:
                limit = w.params[P_WIDTH]
        if i >= n:
            break
        if i >= limit and (best > -WIN_BOUND or w.params[P_MATE_WIDTH] == 0):
            break  # the width cut; past it only while every move so far loses by force
        if mode != 3:
            pick_next(w, base0, i, n)
        q = w.moves[base0 + i]
        if q == skip or (side == 1 and not legal_for(b, q, side)):
            continue
        quiet = b.cls[me, q] < C_THREE and b.cls[op, q] < C_THREE
        # against an open three, a four of ours that blocks nothing and lies far from both last
        # moves mostly delays the defence (option distract): 2 plies more off when far from the
        # opponent's last move, 1 when far from ours; far from both, not searched near the horizon
        distract = 0
        if mode == 1 and w.params[P_DISTRACT] != 0 and b.cls[op, q] < C_FOUR:
            nm = b.meta[M_NMOVES]
            own_last = np.int64(b.stack[nm - 2]) if nm >= 2 else np.int64(-1)
            distract = (2 if _far(b, q, last) else 0) + (1 if _far(b, q, own_last) else 0)
            if distract == 3 and searched > 0 and best > -WIN_BOUND and depth < TRIVIAL_DEPTH:
                continue
        if (mode == 1 and w.params[P_DEFENCE_CAP] > 0 and best > -WIN_BOUND
                and searched >= min(DEFENCE_COUNT[min(depth, MAX_PLY)], w.params[P_DEFENCE_CAP])):
            break  # the defences and fours ordered later are not searched once one holds
        if sel and mode == 0 and searched > 0 and best > -WIN_BOUND and q != tmove:
            if searched >= move_limit:
                break  # the rest are ordered later still
            if depth < TRIVIAL_DEPTH and b.cls[me, q] <= C_LOW and b.cls[op, q] <= C_LOW:
                continue
        # late moves get a reduced null-window look first
        reduce = 0
        if sel:
            if depth >= 2 and searched >= 1 and mode != 3 and q != tmove:
                reduce = LOG100[depth] * LOG100[min(searched + 1, 256)] * w.params[P_LMR_SCALE] // 1000000
                if beta - alpha > 1:
                    reduce -= 1
                elif not improving:
                    reduce += 1
                if b.cls[me, q] >= C_THREE or b.cls[op, q] >= C_THREE:
                    reduce -= 1
                if cut != 0 and beta - alpha == 1:
                    reduce += w.params[P_CUT_LMR]
                reduce += distract
                if w.params[P_HIST_LMR] != 0 and mode == 0:
                    hq = w.history[me * (w.history.shape[0] // 2) + q]
                    if q == w.killers[2 * ply] or q == w.killers[2 * ply + 1] or hq > HIST_LMR_HIGH * depth * depth:
                        reduce -= 1
                    elif hq < 0:
                        reduce += 1
                if reduce > depth - 1:
                    reduce = depth - 1
                if reduce < 0:
                    reduce = 0
        elif mode == 0 and depth >= 3 and searched >= w.params[P_LMR_MIN] and q != tmove and quiet:
            reduce = 1 if searched < 12 else 2
        cd = child_depth + 1 if q == ext_move else child_depth
        _play(b, q, side, w)
        # the child's node type: the first move of a PV node is PV, of any other node the
        # opposite of this one; a reduced look expects a cut, its re-search the opposite
        if searched == 0:
            w.cut[ply + 1] = 0 if beta - alpha > 1 else 1 - cut
            v = negamax(b, 3 - side, cd, -beta, -alpha, ply + 1, np.int64(q), w)
        else:
            w.cut[ply + 1] = 1 if reduce > 0 else 1 - cut
            v = negamax(b, 3 - side, cd - reduce, -alpha - 1, -alpha, ply + 1, np.int64(q), w)
            if v != NO_SCORE and -v > alpha and reduce > 0:
                w.cut[ply + 1] = 1 - cut
                v = negamax(b, 3 - side, cd, -alpha - 1, -alpha, ply + 1, np.int64(q), w)
            if v != NO_SCORE and -v > alpha and -v < beta:
                w.cut[ply + 1] = 0
                v = negamax(b, 3 - side, cd, -beta, -alpha, ply + 1, np.int64(q), w)
        _take(b, side, w)
        if v == NO_SCORE:
            return NO_SCORE
        v = -v
        searched += 1
        if v > best:
            best = v
            best_move = q
            if v > alpha:
                alpha = v
                if v >= beta:
                    if mode == 0 and b.cls[me, q] < C_FOUR:
                        if w.killers[2 * ply] != q:
                            w.killers[2 * ply + 1] = w.killers[2 * ply]
                            w.killers[2 * ply] = q
                        hoff = me * (w.history.shape[0] // 2)
                        w.history[hoff + q] += depth * depth
                        if w.params[P_COUNTER] != 0 and last >= 0:
                            w.counter_moves[hoff + last] = q
                        if w.params[P_HIST_LMR] != 0:
                            # a malus for the quiet moves tried before it that did not cut
                            for j in range(i):
                                qj = w.moves[base0 + j]
                                if qj != q and b.cls[me, qj] < C_FOUR:
                                    w.history[hoff + qj] -= depth * depth
                    break
    if searched == 0:
        return -(WIN - ply - 2)  # renju: every move a foul
    if best <= alpha0:
        flag = FLAG_UPPER
    elif best >= beta:
        flag = FLAG_LOWER
    else:
        flag = FLAG_EXACT
    tt_store(w, key, _to_tt(best, ply), depth, flag, best_move)
    return best


@njit(cache=True, nogil=True, _nrt=False)
def search_root(b, side, depth, alpha, beta, root_moves, root_scores, n_root, w):
    """One iteration over root_moves[:n_root] in order, PVS. Fills root_scores (exact for the
    best, bounds for the rest); returns (index of the best, its score, moves finished), or
    best index -1 when stopped before the first move finished."""
    best_i = -1
    best = -INF
    done = 0
    ply1 = depth - depth + 1
    a = alpha
    w.evals[0] = evaluate(b, side, w)  # the grandchildren ask whether their side is improving
    for i in range(n_root):
        q = root_moves[i]
        if b.cls[side - 1, q] == C_FIVE:
            # the move makes five: the game ends (inside the tree a five square ends the node before
            # it is played, so only the root plays one, and the child would not see the made five)
            v = WIN - 1
        else:
            reduce = 0
            if (w.params[P_ROOT_LMR] != 0 and i >= 2 and depth >= 3
                    and b.cls[side - 1, q] < C_THREE and b.cls[2 - side, q] < C_THREE):
                reduce = LOG100[depth] * LOG100[min(i + 1, 256)] * w.params[P_LMR_SCALE] // 1000000 - 1
                if reduce > depth - 2:
                    reduce = depth - 2
            _play(b, q, side, w)
            if i == 0:
                w.cut[1] = 0
                v = negamax(b, 3 - side, depth - 1, -beta, -a, ply1, np.int64(q), w)
            else:
                w.cut[1] = 1  # a null-window child of the root is expected to fail high
                v = NO_SCORE + 1  # (no reduced look yet)
                if reduce > 0:
                    v = negamax(b, 3 - side, depth - 1 - reduce, -a - 1, -a, ply1, np.int64(q), w)
                if v != NO_SCORE and (reduce <= 0 or -v > a):
                    v = negamax(b, 3 - side, depth - 1, -a - 1, -a, ply1, np.int64(q), w)
                if v != NO_SCORE and -v > a and -v < beta:
                    w.cut[1] = 0
                    v = negamax(b, 3 - side, depth - 1, -beta, -a, ply1, np.int64(q), w)
            _take(b, side, w)
            if v == NO_SCORE:
                break
            v = -v
        root_scores[i] = v
        done += 1
        if v > best:
            best = v
            best_i = i
            if v > a:
                a = v
            if v >= beta:
                break
    return best_i, best, done


@njit(cache=True, nogil=True)
def root_candidates(b, side, w, out):
    """Every candidate for the root (mode 0 generation, no width cut) into ``out``; returns n."""
    me = side - 1
    op = 1 - me
    if b.cnt[op, C_FIVE] > 0 and b.cnt[me, C_FIVE] == 0:  # (a five of our own comes before any block)
        q = find_class(b, op, C_FIVE, -1)
        if q >= 0 and legal_for(b, q, side):
            out[0] = q
            return 1
        # renju: the block is a foul for black -- lost, but any legal move must still be played
    mode = 1 if b.cnt[op, C_FLEX4] > 0 and b.cnt[me, C_FIVE] == 0 else 0
    n = gen_moves(b, side, w, 0, mode, -1)
    if n == 0 and mode == 1:
        n = gen_moves(b, side, w, 0, 0, -1)
    sort_moves(w, 0, n)
    m = 0
    for i in range(n):
        q = w.moves[i]
        if legal_for(b, q, side):
            out[m] = q
            m += 1
    return m
