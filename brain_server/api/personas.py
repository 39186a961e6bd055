"""What SpawnNpc makes of a persona: a new NPC's first record, and an edited persona as the NPC
would notice it (thoughts of its own); and what a world registered again makes of the verbs its
NPCs declare. The service keeps the RPCs; this keeps the rules."""

from __future__ import annotations

from brain_server.model import validation
from brain_server.model.errors import invalid
from brain_server.model.npc import NpcState, Perception, Persona
from brain_server.model.verbs import Verb, own_verbs
from brain_server.model.world import World, arena_of
from brain_server.model.world_index import WorldIndex
from brain_server.persistence.records import Records

FIELDS = ("name", "age", "traits", "identity", "lifestyle", "currently", "home", "known_areas", "workplace")
EDIT_IMPORTANCE = 6  # a change to who one is, above the everyday (a rating would make SpawnNpc wait for the model)


def check_places(index: WorldIndex, persona: Persona, address: str) -> None:
    """Every place SpawnNpc names is in the world, each mistake named by its field."""
    if not persona.home:
        raise invalid("persona.home is empty: give the address of the NPC's home arena (where it sleeps), "
                      f"e.g. {min(index.addresses)!r}")
    index.check(persona.home, "persona.home")
    for i, known in enumerate(persona.known_areas):
        index.check(known, f"persona.known_areas[{i}]")
    if persona.workplace:
        index.check(persona.workplace, "persona.workplace")
    if address:
        index.check(address, "address")


def fresh(npc_id: str, world: World, persona: Persona, perception: Perception, address: str,
          verbs: list[Verb]) -> NpcState:
    """A new NPC: it knows the areas its persona names, its home and its workplace, or the whole world if
    none are named."""
    known = sorted({arena_of(a) for a in persona.known_areas} | set(persona.own_places())
                   if persona.known_areas else set(world.arena_addresses()))
    return NpcState(npc_id=npc_id, world_name=world.name, persona=persona, perception=perception, address=address,
                    known_addresses=known, verbs=verbs, sent_currently=persona.currently)


def currently(npc: NpcState, sent: str) -> str:
    """The "currently" an NPC spawned again goes on with: the brain's own (it revises it from day 2
    on) while the game sends what it sent before; one unlike that is the developer's edit, and
    replaces it. A record from before the sent one was kept cannot tell, and keeps the brain's."""
    edited = npc.sent_currently is not None and sent != npc.sent_currently
    return sent if edited else npc.persona.currently


def noticed(before: Persona, after: Persona, world: World) -> list[str]:
    """The edit as thoughts of the NPC's own, for the changes it would know of itself."""
    name = after.name
    thoughts = []
    if before.name != after.name:
        thoughts.append(f"{before.name} is now called {name}")
    if before.age != after.age and after.age:
        thoughts.append(f"{name} is now {after.age} years old")
    if before.traits != after.traits and after.traits:
        thoughts.append(f"{name} is now {', '.join(after.traits)}")
    if before.identity != after.identity:
        thoughts.append(f"{name} now: {after.identity}")
    if before.lifestyle != after.lifestyle:
        thoughts.append(f"{name} now lives like this: {after.lifestyle}")
    if before.currently != after.currently and after.currently:
        thoughts.append(f"{name} now: {after.currently}")
    if before.home != after.home:
        thoughts.append(f"{name} now lives at {_within(after.home)} in {world.name}")
    if before.workplace != after.workplace and after.workplace:
        thoughts.append(f"{name} now works at {_within(after.workplace)} in {world.name}")
    return [t[:validation.MAX_TEXT] for t in thoughts]


def _within(address: str) -> str:
    """An address as said inside its world: "Hobbs Cafe, cafe"."""
    return address.split(":", 1)[-1].replace(":", ", ")


async def verbs_to_world(records: Records, world: World) -> None:
    """The world registered again, with NPCs of it spawned: a verb one of them declares as the world
    now does is the world's (dropped from the NPC's record, as SpawnNpc drops it); one declared
    otherwise is refused, naming the NPCs, and nothing changes. The caller holds the world's lock."""
    if not world.verbs:
        return
    npcs = await records.world_npcs(world.name)
    split = [(npc, *own_verbs(world.verbs, npc.verbs)) for npc in npcs]
    clashes = [(npc.npc_id, verb) for npc, _, theirs in split for verb in theirs]
    if clashes:
        validation.no_clash([clashes[0][1]], [npc_id for npc_id, verb in clashes if verb == clashes[0][1]])

    def world_s(live: NpcState) -> None:
        live.verbs = own_verbs(world.verbs, live.verbs)[0]

    for npc, own, _ in split:
        if own != npc.verbs:
            await records.merge(npc.npc_id, world_s)
