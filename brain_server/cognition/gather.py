"""People with news seek others out (the paper's Isabella invites her cafe's customers and the
friends she meets): an NPC holding news it means to pass on (`attention.news_of`: its own event,
what it heard) is shown, when it plans its day or its next hours, where the people it has not
told yet will be today, and, when it notices someone it has not told, that it has news for them.

Where people will be is read from the world, never from a list of names (`whereabouts`). No LLM
call is added: what it finds is a few lines in prompts the NPC writes anyway.

Where a town spends its evenings at home, no public place holds anyone then: a teller with free
time and nowhere to find people calls on those it knows (named in who it is, or talked with) at
their homes while they are there and awake (`whereabouts.calls_by_hour`). A call is the one way into a home
that is not the NPC's own (`locate`'s access rule): laid by the plan, never chosen by the model;
finding the one it called on is a conversation, with no reaction asked (`calls.calling_on`).

A host's own event is a commitment (`own_events`): on its day it is laid into the host's plan at
its hour and place, as an accepted invitation is, whatever the model planned (a literal model
plans it at the wrong hour, or sleeps through it).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, tzinfo
import re

from brain_server.cognition.attention import gist
from brain_server.cognition.gist import room_told
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.news import held_at_hours, held_news, holds_it, known_places, naming
from brain_server.cognition.news_said import about, untold_line
from brain_server.cognition.offline.awake import awake_window
from brain_server.cognition.offline.happens import event_named, what_clause
from brain_server.cognition.offline.heard import unrelayed, what_there_is, whole_name
from brain_server.cognition.offline.lifestyle import stated_work_hours
from brain_server.cognition.offline.routine import MEAL
from brain_server.cognition.offline.said_clock import EVENT_HOURS, clock_times, more_than_when, named_days
from brain_server.cognition.offline.wording import clipped
from brain_server.cognition.offline.workday import at_work
from brain_server.cognition.places_said import named_place
from brain_server.cognition.whereabouts import Gathering, Where, calls_by_hour, gatherings, outside, untold_by_hour
from brain_server.model.memory import MemoryKind, MemoryNode, held_as_own, unstamped
from brain_server.model.npc import NpcState, Persona, PlanItem, is_sleep
from brain_server.model.world import sector_of
from brain_server.persistence.records import Records
from brain_server.prompts.daily_plan import ACTIVITY_CHARS

VISITS, VISIT, SHORTEST_VISIT = 4, timedelta(hours=1), timedelta(minutes=30)  # free hours a teller spends with people
TOWN_READ = 200  # residents read to find them: a city's gathering places show in a sample of it

CALLING = "calling on "  # how a call a plan lays (`Seek.visit`) begins (`calls.called` reads it)

@dataclass(frozen=True)
class Heard:
    """An event the NPC heard of (a thought stating a clock time) and the place it names."""

    news: MemoryNode
    place: str
    room: bool  # whether it names the place's room, not only its building


@dataclass(frozen=True)
class Seek:
    """What a teller is shown when it plans (`lines`, "" without news) and where people will be
    (`found`, the prompt's summary; `where`, hour by hour, what its visits are laid from)."""

    lines: str = ""
    found: tuple[Gathering, ...] = ()
    own: tuple[PlanItem, ...] = ()  # the NPC's own events of the day (`own_events`), kept whatever was planned
    later: tuple[MemoryNode, ...] = ()  # its own events of other days (`not_today`)
    where: Where = field(default_factory=dict)
    calls: Where = field(default_factory=dict)  # homes of those it knows and has not told, while they are in
    names: dict[str, str] = field(default_factory=dict)  # the names of those in `calls`, by id
    work: tuple[time, time] | None = None  # the working hours its lifestyle states, if it states them
    events: tuple[Heard, ...] = ()  # others' events it heard of (`heard_events`)
    host: bool = False  # its news is its own event still ahead: every free hour is spent telling (`visit`)

    def visit(self, plan: Sequence[PlanItem], home: str, now: datetime) -> list[PlanItem]:
        """The day plan with the NPC's own events laid in at their hours and places (a block holding one
        of another day at its hours, `held_at_hours`, is free time at home), then up to
        VISITS hours of its free time (`free`; not asleep, not a meal) spent, each, where most of
        those it has not met yet on an earlier visit will be in that hour (at least SHORTEST_VISIT,
        one-off), else, with nobody to find out and about, calling on those it knows at their home:
        a model that plans its day as always, whatever the prompt says, still sends a teller out,
        and to a different person each time where it can. A host (`host`) spends every free hour so
        while someone it has not met can be found, as the paper's Isabella spends her day inviting:
        Brinnick's host (the hard stand-in, three seeds of ten) made her four visits by 14:00 the day
        before her auction, spent the eight hours after at home, and 1-2 came."""
        plan = lay([_freed(i, home) if any(held_at_hours(i, n) for n in self.later) else self._at_event(i)
                    for i in plan], self.own)
        visits: list[PlanItem] = []
        met: set[str] = set()
        for item in plan:
            if item.end <= now or not self.free(item, home) or is_sleep(item.activity) or MEAL.search(item.activity):
                continue
            start = max(item.start, now.replace(second=0, microsecond=0))
            while (self.host or len(visits) < VISITS) and item.end - start >= SHORTEST_VISIT:
                hour = start.replace(minute=0)
                end = min(item.end, hour + VISIT)
                if end - start >= SHORTEST_VISIT and (found := _most_new(self.where, hour, met) or
                                                      _most_new(self.calls, hour, met)):
                    place, ids = found
                    met |= ids
                    visits.append(PlanItem(start=start, duration_minutes=(end - start) // timedelta(minutes=1),
                                           activity=self._visiting(place, ids), emoji="🗣️", address=place,
                                           one_off=True))
                start = end
        return lay(plan, visits)

    def holds_event(self, item: PlanItem) -> bool:
        """Whether a block (not a one-off) holds an event the NPC heard of, at its hours
        (`held_at_hours`): the model chose to go, and a working day does not take it back (the hard
        stand-in in Cauldwell, seed 5 out of view: a barmaid who planned the dyeing at 15:00 was
        kept at the taproom by `workday.keep_at_work`, with her morning's errands, and nobody came)."""
        return bool(self._told_at(item))

    def _told_at(self, item: PlanItem) -> list[Heard]:
        """The events heard of that a block (not a one-off) holds at their hours."""
        return [] if item.one_off else [h for h in self.events if held_at_hours(item, h.news)]

    def _at_event(self, item: PlanItem) -> PlanItem:
        """A block (not a one-off) that holds an event the NPC heard of, at its hours, is going to it
        (`as_guest`); at a place none
        of that news names, goes where most of it names (blind15 planned Tarnbeck's evening at home
        and in a farm kitchen); of equals, a place whose room is named, then the first heard. A place
        any telling names is kept: retellings can name a wrong one (blind15's put the Ville's party
        "at the Johnson Park"), and one of them does not outvote the rest."""
        told = self._told_at(item)
        if not told:
            return item
        item = as_guest(item, told)
        if any(h.place == item.address or (not h.room and sector_of(h.place) == sector_of(item.address)) for h in told):
            return item
        by_place: dict[str, list[Heard]] = {}
        for h in told:
            by_place.setdefault(h.place, []).append(h)
        best = max(by_place, key=lambda p: (len(by_place[p]), any(h.room for h in by_place[p]),
                                            -min(h.news.created for h in by_place[p]).timestamp()))
        return item.model_copy(update={"address": best, "subtasks": []})

    def free(self, item: PlanItem, home: str) -> bool:
        """Whether a block is time a teller may spend with people: at home, or, when its lifestyle
        states its working hours, away from home out of them (not an event, not a visit): Korrin's
        signalman, who works nights, spent his afternoon alone in the depot's mess room and met two
        people the day before his lesson (the hard stand-in; a model plans such a block anywhere)."""
        if sector_of(item.address) == sector_of(home):
            return True
        return self.work is not None and not item.one_off and not at_work(item, self.work)

    def replanned(self, window: Sequence[PlanItem], home: str, now: datetime) -> list[PlanItem]:
        """A re-plan's window with its free time at home spent as `visit` spends the day's, and the
        NPC's own events: by a re-plan the others have made their plans, so the visits go where
        those plans put people, not where their usual days would (a day plan made at waking reads
        only usual days: the model kept Korrin's signalman home while his usual day had him out)."""
        return [*self.visit(window, home, now), *self.own] if window else []

    def _visiting(self, place: str, ids: Collection[str]) -> str:
        if place in self.calls:
            return CALLING + " and ".join(sorted(self.names.get(i, i) for i in ids))
        return f"seeing people at the {place.rsplit(':', 1)[-1]}"


def _most_new(where: Where, hour: datetime, met: Collection[str]) -> tuple[str, set[str]] | None:
    """The place with the most people not `met` in `hour` (the first by name of equals), and them."""
    new = {a: ids for a, hours in sorted(where.items()) if (ids := hours.get(hour, set()) - set(met))}
    return max(new.items(), key=lambda i: len(i[1]), default=None)


def lay(plan: Sequence[PlanItem], items: Iterable[PlanItem]) -> list[PlanItem]:
    """The plan with `items` laid over it (the blocks they overlap trimmed or split)."""
    laid = NpcState(npc_id="", world_name="", persona=Persona(name=""), plan=list(plan))
    for item in items:
        laid.insert_plan_item(item)
    return laid.plan


def own_events(name: str, thoughts: Iterable[MemoryNode], day: date, places: Sequence[str],
               tz: tzinfo | None) -> list[PlanItem]:
    """The NPC's own events on `day` as plan items (one-off): each thought it holds as its own
    (`OWN`: "Ilsa Merrow wants to hold a shortwave evening in the loft of Tarnbeck Mill on April 16
    from 7 pm to 9 pm") that names `day` (read from the day it was thought), a clock time and one
    of `places`: at its first time, until its second (else EVENT_HOURS), at the place named (its
    room, when the room is named too). What was heard is not the NPC's own: hearsay is no promise."""
    events: dict[datetime, PlanItem] = {}
    for node in thoughts:
        text = node.description
        if not held_as_own(name, node) or day not in named_days(text, node.created.date()):
            continue
        clocks = clock_times(text)
        where = named_place(places, text)
        if not clocks or not where:
            continue
        start = datetime.combine(day, time(*clocks[0]), tzinfo=tz)
        end = datetime.combine(day, time(*clocks[1]), tzinfo=tz) if len(clocks) > 1 else start
        minutes = (end - start) // timedelta(minutes=1) if end > start else EVENT_HOURS * 60
        events.setdefault(start, PlanItem(start=start, duration_minutes=minutes, activity=hosted_activity(name, text),
                                          emoji="🎉", address=where, one_off=True))
    return [events[s] for s in sorted(events)]


def own_event_held(name: str, thoughts: Iterable[MemoryNode], item: PlanItem, places: Sequence[str]) -> PlanItem | None:
    """The NPC's own event that a plan item holds at its hours (`held_at_hours`), as its host's plan
    item (`own_events`), else None: blind22's memo booked Isabella's own party "guessing what - I
    wants to throw a Valentine's Day party" (first person, no name before the event), which read as
    a guest's "going to a Valentine's Day party" in every later prompt and action of hers."""
    for node in thoughts:
        if held_as_own(name, node) and held_at_hours(item, node):
            return next(iter(own_events(name, [node], item.start.date(), places, item.start.tzinfo)), None)
    return None


def own_later(name: str, thoughts: Iterable[MemoryNode], now: datetime, places: Sequence[str]) -> list[PlanItem]:
    """The NPC's own events of the days after today as plan items (`own_events` on each later day
    its thoughts name): what a conversation's schedule shows beside its promises."""
    later = {d for n in not_today(name, thoughts, now.date()) for d in named_days(n.description, n.created.date())
             if d > now.date()}
    return [i for d in sorted(later) for i in own_events(name, thoughts, d, places, now.tzinfo)]


def not_today(name: str, thoughts: Iterable[MemoryNode], day: date) -> tuple[MemoryNode, ...]:
    """The NPC's own events (thoughts held as its own, as `own_events` reads them) that name a day
    and not `day`."""
    return tuple(n for n in thoughts if held_as_own(name, n) and (days := named_days(n.description, n.created.date()))
                 and day not in days)


def _freed(item: PlanItem, home: str) -> PlanItem:
    return item.model_copy(update={"activity": "free time", "address": home, "emoji": "", "subtasks": []})


def hosted_activity(name: str, text: str) -> str:
    """A host's plan item for its event, as its label and memories say it: "Teodor Marek wants to
    teach a Morse code lesson in the mess room ... on January 21 from 3 pm to 5 pm" is "hosting a
    Morse code lesson" (the thing done, without the intent, place and time said elsewhere); text
    not said so is "hosting: " and what it says happens, without the clauses after it that say
    only when (`what_clause`: "On Saturday April 11, between 10 in the morning and noon, the Workshop
    is open to anybody ...: Tomas Reyes has it in mind ..." is "hosting: the Workshop is open to
    anybody ..."), unless that begins with the event (`event_in`: "Tomorrow, ..., there will be indigo
    dyeing in the drying shed ..." is "hosting indigo dyeing", not "hosting: there will be ...") or with
    its name ("A flotsam auction in the boat hall ..." is "hosting a flotsam auction": `event_named`); a
    clause said of what came before it (`_ASIDE`) is left out, and what there is goes before where
    it is (`what_there_is`: "hosting: engravings of giraffes under the overhang at Kef Rock")."""
    said = text.removeprefix(name).strip()
    if named := event_named(said):
        return clipped(f"hosting {named}", ACTIVITY_CHARS)
    clauses = [c for i, c in enumerate(what_clause(said).split(",")) if not (i and _ASIDE.match(c))]
    while len(clauses) > 1 and not more_than_when(clauses[-1]):
        clauses.pop()
    return clipped(f"hosting: {what_there_is(','.join(clauses).strip()).rstrip('.')}", ACTIVITY_CHARS)


# A clause said of what came before it ("Under the overhang at Kef Rock, where last week's sandstorm
# scoured away the drift, there are ..."): not what is held, and a label that kept it was cut short.
_ASIDE = re.compile(r"\s*(?:where|which|who|whom|whose)\b", re.IGNORECASE)


# The host's part at an event as a plan says it ("hosting", "teaching a Morse code lesson"): in the
# plan of one who only heard of the event, it was copied from the news.
_HOST_PART = re.compile(r"(?:host|hold|throw|giv|run|lead|teach|organi[sz]|put\w*\s+on|get\w*\s+up)\w*\b", re.I)
# a line of the talk, not a doing: blind25's memos booked the host's invitation as a guest's activity
_SPOKEN = re.compile(r"\b(?:I|I'm|I've|I'll|I'd|[Yy]ou|[Yy]our)\b|[!?]")


def as_guest(item: PlanItem, heard: Iterable[Heard]) -> PlanItem:
    """A plan item at the hours of an event the NPC heard of (`held_at_hours`) whose activity says the
    host's part, as going to the event: blind22 booked Korrin's guests "teaching a Morse code lesson
    in the mess room ...", copied from the news, and 15% of their actions at the lesson showed them
    teaching it (the Ville: "throwing a Valentine's Day party"), or that is a line of the talk
    (blind25, the Ville: "Morning, Maria! Guess what - I want to throw a Valentine's Day party ...",
    shown as what the guest was doing)."""
    if not (_HOST_PART.match(item.activity) or _SPOKEN.search(item.activity)):
        return item
    for h in heard:
        said = unrelayed(unstamped(gist(h.news)))
        if held_at_hours(item, h.news) and (named := event_named(said, anywhere=True)):
            return item.model_copy(update={"activity": clipped(f"going to {named}", ACTIVITY_CHARS)})
    return item


async def told_since(npc: NpcState, news: MemoryNode, stream: MemoryStream, names: Mapping[str, str]) -> set[str]:
    """The ids of those the NPC told its news since it came to it: talked with, in a conversation
    it remembers as naming the news (`mentions`); a chat about the weather told nothing, so a
    co-worker beside a teller all day is still one to tell after their first chat. `names`: the
    people's names by id. One it talked with but keeps no memory of the talk counts as told, and
    one whose event it is knows it (the hard stand-in and blind10's writer saw hosts told their
    own event, and a call spent on it)."""
    theirs = {o for o, name in names.items() if holds_it(name, unstamped(gist(news)))}
    talked = {other for other, when in npc.last_chat.items() if when >= news.created} - theirs
    if not talked:
        return theirs
    chats = [c for c in await stream.latest_chats(npc.npc_id) if c.created >= news.created]
    with_them = {o: [c for c in chats if _with(c, names.get(o, o))] for o in talked}
    named = naming(news, known_places(npc))
    return theirs | {o for o, said in with_them.items() if not said or any(named(c.description) for c in said)}


def _with(chat: MemoryNode, name: str) -> bool:
    """Whether a conversation memory is one with `name` (its partner, or one of a group's)."""
    return bool(name) and (name == chat.object or whole_name(chat.description.split("\n", 1)[0], name))


def seek_lines(name: str, news: MemoryNode, found: Sequence[Gathering], now: datetime, places: Sequence[str] = (),
               chats: Sequence[MemoryNode] = (), plan: Sequence[PlanItem] = ()) -> str:
    """The paragraph a plan prompt shows a teller ("" when nobody is left to find); `chats`: its
    newest conversations, where the room its news leaves out may be said, and `plan` its plan items,
    where the day may be (`news_said.when`)."""
    if not found:
        return ""
    where = "\n".join(f"- {g.address}: {g.people} {'person' if g.people == 1 else 'people'}, "
                      f"{g.start:%H:%M}-{g.end:%H:%M}" for g in found)
    return (f"\n\n{name} has news to pass on{about(name, news, gist(news), now, places, chats, plan)}. Where people {name} has not told yet "
            f"will be today, by their usual days:\n{where}\nTo tell them, {name} can spend free time where they are.")


async def seeking(npc: NpcState, now: datetime, stream: MemoryStream, records: Records, places: Sequence[str]) -> Seek:
    """For a plan: the NPC's own events still to come today, its news and where to find those it
    has not told (none of the town is read when it holds no news)."""
    mine = await stream.latest_thoughts(npc.npc_id)
    own = tuple(i for i in own_events(npc.persona.name, mine, now.date(), places, now.tzinfo) if i.end > now)
    news = await held_news(npc.npc_id, now, stream, mine)
    later = not_today(npc.persona.name, mine, now.date())
    chats = await stream.latest_chats(npc.npc_id)
    events = heard_events(npc.persona.name, mine, places, chats)
    if news is None:
        return Seek(own=own, later=later, events=events)
    people = await records.people(npc.world_name)
    town = [o for i in sorted(people.values())[:TOWN_READ] if (o := await records.npc_or_none(i)) is not None]
    names = {o.npc_id: o.persona.name for o in town}
    told, busy = await told_since(npc, news, stream, names), [*((i.start, i.end) for i in own), *asleep(npc, now)]
    where = outside(untold_by_hour(npc, town, now, places, told=told), busy)
    found = gatherings(npc, town, now, places, where=where)
    return Seek(seek_lines(npc.persona.name, news, found, now, places, chats, [*npc.plan, *npc.commitments]),
                tuple(found), own, later, where,
                outside(calls_by_hour(npc, town, now, told=told), busy), names, stated_work_hours(npc.persona.lifestyle),
                events, held_as_own(npc.persona.name, news))


def asleep(npc: NpcState, now: datetime) -> list[tuple[datetime, datetime]]:
    """The spans of `now`'s day the NPC's lifestyle has it asleep (between yesterday's and today's
    waking windows, `awake_window`): nobody to seek out then. blind33's writer saw a resident who
    wakes at 10 am shown "Engine Depot:engine shed: 1 person, 01:00-04:00" to tell his news at, and a
    literal planner booked "seeing people" at 1 am."""
    day = now.date()
    start = datetime.combine(day, time(), tzinfo=now.tzinfo)
    awake = sorted(w for d in (day - timedelta(days=1), day) if (w := awake_window(npc.persona.lifestyle, d, now.tzinfo)))
    if not awake:
        return []
    spans, at = [], start
    for up, down in awake:
        if up > at:
            spans.append((at, min(up, start + timedelta(days=1))))
        at = max(at, down)
    return [*spans, (at, start + timedelta(days=1))] if at < start + timedelta(days=1) else spans


def heard_events(name: str, thoughts: Iterable[MemoryNode], places: Sequence[str],
                 chats: Sequence[MemoryNode] = ()) -> tuple[Heard, ...]:
    """Others' events among the NPC's thoughts that state a clock time, each with the place it names
    (what was heard, a memo of a conversation; not the NPC's own events, `own_events`), its room
    the one its conversations (`chats`, newest first) named where the thought names only the
    building (`room_told`)."""
    return tuple(Heard(n, *told) for n in thoughts
                 if n.kind is MemoryKind.THOUGHT and not held_as_own(name, n)
                 and clock_times(n.description) and (told := room_told(n, chats, places))[0])


async def untold(npc: NpcState, other: NpcState, now: datetime, stream: MemoryStream) -> MemoryNode | None:
    """The news the NPC holds and has not had the chance to tell `other`, if any."""
    news = await held_news(npc.npc_id, now, stream)
    if news is None or other.npc_id in await told_since(npc, news, stream, {other.npc_id: other.persona.name}):
        return None
    return news


async def news_for(npc: NpcState, other: NpcState, now: datetime, stream: MemoryStream) -> str:
    """For a reaction to `other`: `untold` news as a prompt sentence ("" if none)."""
    return untold_line(npc, other, await untold(npc, other, now, stream), now)

