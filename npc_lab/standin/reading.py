"""Reading a prompt: its lines by kind (memories, dialogue, persona, the clock), the dated
lines and intentions it shows (news), and which shown text shares the most telling words with another."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
import hashlib
from itertools import takewhile
import math
import re
from typing import Any

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH = r"(January|February|March|April|May|June|July|August|September|October|November|December)"
_WEEKDAY = r"(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
CLOCK = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
AMPM = re.compile(r"\b(1[0-2]|0?[1-9])(?:[:.]([0-5]\d))?\s*([ap])\.?\s?m\b\.?", re.I)
NOON = re.compile(r"\b(noon|midday|midnight)\b", re.I)
MONTH_DAY = re.compile(_MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?\b", re.I)
DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH, re.I)
ON_WEEKDAY = re.compile(r"\b(?:on|this|next)\s+" + _WEEKDAY + r"\b", re.I)
# Parts of the day a paraphrased time names, and the hour a listener takes each for (read only
# with `periods`: the cooperative stand-in never says them, and personas' habits use them freely).
PERIODS = {"morning": time(10), "lunchtime": time(12), "afternoon": time(15), "after work": time(17, 30),
           "evening": time(18), "tonight": time(20)}
PERIOD = re.compile(r"\b(" + "|".join(PERIODS) + r")\b", re.I)
# A listener saying it will not come ("Sorry, I can't make it"): its memo then plans nothing.
DECLINED = re.compile(r"\b(?:can't|cannot|can not|won't be able to) (?:make it|come|go|join)\b", re.I)
# How the hard-to-please stand-in answers an invitation (hard.py), and how it reads one back: an
# answer to news, never news itself ("count me in, after work today!" names a time, not an event).
ACCEPT, DECLINE = "Sounds lovely, count me in", "Sorry, I can't make it"
# An answer to news, also as a line written with its speaker's name or quotes ("Ryan: \"Sounds lovely ...").
ANSWER = re.compile(rf"^(?:[A-Z][\w'-]*(?: [A-Z][\w'-]*)*:\s*)?[\"“]?(?:{ACCEPT}|{DECLINE})\b")
RELATIVE = re.compile(r"\b(today|tonight|this (?:morning|afternoon|evening)|tomorrow)\b", re.I)
# Someone's decision or intention: news even without a date.
INTENT = re.compile(r"\b(?:has|have|had) decided to\b|\bdecided to\b|\b(?:wants?|plans?|intends?|hopes?) to\b|"
                    r"\bis (?:planning|organi[sz]ing|hosting|running|standing)\b", re.I)
DURATION = re.compile(r"\(\d+\s*min\)")
YEAR = re.compile(r"\b(19|20)\d{2}\b")
LISTED = re.compile(r"^\d{1,2}:\d{2}-\d{1,2}:\d{2}\s")  # "- 17:00-19:00 activity (place)": a plan's line
WORD = re.compile(r"[a-z0-9]+")
# A verb the prompt offers: '- "name" (on the object or the other): what it does. Arguments: ...'.
VERB_LINE = re.compile(r'^- "(\w+)"(?: \(on the ([^)]+)\))?: (.*?)(?: Arguments: (.*))?$', re.M)
VERB_ARGUMENT = re.compile(r'(\w+): (?:"([^"]*)"|[^0-9;-]*(-?\d+(?:\.\d+)?))')
BULLET = re.compile(r"^\s*-\s+(.*)$")
# The day (and time) the brain shows before a memory ("[Friday February 13, 18:00] ...").
MEMORY_DAY = re.compile(r"^\[" + _WEEKDAY + r"\s+" + _MONTH + r"\s+(\d{1,2})(?:,\s*\d{1,2}:\d{2})?\]\s*")
NUMBERED = re.compile(r"^\s*(\d+)\.\s+(.*)$")
# A line said ('Name: "..."'): a name of up to four words, after its first each capitalised or a number
# ("Guard #2"), or led by an article ("the player"); not an instruction ('Someone asks Odile: "..."').
SAID = re.compile(r'^\s*((?:the |a |an )?[\w\'.#-]+(?: [A-Z#\d][\w\'.#-]*){0,3}):\s*"(.*)"\s*$')
# What this model adds around a line it repeats, taken off again when it reads that line back.
LEAD_INS = ("Have you heard? ", "That sounds good, I will be there: ", "I heard that ", "I remember that ",
            "Yes, I know. ", "Yes. ")
OPTION = re.compile(r'^"[^"]{1,40}":')  # '- "talk": start a conversation ...': a choice offered, not a memory
HEARD = re.compile(r"^[^:\n]{1,80} heard from [^:\n]{1,80}: ")  # how its memos begin
# Words too common to tell lines apart (function words and the brain's own prompt vocabulary).
STOP = set("""a an the and or but of to in on at by for from with without as is are was were be been being it its
this that these those there here i me my you your he him his she her they them their we us our who whom what when
where which why how do does did done have has had having not no yes any some all each every one about into over
after before again very just also so than then too can could would should will shall may might must own same
other such only more most much many few up down out off now ever know knows knew known heard hear tell told think
thinks thought say said day days today time times thing things anything something nothing someone anyone please
let lets get got going go goes like well really""".split())

Draft = dict[str, Any]


# --- reading the prompt -------------------------------------------------------------------------


def words(text: str) -> list[str]:
    """Lower-case content words, plurals and possessives folded ("parties" stays, "cafes" -> "cafe")."""
    out = []
    for w in WORD.findall(text.lower().replace("'s", "")):
        if w in STOP or len(w) < 2:
            continue
        out.append(_stem(w))
    return out


def _stem(w: str) -> str:
    """A crude English stem, enough to match "running" with "run" and "cafes" with "cafe"."""
    for suffix in ("ing", "ed"):
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            w = w[: -len(suffix)]
            return w[:-1] if len(w) > 2 and w[-1] == w[-2] else w
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


@dataclass
class Fact:
    """News: a dated line (a sentence that says when something happens), or someone's intention
    ("X has decided to ...", "X wants to ..."), which is news without a date."""

    text: str
    day: date | None  # None: no date given (the day the prompt is about)
    start: time | None
    end: time | None
    shown_as: str  # "memory", "dialogue", "persona" or "context"
    speaker: str = ""
    intent: bool = False

    def key(self) -> tuple[Any, ...]:
        return self.day, self.start, tuple(sorted(set(words(self.text)))[:6])

    def full(self) -> str:
        """The line with its date and time spelled out when it gives no date of its own."""
        dated = MONTH_DAY.search(self.text) or DAY_MONTH.search(self.text)
        if dated or not self.when():
            return self.text
        # "tomorrow" is only right on the day it was said: the date spelled out replaces it
        text = re.sub(r"\s{2,}", " ", RELATIVE.sub("", self.text)).strip() if self.day else self.text
        return f"{text} ({self.when()})"

    def when(self) -> str:
        """The date and time in words that survive retelling (no "tomorrow")."""
        parts = []
        if self.day:
            parts.append(f"on {WEEKDAYS[self.day.weekday()].title()} {MONTHS[self.day.month - 1].title()} {self.day.day}")
        if self.start:
            parts.append(f"at {_clock12(self.start)}" + (f" until {_clock12(self.end)}" if self.end else ""))
        return " ".join(parts)


@dataclass
class Prompt:
    """What the stand-in reads in one request."""

    system: str
    text: str
    schema: dict[str, Any]
    lines: list[str] = field(default_factory=list)
    name: str = ""
    now: datetime | None = None
    persona: dict[str, str] = field(default_factory=dict)
    periods: bool = False  # "tomorrow evening" names a time (see PERIODS)

    @classmethod
    def read(cls, body: dict[str, Any]) -> Prompt:
        messages = body.get("messages", [])
        system = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
        text = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") != "system")
        schema = (((body.get("response_format") or {}).get("json_schema") or {}).get("schema")) or {}
        p = cls(system, text, schema, text.splitlines())
        for line in p.lines:
            if m := re.match(r"^(Name|Age|Innate traits|Identity|Lifestyle|Currently):\s*(.*)$", line.strip()):
                p.persona.setdefault(m.group(1).lower(), m.group(2))
        m = re.search(r"inner mind of ([^,.\n]+)", system)
        p.name = p.persona.get("name") or (m.group(1).strip() if m else "")
        p.now = _now(text)
        return p

    # Lines by what they are.
    def bullets(self) -> list[str]:
        """Remembered and listed lines ("- ..."), a multi-line memory joined to its first line."""
        return [text for _, text in self.dated_bullets()]

    def dated_bullets(self) -> list[tuple[date | None, str]]:
        """`bullets`, each with the day the prompt shows before it (None when it shows none)."""
        out: list[str] = []
        for line in self.lines:
            if m := BULLET.match(line):
                out.append(m.group(1).strip())
            elif out and SAID.match(line) and not line.startswith(" "):
                out[-1] += "\n" + line.strip()
        dated = [self._memory_day(b) for b in out]
        return [(day, b) for day, b in dated if b and not b.startswith("(") and not OPTION.match(b)]

    def _memory_day(self, bullet: str) -> tuple[date | None, str]:
        """A memory's own day, when the prompt shows it, and the memory without it."""
        m = MEMORY_DAY.match(bullet)
        if m is None:
            return None, bullet
        day = _date(self.now.year, m.group(2), int(m.group(3))) if self.now else None
        return day or _date_on(m.group(1), m.group(2), int(m.group(3))), bullet[m.end():]

    def section(self, heading: str) -> list[str]:
        """The "- " lines under the first line that contains `heading`, up to the next blank line."""
        return [m.group(1).strip() for line in self.under(heading) if (m := BULLET.match(line))]

    def under(self, heading: str) -> list[str]:
        """The lines under the first line that contains `heading`, up to the next blank line."""
        for i, line in enumerate(self.lines):
            if heading.lower() in line.lower():
                rest = self.lines[i + 1:]
                return rest[:next((j for j, later in enumerate(rest) if not later.strip()), len(rest))]
        return []

    def dialogue(self) -> list[tuple[str, str]]:
        """(speaker, text) of the lines of the conversation shown, in order."""
        out, remembered = [], False
        for line in self.lines:
            if BULLET.match(line):
                remembered = True  # the lines said under a remembered conversation belong to it
                continue
            m = SAID.match(line)
            remembered = remembered and m is not None
            if m and not remembered:
                out.append((m.group(1).strip(), _unlead(m.group(2).strip())))
        return out

    def quoted(self) -> list[str]:
        """Text quoted inside instruction lines ('has just noticed: "..."', 'asks X: "..."')."""
        return [q for line in self.lines if not BULLET.match(line) and not SAID.match(line)
                for q in re.findall(r'"([^"]{3,})"', line)]

    def context(self) -> list[str]:
        """What the clock line goes on to say ("It is 10:00. Something just changed X's plans: ..."),
        and the lines of its paragraph after it, up to a blank line or a heading: a conversation's
        prompt states the news on a speaker's mind there, not among its memories."""
        for i, line in enumerate(self.lines):
            if re.match(r"\s*(It is|Today is)\b", line):
                rest = re.split(r"(?<=[.!?])\s+", line.strip(), maxsplit=1)
                after = list(takewhile(lambda x: x.strip() and not x.rstrip().endswith(":") and not BULLET.match(x),
                                       self.lines[i + 1:]))
                return [*rest[1:], *after]
        return []

    def facts(self, *, memory: bool = True, dialogue: bool = True) -> list[Fact]:
        """Every dated line shown, earliest shown first, each event once."""
        found: list[Fact] = []
        if memory:
            for day, text in self.dated_bullets():
                said_on = datetime.combine(day, self.now.time()) if day and self.now else self.now  # "tomorrow" then
                for part in text.split("\n"):
                    said = SAID.match(part)
                    found += _facts(_unlead(said.group(2)) if said else part, said_on, "memory",
                                    said.group(1) if said else "", periods=self.periods)
            for text in [self.persona.get("currently", ""), *self.context()]:
                found += [f for f in _facts(text, self.now, "persona", periods=self.periods) if f.day or f.start]  # a persona's aims are not news
        if dialogue:
            for speaker, text in self.dialogue():
                found += _facts(text, self.now, "dialogue", speaker, periods=self.periods)
        seen: set[tuple[Any, ...]] = set()
        out = []
        for f in found:
            if f.key() not in seen:
                seen.add(f.key())
                out.append(f)
        return out

    def news(self) -> list[Fact]:
        """News among the memories, dated first: lines still to come (a time alone may be a habit, a
        day makes news) and intentions."""
        found = [f for f in self.ahead(self.facts(dialogue=False)) if f.day is not None or f.intent]
        return sorted(found, key=lambda f: f.day is None)

    def ahead(self, facts: list[Fact]) -> list[Fact]:
        """The facts still to come (all of them when the prompt tells no time)."""
        if self.now is None:
            return facts
        today, clock = self.now.date(), self.now.time()
        return [f for f in facts if (f.day or today) > today
                or ((f.day or today) == today and f.start is not None and (f.end or f.start) > clock)
                or (f.intent and f.day is None and f.start is None)]

    def dialogue_partner_of(self, observed: str) -> str:
        """Who an observation is about: the name it starts with ("Ann Lee is reading" -> Ann Lee)."""
        m = re.match(r"((?:[A-Z][\w'-]*\s?){1,4}?)\s+(?:is|are|was|has)\b", observed)
        return m.group(1).strip() if m else ""

    def seed(self, salt: str = "") -> int:
        return int(hashlib.sha256((salt + self.system + self.text).encode()).hexdigest()[:12], 16)


def _now(text: str) -> datetime | None:
    """The prompt's own time: the first "It is ..." / "Today is ..." line with a date."""
    for line in text.splitlines():
        if not re.match(r"\s*(It is|Today is)\b", line):
            continue
        m = MONTH_DAY.search(line)
        if not m:
            continue
        year = YEAR.search(line) or YEAR.search(text)
        weekday = re.search(_WEEKDAY, line, re.I)
        day = _date(int(year.group(0)), m.group(1), int(m.group(2))) if year else \
            _date_on(weekday.group(1) if weekday else "", m.group(1), int(m.group(2)))
        clock = CLOCK.search(line[m.end():]) or CLOCK.search(line)
        if day is None:
            continue
        return datetime.combine(day, time(int(clock.group(1)), int(clock.group(2))) if clock else time(7))
    return None


def _date_on(weekday: str, month: str, day: int) -> date | None:
    """The date with this month, day and weekday nearest the year 2025 (a prompt without its year)."""
    for offset in range(0, 30):
        for year in (2025 + offset, 2025 - offset):
            found = _date(year, month, day)
            if found and (not weekday or found.weekday() == WEEKDAYS.index(weekday.lower())):
                return found
    return _date(2000, month, day)


def _date(year: int, month: str, day: int) -> date | None:
    try:
        return date(year, MONTHS.index(month.lower()) + 1, day)
    except ValueError:
        return None


def _clock12(t: time) -> str:
    hour = t.hour % 12 or 12
    return f"{hour}{f':{t.minute:02d}' if t.minute else ''} {'am' if t.hour < 12 else 'pm'}"


def _times(text: str, periods: bool = False) -> list[time]:
    found: list[tuple[int, time]] = []
    if periods:
        found += [(m.start(), PERIODS[m.group(1).lower()]) for m in PERIOD.finditer(text)]
    for m in CLOCK.finditer(text):
        found.append((m.start(), time(int(m.group(1)), int(m.group(2)))))
    for m in AMPM.finditer(text):
        hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "p" else 0)
        found.append((m.start(), time(hour, int(m.group(2) or 0))))
    for m in NOON.finditer(text):
        found.append((m.start(), time(0) if m.group(1).lower() == "midnight" else time(12)))
    return [t for _, t in sorted(found, key=lambda x: x[0])]


def _schedule_like(text: str) -> bool:
    """A plan or a list of steps (several times or durations), not one piece of news."""
    return len(set(_times(text))) + len(DURATION.findall(text)) >= 3 or text.count(";") >= 2 \
        or bool(LISTED.match(text))


def _facts(text: str, now: datetime | None, shown_as: str, speaker: str = "", *, periods: bool = False) -> list[Fact]:
    out: list[Fact] = []
    if _schedule_like(text):
        return out
    for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text.strip()):
        sentence = _unlead(sentence.strip())
        if not sentence or _schedule_like(sentence) or ANSWER.match(sentence):
            continue
        times = _times(sentence, periods)
        day = _day_of(sentence, now)
        intent = bool(INTENT.search(sentence)) and not sentence.startswith("going to:")
        if not times and day is None and not intent:
            continue
        out.append(Fact(sentence.rstrip(".!? "), day, times[0] if times else None,
                        times[1] if len(times) > 1 and times[1] > times[0] else None, shown_as, speaker, intent))
    return out


def _day_of(sentence: str, now: datetime | None) -> date | None:
    year = now.year if now else 2000
    if m := MONTH_DAY.search(sentence):
        return _date(year, m.group(1), int(m.group(2)))
    if m := DAY_MONTH.search(sentence):
        return _date(year, m.group(2), int(m.group(1)))
    if now is None:
        return None
    if m := RELATIVE.search(sentence):
        return now.date() + timedelta(days=1 if m.group(1).lower() == "tomorrow" else 0)
    if m := ON_WEEKDAY.search(sentence):
        ahead = (WEEKDAYS.index(m.group(1).lower()) - now.weekday()) % 7
        return now.date() + timedelta(days=ahead)
    return None


def _unlead(text: str) -> str:
    """The line without what this model wrapped it in when it wrote it."""
    while True:
        before = text
        for lead in LEAD_INS:
            text = text.removeprefix(lead)
        text = HEARD.sub("", text, count=1)
        if text == before:
            return text


# --- relevance ------------------------------------------------------------------------------------


def rarity(texts: list[str]) -> dict[str, float]:
    """Inverse document frequency of each word over `texts`: words every text shares weigh nothing."""
    n = len(texts)
    counts: dict[str, int] = {}
    for t in texts:
        for w in set(words(t)):
            counts[w] = counts.get(w, 0) + 1
    return {w: math.log((n + 1) / c) for w, c in counts.items()}


def best_match(query: str, candidates: list[str], weights: dict[str, float] | None = None) -> tuple[int, float]:
    """(index, score) of the candidate sharing the most (rare) words with the query; (-1, 0) if none does."""
    weights = weights if weights is not None else rarity(candidates)
    wanted = set(words(query))
    best, score = -1, 0.0
    for i, c in enumerate(candidates):
        s = sum(weights.get(w, 0.0) for w in wanted & set(words(c)))
        if s > score + 1e-9:
            best, score = i, s
    return best, score


def importance(text: str) -> int:
    """How much a line would matter: news with a date or time most, sleep and routine least."""
    if re.search(r"\b(sleep|sleeping|asleep|idle)\b", text, re.I):
        return 1
    score = 2
    if any(f.day or f.start for f in _facts(text, None, "memory")):
        score += 5
    if INTENT.search(text) or re.search(r"\b(invit\w*|news)\b", text, re.I):
        score += 3
    if len(re.findall(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b", text)) >= 2:
        score += 1
    return max(1, min(10, score))


def activity_of(fact: Fact) -> str:
    """A plan's few words for a dated line: the line itself, up to its first aside, its source dropped
    ("Ann thinks: the fair opens at 3 pm, and ..." -> "going to: the fair opens at 3 pm")."""
    core = re.sub(r"^[^:]{1,80}\b(?:thinks|said|says|heard from [^:]{1,60}):\s*", "", fact.text)
    core = first_clause(core)
    return f"going to: {core}"[:110].rstrip(" ,")


def first_clause(text: str) -> str:
    """A sentence up to its first aside ("the fair opens at 3 pm, and ..." -> "the fair opens at 3 pm")."""
    return re.split(r",\s+(?:and|but|so)\s+|;\s*", text)[0].strip(" ,.")


def _told(f: Fact, text: str) -> bool:
    """Whether `text` already says this fact (most of its words)."""
    mine, there = set(words(f.text)), set(words(text))
    return bool(mine) and len(mine & there) >= 0.6 * len(mine)


def _minutes(a: time, b: time) -> int:
    return max(15, _mins(b) - _mins(a))


def _mins(t: time) -> int:
    return t.hour * 60 + t.minute


def _hour_near(text: str, cue: str) -> int | None:
    """The hour of the first time named right after a cue ("wakes up around 7 am")."""
    m = re.search(rf"(?:{cue})[^,;.]*", text, re.I)
    times = _times(m.group(0)) if m else []
    return times[0].hour if times else None


def _at_or_after(clock: str, allowed: list[str]) -> str:
    later = [s for s in allowed if s >= clock.zfill(5)]
    return later[0] if later else (allowed[-1] if allowed else clock)
