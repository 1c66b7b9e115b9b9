"""The engine registry: `create_engine(name, **options)`.

Lazy on purpose: the table holds module paths and class names only, so importing this package costs
nothing on the brain's START path; an engine's module (and numba, numpy) loads when it is created.
"""
from __future__ import annotations

import importlib
import importlib.util

from gomocup_bot.engine import Engine

# name -> (module, class). A class is constructed with the keyword options given to create_engine
# and must accept (and may ignore) unknown ones, e.g. `seed`, `level`.
_REGISTRY: dict[str, tuple[str, str]] = {
    # baselines (this module's issue): also the ladder's weakest opponents
    "random": ("gomocup_bot.engines.random_engine", "RandomEngine"),
    "greedy": ("gomocup_bot.engines.greedy", "GreedyEngine"),
    # ---- slots filled by the search issues: create the module with this class name -------------
    "mcts-plain": ("gomocup_bot.engines.mcts_plain", "MctsPlainEngine"),
    "minimax": ("gomocup_bot.engines.minimax", "MinimaxEngine"),
    "gomocup-bot": ("gomocup_bot.engines.full", "FullEngine"),  # the full brain, the default
}

ENGINE_NAMES: tuple[str, ...] = tuple(_REGISTRY)
# engines that play without the core board, hence without the trained evaluation's weights
WEIGHTLESS = frozenset({"random", "greedy"})
DEFAULT_ENGINE = "gomocup-bot"
QUICK_ENGINE = "greedy"  # cheap pure-Python answer when no search slot is free in time


class EngineUnavailable(LookupError):
    """The name is unknown, or its module is not written yet."""


def is_available(name: str) -> bool:
    """Is `name` registered and its module present? (Finds the module without importing it.)"""
    entry = _REGISTRY.get(name)
    if entry is None:
        return False
    try:
        return importlib.util.find_spec(entry[0]) is not None
    except (ImportError, ValueError):
        return False


def available_engines() -> list[str]:
    return [name for name in ENGINE_NAMES if is_available(name)]


def create_engine(name: str, **options: object) -> Engine:
    """Instantiate engine `name`; raises EngineUnavailable if it is unknown or not implemented yet."""
    entry = _REGISTRY.get(name)
    if entry is None:
        raise EngineUnavailable(f"unknown engine {name!r}; known: {', '.join(ENGINE_NAMES)}")
    module_name, class_name = entry
    if not is_available(name):
        raise EngineUnavailable(f"engine {name!r} is not implemented yet (no module {module_name})")
    module = importlib.import_module(module_name)
    cls = getattr(module, class_name, None)
    if cls is None:
        raise EngineUnavailable(f"engine {name!r}: {module_name} has no class {class_name}")
    return cls(**options)
