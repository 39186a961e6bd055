"""A conversation is remembered word for word, "tomorrow" and all: every prompt that lists it the
next day must show the day it was said, or retold then it names the wrong day (issue 30)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
import re

import pytest

from brain_server.cognition.memory_stream import MemoryStream, memory_line
from brain_server.cognition.news import Held, known_places
from brain_server.cognition.news_said import about, held, told_of
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import NpcState, PlanItem
from tests.test_mind import CAFE, _town_mind, _until
from tests.test_standin import _ask, _hard
from tests.town import tiles, world_json

DAY_ONE = datetime(2026, 2, 13, 10, tzinfo=UTC)  # a Friday
TOLD = "Isabella's party is tomorrow after work at Hobbs Cafe, come along!"


def test_a_conversation_retold_the_next_day_shows_the_day_it_was_said(run, fake_llm, tmp_path) -> None:
    """Sam tells Klaus on Friday of the party "tomorrow"; on Saturday Klaus answers Tom from a
    prompt that lists that conversation under Friday's date, as the prompts write dates, and its
    "tomorrow" said by its date: "on Saturday February 14", the day it meant."""

    async def scenario(stream: MemoryStream) -> None:
        mind = await _town_mind(stream, tmp_path)
        fake_llm.queue({"json": {"utterance": "Thanks, I'll be there!", "end_conversation": True}},
                       {"json": {"utterance": "Isabella has a party, Tom.", "end_conversation": True}},
                       purpose="converse_turn")
        memo = {"summary": "Sam told me about Isabella's party", "importance": 6, "plan_activity": "",
                "plan_start": "", "plan_minutes": 0}
        fake_llm.queue({"json": memo}, {"json": memo}, purpose="conversation_memo")
        await mind.player.talk("klaus", "Sam", TOLD, DAY_ONE)
        await _until(lambda: bool(fake_llm.chat_requests("conversation_memo")) and not mind.thinking._tasks)
        await mind.player.talk("klaus", "Tom", "Any news in town?", DAY_ONE + timedelta(days=1))
        retold = fake_llm.chat_requests("converse_turn")[-1]["body"]["messages"][-1]["content"]
        await _until(lambda: len(fake_llm.chat_requests("conversation_memo")) == 2 and not mind.thinking._tasks)
        said = re.escape(TOLD.replace("tomorrow", "on Saturday February 14"))  # kept dated, said by its date
        assert re.search(rf'- \[Friday February 13, \d\d:\d\d\] conversation with Sam: Sam: "{said}"', retold)
        await mind.close()

    run(scenario)


def test_every_memory_is_dated_whether_or_not_its_words_name_a_day() -> None:
    """An observation that names no day is dated too (a model read yesterday's dinner as today's,
    issue 42), as is one that says "tonight"."""

    def node(kind: MemoryKind, text: str) -> MemoryNode:
        return MemoryNode(npc_id="klaus", kind=kind, description=text, created=DAY_ONE, last_accessed=DAY_ONE)

    assert memory_line(node(MemoryKind.OBSERVATION, "Isabella is decorating the cafe")) == \
        "[Friday February 13, 10:00] Isabella is decorating the cafe"
    assert memory_line(node(MemoryKind.THOUGHT, "The party is tonight")) == \
        "[Friday February 13, 10:00] The party is tonight"


def test_a_remembered_tomorrow_is_said_by_its_date_on_any_day() -> None:
    """Told on Friday of the party "tomorrow (Saturday February 14)": the memory says "on Saturday
    February 14" whatever day it is read. Read on Saturday as it was kept, a model that trusts the word
    over the date passed the news on a day late (blind34's writer); said from Saturday, "today" was put
    in the mouth of one quoted on a line stamped Friday (blind35's writer)."""
    told = MemoryNode(npc_id="klaus", kind=MemoryKind.CHAT, created=DAY_ONE, last_accessed=DAY_ONE,
                      description='conversation with Isabella:\nIsabella: "My party is tomorrow (Saturday February 14) at 5 pm!'
                                  ' See you tonight (Friday February 13), or help me until tomorrow (Saturday February 14)."')
    assert memory_line(told).split("] ", 1)[1] == (
        'conversation with Isabella: Isabella: "My party is on Saturday February 14 at 5 pm! See you on the night of'
        ' Friday February 13, or help me until Saturday February 14."')


def test_the_stand_ins_read_a_remembered_tomorrow_from_the_day_it_was_said() -> None:
    """Piet heard on Wednesday of the walk "tomorrow at 6 pm"; retelling it on Thursday both stand-ins
    name Thursday (the hard one "this evening"), not Friday."""
    heard = ('- [Wednesday March 4] conversation with Odile Marsh:\n'
             'Odile Marsh: "The lantern walk leaves from the Chapel tomorrow at 6 pm."')
    thursday = {"npc_name": "Piet Vos", "partner": "Mina Roe", "persona": "Name: Piet Vos", "memories": heard,
                "time": "Thursday March 5, 10:00"}
    assert "March 5" in _ask("converse_turn", **thursday).utterance
    told = [line for line in (_hard("converse_turn", seed, **thursday).utterance for seed in range(6))
            if "lantern walk" in line]
    assert told and all("tomorrow" not in line and re.search(r"this evening|after work today|6 pm", line)
                        for line in told), told


def test_a_whisper_before_the_first_plan_is_in_the_persona_the_day_plan_reads(run, fake_llm, tmp_path) -> None:
    """Whispered before her first Decide (as a scenario starts), Isabella's intention is in her
    "Currently" status when her day is planned, as the paper seeded its party, not only in a
    memory that retrieval may or may not reach."""

    async def scenario(stream: MemoryStream) -> None:
        mind = await _town_mind(stream, tmp_path)
        fake_llm.queue({"json": {"currently": "Isabella Rodriguez is inviting everyone to her party."}},
                       purpose="revise_currently")
        await mind.player.whisper("isabella", "I want to throw a party and invite everyone I meet", DAY_ONE)
        await mind.decide("isabella", DAY_ONE, [], CAFE)
        await _until(lambda: bool(fake_llm.chat_requests("daily_plan")))
        planned = fake_llm.chat_requests("daily_plan")[0]["body"]["messages"][-1]["content"]
        assert "Currently: Isabella Rodriguez is inviting everyone to her party." in planned
        await mind.close()

    run(scenario)



def test_a_whisper_leads_the_status_when_the_model_does_not_revise_it(run, fake_llm, tmp_path) -> None:
    """The embedded model is never asked to revise the status, and any model may fail to: the
    whispered intention then leads the old status, so prompts and the offline lines still carry it."""

    async def scenario(stream: MemoryStream) -> str:
        mind = await _town_mind(stream, tmp_path)
        fake_llm.queue(*[{"content": "not json"}] * 5, purpose="revise_currently")
        await mind.player.whisper("isabella", "Isabella wants to bake a cake for Klaus's birthday.", DAY_ONE)
        currently = (await mind.records.npc("isabella")).persona.currently
        await mind.close()
        return currently

    assert run(scenario).startswith("Isabella wants to bake a cake for Klaus's birthday.")

def test_told_in_one_call_the_stand_ins_share_what_a_persona_is_about() -> None:
    """Out of view, as in view, news in a speaker's "Currently" status is news to pass on (a
    whisper revises that status): not only the lines under what it remembers."""
    host = "Name: Odile Marsh\nCurrently: Odile Marsh leads a lantern walk from the Chapel on March 5 from 6 pm to 8 pm."
    told = [_hard("conversation_summary", seed, npc_name="Odile Marsh", partner="Piet Vos", persona=host,
                  partner_persona="Name: Piet Vos\nCurrently: Piet Vos is mending nets.",
                  memories="- Odile Marsh is polishing the lens", partner_memories="- Piet Vos is mending a net",
                  time="Wednesday March 4, 10:00") for seed in range(4)]
    said = [line.text for answer in told for line in answer.lines if line.speaker == "Odile Marsh"]
    assert any("lantern walk" in line for line in said), said


def test_a_whispered_event_still_ahead_stays_in_the_status_a_model_revised_without_it(run, fake_llm, tmp_path) -> None:
    """Brinnick: two blind models revised a whispered event said as a noun phrase to the host's aim
    alone ("... looking forward to my plan to tell everyone she runs into"), and every prompt after
    held the aim, not the event. The whispered sentence naming a day still ahead leads the status
    again; a revision that keeps its day is taken as it is."""
    supper = ("A lantern supper in the back room of Hobbs Cafe, on February 14 between 6 pm and 8 pm: Isabella "
              "Rodriguez is laying it on herself, and she means to tell everyone she runs into.")
    aim = "Isabella Rodriguez is looking forward to her plan to tell everyone she runs into."
    dated = "Isabella Rodriguez is laying on a lantern supper on February 14."

    async def scenario(stream: MemoryStream) -> list[str]:
        mind = await _town_mind(stream, tmp_path)
        fake_llm.queue({"json": {"currently": aim}}, {"json": {"currently": dated}}, purpose="revise_currently")
        statuses = []
        for _ in range(2):
            await mind.player.whisper("isabella", supper, DAY_ONE)
            statuses.append((await mind.records.npc("isabella")).persona.currently)
        await mind.close()
        return statuses

    dropped, kept = run(scenario)
    assert dropped == f"{supper} {aim}"
    assert kept == dated


def test_a_whispered_event_said_by_weekday_and_hours_in_words_is_the_hosts_to_tell(run, fake_llm, tmp_path) -> None:
    """A game whispered "Anyone whose bicycle squeaks, wobbles or won't change gear can wheel it
    round to the garden of the Plough Inn on Saturday, from nine till eleven in the morning; ...":
    no day and no hour were read, so the host held no news and hosted nothing; its news was cut to
    "Anyone whose bicycle squeaks"; and she had never been to the inn. Kept with its date, it is
    news she means to pass on, said whole to the semicolon, with its day, hours and place."""
    bikes = ("Anyone whose bicycle squeaks, wobbles or won't change gear can wheel it round to the garden of the Plough "
             "Inn on Saturday, from nine till eleven in the morning; Isabella Rodriguez will have her tools out.")
    world = world_json()
    world["world"]["sectors"].append({"name": "Plough Inn", "arenas": [{"name": "garden", "tiles": tiles(1, 8, 6, 11)}]})

    async def scenario(stream: MemoryStream) -> str:
        mind = await _town_mind(stream, tmp_path, world)
        fake_llm.queue({"json": {"currently": "Isabella Rodriguez is mending bicycles."}}, purpose="revise_currently")
        await mind.player.whisper("isabella", bikes, DAY_ONE)
        npc = await mind.records.npc("isabella")
        told = (await held(stream, "isabella", "Isabella Rodriguez", DAY_ONE + timedelta(hours=1),
                           known_places(npc))).line
        await mind.close()
        return told

    assert run(scenario) == (
        "Isabella Rodriguez has news on their mind, an event they are hosting: Anyone whose bicycle squeaks, wobbles or "
        "won't change gear can wheel it round to the garden of the Plough Inn on Saturday (February 14) (that is "
        "tomorrow, Saturday February 14, 09:00-11:00, at Plough Inn (garden)).")


def test_a_whispered_event_said_after_what_sets_its_time_is_what_the_host_tells_and_keeps(run, fake_llm, tmp_path) -> None:
    """A town's whisper said its day as "on the 12th" and what set the time first ("The highest tide of
    the month comes in on the 12th, and from 17:00 to 19:00 it stands up in the reeds ...") and what the
    host would do then after it ("That is the only time he can let go ..."): the host's news said the
    tide, no day and nothing of what he meant to do. Kept with its day, it is what he does, tomorrow;
    and one he tells keeps that, with its day, hours and place, not his whole thought (`news_said.told_of`)."""
    kite = ("The moon is full on the 14th, and from 21:00 to 22:30 it stands over the roof of Hobbs Cafe. That is the one night "
            "Isabella Rodriguez can fly her owl kite: she built it in May, and she hopes Bo will help.")

    async def scenario(stream: MemoryStream) -> tuple[str, str]:
        news, _ = await _whispered(stream, tmp_path, fake_llm, kite)
        assert news.news is not None
        return news.line, told_of("Isabella Rodriguez", news.news, [CAFE])

    line, told = run(scenario)
    assert line == ("Isabella Rodriguez has news on their mind, an event they are hosting: Isabella Rodriguez can fly "
                    "her owl kite (that is tomorrow, Saturday February 14, 21:00-22:30, at Hobbs Cafe).")
    assert told == "Isabella Rodriguez can fly her owl kite, on Saturday February 14 from 21:00 to 22:30, at Hobbs Cafe"
    heard = MemoryNode(npc_id="klaus", kind=MemoryKind.THOUGHT, description=f"Isabella Rodriguez told Klaus Mueller: {told}",
                       subject="Klaus Mueller", predicate="heard from", object="Isabella Rodriguez", importance=6,
                       created=DAY_ONE, last_accessed=DAY_ONE)
    # passed on, its day, hours and place are said once, in the news line's note
    assert about("Klaus Mueller", heard, heard.description, DAY_ONE, [CAFE]) == (
        ": Isabella Rodriguez told Klaus Mueller: Isabella Rodriguez can fly her owl kite (that is tomorrow, Saturday "
        "February 14, 21:00-22:30, at Hobbs Cafe)")


def test_news_that_names_no_day_is_said_and_passed_on_with_the_day_its_holder_planned_it() -> None:
    """A small model passed news on as "the event from 2 pm to 4 pm", no day, though the teller had
    booked it for the next day; a listener who asked was told "on Wednesday", the wrong day. The day
    of the holder's own plan item that holds the event at its hours is said in its news line and kept
    by those it tells (`news.planned_day`); a plan that holds no such item, or holds it already over,
    adds none."""
    heard = MemoryNode(npc_id="klaus", kind=MemoryKind.THOUGHT, importance=6, created=DAY_ONE, last_accessed=DAY_ONE,
                       description="Isabella Rodriguez told Klaus Mueller: there is kite flying from 9 pm to 10:30 pm, "
                                   "at Hobbs Cafe", subject="Klaus Mueller", predicate="heard from",
                       object="Isabella Rodriguez")
    tomorrow = DAY_ONE.replace(hour=21) + timedelta(days=1)
    going = PlanItem(start=tomorrow, duration_minutes=90, activity="going to the kite flying", address=CAFE, one_off=True)
    other = PlanItem(start=tomorrow - timedelta(hours=3), duration_minutes=60, activity="supper at home", address=CAFE)
    assert about("Klaus Mueller", heard, heard.description, DAY_ONE, [CAFE], plan=[other, going]) == (
        ": Isabella Rodriguez told Klaus Mueller: there is kite flying from 9 pm to 10:30 pm, at Hobbs Cafe (that is "
        "tomorrow, Saturday February 14, 21:00-22:30, at Hobbs Cafe)")
    told = told_of("Klaus Mueller", heard, [CAFE], [other, going], DAY_ONE)
    assert told == "there is kite flying from 9 pm to 10:30 pm, at Hobbs Cafe, on Saturday February 14"
    passed = MemoryNode(npc_id="maria", kind=MemoryKind.THOUGHT, description=f"Klaus Mueller told Maria Lopez: {told}",
                        importance=6, created=DAY_ONE, last_accessed=DAY_ONE)
    assert "(that is tomorrow, Saturday February 14, 21:00-22:30" in about("Maria Lopez", passed, passed.description,
                                                                          DAY_ONE, [CAFE])
    assert "on Saturday" not in about("Maria Lopez", passed, passed.description, DAY_ONE, [CAFE]).split("(that is")[0]
    for plan, now in (([other], DAY_ONE), ([going], tomorrow + timedelta(hours=2))):
        assert "that is" not in about("Klaus Mueller", heard, heard.description, now, [CAFE], plan=plan)
        assert "Saturday" not in told_of("Klaus Mueller", heard, [CAFE], plan, now)


def test_an_event_a_place_hosts_is_not_said_as_the_host_hosting_the_sentence(run, fake_llm, tmp_path) -> None:
    """A whisper said its event by the place that holds it ("The cafe hosts a quiz night ..."): read
    as an event named first, it was said "Isabella Rodriguez is hosting the cafe hosts a quiz night",
    to her and to those told by her. A word in -s before an article is a verb, not part of a name."""
    quiz = "The cafe hosts a quiz night tomorrow at 8 pm: Isabella Rodriguez writes the questions."

    async def scenario(stream: MemoryStream) -> tuple[str, str]:
        news, _ = await _whispered(stream, tmp_path, fake_llm, quiz)
        assert news.news is not None
        return news.line, told_of("Isabella Rodriguez", news.news, [CAFE])

    line, told = run(scenario)
    assert "hosting the cafe" not in line and "hosting the cafe" not in told, (line, told)
    assert "The cafe hosts a quiz night" in line and told.startswith("The cafe hosts a quiz night"), (line, told)


def test_news_passed_on_a_later_day_says_its_relative_day_from_that_day() -> None:
    """Kept on Wednesday, "the event tomorrow (Thursday November 19)" was passed on so on Thursday
    morning, and the listener's memory, stamped Thursday, said the event was the next day."""
    heard = MemoryNode(npc_id="klaus", kind=MemoryKind.THOUGHT, importance=6, created=DAY_ONE, last_accessed=DAY_ONE,
                       description="Isabella Rodriguez told Klaus Mueller: the quilt show tomorrow (Saturday February "
                                   "14) from 2 pm to 4 pm at Hobbs Cafe", subject="Klaus Mueller",
                       predicate="heard from", object="Isabella Rodriguez")
    saturday = DAY_ONE + timedelta(days=1)
    assert told_of("Klaus Mueller", heard, [CAFE], (), saturday) == (
        "the quilt show today (Saturday February 14) from 2 pm to 4 pm at Hobbs Cafe")
    assert told_of("Klaus Mueller", heard, [CAFE], (), DAY_ONE) == (
        "the quilt show tomorrow (Saturday February 14) from 2 pm to 4 pm at Hobbs Cafe")


@pytest.mark.parametrize(("jam", "said"), [
    ("Isabella Rodriguez is having people round to her place on Saturday at 6 pm to taste her plum jam.",
     "round to her place"),
    ("Come round to my flat on Saturday at 6 pm to taste my plum jam.", "round to Isabella Rodriguez's flat"),
])
def test_a_whispered_event_at_the_hosts_place_is_held_at_the_hosts_home(run, fake_llm, tmp_path, jam: str,
                                                                        said: str) -> None:
    """"... is having people round to her place on Saturday at 6 pm ...": "her place" named nowhere the
    brain knew, so the host held no event of her own (no hosting block) and her news said no place.
    Whispered, her home's building is named after it (`gist.home_named`), and so is "my flat" whispered
    in her own voice (kept as "Isabella Rodriguez's flat")."""

    async def scenario(stream: MemoryStream) -> tuple[str, str, str]:
        news, npc = await _whispered(stream, tmp_path, fake_llm, jam)
        assert news.news is not None
        return news.news.description, news.line, npc.persona.home

    kept, line, home = run(scenario)
    building = home.split(":")[1]
    assert f"{said} ({building}) on Saturday" in kept, kept
    assert f"at {building}" in line, line


@pytest.mark.parametrize(("whispered", "kept"), [
    ("You want to host a bonfire at Hobbs Cafe tomorrow from 7 to 9 pm, and your friends should come.",
     "Isabella Rodriguez wants to host a bonfire at Hobbs Cafe tomorrow (Saturday February 14) from 7 to 9 pm, and "
     "their friends should come."),
    ("I'm throwing a housewarming at Hobbs Cafe tomorrow at 6 pm, so I can show my friends the new tables.",
     "Isabella Rodriguez is throwing a housewarming at Hobbs Cafe tomorrow (Saturday February 14) at 6 pm, so they "
     "can show their friends the new tables."),
])
def test_a_whisper_said_to_the_npc_or_in_its_own_voice_is_kept_as_a_thought_about_it(
        run, fake_llm, tmp_path, whispered: str, kept: str) -> None:
    """The paper's inner voice speaks to the agent ("You are going to run against Sam ..."), and its
    code turns that into a statement about the agent before keeping it. Kept as said, "You want to
    host a bonfire ..." was the host's news word for word: told on, a listener kept "Isabella
    Rodriguez told Bo: You want to host a bonfire", and no event of hers was read from it. Said to
    her, or in her own voice, it is kept as said of her, and is news of an event she hosts."""
    news, _ = run(lambda stream: _whispered(stream, tmp_path, fake_llm, whispered))
    assert news.news is not None and news.news.description == kept
    assert news.line.startswith("Isabella Rodriguez has news on their mind, an event they are hosting: Isabella "), \
        news.line
    told = told_of("Isabella Rodriguez", news.news, [CAFE])
    assert told.startswith("Isabella Rodriguez ") and not re.search(r"\b(?:you|your|I|I'm|my)\b", told), told


async def _whispered(stream: MemoryStream, tmp_path, fake_llm, text: str) -> tuple[Held, NpcState]:
    """Isabella's news an hour after `text` is whispered to her in the test town, and her record."""
    mind = await _town_mind(stream, tmp_path)
    fake_llm.queue({"json": {"currently": "Isabella Rodriguez is minding the cafe."}}, purpose="revise_currently")
    await mind.player.whisper("isabella", text, DAY_ONE)
    npc = await mind.records.npc("isabella")
    news = await held(stream, "isabella", "Isabella Rodriguez", DAY_ONE + timedelta(hours=1), known_places(npc))
    await mind.close()
    assert news.news is not None
    return news, npc
