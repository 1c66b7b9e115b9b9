"""Every Python example in docs/api.md runs, each in a fresh interpreter, so the guide cannot rot."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("no_leftovers")

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "api.md"
EXAMPLES = re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M)
RUNNABLE = [code for code in EXAMPLES if "\n" in code.strip()]  # a one-line import is shown, not run


def test_the_guide_has_its_examples() -> None:
    assert len(RUNNABLE) == 6  # play (sync and async), two engines, labelling, a known win, analysis


@pytest.mark.parametrize("code", RUNNABLE, ids=[f"example{i + 1}" for i in range(len(RUNNABLE))])
def test_example_runs(code: str, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert done.stdout.strip(), "every example prints what it found"


# every `from tournament... import ...` / `import tournament...` statement the README and the docs show
IMPORT_LINE = re.compile(r"^\s*((?:from tournament[\w.]* import [\w, ]+\w)|(?:import tournament[\w.]*))\s*(?:#.*)?$", re.M)
DOCUMENTED_IMPORTS = sorted({
    match.group(1)
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for match in IMPORT_LINE.finditer(path.read_text(encoding="utf-8").replace("`", "\n"))
})


def test_the_docs_show_the_engine_api_import_path() -> None:
    assert "from tournament.engine import SimpleEngine, Engine, Position, Limit" in DOCUMENTED_IMPORTS


@pytest.mark.parametrize("statement", DOCUMENTED_IMPORTS)
def test_every_documented_import_works(statement: str) -> None:
    """The import paths the README and the docs give users keep working whatever the package's rooms."""
    names: dict[str, object] = {}
    exec(statement, names)  # noqa: S102 - our own docs' import lines
    imported = [n.strip() for n in statement.partition(" import ")[2].split(",")] if statement.startswith("from ") else []
    assert all(names.get(name) is not None for name in imported), statement
