"""The definitions of `tournament.analysis.findings`, on hand-made evaluations (no engine): what is proven,
what is a blunder, where a game became lost by force, and the summary's counts."""
from __future__ import annotations

from protocol.judge import BLACK, WHITE
from tournament.analysis.findings import Candidate, Eval, GameAnalysis, assess, eval_from_info, plies_of
from tournament.analysis.report import game_text, summary
from tournament.api.info import Info
from tournament.api.position import Position
from tournament.analysis.records import GameSource

# black fills row 7 from x=3; white's (9,9) at move 6 leaves black's open three alone
MOVES = [(3, 7), (3, 8), (4, 7), (4, 8), (5, 7), (9, 9), (6, 7), (0, 0), (7, 7)]


def _game(winner: int | None = BLACK) -> GameSource:
    return GameSource("g.sgf", 1, Position.from_moves(MOVES), "B", "W", winner, "five", opening_stones=2)


def _analysis(values: dict[int, Eval], winner: int | None = BLACK) -> GameAnalysis:
    game = _game(winner)
    analysis = GameAnalysis(game, plies_of(game))
    for ply in analysis.plies:
        ply.fast = values.get(ply.index, Eval(0.5))
    assess(analysis)
    return analysis


WIN, LOSS = Eval(1.0, 1, 3, ((7, 7),)), Eval(0.0, -1, 3)


def test_what_counts_as_proven() -> None:
    assert eval_from_info(Info(mate=5, pv=((1, 1),)), 1).proven == 1
    assert eval_from_info(Info(mate=-4), 1).proven == -1 and eval_from_info(Info(mate=-4), 1).winrate == 0.0
    assert eval_from_info(Info(winrate=1.0), 1).proven == 1  # our root checks: a winrate alone
    assert eval_from_info(Info(winrate=1.0, eval=2500), 1).proven == 0  # a big evaluation is no proof
    assert eval_from_info(Info(eval=0, depth=0, nodes=0, winrate=0.5), 1).known is False  # "stop single"
    assert eval_from_info(Info(eval=10, depth=0, nodes=40, winrate=0.5), 1).known is False
    plain = eval_from_info(Info(eval=400), 1)
    assert plain.proven == 0 and 0.7 < plain.winrate < 0.75 and not eval_from_info(Info(), 1).known


def test_a_blunder_starts_the_loss() -> None:
    # position 5: white to move against black's open three (3..5 on row 7), about even; white's
    # (9,9) lets black's open four in: position 6 is black's proven win
    analysis = _analysis({5: Eval(0.5), 6: WIN, 7: LOSS, 8: WIN})
    assert [p.index for p in analysis.plies] == list(range(2, 9))
    (blunder,) = analysis.blunders
    assert (blunder.ply, blunder.colour, blunder.move, blunder.before) == (5, WHITE, (9, 9), 0.5)
    assert blunder.starts_loss and blunder.even_or_better and analysis.lost_at == 6
    assert blunder.refutation == WIN.pv and analysis.loss_blunder is blunder


def test_proofs_run_back_through_the_moves_played() -> None:
    # position 5 proven lost for white: black's move at 4 led there, so 4 is proven for black too
    # (implied, as is 6), and white's move at 3 is the blunder
    analysis = _analysis({3: Eval(0.6), 5: LOSS, 7: LOSS, 8: WIN})
    assert analysis.ply(4).implied == BLACK and analysis.ply(6).implied == BLACK and not analysis.ply(5).implied
    (blunder,) = analysis.blunders
    assert (blunder.ply, blunder.colour, blunder.before) == (3, WHITE, 0.6)
    assert analysis.lost_at == 4 and blunder.starts_loss
    assert blunder.refutation == (MOVES[4],)  # through black's played move


def test_a_missed_win_is_no_loss_and_a_lost_start_no_blunder() -> None:
    # black lets white's forced win in at move 5 (position 4), white misses it, black wins later
    analysis = _analysis({4: Eval(0.5), 5: Eval(1.0, 1), 6: Eval(0.7), 8: WIN})
    assert [b.ply for b in analysis.blunders] == [4, 7]
    assert not analysis.blunders[0].starts_loss and analysis.blunders[1].starts_loss
    # proven for black from the first judged position: lost from the start, nobody blundered
    analysis = _analysis({i: (WIN if i % 2 == 0 else LOSS) for i in range(2, 9)})
    assert analysis.blunders == [] and analysis.lost_at == 2
    # no winner (a draw, an unfinished record): blunders still count, nothing was lost
    analysis = _analysis({6: Eval(0.5), 7: LOSS, 8: WIN}, winner=None)
    assert analysis.lost_at is None and [b.ply for b in analysis.blunders] == [5]


def test_deep_and_fast_evaluations_combine() -> None:
    analysis = _analysis({})
    ply = analysis.ply(5)
    ply.fast, ply.deep = Eval(0.5), Eval(0.0, -1)
    assert ply.eval is ply.deep
    ply.fast, ply.deep = Eval(0.0, -1), Eval(0.4)  # a proof the deep search lost still stands
    assert ply.eval is ply.fast
    ply.fast, ply.deep = Eval(0.3), Eval(None)
    assert ply.eval is ply.fast


def test_summary_counts_and_text() -> None:
    clean = _analysis({}, winner=None)
    lost = _analysis({6: Eval(0.5), 7: Eval(0.47), 8: WIN})
    lost.blunders[0].candidates = [Candidate((8, 7), True, 0.4), Candidate((2, 7), False, 0.0)]
    weak = _analysis({6: Eval(0.9), 7: Eval(0.3), 8: WIN})
    counts = summary([clean, lost, weak], engine="W")
    assert counts["losses"] == 2 and counts["lost_by_force"] == 2 and counts["began_with_blunder"] == 2
    assert counts["began_with_blunder_holding_found"] == 1 and counts["began_with_blunder_from_even_or_better"] == 1
    assert counts["blunders_by_player"] == {"W": 2}
    text = game_text(lost)
    assert "lost by force for white after move 8" in text and "8,7 (40%)" in text and "the loss began here" in text
    assert "no blunder found" in game_text(clean)
