"""The mind's inbox (issue 41): ResetNpc, DeleteNpc and LoadWorld are messages the mind handles on
its loop (`Mind.handle`, cognition/inbox.py), the one place that forgets an NPC, and each waits only
for the work of the NPCs it names."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from tests.clients import Clients
from tests.test_mind import klaus
from tests.town import WORLD, spawn_json, world_json
from tests.waits import wait_until

ROOT = Path(__file__).resolve().parent.parent
HARBOUR = "the Harbour"
NINE = "2026-02-13T09:00:00Z"
SUMMARY = "Sam said goodbye at once."


def harbour(body: dict[str, Any]) -> dict[str, Any]:
    """A body of the Ville's, for a second world of the same shape."""
    moved: dict[str, Any] = json.loads(json.dumps(body).replace(WORLD, HARBOUR))
    return moved


def test_reset_load_and_delete_answer_while_another_npcs_memo_waits_on_the_model(brain_factory, fake_llm) -> None:
    """Klaus's memo of a talk waits 12 s on the model; meanwhile Isabella is reset (gRPC), the
    Harbour loaded from a slot (Connect) and Isabella deleted (gRPC), and each answers before the
    memo lands, which lands after (his work was not cancelled either). Counted in events: what
    had landed when each answered."""
    fake_llm.queue({"json": {"utterance": "Goodbye!", "end_conversation": True}}, purpose="converse_turn")
    fake_llm.queue({"delay_s": 12, "json": {"summary": SUMMARY, "importance": 3, "plan_activity": "",
                                            "plan_start": "", "plan_minutes": 0}}, purpose="conversation_memo")
    clients = Clients(brain_factory(background_thinking=True, prepare_ahead_minutes=0))
    try:
        for world in (world_json(), harbour(world_json())):
            clients.grpc("RegisterWorld", world)
        for npc in (spawn_json(), klaus(), harbour(spawn_json("olivia"))):
            clients.grpc("SpawnNpc", npc)
        clients.grpc("SaveWorld", {"worldName": HARBOUR, "slot": "dawn"})

        def memo_landed() -> bool:
            memories = clients.grpc("ListMemories", {"npcId": "klaus", "limit": 50}).get("memories", [])
            return any(SUMMARY in m["description"] for m in memories)

        clients.grpc("Talk", {"npcId": "klaus", "speakerName": "Sam", "text": "Bye!", "gameTime": NINE})
        wait_until(lambda: fake_llm.chat_requests("conversation_memo"), what="Klaus's memo with the model")
        events: list[str] = []
        clients.grpc("ResetNpc", {"npcId": "isabella"})
        events += [*(["memo"] if memo_landed() else []), "reset"]
        loaded = clients.connect("LoadWorld", {"worldName": HARBOUR, "slot": "dawn"})
        assert loaded.status_code == 200, loaded.text
        events += [*(["memo"] if "memo" not in events and memo_landed() else []), "load"]
        clients.grpc("DeleteNpc", {"npcId": "isabella"})
        events += [*(["memo"] if "memo" not in events and memo_landed() else []), "delete"]
        wait_until(memo_landed, what="Klaus's memo landed", limit_s=90)
        events += [] if "memo" in events else ["memo"]
        assert events == ["reset", "load", "delete", "memo"]
        assert clients.connect("ListMemories", {"npcId": "isabella"}).status_code == 404  # deleted
        clients.grpc("ListMemories", {"npcId": "olivia"})  # loaded: found
    finally:
        clients.close()


def test_only_the_minds_inbox_forgets_an_npcs_records() -> None:
    """`Records.forget` (an NPC's memories and record deleted) and `Records.evict` (a town asleep let
    go from memory) are called in one module, the mind's (`Mind.handle`): before, the service's
    ResetNpc and DeleteNpc, the saves' LoadWorld and the towns' sleep each called one after
    `Mind.forget`, four orders of the same steps."""
    callers = set()
    for path in (ROOT / "brain_server").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("forget", "evict") and isinstance(node.func.value, ast.Attribute) and \
                    node.func.value.attr == "records":
                callers.add(str(path.relative_to(ROOT)))
    assert callers == {"brain_server/cognition/mind.py"}
