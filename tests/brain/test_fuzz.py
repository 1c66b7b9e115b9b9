"""Hypothesis fuzz: arbitrary lines and mutated valid commands, then a valid game.

In-process: the session never raises, every reply has an allowed form for the command that caused
it, the board stays consistent, and a normal game continues correctly after the garbage.
Real process (smaller sample): the same lines sent to `python -m gomocup_bot --engine greedy` give
exactly the replies the in-process session predicts, and the process stays alive.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gomocup_bot.engine import BLACK, WHITE, SearchResult
from gomocup_bot.engines.greedy import choose
from gomocup_bot.brain.session import BrainSession, Exit, ResetEngine, Search, Send, StopSearch
from protocol import messages as m
from protocol.encoder import encode
from protocol.parser import CommandParser, parse_reply

VALID_LINES = [
    "START 15", "START 20 20", "RECTSTART 20,15", "RESTART", "BEGIN", "TURN 7,7", "TURN 0,14",
    "BOARD", "7,7,1", "8,8,2", "9,9,3", "DONE", "INFO rule 1", "INFO rule 4", "INFO timeout_turn 1000",
    "INFO time_left -5", "INFO show_detail 3", "ABOUT", "TAKEBACK 7,7", "PLAY 3,3", "SWAP2BOARD", "7,7",
    "YXSHOWINFO", "YXSTOP", "STOP", "YXBOARD", "YXSHOWFORBID", "YXHASHCLEAR", "YXNBEST 2", "YXBLOCK",
    "YXBLOCKUNDO", "YXBLOCKRESET", "START 5",
]

# one protocol line: no line breaks (the transport would split them), modest length
line_text = st.text(
    alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=60
)


@st.composite
def mutated(draw) -> str:
    line = draw(st.sampled_from(VALID_LINES))
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["insert", "delete", "replace", "number", "case", "truncate", "space"]))
        pos = draw(st.integers(0, len(line)))
        if op == "insert":
            line = line[:pos] + draw(st.sampled_from(list(",;- 0123456789xX\t\x00é"))) + line[pos:]
        elif op == "delete" and line:
            line = line[:pos] + line[pos + 1 :]
        elif op == "replace" and line:
            line = line[:pos] + draw(st.sampled_from(list(",0123456789A "))) + line[pos + 1 :]
        elif op == "number":
            n = draw(st.one_of(st.integers(-100, 100), st.integers(-(10**12), 10**12)))
            parts = line.split(" ", 1)
            line = f"{parts[0]} {n}" if len(parts) == 1 else f"{parts[0]} {n},{parts[1][-2:]}"
        elif op == "case":
            line = line.lower() if draw(st.booleans()) else line.swapcase()
        elif op == "truncate":
            line = line[:pos]
        elif op == "space":
            line = "  " + line.replace(" ", "   ") + " \t"
    return line


def not_end(line: str) -> bool:
    words = line.split()
    return not (words and words[0].upper() == "END")


garbage = st.lists(st.one_of(line_text, mutated(), st.sampled_from(VALID_LINES)), max_size=25).map(
    lambda lines: [line for line in lines if not_end(line)]
)

ALLOWED = {
    m.Start: {m.OkReply, m.ErrorReply},
    m.RectStart: {m.OkReply, m.ErrorReply},
    m.Restart: {m.OkReply, m.ErrorReply},
    m.Takeback: {m.OkReply, m.ErrorReply},
    m.Begin: {m.MoveReply, m.ErrorReply},
    m.Turn: {m.MoveReply, m.ErrorReply},
    m.Board: {m.MoveReply, m.ErrorReply},
    m.Play: {m.MoveReply, m.ErrorReply},
    m.YxNBest: {m.MoveReply, m.ErrorReply},
    m.Swap2Board: {m.MoveReply, m.MultiMoveReply, m.ErrorReply},
    m.YxBoard: {m.ErrorReply},
    m.About: {m.AboutReply},
    m.YxShowInfo: {m.MessageReply},
    m.YxShowForbid: {m.ForbidReply, m.ErrorReply},
    m.UnknownCommand: {m.UnknownReply},
    m.ProtocolError: {m.ErrorReply},
}


class Model:
    """The in-process brain: parser + session + greedy, as the runner would drive them."""

    def __init__(self) -> None:
        self.parser = CommandParser()
        self.session = BrainSession(engine_label="greedy")

    def feed(self, line: str) -> list[str]:
        out: list[str] = []
        for cmd in self.parser.feed(line):
            action = self.session.handle(cmd)
            replies: tuple[m.Reply, ...] = ()
            if isinstance(action, Send):
                replies = action.replies
            elif isinstance(action, Search):
                fields = choose(action.position, action.excluded, action.nbest)
                replies = self.session.complete_search(action, SearchResult(**fields))
            else:
                assert isinstance(action, (StopSearch, ResetEngine)), action
                assert not isinstance(action, Exit)
            kinds = {type(r) for r in replies}
            assert kinds <= ALLOWED.get(type(cmd), set()), (cmd, replies)
            if isinstance(cmd, m.ProtocolError) and cmd.silent:
                assert not replies
            for reply in replies:
                text = encode(reply)
                assert "\n" not in text and "\r" not in text
                assert not isinstance(parse_reply(text), m.ProtocolError), text
                out.append(text)
            self.check_invariants()
        return out

    def check_invariants(self) -> None:
        s = self.session
        squares = [(x, y) for x, y, _ in s.stones]
        assert len(set(squares)) == len(squares)
        if s.started:
            assert all(0 <= x < s.width and 0 <= y < s.height for x, y in squares)
        black = sum(1 for *_, c in s.stones if c == BLACK)
        white = sum(1 for *_, c in s.stones if c == WHITE)
        assert black - white in (0, 1)


def valid_game(model_or_process_feed, rng: random.Random, moves: int = 8) -> None:
    """START 15, BEGIN, then TURNs on random empty squares; every answer must be a legal move."""
    feed = model_or_process_feed
    out = feed("START 15")
    assert out[-1] == "OK", out  # an ERROR may come first if the garbage left a block open
    assert feed("INFO rule 0") == []
    board: dict[tuple[int, int], int] = {}
    reply = parse_reply(feed("BEGIN")[-1])
    assert isinstance(reply, m.MoveReply)
    board[(reply.x, reply.y)] = BLACK
    for _ in range(moves):
        empty = [(x, y) for y in range(15) for x in range(15) if (x, y) not in board]
        x, y = rng.choice(empty)
        board[(x, y)] = WHITE
        (line,) = feed(f"TURN {x},{y}")
        reply = parse_reply(line)
        assert isinstance(reply, m.MoveReply), line
        assert 0 <= reply.x < 15 and 0 <= reply.y < 15 and (reply.x, reply.y) not in board
        board[(reply.x, reply.y)] = BLACK


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(garbage, st.integers(0, 2**32 - 1))
def test_session_survives_garbage_and_plays_on(lines, seed):
    model = Model()
    for line in lines:
        model.feed(line)
    valid_game(model.feed, random.Random(seed))
    stones = {(x, y): c for x, y, c in model.session.stones}
    assert len(stones) == 1 + 8 * 2


@settings(max_examples=200, deadline=None)
@given(st.lists(mutated(), min_size=1, max_size=40))
def test_state_is_unchanged_after_every_error(lines):
    model = Model()
    model.feed("START 15")
    for line in lines:
        if not not_end(line):
            continue
        for cmd in model.parser.feed(line):
            s = model.session
            before = (s.width, s.height, list(s.stones), s.rules, set(s.excluded), s.game_id)
            action = s.handle(cmd)
            if isinstance(action, Send) and action.replies and isinstance(action.replies[0], m.ErrorReply):
                after = (s.width, s.height, list(s.stones), s.rules, set(s.excluded), s.game_id)
                assert after == before, cmd
            elif isinstance(action, Search):
                s.complete_search(action, SearchResult(**choose(action.position, action.excluded)))


@pytest.fixture(scope="module")
def live_brain(brain_process_class):
    proc = brain_process_class("--engine", "greedy")
    yield proc
    proc.end()
    proc.kill()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(garbage, st.integers(0, 2**32 - 1))
def test_real_process_matches_the_session_model(live_brain, lines, seed):
    model = Model()
    model.feed("START 15")  # the live process may hold any state from earlier examples: reset both
    # DONE closes a block left open (or is an ERROR); a unique unknown word marks the end of the
    # replies, so lines left unread by an earlier failing example cannot confuse this one
    nonce = f"SYNC{random.getrandbits(64)}"
    live_brain.send("DONE", "DONE", "START 15", nonce)
    while live_brain.read() != f"UNKNOWN unknown command {nonce}":
        pass

    def feed_both(line: str) -> list[str]:
        expected = model.feed(line)
        marker = model.feed("ABOUT")  # always answered (closing any block the line opened)
        live_brain.send(line, "ABOUT")
        got = [live_brain.read(timeout=5) for _ in expected + marker]
        assert got == expected + marker, (line, got, expected + marker)
        return expected

    for line in lines:
        feed_both(line)
    valid_game(feed_both, random.Random(seed), moves=4)
    assert live_brain.proc.poll() is None
