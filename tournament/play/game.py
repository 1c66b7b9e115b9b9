"""Play one game between two engine sessions, the way Gomocup managers do, and say how it ended.

Flow: both engines START (or RESTART) and get the INFO settings; the opening is laid down by the
referee; the side to move receives the whole position with BOARD (BEGIN on an empty board), later
moves arrive with TURN; `INFO time_left` precedes every move command. Each reply is timed on the
manager's clock and judged by the referee; memory is checked after every move.
"""
from __future__ import annotations

import datetime as dt
import logging
import time

import trio

from protocol import messages as m
from tournament.game.endings import Ending
from tournament.api.position import board_command
from tournament.game.record import BLACK_WON, DRAW, WHITE_WON, GameRecord, MoveRecord
from tournament.game.referee import BLACK, WHITE, GameReferee
from tournament.engines.session import EngineSession, Failure, GameConfig, MoveAnswer

log = logging.getLogger(__name__)


def _position_command(referee: GameReferee, colour: int) -> m.Command:
    """BOARD with every stone so far (1 = own, 2 = opponent) in game order, or BEGIN on an empty board."""
    return board_command(referee.moves, colour)


async def play_game(
    config: GameConfig,
    black: EngineSession,
    white: EngineSession,
    opening: list[tuple[int, int]],
    *,
    opening_text: str = "",
) -> GameRecord:
    """Play to the end and return the record (never raises for engine misbehaviour)."""
    started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    wall0 = time.monotonic()
    referee = GameReferee(config.width, config.height, config.rules, config.win_length, config.move_limit)
    verdict = referee.place_opening(opening)
    if verdict.game_over:
        raise ValueError(f"opening {opening_text or opening} already ends the game ({verdict.ending})")
    moves = [MoveRecord(x, y, 0) for x, y in referee.moves]
    sides = {BLACK: black, WHITE: white}

    def finish(result: int, ending: Ending, detail: str) -> GameRecord:
        return GameRecord(
            black=black.name,
            white=white.name,
            width=config.width,
            height=config.height,
            rule=config.rules.code,
            win_length=config.win_length,
            result=result,
            ending=ending,
            detail=detail,
            moves=moves,
            opening_stones=len(opening),
            opening=opening_text,
            started=started,
            duration=time.monotonic() - wall0,
            black_ms=black.total_ms,
            white_ms=white.total_ms,
            black_peak_rss=black.peak_rss,
            white_peak_rss=white.peak_rss,
        )

    def loss(colour: int, ending: Ending, detail: str) -> GameRecord:
        who = sides[colour].name
        return finish(WHITE_WON if colour == BLACK else BLACK_WON, ending, f"{who}: {detail}" if detail else who)

    # start both engines at once (launching a process is the slow part)
    failures: dict[int, Failure | None] = {}

    async def begin(colour: int) -> None:
        failures[colour] = await sides[colour].begin_game(config)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(begin, BLACK)
        nursery.start_soon(begin, WHITE)
    if failures[BLACK] and failures[WHITE]:
        return finish(DRAW, failures[BLACK].ending, f"both engines failed: {black.name}: {failures[BLACK].detail}; {white.name}: {failures[WHITE].detail}")
    for colour in (BLACK, WHITE):
        failure = failures[colour]
        if failure is not None:
            return loss(colour, failure.ending, failure.detail)
    try:
        return await _play_moves(config, referee, sides, moves, finish, loss)
    finally:
        for session in sides.values():
            session.set_suspended(False)


async def _play_moves(config: GameConfig, referee: GameReferee, sides: dict, moves: list, finish, loss) -> GameRecord:  # noqa: ANN001
    """The move loop: ask, time, judge, until the game is decided."""
    if config.suspend_idle:
        for session in sides.values():
            session.set_suspended(True)
    while True:
        colour = referee.to_move
        mover, other = sides[colour], sides[WHITE if colour == BLACK else BLACK]
        command = _position_command(referee, colour) if not mover.synced else m.Turn(*referee.moves[-1])
        mover.set_suspended(False)
        answer = await mover.request_move(command, config, opponent=other)
        if config.suspend_idle:
            mover.set_suspended(True)
        if isinstance(answer, Failure):
            if answer.detail.startswith("opponent:"):
                return loss(WHITE if colour == BLACK else BLACK, answer.ending, answer.detail[len("opponent:") :])
            return loss(colour, answer.ending, answer.detail)
        assert isinstance(answer, MoveAnswer)
        mover.synced = True
        verdict = referee.play(answer.x, answer.y)
        if verdict.ending is not None and verdict.loser_moved:
            if verdict.ending in (Ending.OCCUPIED, Ending.OFF_BOARD):
                mover.reusable = False  # its idea of the board is wrong; start it afresh
            return loss(colour, verdict.ending, f"move {answer.x},{answer.y}")
        moves.append(MoveRecord(answer.x, answer.y, answer.ms))
        memory = mover.check_memory(config)
        if memory is not None:
            return loss(colour, memory.ending, memory.detail)
        if verdict.ending is Ending.FIVE:
            return finish(BLACK_WON if colour == BLACK else WHITE_WON, Ending.FIVE, f"{mover.name} at {answer.x},{answer.y}")
        if verdict.ending is not None:
            return finish(DRAW, verdict.ending, f"{len(referee.moves)} stones")
