"""Days said from when a text was written ("tomorrow", "tonight", "on Saturday"), as a text a model
wrote is kept (`anchored`: each given its date, "tomorrow (Wednesday January 21)") and read again on
later days (`redated`: "today (Wednesday January 21)" on the 21st): memories, memos and statuses
are read for days after they were written."""

from __future__ import annotations

import calendar
from datetime import date, timedelta
import re

from brain_server.cognition.offline.said_clock import DATED, named_days
from brain_server.model.memory import unstamped

# A day said twice in a row ("to Tomorrow tomorrow", a model's garble) is dated once, after the second.
_RELATIVE = re.compile(r"\b(tomorrow|today|tonight|this (?:morning|afternoon|evening))\b(?! \()(?!['\u2019]s\b)"
                       r"(?![\s,]+\1\b)", re.IGNORECASE)
_DAYS = [d.lower() for d in calendar.day_name]
# A weekday said without its date: "on Saturday", "next Friday", "Saturday the 11th".
_WEEKDAY = re.compile(rf"(?<!\()\b(?:(next|this|coming) )?({'|'.join(_DAYS)})\b(?: the (\d{{1,2}})(?:st|nd|rd|th)?\b)?"
                      r"(?! \()(?!['\u2019]s\b)(?!\))", re.IGNORECASE)  # "(Saturday)" is a date given already


# Said as two days from now: kept as that day's date ("on Friday November 20"), which needs no saying again later.
_AFTER_TOMORROW = re.compile(r"\bthe day after tomorrow\b(?! \()", re.IGNORECASE)
# Said as so many days from now ("in two days", "in 3 days' time", "a week from today"): kept as that day's date.
_NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
            "ten": 10, "a couple of": 2}
_IN_DAYS = re.compile(rf"\b(?:in\s+(?P<n>\d{{1,2}}|{'|'.join(_NUMBERS)})\s+(?P<unit>days?|weeks?)(?:['\u2019]?\s+time)?"
                      rf"|(?P<m>\d{{1,2}}|{'|'.join(_NUMBERS)})\s+(?P<unit2>days?|weeks?)\s+from\s+(?:today|now))\b"
                      r"(?!\s+(?:of|or|in a row|running|later)\b)", re.IGNORECASE)
# A day of the month said alone: "on the 12th", "by the 3rd," (not "on the 2nd floor", nor a month's date or a weekday's).
_MONTH_DAY = re.compile(r"(?<!\()\b(?:on|by|until|till|from|before|after) the (\d{1,2})(?:st|nd|rd|th)\b"
                        r"(?! \()(?=\s*(?:[,.;:!?)]|$)|\s+(?:at|from|between|in|and|when|it|this|to|until|till|after|"
                        r"before|for|if|so|but|or|is|will|there|we|he|she|they|I)\b)", re.IGNORECASE)


def says_day(text: str, today: date) -> bool:
    """Whether a text says a day: a date (`named_days`), or one said from when it was said ("today",
    "tonight", "on Saturday", "on the 12th"), which `anchored` leaves undated where the text names a date
    elsewhere."""
    return bool(named_days(text, today) or _RELATIVE.search(text) or _WEEKDAY.search(text) or _MONTH_DAY.search(text))


def anchored(text: str, today: date) -> str:
    """A text a model wrote today, as it is kept: without the stamps it copied from its prompt
    (an insight "learned that [Friday April 10, 07:00] Owen is busy" was shown with two stamps, and
    a blind model's writer could not tell which was the news), and with each day it says relative
    to today ("tomorrow", "tonight") given its date too ("tomorrow (Wednesday January 21)"), unless
    it names a date already: it is read on later days, and "a lesson tomorrow" written on Tuesday
    was told on as Thursday's on Wednesday, and the host, reading his own memos, missed his lesson
    (blind7, Korrin). A day of the month said alone ("on the 12th") is the next such day: a town's
    whisper that named its day so was read as naming none, and its host's news said no day. "The day
    after tomorrow" is that day's date (it was dated as tomorrow), and so is a day said as so many
    days or weeks from now ("in two days", "a week from today": the brain's own news says "in 2
    days", and a thought that said so named no day)."""
    text = redated(_dated_beside(unstamped(text), today), today)
    if named_days(text, today):
        return text
    text = _AFTER_TOMORROW.sub(lambda m: f"on {day_named(today + timedelta(days=2))}", text)
    text = _IN_DAYS.sub(lambda m: f"{'On' if m[0][0].isupper() else 'on'} {day_named(today + timedelta(days=_days_ahead(m)))}",
                        text)
    if named_days(text, today):
        return text

    def dated(m: re.Match[str]) -> str:
        day = today + timedelta(days=m.group(1).lower() == "tomorrow")
        return f"{m.group(0)} ({day_named(day)})"

    def weekday(m: re.Match[str]) -> str:
        day = _next_weekday(today, _DAYS.index(m.group(2).lower()), after=bool(m.group(1)) and
                            m.group(1).lower() != "this", on=int(m.group(3)) if m.group(3) else 0)
        return f"{m.group(0)} ({day:%B} {day.day})"

    def month_day(m: re.Match[str]) -> str:
        day = _next_month_day(today, int(m.group(1)))
        return f"{m.group(0)} ({day_named(day)})" if day else m.group(0)

    return _RELATIVE.sub(dated, _MONTH_DAY.sub(month_day, _WEEKDAY.sub(weekday, text)))


def _days_ahead(said: re.Match[str]) -> int:
    """How many days on `_IN_DAYS` says: "in two days" 2, "a week from today" 7."""
    count, unit = said["n"] or said["m"], (said["unit"] or said["unit2"]).lower()
    number = int(count) if count.isdigit() else _NUMBERS[" ".join(count.lower().split())]
    return number * (7 if unit.startswith("week") else 1)


def _next_month_day(today: date, on: int) -> date | None:
    """The first day from `today` that is the `on`th of a month ("the 12th" said on the 11th: tomorrow)."""
    return next((d for d in (today + timedelta(days=n) for n in range(32)) if d.day == on), None)


_WEEKDAY_SAID = rf"(?:{'|'.join(calendar.day_name)})"
# A relative day said next to a date: before it ("tomorrow, Saturday April 11") or after it ("on April 11 tomorrow").
_RELATIVE_BEFORE = re.compile(rf"\b(tomorrow|today|tonight),?\s+(?:on\s+)?(?:{_WEEKDAY_SAID},?\s+)?(?:the\s+)?$",
                              re.IGNORECASE)
_DATE_LEAD = re.compile(rf"(?:\bon\s+)?(?:\b{_WEEKDAY_SAID},?\s+)?(?:\bthe\s+)?$", re.IGNORECASE)
_RELATIVE_AFTER = re.compile(r",?\s+(tomorrow|today|tonight)\b(?! \()", re.IGNORECASE)


def _dated_beside(text: str, today: date) -> str:
    """`text` with a relative day said next to the date it means ("on April 11 tomorrow") kept as
    `anchored` keeps one ("tomorrow (Saturday April 11)"), so that `redated` says it afresh on later
    days: a status kept on April 10 read "on April 11 tomorrow" on April 11 (blind25's writer). A
    relative day that is not that date (a model's slip) is left as said."""
    for m in reversed(list(DATED.finditer(text))):
        days = named_days(m.group(0), today)
        before = _RELATIVE_BEFORE.search(text, 0, m.start())
        after = None if before else _RELATIVE_AFTER.match(text, m.end())
        said = before or after
        if not days or said is None or (days[0] - today).days != (said.group(1).lower() == "tomorrow"):
            continue
        lead = before or _DATE_LEAD.search(text, 0, m.start())
        start, end = lead.start() if lead else m.start(), m.end() if before else said.end()
        text = f"{text[:start]}{said.group(1)} ({day_named(days[0])}){text[end:]}"
    return text


# A relative day given its date, as `anchored` keeps it: "tomorrow (Saturday April 11)".
_DATED_RELATIVE = re.compile(r"\b(tomorrow|today|tonight|this (?:morning|afternoon|evening)) \(((?:[A-Z][a-z]+day )?"
                             r"[A-Z][a-z]+ \d{1,2})\)")


def redated(text: str, today: date) -> str:
    """`text` with each relative day given its date ("tomorrow (Saturday April 11)") said as that
    date is from `today`: "today (Saturday April 11)" on the 11th, "on Saturday April 11" on another
    day. A status written on Friday was copied on Saturday, and blind22's writer read the baker's
    "tomorrow (Saturday April 11) morning" on Saturday as maybe Sunday's."""
    def said(m: re.Match[str]) -> str:
        days = named_days(m.group(2), today)
        if not days:
            return m.group(0)
        ahead = (days[0] - today).days
        if ahead == 0:
            return m.group(0) if m.group(1).lower() != "tomorrow" else f"today ({m.group(2)})"
        return f"tomorrow ({m.group(2)})" if ahead == 1 else f"on {m.group(2)}"
    return _DATED_RELATIVE.sub(said, text)


_PART_OF_DAY = {"tonight": "the night of ", "this morning": "the morning of ", "this afternoon": "the afternoon of ",
                "this evening": "the evening of "}
_BEFORE_A_DAY = re.compile(r"\b(?:by|until|till|from|since|before|after|for|on|of|to|than)\s+$", re.IGNORECASE)


def dates_alone(text: str) -> str:
    """`text` with each relative day given its date ("tomorrow (Saturday April 11)") said by the date
    alone ("on Saturday April 11"), as a kept memory is listed, whatever day it is read on: read the
    day after, a remembered "tomorrow" named the wrong day (blind34's writer), and made "today" it
    put words in a quoted speaker's mouth on a line stamped the day before (blind35's writer, 493
    prompts)."""
    def said(m: re.Match[str]) -> str:
        before = m.string[:m.start()]
        on = "" if _BEFORE_A_DAY.search(before) else "on "
        return f"{on}{_PART_OF_DAY.get(m.group(1).lower(), '')}{m.group(2)}"
    return _DATED_RELATIVE.sub(said, text)


def _next_weekday(today: date, weekday: int, *, after: bool, on: int) -> date:
    """The first day from `today` (`after`: from tomorrow) that is that weekday, and the `on`th of a
    month if one such is within five weeks: "Saturday the 11th" said on Friday April 10."""
    first = today + timedelta(days=(weekday - today.weekday()) % 7 or (7 if after else 0))
    return next((d for d in (first + timedelta(weeks=w) for w in range(5)) if d.day == on), first)


def day_said(day: date, today: date) -> str:
    """A day in the forms a kept text says one (as `anchored` and `redated` leave it): "today
    (Wednesday January 21)", "tomorrow (Wednesday January 21)", else "on Wednesday January 21"."""
    named, ahead = day_named(day), (day - today).days
    return f"today ({named})" if ahead == 0 else f"tomorrow ({named})" if ahead == 1 else f"on {named}"


def day_named(day: date) -> str:
    """A day as the brain names it in what it keeps and shows: "Wednesday January 21"."""
    return f"{day:%A %B} {day.day}"
