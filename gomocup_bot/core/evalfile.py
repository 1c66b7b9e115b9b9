"""The evaluation weights file: its format and the checks that refuse a bad one.

Kept free of numpy so the brain can check the file when it starts, before the heavy imports
(a brain without usable weights answers START with ERROR instead of playing without them).

Format (little-endian): the magic ``GBEVAL1\\n``, a uint32 length and that many bytes of JSON
header (``version``, ``scale`` = evaluation units a logit, ``tables``: names in body order,
``codes`` = 1820 canonical pattern codes, ``threat_bits`` = 11, and free-form training ``notes``),
then per table int16 ``v_self[1820]``, ``v_opp[1820]``, ``threat[2048]``, ``tempo[1]``,
``order_attack[1820]``, ``order_defend[1820]`` (the move-ordering scores of a square by its code
for the mover and for the opponent), and last a CRC-32 of everything before it.
"""
from __future__ import annotations

import json
import os
import struct
import zlib
from importlib import resources
from pathlib import Path

MAGIC = b"GBEVAL1\n"
VERSION = 3  # 3: 13 line codes (open and closed twos and ones told apart)
N_CANON = 1820  # multisets of 4 line codes out of 13
THREAT_BITS = 11
N_THREAT = 1 << THREAT_BITS
TABLE_NAMES = ("freestyle", "standard", "renju-black", "renju-white", "caro")
DEFAULT_FILE = "eval.gbw"  # in gomocup_bot/core/data/
ENV_VAR = "GOMOCUP_BOT_EVAL"  # a weights file to use instead of the package's (trials, tests)
TABLE_BYTES = 2 * (4 * N_CANON + N_THREAT) + 2


class EvalWeightsError(RuntimeError):
    """The weights file is missing, truncated, corrupt or of another version."""


def read_bytes(path: str | Path | None = None) -> tuple[bytes, str]:
    """(the file's bytes, a name for messages): ``path``, else the file named by $GOMOCUP_BOT_EVAL,
    else the package's own file."""
    return read_weights_file(path, ENV_VAR, "gomocup_bot.core", DEFAULT_FILE, "evaluation weights",
                             "gomocup-bot train-eval", EvalWeightsError)


def read_weights_file(path: str | Path | None, env_var: str, package: str, default_file: str, what: str,
                      trainer: str, error: type[Exception]) -> tuple[bytes, str]:
    """(the bytes, a name for messages) of a weights file: ``path``, else the file $``env_var``
    names, else ``package``'s ``data/default_file``; ``error`` says which could not be read and
    what to do (shared by the tables' file and the network's, `neteval.weights`)."""
    if path is None:
        path = os.environ.get(env_var) or None
    if path is None:
        where = f"{package.replace('.', '/')}/data/{default_file}"
        try:
            return resources.files(package).joinpath("data", default_file).read_bytes(), where
        except OSError:
            raise error(f"{where}: the {what} are missing: reinstall the package (or train them: {trainer})") from None
    try:
        return Path(path).read_bytes(), str(path)
    except OSError as exc:
        raise error(f"{path}: cannot read the {what} ({exc.strerror})") from None


def check(data: bytes, where: str = "weights") -> tuple[dict, int]:
    """(the header, the body offset of the first table) of a sound file; raises `EvalWeightsError`
    saying what is wrong otherwise."""
    if len(data) < len(MAGIC) + 8 or not data.startswith(MAGIC):
        raise EvalWeightsError(f"{where}: not an evaluation weights file (bad magic)")
    body, crc = data[:-4], struct.unpack("<I", data[-4:])[0]
    if zlib.crc32(body) != crc:
        raise EvalWeightsError(f"{where}: corrupt (checksum mismatch): reinstall the package or retrain")
    (n,) = struct.unpack_from("<I", body, len(MAGIC))
    start = len(MAGIC) + 4
    try:
        header = json.loads(body[start:start + n])
    except (ValueError, UnicodeDecodeError) as exc:
        raise EvalWeightsError(f"{where}: unreadable header ({exc})") from None
    if (not isinstance(header, dict) or header.get("version") != VERSION or header.get("codes") != N_CANON
            or header.get("threat_bits") != THREAT_BITS):
        raise EvalWeightsError(f"{where}: not version {VERSION} with {N_CANON} codes (the file says "
                               f"{header.get('version') if isinstance(header, dict) else '?'})")
    names = header.get("tables")
    if not isinstance(names, list):
        raise EvalWeightsError(f"{where}: the header lists no tables")
    missing = [t for t in TABLE_NAMES if t not in names]
    if missing:
        raise EvalWeightsError(f"{where}: no table for {', '.join(missing)}")
    if len(body) - (start + n) != TABLE_BYTES * len(names):
        raise EvalWeightsError(f"{where}: truncated or padded body")
    return header, start + n


def verify(path: str | Path | None = None) -> str | None:
    """Why the weights (at ``path``, or the package's) cannot be used, or None when they can."""
    try:
        check(*read_bytes(path))
    except EvalWeightsError as exc:
        return str(exc)
    return None
