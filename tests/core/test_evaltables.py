"""The trained evaluation's tables: the board's incremental sums against a from-scratch sum after
random make/unmake under every rule, the search's evaluation against the formula computed in plain
Python from the canonical tables, the weights file round trip, and the refusals of bad files (the
library's errors and the brain's ERROR to START, as a real process)."""
from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pytest

from gomocup_bot.core import evalfile
from gomocup_bot.core.board import new_board, play, rebuild_layer, take, to_pos
from gomocup_bot.core.classes import C_DOUBLE3, C_THREE, C_THREEP, N_COMBOS
from gomocup_bot.core.constants import (
    EMPTY,
    M_HEIGHT,
    M_PAD,
    M_STRIDE,
    M_WIDTH,
    RULE_CARO,
    RULE_CARO_EXACT,
    RULE_EXACT,
    RULE_FREESTYLE,
    RULE_RENJU,
)
from gomocup_bot.core.evaltables import (
    N_CANON,
    N_THREAT,
    TABLE_NAMES,
    EvalTable,
    EvalWeights,
    EvalWeightsError,
    canonical_index,
    dumps,
    loads,
    pack,
    threat_mask,
    unpack,
)

RULES = (RULE_FREESTYLE, RULE_EXACT, RULE_RENJU, RULE_CARO, RULE_CARO_EXACT)


def random_weights(seed: int) -> EvalWeights:
    rng = np.random.default_rng(seed)
    tables = {n: EvalTable(rng.integers(-900, 900, N_CANON), rng.integers(-900, 900, N_CANON),
                           rng.integers(-500, 500, N_THREAT), int(rng.integers(-50, 50))) for n in TABLE_NAMES}
    return EvalWeights(tables, 250.0, {"test": seed})


def with_random_values(board, seed: int):
    """The board with its own random packed table (the rule's shared table stays untouched)."""
    rng = np.random.default_rng(seed)
    vtab = pack(rng.integers(-700, 700, (2, N_COMBOS)), rng.integers(-700, 700, (2, N_COMBOS)))
    b = board._replace(vtab=vtab, vsum=np.zeros(2, dtype=np.int64))
    rebuild_layer(b)
    return b


def scratch_sums(b) -> list[int]:
    """Σ over the empty on-board squares of the packed value of each colour's combo."""
    out = [0, 0]
    pad, stride = int(b.meta[M_PAD]), int(b.meta[M_STRIDE])
    for y in range(int(b.meta[M_HEIGHT])):
        for x in range(int(b.meta[M_WIDTH])):
            q = (y + pad) * stride + x + pad
            if b.cells[q] == EMPTY:
                for side in range(2):
                    out[side] += int(b.vtab[side, b.combo[side, q]])
    return out


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("k", [5, 6])
def test_incremental_sums_match_scratch(rule: int, k: int) -> None:
    rnd = random.Random(rule * 10 + k)
    size = 11 if k == 5 else 9
    board = with_random_values(new_board(size, size, k, rule), rule + k)
    before: list[list[int]] = []  # the sums before each move on the stack
    for game in range(3):
        played = 0
        for step in range(60):
            empties = [(x, y) for x in range(size) for y in range(size)
                       if board.cells[to_pos(board, x, y)] == EMPTY]
            if played and (not empties or rnd.random() < 0.3):
                take(board)
                played -= 1
                before.pop()
            else:
                x, y = rnd.choice(empties)
                before.append(scratch_sums(board))
                play(board, to_pos(board, x, y), 1 + played % 2)
                played += 1
                if k == 5:  # table boards keep the previous position's sums for the evaluation
                    assert [int(v) for v in board.vhist[played - 1]] == before[-1], (game, step)
            if k > 5:
                from gomocup_bot.core.board import sync_layer

                sync_layer(board)
            assert [int(v) for v in board.vsum] == scratch_sums(board), (game, step)
        while played:
            take(board)
            played -= 1
            before.pop()
        assert [int(v) for v in board.vsum] == scratch_sums(board)


def test_pack_round_trip() -> None:
    rng = np.random.default_rng(3)
    hi, lo = rng.integers(-10**6, 10**6, 500), rng.integers(-10**6, 10**6, 500)
    total = int(pack(hi, lo).sum())
    assert unpack(total) == (int(hi.sum()), int(lo.sum()))


@pytest.mark.parametrize("rule", [RULE_FREESTYLE, RULE_RENJU])
def test_search_evaluation_matches_the_formula(rule: int, tmp_path, monkeypatch) -> None:
    """`search.pvs.evaluate` under random weights equals Σ V_self − Σ V_opp + threat + tempo
    computed here from the canonical tables (the packing, the threat mask and the colour's
    table choice all checked at once)."""
    from gomocup_bot.core import evaltables
    from gomocup_bot.search import pvs as K

    weights = random_weights(11)
    path = tmp_path / "w.gbw"
    path.write_bytes(dumps(weights))
    monkeypatch.setenv(evalfile.ENV_VAR, str(path))
    evaltables._weights.cache_clear()
    evaltables.runtime_tables.cache_clear()
    try:
        names = evaltables.table_names(rule)
        canon = canonical_index()
        rnd = random.Random(5)
        b = new_board(15, 15, 5, rule)
        work = K.new_work(b, K.new_tt(1 << 12), K.default_params(), np.zeros(1, dtype=np.int32))
        avg_params = K.default_params()
        avg_params[K.P_EVAL_AVG] = 1
        avg_work = K.new_work(b, K.new_tt(1 << 12), avg_params, np.zeros(1, dtype=np.int32))
        latent_params = K.default_params()
        latent_params[K.P_LATENT] = 16
        latent_work = K.new_work(b, K.new_tt(1 << 12), latent_params, np.zeros(1, dtype=np.int32))
        canon_sums: list[tuple[int, int]] = []  # per position: (black's pattern sum, white's) from scratch

        def pattern_sum(me: int, op: int) -> int:
            mine, theirs = weights.tables[names[me]], weights.tables[names[op]]
            total = 0
            pad, stride = int(b.meta[M_PAD]), int(b.meta[M_STRIDE])
            for y in range(15):
                for x in range(15):
                    q = (y + pad) * stride + x + pad
                    if b.cells[q] == EMPTY:
                        total += int(mine.v_self[canon[b.combo[me, q]]]) - int(theirs.v_opp[canon[b.combo[op, q]]])
            return total

        def three_makers(colour: int) -> int:
            """The squares whose class (read square by square, not the board's counts) makes an open three."""
            pad, stride = int(b.meta[M_PAD]), int(b.meta[M_STRIDE])
            return sum(1 for y in range(15) for x in range(15)
                       if b.cells[(y + pad) * stride + x + pad] == EMPTY
                       and int(b.cls[colour, (y + pad) * stride + x + pad]) in (C_THREE, C_THREEP, C_DOUBLE3))

        latent_seen = 0  # positions where the latent term was not zero (the check must have bitten)
        clamp = lambda v: max(-(K.WIN_BOUND - 1), min(K.WIN_BOUND - 1, v))  # noqa: E731
        for n in range(40):
            side = 1 + n % 2
            me, op = side - 1, 2 - side
            mine = weights.tables[names[me]]
            extra = mine.tempo + int(mine.threat[threat_mask(b.cnt[me], b.cnt[op])])
            canon_sums.append((pattern_sum(0, 1), pattern_sum(1, 0)))
            now = canon_sums[-1][me]
            assert K.evaluate(b, side, work) == clamp(now + extra), n
            # averaged: the previous position's sums seen by the same side (the empty board has none)
            prev = canon_sums[-2][me] if n else now
            assert K.evaluate(b, side, avg_work) == clamp((now + prev) // 2 + extra), n
            # the latent-threat term: weight x (own three-makers² − the opponent's, each up to 10) / 16
            latent = 16 * (min(10, three_makers(me)) ** 2 - min(10, three_makers(op)) ** 2) // 16
            assert K.evaluate(b, side, latent_work) == clamp(now + extra + latent), n
            latent_seen += latent != 0
            while True:
                x, y = rnd.randrange(3, 12), rnd.randrange(3, 12)
                if b.cells[to_pos(b, x, y)] == EMPTY:
                    break
            play(b, to_pos(b, x, y), side)
        assert latent_seen >= 10
    finally:
        monkeypatch.delenv(evalfile.ENV_VAR)
        evaltables._weights.cache_clear()
        evaltables.runtime_tables.cache_clear()


def test_weights_file_round_trip() -> None:
    w = random_weights(7)
    back = loads(dumps(w))
    assert back.notes == {"test": 7} and back.scale == 250.0
    for name in TABLE_NAMES:
        a, b = w.tables[name], back.tables[name]
        assert np.array_equal(a.v_self, b.v_self) and np.array_equal(a.v_opp, b.v_opp)
        assert np.array_equal(a.threat, b.threat) and a.tempo == b.tempo


def test_bad_files_are_refused(tmp_path) -> None:
    data = dumps(random_weights(1))
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x40
    cases = {
        "checksum": bytes(flipped),
        "bad magic": b"NOTEVAL!" + data[8:],
        "checksum mismatch": data[:-10] + data[-4:],  # truncated
    }
    for needle, blob in cases.items():
        with pytest.raises(EvalWeightsError, match=needle):
            loads(blob, "w")
    with pytest.raises(EvalWeightsError, match="cannot read"):
        evalfile.read_bytes(tmp_path / "absent.gbw")
    assert evalfile.verify() is None  # the package's own file is sound


def test_the_package_weights_load() -> None:
    from gomocup_bot.core.evaltables import load

    w = load()
    assert set(w.tables) == set(TABLE_NAMES)


def _brain_reply(env_path, *lines: str) -> list[str]:
    env = dict(os.environ, **{evalfile.ENV_VAR: str(env_path)})
    proc = subprocess.run([sys.executable, "-m", "gomocup_bot"], input="\n".join(lines) + "\nEND\n",
                          capture_output=True, text=True, timeout=60, env=env)
    return [ln for ln in proc.stdout.splitlines() if not ln.startswith(("MESSAGE", "DEBUG"))]


def test_brain_refuses_corrupt_weights(tmp_path) -> None:
    data = bytearray(dumps(random_weights(2)))
    data[100] ^= 1
    bad = tmp_path / "corrupt.gbw"
    bad.write_bytes(bytes(data))
    replies = _brain_reply(bad, "START 15", "BEGIN")
    assert replies[0].startswith("ERROR") and "corrupt" in replies[0], replies
    assert replies[1].startswith("ERROR"), replies  # and no move: never plays without its weights
    assert len(replies) == 2
    missing = _brain_reply(tmp_path / "none.gbw", "START 15")
    assert missing[0].startswith("ERROR") and "cannot read the evaluation weights" in missing[0]
