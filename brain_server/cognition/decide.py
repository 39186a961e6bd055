"""A Decide's answer: the NPC's action for now from what the mind published of it, a frozen
`View`, without I/O, waiting or any change to anything: any thread may ask, and nothing it does
touches the mind (it holds no records, levels, runtimes or foreground, only values). The mind
(`mind.py: Mind.decide`) is the one orchestration around it: in lockstep it first stores what
the NPC saw and runs the urgent work, then calls `answer`; thinking in the background the
transports' thread calls `answer` at once. Either way what the Decide changed reaches the mind
as a `Decided` message, handled on the mind's loop.

    act        a conversation in progress, the plan's step, a promise, or the routine (`act`)
    place      the action at places the world still has (`WorldIndex.placed`)
    ask again  sooner while thinking about now, plus the NPC's share of the town's spread
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from brain_server.cognition.offline.routine import provisional_action
from brain_server.cognition.perceive import PerceivedEvent
from brain_server.cognition.runtime import Snapshot
from brain_server.cognition.steps import action_now
from brain_server.model.npc import Action, NpcState
from brain_server.model.trace import Trace
from brain_server.model.world_index import WorldIndex

ASK_AGAIN_WHILE_THINKING = timedelta(minutes=5)  # how soon a thinking NPC should ask again
CHAT_HOLD = timedelta(minutes=5)  # a conversation being written holds its speakers this long at a time
NEVER = datetime.min.replace(tzinfo=UTC)
Urgent = Callable[[NpcState, datetime, bool], bool]  # whether work that changes what it does now is needed


@dataclass(frozen=True)
class View:
    """What a Decide reads of one NPC, published whole by the mind (one dict assignment on its
    loop) whenever a part changes: its record as saved (never changed once saved), its world's
    lookups, its runtime's snapshot, its attention standing (`attention.Levels`: its latest
    concern and whether the brain demoted it), its share of the town's ask spread
    (`foreground.AskSpread`), and the urgent-work rule (None in lockstep: the Decide ran that
    work before answering)."""

    npc: NpcState
    index: WorldIndex
    snapshot: Snapshot
    offset: timedelta
    hold: timedelta
    concerned: datetime = NEVER
    demoted: bool = False
    urgent: Urgent | None = None


@dataclass(frozen=True)
class Ask:
    """A Decide as the mind takes it: checked and converted by the service. `crowd`: the game
    asked for the crowd level; the trace is the Decide's own."""

    npc_id: str
    now: datetime
    events: Sequence[PerceivedEvent]
    address: str
    in_view: bool
    crowd: bool
    trace: Trace


@dataclass
class Decision:
    action: Action
    trace: Trace
    ask_again_at: datetime
    thinking: bool


@dataclass(frozen=True)
class Decided:
    """The mind's inbox: a Decide answered, for the mind's loop to record (what the NPC saw, where
    it stands, the action it was given) and to count (`answered_at`: when, on the foreground's
    clock). Made on any thread; handled only on the mind's loop (`Mind.recorded`)."""

    ask: Ask
    decision: Decision
    answered_at: float
    observed: bool = False  # what the NPC saw was stored before it acted (lockstep)
    before: Action | None = None  # then, the action it had before this Decide


def crowd(concerned: datetime, hold: timedelta, demoted: bool, now: datetime, *, in_view: bool, asked: bool) -> bool:
    """Whether the NPC thinks as a crowd now: asked for (or demoted) and not concerned lately."""
    if in_view or concerned_now(concerned, hold, now):
        return False
    return asked or demoted


def concerned_now(concerned: datetime, hold: timedelta, now: datetime) -> bool:
    """Whether a concern at game time `concerned` still holds at `now` (attention.py)."""
    return concerned <= now < concerned + hold


def answer(view: View, ask: Ask) -> Decision:
    """The NPC's action for now, where its world has the places, and when to ask again."""
    now, snapshot = ask.now, view.snapshot
    if ask.address:
        view.index.check(ask.address, "address")
    npc = view.npc.model_copy(update={
        "address": ask.address or view.npc.address, "in_view": ask.in_view,
        "crowd": crowd(view.concerned, view.hold, view.demoted, now, in_view=ask.in_view, asked=ask.crowd)})
    action = act(npc, now, snapshot, view.index.objects)
    # A crowd NPC's own work is dropped at its turn (work.py) and its meetings need no call: only
    # a conversation being written changes what it does now.
    thinking = snapshot.talking if npc.crowd else (
        snapshot.thinking or (view.urgent is not None and view.urgent(npc, now, snapshot.reacting)))
    action, moved = view.index.placed(action, npc.persona.home, ask.address, view.npc.address)
    if moved:
        ask.trace.note(moved)
    # Steps end on the same minutes across a town: each NPC asks its own share of a spread later.
    ask_again = (min(action.end_time, now + ASK_AGAIN_WHILE_THINKING) if thinking else action.end_time) + view.offset
    ask.trace.action = action
    return Decision(action=action, trace=ask.trace, ask_again_at=max(ask_again, now + timedelta(minutes=1)),
                    thinking=thinking)


def act(npc: NpcState, now: datetime, snapshot: Snapshot, objects: Mapping[str, Sequence[str]]) -> Action:
    """The action for now from what the NPC already has; never waits for the model."""
    if snapshot.talking and npc.action is not None and npc.action.chatting_with:
        held = now + CHAT_HOLD - npc.action.start_time
        return npc.action.model_copy(update={"duration_minutes": int(held.total_seconds() // 60)})
    if npc.is_chatting(now):
        assert npc.action is not None
        return npc.action
    return followed_action(npc, now, objects, snapshot.announce)


def followed_action(npc: NpcState, now: datetime, objects: Mapping[str, Sequence[str]], source: str = "plan") -> Action:
    """The action for now without a call: the plan's (`source`: where it says it comes from), else
    what the NPC promised for now (an invitation it accepted, no plan made yet), else its routine
    (`routine.provisional_action`)."""
    if npc.plan_day == now.date() or npc.plan_item_at(now) is not None:
        return action_now(npc, now, source)
    promised = next((item for item in npc.commitments if item.start <= now < item.end), None)
    if promised is None:
        return provisional_action(npc, now, objects)
    return action_now(npc.model_copy(update={"plan": [promised]}), now, source)
