"""Cold compile and warm (cached) load of every engine-core kernel, and peak RSS.

Runs `gomocup_bot.core.warmup.warm_all()` in fresh processes with a private NUMBA_CACHE_DIR:
the first run compiles everything (what the very first start pays), the second loads the cache
(what every later brain start pays). Also reports peak RSS of the warm process after it has built
a 15×15 board and run a VCF and playouts, against Gomocup's 350 MB.

    .venv/bin/python benchmarks/core_startup.py [--runs N]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, time, resource
t0 = time.perf_counter()
import numpy, numba
t_import = time.perf_counter() - t0
from gomocup_bot.core.warmup import warm_all
t1 = time.perf_counter()
c1 = time.process_time()
warm_all()
t_warm = time.perf_counter() - t1
c_warm = time.process_time() - c1
import numpy as np
from gomocup_bot.core.board import new_board
from gomocup_bot.core.playouts import playout_batch
from gomocup_bot.core.rng import new_rng
b = new_board(15, 15)
stats = np.zeros(5); stop = np.zeros(1, dtype=np.int32)
playout_batch(b, 1, 1, 0, 1.0, 50, stop, new_rng(1), stats)
print(json.dumps({"import_numba_s": t_import, "kernels_s": t_warm, "kernels_cpu_s": c_warm,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def child(cache_dir: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="warm runs to average")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="core-startup-") as cache:
        cold = child(cache)
        warm = [child(cache) for _ in range(args.runs)]
    load = sorted(w["kernels_s"] for w in warm)
    print(f"machine: {os.cpu_count()} cpus, load average {os.getloadavg()[0]:.1f} (shared)")
    print(f"cold compile of all core kernels: {cold['kernels_s']:.1f} s wall, {cold['kernels_cpu_s']:.1f} s CPU "
          f"(numpy+numba import {cold['import_numba_s']:.2f} s)")
    cpu = sorted(w["kernels_cpu_s"] for w in warm)
    print(f"warm cached load of all core kernels: median {load[len(load) // 2]:.2f} s wall (min {load[0]:.2f}, "
          f"max {load[-1]:.2f}), {cpu[len(cpu) // 2]:.2f} s CPU")
    print(f"peak RSS after warm load + 15x15 board + playouts + VCF: {max(w['peak_rss_mb'] for w in warm):.0f} MB (limit 350)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
