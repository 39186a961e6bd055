"""The plan's 5-15 minute steps (paper section 4.3), and the action it gives for now.

About an hour ahead each hour block is broken into steps (one call per block, concurrently;
sleep never), each step's minutes normalised in code so they sum exactly to the block and each
step may use one object of the block's arena (its state while used: "brewing coffee"). The
action for now is the current step of the current block, or the block until its steps land.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import datetime, time, timedelta
from itertools import groupby
import math

from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.offline.heard import stems
from brain_server.cognition.offline.routine import SLEEP
from brain_server.cognition.offline.said_clock import stated_times
from brain_server.cognition.offline.wording import clipped
from brain_server.cognition.plan import plan_node
from brain_server.cognition.schedule import day_name, plan_lines
from brain_server.llm.scheduler import Work
from brain_server.model.npc import Action, NpcState, ObjectState, PlanItem, as_label, is_sleep
from brain_server.model.trace import Trace
from brain_server.model.validation import MAX_LABEL
from brain_server.model.verbs import Verb, VerbCall, check_call, menu, usable
from brain_server.model.world import SEPARATOR, arena_of
from brain_server.prompts.decompose import MAX_STEP_MINUTES, MIN_STEP_MINUTES, Decomposition, Step
from brain_server.prompts.decompose import PROMPT as DECOMPOSE

MAX_STEPS = 12  # per decomposition call; longer blocks repeat steps rather than ask for more
TYPICAL_STEP_MINUTES = 10  # the middle of 5-15: a stretch asked for leaves its steps room either way


# --- decomposition into 5-15 minute steps ---------------------------------------------------


async def decompose_upcoming(npc: NpcState, now: datetime, stream: MemoryStream, trace: Trace, *, work: Work,
                             horizon_minutes: int = 60, objects: Mapping[str, Sequence[str]] | None = None,
                             verbs: Sequence[Verb] = ()) -> int:
    """Break the current block, and blocks starting within the horizon, into 5-15 minute steps
    (one LLM call each, concurrently; sleep and already decomposed blocks are skipped). Each step
    may use one of the objects of the block's arena (`objects`: arena address -> object names),
    which becomes its address, and perform one of the game's `verbs` usable there (checked against
    its declaration; a refused one is noted in the trace and the step stays plain). The steps are
    stored on the blocks and as PLAN memories. Returns how many blocks were decomposed."""
    due = due_blocks(npc.plan, now, horizon_minutes)
    if not due:
        return 0
    objects = objects or {}
    results = await asyncio.gather(*(_decompose(npc, item, now, stream, trace, objects.get(arena_of(item.address), []),
                                                verbs, work) for item in due))
    nodes = []
    filled: dict[int, PlanItem] = {}  # the blocks with their steps, by the block they replace
    for item, (subtasks, from_llm) in zip(due, results, strict=True):
        filled[id(item)] = item.model_copy(update={"subtasks": subtasks})
        if from_llm:
            steps = "; ".join(f"{activity} ({minutes} min)" for activity, minutes in _runs(subtasks))
            header = (f"{npc.persona.name}'s plan for {item.start:%H:%M}-{item.end:%H:%M} on {day_name(item.start)}, "
                      f"{item.activity}")
            nodes.append(plan_node(npc, now, f"{header}: {steps}", importance=3, key=header))
    npc.plan = [filled.get(id(item), item) for item in npc.plan]
    await stream.remember(npc.npc_id, npc.persona, nodes, trace, rate=False)
    trace.note(f"plan: decomposed {len(due)} block(s): " + ", ".join(f"{i.start:%H:%M} {i.activity}" for i in due))
    return len(due)


def due_blocks(plan: Sequence[PlanItem], now: datetime, horizon_minutes: int) -> list[PlanItem]:
    """Blocks in progress or starting within the horizon that still need their steps (never sleep)."""
    horizon = now + timedelta(minutes=horizon_minutes)
    return [i for i in plan if i.end > now and i.start <= horizon and not i.subtasks and not is_sleep(i.activity)]


async def _decompose(npc: NpcState, item: PlanItem, now: datetime, stream: MemoryStream,
                     trace: Trace, objects: Sequence[str], verbs: Sequence[Verb],
                     work: Work) -> tuple[list[PlanItem], bool]:
    """The block's steps, and whether the LLM wrote them (else the block repeats in 15-minute steps)."""
    minutes, arena = item.duration_minutes, arena_of(item.address)
    here = usable(verbs, npc.npc_id, arena, objects)
    if minutes < 2 * MIN_STEP_MINUTES:
        return _routine(item, here, objects, trace), False
    # A block longer than its steps can fill ("12 to 12 steps, each 5 to 15 minutes, that together fill
    # the 480 minutes" cannot be met; "12 steps that fill 180 minutes" leaves each exactly 15) asks for a
    # stretch its steps fill at about 10 minutes each: `fit_steps` repeats them to its end.
    stretch = min(minutes, MAX_STEPS * TYPICAL_STEP_MINUTES)
    least = math.ceil(stretch / MAX_STEP_MINUTES)
    most = max(least, min(stretch // MIN_STEP_MINUTES, MAX_STEPS))
    # "fill 120 minutes of it" after "(330 minutes)" had blind17's writer unsure which to fill.
    first = item.start + timedelta(minutes=stretch)
    span = f"the {minutes} minutes" if stretch == minutes else \
        f"only its first {stretch} minutes ({item.start:%H:%M}-{first:%H:%M}; the steps are then repeated " \
        f"until {item.end:%H:%M})"
    failed = Decomposition.model_construct(steps=[Step.model_construct(activity=item.activity, duration_minutes=15)])
    answer = await stream.llm.complete(
        DECOMPOSE,
        {
            "npc_name": npc.persona.name, "persona": npc.persona.summary(), "date": day_name(item.start),
            "schedule": plan_lines(npc.plan), "activity": item.activity, "start": f"{item.start:%H:%M}",
            "end": f"{item.end:%H:%M}", "minutes": minutes, "place": item.address,
            "min_steps": least, "max_steps": most, "steps": f"{least} to {most}" if most > least else str(least),
            "span": span,
            "objects": ", ".join(objects) or "(none)", "object_list": list(objects),
            **verb_variables(npc.persona.name, here, arena, objects),
        },
        work=work, npc_id=npc.npc_id,
        fallback=lambda: failed,
        trace=trace,
    )
    if answer is failed:
        return _routine(item, here, objects, trace), False
    checked = [_verb(s, here, arena, objects, trace) for s in answer.steps]
    return _steps(item, answer.steps, objects, checked, npc.persona.name), True


def steps_of_itself(item: PlanItem) -> list[PlanItem]:
    """The block as steps of itself, no model asked (a call out of view, once aimed: `work._due`)."""
    return _steps(item, [Step.model_construct(activity=item.activity, duration_minutes=MAX_STEP_MINUTES)])


def _routine(item: PlanItem, verbs: Sequence[Verb], objects: Sequence[str], trace: Trace) -> list[PlanItem]:
    """The block as steps of itself (no model wrote them), doing the declared verb that fits it, if
    any (`routine_verb`), at the object it is done on and at the hour it names (else first)."""
    fitting = routine_verb(item, verbs, objects, trace)
    if fitting is None:
        return steps_of_itself(item)
    call, at = fitting
    on = call.target.rsplit(SEPARATOR, 1)[-1] if call.target != arena_of(item.address) else ""  # an object verb's
    lead = (at - item.start) // timedelta(minutes=1)
    lead = lead if lead >= MIN_STEP_MINUTES else 0
    doing = min(MAX_STEP_MINUTES, item.duration_minutes - lead)
    rest = item.duration_minutes - lead - doing
    parts = [(lead, "", None), (doing + (rest if rest < MIN_STEP_MINUTES else 0), on, call),
             (rest if rest >= MIN_STEP_MINUTES else 0, "", None)]
    parts = [p for p in parts if p[0]]
    return _steps(item, [Step.model_construct(activity=item.activity, duration_minutes=m, object=o) for m, o, _ in parts],
                  objects, [c for _, _, c in parts])


def routine_verb(item: PlanItem, verbs: Sequence[Verb], objects: Sequence[str],
                 trace: Trace) -> tuple[VerbCall, datetime] | None:
    """Without the model's steps (the embedded default, a failed call), the verb usable here that
    fits the block, and when in it: one whose description names an hour in the block ("Ring the
    bell at noon", a working day at the bakery from 9), at that hour; else one whose name or
    description shares a word with the activity ("ringing the bell": "ring_bell"), at its start.
    On the object its words name (else the first it applies to); each argument a choice's first or
    a number's least: so a routine performs a game's verbs offline too. None when none fits."""
    arena, wanted = arena_of(item.address), stems(item.activity)
    for verb in verbs:
        said = stated_times(verb.description)
        moments = [m for h, mi in said for day in (0, 1) if item.start <= (m := datetime.combine(
            item.start.date() + timedelta(days=day), time(h, mi), item.start.tzinfo)) < item.end]
        if (said and not moments) or not (moments or wanted & stems(f"{verb.name.replace('_', ' ')} {verb.description}")):
            continue
        aimed = [o for o in objects if verb.aims_at(f"{arena}{SEPARATOR}{o}")] if verb.place == "object" else [""]
        if not aimed:
            continue
        obj = next((o for o in aimed if stems(o) & wanted), aimed[0])
        arguments = {a.name: a.choices[0] if a.type == "choice" and a.choices else
                     a.minimum if a.minimum is not None else a.maximum if a.maximum is not None else 0
                     for a in verb.arguments}
        call = check_call(verb.name, arguments, obj, verbs, arena, objects)
        if isinstance(call, VerbCall):
            at = moments[0] if moments else item.start
            trace.note(f"steps: the routine's {item.activity!r} does the declared verb {call.words()} at {at:%H:%M} "
                       "(no model)")
            return call, at
    return None


def verb_variables(name: str, verbs: Sequence[Verb], arena: str, objects: Sequence[str]) -> dict[str, object]:
    """The decomposition prompt's verb parts: empty (the prompt and schema of a game without verbs)
    when none is usable here."""
    if not verbs:
        return {"verbs": "", "verb_fields": "", "verb_list": [], "argument_list": []}
    return {"verbs": f"\n\nThe game lets {name} do these things here (verbs). When a step does one, name it as the "
                     "step's verb (and its object, when it is done on one) with its arguments, else \"\":\n"
                     + menu(verbs, arena, objects),
            "verb_fields": ', "verb": "...", "arguments": [{"name": "...", "value": "..."}]',
            "verb_list": [v.name for v in verbs],
            "argument_list": sorted({a.name for v in verbs for a in v.arguments})}


def _verb(step: Step, verbs: Sequence[Verb], arena: str, objects: Sequence[str], trace: Trace) -> VerbCall | None:
    """The step's verb as declared, or None (none proposed, or refused: noted in the trace)."""
    if not step.verb:
        return None
    call = check_call(step.verb, {a.name: a.value for a in step.arguments}, step.object, verbs, arena, objects)
    if isinstance(call, str):
        trace.note(f"verb refused, plain step {step.activity!r}: {call}")
        return None
    return call


def fit_steps(wanted: Sequence[int], total: int) -> list[tuple[int, int]]:
    """(step index, minutes) filling `total` minutes exactly, each 5-15 minutes (`total` >= 5):
    the wanted durations are scaled to the total, a step left longer than 15 minutes repeats,
    the shortest steps go when there are more than fit, and rounding is evened out from the last step."""
    if total < MIN_STEP_MINUTES:
        return [(0, total)]
    scale = total / sum(max(w, 1) for w in wanted)
    pieces: list[tuple[int, float]] = []
    for index, want in enumerate(wanted):
        size = max(want, 1) * scale
        repeats = math.ceil(size / MAX_STEP_MINUTES)
        pieces += [(index, size / repeats)] * repeats
    while len(pieces) > total // MIN_STEP_MINUTES:
        pieces.remove(min(pieces, key=lambda p: p[1]))
    minutes = [min(MAX_STEP_MINUTES, max(MIN_STEP_MINUTES, round(size))) for _, size in pieces]
    missing = total - sum(minutes)
    for j in reversed(range(len(minutes))):
        change = max(MIN_STEP_MINUTES - minutes[j], min(MAX_STEP_MINUTES - minutes[j], missing))
        minutes[j] += change
        missing -= change
    return [(index, m) for (index, _), m in zip(pieces, minutes, strict=True)]


def _steps(item: PlanItem, steps: Sequence[Step], objects: Sequence[str] = (),
           verbs: Sequence[VerbCall | None] | None = None, name: str = "") -> list[PlanItem]:
    """The block's steps (`name`: whose, for their labels); a step's verb (`verbs`, by step) goes
    with its first piece only (a verb is done once)."""
    start, subtasks, asked = item.start, [], set()
    for index, minutes in fit_steps([s.duration_minutes for s in steps], item.duration_minutes):
        step, verb = steps[index], verbs[index] if verbs and index not in asked else None
        asked.add(index)
        uses = bool(step.object) and step.object in objects
        subtasks.append(PlanItem(start=start, duration_minutes=minutes, activity=as_label(step.activity, name),
                                 emoji=item.emoji, address=f"{arena_of(item.address)}:{step.object}" if uses
                                 else item.address, object_state=(step.object_state.strip() or "in use") if uses
                                 else "", verb=verb))
        start += timedelta(minutes=minutes)
    return subtasks


# --- acting on the plan ---------------------------------------------------------------------


def action_now(npc: NpcState, now: datetime, source: str) -> Action:
    """The current step of the current block (or the block, if not decomposed); asleep at home
    outside the plan's hours, until the plan resumes (at most an hour, so the NPC is asked again)."""
    name = npc.persona.name
    item = npc.plan_item_at(now)
    if item is None:
        following = [i.start for i in npc.plan if i.start > now]
        minutes = int((min(following) - now).total_seconds() // 60) if following else 60
        activity, emoji = SLEEP
        return Action(description=f"{name} is {activity}", emoji=emoji, address=npc.persona.home, start_time=now,
                      duration_minutes=max(5, min(minutes, 60)), event=(name, "is", activity), source=source)
    step = next((s for s in item.subtasks if s.start <= now < s.end), None)
    current = step or item
    activity = f"{item.activity} ({step.activity})" if step and step.activity != item.activity else item.activity
    activity = clipped(activity, MAX_LABEL)  # the game sends it back as a perception's object, which is held to it
    states = [ObjectState(address=current.address, state=current.object_state)] if current.object_state else []
    return Action(description=f"{name} is {activity}", emoji=item.emoji, address=current.address,
                  start_time=current.start, duration_minutes=current.duration_minutes, event=(name, "is", activity),
                  object_states=states, source=source, verb=current.verb)


def _runs(subtasks: Sequence[PlanItem]) -> list[tuple[str, int]]:
    """Steps as a plan memory tells them: a run of the same step once, with its minutes added (22
    times "busy at the cafe (10 min)" filled a retrieved memory's share of the prompt)."""
    return [(activity, sum(s.duration_minutes for s in run)) for activity, run in groupby(subtasks, lambda s: s.activity)]
