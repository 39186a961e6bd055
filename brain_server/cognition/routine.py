"""What an NPC does while its plan for now is still being thought out: a provisional action,
chosen in code in microseconds, so the game never waits for a model.

It is grounded in what the NPC already has: yesterday's plan at this hour if there was one
(people keep routines), else the shape of a day drawn from the persona: asleep in bed at night
(the wake-up and bed times its lifestyle states, if it states them), getting ready at home after
waking, at its workplace (the known place its identity names) during working hours on weekdays,
meals and evenings at home.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, time, timedelta
import re

from brain_server.npc import Action, NpcState, PlanItem
from brain_server.world import arena_of

DEFAULT_WAKE, DEFAULT_BED = time(7), time(23)
WORK_HOURS = (time(9), time(17))
MEALS = ((time(12), time(13), "having lunch", "🥪"), (time(18), time(19), "having dinner", "🍲"))
_CLOCK = r"(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?"
_WAKE = re.compile(r"\b(?:wakes?|waking|gets? up|getting up|rises?)\b[^.;]{0,30}?\b" + _CLOCK, re.IGNORECASE)
_BED = re.compile(r"\b(?:bed|sleep|sleeps|asleep)\b[^.;]{0,30}?\b" + _CLOCK, re.IGNORECASE)
_WORD = re.compile(r"[a-z]{3,}")
_COMMON = {"the", "and", "for", "with", "her", "his", "their", "she", "who", "has", "that", "this", "from", "room",
           "house", "home", "area"}


def provisional_action(npc: NpcState, now: datetime, objects: Mapping[str, Sequence[str]]) -> Action:
    """The NPC's action until its plan covers `now`; `objects` names the objects of each arena."""
    routine = _yesterday_at(npc.plan, now)
    if routine is not None:
        activity, emoji, address = routine.activity, routine.emoji, routine.address
        until = routine.end + (now.date() - routine.start.date())
    else:
        activity, emoji, address, until = _persona_hour(npc, now, objects)
    name = npc.persona.name
    minutes = max(5, min(60, int((until - now).total_seconds() // 60)))
    return Action(description=f"{name} is {activity}", emoji=emoji, address=address, start_time=now,
                  duration_minutes=minutes, event=(name, "is", activity), source="provisional")


def wake_and_bed(lifestyle: str) -> tuple[time, time]:
    """The wake-up and bed times a lifestyle states ("wakes up around 6 am, goes to bed at 11 pm")."""
    return _clock(_WAKE, lifestyle, DEFAULT_WAKE, evening=False), _clock(_BED, lifestyle, DEFAULT_BED, evening=True)


def workplace(npc: NpcState) -> str | None:
    """The known place outside home whose name the persona's identity and lifestyle mention most."""
    words = set(_WORD.findall(f"{npc.persona.identity} {npc.persona.lifestyle} {npc.persona.currently}".lower()))
    home_sector = arena_of(npc.persona.home).rsplit(":", 1)[0] if npc.persona.home else ""
    best, best_score = None, 0
    for address in npc.known_addresses:
        if home_sector and address.startswith(home_sector + ":"):
            continue
        place = address.split(":", 1)[-1].lower()
        score = len((set(_WORD.findall(place)) - _COMMON) & words)
        if score > best_score:
            best, best_score = address, score
    return best


def _yesterday_at(plan: Sequence[PlanItem], now: datetime) -> PlanItem | None:
    """The block of the last planned day that covered this time of day."""
    if not plan:
        return None
    shift = now.date() - plan[0].start.date()
    if shift.days <= 0:
        return None
    return next((i for i in plan if i.start + shift <= now < i.end + shift), None)


def _persona_hour(npc: NpcState, now: datetime, objects: Mapping[str, Sequence[str]]) -> tuple[str, str, str, datetime]:
    wake, bed = wake_and_bed(npc.persona.lifestyle)
    if npc.wake_up_hour is not None:
        wake = time(npc.wake_up_hour)
    home = npc.persona.home
    clock = now.time()

    def at(moment: time) -> datetime:
        when = datetime.combine(now.date(), moment, tzinfo=now.tzinfo)
        return when if when > now else when + timedelta(days=1)

    asleep = not (wake <= clock < bed) if wake < bed else bed <= clock < wake
    if asleep:
        return "sleeping", "😴", _object(home, objects, "bed"), at(wake)
    ready_until = (datetime.combine(now.date(), wake) + timedelta(hours=1)).time()
    if clock < ready_until:
        return "getting ready for the day", "🪥", home, at(ready_until)
    for start, end, activity, emoji in MEALS:
        if start <= clock < end:
            return activity, emoji, home, at(end)
    work = workplace(npc)
    if work and now.weekday() < 5 and WORK_HOURS[0] <= clock < WORK_HOURS[1]:
        until = MEALS[0][0] if clock < MEALS[0][0] else WORK_HOURS[1]
        return f"working at the {work.split(':')[-1]}", "💼", work, at(until)
    following = [m[0] for m in MEALS if m[0] > clock] + [bed]
    return "spending time at home", "🏠", home, at(min(following, key=lambda t: at(t)))


def _object(arena: str, objects: Mapping[str, Sequence[str]], word: str) -> str:
    """The arena's object whose name has `word` (its bed), else the arena."""
    found = next((o for o in objects.get(arena_of(arena), []) if word in o.lower()), None)
    return f"{arena_of(arena)}:{found}" if found else arena


def _clock(pattern: re.Pattern[str], text: str, default: time, *, evening: bool) -> time:
    match = pattern.search(text)
    if not match:
        return default
    hour, minute, half = int(match.group(1)), int(match.group(2) or 0), (match.group(3) or "").lower()
    if half.startswith("p") and hour < 12:
        hour += 12
    elif half.startswith("a") and hour == 12:
        hour = 0
    elif not half and evening and hour < 12 and hour >= 5:
        hour += 12  # "goes to bed at 11" means the evening
    return time(hour % 24, min(minute, 59))
