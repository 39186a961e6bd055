"""An NPC as the brain keeps it: persona, spatial knowledge, today's plan and current action."""

from __future__ import annotations

from copy import deepcopy
from datetime import date, datetime, timedelta
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.model.verbs import Verb, VerbCall
from brain_server.model.world import arena_of, without_addresses

_SLEEP = re.compile(r"\b(sleep|sleeping|asleep|nap|napping)\b|\bgo(es|ing)? to bed\b", re.IGNORECASE)


def is_sleep(activity: str) -> bool:
    """Whether an activity is sleeping: the one test the plan, the mind and the lab share."""
    return bool(_SLEEP.search(activity))


_FIELD_NAME = re.compile(r"activity\s*[:-]\s*", re.IGNORECASE)
# After the NPC's own name: "is" or a colon. Matched after the name by string, not a pattern made
# from the name: a thousand NPCs' patterns overflowed re's cache, every label compiled one again.
_IS_OR_COLON = re.compile(r"\s+is\s+|\s*:\s*")
_CLOCK = (r"(?:\d{1,2}(?::\d{2})?\s*[ap]\.?\s*m\.?|\d{1,2}:\d{2}|\d{1,2}\s+o['\u2019]clock"
          r"|(?:12\s+)?(?:noon|midnight)|midday)")
# Hours an activity says of itself, at its end: the block it labels gives its own.
_OWN_HOURS = re.compile(rf"(?:,?\s+(?:from|between)\s+{_CLOCK}\s+(?:to|until|till|and)\s+{_CLOCK}"
                        rf"|,?\s+(?:to|until|till|at)\s+{_CLOCK})+\s*$", re.IGNORECASE)


def as_label(activity: str, name: str = "", verbs: frozenset[str] = frozenset()) -> str:
    """A model's activity as a plan item's label, which the game shows after the NPC's name and "is":
    without an address copied into it (`without_addresses`), the schema's field name before it, or
    the NPC's own name and "is" ("Osric Fennell is Activity: Osric Fennell is replanking an old
    working boat", blind22's day plan copying its status into a block); one that begins with a verb
    of the persona's own words as they say it (`Persona.verbs`: "keeps the shop", copied from "keeps
    the shop from 8 am to 6 pm") in its "-ing" form: blind26's day plans showed "Bel Strachan is keeps
    the shop"; and without hours it says of itself at its end ("working the mill to 3 pm"), which the
    block's own hours say: split by a lunch, "06:00-12:00 working the mill to 3 pm" was shown in 203
    prompts (blind35's writer)."""
    label = without_addresses(activity)
    label = label[m.end():] if (m := _FIELD_NAME.match(label)) else label
    for said in dict.fromkeys([name, name.split()[0]] if name.strip() else []):
        if label.startswith(said) and (m := _IS_OR_COLON.match(label, len(said))):
            label = label[m.end():]
            break
    label = _without_self(label.strip(), name.strip())
    label = _OWN_HOURS.sub("", label) or label
    first, _, rest = label.partition(" ")
    if first in verbs:
        label = f"{doing_form(first)} {rest}".strip()
    return label or activity.strip()


def _without_self(label: str, name: str) -> str:
    """A label that names the NPC itself as the one it is with, calls on or talks to, without it:
    blind28's re-plans laid "talking with Cosmo Lindqvist" in Cosmo Lindqvist's own plan (56 prompts
    of one capture said "Cosmo Lindqvist is talking with Cosmo Lindqvist"). Others named stay."""
    if not name or name not in label:
        return label
    said = re.escape(name)
    label = re.sub(rf"(?:,\s*|\s+and\s+){said}\b|\b{said}(?:,\s*|\s+and\s+)", "", label)
    return re.sub(rf"\s+(?:with|on|to|for|visiting)\s+{said}\b", "", label).strip()


def doing_form(verb: str) -> str:
    """A verb said of someone ("keeps", "runs", "teaches", "carries", "writes") as "-ing" (the
    verbs `Persona.verbs` keeps: none of "is" and "has")."""
    if verb.endswith("ies") and len(verb) > 4:
        return f"{verb[:-3]}ying"
    base = verb[:-2] if re.search(r"(?:ch|sh|x|ss|zz|[^aeiou]o)es$", verb) else verb[:-1]
    if base.endswith("ie"):
        return f"{base[:-2]}ying"
    if base.endswith("e") and not base.endswith(("ee", "ye", "oe")):
        return f"{base[:-1]}ing"
    if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", base):  # one short syllable: "runs", "sits", "shops"
        return f"{base}{base[-1]}ing"
    return f"{base}ing"


_IMMUTABLE = frozenset({str, int, float, bool, type(None), datetime, date, timedelta})


class _DeepCopied(BaseModel):
    """A deep copy (`model_copy(deep=True)`, `copy.deepcopy`) as pydantic's, field by field, that
    shares what cannot change (strings, numbers, times; the frozen plan items, as their own
    `__deepcopy__` does) and copies a list or dict of only those with one call instead of walking
    each element through `deepcopy`: the mind copies an NPC before each change (a Decide's
    perceptions merged, each result of the model), ~80 us each at 1,000 NPCs, most of it spent
    re-making equal datetimes. Anything else is deep-copied as before; aliasing is kept (`memo`)."""

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Any:
        memo = {} if memo is None else memo
        copied = self.__copy__()
        memo[id(self)] = copied
        fields = copied.__dict__
        for name, value in fields.items():
            fields[name] = _deep(value, memo)
        if self.__pydantic_extra__ is not None:
            object.__setattr__(copied, "__pydantic_extra__", deepcopy(self.__pydantic_extra__, memo))
        if copied.__pydantic_private__ is not None:
            object.__setattr__(copied, "__pydantic_private__", deepcopy(copied.__pydantic_private__, memo))
        return copied


def _deep(value: Any, memo: dict[int, Any]) -> Any:
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    if (kept := memo.get(id(value))) is not None:
        return kept
    if kind is list and all(type(v) in _IMMUTABLE or type(v) is PlanItem for v in value):
        copied: Any = list(value)
    elif kind is dict and all(type(k) in _IMMUTABLE and type(v) in _IMMUTABLE for k, v in value.items()):
        copied = dict(value)
    else:
        return deepcopy(value, memo)
    memo[id(value)] = copied
    memo.setdefault(id(memo), []).append(value)  # kept alive while the memo is, as deepcopy does
    return copied


class Persona(_DeepCopied):
    name: str
    age: int = 0
    traits: list[str] = Field(default_factory=list)
    identity: str = ""
    lifestyle: str = ""
    currently: str = ""
    home: str = ""
    known_areas: list[str] = Field(default_factory=list)
    workplace: str = ""  # the arena the game says it works at ("" : read from its words, `routine.workplace`)

    def own_places(self) -> list[str]:
        """The arenas that are the NPC's own whatever its known areas say: its home, and its
        workplace if the game declares one (known from spawn, never private to it)."""
        return [arena_of(a) for a in (self.home, self.workplace) if a]

    @property
    def verbs(self) -> frozenset[str]:
        """The verbs its own words say of it ("keeps", "runs"): the first word, ending in "s", of each
        clause of its lifestyle ("wakes up at 6 am, keeps the shop from 8 am to 6 pm, and goes to
        bed at 11 pm") and the word after its name or a pronoun in its identity and lifestyle."""
        first = self.name.split()[0] if self.name.strip() else ""
        after = "|".join(re.escape(w) for w in (self.name, first, "he", "she", "they", "He", "She", "They") if w)
        clauses = [c.strip().removeprefix("and ").strip() for c in re.split(r"[,;.]", self.lifestyle)]
        said = {c.split()[0] for c in clauses if c and c.split()[0].islower()}
        said |= set(re.findall(rf"(?:^|\b(?:{after})\s+)(?:also\s+|still\s+)?([a-z]+s)\b",
                               f"{self.identity} {self.lifestyle}"))
        return frozenset(w for w in said if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")))

    def summary(self) -> str:
        """The paper's identity stable set, as prompts see it."""
        lines = [f"Name: {self.name}", f"Age: {self.age}"]
        if self.traits:
            lines.append(f"Innate traits: {', '.join(self.traits)}")
        for label, text in (("Identity", self.identity), ("Lifestyle", self.lifestyle), ("Currently", self.currently)):
            if text:
                lines.append(f"{label}: {text}")
        return "\n".join(lines)


class Perception(BaseModel):
    """How an NPC perceives (the paper's vision radius, attention bandwidth and retention)."""

    vision_radius: float = 8.0
    attention_bandwidth: int = 8
    retention: int = 8


class ObjectState(BaseModel):
    address: str
    state: str


class DialogueLine(BaseModel):
    speaker_npc_id: str
    speaker_name: str
    text: str


class Action(_DeepCopied):
    description: str
    emoji: str = ""
    address: str
    start_time: datetime
    duration_minutes: int
    object_states: list[ObjectState] = Field(default_factory=list)
    dialogue: list[DialogueLine] = Field(default_factory=list)
    chatting_with: str = ""
    # The action as an event others perceive (subject, predicate, object).
    event: tuple[str, str, str] = ("", "", "")
    source: str = "plan"  # plan | new_plan | fallback | provisional
    # A declared game verb to perform with this action, validated (brain_server/model/verbs.py).
    verb: VerbCall | None = None

    @property
    def end_time(self) -> datetime:
        return self.start_time + timedelta(minutes=self.duration_minutes)


class PlanItem(BaseModel):
    """One block of the day plan (hour level) or of its 5-15 minute decomposition. Immutable (a
    change is a `model_copy(update=...)`), so that a copy of the NPC shares its plan's items: the
    mind works on copies, and the copied items with their subtasks were two fifths of the young
    objects the collector walked at 1,000 NPCs."""

    model_config = ConfigDict(frozen=True)

    start: datetime
    duration_minutes: int
    activity: str
    emoji: str = ""
    address: str
    # The state of the object at `address` while this is done, e.g. "brewing coffee".
    object_state: str = ""
    verb: VerbCall | None = None
    # Happens once (a promise, a party, a re-plan's reaction, the tail of last night): never
    # replayed as routine by a fallback plan or a provisional action.
    one_off: bool = False
    # 5-15 minute steps, filled shortly before the block starts (never for sleep).
    subtasks: list[PlanItem] = Field(default_factory=list)

    @property
    def end(self) -> datetime:
        return self.start + timedelta(minutes=self.duration_minutes)

    @property
    def key(self) -> tuple[datetime, int, str, str]:
        """The block as planned, its steps aside: one moved or changed by a re-plan is another block."""
        return self.start, self.duration_minutes, self.activity, self.address

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> PlanItem:
        """Shared by a deep copy of what holds it; copied only when asked for on its own."""
        return self if memo is not None else super().__deepcopy__(memo)


class NpcState(_DeepCopied):
    """Everything needed to continue an NPC after a restart; stored as a record."""

    npc_id: str
    world_name: str
    persona: Persona
    # Raised by every write of this record: replicas sharing a store reload a copy that is behind.
    revision: int = 0
    perception: Perception = Field(default_factory=Perception)
    address: str = ""
    # Spatial memory: addresses this NPC knows (arenas and objects), grown by what it perceives.
    known_addresses: list[str] = Field(default_factory=list)
    # Reflection: importance summed since the last reflection, how many it has made, and when the last began.
    importance_since_reflection: int = 0
    reflection_count: int = 0
    last_reflection: datetime | None = None
    # Observations stored with a provisional importance, to be rated together in one call.
    unrated_ids: list[str] = Field(default_factory=list)
    unrated_since: datetime | None = None
    # Planning: today's broad strokes, its hour-level blocks (with their decompositions).
    plan_day: date | None = None
    wake_up_hour: int | None = None
    day_outline: list[str] = Field(default_factory=list)
    plan: list[PlanItem] = Field(default_factory=list)
    plan_memory_id: str = ""
    # Plan items promised for a later day (an invitation accepted for tomorrow at 5 pm), placed into
    # that day's plan when it is made (`commit`, `keep_commitments`).
    commitments: list[PlanItem] = Field(default_factory=list)
    # Conversations: when this NPC last chatted with each partner (re-chat cooldown).
    last_chat: dict[str, datetime] = Field(default_factory=dict)
    # Reactions: when this NPC last considered reacting to each person (one thought per sighting).
    last_reaction: dict[str, datetime] = Field(default_factory=dict)
    action: Action | None = None
    # Whether the player can see it (DecideRequest.attention): out of view it thinks coarser.
    in_view: bool = True
    # Whether it thinks as a crowd (cognition/attention.py): no LLM call until something concerns it.
    crowd: bool = False
    # The game's verbs only this NPC may use, besides its world's.
    verbs: list[Verb] = Field(default_factory=list)
    # The persona's "currently" as the game last sent it (SpawnNpc): the brain revises its own from
    # day 2 on, so one sent unlike this is the developer's edit (`personas.currently`). None: a
    # record from before it was kept.
    sent_currently: str | None = None

    def plan_item_at(self, when: datetime) -> PlanItem | None:
        return next((item for item in self.plan if item.start <= when < item.end), None)

    def insert_plan_item(self, new: PlanItem) -> None:
        """Put `new` into the day's timeline, trimming or splitting the blocks it overlaps
        (an accepted invitation becomes a plan item without another LLM call)."""
        timeline: list[PlanItem] = []
        for item in self.plan:
            if item.end <= new.start or item.start >= new.end:
                timeline.append(item)
                continue
            if item.start < new.start:
                timeline.append(item.model_copy(update={
                    "duration_minutes": int((new.start - item.start).total_seconds() // 60), "subtasks": []}))
            if item.end > new.end:
                timeline.append(item.model_copy(update={
                    "start": new.end, "duration_minutes": int((item.end - new.end).total_seconds() // 60),
                    "subtasks": []}))
        self.plan = sorted([*timeline, new], key=lambda item: item.start)

    def commit(self, item: PlanItem) -> None:
        """A promised plan item (one-off): into the plan if it is for the planned day, else kept for its
        day, once: a host promised her own event again (a memo of her own invitation) had it listed
        twice in every prompt's plans (blind29's writer)."""
        item = item.model_copy(update={"one_off": True})
        if item.start.date() == self.plan_day:
            self.insert_plan_item(item)
        elif all(kept.key != item.key for kept in self.commitments):
            self.commitments = sorted([*self.commitments, item], key=lambda i: i.start)

    def keep_commitments(self, day: date) -> list[PlanItem]:
        """Once `day` is planned: its promised items go into the plan (those of days gone are
        dropped); the items placed."""
        due = [i for i in self.commitments if i.start.date() == day]
        for item in due:
            self.insert_plan_item(item)
        self.commitments = [i for i in self.commitments if i.start.date() > day]
        return due

    def is_asleep(self) -> bool:
        return self.action is not None and is_sleep(self.action.description)

    def is_chatting(self, now: datetime) -> bool:
        return self.action is not None and bool(self.action.chatting_with) and now < self.action.end_time
