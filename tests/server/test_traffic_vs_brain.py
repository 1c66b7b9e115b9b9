"""The traffic reader (server idle timer, relay's owed answers) against the real brain session:
after every manager line it must know exactly how many answers the brain still owes."""
from __future__ import annotations

import trio
import trio.testing

from gomocup_bot.brain.runner import BrainOptions, run_brain
from gomocup_bot.net.traffic import RequestTracker, is_reply
from protocol.transport import StreamLineStream

LINES = [
    "", "ABOUT", "INFO timeout_turn 50", "INFO", "INFO rule x", "BEGIN", "RESTART", "START 15", "START 15 15",
    "START x", "RECTSTART 20,15", "RECTSTART 3", "INFO timeout_turn 50", "BEGIN", "TURN 0,0", "TURN 0,0",
    "TURN a,b", "TAKEBACK 0,0", "PLAY 1,1", "YXNBEST 2", "YXNBEST 0", "YXSHOWFORBID", "YXSHOWINFO",
    "YXHASHCLEAR", "YXSTOP", "STOP", "YXBLOCKRESET", "YXBALANCEONE 3", "YXSEARCHDEFEND", "YXHASHDUMP f",
    "FOO bar", "DONE", "SWAP", "RESTART", "BOARD", "7,7,1", "1,,2", "DONE", "RESTART", "BOARD", "7,7,1",
    "8,8,2", "DONE", "RESTART", "BOARD", "7,7,1", "ABOUT", "BOARD", "garbage", "YXBOARD", "3,3,1", "4,4,2", "DONE",
    "YXBLOCK", "4,4", "DONE", "YXBLOCKUNDO", "4,4", "DONE", "SWAP2BOARD", "DONE", "SWAP2BOARD", "7,7",
    "8,7", "9,9", "DONE", "start 15", "begin", "turn 1,1", "\x00\xff junk", "TAKEBACK 99,99", "END",
]


async def test_owed_answers_match_the_brain_line_by_line():
    ours, theirs = trio.testing.memory_stream_pair()
    manager, brain_side = StreamLineStream(ours), StreamLineStream(theirs)
    tracker = RequestTracker()
    mismatches: list[str] = []

    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: run_brain(brain_side, options=BrainOptions(engine_name="greedy")))
        for line in LINES:
            await manager.send_line(line)
            tracker.observe_request(line)
            if line == "END":
                break
            if tracker.block is not None:
                continue  # inside a block nothing is answered yet
            # An unknown word as a marker: the brain answers in order, so whatever comes before its
            # UNKNOWN is what `line` produced; exactly `owed` answers must come.
            expected = tracker.owed
            await manager.send_line("MARKER7")
            answers: list[str] = []
            with trio.fail_after(5):
                while (reply := await manager.receive_line() or "") != "UNKNOWN unknown command MARKER7":
                    if is_reply(reply):
                        answers.append(reply)
            if len(answers) != expected:
                mismatches.append(f"{line!r}: tracker owed {expected}, brain answered {answers}")
            tracker.forget()
    assert mismatches == []


async def test_an_error_for_a_state_only_block_is_not_counted_as_owed():
    """YXBOARD/YXBLOCK expect no answer; a brain refusing one (an impossible position) answers
    ERROR anyway. The tracker does not count it, so the relay passes it on as a MESSAGE rather
    than letting it pass for the answer to the next command."""
    tracker = RequestTracker()
    for line in ("START 15", "YXBOARD", "3,3,1", "DONE"):
        tracker.observe_request(line)
    assert tracker.observe_reply("OK") == "START"
    assert tracker.owed == 0
    assert tracker.observe_reply("ERROR YXBOARD: impossible position") is None
