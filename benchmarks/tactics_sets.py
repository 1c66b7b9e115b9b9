"""The brain's score on the tactical test sets (tests/search/data/vcf|vct|defence.jsonl), per set.

Why: tests/search/test_tactics_sets.py fails on the first wrong move; this prints how many
positions of each kind and rule the brain answers correctly at 1 s a turn (the tests' limits), and
which ones it missed, to compare a change of the search against the same positions. A move counts
as the tests judge it (`judge_move`): a stored answer, or another win the solver proves.

    PYTHONPATH=. .venv/bin/python benchmarks/tactics_sets.py [--kind vcf,vct] [--rule renju]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.search.test_tactics_sets import RECORDS, SETS, brain_move, judge_move, record_id  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kind", default=",".join(SETS), help="comma-separated kinds (default: %(default)s)")
    ap.add_argument("--rule", default="freestyle,standard,renju", help="comma-separated rules (default: %(default)s)")
    args = ap.parse_args(argv)
    kinds, rules = set(args.kind.split(",")), set(args.rule.split(","))
    records = [rec for rec in RECORDS if rec["kind"] in kinds and rec["rule"] in rules]
    score: dict[tuple[str, str], list[int]] = {}
    failed = []
    t0 = time.monotonic()
    for rec in records:
        ok, why = judge_move(rec, brain_move(rec))
        s = score.setdefault((rec["kind"], rec["rule"]), [0, 0])
        s[0] += ok
        s[1] += 1
        if not ok:
            failed.append(f"{record_id(rec)}: {why}")
    for (kind, rule), (good, total) in sorted(score.items()):
        print(f"{kind:8s} {rule:10s} {good:3d}/{total}")
    print(f"all      {sum(s[0] for s in score.values())}/{len(records)} in {time.monotonic() - t0:.0f} s")
    for line in failed:
        print("  failed", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
