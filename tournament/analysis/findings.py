"""What an analysis of a game found, and the rules that turn evaluations into findings.

No engine here: `tournament.analysis.analyser` fills the evaluations, this module judges them, so the
definitions can be read (and tested) in one place:

- an evaluation (`Eval`) is *proven* when the engine reports a mate score, or a winrate of exactly
  0 or 100 % with no evaluation beside it (our brain's root threat checks, a database's `M*`): a
  winrate of 100 % next to a plain evaluation is only a big advantage;
- a **blunder** is a move after which the opponent has a proven forced win while the position
  before was not proven lost for the mover;
- the game became **lost by force** at the first position of the final stretch in which every
  position is a proven win for the eventual winner (the stretch runs to the end of the game);
- a loss **began with a blunder from an even or better position** when the move into that stretch
  was the loser's blunder and the loser's winrate before it was at least `EVEN` (45 %, so a
  slightly worse but balanced position counts as even).

Everything is "as far as the analysing engine can see at its budget": a forced win it does not
find is not there, and the judged move's alternatives are checked, not proven.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from protocol.judge import BLACK, WHITE
from tournament.api.info import Info
from tournament.api.position import Position, Square
from tournament.analysis.records import GameSource

EVEN = 0.45  # a mover's winrate from which a position counts as even or better
EVAL_SCALE = 400.0  # engines that give only an evaluation: winrate = logistic(eval / EVAL_SCALE)


def colour_name(colour: int | None) -> str | None:
    return None if colour is None else ("black" if colour == BLACK else "white")


@dataclass(frozen=True)
class Eval:
    """One position's evaluation, from the side to move's point of view.

    `winrate` is 0..1 (None: the engine said nothing usable), `proven` +1 / -1 for a forced win /
    loss of the side to move, 0 otherwise; `mate` the plies to the end when the engine said;
    `pv` the engine's line, `best` its move; `seconds` the budget it had, `depth` as it said.
    `via` is set when the value was read from the position after the engine's (forced) move.
    """

    winrate: float | None
    proven: int = 0
    mate: int | None = None
    pv: tuple[Square, ...] = ()
    best: Square | None = None
    depth: int | None = None
    seconds: float = 0.0
    via: Square | None = None

    @property
    def known(self) -> bool:
        return self.winrate is not None

    def flipped(self, move: Square) -> "Eval":
        """This evaluation of the position after `move`, seen from the side that played it."""
        return Eval(None if self.winrate is None else 1.0 - self.winrate, -self.proven, self.mate,
                    (move, *self.pv), move, self.depth, self.seconds, via=move)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"winrate": None if self.winrate is None else round(self.winrate, 4),
                               "proven": self.proven, "seconds": self.seconds}
        if self.mate is not None:
            out["mate"] = self.mate
        if self.depth is not None:
            out["depth"] = self.depth
        if self.best is not None:
            out["best"] = list(self.best)
        if self.pv:
            out["pv"] = [list(s) for s in self.pv]
        if self.via is not None:
            out["via"] = list(self.via)
        return out


def eval_from_info(info: Info, seconds: float) -> Eval:
    """Read an engine's `Info` (see the module docstring for what counts as proven)."""
    proven = 0
    if info.depth == 0 and info.mate is None and info.winrate not in (0.0, 1.0):
        # a search that did not finish one ply (our brain's "stop single": one move left by its
        # threat checks; a search cut at once) reports a placeholder, not an evaluation
        return Eval(None, best=info.best, seconds=seconds)
    if info.mate is not None and info.mate != 0:
        proven = 1 if info.mate > 0 else -1
    elif info.eval is None and info.winrate in (0.0, 1.0):
        proven = 1 if info.winrate == 1.0 else -1
    if proven:
        winrate: float | None = 1.0 if proven > 0 else 0.0
    elif info.winrate is not None:
        winrate = info.winrate
    elif info.eval is not None:
        winrate = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, info.eval / EVAL_SCALE))))
    else:
        winrate = None
    return Eval(winrate, proven, abs(info.mate) if info.mate else None, tuple(info.pv), info.best,
                info.depth, seconds)


@dataclass
class Ply:
    """The position with `index` moves on the board, whose side to move played `move` in the game.

    `fast` and `deep` are the two passes' evaluations (either may be missing). `eval` is the one
    that counts: a proof beats no proof (a deeper search can lose a proof a shallower one found,
    when its threat search splits its nodes differently), else the deep one. `implied` is the
    side to move when the move it played leads to a position proven won for it: then this
    position is proven too, whatever the engine said of it.
    """

    index: int
    to_move: int
    move: Square
    fast: Eval | None = None
    deep: Eval | None = None
    implied: int = 0

    @property
    def eval(self) -> Eval | None:
        fast, deep = self.fast, self.deep
        if deep is None or not deep.known:
            return fast
        if fast is not None and fast.proven and not deep.proven:
            return fast
        return deep

    def winrate_for(self, colour: int) -> float | None:
        if self.implied:
            return 1.0 if colour == self.implied else 0.0
        e = self.eval
        if e is None or e.winrate is None:
            return None
        return e.winrate if colour == self.to_move else 1.0 - e.winrate

    def proven_for(self, colour: int) -> bool:
        """Does `colour` have a proven forced win here?"""
        if self.implied:
            return self.implied == colour
        e = self.eval
        if e is None or not e.proven:
            return False
        return (e.proven > 0) == (colour == self.to_move)


@dataclass(frozen=True)
class Candidate:
    """Another move for the blunderer, checked at the deep budget: `holds` unless the opponent
    then has a proven win; `winrate` is the mover's after it."""

    move: Square
    holds: bool
    winrate: float | None
    line: tuple[Square, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"move": list(self.move), "holds": self.holds,
                               "winrate": None if self.winrate is None else round(self.winrate, 4)}
        if self.line:
            out["line"] = [list(s) for s in self.line]
        return out


@dataclass
class Blunder:
    """A move that let a forced win in (see the module docstring), at position `ply` (the move is
    number ply + 1). `refutation` is the opponent's winning line after it; `candidates` the
    alternatives checked, those that hold first."""

    ply: int
    colour: int
    move: Square
    before: float | None
    refutation: tuple[Square, ...] = ()
    mate: int | None = None
    candidates: list[Candidate] = field(default_factory=list)
    starts_loss: bool = False

    @property
    def holding(self) -> list[Square]:
        return [c.move for c in self.candidates if c.holds]

    @property
    def even_or_better(self) -> bool:
        return self.before is not None and self.before >= EVEN


@dataclass
class GameAnalysis:
    """One game's findings. `plies` are the judged positions (after the opening, before the end)."""

    game: GameSource
    plies: list[Ply]
    blunders: list[Blunder] = field(default_factory=list)
    lost_at: int | None = None  # first position of the winner's proven stretch
    errors: list[str] = field(default_factory=list)

    def ply(self, index: int) -> Ply | None:
        start = self.plies[0].index if self.plies else 0
        k = index - start
        return self.plies[k] if 0 <= k < len(self.plies) else None

    @property
    def loss_blunder(self) -> Blunder | None:
        """The loser's blunder that led into the final lost stretch, if the loss began with one."""
        return next((b for b in self.blunders if b.starts_loss), None)

    def position_before(self, index: int) -> Position:
        final = self.game.position
        return Position(final.width, final.height, final.rules, final.moves[:index])


def plies_of(game: GameSource) -> list[Ply]:
    """The positions to judge: from the end of the opening to the last move (a finished game's
    final position has nothing to play)."""
    moves = game.position.moves
    return [Ply(i, BLACK if i % 2 == 0 else WHITE, moves[i]) for i in range(game.opening_stones, len(moves))]


def proven_stretch_start(analysis: GameAnalysis, winner: int | None) -> int | None:
    """The first position of the final stretch proven for `winner` (None when the last judged
    position is not proven for it: a loss on time, a draw, a win the engine did not see)."""
    if winner is None:
        return None
    start = None
    for ply in reversed(analysis.plies):
        if not ply.proven_for(winner):
            break
        start = ply.index
    return start


def _imply(plies: list[Ply]) -> None:
    """Back from the end: a side whose played move leads to a position proven won for it has a
    proven win before the move too (unless the engine proved the opposite there)."""
    for k in range(len(plies) - 1, -1, -1):
        ply = plies[k]
        ply.implied = 0
        after = plies[k + 1] if k + 1 < len(plies) else None
        if after is None or not after.proven_for(ply.to_move):
            continue
        e = ply.eval
        if e is not None and e.proven < 0:
            continue  # the engine contradicts itself; its word on this position stands
        ply.implied = ply.to_move


def assess(analysis: GameAnalysis) -> None:
    """Fill `blunders` and `lost_at` from the evaluations (the candidates found for a blunder
    are kept when it is found again)."""
    old = {b.ply: b for b in analysis.blunders}
    analysis.blunders = []
    plies = analysis.plies
    _imply(plies)
    for k in range(len(plies) - 1):
        ply, after = plies[k], plies[k + 1]
        opponent = WHITE if ply.to_move == BLACK else BLACK
        if not after.proven_for(opponent) or ply.proven_for(opponent):
            continue
        e_after = after.eval
        blunder = Blunder(ply.index, ply.to_move, ply.move, ply.winrate_for(ply.to_move),
                          refutation=_line(plies, k + 1), mate=e_after.mate if e_after else None)
        if ply.index in old:
            blunder.candidates = old[ply.index].candidates
        analysis.blunders.append(blunder)
    winner = analysis.game.winner
    analysis.lost_at = proven_stretch_start(analysis, winner)
    for b in analysis.blunders:
        b.starts_loss = analysis.lost_at is not None and b.ply + 1 == analysis.lost_at and b.colour != winner


def _line(plies: list[Ply], k: int) -> tuple[Square, ...]:
    """The winning line from proven position `k`: the engine's PV there if it proved it itself,
    else (proven by the move played) that move and the line after it."""
    ply = plies[k]
    e = ply.eval
    if e is not None and e.proven and e.pv:
        return e.pv
    if ply.implied and k + 1 < len(plies):
        return (ply.move, *_line(plies, k + 1))
    return e.pv if e is not None else ()
