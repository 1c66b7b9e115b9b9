"""The Gomocup/Piskvork text protocol, both sides: messages, parsing, encoding, rule codes, transports.

Pure and typed; knows nothing of search or tournaments. Importing it is cheap (no trio: the
transports live in `protocol.transport`, imported where needed).
"""
from protocol.encoder import EncodeError, encode, encode_lines
from protocol.messages import Command, Message, ProtocolError, Reply
from protocol.parser import CommandParser, parse_command, parse_reply
from protocol.rules import RuleError, Rules

__all__ = [
    "Command", "CommandParser", "EncodeError", "Message", "ProtocolError", "Reply", "RuleError",
    "Rules", "encode", "encode_lines", "parse_command", "parse_reply",
]
