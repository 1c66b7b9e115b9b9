"""Property: parse(encode(m)) == m for every command and reply the protocol layer can express."""
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import messages as m
from protocol.encoder import EncodeError, encode, encode_lines
from protocol.parser import CommandParser, KNOWN_WORDS, parse_reply

coord = st.integers(min_value=-5, max_value=40)
point = st.tuples(coord, coord)
stone = st.tuples(coord, coord, st.sampled_from([1, 2, 3]))
# free text as the protocol carries it: one line, no surrounding blanks
text = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="\x85"),
    max_size=40,
).map(str.strip).filter(lambda s: all(not c.isspace() or c == " " for c in s))
info_key = st.from_regex(r"[a-z_][a-z0-9_]{0,15}", fullmatch=True)
unknown_text = text.filter(lambda s: s != "" and s.split()[0].upper() not in KNOWN_WORDS)

commands = st.one_of(
    st.builds(m.Start, st.integers(0, 99)),
    st.builds(m.RectStart, st.integers(0, 99), st.integers(0, 99)),
    st.just(m.Restart()),
    st.just(m.Begin()),
    st.builds(m.Turn, coord, coord),
    st.builds(m.Board, st.lists(stone, max_size=30).map(tuple)),
    st.builds(m.YxBoard, st.lists(stone, max_size=30).map(tuple)),
    st.builds(m.Info, info_key, text),
    st.just(m.End()),
    st.just(m.About()),
    st.builds(m.Takeback, coord, coord),
    st.builds(m.Play, coord, coord),
    st.builds(m.Swap2Board, st.lists(point, max_size=5).map(tuple)),
    st.just(m.YxShowInfo()),
    st.just(m.YxStop()),
    st.just(m.YxShowForbid()),
    st.just(m.YxHashClear()),
    st.builds(m.YxNBest, st.integers(0, 50)),
    st.builds(m.YxBlock, st.lists(point, max_size=8).map(tuple)),
    st.builds(m.YxBlockUndo, st.lists(point, max_size=8).map(tuple)),
    st.just(m.YxBlockReset()),
    st.builds(m.UnknownCommand, unknown_text),
)

about_value = text.filter(lambda s: '"' not in s)
replies = st.one_of(
    st.builds(m.MoveReply, coord, coord),
    st.builds(m.MultiMoveReply, st.lists(point, min_size=2, max_size=3).map(tuple)),
    st.just(m.OkReply()),
    st.builds(m.ErrorReply, text),
    st.builds(m.UnknownReply, text),
    st.builds(m.MessageReply, text.filter(lambda s: not s.upper().startswith("REALTIME"))),
    st.builds(m.DebugReply, text),
    st.builds(m.SuggestReply, coord, coord),
    st.just(m.SwapReply()),
    st.builds(m.ForbidReply, st.lists(st.tuples(st.integers(0, 31), st.integers(0, 31)), max_size=10).map(tuple)),
    st.builds(m.AboutReply, st.lists(st.tuples(info_key, about_value), min_size=1, max_size=6).map(tuple)),
    st.builds(m.RealtimeReply, st.just("REFRESH")),
    st.builds(m.DetailReply, info_key.map(str.upper), text),
    st.builds(m.RealtimeReply, st.sampled_from(sorted(m.REALTIME_KINDS_WITH_MOVE)), point),
)


@settings(max_examples=400, deadline=None)
@given(commands)
def test_commands_round_trip(cmd):
    parser = CommandParser()
    out = []
    for line in encode_lines(cmd):
        assert "\n" not in line
        out.extend(parser.feed(line))
    assert out == [cmd]
    assert not parser.in_block


@settings(max_examples=400, deadline=None)
@given(replies)
def test_replies_round_trip(reply):
    (line,) = encode_lines(reply)
    assert parse_reply(line) == reply
    # managers must accept any case and trailing CR
    if not isinstance(reply, (m.AboutReply, m.ErrorReply, m.UnknownReply, m.MessageReply, m.DebugReply, m.DetailReply)):
        assert parse_reply(line.lower() + "\r") == reply


def test_encoder_canonical_forms():
    assert encode(m.Board(((7, 7, 2), (8, 8, 1)))) == "BOARD\n7,7,2\n8,8,1\nDONE"
    assert encode(m.ForbidReply(((9, 12), (10, 11)))) == "FORBID 09121011."
    assert encode(m.ForbidReply(())) == "FORBID ."
    assert encode(m.MultiMoveReply(((7, 7), (8, 7), (9, 9)))) == "7,7 8,7 9,9"
    assert encode(m.AboutReply((("name", "x"), ("www", "")))) == 'name="x", www=""'
    assert encode(m.RealtimeReply("BEST", (8, 8))) == "MESSAGE REALTIME BEST 8,8"
    assert encode(m.Info("rule", "1")) == "INFO rule 1"


def test_encoder_refuses_multi_line_text():
    for bad in (m.MessageReply("a\nb"), m.ErrorReply("x\ry"), m.AboutReply((("name", 'a"b'),))):
        try:
            encode(bad)
        except EncodeError:
            continue
        raise AssertionError(f"{bad!r} was encoded")
