"""Recursive planning (paper section 4.3): each morning the NPC revises its "currently" status
(from day 2, `status.py`), then writes its day top-down in one call: wake-up hour, broad strokes, hour-level
blocks at places it knows; a reaction re-plans only the next hour or two (one call). Breaking
blocks into 5-15 minute steps, and the action the plan gives for now, are `steps.py`.

The LLM's times are never trusted as they come: every answer is normalised in code into a
gap-free timeline (the day from waking up to waking up the next day, ending in sleep at home),
so a weak model degrades the plan's content, not its shape. Meals are once a day: a later block repeating a meal already in the timeline
continues the block before it instead. Day plans, decompositions and re-plans are PLAN memories.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime, time, timedelta
import re
from typing import TYPE_CHECKING

from brain_server.cognition.locate import repair_address
from brain_server.cognition.memory_stream import MemoryStream, bullet_list
from brain_server.cognition.offline.awake import keep_awake, minutes
from brain_server.cognition.offline.kept_days import redated
from brain_server.cognition.offline.lifestyle import DEFAULT_WAKE
from brain_server.cognition.offline.routine import MEAL, SLEEP, day_shape
from brain_server.cognition.offline.workday import keep_at_work, meals_kept_short
from brain_server.cognition.places_said import place_as_said
from brain_server.cognition.schedule import OWN_PLANS, day_name, plan_lines, previous_day
from brain_server.cognition.status import revise_currently
from brain_server.llm.scheduler import Work
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import NpcState, PlanItem, as_label, is_sleep
from brain_server.model.trace import Trace
from brain_server.model.world import sector_of
from brain_server.prompts.daily_plan import PROMPT as DAILY_PLAN
from brain_server.prompts.daily_plan import DailyPlan, PlanBlock
from brain_server.prompts.decompose import MIN_STEP_MINUTES
from brain_server.prompts.replan import PROMPT as REPLAN
from brain_server.prompts.replan import Replan

if TYPE_CHECKING:
    from brain_server.cognition.gather import Seek

EARLIEST_WAKE_HOUR, LATEST_WAKE_HOUR = 3, 14
# Clock times before this hour belong to the night after the planned day (a block at "00:30").
DAY_BOUNDARY_HOUR = 3
NEWS_LOOKBACK = 500  # memories since the last day plan read to tell whether anything happened
REPLAN_MIN_MINUTES, REPLAN_MAX_MINUTES = 60, 120
_FIVE = timedelta(minutes=MIN_STEP_MINUTES)
_AT_HOME = re.compile(r"(?<!away )\b(?:at|from) home\b", re.IGNORECASE)



# --- the day plan ---------------------------------------------------------------------------


async def plan_day(npc: NpcState, now: datetime, stream: MemoryStream, trace: Trace, *, work: Work,
                   places: Sequence[str] | None = None, renew_below: int = 0,
                   seek: Seek | None = None) -> tuple[list[PlanItem], MemoryNode]:
    """Today's hour-level plan and its PLAN memory. From the second day on, "currently" is revised
    first; with `renew_below`, a day after one in which nothing of that importance happened
    repeats the last plan instead, without a call (a routine costs nothing). `seek`: news the NPC
    holds and where those it has not told will be (`gather.seeking`): shown, and visited. Sets
    `npc.wake_up_hour` and `npc.day_outline`; the caller stores the plan itself, so `npc.plan`
    still holds the previous day's plan here (it is what the prompt shows as yesterday)."""
    persona = npc.persona
    persona.currently = redated(persona.currently, now.date())  # a day with no call to revise it read "tomorrow" too
    places = _places(npc, places)
    if renew_below and npc.plan and npc.plan_day is not None and npc.plan_day < now.date() and \
            not await _news_since_plan(npc, stream, renew_below):
        answer = fallback_plan(npc, now, places)
        trace.note(f"plan: nothing of importance {renew_below}+ since the last plan: the same day again (no LLM call)")
    else:
        answer = await _ask_for_plan(npc, now, stream, trace, places, work, seek.lines if seek else "")
    items, overslept = keep_awake(schedule(answer, now, places, persona.home, trace, persona.name, persona.verbs),
                                  npc, places)
    if overslept:
        trace.note(f"plan: {overslept} of sleep in the hours {persona.name}'s lifestyle is awake: the usual day there")
    meant = seek.holds_event if seek else lambda item: False
    items = meals_kept_short(items, meant)
    items, away = keep_at_work(items, npc, places, meant)
    if away:
        trace.note(f"plan: {away} of {persona.name}'s stated working hours away from its workplace: worked there")
    items = seek.visit(items, persona.home, now) if seek else items
    npc.wake_up_hour, npc.day_outline = items[0].start.hour, list(answer.outline)
    # the outline's own waking said once: "wake up at 04:30; wake up at 4:30 am; ..." (blind33's writer, 607 prompts)
    woke = [] if answer.outline and _WAKE.match(answer.outline[0]) else [f"wake up at {items[0].start:%H:%M}"]
    summary = (f"{persona.name}'s plan for {day_name(now)}: " + "; ".join([*woke, *answer.outline]) + ". Schedule: "
               + "; ".join(f"{i.start:%H:%M} {i.activity}" for i in items))
    node = plan_node(npc, now, summary, importance=5)
    [node] = await stream.remember(npc.npc_id, persona, [node], trace, rate=False)
    return items, node


_WAKE = re.compile(r"\s*(?:wake|waking|get(?:ting)?\s+up|rise|rising)\b", re.IGNORECASE)


async def _ask_for_plan(npc: NpcState, now: datetime, stream: MemoryStream, trace: Trace,
                        places: Sequence[str], work: Work, seek: str) -> DailyPlan:
    """The model's day plan. The prompt says which place is home: asked to end the day "sleeping at
    home" among places not told apart, blind21 put a boatman's breakfast, dinner and evenings "at
    home" in the laundry's wash house, and his evening's steps were its mangle and coppers."""
    persona = npc.persona
    if npc.plan_day is not None and npc.plan_day < now.date():
        persona.currently = await revise_currently(npc, now, stream, trace, work=work)
    # Its own plans are left out: the prompt shows the last day's plan whole, and its steps crowded out
    # what was promised or heard ("X's plan for 08:00-12:00 ...: busy at the taproom (200 min)").
    memories = await stream.said_for(npc.npc_id, now.date(), await stream.retrieve(
        npc.npc_id, f"{persona.name}'s plans and commitments for {now:%A %B %d}", now, trace, without=OWN_PLANS))
    return await stream.llm.complete(
        DAILY_PLAN,
        {
            "npc_name": persona.name, "persona": persona.summary(), "date": day_name(now),
            "previous_day": previous_day(npc), "memories": bullet_list(memories), "seek": seek,
            "places": bullets(places), "place_list": places, "home": f" ({persona.home})" if persona.home else "",
        },
        work=work, npc_id=npc.npc_id,
        fallback=lambda: fallback_plan(npc, now, places),
        trace=trace,
    )


async def _news_since_plan(npc: NpcState, stream: MemoryStream, importance: int) -> bool:
    """Whether anything of `importance` or more entered the NPC's memory since its last day plan
    (its own plans and what it saw itself doing aside); more memories since than are read count as news."""
    store, name = stream.store, npc.persona.name
    found = await asyncio.to_thread(store.get, npc.npc_id, [npc.plan_memory_id]) if npc.plan_memory_id else []
    if not found:
        return True
    made = found[0]
    recent = await asyncio.to_thread(store.latest, npc.npc_id, NEWS_LOOKBACK)
    since = [n for n in recent if n.created >= made.created and n.kind != MemoryKind.PLAN]  # the same minute too

    def own(n: MemoryNode) -> bool:  # its own actions
        return n.kind == MemoryKind.OBSERVATION and n.subject == name

    return len(since) == NEWS_LOOKBACK or any(n.importance >= importance and not own(n) for n in since)


def fallback_plan(npc: NpcState, now: datetime, places: Sequence[str]) -> DailyPlan:
    """When the LLM cannot plan: the last planned day again if there is one (NPCs keep routines;
    its one-off blocks are not repeated: the gap they leave is the block before, continued),
    else the persona's usual day at the places it may go (`routine.day_shape`: its workplace on a
    weekday, meals, an outing on other days). Built unvalidated: it is our own data, and may exceed
    the LLM's limits."""
    if routine := [i for i in npc.plan if not i.one_off]:
        wake = npc.wake_up_hour if npc.wake_up_hour is not None else DEFAULT_WAKE.hour
        blocks = [PlanBlock.model_construct(start=f"{i.start:%H:%M}", duration_minutes=i.duration_minutes,
                                            activity=i.activity, emoji=i.emoji, address=i.address) for i in routine]
        return DailyPlan.model_construct(wake_up_hour=wake, outline=list(npc.day_outline), blocks=blocks)
    day = day_shape(npc, now.date(), now.tzinfo, places)
    blocks = [PlanBlock.model_construct(start=f"{b.start:%H:%M}", duration_minutes=minutes(b.start, b.end),
                                        activity=b.activity, emoji=b.emoji, address=b.address) for b in day]
    first = {b.activity: b.start for b in reversed(day) if not is_sleep(b.activity)}
    outline = [f"{activity} at {start:%H:%M}" for activity, start in sorted(first.items(), key=lambda a: a[1])]
    return DailyPlan.model_construct(wake_up_hour=day[0].start.hour, outline=outline[:8], blocks=blocks)


def schedule(plan: DailyPlan, now: datetime, places: Sequence[str], home: str,
             trace: Trace | None = None, name: str = "", verbs: frozenset[str] = frozenset()) -> list[PlanItem]:
    """The answer as a gap-free timeline on `now`'s date, from waking up (the first block moves to
    the wake-up hour, or the wake-up to the first block if it starts earlier or within that hour) to
    waking up the next day, the last block being sleep at home; addresses repaired to known places."""
    day, tz = now.date(), now.tzinfo

    def at(clock: str) -> datetime:
        moment = datetime.combine(day, time.fromisoformat(clock.zfill(5)), tzinfo=tz)
        return moment if moment.hour >= DAY_BOUNDARY_HOUR else moment + timedelta(days=1)

    drafts = sorted((_item(at(b.start), b.duration_minutes, b.activity, b.emoji, b.address, places, home, trace, name,
                           verbs) for b in plan.blocks), key=lambda i: i.start)
    wake = datetime.combine(day, time(min(max(plan.wake_up_hour, EARLIEST_WAKE_HOUR), LATEST_WAKE_HOUR)), tzinfo=tz)
    wake = drafts[0].start if drafts and drafts[0].start < wake + timedelta(hours=1) else wake
    end = wake + timedelta(days=1)
    drafts = [d for d in drafts if d.start <= end - 2 * _FIVE]
    if not drafts or not is_sleep(drafts[-1].activity):
        last = drafts[-1].end if drafts else wake + timedelta(hours=16)
        bedtime = min(max(last, drafts[-1].start + _FIVE if drafts else wake), end - _FIVE)
        drafts.append(_item(bedtime, 5, *SLEEP, home, places, home))
    items = _timeline(drafts, wake, end)
    items = [i.model_copy(update={"address": home}) if is_sleep(i.activity) else i for i in items]
    return _once_a_day(items, wake)


# --- re-planning after a reaction -----------------------------------------------------------


async def replan_from(npc: NpcState, now: datetime, reason: str, stream: MemoryStream, trace: Trace, *, work: Work,
                      horizon_minutes: int = REPLAN_MAX_MINUTES, places: Sequence[str] | None = None,
                      seek: str = "") -> list[PlanItem]:
    """Re-plan from `now` for the next one to two hours (up to the first block boundary past an
    hour) given `reason`, in one call; blocks before and after that window are kept, the one in
    progress ends now and the one straddling the window's end starts at it. The prompt shows what
    was already done today, and a meal done already is not repeated (`seek`: as for `plan_day`). Returns the window's new
    blocks (one-off: a reaction is not a routine), for `lay_window` to lay over the plan as it is
    when the answer lands; none, and the plan kept, on failure."""
    now = now.replace(second=0, microsecond=0)
    end = _window_end(npc.plan, now, horizon_minutes)
    places = _places(npc, places)
    before = [i if i.end <= now else i.model_copy(update={"duration_minutes": minutes(i.start, now), "subtasks": []})
              for i in npc.plan if i.start < now and minutes(i.start, now) > 0]
    after = [i if i.start >= end else i.model_copy(update={"start": end, "duration_minutes": minutes(end, i.end),
                                                           "subtasks": []})
             for i in npc.plan if i.end > end]
    memories = await stream.retrieve(npc.npc_id, reason, now, trace)
    starts = [now, *(now + timedelta(minutes=m) for m in range(5 - now.minute % 5, minutes(now, end) - 4, 5))]
    unchanged = Replan.model_construct(new_blocks=[])
    answer = await stream.llm.complete(
        REPLAN,
        {
            "npc_name": npc.persona.name, "persona": npc.persona.summary(), "date": day_name(now),
            "time": f"{now:%H:%M}", "end": f"{end:%H:%M}", "reason": reason, "memories": bullet_list(memories),
            "seek": seek,
            "done": plan_lines(before), "planned": plan_lines([i for i in npc.plan if i.start < end and i.end > now]),
            "later": plan_lines(after), "places": bullets(places), "place_list": places,
            "start_times": [f"{s:%H:%M}" for s in starts],
        },
        work=work, npc_id=npc.npc_id,
        fallback=lambda: unchanged,
        trace=trace,
    )
    if not answer.new_blocks:
        trace.note("plan: re-plan failed, the plan stays as it was")
        return []
    drafts = [_item(_clock_after(b.start, now), 5, b.activity, b.emoji, b.address, places, npc.persona.home, trace,
                    npc.persona.name, npc.persona.verbs) for b in answer.new_blocks]
    window = _timeline(sorted(drafts, key=lambda i: i.start), now, end)
    npc.plan = _once_a_day([*before, *window, *after], now)
    changed = [i.model_copy(update={"one_off": True}) for i in npc.plan if now <= i.start < end]
    description = (f"{npc.persona.name} changed plans at {now:%H:%M} on {day_name(now)} because {reason}: "
                   + "; ".join(f"{i.start:%H:%M} {i.activity}" for i in changed))
    await stream.remember(npc.npc_id, npc.persona, [plan_node(npc, now, description, importance=5)], trace,
                          rate=False)
    trace.note(f"plan: re-planned {now:%H:%M}-{end:%H:%M} into {len(changed)} block(s)")
    return changed


def lay_window(live: NpcState, planned: Sequence[PlanItem], window: Sequence[PlanItem]) -> bool:
    """A re-planned window laid over the plan as it is now (`live`), not over the copy it was
    thought out from (`planned`): blocks outside the window stay as they are, and a promise made
    while the re-plan was being written (a one-off block `planned` did not have: an invitation
    accepted in a conversation, a player's Talk) is laid over the window again. False when
    there is no window or the plan is already another day's."""
    if not window or live.plan_day != window[0].start.date():
        return False
    before = {i.key for i in planned}
    promised = [i for i in live.plan if i.one_off and i.key not in before]
    for item in [*window, *promised]:
        live.insert_plan_item(item)
    return True


def carry_over(previous: Sequence[PlanItem], made: Sequence[PlanItem], now: datetime) -> list[PlanItem]:
    """A new day plan made at `now` after the night began: what the last plan still had running
    from now until the new plan's first block (the pub keeper serving until 01:00, a night owl
    reading until bed) is kept before it, cut to start now, as one-off (the tail of another day)."""
    first = made[0].start if made else now
    tail = [i.model_copy(update={"start": max(i.start, now), "duration_minutes": minutes(max(i.start, now),
                                                                                          min(i.end, first)),
                                 "subtasks": [] if i.start < now or i.end > first else i.subtasks, "one_off": True})
            for i in previous if i.end > now and i.start < first]
    return [*(i for i in tail if i.duration_minutes > 0), *made]


def _window_end(plan: Sequence[PlanItem], now: datetime, horizon_minutes: int) -> datetime:
    """The first block boundary between one hour and the horizon from now, else the horizon
    (extended to the block's end if less than five minutes of it would remain)."""
    earliest = now + timedelta(minutes=REPLAN_MIN_MINUTES)
    latest = now + timedelta(minutes=max(horizon_minutes, REPLAN_MIN_MINUTES))
    boundaries = sorted(b for i in plan for b in (i.start, i.end) if earliest <= b <= latest)
    if boundaries:
        return boundaries[0]
    straddling = next((i for i in plan if i.start < latest < i.end), None)
    return straddling.end if straddling and straddling.end - latest < _FIVE else latest


# --- shared helpers -------------------------------------------------------------------------


def _timeline(drafts: Sequence[PlanItem], start: datetime, end: datetime) -> list[PlanItem]:
    """Sorted drafts as blocks tiling [start, end): the first starts at `start`, each ends where the
    next begins, the last at `end`; drafts within five minutes of the previous one or of `end` are dropped."""
    kept: list[PlanItem] = []
    for draft in drafts:
        begin = max(draft.start, start) if kept else start
        if begin > end - _FIVE or (kept and begin - kept[-1].start < _FIVE):
            continue
        kept.append(draft.model_copy(update={"start": begin}))
    ends = [i.start for i in kept[1:]] + [end]
    return [i.model_copy(update={"duration_minutes": minutes(i.start, stop)}) for i, stop in zip(kept, ends,
                                                                                                   strict=True)]


def _once_a_day(items: Sequence[PlanItem], since: datetime) -> list[PlanItem]:
    """A block from `since` on that repeats a meal already in the timeline (a second lunch)
    continues the block before it instead: that block is extended if it has no steps yet."""
    seen: set[str] = set()
    out: list[PlanItem] = []
    for item in items:
        meals = {m.lower() for m in MEAL.findall(item.activity)}
        if item.start >= since and meals & seen and out:
            previous = out[-1]
            if not previous.subtasks and previous.end == item.start:
                out[-1] = previous.model_copy(
                    update={"duration_minutes": previous.duration_minutes + item.duration_minutes})
                continue
            item = item.model_copy(update={"activity": previous.activity, "emoji": previous.emoji,
                                           "address": previous.address, "subtasks": []})
        seen |= meals
        out.append(item)
    return out


def _item(start: datetime, minutes: int, activity: str, emoji: str, address: str, places: Sequence[str],
          home: str, trace: Trace | None = None, name: str = "", verbs: frozenset[str] = frozenset()) -> PlanItem:
    address = place_as_said(activity, repair_address(address, places, home, trace), places, trace)
    if _AT_HOME.search(activity) and home and sector_of(address) != sector_of(home):
        # a model may lay "relaxing at home" at a place it knows better than the NPC's own (a
        # laundry's wash house for one who lives on a boat): where it lives is where "at home" is
        if trace is not None:
            trace.note(f"plan: {activity[:60]!r} is at home, not at {address!r}")
        address = home
    return PlanItem(start=start, duration_minutes=max(minutes, MIN_STEP_MINUTES),
                    activity=as_label(activity, name, verbs), emoji=emoji, address=address)


def _clock_after(clock: str, now: datetime) -> datetime:
    """This clock time ("HH:MM") in the 24 hours from 12 hours before `now` (earlier ones are clipped
    to `now` later); `now` if unreadable."""
    try:
        moment = datetime.combine(now.date(), time.fromisoformat(clock.strip().zfill(5)), tzinfo=now.tzinfo)
    except ValueError:
        return now
    return moment if moment >= now - timedelta(hours=12) else moment + timedelta(days=1)


def _places(npc: NpcState, allowed: Sequence[str] | None) -> list[str]:
    """Home first, then the other places the NPC may go (all it knows unless the caller narrows it)."""
    home = npc.persona.home
    return [home, *(a for a in (npc.known_addresses if allowed is None else allowed) if a != home)]


def bullets(values: Sequence[str]) -> str:
    return "\n".join(f"- {v}" for v in values)


def plan_node(npc: NpcState, now: datetime, description: str, *, importance: int, key: str = "") -> MemoryNode:
    return MemoryNode(npc_id=npc.npc_id, kind=MemoryKind.PLAN, description=description, subject=npc.persona.name,
                      predicate="plans", object=description[:80], importance=importance, created=now,
                      last_accessed=now, embedding_key=key)
