"""What a plan keeps (issue 30), on the production path in-process (background thinking, the fake
endpoint over loopback): a plan item made in conversation keeps the place it named, a re-plan keeps
a promise made while it was being written, and the day plan made after midnight keeps last
night's blocks still running."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from brain_server.api.service import BrainCore
from brain_server.cognition.decide import answer
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.mind import Mind
from brain_server.cognition.perceive import PerceivedEvent
from brain_server.config import Settings
from brain_server.model.npc import NpcState, PlanItem
from brain_server.model.trace import TraceBook
from npc_brain.v1 import brain_pb2 as pb
from tests.test_mind import CAFE, _town_mind, _until, ask, klaus
from tests.test_untrusted_races import request
from tests.town import WORLD, spawn_json, tiles, world_json

TEN = datetime(2026, 2, 13, 10, tzinfo=UTC)
SLOW_REPLAN_S = 3  # the re-plan's answer takes this long: the player's promise lands meanwhile
PARK = f"{WORLD}:Johnson Park:park"
KLAUS_WALKING = PerceivedEvent(subject="Klaus Mueller", predicate="is", object="walking",
                               description="Klaus Mueller is walking", address=PARK, distance=2)
# a memo that books nothing (blind35 wrote so for every yes to news passed on in Cauldwell in view)
NOTHING_ARRANGED = {"summary": "They chatted about everyday things; nothing was arranged.", "importance": 2,
                    "plan_activity": "", "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": ""}


async def _town_with_a_park(stream: MemoryStream, tmp_path, klaus_knows: tuple[str, ...] = (CAFE,)) -> Mind:
    """Isabella and Klaus in the park of the test town, as production runs them (background thinking);
    Klaus lives in the park and knows `klaus_knows`."""
    core = BrainCore(Settings(data_dir=tmp_path, prepare_ahead_minutes=0), stream)
    town = world_json()
    town["world"]["sectors"].append({"name": "Johnson Park", "arenas": [{"name": "park", "tiles": tiles(1, 8, 8, 12)}]})
    await core.register_world(request(pb.RegisterWorldRequest, town))
    stranger = klaus()
    stranger["persona"].update({"home": PARK, "knownAreas": list(klaus_knows)})
    for body in (spawn_json(), stranger):
        await core.spawn_npc(request(pb.SpawnNpcRequest, body | {"address": PARK}))
    return Mind(core.settings, stream, core.records, TraceBook(100, 1000))


async def _both_planned(mind: Mind, address: str) -> Mind:
    """Isabella and Klaus at `address` with today's plans (made in the background at 09:00)."""
    for npc_id in ("isabella", "klaus"):
        await mind.decide(npc_id, TEN - timedelta(hours=1), [], address)
        await _until(lambda n=npc_id: mind.records.cached(n).plan_day == TEN.date() and not mind.runtimes.of(n).jobs)
    return mind


@pytest.mark.parametrize("klaus_knows", [(CAFE,), (PARK,)], ids=["knows the cafe", "never saw the cafe"])
def test_a_plan_made_in_conversation_is_booked_where_it_named(run, fake_llm, tmp_path, klaus_knows) -> None:
    """Isabella invites Klaus in the park to her party at the cafe: both memos name the cafe, and
    both book it there without asking where (a model asked would keep them in the park they talk in).
    Klaus may never have seen the cafe: told where it is, he is offered it and learns it."""

    async def scenario(stream: MemoryStream) -> None:
        mind = await _both_planned(await _town_with_a_park(stream, tmp_path, klaus_knows), PARK)
        records = mind.records
        fake_llm.queue({"json": {"choice": "talk", "reason": "invite him", "new_activity": ""}}, purpose="react")
        fake_llm.queue({"json": {"utterance": "Come to my party at Hobbs Cafe at 17:00!", "end_conversation": False}},
                       {"json": {"utterance": "I'll be there.", "end_conversation": True}}, purpose="converse_turn")
        memo = {"summary": "Klaus comes to Isabella's party at Hobbs Cafe at 5 pm", "importance": 7,
                "plan_activity": "going to Isabella's party", "plan_date": "2026-02-13", "plan_start": "17:00",
                "plan_minutes": 120, "plan_place": CAFE}
        fake_llm.queue({"json": memo}, {"json": memo}, purpose="conversation_memo")
        stay = {"json": {"place": {"sector": "Johnson Park", "arena": "park", "object": ""}}}
        fake_llm.queue(stay, stay, purpose="choose_address")
        await mind.decide("isabella", TEN, [KLAUS_WALKING], PARK)

        def party(npc_id: str) -> PlanItem | None:
            return next((i for i in records.cached(npc_id).plan if i.activity == "going to Isabella's party"), None)

        await _until(lambda: party("klaus") is not None and party("isabella") is not None)
        assert party("klaus").address == party("isabella").address == CAFE
        assert party("klaus").start == TEN.replace(hour=17) and fake_llm.chat_requests("choose_address") == []
        offered = [r["body"]["response_format"]["json_schema"]["schema"]["properties"]["plan_place"]["enum"]
                   for r in fake_llm.chat_requests("conversation_memo")]
        assert all(CAFE in places for places in offered) and CAFE in records.cached("klaus").known_addresses
        await mind.close()

    run(scenario)


def test_a_yes_said_in_conversation_is_booked_when_the_memos_book_nothing(run, fake_llm, tmp_path) -> None:
    """Isabella tells Klaus in the park of a quilt raffle at the cafe at 5 pm and he says he will go;
    both memos book nothing ("nothing was arranged": blind35 wrote so for every yes to news passed on
    in Cauldwell in view). His yes is booked at the hours and place the line named; hers, who said
    none, is not."""

    async def scenario(stream: MemoryStream) -> None:
        mind = await _both_planned(await _town_with_a_park(stream, tmp_path), PARK)
        records = mind.records
        fake_llm.queue({"json": {"choice": "talk", "reason": "tell him", "new_activity": ""}}, purpose="react")
        fake_llm.queue({"json": {"utterance": "Did you know Maria is holding a quilt raffle at Hobbs Cafe at 5 pm?",
                                 "end_conversation": False}},
                       {"json": {"utterance": "I'd heard! I think I'll go.", "end_conversation": True}},
                       purpose="converse_turn")
        fake_llm.queue({"json": NOTHING_ARRANGED}, {"json": NOTHING_ARRANGED}, purpose="conversation_memo")
        await mind.decide("isabella", TEN, [KLAUS_WALKING], PARK)

        def raffle(npc_id: str) -> PlanItem | None:
            return next((i for i in records.cached(npc_id).plan if "quilt raffle" in i.activity), None)

        await _until(lambda: raffle("klaus") is not None)
        assert raffle("klaus").start == TEN.replace(hour=17) and raffle("klaus").address == CAFE
        assert raffle("isabella") is None
        await mind.close()

    run(scenario)


@pytest.mark.parametrize("what", ["a quilt raffle", "an event"])
def test_a_yes_to_a_host_who_said_the_wrong_day_is_booked_when_her_news_says(run, fake_llm, tmp_path, what) -> None:
    """Isabella, whose quilt raffle at the cafe is tomorrow morning, asks Klaus in the park to "a quilt
    raffle" or "an event" "today at 8 am at Hobbs Cafe" (over at ten: blind35's Bir Tamrit host said
    "I'm holding an event they are hosting today at 5:30 am in the overhang at Kef Rock" of her dawn
    event the next day), and he says he will go, to a place he has never seen; both memos book nothing.
    His yes is booked on the day and at the hours her news says, at the cafe the line named (which he
    now knows: the event named so is found in her news by its place)."""

    async def scenario(stream: MemoryStream) -> None:
        mind = await _both_planned(await _town_with_a_park(stream, tmp_path, klaus_knows=(PARK,)), PARK)
        records = mind.records
        await mind.player.whisper("isabella", "Tomorrow, from 8 to 10 in the morning, Isabella Rodriguez will hold a "
                                  "quilt raffle at Hobbs Cafe, and she will ask whoever she meets.", TEN)
        await _until(lambda: not mind.runtimes.of("isabella").jobs)
        fake_llm.queue({"json": {"choice": "talk", "reason": "ask him", "new_activity": ""}}, purpose="react")
        fake_llm.queue({"json": {"utterance": f"I'm holding {what} today at 8 am at Hobbs Cafe. Do come!",
                                 "end_conversation": False}},
                       {"json": {"utterance": "Yes, I think I'll go.", "end_conversation": True}}, purpose="converse_turn")
        fake_llm.queue({"json": NOTHING_ARRANGED}, {"json": NOTHING_ARRANGED}, purpose="conversation_memo")
        await mind.decide("isabella", TEN + timedelta(minutes=1), [KLAUS_WALKING], PARK)

        def raffle() -> PlanItem | None:  # tomorrow's: kept for its day
            return next((i for i in records.cached("klaus").commitments if what in i.activity), None)

        await _until(lambda: raffle() is not None)
        booked = raffle()
        assert booked is not None and (booked.start, booked.address) == (TEN.replace(day=14, hour=8), CAFE)
        await mind.close()

    run(scenario)


@pytest.mark.slow  # the re-plan's answer is held back SLOW_REPLAN_S
def test_a_replan_keeps_a_promise_made_while_it_was_written(run, fake_llm, tmp_path) -> None:
    """Isabella re-plans her next hour after Klaus spills coffee (a slow answer); meanwhile she
    promises a player to meet at 10:30. The re-plan replaces its window, the promise stays in it."""

    async def scenario(stream: MemoryStream) -> None:
        mind = await _both_planned(await _town_mind(stream, tmp_path), CAFE)
        records = mind.records
        fake_llm.queue({"json": {"choice": "react", "reason": "the floor is wet",
                                 "new_activity": "mopping up the spilled coffee"}}, purpose="react")
        fake_llm.queue({"delay_s": SLOW_REPLAN_S, "json": {"new_blocks": [
            {"start": "10:00", "activity": "mopping up the spilled coffee", "emoji": "🧽", "address": CAFE}]}},
            purpose="replan")
        spill = PerceivedEvent(subject="Klaus Mueller", predicate="spilled", object="coffee",
                               description="Klaus Mueller spilled coffee on the floor", address=CAFE, distance=1)
        await mind.decide("isabella", TEN, [spill], CAFE)
        await _until(lambda: bool(fake_llm.chat_requests("replan")))
        fake_llm.queue({"json": {"utterance": "Yes, see you at 10:30 then!", "end_conversation": True}},
                       purpose="converse_turn")
        fake_llm.queue({"json": {"summary": "Sam and I meet at 10:30", "importance": 5, "plan_activity":
                                 "meeting Sam at the cafe", "plan_start": "10:30", "plan_minutes": 30}},
                       purpose="conversation_memo")
        await mind.player.talk("isabella", "Sam", "Can we meet at 10:30?", TEN)

        def activity_at(npc: NpcState, minute: int) -> str:
            item = npc.plan_item_at(TEN + timedelta(minutes=minute))
            return item.activity if item is not None else ""

        await _until(lambda: activity_at(records.cached("isabella"), 30) == "meeting Sam at the cafe")
        assert mind.runtimes.of("isabella").jobs, "the promise must land while the re-plan is still written"
        await _until(lambda: not mind.runtimes.of("isabella").jobs and not mind.thinking._tasks)
        plan = records.cached("isabella")
        assert activity_at(plan, 0) == "mopping up the spilled coffee"  # the window is re-planned
        meeting = plan.plan_item_at(TEN + timedelta(minutes=30))
        assert meeting is not None and (meeting.activity, meeting.start, meeting.duration_minutes) == (
            "meeting Sam at the cafe", TEN + timedelta(minutes=30), 30)
        await mind.close()

    run(scenario)


def test_the_day_plan_made_at_midnight_keeps_last_nights_late_blocks(run, fake_llm, tmp_path) -> None:
    """A night owl serving until 00:45 is not sent to bed when the new day's plan lands at 00:10:
    what still runs is kept before the new plan (which starts at 07:00), then the day goes on."""

    async def scenario(stream: MemoryStream) -> None:
        mind = await _town_mind(stream, tmp_path)
        records = mind.records
        evening = TEN.replace(hour=21)
        await mind.decide("isabella", evening, [], CAFE)
        await _until(lambda: records.cached("isabella").plan_day == evening.date()
                     and not mind.runtimes.of("isabella").jobs)
        late = PlanItem(start=evening.replace(hour=23), duration_minutes=105, activity="serving the last drinks",
                        emoji="🍷", address=CAFE)
        await records.merge("isabella", lambda live: live.insert_plan_item(late))
        midnight = evening.replace(hour=0, minute=10) + timedelta(days=1)
        await mind.decide("isabella", midnight, [], CAFE)
        await _until(lambda: records.cached("isabella").plan_day == midnight.date()
                     and not mind.runtimes.of("isabella").jobs)
        answered = answer(mind.published("isabella"), ask("isabella", midnight + timedelta(minutes=10)))
        assert answered.action.description.startswith("Isabella Rodriguez is serving the last")
        plan = records.cached("isabella").plan
        assert plan[0].start == midnight and plan[0].end == late.end and plan[0].one_off
        assert answer(mind.published("isabella"), ask("isabella", midnight.replace(hour=8))).action.source != "provisional"
        await mind.close()

    run(scenario)
