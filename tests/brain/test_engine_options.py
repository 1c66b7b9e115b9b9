"""Engine options reach the engine from the brain's command line and from a tournament spec."""
from __future__ import annotations

import subprocess
import sys

import pytest

from gomocup_bot.brain.runner import BrainOptions, choose_engine
from tournament.engines.spec import builtin_argv


def test_option_and_threads_flags_reach_the_engine():
    options = BrainOptions.from_argv(["--option", "backend=mcts", "--option", "final=max", "--threads", "1"])
    engine = choose_engine(options).factory()
    assert engine.backend == "mcts"
    assert engine.mcts_config.final == "max"
    assert engine.threads == 1


def test_server_share_of_threads_does_not_override_the_users_choice():
    assert BrainOptions.from_argv([]).with_threads(1).threads == 1
    assert BrainOptions.from_argv(["--threads", "2"]).with_threads(1).threads == 2


@pytest.mark.parametrize("bad", [["--option", "backend"], ["--option", "=mcts"], ["--threads", "0"]])
def test_malformed_engine_options_are_refused_with_usage(bad):
    proc = subprocess.run([sys.executable, "-m", "gomocup_bot", *bad], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""  # nothing but protocol lines on stdout, ever
    assert "usage" in proc.stderr


def test_tournament_builtin_spec_passes_brain_flags_and_engine_options():
    argv = builtin_argv("gomocup-bot", {"level": "3", "backend": "mcts", "threads": "1"})
    assert argv[1:] == ("-m", "gomocup_bot", "--engine", "gomocup-bot", "--level", "3",
                        "--option", "backend=mcts", "--threads", "1")



def test_a_builtin_spec_takes_the_engines_underscored_options_and_refuses_bad_names():
    from tournament.engines.spec import EngineSpecError, parse_engine_spec

    spec = parse_engine_spec("builtin:gomocup-bot?mate_width=1&root_nodes=100000")
    assert "--option" in spec.argv and "mate_width=1" in spec.argv and "root_nodes=100000" in spec.argv
    for bad in ("Mate", "x;rm", "1abc"):
        with pytest.raises(EngineSpecError, match="bad option name"):
            builtin_argv("gomocup-bot", {bad: "1"})
