"""Attention levels: how much each NPC thinks, by how much of it the player can notice.

    in view      the paper's detail: 5-15 minute steps, conversations written turn by turn
    out of view  hour blocks, a conversation told in one call, longer rating batches (work.py)
    crowd        no LLM call at all: the plan it has, else what it promised for now, else its
                 routine (routine.py); what it perceives is stored, unrated (its provisional
                 importance stands); meeting another crowd NPC, each tells the other its most
                 important news (`hearsay.meet`: a memory copied, no call)

The game asks for a level with each Decide (DecideRequest.attention: a crowd is the NPCs far
from the player). The brain moves NPCs between the levels as attention moves:

- promoted: a crowd NPC that something concerns thinks out of view for CROWD_CONCERN_HOLD_MINUTES
  of game time: a person in sight who is no NPC of the world (the player), an action aimed at it (its
  name in another's event), a whisper, the player's talk, a conversation with an NPC that thinks
  (news told by someone who thinks it over). News passed crowd to crowd promotes nobody: one
  rumour would wake the whole crowd.
- demoted: out-of-view NPCs think as a crowd while the town asks for more than the endpoint
  serves: beyond NPC_BRAIN_LLM_CALLS_PER_HOUR / CROWD_CALLS_PER_THINKING_HOUR thinking NPCs (those
  in view counted first), and while the NPCs' own work waiting stays beyond CROWD_BACKLOG_PER_SLOT
  pieces per endpoint slot, in the scheduler's queue or before it (a brain too busy to reach its
  endpoint falls behind as surely as a slow endpoint), so the share of out-of-view NPCs that think
  shrinks by a fifth a second, and grows back by a tenth once little waits. The three are
  settings (config.py). The least recently concerned are demoted first: the game's own `crowd`
  says who is far, the brain only knows who mattered lately. In view is never demoted.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime, timedelta
import math
import re
import time

from brain_server.cognition.decide import NEVER, concerned_now, crowd
from brain_server.cognition.memory_stream import MEMO_OF, MemoryStream
from brain_server.cognition.offline.heard import RELAYED, unrelayed
from brain_server.cognition.offline.said_clock import passed
from brain_server.cognition.perceive import PerceivedEvent
from brain_server.cognition.react import is_thing
from brain_server.cognition.retrieve import REFLECTION_PREDICATE
from brain_server.config import Settings
from brain_server.llm.client import LLM
from brain_server.llm.scheduler import Priority
from brain_server.model.memory import MemoryNode
from brain_server.model.npc import NpcState

REBALANCE_S = 1.0  # the levels are weighed at most once a wall second
NEWS_WINDOW = timedelta(days=1)  # what an NPC tells at a meeting: its thoughts of the last game day
NEWS = "news"  # the keyword of a memory heard at a meeting
# The teller's own words left at the end of news passed on ("... from 5 pm, and I'd love you to come
# along!"): in another's mouth they read as the teller's invitation (blind13's writer), and "..., but I
# can't make it" (blind31's memos) as the hearer's decline.
_OWN_WORDS = re.compile(r"(?:,\s+(?:and|but)|[.!?;])\s+I(?:'d|’d|'ll|’ll|'m|’m|\s+would|\s+will|\s+hope|\s+want"
                        r"|\s+can['’]?t|\s+cannot|\s+won['’]t)?\s.*$"
                        r"|\s+(?:and|but)\s+I\s+(?:said|told|agreed|promised|replied|answered)\b.*$", re.DOTALL)
# A memo's first person asked along ("Ilsa Merrow invited me to ..."): its holder, by name, in a line about them.
_ASKED_ME = re.compile(r"\b(invited|asked)\s+me\b")
NEWS_WORTH = 5  # a thought of the last day this important (of 10) is news its holder means to tell in a conversation


class Levels:
    """Who thinks at which level. Read from any thread (`crowd`: dict reads, a frozenset replaced
    whole); changed on the mind's loop. Weighed whole (sorted by concern) at most once a wall
    second; in between, an NPC newly out of view beyond the limit joins the demoted (never
    concerned, it is among the least concerned), so a town arriving at once costs no sort each."""

    def __init__(self, llm: LLM, settings: Settings | None = None, *, clock: Callable[[], float] = time.monotonic,
                 pending: Callable[[], int] = lambda: 0, changed: Callable[[str], None] = lambda npc_id: None) -> None:
        self.llm = llm
        self._changed = changed  # an NPC's standing changed (the mind publishes its Decides' view again)
        self._pending = pending  # the NPCs' own work under way, wherever it waits (the mind's runtimes)
        self.settings = settings or Settings()
        self._hold = timedelta(minutes=self.settings.crowd_concern_hold_minutes)
        self._clock = clock
        self._concerned: dict[str, datetime] = {}  # npc_id -> game time of its latest concern
        self._thinking: dict[str, bool] = {}  # NPCs the game does not call a crowd -> in view
        self._in_view = 0  # of them, in view
        self._demoted: frozenset[str] = frozenset()
        self._share = 1.0  # of the out-of-view NPCs, the share that may think (the backlog's rule)
        self._weighed = -math.inf

    def crowd(self, npc_id: str, now: datetime, *, in_view: bool, asked: bool) -> bool:
        """Whether the NPC thinks as a crowd now: asked for (or demoted) and not concerned lately."""
        return crowd(*self.standing(npc_id), now, in_view=in_view, asked=asked)

    def standing(self, npc_id: str) -> tuple[datetime, timedelta, bool]:
        """What `crowd` reads of the NPC: its latest concern, the hold, whether it is demoted."""
        return self._concerned.get(npc_id, NEVER), self._hold, npc_id in self._demoted

    def concerned(self, npc_id: str, now: datetime) -> bool:
        return concerned_now(self._concerned.get(npc_id, NEVER), self._hold, now)

    def concern(self, npc_id: str, now: datetime) -> None:
        """Something concerns the NPC: it thinks (out of view at least) for the concern hold."""
        self._concerned[npc_id] = max(now, self._concerned.get(npc_id, NEVER))
        self._demote(self._demoted - {npc_id})
        self._changed(npc_id)

    def asked(self, npc_id: str, *, in_view: bool, crowd: bool) -> None:
        """The level a Decide asked for (`crowd`: the game's), then the levels weighed."""
        before = self._thinking.pop(npc_id, None)
        self._in_view -= before is True
        if not crowd:
            self._thinking[npc_id] = in_view
            self._in_view += in_view
        if before is not False and not crowd and not in_view and len(self._thinking) - self._in_view > self._limit():
            self._demote(self._demoted | {npc_id})  # newly out of view, beyond the limit
        elif before is False and (crowd or in_view) and npc_id in self._demoted:
            self._demote(self._demoted - {npc_id})
        self.rebalance()

    def forget(self, npc_id: str) -> None:
        self._concerned.pop(npc_id, None)
        self._in_view -= self._thinking.pop(npc_id, None) is True
        self._demote(self._demoted - {npc_id})

    def rebalance(self) -> None:
        """At most once a wall second: demote the least recently concerned out-of-view NPCs beyond
        what the budget and the endpoint's throughput allow (module docstring), promote the others."""
        wall = self._clock()
        if wall - self._weighed < REBALANCE_S:
            return
        self._weighed = wall
        slots = self.llm.scheduler.slots
        # Work waits for a slot, or before it for a quiet moment between the game's Decides (foreground.py).
        waiting = max(sum(q.waiting for q in self.llm.scheduler.report() if q.priority is not Priority.PLAYER),
                      self._pending() - slots)
        if waiting > self.settings.crowd_backlog_per_slot * slots:
            self._share *= 0.8
        elif waiting <= slots:
            self._share = min(1.0, self._share + 0.1)
        limit = self._limit()
        if limit >= len(self._thinking) - self._in_view:
            self._demote(frozenset())
            return
        out = sorted((n for n, seen in self._thinking.items() if not seen),
                     key=lambda n: (-self._concerned.get(n, NEVER).timestamp(), n))
        self._demote(frozenset(out[limit:]))

    def _demote(self, demoted: frozenset[str]) -> None:
        """The demoted NPCs replaced whole (read from any thread); those whose standing changed told."""
        before, self._demoted = self._demoted, demoted
        for npc_id in before ^ demoted:
            self._changed(npc_id)

    def _limit(self) -> int:
        """How many out-of-view NPCs may think: the backlog's share, within the call budget."""
        out = len(self._thinking) - self._in_view
        limit = math.ceil(self._share * out)
        if per_hour := self.llm.allowance.per_hour:
            limit = min(limit, max(0, int(per_hour / self.settings.crowd_calls_per_thinking_hour) - self._in_view))
        return limit


def concerns(npc: NpcState, events: Sequence[PerceivedEvent], people: Collection[str]) -> str:
    """Why what the NPC sees concerns it, '' when nothing does: a person who is no NPC of the
    world (the player), or another's action naming it."""
    name = npc.persona.name
    for event in events:
        if event.subject == name:
            continue
        if name.lower() in f"{event.object} {event.description}".lower():
            return f"{event.description!r} concerns it"
        if not is_thing(event.subject) and event.subject not in people:
            return f"{event.subject} (no NPC: the player) in sight"
    return ""


async def news_of(stream: MemoryStream, npc_id: str, now: datetime, *, heard: Collection[str] = (),
                  least: int = 0, thoughts: Sequence[MemoryNode] | None = None) -> MemoryNode | None:
    """What the NPC has to tell: its most important thought of the last game day (NEWS_WINDOW, among
    its newest, `latest_thoughts`), of importance `least` at least, whose gist is none of `heard`. Its
    reflections are not news: an insight ("Agnes is devoted to the green", or a model's "Agnes learned
    that Agnes is busy at the green") was offered as news to pass on, with what, when and where.
    Of two as important, news as it was told (`NEWS`) before the NPC's own memo of the talk. A memo of
    someone telling someone ("Maria Lopez told Arthur Burton about the event on Saturday ..."), its
    own or told it as news, is a record of news passed on, not the news: while the NPC holds news as
    told that is not one, that comes first (blind25 in the Ville, out of view: such memos, rated
    above the news heard, were told on as "Ryan told Arthur about the event", and two tellings on
    the party's name was lost). News of an event that is over is none (`said_clock.passed`).
    `thoughts`: its latest thoughts, if already read."""
    mine = thoughts if thoughts is not None else await stream.latest_thoughts(npc_id)
    fresh = [(n, read[1]) for n in mine
             if now - NEWS_WINDOW <= n.created <= now and n.importance >= least
             and n.predicate != REFLECTION_PREDICATE and (read := _read(n))[0] not in heard
             and not passed(read[0], n.created.date(), now)]
    if any(NEWS in n.keywords and not record for n, record in fresh):
        fresh = [(n, record) for n, record in fresh if not record]
    return max((n for n, _ in fresh), key=lambda n: (n.importance, NEWS in n.keywords, n.created), default=None)


# a record of someone passing news on ("Maria Lopez told Arthur Burton about the event on ...", "Nell
# Hebblethwaite told Silas Pengelly, Jory Hebblethwaite about ..."), not the news; a memo written from
# its holder's point of view too ("Ayesha told me about a Valentine's Day party ...": blind31's, in
# 30-58% of the news lines it was shown, passed on as "Maria Lopez told Klaus Mueller: Ayesha told me ...")
_TELLING = re.compile(r"(?:[A-Z][\w'’-]*\s+){1,4}told\s+(?:(?:[A-Z][\w'’-]*|and|me|us),?\s+){1,12}about\s+")
# and "Stan Horak passed on news of a time capsule ... to Dario Mendes." (blind29's writer saw it held
# as the news on a resident's mind, passed on, with nothing of the event left but its garbled name)
_PASSED_ON = re.compile(r"(?:[A-Z][\w'’-]*\s+){1,4}passed\s+on\s+(?:the\s+)?news\s+(?:of|about)\s+")
_TO_WHOM = re.compile(r"\s+to\s+(?:(?:[A-Z][\w'’-]*|and),?\s*){1,12}\.?$")


def gist(node: MemoryNode) -> str:
    """What a thought says, without who told it ("Klaus told Maria: <gist>"), however many times it
    was passed on: news retold from a memo of it came out nested ("Jonah told Tomas: Jonah heard
    from Tomas and Ines: Ines told Tomas: Ines wants to ..."), and each teller nested it again;
    without a record's lead of who told whom about it ("Aldous Penhale told Owain Pengelly about the
    shortwave evening on ...": the evening is the news; blind27's writer read the holder's news as
    "I told Owain"); and without the words a teller added in the first person (`_OWN_WORDS`), nor, in a
    memo, its holder's own answer ("... at 7pm and I said I would go": blind37's writer, 173 prompts)."""
    return _read(node)[0]


def _read(node: MemoryNode) -> tuple[str, bool]:
    """A thought's `gist`, and whether it is a record of someone telling someone (`_TELLING`, `_PASSED_ON`), from
    one reading of its words."""
    told = node.description.split(": ", 1)[-1] if NEWS in node.keywords else node.description
    text = unrelayed(told)
    if telling := _TELLING.match(text):
        text = text[telling.end():]
    elif telling := _PASSED_ON.match(text):
        text = _TO_WHOM.sub("", text[telling.end():])
    memo = node.object.startswith(MEMO_OF)
    if memo:
        text = _ASKED_ME.sub(rf"\1 {node.subject}", text)
    return (_OWN_WORDS.sub("", text) if NEWS in node.keywords or text != told or memo else text), telling is not None


def as_told(node: MemoryNode) -> str:
    """The news as the NPC holds it: who told it, if it says so, then its `gist`."""
    lead = RELAYED.match(node.description)
    return f"{node.description[:lead.end()]}{gist(node)}" if lead else gist(node)
