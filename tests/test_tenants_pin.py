"""Tenants pinned to brain processes by tenant id (api/pinning.py, docs/deployment.md): two real
replicas on loopback, each told its place. Each tenant's calls, routed by the documented hash
(nginx's `hash $http_x_npc_tenant;`) on the `x-npc-tenant` header, land on one replica, where its
NPCs converse and its batches are answered whole; the other replica holds nothing of it. A header
that disagrees with the token is refused (permission_denied), and a tenant sent to the wrong
replica is refused naming the right one (failed_precondition), over both transports. Where nginx
is installed, deploy/nginx.conf itself (its names and listeners made loopback ones, TLS left out)
routes each tenant, over both transports, to the process the brains expect it on."""

from __future__ import annotations

from collections.abc import Iterator
import contextlib
from datetime import timedelta
from pathlib import Path
import re
import shutil
import socket
import subprocess
import time
from urllib.parse import urlsplit

from google.protobuf import json_format
import grpc
import httpx
from pydantic import ValidationError
import pytest
import yaml

from brain_server.api.pinning import TENANT_HEADER, replica_of
from brain_server.api.security import Guard
from brain_server.api.tenants import ADMIN, Access
from brain_server.config import Settings
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from npc_lab.fake_openai import FakeOpenAI
from tests.clients import Clients
from tests.ports import unclaimed_port
from tests.test_day import HOMES, NAMES, persona, world
from tests.test_replicas import CAFE, DAY1
from tests.test_tenants import ADMIN_TOKEN, SECRET, Player, mint
from tests.town import WORLD

# Where the documented hash puts them among 2: crc32(tenant) mod 2, the npc-id rule's hash, would swap them.
PLACES = {"alice": 0, "bob": 1}
NINE = DAY1 + timedelta(hours=1)


def test_the_guard_holds_the_header_to_the_token_and_the_tenant_to_its_replica() -> None:
    assert {tenant: replica_of(tenant, 2) for tenant in PLACES} == PLACES
    first = Guard(Settings(jwt_secret=SECRET, auth_token=ADMIN_TOKEN, replica_count=2, replica_index=0,
                           rate_limit_per_s=0))
    alice, bob, admin = f"Bearer {mint('alice')}", f"Bearer {mint('bob')}", f"Bearer {ADMIN_TOKEN}"
    play = Access("alice", frozenset({"play", "inspect"}))
    assert first.check(alice, "10.0.0.1", "Decide", "alice") == play
    assert first.check(alice, "10.0.0.1", "Decide", None) == play  # no header: the token's tenant is pinned
    code, message = first.check(alice, "10.0.0.1", "Decide", "bob")
    assert code == "permission_denied" and "'bob'" in message and "'alice'" in message
    code, message = first.check(bob, "10.0.0.1", "Decide", "bob")
    assert code == "failed_precondition" and "replica 1 of 2" in message and "replica 0)" in message
    # The admin key has no tenant: its header says which tenant's replica it means, and is pinned alike.
    assert first.check(admin, "10.0.0.1", "SaveWorld", "alice") == ADMIN == first.check(admin, "10.0.0.1", "GetUsage")
    assert first.check(admin, "10.0.0.1", "SaveWorld", "bob")[0] == "failed_precondition"
    # One process: every tenant is its own; the header is still held to the token.
    alone = Guard(Settings(jwt_secret=SECRET, rate_limit_per_s=0))
    assert alone.check(bob, "10.0.0.1", "Decide", "bob") == Access("bob", frozenset({"play", "inspect"}))
    assert alone.check(bob, "10.0.0.1", "Decide", "alice")[0] == "permission_denied"
    with pytest.raises(ValidationError, match="NPC_BRAIN_REPLICA_INDEX=2"):
        Settings(replica_count=2, replica_index=2)


@pytest.fixture
def brains(brain_factory) -> list:
    """Two brains, each told its place among two (background preparation off, as in test_replicas)."""
    return [brain_factory(jwt_secret=SECRET, auth_token=ADMIN_TOKEN, replica_count=2, replica_index=i,
                          prepare_ahead_minutes=0) for i in range(2)]


@pytest.fixture
def replicas(brains: list) -> Iterator[list[Clients]]:
    clients = [Clients(brain) for brain in brains]
    yield clients
    for each in clients:
        each.close()


def routed(replicas: list[Clients], tenant: str) -> Player:
    """A tenant's player as the proxy routes it: by its x-npc-tenant header, to `replica_of` it."""
    return Player(replicas[replica_of(tenant, len(replicas))], mint(tenant), **{TENANT_HEADER: tenant})


def spawn(player: Player, npc_id: str) -> None:
    player.grpc("SpawnNpc", {"worldName": WORLD, "npcId": npc_id, "persona": persona(npc_id),
                             "address": f"{WORLD}:{HOMES[npc_id]}:bedroom"})


def test_a_tenants_town_lives_and_converses_on_its_own_replica(replicas: list[Clients], fake_llm: FakeOpenAI) -> None:
    alice, bob = routed(replicas, "alice"), routed(replicas, "bob")
    for player in (alice, bob):
        player.ok("RegisterWorld", world())
        for npc_id in ("isabella", "klaus"):
            spawn(player, npc_id)
        # A frame's Decides in one batch: one tenant's, so routed whole by its header.
        batch = player.grpc("DecideBatch", {"requests": [{"npcId": n, "gameTime": NINE.isoformat(), "address": CAFE}
                                                         for n in ("isabella", "klaus")]})["results"]
        assert [r["npcId"] for r in batch] == ["isabella", "klaus"] and all(r["response"]["action"] for r in batch)

    fake_llm.queue({"json": {"choice": "talk", "reason": "say hello", "new_activity": ""}}, purpose="react")
    fake_llm.queue({"json": {"utterance": "Morning, Klaus!", "end_conversation": False}},
                   {"json": {"utterance": "Morning, Isabella.", "end_conversation": True}}, purpose="converse_turn")
    seen = [{"subject": NAMES["klaus"], "predicate": "is", "object": "reading", "description": "Klaus is reading",
             "address": CAFE, "distance": 2}]
    started = alice.ok("Decide", {"npcId": "isabella", "gameTime": (NINE + timedelta(minutes=40)).isoformat(),
                                  "address": CAFE, "perceptions": seen})["action"]
    assert started["chattingWith"] == "klaus"
    chats = alice.grpc("ListMemories", {"npcId": "klaus", "kind": "MEMORY_KIND_CHAT"})["memories"]
    assert any("Morning, Isabella." in m["description"] for m in chats)
    partner = alice.grpc("Decide", {"npcId": "klaus", "gameTime": (NINE + timedelta(minutes=41)).isoformat()})
    assert partner["action"]["chattingWith"] == "isabella"

    # Each town is on its tenant's replica alone: the other has decided nothing for it.
    for tenant in PLACES:
        home, other = (Player(replicas[r], ADMIN_TOKEN) for r in (PLACES[tenant], 1 - PLACES[tenant]))
        for npc_id in ("isabella", "klaus"):
            assert home.ok("GetTrace", {"npcId": f"{tenant}.{npc_id}"})["trace"]["npcId"] == f"{tenant}.{npc_id}"
            other.refused("GetTrace", {"npcId": f"{tenant}.{npc_id}"}, "not_found")
    assert not any("Morning" in m["description"] for m in bob.ok("ListMemories", {"npcId": "klaus"})["memories"])


def test_a_wrong_header_or_a_misrouted_tenant_is_refused_over_both_transports(replicas: list[Clients]) -> None:
    decide = {"npcId": "isabella", "gameTime": NINE.isoformat()}
    # Alice's token with Bob's name in the header, sent where that header routes (Bob's replica) or anywhere.
    for replica in replicas:
        message = Player(replica, mint("alice"), **{TENANT_HEADER: "bob"}).refused("Decide", decide, "permission_denied")
        assert "this token is for tenant 'alice'" in message
    # Alice on Bob's replica, with her own header or none: told where she belongs.
    for headers in ({TENANT_HEADER: "alice"}, {}):
        message = Player(replicas[1], mint("alice"), **headers).refused("Decide", decide, "failed_precondition")
        assert "tenant 'alice' is served by replica 0 of 2" in message and TENANT_HEADER in message
    assert routed(replicas, "alice").ok("RegisterWorld", world())["worldName"] == WORLD

NGINX = shutil.which("nginx", path="/usr/sbin:/usr/local/sbin:/usr/bin:/usr/local/bin")
ROOT = Path(__file__).resolve().parent.parent
READY_LIMIT_S = 30.0  # a hang guard for nginx's start, not a measure


def loopback_nginx_conf(brains: list, grpc_port: int, http_port: int) -> str:
    """deploy/nginx.conf as shipped, with the replicas' names and the listeners made loopback ones and
    TLS left out (no certificate here); everything else, the `hash` lines first, as it is."""
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    for index, brain in enumerate(brains):
        text = text.replace(f"server brain-{index}:50051;", f"server {brain.grpc_target};")
        text = text.replace(f"server brain-{index}:8080;", f"server {urlsplit(brain.http_url).netloc};")
    text = text.replace("listen 8443 ssl http2;", f"listen 127.0.0.1:{grpc_port} http2;")
    text = text.replace("listen 443 ssl;", f"listen 127.0.0.1:{http_port};")
    text = re.sub(r"\n\s*ssl_certificate(_key)?\s[^;]*;", "", text)
    assert "server brain-" not in text and " ssl" not in text, text
    return text


@contextlib.contextmanager
def nginx(conf: str, folder: Path, ports: tuple[int, ...]) -> Iterator[None]:
    """nginx in the foreground with `conf`, until it listens on `ports`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nginx.conf").write_text(conf)
    log = folder / "error.log"
    proc = subprocess.Popen([str(NGINX), "-p", str(folder), "-c", str(folder / "nginx.conf"), "-e", str(log),
                             "-g", f"daemon off; pid {folder / 'nginx.pid'};"])
    try:
        deadline = time.monotonic() + READY_LIMIT_S
        for port in ports:
            while True:
                assert proc.poll() is None, log.read_text() if log.exists() else "nginx exited"
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
                if time.monotonic() > deadline:  # a hang guard, not a check: nginx that never listens
                    pytest.fail(f"nginx did not listen on {port} in {READY_LIMIT_S} s: {log.read_text() if log.exists() else ''}")
                time.sleep(0.05)
        yield
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed (apt-get install nginx-light)")
def test_the_shipped_nginx_configuration_routes_each_tenant_where_the_brains_expect(brains: list,
                                                                                     tmp_path: Path) -> None:
    tenants = [f"t{n}" for n in range(8)]
    assert {replica_of(t, 2) for t in tenants} == {0, 1}  # both processes have tenants
    grpc_port, http_port = unclaimed_port(), unclaimed_port()
    with nginx(loopback_nginx_conf(brains, grpc_port, http_port), tmp_path / "nginx", (grpc_port, http_port)), \
            grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel, \
            httpx.Client(base_url=f"http://127.0.0.1:{http_port}", timeout=60) as http:
        stub = brain_pb2_grpc.BrainServiceStub(channel)
        for tenant in tenants:  # each call would be refused (failed_precondition) on the other process
            headers = {"authorization": f"Bearer {mint(tenant)}", TENANT_HEADER: tenant}
            registered = stub.RegisterWorld(json_format.ParseDict(world(), pb.RegisterWorldRequest()), timeout=60,
                                            metadata=tuple(headers.items()))
            assert registered.world_name == WORLD
            answer = http.post("/npc_brain.v1.BrainService/ListSaves", json={"worldName": WORLD}, headers=headers)
            assert answer.status_code == 200, answer.text
        misrouted = http.post("/npc_brain.v1.BrainService/ListSaves", json={"worldName": WORLD},
                              headers={"authorization": f"Bearer {mint('t0')}", TENANT_HEADER: "t1"})
        assert misrouted.json()["code"] == "permission_denied"  # a header that is not the token's, wherever it goes


def test_the_shipped_proxy_configurations_hash_on_the_tenant_header() -> None:
    """What is checked without the proxies: every route of deploy/envoy.yaml hashes on the header the
    brain reads, and both its clusters place the replicas on the ring by the same keys (so gRPC and
    Connect reach one process); deploy/nginx.conf's two upstreams use the plain hash the brains check
    (not `consistent`) over the same replicas in the same order."""
    envoy = yaml.safe_load((ROOT / "deploy" / "envoy.yaml").read_text())["static_resources"]
    [listener] = envoy["listeners"]
    routes = listener["filter_chains"][0]["filters"][0]["typed_config"]["route_config"]["virtual_hosts"][0]["routes"]
    assert [r["route"]["hash_policy"] for r in routes] == [[{"header": {"header_name": TENANT_HEADER}}]] * 2
    keys = {c["name"]: [e["metadata"]["filter_metadata"]["envoy.lb"]["hash_key"]
                        for e in c["load_assignment"]["endpoints"][0]["lb_endpoints"]] for c in envoy["clusters"]}
    assert keys == {"brain_grpc": ["brain-0", "brain-1"], "brain_connect": ["brain-0", "brain-1"]}
    assert [r["route"]["cluster"] for r in routes] == ["brain_grpc", "brain_connect"]
    upstreams = re.findall(r"upstream (\w+) \{(.*?)\}", (ROOT / "deploy" / "nginx.conf").read_text(), re.S)
    assert [name for name, _ in upstreams] == ["brain_grpc", "brain_connect"]
    for _, body in upstreams:
        assert re.findall(r"^\s*hash (\S+);", body, re.M) == [f"$http_{TENANT_HEADER.replace('-', '_')}"]
        assert re.findall(r"server (brain-\d+):", body) == ["brain-0", "brain-1"]
