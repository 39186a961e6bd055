"""Transports at the edge: gRPC (grpcio) and Connect JSON over HTTP/1.1, one core behind both."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
import re

from google.protobuf.message import Message

from brain_server.foreground import run_on
from brain_server.service import BrainCore
from npc_brain.v1 import brain_pb2

SERVICE = brain_pb2.DESCRIPTOR.services_by_name["BrainService"]
SERVICE_NAME = SERVICE.full_name
CoreMethod = Callable[[Message], Awaitable[Message]]


def snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def core_methods(core: BrainCore, mind: asyncio.AbstractEventLoop | None = None) -> Iterator[tuple[str, CoreMethod]]:
    """(RPC name, core coroutine) for every RPC the proto declares, so no transport can miss one;
    each timed by the core's vitals, and run on the `mind`'s loop when the transport has its own
    (transport/edge_loop.py), except those the core answers on any loop (Decide)."""
    for method in SERVICE.methods:
        timed = core.vitals.timed(method.name, getattr(core, snake_case(method.name)))
        anywhere = mind is None or method.name in core.ANSWERED_ANYWHERE
        yield method.name, timed if anywhere else _on_loop(mind, timed)


def _on_loop(loop: asyncio.AbstractEventLoop, method: CoreMethod) -> CoreMethod:
    """`method` run on `loop` whichever loop awaits it."""

    async def call(request: Message) -> Message:
        return await run_on(loop, method(request))

    return call
