"""Reflection (paper section 4.2): once enough has happened, the NPC steps back and writes
higher-level thoughts about it, each citing the memories it rests on.

The trigger is the summed importance of new observations and chats since the last reflection.
Reflecting asks the LLM for the few most salient questions about the 100 most recent memories,
retrieves memories for each question, and asks for insights that cite the retrieved statements
by number. Insights are stored as THOUGHT nodes whose `evidence_ids` point at the cited nodes;
since thoughts are retrieved like any memory, later reflections can cite earlier ones (a tree).

The questions are worked on concurrently (the LLM client bounds concurrency), so a reflection
costs about one question call, one insight call and one importance call of latency rather than
three times that; the price is that thoughts of the same round cannot cite each other, only those
of earlier rounds.

When the LLM fails (its fallback), the counter is still reset: a reflection is then skipped, not
retried on every tick against an endpoint that is down. Insights citing nothing that was shown
are dropped, as they would be ungrounded beliefs; `reflection_count` counts reflections that
stored at least one thought.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime

from brain_server.cognition.memory_stream import MemoryStream
from brain_server.memory import MemoryKind, MemoryNode
from brain_server.npc import NpcState
from brain_server.prompts.reflection_insights import MAX_INSIGHTS, ReflectionInsights
from brain_server.prompts.reflection_insights import PROMPT as INSIGHTS
from brain_server.prompts.reflection_questions import MAX_QUESTIONS, ReflectionQuestions
from brain_server.prompts.reflection_questions import PROMPT as QUESTIONS
from brain_server.trace import Trace

REFLECTION_THRESHOLD = 150  # the paper's; its released 25-agent run used 250
RECENT_FOR_REFLECTION = 100
# What happens to the NPC counts towards reflecting; its own thoughts and plans do not, or
# reflections would trigger further reflections.
TRIGGERING_KINDS = {MemoryKind.OBSERVATION, MemoryKind.CHAT}


def note_importance(npc: NpcState, nodes: Sequence[MemoryNode]) -> None:
    """Count newly stored observations and chats towards the next reflection."""
    npc.importance_since_reflection += sum(n.importance for n in nodes if n.kind in TRIGGERING_KINDS)


async def maybe_reflect(
    npc: NpcState, now: datetime, stream: MemoryStream, trace: Trace, *, threshold: int = REFLECTION_THRESHOLD
) -> list[MemoryNode]:
    """Reflect if enough importance has accumulated; the new thought nodes (stored), else []."""
    if npc.importance_since_reflection < threshold:
        return []
    accumulated, npc.importance_since_reflection = npc.importance_since_reflection, 0
    recent = await asyncio.to_thread(stream.store.latest, npc.npc_id, RECENT_FOR_REFLECTION)
    questions = await _questions(npc, recent, stream, trace) if recent else []
    if not questions:
        trace.note(f"reflection skipped at importance {accumulated}: no questions to reflect on")
        return []
    answers = await asyncio.gather(*(_insights(npc, q, now, stream, trace) for q in questions))
    thoughts: list[MemoryNode] = []
    dropped, seen = 0, set[str]()
    for question_thoughts, question_dropped in answers:
        dropped += question_dropped
        for thought in question_thoughts:
            if thought.description.lower() not in seen:
                seen.add(thought.description.lower())
                thoughts.append(thought)
    stored = await stream.remember(npc.npc_id, npc.persona, thoughts, trace, rate=True)
    if stored:
        npc.reflection_count += 1
    outcome = f"reflection #{npc.reflection_count}" if stored else "reflection without insights"
    trace.note(
        f"{outcome} at importance {accumulated}: {len(questions)} questions, {len(stored)} thoughts, "
        f"{dropped} citations outside the statements dropped"
    )
    return stored


async def _questions(npc: NpcState, recent: Sequence[MemoryNode], stream: MemoryStream, trace: Trace) -> list[str]:
    """The salient questions, deduplicated; [] if the LLM failed."""
    memories = "\n".join(f"- {n.description}" for n in sorted(recent, key=lambda n: n.created))
    answer = await stream.llm.complete(
        QUESTIONS,
        {"npc_name": npc.persona.name, "persona": npc.persona.summary(), "memories": memories,
         "question_count": MAX_QUESTIONS},
        npc_id=npc.npc_id,
        # Empty is not a valid answer, so it marks the failure without inventing questions.
        fallback=lambda: ReflectionQuestions.model_construct(questions=[]),
        trace=trace,
    )
    unique: dict[str, str] = {}
    for question in answer.questions:
        unique.setdefault(question.strip().lower(), question.strip())
    return [q for q in unique.values() if q]


async def _insights(
    npc: NpcState, question: str, now: datetime, stream: MemoryStream, trace: Trace
) -> tuple[list[MemoryNode], int]:
    """Unstored thought nodes answering one question, and how many citations were out of range."""
    records = await stream.retrieve(npc.npc_id, question, now, trace)
    statements = sorted((r.node for r in records), key=lambda n: n.created)
    if not statements:
        return [], 0
    answer = await stream.llm.complete(
        INSIGHTS,
        {"npc_name": npc.persona.name, "persona": npc.persona.summary(), "question": question,
         "statements": "\n".join(f"{i}. {n.description}" for i, n in enumerate(statements, 1)),
         "statement_count": len(statements), "insight_count": MAX_INSIGHTS},
        npc_id=npc.npc_id,
        fallback=lambda: ReflectionInsights.model_construct(insights=[]),
        trace=trace,
    )
    thoughts: list[MemoryNode] = []
    dropped = 0
    for insight in answer.insights[:MAX_INSIGHTS]:
        numbers = list(dict.fromkeys(insight.evidence))
        cited = [n for n in numbers if 1 <= n <= len(statements)]
        dropped += len(numbers) - len(cited)
        text = insight.insight.strip()
        if not cited or not text:
            continue
        about = insight.about.strip() or question
        thoughts.append(MemoryNode(
            npc_id=npc.npc_id, kind=MemoryKind.THOUGHT, description=text,
            subject=npc.persona.name, predicate="reflects on", object=about,
            created=now, last_accessed=now, keywords=sorted({npc.persona.name.lower(), about.lower()}),
            evidence_ids=[statements[n - 1].id for n in cited],
        ))
    return thoughts, dropped
