"""The "speakers' memories swapped" control (issue 42; `MemoryStream.heads`, NPC_BRAIN_ABLATE=
swap_speakers): every conversation prompt, and the reaction that decides whether to talk, shows
each speaker the memories and news retrieved for the other instead of its own, so a teller sees its
news only through its partner's head. Read off the requests the fake endpoint captured: on a real
brain for a pair in view (reaction, relationships, turns) and out of view (the one call), in
process for a group of three; without the control, each its own. The leakage measure
(npc_lab/sim/exposure.py) reads the swap from the same requests."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime
import re

import pytest

from brain_server.cognition.groups import Group, talk_in_group, tell_group
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.speaker import Speaker
from brain_server.llm.scheduler import Priority, Work
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import Persona
from brain_server.model.trace import Trace
from npc_lab.fake_openai import FakeOpenAI
from npc_lab.sim.exposure import leakage, speakers_parts
from tests.clients import Clients
from tests.test_mind import CAFE, klaus
from tests.town import spawn_json, world_json

SWAP = "swap_speakers"
UNSEEN, SEEN = "ATTENTION_OUT_OF_VIEW", "ATTENTION_IN_VIEW"
NAMES = {"isabella": "Isabella Rodriguez", "klaus": "Klaus Mueller"}
# What only each holds, each naming the other (so it is also what each remembers about the other).
KNOWS = {"isabella": ("Valentine", "Isabella Rodriguez is hosting a Valentine's Day party at Hobbs Cafe on February 14 "
                                   "at 5 pm and wants Klaus Mueller to come"),
         "klaus": ("stag beetle", "Klaus Mueller found a rare stag beetle on the library steps and wants to show it "
                                  "to Isabella Rodriguez")}


def decide(c: Clients, npc_id: str, time: str, attention: str, *seen: str, doing: str = "reading") -> dict:
    perceptions = [{"subject": who, "predicate": "is", "object": doing, "description": f"{who} is {doing}",
                    "address": CAFE, "distance": 2} for who in seen]
    return c.grpc("Decide", {"npcId": npc_id, "gameTime": f"2026-02-13T{time}:00Z", "address": CAFE,
                             "perceptions": perceptions, "attention": attention})


def mind(request: dict) -> str:
    """Whose prompt a captured request is (its system line names the mind)."""
    found = re.search(r"inner mind of ([^,.\n]+)", request["body"]["messages"][0]["content"])
    assert found, request["body"]["messages"][0]["content"]
    return found.group(1).strip()


def user(request: dict) -> str:
    return "\n".join(m["content"] for m in request["body"]["messages"] if m["role"] == "user")


def shown(text: str) -> set[str]:
    """Which of the two NPCs' own news a prompt (or a part of one) shows."""
    return {npc for npc, (mark, _) in KNOWS.items() if mark in text}


@pytest.mark.parametrize("ablate", ["", SWAP])
def test_a_pairs_prompts_show_each_speaker_the_others_memories_under_the_control(brain_factory, fake_llm: FakeOpenAI,
                                                                               ablate: str) -> None:
    """In view: Isabella's reaction to Klaus (under the control: without it, a host meeting one she has
    not told talks without one), both relationship prompts and both turns; out of view:
    each speaker's part of the one call. Under the control each shows only the other's memory and
    news (and so the teller's news sits in the listener's head); without it, only its own."""
    c = Clients(brain_factory(ablate=ablate))
    try:
        c.grpc("RegisterWorld", world_json())
        c.grpc("SpawnNpc", spawn_json())
        c.grpc("SpawnNpc", klaus())
        for npc_id in NAMES:
            decide(c, npc_id, "09:00", SEEN)
        # Statuses that keep what each whispered day (else the whisper leads it again, and the host's
        # re-plan goes calling on Klaus, which a reaction is not asked for).
        fake_llm.queue({"json": {"currently": "Isabella Rodriguez runs Hobbs Cafe and counts down to February 14."}},
                       {"json": {"currently": "Klaus Mueller is writing his thesis."}}, purpose="revise_currently")
        for npc_id, (_, text) in KNOWS.items():
            c.grpc("Whisper", {"npcId": npc_id, "text": text, "gameTime": "2026-02-13T09:05:00Z"})
        decide(c, "klaus", "09:30", SEEN)
        fake_llm.queue({"json": {"choice": "talk", "reason": "to say hello", "new_activity": ""}}, purpose="react")
        fake_llm.queue({"json": {"utterance": "Hello Klaus.", "end_conversation": False}},
                       {"json": {"utterance": "Hello Isabella, bye now.", "end_conversation": True}},
                       purpose="converse_turn")
        assert decide(c, "isabella", "09:40", SEEN, NAMES["klaus"])["action"].get("chattingWith") == "klaus"
        for npc_id in NAMES:  # the chat cooldown (2 h) past, out of the player's view
            decide(c, npc_id, "11:45", UNSEEN)
        fake_llm.queue({"json": {"talk": False, "lines": [], "first": None, "second": None}},
                       purpose="conversation_summary")
        decide(c, "isabella", "11:50", UNSEEN, NAMES["klaus"], doing="writing")  # a sight not seen before
        memories = {npc_id: c.grpc("ListMemories", {"npcId": npc_id, "limit": 1000}).get("memories", [])
                    for npc_id in NAMES}
    finally:
        c.close()

    ids = {name: npc_id for npc_id, name in NAMES.items()}
    other = {"isabella": "klaus", "klaus": "isabella"}
    expect = (lambda npc_id: {other[npc_id]}) if ablate else (lambda npc_id: {npc_id})
    react = fake_llm.chat_requests("react")
    if ablate:  # her head holds his news, no event of hers: she is asked whether to talk
        assert [mind(r) for r in react] == [NAMES["isabella"]] and shown(user(react[0])) == expect("isabella")
    else:  # a host meeting one she has not told her own event talks without being asked
        assert react == []
    turns = fake_llm.chat_requests("converse_turn")
    # Klaus takes leave at his first line, and Isabella, her news (or under the control Klaus's) unsaid, has a last word.
    assert [mind(r) for r in turns] == [NAMES["isabella"], NAMES["klaus"], NAMES["isabella"]]
    for request in [*turns, *fake_llm.chat_requests("relationship")]:
        npc_id = ids[mind(request)]
        assert shown(user(request).split("The conversation so far")[0]) == expect(npc_id), (npc_id, user(request))
    [summary] = fake_llm.chat_requests("conversation_summary")
    parts = speakers_parts(user(summary))
    assert {ids[who]: shown(part) for who, part in parts.items()} == {i: expect(i) for i in NAMES}, parts

    calls = [{"purpose": r["purpose"], "messages": r["body"]["messages"]} for r in fake_llm.chat_requests()]
    leaked = leakage(calls, memories, NAMES)
    assert leaked is not None and leaked["lines"] >= 8
    # Their shared sights ("Klaus Mueller is reading", seen by both) are each one's own: near, not at, 100%.
    assert (leaked["share"] >= 0.5) if ablate else leaked["leaked"] == 0, leaked


GROUP = {"ana": ("Ana Rook", "Ana Rook saw a heron over the mill pond"),
         "bo": ("Bo Pell", "Bo Pell lost his green umbrella at the market"),
         "cy": ("Cy Darn", "Cy Darn baked a plum tart for the harvest fair")}
NOW = datetime(2026, 5, 4, 10, tzinfo=UTC)
WORK = Work(Priority.PLAN_NOW, "test")


@pytest.mark.parametrize("ablate", [frozenset(), frozenset({SWAP})])
def test_a_group_passes_each_speaker_the_next_ones_memories_under_the_control(
        stream: MemoryStream, fake_llm: FakeOpenAI, ablate: frozenset[str]) -> None:
    """Three speakers (Ana, Bo, Cy in that order): under the control each is shown the next one's
    memories (Ana Bo's, Bo Cy's, Cy Ana's), in each turn written line by line and in its part of the
    one call; without it, its own."""
    swapped = replace(stream, weights=replace(stream.weights, ablate=ablate))
    speakers = [Speaker(npc_id, Persona(name=name, home="w:h:room")) for npc_id, (name, _) in GROUP.items()]
    fake_llm.queue(*[{"json": {"utterance": f"Line {n}.", "addressed_to": "everyone", "end_conversation": False}}
                     for n in range(3)], purpose="group_turn")
    fake_llm.queue({"json": {"talk": False, "lines": [], "memos": []}}, purpose="group_summary")

    async def talk() -> None:
        for npc_id, (name, text) in GROUP.items():
            await stream.remember(npc_id, None, [MemoryNode(npc_id=npc_id, kind=MemoryKind.OBSERVATION,
                                                            description=text, subject=name, importance=5,
                                                            created=NOW, last_accessed=NOW)], None, rate=False)
        trace = Trace(npc_id="ana", kind="talk", game_time=NOW)
        await talk_in_group(Group(list(speakers)), NOW, "w:green", swapped, trace, work=WORK, max_lines=3)
        await tell_group(speakers, NOW, "w:green", swapped, trace, work=WORK)

    asyncio.run(talk())
    order = list(GROUP)
    head = {npc_id: order[(i + 1) % 3] if ablate else npc_id for i, npc_id in enumerate(order)}
    ids = {name: npc_id for npc_id, (name, _) in GROUP.items()}

    def holds(text: str) -> set[str]:
        return {npc_id for npc_id, (_, memory) in GROUP.items() if memory in text}

    turns = fake_llm.chat_requests("group_turn")
    assert len(turns) == 3
    for request in turns:
        npc_id = ids[mind(request)]
        assert holds(user(request).split("The conversation so far")[0]) == {head[npc_id]}, (npc_id, user(request))
    [summary] = fake_llm.chat_requests("group_summary")
    assert {ids[who]: holds(part) for who, part in speakers_parts(user(summary)).items()} == \
        {npc_id: {head[npc_id]} for npc_id in order}


def test_a_news_line_belongs_to_the_part_it_stands_in() -> None:
    """A pair's news line follows its memories, bulleted ("- Ana Rook has news ..."): it was read as
    the part of a speaker named "- Ana Rook", so a one-call conversation's news never counted in
    exposure. It belongs to the part it stands in (a group's: the part it leads into), whoever it
    names: under the control a speaker's part shows the other's news."""
    pair = ("It is Monday May 4, 10:00, at the green.\nWhat Bo Pell remembers that may come up:\n- nets\n"
            "- Ana Rook has news on their mind: a kite fair.\n\nWhat Bo Pell has planned:\n- (nothing)\n\n"
            "What Ana Rook remembers that may come up:\n- a heron\n\nPlaces Bo Pell knows:\n- the green")
    assert speakers_parts(pair) == {"Bo Pell": "- nets\n- Ana Rook has news on their mind: a kite fair.",
                                    "Ana Rook": "- a heron"}
    group = ("Name: Bo Pell\nPlaces Bo Pell knows: the green\nAna Rook has news on their mind: a kite fair.\n"
             "What Bo Pell remembers that may come up:\n- nets")
    assert speakers_parts(group) == {"Bo Pell": "Ana Rook has news on their mind: a kite fair.\n- nets"}
