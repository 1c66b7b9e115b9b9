"""The pattern tables' disk cache: what a new process reads equals what it would build, and a
damaged cache file is built again rather than trusted."""
from __future__ import annotations

import numpy as np

from gomocup_bot.core import tables


def test_the_cached_tables_equal_freshly_built_ones():
    for exact in (False, True):
        assert np.array_equal(tables._table(5, exact, False), tables.build_table(5, exact, False))
        assert np.array_equal(tables.eval_code_table(5, exact, False),
                              tables.build_eval_codes(tables.build_table(5, exact, False), 5, exact))
    assert np.array_equal(tables.renju_foul_table(5), tables.build_renju_foul_table(5))


def test_a_damaged_cache_file_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setattr(tables, "__file__", str(tmp_path / "tables.py"))
    monkeypatch.setattr(tables, "_source_digest", lambda: "test")
    calls = []

    def build():
        calls.append(1)
        return np.arange(10, dtype=np.uint8)

    first = tables._disk_cached("x", build)
    assert calls == [1] and (tmp_path / "__pycache__" / "table-x-test.npy").exists()
    assert np.array_equal(tables._disk_cached("x", build), first) and calls == [1]  # read, not built
    (tmp_path / "__pycache__" / "table-x-test.npy").write_bytes(b"garbage")
    assert np.array_equal(tables._disk_cached("x", build), first) and calls == [1, 1]
