"""The search's speed figures: PVS nodes/s on one thread, depth in one second, VCF and VCT solve
times, and a node checksum (fixed-depth searches are deterministic, so a changed checksum means
the search itself changed).

The midgame set is twelve fixed 15x15 freestyle positions (games of the engine from the built-in
balanced openings, each cut at the last ply where neither side has a five, open-four or
four-three square): quiet positions where the search has to think.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

MIDGAMES = (
    "7,7 8,7 9,9 10,8 8,8 10,10 10,9 11,9 9,5 12,8 9,11 11,8 9,8 9,7 8,6 6,8 13,8",
    "7,7 8,8 10,7 9,5 9,6 10,6 8,5 7,4 9,7 11,7 8,4 8,7 12,8 10,8 8,3 8,2 12,9 11,8 12,6 12,7",
    "7,7 6,8 9,8 4,6 7,9 7,6 6,6 5,5 9,9 3,7 6,4 4,8 9,7 2,8 1,9 5,8 3,8 8,8 7,8 9,10",
    "7,7 7,8 9,6 6,7 9,10 6,8 5,8 4,5 5,6 6,5 6,6 5,5 7,5 4,6 5,7 4,8 4,4 8,4 8,6 7,6 6,4 9,7 5,4 3,4",
    "7,7 8,6 8,9 8,10 6,7 9,7 7,5 7,8 6,6 4,8 6,8 6,9 5,5 8,8 6,5 6,4 8,5 4,5 4,4 3,3 4,7 9,5 5,7 3,7 8,4 9,3",
    "7,7 9,7 8,9 8,10 9,10 10,11 7,9 10,9 7,8 7,6 6,9 5,9 6,7 5,6",
    "7,7 8,8 6,9 6,10 9,7 7,10 8,7 6,7 7,8 9,6 7,6 7,5 5,9 4,10 5,10 4,11 4,9 7,9 5,11 5,12",
    "7,7 7,9 9,8 11,9 6,8 10,8 8,6 9,5 6,7 6,9 8,7 9,7 8,8 12,10 13,11 8,9 8,5 8,4 5,8 7,8 7,6 9,4",
    "7,7 8,7 6,9 7,6 10,9 8,6 8,5 5,4 6,5 4,5 9,9 6,3 3,6 6,6 5,6 10,5 9,6 7,4 7,5 8,9 4,7 7,2 8,1 5,8",
    "7,7 9,8 7,10 9,10 9,7 6,7 8,8 7,9 8,9 8,7 7,6 6,6 7,5 7,4 6,4 8,6 8,11 6,9 6,8 8,10 6,11 7,8 9,6 11,10 4,11 7,11",
    "7,7 8,9 10,8 7,8 10,11 8,10 8,7 8,11 8,12 9,10 6,7 9,7 10,9 10,10 7,10 9,8 9,9 9,5",
    "7,7 6,8 8,10 6,6 6,10 6,7 6,9 7,8 7,10 9,10 8,9 5,6 8,11 6,5 6,4 4,5 3,4 5,8 8,8 8,7",
)
FIXED_DEPTH = 11  # deep enough that the quiet midgames pass MIN_RATE_NODES with the root reductions (at 7 none did)
MIN_RATE_NODES = 20_000


def midgame_boards():
    """(board, side to move) for each midgame position."""
    from gomocup_bot.core.board import board_from_stones

    out = []
    for line in MIDGAMES:
        moves = [tuple(int(v) for v in m.split(",")) for m in line.split()]
        stones = [(x, y, 1 + i % 2) for i, (x, y) in enumerate(moves)]
        out.append((board_from_stones(15, 15, stones), 1 + len(moves) % 2))
    return out


def _warm_searcher(boards, net: int = 0):
    """A one-thread PVS with its kernels loaded (a depth-2 search), so that no timing pays the JIT;
    ``net``: the network evaluation instead of the tables."""
    from gomocup_bot.search.pvs_driver import PvsConfig, PvsSearcher

    searcher = PvsSearcher(16 << 20, PvsConfig(threads=1, net=net))
    stop = np.zeros(1, dtype=np.int32)
    searcher.search(boards[0][0], boards[0][1], stop, soft_deadline=None, hard_deadline=None, max_depth=2)
    return searcher


def fixed_depth(searcher, boards, depth: int, stop) -> tuple[int, int, float, list[float]]:
    """Each board searched to ``depth`` from a cleared table: (checksum, nodes, CPU seconds, the
    nodes/s of each search big enough to measure)."""
    checksum, total_nodes, total_cpu, rates = 0, 0, 0.0, []
    for b, side in boards:
        searcher.clear()
        t = time.thread_time()
        out = searcher.search(b, side, stop, soft_deadline=None, hard_deadline=None, max_depth=depth)
        cpu = time.thread_time() - t
        checksum += out.nodes + 7 * out.move
        total_nodes += out.nodes
        total_cpu += cpu
        if out.nodes >= MIN_RATE_NODES:  # a position proven in a few hundred nodes measures overhead
            rates.append(out.nodes / cpu if cpu > 0 else 0.0)
    return checksum, total_nodes, total_cpu, rates


def pvs_speed(depth: int = FIXED_DEPTH, rounds: int = 3) -> float:
    """This machine's one-thread PVS speed: the median nodes/s of the midgames at ``depth`` (the
    bench's own figure), the median of ``rounds`` readings after one more that is thrown away (under
    a second each here). Timed benchmarks print it beside their results: a second a move bought twice
    the nodes on one of this project's machines as on another (1.1 M against 0.46-0.6 M nodes/s), and
    the defence set's share moves with it. A process's first reading ran 10-15 % below the ones after
    it on one machine (810 k, then 850-950 k): hence the one thrown away."""
    boards = midgame_boards()
    searcher = _warm_searcher(boards)
    stop = np.zeros(1, dtype=np.int32)
    readings = []
    for _ in range(1 + max(1, rounds)):
        _, _, _, rates = fixed_depth(searcher, boards, depth, stop)
        readings.append(statistics.median(rates) if rates else 0.0)
    return statistics.median(readings[1:])


def run(scale: float = 1.0) -> dict[str, float]:
    from gomocup_bot.core.bench import vcf_positions
    from gomocup_bot.search.vct import ThreatSolver

    res: dict[str, float] = {}
    stop = np.zeros(1, dtype=np.int32)
    boards = midgame_boards()
    depth = max(3, int(round(FIXED_DEPTH + np.log2(max(scale, 1e-3)) / 2)))
    searcher = _warm_searcher(boards)
    checksum, total_nodes, total_cpu, rates = fixed_depth(searcher, boards, depth, stop)
    res["pvs_fixed_depth"] = depth
    res["pvs_nodes_per_s_all"] = total_nodes / total_cpu if total_cpu > 0 else 0.0
    res["pvs_nodes_per_s_min"] = min(rates) if rates else 0.0
    res["pvs_nodes_per_s_median"] = statistics.median(rates) if rates else 0.0
    res.update(_net_speed(boards, depth, stop, res["pvs_nodes_per_s_median"]))
    seconds = max(0.05, min(1.0, scale))
    depths = []
    proven = 0
    for b, side in boards:
        searcher.clear()
        t0 = time.monotonic()
        out = searcher.search(b, side, stop, soft_deadline=t0 + seconds, hard_deadline=t0 + seconds)
        if out.proven:
            proven += 1  # a forced win ends the deepening early: no depth to compare
        else:
            depths.append(out.depth)
    res["pvs_seconds_per_search"] = seconds
    res["pvs_proven_positions"] = proven
    res["pvs_depth_median"] = statistics.median(depths) if depths else 0
    res["pvs_depth_min"] = min(depths) if depths else 0
    for vct, key, attackers in ((False, "vcf", None), (True, "vct", None)):
        times = []
        nodes = 0
        cases = [(b, 1) for b in vcf_positions()] + ([(b, s) for b, s in boards] if vct else [])
        for b, side in cases:
            solver = ThreatSolver(b)
            t = time.thread_time()
            result, line, n = solver.run(b, side, vct=vct, max_depth=3 if vct else 0,
                                         max_nodes=max(2000, int(2_000_000 * scale)))
            times.append(time.thread_time() - t)
            nodes += n
            checksum += n + 1000 * (result + 1) + len(line)
        res[f"{key}_cases"] = len(cases)
        res[f"{key}_ms_median"] = statistics.median(times) * 1000
        res[f"{key}_ms_max"] = max(times) * 1000
        res[f"{key}_nodes_per_s"] = nodes / sum(times) if sum(times) > 0 else 0.0
    res["search_checksum"] = checksum
    return res


def _has_net(board) -> bool:
    """Does the weights file have a net for this board's rule (a missing or bad file: no)?"""
    from gomocup_bot.neteval.network import network_for
    from gomocup_bot.neteval.weights import NetWeightsError

    try:
        return network_for(board) is not None
    except NetWeightsError:
        return False


def _net_speed(boards, depth: int, stop, table_rate: float) -> dict[str, float]:
    """The same fixed-depth searches with the network evaluation (`neteval`), when the weights
    file has a freestyle net: its nodes/s beside the tables' (the share is net / tables, measured
    in the same process a moment apart) and its own checksum (the tables' stays comparable)."""
    if not _has_net(boards[0][0]):
        return {}
    searcher = _warm_searcher(boards, net=1)
    checksum, _, _, rates = fixed_depth(searcher, boards, depth, stop)
    rate = statistics.median(rates) if rates else 0.0
    return {"pvs_net_nodes_per_s_median": rate, "pvs_net_nodes_per_s_min": min(rates) if rates else 0.0,
            "pvs_net_share_of_tables": rate / table_rate if table_rate > 0 else 0.0, "pvs_net_checksum": checksum}


MCTS_ITERATIONS = 4000  # per position and run at scale 1
MCTS_RUNS = 3


def mcts_boards():
    """(core board, side to move) for the empty 15x15 board (black to move) and the twelve midgames."""
    from gomocup_bot.core.board import new_board

    return [(new_board(15, 15), 1)] + midgame_boards()


def run_mcts(scale: float = 1.0) -> dict[str, float]:
    """MCTS iterations per second of CPU on one thread, per configuration: the improved MCTS
    (heavy playouts), the papers' plain UCT, the improved MCTS with class priors and
    evaluation or quiescence leaves (no playouts), and with the network's priors and values
    (when the weights file has a freestyle net), each on the 13 positions with a fixed iteration
    budget, `MCTS_RUNS` times; min and median over the runs of the all-position rate. The minimax
    trigger is off: it is a one-off cost per move, not part of an iteration."""
    from gomocup_bot.search.mcts_driver import MctsConfig, MctsSearcher

    res: dict[str, float] = {}
    positions = mcts_boards()
    budget = max(64, int(MCTS_ITERATIONS * scale))
    stop = np.zeros(1, dtype=np.int32)
    configs = (("mcts", MctsConfig(trigger="none", seed=3)),
               ("mcts_plain", MctsConfig.baseline(seed=3)),
               ("mcts_eval", MctsConfig(trigger="none", seed=3, leaf="eval", prior="class")),
               ("mcts_quiesce", MctsConfig(trigger="none", seed=3, leaf="quiesce", prior="class")))
    if _has_net(positions[0][0]):  # the network's policy priors and quiescence leaves on its value, PUCT
        configs += (("mcts_net", MctsConfig.on_net(trigger="none", seed=3)),)
    for name, cfg in configs:
        rates = []
        checksum = 0
        for _ in range(MCTS_RUNS):
            iters = 0
            cpu = 0.0
            for board, side in positions:
                searcher = MctsSearcher(cfg, 1 << 20)
                searcher.run(board, side, stop, max_iterations=64)  # load the kernels
                searcher.forget()
                t = time.thread_time()
                out = searcher.run(board, side, stop, max_iterations=budget)
                cpu += time.thread_time() - t
                iters += out.iterations
                checksum += out.iterations + 7 * out.move
            rates.append(iters / cpu if cpu > 0 else 0.0)
        res[f"{name}_positions"] = len(positions)
        res[f"{name}_iter_per_s_min"] = min(rates)
        res[f"{name}_iter_per_s_median"] = statistics.median(rates)
        res[f"{name}_checksum"] = checksum
    return res
