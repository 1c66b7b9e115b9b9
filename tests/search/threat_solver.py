"""An independent, slow threat-space solver (VCF and VCT) in plain Python, for the tactical test sets.

It shares no code with the brain (`gomocup_bot`): the board, the five/four/three logic and the search
are written here from the rules; only renju fouls are asked of `protocol.judge` (the referee's own
rules module), so a foul means exactly what the manager will judge.

Terms (the attacker A is the side whose win is proved, the defender D the other):
- a *five point* of a colour is an empty square where that colour's stone would win at once
  (freestyle and renju white: five or more; exact five and renju black: exactly five);
- a *four* is a move after which A has exactly one five point; a *double-five move* (open four,
  double four, four-four) leaves two or more;
- a *three* (VCT only) is any move after which A has a legal double-five move (open and broken
  threes, double threes, two closed threes that cross): A threatens to make an unstoppable four.

The search is a depth-limited AND/OR search; `depth` counts A's moves before the final five
("threat moves"), so an open four already on the board is a win of length 1.

A to move: A's five point -> won. D's five points: two -> failed; one -> A must block it (a foul
for renju black -> failed) and the block must itself threaten. A legal double-five move -> won.
Otherwise A tries its fours (D's reply is forced: the single five point; a renju foul for black D ->
won), then (VCT) its threes.

After A's three D may play anything. A D move is skipped only with a proof that it loses: it gives
D no five point, and one of A's double-five moves s survives it (the stone is neither on s nor on a
five point s would make, and for renju black s is still legal after it -- asked of the judge).
After such a move A plays s; D has no five to make and can block only one of two five points. Every
other D move (the blocks, D's own fours, for renju also moves that might turn s into a foul) is
searched. D's fours are answered by A's forced block as above.

Results are WIN, FAIL or UNKNOWN (the node budget ran out); nothing but the node count limits the
search, so answers are reproducible.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from protocol import judge
from protocol.rules import Rules

EMPTY, BLACK, WHITE = 0, 1, 2
WIN, FAIL, UNKNOWN = "win", "fail", "unknown"
DIRS = ((1, 0), (0, 1), (1, 1), (1, -1))


class _OutOfNodes(Exception):
    pass


class _ReadRecorder(list):
    """A copy of the cells that notes every index read (the judge reads single squares and slices)."""

    def __init__(self, cells) -> None:
        super().__init__(cells)
        self.seen: set[int] = set()

    def __getitem__(self, key):
        if isinstance(key, slice):
            self.seen.update(range(*key.indices(len(self))))
        else:
            self.seen.add(key % len(self))
        return super().__getitem__(key)


class _Geometry:
    """All 5-square windows of an n x n board, per direction, and each square's windows."""

    cache: dict[int, "_Geometry"] = {}

    def __init__(self, n: int) -> None:
        self.n = n
        self.windows: list[tuple[int, ...]] = []
        self.window_dir: list[int] = []
        self.steps = [dx + dy * n for dx, dy in DIRS]
        for di, (dx, dy) in enumerate(DIRS):
            for y in range(n):
                for x in range(n):
                    ex, ey = x + 4 * dx, y + 4 * dy
                    if 0 <= ex < n and 0 <= ey < n:
                        self.windows.append(tuple((y + i * dy) * n + x + i * dx for i in range(5)))
                        self.window_dir.append(di)
        self.of_cell: list[list[int]] = [[] for _ in range(n * n)]
        for w, cells in enumerate(self.windows):
            for c in cells:
                self.of_cell[c].append(w)
        # how many steps a square can go in +d / -d before leaving the board
        self.reach_fwd = [[0] * (n * n) for _ in DIRS]
        self.reach_back = [[0] * (n * n) for _ in DIRS]
        for di, (dx, dy) in enumerate(DIRS):
            for y in range(n):
                for x in range(n):
                    c = y * n + x
                    k = 0
                    while 0 <= x + (k + 1) * dx < n and 0 <= y + (k + 1) * dy < n:
                        k += 1
                    self.reach_fwd[di][c] = k
                    k = 0
                    while 0 <= x - (k + 1) * dx < n and 0 <= y - (k + 1) * dy < n:
                        k += 1
                    self.reach_back[di][c] = k
        rng = random.Random(20261124)
        self.zobrist = [[0] * (n * n), [rng.getrandbits(64) for _ in range(n * n)],
                        [rng.getrandbits(64) for _ in range(n * n)]]

    @classmethod
    def get(cls, n: int) -> "_Geometry":
        if n not in cls.cache:
            cls.cache[n] = _Geometry(n)
        return cls.cache[n]


@dataclass
class Result:
    status: str  # WIN | FAIL | UNKNOWN
    length: int = 0  # threat moves before the five (WIN only)
    line: list[tuple[int, int]] = field(default_factory=list)  # A, D, A, ... ending with A's five
    nodes: int = 0


class ThreatBoard:
    """A position with incremental window counts, plus the threat search on it."""

    def __init__(self, size: int, rules: Rules, stones=()) -> None:
        self.n = size
        self.rules = rules
        self.geo = _Geometry.get(size)
        self.jb = judge.Board(size, size)
        self.cells = self.jb.cells  # shared with the judge's board: fouls see every change
        nw = len(self.geo.windows)
        self.count = [None, [0] * nw, [0] * nw]
        # pure[c][k]: windows holding k stones of colour c and none of the other colour (k >= 2)
        self.pure = [None, [set() for _ in range(6)], [set() for _ in range(6)]]
        self.hash = 0
        self.nodes = 0
        self.node_limit = 0
        self.tt: dict = {}
        self.killers: dict = {}
        self.fouls: dict = {}  # (position hash, square) -> is black there a foul
        for x, y, colour in stones:
            self.place(y * size + x, colour)

    # ------------------------------------------------------------------ board
    def place(self, c: int, colour: int) -> None:
        assert self.cells[c] == EMPTY
        self.cells[c] = colour
        self.hash ^= self.geo.zobrist[colour][c]
        mine, theirs = self.count[colour], self.count[3 - colour]
        pm, pt = self.pure[colour], self.pure[3 - colour]
        for w in self.geo.of_cell[c]:
            a = mine[w]
            mine[w] = a + 1
            if theirs[w] == 0:
                if a >= 2:
                    pm[a].discard(w)
                if a >= 1:
                    pm[a + 1].add(w)
            elif a == 0 and theirs[w] >= 2:
                pt[theirs[w]].discard(w)

    def remove(self, c: int) -> None:
        colour = self.cells[c]
        self.cells[c] = EMPTY
        self.hash ^= self.geo.zobrist[colour][c]
        mine, theirs = self.count[colour], self.count[3 - colour]
        pm, pt = self.pure[colour], self.pure[3 - colour]
        for w in self.geo.of_cell[c]:
            a = mine[w] - 1
            mine[w] = a
            if theirs[w] == 0:
                if a >= 1:
                    pm[a + 1].discard(w)
                if a >= 2:
                    pm[a].add(w)
            elif a == 0 and theirs[w] >= 2:
                pt[theirs[w]].add(w)

    def xy(self, c: int) -> tuple[int, int]:
        return c % self.n, c // self.n

    def exact(self, colour: int) -> bool:
        return self.rules.exact_five or (self.rules.renju and colour == BLACK)

    def foul(self, c: int, colour: int) -> bool:
        """Is `colour` on the empty square c a renju foul? (Never for white or other rules.)"""
        if colour != BLACK or not self.rules.renju:
            return False
        key = (self.hash, c)
        known = self.fouls.get(key)
        if known is None:
            known = self.fouls[key] = judge.renju_foul(self.jb, c % self.n, c // self.n) is not None
        return known

    def _foul_reads(self, c: int) -> set[int]:
        """The squares the judge reads while deciding whether black on c is a foul."""
        recorder = _ReadRecorder(self.cells)
        self.jb.cells = recorder
        try:
            judge.renju_foul(self.jb, c % self.n, c // self.n)
        finally:
            self.jb.cells = self.cells
        return recorder.seen

    def _run(self, c: int, di: int, colour: int) -> int:
        """Length of the `colour` run through c along direction di, c counted as `colour`."""
        cells, step = self.cells, self.geo.steps[di]
        length = 1
        p = c
        for _ in range(self.geo.reach_fwd[di][c]):
            p += step
            if cells[p] != colour:
                break
            length += 1
        p = c
        for _ in range(self.geo.reach_back[di][c]):
            p -= step
            if cells[p] != colour:
                break
            length += 1
        return length

    def _five_in(self, w: int, colour: int) -> int:
        """The empty square of window w (4 `colour` stones, none of the other) if filling it wins, else -1."""
        for c in self.geo.windows[w]:
            if self.cells[c] == EMPTY:
                run = self._run(c, self.geo.window_dir[w], colour)
                if run == 5 or (run > 5 and not self.exact(colour)):
                    return c
                return -1
        return -1

    def five_points(self, colour: int) -> set[int]:
        out = set()
        for w in self.pure[colour][4]:
            q = self._five_in(w, colour)
            if q >= 0:
                out.add(q)
        return out

    def fives_through(self, c: int, colour: int) -> set[int]:
        """Five points of `colour` in the windows through the (occupied) square c."""
        out = set()
        p4 = self.pure[colour][4]
        for w in self.geo.of_cell[c]:
            if w in p4:
                q = self._five_in(w, colour)
                if q >= 0:
                    out.add(q)
        return out

    def makes_fives(self, s: int, colour: int) -> set[int]:
        """The five points `colour` would have after playing the empty square s (the ones through s).

        The stone is put on the cells only (not the window counts): a window through s that held
        three `colour` stones and no other then holds four, and its last empty square is checked.
        """
        cells = self.cells
        geo = self.geo
        out = set()
        p3 = self.pure[colour][3]
        cells[s] = colour
        try:
            for w in geo.of_cell[s]:
                if w in p3:
                    for c in geo.windows[w]:
                        if cells[c] == EMPTY:
                            run = self._run(c, geo.window_dir[w], colour)
                            if run == 5 or (run > 5 and not self.exact(colour)):
                                out.add(c)
                            break
        finally:
            cells[s] = EMPTY
        return out

    def four_candidates(self, colour: int) -> list[int]:
        out = set()
        for w in self.pure[colour][3]:
            for c in self.geo.windows[w]:
                if self.cells[c] == EMPTY:
                    out.add(c)
        return sorted(out)

    def double_five_moves(self, colour: int, near: int = -1) -> list[tuple[int, set[int]]]:
        """Legal moves leaving `colour` two or more five points, with those points. With `near`, only
        squares sharing a window with it (enough when none existed before `near` was played)."""
        if near >= 0:
            cand = set()
            p3 = self.pure[colour][3]
            for w in self.geo.of_cell[near]:
                if w in p3:
                    for c in self.geo.windows[w]:
                        if self.cells[c] == EMPTY:
                            cand.add(c)
            cand = sorted(cand)
        else:
            cand = self.four_candidates(colour)
        out = []
        for s in cand:
            f = self.makes_fives(s, colour)
            if len(f) >= 2 and not self.foul(s, colour):
                out.append((s, f))
        return out

    def has_line_of_five(self, colour: int) -> bool:
        """Five or more `colour` stones in a row anywhere (a win or, for exact rules, an overline)."""
        return bool(self.pure[colour][5])

    # ------------------------------------------------------------------ search
    def attack(self, a: int, depth: int, vct: bool) -> tuple[str, list[int]]:
        """Can A (colour a, to move) win with at most `depth` threat moves and then a five?"""
        self.nodes += 1
        if self.node_limit and self.nodes > self.node_limit:
            raise _OutOfNodes
        d = 3 - a
        mine = self.five_points(a)
        if mine:
            return WIN, [min(mine)]
        theirs = self.five_points(d)
        if len(theirs) >= 2 or depth <= 0:
            return FAIL, []
        key = (self.hash, a, vct)
        entry = self.tt.get(key)
        if entry is not None:
            win_depth, win_line, fail_depth = entry
            if win_depth is not None and win_depth <= depth:
                return WIN, win_line
            if fail_depth >= depth:
                return FAIL, []
        else:
            win_depth, win_line, fail_depth = None, None, -1
        status, line = self._attack_moves(a, depth, vct, theirs)
        if status == WIN:
            self.tt[key] = (depth if win_depth is None else min(win_depth, depth),
                            line if win_depth is None or depth < win_depth else win_line, fail_depth)
        else:
            self.tt[key] = (win_depth, win_line, max(fail_depth, depth))
        return status, line

    def _attack_moves(self, a: int, depth: int, vct: bool, theirs: set[int]) -> tuple[str, list[int]]:
        if theirs:  # D threatens a five: the block is A's only move
            (q,) = theirs
            if self.foul(q, a):
                return FAIL, []
            return self._after_attacker_move(a, q, depth - 1, vct)
        fours, threes = [], []
        for s in self.four_candidates(a):
            f = self.makes_fives(s, a)
            if not f or self.foul(s, a):
                continue
            if len(f) >= 2:
                return WIN, [s, min(f), max(f)]  # D has no five point: it blocks one, A plays the other
            fours.append(s)
        if vct and depth >= 2:
            threes = self._three_moves(a)
        killer = self.killers.get((depth, a))
        moves = fours + threes
        if killer in moves:
            moves.remove(killer)
            moves.insert(0, killer)
        for s in moves:
            status, line = self._after_attacker_move(a, s, depth - 1, vct)
            if status == WIN:
                self.killers[(depth, a)] = s
                return WIN, line
        return FAIL, []

    def _three_moves(self, a: int) -> list[int]:
        """A's moves (not fours) after which A has a legal double-five move, most promising first."""
        cand = set()
        for w in self.pure[a][2]:
            for c in self.geo.windows[w]:
                if self.cells[c] == EMPTY:
                    cand.add(c)
        scored = []
        for p in sorted(cand):
            self.place(p, a)
            try:
                if self.fives_through(p, a):
                    continue  # a four: already tried
                threats = self.double_five_moves(a, near=p)
            finally:
                self.remove(p)
            if threats and not self.foul(p, a):
                score = len(threats) * 100 + sum(1 << (2 * self.count[a][w]) for w in self.geo.of_cell[p]
                                                 if self.count[3 - a][w] == 0)
                scored.append((-score, p))
        scored.sort()
        return [p for _, p in scored]

    def _after_attacker_move(self, a: int, p: int, depth: int, vct: bool) -> tuple[str, list[int]]:
        """A has just chosen p (D has no five point once p is on the board); `depth` threat moves remain."""
        d = 3 - a
        self.place(p, a)
        try:
            fives = self.fives_through(p, a)
            if len(fives) >= 2:
                return WIN, [p, min(fives), max(fives)]
            if len(fives) == 1:
                (q,) = fives
                if self.foul(q, d):
                    return WIN, [p, q, q]  # black may not block; A's five follows
                self.place(q, d)
                try:
                    status, line = self.attack(a, depth, vct)
                finally:
                    self.remove(q)
                return status, ([p, q] + line if status == WIN else [])
            if not vct or depth <= 0:
                return FAIL, []  # after a three, D moves freely and A needs one more threat move at least
            threats = self.double_five_moves(a)
            if not threats:
                return FAIL, []
            replies = self._defences(a, threats)
            if not replies:
                s, f = threats[0]
                return WIN, [p, -1, s, min(f), max(f)]  # every D move loses to s
            best: list[int] | None = None
            for m in replies:
                self.place(m, d)
                try:
                    status, line = self.attack(a, depth, vct)
                finally:
                    self.remove(m)
                if status != WIN:
                    return FAIL, []
                if best is None or len(line) + 1 > len(best):
                    best = [m] + line
            return WIN, [p] + best
        finally:
            self.remove(p)

    def _defences(self, a: int, threats: list[tuple[int, set[int]]]) -> list[int]:
        """D's moves that are not proven losses after A's three (see the module docstring)."""
        d = 3 - a
        common = None
        for s, f in threats:
            zone = f | {s}
            common = zone if common is None else common & zone
        keep = set(common)
        for s in self.four_candidates(d):
            if s not in keep and self.makes_fives(s, d):
                keep.add(s)
        if self.rules.renju and a == BLACK:
            # a white stone may turn black's s into a foul (the judge's recursive threes). The judge's
            # answer for s can change only if it read the square: ask again for those squares only
            reads = [self._foul_reads(s) for s, _ in threats]
            for m in range(self.n * self.n):
                if self.cells[m] != EMPTY or m in keep:
                    continue
                alive = False
                for (s, f), seen in zip(threats, reads):
                    if m in f or m == s:
                        continue
                    if m not in seen:
                        alive = True
                        break
                    self.place(m, d)
                    try:
                        alive = not self.foul(s, a)
                    finally:
                        self.remove(m)
                    if alive:
                        break
                if not alive:
                    keep.add(m)
        out = [m for m in keep if not self.foul(m, d)]
        zone_first = sorted(out, key=lambda m: (m not in common, m))
        return zone_first

    # ------------------------------------------------------------------ entry points
    def solve(self, attacker: int, max_depth: int, vct: bool, node_limit: int = 0,
              min_depth: int = 1) -> Result:
        """Shortest win (iterative deepening from min_depth to max_depth) for `attacker` to move."""
        self.nodes = 0
        self.node_limit = node_limit
        try:
            for depth in range(min_depth, max_depth + 1):
                status, line = self.attack(attacker, depth, vct)
                if status == WIN:
                    return Result(WIN, depth, self._xy_line(line), self.nodes)
        except _OutOfNodes:
            return Result(UNKNOWN, 0, [], self.nodes)
        return Result(FAIL, 0, [], self.nodes)

    def wins_after(self, attacker: int, move: int, max_depth: int, vct: bool, node_limit: int = 0) -> Result:
        """Does `attacker` still have a forced win (as this solver proves them) after playing `move`?

        A four or a three is judged by the search's own rules (D's forced block, or D's free reply
        with only proven losses skipped). A move that threatens nothing gives D a free move, and then
        every legal D reply is searched. `length` counts A's threat moves, `move` included.
        """
        self.nodes = 0
        self.node_limit = node_limit
        d = 3 - attacker
        try:
            mine = self.five_points(attacker)
            if move in mine:
                return Result(WIN, 0, [self.xy(move)], self.nodes)
            if self.foul(move, attacker):
                return Result(FAIL, 0, [], self.nodes)
            theirs = self.five_points(d)
            if theirs and move not in theirs:
                return Result(FAIL, 0, [], self.nodes)
            if not mine and self._threatens(attacker, move, vct):
                for depth in range(max_depth):
                    status, line = self._after_attacker_move(attacker, move, depth, vct)
                    if status == WIN:
                        return Result(WIN, depth + 1, self._xy_line(line), self.nodes)
                return Result(FAIL, 0, [], self.nodes)
            return self._after_quiet(attacker, move, max_depth, vct)
        except _OutOfNodes:
            return Result(UNKNOWN, 0, [], self.nodes)

    def _threatens(self, a: int, p: int, vct: bool) -> bool:
        """Is A's move p a four, or (VCT) does A have a double-five move after it?"""
        self.place(p, a)
        try:
            return bool(self.fives_through(p, a)) or (vct and bool(self.double_five_moves(a)))
        finally:
            self.remove(p)

    def _after_quiet(self, a: int, move: int, max_depth: int, vct: bool) -> Result:
        """After A's `move`, every legal D reply searched (A's win within max_depth - 1 threat moves),
        the replies nearest to A's stones first."""
        d = 3 - a
        self.place(move, a)
        try:
            if self.five_points(d):
                return Result(FAIL, 0, [], self.nodes)
            n = self.n
            stones = [c for c in range(n * n) if self.cells[c] != EMPTY]
            def distance(m):
                x, y = m % n, m // n
                return min(max(abs(x - c % n), abs(y - c // n)) for c in stones)
            replies = sorted((m for m in range(n * n) if self.cells[m] == EMPTY), key=lambda m: (distance(m), m))
            worst = None
            for m in replies:
                if self.foul(m, d):
                    continue
                self.place(m, d)
                try:
                    status, line = FAIL, []
                    for depth in range(1, max_depth):
                        status, line = self.attack(a, depth, vct)
                        if status == WIN:
                            break
                finally:
                    self.remove(m)
                if status != WIN:
                    return Result(FAIL, 0, [], self.nodes)
                if worst is None or len(line) > len(worst):
                    worst = [m] + line
            return Result(WIN, max_depth, self._xy_line([move] + (worst or [])), self.nodes)
        finally:
            self.remove(move)

    def _xy_line(self, line: list[int]) -> list[tuple[int, int]]:
        return [self.xy(c) if c >= 0 else (-1, -1) for c in line]


# ---------------------------------------------------------------------- position-level helpers

def board_of(size: int, rules: Rules, stones) -> ThreatBoard:
    """stones: (x, y, colour) triples."""
    return ThreatBoard(size, rules, stones)


def solve(size: int, rules: Rules, stones, attacker: int, max_depth: int, vct: bool,
          node_limit: int = 0, min_depth: int = 1) -> Result:
    return ThreatBoard(size, rules, stones).solve(attacker, max_depth, vct, node_limit, min_depth)


def winning_first_moves(size: int, rules: Rules, stones, attacker: int, length: int, vct: bool,
                        node_limit: int = 0, moves=None) -> set[tuple[int, int]] | None:
    """A's threat moves that win within `length` threat moves in all (None if a budget ran out).

    Candidates are A's fours and (VCT) threes; a five point, if A has one, is the answer alone.
    ``moves`` (x, y pairs) limits the search to those candidates: the answer is then the full
    answer's intersection with them, at a fraction of the cost.
    """
    b = ThreatBoard(size, rules, stones)
    five = b.five_points(attacker)
    if five:
        return {b.xy(c) for c in five}
    d = 3 - attacker
    theirs = b.five_points(d)
    if theirs:
        cands = sorted(theirs)
    else:
        cands = [s for s in b.four_candidates(attacker) if b.makes_fives(s, attacker)]
        if vct:
            cands += b._three_moves(attacker)
    if moves is not None:
        cands = [s for s in cands if b.xy(s) in set(moves)]
    out = set()
    for s in cands:
        if b.foul(s, attacker):
            continue
        b.nodes = 0
        b.node_limit = node_limit
        try:
            status, _ = b._after_attacker_move(attacker, s, length - 1, vct)
        except _OutOfNodes:
            return None
        if status == WIN:
            out.add(b.xy(s))
    return out


def refutations(size: int, rules: Rules, stones, defender: int, max_depth: int, node_limit: int = 0,
                give_up_above: int = 0) -> tuple[set[tuple[int, int]] | None, int]:
    """D's legal moves after which A (the other colour, then to move) has no VCT within max_depth.

    Every empty square D may legally play is tried (the squares nearest A's stones first, which is
    only an order). Returns (the set, or None if some check ran out of nodes or more than
    `give_up_above` moves refute when that is set, and the nodes used in all).
    """
    b = ThreatBoard(size, rules, stones)
    a = 3 - defender
    out = set()
    total = 0
    attackers = [c for c in range(size * size) if b.cells[c] == a]

    def distance(m):
        x, y = m % size, m // size
        return min((max(abs(x - c % size), abs(y - c // size)) for c in attackers), default=0)

    order = sorted((m for m in range(size * size) if b.cells[m] == EMPTY), key=lambda m: (distance(m), m))
    for m in order:
        if b.foul(m, defender):
            continue
        b.place(m, defender)
        try:
            b.nodes = 0
            b.node_limit = node_limit
            try:
                status = _shortest(b, a, max_depth)
            except _OutOfNodes:
                return None, total + b.nodes
            total += b.nodes
        finally:
            b.remove(m)
        if status != WIN:
            out.add(b.xy(m))
            if give_up_above and len(out) > give_up_above:
                return None, total
    return out, total


def _shortest(b, a: int, max_depth: int) -> str:
    """A's VCT on ``b`` by deepening 1..max_depth threat moves: WIN at the first depth that wins,
    else FAIL (raises _OutOfNodes past the board's node limit)."""
    status = FAIL
    for depth in range(1, max_depth + 1):
        status, _ = b.attack(a, depth, True)
        if status == WIN:
            break
    return status


def replies(size: int, rules: Rules, stones, defender: int, max_depth: int, node_limit: int = 0,
            moves=None) -> dict[tuple[int, int], tuple[str, int, bool]]:
    """Each legal D move (or each of `moves`): A's VCT status after it (WIN, FAIL or UNKNOWN when
    the node limit ran out; a shortest win is searched, 1..max_depth threat moves), the nodes it
    took, and whether the move is a four of D's (after it A's only move is the block, so a FAIL
    there may just be a delay; a block of A's own five point is not counted as one). Like `refutations`, but every move's own answer is kept."""
    b = ThreatBoard(size, rules, stones)
    a = 3 - defender
    order = [y * size + x for x, y in moves] if moves is not None else [m for m in range(size * size)]
    out: dict[tuple[int, int], tuple[str, int, bool]] = {}
    blocking = bool(b.five_points(a))  # D must block A's five: a block that is also a four is no delay
    for m in order:
        if b.cells[m] != EMPTY or b.foul(m, defender):
            continue
        four = not blocking and bool(b.makes_fives(m, defender))
        b.place(m, defender)
        b.nodes = 0
        b.node_limit = node_limit
        try:
            status = _shortest(b, a, max_depth)
        except _OutOfNodes:
            status = UNKNOWN
        finally:
            b.remove(m)
        out[b.xy(m)] = (status, b.nodes, four)
    return out


def is_legal_position(size: int, rules: Rules, moves) -> str | None:
    """None if the moves (x, y, colour in play order, alternating from black) make a legal position:
    squares distinct and on the board, colours alternating, no five on the board, and under renju no
    black stone that was a foul when it was played. Otherwise the reason."""
    b = ThreatBoard(size, rules, ())
    expect = BLACK
    for i, (x, y, colour) in enumerate(moves):
        if colour != expect:
            return f"move {i}: colour {colour}, expected {expect}"
        if not (0 <= x < size and 0 <= y < size) or b.cells[y * size + x] != EMPTY:
            return f"move {i}: square {x},{y} off the board or taken"
        if b.foul(y * size + x, colour):
            return f"move {i}: black foul at {x},{y}"
        b.place(y * size + x, colour)
        if b.has_line_of_five(colour):
            return f"move {i}: five in a row on the board"
        expect = 3 - expect
    return None
