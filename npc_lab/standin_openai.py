"""A stand-in model that only reads its prompt: an OpenAI-compatible endpoint whose answers are a
generic function of the prompt's text and the requested JSON schema.

It knows no town, person or event. It reads what the brain shows it — the persona, the clock
("It is ...", "Today is ..."), remembered lines ("- ..."), dialogue lines (`Name: "..."`), numbered
statements, places — and copies the most relevant of them into its answer:

- a *news line* it was shown among its memories — a sentence with a date or clock time still
  ahead (e.g. "... on March 3 from 6 pm to 8 pm"), or someone's decision or intention ("X has
  decided to ...") — is repeated: the conversation line it writes shares it, the listener's reply
  accepts it, the memo repeats it and makes it a plan item on its day (only today's when the
  schema has no day to give), the day plan holds a block at that time at the place the line
  names, a re-plan keeps it, "currently" carries it, an interview answer quotes it;
- a question is answered from the shown line that shares its rarest words, and "no" when none does;
- places are chosen by the words they share with the activity, steps restate their block.

So the emergent results (diffusion, attendance) measure the brain's pipeline: what one NPC was
told reaches another only if retrieval, prompts, memos and plans carry it. Answers go through
`conform`, which makes any draft valid for the schema asked (enums, lengths, patterns, ranges,
item counts): a purpose it has no reading for, or a schema that changed, still gets a valid
answer built from the prompt. Deterministic: the same request and seed give the same answer.

    python -m npc_lab.standin_openai --port 8998 [--seed 0] [--latency 0.5]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
import hashlib
import math
import re
from typing import Any

from npc_lab.fake_openai import FakeOpenAI, arguments, serve

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
NUMBERED = re.compile(r"^\s*(\d+)\.\s+(.*)$")
SAID = re.compile(r'^\s*([\w\'.-]+(?: [A-Z][\w\'.-]*){0,3}):\s*"(.*)"\s*$')
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
        return self.text if dated or not self.when() else f"{self.text} ({self.when()})"

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
        out: list[str] = []
        for line in self.lines:
            if m := BULLET.match(line):
                out.append(m.group(1).strip())
            elif out and SAID.match(line) and not line.startswith(" "):
                out[-1] += "\n" + line.strip()
        return [b for b in out if b and not b.startswith("(") and not OPTION.match(b)]

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
        """What the clock line goes on to say ("It is 10:00. Something just changed X's plans: ...")."""
        for line in self.lines:
            if re.match(r"\s*(It is|Today is)\b", line):
                rest = re.split(r"(?<=[.!?])\s+", line.strip(), maxsplit=1)
                return [rest[1]] if len(rest) > 1 else []
        return []

    def facts(self, *, memory: bool = True, dialogue: bool = True) -> list[Fact]:
        """Every dated line shown, earliest shown first, each event once."""
        found: list[Fact] = []
        if memory:
            for text in self.bullets():
                for part in text.split("\n"):
                    said = SAID.match(part)
                    found += _facts(_unlead(said.group(2)) if said else part, self.now, "memory",
                                    said.group(1) if said else "")
            for text in [self.persona.get("currently", ""), *self.context()]:
                found += [f for f in _facts(text, self.now, "persona") if f.day or f.start]  # a persona's aims are not news
        if dialogue:
            for speaker, text in self.dialogue():
                found += _facts(text, self.now, "dialogue", speaker)
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


def _times(text: str) -> list[time]:
    found: list[tuple[int, time]] = []
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


def _facts(text: str, now: datetime | None, shown_as: str, speaker: str = "") -> list[Fact]:
    out: list[Fact] = []
    if _schedule_like(text):
        return out
    for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text.strip()):
        sentence = _unlead(sentence.strip())
        if not sentence or _schedule_like(sentence):
            continue
        times = _times(sentence)
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
    core = re.split(r",\s+(?:and|but|so)\s+|;\s*", core)[0].strip(" ,.")
    return f"going to: {core}"[:110].rstrip(" ,")


# --- the answers ------------------------------------------------------------------------------------


class StandIn:
    """One answer: a draft from the prompt, made valid for the schema by `conform`."""

    def __init__(self, body: dict[str, Any], seed: int = 0) -> None:
        self.p = Prompt.read(body)
        self.seed = seed

    @classmethod
    def of(cls, prompt: Prompt, seed: int = 0) -> StandIn:
        """A reader of an already read (or narrowed) prompt."""
        reader = cls.__new__(cls)
        reader.p, reader.seed = prompt, seed
        return reader

    def chance(self, salt: str) -> float:
        return ((self.p.seed(f"{self.seed}:{salt}") % 10_000) / 10_000)

    def answer(self) -> Any:
        schema = self.p.schema
        props = set(_resolve(schema, schema).get("properties", {})) if schema else set()
        draft = self.draft(props)
        if not schema:
            return draft
        return conform(draft, schema, schema, self)

    def draft(self, props: set[str]) -> Draft:
        if "talk" in props and "memos" in props:
            return self.told_group()
        if "talk" in props and "lines" in props:
            return self.told()
        if "utterance" in props:
            return self.turn() | ({"addressed_to": self.addressee()} if "addressed_to" in props else {})
        if "blocks" in props:
            return self.day_plan()
        if "new_blocks" in props:
            return self.replan()
        if "steps" in props:
            return self.steps()
        if "place" in props:
            return self.place()
        if "choice" in props:
            return self.react()
        if "ratings" in props:
            return {"ratings": [importance(b) for b in self.p.bullets()]}
        if "insights" in props:
            return self.insights()
        if "questions" in props:
            return self.questions()
        if "answer" in props:
            return {"answer": self.interview()}
        if "currently" in props:
            return {"currently": self.currently()}
        if "plan_activity" in props or ("summary" in props and self.p.dialogue()):
            return self.memo()
        if "summary" in props:
            return {"summary": self.relationship()}
        if "importance" in props:
            quoted = re.findall(r'"([^"]{3,})"', self.p.text)
            return {"importance": importance(max(quoted, key=len) if quoted else self.p.text)}
        return {}

    # Conversation.
    def partner(self) -> str:
        m = re.search(r"(?:talking with|conversation with|remembers about) ([^:.\n]+?)[:.\n]", self.p.text)
        return m.group(1).strip() if m else ""

    def turn(self) -> Draft:
        name, partner, said = self.p.name, self.partner(), self.p.dialogue()
        first = partner.split()[0] if partner else "there"
        spoken = " ".join(t for _, t in said)
        mine = [f for f in self.p.news() if not _told(f, spoken + self.shared_with(partner))]
        theirs = [f for f in self.p.ahead(self.p.facts(memory=False)) if f.speaker != name]
        answered = " ".join(t for s, t in said if s == name)
        news = [f for f in theirs if not _told(f, answered)]
        if news:
            f = news[-1]
            if f.start is None:
                return {"utterance": f"I heard that {f.text}. Good to know!", "end_conversation": len(said) >= 5 and not mine}
            return {"utterance": f"That sounds good, I will be there: {activity_of(f)} {f.when()}!",
                    "end_conversation": len(said) >= 5 and not mine}
        if mine:
            f = mine[0]
            return {"utterance": f"Have you heard? {f.full()}.", "end_conversation": False}
        if not said:
            about = self.about(partner)
            return {"utterance": f"Hi {first}! " + (f"I remember that {about}." if about else "How are you doing?"),
                    "end_conversation": False}
        return {"utterance": f"It was good to talk, {first}. See you around!", "end_conversation": True}

    def addressee(self) -> str:
        """Whom a line in a group is for: whoever told the news it answers, else everyone."""
        theirs = [f for f in self.p.ahead(self.p.facts(memory=False)) if f.speaker != self.p.name]
        answered = " ".join(t for s, t in self.p.dialogue() if s == self.p.name)
        return next((f.speaker for f in reversed(theirs) if not _told(f, answered)), "everyone")

    def shared_with(self, person: str) -> str:
        """What the remembered conversations with `person` said (news already exchanged with them)."""
        return " ".join(b for b in self.p.bullets() if person and person in b.split("\n")[0] and "\n" in b)

    def about(self, person: str) -> str:
        """The shown line that says the most about `person` (not a schedule)."""
        lines = [line for b in self.p.bullets() if not _schedule_like(b) for line in b.split("\n")
                 if not line.endswith(":")]
        i, score = best_match(person, lines)
        return lines[i].rstrip(".") if i >= 0 and score > 0 else ""

    def memo(self) -> Draft:
        name, said = self.p.name, self.p.dialogue()
        partner = self.partner() or next((s for s, _ in said if s != name), "someone")
        gist = next((t for s, t in said if s != name), said[0][1] if said else "")
        props = _resolve(self.p.schema, self.p.schema).get("properties", {}) if self.p.schema else {}
        dated = any(re.search(r"date|day", k) for k in props)  # the schema can take another day
        return self._memo(name, partner, self.p.ahead(self.p.facts(memory=False)), gist, dated=dated)

    def _memo(self, name: str, partner: str, facts: list[Fact], gist: str, *, dated: bool) -> Draft:
        """What `name` takes away from hearing `facts` from `partner`: the first as a plan item."""
        if not facts:
            summary = f"{name} chatted with {partner}" + (f", who said: {gist}" if gist else "")
            return {"summary": summary[:400], "importance": 2, "activity": "", "start": None, "minutes": 0}
        f = facts[0]
        summary = f"{name} heard from {partner}: {f.full()}"
        today = self.p.now.date() if self.p.now else None
        day = f.day or today
        if f.start is None or day is None or (day != today and not dated):
            return {"summary": summary[:400], "importance": importance(f.text), "activity": "", "start": None,
                    "day": None, "minutes": 0}
        minutes = _minutes(f.start, f.end) if f.end else 60
        return {"summary": summary[:400], "importance": importance(f.text), "activity": activity_of(f),
                "start": f.start, "day": day, "minutes": minutes}

    def told(self) -> Draft:
        """A conversation told in one call: each speaker shares the first news among their own
        memories that the other has not heard from them, the other accepts it, and each memo takes
        away what the other said; with no news they talk by chance, as `react` would have them."""
        name = self.p.name
        m = re.search(r"\band sees ([^,\n]+?), who was", self.p.text)
        partner = m.group(1).strip() if m else "someone"
        mine, theirs = self._to_share(name, partner), self._to_share(partner, name)
        if not (mine or theirs or self.chance("talk") < 0.35):
            return {"talk": False, "lines": []}
        lines = [{"speaker": name, "text": f"Hi {partner.split()[0]}! How are you doing?"}]
        for speaker, listener, news in ((name, partner, mine), (partner, name, theirs)):
            if news:
                f = news[0]
                lines += [{"speaker": speaker, "text": f"Have you heard? {f.full()}."},
                          {"speaker": listener, "text": f"That sounds good, I will be there: {activity_of(f)} {f.when()}!"
                           if f.start else f"I heard that {f.text}. Good to know!"}]
        if len(lines) == 1:
            lines.append({"speaker": partner, "text": f"Fine, thanks, {name.split()[0]}. See you around!"})
        gist = lambda speaker: next((line["text"] for line in lines[1:] if line["speaker"] == speaker), "")  # noqa: E731
        return {"talk": True, "lines": lines, "first": self._memo(name, partner, theirs, gist(partner), dated=True),
                "second": self._memo(partner, name, mine, gist(name), dated=True)}

    def told_group(self) -> Draft:
        """A conversation of three or more told in one call, as `told`: each shares the first news
        among its own memories that someone there has not heard from it, the others accept it,
        and each memo takes away the first news another told."""
        people = _enum_at(self.p.schema, "name")
        shares = {name: list({f.key(): f for other in people if other != name
                              for f in self._to_share(name, other)}.values())[:1] for name in people}
        if not (any(shares.values()) or self.chance("talk") < 0.35):
            return {"talk": False, "lines": [], "memos": []}
        lines = [{"speaker": people[0], "text": "Hi everyone! How are you doing?"}]
        for speaker, news in shares.items():
            for f in news:
                lines.append({"speaker": speaker, "text": f"Have you heard? {f.full()}."})
                answer = (f"That sounds good, I will be there: {activity_of(f)} {f.when()}!" if f.start
                          else f"I heard that {f.text}. Good to know!")
                lines += [{"speaker": listener, "text": answer} for listener in people if listener != speaker]
        memos = []
        for name in people:
            teller = next((other for other in people if other != name and shares[other]), "")
            memo = self._memo(name, teller or ", ".join(o for o in people if o != name), shares.get(teller, []),
                              "", dated=True)
            memos.append(memo | {"name": name})
        return {"talk": True, "lines": lines, "memos": memos}

    def _to_share(self, speaker: str, listener: str) -> list[Fact]:
        """News among what `speaker` remembers (its section of the prompt) not yet told to `listener`."""
        heard = Prompt(self.p.system, "", self.p.schema, self.p.under(f"What {speaker} remembers"), speaker, self.p.now)
        return [f for f in heard.news() if not _told(f, StandIn.of(heard, self.seed).shared_with(listener))]

    def relationship(self) -> str:
        partner = self.partner() or "them"
        about = self.about(partner)
        if about:
            return f"{partner} is someone {self.p.name} knows: {about}."
        return f"{self.p.name} does not know {partner} well yet."

    def react(self) -> Draft:
        offered = _enum_at(self.p.schema, "choice")
        talk_line = next((line for line in self.p.lines if re.search(r'"talk"', line)), "")
        can_talk = "talk" in (offered or ["talk"]) and bool(talk_line) and \
            not re.search(r"\b(not possible|busy|cannot)\b", talk_line)
        observed = self.p.quoted()[0] if self.p.quoted() else ""
        subject = self.p.dialogue_partner_of(observed)
        news = [f for f in self.p.news() if not _told(f, self.shared_with(subject))]
        if can_talk and (news or self.chance("talk") < 0.35):
            reason = f"wants to tell them: {news[0].text}" if news else f"says hello after noticing: {observed}"
            return {"choice": "talk", "reason": reason[:300], "new_activity": ""}
        return {"choice": "continue", "reason": f"keeps to the plan after noticing: {observed}"[:300],
                "new_activity": ""}

    # Interviews and thoughts.
    def interview(self) -> str:
        question = next((q for q in reversed(self.p.quoted()) if "?" in q), self.p.quoted()[-1] if self.p.quoted() else "")
        lines = self.p.bullets()
        lines += [s for key in ("identity", "currently") for s in re.split(r"(?<=[.;])\s+", self.p.persona.get(key, ""))
                  if s]
        flat = [_unlead(line.replace("\n", " ")) for line in lines]
        focus = [w for w in dict.fromkeys(words(question)) if w not in words(self.p.name)]
        weights = rarity(flat)
        need = min(2, len(focus))
        hits = [(sum(weights.get(w, 0.0) for w in set(focus) & set(words(t))), len(set(focus) & set(words(t))), t)
                for t in flat]
        hits = [h for h in hits if h[1] >= need and h[1] > 0]
        if not hits:
            if m := re.match(r"(?:do|did) you (?:know|remember) (?:about |of )?(.+)", question.strip(" ?"), re.I):
                return f"No, I do not know {m.group(1)}."
            topic = re.sub(r"^(?:(?:do|did|have|has|what|who|when|where|how|are|is)\s+)?(?:you\s+)?(?:heard\s+)?"
                           r"(?:about\s+|of\s+)?", "", question.strip(" ?"), flags=re.I)
            return f"No, I have not heard anything about {topic}." if topic else "No, I could not say."
        best = max(hits, key=lambda h: (h[1], h[0]))[2]
        return f"Yes. {best}"[:600]

    def currently(self) -> str:
        old = self.p.persona.get("currently", "").strip()
        news = [f for f in self.p.news() if f.shown_as == "memory"]
        add = next((f"{f.full()}." for f in news if not _told(f, old)), "")
        glue = (". " if not old.endswith(".") else " ") if old and add else ""
        return (old + glue + add)[:500] or f"{self.p.name} is going about the usual days."

    def questions(self) -> Draft:
        counts: dict[str, int] = {}
        for b in self.p.bullets():
            for n in re.findall(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b", b):
                if n != self.p.name:
                    counts[n] = counts.get(n, 0) + 1
        names = sorted(counts, key=lambda n: (-counts[n], n))
        qs = [f"What does {self.p.name} know about {n}?" for n in names[:3]]
        news = self.p.facts(dialogue=False)
        if news:
            qs.insert(0, f"What is {self.p.name} going to do about this: {news[0].text}?")
        return {"questions": qs or [f"What has {self.p.name} been doing lately?"]}

    def insights(self) -> Draft:
        numbered = [(int(m.group(1)), m.group(2)) for line in self.p.lines if (m := NUMBERED.match(line))]
        ranked = sorted(numbered, key=lambda s: (-importance(s[1]), s[0]))
        out = []
        for number, text in ranked[:5]:
            flat = _unlead(text.replace("\n", " "))
            out.append({"insight": f"{self.p.name} learned that {flat}"[:300],
                        "about": (re.findall(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b", flat) or ["daily life"])[0],
                        "evidence": [number], "importance": importance(flat)})
        return {"insights": out}

    # Plans and places.
    def places(self) -> list[str]:
        """The places the schema allows for a block (the prompt's list otherwise)."""
        found = _enum_at(self.p.schema, "address")
        return found or self.p.section("places")

    def where(self, text: str) -> str:
        """What a line says about a place: without who does it (a person's name is not where they go,
        even when their home bears it)."""
        text = re.sub(r"^(?:going to:\s*)?(?:[A-Z][\w'-]*\s){1,3}(?=[a-z])", "", text)
        return " ".join(w for w in text.split() if w.strip(".,:;'\"").removesuffix("'s") not in self.p.name.split())

    def place_for(self, text: str, places: list[str], default: str) -> str:
        i, score = best_match(self.where(text), places, rarity(places))
        return places[i] if i >= 0 and score > 0 else default

    def day_plan(self) -> Draft:
        """The persona's usual day (its lifestyle's hours, at the place its text names most), with a
        block at the time of every dated line for today it was shown, at the place that line names."""
        p, places = self.p, self.places()
        home = places[0] if places else ""
        lifestyle = p.persona.get("lifestyle", "")
        wake = _hour_near(lifestyle, r"wak\w*|get\w* up|rise\w*") or 7
        bed = _hour_near(lifestyle, r"bed|sleep") or 23
        bed = bed if bed > wake + 8 else min(23, wake + 16)
        hours = sorted({t.hour for t in _times(lifestyle)} - {wake, bed})
        begin = max(hours[0] if hours else 9, wake + 1)
        finish = hours[-1] if len(hours) > 1 and hours[-1] > begin + 2 else max(begin + 4, 17)
        finish = min(finish, bed - 1)
        persona = " ".join(p.persona.get(k, "") for k in ("lifestyle", "identity", "currently"))
        others = places[1:] or places
        work = self.place_for(persona, others, others[0] if others else home)
        out = [x for x in others if x.rsplit(":", 1)[0] != home.rsplit(":", 1)[0]] or others
        lunch = out[self.p.seed(f"lunch:{p.name}") % len(out)] if out else home
        arena = lambda a: a.rsplit(":", 1)[-1]  # noqa: E731
        plan = [(wake * 60, "waking up and getting ready", "🪥", home),
                (wake * 60 + 30, "having breakfast", "🍳", home),
                (begin * 60, f"busy at the {arena(work)}", "💼", work)]
        if begin < 12 < finish - 1:
            plan += [(12 * 60, f"having lunch at the {arena(lunch)}", "🥪", lunch),
                     (13 * 60, f"busy at the {arena(work)}", "💼", work)]
        plan += [(finish * 60, "relaxing at home", "🛋️", home),
                 (max(finish, 18) * 60 + 30, "having dinner", "🍲", home),
                 (bed * 60, "sleeping", "😴", home)]
        plan = sorted({b[0]: b for b in plan}.values())
        today = p.now.date() if p.now else None
        events = [f for f in p.facts(dialogue=False) if f.start and f.day == today]
        for f in events:
            begin, end = _mins(f.start), _mins(f.end) if f.end else _mins(f.start) + 60
            if not wake * 60 < begin < bed * 60:
                continue
            end = min(max(end, begin + 15), bed * 60 - 5)
            resume = max(((s, a, e, ad) for s, a, e, ad in plan if s <= end), key=lambda x: x[0])
            plan = [b for b in plan if not begin <= b[0] < end]
            plan += [(begin, activity_of(f), "📅", self.place_for(f.text, places, work))]
            if resume[1] != "sleeping" and all(b[0] != end for b in plan):
                plan.append((end, resume[1], resume[2], resume[3]))
        plan.sort(key=lambda b: b[0])
        blocks = []
        for (start, activity, emoji, address), nxt in zip(plan, [*plan[1:], None], strict=True):
            minutes = (nxt[0] - start) if nxt else 8 * 60
            blocks.append({"start": f"{start // 60 % 24:02d}:{start % 60:02d}", "duration_minutes": max(5, minutes),
                           "activity": activity, "emoji": emoji, "address": address})
        outline = [b["activity"] + f" at {b['start']}" for b in blocks if b["activity"] != "sleeping"]
        return {"wake_up_hour": wake, "outline": outline[:8], "blocks": blocks}

    def replan(self) -> Draft:
        p, places = self.p, self.places()
        starts = _enum_at(p.schema, "start")
        planned = [m for line in p.section("Planned so far") if (m := re.match(
            r"(\d{1,2}:\d{2})-\d{1,2}:\d{2}\s+(.*?)\s+\(([^()]*)\)$", line))]
        blocks = [{"start": _at_or_after(m.group(1), starts), "activity": m.group(2), "emoji": "🗓️",
                   "address": m.group(3)} for m in planned]
        today = p.now.date() if p.now else None
        for f in p.news():
            if f.start and f.day == today and f"{f.start:%H:%M}" in starts[1:]:
                blocks.append({"start": f"{f.start:%H:%M}", "activity": activity_of(f), "emoji": "📅",
                               "address": self.place_for(f.text, places, places[0] if places else "")})
        blocks = list({b["start"]: b for b in sorted(blocks, key=lambda b: b["start"])}.values())
        if blocks and starts:
            blocks[0]["start"] = starts[0]
        return {"new_blocks": blocks[:6] or [{"start": starts[0] if starts else "", "activity": "carrying on",
                                              "emoji": "🙂", "address": places[0] if places else ""}]}

    def steps(self) -> Draft:
        m = re.search(r"\((\d+) minutes\) .*? is (.+), at ([^\n]+?)\.\s*$", self.p.text, re.M)
        activity = m.group(2) if m else "getting on with it"
        minutes = int(m.group(1)) if m else 30
        node = _resolve(self.p.schema, self.p.schema.get("properties", {}).get("steps", {}))
        count = max(1, node.get("minItems", 1))
        objects = [o for o in _enum_at(self.p.schema, "object") if o]
        thing = self.place_for(activity, objects, "") if objects else ""
        names = [f"starting: {activity}", activity, f"finishing: {activity}"]
        steps = []
        for i in range(count):
            label = names[0] if i == 0 and count > 2 else names[2] if i == count - 1 and count > 2 else names[1]
            steps.append({"activity": label[:80], "duration_minutes": max(5, min(15, minutes // count)),
                          "object": thing, "object_state": "in use" if thing else "", "verb": "", "arguments": []})
        if verb := self.verb_for(activity):
            steps[0].update(verb)
        return {"steps": steps}

    def verb_for(self, doing: str) -> Draft:
        """The offered verb whose description shares the most telling words with what the step does
        (its object the first it applies to, each argument its first choice or its least value), or {}."""
        offered = [m for m in VERB_LINE.finditer(self.p.text) if m.group(1) in _enum_at(self.p.schema, "verb")]
        if not offered:
            return {}
        texts = [m.group(3) for m in offered]
        i, score = best_match(self.where(doing), texts, rarity(texts))
        if i < 0 or score <= 0:
            return {}
        chosen = offered[i]
        arguments = [{"name": a.group(1), "value": a.group(2) or a.group(3)}
                     for a in VERB_ARGUMENT.finditer(chosen.group(4) or "")]
        step: Draft = {"verb": chosen.group(1), "arguments": arguments}
        if chosen.group(2):
            step.update(object=chosen.group(2).split(" or the ")[0], object_state="in use")
        return step

    def place(self) -> Draft:
        m = re.search(r'about to do this: "([^"]*)"', self.p.text)
        activity = m.group(1) if m else self.p.text
        branches = _resolve(self.p.schema, self.p.schema.get("properties", {}).get("place", {})).get("anyOf", [])
        options = [(b["properties"]["sector"]["enum"][0], b["properties"]["arena"]["enum"][0],
                    b["properties"]["object"]["enum"]) for b in branches if "properties" in b]
        if not options:
            return {"place": {}}
        labels = [f"{s} {a}" for s, a, _ in options]
        i, score = best_match(self.where(activity), labels, rarity(labels))
        sector, arena, objects = options[i if i >= 0 and score > 0 else 0]
        things = [o for o in objects if o]
        j, hit = best_match(activity, things) if things else (-1, 0)
        return {"place": {"sector": sector, "arena": arena, "object": things[j] if j >= 0 and hit > 0 else ""}}


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


def _enum_at(schema: dict[str, Any], key: str) -> list[str]:
    """The enum of the first property named `key` anywhere in the schema."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if found or not isinstance(node, dict):
            return
        props = node.get("properties", {})
        if key in props and "enum" in _resolve(schema, props[key]):
            found.extend(_resolve(schema, props[key])["enum"])
            return
        for value in [*props.values(), *node.get("$defs", {}).values(), node.get("items"), *node.get("anyOf", [])]:
            walk(value)

    walk(schema)
    return found


# --- any draft, valid for any schema ----------------------------------------------------------------


def _resolve(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while isinstance(node, dict) and "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


ALIASES = {"day": ("date", "day"), "start": ("start", "time", "when"), "activity": ("activity", "what", "item", "event"),
           "minutes": ("minutes", "duration", "length")}


def _draft_value(draft: Any, key: str) -> Any:
    """The draft's value for a schema property: by its name, else by what the name means."""
    if not isinstance(draft, dict):
        return None
    if key in draft:
        return draft[key]
    low = key.lower()
    for meaning, cues in ALIASES.items():
        if any(c in low for c in cues):
            return draft.get(meaning)
    return None


def conform(value: Any, node: dict[str, Any], root: dict[str, Any], reader: StandIn, name: str = "value") -> Any:
    """`value` made valid for `node`; where it cannot be, a value built from the prompt."""
    node = _resolve(root, node)
    if "anyOf" in node:
        for option in node["anyOf"]:
            if _valid(value, _resolve(root, option), root):
                return value
        return conform(value, node["anyOf"][0], root, reader, name)
    if "enum" in node:
        options = list(node["enum"])
        if isinstance(value, (date, time)):
            value = next((c for c in _formats(value) if c in options), "" if "" in options else str(value))
        elif value is None and "" in options:
            value = ""
        if value in options:
            return value
        text = value if isinstance(value, str) and value else reader.p.text
        labels = [str(o) for o in options]
        i, score = best_match(text, labels, rarity(labels)) if all(isinstance(o, str) for o in options) else (-1, 0)
        return options[i] if i >= 0 and score > 0 else options[0]
    kind = node.get("type", "object" if "properties" in node else "string")
    if kind == "object":
        props = node.get("properties", {})
        return {k: conform(_draft_value(value, k), sub, root, reader, k) for k, sub in props.items()}
    if kind == "array":
        items = node.get("items", {})
        values = list(value) if isinstance(value, list) else []
        if "enum" in _resolve(root, items) and node.get("maxItems") == len(_resolve(root, items)["enum"]):
            order = list(dict.fromkeys([v for v in values if v in _resolve(root, items)["enum"]]))
            values = order + [o for o in _resolve(root, items)["enum"] if o not in order]
        lo, hi = node.get("minItems", 0), node.get("maxItems", max(len(values), node.get("minItems", 0), 1))
        values = values[:hi]
        while len(values) < max(lo, 1 if not values and lo else lo):
            values.append(values[-1] if values else None)
        return [conform(v, items, root, reader, name) for v in values]
    if kind in ("integer", "number"):
        lo, hi = node.get("minimum", -math.inf), node.get("maximum", math.inf)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            value = importance(reader.p.text) if "importance" in name else (lo if lo > -math.inf else 0)
        value = min(max(value, lo), hi)
        return int(round(value)) if kind == "integer" else float(value)
    if kind == "boolean":
        return bool(value) if isinstance(value, bool) else False
    return _string(value, node, reader, name)


def _formats(value: date | time) -> list[str]:
    """A date's or a clock time's spellings, the most common first."""
    if isinstance(value, datetime):
        return [f"{value:%Y-%m-%d %H:%M}", f"{value:%Y-%m-%dT%H:%M}", f"{value:%Y-%m-%d}", f"{value:%H:%M}"]
    if isinstance(value, date):
        return [f"{value:%Y-%m-%d}", f"{MONTHS[value.month - 1].title()} {value.day}", f"{value:%m-%d}"]
    return [f"{value:%H:%M}", f"{value.hour}:{value.minute:02d}"]


def _string(value: Any, node: dict[str, Any], reader: StandIn, name: str) -> str:
    if isinstance(value, (date, time)):
        candidates = _formats(value)
    elif isinstance(value, str):
        candidates = [value]
    elif value is None and "pattern" in node:
        candidates = [""]
    else:
        best = next((b for b in reader.p.bullets()), "") or reader.p.name or name
        candidates = [_unlead(best.replace("\n", " "))]
    candidates += _spellings(" ".join(c for c in candidates if c), reader.p.now)
    low, high = node.get("minLength", 0), node.get("maxLength", 10_000)
    for c in [*candidates, ""]:
        c = c[:high]
        if len(c) >= low and ("pattern" not in node or re.fullmatch(node["pattern"], c)):
            return c
    return (candidates[0] + " ." * low)[:high]


def _spellings(text: str, now: datetime | None) -> list[str]:
    """The date and time a text names (else the prompt's own), in the ways a pattern may want them."""
    day = _day_of(text, now) or (now.date() if now else None)
    times = _times(text) or ([now.time()] if now else [])
    out = []
    if day and times:
        moment = datetime.combine(day, times[0])
        out += [f"{moment:%Y-%m-%d %H:%M}", f"{moment:%Y-%m-%dT%H:%M}", f"{moment:%Y-%m-%dT%H:%M:%S}"]
    if times:
        out += [f"{times[0]:%H:%M}", f"{times[0].hour}:{times[0].minute:02d}"]
    if day:
        out += [f"{day:%Y-%m-%d}", f"{day:%m-%d}", f"{MONTHS[day.month - 1].title()} {day.day}",
                WEEKDAYS[day.weekday()].title()]
    return out


def _valid(value: Any, node: dict[str, Any], root: dict[str, Any]) -> bool:
    """Whether `value` fits `node` (the JSON Schema the brain's prompts use)."""
    node = _resolve(root, node)
    if "anyOf" in node:
        return any(_valid(value, o, root) for o in node["anyOf"])
    if "enum" in node:
        return value in node["enum"]
    kind = node.get("type", "object" if "properties" in node else None)
    if kind == "object":
        props = node.get("properties", {})
        return isinstance(value, dict) and all(k in value for k in node.get("required", [])) and \
            (node.get("additionalProperties", True) is not False or set(value) <= set(props)) and \
            all(_valid(v, props[k], root) for k, v in value.items() if k in props)
    if kind == "array":
        return isinstance(value, list) and node.get("minItems", 0) <= len(value) <= node.get("maxItems", 10**9) and \
            all(_valid(v, node.get("items", {}), root) for v in value)
    if kind == "string":
        return isinstance(value, str) and node.get("minLength", 0) <= len(value) <= node.get("maxLength", 10**9) and \
            ("pattern" not in node or re.fullmatch(node["pattern"], value) is not None)
    if kind in ("integer", "number"):
        return isinstance(value, (int, float)) and not isinstance(value, bool) and \
            node.get("minimum", -math.inf) <= value <= node.get("maximum", math.inf)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    return True


def respond(body: dict[str, Any], seed: int = 0) -> Any:
    """The stand-in's answer to a chat request (its JSON value)."""
    return StandIn(body, seed).answer()


class StandInOpenAI(FakeOpenAI):
    """The fake endpoint's server, answering with `respond` instead of random words:
    `with StandInOpenAI(seed=1) as model: model.base_url`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, latency_s: float = 0.0, *, seed: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(host, port, latency_s, seed=seed, **kwargs)
        self.seed = seed

    def answer(self, body: dict[str, Any], purpose: str | None) -> Any:
        return respond(body, self.seed)

    def describe(self) -> str:
        return f"stand-in model (reads its prompt, seed {self.seed}) on {self.base_url}"


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0]).parse_args()
    serve(StandInOpenAI(args.host, args.port, args.latency, seed=args.seed, fault_rate=args.fault_rate,
                        slow_s=args.slow))


if __name__ == "__main__":
    main()

