"""An analysis as data and as text: the `--json` document and the terminal table.

The JSON keeps everything a later tool needs without the records: each game's moves, rule and
board, the evaluation of every judged position from both sides, and each blunder with the
position before it, the refutation and the alternatives checked (so a test set of defences can
be cut from it). Squares are `[x, y]`, 0-based, as on the wire; move numbers count from 1 and
include opening stones (move n is played on the position with n - 1 stones).
"""
from __future__ import annotations

from typing import Any

from protocol.judge import BLACK, WHITE
from tournament.analysis.findings import Blunder, GameAnalysis, Ply, colour_name
from tournament.api.position import Square

JSON_VERSION = 1
BARS = "▁▂▃▄▅▆▇█"


def square(s: Square | None) -> str:
    return "-" if s is None else f"{s[0]},{s[1]}"


def line_text(line: tuple[Square, ...] | list[Square], limit: int = 10) -> str:
    shown = " ".join(square(s) for s in line[:limit])
    return shown + (" ..." if len(line) > limit else "") if line else "-"


def percent(value: float | None) -> str:
    return "?" if value is None else f"{100 * value:.0f}%"


# ---------------------------------------------------------------------------------------- JSON

def ply_json(ply: Ply) -> dict[str, Any]:
    e = ply.eval
    black = ply.winrate_for(BLACK)
    proven = BLACK if ply.proven_for(BLACK) else WHITE if ply.proven_for(WHITE) else None
    out: dict[str, Any] = {
        "ply": ply.index, "move_number": ply.index + 1, "to_move": colour_name(ply.to_move), "move": list(ply.move),
        "black": None if black is None else round(black, 4), "white": None if black is None else round(1 - black, 4),
        "proven": colour_name(proven), "pass": "deep" if ply.deep is not None and e is ply.deep else "fast",
    }
    if ply.implied:
        out["implied"] = True
    if e is not None:
        out["eval"] = e.as_dict()
    return out


def blunder_json(analysis: GameAnalysis, b: Blunder) -> dict[str, Any]:
    position = analysis.position_before(b.ply)
    game = analysis.game
    return {
        "ply": b.ply, "move_number": b.ply + 1, "colour": colour_name(b.colour), "player": game.name_of(b.colour),
        "move": list(b.move), "before": None if b.before is None else round(b.before, 4),
        "even_or_better": b.even_or_better, "starts_loss": b.starts_loss,
        "refutation": [list(s) for s in b.refutation], "mate": b.mate,
        "holding": [list(s) for s in b.holding],
        "candidates": [c.as_dict() for c in b.candidates],
        "position": {"rule": position.rules.name, "board": [position.width, position.height],
                     "moves": [[x, y, c] for x, y, c in position.stones()], "to_move": colour_name(position.to_move)},
    }


def game_json(analysis: GameAnalysis) -> dict[str, Any]:
    game = analysis.game
    position = game.position
    lost = analysis.lost_at
    return {
        "file": game.file, "number": game.number, "label": game.label, "black": game.black, "white": game.white,
        "winner": colour_name(game.winner), "ending": game.ending, "rule": position.rules.name,
        "board": [position.width, position.height], "opening_stones": game.opening_stones,
        "moves": [list(s) for s in position.moves],
        "lost_at": None if lost is None else {
            "ply": lost, "move_number": lost, "from_start": bool(analysis.plies) and lost == analysis.plies[0].index},
        "blunders": [blunder_json(analysis, b) for b in analysis.blunders],
        "trail": [ply_json(p) for p in analysis.plies],
        "errors": analysis.errors,
    }


def summary(analyses: list[GameAnalysis], engine: str | None = None) -> dict[str, Any]:
    """The counts over all games: losses (of `engine` when given, else every decisive game's
    loser), how many were lost by force, how many of those began with a blunder (with a holding
    alternative found), from an even or better position; blunders per player."""
    losses = lost_by_force = by_blunder = with_hold = from_even = 0
    per_player: dict[str, int] = {}
    for a in analyses:
        game = a.game
        for b in a.blunders:
            name = game.name_of(b.colour)
            per_player[name] = per_player.get(name, 0) + 1
        if game.loser is None or (engine is not None and game.name_of(game.loser) != engine):
            continue
        losses += 1
        if a.lost_at is None:
            continue
        lost_by_force += 1
        start = a.loss_blunder
        if start is None:
            continue
        by_blunder += 1
        if start.holding:
            with_hold += 1
            if start.even_or_better:
                from_even += 1
    return {
        "games": len(analyses), "engine": engine, "losses": losses, "lost_by_force": lost_by_force,
        "began_with_blunder": by_blunder, "began_with_blunder_holding_found": with_hold,
        "began_with_blunder_from_even_or_better": from_even,
        "blunders": sum(len(a.blunders) for a in analyses), "blunders_by_player": per_player,
        "positions": sum(len(a.plies) for a in analyses),
        "deep_positions": sum(1 for a in analyses for p in a.plies if p.deep is not None),
    }


def document(analyses: list[GameAnalysis], settings: dict[str, Any], engine: str | None = None) -> dict[str, Any]:
    """The whole `--json` document."""
    return {"version": JSON_VERSION, "settings": settings, "summary": summary(analyses, engine),
            "games": [game_json(a) for a in analyses]}


# ---------------------------------------------------------------------------------------- text

def sparkline(values: list[float | None], proven: list[int | None], colour: int) -> str:
    """One character per position: a bar for the winrate of `colour`, `#` a proven win for it,
    `_` a proven loss, `?` no evaluation."""
    out = []
    for value, who in zip(values, proven):
        if who is not None:
            out.append("#" if who == colour else "_")
        elif value is None:
            out.append("?")
        else:
            out.append(BARS[min(len(BARS) - 1, int(value * len(BARS)))])
    return "".join(out)


def game_text(analysis: GameAnalysis) -> str:
    game = analysis.game
    position = game.position
    result = f"{colour_name(game.winner)} won" if game.winner else "no winner"
    lines = [f"{game.label}: {game.black} (black) vs {game.white} (white), {position.rules.name}, "
             f"{result}{f' ({game.ending})' if game.ending else ''}, {len(position.moves)} moves"]
    plies = analysis.plies
    if not plies:
        lines.append("  nothing to judge (no move after the opening)")
        return "\n".join(lines)
    proven = [BLACK if p.proven_for(BLACK) else WHITE if p.proven_for(WHITE) else None for p in plies]
    black = [p.winrate_for(BLACK) for p in plies]
    first = plies[0].index + 1
    lines.append(f"  trail from move {first}, black's view: {sparkline(black, proven, BLACK)}")
    lines.append(f"  trail from move {first}, white's view: "
                 f"{sparkline([None if v is None else 1 - v for v in black], proven, WHITE)}")
    if analysis.lost_at is not None:
        loser = colour_name(game.loser)
        if analysis.lost_at == plies[0].index:
            lines.append(f"  {loser} was lost by force from the first judged position (move {first})")
        else:
            lines.append(f"  lost by force for {loser} after move {analysis.lost_at}")
    elif game.winner is not None:
        lines.append("  no proven win for the winner before the end (a loss not by force, or deeper than the engine saw)")
    if not analysis.blunders:
        lines.append("  no blunder found")
    else:
        lines.append(f"  {'move':>5}  {'side':5}  {'played':6}  {'before':>6}  {'refutation (the opponent wins)':40}  held by")
        for b in analysis.blunders:
            held = " ".join(f"{square(c.move)} ({percent(c.winrate)})" for c in b.candidates if c.holds)
            if not held:
                held = f"none of {len(b.candidates)} checked" if b.candidates else "-"
            mark = "  <- the loss began here" if b.starts_loss else ""
            lines.append(f"  {b.ply + 1:>5}  {colour_name(b.colour):5}  {square(b.move):6}  {percent(b.before):>6}  "
                         f"{line_text(b.refutation):40}  {held}{mark}")
    if analysis.errors:
        lines.append(f"  {len(analysis.errors)} positions without an evaluation (the engine failed or said nothing)")
    return "\n".join(lines)


def summary_text(info: dict[str, Any]) -> str:
    whose = f"{info['engine']}'s" if info["engine"] else "the"
    losses = info["losses"]
    out = [f"{info['games']} games, {info['positions']} positions judged ({info['deep_positions']} deeply); "
           f"{info['blunders']} blunders"
           + (": " + ", ".join(f"{k} {v}" for k, v in sorted(info["blunders_by_player"].items())) if info["blunders"] else "")]
    if losses:
        out.append(f"{whose} {losses} losses: {info['lost_by_force']} lost by force, "
                   f"{info['began_with_blunder']} began with a blunder "
                   f"({info['began_with_blunder_holding_found']} with a holding move found, "
                   f"{info['began_with_blunder_from_even_or_better']} of them from an even or better position)")
    return "\n".join(out)
