"""NPCs talking (paper section 4.4), two or more at one place (issue 31): whether they may,
holding all of them while the lines are written, and what the conversation leaves in each
(memories, a memo, a plan item it made, the places it named: each now knows where they are).

Who takes part: the one who starts it, the one it talks to, and, up to `groups.MAX_GROUP` in all,
everyone else either of them saw at its latest Decide who stands at the same place and is free
to talk with the starter (awake, in no other conversation, not chatted with in the last two
hours). Out of view (nobody in it seen by the player) it is told in one call; otherwise line by
line (`converse.converse` for two, `groups.talk_in_group` for more).

The NPCs' locks are taken in id order (two conversations cannot deadlock) and only to read and
save their records, never while the model writes; meanwhile all stand "chatting" (their Decides
answer at once) and are marked talking in their runtimes, so nobody else starts a conversation
with one of them. The player may speak to one of them (`interrupt`): it turns to the player, the
others heard what the player said; a pair ends there (the partner goes back to its plan), a group
goes on without it, and the player's conversation is remembered by all of them (`player_talk.py`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TypeVar

from brain_server.cognition.attention import gist
from brain_server.cognition.booking import booked_item
from brain_server.cognition.converse import (
    chat_minutes,
    converse,
    keep_conversation,
    remember_conversation,
    said_places,
    summarize_conversation,
)
from brain_server.cognition.decide import CHAT_HOLD
from brain_server.cognition.gather import seeking
from brain_server.cognition.groups import MAX_GROUP, Group, names, talk_in_group, tell_group
from brain_server.cognition.hearsay import keep_what_was_told
from brain_server.cognition.locate import learn_places, open_places, plan_places
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.news import held_news
from brain_server.cognition.offline.said_clock import says_when
from brain_server.cognition.places_said import named_places
from brain_server.cognition.reflect import note_importance
from brain_server.cognition.runtime import Runtimes
from brain_server.cognition.said_yes import PlanChange, yes_unbooked
from brain_server.cognition.speaker import Speaker, listed
from brain_server.config import CHAT_REST_MINUTES
from brain_server.llm.scheduler import Work
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import Action, DialogueLine, NpcState
from brain_server.model.trace import Trace
from brain_server.model.world import World, arena_of
from brain_server.persistence.records import Records
from brain_server.prompts.conversation_memo import ConversationMemo

CHAT_COOLDOWN = timedelta(hours=2)  # the same two NPCs do not chat again sooner
# Two who saw each other may still talk this long after, wherever they walked since (they stop to talk).
CHAT_MOMENT = timedelta(minutes=5)

Remembered = tuple[list[MemoryNode], PlanChange | None]
T = TypeVar("T", NpcState, Speaker)


class Chats:
    """Conversations between NPCs."""

    def __init__(self, stream: MemoryStream, records: Records, runtimes: Runtimes, *,
                 rest: timedelta = timedelta(minutes=CHAT_REST_MINUTES)) -> None:
        self.stream = stream
        self.records = records
        self.runtimes = runtimes
        self.rest = rest
        self._open: dict[str, Group] = {}  # conversations being written, by participant

    def partners(self, npc_id: str) -> list[str]:
        """Who the NPC's conversation being written now is with (none: [])."""
        group = self._open.get(npc_id)
        return [] if group is None else [i for i in group.ids() if i != npc_id]

    def can_talk(self, npc: NpcState, partner: NpcState | None, now: datetime) -> bool:
        """Whether `partner` is free to talk with `npc` now: awake, not talking, not just talked to,
        neither of them resting from a conversation (`resting`), and still with it: in its arena
        where the game last placed them, or the moment of `now` not yet past (CHAT_MOMENT: a conversation decided on a sighting
        may be written when the game's clock has moved on, both long gone their ways)."""
        if partner is None or partner.is_asleep() or partner.is_chatting(now):
            return False
        if self.resting(npc, now) or self.resting(partner, now):
            return False
        if not together(npc, partner) and self._moved_on(now, npc.npc_id, partner.npc_id):
            return False
        if self.runtimes.talking(npc.npc_id, partner.npc_id):
            return False
        last = npc.last_chat.get(partner.npc_id)
        return last is None or now - last >= CHAT_COOLDOWN

    def resting(self, npc: NpcState, now: datetime) -> bool:
        """Whether an NPC that thinks talked with anyone less than `rest` ago: until then it takes
        part in no other conversation, in view or out, and no reaction is asked about it or of it.
        A pair's cooldown alone let a town that meets at one cafe talk without pause (blind13 in the
        Ville: 184 conversations among 12 residents in two days, 9 calls per NPC per awake hour
        against a budget of 5); and out of view, where a conversation is one call, a rest in view
        only let the town talk twice as often as in view, and carry news further (blind22 in
        Cauldwell: 53 conversations a run against 29). A crowd NPC's meetings cost no call: it never
        rests; the player's talk is not a conversation between NPCs: never held back."""
        if npc.crowd or not npc.last_chat or not self.rest:
            return False
        return now - max(npc.last_chat.values()) < self.rest

    def _moved_on(self, now: datetime, *npc_ids: str) -> bool:
        """Whether the game's clock has moved past the moment of `now` for any of them."""
        return any((last := self.runtimes.last(i)) is not None and last - now > CHAT_MOMENT for i in npc_ids)

    async def conversation(self, npc_id: str, partner_id: str, now: datetime, trace: Trace, *, work: Work,
                           reason: str = "", unseen: bool = False) -> bool:
        """All participants stand together talking while the lines are written; the lines, the
        memories and any plan the conversation made land in each when done. `reason`: why `npc_id`
        started it; `unseen`: neither was seen by the player, so unless one who joins is, it is
        told in one call (which may find they do not talk). All of its completions are for `work`."""
        joining = await self._joining(npc_id, partner_id, now)
        async with self._all([npc_id, partner_id, *joining]):
            a, b = await self.records.npc(npc_id), await self.records.npc(partner_id)
            if not self.can_talk(a, b, now):
                trace.note(f"converse: {b.persona.name} is no longer free to talk")
                return False
            npcs = [a, b, *[c for i in joining if self.can_talk(a, c := await self.records.npc(i), now)]]
            try:
                for me in npcs:
                    # talking before chatting: a Decide (on any thread) that finds an NPC chatting
                    # finds its lines being written, and tells the game to ask again soon
                    self.runtimes.of(me.npc_id).set_talking(True)
                    chatter = me.model_copy(deep=True)
                    chatter.action = chatting(chatter, _others(chatter, npcs), now, CHAT_HOLD, [])
                    await self.records.save(chatter)
                world = await self.records.world(a.world_name)
                group = Group([await Speaker.read(me, now, self.stream, world) for me in npcs])
            except BaseException:
                for me in npcs:  # back as they were: their plans, and free to talk
                    self.runtimes.of(me.npc_id).set_talking(False)
                    await self.records.save(me)
                raise
            for me in npcs:
                self._open[me.npc_id] = group
        ids = group.ids()
        held = await asyncio.gather(*(held_news(me.npc_id, now, self.stream) for me in npcs))
        try:
            written = await self._write(group, npcs, world, now, a.address, trace, work=work, reason=reason,
                                        unseen=unseen and not any(c.in_view for c in npcs[2:]))
            if written is None:
                await self._part(ids)
                return False
            lines, remembered = written
            told = await keep_what_was_told(npcs, held, lines, [_memo(stored) for stored, _ in remembered], now,
                                            self.stream, trace)
            heard = [[*told.get(me.npc_id, ()), *_others_news(me, npcs, held)] for me in npcs]
            named = _named(group, lines)  # told where something is, each now knows the place (below)
            changes = [change or yes_unbooked(me.persona.name, lines, [*me.known_addresses, *named], now, trace,
                                              [n.description for n in news])
                       for me, (_, change), news in zip(npcs, remembered, heard, strict=True)]
            places = [await booked_item(change, me, world, self.stream, trace, work=work, host=host, told=news)
                      if change else None for me, host, change, news in zip(npcs, _hosts(npcs), changes, heard, strict=True)]
        except BaseException:
            await self._part(ids)
            raise
        finally:
            for talker in ids:
                self._open.pop(talker, None)
                self.runtimes.of(talker).set_talking(False)
        landed = max(now, *(self.runtimes.clock(i, now) for i in ids))
        still = [me for me in npcs if me.npc_id not in group.turned]
        async with self._all(ids):
            for me, (stored, _), change, place in zip(npcs, remembered, changes, places, strict=True):
                live = (await self.records.npc(me.npc_id)).model_copy(deep=True)
                note_importance(live, stored)
                learn_places(live, world, named)  # told where something is, each now knows the place
                learn_places(live, world, named_places(open_places(world, live), " ".join(  # and where its news is
                    n.description for n in told.get(me.npc_id, ()))))
                live.last_chat.update({other.npc_id: now for other in _others(me, npcs)})
                if change is not None and place is not None:
                    learn_places(live, world, [place.address])  # the host's home, if that is where it is
                    live.commit(place)
                    trace.note(f"converse: {me.persona.name} plans {change.activity!r} at {change.start:%Y-%m-%d %H:%M}")
                await self._seek_out(live, [*stored, *told.get(me.npc_id, [])], world,
                                     landed + timedelta(minutes=chat_minutes(lines)), trace)
                if me in still and len(still) > 1:
                    live.action = chatting(live, _others(me, npcs), landed, timedelta(minutes=chat_minutes(lines)), lines)
                elif live.action is not None and live.action.chatting_with in ids:
                    live.action = None  # it turned to the player, or the one it talked with did
                await self.records.save(live)
        return True

    async def _write(self, group: Group, npcs: Sequence[NpcState], world: World, now: datetime, place: str,
                     trace: Trace, *, work: Work, reason: str,
                     unseen: bool) -> tuple[list[DialogueLine], list[Remembered]] | None:
        """The conversation's lines and what each participant remembers of it (in `npcs`' order);
        None when, told in one call, they do not stop to talk, or nobody spoke (blind18 in Brinnick:
        each kept "(nobody has spoken yet)" and paid a memo call for it)."""
        partners = [names(_others(s, group.speakers)) for s in group.speakers]
        if unseen:
            told = await (tell_group(group.speakers, now, place, self.stream, trace, work=work) if len(npcs) > 2 else
                          _pair_told(group.speakers, now, place, self.stream, trace, work))
            if told is None:
                return None
            lines, memos = told
            return lines, list(await asyncio.gather(*(keep_conversation(me, partner, lines, memo, now, self.stream, trace)
                                                      for me, partner, memo in zip(npcs, partners, memos, strict=True))))
        if len(npcs) > 2:
            lines = await talk_in_group(group, now, place, self.stream, trace, work=work, reason=reason,
                                        here=self._at(place))
        else:
            a, b = group.speakers
            lines = [*await converse(a, b, now, place, self.stream, trace, work=work, reason=reason),
                     *group.heard]
        if not lines:  # the others walked on before the first line: no conversation to remember
            return None
        heard = _named(group, lines)
        return lines, list(await asyncio.gather(*(remember_conversation(me, partner, lines, now, self.stream, trace,
                                                                        work=work, partner_home=host.persona.home, heard=heard,
                                                                        world=world)
                                                  for me, partner, host in zip(npcs, partners, _hosts(npcs),
                                                                               strict=True))))

    async def _seek_out(self, live: NpcState, kept: Sequence[MemoryNode], world: World, after: datetime,
                        trace: Trace) -> None:
        """One who came away holding news of an event (it says when) that this conversation gave it
        spends its free time at home today from `after` on seeking out those it has not told
        (`gather.Seek.visit`), as a host's plan does: else a listener told nobody before its next day
        plan (blind5 in Korrin: those who heard had the news on their mind in 10 turns over five
        seeds, the host in 37). News that says no when (a worry, a rumour) sends nobody round."""
        if live.plan_day != after.date():
            return
        news = await held_news(live.npc_id, after, self.stream)
        if news is None or news.id not in {n.id for n in kept} or not says_when(gist(news)):
            return
        seek = await seeking(live, after, self.stream, self.records, plan_places(world, live))
        before = {i.key for i in live.plan}
        live.plan = seek.visit(live.plan, live.persona.home, after)
        if laid := [f"{i.start:%H:%M} {i.activity}" for i in live.plan if i.key not in before]:
            trace.note(f"converse: {live.persona.name} goes out to pass on what it heard: {'; '.join(laid)}")

    def _at(self, place: str) -> Callable[[str], bool]:
        """Whether an NPC still stands at `place`, as its latest Decide said (unknown: it does)."""

        def here(npc_id: str) -> bool:
            npc = self.records.current(npc_id)
            return npc is None or npc.address == place

        return here

    async def _joining(self, a_id: str, b_id: str, now: datetime) -> list[str]:
        """Who else takes part: those `a` or `b` saw at its latest Decide, in `a`'s arena and free
        to talk with `a` (checked again under the locks), up to MAX_GROUP in all."""
        a = await self.records.npc(a_id)
        people = await self.records.people(a.world_name)
        seen = self.runtimes.of(a_id).seen | self.runtimes.of(b_id).seen
        joining = []
        for other_id in sorted({people[name] for name in seen if name in people} - {a_id, b_id}):
            other = await self.records.npc_or_none(other_id)
            if other is not None and self.can_talk(a, other, now):
                joining.append(other_id)
        return joining[:MAX_GROUP - 2]

    async def interrupt(self, npc_id: str, player: str, text: str, now: datetime, trace: Trace) -> list[str]:
        """The player speaks to `npc_id` while it is in a conversation: it turns to the player (it
        leaves the conversation; one being written goes on without it, with the player's words in
        it). A pair ends (the partner goes back to its plan); a group goes on. The ids of those it
        was talking with (they heard the player: they remember that conversation too)."""
        group = self._open.pop(npc_id, None)
        if group is not None:
            group.turn_away(npc_id, player, text)
            self.runtimes.of(npc_id).set_talking(False)
            others = [i for i in group.ids() if i != npc_id]
            await self._stop_chatting([npc_id], npc_id)
        else:
            npc = await self.records.npc(npc_id)
            if not npc.is_chatting(now):
                return []
            assert npc.action is not None
            others = list(dict.fromkeys(i for i in (npc.action.chatting_with,
                                                    *(line.speaker_npc_id for line in npc.action.dialogue))
                                        if i and i != npc_id))
            await self._stop_chatting([npc_id, *others] if len(others) == 1 else [npc_id], npc_id)
        trace.note(f"talk: {npc_id} turns to {player} from its conversation with {', '.join(others)}")
        return others

    async def _stop_chatting(self, ids: Sequence[str], about: str) -> None:
        """These NPCs leave their conversation with `about`: back to their plans."""
        async with self._all(ids):
            for npc_id in ids:
                live = await self.records.npc(npc_id)
                if live.action is not None and about in (npc_id, live.action.chatting_with,
                                                         *(line.speaker_npc_id for line in live.action.dialogue)):
                    await self.records.save(live.model_copy(update={"action": None}))

    async def _part(self, ids: Sequence[str]) -> None:
        """A conversation that could not be written: all go back to their plans."""
        async with self._all(ids):
            for npc_id in ids:
                live = (await self.records.npc(npc_id)).model_copy(deep=True)
                if live.action is not None and live.action.chatting_with in ids and not live.action.dialogue:
                    live.action = None
                    await self.records.save(live)

    def _all(self, ids: Sequence[str]) -> _AllLocks:
        return _AllLocks([self.records.lock(i) for i in sorted(set(ids))])


def _others_news(me: NpcState, npcs: Sequence[NpcState], held: Sequence[MemoryNode | None]) -> list[MemoryNode]:
    """The news the others in a conversation held when it began (`held`, in `npcs`' order)."""
    return [news for other, news in zip(npcs, held, strict=True) if other.npc_id != me.npc_id and news is not None]


def _memo(stored: Sequence[MemoryNode]) -> MemoryNode | None:
    """A participant's summary of the conversation among the memories it kept of it."""
    return next((n for n in stored if n.kind is MemoryKind.THOUGHT), None)


def _named(group: Group, lines: Sequence[DialogueLine]) -> list[str]:
    """The places a conversation's lines name among those any of its speakers knows."""
    return said_places((p for s in group.speakers for p in s.places), lines)


async def _pair_told(speakers: Sequence[Speaker], now: datetime, place: str, stream: MemoryStream,
                     trace: Trace, work: Work) -> tuple[list[DialogueLine], list[ConversationMemo]] | None:
    told = await summarize_conversation(speakers[0], speakers[1], now, place, stream, trace, work=work)
    return None if told is None else (told[0], [told[1], told[2]])


def _hosts(npcs: Sequence[NpcState]) -> list[NpcState]:
    """Whose home "my place" means for each participant: the starter's partner's for the starter,
    the starter's for everyone else."""
    return [npcs[1], *[npcs[0]] * (len(npcs) - 1)]


def _others(me: NpcState | Speaker, everyone: Sequence[T]) -> list[T]:
    return [o for o in everyone if o.npc_id != me.npc_id]


class _AllLocks:
    """NPCs' locks, always taken in id order so two conversations cannot deadlock."""

    def __init__(self, locks: Sequence[asyncio.Lock]) -> None:
        self._locks = locks

    async def __aenter__(self) -> None:
        for lock in self._locks:
            await lock.acquire()

    async def __aexit__(self, *_: object) -> None:
        for lock in reversed(self._locks):
            lock.release()


def chatting(me: NpcState, others: Sequence[NpcState], start: datetime, length: timedelta,
             lines: list[DialogueLine]) -> Action:
    """The action of an NPC in a conversation (held while its lines are written)."""
    with_whom = listed([o.persona.name for o in others])
    return Action(description=f"{me.persona.name} is chatting with {with_whom}", emoji="💬",
                  address=me.address or me.persona.home, start_time=start,
                  duration_minutes=max(1, int(length.total_seconds() // 60)), dialogue=lines,
                  chatting_with=others[0].npc_id, event=(me.persona.name, "is chatting with", with_whom))


def together(a: NpcState, b: NpcState) -> bool:
    """In one arena, as the game last placed them (where it has not placed one yet, they may be)."""
    return not (a.address and b.address) or arena_of(a.address) == arena_of(b.address)
