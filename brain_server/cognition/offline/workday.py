"""A day plan held to the working day its persona states ("keeps the shop open from 8 am to 5 pm").
A model that reads the places it may go by their words puts a shopkeeper's working hours in her
own kitchen, a mechanic's in the reading room (blind15 in Tarnbeck: six of nine residents worked
somewhere their persona never names), and out of the player's view, where an NPC is where its plan
puts it, nobody then meets anyone but their own household. Working hours the plan spends away from
the workplace, past a tolerance, go to the workplace (`routine.workplace`: the one the game
declares, else the place the persona says it works at). Only a stated day counts: a lifestyle that
states no working hours, a persona with no workplace, a day off (`lifestyle.working_days`), meals,
sleep, one-off items (an event, a visit, a promise) and blocks the caller says the model meant
(`meant`: an event the NPC heard of, at its hours) keep what the model planned; a meal keeps its
first MEAL_AT_WORK of the working hours, not more (blind34, a model that stretches each outline item
to the next: "having lunch" from noon to 6 pm at home, and the Ville's cafe shut all afternoon)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, time, timedelta
from itertools import pairwise

from brain_server.cognition.offline.awake import minutes
from brain_server.cognition.offline.lifestyle import stated_work_hours, working_days
from brain_server.cognition.offline.routine import MEAL, workplace
from brain_server.model.npc import NpcState, PlanItem, is_sleep
from brain_server.model.world import sector_of

AWAY_FROM_WORK = timedelta(minutes=90)  # of the working hours a plan may spend elsewhere (an errand, a call)
MEAL_AT_WORK = timedelta(hours=1)  # of the working hours a meal away from the workplace keeps (a lunch break)
MEAL_LONGEST = timedelta(hours=2)  # of any hours a meal keeps; the rest is free time where it is


def keep_at_work(items: Sequence[PlanItem], npc: NpcState, places: Sequence[str],
                 meant: Callable[[PlanItem], bool] = lambda item: False) -> tuple[list[PlanItem], timedelta]:
    """`items` (a day's gap-free timeline) with the working hours they spend away from the
    persona's workplace moved there, as "working at the <place>", and how much was moved (zero when
    `AWAY_FROM_WORK` or less: then the plan is kept as it is). Blocks `meant` says the model meant stay,
    and do not count as time away."""
    if not items or (hours := stated_work_hours(npc.persona.lifestyle)) is None or \
            (work := workplace(npc, places)) is None:
        return list(items), timedelta(0)
    if items[0].start.weekday() >= working_days(npc.persona.lifestyle):
        return list(items), timedelta(0)
    begin, end = work_window(hours, items[0].start)
    planned, items = list(items), [part for i in items for part in _meal_break(i, begin, end)]
    elsewhere = [i for i in items if i.start < end and i.end > begin and _movable(i) and not meant(i) and
                 sector_of(i.address) != sector_of(work)]
    away = sum((min(i.end, end) - max(i.start, begin) for i in elsewhere), timedelta(0))
    if away <= AWAY_FROM_WORK:
        return planned, timedelta(0)
    moving, kept = {id(i) for i in elsewhere}, []
    for item in items:
        if id(item) not in moving:
            kept.append(item)
            continue
        edges = [item.start, max(item.start, begin), min(item.end, end), item.end]
        for (s, e), moved in zip(pairwise(edges), (False, True, False), strict=True):
            if e <= s:
                continue
            update = {"start": s, "duration_minutes": minutes(s, e), "subtasks": []}
            if moved:
                update |= {"activity": f"working at the {work.rsplit(':', 1)[-1]}", "emoji": "💼", "address": work}
            kept.append(item.model_copy(update=update))
    return kept, away


def meals_kept_short(items: Sequence[PlanItem], meant: Callable[[PlanItem], bool] = lambda item: False,
                     ) -> list[PlanItem]:
    """`items` with each meal longer than MEAL_LONGEST kept to that, the rest of its block free time at
    the same place (`_meal_break`): a model that stretches each outline item to the next planned
    "having lunch" from noon to 5 pm on a day off (blind34, the Ville: a host with a party to tell of
    that evening spent the afternoon so at home, and a meal is no time to go and find people). Blocks
    `meant` says the model meant (an event heard of at its hours) keep what was planned."""
    return [part for item in items
            for part in ([item] if meant(item) else _meal_break(item, item.start, item.end, MEAL_LONGEST))]


def work_window(hours: tuple[time, time], day: datetime) -> tuple[datetime, datetime]:
    """Working `hours` as the stretch that begins on `day`'s date (ending the next day when they
    pass midnight)."""
    begin = datetime.combine(day.date(), hours[0], tzinfo=day.tzinfo)
    end = datetime.combine(day.date(), hours[1], tzinfo=day.tzinfo)
    return begin, end + (timedelta(days=1) if end <= begin else timedelta(0))


def at_work(item: PlanItem, hours: tuple[time, time]) -> bool:
    """Whether a block overlaps working `hours` on any day it touches (a night's hours begun the day
    before too)."""
    days = range(-1, (item.end.date() - item.start.date()).days + 1)
    return any(item.start < end and begin < item.end
               for begin, end in (work_window(hours, item.start + timedelta(days=d)) for d in days))


def _movable(item: PlanItem) -> bool:
    return not (item.one_off or is_sleep(item.activity) or MEAL.search(item.activity))


def _meal_break(item: PlanItem, begin: datetime, end: datetime, keep: timedelta = MEAL_AT_WORK) -> list[PlanItem]:
    """A meal that runs on into the hours from `begin` to `end` (the working hours) past `keep` of them,
    as the meal up to there and the rest of it as nothing in particular ("free time"), which
    `keep_at_work` may move and a teller may spend finding people (`gather.Seek.visit`)."""
    if item.one_off or not MEAL.search(item.activity) or item.end <= begin or item.start >= end:
        return [item]
    cut = max(item.start, begin) + keep
    if cut >= min(item.end, end):
        return [item]
    return [item.model_copy(update={"duration_minutes": minutes(item.start, cut), "subtasks": []}),
            item.model_copy(update={"start": cut, "duration_minutes": minutes(cut, item.end), "activity": "free time",
                                    "emoji": "", "subtasks": []})]
