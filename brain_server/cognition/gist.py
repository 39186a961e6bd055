"""What a conversation told in one call (out of view) leaves in each speaker: no more than the
same conversation written turn by turn, where each line is written from its speaker's memories
alone and each memo reads only the lines. The one call sees every speaker's mind, so its answer is
checked against what each knew before (its memories shown, persona, plans and places) and what
was said to it:

- a gist line naming what only another speaker knew, not said before it, is not its speaker's
  (`own_lines`: dropped, so nobody is remembered telling another's news);
- a memo naming what was neither said nor known is kept to the gist (`said_only`);
- a memo's place neither known nor said is left to be chosen (`place_heard`).

A place said in other words counts as said ("the chapel" names the Chapel of St Ives: a word of
its name is enough, `places_said.named_places`), and clock words ("half past five", "5 P.M.") are no names.

Written turn by turn, a line repeating one its speaker said already is asked again once, the
repeat pointed out, else dropped (`unrepeated`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import datetime
import re
from typing import Protocol, TypeVar

from brain_server.cognition.memory_stream import DEFAULT_IMPORTANCE
from brain_server.cognition.offline.heard import EVENT, repeats, stems, unrelayed
from brain_server.cognition.offline.said_clock import EVENT_HOURS, clock_times, named_days
from brain_server.cognition.places_said import (
    named_place,
    named_places,
    room_named,
    room_said,
    words,
)
from brain_server.model.memory import MemoryNode, unstamped
from brain_server.model.npc import DialogueLine
from brain_server.model.trace import Trace
from brain_server.model.world import SEPARATOR, place_names, sector_of
from brain_server.prompts.conversation_memo import ConversationMemo
from brain_server.runtime import metrics

# A name (a capitalised word not opening a sentence): unsaid if neither the gist nor the speaker's
# own knowledge has it. Calendar and clock words are the prompts' own.
_NAME = re.compile(r"(?<=[^.!?\s])\s+([A-Z][\w'’]*)")
# A line of talk or news passed on ("X told Y: ..."), not an activity.
_TALK = re.compile(r"[?!\"“”]|\b(?:I|I'm|I'll|I'd|you|your|we|let's|me|my|told|heard from)\b", re.IGNORECASE)
# News or a conversation copied as an activity: someone named doing what a memo says of them
# ("going to Teodor Marek wants to teach ...", "going to Piotr Savin talked with Agata Wilk").
_REPORTED = re.compile(r"\b[A-Z][\w'’-]*\s+(?:[A-Z][\w'’-]*\s+)?(?:wants|plans|means|hopes|intends|is (?:going|planning|"
                       r"hoping|holding|hosting)|talked with|spoke (?:of|about|with))\b")
_CALENDAR = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february",
             "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
             "i", "am", "pm", "a", "p", "m", "noon", "midday", "midnight", "half", "quarter", "past", "o'clock"}
class _Line(Protocol):
    utterance: str


L = TypeVar("L", bound=_Line)


def names_in(text: str) -> set[str]:
    return set(_NAME.findall(text))


def _unknown(name: str, own: set[str]) -> bool:
    word = name.lower().removesuffix("'s").removesuffix("’s")
    return word not in own and word not in _CALENDAR


_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]*")  # a capitalised word: a name, whose words say nothing of what is done


def told_place(activity: str, told: Sequence[MemoryNode], places: Sequence[str], *, start: datetime | None = None,
               booked: str = "", chats: Sequence[MemoryNode] = ()) -> str:
    """The place named by the first of `told` (news, newest first) about the same thing as a plan
    item (a word of what its activity does, names aside): blind15's memos named none, or where the
    talk was, and the model put the item where the listener stood (the signal box, for a lesson in
    the depot's mess room). Or news of whatever is on at the item's `start` (its day and hours),
    named in the building the item was `booked` in, or anywhere if it was booked nowhere: blind22
    called the indigo dyeing in Cauldwell's laundry "tomorrowing" after its news's first word
    ("Tomorrow, between two and four ..., there will be indigo dyeing in the drying shed at
    Bramall's Laundry"), was told only "at the Bramall's Laundry", and booked the laundry's first
    room: over ten seeds, 20 guests spent the afternoon in the wash house next door. News that names
    the building alone goes to the room the NPC's conversations (`chats`) named at its hour
    (`room_told`: blind25's memos said "at the Bramall's Laundry" where the talk said the drying
    shed). "" when no such news names one."""
    about = stems(_CAPITALISED.sub(" ", activity))  # what it is, not whose: "dinner at Rosa's" is not Rosa's contest

    def same(node: MemoryNode, place: str) -> bool:
        return bool(about & stems(node.description)) or (
            start is not None and (not booked or sector_of(booked) == sector_of(place)) and on_at(node, start))

    found = [(place, node) for node in told if (place := named_place(places, node.description)) and same(node, place)]
    # news that names the room before news retold with the building only ("at the Engine Depot")
    return next((place for place, node in found if room_named(place, node.description)),
                room_told(found[0][1], chats, places)[0] if found else "")


def on_at(news: MemoryNode, start: datetime) -> bool:
    """Whether `start` falls on the day the news names and within its hours (its first time to its
    second, else EVENT_HOURS after)."""
    said = unstamped(news.description)
    clocks = clock_times(said)
    if not clocks or start.date() not in named_days(said, news.created.date()):
        return False
    end = max(clocks) if len(clocks) > 1 else (clocks[0][0] + EVENT_HOURS, clocks[0][1])
    return clocks[0] <= (start.hour, start.minute) < end


def room_told(news: MemoryNode, chats: Sequence[MemoryNode], places: Sequence[str]) -> tuple[str, bool]:
    """The place among `places` that `news` names, and whether its room is known: named in the
    news, or the building's only one, else the one room of that building a conversation of the
    NPC's (`chats`, newest first) named at the news's first hour; news that names no place, the
    place its conversations named (`_place_talked_of`). A memo keeps what a model summed
    up ("about the event ... at the Bramall's Laundry", blind25 in Cauldwell), the lines what was
    said ("indigo dyeing in the drying shed at Bramall's Laundry ... from 2 pm to 4 pm"): the
    building's first room, named for it, sent guests to the wash house next door."""
    said = unstamped(news.description)
    place = named_place(places, said)
    if not place:
        return _place_talked_of(clock_times(said)[:1], chats, places)
    rooms = [p for p in places if sector_of(p) == sector_of(place)]
    if len(rooms) == 1 or room_named(place, said):
        return place, True
    hours = clock_times(said)[:1]
    for chat in chats:
        named = [p for p in rooms if room_named(p, chat.description)]
        if len(named) == 1 and hours and hours[0] in clock_times(chat.description):
            return named[0], True
    return place, False


def _place_talked_of(hours: Sequence[tuple[int, int]], chats: Sequence[MemoryNode], places: Sequence[str]) -> tuple[str, bool]:
    """For news that names no place: the place the NPC's conversations that named its hour named most
    (of those, the first told), and whether its room is known (as `room_told`); ("", False) if none. A memo kept the
    party and its hours and left out Hobbs Cafe ("Maria Lopez heard from Isabella Rodriguez about a
    Valentine's Day party on Saturday February 14 at 17:00-19:00 and said they would go"); told so,
    blind29 filled the place from the teller's own room, and eight of eleven guests spent the party
    there (the Ville in view, seed 9)."""
    if not hours:
        return "", False
    named = [(place, chat) for chat in reversed(chats) if hours[0] in clock_times(chat.description)
             and (place := named_place(places, chat.description))]
    if not named:
        return "", False
    counts = Counter(place for place, _ in named)
    place, chat = max(named, key=lambda found: counts[found[0]])  # the most named; of those, the first told
    return place, sum(sector_of(p) == sector_of(place) for p in places) == 1 or room_named(place, chat.description)


def room_unsaid(news: MemoryNode, places: Sequence[str]) -> bool:
    """Whether `news` leaves its room unsaid among `places` (it names a building alone, or no place
    but its hours): only then do the NPC's conversations need reading for it (`room_told`)."""
    place, room = room_told(news, (), places)
    return not room and bool(place or clock_times(unstamped(news.description)))


def as_activity(activity: str, summary: str, me: str = "") -> str:
    """A memo's plan item as an activity, not a line of talk: blind9 booked "going to: Would you like
    to come? I want to ..." and every later prompt showed it as what the NPC had planned. Talk (a
    question, an exclamation, a quote, someone speaking in the first or second person) is named by
    the event it is about (`EVENT`: "going to a Morse code lesson"), read in it or in the memo's
    summary; kept as written when neither says one. News passed on ("going to: Ines told Jonah: Ines
    wants to get up a cricket match") is named so too, and news or a conversation copied as one
    ("going to Piotr Savin talked with Agata Wilk": blind11 out of view booked that over the lesson it
    had agreed to, at another place). The event of `me` (the NPC whose plan it is) is held, not gone
    to: a host's plan read "going to a Morse code lesson" at the hours of its own, as a guest's would."""
    if not _TALK.search(activity) and not _REPORTED.search(activity):
        return _unrelayed(activity)
    found = EVENT.search(activity) or EVENT.search(summary)
    if found is None:
        return _unrelayed(activity)
    own = bool(me) and found.string[:found.start()].rstrip().endswith(me)
    return f"{'holding' if own else 'going to'} {found['what']}"


def _unrelayed(activity: str) -> str:
    """An activity without who passed news on, or the prompt's own words, before what it is: the
    hard stand-in booked "going to: Lena Fisk has news on their mind, an event they are hosting: Lena
    Fisk would like to show anyone who ...", and every later prompt showed it so (blind17's writer)."""
    label, said, rest = activity.partition(": ")
    if not said or len(label.split()) > 3:  # no short label before the text ("going to: ")
        label, rest = "", activity
    rest = unrelayed(rest)
    return f"{label}: {rest}" if label else rest


def _place_words(places: Iterable[str], said: str) -> set[str]:
    """Every word of the names of the places `said` names: each may be written out in a memo."""
    return {w for p in named_places(places, said) for name in p.split(SEPARATOR)[1:3] for w in words(name)}


def own_lines(lines: Sequence[DialogueLine], known: Mapping[str, str], trace: Trace) -> list[DialogueLine]:
    """The gist's lines each speaker could have said: one naming what another speaker knew (`known`:
    each speaker's name to what it knew before) and neither its speaker knew nor anyone said before
    it is dropped: the one call put another's news in its mouth."""
    kept: list[DialogueLine] = []
    speakers = " ".join(known)
    for line in lines:
        mine = known.get(line.speaker_name)
        if mine is not None:
            own = words(" ".join((mine, speakers, *(said.text for said in kept))))
            theirs = words(" ".join(k for name, k in known.items() if name != line.speaker_name))
            foreign = sorted(w for w in names_in(f" {line.text}") if _unknown(w, own) and words(w) <= theirs)
            if foreign:
                trace.note(f"converse: {line.speaker_name} could not know what the gist has it say "
                           f"({', '.join(foreign)}): the line is dropped")
                metrics.CONVERSATION_REPAIRS.labels("gist_line_dropped").inc()
                continue
        kept.append(line)
    return kept


def said_only(memo: ConversationMemo, me: str, partner: str, lines: Sequence[DialogueLine], known: str,
              places: Sequence[str], trace: Trace) -> ConversationMemo:
    """`me`'s memo of a conversation told in one call with `partner` (a name, or names listed), if
    every name in it (people, places, events) was said in the gist (a place also in other words,
    among `places`) or is one `me` knew already (`known`: its memories shown, persona, plans);
    else what the others said, plainly, without the plan change: what only another remembered is
    not learned unless said."""
    heard = " ".join(line.text for line in lines)
    own = words(" ".join((heard, known, partner))) | _place_words(places, heard)
    unsaid = sorted({w for w in names_in(f"{memo.summary} {memo.plan_activity}") if _unknown(w, own)})
    if not unsaid:
        return memo
    trace.note(f"converse: {me}'s memo named what was not said ({', '.join(unsaid)}): kept to the gist")
    metrics.CONVERSATION_REPAIRS.labels("memo_kept_to_gist").inc()
    theirs = " ".join(f'"{line.text}"' for line in lines if line.speaker_name != me)
    return ConversationMemo(summary=f"{me} chatted with {partner}" + (f", who said {theirs}" if theirs else "")[:300],
                            importance=min(memo.importance, DEFAULT_IMPORTANCE), plan_activity="", plan_start="",
                            plan_minutes=0)


def place_unsaid(memo: ConversationMemo, heard: str, places: Sequence[str], here: str, trace: Trace) -> ConversationMemo:
    """`memo` without a place among `places` that its summary gives a dated event and that the
    conversation (`heard`: its lines) did not name, other than the building it was held in (`here`):
    the Ville in view (blind29): Maria's memo put Isabella's party "at the Maria Lopez's room", her
    own, which nobody had said; retold so, two guests spent the party in her room. Its plan item
    loses that place too (it is then chosen as for any activity). A place its words cannot be taken
    out of is left. A room the conversation named by a word no other known place's room has is its place
    named ("first firing of the kiln": the Smokehouse's kiln room, in a corpus by another hand)."""
    named = named_places(places, memo.summary) if clock_times(memo.summary) else []
    unsaid = [p for p in named if sector_of(p) != sector_of(here)]
    if not unsaid:
        return memo
    said = set(named_places(unsaid, heard)) | {p for p in unsaid if room_said(p, heard, places)}
    summary, dropped = memo.summary, list[str]()
    for place in unsaid:
        if place in said:
            continue
        names = "|".join(re.escape(name) for name in sorted(filter(None, place_names(place)), key=len, reverse=True))
        without = re.sub(rf",?\s+(?:at|in)\s+(?:the\s+)?(?:{names})(?:\s*\([^()]*\))?", "", summary, flags=re.IGNORECASE)
        if without != summary and not named_places([place], without):
            summary, dropped = without, [*dropped, place]
    if not dropped:
        return memo
    trace.note(f"converse: the memo placed its event at {', '.join(dropped)}, which the conversation did not name: left out")
    metrics.CONVERSATION_REPAIRS.labels("memo_place_unsaid").inc()
    return memo.model_copy(update={"summary": summary, "plan_place": "" if memo.plan_place in dropped else memo.plan_place})


def place_heard(memo: ConversationMemo, known: Sequence[str], lines: Sequence[DialogueLine]) -> ConversationMemo:
    """The memo's place if the speaker knew it or the gist named it (in any words); else none (the
    place is then chosen as for any activity): another's places were offered only as what might be said."""
    said = " ".join(line.text for line in lines)
    if not memo.plan_place or memo.plan_place in known or named_places([memo.plan_place], said):
        return memo
    return memo.model_copy(update={"plan_place": ""})


def again(name: str, repeated: str) -> str:
    """The situation's sentence for a speaker asked again after repeating itself ("" if it did not)."""
    return f'{name} already said "{repeated}": {name} says something new, or takes leave.' if repeated else ""


async def unrepeated(ask: Callable[[str], Awaitable[L]], said: Sequence[str], name: str, trace: Trace) -> L | None:
    """A model's line that does not repeat one of its speaker's own (`said`): asked again once, the
    repeat pointed out (`ask(repeated)`), else None (the line is dropped); each counted."""
    line = await ask("")
    if not repeats(line.utterance, said):
        return line
    trace.note(f"converse: {name} repeated itself ({line.utterance[:60]!r}): asked again")
    metrics.CONVERSATION_REPAIRS.labels("repeated_line_asked_again").inc()
    line = await ask(line.utterance)
    if not repeats(line.utterance, said):
        return line
    trace.note(f"converse: {name} repeated itself again: the line is dropped")
    metrics.CONVERSATION_REPAIRS.labels("repeated_line_dropped").inc()
    return None


def fell_back(speakers: Sequence[str], trace: Trace) -> None:
    """A conversation told in one call that the model could not tell: its fallback (greetings, no
    memo) is a conversation that carried nothing, logged and counted as such."""
    trace.note(f"converse: the model could not tell the conversation of {', '.join(speakers)}: greetings only")
    trace.log.warning("conversation_fallback", speakers=list(speakers))
    metrics.CONVERSATION_REPAIRS.labels("greetings").inc()
