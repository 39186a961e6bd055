"""What an NPC has planned, as its prompts show it: the rest of today's blocks and what it promised
for later days, each line saying where the block was planned. Conversations and reactions show it
apart and leave the NPC's own plan memories out of what they retrieve (`OWN_PLANS`), so a prompt's
memories are not crowded with "X's plan for 14:00-14:30 ...: getting set up (10 min)"."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from brain_server.model.memory import MemoryKind
from brain_server.model.npc import NpcState, PlanItem

OWN_PLANS = frozenset({MemoryKind.PLAN})


def schedule_from(npc: NpcState, now: datetime, plans: bool = True, own: Sequence[PlanItem] = ()) -> str:
    """The NPC's plan from `now` on as prompt lines: the rest of today's blocks, then the items it
    promised for later days and its `own` events of later days, each once (a host who promised her
    own event had it twice: blind29's writer) (`gather.own_later`: a host shown
    "tomorrow: not planned yet" the day before her evening said where it was by the one room of that
    building the prompt wrote out, the one she stood in: blind19 in Tarnbeck); none when its plans
    are out of its reach (`plans` False). A day with
    nothing on it yet, today or tomorrow, says so: a day is planned on its morning, and a literal
    model shown only today's blocks read an invitation for tomorrow against them (a clash) or could
    not tell that tomorrow was free (blind16's writer). "Not planned yet" says the day plan is not
    made, not that the NPC is free: a host's own event that day is its news, shown beside. A note is
    in brackets, as "- (nothing planned)" is: no block, and nothing to tell (the project's own
    stand-ins, reading every other line as a memory, told "tomorrow ...: not planned yet" as news).
    Today's blocks that run past midnight are tomorrow's too: listed "... on Wednesday January 21"
    and then "(tomorrow, Wednesday January 21: not planned yet)", 250 of the Korrin capture's prompts
    left it open whether the NPC had plans tomorrow (blind33's writer)."""
    if not plans:
        return "- (nothing planned)"
    today = [i for i in npc.plan if i.end > now] if npc.plan_day == now.date() else []
    later = sorted({i.key: i for i in [*npc.commitments, *own] if i.end > now}.values(), key=lambda i: i.start)
    lines = [_planned(i, now) for i in [*today, *later]]
    tomorrow = now.date() + timedelta(days=1)
    if not today and not any(i.start.date() == now.date() for i in later):
        rest = "nothing more planned" if npc.plan_day == now.date() else "not planned yet"
        lines.insert(0, f"- (today, {now:%A %B} {now.day}: {rest})")
    if not any(i.start.date() == tomorrow for i in [*today, *later]):
        lines.append(f"- (tomorrow, {tomorrow:%A %B} {tomorrow.day}: not planned yet)")
    return "\n".join(lines)


def _planned(item: PlanItem, now: datetime) -> str:
    """A plan line, times first as plan lines are (its day last when it is another day's); its place
    said to be the planned one, which the prompt's "It is ..., at <place>" may contradict."""
    day = "" if item.start.date() == now.date() else f" on {item.start:%A %B} {item.start.day}"
    return f"- {item.start:%H:%M}-{item.end:%H:%M} {item.activity} (planned at {item.address}){day}"


def previous_day(npc: NpcState) -> str:
    """The last planned day for a prompt: its own first block says when it woke up (not the tail of
    the night before, `carry_over`)."""
    if not npc.plan or npc.plan_day is None:
        return "- (none: this is the first day)"
    outline = "".join(f"- {o}\n" for o in npc.day_outline)
    woke = next((i.start for i in npc.plan if not i.one_off), npc.plan[0].start)
    return f"{day_name(woke)}, waking up at {woke:%H:%M}:\n{outline}{plan_lines(npc.plan)}"


def plan_lines(items: Sequence[PlanItem]) -> str:
    return "\n".join(f"- {i.start:%H:%M}-{i.end:%H:%M} {i.activity} ({i.address})" for i in items) or "- (nothing)"


def day_name(when: datetime) -> str:
    return f"{when:%A %B} {when.day}, {when.year}"
