"""`tools/` holds the generators, `tests/` only tests (issue 70).

Each tool is a command with its own `--help` that says what it builds; no module under `tests/`
is a command except the fake brains the tests start as processes; and the package build never
ships `tools/`.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[1]
TOOLS = sorted(p for p in (ROOT / "tools").glob("*.py") if p.name != "__init__.py")
# scripted brains that tests run as subprocesses (`python tests/.../x.py`): programs, but fixtures
FAKE_BRAINS = {"tests/web/thinking_brain.py", "tests/tournament/fake_brain.py"}


def has_main_guard(path: Path) -> bool:
    """Does the module end in `if __name__ == "__main__":`, i.e. is it meant to be run?"""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            names = [n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)]
            values = [n.value for n in ast.walk(node.test) if isinstance(n, ast.Constant)]
            if names == ["__name__"] and values == ["__main__"]:
                return True
    return False


def test_there_are_tools() -> None:
    assert {p.stem for p in TOOLS} >= {"make_defence_set", "make_tactics_sets"}


@pytest.mark.parametrize("path", TOOLS, ids=lambda p: p.stem)
def test_each_tool_answers_help_with_its_docstring(path: Path) -> None:
    """`python -m tools.NAME --help` exits 0 and prints the module docstring's first line: the
    docstring is the tool's manual, so it must say what it builds."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert doc and "Why" in doc, f"{path.name}: the docstring says what it builds and why"
    done = subprocess.run([sys.executable, "-m", f"tools.{path.stem}", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:")
    assert doc.splitlines()[0] in done.stdout
    assert has_main_guard(path)


def test_no_module_under_tests_is_a_command() -> None:
    """Generators live in tools/ (or benchmarks/ when they measure): a module of tests/ that runs
    as a program is either one of the fake brains or a generator in the wrong place."""
    commands = {str(p.relative_to(ROOT)) for p in sorted((ROOT / "tests").rglob("*.py")) if has_main_guard(p)}
    assert commands == FAKE_BRAINS


def test_the_main_guard_check_is_not_vacuous(tmp_path: Path) -> None:
    script = tmp_path / "gen.py"
    script.write_text('def main():\n    pass\n\n\nif __name__ == "__main__":\n    main()\n')
    assert has_main_guard(script)
    script.write_text('NAME = __name__\nif NAME == "x":\n    pass\n')
    assert not has_main_guard(script)


def test_the_package_build_leaves_tools_out() -> None:
    """pyproject's `packages.find` include list, as setuptools applies it to this tree."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    find = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    shipped = find_packages(str(ROOT), include=find["include"], exclude=find.get("exclude", ()))
    assert "gomocup_bot" in shipped and "protocol" in shipped
    assert not [p for p in shipped if p.split(".")[0] in {"tools", "tests", "benchmarks"}], shipped
