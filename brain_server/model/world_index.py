"""A world's lookups, built once per world version: a pure value a Decide reads from any thread."""

from __future__ import annotations

from brain_server.model.errors import invalid
from brain_server.model.npc import Action
from brain_server.model.validation import shown
from brain_server.model.world import World, arena_of, join


class WorldIndex:
    """What every Decide looks up in a world (valid addresses, object names by arena), built once
    per world version instead of walking the tree per call."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.addresses = frozenset(world.addresses())
        self.objects = {join(world.name, s.name, a.name): [o.name for o in a.objects]
                        for s in world.sectors for a in s.arenas}

    def check(self, address: str, name: str) -> None:
        if address not in self.addresses:
            raise invalid(f"{name} {shown(address, 200)} is not in world {self.world.name!r}; use "
                          f"world:sector:arena[:object] as registered, e.g. {min(self.addresses)!r}")

    def placed(self, action: Action, *instead: str) -> tuple[Action, str]:
        """The action at places the world has, and what was moved ("" when nothing): a plan made
        before the game renamed or removed a place and registered the world again still names it.
        Its object's arena if the world has it, else the first of `instead` it has (home, then
        where the NPC is); an object state or a verb on a place it lacks is dropped."""
        if action.address in self.addresses or not action.address:
            return action, ""
        to = next((a for a in (arena_of(action.address), *instead) if a in self.addresses), None)
        if to is None:
            return action, ""
        verb = action.verb if action.verb is None or action.verb.target in self.addresses else None
        states = [s for s in action.object_states if s.address in self.addresses]
        moved = action.model_copy(update={"address": to, "verb": verb, "object_states": states})
        return moved, f"world {self.world.name!r} no longer has {action.address!r}: the action goes to {to!r}"
