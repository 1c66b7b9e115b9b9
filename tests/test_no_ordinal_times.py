"""No text says when something was done by the ordinal of a work session (issue 70).

"Since the fortieth session" cannot be followed anywhere; a comment or a data README says what was
done and why, with the figure, a date or commit and the doc section to read. This checks the
code, the tests, the tools and the data READMEs; the docs and `tournament/` join the list as they
are rewritten.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("gomocup_bot", "protocol", "benchmarks", "tools", "tests")
NOT_YET = ("tests/tournament/",)  # being moved into sub-packages on another branch

_UNITS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth"
ORDINAL = (rf"(?:{_UNITS}|tenth|eleventh|twelfth|\w+teenth|\w+tieth|(?:twenty|thirty|forty|fifty)-(?:{_UNITS})"
           r"|\d+(?:st|nd|rd|th))")
# an ordinal before "session"/"sitting" (one word may sit between: "fourteenth and fifteenth sessions"),
# or "session 12" / "sessions 20-23"
ORDINAL_TIME = re.compile(rf"\b{ORDINAL}(?:'s)?(?:[ -]+\w+)?[ -]+(?:sessions?|sittings?)\b|\bsessions? +\d+\b",
                          re.IGNORECASE)


def checked_files() -> list[Path]:
    files = [p for top in CHECKED for ext in ("py", "md", "txt") for p in sorted((ROOT / top).rglob(f"*.{ext}"))]
    files += sorted((ROOT / "data").rglob("README.md"))
    here = Path(__file__).resolve()  # its own examples below
    return [p for p in files
            if p != here and not str(p.relative_to(ROOT)).startswith(NOT_YET) and "__pycache__" not in p.parts]


def test_the_pattern_finds_the_forms_it_is_for() -> None:
    found = ["since the fortieth session", "docs/search.md, twelfth session)", "the thirty-first session's",
             "Fourth session of 2026-11-26", "fourteenth and fifteenth sessions", "the 12th sitting",
             "in session 12", "sessions 20-23"]
    for text in found:
        assert ORDINAL_TIME.search(text), text
    for text in ["the first move", "the second core", "a session's engine", "a third of its passes",
                 "the server's sessions", "every session ended", "the 99th percentile"]:
        assert not ORDINAL_TIME.search(text), text


@pytest.mark.parametrize("path", checked_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_ordinal_time_reference(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    hits = [f"{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}" for m in ORDINAL_TIME.finditer(text)]
    assert not hits, "say what and why, with the figure and a date, commit or doc section:\n" + "\n".join(hits)
