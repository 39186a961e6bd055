"""Where the others in a town will be today, hour by hour, for one who has news to pass on
(`gather.seeking`): each other resident's plan for the day, else the usual day its persona gives
(`routine.day_shape`, no model), counted per hour at the places the teller may enter outside its
own home (`untold_by_hour`, summed up as `gatherings`), or at the homes of those it knows and in
the rooms of those under its own roof, while they are in (`calls_by_hour`). Read from the world,
never from a list of names."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo
import re

from brain_server.cognition.offline.heard import whole_name
from brain_server.cognition.offline.routine import day_shape
from brain_server.model.npc import NpcState, is_sleep
from brain_server.model.world import arena_of, sector_of

SHOWN = 4  # gathering places a prompt lists
_HOUR, _DAY = timedelta(hours=1), timedelta(days=1)


@dataclass(frozen=True)
class Gathering:
    """A place where `people` others the teller has not told will be from `start` to `end`."""

    address: str
    start: datetime
    end: datetime
    people: int


Where = dict[str, dict[datetime, set[str]]]  # the ids of others not told, by place and hour


def untold_by_hour(teller: NpcState, town: Sequence[NpcState], now: datetime, places: Sequence[str],
                   *, told: Collection[str] = ()) -> Where:
    """Where others not `told` will be awake for the rest of `now`'s day, hour by hour, among
    `places` outside the teller's home sector (their plans, else their usual days)."""
    home = sector_of(teller.persona.home)
    allowed = {arena_of(p) for p in places if sector_of(p) != home}
    return _by_hour(teller, town, now, told, lambda other, arena: arena in allowed)


def calls_by_hour(teller: NpcState, town: Sequence[NpcState], now: datetime, *, told: Collection[str] = ()) -> Where:
    """Where those the teller knows (`knows`) and has not `told` will be at their own homes and
    awake for the rest of `now`'s day, hour by hour; and those under its own roof with a room of
    their own (a boarding house's lodgers, a dormitory's students), in that room. Only those in the
    same room see each other, so nobody meets them there by chance: blind22's landlady in Korrin
    Junction, told on the evening before the lesson, spent the next day in her rooms and told none
    of the three lodgers in theirs. One who shares the teller's room is not called on."""
    home, room = sector_of(teller.persona.home), arena_of(teller.persona.home)

    def own_roof(other: NpcState) -> bool:
        return sector_of(other.persona.home) == home

    def at_home(other: NpcState, arena: str) -> bool:
        if own_roof(other):
            return arena == arena_of(other.persona.home)
        return sector_of(arena) == sector_of(other.persona.home)

    callees = [o for o in town if arena_of(o.persona.home) != room and (own_roof(o) or knows(teller, o))]
    return _by_hour(teller, callees, now, told, at_home)


def knows(teller: NpcState, other: NpcState) -> bool:
    """Whether `other` is someone the teller knows well enough to call on: named in who the teller
    is (its identity or status), or talked with."""
    name = other.persona.name.strip()
    said = f"{teller.persona.identity}\n{teller.persona.currently}"
    return other.npc_id in teller.last_chat or bool(name) and whole_name(said, name, re.IGNORECASE)


def _by_hour(teller: NpcState, town: Sequence[NpcState], now: datetime, told: Collection[str],
             there_if: Callable[[NpcState, str], bool]) -> Where:
    """Where the others not `told` will be awake, hour by hour from `now` to the day's end, at
    the arenas `there_if` keeps (their plans, else their usual days)."""
    there: Where = defaultdict(lambda: defaultdict(set))
    day, tz = now.date(), now.tzinfo
    first, last = now.replace(minute=0, second=0, microsecond=0), datetime.combine(day + _DAY, time(0), tzinfo=tz)
    for other in town:
        if other.npc_id == teller.npc_id or other.npc_id in told:
            continue
        for start, end, activity, address in day_of(other, day, tz):
            if is_sleep(activity) or not there_if(other, arena := arena_of(address)):
                continue
            hour = max(first, start.replace(minute=0, second=0, microsecond=0))
            while hour < min(end, last):
                there[arena][hour].add(other.npc_id)
                hour += _HOUR
    return {arena: dict(hours) for arena, hours in there.items()}


def outside(where: Where, busy: Sequence[tuple[datetime, datetime]]) -> Where:
    """`where` without the hours that meet a span the teller is `busy` (its own event): a host's
    plan prompt listed the busiest place at the very hours of the event she hosts (blind11's
    writer), and a visit laid there would leave her event to itself."""
    kept = {arena: {h: ids for h, ids in hours.items() if not any(a < h + _HOUR and h < b for a, b in busy)}
            for arena, hours in where.items()}
    return {arena: hours for arena, hours in kept.items() if hours}


def gatherings(teller: NpcState, town: Sequence[NpcState], now: datetime, places: Sequence[str],
               *, told: Collection[str] = (), where: Where | None = None) -> list[Gathering]:
    """Where most others not `told` will be awake for the rest of `now`'s day, among `places`
    outside the teller's home sector: each place's busiest hours (its first run of them),
    busiest places first, at most SHOWN. `where`: `untold_by_hour`'s answer, if already read."""
    there = untold_by_hour(teller, town, now, places, told=told) if where is None else where
    found = []
    for arena, hours in there.items():
        most = max(len(ids) for ids in hours.values())
        start = min(h for h, ids in hours.items() if len(ids) == most)
        end = start
        while len(hours.get(end, ())) == most:
            end += _HOUR
        found.append(Gathering(arena, start, end, most))
    return sorted(found, key=lambda g: (-g.people, g.start - g.end, g.start))[:SHOWN]


def day_of(npc: NpcState, day: date, tz: tzinfo | None) -> list[tuple[datetime, datetime, str, str]]:
    """The NPC's blocks on `day`: its plan when made for that day, else its usual day."""
    if npc.plan_day == day and npc.plan:
        return [(i.start, i.end, i.activity, i.address) for i in npc.plan]
    return [(b.start, b.end, b.activity, b.address) for b in day_shape(npc, day, tz)]
