"""`tournament.analysis.analyser` against a scripted engine (no process): what a valueless answer means, where
the deep pass looks, how a blunder moves back when the position before it was lost too, and how the
alternatives are judged."""
from __future__ import annotations

from protocol.judge import BLACK, WHITE
from tournament.analysis.analyser import Analyser, Budget
from tournament.api.info import Info
from tournament.api.position import Position
from tournament.analysis.records import GameSource

# black fills row 7 from x=3; white's (9,9) at move 6 leaves black's open three alone
MOVES = [(3, 7), (3, 8), (4, 7), (4, 8), (5, 7), (9, 9), (6, 7), (0, 0), (7, 7)]


class ScriptedEngine:
    """Answers `analyse` from a table: (moves played, seconds) -> Info, or moves -> Info for any
    budget; anything else is an even position. Records what it was asked."""

    def __init__(self, table: dict) -> None:
        self.table = table
        self.asked: list[tuple[int, float]] = []

    async def analyse(self, position: Position, limit) -> Info:
        self.asked.append((len(position.moves), limit.turn))
        for key in ((position.moves, limit.turn), position.moves):
            if key in self.table:
                return self.table[key]
        return Info(depth=5, eval=0, winrate=0.5, move=position.legal_moves()[0])


def _analyser(table: dict, **budget) -> tuple[Analyser, ScriptedEngine]:
    engine = ScriptedEngine(table)
    return Analyser(engine, Budget(fast=0.1, deep=1.0, **budget)), engine  # type: ignore[arg-type]


async def test_a_valueless_answer_is_read_through_the_move() -> None:
    # black's open four on row 7 (3..6, both ends free): white's block at 7,7 cannot save it, but
    # a loss read through a move counts only when the move was the block of a single five point
    four = Position.from_moves([(3, 7), (3, 8), (4, 7), (4, 8), (5, 7), (9, 9), (6, 7)])
    quiet = Position.from_moves([(3, 7), (3, 8), (4, 7), (4, 8)])  # black to move, nothing forced
    single = Position.from_moves([(3, 7), (3, 8), (4, 7), (4, 8), (5, 7), (2, 7), (6, 7)])  # white must play 7,7
    table = {
        four.moves: Info(move=(7, 7)),  # "tactics block": no value
        four.push((7, 7)).moves: Info(mate=1, winrate=1.0, pv=((2, 7),)),
        quiet.moves: Info(move=(0, 0)),  # a search cut at once: a move, no value
        quiet.push((0, 0)).moves: Info(mate=3, winrate=1.0),  # ... and the opponent wins after it
        single.moves: Info(move=(7, 7)),
        single.push((7, 7)).moves: Info(mate=-4, winrate=0.0),  # black is lost after the block
    }
    analyser, _ = _analyser(table)
    assert not (await analyser.evaluate(four, 0.1)).known  # two five points: the block was no forced move
    assert not (await analyser.evaluate(quiet, 0.1)).known  # (0,0) may just be a bad move
    e = await analyser.evaluate(single, 0.1)
    assert e.proven == 1 and e.winrate == 1.0 and e.via == (7, 7)  # a win through any move is a win
    table[single.push((7, 7)).moves] = Info(mate=5, winrate=1.0)  # black wins after the block anyway
    analyser, _ = _analyser(table)
    e = await analyser.evaluate(single, 0.1)
    assert e.proven == -1 and e.best == (7, 7)  # the forced block loses: the position is lost


async def test_the_deep_pass_walks_back_to_the_first_blunder() -> None:
    game = GameSource("g.sgf", 1, Position.from_moves(MOVES), "B", "W", BLACK, "five", opening_stones=2)
    won, lost = Info(mate=3, winrate=1.0, pv=((6, 7), (2, 7))), Info(mate=-2, winrate=0.0)
    table = {
        # the fast pass sees black's win only after white's (0,0) at move 8 (position 7 lost)
        (tuple(MOVES[:7]), 0.1): lost, tuple(MOVES[:8]): won,
        # the deep pass: position 6 (black to move) wins, position 5 (white to move) is even:
        # white's (9,9) at move 6 was the blunder
        (tuple(MOVES[:6]), 1.0): won, (tuple(MOVES[:5]), 1.0): Info(depth=9, eval=-50, winrate=0.48, move=(2, 7)),
        # the alternatives: (2,7) and (6,7) hold, the refutation's (2,7) ... is the same square
        tuple(MOVES[:5]) + ((2, 7),): Info(depth=9, eval=40, winrate=0.52),
        tuple(MOVES[:5]) + ((6, 7),): Info(depth=9, eval=60, winrate=0.54),
    }
    analyser, engine = _analyser(table, candidates=3)
    analysis = await analyser.game(game)
    (blunder,) = analysis.blunders
    assert (blunder.ply, blunder.colour, blunder.move) == (5, WHITE, (9, 9)) and blunder.starts_loss
    assert blunder.before == 0.48 and analysis.lost_at == 6
    assert blunder.holding == [(2, 7), (6, 7)]
    deep = sorted({n for n, seconds in engine.asked if seconds == 1.0 and n <= len(MOVES)})
    assert 5 in deep and 6 in deep and 4 not in deep  # both sides of the blunder, no further back
