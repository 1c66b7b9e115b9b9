"""The web board's server: a Starlette app on Hypercorn's trio worker.

Why these: the manager is written on trio (connections, sessions, the referee's game loop), so the
web server has to run inside a trio event loop to drive `EngineSession` directly. Hypercorn serves
ASGI on trio natively (`hypercorn.trio.serve`) with WebSockets (wsproto) and HTTP/1.1 (h11);
Starlette is a small, well-kept ASGI toolkit whose WebSocket and routing code runs on trio through
anyio. Neither is imported by the brain or by the other `gomocup-tournament` commands.

Routes: `/` the page, `/static/NAME` its files, `/ws` one play session per connection,
`/api/dbs`, `/api/db/N`, `/api/db/N/game/SLOT` the watched databases (JSON, read on request).

Access rules (`AccessGuard`): a token, when one is set, must come with every request (`?token=` or
the cookie the page gets); without a token (loopback only) the Host header must name this machine,
so a web site cannot reach the board through DNS rebinding; a WebSocket whose Origin is another
site is refused.
"""
from __future__ import annotations

import argparse
import hmac
import ipaddress
import json
import logging
import math
import secrets
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import trio
from hypercorn.config import Config
from hypercorn.trio import serve
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from tournament.engines.spec import EngineSpec, EngineSpecError, available_builtins, parse_engine_spec, unique_names
from tournament.report.html import game_json, static_text, summary
from tournament.results.store import Store, StoreError
from tournament.web.play import PlayController

log = logging.getLogger(__name__)

STATIC = {"app.js": "text/javascript", "board.js": "text/javascript", "style.css": "text/css", "index.html": "text/html"}
COOKIE = "gomoku_token"
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}
SEND_QUEUE = 1000  # messages queued for one page; beyond that thinking lines are dropped
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


@dataclass
class WebSettings:
    engines: dict[str, EngineSpec]
    dbs: list[Path] = field(default_factory=list)
    token: str | None = None
    loopback_only: bool = True
    max_games: int = 32
    idle_seconds: float = 1800.0
    tolerance_ms: int = 1000
    start_timeout: float = 15.0


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class AccessGuard:
    """ASGI middleware: the token, the Host header and the WebSocket Origin (see the module docstring)."""

    def __init__(self, app: Any, settings: WebSettings) -> None:
        self.app = app
        self.settings = settings

    def _problem(self, scope: dict[str, Any]) -> str | None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        token = self.settings.token
        if token is not None:
            given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
            if not given:
                cookie = SimpleCookie()
                try:
                    cookie.load(headers.get("cookie", ""))
                except Exception:  # noqa: BLE001 - a mangled cookie is no cookie
                    pass
                given = cookie[COOKIE].value if COOKIE in cookie else ""
            if not hmac.compare_digest(given.encode(), token.encode()):
                return "a valid token is required"
        elif self.settings.loopback_only:
            hostname = urlsplit("//" + host).hostname or ""
            if hostname not in LOOPBACK_NAMES and not is_loopback(hostname):
                return "this board answers only to localhost"
        if scope["type"] == "websocket":
            origin = headers.get("origin")
            if origin and urlsplit(origin).netloc.lower() != host.lower():
                return "cross-site WebSocket refused"
        return None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        problem = self._problem(scope)
        if problem is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "http":
            await PlainTextResponse(problem, status_code=403)(scope, receive, send)
        else:
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008, "reason": problem})


def _headers(extra: dict[str, str] | None = None) -> dict[str, str]:
    out = dict(SECURITY_HEADERS)
    out.update(extra or {})
    return out


def build_app(settings: WebSettings) -> Any:
    slots = trio.Semaphore(max(1, settings.max_games))

    async def index(request: Request) -> Response:
        response = Response(static_text("index.html"), media_type="text/html", headers=_headers())
        given = request.query_params.get("token")
        if settings.token is not None and given:
            response.set_cookie(COOKIE, given, httponly=True, samesite="strict")
        return response

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return PlainTextResponse("not found", status_code=404, headers=_headers())
        return Response(static_text(name), media_type=STATIC[name], headers=_headers())

    async def dbs(request: Request) -> Response:
        return JSONResponse([p.name for p in settings.dbs], headers=_headers())

    def _db(request: Request) -> Path | None:
        i = request.path_params["i"]
        return settings.dbs[i] if 0 <= i < len(settings.dbs) else None

    def _read(path: Path) -> tuple[list, dict | None]:
        with Store(path) as store:
            return store.games(), store.get_config()

    async def db_summary(request: Request) -> Response:
        path = _db(request)
        if path is None:
            return JSONResponse({"error": "no such database"}, status_code=404, headers=_headers())
        try:
            games, config = await trio.to_thread.run_sync(_read, path)
        except (StoreError, OSError, ValueError, Exception) as exc:  # noqa: BLE001 - a bad file is an answer, not a crash
            return JSONResponse({"error": f"cannot read {path.name}: {exc}"}, status_code=500, headers=_headers())
        return JSONResponse(summary(games, config, with_moves=False), headers=_headers())

    async def db_game(request: Request) -> Response:
        path = _db(request)
        if path is None:
            return JSONResponse({"error": "no such database"}, status_code=404, headers=_headers())
        try:
            games, _ = await trio.to_thread.run_sync(_read, path)
        except Exception as exc:  # noqa: BLE001
            return JSONResponse({"error": f"cannot read {path.name}: {exc}"}, status_code=500, headers=_headers())
        slot = request.path_params["slot"]
        for g in games:
            if g.slot == slot:
                return JSONResponse(game_json(g), headers=_headers())
        return JSONResponse({"error": "no such game"}, status_code=404, headers=_headers())

    async def play(websocket: WebSocket) -> None:
        await websocket.accept()
        out_send, out_receive = trio.open_memory_channel[dict](SEND_QUEUE)

        def send(message: dict[str, Any]) -> None:
            try:
                out_send.send_nowait(message)
            except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
                pass  # a page that does not read its messages loses some; it can ask for the state

        async def sender(done: trio.CancelScope) -> None:
            try:
                async for message in out_receive:
                    await websocket.send_text(json.dumps(message))
            except Exception:  # noqa: BLE001 - the page went away
                pass
            done.cancel()

        async with trio.open_nursery() as nursery:
            controller = PlayController(
                settings.engines, send, nursery, engine_slots=slots, tolerance_ms=settings.tolerance_ms,
                start_timeout=settings.start_timeout,
            )
            send(controller.hello())
            nursery.start_soon(sender, nursery.cancel_scope)
            try:
                while True:
                    with trio.move_on_after(settings.idle_seconds) as idle:
                        message = await websocket.receive()
                    if idle.cancelled_caught:
                        send({"type": "error", "error": "closed after a long time without a message"})
                        break
                    if message["type"] == "websocket.disconnect":
                        break
                    text = message.get("text")
                    await controller.handle(text if text is not None else message.get("bytes"))
            except (WebSocketDisconnect, RuntimeError, OSError):
                pass  # the connection is gone
            finally:
                await controller.close()
                out_send.close()
                nursery.cancel_scope.cancel()
        with trio.CancelScope(shield=True), trio.move_on_after(1):
            try:
                await websocket.close()
            except Exception:  # noqa: BLE001 - already closed
                pass

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/static/{name}", static),
            Route("/api/dbs", dbs),
            Route("/api/db/{i:int}", db_summary),
            Route("/api/db/{i:int}/game/{slot:int}", db_game),
            WebSocketRoute("/ws", play),
        ]
    )
    return AccessGuard(app, settings)


def engines_from(texts: list[str]) -> dict[str, EngineSpec]:
    """The engines the page may start: those named, or every built-in."""
    if not texts:
        texts = [f"builtin:{name}" for name in available_builtins()]
    specs = unique_names([parse_engine_spec(t) for t in texts])
    return {s.name: s for s in specs}


def _warm_up(engines: dict[str, EngineSpec]) -> None:
    """Fill the numba cache once so no game pays compile time (what the other commands do too)."""
    if not any(s.kind == "builtin" and s.argv[4:5] not in (("greedy",), ("random",)) for s in engines.values()):
        return
    print("warming up built-in engines (gomocup-bot warmup; slow only the first time) ...", file=sys.stderr, flush=True)
    try:
        subprocess.run([sys.executable, "-m", "gomocup_bot", "warmup"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=900, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"warning: warmup failed ({exc}); first moves may be slow", file=sys.stderr)


async def _serve(settings: WebSettings, host: str, port: int, log_level: str = "warning") -> None:
    config = Config()
    config.loglevel = log_level.upper()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.websocket_max_message_size = 64 * 1024
    config.graceful_timeout = 3.0
    config.accesslog = None
    app = build_app(settings)

    async def shutdown_trigger() -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                return

    async with trio.open_nursery() as nursery:
        binds = await nursery.start(lambda task_status: serve(app, config, shutdown_trigger=shutdown_trigger, task_status=task_status))
        url = binds[0] + "/"
        if settings.token is not None:
            url += f"?token={settings.token}"
        engines = ", ".join(settings.engines)
        print(f"web board on {url}  (engines: {engines}; Ctrl-C stops)", flush=True)


def run(args: argparse.Namespace) -> int:
    """`gomocup-tournament web`: parse, check, serve until SIGINT/SIGTERM."""
    logging.basicConfig(level=getattr(logging, str(args.log_level).upper(), logging.WARNING), stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        engines = engines_from(list(args.engines))
    except EngineSpecError as exc:
        print(f"gomocup-tournament web: {exc}", file=sys.stderr)
        return 2
    if not engines:
        print("gomocup-tournament web: no engines (no built-ins installed and none named)", file=sys.stderr)
        return 2
    dbs = []
    for name in args.db:
        path = Path(name)
        if not path.is_file():
            print(f"gomocup-tournament web: no database at {name}", file=sys.stderr)
            return 2
        dbs.append(path)
    if not 0 <= args.port < 65536:
        print("gomocup-tournament web: --port must be 0..65535", file=sys.stderr)
        return 2
    if args.max_games < 1 or not math.isfinite(args.idle_minutes) or args.idle_minutes <= 0 or args.tolerance < 0:
        print("gomocup-tournament web: --max-games, --idle-minutes must be positive and --tolerance not negative", file=sys.stderr)
        return 2
    loopback = is_loopback(args.host)
    token = args.token
    if token is not None and not token.strip():
        print("gomocup-tournament web: --token must not be empty", file=sys.stderr)
        return 2
    if token is None and not loopback:
        token = secrets.token_urlsafe(18)
    settings = WebSettings(
        engines=engines, dbs=dbs, token=token, loopback_only=loopback, max_games=args.max_games,
        idle_seconds=args.idle_minutes * 60, tolerance_ms=int(round(args.tolerance * 1000)), start_timeout=args.start_timeout,
    )
    if not args.no_warmup:
        _warm_up(engines)
    try:
        trio.run(_serve, settings, args.host, args.port, str(args.log_level))
    except OSError as exc:
        print(f"gomocup-tournament web: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    return 0
