"""`gomocup-bot train-eval`: fit the evaluation's pattern-code tables to game records.

The model is the evaluation itself (`core.evaltables`) read as a logistic regression at ``scale``
units a logit: P(the mover wins) = sigmoid((Σ V_self − Σ V_opp + THREAT[mask]) / scale). The label
blends the game's result with the generating search's value, ``λ·result + (1 − λ)·sigmoid(value /
scale)`` (the search saw further than the static tables; the result is the truth at the end of
the game). The loss is the cross-entropy to that soft label, with an L2 pull of every value
towards the weights the fit starts from (codes a data set rarely shows keep their old, class-
based value instead of drifting to zero). Full-batch Adam on numpy: a few thousand parameters
and at most a few million rows need nothing bigger.

Held out: every game whose running number is 0 mod 10 (a split by game, so positions of one game
never sit on both sides). The report gives the held-out log loss of the starting weights and of
the fit, on the plain game-result label (the definition of the old fit's 0.595) and on the
blended label.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gomocup_bot.core.classes import C_FIVE, C_FLEX4, C_THREE, N_CODES
from gomocup_bot.core.evaltables import (N_CANON, N_THREAT, TABLE_NAMES, EvalTable, EvalWeights, EvalWeightsError,
                                         load, save)
from gomocup_bot.training import features, ordering, records, teacher

N_CLASSES = C_FIVE + 1  # threat classes (core.classes: C_NONE .. C_FIVE)
# the tables each rule's data trains: (black's, white's)
GROUPS = {"freestyle": ("freestyle", "freestyle"), "standard": ("standard", "standard"),
          "renju": ("renju-black", "renju-white"), "caro": ("caro", "caro")}
# a table without data of its own starts from (and is written as) another rule's fit
FALLBACK = {"standard": "freestyle", "caro": "freestyle"}


@dataclass
class Fit:
    tables: dict[str, EvalTable]
    report: dict


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -30, 30)))


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


CHUNK = 1 << 14  # rows taken at a time (integer counts widen to float64 a block at a time: 480 MB)


def _wide(a: np.ndarray) -> type:
    """The float type a block of ``a`` is multiplied in: float64 for integer counts (the sums are
    then the search's integers exactly), float32 for averaged counts (their own: no copy)."""
    return np.float64 if np.issubdtype(a.dtype, np.integer) else np.float32


def _rows(sel: np.ndarray):
    """A row selector that does not copy when it takes every row (one table for both colours)."""
    return slice(None) if sel.all() else sel


def held_out(game: np.ndarray) -> np.ndarray:
    """The held-out games: every running number 0 mod 10 (a split by game)."""
    return game % 10 == 0


def held_last(recs: list) -> list:
    """The records with the held-out games at the end, so the training and held-out rows are two
    slices of one array and splitting them copies nothing."""
    test = held_out(np.array([r.id for r in recs], dtype=np.int64))
    return [r for r, t in zip(recs, test) if not t] + [r for r, t in zip(recs, test) if t]


def split(rows: features.Rows) -> tuple[features.Rows, features.Rows]:
    """(training rows, held-out rows): views when the held-out games come last (`held_last`),
    copies otherwise."""
    test = held_out(rows.game)
    k = len(rows) - int(test.sum())
    if not test[:k].any():
        return rows.select(slice(0, k)), rows.select(slice(k, None))
    return rows.select(~test), rows.select(test)


class Model:
    """The tables of one rule as a flat parameter vector in logit units: per table name,
    v_self[N_CANON], v_opp[N_CANON], threat[N_THREAT]."""

    def __init__(self, names: tuple[str, str], start: dict[str, EvalTable], scale: float) -> None:
        self.names = names
        self.unique = sorted(set(names), key=names.index)
        self.scale = scale
        self.block = 2 * N_CANON + N_THREAT
        self.w0 = np.concatenate([np.concatenate([start[n].v_self, start[n].v_opp, start[n].threat]) / scale
                                  for n in self.unique]).astype(np.float64)
        self.tempo = {n: start[n].tempo for n in self.unique}

    def _offset(self, colour: np.ndarray) -> np.ndarray:
        """Each row's block offset of the table of the given colour (1 black, 2 white)."""
        idx = np.array([self.unique.index(self.names[0]), self.unique.index(self.names[1])])
        return idx[colour.astype(np.int64) - 1] * self.block

    def logits(self, w: np.ndarray, rows: features.Rows) -> np.ndarray:
        out = np.empty(len(rows))
        for c in range(0, len(rows), CHUNK):
            out[c:c + CHUNK] = self._block_logits(w, rows.select(slice(c, c + CHUNK)))[0]
        return out

    def loss_gradient(self, w: np.ndarray, rows: features.Rows, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(each row's win probability, d(mean loss)/dw) for labels ``y``, in one pass over the
        rows: each block is widened (`_wide`) once for both products."""
        p = np.empty(len(rows))
        grad = np.zeros_like(w)
        for c in range(0, len(rows), CHUNK):
            block = rows.select(slice(c, c + CHUNK))
            z, own, opp, me, op = self._block_logits(w, block)
            p[c:c + CHUNK] = _sigmoid(z)
            g = p[c:c + CHUNK] - y[c:c + CHUNK]
            for t in range(len(self.unique)):
                b = t * self.block
                sel_me, sel_op = _rows(me == b), _rows(op == b)
                grad[b:b + N_CANON] += g[sel_me].astype(own.dtype) @ own[sel_me]
                grad[b + N_CANON:b + 2 * N_CANON] -= g[sel_op].astype(opp.dtype) @ opp[sel_op]
            np.add.at(grad, me + 2 * N_CANON + block.mask.astype(np.int64), g)
        return p, grad / max(len(rows), 1)

    def _block_logits(self, w: np.ndarray, rows: features.Rows):
        """The logits of a block of rows, with its matrices widened (`_wide`) and its table offsets."""
        me = self._offset(rows.colour)
        op = self._offset(3 - rows.colour)
        kind = _wide(rows.own)
        own, opp = rows.own.astype(kind, copy=False), rows.opp.astype(kind, copy=False)
        out = np.zeros(len(rows))
        for t in range(len(self.unique)):
            b = t * self.block
            sel_me, sel_op = _rows(me == b), _rows(op == b)
            out[sel_me] += own[sel_me] @ w[b:b + N_CANON].astype(kind)
            out[sel_op] -= opp[sel_op] @ w[b + N_CANON:b + 2 * N_CANON].astype(kind)
        out += w[me + 2 * N_CANON + rows.mask.astype(np.int64)]
        out += np.array([self.tempo[self.names[c - 1]] for c in (1, 2)])[rows.colour - 1] / self.scale
        return out, own, opp, me, op

    def trainable(self, part: str) -> np.ndarray:
        """1.0 where a parameter may move: ``all``, or ``threat`` (the threat tables alone, the
        pattern-code tables kept as they start: far fewer values for the data to pin down)."""
        mask = np.ones(len(self.w0))
        if part == "threat":
            for t in range(len(self.unique)):
                mask[t * self.block:t * self.block + 2 * N_CANON] = 0.0
        return mask

    def basis(self, part: str) -> np.ndarray:
        """float[len(w0), k]: the ``factored`` model's directions. A code's value for each side moves
        by a value of its threat class plus one value per line code it holds (four lines): a few
        dozen numbers per table, which 50 k positions pin down where 3,640 free values are noise.
        Codes of classes no training row holds (the mover's open four or five, the opponent's five:
        such positions are forced, not kept) keep their start values instead of following the
        line values. ``shape``: only the codes below an open three move (twos, ones, closed
        threes: the positional part); the tactical classes keep their values."""
        from gomocup_bot.training.classic import canonical_counts, canonical_classes

        counts = canonical_counts()
        per_side = N_CLASSES + N_CODES
        out = np.zeros((len(self.w0), 2 * per_side * len(self.unique)))
        for t, name in enumerate(self.unique):
            cls = canonical_classes(name == "renju-black")
            for side, unseen in ((0, (C_FLEX4, C_FIVE)), (1, (C_FIVE,))):  # v_self, v_opp
                rows = slice(t * self.block + side * N_CANON, t * self.block + (side + 1) * N_CANON)
                col = (2 * t + side) * per_side
                seen = ~np.isin(cls, unseen)[:, None]
                if part == "shape":
                    seen &= (cls < C_THREE)[:, None]
                out[rows, col:col + N_CLASSES] = np.eye(N_CLASSES)[cls] * seen
                out[rows, col + N_CLASSES:col + per_side] = counts * seen
        return out

    def tables(self, w: np.ndarray, start: dict[str, EvalTable]) -> dict[str, EvalTable]:
        """The fitted values as tables (the ordering scores kept from ``start``)."""
        out = {}
        for t, n in enumerate(self.unique):
            v = np.round(w[t * self.block:(t + 1) * self.block] * self.scale).astype(np.int64)
            out[n] = EvalTable(v[:N_CANON], v[N_CANON:2 * N_CANON], v[2 * N_CANON:], self.tempo[n],
                               start[n].order_attack, start[n].order_defend)
        return out


def labels(rows: features.Rows, lam: float, scale: float) -> np.ndarray:
    """The blended label; a row without a search value (a match game's) gets its result."""
    blended = lam * rows.result + (1 - lam) * _sigmoid(np.nan_to_num(rows.score) / scale)
    return np.where(np.isnan(rows.score), rows.result, blended)


FACTORED_LR = 0.002  # a factored value moves every code that holds it: a tenth of the tables' step


def fit(rows: features.Rows, model: Model, lam: float, l2: float, iters: int, lr: float | None = None,
        log=print, part: str = "all") -> np.ndarray:
    """Full-batch Adam on the blended cross-entropy with an L2 pull towards the start (only the
    parameters of ``part`` move, `Model.trainable`; ``factored``: the few values of
    `Model.basis` move, and every code's value follows from them)."""
    basis = model.basis(part) if part in ("factored", "shape") else None
    lr = lr if lr is not None else (FACTORED_LR if basis is not None else 0.02)
    trainable = model.trainable(part)
    y = labels(rows, lam, model.scale)
    theta = np.zeros(basis.shape[1]) if basis is not None else model.w0.copy()
    weights = (lambda t: model.w0 + basis @ t) if basis is not None else (lambda t: t)  # noqa: E731
    m = np.zeros_like(theta)
    v = np.zeros_like(theta)
    b1, b2 = 0.9, 0.999
    for it in range(1, iters + 1):
        w = weights(theta)
        p, grad = model.loss_gradient(w, rows, y)
        if basis is not None:
            g = basis.T @ grad + l2 * theta
        else:
            g = (grad + l2 * (w - model.w0)) * trainable
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        theta -= lr * (m / (1 - b1**it)) / (np.sqrt(v / (1 - b2**it)) + 1e-8)
        if it % 100 == 0 or it == iters:
            log(f"  iteration {it}: train loss {log_loss(p, y):.4f}")
    return weights(theta)


def train_rule(rule: str, rows: features.Rows, start: EvalWeights, lam: float, l2: float, iters: int,
               log=print, part: str = "all") -> Fit:
    names = GROUPS[rule]
    model = Model(names, start.tables, start.scale)
    train, held = split(rows)
    log(f"{rule}: {len(train)} training rows, {len(held)} held out ({len(np.unique(rows.game))} games)")
    t0 = time.monotonic()
    w = fit(train, model, lam, l2, iters, log=log, part=part)
    report = {"rows": int(len(train)), "held_out_rows": int(len(held)), "games": int(len(np.unique(rows.game))),
              "lambda": lam, "l2": l2, "iterations": iters, "part": part, "seconds": round(time.monotonic() - t0, 1)}
    for label, y in (("result", held.result), ("blended", labels(held, lam, model.scale))):
        for which, ww in (("start", model.w0), ("fit", w)):
            report[f"held_out_{label}_loss_{which}"] = round(log_loss(_sigmoid(model.logits(ww, held)), y), 4)
    log("  " + ", ".join(f"{k} {v}" for k, v in report.items() if k.startswith("held_out_")))
    return Fit(model.tables(w, start.tables), report)


def train_ordering(rule: str, recs: list, tables: dict[str, EvalTable], iters: int, log=print) -> dict:
    """Fit the ordering tables of ``rule`` in place in ``tables``; returns the report."""
    choices = ordering.choices_of(recs)
    if len(choices.chosen) < 100:
        log(f"{rule}: too few searched moves to fit the ordering; kept the starting tables")
        return {}
    test = held_out(choices.game)
    train, held = ordering.split(choices, ~test), ordering.split(choices, test)
    name = GROUPS[rule][0]
    ref_a, ref_d = tables[name].order_attack.astype(float), tables[name].order_defend.astype(float)
    log(f"{rule} ordering: {len(train.chosen)} chosen moves, {len(held.chosen)} held out")
    a, d = ordering.fit(train, iters=iters, log=log)
    k = ordering.scale_to(a, d, ref_a, ref_d, train)
    ref_k = ordering.best_scale(ref_a, ref_d, train)
    report = {"moves": int(len(train.chosen)), "held_out_moves": int(len(held.chosen)), "scale": round(k, 2),
              "held_out_top1_start": round(ordering.top1(ref_a, ref_d, held), 4),
              "held_out_top1_fit": round(ordering.top1(a, d, held), 4),
              "held_out_loss_start": round(ordering.loss_of(ref_a * ref_k, ref_d * ref_k, held), 4),
              "held_out_loss_fit": round(ordering.loss_of(a, d, held), 4)}
    log("  " + ", ".join(f"{k2} {v}" for k2, v in report.items() if k2.startswith("held_out_")))
    for n in set(GROUPS[rule]):
        t = tables[n]
        tables[n] = EvalTable(t.v_self, t.v_opp, t.threat, t.tempo, np.round(a * k), np.round(d * k))
    return report


def taught_rows(rows: features.Rows, recs: list, taught: dict, args, scale: float, log=print) -> tuple[features.Rows, dict]:
    """The rows a teacher labelled, their searched value replaced by the teacher's (in our units)."""
    ev, mate = teacher.values_of(rows, {r.id: (r.rule, r.moves) for r in recs}, taught)
    has = ~np.isnan(ev) | (mate != 0)
    rows, ev, mate = rows.select(has), ev[has], mate[has]
    train = ~held_out(rows.game)
    t_scale = args.teacher_scale or teacher.fit_scale(ev[train], rows.result[train])
    rows.score[:] = teacher.scores(ev, mate, t_scale, args.teacher_mate, scale)
    log(f"  teacher: {len(rows)} positions labelled ({int((mate != 0).sum())} forced wins), "
        f"{t_scale:.0f} teacher units a logit")
    return rows, {"teacher": [Path(p).name for p in args.teacher], "teacher_scale": round(t_scale, 1),
                  "teacher_mate": args.teacher_mate, "taught_rows": int(len(rows))}


def write_positions(by_rule: dict[str, list], path: str) -> int:
    """The kept positions of every record as JSON lines (rule, size, moves), each once."""
    seen: set[tuple[str, int, str]] = set()
    with open(path, "w", encoding="utf-8") as out:
        for recs in by_rule.values():
            for rec in recs:
                for ply in features.game_rows(rec).ply:
                    key = (rec.rule, rec.size, rec.moves[: 2 * int(ply)])
                    if key not in seen:
                        seen.add(key)
                        out.write(json.dumps({"rule": key[0], "size": key[1], "moves": key[2]}) + "\n")
    return len(seen)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gomocup-bot train-eval", description=__doc__.split("\n\n")[0],
                                 epilog="Each rule's tables are fitted to that rule's records; a table without "
                                        "records keeps the starting weights (standard and caro: the freestyle fit).")
    ap.add_argument("data", nargs="+", help="game record files (gomocup-bot selfplay; .jsonl or .jsonl.gz)")
    ap.add_argument("--out", help="the weights file to write (the package's: "
                                                 "gomocup_bot/core/data/eval.gbw)")
    ap.add_argument("--start", help="weights to start from and pull towards (default: the package's)")
    ap.add_argument("--lambda", dest="lam", type=float, default=0.5,
                    help="weight of the game result in the label, the rest the search's value (default 0.5)")
    ap.add_argument("--l2", type=float, default=1e-4, help="L2 pull towards the start (default 1e-4)")
    ap.add_argument("--iters", type=int, default=600, help="full-batch Adam steps (default 600)")
    ap.add_argument("--part", choices=("all", "threat", "factored", "shape"), default="all",
                    help="what the fit may change: every table (default); only the threat tables over "
                         "the starting pattern-code values; or 'factored': each code's value moves by a "
                         "value of its threat class plus one per line code (a few dozen values a table); "
                         "'shape': the same for the codes below an open three only")
    ap.add_argument("--average", action="store_true",
                    help="fit rows whose code counts average this position and the previous one, the "
                         "evaluation the PVS uses with eval_avg=1 (the default); without it one position")
    ap.add_argument("--teacher", action="append", default=[], metavar="FILE",
                    help="labels from another engine (gomocup-tournament evaluate's output, JSON lines): "
                         "its value replaces the self-play search's, and positions it did not label are "
                         "left out (repeatable)")
    teacher.add_scale_arguments(ap)
    ap.add_argument("--positions-out", metavar="FILE",
                    help="write the kept positions of the data as JSON lines (rule, size, moves: the input of "
                         "gomocup-tournament evaluate) instead of fitting")
    ap.add_argument("--rules", default="freestyle,standard,renju,caro", metavar="RULE,...",
                    help="the rules whose tables are fitted (default: every rule with records); the others keep "
                         "the starting tables, and are not given the freestyle fit")
    ap.add_argument("--no-ordering", dest="ordering", action="store_false",
                    help="keep the starting move-ordering tables instead of fitting them to the played moves")
    args = ap.parse_args(argv)
    fitted_rules = [r.strip() for r in args.rules.split(",") if r.strip()]
    if not fitted_rules or any(r not in GROUPS for r in fitted_rules):
        ap.error(f"--rules takes a comma-separated list of {', '.join(GROUPS)}, not {args.rules!r}")
    log = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    try:  # a bad start file or data file is the user's mistake: say which, no traceback
        start = load(args.start)
    except EvalWeightsError as exc:
        ap.error(str(exc))
    by_rule: dict[str, list] = {}
    key = 0
    for path in args.data:
        try:
            for rec in records.read(path):
                rec.id = key  # one running number over all files: the held-out split is by game
                key += 1
                by_rule.setdefault(rec.rule, []).append(rec)
        except records.RecordError as exc:
            ap.error(str(exc))
        except (OSError, EOFError) as exc:  # a missing file, or a gzip file that is not one / cut short
            ap.error(f"{path}: cannot read the game records ({getattr(exc, 'strerror', None) or exc})")
    if not by_rule:
        ap.error("no game records in the data files")
    if args.positions_out:
        n = write_positions(by_rule, args.positions_out)
        log(f"wrote {n} positions to {args.positions_out}")
        return 0
    if not args.out:
        ap.error("--out is required (or --positions-out)")
    teacher.check_scale_arguments(ap, args)
    try:
        taught = teacher.read(args.teacher) if args.teacher else None
    except teacher.TeacherError as exc:
        ap.error(str(exc))
    tables = dict(start.tables)
    notes: dict = {"trained": {}}
    for rule in ("freestyle", "standard", "renju", "caro"):
        recs = by_rule.get(rule)
        if not recs or rule not in fitted_rules:
            continue
        t0 = time.monotonic()
        rows = features.rows_of(held_last(recs), average=args.average)
        log(f"{rule}: {len(recs)} games -> {len(rows)} positions in {time.monotonic() - t0:.0f} s")
        taught_note = {}
        if taught is not None:
            try:
                rows, taught_note = taught_rows(rows, recs, taught, args, start.scale, log)
            except teacher.TeacherError as exc:
                ap.error(f"{rule}: {exc}")
        if len(rows) < 100:
            log(f"{rule}: too few positions to fit; kept the starting tables")
            continue
        result = train_rule(rule, rows, start, args.lam, args.l2, args.iters, log=log, part=args.part)
        tables.update(result.tables)
        notes["trained"][rule] = result.report | {"average": args.average} | taught_note
        if args.ordering:
            report = train_ordering(rule, recs, tables, args.iters, log=log)
            if report:
                notes["trained"][rule]["ordering"] = report
    for name, source in FALLBACK.items():
        if source in notes["trained"] and name not in notes["trained"] and name in fitted_rules:
            tables[name] = tables[GROUPS[source][0]]
            notes.setdefault("copied", {})[name] = source
    weights = EvalWeights({n: tables[n] for n in TABLE_NAMES}, start.scale, notes)
    save(weights, args.out)
    log(f"wrote {args.out} ({Path(args.out).stat().st_size} bytes)")
    return 0
