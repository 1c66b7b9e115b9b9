"""Held-out value loss of network weights files, and of the tables, on the same positions.

Why: `gomocup-bot train-net` reports the held-out loss of the net it trains, on the held-out
games of its own data. Comparing two generations needs both nets scored on one set of
positions: this takes a positions cache (`train-net --cache`, an ``.npz`` of `NetRows`) and
scores every given ``.gbn`` on its held-out value rows with the engine's own numba kernels
(`neteval.state`), not the trainer's forward pass, beside the tables' static value, for the
blended label (λ · result + (1 − λ) · sigmoid(value / 250)) and the result alone.

    PYTHONPATH=. .venv/bin/python benchmarks/net_heldout.py POSITIONS.npz NET.gbn [NET.gbn ...]
        [--rule freestyle] [--lambda 0.5] [--limit N] [--by-ply 20,40,60,80]

`--by-ply` adds each net's blend loss on the rows of each stretch of plies: a net may fit the
many opening rows and the filled boards of drawn games better and the middle game worse, which
the one figure over all rows hides.

`--bootstrap N` adds, for every net after the first, its blend loss less the first net's on the
same rows with a 95 % interval from N resamples of whole games: the rows of one game are not
independent, so an interval over rows would be far too narrow.

`--side-of NAME --records FILE` splits the rows by who is to move: the engine whose name contains
NAME (by the records' `source`, "match BLACK - WHITE", of the games the cache was made from) or its
opponent. In games against a stronger engine most of the loss is who wins, which a net can learn
from the side's style of play without judging a position any better; a search never sees it, since
it compares positions with one side to move. So each net is also scored after the best constant
shift of its logits on each side's rows (fitted on all of them), and with `--bootstrap` its
difference from the first net is given after the shifts too (the shifts held fixed in the
resamples).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from gomocup_bot.core.board import new_board, play, take, to_pos  # noqa: E402
from gomocup_bot.core.constants import RULE_EXACT, RULE_FREESTYLE, RULE_RENJU  # noqa: E402
from gomocup_bot.neteval.state import net_logit, new_state, refresh  # noqa: E402
from gomocup_bot.neteval.weights import load  # noqa: E402
from gomocup_bot.training.netdata import NetRows, game_hash  # noqa: E402
from gomocup_bot.training.records import read  # noqa: E402
from gomocup_bot.training.nettrain import LABEL_SCALE, bce, labels  # noqa: E402

RULES = {"freestyle": RULE_FREESTYLE, "standard": RULE_EXACT, "renju": RULE_RENJU}


def logits(path: str, rule: str, rows: NetRows) -> np.ndarray:
    """The value head's logit of every row, from a board built from the row's cells: by the rule's
    net for the row's board (a file may have one for 20 x 20 beside its main net), else its main
    net (a 15 x 15 net scored on another board, as a yardstick)."""
    weights = load(path)
    out = np.zeros(len(rows), dtype=np.float64)
    boards = {}  # per board side: (the board, the net's state on it, square j's point)
    for j in range(len(rows)):
        size = int(rows.size[j])
        if size not in boards:
            b = new_board(size, size, 5, RULES[rule])
            net = weights.net_for(rule, size, size) or weights.rules[rule]
            boards[size] = (b, new_state(b, weights, net), [to_pos(b, i % size, i // size) for i in range(size * size)])
        b, st, points = boards[size]
        cells = rows.cells[j, :size * size]
        colour = int(rows.colour[j])
        stones = np.flatnonzero(cells)
        for i in stones:
            play(b, points[i], colour if cells[i] == 1 else 3 - colour)
        refresh(st, b)
        out[j] = net_logit(st, colour - 1, int(rows.mask[j]), float(rows.table_eval[j]))
        for _ in stones:
            take(b)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("positions", help="a positions cache written by `gomocup-bot train-net --cache`")
    ap.add_argument("nets", nargs="+", help="network weights files (.gbn) to score")
    ap.add_argument("--rule", default="freestyle", choices=sorted(RULES))
    ap.add_argument("--lambda", dest="lam", type=float, default=0.5, help="the game result's weight in the label")
    ap.add_argument("--limit", type=int, default=0, help="score only the first N held-out value rows (0: all)")
    ap.add_argument("--bootstrap", type=int, default=0, metavar="N",
                    help="each net's blend loss less the first net's, with a 95 %% interval from N resamples of games")
    ap.add_argument("--by-ply", default="", metavar="P1,P2,...",
                    help="also the blend loss on the rows between these plies (e.g. 20,40,60,80: five stretches)")
    ap.add_argument("--side-of", default="", metavar="NAME",
                    help="also score each net after a constant shift of its logits on the rows of each side: "
                         "the engine whose name contains NAME to move, and its opponent (needs --records)")
    ap.add_argument("--records", action="append", default=[], metavar="FILE",
                    help="the game records the cache was made from (for --side-of; repeatable)")
    args = ap.parse_args(argv)
    if bool(args.side_of) != bool(args.records):
        ap.error("--side-of and --records go together")
    rows = NetRows.load(args.positions)
    rows = rows.select(rows.held & rows.value_row)
    if args.limit:
        rows = rows.select(slice(0, args.limit))
    sides = engine_to_move(rows, args.records, args.side_of) if args.side_of else None
    y = labels(rows, args.lam)
    tables = rows.table_eval / LABEL_SCALE
    stretches = ply_stretches(rows.ply, args.by_ply)
    print(f"{len(rows)} held-out value rows of {args.positions}")
    if stretches:
        print(f"{'plies':40s} " + "  ".join(f"{name:>7s}" for name, _ in stretches))
        print(f"{'rows':40s} " + "  ".join(f"{int(part.sum()):7d}" for _, part in stretches))
    report("tables", tables, y, rows.result, stretches)
    if sides is not None:
        print(f"{int(sides.sum())} rows with {args.side_of} to move, {int((~sides).sum())} with its opponent")
        report_shifted(tables, y, sides, args.side_of)
    first = first_shifted = None
    for path in args.nets:
        t0 = time.monotonic()
        lg = logits(path, args.rule, rows)
        report(Path(path).name, lg, y, rows.result, stretches, f"  ({time.monotonic() - t0:.0f} s)")
        shifted = None if sides is None else report_shifted(lg, y, sides, args.side_of)
        if args.bootstrap and first is None:
            first = row_losses(lg, y)
            first_shifted = None if shifted is None else row_losses(shifted, y)
        elif args.bootstrap:
            games = len(np.unique(rows.game))
            name = "  less " + Path(args.nets[0]).name
            mean, lo, hi = paired_by_game(row_losses(lg, y) - first, rows.game, args.bootstrap)
            print(f"{name:40s} {mean:+.4f}  95 % [{lo:+.4f}, {hi:+.4f}] over {games} games", flush=True)
            if shifted is not None:
                mean, lo, hi = paired_by_game(row_losses(shifted, y) - first_shifted, rows.game, args.bootstrap)
                print(f"{name + ', both shifted':40s} {mean:+.4f}  95 % [{lo:+.4f}, {hi:+.4f}]", flush=True)
    return 0


def engine_to_move(rows: NetRows, records: list[str], name: str) -> np.ndarray:
    """For each row, whether the engine whose name contains ``name`` is the side to move (by the
    records' ``source``: "match BLACK - WHITE"); every row's game must be found, in one colour."""
    colour_of: dict[int, int] = {}
    for path in records:
        for rec in read(path):
            black, _, white = rec.source.removeprefix("match ").partition(" - ")
            if (name in black) == (name in white):
                continue
            colour_of[game_hash(str(path), rec.id)] = 1 if name in black else 2
    missing = np.setdiff1d(np.unique(rows.game), np.fromiter(colour_of, dtype=np.int64, count=len(colour_of)))
    if len(missing):
        raise SystemExit(f"--side-of {name}: {len(missing)} games of the positions have no record with "
                         f"{name} on one side in {', '.join(records)}")
    return np.array([colour_of[int(g)] == int(c) for g, c in zip(rows.game, rows.colour)])


def best_shift(lg: np.ndarray, y: np.ndarray, steps: int = 50) -> float:
    """The constant whose addition to every logit minimises the cross-entropy against ``y`` (Newton's
    method: the loss is convex in the shift)."""
    shift = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(lg + shift)))
        grad, curv = float((p - y).mean()), float((p * (1 - p)).mean())
        if curv < 1e-12:
            break
        step = grad / curv
        shift = float(np.clip(shift - step, -20.0, 20.0))
        if abs(step) < 1e-9:
            break
    return shift


def shift_by_side(lg: np.ndarray, y: np.ndarray, sides: np.ndarray) -> tuple[np.ndarray, float, float]:
    """The logits with each side's rows moved by that side's best constant shift, and the two shifts
    (the rows where ``sides`` is set first)."""
    out = np.asarray(lg, dtype=np.float64).copy()
    shifts = []
    for part in (sides, ~sides):
        shifts.append(best_shift(out[part], y[part]) if part.any() else 0.0)
        out[part] += shifts[-1]
    return out, shifts[0], shifts[1]


def report_shifted(lg: np.ndarray, y: np.ndarray, sides: np.ndarray, name: str) -> np.ndarray:
    """Print the loss after each side's shift (`shift_by_side`) and the shifts; the shifted logits."""
    shifted, own, other = shift_by_side(lg, y, sides)
    print(f"{'  shifted by side':40s} blend {bce(shifted, y):.4f}  (by {own:+.3f} logits with "
          f"{name} to move, {other:+.3f} with its opponent)", flush=True)
    return shifted


def row_losses(lg: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each row's cross-entropy of its logit against its label."""
    lg = np.asarray(lg, dtype=np.float64)
    return np.logaddexp(0, lg) - y * lg


def paired_by_game(diff: np.ndarray, game: np.ndarray, n: int, seed: int = 1) -> tuple[float, float, float]:
    """The mean of per-row differences and its 95 % interval from ``n`` bootstrap resamples of
    whole games (each resample draws as many games as there are, with replacement)."""
    keys, idx = np.unique(game, return_inverse=True)
    sums = np.bincount(idx, weights=diff, minlength=len(keys))
    counts = np.bincount(idx, minlength=len(keys)).astype(np.float64)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(keys), size=(n, len(keys)))
    means = sums[draws].sum(1) / counts[draws].sum(1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(diff.mean()), float(lo), float(hi)


def ply_stretches(ply: np.ndarray, edges: str) -> list[tuple[str, np.ndarray]]:
    """The rows of each stretch of plies cut at ``edges`` ("20,40": below 20, 20-39, 40 on)."""
    if not edges:
        return []
    if (ply < 0).any():
        raise SystemExit("--by-ply needs a cache whose rows carry their ply (written by train-net since 95fd899)")
    cuts = sorted(int(e) for e in edges.split(","))
    bounds = [0, *cuts, 1 << 15]
    return [(f"{lo}-{hi - 1}" if hi < 1 << 15 else f"{lo}+", (ply >= lo) & (ply < hi))
            for lo, hi in zip(bounds, bounds[1:])]


def report(name: str, lg: np.ndarray, y: np.ndarray, result: np.ndarray,
           stretches: list[tuple[str, np.ndarray]], tail: str = "") -> None:
    """One line of losses: blend and result over all rows, then the blend by stretch of plies."""
    parts = "".join(f"  {bce(lg[part], y[part]) if part.any() else float('nan'):7.4f}" for _, part in stretches)
    print(f"{name:40s} blend {bce(lg, y):.4f}  result {bce(lg, result):.4f}{parts}{tail}", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
