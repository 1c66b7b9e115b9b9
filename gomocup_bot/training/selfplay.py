"""`gomocup-bot selfplay`: training games of the current brain against itself.

Each game starts from an opening -- one of a given opening file's lines (Piskvork's offset format)
or a random one of 2-6 stones near the centre whose first search finds it balanced -- and the
brain plays both sides at a fixed node budget on one thread. In the first plies after the opening
it sometimes plays its second or third choice (exploration), so games from one opening differ.
A game stops at a five, a full board, or when a search proves the result (the rest would be a
forced sequence that the training drops anyway).

Game ``i`` of a run draws its opening and exploration from ``seed`` and ``i`` alone, so a run is
resumable: an interrupted file is read back and only the missing ids are played. The games are
bit-for-bit repeatable where the root's threat checks finish within their node budgets (they
also carry a time cap, which a loaded machine can hit first).
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from gomocup_bot.training.records import RULES, GameRecord, encode_moves, parse_line, read

BALANCED = 250  # a random opening is kept when the first search scores it within this (units)
EXPLORE_PLIES = 6  # plies after the opening in which a second or third choice may be played
EXPLORE_P = (0.8, 0.14, 0.06)  # first, second, third choice
# wall-clock cap a move: the node budget ends the tree search long before, but the root's defence
# against the opponent's VCT deepens for a share of the clock (search.rootcheck), so in sharp
# positions this cap is what a move costs (`--move-seconds`)
MOVE_SECONDS = 5.0


@dataclass(frozen=True)
class Job:
    id: int
    seed: int
    rule: str
    size: int
    nodes: int
    root_nodes: int
    openings: tuple[tuple[tuple[int, int], ...], ...]  # offsets from the centre
    random_share: float
    source: str
    move_seconds: float = MOVE_SECONDS
    check_nodes: int = 0  # the root's defence and check of the choice: solver nodes each (0: by the clock)
    net: int | None = None  # 1: the network evaluation in the loop, 0: the tables, None: the brain's default


def parse_openings(path: str) -> list[tuple[tuple[int, int], ...]]:
    """Offset lines (``dx,dy, dx,dy, ...``, black first) of a Piskvork-style opening file."""
    out = []
    for line in Path(path).read_text(encoding="utf-8-sig").splitlines():
        nums = [t.strip() for t in line.replace(";", ",").split(",") if t.strip()]
        if not nums:
            continue
        try:
            vals = [int(t) for t in nums]
        except ValueError:
            raise SystemExit(f"{path}: not an offset line: {line!r}") from None
        if len(vals) % 2:
            raise SystemExit(f"{path}: odd number of coordinates: {line!r}")
        out.append(tuple((vals[i], vals[i + 1]) for i in range(0, len(vals), 2)))
    return out


class _Player:
    """One worker's engine, kept across its games (its numba kernels load once)."""

    def __init__(self, root_nodes: int, check_nodes: int = 0, net: int | None = None) -> None:
        from gomocup_bot.engines import create_engine

        extra = {} if net is None else {"net": net}
        self.engine = create_engine("gomocup-bot", threads=1, root_nodes=root_nodes, check_nodes=check_nodes, **extra)
        self.engine.prepare()

    def search(self, job: Job, moves: list[tuple[int, int]]):
        from gomocup_bot.engine import Position, SearchLimits, SearchRequest, StopFlag
        from protocol.rules import Rules

        stones = tuple((x, y, 1 + i % 2) for i, (x, y) in enumerate(moves))
        pos = Position(job.size, job.size, Rules.from_code(RULES[job.rule]), stones, 1 + len(moves) % 2)
        limits = SearchLimits.from_budget(job.move_seconds)
        limits = SearchLimits(limits.soft_deadline, limits.hard_deadline, max_nodes=job.nodes)
        return self.engine.search(SearchRequest(pos, limits, nbest=3), StopFlag())


def _opening(job: Job, rnd: random.Random) -> list[tuple[int, int]]:
    c = job.size // 2
    if job.openings and rnd.random() >= job.random_share:
        offsets = job.openings[rnd.randrange(len(job.openings))]
        return [(c + dx, c + dy) for dx, dy in offsets]
    n = rnd.randint(2, 6)
    cells: list[tuple[int, int]] = []
    while len(cells) < n:
        q = (c + rnd.randint(-3, 3), c + rnd.randint(-3, 3))
        if q not in cells:
            cells.append(q)
    return cells


def play_game(player: _Player, job: Job) -> GameRecord:
    """Play game ``job.id``: an opening (redrawn until balanced when random), then self-play."""
    from gomocup_bot.core.board import board_from_stones, to_pos
    from gomocup_bot.core.classes import C_FIVE
    from gomocup_bot.core.constants import RULE_CARO, RULE_EXACT, RULE_FREESTYLE, RULE_RENJU

    code = {"freestyle": RULE_FREESTYLE, "standard": RULE_EXACT, "renju": RULE_RENJU, "caro": RULE_CARO}[job.rule]
    rnd = random.Random(job.seed * 1_000_003 + job.id)
    while True:
        moves = _opening(job, rnd)
        first = player.search(job, moves)
        if first.score is not None and abs(first.score) <= BALANCED and not first.proven:
            break
    n_open = len(moves)
    scores: list[int | None] = [None] * n_open
    winner, end = 0, "full"
    result = first
    while len(moves) < job.size * job.size:
        side = 1 + len(moves) % 2
        if result is None:
            result = player.search(job, moves)
        board = board_from_stones(job.size, job.size, [(x, y, 1 + i % 2) for i, (x, y) in enumerate(moves)], 5, code)
        move = result.move
        if len(moves) - n_open < EXPLORE_PLIES and not result.proven and len(result.alternatives) > 1:
            pick = rnd.choices(range(3), weights=EXPLORE_P)[0]
            if pick < len(result.alternatives):
                move = result.alternatives[pick]
        scores.append(result.score)  # the position's value, whichever move is then played
        if board.cls[side - 1, to_pos(board, *move)] == C_FIVE:
            moves.append(move)
            winner, end = side, "five"
            break
        if result.proven and move == result.move:
            moves.append(move)
            winner, end = (side if result.proven > 0 else 3 - side), "proven"
            break
        moves.append(move)
        result = None
    return GameRecord(id=job.id, rule=job.rule, size=job.size, opening=n_open, moves=encode_moves(moves),
                      scores=scores, winner=winner, end=end, nodes=job.nodes, source=job.source)


_PLAYER: _Player | None = None


def _worker(job: Job) -> str:
    global _PLAYER
    if _PLAYER is None:
        _PLAYER = _Player(job.root_nodes, job.check_nodes, job.net)
    return play_game(_PLAYER, job).to_line()


def _source() -> str:
    import subprocess

    try:
        here = Path(__file__).resolve().parents[2]
        rev = subprocess.run(["git", "-C", str(here), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        rev = ""
    from gomocup_bot import __version__

    return f"selfplay {rev or __version__}"


def _progress(done: int, total: int, positions: int, t0: float, start_done: int) -> None:
    rate = (done - start_done) / max(time.monotonic() - t0, 1e-9)
    left = (total - done) / rate if rate > 0 else 0.0
    width = 30
    fill = int(width * done / max(total, 1))
    sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{total} games, {positions} positions, "
                     f"{rate * 60:.1f} games/min, {left / 60:.0f} min left ")
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gomocup-bot selfplay", description=__doc__.split("\n\n")[0],
                                 epilog="Resumable: run the same command again to finish an interrupted file.")
    ap.add_argument("--out", required=True, help="JSON-lines file of game records (appended to)")
    ap.add_argument("--games", type=int, required=True, help="how many games the file should hold")
    ap.add_argument("--rule", choices=sorted(RULES), default="freestyle")
    ap.add_argument("--size", type=int, default=15)
    ap.add_argument("--nodes", type=int, default=12000, help="PVS nodes a move (default 12000)")
    ap.add_argument("--root-nodes", type=int, default=40000,
                    help="node budget of the root's threat search (default 40000; the brain's own is 300000)")
    ap.add_argument("--openings", help="a Piskvork offset-format opening file (else all openings are random)")
    ap.add_argument("--random-share", type=float, default=0.5,
                    help="share of games from a random balanced opening when --openings is given (default 0.5)")
    ap.add_argument("--move-seconds", type=float, default=MOVE_SECONDS,
                    help=f"wall-clock cap a move (default {MOVE_SECONDS:g}): the root's defence against the "
                         "opponent's VCT deepens for a share of it, so a smaller cap makes sharp moves cheaper "
                         "(and their defence shallower)")
    ap.add_argument("--check-nodes", type=int, default=0,
                    help="solver nodes for the root's defence against the opponent's VCT, and again for the check "
                         "of the chosen move (default 0: they deepen by the clock, up to --move-seconds). Most of a "
                         "self-play move's time goes there; a budget such as 100000 makes the games several times "
                         "faster and independent of the clock")
    ap.add_argument("--net", type=int, choices=(0, 1), default=None,
                    help="1: the network evaluation plays (the weights file: $GOMOCUP_BOT_NET or the package's), "
                         "0: the tables (default: the brain's own choice)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: one a core)")
    args = ap.parse_args(argv)
    if not args.move_seconds > 0:
        ap.error("--move-seconds must be positive")
    if args.check_nodes < 0:
        ap.error("--check-nodes must be 0 (by the clock) or positive")
    openings = tuple(parse_openings(args.openings)) if args.openings else ()
    openings = tuple(o for o in openings if all(abs(dx) <= args.size // 2 and abs(dy) <= args.size // 2 for dx, dy in o))
    out = Path(args.out)
    done_ids: set[int] = set()
    positions = 0
    if out.exists():
        for rec in read(out):
            done_ids.add(rec.id)
            positions += len(rec.moves) // 2 - rec.opening
        # drop a half-written last line so that appends start on a fresh line
        text = out.read_bytes()
        if text and not text.endswith(b"\n"):
            out.write_bytes(text[: text.rfind(b"\n") + 1])
    source = f"{_source()} root {args.root_nodes}" + (f" check {args.check_nodes}" if args.check_nodes else "")
    if args.net is not None:
        source += f" net {args.net}" + (f" {Path(os.environ['GOMOCUP_BOT_NET']).name}" if args.net and
                                       os.environ.get("GOMOCUP_BOT_NET") else "")
    jobs = [Job(i, args.seed, args.rule, args.size, args.nodes, args.root_nodes, openings,
                args.random_share if openings else 1.0, source, args.move_seconds, args.check_nodes, args.net)
            for i in range(args.games) if i not in done_ids]
    start_done = len(done_ids)
    t0 = time.monotonic()
    _progress(start_done, args.games, positions, t0, start_done)
    if not jobs:
        sys.stderr.write("\nnothing to do\n")
        return 0
    ctx = multiprocessing.get_context("spawn")
    done = start_done
    try:
        with out.open("a", encoding="utf-8") as f, ctx.Pool(max(1, args.workers)) as pool:
            for line in pool.imap_unordered(_worker, jobs):
                f.write(line + "\n")
                f.flush()
                done += 1
                rec = parse_line(line)
                positions += len(rec.moves) // 2 - rec.opening
                _progress(done, args.games, positions, t0, start_done)
    except KeyboardInterrupt:  # every finished game is on disk, one whole line each
        sys.stderr.write(f"\nstopped at {done} games ({positions} positions) in {out}; "
                         "the same command resumes\n")
        return 130
    sys.stderr.write("\n")
    return 0
