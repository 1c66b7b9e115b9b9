"""The move budget from INFO time settings (protocol reference §5, §7)."""
import subprocess
import sys

import pytest

from gomocup_bot.brain.timeman import DEFAULT_TURN_MS, INSTANT_S, UNLIMITED, budget_seconds, clock_free, move_budget


def test_turn_limit_keeps_a_margin():
    b = budget_seconds({"timeout_turn": 1000})
    assert 0.8 <= b < 1.0
    assert budget_seconds({"timeout_turn": 30000}) < 30.0


def test_zero_turn_means_as_fast_as_possible():
    assert budget_seconds({"timeout_turn": 0}) == INSTANT_S


def test_negative_or_zero_time_left_means_move_now():
    assert budget_seconds({"timeout_turn": 5000, "timeout_match": 100000, "time_left": -20}) == INSTANT_S
    assert budget_seconds({"timeout_turn": 5000, "timeout_match": 100000, "time_left": 0}) == INSTANT_S


def test_unlimited_match_values():
    turn_only = budget_seconds({"timeout_turn": 5000})
    assert budget_seconds({"timeout_turn": 5000, "time_left": UNLIMITED}) == turn_only
    assert budget_seconds({"timeout_turn": 5000, "timeout_match": 0, "time_left": 1000}) == turn_only


def test_match_clock_is_spread_over_the_remaining_moves():
    info = {"timeout_turn": 30000, "timeout_match": 180000, "time_left": 12000}
    b = budget_seconds(info, empty_squares=225)
    assert 0 < b <= 12.0 / 12
    # more time left never gives less time
    more = budget_seconds({**info, "time_left": 60000}, empty_squares=225)
    assert more >= b
    # and the budget never exceeds what is left
    assert budget_seconds({"timeout_turn": 30000, "timeout_match": 1, "time_left": 100}) <= 0.1


def test_a_finite_turn_without_a_match_clock_is_clock_free():
    # whatever such a move leaves of its turn is lost: the search may use it all (option use_turn)
    assert clock_free({"timeout_turn": 1000})
    assert clock_free({"timeout_turn": 1000, "timeout_match": 0, "time_left": 5000})
    assert clock_free({"timeout_turn": 1000, "timeout_match": 180000, "time_left": UNLIMITED})
    assert not clock_free({"timeout_turn": 1000, "timeout_match": 180000, "time_left": 170000})
    assert not clock_free({"timeout_turn": 0}) and not clock_free({"timeout_turn": UNLIMITED}) and not clock_free({})
    assert move_budget({"timeout_turn": 1000}, now=1.0).clock_free
    assert not move_budget({"timeout_turn": 1000, "timeout_match": 90000, "time_left": 80000}, now=1.0).clock_free
    assert not move_budget({"timeout_turn": 0}, now=1.0).clock_free


def test_defaults_when_nothing_was_sent():
    assert budget_seconds({}) == pytest.approx(budget_seconds({"timeout_turn": DEFAULT_TURN_MS}))


def test_limits_are_absolute_and_ordered():
    limits = move_budget({"timeout_turn": 2000, "max_depth": 7, "max_node": -1}, now=100.0)
    assert 100.0 < limits.soft_deadline < limits.hard_deadline < 102.0
    assert limits.max_depth == 7 and limits.max_nodes == 0
    instant = move_budget({"timeout_turn": 0}, now=5.0)
    assert instant.soft_deadline == instant.hard_deadline == 5.0 + INSTANT_S


def test_process_age_is_measured_from_process_creation():
    # a fresh interpreter that sleeps 0.3 s before asking: its age covers start-up and the sleep
    code = ("import time; time.sleep(0.3); from gomocup_bot.brain.timeman import process_age_seconds as a; "
            "print(a())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    age = float(out)
    assert 0.25 <= age < 10.0  # /proc counts in 10 ms ticks


def test_gomocup_match_clock_is_planned_over_about_21_moves():
    # 5 s a move + 120 s a game, first move: 120 s / 21 > 5 s, so the turn limit decides (less the
    # margin); spreading over 37 moves (225 empty squares / 6) would have given 3.2 s
    info = {"timeout_turn": 5000, "timeout_match": 120000, "time_left": 120000}
    assert budget_seconds(info, empty_squares=225) == pytest.approx(budget_seconds({"timeout_turn": 5000}))
    # half the clock gone: 60 s / 21
    b = budget_seconds({**info, "time_left": 60000}, empty_squares=200)
    assert 60 / 21 * 0.85 < b <= 60 / 21
