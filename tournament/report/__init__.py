"""Reports of a database: standings and crosstable as text (`tables`, what `report DB` and every run
print) and as one self-contained HTML page with replayable boards (`html`, `report DB --html`).

The page reads the board script and style from `tournament/web/static/` as files (shared with the
web board), not as an import of the web code.
May import: `protocol`, `tournament.game`, `tournament.results`, `tournament.play` (the runner's
SPRT state, so the page shows the numbers the match used).
"""
