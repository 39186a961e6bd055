"""Planning (paper section 4.3), coarse form: at the start of a game day the NPC writes a plan
of time blocks from its identity and what it remembers, each placed at an address it knows.
Later decisions read the current block from the plan instead of asking the LLM again."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from brain_server.cognition.locate import repair_address
from brain_server.cognition.memory_stream import MemoryStream, bullet_list
from brain_server.memory import MemoryKind, MemoryNode
from brain_server.npc import Action, NpcState, PlanItem
from brain_server.prompts.daily_plan import PROMPT as DAILY_PLAN
from brain_server.prompts.daily_plan import DailyPlan, PlanBlock
from brain_server.trace import Trace

DEFAULT_WAKE_HOUR = 7
SLEEP = ("sleeping", "😴")


def fallback_plan(home: str) -> DailyPlan:
    """A quiet day at home: what an NPC does when the LLM cannot be reached."""
    return DailyPlan(wake_up_hour=DEFAULT_WAKE_HOUR, blocks=[
        PlanBlock(start="07:00", duration_minutes=60, activity="getting ready for the day", emoji="🪥", address=home),
        PlanBlock(start="08:00", duration_minutes=14 * 60, activity="spending the day at home", emoji="🏠", address=home),
        PlanBlock(start="22:00", duration_minutes=9 * 60, activity="sleeping", emoji="😴", address=home),
    ])


async def plan_day(npc: NpcState, now: datetime, stream: MemoryStream, trace: Trace) -> tuple[list[PlanItem], MemoryNode]:
    """Today's plan for the NPC, stored as a plan memory so it can be retrieved like any other."""
    persona = npc.persona
    places = [persona.home, *(a for a in npc.known_addresses if a != persona.home)]
    memories = await stream.retrieve(npc.npc_id, f"{persona.name}'s plans and commitments for today", now, trace)
    answer = await stream.llm.complete(
        DAILY_PLAN,
        {
            "npc_name": persona.name, "persona": persona.summary(), "date": now.strftime("%A %B %d, %Y"),
            "wake_hour": DEFAULT_WAKE_HOUR, "memories": bullet_list(memories),
            "places": "\n".join(f"- {p}" for p in places), "place_list": places,
        },
        npc_id=npc.npc_id,
        fallback=lambda: fallback_plan(persona.home),
        trace=trace,
    )
    items = schedule(answer, now, places, persona.home)
    summary = f"{persona.name}'s plan for {now:%A %B %d}: " + "; ".join(
        f"{i.start:%H:%M} {i.activity}" for i in items
    )
    node = MemoryNode(npc_id=npc.npc_id, kind=MemoryKind.PLAN, description=summary, subject=persona.name,
                      predicate="plans", object="the day", importance=5, created=now, last_accessed=now)
    [node] = await stream.remember(npc.npc_id, persona, [node], trace, rate=False)
    return items, node


def schedule(plan: DailyPlan, now: datetime, places: list[str], home: str) -> list[PlanItem]:
    """Blocks as a gap-free timeline on today's date: sorted, each ending where the next begins."""
    day = now.date()
    blocks = sorted(plan.blocks, key=lambda b: b.start)
    starts = [datetime.combine(day, time.fromisoformat(b.start.zfill(5)), tzinfo=now.tzinfo) for b in blocks]
    items: list[PlanItem] = []
    for i, (block, start) in enumerate(zip(blocks, starts, strict=True)):
        end = starts[i + 1] if i + 1 < len(blocks) else start + timedelta(minutes=block.duration_minutes)
        minutes = max(5, int((end - start).total_seconds() // 60))
        items.append(PlanItem(start=start, duration_minutes=minutes, activity=block.activity, emoji=block.emoji,
                              address=repair_address(block.address, places, home)))
    return items


def action_now(npc: NpcState, now: datetime, source: str) -> Action:
    """The action the plan prescribes at `now`; asleep at home outside the plan's hours."""
    item = npc.plan_item_at(now)
    if item is None:
        following = [i.start for i in npc.plan if i.start > now]
        minutes = int((min(following) - now).total_seconds() // 60) if following else 60
        activity, emoji = SLEEP
        return Action(description=f"{npc.persona.name} is {activity}", emoji=emoji, address=npc.persona.home,
                      start_time=now, duration_minutes=max(5, min(minutes, 60)), source=source)
    return Action(description=f"{npc.persona.name} is {item.activity}", emoji=item.emoji, address=item.address,
                  start_time=item.start, duration_minutes=item.duration_minutes, source=source)
