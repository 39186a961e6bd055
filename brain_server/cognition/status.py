"""The NPC's "currently" status (the paper's `currently`), revised each morning from the second day
on (before the day plan, `plan.py`) and when the user whispers a thought (`player_talk.py`): one
call, and what it must not lose kept in code."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
import re

from brain_server.cognition.memory_stream import MemoryStream, bullet_list
from brain_server.cognition.offline import said_clock
from brain_server.cognition.offline.happens import act_first
from brain_server.cognition.offline.heard import SENTENCE, speaks_of, unrelayed
from brain_server.cognition.offline.kept_days import anchored, day_said, redated, says_day
from brain_server.cognition.offline.naming import naming
from brain_server.cognition.offline.said_clock import (
    after_hours,
    clock_times,
    event_hours,
    hours_said,
    named_days,
    says_when,
)
from brain_server.cognition.offline.wording import as_theirs, clipped
from brain_server.cognition.schedule import OWN_PLANS, day_name, previous_day
from brain_server.llm.scheduler import Work
from brain_server.model.memory import MemoryNode, held_as_own, unstamped
from brain_server.model.npc import NpcState
from brain_server.model.trace import Trace
from brain_server.prompts.revise_currently import MAX_CHARS as CURRENTLY_MAX_CHARS
from brain_server.prompts.revise_currently import PROMPT as REVISE_CURRENTLY
from brain_server.prompts.revise_currently import Currently


async def revise_currently(npc: NpcState, now: datetime, stream: MemoryStream, trace: Trace,
                           thought: str = "", *, work: Work) -> str:
    """The new "currently" status, from what happened recently and what was planned (one call);
    if the LLM fails (or is not asked: the embedded model), the old status, led by the `thought`
    just whispered, as its own ("You want to..." is "<Name> wants to..."), so the NPC still knows
    what it now means to do, as it is kept (`anchored`: no stamp copied in, relative days dated).
    What the thought names on a day still ahead is kept as the old status's is (`still_ahead`): in
    Brinnick two blind models revised "A flotsam auction ..., on October 15 between 11 am and 1 pm:
    Sorcha Gault is getting it up herself, ... and she means to tell everyone she runs into" to
    "Sorcha Gault is looking forward to my plan to tell everyone she runs into", and the host's
    every prompt after held her aim to tell and not the auction. Its memories leave out the NPC's own
    plans, which the prompt shows apart: in Cauldwell (blind21) 3 of a resident's 13 were plans, and
    the host telling him her event the day before was not among them."""
    persona = npc.persona
    memories = await stream.retrieve(npc.npc_id, f"important recent events in {persona.name}'s life", now, trace,
                                     without=OWN_PLANS)
    old = persona.currently
    kept = fitted(" ".join(f"{as_theirs(thought, persona.name)} {old}".split()), persona.name)
    thoughts = await stream.latest_thoughts(npc.npc_id)
    own = [n for n in thoughts if held_as_own(persona.name, n)]
    answer = await stream.llm.complete(
        REVISE_CURRENTLY,
        {"npc_name": persona.name, "persona": persona.summary(), "date": day_name(now),
         "previous_day": previous_day(npc), "memories": bullet_list(memories),
         "hosting": hosting_lines(persona.name, own, now)},
        work=work, npc_id=npc.npc_id,
        fallback=lambda: Currently.model_construct(currently=kept),
        trace=trace,
    )
    new = anchored(answer.currently.strip(), now.date())
    if not new:
        return stream.llm.unusable(REVISE_CURRENTLY, npc.npc_id, old, "an empty status", trace)
    heard = [n for n in thoughts if not held_as_own(persona.name, n)]
    new = own_kept_whole(not_hosting(new, persona.name, heard, own, trace),
                         own, now, trace)
    revised = still_ahead(redated(kept if thought else old, now.date()), new, now.date(), trace)
    return dated_own(revised, own, now, trace)


def own_kept_whole(status: str, own: Sequence[MemoryNode], now: datetime, trace: Trace) -> str:
    """The revised status without a last sentence its length cut off (`cut_short`), and with each
    of the NPC's own events still ahead (`OWN` thoughts) that no sentence names (`naming`) put back
    whole in front, the status's other sentences kept in order while they fit. A model that keeps
    the old status and adds the new reaches the schema's limit and is cut there mid-word (a guided
    decoder; the hard stand-in in Brinnick, three seeds of ten): the host's status ended "...
    Sorcha Gault is getting it up herself, to sell off everything ... and buy new oars fo", her
    aim to "tell everyone she runs into" gone from every prompt that day; she told the auction in
    none of her five conversations, and 1-2 came. A model that leaves her own event out entirely
    is the same loss (a host must not forget her own party because a model left it out)."""
    sentences, cut = SENTENCE.split(status), cut_short(status)
    whole = sentences[:-1] if cut else sentences
    if cut:
        trace.note(f"plan: the revised status was cut short at {len(status)} characters: {sentences[-1][-40:]!r} left out")
    missing = [as_theirs(_put_back(event, said, now), event.subject) for event, said in _ahead(own, now)
               if not any(map(naming(said, event.subject), whole))]
    if not missing:
        return " ".join(whole) if cut and whole else status
    trace.note(f"plan: the revised status left out the NPC's own event, put back: {' '.join(missing)[:80]!r}")
    kept = list(missing)
    for sentence in whole:
        if len(" ".join([*kept, sentence])) <= CURRENTLY_MAX_CHARS:
            kept.append(sentence)
    return fitted(" ".join(kept), own[0].subject)


def _put_back(event: MemoryNode, said: str, now: datetime) -> str:
    """The NPC's own event (`said`: its thought's words) as it goes back into a status: what the host
    will do first where a circumstance opens it (`act_first`), and that sentence then says the day and
    hours it leaves out ("Halvard Iselvik will set the sundial ... tomorrow (Wednesday January 28),
    12:00-12:30."): moved first without them, Ravnholmen's act said no when, and the day stood only
    beside the sun's return."""
    moved = act_first(said, event.subject)
    if moved == said:
        return said
    first, _, rest = moved.partition(". ")
    days = [d for d in named_days(said, event.created.date()) if d >= now.date()]
    hours = hours_said(event_hours(clock_times(said)))
    if not days or named_days(first, now.date()):
        return moved
    first = first.rstrip(".")
    if clock_times(first):  # its hours said: the day after them, as `dated_own` says it
        return f"{dated(first, days[0], now.date())}. {rest}".strip()
    return f"{first} {day_said(days[0], now.date())}{', ' + hours if hours else ''}. {rest}".strip()


def dated(sentence: str, day: date, today: date) -> str:
    """`sentence` with `day` said after its hours (`after_hours`: at its end where it says none)."""
    cut = after_hours(sentence)
    return f"{sentence[:cut]} {day_said(day, today)}{sentence[cut:]}"


# A sentence saying its subject holds an event: "Owain Pengelly is getting ready to hold a shortwave evening ...".
_HOLDS = re.compile(r"\s+(?:(?:is|was|will\s+be|has\s+been)\s+)?(?:(?:getting\s+ready|going|planning|preparing|hoping|"
                    r"about|set|means|wants|plans|intends)\s+to\s+|will\s+)?(?:hold|host|run|throw|organi[sz]e|lead|put\s+on)"
                    r"(?:s|ing)?\s+", re.IGNORECASE)


_TRANSCRIPT = re.compile(r"(?:a\s+)?conversation\s+with\b|[^\"]*:\s*\"", re.IGNORECASE)  # a memory of talk, not an event
# The holder's asking said with its event: "... and is asking everyone to come" (no part of one who heard of it).
_ASKING_ALL = re.compile(r",?\s+and\s+(?:is\s+)?(?:ask|invit|tell|urg)\w*\s+(?:everyone|everybody|people|all|"
                         r"the\s+(?:whole\s+)?(?:town|village|street))\b[^.!?]*", re.IGNORECASE)


def not_hosting(status: str, name: str, heard: Sequence[MemoryNode], own: Sequence[MemoryNode], trace: Trace) -> str:
    """The revised status with each sentence that makes `name` the holder of an event it heard of
    (`heard`: its other thoughts; none of its `own` names it) saying it has heard of it instead. In
    Tarnbeck (blind31, the shipped prompts) seven residents told of the host's "wants to hold a shortwave
    evening" were revised to "X is getting ready to hold a shortwave evening today ...", and every
    prompt of theirs after showed them as its host (blind32's writer). The holder's asking goes with it:
    the Korrin capture (blind31 answering) showed 1,498 prompts of residents who "has heard of a Morse
    code lesson ... and is asking everyone to come", some beside their own "I'll pass" (blind33's writer).
    A conversation's transcript is no event: blind31's garbled "Halvard Iselvik is getting ready to hold
    conversation with Aud Fagerheim: Halvard Iselvik: \"I'm holdi ..." made Ravnholmen's host "has heard
    of conversation with ..."."""
    sentences, changed = SENTENCE.split(status), False
    for i, sentence in enumerate(sentences):
        holds = _HOLDS.match(sentence, len(name)) if sentence.startswith(name) else None
        if holds is None:
            continue
        event = sentence[holds.end():]
        if _TRANSCRIPT.match(event) or any(naming(unstamped(n.description), name)(event) for n in own) or not any(
                naming(unrelayed(unstamped(n.description)), n.subject)(event) for n in heard):
            continue
        sentences[i], changed = f"{name} has heard of {_ASKING_ALL.sub('', event)}", True
        trace.note(f"plan: the revised status made {name} the holder of an event heard of: {sentence[:80]!r}")
    return " ".join(sentences) if changed else status


def fitted(status: str, name: str = "") -> str:
    """A status within its length in whole sentences: the first, then those that speak of the NPC
    (`name`, or "he" or "she": what it will do, `speaks_of`), then those that say when (its
    commitments), then the rest, each while it fits, said in their own order (the first alone too
    long is cut at a word, `clipped`). Cut mid-sentence, "... before the midday ferry is..." stood in
    271 of 2,276 captured prompts, and a model copies it into its talk (blind34's writer); kept in
    order only, Bir Tamrit's host was put back her find and not "On Thursday she will be up there from
    half past five ...", its third sentence, and Hijaltola's the tide and not what he would do."""
    if len(status) <= CURRENTLY_MAX_CHARS:
        return status
    sentences = SENTENCE.split(status)
    rank = [(0 if i == 0 else 1 if name and speaks_of(s, name) else 2 if says_when(s) else 3, i) for i, s in enumerate(sentences)]
    kept: list[int] = []
    for _, i in sorted(rank):
        if not kept or len(" ".join(sentences[k] for k in sorted([*kept, i]))) <= CURRENTLY_MAX_CHARS:
            kept.append(i)
    return clipped(" ".join(sentences[k] for k in sorted(kept)), CURRENTLY_MAX_CHARS)


def cut_short(status: str) -> bool:
    """Whether a status reached its limit inside a sentence: within a tenth of the limit, and its
    last sentence ends with no stop (a model writing a status ends its sentences)."""
    return len(status) >= CURRENTLY_MAX_CHARS * 9 // 10 and not _ENDED.search(status)


_ENDED = re.compile(r"[.!?…][\"')\]]*\s*$")


def hosting_lines(name: str, own: Sequence[MemoryNode], now: datetime) -> str:
    """The NPC's own events still ahead, said to be its own (`OWN` thoughts), for the revision's
    prompt; "" when it holds none. blind29's writer saw a host's revised status read "Stan Horak has
    heard about an event in the building ..." in some 480 prompts: a model shown her event among
    her memories, beside the news others told her, wrote her as a guest of her own event."""
    ahead = _ahead(own, now)
    if not ahead:
        return ""
    return (f"\n\nEvents {name} is holding (their own, not news {name} heard from anyone):\n"
            + "\n".join(f"- {said}" for _, said in ahead))


def _ahead(own: Sequence[MemoryNode], now: datetime) -> list[tuple[MemoryNode, str]]:
    """The NPC's own events (`OWN` thoughts) still ahead, each with its words without stamps."""
    return [(n, said) for n in own if (said := unstamped(n.description)) and said_clock.still_ahead(said, now, n.created.date())]


def still_ahead(old: str, new: str, today: date, trace: Trace) -> str:
    """The revised status, led by each sentence of the old one that names a day still ahead (the
    party she hosts on February 14) on which the new one names nothing: a revision may add and
    drop, but a host must not forget her own party because a model left it out."""
    days = set(named_days(new, today))
    dropped = [s for s in SENTENCE.split(old.strip())
               if (named := named_days(s, today)) and max(named) >= today and not days & set(named)]
    if not dropped or not new:
        return new
    trace.note(f"plan: the revised status dropped what is still ahead, kept: {' '.join(dropped)!r}")
    return fitted(" ".join([*dropped, new]))


def dated_own(status: str, events: Sequence[MemoryNode], now: datetime, trace: Trace) -> str:
    """The revised status with the day of each of the NPC's own `events` still ahead (thoughts it
    holds as its own, `OWN`) said once, where no sentence says it: after the hours of the first
    sentence that names the event (`naming`) and its hours, else of the first that names it, and no
    day (`day_said`): a revision may keep the event and lose its day. Korrin's host, revised under a
    reworded prompt set (blind22), was "getting ready to teach a Morse code lesson ... from 3 pm to
    5 pm" on the day before it; he told it so, and listeners booked it for that day or for none. Said
    in every sentence naming it, Bir Tamrit's host "found them on her walk at first light tomorrow
    (Thursday June 11)" and the engravings "show only while the sun is low ... tomorrow" (blind32),
    her thought put back whole with its day said in the third sentence. A sentence that says a day
    (another: the event moved; or "today", undated where another sentence names a date) is left as it is."""
    today = now.date()
    sentences, changed = SENTENCE.split(status), False
    for event, said in _ahead(events, now):
        days = [d for d in named_days(said, event.created.date()) if d >= today]
        if not days or any(days[0] in named_days(s, today) for s in sentences):
            continue
        named = naming(said, event.subject)
        at = [i for i, s in enumerate(sentences) if named(s) and not says_day(s, today)]
        if not at:
            continue
        i = next((i for i in at if clock_times(sentences[i])), at[0])
        sentences[i], changed = dated(sentences[i], days[0], today), True
        trace.note(f"plan: the revised status named {sentences[i][:60]!r}... and no day: "
                   f"{day_said(days[0], today)} put back")
    return fitted(" ".join(sentences), events[0].subject) if changed else status
