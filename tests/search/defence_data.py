"""The real defence set (tests/search/data/defence_positions.json) for the tests that take a position from it."""
from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).parent / "data" / "defence_positions.json"


def record(source: str) -> dict:
    """The set's record of a position, kept or dropped (a dropped one has no holding move left)."""
    doc = json.loads(DATA.read_text())
    return next(r for r in doc["positions"] + doc.get("dropped", []) if r["source"] == source)
