"""What a listener keeps of news told it in so many words. A conversation's memo is the model's
summary of it, and a model may sum up as small talk a conversation in which it was told of an
event (blind5, in view, both untuned towns, five seeds: of 20 residents who first met the news in
a conversation, 12 kept it in no memo, so they could neither pass it on nor say so when asked).
When a speaker's own lines named the news it held (`news.said_it`), each other participant
keeps it as heard from that speaker, as a crowd NPC keeps news at a meeting without a call (`meet`),
unless one of its recent thoughts already holds it: also when its memo says it, for a memo is the
conversation told over ("Ivo talked with Teodor about this: I'm going to teach ..."), and news
passed on from it was garbled as the teller's own (blind7: "I'm going to talked with ..."), while
the teller's news is what was said. What the NPC passes on is then this (`attention.news_of`)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime

from brain_server.cognition.attention import NEWS, gist, news_of
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.news import known_places, said_it
from brain_server.cognition.news_said import told_of
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import DialogueLine, NpcState
from brain_server.model.trace import Trace
from brain_server.persistence.records import Records


async def keep_what_was_told(npcs: Sequence[NpcState], held: Sequence[MemoryNode | None],
                             lines: Sequence[DialogueLine], memos: Sequence[MemoryNode | None], now: datetime,
                             stream: MemoryStream, trace: Trace) -> dict[str, list[MemoryNode]]:
    """The memories kept, by hearer's id, of the news each speaker in `npcs` held before the
    conversation (`held`, in the same order) and named in its own `lines`; `memos`: each
    participant's summary of the conversation (None: it kept none), in the same order."""
    kept: dict[str, list[MemoryNode]] = {}
    for teller, news in zip(npcs, held, strict=True):
        if news is None or not said_it(teller.npc_id, news, lines, known_places(teller)):
            continue
        told = _told(teller, news, now)
        for hearer, memo in zip(npcs, memos, strict=True):
            if hearer.npc_id == teller.npc_id or await _holds(stream, hearer.npc_id, gist(news), told):
                continue
            node = _heard(hearer, teller, told, max(news.importance, memo.importance if memo else 0), now,
                          memo.evidence_ids if memo else [])
            kept.setdefault(hearer.npc_id, []).extend(
                await stream.remember(hearer.npc_id, hearer.persona, [node], trace, rate=False))
            trace.note(f"converse: {hearer.persona.name} keeps what {teller.persona.name} told: {told[:80]}")
    return kept


async def meet(stream: MemoryStream, records: Records, a: NpcState, b: NpcState, now: datetime, trace: Trace) -> int:
    """Two NPCs meet without a call: each remembers the meeting, and each tells the other the most
    important thought of its last game day the other has not heard (copied as a memory of the
    hearer's, stamped `now`); then each is on the chat cooldown with the other. How many pieces
    of news passed."""
    told = await asyncio.gather(_news_for(stream, a, b, now), _news_for(stream, b, a, now))
    nodes = {npc.npc_id: [MemoryNode(npc_id=npc.npc_id, kind=MemoryKind.OBSERVATION,
                                     description=f"{npc.persona.name} chatted with {other.persona.name}",
                                     subject=npc.persona.name, predicate="chatted with", object=other.persona.name,
                                     created=now, last_accessed=now, keywords=[other.persona.name.lower()])]
             for npc, other in ((a, b), (b, a))}
    for node in told:
        if node is not None:
            nodes[node.npc_id].append(node)
    for npc in (a, b):
        await stream.remember(npc.npc_id, npc.persona, nodes[npc.npc_id], trace, rate=False)
    for me, other in ((a, b), (b, a)):
        def met(live: NpcState, other: str = other.npc_id) -> None:
            live.last_chat[other] = now
        await records.merge(me.npc_id, met)
    passed = sum(node is not None for node in told)
    trace.note(f"crowd: {a.persona.name} and {b.persona.name} met, {passed} pieces of news passed (no call)")
    return passed


async def _news_for(stream: MemoryStream, teller: NpcState, hearer: NpcState, now: datetime) -> MemoryNode | None:
    """The teller's most important recent news (`news_of`) that the hearer has not heard, as the hearer
    keeps it (`told_of`, as one told in a conversation keeps it: a crowd host's aims are not passed on)."""
    heard, mine = {gist(n) for n in await stream.latest_thoughts(hearer.npc_id)}, await stream.latest_thoughts(teller.npc_id)
    while (best := await news_of(stream, teller.npc_id, now, heard=heard, thoughts=mine)) is not None:
        if (told := _told(teller, best, now)) not in heard:
            return _heard(hearer, teller, told, best.importance, now)
        heard.add(gist(best))
    return None


def _told(teller: NpcState, news: MemoryNode, now: datetime) -> str:
    """What one told by `teller` keeps of its `news` (`news_said.told_of`, with the places and plan it holds)."""
    return told_of(teller.persona.name, news, known_places(teller), [*teller.plan, *teller.commitments], now)


def _heard(hearer: NpcState, teller: NpcState, told: str, importance: int, now: datetime,
           evidence: Sequence[str] = ()) -> MemoryNode:
    """The hearer's memory of news `told` it by `teller`, its `evidence` the memo of the talk, if any."""
    return MemoryNode(npc_id=hearer.npc_id, kind=MemoryKind.THOUGHT, description=f"{teller.persona.name} told "
                      f"{hearer.persona.name}: {told}", subject=hearer.persona.name, predicate="heard from",
                      object=teller.persona.name, importance=importance, created=now, last_accessed=now,
                      keywords=[NEWS, teller.persona.name.lower()], evidence_ids=list(evidence))


async def _holds(stream: MemoryStream, npc_id: str, *said: str) -> bool:
    """Whether one of the NPC's recent thoughts already says one of `said` (the news, without who told it)."""
    return any(gist(n) in said for n in await stream.latest_thoughts(npc_id))
