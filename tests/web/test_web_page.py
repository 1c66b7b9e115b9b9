"""The web board and the HTML report in a real headless Chromium, against a real server and real engines."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tournament.results.store import Store

from web_helpers import HERE, ROOT, wait_no_children

pytestmark = pytest.mark.slow

WAIT = 20  # seconds any one page change may take (engines start as processes)


def _wait(driver, condition, timeout: float = WAIT, what: str = ""):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: condition(d), message=what)


def _count(driver, css: str) -> int:
    return len(driver.find_elements("css selector", css))


def _new_game(driver, engine: str, colour: str = "black", size: int = 15, turn: str = "1") -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", "engine")).select_by_value(engine)
    Select(driver.find_element("id", "size")).select_by_value(str(size))
    Select(driver.find_element("id", "colour")).select_by_value(colour)
    box = driver.find_element("id", "turn")
    box.clear()
    box.send_keys(turn)
    driver.find_element("id", "new").click()


def _open(driver, url: str) -> None:
    driver.get(url)
    _wait(driver, lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "1", what="page never got the engine list")


def _numbers(driver, css: str) -> list[str]:
    """The numbers written on the board's stones (`text.num`) or on its expected line (`g.pv text`).
    Read in one script call: the live thinking lines redraw the board, and elements found first and
    read one by one can be gone by then (a stale element reference)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]), e => e.textContent)", css)


def _click(driver, x: int, y: int) -> None:
    driver.execute_script(
        "document.querySelector('#board rect.hit[data-x=\"%d\"][data-y=\"%d\"]').dispatchEvent(new MouseEvent('click', {bubbles: true}))" % (x, y)
    )


def test_play_against_greedy_undo_and_finish(browser, start_server, shots):
    server = start_server("builtin:greedy", "builtin:random")
    _open(browser, server.url)
    assert [o.text for o in browser.find_elements("css selector", "#engine option")] == ["greedy", "random"]
    _new_game(browser, "greedy")
    _wait(browser, lambda d: _count(d, "#board rect.hit") == 225, what="empty clickable board")

    # a real click on a square: our stone, then the engine's, and the move list grows to two
    browser.find_element("css selector", '#board rect.hit[data-x="7"][data-y="7"]').click()
    _wait(browser, lambda d: _count(d, "#board circle.stone") == 2 and _count(d, "#moves li") == 2, what="engine's answer")
    assert _count(browser, "#board circle.stone.black") == 1 and _count(browser, "#board circle.stone.white") == 1
    assert browser.find_element("css selector", "#moves li").text.startswith("7,7")
    browser.save_screenshot(str(shots / "play-first-moves.png"))

    # undo takes back the engine's stone and ours
    _wait(browser, lambda d: d.find_element("id", "undo").is_enabled())
    browser.find_element("id", "undo").click()
    _wait(browser, lambda d: _count(d, "#moves li") == 0 and _count(d, "#board rect.hit") == 225, what="undo")

    # play far from the engine until the game ends: greedy builds its five
    order = [(x, y) for y in (0, 14, 1, 13) for x in range(15)]
    for _ in range(40):
        if browser.find_element("id", "result").text:
            break
        before = _count(browser, "#moves li")
        free = [(x, y) for x, y in order if _count(browser, f'#board rect.hit[data-x="{x}"][data-y="{y}"]')]
        _click(browser, *free[0])
        _wait(browser, lambda d: d.find_element("id", "result").text or _count(d, "#moves li") >= before + 2, what="a move pair")
        _wait(browser, lambda d: d.find_element("id", "result").text or _count(d, "#board rect.hit") > 0)
    result = browser.find_element("id", "result")
    assert "greedy wins" in result.text and "five" in result.text
    assert result.get_attribute("data-ending") == "five"
    browser.save_screenshot(str(shots / "play-result.png"))
    assert server.stop() == 0
    assert wait_no_children(server.pid) == []


def test_engine_thinking_is_shown_live(browser, start_server, shots, tmp_path):
    log = tmp_path / "thinker.log"
    thinker = f"thinker={sys.executable} {HERE / 'thinking_brain.py'} --delay 1.5 --log {log}"
    server = start_server(thinker, "builtin:greedy")
    _open(browser, server.url)
    _new_game(browser, "thinker", colour="white", turn="5")
    # while the engine thinks: its summary line, and its principal variation drawn on the board
    _wait(browser, lambda d: "depth 4" in d.find_element("id", "thinking").text, what="thinking lines")
    _wait(browser, lambda d: _count(d, "#board g.pv") == 3, what="PV on the board")
    assert _numbers(browser, "#board g.pv text") == ["1", "2", "3"]  # the engine opens: its line is moves 1-3
    assert "thinking" in browser.find_element("id", "status").text
    assert "winrate 61.5%" in browser.find_element("id", "thinking-head").text
    browser.save_screenshot(str(shots / "play-thinking.png"))
    _wait(browser, lambda d: _count(d, "#board circle.stone") == 1 and not d.find_element("id", "undo").get_attribute("disabled"), what="the move")
    # after its move: the rest of its PV, what it expects next, numbered on from the stone it played
    assert _numbers(browser, "#board text.num") == ["1"] and _numbers(browser, "#board g.pv text") == ["2", "3"]
    # swap: we take black's stone, the engine now plays white
    browser.find_element("id", "swap").click()
    _wait(browser, lambda d: _count(d, "#board circle.stone") == 2 and _count(d, "#board g.pv") == 2, what="engine's move after the swap")
    # its line was searched on one stone: its move is 2, the ghosts 3 and 4 -- none repeats a stone's number
    assert _numbers(browser, "#board text.num") == ["1", "2"] and _numbers(browser, "#board g.pv text") == ["3", "4"]
    browser.save_screenshot(str(shots / "play-expected-line.png"))
    assert "you (black)" in browser.find_element("id", "clock-human").text
    _click(browser, 0, 0)
    _wait(browser, lambda d: _count(d, "#board circle.stone") == 4, what="engine's answer")
    browser.find_element("id", "undo").click()
    _wait(browser, lambda d: _count(d, "#board circle.stone") == 2, what="undo")
    transcript = log.read_text()
    assert "TAKEBACK" in transcript and "INFO show_detail 3" in transcript
    browser.get("about:blank")  # the page goes away: its engine must end
    assert wait_no_children(server.pid) == []


def test_watch_a_database_and_replay(browser, start_server, shots, match_db, tmp_path):
    db = tmp_path / "live.sqlite"
    shutil.copy(match_db, db)
    server = start_server("builtin:greedy", "--db", str(db))
    _open(browser, server.url)
    browser.find_element("id", "tab-watch").click()
    _wait(browser, lambda d: _count(d, "#watch-standings tr.standing") == 2, what="standings")
    names = [e.text for e in browser.find_elements("css selector", "#watch-standings tr.standing td.name")]
    assert set(names) == {"greedy", "random"}
    assert _count(browser, "#watch-chart svg circle") == 2
    _wait(browser, lambda d: _count(d, "#watch-games tr") == 4)
    browser.find_elements("css selector", "#watch-games tr")[0].click()
    _wait(browser, lambda d: _count(d, "#watch-replay .slider") == 1, what="replay board")
    total = _count(browser, "#watch-replay circle.stone")
    assert total >= 9
    browser.execute_script(
        "var s = document.querySelector('#watch-replay .slider'); s.value = 3; s.dispatchEvent(new Event('input'));"
    )
    _wait(browser, lambda d: _count(d, "#watch-replay circle.stone") == 3)
    browser.find_element("css selector", "#watch-replay button.next").click()
    _wait(browser, lambda d: _count(d, "#watch-replay circle.stone") == 4)
    browser.save_screenshot(str(shots / "watch-replay.png"))
    # a running tournament stores another game: the page shows it without a reload
    with Store(db) as store:
        game = store.games()[0]
        game.slot = 99
        store.record_game(game)
    _wait(browser, lambda d: _count(d, "#watch-games tr") == 5, what="the new game")
    assert browser.find_elements("css selector", "#watch-games tr")[0].get_attribute("data-slot") == "99"
    assert "5 games" in browser.find_element("id", "db-info").text
    colour_rows = browser.find_elements("css selector", "#watch-colours tbody tr")
    assert sorted(r.find_element("css selector", "th.name").text for r in colour_rows) == ["greedy", "random"]
    for row in colour_rows:  # every game counts once for each engine, as black or as white
        cells = [td.text for td in row.find_elements("css selector", "td") if td.text != "-"]
        assert sum(int(c.split("/")[1]) for c in cells) == 5


def test_html_report_opens_offline(browser, match_db, shots, tmp_path):
    out = tmp_path / "report.html"
    done = subprocess.run(
        [sys.executable, "-m", "tournament.cli", "report", str(match_db), "--html", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in text
    browser.get(out.as_uri())
    rows = browser.find_elements("css selector", "#standings tr.standing")
    assert [r.find_element("css selector", "td.name").text for r in rows] == ["greedy", "random"]
    assert _count(browser, "svg.elo-chart circle") == 2
    assert "LLR" in browser.find_element("id", "sprt").text
    colour_rows = browser.find_elements("css selector", "#by-colour tbody tr")
    assert [r.find_element("css selector", "th.name").text for r in colour_rows] == ["greedy", "random"]
    browser.save_screenshot(str(shots / "report-top.png"))
    games = browser.find_elements("css selector", "details.game")
    assert len(games) == 4
    games[0].find_element("tag name", "summary").click()
    _wait(browser, lambda d: _count(d, "details.game .slider") == 1, what="replay board in the report")
    final = _count(browser, "details.game circle.stone")
    browser.find_element("css selector", "details.game button.first").click()
    assert _count(browser, "details.game circle.stone") == 0
    browser.execute_script(
        "var s = document.querySelector('details.game .slider'); s.value = 5; s.dispatchEvent(new Event('input'));"
    )
    assert _count(browser, "details.game circle.stone") == 5 < final
    browser.save_screenshot(str(shots / "report.png"))


def test_page_with_a_token(browser, start_server):
    server = start_server("builtin:greedy", "--token", "tok-123")
    browser.delete_all_cookies()
    browser.get(server.base)
    assert "token is required" in browser.find_element("tag name", "body").text
    _open(browser, server.url)  # ?token=...: the page, its files (cookie) and its WebSocket all get in
    _new_game(browser, "greedy")
    _wait(browser, lambda d: _count(d, "#board rect.hit") == 225, what="a game through the token")
    _click(browser, 7, 7)
    _wait(browser, lambda d: _count(d, "#moves li") == 2, what="engine's answer")
