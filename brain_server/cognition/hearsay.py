"""What a listener keeps of news told it in so many words. A conversation's memo is the model's
summary of it, and a model may sum up as small talk a conversation in which it was told of an
event (blind5, in view, both untuned towns, five seeds: of 20 residents who first met the news in
a conversation, 12 kept it in no memo, so they could neither pass it on nor say so when asked).
When a speaker's own lines named the news it held (`news.said_it`), each other participant
keeps it as heard from that speaker, as a crowd NPC keeps news at a meeting (`attention.meet`),
unless one of its recent thoughts already holds it: also when its memo says it, for a memo is the
conversation told over ("Ivo talked with Teodor about this: I'm going to teach ..."), and news
passed on from it was garbled as the teller's own (blind7: "I'm going to talked with ..."), while
the teller's news is what was said. What the NPC passes on is then this (`attention.news_of`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from brain_server.cognition.attention import NEWS, gist
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.news import known_places, said_it, told_of
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import DialogueLine, NpcState
from brain_server.model.trace import Trace


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
        told = told_of(teller.persona.name, news, known_places(teller), [*teller.plan, *teller.commitments], now)
        for hearer, memo in zip(npcs, memos, strict=True):
            if hearer.npc_id == teller.npc_id or await _holds(stream, hearer.npc_id, gist(news), told):
                continue
            node = MemoryNode(npc_id=hearer.npc_id, kind=MemoryKind.THOUGHT,
                              description=f"{teller.persona.name} told {hearer.persona.name}: {told}",
                              subject=hearer.persona.name, predicate="heard from", object=teller.persona.name,
                              importance=max(news.importance, memo.importance if memo else 0), created=now,
                              last_accessed=now, keywords=[NEWS, teller.persona.name.lower()],
                              evidence_ids=list(memo.evidence_ids) if memo else [])
            kept.setdefault(hearer.npc_id, []).extend(
                await stream.remember(hearer.npc_id, hearer.persona, [node], trace, rate=False))
            trace.note(f"converse: {hearer.persona.name} keeps what {teller.persona.name} told: {told[:80]}")
    return kept


async def _holds(stream: MemoryStream, npc_id: str, *said: str) -> bool:
    """Whether one of the NPC's recent thoughts already says one of `said` (the news, without who told it)."""
    return any(gist(n) in said for n in await stream.latest_thoughts(npc_id))
