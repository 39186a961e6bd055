"""Untrusted callers, access (issue 14): a token is set or it is not, wrong tokens are rate limited
whatever the request limit says, and over HTTP only this brain's own names (Host) and allowed pages
(Origin) get through: a web page the user happens to open cannot call the brain on 127.0.0.1,
under its own name or a name that rebinds to it."""

from __future__ import annotations

import json

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
import pytest

from brain_server.api.security import AUTH_FAILURE_BURST
from npc_brain.v1 import brain_pb2 as pb
from tests.clients import Clients
from tests.conftest import BrainProcess
from tests.town import WORLD, world_json

TOKEN = "tok-7f3a9c1e5b2d4e6f"


@pytest.mark.parametrize(("token", "host", "says"), [
    ("", "0.0.0.0", "empty"),  # used to start with every RPC open
    ("", "127.0.0.1", "empty"),
    ("short-token", "127.0.0.1", "11 characters"),
    ("a token with spaces 0123456789", "127.0.0.1", "spaces"),
])
def test_an_unusable_token_stops_the_brain_with_one_line(tmp_path, token: str, host: str, says: str) -> None:
    brain = BrainProcess({"llm_base_url": "http://127.0.0.1:9/v1", "data_dir": tmp_path, "auth_token": token,
                          "host": host})
    with pytest.raises(RuntimeError, match="did not start"):
        brain.start(timeout_s=60)
    last = brain.output[-1]
    assert last.startswith("npc-brain: NPC_BRAIN_AUTH_TOKEN is set but unusable") and says in last, brain.output
    assert token not in last or not token


def test_wrong_tokens_are_rate_limited_even_with_the_request_limit_off(brain_factory) -> None:
    brain = brain_factory(auth_token=TOKEN, rate_limit_per_s=0)
    clients = Clients(brain)
    right, wrong = {"Authorization": f"Bearer {TOKEN}"}, {"Authorization": "Bearer guess-0000000000000"}
    assert clients.connect("GetUsage", {}, **right).status_code == 200
    answers = [clients.connect("GetUsage", {}, **wrong).status_code for _ in range(AUTH_FAILURE_BURST)]
    assert answers == [401] * AUTH_FAILURE_BURST
    # Out of wrong guesses: refused whatever it sends, so a right guess cannot be told from a wrong one.
    for headers in (wrong, right):
        refused = clients.connect("GetUsage", {}, **headers)
        assert refused.status_code == 429 and refused.json()["code"] == "resource_exhausted", refused.text
        assert "wrong tokens" in refused.json()["message"]
    with pytest.raises(grpc.RpcError) as info:  # the same address over gRPC
        clients.stub.GetUsage(pb.GetUsageRequest(), metadata=(("authorization", f"Bearer {TOKEN}"),),
                              timeout=10)
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    health = health_pb2_grpc.HealthStub(clients.channel).Check(health_pb2.HealthCheckRequest(service=""))
    assert health.status == health_pb2.HealthCheckResponse.SERVING  # probes stay open
    clients.close()


def _call(clients: Clients, headers: dict[str, str], method: str = "GetUsage", body: dict | None = None):  # noqa: ANN202
    return clients.connect(method, body or {}, **headers)


def test_only_local_pages_and_the_brains_own_page_may_call_by_default(brain_factory) -> None:
    brain = brain_factory()
    clients = Clients(brain)
    own = brain.http_url  # http://127.0.0.1:PORT: the Godot web build served by the brain itself
    for origin in (own, "http://localhost:8060", "http://127.0.0.1:8000", "http://[::1]:9000", "https://localhost"):
        answer = _call(clients, {"Origin": origin})
        assert answer.status_code == 200, (origin, answer.text)
    for origin in ("http://localhost:8060", "http://127.0.0.1:8000"):  # tools/godot_web.py serve, another port
        assert _call(clients, {"Origin": origin}).headers["access-control-allow-origin"] == origin
    for origin in ("https://evil.example", "http://localhost.evil.example", "null", "http://127.0.0.1.evil.example:80"):
        refused = _call(clients, {"Origin": origin}, "RegisterWorld", world_json())
        assert refused.status_code == 403 and refused.json()["code"] == "permission_denied", (origin, refused.text)
        assert "NPC_BRAIN_CORS_ORIGINS" in refused.json()["message"]
        preflight = clients.http.options("/npc_brain.v1.BrainService/RegisterWorld", headers={
            "Origin": origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"})
        assert preflight.status_code >= 400 and "access-control-allow-origin" not in preflight.headers
    # The refused RegisterWorld did nothing.
    spawn = clients.connect("SpawnNpc", {"npcId": "x", "worldName": WORLD, "persona": {"name": "X"}})
    assert spawn.json()["code"] == "failed_precondition", spawn.text
    clients.close()


def test_the_configured_origins_replace_the_local_ones_and_an_empty_list_means_none(brain_factory) -> None:
    listed = Clients(brain_factory(cors_origins=json.dumps(["https://game.example"])))
    assert _call(listed, {"Origin": "https://game.example"}).headers["access-control-allow-origin"] == \
        "https://game.example"
    assert _call(listed, {"Origin": "http://localhost:8060"}).status_code == 403
    listed.close()
    brain = brain_factory(cors_origins="[]")
    none = Clients(brain)
    assert _call(none, {"Origin": "http://localhost:8060"}).status_code == 403
    assert _call(none, {"Origin": brain.http_url}).status_code == 200  # the page's own origin still works
    assert _call(none, {}).status_code == 200  # no Origin: not a browser (Godot desktop, curl)
    none.close()
    anyone = Clients(brain_factory(cors_origins='["*"]'))
    assert _call(anyone, {"Origin": "https://anywhere.example"}).status_code == 200
    anyone.close()


def test_the_host_header_must_name_this_brain(brain_factory, tmp_path) -> None:
    web = tmp_path / "web"
    web.mkdir()
    (web / "index.html").write_text("<p>town</p>")
    brain = brain_factory(web_root=web, allowed_hosts='["brain.lan"]')
    clients = Clients(brain)
    port = brain.http_url.rsplit(":", 1)[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", f"brain.lan:{port}", "BRAIN.LAN"):
        assert _call(clients, {"Host": host}).status_code == 200, host
        assert clients.http.get("/", headers={"Host": host}).status_code == 200, host
    for host in (f"rebind.evil.example:{port}", "10.0.0.9", "brain.lan.evil.example", "[::2]:80", "a b"):
        refused = _call(clients, {"Host": host})
        assert refused.status_code == 403 and "NPC_BRAIN_ALLOWED_HOSTS" in refused.json()["message"], host
        assert clients.http.get("/", headers={"Host": host}).status_code == 403, host
    clients.close()
