"""Both transports as test clients: the same request bodies over gRPC and over Connect JSON."""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import json_format
import grpc
import httpx

from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc

CALL_LIMIT_S = 120  # a hang guard: a flood of calls on a loaded machine answered Talk past 30 s


class Clients:
    """One brain, both transports, same request types."""

    def __init__(self, brain: Any) -> None:
        self.channel = grpc.insecure_channel(brain.grpc_target)
        self.stub = brain_pb2_grpc.BrainServiceStub(self.channel)
        self.http = httpx.Client(base_url=brain.http_url, timeout=CALL_LIMIT_S)

    def grpc(self, method: str, body: dict[str, Any]) -> dict[str, Any]:
        request_type = getattr(pb, f"{method}Request")
        reply = getattr(self.stub, method)(json_format.ParseDict(body, request_type()), timeout=CALL_LIMIT_S)
        return json_format.MessageToDict(reply)

    def connect(self, method: str, body: dict[str, Any] | str, **headers: str) -> httpx.Response:
        content = body if isinstance(body, str) else json.dumps(body)
        return self.http.post(f"/npc_brain.v1.BrainService/{method}", content=content,
                              headers={"Content-Type": "application/json", **headers})

    def close(self) -> None:
        self.channel.close()
        self.http.close()
