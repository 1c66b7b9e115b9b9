"""The independent threat solver (tests/search/threat_solver.py) checked on its own: hand-made
positions with known answers, its five points against the referee's judge, and its VCF/VCT against
a brute-force search on small boards that skips nothing (every square for the attacker, every legal
reply after a three), built on `protocol.judge` alone."""
from __future__ import annotations

import random

import pytest

from protocol import judge
from protocol.rules import EXACT_FIVE, FREESTYLE, RENJU
from tests.search import positions as P
from tests.search import threat_solver as T

B, W = T.BLACK, T.WHITE


def _stones(rows):
    return [(x, y, B if ch == "X" else W) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch in "XO"]


def _dict_stones(d):
    return [(x, y, B) for x, y in d["X"]] + [(x, y, W) for x, y in d["O"]]


# ----------------------------------------------------------------------------- hand-made positions
def test_two_four_vcf_of_the_search_tests():
    r = T.solve(15, FREESTYLE, _dict_stones(P.VCF_STONES), B, 10, vct=False)
    assert (r.status, r.length) == (T.WIN, 2)
    assert r.line[0] == (4, 5)
    assert T.winning_first_moves(15, FREESTYLE, _dict_stones(P.VCF_STONES), B, 2, False) == P.VCF_FIRST_MOVES


def test_open_three_is_a_win_of_one_and_only_its_two_ends_defend():
    rows = P.padded(P.OPEN_THREE)
    dx, dy = P.shift(P.OPEN_THREE)
    r = T.solve(15, FREESTYLE, _stones(rows), B, 4, vct=True)
    assert (r.status, r.length) == (T.WIN, 1)
    refute, _ = T.refutations(15, FREESTYLE, _stones(rows), W, 4)
    assert refute == {(x + dx, y + dy) for x, y in P.OPEN_THREE_DEFENCES}


def test_three_with_one_free_end_has_three_defences():
    # O . X X X . . : the far square counts too
    rows = P.padded(["O.XXX..", ".......", "......O"])
    dx, dy = P.shift(["O.XXX..", ".......", "......O"])
    refute, _ = T.refutations(15, FREESTYLE, _stones(rows), W, 3)
    assert refute == {(1 + dx, dy), (5 + dx, dy), (6 + dx, dy)}


def test_double_three_is_a_vct_of_two_but_no_vcf():
    # X to move: (4,4) makes two open threes (row 4 and column 4)
    rows = P.padded(["...........",
                     "...........",
                     "....X......",
                     "....X......",
                     "..XX.......",
                     "...........",
                     "........O..",
                     ".O.......O.",
                     "...........",
                     ".........O."])
    stones = _stones(rows)
    assert T.solve(15, FREESTYLE, stones, B, 12, vct=False).status == T.FAIL
    r = T.solve(15, FREESTYLE, stones, B, 4, vct=True)
    assert (r.status, r.length) == (T.WIN, 2)
    dx, dy = P.shift(["..........."] * 10)
    assert r.line[0] == (4 + dx, 4 + dy)
    # under renju the same square is a double-three foul for black; white is not restricted
    assert T.solve(15, RENJU, stones, B, 4, vct=True).status == T.FAIL
    swapped = [(x, y, 3 - c) for x, y, c in stones]
    assert T.solve(15, RENJU, swapped, W, 4, vct=True).status == T.WIN


def test_exact_five_ignores_the_overline_square():
    # X X X X . X : the gap makes six -- a five point in freestyle only; the end square is a five
    # point in both, so freestyle has an open "four" of two points and standard a plain four
    rows = P.padded(["..........", ".XXXX.X...", "..........", "O...O...O."])
    stones = _stones(rows)
    fb = T.ThreatBoard(15, FREESTYLE, stones)
    sb = T.ThreatBoard(15, EXACT_FIVE, stones)
    assert len(fb.five_points(B)) == 2 and len(sb.five_points(B)) == 1


def test_renju_white_four_whose_block_is_a_black_foul_wins():
    from tests.search.test_renju_search import FAKE_WINS, FORCE_FOUL, REAL_VCF

    r = T.solve(15, RENJU, _dict_stones(FORCE_FOUL), W, 5, vct=False)
    assert (r.status, r.length) == (T.WIN, 1) and r.line[0] == (6, 6)
    assert T.solve(15, FREESTYLE, _dict_stones(FORCE_FOUL), W, 5, vct=False).status == T.FAIL
    for name, (stones, _) in FAKE_WINS.items():
        assert T.solve(15, RENJU, _dict_stones(stones), B, 6, vct=False).status == T.FAIL, name
        assert T.solve(15, FREESTYLE, _dict_stones(stones), B, 6, vct=False).status == T.WIN, name
    r = T.solve(15, RENJU, _dict_stones(REAL_VCF), B, 8, vct=False)
    assert (r.status, r.length) == (T.WIN, 2) and r.line[0] == (7, 10)


def test_defender_five_comes_first():
    # X has an open three, but O has a four: X must block first (its win, if any, starts there)
    rows = P.padded(["XOOOO....", ".........", "..XXX....", ".........", "........."])
    dx, dy = P.shift(["XOOOO...."] * 5)
    stones = _stones(rows) + [(0, 14, B)]
    r = T.solve(15, FREESTYLE, stones, B, 6, vct=True)
    assert r.status == T.FAIL or r.line[0] == (5 + dx, dy)
    assert T.winning_first_moves(15, FREESTYLE, stones, B, 6, True) <= {(5 + dx, dy)}
    no_four = [s for s in stones if s[2] == B] + [(0, 0, W), (14, 0, W), (0, 10, W), (14, 14, W)]
    r = T.solve(15, FREESTYLE, no_four, B, 6, vct=True)
    assert (r.status, r.length) == (T.WIN, 1)


# ----------------------------------------------------------------------------- the judge agrees
@pytest.mark.parametrize("rules", [FREESTYLE, EXACT_FIVE, RENJU], ids=["freestyle", "standard", "renju"])
def test_five_points_match_the_judge(rules):
    rng = random.Random(7)
    for _ in range(60):
        n = rng.choice([7, 9, 15])
        stones = _random_stones(rng, n, rng.randint(8, 30), line_bias=0.7)
        tb = T.ThreatBoard(n, rules, stones)
        jb = judge.Board(n, n, stones)
        for colour in (B, W):
            mine = {tb.xy(c) for c in tb.five_points(colour)}
            assert mine == set(judge.winning_squares(jb, colour, rules)), (stones, colour)


def _random_stones(rng, n, count, line_bias=0.5):
    """Random stones, many of them next to a stone of the same colour along a line (so fours and
    threes are common), with no five or longer run on the board."""
    b = judge.Board(n, n)
    stones = []
    colour = B
    tries = 0
    while len(stones) < count and tries < 2000:
        tries += 1
        own = [(x, y) for x, y, c in stones if c == colour]
        if own and rng.random() < line_bias:
            x, y = rng.choice(own)
            dx, dy = rng.choice(judge.DIRECTIONS)
            k = rng.choice([-2, -1, 1, 2])
            x, y = x + k * dx, y + k * dy
        else:
            x, y = rng.randrange(n), rng.randrange(n)
        if not b.inside(x, y) or b.get(x, y) != judge.EMPTY:
            continue
        b.set(x, y, colour)
        if judge.has_win(b, colour, EXACT_FIVE) or judge.has_win(b, colour, FREESTYLE):
            b.set(x, y, judge.EMPTY)
            continue
        stones.append((x, y, colour))
        colour = 3 - colour
    return stones


# ----------------------------------------------------------------------------- brute force
class Brute:
    """The same game-theoretic question as the solver, answered without its shortcuts: the attacker
    tries every legal square, a move is a four / a three by counting five points square by square
    with the judge, and after a three every legal defender reply is searched."""

    def __init__(self, n, rules, stones):
        self.b = judge.Board(n, n, stones)
        self.rules = rules

    def fives(self, colour):
        return {(x, y) for x, y in self.b.empties() if judge.makes_win(self.b, x, y, colour, self.rules)}

    def legal(self, sq, colour):
        return not (self.rules.renju and colour == B and judge.renju_foul(self.b, *sq) is not None)

    def attack(self, a, depth, vct):
        d = 3 - a
        if self.fives(a):
            return True
        theirs = self.fives(d)
        if len(theirs) >= 2 or depth <= 0:
            return False
        if theirs:
            (q,) = theirs
            return self.legal(q, a) and self.after(a, q, depth - 1, vct)
        return any(self.legal(p, a) and self.after(a, p, depth - 1, vct) for p in self.b.empties())

    def after(self, a, p, depth, vct):
        d = 3 - a
        self.b.set(*p, a)
        try:
            fives = self.fives(a)
            if len(fives) >= 2:
                return True
            if len(fives) == 1:
                (q,) = fives
                if not self.legal(q, d):
                    return True
                if depth == 0:
                    return False
                self.b.set(*q, d)
                try:
                    return self.attack(a, depth, vct)
                finally:
                    self.b.set(*q, judge.EMPTY)
            if not vct or depth == 0 or not self.has_double_five(a):
                return False
            for m in self.b.empties():
                if not self.legal(m, d):
                    continue
                self.b.set(*m, d)
                try:
                    if not self.attack(a, depth, vct):
                        return False
                finally:
                    self.b.set(*m, judge.EMPTY)
            return True
        finally:
            self.b.set(*p, judge.EMPTY)

    def has_double_five(self, a):
        for s in self.b.empties():
            if not self.legal(s, a):
                continue
            self.b.set(*s, a)
            n = len(self.fives(a))
            self.b.set(*s, judge.EMPTY)
            if n >= 2:
                return True
        return False


def _brute_cases(seed, count, n, stones_range):
    rng = random.Random(seed)
    cases = []
    while len(cases) < count:
        rules = rng.choice([FREESTYLE, EXACT_FIVE, RENJU])
        stones = _random_stones(rng, n, rng.randint(*stones_range), line_bias=0.8)
        attacker = rng.choice([B, W])
        tb = T.ThreatBoard(n, rules, stones)
        if tb.five_points(attacker):
            continue  # trivial
        if rules.renju and any(c == B and tb.cells[y * n + x] == B and _was_foul(n, stones, i)
                               for i, (x, y, c) in enumerate(stones)):
            continue
        cases.append((rules, stones, attacker))
    return cases


def _was_foul(n, stones, i):
    b = judge.Board(n, n, stones[:i])
    x, y, _ = stones[i]
    return judge.renju_foul(b, x, y) is not None


# (run with more cases and other seeds when the solver changes: when the sets were made, 300 VCF cases
# at depths 1-4, 60 VCT cases at depths 1-2 and 20 VCT cases at depth 3 -- 12 of them wins that need
# all three threat moves -- agreed with the brute force)
@pytest.mark.parametrize("case", range(24))
def test_vcf_matches_brute_force_on_7x7(case):
    rules, stones, attacker = _brute_cases(101, 24, 7, (10, 18))[case]
    brute = Brute(7, rules, stones)
    for depth in (1, 2, 3):
        want = brute.attack(attacker, depth, False)
        got = T.solve(7, rules, stones, attacker, depth, vct=False, min_depth=depth)
        assert (got.status == T.WIN) == want, (rules.name, stones, attacker, depth)


@pytest.mark.parametrize("case", range(8))
def test_vct_matches_brute_force_on_7x7(case):
    rules, stones, attacker = _brute_cases(202, 8, 7, (10, 16))[case]
    brute = Brute(7, rules, stones)
    for depth in (1, 2):
        want = brute.attack(attacker, depth, True)
        got = T.solve(7, rules, stones, attacker, depth, vct=True, min_depth=depth)
        assert (got.status == T.WIN) == want, (rules.name, stones, attacker, depth)


def test_a_three_needs_a_threat_move_left_after_it():
    # regression: a three whose every defence is a proven loss still needs one more threat move (the
    # open four); with none left the line must fail. The brute force says no win in 3 here (white
    # blocks the first four on (6,4)); the solver once counted the last three for free.
    stones = [(6, 5, B), (1, 2, W), (3, 4, B), (2, 3, W), (6, 6, B), (0, 5, W), (5, 4, B), (5, 5, W), (2, 4, B),
              (2, 1, W), (3, 5, B), (1, 4, W), (2, 0, B), (3, 0, W), (4, 2, B), (2, 2, W)]
    assert T.solve(7, FREESTYLE, stones, B, 3, vct=True).status == T.FAIL
    assert not Brute(7, FREESTYLE, stones).attack(B, 2, True)
