"""Reflection (paper section 4.2): once enough has happened, the NPC steps back and writes
higher-level thoughts about it, each citing the memories it rests on.

The trigger is the summed importance of new observations and chats since the last reflection.
Reflecting asks the LLM for the few most salient questions about the 100 most recent memories,
retrieves memories for each question, and asks for insights that cite the retrieved statements
by number, each statement one line, dated. Insights are stored as THOUGHT nodes whose `evidence_ids`
point at the cited nodes; since thoughts are retrieved like any memory, later reflections can cite
earlier ones (a tree). Reflection reads events and thoughts, as the paper's code does (its focal
points and insights draw on `seq_event + seq_thought`): a conversation reaches it by its memo, not
its lines (`TRANSCRIPTS` left out), whose greetings and small talk became insights' "people" ("Hi
Bel", "Hey Carlos", blind29) and crowded out the gist.

Cost: the paper asks for 5 insights once per question and then rates each insight. Here one call
sees every question with its statements (numbered across questions, a statement retrieved for
two questions shown once), asks for up to 5 insights per question, as the paper, and rates its
own insights, so a reflection costs two calls, not five or more; thoughts of the same round
cannot cite each other, only those of earlier rounds.

When the LLM fails (its fallback), the counter is still reset: a reflection is then skipped, not
retried on every tick against an endpoint that is down. Insights citing nothing that was shown
are dropped, as they would be ungrounded beliefs, and so are insights that only say again a statement
they cite (`restates`); `reflection_count` counts reflections that stored at least one thought.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from brain_server.cognition.memory_stream import MemoryStream, memory_line, mundane_thing
from brain_server.cognition.offline.heard import words
from brain_server.cognition.offline.kept_days import anchored
from brain_server.cognition.retrieve import REFLECTION_PREDICATE
from brain_server.llm.scheduler import Work
from brain_server.model.budget import Bullets, CountOf, Item
from brain_server.model.memory import TRANSCRIPTS, MemoryKind, MemoryNode
from brain_server.model.npc import NpcState
from brain_server.model.paper import REFLECTION_THRESHOLD
from brain_server.model.trace import Trace
from brain_server.prompts.reflection_insights import INSIGHTS_PER_QUESTION, MAX_INSIGHTS, ReflectionInsights
from brain_server.prompts.reflection_insights import PROMPT as INSIGHTS
from brain_server.prompts.reflection_questions import MAX_QUESTIONS, ReflectionQuestions

# Words that lead an insight into what it saw ("X has noticed a pattern:", "X learned that").
_LEAD = {"has", "have", "noticed", "notices", "pattern", "learned", "learnt", "that", "realizes", "realised", "realized",
         "knows", "thinks", "sees", "seems", "the", "and"}
from brain_server.prompts.reflection_questions import PROMPT as QUESTIONS

RECENT_FOR_REFLECTION = 100
# What happens to the NPC counts towards reflecting; its own thoughts and plans do not, or
# reflections would trigger further reflections.
TRIGGERING_KINDS = {MemoryKind.OBSERVATION, MemoryKind.CHAT}


def note_importance(npc: NpcState, nodes: Sequence[MemoryNode]) -> None:
    """Count newly stored observations and chats towards the next reflection."""
    npc.importance_since_reflection += sum(n.importance for n in nodes if n.kind in TRIGGERING_KINDS)


async def maybe_reflect(
    npc: NpcState, now: datetime, stream: MemoryStream, trace: Trace, *, work: Work,
    threshold: int = REFLECTION_THRESHOLD
) -> list[MemoryNode]:
    """Reflect if enough importance has accumulated; the new thought nodes (stored), else []."""
    if npc.importance_since_reflection < threshold:
        return []
    accumulated, npc.importance_since_reflection = npc.importance_since_reflection, 0
    latest = await asyncio.to_thread(stream.store.latest, npc.npc_id, 2 * RECENT_FOR_REFLECTION)
    recent = [n for n in latest if n.kind not in TRANSCRIPTS][:RECENT_FOR_REFLECTION]
    questions = await ask_questions(npc, recent, now, stream, trace, work=work) if recent else []
    if not questions:
        trace.note(f"reflection skipped at importance {accumulated}: no questions to reflect on")
        return []
    thoughts, dropped = await draw_insights(npc, questions, now, stream, trace, work=work)
    stored = await stream.remember(npc.npc_id, npc.persona, thoughts, trace, rate=False)
    if stored:
        npc.reflection_count += 1
    outcome = f"reflection #{npc.reflection_count}" if stored else "reflection without insights"
    trace.note(
        f"{outcome} at importance {accumulated}: {len(questions)} questions, {len(stored)} thoughts, "
        f"{dropped} citations outside the statements dropped"
    )
    return stored


async def ask_questions(npc: NpcState, recent: Sequence[MemoryNode], now: datetime, stream: MemoryStream,
                        trace: Trace, *,
                        work: Work) -> list[str]:
    """The salient questions, deduplicated; [] if the LLM failed."""
    memories = Bullets([Item(memory_line(n), (n.importance, n.created.timestamp()))
                        for n in condensed(recent, npc.persona.name)])
    answer = await stream.llm.complete(
        QUESTIONS,
        {"npc_name": npc.persona.name, "persona": npc.persona.summary(), "memories": memories,
         "question_count": MAX_QUESTIONS},
        work=work, npc_id=npc.npc_id,
        # Empty is not a valid answer, so it marks the failure without inventing questions.
        fallback=lambda: ReflectionQuestions.model_construct(questions=[]),
        trace=trace,
    )
    unique: dict[str, str] = {}
    for question in answer.questions:
        unique.setdefault(question.strip().lower(), question.strip())
    return [q for q in unique.values() if q]


async def draw_insights(
    npc: NpcState, questions: Sequence[str], now: datetime, stream: MemoryStream, trace: Trace, *, work: Work
) -> tuple[list[MemoryNode], int]:
    """Unstored, rated thought nodes answering the questions, and how many citations were out of range."""
    groups: list[tuple[list[str], list[MemoryNode]]] = []
    shown: dict[str, int] = {}  # each statement's group
    score: dict[str, float] = {}
    for question in questions:
        records = await stream.retrieve(npc.npc_id, question, now, trace, without=TRANSCRIPTS)
        score.update((r.node.id, max(r.score, score.get(r.node.id, r.score))) for r in records)
        fresh = sorted((r.node for r in records if r.node.id not in shown), key=lambda n: n.created)
        if fresh:
            shown.update((n.id, len(groups)) for n in fresh)
            groups.append(([question], fresh))
        elif records:  # its memories all stand under earlier questions: asked there, not with none under it
            groups[Counter(shown[r.node.id] for r in records).most_common(1)[0][0]][0].append(question)
    statements = [n for _, group in groups for n in group]
    if not statements:
        return [], 0
    numbered = Bullets([Item(memory_line(by_header(n)), (score[n.id], n.created.timestamp()), g)
                        for g, (_, group) in enumerate(groups) for n in group], numbered=True,
                       headers=[_asked(asked) for asked, _ in groups])
    answer = await stream.llm.complete(
        INSIGHTS,
        {"npc_name": npc.persona.name, "persona": npc.persona.summary(), "statements": numbered,
         "statement_count": CountOf("statements"), "per_question": INSIGHTS_PER_QUESTION,
         "insight_count": min(MAX_INSIGHTS, INSIGHTS_PER_QUESTION * len(questions))},
        work=work, npc_id=npc.npc_id,
        fallback=lambda: ReflectionInsights.model_construct(insights=[]),
        trace=trace,
    )
    statements = [statements[i] for i in numbered.kept]  # what the prompt's budget left, as numbered there
    thoughts: list[MemoryNode] = []
    # an insight the NPC already holds is not stored again (blind10 wrote one six times in a day)
    held = await asyncio.to_thread(stream.store.latest, npc.npc_id, RECENT_FOR_REFLECTION, MemoryKind.THOUGHT)
    dropped, seen = 0, {n.description.lower() for n in held}
    for insight in answer.insights[:MAX_INSIGHTS]:
        numbers = list(dict.fromkeys(insight.evidence))
        cited = [n for n in numbers if 1 <= n <= len(statements)]
        dropped += len(numbers) - len(cited)
        text = anchored(insight.insight.strip(), now.date())
        if not cited or not text or text.lower() in seen or restates(text, [statements[n - 1] for n in cited]):
            continue
        seen.add(text.lower())
        about = insight.about.strip() or "the day"
        thoughts.append(MemoryNode(
            npc_id=npc.npc_id, kind=MemoryKind.THOUGHT, description=text,
            subject=npc.persona.name, predicate=REFLECTION_PREDICATE, object=about, importance=insight.importance,
            created=now, last_accessed=now, keywords=sorted({npc.persona.name.lower(), about.lower()}),
            evidence_ids=[statements[n - 1].id for n in cited],
        ))
    return thoughts, dropped


def condensed(recent: Sequence[MemoryNode], name: str) -> list[MemoryNode]:
    """The recent memories as the questions' prompt lists them, oldest first: a run of the NPC's own
    steps of one activity as one memory with its span ("Sorcha Gault is working at the slipway
    (07:00 to 08:45)", not nine lines of "(taking a short break)", "(tidying up afterwards)"), a
    block's plan by its header (`embedding_key`), not its steps. blind28's writer saw the questions
    asked about routine, not people: of a host's 100 latest memories half were her own steps and the
    plans that listed them again; a thing's state of little importance not at all (`mundane_thing`).
    What the memories hold is unchanged; the rest is shown as it was."""
    shown: list[MemoryNode] = []
    runs: dict[int, tuple[str, datetime, int]] = {}  # a shown own run's index -> its activity, last step, importance
    open_run = -1
    for node in sorted(recent, key=lambda n: n.created):
        if mundane_thing(node):
            continue
        if node.kind == MemoryKind.OBSERVATION and node.subject == name and node.description.startswith(name):
            doing = node.description.split(" (", 1)[0].strip()
            if open_run >= 0 and runs[open_run][0] == doing:
                runs[open_run] = (doing, node.created, max(runs[open_run][2], node.importance))
                continue
            open_run = len(shown)
            runs[open_run] = (doing, node.created, node.importance)
        else:
            node = by_header(node)
        shown.append(node)
    for index, (doing, last, importance) in runs.items():
        if last != shown[index].created:
            shown[index] = shown[index].model_copy(update={
                "description": f"{doing} ({shown[index].created:%H:%M} to {last:%H:%M})", "importance": importance})
    return shown


def by_header(node: MemoryNode) -> MemoryNode:
    """A block's plan as reflection shows it: by its header (`embedding_key`), not its steps (blind29's
    writer saw the insights' statements crowded by "...'s plan for 07:00-14:00 ...: getting ready for
    work (36 min); ..."); any other memory as it is."""
    return node.model_copy(update={"description": node.embedding_key}) if node.kind == MemoryKind.PLAN and \
        node.embedding_key else node


def restates(insight: str, cited: Sequence[MemoryNode]) -> bool:
    """Whether an insight only says again one of the statements it cites: every word of it that
    matters is in that statement ("Agnes Hale learned that Agnes Hale is having breakfast", "Teodor
    Marek has noticed a pattern: Ivo Kranjc is chatting with Teodor Marek"). Stored, such thoughts
    came back in every prompt as news and as what the NPC had come to understand."""
    said = _words(insight) - _LEAD
    return any(said <= _words(node.description) for node in cited)


def _words(text: str) -> set[str]:
    return {w for w in words(text) if len(w) > 2}


def _asked(questions: Sequence[str]) -> str:
    """The header over a group's statements: its question, or its questions said to share them
    (questions stacked with no statement between read as a question left with none)."""
    if len(questions) == 1:
        return f'Question: "{questions[0]}"'
    return "Questions (the statements under them bear on each):\n" + "\n".join(f'- "{q}"' for q in questions)
