"""`run_brain` in-process over an in-memory line stream: concurrency behaviour.

The engine here is a deliberately slow but honest one: it "thinks" until its soft deadline or its
stop flag, reporting progress, then plays the first empty square. That makes the runner's
mid-search behaviour (YXSTOP, END, INFO, cancellation, search slots) observable and timeable.
"""
from __future__ import annotations

import threading
import time

import trio
import trio.testing

from gomocup_bot.brain.runner import START_HOLD_S, BrainOptions, run_brain
from gomocup_bot.engine import SearchInfo, SearchRequest, SearchResult, StopFlag
from gomocup_bot.brain.timeman import budget_seconds
from protocol import messages as m
from protocol.parser import parse_reply
from protocol.rules import Rules
from protocol.transport import StreamLineStream


class ThinkingEngine:
    name = "thinking"

    def __init__(self, ignore_stop: bool = False) -> None:
        self.ignore_stop = ignore_stop
        self.searches = 0
        self.stopped_by_flag = threading.Event()
        self.running = threading.Event()
        self.finished = threading.Event()
        self.new_games = 0

    def prepare(self) -> None:
        pass

    def new_game(self, width: int, height: int, rules: Rules) -> None:
        self.new_games += 1

    def search(self, request: SearchRequest, stop: StopFlag) -> SearchResult:
        self.searches += 1
        self.limits = request.limits
        self.finished.clear()
        self.running.set()
        pos = request.position
        empties = pos.empty_squares()
        best = empties[len(empties) // 2]
        if request.report:
            request.report(SearchInfo("refresh"))
            request.report(SearchInfo("best", move=best))
        # an engine that ignores its flag also ignores its clock: it would run 3 s past the deadline
        until = request.limits.hard_deadline + 3 if self.ignore_stop else request.limits.soft_deadline
        try:
            while time.monotonic() < until:
                if stop.is_set() and not self.ignore_stop:
                    self.stopped_by_flag.set()
                    break
                time.sleep(0.002)
            return SearchResult(move=best)
        finally:
            self.running.clear()
            self.finished.set()


class Harness:
    """The manager's end of an in-memory connection to `run_brain`."""

    def __init__(self, engine: ThinkingEngine, **kwargs) -> None:
        self.engine = engine
        manager_side, brain_side = trio.testing.memory_stream_pair()
        self.lines = StreamLineStream(manager_side)
        self.brain_stream = StreamLineStream(brain_side)
        self.kwargs = kwargs
        self.done = trio.Event()

    async def run(self) -> None:
        try:
            await run_brain(self.brain_stream, options=BrainOptions(engine_name="thinking"), engine_factory=lambda: self.engine, **self.kwargs)
        finally:
            self.done.set()

    async def send(self, *lines: str) -> None:
        for line in lines:
            await self.lines.send_line(line)

    async def end(self) -> None:
        """END, and the session must be over within 2 s."""
        await self.send("END")
        with trio.fail_after(2):
            await self.done.wait()

    async def read(self, timeout: float = 5.0) -> str:
        with trio.fail_after(timeout):
            line = await self.lines.receive_line()
        assert line is not None
        return line


async def test_yxstop_answers_at_once_with_the_best_move_so_far(nursery):
    h = Harness(ThinkingEngine())
    nursery.start_soon(h.run)
    await h.send("START 15", "INFO timeout_turn 30000")
    assert await h.read() == "OK"
    await h.send("BEGIN")
    await trio.to_thread.run_sync(h.engine.running.wait, 5)
    await h.send("INFO time_left 1234")  # acted on during the search, never answered
    start = trio.current_time()
    await h.send("YXSTOP")
    line = await h.read()
    assert trio.current_time() - start < 1.0
    assert parse_reply(line) == m.MoveReply(112 % 15, 112 // 15)  # the engine's "best so far"
    assert h.engine.stopped_by_flag.is_set()
    await h.send("ABOUT")
    assert (await h.read()).startswith('name="gomocup-bot"')
    await h.end()


TURN_5S = budget_seconds({"timeout_turn": 5000})  # the hard budget the brain plans for 5 s turns


async def test_input_written_before_the_brain_read_anything_counts_from_input_origin(nursery):
    # A manager writing START, INFO and BOARD at spawn: the turn clock started while the brain
    # was still starting up, here (as if) 3 s earlier. The engine must get what is left, not 5 s.
    origin = time.monotonic() - 3.0
    h = Harness(ThinkingEngine(), input_origin=origin)
    await h.send("START 15", "INFO timeout_turn 5000", "BOARD", "7,7,2", "DONE")
    nursery.start_soon(h.run)
    assert await h.read() == "OK"
    assert isinstance(parse_reply(await h.read(timeout=4)), m.MoveReply)
    assert abs(h.engine.limits.hard_deadline - (origin + TURN_5S)) < 0.01
    await h.send("END")


async def test_input_the_brain_waited_for_counts_from_its_arrival(nursery):
    # A GUI launching the brain long before the game: the first read waits, so the lines are
    # fresh when they come; the same for a TURN written after the OK.
    origin = time.monotonic() - 3.0
    h = Harness(ThinkingEngine(), input_origin=origin)
    nursery.start_soon(h.run)
    await trio.sleep(0.2)
    written = time.monotonic()
    await h.send("START 15", "INFO timeout_turn 5000", "BEGIN")
    assert await h.read() == "OK"
    await trio.to_thread.run_sync(h.engine.running.wait, 5)
    assert 0 <= h.engine.limits.hard_deadline - (written + TURN_5S) < 0.5
    await h.send("YXSTOP")
    assert isinstance(parse_reply(await h.read()), m.MoveReply)
    await trio.sleep(0.3)
    written = time.monotonic()
    await h.send("TURN 0,0")
    await trio.to_thread.run_sync(h.engine.running.wait, 5)
    assert 0 <= h.engine.limits.hard_deadline - (written + TURN_5S) < 0.5
    await h.send("END")


async def test_commands_sent_during_a_search_are_answered_in_order(nursery):
    h = Harness(ThinkingEngine())
    nursery.start_soon(h.run)
    await h.send("START 15", "INFO timeout_turn 300")
    assert await h.read() == "OK"
    await h.send("BEGIN", "ABOUT", "TURN 0,0")
    first = parse_reply(await h.read())
    assert isinstance(first, m.MoveReply)
    assert (await h.read()).startswith('name="gomocup-bot"')
    second = parse_reply(await h.read())
    assert isinstance(second, m.MoveReply) and second != first
    await h.end()


async def test_end_mid_search_stops_the_engine_quickly(nursery):
    h = Harness(ThinkingEngine())
    nursery.start_soon(h.run)
    await h.send("START 15", "INFO timeout_turn 30000", "BEGIN")
    assert await h.read() == "OK"
    await trio.to_thread.run_sync(h.engine.running.wait, 5)
    start = trio.current_time()
    await h.end()
    assert trio.current_time() - start < 1.0
    assert h.engine.stopped_by_flag.is_set()


async def test_cancelling_the_session_sets_the_stop_flag():
    engine = ThinkingEngine()
    h = Harness(engine)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(h.run)
        await h.send("START 15", "INFO timeout_turn 30000", "BEGIN")
        assert await h.read() == "OK"
        await trio.to_thread.run_sync(engine.running.wait, 5)
        nursery.cancel_scope.cancel()  # e.g. the TCP client went away
    assert await trio.to_thread.run_sync(engine.finished.wait, 2)
    assert engine.stopped_by_flag.is_set()


async def test_an_engine_ignoring_its_flag_is_abandoned_at_the_deadline(nursery):
    engine = ThinkingEngine(ignore_stop=True)
    h = Harness(engine)
    nursery.start_soon(h.run)
    await h.send("START 15", "INFO timeout_turn 1000", "BEGIN")
    assert await h.read() == "OK"
    await trio.to_thread.run_sync(engine.running.wait, 5)
    start = trio.current_time()
    line = await h.read(timeout=3)
    # hard deadline (~0.89 s) + the stop grace, then a quick greedy move from the runner
    assert trio.current_time() - start < 1.6
    assert parse_reply(line) == m.MoveReply(7, 7)
    assert engine.running.is_set()  # the abandoned thread is still spinning, as expected
    await h.end()


async def test_an_abandoned_search_keeps_its_slot_until_its_thread_ends(nursery):
    # A search slot stands for a core: a runaway search thread still burns one after the runner
    # has answered without it, so the slot must stay taken until the thread really returns.
    engine = ThinkingEngine(ignore_stop=True)
    slots = trio.CapacityLimiter(1)
    h = Harness(engine, search_slots=slots)
    nursery.start_soon(h.run)
    await h.send("START 15", "INFO timeout_turn 500", "BEGIN")
    assert await h.read() == "OK"
    assert isinstance(parse_reply(await h.read(timeout=3)), m.MoveReply)  # the quick fallback
    assert engine.running.is_set()
    assert slots.borrowed_tokens == 1  # still held by the spinning thread
    assert await trio.to_thread.run_sync(engine.finished.wait, 5)
    with trio.fail_after(2):
        while slots.borrowed_tokens:
            await trio.sleep(0.01)
    await h.end()


async def expect_quick_win_without_the_engine(h: Harness) -> None:
    """A 1 s turn with our open four on the board: the quick answer must win, in time, and the
    engine must not have searched."""
    await h.send("START 15", "INFO timeout_turn 1000")
    assert await h.read() == "OK"
    await h.send("BOARD", "3,7,1", "4,7,1", "5,7,1", "6,7,1", "3,9,2", "4,9,2", "5,9,2", "6,9,2", "DONE")
    start = trio.current_time()
    line = await h.read()
    assert trio.current_time() - start < 0.95  # inside the 1 s turn
    assert parse_reply(line) in (m.MoveReply(2, 7), m.MoveReply(7, 7))
    assert h.engine.searches == 0


async def test_no_free_search_slot_gives_a_quick_tactical_answer(nursery):
    slots = trio.CapacityLimiter(1)
    await slots.acquire_on_behalf_of("someone else")
    h = Harness(ThinkingEngine(), search_slots=slots)
    nursery.start_soon(h.run)
    await expect_quick_win_without_the_engine(h)
    slots.release_on_behalf_of("someone else")
    await h.send("TURN 0,0")
    assert isinstance(parse_reply(await h.read()), m.MoveReply)
    assert h.engine.searches == 1
    assert slots.borrowed_tokens == 0
    await h.end()


class SlowLoadingEngine(ThinkingEngine):
    """An engine whose load (numba's cache, in the real brain) lasts until the test releases it."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded = threading.Event()

    def prepare(self) -> None:
        self.loaded.wait(10)


async def test_a_move_asked_while_the_engine_loads_gets_the_quick_answer_in_time(nursery):
    engine = SlowLoadingEngine()
    h = Harness(engine)
    nursery.start_soon(h.run)
    await expect_quick_win_without_the_engine(h)  # computed while the engine loads
    engine.loaded.set()
    await h.send("TURN 0,0")  # loaded now: the engine answers
    assert isinstance(parse_reply(await h.read()), m.MoveReply)
    assert engine.searches == 1
    await h.end()


async def test_an_engine_ready_within_half_the_budget_answers_the_first_move(nursery):
    engine = SlowLoadingEngine()
    h = Harness(engine)
    nursery.start_soon(h.run)
    await h.send("START 15", "INFO timeout_turn 2000")
    assert await h.read() == "OK"
    await h.send("BEGIN")
    await trio.sleep(0.2)
    engine.loaded.set()
    await trio.to_thread.run_sync(engine.running.wait, 5)
    await h.send("YXSTOP")
    assert isinstance(parse_reply(await h.read()), m.MoveReply)
    assert engine.searches == 1
    await h.end()


async def test_start_s_ok_waits_for_the_loading_engine(nursery):
    # initialisation is not turn time: a manager that waits for the OK then sends a first BOARD
    # the engine itself can answer
    engine = SlowLoadingEngine()
    h = Harness(engine)
    nursery.start_soon(h.run)
    await h.send("START 15")
    with trio.move_on_after(START_HOLD_S / 2) as early:
        await h.read()
    assert early.cancelled_caught  # no OK while the engine loads
    engine.loaded.set()
    start = trio.current_time()
    assert await h.read() == "OK"
    assert trio.current_time() - start < 0.3  # as soon as it is ready
    await h.end()


async def test_start_s_ok_waits_no_longer_than_the_hold(nursery):
    h = Harness(SlowLoadingEngine())  # never loads in this test
    nursery.start_soon(h.run)
    start = trio.current_time()
    await h.send("START 15")
    assert await h.read(timeout=START_HOLD_S + 1) == "OK"
    assert START_HOLD_S - 0.1 < trio.current_time() - start < START_HOLD_S + 0.5
    await h.end()


async def test_start_s_ok_goes_at_once_when_a_command_waits_behind_it(nursery):
    # a manager that does not wait for the OK (GomocupJudge) gains nothing from holding it
    engine = SlowLoadingEngine()
    h = Harness(engine)
    nursery.start_soon(h.run)
    start = trio.current_time()
    await h.send("START 15", "ABOUT")
    assert await h.read() == "OK"
    assert (await h.read()).startswith('name="gomocup-bot"')
    assert trio.current_time() - start < 0.3
    engine.loaded.set()
    await h.end()


async def test_realtime_lines_precede_the_move_when_asked(nursery):
    h = Harness(ThinkingEngine())
    nursery.start_soon(h.run)
    await h.send("START 15", "INFO timeout_turn 200", "INFO show_detail 1", "BEGIN")
    assert await h.read() == "OK"
    assert await h.read() == "MESSAGE REALTIME REFRESH"
    assert await h.read() == "MESSAGE REALTIME BEST 7,7"
    assert await h.read() == "7,7"
    await h.send("INFO show_detail 0", "TURN 0,0")
    assert isinstance(parse_reply(await h.read()), m.MoveReply)  # no REALTIME lines now
    await h.end()


async def test_engine_that_fails_to_start_falls_back_to_greedy(nursery):
    def broken():
        raise RuntimeError("no numba cache")

    manager_side, brain_side = trio.testing.memory_stream_pair()
    lines = StreamLineStream(manager_side)
    done = trio.Event()

    async def run():
        await run_brain(StreamLineStream(brain_side), options=BrainOptions(engine_name="x"), engine_factory=broken)
        done.set()

    nursery.start_soon(run)
    await lines.send_line("START 15")
    assert await lines.receive_line() == "OK"
    await lines.send_line("INFO timeout_turn 2000")
    await lines.send_line("BEGIN")
    assert await lines.receive_line() == "7,7"
    await lines.send_line("ABOUT")
    about = parse_reply(await lines.receive_line())
    assert isinstance(about, m.AboutReply) and about.get("engine", ) == "greedy (fallback: x failed to start)"
    await lines.send_line("END")
    with trio.fail_after(2):
        await done.wait()


async def test_end_of_input_ends_the_session(nursery):
    h = Harness(ThinkingEngine())
    nursery.start_soon(h.run)
    await h.send("START 15", "INFO timeout_turn 30000", "BEGIN")
    await h.lines.stream.send_eof()
    assert await h.read() == "OK"
    start = trio.current_time()
    assert isinstance(parse_reply(await h.read()), m.MoveReply)  # answered at once, not in 30 s
    assert trio.current_time() - start < 1.0
    with trio.fail_after(2):
        await h.done.wait()


class CrashingEngine(ThinkingEngine):
    def search(self, request: SearchRequest, stop: StopFlag) -> SearchResult:
        self.searches += 1
        raise RuntimeError("engine bug")


async def test_an_engine_crash_is_answered_with_a_quick_move(nursery):
    h = Harness(CrashingEngine())
    nursery.start_soon(h.run)
    await h.send("START 15", "INFO timeout_turn 1000")
    assert await h.read() == "OK"
    await h.send("BOARD", "3,7,1", "4,7,1", "5,7,1", "6,7,1", "3,9,2", "4,9,2", "5,9,2", "6,9,2", "DONE")
    assert parse_reply(await h.read()) in (m.MoveReply(2, 7), m.MoveReply(7, 7))  # greedy still wins
    assert h.engine.searches == 1
    await h.send("TURN 0,0")  # and the session goes on
    assert isinstance(parse_reply(await h.read()), m.MoveReply)
    await h.end()


async def test_engine_hears_of_new_games_rule_changes_and_hash_clears(nursery):
    h = Harness(ThinkingEngine())
    nursery.start_soon(h.run)
    await h.send("START 15", "INFO timeout_turn 100")
    assert await h.read() == "OK"
    await h.send("BEGIN")
    await h.read()
    await h.send("TURN 0,0")
    await h.read()
    assert h.engine.new_games == 1  # one game so far
    await h.send("INFO rule 1", "TURN 0,1")
    await h.read()
    assert h.engine.new_games == 2  # the rules changed
    await h.send("YXHASHCLEAR", "TURN 0,2")
    await h.read()
    assert h.engine.new_games == 3
    await h.send("RESTART", "BEGIN")
    assert await h.read() == "OK"
    await h.read()
    assert h.engine.new_games == 4
    await h.end()
