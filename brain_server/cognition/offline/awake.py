"""A day plan held to the waking hours its persona states ("up at 6, in bed by 1 am"). A model that
reads "goes to bed at 1 am" as 13:00, or writes the afternoon as a nap, puts the NPC to sleep for half
its day, where nobody can meet it; `plan.schedule` keeps the plan's shape, not its sense. Sleep the
plan lays inside the stated waking hours, past a tolerance, becomes the routine's blocks for those
hours (`routine.day_shape`: the persona's own day, no model). Only stated hours count: a lifestyle
that says nothing of when it sleeps keeps whatever the model planned, and one that states a night
shift's daytime sleep keeps that sleep."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta, tzinfo

from brain_server.cognition.offline.lifestyle import states_bed, states_wake, wake_and_bed
from brain_server.cognition.offline.routine import day_shape
from brain_server.model.npc import NpcState, PlanItem, is_sleep
from brain_server.prompts.decompose import MIN_STEP_MINUTES

OVERSLEEP = timedelta(minutes=90)  # sleep a plan may put inside the stated hours (an early night, a nap)
AWAKE_AT_LEAST = timedelta(hours=12)  # the waking day of a lifestyle that states its waking time only


def awake_window(lifestyle: str, day: date, tz: tzinfo | None) -> tuple[datetime, datetime] | None:
    """The stretch of `day` the lifestyle says the persona is up (it may end after midnight), or
    None when it states neither when it wakes nor when it goes to bed."""
    bed_stated, wake_stated = states_bed(lifestyle), states_wake(lifestyle)
    if not (bed_stated or wake_stated):
        return None
    wake, bed = wake_and_bed(lifestyle)
    start = datetime.combine(day, wake, tzinfo=tz)
    if not bed_stated:
        return start, start + AWAKE_AT_LEAST
    end = datetime.combine(day, bed, tzinfo=tz)
    return start, end if end > start else end + timedelta(days=1)


def keep_awake(items: Sequence[PlanItem], npc: NpcState, places: Sequence[str]) -> tuple[list[PlanItem], timedelta]:
    """`items` (a day's gap-free timeline) with the sleep it lays inside the persona's stated waking
    hours replaced by the routine's blocks there, and how much sleep was replaced (zero when the
    plan oversleeps by `OVERSLEEP` or less: then it is kept as planned)."""
    if not items:
        return list(items), timedelta(0)
    window = awake_window(npc.persona.lifestyle, items[0].start.date(), items[0].start.tzinfo)
    if window is None:
        return list(items), timedelta(0)
    begin, end = window
    overslept = sum((min(i.end, end) - max(i.start, begin) for i in items
                     if is_sleep(i.activity) and i.start < end and i.end > begin), timedelta(0))
    if overslept <= OVERSLEEP:
        return list(items), timedelta(0)
    routine = [PlanItem(start=b.start, duration_minutes=minutes(b.start, b.end), activity=b.activity,
                        emoji=b.emoji, address=b.address)
               for b in day_shape(npc, begin.date(), begin.tzinfo, places) if not is_sleep(b.activity)]
    kept: list[PlanItem] = []
    for item in items:
        if not is_sleep(item.activity) or item.end <= begin or item.start >= end:
            kept.append(item)
            continue
        cut: list[tuple[datetime, datetime, PlanItem]] = [
            (s, e, r) for r in routine if (e := min(r.end, item.end, end)) > (s := max(r.start, item.start, begin))]
        edges = [item.start, *(m for s, e, _ in cut for m in (s, e)), item.end]
        slept = [(s, e, item) for s, e in zip(edges[::2], edges[1::2], strict=True) if e > s]  # sleep left between
        for s, e, r in sorted(slept + cut, key=lambda p: p[0]):
            kept.append(r.model_copy(update={"start": s, "duration_minutes": minutes(s, e), "subtasks": []}))
    return _no_slivers(kept), overslept


def _no_slivers(items: Sequence[PlanItem]) -> list[PlanItem]:
    """Blocks shorter than a step (where a routine block's edge fell just inside the window) join the block before."""
    out: list[PlanItem] = []
    for item in items:
        if out and item.duration_minutes < MIN_STEP_MINUTES:
            out[-1] = out[-1].model_copy(update={"duration_minutes": out[-1].duration_minutes + item.duration_minutes})
        else:
            out.append(item)
    return out


def minutes(start: datetime, end: datetime) -> int:
    """Whole minutes from `start` to `end`: a plan item's duration (plan.py uses it too)."""
    return int((end - start).total_seconds() // 60)
