"""The server's decisions that need no socket: admission, token files, board sizes, owed answers."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gomocup_bot.net.relay import parse_address
from gomocup_bot.net.guard import requested_board_size
from gomocup_bot.net.limits import Admission, ServerLimits, parse_networks, read_token_file
from gomocup_bot.net.traffic import RequestTracker, is_error_reply, is_move_reply


def test_allow_list_admits_members_only_and_unwraps_ipv4_mapped_addresses():
    admission = Admission(ServerLimits(allow=parse_networks(["10.0.0.0/8, 192.168.1.7", "fd00::/8"])))
    assert admission.refusal("10.200.3.4") is None
    assert admission.refusal("192.168.1.7") is None
    assert admission.refusal("::ffff:10.1.2.3") is None
    assert admission.refusal("fd12::1") is None
    assert "allow-list" in admission.refusal("192.168.1.8")
    assert "allow-list" in admission.refusal("127.0.0.1")
    assert "allow-list" in admission.refusal("not-an-address")


def test_total_and_per_address_caps_count_live_connections_exactly():
    admission = Admission(ServerLimits(max_connections=3, per_address=2))
    admission.admit("10.0.0.1")
    admission.admit("10.0.0.1")
    assert "too many connections from 10.0.0.1" in admission.refusal("10.0.0.1")
    assert admission.refusal("10.0.0.2") is None
    admission.admit("10.0.0.2")
    assert "server full" in admission.refusal("10.0.0.3")
    admission.release("10.0.0.1")
    assert admission.refusal("10.0.0.1") is None
    assert admission.refusal("10.0.0.3") is None


def test_default_board_limit_is_the_brains_own():
    from gomocup_bot.net.limits import DEFAULT_MAX_BOARD
    from gomocup_bot.brain.session import MAX_SIZE

    assert DEFAULT_MAX_BOARD == MAX_SIZE


def test_zero_means_no_per_address_cap():
    admission = Admission(ServerLimits(max_connections=0, per_address=0))
    for _ in range(500):
        admission.admit("127.0.0.1")
    assert admission.refusal("127.0.0.1") is None


def test_token_file_takes_the_first_line_and_rejects_an_empty_file(tmp_path):
    good = tmp_path / "token"
    good.write_text("  s3cret-token \nsecond line\n")
    assert read_token_file(good) == "s3cret-token"
    empty = tmp_path / "empty"
    empty.write_text("\n  \n")
    with pytest.raises(ValueError):
        read_token_file(empty)
    limits = ServerLimits(token="s3cret-token")
    assert limits.token_matches("s3cret-token")
    assert not limits.token_matches("s3cret-token2")
    assert not limits.token_matches("")


@pytest.mark.parametrize(
    "line, size",
    [("START 15", (15, 15)), ("start 20", (20, 20)), ("START 15 17", (15, 17)), ("RECTSTART 30,20", (30, 20)),
     ("START 99999999999999", (99999999999999, 99999999999999)), ("START x", None), ("RECTSTART 20", None),
     ("BOARD", None), ("STARTX 40", None)],
)
def test_requested_board_size(line, size):
    assert requested_board_size(line) == size


def test_tracker_follows_searches_quick_answers_silence_and_blocks():
    tracker = RequestTracker()
    for line in ("INFO timeout_turn 100", "START 15"):
        tracker.observe_request(line)
    assert tracker.owed == 1 and not tracker.searching
    tracker.observe_reply("OK")
    tracker.observe_request("BOARD")
    tracker.observe_request("7,7,1")
    tracker.observe_request("8,8,2")
    assert tracker.owed == 0 and tracker.block == "BOARD" and tracker.block_lines == 2
    tracker.observe_request("DONE")
    assert tracker.owed == 1 and tracker.searching and tracker.block is None
    tracker.observe_reply("MESSAGE thinking")
    assert tracker.searching
    tracker.observe_reply("9,9")
    assert tracker.owed == 0
    tracker.observe_request("YXBOARD")
    tracker.observe_request("DONE")
    assert tracker.owed == 0
    tracker.observe_request("BOARD")
    tracker.observe_request("1,,2")  # a bad stone line keeps the block open
    tracker.observe_request("garbage")  # ends the block with one error; an unknown word is not re-read
    assert tracker.block is None and tracker.owed == 1 and not tracker.searching
    tracker.observe_request("BOARD")
    tracker.observe_request("ABOUT")  # ends the block with an error, then is answered itself
    assert tracker.block is None and tracker.owed == 3
    tracker.observe_request("FOO")
    assert tracker.owed == 4


def test_move_and_error_replies_are_told_apart():
    assert is_move_reply("7,7") and is_move_reply("7,7 8,7 9,9")
    assert not is_move_reply("OK") and not is_move_reply("7,7,1") and not is_move_reply("SWAP")
    assert is_error_reply("ERROR bad") and is_error_reply("unknown FOO")
    assert not is_error_reply("MESSAGE ERROR")


def test_relay_address_parsing():
    assert parse_address("127.0.0.1:6789") == ("127.0.0.1", 6789)
    assert parse_address("[::1]:80") == ("::1", 80)
    assert parse_address("bot.example:1") == ("bot.example", 1)
    for bad in ("127.0.0.1", ":80", "host:0", "host:http", "host:70000"):
        with pytest.raises(ValueError):
            parse_address(bad)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=30), st.lists(st.text(max_size=20), max_size=10))
def test_traffic_reading_never_raises_and_never_owes_a_negative_count(requests, replies):
    tracker = RequestTracker()
    for line in requests:
        requested_board_size(line)
        tracker.observe_request(line)
        assert tracker.owed >= 0 and tracker.block_lines >= 0
    for line in replies:
        tracker.observe_reply(line)
        assert tracker.owed >= 0
