"""Fit the evaluation's weights from game records: a logistic regression of the game result on
the board's threat-class counts.

Each position of each game (past the opening, before the end, with no immediate forced result)
gives one row: for the side to move and for the opponent, how many empty squares sit in each
threat class (`core.classes`), and the label (1 the side to move won, 0 lost, 0.5 draw). The fit
maximises the likelihood of P(win) = sigmoid(w·x + tempo) with a small L2 penalty; the weights in
logit units are scaled to the search's score units (`--scale`: score units per logit) and printed
as the tables for `gomocup_bot/core/classes.py`.

Sources: SQLite databases of `gomocup-tournament` (any engines; the stronger the players, the
better the labels) and, with ``--selfplay N``, N fast games of the current brain against itself
(fixed node budget per move, a random Piskvork opening each, an occasional second-best move).

    python benchmarks/tune_eval.py --db a.sqlite --db b.sqlite \
        --selfplay 400 --openings ../shared/data/openings/piskvork_openings.txt --out /tmp/weights.json
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from gomocup_bot.core.board import make, new_board, to_pos  # noqa: E402
from gomocup_bot.core.classes import (  # noqa: E402
    C_FIVE,
    C_FLEX4,
    C_FOUR,
    C_FOUR3,
    C_LOW,
    CLASS_NAMES,
    N_CLASSES,
)

FEATURE_CLASSES = list(range(C_LOW, C_FIVE))  # low .. flex4 (five squares end the game at once)


def features(b, side: int) -> np.ndarray | None:
    """The row for ``side`` to move, or None when the position is already decided by force."""
    me, op = side - 1, 2 - side
    cnt = b.cnt
    if cnt[me, C_FIVE] or cnt[op, C_FIVE] >= 2 or cnt[me, C_FLEX4]:
        return None
    if cnt[op, C_FIVE] == 1:
        return None  # a forced block: the next position says more
    fours_op = cnt[op, C_FOUR] + cnt[op, C_FOUR + 1] + cnt[op, C_FOUR3] + cnt[op, C_FLEX4]
    if cnt[me, C_FOUR3] and fours_op == 0:
        return None
    row = [float(cnt[me, c]) for c in FEATURE_CLASSES] + [float(cnt[op, c]) for c in FEATURE_CLASSES]
    return np.array(row)


def rows_from_game(moves: list[tuple[int, int]], winner: int, rule: int, skip: int) -> list[tuple[np.ndarray, float]]:
    """Rows of one game (``winner`` 1/2, 0 draw) after its first ``skip`` stones."""
    b = new_board(15, 15, 5, rule)
    out = []
    for i, (x, y) in enumerate(moves):
        side = 1 + i % 2
        if i >= skip:
            f = features(b, side)
            if f is not None:
                label = 0.5 if winner == 0 else (1.0 if winner == side else 0.0)
                out.append((f, label))
        make(b, to_pos(b, x, y), side)
    return out


def games_from_db(path: str) -> list[tuple[list[tuple[int, int]], int, int, int]]:
    con = sqlite3.connect(path)
    cols = [r[1] for r in con.execute("pragma table_info(games)")]
    games = []
    for r in con.execute("select * from games"):
        d = dict(zip(cols, r))
        if d["width"] != 15 or d["height"] != 15 or d["win_length"] != 5 or d["ending"] not in ("five", "draw"):
            continue
        moves = [(m[0], m[1]) for m in json.loads(d["moves"])]
        games.append((moves, int(d["result"] or 0), int(d["rule"]), int(d["opening_stones"] or 0)))
    return games


def selfplay(n: int, openings_file: str, nodes: int, seed: int) -> list[tuple[list[tuple[int, int]], int, int, int]]:
    from gomocup_bot.core.board import pos_x, pos_y
    from gomocup_bot.search.pvs_driver import PvsConfig, PvsSearcher
    from tournament.openings import load_openings

    openings = load_openings(openings_file)
    rnd = random.Random(seed)
    stop = np.zeros(1, dtype=np.int32)
    games = []
    t0 = time.time()
    for g in range(n):
        op = openings[rnd.randrange(len(openings))]
        b = new_board(15, 15)
        moves = []
        for i, (dx, dy) in enumerate(op.offsets):
            make(b, to_pos(b, 7 + dx, 7 + dy), 1 + i % 2)
            moves.append((7 + dx, 7 + dy))
        searcher = PvsSearcher(1 << 22, PvsConfig())
        winner = 0
        while len(moves) < 225:
            side = 1 + len(moves) % 2
            if b.cnt[side - 1, C_FIVE]:
                winner = side
                break
            out = searcher.search(b, side, stop, soft_deadline=None, hard_deadline=None, max_nodes=nodes)
            if out.move < 0:
                break
            move = out.move
            if len(moves) < 14 and len(out.ranked) > 1 and rnd.random() < 0.15:
                move = out.ranked[1]
            make(b, move, side)
            moves.append((int(pos_x(b, move)), int(pos_y(b, move))))
        games.append((moves, winner, 0, len(op.offsets)))
        if (g + 1) % 20 == 0:
            print(f"selfplay {g + 1}/{n} games, {time.time() - t0:.0f} s", file=sys.stderr)
    return games


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, iters: int = 50) -> tuple[np.ndarray, float]:
    """Logistic regression by Newton's method (x: rows, y: labels in [0, 1]); returns (w, bias)."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    reg = l2 * len(x) * np.eye(xb.shape[1])
    reg[-1, -1] = 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-xb @ w))
        grad = xb.T @ (p - y) + reg @ w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + reg
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-7:
            break
    return w[:-1], float(w[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", action="append", default=[], help="a gomocup-tournament SQLite database (repeatable)")
    ap.add_argument("--selfplay", type=int, default=0, help="also play N self-play games")
    ap.add_argument("--openings", help="opening file for self-play (offset lines)")
    ap.add_argument("--nodes", type=int, default=4000, help="node budget per self-play move")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=float, default=250.0, help="score units per logit")
    ap.add_argument("--out", help="write the fitted weights as JSON here")
    ap.add_argument("--save-games", help="write the self-play games (JSON lines) here, to fit again without replaying")
    ap.add_argument("--games", action="append", default=[], help="read games saved by --save-games (repeatable)")
    args = ap.parse_args(argv)
    games = []
    for path in args.db:
        games += games_from_db(path)
    print(f"{len(games)} games from databases", file=sys.stderr)
    if args.selfplay:
        if not args.openings:
            ap.error("--selfplay needs --openings")
        played = selfplay(args.selfplay, args.openings, args.nodes, args.seed)
        games += played
        if args.save_games:
            with open(args.save_games, "w") as f:
                for g in played:
                    f.write(json.dumps(g) + "\n")
    for path in args.games:
        with open(path) as f:
            games += [tuple(json.loads(line)) for line in f if line.strip()]
    rows = []
    for moves, winner, rule, skip in games:
        rows += rows_from_game([tuple(m) for m in moves], winner, rule, skip)
    if not rows:
        print("no positions", file=sys.stderr)
        return 1
    x = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows])
    # hold out a tenth to report the fit honestly
    idx = np.random.default_rng(args.seed).permutation(len(x))
    cut = len(x) // 10
    test, train = idx[:cut], idx[cut:]
    w, bias = fit(x[train], y[train])

    def loss(ix):
        p = 1 / (1 + np.exp(-(x[ix] @ w + bias)))
        p = np.clip(p, 1e-6, 1 - 1e-6)
        return float(-np.mean(y[ix] * np.log(p) + (1 - y[ix]) * np.log(1 - p)))

    print(f"{len(games)} games, {len(x)} positions; log loss train {loss(train):.4f} test {loss(test):.4f} "
          f"(constant {float(-np.log(0.5)):.4f})", file=sys.stderr)
    k = len(FEATURE_CLASSES)
    self_w = np.zeros(N_CLASSES, dtype=np.int64)
    opp_w = np.zeros(N_CLASSES, dtype=np.int64)
    for j, c in enumerate(FEATURE_CLASSES):
        self_w[c] = int(round(w[j] * args.scale))
        opp_w[c] = int(round(-w[k + j] * args.scale))
    for j, c in enumerate(FEATURE_CLASSES):
        print(f"{CLASS_NAMES[c]:>9}: self {self_w[c]:6d}  opp {opp_w[c]:6d}")
    print(f"tempo {bias * args.scale:.0f}")
    print("EVAL_SELF =", list(map(int, self_w)))
    print("EVAL_OPP =", list(map(int, opp_w)))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"self": list(map(int, self_w)), "opp": list(map(int, opp_w)),
                       "tempo": int(round(bias * args.scale)), "games": len(games), "positions": len(x),
                       "test_log_loss": loss(test)}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
