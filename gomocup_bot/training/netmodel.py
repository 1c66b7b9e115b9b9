"""The network evaluation as a PyTorch module: the trainer's side of `neteval` (needs the ``[train]`` extra).

The codebook is not a free table of 59,049 rows: a small mapping network turns each window
(eight cells, four each side, one-hot: empty, own, opponent or wall) into its feature vector, and the codebook is
that network's output for every window, averaged with the window read backwards (so a line means
the same in both directions). One codebook serves all four lines. With both, the net is invariant
under the board's eight symmetries, and a window the data never shows still gets the value its
neighbours in pattern space suggest. After training the codebook is evaluated once, rounded to
the fixed point the kernels use, and written out (`export`); training already rounds it on the
forward pass (straight-through), so the exported net is the one that was trained.

The value head also reads the tables' static value (`core.evaltables`, through a learned weight
that starts at 1): the net learns the correction to the tables, which hold the single-square
patterns well already. Everything else mirrors `neteval.state` / `neteval.reference`: the four rows summed, clipped to
[0, 1], the empty squares pooled less the far-square constant and the empty board's pool, the
value head on the pool and the threat mask, a linear policy over each square's clipped features.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from gomocup_bot.neteval.reference import DIRECTIONS, OFFSETS
from gomocup_bot.neteval.weights import MASK_BITS, N_WINDOWS, WINDOW_HALF, NetWeights, RuleNet

CELLS = 2 * WINDOW_HALF  # cells of a window

SIZE = 15  # the board of a position when none is given (the records' usual size)
PAD = 5
ACT_SCALE = 256
POOL_NORM = 16.0
EVAL_SCALE = 250.0
CB_LIMIT = 31.0  # |codebook| at ACT_SCALE stays within the file's limit (weights.CODEBOOK_LIMIT: four rows sum within int16)


def _all_windows() -> tuple[torch.Tensor, torch.Tensor]:
    """(one-hot [N_WINDOWS, 3 · CELLS] of every window, the index of each window read backwards)."""
    idx = np.arange(N_WINDOWS)
    digits = np.stack([(idx // 3 ** j) % 3 for j in range(CELLS)], axis=1)  # digit j = cell OFFSETS[j]
    onehot = np.zeros((N_WINDOWS, 3 * CELLS), dtype=np.float32)
    for j in range(CELLS):
        onehot[np.arange(N_WINDOWS), 3 * j + digits[:, j]] = 1.0
    rev = (digits[:, ::-1] * (3 ** np.arange(CELLS))).sum(axis=1)
    return torch.from_numpy(onehot), torch.from_numpy(rev.astype(np.int64))


def _window_index(size: int = SIZE) -> torch.Tensor:
    """int64[4, size², CELLS]: for each line and square, the padded-board index of each window cell."""
    stride = size + 2 * PAD
    out = np.zeros((4, size * size, CELLS), dtype=np.int64)
    for d, (dx, dy) in enumerate(DIRECTIONS):
        for y in range(size):
            for x in range(size):
                for j, off in enumerate(OFFSETS):
                    out[d, y * size + x, j] = (y + PAD + off * dy) * stride + (x + PAD + off * dx)
    return torch.from_numpy(out)


class LineNet(nn.Module):
    def __init__(self, feature: int = 32, hidden: int = 32, mapping: int = 64, codebooks: int = 1) -> None:
        super().__init__()
        self.feature, self.hidden, self.codebooks = feature, hidden, codebooks
        self.maps = nn.ModuleList(nn.Sequential(nn.Linear(3 * CELLS, mapping), nn.ReLU(), nn.Linear(mapping, mapping), nn.ReLU(),
                                                nn.Linear(mapping, feature)) for _ in range(codebooks))
        self.w1 = nn.Parameter(torch.randn(codebooks, hidden, feature + MASK_BITS) * 0.2)
        self.b1 = nn.Parameter(torch.zeros(codebooks, hidden))
        self.w2 = nn.Parameter(torch.randn(codebooks, hidden) * 0.2)
        self.b2 = nn.Parameter(torch.zeros(codebooks))
        self.wp = nn.Parameter(torch.randn(codebooks, feature) * 0.1)
        self.bp = nn.Parameter(torch.zeros(codebooks))
        self.tw = nn.Parameter(torch.ones(codebooks))  # the tables' value passes through at first
        # a free table added to the mapping network's codebook: zero and frozen unless a warm start
        # from a weights file sets it to what the fitted mapping network misses (`take_net`); the
        # trainer holds it there unless told otherwise (train-net --freeze)
        self.residual = nn.Parameter(torch.zeros(codebooks, N_WINDOWS, feature), requires_grad=False)
        onehot, rev = _all_windows()
        self.register_buffer("onehot", onehot, persistent=False)
        self.register_buffer("rev", rev, persistent=False)
        self.register_buffer("pow3", 3 ** torch.arange(CELLS), persistent=False)
        self._windex: dict[int, torch.Tensor] = {}  # the window cells' indices, per board side

    def codebook(self) -> torch.Tensor:
        """[codebooks, N_WINDOWS, F] in units of 1.0, rounded to the kernels' fixed point on the
        forward pass (the gradient passes straight through the rounding)."""
        out = []
        for c, m in enumerate(self.maps):
            raw = m(self.onehot) + self.residual[c]
            sym = 0.5 * (raw + raw[self.rev])
            sym = torch.clamp(sym, -CB_LIMIT, CB_LIMIT)
            q = torch.round(sym * ACT_SCALE) / ACT_SCALE
            out.append(sym + (q - sym).detach())
        return torch.stack(out)

    def windex(self, size: int) -> torch.Tensor:
        """The padded-board index of every window cell on a ``size`` board (built once a size)."""
        if size not in self._windex:
            self._windex[size] = _window_index(size).to(self.pow3.device)
        return self._windex[size]

    def keys(self, cells: torch.Tensor, size: int = SIZE) -> torch.Tensor:
        """int64[B, 4, size²]: window numbers from the mover's cells of a size × size board
        (walls are digit 2)."""
        b = cells.shape[0]
        padded = torch.full((b, size + 2 * PAD, size + 2 * PAD), 2, dtype=torch.int64, device=cells.device)
        padded[:, PAD:PAD + size, PAD:PAD + size] = cells.reshape(b, size, size).long()
        flat = padded.view(b, -1)
        digits = flat[:, self.windex(size)]  # [B, 4, size², CELLS]
        return (digits * self.pow3).sum(-1)

    def forward(self, cells: torch.Tensor, colour: torch.Tensor, mask: torch.Tensor, tables: torch.Tensor,
                size: int = SIZE):
        """(value logit [B], policy logits [B, size²] with occupied squares at -inf) of positions
        on a ``size`` × ``size`` board (``cells`` [B, size²], row-major); ``tables``: the tables'
        static value of each position (evaluation units)."""
        cb = self.codebook()  # [C, W, F]
        c = (colour.long() - 1).clamp(max=self.codebooks - 1)  # black 0, white 1 (or 0 with one codebook)
        keys = self.keys(cells, size) + (c * N_WINDOWS)[:, None, None]  # rows of the stacked codebooks
        b = cells.shape[0]
        # the four rows of a square summed by one fused gather (its backward is a scatter of [B·225, F],
        # not of [B, 4, 225, F])
        acc = nn.functional.embedding_bag(keys.permute(0, 2, 1).reshape(b * size * size, 4),
                                          cb.reshape(-1, self.feature), mode="sum").view(b, size * size, self.feature)
        act = torch.clamp(acc, 0.0, 1.0)
        act0 = torch.clamp(4 * cb[:, 0], 0.0, 1.0)  # [C, F]
        empty = (cells == 0).float()
        pool = ((act - act0[c][:, None, :]) * empty[..., None]).sum(1)
        base = self.empty_pool(cb, act0, size)[c]
        x = (pool - base) / POOL_NORM
        bits = ((mask.long()[:, None] >> torch.arange(MASK_BITS, device=mask.device)) & 1).float()
        inp = torch.cat([x, bits], dim=1)
        h = torch.relu(torch.einsum("bhi,bi->bh", self.w1[c], inp) + self.b1[c])
        value = (h * self.w2[c]).sum(1) + self.b2[c] + self.tw[c] * tables.float() / EVAL_SCALE
        pol = (act * self.wp[c][:, None, :]).sum(-1) + self.bp[c][:, None]
        pol = pol.masked_fill(empty == 0, float("-inf"))
        return value, pol

    def empty_pool(self, cb: torch.Tensor, act0: torch.Tensor, size: int = SIZE) -> torch.Tensor:
        """[C, F]: the pool of the empty board of this size (its walls' share), per codebook."""
        keys = self.keys(torch.zeros(1, size * size, dtype=torch.int64, device=cb.device), size)[0]  # [4, size²]
        acc = cb[:, keys].sum(1)  # [C, 225, F]
        return (torch.clamp(acc, 0.0, 1.0) - act0[:, None, :]).sum(1)

    def take_net(self, net: RuleNet, iters: int = 1000, seed: int = 1) -> float:
        """Start from a shipped net (a weights file's rule, no checkpoint needed): its heads are
        copied and the mapping network is fitted to its codebook (least squares over every window,
        L-BFGS: on the shipped freestyle net it left a mean error of 6/256 of a feature after 1,000
        iterations where Adam left 10/256 after 3,000). What it misses goes to the residual table,
        so the start is the file's net: the fit's errors, up to 71/256 on the shipped net, added up
        over the pooled squares and started the value far rougher than the file's (docs/eval.md).
        A model wider than the file (``feature`` above its F) keeps the file's features first and
        starts the others from the mapping network as it comes, weighted zero in both heads.
        Returns the largest codebook error of the fit alone, in the kernels' fixed-point units (1/256)."""
        cbsel = np.asarray(net.cbsel)
        # each of this model's codebooks starts from the file's codebook of that index, or from its
        # only one (a two-codebook renju model from a one-codebook freestyle net)
        sources = [min(c, int(cbsel.max())) for c in range(self.codebooks)]
        views = [int(np.flatnonzero(cbsel == c)[0]) for c in sources]
        f0 = int(net.codebook.shape[-1])  # a wider model keeps the file's features first
        with torch.no_grad():
            for name in ("w1", "b1", "w2", "b2", "wp", "bp", "tw"):
                src = np.stack([np.asarray(getattr(net, name), dtype=np.float32)[v] for v in views])
                if name == "w1" and f0 < self.feature:  # the new features' inputs start at zero weight
                    src = np.concatenate([src[..., :f0], np.zeros(src.shape[:-1] + (self.feature - f0,), np.float32),
                                          src[..., f0:]], axis=-1)
                elif name == "wp" and f0 < self.feature:
                    src = np.concatenate([src, np.zeros((src.shape[0], self.feature - f0), np.float32)], axis=-1)
                getattr(self, name).copy_(torch.from_numpy(src))
        target = torch.from_numpy(np.asarray(net.codebook, dtype=np.float32) / ACT_SCALE)
        torch.manual_seed(seed)
        for c, m in enumerate(self.maps):
            opt = torch.optim.LBFGS(m.parameters(), lr=1, max_iter=iters, history_size=50,
                                    line_search_fn="strong_wolfe", tolerance_grad=1e-12, tolerance_change=1e-15)

            def closure(m=m, c=c):
                opt.zero_grad()
                raw = m(self.onehot)[:, :f0]
                loss = ((0.5 * (raw + raw[self.rev]) - target[sources[c]]) ** 2).mean()
                loss.backward()
                return loss

            opt.step(closure)
        with torch.no_grad():
            self.residual.zero_()
            worst = float((self.codebook()[..., :f0] - target[sources]).abs().max()) * ACT_SCALE
            raw = torch.stack([m(self.onehot) for m in self.maps])[..., :f0]
            missed = target[sources] - 0.5 * (raw + raw[:, self.rev])
            # the new features (a wider model) keep the mapping network's own rows: their weights in
            # the heads are zero, so the start is still the file's net, and as the rows are not zero
            # those weights have a gradient from the first step
            self.residual[..., :f0] = 0.5 * (missed + missed[:, self.rev])
        self.free_residual()
        return worst

    def free_residual(self) -> None:
        """Let the residual table train when it holds something: after a warm start from a weights
        file (what the mapping network missed, so the start is the file's net exactly) and after
        loading a checkpoint of such a run. `train-net --freeze residual` (its default) then holds
        it again."""
        self.residual.requires_grad_(bool(self.residual.detach().abs().max() > 0))

    @torch.no_grad()
    def export(self) -> RuleNet:
        """This net as the kernels' arrays (per side to move; one codebook serves both colours
        unless the net has two)."""
        cb = self.codebook().cpu().numpy()
        views = [0, self.codebooks - 1]

        def per_view(t: torch.Tensor) -> np.ndarray:
            a = t.detach().cpu().numpy().astype(np.float32)
            return np.stack([a[v] for v in views])

        return RuleNet(cbsel=np.array(views, dtype=np.int8),
                       codebook=np.clip(np.round(cb * ACT_SCALE), -CB_LIMIT * ACT_SCALE, CB_LIMIT * ACT_SCALE).astype(np.int16),
                       w1=per_view(self.w1), b1=per_view(self.b1), w2=per_view(self.w2), b2=per_view(self.b2),
                       wp=per_view(self.wp), bp=per_view(self.bp), tw=per_view(self.tw))


def new_weights(feature: int, hidden: int) -> NetWeights:
    return NetWeights(feature, hidden, ACT_SCALE, POOL_NORM, EVAL_SCALE)
