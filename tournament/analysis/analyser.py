"""Drive an analysing engine over game records: a fast pass over every position, then a deep pass
where the fast one saw something, then the blunderer's alternatives.

Why two passes: a large budget on every position of a hundred games takes hours, and most
positions are quiet. The deep budget goes to the positions that decide the findings of
`tournament.analysis.findings`: both sides of every suspected blunder, the positions behind a proven
stretch (walking back while they turn out lost too, so the blunder found is the first one), and
the positions after the largest drops of the mover's winrate (a forced win the fast pass missed).
Then each blunder's alternatives (the engine's own best move there and the squares of the
refutation, where defences usually are) are played and judged at the deep budget.

The engine is any `gomocup-tournament` engine specification, spoken to through the engine API
(`tournament.engine`), one position per request (RESTART + BOARD), like a GUI's analysis mode.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

import trio

from protocol import judge
from protocol.judge import BLACK, WHITE
from tournament.analysis.findings import Candidate, Eval, GameAnalysis, assess, eval_from_info, plies_of
from tournament.api.engine_async import Engine, Limit
from tournament.api.errors import EngineError, EngineStartError, PositionError
from tournament.api.info import Info
from tournament.api.position import Position, Square
from tournament.analysis.records import GameSource

log = logging.getLogger(__name__)

DEFAULT_ENGINE = "builtin:gomocup-bot"
UNKNOWN = Eval(None)


@dataclass(frozen=True)
class Budget:
    """Seconds per position of each pass, and how much deep work one game may take."""

    fast: float = 0.5
    deep: float = 3.0
    candidates: int = 6  # alternatives checked per blunder
    back: int = 6  # deep evaluations walking back from a proven position
    drop: float = 0.25  # a fall of the mover's winrate that earns a deep look at the position after
    drops: int = 6  # at most this many of them per game, the largest first

    def __post_init__(self) -> None:
        if not (self.fast > 0 and self.deep > 0):
            raise ValueError("the fast and deep budgets must be positive")
        if self.candidates < 0 or self.back < 0 or self.drops < 0:
            raise ValueError("candidates, back and drops must not be negative")


class AnalysisAborted(RuntimeError):
    """The engine cannot be (re)started: nothing more can be analysed."""


class Analyser:
    """Analyses games with one engine, keeping every evaluation it asked for (by position and
    budget), so the deep pass and the alternatives never ask twice."""

    def __init__(self, engine: Engine, budget: Budget, report: Callable[[str], None] | None = None) -> None:
        self.engine = engine
        self.budget = budget
        self.report = report or (lambda text: None)
        self.requests = 0
        self._cache: dict[tuple[tuple[Square, ...], int, float], Eval] = {}

    # ------------------------------------------------------------------ one position
    async def evaluate(self, position: Position, seconds: float, *, follow: int = 2) -> Eval:
        """The engine's view of `position` for the side to move. An answer that carries no value
        (a forced block, an engine that prints nothing) is read from the position after the
        engine's move, `follow` times at most."""
        key = (position.moves, position.rules.code, seconds)
        if key in self._cache:
            return self._cache[key]
        info = await self._ask(position, seconds)
        if info is None:
            return UNKNOWN
        result = eval_from_info(info, seconds)
        move = info.move
        if not result.known and move is not None and follow > 0 and position.is_legal(move):
            result = await self._through(position, move, seconds, follow, info.depth)
        self._cache[key] = result
        return result

    async def _through(self, position: Position, move: Square, seconds: float, follow: int,
                       depth: int | None) -> Eval:
        """A position's value read from the one after `move` (the engine's answer that came with
        no value). A win found after it is a win; a loss only counts when the move was forced
        (the block of the opponent's only five point), else it may just be a bad move."""
        after = position.push(move)
        if after.is_over():
            won = after.winner() == position.to_move
            return Eval(1.0 if won else 0.5, 1 if won else 0, 1 if won else None, (move,), move, depth, seconds, via=move)
        result = (await self.evaluate(after, seconds, follow=follow - 1)).flipped(move)
        if result.proven < 0:
            opponent = WHITE if position.to_move == BLACK else BLACK
            threats = judge.winning_squares(position.board(), opponent, position.rules)
            if threats != [move]:
                return Eval(None, best=move, seconds=seconds)
        return result

    async def _ask(self, position: Position, seconds: float) -> Info | None:
        """One analysis request; an engine failure is logged and retried once (the API starts the
        engine afresh), a second one gives no answer. An engine that cannot start stops it all."""
        for attempt in (1, 2):
            try:
                self.requests += 1
                return await self.engine.analyse(position, Limit(turn=seconds))
            except EngineStartError as exc:
                raise AnalysisAborted(f"the analysing engine cannot start: {exc}") from None
            except EngineError as exc:
                log.warning("analysing engine failed on a position of %d moves (attempt %d): %s",
                            len(position.moves), attempt, exc)
        return None

    # ------------------------------------------------------------------ one game
    async def game(self, game: GameSource) -> GameAnalysis:
        analysis = GameAnalysis(game, plies_of(game))
        plies = analysis.plies
        for n, ply in enumerate(plies, 1):
            self.report(f"{game.label}: fast pass {n}/{len(plies)}")
            ply.fast = await self.evaluate(analysis.position_before(ply.index), self.budget.fast)
        assess(analysis)
        for index in self._drops(analysis):
            await self._deep(analysis, index)
        await self._deep_pass(analysis)
        for blunder in analysis.blunders:
            if not blunder.candidates:
                blunder.candidates = await self._alternatives(analysis, blunder.ply, blunder.move, blunder.refutation)
        analysis.errors = [f"position {p.index}: no evaluation" for p in plies if p.eval is None or not p.eval.known]
        return analysis

    def _drops(self, analysis: GameAnalysis) -> list[int]:
        """Positions after the largest falls of the mover's winrate that are not proven yet."""
        falls = []
        plies = analysis.plies
        for k in range(len(plies) - 1):
            ply, after = plies[k], plies[k + 1]
            before, then = ply.winrate_for(ply.to_move), after.winrate_for(ply.to_move)
            if before is None or then is None or after.eval is None or after.eval.proven:
                continue
            if before - then >= self.budget.drop:
                falls.append((before - then, after.index))
        falls.sort(reverse=True)
        return [index for _, index in falls[: self.budget.drops]]

    async def _deep(self, analysis: GameAnalysis, index: int) -> bool:
        """Deep-evaluate position `index` once; False if it was done already or is not judged."""
        ply = analysis.ply(index)
        if ply is None or ply.deep is not None:
            return False
        self.report(f"{analysis.game.label}: deep look at move {index + 1}")
        ply.deep = await self.evaluate(analysis.position_before(index), self.budget.deep)
        return True

    async def _deep_pass(self, analysis: GameAnalysis) -> None:
        """Both sides of every blunder deeply, round after round while that moves the blunders (a
        position before a blunder found lost too moves the blunder back), `back` rounds at most."""
        for _ in range(self.budget.back + 1):
            assess(analysis)
            fresh = False
            for blunder in list(analysis.blunders):
                for index in (blunder.ply + 1, blunder.ply):
                    fresh = await self._deep(analysis, index) or fresh
            if not fresh:
                break
        assess(analysis)

    async def _alternatives(self, analysis: GameAnalysis, index: int, played: Square,
                            refutation: tuple[Square, ...]) -> list[Candidate]:
        """The blunderer's other moves worth checking, each judged at the deep budget: its best
        move by the engine there, then the squares of the refutation line. Holding ones first."""
        if self.budget.candidates == 0:
            return []
        position = analysis.position_before(index)
        ply = analysis.ply(index)
        wanted: list[Square] = []
        best = ply.eval.best if ply is not None and ply.eval is not None else None
        for square in ([best] if best else []) + list(refutation):
            if square != played and square not in wanted and position.is_legal(square):
                wanted.append(square)
        out = []
        for n, square in enumerate(wanted[: self.budget.candidates], 1):
            self.report(f"{analysis.game.label}: move {index + 1}, alternative {n}")
            after = position.push(square)
            if after.is_over():
                out.append(Candidate(square, True, 1.0 if after.winner() == position.to_move else 0.5))
                continue
            e = await self.evaluate(after, self.budget.deep)
            out.append(Candidate(square, holds=e.proven <= 0 and e.known,
                                 winrate=None if e.winrate is None else 1.0 - e.winrate, line=e.pv))
        out.sort(key=lambda c: (not c.holds, -(c.winrate or 0.0)))
        return out


async def analyse_games(games: list[GameSource], spec: str, budget: Budget, *, jobs: int = 1,
                        report: Callable[[str], None] | None = None,
                        done: Callable[[int, GameAnalysis], None] | None = None) -> list[GameAnalysis]:
    """Analyse `games` with `jobs` copies of engine `spec` at once; results in the games' order.
    `done(i, analysis)` is called as each game finishes. Raises AnalysisAborted or
    EngineStartError when the engine cannot run."""
    results: list[GameAnalysis | None] = [None] * len(games)
    tolerance = max(10.0, 2 * budget.deep)
    send, receive = trio.open_memory_channel[int](len(games))
    for i in range(len(games)):
        send.send_nowait(i)
    send.close()

    async def worker() -> None:
        async with Engine.open(spec, tolerance=tolerance, start_timeout=60.0) as engine:
            analyser = Analyser(engine, budget, report)
            async for i in receive:
                try:
                    results[i] = await analyser.game(games[i])
                except PositionError as exc:  # the records are checked when read: this is a bug
                    raise AnalysisAborted(f"{games[i].label}: {exc}") from exc
                if done is not None:
                    done(i, results[i])

    problem: BaseException | None = None
    try:
        async with trio.open_nursery() as nursery:
            for _ in range(max(1, min(jobs, len(games)))):
                nursery.start_soon(worker)
    except BaseExceptionGroup as group:
        problem = group.exceptions[0] if len(group.exceptions) == 1 else group
    if problem is not None:
        raise problem  # the engine's own error, not a group of one
    return [r for r in results if r is not None]
