"""What a plan item a conversation made is, and where it happens (a memo's plan change, booked for
one who talked with another NPC or with the player): the model wrote its words, time and place; the
NPC's own memories say whose event it is and where the event is."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from brain_server.cognition.gather import as_guest, heard_events, own_event_held, own_events
from brain_server.cognition.gist import told_place
from brain_server.cognition.locate import choose_address, learn_places, open_places
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.said_yes import PlanChange
from brain_server.llm.scheduler import Work
from brain_server.model.memory import MemoryNode
from brain_server.model.npc import NpcState, PlanItem
from brain_server.model.trace import Trace
from brain_server.model.world import SEPARATOR, World
from brain_server.prompts.decompose import MIN_STEP_MINUTES


async def booked_item(change: PlanChange, npc: NpcState, world: World, stream: MemoryStream, trace: Trace, *,
                      work: Work, host: NpcState | None = None, told: Sequence[MemoryNode] = ()) -> PlanItem | None:
    """The plan item `change` books, or None: the NPC's own event at its hours is its host's item
    (`own_event_held`), however the memo worded it; anything else keeps clear of those hours
    (`clear_of_own`); one at the hours of an event it heard of
    that says the host's part is going to it (`as_guest`). It happens at a place the NPC may enter,
    or the home of the `host` it talked with (who named it: the NPC learns it, and its privacy is
    lifted), or the place the news of it names (`told_place`: news of the same thing, or of what is
    on at its hours in the building it was booked in; what it was `told` there or the others held,
    else its own newest thoughts, as news retold from memos loses its place on the way; its room the
    one the NPC's conversations named where the news names only the building), else the
    place the conversation named (offered only when known or said: the NPC learns it). A model's
    memo booked the event where the talk was, or in the building's first room."""
    invited: frozenset[str] = frozenset()
    npc = npc.model_copy(update={"known_addresses": list(npc.known_addresses)})
    thoughts = await stream.latest_thoughts(npc.npc_id)
    booked = PlanItem(start=change.start, duration_minutes=change.minutes, activity=change.activity,
                      address=change.place)
    places = open_places(world, npc)
    if (own := own_event_held(npc.persona.name, thoughts, booked, places)) is not None:
        trace.note(f"converse: {change.activity[:60]!r} is {npc.persona.name}'s own event: {own.activity!r}")
        return own
    if (clear := clear_of_own(npc.persona.name, thoughts, booked, places, trace)) is None:
        return None
    activity = as_guest(clear, heard_events(npc.persona.name, [*told, *thoughts], places)).activity
    news = told_place(change.activity, [*told, *thoughts], places, start=change.start, booked=change.place,
                      chats=await stream.latest_chats(npc.npc_id))
    # the event is where its news says: a memo put it where the talk was, or named only the building
    named = news or change.place
    if named != change.place:
        trace.note(f"converse: {change.activity[:60]!r} goes where its news names (told there, held by "
                   f"the others or thought before): {named!r}")
    learn_places(npc, world, [named] if named else [])
    if host is not None and host.persona.home.count(SEPARATOR) >= 2:
        learn_places(npc, world, [host.persona.home])
        invited = frozenset({host.persona.home.split(SEPARATOR)[1]})
    address = await choose_address(change.activity, npc, world, stream.llm, trace, work=work,
                                   invited_sectors=invited, named=named)
    return clear.model_copy(update={"activity": activity, "address": address})


def clear_of_own(name: str, thoughts: Sequence[MemoryNode], item: PlanItem, places: Sequence[str],
                 trace: Trace) -> PlanItem | None:
    """`item` ended where the NPC's own event begins, or None when it starts within one: a host
    keeps her own event whatever a conversation's memo books (the hard stand-in's memo booked a
    line of its prompt over Netta's dyeing, and she stood in her shed as a guest of it; the memo
    prompt says a real commitment gives way only when the NPC agreed to change it, which moves the
    event, not a second booking over it)."""
    for event in own_events(name, thoughts, item.start.date(), places, item.start.tzinfo):
        if item.start < event.end and event.start < item.end:
            minutes = (event.start - item.start) // timedelta(minutes=1)
            if minutes < MIN_STEP_MINUTES:  # less than a step of a plan
                trace.note(f"converse: {item.activity[:60]!r} would take {name}'s own {event.activity!r}: not booked")
                return None
            trace.note(f"converse: {item.activity[:60]!r} ends where {name}'s own {event.activity!r} begins")
            item = item.model_copy(update={"duration_minutes": minutes})
    return item
