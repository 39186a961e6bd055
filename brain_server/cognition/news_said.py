"""The sentence a conversation, reaction or plan prompt shows an NPC's news as (`about`, `said_news`):
said to be an event the NPC hosts when it is one, by what it is, with its day, hours and place worked
out against the prompt's clock (`when`); and what one told it keeps of it (`told_of`). Which news an
NPC holds is `news`'s.
"""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from datetime import date, datetime
import re

from brain_server.cognition.attention import as_told, gist
from brain_server.cognition.gist import room_told, room_unsaid
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.news import Held, day_unsaid, heard_when, held_news, hosting, planned_day
from brain_server.cognition.offline.happens import (
    after_when,
    before_when,
    event_named,
    first_statement,
    what_clause,
    who_may_come,
)
from brain_server.cognition.offline.heard import (
    RELAYED,
    SENTENCE,
    what_before_where,
    what_there_is,
)
from brain_server.cognition.offline.kept_days import day_named, redated
from brain_server.cognition.offline.said_clock import (
    DATED,
    clock_said,
    clock_times,
    event_hours,
    hours_said,
    named_days,
    says_when,
)
from brain_server.cognition.offline.wording import place_said
from brain_server.cognition.places_said import named_place
from brain_server.model.memory import MemoryNode, unstamped
from brain_server.model.npc import NpcState, PlanItem
from brain_server.model.world import place_names


def about(name: str, news: MemoryNode, text: str, now: datetime, places: Sequence[str] = (),
          chats: Sequence[MemoryNode] = (), plan: Sequence[PlanItem] = ()) -> str:
    """The news (`text`: its gist, or its whole description) as a prompt's sentence goes on after
    "<name> has news ...": said to be an event the NPC hosts when it is one (a model read "wants
    to teach a lesson ... on January 21" as no event to speak of, while a whisper's party or a
    plan's "hosting: ..." it told), without stamps, and with when and where it is (`when`). An
    event it hosts is said by what it is (`what_clause`), not by the whole thought: blind18's writer
    read the news to tell closing with the host's aim, and in Brinnick ("A flotsam auction in the
    boat hall ..., on October 15 ...: Sorcha Gault is getting it up herself, ... and she means to
    tell everyone she runs into") two blind models told "I mean to tell everyone she runs into"
    and not the auction; by what there will be, not "there will be ..." (`what_there_is`); and by
    who may come, where the thought says it after (`who_may_come`), in the same sentence: blind21
    told what came before a semicolon, and no more. Said as the host holding it by its name
    (`_by_host`), it keeps ", an event they are hosting" before it: taken out, blind27 and blind28
    still told Cauldwell's dyeing as "an event", and with blind29 fewer of Brinnick's invited came. The whole thought stays in its status and
    memories. News heard that opens with when it is ("Tomorrow (Thursday November 19), between two
    and four in the afternoon, there will be indigo dyeing ...": `after_when`) is said so too, after
    whoever passed it on and how the event came about (`before_when`), where `when` says the day:
    blind22 passed it on in Cauldwell as "Netta Bramall is going to Tomorrow", and, told it from
    what there will be with the rest of the thought after, as "someone will tell whoever she runs
    into" (its last sentence); nobody it told heard what there would be. `chats`: the NPC's newest
    conversations, where a room the news leaves out may be said (`when`), and `plan` its plan items,
    where a day it leaves out may be (`when`). A day the news said
    from when it was kept is said from `now` (`redated`): on the party's day blind31 was shown
    "... a Valentine's Day party tomorrow (Saturday February 14) ... (that is today, Saturday
    February 14, ...)" in a third of the Ville's news lines."""
    said = redated(_WHEN_SAID.sub("", unstamped(text)), now.date()).rstrip(".")
    hosted, dated = hosting(name, news), when(news, now, places, chats, plan)
    said = _TOLD_WHEN.sub("", said) if dated else said
    if hosted:
        said = _hosted(name, said, text)
    else:
        cut = lead.end() if (lead := RELAYED.match(said)) else 0
        if dated and after_when(said[cut:]) != said[cut:]:
            said = said[:cut] + " ".join(filter(None, (before_when(said[cut:]), what_it_is(said[cut:]))))
        else:
            said = said[:cut] + _what_first(said[cut:])
    said = _when_after_it(_said_once(said, dated, news.created.date()), dated) if dated else said + since(news, now)
    # its callers end the sentence: a stop of its own made "... (that is tomorrow, ...).." (blind35's writer)
    return f"{', an event they are hosting' if hosted else ''}: {said.rstrip().removesuffix('.')}"


def _hosted(name: str, said: str, text: str) -> str:
    """An event `name` hosts (its thought `text`, as the prompt reads it: `said`) said by what it is,
    after the statements before it where it speaks of what they said ("it", "them": "The boatyard's
    old crane comes down on Thursday. Before it does, she will climb it ...")."""
    what = _by_host(name, _named(name, what_it_is(said)), event_named(text.removeprefix(name).strip()))
    before = before_when(said) if _BACK.search(what) else ""
    return f"{before.rstrip('.')}. {what}" if before else what


# What the host does to what was said before: "will climb it", "she'll lay it out" (in its first clause).
_BACK = re.compile(r"^[^,;]*?\b(?:will|['\u2019]ll|to|can)\s+\w+\s+(?:it|them)\b", re.IGNORECASE)


def told_of(name: str, news: MemoryNode, places: Sequence[str] = (), plan: Sequence[PlanItem] = (),
            now: datetime | None = None) -> str:
    """What one told by `name` keeps of its `news`: the gist, and of an event `name` hosts what its
    host's prompts say it is (`about`), with its day, hours and place (among `places`, `name`'s) where
    that leaves them out, not the host's whole thought: Brinnick's listeners kept
    "Sorcha Gault told Niall Corran: A flotsam auction ...: Sorcha Gault is getting it up herself, to
    sell off ... and she means to tell everyone she runs into", her own aim passed on as news
    (blind31, in view, every seed), and Bir Tamrit's, from "On Thursday she will be up there from half
    past five ...", named the event "the be up there". News of another's event that names no day
    keeps the day of the teller's own `plan` item that holds it, still ahead at `now` (`planned_day`):
    passed on with no day, blind32's listeners in Cauldwell had none to go by; its relative days are
    said from `now` (`redated`): kept on Wednesday, "the event tomorrow (Thursday November 19)" was
    passed on so on Thursday morning, under Thursday's stamp (blind32, Cauldwell)."""
    said = gist(news)
    if hosting(name, news):
        said = _told_by_host(name, news, said, places)
    elif day := planned_day(news, plan, now) if now is not None and day_unsaid(news) else []:
        said = f"{said.rstrip('.')}, on {day_named(day[0])}"
    return redated(said, now.date()) if now is not None else said


def _told_by_host(name: str, news: MemoryNode, said: str, places: Sequence[str]) -> str:
    """`told_of` an event `name` hosts: what it is, then its day, hours and place where that leaves them out."""
    text, made = unstamped(said).rstrip("."), news.created.date()
    what = _hosted(name, text, said).rstrip(".")
    day = [] if named_days(what, made) else named_days(text, made)[:1]
    hours = [] if clock_times(what) else event_hours(clock_times(text))
    place, room = room_told(news, (), places) if places else ("", False)
    where = "" if not place or named_place(places, what) == place else _where(place, room)
    return "".join([what, f", on {day_named(day[0])}" if day else "",
                    f" from {clock_said(hours[0])} to {clock_said(hours[1])}" if len(hours) > 1
                    else f" at {clock_said(hours[0])}" if hours else "", f", at {where}" if where else ""])


# When and where `told_of` said a host's event is, after what it is (", on Wednesday August 12 from 17:00 to
# 19:00, at Egret Spit (mudbank)"): a news line says them in its note, once (`about`).
_TOLD_WHEN = re.compile(rf", on (?:{'|'.join(calendar.day_name)}) [A-Z][a-z]+ \d{{1,2}}(?: from \d\d:\d\d to \d\d:\d\d| at "
                        r"\d\d:\d\d)?(?:, at [^,()]+(?: \([^()]+\))?)?$")


# A day and its hours said together (", on October 15 between 11 am and 1 pm", " on April 16 from 19:00 to 21:00").
_TIME = r"(?:\d{1,2}(?:[:.]\d{2})?\s*[ap]\.?m\.?|noon|midday|midnight|\d{1,2}:\d{2})"
_DAY_AND_HOURS = re.compile(rf",?\s+on\s+(?:(?:{'|'.join(calendar.day_name)}),?\s+)?(?:the\s+)?(?:{DATED.pattern}),?\s+"
                            rf"(?:from|between)\s+{_TIME}\s*(?:to|and|until|till|-|\u2013)\s*{_TIME}(?=[\s,;:()]|$)",
                            re.IGNORECASE)


def _said_once(said: str, dated: str, made: date) -> str:
    """`said` without the day and hours it names together where the note after it (`dated`, `when`)
    says that day and those hours again: "... on January 21 from 3 pm to 5 pm (that is tomorrow,
    Wednesday January 21, 15:00-17:00, ...)", which two blind models' writers expected a small model
    to paste twice, and to pick one of where the first was garbled. Said another way, or another day
    or hours (a model's slip the note does not repeat), it stays."""
    found = _DAY_AND_HOURS.search(said)
    if found is None:
        return said
    days, hours = named_days(found.group(), made), event_hours(clock_times(found.group()))
    if not days or len(hours) < 2 or day_named(days[0]) not in dated or \
            hours_said(hours) not in dated:
        return said
    return f"{said[:found.start()]}{said[found.end():]}"


def _what_first(text: str) -> str:
    """`text` with its first statement said from what there is (`what_before_where`): news passed on
    as the host thought it ("Amina Tazi told Leila Fassi: Under the overhang at Kef Rock, ...,
    there are engravings of giraffes: ...") was told on by its first words."""
    first = first_statement(text)
    return f"{what_before_where(first)}{text[len(first):]}" if first and text.startswith(first) else text


def _when_after_it(said: str, dated: str) -> str:
    """`said` with when and where it is (`dated`) after the sentence that says when, not after the
    last: blind29's writer read "... bring something small to go in it (a photo, a note, a bus
    ticket). He's going to ask everyone he runs into (that is tomorrow, Friday May 22, 18:00-20:00,
    ...)" as the asking being tomorrow at six. Else after the last sentence; its stop goes after the note."""
    breaks = list(SENTENCE.finditer(said))
    spans = list(zip([0, *(m.end() for m in breaks)], [*(m.start() for m in breaks), len(said)], strict=True))
    start, end = next(((a, b) for a, b in spans if says_when(said[a:b])), spans[-1])
    sentence = said[start:end].rstrip()
    stop = sentence[-1] if sentence[-1:] in (".", "!", "?") else ""
    return f"{said[:start]}{sentence.removesuffix(stop)}{dated}{stop} {said[end:].lstrip()}".rstrip()


def _by_host(name: str, said: str, event: str) -> str:
    """A host's event said from its name first ("A flotsam auction in the boat hall ...", "indigo
    dyeing in the drying shed ...") as the host holding it ("Sorcha Gault is hosting a flotsam
    auction in the boat hall ..."): blind27 told such events as "an event" (Brinnick and Cauldwell,
    out of view: the auction named in 9 lines, "an event" in 180), and said as an intent it named
    the Ville's party (466 lines)."""
    if not event or not said.lower().startswith(event.lower()):
        return said
    return f"{name} is hosting {event}{said[len(event):]}"


def _named(name: str, said: str) -> str:
    """A host's event said from a pronoun ("he'll seal a time capsule under the new tiles ...") with
    the host's name: blind29's writer saw a model voicing the host say "he'll seal ..." of itself,
    or take another man for the host."""
    found = _PRONOUN_LEAD.match(said)
    if found is None:
        return said
    return f"{name} {_PRONOUN_VERB[(found['short'] or found['word']).lower()]}{said[found.end():]}"


_PRONOUN_LEAD = re.compile(r"(?:he|she|they)(?:['\u2019](?P<short>ll|s|re)|\s+(?P<word>will|is|are|has|have))\b",
                           re.IGNORECASE)
_PRONOUN_VERB = {"ll": "will", "will": "will", "s": "is", "is": "is", "re": "is", "are": "is", "has": "has", "have": "has"}


def what_it_is(text: str) -> str:
    """An event's thought as what there will be (`what_clause`, `what_there_is`) and who may come."""
    what, who = what_there_is(what_clause(text)), who_may_come(text)
    return f"{what.rstrip('.')}, and {who}" if what and who else what or who


# When a prompt said the news is ("(that is tomorrow, ... (garden))"), as a model copied it into its
# line, cut or whole: said again after it, the two nested (blind19's writer).
_WHEN_SAID = re.compile(r"\s*\(that is [^()]*(?:\([^()]*\)[^()]*)?\)?")


def since(news: MemoryNode, now: datetime) -> str:
    """The day news that names no date came to the NPC, when that is not today: a line carries no
    stamp, and "a match tomorrow afternoon" heard on Friday was retold on Saturday as if still ahead.
    Said as when it was known, not "(from Friday April 10)", which blind25's writer saw read as the
    event's day after its hours ("from 2 pm to 4 pm, at the Village Green (from Friday 10 Apr)")."""
    made = news.created
    return "" if made.date() == now.date() else f" (known since {day_named(made)})"


def when(news: MemoryNode, now: datetime, places: Sequence[str] = (), chats: Sequence[MemoryNode] = (),
         plan: Sequence[PlanItem] = ()) -> str:
    """The news's day, hours and place as the prompt's clock and places read them (" (that is
    tomorrow, Thursday April 16, 19:00-21:00, at Tarnbeck Mill (loft))"), or "" when it names no day
    still ahead: "on April 16 from 7 pm" asks a model to work out the weekday and how far off it is,
    and a model that read the memory's stamp (the day it was thought of) as the event's turned
    invitations down for a clash that was not. The place is one of `places` the news names
    (`named_place`): blind15, reading "a shortwave evening in the loft of Tarnbeck Mill on April 16
    from 7 pm", told the day and hours and not the loft, and nobody it told knew where to go. A
    day the news does not name is the one said where it was heard (`heard_when`), else the day of
    the NPC's own `plan` item that holds it still ahead (`planned_day`): blind32 in Cauldwell passed
    the dyeing on as "the event from 2 pm to 4 pm", no day, though its teller had booked it for
    Thursday; a listener who asked was told "on Wednesday". A room the news
    does not name is the one its conversations named (`room_told`), else only the building is said:
    the building's first room, said for news "at the Bramall's Laundry", sent blind25's guests to
    the wash house, not the drying shed where the dyeing was."""
    said = unstamped(news.description)  # a stamp a model copied in is when something was remembered, not the event
    named = named_days(said, news.created.date())
    told = said if named else heard_when(news, chats)
    heard = named or named_days(told, news.created.date())
    days = [d for d in heard if d >= now.date()] or ([] if heard else planned_day(news, plan, now))
    if not days:
        return ""
    day, ahead = days[0], (days[0] - now.date()).days
    relative = "today" if ahead == 0 else "tomorrow" if ahead == 1 else f"in {ahead} days"
    hours = hours_said(event_hours(clock_times(said) or clock_times(told)))
    place, room = room_told(news, chats, places)
    return f" (that is {relative}, {day_named(day)}{', ' + hours if hours else ''}" \
           f"{', at ' + _where(place, room) if place else ''})"


def _where(place: str, room: bool) -> str:
    """Where news says its event is: the building and its room where the room is known, else the building."""
    return place_said(place) if room else place_names(place)[0]


async def held(stream: MemoryStream, npc_id: str, name: str, now: datetime, places: Sequence[str] = (),
               plan: Sequence[PlanItem] = ()) -> Held:
    """What an NPC has to tell in a conversation: the news its plans seek people out for (`held_news`),
    stated with where it is among `places` (and when, by its `plan` where the news leaves the day out),
    else that it has none (blind5, asked for "news on their
    mind (above)" with none above, told its bedtime as news); nothing for the player (no `npc_id`)."""
    news = await held_news(npc_id, now, stream) if npc_id else None
    chats = await stream.latest_chats(npc_id) if news is not None and (room_unsaid(news, places) or day_unsaid(news)) \
        else []
    return Held(said_news(name, news, now, places, chats, plan) if npc_id else "", news, tuple(places))


def said_news(name: str, news: MemoryNode | None, now: datetime, places: Sequence[str] = (),
              chats: Sequence[MemoryNode] = (), plan: Sequence[PlanItem] = ()) -> str:
    """`held`'s sentence for news already read (`held_news`)."""
    return f"{name} has news on their mind{about(name, news, as_told(news), now, places, chats, plan)}." if news is not None else \
        f"{name} has no news to pass on."


def untold_line(npc: NpcState, other: NpcState, news: MemoryNode | None, now: datetime) -> str:
    """`news_for` of news already read (`untold`)."""
    if news is None:
        return ""
    return f"{npc.persona.name} has news to pass on and has not told {other.persona.name} yet{about(npc.persona.name, news, gist(news), now)}."
