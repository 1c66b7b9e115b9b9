"""The package layout and its import directions (docs/architecture.md, "Import directions").

Every module of `protocol/`, `gomocup_bot/` and `tournament/` is parsed with `ast` (never
imported) and every import is collected: module-level and function-local `import` / `from ...
import`, relative ones resolved, and the dynamic ones written with a literal name
(`importlib.import_module("...")`, `importlib.util.find_spec("...")`, `__import__("...")`).
Each of our modules belongs to one unit; an import from one unit into another must be listed in
ALLOWED below. A new package or top-level module of `gomocup_bot/` or `tournament/` fails until
it is given a unit and a row here and in the docs (`tournament/`'s rooms: TOURNAMENT_RULES). The
same imports, module by module, must hold no loop (a module importing, at module level or in a
function, one that leads back to it).

Also: every dotted name of ours that a module, a test, a benchmark or a tool imports or quotes in a string
(subcommand tables, subprocess code, logger names, docstrings), and every `gomocup_bot/...py` path
or dotted name in the docs (also written from the package down, `search/pvs.py`), names something
that exists, so no old module path survives the move.
"""
from __future__ import annotations

import ast
import re
from collections import deque
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ("protocol", "gomocup_bot", "tournament")

# The rooms of `tournament/`, lowest first, each with the rooms of ours it may import (itself always);
# docs/architecture.md has the same table. The engine API never imports matches, storage, reports
# or the web; nothing but the command line imports the web or the cluster.
TOURNAMENT_RULES: dict[str, frozenset[str]] = {
    "tournament.progress": frozenset(),  # the terminal progress line
    "tournament.game": frozenset({"protocol"}),  # endings, referee, records, PSQ/SGF export
    "tournament.engines": frozenset({"protocol", "tournament.game", "tournament.progress"}),  # spec, connection, session
    "tournament.api": frozenset({"protocol", "tournament.game", "tournament.engines"}),  # the engine API
    "tournament.engine": frozenset({"tournament.api"}),  # the API's one public import path
    "tournament.results": frozenset({"tournament.game"}),  # SQLite store, ratings
    "tournament.play": frozenset(
        {"protocol", "tournament.game", "tournament.engines", "tournament.api", "tournament.results", "tournament.progress"}
    ),
    "tournament.cluster": frozenset(
        {"tournament.game", "tournament.engines", "tournament.results", "tournament.play", "tournament.progress"}
    ),
    "tournament.report": frozenset({"protocol", "tournament.game", "tournament.results", "tournament.play"}),
    "tournament.analysis": frozenset(
        {"protocol", "tournament.engines", "tournament.api", "tournament.progress", "tournament.report"}
    ),
    "tournament.web": frozenset(
        {"protocol", "tournament.game", "tournament.engines", "tournament.api", "tournament.results", "tournament.report"}
    ),
    "tournament.cli": frozenset(),  # filled below: every room (it dispatches the subcommands)
    "tournament": frozenset(),  # the package itself: a docstring
}
TOURNAMENT_RULES["tournament.cli"] = frozenset({"protocol", *TOURNAMENT_RULES} - {"tournament.cli", "tournament"})
TOURNAMENT_ROOMS = tuple(TOURNAMENT_RULES)
# what `tournament/` holds at its top level; each room is a package with a docstring
TOURNAMENT_TOP_LEVEL = {"__init__.py", "cli.py", "engine.py", "progress.py"}
TOURNAMENT_PACKAGES = {"game", "engines", "api", "results", "play", "cluster", "report", "analysis", "web"}
MAX_MODULE_LINES = 800  # a bigger module is split by job
MAX_MODULES_PER_FOLDER = 12  # a longer flat list is split into rooms

# unit -> the other units it may import (itself always). Most specific prefix wins.
UNITS = (
    "protocol",
    "gomocup_bot.core",
    "gomocup_bot.engine",
    "gomocup_bot.neteval",
    "gomocup_bot.search",
    "gomocup_bot.engines",
    "gomocup_bot.brain",
    "gomocup_bot.net",
    "gomocup_bot.experiments",
    "gomocup_bot.training",
    "gomocup_bot.warmup",
    "gomocup_bot.bench",
    "gomocup_bot.cli",
    "gomocup_bot.__main__",
    "gomocup_bot",  # the package itself: `__version__` only
    *TOURNAMENT_ROOMS,
)
ALLOWED: dict[str, frozenset[str]] = {
    "protocol": frozenset(),  # imports nothing of ours
    "gomocup_bot": frozenset(),
    "gomocup_bot.core": frozenset(),  # the numba kernels: nothing above them (not even engine -> protocol)
    "gomocup_bot.engine": frozenset({"protocol"}),  # the contract (Position holds protocol Rules)
    "gomocup_bot.neteval": frozenset({"gomocup_bot.core"}),  # the network evaluation: kernels beside the board
    "gomocup_bot.search": frozenset({"gomocup_bot.core", "gomocup_bot.engine", "gomocup_bot.neteval"}),
    "gomocup_bot.engines": frozenset({"gomocup_bot.core", "gomocup_bot.engine", "gomocup_bot.neteval", "gomocup_bot.search",
                                      "protocol"}),
    "gomocup_bot.brain": frozenset({"gomocup_bot", "gomocup_bot.core", "gomocup_bot.engine", "gomocup_bot.engines",
                                    "gomocup_bot.neteval", "protocol"}),
    "gomocup_bot.net": frozenset(
        {"gomocup_bot", "gomocup_bot.brain", "gomocup_bot.core", "gomocup_bot.engine", "gomocup_bot.engines", "protocol"}
    ),
    "gomocup_bot.experiments": frozenset(
        {"gomocup_bot.core", "gomocup_bot.engine", "gomocup_bot.engines", "gomocup_bot.search", "protocol"}
    ),
    "gomocup_bot.training": frozenset(
        {"gomocup_bot", "gomocup_bot.core", "gomocup_bot.engine", "gomocup_bot.engines", "gomocup_bot.neteval",
         "gomocup_bot.search", "protocol"}
    ),
    "gomocup_bot.warmup": frozenset({"gomocup_bot.core", "gomocup_bot.neteval", "gomocup_bot.search"}),  # above the kernel packages
    "gomocup_bot.bench": frozenset({"gomocup_bot.core", "gomocup_bot.neteval", "gomocup_bot.search"}),  # likewise
    "gomocup_bot.cli": frozenset(u for u in UNITS if not u.startswith("tournament")),  # the top: every subcommand
    "gomocup_bot.__main__": frozenset({"gomocup_bot.cli"}),
    # our engines only as `builtin:` command lines, plus the exception below
    **TOURNAMENT_RULES,
}
# The one exception (documented in docs/architecture.md): the manager reads the registry's names to
# list and check `builtin:NAME` (it never creates an engine in-process), and looks for the warm-up
# module before running `python -m gomocup_bot warmup` as a subprocess. Both are dynamic, by name.
TOURNAMENT_EXCEPTIONS = frozenset(
    {
        ("tournament.engines.spec", "gomocup_bot.engines", "dynamic"),
        ("tournament.engines.warmup", "gomocup_bot.warmup", "dynamic"),
    }
)
# what `gomocup_bot/` holds at its top level: everything else lives in a package
TOP_LEVEL = {"__init__.py", "__main__.py", "cli.py", "engine.py", "warmup.py", "bench.py"}
PACKAGES = {"brain", "core", "engines", "experiments", "net", "neteval", "search", "training"}

DYNAMIC_CALLS = {"import_module", "find_spec", "__import__"}
DOTTED = re.compile(r"(?<![/\w.])(?:gomocup_bot|protocol|tournament)(?:\.[A-Za-z_]\w*)+(?![\w/-])")
FILE_SUFFIXES = {"md", "py", "txt", "json", "jsonl", "toml", "csv", "db", "log", "sqlite"}
# a file of a `gomocup_bot/` package named without the `gomocup_bot/` (`search/pvs.py`), as the docs often do
SHORT_PATH = re.compile(r"(?<![\w/.-])(?:%s)/[\w/]*\w\.py\b" % "|".join(sorted(PACKAGES)))
REMOVED = {"search/alphabeta.py", "search/idsearch.py", "search/tactics.py"}  # docs/search.md tells they are gone


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def our_modules() -> dict[str, Path]:
    found = {}
    for top in OURS:
        for path in sorted((ROOT / top).rglob("*.py")):
            found[module_name(path)] = path
    return found


MODULES = our_modules()


def is_package(name: str) -> bool:
    return name in MODULES and MODULES[name].name == "__init__.py"


def is_ours(name: str) -> bool:
    return name.split(".")[0] in OURS


def unit_of(name: str) -> str | None:
    for unit in UNITS:  # most specific first; the bare packages match only themselves
        if name == unit or name.startswith(unit + ".") and unit not in ("gomocup_bot", "tournament"):
            return unit
    return None


def imports_of(tree: ast.AST, name: str, is_pkg: bool) -> list[tuple[str, int, str]]:
    """(imported module, line, kind) for every import anywhere in the tree (functions included)."""
    package = name if is_pkg else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno, "import") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from pkg import submodule` imports the submodule; pkg itself only for the other names
            subs = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in MODULES]
            if len(subs) < len(node.names):
                out.append((target, node.lineno, "from"))
            out += [(sub, node.lineno, "from") for sub in subs]
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if called in DYNAMIC_CALLS and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                out.append((node.args[0].value, node.lineno, "dynamic"))
    return out


def defined_names(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def stale(dotted: str) -> bool:
    """Does this dotted name of ours point at nothing (a module or a package attribute)?"""
    parts = dotted.split(".")
    if parts[-1] in FILE_SUFFIXES:
        return False  # a file name (docs/tournament.md), not a module
    name = parts[0]
    for part in parts[1:]:
        if f"{name}.{part}" in MODULES:
            name = f"{name}.{part}"
        elif is_package(name):
            return part not in defined_names(MODULES[name])  # a package attribute, or nothing
        else:
            return False  # an attribute of a module: not checked
    return name not in MODULES


def violations(source_of: dict[str, str] | None = None) -> list[str]:
    """Every import that breaks a direction, as 'path:line: a (unit) imports b (unit)'."""
    problems = []
    for name, path in MODULES.items():
        text = (source_of or {}).get(name, path.read_text(encoding="utf-8"))
        unit = unit_of(name)
        where = path.relative_to(ROOT)
        if unit is None:
            problems.append(f"{where}: {name} belongs to no unit of tests/test_layout.py")
            continue
        for target, line, kind in imports_of(ast.parse(text), name, path.name == "__init__.py"):
            if not is_ours(target):
                continue
            other = unit_of(target)
            if other == unit or other in ALLOWED[unit]:
                continue
            if (name, target, kind) in TOURNAMENT_EXCEPTIONS:
                continue
            problems.append(f"{where}:{line}: {name} ({unit}) imports {target} ({other}): not an allowed direction")
    return problems


def test_import_directions() -> None:
    assert MODULES, "no modules found"
    problems = violations()
    assert not problems, "\n".join(problems)


def test_the_walker_sees_local_relative_and_dynamic_imports() -> None:
    """The check is not vacuous: a function-local import, a relative one and a literal dynamic one
    that break a direction are each reported."""
    bad = {
        "gomocup_bot.core.board": "def f():\n    from gomocup_bot.search import board\n",
        "gomocup_bot.search.layer": "from ..brain import runner\n",
        "protocol.rules": "import importlib\nX = importlib.import_module('gomocup_bot.engines')\n",
        "tournament.engines.spec": "def g():\n    import gomocup_bot.brain.runner\n",
        "tournament.api.position": "from tournament.web import server\n",
    }
    found = violations(bad)
    assert any("core/board.py:2: gomocup_bot.core.board (gomocup_bot.core) imports gomocup_bot.search" in p for p in found), found
    assert any("search/layer.py:1: gomocup_bot.search.layer (gomocup_bot.search) imports gomocup_bot.brain" in p for p in found), found
    assert any("protocol/rules.py:2: protocol.rules (protocol) imports gomocup_bot.engines" in p for p in found), found
    assert any("tournament/engines/spec.py:2: tournament.engines.spec (tournament.engines) imports gomocup_bot.brain.runner" in p for p in found), found
    assert any("tournament/api/position.py:1: tournament.api.position (tournament.api) imports tournament.web.server" in p for p in found), found


def import_graph(source_of: dict[str, str] | None = None) -> dict[str, dict[str, str]]:
    """module -> {module of ours it imports: 'path:line' of the first such import, with ', in a
    function' when that import sits in a function body}. Packages count as modules (their
    `__init__`); an import of a module by itself is left out."""
    graph: dict[str, dict[str, str]] = {}
    for name, path in MODULES.items():
        tree = ast.parse((source_of or {}).get(name, path.read_text(encoding="utf-8")))
        local = {node.lineno for func in ast.walk(tree) if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef))
                 for node in ast.walk(func) if isinstance(node, (ast.Import, ast.ImportFrom, ast.Call))}
        edges = graph[name] = {}
        for target, line, _ in imports_of(tree, name, path.name == "__init__.py"):
            if target in MODULES and target != name and target not in edges:
                edges[target] = f"{path.relative_to(ROOT)}:{line}" + (", in a function" if line in local else "")
    return graph


def shortest_loop(graph: dict[str, dict[str, str]], start: str) -> list[str] | None:
    """The shortest chain of imports from `start` back to itself (breadth first), or None."""
    parent: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for target in graph[node]:
            if target == start:
                loop = [node]
                while loop[-1] != start:
                    loop.append(parent[loop[-1]])
                return loop[::-1]
            if target not in parent:
                parent[target] = node
                queue.append(target)
    return None


def cycles(source_of: dict[str, str] | None = None) -> list[str]:
    """Every distinct shortest import loop, as 'a -> b (where) -> a (where)'."""
    graph = import_graph(source_of)
    loops = set()
    for start in graph:
        loop = shortest_loop(graph, start)
        if loop:
            first = loop.index(min(loop))  # one rotation per loop, whichever module it was found from
            loops.add(tuple(loop[first:] + loop[:first]))
    return sorted(
        "import cycle: " + loop[0] + "".join(f" -> {b} ({graph[a][b]})" for a, b in zip(loop, loop[1:] + loop[:1]))
        for loop in loops
    )


def test_no_import_cycles() -> None:
    """No module imports, at module level or in a function, one that leads back to it: a loop
    hides which of the two is the lower layer and breaks when either import moves to the top."""
    found = cycles()
    assert not found, "\n".join(found)


def test_the_cycle_check_sees_function_level_and_relative_loops() -> None:
    """The check is not vacuous: a loop closed by a function-local import, and one of relative
    `from . import` imports, are each reported with the lines that close them; a package's module
    importing a sibling through the package name is not a loop."""
    bad = {
        "protocol.rules": "def f():\n    from protocol import judge\n",
        "protocol.judge": "from protocol.rules import Rules\n",
        "gomocup_bot.core.bits": "from .rng import seed\n",
        "gomocup_bot.core.rng": "from . import bits\n",
    }
    found = cycles(bad)
    assert "import cycle: protocol.judge -> protocol.rules (protocol/judge.py:1) -> protocol.judge (protocol/rules.py:2, in a function)" in found, found
    assert "import cycle: gomocup_bot.core.bits -> gomocup_bot.core.rng (gomocup_bot/core/bits.py:1) -> gomocup_bot.core.bits (gomocup_bot/core/rng.py:1)" in found, found
    # `from protocol import messages` in the package's own modules needs the submodule, not `protocol/__init__`
    assert not any("-> protocol (" in p for p in found), found


def test_gomocup_bot_top_level_holds_only_the_entry_points_and_the_contract() -> None:
    here = ROOT / "gomocup_bot"
    files = {p.name for p in here.glob("*.py")}
    packages = {p.name for p in here.iterdir() if (p / "__init__.py").exists()}
    assert files == TOP_LEVEL
    assert packages == PACKAGES
    units = {f"gomocup_bot.{p.removesuffix('.py')}" for p in (files - {"__init__.py"}) | packages}
    assert {u for u in UNITS if u.startswith("gomocup_bot.")} == units


def test_tournament_top_level_holds_the_command_the_api_path_and_the_rooms() -> None:
    """A new module of `tournament/` goes into the room of its job (or gets a room, a row in
    TOURNAMENT_RULES and in docs/architecture.md); the top level keeps only the console script,
    the engine API's public path and the progress line."""
    here = ROOT / "tournament"
    assert {p.name for p in here.glob("*.py")} == TOURNAMENT_TOP_LEVEL
    assert {p.name for p in here.iterdir() if (p / "__init__.py").exists()} == TOURNAMENT_PACKAGES
    rooms = {f"tournament.{p.removesuffix('.py')}" for p in (TOURNAMENT_TOP_LEVEL - {"__init__.py"}) | TOURNAMENT_PACKAGES}
    assert rooms | {"tournament"} == set(TOURNAMENT_ROOMS)
    assert all(unit_of(name) not in (None, "tournament") for name in MODULES if name.startswith("tournament.")), "a module in no room"


@pytest.mark.parametrize("room", sorted(TOURNAMENT_PACKAGES))
def test_each_tournament_room_says_what_it_owns_and_may_import(room: str) -> None:
    """The package docstring names the room's job and its import rule; `__init__` imports nothing,
    so importing one module of a room never loads the others."""
    tree = ast.parse((ROOT / "tournament" / room / "__init__.py").read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree) or ""
    assert len(doc) > 80 and "May import" in doc, doc
    assert not [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert f"tournament.{room}" in ARCHITECTURE_ROOMS, f"docs/architecture.md has no row for tournament.{room}"


ARCHITECTURE_ROOMS = set(re.findall(r"^\| `(tournament(?:\.\w+)?)`", (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"), re.M))


def test_the_docs_table_of_tournament_rooms_matches_the_rules() -> None:
    assert ARCHITECTURE_ROOMS == set(TOURNAMENT_ROOMS), ARCHITECTURE_ROOMS ^ set(TOURNAMENT_ROOMS)


def test_tournament_modules_and_folders_stay_small() -> None:
    """No module of `tournament/` over MAX_MODULE_LINES lines (split it by job) and no folder with a
    flat list of more than MAX_MODULES_PER_FOLDER modules (split it into rooms)."""
    paths = sorted((ROOT / "tournament").rglob("*.py"))
    long = [f"{p.relative_to(ROOT)}: {n} lines" for p in paths if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES]
    assert not long, "\n".join(long)
    folders = {p.parent for p in paths}
    crowded = [f"{f.relative_to(ROOT)}: {n} modules" for f in folders if (n := len(list(f.glob("*.py")))) > MAX_MODULES_PER_FOLDER]
    assert not crowded, "\n".join(crowded)


def _python_files() -> list[Path]:
    return [p for top in (*OURS, "tests", "benchmarks", "tools") for p in sorted((ROOT / top).rglob("*.py"))]


@pytest.mark.parametrize("path", _python_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_name_of_ours_in_code_exists(path: Path) -> None:
    """Imports (static or literal dynamic) and strings quoting a module of ours, in our packages,
    the tests, the benchmarks and the tools: nothing names an old module path. The one exception is code a
    benchmark runs inside an older checkout (to compare with it), kept in a module-level string
    named ``OLDER_CHECKOUT_CODE``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = module_name(path)
    missing = []
    for target, line, _ in imports_of(tree, name, path.name == "__init__.py"):
        if is_ours(target) and stale(target):
            missing.append(f"{line}: import {target}")
    older = {id(node.value) for node in tree.body if isinstance(node, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id == "OLDER_CHECKOUT_CODE" for t in node.targets)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in older:
            missing += [f"{node.lineno}: string {m}" for m in DOTTED.findall(node.value) if stale(m)]
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("path", [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_the_docs_name_exists(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    missing = [m for m in DOTTED.findall(text) if stale(m)]
    missing += [p for p in re.findall(r"\b(?:gomocup_bot|protocol|tournament)/[\w/]*\w\.py\b", text) if not (ROOT / p).exists()]
    missing += [p for p in SHORT_PATH.findall(text) if p not in REMOVED and not (ROOT / "gomocup_bot" / p).exists()]
    assert not missing, "\n".join(missing)
