"""Numba kernels for T. Lim's two m,n,k agents (his heuristic, ID alpha-beta, UCT MCTS).

These reproduce *his* agents, not ours: every empty cell is a candidate, the heuristic is his
(1/k per stone in each still-open window, +1 when a window lacks one stone, 1e9 for k in a row)
and the MCTS agent backs up that raw value — including the huge WIN that his paper suspects of
misleading UCT. They live under `experiments/` so the product's search never depends on them.

State of a position: `board` (cells, 0/1/2), `cnt[w, p]` stones of player p in window w, and
`score[p]`, the running sum of p's window values, updated incrementally by `place`/`unplace`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

WIN = 1.0e9
EXACT, LOWER, UPPER = 0, 1, 2


def build_tables(width: int, height: int, k: int):
    """Windows of k cells, and for each cell the windows through it (padded with -1)."""
    windows = []
    for y in range(height):
        for x in range(width):
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                ex, ey = x + dx * (k - 1), y + dy * (k - 1)
                if 0 <= ex < width and 0 <= ey < height:
                    windows.append([(y + dy * i) * width + x + dx * i for i in range(k)])
    win_cells = np.array(windows, dtype=np.int32).reshape(-1, k)
    per_cell: list[list[int]] = [[] for _ in range(width * height)]
    for w, cells in enumerate(windows):
        for c in cells:
            per_cell[c].append(w)
    most = max(1, max(len(v) for v in per_cell))
    cell_windows = np.full((width * height, most), -1, dtype=np.int32)
    for c, ws in enumerate(per_cell):
        cell_windows[c, : len(ws)] = ws
    # value of a window holding c stones of one player and none of the other
    value = np.zeros(k + 1, dtype=np.float64)
    for c in range(1, k + 1):
        value[c] = c / k + (1.0 if c == k - 1 else 0.0)
    return win_cells, cell_windows, value


@njit(cache=True, nogil=True)
def place(board, cnt, score, cell_windows, value, k, cell, p):
    """Put p's stone on `cell`, update window counts and scores; True if it made k in a row."""
    q = 3 - p
    won = False
    for i in range(cell_windows.shape[1]):
        w = cell_windows[cell, i]
        if w < 0:
            break
        cp = cnt[w, p]
        cq = cnt[w, q]
        if cq == 0:
            score[p] += value[cp + 1] - value[cp]
            if cp + 1 == k:
                won = True
        elif cp == 0:
            score[q] -= value[cq]  # the window is now dead for q
        cnt[w, p] = cp + 1
    board[cell] = p
    return won


@njit(cache=True, nogil=True)
def unplace(board, cnt, score, cell_windows, value, cell, p):
    q = 3 - p
    for i in range(cell_windows.shape[1]):
        w = cell_windows[cell, i]
        if w < 0:
            break
        cp = cnt[w, p]
        cq = cnt[w, q]
        if cq == 0:
            score[p] -= value[cp] - value[cp - 1]
        elif cp == 1:
            score[q] += value[cq]
        cnt[w, p] = cp - 1
    board[cell] = 0


@njit(cache=True, nogil=True)
def load_position(board_in, cell_windows, value, k, n_windows):
    """Fresh state arrays for `board_in`; returns (board, cnt, score, somebody_won)."""
    n = board_in.shape[0]
    board = np.zeros(n, dtype=np.int8)
    cnt = np.zeros((n_windows, 3), dtype=np.int16)
    score = np.zeros(3, dtype=np.float64)
    won = False
    for c in range(n):
        if board_in[c] != 0:
            if place(board, cnt, score, cell_windows, value, k, c, board_in[c]):
                won = True
    return board, cnt, score, won


@njit(cache=True, nogil=True)
def heuristic(score, p):
    """Lim's evaluation for the side p (no win on the board)."""
    return score[p] - score[3 - p]


# --------------------------------------------------------------------------------------------
# minimax: iterative deepening alpha-beta (negamax form) with a transposition table
# --------------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _negamax(board, cnt, score, cell_windows, value, k, zob, h, p, depth, free, alpha, beta,
             tt_key, tt_val, tt_depth, tt_flag, tt_move, mask, stop, stats):
    stats[0] += 1
    if stop[0] != 0:
        return 0.0
    n = board.shape[0]
    if free == 0:
        return 0.0  # full board: draw
    if depth == 0:
        return heuristic(score, p)
    alpha0 = alpha
    slot = np.int64(h & mask)
    first = -1
    if tt_key[slot] == h:
        first = tt_move[slot]
        if tt_depth[slot] >= depth:
            v = tt_val[slot]
            f = tt_flag[slot]
            if f == 0:
                return v
            if f == 1 and v > alpha:
                alpha = v
            elif f == 2 and v < beta:
                beta = v
            if alpha >= beta:
                return v
    best = -2.0 * WIN
    best_move = -1
    for step in range(-1, n):
        if step == -1:
            c = first
            if c < 0 or board[c] != 0:
                continue
        else:
            c = step
            if c == first or board[c] != 0:
                continue
        won = place(board, cnt, score, cell_windows, value, k, c, p)
        if won:
            v = WIN
        else:
            v = -_negamax(board, cnt, score, cell_windows, value, k, zob, h ^ zob[c, p], 3 - p, depth - 1,
                          free - 1, -beta, -alpha, tt_key, tt_val, tt_depth, tt_flag, tt_move, mask, stop, stats)
        unplace(board, cnt, score, cell_windows, value, c, p)
        if stop[0] != 0:
            return 0.0
        if v > best:
            best = v
            best_move = c
        if v > alpha:
            alpha = v
        if alpha >= beta:
            break
    flag = 0
    if best <= alpha0:
        flag = 2
    elif best >= beta:
        flag = 1
    tt_key[slot] = h
    tt_val[slot] = best
    tt_depth[slot] = depth
    tt_flag[slot] = flag
    tt_move[slot] = best_move
    return best


@njit(cache=True, nogil=True)
def minimax_root(board_in, p, depth, order, win_cells, cell_windows, value, k, zob,
                 tt_key, tt_val, tt_depth, tt_flag, tt_move, mask, stop, stats, values_out):
    """One depth of the iterative deepening: search the root moves in `order`.

    Returns (best_cell, best_value, completed). `values_out[i]` gets the (bounded) value of
    `order[i]`, which the caller sorts by for the next depth (Lim's move ordering).
    """
    board, cnt, score, _ = load_position(board_in, cell_windows, value, k, win_cells.shape[0])
    h = np.uint64(0)
    free = 0
    for c in range(board.shape[0]):
        if board[c] != 0:
            h ^= zob[c, board[c]]
        else:
            free += 1
    alpha = -2.0 * WIN
    beta = 2.0 * WIN
    best = -2.0 * WIN
    best_cell = -1
    for i in range(order.shape[0]):
        c = order[i]
        won = place(board, cnt, score, cell_windows, value, k, c, p)
        if won:
            v = WIN
        else:
            v = -_negamax(board, cnt, score, cell_windows, value, k, zob, h ^ zob[c, p], 3 - p, depth - 1,
                          free - 1, -beta, -alpha, tt_key, tt_val, tt_depth, tt_flag, tt_move, mask, stop, stats)
        unplace(board, cnt, score, cell_windows, value, c, p)
        if stop[0] != 0:
            return best_cell, best, False
        values_out[i] = v
        if v > best:
            best = v
            best_cell = c
        if v > alpha:
            alpha = v
    return best_cell, best, True


# --------------------------------------------------------------------------------------------
# MCTS: UCT selection, full expansion, two-ply random rollout scored by the heuristic
# --------------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def mcts_search(board_in, p, win_cells, cell_windows, value, k, c_uct, scaled, max_iterations, seed,
                parent, first_child, n_children, move, mover, term, visits, total,
                stop, stats, child_visits, child_means):
    """Run Lim's MCTS from `board_in` with p to move; returns the max-child cell.

    Node values are stored from the point of view of the player who made the node's move. The
    rollout plays one random move for each side, then scores the result with the heuristic (raw,
    unscaled, ±1e9 on a win), exactly the design Lim describes; `scaled` maps it into (-1, 1)
    instead (h / (1 + |h|), a win ±1), the change his paper proposes to test. `child_visits`/`child_means`
    receive the root children's statistics (indexed by cell) for reports. The node arrays are
    the caller's (allocated once per game: a fresh 30 MB pool per move would eat short budgets).
    """
    np.random.seed(seed)
    n = board_in.shape[0]
    board, cnt, score, _ = load_position(board_in, cell_windows, value, k, win_cells.shape[0])
    max_nodes = parent.shape[0]
    parent[0] = -1
    move[0] = -1
    mover[0] = 3 - p
    first_child[0] = -1
    n_children[0] = 0
    term[0] = 0
    visits[0] = 0.0
    total[0] = 0.0
    used = 1
    path_cells = np.empty(n + 2, dtype=np.int32)
    path_players = np.empty(n + 2, dtype=np.int8)
    empties = np.empty(n, dtype=np.int32)
    stones = 0
    for c in range(n):
        if board[c] != 0:
            stones += 1
    it = 0
    while it < max_iterations and stop[0] == 0:
        it += 1
        node = 0
        depth = 0
        # 1. selection
        while first_child[node] >= 0 and term[node] == 0:
            base = first_child[node]
            best = -1
            best_u = -np.inf
            log_n = np.log(visits[node])
            for j in range(n_children[node]):
                ch = base + j
                if visits[ch] == 0:
                    u = np.inf
                else:
                    u = total[ch] / visits[ch] + c_uct * np.sqrt(log_n / visits[ch])
                if u > best_u:
                    best_u = u
                    best = ch
            if best_u == np.inf:  # several unvisited: take a random one of them
                count = 0
                for j in range(n_children[node]):
                    if visits[base + j] == 0:
                        count += 1
                r = np.random.randint(count)
                for j in range(n_children[node]):
                    if visits[base + j] == 0:
                        if r == 0:
                            best = base + j
                            break
                        r -= 1
            node = best
            if place(board, cnt, score, cell_windows, value, k, move[node], mover[node]):
                term[node] = 1  # children made in a batch learn they win when first entered
            path_cells[depth] = move[node]
            path_players[depth] = mover[node]
            depth += 1
            if term[node] == 0 and stones + depth == n:
                term[node] = 2
        # 2. expansion: all children at once, then pick one at random
        if term[node] == 0 and first_child[node] < 0 and stones + depth < n:
            free = 0
            for c in range(n):
                if board[c] == 0:
                    free += 1
            if used + free <= max_nodes:
                first_child[node] = used
                n_children[node] = free
                who = 3 - mover[node]
                j = 0
                for c in range(n):
                    if board[c] == 0:
                        ch = used + j
                        parent[ch] = node
                        move[ch] = c
                        mover[ch] = who
                        first_child[ch] = -1
                        n_children[ch] = 0
                        term[ch] = 0
                        visits[ch] = 0.0
                        total[ch] = 0.0
                        j += 1
                used += free
                ch = first_child[node] + np.random.randint(free)
                node = ch
                won = place(board, cnt, score, cell_windows, value, k, move[ch], mover[ch])
                path_cells[depth] = move[ch]
                path_players[depth] = mover[ch]
                depth += 1
                if won:
                    term[ch] = 1
                elif stones + depth == n:
                    term[ch] = 2
        # 3. simulation from `node`, scored for node's mover
        me = mover[node]
        if term[node] == 1:
            v = WIN
        elif term[node] == 2 or stones + depth >= n:
            v = 0.0
        else:
            v = 0.0
            done = False
            extra = 0
            who = 3 - me
            for _ in range(2):
                if stones + depth + extra >= n:
                    break
                free = 0
                for c in range(n):
                    if board[c] == 0:
                        empties[free] = c
                        free += 1
                c = empties[np.random.randint(free)]
                won = place(board, cnt, score, cell_windows, value, k, c, who)
                path_cells[depth + extra] = c
                path_players[depth + extra] = who
                extra += 1
                if won:
                    v = WIN if who == me else -WIN
                    done = True
                    break
                who = 3 - who
            if not done:
                v = heuristic(score, me)
            for e in range(extra - 1, -1, -1):
                unplace(board, cnt, score, cell_windows, value, path_cells[depth + e], path_players[depth + e])
        if scaled:  # Lim's proposed fix: keep rewards within -1..1 so UCT's exploration term still counts
            v = v / (1.0 + abs(v)) if abs(v) < WIN else (1.0 if v > 0 else -1.0)
        # 4. backpropagation
        while node >= 0:
            visits[node] += 1.0
            total[node] += v if mover[node] == me else -v
            node = parent[node]
        for e in range(depth - 1, -1, -1):
            unplace(board, cnt, score, cell_windows, value, path_cells[e], path_players[e])
    stats[0] += it
    stats[1] = used
    # max child: the highest mean value among visited root children
    best = -1
    best_mean = -np.inf
    base = first_child[0]
    for j in range(n_children[0]):
        ch = base + j
        if visits[ch] > 0:
            child_visits[move[ch]] = visits[ch]
            mean = total[ch] / visits[ch]
            child_means[move[ch]] = mean
            if mean > best_mean:
                best_mean = mean
                best = move[ch]
    if best < 0:
        for c in range(n):
            if board[c] == 0:
                return c
    return best
