"""The Gomocup/Piskvork text protocol, both sides: messages, parsing, encoding, rule codes, transports.

Pure and typed; knows nothing of search or tournaments.
"""
from protocol.rules import Rules, RuleError

__all__ = ["Rules", "RuleError"]
