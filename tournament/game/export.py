"""Game records as files: Piskvork `.psq` (one per game) and SGF (the c-gomoku-cli dialect, GM[4]).

PSQ: header `Piskvorky WxH, 11:11, 0`, then `x,y,ms` lines with 1-based coordinates in move order
(opening stones take 0 ms), then the two engine names (black first) and `-1`, as GomocupJudge writes.
SGF: coordinates are letters from `a` = 0 (x first); the ending goes in TE[], times in move comments.
"""
from __future__ import annotations

import re
from pathlib import Path

from tournament.game.record import BLACK_WON, WHITE_WON, GameRecord

_SGF_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def to_psq(game: GameRecord) -> str:
    lines = [f"Piskvorky {game.width}x{game.height}, 11:11, 0"]
    lines += [f"{mv.x + 1},{mv.y + 1},{mv.ms}" for mv in game.moves]
    lines += [game.black, game.white, "-1"]
    return "\r\n".join(lines) + "\r\n"


def _sgf_text(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


def _sgf_point(x: int, y: int) -> str:
    return _SGF_LETTERS[x] + _SGF_LETTERS[y]


def to_sgf(game: GameRecord, event: str = "gomocup-tournament") -> str:
    size = str(game.width) if game.width == game.height else f"{game.width}:{game.height}"
    result = {BLACK_WON: "B+1", WHITE_WON: "W+1"}.get(game.result, "0")
    head = (
        f"(;FF[4]GM[4]GN[{game.slot + 1}]EV[{_sgf_text(event)}]DT[{game.started[:10]}]RO[{game.pair_index + 1}.{game.slot % 2 + 1}]"
        f"RU[{game.rule}]SZ[{size}]PB[{_sgf_text(game.black)}]PW[{_sgf_text(game.white)}]RE[{result}]"
        f"TE[{_sgf_text(game.ending.description)}]C[{_sgf_text(game.detail)}]"
    )
    body = []
    for i, mv in enumerate(game.moves):
        colour = "B" if i % 2 == 0 else "W"
        comment = "opening move" if i < game.opening_stones else f"{mv.ms}ms"
        body.append(f";{colour}[{_sgf_point(mv.x, mv.y)}]C[{comment}]")
    return head + "".join(body) + ")\n"


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", name)[:40]


def game_file_stem(game: GameRecord) -> str:
    return f"game{game.slot + 1:05d}_{_safe(game.black)}_vs_{_safe(game.white)}"


def write_game(game: GameRecord, psq_dir: str | Path | None = None, sgf_dir: str | Path | None = None) -> list[Path]:
    """Write the game's files into the given folders (created if needed); returns the paths written."""
    written = []
    for folder, suffix, text in ((psq_dir, ".psq", to_psq), (sgf_dir, ".sgf", to_sgf)):
        if folder is None:
            continue
        path = Path(folder)
        path.mkdir(parents=True, exist_ok=True)
        target = path / (game_file_stem(game) + suffix)
        target.write_text(text(game), encoding="utf-8", newline="")
        written.append(target)
    return written
