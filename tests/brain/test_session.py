"""BrainSession details the transcripts do not reach: rule decoding, BOARD colours, engine bugs."""
from gomocup_bot.engine import BLACK, BLOCKED, WHITE, SearchResult
from gomocup_bot.brain.session import BrainSession, Search, Send
from protocol import messages as m
from protocol.rules import RENJU, Rules


def started(size: int = 15) -> BrainSession:
    s = BrainSession(engine_label="test")
    assert s.handle(m.Start(size)) == Send((m.OkReply(),))
    return s


def test_rule_2_is_continuous_unless_yixin():
    s = started()
    s.handle(m.Info("rule", "2"))
    assert s.rules == Rules(continuous=True)
    s.handle(m.YxShowInfo())  # the Yixin GUI handshake switches to its dialect
    s.handle(m.Info("rule", "2"))
    assert s.rules == RENJU
    s = BrainSession(yixin_rule2=True)
    s.handle(m.Info("rule", "2"))
    assert s.rules == RENJU


def test_board_colours_follow_the_stone_counts_and_field_3_is_blocked():
    s = started()
    action = s.handle(m.Board(((7, 7, 1), (8, 8, 2), (0, 0, 3))))
    assert isinstance(action, Search) and action.position.to_move == BLACK
    assert set(s.stones) == {(7, 7, BLACK), (8, 8, WHITE), (0, 0, BLOCKED)}
    action = s.handle(m.Board(((7, 7, 2),)))
    assert isinstance(action, Search) and action.position.to_move == WHITE
    assert s.stones == [(7, 7, BLACK)]


def test_continuous_game_accepts_a_board_with_a_five():
    stones = tuple((x, 0, 1) for x in range(5)) + tuple((x, 2, 2) for x in range(5))
    s = started()
    assert isinstance(s.handle(m.Board(stones)), Send)  # ERROR: someone already won
    s.handle(m.Info("rule", "2"))
    assert isinstance(s.handle(m.Board(stones)), Search)


def test_turn_that_would_fill_the_board_is_refused():
    s = started(5)
    # every square but (4,4) taken, colours alternating (13 black, 11 white is fine for this check)
    s.stones = [(x, y, BLACK if (x + 5 * y) % 2 == 0 else WHITE) for y in range(5) for x in range(5) if (x, y) != (4, 4)]
    before = list(s.stones)
    reply = s.handle(m.Turn(4, 4))
    assert isinstance(reply, Send) and isinstance(reply.replies[0], m.ErrorReply)
    assert "fills the board" in reply.replies[0].text
    assert s.stones == before


def test_illegal_engine_move_is_replaced_by_a_legal_one():
    s = started()
    action = s.handle(m.Turn(7, 7))
    assert isinstance(action, Search)
    replies = s.complete_search(action, SearchResult(move=(7, 7)))  # occupied: an engine bug
    (reply,) = replies
    assert isinstance(reply, m.MoveReply) and (reply.x, reply.y) != (7, 7)
    assert len(s.stones) == 2 and s.stones[1][:2] == (reply.x, reply.y)


def test_about_fields_in_order():
    about = BrainSession(engine_label="greedy").about()
    assert [k for k, _ in about.fields] == ["name", "version", "author", "country", "www", "engine"]
    assert about.get("www") == ""


def test_a_renju_foul_from_the_engine_is_replaced():
    s = started()
    s.handle(m.Info("rule", "4"))
    # black to move; (7,7) is a double three
    board = ((5, 7, 1), (6, 7, 1), (7, 5, 1), (7, 6, 1), (0, 0, 2), (14, 0, 2), (0, 14, 2), (14, 14, 2))
    action = s.handle(m.Board(board))
    assert isinstance(action, Search) and action.position.to_move == BLACK
    (reply,) = s.complete_search(action, SearchResult(move=(7, 7)))
    assert isinstance(reply, m.MoveReply) and (reply.x, reply.y) != (7, 7)
