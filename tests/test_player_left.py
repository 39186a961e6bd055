"""A player who walks off mid-conversation (issue 45): the conversation ends once the player has
been silent NPC_BRAIN_PLAYER_TALK_IDLE_S and is remembered, with what was agreed, without anyone
talking again. Before, a left conversation ended only at the next Talk to some NPC, so a meal
agreed with an NPC the player then walked away from never became its plan. A real brain over
gRPC, the fake endpoint."""

from __future__ import annotations

from tests.clients import Clients
from tests.town import spawn_json, world_json
from tests.waits import wait_until

NOW = "2026-02-13T09:00:00Z"


def test_a_conversation_the_player_walked_away_from_is_remembered_without_another_talk(brain_factory,
                                                                                       fake_llm) -> None:
    clients = Clients(brain_factory(player_talk_idle_s=1.0, prepare_ahead_minutes=0))
    clients.grpc("RegisterWorld", world_json())
    clients.grpc("SpawnNpc", spawn_json())
    fake_llm.queue({"json": {"utterance": "Lunch at noon? Gladly.", "end_conversation": False}},
                   purpose="converse_turn")
    answer = clients.grpc("Talk", {"npcId": "isabella", "gameTime": NOW, "speakerName": "Wanderer",
                                   "text": "Shall we have lunch together at noon?"})
    assert answer["reply"] == "Lunch at noon? Gladly." and not answer.get("endConversation")

    def remembered() -> list[str]:
        listed = clients.grpc("ListMemories", {"npcId": "isabella", "kind": "MEMORY_KIND_CHAT", "limit": 100})
        return [m["description"] for m in listed.get("memories", []) if m["description"].startswith(
            "conversation with Wanderer:")]

    [chat] = wait_until(remembered, what="the left conversation remembered (a hang guard)", limit_s=120)
    assert "Lunch at noon? Gladly." in chat
    clients.close()
