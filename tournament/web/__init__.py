"""`gomocup-tournament web`: a local web board to play against an engine and to watch results.

- `play`: one game per browser WebSocket, spoken to the engine through the manager's own
  `session.EngineSession` (launch, START/RESTART, INFO, clocks) and judged by `referee.GameReferee`;
- `server`: the Starlette app (HTTP + WebSocket) served by Hypercorn on trio, with the access rules;
- `static/`: the page (HTML, CSS, JS; the SVG board code is shared with the HTML report).

Nothing here is imported by the brain (`gomocup_bot`) or by the other tournament commands.
"""
