"""The page of `gomocup-tournament analyse --html` in a real headless Chromium: the graph is drawn,
clicking a blunder moves the replay board to it and shows the refutation, clicking the graph moves
the board too. The analysis itself is real (our brain, small budgets) on a short known game."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from web_helpers import ROOT

pytestmark = pytest.mark.slow

# black's four-three on (7,7) after white's move 10 (5,5) ignores it (as in tests/tournament/test_analyse_cli.py)
KNOWN_BLUNDER = (
    "(;FF[4]GM[4]GN[1]EV[constructed]RU[0]SZ[15]PB[alice]PW[bob]RE[B+1]TE[five connection]"
    ";B[fh];W[gg];B[eh];W[dh];B[gh];W[fg];B[hf];W[eg];B[hg];W[ff];B[hh];W[ih];B[hi];W[dg];B[hj])\n"
)


def _stones(driver) -> int:
    return len(driver.find_elements("css selector", "details.game .replay circle.stone"))


def test_analysis_page_graph_and_blunder_jump(browser, shots, tmp_path: Path) -> None:
    record, page, data = tmp_path / "known.sgf", tmp_path / "analysis.html", tmp_path / "analysis.json"
    record.write_text(KNOWN_BLUNDER)
    done = subprocess.run(
        [sys.executable, "-m", "tournament.cli", "analyse", str(record), "--fast", "0.2", "--deep", "0.5",
         "--candidates", "2", "--no-warmup", "-q", "--html", str(page), "--json", str(data)],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert done.returncode == 0, done.stderr
    text = page.read_text()
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in text
    (game,) = json.loads(data.read_text())["games"]
    (blunder,) = game["blunders"]

    browser.get(page.as_uri())
    # the graph: one point per evaluated position, the final five, the lost-at line, one blunder mark
    points = browser.find_elements("css selector", "svg.eval-graph circle.point")
    assert len(points) == len(game["trail"]) + 1
    assert browser.find_elements("css selector", "svg.eval-graph polyline.trail")
    assert len(browser.find_elements("css selector", "svg.eval-graph line.lost-at")) == 1
    marks = browser.find_elements("css selector", "svg.eval-graph circle.blunder-mark")
    assert len(marks) == 1 and marks[0].get_attribute("data-ply") == str(blunder["ply"] + 1)
    assert "1 began with a blunder" in browser.find_element("id", "summary").text
    # the replay board starts at the end of the game
    assert _stones(browser) == len(game["moves"])
    browser.save_screenshot(str(shots / "analyse-top.png"))

    # clicking the blunder mark: the board shows the position right after the blunder, the blunder
    # marked as the last move, and the refutation as ghost stones
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", marks[0])
    after = blunder["ply"] + 1
    assert _stones(browser) == after
    assert browser.find_element("css selector", "details.game .replay .ply").text.startswith(f"move {after} / {len(game['moves'])}: 5,5")
    ghosts = browser.find_elements("css selector", "details.game .replay g.pv")
    assert len(ghosts) == len(blunder["refutation"]) >= 1
    last = browser.find_element("css selector", "details.game .replay circle.last")
    assert (last.get_attribute("cx"), last.get_attribute("cy")) == ("180", "180")  # (5,5): 30 + 5 * 30
    row = browser.find_element("css selector", "table.blunders tr.blunder")
    assert "sel" in row.get_attribute("class")
    cursor = browser.find_element("css selector", "svg.eval-graph line.cursor")
    hit = browser.find_element("css selector", f'svg.eval-graph rect.ply-hit[data-ply="{after}"]')
    assert abs(float(cursor.get_attribute("x1")) - (float(hit.get_attribute("x")) + float(hit.get_attribute("width")) / 2)) < 0.1
    browser.save_screenshot(str(shots / "analyse-blunder.png"))

    # the graph elsewhere: move 4; then the blunder's table row brings the board back
    browser.execute_script(
        "document.querySelector('svg.eval-graph rect.ply-hit[data-ply=\"4\"]').dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    assert _stones(browser) == 4 and not browser.find_elements("css selector", "details.game .replay g.pv")
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", row)
    assert _stones(browser) == after
