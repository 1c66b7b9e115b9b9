"""Experiment `mnk`: T. Lim's MCTS-vs-minimax study on m,n,k-games, then our brain in MCTS's seat.

Grid: m, n in 8..15 (m <= n, the board is symmetric), k in {ceil(min/2), ceil(min/2)+1}, a time
limit per move, each agent first once; +1 when the minimax agent wins a game, -1 when it loses,
so a cell sums to -2..2 exactly as in Lim's Fig. 1. Baselines: both agents against a random first
player at tic-tac-toe and 15x15 gomoku.
"""
from __future__ import annotations

import argparse
import math
import statistics
from dataclasses import dataclass, field

from gomocup_bot.experiments.report import Report, progress

HELP = "Lim: his MCTS vs his minimax over m,n in 8..15 (+ baselines vs random), then our brain vs his minimax"

PAPER_BASELINES = {
    ("lim-mcts", "tic-tac-toe"): "54 wins / 46 draws / 0 losses",
    ("lim-minimax", "tic-tac-toe"): "87 wins / 13 draws / 0 losses",
    ("lim-mcts", "gomoku 15x15"): "100 wins / 0 / 0",
    ("lim-minimax", "gomoku 15x15"): "100 wins / 0 / 0",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", default="", help="comma-separated seconds per move (Lim: 3,5; quick: 0.05)")
    parser.add_argument("--sizes", default="", help="board sides, e.g. 8-15 or 8,10,12 (default 8-15; quick 8,10,12)")
    parser.add_argument("--baseline-games", type=int, default=-1, help="games per baseline (Lim: 100; quick: 20)")
    parser.add_argument("--baseline-seconds", type=float, default=0.0, help="seconds per move in the baselines (default: the first --seconds)")
    parser.add_argument("--no-brain", action="store_true", help="skip the grid with our brain in place of Lim's MCTS")
    parser.add_argument("--brain-engine", default="gomocup-bot", help="our engine for the second grid (default gomocup-bot)")
    parser.add_argument("--mcts-nodes", type=int, default=1_000_000, help="tree node pool of Lim's MCTS agent")


def parse_sizes(text: str) -> list[int]:
    sizes: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, hi = (int(v) for v in part.split("-", 1))
            sizes.update(range(lo, hi + 1))
        else:
            sizes.add(int(part))
    if not sizes or min(sizes) < 3 or max(sizes) > 26:
        raise ValueError(f"board sides must be within 3..26, got {text!r}")
    return sorted(sizes)


def lim_k_values(m: int, n: int) -> tuple[int, int]:
    low = math.ceil(min(m, n) / 2)
    return low, low + 1


@dataclass
class Cell:
    """One (m, n, k, seconds) square of the heatmap: two games, minimax first once."""

    points: int = 0  # for the minimax agent
    results: list[str] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)


@dataclass
class AgentLog:
    """Per-move figures of an agent across a grid (means go into the report)."""

    depth: list[int] = field(default_factory=list)
    nodes: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)


class _Logged:
    """Wraps an agent to record its per-move statistics without changing its behaviour."""

    def __init__(self, agent, log: AgentLog) -> None:
        self.agent = agent
        self.log = log
        self.name = agent.name

    def new_game(self, game) -> None:
        self.agent.new_game(game)

    def choose(self, board, player, seconds):
        import time

        started = time.monotonic()
        cell = self.agent.choose(board, player, seconds)
        self.log.seconds.append(time.monotonic() - started)
        last = getattr(self.agent, "last", None)
        if last is not None and (last.nodes or last.depth):
            self.log.depth.append(last.depth)
            self.log.nodes.append(last.nodes)
        elif getattr(self.agent, "last_nodes", 0):
            self.log.nodes.append(self.agent.last_nodes)
        return cell


def run(args: argparse.Namespace) -> Report:
    from gomocup_bot.experiments import NotAvailable
    from gomocup_bot.experiments.lim_agents import LimMCTS, LimMinimax, RandomAgent, warm_up
    from gomocup_bot.experiments.mnk_game import MNKGame
    from gomocup_bot.experiments.mnk_match import play_game

    try:
        seconds = [float(s) for s in (args.seconds or ("0.05" if args.quick else "3,5")).split(",") if s.strip()]
        sizes = parse_sizes(args.sizes or ("8,10,12" if args.quick else "8-15"))
    except ValueError as exc:
        raise NotAvailable(f"bad settings: {exc}") from exc
    if not seconds or min(seconds) <= 0:
        raise NotAvailable("--seconds needs positive numbers")
    baseline_games = args.baseline_games if args.baseline_games >= 0 else (20 if args.quick else 100)
    baseline_seconds = args.baseline_seconds or seconds[0]

    report = Report(
        "mnk",
        "MCTS vs minimax on m,n,k-games (Lim), and our brain in MCTS's seat",
        {
            "quick": args.quick,
            "seconds per move": "/".join(f"{s:g}" for s in seconds),
            "board sides": f"{sizes[0]}..{sizes[-1]}" if sizes == list(range(sizes[0], sizes[-1] + 1)) else ",".join(map(str, sizes)),
            "baseline games": baseline_games,
            "baseline seconds per move": f"{baseline_seconds:g}",
            "MCTS node pool": args.mcts_nodes,
            "seed": args.seed,
        },
    )
    progress("mnk: compiling / loading Lim's agents")
    warm_up()

    mcts_log, mm_log = AgentLog(), AgentLog()
    mcts = _Logged(LimMCTS(max_nodes=args.mcts_nodes, seed=args.seed), mcts_log)
    minimax = _Logged(LimMinimax(), mm_log)
    scaled = LimMCTS(max_nodes=args.mcts_nodes, seed=args.seed, scaled=True)

    report.para(
        "Both of Lim's agents are re-implemented from his description (numba kernels in "
        "`gomocup_bot/experiments/lim_kernels.py`), with his heuristic read as: for every window of k cells in a "
        "row that holds stones of only one player, that player gets 1/k per stone, plus 1 when the window lacks "
        "a single stone; k in a row is worth 1e9; the evaluation is the mover's total minus the opponent's. "
        "*Minimax*: iterative deepening alpha-beta (negamax) over every empty cell, transposition table with "
        "exact/lower/upper flags, root moves re-ordered by the previous iteration's values, TT move first inside "
        "the tree, stop at a proven win/loss. *MCTS*: UCT with c = sqrt(2), a leaf is expanded into all its "
        "children, one random move for each side then the raw heuristic (±1e9 on a win) is backed up, the final "
        "move is the max child (highest mean). Our agents run compiled code, so they search far more nodes per "
        "second than Lim's (presumably Python) agents at the same time limit."
    )

    # --- baselines ---------------------------------------------------------------------------
    report.heading("Baselines against a random first player (Lim: \"Baseline\")")
    rows = []
    for label, game in (("tic-tac-toe", MNKGame(3, 3, 3)), ("gomoku 15x15", MNKGame(15, 15, 5))):
        for agent in (mcts, minimax, scaled):
            tally = [0, 0, 0]
            for g in range(baseline_games):
                rec = play_game(game, RandomAgent(seed=args.seed * 1000 + g), agent, baseline_seconds)
                tally[{2: 0, 0: 1, 1: 2}[rec.winner]] += 1
            progress(f"mnk: baseline {agent.name} vs random at {label}: {tally[0]}/{tally[1]}/{tally[2]}")
            rows.append([agent.name, label, baseline_games, *tally, PAPER_BASELINES.get((agent.name, label), "not in the paper")])
    report.table(["agent (second)", "game", "games", "wins", "draws", "losses", "Lim (100 games)"], rows)
    report.para(
        "`lim-mcts-scaled` is Lim's MCTS with the one change his paper proposes to test: rewards kept within "
        "-1..1 (a win is ±1, any other evaluation h becomes h / (1 + |h|)), so a single lucky rollout can no "
        "longer outweigh UCT's exploration term."
    )
    baseline_rows = rows

    # --- grid 1: Lim's MCTS vs Lim's minimax -------------------------------------------------
    mcts_log, mm_log = AgentLog(), AgentLog()  # per-move figures of the grid only, not the baselines
    mcts.log, minimax.log = mcts_log, mm_log
    report.heading("Grid 1: Lim's MCTS vs Lim's minimax")
    grid1 = _run_grid(sizes, seconds, minimax, mcts, play_game, MNKGame, "grid 1")
    _grid_section(report, grid1, sizes, seconds, "Lim's MCTS")
    _agent_figures(report, {"Lim's minimax": mm_log, "Lim's MCTS": mcts_log})

    # --- grid 2: our brain vs Lim's minimax --------------------------------------------------
    grid2 = None
    if not args.no_brain:
        report.heading(f"Grid 2: our brain (`{args.brain_engine}`) vs Lim's minimax")
        try:
            from gomocup_bot.experiments.mnk_match import EngineAgent

            brain_log = AgentLog()
            brain = _Logged(EngineAgent(args.brain_engine), brain_log)
        except Exception as exc:  # the engines are built by another part of the project
            report.para(f"Not available: our engine `{args.brain_engine}` could not be created ({exc!r}).")
        else:
            mm_log2 = AgentLog()
            minimax2 = _Logged(minimax.agent, mm_log2)
            grid2 = _run_grid(sizes, seconds, minimax2, brain, play_game, MNKGame, "grid 2")
            _grid_section(report, grid2, sizes, seconds, "our brain")
            _agent_figures(report, {"Lim's minimax": mm_log2, "our brain": brain_log})

    report.heading("Which of Lim's claims held on our code")
    _claims(report, baseline_rows, grid1, grid2)
    for title, grid in (("Grid 1", grid1), ("Grid 2", grid2)):
        if grid:
            report.heading(f"Appendix: every game of {title}")
            report.table(["m x n", "k", "s/move", "game 1", "game 2"],
                         [[f"{m}x{n}", k, f"{t:g}", *c.results] for (m, n, k, t), c in grid.items()])
    return report


def _run_grid(sizes, seconds, minimax, other, play_game, MNKGame, label) -> dict:
    grid: dict[tuple[int, int, int, float], Cell] = {}
    pairs = [(m, n) for m in sizes for n in sizes if m <= n]
    total = len(pairs) * 2 * len(seconds)
    done = 0
    for m, n in pairs:
        for k in lim_k_values(m, n):
            game = MNKGame(n, m, k)
            for t in seconds:
                cell = Cell()
                for first, second in ((minimax, other), (other, minimax)):
                    rec = play_game(game, first, second, t)
                    pts = rec.points_for(minimax.name)
                    cell.points += pts
                    cell.lengths.append(len(rec.moves))
                    cell.results.append(f"{first.name} first: {'draw' if rec.winner == 0 else ('minimax won' if pts > 0 else 'minimax lost')} ({rec.reason}, {len(rec.moves)} moves)")
                grid[(m, n, k, t)] = cell
                done += 1
                progress(f"mnk: {label} {done}/{total}: {m}x{n} k={k} t={t:g}s -> {cell.points:+d}")
    return grid


def _grid_section(report: Report, grid: dict, sizes, seconds, other_name: str) -> None:
    report.para(
        f"Points for Lim's minimax agent (+1 per game it wins, -1 per game {other_name} wins; two games per square, "
        "each side first once), range -2..2. Each cell shows both k values (rows, k = ceil(min/2) then +1) and "
        f"every time limit ({', '.join(f'{t:g} s' for t in seconds)}), like the 2x2 squares of Lim's Fig. 1."
    )
    header = ["m \\ n"] + [str(n) for n in sizes]
    rows = []
    for m in sizes:
        row = [str(m)]
        for n in sizes:
            if n < m:
                row.append("")
                continue
            lines = []
            for k in lim_k_values(m, n):
                pts = " ".join(f"{grid[(m, n, k, t)].points:+d}" for t in seconds)
                lines.append(f"k={k}: {pts}")
            row.append("<br>".join(lines))
        rows.append(row)
    report.table(header, rows)
    cells = list(grid.values())
    pos = sum(1 for c in cells if c.points > 0)
    neg = sum(1 for c in cells if c.points < 0)
    games = [r for c in cells for r in c.results]
    draws = sum(1 for r in games if "draw" in r)
    report.para(
        f"Totals over {len(cells)} squares ({len(games)} games): minimax points {sum(c.points for c in cells):+d}; "
        f"squares won by minimax {pos}, by {other_name} {neg}, even {len(cells) - pos - neg}; drawn games {draws}; "
        f"mean game length {statistics.mean(l for c in cells for l in c.lengths):.1f} moves."
    )
    by_k = {}
    for (m, n, k, t), c in grid.items():
        key = "k = ceil(min/2)" if k == lim_k_values(m, n)[0] else "k = ceil(min/2)+1"
        by_k.setdefault(key, []).append(c.points)
    for (m, n, k, t), c in grid.items():
        by_k.setdefault(f"t = {t:g} s", []).append(c.points)
    report.table(["subset", "squares", "minimax points", "mean per square"],
                 [[key, len(v), f"{sum(v):+d}", sum(v) / len(v)] for key, v in by_k.items()])


def _agent_figures(report: Report, logs: dict) -> None:
    rows = []
    for name, log in logs.items():
        rows.append([
            name,
            len(log.seconds),
            statistics.mean(log.seconds) if log.seconds else float("nan"),
            statistics.mean(log.depth) if log.depth and any(log.depth) else float("nan"),
            statistics.mean(log.nodes) if log.nodes else float("nan"),
        ])
    report.table(["agent", "moves", "mean seconds per move", "mean depth reached", "mean nodes / iterations per move"], rows)


def _claims(report: Report, baseline_rows, grid1, grid2) -> None:
    items = []
    for agent, game, n, w, d, l, paper in baseline_rows:
        if paper == "not in the paper":
            continue
        held = (l == 0) and (w == n if "gomoku" in game else True)
        items.append(f"{'held' if held else 'did NOT hold'} — baseline {agent} vs random at {game}: {w}/{d}/{l} "
                     f"(wins/draws/losses) vs Lim's {paper}.")
    ttt = {a: (w, l) for a, g, n, w, d, l, p in baseline_rows if g == "tic-tac-toe"}
    if "lim-mcts" in ttt and "lim-minimax" in ttt:
        better = ttt["lim-minimax"][0] >= ttt["lim-mcts"][0]
        items.append(f"{'held' if better else 'did NOT hold'} — at tic-tac-toe minimax beats random more often than "
                     f"MCTS ({ttt['lim-minimax'][0]} vs {ttt['lim-mcts'][0]} wins; Lim 87 vs 54).")
    if "lim-mcts-scaled" in ttt and "lim-mcts" in ttt:
        raw, fixed = ttt["lim-mcts"], ttt["lim-mcts-scaled"]
        helped = fixed[0] > raw[0] or fixed[1] < raw[1]
        items.append(f"{'supported' if helped else 'not supported'} — Lim's hypothesis that the huge WIN value misleads "
                     f"UCT: with rewards scaled into -1..1 his MCTS scores {fixed[0]} wins / {fixed[1]} losses against "
                     f"random at tic-tac-toe, against {raw[0]} / {raw[1]} unscaled.")
    total1 = sum(c.points for c in grid1.values())
    items.append(
        ("held" if total1 > 0 else "did NOT hold")
        + f" — \"the Minimax agent performs similarly but is slightly better than the MCTS agent\": minimax total "
        f"{total1:+d} over {len(grid1)} squares (a positive total means minimax was better)."
    )
    by_side: dict[int, int] = {}
    for (m, n, k, t), c in grid1.items():
        by_side[min(m, n)] = by_side.get(min(m, n), 0) + c.points
    if total1:
        lo = sum(v for side, v in by_side.items() if side <= 10)
        pattern = abs(lo) == abs(total1) or (total1 and abs(lo) / abs(total1) >= 0.8)
        items.append(
            f"{'did NOT hold' if pattern else 'held'} — Lim saw \"no noticeable patterns\"; minimax points by the "
            "board's shorter side: " + ", ".join(f"{side}: {v:+d}" for side, v in sorted(by_side.items()))
            + " (the longer k of bigger boards is nearly always drawn at this time limit)."
        )
    if grid2 is not None:
        total2 = sum(c.points for c in grid2.values())
        items.append(
            f"beyond the paper — our brain in place of Lim's MCTS: minimax total {total2:+d} over {len(grid2)} "
            f"squares ({'our brain was better' if total2 < 0 else 'minimax was not beaten overall'})."
        )
    report.bullets(items)
