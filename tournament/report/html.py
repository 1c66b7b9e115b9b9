"""`gomocup-tournament report DB --html FILE`: the results of a database as one self-contained HTML file.

Standings with Elo ± 95 % error (table and an inline SVG chart), the crosstable, each engine's points by
colour and opening size, how games ended, the
SPRT state of a match that has one, and every game as a board that replays move by move (an SVG drawn
by the page's own script, the same `board.js` the web board uses). No external resource is referenced:
the file opens offline and can be mailed around.

`summary()` is also what the web board's watch view serves as JSON, so both show the same numbers.
Only the standard library and the tournament's own modules are used (no web framework).
"""
from __future__ import annotations

import datetime as dt
import html
import json
import math
from collections import Counter, defaultdict
from importlib import resources
from pathlib import Path
from typing import Any

from protocol.rules import RuleError, Rules
from tournament.game.endings import Ending
from tournament.game.record import GameRecord
from tournament.report.tables import colour_tallies, standings
from tournament.results.store import Store


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, 3)


def _rule_name(code: int) -> str:
    try:
        return Rules.from_code(code).name
    except RuleError:
        return f"rule {code}"


def game_json(g: GameRecord, with_moves: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {
        "slot": g.slot,
        "black": g.black,
        "white": g.white,
        "result": g.result_text,
        "winner": g.winner,
        "ending": g.ending.value,
        "description": g.ending.description,
        "detail": g.detail[:300],
        "width": g.width,
        "height": g.height,
        "rule": _rule_name(g.rule),
        "opening_stones": g.opening_stones,
        "plies": len(g.moves),
        "started": g.started,
        "duration": round(g.duration, 2),
    }
    if with_moves:
        out["moves"] = [[mv.x, mv.y, mv.ms] for mv in g.moves]
    return out


def _sprt(games: list[GameRecord], config: dict[str, Any] | None) -> dict[str, Any] | None:
    if not config or not config.get("sprt") or len(config.get("engines", [])) != 2:
        return None
    from tournament.play.runner import SprtSettings, sprt_state  # the runner's own SPRT, as the match uses it

    settings = SprtSettings(**config["sprt"])
    first, second = (e["name"] for e in config["engines"])
    couple = [g for g in games if {g.black, g.white} == {first, second}]
    state = sprt_state(couple, first, settings)
    return {
        "engine": first, "opponent": second, "elo0": settings.elo0, "elo1": settings.elo1,
        "alpha": settings.alpha, "beta": settings.beta, "pentanomial": settings.pentanomial,
        "llr": _finite(state.llr), "lower": _finite(state.lower), "upper": _finite(state.upper),
        "decision": state.decision, "games": len(couple),
    }


def summary(games: list[GameRecord], config: dict[str, Any] | None = None, *, with_moves: bool = True) -> dict[str, Any]:
    """Everything the HTML report and the watch view show, as plain JSON-able data."""
    rows = standings(games)
    names = [s.name for s in rows]
    points: Counter = Counter()
    played: Counter = Counter()
    endings: Counter = Counter()
    losses_by: dict[str, Counter] = defaultdict(Counter)
    for g in games:
        endings[g.ending.value] += 1
        if g.loser is not None and g.ending is not Ending.FIVE:  # the column counts losses not by five
            losses_by[g.loser][g.ending.value] += 1
        for me, other in ((g.black, g.white), (g.white, g.black)):
            points[(me, other)] += g.score_for(me)
            played[(me, other)] += 1
    cross = [
        [None if a == b or not played[(a, b)] else [points[(a, b)], played[(a, b)]] for b in names] for a in names
    ]
    settings: dict[str, Any] = {}
    if config:
        tc = config.get("time", {})
        settings = {
            "kind": config.get("kind"),
            "board": config.get("board"),
            "rule": _rule_name(config.get("rule", 0)),
            "turn_ms": tc.get("turn_ms"),
            "match_ms": tc.get("match_ms"),
        }
    return {
        "settings": settings,
        "games_count": len(games),
        "standings": [
            {
                "name": s.name, "elo": _finite(s.elo), "error95": _finite(s.error95), "games": s.games,
                "wins": s.wins, "draws": s.draws, "losses": s.losses, "score": s.score,
                "los_next": _finite(s.los_next), "avg_ms": round(s.avg_ms), "peak_mib": round(s.peak_rss / 2**20, 1),
            }
            for s in rows
        ],
        "crosstable": {"names": names, "cells": cross},
        "by_colour": _by_colour(games, names),
        "endings": dict(endings.most_common()),
        "losses_by": {name: dict(c.most_common()) for name, c in losses_by.items()},
        "sprt": _sprt(games, config),
        "chart": elo_chart_svg(rows),
        "games": [game_json(g, with_moves) for g in games],
    }


def _by_colour(games: list[GameRecord], names: list[str]) -> dict[str, Any]:
    tallies = colour_tallies(games, names)
    return {
        "columns": [{"colour": colour, "stones": k} for colour, k in tallies.columns],
        "rows": [{"name": name, "cells": [None if c is None else [c[0], c[1]] for c in cells]} for name, cells in tallies.rows],
    }


def elo_chart_svg(rows: list) -> str:  # noqa: ANN001 - report.Standing rows
    """Horizontal Elo chart: a dot per engine and its 95 % interval as a bar (infinite errors drawn to the edge)."""
    if not rows:
        return '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="40" class="elo-chart"><text x="10" y="25">no games yet</text></svg>'
    row_h, label_w, plot_w, pad = 26, 150, 460, 16
    finite = [s.error95 for s in rows if math.isfinite(s.error95)]
    span = max([abs(s.elo) + (e if math.isfinite(e) else 0) for s, e in ((s, s.error95) for s in rows)] + [50.0])
    span = min(span, max(abs(s.elo) for s in rows) + (max(finite) if finite else 200.0) + 10)
    span = max(span, 50.0)
    step = next(v for v in (10, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 1e9) if span / v <= 4)
    span = math.ceil(span / step) * step
    width = label_w + plot_w + 2 * pad
    height = pad * 2 + row_h * len(rows) + 20

    def px(elo: float) -> float:
        elo = max(-span, min(span, elo))
        return label_w + pad + (elo + span) / (2 * span) * plot_w

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="elo-chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" aria-label="Elo with 95% error bars">']
    top, bottom = pad, pad + row_h * len(rows)
    tick = -span
    while tick <= span + 1e-9:
        x = px(tick)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="{"#888" if tick == 0 else "#ddd"}" stroke-width="1"/>')
        parts.append(f'<text x="{x:.1f}" y="{bottom + 14}" font-size="11" text-anchor="middle" fill="#555">{tick:+.0f}</text>')
        tick += step
    for i, s in enumerate(rows):
        y = top + row_h * i + row_h / 2
        err = s.error95 if math.isfinite(s.error95) else 2 * span
        lo, hi = px(s.elo - err), px(s.elo + err)
        name = html.escape(s.name[:22])
        shown = f"{s.elo:+.0f} ± {s.error95:.0f}" if math.isfinite(s.error95) else f"{s.elo:+.0f} ± inf"
        parts.append(f'<text x="{label_w}" y="{y + 4:.1f}" font-size="12" text-anchor="end">{name}</text>')
        parts.append(f'<line x1="{lo:.1f}" y1="{y:.1f}" x2="{hi:.1f}" y2="{y:.1f}" stroke="#3a6ea5" stroke-width="4" stroke-linecap="round" opacity="0.45"/>')
        parts.append(f'<circle cx="{px(s.elo):.1f}" cy="{y:.1f}" r="5" fill="#1d3f66"><title>{name}: {shown}</title></circle>')
    parts.append("</svg>")
    return "".join(parts)


def static_text(name: str) -> str:
    """A file of the web board's static folder (the board script and the style sheet are shared)."""
    return resources.files("tournament.web").joinpath("static", name).read_text(encoding="utf-8")


def json_for_script(data: Any) -> str:
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_html(data: dict[str, Any], title: str) -> str:
    e = html.escape
    s = data["settings"]
    bits = []
    if s.get("kind"):
        bits.append(e(str(s["kind"])))
    if s.get("board"):
        bits.append(f'{s["board"][0]}x{s["board"][1]}')
    if s.get("rule"):
        bits.append(e(s["rule"]))
    if s.get("turn_ms") is not None:
        bits.append(f'{s["turn_ms"] / 1000:g} s/move')
    if s.get("match_ms") is not None:
        bits.append(f'{s["match_ms"] / 1000:g} s/game')
    bits.append(f'{data["games_count"]} games')
    made = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")

    standing_rows = []
    for i, r in enumerate(data["standings"], 1):
        err = "inf" if r["error95"] is None else f'{r["error95"]:.0f}'
        los = "" if r["los_next"] is None else f'{100 * r["los_next"]:.0f}%'
        pct = 100.0 * r["score"] / r["games"] if r["games"] else 0.0
        faults = ", ".join(f"{e(k)} {v}" for k, v in sorted(data["losses_by"].get(r["name"], {}).items())) or "-"
        standing_rows.append(
            f'<tr class="standing"><td>{i}</td><td class="name">{e(r["name"])}</td><td>{r["elo"]:+.0f}</td><td>{err}</td>'
            f'<td>{r["games"]}</td><td>{r["score"]:g}</td><td>{pct:.1f}</td><td>{r["wins"]}-{r["draws"]}-{r["losses"]}</td>'
            f'<td>{los}</td><td>{r["avg_ms"]}</td><td>{r["peak_mib"] or "-"}</td><td>{faults}</td></tr>'
        )
    names = data["crosstable"]["names"]
    cross_rows = []
    for name, cells in zip(names, data["crosstable"]["cells"]):
        tds = "".join(
            '<td class="self">·</td>' if other == name else ("<td>-</td>" if c is None else f"<td>{c[0]:g}/{c[1]}</td>")
            for other, c in zip(names, cells)
        )
        cross_rows.append(f'<tr><th class="name">{e(name)}</th>{tds}</tr>')
    colour = data["by_colour"]
    colour_head = "".join(f'<th>{e(c["colour"])} {c["stones"]}</th>' for c in colour["columns"])
    colour_rows = "".join(
        f'<tr><th class="name">{e(r["name"])}</th>'
        + "".join("<td>-</td>" if c is None else f'<td>{c[0]:g}/{c[1]} ({100 * c[0] / c[1]:.0f} %)</td>' for c in r["cells"])
        + "</tr>"
        for r in colour["rows"]
    )
    ending_rows = "".join(f"<tr><td>{e(k)}</td><td>{v}</td></tr>" for k, v in data["endings"].items())
    sprt_html = '<p class="muted">No SPRT in this tournament.</p>'
    if data["sprt"]:
        p = data["sprt"]
        state = {"H1": f"accepted H1: {e(p['engine'])} is at least {p['elo1']:g} Elo stronger",
                 "H0": f"accepted H0: {e(p['engine'])} is not more than {p['elo0']:g} Elo stronger"}.get(p["decision"], "undecided: the match goes on")
        llr = "n/a" if p["llr"] is None else f'{p["llr"]:.3f}'
        sprt_html = (
            f'<p id="sprt">{e(p["engine"])} vs {e(p["opponent"])}: H0 elo ≤ {p["elo0"]:g}, H1 elo ≥ {p["elo1"]:g} '
            f'(α {p["alpha"]:g}, β {p["beta"]:g}, {"pentanomial" if p["pentanomial"] else "trinomial"}); '
            f'LLR <b>{llr}</b> in [{p["lower"]:.3f}, {p["upper"]:.3f}] after {p["games"]} games: <b>{state}</b></p>'
        )
    game_items = []
    for i, g in enumerate(data["games"]):
        game_items.append(
            f'<details class="game" data-index="{i}"><summary>#{g["slot"]} <b>{e(g["black"])}</b> (black) vs '
            f'<b>{e(g["white"])}</b> (white): {e(g["result"])}, {e(g["ending"])}, {g["plies"]} stones</summary>'
            f'<div class="replay"></div></details>'
        )
    games_json = json_for_script(data["games"])
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(title)}</title>
<style>{static_text("style.css")}</style></head>
<body class="report">
<header><h1>{e(title)}</h1><p class="muted">{" · ".join(bits)} · made {made}</p></header>
<main>
<section><h2>Standings</h2>
<table id="standings"><thead><tr><th>#</th><th>engine</th><th>Elo</th><th>±95%</th><th>games</th><th>score</th><th>%</th><th>W-D-L</th><th>LOS</th><th>ms/move</th><th>MiB</th><th>losses not by five</th></tr></thead>
<tbody>{"".join(standing_rows) or '<tr><td colspan="12">no games yet</td></tr>'}</tbody></table>
<figure>{data["chart"]}<figcaption>Elo (mean 0) with 95 % intervals: maximum-likelihood logistic fit, draws count half.</figcaption></figure>
</section>
<section><h2>Crosstable</h2><p class="muted">points / games of the row engine against the column engine</p>
<table id="crosstable"><thead><tr><th></th>{"".join(f"<th>{e(n[:12])}</th>" for n in names)}</tr></thead><tbody>{"".join(cross_rows)}</tbody></table></section>
<section><h2>By colour</h2><p class="muted">points / games of each engine as black and as white, by the opening's number of stones:
an opening set balanced as a whole need not be balanced by colour</p>
<table id="by-colour"><thead><tr><th></th>{colour_head}</tr></thead><tbody>{colour_rows}</tbody></table></section>
<section><h2>How games ended</h2><table id="endings"><thead><tr><th>ending</th><th>games</th></tr></thead><tbody>{ending_rows}</tbody></table></section>
<section><h2>SPRT</h2>{sprt_html}</section>
<section><h2>Games</h2><p class="muted">Open a game to replay it: drag the slider or use the buttons.</p>
<div id="games">{"".join(game_items)}</div></section>
</main>
<script>{static_text("board.js")}</script>
<script>
const GAMES = {games_json};
document.querySelectorAll("details.game").forEach(function (d) {{
  d.addEventListener("toggle", function () {{
    if (d.open && !d.dataset.ready) {{
      d.dataset.ready = "1";
      GomokuBoard.replay(d.querySelector(".replay"), GAMES[+d.dataset.index]);
    }}
  }});
}});
</script>
</body></html>
"""


def write_html_report(db: str | Path, out: str | Path) -> int:
    """Write the report of database `db` to `out`; returns the number of games in it."""
    with Store(db) as store:
        games = store.games()
        config = store.get_config()
    data = summary(games, config)
    title = f"gomocup-tournament report: {Path(db).name}"
    Path(out).write_text(render_html(data, title), encoding="utf-8")
    return len(games)
