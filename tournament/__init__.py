"""Local tournament manager and ladder for Gomocup brains (`gomocup-tournament`).

Layers, each its own module:
- `engines` (what the user names) -> `connection` (pipes / TCP, timestamped reply lines)
  -> `session` (START/RESTART, INFO, clocks, memory) -> `game` (one game, refereed by `referee`);
- `schedule` (who plays whom) and `runner` (N games at once, storing, SPRT) on top;
- `store` (SQLite), `ratings` (Elo fit, LOS, SPRT), `report`, `export`, `openings`, `progress`;
- `cli` ties them together.
"""
