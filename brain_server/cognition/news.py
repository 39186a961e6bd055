"""The news an NPC holds: which news it means to pass on (`held_news`: its own event still ahead
first, the paper's seeded intent), whether a line, a memory or a plan block names it (`mentions`,
`held_at_hours`), and where a day it leaves out was said (`heard_when`). The sentence a prompt
shows it as is `news_said`'s; who has been told and where to find the rest is `gather`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import cached_property
import re

from brain_server.cognition.attention import NEWS, NEWS_WORTH, gist, news_of
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.offline.heard import (
    EVENT,
    name_matches,
    stems,
)
from brain_server.cognition.offline.naming import naming as naming_event
from brain_server.cognition.offline.said_clock import (
    EVENT_HOURS,
    clock_times,
    named_days,
    still_ahead,
)
from brain_server.cognition.places_said import named_places
from brain_server.cognition.retrieve import REFLECTION_PREDICATE
from brain_server.model.memory import OWN, MemoryKind, MemoryNode, held_as_own, unstamped
from brain_server.model.npc import DialogueLine, NpcState, PlanItem
from brain_server.model.world import arena_of


def said_it(npc_id: str, news: MemoryNode, lines: Sequence[DialogueLine], places: Iterable[str] = ()) -> bool:
    """Whether `npc_id`'s own `lines` named its `news` (`mentions`; `places`: those the speaker knows)."""
    named = naming(news, places)
    return any(line.speaker_npc_id == npc_id and named(line.text) for line in lines)


def mentions(text: str, news: MemoryNode, places: Iterable[str] = ()) -> bool:
    """Whether `text` names the news (`naming`)."""
    return naming(news, places)(text)


def naming(news: MemoryNode, places: Iterable[str] = ()) -> Callable[[str], bool]:
    """Whether a text names the news (`offline.naming`, of its gist without stamps)."""
    return naming_event(unstamped(gist(news)), news.subject, places)


def known_places(npc: NpcState, partner_home: str = "") -> list[str]:
    """The arenas an NPC knows, home first, and the partner's home (a host may invite it there)."""
    arenas = [npc.persona.home, *npc.known_addresses, *([partner_home] if partner_home else [])]
    return list(dict.fromkeys(arena_of(a) for a in arenas if a))


def hosting(name: str, news: MemoryNode) -> bool:
    """Whether the news is an event the NPC holds itself: a thought it holds as its own (`OWN`)
    naming a clock time, the kind `own_events` lays into its plan as "hosting"."""
    return held_as_own(name, news) and bool(clock_times(news.description))


def holds_it(name: str, text: str) -> bool:
    """Whether news (`text`, without who passed it on) is `name`'s own event: it begins with the
    name, says "<name>'s own", or says the name just before an intent (`EVENT`). blind22's writer
    saw a resident prompted to tell the baker his own event ("The seeded loaf has come right at
    last. Owen Pryce is going to keep the Bakehouse oven hot ..."), as one he had not told yet."""
    if not name or text.startswith(name):
        return bool(name)
    return any(_OWN.match(text, m.end()) or EVENT.match(text, m.end() + 1)
               for m in name_matches(text, name))


_OWN = re.compile(r"['\u2019]s own\b")  # "of Netta Bramall's own devising", not "'s owner"


def held_at_hours(item: PlanItem, event: MemoryNode) -> bool:
    """Whether a plan block holds `event` at its hours on the block's day: it names the event and
    overlaps the hours the event states (blind9 planned a host's lesson at its hours on the day
    before, so he stood alone in the mess room while the town was out; getting ready for it
    earlier is not holding it), or names no event at all ("going to the event") and begins when
    it does: blind25 in Cauldwell planned "going to the event" from 14:00 to 16:00, its memo having
    called the dyeing "the event", and the guest was kept at work (`workday.keep_at_work`); or
    begins when it does at a place the event names, whatever it calls it: blind29's guest in
    Cauldwell planned "going to the shirt" in the drying shed from 14:00 to 16:00 (the dyeing's
    words: "bring something pale, a shirt or a pillowcase"), and was kept at the lock."""
    if not (clocks := clock_times(event.description)):
        return False
    start = datetime.combine(item.start.date(), time(*clocks[0]), tzinfo=item.start.tzinfo)
    end = datetime.combine(item.start.date(), time(*clocks[1]), tzinfo=item.start.tzinfo) if len(clocks) > 1 else start
    if not (mentions(item.activity, event) or (item.start == start and (
            not stems(item.activity) - _ANY_EVENT or named_places([item.address], unstamped(event.description))))):
        return False
    return item.start < (end if end > start else start + timedelta(hours=EVENT_HOURS)) and start < item.end


_ANY_EVENT = stems("going attending joining the event gathering")  # what a block says of an event it names nothing of


def planned_day(news: MemoryNode, plan: Sequence[PlanItem], now: datetime) -> list[date]:
    """The day of the first of `plan`'s items not yet over that holds the news's event at its hours
    (`held_at_hours`), as a list of none or one: for news that names no day."""
    held = [i.start for i in plan if i.end > now and held_at_hours(i, news)]
    return [min(held).date()] if held else []


def day_unsaid(news: MemoryNode) -> bool:
    """Whether news names no day: its day is then looked for where it was heard (`heard_when`)."""
    return not named_days(unstamped(news.description), news.created.date())


def heard_when(news: MemoryNode, chats: Sequence[MemoryNode]) -> str:
    """For news that names no day: the line of the conversation it was kept from (its evidence,
    among `chats`) that names it and a day, else "". A memo kept "Rajiv Patel heard from Isabella
    Rodriguez about a Valentine's Day party ... and said they would go" and not when, though her
    line said "tomorrow (Saturday February 14) from 17:00 to 19:00"; its news, said with "(known
    since Friday February 13)", blind29 told on as Friday's party (the Ville in view, seed 0)."""
    source = next((chat for chat in chats if chat.id in news.evidence_ids), None)
    if source is None:
        return ""
    named = naming(news)
    return next((line for line in source.description.split("\n")[1:]
                 if named_days(line, source.created.date()) and named(line)), "")


async def held_news(npc_id: str, now: datetime, stream: MemoryStream,
                    thoughts: Sequence[MemoryNode] | None = None) -> MemoryNode | None:
    """The news the NPC means to pass on: its own event still ahead first (a thought it holds as
    its own, `OWN`, naming a day not yet over: the paper's seeded intent, news whatever importance
    the model rated it: Korrin's host, his lesson rated 3, told nobody), then its news of the last
    day (`attention.news_of`), else its most important recent thought that names a day still ahead
    (a host's event stays news until its day, not only the day it was thought of), news told it as
    news (`NEWS`, `hearsay`) whatever its importance: a rating says what the event means to the
    hearer, not whether it is worth telling (blind22 in Korrin: a foreman who could not go rated the
    lesson 4, and his prompt at dinner with his wife, who had not heard, said he had no news to pass
    on). Hearsay of an event the NPC holds itself is not news to it, before its hours or after
    (blind31's writer saw a host's prompt, once his lesson was over, give him as news on his mind
    "Lotta Franz told Teodor Marek: Agata Wilk heard from Teodor Marek about ..."; it named no day,
    so it was never over). `thoughts`: its latest thoughts, if already read."""
    mine = thoughts if thoughts is not None else await stream.latest_thoughts(npc_id)
    if own_all := [n for n in mine if n.predicate == OWN]:
        if own := [n for n in own_all if n.created <= now and still_ahead(gist(n), now)]:
            return max(own, key=lambda n: (n.importance, n.created))
        names_own = [naming(o) for o in own_all]
        mine = [n for n in mine if n.predicate == OWN or not any(named(n.description) for named in names_own)]
    ahead = [n for n in mine if n.created <= now and still_ahead(gist(n), now)]
    if (news := await news_of(stream, npc_id, now, least=NEWS_WORTH, thoughts=mine)) is not None:
        return news
    return max((n for n in ahead if (n.importance >= NEWS_WORTH or NEWS in n.keywords) and n.predicate != REFLECTION_PREDICATE),
               key=lambda n: (n.importance, n.created), default=None)


@dataclass(frozen=True)
class Held:
    """A speaker's news as a conversation's prompts give it: the sentence that states it (`line`,
    `said_news`) and, so that the news is stated once, which of the speaker's memories say it
    again (`restates`)."""

    line: str = ""
    news: MemoryNode | None = None
    places: tuple[str, ...] = ()

    def restates(self, memory: MemoryNode) -> bool:
        """Whether `memory` is one of the speaker's thoughts that says its news again: the thought
        itself, a memo of telling it, a reflection on it (`mentions`). Korrin's host (blind19), shown
        his memo "told Ivo Kranjc about the event ... from 15:00 to 16:00" (the model's memo, its hour
        wrong) beside the news line, told the memo next, not the lesson, and his next two listeners
        never heard what it was. Conversations stay: they say whom it was told and how."""
        return self.news is not None and memory.kind == MemoryKind.THOUGHT and (
            memory.id == self.news.id or self._named(memory.description))

    @cached_property
    def _named(self) -> Callable[[str], bool]:
        return naming(self.news, self.places) if self.news is not None else lambda text: False


NO_NEWS = Held()  # the player's, or a speaker's whose news is not asked


def teller_first(told: Sequence[Held]) -> list[int]:
    """The order to list speakers in a conversation told in one call (by their news, `told`, in the
    order they came): as they came, but the first with news to pass on first when the one who began
    has none. Listed second, blind25 left its news untold in a third of such conversations (the Ville
    out of view, ten seeds: 22 of 34, against 74 of 84 listed first); in view each speaker's own turn
    states its news."""
    first = next((i for i, t in enumerate(told) if t.news is not None), 0) if told and told[0].news is None else 0
    return [first, *(i for i in range(len(told)) if i != first)]
