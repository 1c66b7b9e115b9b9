"""The engine API for Python code (docs/api.md): async `Engine` (`engine_async`), `SimpleEngine`
for plain scripts (`engine_sync`), `Position` judged by the referee (`position`), engines'
thinking lines read into `Info` (`info`) and the typed errors (`errors`).

Users import it from `tournament.engine`, the one public path; nothing is re-exported here so that
importing a sibling stays cheap. Also used by analysis, matches (`position.board_command`) and
the web board (`info`).
May import: `protocol`, `tournament.game`, `tournament.engines`. Never matches, storage, reports
or the web.
"""
