"""Access: loopback by default, a bearer token off loopback, per-address rate limits, request size
limits, and no secrets in logs or traces."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from google.protobuf import json_format
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
import pytest

from brain_server.api.security import RateLimiter, grpc_peer_host, is_loopback
from npc_brain.v1 import brain_pb2 as pb
from tests.clients import Clients
from tests.conftest import ROOT
from tests.town import spawn_json, world_json

TOKEN = "tok-7f3a9c1e5b2d4e6f"
API_KEY = "sk-live-0123456789abcdefSECRET"


def test_loopback_and_peers() -> None:
    assert all(map(is_loopback, ["127.0.0.1", "127.8.0.1", "::1", "[::1]", "localhost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "::", "192.168.1.4", "brain.example.com"]))
    assert grpc_peer_host("ipv4:10.0.0.7:5123") == "10.0.0.7" and grpc_peer_host("ipv6:[::1]:80") == "::1"


def test_token_bucket_refills_per_address() -> None:
    bucket = RateLimiter(rate=2, burst=3)
    assert [bucket.allow("a", now=0) for _ in range(4)] == [True, True, True, False]
    assert bucket.allow("b", now=0)  # another address has its own bucket
    assert not bucket.allow("a", now=0.2) and bucket.allow("a", now=0.6)
    assert RateLimiter(rate=0, burst=1).allow("a")  # 0 = no limit


def test_refuses_to_listen_beyond_loopback_without_a_token(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NPC_BRAIN_")}
    env.update({"NPC_BRAIN_LLM_BASE_URL": "http://127.0.0.1:9/v1", "NPC_BRAIN_DATA_DIR": str(tmp_path),
                "NPC_BRAIN_GRPC_PORT": "0", "NPC_BRAIN_HTTP_PORT": "0"})
    done = subprocess.run([sys.executable, "-m", "brain_server.cli", "serve", "--host", "0.0.0.0"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("npc-brain: refusing to listen on 0.0.0.0") and "NPC_BRAIN_AUTH_TOKEN" in last


def test_rpcs_need_the_token_and_no_secret_leaks(brain_factory) -> None:
    brain = brain_factory(auth_token=TOKEN, llm_api_key=API_KEY)
    clients = Clients(brain)
    channel = grpc.insecure_channel(brain.grpc_target)
    bearer = (("authorization", f"Bearer {TOKEN}"),)

    def grpc_call(method: str, body: dict, metadata: tuple = bearer) -> dict:
        request = json_format.ParseDict(body, getattr(pb, f"{method}Request")())
        stub = channel.unary_unary(f"/npc_brain.v1.BrainService/{method}", request_serializer=type(request).SerializeToString,
                                   response_deserializer=getattr(pb, f"{method}Response").FromString)
        return json_format.MessageToDict(stub(request, metadata=metadata, timeout=30))

    for metadata in ((), (("authorization", "Bearer wrong"),), (("authorization", TOKEN),)):
        with pytest.raises(grpc.RpcError) as info:
            grpc_call("GetUsage", {}, metadata)
        assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED and "Bearer" in info.value.details()
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        refused = clients.connect("GetUsage", {}, **headers)
        assert refused.status_code == 401 and refused.json()["code"] == "unauthenticated"
    # Health (and reflection) stay open for load balancers and grpcurl.
    health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""))
    assert health.status == health_pb2.HealthCheckResponse.SERVING

    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert clients.connect("RegisterWorld", world_json(), **auth).status_code == 200
    grpc_call("SpawnNpc", spawn_json())
    decided = grpc_call("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T09:00:00Z"})
    trace = clients.connect("GetTrace", {"traceId": decided["traceId"]}, **auth).json()
    assert trace["trace"]["llmCalls"]
    clients.close()
    channel.close()
    brain.stop()
    output = "\n".join(brain.output)
    assert "rpc_refused" in output  # refusals are logged, without the token
    for secret in (TOKEN, API_KEY, API_KEY[8:]):
        assert secret not in output and secret not in json.dumps(trace)


def test_rate_limit_per_address_on_both_transports(brain_factory) -> None:
    clients = Clients(brain_factory(rate_limit_per_s=0.5, rate_limit_burst=3))
    answers = [clients.connect("GetUsage", {}).status_code for _ in range(3)]
    assert answers == [200, 200, 200]
    refused = clients.connect("GetUsage", {})
    assert refused.status_code == 429 and refused.json()["code"] == "resource_exhausted"
    assert "slow down" in refused.json()["message"]
    with pytest.raises(grpc.RpcError) as info:
        clients.grpc("GetUsage", {})  # same address, same bucket
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    clients.close()


def test_request_size_limit_is_configurable(brain_factory) -> None:
    clients = Clients(brain_factory(max_request_bytes=2048))
    big = {"npcId": "isabella", "gameTime": "2026-02-13T07:00:00Z", "text": "x" * 3000}
    with pytest.raises(grpc.RpcError) as info:
        clients.grpc("Whisper", big)
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    response = clients.connect("Whisper", big)
    assert response.status_code in (413, 429) or response.json()["code"] == "resource_exhausted", response.text
    assert clients.connect("GetUsage", {}).status_code == 200
    clients.close()
