"""Where a call finds those it calls on. A call (`gather.Seek.visit`'s "calling on ...") is laid
when the day is planned, where the others' usual days put them; by the hour it comes they have
made their own plans, and in view about half the calls found nobody (blind6, blind7 and blind8 in
both untuned towns: the one called on was elsewhere, or in another room of the house, and only
those in the same room see a caller). So a call about to begin goes where the first it names
will be, awake, by that one's plan: at home, at work or out."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from brain_server.cognition.attention import gist
from brain_server.cognition.gather import CALLING, untold
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.offline.heard import EVENT, whole_name
from brain_server.cognition.steps import due_blocks, steps_of_itself
from brain_server.cognition.whereabouts import day_of
from brain_server.model.memory import MemoryNode
from brain_server.model.npc import NpcState, PlanItem, is_sleep
from brain_server.model.world import arena_of


def calling_on(npc: NpcState, other: NpcState, now: datetime) -> bool:
    """Whether the NPC's block now is a call on `other` ("calling on Bo Tamm", as `Seek.visit` lays
    it, or a model plans it): it went there to see them, so finding them is a conversation, not a
    sighting to weigh (a literal model, shown a caller at the door of the one it called on, carried
    on with "calling on ..." and left without a word)."""
    item = npc.plan_item_at(now)
    return item is not None and item.activity.lower().startswith(CALLING) and whole_name(item.activity, other.persona.name)


async def why_called(npc: NpcState, other: NpcState, now: datetime, stream: MemoryStream) -> str:
    """Why the NPC came, as the conversation's reason: to tell `other` the news it has not told them
    yet, named by what it is about ("a Morse code lesson"), when it holds some (calls are laid to
    pass news on; blind9's host, shown only "came to call on ...", greeted, took leave and left
    the lesson unsaid), else only the call."""
    reason = f"came to call on {other.persona.name}"
    news = await untold(npc, other, now, stream)
    return f"{reason} to tell them about {what_about(news)}" if news is not None else reason


def what_about(news: MemoryNode) -> str:
    """What news is about, as a conversation's reason names it ("a Morse code lesson"; "some news"
    when it says no event)."""
    found = EVENT.search(gist(news))
    return found["what"] if found else "some news"


def called(item: PlanItem) -> list[str]:
    """The names a call names ("calling on Bo Tamm and Rosa Vane"); none for any other block."""
    return item.activity[len(CALLING):].split(" and ") if item.activity.lower().startswith(CALLING) else []


def due_calls(plan: Sequence[PlanItem], now: datetime, horizon_minutes: int) -> list[PlanItem]:
    """The calls of `plan` in progress or beginning within the horizon that have no steps yet."""
    return [item for item in due_blocks(plan, now, horizon_minutes) if called(item)]


def prepared(plan: Sequence[PlanItem], now: datetime, horizon_minutes: int) -> list[PlanItem]:
    """`plan` with its due calls as steps of themselves, no model asked: out of view, where no block is
    broken into steps, a call once aimed is followed as a block (`work._due`). Aimed only with steps,
    Bir Tamrit's host out of view called at three empty houses in a row while the three were at work."""
    due = due_calls(plan, now, horizon_minutes)
    return [item.model_copy(update={"subtasks": steps_of_itself(item)}) if item in due else item for item in plan]


def aimed(item: PlanItem, town: Sequence[NpcState]) -> PlanItem:
    """The call `item` at the arena where those it names (found in `town`) will be in its middle,
    the first of them who will be awake then; as it is when none will be."""
    names, middle = set(called(item)), item.start + (item.end - item.start) / 2
    for other in (o for o in town if o.persona.name in names):
        for start, end, activity, address in day_of(other, middle.date(), middle.tzinfo):
            if start <= middle < end and not is_sleep(activity):
                arena = arena_of(address)
                return item if arena == arena_of(item.address) else item.model_copy(update={"address": arena})
    return item
