"""The mind's inbox: a Decide to record and the NPCs to forget, as typed messages. Each is handled
on the mind's loop by `Mind.handle`, the one place that records a Decide into its NPC and that ends
an NPC's thinking and deletes its memories and record:

    Decided   a Decide answered (decide.py), recorded into the NPC
    Reset     ResetNpc: its memories, plans and thinking forgotten; persona, perception, place kept
    Delete    DeleteNpc: gone, memories and record; its id and name free again
    Load      LoadWorld: a world's NPCs forgotten and a slot's written in their place
    Evict     a town asleep (api/towns.py): its NPCs' thinking ended and stored, then let go from
              memory (the store keeps them, to wake from)

A message is a value made by whoever asks (the service, a transports' thread): it holds no handle
to the mind. Reset, Delete and Load wait only for the work of the NPCs they name (`Mind.forget`):
another NPC's slow model holds none of them up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from brain_server.cognition.decide import Decided
from brain_server.model.memory import MemoryNode
from brain_server.model.npc import NpcState
from brain_server.model.world import World

Saved = tuple[NpcState, list[MemoryNode], list[list[float]]]  # an NPC of a slot: record, memories, vectors


@dataclass(frozen=True)
class Reset:
    """The NPC as read (`npc`) starts again from `fresh` (api/personas.py: `fresh`, its revision kept)."""

    npc: NpcState
    fresh: NpcState


@dataclass(frozen=True)
class Delete:
    """The NPC as read, forgotten with its record (the caller holds nothing: its world's lock is taken here)."""

    npc: NpcState


@dataclass(frozen=True)
class Load:
    """A slot loaded into `world`: the NPCs in `gone` (the world's now and the slot's, as read)
    forgotten, the `saved` ones written with their memories, then the world; `step` is told each
    step done (the slot's journal, api/saves.py). The caller holds the world's lock."""

    world: World
    gone: Sequence[NpcState]
    saved: Sequence[Saved]
    step: Callable[[str], None]


@dataclass(frozen=True)
class Evict:
    """A town put to sleep, already saved: its NPCs' work ended and what it stored written, then the
    NPCs' and worlds' records let go from memory; `step` is told each step done ("forget", "evict")."""

    npc_ids: Sequence[str]
    worlds: Sequence[str]
    step: Callable[[str], None]


Message = Decided | Reset | Delete | Load | Evict
