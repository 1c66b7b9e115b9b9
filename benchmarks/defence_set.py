"""How often does a brain defend? The defence test set (tests/search/data/defence_positions.json:
real positions right before a blunder, each with the moves that hold) played at 1 s per move.

    python benchmarks/defence_set.py builtin:gomocup-bot
    python benchmarks/defence_set.py "/path/to/old-checkout/.venv/bin/gomocup-bot" --turn 1

The brain gets each position as a fresh board (through the engine API, like a manager) and plays one
move. It holds when the move is one of the position's holding moves (the analysing engine's long run
found no forced win for the attacker after it, and the independent solver confirmed there is no short
VCT); `unconfirmed` moves (engine-holding, the solver could not settle them) count as held and are
shown apart. Every other legal move was judged to let a forced win in. Prints the share of positions
held, by rule and colour, the machine's load before and after, and its speed (the search bench's
one-thread PVS nodes/s, before and after the passes): at 1 s a move the share follows the machine,
94.3 % on one that ran 0.5-0.6 M nodes/s and 95.6 % on one that ran 1.1 M, 93.7 % there at
0.5 s (8fe5fbe, 2026-12-02; docs/search.md, "The defence set on a faster machine"). `--reference-speed` sets each pass's turn so that
this machine searches about as many nodes a move as one of the given speed would in `--turn` (the
speed read again before every pass: it drifted by a third within minutes on one of the project's
VMs); a warning says when the readings before and after the run disagree by more than 15 %.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from gomocup_bot.search.bench import FIXED_DEPTH, pvs_speed
from tournament.engine import Limit, Position, SimpleEngine

ROOT = Path(__file__).resolve().parents[1]
SPEED_DRIFT = 0.15  # before and after readings further apart than this: the machine changed under the run
DATA = ROOT / "tests" / "search" / "data" / "defence_positions.json"


def load(path: Path) -> list[dict]:
    return json.loads(path.read_text())["positions"]


def judge_move(engine: SimpleEngine, rec: dict, turn: float) -> tuple[str, tuple[int, int], float]:
    """("hold" | "unconfirmed" | "lose", the brain's move, the seconds it took)."""
    position = Position.from_moves([(x, y) for x, y, _ in rec["moves"]], rec["size"], rec["rule"])
    t0 = time.monotonic()
    move = engine.play(position, Limit(turn=turn)).move
    seconds = time.monotonic() - t0
    if move in {tuple(m) for m in rec["holding"]}:
        return "hold", move, seconds
    if move in {tuple(m) for m in rec["unconfirmed"]}:
        return "unconfirmed", move, seconds
    return "lose", move, seconds


def run_pass(spec: str, records: list[dict], turn: float, warm: bool = True) -> tuple[str, list[dict]]:
    """One pass over the set in a fresh engine process (a second pass in the same process would
    find the first one's answers in its transposition table); (engine name, outcomes). ``warm``:
    the engine first answers one opening move, untimed for the set, so that its start-up (which
    a manager bills to the first move of a game, not to a defence in mid-game) does not eat the
    first position's second."""
    outcomes = []
    with SimpleEngine.open(spec, tolerance=10) as engine:
        name = engine.about.get("name", spec)
        if warm:
            engine.play(Position.from_moves([(7, 7)], 15, "freestyle"), Limit(turn=turn))
        for i, rec in enumerate(records, 1):
            outcome, played, seconds = judge_move(engine, rec, turn)
            outcomes.append({"source": rec["source"], "rule": rec["rule"], "to_move": rec["to_move"], "outcome": outcome,
                             "played": list(played), "seconds": round(seconds, 2)})
            print(f"{i:3}/{len(records)} {outcome:11} {rec['rule']:9} {'black' if rec['to_move'] == 1 else 'white'} "
                  f"played {played[0]},{played[1]:<3} in {seconds:.2f}s  {rec['source']}", file=sys.stderr)
    return name, outcomes


def held_count(outcomes: list[dict]) -> int:
    return sum(o["outcome"] in ("hold", "unconfirmed") for o in outcomes)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("engine", nargs="?", default="builtin:gomocup-bot", help="engine specification (default builtin:gomocup-bot)")
    ap.add_argument("--turn", type=float, default=1.0, help="seconds per move (default 1)")
    ap.add_argument("--data", type=Path, default=DATA, help="the set's JSON (default tests/search/data/defence_positions.json)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N positions")
    ap.add_argument("--repeat", type=int, default=1,
                    help="passes over the set, each in a fresh process (default 1); at 1 s a move the same "
                         "brain's count varies by a few positions from pass to pass")
    ap.add_argument("--cold", action="store_true",
                    help="no warm-up move: the first position's second also pays the engine's start-up "
                         "(how the figures before 87eccf9, 2026-11-27, were taken)")
    ap.add_argument("--json", type=Path, help="write every position's outcome here (with its pass number and turn)")
    ap.add_argument("--no-speed", action="store_true",
                    help="skip the machine's speed reading (the search bench's one-thread PVS nodes/s, a "
                         "second or two before and after the passes): without it, a share taken here cannot be set "
                         "beside one taken on another machine")
    ap.add_argument("--reference-speed", type=float, metavar="K",
                    help="scale the turn to a machine that runs K thousand PVS nodes/s on one thread (the "
                         "speed this script prints): each pass's turn becomes --turn x K / this machine's speed, "
                         "read before that pass, so that a move gets about the nodes it would get there (the "
                         "fixed reply margins do not scale; the search's own node budgets need no scaling)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    if args.turn <= 0:
        ap.error("--turn must be positive")
    if args.reference_speed is not None:
        if args.no_speed:
            ap.error("--reference-speed needs the speed reading: drop --no-speed")
        if args.reference_speed <= 0:
            ap.error("--reference-speed must be positive (thousands of nodes/s)")
    records = load(args.data)[: args.limit or None]
    load_before = os.getloadavg()
    speed_before = pvs_speed() if not args.no_speed else None
    if args.reference_speed is not None and not speed_before:
        print("the speed reading failed (0 nodes/s): cannot scale the turn", file=sys.stderr)
        return 1
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    passes, turns, speed = [], [], speed_before
    for k in range(args.repeat):
        turn = args.turn
        if args.reference_speed is not None:
            if k > 0:  # this VM's speed drifted by up to a third within minutes: read it again for every pass
                speed = pvs_speed() or speed
            assert speed
            turn = args.turn * args.reference_speed * 1000 / speed
        turns.append(turn)
        name, outcomes = run_pass(args.engine, records, turn, warm=not args.cold)
        passes.append(outcomes)
        if args.repeat > 1:
            at = f" at {turn:.3g} s (PVS {speed / 1000:.0f} k nodes/s)" if args.reference_speed is not None else ""
            print(f"pass {k + 1}/{args.repeat}: held {held_count(outcomes)} of {len(outcomes)}{at}", flush=True)
    load_after = os.getloadavg()
    speed_after = pvs_speed() if not args.no_speed else None
    outcomes = [o for p in passes for o in p]
    held = held_count(outcomes)
    counts = ", ".join(str(held_count(p)) for p in passes)
    scaled = (f" ({args.turn:g} s on a machine of {args.reference_speed:g} k nodes/s)"
              if args.reference_speed is not None else "")
    print(f"{args.engine} ({name}) at {statistics.mean(turns):.3g} s per move{scaled}{' (cold start)' if args.cold else ''}, {started}: held {held / len(passes):g} of "
          f"{len(records)} positions = {100 * held / max(1, len(outcomes)):.1f} %"
          + (f" (mean of {len(passes)} passes: {counts})" if len(passes) > 1 else ""))
    groups: dict[tuple[str, str], list[str]] = {}
    for o in outcomes:
        groups.setdefault((o["rule"], "black" if o["to_move"] == 1 else "white"), []).append(o["outcome"])
    for (rule, colour), items in sorted(groups.items()):
        kept = len(items) - items.count("lose")
        print(f"  {rule:9} {colour}: {kept / len(passes):g}/{len(items) // len(passes)}")
    unconfirmed = sum(o["outcome"] == "unconfirmed" for o in outcomes)
    if unconfirmed:
        print(f"  of the held, {unconfirmed / len(passes):g} a pass with a move the engine found holding and the "
              f"solver could not settle")
    print(f"  load average {load_before[0]:.1f} before, {load_after[0]:.1f} after; "
          f"mean {sum(o['seconds'] for o in outcomes) / max(1, len(outcomes)):.2f} s per position")
    if speed_before is not None and speed_after is not None:
        print(f"  this machine: PVS {speed_before / 1000:.0f} k nodes/s before, {speed_after / 1000:.0f} k after "
              f"(one thread, the median of `gomocup-bot bench`'s midgames at depth {FIXED_DEPTH})")
        if abs(speed_after - speed_before) > SPEED_DRIFT * max(speed_before, speed_after):
            print(f"  warning: the machine's speed moved by more than {SPEED_DRIFT:.0%} during the run"
                  + (": each pass's turn followed the reading before it, but a pass that the speed moved "
                     "under is not at the reference speed" if args.reference_speed is not None else ""))
    if args.json:
        args.json.write_text(json.dumps([dict(o, **{"pass": k + 1, "turn": round(turns[k], 3)})
                                        for k, p in enumerate(passes) for o in p], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
