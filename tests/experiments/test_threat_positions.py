"""The Dong & Zhang style test positions mean what their descriptions say (checked by a referee
that is independent of our engines: the pure-Python m,n,k board)."""
from __future__ import annotations

from gomocup_bot.experiments.mnk_game import MNKGame
from gomocup_bot.experiments.threat_positions import BOARD, TESTS

GAME = MNKGame(BOARD, BOARD, 5)


def board_of(test):
    stones, me = test.stones()
    cells = [0] * GAME.size
    for x, y, c in stones:
        cells[y * BOARD + x] = c
    return tuple(cells), me


def five_squares(board, colour) -> set[int]:
    """Empty squares where `colour` would complete five."""
    out = set()
    for c in range(GAME.size):
        if board[c] == 0 and GAME.wins_with(GAME.play(board, c, colour), c):
            out.add(c)
    return out


def by_name(name):
    return next(t for t in TESTS if t.name == name)


def test_every_position_is_a_legal_game_state_with_the_right_side_to_move():
    for test in TESTS:
        stones, me = test.stones()
        blacks = sum(1 for *_, c in stones if c == 1)
        whites = sum(1 for *_, c in stones if c == 2)
        assert blacks - whites == (0 if me == 1 else 1)
        assert [c for *_, c in stones][:2] in ([1, 2], [1])  # black first, alternating order
        board, _ = board_of(test)
        assert GAME.winner(board) == 0
        assert all(board[y * BOARD + x] == 0 for x, y in test.answers())


def test_defence_only_the_answer_stops_a_five():
    board, me = board_of(by_name("defence"))
    threats = five_squares(board, 3 - me)
    assert {(c % BOARD, c // BOARD) for c in threats} == by_name("defence").answers()
    assert not five_squares(board, me)


def test_attack_answer_makes_five():
    board, me = board_of(by_name("attack"))
    assert {(c % BOARD, c // BOARD) for c in five_squares(board, me)} == by_name("attack").answers()


def test_trap_becomes_an_open_four_unless_answered():
    test = by_name("trap")
    board, me = board_of(test)
    opp = 3 - me
    gap = next(c for c in range(GAME.size) if board[c] == 0 and len(five_squares(GAME.play(board, c, opp), opp)) >= 2)
    assert (gap % BOARD, gap // BOARD) in test.answers()
    for x, y in test.answers():  # after each answer the opponent has no open four in one move
        after = GAME.play(board, y * BOARD + x, me)
        for c in range(GAME.size):
            if after[c] == 0 and (abs(c % BOARD - 7) <= 4 and abs(c // BOARD - 6) <= 4):
                assert len(five_squares(GAME.play(after, c, opp), opp)) < 2


def test_balance_answers_make_an_open_four_while_the_opponent_has_no_four():
    test = by_name("balance")
    board, me = board_of(test)
    assert not five_squares(board, 3 - me)
    for x, y in test.answers():
        after = GAME.play(board, y * BOARD + x, me)
        assert len(five_squares(after, me)) == 2
