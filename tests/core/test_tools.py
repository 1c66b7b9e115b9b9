"""`gomocup-bot bench` and `gomocup-bot warmup` as real subprocesses, and memory sizing."""
from __future__ import annotations

import subprocess
import sys

from gomocup_bot.core.memory import current_rss, entries_for, peak_rss, table_budget


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gomocup_bot", *args], capture_output=True, text=True, timeout=600)


def test_bench_prints_every_figure_and_a_stable_checksum():
    first = run_cli("bench", "--scale", "0.01")
    assert first.returncode == 0, first.stderr
    values = dict(line.split(None, 1) for line in first.stdout.strip().splitlines())
    for key in ("make_unmake_ns_per_pair", "light_playouts_per_s", "heavy_playouts_per_s", "depth3_playouts_per_s",
                "threat_check_us", "vcf_nodes_per_s", "checksum"):
        assert key in values
        assert float(values[key].replace(",", "")) > 0, key
    second = run_cli("bench", "--scale", "0.01")
    again = dict(line.split(None, 1) for line in second.stdout.strip().splitlines())
    assert again["checksum"] == values["checksum"] and again["search_checksum"] == values["search_checksum"]


def test_warmup_exits_cleanly_and_says_so_on_stderr():
    done = run_cli("warmup", "--core-only", "--jobs", "2")  # the two board kinds in two processes
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "warmed core (" in done.stderr and "warmed core-big-k (" in done.stderr and "2 processes" in done.stderr
    one = run_cli("warmup", "--jobs", "1", "--parts", "core")
    assert one.returncode == 0 and one.stderr.startswith("warmed core (") and "big-k" not in one.stderr


def test_warmup_refuses_unknown_parts_with_the_list():
    done = run_cli("warmup", "--parts", "core,pvz")
    assert done.returncode == 2 and "pvz" in done.stderr and "pvs-big-k" in done.stderr


def test_memory_budget_and_table_sizes():
    assert current_rss() > 0 and peak_rss() >= current_rss() // 2
    budget = table_budget(350 << 20, share=0.5, rss=150 << 20)
    assert budget == int(((350 << 20) - (150 << 20) - (32 << 20)) * 0.5)
    n = entries_for(budget, 8)
    assert n & (n - 1) == 0 and n * 8 <= budget < n * 16
    assert table_budget(100 << 20, rss=200 << 20) == 0 and entries_for(0, 8) == 1024
    assert table_budget(0, rss=0) > table_budget(200 << 20, rss=0)  # 0 = no limit given: 350 MB
