"""Reading engines' thinking lines into Info: our brain's summaries, Rapfi's and Yixin's forms, plain
texts, and the merging of one search's lines. (The same reader on live engines: test_api_engine.py.)"""
from __future__ import annotations

import pytest

from gomocup_bot.search.adapter import summary_text
from gomocup_bot.search.engines_common import score_text
from tournament.api.info import Info, InfoReader, parse_text

H8, I9, J10 = (7, 7), (8, 8), (9, 9)


class _View:
    """Enough of the search's BoardView for `summary_text`: 15 columns, row-major points."""

    @staticmethod
    def xy(p: int) -> tuple[int, int]:
        return p % 15, p // 15


def test_our_brains_summary_as_the_search_writes_it() -> None:
    text = summary_text("pvs", _View, depth=11, nodes=77513, winrate=0.47, pv=[7 * 15 + 7, 8 * 15 + 8, 9 * 15 + 9],
                        seconds=0.287, extra="sel 13 threads 1 score -122 stop time")
    fields = parse_text(text)
    assert fields == {"depth": 11, "nodes": 77513, "speed": 270080, "winrate": 0.47, "time_ms": 287,
                      "pv": (H8, I9, J10), "seldepth": 13, "eval": -122, "mate": None}
    mcts = summary_text("mcts", _View, depth=5, nodes=8780, winrate=None, pv=[], seconds=0.3, extra="minimax 0 stop settled")
    assert parse_text(mcts) == {"depth": 5, "nodes": 8780, "speed": 29266, "time_ms": 300, "pv": ()}
    assert parse_text("tactics vct in 1 ms (11 nodes)") == {"time_ms": 1, "nodes": 11, "winrate": 1.0}
    assert parse_text("tactics lost in 0 ms (0 nodes)")["winrate"] == 0.0
    assert "winrate" not in parse_text("tactics block in 2 ms (5 nodes)")
    assert parse_text("tactics vct in 3 ms (40 nodes) pv 7,7 8,8 9,9") == {
        "time_ms": 3, "nodes": 40, "winrate": 1.0, "pv": (H8, I9, J10)}
    mate = summary_text("pvs", _View, depth=9, nodes=1000, winrate=1.0, pv=[7 * 15 + 7], seconds=0.1,
                        extra=f"sel 13 threads 1 score {score_text(29979)} stop time")
    assert parse_text(mate)["mate"] == 21 and parse_text(mate)["eval"] is None
    assert score_text(-29990) == "-M10" and score_text(2500) == "2500"  # a big eval is no mate


@pytest.mark.parametrize(
    "text, expected",
    [
        # Rapfi, normal message mode
        ("Depth 12-20 | Eval 35 | Time 123ms | H8 I9 J10",
         {"depth": 12, "seldepth": 20, "eval": 35, "time_ms": 123, "pv": (H8, I9, J10)}),
        ("Speed 1234K | Depth 12-20 | Eval +M5 | Node 3M | Time 12s",
         {"speed": 1_234_000, "depth": 12, "seldepth": 20, "mate": 5, "nodes": 3_000_000, "time_ms": 12_000}),
        ("(2) -10 | 7-9 | H8 I9", {"multipv": 2, "eval": -10, "depth": 7, "seldepth": 9, "pv": (H8, I9)}),
        ("(1) 35 (W 55.00, D 10.00, S 0.12) | V 1234K | SD 12 | H8 I9",
         {"multipv": 1, "eval": 35, "winrate": 0.55, "nodes": 1_234_000, "seldepth": 12, "pv": (H8, I9)}),
        ("Bestline H8I9J10", {"pv": (H8, I9, J10)}),
        # Rapfi, UCI-like message mode (alpha-beta and MCTS)
        ("depth 12-20 multipv 2 ev -M7 n 3M n/ms 1234 tm 1234 pv H8 I9",
         {"depth": 12, "seldepth": 20, "multipv": 2, "mate": -7, "nodes": 3_000_000, "speed": 1_234_000, "time_ms": 1234,
          "pv": (H8, I9)}),
        ("multipv 1 ev 35 w 55.00 d 10.00 stdev 0.12 v 1234K seldepth 12 n 3M n/ms 12 tm 50 prior 0.12 pv H8",
         {"multipv": 1, "eval": 35, "winrate": 0.55, "nodes": 3_000_000, "seldepth": 12, "speed": 12_000, "time_ms": 50,
          "pv": (H8,)}),
        # PentaZen
        ("dep 11-19 ev -254 nd 412k tm 51 sp 8078", {"depth": 11, "seldepth": 19, "eval": -254, "nodes": 412_000,
                                                      "time_ms": 51, "speed": 8_078_000}),
        ("dep 9-9 ev +v5 nd 1234 tm 3 sp 411", {"depth": 9, "seldepth": 9, "mate": 5, "nodes": 1234, "time_ms": 3,
                                                "speed": 411_000}),
        ("dep 7-12 ev -v8 nd 2m tm 40 sp 50000", {"depth": 7, "seldepth": 12, "mate": -8, "nodes": 2_000_000,
                                                  "time_ms": 40, "speed": 50_000_000}),
        # Yixin and plain texts
        ("REALTIME VAL 35", {"eval": 35}),
        ("REALTIME PV 7,7 8,8", {"pv": (H8, I9)}),
        ("depth 12 eval 35", {"depth": 12, "eval": 35}),
        ("DEPTH 8-21 VAL 48 NODE 250892 SPEED 1254K TIME 200 MS BESTLINE [H8] [I9]",
         {"depth": 8, "seldepth": 21, "eval": 48, "nodes": 250892, "speed": 1_254_000, "time_ms": 200, "pv": (H8, I9)}),
        ("score: 0.75 winrate: 0.6 pv: 7,7", {"eval": 0.75, "winrate": 0.6, "pv": (H8,)}),
        # nothing to read
        ("OptiTime 123ms | MaxTime 456ms", {}),
        ("I will win in 3 moves", {}),
        ("[Pondering] Depth 3-4 | Eval 1 | Time 1ms | H8", {}),
        ("winrate -", {}),
    ],
)
def test_dialects(text: str, expected: dict) -> None:
    fields = {k: v for k, v in parse_text(text).items() if v is not None}
    assert fields == expected


def test_a_pv_stops_at_the_board_edge_and_at_words() -> None:
    assert parse_text("pv 7,7 8,8 sel 3", 15, 15)["pv"] == (H8, I9)
    assert parse_text("pv 14,14 15,15 16,16", 15, 15)["pv"] == ((14, 14),)
    assert parse_text("pv 14,14 15,15", 20, 20)["pv"] == ((14, 14), (15, 15))
    assert parse_text("pv -")["pv"] == ()


def test_rapfi_detail_blocks_count_at_pv_done_and_lines_merge() -> None:
    reader = InfoReader()
    block = ["INFO PV 0", "INFO NUMPV 2", "INFO DEPTH 12", "INFO SELDEPTH 20", "INFO NODES 100", "INFO TOTALNODES 5000",
             "INFO TOTALTIME 123", "INFO SPEED 40000", "INFO EVAL -M7", "INFO WINRATE 0.125", "INFO BESTLINE 7,7 8,8 9,9"]
    assert all(reader.feed_text(line) is None for line in block)
    done = reader.feed_text("INFO PV DONE")
    assert done == Info(depth=12, seldepth=20, mate=-7, winrate=0.125, nodes=5000, speed=40000, time_ms=123,
                        pv=(H8, I9, J10), multipv=1, raw=done.raw)
    second = [line.replace("PV 0", "PV 1").replace("-M7", "-300").replace("7,7 8,8", "6,6 5,5") for line in block]
    for line in second + ["INFO PV DONE"]:
        reader.feed_text(line)
    assert [i.multipv for i in reader.all()] == [1, 2] and reader.all()[1].eval == -300
    assert reader.info.pv[0] == H8
    # the best move changes: the PV follows; a later plain eval replaces the mate score
    update = reader.feed_text("MESSAGE REALTIME BEST 6,6")
    assert update is not None and update.pv == ((6, 6),) and update.depth == 12
    assert reader.feed_text("MESSAGE REALTIME BEST 6,6") is None  # said nothing new
    assert reader.feed_text("MESSAGE REALTIME POS 1,1") is None and reader.feed_text("DEBUG depth 99") is None
    later = reader.feed_text("MESSAGE depth 13 eval 40")
    assert later is not None and (later.depth, later.eval, later.mate) == (13, 40, None)
    final = reader.finish((6, 6))
    assert final.move == (6, 6) and final.best == (6, 6)
    assert final.raw[0] == "INFO PV 0" and final.raw[-1] == "MESSAGE depth 13 eval 40" and "DEBUG depth 99" not in final.raw
    assert final.as_dict() == {"depth": 13, "seldepth": 20, "eval": 40, "winrate": 0.125, "nodes": 5000, "speed": 40000,
                               "time_ms": 123, "multipv": 1, "pv": [[6, 6]], "move": [6, 6]}


def test_raw_lines_are_bounded() -> None:
    reader = InfoReader()
    for i in range(1000):
        reader.feed_text(f"MESSAGE thinking {i}")
    assert len(reader.info.raw) == 200 and reader.info.raw[-1] == "MESSAGE thinking 999"
    assert reader.info == Info(raw=reader.info.raw)
