"""Monte Carlo tree search kernels on the core board (`core/board.py`: make/unmake, the pattern
layer, the core's threat helpers) and flat tree arrays (numba, no Python objects in the loop).

One search tree is a struct of arrays (`Tree`); node 0 is the root. A node's children are a
contiguous block allocated when the node is first expanded, sorted by prior so progressive
widening only has to look at a prefix. Values are stored from the point of view of the player
who made the move into the node ("mover"), so a parent maximises over its children directly.

Two modes share the kernel:

* plain (the papers' baseline): every empty square is a child, uniform order, UCB1 with
  c = sqrt(2), random playouts over the whole board, no proofs;
* improved: candidates within distance 2, priors from a square's threat score mapped into
  [-1, 1] (the core's line-score `move_score`, or on table boards the pattern layer's threat
  classes), progressive widening, immediate checks at every expansion (a win-in-1 is the only
  child; a single opponent five-square is the only child), MCTS-solver proofs that propagate up
  the tree, and a leaf value from heavy or depth-limited playouts or (``LEAF_EVAL``, table boards)
  from the PVS's class-count evaluation without any playout.

Each iteration reports the ply (from the root) at which its playout ended, so the driver can
trigger Li's depth-k minimax (`gomocup_bot.search.mcts_driver`).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from gomocup_bot.core.board import make, to_pos, unmake
from gomocup_bot.core.classes import ATTACK_ORDER, C_FIVE, DEFEND_ORDER
from gomocup_bot.core.constants import EMPTY, M_HEIGHT, M_NMOVES, M_RULE, M_TABLE, M_WIDTH
from gomocup_bot.core.patterns import evaluate, move_score, sync_patterns
from gomocup_bot.core.playouts import light_playout, light_work_size
from gomocup_bot.core.rng import rand_below, rand_unit
from gomocup_bot.core.rules import is_legal, line_wins
from gomocup_bot.neteval.optional import maybe_play, maybe_policy, maybe_take
from gomocup_bot.search.pvs import P_NET
from gomocup_bot.search.pvs import evaluate as pvs_evaluate
from gomocup_bot.search.pvs import INF, WIN, WIN_BOUND, find_class
from gomocup_bot.search.pvs import quiesce as pvs_quiesce
from gomocup_bot.search.sudden import fouls_apply, win_squares, wins_now

# integer parameters
I_MODE, I_PLAYOUT, I_PDEPTH, I_TRIGGER_K, I_SAMPLE, I_LEAF, I_PRIOR, I_QDEPTH, I_SELECT = 0, 1, 2, 3, 4, 5, 6, 7, 8
I_LEN = 9
MODE_PLAIN, MODE_IMPROVED = 0, 1
PLAYOUT_RANDOM, PLAYOUT_LIGHT, PLAYOUT_HEAVY, PLAYOUT_DEPTH = 0, 1, 2, 3
LEAF_PLAYOUT, LEAF_EVAL, LEAF_QUIESCE = 0, 1, 2  # a new leaf's value: a playout, the class-count
# evaluation, or the PVS's quiescence search (the evaluation after the forced fours)
PRIOR_SCORE, PRIOR_CLASS, PRIOR_NET = 0, 1, 2  # priors from the line-score `move_score`, the threat
# classes, or the network's policy head (a softmax of its logits at temperature ``F_PRIOR_TEMP``)
SELECT_UCB, SELECT_PUCT = 0, 1  # UCB with the prior as virtual wins, or PUCT with the prior a probability
# float parameters
F_C, F_PRIOR_W, F_PW_BASE, F_PW_A, F_PW_B, F_GREEDY, F_LAMBDA, F_PRIOR_SCALE, F_EVAL_SCALE = 0, 1, 2, 3, 4, 5, 6, 7, 8
F_FPU, F_PRIOR_TEMP = 9, 10  # PUCT: an unvisited child's value below its parent's; the policy's temperature
F_LEN = 11
# stats
S_ITER, S_TRIGGER_LOSS, S_TRIGGER_WIN, S_FULL, S_MAXDEPTH = 0, 1, 2, 3, 4
# node flags
FL_MARK_DEATH, FL_MARK_WIN, FL_EXCLUDED, FL_CHECKED = 1, 2, 4, 8
# `first` values: -1 not expanded, -2 no legal move (a draw), -3 being expanded by another thread
FIRST_DRAW, FIRST_BUSY = -2, -3
VIRTUAL_LOSS = 1.0  # tree parallel: a visit in flight counts as a loss for the node's mover

NODE_BYTES = 4 + 4 + 4 + 4 + 8 + 4 + 1 + 1  # move, first, nch, visits, wsum, prior, proven, flags
REROOT_BYTES = 8  # per node at most, transient, while a subtree is compacted for reuse (`Tree.reroot`)


class Tree:
    """The arrays of one search tree, sized from a node capacity."""

    def __init__(self, capacity: int) -> None:
        capacity = max(1024, int(capacity))
        self.capacity = capacity
        # np.zeros maps lazily zeroed pages: a big tree costs nothing until it is used;
        # `expand` initialises every field of the children it creates
        self.move = np.zeros(capacity, dtype=np.int32)
        self.first = np.zeros(capacity, dtype=np.int32)
        self.nch = np.zeros(capacity, dtype=np.int32)
        self.visits = np.zeros(capacity, dtype=np.int32)
        self.wsum = np.zeros(capacity, dtype=np.float64)
        self.prior = np.zeros(capacity, dtype=np.float32)
        self.proven = np.zeros(capacity, dtype=np.int8)
        self.flags = np.zeros(capacity, dtype=np.int8)
        self.count = np.ones(1, dtype=np.int64)  # node 0 is the root
        self.move[0] = -1
        self.first[0] = -1

    @classmethod
    def for_memory(cls, budget_bytes: int) -> "Tree":
        return cls(budget_bytes // NODE_BYTES)

    def reset(self) -> None:
        """Forget every node but a bare root. O(1): `expand` initialises each block it creates,
        so stale entries past ``count`` are never read (zeroing them touched the whole tree)."""
        self.move[0] = -1
        self.first[0] = -1
        self.nch[0] = 0
        self.visits[0] = 0
        self.wsum[0] = 0.0
        self.prior[0] = 0.0
        self.proven[0] = 0
        self.flags[0] = 0
        self.count[0] = 1

    def reroot(self, node: int, any_layout: bool = False) -> int:
        """Make ``node`` the root, keeping its subtree (statistics and proofs) and dropping the rest.

        Returns the new node count. Root flags (marks, exclusions) are cleared: they belong to one
        search. A tree filled by one thread needs a transient int32 per node (`compact_subtree`);
        a shared tree (``any_layout``, children may sit below their parent) two per kept node
        (`compact_any`).
        """
        n = int(self.count[0])
        if any_layout:
            order = np.empty(self.capacity, dtype=np.int32)  # lazily mapped: only the kept part is touched
            nfirst = np.empty(self.capacity, dtype=np.int32)
            self.count[0] = compact_any(node, *self.arrays()[:-1], order, nfirst)
            return int(self.count[0])
        if node == 0:
            self.flags[:n] = 0
            return n
        newpos = np.empty(n, dtype=np.int32)
        return int(compact_subtree(node, *self.arrays(), newpos))

    def arrays(self):
        return (self.move, self.first, self.nch, self.visits, self.wsum, self.prior, self.proven,
                self.flags, self.count)


@njit(cache=True, nogil=True, forceinline=True)
def _step(b, p, side, ev):
    """`make` on the way down the tree, the network's state with it when the net evaluates (the
    leaves read its value, the expansions its policy). Playouts keep to `make`: they read no net
    and take back every stone they play, so the state is right again at the leaf."""
    make(b, p, side)
    if ev.params[P_NET] != 0:
        maybe_play(ev.net, b, p, side)


@njit(cache=True, nogil=True, forceinline=True)
def _back(b, ev):
    """`unmake` of the last tree move, the network's state with it."""
    if ev.params[P_NET] != 0:
        p = b.stack[b.meta[M_NMOVES] - 1]
        colour = b.cells[p]
        unmake(b)
        maybe_take(ev.net, b, p, colour)
    else:
        unmake(b)


@njit(cache=True, nogil=True)
def expand(b, node, c, move, first, nch, visits, wsum, prior, proven, flags, count, ip, fp, rng, allowed, buf, ev):
    """Create the children of ``node`` (side c to move). Returns False if the tree is full.

    ``allowed`` (root only, may be empty) restricts the children to those squares. Under renju
    black's forbidden squares are never children; a five black could only block on one leaves
    every legal move as a child (each then loses to the five, which the solver proves).
    Squares are listed in board order, row by row (the padding around the board is never a move).
    ``buf``: int32 scratch of at least width*height + 1. ``ev``: the thread's PVS work record, whose
    network state (kept in step by `_step`) gives the policy priors (``PRIOR_NET``).
    """
    w = b.meta[M_WIDTH]
    h = b.meta[M_HEIGHT]
    cells = b.cells
    cap = move.shape[0]
    start = count[0]
    n = 0
    fouls = fouls_apply(b, c)
    if ip[I_MODE] == MODE_PLAIN:
        for y in range(h):
            base = to_pos(b, 0, y)
            for p in range(base, base + w):
                if cells[p] != EMPTY:
                    continue
                if allowed.shape[0] > 0 and not _member(allowed, p):
                    continue
                if fouls and not is_legal(b, p, c):
                    continue
                if start + n >= cap:
                    return False
                move[start + n] = p
                n += 1
        # random order: unvisited children are tried in this order
        for i in range(n - 1, 0, -1):
            j = rand_below(rng, i + 1)
            t = move[start + i]
            move[start + i] = move[start + j]
            move[start + j] = t
        for i in range(n):
            prior[start + i] = 0.0
    else:
        forced = -1
        nw = win_squares(b, c, buf)
        if nw > 0 and (allowed.shape[0] == 0 or _member(allowed, buf[0])):
            forced = buf[0]
        elif nw == 0:
            nf = win_squares(b, 3 - c, buf)
            if nf == 1 and (allowed.shape[0] == 0 or _member(allowed, buf[0])):
                if not (fouls and not is_legal(b, buf[0], c)):
                    forced = buf[0]
        if forced >= 0:
            if start + 1 > cap:
                return False
            move[start] = forced
            prior[start] = 1.0
            n = 1
        else:
            sync_patterns(b)  # k > 5: the move scores read the pattern codes
            by_class = ip[I_PRIOR] == PRIOR_CLASS
            by_net = ip[I_PRIOR] == PRIOR_NET and ev.params[P_NET] != 0
            view = c - 1
            scores = np.empty(w * h, dtype=np.float64)
            for y in range(h):
                base = to_pos(b, 0, y)
                for p in range(base, base + w):
                    if cells[p] != EMPTY or b.nbr[p] == 0:
                        continue
                    if allowed.shape[0] > 0 and not _member(allowed, p):
                        continue
                    if fouls and not is_legal(b, p, c):
                        continue
                    if start + n >= cap:
                        return False
                    move[start + n] = p
                    if by_net:
                        scores[n] = maybe_policy(ev.net, view, p)
                    elif by_class:
                        scores[n] = class_score(b, c, p)
                    else:
                        scores[n] = move_score(b, c, p)
                    n += 1
            if n == 0:
                # empty board (or only far squares allowed, or every candidate a renju foul):
                # every allowed legal empty square, the centre first
                by_net = False
                centre = to_pos(b, w // 2, h // 2)
                for y in range(h):
                    base = to_pos(b, 0, y)
                    for p in range(base, base + w):
                        if cells[p] != EMPTY:
                            continue
                        if allowed.shape[0] > 0 and not _member(allowed, p):
                            continue
                        if fouls and not is_legal(b, p, c):
                            continue
                        if start + n >= cap:
                            return False
                        move[start + n] = p
                        scores[n] = -abs(p - centre)
                        n += 1
            order = np.argsort(-scores[:n])
            tmp = move[start:start + n].copy()
            ts = scores[:n].copy()
            top = ts[order[0]] if n > 0 else 1.0
            best = top  # the softmax subtracts the largest logit (no overflow)
            if top <= 0.0:
                top = 1.0
            total = 0.0
            for i in range(n):
                move[start + i] = tmp[order[i]]
                s = ts[order[i]]
                if by_net:  # softmax of the policy's logits
                    pr = math.exp((s - best) / fp[F_PRIOR_TEMP])
                else:  # in (-1, 1): the best squares near +1, the weakest near -1
                    pr = 2.0 * (s / top if s > 0.0 else 0.0) ** fp[F_PRIOR_SCALE] - 1.0
                    if ip[I_SELECT] == SELECT_PUCT:
                        pr = 0.5 * (pr + 1.0)  # a weight for PUCT's probability
                prior[start + i] = pr
                total += pr
            if (by_net or ip[I_SELECT] == SELECT_PUCT) and total > 0.0:
                for i in range(n):
                    prior[start + i] = prior[start + i] / total
    for i in range(n):
        first[start + i] = -1
        nch[start + i] = 0
        proven[start + i] = 0
        flags[start + i] = 0
        visits[start + i] = 0
        wsum[start + i] = 0.0
    first[node] = start
    nch[node] = n
    count[0] = start + n
    return True


@njit(cache=True, nogil=True, forceinline=True)
def class_score(b, c, p):
    """Ordering score of c on p from the pattern layer's threat classes (table boards): what the
    square makes for c plus what it takes from the opponent (the PVS's ordering tables)."""
    return float(ATTACK_ORDER[b.cls[c - 1, p]] + DEFEND_ORDER[b.cls[2 - c, p]])


@njit(cache=True, nogil=True)
def _member(arr, p):
    for i in range(arr.shape[0]):
        if arr[i] == p:
            return True
    return False


@njit(cache=True, nogil=True)
def select_child(node, f, n, move, visits, wsum, prior, proven, flags, ip, fp):
    """UCB choice among the (widened) children of ``node``, the block ``[f, f + n)``; -1 if every
    child is proven lost. The caller reads the block once: in a shared tree another thread may
    rewrite ``first[node]`` between two reads (a claim writes a negative marker there)."""
    N = visits[node]
    plain = ip[I_MODE] == MODE_PLAIN
    puct = not plain and ip[I_SELECT] == SELECT_PUCT
    if plain or puct:  # PUCT widens by its priors: every child is a candidate
        limit = n
    else:
        limit = int(fp[F_PW_BASE] + fp[F_PW_A] * (N + 1.0) ** fp[F_PW_B])
        if limit > n:
            limit = n
        if limit < 1:
            limit = 1
    logn = math.log(N + 1.0)
    root_n = 0.0
    fpu = 0.0
    if puct:  # only PUCT reads these (UCB's selection, the default, pays nothing for them)
        root_n = math.sqrt(N + 1.0)
        # first-play urgency: an unvisited child is worth its parent's mean for its mover, less F_FPU
        fpu = (-wsum[node] / N if N > 0 else 0.0) - fp[F_FPU]
    c = fp[F_C]
    pw = fp[F_PRIOR_W]
    best = -1
    best_v = -1e300
    for i in range(f, f + limit):
        if flags[i] & FL_EXCLUDED:
            continue
        if proven[i] == 1:
            return i
        if proven[i] == -1:
            continue
        v_i = visits[i]
        if plain:
            if v_i == 0:
                return i
            q = wsum[i] / v_i
            u = q + c * math.sqrt(logn / v_i)
        elif puct:
            q = wsum[i] / v_i if v_i > 0 else fpu
            u = q + c * prior[i] * root_n / (1.0 + v_i)
        else:
            q = (wsum[i] + prior[i] * pw) / (v_i + pw)
            u = q + c * math.sqrt(logn / (v_i + 1.0))
        if u > best_v:
            best_v = u
            best = i
    if best < 0:
        # every widened child is lost: look at the rest before giving up
        for i in range(f + limit, f + n):
            if flags[i] & FL_EXCLUDED or proven[i] == -1:
                continue
            return i
    return best


@njit(cache=True, nogil=True)
def _update_proof(node, first, nch, proven, flags):
    """MCTS-solver: settle ``node`` from its children (values are from each node's mover)."""
    f = first[node]
    n = nch[node]
    if n == 0 or f < 0:
        return
    all_lost = True
    for i in range(f, f + n):
        if flags[i] & FL_EXCLUDED:
            continue
        if proven[i] == 1:
            proven[node] = -1
            return
        if proven[i] != -1:
            all_lost = False
    if all_lost:
        proven[node] = 1


@njit(cache=True, nogil=True)
def new_scratch(b):
    """The per-thread work buffers of one kernel call: (int32 square list, int64 empties list and
    its index, the light playout's line words)."""
    w = b.meta[M_WIDTH]
    h = b.meta[M_HEIGHT]
    size = b.cells.shape[0]
    return (np.empty(w * h + 1, dtype=np.int32), np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64),
            np.empty(light_work_size(w, h), dtype=np.uint64))


@njit(cache=True, nogil=True)
def random_playout(b, c, rng, empt):
    """Li's baseline: uniform moves over every empty square until a win or a full board. Returns
    (result for c, plies, terminal). Reads nothing but the cells, so it writes only the cells (the
    keys, layer, hash and neighbourhood would be work for nobody) and clears them again."""
    cells = b.cells
    k = b.meta[2]
    rule = b.meta[M_RULE]
    dirs = b.dirs
    ne = 0
    w = b.meta[M_WIDTH]
    for y in range(b.meta[M_HEIGHT]):
        base = to_pos(b, 0, y)
        for p in range(base, base + w):
            if cells[p] == EMPTY:
                empt[ne] = p
                ne += 1
    side = c
    result = 0.0
    terminal = False
    left = ne
    while left > 0:
        i = rand_below(rng, left)
        p = empt[i]
        left -= 1
        empt[i] = empt[left]
        empt[left] = p  # the played squares collect at the end, to be cleared
        won = (line_wins(cells, p, dirs[0], side, k, rule) or line_wins(cells, p, dirs[1], side, k, rule)
               or line_wins(cells, p, dirs[2], side, k, rule) or line_wins(cells, p, dirs[3], side, k, rule))
        cells[p] = side
        if won:
            result = 1.0 if side == c else -1.0
            terminal = True
            break
        side = 3 - side
    for j in range(left, ne):
        cells[empt[j]] = EMPTY
    return result, ne - left, terminal


@njit(cache=True, nogil=True)
def playout(b, c, ip, fp, rng, scratch):
    """Play from the current position with c to move. Returns (result for c, plies played, terminal).

    Random: `random_playout`. Light: the core's bit-word playout (uniform among squares near a
    stone). Heavy / depth: win > block a five > with probability ``F_GREEDY`` the best of
    ``I_SAMPLE`` sampled squares near a stone > a random square near a stone. On table boards the
    five squares come from the pattern layer's class counts and the samples are scored by their
    classes (`class_score`: array reads only -- every call that takes the board costs reference
    counting on its 16 arrays, which made the first port's playouts 1.5 µs a ply). Boards with
    k > 5 keep no layer (their codes cost a whole-board sync): every kind plays light there;
    depth playouts stop after ``I_PDEPTH`` plies and score the position with the core's bounded
    Dong & Zhang evaluation. Every stone is taken back before returning.
    """
    kind = ip[I_PLAYOUT]
    buf, empt, where, work = scratch
    if kind == PLAYOUT_RANDOM:
        return random_playout(b, c, rng, empt)
    if kind == PLAYOUT_LIGHT or not b.meta[M_TABLE]:
        # k > 5 keeps no pattern layer (its codes cost a whole-board sync): light playouts there
        winner, plies = light_playout(b, c, rng, work, buf)
        if winner == 0:
            return 0.0, plies, False
        return (1.0 if winner == c else -1.0), plies, True
    cells = b.cells
    nbr = b.nbr
    depth_cap = cells.shape[0] if kind != PLAYOUT_DEPTH else ip[I_PDEPTH]
    sample = ip[I_SAMPLE]
    greedy = fp[F_GREEDY]
    n0 = b.meta[M_NMOVES]
    result = 0.0
    terminal = False
    side = c
    ne = 0
    w = b.meta[M_WIDTH]
    for y in range(b.meta[M_HEIGHT]):
        base = to_pos(b, 0, y)
        for p in range(base, base + w):
            if cells[p] == EMPTY:
                empt[ne] = p
                where[p] = ne
                ne += 1
    last = b.stack[n0 - 1] if n0 > 0 else 0
    plies = 0
    while plies < depth_cap and ne > 0:
        p = -1
        # the layer's class counts say whether a five square exists (C_FIVE is exact but for
        # caro's both-ends block, which `wins_now` below then decides)
        if b.cnt[side - 1, C_FIVE] > 0:
            p = find_class(b, side - 1, C_FIVE, last)
        elif b.cnt[2 - side, C_FIVE] > 0:
            p = find_class(b, 2 - side, C_FIVE, last)
        if p < 0 and rand_unit(rng) < greedy:
            best_s = -1.0
            for t in range(sample):
                q = _random_near(cells, nbr, empt, ne, rng)
                s = class_score(b, side, q)
                if s > best_s:
                    best_s = s
                    p = q
        if p < 0:
            p = _random_near(cells, nbr, empt, ne, rng)
        i = where[p]
        tail = empt[ne - 1]
        empt[i] = tail
        where[tail] = i
        ne -= 1
        won = wins_now(b, p, side)
        make(b, p, side)
        last = p
        plies += 1
        if won:
            result = 1.0 if side == c else -1.0
            terminal = True
            break
        side = 3 - side
    if not terminal and kind == PLAYOUT_DEPTH and ne > 0:
        v = evaluate(b, side, fp[F_LAMBDA])
        result = v if side == c else -v
    while b.meta[M_NMOVES] > n0:
        unmake(b)
    return result, plies, terminal


@njit(cache=True, nogil=True)
def leaf_value(b, side, ip, fp, ev, rng, scratch):
    """The value of a new leaf for ``side`` to move: (value, plies to the end, terminal).

    ``LEAF_EVAL`` (table boards): the pattern layer decides what is certain -- a five square of the
    side wins, two of the opponent lose -- and otherwise the PVS's class-count evaluation, squashed
    to (-1, 1) (``tanh(v / F_EVAL_SCALE)``; the weights were fitted at 250 units a logit, so 500
    makes the value 2·P(win) − 1). ``LEAF_QUIESCE`` (table boards): the PVS's quiescence search from
    the leaf (forced blocks, open fours and four-threes as wins, up to ``I_QDEPTH`` fours played),
    its mate scores as certain results, the rest squashed the same way; ``ev`` must then be the
    thread's own work record. ``LEAF_PLAYOUT``: `playout`.
    """
    leaf = ip[I_LEAF]
    if leaf == LEAF_QUIESCE:
        n = b.meta[M_NMOVES]
        last = np.int64(b.stack[n - 1]) if n > 0 else np.int64(0)
        v = pvs_quiesce(b, np.int64(side), np.int64(-INF), np.int64(INF), np.int64(0), np.int64(ip[I_QDEPTH]), last, ev)
        if v >= WIN_BOUND:
            return 1.0, WIN - v, True
        if v <= -WIN_BOUND:
            return -1.0, WIN + v, True
        return math.tanh(v / fp[F_EVAL_SCALE]), 0, False
    if leaf == LEAF_EVAL:
        me = side - 1
        if b.cnt[me, C_FIVE] > 0:
            return 1.0, 1, True
        if b.cnt[1 - me, C_FIVE] >= 2:
            return -1.0, 2, True
        v = pvs_evaluate(b, side, ev)
        return math.tanh(v / fp[F_EVAL_SCALE]), 0, False
    return playout(b, side, ip, fp, rng, scratch)


@njit(cache=True, nogil=True, forceinline=True)
def _random_near(cells, nbr, empt, ne, rng):
    for _ in range(24):
        q = empt[rand_below(rng, ne)]
        if nbr[q] > 0:
            return q
    return empt[rand_below(rng, ne)]


@njit(cache=True, nogil=True)
def run_iterations(b, root_c, n_iter, move, first, nch, visits, wsum, prior,
                   proven, flags, count, ip, fp, ev, rng, allowed, stop, stats):
    """Run up to ``n_iter`` MCTS iterations from the root position on ``cells``.

    Returns the number of iterations run. Stops early on the stop flag or a proven root. ``ev``:
    the PVS work record whose evaluation weights `leaf_value` reads.
    ``stats[S_TRIGGER_LOSS/WIN]`` count playouts that ended in a loss/win for the root side within
    ``ip[I_TRIGGER_K]`` plies of the root (the root child of such an iteration gets marked).
    """
    path = np.empty(b.cells.shape[0] + 2, dtype=np.int64)
    scratch = new_scratch(b)
    trig_k = ip[I_TRIGGER_K]
    improved = ip[I_MODE] == MODE_IMPROVED
    done = 0
    for it in range(n_iter):
        if stop[0] != 0:
            break
        if proven[0] != 0:
            break
        # --- selection / expansion
        node = 0
        depth = 0
        side = root_c
        value = 0.0  # result for the root side
        terminal_ply = -1
        path[0] = 0
        while True:
            if nch[node] == 0:
                if proven[node] != 0 or first[node] == -2:
                    break
                if visits[node] == 0 and node != 0:
                    break  # first visit of a leaf: play out from here
                ok = expand(b, node, side, move, first, nch, visits, wsum, prior, proven,
                            flags, count, ip, fp, rng, allowed if node == 0 else allowed[:0], scratch[0], ev)
                if not ok:
                    stats[S_FULL] = 1
                    break
                if nch[node] == 0:
                    first[node] = -2  # no legal move: a draw
                    break
            ch = select_child(node, first[node], nch[node], move, visits, wsum, prior, proven, flags, ip, fp)
            if ch < 0:
                break
            p = move[ch]
            won = wins_now(b, p, side)
            _step(b, p, side, ev)
            depth += 1
            path[depth] = ch
            node = ch
            if won:
                if improved:
                    proven[ch] = 1
                terminal_ply = depth
                value = 1.0 if side == root_c else -1.0
                side = 3 - side
                break
            side = 3 - side
            if improved and proven[ch] != 0:
                break
        # --- evaluation
        if terminal_ply < 0:
            if improved and proven[node] != 0 and node != 0:
                # proven for the mover into node (the opposite of `side`)
                mover_root = (3 - side) == root_c
                value = float(proven[node]) if mover_root else -float(proven[node])
                terminal_ply = depth
            elif first[node] == -2:
                value = 0.0
            else:
                r, plies, term = leaf_value(b, side, ip, fp, ev, rng, scratch)
                value = r if side == root_c else -r
                if term:
                    terminal_ply = depth + plies
        if depth > stats[S_MAXDEPTH]:
            stats[S_MAXDEPTH] = depth
        if trig_k > 0 and terminal_ply >= 0 and terminal_ply <= trig_k and depth >= 1:
            rc = path[1]
            if value < 0:
                stats[S_TRIGGER_LOSS] += 1
                flags[rc] |= FL_MARK_DEATH
            elif value > 0:
                stats[S_TRIGGER_WIN] += 1
                flags[rc] |= FL_MARK_WIN
        # --- backpropagation (undo the tree moves on the way)
        for d in range(depth, -1, -1):
            nd = path[d]
            visits[nd] += 1
            # mover of the node at depth d is the root side when d is odd
            if d % 2 == 1:
                wsum[nd] += value
            else:
                wsum[nd] -= value
            if improved and d < depth and proven[nd] == 0:
                _update_proof(nd, first, nch, proven, flags)
            if d > 0:
                _back(b, ev)
        done += 1
    stats[S_ITER] += done
    return done


@njit(cache=True, nogil=True)
def compact_subtree(r, move, first, nch, visits, wsum, prior, proven, flags, count, newpos):
    """Move node r's subtree to the front of the arrays, r becoming node 0; returns the new count.

    Safe in place because a child block is always allocated after its parent, so every descendant
    of r has a larger index than r, and a kept node's new index (the number of kept nodes before
    it) is never larger than its old one: walking upwards, a write never lands on an unread node.
    Pass 1 numbers the kept nodes in index order (kept = r, or in a block whose parent is kept);
    pass 2 moves them and renumbers the ``first`` links. Blocks stay contiguous and in order.
    """
    n = count[0]
    for i in range(r, n):
        newpos[i] = -1
    newpos[r] = -2  # -2: kept, not numbered yet
    w = 0
    for j in range(r, n):
        if newpos[j] != -2:
            continue
        newpos[j] = w
        w += 1
        f = first[j]
        if f >= 0:
            for c in range(f, f + nch[j]):
                newpos[c] = -2
    for j in range(r, n):
        q = newpos[j]
        if q < 0:
            continue
        f = first[j]
        if f >= 0:
            f = newpos[f] if nch[j] > 0 else -1
        move[q] = move[j]
        first[q] = f
        nch[q] = nch[j]
        visits[q] = visits[j]
        wsum[q] = wsum[j]
        prior[q] = prior[j]
        proven[q] = proven[j]
        flags[q] = 0
    move[0] = -1
    count[0] = w
    return w


@intrinsic
def _fence(typingctx):
    """A full memory barrier (compiler and CPU): stores before it are visible before stores after."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        builder.fence("seq_cst")
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, nogil=True)
def _publish(node, scratch, first, nch):
    """Link the block `expand` built for the private ``scratch`` node to ``node``: the children
    first, then ``first``, then ``nch`` -- a reader that sees nch > 0 finds a finished block."""
    if nch[scratch] == 0:
        first[node] = FIRST_DRAW
        return
    _fence()
    first[node] = first[scratch]
    _fence()
    nch[node] = nch[scratch]


@njit(cache=True, nogil=True)
def run_shared(b, root_c, n_iter, move, first, nch, visits, wsum, prior, proven, flags,
               pool, ip, fp, ev, rng, stop, stats):
    """Tree-parallel MCTS: like `run_iterations`, but several threads share one tree.

    Numba has no atomics, so the sharing is made safe by construction instead of locks:

    * node allocation: each thread owns a node pool, ``pool = [next free, end)`` of the arrays,
      and expands only into it (the last node of the pool is its private scratch root for
      `expand`); the new block is linked to the tree by `_publish`, fenced so that a reader who
      sees ``nch > 0`` also sees the initialised children;
    * one expansion per node: ``first = FIRST_BUSY`` claims a node (a thread that finds the claim
      plays out from there); the claim is not atomic, and if two threads expand the same node at
      once one block is lost (unreachable) -- never a broken one, both blocks list the same moves;
    * statistics: a visit on the way down (virtual loss, a loss for the mover) steers the other
      thread elsewhere and is turned into the real result on the way up. Two threads updating
      the same counter at the same instant can lose one update (rare, and only noise);
    * proofs only ever go from 0 to a proven value, the same value whoever writes it.

    The root (node 0) must be expanded before the threads start. Returns the iterations run.
    """
    cells = b.cells
    path = np.empty(cells.shape[0] + 2, dtype=np.int64)
    scratch = new_scratch(b)
    no_allowed = np.zeros(0, dtype=np.int64)
    trig_k = ip[I_TRIGGER_K]
    improved = ip[I_MODE] == MODE_IMPROVED
    spare = pool[1] - 1
    count = pool[0:1]  # `expand` allocates from pool[0]
    most = b.meta[M_WIDTH] * b.meta[M_HEIGHT]  # children of one node at most (board squares; the padding is never a move)
    done = 0
    for it in range(n_iter):
        if stop[0] != 0 or proven[0] != 0:
            break
        node = 0
        depth = 0
        side = root_c
        value = 0.0
        terminal_ply = -1
        path[0] = 0
        fresh = False  # this iteration is the node's first visit
        while True:
            # one snapshot of the node's link: the other thread may rewrite it at any time
            f = first[node]
            n = nch[node]
            if n == 0:
                if proven[node] != 0 or f == FIRST_DRAW or f == FIRST_BUSY:
                    break
                if fresh or node == 0:
                    break  # first visit of a leaf: play out from here
                if f >= 0:
                    break  # another thread is linking its block (first set, nch not yet): a leaf now
                if count[0] + most + 1 >= spare:
                    stats[S_FULL] = 1
                    break
                first[node] = FIRST_BUSY
                if not expand(b, spare, side, move, first, nch, visits, wsum, prior, proven,
                              flags, count, ip, fp, rng, no_allowed, scratch[0], ev):
                    first[node] = -1
                    stats[S_FULL] = 1
                    break
                _publish(node, spare, first, nch)
                # go on in our own block, read from the private scratch node: it lists this
                # position's moves whatever another thread wrote to the node meanwhile
                f = first[spare]
                n = nch[spare]
                if n == 0:
                    break
            elif f < 0:
                break  # a claimed node whose old link is being replaced: a leaf this time
            ch = select_child(node, f, n, move, visits, wsum, prior, proven, flags, ip, fp)
            if ch < 0:
                break
            p = move[ch]
            if cells[p] != EMPTY:
                break  # cannot happen with a published block; never corrupt the board
            won = wins_now(b, p, side)
            _step(b, p, side, ev)
            fresh = visits[ch] == 0
            visits[ch] += 1
            wsum[ch] -= VIRTUAL_LOSS
            depth += 1
            path[depth] = ch
            node = ch
            if won:
                if improved:
                    proven[ch] = 1
                terminal_ply = depth
                value = 1.0 if side == root_c else -1.0
                side = 3 - side
                break
            side = 3 - side
            if improved and proven[ch] != 0:
                break
        if terminal_ply < 0:
            if improved and proven[node] != 0 and node != 0:
                mover_root = (3 - side) == root_c
                value = float(proven[node]) if mover_root else -float(proven[node])
                terminal_ply = depth
            elif first[node] == FIRST_DRAW:
                value = 0.0
            else:
                r, plies, term = leaf_value(b, side, ip, fp, ev, rng, scratch)
                value = r if side == root_c else -r
                if term:
                    terminal_ply = depth + plies
        if depth > stats[S_MAXDEPTH]:
            stats[S_MAXDEPTH] = depth
        if trig_k > 0 and terminal_ply >= 0 and terminal_ply <= trig_k and depth >= 1:
            rc = path[1]
            if value < 0:
                stats[S_TRIGGER_LOSS] += 1
                flags[rc] |= FL_MARK_DEATH
            elif value > 0:
                stats[S_TRIGGER_WIN] += 1
                flags[rc] |= FL_MARK_WIN
        for d in range(depth, -1, -1):
            nd = path[d]
            v = value if d % 2 == 1 else -value
            if d == 0:
                visits[nd] += 1
                wsum[nd] += v
            else:
                wsum[nd] += v + VIRTUAL_LOSS  # the visit was counted on the way down
            if improved and d < depth and proven[nd] == 0:
                _update_proof(nd, first, nch, proven, flags)
            if d > 0:
                _back(b, ev)
        done += 1
    stats[S_ITER] += done
    return done


@njit(cache=True, nogil=True)
def compact_any(r, move, first, nch, visits, wsum, prior, proven, flags, order, nfirst):
    """Node r's subtree to the front of the arrays in breadth-first order, r becoming node 0,
    whatever the layout (a shared tree's blocks come from two pools, so a child may sit below its
    parent). ``order``/``nfirst``: scratch of at least the subtree's size. Returns the new count.

    order[q] is the old index of new node q; the gather data[q] = old[order[q]] is done in place
    by swaps, following where an already swapped slot's content went (order[q] is overwritten
    with that partner once slot q is done).
    """
    order[0] = r
    head = 0
    tail = 1
    while head < tail:
        k = order[head]
        f = first[k]
        n = nch[k]
        nfirst[head] = -1 if f == FIRST_BUSY else f
        if f >= 0 and n > 0:
            nfirst[head] = tail
            for c in range(f, f + n):
                order[tail] = c
                tail += 1
        head += 1
    w = tail
    for q in range(w):
        s = order[q]
        while s < q:
            s = order[s]
        order[q] = s
        if s != q:
            move[q], move[s] = move[s], move[q]
            first[q], first[s] = first[s], first[q]
            nch[q], nch[s] = nch[s], nch[q]
            visits[q], visits[s] = visits[s], visits[q]
            wsum[q], wsum[s] = wsum[s], wsum[q]
            prior[q], prior[s] = prior[s], prior[q]
            proven[q], proven[s] = proven[s], proven[q]
    for q in range(w):
        first[q] = nfirst[q]
        flags[q] = 0
    move[0] = -1
    return w
