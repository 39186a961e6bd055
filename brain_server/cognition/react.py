"""Reacting (paper section 4.3.1): on a new observation, continue the plan, react by re-planning,
or start a conversation. The context is what the NPC remembers, retrieved with the paper's two
queries: its relationship with the observed entity, and that entity's current status."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from brain_server.cognition.memory_stream import MemoryStream, bullet_list
from brain_server.memory import MemoryNode
from brain_server.npc import NpcState
from brain_server.prompts.react import PROMPT as REACT
from brain_server.prompts.react import Reaction
from brain_server.trace import Trace


def worth_considering(nodes: Sequence[MemoryNode], npc: NpcState, people: set[str]) -> MemoryNode | None:
    """The observation most worth a reaction: about another person, most important first."""
    about_people = [n for n in nodes if n.subject in people and n.subject != npc.persona.name]
    return max(about_people, key=lambda n: n.importance, default=None)


async def decide_reaction(npc: NpcState, observation: MemoryNode, now: datetime, can_talk: bool,
                          stream: MemoryStream, trace: Trace) -> Reaction:
    name, subject = npc.persona.name, observation.subject
    memories = []
    for query in (f"{name}'s relationship with {subject}", observation.description):
        memories.extend(await stream.retrieve(npc.npc_id, query, now, trace))
    activity = npc.action.description.removeprefix(f"{name} is ") if npc.action else "going about the day"
    reaction = await stream.llm.complete(
        REACT,
        {"npc_name": name, "persona": npc.persona.summary(), "time": now.strftime("%A %B %d, %H:%M"),
         "current_activity": activity, "place": npc.address, "observation": observation.description,
         "subject": subject, "memories": bullet_list(memories, limit=15),
         "talk_note": "could be approached" if can_talk else "is busy, so talking is not possible now"},
        npc_id=npc.npc_id, trace=trace,
        fallback=lambda: Reaction(choice="continue", reason="keeps to the plan", new_activity=""),
    )
    if reaction.choice == "talk" and not can_talk:
        reaction = reaction.model_copy(update={"choice": "continue"})
    trace.note(f"react: {reaction.choice} to {observation.description!r} ({reaction.reason})")
    return reaction
