"""Blind stand-in model no. 5: written from captured requests alone, rules declared before any run.

`respond(body, seed)` returns the text a middling instruction-tuned chat model would put in
`choices[0].message.content`. Standard library only; deterministic per (body, seed): a
`random.Random` seeded from the seed and a sha256 of the messages. It never raises.

How it reads a request (meaning, not headings)
- Who it is: the name in the system line ("mind/role of X"), else the first "Name:" line. People:
  "Name:" lines, schema enums of speaker/name fields, and capitalised two-word names followed by a
  verb or a colon. Places: the schema's enum where there is one, else "A:B:C" addresses in the text.
- Times in any style: "17:00", "5 pm", "5.30pm", "half past five", "quarter to six", "noon",
  "five o'clock", and day parts ("morning" 09:00, "lunchtime" 12:30, "afternoon" 15:00, "after work"
  17:30, "evening" 19:00, "sundown/sunset/dusk" 19:30, "tonight" 20:00). Dates: "April 11",
  "11 April", weekdays, "today", "tonight", "tomorrow", ISO dates.
- An upcoming event = a statement (brackets stripped) with a date reference and a time, fewer than
  three clock times (else it is a schedule), not in the past. Its host = the last person named
  before the time who is followed by a verb. Its place = the known place sharing most words with it.
- A plan slot is a "real commitment" if its activity names another person or says meet/visit/
  appointment/going to/host/party/event/lesson/service/date; anything else (work, meals, chores,
  rest, sleep) is ordinary and gives way.
- Traits: outgoing (sociable, talkative, friendly, nosy, energetic, chatty, gossip, curious,
  jovial, warm, outgoing, generous) +0.15 to telling, +0.10 to accepting/going; reserved (shy,
  quiet, reserved, grumpy, private, solitary, introvert, gruff, busy, stern) -0.15 / -0.15.

Declared decisions and rates (chosen before any run; never tuned afterwards)
1. Telling: in any conversation turn, a speaker who knows an upcoming event not yet mentioned in
   the conversation brings it up with p = 0.75 per turn if they host it, 0.45 if they heard of it
   (trait-adjusted, halved if their memories show they already told this listener).
2. Invitation (the speaker hosts it, or speaks of it in the first person): accept p = 0.65 when the
   listener's plan is free then, 0.25 when it holds a real commitment; +0.05 if the listener's
   persona or memories name the inviter, -0.05 if not; trait-adjusted. A declining listener with a
   commitment proposes another day half the time.
3. News of someone else's event: the listener says they mean to go with p = 0.40 when free, 0.12
   when committed (trait-adjusted); 15% of the time the model misreads news as an invitation and
   uses rule 2's rates instead.
4. Talking at all (whole-conversation requests): p = 0.90 if someone there knows an untold upcoming
   event, 0.60 if they know each other (named in persona/memories), 0.35 otherwise.
5. Ending a turn: p = 0.10 + 0.15 per line spoken (cap 0.80); 0.85 after the other says goodbye;
   a line that tells news never ends it. Small talk with nothing new to say ends with a goodbye.
6. Memos: a plan item is written with p = 0.90 when the person accepted, 0.80 when they said they
   mean to go, 0.04 when they declined or nothing was settled (a misread); hosts add no item
   (p = 0.90). Importance: small talk 2-3, news 5-6, an accepted invitation 6-7 (+-1 noise 30%).
7. Reacting to an observation: "talk" p = 0.65 if it holds untold upcoming news for that person,
   else 0.25 if it knows them, 0.10 if not; "wait" 0.10 of the rest, "react" 0.05, else continue.
8. Planning a day: an upcoming event that day goes into the schedule with p = 0.90 when the person
   hosts it or said they would come, 0.35 when they only heard of it, 0.10 after declining; a host
   with an event still ahead adds an "asking people" hour with p = 0.50. Wake/bed/work hours from
   the lifestyle text; meals once each; last block sleeping at home.
9. Status rewrite keeps the old status and adds a known upcoming event with p = 0.90 if committed
   (host/accepted), 0.55 if only heard of, 0.30 if declined. Interviews answer from memories; unknown things are
   denied, except p = 0.05 a vague made-up "I think I've heard something".
10. Importance ratings: routine 1-3, social 3-4, news/plans 5-7, life events 8-10, noise +-1 at 30%.
Malformed answers (declared; temperature 0 requests are never malformed):
- JSON requests: 5% in all: 1.5% truncated JSON, 1.5% prose around the JSON, 1% a refusal, 1% the
  JSON in a ```json fence with a remark after it.
- Plain-text turns: 5% in all: 2% the speaker's name in front, 1.5% quotes and no tag line,
  1.5% the tag missing.
Unknown request kinds: a JSON schema is filled field by field from the prompt (a schema with
blocks but no wake-up hour is a re-plan from now, for "the next N hours" or the rest of the day);
with no schema the "answer as {...}" example is read as one; plain text gets a short line.
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
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
NUMWORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
DAYPARTS = [("after work", 17 * 60 + 30), ("lunchtime", 750), ("lunch time", 750),
            ("teatime", 960), ("sundown", 1170), ("sunset", 1170), ("dusk", 1170),
            ("nightfall", 1200), ("tonight", 1200), ("this evening", 1140), ("evening", 1140),
            ("afternoon", 900), ("this morning", 600), ("morning", 540), ("dawn", 360),
            ("sunrise", 360)]
OUTGOING = ("sociab", "talkativ", "friendl", "nosy", "energet", "chatty", "gossip", "curious",
            "jovial", "warm", "outgoing", "generous", "cheer", "lively")
RESERVED = ("shy", "quiet", "reserved", "grump", "private", "solitar", "introvert", "gruff",
            "stern", "aloof", "timid", "withdrawn")
COMMIT = ("meet", "visit", "appointment", "going to", "host", "party", "event", "lesson",
          "service", "date with", "calling on", "rehears", "match", "gathering", "celebrat")
ACCEPT = ("count me in", "i'll come", "i will come", "i'll be there", "i will be there", "love to",
          "sounds lovely", "sounds great", "sounds good", "wouldn't miss", "see you there",
          "i'd like that", "i'll join", "happy to come", "of course i'll")
MEANGO = ("might go", "i may go", "i'll try to", "i might come", "i'll go along", "i'll pop",
          "might drop by", "i'll look in", "go along")
DECLINE = ("can't make", "cannot make", "can't come", "can't go", "cannot go", "sorry", "not able",
           "i'll pass", "other plans", "another day", "won't be able", "no thanks")
BYE = ("bye", "see you", "take care", "good to talk", "must go", "have to go", "need to go",
       "got to go", "farewell", "catch you later")
STOP = set("the a an and or of to in on at for with from by is was are be been it its this that "
           "these those he she they them their his her i you we me my your our as into up out "
           "about wants want would will can could has have had do does did not no so but if "
           "then than there here who whom what when where which while just also very some any "
           "all each every after before over under between everyone people come along ask "
           "meets watch".split())


def respond(body: dict, seed: int) -> str:
    """The completion text for one request; any internal failure falls back to a plain filler."""
    try:
        return _respond(body, seed)
    except Exception:  # noqa: BLE001 - a stand-in model must answer every request
        try:
            schema = _schema(body)
            if schema is not None:
                return json.dumps(_fill(schema, schema, "", random.Random(seed), ""))
        except Exception:  # noqa: BLE001
            pass
        return "Hello there.\n[continue]"


# ----------------------------------------------------------------------------- reading

def _schema(body: dict) -> dict | None:
    rf = body.get("response_format") or {}
    if not isinstance(rf, dict):
        return None
    js = rf.get("json_schema")
    if isinstance(js, dict):
        return js.get("schema") if isinstance(js.get("schema"), dict) else js
    if isinstance(rf.get("schema"), dict):
        return rf["schema"]
    if rf.get("type") == "json_object":
        return {}
    return None


def _content(m: Any) -> str:
    c = m.get("content", "") if isinstance(m, dict) else ""
    if isinstance(c, list):
        return "\n".join(p.get("text", "") for p in c if isinstance(p, dict))
    return c if isinstance(c, str) else ""


class Ctx:
    """What the model 'sees': the text, people, places, today and now, and its dice."""

    def __init__(self, body: dict, seed: int) -> None:
        msgs = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        digest = hashlib.sha256(json.dumps(msgs, sort_keys=True, default=str).encode()).hexdigest()
        self.rng = random.Random(f"{seed}:{digest}")
        self.system = "\n".join(_content(m) for m in msgs if m.get("role") == "system")
        users = [_content(m) for m in msgs if m.get("role") == "user"]
        self.user = users[0] if users else ""
        self.text = "\n".join(users)
        self.retry = len(users) > 1
        self.temperature = body.get("temperature", 0.7)
        self.schema = _schema(body)
        self.defs = {}
        if self.schema:
            self.defs = dict(self.schema.get("$defs") or self.schema.get("definitions") or {})
        self.enums = _enums(self.schema or {}, self.defs)
        self.persons = self._persons()
        self.me = self._me()
        if self.me and self.me not in self.persons:
            self.persons.insert(0, self.me)
        self.places = self._places()
        self.today, self.now = self._today_now()
        traits = " ".join(re.findall(r"traits?:([^\n]*)", self.text, re.I)[:1]).lower()
        self.tadj = (0.15 if any(w in traits for w in OUTGOING) else 0.0) - (
            0.15 if any(w in traits for w in RESERVED) else 0.0)

    def _persons(self) -> list[str]:
        found: list[str] = []
        for key, vals in self.enums.items():
            if any(k in key for k in ("speaker", "name", "addressed", "person", "who")):
                found += [v for v in vals if isinstance(v, str) and v and v != "everyone"]
        found += re.findall(r"(?m)^\s*Name:\s*([A-Z][\w'-]+(?: [A-Z][\w'-]+)*)\s*$", self.text)
        found += re.findall(r"(?:mind|role|voice|part) of ([A-Z][\w'-]+(?: [A-Z][\w'-]+)+)",
                            self.system)
        cands = re.findall(r"\b([A-Z][a-z'-]+ [A-Z][a-z'-]+)(?=:| (?:is|was|has|had|wants|learned|"
                           r"heard|said|chatted|started|says|asks|invites|will|plans)\b)", self.text)
        addr = " ".join(self._address_strings())
        for c in cands:
            if c not in addr and c.split()[0].lower() not in ("the", "what", "how", "it", "this"):
                found.append(c)
        out: list[str] = []
        for f in found:
            if f not in out:
                out.append(f)
        return out

    def _me(self) -> str:
        m = re.search(r"(?:mind|role|voice|part) of ([A-Z][\w'-]+(?: [A-Z][\w'-]+)*)", self.system)
        if m:
            return m.group(1)
        m = re.search(r"(?m)^\s*Name:\s*(.+?)\s*$", self.text)
        if m:
            return m.group(1)
        return self.persons[0] if self.persons else ""

    def _address_strings(self) -> list[str]:
        return re.findall(r"\b[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2}:(?! )[\w'-]+(?: [\w'-]+){0,4}"
                          r":(?! )[\w'-]+(?: [\w'-]+){0,3}", self.text)

    def _places(self) -> list[str]:
        for key, vals in self.enums.items():
            if re.search(r"place|address$|location|where", key) and "addressed" not in key:
                return [v for v in vals if isinstance(v, str) and v and v not in self.persons]
        out: list[str] = []
        for a in self._address_strings():
            a = a.strip()
            if a not in out:
                out.append(a)
        return out

    def _today_now(self) -> tuple[_dt.date, int]:
        year = _year(self.text)
        iso = re.search(r"(\d{4}-\d{2}-\d{2})\s*\(today", self.text)
        today = _dt.date.fromisoformat(iso.group(1)) if iso else None
        now = None
        clean = re.sub(r"\[[^\]]*\]", " ", self.user)
        m = re.search(r"\b({}),? ({}) (\d{{1,2}})(?:st|nd|rd|th)?(?:,? (\d{{4}}))?(?:,? (\d{{1,2}}:\d{{2}}))?".format("|".join(w.title() for w in WEEKDAYS), "|".join(x.title() for x in MONTHS)),
                      clean)
        if m:
            y = int(m.group(4)) if m.group(4) else year
            today = today or _safe_date(y, MONTHS.index(m.group(2).lower()) + 1, int(m.group(3)))
            if m.group(5):
                now = _hm(m.group(5))
        stamps = re.findall(r"\[(?:\w+ )?(\w+) (\d{1,2}), (\d{1,2}:\d{2})\]", self.text)
        if today is None and stamps:
            mo, d, _t = stamps[-1]
            if mo.lower() in MONTHS:
                today = _safe_date(year, MONTHS.index(mo.lower()) + 1, int(d))
        if now is None:
            m2 = re.search(r"\b(?:it is|it's|now)\b[^\n]{0,40}?(\d{1,2}:\d{2})", clean, re.I)
            same_day = [st for st in stamps if today is not None and st[0].lower() in MONTHS
                        and _safe_date(today.year, MONTHS.index(st[0].lower()) + 1, int(st[1])) == today]
            now = _hm(m2.group(1)) if m2 else (_hm(same_day[-1][2]) if same_day else 0)
        return today or _dt.date(year, 6, 1), now if now is not None else 480

    def first(self, name: str) -> str:
        return name.split()[0] if name else "there"


def _year(text: str) -> int:
    m = re.search(r"\b(20\d\d|19\d\d)\b", text)
    if m:
        return int(m.group(1))
    m = re.search(r"\b({}),? ({}) (\d{{1,2}})".format("|".join(w.title() for w in WEEKDAYS),
                                                "|".join(x.title() for x in MONTHS)), text)
    if m:
        for y in list(range(2025, 2040)) + list(range(2000, 2025)):
            d = _safe_date(y, MONTHS.index(m.group(2).lower()) + 1, int(m.group(3)))
            if d and d.weekday() == WEEKDAYS.index(m.group(1).lower()):
                return y
    return 2026


def _safe_date(y: int, mo: int, d: int) -> _dt.date | None:
    try:
        return _dt.date(y, mo, d)
    except ValueError:
        return None


def _hm(s: str) -> int:
    h, m = s.split(":")
    return int(h) * 60 + int(m)


def _fmt(minutes: int) -> str:
    minutes %= 1440
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _enums(schema: dict, defs: dict, key: str = "", depth: int = 0) -> dict[str, list]:
    out: dict[str, list] = {}
    if not isinstance(schema, dict) or depth > 8:
        return out
    schema = _deref(schema, defs)
    if "enum" in schema and key:
        out.setdefault(key.lower(), []).extend(schema["enum"])
    for k, sub in (schema.get("properties") or {}).items():
        for kk, vv in _enums(sub, defs, k, depth + 1).items():
            out.setdefault(kk, []).extend(v for v in vv if v not in out.get(kk, []))
    for sub in [schema.get("items")] + list(schema.get("anyOf") or []) + list(schema.get("oneOf") or []):
        if isinstance(sub, dict):
            for kk, vv in _enums(sub, defs, key, depth + 1).items():
                out.setdefault(kk, []).extend(v for v in vv if v not in out.get(kk, []))
    return out


def _deref(s: dict, defs: dict) -> dict:
    for _ in range(5):
        ref = s.get("$ref") if isinstance(s, dict) else None
        if not ref:
            break
        s = defs.get(ref.split("/")[-1], {})
    return s if isinstance(s, dict) else {}


# ----------------------------------------------------------------------------- times and events

_CLOCK = re.compile(
    r"\b(\d{1,2})[:.](\d{2})\s*(a\.?m\.?|p\.?m\.?)?(?![\d])|\b(\d{1,2})\s*(a\.?m\.?|p\.?m\.?)(?![a-z])"
    r"|\b(noon|midday|midnight)\b|\b(half|quarter) (past|to) (\w+)|\b(\w+) o'clock", re.I)


def _word_hour(w: str) -> int | None:
    w = w.lower()
    if w.isdigit():
        return int(w)
    return NUMWORDS.get(w)


def _pm_guess(h: int, ctx_text: str) -> int:
    t = ctx_text.lower()
    if h < 12 and (h <= 6 or any(k in t for k in ("evening", "tonight", "afternoon", "after work"))):
        return h + 12
    return h


def clocks(text: str) -> list[int]:
    """Every clock time in the text, in minutes after midnight, in order."""
    out: list[int] = []
    for m in _CLOCK.finditer(text):
        if m.group(1):
            h, mi, ap = int(m.group(1)), int(m.group(2)), (m.group(3) or "").lower()
            if m.group(0)[len(m.group(1))] == "." and not ap:
                continue
        elif m.group(4):
            h, mi, ap = int(m.group(4)), 0, m.group(5).lower()
        elif m.group(6):
            w = m.group(6).lower()
            out.append(0 if w == "midnight" else 720)
            continue
        elif m.group(7):
            base = _word_hour(m.group(9))
            if base is None:
                continue
            base = _pm_guess(base, text)
            off = 30 if m.group(7).lower() == "half" else 15
            out.append(base * 60 + (off if m.group(8).lower() == "past" else -off))
            continue
        else:
            base = _word_hour(m.group(10))
            if base is None:
                continue
            out.append(_pm_guess(base, text) * 60)
            continue
        if h > 23 or mi > 59:
            continue
        if ap.startswith("p") and h < 12:
            h += 12
        elif ap.startswith("a") and h == 12:
            h = 0
        out.append(h * 60 + mi)
    return out


def day_time(text: str) -> int | None:
    """A clock time, else a part of the day ('after work', 'sundown'), else None."""
    c = clocks(text)
    if c:
        return c[0]
    low = text.lower()
    for word, minute in DAYPARTS:
        if word in low:
            return minute
    return None


def date_of(text: str, today: _dt.date) -> _dt.date | None:
    """The first date the text refers to, relative to today where it is relative."""
    low = text.lower()
    m = re.search(r"\b(\d{4}-\d{2}-\d{2})\b", low)
    if m:
        try:
            return _dt.date.fromisoformat(m.group(1))
        except ValueError:
            pass
    m = re.search(r"\b({})\.? (\d{{1,2}})(?:st|nd|rd|th)?\b|\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?({})\b".format("|".join(MONTHS), "|".join(MONTHS)), low)
    if m:
        mo = MONTHS.index(m.group(1) or m.group(4)) + 1
        d = int(m.group(2) or m.group(3))
        got = _safe_date(today.year, mo, d)
        if got:
            return got
    if re.search(r"\b(tomorrow)\b", low):
        return today + _dt.timedelta(days=1)
    if re.search(r"\b(today|tonight|this (morning|afternoon|evening))\b", low):
        return today
    m = re.search(r"\b({})\b".format("|".join(WEEKDAYS)), low)
    if m:
        ahead = (WEEKDAYS.index(m.group(1)) - today.weekday()) % 7
        return today + _dt.timedelta(days=ahead)
    return None


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2 and w not in STOP}


class Event:
    def __init__(self, text: str, host: str, date: _dt.date, start: int, end: int, place: str,
                 owner: str) -> None:
        self.text, self.host, self.date, self.start, self.end = text, host, date, start, end
        self.place, self.owner = place, owner

    def key_words(self, persons: list[str]) -> set[str]:
        names = _words(" ".join(persons))
        return _words(self.text) - names - set(MONTHS) - set(WEEKDAYS) - {"afternoon", "morning",
                                                                              "evening", "tomorrow", "today"}

    def mentioned_in(self, text: str, persons: list[str]) -> bool:
        kw = self.key_words(persons)
        hit = kw & _words(text)
        return len(hit) >= min(2, max(1, len(kw)))


def _sentences(text: str) -> list[tuple[str, str, str]]:
    """(owner, sentence, the line's own time stamp) triples; relative dates count from the stamp."""
    out = []
    held = ""
    for o, line in _sections(text):
        stamp = re.match(r"-?\s*\[([^\]]*)\]", line)
        if stamp:
            held = stamp.group(1)
        elif not line or line.startswith("-") or line.endswith(":"):
            held = ""  # a quoted line under a stamped memory keeps that memory's day
        for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", line):
            out.append((o, s, held))
    return out


_SECTION_PEOPLE: list[str] = []


def _sections(text: str, persons: list[str] | None = None) -> list[tuple[str, str]]:
    persons = persons if persons is not None else _SECTION_PEOPLE
    owner = ""
    out = []
    for line in text.split("\n"):
        s = line.strip()
        m = re.match(r"Name:\s*(.+)$", s)
        if m:
            owner = m.group(1).strip()
        elif s.endswith(":") and not s.startswith("-"):
            named = [p for p in persons if p in s]
            owner = named[0] if len(named) == 1 else ("" if not named else owner)
        out.append((owner, s))
    return out


def events(ctx: Ctx, text: str | None = None, owner_filter: str | None = None) -> list[Event]:
    """Upcoming dated events the text shows, deduplicated by (date, start)."""
    global _SECTION_PEOPLE
    _SECTION_PEOPLE = ctx.persons
    found: dict[tuple, Event] = {}
    nowdate = ctx.today
    for owner, sent, stamp in _sentences(text if text is not None else ctx.user):
        if owner_filter is not None and owner and owner != owner_filter:
            continue
        clean = re.sub(r"\[[^\]]*\]", " ", sent).strip(" -")
        if re.search(r"\(\d+ min\)", clean) or len(clocks(clean)) >= 3 or len(clean) > 600:
            continue
        ref = (date_of(stamp, nowdate) or nowdate) if stamp else nowdate
        d = date_of(clean, ref)
        t = day_time(clean)
        if d is None or t is None:
            continue
        cs = clocks(clean)
        start = t
        end = cs[1] if len(cs) >= 2 and cs[1] > cs[0] else start + 120
        if d < nowdate or (d == nowdate and (end <= ctx.now or (start <= ctx.now and len(cs) < 2))):
            continue  # past, or the present moment itself, or begun with no stated end
        host = _host(clean, ctx.persons, start)
        ev = Event(clean, host, d, start, end, _best_place(clean, ctx.places), owner)
        key = (d, start)
        old = found.get(key)
        if old is None or (not old.host and host) or (bool(host) == bool(old.host) and len(clean) < len(old.text)):
            found[key] = ev
    out: list[Event] = []
    for ev in sorted(found.values(), key=lambda e: (len(clocks(e.text)) == 0, e.date, e.start)):
        if not any(o.date == ev.date and o.host == ev.host and o.mentioned_in(ev.text, ctx.persons) for o in out):
            out.append(ev)  # one event told twice (by clock, by part of day) is kept once, by clock
    return sorted(out, key=lambda e: (e.date, e.start))


def _gist(ev: Event) -> str:
    """The event in a few words: what follows the host's name, before the day and time."""
    t = _what(ev, "")
    if ev.host and t.startswith(ev.host):
        t = t[len(ev.host):]
    t = re.sub(r"^\W*(?:is |are |will |has |'s )?(?:hosting:? |holding |having |throwing |putting on )?"
               r"(?:wants to |plans to |means to |is going to |going to )?", "", t.strip())
    t = re.split(r"\b(?:on|at|from|this|tomorrow|today|tonight|next)\b(?= |$)", t)[0] if len(t) > 25 else t
    return (t.strip(" ,.") or "the event")[:60]


def _host(sent: str, persons: list[str], start: int) -> str:
    """The last person named as a subject (name + verb) before the event's time is given."""
    cands = sorted((m.start(), p) for p in persons
                   for m in re.finditer(re.escape(p) + r"(?:'s)? ([a-z]+)", sent)
                   if m.group(1) not in ("and", "or", "with", "heard", "learned", "learnt", "was", "knows",
                                         "noticed", "saw", "remembers", "said", "told", "thinks", "chatted"))
    before = [c for c in cands if not clocks(sent[:c[0]]) and day_time(sent[:c[0]]) is None]
    pick = before or cands[:1]
    return pick[-1][1] if pick else ""


def _best_place(text: str, places: list[str]) -> str:
    tw = _words(text)
    best, score = "", 0
    for p in places:
        parts = p.split(":")
        pw = _words(" ".join(parts[1:]) if len(parts) > 1 else p)
        s = len(pw & tw)
        if s > score:
            best, score = p, s
    return best


def plan_slots(text: str, owner: str, persons: list[str]) -> list[tuple[int, int, str]]:
    """(start, end, activity) plan lines in the owner's sections (or unowned ones)."""
    out = []
    for o, line in _sections(text, persons):
        if o and owner and o != owner:
            continue
        m = re.match(r"-?\s*(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s+(.*)", line)
        if m:
            out.append((_hm(m.group(1)), _hm(m.group(2)), m.group(3)))
    return out


def commitment(slots: list[tuple[int, int, str]], start: int, me: str, persons: list[str],
               ev: Event | None = None) -> str:
    """The activity at `start` if it is a real commitment (not the event itself), else ''."""
    for a, b, act in slots:
        end = b if b > a else b + 1440
        if a <= start < end or (b < a and start < b):
            low = act.lower()
            if ev is not None and ev.mentioned_in(act, persons):
                return ""
            if any(p in act for p in persons if p != me) or any(w in low for w in COMMIT):
                return re.sub(r"\s*\(.*$", "", act)
    return ""


def _when(ev: Event, today: _dt.date) -> str:
    delta = (ev.date - today).days
    day = "today" if delta == 0 else "tomorrow" if delta == 1 else "on " + WEEKDAYS[ev.date.weekday()].title()
    h, m = divmod(ev.start, 60)
    minutes = f":{m:02d}" if m else ""
    clock = f"{(h - 1) % 12 + 1}{minutes} {'pm' if h >= 12 else 'am'}"
    return f"{day} at {clock}"


def _place_words(place: str) -> str:
    parts = [p for p in place.split(":") if p]
    return (f"at the {parts[1]}" if len(parts) >= 2 else f"at {parts[0]}") if parts else ""


def _what(ev: Event, me: str) -> str:
    """The event told in the speaker's own voice where they host it."""
    t = re.sub(r"\s*\(.*?\)", "", ev.text).split(";")[0].strip().rstrip(".\"")
    t = re.sub(r"\s+\b(?:tomorrow|today|tonight|this (?:morning|afternoon|evening))\b", "", t)
    t = re.sub(r"^.*?\b(?:learned|heard|said|told \w+)(?: that| from [A-Z][\w' ]+:)?\s*", "", t) \
        if ev.host and not t.startswith(ev.host) else t
    if ev.host and ev.host in t:
        t = t[t.index(ev.host):]
    if me and ev.host == me and t.startswith(me):
        rest = t[len(me):].strip()
        verb, _, tail = rest.partition(" ")
        verb = {"is": "am", "has": "have", "was": "was"}.get(verb, verb[:-1] if verb.endswith("s") else verb)
        t = f"I {verb} {tail}"
    return t[:220]


# ----------------------------------------------------------------------------- schema filling

def _fill(s: dict, root: dict, key: str, rng: random.Random, text: str, depth: int = 0) -> Any:
    """A value that fits schema `s`, read from the prompt where it can be."""
    defs = root.get("$defs") or root.get("definitions") or {}
    s = _deref(s, defs)
    if depth > 6:
        return None
    for alt in s.get("anyOf") or s.get("oneOf") or []:
        alt = _deref(alt, defs)
        if alt.get("type") != "null":
            return _fill(alt, root, key, rng, text, depth + 1)
    if "enum" in s and s["enum"]:
        opts = [v for v in s["enum"] if v != ""] or s["enum"]
        low = text.lower()
        hits = [v for v in opts if isinstance(v, str) and v.lower() in low]
        return hits[0] if hits else opts[0] if key.lower() in ("choice", "action") else rng.choice(opts)
    t = s.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if t == "object" or "properties" in s:
        out = {}
        for k, sub in (s.get("properties") or {}).items():
            out[k] = _fill(sub, root, k, rng, text, depth + 1)
        return out
    if t == "array":
        lo = int(s.get("minItems", 1) or 0)
        hi = int(s.get("maxItems", max(lo, 3)))
        n = max(lo, min(hi, max(lo, 1)))
        return [_fill(s.get("items") or {}, root, key, rng, text, depth + 1) for _ in range(n)]
    if t == "integer" or t == "number":
        lo = s.get("minimum", 0)
        hi = s.get("maximum", max(lo, 10))
        v = int(round((lo + hi) / 2)) if "import" not in key else 4
        return max(lo, min(hi, v))
    if t == "boolean":
        return key.lower() in ("ok", "talk")
    return _string_for(s, key, text)


def _string_for(s: dict, key: str, text: str) -> str:
    pat = s.get("pattern", "")
    if "[0-5][0-9]" in pat or "hh:mm" in (s.get("description", "") + key).lower():
        return "" if pat.endswith(")?$") else "09:00"
    if "[0-9]{4}" in pat:
        return ""
    sents = [x.strip() for x in re.split(r"(?<=[.!?])\s+", re.sub(r"\s+", " ", text)) if len(x.strip()) > 20]
    base = sents[-1] if sents else "Nothing much to say."
    lo = int(s.get("minLength", 0) or 0)
    hi = int(s.get("maxLength", 200) or 200)
    v = base[:hi]
    return v if len(v) >= lo else (v + " " * lo)[:max(lo, 1)]


def conform(v: Any, s: dict, root: dict, rng: random.Random, text: str, key: str = "") -> Any:
    """Coerce a built answer to the schema: types, enums, lengths, bounds, required fields."""
    defs = root.get("$defs") or root.get("definitions") or {}
    s = _deref(s, defs)
    alts = s.get("anyOf") or s.get("oneOf")
    if alts:
        if v is None and any(_deref(a, defs).get("type") == "null" for a in alts):
            return None
        alt = next((_deref(a, defs) for a in alts if _deref(a, defs).get("type") != "null"), {})
        return conform(v, alt, root, rng, text, key)
    if "enum" in s and s["enum"]:
        if v in s["enum"]:
            return v
        if isinstance(v, str):
            low = v.lower()
            for opt in s["enum"]:
                if isinstance(opt, str) and opt and (opt.lower() == low or (low and low in opt.lower())):
                    return opt
            if "" in s["enum"]:
                return ""
        return _fill(s, root, key, rng, text)
    t = s.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if t == "object" or "properties" in s:
        if not isinstance(v, dict):
            v = {}
        props = s.get("properties") or {}
        out = {}
        for k, sub in props.items():
            if k in v:
                out[k] = conform(v[k], sub, root, rng, text, k)
            elif k in (s.get("required") or []):
                out[k] = _fill(sub, root, k, rng, text)
        if s.get("additionalProperties", True) is not False:
            for k in v:
                out.setdefault(k, v[k])
        return out
    if t == "array":
        if not isinstance(v, list):
            v = []
        lo = int(s.get("minItems", 0) or 0)
        hi = int(s.get("maxItems", 10 ** 6))
        items = s.get("items") or {}
        v = [conform(x, items, root, rng, text, key) for x in v][:hi]
        while len(v) < lo:
            v.append(_fill(items, root, key, rng, text))
        return v
    if t in ("integer", "number"):
        try:
            n = int(round(float(v))) if t == "integer" else float(v)
        except (TypeError, ValueError):
            n = _fill(s, root, key, rng, text)
        if "minimum" in s:
            n = max(s["minimum"], n)
        if "maximum" in s:
            n = min(s["maximum"], n)
        return n
    if t == "boolean":
        return bool(v)
    if t == "string" or "maxLength" in s or "pattern" in s:
        v = "" if v is None else str(v)
        if s.get("pattern") and not re.search(s["pattern"], v):
            v = _string_for(s, key, text)
        v = v[: int(s.get("maxLength", 10 ** 6))]
        if len(v) < int(s.get("minLength", 0) or 0):
            v = (v + " ..." * 10)[: max(int(s.get("minLength", 1)), 1)]
        return v
    return v


# ----------------------------------------------------------------------------- malformation

def _malform_json(good: str, ctx: Ctx) -> str:
    if not ctx.temperature:
        return good
    r = ctx.rng.random()
    if r < 0.015:
        return good[: max(1, int(len(good) * ctx.rng.uniform(0.3, 0.9)))]
    if r < 0.030:
        return "Here is my answer:\n" + good + "\nI hope this fits the character."
    if r < 0.040:
        return "I'm sorry, but I can't help with that request."
    if r < 0.050:
        return "```json\n" + good + "\n```\nLet me know if you need anything else."
    return good


def _malform_turn(words: str, tag: str, ctx: Ctx) -> str:
    if not ctx.temperature:
        return f"{words}\n{tag}"
    r = ctx.rng.random()
    if r < 0.020:
        return f"{ctx.me}: {words}\n{tag}"
    if r < 0.035:
        return f'"{words}"'
    if r < 0.050:
        return words
    return f"{words}\n{tag}"


# ----------------------------------------------------------------------------- dispatch

def _respond(body: dict, seed: int) -> str:
    ctx = Ctx(body, seed)
    schema = ctx.schema
    if schema is None and not re.search(r"\bJSON\b|Answer as \{", ctx.system + ctx.user):
        return _turn_text(ctx)
    if not schema:
        schema = _schema_from_example(ctx.user)
    props = set((schema.get("properties") or {}).keys())
    built = _build(ctx, schema, props)
    value = conform(built, schema, schema, ctx.rng, ctx.user)
    return _malform_json(json.dumps(value, ensure_ascii=False), ctx)


def _schema_from_example(user: str) -> dict:
    """A schema guessed from an 'answer as {...}' example when the request gives none."""
    props: dict[str, dict] = {}
    for k, v in re.findall(r'"(\w+)":\s*(\[\s*<int|\[|<int|<integer|true|false|"|\{)', user):
        v = "[<" if v.startswith("[") and v.endswith("int") else v
        props.setdefault(k, {"[": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                             "[<": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 10}},
                             "<int": {"type": "integer", "minimum": 1, "maximum": 10},
                             "<integer": {"type": "integer", "minimum": 1, "maximum": 10},
                             "true": {"type": "boolean"}, "false": {"type": "boolean"},
                             "{": {"type": "object"}}.get(v, {"type": "string"}))
    return {"type": "object", "properties": props, "required": list(props)}


def _build(ctx: Ctx, schema: dict, props: set[str]) -> Any:
    if "ok" in props and len(props) == 1:
        return {"ok": True}
    if "talk" in props and "lines" in props:
        return _whole_conversation(ctx, schema, props)
    if "utterance" in props or ("text" in props and "addressed_to" in props):
        return _group_turn(ctx)
    if "blocks" in props or "wake_up_hour" in props:
        return _day_plan(ctx, schema)
    if "steps" in props:
        return _steps(ctx, schema)
    if "ratings" in props:
        return {"ratings": [_importance(m, ctx) for m in _quoted_items(ctx.user)]}
    if props == {"importance"}:
        q = _quoted_items(ctx.user)
        return {"importance": _importance(q[-1] if q else ctx.user[-300:], ctx)}
    if "choice" in props:
        return _react(ctx, schema)
    if "insights" in props:
        return _insights(ctx, schema)
    if "questions" in props:
        return _questions(ctx)
    if "answer" in props:
        return {"answer": _interview(ctx)}
    if "currently" in props:
        return {"currently": _status(ctx)}
    if "plan_activity" in props or ("summary" in props and "importance" in props):
        return _memo(ctx)
    if props == {"summary"}:
        return {"summary": _relation(ctx)}
    return _fill(schema, schema, "", ctx.rng, ctx.user)


# ----------------------------------------------------------------------------- conversations

def convo_lines(text: str, persons: list[str]) -> list[tuple[str, str]]:
    """The conversation under way: the last run of 'Name: words' lines not inside a memory bullet."""
    runs: list[list[tuple[str, str]]] = []
    cur: list[tuple[str, str]] = []
    prev = ""
    for raw in text.split("\n"):
        line = raw.strip()
        m = re.match(r"([A-Z][\w'-]+(?: [A-Z][\w'-]+)*):\s*(.+)$", line)
        if m and m.group(1) in persons:
            if not cur and prev.startswith("-"):
                cur = [("", "")]  # a quoted conversation inside a memory: marked, dropped below
            cur.append((m.group(1), m.group(2).strip().strip('"')))
        else:
            if cur:
                runs.append(cur)
                cur = []
            if line:
                prev = line
    if cur:
        runs.append(cur)
    live = [r for r in runs if r[0] != ("", "")]
    return live[-1] if live else []


def _knows(ctx: Ctx, a: str, b: str) -> bool:
    if not b:
        return False
    for owner, line in _sections(ctx.user, ctx.persons):
        if owner in ("", a) and (b in line or (b.split()[0] + " ") in line) and not line.startswith("Name:"):
            if a in line or line.startswith("-") or line.lower().startswith(("identity", "how ")):
                return True
    return False


def _mine(ctx: Ctx, me: str) -> list[Event]:
    return events(ctx, owner_filter=me)


def _state(ctx: Ctx, me: str, ev: Event) -> str:
    """'host', 'declined', 'going' or '' for what the prompt says of `me` and this event."""
    if ev.host == me:
        return "host"
    for owner, line in _sections(ctx.user, ctx.persons):
        if owner not in ("", me) or not ev.mentioned_in(line, ctx.persons):
            continue
        low = line.lower()
        m = re.search(re.escape(me) + r"[^.;]*?\b(cannot go|can't go|can't make it|declined)", line)
        if m:
            return "declined"
        if re.match(r"-?\s*\d{1,2}:\d{2}", line) or (me in line and any(w in low for w in ACCEPT)):
            return "going"
    return ""


def _line_event(ctx: Ctx, text: str, known: list[Event]) -> Event | None:
    got = events(ctx, text=text)
    if got:
        ev = got[0]
        for k in known:
            if k.date == ev.date and (k.mentioned_in(text, ctx.persons) or abs(k.start - ev.start) <= 90):
                if not ev.host or ev.host == k.host:
                    return k
        return ev
    for k in known:
        if k.mentioned_in(text, ctx.persons):
            return k
    return None


def _is_invitation(ev: Event, speaker: str, line: str, rng: random.Random) -> bool:
    low = " " + line.lower()
    first_person = any(w in low for w in (" i'm ", " i am ", " my ", " we're ", " our ", " join me",
                                         " join us", " i'll be hosting", " i want to", " i'm having"))
    inv = ev.host == speaker or (first_person and ev.host in ("", speaker))
    if not inv and rng.random() < 0.15:
        return True  # declared misread: news taken as an invitation
    return inv


def _decide(ctx: Ctx, me: str, speaker: str, ev: Event, invitation: bool) -> tuple[str, str]:
    """('accept'|'decline'|'propose'|'go'|'note'|'mine'|'already', commitment)."""
    state = _state(ctx, me, ev)
    if state == "host":
        return "mine", ""
    if state == "going":
        return "already", ""
    slots = plan_slots(ctx.user, me, ctx.persons)
    busy = commitment(slots, ev.start, me, ctx.persons, ev) if ev.date == ctx.today else ""
    adj = (0.10 if ctx.tadj > 0 else ctx.tadj) if ctx.tadj else 0.0
    if invitation:
        p = (0.25 if busy else 0.65) + adj + (0.05 if _knows(ctx, me, speaker) else -0.05)
        if ctx.rng.random() < p:
            return "accept", busy
        return ("propose" if busy and ctx.rng.random() < 0.5 else "decline"), busy
    p = (0.12 if busy else 0.40) + adj
    return ("go" if ctx.rng.random() < p else "note"), busy


def _reply_text(kind: str, ev: Event, busy: str, ctx: Ctx) -> str:
    when = _when(ev, ctx.today)
    pick = ctx.rng.choice
    return {
        "accept": pick([f"That sounds lovely, count me in! I'll be there {when}.",
                        f"I'd love to come. {when[0].upper() + when[1:]} works for me.",
                        f"Oh yes, I'll be there {when}!"]),
        "decline": pick([f"Thanks, but I can't make it {when}, I'm afraid.",
                         f"Sorry, I can't make it {when}" + (f": I'm {busy} then." if busy else ".")]),
        "propose": f"Sorry, I have {busy or 'something on'} {when}. Could we do it another day?",
        "go": pick([f"Oh, I might go along to that {when}.", f"Thanks for telling me, I'll try to get there {when}."]),
        "note": pick(["Thanks for letting me know.", "Good to know, thanks.", "Oh, is that so? Interesting."]),
        "mine": f"Yes, that's mine! I hope to see plenty of people there {when}.",
        "already": "Yes, I know about it, I'll be there!",
    }[kind]


def _tell_text(ev: Event, me: str, ctx: Ctx) -> str:
    what = _what(ev, me)
    where = _place_words(ev.place)
    when = _when(ev, ctx.today)
    if ev.host == me:
        return f"Have you heard? {what}. That's {when}{', ' + where if where else ''}. Do come along!"
    return f"Did you hear? {what}, {when}{' ' + where if where else ''}."


def _activity(ctx: Ctx, me: str) -> str:
    m = re.search(re.escape(me) + r" (?:is|was) ([a-z]+ing\b[^.(\n;,]{0,45})", ctx.user)
    return m.group(1).split(" and ")[0].strip() if m else "getting on with the day"


def _next_line(ctx: Ctx, me: str, others: list[str], lines: list[tuple[str, str]],
               outcomes: dict[str, tuple[str, Event | None]]) -> tuple[str, bool, str]:
    """One line for `me`: reply to an event, tell news, or chat. Returns (text, end, addressed_to)."""
    rng = ctx.rng
    n = len(lines)
    said = " ".join(t for _, t in lines)
    mine = _mine(ctx, me)
    last = lines[-1] if lines else None
    to = last[0] if last and last[0] != me else (others[0] if len(others) == 1 else "everyone")
    parts: list[str] = []
    end = False
    if last and last[0] != me:
        if any(w in last[1].lower() for w in BYE) and n >= 2:
            end = rng.random() < 0.85
            return f"Bye, {ctx.first(last[0])}, see you soon!", end, last[0]
        mine_at = max([i for i, (sp, _) in enumerate(lines) if sp == me], default=-1)
        since = [ln for ln in lines[mine_at + 1:] if ln[0] != me]
        heard = [(ln, _line_event(ctx, ln[1], events(ctx))) for ln in since]
        heard = [h for h in heard if h[1] is not None]
        if heard:
            last = heard[-1][0]
            to = last[0]
        low = last[1].lower()
        i_told = any(sp == me and t.startswith(("Have you", "Did you", "Hi")) and len(t) > 40 for sp, t in lines)
        ev = heard[-1][1] if heard else None
        if i_told and any(w in low for w in ACCEPT + MEANGO):
            parts.append(rng.choice(["Wonderful, see you there!", "Great, I'm glad you can come!"]))
        elif i_told and any(w in low for w in DECLINE):
            parts.append(rng.choice(["Never mind, maybe next time.", "That's a shame, another time then."]))
        elif ev is not None and not any(s == me and ev.mentioned_in(t, ctx.persons) for s, t in lines):
            kind, busy = _decide(ctx, me, last[0], ev, _is_invitation(ev, last[0], last[1], rng))
            outcomes[me] = (kind, ev)
            parts.append(_reply_text(kind, ev, busy, ctx))
    untold = [e for e in mine if not e.mentioned_in(said, ctx.persons)]
    if untold:
        e = untold[0]
        p = (0.75 if e.host == me else 0.45) + ctx.tadj
        if any(o in line and e.mentioned_in(line, ctx.persons) for o in others
               for _, line in _sections(ctx.user, ctx.persons) if line.startswith("-")):
            p /= 2
        if rng.random() < p:
            if n == 0:
                parts.append(f"Hi {ctx.first(to if to != 'everyone' else others[0])}!")
            parts.append(_tell_text(e, me, ctx))
            to = "everyone" if len(others) > 1 else to
            outcomes.setdefault(me, ("told", e))
    if not parts:
        if n == 0:
            who = ctx.first(others[0]) if len(others) == 1 else "everyone"
            parts.append(rng.choice([f"Hi {who}! How are you doing?", f"Hello {who}, nice to see you.",
                                     f"Morning, {who}! What are you up to?"]))
        else:
            opts = [o for o in (f"Fine, thanks. I'm {_activity(ctx, me)}.", "Not bad at all, thanks for asking.",
                                f"Oh, just {_activity(ctx, me)}, as usual.") if o not in said]
            if not opts or rng.random() < min(0.8, 0.10 + 0.15 * n):
                parts.append(f"Well, I'd better get on. See you around, {ctx.first(last[0]) if last else ''}!"
                             .replace(", !", "!"))
                end = True
            else:
                parts.append(rng.choice(opts))
    if not end:
        end = rng.random() < min(0.8, 0.10 + 0.15 * n) and not any(p.startswith(("Have you", "Did you")) for p in parts)
    return " ".join(parts), end, to


def _others(ctx: Ctx, me: str) -> list[str]:
    head = ctx.user
    cut = re.search(r"(?m)^.*(remembers|planned|conversation so far)", head)
    head = head[: cut.start()] if cut else head
    for sent in re.split(r"(?<=[.!?])\s+", head):
        m = re.search(re.escape(me) + r"[^.]*? with ([^.]*)", sent) if me else None
        if m:
            withs = [p for p in ctx.persons if p != me and p in m.group(1)]
            if withs:
                head = m.group(1)
                break
    named = sorted((p for p in ctx.persons if p != me and p in head), key=head.find)
    enum_people = [v for k, vals in ctx.enums.items() if "addressed" in k or "speaker" in k for v in vals
                   if v not in ("everyone", me)]
    out = enum_people or named or [p for p in ctx.persons if p != me][:1]
    return list(dict.fromkeys(out)) or ["there"]


def _tags(text: str) -> tuple[str, str]:
    tags = list(dict.fromkeys(re.findall(r"\[([A-Za-z_ -]{2,20})\]", text)))
    stop = next((t for t in tags if re.search(r"end|stop|over|done|bye|leave", t, re.I)), "end")
    go = next((t for t in tags if t != stop and not re.search(r"nobody", t, re.I)), "continue")
    return f"[{stop}]", f"[{go}]"


def _turn_text(ctx: Ctx) -> str:
    me = ctx.me
    others = _others(ctx, me)
    lines = convo_lines(ctx.user, ctx.persons)
    words, end, _ = _next_line(ctx, me, others, lines, {})
    stop, go = _tags(ctx.user)
    if not re.search(r"\[\w+\]", ctx.user):
        return words
    return _malform_turn(words, stop if end else go, ctx)


def _group_turn(ctx: Ctx) -> dict:
    me = ctx.me
    others = _others(ctx, me)
    words, end, to = _next_line(ctx, me, others, convo_lines(ctx.user, ctx.persons), {})
    return {"utterance": words, "addressed_to": to if to in others else "everyone", "end_conversation": end}


def _whole_conversation(ctx: Ctx, schema: dict, props: set[str]) -> dict:
    """Do they talk; if so, simulate the lines turn by turn, then write each one's memo."""
    people = [p for p in _enums(schema, ctx.defs).get("speaker", []) if p] or ctx.persons[:2]
    me = ctx.me if ctx.me in people else people[0]
    people = [me] + [p for p in people if p != me]
    news = any(_mine(ctx, p) for p in people)
    known = any(_knows(ctx, a, b) for a in people for b in people if a != b)
    p_talk = 0.90 if news else 0.60 if known else 0.35
    if ctx.rng.random() >= p_talk:
        return {"talk": False, "lines": []}
    lines_schema = _deref((schema.get("properties") or {}).get("lines", {}), ctx.defs)
    cap = int(lines_schema.get("maxItems", 6))
    lines: list[tuple[str, str]] = []
    outcomes: dict[str, tuple[str, Event | None]] = {}
    i = 0
    while len(lines) < cap:
        sp = people[i % len(people)]
        text, end, _ = _next_line(ctx, sp, [p for p in people if p != sp], lines, outcomes)
        lines.append((sp, text))
        i += 1
        if end and len(lines) >= 2:
            break
    out: dict[str, Any] = {"talk": True, "lines": [{"speaker": s, "text": t} for s, t in lines]}
    memos = [_memo_for(ctx, p, [q for q in people if q != p], lines, outcomes) for p in people]
    if "memos" in props:
        out["memos"] = [dict(m, name=p) for p, m in zip(people, memos, strict=False)]
    else:
        out["first"], out["second"] = memos[0], memos[1] if len(memos) > 1 else memos[0]
    return out


def _memo_for(ctx: Ctx, me: str, others: list[str], lines: list[tuple[str, str]],
              outcomes: dict[str, tuple[str, Event | None]]) -> dict:
    rng = ctx.rng
    kind, ev = outcomes.get(me, ("", None))
    if ev is None:
        for _, t in lines:
            ev = _line_event(ctx, t, events(ctx))
            if ev:
                break
    if not kind:
        mine = " ".join(t.lower() for s, t in lines if s == me)
        kind = ("accept" if any(w in mine for w in ACCEPT) else "go" if any(w in mine for w in MEANGO)
                else "decline" if any(w in mine for w in DECLINE) else "")
        if ev is not None and ev.host == me:
            kind = "mine"
    names = " and ".join(others) or "someone"
    if ev is None:
        summary = f"{me} chatted with {names}; it was friendly small talk."
        imp = rng.choice([2, 2, 3])
    else:
        when = _when(ev, ctx.today)
        verdict = {"accept": f"{me} said they would come", "go": f"{me} said they mean to go",
                   "decline": f"{me} declined", "propose": f"{me} asked for another day",
                   "mine": f"{me} told them about it", "told": f"{me} told them about it",
                   "already": f"{me} is already going"}.get(kind, f"{me} heard about it")
        summary = f"{me} talked with {names} about this: {_what(ev, '')} ({when}); {verdict}."
        imp = {"accept": 7, "go": 6, "mine": 6, "told": 5}.get(kind, 5)
    if rng.random() < 0.3:
        imp += rng.choice([-1, 1])
    memo = {"summary": summary[:400], "importance": max(1, min(10, imp)), "plan_activity": "",
            "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    p = {"accept": 0.90, "go": 0.80, "already": 0.30, "mine": 0.10}.get(kind, 0.04)
    if ev is not None and rng.random() < p:
        memo.update(plan_activity=f"going to: {_gist(ev)}"[:120], plan_date=ev.date.isoformat(),
                    plan_start=_fmt(ev.start), plan_minutes=max(15, min(600, (ev.end - ev.start) % 1440 or 120)),
                    plan_place=ev.place)
    return memo


def _memo(ctx: Ctx) -> dict:
    me = ctx.me
    lines = convo_lines(ctx.user, ctx.persons)
    others = list(dict.fromkeys(s for s, _ in lines if s != me)) or _others(ctx, me)
    return _memo_for(ctx, me, others, lines, {})


# ----------------------------------------------------------------------------- planning

def _home(ctx: Ctx, me: str) -> str:
    sur = me.split()[-1].lower() if me else "\0"
    for p in ctx.places:
        if sur in p.lower():
            return p
    for p in ctx.places:
        if re.search(r"home|house|cottage|flat|bedroom|rooms|apartment|cabin", p, re.I):
            return p
    return ctx.places[0] if ctx.places else ""


def _lifestyle(ctx: Ctx) -> tuple[int, int, tuple[int, int, str] | None]:
    text = ctx.user
    wake = bed = None
    m = re.search(r"wak\w*[^.;\n]{0,25}?((?:\d{1,2}(?::\d{2})?\s*[ap]\.?m\.?)|\d{1,2}:\d{2}|noon|dawn|sunrise)", text, re.I)
    if m:
        wake = day_time(m.group(1))
    m = re.search(r"(?:bed|sleep)\w*[^.;\n]{0,25}?((?:\d{1,2}(?::\d{2})?\s*[ap]\.?m\.?)|\d{1,2}:\d{2}|midnight)", text, re.I)
    if m:
        bed = day_time(m.group(1))
    work = None
    life = re.search(r"(?im)^.*\b(?:lifestyle|routine|habits)\b.*$", text)
    src = life.group(0) if life else text[:1500]
    for seg in re.split(r",| and ", src):
        cs = clocks(seg)
        if len(cs) >= 2 and "from" in seg.lower() and not re.search(r"wak|bed|sleep", seg, re.I):
            what = re.sub(r"^.*?:\s*", "", seg.split(" from ")[0]).strip()
            work = (cs[0], cs[1], what or "working")
            break
    wake = 7 * 60 if wake is None else wake
    bed = 22 * 60 if bed is None else (bed if bed > 12 * 60 else bed + 1440)
    return wake, bed, work


def _day_plan(ctx: Ctx, schema: dict) -> dict:
    me, rng = ctx.me, ctx.rng
    wake, bed, work = _lifestyle(ctx)
    home = _home(ctx, me)
    others = [p for p in ctx.places if p != home] or [home]
    slot: dict[int, tuple[str, str]] = {}

    def put(a: int, b: int, act: str, place: str) -> None:
        for t in range(a, b, 15):
            slot[t] = (act, place)
    put(wake, bed, "relaxing at home", home)
    put(wake, wake + 30, "waking up and getting ready", home)
    put(wake + 30, wake + 75, "having breakfast", home)
    if work:
        wplace = _best_place(work[2], others) or rng.choice(others)
        put(max(work[0], wake + 75), work[1], work[2][:60], wplace)
    if wake < 12 * 60 < bed - 120:
        put(12 * 60, 13 * 60, "having lunch", slot.get(12 * 60, ("", home))[1] or home)
    if bed > 19 * 60 + 30:
        put(18 * 60 + 30, 19 * 60 + 30, "having dinner", home)
    outline_extra = []
    for ev in _mine(ctx, me):
        state = _state(ctx, me, ev)
        p = 0.90 if state in ("host", "going") else 0.10 if state == "declined" else 0.35
        if ev.date == ctx.today and rng.random() < p:
            act = ("hosting: " if state == "host" else "going to: ") + _gist(ev)
            a = max(wake, ev.start - ev.start % 15)
            put(a, min(bed, ev.end), act, ev.place or home)
            outline_extra.append(f"{act[:70]} at {_fmt(ev.start)}")
        if state == "host" and (ev.date > ctx.today or ev.start > wake + 180) and rng.random() < 0.5:
            a = 16 * 60 if ev.date > ctx.today else max(wake + 120, ev.start - 120)
            a -= a % 15
            put(a, min(bed, a + 60), f"asking people to come to: {_gist(ev)}", rng.choice(others))
    blocks: list[dict] = []
    seen_meals: set[str] = set()
    t, stop = wake - wake % 15, bed
    if "wake_up_hour" not in (schema.get("properties") or {}) and ctx.now > wake:
        t = ctx.now - ctx.now % 15  # a re-plan from now: the next hour or two, or the rest of the day
        win = re.search(r"next (\w+ )?(?:or (\w+) )?hours?", ctx.user, re.I)
        if win:
            n = _word_hour((win.group(2) or win.group(1) or "one").strip()) or 1
            stop = min(bed, t + 60 * n)
    while t < stop:
        act, place = slot.get(t, ("relaxing at home", home))
        u = t + 15
        while u < stop and slot.get(u) == (act, place):
            u += 15
        if act.startswith("having") and act in seen_meals:
            act = "relaxing"
        seen_meals.add(act)
        if blocks and blocks[-1]["activity"] == act and blocks[-1]["address"] == place:
            blocks[-1]["duration_minutes"] += u - t
        else:
            blocks.append({"start": _fmt(t), "duration_minutes": u - t, "activity": act,
                           "emoji": _emoji(act), "address": place})
        t = u
    if stop == bed:
        blocks.append({"start": _fmt(bed), "duration_minutes": min(960, (wake + 1440 - bed) % 1440 or 480),
                       "activity": "sleeping", "emoji": "\U0001F634", "address": home})
    while len(blocks) > 16:
        i = min(range(len(blocks) - 2), key=lambda k: blocks[k]["duration_minutes"] + blocks[k + 1]["duration_minutes"])
        blocks[i]["duration_minutes"] += blocks.pop(i + 1)["duration_minutes"]
    for b in blocks:
        b["duration_minutes"] = max(5, min(960, b["duration_minutes"]))
    outline = [f"wake up at {_fmt(wake)}"] + ([f"{work[2][:60]} until {_fmt(work[1])}"] if work else []) \
        + outline_extra + [f"dinner at home at {_fmt(18 * 60 + 30)}", f"bed at {_fmt(bed)}"]
    while len(outline) < 4:
        outline.insert(-1, "some time to relax")
    return {"wake_up_hour": wake // 60, "outline": outline[:8], "blocks": blocks}


def _emoji(act: str) -> str:
    low = act.lower()
    for words, e in (("break|lunch|dinner|eat", "\U0001F37D"), ("wak|ready", "\u2600"), ("sleep", "\U0001F634"),
                     ("host|going|party|ask", "\U0001F389"), ("relax|read|home", "\U0001F4D6")):
        if re.search(words, low):
            return e
    return "\U0001F6E0"


def _steps(ctx: Ctx, schema: dict) -> dict:
    m = re.search(r"\((\d+) minutes?\)", ctx.user)
    cs = [c for c in clocks(ctx.user[-1500:])]
    total = int(m.group(1)) if m else (max(30, (cs[1] - cs[0]) % 1440) if len(cs) >= 2 else 30)
    am = re.search(r"\)\s+(?:\w+ ){0,4}is ([^,\n]+), at", ctx.user)
    act = am.group(1).strip() if am else "getting on with it"
    objs = [o for o in _enums(schema, ctx.defs).get("object", []) if o]
    sch = _deref((schema.get("properties") or {}).get("steps", {}), ctx.defs)
    lo, hi = int(sch.get("minItems", 2)), int(sch.get("maxItems", 6))
    k = max(lo, min(hi, -(-total // 15)))
    base, extra = divmod(min(total, 15 * k), k)
    durs = [max(5, min(15, base + (1 if i < extra else 0))) for i in range(k)]
    low = act.lower()
    if re.search(r"breakfast|lunch|dinner|eat|meal", low):
        names = ["getting the food ready", "laying the table", "eating", "having a drink", "clearing up", "washing up"]
    elif "sleep" in low:
        names = ["settling into bed", "sleeping", "sleeping soundly", "turning over", "sleeping", "dozing"]
    elif re.search(r"wak|ready", low):
        names = ["getting out of bed", "washing", "getting dressed", "tidying the room", "checking the day", "heading out"]
    else:
        names = [f"starting: {act}", act, f"carrying on {act}", f"checking on {act}", f"nearly done {act}", f"finishing: {act}"]
    steps = []
    for i, d in enumerate(durs):
        name = names[i] if i < len(names) - 1 else (names[-1] if i == k - 1 else f"{act} (continued)")
        obj = _best_obj(name + " " + act, objs, ctx.rng)
        steps.append({"activity": name[:80], "duration_minutes": d, "object": obj,
                      "object_state": ("in use" if obj else "")})
    return {"steps": steps}


def _best_obj(text: str, objs: list[str], rng: random.Random) -> str:
    tw = _words(text)
    for o in objs:
        if _words(o) & tw:
            return o
    if re.search(r"sleep|bed", text) and objs:
        return next((o for o in objs if "bed" in o.lower()), "")
    return rng.choice(objs) if objs and rng.random() < 0.4 else ""


# ----------------------------------------------------------------------------- reflection and others

def _quoted_items(text: str) -> list[str]:
    body = text[text.find("\n\n") + 1:]
    items = re.findall(r'(?m)^\s*(?:-|\d+\.)\s*"(.*)"\s*$', body)
    return items or re.findall(r'"([^"]{3,})"', body)


def _importance(memory: str, ctx: Ctx) -> int:
    low = memory.lower()
    if re.search(r"die[sd]?\b|death|funeral|fire|accident|wedding|married|engag|divorce|born|break ?up|fired|arrest", low):
        v = 9
    elif date_of(re.sub(r"\[[^\]]*\]", "", memory), ctx.today) and day_time(memory) is not None:
        v = 6
    elif re.search(r"invit|news|heard|told|party|plan to|wants to|promise|going to", low):
        v = 5
    elif re.search(r"conversation|chat|talk|said|ask", low):
        v = 3
    elif re.search(r"sleep|breakfast|lunch|dinner|waking|getting ready|relaxing|busy at", low):
        v = ctx.rng.choice([1, 2, 2])
    else:
        v = 3
    if ctx.rng.random() < 0.3:
        v += ctx.rng.choice([-1, 1])
    return max(1, min(10, v))


def _react(ctx: Ctx, schema: dict) -> dict:
    me, rng = ctx.me, ctx.rng
    choices = _enums(schema, ctx.defs).get("choice", ["continue"])
    seen = [p for p in ctx.persons if p != me and p in ctx.user[ctx.user.find("\n\n"):]]
    who = seen[0] if seen else ""
    untold = [e for e in _mine(ctx, me) if _state(ctx, me, e) != "declined"]
    told_before = who and any(who in line and e.mentioned_in(line, ctx.persons)
                              for e in untold for _, line in _sections(ctx.user, ctx.persons) if line.startswith("-"))
    p_talk = 0.65 if untold and not told_before else 0.25 if _knows(ctx, me, who) else 0.10
    r = rng.random()
    if r < p_talk and "talk" in choices:
        reason = (f"{me} wants to tell {who} about {_what(untold[0], '')[:120]}" if untold
                  else f"{me} knows {who} and would like a chat")
        return {"choice": "talk", "reason": reason, "new_activity": ""}
    r = rng.random()
    if r < 0.10 and "wait" in choices:
        return {"choice": "wait", "reason": f"{who or 'They'} seem busy right now.", "new_activity": ""}
    if r < 0.15 and "react" in choices:
        return {"choice": "react", "reason": "It is worth a closer look.", "new_activity": f"going over to see {who}".strip()}
    return {"choice": "continue" if "continue" in choices else choices[0],
            "reason": f"Nothing about it calls for a change; {me} carries on.", "new_activity": ""}


def _insights(ctx: Ctx, schema: dict) -> dict:
    me, rng = ctx.me, ctx.rng
    groups: list[tuple[str, list[tuple[int, str]]]] = []
    for line in ctx.user.split("\n"):
        m = re.match(r"\s*(\d+)\.\s+(.*)", line)
        if m and groups:
            groups[-1][1].append((int(m.group(1)), m.group(2)))
        elif "?" in line and not m:
            q = re.findall(r'"([^"]+\?)"', line)
            groups.append((q[0] if q else line.strip(), []))
    out = []
    for _q, stmts in groups:
        if not stmts:
            continue
        people = [p for p in ctx.persons if p != me and any(p in s for _, s in stmts)]
        evs = [e for e in _mine(ctx, me)]
        ids = [n for n, s in stmts]
        if evs and any(evs[0].mentioned_in(s, ctx.persons) for _, s in stmts):
            ev_ids = [n for n, s in stmts if evs[0].mentioned_in(s, ctx.persons)][:5]
            out.append({"insight": f"{me} cares about this: {_what(evs[0], '')[:150]}.", "about": "the event",
                        "evidence": ev_ids, "importance": 6})
        for p in people[:2]:
            pid = [n for n, s in stmts if p in s][:6]
            out.append({"insight": f"{me} often sees {p} around and knows their routine.", "about": p[:60],
                        "evidence": pid, "importance": rng.choice([3, 4])})
        if not people and not evs:
            out.append({"insight": f"{me} keeps to a steady daily routine.", "about": "routine",
                        "evidence": rng.sample(ids, min(3, len(ids))), "importance": 2})
    if not out:
        out.append({"insight": f"{me} keeps to a steady daily routine.", "about": "routine", "evidence": [1],
                    "importance": 2})
    return {"insights": out[:15]}


def _questions(ctx: Ctx) -> dict:
    me = ctx.me
    body = ctx.user[ctx.user.find("\n\n"):]
    counts = sorted(((body.count(p), p) for p in ctx.persons if p != me and p in body), reverse=True)
    qs = []
    for e in _mine(ctx, me)[:1]:
        qs.append(f"What will {me} do about this: {_what(e, '')[:150]}?")
    for _, p in counts[:2]:
        qs.append(f"How does {me} get on with {p}?")
    qs.append(f"What matters most to {me} these days?")
    return {"questions": qs[:3]}


def _interview(ctx: Ctx) -> str:
    me, rng = ctx.me, ctx.rng
    qs = re.findall(r'"([^"]+\?)"', ctx.user)
    q = qs[-1] if qs else ctx.user[-200:]
    named = [p for p in ctx.persons if p in q and p != me]
    named += re.findall(r"(?<=[a-z,] )([A-Z][a-z'-]+ [A-Z][a-z'-]+)", q)
    target = next((p for p in named if p != me), "")
    mems = [line for line in ctx.user.split("\n") if line.strip().startswith("-") and "(" not in line.strip()[:4]]
    if target:
        persona = [line for line in ctx.user.split("\n")[:8] if target in line and re.match(r"\w+: \S", line)]
        about = [line for line in mems if target in line]
        if persona:
            return f"Yes, I know {target}. {re.sub(r'^[A-Za-z ]+:', '', persona[0]).strip()[:250]}"
        if about:
            last = re.sub(r"^-?\s*\[[^\]]*\]\s*", "", about[-1]).strip()
            return f"Yes, I know {ctx.first(target)} a little. Last I noticed: {last[:250]}"
        return f"No, I don't think I know {target}."
    kw = _words(q)
    hits = [line for line in mems if len(_words(line) & kw) >= 1]
    evs = [e for e in _mine(ctx, me) if e.key_words(ctx.persons) & kw]
    if evs:
        e = evs[0]
        state = _state(ctx, me, e)
        tail = {"host": "It's mine, I hope you'll come!", "going": "I'm planning to go.",
                "declined": "I can't make it myself."}.get(state, "I might go.")
        return f"Yes: {_what(e, '')[:200]}, {_when(e, ctx.today)}. {tail}"
    if hits:
        return "I've heard something: " + re.sub(r"^-?\s*\[[^\]]*\]\s*", "", hits[-1]).strip()[:250]
    if rng.random() < 0.05:
        return "I think I've heard something about that, but I'm not sure of the details."
    return "No, I haven't heard anything about that."


def _status(ctx: Ctx) -> str:
    me, rng = ctx.me, ctx.rng
    m = re.search(r"(?m)^\s*Currently:\s*(.+)$", ctx.user)
    old = m.group(1).strip() if m else f"{me} is getting on with daily life."
    parts = [old.split(". ")[0].rstrip(".") + "."]
    for e in _mine(ctx, me)[:2]:
        state = _state(ctx, me, e)
        p = 0.90 if state in ("host", "going") else 0.55 if state != "declined" else 0.30
        if rng.random() < p:
            verb = {"host": "is hosting", "going": "means to go to", "declined": "cannot go to"}.get(state, "has heard of")
            parts.append(f"{me} {verb} this, {_when(e, ctx.today)}: {_what(e, '')[:160]}.")
    if len(parts) < 2:
        parts.append(f"{me} cares about keeping up with friends and neighbours.")
    return " ".join(parts)[:500]


def _relation(ctx: Ctx) -> str:
    me = ctx.me
    other = next((p for p in ctx.persons if p != me and p in ctx.user[ctx.user.find("\n\n"):]), "them")
    persona = [line for line in ctx.user.split("\n")[:8] if other in line and re.match(r"\w+: \S", line)]
    n = sum(1 for line in ctx.user.split("\n") if line.strip().startswith("-") and other in line)
    if persona:
        return f"{other} is someone {me} knows well ({re.sub(r'^[A-Za-z ]+:', '', persona[0]).strip()[:150]}); {me} feels warmly towards them."
    if n >= 3:
        return f"{other} is a familiar face to {me}; {me} sees them often and feels friendly towards them."
    return f"{other} is an acquaintance of {me}; {me} does not know them well yet but feels neutral to friendly."
