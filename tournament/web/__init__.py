"""`gomocup-tournament web`: a local web board to play against an engine and to watch results.

- `play`: one game per browser WebSocket, spoken to the engine through the manager's own
  `tournament.engines.session.EngineSession` (launch, START/RESTART, INFO, clocks) and judged by
  `tournament.game.referee.GameReferee`;
- `server`: the Starlette app (HTTP + WebSocket) served by Hypercorn on trio, with the access rules;
- `static/`: the page (HTML, CSS, JS; the SVG board code is shared with the HTML report).

Nothing here is imported by the brain (`gomocup_bot`) or by the other tournament commands.
May import: `protocol`, `tournament.game`, `tournament.engines`, `tournament.api` (thinking lines,
the BOARD command), `tournament.results`, `tournament.report` (the report page's game data).
"""
