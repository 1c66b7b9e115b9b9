"""Playing matches on this machine: one refereed game between two engine sessions (`game`), who plays
whom (`schedule`: match, gauntlet, round robin, the ladder's planner), openings (`openings`) and the
runner that plays N games at once, stores each one as it ends and stops on an SPRT decision (`runner`).

May import: `protocol`, `tournament.game`, `tournament.engines`, `tournament.api` (the BOARD command
of a position), `tournament.results`, `tournament.progress`.
"""
