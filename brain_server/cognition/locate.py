"""Choosing where an activity happens (paper section 4.3: sector -> arena -> object) among the
places an NPC knows and may enter, and repairing any answer the LLM made up to the closest such
place, so Godot is never sent a place that does not exist or that the NPC may not enter.

Access rule. Spatial memory is kept per arena: knowing an arena, or any object in it, means
knowing all of its objects, and an NPC always knows every arena of its home's sector. A sector
is private when it has residents (npc ids, or persona names) and the NPC is not one of them; an NPC may enter a known arena
unless its sector is private, and its own home's sector, its workplace's (`Persona.workplace`: a
housekeeper's at the family she keeps house for) and the sectors it is invited to are never
private to it. An invitation lifts privacy, not ignorance: an NPC invited somewhere it has
never seen must learn the place first (`learn_places`, e.g. with the address the invitation
named).

One LLM call per choice (the paper makes three): the answer carries sector, arena and object in
that order, under a schema that admits only consistent triples of accessible places (see
`prompts/choose_address.py`), which keeps the hierarchy at a third of the calls.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
import difflib

import structlog

from brain_server.llm.client import LLM
from brain_server.llm.scheduler import Work
from brain_server.model.npc import NpcState
from brain_server.model.trace import Trace
from brain_server.model.world import SEPARATOR, Sector, World, arena_of, join, sector_of
from brain_server.prompts.choose_address import NO_OBJECT, AddressChoice, Place
from brain_server.prompts.choose_address import PROMPT as CHOOSE_ADDRESS

log = structlog.get_logger(__name__)
# How alike (difflib's ratio) a misspelt place must be to a known one, the world's name left out of
# both: at 0.4, with "the Ville:" shared by every address, "Chapel:nave" became "Hobbs Cafe:cafe".
FUZZY_CUTOFF = 0.6


def repair_address(proposed: str, known: Sequence[str], fallback: str, trace: Trace | None = None) -> str:
    """`proposed` if known; else the first known place that it names word for word, whatever the
    case ("hobbs cafe" or "Hobbs Cafe:cafe" for "the Ville:Hobbs Cafe:cafe"); else the most similar
    known place, if alike enough (`FUZZY_CUTOFF`); else `fallback`. Each repair is logged, and
    noted and counted in the trace, so a wrong place is never taken without a word."""
    if proposed in known:
        return proposed
    wanted = _parts(proposed)
    named = next((k for k in known if wanted and _contains(_parts(k), wanted)), None)
    if named is not None:
        how, repaired = "named", named
    else:
        bare = {_without_world(k): k for k in reversed(known)}  # the first of equal names wins
        close = difflib.get_close_matches(_without_world(proposed), list(bare), n=1, cutoff=FUZZY_CUTOFF)
        how, repaired = ("alike", bare[close[0]]) if close else ("unknown", fallback)
    text = f"locate: place {proposed!r} is not one known: {how}, taken as {repaired!r}"
    (log if trace is None else trace.log).info(text, logger=__name__)  # the field its stdlib line had
    if trace is not None:
        trace.note(text)
    return repaired


def _parts(address: str) -> list[str]:
    return [" ".join(p.lower().split()) for p in address.split(SEPARATOR) if p.strip()]


def _contains(parts: Sequence[str], run: Sequence[str]) -> bool:
    """Whether `run` is a run of consecutive parts of `parts` (an address names its sector and arena)."""
    return any(list(parts[i:i + len(run)]) == list(run) for i in range(len(parts) - len(run) + 1))


def _without_world(address: str) -> str:
    return address.split(SEPARATOR, 1)[1] if address.count(SEPARATOR) >= 2 else address


def accessible_places(world: World, npc: NpcState, invited_sectors: Collection[str] = frozenset(), *,
                      unknown: bool = False) -> World:
    """The part of `world` the NPC may choose from (module docstring: the access rule), as a World
    so its address helpers apply. `invited_sectors` holds sector names; `unknown`: the arenas it
    would be let into, known or not."""
    known = _known_arenas(npc, world)
    own = {sector_of(a) for a in npc.persona.own_places()}
    sectors: list[Sector] = []
    for sector in world.sectors:
        private = bool(sector.residents) and not {npc.npc_id, npc.persona.name} & set(sector.residents)
        if private and join(world.name, sector.name) not in own and sector.name not in invited_sectors:
            continue
        arenas = [a for a in sector.arenas if unknown or join(world.name, sector.name, a.name) in known]
        if arenas:
            sectors.append(sector.model_copy(update={"arenas": arenas}))
    return world.model_copy(update={"sectors": sectors})


def plan_places(world: World, npc: NpcState) -> list[str]:
    """The arenas a plan may send the NPC to: known, and not another family's private rooms."""
    return accessible_places(world, npc).arena_addresses()


def talk_places(world: World, npc: NpcState) -> list[str]:
    """The places an NPC names in talk and a conversation's memo may send it to: home first, then
    those a plan may (`plan_places`). Not another family's bedroom it once saw something happen in:
    blind19 read "Gault cottage:Sorcha Gault's bedroom" in a memo's list as news of Sorcha Gault."""
    return list(dict.fromkeys(p for p in (arena_of(npc.persona.home), *plan_places(world, npc)) if p))


def open_places(world: World, npc: NpcState) -> list[str]:
    """The arenas the NPC would be let into, known or not: where news it hears may send it (it
    learns the place from the news, as from a line that names it)."""
    return accessible_places(world, npc, unknown=True).arena_addresses()


def learn_places(npc: NpcState, world: World, addresses: Iterable[str]) -> int:
    """Add the arenas of the perceived addresses that exist in `world` to the NPC's spatial memory;
    how many arenas were new. Arenas only: they imply their objects and keep the plan's place list short."""
    addresses = list(addresses)
    if not addresses:
        return 0
    valid = world.addresses()
    known = _known_arenas(npc, world)
    new: list[str] = []
    for address in addresses:
        arena = arena_of(address)
        if address in valid and arena not in known:
            known.add(arena)
            new.append(arena)
    npc.known_addresses.extend(new)
    return len(new)


async def choose_address(
    activity: str,
    npc: NpcState,
    world: World,
    llm: LLM,
    trace: Trace | None,
    *,
    work: Work,
    invited_sectors: Collection[str] = frozenset(),
    named: str = "",
) -> str:
    """Where the NPC does `activity`: an accessible arena or object address, never anything else.
    `named`: the place already given for it (a conversation's plan item names where the party
    is): taken without a call when the NPC may enter it, else chosen as if none were named.

    The current sector and arena are listed first and marked, so the model stays put when it can;
    a valid answer is kept as is, an invalid one is repaired level by level to the closest
    accessible choice, and a failed call falls back to the current arena if accessible, else home.
    Raises ValueError when the NPC may enter no place at all (its home is not in this world).
    """
    places = accessible_places(world, npc, invited_sectors)
    if named in places.addresses():
        return named
    if named and trace is not None:
        trace.note(f"locate: {named!r} was named for {activity!r} but is not a place {npc.persona.name} may enter")
    current = arena_of(npc.address)
    fallback = _fallback(places, current, npc.persona.home)
    tree = _current_first(places, current)
    choices = [(s.name, a.name, [o.name for o in a.objects]) for s in tree.sectors for a in s.arenas]
    answer = await llm.complete(
        CHOOSE_ADDRESS,
        {
            "npc_name": npc.persona.name, "persona": npc.persona.summary(), "activity": activity,
            "here": _describe(npc.address), "places": _outline(tree, current, npc.persona.home),
            "place_choices": choices,
        },
        work=work, npc_id=npc.npc_id,
        fallback=lambda: AddressChoice(place=_place_of(fallback)),
        trace=trace,
    )
    address = _resolve(answer.place, tree, fallback, trace)
    if trace is not None and _place_of(address) != answer.place:
        trace.note(f"locate: answer {answer.place.model_dump()} repaired to {address!r}")
    return address


def _known_arenas(npc: NpcState, world: World) -> set[str]:
    """Arenas the NPC knows: those of its known addresses, and every arena of its home's sector."""
    home_sector = sector_of(npc.persona.home)
    return {arena_of(a) for a in npc.known_addresses} | {
        a for a in world.arena_addresses() if sector_of(a) == home_sector}


def _place_of(address: str) -> Place:
    _, sector, arena, obj = [*address.split(SEPARATOR), NO_OBJECT][:4]
    return Place(sector=sector, arena=arena, object=obj)


def _fallback(places: World, current: str, home: str) -> str:
    valid = places.addresses()
    candidates = (current, home, arena_of(home), *places.arena_addresses())
    found = next((c for c in candidates if c in valid), None)
    if found is None:
        raise ValueError(f"the NPC may enter no place in world {places.name!r}: its home {home!r} is not in it "
                         "and it knows no public place there")
    return found


def _current_first(places: World, current: str) -> World:
    """The same tree with the current sector, and the current arena within it, moved to the front."""
    here_sector = sector_of(current)
    sectors = sorted(places.sectors, key=lambda s: join(places.name, s.name) != here_sector)
    return places.model_copy(update={"sectors": [
        s.model_copy(update={"arenas": sorted(s.arenas, key=lambda a: join(places.name, s.name, a.name) != current)})
        for s in sectors
    ]})


def _outline(tree: World, current: str, home: str) -> str:
    """The accessible tree as an indented list, marking where the NPC is and its home."""
    lines: list[str] = []
    for sector in tree.sectors:
        prefix = join(tree.name, sector.name)
        tags = [tag for tag, on in (("here", prefix == sector_of(current)), ("home", prefix == sector_of(home))) if on]
        lines.append(f"- {sector.name}" + (f" ({', '.join(tags)})" if tags else ""))
        for arena in sector.arenas:
            mark = " (here)" if join(prefix, arena.name) == current else ""
            objects = ", ".join(o.name for o in arena.objects)
            lines.append(f"  - {arena.name}{mark}" + (f": {objects}" if objects else ""))
    return "\n".join(lines)


def _describe(address: str) -> str:
    parts = address.split(SEPARATOR)
    return f"in the {parts[2]} at {parts[1]}" if len(parts) >= 3 else "somewhere in town"


def _resolve(place: Place, tree: World, fallback: str, trace: Trace | None) -> str:
    """The answer as an accessible address: each level kept if valid, else repaired among the
    choices under the level above (sector, then arena, then object; no object if none is close)."""
    default = _place_of(fallback)
    sectors = {s.name: s for s in tree.sectors}
    sector = sectors[repair_address(place.sector, list(sectors), default.sector, trace)]
    arenas = {a.name: a for a in sector.arenas}
    arena = arenas[repair_address(place.arena, list(arenas),
                                  default.arena if sector.name == default.sector else sector.arenas[0].name, trace)]
    address = join(tree.name, sector.name, arena.name)
    objects = [o.name for o in arena.objects]
    chosen = repair_address(place.object, objects, NO_OBJECT, trace) if place.object else NO_OBJECT
    return join(address, chosen) if chosen else address
