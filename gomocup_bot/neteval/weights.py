"""The network weights file (``net.gbn``): its format, the checks that refuse a bad one, loading.

The check half is free of numpy (the brain checks the file before its heavy imports, as it does
the table file, `core.evalfile`); `load` turns a checked file into numpy arrays.

Format (little-endian): the magic ``GBNET1\\n``, a uint32 length and that many bytes of JSON
header, the body, and a CRC-32 of everything before it. The header holds ``version``, the
shapes (``feature`` F, ``hidden`` H, ``windows`` = 3**8: four cells each side, ``mask_bits`` = 11), the fixed-point
scales (``act_scale``: the integer that stands for 1.0 in the codebook and the clipped features;
``pool_norm``: the pooled sum is divided by it and by ``act_scale`` before the head), ``scale``
(evaluation units a logit), ``rules``: ``[{"name", "codebooks", "boards"}]`` in body order
(``boards``: the ``[width, height]`` sizes that rule's net was trained on and may play; absent,
15 × 15, the trainer's board; elsewhere the tables evaluate, `network.network_for`; a rule may
have more than one entry, for boards no earlier entry of it plays: the first is the rule's main
net, a later one a net for other boards, say 20 × 20 beside a 15 × 15 net), and
free-form training ``notes``. Per rule the body holds ``cbsel`` int8[2] (which codebook the black and the
white side to move read: the same one where the rule treats the colours alike), ``codebook``
int16[codebooks, windows, F], and per side to move float32 ``w1[2, H, F + 11]``, ``b1[2, H]``,
``w2[2, H]``, ``b2[2]`` (the value head), ``wp[2, F]``, ``bp[2]`` (the policy head) and ``tw[2]``:
the weight of the tables' static value (`core.evaltables`, in logits) added to the value head's
output, so the net learns what the tables miss rather than what they already hold.
"""
from __future__ import annotations

import json
import os
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from gomocup_bot.core.evalfile import EvalWeightsError, read_weights_file

MAGIC = b"GBNET1\n"
VERSION = 1
WINDOW_HALF = 4  # cells on each side of a square that its window holds (the board keeps 5: `window_of` cuts)
N_WINDOWS = 3 ** (2 * WINDOW_HALF)
MASK_BITS = 11  # the threat mask (search.pvs.threat_mask) the value head also reads
CODEBOOK_LIMIT = 8191  # |codebook entry|: a square's four rows then sum within int16, the accumulators' type
RULE_NAMES = ("freestyle", "standard", "renju")
DEFAULT_FILE = "net.gbn"  # in gomocup_bot/neteval/data/
ENV_VAR = "GOMOCUP_BOT_NET"  # a weights file to use instead of the package's (trials, tests)
TRAINED_BOARDS = ((15, 15),)  # a file without ``boards``: the trainer's only board


class NetWeightsError(EvalWeightsError):
    """The network weights file is missing, truncated, corrupt or of another version (an
    evaluation weights error: the brain refuses to play without either file, not guesses)."""


@dataclass
class RuleNet:
    """One rule's net as numpy arrays (shapes as the module docstring says)."""

    cbsel: "object"
    codebook: "object"
    w1: "object"
    b1: "object"
    w2: "object"
    b2: "object"
    wp: "object"
    bp: "object"
    tw: "object"
    # the (width, height) boards the net plays: its value does not carry over to walls at other
    # distances (on 20 × 20 a 15 × 15 net's value of the same stones moved by more than a logit)
    boards: tuple[tuple[int, int], ...] = TRAINED_BOARDS


@dataclass
class NetWeights:
    feature: int
    hidden: int
    act_scale: int
    pool_norm: float
    scale: float
    rules: dict[str, RuleNet] = field(default_factory=dict)  # each rule's main net
    notes: dict = field(default_factory=dict)
    # more nets of a rule, each for boards its main net does not play (written after the main nets)
    sized: list[tuple[str, RuleNet]] = field(default_factory=list)

    def net_for(self, name: str, width: int, height: int) -> RuleNet | None:
        """The rule's net that plays a ``width`` × ``height`` board, or None."""
        for rule, net in [(name, self.rules.get(name))] + self.sized:
            if rule == name and net is not None and (width, height) in net.boards:
                return net
        return None


def _array_specs(feature: int, hidden: int, codebooks: int) -> list[tuple[str, str, tuple[int, ...]]]:
    """(field, dtype, shape) of one rule's arrays in body order."""
    return [
        ("cbsel", "<i1", (2,)),
        ("codebook", "<i2", (codebooks, N_WINDOWS, feature)),
        ("w1", "<f4", (2, hidden, feature + MASK_BITS)),
        ("b1", "<f4", (2, hidden)),
        ("w2", "<f4", (2, hidden)),
        ("b2", "<f4", (2,)),
        ("wp", "<f4", (2, feature)),
        ("bp", "<f4", (2,)),
        ("tw", "<f4", (2,)),
    ]


def _nbytes(dtype: str, shape: tuple[int, ...]) -> int:
    n = int(dtype[2:])
    for s in shape:
        n *= s
    return n


def read_bytes(path: str | Path | None = None) -> tuple[bytes, str]:
    """(the file's bytes, a name for messages): ``path``, else $GOMOCUP_BOT_NET, else the package's."""
    return read_weights_file(path, ENV_VAR, "gomocup_bot.neteval", DEFAULT_FILE, "network weights",
                             "gomocup-bot train-net", NetWeightsError)


def check(data: bytes, where: str = "weights") -> tuple[dict, int]:
    """(the header, the body's offset) of a sound file; raises `NetWeightsError` saying what is wrong."""
    if len(data) < len(MAGIC) + 8 or not data.startswith(MAGIC):
        raise NetWeightsError(f"{where}: not a network weights file (bad magic)")
    body, crc = data[:-4], struct.unpack("<I", data[-4:])[0]
    if zlib.crc32(body) != crc:
        raise NetWeightsError(f"{where}: corrupt (checksum mismatch): reinstall the package or retrain")
    (n,) = struct.unpack_from("<I", body, len(MAGIC))
    start = len(MAGIC) + 4
    try:
        header = json.loads(body[start:start + n])
    except (ValueError, UnicodeDecodeError) as exc:
        raise NetWeightsError(f"{where}: unreadable header ({exc})") from None
    if not isinstance(header, dict) or header.get("version") != VERSION:
        got = header.get("version") if isinstance(header, dict) else "?"
        raise NetWeightsError(f"{where}: not version {VERSION} (the file says {got})")
    try:
        feature, hidden = int(header["feature"]), int(header["hidden"])
        rules = [(str(r["name"]), int(r["codebooks"])) for r in header["rules"]]
        played: dict[str, set] = {}
        for r in header["rules"]:
            boards = set(_boards(r, f"{where}: rule {r['name']}"))
            if boards & played.setdefault(str(r["name"]), set()):
                raise ValueError(f"two nets of rule {r['name']} for the same board")
            played[str(r["name"])] |= boards
        if header["windows"] != N_WINDOWS or header["mask_bits"] != MASK_BITS:
            raise ValueError("window or mask size")
        if int(header["act_scale"]) <= 0 or float(header["pool_norm"]) <= 0 or float(header["scale"]) <= 0:
            raise ValueError("scales")
    except (KeyError, TypeError, ValueError) as exc:
        raise NetWeightsError(f"{where}: the header lacks or garbles its shapes ({exc})") from None
    if not 1 <= feature <= 256 or not 1 <= hidden <= 256 or not rules:
        raise NetWeightsError(f"{where}: implausible shapes (feature {feature}, hidden {hidden}, {len(rules)} rules)")
    for name, cbs in rules:
        if name not in RULE_NAMES or cbs not in (1, 2):
            raise NetWeightsError(f"{where}: unknown rule {name!r} or {cbs} codebooks")
    expected = sum(_nbytes(d, s) for _, cbs in rules for _, d, s in _array_specs(feature, hidden, cbs))
    if len(body) - (start + n) != expected:
        raise NetWeightsError(f"{where}: truncated or padded body ({len(body) - start - n} bytes, "
                              f"{expected} expected)")
    return header, start + n


def _boards(entry: dict, where: str) -> tuple[tuple[int, int], ...]:
    """A rule entry's ``boards`` as (width, height) pairs of 5-32 (absent: `TRAINED_BOARDS`)."""
    raw = entry.get("boards")
    if raw is None:
        return TRAINED_BOARDS
    try:
        out = tuple((int(w), int(h)) for w, h in raw)
    except (TypeError, ValueError):
        raise NetWeightsError(f"{where}: boards is not a list of [width, height] ({raw!r})") from None
    if not out or not all(5 <= w <= 32 and 5 <= h <= 32 for w, h in out):
        raise NetWeightsError(f"{where}: boards must list sizes of 5-32 ({raw!r})")
    return out


def verify(path: str | Path | None = None) -> str | None:
    """Why the network weights (at ``path``, or the package's) cannot be used, or None when they can."""
    try:
        check(*read_bytes(path))
    except NetWeightsError as exc:
        return str(exc)
    return None


def load(path: str | Path | None = None) -> NetWeights:
    """The checked file as numpy arrays (raises `NetWeightsError`)."""
    import numpy as np

    data, where = read_bytes(path)
    header, off = check(data, where)
    feature, hidden = int(header["feature"]), int(header["hidden"])
    out = NetWeights(feature, hidden, int(header["act_scale"]), float(header["pool_norm"]), float(header["scale"]),
                     notes=header.get("notes", {}))
    for r in header["rules"]:
        arrays = {}
        for name, dtype, shape in _array_specs(feature, hidden, int(r["codebooks"])):
            nb = _nbytes(dtype, shape)
            arrays[name] = np.frombuffer(data, dtype=dtype, count=nb // int(dtype[2:]), offset=off).reshape(shape)
            off += nb
        net = RuleNet(**arrays, boards=_boards(r, where))
        if not all(0 <= int(c) < int(r["codebooks"]) for c in net.cbsel):
            raise NetWeightsError(f"{where}: rule {r['name']} selects a codebook it does not have")
        _check_codebook(net.codebook, f"{where}: rule {r['name']}", NetWeightsError)
        if str(r["name"]) in out.rules:
            out.sized.append((str(r["name"]), net))
        else:
            out.rules[str(r["name"])] = net
    return out


def _check_codebook(codebook, where: str, error: type[Exception]) -> None:
    """Refuse entries beyond `CODEBOOK_LIMIT` (the kernels' int16 sums would wrap)."""
    import numpy as np

    top = int(np.abs(np.asarray(codebook, dtype=np.int64)).max(initial=0))
    if top > CODEBOOK_LIMIT:
        raise error(f"{where}: a codebook entry of {top} is beyond {CODEBOOK_LIMIT} (four rows must sum within int16)")


def dumps(weights: NetWeights) -> bytes:
    """The file's bytes for ``weights`` (arrays converted to the file's types; shapes checked)."""
    import numpy as np

    rules = []
    parts: list[bytes] = []
    for name, net in [(n, weights.rules.get(n)) for n in RULE_NAMES] + weights.sized:
        if net is None:
            continue
        if name not in weights.rules:
            raise ValueError(f"rule {name}: a net for more boards needs the rule's main net")
        cbs = int(np.asarray(net.codebook).shape[0])
        rules.append({"name": name, "codebooks": cbs, "boards": [list(b) for b in net.boards]})
        for fld, dtype, shape in _array_specs(weights.feature, weights.hidden, cbs):
            a = np.asarray(getattr(net, fld))
            if a.shape != shape:
                raise ValueError(f"rule {name}: {fld} has shape {a.shape}, expected {shape}")
            if dtype == "<i2":
                a = np.round(a)
                _check_codebook(a, f"rule {name}", ValueError)
            parts.append(np.ascontiguousarray(a.astype(dtype)).tobytes())
    header = json.dumps({"version": VERSION, "feature": weights.feature, "hidden": weights.hidden,
                         "windows": N_WINDOWS, "mask_bits": MASK_BITS, "act_scale": weights.act_scale,
                         "pool_norm": weights.pool_norm, "scale": weights.scale, "rules": rules,
                         "notes": weights.notes}, sort_keys=True).encode()
    body = b"".join([MAGIC, struct.pack("<I", len(header)), header] + parts)
    data = body + struct.pack("<I", zlib.crc32(body))
    check(data, "the weights to write")  # e.g. two nets of a rule for one board: refused now, not at load
    return data


def save(weights: NetWeights, path: str | Path) -> None:
    """Write ``weights`` to ``path`` (through a temporary file: a crash leaves the old file whole)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(dumps(weights))
    os.replace(tmp, path)
