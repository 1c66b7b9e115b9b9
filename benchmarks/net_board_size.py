"""How a net's value of the same stones moves when they stand on a larger board.

Why: a rule's net plays only the board sizes it was trained on (`neteval.network.network_for`),
because its windows see the walls. This measures how far that goes: positions cut from
self-play games are placed on their own board and, shifted ``--offset`` squares in, on a larger
one, and the value head (the plain-numpy reference, `neteval.reference`, without the tables'
input or the threat mask, so only the net's own features count) is compared: the mean shift, the
spread of the differences beside the spread of the values themselves, and their correlation.
On a board large enough that the stones stay out of the walls' reach, a shift by one square must
change nothing (the net is the same at every square); that is checked too.

    PYTHONPATH=. .venv/bin/python benchmarks/net_board_size.py data/selfplay/freestyle-net2-s52.jsonl.gz \
        [--stones 30] [--size 20] [--offset 2] [--limit 300] [--net NET.gbn]
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from gomocup_bot.neteval import reference  # noqa: E402
from gomocup_bot.neteval.weights import load  # noqa: E402


def cells_of(moves: str, stones: int, size: int, offset: int) -> np.ndarray:
    """The first ``stones`` moves of a record's move string (two letters a move, x then y, from
    'a'), black first, on a ``size`` board, shifted ``offset`` squares right and down."""
    cells = np.zeros((size, size), dtype=np.int64)
    for i in range(stones):
        x, y = ord(moves[2 * i]) - 97, ord(moves[2 * i + 1]) - 97
        cells[y + offset, x + offset] = 1 + i % 2
    return cells


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("games", help="a self-play .jsonl.gz of 15 x 15 games")
    ap.add_argument("--stones", type=int, default=30, help="stones of each position (default 30)")
    ap.add_argument("--size", type=int, default=20, help="the larger board (default 20)")
    ap.add_argument("--offset", type=int, default=2, help="squares in from the top-left corner (default 2)")
    ap.add_argument("--limit", type=int, default=300,
                    help="games read (default 300)")
    ap.add_argument("--net", default=None, help="a weights file (default: the package's)")
    ap.add_argument("--rule", default="freestyle")
    args = ap.parse_args(argv)
    weights = load(args.net) if args.net else load()
    net = weights.rules[args.rule]
    own, larger, far_a, far_b = [], [], [], []
    with gzip.open(args.games, "rt") as fh:
        for k, line in enumerate(fh):
            if k >= args.limit:
                break
            rec = json.loads(line)
            moves = rec["moves"]
            if rec.get("size", 15) != 15 or len(moves) < 2 * args.stones:
                continue
            view = args.stones % 2  # black moves first: an even count leaves black (view 0) to move
            own.append(reference.logit(weights, net, cells_of(moves, args.stones, 15, 0), view, 0))
            larger.append(reference.logit(weights, net, cells_of(moves, args.stones, args.size, args.offset),
                                          view, 0))
            far_a.append(reference.logit(weights, net, cells_of(moves, args.stones, 32, 8), view, 0))
            far_b.append(reference.logit(weights, net, cells_of(moves, args.stones, 32, 9), view, 0))
    if len(own) < 2:
        print("fewer than two positions: nothing to compare", file=sys.stderr)
        return 1
    own_a, larger_a = np.array(own), np.array(larger)
    diff = larger_a - own_a
    print(f"positions {len(own)} of {args.stones} stones; logits, side to move")
    print(f"15 x 15: mean {own_a.mean():+.3f}, spread {own_a.std():.3f}")
    print(f"{args.size} x {args.size} (offset {args.offset}): mean shift {diff.mean():+.3f}, "
          f"spread of the shifts {diff.std():.3f}, correlation {np.corrcoef(own_a, larger_a)[0, 1]:.3f}")
    far = np.array(far_a)
    print(f"32 x 32, stones 8 and 9 squares in: largest change {np.abs(far - np.array(far_b)).max():.6f} "
          f"(0: the same everywhere out of the walls' reach), correlation with 15 x 15 "
          f"{np.corrcoef(own_a, far)[0, 1]:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
