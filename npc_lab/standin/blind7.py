"""Blind stand-in model no. 7: written from captured requests only, frozen before any town run.

``respond(body, seed)`` returns the text a middling instruction-tuned model would put in
``choices[0].message.content``. It reads meaning, not headings: people are capitalised
"First Last" names seen in persona/memory text (acting as subject of a verb or as a speaker),
times in any style ("5 pm", "17:00", "half past five", "after work", "tonight"), dates as
weekday / month-day / ISO / "today" / "tomorrow", places from the schema's enum or from the
place lists in the prompt. An *event* is a statement with a future date and a time of day
(bracketed memory stamps are stripped first); statements about the same day with shared words
are one event. Every decision below is drawn from ``random.Random(seed + sha256(messages))``.

Declared rules (rates fixed before any run; "+soc"/"-res" = +0.1 for a sociable/talkative/
nosy/energetic/jovial trait, -0.1 for a shy/quiet/reserved/tired/stubborn trait):

1. Telling news (one-to-one turn, group turn, gist of a conversation): a speaker who knows of
   a future event that has not come up in this conversation brings it up, saying what, when and
   where: host of the event p = 0.8; heard it from others p = 0.55 on the speaker's first line,
   0.4 on later lines (+soc/-res). A speaker who already told it keeps to small talk.
2. Answering an invitation/news heard in the conversation (turn, group turn, gist); if the
   speaker's memories show they already declined it, the rate is halved; already accepted -> 0.85:
   from the host (an invitation): free at that time p = 0.6 accept; plan holds an ordinary
   activity (work, meal, chore, leisure) 0.5; plan holds a real commitment (another event, a
   visit/appointment with a named person) 0.2. Passed-on news of someone else's event: says
   they mean to go p = 0.4 free / 0.3 ordinary / 0.1 commitment; else just acknowledges.
   (+soc/-res on all of these.)
3. Conversation memo (plan change): says it means to go / accepted in the lines -> plan item at
   the event's date, time, length and place p = 0.85; only heard of it, no answer -> 0.12;
   declined -> 0.03; the host -> no new item (already planned) p = 0.9 else repeats it.
   Importance: event news 6 (+-1), invitations accepted 7, small talk 2-3.
4. Day plan: lifestyle wake/work/bed hours; on Saturday/Sunday a day off instead of work with
   p = 0.4. Event on that day: host p = 0.95; said they would go p = 0.85; heard only p = 0.35
   (+soc/-res); said they cannot go p = 0.08. With news to pass on and places where untold
   people will be listed: spends one free hour at one of them p = 0.5. A re-plan of the next
   hours (blocks without a wake-up hour): the same rates for an event starting within two hours,
   else carries on with the current activity.
5. React to an observed person: has news that person has not heard -> "talk" p = 0.55,
   "wait" 0.15 (only if offered), else continue; no news -> talk 0.2 (+soc/-res), wait 0.05,
   react 0.05, else continue. Only choices the schema offers.
6. Ending a conversation: [end]/end_conversation with p = 0.08 on the first line, 0.3 after
   3+ lines, 0.65 after 7+ lines; always after saying goodbye.
7. Gist of a meeting: they talk p = 0.8 if someone has news, else 0.45.
8. Importance ratings: routine (sleep, meals, waking, chores, "is busy/relaxing") 1-3,
   chatting 3-4, news of an event 5-7, invitations/conflicts 6-8, +-1 noise p = 0.3.
9. Interviews: answers from the memories shown; knows a person/event that the memories or
   persona mention p = 0.92 (else says it does not remember well); otherwise says it does not
   know.
10. Status, relation, questions, insights, steps: built from the persona and memories, no
    behavioural decision beyond rule 1-4 facts (goes to the event only if a memory shows it
    said it would or it hosts it).
11. Malformed answers p = 0.05 per request (not for a one-boolean probe): truncated JSON 0.3,
    prose around the JSON 0.25, a refusal 0.15, the speaker's name in front 0.3. For plain
    text: name in front 0.5, missing tag 0.25, refusal 0.25.
Unknown request kinds: a generic schema filler that reads the prompt for names, places and
times; plain text when no schema. Never raises (falls back to a minimal valid answer).
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import random
import re
from typing import Any

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
NUMS = {w: i for i, w in enumerate(["zero", "one", "two", "three", "four", "five", "six", "seven",
                                     "eight", "nine", "ten", "eleven", "twelve"])}
SOC = {"sociable", "talkative", "chatty", "outgoing", "gregarious", "friendly", "energetic",
       "jovial", "nosy", "curious", "warm", "generous", "cheerful", "lively", "gossipy"}
RES = {"shy", "quiet", "reserved", "introverted", "taciturn", "tired", "grumpy", "stubborn",
       "private", "aloof", "solitary", "busy", "withdrawn"}
ACCEPT = re.compile(r"count me in|i'll (?:be there|come|go|join)|i will (?:come|go|be there)|"
                    r"see you there|i'd love to|love to come|wouldn't miss|i'm in\b|sounds (?:great|lovely|fun)"
                    r"|mean to go|i'll try to make it|plan(?:ning)? to go", re.I)
DECLINE = re.compile(r"can't make it|cannot (?:make it|go|come)|can not go|won't be able|"
                     r"not able to|have other plans|i'm busy|i am busy|afraid i can't|have to pass|"
                     r"cannot go", re.I)
COMMIT = re.compile(r"\b(?:calling on|visit|meet|appointment|party|match|concert|service|"
                    r"rehearsal|lesson|going to|event|dance|fair|meeting|date with|dinner with|"
                    r"festival|wedding|funeral|ceremony|game|hosting)\b", re.I)
NAME_RE = re.compile(r"\b([A-Z][a-z]+(?:[-'][A-Za-z]+)?) ([A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?)\b")
CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?|o'clock)(?![a-z])|\b(\d{1,2}):(\d{2})\b", re.I)
VAGUE = [(r"\bhalf past (\w+)", None), (r"\bquarter past (\w+)", None), (r"\bnoon|midday", 720),
         (r"\bmidnight", 0), (r"\blunch ?time", 750), (r"\bafter work", 1050),
         (r"\bsundown|sunset|dusk", 1170), (r"\btonight|this evening|in the evening|evening", 1140),
         (r"\bafternoon", 900), (r"\bmorning", 540), (r"\bdinner ?time|supper ?time", 1110)]


# ------------------------------------------------------------------ small parsing helpers
def _clock_minutes(m: re.Match, pm_default: bool) -> int | None:
    if m.group(4):
        h, mi = int(m.group(4)), int(m.group(5))
        return h * 60 + mi if h < 24 and mi < 60 else None
    h, mi, suf = int(m.group(1)), int(m.group(2) or 0), (m.group(3) or "").lower()
    if h > 12 or mi > 59:
        return None
    if suf.startswith("p") and h < 12:
        h += 12
    elif suf.startswith("a") and h == 12:
        h = 0
    elif suf.startswith("o") and pm_default and h < 8:
        h += 12
    return h * 60 + mi


def times_in(text: str, pm_default: bool = True) -> list[int]:
    """All times of day in ``text``, in order of appearance (clock first, then vague words)."""
    found: list[tuple[int, int]] = []
    for m in CLOCK.finditer(text):
        v = _clock_minutes(m, pm_default)
        if v is not None:
            found.append((m.start(), v))
    low = text.lower()
    for pat, val in VAGUE:
        for m in re.finditer(pat, low):
            if val is None:
                w = m.group(1)
                h = NUMS.get(w, int(w) if w.isdigit() else -1)
                if 0 < h <= 12:
                    h = h + 12 if pm_default and h < 8 else h
                    found.append((m.start(), h * 60 + (30 if "half" in pat else 15)))
            elif not any(abs(p - m.start()) < 3 for p, _ in found):
                found.append((m.start() + 10000, val))  # vague words rank after clocks
    return [v for _, v in sorted(found)]


def has_clock(text: str) -> bool:
    return bool(CLOCK.search(text)) or bool(re.search(r"half past|quarter past|noon|midnight", text, re.I))


def hhmm(mins: int) -> str:
    mins %= 1440
    return f"{mins // 60:02d}:{mins % 60:02d}"


def say_time(mins: int) -> str:
    h, m = divmod(mins % 1440, 60)
    suf = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return f"{h12}{f':{m:02d}' if m else ''} {suf}"


def dates_in(text: str, ref: _dt.date | None, year: int) -> list[_dt.date]:
    out: list[tuple[int, _dt.date]] = []
    low = text.lower()
    for m in re.finditer(r"\b(\d{4})-(\d{2})-(\d{2})\b", low):
        try:
            out.append((m.start(), _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))))
        except ValueError:
            pass
    mon = "|".join(MONTHS)
    for m in re.finditer(rf"\b({mon})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b|\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({mon})\b", low):
        mo = MONTHS.index(m.group(1) or m.group(4)) + 1
        d = int(m.group(2) or m.group(3))
        try:
            out.append((m.start(), _dt.date(year, mo, d)))
        except ValueError:
            pass
    if ref is not None:
        for m in re.finditer(r"\b(today|tonight|this (?:morning|afternoon|evening)|tomorrow)\b", low):
            if not any(abs(p - m.start()) < 30 for p, _ in out):
                out.append((m.start(), ref + _dt.timedelta(days=1 if m.group(1) == "tomorrow" else 0)))
        for m in re.finditer(r"\b(" + "|".join(DAYS) + r")\b", low):
            if not any(abs(p - m.start()) < 25 for p, _ in out):
                delta = (DAYS.index(m.group(1)) - ref.weekday()) % 7
                out.append((m.start(), ref + _dt.timedelta(days=delta)))
    return [d for _, d in sorted(out, key=lambda x: x[0])]


STAMP = re.compile(r"\[([^\]]{4,40})\]")
ADDR = r"[A-Z][\w'-]*(?: [\w'-]+)*(?::(?! )[\w'-]+(?: [\w'-]+)*)+"


class Ctx:
    """What a model gathers from one request: who it is, when it is, people, places, events."""

    def __init__(self, body: dict):
        msgs = body.get("messages") or []
        self.system = "\n".join(str(m.get("content") or "") for m in msgs if m.get("role") == "system")
        self.user = "\n".join(str(m.get("content") or "") for m in msgs if m.get("role") != "system")
        self.text = self.system + "\n" + self.user
        rf = body.get("response_format") or {}
        js = rf.get("json_schema") if isinstance(rf, dict) else None
        self.schema = (js or {}).get("schema") if isinstance(js, dict) else None
        if self.schema is None and isinstance(rf, dict) and rf.get("type") == "json_object":
            self.schema = {}
        yr = re.search(r"\b(19|20)\d\d\b", self.user)
        self.year = int(yr.group(0)) if yr else 2026
        self.now_date, self.now_min = self._now()
        self.people = self._people()
        self.me = self._me()
        self.places = self._places()
        self.traits = set(w.lower() for w in re.findall(r"[A-Za-z]+", self._persona(self.me)))
        self.mood = 0.1 * bool(self.traits & SOC) - 0.1 * bool(self.traits & RES)

    def _now(self) -> tuple[_dt.date, int | None]:
        plain = STAMP.sub(" ", self.user)
        pat = r"\b(?:" + "|".join(DAYS) + r"),?\s+((?:" + "|".join(MONTHS) + r")\s+\d{1,2}|\d{1,2}\s+(?:" + \
            "|".join(MONTHS) + r"))(?:,?\s*\d{4})?"
        full = re.search(pat + r",?\s*(?:at\s+)?(\d{1,2}:\d{2})", plain, re.I) or re.search(pat + r"()", plain, re.I)
        ds = dates_in(full.group(1), None, self.year) if full else dates_in(plain, None, self.year)
        if ds:
            return ds[0], (times_in(full.group(2))[0] if full and full.group(2) else None)
        stamps = [dates_in(s, None, self.year) for s in STAMP.findall(self.user)]
        stamps = [s[0] for s in stamps if s]
        return (max(stamps) if stamps else _dt.date(self.year, 1, 1)), None

    def _people(self) -> list[str]:
        cnt: dict[str, int] = {}
        bad = set(MONTHS) | set(DAYS)
        addr_words = set()
        for a in re.findall(ADDR, self.text):
            addr_words.update(p.strip() for p in a.split(":"))
        for m in NAME_RE.finditer(self.text):
            n = m.group(0)
            if m.group(1).lower() in bad or m.group(2).lower() in bad or n in addr_words:
                continue
            after = self.text[m.end():m.end() + 14]
            if re.match(r"(?:: \"| is | was | heard| told| said| wants| knows| has | learned| chatted| cannot| means|, who|\?|\")", after):
                cnt[n] = cnt.get(n, 0) + 1
        for en in _enums_named(self.schema, ("speaker", "name", "addressed_to")):
            for n in en:
                if n and n != "everyone":
                    cnt[n] = cnt.get(n, 0) + 1
        return [n for n, c in sorted(cnt.items(), key=lambda x: -x[1])]

    def _me(self) -> str:
        for m in NAME_RE.finditer(self.system):
            if m.group(0) in self.people:
                return m.group(0)
        for m in NAME_RE.finditer(self.user[:300]):
            if m.group(0) in self.people:
                return m.group(0)
        return self.people[0] if self.people else "I"

    def _persona(self, who: str) -> str:
        i = self.user.find(who)
        return self.user[i:i + 700] if i >= 0 else self.user[:700]

    def _places(self) -> list[str]:
        out: list[str] = []
        for en in _enums_named(self.schema, ("address", "plan_place", "place", "location")):
            out += [p for p in en if p and p not in out]
        for p in re.findall(ADDR, self.user):
            p = p.strip()
            if p not in out and len(p) < 120 and not re.fullmatch(r"[A-Z]{1,3}:[A-Z]{1,3}", p):
                out.append(p)
        return out

    def name_short(self, n: str) -> str:
        return n.split()[0] if n and n != "I" else n


def persona_sentences(ctx: Ctx, who: str) -> list[str]:
    """Sentences of the persona text (not memories) that mention ``who``."""
    out = []
    for line in ctx._persona(ctx.me).split("\n\n")[0].split("\n")[:8]:
        if line.strip().startswith("-") or line.strip().endswith(":"):
            continue
        body = line.split(":", 1)[1] if re.match(r"^[A-Za-z ]{1,20}:", line) else line
        out += [x.strip(" .;") for x in re.split(r"(?<=[.;])\s+", body) if who in x and len(x) < 220]
    return out


def last_seen(text: str, who: str) -> str:
    acts = re.findall(r"(?m)^- \[[^\]]*\] " + re.escape(who) + r" is ([a-z][^(\n\"]{3,60}?)\s*(?:\(|$)", text)
    return acts[-1].strip() if acts else ""


def _enums_named(schema: Any, keys: tuple) -> list[list]:
    found: list[list] = []

    def walk(s: Any, key: str = "") -> None:
        if isinstance(s, dict):
            if "enum" in s and key in keys:
                found.append(list(s["enum"]))
            for k, v in s.items():
                if k == "properties" and isinstance(v, dict):
                    for pk, pv in v.items():
                        walk(pv, pk)
                elif k != "enum":
                    walk(v, key if k in ("items", "anyOf", "allOf") else k)
        elif isinstance(s, list):
            for x in s:
                walk(x, key)
    walk(schema)
    return found


# ------------------------------------------------------------------ events
class Event:
    def __init__(self, core: str, date: _dt.date, start: int, end: int | None):
        self.core, self.date, self.start, self.end = core, date, start, end
        self.mentions = 1
        self.exact = False
        self.words = _content(core)

    def length(self) -> int:
        return max(30, min(240, (self.end - self.start) if self.end and self.end > self.start else 120))


def _content(s: str) -> set:
    stop = {"the", "a", "an", "to", "on", "at", "of", "and", "in", "is", "for", "up", "get", "with",
            "wants", "from", "pm", "am", "this", "that", "by", "be", "it", "going"}
    return {w for w in re.findall(r"[a-z]{3,}", s.lower()) if w not in stop and w not in MONTHS and w not in DAYS}


def _core(stmt: str, people: list[str]) -> str:
    s = re.sub(r"\(that is [^)]*\)", "", stmt)
    s = re.sub(r"^[A-Z][\w'-]+(?: [A-Z][\w'-]+)?:\s*\"", "", s)
    s = re.split(r"\"\s*/\s*|\s+/\s+", s)[0]
    for _ in range(4):
        m = re.search(r":\s+(?=(?:" + "|".join(re.escape(p) for p in people[:40]) + r")\b)", s) if people else None
        if not m:
            break
        s = s[m.end():]
    s = re.sub(r"^.{0,40}?\?\s+", "", s) if "?" in s[:40] else s
    s = re.sub(r"\s*\((?:on|at|starting|finishing|planned)[^)]*\)?", "", s)
    s = re.sub(r";\s*\w+ \w+ cannot go.*$", "", s)
    s = re.sub(r"\b(?:on \w+ \d{1,2} )?from \d.*$|,? and to ask.*$", "", s)
    s = re.sub(r"\s+(?:tomorrow|this|today|tonight)\b.*$", "", s)
    return s.strip(" .\"'-:;,")


def find_events(ctx: Ctx, text: str, past: bool = False) -> list[Event]:
    evs: list[Event] = []
    pieces: list[tuple[_dt.date, str]] = []
    for line in text.split("\n"):
        stamp = STAMP.search(line)
        ref_d = dates_in(stamp.group(1), None, ctx.year) if stamp else []
        for sent in re.split(r"(?<=[.!?])\s+(?=[A-Z\[])", STAMP.sub(" ", line)):
            pieces.append((ref_d[0] if ref_d else ctx.now_date, sent))
    for ref, body in pieces:
        body = re.sub(r"\"[^\"]*\"?", lambda m: "" if ACCEPT.search(m.group(0)) or DECLINE.search(m.group(0)) else m.group(0), body)
        if not re.search(r"\d|noon|night|evening|afternoon|morning|past|sundown|sunset|dusk|after work", body, re.I):
            continue
        ds = dates_in(body, ref, ctx.year)
        ts = times_in(body)
        if not ds or not ts or re.search(r"'s plan for|schedule", body):
            continue
        d, st = ds[-1] if "(that is" in body else ds[0], ts[0]
        if re.search(r"\(that is", body):
            tail = body[body.find("(that is"):]
            tt = times_in(tail)
            st = tt[0] if tt else st
        end = ts[1] if len(ts) > 1 and ts[1] > st else None
        if not past and (d < ctx.now_date or (d == ctx.now_date and ctx.now_min is not None and st + 60 <= ctx.now_min)):
            continue
        if d == ctx.now_date and st == ctx.now_min and not re.search(r"\d:\d\d\s*-|from|until|to \d", body):
            continue
        core = _core(body.strip(" -"), ctx.people)
        if len(core) < 8 or re.match(r"^\d", core) or ACCEPT.search(core) or DECLINE.search(core) or len(_content(core)) < 2:
            continue
        ev = Event(core, d, st, end)
        ev.exact = has_clock(body)
        for e in evs:
            if e.date == ev.date and len(e.words & ev.words) >= max(1, min(len(e.words), len(ev.words)) // 2):
                e.mentions += 1
                if len(ev.core) < len(e.core) and len(ev.words) >= 3:
                    e.core = ev.core
                if (e.end is None and ev.end) or (ev.exact and not e.exact):
                    e.start, e.end, e.exact = ev.start, ev.end or e.end, ev.exact
                break
        else:
            evs.append(ev)
    return sorted(evs, key=lambda e: -e.mentions)


def host_of(ev: Event, ctx: Ctx) -> str:
    m = NAME_RE.match(ev.core)
    return m.group(0) if m and m.group(0) in ctx.people else ""


def when_phrase(ev: Event, ctx: Ctx) -> str:
    delta = (ev.date - ctx.now_date).days
    day = "today" if delta == 0 else "tomorrow" if delta == 1 else f"on {DAYS[ev.date.weekday()].title()}"
    rng = f"from {say_time(ev.start)} to {say_time(ev.end)}" if ev.end else f"at {say_time(ev.start)}"
    return f"{day} {rng}"


def event_place(ev: Event, ctx: Ctx, allowed: list[str] | None = None) -> str:
    pool = allowed if allowed is not None else ctx.places
    best, score = "", 0
    for p in pool:
        if not p:
            continue
        words = _content(" ".join(p.split(":")[1:]) if ":" in p else p)
        sc = len(words & ev.words)
        if sc > score:
            best, score = p, sc
    return best


def about_event(text: str, ev: Event) -> bool:
    return len(_content(text) & ev.words) >= max(2, len(ev.words) // 2)


def said_by(lines: list[tuple[str, str]], who: str, ev: Event | None) -> str:
    """'yes', 'no' or '' for how ``who`` answered in ``lines``."""
    ans = ""
    for sp, tx in lines:
        if sp == who:
            if DECLINE.search(tx):
                ans = "no"
            elif ACCEPT.search(tx):
                ans = "yes"
    return ans


def convo_lines(text: str, people: list[str]) -> list[tuple[str, str]]:
    out = []
    for m in re.finditer(r"(?m)^\s*([A-Z][\w'-]+(?: [A-Z][\w'-]+)?):\s*\"(.*)\"?\s*$", text):
        if m.group(1) in people:
            out.append((m.group(1), m.group(2).rstrip('"')))
    return out


def plan_blocks(text: str, today: _dt.date, ctx: Ctx) -> list[tuple[_dt.date, int, int, str]]:
    out = []
    for m in re.finditer(r"(?m)^\s*-?\s*(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s+(.*)$", text):
        a, b = times_in(m.group(1))[0], times_in(m.group(2))[0]
        rest = m.group(3)
        ds = dates_in(re.sub(r"\([^)]*\)", "", rest), today, ctx.year)
        out.append((ds[-1] if ds else today, a, b if b > a else b + 1440, rest))
    return out


def clash(ctx: Ctx, ev: Event, who: str, text: str) -> str:
    """'free', 'ordinary' or 'commitment' for ``who``'s plan at the event's time."""
    seg = text
    if who != ctx.me:
        i = text.find("Name: " + who)
        seg = text[i:i + 4000] if i >= 0 else ""
    for d, a, b, act in plan_blocks(seg, ctx.now_date, ctx):
        if d == ev.date and a <= ev.start < b:
            if about_event(act, ev):
                return "free"
            names = [p for p in ctx.people if p in act and p != who]
            if names or COMMIT.search(act) and not re.search(r"sleep", act):
                return "commitment"
            return "ordinary"
    return "free"


# ------------------------------------------------------------------ importance
def rate(mem: str, ctx: Ctx, rng: random.Random) -> int:
    low = mem.lower()
    evs = find_events(ctx, mem) if has_clock(mem) else []
    if evs or re.search(r"invit|party|wedding|match|festival|concert|fair|celebrat", low):
        v = 6
    elif re.search(r"died|death|accident|fire|fight|broke|engaged|fired|ill\b|sick", low):
        v = 8
    elif re.search(r"conversation|chatt|said|told|heard|asked", low):
        v = 3
    elif re.search(r"sleep|breakfast|lunch|dinner|waking|getting ready|relaxing|busy at|brush", low):
        v = 1 if re.search(r"sleep|waking|brush", low) else 2
    else:
        v = 3
    if re.search(r"can't|cannot|declin", low):
        v += 1
    if rng.random() < 0.3:
        v += rng.choice((-1, 1))
    return max(1, min(10, v))


def _quoted(text: str) -> list[str]:
    return re.findall(r"(?m)^\s*(?:-\s*)?(?:\d+\.\s*)?\"(.+)\"\s*$", text) or re.findall(r"\"([^\"]{3,})\"", text)


# ------------------------------------------------------------------ conversation
def sections(ctx: Ctx) -> dict[str, str]:
    """Text of the prompt that belongs to each person (their persona, memories, plans)."""
    own: dict[str, list[str]] = {p: [] for p in ctx.people}
    cur = ""
    for line in ctx.user.split("\n"):
        s = line.strip()
        hit = [p for p in ctx.people if p in s]
        if s and not s.startswith("-") and len(hit) == 1 and (s.endswith(":") or re.match(r"^[A-Za-z ]{1,20}:\s*" + re.escape(hit[0]) + r"$", s)):
            cur = hit[0]
        elif re.match(r"^(?:Nobody|Do they|The conversation|What does)", s) and not hit:
            cur = ""
        if cur:
            own[cur].append(line)
    return {p: "\n".join(v) for p, v in own.items()}


def last_run(text: str, people: list[str]) -> list[tuple[str, str]]:
    runs: list[list[tuple[str, str]]] = []
    prev_is_bullet, cur = False, None
    for line in text.split("\n"):
        m = re.match(r"^([A-Z][\w'-]+(?: [A-Z][\w'-]+)?):\s*\"(.*)$", line.strip())
        if m and m.group(1) in people:
            if cur is None:
                cur = []
                runs.append(cur) if not prev_is_bullet else None
            cur.append((m.group(1), m.group(2).rstrip().rstrip('"')))
        else:
            cur = None
            prev_is_bullet = line.strip().startswith("-")
    return runs[-1] if runs else []


def speak(ctx: Ctx, rng: random.Random, who: str, know: str, lines: list[tuple[str, str]],
          partners: list[str]) -> tuple[str, bool, str]:
    """One line by ``who``: (text, ends, addressee)."""
    evs = find_events(ctx, know)
    mine = [ln for ln in lines if ln[0] == who]
    to = partners[0] if len(partners) == 1 else "everyone"
    soc = 0.1 * bool(set(re.findall(r"[a-z]+", know[:700].lower())) & SOC) - 0.1 * bool(set(re.findall(r"[a-z]+", know[:700].lower())) & RES)
    # 1. answer news/invitation just raised by someone else
    for i in range(len(lines) - 1, -1, -1):
        sp, tx = lines[i]
        if sp == who:
            break
        heard = [e for e in evs if about_event(tx, e)] or find_events(ctx, "[" + ctx.now_date.strftime("%A %B %d") + "] " + third(sp, tx))
        if heard and not (host_of(heard[0], ctx) == who):
            ev = heard[0]
            inv = host_of(ev, ctx) == sp
            c = clash(ctx, ev, who, know)
            p = ({"free": 0.6, "ordinary": 0.5, "commitment": 0.2} if inv else {"free": 0.4, "ordinary": 0.3, "commitment": 0.1})[c] + soc
            before = said_by([ln for ln in convo_lines(know, ctx.people) if about_event(ln[1], ev) or ln[0] == who], who, ev)
            if before == "no" or re.search(re.escape(who) + r" (?:cannot|can't|won't) go", know):
                p *= 0.5
            elif before == "yes":
                p = max(p, 0.85)
            to = sp
            if rng.random() < p:
                txt = rng.choice(["That sounds lovely, count me in! I'll be there {w}.", "Oh, I'd love to come along {w}, see you there!",
                                  "Count me in, I'll come {w}."]).format(w=when_phrase(ev, ctx))
            elif inv or c != "free" or rng.random() < 0.4:
                why = "I have something on then" if c == "commitment" else "I'm tied up then"
                txt = rng.choice([f"Sorry, I can't make it, {why}.", f"That's kind, but I won't be able to come, {why}."])
            else:
                txt = rng.choice(["Thanks for letting me know, good to hear!", "Oh, I hadn't heard that, thanks."])
            return txt, False, to
    # 2. bring up own news
    for ev in evs:
        if any(about_event(t, ev) for _, t in lines):
            continue
        host = host_of(ev, ctx) == who
        p = 0.8 if host else (0.55 if not mine else 0.4) + soc
        if rng.random() < p:
            place = event_place(ev, ctx)
            where = " at the " + place.split(":")[1] if place.count(":") >= 1 and place.split(":")[1].lower() not in ev.core.lower() else ""
            core = ev.core
            if host:
                core = re.sub(r"^" + re.escape(who) + r"\s+(?:wants to|is going to|will)?\s*", "", core)
                txt = f"I'm going to {core}{where} {when_phrase(ev, ctx)}, would you like to come?"
            else:
                txt = f"Have you heard? {core}{where}, {when_phrase(ev, ctx)}."
            return txt, False, to
        break
    # 3. small talk / goodbye
    n = len(lines)
    p_end = 0.08 if n == 0 else 0.65 if n >= 7 else 0.3 if n >= 3 else 0.15
    if mine and rng.random() < p_end:
        other = partners[0].split()[0] if len(partners) == 1 else "all"
        return rng.choice([f"Well, I'd better get on. Good to see you, {other}!", "Anyway, I should be going. Take care!"]), True, to
    if not lines:
        other = partners[0].split()[0] if len(partners) == 1 else "everyone"
        return rng.choice([f"Hello {other}! How are you today?", f"Morning, {other}, how's your day going?", f"Hi {other}, good to see you."]), False, to
    return rng.choice(["Not bad at all, keeping busy as usual.", "Oh, the usual, you know how it is.",
                       "It's been a quiet day, I can't complain.", "Glad to hear it. It's lovely weather for it."]), rng.random() < p_end / 2, to


def third(sp: str, tx: str) -> str:
    """A spoken line retold in the third person, so its speaker is found as the event's host."""
    tx = re.sub(r"\bI'm\b|\bI am\b", sp + " is", tx)
    tx = re.sub(r"\bI'll\b", sp + " will", tx)
    return re.sub(r"\bI\b", sp, tx)


def memo(ctx: Ctx, rng: random.Random, who: str, know: str, lines: list[tuple[str, str]], allowed: list[str] | None,
         dates: list[str] | None) -> dict:
    evs = find_events(ctx, know)
    talk = " ".join(t for _, t in lines)
    others = sorted({s for s, _ in lines if s != who})
    ev = next((e for e in evs if about_event(talk, e)), None)
    if ev is None:
        fe = find_events(ctx, "\n".join("[" + ctx.now_date.strftime("%A %B %d") + "] " + third(sp, tx) for sp, tx in lines))
        ev = fe[0] if fe else None
    out = {"summary": f"{who} chatted with {', '.join(others) or 'a neighbour'} about nothing in particular.",
           "importance": rng.choice((2, 2, 3)), "plan_activity": "", "plan_date": "", "plan_start": "",
           "plan_minutes": 0, "plan_place": ""}
    if ev is None:
        return out
    ans = said_by(lines, who, ev)
    host = host_of(ev, ctx) == who
    out["summary"] = (f"{who} talked with {', '.join(others) or 'someone'} about this: {ev.core}, {when_phrase(ev, ctx)}"
                      + ("; " + who + " said they would go." if ans == "yes" else "; " + who + " cannot go." if ans == "no" else "."))[:400]
    out["importance"] = max(1, min(10, (7 if ans == "yes" else 6) + rng.choice((-1, 0, 0, 1))))
    p = 0.1 if host else {"yes": 0.85, "no": 0.03}.get(ans, 0.12)
    iso = ev.date.isoformat()
    if rng.random() < p and (not dates or iso in dates):
        out.update(plan_activity=("going to " + ev.core)[:120], plan_date=iso, plan_start=hhmm(ev.start),
                   plan_minutes=ev.length(), plan_place=event_place(ev, ctx, allowed))
    return out


# ------------------------------------------------------------------ request kinds
def _lifestyle_hours(ctx: Ctx) -> tuple[int, int, tuple[int, int] | None, str]:
    per = ctx._persona(ctx.me)
    low = per.lower()
    wake, bed, work, wtext = 7 * 60, 22 * 60, None, ""
    m = re.search(r"wak\w*(?: up)?\s+(?:at\s+)?([^,;.]{1,20})", low)
    if m and times_in(m.group(1), pm_default=False):
        wake = times_in(m.group(1), pm_default=False)[0]
    m = re.search(r"(?:bed|sleep)\w*\s+(?:at\s+)?([^,;.]{1,20})", low)
    if m and times_in(m.group(1)):
        bed = times_in(m.group(1))[0] or 1440
        bed = bed + 1440 if bed < 5 * 60 else bed
    m = re.search(r"(\w+(?: at| in| on)? (?:the )?[\w ]{0,30}?) from ([^,;]{1,12}) (?:to|until|till) ([^,;.]{1,12})", per)
    if m:
        a, b = times_in(m.group(2), pm_default=False), times_in(m.group(3))
        if a and b:
            work, wtext = (a[0], b[0] if b[0] > a[0] else b[0] + 720), m.group(1)
    return wake, bed, work, wtext


def day_plan(ctx: Ctx, rng: random.Random) -> dict:
    wake, bed, work, wtext = _lifestyle_hours(ctx)
    places = ctx.places
    home = next((p for p in places if ctx.me.split()[-1] in p), places[0] if places else "home")
    workplace, best = "", 0
    for p in places:
        pw = _content(" ".join(p.split(":")[1:]) if ":" in p else p)
        sc = 3 * len(pw & _content(wtext)) + len(pw & _content(ctx._persona(ctx.me)[:300]))
        if p != home and sc > best:
            workplace, best = p, sc
    weekend = ctx.now_date.weekday() >= 5
    segs: list[list] = []

    def add(a: int, b: int, act: str, place: str, emo: str) -> None:
        if b - a >= 5:
            segs.append([a, b, act, place, emo])
    add(wake, wake + 30, "waking up and getting ready", home, "🛁")
    add(wake + 30, wake + 60, "having breakfast", home, "🍳")
    t = wake + 60
    off = weekend and rng.random() < 0.4
    if work and not off:
        ws, we = max(work[0], t), work[1]
        if ws < 12 * 60 < we - 30:
            add(t, ws, "pottering about at home", home, "🏠")
            add(ws, 720, wtext.strip()[:60] or "working", workplace or home, "💼")
            add(720, 780, "having lunch", workplace or home, "🥪")
            add(780, we, wtext.strip()[:60] or "working", workplace or home, "💼")
            t = we
        else:
            add(t, ws, "pottering about at home", home, "🏠")
            add(ws, we, wtext.strip()[:60] or "working", workplace or home, "💼")
            t = we
            if we <= 720:
                add(t, 720, "pottering about at home", home, "🏠")
                add(720, 780, "having lunch", home, "🥪")
                t = 780
    else:
        add(t, 720, "a quiet morning off", home, "☕")
        add(720, 780, "having lunch", home, "🥪")
        t = 780
    if t < 18 * 60 + 30:
        add(t, 18 * 60 + 30, "relaxing at home", home, "📖")
        add(18 * 60 + 30, 19 * 60 + 30, "having dinner", home, "🍲")
        t = 19 * 60 + 30
    else:
        add(t, t + 60, "having dinner", home, "🍲")
        t += 60
    add(t, bed, "relaxing at home", home, "🛋")
    # telling people first, then the event of the day on top
    spots = re.findall(r"(?m)^\s*-\s*([^\n]+?:[^\n]+?):\s*\d+ (?:person|people)[^\d]*(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})", ctx.user)
    if spots and rng.random() < 0.5:
        pl, a, b = rng.choice(spots)
        a0 = times_in(a)[0]
        if pl.strip() in places:
            _overlay(segs, a0, min(a0 + 60, times_in(b)[0]), "catching up with people", pl.strip(), "💬")
    evs = [e for e in find_events(ctx, ctx.user) if e.date == ctx.now_date]
    for ev in evs[:1]:
        host = host_of(ev, ctx) == ctx.me
        convo = convo_lines(ctx.user, ctx.people)
        ans = said_by(convo, ctx.me, ev)
        mine_dec = re.search(re.escape(ctx.me) + r" (?:cannot|can't|won't) go", ctx.user)
        p = 0.95 if host else 0.08 if (ans == "no" or mine_dec) and ans != "yes" else 0.85 if ans == "yes" else 0.35 + ctx.mood
        if rng.random() < p:
            place = event_place(ev, ctx) or home
            act = re.sub(r"^" + re.escape(ctx.me) + r"\s+(?:wants to|is going to|will|is)?\s*", "", ev.core) if host else "going to " + ev.core
            _overlay(segs, ev.start, ev.start + ev.length(), act[:110], place, "🎉")
    segs.sort()
    blocks = [{"start": hhmm(a), "duration_minutes": min(960, b - a), "activity": act[:120], "emoji": e, "address": pl}
              for a, b, act, pl, e in segs if b - a >= 5][:15]
    blocks.append({"start": hhmm(bed), "duration_minutes": max(5, min(960, (wake + 1440 - bed))), "activity": "sleeping",
                   "emoji": "😴", "address": home})
    outline = [f"wake up at {say_time(wake)}"] + [f"{b['activity']} at {say_time(times_in(b['start'])[0])}"
                                                for b in blocks[2:] if "relax" not in b["activity"]][:6]
    while len(outline) < 4:
        outline.append(f"go to bed at {say_time(bed)}")
    return {"wake_up_hour": wake // 60, "outline": outline[:8], "blocks": blocks}


def replan(ctx: Ctx, rng: random.Random) -> dict:
    """The next hour or two: the event if it starts then and the NPC goes (rule 4), else carry on."""
    now = ctx.now_min if ctx.now_min is not None else 9 * 60
    now -= now % 5
    home = next((p for p in ctx.places if ctx.me.split()[-1] in p), ctx.places[0] if ctx.places else "home")
    here = next((p for p in ctx.places if p in ctx.user[ctx.user.find(hhmm(now)):][:300]), home) if ctx.now_min else home
    cur = re.search(re.escape(ctx.me) + r" (?:is|was) ([a-z][^.(\n]{3,60})", ctx.user)
    segs = [[now, now + 120, cur.group(1).strip() if cur else "carrying on as planned", here, "🙂"]]
    for ev in find_events(ctx, ctx.user)[:1]:
        host = host_of(ev, ctx) == ctx.me
        ans = said_by(convo_lines(ctx.user, ctx.people), ctx.me, ev)
        p = 0.95 if host else 0.85 if ans == "yes" else 0.08 if ans == "no" else 0.35 + ctx.mood
        if ev.date == ctx.now_date and now <= ev.start < now + 120 and rng.random() < p:
            _overlay(segs, ev.start, min(now + 120, ev.start + ev.length()), "going to " + ev.core[:100], event_place(ev, ctx) or here, "🎉")
    segs.sort()
    return {"blocks": [{"start": hhmm(a), "duration_minutes": b - a, "activity": act, "emoji": e, "address": pl}
                       for a, b, act, pl, e in segs]}


def _overlay(segs: list[list], a: int, b: int, act: str, place: str, emo: str) -> None:
    out = []
    for s in segs:
        if s[1] <= a or s[0] >= b:
            out.append(s)
            continue
        if s[0] < a:
            out.append([s[0], a] + s[2:])
        if s[1] > b:
            out.append([b, s[1]] + s[2:])
    out.append([a, b, act, place, emo])
    segs[:] = [s for s in out if s[1] - s[0] >= 5]


STEP_WORDS = {"breakfast": ["making tea", "cooking eggs", "eating at the table", "washing up"],
              "lunch": ["fetching a plate", "eating lunch", "having a drink", "clearing up"],
              "dinner": ["cooking dinner", "laying the table", "eating dinner", "washing the dishes"],
              "waking": ["getting out of bed", "washing", "getting dressed", "making the bed"],
              "sleep": ["settling into bed", "sleeping"],
              "relax": ["reading a book", "making a cup of tea", "sitting by the window", "tidying up", "listening to the radio"]}


def steps(ctx: Ctx, rng: random.Random, sch: dict) -> dict:
    tail = ctx.user[max(0, ctx.user.rfind("\n\n", 0, ctx.user.rfind("minutes") - 200)):]
    nums = [int(x) for x in re.findall(r"(\d+) minutes", tail) if int(x) > 15]
    total = nums[-1] if nums else 30
    arr = sch.get("properties", {}).get("steps", {})
    lo, hi = int(arr.get("minItems", 2)), int(arr.get("maxItems", 6))
    n = max(lo, min(hi, -(-total // 12)))
    total = max(5 * n, min(15 * n, total))
    durs = [total // n] * n
    for i in range(total - sum(durs)):
        durs[i % n] += 1
    acts = re.findall(r"\) is ([^,\n]+), at|is ([a-z][^,\n]{3,60}), at", tail)
    act = re.sub(r"^busy at", "working at", next((a or b for a, b in acts), "going about the day"))
    key = next((k for k in STEP_WORDS if k in act), "")
    pool = STEP_WORDS.get(key) or [f"getting started on {act}"[:80], act[:80], f"carrying on {act}"[:80], "taking a short break", f"finishing up {act}"[:80]]
    objs = [o for o in _enums_named(sch, ("object",))[0] if o] if _enums_named(sch, ("object",)) else []
    out = []
    for i in range(n):
        a = pool[min(i, len(pool) - 1)] if i < len(pool) else pool[i % len(pool)]
        obj = ""
        for o in objs:
            if o.lower() in a or (o == "bed" and "sleep" in a) or (key in ("lunch", "dinner", "breakfast") and o in ("table", "counter", "oven", "stove")):
                obj = o
        spare = [o for o in objs if o != "bed" or key in ("sleep", "waking", "relax")]
        if not obj and spare and rng.random() < 0.4:
            obj = rng.choice(spare)
        out.append({"activity": a[:80], "duration_minutes": max(5, min(15, durs[i])), "object": obj,
                    "object_state": ("in use" if obj else "")})
    return {"steps": out}


def react(ctx: Ctx, rng: random.Random, sch: dict) -> dict:
    opts = (_enums_named(sch, ("choice",)) or [["continue", "talk", "wait", "react"]])[0]
    seen = [p for p in ctx.people if p != ctx.me]
    other = seen[0] if seen else "them"
    m = re.search(r"noticed:?\s*\"?([A-Z][a-z]+ [A-Z][a-z]+)", ctx.user)
    if m and m.group(1) in ctx.people:
        other = m.group(1)
    evs = find_events(ctx, ctx.user)
    told = False
    news = bool(evs)
    if evs:
        for chunk in re.split(r"\n- ", ctx.user):
            if other in chunk and about_event(chunk, evs[0]):
                told = True
        if re.search(r"has not told|hasn't told|not told " + re.escape(other), ctx.user):
            told = False
    r = rng.random()
    if news and not told:
        choice = "talk" if r < 0.55 else "wait" if r < 0.70 else "continue"
    else:
        pt = 0.2 + ctx.mood
        choice = "talk" if r < pt else "wait" if r < pt + 0.05 else "react" if r < pt + 0.1 else "continue"
    if choice not in opts:
        choice = "continue" if "continue" in opts else opts[0]
    reason = {"talk": f"{ctx.name_short(other)} is right here and it would be good to catch up" + (" and pass on the news." if news and not told else "."),
              "wait": f"{ctx.name_short(other)} looks busy, so it is better to wait a moment.",
              "react": f"Seeing {ctx.name_short(other)} is a reminder of something worth doing now.",
              "continue": "Nothing about this calls for a change of plan."}[choice]
    return {"choice": choice, "reason": reason, "new_activity": f"going over to see {other}" if choice == "react" else ""}


def interview(ctx: Ctx, rng: random.Random) -> dict:
    qs = re.findall(r"\"([^\"]+\?)\"", ctx.user)
    q = qs[-1] if qs else ""
    names = [p for p in ctx.people if p in q and p != ctx.me]
    before = ctx.user[:ctx.user.rfind(q)] if q else ctx.user
    if names:
        who = names[0]
        mems = [l for l in before.split("\n") if who in l and l.strip().startswith("-")]
        rel = next(iter(persona_sentences(ctx, who)), "")
        if (mems or rel) and rng.random() < 0.92:
            seen = last_seen(before, who)
            talked = any(re.search(r"conversation|chatt|heard from|told", m) for m in mems)
            ans = f"Yes, I know {who}." + (f" {rel}." if rel else "") + (" We've talked recently." if talked else "") + \
                (f" Last I saw, {who.split()[0]} was {seen}." if seen else "")
        else:
            ans = f"I don't think I really know {who}, I'm afraid."
        return {"answer": ans[:600]}
    words = _content(q)
    evs = [e for e in find_events(ctx, before, past=True) if words & e.words]
    if evs and rng.random() < 0.92:
        ev = evs[0]
        conv = convo_lines(before, ctx.people)
        ans = said_by(conv, ctx.me, ev)
        tail = " I'm the one organising it." if host_of(ev, ctx) == ctx.me else " I said I'd go." if ans == "yes" else " I can't make it myself." if ans == "no" else ""
        return {"answer": f"Yes, I heard about it: {ev.core}, {when_phrase(ev, ctx)}.{tail}"[:600]}
    hits = [l for l in before.split("\n") if words and len(_content(l) & words) >= max(1, len(words) // 2)]
    if hits and rng.random() < 0.9:
        return {"answer": f"I remember something about that: {_core(STAMP.sub('', hits[-1]).strip(' -'), ctx.people)[:300]}."}
    return {"answer": "No, I haven't heard anything about that."}


def status(ctx: Ctx, rng: random.Random) -> dict:
    per = ctx._persona(ctx.me)
    m = re.search(re.escape(ctx.me) + r" is [^.\n]+\.", per[per.find("\n", 200) if len(per) > 200 else 0:]) or re.search(re.escape(ctx.me) + r" is [^.\n]+\.", per)
    old = m.group(0) if m else f"{ctx.me} is going about their usual days."
    parts = [old]
    evs = find_events(ctx, ctx.user)
    if evs:
        ev = evs[0]
        host = host_of(ev, ctx) == ctx.me
        conv = convo_lines(ctx.user, ctx.people)
        ans = said_by(conv, ctx.me, ev)
        if host:
            parts.append(f"{ctx.me} is organising this: {ev.core}, {when_phrase(ev, ctx)}, and wants everyone to come.")
        elif ans == "yes":
            parts.append(f"{ctx.me} means to go: {ev.core}, {when_phrase(ev, ctx)}.")
        elif rng.random() < 0.7:
            parts.append(f"{ctx.me} has heard that {ev.core[0].lower() + ev.core[1:] if not NAME_RE.match(ev.core) else ev.core}, {when_phrase(ev, ctx)}" + (" but cannot go." if ans == "no" else "."))
    return {"currently": " ".join(parts)[:500]}


def relation(ctx: Ctx, rng: random.Random) -> dict:
    ask = ctx.user[ctx.user.rfind("\n\n", 0, max(0, len(ctx.user) - 60)):]
    others = [p for p in ctx.people if p != ctx.me and p in ask][:3] or [p for p in ctx.people if p != ctx.me][:1]
    who = " and ".join(others) or "them"
    rel = next((x for o in others for x in persona_sentences(ctx, o)), "")
    if not rel and others:
        seen = last_seen(ctx.user, others[0])
        rel = f"{others[0]} is someone {ctx.me} sees around; last seen {seen}" if seen else ""
    feel = "warmly" if ctx.mood >= 0 else "fine, if a little guarded"
    tail = " They talked recently about plans in town." if find_events(ctx, ctx.user) else ""
    base = (rel.strip(" .;") + ". ") if rel else f"{who} {'are people' if len(others) > 1 else 'is someone'} {ctx.me} knows from around town. "
    return {"summary": (base + f"{ctx.me} feels {feel} about {who} right now." + tail)[:400]}


def questions(ctx: Ctx, rng: random.Random, hi: int) -> dict:
    others = [p for p in ctx.people if p != ctx.me]
    qs = []
    evs = find_events(ctx, ctx.user)
    if evs:
        qs.append(f"What is {ctx.me} going to do about this: {evs[0].core}?")
    for o in others[:2]:
        qs.append(f"How does {ctx.me} get on with {o}?")
    qs.append(f"What matters most to {ctx.me} these days?")
    return {"questions": qs[:max(1, hi)]}


def insights(ctx: Ctx, rng: random.Random, hi_num: int, max_items: int) -> dict:
    qs = re.findall(r"\"([^\"]+\?)\"", ctx.user)
    stm = {int(n): t for n, t in re.findall(r"(?m)^(\d+)\.\s+(.*)$", ctx.user) if 0 < int(n) <= hi_num}
    out = []
    for q in qs[:3]:
        w = _content(q) - _content(ctx.me)
        ev = [n for n, t in stm.items() if len(_content(t) & w) >= max(1, min(2, len(w)))] or list(stm)[:3] or [1]
        names = [p for p in ctx.people if p in q and p != ctx.me]
        about = names[0] if names else " ".join(sorted(w)[:3]) or ctx.me
        if names:
            txt = f"{ctx.me} knows {names[0]} from around town and they have been in touch recently."
        else:
            evs = find_events(ctx, " ".join(stm.get(n, "") for n in ev))
            txt = f"{ctx.me} has had this on their mind: {evs[0].core}." if evs else f"{ctx.me} keeps to a steady routine."
        out.append({"insight": txt[:300], "about": about[:60], "evidence": sorted(ev)[:10],
                    "importance": 5 if names or "mind" in txt else 3})
    return {"insights": out[:max_items] or [{"insight": f"{ctx.me} keeps to a steady routine.", "about": ctx.me, "evidence": [1], "importance": 2}]}


def gather(ctx: Ctx, rng: random.Random, sch: dict) -> dict:
    """Gist of a meeting of two or more people: lines, then a memo for each."""
    sp = (_enums_named(sch, ("speaker",)) or [[]])[0]
    people = [ctx.me] + [p for p in (sp or ctx.people) if p != ctx.me]
    people = people[:len(sp)] if sp else people[:2]
    sec = sections(ctx)
    has_news = any(find_events(ctx, sec.get(p, "")) for p in people)
    props = sch.get("properties", {})
    max_lines = int(props.get("lines", {}).get("maxItems", 6))
    dates = (_enums_named(sch, ("plan_date",)) or [None])[0]
    if rng.random() >= (0.8 if has_news else 0.45):
        return {"talk": False, "lines": []} | ({"memos": []} if "memos" in props else {})
    lines: list[tuple[str, str]] = []
    gone: set = set()
    i = 0
    while len(lines) < max_lines and len(gone) < len(people) - 1 and i < max_lines * 2:
        who = people[i % len(people)]
        i += 1
        if who in gone:
            continue
        txt, end, _ = speak(ctx, rng, who, sec.get(who, "") or ctx.user, lines, [p for p in people if p != who])
        lines.append((who, txt))
        if end and len(lines) >= 2:
            gone.add(who)
    out: dict = {"talk": True, "lines": [{"speaker": s, "text": t[:300]} for s, t in lines]}
    allowed = _enums_named(sch, ("plan_place",))
    for idx, p in enumerate(people):
        mm = memo(ctx, rng, p, sec.get(p, "") or ctx.user, lines, allowed[min(idx, len(allowed) - 1)] if allowed else None, dates)
        if "memos" in props:
            out.setdefault("memos", []).append({"name": p} | mm)
        elif idx < 2:
            out["first" if idx == 0 else "second"] = mm
    return out


# ------------------------------------------------------------------ schema fitting
def fit(s: Any, v: Any, root: dict, ctx: Ctx, key: str = "") -> Any:
    """Coerce ``v`` into schema ``s`` (a generic filler where ``v`` is missing)."""
    if not isinstance(s, dict):
        return v
    if "$ref" in s:
        ref = s["$ref"].split("/")[-1]
        return fit((root.get("$defs") or root.get("definitions") or {}).get(ref, {}), v, root, ctx, key)
    for k in ("anyOf", "oneOf"):
        if k in s:
            opts = s[k]
            if v is None and any(o.get("type") == "null" for o in opts if isinstance(o, dict)):
                return None
            o = next((o for o in opts if isinstance(o, dict) and o.get("type") != "null"), {})
            return fit(o, v, root, ctx, key)
    if "allOf" in s and s["allOf"]:
        return fit(s["allOf"][0], v, root, ctx, key)
    t = s.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if "enum" in s:
        en = s["enum"]
        if v in en:
            return v
        if isinstance(v, str) and en:
            scored = sorted(en, key=lambda e: -len(_content(str(e)) & _content(v)))
            if len(_content(str(scored[0])) & _content(v)) > 0:
                return scored[0]
        return "" if "" in en else (ctx.me if ctx.me in en else en[0]) if en else v
    if t == "object" or "properties" in s:
        props = s.get("properties", {})
        v = v if isinstance(v, dict) else {}
        out = {}
        for k, ps in props.items():
            if k in v:
                out[k] = fit(ps, v[k], root, ctx, k)
            elif k in s.get("required", []):
                out[k] = fit(ps, ps.get("default") if "default" in ps else _default(ps, ctx, k), root, ctx, k)
        if s.get("additionalProperties", True) is not False and not props:
            out.update(v)
        return out
    if t == "array":
        v = v if isinstance(v, list) else ([] if v is None else [v])
        items = s.get("items", {})
        v = [fit(items, x, root, ctx, key) for x in v][: s.get("maxItems", 10 ** 6)]
        while len(v) < s.get("minItems", 0):
            v.append(fit(items, v[-1] if v else _default(items, ctx, key), root, ctx, key))
        return v
    if t in ("integer", "number"):
        try:
            x = int(round(float(v))) if t == "integer" else float(v)
        except (TypeError, ValueError):
            x = s.get("minimum", 0)
        if "minimum" in s:
            x = max(s["minimum"], x)
        if "maximum" in s:
            x = min(s["maximum"], x)
        return x
    if t == "boolean":
        return bool(v)
    if t == "string" or t is None:
        x = "" if v is None else str(v)
        pat = s.get("pattern")
        if pat and not re.fullmatch(pat, x):
            tm = times_in(x)
            x = hhmm(tm[0]) if tm and re.fullmatch(pat, hhmm(tm[0])) else "" if re.fullmatch(pat, "") else x
        x = x[: s.get("maxLength", 10 ** 6)]
        if len(x) < s.get("minLength", 0):
            x = (x + " " + _default({}, ctx, key)).strip()[: s.get("maxLength", 10 ** 6)] or "ok"
        return x
    return v


def _default(s: dict, ctx: Ctx, key: str) -> Any:
    t = s.get("type") if isinstance(s, dict) else None
    if t in ("integer", "number"):
        lo, hi = s.get("minimum", 1), s.get("maximum", 10)
        return max(lo, min(hi, 5 if hi >= 5 else lo))
    if t == "boolean":
        return False
    if t == "array":
        return []
    if t == "object" or (isinstance(s, dict) and "properties" in s):
        return {}
    k = key.lower()
    if "time" in k or "start" in k:
        return hhmm(ctx.now_min or 540)
    if "place" in k or "address" in k or "location" in k:
        return ctx.places[0] if ctx.places else ""
    if "name" in k or "speaker" in k or "who" in k:
        return ctx.me
    return f"{ctx.me} thinks it over and carries on."


# ------------------------------------------------------------------ dispatch
def values_for(ctx: Ctx, rng: random.Random, sch: dict, keys: set) -> dict:
    if {"ok"} >= keys and keys:
        return {"ok": True}
    if "talk" in keys and ("lines" in keys or "first" in keys or "memos" in keys):
        return gather(ctx, rng, sch)
    if "outline" in keys or "wake_up_hour" in keys:
        return day_plan(ctx, rng)
    if "blocks" in keys:
        return replan(ctx, rng)
    if "steps" in keys:
        return steps(ctx, rng, sch)
    if "choice" in keys:
        return react(ctx, rng, sch)
    if "ratings" in keys:
        mems = _quoted(ctx.user[ctx.user.find("\n- \""):] if "\n- \"" in ctx.user else ctx.user)
        return {"ratings": [rate(m, ctx, rng) for m in mems]}
    if "utterance" in keys:
        partners = [p for p in ((_enums_named(sch, ("addressed_to",)) or [[]])[0]) if p != "everyone"] or [p for p in ctx.people if p != ctx.me][:2]
        lines = last_run(ctx.user, ctx.people)
        txt, end, to = speak(ctx, rng, ctx.me, ctx.user, lines, partners)
        return {"utterance": txt, "addressed_to": to if to in partners or to == "everyone" else "everyone", "end_conversation": end}
    if "plan_activity" in keys or "plan_date" in keys:
        lines = last_run(ctx.user, ctx.people)
        return memo(ctx, rng, ctx.me, ctx.user, lines, (_enums_named(sch, ("plan_place",)) or [None])[0],
                    (_enums_named(sch, ("plan_date",)) or [None])[0])
    if "insights" in keys:
        ins = sch.get("properties", {}).get("insights", {})
        ev = (_enums_named(sch, ("evidence",)) or [[]])[0]
        nums = re.findall(r"(?m)^(\d+)\.\s", ctx.user)
        return insights(ctx, rng, max(ev) if ev else max([int(n) for n in nums] or [1]), int(ins.get("maxItems", 15)))
    if "questions" in keys:
        return questions(ctx, rng, int(sch.get("properties", {}).get("questions", {}).get("maxItems", 3)))
    if "importance" in keys and len(keys) == 1:
        q = _quoted(ctx.user)
        return {"importance": rate(q[-1] if q else ctx.user[-300:], ctx, rng)}
    if "currently" in keys:
        return status(ctx, rng)
    if "answer" in keys:
        return interview(ctx, rng)
    if "summary" in keys:
        return relation(ctx, rng)
    return {}


def plain_turn(ctx: Ctx, rng: random.Random) -> str:
    partners = [p for p in ctx.people if p != ctx.me and p in ctx.user[ctx.user.find(ctx.me, 200):][:400]][:3] or \
               [p for p in ctx.people if p != ctx.me][:1]
    lines = last_run(ctx.user, ctx.people)
    txt, end, _ = speak(ctx, rng, ctx.me, ctx.user, lines, partners)
    tags = re.findall(r"\[([a-z_ -]{2,20})\]", ctx.user[-900:])
    if not tags:
        return txt
    end_tag = next((t for t in tags if re.search(r"end|stop|bye|over|done|leave", t)), tags[0])
    go_tag = next((t for t in tags if t != end_tag), end_tag)
    return f"{txt}\n[{end_tag if end else go_tag}]"


def malformed(text: str, is_json: bool, ctx: Ctx, rng: random.Random) -> str:
    r = rng.random()
    if is_json:
        if r < 0.3:
            return text[: max(1, int(len(text) * rng.uniform(0.3, 0.8)))]
        if r < 0.55:
            return "Sure! Here is the answer:\n" + text + "\nLet me know if you need anything else."
        if r < 0.7:
            return "I'm sorry, but I can't help with that request."
        return f"{ctx.me}: {text}"
    if r < 0.5:
        return f"{ctx.me}: \"{text.splitlines()[0]}\"" + ("\n" + text.splitlines()[-1] if "\n" in text else "")
    if r < 0.75:
        return text.splitlines()[0]
    return "I'm sorry, I can't continue this conversation."


def respond(body: dict, seed: int) -> str:
    """The completion text for one chat-completion request ``body``."""
    msgs = body.get("messages") if isinstance(body, dict) else None
    digest = hashlib.sha256(json.dumps(msgs, sort_keys=True, default=str).encode()).hexdigest()
    rng = random.Random(f"{seed}:{digest}")
    try:
        ctx = Ctx(body if isinstance(body, dict) else {})
    except Exception:  # noqa: BLE001 - a model never crashes; answer minimally
        return "{}"
    sch = ctx.schema
    try:
        if sch is not None:
            keys = set((sch.get("properties") or {}).keys())
            if not keys:
                tmpl = re.search(r"\{\s*\"[^\n]*\}", ctx.user[-1500:])
                keys = set(re.findall(r"\"(\w+)\"\s*:", tmpl.group(0))) if tmpl else set()
            vals = values_for(ctx, rng, sch, keys)
            out = fit(sch, vals, sch, ctx) if sch.get("properties") else vals
            text = json.dumps(out, ensure_ascii=False)
            probe = set((sch.get("properties") or {}).keys()) == {"ok"}
        else:
            tmpl = re.search(r"\{\s*\"[^\n]*\}", ctx.user[-1500:])
            if tmpl and re.search(r"\bJSON\b|Answer as \{", ctx.text):
                keys = set(re.findall(r"\"(\w+)\"\s*:", tmpl.group(0)))
                text = json.dumps(values_for(ctx, rng, {}, keys) or {k: "" for k in keys}, ensure_ascii=False)
                probe = keys == {"ok"}
            else:
                text, probe = plain_turn(ctx, rng), False
    except Exception:  # noqa: BLE001 - fall back to a minimal valid answer
        text, probe = (json.dumps(fit(sch, {}, sch, ctx)) if sch else "Hello there.\n[continue]"), False
    if not probe and rng.random() < 0.05:
        return malformed(text, text.startswith("{"), ctx, rng)
    return text
