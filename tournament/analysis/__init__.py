"""Game analysis with an engine, built on the engine API: `gomocup-tournament analyse` (`analyse_cli`:
options, progress, output), the records it reads (`records`: databases, SGF, PSQ, folders), the
engine passes (`analyser`), the findings and their definitions (`findings`: proven, blunder, lost by
force) as JSON and text (`report`) and as one page (`html`); and `gomocup-tournament evaluate`
(`evaluate_cli`: one engine's evaluation of many positions, as JSON lines).

May import: `protocol`, `tournament.engines`, `tournament.api`, `tournament.progress`,
`tournament.report` (the page's shared board script and style).
"""
