"""Brain start-up and shutdown latency, as a Gomocup manager sees them.

- start -> OK: wall time from process creation (Gomocup bills the match clock from there) to the
  `OK` line for `START 15`, written to stdin right after spawning. Compared with a bare interpreter
  (`python -c pass`) and with `import trio`, the floor our code sits on.
- END mid-search: the brain (default engine) thinks on a 30 s turn; wall time from writing `END`
  to process exit. The protocol wants < 0.5 s (GomocupJudge kills after 0.5 s).

    .venv/bin/python benchmarks/startup.py [--runs N] [--end-runs N]

Prints a table and one JSON line. The machine is shared: run it a few times and look at the
median and the spread, not at a single number.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import select
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Byte-code caching on, as for any pip-installed package (the team shell sets
# PYTHONDONTWRITEBYTECODE=1, which would make every start recompile our sources).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _read_line(proc: subprocess.Popen, timeout: float) -> str | None:
    fd = proc.stdout.fileno()
    buf = b""
    deadline = time.monotonic() + timeout
    while not buf.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 1)
        if not chunk:
            return None
        buf += chunk
    return buf.decode().strip()


def time_to_ok(args: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "gomocup_bot", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=REPO, env=ENV)
    proc.stdin.write(b"START 15\r\n")
    proc.stdin.flush()
    line = _read_line(proc, 30)
    elapsed = time.perf_counter() - start
    assert line == "OK", line
    proc.stdin.write(b"END\r\n")
    proc.stdin.flush()
    proc.wait(10)
    return elapsed


def time_python(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO, env=ENV)
    return time.perf_counter() - start


def end_mid_search() -> tuple[float, bool]:
    """Seconds from END to exit, and whether a move was still owed (a search was running)."""
    proc = subprocess.Popen([sys.executable, "-m", "gomocup_bot"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=REPO, env=ENV)
    proc.stdin.write(b"START 15\r\nINFO timeout_turn 30000\r\nINFO time_left 1000000\r\n"
                     b"INFO timeout_match 1000000\r\nBOARD\r\n7,7,2\r\n8,8,1\r\n9,6,2\r\nDONE\r\n")
    proc.stdin.flush()
    assert _read_line(proc, 30) == "OK"
    owed = _read_line(proc, 2.0) is None  # no move within 2 s: still searching
    start = time.perf_counter()
    proc.stdin.write(b"END\r\n")
    proc.stdin.flush()
    proc.wait(10)
    return time.perf_counter() - start, owed


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 1),
        "min_ms": round(ordered[0] * 1000, 1),
        "max_ms": round(ordered[-1] * 1000, 1),
        "n": len(ordered),
    }


def machine() -> dict[str, object]:
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "cpu": model, "python": platform.python_version(),
            "loadavg": os.getloadavg() if hasattr(os, "getloadavg") else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--end-runs", type=int, default=5)
    args = parser.parse_args()

    # one untimed start writes the byte-code caches
    time_to_ok(["--engine", "greedy"])
    before = machine()
    results: dict[str, object] = {"machine": before}
    variants = {
        "python -c pass": lambda: time_python("pass"),
        "python -c 'import trio'": lambda: time_python("import trio"),
        "brain --engine greedy: start->OK": lambda: time_to_ok(["--engine", "greedy"]),
        "brain (default engine): start->OK": lambda: time_to_ok([]),
    }
    rows: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.runs):  # round-robin, so load changes hit every variant alike
        for name, measure in variants.items():
            rows[name].append(measure())
    for name, values in rows.items():
        results[name] = summary(values)
    ends = [end_mid_search() for _ in range(args.end_runs)]
    results["END mid-search -> exit"] = summary([e for e, _ in ends])
    results["END runs that were mid-search"] = sum(1 for _, owed in ends if owed)
    results["loadavg_after"] = os.getloadavg() if hasattr(os, "getloadavg") else None

    print(f"machine: {before}")
    for name, value in results.items():
        if isinstance(value, dict) and "median_ms" in value:
            print(f"{name:<38} median {value['median_ms']:7.1f} ms  min {value['min_ms']:7.1f}  "
                  f"max {value['max_ms']:7.1f}  (n={value['n']})")
    print(f"END runs that were mid-search: {results['END runs that were mid-search']}/{args.end_runs}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
