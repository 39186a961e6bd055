"""Tenants: signed tokens a game server mints, and each tenant's worlds, NPCs, slots, traces and
usage out of every other tenant's reach, over both transports (real servers on loopback)."""

from __future__ import annotations

import base64
import json
import struct
import time
from typing import Any

from google.protobuf import json_format
import grpc
import jwt
import pytest

from brain_server.api.security import AUTH_FAILURE_BURST, Guard, InsecureBindError, check_bind
from brain_server.api.tenants import ADMIN, Access, Namespace, TokenError, Tokens
from brain_server.config import Settings
from brain_server.model.errors import BrainError
from npc_brain.v1 import brain_pb2 as pb
from tests.clients import Clients
from tests.town import WORLD, spawn_json, world_json

SECRET = "jwt-secret-for-tests-0123456789abcdef"
ADMIN_TOKEN = "admin-tok-7f3a9c1e5b2d"
T0 = "2026-02-13T09:00:00Z"


def mint(sub: str | None = "alice", scope: str | None = "play inspect", exp: float | None = 600, *,
         key: str = SECRET, **claims: Any) -> str:
    payload = {k: v for k, v in {"sub": sub, "scope": scope, **claims}.items() if v is not None}
    if exp is not None:
        payload["exp"] = int(time.time() + exp)
    return jwt.encode(payload, key, algorithm="HS256")


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def unsigned(sub: str = "alice") -> str:
    """A token with `alg: none` and no signature: what a forger sends."""
    return f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64({'sub': sub, 'scope': 'admin', 'exp': 4102444800})}."


def tampered() -> str:
    """Alice's token with the tenant changed to bob's and the signature kept."""
    header, _, signature = mint().split(".")
    return f"{header}.{_b64({'sub': 'bob', 'scope': 'play inspect', 'exp': int(time.time()) + 600})}.{signature}"


# --- tokens and names, on their own -----------------------------------------------------------

def test_tokens_say_what_to_fix() -> None:
    tokens = Tokens(Settings(jwt_secret=SECRET))
    assert tokens.verify(mint()) == Access("alice", frozenset({"play", "inspect"}))
    assert tokens.verify(mint(sub="ops", scope="admin")) == Access(None, frozenset({"admin"}))
    cases = {mint(exp=-120): ("expired", False), tampered(): ("not one this brain's key signed", True),
             unsigned(): ("alg 'none'", True), mint(key="another-secret-0123456789abcdefgh"): ("not one", True),
             mint(exp=None): ("'exp'", False), mint(sub=None): ("'sub'", False), mint(scope="play write"): ("scope", False),
             mint(sub="a.b"): ("not a tenant id", False), mint(iss="elsewhere"): None}
    for token, expected in cases.items():
        if expected is None:
            continue
        with pytest.raises(TokenError) as info:
            tokens.verify(token)
        assert expected[0] in str(info.value) and info.value.forged is expected[1], token
    with pytest.raises(TokenError, match="NPC_BRAIN_JWT_ISSUER"):
        Tokens(Settings(jwt_secret=SECRET, jwt_issuer="my-game")).verify(mint(iss="elsewhere"))
    assert Tokens(Settings(jwt_secret=SECRET, jwt_issuer="my-game")).verify(mint(iss="my-game")).tenant == "alice"


def test_names_go_in_namespaced_and_come_out_as_sent() -> None:
    space = Namespace("alice")
    sent = json_format.ParseDict(spawn_json(), pb.SpawnNpcRequest())
    inner = space.inward(sent)
    assert sent.npc_id == "isabella"  # the caller's message is left as it was
    assert (inner.npc_id, inner.world_name) == ("alice.isabella", f"alice.{WORLD}")
    assert inner.persona.home.startswith(f"alice.{WORLD}:") and inner.persona.known_areas[0].startswith("alice.")
    assert inner.persona.name == "Isabella Rodriguez"  # a name, not an id: as sent
    world = space.inward(json_format.ParseDict(world_json(), pb.RegisterWorldRequest()))
    assert world.world.name == f"alice.{WORLD}"
    answer = pb.DecideResponse(action=pb.Action(address=f"alice.{WORLD}:Hobbs Cafe:cafe", description="alice. is here"))
    assert space.outward(answer).action.address == f"{WORLD}:Hobbs Cafe:cafe"
    assert answer.action.description == "alice. is here"  # prose that only looks like the prefix stays
    with pytest.raises(BrainError, match="at most 58 characters"):
        space.inward(pb.DecideRequest(npc_id="x" * 60))
    assert ADMIN.allows("ExportWorld") and not Access("a", frozenset({"play"})).allows("GetTrace")


def test_a_short_secret_stops_the_brain_and_a_secret_guards_a_public_bind() -> None:
    with pytest.raises(InsecureBindError, match="NPC_BRAIN_JWT_SECRET .* 12 characters"):
        check_bind(Settings(jwt_secret="short-secret"))
    check_bind(Settings(jwt_secret=SECRET, host="0.0.0.0"))  # tokens are needed: no open public brain
    assert Guard(Settings(jwt_secret=SECRET)).check(None, "10.0.0.1", "Decide")[0] == "unauthenticated"


def test_expired_tokens_do_not_lock_an_address_out_and_forged_ones_do() -> None:
    guard = Guard(Settings(jwt_secret=SECRET, rate_limit_per_s=0))
    for _ in range(3 * AUTH_FAILURE_BURST):  # many players behind one address, each token run out
        assert guard.check(f"Bearer {mint(exp=-120)}", "10.0.0.1", "Decide")[0] == "unauthenticated"
    assert guard.check(f"Bearer {mint()}", "10.0.0.1", "Decide") == Access("alice", frozenset({"play", "inspect"}))
    for _ in range(AUTH_FAILURE_BURST):
        guard.check(f"Bearer {tampered()}", "10.0.0.2", "Decide")
    assert guard.check(f"Bearer {mint()}", "10.0.0.2", "Decide")[0] == "resource_exhausted"


# --- both transports, real servers -------------------------------------------------------------

class Player:
    """One token (and any other headers, e.g. x-npc-tenant), both transports: each call made over gRPC
    and Connect must answer alike."""

    def __init__(self, clients: Clients, token: str, **headers: str) -> None:
        self.clients, self.token = clients, token
        self.headers = {"authorization": f"Bearer {token}", **headers}

    def grpc(self, method: str, body: dict[str, Any]) -> dict[str, Any]:
        request = json_format.ParseDict(body, getattr(pb, f"{method}Request")())
        reply = getattr(self.clients.stub, method)(request, timeout=30, metadata=tuple(self.headers.items()))
        return json_format.MessageToDict(reply)

    def connect(self, method: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        answer = self.clients.connect(method, body, **self.headers)
        return answer.status_code, answer.json()

    def ok(self, method: str, body: dict[str, Any]) -> dict[str, Any]:
        status, answer = self.connect(method, body)
        assert status == 200, answer
        return answer

    def refused(self, method: str, body: dict[str, Any], code: str) -> str:
        """The same refusal over both transports; its message."""
        with pytest.raises(grpc.RpcError) as info:
            self.grpc(method, body)
        assert info.value.code().name.lower() == code, info.value.details()
        status, answer = self.connect(method, body)
        assert answer["code"] == code and status >= 400, answer
        return str(info.value.details())


@pytest.fixture
def town(brain_factory):
    brain = brain_factory(jwt_secret=SECRET, auth_token=ADMIN_TOKEN)
    clients = Clients(brain)
    alice, bob = Player(clients, mint("alice")), Player(clients, mint("bob"))
    for player in (alice, bob):  # the same world and NPC names: each tenant has its own
        assert player.ok("RegisterWorld", world_json())["worldName"] == WORLD
        assert player.ok("SpawnNpc", spawn_json())["npcId"] == "isabella"
    yield clients, alice, bob
    clients.close()


def test_a_tenant_cannot_reach_another_tenants_npcs_slots_traces_or_usage(town) -> None:
    clients, alice, bob = town
    decided = alice.ok("Decide", {"npcId": "isabella", "gameTime": T0})
    assert decided["action"]["address"].startswith(f"{WORLD}:")  # names come back as the game sent them
    alice_trace = decided["traceId"]
    assert alice.grpc("GetTrace", {"traceId": alice_trace})["trace"]["npcId"] == "isabella"
    assert alice.ok("SaveWorld", {"worldName": WORLD, "slot": "slot_1"})["save"]["worldName"] == WORLD
    whispered = alice.ok("Whisper", {"npcId": "isabella", "text": "Alice's secret: the bell is cracked",
                                     "gameTime": T0})
    assert whispered["memoryId"]

    # Bob's own Isabella knows nothing of Alice's; Alice's, by any name Bob may guess, is not there.
    bob_memories = bob.grpc("ListMemories", {"npcId": "isabella", "limit": 100}).get("memories", [])
    assert not any("cracked" in m["description"] for m in bob_memories)
    for guess in ("alice.isabella", "alice..isabella"):
        message = bob.refused("ListMemories", {"npcId": guess}, "not_found")
        assert "alice" not in message.replace(guess, "")
        bob.refused("Decide", {"npcId": guess, "gameTime": T0}, "not_found")
        bob.refused("GetTrace", {"npcId": guess}, "not_found")
    message = bob.refused("GetTrace", {"traceId": alice_trace}, "not_found")
    assert "alice" not in message
    # Alice's world, named by Bob, answers as a world never registered does.
    for world in (f"alice.{WORLD}", "nowhere"):
        assert "not registered" in bob.refused("SpawnNpc", {**spawn_json("x"), "worldName": world}, "failed_precondition")
        bob.refused("SetObjectState", {"worldName": world, "address": f"{world}:Hobbs Cafe:cafe:cafe counter",
                                       "state": "broken"}, "failed_precondition")
    assert bob.grpc("ListSaves", {"worldName": WORLD}) == {}
    bob.refused("LoadWorld", {"worldName": WORLD, "slot": "slot_1"}, "not_found")
    assert bob.ok("DeleteSave", {"worldName": WORLD, "slot": "slot_1"}).get("deleted") is None  # false: not Bob's
    assert [s["slot"] for s in alice.ok("ListSaves", {"worldName": WORLD})["saves"]] == ["slot_1"]

    # A batch answers each of its Decides as its own: Bob's Isabella, and no NPC of that name.
    batch = bob.grpc("DecideBatch", {"requests": [{"npcId": "isabella", "gameTime": T0},
                                                  {"npcId": "alice.isabella", "gameTime": T0}]})["results"]
    assert [r["npcId"] for r in batch] == ["isabella", "alice.isabella"]
    assert batch[0]["response"]["action"] and batch[1]["code"] == "not_found"

    # Usage: each tenant's counters only, under its own names, as the admin key counts them for it;
    # the process-wide figures are not a tenant's.
    admin = Player(clients, ADMIN_TOKEN)
    kept = {}
    for counter in admin.ok("GetUsage", {})["counters"]:
        kept[counter["npcId"]] = kept.get(counter["npcId"], 0) + int(counter.get("calls", 0))
    for name, player in (("alice", alice), ("bob", bob)):
        usage = player.ok("GetUsage", {})
        assert {c["npcId"] for c in usage["counters"]} == {"isabella"}
        assert sum(int(c.get("calls", 0)) for c in usage["counters"]) == kept[f"{name}.isabella"] > 0
        assert "queues" not in usage and "rpcs" not in usage
    assert bob.grpc("GetUsage", {"npcId": "alice.isabella"}).get("counters") is None

    # The admin key sees every tenant's things under their kept names.
    kept = admin.ok("ListMemories", {"npcId": "alice.isabella", "limit": 100})["memories"]
    assert any("cracked" in m["description"] for m in kept)
    assert admin.ok("GetTrace", {"traceId": alice_trace})["trace"]["npcId"] == "alice.isabella"


def test_expired_tampered_and_unsigned_tokens_are_refused(town) -> None:
    clients, alice, _ = town
    for token, says in ((mint(exp=-120), "expired"), (tampered(), "signed"), (unsigned(), "alg 'none'"),
                        (mint(exp=None), "'exp'"), (mint(key="another-secret-0123456789abcdefgh"), "signed")):
        message = Player(clients, token).refused("Decide", {"npcId": "isabella", "gameTime": T0}, "unauthenticated")
        assert says in message, message
    Player(clients, "not-a-token").refused("GetUsage", {}, "unauthenticated")
    assert alice.ok("Decide", {"npcId": "isabella", "gameTime": T0})["action"]


def test_a_tokens_scope_limits_its_rpcs(town) -> None:
    clients, _, _ = town
    play, inspect = Player(clients, mint("alice", "play")), Player(clients, mint("alice", "inspect"))
    assert play.ok("Decide", {"npcId": "isabella", "gameTime": T0})["action"]
    for method, body in (("GetTrace", {"npcId": "isabella"}), ("ListMemories", {"npcId": "isabella"}),
                         ("Whisper", {"npcId": "isabella", "text": "hi", "gameTime": T0}), ("GetUsage", {})):
        assert "'inspect'" in play.refused(method, body, "permission_denied")
    assert inspect.ok("ListMemories", {"npcId": "isabella"})["total"]
    inspect.refused("Decide", {"npcId": "isabella", "gameTime": T0}, "permission_denied")
    inspect.refused("SpawnNpc", spawn_json("other"), "permission_denied")
    assert "'admin'" in play.refused("ExportWorld", {"worldName": WORLD, "slot": "slot_1"}, "permission_denied")
    # Admin scope: saves of any tenant, by their kept names.
    admin = Player(clients, mint("ops", "admin"))
    assert admin.ok("SaveWorld", {"worldName": f"alice.{WORLD}", "slot": "ops_copy"})["save"]["worldName"] \
        == f"alice.{WORLD}"
    assert [s["slot"] for s in Player(clients, mint("alice")).ok("ListSaves", {"worldName": WORLD})["saves"]] \
        == ["ops_copy"]
    metrics = clients.http.get("/metrics", headers={"Authorization": f"Bearer {play.token}"})
    assert metrics.status_code == 403 and metrics.json()["code"] == "permission_denied"
    assert clients.http.get("/metrics", headers={"Authorization": f"Bearer {admin.token}"}).status_code == 200


def _connect_stream(clients: Clients, token: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages of a Connect server stream (the end-of-stream one last)."""
    data = json.dumps(body).encode()
    answer = clients.http.post("/npc_brain.v1.BrainService/TalkStream", content=struct.pack(">BI", 0, len(data)) + data,
                               headers={"Content-Type": "application/connect+json", "Connect-Protocol-Version": "1",
                                        "Authorization": f"Bearer {token}"})
    messages, rest = [], answer.content
    while len(rest) >= 5:
        size = struct.unpack(">I", rest[1:5])[0]
        messages.append(json.loads(rest[5:5 + size]))
        rest = rest[5 + size:]
    return messages


def test_talk_streams_with_the_tenants_own_npc_only(town) -> None:
    clients, alice, bob = town
    talk = {"npcId": "isabella", "speakerName": "Klaus", "text": "Hello! What are you up to?", "gameTime": T0}

    def grpc_stream(player: Player, body: dict[str, Any]) -> list[dict[str, Any]]:
        call = clients.channel.unary_stream("/npc_brain.v1.BrainService/TalkStream",
                                            request_serializer=pb.TalkStreamRequest.SerializeToString,
                                            response_deserializer=pb.TalkStreamResponse.FromString)
        return [json_format.MessageToDict(m) for m in call(json_format.ParseDict(body, pb.TalkStreamRequest()), timeout=30,
                                                            metadata=(("authorization", f"Bearer {player.token}"),))]

    line = grpc_stream(alice, talk)[-1]["line"]
    assert alice.ok("GetTrace", {"traceId": line["traceId"]})["trace"]["npcId"] == "isabella"
    bob.refused("GetTrace", {"traceId": line["traceId"]}, "not_found")
    *_, said, end = _connect_stream(clients, alice.token, talk)
    assert said["line"]["reply"] and end == {}
    with pytest.raises(grpc.RpcError) as info:
        grpc_stream(bob, {**talk, "npcId": "alice.isabella"})
    assert info.value.code() == grpc.StatusCode.NOT_FOUND and "alice.isabella" in str(info.value.details())
    [end] = _connect_stream(clients, bob.token, {**talk, "npcId": "alice.isabella"})
    assert end["error"]["code"] == "not_found"
