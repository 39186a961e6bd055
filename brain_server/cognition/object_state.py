"""Object states (the paper's object events, "bed is occupied"). What an object turns into while
an NPC uses it comes with the plan's 5-15 minute steps (cognition/plan.py, no extra LLM call);
this is the pure update that records a state the user sets in the world tree."""

from __future__ import annotations

from brain_server.model.world import SEPARATOR, World


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
