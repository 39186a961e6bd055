"""Every kind of work an NPC's mind does with the model, in one registry: when it is needed, when
it goes stale, and the thinking itself (read a copy of the NPC, think, apply the result to the
NPC as it is when it lands: `Records.revise`). `thinking.py` runs them.

    kind           class      urgent  needed when
    plan           plan_now   yes     no plan for today (not in a crowd)
    react          social     yes     someone or something seen is worth a reaction (in a crowd:
                                      meeting another crowd NPC, no call: attention.py)
    rate           background         perceived events waited long enough for their importance
    reflect        background         the importance since the last reflection adds up (not in a crowd)
    decompose_now  plan_now   yes     the block in progress has no steps (in view; out of view, a call)
    decompose      ahead              a block of the next hour has no steps (in view; out of view, a call)

Urgent work changes what the NPC does now: lockstep runs it before the action, and a Decide
says `thinking` while it is needed or under way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from brain_server.cognition.attention import Levels
from brain_server.cognition.calls import aimed, called, calling_on, due_calls, prepared, what_about, why_called
from brain_server.cognition.chats import Chats
from brain_server.cognition.gather import seeking, untold
from brain_server.cognition.hearsay import meet
from brain_server.cognition.locate import plan_places
from brain_server.cognition.memory_stream import MemoryStream, rating_due
from brain_server.cognition.news import hosting
from brain_server.cognition.news_said import untold_line
from brain_server.cognition.plan import carry_over, lay_window, plan_day, replan_from
from brain_server.cognition.react import decide_reaction
from brain_server.cognition.reflect import maybe_reflect, note_importance
from brain_server.cognition.runtime import NpcRuntime, Runtimes
from brain_server.cognition.steps import decompose_upcoming, due_blocks
from brain_server.config import Settings
from brain_server.llm.scheduler import Priority, Work
from brain_server.model.npc import NpcState, PlanItem
from brain_server.model.trace import Trace
from brain_server.persistence.records import Apply, Records

LONGEST_WAIT = timedelta(minutes=30)  # waiting for someone to finish is offered when they finish this soon
OUT_OF_VIEW_BATCHING = 4  # out of view, perceptions wait this many times longer for their rating
OUT_OF_VIEW_REFLECTING = 2  # and reflection waits for this many times the importance


Stale = Callable[[], bool] | None


@dataclass(frozen=True)
class Kind:
    """One kind of work. `needed` reads only the NPC's record and whether a reaction waits, so a
    Decide can ask it from any thread; `stale` is asked when the work's turn with the model comes."""

    name: str
    priority: Priority
    urgent: bool
    needed: Callable[[NpcState, datetime, Settings, bool], bool]
    stale: Callable[[NpcState, datetime, NpcRuntime, Settings], Stale]
    think: Callable[[Workshop, Work, datetime, Trace], Awaitable[bool]]

    @property
    def family(self) -> str:
        """An NPC runs one piece of work of a family at a time (decomposing now or ahead is one)."""
        return self.name.removesuffix("_now")


def _thinks(npc: NpcState) -> bool:
    """Whether the NPC calls the model for itself (a crowd does not: attention.py)."""
    return not npc.crowd


def reflection_threshold(npc: NpcState, settings: Settings) -> int:
    """Out of view, reflections come less often, each on more (the paper's threshold in view)."""
    return settings.reflection_threshold * (1 if npc.in_view else OUT_OF_VIEW_REFLECTING)


def reflection_due(npc: NpcState, now: datetime, settings: Settings) -> bool:
    """Enough importance since the last reflection (`reflection_threshold`), and that one at least
    `reflection_min_gap_minutes` of game time ago (a clock set back, by a load, does not hold it off)."""
    since = now - npc.last_reflection if npc.last_reflection is not None else None
    rested = since is None or not timedelta(0) <= since < timedelta(minutes=settings.reflection_min_gap_minutes)
    return rested and npc.importance_since_reflection >= reflection_threshold(npc, settings)


def _due(npc: NpcState, now: datetime, settings: Settings) -> list[PlanItem]:
    """The blocks about to begin without steps; out of view only the calls, aimed where those called on
    will be (`calls.prepared`: a host out of view called at empty houses while they were at work)."""
    if npc.plan_day != now.date() or npc.is_chatting(now):
        return []
    if not npc.in_view:
        return due_calls(npc.plan, now, settings.prepare_ahead_minutes)
    return due_blocks(npc.plan, now, settings.prepare_ahead_minutes)


def _blocks_over(npc: NpcState, now: datetime, runtime: NpcRuntime, settings: Settings) -> Stale:
    last_end = max(i.end for i in _due(npc, now, settings))
    return lambda: (runtime.clock or now) >= last_end


def _day_over(npc: NpcState, now: datetime, runtime: NpcRuntime, settings: Settings) -> Stale:
    day = now.date()
    return lambda: (runtime.clock or now).date() != day


def _gone(npc: NpcState, now: datetime, runtime: NpcRuntime, settings: Settings) -> Stale:
    """A reaction to someone who left before its turn came is not worth thinking out."""
    pending = runtime.reaction
    if pending is None:
        return None
    return lambda: (runtime.clock or now) > pending.seen_at and pending.observation.subject not in runtime.seen


def _never(npc: NpcState, now: datetime, runtime: NpcRuntime, settings: Settings) -> Stale:
    return None


def _or_crowd(stale: Callable[[NpcState, datetime, NpcRuntime, Settings], Stale]) -> Callable[..., Stale]:
    """Work of the NPC's own thinking is stale too once it is a crowd (attention.py: no LLM call),
    as when the brain demotes it while the work waits its turn."""

    def factory(npc: NpcState, now: datetime, runtime: NpcRuntime, settings: Settings) -> Stale:
        inner = stale(npc, now, runtime, settings)
        return lambda: runtime.crowd or (inner is not None and inner())

    return factory


# --- the thinking of each kind --------------------------------------------------------------


class Workshop:
    """The thinking of each kind of work, with what it uses: the memory stream, the records, the
    NPCs' runtimes, their conversations and attention levels, and the settings."""

    def __init__(self, settings: Settings, stream: MemoryStream, records: Records, runtimes: Runtimes, chats: Chats,
                 levels: Levels) -> None:
        self.settings = settings
        self.stream = stream
        self.records = records
        self.runtimes = runtimes
        self.chats = chats
        self.levels = levels

    async def replan(self, draft: NpcState, now: datetime, reason: str, trace: Trace, work: Work) -> Apply:
        """Re-plan the next hours of `draft` (`plan.replan_from`); the window is laid over the plan as it
        is when the answer lands, keeping what was promised meanwhile (`plan.lay_window`) and the
        NPC's own events of the day, its free time at home spent seeking people out when it holds
        news (`gather.Seek.replanned`), whatever the window holds."""
        world = await self.records.world(draft.world_name)
        planned, places = list(draft.plan), plan_places(world, draft)
        seek = await seeking(draft, now, self.stream, self.records, places)
        window = await replan_from(draft, now, reason, self.stream, trace, work=work, places=places, seek=seek.lines)
        return lambda live: lay_window(live, planned, seek.replanned(window, draft.persona.home, now))

    async def plan(self, work: Work, now: datetime, trace: Trace) -> bool:
        """Plan the day (`plan.py`), then adopt it unless another plan for today landed first."""
        npc_id = work.npc_id

        async def think(draft: NpcState) -> Apply:
            world = await self.records.world(draft.world_name)
            places = plan_places(world, draft)
            made, node = await plan_day(draft, now, self.stream, trace, work=work, places=places,
                                        renew_below=self.settings.new_plan_importance,
                                        seek=await seeking(draft, now, self.stream, self.records, places))
            source = "fallback" if trace.llm_calls and trace.llm_calls[-1].fallback_used else "new_plan"

            def adopt(live: NpcState) -> bool:
                adopted = live.plan_day != now.date()
                if adopted:
                    live.plan, live.plan_day = carry_over(live.plan, made, now), now.date()
                    live.plan_memory_id = node.id
                    live.wake_up_hour, live.day_outline = draft.wake_up_hour, draft.day_outline
                    adopt_currently(live, draft, trace)
                    if kept := live.keep_commitments(now.date()):
                        trace.note("plan: keeps what was promised: "
                                   + "; ".join(f"{i.start:%H:%M} {i.activity}" for i in kept))
                self.runtimes.of(npc_id).set_announce(source)
                trace.note(f"plan: new day plan with {len(made)} blocks ({source})")
                return adopted

            return adopt

        return await self.records.revise(npc_id, think)

    async def decompose(self, work: Work, now: datetime, trace: Trace, *, horizon_minutes: int) -> bool:
        """Break the block in progress (horizon 0) or those of the next `horizon_minutes` into steps."""

        async def think(draft: NpcState) -> Apply | bool:
            if draft.is_chatting(now):
                return False
            world = await self.records.world(draft.world_name)
            moved = await self._aim_calls(draft, now, horizon_minutes, trace)
            if not draft.in_view:
                draft.plan = prepared(draft.plan, now, horizon_minutes)
            elif not await decompose_upcoming(draft, now, self.stream, trace, work=work, horizon_minutes=horizon_minutes,
                                              objects=self.records.index(world).objects,
                                              verbs=[*world.verbs, *draft.verbs]):
                return False
            steps = {item.key: item.subtasks for item in draft.plan if item.subtasks}

            def adopt(live: NpcState) -> bool:
                adopted = [moved.get(item.key, item) for item in live.plan]
                adopted = [item.model_copy(update={"subtasks": steps[item.key]})
                           if not item.subtasks and item.key in steps else item for item in adopted]
                changed = any(new is not old for new, old in zip(adopted, live.plan, strict=True))
                live.plan = adopted
                return changed

            return adopt

        return await self.records.revise(work.npc_id, think)

    async def decompose_now(self, work: Work, now: datetime, trace: Trace) -> bool:
        return await self.decompose(work, now, trace, horizon_minutes=0)

    async def _aim_calls(self, draft: NpcState, now: datetime, horizon_minutes: int,
                         trace: Trace) -> dict[tuple[datetime, int, str, str], PlanItem]:
        """The calls about to begin (`calls.aimed`), moved in `draft`'s plan, by the blocks they were."""
        due = due_calls(draft.plan, now, horizon_minutes)
        if not due:
            return {}
        people = await self.records.people(draft.world_name)
        ids = {people[name] for item in due for name in called(item) if name in people}
        town = [other for i in sorted(ids) if (other := await self.records.npc_or_none(i)) is not None]
        moved = {item.key: new for item in due if (new := aimed(item, town)) is not item}
        for old, new in moved.items():
            trace.note(f"plan: {new.activity} at {new.start:%H:%M} goes to {new.address}, not {old[3]}")
        draft.plan = [moved.get(item.key, item) for item in draft.plan]
        return moved

    async def prepare(self, work: Work, now: datetime, trace: Trace) -> bool:
        return await self.decompose(work, now, trace, horizon_minutes=self.settings.prepare_ahead_minutes)

    async def rate(self, work: Work, now: datetime, trace: Trace) -> bool:
        """Rate the perceived events that waited for their importance, in one call."""

        async def think(draft: NpcState) -> Apply:
            ids = list(draft.unrated_ids)
            rated = await self.stream.rate_stored(work.npc_id, draft.persona, ids, trace, work)
            trace.note(f"rated {len(rated)} perceived events")

            def apply(live: NpcState) -> None:
                done = set(ids)
                live.unrated_ids = [i for i in live.unrated_ids if i not in done]
                live.unrated_since = live.unrated_since if live.unrated_ids else None
                note_importance(live, rated)

            return apply

        return await self.records.revise(work.npc_id, think)

    async def reflect(self, work: Work, now: datetime, trace: Trace) -> bool:
        """Reflection (`reflect.py`), once the importance of what happened adds up."""

        async def think(draft: NpcState) -> Apply:
            if not reflection_due(draft, now, self.settings):
                return lambda live: None
            accumulated = draft.importance_since_reflection
            thoughts = await maybe_reflect(draft, now, self.stream, trace, work=work,
                                           threshold=reflection_threshold(draft, self.settings))

            def apply(live: NpcState) -> None:
                live.importance_since_reflection = max(0, live.importance_since_reflection - accumulated)
                live.reflection_count += bool(thoughts)
                live.last_reflection = now

            return apply

        return await self.records.revise(work.npc_id, think)

    async def react(self, work: Work, now: datetime, trace: Trace) -> bool:
        """Reacting (`react.py`): continue, re-plan the next hours, wait for the other to finish, or talk;
        a call on someone found (`calls.calling_on`), and a host meeting one it has not told its own
        event (the paper's Isabella invites whoever she meets; blind9 and blind10 chose to talk at
        0.6 and 0.3 of such sightings, so most hosts met one or two people), talk without asking. One
        seen while resting and taken up after (`PendingReaction.resumed`) is worth a call only to
        one with news it has not told them."""
        chats, npc_id = self.chats, work.npc_id
        decided = Work(Priority.SOCIAL, npc_id)  # what follows a decision is no longer stale if they leave

        async def think(draft: NpcState) -> Apply | bool:
            pending = self.runtimes.of(npc_id).set_reaction(None)
            if pending is None:
                return False
            partner = await self.records.npc_or_none(pending.partner_id) if pending.partner_id else None
            if draft.crowd:  # no call: a crowd NPC meets another; one that thinks reacts on its own
                return partner is not None and partner.crowd and await self._meet(draft, partner, now, trace)
            if partner is not None and (chats.resting(draft, now) or chats.resting(partner, now)):
                trace.note(f"react: it or {partner.persona.name} rests from talk (no reaction asked)")
                return False
            if pending.resumed and (partner is None or await untold(draft, partner, now, self.stream) is None):
                trace.note(f"react: nothing to tell {pending.observation.subject}, seen while resting (no call)")
                return False
            if partner is not None and not (draft.in_view or partner.in_view):
                # Nobody watches: no reaction call; they talk or not, told in one call, or carry on.
                if not chats.can_talk(draft, partner, now):
                    return False
                return self._told(partner, now, await chats.conversation(npc_id, partner.npc_id, now, trace,
                                                                         work=decided, unseen=True))
            if partner is not None and calling_on(draft, partner, now) and chats.can_talk(draft, partner, now):
                trace.note(f"react: talks with {partner.persona.name}, whom it came to call on (no reaction asked)")
                return self._told(partner, now, await chats.conversation(
                    npc_id, partner.npc_id, now, trace, work=decided,
                    reason=await why_called(draft, partner, now, self.stream)))
            told = self.stream.heads([draft, partner]) if partner is not None else []  # who tells whom
            news = await untold(told[0], told[1], now, self.stream) if told else None
            if news is not None and hosting(told[0].persona.name, news) and chats.can_talk(draft, partner, now):
                assert partner is not None
                trace.note(f"react: tells {partner.persona.name} about its own event (no reaction asked)")
                return self._told(partner, now, await chats.conversation(
                    npc_id, partner.npc_id, now, trace, work=decided,
                    reason=f"wants to tell them about {what_about(news)}"))
            doing_now = partner.action if partner is not None else None
            ends = doing_now.end_time if doing_now is not None and not doing_now.chatting_with else None
            reaction = await decide_reaction(
                draft, pending.observation, now, chats.can_talk(draft, partner, now), self.stream, trace, work=work,
                status=doing_now.description if doing_now is not None else "",
                wait_until=ends if ends is not None and ends - now <= LONGEST_WAIT else None,
                untold=untold_line(told[0], told[1], news, now) if told else "",
                partner=partner)
            if reaction.choice == "continue" or (reaction.choice == "talk" and partner is None):
                return False
            if reaction.choice == "wait" and ends is not None:
                start = now.replace(second=0, microsecond=0)
                wait = PlanItem(start=start, duration_minutes=max(1, -int((start - ends).total_seconds() // 60)),
                                activity=f"waiting for {pending.observation.subject} to finish", emoji="⏳",
                                address=draft.address or draft.persona.home, one_off=True)
                wait = wait.model_copy(update={"subtasks": [wait]})  # one step, itself: no call for steps of waiting
                trace.note(f"react: waits until {wait.end:%H:%M}")
                return lambda live: live.insert_plan_item(wait)
            if reaction.choice == "talk":
                assert partner is not None
                return self._told(partner, now, await chats.conversation(npc_id, partner.npc_id, now, trace,
                                                                         work=decided, reason=reaction.reason))
            return await self.replan(draft, now, f"{pending.observation.description}; {reaction.new_activity}",
                                     trace, decided)

        return await self.records.revise(npc_id, think)

    async def _meet(self, npc: NpcState, partner: NpcState, now: datetime, trace: Trace) -> bool:
        """Two crowd NPCs meet (`hearsay.meet`), if they may talk now."""
        if not self.chats.can_talk(npc, partner, now):
            return False
        await meet(self.stream, self.records, npc, partner, now, trace)
        return True

    def _told(self, partner: NpcState, now: datetime, talked: bool) -> bool:
        """A crowd NPC told something by one who thinks it over is concerned (attention.py)."""
        if talked and partner.crowd:
            self.levels.concern(partner.npc_id, now)
        return talked


def adopt_currently(live: NpcState, draft: NpcState, trace: Trace) -> None:
    """The "currently" revised on `draft` replaces the NPC's, unless the developer edited it
    (SpawnNpc) while the revision was written: the edit, newer and the game's, stays."""
    if live.sent_currently != draft.sent_currently and live.persona.currently == live.sent_currently:
        trace.note('currently: edited by the game meanwhile, kept over the revision "'
                   f'{draft.persona.currently}"')
    else:
        live.persona.currently = draft.persona.currently


def _rating_due(npc: NpcState, now: datetime, settings: Settings, reacting: bool) -> bool:
    if not _thinks(npc):
        return False
    coarser = 1 if npc.in_view else OUT_OF_VIEW_BATCHING
    return rating_due(npc, now, batch=settings.importance_batch_size,
                      wait=timedelta(minutes=settings.importance_batch_minutes * coarser))


# The registry, in the order lockstep runs the kinds (the scheduler orders them by class).
KINDS = (
    Kind("plan", Priority.PLAN_NOW, True, lambda npc, now, s, r: npc.plan_day != now.date() and _thinks(npc),
         _or_crowd(_day_over), Workshop.plan),
    Kind("react", Priority.SOCIAL, True,
         lambda npc, now, s, reacting: reacting and (npc.plan_day == now.date() or npc.crowd), _gone, Workshop.react),
    Kind("rate", Priority.BACKGROUND, False, _rating_due, _or_crowd(_never), Workshop.rate),
    Kind("reflect", Priority.BACKGROUND, False,
         lambda npc, now, s, r: _thinks(npc) and reflection_due(npc, now, s),
         _or_crowd(_never), Workshop.reflect),
    Kind("decompose_now", Priority.PLAN_NOW, True,
         lambda npc, now, s, r: any(i.start <= now for i in _due(npc, now, s)), _blocks_over, Workshop.decompose_now),
    Kind("decompose", Priority.AHEAD, False,
         lambda npc, now, s, r: bool(due := _due(npc, now, s)) and not any(i.start <= now for i in due),
         _blocks_over, Workshop.prepare),
)


def needed(npc: NpcState, now: datetime, settings: Settings, *, reacting: bool) -> list[Kind]:
    """The kinds of work the NPC needs now, in the registry's order."""
    return [kind for kind in KINDS if kind.needed(npc, now, settings, reacting)]


def thinking_about_now(npc: NpcState, now: datetime, settings: Settings, *, reacting: bool) -> bool:
    """Whether work that changes what the NPC does now is needed (for a Decide: no I/O, any thread)."""
    return any(kind.urgent and kind.needed(npc, now, settings, reacting) for kind in KINDS)
