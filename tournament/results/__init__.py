"""Results and what they say: the SQLite store, one transaction per finished game so a killed run
resumes exactly (`store`), and the ratings computed from them: Elo fit with error bars, LOS and
SPRT (`ratings`, pure Python).

May import: `tournament.game` (records and endings) only; no engine, no clock.
"""
