"""Fixtures for the web board tests: a real server process on 127.0.0.1 and a real headless Chromium.

Chromium and chromedriver come from the distribution (`.ci/run` installs them); no browser is ever
downloaded. Screenshots go to $GOMOKU_WEB_SHOTS when set, else to a pytest temporary folder (its path
is printed), so a person can look at them.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from web_helpers import CHROME_FLAGS, CHROMEDRIVER, CHROMIUM, ROOT, WebServer


@pytest.fixture
def start_server():
    servers: list[WebServer] = []

    def start(*args: str) -> WebServer:
        server = WebServer(list(args))
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def match_db(tmp_path_factory) -> Path:
    """A small finished match (greedy vs random, with an SPRT) to watch and report."""
    db = tmp_path_factory.mktemp("web-db") / "match.sqlite"
    done = subprocess.run(
        [sys.executable, "-m", "tournament.cli", "match", "builtin:greedy", "builtin:random", "--pairs", "2",
         "--turn", "0.5", "--db", str(db), "--no-warmup", "-q", "--sprt", "0,10", "--concurrency", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return db


@pytest.fixture(scope="session")
def shots(tmp_path_factory) -> Path:
    folder = Path(os.environ["GOMOKU_WEB_SHOTS"]) if os.environ.get("GOMOKU_WEB_SHOTS") else tmp_path_factory.mktemp("web-screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots in {folder}")
    return folder


@pytest.fixture(scope="session")
def browser():
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        if os.environ.get("CI"):
            pytest.fail("chromium / chromium-driver are not installed (.ci/run should have installed them)")
        pytest.skip("chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="web-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)
