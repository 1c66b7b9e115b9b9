"""The move budget: INFO time settings -> absolute search deadlines.

Rules of the protocol reference (§5, §7): `timeout_turn` 0 means "answer as fast as possible",
`timeout_match` 0 and `time_left` 2147483647 mean "no match limit", a negative `time_left` means
"move now". We never count on the manager's tolerance: every budget keeps a safety margin for
Python's reply path and pipe latency.
"""
from __future__ import annotations

import os
import time

from gomocup_bot.engine import SearchLimits

UNLIMITED = 2147483647
DEFAULT_TURN_MS = 5000  # when the manager sent no timeout_turn at all
INSTANT_S = 0.02  # "as fast as possible": enough for a static evaluation and the reply
MARGIN_S = 0.06  # fixed part of the safety margin (reply, pipe, scheduler)
MARGIN_FRACTION = 0.05  # proportional part
SOFT_FRACTION = 0.8  # the planned share of the hard budget (the search stretches or shrinks it)
MIN_MOVES_LEFT = 12  # spread the match clock over at least this many of our moves
MATCH_SPACE = 21  # ... and at most this many (strong engines plan ~21): the share is recomputed every move
MAX_BUDGET_S = 24 * 3600.0


def budget_seconds(info: dict[str, int], *, empty_squares: int | None = None) -> float:
    """Hard budget in seconds for this move (before converting to instants)."""
    turn_ms = info.get("timeout_turn")
    match_ms = info.get("timeout_match")
    left_ms = info.get("time_left")

    if turn_ms is not None and turn_ms <= 0:
        return INSTANT_S
    turn_s = MAX_BUDGET_S if turn_ms is not None and turn_ms >= UNLIMITED else (turn_ms or DEFAULT_TURN_MS) / 1000

    match_limited = left_ms is not None and left_ms < UNLIMITED and match_ms != 0
    if match_limited:
        assert left_ms is not None
        if left_ms <= 0:
            return INSTANT_S
        moves_left = MIN_MOVES_LEFT
        if empty_squares is not None:
            moves_left = max(MIN_MOVES_LEFT, min(MATCH_SPACE, empty_squares // 6))
        share_s = left_ms / 1000 / moves_left
        # never plan to use more than what is left minus the margin
        cap_s = max(INSTANT_S, left_ms / 1000 - _margin(left_ms / 1000))
        turn_s = min(turn_s, share_s, cap_s)

    return max(INSTANT_S, min(MAX_BUDGET_S, turn_s - _margin(turn_s)))


def process_age_seconds() -> float | None:
    """Seconds since this process was created (Linux /proc), or None where that is not known.

    Gomocup bills the match clock from process creation, and a manager that writes START, INFO and
    BOARD in one burst starts the move's clock while Python is still importing: the first move's
    budget has to count from there, not from when the brain first read its input.
    """
    try:
        with open("/proc/self/stat", "rb") as f:
            stat = f.read()
        with open("/proc/uptime", "rb") as f:
            uptime_s = float(f.read().split()[0])
        # field 22 (starttime, in clock ticks since boot); the name in field 2 may hold spaces
        start_ticks = int(stat.rsplit(b")", 1)[1].split()[19])
        return max(0.0, uptime_s - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def _margin(seconds: float) -> float:
    return min(seconds / 2, MARGIN_S + MARGIN_FRACTION * seconds)


def move_budget(
    info: dict[str, int], *, now: float | None = None, empty_squares: int | None = None
) -> SearchLimits:
    """SearchLimits (absolute `time.monotonic()` instants) for the next move.

    `info`: the INFO values received so far (integers); `empty_squares` lets the match clock be
    spread over the moves that can still come. `max_depth`/`max_node` (Yixin) cap the search.
    """
    start = time.monotonic() if now is None else now
    hard = budget_seconds(info, empty_squares=empty_squares)
    soft = hard if hard <= INSTANT_S else hard * SOFT_FRACTION
    max_depth = max(0, info.get("max_depth", 0) or 0)
    max_nodes = max(0, info.get("max_node", 0) or 0)
    return SearchLimits(
        soft_deadline=start + soft, hard_deadline=start + hard, max_nodes=max_nodes, max_depth=max_depth,
        clock_free=clock_free(info) and hard > INSTANT_S,
    )


def clock_free(info: dict[str, int]) -> bool:
    """A finite turn and no match clock: whatever a move leaves of its turn is lost, not saved."""
    turn_ms = info.get("timeout_turn")
    if turn_ms is None or turn_ms <= 0 or turn_ms >= UNLIMITED:
        return False
    left_ms = info.get("time_left")
    return info.get("timeout_match") == 0 or left_ms is None or left_ms >= UNLIMITED
