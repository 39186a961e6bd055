"""Untrusted callers, budgets (issue 14): a player who says 4,000 characters eight times neither
makes a prompt longer than NPC_BRAIN_PROMPT_MAX_BYTES nor a memory longer than MEMORY_MAX_BYTES:
the longest parts are cut first (the player's lines, not the NPC's short ones), and the trace
says so."""

from __future__ import annotations

from brain_server.model.budget import CUT_MARK, MEMORY_MAX_BYTES
from tests.clients import Clients
from tests.town import spawn_json, world_json

NOW = "2026-02-13T09:00:00Z"
BUDGET = 24_000


def test_a_long_conversation_fits_the_prompt_and_memory_budgets(brain_factory, fake_llm) -> None:
    clients = Clients(brain_factory(prepare_ahead_minutes=0, prompt_max_bytes=BUDGET))
    clients.grpc("RegisterWorld", world_json())
    clients.grpc("SpawnNpc", spawn_json())
    fake_llm.queue(*[{"json": {"utterance": f"I see, go on ({n}).", "end_conversation": n == 7}} for n in range(8)],
                   purpose="converse_turn")
    speech = ("so anyway what I wanted to say is this " * 120)[:3990]
    for n in range(8):
        answer = clients.grpc("Talk", {"npcId": "isabella", "gameTime": NOW, "text": f"{n}: {speech}",
                                       "speakerName": "Talkative Tom"})
    assert answer.get("endConversation") is True
    prompts = [sum(len(m["content"].encode()) for m in r["body"]["messages"])
               for r in fake_llm.chat_requests("converse_turn")]
    assert max(prompts) <= BUDGET and prompts[-1] > BUDGET // 2, prompts  # the last ones were cut, not emptied
    notes = clients.grpc("GetTrace", {"traceId": answer["traceId"]})["trace"]["notes"]
    assert any(n.startswith("prompt converse_turn:") and "over the 24000-byte budget" in n for n in notes), notes
    assert any(n.startswith("memory: a chat of") for n in notes), notes
    [chat] = clients.grpc("ListMemories", {"npcId": "isabella", "kind": "MEMORY_KIND_CHAT"})["memories"]
    lines = chat["description"].split("\n")
    assert len(chat["description"].encode()) <= MEMORY_MAX_BYTES and len(lines) == 17  # the heading, 16 lines
    assert all(line.startswith('Talkative Tom: "') and line.endswith(CUT_MARK) for line in lines[1::2])
    assert lines[2::2] == [f'Isabella Rodriguez: "I see, go on ({n})."' for n in range(8)]  # short lines kept whole
    clients.close()
