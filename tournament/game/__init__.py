"""The game itself, with no engine in sight: why a game ended (`endings`), the referee that judges
each move under protocol reference §11 (`referee`, on `protocol.judge`), the record a finished game
leaves (`record`) and its PSQ / SGF files (`export`).

The lowest room of the manager: everything else judges, stores and reports games with it.
May import: `protocol` only.
"""
