"""Reflection against the fake OpenAI server: the real client, MiniLM and an embedded Qdrant Edge store."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
import re
from typing import Any

import pytest

from brain_server.cognition.memory_stream import MemoryStream, memory_line
from brain_server.cognition.reflect import REFLECTION_THRESHOLD, maybe_reflect, note_importance, restates
from brain_server.llm.scheduler import Priority, Work
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import NpcState, Persona
from brain_server.model.trace import LlmCallRecord, Trace
from brain_server.persistence.storage import MemoryStore
from npc_lab.fake_openai import FakeOpenAI
from tests.conftest import Run

WORK = Work(Priority.PLAN_NOW, "test")  # what the completions here are for


NPC = "isabella"
T0 = datetime(2026, 2, 13, 8, tzinfo=UTC)
NOW = T0 + timedelta(hours=4)
EVENTS = [
    "Isabella Rodriguez is planning a Valentine's Day party at Hobbs Cafe",
    "Maria Lopez said she would help decorate the cafe for the party",
    "Klaus Mueller is reading a book about gentrification at the cafe",
    "Isabella Rodriguez is baking pastries for the party",
    "Tom Moreno complained that the coffee at the cafe is too expensive",
    "Ayesha Khan asked Isabella Rodriguez when the party starts",
    "the cafe counter is being cleaned",
    "Isabella Rodriguez invited Sam Moore to the Valentine's Day party",
]
QUESTIONS = ["What is Isabella preparing for?", "Who helps Isabella?", "How do customers feel about the cafe?"]
STATEMENT = re.compile(r"^(\d+)\. (.*)$", re.MULTILINE)







def npc() -> NpcState:
    return NpcState(npc_id=NPC, world_name="the Ville",
                    persona=Persona(name="Isabella Rodriguez", age=34, identity="owner of Hobbs Cafe"))


def trace(at: datetime = NOW) -> Trace:
    return Trace(npc_id=NPC, kind="reflect", game_time=at)


def observations(texts: list[str], importance: int = 8, kind: MemoryKind = MemoryKind.OBSERVATION) -> list[MemoryNode]:
    nodes = []
    for i, text in enumerate(texts):
        at = T0 + timedelta(minutes=i)
        nodes.append(MemoryNode(npc_id=NPC, kind=kind, description=text, importance=importance,
                                created=at, last_accessed=at))
    return nodes


async def seed(stream: MemoryStream, state: NpcState, texts: list[str] = EVENTS) -> list[MemoryNode]:
    """Stores observations as perception would, and counts them towards reflecting."""
    nodes = await stream.remember(NPC, state.persona, observations(texts), None, rate=False)
    note_importance(state, nodes)
    return nodes


def insight(text: str, *evidence: int, importance: int = 6) -> dict[str, Any]:
    return {"insight": text, "about": "the party", "evidence": list(evidence), "importance": importance}


def insight_calls(t: Trace) -> list[LlmCallRecord]:
    return [c for c in t.llm_calls if c.purpose == "reflection_insights"]


def statements(call: LlmCallRecord) -> dict[int, str]:
    return {int(n): text for n, text in STATEMENT.findall(call.messages[1]["content"])}


def test_note_importance_counts_only_what_happened() -> None:
    state = npc()
    note_importance(state, observations(["a", "b"], 7) + observations(["c"], 5, MemoryKind.CHAT)
                    + observations(["d"], 10, MemoryKind.THOUGHT) + observations(["e"], 10, MemoryKind.PLAN))
    assert state.importance_since_reflection == 19


def test_below_threshold_no_llm_call(run: Run, fake_llm: FakeOpenAI) -> None:
    state, t = npc(), trace()

    async def scenario(stream: MemoryStream) -> list[MemoryNode]:
        await seed(stream, state)
        return await maybe_reflect(state, NOW, stream, t, work=WORK)

    assert state.importance_since_reflection < REFLECTION_THRESHOLD
    assert run(scenario) == []
    assert state.importance_since_reflection == 8 * len(EVENTS) and state.reflection_count == 0
    assert fake_llm.chat_requests() == [] and t.llm_calls == [] and t.notes == []


def test_scripted_reflection_stores_cited_thoughts(run: Run, fake_llm: FakeOpenAI, store: MemoryStore) -> None:
    """One insights call sees every question with its statements and rates its own insights."""
    state, t = npc(), trace()
    answers = [insight("Isabella Rodriguez is devoted to her party", 1, 4, importance=8),
               insight("Isabella Rodriguez relies on her friends", 2, 3, 2, importance=5),
               insight("Isabella Rodriguez's cafe is a town hub", 5, 6, 7, 8, importance=4)]
    fake_llm.queue({"json": {"questions": QUESTIONS}}, purpose="reflection_questions")
    fake_llm.queue({"json": {"insights": answers}}, purpose="reflection_insights")

    async def scenario(stream: MemoryStream) -> list[MemoryNode]:
        await seed(stream, state)
        return await maybe_reflect(state, NOW, stream, t, threshold=60, work=WORK)

    thoughts = run(scenario)
    assert (state.importance_since_reflection, state.reflection_count) == (0, 1)
    [questions_call] = [c for c in t.llm_calls if c.purpose == "reflection_questions"]
    assert all(e in questions_call.messages[1]["content"] for e in EVENTS)
    [call] = insight_calls(t)
    assert all(f'"{q}"' in call.messages[1]["content"] for q in QUESTIONS)
    shown = statements(call)
    assert len(set(shown.values())) == len(shown)  # a statement retrieved for two questions is shown once
    by_text = {n.description: n for n in thoughts}
    assert list(by_text) == [a["insight"] for a in answers]
    for answer in answers:
        thought = by_text[answer["insight"]]
        evidence = {n.id: n for n in store.get(NPC, thought.evidence_ids)}
        assert [memory_line(evidence[i]) for i in thought.evidence_ids] == [shown[n] for n in dict.fromkeys(
            answer["evidence"])]
        assert thought.kind is MemoryKind.THOUGHT and thought.subject == "Isabella Rodriguez"
        assert thought.object == "the party" and thought.created == NOW
        assert thought.importance == answer["importance"]
    assert {n.id for n in store.get(NPC, [n.id for n in thoughts])} == {n.id for n in thoughts}
    # Rated by the insights call itself: no rating call of their own.
    assert fake_llm.chat_requests("importance_batch") == [] and fake_llm.chat_requests("importance") == []
    assert any(note.startswith("reflection #1 at importance 64: 3 questions, 3 thoughts") for note in t.notes)


def test_an_insight_already_held_is_not_stored_again(run: Run, fake_llm: FakeOpenAI) -> None:
    """blind10 wrote the same insight in six reflections of one day, and each came back in prompts."""
    state = npc()
    again = insight("Isabella Rodriguez is devoted to her party", 1, 4, importance=8)
    for _ in range(2):
        fake_llm.queue({"json": {"questions": QUESTIONS}}, purpose="reflection_questions")
    fake_llm.queue({"json": {"insights": [again]}},
                   {"json": {"insights": [again, insight("Isabella Rodriguez relies on her friends", 2, 3)]}},
                   purpose="reflection_insights")

    async def scenario(stream: MemoryStream) -> list[list[MemoryNode]]:
        await seed(stream, state)
        first = await maybe_reflect(state, NOW, stream, trace(), threshold=60, work=WORK)
        await seed(stream, state)
        return [first, await maybe_reflect(state, NOW + timedelta(hours=1), stream, trace(), threshold=60, work=WORK)]

    first, second = run(scenario)
    assert [n.description for n in first] == [again["insight"]]
    assert [n.description for n in second] == ["Isabella Rodriguez relies on her friends"]


def test_a_question_whose_memories_all_stand_under_an_earlier_one_is_not_shown_empty(
        run: Run, fake_llm: FakeOpenAI) -> None:
    """Wyncombe (captured): an insights prompt ended with a question and no statement under it (its
    memories were all shown under earlier questions), which reads as a question to answer from
    nothing. Three memories, all retrieved for the first question: the others are asked with it,
    said to share the statements under them (blind7's writer read questions stacked with no
    statement between as the first left with none)."""
    state, t = npc(), trace()
    fake_llm.queue({"json": {"questions": QUESTIONS}}, purpose="reflection_questions")

    async def scenario(stream: MemoryStream) -> list[MemoryNode]:
        await seed(stream, state, EVENTS[:3])
        note_importance(state, observations(EVENTS[:3] * 3))  # enough importance to reflect on three memories
        return await maybe_reflect(state, NOW, stream, t, threshold=60, work=WORK)

    run(scenario)
    [call] = insight_calls(t)
    prompt = call.messages[1]["content"]
    asked = "\n".join(f'- "{q}"' for q in QUESTIONS)
    assert "Question:" not in prompt and f"Questions (the statements under them bear on each):\n{asked}\n1. " in prompt, \
        prompt
    assert len(statements(call)) == 3


def test_schema_driven_answers_cite_only_shown_statements(run: Run, fake_llm: FakeOpenAI,
                                                          store: MemoryStore) -> None:
    state, t = npc(), trace()
    texts = [f"Isabella Rodriguez noticed detail number {i:03d} at the cafe" for i in range(105)]

    async def scenario(stream: MemoryStream) -> list[MemoryNode]:
        await seed(stream, state, texts)
        return await maybe_reflect(state, NOW, stream, t, work=WORK)

    thoughts = run(scenario)
    assert thoughts and state.reflection_count == 1 and state.importance_since_reflection == 0
    [questions_call] = [c for c in t.llm_calls if c.purpose == "reflection_questions"]
    assert "detail number 004" not in questions_call.messages[1]["content"]
    assert "detail number 005" in questions_call.messages[1]["content"]
    assert len(insight_calls(t)) == 1
    for request in fake_llm.chat_requests("reflection_insights"):
        shown = STATEMENT.findall(request["body"]["messages"][1]["content"])
        schema = request["body"]["response_format"]["json_schema"]["schema"]
        assert schema["$defs"]["Insight"]["properties"]["evidence"]["items"]["enum"] == list(range(1, len(shown) + 1))
    shown_ids = {n.id for n in store.get(NPC, [i for n in thoughts for i in n.evidence_ids])}
    for thought in thoughts:
        assert thought.evidence_ids and set(thought.evidence_ids) <= shown_ids
    assert all(n.kind is MemoryKind.OBSERVATION for n in store.get(NPC, list(shown_ids)))


def test_out_of_range_citations_are_dropped(run: Run, fake_llm: FakeOpenAI, store: MemoryStore) -> None:
    state, t = npc(), trace()
    fake_llm.queue({"json": {"questions": QUESTIONS[:1]}}, purpose="reflection_questions")
    fake_llm.queue({"json": {"insights": [insight("Isabella Rodriguez cares about the party", 0, 2, 99, 2, -1),
                                          insight("Isabella Rodriguez is secretly a spy", 0, 99)]}},
                   purpose="reflection_insights")

    async def scenario(stream: MemoryStream) -> list[MemoryNode]:
        await seed(stream, state)
        return await maybe_reflect(state, NOW, stream, t, threshold=60, work=WORK)

    [thought] = run(scenario)
    [call] = insight_calls(t)
    [evidence] = store.get(NPC, thought.evidence_ids)
    assert thought.description == "Isabella Rodriguez cares about the party"
    assert memory_line(evidence) == statements(call)[2]
    assert any("1 questions, 1 thoughts, 5 citations outside the statements dropped" in note for note in t.notes)


def test_second_reflection_cites_the_first(run: Run, fake_llm: FakeOpenAI, store: MemoryStore) -> None:
    state = npc()
    first_texts = ["Isabella Rodriguez is devoted to her party", "Isabella Rodriguez relies on her friends",
                   "Isabella Rodriguez's cafe is a town hub"]
    fake_llm.queue({"json": {"questions": QUESTIONS}}, {"json": {"questions": ["What has Isabella realised?"]}},
                   purpose="reflection_questions")
    fake_llm.queue({"json": {"insights": [insight(text, 1, 2) for text in first_texts]}},
                   purpose="reflection_insights")
    # All 11 memories are retrieved (top_k 30), oldest first: the three thoughts are numbers 9-11.
    fake_llm.queue({"json": {"insights": [insight("Isabella Rodriguez builds community through her cafe",
                                                  9, 10, 11)]}}, purpose="reflection_insights")
    later = NOW + timedelta(hours=3)

    async def scenario(stream: MemoryStream) -> tuple[list[MemoryNode], list[MemoryNode]]:
        seeded = await seed(stream, state)
        first = await maybe_reflect(state, NOW, stream, trace(), threshold=60, work=WORK)
        note_importance(state, seeded)
        return first, await maybe_reflect(state, later, stream, trace(later), threshold=60, work=WORK)

    first, second = run(scenario)
    assert {n.description for n in first} == set(first_texts) and state.reflection_count == 2
    [root] = second
    assert set(root.evidence_ids) == {n.id for n in first}
    for thought in store.get(NPC, root.evidence_ids):
        assert thought.kind is MemoryKind.THOUGHT
        assert [n.kind for n in store.get(NPC, thought.evidence_ids)] == [MemoryKind.OBSERVATION] * 2


def test_no_questions_skips_reflection_but_resets(run: Run, fake_llm: FakeOpenAI, store: MemoryStore) -> None:
    state, t = npc(), trace()
    fake_llm.queue(*[{"content": "I wonder about many things"}] * 2, purpose="reflection_questions")

    async def scenario(stream: MemoryStream) -> tuple[list[MemoryNode], list[MemoryNode]]:
        await seed(stream, state)
        return await maybe_reflect(state, NOW, stream, t, threshold=60, work=WORK), await maybe_reflect(state, NOW, stream, t, work=WORK)

    assert run(scenario) == ([], [])
    assert (state.importance_since_reflection, state.reflection_count) == (0, 0)
    assert len(fake_llm.chat_requests("reflection_questions")) == 2 and t.llm_calls[0].fallback_used
    assert fake_llm.chat_requests("reflection_insights") == [] and store.count(NPC) == len(EVENTS)
    assert any("skipped" in note for note in t.notes)


def test_failed_insights_store_nothing_but_reset(run: Run, fake_llm: FakeOpenAI, store: MemoryStore) -> None:
    state, t = npc(), trace()
    fake_llm.queue({"json": {"questions": QUESTIONS}}, purpose="reflection_questions")
    fake_llm.queue(*[{"json": {"insights": "none"}}] * 2, purpose="reflection_insights")

    async def scenario(stream: MemoryStream) -> list[MemoryNode]:
        await seed(stream, state)
        return await maybe_reflect(state, NOW, stream, t, threshold=60, work=WORK)

    assert run(scenario) == []
    assert (state.importance_since_reflection, state.reflection_count) == (0, 0)
    assert len(fake_llm.chat_requests("reflection_insights")) == 2
    assert all(c.fallback_used for c in insight_calls(t)) and fake_llm.chat_requests("importance") == []
    assert fake_llm.chat_requests("importance_batch") == []
    assert store.count(NPC) == len(EVENTS) and any("without insights" in note for note in t.notes)


def test_five_insights_per_question_as_the_paper(run: Run, fake_llm: FakeOpenAI, store: MemoryStore) -> None:
    """The paper asks for 5 insights per question: three questions may give fifteen thoughts (in
    one call here), not six for all questions together."""
    state, t = npc(), trace()
    answers = [insight(f"Isabella Rodriguez has a reason {i} to expect a busy week", 1 + i % 8) for i in range(15)]
    fake_llm.queue({"json": {"questions": QUESTIONS}}, purpose="reflection_questions")
    fake_llm.queue({"json": {"insights": answers}}, purpose="reflection_insights")

    async def scenario(stream: MemoryStream) -> list[MemoryNode]:
        await seed(stream, state)
        return await maybe_reflect(state, NOW, stream, t, threshold=60, work=WORK)

    thoughts = run(scenario)
    [request] = fake_llm.chat_requests("reflection_insights")
    assert request["body"]["response_format"]["json_schema"]["schema"]["properties"]["insights"]["maxItems"] == 15
    assert "up to 5 insights for each\nquestion" in request["body"]["messages"][1]["content"]
    assert len(thoughts) == 15


@pytest.mark.slow  # 100 memories through MiniLM: ~6 s
def test_over_the_prompt_budget_the_oldest_lowest_scored_statements_go_whole(run: Run, fake_llm: FakeOpenAI,
                                                                             store: MemoryStore) -> None:
    """A reflection over 100 memories with long memos of conversations: the budget drops whole old,
    low-rated memos, not the newest events that triggered it, and the numbers cited are the ones shown,
    as the prompt says them ("the numbers (1 to N)")."""
    state, t = npc(), trace()
    said = " ".join(f"Klaus Mueller said {i} things about the weather and the library, nothing more." for i in range(8))
    old = [MemoryNode(npc_id=NPC, kind=MemoryKind.THOUGHT, importance=2, description=f"conversation with Klaus {i}: "
                      f"{said}", created=T0 - timedelta(hours=9, minutes=-i), last_accessed=T0 - timedelta(hours=9))
           for i in range(95)]
    fake_llm.queue({"json": {"questions": QUESTIONS}}, purpose="reflection_questions")
    fake_llm.queue({"json": {"insights": [insight("Isabella Rodriguez is devoted to her party", 1, 2)]}},
                   purpose="reflection_insights")

    async def scenario(stream: MemoryStream) -> list[MemoryNode]:
        stream.llm.prompt_max_bytes = 9000
        await stream.remember(NPC, state.persona, old, None, rate=False)
        await seed(stream, state, EVENTS[:5])
        return await maybe_reflect(state, NOW, stream, t, threshold=30, work=WORK)

    [thought] = run(scenario)
    [questions_call] = [c for c in t.llm_calls if c.purpose == "reflection_questions"]
    asked = questions_call.messages[1]["content"]
    assert all(e in asked for e in EVENTS[:5]), "the newest events that triggered the reflection are shown"
    assert "[...]" not in asked and asked.count("conversation with Klaus") < 95
    [call] = insight_calls(t)
    shown = statements(call)
    assert sorted(shown) == list(range(1, len(shown) + 1)), "renumbered without gaps"
    assert all(any(s.endswith(f"] {e}") for s in shown.values()) for e in EVENTS[:5])  # each after its date
    assert "[...]" not in call.messages[1]["content"]
    evidence = {n.id: memory_line(n) for n in store.get(NPC, thought.evidence_ids)}  # as shown
    assert [evidence[i] for i in thought.evidence_ids] == [shown[1], shown[2]]
    [request] = fake_llm.chat_requests("reflection_insights")
    schema = request["body"]["response_format"]["json_schema"]["schema"]
    cited = schema["$defs"]["Insight"]["properties"]["evidence"]["items"]
    assert cited["maximum"] == len(shown), "the schema allows citing only the statements shown"
    # and the prompt's words name as many as it shows, not as many as were retrieved (blind34's writer)
    assert f"numbers (1 to\n{len(shown)})" in call.messages[1]["content"], call.messages[1]["content"][-900:]
    assert any("dropped" in note for note in t.notes)


def test_an_insight_that_only_says_again_a_statement_it_cites_is_none() -> None:
    """The hard stand-in and blind9 wrote "Agnes Hale learned that Agnes Hale is having breakfast" and
    "Teodor Marek has noticed a pattern: Ivo Kranjc is chatting with Teodor Marek": stored, they came
    back in every prompt as news. An insight saying more than what it cites is kept."""
    def said(text: str) -> MemoryNode:
        return MemoryNode(npc_id=NPC, kind=MemoryKind.OBSERVATION, description=text, importance=2,
                          created=datetime(2026, 2, 13, 8, tzinfo=UTC), last_accessed=datetime(2026, 2, 13, 8, tzinfo=UTC))

    breakfast, chat = said("Agnes Hale is having breakfast (finishing: having breakfast)"), \
        said("Ivo Kranjc is chatting with Teodor Marek")
    assert restates("Agnes Hale learned that Agnes Hale is having breakfast", [chat, breakfast])
    assert restates("Teodor Marek has noticed a pattern: Ivo Kranjc is chatting with Teodor Marek", [chat])
    assert not restates("Agnes Hale starts her days slowly, over a long breakfast", [breakfast])
    assert not restates("Ivo Kranjc and Teodor Marek are becoming friends", [chat, breakfast])


def test_reflection_sees_a_run_of_ones_own_steps_once_and_a_blocks_plan_by_its_header(
        run: Run, fake_llm: FakeOpenAI) -> None:
    """blind28's writer: a host's reflection was asked about her routine, not people, where half of
    her 100 latest memories were her own steps ("working at the slipway (taking a short break)",
    "(tidying up afterwards)", ...) and the block plans listing them again. A run of one activity's
    steps is one line with its span, a block's plan its header; what others do and say is as it was."""
    state, t = npc(), trace()
    name = "Isabella Rodriguez"
    steps = [f"{name} is serving at the counter ({s})" for s in ("opening up", "pouring coffee", "wiping the tables")]
    texts = [steps[0], "Klaus Mueller is reading a book about gentrification at the cafe", *steps[1:],
             f"{name} is chatting with Klaus Mueller", f"{name} is serving at the counter (pouring coffee)"]
    header = f"{name}'s plan for 08:00-10:00 on Friday February 13, 2026, serving at the counter"
    fake_llm.queue({"json": {"questions": ["Who comes to the cafe?"]}}, purpose="reflection_questions")

    async def scenario(stream: MemoryStream) -> None:
        nodes = observations(texts, importance=5)
        for node in nodes:
            node.subject = name if node.description.startswith(name) else ""
        plan = MemoryNode(npc_id=NPC, kind=MemoryKind.PLAN, description=f"{header}: opening up (10 min); pouring coffee "
                          "(10 min)", created=T0 - timedelta(minutes=1), last_accessed=T0, embedding_key=header,
                          subject=name)
        stored = await stream.remember(NPC, state.persona, [plan, *nodes], None, rate=False)
        note_importance(state, stored)
        await maybe_reflect(state, NOW, stream, t, threshold=1, work=WORK)

    run(scenario)
    asked = fake_llm.chat_requests("reflection_questions")[0]["body"]["messages"][1]["content"]
    listed = [line for line in asked.splitlines() if line.startswith("- [")]
    assert [line.split("] ", 1)[1] for line in listed] == [
        header, f"{name} is serving at the counter (08:00 to 08:03)",
        "Klaus Mueller is reading a book about gentrification at the cafe", f"{name} is chatting with Klaus Mueller",
        f"{name} is serving at the counter (pouring coffee)"]
    insights = fake_llm.chat_requests("reflection_insights")[0]["body"]["messages"][1]["content"]
    assert f"] {header}\n" in insights and "opening up (10 min)" not in insights  # its statements too
