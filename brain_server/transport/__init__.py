"""Transports at the edge: gRPC (grpcio) and Connect JSON over HTTP/1.1, one core behind both."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
import functools
import re
from typing import Any

from google.protobuf.message import Message

from brain_server.api import tenants
from brain_server.api.service import BrainCore
from npc_brain.v1 import brain_pb2

SERVICE = brain_pb2.DESCRIPTOR.services_by_name["BrainService"]
SERVICE_NAME = SERVICE.full_name
CoreMethod = Callable[[Message, tenants.Access], Awaitable[Message]]  # run for the caller's tenant
CoreStream = Callable[[Message, tenants.Access], AsyncIterator[Message]]
STREAMS = frozenset(m.name for m in SERVICE.methods if m.server_streaming)


def snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def core_methods(core: BrainCore, mind: asyncio.AbstractEventLoop | None = None) -> Iterator[tuple[str, CoreMethod]]:
    """(RPC name, core coroutine) for every RPC the proto declares, so no transport can miss one;
    each timed by the core's vitals and run for the caller's tenant (tenants.py); when the transport has a loop of its own (`mind`: the
    mind's loop, transport/edge_loop.py), each runs where the core's threading policy says
    (`foreground.Home`)."""
    for method in SERVICE.methods:
        if method.name not in STREAMS:
            placed = _placed(core, method.name, getattr(core, snake_case(method.name)), mind)
            yield method.name, tenants.namespaced(method.name, placed, core.missing_trace, core.towns)


def core_streams(core: BrainCore, mind: asyncio.AbstractEventLoop | None = None) -> Iterator[tuple[str, CoreStream]]:
    """(RPC name, async iterator of its messages) for every server-streaming RPC. The core method
    takes the request and `send` (any thread may call it), and returns the last message; the
    messages sent meanwhile are each the whole of what there is so far (a line as far as it is
    written), so only the latest unsent one is kept: a slow reader skips, never queues. Closing
    the iterator (the caller gone) cancels the core method, on whichever loop it runs."""
    for name in sorted(STREAMS):
        yield name, tenants.namespaced_stream(functools.partial(_streamed, core, name, getattr(core, snake_case(name)),
                                                                mind), core.towns)


def _placed(core: BrainCore, name: str, method: Callable[[Message], Awaitable[Message]],
            mind: asyncio.AbstractEventLoop | None) -> Callable[[Message], Awaitable[Message]]:
    timed = core.vitals.timed(name, method)
    return timed if mind is None else core.home.route(name, timed)


async def _streamed(core: BrainCore, name: str, method: Callable[..., Awaitable[Message]],
                    mind: asyncio.AbstractEventLoop | None, request: Message) -> AsyncIterator[Message]:
    loop, ready = asyncio.get_running_loop(), asyncio.Event()
    latest: list[Message] = []

    def put(message: Message) -> None:
        latest[:] = [message]
        ready.set()

    def send(message: Message) -> None:
        if asyncio.get_running_loop() is loop:
            put(message)
        else:
            loop.call_soon_threadsafe(put, message)

    call = asyncio.ensure_future(_placed(core, name, functools.partial(method, send=send), mind)(request))
    waiter: asyncio.Future[Any] | None = None
    try:
        while not call.done():
            waiter = asyncio.ensure_future(ready.wait())
            await asyncio.wait((call, waiter), return_when=asyncio.FIRST_COMPLETED)
            if latest and not call.done():
                ready.clear()
                yield latest.pop()
        yield call.result()
    finally:
        for future in (call, waiter):
            if future is not None:
                future.cancel()
