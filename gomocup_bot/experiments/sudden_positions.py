"""Seeded generator of Li's sudden win / sudden death positions (Li 2018, Definition 1, Table 1).

A position belongs to a cell (K, level) when, for the side to move on a KxK freestyle board:

* level 1 (sudden win): it has a square that wins at once;
* level 2 (sudden death): it has no win-in-1 and the opponent has exactly one;
* level 3 (sudden win): none of the above, and the depth-3 minimax value is +1;
* level 4 (sudden death): none of the above, the opponent would win within 3 plies if it were
  to move, the depth-4 value is 0 (some move saves the game) and at least one move loses
  within 4 plies.

Decisive moves are those with the level's value at the root (+1 for wins, >= 0 for deaths),
computed by the level-k minimax of `gomocup_bot.search.sudden`, which is exact for these depths
(its pruning is proved in the module doc and cross-checked against a full-width plain-Python
minimax in `tests/search/test_sudden.py`).

Positions come from games of a noisy threat-greedy player (softmax over the core's `move_score`)
started from random stones near the centre, at most one position per (game, level). The shipped
file was generated before the search moved to the core board, with the old view's window score:
the same seed now draws other games (the positions and their answers stay valid). Output: JSON lines
`{"K", "level", "to_move", "stones": [[x, y, c]...], "decisive": [[x, y]...]}`.

    python benchmarks/sudden_positions.py --per-cell 50 --seed 2018 > gomocup_bot/experiments/data/sudden_positions.jsonl
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np


from gomocup_bot.core.board import make, new_board, pos_x, pos_y, to_pos
from gomocup_bot.core.patterns import move_score
from gomocup_bot.search.sudden import root_values, sudden, win_squares, wins_now

SIZES = (7, 9, 11, 15)
LEVELS = (1, 2, 3, 4)


def classify(b, side):
    """(level, decisive squares) for the side to move on core board ``b``, or (0, []) when no level applies."""
    stop = np.zeros(1, dtype=np.int32)
    counter = np.zeros(2, dtype=np.int64)
    size = b.cells.shape[0]
    buf = np.zeros(size, dtype=np.int32)
    n = win_squares(b, side, buf)
    if n > 0:
        return 1, [int(p) for p in buf[:n]]
    opp = 3 - side
    n = win_squares(b, opp, buf)
    if n == 1:
        return 2, [int(buf[0])]
    if n > 1:
        return 0, []
    moves = np.zeros(size, dtype=np.int64)
    values = np.zeros(size, dtype=np.int64)
    m = root_values(b, side, 3, moves, values, stop, counter)
    wins = [int(moves[i]) for i in range(m) if values[i] == 1]
    if wins:
        return 3, wins
    # does the opponent threaten a level-3 win (if it were to move)?
    if sudden(b, opp, 3, stop, counter) != 1:
        return 0, []
    m = root_values(b, side, 4, moves, values, stop, counter)
    saving = [int(moves[i]) for i in range(m) if values[i] >= 0]
    losing = [int(moves[i]) for i in range(m) if values[i] < 0]
    if saving and losing:
        # a far square stands for every far square: keep only real candidates as decisive
        return 4, [p for p in saving if b.nbr[p] > 0] or saving
    return 0, []


def noisy_move(b, side, rng, temperature: float):
    cands = [int(p) for p in np.nonzero((b.cells == 0) & (b.nbr > 0))[0]]
    if not cands:
        cands = [int(p) for p in np.nonzero(b.cells == 0)[0]]
    scores = np.array([move_score(b, side, p) for p in cands], dtype=np.float64)
    logs = np.log(scores + 1.0)
    w = np.exp((logs - logs.max()) / temperature)
    return cands[int(rng.choice(len(cands), p=w / w.sum()))]


def generate(per_cell: int, seed: int, sizes=SIZES, max_games: int = 200_000, log=None):
    rng = np.random.default_rng(seed)
    found: dict[tuple[int, int], list[dict]] = {(k, lv): [] for k in sizes for lv in LEVELS}
    games = 0
    for K in sizes:
        while any(len(found[(K, lv)]) < per_cell for lv in LEVELS) and games < max_games:
            games += 1
            b = new_board(K, K)
            stones = []
            side = 1
            # a few random stones near the centre, then noisy greedy play
            n_open = int(rng.integers(2, 6))
            c0 = K // 2
            while len(stones) < n_open:
                x = int(c0 + rng.integers(-2, 3))
                y = int(c0 + rng.integers(-2, 3))
                p = to_pos(b, x, y)
                if b.cells[p] == 0:
                    make(b, p, side)
                    stones.append((x, y, side))
                    side = 3 - side
            temperature = float(rng.uniform(0.15, 0.6))
            taken = set()
            while len(stones) < K * K - 1:
                level, decisive = classify(b, side)
                if level and level not in taken and len(found[(K, level)]) < per_cell:
                    taken.add(level)
                    found[(K, level)].append({
                        "K": K, "level": level, "to_move": side,
                        "stones": [list(s) for s in stones],
                        "decisive": sorted([int(pos_x(b, p)), int(pos_y(b, p))] for p in decisive),
                    })
                p = noisy_move(b, side, rng, temperature)
                won = wins_now(b, p, side)
                make(b, p, side)
                x, y = int(pos_x(b, p)), int(pos_y(b, p))
                stones.append((x, y, side))
                if won:
                    break
                side = 3 - side
            if log and games % 50 == 0:
                log(f"K={K} games={games} " + " ".join(f"L{lv}:{len(found[(K, lv)])}" for lv in LEVELS))
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-cell", type=int, default=50)
    ap.add_argument("--seed", type=int, default=2018)
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--out", default="-")
    args = ap.parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(","))
    found = generate(args.per_cell, args.seed, sizes, log=lambda s: print(s, file=sys.stderr, flush=True))
    out = sys.stdout if args.out == "-" else open(args.out, "w")
    for key in sorted(found):
        for rec in found[key]:
            out.write(json.dumps(rec) + "\n")
    if out is not sys.stdout:
        out.close()
    for key in sorted(found):
        print(f"K={key[0]} level {key[1]}: {len(found[key])}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
