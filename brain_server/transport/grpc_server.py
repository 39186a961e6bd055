"""gRPC transport (grpcio aio) with server reflection and the standard health service, so
grpcurl, Postman and buf curl work out of the box."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
import contextlib
import time
from typing import Any, TypeAlias

from google.protobuf.message import DecodeError, Message
import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
import structlog

from brain_server.api.pinning import TENANT_HEADER
from brain_server.api.security import Guard, check_bind, grpc_peer_host, guard_for
from brain_server.api.service import BrainCore
from brain_server.api.tenants import Access
from brain_server.model.errors import BrainError, Status
from brain_server.runtime import metrics
from brain_server.transport import SERVICE, SERVICE_NAME, CoreMethod, CoreStream, core_methods, core_streams
from npc_brain.v1 import brain_pb2

log = structlog.get_logger(__name__)
Context: TypeAlias = grpc.aio.ServicerContext
CODES = {
    Status.INVALID_ARGUMENT: grpc.StatusCode.INVALID_ARGUMENT,
    Status.NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    Status.ALREADY_EXISTS: grpc.StatusCode.ALREADY_EXISTS,
    Status.FAILED_PRECONDITION: grpc.StatusCode.FAILED_PRECONDITION,
    Status.RESOURCE_EXHAUSTED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    Status.UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    Status.ABORTED: grpc.StatusCode.ABORTED,
}
GUARD_CODES = {"unauthenticated": grpc.StatusCode.UNAUTHENTICATED,
               "permission_denied": grpc.StatusCode.PERMISSION_DENIED,
               "failed_precondition": grpc.StatusCode.FAILED_PRECONDITION,
               "resource_exhausted": grpc.StatusCode.RESOURCE_EXHAUSTED}


class _Undecodable:
    """A request body that is not the protobuf it should be: answered invalid_argument, not unknown."""

    def __init__(self, type_name: str, error: str) -> None:
        self.message = f"the request is not a valid {type_name} protobuf ({error[:200]})"


def _decoder(message_type: type[Message]) -> Callable[[bytes], Message | _Undecodable]:
    def decode(data: bytes) -> Message | _Undecodable:
        try:
            return message_type.FromString(data)
        except (DecodeError, ValueError, RuntimeError) as exc:
            return _Undecodable(message_type.DESCRIPTOR.full_name, str(exc))

    return decode


def _refusal(name: str, guard: Guard, request: object,
             context: grpc.aio.ServicerContext) -> tuple[str, grpc.StatusCode, str] | Access:
    """(metric code, status, message) for a call without the token, outside its scope, over the
    rate limit, for another tenant or replica (`x-npc-tenant`), or with an undecodable request; else
    who the call runs for."""
    metadata = dict(context.invocation_metadata() or ())
    refused = guard.check(metadata.get("authorization"), grpc_peer_host(context.peer()), name,
                          metadata.get(TENANT_HEADER))
    if isinstance(refused, tuple):
        log.warning("rpc_refused", rpc=name, transport="grpc", code=refused[0], peer=context.peer())
        return refused[0], GUARD_CODES[refused[0]], refused[1]
    if isinstance(request, _Undecodable):
        return Status.INVALID_ARGUMENT.value, grpc.StatusCode.INVALID_ARGUMENT, request.message
    return refused


@contextlib.asynccontextmanager
async def _answering(name: str, meter: metrics.RpcMeter, guard: Guard, request: object,
                     context: grpc.aio.ServicerContext) -> AsyncIterator[Access]:
    """One call answered in the block (given who it runs for): refused first where it must be,
    its errors turned into gRPC statuses, and metered."""
    started, code = time.perf_counter(), "ok"
    try:
        access = _refusal(name, guard, request, context)
        if not isinstance(access, Access):
            code = access[0]
            await context.abort(access[1], access[2])  # raises: the block is not run
        else:
            try:
                yield access
            except BrainError as exc:
                code = exc.status.value
                await context.abort(CODES[exc.status], exc.message)
            except asyncio.CancelledError:
                code = "canceled"
                raise
            except Exception:
                code = "internal"
                log.exception("rpc_failed", rpc=name, transport="grpc")
                await context.abort(grpc.StatusCode.INTERNAL,
                                    f"{name} failed inside the brain; the server log has details")
    finally:
        meter.done(started, code)


def _adapt(name: str, method: CoreMethod, guard: Guard) -> Callable[[Message, Context], Awaitable[Message | None]]:
    """A unary RPC as grpcio's handler calls it."""
    meter = metrics.RpcMeter("grpc", name)

    async def rpc(request: Message, context: Context) -> Message | None:
        async with _answering(name, meter, guard, request, context) as access:
            return await method(request, access)
        return None  # aborted (never reached: abort raises)

    rpc.__name__ = name
    return rpc


def _adapt_stream(name: str, stream: CoreStream, guard: Guard) -> Callable[[Message, Context], AsyncIterator[Message]]:
    """A server-streaming RPC; the client cancelling it cancels the core's work."""
    meter = metrics.RpcMeter("grpc", name)

    async def rpc(request: Message, context: Context) -> AsyncIterator[Message]:
        async with _answering(name, meter, guard, request, context) as access:
            async for message in stream(request, access):
                yield message

    rpc.__name__ = name
    return rpc


def handlers(core: BrainCore, mind: asyncio.AbstractEventLoop | None = None) -> grpc.GenericRpcHandler:
    """Every RPC of the service, decoding requests itself so that a corrupt body is invalid_argument;
    each run on the `mind`'s loop if given."""
    guard = guard_for(core, core.settings)
    by_name = {m.name: m for m in SERVICE.methods}
    rpcs: dict[str, grpc.RpcMethodHandler] = {}

    def coding(name: str) -> dict[str, Any]:
        request_type = getattr(brain_pb2, by_name[name].input_type.name)
        response_type = getattr(brain_pb2, by_name[name].output_type.name)
        return {"request_deserializer": _decoder(request_type), "response_serializer": response_type.SerializeToString}

    for name, method in core_methods(core, mind):
        rpcs[name] = grpc.unary_unary_rpc_method_handler(_adapt(name, method, guard), **coding(name))
    for name, stream in core_streams(core, mind):
        rpcs[name] = grpc.unary_stream_rpc_method_handler(_adapt_stream(name, stream, guard), **coding(name))
    return grpc.method_handlers_generic_handler(SERVICE_NAME, rpcs)


async def start(core: BrainCore, host: str, port: int,
                mind: asyncio.AbstractEventLoop | None = None) -> tuple[grpc.aio.Server, int]:
    """A started server on the running loop and the port it listens on (port 0 picks a free one);
    its RPCs run on the `mind`'s loop if given. Health and reflection stay open; BrainService RPCs
    need the token when one is set."""
    check_bind(core.settings.model_copy(update={"host": host}))
    server = grpc.aio.server(options=[("grpc.max_receive_message_length", core.settings.max_request_bytes)])
    server.add_generic_rpc_handlers((handlers(core, mind),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((SERVICE_NAME, reflection.SERVICE_NAME, health.SERVICE_NAME), server)
    bound = server.add_insecure_port(f"{host}:{port}")
    await server.start()
    for service in ("", SERVICE_NAME):
        await health_servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
    return server, bound
