"""Connect transport: the Connect protocol's unary JSON (and binary) form over HTTP/1.1, which
Godot's HTTPRequest speaks on desktop and web. Served by connectrpc's generated ASGI app, with
CORS (preflight included) and, optionally, the Godot web build at / on the same origin."""

from __future__ import annotations

import json
from pathlib import Path

from connectrpc.code import Code
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError
from starlette.middleware.cors import CORSMiddleware
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
import structlog

from brain_server.errors import BrainError, Status
from brain_server.security import Guard, guard_for
from brain_server.service import BrainCore
from brain_server.transport import SERVICE_NAME, CoreMethod, core_methods, snake_case
from npc_brain.v1.brain_connect import BrainServiceASGIApplication

log = structlog.get_logger(__name__)
CODES = {
    Status.INVALID_ARGUMENT: Code.INVALID_ARGUMENT,
    Status.NOT_FOUND: Code.NOT_FOUND,
    Status.ALREADY_EXISTS: Code.ALREADY_EXISTS,
    Status.FAILED_PRECONDITION: Code.FAILED_PRECONDITION,
    Status.RESOURCE_EXHAUSTED: Code.RESOURCE_EXHAUSTED,
    Status.UNAVAILABLE: Code.UNAVAILABLE,
}
GUARD_HTTP_STATUS = {"unauthenticated": 401, "resource_exhausted": 429}
# x-npc-id: Godot's client names the NPC a call is about, for load balancers that pin NPCs to replicas.
CONNECT_HEADERS = ["content-type", "connect-protocol-version", "connect-timeout-ms", "authorization", "x-npc-id"]
# Cross-origin isolation, which Godot's web runtime wants for SharedArrayBuffer-enabled builds.
ISOLATION_HEADERS = [(b"cross-origin-opener-policy", b"same-origin"), (b"cross-origin-embedder-policy", b"require-corp")]


def _adapt(name: str, method: CoreMethod):  # noqa: ANN202 - connectrpc calls it by attribute
    async def rpc(self: object, request: object, ctx: object) -> object:
        try:
            return await method(request)
        except BrainError as exc:
            raise ConnectError(CODES[exc.status], exc.message) from None
        except Exception:
            log.exception("rpc_failed", rpc=name, transport="connect")
            raise ConnectError(Code.INTERNAL, f"{name} failed inside the brain; the server log has details") from None

    return rpc


def connect_service(core: BrainCore) -> object:
    methods = {snake_case(name): _adapt(name, method) for name, method in core_methods(core)}
    return type("BrainConnectService", (), methods)()


class _Isolated:
    """Static files with the cross-origin isolation headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_isolated(message: dict) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *ISOLATION_HEADERS]
            await send(message)

        await self.app(scope, receive, send_isolated)


class _Guarded:
    """The token and the per-address rate limit in front of the RPCs, answered in Connect's error JSON."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app, self.guard = app, guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            peer = (scope.get("client") or ("unknown", 0))[0]
            refused = self.guard.check(headers.get(b"authorization", b"").decode("latin-1"), peer)
            if refused is not None:
                code, message = refused
                log.warning("rpc_refused", path=scope.get("path", ""), transport="connect", code=code, peer=peer)
                body = json.dumps({"code": code, "message": message}).encode()
                await send({"type": "http.response.start", "status": GUARD_HTTP_STATUS[code],
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(core: BrainCore, *, web_root: Path | None = None, cors_origins: list[str] | None = None) -> ASGIApp:
    settings = core.settings
    # Unknown JSON fields are refused (invalid_argument), so a misspelt field is never silently dropped.
    codecs = [google_protobuf_binary_codec(), google_protobuf_json_codec(ignore_unknown_fields=False)]
    connect = _Guarded(BrainServiceASGIApplication(connect_service(core), read_max_bytes=settings.max_request_bytes,
                                                   codecs=codecs), guard_for(core, settings))
    static = _Isolated(StaticFiles(directory=web_root, html=True)) if web_root else None
    prefix = f"/{SERVICE_NAME}/"

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        if static is None or scope.get("path", "").startswith(prefix):
            await connect(scope, receive, send)
        else:
            await static(scope, receive, send)

    return CORSMiddleware(route, allow_origins=cors_origins or ["*"], allow_methods=["POST", "GET", "OPTIONS"],
                          allow_headers=CONNECT_HEADERS, max_age=3600)
