"""Does a richer net lower the held-out value loss? Spatial mixing or a wider value head,
against the same net trained on for the same steps.

Why: at equal depth the net is worth about +60 Elo over the tables (docs/eval.md); before any
kernel is written for a richer net, the trainer tells whether the added part lowers the
held-out loss at all. Every variant starts from one checkpoint of `gomocup-bot train-net`
(``OUT.ckpt``, F = 32, hidden 32) and its positions cache: ``line`` is that net trained on (the
control), ``mix`` adds a depthwise 3 × 3 convolution of the clipped features before the pool
and the policy (identity at the start), ``head`` widens the value head to ``--hidden`` units
(the new units' output weights zero at the start), so each begins as the checkpoint's net.
Prints the held-out figures (`nettrain.evaluate_rows`) at the start and after every epoch.
Needs PyTorch (the ``[train]`` extra). One thread a run: run two side by side on two cores.

    PYTHONPATH=. .venv/bin/python benchmarks/net_capacity.py --cache POSITIONS.npz \
        --init OUT.ckpt --model line|mix|head [--hidden 128] [--epochs 2] [--save CKPT]
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import argparse  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402
import numpy as np
import torch
from torch import nn
from gomocup_bot.training.netmodel import LineNet, N_WINDOWS, MASK_BITS, POOL_NORM, EVAL_SCALE, SIZE
from gomocup_bot.training.netdata import NetRows
from gomocup_bot.training.nettrain import labels, evaluate_rows, _inputs


class MixNet(LineNet):
    """`LineNet` with the clipped features of each square mixed with its eight neighbours'
    (depthwise, per feature) and clipped again before the pool and the policy head."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        dw = torch.zeros(self.feature, 1, 3, 3)
        dw[:, 0, 1, 1] = 1.0
        self.dw = nn.Parameter(dw)
        self.db = nn.Parameter(torch.zeros(self.feature))

    def _mix(self, act, empty, size):
        b = act.shape[0]
        a = (act * empty[..., None]).permute(0, 2, 1).reshape(b, self.feature, size, size)
        z = nn.functional.conv2d(a, self.dw, self.db, padding=1, groups=self.feature)
        return torch.clamp(z, 0.0, 1.0).reshape(b, self.feature, size * size).permute(0, 2, 1)

    def forward(self, cells, colour, mask, tables, size=SIZE):
        cb = self.codebook()
        c = (colour.long() - 1).clamp(max=self.codebooks - 1)
        keys = self.keys(cells, size) + (c * N_WINDOWS)[:, None, None]
        b = cells.shape[0]
        acc = nn.functional.embedding_bag(keys.permute(0, 2, 1).reshape(b * size * size, 4),
                                          cb.reshape(-1, self.feature), mode="sum").view(b, size * size, self.feature)
        act = torch.clamp(acc, 0.0, 1.0)
        act0 = torch.clamp(4 * cb[0, 0], 0.0, 1.0)  # [F]
        empty = (cells == 0).float()
        m = self._mix(act, empty, size)
        m0 = torch.clamp(act0 * self.dw[:, 0].sum((1, 2)) + self.db, 0.0, 1.0)
        pool = ((m - m0) * empty[..., None]).sum(1)
        # the empty board's pool of this size
        e_cells = torch.zeros(1, size * size, dtype=torch.int64)
        ek = self.keys(e_cells, size)[0]
        eact = torch.clamp(cb[0][ek].sum(0), 0.0, 1.0)[None]
        em = self._mix(eact, torch.ones(1, size * size), size)
        base = (em[0] - m0).sum(0)
        x = (pool - base) / POOL_NORM
        bits = ((mask.long()[:, None] >> torch.arange(MASK_BITS)) & 1).float()
        inp = torch.cat([x, bits], dim=1)
        h = torch.relu(torch.einsum("bhi,bi->bh", self.w1[c], inp) + self.b1[c])
        value = (h * self.w2[c]).sum(1) + self.b2[c] + self.tw[c] * tables.float() / EVAL_SCALE
        pol = (m * self.wp[c][:, None, :]).sum(-1) + self.bp[c][:, None]
        pol = pol.masked_fill(empty == 0, float("-inf"))
        return value, pol


ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--cache", required=True)
ap.add_argument("--init", required=True)
ap.add_argument("--model", choices=("line", "mix", "head"), required=True)
ap.add_argument("--hidden", type=int, default=32)
ap.add_argument("--epochs", type=float, default=2)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--batch", type=int, default=2048)
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--mapping", type=int, default=128, help="the checkpoint's mapping width")
ap.add_argument("--save", help="write the trained model here (torch state dict)")
args = ap.parse_args()
torch.manual_seed(1)
torch.set_num_threads(args.threads)
rows = NetRows.load(args.cache)
train, test = rows.select(~rows.held), rows.select(rows.held)
y_all = labels(train, 0.5)
model = (MixNet if args.model == "mix" else LineNet)(32, args.hidden, args.mapping, 1)
state = torch.load(args.init, weights_only=False)
sd = state["model"]
if args.hidden != 32:  # the wider head starts as the narrow one: new units' output weights zero
    own = model.state_dict()
    for k in ("w1", "b1", "w2"):
        t = own[k].clone()
        if k == "w2":
            t[:] = 0
        t[:, :32] = sd[k]
        sd[k] = t
print(model.load_state_dict(sd, strict=False), flush=True)
print("start:", evaluate_rows(model, test, 0.5), flush=True)
opt = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=1e-5)
spe = len(train) // args.batch
total = int(spe * args.epochs)
t0 = time.time()
for step in range(total):
    epoch = step // spe
    perm = np.random.default_rng(7000 + epoch).permutation(len(train))
    i = step % spe
    sel = np.sort(perm[i * args.batch:(i + 1) * args.batch])
    for g in opt.param_groups:
        g["lr"] = args.lr * 0.5 * (1 + math.cos(math.pi * step / total))
    value, pol = model(*_inputs(train, sel, 15), size=15)
    vm = torch.from_numpy(train.value_row[sel])
    y = torch.from_numpy(y_all[sel])
    lv = nn.functional.binary_cross_entropy_with_logits(value[vm], y[vm])
    mv = torch.from_numpy(train.move[sel].astype(np.int64))
    pm = mv >= 0
    lp = nn.functional.cross_entropy(pol[pm], mv[pm])
    loss = lv + 0.3 * lp
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 100 == 0:
        print(f"step {step}/{total} value {float(lv.detach()):.4f} policy {float(lp.detach()):.3f} {(step+1)/(time.time()-t0):.2f} steps/s", flush=True)
    if (step + 1) % spe == 0 or step + 1 == total:
        print(f"held out at step {step+1}:", evaluate_rows(model, test, 0.5), flush=True)
if args.save:
    torch.save({"model": model.state_dict()}, args.save)
