"""Conversations of three or more and the player interrupting one (issue 31), driven through the
RPCs on a real brain against the fake endpoint: news one NPC knows reaches all three from one
group conversation, in view line by line and out of view in one call; the player's words to an
NPC in a conversation turn it away, and both conversations stay in the memories of all involved.
The turn-taking policy and an interruption while the lines are being written run in process."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
import json
import threading

import pytest

from brain_server.cognition.groups import Group, next_speaker, talk_in_group
from brain_server.cognition.speaker import Speaker
from brain_server.llm.scheduler import Priority, Work
from brain_server.model.npc import DialogueLine, Persona
from brain_server.model.trace import Trace
from npc_lab import group_bench
from tests.clients import Clients
from tests.test_mind import CAFE, klaus
from tests.town import WORLD, spawn_json, world_json
from tests.waits import wait_until

WORK = Work(Priority.PLAN_NOW, "test")  # what the completions here are for


UNSEEN, SEEN = "ATTENTION_OUT_OF_VIEW", "ATTENTION_IN_VIEW"
NEWS = "Isabella is hosting a Valentine's Day party at Hobbs Cafe on February 14 at 5 pm"
APARTMENT = f"{WORLD}:Isabella Rodriguez's apartment:main room"
NAMES = {"isabella": "Isabella Rodriguez", "klaus": "Klaus Mueller", "maria": "Maria Lopez"}


def maria() -> dict:
    body = spawn_json("maria")
    body["persona"].update({"name": "Maria Lopez", "identity": "Maria studies physics and streams games.",
                            "home": CAFE, "knownAreas": [CAFE]})
    return body | {"address": CAFE}


@pytest.fixture
def town(brain_factory):
    c = Clients(brain_factory())
    c.grpc("RegisterWorld", world_json())
    for body in (spawn_json(), klaus(), maria()):
        c.grpc("SpawnNpc", body)
    yield c
    c.close()


def decide(c: Clients, npc_id: str, time: str, attention: str = SEEN, *seen: str) -> dict:
    perceptions = [{"subject": who, "predicate": "is", "object": "reading", "description": f"{who} is reading",
                    "address": CAFE, "distance": 2} for who in seen]
    return c.grpc("Decide", {"npcId": npc_id, "gameTime": f"2026-02-13T{time}:00Z", "address": CAFE,
                             "perceptions": perceptions, "attention": attention})


def chats(c: Clients, npc_id: str) -> list[str]:
    return [m["description"] for m in c.grpc("ListMemories", {"npcId": npc_id, "kind": "MEMORY_KIND_CHAT"})
            .get("memories", [])]


def line(text: str, to: str = "everyone", end: bool = False) -> dict:
    return {"json": {"utterance": text, "addressed_to": to, "end_conversation": end}}


def meet(c: Clients, attention: str) -> None:
    """All three at the cafe, Isabella knowing the news; she then sees the other two."""
    for npc_id in NAMES:
        decide(c, npc_id, "09:00", attention)
    c.grpc("Whisper", {"npcId": "isabella", "text": NEWS, "gameTime": "2026-02-13T09:05:00Z"})
    decide(c, "klaus", "09:30", attention)
    decide(c, "maria", "09:30", attention)


def test_three_npcs_talk_together_and_all_remember_the_news(town: Clients, fake_llm) -> None:
    meet(town, SEEN)
    fake_llm.queue({"json": {"choice": "talk", "reason": "to tell them about the party", "new_activity": ""}},
                   purpose="react")
    fake_llm.queue(line("Have you heard? I'm hosting a party at the cafe tomorrow at 5 pm!", to="Maria Lopez"),
                   line("How lovely, I'll come!"), line("Count me in. I have to run, see you there!", end=True),
                   line("See you tomorrow, Maria!", end=True), purpose="group_turn")
    reply = decide(town, "isabella", "09:40", SEEN, "Klaus Mueller", "Maria Lopez")
    action = reply["action"]
    assert action["description"] in ("Isabella Rodriguez is chatting with Klaus Mueller and Maria Lopez",
                                     "Isabella Rodriguez is chatting with Maria Lopez and Klaus Mueller")
    # Addressed by name, then who has spoken least, then (a tie) who joined first.
    assert [d["speakerName"] for d in action["dialogue"]] == [NAMES["isabella"], NAMES["maria"], NAMES["klaus"],
                                                              NAMES["isabella"]]
    prompts = [r["body"]["messages"][1]["content"] for r in fake_llm.chat_requests("group_turn")]
    assert len(prompts) == 4 and not fake_llm.chat_requests("converse_turn")
    # Each line from the speaker's own memories: only Isabella remembers the whisper.
    assert "Valentine's Day party" in prompts[0].split("The conversation so far")[0]
    assert "Valentine's Day party" not in prompts[1].split("The conversation so far")[0]
    assert len(fake_llm.chat_requests("conversation_memo")) == 3
    for npc_id in NAMES:
        assert any("hosting a party at the cafe tomorrow" in m for m in chats(town, npc_id)), npc_id
        assert decide(town, npc_id, "09:41")["action"].get("chattingWith"), "all three stand chatting"


def test_out_of_view_a_group_is_told_in_one_call_and_plans_change(town: Clients, fake_llm) -> None:
    meet(town, UNSEEN)
    memo = {"importance": 7, "plan_activity": "", "plan_date": "", "plan_start": "", "plan_minutes": 0}
    invited = memo | {"plan_activity": "going to Isabella's party", "plan_date": "2026-02-13",
                      "plan_start": "17:00", "plan_minutes": 120}
    fake_llm.queue({"json": {"talk": True, "lines": [
        {"speaker": NAMES["isabella"], "text": "Come to my party at the cafe at 5 pm today!"},
        {"speaker": NAMES["klaus"], "text": "I'll be there."}, {"speaker": NAMES["maria"], "text": "Me too!"}],
        "memos": [memo | {"name": NAMES["isabella"], "summary": "Klaus and Maria will come to my party"},
                  invited | {"name": NAMES["klaus"], "summary": "Isabella invited us to her party at 5 pm"},
                  invited | {"name": NAMES["maria"], "summary": "Isabella invited me to her party at 5 pm"}]}},
        purpose="group_summary")
    before = len(fake_llm.chat_requests())
    reply = decide(town, "isabella", "09:40", UNSEEN, "Klaus Mueller", "Maria Lopez")
    assert len(reply["action"]["dialogue"]) == 3
    asked = [r["purpose"] for r in fake_llm.chat_requests()[before:]]
    assert asked.count("group_summary") == 1 and not {"react", "group_turn", "conversation_memo"} & set(asked), asked
    prompt = fake_llm.chat_requests("group_summary")[0]["body"]["messages"][1]["content"]
    assert all(f"Name: {name}" in prompt for name in NAMES.values())
    for npc_id in NAMES:
        assert any("party at the cafe at 5 pm" in m for m in chats(town, npc_id)), npc_id
    for npc_id in ("klaus", "maria"):
        assert decide(town, npc_id, "17:30", UNSEEN)["action"]["description"].endswith("going to Isabella's party")


def test_the_player_interrupts_a_pair_and_both_remember_both_conversations(town: Clients, fake_llm) -> None:
    for npc_id in ("isabella", "klaus"):
        decide(town, npc_id, "09:00")
    fake_llm.queue({"json": {"choice": "talk", "reason": "say hello", "new_activity": ""}}, purpose="react")
    fake_llm.queue({"json": {"utterance": "Morning Klaus, how is the thesis?", "end_conversation": False}},
                   {"json": {"utterance": "Slow, but getting there.", "end_conversation": True}},
                   {"json": {"utterance": "Sure, what can I do for you?", "end_conversation": True}},
                   purpose="converse_turn")
    assert decide(town, "isabella", "09:40", SEEN, "Klaus Mueller")["action"]["chattingWith"] == "klaus"
    talk = town.grpc("Talk", {"npcId": "klaus", "speakerName": "Sam", "text": "Excuse me, Klaus, got a minute?",
                              "gameTime": "2026-02-13T09:41:00Z"})
    assert talk["reply"] == "Sure, what can I do for you?"
    notes = town.grpc("GetTrace", {"traceId": talk["traceId"]})["trace"]["notes"]
    assert any("klaus turns to Sam" in n for n in notes), notes
    for npc_id in ("isabella", "klaus"):
        assert not decide(town, npc_id, "09:42")["action"].get("chattingWith"), f"{npc_id} left the conversation"
        remembered = chats(town, npc_id)
        assert any("how is the thesis" in m for m in remembered), (npc_id, remembered)
        assert any("Excuse me, Klaus, got a minute?" in m and "what can I do for you" in m for m in remembered), (
            npc_id, remembered)


def speaker(npc_id: str, name: str) -> Speaker:
    return Speaker(npc_id, Persona(name=name, home="w:h:bedroom"))


ANN, BO, CY = speaker("ann", "Ann Lee"), speaker("bo", "Bo Chen"), speaker("cy", "Cy Diaz")


def said(who: Speaker, text: str) -> DialogueLine:
    return DialogueLine(speaker_npc_id=who.npc_id, speaker_name=who.persona.name, text=text)


def test_who_speaks_next() -> None:
    present = [ANN, BO, CY]
    assert next_speaker(present, [said(ANN, "Hi all")], "Cy Diaz") is CY, "addressed by name"
    assert next_speaker(present, [said(ANN, "Hi all")], "everyone") is BO, "fewest lines, then who joined first"
    assert next_speaker(present, [said(ANN, "Hi"), said(BO, "Hello")], "everyone") is CY, "fairness"
    assert next_speaker(present, [said(ANN, "Hi"), said(BO, "Hi"), said(CY, "What about you, Bo?")],
                        "everyone") is BO, "named in the latest lines"
    assert next_speaker(present, [said(ANN, "Hi"), said(ANN, "Hi")], "Ann Lee") is BO, "never twice running"
    guard = speaker("guard", "the guard")  # named by a description: any "the" is no mention of it
    assert next_speaker([ANN, BO, guard], [said(ANN, "Is the bridge up? The gate?")], "everyone") is BO


def test_an_npc_turned_to_the_player_while_the_group_talks_leaves_it(run, fake_llm) -> None:
    """Cy turns to the player while the first line is written: the line after it has the
    player's words, Cy says nothing more, Ann and Bo go on."""
    fake_llm.latency_s = 0.5
    fake_llm.queue(line("Hi both!"), line("Hello Ann.", to="Ann Lee"), line("Bye Bo.", end=True),
                   purpose="group_turn")
    group, now = Group([ANN, BO, CY]), datetime(2026, 2, 13, 9, tzinfo=UTC)

    async def scenario(stream):
        talking = asyncio.create_task(talk_in_group(group, now, "w:cafe:cafe", stream,
                                                    Trace(npc_id="ann", kind="decide", game_time=now), work=WORK))
        while not fake_llm.chat_requests("group_turn"):
            await asyncio.sleep(0.01)
        group.turn_away("cy", "Sam", "Cy, a word?")
        return await talking

    lines = run(scenario)
    assert [(d.speaker_name, d.text) for d in lines] == [
        ("Ann Lee", "Hi both!"), ("Sam", "Cy, a word?"), ("Bo Chen", "Hello Ann."), ("Ann Lee", "Bye Bo.")]


def test_one_who_leaves_the_place_leaves_the_conversation(run, fake_llm) -> None:
    """The game moves Cy away after the first line: the other two go on without Cy."""
    fake_llm.queue(line("Hi both!"), line("Hello Ann.", to="Ann Lee"), line("Bye Bo.", end=True),
                   purpose="group_turn")
    group, now = Group([ANN, BO, CY]), datetime(2026, 2, 13, 9, tzinfo=UTC)
    trace = Trace(npc_id="ann", kind="decide", game_time=now)
    lines = run(lambda stream: talk_in_group(group, now, "w:cafe:cafe", stream, trace,
                                             here=lambda npc_id: npc_id != "cy" or not group.lines, work=WORK))
    assert [d.speaker_name for d in lines] == ["Ann Lee", "Bo Chen", "Ann Lee"]
    assert "converse: Cy Diaz left the place, and so the conversation" in trace.notes


def test_those_still_talking_are_told_who_has_left(run, fake_llm) -> None:
    """blind11's writer: a line was asked of one whose prompt named who started the conversation,
    and her goodbye, but offered only the others to speak to: that she has gone is said."""
    fake_llm.queue(line("Hi both!"), line("Must dash, bye all.", end=True), line("Hello Bo.", to="Bo Chen"),
                   line("Bye Cy.", end=True), purpose="group_turn")
    group, now = Group([ANN, BO, CY]), datetime(2026, 2, 13, 9, tzinfo=UTC)
    run(lambda stream: talk_in_group(group, now, "w:cafe:cafe", stream,
                                     Trace(npc_id="ann", kind="decide", game_time=now), work=WORK))
    prompts = [r["body"]["messages"][1]["content"] for r in fake_llm.chat_requests("group_turn")]
    assert [("has left the conversation" in p) for p in prompts] == [False, False, True, True]
    assert "Ann Lee started this conversation. Bo Chen has left the conversation." in prompts[2]


def test_how_one_sees_a_group_is_asked_and_said_for_several(run, fake_llm) -> None:
    """blind11's writer: "Ines Varga, Owen Pryce and Dalia Moss is someone Agnes Hale knows". The
    question reads for one or several, and so does what stands in for an answer the model spoilt;
    blind13's: the question joined them into one relationship, so it asks of each of them."""
    fake_llm.queue(*[{"content": "not json"}] * 9, purpose="relationship")
    fake_llm.queue(line("Hi both!"), line("Bye all.", end=True), line("Bye.", end=True), purpose="group_turn")
    group, now = Group([ANN, BO, CY]), datetime(2026, 2, 13, 9, tzinfo=UTC)
    run(lambda stream: talk_in_group(group, now, "w:cafe:cafe", stream,
                                     Trace(npc_id="ann", kind="decide", game_time=now), work=WORK))
    asked = [r["body"]["messages"][1]["content"] for r in fake_llm.chat_requests("relationship")]
    assert any("Ann Lee's relationship with each of Bo Chen and Cy Diaz," in p for p in asked)
    assert any("What Ann Lee remembers about each of Bo Chen and Cy Diaz:" in p for p in asked)
    assert not [p for p in asked if "who is" in p]
    first = fake_llm.chat_requests("group_turn")[0]["body"]["messages"][1]["content"]
    assert "How Ann Lee sees them: Ann Lee knows Bo Chen and Cy Diaz." in first


@pytest.mark.slow
@pytest.mark.brain
def test_the_group_benchmark_counts_calls_and_the_news_reaches_everyone(tmp_path) -> None:
    """`python -m npc_lab.group_bench` with the stand-in model: a group of three, in and out of view."""
    group_bench.main(["--sizes", "3", "--seeds", "0", "--out", str(tmp_path)])
    rows = {r["view"]: r for r in json.loads((tmp_path / "group-conversations.json").read_text())["summary"]}
    assert rows["in view"]["by_purpose_mean"]["group_turn"] >= 3 and rows["in view"]["knew"] == [3]
    assert rows["out of view"]["by_purpose_mean"]["group_summary"] == 1 and rows["out of view"]["knew"] == [3]
    assert "group_turn" not in rows["out of view"]["by_purpose_mean"]


@pytest.mark.slow
def test_the_player_interrupts_a_pair_while_its_lines_are_written(brain_factory, fake_llm) -> None:
    """In real time: Sam speaks to Klaus while his conversation with Isabella is being written.
    Both leave it when it lands, and Sam's words are in what both remember of it."""
    c = Clients(brain_factory(background_thinking=True))
    c.grpc("RegisterWorld", world_json())
    for body in (spawn_json(), klaus()):
        c.grpc("SpawnNpc", body)
    for npc_id in ("isabella", "klaus"):
        decide(c, npc_id, "09:00")
    wait_for(lambda: all(decide(c, i, "09:01")["action"].get("source") != "provisional" for i in ("isabella", "klaus")),
             "both planned their day")
    fake_llm.latency_s = 0.5
    fake_llm.queue({"json": {"choice": "talk", "reason": "say hello", "new_activity": ""}}, purpose="react")
    fake_llm.queue(*[{"json": {"utterance": "And another thing.", "end_conversation": False}}] * 4,
                   purpose="converse_turn")
    decide(c, "isabella", "09:40", SEEN, "Klaus Mueller")
    wait_for(lambda: fake_llm.chat_requests("converse_turn"), "their conversation began")
    c.grpc("Talk", {"npcId": "klaus", "speakerName": "Sam", "text": "Klaus, a word?", "gameTime": "2026-02-13T09:41:00Z"})
    wait_for(lambda: all(any('Sam: "Klaus, a word?"' in m for m in chats(c, i)) for i in ("isabella", "klaus")),
             "Sam's line in both their conversations")
    # Both leave it once it lands (until then they stand chatting).
    wait_for(lambda: not any(decide(c, i, "09:42")["action"].get("chattingWith") for i in ("isabella", "klaus")),
             "both left the conversation")
    c.close()


def wait_for(done, what: str) -> None:
    wait_until(done, what=what, poll_s=0.2)


def test_the_one_who_opens_a_group_conversation_does_not_leave_at_its_greeting(run, fake_llm) -> None:
    """Korrin (blind5): the host, come to call on a friend, greeted the friend and a lodger with a
    line the model marked as his end, and the two talked on without him, his news unsaid. The
    opening line is never a speaker's leaving; a later line that ends is."""
    fake_llm.queue(line("Morning, both! What are you up to?", end=True), line("Nothing much.", to="Ann Lee"),
                   line("Bye all.", end=True), line("Bye Ann.", end=True), purpose="group_turn")
    group, now = Group([ANN, BO, CY]), datetime(2026, 2, 13, 9, tzinfo=UTC)
    lines = run(lambda stream: talk_in_group(group, now, "w:cafe:cafe", stream,
                                             Trace(npc_id="ann", kind="decide", game_time=now), work=WORK))
    assert [d.speaker_name for d in lines][:3] == ["Ann Lee", "Bo Chen", "Ann Lee"]


def test_a_group_whose_others_walk_on_before_its_first_line_is_no_conversation(town: Clients, fake_llm) -> None:
    """blind18 in Brinnick: the others moved on while the group's first line was being asked for,
    and each kept "conversation with ...: (nobody has spoken yet)" and paid a memo call for it.
    Nobody spoke, so nothing is remembered and no memo is asked for."""
    meet(town, SEEN)
    fake_llm.queue({"json": {"choice": "talk", "reason": "to tell them about the party", "new_activity": ""}},
                   purpose="react")
    viewed = threading.Event()
    fake_llm.queue(*[{"json": {"summary": "They know each other a little."}, "until": viewed}] * 3,
                   purpose="relationship")
    talking = threading.Thread(target=decide, args=(town, "isabella", "09:40", SEEN, "Klaus Mueller", "Maria Lopez"))
    talking.start()
    try:
        wait_until(lambda: bool(fake_llm.chat_requests("relationship")), what="the group being started")
        for npc_id in ("klaus", "maria"):
            town.grpc("Decide", {"npcId": npc_id, "gameTime": "2026-02-13T09:41:00Z", "address": APARTMENT,
                                 "attention": SEEN})
    finally:
        viewed.set()
        talking.join()
    assert not fake_llm.chat_requests("group_turn") and not fake_llm.chat_requests("conversation_memo")
    for npc_id in NAMES:
        assert not chats(town, npc_id), npc_id
