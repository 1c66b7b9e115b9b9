"""The web board's parts without a browser: thinking lines, the HTML report's data, the CLI, import costs."""
from __future__ import annotations

import subprocess
import sys

from tournament.game.endings import Ending
from tournament.game.record import BLACK_WON, GameRecord, MoveRecord
from tournament.report.html import render_html, summary, write_html_report
from tournament.results.store import Store
from tournament.web.play import thinking_info
from web_helpers import ROOT


class _View:
    """Enough of the search's BoardView for `summary_text` (15 columns, row-major points)."""

    @staticmethod
    def xy(p: int) -> tuple[int, int]:
        return p % 15, p // 15


def test_thinking_info_reads_the_brains_own_summary_line():
    from gomocup_bot.search.adapter import summary_text

    text = summary_text("minimax", _View, depth=6, nodes=4200, winrate=0.625, pv=[7 * 15 + 7, 8 * 15 + 8, 9 * 15 + 6],
                        seconds=0.2, extra="threads 1 score 120")
    info = thinking_info("MESSAGE " + text)
    assert info["kind"] == "summary" and info["depth"] == 6 and info["nodes"] == 4200
    assert info["winrate"] == 0.625 and info["score"] == 120
    assert info["pv"] == [[7, 7], [8, 8], [6, 9]]
    assert thinking_info("MESSAGE REALTIME BEST 3,4") == {"kind": "best", "move": [3, 4]}
    assert thinking_info("MESSAGE REALTIME REFRESH") is None
    assert thinking_info("7,7") is None and thinking_info("DEBUG x") is None


def _game(black: str, white: str, slot: int) -> GameRecord:
    moves = [MoveRecord(x, 7, 5) if i % 2 == 0 else MoveRecord(x, 8, 5) for i, x in enumerate([3, 3, 4, 4, 5, 5, 6, 6, 7])]
    return GameRecord(black=black, white=white, width=15, height=15, rule=0, win_length=5, result=BLACK_WON,
                      ending=Ending.FIVE, detail="five", moves=moves, slot=slot, pair_index=slot // 2)


def test_html_report_escapes_names_and_handles_an_empty_database(tmp_path):
    empty = tmp_path / "empty.sqlite"
    Store(empty).close()
    out = tmp_path / "empty.html"
    assert write_html_report(empty, out) == 0
    assert "no games yet" in out.read_text()

    db = tmp_path / "odd.sqlite"
    with Store(db) as store:
        store.add_engine("<script>alert(1)</script>", "builtin:greedy")
        store.add_engine("b&b", "builtin:random")
        store.record_game(_game("<script>alert(1)</script>", "b&b", 0))
        store.record_game(_game("b&b", "<script>alert(1)</script>", 1))
        games = store.games()
    data = summary(games, None)
    assert {r["name"] for r in data["standings"]} == {"<script>alert(1)</script>", "b&b"}
    page = render_html(data, "odd")
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<script>") == 2  # the board code and the replay glue, nothing else
    assert 'class="game"' in page and page.count('<details class="game"') == 2


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tournament.cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_cli_help_and_bad_arguments(tmp_path):
    done = _cli("web", "--help")
    assert done.returncode == 0 and "--token" in done.stdout and "--db" in done.stdout and "127.0.0.1" in done.stdout
    assert "--html" in _cli("report", "--help").stdout
    assert "web" in _cli("--help").stdout
    for args, words in (
        (("web", "--port", "70000", "--no-warmup"), "--port"),
        (("web", "--db", str(tmp_path / "missing.sqlite"), "--no-warmup"), "no database"),
        (("web", "builtin:Bad Name", "--no-warmup"), "bad built-in"),
        (("web", "--token", " ", "--no-warmup"), "token"),
        (("report", str(tmp_path / "missing.sqlite"), "--html", str(tmp_path / "r.html")), "no database"),
    ):
        done = _cli(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert words in done.stderr and "Traceback" not in done.stderr
    db = tmp_path / "x.sqlite"
    Store(db).close()
    done = _cli("report", str(db), "--html", str(tmp_path / "no" / "such" / "dir" / "r.html"))
    assert done.returncode == 2 and "cannot write" in done.stderr and "Traceback" not in done.stderr


def test_brain_and_other_commands_do_not_import_the_web_stack():
    code = (
        "import sys, gomocup_bot, gomocup_bot.brain.main, gomocup_bot.cli, tournament.cli;"
        "tournament.cli.build_parser();"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'starlette', 'hypercorn', 'selenium', 'anyio', 'wsproto', 'h11'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_html_report_counts_only_losses_not_by_five_in_that_column(tmp_path):
    db = tmp_path / "faults.sqlite"
    timed_out = _game("a", "b", 1)
    timed_out.ending, timed_out.detail = Ending.TIME_TURN, "b: move arrived after 2100ms"
    with Store(db) as store:
        store.add_engine("a", "builtin:greedy")
        store.add_engine("b", "builtin:random")
        store.record_game(_game("a", "b", 0))  # b loses by a five: not a fault
        store.record_game(timed_out)  # b loses on time: a fault
        games = store.games()
    data = summary(games, None)
    assert data["losses_by"].get("b") == {Ending.TIME_TURN.value: 1}
    assert "a" not in data["losses_by"]
