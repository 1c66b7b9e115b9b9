"""The docs can be followed: no ordinal time references, no dead relative links.

1. Nothing in the docs, the data READMEs or our Python says *when* something was done by an
   ordinal of the work ("the forty-first session", "in the third stop", "sessions 20-23"): a reader
   cannot follow such a reference anywhere. Say the date and the commit instead, and what and why.
   Ordinals that are not about time stay legal ("the first move", "the second core", "a third
   choice"): the pattern keys on the time nouns (session, stop, sitting) next to an ordinal or a
   number, and on an ordinal used as a noun in the possessive ("the thirtieth's four").
2. Every relative markdown link in `docs/**/*.md` and `README.md` points at a file that exists,
   and at a heading of it when it names an anchor (GitHub's heading slugs).

Module paths the docs name are checked by `tests/test_layout.py`.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# --- 1. ordinal time references ---------------------------------------------------------------

_UNITS = ("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
          "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth").split()
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_TENTHS = ("twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", "seventieth", "eightieth", "ninetieth")
_SMALL_UNITS = "|".join(_UNITS[:9])
# an ordinal, as a word ("forty-first", "twenty third", "eighteenth") or a number ("41st", "3rd")
ORDINAL = (
    rf"(?:(?:{'|'.join(_TENS)})[\s-]+(?:{_SMALL_UNITS})|{'|'.join(_TENTHS)}|{'|'.join(_UNITS)}|\d+(?:st|nd|rd|th))"
)
TIME_NOUN = r"(?:session|stop|sitting)s?"
_APOS = r"['\u2019]"
ORDINAL_TIME = re.compile(
    "|".join(
        (
            # "the forty-first session", "twenty-third session's", "in the third stop", "the 41st session",
            # "the ninth and tenth sessions", "the twenty-fifth to twenty-seventh sessions'"
            rf"\b{ORDINAL}(?:{_APOS}s)?(?:\s*(?:,|and|or|to|through|-|\u2013)\s*{ORDINAL})*[\s-]+{TIME_NOUN}\b",
            # "sessions 20-23", "session 41", "Stop 39's CI", "session-26"
            rf"\b{TIME_NOUN}[\s-]+(?:no\.?\s*|#)?\d+(?![\d.]*\s*(?:s|ms|%|x)\b)",
            # an ordinal as a noun in the possessive, the noun left out: "the thirtieth's four",
            # "after the twenty-fifth's" (not "the first's" / "the second's": a second is also a time unit)
            rf"\bthe\s+(?:(?:{'|'.join(_TENS)})[\s-]+(?:{_SMALL_UNITS})|{'|'.join(_TENTHS)}|{'|'.join(_UNITS[3:])}){_APOS}s\b",
        )
    ),
    re.IGNORECASE,
)

PY_DIRS = ("protocol", "gomocup_bot", "tournament", "benchmarks", "tests", "tools")
SELF = Path(__file__).resolve()


def scanned_files() -> dict[str, list[Path]]:
    """Files to scan, by group: the docs, the README, the data READMEs, and each code folder."""
    groups = {
        "docs": sorted((ROOT / "docs").rglob("*.md")),
        "README.md": [ROOT / "README.md"],
        "data": sorted((ROOT / "data").rglob("README.md")) if (ROOT / "data").is_dir() else [],
    }
    for top in PY_DIRS:
        if (ROOT / top).is_dir():
            groups[top] = [p for p in sorted((ROOT / top).rglob("*.py")) if p.resolve() != SELF]
    return groups


def ordinal_hits(text: str) -> list[tuple[int, str]]:
    """(line, matched text) for every ordinal time reference; a match may span a line break.
    "first session" alone is also a brain's first session over TCP ("the server's first
    sessions"), so it counts only as "the first session" in the singular."""
    hits = []
    for m in ORDINAL_TIME.finditer(text):
        words = m.group(0).lower().split()
        if words[0] == "first" and (words[-1].startswith("sessions") or not text[: m.start()].rstrip().lower().endswith("the")):
            continue
        line = text.count("\n", 0, m.start()) + 1
        hits.append((line, " ".join(m.group(0).split())))
    return hits


def ordinal_report(paths: list[Path]) -> list[str]:
    out = []
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        out += [f"{path.relative_to(ROOT)}:{line}: {found!r}" for line, found in ordinal_hits(text)]
    return out


@pytest.mark.parametrize("group", list(scanned_files()))
def test_no_ordinal_time_references(group: str) -> None:
    """Say the date and the commit (and what and why), never "the Nth session"."""
    hits = ordinal_report(scanned_files()[group])
    assert not hits, f"{len(hits)} ordinal time reference(s); name the date and commit instead:\n" + "\n".join(hits)


@pytest.mark.parametrize(
    "text",
    [
        "as measured in the forty-first session",
        "the twenty-third session's figures",
        "the Twenty third session",
        "in the third stop",
        "the 41st session",
        "the 3rd sitting",
        "sessions 20-23",
        "Session 41 measured it",
        "Stop 39's CI took 886 s",
        "the ninth and tenth sessions",
        "the twenty-fifth to twenty-seventh sessions' search changes",
        "the seventeenth\nsession's openings",
        "without it and the thirtieth's four",
        "after the twenty-fifth's, 458,308 after",
        "the session-26 start",
        "the first session",
    ],
)
def test_the_pattern_catches_ordinal_time_references(text: str) -> None:
    assert ordinal_hits(text), text


@pytest.mark.parametrize(
    "text",
    [
        "the first move after START",
        "the second core is busy",
        "a third choice at the root",
        "the fifth stone of the line",
        "the first search of the session",
        "one session per connection, the session ends at END",
        "a second's budget",
        "the stop flag, stopped at 1.15 x the plan",
        "stop 2 s before the deadline",
        "the tenth game, the first 40 positions, sessions of the server",
        "the first stopped iteration",
        "so that even its first sessions answer an overload",
        "loads the quick move in the server's first session",
    ],
)
def test_the_pattern_leaves_other_ordinals_alone(text: str) -> None:
    assert not ordinal_hits(text), ordinal_hits(text)


# --- 2. relative links -------------------------------------------------------------------------

LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(\s*)(```|~~~)")


def _strip_code(text: str, inline: bool = True) -> str:
    """The text with fenced blocks (and inline code spans) blanked: links there are not links."""
    out, fence = [], None
    for line in text.split("\n"):
        m = FENCE.match(line)
        if fence:
            out.append("")
            if m and m.group(2) == fence:
                fence = None
            continue
        if m:
            fence = m.group(2)
            out.append("")
            continue
        out.append(re.sub(r"(`+)(?:(?!\1).)+?\1", lambda g: " " * len(g.group(0)), line) if inline else line)
    return "\n".join(out)


def github_slug(heading: str) -> str:
    """GitHub's anchor for a heading: inline markup dropped, lower case, punctuation other than
    '-' and '_' removed, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # [text](url) -> text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor of a markdown file: headings' slugs (repeats numbered -1, -2, ...)."""
    seen: dict[str, int] = {}
    found = set()
    for line in _strip_code(path.read_text(encoding="utf-8"), inline=False).split("\n"):
        m = re.match(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = github_slug(m.group(2))
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def dead_links(path: Path, root: Path = ROOT) -> list[str]:
    problems = []
    text = _strip_code(path.read_text(encoding="utf-8"))
    for m in LINK.finditer(text):
        target = m.group(1)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
            continue  # http:, https:, mailto: ...
        line = text.count("\n", 0, m.start()) + 1
        where = f"{path.relative_to(root)}:{line}: ({target})"
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            problems.append(f"{where}: no such file")
            continue
        if anchor and dest.suffix == ".md" and anchor.lower() not in anchors(dest):
            problems.append(f"{where}: no heading with the anchor #{anchor} in {dest.relative_to(root)}")
    return problems


MARKDOWN = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_lead_somewhere(path: Path) -> None:
    problems = dead_links(path)
    assert not problems, "\n".join(problems)


def test_the_link_checker_sees_dead_files_and_anchors(tmp_path: Path) -> None:
    """Not vacuous: a missing file and a missing anchor are reported; a good link, a link in code,
    an outside link and an anchor of a repeated heading are not."""
    (tmp_path / "b.md").write_text("# The `one` board: 2 cores!\n\n## Again\n\n## Again\n", encoding="utf-8")
    a = tmp_path / "a.md"
    a.write_text(
        "[ok](b.md) [ok](b.md#the-one-board-2-cores) [ok](b.md#again-1) [ok](#here) [web](https://x.org/y)\n"
        "`[code](nowhere.md)`\n```\n[fenced](nowhere.md)\n```\n# Here\n"
        "[bad](c.md) [bad](b.md#nothing)\n",
        encoding="utf-8",
    )
    found = dead_links(a, tmp_path)
    assert len(found) == 2, found
    assert "a.md:7: (c.md): no such file" in found[0]
    assert "#nothing" in found[1]


def test_github_slugs() -> None:
    assert github_slug("2026-11-27, 0fd660c: Reductions at the root, and a singular extension") == (
        "2026-11-27-0fd660c-reductions-at-the-root-and-a-singular-extension"
    )
    assert github_slug("Root checks (`search/rootcheck.py`) and time") == "root-checks-searchrootcheckpy-and-time"
    assert github_slug("The defence set's failures, 95.8 %") == "the-defence-sets-failures-958-"
