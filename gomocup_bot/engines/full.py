"""`gomocup-bot`: the full brain -- layered root checks, then the tree search.

Pipeline: the root checks on the core board (`search.rootcheck`: win in one, block a five, own
VCF/VCT, the defence set against the opponent's VCT), then the tree search over the moves they
left: by default (``backend=ab``, see `DEFAULT_BACKEND`) the PVS; ``backend=auto`` the MCTS on
the network for a freestyle move with `AUTO_MCTS_SECONDS` or more on one thread, the PVS otherwise;
``backend=mcts`` the improved MCTS with the triggered minimax always. Every rule (caro
included) and win length runs on the one core board.

Options: ``backend`` (auto | ab | mcts), ``mcts_from`` (seconds: the move's time from which
``backend=auto`` plays the net MCTS, 4.0), ``trigger`` (none | brute | triggered | h1 | h2), ``k``,
``playout`` (heavy | depth | light | random), ``leaf`` (MCTS: quiesce | eval | playout -- the
PVS's quiescence search (the default), the static evaluation, or playouts; table boards but caro,
which play out), ``prior`` (MCTS: class | score -- priors from the threat classes (the default),
or line scores), ``final`` (robust | max | max-robust), ``level``,
``root_nodes`` (the root threat search's node budget), ``check_nodes`` (0, the default: the defence
rounds and the check of the choice run by the clock; N: they also stop at N solver nodes each, so
a node-bounded search, as self-play's, does not depend on the clock and spends its time in the
tree search), ``defence`` (quick | rounds, below), ``tss`` (the
threat solver the defence rounds test each candidate with: dfs, the default, or pn: depth-first on a
quarter of the nodes, then proof numbers; measured no stronger, docs/search.md), ``threads`` (1 | 2: the second core searches too -- alpha-beta with a lazy-SMP helper thread,
MCTS with a second tree (``parallel=root``) or on one shared tree (``parallel=tree``); defaults
below), ``reuse`` (MCTS: keep the tree from one move to the next); the PVS's ``eval_avg`` (1, the
default: the evaluation's pattern sums averaged over this and the previous position), ``extend``
(the forced defence against an open three costs no depth: 1 everywhere, 2 at PV nodes; off),
``leaf_vcf`` (threat-search nodes a horizon node may spend proving a win by fours alone, when
its side to move has at least ``leaf_vcf_fours`` squares that make a four; 0, off; with
``leaf_vcf_width`` k > 0, past its first four only the k best fours near the last are tried),
``defence_cap`` (against the opponent's open three, once a move holds, at most this many of the
blocks and our fours, fewer near the horizon as PentaZen counts them; 0, all), ``move_count``
(quiet nodes' move count: 0, ours, 3 + depth ** 1.32 and half that when the side is not
improving; 1, PentaZen's, 3, 9, 14, 18 ... at 1, 2, 3, 4 ... plies left, at most 32), ``iir``
(internal iterative reduction: nodes this deep or deeper without a hash move search one ply
less; 0, off), ``width`` (moves kept at a quiet inner node, 14; ``net_width``, 18, where the
net evaluates), ``mate_width`` (1: such a
node searches past its width while every kept move loses by force, so the cut claims no false
forced loss; 0, off), ``mated`` (1: a root that sees every move lose goes on searching with
``mate_width`` on, since the width cut of its own moves may have claimed the loss; 0, off), ``root_lmr`` (1: the root's late quiet moves get a reduced null-window
look first, re-searched at full depth when they beat the best; 1, the default since 2026-11-27) and ``max_depth`` (the
deepest iteration, 60), ``singular`` (singular extension from this remaining depth: a hash
move whose every alternative fails ``singular_margin`` units a ply below its value on a
half-depth look gets a ply more; 0, off), ``cut_lmr`` (plies more off a late move at a node expected
to fail high; 0, off), ``hist_lmr`` (1: killer moves and moves with a high history are reduced a ply
less, moves whose history went negative a ply more; the history takes a malus for quiet moves
searched before a cut-off; 0, off), ``tt_age`` (1: the hash table's depth-preferred slot gives
way to entries of the current search when it holds one of an earlier move's; 0, off), ``distract``
(1: against the opponent's open three, a four of ours that blocks nothing and lies far from both
last moves gets up to 3 plies more reduction, and is not searched near the horizon; 1, the default
since 343bfe2, 2026-11-27), ``latent`` (the weight of an evaluation term for latent
threats: each side's count of squares that make an open three, squared; level with the default
at 1 s, 93.8 % on the defence set against 92.8 % in seven paired passes, 5934664, 2026-12-03,
docs/search.md, "a latent-threat term"; 0, off), ``counter`` (1: a quiet move that refuted
the opponent's last move is tried next after the killers wherever that move is answered; 1, the
default since dc6679d, 2026-12-03: the defence set 95.8 % against 93.6 % in eight paired passes,
docs/search.md "A counter-move heuristic, and the defence set at 95.8 %"),
``iteration_start`` / ``iteration_end`` (shares of the planned time that start another iteration),
``use_turn`` (1: with a finite turn and no match clock, where time left over is lost, the PVS
deepens until the turn's hard budget; 0, off),
``defence_share`` (the share of the hard budget the defence rounds may run to, 0.32),
``verify_plan`` / ``verify_cut`` (when the opponent has a VCT: the tree search's planned and
greatest share of the time left after the root checks; the rest checks its choice), ``probe``
(1: that check also runs the opponent's own move search after each move it tries, `search.probe`,
and drops a move it proves lost; 0, off: measured level, docs/search.md), ``ladder`` (1, the default
since 2026-11-28: that check tests every move it tries by cheap threat searches first, then
deeper ones, `search.rootcheck.VERIFY_LADDER`; 0: the deep test, one move after the other),
``widen`` (1, the default: when the PVS proves every move the defence allowed lost, it searches the
root moves the defence left out but did not prove lost, in the time left; 0, off).
"""
from __future__ import annotations

import logging
import time

from gomocup_bot.core.constants import M_HEIGHT, M_RULE, M_WIDTH
from gomocup_bot.core.cpu import free_cores
from gomocup_bot.engine import SearchRequest, SearchResult, StopFlag
from gomocup_bot.neteval.network import NET_AUTO, NET_OFF, NET_ON
from gomocup_bot.search.adapter import BoardView, Budget, deadlines, make_result, pad_alternatives, report, summary_text
from gomocup_bot.search.engines_common import SearchEngineBase, pvs_result, warm_big_k
from gomocup_bot.search.pvs_driver import NEXT_ITERATION_END, NEXT_ITERATION_SHARE, PvsConfig, PvsSearcher

log = logging.getLogger(__name__)

# The MCTS backend is imported when first used: the default engine's start-up (billed to the
# match clock) never loads it.

# The default search is the PVS (``ab``) at every time control (docs/search.md, "MCTS"): the net
# MCTS, one thread each, scored 44.3 % of 200 against the net PVS at 1 s and 25-5-30 of 60 (45.8 %)
# at 5 s + 120 s, and issue 69's rule makes it the default only where it scores 50 % or more.
# ``auto`` chooses a move's search by the time and the cores it has: the PVS below
# `AUTO_MCTS_SECONDS`, the MCTS on the network from there at freestyle on one thread (with a second
# core the PVS and its lazy-SMP helper, since at two threads each the net MCTS, tree-parallel, played
# level with it: 11-1-12 of 24 at 5 s + 120 s); a node or depth limit (self-play, Yixin's
# max_node / max_depth) always runs the PVS. ``mcts`` is the MCTS alone.
DEFAULT_BACKEND = "ab"
BACKENDS = ("auto", "ab", "mcts")
AUTO_MCTS_SECONDS = 4.0  # a 5 s turn leaves 4.69 s a move; a 1 s turn 0.89 s
AUTO_MCTS_RULES = frozenset({"freestyle"})  # where it was measured (exact five plays the same net, unmeasured)
AUTO_MCTS_BOARDS = frozenset({(15, 15)})  # the board it was measured on (a net may play 20 x 20 too)
DEFAULT_THREADS = {"auto": 2, "ab": 2, "mcts": 1}
DEFAULT_REUSE = False
# `backend=mcts` leaves and priors: quiescence leaves and class priors beat evaluation leaves 18-12
# and heavy playouts by more (docs/search.md, "MCTS time under load, and its default")
DEFAULT_LEAF = "quiesce"
DEFAULT_PRIOR = "class"
DEFAULT_PARALLEL = "root"
# the PVS's selective search (options prune, vct_depth, vct_nodes; docs/search.md has the matches
# that chose these)
DEFAULT_PRUNE = 1
DEFAULT_VCT_DEPTH = 0
DEFAULT_VCT_NODES = 300
DEFAULT_LMR_SCALE = 100
DEFAULT_ORDER = 0  # move ordering: 0 the hand-set class tables, 1 the trained ones (option ``order``)
# option ``net`` of the PVS: the network evaluation where it played stronger than the tables
# (freestyle: 59.3 % of 300 games against the tables' brain at 1 s, 57.5 % of 100 at 5 s + 120 s,
# docs/eval.md), the tables elsewhere; 0 the tables everywhere, 1 the net for every rule the
# weights file has
DEFAULT_NET = NET_AUTO
DEFAULT_SHARP_TIME = False  # option ``sharp_time``: plan the whole budget when defending a forced win
DEFAULT_USE_TURN = False  # option ``use_turn``: with no match clock, the PVS deepens to the turn's hard budget
DEFAULT_ROOT_NODES = 300_000  # the root's own threat search (the opponent's gets half)
TACTICS_SHARE = 0.4  # of the planned time, at most, for the root's threat checks
# option ``defence``: quick (each candidate against the opponent's VCT once, 8k nodes, inside the
# checks' time) or rounds (deeper rounds over the survivors on two threads until DEFENCE_SHARE of
# the hard budget; then the tree search plans VERIFY_PLAN of what is left and is cut at
# VERIFY_CUT, and the rest checks its choice and runners-up against the opponent's VCT).
# docs/search.md, "Defence": rounds hold more of the defence set (100 of 115 against 93) and beat
# the base brain at 1 s (the match there).
DEFAULT_DEFENCE = "rounds"
DEFAULT_TSS = "dfs"  # option ``tss``: the defence's threat solver, dfs | pn (search.rootcheck.defence_solver)
DEFENCE_SHARE = 0.32
# option ``probe``: the check of the PVS's choice also runs the opponent's own move search after it (a
# forced win that starts with a quiet move is no VCT; search.rootcheck.verify, search.probe)
# measured level: 200 games against 4cf9990 and the defence set, off (41afa72, 2026-11-27; docs/search.md,
# "A probe after the check, and the defence set proved again")
DEFAULT_PROBE = False
# option ``ladder``: that check tests its moves cheap tests first (search.rootcheck.VERIFY_LADDER);
# the defence set at 1 s: 91.5 % held against 89.7 % (7039c16, 2026-11-28; docs/search.md, "The check of
# the PVS's choice by a ladder, and what the failures need")
DEFAULT_LADDER = True
VERIFY_PLAN, VERIFY_CUT = 0.7, 0.8


class FullEngine(SearchEngineBase):
    name = "gomocup-bot"

    def __init__(self, level=None, **options) -> None:
        super().__init__(level, **options)
        self.backend = self.option("backend", DEFAULT_BACKEND, str)
        if self.backend not in BACKENDS:
            log.warning("option backend=%r is not one of %s; using %s", self.backend, "/".join(BACKENDS),
                        DEFAULT_BACKEND)
            self.backend = DEFAULT_BACKEND
        self.mcts_from = self.option("mcts_from", AUTO_MCTS_SECONDS, float)
        self.tactics = self.option("tactics", True, bool)
        self.root_nodes = self.option("root_nodes", DEFAULT_ROOT_NODES, int)
        self.check_nodes = max(0, self.option("check_nodes", 0, int))
        self.sharp_time = self.option("sharp_time", DEFAULT_SHARP_TIME, bool)
        self.use_turn = self.option("use_turn", DEFAULT_USE_TURN, bool)
        self.widen = self.option("widen", 1, int)
        self.verify_plan = self.option("verify_plan", VERIFY_PLAN, float)
        self.verify_cut = self.option("verify_cut", VERIFY_CUT, float)
        self.defence_share = self.option("defence_share", DEFENCE_SHARE, float)
        if not 0.0 < self.defence_share < 1.0:
            log.warning("option defence_share=%s needs 0 < share < 1; using %s", self.defence_share, DEFENCE_SHARE)
            self.defence_share = DEFENCE_SHARE
        if not 0.0 < self.verify_plan <= self.verify_cut <= 1.0:
            log.warning("options verify_plan=%s, verify_cut=%s need 0 < plan <= cut <= 1; using %s, %s",
                        self.verify_plan, self.verify_cut, VERIFY_PLAN, VERIFY_CUT)
            self.verify_plan, self.verify_cut = VERIFY_PLAN, VERIFY_CUT
        self.tss = self.option("tss", DEFAULT_TSS, str)
        if self.tss not in ("dfs", "pn"):
            log.warning("option tss=%r is not dfs or pn; using %s", self.tss, DEFAULT_TSS)
            self.tss = DEFAULT_TSS
        self.probe = self.option("probe", DEFAULT_PROBE, bool)
        self.ladder = self.option("ladder", DEFAULT_LADDER, bool)
        self.net = self.option("net", DEFAULT_NET, int)  # the PVS's evaluation (`neteval.network`)
        if self.net not in (NET_OFF, NET_ON, NET_AUTO):
            log.warning("option net=%s is not 0, 1 or 2; using %s", self.net, DEFAULT_NET)
            self.net = DEFAULT_NET
        self.defence = self.option("defence", DEFAULT_DEFENCE, str)
        if self.defence not in ("quick", "rounds"):
            self.defence = DEFAULT_DEFENCE
        self.threads = max(1, min(2, self.option("threads", DEFAULT_THREADS[self.backend], int)))
        self._mcts_config = None
        self._mcts = None  # MctsSearcher
        self._pvs: PvsSearcher | None = None
        self._sizes = (0, 0)
        self._tree_limit = 0  # the max_memory the MCTS's tree was sized for (`_searchers_for`)

    @property
    def mcts_config(self):
        """The MCTS settings from the options (built on first use: it imports the MCTS modules)."""
        if self._mcts_config is None:
            from gomocup_bot.search.mcts_driver import NET_C, SELECTS, TRIGGERS, MctsConfig
            from gomocup_bot.search.policy import FINAL_POLICIES

            trigger = self.option("trigger", "triggered", str)
            final = self.option("final", "robust", str)
            # the network's policy priors and value leaves, PUCT (``backend=auto`` runs the MCTS only
            # where the rule's net plays, so on the net)
            net = self.option("net", 0, int) if self.backend == "mcts" else 1
            base = MctsConfig.on_net() if net else MctsConfig(leaf=DEFAULT_LEAF, prior=DEFAULT_PRIOR)
            select = self.option("select", base.select, str)
            cfg = MctsConfig(
                trigger=trigger if trigger in TRIGGERS else "triggered",
                k=self.option("k", 4, int),
                playout=self.option("playout", "heavy", str),
                leaf=self.option("leaf", base.leaf, str),
                quiesce_fours=self.option("quiesce_fours", base.quiesce_fours, int),
                prior=self.option("prior", base.prior, str),
                net=net,
                select=select if select in SELECTS else MctsConfig.select,
                c=self.option("c", NET_C if select == "puct" else MctsConfig.c, float),  # PUCT: values in [-1, 1]
                fpu=self.option("fpu", base.fpu, float),
                prior_temp=self.option("prior_temp", base.prior_temp, float),
                final=final if final in FINAL_POLICIES else "robust",
                seed=self.option("seed", 1, int),
                reuse=self.option("reuse", DEFAULT_REUSE, bool),
                parallel=self.option("parallel", DEFAULT_PARALLEL, str),
            )
            if cfg.parallel not in ("root", "tree"):
                cfg.parallel = DEFAULT_PARALLEL
            cfg.threads = 1 if self.backend == "auto" else self.threads  # ``auto``: see `uses_mcts`
            self._mcts_config = cfg
        return self._mcts_config

    def prepare(self) -> None:
        # the root checks are warmed with the PVS ("pvs"), which the MCTS backend runs them for too
        # (``auto`` loads the MCTS's kernels at its first MCTS move: a 1 s game never pays for them)
        self.warm_parts = ("pvs",) if self.backend != "mcts" else ("pvs", "mcts")
        if self.backend != "mcts" and self.net:
            self.warm_parts += ("pvs-net",)
        if self.backend == "mcts" and self.mcts_config.net:
            self.warm_parts += ("mcts-net",)
        if self.backend == "mcts" and self.threads > 1 and self.mcts_config.parallel == "tree":
            self.warm_parts += ("mcts-shared",)
        if self.tss == "pn":
            self.warm_parts += ("pns",)
        super().prepare()
        self._searchers_for(0)

    def prepare_mcts(self) -> None:
        """Load the MCTS's kernels where `prepare` left them out (``backend=auto``: at its first
        MCTS move, from numba's cache, a fraction of a second of a move of four or more)."""
        if self.backend == "mcts":
            return  # `prepare` loaded them
        from gomocup_bot.search.warm import warm_up

        warm_up(("mcts", "mcts-net"))  # one thread (`mcts_config`): no shared-tree kernels

    def _reset(self) -> None:
        if self._pvs is not None:
            self._pvs.clear()
        if self._mcts is not None:
            self._mcts.forget()

    def release_memory(self) -> None:
        self._mcts = None
        self._pvs = None
        self._sizes = (0, 0)

    def _searchers(self, request: SearchRequest, mcts: bool = False):
        self._searchers_for(request.max_memory, mcts)

    def uses_mcts(self, board, budget: Budget, now: float, threads: int = 1) -> bool:
        """Whether this move runs the MCTS: always with ``backend=mcts``; with ``auto`` when the
        move runs on one thread (``threads``: the PVS would have its helper otherwise), has
        `mcts_from` seconds or more, no node or depth limit, the rule is one of `AUTO_MCTS_RULES`,
        the board one of `AUTO_MCTS_BOARDS`, and it plays the net on this board
        (`neteval.network.network_for` with the option ``net``)."""
        if self.backend != "auto":
            return self.backend == "mcts"
        if threads > 1 or budget.max_nodes or budget.max_depth or budget.hard - now < self.mcts_from:
            return False
        from gomocup_bot.neteval.network import RULE_NETS, network_for

        return (RULE_NETS.get(int(board.meta[M_RULE])) in AUTO_MCTS_RULES
                and (int(board.meta[M_WIDTH]), int(board.meta[M_HEIGHT])) in AUTO_MCTS_BOARDS
                and network_for(board, self.net) is not None)

    def _searchers_for(self, max_memory: int, mcts: bool = False) -> None:
        from gomocup_bot.search.adapter import memory_split

        tree_bytes, tt_bytes = memory_split(max_memory)
        if (tree_bytes, tt_bytes) != self._sizes:
            self._mcts = None
            self._pvs = None
            self._sizes = (tree_bytes, tt_bytes)
        mcts = mcts or self.backend == "mcts"
        if mcts and self._mcts is not None and self._tree_limit != max_memory:
            self._mcts = None  # built for another limit (`prepare` builds it with none): sized again
        if self.backend == "auto":
            # one search's table at a time: with both, and both searches' kernels, a process passed
            # 333 MB at 5 s + 120 s (docs/search.md)
            if mcts:
                self._pvs = None
            else:
                self._mcts = None
        if mcts and self._mcts is None:
            self.prepare_mcts()
            from gomocup_bot.search.adapter import tree_bytes_within
            from gomocup_bot.search.mcts_driver import MctsSearcher
            from gomocup_bot.search.mcts import NODE_BYTES, REROOT_BYTES

            per_node = NODE_BYTES + (REROOT_BYTES if self.mcts_config.reuse else 0)
            # sized with the kernels loaded and the PVS's table given back (``auto``): what the
            # process holds now, not the nominal base, decides what is left for the tree
            self._mcts = MctsSearcher(self.mcts_config, tree_bytes_within(max_memory, tree_bytes) // per_node)
            self._tree_limit = max_memory
        if not mcts and self._pvs is None:
            self._pvs = PvsSearcher(tt_bytes, PvsConfig(threads=self.threads, prune=self.option("prune", DEFAULT_PRUNE, int),
                                                         vct_depth=self.option("vct_depth", DEFAULT_VCT_DEPTH, int),
                                                         vct_nodes=self.option("vct_nodes", DEFAULT_VCT_NODES, int),
                                                         lmr_scale=self.option("lmr_scale", DEFAULT_LMR_SCALE, int),
                                                         iteration_end=self.option("iteration_end", NEXT_ITERATION_END, float),
                                                         iteration_start=self.option("iteration_start", NEXT_ITERATION_SHARE,
                                                                                     float),
                                                         qdepth=self.option("qdepth", PvsConfig.qdepth, int),
                                                         order=self.option("order", DEFAULT_ORDER, int),
                                                         eval_avg=self.option("eval_avg", PvsConfig.eval_avg, int),
                                                         extend=self.option("extend", PvsConfig.extend, int),
                                                         iir=self.option("iir", PvsConfig.iir, int),
                                                         mate_width=self.option("mate_width", PvsConfig.mate_width, int),
                                                         mated=self.option("mated", PvsConfig.mated, int),
                                                         root_lmr=self.option("root_lmr", PvsConfig.root_lmr, int),
                                                         singular=self.option("singular", PvsConfig.singular, int),
                                                         singular_margin=self.option("singular_margin",
                                                                                     PvsConfig.singular_margin, int),
                                                         cut_lmr=self.option("cut_lmr", PvsConfig.cut_lmr, int),
                                                         hist_lmr=self.option("hist_lmr", PvsConfig.hist_lmr, int),
                                                         tt_age=self.option("tt_age", PvsConfig.tt_age, int),
                                                         distract=self.option("distract", PvsConfig.distract, int),
                                                         latent=self.option("latent", PvsConfig.latent, int),
                                                         net=self.net,
                                                         net_policy=self.option("net_policy", PvsConfig.net_policy, int),
                                                         net_avg=self.option("net_avg", PvsConfig.net_avg, int),
                                                         counter=self.option("counter", PvsConfig.counter, int),
                                                         static_margin=self.option("static_margin",
                                                                                   PvsConfig.static_margin, int),
                                                         razor=self.option("razor", PvsConfig.razor, int),
                                                         leaf_vcf=self.option("leaf_vcf", PvsConfig.leaf_vcf, int),
                                                         leaf_vcf_fours=self.option("leaf_vcf_fours", PvsConfig.leaf_vcf_fours, int),
                                                         leaf_vcf_width=self.option("leaf_vcf_width", PvsConfig.leaf_vcf_width, int),
                                                         defence_cap=self.option("defence_cap", PvsConfig.defence_cap, int),
                                                         move_count=self.option("move_count", PvsConfig.move_count, int),
                                                         width=self.option("width", PvsConfig.width, int),
                                                         net_width=self.option("net_width", PvsConfig.net_width, int),
                                                         max_depth=self.option("max_depth", PvsConfig.max_depth, int),
                                                         sharp_time=self.sharp_time))

    def _search(self, request: SearchRequest, stop: StopFlag, view: BoardView) -> SearchResult:
        """The root checks on the core board, then the PVS (or the MCTS) over the moves they left."""
        from gomocup_bot.core.board import board_from_position
        from gomocup_bot.search import rootcheck

        warm_big_k(request.position)
        budget = deadlines(request, self.level.time_share)
        board = board_from_position(request.position)
        threads = min(self.threads, free_cores()) if self.threads > 1 else 1  # read once a move
        # by the move's whole time (before the checks) and the cores it has
        mcts = self.uses_mcts(board, budget, time.monotonic(), threads)
        allowed = None
        sharp = False  # the root found the opponent's forced win (were it to move): think longer
        check = False  # ... and (defence=rounds) the PVS's choice is checked against it at the end
        rounds = self.defence == "rounds"
        if self.tactics:
            now = time.monotonic()
            share = max(budget.soft - now, 0.0)
            plan = rootcheck.analyse(board, view.side, stop.array, now + TACTICS_SHARE * share,
                                     excluded=view.excluded, vct_nodes=self.root_nodes, rounds=rounds,
                                     defence_deadline=now + self.defence_share * max(budget.hard - now, 0.0),
                                     threads=threads, tss=self.tss, defence_nodes=self.check_nodes)
            if plan.move >= 0 and plan.move not in view.excluded:
                report(request, "best", view, plan.move)
                line = " ".join(f"{x},{y}" for x, y in (view.xy(q) for q in plan.line if q >= 0))
                report(request, "summary", view, plan.move, winrate=1.0 if plan.proven > 0 else None,
                       text=f"tactics {plan.reason} in {plan.seconds * 1000:.0f} ms ({plan.nodes} nodes)"
                       + (f" pv {line}" if line else ""))
                result = make_result(view, plan.move, proven=plan.proven, pv=plan.line,
                                     winrate=1.0 if plan.proven > 0 else None,
                                     alternatives=[plan.move], nbest=request.nbest)
                if request.nbest > 1:
                    result = pad_alternatives(result, view, root_moves(board, view.side), request.nbest)
                return result
            if plan.allowed is not None:
                allowed = [p for p in plan.allowed if p not in view.excluded] or None
                if log.isEnabledFor(logging.DEBUG):
                    log.debug("root checks: %d rounds, allowed %s", plan.rounds,
                              " ".join(f"{x},{y}" for x, y in (view.xy(q) for q in allowed or [])))
            sharp = self.sharp_time and bool(plan.threat)
            check = rounds and bool(plan.threat)
        self._searchers(request, mcts)
        if mcts:
            result = self._search_mcts(request, stop, view, budget, allowed, board)
        else:
            self._pvs.config.threads = threads
            verify = None
            if check:  # leave the end of the budget to check the choice against the opponent's VCT
                hard = budget.hard
                budget = checked_budget(budget, time.monotonic(), self.verify_plan, self.verify_cut)
                side = view.side

                def verify(out, hard=hard, side=side):
                    if out.proven > 0:
                        return out.move  # the tree search proved a win: nothing to check
                    ranked = [out.move] + [q for q in out.ranked if q != out.move]
                    chosen = rootcheck.verify(board, side, ranked, stop.array, hard, self.tss,
                                              probe=self._probe(board, side, stop) if self.probe else None,
                                              ladder=self.ladder, threads=threads, max_nodes=self.check_nodes)
                    log.debug("check: PVS %s (proven %d, %d allowed) -> %s", view.xy(out.move), out.proven,
                              len(ranked), view.xy(chosen))
                    return chosen

                sharp = False
            widen = None
            if allowed is not None and self.widen:
                left_out = set(allowed) | set(plan.refuted) | set(view.excluded)

                def widen(left_out=left_out, side=view.side):  # built only when the allowed set is lost
                    return [q for q in root_moves(board, side) if q not in left_out]
            whole = self.use_turn and request.limits.clock_free and verify is None
            result = pvs_result(self._pvs, request, stop, view, budget, allowed, "pvs", board=board, sharp=sharp,
                                verify=verify, widen=widen, whole=whole)
        if request.nbest > len(result.alternatives):  # YXNBEST: the moves the checks ruled out come last
            result = pad_alternatives(result, view, root_moves(board, view.side), request.nbest)
        return result

    def _probe(self, board, side: int, stop: StopFlag):
        """The check's probe: the opponent's own move search after our candidate (`search.probe`)."""
        from gomocup_bot.search.probe import prober

        return prober(board, side, self._pvs, stop.array, self.root_nodes)

    def _search_mcts(self, request, stop, view, budget, allowed, board) -> SearchResult:
        from gomocup_bot.search.policy import child_mean, choose_final, ranked_children

        searcher = self._mcts
        last = {"best": -1, "t": 0.0}

        def on_progress(s) -> None:
            now = time.monotonic()
            if now - last["t"] < 0.1:
                return
            last["t"] = now
            kids = ranked_children(s.view)
            if kids:
                best = int(s.view.move[kids[0]])
                if best != last["best"]:
                    last["best"] = best
                    report(request, "best", view, best, nodes=s.iterations())

        cap = request.limits.max_nodes or self.level.max_iterations
        t0 = time.monotonic()
        out = searcher.run(board, view.side, stop.array,
                           soft_deadline=budget.soft, hard_deadline=budget.hard, max_iterations=cap,
                           allowed=allowed, excluded=sorted(view.excluded),
                           on_progress=on_progress if request.report else None)
        root = searcher.view  # the root children of every thread's tree, merged
        child = root.index_of(out.move)
        if self.level.temperature > 0:
            child, _ = choose_final(root, "robust", temperature=self.level.temperature)
        if child < 0:
            return make_result(view, view.fallback())
        p = int(root.move[child])
        q = child_mean(root, child)
        winrate = (q + 1) / 2 if q > -2 else None
        if int(root.proven[child]) == 1:
            winrate = 1.0
        pv = searcher.principal_variation(p)
        ranked = [int(root.move[i]) for i in ranked_children(root)]
        extra = f"minimax {out.minimax_runs} stop {out.stopped_by} threads {out.threads} reused {out.reused}"
        report(request, "summary", view, p, depth=len(pv), nodes=out.iterations, winrate=winrate,
               text=summary_text("mcts", view, depth=len(pv), nodes=out.iterations, winrate=winrate, pv=pv,
                                 seconds=time.monotonic() - t0, extra=extra))
        return make_result(view, p, proven=out.proven_root, winrate=winrate, depth=len(pv),
                           nodes=out.iterations, pv=pv, alternatives=ranked, nbest=request.nbest)


def checked_budget(budget: Budget, now: float, plan_share: float, cut_share: float) -> Budget:
    """The tree search's budget when its choice will be checked against the opponent's VCT: it
    plans ``plan_share`` and stops by ``cut_share`` of the time left ``now``; the check gets the
    rest (0.4 / 0.5 instead of 0.7 / 0.8 measured level in a screen: docs/search.md)."""
    left = max(0.0, budget.hard - now)
    return Budget(soft=min(budget.soft, now + plan_share * left), hard=now + cut_share * left,
                  max_nodes=budget.max_nodes, max_depth=budget.max_depth)


def root_moves(board, side: int) -> list[int]:
    """Every root candidate, best ordered first (for YXNBEST padding)."""
    import numpy as np

    from gomocup_bot.core.constants import M_SIZE
    from gomocup_bot.search import pvs as K

    work = K.new_work(board, K.new_tt(1 << 14), K.default_params(), np.zeros(1, dtype=np.int32))
    buf = np.zeros(int(board.meta[M_SIZE]), dtype=np.int32)
    n = K.root_candidates(board, side, work, buf)
    return [int(q) for q in buf[:n]]


def create(**options) -> FullEngine:
    return FullEngine(**options)
