"""The root's threat checks on the core board, before the principal-variation search.

In order: an own five; the opponent's five (block it, or the game is lost); an own VCT (deepened
from zero threes, i.e. a VCF first); then, if the opponent would have a VCT were it to move, the
defence set -- the candidate moves after which the opponent's VCT no longer works -- which the tree
search is then limited to. Each step runs against a share of the move's time (a watchdog raises
the solvers' stop flag). The defence by rounds of deeper checks (``rounds``, the engine's
default), which may take longer and a second thread, and the check of the tree search's choice
(`verify`) after it; or the quick defence (each candidate once).
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from gomocup_bot.core.board import copy_board, play, take
from gomocup_bot.core.classes import C_DOUBLE3, C_FIVE, C_FLEX4, C_FOUR, C_FOUR3, C_FOURP, C_THREE, C_THREEP
from gomocup_bot.core.constants import M_SIZE
from gomocup_bot.search import pvs as K
from gomocup_bot.search.clock import Watchdog
from gomocup_bot.search.vct import FAIL, UNKNOWN, WIN, ThreatSolver

VCT_DEPTH = 4  # threes in the attacker's line (fours are free)
QUICK_WIDTH, QUICK_NODES = 40, 8_000  # the quick defence (option defence=quick): candidates, and each one's budget
# The rounds (the engine's default defence):
OWN_SHARE = 0.75  # of the checks' window, at most, for our own VCT (the opponent's threats need the rest)
DEFENCE_WIDTH = 60  # candidate replies checked against the opponent's VCT
# The defence in rounds, each (threes, nodes per candidate): a cheap pass over every candidate,
# then deeper passes over the survivors only, as long as the defence's time lasts. Real blunders
# let in VCTs of 8-20 plies that a fixed 8k-node check per candidate passed as "holding".
DEFENCE_ROUNDS = ((VCT_DEPTH, 3_000), (VCT_DEPTH + 1, 20_000), (VCT_DEPTH + 2, 100_000), (VCT_DEPTH + 3, 400_000))
UNTIMED_DEFENCE_NODES = 1_000_000  # all rounds together, when the checks run without a deadline


@dataclass
class RootPlan:
    move: int = -1  # a decided move, -1 if the tree search decides
    reason: str = ""  # win / block / lost / vcf / vct
    proven: int = 0  # +1 win, -1 loss (as far as the checks can tell)
    allowed: list[int] | None = None  # limit the tree search's root to these
    line: list[int] = field(default_factory=list)
    threat: list[int] = field(default_factory=list)  # the opponent's VCT line, when one was found
    refuted: list[int] = field(default_factory=list)  # candidates the defence proved lost (the opponent's VCT works)
    rounds: int = 0  # defence rounds completed (see DEFENCE_ROUNDS)
    seconds: float = 0.0
    nodes: int = 0


def analyse(board, side: int, stop_array, deadline: float | None, *, excluded=frozenset(),
            vct_nodes: int = 300_000, rounds: bool = False, defence_deadline: float | None = None,
            threads: int = 1, tss: str = "dfs", defence_nodes: int = 0) -> RootPlan:
    """Run the checks for ``side`` to move on ``board`` (restored on return) until ``deadline``.
    The defence against the opponent's VCT is the quick one (each candidate once, inside
    ``deadline``), or with ``rounds`` the deeper rounds, which may go on until ``defence_deadline``
    (default the same) on ``threads`` threads (1 or 2), testing each candidate with the threat
    solver ``tss`` (`defence_solver`); the own and the opponent's VCT stay depth-first. With
    ``defence_nodes`` the rounds also stop at that many solver nodes in all (each test cut to what
    is left), so that a node-bounded search (self-play) does not depend on the clock."""
    t0 = time.monotonic()
    plan = RootPlan()
    me, op = side - 1, 2 - side
    if board.cnt[me, C_FIVE] > 0:
        plan.move, plan.reason, plan.proven = K.find_class(board, me, C_FIVE, -1), "win", 1
        return _done(plan, t0)
    if board.cnt[op, C_FIVE] > 0:
        q = K.find_class(board, op, C_FIVE, -1)
        if board.cnt[op, C_FIVE] == 1 and K.legal_for(board, q, side):
            plan.move, plan.reason = q, "block"
        else:
            # two fives, or (renju) the one block is a foul for black: lost; still a legal move
            if not K.legal_for(board, q, side):
                buf = np.zeros(int(board.meta[M_SIZE]), dtype=np.int32)
                work = K.new_work(board, K.new_tt(1 << 14), K.default_params(), np.zeros(1, dtype=np.int32))
                n = K.root_candidates(board, side, work, buf)
                q = int(buf[0]) if n else -1
            plan.move, plan.reason, plan.proven = q, "lost", -1
        return _done(plan, t0)
    own_deadline = None if deadline is None or not rounds else t0 + OWN_SHARE * (deadline - t0)
    dog = Watchdog(stop_array, own_deadline)
    with dog as abort:
        solver = ThreatSolver(board, abort)
        # the VCT deepens from 0 threes, which is the VCF: one search finds the shortest kind first
        result, line, n = solver.run(board, side, vct=True, max_depth=VCT_DEPTH, max_nodes=vct_nodes)
        plan.nodes += n
        if result == WIN and line and line[0] not in excluded:
            plan.move, plan.reason, plan.proven, plan.line = line[0], "vct", 1, line
            return _done(plan, t0)
        if not _next_phase(dog, stop_array, deadline):
            return _done(plan, t0)
        # the opponent's threats, as if it were to move
        result, line, n = solver.run(board, 3 - side, vct=True, max_depth=VCT_DEPTH, max_nodes=vct_nodes // 2)
        plan.nodes += n
        if result != WIN:
            return _done(plan, t0)
        plan.threat = line
        if not rounds:
            plan.allowed = _quick_defences(board, side, solver, abort, QUICK_NODES, plan)
            return _done(plan, t0)
        defence_deadline = defence_deadline if defence_deadline is not None else deadline
        if not _next_phase(dog, stop_array, defence_deadline):
            return _done(plan, t0)
        if tss != "dfs":  # the default keeps the solver above, with the failures it proved
            solver = defence_solver(tss, board, abort)
        plan.allowed = _round_defences(board, side, solver, abort, plan, threads, untimed=defence_deadline is None,
                                       tss=tss, max_nodes=defence_nodes)
    return _done(plan, t0)


def _next_phase(dog: Watchdog, stop_array, deadline: float | None) -> bool:
    """Move the watchdog on to the next check's deadline; False when there is no time left for it
    (or the brain was told to stop)."""
    dog.deadline = deadline
    if stop_array[0] != 0 or (deadline is not None and time.monotonic() >= deadline):
        return False
    dog.abort[0] = 0
    return True


def _candidates(board, side: int, plan: RootPlan) -> list[int]:
    """The root moves, best ordered first, the squares of the opponent's line ahead of the rest
    (that is where the defences usually are)."""
    return _ordered_candidates(board, side, plan.threat)


def _ordered_candidates(board, side: int, threat: list[int]) -> list[int]:
    """The moves for ``side`` (the tree search's root generation), the squares of the opponent's
    ``threat`` line first."""
    buf = np.zeros(int(board.meta[M_SIZE]), dtype=np.int32)
    work = K.new_work(board, K.new_tt(1 << 14), K.default_params(), np.zeros(1, dtype=np.int32))
    n = K.root_candidates(board, side, work, buf)
    cands = [int(q) for q in buf[:n]]
    first = [q for q in threat if q in set(cands)]
    return first + [q for q in cands if q not in set(first)]


def _quick_defences(board, side: int, solver: ThreatSolver, abort, nodes: int, plan: RootPlan) -> list[int] | None:
    """The quick defence (option ``defence=quick``): the candidates that refute the opponent's
    VCT. Each gets a small node budget so that all can be tried in the time: proven refutations
    are kept; failing those, the candidates the solver could not decide; own fours only delay, so
    they come in only when nothing else does. None when the check could say nothing in time."""
    me = side - 1
    cands = _candidates(board, side, plan)
    proven: list[int] = []
    undecided: list[int] = []
    fours: list[int] = []
    checked = 0
    for q in cands[:QUICK_WIDTH]:
        if abort[0]:
            break
        four = board.cls[me, q] in (C_FOUR, C_FOURP, C_FOUR3, C_FLEX4)
        play(board, q, side)
        try:
            result, _, n = solver.run(board, 3 - side, vct=True, max_depth=VCT_DEPTH, max_nodes=nodes)
        finally:
            take(board)
        plan.nodes += n
        if result == UNKNOWN and abort[0]:
            break  # cut by the clock: says nothing
        checked += 1
        if result == WIN:
            plan.refuted.append(q)
        else:
            (fours if four else (proven if result != UNKNOWN else undecided)).append(q)
    if checked == 0:
        return None
    kept = proven or undecided
    if kept:
        return kept + (fours if not proven else [])
    if fours:
        return fours
    if checked < min(len(cands), QUICK_WIDTH):
        return None  # not every candidate was tried: let the search choose
    plan.proven = -1  # nothing defends, as far as the solver can see
    return None


FOURS = (C_FOUR, C_FOURP, C_FOUR3, C_FLEX4)
COUNTERS = (C_THREE, C_THREEP, C_DOUBLE3) + FOURS  # our threats: kept when the solver cannot settle them
# After our four and its block, when the opponent's threat still stands: our replies tried (at
# most FOLLOW_WIDTH, each with the test's nodes / FOLLOW_SHARE, at least FOLLOW_MIN_NODES), and
# fours among them followed again FOLLOW_NEST - 1 more times. A four that blocks a line of the
# threat and is then followed by the real defence was read as a mere delay.
FOLLOW_WIDTH, FOLLOW_SHARE, FOLLOW_MIN_NODES, FOLLOW_NEST = 16, 4, 1_000, 1
_HELPER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="defence-helper")  # one thread, kept


class _Round:
    """One defence round's candidates, taken one at a time by the threads that test them."""

    def __init__(self, cands: list[int], cap: int, strict: bool = False) -> None:
        self.cands = cands
        self.cap = cap  # nodes this round may spend, in all
        self.strict = strict  # each test is cut to the nodes the cap leaves (else only the next is not started)
        self.next = 0
        self.lock = threading.Lock()
        self.results: dict[int, tuple[int, int]] = {}  # move -> (result, nodes)
        self.nodes = 0

    def take(self) -> int:
        with self.lock:
            if self.next >= len(self.cands):
                return -1
            self.next += 1
            return self.cands[self.next - 1]


def _test(board, solver: ThreatSolver, q: int, side: int, depth: int, nodes: int,
          nest: int = FOLLOW_NEST) -> tuple[int, int]:
    """The opponent's VCT (as if it were to move) after our move ``q``: (WIN/FAIL/UNKNOWN, nodes).
    Our four is followed by the opponent's forced block first; then it is our move again, so if
    the threat still stands, our replies are tried too (``nest`` levels of fours deep): WIN means
    the four only delayed it."""
    me = side - 1
    four = board.cls[me, q] in FOURS
    play(board, q, side)
    try:
        if four:
            r = K.find_class(board, me, C_FIVE, q)
            if r < 0 or not K.legal_for(board, r, 3 - side):
                return FAIL, 0  # no block (a renju foul): the four wins outright
            play(board, r, 3 - side)
            try:
                result, used = _after_block(board, solver, side, depth, nodes, nest)
            finally:
                take(board)
        else:
            result, _, used = solver.run(board, 3 - side, vct=True, max_depth=depth, max_nodes=nodes)
    finally:
        take(board)
    return result, used


def _after_block(board, solver: ThreatSolver, side: int, depth: int, nodes: int, nest: int) -> tuple[int, int]:
    """Our four was blocked and it is our move: if the block made the opponent a four, we block
    it in turn and the opponent moves; else, if the opponent's VCT (as if it were to move) still
    stands, our replies to it (`_follow_up`)."""
    op = 2 - side
    fives = board.cnt[op, C_FIVE]
    if fives == 0:
        result, line, used = solver.run(board, 3 - side, vct=True, max_depth=depth, max_nodes=nodes)
        if result == WIN and nest > 0:
            result, more = _follow_up(board, solver, side, depth, nodes, nest - 1, line)
            used += more
        return result, used
    s = K.find_class(board, op, C_FIVE, -1)
    if fives > 1 or s < 0 or not K.legal_for(board, s, side):
        return WIN, 0
    play(board, s, side)
    try:
        result, _, used = solver.run(board, 3 - side, vct=True, max_depth=depth, max_nodes=nodes)
    finally:
        take(board)
    return result, used


def _follow_up(board, solver: ThreatSolver, side: int, depth: int, nodes: int, nest: int,
               threat: list[int]) -> tuple[int, int]:
    """Our move after our four and its block, the opponent's ``threat`` line still standing. A
    reply that stops it (the squares of its line first) makes the four a defence: FAIL. WIN only
    when the replies are all the moves that can matter (the opponent has an open-four square: its
    blocks and our fours) and every one is refuted; else UNKNOWN."""
    op = 2 - side
    cands = _ordered_candidates(board, side, threat)
    complete = board.cnt[op, C_FLEX4] > 0 and len(cands) <= FOLLOW_WIDTH
    each = max(FOLLOW_MIN_NODES, nodes // FOLLOW_SHARE)
    used = 0
    unknown = False
    for q in cands[:FOLLOW_WIDTH]:
        result, n_used = _test(board, solver, q, side, depth, each, nest)
        used += n_used
        if result == FAIL:
            return FAIL, used
        if result == UNKNOWN:
            unknown = True
            if solver.stop[0]:
                break
    return (WIN if complete and not unknown else UNKNOWN), used


def _work(rnd: _Round, board, solver: ThreatSolver, side: int, depth: int, nodes: int, abort) -> None:
    while not abort[0] and rnd.nodes < rnd.cap:
        q = rnd.take()
        if q < 0:
            return
        budget = min(nodes, rnd.cap - rnd.nodes) if rnd.strict else nodes
        if budget <= 0:
            return
        result, used = _test(board, solver, q, side, depth, budget)
        with rnd.lock:
            rnd.nodes += used
            if not (result == UNKNOWN and abort[0]):  # cut by the clock: says nothing
                rnd.results[q] = (result, used)


def _round_defences(board, side: int, solver: ThreatSolver, abort, plan: RootPlan, threads: int = 1,
                    untimed: bool = False, tss: str = "dfs", max_nodes: int = 0) -> list[int] | None:
    """The candidates that refute the opponent's VCT, by rounds (DEFENCE_ROUNDS), each deeper
    than the last: a move the solver proves lost in any round is out; of the others, those proven
    to hold in the deepest round reached are kept, with our threats the solver could not settle
    and our fours that only delay (each round tests the best proven first, so a round the clock
    cuts still tells the strongest defences apart). With ``threads`` 2 a helper thread (its own
    board copy and solver) takes candidates from the same round; ``untimed``, the rounds stop at
    UNTIMED_DEFENCE_NODES; with ``max_nodes`` at that many (each test cut to what is left).
    None when nothing could be said in time."""
    me = side - 1
    alive = _candidates(board, side, plan)[:DEFENCE_WIDTH]
    helper = (copy_board(board), defence_solver(tss, board, abort)) if threads > 1 and len(alive) > 1 else None
    delays: list[int] = []  # own fours after whose block the threat is still there
    standing: dict[int, int] = {}  # the deepest round a move was proven to hold in
    spent: dict[int, int] = {}  # nodes of its last test: the quickly settled go first next round
    tried_any = False
    cap = max_nodes if max_nodes > 0 else (UNTIMED_DEFENCE_NODES if untimed else 1 << 62)
    for i, (depth, nodes) in enumerate(DEFENCE_ROUNDS):
        if cap <= 0:
            break
        alive.sort(key=lambda q: (-standing.get(q, -1), spent.get(q, 0)))
        rnd = _Round(alive, cap, strict=max_nodes > 0)
        job = _HELPER.submit(_work, rnd, *helper, side, depth, nodes, abort) if helper else None
        _work(rnd, board, solver, side, depth, nodes, abort)
        if job is not None:
            job.result()  # the helper stops on the same abort flag, or when the round is done
        plan.nodes += rnd.nodes
        cap -= rnd.nodes
        tried_any = tried_any or bool(rnd.results)
        for q, (result, used) in rnd.results.items():
            spent[q] = used
            if result == FAIL:
                standing[q] = i
        refuted = {q for q, (result, _) in rnd.results.items() if result == WIN}
        plan.refuted += [q for q in alive if q in refuted]
        delays += [q for q in refuted if board.cls[me, q] in FOURS and q not in delays]
        alive = [q for q in alive if q not in refuted]
        if len(rnd.results) < len(rnd.cands):
            break  # cut by the clock (the moves it refuted are out all the same)
        plan.rounds += 1
        if not alive or (len(alive) == 1 and standing.get(alive[0], -1) == i):
            break  # nothing left to tell apart
    if not tried_any:
        return None
    if alive:
        best = max(standing.get(q, -1) for q in alive)
        if best >= 0:
            # the moves proven to hold against the deepest threats tried, and our open threes and
            # fours the solver could not settle (a counter-attack may win first; the tree search
            # judges them). Our fours that only delay are out: each was followed by every reply
            # that could matter, and all were refuted.
            return [q for q in alive if standing.get(q, -1) == best or
                    (q not in standing and board.cls[me, q] in COUNTERS)]
        # nothing proven to hold: the fours that delay go in too (a deeper search may see more after one)
        return alive + [q for q in delays if q not in alive]
    if delays:
        return delays
    plan.proven = -1  # nothing defends, as far as the solver can see
    return None


VERIFY_DEPTH, VERIFY_NODES = VCT_DEPTH + 3, 400_000  # the check of the tree search's choice
VERIFY_WIDTH = 4  # its choice and at most this many - 1 runners-up
VERIFY_MAX = 12  # the ladder, when it refutes every move it tried, tries the next VERIFY_WIDTH, up to this many
# The check by a ladder (``ladder``, the engine's default): every move tried gets the cheap tests
# first, each rung over all of them, and the first move still standing is played, so a choice
# refuted early never stands because a runner-up's deep test ran out of time (each rung is
# (threes, nodes), the last one the single deep test above).
VERIFY_LADDER = ((VCT_DEPTH + 1, 20_000), (VCT_DEPTH + 3, 100_000), (VERIFY_DEPTH, VERIFY_NODES))
# With a probe (the opponent's own move search after our move), each move is probed first, for
# this share of the check's time left, and the threat solver tests it after: a forced win the
# probe proves is a blunder the solver passes (the opponent's line starts with a quiet move, or
# needs more threes than the solver's depth).
PROBE_SHARE = 0.35
PROBE_MIN = 0.01  # seconds: below this a probe says nothing, so none is started

# probe(move, deadline) -> True when the opponent is proven to win after our ``move``
Probe = Callable[[int, float], bool]


def verify(board, side: int, ranked: list[int], stop_array, deadline: float | None, tss: str = "dfs",
           probe: Probe | None = None, ladder: bool = False, threads: int = 1, max_nodes: int = 0) -> int:
    """The tree search's choice checked against the opponent's forced wins, deeper than the
    defence rounds could afford for every candidate: the first of ``ranked`` (best first) that
    neither the ``probe`` nor the threat solver refutes, trying at most VERIFY_WIDTH of them. If
    each one tried is refuted, or the time runs out first, the choice stands. With ``ladder``
    every move tried goes through the rungs of VERIFY_LADDER, each rung over the moves still
    standing (on ``threads`` threads, as the defence rounds), and the first move standing when the
    time runs out or the ladder ends is played: a refuted choice never stands for lack of time.
    When the ladder refutes every move it tried and time is left, the next VERIFY_WIDTH of the
    ranking go up it (up to VERIFY_MAX moves in all): a lower-ranked move that holds beats a
    refuted one. With ``max_nodes`` the solver's tests stop at that many nodes in all (a node-bounded search)."""
    if not ranked:
        return -1
    standing = list(ranked[:VERIFY_WIDTH])
    spent = 0  # solver nodes, against max_nodes
    with Watchdog(stop_array, deadline) as abort:
        solver = defence_solver(tss, board, abort)
        if not ladder:
            for q in standing:
                if probe is not None and deadline is not None:
                    left = deadline - time.monotonic()
                    if left >= PROBE_MIN and probe(q, time.monotonic() + PROBE_SHARE * left):
                        continue
                if abort[0]:
                    break
                budget = VERIFY_NODES if max_nodes <= 0 else min(VERIFY_NODES, max_nodes - spent)
                if budget <= 0:
                    break
                result, used = _test(board, solver, q, side, VERIFY_DEPTH, budget)
                spent += used
                if abort[0]:
                    break
                if result != WIN:
                    return q
            return ranked[0]
        helper = (copy_board(board), defence_solver(tss, board, abort)) if threads > 1 and len(ranked) > 1 else None
        start = len(standing)
        while True:
            if probe is not None and deadline is not None:
                for q in list(standing):
                    left = deadline - time.monotonic()
                    if left >= PROBE_MIN and probe(q, time.monotonic() + PROBE_SHARE * left):
                        standing.remove(q)
            for depth, nodes in VERIFY_LADDER:
                if abort[0] or not standing or (max_nodes > 0 and spent >= max_nodes):
                    break
                rnd = _Round(standing, max_nodes - spent if max_nodes > 0 else 1 << 62, strict=max_nodes > 0)
                job = _HELPER.submit(_work, rnd, *helper, side, depth, nodes, abort) if helper and len(standing) > 1 else None
                _work(rnd, board, solver, side, depth, nodes, abort)
                if job is not None:
                    job.result()
                spent += rnd.nodes
                standing = [q for q in standing if rnd.results.get(q, (UNKNOWN, 0))[0] != WIN]
            # every move tried is refuted: the next ones of the ranking, while the time lasts
            if standing or abort[0] or start >= min(len(ranked), VERIFY_MAX) or (max_nodes > 0 and spent >= max_nodes):
                break
            standing = list(ranked[start:min(start + VERIFY_WIDTH, VERIFY_MAX)])
            start += len(standing)
    return standing[0] if standing else ranked[0]


def defence_solver(tss: str, board, abort):
    """The threat solver the defence tests candidates with: ``dfs`` the depth-first search of
    `search.vct`, ``pn`` the depth-first search on a quarter of the nodes, then the proof-number
    search (`search.pns`), which proves holding moves (no VCT) far sooner."""
    if tss == "pn":
        from gomocup_bot.search.pns import PnSolver

        return PnSolver(board, abort)
    return ThreatSolver(board, abort)


def _done(plan: RootPlan, t0: float) -> RootPlan:
    plan.seconds = time.monotonic() - t0
    return plan
