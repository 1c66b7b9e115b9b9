"""Counters of `gomocup-bot serve`, printed on shutdown and on SIGUSR1.

One plain object shared by every session of a server (trio runs them in one thread, so plain
integer updates are exact).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ServerCounters:
    sessions: int = 0  # connections admitted (the AUTH step included)
    active: int = 0  # connections open right now
    moves: int = 0  # move lines sent to clients
    errors: int = 0  # ERROR/UNKNOWN lines sent (the brain's and the server's own refusals)
    rejected: int = 0  # connections refused: allow-list, caps, failed AUTH
    slots_total: int = 0
    slots_busy: int = 0  # filled in when the counters are reported

    def summary(self) -> str:
        return (
            f"sessions={self.sessions} active={self.active} moves={self.moves} errors={self.errors} "
            f"rejected={self.rejected} search_slots_busy={self.slots_busy}/{self.slots_total}"
        )
