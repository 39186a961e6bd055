"""Two NPCs talking (paper section 4.4): whether they may, holding both while the lines are
written, and what the conversation leaves in both (memories, a memo, a plan item it made).

Both NPCs' locks are taken in id order (two conversations cannot deadlock) and only to read and
save their records, never while the model writes; meanwhile both stand "chatting" (their
Decides answer at once) and are marked talking in their runtimes, so nobody else starts a
conversation with either.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from brain_server.cognition.converse import (
    PlanChange,
    Speaker,
    chat_minutes,
    converse,
    keep_conversation,
    remember_conversation,
    summarize_conversation,
)
from brain_server.cognition.locate import choose_address, learn_places
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.reflect import note_importance
from brain_server.cognition.runtime import Runtimes
from brain_server.npc import Action, DialogueLine, NpcState, PlanItem
from brain_server.records import Records
from brain_server.trace import Trace
from brain_server.world import SEPARATOR, World

CHAT_COOLDOWN = timedelta(hours=2)  # the same two NPCs do not chat again sooner
CHAT_HOLD = timedelta(minutes=5)  # a conversation being written holds both speakers this long at a time


class Chats:
    """Conversations between NPCs."""

    def __init__(self, stream: MemoryStream, records: Records, runtimes: Runtimes) -> None:
        self.stream = stream
        self.records = records
        self.runtimes = runtimes

    def can_talk(self, npc: NpcState, partner: NpcState | None, now: datetime) -> bool:
        if partner is None or partner.is_asleep() or partner.is_chatting(now):
            return False
        if self.runtimes.talking(npc.npc_id, partner.npc_id):
            return False
        last = npc.last_chat.get(partner.npc_id)
        return last is None or now - last >= CHAT_COOLDOWN

    async def conversation(self, npc_id: str, partner_id: str, now: datetime, trace: Trace, *,
                           reason: str = "", unseen: bool = False) -> bool:
        """Both NPCs stand together talking while the lines are written; the lines, the memories
        and any plan the conversation made land in both when done. `reason`: why `npc_id` started it;
        `unseen`: nobody watches, so it is told in one call (which may find they do not talk)."""
        async with self._both(npc_id, partner_id):
            a, b = await self.records.npc(npc_id), await self.records.npc(partner_id)
            if not self.can_talk(a, b, now):
                trace.note(f"converse: {b.persona.name} is no longer free to talk")
                return False
            for me, other in ((a, b), (b, a)):
                me = me.model_copy(deep=True)
                me.action = chatting(me, other, now, CHAT_HOLD, [])
                await self.records.save(me)
            talkers = [self.runtimes.of(npc_id), self.runtimes.of(partner_id)]
            for runtime in talkers:
                runtime.set_talking(True)
        try:
            speakers = [Speaker.of(me) for me in (a, b)]
            if unseen:
                told = await summarize_conversation(*speakers, now, a.address, self.stream, trace)
                if told is None:
                    await self._part(npc_id, partner_id)
                    return False
                lines = told[0]
                remembered = await asyncio.gather(*(keep_conversation(me, other.persona.name, lines, memo, now,
                                                                      self.stream, trace)
                                                    for me, other, memo in ((a, b, told[1]), (b, a, told[2]))))
            else:
                lines = await converse(*speakers, now, a.address, self.stream, trace, reason=reason)
                remembered = await asyncio.gather(*(remember_conversation(me, other.persona.name, lines, now,
                                                                          self.stream, trace)
                                                    for me, other in ((a, b), (b, a))))
            world = await self.records.world(a.world_name)
            places = [await self.place_for(change, me, world, trace, host=other) if change else None
                      for me, other, (_, change) in zip((a, b), (b, a), remembered, strict=True)]
        except BaseException:
            await self._part(npc_id, partner_id)
            raise
        finally:
            for runtime in talkers:
                runtime.set_talking(False)
        landed = max(self.runtimes.clock(npc_id, now), self.runtimes.clock(partner_id, now), now)
        async with self._both(npc_id, partner_id):
            for me, other, (stored, change), place in zip((a, b), (b, a), remembered, places, strict=True):
                live = (await self.records.npc(me.npc_id)).model_copy(deep=True)
                note_importance(live, stored)
                live.last_chat[other.npc_id] = now
                if change is not None and place is not None:
                    learn_places(live, world, [place.address])  # the host's home, if that is where it is
                    live.commit(place)
                    trace.note(f"converse: {me.persona.name} plans {change.activity!r} at {change.start:%Y-%m-%d %H:%M}")
                live.action = chatting(live, other, landed, timedelta(minutes=chat_minutes(lines)), lines)
                await self.records.save(live)
        return True

    async def _part(self, a_id: str, b_id: str) -> None:
        """A conversation that could not be written: both go back to their plans."""
        async with self._both(a_id, b_id):
            for me, other in ((a_id, b_id), (b_id, a_id)):
                live = (await self.records.npc(me)).model_copy(deep=True)
                if live.action is not None and live.action.chatting_with == other and not live.action.dialogue:
                    live.action = None
                    await self.records.save(live)

    async def place_for(self, change: PlanChange, npc: NpcState, world: World, trace: Trace, *,
                        host: NpcState | None = None) -> PlanItem:
        """Where a plan item a conversation made happens: a place the NPC may enter, or the home of
        the `host` it talked with (who named it: the NPC learns it, and its privacy is lifted)."""
        invited: frozenset[str] = frozenset()
        if host is not None and host.persona.home.count(SEPARATOR) >= 2:
            npc = npc.model_copy(update={"known_addresses": list(npc.known_addresses)})
            learn_places(npc, world, [host.persona.home])
            invited = frozenset({host.persona.home.split(SEPARATOR)[1]})
        address = await choose_address(change.activity, npc, world, self.stream.llm, trace, invited_sectors=invited)
        return PlanItem(start=change.start, duration_minutes=change.minutes, activity=change.activity, address=address)

    def _both(self, a: str, b: str) -> _BothLocks:
        return _BothLocks(self.records.lock(min(a, b)), self.records.lock(max(a, b)))


class _BothLocks:
    """Two NPCs' locks, always taken in id order so two conversations cannot deadlock."""

    def __init__(self, first: asyncio.Lock, second: asyncio.Lock) -> None:
        self._locks = (first, second)

    async def __aenter__(self) -> None:
        await self._locks[0].acquire()
        await self._locks[1].acquire()

    async def __aexit__(self, *_: object) -> None:
        self._locks[1].release()
        self._locks[0].release()


def chatting(me: NpcState, other: NpcState, start: datetime, length: timedelta,
             lines: list[DialogueLine]) -> Action:
    """The action of an NPC in a conversation (held while its lines are written)."""
    return Action(description=f"{me.persona.name} is chatting with {other.persona.name}", emoji="💬",
                  address=me.address or me.persona.home, start_time=start,
                  duration_minutes=max(1, int(length.total_seconds() // 60)), dialogue=lines,
                  chatting_with=other.npc_id, event=(me.persona.name, "is chatting with", other.persona.name))
