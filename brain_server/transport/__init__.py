"""Transports at the edge: gRPC (grpcio) and Connect JSON over HTTP/1.1, one core behind both."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
import re

from google.protobuf.message import Message

from brain_server.service import BrainCore
from npc_brain.v1 import brain_pb2

SERVICE = brain_pb2.DESCRIPTOR.services_by_name["BrainService"]
SERVICE_NAME = SERVICE.full_name
CoreMethod = Callable[[Message], Awaitable[Message]]


def snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def core_methods(core: BrainCore, mind: asyncio.AbstractEventLoop | None = None) -> Iterator[tuple[str, CoreMethod]]:
    """(RPC name, core coroutine) for every RPC the proto declares, so no transport can miss one;
    each timed by the core's vitals; when the transport has a loop of its own (`mind`: the
    mind's loop, transport/edge_loop.py), each runs where the core's threading policy says
    (`foreground.Home`)."""
    for method in SERVICE.methods:
        timed = core.vitals.timed(method.name, getattr(core, snake_case(method.name)))
        yield method.name, timed if mind is None else core.home.route(method.name, timed)
