"""A yes the memo left unbooked: an NPC that said it will go to an event its partner had just named
("Did you know Netta is holding indigo dyeing today from two to 4 pm ...?" "I think I'll go.") goes,
at the time the line said or the news told of it says, whatever the memo made of it. blind35 in
Cauldwell, in view, wrote "chatted about everyday things; nothing was arranged" for 15 of 15 such
yeses to news passed on with its time (and booked 18 of 19 said to the host), and the yes-sayers who
came to nothing held the town's attendance to 2 of 9: a commitment said aloud is kept in code, as
the host's own event is (`status.own_kept_whole`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
import re

from brain_server.cognition.offline.heard import EVENT, SENTENCE
from brain_server.cognition.offline.kept_days import anchored
from brain_server.cognition.offline.said_clock import EVENT_HOURS, clock_times, event_hours, named_days
from brain_server.cognition.places_said import named_places, place_as_said
from brain_server.model.npc import DialogueLine
from brain_server.model.trace import Trace


@dataclass
class PlanChange:
    """A plan item a conversation made (a memo's, or a yes's)."""
    activity: str
    start: datetime
    minutes: int
    place: str = ""  # the place the conversation named (an address the NPC knows), or "" to choose one


# Saying one will go: "I'll go", "I think I'll come along", "I'll be there", "count me in", "I'd like to go", and
# as people say yes to an invitation (corpora by another hand, stop 114: half their yeses were none of those):
# "put me down", "then I'm in.", "I'm going!", "I'd love that", "save me a seat", "I'll try to make it", "yes, all right".
_GOING = re.compile(r"\b(?:I(?:['\u2019]ll|\s+will|\s+shall)\s+(?:\w+\s+){0,2}?(?:go|come|be\s+there|join)\b|"
                    r"I(?:['\u2019]d|\s+would)\s+(?:really\s+)?(?:like|love)\s+(?:to\s+(?:go|come|join)|that)\b|"
                    r"count\s+me\s+in\b|wouldn['\u2019]t\s+miss\s+it\b|see\s+you\s+there\b|put\s+me\s+down\b|"
                    r"I(?:['\u2019]m|\s+am)\s+(?:in|going)(?=\s*[.!,]|\s*$)|save\s+me\s+(?:a|two|some)\b|"
                    r"I['\u2019]ll\s+try\s+to\s+make\s+it\b|yes,?\s+(?:all\s+right|alright|okay|ok|please|of\s+course)\b)",
                    re.IGNORECASE)
# ... and not going: "I can't come", "I won't be there", "I'd like to go, but ...".
_NOT = re.compile(r"\b(?:not|never|can['\u2019]t|cannot|won['\u2019]t|couldn['\u2019]t|shan['\u2019]t|but|unless|"
                  r"sorry|afraid|unfortunately|maybe|might)\b", re.IGNORECASE)


def _event(line: str) -> str:
    """The event a line names (`EVENT`: "wants to throw a party"), or what someone is holding in it
    (`_HELD`: "Netta is holding indigo dyeing on Thursday ..."), else ""."""
    found = EVENT.search(line) or _HELD.search(line)
    return found["what"] if found else ""


# What someone holds, with or without an article: "is holding indigo dyeing", "'s hosting a ceilidh", "I'm
# holding a vigil" (a host's own invitation), "I'm doing a copper-spinning demo"; never a day ("are hosting today at 5:30").
_HELD = re.compile(r"(?:\bis|\bare|\bam|['\u2019]s|['\u2019]re|['\u2019]m|\bwill\s+be)\s+(?:holding|hosting|running|"
                   r"putting\s+on|throwing|organi[sz]ing|having|doing(?=\s+(?:a|an|the|our|my)\s))\s+"
                   r"(?!(?:today|tomorrow|tonight|this|next)\b)"
                   r"(?P<what>[^,.;:!?()]+?)(?=\s+(?:on|at|in|from|between|today|tomorrow|"
                   r"tonight|this|next|for|by|with|until)\b|\s*[,.;:!?()]|$)", re.IGNORECASE)


def yes_unbooked(name: str, lines: Sequence[DialogueLine], known: Sequence[str], now: datetime,
                 trace: Trace, news: Sequence[str] = ()) -> PlanChange | None:
    """The plan change `name`'s yes books (`_GOING`, said without a "not" or "but" in its sentence):
    the event (`_event`) the last line of another's before it named, at the time it named, else at
    the time of the first of `news` (what the NPC was told here, or the others held) that names that
    event or the place the line named ("Netta is holding indigo dyeing tomorrow at two": a time said
    in words alone is no clock), on the day the line named (relative days read from `now`), else the
    news's, else today; for the hours said, else `EVENT_HOURS`; what is left of it where it has begun;
    at the place among `known` the line named, else none (`booking.booked_item` places it by the
    news); None where nobody named an event with a time, or it is over. Where what the line said is
    over and the news's day and hours are not, those: blind35's Bir Tamrit host asked "I'm holding an
    event ... today at 5:30 am ... Do come along" of her dawn event the next day, and the yes to her
    booked nothing (a slip of a day is a model's commonest; the host's own thought says the day)."""
    for at, line in enumerate(lines):
        if line.speaker_name != name or not any(_GOING.search(s) and not _NOT.search(s) for s in SENTENCE.split(line.text)):
            continue
        told, event = next(((i, e) for i in range(at - 1, -1, -1)
                            if lines[i].speaker_name != name and (e := _event(lines[i].text))), (None, ""))
        if told is None:
            continue
        said = anchored(lines[told].text, now.date())
        place = place_as_said(lines[told].text, "", known, None)
        of_it = [n for n in news if clock_times(n) and (event.lower() in n.lower() or (place and named_places([place], n)))]
        tries = [(said, said)] if clock_times(said) else []
        tries += [t for n in of_it for t in ((n, said), (n, n))]
        span = next((s for timed, dated in tries if (s := _span(timed, dated, now))), None)
        if span is None:
            continue
        start, end = span
        trace.note(f"plan: {name} said yes to {event!r} and the memo booked nothing: booked at {start:%a %H:%M}")
        return PlanChange(activity=f"going to {event}", start=start,
                          minutes=int((end - start).total_seconds() // 60), place=place)
    return None


def _span(timed: str, dated: str, now: datetime) -> tuple[datetime, datetime] | None:
    """The hours `timed` says on the day `dated` names (else `timed`, else today), from `now` on where
    it has begun; None where it is over."""
    hours = event_hours(clock_times(timed))
    day = next(iter(named_days(dated, now.date()) or named_days(timed, now.date())), now.date())
    start = datetime.combine(day, time(*hours[0]), tzinfo=now.tzinfo)
    end = datetime.combine(day, time(*hours[1]), tzinfo=now.tzinfo) if len(hours) > 1 else \
        start + timedelta(hours=EVENT_HOURS)
    end = end + timedelta(days=1) if end <= start else end
    return (max(start, now), end) if end > now else None
