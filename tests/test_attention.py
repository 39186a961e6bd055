"""Cognitive level of detail through the real transports (DecideRequest.attention): an NPC the
player cannot see follows its hour blocks without steps and talks in one call; back in view its
block is broken into steps at once; what it learned out of view is kept."""

from __future__ import annotations

import pytest

from tests.clients import Clients
from tests.test_mind import CAFE, klaus
from tests.town import WORLD, spawn_json, world_json

UNSEEN, SEEN = "ATTENTION_OUT_OF_VIEW", "ATTENTION_IN_VIEW"
TURN_BY_TURN = ("react", "relationship", "converse_turn", "conversation_memo")


@pytest.fixture
def clients(brain_factory):
    c = Clients(brain_factory())
    c.grpc("RegisterWorld", world_json())
    c.grpc("SpawnNpc", spawn_json())
    c.grpc("SpawnNpc", klaus())
    yield c
    c.close()


def decide(clients: Clients, npc_id: str, time: str, attention: str, *seen: str) -> dict:
    perceptions = [{"subject": who, "predicate": "is", "object": "reading", "description": f"{who} is reading",
                    "address": CAFE, "distance": 2} for who in seen]
    return clients.grpc("Decide", {"npcId": npc_id, "gameTime": f"2026-02-13T{time}:00Z", "address": CAFE,
                                   "perceptions": perceptions, "attention": attention})


def notes(clients: Clients, reply: dict) -> list[str]:
    return clients.grpc("GetTrace", {"traceId": reply["traceId"]})["trace"].get("notes", [])


def test_unseen_npcs_talk_in_one_call_and_both_remember_it(clients: Clients, fake_llm) -> None:
    decide(clients, "isabella", "09:00", UNSEEN)
    decide(clients, "klaus", "09:00", UNSEEN)
    memo = {"summary": "", "importance": 7, "plan_activity": "", "plan_date": "", "plan_start": "", "plan_minutes": 0}
    fake_llm.queue({"json": {
        "talk": True,
        "lines": [{"speaker": "Isabella Rodriguez", "text": "Klaus, come to my party at the cafe at 5 pm!"},
                  {"speaker": "Klaus Mueller", "text": "I'll be there."}],
        "first": memo | {"summary": "Klaus Mueller will come to my party at 5 pm"},
        "second": memo | {"summary": "Isabella Rodriguez invited me to her party at 5 pm today",
                          "plan_activity": "going to Isabella's party", "plan_date": "2026-02-13",
                          "plan_start": "17:00", "plan_minutes": 120}}}, purpose="conversation_summary")
    before = len(fake_llm.chat_requests())
    reply = decide(clients, "isabella", "09:40", UNSEEN, "Klaus Mueller")
    assert reply["action"]["chattingWith"] == "klaus"
    assert [line["text"] for line in reply["action"]["dialogue"]] == [
        "Klaus, come to my party at the cafe at 5 pm!", "I'll be there."]
    asked = [r["purpose"] for r in fake_llm.chat_requests()[before:]]
    assert asked.count("conversation_summary") == 1 and not set(asked) & set(TURN_BY_TURN), asked
    prompt = fake_llm.chat_requests("conversation_summary")[0]["body"]["messages"][1]["content"]
    assert "Name: Isabella Rodriguez" in prompt and "Name: Klaus Mueller" in prompt
    for npc_id, gist in (("isabella", "Klaus Mueller will come"), ("klaus", "invited me to her party")):
        chats = clients.grpc("ListMemories", {"npcId": npc_id, "kind": "MEMORY_KIND_CHAT"})["memories"]
        thoughts = clients.grpc("ListMemories", {"npcId": npc_id, "kind": "MEMORY_KIND_THOUGHT"})["memories"]
        assert "come to my party at the cafe at 5 pm" in chats[0]["description"]
        assert any(gist in t["description"] and t["evidenceIds"] == [chats[0]["id"]] for t in thoughts)
    party = decide(clients, "klaus", "17:30", UNSEEN)
    assert party["action"]["description"].startswith("Klaus Mueller is going to Isabella's party")


def test_a_place_named_in_a_conversation_is_known_to_all_in_it_after(brain_factory, fake_llm) -> None:
    """Korrin and Tarnbeck (blind2, 10 seeds each way): on the event's day not one day plan of those
    who had heard of it offered the event's place (the engine depot's mess room, the mill's loft):
    told where it was, nobody learned where that is unless the talk booked it. A place a
    conversation names is known to all in it, as a place they may plan to go."""
    world = world_json()
    world["world"]["sectors"].append({"name": "Oak Hill College", "arenas": [
        {"name": "library", "tiles": [{"x": x, "y": 9} for x in range(1, 6)], "objects": []}]})
    c = Clients(brain_factory())
    c.grpc("RegisterWorld", world)
    isabella = spawn_json()
    isabella["persona"]["knownAreas"].append(f"{WORLD}:Oak Hill College:library")
    c.grpc("SpawnNpc", isabella)
    c.grpc("SpawnNpc", klaus())
    decide(c, "isabella", "09:00", UNSEEN)
    decide(c, "klaus", "09:00", UNSEEN)
    memo = {"summary": "small talk", "importance": 3, "plan_activity": "", "plan_date": "", "plan_start": "",
            "plan_minutes": 0}
    fake_llm.queue({"json": {"talk": True, "lines": [
        {"speaker": "Isabella Rodriguez", "text": "The reading club meets in the library at Oak Hill College now."},
        {"speaker": "Klaus Mueller", "text": "Good to know."}], "first": memo, "second": memo}},
        purpose="conversation_summary")
    assert decide(c, "isabella", "09:40", UNSEEN, "Klaus Mueller")["action"]["chattingWith"] == "klaus"
    before = len(fake_llm.chat_requests("daily_plan"))
    c.grpc("Decide", {"npcId": "klaus", "gameTime": "2026-02-14T07:00:00Z", "address": CAFE, "attention": UNSEEN})
    [plan] = fake_llm.chat_requests("daily_plan")[before:]
    assert f"- {WORLD}:Oak Hill College:library" in plan["body"]["messages"][1]["content"]
    c.close()


def test_unseen_npcs_that_do_not_stop_to_talk_carry_on(clients: Clients, fake_llm) -> None:
    decide(clients, "isabella", "09:00", UNSEEN)
    decide(clients, "klaus", "09:00", UNSEEN)
    fake_llm.queue({"json": {"talk": False}}, purpose="conversation_summary")
    reply = decide(clients, "isabella", "09:40", UNSEEN, "Klaus Mueller")
    assert not reply["action"].get("chattingWith")
    assert any("did not stop to talk" in n for n in notes(clients, reply))
    assert not clients.grpc("ListMemories", {"npcId": "klaus", "kind": "MEMORY_KIND_CHAT"}).get("memories")


def test_one_npc_in_view_makes_the_conversation_turn_by_turn(clients: Clients, fake_llm) -> None:
    decide(clients, "isabella", "09:00", UNSEEN)
    decide(clients, "klaus", "09:00", SEEN)
    fake_llm.queue({"json": {"choice": "talk", "reason": "say hello", "new_activity": ""}}, purpose="react")
    fake_llm.queue({"json": {"utterance": "Hello Klaus!", "end_conversation": True}}, purpose="converse_turn")
    reply = decide(clients, "isabella", "09:40", UNSEEN, "Klaus Mueller")
    assert reply["action"]["dialogue"][0]["text"] == "Hello Klaus!"
    assert not fake_llm.chat_requests("conversation_summary")


@pytest.mark.parametrize("news", [False, True])
def test_in_view_a_caller_who_finds_the_one_it_called_on_talks_without_asking(clients: Clients, fake_llm,
                                                                               news: bool) -> None:
    """Korrin and Tarnbeck (blind2, in view): hosts laid calls on people at home ("calling on ...")
    and, finding them there, were asked whether to react and carried on, leaving without a word. A
    block that is a call on someone is a conversation when they are found: no reaction is asked.
    Its reason is the news the caller came to tell, when it holds some (blind9's host, shown only
    that it came to call, greeted and took leave with the lesson unsaid)."""
    if news:
        clients.grpc("Whisper", {"npcId": "isabella", "gameTime": "2026-02-13T07:00:00Z", "text":
                                 "Isabella Rodriguez wants to hold a Valentine's Day party at Hobbs Cafe on "
                                 "February 14 from 5 pm to 7 pm"})
    def block(start: str, minutes: int, activity: str) -> dict:
        return {"start": start, "duration_minutes": minutes, "activity": activity, "emoji": "", "address": CAFE}

    fake_llm.queue({"json": {"wake_up_hour": 7, "outline": ["open the cafe", "call on Klaus", "run the cafe", "sleep"], "blocks": [
        block("07:00", 150, "running the cafe"), block("09:30", 60, "calling on Klaus Mueller"),
        block("10:30", 720, "running the cafe")]}}, purpose="daily_plan")
    talks_with_klaus_unasked(clients, fake_llm, "Klaus, I came to see you!", "whom it came to call on",
                             "came to call on Klaus Mueller" + (" to tell them about a Valentine's Day party" if news else ""))


def talks_with_klaus_unasked(clients: Clients, fake_llm, line: str, note: str, reason: str) -> None:
    """Isabella, noticing Klaus in view at 09:40, talks with him (`line`) with no reaction asked, the
    trace saying `note` and her turn's prompt the conversation's `reason`."""
    decide(clients, "isabella", "09:00", SEEN)
    decide(clients, "klaus", "09:00", SEEN)
    fake_llm.queue({"json": {"utterance": line, "end_conversation": True}}, purpose="converse_turn")
    reply = decide(clients, "isabella", "09:40", SEEN, "Klaus Mueller")
    assert reply["action"]["dialogue"][0]["text"] == line
    assert not fake_llm.chat_requests("react")
    assert any(note in n for n in notes(clients, reply))
    assert f"(reason: {reason})" in fake_llm.chat_requests("converse_turn")[0]["body"]["messages"][1]["content"]


def test_in_view_a_host_who_meets_one_it_has_not_told_its_event_talks_without_asking(clients: Clients,
                                                                                      fake_llm) -> None:
    """The paper's Isabella invites whoever she meets; blind9 and blind10, asked whether to react,
    chose to talk at 0.6 and 0.3 of such sightings, so most hosts met one or two people in two days.
    A host noticing one it has not told its own event talks with them, no reaction asked, saying
    why; heard news leaves the choice to the model."""
    clients.grpc("Whisper", {"npcId": "isabella", "gameTime": "2026-02-13T07:00:00Z", "text":
                             "Isabella Rodriguez wants to hold a Valentine's Day party at Hobbs Cafe on "
                             "February 14 from 5 pm to 7 pm"})
    talks_with_klaus_unasked(clients, fake_llm, "Klaus! Come to my party tomorrow at five.",
                             "about its own event (no reaction asked)", "wants to tell them about a Valentine's Day party")


def test_out_of_view_the_block_has_no_steps_until_it_comes_into_view(clients: Clients, fake_llm) -> None:
    first = decide(clients, "isabella", "09:00", UNSEEN)
    assert any(n.startswith("attention: out of view") for n in notes(clients, first))
    for time in ("09:20", "10:05", "11:30"):
        decide(clients, "isabella", time, UNSEEN)
    assert not fake_llm.chat_requests("decompose"), "no 5-15 minute steps out of view"
    seen = decide(clients, "isabella", "11:35", SEEN)
    assert any(n.startswith("attention: in view") for n in notes(clients, seen))
    assert fake_llm.chat_requests("decompose"), "back in view, the block in progress gets its steps"
    again = decide(clients, "isabella", "11:40", SEEN)
    assert not any(n.startswith("attention:") for n in notes(clients, again)), "noted only when it changes"
    unset = clients.grpc("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T11:45:00Z", "address": CAFE})
    assert not any(n.startswith("attention:") for n in notes(clients, unset)), "unset is in view"


def test_out_of_view_reflection_waits_for_twice_the_importance(brain_factory, fake_llm) -> None:
    """Rated importance 36 crosses a threshold of 30: the NPC in view reflects, the one out of view
    waits until 60 (its reflections come half as often, each on more)."""
    c = Clients(brain_factory(reflection_threshold=30, importance_batch_minutes=0))
    c.grpc("RegisterWorld", world_json())
    c.grpc("SpawnNpc", spawn_json())
    c.grpc("SpawnNpc", klaus())
    for npc_id, attention in (("isabella", SEEN), ("klaus", UNSEEN)):
        decide(c, npc_id, "09:00", attention)
        fake_llm.queue({"json": {"ratings": [9, 9, 9, 9]}}, purpose="importance_batch")
        decide(c, npc_id, "09:10", attention, "Ann Lee", "Bo Chen", "Cy Diaz", "Di Eng")
        decide(c, npc_id, "09:20", attention)  # lockstep reflects after the Decide that finds it due
    assert len(fake_llm.chat_requests("importance_batch")) == 2
    asked = [r["body"]["messages"][0]["content"] for r in fake_llm.chat_requests("reflection_questions")]
    assert [("Isabella" in a, "Klaus" in a) for a in asked] == [(True, False)]
    c.close()
