"""Composed lines for the embedded model (cognition/offline/offline_lines.py), in process: the kinds of
what is heard, the check against echoes and loops, and replies grounded in a persona, a plan and
memories, picked through the real client from a fake endpoint that answers as the embedded model."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
import re

from google.protobuf import json_format
import pytest

from brain_server.api.service import BrainCore
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.offline import offline_lines as ol
from brain_server.cognition.speaker import Speaker
from brain_server.cognition.status import revise_currently
from brain_server.config import Settings
from brain_server.llm.client import LLM
from brain_server.llm.embedded import MODEL_NAME
from brain_server.llm.scheduler import Priority, Work
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import DialogueLine, NpcState, Persona, PlanItem
from brain_server.model.trace import Trace
from npc_brain.v1 import brain_pb2 as pb
from tests.town import spawn_json, world_json

WORK = Work(Priority.PLAN_NOW, "test")  # what the completions here are for


NOW = datetime(2026, 3, 3, 10, tzinfo=UTC)
ODILE = Persona(name="Odile Marsh", age=58, identity="Odile Marsh is the lighthouse keeper and works at the Lighthouse. "
                "She polishes the great lens every morning.", home="Brookhaven:Keeper's Cottage:kitchen")
PLAN = [PlanItem(start=NOW.replace(hour=h), duration_minutes=m, activity=a, address="Brookhaven:Lighthouse:lamp room")
        for h, m, a in ((6, 240, "polishing the great lens"), (12, 60, "having lunch"),
                        (13, 300, "logging the ships in the harbour"), (21, 480, "sleeping"))]
SPEAKER = Speaker("odile", ODILE, "Odile Marsh is polishing the great lens", plan=PLAN)


@pytest.mark.parametrize(("heard", "kind"), [
    ("What is your job?", ol.Kind.JOB), ("What do you do for a living?", ol.Kind.JOB),
    ("What are you doing tomorrow?", ol.Kind.PLANS), ("What are you up to?", ol.Kind.NOW),
    ("Where do you live?", ol.Kind.PLACE), ("Hello!", ol.Kind.GREETING), ("Bye now", ol.Kind.BYE),
    ("Good evening! What's the news in town?", ol.Kind.OTHER), ("Good morning, Odile!", ol.Kind.GREETING),
    ("Thanks a lot!", ol.Kind.THANKS), ("What time is it?", ol.Kind.TIME), ("Where is the bakery?", ol.Kind.WAY),
    ("Where are you?", ol.Kind.PLACE), ("Tell me about yourself.", ol.Kind.JOB), ("I'm new in town.", ol.Kind.GREETING),
    # Found driving a river town of our own on the embedded defaults:
    ("hi there", ol.Kind.GREETING), ("hello what is your job", ol.Kind.JOB), ("Is it going to rain?", ol.Kind.OTHER), ("How old are you?", ol.Kind.JOB),
    ("I'm busy doing the ledger at the lock. Where do you live?", ol.Kind.PLACE),  # the question, not the news
    ("What are you up to these days?", ol.Kind.PLANS), ("What are you working on this week?", ol.Kind.PLANS),
    ("Can you open the gate for me?", ol.Kind.REQUEST), ("Will you open the gate?", ol.Kind.REQUEST),
    ("Your barge is beautiful.", ol.Kind.COMPLIMENT), ("You are an idiot.", ol.Kind.INSULT),
    ("yo", ol.Kind.GREETING), ("Hey Ines what's up", ol.Kind.GREETING), ("Let's go fishing!", ol.Kind.REQUEST),
    ("How is your day going?", ol.Kind.GREETING), ("I'm Ada, by the way.", ol.Kind.GREETING), ("I have to go.", ol.Kind.BYE),
    ("I have to go to the market tomorrow.", ol.Kind.PLANS),
    ("what time do you close", ol.Kind.JOB), ("What do you do in the evening?", ol.Kind.PLANS),
    ("Have you always lived here?", ol.Kind.PLACE)])
def test_the_kind_of_what_is_heard(heard: str, kind: ol.Kind) -> None:
    assert ol.kind_of(heard)[0] is kind


def test_echoes_loops_and_repeats_are_rejected() -> None:
    """The lines the embedded model wrote (issue 31) fail the check; a plain answer passes."""
    assert not ol.acceptable("...", "Good evening! What's the news in town?", [])
    assert not ol.acceptable("What's the news in town?", "What are you doing tomorrow? What's the news in town?", [])
    assert not ol.acceptable("The job is a job, a job, a job, a job. It's a job, a job.", "What is your job?", [])
    assert not ol.acceptable("I am the keeper.", "Who are you?", ["I am the keeper!"])
    assert ol.acceptable("At 12 pm I'll be having lunch, and at 1 pm I'll be logging ships.", "Plans?", [])


def test_a_person_is_someone_remembered_by_name() -> None:
    seen = [MemoryNode(npc_id="odile", kind=kind, description=text, subject=subject, created=NOW, last_accessed=NOW)
            for kind, subject, text in ((MemoryKind.OBSERVATION, "great lens", "great lens is clean"),
                                        (MemoryKind.OBSERVATION, "Bram Tuck", "Bram Tuck is mending a net"))]
    assert ol.person_in("That's great! Is Bram well?", seen, ODILE.name, "Ada") == "Bram Tuck"
    assert ol.person_in("That's great!", seen, ODILE.name, "Ada") == ""
    assert ol.may_name("Have you seen Bram lately?", ODILE.name, "Ada")
    assert not ol.may_name("Hello Odile, what is your job? Ask Ada.", ODILE.name, "Ada")


def test_a_persona_in_the_first_person() -> None:
    assert ol.own_words(ODILE.identity, ODILE.name, pronouns=True) == (
        "I am the lighthouse keeper and work at the Lighthouse. I polish the great lens every morning.")
    assert ol.own_words("Bram Tuck is mending his net", ODILE.name) == "Bram Tuck is mending his net"


async def _reply(stream: MemoryStream, heard: str, said: tuple[str, ...] = ()) -> tuple[str, Trace]:
    trace = Trace(npc_id="odile", kind="talk", game_time=NOW)
    lines = [DialogueLine(speaker_npc_id="odile", speaker_name=ODILE.name, text=s) for s in said]
    lines.append(DialogueLine(speaker_npc_id="", speaker_name="Ada", text=heard))
    turn = await ol.reply(SPEAKER, "Ada", lines, NOW, "Brookhaven:Lighthouse:lamp room", stream, trace, work=WORK)
    return turn.utterance, trace


def test_replies_from_the_persona_the_plan_and_a_meeting(run, fake_llm, store, minilm) -> None:
    met = MemoryNode(npc_id="odile", kind=MemoryKind.CHAT, subject=ODILE.name, predicate="chatted with",
                     object="Bram Tuck", created=NOW - timedelta(hours=2), last_accessed=NOW - timedelta(hours=2),
                     description=f'conversation with Bram Tuck:\n{ODILE.name}: "Morning, Bram! Busy?"\n'
                                 'Bram Tuck: "Hi, Odile! The storm took two of my lobster pots."')

    async def scenario(stream: MemoryStream) -> dict[str, str]:
        stream.llm = LLM(base_url=fake_llm.base_url, model=MODEL_NAME, api_key="k", prompts=stream.llm.prompts)
        await stream.remember("odile", ODILE, [met], None, rate=False)
        try:
            return {q: (await _reply(stream, q))[0] for q in
                    ("What is your job?", "What are you doing tomorrow?", "Have you seen Bram lately?")}
        finally:
            await stream.llm.close()

    lines = run(scenario)
    assert "lighthouse keeper" in lines["What is your job?"]
    assert any(item.activity in lines["What are you doing tomorrow?"] for item in PLAN)
    assert "the storm took two of my lobster pots" in lines["Have you seen Bram lately?"].lower()
    assert all(ol.acceptable(line, heard, []) for heard, line in lines.items())
    picks = fake_llm.chat_requests("choose_line")
    assert picks and all(  # the model may only answer with the number of a line offered
        r["body"]["response_format"]["json_schema"]["schema"]["properties"]["choice"]["maximum"]
        == len(re.findall(r'^\d\. "', r["body"]["messages"][-1]["content"], re.MULTILINE)) for r in picks)


def test_a_slow_pick_says_the_first_line_in_time_and_never_a_line_twice(run, fake_llm) -> None:
    """The model's picks take seconds: no reply waits for one (each pick asked is given up, noted,
    and the first line said), whatever the machine's load left of ANSWER_WITHIN_S to wait."""
    async def scenario(stream: MemoryStream) -> tuple[list[str], list[str]]:
        stream.llm = LLM(base_url=fake_llm.base_url, model=MODEL_NAME, api_key="k", prompts=stream.llm.prompts)
        fake_llm.queue(*[{"delay_s": 5}] * 3, purpose="choose_line")
        said: list[str] = []
        notes = []
        try:
            for _ in range(3):
                line, trace = await _reply(stream, "What is your job?", tuple(said))
                said.append(line)
                notes += trace.notes
        finally:
            await stream.llm.close()
        return said, notes

    said, notes = run(scenario)
    assert len(fake_llm.chat_requests("choose_line")) <= sum("no pick within" in note for note in notes), notes
    assert len(set(said)) == 3 and all("lighthouse keeper" in line for line in said)


def test_talk_and_interview_compose_only_on_the_embedded_model(run, fake_llm, tmp_path) -> None:
    """On the embedded model the player's Talk asks the model to pick (no free line, no view of the
    player); on any other model Talk and Interview are as before."""
    answers: list[str] = []

    async def scenario(stream: MemoryStream, model: str) -> None:
        stream.llm = LLM(base_url=fake_llm.base_url, model=model, api_key="k", prompts=stream.llm.prompts)
        core = BrainCore(Settings(data_dir=tmp_path / model, background_thinking=False), stream)
        try:
            await core.register_world(json_format.ParseDict(world_json(), pb.RegisterWorldRequest()))
            await core.spawn_npc(json_format.ParseDict(spawn_json(), pb.SpawnNpcRequest()))
            fake_llm.reset()
            for text in ("Hello!", "What is your job?"):
                await core.talk(json_format.ParseDict({"npcId": "isabella", "speakerName": "Ada", "text": text,
                                                       "gameTime": "2026-02-13T09:00:00Z"}, pb.TalkRequest()))
            answers.append((await core.interview(json_format.ParseDict({
                "npcId": "isabella", "question": "What is your job?", "gameTime": "2026-02-13T09:01:00Z"},
                pb.InterviewRequest()))).answer)
        finally:
            await core.close()
            await stream.llm.close()

    run(lambda stream: scenario(stream, MODEL_NAME))
    asked = {r["purpose"] for r in fake_llm.chat_requests()}
    assert asked == {"choose_line"} and answers[0].startswith("I run Hobbs Cafe")
    run(lambda stream: scenario(stream, "fake-model"))
    asked = {r["purpose"] for r in fake_llm.chat_requests()}
    assert {"converse_turn", "interview"} <= asked and "choose_line" not in asked


def test_asked_about_a_person_it_tells_what_was_said_of_them_not_who_asked() -> None:
    """The player's own earlier question about Bram is no meeting with Bram; a neighbour's news of
    him is, and the part told is what was said of him."""
    def chat(partner: str, *said: tuple[str, str], hours: int) -> MemoryNode:
        lines = "\n".join(f'{who}: "{text}"' for who, text in said)
        return MemoryNode(npc_id="odile", kind=MemoryKind.CHAT, subject=ODILE.name, predicate="chatted with",
                          object=partner, description=f"conversation with {partner}:\n{lines}",
                          created=NOW - timedelta(hours=hours), last_accessed=NOW)

    asked = chat("Ada", ("Ada", "Have you seen Bram lately?"), (ODILE.name, "Not today."), ("Ada", "Goodbye!"),
                 hours=1)
    told = chat("Wren Hollis", ("Wren Hollis", "Lovely morning. Bram sailed out to the far reef at dawn."),
                (ODILE.name, "Good for him."), hours=3)
    lines = ol.compose(ol.Kind.PERSON, SPEAKER, "Ada", "Have you seen Bram lately?", NOW,
                       "Brookhaven:Lighthouse:lamp room", [asked, told], "Bram Tuck")
    assert lines == ['I talked with Wren this morning. Wren told me: "Lovely morning. Bram sailed out to the far reef '
                     'at dawn."'], lines


def test_asked_who_it_is_what_it_plans_or_of_a_meal_it_answers_that() -> None:
    """Found driving a town of our own on the embedded defaults: "Who are you?" was answered with
    what it was doing, "What are you planning this week?" with the next hour's plan though its
    "currently" named an event, "What's for dinner tonight?" with the next item, whatever it was."""
    keeper = Speaker("odile", ODILE.model_copy(update={
        "currently": "Odile Marsh is organising a lantern walk on Saturday at 7 pm on the quay. She hopes all come."}),
        "Odile Marsh is polishing the great lens", plan=[*PLAN, PlanItem(
            start=NOW.replace(hour=18), duration_minutes=60, activity="having dinner",
            address="Brookhaven:Keeper's Cottage:kitchen")])

    def said(heard: str) -> list[str]:
        kind, _ = ol.kind_of(heard)
        return ol.compose(kind, keeper, "Ada", heard, NOW, "Brookhaven:Lighthouse:lamp room", [])

    assert said("Who are you?")[0].startswith("I'm Odile Marsh. I am the lighthouse keeper")
    assert said("What are you planning this week?")[0] == "I am organising a lantern walk on Saturday at 7 pm on the quay."
    assert said(ol.ASK_BACK)[0] == said("What are you planning this week?")[0]  # NPCs ask each other: news travels
    assert said("What's for dinner tonight?")[0] == "At 6 pm I'll be having dinner."
    assert said("What are you doing later?")[0].startswith("Later I'll be having lunch")
    assert said("How are you?")[0].startswith("Doing well, thanks, Ada!")
    assert said("Thanks for your help!")[0] == "You're welcome, Ada!" and said("Sorry to bother you.")[0] == (
        "No trouble at all.")
    assert said("What time is it?")[0] == "It's 10 am, Tuesday."
    assert "couldn't tell you the way" in said("Where is the bakery?")[0]  # not where it is itself
    assert said("Nice to meet you, I'm Ada.")[0].startswith("Nice to meet you, Ada! I'm Odile Marsh. I am the lighthouse")
    assert said("Any news?")[0] == said("What are you planning this week?")[0]
    assert not any("lantern walk" in line for line in said("Can you help me?"))  # its news, only when asked for news
    nameless = Speaker("pip", Persona(name="Pip", home="Brookhaven:Keeper's Cottage:kitchen"), "Pip is resting")
    assert said("Who are you?") and ol.compose(ol.Kind.JOB, nameless, "Ada", "Who are you?", NOW, "", [])[0] == (
        "I'm Pip. Right now I'm resting.")


def test_a_name_with_an_initial_is_not_the_end_of_a_sentence() -> None:
    """Found driving a port town of our own: "Chidi O." answered "Who are you?" with "I'm Chidi O..
    I O.", its identity cut after the initial."""
    chidi = Speaker("chidi", Persona(name="Chidi O.", identity="Chidi O. is the canteen cook of Terminal 3. He feeds "
                                     "the night shift.", home="Port:Bunks:room"), "Chidi O. is cooking")
    lines = ol.compose(ol.Kind.JOB, chidi, "Ada", "Who are you?", NOW, "", [])
    assert lines[0].startswith("I'm Chidi O. I am the canteen cook of Terminal 3."), lines


def test_asked_of_someone_it_never_met_it_says_so_not_what_it_saw_itself_doing(run, fake_llm, store, minilm) -> None:
    """Found driving a town of our own: "Have you seen Zoë today?" was answered "I am getting
    ready for the day", its own action of the morning, recalled as if it were news."""
    own = MemoryNode(npc_id="odile", kind=MemoryKind.OBSERVATION, subject=ODILE.name, predicate="is",
                     object="getting ready for the day", description=f"{ODILE.name} is getting ready for the day",
                     created=NOW - timedelta(hours=3), last_accessed=NOW - timedelta(hours=3))

    async def scenario(stream: MemoryStream) -> str:
        stream.llm = LLM(base_url=fake_llm.base_url, model=MODEL_NAME, api_key="k", prompts=stream.llm.prompts)
        await stream.remember("odile", ODILE, [own], None, rate=False)
        try:
            return (await _reply(stream, "Have you seen Zoë today?"))[0]
        finally:
            await stream.llm.close()

    assert run(scenario) in ("I haven't seen Zoë lately.", "Zoë? I can't say I know them.")
    told = ol.compose(ol.Kind.OTHER, SPEAKER, "Ada", "Nice weather for it.", NOW, "", [own])
    assert not any("getting ready" in line for line in told), told


@pytest.mark.parametrize(("whispered", "status"), [
    ("You want to bake mooncakes for the lantern float.", "Odile Marsh wants to bake mooncakes for the lantern float."),
    ("You should warn the bargemen about your broken gate.",
     "Odile Marsh should warn the bargemen about Odile's broken gate."),
    ("I'm going to paint the lighthouse. You'll need help.", "Odile Marsh is going to paint the lighthouse. Odile will "
     "need help."),
    ("The gate is broken.", "The gate is broken.")])
def test_a_whispered_thought_becomes_the_npcs_own_status(run, whispered: str, status: str) -> None:
    """Found driving a river town of our own: with no revision from the model (the embedded one is
    never asked), "You want to bake mooncakes" was the status as written, and the NPC said it back
    ("You want to bake mooncakes for the lantern float." asked of its plans)."""
    npc = NpcState(npc_id="odile", world_name="Brookhaven", persona=ODILE.model_copy(update={"currently": "Odile "
                   "Marsh is repainting the rail."}))

    async def scenario(stream: MemoryStream) -> str:
        stream.llm.fallback_purposes = frozenset({"revise_currently"})
        return await revise_currently(npc, NOW, stream, Trace(npc_id="odile", kind="whisper", game_time=NOW), whispered, work=WORK)

    currently = run(scenario)
    assert currently == f"{status} Odile Marsh is repainting the rail.", currently
    keeper = Speaker("odile", ODILE.model_copy(update={"currently": currently}), "Odile Marsh is polishing the lens")
    told = ol.compose(ol.Kind.PLANS, keeper, "Ada", "What are your plans?", NOW, "", [])[0]
    assert not {"you", "your", "odile"} & set(ol.words(told)), told  # in its own words


def test_what_a_player_found_wrong_driving_a_river_town() -> None:
    """Each answered with a recalled conversation, the next hour's plan or its own sighting before:
    its age, tonight, these days, where it lives, a trait, a compliment, an insult, a favour asked,
    nonsense, another language, a question it knows nothing of, a word its persona tells of."""
    keeper = Speaker("odile", ODILE.model_copy(update={
        "age": 58, "traits": ["patient", "watchful"], "currently": "Odile Marsh is organising a lantern walk on "
        "Saturday."}), "Odile Marsh is polishing the great lens", plan=[*PLAN, PlanItem(
            start=NOW.replace(hour=18), duration_minutes=90, activity="having dinner",
            address="Brookhaven:Keeper's Cottage:kitchen")])
    chat = MemoryNode(npc_id="odile", kind=MemoryKind.CHAT, subject=ODILE.name, predicate="chatted with", object="Ada",
                      description=f'conversation with Ada:\nAda: "The ferry is late again."\n{ODILE.name}: "Oh dear."',
                      created=NOW - timedelta(hours=1), last_accessed=NOW)
    net = MemoryNode(npc_id="odile", kind=MemoryKind.OBSERVATION, subject="Bram Tuck", predicate="is",
                     object="mending a net", description="Bram Tuck is mending a net", created=NOW, last_accessed=NOW)

    def said(heard: str) -> str:
        kind, _ = ol.kind_of(heard)
        return ol.compose(kind, keeper, "Ada", heard, NOW, "Brookhaven:Lighthouse:lamp room", [chat, net])[0]

    assert said("How old are you?") == "I'm 58."
    assert said("what are you doing tonight") == said("What do you do in the evening?") == (
        "Tonight I'll be having dinner, from 6 pm.")
    assert said("What are you up to these days?") == "I am organising a lantern walk on Saturday."
    assert said("Where do you live?") == "I live at Keeper's Cottage."
    assert not any("live" in line for line in ol.compose(ol.Kind.PLACE, keeper, "Ada", "Where are you now?", NOW,
                                                         "Brookhaven:Lighthouse:lamp room", []))
    assert said("You're patient, aren't you?") == "I can be patient, I suppose."
    assert said("Your lighthouse is beautiful.").startswith("Thank you, Ada!")
    assert said("You are an idiot.") == "There's no need for that, Ada."
    assert said("Can you open the gate for me?").startswith("Sorry, Ada, I can't")
    assert said("Purple monkey dishwasher.") == "Sorry, Ada, I don't follow."
    assert said("¿Dónde está el faro?") == "Sorry, Ada, I only speak English."
    assert said("Is it going to rain?") == "I couldn't say, Ada."  # not Bram's net, nor Ada's own words to her
    assert said("How long have you polished the lens?") == "I polish the great lens every morning."
    assert said("I'm polishing the hull. Any plans coming up?") == "I am organising a lantern walk on Saturday."
    assert said("Good morning, Odile!").startswith("Good morning, Ada!")
    assert not any("Doing well" in line for line in ol.compose(ol.Kind.GREETING, keeper, "Ada", "Hi Odile!", NOW,
                                                               "", []))  # not asked how it is
    # Offered only what answers (the model picked "I'm polishing the lens right now" when it could):
    assert ol.compose(ol.Kind.OTHER, keeper, "Ada", "Have you ever polished the lens?", NOW, "", [chat, net]) == [
        "I polish the great lens every morning."]
    assert said("Who mended that net?") == "I saw Bram Tuck mending a net this morning."  # not asked of itself
    assert ol.compose(ol.Kind.PLANS, keeper, "Ada", "Anything on your mind?", NOW, "", []) == ol.compose(
        ol.Kind.PLANS, keeper, "Ada", "What are you working on this week?", NOW, "", []) == [
        "I am organising a lantern walk on Saturday."]
    assert not any("Ada" in line for line in ol.compose(ol.Kind.OTHER, keeper, "Ada", "What's new?", NOW, "", [
        chat.model_copy(update={"kind": MemoryKind.THOUGHT, "object": "", "description": "Ada seems kind"})]))
    edited = MemoryNode(npc_id="odile", kind=MemoryKind.THOUGHT, subject=ODILE.name, predicate="is now",
                        object="patient", description="Odile Marsh is now patient", created=NOW, last_accessed=NOW)
    assert ol.compose(ol.Kind.OTHER, keeper, "Ada", "Any news?", NOW, "", [edited, net]) == [
        "I saw Bram Tuck mending a net this morning.", "I am organising a lantern walk on Saturday."]  # not itself
    assert ol.own_words("Bram Tuck sells fish and has worked the harbour for years.", "Bram Tuck", pronouns=True) == (
        "I sell fish and have worked the harbour for years.")
    assert ol.own_words("He coils ropes, loads sacks and dreams of the sea.", "Pip", pronouns=True) == (
        "I coil ropes, load sacks and dream of the sea.")
    assert ol.compose(ol.Kind.PLANS, keeper, "Ada", "What are you planning for the lantern walk?", NOW, "", []) == [
        "I am organising a lantern walk on Saturday."]  # what it is asked of, not also the day's next hours
    assert said("What will you do tomorrow?").startswith("Tomorrow")  # not its currently: it has a plan
    assert said("Nice weather today, isn't it?") == "It is, yes."
    assert said("did you sleep well") == "I couldn't say, Ada."  # a question, without its question mark
    assert said("Any gossip?") == "I saw Bram Tuck mending a net this morning."
    assert ol.own_words("He opens the gates and writes each one down.", "Tobias", pronouns=True) == (
        "I open the gates and write each one down.")
    assert said("What were you doing this morning?") == said("what did you do today") == (
        "I was polishing the great lens, from 6 am to 10 am.")  # not what it is doing now
    assert said("When do you finish work?") == "Today I'll be logging the ships in the harbour from 1 pm to 6 pm."
    split = Speaker("odile", ODILE, "", plan=[*PLAN, PlanItem(start=NOW.replace(hour=19), duration_minutes=60,
                    activity="logging the ships in the harbour", address="Brookhaven:Lighthouse:lamp room")])
    assert ol.compose(ol.Kind.PLANS, split, "Ada", "Plans for tomorrow?", NOW, "", [])[0] == (  # one activity, once
        "Tomorrow is much like today for me: I'll be polishing the great lens from 6 am and then be logging the ships "
        "in the harbour from 1 pm.")
    assert said(ol.ASK) == "I'm polishing the great lens. I am organising a lantern walk on Saturday."  # news travels
    assert ol.recall(chat.model_copy(update={"kind": MemoryKind.THOUGHT, "description": "You want to bake buns"}),
                     ODILE.name, NOW) == "I want to bake buns."  # a whisper remembered, told as its own
    player = chat.model_copy(update={"object": "the player", "description": chat.description.replace("Ada", "the player")})
    assert ol.recall(player, ODILE.name, NOW) == (  # a sentence starts with a capital, whoever it names
        'I talked with the player this morning. The player told me: "The ferry is late again."')


def test_asked_again_of_a_person_or_of_one_its_persona_names_it_answers(run, fake_llm, store, minilm) -> None:
    """Found driving a river town: "Do you know Tobias?", after what it remembered of him was said,
    was "Let me think about that."; "What do you think of Pip?" (its deckhand, in its persona) was
    the next hour's plan; "Have you talked with Tobias?" and "Did Marta say..." were no person's."""
    met = MemoryNode(npc_id="odile", kind=MemoryKind.CHAT, subject=ODILE.name, predicate="chatted with",
                     object="Bram Tuck", created=NOW - timedelta(hours=2), last_accessed=NOW - timedelta(hours=2),
                     description='conversation with Bram Tuck:\nBram Tuck: "The storm took two of my lobster pots."')
    aunt = ODILE.model_copy(update={"identity": f"{ODILE.identity} Her nephew is Piet Vos."})

    async def scenario(stream: MemoryStream) -> list[str]:
        stream.llm = LLM(base_url=fake_llm.base_url, model=MODEL_NAME, api_key="k", prompts=stream.llm.prompts)
        await stream.remember("odile", ODILE, [met], None, rate=False)
        said = [(await _reply(stream, "Have you talked with Bram?"))[0]]
        said.append((await _reply(stream, "Do you know Bram?", tuple(said)))[0])
        trace = Trace(npc_id="odile", kind="talk", game_time=NOW)
        turn = await ol.reply(Speaker("odile", aunt, "Odile Marsh is polishing the lens", plan=PLAN), "Ada", [
            DialogueLine(speaker_npc_id="", speaker_name="Ada", text="What do you think of Piet?")], NOW, "", stream,
            trace, work=WORK)
        unknown = (await _reply(stream, "Is it going to rain?", ("I couldn't say, Ada.", "I really couldn't tell you.",
                                                                 "No idea, I'm afraid.")))[0]
        await stream.llm.close()
        return [*said, turn.utterance, unknown]

    talked, again, nephew, unknown = run(scenario)
    assert not unknown.startswith("As I said"), unknown  # no answer is no answer to repeat
    assert "lobster pots" in talked and again == f"As I said: {talked}", (talked, again)
    assert nephew == "My nephew is Piet Vos.", nephew
