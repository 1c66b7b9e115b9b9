"""Gomocup `INFO rule` codes decoded into a small immutable value.

The bitmask is the protocol's (bit 0 exact five, bit 1 continuous game, bit 2 renju,
bit 3 caro); the Yixin dialect uses code 2 for renju, which callers opt into.
"""
from __future__ import annotations

from dataclasses import dataclass

EXACT_FIVE_BIT = 1
CONTINUOUS_BIT = 2
RENJU_BIT = 4
CARO_BIT = 8
KNOWN_BITS = EXACT_FIVE_BIT | CONTINUOUS_BIT | RENJU_BIT | CARO_BIT


class RuleError(ValueError):
    """A rule code that no supported rule set matches."""


@dataclass(frozen=True)
class Rules:
    """Which lines win and which moves black may not make.

    exact_five: only an exact five wins (overlines win nothing) -- rule bit 0.
    renju: RIF renju restrictions for black (exact five for black, overline for white wins).
    caro: a five blocked by opponent stones at both ends does not win.
    continuous: play goes on after a five (not used in tournaments; accepted, played as normal).
    """

    exact_five: bool = False
    renju: bool = False
    caro: bool = False
    continuous: bool = False

    @classmethod
    def from_code(cls, code: int, *, yixin: bool = False) -> "Rules":
        """Decode an `INFO rule` value; `yixin=True` reads code 2 as renju (Yixin protocol)."""
        if code < 0 or code & ~KNOWN_BITS:
            raise RuleError(f"unsupported rule code {code}")
        if yixin and code == 2:
            return cls(renju=True)
        renju = bool(code & RENJU_BIT)
        caro = bool(code & CARO_BIT)
        if renju and caro:
            raise RuleError(f"rule code {code} combines renju and caro")
        return cls(
            exact_five=bool(code & EXACT_FIVE_BIT) and not renju,
            renju=renju,
            caro=caro,
            continuous=bool(code & CONTINUOUS_BIT),
        )

    @property
    def code(self) -> int:
        """The Gomocup bitmask for these rules (renju is always sent as 4, never Yixin's 2)."""
        return (
            (EXACT_FIVE_BIT if self.exact_five else 0)
            | (CONTINUOUS_BIT if self.continuous else 0)
            | (RENJU_BIT if self.renju else 0)
            | (CARO_BIT if self.caro else 0)
        )

    @property
    def name(self) -> str:
        if self.renju:
            return "renju"
        if self.caro:
            return "caro-exact" if self.exact_five else "caro"
        return "exact-five" if self.exact_five else "freestyle"

    @classmethod
    def from_name(cls, name: str) -> "Rules":
        """Parse a human rule name (`freestyle`, `standard`/`exact-five`, `renju`, `caro`, `caro-exact`) or a code."""
        key = name.strip().lower().replace("_", "-")
        table = {
            "freestyle": cls(),
            "standard": cls(exact_five=True),
            "exact-five": cls(exact_five=True),
            "exact": cls(exact_five=True),
            "renju": cls(renju=True),
            "caro": cls(caro=True),
            "caro-exact": cls(caro=True, exact_five=True),
        }
        if key in table:
            return table[key]
        if key.isdigit():
            return cls.from_code(int(key))
        raise RuleError(f"unknown rule {name!r}; expected one of {', '.join(table)} or a Gomocup rule code")


FREESTYLE = Rules()
EXACT_FIVE = Rules(exact_five=True)
RENJU = Rules(renju=True)
CARO = Rules(caro=True)
CARO_EXACT = Rules(caro=True, exact_five=True)
