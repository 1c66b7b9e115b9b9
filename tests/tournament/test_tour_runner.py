"""Whole tournaments in-process: formats, storage, misbehaving engines, SPRT stop, the ladder planner."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tour_helpers import fake_spec
from tournament.game.endings import Ending
from tournament.play.openings import BUILTIN_OPENINGS
from tournament.game.record import GameRecord
from tournament.play.runner import SprtSettings, TournamentSettings, prepare_store, run_tournament, sprt_state
from tournament.play.schedule import LadderPlanner, gauntlet_plan, match_plan, round_robin_plan, tally_of
from tournament.engines.session import GameConfig, TimeControl
from tournament.results.store import Store, StoreError

FAST = GameConfig(time=TimeControl(turn_ms=1000, tolerance_ms=1500, late_grace_ms=200), start_timeout=10.0)


def test_plans_pair_games_with_colours_swapped() -> None:
    plan = match_plan("a", "b", 2)
    assert [(s.slot, s.pair_index, s.black, s.white) for s in plan] == [(0, 0, "a", "b"), (1, 0, "b", "a"), (2, 1, "b", "a"), (3, 1, "a", "b")]
    rr = round_robin_plan(["a", "b", "c", "d", "e"], 2)
    couples = Counter(frozenset((s.black, s.white)) for s in rr)
    assert len(couples) == 10 and set(couples.values()) == {4}
    colours = Counter((s.black, s.white) for s in rr)
    assert set(colours.values()) == {2}  # each engine is black twice against each opponent
    g = gauntlet_plan("champ", ["x", "y"], 3)
    assert len(g) == 12 and all("champ" in (s.black, s.white) for s in g)
    assert sorted(s.slot for s in rr) == list(range(len(rr)))


def test_store_one_row_per_slot(tmp_path: Path) -> None:
    with Store(tmp_path / "t.sqlite") as store:
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        store.add_engine("a", "x")
        store.add_engine("b", "y")
        with pytest.raises(StoreError):
            store.add_engine("a", "something else")
        record = GameRecord("a", "b", 15, 15, 0, 5, 1, Ending.FIVE, slot=7, pair_index=3)
        assert store.record_game(record)
        assert not store.record_game(record)
        assert store.game_count() == 1 and store.done_slots() == {7}
        back = store.games()[0]
        assert (back.black, back.white, back.result, back.ending, back.slot) == ("a", "b", 1, Ending.FIVE, 7)


async def test_round_robin_goes_on_past_misbehaving_engines(tmp_path: Path) -> None:
    engines = [
        fake_spec("good", "--row", "0"),
        fake_spec("crasher", "--row", "1", "--mode", "crash", "--at", "2"),
        fake_spec("garbler", "--row", "2", "--mode", "garbage", "--at", "1"),
        fake_spec("deadstart", "--row", "3", "--mode", "crash-start"),
    ]
    settings = TournamentSettings("roundrobin", engines, FAST, pairs=1, openings=list(BUILTIN_OPENINGS), concurrency=2)
    with Store(tmp_path / "rr.sqlite") as store:
        settings = prepare_store(store, settings, resume=False)
        summary = await run_tournament(settings, store)
        games = store.games()
    assert summary.games_played == 12 and len(games) == 12 and summary.stopped_by == "plan complete"
    assert sorted(g.slot for g in games) == list(range(12))
    endings = Counter((g.loser, g.ending) for g in games)
    assert endings[("deadstart", Ending.START_FAILED)] == 6
    assert endings[("garbler", Ending.BAD_REPLY)] == 4  # every game not against deadstart
    assert endings[("crasher", Ending.CRASH)] == 2  # against good (garbler loses first against it)
    good = [g for g in games if "good" in (g.black, g.white)]
    assert all(g.winner == "good" for g in good)
    for g in games:  # both games of a pair share the opening, colours swapped
        partner = next(h for h in games if h.slot == g.slot ^ 1)
        assert partner.opening == g.opening and (partner.black, partner.white) == (g.white, g.black)


@pytest.mark.parametrize("pentanomial", [False, True])
async def test_sprt_stops_a_lopsided_match(tmp_path: Path, pentanomial: bool) -> None:
    engines = [fake_spec("strong", "--row", "0"), fake_spec("weak", "--row", "2", "--mode", "error", "--at", "1")]
    sprt = SprtSettings(0, 200, 0.05, 0.05, pentanomial=pentanomial)
    settings = TournamentSettings("match", engines, FAST, pairs=50, openings=list(BUILTIN_OPENINGS), concurrency=1, sprt=sprt)
    with Store(tmp_path / "m.sqlite") as store:
        settings = prepare_store(store, settings, resume=False)
        summary = await run_tournament(settings, store)
        n = store.game_count()
    assert summary.sprt is not None and summary.sprt.decision == "H1"
    assert summary.stopped_by == "sprt H1"
    assert n < 100  # stopped early
    # the decision is the SPRT on the stored games, recomputed independently
    with Store(tmp_path / "m.sqlite") as store:
        again = sprt_state(store.games(), "strong", sprt)
        assert again.decision == "H1"
        # resuming a decided match plays nothing more
        settings = prepare_store(store, settings, resume=True)
        summary = await run_tournament(settings, store)
        assert summary.games_played == 0 and store.game_count() == n


def test_resume_refuses_another_tournament(tmp_path: Path) -> None:
    engines = [fake_spec("a"), fake_spec("b", "--row", "2")]
    with Store(tmp_path / "x.sqlite") as store:
        prepare_store(store, TournamentSettings("match", engines, FAST, pairs=2), resume=False)
        with pytest.raises(StoreError):
            prepare_store(store, TournamentSettings("match", engines, FAST, pairs=3), resume=False)
        resumed = prepare_store(store, TournamentSettings("match", [], FAST, pairs=3), resume=True)
        assert resumed.pairs == 2 and [e.name for e in resumed.engines] == ["a", "b"]
    with Store(tmp_path / "y.sqlite") as store:
        with pytest.raises(StoreError):
            prepare_store(store, TournamentSettings("match", engines, FAST), resume=True)


def _record(black: str, white: str, result: int, slot: int) -> GameRecord:
    return GameRecord(black, white, 15, 15, 0, 5, result, Ending.FIVE, slot=slot, pair_index=slot // 2)


def test_ladder_planner_prefers_uncertain_couples() -> None:
    planner = LadderPlanner(["a", "b", "c"])
    games = [_record("a", "b", i % 3 and 1 or 2, i) for i in range(20)]  # a and b met often
    first = planner.choose(tally_of(games), Counter())
    assert "c" in first  # the engine nobody has seen
    # while a-c is being played, the next choice spreads to b-c
    second = planner.choose(tally_of(games), Counter({first: 2}))
    assert "c" in second and second != first


async def test_ladder_runs_and_accumulates(tmp_path: Path) -> None:
    engines = [fake_spec("r0", "--row", "0"), fake_spec("r2", "--row", "2"), fake_spec("err", "--row", "4", "--mode", "error", "--at", "3")]
    db = tmp_path / "ladder.sqlite"
    for run in range(2):
        settings = TournamentSettings("ladder", engines, FAST, openings=list(BUILTIN_OPENINGS), concurrency=2, max_games=6)
        with Store(db) as store:
            settings = prepare_store(store, settings, resume=False)
            summary = await run_tournament(settings, store)
            assert summary.games_played == 6
            assert store.game_count() == 6 * (run + 1)
            games = store.games()
    assert sorted(g.slot for g in games) == list(range(12))
    assert len({frozenset((g.black, g.white)) for g in games}) >= 2


async def test_ladder_replays_the_missing_half_of_a_pair(tmp_path: Path) -> None:
    engines = [fake_spec("r0", "--row", "0"), fake_spec("r2", "--row", "2")]
    db = tmp_path / "ladder.sqlite"
    with Store(db) as store:
        settings = prepare_store(store, TournamentSettings("ladder", engines, FAST, openings=list(BUILTIN_OPENINGS), max_games=4), resume=False)
        await run_tournament(settings, store)
        lost = store.games()[3]
        with store.transaction():
            store.conn.execute("DELETE FROM games WHERE slot = 3")  # as if killed while slot 3 was being played
    with Store(db) as store:
        settings = prepare_store(store, TournamentSettings("ladder", engines, FAST, openings=list(BUILTIN_OPENINGS), max_games=0), resume=False)
        summary = await run_tournament(settings, store)
        assert summary.games_played == 1
        replayed = store.games()[3]
    assert (replayed.slot, replayed.black, replayed.white, replayed.opening) == (3, lost.black, lost.white, lost.opening)


async def test_gauntlet_against_every_kind_of_misbehaviour(tmp_path: Path) -> None:
    """Each misbehaving brain loses both its games for the right recorded reason; the gauntlet goes on."""
    from protocol.rules import RENJU
    from tournament.play.openings import EMPTY_OPENING

    opponents = {
        "crash-start": (["--mode", "crash-start"], {Ending.START_FAILED}),
        "no-start": (["--mode", "no-start"], {Ending.START_FAILED}),
        "crash": (["--mode", "crash", "--at", "2"], {Ending.CRASH}),
        "exit-idle": (["--mode", "exit-idle", "--at", "2"], {Ending.CRASH}),
        "hang": (["--mode", "hang", "--at", "2"], {Ending.TIME_TURN}),
        "late": (["--mode", "slow", "--at", "1", "--sleep", "2.2"], {Ending.TIME_TURN}),
        "garbage": (["--mode", "garbage", "--at", "1"], {Ending.BAD_REPLY}),
        "occupied": (["--mode", "occupied", "--at", "2"], {Ending.OCCUPIED}),
        "offboard": (["--mode", "offboard", "--at", "1"], {Ending.OFF_BOARD}),
        # as black it makes a double three on its fifth move; as white it just loses to the champion's five
        "foul": (["--mode", "script", "--moves", "5,7 6,7 7,5 7,6 7,7"], {Ending.FOUL_DOUBLE_THREE, Ending.FIVE}),
    }
    engines = [fake_spec("champion", "--row", "0")] + [fake_spec(name, "--row", "9", *args) for name, (args, _) in opponents.items()]
    tc = TimeControl(turn_ms=500, tolerance_ms=1000, late_grace_ms=200)
    # 10 s to answer START: a fake brain is a Python process, and beside the suite's other worker (brains loading
    # or compiling their kernels) one took more than 2 s to start, and once more than 5 s, and lost as
    # start-failed instead of by its own misbehaviour (the no-start brain's two games wait it out)
    config = GameConfig(rules=RENJU, time=tc, start_timeout=10.0)
    settings = TournamentSettings("gauntlet", engines, config, pairs=1, openings=[EMPTY_OPENING], concurrency=2)
    with Store(tmp_path / "g.sqlite") as store:
        settings = prepare_store(store, settings, resume=False)
        summary = await run_tournament(settings, store)
        games = store.games()
    assert summary.games_played == 20 and sorted(g.slot for g in games) == list(range(20))
    for name, (_, endings) in opponents.items():
        mine = [g for g in games if name in (g.black, g.white)]
        assert len(mine) == 2
        assert all(g.winner == "champion" for g in mine), [(g.black, g.white, g.ending, g.detail) for g in mine]
        assert {g.ending for g in mine} == endings, (name, [(g.black, g.white, g.ending, g.detail, g.moves) for g in mine])
