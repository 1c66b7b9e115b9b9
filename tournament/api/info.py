"""What an engine says while it thinks, read into `Info` (depth, eval, winrate, nodes, speed, PV ...).

Gomocup has no standard for search output: every brain writes free text after `MESSAGE`, and the
GUI extensions add a few forms. This module reads the common ones and keeps every line in `raw`:

- our brain (`INFO show_detail 2`): `pvs depth 11 nodes 77513 (270372/s) winrate 47.0% time 287 ms
  pv 7,6 6,7 ... sel 13 threads 1 score -122 stop time`, `mcts depth 5 nodes ... pv ...`, and the
  root checks' `tactics vct in 1 ms (11 nodes) pv 7,7 8,8 ...` (a proven win: winrate 1), and a
  forced win or loss of the PVS as `score +M13` / `-M13` (a mate, in plies);
- Rapfi's detail lines (`INFO show_detail` bit 2): a block `INFO PV 0`, `INFO DEPTH 12`,
  `INFO SELDEPTH 20`, `INFO TOTALNODES n`, `INFO TOTALTIME ms`, `INFO SPEED n`, `INFO EVAL 35` or
  `+M5`, `INFO WINRATE 0.55`, `INFO BESTLINE 7,7 8,8`, closed by `INFO PV DONE`; and its MESSAGE
  texts in both modes: `Depth 12-20 | Eval 35 | Time 123ms | H8 I9 J10`, `Speed 1234K | Depth 12-20 |
  Eval 35 | Node 3M | Time 1s`, `(1) 35 | 12-20 | H8 I9`, `(1) 35 (W 55.00, D 10.00, S 0.12) | V 1234K
  | SD 12 | H8 I9`, `Bestline H8 I9`, `depth 12-20 multipv 1 ev 35 n 3M n/ms 1234 tm 1234 pv H8 I9`;
- PentaZen's `dep 12-20 ev 35 nd 3m tm 51 sp 1234` (`ev +v5`: a forced win in five; `sp` nodes a ms);
- Yixin's `MESSAGE REALTIME VAL 35` / `REALTIME PV ...` and everybody's `MESSAGE REALTIME BEST x,y`;
- plain texts such as `MESSAGE depth 12 eval 35` (the protocol reference's example), with keys
  like depth, seldepth/sel/sd, eval/ev/score/val, winrate/wr/w, nodes/node/n/visits, speed/nps,
  time/tm, pv/bestline, multipv.

Squares in a PV may be wire pairs (`7,7`) or labels (`H8`: letter = column from A, number = row + 1);
a PV square off the board ends the PV. Numbers may carry K/M/G/T suffixes (Rapfi's `3M` nodes).
"""
from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any

from protocol import messages as m
from tournament.api.position import Square, parse_square

RAW_LINES_KEPT = 200  # thinking lines kept per search (the latest ones)

_KEYS = {
    "depth": "depth", "dep": "depth",
    "seldepth": "seldepth", "sel": "seldepth", "sd": "seldepth",
    "eval": "eval", "ev": "eval", "evaluation": "eval", "score": "eval", "val": "eval", "value": "eval", "cp": "eval",
    "winrate": "winrate", "wr": "winrate", "w": "winrate_percent", "win": "winrate",
    "nodes": "nodes", "node": "nodes", "n": "nodes", "visits": "nodes", "visit": "nodes", "v": "nodes",
    "totalnodes": "nodes", "nd": "nodes",
    "speed": "speed", "nps": "speed", "sp": "speed_per_ms", "n/ms": "speed_per_ms",
    "time": "time", "tm": "time", "totaltime": "time",
    "pv": "pv", "bestline": "pv", "line": "pv",
    "multipv": "multipv",
}
_NUMBER = re.compile(r"^([+-]?\d+(?:\.\d+)?)([KMGT]?)$", re.IGNORECASE)
_MATE = re.compile(r"^([+-]?)M(\d+|\*)$|^([+-])V(\d+)$", re.IGNORECASE)  # Rapfi's +M5, PentaZen's +v5
_RANGE = re.compile(r"^(\d+)-(\d+)$")
_TIME = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|min|h)?$", re.IGNORECASE)
_LABELS = re.compile(r"^(?:\[?[A-Za-z]\d{1,2}\]?)+$")
_SUFFIX = {"": 1, "K": 1_000, "M": 1_000_000, "G": 1_000_000_000, "T": 1_000_000_000_000}
_TIME_UNIT = {"": 1, "ms": 1, "s": 1000, "min": 60_000, "h": 3_600_000}


@dataclass(frozen=True)
class Info:
    """One engine's view of a position, as far as it said.

    Fields the engine did not report stay None. `eval` is in the engine's own unit, from the side
    to move's point of view; `mate` is the number of moves to a forced win (negative: a loss) when
    the engine gives one (Rapfi's `+M5`); `winrate` is 0..1 for the side to move; `time_ms` is the
    engine's own report. `multipv` numbers the lines of a several-best search (1 = best). `move`
    is the move the engine finally answered (analyse), `raw` the thinking lines read.
    """

    depth: int | None = None
    seldepth: int | None = None
    eval: float | None = None
    mate: int | None = None
    winrate: float | None = None
    nodes: int | None = None
    speed: int | None = None
    time_ms: int | None = None
    pv: tuple[Square, ...] = ()
    multipv: int | None = None
    move: Square | None = None
    raw: tuple[str, ...] = field(default=(), repr=False)

    @property
    def best(self) -> Square | None:
        """The move the engine prefers: the one it answered, else the head of its PV."""
        return self.move if self.move is not None else (self.pv[0] if self.pv else None)

    def as_dict(self) -> dict[str, Any]:
        """The reported fields only (no `raw`), e.g. for JSON."""
        out: dict[str, Any] = {}
        for name in ("depth", "seldepth", "eval", "mate", "winrate", "nodes", "speed", "time_ms", "multipv"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if self.pv:
            out["pv"] = [list(p) for p in self.pv]
        if self.move is not None:
            out["move"] = list(self.move)
        return out


# ---------------------------------------------------------------------------------------- values

def _count(token: str) -> int | None:
    found = _NUMBER.match(token.strip(",;()"))
    if not found:
        return None
    return int(float(found.group(1)) * _SUFFIX[found.group(2).upper()])


def _number(token: str) -> float | None:
    try:
        value = float(token.strip(",;()%"))
    except ValueError:
        return None
    return value if value == value and abs(value) != float("inf") else None


def _eval(token: str, fields: dict[str, Any]) -> bool:
    """An eval or mate score into `fields`; False if the token is neither."""
    token = token.strip(",;()")
    mate = _MATE.match(token)
    if mate:
        sign_text, length = (mate.group(1), mate.group(2)) if mate.group(2) else (mate.group(3), mate.group(4))
        sign = -1 if sign_text == "-" else 1
        if length == "*":  # proven from a database, length unknown
            fields["winrate"] = 1.0 if sign > 0 else 0.0
        else:
            fields["mate"] = sign * int(length)
        fields["eval"] = None  # a mate score replaces an earlier plain one, and the other way round
        return True
    value = _number(token)
    if value is None:
        return False
    fields["eval"] = int(value) if value == int(value) else value
    fields["mate"] = None
    return True


def _winrate(token: str, next_token: str, percent: bool) -> float | None:
    value = _number(token)
    if value is None:
        return None
    if percent or token.rstrip(",;)").endswith("%") or next_token == "%" or value > 1:
        value /= 100
    return value if 0.0 <= value <= 1.0 else None


def _time_ms(token: str, next_token: str) -> tuple[int | None, int]:
    """Milliseconds from `123`, `123ms`, `12s`, `5min` or `123 ms` (a unit in the next token), and
    how many tokens that took; a bare number is milliseconds."""
    found = _TIME.match(token.strip(",;()"))
    if not found:
        return None, 0
    unit, used = (found.group(2) or "").lower(), 1
    if not unit and next_token.lower() in _TIME_UNIT and next_token:
        unit, used = next_token.lower(), 2
    return int(float(found.group(1)) * _TIME_UNIT[unit]), used


def _squares(tokens: list[str], width: int, height: int) -> tuple[list[Square], int]:
    """The squares at the head of `tokens` (wire pairs, labels, or labels run together) and how many tokens they took."""
    out: list[Square] = []
    used = 0
    for token in tokens:
        token = token.strip(",;")
        if token in ("-", "(NONE)", "None"):
            used += 1
            break
        if _LABELS.match(token) and parse_square(token, width, height) is None:
            parts = re.findall(r"\[?[A-Za-z]\d{1,2}\]?", token)
            squares = [parse_square(p, width, height) for p in parts]
            if not squares or any(s is None for s in squares):
                break
            out.extend(s for s in squares if s is not None)
            used += 1
            continue
        square = parse_square(token, width, height)
        if square is None:
            break
        out.append(square)
        used += 1
    return out, used


# ---------------------------------------------------------------------------------------- one text

def parse_text(text: str, width: int = 15, height: int = 15) -> dict[str, Any]:
    """The fields one MESSAGE text reports (keys as in `Info`), {} if it says nothing we know."""
    text = text.strip()
    if text.upper().startswith("REALTIME "):
        text = text[len("REALTIME "):]
    if text.startswith("[Pondering]"):
        return {}  # Rapfi thinking on the opponent's time: not about this position
    fields: dict[str, Any] = {}
    own = _our_tactics(text, width, height)
    if own:
        return own
    if "|" in text:
        for segment in text.split("|"):
            _segment(segment.strip(), fields, width, height)
        return fields
    _key_values(text.split(), fields, width, height)
    return fields


def _our_tactics(text: str, width: int, height: int) -> dict[str, Any]:
    """Our brain's root checks: `tactics win|vct|vcf|lost|block in T ms (N nodes)`, a proven
    win's line after it as `pv x,y ...`."""
    found = re.match(r"^tactics (\w+) in (\d+) ms \((\d+) nodes\)(?:\s+pv\s+(.*))?", text)
    if not found:
        return {}
    fields: dict[str, Any] = {"time_ms": int(found.group(2)), "nodes": int(found.group(3))}
    if found.group(4):
        squares, _ = _squares(found.group(4).split(), width, height)
        fields["pv"] = tuple(squares)
    if found.group(1) in ("win", "vct", "vcf"):
        fields["winrate"] = 1.0
    elif found.group(1) == "lost":
        fields["winrate"] = 0.0
    return fields


def _segment(segment: str, fields: dict[str, Any], width: int, height: int) -> None:
    """One `|`-separated part of a Rapfi-style line."""
    head = re.match(r"^\((\d+)\)\s*(\S+)(?:\s*\(W\s*([\d.]+)%?,?.*?\))?$", segment)
    if head:  # "(1) 35" or "(1) 35 (W 55.00, D 10.00, S 0.12)"
        fields["multipv"] = int(head.group(1))
        _eval(head.group(2), fields)
        if head.group(3):
            rate = _winrate(head.group(3), "", percent=True)
            if rate is not None:
                fields["winrate"] = rate
        return
    span = _RANGE.match(segment)
    if span:  # "12-20": depth-seldepth
        fields["depth"], fields["seldepth"] = int(span.group(1)), int(span.group(2))
        return
    tokens = segment.split()
    squares, used = _squares(tokens, width, height)
    if squares and used == len(tokens):
        fields["pv"] = tuple(squares)
        return
    _key_values(tokens, fields, width, height)


def _key_values(tokens: list[str], fields: dict[str, Any], width: int, height: int) -> None:
    """`key value` pairs anywhere in the tokens; unknown words are skipped."""
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i]
        speed = re.match(r"^\((\d+)/s\)$", token)  # ours: "nodes 77513 (270372/s)"
        if speed:
            fields["speed"] = int(speed.group(1))
            i += 1
            continue
        key = _KEYS.get(token.lower().rstrip(":=,"))
        if key is None or i + 1 >= n:
            i += 1
            continue
        value, after = tokens[i + 1], tokens[i + 2] if i + 2 < n else ""
        used = 1
        if key == "depth":
            span = _RANGE.match(value.strip(","))
            if span:
                fields["depth"], fields["seldepth"] = int(span.group(1)), int(span.group(2))
            elif (count := _count(value)) is not None:
                fields["depth"] = count
            else:
                used = 0
        elif key in ("seldepth", "multipv", "nodes", "speed"):
            count = _count(value)
            if count is None:
                used = 0
            else:
                fields[key] = count
        elif key == "speed_per_ms":
            count = _count(value)
            if count is None:
                used = 0
            else:
                fields["speed"] = count * 1000
        elif key == "eval":
            used = 1 if _eval(value, fields) else 0
        elif key in ("winrate", "winrate_percent"):
            rate = _winrate(value, after, percent=key == "winrate_percent")
            if rate is None:
                used = 0 if value not in ("-", "?") else 1
            else:
                fields["winrate"] = rate
                used = 2 if after == "%" else 1
        elif key == "time":
            ms, used = _time_ms(value, after)
            if ms is not None:
                fields["time_ms"] = ms
        elif key == "pv":
            squares, used = _squares(tokens[i + 1:], width, height)
            fields["pv"] = tuple(squares)
        i += 1 + used


# ---------------------------------------------------------------------------------------- a search

class InfoReader:
    """Reads one search's thinking lines in order and keeps the latest `Info` per line of play.

    `feed` returns the updated Info of the line it changed (multipv 1 when there is only one),
    or None when the line said nothing new. Rapfi's `INFO` blocks count once, at `INFO PV DONE`.
    """

    def __init__(self, width: int = 15, height: int = 15) -> None:
        self.width, self.height = width, height
        self.lines: dict[int, Info] = {}
        self.raw: deque[str] = deque(maxlen=RAW_LINES_KEPT)
        self._block: dict[str, Any] | None = None

    @property
    def info(self) -> Info:
        """The principal line (multipv 1) as known so far."""
        return self._with_raw(self.lines.get(1, Info()))

    def all(self) -> list[Info]:
        """Every line of play seen, best first."""
        return [self._with_raw(self.lines[k]) for k in sorted(self.lines)]

    def _with_raw(self, info: Info) -> Info:
        return replace(info, raw=tuple(self.raw))

    def feed(self, reply: m.Reply | m.ProtocolError, text: str) -> Info | None:
        if isinstance(reply, m.DebugReply):
            return None
        if isinstance(reply, m.RealtimeReply):
            self.raw.append(text)
            if reply.kind == "BEST" and reply.move is not None:
                current = self.lines.get(1, Info())
                if not current.pv or current.pv[0] != reply.move:
                    return self._update({"pv": (reply.move,)})
            return None
        if isinstance(reply, m.DetailReply):
            self.raw.append(text)
            return self._detail(reply.key, reply.value)
        if isinstance(reply, m.MessageReply):
            self.raw.append(text)
            fields = parse_text(reply.text, self.width, self.height)
            return self._update(fields) if fields else None
        return None

    def feed_text(self, line: str) -> Info | None:
        """`feed` for a raw line as the engine wrote it."""
        from protocol.parser import parse_reply

        return self.feed(parse_reply(line), line.strip())

    def finish(self, move: Square | None) -> Info:
        """The principal line with the engine's answer as `move`."""
        self.lines[1] = replace(self.lines.get(1, Info(multipv=None)), move=move)
        return self.info

    def _update(self, fields: dict[str, Any]) -> Info | None:
        index = fields.get("multipv") or 1
        old = self.lines.get(index, Info())
        new = replace(old, **fields)
        if new == old:
            return None
        self.lines[index] = new
        return self._with_raw(new)

    def _detail(self, key: str, value: str) -> Info | None:
        """Rapfi's INFO lines: a block from `PV i` to `PV DONE`; a lone key counts at once."""
        if key == "PV":
            if value.strip().upper() == "DONE":
                block, self._block = self._block, None
                return self._update(block) if block else None
            if value.strip().isdigit():
                self._block = {"multipv": int(value) + 1}
            return None
        fields: dict[str, Any] = {}
        if key in ("DEPTH", "SELDEPTH", "SPEED"):
            count = _count(value)
            if count is not None:
                fields[key.lower()] = count
        elif key in ("NODES", "TOTALNODES"):  # the root move's nodes, then the search's total: the total wins
            count = _count(value)
            if count is not None:
                fields["nodes"] = count
        elif key == "TOTALTIME":
            count = _count(value)
            if count is not None:
                fields["time_ms"] = count
        elif key == "EVAL":
            _eval(value, fields)
        elif key == "WINRATE":
            rate = _winrate(value, "", percent=False)
            if rate is not None:
                fields["winrate"] = rate
        elif key == "BESTLINE":
            squares, _ = _squares(value.split(), self.width, self.height)
            fields["pv"] = tuple(squares)
        if not fields:
            return None
        if self._block is not None:
            self._block.update(fields)
            return None
        return self._update(fields)
