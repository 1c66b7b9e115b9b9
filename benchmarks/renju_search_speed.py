"""Search speed, old code vs new, freestyle and renju: alpha-beta (PVS) nodes/s and MCTS iterations/s.

Why: judging renju fouls inside the search (and the core's cell layout) must not slow freestyle
down, and its cost under renju should be known. Each measurement runs in a fresh worker process
on one source tree (``--old DIR`` is a checkout of the previous code, e.g. ``git archive main``;
the new tree is this one); old and new alternate round by round, so machine load hits both
alike, and the figures are CPU seconds of the searching thread (`time.thread_time`), with the
load average printed beside them.

    git archive main | tar -x -C /tmp/base
    python benchmarks/renju_search_speed.py --old /tmp/base --rounds 5

Positions: seeded random 15x15 middlegames (random moves near the stones, black never fouls,
nobody has a five), the same stones searched under freestyle and under renju, side to move by
stone count. Alpha-beta: the PVS on the core board (`search.pvs_driver`; the window-count alpha-beta
measured here before it was removed), one thread, a fixed node budget; both trees need the PVS. MCTS: the improved default (heavy
playouts, triggered minimax), a fixed iteration budget. A worker also reports the cost of one
foul check and of one heavy playout (new tree only) for the playout question.

``--parallel-seconds S`` adds the tree-parallel MCTS (``threads=2, parallel=tree``, the kernel
with the shared tree and the node pools): each position searched for S seconds of wall time,
iterations per CPU second of the whole process (both threads; a second thread that gets no core
costs nothing and adds nothing, so this is the cost per iteration, not the wall-clock gain).
Without the triggered minimax (``trigger=none``), and with both threads pinned to one core
(`os.sched_setaffinity`; the helper inherits it): whether the two threads share a core or run on
two (and then fight over the tree's cache lines) depended on the other load, and the per-round
ratio spread 0.6-1.8 either way; pinned, this is the shared-tree kernel's cost per iteration.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NEW_TREE = os.path.dirname(HERE)


def positions(count: int, seed: int) -> list[list[tuple[int, int, int]]]:
    """Stone lists of 15x15 middlegames (20-32 stones) played by a noisy threat-greedy player under
    renju (black never fouls), kept only when neither side has a VCF under either rule and a
    depth-4 alpha-beta proves nothing: searches then run their whole budget on open play."""
    sys.path.insert(0, NEW_TREE)
    import numpy as np

    from gomocup_bot.core import board as CB
    from gomocup_bot.core.candidates import candidates
    from gomocup_bot.core.patterns import move_score
    from gomocup_bot.core.rules import is_legal, is_win_move
    from gomocup_bot.core.vcf import VCF_NONE, new_tt, vcf
    from gomocup_bot.engine import Position
    from gomocup_bot.search.pvs_driver import PvsConfig, PvsSearcher
    from protocol.rules import FREESTYLE, RENJU

    def quiet(stones) -> bool:
        for rule, rules in ((CB.RULE_FREESTYLE, FREESTYLE), (CB.RULE_RENJU, RENJU)):
            b = CB.board_from_stones(15, 15, stones, 5, rule)
            seq = np.zeros(226, dtype=np.int32)
            for attacker in (1, 2):
                status, _, _ = vcf(b, attacker, 200_000, np.zeros(1, dtype=np.int32), new_tt(1 << 12), seq)
                if status != VCF_NONE:
                    return False
            side = 1 if 2 * sum(1 for s in stones if s[2] == 1) == len(stones) else 2
            board = CB.board_from_position(Position(15, 15, rules, tuple(stones), side, 5))
            out = PvsSearcher(1 << 20, PvsConfig(threads=1)).search(
                board, side, np.zeros(1, dtype=np.int32), soft_deadline=None, hard_deadline=None, max_depth=4)
            if out.proven:
                return False
        return True

    rng = np.random.default_rng(seed)
    cand = np.zeros(226, dtype=np.int32)
    out = []
    while len(out) < count:
        b = CB.new_board(15, 15, 5, CB.RULE_RENJU)
        played: list[tuple[int, int, int]] = []
        target = int(rng.integers(20, 33))
        colour = 1
        while len(played) < target:
            n = candidates(b, cand)
            legal = [int(p) for p in cand[:n] if is_legal(b, int(p), colour) and not is_win_move(b, int(p), colour)]
            if not legal:
                break
            score = np.log1p(np.array([max(0, move_score(b, colour, p)) for p in legal], dtype=np.float64))
            w = np.exp((score - score.max()) / 0.35)
            p = legal[int(rng.choice(len(legal), p=w / w.sum()))]
            CB.make(b, p, colour)
            played.append((int(CB.pos_x(b, p)), int(CB.pos_y(b, p)), colour))
            colour = 3 - colour
        if len(played) == target and quiet(played):
            out.append(played)
    return out


# ----------------------------------------------------------------------------- worker
def worker(spec: dict) -> dict:
    """Runs inside the source tree given by PYTHONPATH; prints one JSON line of CPU-time rates."""
    import numpy as np

    from gomocup_bot.engine import Position
    from gomocup_bot.search.board import board_from_position
    from gomocup_bot.core.board import board_from_position as core_board
    from gomocup_bot.search.driver import MctsConfig, MctsSearcher
    from gomocup_bot.search.pvs_driver import PvsConfig, PvsSearcher
    from protocol.rules import FREESTYLE, RENJU

    stop = np.zeros(1, dtype=np.int32)
    result: dict = {}
    for rule_name, rules in (("freestyle", FREESTYLE), ("renju", RENJU)):
        views = []
        for stones in spec["positions"]:
            nb = sum(1 for s in stones if s[2] == 1)
            to_move = 1 if nb == len(stones) - nb else 2
            views.append((Position(15, 15, rules, tuple(map(tuple, stones)), to_move, 5), to_move))
        # warm-up (kernel load or compile) outside the timing
        pos, side = views[0]
        cells, near, geo = board_from_position(pos)
        PvsSearcher(1 << 20, PvsConfig(threads=1)).search(core_board(pos), side, stop, soft_deadline=None,
                                                          hard_deadline=None, max_nodes=2000)
        MctsSearcher(MctsConfig(), 50_000).run(cells, near, geo, side, stop, max_iterations=64)
        if spec.get("parallel_seconds"):
            MctsSearcher(MctsConfig(threads=2, parallel="tree", trigger="none"), 50_000).run(
                cells, near, geo, side, stop, hard_deadline=time.monotonic() + 0.05)
        ab_nodes = ab_cpu = 0.0
        it_n = it_cpu = 0.0
        for pos, side in views:
            cells, near, geo = board_from_position(pos)
            searcher = PvsSearcher(32 << 20, PvsConfig(threads=1))
            board = core_board(pos)
            t0 = time.thread_time()
            out = searcher.search(board, side, stop, soft_deadline=None, hard_deadline=None,
                                  max_nodes=spec["ab_nodes"])
            ab_cpu += time.thread_time() - t0
            ab_nodes += out.nodes
            mc = MctsSearcher(MctsConfig(), 1_000_000)
            t0 = time.thread_time()
            mo = mc.run(cells, near, geo, side, stop, max_iterations=spec["mcts_iterations"])
            it_cpu += time.thread_time() - t0
            it_n += mo.iterations
        result[rule_name] = {"ab_nps": ab_nodes / ab_cpu, "mcts_ips": it_n / it_cpu,
                             "ab_nodes": ab_nodes, "mcts_iterations": it_n}
        if spec.get("parallel_seconds"):
            tp_n = tp_cpu = 0.0
            cpus = os.sched_getaffinity(0)
            os.sched_setaffinity(0, {min(cpus)})  # this thread, and the helper threads it starts
            for pos, side in views:
                cells, near, geo = board_from_position(pos)
                mc = MctsSearcher(MctsConfig(threads=2, parallel="tree", trigger="none"), 1_000_000)
                c0 = time.process_time()
                mo = mc.run(cells, near, geo, side, stop, hard_deadline=time.monotonic() + spec["parallel_seconds"])
                tp_cpu += time.process_time() - c0
                tp_n += mo.iterations
            os.sched_setaffinity(0, cpus)
            result[rule_name]["tree_ips"] = tp_n / tp_cpu
    if spec.get("playout_cost"):
        result["playout"] = playout_cost(spec["positions"])
    return result


def playout_cost(stone_lists) -> dict:
    """Mean CPU cost of one foul check (`is_foul`, prefilter + exact check, in a numba loop) over
    every candidate square, of one heavy playout, and plies per playout (new tree only: the
    question is whether playouts could afford a check per black move)."""
    import numpy as np

    from gomocup_bot.engine import Position
    from gomocup_bot.search import mcts as K
    from gomocup_bot.search.board import BLACK, board_from_position, is_foul
    from gomocup_bot.search.driver import MctsConfig, MctsSearcher
    from protocol.rules import RENJU

    from numba import njit

    @njit(nogil=True)
    def check_all(cells, geo, cands, reps):
        found = 0
        for _ in range(reps):
            for p in cands:
                found += is_foul(cells, geo, p)
        return found

    checks = check_cpu = 0.0
    plays = play_cpu = plies = 0.0
    fouls = 0
    for stones in stone_lists:
        pos = Position(15, 15, RENJU, tuple(map(tuple, stones)), 1, 5)
        cells, near, geo = board_from_position(pos)
        cands = np.nonzero((cells == 0) & (near > 0))[0].astype(np.int64)
        check_all(cells, geo, cands, 1)
        t0 = time.thread_time()
        fouls += check_all(cells, geo, cands, 2000) // 2000
        check_cpu += time.thread_time() - t0
        checks += 2000 * len(cands)
        ms = MctsSearcher(MctsConfig(), 4096)
        ip, fp = ms.params()
        att, dfn, brd = ms.weights(5)
        stack = np.empty(cells.shape[0] + 2, dtype=np.int64)
        pending = np.empty((2, 64), dtype=np.int64)
        side = BLACK if sum(1 for s in stones if s[2] == 1) * 2 == len(stones) else 2
        K.playout(cells, near, geo, side, ip, fp, att, dfn, brd, ms.rng, stack, pending)
        t0 = time.thread_time()
        for _ in range(300):
            _, n, _ = K.playout(cells, near, geo, side, ip, fp, att, dfn, brd, ms.rng, stack, pending)
            plies += n
        play_cpu += time.thread_time() - t0
        plays += 300
    # the Python loop around is_foul costs too: also time an empty call for reference
    return {"foul_check_us": 1e6 * check_cpu / checks, "heavy_playout_us": 1e6 * play_cpu / plays,
            "plies_per_playout": plies / plays, "fouls": fouls}


def run_worker(tree: str, spec: dict) -> dict:
    env = dict(os.environ, PYTHONPATH=tree, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", json.dumps(spec)],
                          cwd="/tmp", env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def loadavg() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=False, help="source tree of the previous code")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--positions", type=int, default=6)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--ab-nodes", type=int, default=60_000)
    ap.add_argument("--mcts-iterations", type=int, default=1500)
    ap.add_argument("--parallel-seconds", type=float, default=0.0,
                    help="also time tree-parallel MCTS (2 threads) for this long per position (0 = off)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return 0
    spec = {"positions": positions(args.positions, args.seed), "ab_nodes": args.ab_nodes,
            "mcts_iterations": args.mcts_iterations, "parallel_seconds": args.parallel_seconds}
    trees = [("new", NEW_TREE)] + ([("old", os.path.abspath(args.old))] if args.old else [])
    rows: dict[str, list[dict]] = {name: [] for name, _ in trees}
    for r in range(args.rounds):
        order = trees if r % 2 == 0 else trees[::-1]
        for name, tree in order:
            s = dict(spec, playout_cost=(name == "new" and r == 0))
            res = run_worker(tree, s)
            rows[name].append(res)
            print(f"round {r} {name}: " + "  ".join(
                f"{rule} ab {res[rule]['ab_nps']:.0f} n/s mcts {res[rule]['mcts_ips']:.0f} it/s"
                + (f" tree-par {res[rule]['tree_ips']:.0f} it/cpu-s" if "tree_ips" in res[rule] else "")
                for rule in ("freestyle", "renju")) + f"  (load {loadavg()})", flush=True)
            if "playout" in res:
                pc = res["playout"]
                print(f"  foul check {pc['foul_check_us']:.3f} us per candidate square ({pc['fouls']} fouls on the "
                      f"{len(spec['positions'])} boards); heavy playout "
                      f"{pc['heavy_playout_us']:.0f} us, {pc['plies_per_playout']:.1f} plies", flush=True)

    def med(name, rule, key):
        return statistics.median(x[rule][key] for x in rows[name])

    print("\nmedians over rounds (CPU time of the searching thread; tree-parallel: of the process)")
    keys = [("ab_nps", "alpha-beta nodes/s"), ("mcts_ips", "MCTS iterations/s")]
    if args.parallel_seconds:
        keys.append(("tree_ips", "tree-par MCTS it/s"))
    for rule in ("freestyle", "renju"):
        for key, label in keys:
            line = f"{rule:9s} {label:20s} new {med('new', rule, key):9.0f}"
            if args.old:
                ratios = [n[rule][key] / o[rule][key] for n, o in zip(rows["new"], rows["old"])]
                line += f"  old {med('old', rule, key):9.0f}  new/old median {statistics.median(ratios):.3f}" \
                        f" (min {min(ratios):.3f} max {max(ratios):.3f})"
            print(line)
    for key, label in (("ab_nps", "alpha-beta"), ("mcts_ips", "MCTS")):
        ratios = [x["renju"][key] / x["freestyle"][key] for x in rows["new"]]
        print(f"new code, renju / freestyle {label}: median {statistics.median(ratios):.3f}")
    print(f"load average at the end: {loadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
