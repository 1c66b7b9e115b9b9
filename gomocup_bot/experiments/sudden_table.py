"""Reproduce Li's Table 1: detection rates of sudden death / sudden win, per board size K.

Reads the positions of `sudden_positions.py` (generated on the fly when the file is missing),
runs each search configuration once per position, and counts a detection when the move it
plays is one of the position's decisive moves. Configurations (``--configs``):

    plain-3k, plain-30k         Li's baseline: plain UCT, random playouts, T iterations
    li-trig-3k, li-trig-30k     the same + the triggered depth-4 minimax (Fig. 17b)
    li-brute-3k                 the same + the minimax before MCTS (Fig. 17a)
    li-h1-3k, li-h2-3k          the same + heuristic strategy 1 / 2 (§5.3, x1 = x2 = 20 %)
    ours-3k                     our improved MCTS (threat priors, solver, heavy playouts, trigger)
    ours-eval-3k                the same with class priors and class-count leaf evaluation (no playouts)
    ours-net-3k                 the same on the network: policy priors, PUCT, quiescence leaves on its value
    full-1s                     the full brain at 1 s per move (root checks + MCTS)

    python benchmarks/sudden_table.py --configs plain-3k,li-trig-3k,full-1s
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict

import numpy as np


from gomocup_bot.engine import Position, SearchLimits, SearchRequest, StopFlag
from gomocup_bot.core.board import board_from_position, pos_x, pos_y
from gomocup_bot.search.mcts_driver import MctsConfig, MctsSearcher
from protocol.rules import FREESTYLE

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_POSITIONS = os.path.join(HERE, "data", "sudden_positions.jsonl")  # shipped as package data

MCTS_CONFIGS = {
    "plain-3k": (dict(), 3_000),
    "plain-30k": (dict(), 30_000),
    "li-trig-3k": (dict(trigger="triggered"), 3_000),
    "li-trig-30k": (dict(trigger="triggered"), 30_000),
    "li-brute-3k": (dict(trigger="brute"), 3_000),
    "li-h1-3k": (dict(trigger="h1", check_every=500), 3_000),
    "li-h2-3k": (dict(trigger="h2"), 3_000),
}
ALL_CONFIGS = list(MCTS_CONFIGS) + ["ours-3k", "ours-eval-3k", "ours-net-3k", "full-1s"]


def load_positions(path: str) -> list[dict]:
    if not os.path.exists(path):
        from sudden_positions import generate  # type: ignore

        found = generate(50, 2018)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            for key in sorted(found):
                for rec in found[key]:
                    fh.write(json.dumps(rec) + "\n")
    with open(path) as fh:
        return [json.loads(line) for line in fh if line.strip()]


def position_of(rec: dict) -> Position:
    K = rec["K"]
    return Position(K, K, FREESTYLE, tuple(tuple(s) for s in rec["stones"]), rec["to_move"], 5)


def run_config(name: str, recs: list[dict], capacity: int, log) -> dict:
    hits: dict[tuple[int, int], list[int]] = defaultdict(list)
    seconds: dict[tuple[int, int], list[float]] = defaultdict(list)
    engine = None
    searcher = None
    if name == "full-1s":
        from gomocup_bot.engines.full import FullEngine

        engine = FullEngine()
        engine.prepare()
    elif name == "ours-3k":
        searcher = MctsSearcher(MctsConfig(), capacity)
    elif name == "ours-eval-3k":
        searcher = MctsSearcher(MctsConfig(leaf="eval", prior="class"), capacity)
    elif name == "ours-net-3k":
        searcher = MctsSearcher(MctsConfig.on_net(), capacity)
    else:
        kw, _ = MCTS_CONFIGS[name]
        searcher = MctsSearcher(MctsConfig.baseline(**kw), capacity)
    for i, rec in enumerate(recs):
        key = (rec["K"], rec["level"])
        decisive = {tuple(m) for m in rec["decisive"]}
        pos = position_of(rec)
        t0 = time.monotonic()
        if engine is not None:
            res = engine.search(SearchRequest(pos, SearchLimits.from_budget(1.0, 1.0)), StopFlag())
            move = res.move
        else:
            searcher.config.seed = i + 1
            searcher.rng[0] = np.uint64(0x9E3779B97F4A7C15 ^ (i * 7919 + 17))
            b = board_from_position(pos)
            iters = 3_000 if name.startswith("ours") else MCTS_CONFIGS[name][1]
            out = searcher.run(b, pos.to_move, np.zeros(1, dtype=np.int32), max_iterations=iters)
            p = int(searcher.tree.move[out.child])
            move = (int(pos_x(b, p)), int(pos_y(b, p)))
        seconds[key].append(time.monotonic() - t0)
        hits[key].append(int(move in decisive))
        if (i + 1) % 100 == 0:
            log(f"  {name}: {i + 1}/{len(recs)}")
    return {"hits": hits, "seconds": seconds}


def table(name: str, result: dict, sizes) -> str:
    hits, secs = result["hits"], result["seconds"]

    def rate(k, lv):
        h = hits.get((k, lv), [])
        return f"{100.0 * sum(h) / len(h):5.1f}% ({len(h)})" if h else "    -    "

    lines = [f"### {name}", "", "| K | death L2 | death L4 | win L1 | win L3 | mean s/pos |",
             "|---|---|---|---|---|---|"]
    for k in sizes:
        all_s = [s for lv in (1, 2, 3, 4) for s in secs.get((k, lv), [])]
        mean = sum(all_s) / len(all_s) if all_s else 0.0
        lines.append(f"| {k} | {rate(k, 2)} | {rate(k, 4)} | {rate(k, 1)} | {rate(k, 3)} | {mean:.3f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", default=DEFAULT_POSITIONS)
    ap.add_argument("--configs", default="plain-3k,li-trig-3k,ours-3k,full-1s")
    ap.add_argument("--sizes", default="7,9,11,15")
    ap.add_argument("--per-cell", type=int, default=0, help="use only the first N positions of a cell")
    ap.add_argument("--capacity", type=int, default=4_000_000, help="tree nodes")
    ap.add_argument("--out", help="append the markdown tables to this file")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    recs = [r for r in load_positions(args.positions) if r["K"] in sizes]
    if args.per_cell:
        seen: dict = defaultdict(int)
        kept = []
        for r in recs:
            key = (r["K"], r["level"])
            if seen[key] < args.per_cell:
                seen[key] += 1
                kept.append(r)
        recs = kept
    print(f"# {len(recs)} positions; machine {os.cpu_count()} cores", flush=True)
    for name in args.configs.split(","):
        t0 = time.monotonic()
        res = run_config(name, recs, args.capacity, lambda s: print(s, file=sys.stderr, flush=True))
        text = table(name, res, sizes) + f"\n\n(total {time.monotonic() - t0:.0f} s)\n"
        print(text, flush=True)
        if args.out:
            with open(args.out, "a") as fh:
                fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
