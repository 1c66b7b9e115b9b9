"""What the three search engines share: option parsing, warm-up, and a never-fail `search`.

`search` wraps the engine's own `_search`: any exception is logged and answered with a legal
fallback move, because a brain that crashes or stays silent loses the game.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from gomocup_bot.engine import SearchRequest, SearchResult, StopFlag
from gomocup_bot.search import policy
from gomocup_bot.search.adapter import BoardView, make_result, memory_split, report, summary_text

log = logging.getLogger(__name__)


def _as_bool(v) -> bool:
    return v if isinstance(v, bool) else str(v).strip().lower() in ("1", "true", "yes", "on")


class SearchEngineBase:
    name = "search"

    def __init__(self, level: int | str | None = None, **options) -> None:
        self.level = policy.level(int(level) if level not in (None, "") else None)
        self.options = dict(options)
        self._prepared = False
        self._max_memory = 0
        self._searching = threading.Lock()

    def option(self, key: str, default, kind=str):
        v = self.options.get(key, default)
        if kind is bool:
            return _as_bool(v)
        try:
            return kind(v)
        except (TypeError, ValueError):
            log.warning("option %s=%r is not a %s; using %r", key, v, kind.__name__, default)
            return default

    warm_parts: tuple[str, ...] = ("pvs", "mcts", "mcts-plain")

    def prepare(self) -> None:
        if not self._prepared:
            from gomocup_bot.search.warm import warm_up

            warm_up(self.warm_parts)
            self._prepared = True

    def new_game(self, width: int, height: int, rules) -> None:  # noqa: ARG002 -- per-engine state
        self._reset()

    def _reset(self) -> None:
        pass

    def release_memory(self) -> None:
        """Drop the search tables (hash table, tree) until the next search builds them again. A
        server calls this between a session's moves, so its memory follows the searches running
        rather than the sessions open (what is lost: the hash table's and tree's carry-over)."""

    def memory(self, request: SearchRequest) -> tuple[int, int]:
        return memory_split(request.max_memory)

    @staticmethod
    def memory_for(max_memory: int) -> tuple[int, int]:
        return memory_split(max_memory)

    def search(self, request: SearchRequest, stop: StopFlag) -> SearchResult:
        t0 = time.monotonic()
        view = BoardView(request)
        # a search the brain abandoned past its deadline may still run on this engine's tables: a
        # second one on the same tree or work records would corrupt them (a segfault, measured
        # once under load), so wait for it while the plan allows, else answer without searching
        if not self._searching.acquire(timeout=max(0.0, request.limits.soft_deadline - t0)):
            log.error("%s: the previous search still runs; answering with a fallback move", self.name)
            return make_result(view, view.fallback())
        try:
            result = self._search(request, stop, view)
        except Exception:  # noqa: BLE001 -- the move must come whatever happened
            log.exception("%s: search failed; answering with a fallback move", self.name)
            result = make_result(view, view.fallback())
        finally:
            self._searching.release()
        log.debug("%s: %s in %.3f s (depth %d, nodes %d)", self.name, result.move,
                  time.monotonic() - t0, result.depth, result.nodes)
        return result

    def _search(self, request: SearchRequest, stop: StopFlag, view: BoardView) -> SearchResult:
        raise NotImplementedError


def _best_reporter(request: SearchRequest, view: BoardView):
    """An iteration callback sending one BEST line per change of mind (None when nobody listens)."""
    if request.report is None:
        return None
    shown = {"move": -1}

    def on_iteration(out):
        if out.move != shown["move"]:  # one line per change of mind, not per iteration
            shown["move"] = out.move
            report(request, "best", view, out.move, depth=out.depth, nodes=out.nodes)

    return on_iteration


def _finish(request: SearchRequest, view: BoardView, out, label: str, *, win_bound: int, score_scale: float,
            seconds: float, extra: str) -> SearchResult:
    """The summary line and the `SearchResult` of the PVS's outcome."""
    if out.move < 0:
        return make_result(view, view.fallback())
    winrate = 0.5 + 0.5 * max(-1.0, min(1.0, out.score / score_scale))
    if abs(out.score) > win_bound:
        winrate = 1.0 if out.score > 0 else 0.0
    report(request, "summary", view, out.move, depth=out.depth, nodes=out.nodes, winrate=winrate,
           text=summary_text(label, view, depth=out.depth, nodes=out.nodes, winrate=winrate, pv=out.pv,
                             seconds=seconds, extra=extra))
    return make_result(view, out.move, proven=out.proven, winrate=winrate, depth=out.depth,
                       nodes=out.nodes, pv=out.pv, alternatives=out.ranked, nbest=request.nbest, score=out.score)


def warm_big_k(position) -> None:
    """Before the first k > 5 search: load (or compile) the kernels' k > 5 specialization, which
    `prepare` leaves out so that the five-in-a-row start-up does not pay for it."""
    if position.win_length > 5:
        from gomocup_bot.search.warm import PVS_BIG_K, warm_up

        warm_up((PVS_BIG_K,))


def pvs_result(searcher, request: SearchRequest, stop: StopFlag, view: BoardView, budget, allowed,
               label: str, board=None, sharp: bool = False, verify=None,
               widen: Callable[[], list[int]] | None = None, whole: bool = False) -> SearchResult:
    """Run the PVS searcher on the core board of the request (every rule and win length) and turn
    its answer into a `SearchResult`: one BEST line per change of mind, one summary line.
    ``verify(out)``, if given, may replace the chosen move (a root move index) before the answer.
    ``widen()``: the root moves ``allowed`` left out that the root checks did not prove lost; when
    the PVS proves every allowed move lost, they are searched in the time left (the checks keep
    the moves proven to hold against shallow threats and drop the ones they could not settle, so
    a loss of the whole allowed set says the set was wrong, not that the game is lost). ``whole``:
    the search deepens to the hard deadline (`PvsSearcher.search`)."""
    from gomocup_bot.core.board import board_from_position
    from gomocup_bot.search import pvs as K

    if board is None:
        board = board_from_position(request.position)
    out = searcher.search(board, view.side, stop.array, soft_deadline=budget.soft, hard_deadline=budget.hard,
                          allowed=allowed, excluded=view.excluded, max_depth=budget.max_depth,
                          max_nodes=budget.max_nodes, on_iteration=_best_reporter(request, view), sharp=sharp,
                          whole=whole)
    extra = ""
    if widen is not None and out.proven < 0 and stop.array[0] == 0:
        moves = widen()
        if moves:
            out, extra = _widened(searcher, board, view, stop, budget, moves, out, request)
    if verify is not None and out.move >= 0:
        chosen = verify(out)
        if chosen != out.move:
            extra += f" checked: {view.xy(out.move)[0]},{view.xy(out.move)[1]} lets a VCT in"
            out.ranked = [chosen] + [q for q in out.ranked if q != chosen]
            out.move, out.pv = chosen, [chosen]
    return _finish(request, view, out, label, win_bound=K.WIN_BOUND, score_scale=2000.0, seconds=out.seconds,
                   extra=f"sel {out.seldepth} threads {out.threads} score {score_text(out.score)} stop {out.stopped_by}"
                         + extra)


def _widened(searcher, board, view: BoardView, stop: StopFlag, budget, widen: list[int], out, request):
    """The PVS over the ``widen`` moves, after it proved every allowed move lost (``out``): its
    move (one whole iteration at least) is taken when not proven lost, or when it loses later,
    the allowed moves ranked after the rest; else ``out`` stands. Returns (outcome, summary note)."""
    lost = out
    more = searcher.search(board, view.side, stop.array, soft_deadline=budget.soft, hard_deadline=budget.hard,
                           allowed=widen, excluded=view.excluded, max_depth=budget.max_depth,
                           max_nodes=budget.max_nodes, on_iteration=_best_reporter(request, view), sharp=True)
    searched = more.depth >= 1 or more.stopped_by == "single"
    if more.move < 0 or not searched or (more.proven < 0 and more.score <= lost.score):
        return lost, f" widened {len(widen)}: lost"
    seen = set(more.ranked)
    more.ranked = more.ranked + [q for q in lost.ranked if q not in seen]
    more.nodes += lost.nodes
    more.seconds += lost.seconds
    return more, f" widened {len(widen)}: {view.xy(more.move)[0]},{view.xy(more.move)[1]}"


def score_text(score: int) -> str:
    """The PVS score for the summary line: a forced win or loss as `+M<plies>` / `-M<plies>` (the
    form Rapfi prints and `tournament.api.info` reads as a mate), so a reader can tell a proven result
    from a large evaluation (both show as winrate 100 %); anything else as the plain number."""
    from gomocup_bot.search import pvs as K

    if abs(score) > K.WIN_BOUND:
        return f"{'+' if score > 0 else '-'}M{K.WIN - abs(score)}"
    return str(score)
