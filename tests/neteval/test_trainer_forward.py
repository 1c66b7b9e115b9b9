"""The trainer's PyTorch net and the exported kernels' net are the same function (skipped where
torch is not installed: it is the optional [train] extra)."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gomocup_bot.core.board import new_board, play, to_pos  # noqa: E402
from gomocup_bot.core.constants import RULE_FREESTYLE, RULE_RENJU  # noqa: E402
from gomocup_bot.neteval import reference as R  # noqa: E402
from gomocup_bot.neteval.state import net_logit, net_play, net_policy, new_state  # noqa: E402
from gomocup_bot.training.netmodel import LineNet, new_weights  # noqa: E402


@pytest.mark.parametrize("size", [15, 20])
@pytest.mark.parametrize("codebooks, rule", [(1, RULE_FREESTYLE), (2, RULE_RENJU)])
def test_trainer_forward_equals_the_kernels(codebooks, rule, size):
    torch.manual_seed(3)
    model = LineNet(feature=8, hidden=6, mapping=16, codebooks=codebooks)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.3)
    w = new_weights(8, 6)
    net = model.export()
    w.rules["renju" if codebooks == 2 else "freestyle"] = net
    rng = np.random.default_rng(4)
    for trial in range(5):
        b = new_board(size, size, 5, rule)
        st = new_state(b, w, net)
        cells = np.zeros((size, size), dtype=np.int64)
        side = 1
        for _ in range(int(rng.integers(4, 30))):
            while True:
                x, y = (int(v) for v in rng.integers(size, size=2))
                if cells[y, x] == 0:
                    break
            play(b, to_pos(b, x, y), side)
            net_play(st, b, to_pos(b, x, y), side)
            cells[y, x] = side
            side = 3 - side
        mover = np.where(cells == side, 1, np.where(cells == 0, 0, 2)).reshape(1, size * size)
        mask = int(rng.integers(0, 2048))
        tables = float(rng.integers(-500, 500))
        with torch.no_grad():
            v, pol = model(torch.from_numpy(mover.astype(np.uint8)), torch.tensor([side], dtype=torch.int8),
                           torch.tensor([mask], dtype=torch.int16), torch.tensor([tables], dtype=torch.float32), size=size)
        assert float(net_logit(st, side - 1, mask, tables)) == pytest.approx(float(v[0]), abs=2e-4)
        assert R.logit(w, net, cells, side - 1, mask, tables) == pytest.approx(float(v[0]), abs=2e-4)
        for q in range(size * size):
            if mover[0, q] == 0:
                assert float(net_policy(st, side - 1, to_pos(b, q % size, q // size))) == pytest.approx(float(pol[0, q]), abs=2e-4)
