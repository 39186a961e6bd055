"""The shape of an NPC's day, drawn from its persona in code (microseconds, no model): asleep in
bed at night (the wake-up and bed times its lifestyle states), getting ready and breakfast at home
after waking (meals in its home's kitchen if it knows one), at its workplace (`workplace`: the one
the game declares, else the known place its identity says it works at) during working hours on its
working days (the hours and days its lifestyle states, `lifestyle.py`), lunch there, and on other days out for two hours at a public
place it knows (one its identity mentions, another each day; in the morning if it says so there, "walks in the park after
breakfast", else the afternoon); meals and evenings at home.

Two things use it, so a day has one shape whichever is shown: the provisional action while the
plan for now is being thought out (`provisional_action`; yesterday's plan at this hour comes first
when there is one, as people keep routines, unless that block was a one-off), and the day plan
when the model cannot write one (`plan.fallback_plan`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta, tzinfo
import functools
import re

from brain_server.cognition.offline.lifestyle import (
    SPAN,
    is_working_stretch,
    states_wake,
    stretch,
    wake_and_bed,
    work_hours,
    working_days,
)
from brain_server.model.npc import Action, NpcState, Persona, PlanItem, is_sleep
from brain_server.model.world import arena_of, sector_of

OUTING, MORNING_OUTING = (time(14), time(16)), (time(9), time(11))
GETTING_READY, BREAKFAST = timedelta(minutes=45), timedelta(minutes=30)
MEAL = re.compile(r"\b(breakfast|brunch|lunch|dinner|supper)\b", re.IGNORECASE)  # a block that is a meal
MEALS = ((time(12), time(13), "having lunch", "🥪"), (time(18), time(19), "having dinner", "🍲"))
SLEEP = ("sleeping", "😴")
_MEALS_ROOM = re.compile(r"kitchen|dining", re.IGNORECASE)
_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?|[.;!?]")
# Words before a place that say the NPC works there ("runs Hobbs Cafe", "a student at the college")...
_WORK_CUE = re.compile(r"(work\w*|jobs?|runs|owns?|manag\w+|teach\w*|professor|lectur\w+|students?|stud(?:y|ies)|"
                       r"tutors?|shifts?|technician|pharmacist|clerk|keeps|sells|serves|opens|practice|employ\w*|"
                       r"volunteers?)")
# ... unless these come between ("retired from teaching at the college").
_NOT_WORK = {"retired", "former", "formerly", "used"}
_CUE_WINDOW = 10  # words
_COMMON = {"the", "and", "for", "with", "her", "his", "their", "she", "who", "has", "that", "this", "from", "room",
           "house", "home", "area"}


@dataclass(frozen=True)
class Block:
    """An hour-level stretch of the day: what, where, from when until when."""

    start: datetime
    end: datetime
    activity: str
    emoji: str
    address: str


def provisional_action(npc: NpcState, now: datetime, objects: Mapping[str, Sequence[str]]) -> Action:
    """The NPC's action until its plan covers `now`; `objects` names the objects of each arena."""
    routine = _yesterday_at(npc.plan, now)
    if routine is not None:
        activity, emoji, address = routine.activity, routine.emoji, routine.address
        until = routine.end + (now.date() - routine.start.date())
    else:
        # Today's shape, or yesterday's if it has not ended (before waking up, or awake past midnight).
        blocks = [*day_shape(npc, now.date() - timedelta(days=1), now.tzinfo), *day_shape(npc, now.date(), now.tzinfo)]
        block = next((b for b in blocks if b.start <= now < b.end), None) or blocks[-1]
        activity, emoji, until = block.activity, block.emoji, block.end
        address = _object(block.address, objects, "bed") if is_sleep(activity) else block.address
    name = npc.persona.name
    minutes = max(5, min(60, int((until - now).total_seconds() // 60)))
    return Action(description=f"{name} is {activity}", emoji=emoji, address=address, start_time=now,
                  duration_minutes=minutes, event=(name, "is", activity), source="provisional")


def day_shape(npc: NpcState, day: date, tz: tzinfo | None, places: Sequence[str] | None = None) -> list[Block]:
    """The persona's day (module docstring) from waking up on `day` to waking up the next day, as
    blocks without gaps, the last one sleep at home. `places`: the arenas it may go to (default:
    all it knows). Remembered per persona, places and day: a provisional action asks on every Decide."""
    persona = npc.persona
    return list(_shape(_places_of(npc, places), persona.lifestyle, persona.home, npc.wake_up_hour, day, tz))


def read_places(npc: NpcState) -> None:
    """Read the persona's places now (SpawnNpc) rather than on its first Decide: a town that starts
    together asks for its first actions together, and the reading is most of a first Decide."""
    _places_of(npc, None)


@dataclass(frozen=True)
class _Places:
    """The places of its day the persona's text names, among those it may go to."""

    kitchen: str | None
    work: str | None
    hours: tuple[time, time] | None  # the stretch the lifestyle states at the workplace, if it names one
    outings: tuple[str, ...]
    mornings: frozenset[str]  # the outings it names in the morning ("walks in the park after breakfast")


def _places_of(npc: NpcState, places: Sequence[str] | None) -> _Places:
    persona = npc.persona
    return _read_places(persona.name, persona.identity, persona.lifestyle, persona.currently, persona.home,
                        persona.workplace, tuple(npc.known_addresses if places is None else places))


# Both caches hold a whole town (NPC_BRAIN_NPC_CACHE's 10,000 NPCs, two days each): smaller, a
# town that outgrows them reads each persona again on every provisional Decide (measured at 10,000
# NPCs with 4,096 entries: a third of the brain's CPU, in the transports' thread).
PERSONAS_KEPT = 16_384


@functools.lru_cache(maxsize=PERSONAS_KEPT)
def _read_places(name: str, identity: str, lifestyle: str, currently: str, home: str, workplace: str,
                 addresses: tuple[str, ...]) -> _Places:
    npc = NpcState(npc_id="", world_name="", persona=Persona(name=name, identity=identity, lifestyle=lifestyle,
                                                             currently=currently, home=home, workplace=workplace),
                   known_addresses=list(addresses))
    work, hours = _work_and_hours(npc, None)
    outings = tuple(_outings(npc, None, work))
    mornings = _mentions(npc, outings, near=_in_the_morning)
    return _Places(_kitchen(npc, None), work, hours, outings, frozenset(p for p, n in mornings.items() if n))


@functools.lru_cache(maxsize=2 * PERSONAS_KEPT)
def _shape(where: _Places, lifestyle: str, home: str, wake_up_hour: int | None, day: date,
           tz: tzinfo | None) -> tuple[Block, ...]:
    kitchen = where.kitchen or home
    wake, bed = wake_and_bed(lifestyle)
    working = where.work is not None and day.weekday() < working_days(lifestyle)
    opens, closes = where.hours or work_hours(lifestyle)
    if wake_up_hour is not None and wake_up_hour != wake.hour:
        wake = time(wake_up_hour)  # the hour its last plan woke it up
    elif working and not states_wake(lifestyle):  # up in time for work ("works from 6 am"), unless it says when
        ready_by = datetime.combine(day, opens) - GETTING_READY - BREAKFAST
        if ready_by.date() == day and ready_by.time() < wake:
            wake = ready_by.time()
    start = datetime.combine(day, wake, tzinfo=tz)
    bedtime = _after(start, bed, minimum=timedelta(hours=4))
    ready, breakfast = start + GETTING_READY, start + GETTING_READY + BREAKFAST
    blocks = [Block(breakfast, bedtime, "", "🏠", home)]  # at home unless painted over
    work, at_work = where.work, None
    if working and work is not None:
        begin = datetime.combine(day, opens, tzinfo=tz)
        end = _after(begin, closes)
        if end <= start:  # a night shift: tonight's
            begin, end = begin + timedelta(days=1), end + timedelta(days=1)
        at_work = Block(max(begin, breakfast), min(end, bedtime - timedelta(minutes=30)),
                        f"working at the {_name(work)}", "💼", work)
        if at_work.end - at_work.start >= timedelta(hours=1):
            blocks = _paint(blocks, at_work)
    else:
        outings = where.outings
        out = outings[day.toordinal() % len(outings)] if outings else None
        # In the morning if the persona says so where it names the place ("writes most mornings at the cafe").
        window = MORNING_OUTING if out in where.mornings else OUTING
        begin = max(_after(start, window[0]), breakfast)
        end = _after(begin, window[1])
        if out and end - begin >= timedelta(minutes=30) and end <= bedtime - timedelta(minutes=30):
            blocks = _paint(blocks, Block(begin, end, f"spending time at the {_name(out)}", "🚶", out))
    for meal_start, meal_end, activity, emoji in MEALS:
        begin = _after(start, meal_start)
        end = _after(begin, meal_end)
        if begin >= breakfast and end <= bedtime:
            during_work = at_work is not None and at_work.start <= begin < at_work.end
            place = at_work.address if during_work and at_work is not None else kitchen
            blocks = _paint(blocks, Block(begin, end, activity, emoji, place))
    return (Block(start, ready, "getting ready for the day", "🪥", home),
            Block(ready, breakfast, "having breakfast", "🍳", kitchen),
            *(replace(b, activity=b.activity or _at_home(b.start)) for b in blocks if b.end > b.start),
            Block(bedtime, start + timedelta(days=1), *SLEEP, home))


def workplace(npc: NpcState, places: Sequence[str] | None = None) -> str | None:
    """The arena the game says it works at (`Persona.workplace`). Else the place among `places`
    (default: those it knows) that the persona's text says it works at: named, or its kind of room
    named ("the library"), a few words after a word of work ("runs", "works", "student at") and not
    after "retired"; the most often named wins. Else the first place its lifestyle spends a working
    stretch at ("bakes at the Bakehouse from 5 am to 1 pm"). None if it names none: words miss a
    workplace they do not name (blind22's Korrin: "drives the snowplough from 8 pm to 4 am") or
    name a room of it the NPC does not work in."""
    return _work_and_hours(npc, places)[0]


def _work_and_hours(npc: NpcState, places: Sequence[str] | None) -> tuple[str | None, tuple[time, time] | None]:
    """The workplace (`workplace`) and the stretch the persona states there, if it states one."""
    stretches = _stretches(npc, places)
    if npc.persona.workplace:
        work: str | None = arena_of(npc.persona.workplace)
    elif any((scores := _mentions(npc, places, near=_works_at)).values()):
        home = sector_of(npc.persona.home)  # of equals, one at home ("works on the farm": the farm it lives on)
        work = max(scores, key=lambda p: (scores[p], sector_of(p) == home))
    else:
        work = next((place for place, _ in stretches), None)
    return work, next((hours for place, hours in stretches if work and sector_of(place) == sector_of(work)), None)


def _stretches(npc: NpcState, places: Sequence[str] | None) -> list[tuple[str, tuple[time, time]]]:
    """The places its lifestyle, then its identity, states a stretch of `lifestyle.WORKING_STRETCH` or more at
    ("works at the bakery from 6 am to 2 pm"), each clause's most named place with the stretch."""
    found = []
    for clause in re.split(r"[.;,]", f"{npc.persona.lifestyle}. {npc.persona.identity}"):
        if not (span := SPAN.search(clause)) or not is_working_stretch(hours := stretch(span)):
            continue
        said = npc.model_copy(update={"persona": npc.persona.model_copy(
            update={"identity": clause, "lifestyle": "", "currently": ""})})
        scores = _mentions(said, places)
        best = max(scores.values(), default=0)
        if best:
            found.append((next(p for p, score in scores.items() if score == best), hours))
    return found


def _outings(npc: NpcState, places: Sequence[str] | None, work: str | None) -> list[str]:
    """Public places it may go out to (not its home's sector nor its workplace's): those its persona
    names, else all."""
    mentioned = _mentions(npc, places)
    away = {sector_of(npc.persona.home), *([sector_of(work)] if work else [])}
    public = [p for p in mentioned if sector_of(p) not in away]
    return [p for p in public if mentioned[p]] or public


def _mentions(npc: NpcState, places: Sequence[str] | None, *,
              near: Callable[[Sequence[str], set[int], int], bool] | None = None) -> dict[str, int]:
    """How often the persona's identity, lifestyle and "currently" name each place (the sector's
    name counts twice, an arena's own name written as the world writes it twice, a word of the
    arena's twice, once within the sector's name; a capitalised arena word only as those names,
    so "Ryan Park" is no park); only where `near`
    says so of the words before, if given. The home arena is skipped."""
    persona = npc.persona
    tokens = _TOKEN.findall(f"{persona.identity}. {persona.lifestyle}. {persona.currently}")
    words = [t.lower().removesuffix("'s") for t in tokens]
    own = {w.lower() for w in _TOKEN.findall(persona.name)}
    # Capitalised words that are not this NPC's name nor a sentence's first: someone else, a place.
    others = {i for i, t in enumerate(tokens) if t[0].isupper() and words[i] not in own and i and words[i - 1] not in
              ".;!?"}
    home = arena_of(persona.home)
    at: dict[str, list[int]] = {}  # where each word is: a place's words are looked up, not every word scanned per place
    for i, w in enumerate(words):
        at.setdefault(w, []).append(i)
    scores: dict[str, int] = {}
    for address in dict.fromkeys(arena_of(a) for a in (npc.known_addresses if places is None else places)):
        if address == home or address.count(":") < 2:
            continue
        name, kinds, proper = _place_words(address)
        spans = [range(i, i + len(name)) for i in at.get(name[0], ()) if words[i:i + len(name)] == name] if name else []
        # The end of the sector's name after "the" ("the mill" of "Old Mill") if it says more than "house".
        tails = [range(i, i + k) for k in range(1, len(name)) if set(name[-k:]) - _COMMON - kinds
                 for i in at.get(name[-k], ()) if i and words[i - 1] == "the" and words[i:i + k] == name[-k:]
                 and tokens[i][0].islower() and not any(i in s for s in spans)]
        # An arena with a name of its own ("the Canteen", "Crane Cabin 07") counts where it is
        # written so, as its sector's name does.
        named = [range(i, i + len(proper)) for i in at.get(proper[0].lower().removesuffix("'s"), ())
                 if tokens[i:i + len(proper)] == proper] if proper and proper[0][0].isupper() else []
        # An arena's word within its sector's name counts less than named on its own: "the bakery in
        # the Market Hall" is the bakery, not the market.
        hits = [(s.start, 2) for s in [*spans, *named]] + [(s.start, 1) for s in tails] + [
            (i, 1 if any(i in s for s in spans) else 2) for w in kinds for i in at.get(w, ())
            if tokens[i][0].islower() or any(i in s for s in spans)]
        scores[address] = sum(weight for i, weight in hits if near is None or near(words, others, i))
    return scores


@functools.lru_cache(maxsize=PERSONAS_KEPT)
def _place_words(address: str) -> tuple[list[str], frozenset[str], list[str]]:
    """An arena address's sector name in words (without a leading "the"), its arena's telling words,
    and the arena's own name as written: read once per place, not for every persona read (shared
    by every caller: not to be changed; the lists stay lists, compared with slices of the persona's)."""
    _, sector, arena = address.split(":", 2)
    name = [w.lower().removesuffix("'s") for w in _TOKEN.findall(sector)]
    return (name[1:] if name[:1] == ["the"] else name, frozenset(w.lower() for w in _TOKEN.findall(arena)) - _COMMON,
            [t for t in _TOKEN.findall(arena) if t.lower() != "the"])


def _works_at(words: Sequence[str], others: set[int], i: int) -> bool:
    """Whether a word of work comes a few words before position i, in the same sentence, said of
    this NPC (no one else named before it: "married to Tom, who runs the store"), with no
    "retired" between."""
    cues = [j for j in _sentence_before(words, i) if _WORK_CUE.fullmatch(words[j])]
    return bool(cues) and not any(words[j] in _NOT_WORK or j in others for j in _sentence_before(words, cues[-1]))


def _in_the_morning(words: Sequence[str], others: set[int], i: int) -> bool:
    """Whether "morning" or "breakfast" comes a few words before or after position i, in its sentence."""
    after = []
    for j in range(i + 1, min(len(words), i + _CUE_WINDOW)):
        if words[j] in ".;!?":
            break
        after.append(words[j])
    return any(w in ("morning", "mornings", "breakfast") for w in [*(words[j] for j in _sentence_before(words, i)),
                                                                    *after])


def _sentence_before(words: Sequence[str], i: int) -> range:
    """Positions of the few words before position i, back to its sentence's start."""
    start = max(0, i - _CUE_WINDOW)
    return range(max([start, *(j + 1 for j in range(start, i) if words[j] in ".;!?")]), i)


def _kitchen(npc: NpcState, places: Sequence[str] | None) -> str | None:
    """The kitchen (or dining room) of the NPC's home, if it knows one."""
    return next((a for a in (npc.known_addresses if places is None else places)
                 if sector_of(a) == sector_of(npc.persona.home) and _MEALS_ROOM.search(_name(a))), None)


def _paint(blocks: Sequence[Block], new: Block) -> list[Block]:
    """`new` laid over the timeline: the blocks it covers are cut around it."""
    kept = []
    for b in blocks:
        if b.end <= new.start or b.start >= new.end:
            kept.append(b)
            continue
        if b.start < new.start:
            kept.append(replace(b, end=new.start))
        if b.end > new.end:
            kept.append(replace(b, start=new.end))
    return sorted([*kept, new], key=lambda b: b.start)


def _at_home(start: datetime) -> str:
    if start.hour < 12:
        return "spending the morning at home"
    return "spending the afternoon at home" if start.hour < 17 else "relaxing at home"


def _after(moment: datetime, clock: time, *, minimum: timedelta = timedelta(0)) -> datetime:
    """The first time it is `clock` after `moment` (plus `minimum`), or at it."""
    when = datetime.combine(moment.date(), clock, tzinfo=moment.tzinfo)
    while when < moment + minimum:
        when += timedelta(days=1)
    return when


def _name(address: str) -> str:
    return address.rsplit(":", 1)[-1]


def _yesterday_at(plan: Sequence[PlanItem], now: datetime) -> PlanItem | None:
    """The block of the last planned day that covered this time of day, unless it happened once
    (a party, a promise: not the routine, which the persona's day shape then stands for)."""
    if not plan:
        return None
    shift = now.date() - plan[0].start.date()
    if shift.days <= 0:
        return None
    block = next((i for i in plan if i.start + shift <= now < i.end + shift), None)
    return None if block is None or block.one_off else block


def _object(arena: str, objects: Mapping[str, Sequence[str]], word: str) -> str:
    """The arena's object whose name has `word` (its bed), else the arena."""
    found = next((o for o in objects.get(arena_of(arena), []) if word in o.lower()), None)
    return f"{arena_of(arena)}:{found}" if found else arena
