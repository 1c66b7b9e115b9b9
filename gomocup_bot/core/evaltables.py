"""The trained evaluation's weights: the file format, its loader, and the tables the board sums.

The evaluation of a position for the side to move is

    Σ over empty squares q of V_self[code of q for the mover] − Σ V_opp[code of q for the opponent]
    + THREAT[mask of both sides' threats] + TEMPO

where a square's *code* is its four line codes (`core.classes`) as a multiset: the order of the
four directions does not matter, so the 13**4 combos fold into 1,820 canonical codes. One table set
(V_self, V_opp, THREAT, TEMPO) per rule and colour to move: freestyle, standard (exact five),
renju black, renju white, caro. THREAT is indexed by an 11-bit mask of which threats each side can
make somewhere (`threat_mask`): a linear sum over squares cannot say that an open three of the
side to move is worth far more than the same three of the side that must answer it.

The board keeps, per colour, the sum of its squares' (V_self, V_opp) packed in one int64 (`pack`),
updated by `make`/`unmake` for the squares whose combo changed, so the search reads the value in
O(1).

The file format and its checks are `core.evalfile` (no numpy: the brain checks the file at
start-up, before it loads anything heavy).
"""
from __future__ import annotations

import json
import struct
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations_with_replacement
from pathlib import Path

import numpy as np

from .classes import (
    C_DOUBLE3,
    C_FIVE,
    C_FLEX4,
    C_FOUR,
    C_FOUR3,
    C_FOURP,
    C_THREE,
    C_THREEP,
    N_CODES,
    N_COMBOS,
)
from .constants import RULE_CARO, RULE_CARO_EXACT, RULE_EXACT, RULE_FREESTYLE, RULE_RENJU
from .evalfile import (  # noqa: F401 (EvalWeightsError re-exported)
    MAGIC,
    N_CANON,
    N_THREAT,
    TABLE_NAMES,
    THREAT_BITS,
    VERSION,
    EvalWeightsError,
    check,
    read_bytes,
)

CANONICAL = tuple(combinations_with_replacement(range(N_CODES), 4))  # sorted code multisets
assert len(CANONICAL) == N_CANON
PACK = 1 << 32


@dataclass
class EvalTable:
    """One rule and colour's weights, in evaluation units."""

    v_self: np.ndarray  # int16[N_CANON]
    v_opp: np.ndarray  # int16[N_CANON]
    threat: np.ndarray  # int16[N_THREAT]
    tempo: int = 0
    order_attack: np.ndarray | None = None  # int16[N_CANON]: ordering score of a square by the mover's code
    order_defend: np.ndarray | None = None  # int16[N_CANON]: ... by the opponent's code


@dataclass
class EvalWeights:
    tables: dict[str, EvalTable]
    scale: float = 250.0  # evaluation units a logit
    notes: dict = field(default_factory=dict)


@lru_cache(maxsize=None)
def canonical_index() -> np.ndarray:
    """int32[N_COMBOS]: a combo's canonical code (its four digits sorted)."""
    combos = np.arange(N_COMBOS)
    digits = np.sort(np.stack([(combos // N_CODES**d) % N_CODES for d in range(4)], axis=1), axis=1)
    weights = N_CODES ** np.arange(3, -1, -1)  # a sorted multiset as one number: CANONICAL's order
    keys = np.array(CANONICAL, dtype=np.int64) @ weights
    assert np.all(np.diff(keys) > 0)
    return np.searchsorted(keys, digits @ weights).astype(np.int32)


def threat_mask(cnt_me: np.ndarray, cnt_op: np.ndarray) -> int:
    """The THREAT index for the side to move, from both sides' class counts (plain Python; the
    kernels inline the same bits in `search.pvs.evaluate`)."""
    bits = (cnt_op[C_FIVE] > 0, cnt_me[C_FLEX4] > 0, cnt_op[C_FLEX4] > 0, cnt_me[C_FOUR3] > 0,
            cnt_me[C_FOUR] + cnt_me[C_FOURP] > 0, cnt_me[C_THREEP] + cnt_me[C_DOUBLE3] > 0, cnt_me[C_THREE] > 0,
            cnt_op[C_FOUR3] > 0, cnt_op[C_FOUR] + cnt_op[C_FOURP] > 0, cnt_op[C_THREEP] + cnt_op[C_DOUBLE3] > 0,
            cnt_op[C_THREE] > 0)
    return sum(1 << i for i, b in enumerate(bits) if b)


# ---------------------------------------------------------------------------------------------
# the file


def dumps(weights: EvalWeights) -> bytes:
    names = [n for n in TABLE_NAMES if n in weights.tables]
    header = json.dumps({"version": VERSION, "scale": weights.scale, "tables": names, "codes": N_CANON,
                         "threat_bits": THREAT_BITS, "notes": weights.notes}, sort_keys=True).encode()
    parts = [MAGIC, struct.pack("<I", len(header)), header]
    for n in names:
        t = weights.tables[n]
        for arr, size in ((t.v_self, N_CANON), (t.v_opp, N_CANON), (t.threat, N_THREAT)):
            a = np.asarray(arr)
            if a.shape != (size,):
                raise ValueError(f"table {n}: expected {size} values, got shape {a.shape}")
            parts.append(np.clip(np.round(a), -32767, 32767).astype("<i2").tobytes())
        parts.append(struct.pack("<h", int(np.clip(round(t.tempo), -32767, 32767))))
        for a in (t.order_attack, t.order_defend):
            a = np.zeros(N_CANON) if a is None else np.asarray(a)
            if a.shape != (N_CANON,):
                raise ValueError(f"table {n}: expected {N_CANON} ordering scores, got shape {a.shape}")
            parts.append(np.clip(np.round(a), -32767, 32767).astype("<i2").tobytes())
    body = b"".join(parts)
    return body + struct.pack("<I", zlib.crc32(body))


def loads(data: bytes, where: str = "weights") -> EvalWeights:
    header, pos = check(data, where)
    body = data[:-4]
    tables = {}
    for name in header["tables"]:
        arrays = []
        for size in (N_CANON, N_CANON, N_THREAT):
            arrays.append(np.frombuffer(body, dtype="<i2", count=size, offset=pos).astype(np.int64))
            pos += 2 * size
        (tempo,) = struct.unpack_from("<h", body, pos)
        pos += 2
        for _ in range(2):
            arrays.append(np.frombuffer(body, dtype="<i2", count=N_CANON, offset=pos).astype(np.int64))
            pos += 2 * N_CANON
        tables[name] = EvalTable(arrays[0], arrays[1], arrays[2], tempo, arrays[3], arrays[4])
    return EvalWeights(tables, float(header.get("scale", 250.0)), header.get("notes", {}))


def save(weights: EvalWeights, path: str | Path) -> None:
    Path(path).write_bytes(dumps(weights))


def load(path: str | Path | None = None) -> EvalWeights:
    """The weights at ``path``, or the package's own file."""
    data, where = read_bytes(path)
    return loads(data, where)


# ---------------------------------------------------------------------------------------------
# what the board and the search read


@lru_cache(maxsize=1)
def _weights() -> EvalWeights:
    return load()


def table_names(rule: int) -> tuple[str, str]:
    """The tables for black's and white's squares (and for that colour to move) under ``rule``."""
    if rule == RULE_RENJU:
        return "renju-black", "renju-white"
    if rule in (RULE_CARO, RULE_CARO_EXACT):
        return "caro", "caro"
    if rule == RULE_EXACT:
        return "standard", "standard"
    assert rule == RULE_FREESTYLE, rule
    return "freestyle", "freestyle"


def pack(v_self, v_opp):
    """Two signed values in one int64 whose sums stay separable (`unpack`)."""
    return np.asarray(v_self, dtype=np.int64) * PACK + np.asarray(v_opp, dtype=np.int64)


def unpack(s: int) -> tuple[int, int]:
    lo = ((int(s) + (PACK >> 1)) % PACK) - (PACK >> 1)
    return (int(s) - lo) // PACK, lo


@lru_cache(maxsize=None)
def runtime_tables(rule: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(vtab int64[2, N_COMBOS] packed (V_self, V_opp) per colour and combo, threat int64[2, N_THREAT]
    per colour to move, tempo int64[2]). Raises `EvalWeightsError` when the weights are unusable.
    Writable arrays on purpose (numba compiles read-only ones into slower code)."""
    w = _weights()
    canon = canonical_index()
    vtab = np.zeros((2, N_COMBOS), dtype=np.int64)
    threat = np.zeros((2, N_THREAT), dtype=np.int64)
    tempo = np.zeros(2, dtype=np.int64)
    for c, name in enumerate(table_names(rule)):
        t = w.tables[name]
        vtab[c] = pack(t.v_self[canon], t.v_opp[canon])
        threat[c] = t.threat
        tempo[c] = t.tempo
    return vtab, threat, tempo


@lru_cache(maxsize=None)
def runtime_order(rule: int) -> tuple[np.ndarray, np.ndarray]:
    """(attack, defend) int32[2, N_COMBOS]: the weights file's move-ordering scores by colour and
    combo, in the shape of `classes.combo_tables`' ordering rows (the search reads either)."""
    w = _weights()
    canon = canonical_index()
    attack = np.zeros((2, N_COMBOS), dtype=np.int32)
    defend = np.zeros((2, N_COMBOS), dtype=np.int32)
    for c, name in enumerate(table_names(rule)):
        t = w.tables[name]
        attack[c] = t.order_attack[canon]
        defend[c] = t.order_defend[canon]
    return attack, defend
