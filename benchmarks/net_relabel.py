"""Values from a deeper search for the value rows of a positions cache: labels stronger than the
generator's.

Why: a richer net does not lower the held-out loss on the generator's labels (the result of
3,000-node self-play blended with that search's value; `benchmarks/net_capacity.py`), so the
labels are the limit. This searches each chosen value row of a `train-net --cache` file again
with the engine (`gomocup-bot`, one thread, ``--nodes`` PVS nodes, the root checks as in self-play,
``--net`` on or off) and writes the searched rows as a new cache, each with its searched value as
its score (a proven result becomes ±8,000, beyond the label's clip) and its move for the policy. Rows are
drawn at random (``--seed``) from the training value rows (``--train``) and the held-out ones
(``--held``), so that a net trained on the new values is scored on held-out rows of the same kind.

Resumable: the values go to ``OUT.jsonl`` (row index, value) as they come and a second run skips
the rows there; ``--workers`` processes search side by side. The new cache is written at the end
(or with ``--write-only`` from what the .jsonl holds).

    PYTHONPATH=. .venv/bin/python benchmarks/net_relabel.py POSITIONS.npz --out DEEP.npz \\
        --train 60000 --held 6000 --nodes 30000 --net 1 --workers 2
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from gomocup_bot.training.netdata import NetRows  # noqa: E402
from gomocup_bot.training.records import RULES  # noqa: E402

PROVEN = 8000.0  # a proven win's value: sigmoid(8000 / 250) is 1 to float precision

_ENGINE = None


def _init(root_nodes: int, check_nodes: int, net: int) -> None:
    global _ENGINE
    from gomocup_bot.engines import create_engine

    _ENGINE = create_engine("gomocup-bot", threads=1, root_nodes=root_nodes, check_nodes=check_nodes, net=net)
    _ENGINE.prepare()


def _search(job: tuple) -> tuple[int, float]:
    """(row index, the searched value for the mover) of one position."""
    from gomocup_bot.engine import Position, SearchLimits, SearchRequest, StopFlag
    from protocol.rules import Rules

    index, cells, colour, size, rule, nodes = job
    stones = []
    for q in range(size * size):
        if cells[q] in (1, 2):
            stones.append((q % size, q // size, colour if cells[q] == 1 else 3 - colour))
    pos = Position(size, size, Rules.from_code(rule), tuple(stones), colour)
    limits = SearchLimits.from_budget(60.0)
    limits = SearchLimits(limits.soft_deadline, limits.hard_deadline, max_nodes=nodes)
    res = _ENGINE.search(SearchRequest(pos, limits), StopFlag())
    if res.proven:
        return index, PROVEN * res.proven
    return index, float(res.score if res.score is not None else np.nan)


def _done(path: Path) -> dict[int, float]:
    out: dict[int, float] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                rec = json.loads(line)
                out[int(rec["i"])] = float(rec["v"])
            except (ValueError, KeyError):
                continue  # a line cut by an interrupted run
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cache", help="a positions cache of `gomocup-bot train-net --cache`")
    ap.add_argument("--out", required=True, help="the new cache (.npz); the values go to OUT.jsonl as they come")
    ap.add_argument("--rule", choices=("freestyle", "standard", "renju"), default="freestyle")
    ap.add_argument("--train", type=int, default=50000, help="training value rows to search")
    ap.add_argument("--held", type=int, default=5000, help="held-out value rows to search")
    ap.add_argument("--nodes", type=int, default=30000, help="PVS nodes a position")
    ap.add_argument("--root-nodes", type=int, default=10000, help="the root checks' nodes (as in self-play)")
    ap.add_argument("--check-nodes", type=int, default=20000, help="the root defence's solver nodes (as in self-play)")
    ap.add_argument("--net", type=int, choices=(0, 1), default=1, help="search with the network evaluation")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--write-only", action="store_true", help="write the cache from OUT.jsonl, search nothing")
    args = ap.parse_args()

    rows = NetRows.load(args.cache)
    rng = np.random.default_rng(args.seed)
    train_idx = np.flatnonzero(rows.value_row & ~rows.held)
    held_idx = np.flatnonzero(rows.value_row & rows.held)
    chosen = np.concatenate([rng.permutation(train_idx)[:args.train], rng.permutation(held_idx)[:args.held]])
    log = Path(args.out + ".jsonl")
    done = _done(log)
    todo = [int(i) for i in chosen if int(i) not in done]
    print(f"{len(chosen)} rows chosen, {len(done)} searched before, {len(todo)} to search", file=sys.stderr)
    if todo and not args.write_only:
        jobs = ((i, rows.cells[i], int(rows.colour[i]), int(rows.size[i]), RULES[args.rule], args.nodes)
                for i in todo)
        t0 = time.time()
        ctx = mp.get_context("spawn")
        with ctx.Pool(args.workers, initializer=_init, initargs=(args.root_nodes, args.check_nodes, args.net)) as pool, \
                open(log, "a") as f:
            for n, (i, v) in enumerate(pool.imap_unordered(_search, jobs, chunksize=16), 1):
                f.write(json.dumps({"i": i, "v": v}) + "\n")
                done[i] = v
                if n % 500 == 0 or n == len(todo):
                    f.flush()
                    rate = n / (time.time() - t0)
                    print(f"{n}/{len(todo)} searched, {rate:.1f} a second, {(len(todo) - n) / rate / 60:.1f} min left",
                          file=sys.stderr, flush=True)
    keep = np.array(sorted(done), dtype=np.int64)
    out = rows.select(keep)  # the searched rows only (each keeps its move for the policy)
    out.score[:] = np.array([done[i] for i in keep], dtype=np.float32)
    out.save(args.out)
    print(f"wrote {args.out}: {len(keep)} searched value rows ({int(out.held[out.value_row].sum())} held out), "
          f"{len(out)} rows in all", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
