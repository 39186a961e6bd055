"""Days and clock times said in text (`named_days`: "February 14", "14 Feb", "2026-02-14"; a
weekday or "tomorrow" is given its date when the text is kept, `kept_days.anchored`; hours in
figures or words, "half past six", and a range whose half of the day is said at its end,
`stated_times`).

A clock time a model wrote ("HH:MM") is checked against the words it wrote beside it: "05:00" for
a party "at 5 pm" passes any pattern for a clock, and would send the NPC there at dawn. A time the
words state with its half of the day (5 pm, 5:30 in the evening, noon, midnight) decides which
half the clock means; a clock that names no stated time is left as it is (arriving early to help
is not a contradiction)."""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from datetime import date, datetime
import re

from brain_server.cognition.offline.heard import stems
from brain_server.model.trace import Trace

_HALF = (r"(a\.?m\.?|p\.?m\.?|in the morning|in the afternoon|in the evening|at night|tonight|this evening"
         r"|this afternoon|this morning)")
_WORDS = {w: n for n, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split(), 1)}
# An hour in figures or words, after "half past" or "quarter to" or not: "nine", "half past 6", "7:30".
_FIGURE = rf"(\d{{1,2}}|{'|'.join(_WORDS)})"  # an hour in figures or words ("9", "nine")
_O_CLOCK = r"o['\u2019]clock"  # with a straight or a curly apostrophe
# "half four" is half past four, as said in Britain and Ireland.
_HOUR = rf"(?:(half|quarter) (?:(past|to) )?(?=(?:\d|{'|'.join(_WORDS)})))?{_FIGURE}(?:[:.](\d{{2}}))?\s*(?:{_O_CLOCK}\s*)?"
_STATED = re.compile(rf"\b{_HOUR}{_HALF}(?![a-z])", re.IGNORECASE)
# The start of a range that says its half of the day only at its end: "from nine till eleven in the morning".
_STARTS = re.compile(rf"\b{_HOUR}(?:-|\u2013|to|till|until|and)\s*$", re.IGNORECASE)
_MONTHS = {m.lower(): n for n, m in enumerate(calendar.month_name) if m} | {
    m.lower(): n for n, m in enumerate(calendar.month_abbr) if m}
# A date as a status words it: "February 14", "Feb 14th", "14 February", "the 14th of February", "2026-02-14".
DATED = re.compile(rf"\b(?:({'|'.join(_MONTHS)})\.? (\d{{1,2}})(?:st|nd|rd|th)?|(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?"
                    rf"({'|'.join(_MONTHS)})|(\d{{4}})-(\d{{2}})-(\d{{2}}))\b", re.IGNORECASE)
_NAMED = {"noon": (12, 0), "midday": (12, 0), "midnight": (0, 0)}
_NOON = re.compile(r"(?<!\bthe )(?<!\ba )\b(?:noon|midday|midnight)\b(?!\s+(?:ferry|train|bus|boat|meal|break|bell|sun|post))",
                   re.IGNORECASE)  # not "the midday ferry"
# A range from noon whose end says no half of the day: "noon to two" ends at 14:00.
_NOON_TO = re.compile(rf"\b(?:noon|midday)\s*(?:-|\u2013|to|till|until)\s*{_FIGURE}(?![\w:]|\.\d)", re.IGNORECASE)
_CLOCK = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
_HOURS = re.compile(r"\b([01]\d|2[0-3])([0-5]\d)\s*(?:hours|hrs|h)\b", re.IGNORECASE)  # "1900 hours"  # "17:30", when no time is said with its half of the day
EVENT_HOURS = 2  # an event whose end is not said


def stated_times(words: str) -> list[tuple[int, int]]:
    """The (hour, minute) on a 24-hour clock of each time the words state with its half of the day,
    in the order said ("between 10 am and noon" is 10:00 then 12:00: a host's morning event was
    shown as "12:00-10:00" when named times came first)."""
    found = [(m.start(), _NAMED[m.group(0).lower()]) for m in _NOON.finditer(words)]
    found += [(m.start(1), (h % 12 + 12, 0)) for m in _NOON_TO.finditer(words)
              if 1 <= (h := _hour(m.group(1)) or 0) <= 11 and not _STATED.match(words, m.start(1))]
    for m in _STATED.finditer(words):
        said = _said(m)
        if said is None:
            continue
        half = m.group(5).lower()
        later = half.startswith("p") or any(w in half for w in ("afternoon", "evening", "night"))
        found.append((m.start(), (said[0] % 12 + 12 * later, said[1])))
    ends = sorted(found)
    for at, end in ends:  # "from 9 till 11 in the morning", "between 2 and 4 pm": the start takes the end's half
        start = _STARTS.search(words, 0, at)
        if start is None or (said := _said(start)) is None:
            continue
        hour = said[0] % 12 + 12 * (end[0] >= 12 or end == (0, 0))
        if (hour, said[1]) > (end if end != (0, 0) else (24, 0)):
            hour -= 12  # "11 to 1 pm" starts before noon
        found.append((start.start(), (hour, said[1])))
    if len(found) == 1:
        found += _until(words, *found[0])
    if found and all(clock[0] == 12 for _, clock in found):  # noon said: hours said near it without a half
        found += _near_noon(words, {at for at, _ in found})
    return [clock for _, clock in sorted(found)] or _bare(words) or [clock for _, clock in _near_noon(words, set())]


# An hour said after a word of time without its half of the day ("a little before twelve", "by half
# past", "from half past eleven"), and "twelve" so said.
_IN_WORDS = rf"(?:\d{{1,2}}|{'|'.join(_WORDS)})"
_AROUND = re.compile(rf"\b(?:at|by|from|before|after|until|till|around|about|towards?)\s+(?:(?P<part>half|quarter)\s+"
                     rf"(?P<way>past|to)(?:\s+(?P<hour>{_IN_WORDS}))?|(?P<bare>{_IN_WORDS}))\b(?!\s*(?:{_HALF}|[:.]\d|%))",
                     re.IGNORECASE)


def _near_noon(words: str, taken: set[int]) -> list[tuple[int, tuple[int, int]]]:
    """Hours said without their half of the day in words that say noon (or "twelve" after a word of
    time), each read in the half of the day nearest noon, "half past" alone after the hour said
    before it: an untuned town's whisper said its hours as "a little before twelve and sink behind it
    again by half past ... from half past eleven", none was read, and the hours came from "the midday
    ferry". Nothing is read where noon is not said: seven to eleven alone stay unread."""
    said = [m for m in _AROUND.finditer(words) if m.start("bare" if m["bare"] else "part") not in taken]
    if not (taken or any(m["bare"] and _hour(m["bare"]) == 12 for m in said)):
        return []
    found: list[tuple[int, tuple[int, int]]] = []
    last = 12
    for m in said:
        figure = m["bare"] or m["hour"]
        hour = _hour(figure) if figure else last
        if not 1 <= hour <= 12:
            continue
        hour, minute = _said_around(m, hour) if figure else (hour, _said_around(m, hour)[1])
        near = min((hour % 12, hour % 12 + 12), key=lambda h: abs(h * 60 + minute - 12 * 60))
        found.append((m.start(), (near, minute)))
        last = hour
    return found


def _said_around(m: re.Match[str], hour: int) -> tuple[int, int]:
    """The (hour, minute) an `_AROUND` match says of `hour`: "half past" it, "quarter past" or "quarter to" it."""
    if not m["part"]:
        return hour, 0
    if m["part"].lower() == "half":
        return hour, 30
    return (hour, 15) if m["way"].lower() == "past" else (hour - 1, 45)


# An end said later in the statement without its half of the day: "from half past five in the morning,
# when the sun comes over the ridge, until half past seven" (Bir Tamrit's whisper: its end went unread).
_UNTIL = re.compile(rf"\b(?:until|till)\s+{_HOUR}(?!{_HALF}|[\d:.]\d)", re.IGNORECASE)
_STOP = re.compile(r"[.;!?](?:\s|$)")


def _until(words: str, at: int, start: tuple[int, int]) -> list[tuple[int, tuple[int, int]]]:
    """The end of a time stated at `at`, said after it in the same statement as "until" an hour with no
    half of the day: the first such hour after the start, within twelve hours of it."""
    stop = _STOP.search(words, at)
    m = _UNTIL.search(words, at, stop.start() if stop else len(words))
    if m is None or (said := _said(m)) is None:
        return []
    end = (said[0] % 12 + 12 * (start[0] >= 12), said[1])
    if end <= start:
        end = (end[0] + 12, end[1])
    return [(m.start(), end)] if end[0] < 24 else []


_COUNTED = r"\s+(?:of|people|men|women|children|guests|folk|times|days|weeks|years)\b"  # "two of us": a count
_COUNTED_AFTER = re.compile(_COUNTED, re.IGNORECASE)
# Hours said with no half of the day: with "o'clock" ("one o'clock to three", "from ten o'clock till
# two"), as a range after "from" or "between" ("from half four to six"), or open-ended ("seven till late").
_BARE = re.compile(rf"\b(?:(?P<lead>from|between)\s+)?(?P<half>half\s+)?(?P<start>{_IN_WORDS})(?P<oc>\s*{_O_CLOCK})?"
                   rf"(?:\s*(?:-|\u2013|to|till|until|and)\s*(?P<half2>half\s+)?(?P<end>{_IN_WORDS})(?P<oc2>\s*{_O_CLOCK})?"
                   rf"|(?P<late>\s+(?:till|until)\s+late|\s+onwards?))?(?![\w:]|\.\d|-[a-z])(?!{_COUNTED})", re.IGNORECASE)


def _bare(words: str) -> list[tuple[int, int]]:
    """The times of hours said without their half of the day, where the hours themselves tell it:
    nobody is asked to come at one to six at night, so those are afternoon hours, and twelve is noon;
    the other end of a range falls within the twelve hours around them ("ten o'clock till two" is
    10:00-14:00); said after their half of the day, or after it earlier in the statement ("Friday
    evening ..., seven till late"), in that half. A game's whisper said "one o'clock to three", no time
    was read, and its host held no event of her own; "from half four to six" and "seven till late"
    were not read either. Seven to eleven alone stay unread: morning and evening are both usual.
    Hours are said so with "o'clock", as a range after "from" or "between", open-ended ("till late"),
    or as "half five" (half past five, said in Britain and Ireland of a clock only)."""
    for m in _BARE.finditer(words):
        start, end = _hour(m["start"]), _hour(m["end"]) if m["end"] else None
        minutes = (30 * bool(m["half"]), 30 * bool(m["half2"]))
        half = _HALF_BEFORE.search(words, 0, m.start()) or _HALF_EARLIER.search(_statement_before(words, m.start()))
        if half and (end is not None or half.group(2) or m["late"]):
            return _minutes(_in_half(start, end, half.group(1).lower() != "morning"), minutes)
        if not (m["oc"] or m["oc2"] or (m["lead"] and end is not None) or m["late"] or (m["half"] and end is None)):
            continue
        if not start or start > 12 or (end is not None and not 1 <= end <= 12):
            continue
        if end is None:
            if (known := _afternoon(start)) is not None:
                return _minutes([(known, 0)], minutes)
            continue
        if (last := _afternoon(end)) is not None:  # the start is the latest of its two readings before the end
            return _minutes([(max(h for h in (start % 12, start % 12 + 12) if h <= last), 0), (last, 0)], minutes)
        if (first := _afternoon(start)) is not None:
            return _minutes([(first, 0), (min(h for h in (end % 12, end % 12 + 12) if h > first), 0)], minutes)
    return []


def _minutes(hours: list[tuple[int, int]], minutes: tuple[int, int]) -> list[tuple[int, int]]:
    """`hours` read by `_bare` with the minutes said of each ("half four": 16:30)."""
    return [(h, m) for (h, _), m in zip(hours, minutes, strict=False)]


def _statement_before(words: str, at: int) -> str:
    """The words of the statement that `at` is in, up to `at`."""
    return words[max(words.rfind(stop, 0, at) for stop in (". ", "; ", "! ", "? ")) + 1:at]


# A half of the day said earlier in the statement ("Friday evening Greta is throwing a ceilidh ..., seven till late").
_HALF_EARLIER = re.compile(r"\b(morning|afternoon|evening|night|tonight)\b(?:.*\b(at)\s+$)?", re.IGNORECASE)


# The half of the day said just before the hours: "tomorrow morning, ten until twelve", "this
# evening at seven", "tonight, seven till nine", "Saturday afternoon from two to four" (a single
# hour only after "at").
_HALF_BEFORE = re.compile(r"\b(morning|afternoon|evening|night|tonight),?\s+(?:(at)\s+|(?:from|between)\s+)?$", re.IGNORECASE)


def _in_half(start: int, end: int | None, later: bool) -> list[tuple[int, int]]:
    """Hours said after their half of the day (`later`: afternoon, evening or night), the end after
    the start: blind22's writer saw a 10-12 event, said "tomorrow morning, ten until twelve", still
    told as today's news at 14:20, its hours unread."""
    if not 1 <= start <= 12 or (end is not None and not 1 <= end <= 12):
        return []  # "this evening, 15 to 20 of us": no hours
    first = start % 12 + 12 * later if start != 12 else 12  # twelve is noon either way
    if end is None:
        return [(first, 0)]
    last = end % 12 + 12 * later
    last += 12 if last <= first else 0
    return [(first, 0), (last, 0)] if last < 24 else [(first, 0)]


def _hour(figure: str) -> int:
    """The hour a match of `_FIGURE` says ("nine", "9": 9)."""
    return _WORDS.get(figure.lower()) or int(figure)


def _afternoon(hour: int) -> int | None:
    """A bare hour read as its afternoon hour (1-6, twelve as noon), or None if it could be either."""
    return 12 if hour == 12 else hour + 12 if hour <= 6 else None


def _said(m: re.Match[str]) -> tuple[int, int] | None:
    """The (hour, minute) on a 12-hour clock that a match of `_HOUR` says, or None if it is none."""
    part, way, figure, minutes = m.group(1, 2, 3, 4)
    hour = _hour(figure)
    minute = int(minutes or 0)
    if part:
        if way is None and part.lower() != "half":
            return None  # "quarter four" says no time
        way = way or "past"
        minute = 30 if part.lower() == "half" else 15 if way.lower() == "past" else 45
        hour = hour - 1 if way.lower() == "to" else hour
        hour = hour or 12
    return (hour, minute) if 1 <= hour <= 12 and minute <= 59 else None


def clock_as_said(clock: str, words: str, trace: Trace | None = None) -> str:
    """`clock` ("HH:MM" or "H:MM"), or the stated time it misreads by half a day ("05:00" where the
    words say "5 pm": "17:00", noted in the trace); as it is when it names a stated time, or none."""
    hour, minute = (int(p) for p in clock.split(":"))
    stated = stated_times(words)
    if (hour, minute) in stated:
        return clock
    flipped = {(h, m) for h, m in stated if h % 12 == hour % 12 and m == minute}
    if len(flipped) != 1:
        return clock
    [(h, m)] = flipped
    if trace is not None:
        trace.note(f"plan: the time {clock} is half a day off the time said: {h:02d}:{m:02d} taken")
    return f"{h:02d}:{m:02d}"


def day_as_said(start: datetime, words: str, now: datetime, trace: Trace | None = None) -> datetime:
    """`start`, or at its clock on the day the lines of `words` (each dated: `anchored`) name beside
    that clock, when they name one day still ahead there and it is not `start`'s: a memo gave the
    day of the conversation to a party said for "tomorrow (Saturday February 14) from 17:00 to
    19:00" (a model's day off, blind29's 7%), the guest's plan put it at an hour already gone, and
    he never went. An hour said in words ("Sunday at three") is the clock in either half of the day.
    Days named apart from the clock, or two at it, leave `start` as it is."""
    clock = (start.hour, start.minute)
    days = {d for line in words.split("\n") if clock in clock_times(line) or (clock[0] % 12, clock[1]) in _either_half(line)
            for d in named_days(line, now.date()) if datetime.combine(d, start.timetz()) >= now}
    if len(days) != 1 or start.date() in days:
        return start
    moved = datetime.combine(days.pop(), start.timetz())
    if trace is not None:
        trace.note(f"plan: {start:%A %H:%M} is not the day said at that time: {moved:%A %B %d} taken")
    return moved


def _either_half(line: str) -> set[tuple[int, int]]:
    """The (hour, minute) on a 12-hour clock (twelve as 0) of each hour `line` says after a word of time
    ("at three", "by half past four"), which may be in either half of the day."""
    found = set()
    for m in _AROUND.finditer(line):
        figure = m["bare"] or m["hour"]
        if not figure or not 1 <= (hour := _hour(figure)) <= 12 or _COUNTED_AFTER.match(line, m.end()):
            continue
        hour, minute = _said_around(m, hour)
        found.add((hour % 12, minute))
    return found


_WHEN = re.compile(r"\b(?:today|tonight|tomorrow|this (?:morning|afternoon|evening)|(?:next |on )?(?:monday|tuesday|"
                   rf"wednesday|thursday|friday|saturday|sunday)|at (?:\d{{1,2}}(?::\d{{2}})?|{'|'.join(_WORDS)})"
                   r"|\d{1,2}:\d{2})\b", re.IGNORECASE)


def says_when(text: str) -> bool:
    """Whether a text says when something is: a date, a day ("tomorrow", "on Saturday"), a time
    ("at four", "5 pm", "17:00"), as news of an event does and a worry or a rumour does not."""
    return bool(DATED.search(text) or stated_times(text) or _WHEN.search(text))


def after_hours(text: str) -> int:
    """Where in `text` the last time it says ends ("from 3 pm to 5 pm", "17:00", "noon"), else its
    end before its closing stop: where a day it left out reads naturally put back; never after the
    closing stop ("... to 7 pm.": the time's own dot is the sentence's)."""
    ends = [m.end() for pattern in (_STATED, _CLOCK, _HOURS, _NOON) for m in pattern.finditer(text)]
    stop = len(text.rstrip(".!? "))
    return min(max(ends, default=stop), stop)


def named_days(text: str, today: date) -> list[date]:
    """The days a text names, each in the year that puts it nearest `today`."""
    found = []
    for m in DATED.finditer(text):
        month, day = (_MONTHS[m.group(1).lower()], int(m.group(2))) if m.group(1) else (
            (_MONTHS[m.group(4).lower()], int(m.group(3))) if m.group(4) else (int(m.group(6)), int(m.group(7))))
        year = int(m.group(5)) if m.group(5) else today.year - (month - today.month > 6) + (today.month - month > 6)
        try:
            found.append(date(year, month, day))
        except ValueError:
            continue
    return found


def clock_times(text: str) -> list[tuple[int, int]]:
    """The (hour, minute) of the times a text states ("7 pm"), else of its 24-hour clocks ("19:00")."""
    return stated_times(text) or [(int(m.group(1)), int(m.group(2))) for m in sorted(
        (*_CLOCK.finditer(text), *_HOURS.finditer(text)), key=lambda m: m.start())]


def clock_said(time: tuple[int, int]) -> str:
    """A clock time as the brain writes it: "19:00"."""
    return f"{time[0]:02d}:{time[1]:02d}"


def hours_said(hours: Sequence[tuple[int, int]]) -> str:
    """Hours as a news line's note and a status say them: "19:00-21:00"."""
    return "-".join(map(clock_said, hours))


CLUSTER_MINUTES = 4 * 60  # more than two times said within this span are one event's, first to last


def event_hours(clocks: Sequence[tuple[int, int]]) -> Sequence[tuple[int, int]]:
    """The first two times said, as hours from one to the other; only the first where the second is
    no end of it (before it, but for an evening's going on into the night): a model's line "a shortwave
    evening tomorrow from noon to 9 am", kept and read back, was shown as "(that is today, ..., 12:00-09:00)"
    beside the "7 pm to 9 pm" its news said (blind32's writer). More than two times that lie within
    CLUSTER_MINUTES of each other are one event's, from the first of them to the last: "doors open at
    6:30; the talk runs from 7 to 8" is 18:30-20:00, not 18:30-19:00 (Ravnholmen's host held his hour
    from its first two times, 12:00-12:30, and was at the lookout from 11:30, the third)."""
    minutes = [h * 60 + m for h, m in clocks]
    if len(clocks) > 2 and max(minutes) - min(minutes) <= CLUSTER_MINUTES:
        return [clocks[minutes.index(min(minutes))], clocks[minutes.index(max(minutes))]]
    if len(clocks) > 1 and clocks[1] <= clocks[0] and not (clocks[0] >= (18, 0) and clocks[1] <= (6, 0)):
        return clocks[:1]
    return clocks[:2]


def still_ahead(text: str, now: datetime, said_on: date | None = None) -> bool:
    """Whether `text` names a day still to come, or today with hours it states not yet over (its
    last, else its one plus EVENT_HOURS): an insight about a re-plan at 11:45 that day was carried
    to a call at 18:10 as news (blind10). `said_on`: the day the text was written, which a date
    without its year is read near (default: today)."""
    days = named_days(text, said_on or now.date())
    if any(d > now.date() for d in days):
        return True
    clocks = clock_times(text)
    end = max(clocks) if len(clocks) > 1 else (clocks[0][0] + EVENT_HOURS, clocks[0][1]) if clocks else (24, 0)
    return now.date() in days and end > (now.hour, now.minute)


def passed(text: str, said_on: date, now: datetime) -> bool:
    """Whether `text` names a day and it is over (its hours too, today): news of an event that has
    happened is no news to pass on (blind17's writer saw a resident at 17:16 still holding, as news
    on its mind, a lesson that ended at 17:00, and plans the next day seeking people to tell it).
    Text that names no day is not over."""
    return bool(named_days(text, said_on)) and not still_ahead(text, now, said_on)


WHEN_WORDS = stems(" ".join([*calendar.month_name, *calendar.day_name, "tomorrow tonight morning afternoon evening noon "
                             "midday night midnight half past quarter until till between o'clock clock hours hrs late onwards", *_WORDS]))


def more_than_when(text: str) -> bool:
    """Whether a text says more than when: a word beyond days, dates (a day of the month: "the 20th")
    and times of day."""
    return any(not _ORDINAL.fullmatch(w) for w in stems(text) - WHEN_WORDS)


_ORDINAL = re.compile(r"\d{1,4}(?:st|nd|rd|th|[ap]m|h|hrs)?")  # "20th", "3pm", "1900"
