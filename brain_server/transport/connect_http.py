"""Connect transport: the Connect protocol's unary JSON (and binary) form over HTTP/1.1, which
Godot's HTTPRequest speaks on desktop and web, and its streaming form for TalkStream (which
Godot's HTTPClient reads as it arrives). Served by connectrpc's generated ASGI app, with
CORS (preflight included) and, optionally, the Godot web build at / on the same origin. In front
of everything, the Host header and a browser's Origin are checked (`security.HttpPolicy`): a web
page the user happens to open cannot call the brain, under its own name or a rebinding one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, MutableMapping
import contextlib
import json
from pathlib import Path
import time
from typing import Any, cast

from connectrpc.code import Code
from connectrpc.codec import Codec
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext
from google.protobuf import json_format
from google.protobuf.message import Message
from starlette.middleware.cors import CORSMiddleware
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
import structlog

from brain_server import __version__
from brain_server.api.pinning import TENANT_HEADER
from brain_server.api.security import LOCAL_ORIGIN, Guard, HttpPolicy, guard_for
from brain_server.api.service import BrainCore
from brain_server.api.tenants import Access, TokenError
from brain_server.model.errors import BrainError, Status
from brain_server.runtime import metrics
from brain_server.runtime.foreground import run_on
from brain_server.transport import (
    SERVICE,
    SERVICE_NAME,
    CoreMethod,
    CoreStream,
    core_methods,
    core_streams,
    proto_json,
    snake_case,
)
from npc_brain.v1.brain_connect import BrainService, BrainServiceASGIApplication

log = structlog.get_logger(__name__)
CODES = {
    Status.INVALID_ARGUMENT: Code.INVALID_ARGUMENT,
    Status.NOT_FOUND: Code.NOT_FOUND,
    Status.ALREADY_EXISTS: Code.ALREADY_EXISTS,
    Status.FAILED_PRECONDITION: Code.FAILED_PRECONDITION,
    Status.RESOURCE_EXHAUSTED: Code.RESOURCE_EXHAUSTED,
    Status.UNAVAILABLE: Code.UNAVAILABLE,
    Status.ABORTED: Code.ABORTED,
}
METHOD_NAMES = frozenset(m.name for m in SERVICE.methods)
GUARD_HTTP_STATUS = {"unauthenticated": 401, "resource_exhausted": 429, "permission_denied": 403,
                     "failed_precondition": 400}
# x-npc-id / x-npc-tenant: Godot's client names the NPC a call is about and its token's tenant, for load
# balancers that pin NPCs or tenants to replicas (a browser's preflight must allow them).
CONNECT_HEADERS = ["content-type", "connect-protocol-version", "connect-timeout-ms", "authorization", "x-npc-id",
                   TENANT_HEADER]
# Cross-origin isolation, which Godot's web runtime wants for SharedArrayBuffer-enabled builds.
ISOLATION_HEADERS = [(b"cross-origin-opener-policy", b"same-origin"), (b"cross-origin-embedder-policy", b"require-corp")]


class CompactJSON(Codec[Message, Message]):
    """Connect's JSON, answered compact. The library's codec pretty-prints (json_format's indent=2),
    which takes json's pure-Python encoder, whose nested functions refer to each other: ~33
    objects in a reference cycle per answer, which only the garbage collector frees, in pauses
    that stop every thread (measured at 1,000 NPCs: 57,000 such objects in one 282 ms collection).
    Compact, the C encoder writes it and leaves nothing behind. Read and written by `proto_json`
    (json_format's JSON, a DecideBatch of 250 in a fifth of its CPU). Unknown fields are refused
    (invalid_argument), so a misspelt field is never silently dropped."""

    def name(self) -> str:
        return "json"

    def encode(self, message: Message) -> bytes:
        return proto_json.encode(message)

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> Message:
        try:
            return proto_json.decode(data, message_class)
        except json_format.ParseError as exc:
            raise json_format.ParseError(proto_json.what_to_send(str(exc), data)) from None


@contextlib.contextmanager
def _answering(name: str, meter: metrics.RpcMeter) -> Iterator[None]:
    """One call answered in the block, its errors turned into Connect errors, and metered."""
    started, code = time.perf_counter(), "ok"
    try:
        yield
    except BrainError as exc:
        code = exc.status.value
        raise ConnectError(CODES[exc.status], exc.message) from None
    except asyncio.CancelledError:
        code = "canceled"
        raise
    except Exception:
        code = "internal"
        log.exception("rpc_failed", rpc=name, transport="connect")
        raise ConnectError(Code.INTERNAL, f"{name} failed inside the brain; the server log has details") from None
    finally:
        meter.done(started, code)


def _access(guard: Guard, ctx: RequestContext[Any, Any]) -> Access:
    """Who the call runs for (`_Guarded` let it through; a token that expired since is refused)."""
    try:
        return guard.access_of(ctx.request_headers.get("authorization"))
    except TokenError as exc:
        raise ConnectError(Code.UNAUTHENTICATED, str(exc)) from None


def _adapt(name: str, method: CoreMethod, guard: Guard) -> Callable[[object, Message, RequestContext[Any, Any]],
                                                                    Awaitable[Message]]:
    """An RPC, a method of the service object connectrpc calls by attribute."""
    meter = metrics.RpcMeter("connect", name)

    async def rpc(self: object, request: Message, ctx: RequestContext[Any, Any]) -> Message:
        with _answering(name, meter):
            return await method(request, _access(guard, ctx))

    return rpc


def _adapt_stream(name: str, stream: CoreStream, guard: Guard) -> Callable[
        [object, Message, RequestContext[Any, Any]], AsyncIterator[Message]]:
    """A server-streaming RPC (Connect's streaming protocol: enveloped messages, then the end of
    the stream); the client hanging up cancels the core's work (connectrpc watches for it)."""
    meter = metrics.RpcMeter("connect", name)

    async def rpc(self: object, request: Message, ctx: RequestContext[Any, Any]) -> AsyncIterator[Message]:
        with _answering(name, meter):
            async for message in stream(request, _access(guard, ctx)):
                yield message

    return rpc


def connect_service(core: BrainCore, mind: asyncio.AbstractEventLoop | None = None) -> BrainService:
    """The service object connectrpc calls, one method per RPC: made from the proto's list of
    them (`core_methods`), so it has every method of the generated BrainService."""
    guard = guard_for(core, core.settings)
    methods: dict[str, object] = {snake_case(name): _adapt(name, method, guard) for name, method in core_methods(core, mind)}
    methods |= {snake_case(name): _adapt_stream(name, stream, guard) for name, stream in core_streams(core, mind)}
    return cast(BrainService, type("BrainConnectService", (), methods)())


class _Isolated:
    """Static files with the cross-origin isolation headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_isolated(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *ISOLATION_HEADERS]
            await send(message)

        await self.app(scope, receive, send_isolated)


async def _refuse(scope: Scope, send: Send, code: str, message: str) -> None:
    """A refusal before the RPC, in Connect's error JSON, counted for its method (if it names one)."""
    method = scope.get("path", "").rpartition("/")[2]
    metrics.RPCS.labels("connect", method if method in METHOD_NAMES else "unknown", code).inc()
    log.warning("rpc_refused", path=scope.get("path", "")[:200], transport="connect", code=code,
                peer=(scope.get("client") or ("unknown", 0))[0])
    body = json.dumps({"code": code, "message": message}).encode()
    await send({"type": "http.response.start", "status": GUARD_HTTP_STATUS[code],
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    value = next((v for k, v in scope.get("headers") or () if k == name), None)
    return None if value is None else value.decode("latin-1")


class _Guarded:
    """The token and the per-address rate limit in front of the RPCs, answered in Connect's error JSON."""

    def __init__(self, app: ASGIApp, guard: Guard, page: str | None = None) -> None:
        self.app, self.guard, self.page = app, guard, page

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            peer = (scope.get("client") or ("unknown", 0))[0]
            rpc = self.page or scope.get("path", "").rpartition("/")[2]
            refused = self.guard.check(_header(scope, b"authorization"), peer, rpc,
                                       _header(scope, TENANT_HEADER.encode()))
            if isinstance(refused, tuple):
                await _refuse(scope, send, *refused)
                return
        await self.app(scope, receive, send)


class _HostAndOrigin:
    """Refuses (403) a Host header that does not name this brain, on every path, and a browser's
    call from an origin that may not call it, on the RPCs (preflights included)."""

    def __init__(self, app: ASGIApp, policy: HttpPolicy, rpc_prefix: str) -> None:
        self.app, self.policy, self.rpc_prefix = app, policy, rpc_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = _header(scope, b"host")
            if host is not None and not self.policy.host_allowed(host):  # no Host header: not a browser
                await _refuse(scope, send, "permission_denied", f"Host {host[:100]!r} is not this brain's name: "
                              "add it to NPC_BRAIN_ALLOWED_HOSTS if clients reach the brain by it")
                return
            origin = _header(scope, b"origin")
            if scope.get("path", "").startswith(self.rpc_prefix) and not self.policy.origin_allowed(origin, host):
                assert origin is not None
                await _refuse(scope, send, "permission_denied", f"pages from {origin[:100]!r} may not call the "
                              "brain: add the origin to NPC_BRAIN_CORS_ORIGINS")
                return
        await self.app(scope, receive, send)


async def _answer(send: Send, status: int, content_type: str, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": body})


def _operations(core: BrainCore, mind: asyncio.AbstractEventLoop | None) -> dict[str, ASGIApp]:
    """/healthz (open, as gRPC's health service is) and /metrics (Prometheus text; behind the token,
    which Prometheus sends as `authorization: bearer`; every tenant's figures, so admin only). The core's own series are read on its loop."""
    text = metrics.exposition(core)

    async def exposition() -> bytes:
        return text()

    async def healthz(scope: Scope, receive: Receive, send: Send) -> None:
        body = json.dumps({"status": "serving", "version": __version__}).encode()
        await _answer(send, 200, "application/json", body)

    async def metrics_page(scope: Scope, receive: Receive, send: Send) -> None:
        body = await (run_on(mind, exposition()) if mind is not None else exposition())
        await _answer(send, 200, metrics.CONTENT_TYPE_LATEST, body)

    return {"/healthz": healthz, "/metrics": _Guarded(metrics_page, guard_for(core, core.settings), page="metrics")}


def http_app(core: BrainCore, *, web_root: Path | None = None, mind: asyncio.AbstractEventLoop | None = None) -> ASGIApp:
    """The Connect RPCs (run on the `mind`'s loop if given), /healthz, /metrics and the web root's files."""
    settings = core.settings
    codecs = [google_protobuf_binary_codec(), CompactJSON()]
    connect = _Guarded(BrainServiceASGIApplication(connect_service(core, mind), read_max_bytes=settings.max_request_bytes,
                                                   codecs=codecs), guard_for(core, settings))
    static = _Isolated(StaticFiles(directory=web_root, html=True)) if web_root else None
    prefix = f"/{SERVICE_NAME}/"
    operations = _operations(core, mind)

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if path in operations and scope.get("method") in ("GET", "HEAD"):
            await operations[path](scope, receive, send)
        elif static is None or path.startswith(prefix):
            await connect(scope, receive, send)
        else:
            await static(scope, receive, send)

    policy = HttpPolicy(settings)
    cors = CORSMiddleware(route, allow_origins=sorted(policy.origins),
                          allow_origin_regex=LOCAL_ORIGIN.pattern if policy.local_origins else None,
                          allow_methods=["POST", "GET", "OPTIONS"], allow_headers=CONNECT_HEADERS, max_age=3600)
    return _HostAndOrigin(cors, policy, prefix)
