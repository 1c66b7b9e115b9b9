"""`gomocup-bot train-net`: train the network evaluation on game records and write its weights file.

One rule a run (freestyle, standard or renju). The records become positions once (`--cache`
keeps them as an ``.npz`` for the next run); games are split by hash, a tenth held out. The
value head learns ``λ · result + (1 − λ) · sigmoid(value / 250)`` (the game's result blended
with the generating search's value; match games, which carry no value, their result), the policy
head the move played; the value head also reads the tables' static value of the position (the
net learns their correction), so a net is trained for one set of tables: the shipped ``eval.gbw``
when the positions were extracted (its digest is in the notes). Adam, fixed seeds, a cosine learning-rate schedule; a checkpoint after
every epoch and every ``--checkpoint-every`` steps lets an interrupted run go on where it
stopped (same command). The weights file gets this rule's net (in place of all of that rule's
nets); the other rules' nets are copied from ``--base`` (default: the package's file, if it has
them). With ``--beside`` the base's main net of the rule stays, and the new one is added for the
boards it learned that the main net does not play (a 20 × 20 net beside a 15 × 15 one). With
``--teacher`` another engine's evaluation of the positions (``gomocup-tournament evaluate``'s
output, read by `training.teacher`) takes the searched value's place in the label where it judged
them; ``--teacher-only`` keeps only those positions, for a short run towards the teacher's view.
``--freeze`` holds named parameters at their start: by default the residual table of a warm start
from a weights file (a run on all the freestyle data scored 57.0 % against d96511c with it held,
45.6 % with it trained, in two runs on the same openings the same day; one run's noise is about
± 5 points: docs/eval.md).

Needs PyTorch: ``pip install '.[train]'``. The brain never imports this module.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from gomocup_bot.training import teacher

LABEL_SCALE = 250.0  # evaluation units a logit (the search's scale)


def _import_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        sys.exit("gomocup-bot train-net needs PyTorch: pip install '.[train]'")


def labels(rows, lam: float) -> np.ndarray:
    """The value target of each row: the result blended with the search's value where it has one."""
    y = rows.result.astype(np.float64).copy()
    has = ~np.isnan(rows.score)
    y[has] = lam * rows.result[has] + (1 - lam) / (1 + np.exp(-np.clip(rows.score[has], -8000, 8000) / LABEL_SCALE))
    return y.astype(np.float32)


def bce(p_logit: np.ndarray, y: np.ndarray) -> float:
    """Mean cross-entropy of logits against soft labels."""
    p_logit = np.asarray(p_logit, dtype=np.float64)
    return float(np.mean(np.logaddexp(0, p_logit) - y * p_logit))


def evaluate_rows(model, rows, lam: float, batch: int = 1024) -> dict:
    """Held-out figures: the net's value loss on the blended label and on the result alone, the
    tables' on the same rows, the policy's cross-entropy and top-1 on the policy rows."""
    import torch

    vrows = rows.select(rows.value_row)
    prows = rows.select(rows.move >= 0)
    out: dict = {}
    model.eval()
    with torch.no_grad():
        lg = np.zeros(len(vrows))
        ce, top1, n = 0.0, 0, 0
        for size in rows.sizes():
            vidx = np.flatnonzero(vrows.size == size)
            for i in range(0, len(vidx), batch):
                v, _ = model(*_inputs(vrows, vidx[i:i + batch], size), size=size)
                lg[vidx[i:i + batch]] = v.numpy()
            pidx = np.flatnonzero(prows.size == size)
            for i in range(0, len(pidx), batch):
                _, pol = model(*_inputs(prows, pidx[i:i + batch], size), size=size)
                tgt = torch.from_numpy(prows.move[pidx[i:i + batch]].astype(np.int64))
                ce += float(torch.nn.functional.cross_entropy(pol, tgt, reduction="sum"))
                top1 += int((pol.argmax(1) == tgt).sum())
                n += len(tgt)
    model.train()
    y = labels(vrows, lam)
    tables = vrows.table_eval / LABEL_SCALE
    out.update(value_rows=len(vrows), net_blend=bce(lg, y), tables_blend=bce(tables, y),
               net_result=bce(lg, vrows.result), tables_result=bce(tables, vrows.result),
               policy_rows=n, policy_ce=ce / max(1, n), policy_top1=top1 / max(1, n))
    return out


def _sizes(text: str) -> list[int]:
    """``--sizes``: board sides of 5-32, comma-separated."""
    try:
        out = sorted({int(x) for x in text.split(",")})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of board sides: {text!r}") from None
    if not all(5 <= v <= 32 for v in out):
        raise argparse.ArgumentTypeError(f"board sides are 5-32: {text!r}")
    return out


def _inputs(rows, idx, size: int) -> tuple:
    """The model's inputs for rows ``idx``, all on ``size`` × ``size`` boards."""
    import torch

    return (torch.from_numpy(rows.cells[idx, :size * size]), torch.from_numpy(rows.colour[idx]),
            torch.from_numpy(rows.mask[idx]), torch.from_numpy(rows.table_eval[idx]))


def _data(args, log) -> "object":
    from gomocup_bot.training.netdata import NetRows, rows_of_files

    if args.cache and Path(args.cache).exists():
        log(f"positions from {args.cache}")
        return NetRows.load(args.cache)
    rows = rows_of_files(args.files, args.rule, log=log, sizes=tuple(args.sizes))
    if args.cache:
        rows.save(args.cache)
        log(f"positions saved to {args.cache}")
    return rows


def _taught(rows, args, log) -> tuple[object, dict]:
    """Put the teacher's view in the searched value's place on the value rows it labelled
    (`training.teacher` reads the files and converts its units); with ``--teacher-only`` only
    those rows are kept. Returns the rows and the notes the weights file keeps."""
    from gomocup_bot.training.netdata import game_hash
    from gomocup_bot.training.records import read

    if (rows.ply < 0).any():
        sys.exit("gomocup-bot train-net: --teacher: the --cache was written without each row's ply; "
                 "delete it and extract the positions again")
    try:
        table = teacher.read(args.teacher)
    except teacher.TeacherError as exc:
        sys.exit(f"gomocup-bot train-net: --teacher: {exc}")
    moves_of = {game_hash(str(path), rec.id): (rec.rule, rec.moves)
                for path in args.files for rec in read(path) if rec.rule == args.rule}
    missing = set(int(g) for g in np.unique(rows.game)) - set(moves_of)
    if missing:
        sys.exit(f"gomocup-bot train-net: --teacher: {len(missing)} games of the positions are not in the record "
                 f"files given (the files must be those the --cache was made from)")
    ev, mate = teacher.values_of(rows, moves_of, table)
    labelled = rows.value_row & (~np.isnan(ev) | (mate != 0))
    fit = labelled & ~rows.held
    try:
        scale = args.teacher_scale or teacher.fit_scale(np.where(fit, ev, np.nan), rows.result)
    except teacher.TeacherError as exc:
        sys.exit(f"gomocup-bot train-net: --teacher: {exc}")
    rows.score[labelled] = teacher.scores(ev, mate, scale, args.teacher_mate, LABEL_SCALE)[labelled]
    log(f"teacher: {int(labelled.sum())} of {int(rows.value_row.sum())} value rows labelled "
        f"({int((labelled & (mate != 0)).sum())} forced results), {scale:.0f} teacher units a logit"
        + ("; only they are kept" if args.teacher_only else ""))
    notes = {"files": [Path(p).name for p in args.teacher], "scale": round(scale, 1), "mate": args.teacher_mate,
             "rows": int(labelled.sum()), "only": bool(args.teacher_only)}
    return (rows.select(labelled) if args.teacher_only else rows), notes


FREEZABLE = ("residual", "tw", "w1", "b1", "w2", "b2", "wp", "bp")


def _frozen_parts(text: str) -> tuple[str, ...]:
    """``--freeze``'s list: names of `LineNet` parameters, checked."""
    parts = tuple(p.strip() for p in text.split(",") if p.strip())
    unknown = [p for p in parts if p not in FREEZABLE]
    if unknown:
        raise argparse.ArgumentTypeError(f"not a part of the net: {', '.join(unknown)} (choose among {', '.join(FREEZABLE)})")
    return parts


def _init_from(model, path: str, rule: str, log, from_rule: str | None = None) -> None:
    """Load an earlier run's model weights (a warm start for the next generation): its checkpoint,
    or a weights file (`net.gbn`) whose net for ``rule`` the model is fitted to (`LineNet.take_net`:
    a shipped generation can seed the next when its checkpoint is gone). A missing file or another
    shape stops the run with the reason, before any step is spent. ``from_rule`` takes another rule's
    net of the file (exact five and renju from the freestyle net, which has seen far more games)."""
    import torch

    from gomocup_bot.neteval import weights as W

    head = b""
    if Path(path).is_file():
        with open(path, "rb") as f:
            head = f.read(len(W.MAGIC))
    if head == W.MAGIC:
        try:
            net = W.load(path)
        except W.NetWeightsError as exc:
            sys.exit(f"gomocup-bot train-net: --init {path}: {exc}")
        source = from_rule or rule
        if source not in net.rules or net.feature > model.feature or net.hidden != model.hidden \
                or net.rules[source].codebook.shape[0] > model.codebooks:
            sys.exit(f"gomocup-bot train-net: --init {path}: no {source} net of this shape in it "
                     f"(feature {net.feature}, hidden {net.hidden}, rules {sorted(net.rules)})")
        t0 = time.time()
        worst = model.take_net(net.rules[source])
        log(f"started from the {source} net of {path}: its heads, and the mapping network fitted to its codebook "
            f"(largest error {worst:.1f}/256 of a feature, kept in the residual table: the start is the file's net; "
            f"{time.time() - t0:.0f} s)")
        return
    if from_rule:
        sys.exit(f"gomocup-bot train-net: --init-rule {from_rule} needs --init to name a weights file (net.gbn), "
                 f"not a checkpoint: {path}")
    try:
        state = torch.load(path, weights_only=False)
        state["model"].setdefault("residual", torch.zeros_like(model.residual))  # a run from before the table
        model.load_state_dict(state["model"])
        model.free_residual()
    except (OSError, KeyError, RuntimeError, TypeError) as exc:
        sys.exit(f"gomocup-bot train-net: --init {path}: not a checkpoint of this net's shape ({exc})")
    log(f"started from the model of {path} (step {state.get('step', '?')} of its run)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gomocup-bot train-net", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("files", nargs="*", help="game record files (JSON lines, .gz or plain)")
    ap.add_argument("--rule", choices=("freestyle", "standard", "renju"), default="freestyle")
    ap.add_argument("--out", required=True, help="the weights file to write (net.gbn format)")
    ap.add_argument("--base", help="take the other rules' nets from this file (default: the package's)")
    ap.add_argument("--cache", help="an .npz of the extracted positions: read if it exists, else written")
    ap.add_argument("--checkpoint", help="resume from / save to this file (default: OUT.ckpt)")
    ap.add_argument("--checkpoint-every", type=int, default=500, help="steps between checkpoints (default 500)")
    ap.add_argument("--init", help="start from an earlier generation: its OUT.ckpt (the same shape), or a weights "
                                   "file (net.gbn: its heads, the mapping network fitted to its codebook and what "
                                   "the fit misses in a residual table; with a wider --feature the new features "
                                   "start at zero weight in the heads); a new schedule and optimiser")
    ap.add_argument("--init-rule", choices=("freestyle", "standard", "renju"),
                    help="with --init NET.gbn: start from this rule's net of the file instead of --rule's (e.g. an "
                         "exact-five or renju run from the freestyle net; both renju colours start from its one codebook)")
    ap.add_argument("--freeze", type=_frozen_parts, default=("residual",), metavar="PARTS",
                    help="parameters that keep their start's values, comma-separated among "
                         f"{', '.join(FREEZABLE)} (default: residual, the table a warm start from a weights file "
                         "fills with what the mapping network's fit missed; '' trains it too)")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--weight-decay", type=float, default=1e-5)
    ap.add_argument("--lambda", dest="lam", type=float, default=0.5, help="weight of the game result in the value label")
    ap.add_argument("--policy-weight", type=float, default=0.3, help="weight of the policy loss beside the value's")
    ap.add_argument("--feature", type=int, default=32, help="feature width F (codebook columns)")
    ap.add_argument("--hidden", type=int, default=32, help="the value head's hidden width")
    ap.add_argument("--mapping", type=int, default=64, help="the mapping network's width")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--beside", action="store_true",
                    help="keep the base file's net of --rule for its boards and add this one for the other "
                         "boards it learned (e.g. --sizes 15,20: a 20 x 20 net beside the 15 x 15 one)")
    ap.add_argument("--sizes", type=_sizes, default=[15],
                    help="board sides whose games are read, comma-separated (default 15); the net is "
                         "written to play the sides its training positions have (the weights' boards)")
    ap.add_argument("--teacher", action="append", default=[], metavar="FILE",
                    help="another engine's evaluation of training positions (gomocup-tournament evaluate's output; "
                         "repeatable): where it labelled a value row, its view takes the searched value's place "
                         "in the label; needs the record files, even with --cache")
    teacher.add_scale_arguments(ap)
    ap.add_argument("--teacher-only", action="store_true",
                    help="train (and hold out) only the value rows the teacher labelled: a short run that moves "
                         "the net towards the teacher's view without the rest of the data drowning it")
    args = ap.parse_args(argv)
    if args.teacher and not args.files:
        ap.error("--teacher needs the record files (their moves find the labelled positions), even with --cache")
    if args.teacher_only and not args.teacher:
        ap.error("--teacher-only needs --teacher")
    teacher.check_scale_arguments(ap, args)
    if args.init_rule and not args.init:
        ap.error("--init-rule needs --init NET.gbn (the weights file whose net of that rule starts the run)")
    if not args.files and not (args.cache and Path(args.cache).exists()):
        ap.error("give record files or an existing --cache")
    _import_torch()
    import torch

    from gomocup_bot.neteval import reference, weights as W
    from gomocup_bot.training.netmodel import LineNet, new_weights

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    torch.manual_seed(args.seed)
    torch.set_num_threads(max(1, args.threads))
    rows = _data(args, log)
    rows, taught_notes = _taught(rows, args, log) if args.teacher else (rows, None)
    train, test = rows.select(~rows.held), rows.select(rows.held)
    log(f"{len(train)} training positions ({int(train.value_row.sum())} value rows), {len(test)} held out")
    try:
        base = W.load(args.base) if args.base or W.verify() is None else None
    except W.NetWeightsError as exc:
        log(f"no other rules' nets taken ({exc})")
        base = None
    same_shape = base is not None and (base.feature, base.hidden) == (args.feature, args.hidden)
    learned = tuple((size, size) for size in train.sizes())  # the boards the net is written to play
    if args.beside:  # checked before training: the main net to keep, and boards left for this one
        if not same_shape or args.rule not in base.rules:
            sys.exit(f"gomocup-bot train-net: --beside: the base file has no {args.rule} net of this shape to keep")
        learned = tuple(b for b in learned if b not in base.rules[args.rule].boards)
        if not learned:
            sys.exit(f"gomocup-bot train-net: --beside: every board of the positions ({train.sizes()}) is the main net's")
    y_all = labels(train, args.lam)
    codebooks = 2 if args.rule == "renju" else 1
    model = LineNet(args.feature, args.hidden, args.mapping, codebooks)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    steps_per_epoch = max(1, len(train) // args.batch)
    total = steps_per_epoch * args.epochs
    ckpt = Path(args.checkpoint or args.out + ".ckpt")
    step = 0
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        state["model"].setdefault("residual", torch.zeros_like(model.residual))
        model.load_state_dict(state["model"])
        model.free_residual()
        opt.load_state_dict(state["opt"])
        step = int(state["step"])
        log(f"resumed from {ckpt} at step {step} of {total}")
    elif args.init:
        _init_from(model, args.init, args.rule, log, args.init_rule)
        figures = evaluate_rows(model, test, args.lam)  # how much of the earlier net the warm start kept
        log("held out, at the start: " + ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
                                                  for k, v in figures.items()))
    for name in args.freeze:
        getattr(model, name).requires_grad_(False)

    def save_ckpt() -> None:
        tmp = ckpt.with_name(ckpt.name + ".tmp")
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step, "args": vars(args)}, tmp)
        os.replace(tmp, ckpt)

    t0 = time.time()
    start_step = step
    while step < total:
        epoch = step // steps_per_epoch
        perm = np.random.default_rng(args.seed * 1000 + epoch).permutation(len(train))
        i = step % steps_per_epoch
        sel = np.sort(perm[i * args.batch:(i + 1) * args.batch])
        lr = args.lr * 0.5 * (1 + math.cos(math.pi * step / total))
        for g in opt.param_groups:
            g["lr"] = lr
        # one forward pass per board size in the batch; the losses are means over the whole batch
        sum_v = sum_p = None
        n_v = int(train.value_row[sel].sum())
        n_p = int((train.move[sel] >= 0).sum())
        for size in np.unique(train.size[sel]):
            sub = sel[train.size[sel] == size]
            value, pol = model(*_inputs(train, sub, int(size)), size=int(size))
            vmask = torch.from_numpy(train.value_row[sub])
            y = torch.from_numpy(y_all[sub])
            part_v = torch.nn.functional.binary_cross_entropy_with_logits(value[vmask], y[vmask], reduction="sum") \
                if vmask.any() else value.sum() * 0
            moves = torch.from_numpy(train.move[sub].astype(np.int64))
            pmask = moves >= 0
            part_p = torch.nn.functional.cross_entropy(pol[pmask], moves[pmask], reduction="sum") \
                if pmask.any() else value.sum() * 0
            sum_v = part_v if sum_v is None else sum_v + part_v
            sum_p = part_p if sum_p is None else sum_p + part_p
        loss_v = sum_v / max(1, n_v)
        loss_p = sum_p / max(1, n_p)
        loss = loss_v + args.policy_weight * loss_p
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 50 == 0 or step == total:
            rate = (step - start_step) / max(1e-9, time.time() - t0)
            log(f"step {step}/{total} epoch {epoch + 1} lr {lr:.2e} value {float(loss_v.detach()):.4f} policy {float(loss_p.detach()):.3f} "
                f"({rate:.1f} steps/s, {(total - step) / max(rate, 1e-9) / 60:.1f} min left)")
        if step % args.checkpoint_every == 0 or step % steps_per_epoch == 0:
            save_ckpt()
        if step % steps_per_epoch == 0 or step == total:
            figures = evaluate_rows(model, test, args.lam)
            log("held out: " + ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in figures.items()))
    save_ckpt()
    figures = evaluate_rows(model, test, args.lam)
    log("held out, final: " + ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in figures.items()))
    out = new_weights(args.feature, args.hidden)
    if same_shape:
        out.rules.update({k: v for k, v in base.rules.items() if k != args.rule or args.beside})
        out.notes.update({k: v for k, v in base.notes.items() if not k.startswith(args.rule) or args.beside})
        out.sized = [(k, v) for k, v in base.sized if k != args.rule]
    trained = model.export()
    trained.boards = learned
    note_key = args.rule
    if args.beside:  # the main net keeps its boards; this one plays the others it learned
        out.sized.append((args.rule, trained))
        note_key = f"{args.rule} " + ",".join(f"{w}x{h}" for w, h in trained.boards)
    else:
        out.rules[args.rule] = trained
    from gomocup_bot.core.evalfile import read_bytes
    import zlib

    out.notes[note_key] = {"files": [Path(f).name for f in args.files], "positions": len(train),
                            "tables_crc32": zlib.crc32(read_bytes()[0]),
                            "held_out": {k: (round(v, 5) if isinstance(v, float) else v) for k, v in figures.items()},
                            "args": {k: v for k, v in vars(args).items()
                                     if k not in ("files", "out", "cache", "checkpoint", "base", "teacher")}}
    if taught_notes:
        out.notes[note_key]["teacher"] = taught_notes
    W.save(out, args.out)
    # the export against the trainer's own forward pass on a few held-out positions
    net = W.load(args.out).net_for(args.rule, *trained.boards[0])
    sample = test.select(np.concatenate([np.flatnonzero(test.size == s)[:4] for s in test.sizes()
                                         if (s, s) in trained.boards]).astype(np.int64))
    worst = 0.0
    for j in range(len(sample)):
        size = int(sample.size[j])
        with torch.no_grad():
            v, _ = model(*_inputs(sample, np.array([j]), size), size=size)
        cells = sample.cells[j, :size * size].reshape(size, size).astype(np.int64)
        colour = int(sample.colour[j])
        board = np.where(cells == 1, colour, np.where(cells == 2, 3 - colour, 0))
        ref = reference.logit(out, net, board, colour - 1, int(sample.mask[j]), float(sample.table_eval[j]))
        worst = max(worst, abs(ref - float(v[0])))
    log(f"wrote {args.out}: rule {args.rule} on {', '.join(f'{w}x{h}' for w, h in trained.boards)}, the export within {worst:.2e} logits of the trainer's forward pass")
    return 0
