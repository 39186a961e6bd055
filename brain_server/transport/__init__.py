"""Transports at the edge: gRPC (grpcio) and Connect JSON over HTTP/1.1, one core behind both."""

from __future__ import annotations

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


def core_methods(core: BrainCore) -> Iterator[tuple[str, CoreMethod]]:
    """(RPC name, core coroutine) for every RPC the proto declares, so no transport can miss one;
    each timed by the core's vitals."""
    for method in SERVICE.methods:
        yield method.name, core.vitals.timed(method.name, getattr(core, snake_case(method.name)))
