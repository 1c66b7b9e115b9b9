"""Local tournament manager and ladder for Gomocup brains (`gomocup-tournament`), and the engine API.

Rooms, one job each, lowest first (each room's docstring says what it owns and may import;
tests/test_layout.py holds the rules, docs/architecture.md the table):
- `progress`: the terminal progress line (imports nothing);
- `game/`: endings, the referee, game records and their PSQ / SGF files;
- `engines/`: engine specs -> connection (pipes / TCP) -> session (START/RESTART, INFO, clocks,
  memory), and the warm-up of built-ins;
- `api/`: the engine API for Python code (`Engine`, `SimpleEngine`, `Position`, `Info`, errors),
  imported by users as `tournament.engine`;
- `results/`: the SQLite store and the ratings (Elo fit, LOS, SPRT);
- `play/`: one game, schedules, openings and the runner (N games at once, SPRT stop);
- `cluster/`: the same plans as Dask distributed tasks on other machines (`--cluster`, optional extra);
- `report/`: standings as text and the HTML report; `analysis/`: `analyse` and `evaluate`;
- `web/`: the local web board (optional extra);
- `cli`: the `gomocup-tournament` command, on top of them all.
"""
