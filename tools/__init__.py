"""Generators and one-off builders: the code that makes the test sets, kept out of `tests/`.

Each module is a command (`python -m tools.NAME --help`) whose docstring says what it builds and
why. They run from a checkout, never from an install: pyproject's package list (`protocol`,
`gomocup_bot`, `tournament`) leaves `tools/` out.

- `make_tactics_sets`: the VCF / VCT / defence sets of tests/search/data/*.jsonl.
- `make_defence_set`: the defence set of tests/search/data/defence_positions.json, cut from real
  blunders and kept proved.
- `pack_data`: packs the committed match databases (data/matches/) with xz and unpacks them.

They prove their answers with the independent threat solver and the whole-board proof check
(tests/search/threat_solver.py, tests/search/proof_check.py): those stay in `tests/` because the
tests check the brain and the stored sets with them; the tools share them rather than copy them.
"""
