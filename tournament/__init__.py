"""Local tournament manager and ladder for Gomocup brains (`gomocup-tournament`).

Layers, each its own module:
- `engines` (what the user names) -> `connection` (pipes / TCP, timestamped reply lines)
  -> `session` (START/RESTART, INFO, clocks, memory) -> `game` (one game, refereed by `referee`);
- `schedule` (who plays whom) and `runner` (N games at once, storing, SPRT) on top;
- `store` (SQLite), `ratings` (Elo fit, LOS, SPRT), `report`, `export`, `openings`, `progress`;
- `cluster` plays the same plans as Dask distributed tasks on other machines (`--cluster`, optional extra);
- `warmup` fills the numba cache of built-in engines before games, for `cli` and for each cluster worker;
- `cli` ties them together;
- `engine` is the engine API for Python code (async `Engine`, `SimpleEngine` in `engine_sync`), on
  `session` and `connection`, with `position` (a Position judged by the referee), `info` (reading
  engines' thinking lines) and `errors` (docs/api.md).
"""
