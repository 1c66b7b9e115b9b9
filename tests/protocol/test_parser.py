"""CommandParser and parse_reply on the forms of the protocol reference (and malformed ones)."""
import pytest

from protocol import messages as m
from protocol.parser import CommandParser, parse_command, parse_point, parse_reply


def feed_all(lines):
    parser = CommandParser()
    out = []
    for line in lines:
        out.extend(parser.feed(line))
    out.extend(parser.finish())
    return out


@pytest.mark.parametrize(
    "line, expected",
    [
        ("START 15", m.Start(15)),
        ("start 20\r", m.Start(20)),
        ("  START   19  ", m.Start(19)),
        ("START 15 15", m.Start(15)),  # Yixin-Board sends two numbers
        ("RECTSTART 20,15", m.RectStart(20, 15)),
        ("RESTART", m.Restart()),
        ("BEGIN", m.Begin()),
        ("TURN 10,11", m.Turn(10, 11)),
        ("turn 3, 4", m.Turn(3, 4)),
        ("TURN -1,5", m.Turn(-1, 5)),  # syntactically fine; the session rejects it as off-board
        ("INFO timeout_turn 30000", m.Info("timeout_turn", "30000")),
        ("INFO TIME_LEFT -50", m.Info("time_left", "-50")),
        ("INFO folder C:\\My Files\\x", m.Info("folder", "C:\\My Files\\x")),
        ("INFO evaluate 3,4", m.Info("evaluate", "3,4")),
        ("INFO some_future_key whatever 1 2", m.Info("some_future_key", "whatever 1 2")),
        ("END", m.End()),
        ("ABOUT", m.About()),
        ("TAKEBACK 10,5", m.Takeback(10, 5)),
        ("PLAY 10,16", m.Play(10, 16)),
        ("YXSHOWINFO", m.YxShowInfo()),
        ("YXSTOP", m.YxStop()),
        ("stop", m.YxStop()),
        ("YXSHOWFORBID", m.YxShowForbid()),
        ("YXHASHCLEAR", m.YxHashClear()),
        ("YXNBEST 3", m.YxNBest(3)),
        ("YXBLOCKRESET", m.YxBlockReset()),
        ("FROBNICATE 1 2", m.UnknownCommand("FROBNICATE 1 2")),
        ("YXBALANCEONE 5", m.UnknownCommand("YXBALANCEONE 5")),
    ],
)
def test_single_line_commands(line, expected):
    assert feed_all([line]) == [expected]


@pytest.mark.parametrize(
    "line, reason_part",
    [
        ("START", "board size"),
        ("START abc", "board size"),
        ("START -5", "board size"),
        ("RECTSTART 20", "WIDTH,HEIGHT"),
        ("TURN", "X,Y"),
        ("TURN 1,2,3", "X,Y"),
        ("TURN a,b", "X,Y"),
        ("TURN 1234567890,1", "X,Y"),  # absurd numbers are rejected before int()
        ("TAKEBACK x", "X,Y"),
        ("PLAY", "X,Y"),
        ("YXNBEST", "count"),
        ("DONE", "outside"),
    ],
)
def test_malformed_lines_are_protocol_errors(line, reason_part):
    (result,) = feed_all([line])
    assert isinstance(result, m.ProtocolError)
    assert reason_part in result.reason
    assert not result.silent


def test_bad_info_is_a_silent_error():
    (result,) = feed_all(["INFO"])
    assert isinstance(result, m.ProtocolError) and result.silent


def test_blank_lines_are_ignored_everywhere():
    assert feed_all(["", "  ", "\r", "BOARD", "", "7,7,1", "\r", "DONE", ""]) == [m.Board(((7, 7, 1),))]


def test_blocks_are_assembled_case_insensitively():
    assert feed_all(["board", "7,7,1", "8,8,2", "9,9,3", "done"]) == [m.Board(((7, 7, 1), (8, 8, 2), (9, 9, 3)))]
    assert feed_all(["YXBOARD", "7,7,2", "7,8,1", "DONE"]) == [m.YxBoard(((7, 7, 2), (7, 8, 1)))]
    assert feed_all(["SWAP2BOARD", "DONE"]) == [m.Swap2Board(())]
    assert feed_all(["SWAP2BOARD", "7,7", "8,7", "9,9", "DONE"]) == [m.Swap2Board(((7, 7), (8, 7), (9, 9)))]
    assert feed_all(["YXBLOCK", "1,2", "DONE"]) == [m.YxBlock(((1, 2),))]
    assert feed_all(["YXBLOCKUNDO", "1,2", "3,4", "DONE"]) == [m.YxBlockUndo(((1, 2), (3, 4)))]


def test_a_bad_stone_line_rejects_the_whole_block_at_done():
    out = feed_all(["BOARD", "7,7,1", "8,8,5", "9,9,2", "DONE", "BEGIN"])
    assert len(out) == 2
    assert isinstance(out[0], m.ProtocolError) and "field" in out[0].reason
    assert out[1] == m.Begin()  # the parser is back to normal after the block
    out = feed_all(["SWAP2BOARD", "7,7,1", "DONE"])
    assert isinstance(out[0], m.ProtocolError) and "X,Y" in out[0].reason


def test_a_command_inside_a_block_ends_it_and_is_still_obeyed():
    out = feed_all(["BOARD", "7,7,1", "END"])
    assert isinstance(out[0], m.ProtocolError) and "before DONE" in out[0].reason
    assert out[1] == m.End()


def test_garbage_inside_a_block_ends_it_and_is_dropped():
    out = feed_all(["BOARD", "7,7,1", "hello world", "TURN 1,1"])
    assert isinstance(out[0], m.ProtocolError)
    assert out[1:] == [m.Turn(1, 1)]


def test_unterminated_block_at_eof():
    out = feed_all(["BOARD", "7,7,1"])
    assert len(out) == 1 and isinstance(out[0], m.ProtocolError) and "without DONE" in out[0].reason


def test_line_and_block_caps():
    parser = CommandParser(max_line=50, max_block=3)
    (err,) = parser.feed("INFO folder " + "x" * 100)
    assert isinstance(err, m.ProtocolError) and "longer than 50" in err.reason
    assert parser.feed("BEGIN") == [m.Begin()]
    for line in ["BOARD", "1,1,1", "2,2,2", "3,3,1", "4,4,2", "5,5,1"]:
        assert parser.feed(line) == []
    (err,) = parser.feed("DONE")
    assert isinstance(err, m.ProtocolError) and "longer than 3" in err.reason


def test_parse_point():
    assert parse_point("3,4") == (3, 4)
    assert parse_point(" 3 , 4 ") == (3, 4)
    assert parse_point("3 4") == (3, 4)
    assert parse_point("3,") is None
    assert parse_point("3,4,5") is None


def test_parse_command_wants_exactly_one():
    assert parse_command("BOARD\n1,1,1\nDONE") == m.Board(((1, 1, 1),))
    assert isinstance(parse_command("BEGIN\nEND"), m.ProtocolError)


@pytest.mark.parametrize(
    "line, expected",
    [
        ("OK", m.OkReply()),
        ("ok\r", m.OkReply()),
        ("10,11", m.MoveReply(10, 11)),
        (" 0,0 ", m.MoveReply(0, 0)),
        ("-1,3", m.MoveReply(-1, 3)),  # off-board, but a move: the referee judges it
        ("7,7 8,7 9,9", m.MultiMoveReply(((7, 7), (8, 7), (9, 9)))),
        ("8,8 8,6", m.MultiMoveReply(((8, 8), (8, 6)))),
        ("ERROR unsupported size", m.ErrorReply("unsupported size")),
        ("ERROR", m.ErrorReply("")),
        ("UNKNOWN what?", m.UnknownReply("what?")),
        ("MESSAGE depth 12 eval 35", m.MessageReply("depth 12 eval 35")),
        ("DEBUG x=1", m.DebugReply("x=1")),
        ("SUGGEST 10,16", m.SuggestReply(10, 16)),
        ("SWAP", m.SwapReply()),
        ("FORBID 09121011.", m.ForbidReply(((9, 12), (10, 11)))),
        ("FORBID .", m.ForbidReply(())),
        ("MESSAGE REALTIME REFRESH", m.RealtimeReply("REFRESH")),
        ("MESSAGE REALTIME BEST 8,8", m.RealtimeReply("BEST", (8, 8))),
        ("MESSAGE REALTIME LOST 1,2", m.RealtimeReply("LOST", (1, 2))),
        ("MESSAGE REALTIME VAL 35", m.MessageReply("REALTIME VAL 35")),
        ("INFO DEPTH 12", m.DetailReply("DEPTH", "12")),
        ("INFO BESTLINE 7,7 8,8", m.DetailReply("BESTLINE", "7,7 8,8")),
        ("info pv done", m.DetailReply("PV", "done")),
        (
            'name="MyBrain", version="1.0", author="A. B.", country="CZ"',
            m.AboutReply((("name", "MyBrain"), ("version", "1.0"), ("author", "A. B."), ("country", "CZ"))),
        ),
        ('www=""', m.AboutReply((("www", ""),))),
    ],
)
def test_parse_reply(line, expected):
    assert parse_reply(line) == expected


@pytest.mark.parametrize("line", ["", "hello", "7,7,1", "SUGGEST", "FORBID 091.", 'name="x" junk', "OK then", "INFO"])
def test_parse_reply_rejects_other_lines(line):
    assert isinstance(parse_reply(line), m.ProtocolError)


@pytest.mark.parametrize(
    "value, expected",
    [("30000", 30000), ("-5", -5), ("+7", 7), (" 12 ", 12), ("", None), ("-", None), ("1.5", None), ("abc", None),
     ("١٢", None), ("9" * 30, None)],
)
def test_info_int_value(value, expected):
    assert m.Info("timeout_turn", value).int_value() == expected
