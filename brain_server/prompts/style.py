"""How dates and clock times read in a prompt: a prompt set's `style.json` (NPC_BRAIN_PROMPTS_DIR)
says it, e.g. `{"clock": "12h", "date": "weekday, day month"}`. The brain writes every date and
time one way ("Tuesday February 14, 09:15"; memories keep it so); a style rewrites them in the
filled placeholders of each prompt as it is rendered, so a game whose people say "9:15 am" and
"14 February" shows the model its own forms, and a model that reads our forms only is found out
(issue 42's reworded sets, `npc_lab/rewording.py`). The templates' own words and the answers'
forms ("HH:MM" in a schema) are not touched: an answer is asked for in the form its schema checks.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
import json
from pathlib import Path
import re
from typing import Literal, get_args

from brain_server.model.errors import ConfigError

Clock = Literal["24h", "12h", "12h dotted", "12h upper", "parts of the day"]
DateForm = Literal["weekday month day", "weekday, day month", "weekday the day of month", "weekday, short month day",
                   "weekday day short month"]
STYLE_FILE = "style.json"

_DAYS = "|".join(calendar.day_name)
_MONTHS = "|".join(m for m in calendar.month_name if m)
# The brain's own forms only: a weekday, a month and a day ("Tuesday February 14", "Tuesday February 04").
_DATE = re.compile(rf"\b({_DAYS}) ({_MONTHS}) (0?[1-9]|[12]\d|3[01])\b")
# A 24-hour clock not said with its half of the day already ("5:30 pm" is a model's, left as said),
# and a span of two ("08:00-12:00", said as one: "8 in the morning to noon").
_HOUR_MINUTE = r"([01]?\d|2[0-3]):([0-5]\d)"
_NOT_SAID_SO = r"(?![\w:]|\s*[ap]\.?m\b|\s*[AP]\.?M\b)"
_STOP_TWICE = re.compile(r"\b([ap]\.m\.)\.(?!\.)")  # "7.00 a.m.." but not an ellipsis ("a.m....")
_CLOCKS = re.compile(rf"(?<![\w:.]){_HOUR_MINUTE}(?:-{_HOUR_MINUTE})?{_NOT_SAID_SO}")  # one pass: nothing said twice


def _half_day(hour: int) -> str:
    return "in the morning" if 5 <= hour < 12 else "in the afternoon" if 12 <= hour < 17 \
        else "in the evening" if 17 <= hour < 21 else "at night"


def _clock(hour: int, minute: int, form: Clock) -> str:
    if form == "24h":
        return f"{hour:02d}:{minute:02d}"
    twelve = hour % 12 or 12
    if form == "parts of the day":
        if minute == 0 and hour in (0, 12):
            return "midnight" if hour == 0 else "noon"
        return f"{twelve}{f':{minute:02d}' if minute else ''} {_half_day(hour)}"
    if form == "12h dotted":
        return f"{twelve}.{minute:02d} {'a.m.' if hour < 12 else 'p.m.'}"
    half = "am" if hour < 12 else "pm"
    if form == "12h upper":
        return f"{twelve}:{minute:02d} {half.upper()}"
    return f"{twelve}{f':{minute:02d}' if minute else ''} {half}"


def _span(start: tuple[int, int], end: tuple[int, int], form: Clock) -> str:
    """Two clocks as one span: words of the day joined by "to" (a hyphen between them reads as one
    word), the one part of the day said once ("3 to 5 in the afternoon")."""
    if form != "parts of the day":
        return f"{_clock(*start, form)}-{_clock(*end, form)}"
    first, last = _clock(*start, form), _clock(*end, form)
    part = _half_day(start[0])
    if first.endswith(part) and last.endswith(part):
        first = first.removesuffix(f" {part}")
    return f"{first} to {last}"


def _ordinal(day: int) -> str:
    return f"{day}{'th' if 10 <= day % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th')}"


def _date(weekday: str, month: str, day: int, form: DateForm) -> str:
    short = month[:3]
    return {"weekday month day": f"{weekday} {month} {day}",
            "weekday, day month": f"{weekday}, {day} {month}",
            "weekday the day of month": f"{weekday} the {_ordinal(day)} of {month}",
            "weekday, short month day": f"{weekday}, {short} {day}",
            "weekday day short month": f"{weekday} {day} {short}"}[form]


@dataclass(frozen=True)
class Style:
    """The clock's and the date's forms; the default is the brain's own, which rewrites nothing."""

    clock: Clock = "24h"
    date: DateForm = "weekday month day"

    @property
    def plain(self) -> bool:
        return self == Style()

    def restyle(self, text: str) -> str:
        """`text` with the brain's dates and clock times in this style's forms."""
        if self.date != "weekday month day":
            text = _DATE.sub(lambda m: _date(m.group(1), m.group(2), int(m.group(3)), self.date), text)
        if self.clock != "24h":
            text = _CLOCKS.sub(self._clocks, text)
        return text

    def tidy(self, prompt: str) -> str:
        """A filled prompt without the stop said twice where a clock ending "a.m." ends a sentence
        ("It is Tuesday, Jan 20, 7.00 a.m..": the template's own stop after it)."""
        return _STOP_TWICE.sub(r"\1", prompt) if self.clock == "12h dotted" else prompt

    def _clocks(self, m: re.Match[str]) -> str:
        start = (int(m.group(1)), int(m.group(2)))
        if m.group(3) is None:
            return _clock(*start, self.clock)
        return _span(start, (int(m.group(3)), int(m.group(4))), self.clock)

    @classmethod
    def load(cls, dirs: list[Path]) -> Style:
        """The first `style.json` in `dirs` (ConfigError naming the file and the forms allowed if it
        is not one), else the default."""
        path = next((d / STYLE_FILE for d in dirs if (d / STYLE_FILE).is_file()), None)
        if path is None:
            return cls()
        try:
            given = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{path}: not readable JSON ({exc})") from None
        allowed = {"clock": get_args(Clock), "date": get_args(DateForm)}
        if not isinstance(given, dict) or set(given) - set(allowed):
            raise ConfigError(f"{path}: an object with 'clock' and/or 'date', got {given!r}")
        for key, value in given.items():
            if value not in allowed[key]:
                raise ConfigError(f"{path}: {key} {value!r} is none of {', '.join(map(repr, allowed[key]))}")
        return cls(**given)
