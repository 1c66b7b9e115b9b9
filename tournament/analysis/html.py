"""`gomocup-tournament analyse --html FILE`: the findings as one self-contained page.

Per game: an evaluation graph (black's winrate at every judged position, proven wins at the
edges, blunders as red marks, the move after which the game was lost by force as a dashed line),
the blunders' table, and the replay board of the HTML report (`board.js`, the web board's own
script, with the same style sheet). Clicking a blunder (its mark or its row) jumps the board to the
blunder and shows the refutation as numbered ghost stones; clicking the graph elsewhere jumps to
that move. Built from the `--json` document alone; no network is needed to view it.
"""
from __future__ import annotations

import html
from typing import Any

from tournament.analysis.report import line_text, percent, square
from tournament.report.html import json_for_script, static_text

WIDTH, HEIGHT, PAD_L, PAD_R, PAD_T, PAD_B = 640, 190, 40, 12, 12, 26

STYLE = """
.analysed .graph svg { display: block; max-width: 100%; height: auto; background: #fff; border: 1px solid var(--line); }
.analysed .graph .ply-hit { cursor: pointer; fill: transparent; }
.analysed .graph .ply-hit:hover { fill: rgba(29, 63, 102, 0.08); }
.analysed .graph .blunder-mark { cursor: pointer; }
.analysed .cols { display: flex; gap: 20px; flex-wrap: wrap; align-items: flex-start; }
table.blunders tr.blunder { cursor: pointer; }
table.blunders tr.blunder:hover td, table.blunders tr.blunder.sel td { background: #fbe9e7; }
table.blunders td { text-align: left; }
.findings { margin: 6px 0; }
"""


def _x(ply: float, first: int, last: int) -> float:
    span = max(1, last - first)
    return PAD_L + (ply - first) / span * (WIDTH - PAD_L - PAD_R)


def _y(value: float) -> float:
    return PAD_T + (1.0 - value) * (HEIGHT - PAD_T - PAD_B)


def graph_svg(game: dict[str, Any]) -> str:
    """Black's winrate over the judged positions as an inline SVG (see the module docstring)."""
    trail = game["trail"]
    if not trail:
        return '<svg xmlns="http://www.w3.org/2000/svg" class="eval-graph" width="300" height="30"><text x="6" y="20">nothing judged</text></svg>'
    first, last = trail[0]["ply"], len(game["moves"])
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="eval-graph" viewBox="0 0 {WIDTH} {HEIGHT}" '
             f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="black\'s winrate by move">']
    for value, label in ((1.0, "black wins"), (0.5, "50%"), (0.0, "white wins")):
        y = _y(value)
        parts.append(f'<line x1="{PAD_L}" y1="{y:.1f}" x2="{WIDTH - PAD_R}" y2="{y:.1f}" stroke="{"#999" if value == 0.5 else "#ddd"}" '
                     f'stroke-dasharray="{"4 3" if value == 0.5 else ""}"/>')
        parts.append(f'<text x="{PAD_L - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end" fill="#555">{int(value * 100)}%</text>')
    step = next(v for v in (1, 2, 5, 10, 20, 50, 100) if (last - first) / v <= 12)
    for n in range((first // step) * step, last + 1, step):
        if n < first:
            continue
        x = _x(n, first, last)
        parts.append(f'<text x="{x:.1f}" y="{HEIGHT - 8}" font-size="10" text-anchor="middle" fill="#555">{n}</text>')
    points = []
    for p in trail:
        if p["black"] is None:
            continue
        points.append((p["ply"], p["black"], p["proven"]))
    if game["winner"] and game["ending"] == "five":  # the final five: the game is decided
        points.append((last, 1.0 if game["winner"] == "black" else 0.0, game["winner"]))
    if points:
        path = " ".join(f"{_x(ply, first, last):.1f},{_y(v):.1f}" for ply, v, _ in points)
        parts.append(f'<polyline class="trail" points="{path}" fill="none" stroke="#1d3f66" stroke-width="1.6"/>')
        for ply, v, proven in points:
            colour = "#111" if proven == "black" else "#fff" if proven == "white" else "#1d3f66"
            parts.append(f'<circle class="point" data-ply="{ply}" cx="{_x(ply, first, last):.1f}" cy="{_y(v):.1f}" '
                         f'r="{3 if proven else 2}" fill="{colour}" stroke="#1d3f66" stroke-width="1">'
                         f'<title>after move {ply}: black {percent(v)}{" (proven)" if proven else ""}</title></circle>')
    lost = game["lost_at"]
    if lost is not None:
        x = _x(lost["ply"], first, last)
        parts.append(f'<line class="lost-at" x1="{x:.1f}" y1="{PAD_T}" x2="{x:.1f}" y2="{HEIGHT - PAD_B}" stroke="#a4281b" '
                     f'stroke-dasharray="5 3"><title>lost by force after move {lost["ply"]}</title></line>')
    cursor_x = _x(last, first, last)
    parts.append(f'<line class="cursor" x1="{cursor_x:.1f}" y1="{PAD_T}" x2="{cursor_x:.1f}" y2="{HEIGHT - PAD_B}" '
                 f'stroke="#e0412f" stroke-width="1" opacity="0.6"/>')
    width = (WIDTH - PAD_L - PAD_R) / max(1, last - first)
    for n in range(first, last + 1):  # click anywhere over a move to see the board there
        parts.append(f'<rect class="ply-hit" data-ply="{n}" x="{_x(n, first, last) - width / 2:.1f}" y="{PAD_T}" '
                     f'width="{width:.1f}" height="{HEIGHT - PAD_T - PAD_B}"/>')
    for i, b in enumerate(game["blunders"]):
        ply = b["ply"] + 1
        value = next((p["black"] for p in trail if p["ply"] == ply and p["black"] is not None), 0.5)
        parts.append(f'<circle class="blunder-mark" data-blunder="{i}" data-ply="{ply}" cx="{_x(ply, first, last):.1f}" '
                     f'cy="{_y(value):.1f}" r="6" fill="#e0412f" stroke="#fff" stroke-width="1.5">'
                     f'<title>move {b["move_number"]} {html.escape(square(tuple(b["move"])))} by {b["colour"]}: a blunder</title></circle>')
    parts.append("</svg>")
    return "".join(parts)


def _blunder_rows(game: dict[str, Any]) -> str:
    e = html.escape
    rows = []
    for i, b in enumerate(game["blunders"]):
        held = " ".join(f'{square(tuple(c["move"]))} ({percent(c["winrate"])})' for c in b["candidates"] if c["holds"])
        held = held or (f'none of {len(b["candidates"])} checked' if b["candidates"] else "-")
        mark = " (the loss began here)" if b["starts_loss"] else ""
        rows.append(
            f'<tr class="blunder" data-blunder="{i}" data-ply="{b["ply"] + 1}"><td>{b["move_number"]}</td><td>{e(b["colour"])} '
            f'({e(b["player"])})</td><td>{square(tuple(b["move"]))}</td><td>{percent(b["before"])}</td>'
            f'<td>{e(line_text([tuple(s) for s in b["refutation"]]))}</td><td>{e(held)}{mark}</td></tr>'
        )
    if not rows:
        return '<p class="muted clean">No blunder found.</p>'
    return ('<table class="blunders"><thead><tr><th>move</th><th>side</th><th>played</th><th>before</th>'
            '<th>refutation (the opponent wins)</th><th>held by</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")


def _game_section(i: int, game: dict[str, Any]) -> str:
    e = html.escape
    result = f'{game["winner"]} won' if game["winner"] else "no winner"
    ending = f' ({e(game["ending"])})' if game["ending"] else ""
    lost = game["lost_at"]
    finding = (f'lost by force after move {lost["ply"]}' if lost and not lost["from_start"]
               else "lost by force from the first judged move" if lost else "no proven win before the end")
    return (
        f'<details class="game analysed" data-index="{i}"{" open" if i == 0 else ""}><summary>{e(game["label"])}: '
        f'<b>{e(game["black"])}</b> (black) vs <b>{e(game["white"])}</b> (white), {e(game["rule"])}, {e(result)}'
        f'{ending}, {len(game["moves"])} moves; '
        f'{len(game["blunders"])} blunders</summary>'
        f'<p class="findings muted">{e(finding)}</p>'
        f'<div class="graph">{graph_svg(game)}</div>{_blunder_rows(game)}'
        f'<div class="replay"></div></details>'
    )


def _board_game(game: dict[str, Any]) -> dict[str, Any]:
    """What `GomokuBoard.replay` needs, plus each blunder's refutation as ghost stones."""
    pv_at = {str(b["ply"] + 1): b["refutation"] for b in game["blunders"] if b["refutation"]}
    return {"black": game["black"], "white": game["white"], "width": game["board"][0], "height": game["board"][1],
            "moves": [[x, y, 0] for x, y in game["moves"]], "result": game["winner"] or "no winner",
            "ending": game["ending"] or "?", "detail": "", "opening_stones": game["opening_stones"], "pv_at": pv_at}


def render_page(doc: dict[str, Any], title: str = "gomocup-tournament analyse") -> str:
    e = html.escape
    s, info = doc["settings"], doc["summary"]
    bits = [f'analyser {e(str(s.get("analyser")))}', f'{s.get("fast")} s per position, {s.get("deep")} s deep',
            f'{info["games"]} games', f'made {e(str(s.get("made", "")))}']
    whose = f'{e(info["engine"])}\'s' if info["engine"] else "the"
    lines = [f'{info["games"]} games, {info["positions"]} positions judged ({info["deep_positions"]} deeply), '
             f'{info["blunders"]} blunders.']
    if info["losses"]:
        lines.append(f'{whose} {info["losses"]} losses: {info["lost_by_force"]} lost by force, {info["began_with_blunder"]} began '
                     f'with a blunder ({info["began_with_blunder_holding_found"]} with a holding move found, '
                     f'{info["began_with_blunder_from_even_or_better"]} of them from an even or better position).')
    games = doc["games"]
    sections = "".join(_game_section(i, g) for i, g in enumerate(games))
    board_games = json_for_script([_board_game(g) for g in games])
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(title)}</title>
<style>{static_text("style.css")}{STYLE}</style></head>
<body class="report analyse">
<header><h1>{e(title)}</h1><p class="muted">{" · ".join(bits)}</p></header>
<main>
<section><h2>Summary</h2><p id="summary">{" ".join(lines)}</p>
<p class="muted">A blunder is a move after which the opponent has a forced win (proven by the analysing engine) that the
position before did not have. The graph shows black's winrate before every move (filled dots: proven); red marks are
blunders, the dashed line the move after which the game was lost by force. Click a blunder to see it on the board with
the refutation as numbered ghost stones; click the graph to go to a move.</p></section>
<section><h2>Games</h2><div id="games">{sections}</div></section>
</main>
<script>{static_text("board.js")}</script>
<script>
const GAMES = {board_games};
document.querySelectorAll("details.game.analysed").forEach(function (d) {{
  var board = null, game = GAMES[+d.dataset.index];
  var svg = d.querySelector("svg.eval-graph"), cursor = d.querySelector("line.cursor");
  function ready() {{
    if (!board) board = GomokuBoard.replay(d.querySelector(".replay"), game, moved);
    return board;
  }}
  function moved(k) {{
    if (!cursor) return;
    var hit = d.querySelector('.ply-hit[data-ply="' + k + '"]');
    if (!hit) return;
    var x = +hit.getAttribute("x") + (+hit.getAttribute("width")) / 2;
    cursor.setAttribute("x1", x); cursor.setAttribute("x2", x);
  }}
  function show(k, blunder) {{
    d.open = true;
    ready().go(k);
    d.querySelectorAll("tr.blunder").forEach(function (r) {{ r.classList.toggle("sel", r.dataset.blunder === blunder); }});
  }}
  d.addEventListener("toggle", function () {{ if (d.open) ready(); }});
  if (d.open) ready();
  d.querySelectorAll(".blunder-mark, tr.blunder").forEach(function (el) {{
    el.addEventListener("click", function () {{ show(+el.dataset.ply, el.dataset.blunder); }});
  }});
  d.querySelectorAll(".ply-hit").forEach(function (el) {{
    el.addEventListener("click", function () {{ show(+el.dataset.ply, null); }});
  }});
}});
</script>
</body></html>
"""
