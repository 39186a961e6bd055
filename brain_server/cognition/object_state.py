"""Object states (the paper's object events, "bed is occupied"): what an object an NPC uses turns
into while the action lasts, and the pure update that records it in the world tree."""

from __future__ import annotations

import re

from brain_server.llm.client import LLM
from brain_server.npc import NpcState, ObjectState
from brain_server.prompts.object_state import PROMPT as OBJECT_STATE
from brain_server.prompts.object_state import ObjectStateAnswer
from brain_server.trace import Trace
from brain_server.world import SEPARATOR, World

IN_USE = "in use"


async def object_state_change(
    npc: NpcState, activity: str, address: str, llm: LLM, trace: Trace | None
) -> ObjectState | None:
    """The state of the object at `address` while the NPC does `activity`; None (and no LLM call)
    when the address is an arena, since only objects have states."""
    parts = address.split(SEPARATOR)
    if len(parts) != 4:
        return None
    _, _, arena, name = parts
    answer = await llm.complete(
        OBJECT_STATE,
        {"npc_name": npc.persona.name, "activity": activity, "object": name, "arena": arena},
        npc_id=npc.npc_id,
        fallback=lambda: ObjectStateAnswer(state=IN_USE),
        trace=trace,
    )
    return ObjectState(address=address, state=_bare_state(answer.state, name) or IN_USE)


def set_object_state(world: World, address: str, state: str) -> World:
    """A new World with the object's state replaced; `world` is left untouched (untouched branches
    are shared, so an update costs the path to the object, not a copy of every tile).
    Raises ValueError if `address` is not `world:sector:arena:object` of this world."""
    parts = address.split(SEPARATOR)
    if len(parts) == 4 and parts[0] == world.name:
        _, sector_name, arena_name, object_name = parts
        for s, sector in enumerate(world.sectors):
            for a, arena in enumerate(sector.arenas if sector.name == sector_name else []):
                for o, obj in enumerate(arena.objects if arena.name == arena_name else []):
                    if obj.name == object_name:
                        objects = [*arena.objects[:o], obj.model_copy(update={"state": state}), *arena.objects[o + 1:]]
                        arenas = [*sector.arenas[:a], arena.model_copy(update={"objects": objects}),
                                  *sector.arenas[a + 1:]]
                        sectors = [*world.sectors[:s], sector.model_copy(update={"arenas": arenas}),
                                   *world.sectors[s + 1:]]
                        return world.model_copy(update={"sectors": sectors})
    example = next(iter(world.object_addresses()), f"{world.name}:sector:arena:object")
    raise ValueError(f"{address!r} is not an object of world {world.name!r}: object addresses read "
                     f"world:sector:arena:object as registered, e.g. {example!r}")


def _bare_state(text: str, name: str) -> str:
    """The state alone, when a model answers with a sentence ("the coffee machine is brewing coffee.")."""
    text = re.sub(rf"^(the\s+)?{re.escape(name)}\s+(is|are)\s+", "", text.strip(), flags=re.IGNORECASE)
    return text.rstrip(" .")
