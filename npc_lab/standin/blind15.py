"""blind15: a deterministic stand-in for a middling (7-8B class) instruction-tuned chat model
answering an NPC-brain server's chat-completions requests.  Written only from captured request
bodies; standard library only.  respond(body, seed) -> completion text.

How it reads a request
- Purpose: response_format.json_schema.name; unknown names (or no schema) are answered from the
  schema itself, or as plain text when the request has no schema.
- People: "inner mind of X" / "Name: X" lines / speaker enums / capitalised names in the text.
- Places: the schema's enum of places where there is one, else "Town:Building:room" strings.
- Events are read by STRUCTURE, not by event nouns: a clause in which a person intends to do or
  hold something ("wants to / plans to / is going to / will / is hosting / is holding / is getting
  everyone together to / come to / join us / drop in / would you like to ...") together with a
  concrete clock time or part of day ("2 pm", "17:00", "half past five", "this evening") and/or a
  date ("April 11", "11 April", "2026-04-11", "Saturday", "tomorrow").  Host = the person named
  just before the intent phrase ("I"/"we" = the speaker).  Place = the known place whose
  building/room words occur in the clause.  Explicit dates win over relative words.

Decisions (all drawn from a hash of the messages and the seed; rates are per decision):
- Talk when meeting (conversation_summary / group_summary): someone in the group has news on
  their mind -> talk 0.92; otherwise talk 0.55 (+0.1 if a sociable/talkative/jovial trait).
- Passing news on: a speaker with news not yet mentioned in the dialogue brings it up 0.85 of
  the time at its first turn after the greeting (else small talk first, then 0.85 again).
- Accepting an invitation / meaning to go to an event one hears of (converse/group turns and the
  lines of summaries): base 0.60 for an invitation from the host, 0.40 for news passed on by a
  third party; +0.15 for an outgoing trait, -0.15 for a quiet/tired trait; x0.15 when the listener's
  plan holds a real commitment (going to / hosting / meeting / appointment / calling on / a named
  person) overlapping the event on the same day; x0.85 when it overlaps only ordinary activity;
  0.02 when the text already says the listener cannot go; 0 when the event is over.
- Plan change in memos: the person said they will go (yes / count me in / I'll be there / love to
  ...) -> plan item 0.90; event told but no answer -> 0.12; declined -> 0.03; host of the event ->
  no new item (0.92).  Plan item = the event's date, start, minutes (end-start, default 90/120)
  and place.
- daily_plan: lifestyle gives wake, work and bed hours; Sunday is a day off.  Own event that day
  (host) -> block 0.95; event the person said they'd go to -> 0.85; event only heard of -> the
  acceptance rule above; "X cannot go" naming them -> 0.02.  News to pass on -> a "seeing people"
  block where the untold people will be, 0.6.
- react: news for the noticed person not yet told -> talk 0.75; otherwise continue 0.70,
  talk 0.22 (+0.08 outgoing), wait 0.04, react 0.04.
- Interviews: answered honestly from the memories and persona shown.  "Do you know X?": known
  from identity or memories -> says so with what the memories show; else says they don't know
  them.  Other questions: memories sharing >=2 content words (or the asked-about name plus one
  word) -> answer from the best such memory (event details when it is an event); else "I don't
  know / haven't heard".
- Importance: keyword score (routine 1-2, chat 2-3, plans 3, news/events/invitations 5-7, death/
  illness/breakup 8-9) with +-1 noise 0.3 of the time.
- Reflection, relationship, revise_currently, decompose: built from the names, memories, event
  and activity shown (templates).

Malformed answers (declared; nothing else is meant to be invalid):
- 5.0% of answers (probe excepted) are malformed, equally often: truncated JSON (cut at 40-85%),
  a short refusal, prose/code fence around the JSON, the speaker's name in front of a line
  (in a JSON text field: still parses; in plain-text turns: "Name: ..."), a missing required field.
- Plain-text turns: the tag is missing in 1 of those 5 kinds instead of the missing field.
- Output longer than 4 characters per max_token is cut there (rare by design).
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import random
import re
from typing import Any

MALFORM_RATE = 0.05
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december"]
MON3 = [m[:3] for m in MONTHS]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
NUMW = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
        "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
OUTGOING = ("sociable", "energetic", "jovial", "talkative", "curious", "friendly", "outgoing",
            "generous", "cheerful", "warm", "lively", "nosy", "chatty", "enthusiastic")
RESERVED = ("quiet", "tired", "shy", "grumpy", "reserved", "busy", "solitary", "gruff", "cautious",
            "introverted", "stern", "anxious")
STOP = set("""a an the and or of to in on at for with from by is are was were be been being do does
did have has had you your i me my we our us he she his her they them their it its this that these
those what who whom which how when where why about any some know heard hear ever tell there here
not no yes if as into up out so than then just also can could would should will shall may might
must""".split())

INTENT = re.compile(
    r"\b(?:(?:is|are|am|'s|'m|'re) getting (?:everyone|people|folk|friends|the \w+|us|them)(?: together)? to|wants? to|would like to|'d like to|plans? to|planning to|is planning|intends? to|"
    r"means? to|(?:is|are|am|'s|'m|'re) going to|will|'ll|(?:is|are|am|'s|'m|'re) (?:hosting|holding|"
    r"organi[sz]ing|running|throwing|putting on|giving|leading|teaching|having|starting|getting|"
    r"gathering|inviting|arranging|setting up|showing|celebrating|doing)|hosts?|holds?|"
    r"organi[sz]es|invites?|inviting|come (?:to|along|and|over|by)|join (?:us|me|him|her|them|in)|"
    r"drop (?:in|by)|would you like to|do you want to|fancy (?:coming|joining)|you(?:'re| are) (?:all )?welcome|"
    r"there(?:'s| is| will be) (?:a|an|going))\b", re.I)
ACCEPT = re.compile(r"\b(count me in|i'll (?:be there|come|go|join)|i will (?:come|be there|go)|"
                    r"love to|i'd like that|sounds (?:lovely|great|good|fun)|see you there|yes|"
                    r"i'm in|wouldn't miss|i'll try to make it|i mean to go|happy to come)\b", re.I)
DECLINE = re.compile(r"\b(can't make it|cannot make it|can't come|cannot go|can't go|won't be able|"
                     r"not able to|i'm busy|i am busy|have other plans|sorry|no thanks|afraid not|"
                     r"i'll pass|maybe another time)\b", re.I)
COMMIT = re.compile(r"\b(going to|hosting|meeting|appointment|calling on|visit|event|party|"
                    r"with [A-Z])", re.I)


# ----------------------------------------------------------------------------- small helpers
def _rng(body: dict, seed: int, salt: str = "") -> random.Random:
    try:
        raw = json.dumps(body.get("messages", []), sort_keys=True, ensure_ascii=True)
    except Exception:
        raw = repr(body)
    h = hashlib.sha256(f"{seed}|{salt}|{raw}".encode("utf-8", "replace")).digest()
    return random.Random(int.from_bytes(h[:8], "big"))


def _hm(m: int) -> str:
    m %= 1440
    return f"{m // 60:02d}:{m % 60:02d}"


def _clock_words(m: int) -> str:
    h, mm = divmod(m % 1440, 60)
    ap = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return f"{h12}{':%02d' % mm if mm else ''} {ap}"


def _grp(pat: str, text: str, flags: int = 0) -> str:
    m = re.search(pat, text, flags)
    return m.group(1) if m else ""


def _first(d: str) -> str:
    return d.split()[0] if d else ""


def _sentences(text: str) -> list[str]:
    out = []
    for line in text.split("\n"):
        line = re.sub(r"\[[A-Za-z]+ [A-Za-z]+ \d+, \d\d:\d\d\]", " ", line)
        for part in re.split(r"(?<=[.!?])\s+(?=[A-Z\"'])|\s/\s", line):
            part = part.strip(" -\t")
            if part:
                out.append(part)
    return out


# ----------------------------------------------------------------------------- time & date
_T_RANGE_SEP = r"\s*(?:-|–|to|until|till|and)\s*"
_T_ONE = (r"(?<![\w:])(?:(?:\d{1,2})(?::|\.)(?:\d{2})\s*(?:am|pm|a\.m\.|p\.m\.)?|\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.|o'clock)|"
          r"(?:half past|quarter past|quarter to|twenty past|ten past|twenty to|ten to)\s+\w+|"
          r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s*(?:o'clock|am|pm)|noon|midday|midnight)")
_T_ONE_RE = re.compile(_T_ONE, re.I)
PARTS = {"early morning": (480, 60), "morning": (600, 120), "lunchtime": (720, 60), "noon": (720, 60),
         "afternoon": (840, 120), "teatime": (960, 60), "evening": (1080, 120), "tonight": (1140, 120),
         "night": (1200, 120)}


def _one_time(s: str, ctx_pm: bool | None = None) -> int | None:
    s = s.lower().strip().replace("a.m.", "am").replace("p.m.", "pm")
    if s in ("noon", "midday"):
        return 720
    if s == "midnight":
        return 0
    m = re.match(r"(half past|quarter past|quarter to|twenty past|ten past|twenty to|ten to)\s+(\w+)", s)
    if m:
        hw = m.group(2)
        h = NUMW.get(hw) or (int(hw) if hw.isdigit() else None)
        if h is None:
            return None
        off = {"half past": 30, "quarter past": 15, "quarter to": -15, "twenty past": 20,
               "ten past": 10, "twenty to": -20, "ten to": -10}[m.group(1)]
        base = h % 12 + (12 if (ctx_pm is not False and h < 8) or ctx_pm else 0)
        return (base * 60 + off) % 1440
    m = re.match(r"(\d{1,2}|[a-z]+)(?:[:.](\d{2}))?\s*(am|pm|o'clock)?", s)
    if not m:
        return None
    hs = m.group(1)
    h = int(hs) if hs.isdigit() else NUMW.get(hs)
    if h is None or h > 23:
        return None
    mi = int(m.group(2) or 0)
    ap = m.group(3)
    if ap == "pm" and h < 12:
        h += 12
    elif ap == "am" and h == 12:
        h = 0
    elif (ap in (None, "o'clock")) and h < 8 and not m.group(2):
        h += 12 if ctx_pm is not False else 0
    elif ap == "o'clock" and ctx_pm and h < 12:
        h += 12
    return h * 60 + mi


def find_times(s: str) -> tuple[int | None, int | None, bool]:
    """(start, end, concrete) minutes of day for the first time expression in s."""
    low = s.lower()
    pm = None
    if re.search(r"\b(afternoon|evening|tonight|pm)\b", low):
        pm = True
    elif re.search(r"\b(morning|am)\b", low):
        pm = False
    rng_m = re.search(r"(" + _T_ONE + r")" + _T_RANGE_SEP + r"(" + _T_ONE + r"|\d{1,2}(?:[:.]\d{2})?)", s, re.I) or \
        re.search(r"(?<![\w:])(\d{1,2})" + _T_RANGE_SEP + r"(" + _T_ONE + r")", s, re.I)
    if rng_m:
        a_txt, b_txt = rng_m.group(1), rng_m.group(2)
        b_pm = True if re.search(r"pm|p\.m", b_txt, re.I) else (False if re.search(r"am|a\.m", b_txt, re.I) else pm)
        a_pm = True if re.search(r"pm|p\.m", a_txt, re.I) else (False if re.search(r"am|a\.m", a_txt, re.I) else b_pm)
        a, b = _one_time(a_txt, a_pm), _one_time(b_txt, b_pm)
        if a is not None and b is not None:
            if b <= a and b + 720 > a and b < 720:
                b += 720
            return a, b, True
    m = _T_ONE_RE.search(s)
    if m:
        t = _one_time(m.group(0), pm)
        if t is not None:
            return t, None, True
    for k in sorted(PARTS, key=len, reverse=True):
        if re.search(r"\b" + k + r"\b", low):
            a, d = PARTS[k]
            return a, a + d, False
    return None, None, False


class Cal:
    """The request's calendar: today's date and the day options offered."""

    def __init__(self, text: str, schema_dates: list[str]):
        self.opts = [d for d in schema_dates if d]
        self.today = None
        m = re.search(r"(\d{4}-\d{2}-\d{2}) \(today", text)
        if m:
            self.today = _safe_date(m.group(1))
        year = None
        ym = re.search(r"\b(20\d\d)\b", text)
        if ym:
            year = int(ym.group(1))
        if self.opts and not year:
            year = int(self.opts[0][:4])
        self.year = year or 2026
        if self.today is None:
            m = re.search(r"\b(?:It is|Today is|It's|Now:?)\s+(?:(\w+day),?\s+)?(\w+)\s+(\d{1,2})\b", text)
            if m:
                self.today = _md(m.group(2), m.group(3), self.year)
            if self.today is None:
                m = re.search(r"\b(" + "|".join(MONTHS) + r")\s+(\d{1,2})\b", text, re.I)
                if m:
                    self.today = _md(m.group(1), m.group(2), self.year)
        if self.today is None and self.opts:
            self.today = _safe_date(self.opts[0])
        if self.today is None:
            self.today = _dt.date(self.year, 1, 1)

    def find_date(self, s: str) -> tuple[_dt.date | None, bool]:
        """(date, explicit) for the first date in s."""
        m = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", s)
        if m:
            d = _safe_date(m.group(0))
            if d:
                return d, True
        m = re.search(r"\b(" + "|".join(MON3) + r")[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b", s, re.I)
        if m:
            d = _md(m.group(1), m.group(2), self.year)
            if d:
                return d, True
        m = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + "|".join(MON3) + r")[a-z]*\b", s, re.I)
        if m:
            d = _md(m.group(2), m.group(1), self.year)
            if d:
                return d, True
        low = s.lower()
        if re.search(r"\b(today|tonight|this (?:morning|afternoon|evening))\b", low):
            return self.today, False
        if re.search(r"\btomorrow\b", low):
            return self.today + _dt.timedelta(days=1), False
        m = re.search(r"\b(next\s+)?(" + "|".join(WEEKDAYS) + r")\b", low)
        if m:
            wd = WEEKDAYS.index(m.group(2))
            delta = (wd - self.today.weekday()) % 7
            if m.group(1) and delta == 0:
                delta = 7
            return self.today + _dt.timedelta(days=delta), False
        return None, False

    def iso(self, d: _dt.date | None) -> str:
        if d is None:
            return ""
        s = d.isoformat()
        if self.opts and s not in self.opts:
            return ""
        return s

    def say(self, d: _dt.date | None) -> str:
        if d is None:
            return "soon"
        if d == self.today:
            return "today"
        if d == self.today + _dt.timedelta(days=1):
            return "tomorrow"
        return f"on {WEEKDAYS[d.weekday()].title()} {MONTHS[d.month - 1].title()} {d.day}"


def _safe_date(s: str) -> _dt.date | None:
    try:
        return _dt.date.fromisoformat(s)
    except Exception:
        return None


def _md(mon: str, day: str, year: int) -> _dt.date | None:
    k = mon.lower()[:3]
    if k not in MON3:
        return None
    try:
        return _dt.date(year, MON3.index(k) + 1, int(day))
    except Exception:
        return None


# ----------------------------------------------------------------------------- context
class Ctx:
    def __init__(self, body: dict):
        msgs = body.get("messages") or []
        self.system = "\n".join(str(m.get("content", "")) for m in msgs if m.get("role") == "system")
        self.text = "\n".join(str(m.get("content", "")) for m in msgs if m.get("role") != "system")
        rf = body.get("response_format") or {}
        js = rf.get("json_schema") or {} if isinstance(rf, dict) else {}
        self.name = str(js.get("name") or "")
        self.schema = js.get("schema") or {}
        self.defs = self.schema.get("$defs") or self.schema.get("definitions") or {}
        self.max_tokens = int(body.get("max_tokens") or 0) if str(body.get("max_tokens") or "0").isdigit() else 0
        m = re.search(r"inner mind of ([^,\n.]+)", self.system) or re.search(r"Name:\s*([^\n]+)", self.text)
        self.me = m.group(1).strip() if m else "I"
        self.names = []
        for n in re.findall(r"^Name:\s*([^\n]+)$", self.text, re.M):
            if n.strip() not in self.names:
                self.names.append(n.strip())
        self.enums = {}
        self._collect_enums(self.schema)
        for k in ("speaker", "name", "addressed_to"):
            for n in self.enums.get(k, []):
                if n and n != "everyone" and n not in self.names:
                    self.names.append(n)
        for n in re.findall(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b(?= (?:is|was|has|told|heard|said|wants|chatted))", self.text):
            if n not in self.names and len(self.names) < 40:
                self.names.append(n)
        if self.me not in self.names:
            self.names.insert(0, self.me)
        places = list(self.enums.get("plan_place", []) or self.enums.get("address", []))
        for p in re.findall(r"\b([A-Z][\w'&.-]*(?: [\w'&.-]+)*:[\w'&.-]+(?: [\w'&.-]+)*:[\w'&.-]+(?: [\w'&.-]+)*)", self.text):
            p = p.strip()
            if p not in places:
                places.append(p)
        self.places = [p for p in places if p]
        self.cal = Cal(self.text, self.enums.get("plan_date", []))
        tm = re.search(r"It is [^\n]*?(\d{1,2}:\d{2})", self.text)
        self.now = _one_time(tm.group(1)) if tm else None
        self.traits = _grp(r"traits?:\s*([^\n]+)", self.text).lower()

    def _collect_enums(self, node: Any, key: str = "") -> None:
        if isinstance(node, dict):
            if "enum" in node and key:
                self.enums.setdefault(key, list(node["enum"]))
            for k, v in node.items():
                self._collect_enums(v, k if k not in ("items", "anyOf", "properties") else key)
        elif isinstance(node, list):
            for v in node:
                self._collect_enums(v, key)

    def full(self, n: str) -> str:
        n = n.strip()
        for k in self.names:
            if k == n:
                return k
        for k in self.names:
            if k.split()[0] == n.split()[0]:
                return k
        return n

    def outgoing(self, who_text: str) -> float:
        t = who_text.lower()
        return (0.15 if any(w in t for w in OUTGOING) else 0) - (0.15 if any(w in t for w in RESERVED) else 0)

    def persona(self, who: str) -> str:
        m = re.search(r"Name:\s*" + re.escape(who) + r"\n(.*?)(?:\n\n|\Z)", self.text, re.S)
        return m.group(1) if m else ""

    def place_of(self, s: str) -> str:
        low = s.lower()
        best, score = "", 0
        for p in self.places:
            parts = p.split(":")
            bld = parts[1].lower() if len(parts) > 1 else ""
            room = parts[-1].lower()
            sc = 0
            if bld and bld in low:
                sc += 3
            if room and re.search(r"\b" + re.escape(room) + r"\b", low):
                sc += 2 if room not in ("bedroom", "room") else 0
            if sc > score:
                best, score = p, sc
        return best

    def say_place(self, p: str) -> str:
        parts = p.split(":")
        if len(parts) >= 3:
            b, r = parts[1], parts[2]
            return f"the {b}" if r.lower() in b.lower() else f"the {r} at the {b}"
        return p or "the usual place"


# ----------------------------------------------------------------------------- event reader
def read_events(s_text: str, ctx: Ctx, speaker: str | None = None) -> list[dict]:
    out = []
    for sent in _sentences(s_text):
        low = sent.lower()
        if re.search(r"\b(e\.g\.|answer as|hh:mm|for example|if someone|if .* invites)\b", low):
            continue
        im = next((x for x in INTENT.finditer(sent) if not sent[x.end():].lstrip().startswith(":")), None)
        if not im:
            continue
        a, b, concrete = find_times(sent)
        d, explicit = ctx.cal.find_date(sent)
        if not concrete and a is None:
            continue
        if not concrete and d is None:
            continue
        before = sent[:im.start()]
        hm = list(re.finditer(r"\b([A-Z][a-z'-]+(?: [A-Z][a-z'-]+)?)\b", before))
        host = ""
        for x in reversed(hm):
            cand = ctx.full(x.group(1))
            if cand in ctx.names:
                host = cand
                break
        if not host and re.search(r"\b(I|we|I'm|we're|I'll|we'll|my|our)\b", before + " " + im.group(0)) and speaker:
            host = speaker
        if not host and re.search(r"\b(come|join|drop|would you like|you're welcome)", im.group(0), re.I) and speaker:
            host = speaker
        if not host:
            for x in re.finditer(r"\b([A-Z][a-z'-]+(?: [A-Z][a-z'-]+)?)\b", sent[im.end():]):
                if ctx.full(x.group(1)) in ctx.names:
                    host = ctx.full(x.group(1))
                    break
        what = sent[im.end():]
        what = re.split(r"\s(?:on|at|in the|from|this|tomorrow|today|tonight|next|between)\s|[,;(.!?]|\s(?=\d)",
                        " " + what.strip() + " ", maxsplit=1)[0].strip()
        what = " ".join(what.split()[:14]) or "get together"
        if d is None:
            d = ctx.cal.today
        if b is None and a is not None:
            b = a + 90
        out.append({"host": host, "what": what, "date": d, "start": a, "end": b,
                    "minutes": max(15, min(600, (b - a) if a is not None and b and b > a else 90)),
                    "place": ctx.place_of(sent), "sent": sent, "explicit": explicit, "concrete": concrete})
    # prefer the most specific reading when an event is repeated
    out.sort(key=lambda e: -(2 * e["concrete"] + e["explicit"] + bool(e["place"]) + bool(e["host"])))
    return out


def event_label(ev: dict, ctx: Ctx, for_who: str) -> str:
    w = ev["what"]
    m = re.match(r"(?:get up|hold|host|have|throw|run|give|put on|organi[sz]e|start|lead|arrange|do|set up)\s+"
                 r"(?:a|an|the|some|his|her|their|our|my)\s+(.+)", w, re.I)
    host = ev["host"] or "someone"
    if ev["host"] == for_who:
        return ("hosting " + (m.group(1) if m else w))[:120]
    if m:
        return f"going to {host}'s {m.group(1)}"[:120]
    return f"joining {host} to {w}"[:120]


def event_say(ev: dict, ctx: Ctx) -> str:
    s = f"{ev['what']} {ctx.cal.say(ev['date'])}"
    if ev["start"] is not None:
        s += f" from {_clock_words(ev['start'])} to {_clock_words(ev['end'])}" if ev["end"] else f" at {_clock_words(ev['start'])}"
    if ev["place"]:
        s += f" at {ctx.say_place(ev['place'])}"
    return s


def plan_rows(block: str) -> list[tuple[int, int, str]]:
    rows = []
    for m in re.finditer(r"^-?\s*(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s+([^\n(]+)", block, re.M):
        a, b = _one_time(m.group(1), False), _one_time(m.group(2), False)
        if a is not None and b is not None:
            rows.append((a, b if b > a else b + 1440, m.group(3).strip()))
    return rows


def plan_of(ctx: Ctx, who: str) -> list[tuple[int, int, str]]:
    m = re.search(r"(?:What )?" + re.escape(who) + r"(?:'s)? (?:has planned|had planned[^\n]*|schedule[^\n]*):?\n((?:-[^\n]*\n?)+)", ctx.text)
    return plan_rows(m.group(1)) if m else []


def accept_prob(ctx: Ctx, who: str, ev: dict, invited: bool) -> float:
    p = 0.60 if invited else 0.40
    p += ctx.outgoing(ctx.persona(who) or (ctx.traits if who == ctx.me else ""))
    first = who.split()[0]
    if re.search(re.escape(first) + r"(?: [A-Z]\w+)? cannot go", ctx.text):
        return 0.02
    if ev["date"] and ev["date"] < ctx.cal.today:
        return 0.0
    if ev["date"] == ctx.cal.today and ev["end"] is not None and ctx.now is not None and ev["end"] <= ctx.now:
        return 0.0
    if ev["date"] == ctx.cal.today and ev["start"] is not None:
        for a, b, act in plan_of(ctx, who):
            if a < ev["end"] and ev["start"] < b:
                if COMMIT.search(act) and not re.search(re.escape(ev["what"][:12]), act, re.I):
                    p *= 0.15
                    break
                p *= 0.85
                break
    return max(0.0, min(0.95, p))


def _news_line(ctx: Ctx, who: str) -> str:
    for line in ctx.text.split("\n"):
        if who in line and "news" in line and "no news" not in line and "has news" in line:
            return line
    return ""


def news_event(ctx: Ctx, who: str) -> dict | None:
    line = _news_line(ctx, who)
    if not line:
        return None
    i = line.find(who + " has news")
    seg = line[i:] if i >= 0 else line
    seg = seg.split(". ", 1)[0] if "(that is" not in seg else seg[:seg.find(")", seg.find("(that is")) + 1]
    evs = read_events(seg, ctx, who)
    return evs[0] if evs else None


# ----------------------------------------------------------------------------- dialogue engine
def _dialogue(ctx: Ctx) -> list[tuple[str, str]]:
    out = []
    for m in re.finditer(r"^([A-Z][\w'-]+(?: [A-Z][\w'-]+)?):\s*\"(.*)\"\s*$", ctx.text, re.M):
        out.append((m.group(1), m.group(2)))
    return out


def _mentioned(ev: dict, lines: list[tuple[str, str]]) -> bool:
    keys = [w for w in re.findall(r"[a-z]{4,}", ev["what"].lower()) if w not in STOP][:3]
    return any(keys and sum(k in t.lower() for k in keys) >= min(2, len(keys)) for _, t in lines)


def next_line(ctx: Ctx, rng: random.Random, me: str, others: list[str], lines: list[tuple[str, str]],
              my_news: dict | None, heard: dict | None) -> tuple[str, bool, dict]:
    """Return (text, end, info) where info notes an acceptance/decline of an event."""
    info: dict = {}
    other = others[0] if others else "there"
    of = _first(other)
    mine = [t for s, t in lines if s == me]
    if heard is not None and heard["host"] != me and not any(ACCEPT.search(t) or DECLINE.search(t) for t in mine[-1:]) and \
            lines and lines[-1][0] != me:
        invited = heard["host"] == lines[-1][0]
        go = rng.random() < accept_prob(ctx, me, heard, invited)
        info = {"event": heard, "go": go}
        if go:
            txt = rng.choice(["That sounds lovely, count me in!", "Oh, I'd love to come, I'll be there.",
                              "How nice, I'll try to make it, I mean to go."])
        else:
            txt = rng.choice(["Sorry, I can't make it then, but thanks for telling me.",
                              "Ah, I'm afraid I have other plans then. I hope it goes well!",
                              "Thanks, but I don't think I'll go."])
        return txt, False, info
    if my_news is not None and not _mentioned(my_news, lines) and (mine or rng.random() < 0.85):
        if my_news["host"] == me:
            txt = f"I'm going to {event_say(my_news, ctx)}. Would you like to come, {of}?"
        else:
            txt = f"Have you heard? {my_news['host'] or 'Someone'} is going to {event_say(my_news, ctx)}."
        return txt, False, {"told": my_news}
    if not lines:
        return rng.choice([f"Hello {of}, how are you today?", f"Morning, {of}! Keeping well?",
                           f"Hi {of}! Nice to see you."]), False, info
    if len(lines) >= 3 or any(re.search(r"\b(bye|see you|take care)\b", t, re.I) for _, t in lines[-1:]):
        return rng.choice([f"Good to see you, {of}. Take care!", f"Right, I'd better get on. See you, {of}!",
                           "Lovely chatting. Bye for now!"]), True, info
    cur = re.search(re.escape(me) + r" is ([^.\n]+)", ctx.text)
    doing = cur.group(1) if cur else "keeping busy"
    return rng.choice([f"Not bad, thanks. I've been {doing}.", f"I'm well, {of}. Just {doing}, you know how it is.",
                       "Fine, thanks! Busy day, but a good one."]), rng.random() < 0.25, info


# ----------------------------------------------------------------------------- task answers
def _memo(ctx: Ctx, rng: random.Random, who: str, lines: list[tuple[str, str]], ev: dict | None,
          decided: bool | None, partners: list[str]) -> dict:
    with_ = " and ".join(partners) or "someone"
    memo = {"summary": f"{who} chatted with {with_} about nothing in particular.", "importance": rng.choice([2, 2, 3]),
            "plan_activity": "", "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    if ev is None:
        return memo
    told = f"{ev['host'] or 'someone'} is going to {event_say(ev, ctx)}"
    memo["importance"] = rng.choice([4, 5, 5, 6])
    if ev["host"] == who:
        memo["summary"] = f"{who} told {with_} about {who}'s plan: {event_say(ev, ctx)}."
        if rng.random() < 0.92:
            return memo
    else:
        memo["summary"] = f"{with_} and {who} talked about news: {told}."
    mine = " ".join(t for s, t in lines if s == who)
    if decided is None:
        if ACCEPT.search(mine) and not DECLINE.search(mine):
            p = 0.90
        elif DECLINE.search(mine):
            p = 0.03
        else:
            p = 0.12
        decided = rng.random() < p
    if decided and ev["host"] != who:
        memo["summary"] += f" {who} means to go."
        memo.update(plan_activity=event_label(ev, ctx, who), plan_date=ctx.cal.iso(ev["date"]),
                    plan_start=_hm(ev["start"]) if ev["start"] is not None else "",
                    plan_minutes=ev["minutes"], plan_place=ev["place"])
        if not memo["plan_date"]:
            memo.update(plan_activity="", plan_start="", plan_minutes=0, plan_place="")
    return memo


def t_conversation_memo(ctx, rng):
    lines = _dialogue(ctx)
    partners = sorted({s for s, _ in lines if s != ctx.me}) or [n for n in ctx.names if n != ctx.me][:1]
    evs = []
    for s, t in lines:
        evs += read_events(t, ctx, s)
    return _memo(ctx, rng, ctx.me, lines, evs[0] if evs else None, None, partners)


def _group(ctx, rng, people: list[str], maxlines: int):
    news = {p: news_event(ctx, p) for p in people}
    anyn = any(news.values())
    p_talk = 0.92 if anyn else 0.55 + (0.1 if any(w in ctx.text.lower() for w in ("sociable", "talkative", "jovial")) else 0)
    if rng.random() >= p_talk:
        return False, [], {}, None
    lines: list[tuple[str, str]] = []
    decisions: dict[str, bool] = {}
    told = None
    teller = None
    order = people[:]
    i = 0
    while len(lines) < maxlines and i < maxlines + 2:
        sp = order[i % len(order)]
        i += 1
        others = [p for p in people if p != sp]
        heard = told if (told is not None and sp not in decisions and told["host"] != sp and sp != teller) else None
        txt, end, info = next_line(ctx, rng, sp, others, lines, news.get(sp), heard)
        lines.append((sp, txt))
        if "told" in info and told is None:
            told, teller = info["told"], sp
        if "event" in info:
            decisions[sp] = info["go"]
        if end and len(lines) >= 2:
            break
    return True, lines, decisions, told


def t_conversation_summary(ctx, rng):
    people = [n for n in ctx.enums.get("speaker", []) if n] or ctx.names[:2]
    if len(people) < 2:
        people = people + ["Someone"]
    talk, lines, dec, told = _group(ctx, rng, people[:2], 6)
    if not talk:
        return {"talk": False, "lines": [], "first": None, "second": None}
    res = {"talk": True, "lines": [{"speaker": s, "text": t} for s, t in lines]}
    for key, who in (("first", people[0]), ("second", people[1])):
        res[key] = _memo(ctx, rng, who, lines, told, dec.get(who), [p for p in people[:2] if p != who])
    return res


def t_group_summary(ctx, rng):
    people = [n for n in ctx.enums.get("speaker", []) if n] or ctx.names[:3]
    talk, lines, dec, told = _group(ctx, rng, people, min(8, 2 + 2 * len(people)))
    if not talk:
        return {"talk": False, "lines": [], "memos": []}
    memos = []
    for who in people:
        m = _memo(ctx, rng, who, lines, told, dec.get(who), [p for p in people if p != who])
        m["name"] = who
        memos.append(m)
    return {"talk": True, "lines": [{"speaker": s, "text": t} for s, t in lines], "memos": memos}


def _turn_common(ctx, rng):
    lines = _dialogue(ctx)
    others = [n for n in ctx.names if n != ctx.me and (n in ctx.text.split("The conversation")[0][-3000:])]
    others = [n for n in (ctx.enums.get("addressed_to") or []) if n and n != "everyone"] or others[:1]
    heard = None
    for s, t in reversed(lines):
        if s != ctx.me:
            evs = read_events(t, ctx, s)
            if evs:
                heard = evs[0]
                break
    if heard and any(s == ctx.me and (ACCEPT.search(t) or DECLINE.search(t)) for s, t in lines[-2:]):
        heard = None
    return lines, others, heard


def t_converse_turn(ctx, rng):
    lines, others, heard = _turn_common(ctx, rng)
    if not others:
        others = [s for s, _ in lines if s != ctx.me][:1]
    txt, end, _ = next_line(ctx, rng, ctx.me, others, lines, news_event(ctx, ctx.me), heard)
    return txt + "\n" + ("[end]" if end else "[continue]")


def t_group_turn(ctx, rng):
    lines, others, heard = _turn_common(ctx, rng)
    txt, end, _ = next_line(ctx, rng, ctx.me, others, lines, news_event(ctx, ctx.me), heard)
    to = "everyone" if (len(others) != 1 or rng.random() < 0.4) else others[0]
    return {"utterance": txt, "addressed_to": to, "end_conversation": end}


def _life(ctx):
    life = _grp(r"Lifestyle:\s*([^\n]+)", ctx.text)
    def tm(pat, dflt):
        m = re.search(pat, life, re.I)
        t = _one_time(m.group(1)) if m else None
        return dflt if t is None else t
    wake = tm(r"wakes? up at ([\w: ]+?(?:am|pm)|\d{1,2}:\d{2}|noon|midnight)", 420)
    bed = tm(r"bed at ([\w: ]+?(?:am|pm)|\d{1,2}:\d{2}|noon|midnight)", 1320)
    m = re.search(r"from ([\w:]+ ?(?:am|pm)?) to ([\w:]+ ?(?:am|pm)?)", life, re.I)
    ws, we = (_one_time(m.group(1)), _one_time(m.group(2))) if m else (540, 1020)
    if ws is None or we is None or we <= ws:
        ws, we = 540, 1020
    if bed < wake:
        bed += 1440
    return wake, bed, ws, we, life


def t_daily_plan(ctx, rng):
    wake, bed, ws, we, life = _life(ctx)
    places = ctx.enums.get("address") or ctx.places or ["home"]
    home = next((p for p in places if re.search(r"bedroom|home|house|cottage|rooms", p, re.I)), places[0])
    idt = _grp(r"Identity:\s*([^\n]+)", ctx.text) + " " + life
    work = next((p for p in places if p != home and p.split(":")[1 if ":" in p else 0].lower() in idt.lower()), None) \
        or next((p for p in places if p != home), home)
    wroom = work.split(":")[-1]
    dayoff = ctx.cal.today.weekday() == 6
    blocks = [(wake, wake + 30, "waking up and getting ready", home), (wake + 30, wake + 60, "having breakfast", home)]
    t = wake + 60
    wact = "relaxing on a day off" if dayoff else f"busy at the {wroom}"
    wplace = home if dayoff else work
    s = max(t, ws)
    if s > t:
        blocks.append((t, s, "relaxing at home", home))
    lunch = 720 if ws < 720 < we else None
    if lunch:
        blocks += [(s, 720, wact, wplace), (720, 780, "having lunch", wplace), (780, we, wact, wplace)]
    else:
        blocks.append((s, we, wact, wplace))
    t = we
    if t < 1110:
        blocks.append((t, 1110, "relaxing at home", home))
        t = 1110
    blocks.append((t, t + 60, "having dinner", home))
    t += 60
    if t < bed:
        blocks.append((t, bed, "relaxing at home", home))
    blocks = [b for b in blocks if b[1] > b[0]]
    extra = []
    seen = set()
    for ev in read_events(ctx.text, ctx, None):
        key = (ev["date"], ev["start"])
        if key in seen or ev["date"] != ctx.cal.today or ev["start"] is None:
            continue
        seen.add(key)
        if ev["host"] == ctx.me:
            p = 0.95
        elif re.search(re.escape(_first(ctx.me)) + r"(?: [A-Z]\w+)? cannot go", ctx.text):
            p = 0.02
        elif re.search(re.escape(ctx.me) + r": \"[^\"]*(count me in|I'll be there|I'll come|love to)", ctx.text, re.I):
            p = 0.85
        else:
            p = accept_prob(ctx, ctx.me, ev, False)
        if rng.random() < p:
            extra.append((ev["start"], ev["start"] + ev["minutes"], event_label(ev, ctx, ctx.me), ev["place"] or home))
        break
    if news_event(ctx, ctx.me) is not None and rng.random() < 0.6:
        for m in re.finditer(r"^-\s*([^\n:]+:[^\n:]+:[^\n:]+):\s*\d+ \w+, (\d{1,2}:\d{2})-(\d{1,2}:\d{2})", ctx.text, re.M):
            a, b = _one_time(m.group(2), False), _one_time(m.group(3), False)
            if a is None or b is None or m.group(1).strip() not in places:
                continue
            free = max(a, we if not dayoff else wake + 60)
            if free + 30 <= b:
                extra.append((free, min(b, free + 60), f"seeing people at the {m.group(1).split(':')[-1]}", m.group(1).strip()))
                break
    for a, b, act, pl in extra:
        nb = []
        for x in blocks:
            if x[1] <= a or x[0] >= b:
                nb.append(x)
            else:
                if x[0] < a:
                    nb.append((x[0], a, x[2], x[3]))
                if x[1] > b:
                    nb.append((b, x[1], x[2], x[3]))
        nb.append((a, b, act, pl))
        blocks = sorted(nb)
    nxt = wake + 1440
    blocks.append((bed, max(bed + 5, min(nxt, bed + 960)), "sleeping", home))
    blocks = blocks[:16]
    emo = lambda a: ("😴" if "sleep" in a else "🍳" if "breakfast" in a else "🥪" if "lunch" in a else
                     "🍲" if "dinner" in a else "🎉" if ("going" in a or "hosting" in a or "joining" in a) else
                     "🗣️" if "people" in a else "🛋️" if "relax" in a else "🚿" if "waking" in a else "💼")
    out = [{"start": _hm(a), "duration_minutes": max(5, min(960, b - a)), "activity": act, "emoji": emo(act),
            "address": pl} for a, b, act, pl in blocks]
    outline = [f"wake up at {_clock_words(wake)}"] + [f"{x['activity']} at {_clock_words(_one_time(x['start'], False) or 0)}"
                                                       for x in out if "relax" not in x["activity"]][1:7]
    return {"wake_up_hour": (wake // 60) % 24, "outline": outline[:8], "blocks": out}


def t_decompose(ctx, rng):
    m = re.search(r"From (\d{1,2}:\d{2}) to (\d{1,2}:\d{2}) \((\d+) minutes\)[^\n]*? is ([^,\n]+)", ctx.text)
    total = int(m.group(3)) if m else 60
    act = m.group(4).strip() if m else "going about the day"
    objs = [o for o in ctx.enums.get("object", []) if o]
    low = act.lower()
    if "breakfast" in low or "lunch" in low or "dinner" in low:
        steps = ["getting the food ready", "setting a place", "eating", "having a drink", "clearing up"]
    elif "sleep" in low:
        steps = ["getting into bed", "sleeping", "sleeping soundly", "turning over"]
    elif "waking" in low:
        steps = ["getting out of bed", "washing", "getting dressed", "tidying up"]
    elif "relax" in low:
        steps = ["sitting down", "reading a little", "having a cup of tea", "resting", "tidying up"]
    else:
        steps = [f"getting started on {act}", act, f"carrying on {act}", "taking a short break", f"finishing {act}"]
    n = max(4, min(12, round(total / 12)))
    seq = [steps[0]] + [steps[1 + (k % (len(steps) - 2))] for k in range(n - 2)] + [steps[-1]]
    base, rem = divmod(total, n)
    durs = [max(5, min(15, base + (1 if k < rem else 0))) for k in range(n)]
    res = []
    for k, (a, d) in enumerate(zip(seq, durs)):
        o = objs[k % len(objs)] if objs and rng.random() < 0.6 else ""
        res.append({"activity": a[:80], "duration_minutes": d, "object": o, "object_state": "in use" if o else ""})
    return {"steps": res}


def _imp(text: str, rng) -> int:
    low = text.lower()
    if re.search(r"\b(die|died|death|funeral|ill|hospital|accident|fire|breakup|married|engaged|fired)\b", low):
        v = 8
    elif INTENT.search(text) and find_times(text)[0] is not None:
        v = 6
    elif re.search(r"\b(news|invite|told|heard)\b", low):
        v = 5
    elif re.search(r"\b(conversation|chatted|chatting|talk)\b", low):
        v = 3
    elif re.search(r"\bplan\b", low):
        v = 3
    elif re.search(r"\b(sleep|breakfast|lunch|dinner|waking|getting ready|in use|relaxing)\b", low):
        v = 1 if rng.random() < 0.6 else 2
    else:
        v = 2
    if rng.random() < 0.3:
        v += rng.choice([-1, 1])
    return max(1, min(10, v))


def t_importance(ctx, rng):
    m = re.search(r"Memory:\s*\"(.*)\"", ctx.text)
    return {"importance": _imp(m.group(1) if m else ctx.text[-300:], rng)}


def t_importance_batch(ctx, rng):
    items = re.findall(r"^-\s*\"(.*)\"\s*$", ctx.text, re.M)
    n = len(items)
    r = ctx.schema.get("properties", {}).get("ratings", {})
    n = max(r.get("minItems", n), min(r.get("maxItems", n) if r.get("maxItems") else n, n)) if n else r.get("minItems", 1)
    items = (items + [""] * n)[:n]
    return {"ratings": [_imp(x, rng) for x in items]}


def _memories(ctx) -> list[str]:
    return [m.strip() for m in re.findall(r"^(?:-|\d+\.)\s*(.+)$", ctx.text, re.M)]


def t_interview(ctx, rng):
    q = re.search(r"asks? [^:\n]*:\s*\"(.*)\"", ctx.text)
    q = q.group(1) if q else ctx.text.strip().split("\n")[-1]
    mems = [m for m in _memories(ctx) if "nothing comes to mind" not in m]
    ident = _grp(r"Identity:\s*([^\n]+)", ctx.text)
    dk = re.search(r"\bknow ([A-Z][a-z]+(?: [A-Z][a-z]+)?)\??", q)
    if dk:
        who = dk.group(1)
        about = [m for m in mems if who in m]
        if who in ident:
            return {"answer": f"Yes, I know {who}. {ident.replace(ctx.me, 'I', 1)}."[:600]}
        if about:
            last = re.sub(r"^\[[^\]]*\]\s*", "", about[-1])
            conv = any("conversation" in m or "chatted" in m for m in about)
            return {"answer": (f"Yes, I know {who}{', we have chatted' if conv else ' a little'}. "
                               f"Last I remember: {last[:200]}")}
        return {"answer": f"No, I don't think I know {who}. I can't place the name."}
    qwords = {w for w in re.findall(r"[a-z]+", q.lower()) if w not in STOP and len(w) > 2}
    qnames = re.findall(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b", q)
    best, score = None, 0
    for m in mems:
        ml = m.lower()
        sc = sum(1 for w in qwords if re.search(r"\b" + re.escape(w[:6]), ml))
        if sc >= 2 or (sc >= 1 and any(n in m for n in qnames)):
            if sc >= score:
                best, score = m, sc
    if best is None:
        return {"answer": rng.choice(["No, I haven't heard anything about that.",
                                      "I'm sorry, I don't know anything about that."])}
    clean = re.sub(r"^\[[^\]]*\]\s*", "", best)
    evs = read_events(clean, ctx, None)
    if evs:
        return {"answer": f"Yes, I heard about it: {evs[0]['host'] or 'someone'} is going to {event_say(evs[0], ctx)}."[:600]}
    return {"answer": f"I do remember something: {clean[:300]}"}


def t_react(ctx, rng):
    choices = ctx.enums.get("choice") or ["continue", "talk", "wait", "react"]
    seen = re.search(r"noticed:\s*\"(.*)\"", ctx.text)
    seen = seen.group(1) if seen else "something"
    other = next((n for n in ctx.names if n != ctx.me and n in seen), "them")
    untold = re.search(r"has news[^\n]*not told", ctx.text) or (news_event(ctx, ctx.me) and other in ctx.text)
    r = rng.random()
    if untold and "talk" in choices:
        c = "talk" if r < 0.75 else "continue"
    else:
        o = 0.08 if ctx.outgoing(ctx.traits) > 0 else 0
        c = "continue" if r < 0.70 - o else "talk" if r < 0.92 else "wait" if r < 0.96 else "react"
    if c not in choices:
        c = choices[0]
    reason = {"continue": f"{seen} does not call for anything, so {ctx.me} carries on.",
              "talk": f"{ctx.me} wants a word with {other}" + (" to pass on the news." if untold else "."),
              "wait": f"{other} looks busy, so {ctx.me} waits a moment.",
              "react": f"{seen} catches {ctx.me}'s attention."}[c]
    return {"choice": c, "reason": reason, "new_activity": f"seeing what is going on with {other}" if c == "react" else ""}


def _name_counts(ctx, mems) -> list[str]:
    cnt: dict[str, int] = {}
    for m in mems:
        for n in ctx.names:
            if n != ctx.me and n in m:
                cnt[n] = cnt.get(n, 0) + 1
    return sorted(cnt, key=lambda k: -cnt[k])


def t_reflection_questions(ctx, rng):
    mems = _memories(ctx)
    k = re.search(r"Which (\d+) questions", ctx.text)
    k = int(k.group(1)) if k else int(ctx.schema.get("properties", {}).get("questions", {}).get("maxItems", 3))
    qs = []
    evs = read_events("\n".join(mems), ctx, None)
    if evs:
        e = evs[0]
        qs.append(f"How does {ctx.me} feel about {e['host'] or 'the'} plan to {e['what']}?" if e["host"] != ctx.me
                  else f"Who will come when {ctx.me} goes ahead with the plan to {e['what']}?")
    for n in _name_counts(ctx, mems):
        qs.append(rng.choice([f"What does {ctx.me} know about {n}?", f"How is {ctx.me}'s relationship with {n} developing?"]))
    if not qs:
        qs.append(f"How does {ctx.me} spend the days lately?")
    return {"questions": qs[:max(1, k)]}


def t_reflection_insights(ctx, rng):
    stmts = {int(a): b for a, b in re.findall(r"^(\d+)\.\s*(.+)$", ctx.text, re.M)}
    hi = max(stmts) if stmts else 1
    qs = re.findall(r"Question:\s*\"(.*)\"", ctx.text) or ["What matters lately?"]
    ins = []
    for q in qs:
        names = [n for n in ctx.names if n in q and n != ctx.me]
        subj = names[0] if names else None
        ev = [i for i, s in stmts.items() if subj and subj in s][:10] or sorted(stmts)[:3] or [1]
        texts = " ".join(stmts.get(i, "") for i in ev)
        evs = read_events(texts, ctx, None)
        if subj:
            conv = [i for i in ev if re.search(r"conversation|chatted|chatting", stmts.get(i, ""))]
            if conv:
                ins.append({"insight": f"{ctx.me} has been chatting with {subj} lately and they are on friendly terms.",
                            "about": subj, "evidence": conv[:10], "importance": 3})
            acts = re.findall(re.escape(subj) + r" is ([a-z ]+)", texts)
            if acts:
                ins.append({"insight": f"{ctx.me} often sees {subj} {max(set(acts), key=acts.count).strip()}.",
                            "about": subj, "evidence": ev[:10], "importance": 2})
        if evs:
            e = evs[0]
            ins.append({"insight": f"{ctx.me} knows that {e['host'] or 'someone'} is going to {event_say(e, ctx)}."[:300],
                        "about": (e["what"] or "an event")[:60], "evidence": ev[:10], "importance": 5})
        if not ins or (subj and not any(x["about"] == subj for x in ins)):
            ins.append({"insight": f"{ctx.me} does not know much about {subj or 'this'} yet.",
                        "about": (subj or q)[:60], "evidence": ev[:10], "importance": 2})
    for x in ins:
        x["evidence"] = [i for i in x["evidence"] if 1 <= i <= hi] or [1]
    return {"insights": ins[:15]}


def t_relationship(ctx, rng):
    m = re.search(r"remembers about ([A-Z][\w' ]+?):", ctx.text)
    who = m.group(1) if m else next((n for n in ctx.names if n != ctx.me), "them")
    mems = [x for x in _memories(ctx) if who in x]
    known = _first(who) in _grp(r"Identity:\s*([^\n]+)", ctx.text)
    conv = sum(1 for x in mems if re.search(r"conversation|chatted|told|heard from", x))
    if known:
        s = f"{ctx.me} knows {who} well from everyday life in the village and is glad to see them."
    elif conv:
        s = f"{ctx.me} has chatted with {who} recently and feels friendly towards them."
    elif mems:
        s = f"{ctx.me} knows {who} by sight, mostly from seeing them about, and feels neutral but friendly."
    else:
        s = f"{ctx.me} hardly knows {who} yet."
    return {"summary": s}


def t_revise_currently(ctx, rng):
    cur = _grp(r"Currently:\s*([^\n]+)", ctx.text).strip() or f"{ctx.me} is going about the usual routine."
    cur = cur.split(". ")[0].rstrip(".") + "."
    evs = [e for e in read_events("\n".join(_memories(ctx)), ctx, None) if e["date"] >= ctx.cal.today]
    add = ""
    if evs and rng.random() < 0.9:
        e = evs[0]
        if e["host"] == ctx.me:
            add = f" {ctx.me} is getting ready to {event_say(e, ctx)} and is asking people to come."
        else:
            add = f" {ctx.me} has heard that {e['host'] or 'someone'} is going to {event_say(e, ctx)}."
    return {"currently": (cur + add + f" {ctx.me} cares about doing the daily work well.")[:500]}


def t_probe(ctx, rng):
    return {"ok": True}


# ----------------------------------------------------------------------------- schema helpers
def _res(node, defs):
    if isinstance(node, dict) and "$ref" in node:
        return defs.get(node["$ref"].split("/")[-1], {})
    return node if isinstance(node, dict) else {}


def _from_schema(node, defs, rng, key="value"):
    node = _res(node, defs)
    if "anyOf" in node:
        opts = [o for o in node["anyOf"] if _res(o, defs).get("type") != "null"]
        return _from_schema(opts[0], defs, rng, key) if opts else None
    if "enum" in node:
        vals = [v for v in node["enum"] if v != ""] or node["enum"]
        return vals[0] if vals else ""
    t = node.get("type", "object")
    if t == "object" or "properties" in node:
        props = node.get("properties", {})
        return {k: _from_schema(v, defs, rng, k) for k, v in props.items()}
    if t == "array":
        return [_from_schema(node.get("items", {}), defs, rng, key) for _ in range(max(1, node.get("minItems", 1)))]
    if t == "integer":
        lo, hi = node.get("minimum", 1), node.get("maximum", 10)
        return int((lo + hi) // 2)
    if t == "number":
        return float(node.get("minimum", 0))
    if t == "boolean":
        return True if key == "ok" else False
    if node.get("pattern", "").startswith("^(") and "?$" in node.get("pattern", ""):
        return ""
    return f"{key.replace('_', ' ')}"


def _fit(v, node, defs, rng, key="value"):
    node = _res(node, defs)
    if "anyOf" in node:
        if v is None and any(_res(o, defs).get("type") == "null" for o in node["anyOf"]):
            return None
        opts = [o for o in node["anyOf"] if _res(o, defs).get("type") != "null"]
        return _fit(v, opts[0], defs, rng, key) if opts else v
    if "enum" in node:
        if v in node["enum"]:
            return v
        if isinstance(v, str):
            for e in node["enum"]:
                if isinstance(e, str) and e and (e.lower() in v.lower() or v.lower() in e.lower()) and v:
                    return e
        return "" if "" in node["enum"] else _from_schema(node, defs, rng, key)
    t = node.get("type")
    if t == "object" or "properties" in node:
        if not isinstance(v, dict):
            v = _from_schema(node, defs, rng, key)
        props = node.get("properties", {})
        out = {}
        for k, sub in props.items():
            if k in v:
                out[k] = _fit(v[k], sub, defs, rng, k)
            elif k in node.get("required", []):
                out[k] = _from_schema(sub, defs, rng, k)
        return out
    if t == "array":
        if not isinstance(v, list):
            v = []
        v = [_fit(x, node.get("items", {}), defs, rng, key) for x in v]
        if "maxItems" in node:
            v = v[:node["maxItems"]]
        while len(v) < node.get("minItems", 0):
            v.append(_from_schema(node.get("items", {}), defs, rng, key))
        return v
    if t == "integer":
        try:
            v = int(v)
        except Exception:
            v = _from_schema(node, defs, rng, key)
        return max(node.get("minimum", v), min(node.get("maximum", v), v))
    if t == "boolean":
        return bool(v)
    if t == "string":
        v = "" if v is None else str(v)
        if "pattern" in node and not re.search(node["pattern"], v):
            v = "" if re.search(node["pattern"], "") else _from_schema(node, defs, rng, key)
        if "maxLength" in node:
            v = v[:node["maxLength"]]
        if len(v) < node.get("minLength", 0):
            v = (v + " " + key.replace("_", " ")).strip()
        return v
    return v


# ----------------------------------------------------------------------------- malformations
def _malform(text: str, ctx: Ctx, rng: random.Random, plain: bool) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        return text[:max(1, int(len(text) * rng.uniform(0.4, 0.85)))]
    if kind == 1:
        return rng.choice(["I'm sorry, but I can't help with that request.",
                           "As an AI language model, I cannot roleplay this character."])
    if kind == 2:
        return ("Sure! Here is the answer:\n```json\n" + text + "\n```") if not plain else \
            ("Here is what " + ctx.me + " says:\n\"" + text + "\"")
    if kind == 3:
        if plain:
            return f"{ctx.me}: {text}"
        try:
            obj = json.loads(text)
            for k in ("utterance", "answer", "summary", "currently"):
                if isinstance(obj.get(k), str):
                    obj[k] = f"{ctx.me}: {obj[k]}"
                    return json.dumps(obj, ensure_ascii=False)
            if isinstance(obj.get("lines"), list) and obj["lines"]:
                ln = obj["lines"][0]
                ln["text"] = f"{ln.get('speaker', ctx.me)}: {ln.get('text', '')}"
                return json.dumps(obj, ensure_ascii=False)
        except Exception:
            pass
        return f"{ctx.me}: {text}"
    if plain:
        return text.split("\n")[0]
    try:
        obj = json.loads(text)
        req = ctx.schema.get("required") or list(obj)
        if req and isinstance(obj, dict):
            obj.pop(req[rng.randrange(len(req))], None)
            return json.dumps(obj, ensure_ascii=False)
    except Exception:
        pass
    return text[:len(text) // 2]


TASKS = {"conversation_memo": t_conversation_memo, "conversation_summary": t_conversation_summary,
         "group_summary": t_group_summary, "group_turn": t_group_turn, "daily_plan": t_daily_plan,
         "decompose": t_decompose, "importance": t_importance, "importance_batch": t_importance_batch,
         "interview": t_interview, "react": t_react, "reflection_questions": t_reflection_questions,
         "reflection_insights": t_reflection_insights, "relationship": t_relationship,
         "revise_currently": t_revise_currently, "probe": t_probe}


def respond(body: dict[str, Any], seed: int) -> str:
    """The completion text for this request body (deterministic for body and seed)."""
    try:
        return _respond(body, seed)
    except Exception:
        try:
            ctx = Ctx(body)
            if ctx.schema:
                return json.dumps(_fit(_from_schema(ctx.schema, ctx.defs, None), ctx.schema, ctx.defs, None), ensure_ascii=False)
        except Exception:
            pass
        return "{}" if (isinstance(body, dict) and body.get("response_format")) else "I'm not sure what to say.\n[end]"


def _respond(body: dict, seed: int) -> str:
    ctx = Ctx(body)
    rng = _rng(body, seed)
    plain = not ctx.schema
    if plain:
        if re.search(r"\[end\]|\[continue\]", ctx.text):
            text = t_converse_turn(ctx, rng)
        else:
            lines, others, heard = _turn_common(ctx, rng)
            text = next_line(ctx, rng, ctx.me, others, lines, news_event(ctx, ctx.me), heard)[0]
    else:
        fn = TASKS.get(ctx.name)
        if fn is None:
            if "utterance" in ctx.schema.get("properties", {}):
                fn = t_group_turn
            elif "answer" in ctx.schema.get("properties", {}):
                fn = t_interview
        obj = fn(ctx, rng) if fn else _from_schema(ctx.schema, ctx.defs, rng)
        obj = _fit(obj, ctx.schema, ctx.defs, rng)
        text = json.dumps(obj, ensure_ascii=False)
    mr = _rng(body, seed, "malform")
    if ctx.name != "probe" and mr.random() < MALFORM_RATE:
        text = _malform(text, ctx, mr, plain)
    if ctx.max_tokens and len(text) > 4 * ctx.max_tokens:
        text = text[:4 * ctx.max_tokens]
    return text
