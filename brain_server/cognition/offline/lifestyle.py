"""What a persona's lifestyle says of its day, read in code: when it wakes up and goes to bed,
its working hours ("works from 8 am to 5 pm", "opens the cafe at 8 am"), the days it works ("every
day", "Monday to Saturday") and the stretches of the day it states ("from 5 am to 1 pm"). The
routine (`routine.py`) shapes a day from these."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
import re

DEFAULT_WAKE, DEFAULT_BED = time(7), time(23)
WORK_HOURS = (time(9), time(17))
WORK_SHIFT = timedelta(hours=8)  # when only the opening time is stated
_CLOCK = r"(\d{1,2}|midnight|noon)(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?"
_WAKE = re.compile(r"\b(?:wakes?|waking|gets? up|getting up|rises?|sleeps? in until|sleeps? until)\b[^.;]{0,30}?\b"
                   + _CLOCK, re.IGNORECASE)
_BED = re.compile(r"\b(?:bed|asleep|sleeps?(?!\s+(?:in|until)\b))\b[^.;]{0,30}?\b" + _CLOCK, re.IGNORECASE)
_FROM_TO = r"\bfrom\s+" + _CLOCK + r"\s*(?:to|until|till|-|–)\s*" + _CLOCK
_WORK_FROM_TO = re.compile(r"\b(?:work(?:s|ing)?|shifts?)\b[^.;]{0,40}?" + _FROM_TO, re.IGNORECASE)
# A stated stretch of the day ("bakes at the Bakehouse from 5 am to 1 pm"); one this long at a place is
# where the working day is spent, whatever the verb ("looks after the Chapel from 9 am to 5 pm").
SPAN = re.compile(_FROM_TO, re.IGNORECASE)
WORKING_STRETCH = timedelta(hours=3)
_OPENS = re.compile(r"\b(?:opens?|starts? work)\b[^.;,]{0,30}?\bat\s+" + _CLOCK, re.IGNORECASE)
_CLOSES = re.compile(r"\b(?:closes?|finish(?:es)? work)\b[^.;,]{0,30}?\bat\s+" + _CLOCK, re.IGNORECASE)
_ASLEEP = re.compile(r"\b(?:sleeps?|asleep|bed|naps?)\b[^.;,]*$", re.IGNORECASE)  # a stretch after these is sleep
# Days its lifestyle says it works beyond Monday to Friday: a lighthouse keeper, a baker "every day".
_EVERY_DAY = re.compile(r"\b(?:every\s*day|daily|each day|seven days|all week|weekends? too|at weekends|on weekends)\b",
                        re.IGNORECASE)
_SIX_DAYS = re.compile(r"\b(?:six days|monday to saturday|mondays? to saturdays?|except (?:on )?sundays?)\b", re.IGNORECASE)


def wake_and_bed(lifestyle: str) -> tuple[time, time]:
    """The wake-up and bed times a lifestyle states ("wakes up around 6 am, goes to bed at 11 pm")."""
    return _clock(_WAKE, lifestyle, DEFAULT_WAKE, evening=False), _clock(_BED, lifestyle, DEFAULT_BED, evening=True)


def states_wake(lifestyle: str) -> bool:
    """Whether the lifestyle says when it wakes up (else `wake_and_bed`'s is a default)."""
    return _WAKE.search(lifestyle) is not None


def states_bed(lifestyle: str) -> bool:
    """Whether the lifestyle says when it goes to bed (else `wake_and_bed`'s is a default)."""
    return _BED.search(lifestyle) is not None


def work_hours(lifestyle: str) -> tuple[time, time]:
    """The working hours a lifestyle states (`stated_work_hours`), else 9 to 5."""
    return stated_work_hours(lifestyle) or WORK_HOURS


def stated_work_hours(lifestyle: str) -> tuple[time, time] | None:
    """The working hours a lifestyle states ("works from 8 am to 5 pm", "opens the cafe at 8 am, closes it at 8
    pm", a long stretch not asleep: "drives the plough from 8 pm to 4 am"; 8 hours from an opening, 9 am to a
    closing), or None."""
    match = _WORK_FROM_TO.search(lifestyle) or next((m for m in SPAN.finditer(lifestyle) if is_working_stretch(stretch(m))
                                                     and not _ASLEEP.search(lifestyle[:m.start()])), None)
    if match:
        return stretch(match)
    match = _OPENS.search(lifestyle)
    if match is None and not _CLOSES.search(lifestyle):
        return None
    opens = _time(*match.groups(), evening=False) if match else WORK_HOURS[0]
    shift_end = (datetime.combine(date.min, opens) + WORK_SHIFT).time() if match else WORK_HOURS[1]
    return opens, _clock(_CLOSES, lifestyle, shift_end, evening=True)


def working_days(lifestyle: str) -> int:
    """How many days of the week, from Monday, the lifestyle says it works: 7 ("every day",
    "daily"), 6 ("Monday to Saturday", "except Sundays"), else the 5 of a working week."""
    return 7 if _EVERY_DAY.search(lifestyle) else 6 if _SIX_DAYS.search(lifestyle) else 5


def stretch(span: re.Match[str]) -> tuple[time, time]:
    """The start and end of a stretch `SPAN` found ("from 5 am to 1 pm")."""
    return _time(*span.groups()[:3], evening=False), _time(*span.groups()[3:], evening=True)


def is_working_stretch(hours: tuple[time, time]) -> bool:
    """Whether a stretch of the day is long enough to be a working day (it may pass midnight)."""
    return (datetime.combine(date.min, hours[1]) - datetime.combine(date.min, hours[0])) % timedelta(days=1) >= \
        WORKING_STRETCH


def _clock(pattern: re.Pattern[str], text: str, default: time, *, evening: bool) -> time:
    match = pattern.search(text)
    return _time(*match.groups()[:3], evening=evening) if match else default


def _time(hour: str, minute: str | None, half: str | None, *, evening: bool) -> time:
    """A clock time as written ("midnight" and "noon" too); without am/pm, an evening time from 5 to 11
    is after noon ("bed at 11")."""
    h = int(hour) if hour.isdigit() else {"midnight": 0, "noon": 12}[hour.lower()]
    m, half = int(minute or 0), (half or "").lower()
    if half.startswith("p") and h < 12:
        h += 12
    elif half.startswith("a") and h == 12:
        h = 0
    elif not half and evening and 5 <= h < 12:
        h += 12
    return time(h % 24, min(m, 59))
