"""The board: a namedtuple of flat numpy arrays, made and unmade by njit kernels.

Layout: the m×n board sits in a padded 1-D array (`pad` = max(k, 2) wall cells on every side, row
stride = width + 2·pad), so a step along a line is one addition (`dirs`: →, ↓, ↘, ↙) and a scan
stops at the first wall without bounds checks. Point index `pos = (y+pad)·stride + (x+pad)`.

Incremental state, all restored exactly by `unmake`:
- `cells` int8: 0 empty, 1 black, 2 white, 3 wall (edge padding or a blocked square);
- `hash` uint64[1]: Zobrist hash of the stones (blocked squares included);
- `keys` int64[4, size]: per direction, the window number of the 2k cells around each point
  (digits 0 empty, 1 own, 2 opponent or wall; under caro base 4 with walls as digit 3, because a
  wall does not block a caro five and an opponent stone does), black's view in the low 32 bits,
  white's in the high 32, so that `table[colour-1, key-half]` is the point's line pattern. For
  k > TABLE_MAX_K no table fits: the keys then hold the patterns themselves (identity table),
  reclassified from the cells by `play` / `take` (`make` alone leaves them for `sync_layer`);
- `nbr` int16[size]: stones within Chebyshev distance 2 (the candidate-move neighbourhood);
- `stack` int32: the moves made, `meta[M_NMOVES]` of them;
- the pattern layer (`core.classes`; for k > TABLE_MAX_K kept by `play` / `take`): per empty
  square, colour and direction the line code `lc[colour-1 << 2 | d]` (from `ltab`), the four codes' combo `combo[colour-1]`, its
  threat class `cls[colour-1]` (from `ctab`), and per colour the count of empty squares in each
  class `cnt[colour-1]` (what the search's tactics read), and per colour the sum over its empty
  squares of the trained evaluation's packed (V_self, V_opp) by combo, `vsum[colour-1]` (from
  `vtab`, `core.evaltables`: what the evaluation reads). Occupied squares keep the codes they had
  when they were filled and are left out of `cnt` and `vsum`: with strictly last-in-first-out
  make/unmake those codes are exact again when the stone is taken back;
- `vhist` int64[moves + 1, 2]: `vhist[n]` is `vsum` as it was before the n-th move was made (the
  evaluation may average the current and the previous position's sums: Rapfi's habit, it damps
  the swing between the two sides to move). `make` writes it; `unmake` need not;
- `undo` int64[moves + 1, UNDO_WIDTH]: what the n-th `make` changed in the layer (`undo[n, 0]`
  entries, each a square's line code, combo and class as they were before it), so `unmake`
  writes them back instead of reading the code tables again (the lookups were most of its cost).
  Valid for the moves from `meta[M_UNDO_FLOOR]` on: a layer rebuilt from scratch (blocked squares)
  invalidates the records of the moves made before it: `unmake` of such a move rebuilds the layer.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.extending import overload

from .constants import (
    BLACK,
    EMPTY,
    M_HEIGHT,
    M_K,
    M_LEN,
    M_NMOVES,
    M_PAD,
    M_RULE,
    M_SIZE,
    M_STRIDE,
    M_SYNCED,
    M_TABLE,
    M_UNDO_FLOOR,
    M_WIDTH,
    RULE_CARO,
    RULE_CARO_EXACT,
    RULE_EXACT,
    RULE_FREESTYLE,
    RULE_RENJU,
    N_PATTERNS,
    P_FIVE,
    TABLE_MAX_K,
    WALL,
    WHITE,
)
from .classes import N_CLASSES, N_CODES, P_OVERLINE, combo_tables, line_code_tables
from .evaltables import runtime_tables
from .tables import (
    OPP,
    WALL_DIGIT,
    classify_window,
    eval_code_tables,
    pattern_tables,
    renju_foul_table,
    renju_line_foul,
)

Board = namedtuple("Board", ["cells", "keys", "nbr", "zobrist", "hash", "stack", "meta", "dirs", "kdelta", "table",
                             "lc", "combo", "cls", "cnt", "ltab", "ctab", "vtab", "vsum", "vhist", "scan", "undo"])

# per-move histories: their rows past the move count are scratch, so a board restored by `unmake`
# may differ from its earlier self there, as may `scan`, scratch (tests compare every other field)
HISTORY_FIELDS = ("stack", "vhist", "scan", "undo")

# one record per changed (square, colour, direction): at most 2 colours x 4 lines x 2 TABLE_MAX_K squares
UNDO_WIDTH = 1 + 2 * 4 * 2 * TABLE_MAX_K

MIN_SIDE = 3
MAX_SIDE = 32
ZOBRIST_SEED = 0x5EED_C0DE


def rule_code(rules) -> int:
    """The kernel rule code for a `protocol.rules.Rules`."""
    if rules.renju:
        return RULE_RENJU
    if rules.caro:
        return RULE_CARO_EXACT if rules.exact_five else RULE_CARO
    return RULE_EXACT if rules.exact_five else RULE_FREESTYLE


def new_board(width: int, height: int, k: int = 5, rule: int = RULE_FREESTYLE) -> Board:
    """An empty board. Raises ValueError for sizes outside 3..32 or k outside 3..min(width, height)."""
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise ValueError(f"board {width}x{height} outside {MIN_SIDE}..{MAX_SIDE}")
    if not 3 <= k <= min(width, height):
        raise ValueError(f"win length {k} outside 3..{min(width, height)}")
    if rule not in (RULE_FREESTYLE, RULE_EXACT, RULE_CARO, RULE_CARO_EXACT, RULE_RENJU):
        raise ValueError(f"unknown rule code {rule}")
    # k <= 5 boards keep 5 wall cells (not k) so that `make` updates the pattern keys with one loop
    # of constant trip count for every k (unused key steps add 0): a second, k-dependent loop in
    # `make` doubled its cost even when never taken
    pad = max(k, TABLE_MAX_K)
    stride = width + 2 * pad
    size = stride * (height + 2 * pad)
    cells = np.full(size, WALL, dtype=np.int8)
    for y in range(height):
        start = (y + pad) * stride + pad
        cells[start : start + width] = EMPTY
    use_table = k <= TABLE_MAX_K
    exact_black = rule in (RULE_EXACT, RULE_CARO_EXACT, RULE_RENJU)
    exact_white = rule in (RULE_EXACT, RULE_CARO_EXACT)
    renju = rule == RULE_RENJU
    caro = rule in (RULE_CARO, RULE_CARO_EXACT)
    base = 4 if caro else 3  # caro windows tell walls (digit 3) from opponent stones (2)
    if use_table:
        table = pattern_tables(k, exact_black, exact_white, caro)
        ltab = line_code_tables(table, renju_foul_table(k) if renju else None,
                                eval_code_tables(k, exact_black, exact_white, caro))
        keys = np.zeros((4, size), dtype=np.int64)
        # kdelta[c, 4 + i] / kdelta[c, 5 - i]: what a `c` stone adds to the key of the point i steps
        # before / after it (digit k - 1 + i / k - i of that point's base-3 window), 0 for i > k
        kdelta = np.zeros((2, 2 * TABLE_MAX_K), dtype=np.int64)
        for i in range(1, k + 1):
            for col, j in ((TABLE_MAX_K - 1 + i, k + i - 1), (TABLE_MAX_K - i, k - i)):
                w = base**j
                kdelta[0, col] = w + ((OPP * w) << 32)
                kdelta[1, col] = OPP * w + (w << 32)
    else:
        # keys hold the line patterns themselves (black low, white high), kept by `play` / `take`
        table = np.tile(np.arange(N_PATTERNS, dtype=np.uint8), (2, 1))
        ltab = table
        keys = np.zeros((4, size), dtype=np.int64)
        kdelta = np.zeros((2, 2 * TABLE_MAX_K), dtype=np.int32)  # unused; its dtype marks the kind (`_is_scanned`)
    ctab, _, _ = combo_tables(renju)
    rng = np.random.default_rng(ZOBRIST_SEED + 7919 * width + 104729 * height)
    zobrist = rng.integers(1, 2**63, size=(4, size), dtype=np.int64).astype(np.uint64)
    meta = np.zeros(M_LEN, dtype=np.int32)
    meta[M_WIDTH], meta[M_HEIGHT], meta[M_K], meta[M_RULE] = width, height, k, rule
    meta[M_PAD], meta[M_STRIDE], meta[M_TABLE], meta[M_SIZE] = pad, stride, int(use_table), size
    dirs = np.array([1, stride, stride + 1, stride - 1], dtype=np.int32)
    board = Board(
        cells=cells,
        keys=keys,
        nbr=np.zeros(size, dtype=np.int16),
        zobrist=zobrist,
        hash=np.zeros(2, dtype=np.uint64),  # [0] the hash, [1] the hash at the last pattern sync (k > 5)
        stack=np.zeros(width * height + 1, dtype=np.int32),
        meta=meta,
        dirs=dirs,
        kdelta=kdelta,
        table=table,
        lc=np.zeros((8, size), dtype=np.uint8),
        combo=np.zeros((2, size), dtype=np.int32),
        cls=np.zeros((2, size), dtype=np.uint8),
        cnt=np.zeros((2, N_CLASSES), dtype=np.int32),
        ltab=ltab,
        ctab=ctab,
        vtab=runtime_tables(rule)[0],
        vsum=np.zeros(2, dtype=np.int64),
        vhist=np.zeros((width * height + 1, 2), dtype=np.int64),
        scan=np.zeros(2 * pad + 1, dtype=np.int8),  # k > TABLE_MAX_K: the window being classified
        undo=np.zeros((width * height + 1, UNDO_WIDTH), dtype=np.int64),
    )
    recompute(board)
    return board


def board_from_stones(width: int, height: int, stones, k: int = 5, rule: int = RULE_FREESTYLE) -> Board:
    """A board with `stones` = iterable of (x, y, colour) placed in order (colour 3 = blocked square).

    Raises ValueError on an off-board, doubly occupied or bad-colour stone.
    """
    board = new_board(width, height, k, rule)
    for x, y, colour in stones:
        if not (0 <= x < width and 0 <= y < height):
            raise ValueError(f"stone {x},{y} off the {width}x{height} board")
        p = to_pos(board, x, y)
        if board.cells[p] != EMPTY:
            raise ValueError(f"square {x},{y} given twice")
        if colour in (BLACK, WHITE):
            make(board, p, colour)
        elif colour == WALL:
            block(board, p)
        else:
            raise ValueError(f"bad colour {colour}")
    sync_layer(board)  # `make` keeps no pattern layer for k > 5
    return board


def board_from_position(position) -> Board:
    """A board for an `engine.Position` (its size, rules, win length and stones; 3 = blocked)."""
    return board_from_stones(position.width, position.height, position.stones, position.win_length, rule_code(position.rules))


def board_from_rows(rows: list[str], k: int = 5, rule: int = RULE_FREESTYLE) -> tuple[Board, int]:
    """A test board from text rows (x/X black, o/O white, # blocked, anything else empty; row 0 = y 0).

    Stones go on without a move order; returns the board and the colour to move by stone count.
    """
    height, width = len(rows), max(len(r) for r in rows)
    stones = []
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            colour = {"x": BLACK, "o": WHITE, "#": WALL}.get(ch.lower(), EMPTY)
            if colour:
                stones.append((x, y, colour))
    board = board_from_stones(width, height, stones, k, rule)
    nb = sum(1 for s in stones if s[2] == BLACK)
    nw = sum(1 for s in stones if s[2] == WHITE)
    return board, (BLACK if nb <= nw else WHITE)


@njit(cache=True, nogil=True)
def to_pos(b, x, y):
    """Board coordinates (x = column, y = row) to a padded point index."""
    pad = b.meta[M_PAD]
    return (y + pad) * b.meta[M_STRIDE] + x + pad


@njit(cache=True, nogil=True)
def pos_x(b, p):
    return p % b.meta[M_STRIDE] - b.meta[M_PAD]


@njit(cache=True, nogil=True)
def pos_y(b, p):
    return p // b.meta[M_STRIDE] - b.meta[M_PAD]


@njit(cache=True, nogil=True)
def on_board(b, x, y):
    return 0 <= x < b.meta[M_WIDTH] and 0 <= y < b.meta[M_HEIGHT]


@njit(cache=True, nogil=True)
def exact_for(b, colour):
    """Do only runs of exactly k win for `colour` under the board's rule?"""
    rule = b.meta[M_RULE]
    if rule == RULE_EXACT or rule == RULE_CARO_EXACT:
        return True
    return rule == RULE_RENJU and colour == BLACK


@njit(cache=True, nogil=True)
def scan_window(b, colour, d, p, w):
    """`line_pattern` of a `colour` stone on p along d, classified from the cells (any k; `w` is
    int8[2k+1] scratch): the reference for the tables and the source of the layer when k > 5."""
    k = b.meta[M_K]
    s = b.dirs[d]
    rule = b.meta[M_RULE]
    caro = rule == RULE_CARO or rule == RULE_CARO_EXACT
    for i in range(-k, k + 1):
        v = b.cells[p + i * s]
        if v == EMPTY:
            w[i + k] = 0
        elif v == colour:
            w[i + k] = 1
        elif v == WALL and caro:
            w[i + k] = WALL_DIGIT
        else:
            w[i + k] = OPP
    code = classify_window(w, k, exact_for(b, colour), caro)
    return code


@njit(cache=True, nogil=True)
def _set_codes(b, d, q, w, pw):
    """k > TABLE_MAX_K: recompute empty q's line codes on direction d for both colours from the cells
    (keys get the `P_*` patterns, the layer the line codes: renju black's one-line foul shapes
    are `P_OVERLINE` there, as in `classes.line_code_tables`)."""
    key = np.int64(0)
    for side in range(2):
        colour = side + 1
        pat = scan_window(b, colour, d, q, w)
        key += np.int64(pat) << (32 * side)
        code = pat
        if colour == BLACK and b.meta[M_RULE] == RULE_RENJU and pat != P_FIVE:
            if renju_line_foul(w, b.meta[M_K]):  # w still holds q's window
                code = P_OVERLINE
        row = side * 4 + d
        old = b.lc[row, q]
        if old != code:
            b.lc[row, q] = code
            oc = b.combo[side, q]
            nc = oc + (np.int32(code) - np.int32(old)) * pw
            b.combo[side, q] = nc
            ocls = b.cls[side, q]
            ncls = b.ctab[side, nc]
            b.cls[side, q] = ncls
            b.cnt[side, ocls] -= 1
            b.cnt[side, ncls] += 1
            b.vsum[side] += b.vtab[side, nc] - b.vtab[side, oc]
    b.keys[d, q] = key


@njit(cache=True, nogil=True)
def _relayer(b, p):
    """k > TABLE_MAX_K, after a stone came on or off p: the codes of the empty squares within k on
    its four lines, classified from the cells (no table holds 3**(2k) windows for such k). Marks
    the layer current (`hash[1]`), so `sync_layer` has nothing to redo."""
    k = b.meta[M_K]
    w = b.scan  # the board's scratch: the search's kernels may not allocate (`search.pvs`)
    pw = np.int32(1)
    for d in range(4):
        s = b.dirs[d]
        for i in range(-k, k + 1):
            q = p + i * s
            if i != 0 and b.cells[q] == EMPTY:
                _set_codes(b, d, q, w, pw)
        pw *= np.int32(N_CODES)
    b.hash[1] = b.hash[0]


@njit(cache=True, nogil=True)
def rebuild_layer(b):
    """The pattern layer from the keys, from scratch (creation, blocked squares, tests); for
    k > TABLE_MAX_K from the cells, keys included."""
    b.cnt[:, :] = 0
    b.vsum[:] = 0
    b.meta[M_UNDO_FLOOR] = b.meta[M_NMOVES]  # the earlier moves' undo records no longer hold
    if not b.meta[M_TABLE]:
        _rebuild_scanned(b)
        return
    w = b.meta[M_WIDTH]
    for y in range(b.meta[M_HEIGHT]):
        base = (y + b.meta[M_PAD]) * b.meta[M_STRIDE] + b.meta[M_PAD]
        for q in range(base, base + w):
            if b.cells[q] != EMPTY:
                continue  # a stone keeps the codes it was made with (exact again when taken back)
            for side in range(2):
                c = 0
                pw = 1
                for d in range(4):
                    key = b.keys[d, q]
                    code = b.ltab[side, (key & 0xFFFFFFFF) if side == 0 else (key >> 32)]
                    b.lc[(side << 2) | d, q] = code
                    c += np.int32(code) * pw
                    pw *= N_CODES
                b.combo[side, q] = c
                b.cls[side, q] = b.ctab[side, c]
                b.cnt[side, b.cls[side, q]] += 1
                b.vsum[side] += b.vtab[side, c]


@njit(cache=True, nogil=True)
def _rebuild_scanned(b):
    """`rebuild_layer` for k > TABLE_MAX_K: every empty square classified from the cells."""
    win = b.scan
    w = b.meta[M_WIDTH]
    for y in range(b.meta[M_HEIGHT]):
        base = (y + b.meta[M_PAD]) * b.meta[M_STRIDE] + b.meta[M_PAD]
        for q in range(base, base + w):
            if b.cells[q] != EMPTY:
                continue
            for side in range(2):
                b.lc[side * 4: side * 4 + 4, q] = 0
                b.combo[side, q] = 0
                b.cls[side, q] = b.ctab[side, 0]
                b.cnt[side, b.cls[side, q]] += 1
                b.vsum[side] += b.vtab[side, 0]
            pw = np.int32(1)
            for d in range(4):
                _set_codes(b, d, q, win, pw)
                pw *= np.int32(N_CODES)
    b.hash[1] = b.hash[0]
    b.meta[M_SYNCED] = 1


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def _layer_around(b, p, rec):
    """`make`'s layer update: the line codes of the empty squares within TABLE_MAX_K of `p` on its
    four lines, again from the keys, with their combos, classes, `cnt` and `vsum`; each change is
    recorded in ``undo[rec]`` (square, row, old code, old class, old combo) for `unmake`."""
    lc = b.lc
    combo = b.combo
    cls = b.cls
    cnt = b.cnt
    ltab = b.ltab
    ctab = b.ctab
    cells = b.cells
    vtab = b.vtab
    vsum = b.vsum
    undo = b.undo[np.uint64(rec)]
    m = np.int64(0)
    pw = np.int32(1)
    for d in range(4):
        s = b.dirs[d]
        keys = b.keys[d]
        for i in range(-TABLE_MAX_K, TABLE_MAX_K + 1):
            q = np.uint64(p + i * s)
            if i == 0 or cells[q] != EMPTY:
                continue
            key = keys[q]
            for side in range(2):
                code = ltab[side, np.uint64(key & 0xFFFFFFFF) if side == 0 else np.uint64(key >> 32)]
                row = np.uint64(side * 4 + d)
                old = lc[row, q]
                if old != code:
                    lc[row, q] = code
                    oc = combo[side, q]
                    nc = oc + (np.int32(code) - np.int32(old)) * pw
                    combo[side, q] = nc
                    ocls = cls[side, q]
                    ncls = ctab[side, np.uint64(nc)]
                    cls[side, q] = ncls
                    cnt[side, ocls] -= 1
                    cnt[side, ncls] += 1
                    vsum[side] += vtab[side, np.uint64(nc)] - vtab[side, np.uint64(oc)]
                    m += 1
                    undo[np.uint64(m)] = (np.int64(q) | (np.int64(row) << 16) | (np.int64(old) << 19)
                                          | (np.int64(ocls) << 27) | (np.int64(oc) << 35))
        pw *= np.int32(N_CODES)
    undo[0] = m


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def make(b, p, colour):
    """Put a `colour` stone on empty point `p` and push it on the move stack (no legality check).

    Deliberately free of calls: numba then keeps array reference counting out of the hot path.
    Indices are cast to unsigned: numba then skips its negative-index wraparound branch on every
    access (the padding keeps them in range). With the constant-trip key loop this took a
    make/unmake pair from 365 to 95 ns (A/B in one process, loaded machine). Compiled without
    reference counting (``_nrt=False``, as the search's kernels, `search.pvs`): inlined into them,
    its array views would otherwise bring their increfs along. The layer's changes are recorded
    in `undo` for `unmake`.
    """
    up = np.uint64(p)
    b.cells[up] = colour
    b.hash[0] ^= b.zobrist[colour, up]
    n = b.meta[M_NMOVES]
    if b.meta[M_TABLE]:
        ci = colour - 1
        kd = b.kdelta
        for d in range(4):  # constant trip count: the compiler unrolls it (see new_board's pad)
            s = b.dirs[d]
            keys = b.keys[d]
            for i in range(1, TABLE_MAX_K + 1):
                keys[np.uint64(p - i * s)] += kd[ci, TABLE_MAX_K - 1 + i]  # p is i steps after that point
                keys[np.uint64(p + i * s)] += kd[ci, TABLE_MAX_K - i]  # and i steps before this one
        hist = b.vhist[np.uint64(n)]
        hist[0] = b.vsum[0]
        hist[1] = b.vsum[1]
        for side in range(2):  # the stone's own square leaves the layer
            b.cnt[side, b.cls[side, up]] -= 1
            b.vsum[side] -= b.vtab[side, np.uint64(b.combo[side, up])]
        _layer_around(b, p, n)
    s = b.meta[M_STRIDE]
    nbr = b.nbr
    one = np.uint64(1)
    for dy in range(-2, 3):
        q = np.uint64(p + dy * s - 2)
        nbr[q] += 1
        nbr[q + one] += 1
        nbr[q + one + one] += 1
        nbr[q + one + one + one] += 1
        nbr[q + one + one + one + one] += 1
    b.stack[n] = p
    b.meta[M_NMOVES] = n + 1


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def unmake(b):
    """Take back the last `make`; returns the point it freed (unsigned indices as in `make`). The
    layer comes back from `make`'s undo record, last change first (a square changed on several
    lines gets its first old combo and class back), and `vsum` from `vhist`; a move older than
    the last rebuild of the layer has no valid record: the layer is then rebuilt from the keys
    (which also gives the freed square the codes of the walls blocked since it was filled)."""
    n = b.meta[M_NMOVES] - 1
    p = b.stack[n]
    b.meta[M_NMOVES] = n
    up = np.uint64(p)
    colour = b.cells[up]
    b.cells[up] = EMPTY
    b.hash[0] ^= b.zobrist[colour, up]
    if b.meta[M_TABLE]:
        ci = colour - 1
        kd = b.kdelta
        for d in range(4):  # constant trip count: the compiler unrolls it (see new_board's pad)
            s = b.dirs[d]
            keys = b.keys[d]
            for i in range(1, TABLE_MAX_K + 1):
                keys[np.uint64(p - i * s)] -= kd[ci, TABLE_MAX_K - 1 + i]  # p is i steps after that point
                keys[np.uint64(p + i * s)] -= kd[ci, TABLE_MAX_K - i]  # and i steps before this one
        cls = b.cls
        cnt = b.cnt
        if n >= b.meta[M_UNDO_FLOOR]:
            lc = b.lc
            combo = b.combo
            undo = b.undo[np.uint64(n)]
            mask16 = np.int64(0xFFFF)
            for j in range(undo[0], 0, -1):
                e = undo[np.uint64(j)]
                q = np.uint64(e & mask16)
                row = np.uint64((e >> 16) & 7)
                side = np.uint64((e >> 18) & 1)
                cnt[side, cls[side, q]] -= 1
                ocls = np.uint8((e >> 27) & 0xFF)
                cnt[side, ocls] += 1
                cls[side, q] = ocls
                lc[row, q] = np.uint8((e >> 19) & 0xFF)
                combo[side, q] = np.int32(e >> 35)
            hist = b.vhist[np.uint64(n)]
            b.vsum[0] = hist[0]
            b.vsum[1] = hist[1]
            for side in range(2):  # the square is empty again: its (still exact) codes count again
                cnt[side, cls[side, up]] += 1
        else:  # the layer was rebuilt after this move (a blocked square): from scratch, exact
            rebuild_layer(b)  # (and the moves made from here on are recorded again)
    s = b.meta[M_STRIDE]
    nbr = b.nbr
    one = np.uint64(1)
    for dy in range(-2, 3):
        q = np.uint64(p + dy * s - 2)
        nbr[q] -= 1
        nbr[q + one] -= 1
        nbr[q + one + one] -= 1
        nbr[q + one + one + one] -= 1
        nbr[q + one + one + one + one] -= 1
    return p


@njit(cache=True, nogil=True)
def sync_layer(b):
    """k > TABLE_MAX_K: rebuild the codes if the cells changed since they were last current (by
    `make` alone, which keeps no layer for such k); a no-op for table boards."""
    if b.meta[M_TABLE]:
        return
    if b.meta[M_SYNCED] == 1 and b.hash[1] == b.hash[0]:
        return
    rebuild_layer(b)


@njit(cache=True, nogil=True)
def _play_scanned(b, p, colour):
    """`play`'s body on k > TABLE_MAX_K boards: catch up after plain `make`s, then the stone, then
    the codes around it."""
    sync_layer(b)
    for side in range(2):
        b.cnt[side, b.cls[side, p]] -= 1
        b.vsum[side] -= b.vtab[side, b.combo[side, p]]
    make(b, p, colour)
    _relayer(b, p)


@njit(cache=True, nogil=True)
def _take_scanned(b):
    """`take`'s body on k > TABLE_MAX_K boards."""
    sync_layer(b)
    p = unmake(b)
    _relayer(b, p)
    for side in range(2):
        b.cnt[side, b.cls[side, p]] += 1
        b.vsum[side] += b.vtab[side, b.combo[side, p]]
    return p


def _is_scanned(board_type) -> bool:
    """Is this numba Board type a k > TABLE_MAX_K board? Such boards carry an int32 `kdelta` (table
    boards int64), so every kernel compiles apart for them and `play` / `take` choose their body
    at compile time."""
    return board_type.types[Board._fields.index("kdelta")].dtype == types.int32


def _play_body(b, p, colour):
    """Compile-time choice of `play`'s body (see `_is_scanned`)."""


def _take_body(b):
    """Compile-time choice of `take`'s body."""


@overload(_play_body)
def _play_body_impl(b, p, colour):
    if _is_scanned(b):
        return lambda b, p, colour: _play_scanned(b, p, colour)
    return lambda b, p, colour: make(b, p, colour)


@overload(_take_body)
def _take_body_impl(b):
    if _is_scanned(b):
        return lambda b: _take_scanned(b)
    return lambda b: unmake(b)


@njit(cache=True, nogil=True, forceinline=True)
def play(b, p, colour):
    """`make` that keeps the pattern layer for every k: on table boards it is `make` itself, for
    k > TABLE_MAX_K the codes around p are then reclassified from the cells (`_relayer`). The
    search plays through this. The choice is made at compile time (the two board kinds are two
    numba types): any run-time branch here -- a call, or the relayer inlined -- cost the k = 5
    PVS 22-27 % of its nodes/s, as a call inside `make` cost a make/unmake pair 27 %."""
    _play_body(b, p, colour)


@njit(cache=True, nogil=True, forceinline=True)
def take(b):
    """Take back the last move with the layer kept, as `play` (returns the freed point)."""
    return _take_body(b)


@njit(cache=True, nogil=True)
def window_key(b, colour, d, p):
    """The window number of point p on direction d seen by `colour`, from scratch (base 3; base 4
    under caro, where a wall is digit 3 and does not block like an opponent stone)."""
    k = b.meta[M_K]
    s = b.dirs[d]
    rule = b.meta[M_RULE]
    caro = rule == RULE_CARO or rule == RULE_CARO_EXACT
    base = 4 if caro else 3
    key = np.int64(0)
    w = np.int64(1)
    for j in range(2 * k):
        off = j - k if j < k else j - k + 1
        v = b.cells[p + off * s]
        if v == colour:
            key += w
        elif v == WALL and caro:
            key += WALL_DIGIT * w
        elif v != EMPTY:
            key += OPP * w
        w *= base
    return key


@njit(cache=True, nogil=True)
def block(b, p):
    """Turn empty point `p` into a blocked square for good (BOARD field 3); not on the move stack."""
    b.cells[p] = WALL
    b.hash[0] ^= b.zobrist[WALL, p]
    if not b.meta[M_TABLE]:
        rebuild_layer(b)
    else:
        k = b.meta[M_K]
        for d in range(4):
            s = b.dirs[d]
            for i in range(-k, k + 1):
                q = p + i * s
                if b.cells[q] == WALL and q != p:
                    continue  # padding (its own key is never read); blocked squares are never queried either
                b.keys[d, q] = window_key(b, BLACK, d, q) + (window_key(b, WHITE, d, q) << 32)
        rebuild_layer(b)


@njit(cache=True, nogil=True)
def recompute(b):
    """Rebuild hash, keys and neighbour counts from `cells` (used at creation and by tests)."""
    size = b.meta[M_SIZE]
    pad = b.meta[M_PAD]
    stride = b.meta[M_STRIDE]
    h = np.uint64(0)
    for p in range(size):
        v = b.cells[p]
        if v != EMPTY:
            x = p % stride - pad
            y = p // stride - pad
            if v != WALL or (0 <= x < b.meta[M_WIDTH] and 0 <= y < b.meta[M_HEIGHT]):
                h ^= b.zobrist[v, p]
    b.hash[0] = h
    b.nbr[:] = 0
    for p in range(size):
        v = b.cells[p]
        if v == BLACK or v == WHITE:
            for dy in range(-2, 3):
                for dx in range(-2, 3):
                    b.nbr[p + dy * stride + dx] += 1
    if b.meta[M_TABLE]:
        k = b.meta[M_K]
        for p in range(size):
            x = p % stride - pad
            y = p // stride - pad
            if 0 <= x < b.meta[M_WIDTH] and 0 <= y < b.meta[M_HEIGHT]:
                for d in range(4):
                    b.keys[d, p] = window_key(b, BLACK, d, p) + (window_key(b, WHITE, d, p) << 32)
    rebuild_layer(b)


@njit(cache=True, nogil=True)
def copy_board(b):
    """An independent copy (for a worker thread: kernels are re-entrant, boards are not)."""
    return Board(
        b.cells.copy(), b.keys.copy(), b.nbr.copy(), b.zobrist, b.hash.copy(),
        b.stack.copy(), b.meta.copy(), b.dirs, b.kdelta, b.table,
        b.lc.copy(), b.combo.copy(), b.cls.copy(), b.cnt.copy(), b.ltab, b.ctab, b.vtab, b.vsum.copy(),
        b.vhist.copy(), b.scan.copy(), b.undo.copy(),
    )


@njit(cache=True, nogil=True)
def stones_count(b):
    return b.meta[M_NMOVES]


@njit(cache=True, nogil=True)
def is_full(b):
    """No empty point left (blocked squares count as filled)."""
    w = b.meta[M_WIDTH]
    h = b.meta[M_HEIGHT]
    for y in range(h):
        base = to_pos(b, 0, y)
        for x in range(w):
            if b.cells[base + x] == EMPTY:
                return False
    return True
