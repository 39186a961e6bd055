"""What a Decide brings into the NPC: where it stands, its attention, what it sees; then what it
saw stored as perceptions (`perceive.py`: radius, bandwidth, retention; embedding them takes
longer than a Decide may) and who or what is worth a reaction noticed (no LLM call: the reaction
itself is work, `work.py`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from brain_server.cognition.chats import CHAT_COOLDOWN
from brain_server.cognition.locate import learn_places
from brain_server.cognition.memory_stream import MemoryStream, queue_for_rating
from brain_server.cognition.perceive import Attention, PerceivedEvent, attend
from brain_server.cognition.react import is_thing, worth_considering
from brain_server.cognition.reflect import note_importance
from brain_server.cognition.runtime import PendingReaction, Runtimes
from brain_server.cognition.thinking import Thinking
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import Action, NpcState
from brain_server.model.trace import Trace
from brain_server.model.world import World, arena_of, join
from brain_server.persistence.records import Records

REACTION_COOLDOWN = timedelta(minutes=30)  # reconsider the same person at most this often
THING_REACTION_COOLDOWN = timedelta(days=1)  # and a thing in the same state ("the stove is burning")


class Senses:
    """Perception, for the mind's loop."""

    def __init__(self, thinking: Thinking, records: Records, runtimes: Runtimes, stream: MemoryStream,
                 resting: Callable[[NpcState, datetime], bool]) -> None:
        self.thinking = thinking
        self.records = records
        self.runtimes = runtimes
        self.stream = stream
        self.resting = resting  # whether an NPC rests from talk (`Chats.resting`)

    async def update(self, npc: NpcState, now: datetime, address: str, in_view: bool,
                     events: Sequence[PerceivedEvent], trace: Trace, *, check: bool = True) -> list[PerceivedEvent]:
        """What every Decide changes in the NPC's copy: where it stands (`check`: the address is
        not checked yet), its attention, and what it sees; the events in sight."""
        records = self.records
        world = await records.world(npc.world_name)
        if address:
            if check:
                records.index(world).check(address, "address")
            npc.address = address
        self.runtimes.of(npc.npc_id).clock = now
        if npc.in_view != in_view:
            npc.in_view = in_view
            trace.note("attention: " + ("in view: full detail" if in_view else
                                        "out of view: hour blocks, conversations in one call"))
        seen = self._sight(npc, world, events, trace)
        self._rested(npc, now, trace)
        return seen

    def _sight(self, npc: NpcState, world: World, events: Sequence[PerceivedEvent],
               trace: Trace) -> list[PerceivedEvent]:
        """What is in sight (no I/O): who the NPC sees now, and the places it learns: where it stands
        (walked through or arrived at, as Godot reports it) and where the events it sees happen."""
        events = [e for e in events if e.distance <= npc.perception.vision_radius]
        runtime = self.runtimes.of(npc.npc_id)
        runtime.seen = {e.subject for e in events}
        runtime.surroundings = _recorded(world, [e for e in events if is_thing(e.subject)])
        known, home = {arena_of(a) for a in npc.known_addresses}, arena_of(npc.persona.home).rsplit(":", 1)[0]
        unknown = [a for a in (npc.address, *(e.address for e in events)) if a and arena_of(a) not in known
                   and arena_of(a).rsplit(":", 1)[0] != home]  # learn_places walks the world: only if new
        if unknown and (learned := learn_places(npc, world, unknown)):
            trace.note(f"perceive: {learned} new places")
        return events

    async def perceive(self, npc: NpcState, events: Sequence[PerceivedEvent], now: datetime,
                       trace: Trace) -> tuple[list[MemoryNode], list[MemoryNode]]:
        """What is in sight and new is stored with a provisional importance; the stored nodes, and
        those whose rating waits for a batch (the `rate` work)."""
        if not events:
            return [], []
        stream = self.stream
        recent = await asyncio.to_thread(stream.store.latest, npc.npc_id, npc.perception.retention,
                                         MemoryKind.OBSERVATION)
        mine = sum(e.subject == npc.persona.name and e.distance == 0 for e in events)  # its own action
        attention = Attention(npc.perception.attention_bandwidth + mine, npc.perception.retention)
        nodes, skipped = attend(npc.npc_id, events, [n.description for n in recent], now, attention, npc.persona.name)
        stored, unrated = await stream.remember_unrated(npc.npc_id, npc.persona, nodes, trace)
        trace.note(f"perceive: {len(stored)} new events stored, {skipped} already seen")
        return stored, unrated

    def observed(self, npc: NpcState, stored: list[MemoryNode], unrated: list[MemoryNode], now: datetime,
                 trace: Trace, people: dict[str, str]) -> None:
        """Stored perceptions into the NPC: ratings queued, importance counted towards reflection,
        the person most worth a reaction noticed (`people`: the world's names to NPC ids)."""
        unrated = [] if npc.crowd else unrated  # a crowd's perceptions keep their provisional rating
        queue_for_rating(npc, unrated, now)
        waiting = {n.id for n in unrated}
        note_importance(npc, [n for n in stored if n.id not in waiting])
        if unrated:
            trace.note(f"perceive: {len(npc.unrated_ids)} waiting for their importance rating")
        self._notice(npc, stored, now, people)

    async def perceive_later(self, npc_id: str, events: Sequence[PerceivedEvent], now: datetime,
                             trace: Trace) -> None:
        """In the background, what a Decide saw is stored after it answered, each NPC's perceptions
        in the order seen, then merged into the NPC as it is by then; what it noticed starts its thinking."""
        await self.thinking.foreground.quiet()
        records = self.records
        async with self.runtimes.of(npc_id).perceiving:
            npc = await records.npc(npc_id)
            stored, unrated = await self.perceive(npc, events, now, trace)
            if not stored:
                return
            people = await records.people(npc.world_name)
            await records.merge(npc_id, lambda live: self.observed(live, stored, unrated, now, trace, people))
        self.thinking.needs(npc_id)

    def _notice(self, npc: NpcState, observed: list[MemoryNode], now: datetime, people: dict[str, str]) -> None:
        """The person or thing just seen most worth a reaction (no LLM), each person reconsidered
        at most every REACTION_COOLDOWN, not within CHAT_COOLDOWN of talking with them nor while
        they are in a conversation (the paper's code buffers a pair that talked for 800 steps, and
        the one other reaction it weighs for a person, waiting, needs both bound for the same
        object), a thing in a given state once a day. A person seen while the NPC talks, or while it
        or they rest from talk (`Chats.resting`), waits, while in sight, for the talk and the rest to
        end (`_rested`); a sighting taken up so gives way to one just made. Things count in the state
        the world records (set by the game or its user: "the coffee machine is out of order"), not in
        one an action gives them ("the bed is in use": that person's doing, reacted to through them)."""
        runtime = self.runtimes.of(npc.npc_id)
        if npc.is_asleep() or not observed:
            return
        never = datetime.min.replace(tzinfo=now.tzinfo)
        fresh = {n.subject for n in observed
                 if n.subject in people and not self._chatting(people[n.subject], now)
                 and now - npc.last_reaction.get(n.subject, never) >= REACTION_COOLDOWN
                 and now - npc.last_chat.get(people[n.subject], never) >= CHAT_COOLDOWN}
        talking = npc.is_chatting(now) or runtime.talking
        hold = talking or self.resting(npc, now)  # every person seen now waits (`_rested`)
        for node in observed:
            if node.subject in fresh and (hold or self._rests(people[node.subject], now)):
                fresh.discard(node.subject)
                runtime.resting_sightings.setdefault(node.subject, PendingReaction(node, people[node.subject], now,
                                                                                   resumed=True))
        if talking:
            return
        fresh |= {n.subject for n in observed if n.subject in runtime.surroundings
                  and n.object.strip().lower() not in ("", "idle")
                  and now - npc.last_reaction.get(n.description, never) >= THING_REACTION_COOLDOWN}
        observation = worth_considering(observed, npc, fresh)
        if observation is None or (runtime.reaction is not None and not runtime.reaction.resumed):
            return
        thing = is_thing(observation.subject)
        npc.last_reaction[observation.description if thing else observation.subject] = now
        runtime.set_reaction(PendingReaction(observation, "" if thing else people[observation.subject], now))

    def _rested(self, npc: NpcState, now: datetime, trace: Trace) -> None:
        """A person seen while the NPC talked or while it or they rested from talk (`_notice`), still
        in sight once neither talks nor rests, is taken up then, once: a sighting is stored only
        when new, so one who stood there all along was never seen again. blind29, Brinnick out of
        view: the host, who had talked at 10:07, spent her visit to the shop from 11:00 beside its
        untold keeper, and her later free hours went to others; in the stop-102 runs 40-69% of the
        visits that began while the teller rested found nobody to talk with, against 16-35% of the
        others. What is taken up costs a call only to pass on news (`Workshop.react`)."""
        runtime = self.runtimes.of(npc.npc_id)
        held = runtime.resting_sightings
        for subject in [s for s in held if s not in runtime.seen]:  # out of sight: let go
            del held[subject]
        if (not held or runtime.reaction is not None or npc.is_asleep() or npc.is_chatting(now) or runtime.talking
                or self.resting(npc, now)):
            return
        for subject, pending in held.items():
            if not self._rests(pending.partner_id, now) and not self._chatting(pending.partner_id, now):
                del held[subject]
                trace.note(f"perceive: {subject}, seen while resting from talk, is taken up now")
                runtime.set_reaction(replace(pending, seen_at=now))
                return

    def _rests(self, npc_id: str, now: datetime) -> bool:
        """Whether another NPC rests from talk as its record here says (none here: it does not)."""
        other = self.records.current(npc_id)
        return other is not None and self.resting(other, now)

    def _chatting(self, npc_id: str, now: datetime) -> bool:
        """Whether another NPC is in a conversation now as its record here says (none here: it is not)."""
        other = self.records.current(npc_id)
        return other is not None and other.is_chatting(now)


def own_event(before: Action | None, action: Action) -> list[PerceivedEvent]:
    """The NPC's own action as an event it perceives (the original perceives its own each step),
    once per action: [] while the action goes on."""
    if before is not None and before.description == action.description:
        return []
    subject, predicate, obj = action.event
    return [PerceivedEvent(subject=subject, predicate=predicate, object=obj, description=action.description,
                           address=action.address, distance=0.0)]


def _recorded(world: World, things: Sequence[PerceivedEvent]) -> set[str]:
    """The things (object events) seen in the state the world records for them."""
    if not things:
        return set()
    states = {join(world.name, s.name, a.name, o.name): o.state.strip().lower()
              for s in world.sectors for a in s.arenas for o in a.objects if o.state}
    return {e.subject for e in things if states.get(e.subject) == e.object.strip().lower()}
