"""Pack the committed match databases with xz, and unpack them to read.

Why: data/matches/ and data/defence/games/ keep every match behind a figure in the docs, 14 MB of
SQLite that nothing reads in place but a few tests; packed with `xz -9e` they take about a fifth
of that. `pack` replaces each NAME.sqlite by NAME.sqlite.xz only after unpacking the archive again
and comparing it byte for byte, and records the file's SHA-256 in the folder's SHA256SUMS, so
nothing is lost and an unpacked copy can be checked. `unpack` restores NAME.sqlite into --to DIR,
or beside the archive (git then lists it as untracked: .gitignore still admits new databases
there, so that a new match is never left out of a commit), and checks the sums.

    python -m tools.pack_data pack data/matches/new-match.sqlite    # before committing a new one
    python -m tools.pack_data unpack data/matches [--to /tmp/matches]
    (or, without Python: xz -dk data/matches/*.sqlite.xz)

Files named with --keep (default: the ones the tests read) are left unpacked.
"""
from __future__ import annotations

import argparse
import hashlib
import lzma
import sys
from pathlib import Path

SUMS = "SHA256SUMS"
# the databases a test reads in place (tests/tournament/test_tour_cli.py replays its SPRT)
KEEP = frozenset({"defence-rounds-vs-base.sqlite"})
PRESET = 9 | lzma.PRESET_EXTREME


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_sums(folder: Path) -> dict[str, str]:
    """name -> hex digest, from the folder's SHA256SUMS (the `sha256sum` format)."""
    path = folder / SUMS
    if not path.exists():
        return {}
    return {name.lstrip("*"): digest for digest, name in (line.split(None, 1) for line in path.read_text().split("\n") if line.strip())}


def write_sums(folder: Path, sums: dict[str, str]) -> None:
    (folder / SUMS).write_text("".join(f"{sums[name]}  {name}\n" for name in sorted(sums)))


def pack(path: Path) -> int:
    """NAME.sqlite -> NAME.sqlite.xz, verified by a round trip; returns the packed size."""
    raw = path.read_bytes()
    packed = lzma.compress(raw, preset=PRESET)
    if lzma.decompress(packed) != raw:
        raise SystemExit(f"{path}: the round trip differs; left as it was")
    target = path.with_name(path.name + ".xz")
    target.write_bytes(packed)
    sums = read_sums(path.parent)
    sums[path.name] = sha256(raw)
    write_sums(path.parent, sums)
    path.unlink()
    return len(packed)


def unpack(archive: Path, to: Path) -> Path:
    """NAME.sqlite.xz -> TO/NAME.sqlite, checked against SHA256SUMS when it lists the file."""
    raw = lzma.decompress(archive.read_bytes())
    name = archive.name.removesuffix(".xz")
    expected = read_sums(archive.parent).get(name)
    if expected is not None and sha256(raw) != expected:
        raise SystemExit(f"{archive}: unpacked bytes do not match {SUMS}")
    target = to / name
    target.write_bytes(raw)
    return target


def targets(paths: list[Path], pattern: str) -> list[Path]:
    """The files named, and the files matching `pattern` in the folders named."""
    out = []
    for path in paths:
        out += sorted(path.glob(pattern)) if path.is_dir() else [path]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack", help="replace .sqlite files (or every one in a folder) by verified .sqlite.xz")
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--keep", action="append", default=None, metavar="NAME",
                   help=f"leave this file unpacked (repeatable; default {', '.join(sorted(KEEP))})")
    u = sub.add_parser("unpack", help="restore .sqlite files from .sqlite.xz (or every one in a folder)")
    u.add_argument("paths", nargs="+", type=Path)
    u.add_argument("--to", type=Path, help="write them here instead of beside each archive")
    args = ap.parse_args(argv)
    if args.cmd == "pack":
        keep = set(args.keep) if args.keep is not None else KEEP
        before = after = 0
        for path in targets(args.paths, "*.sqlite"):
            if path.name in keep:
                continue
            before += path.stat().st_size
            after += pack(path)
        print(f"packed {before / 1e6:.1f} MB into {after / 1e6:.1f} MB", file=sys.stderr)
    else:
        for archive in targets(args.paths, "*.sqlite.xz"):
            if args.to:
                args.to.mkdir(parents=True, exist_ok=True)
            print(unpack(archive, args.to or archive.parent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
