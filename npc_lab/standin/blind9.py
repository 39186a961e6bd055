"""blind9: a blind stand-in model, written from captured requests alone (never fitted to results).

It reads a chat-completion body as a model does and writes the text a middling instruction-tuned
model would. Deterministic per (body, seed): random.Random(seed ^ sha256(messages)).

Declared rules (rates fixed before any run; "news" = a dated coming event found in text the
speaker holds; "host" = the first person named in the innermost clause of that news):
- Malformed answers, 5% of every request: JSON kinds -> 2% truncated JSON, 1% refusal,
  2% prose around the JSON; plain-text kinds -> 3% speaker's name in front, 1% wrapped in quotes,
  1% tag line missing.
- Telling (conversation turn, one speaker): holds news not yet said in the conversation ->
  brings it up, p = 0.75 per turn if the speaker hosts it, 0.5 if heard from someone; lines
  then say what, when and where as the text gives it.
- Invitation from the host (the other's line carries the news and the other hosts it):
  accept p = 0.6 if the speaker's plan is free then (or the day is not the one shown),
  0.2 if the plan holds a real commitment (calling on / meeting / going to / another event);
  traits: sociable-like +0.1, reserved-like -0.1.
- News passed on by a non-host: says it means to go p = 0.4 free, 0.15 committed (same traits).
- Ending a two-person turn: other said goodbye -> end p = 0.85; else p = 0.15 + 0.12 per
  line already said (max 0.8); never ends before a news line it is about to give.
- Gist conversations (two or a group): talk p = 0.85 if anyone holds news, else 0.45; the
  news-holder tells it p = 0.75 (host) / 0.5 (heard); each listener accepts/means to go with
  the rates above.
- Conversation memo: plan item when its own line accepted or said it means to go, p = 0.85;
  heard news with no such line p = 0.1; host records its own event p = 0.3; declined -> none.
  Importance: news/invitation 5-7, small talk 2-3.
- Reaction: untold news and the other is near -> talk p = 0.6, else talk 0.2; wait 0.1;
  react p = 0.4 when a known event it means to go to starts within the hour, else 0.05.
- Day plan: puts today's known event in: host p = 0.9, said it means to go / planned p = 0.8,
  only heard p = 0.3 (traits +-0.1); a host adds an "asking people" block p = 0.6.
- Status rewrite mentions a known coming event p = 0.7.
- Importance: routine 1-3; conversation 3-5; news/event 5-8 (host 7-8).
- Interview: answers from the memory lines sharing most words with the question, p = 0.85;
  else vague; says it does not know when nothing relates.
- Anything else: a schema filler that reads values from the prompt (enums by word overlap;
  lists of timed items run on hour by hour from now, following the plan shown, and take in
  today's known event with the day-plan rates above).
"""
from __future__ import annotations

from datetime import date, timedelta
import hashlib
import json
import random
import re

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december"]
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
STOP = set("the a an of to at on in and or for with from is was are be by as it its this that "
           "their they them he she his her you i we my our me up out about what who whom do does "
           "know any some there here have has had not no will would".split())
ROUTINE = re.compile(r"sleep|breakfast|lunch|dinner|eat|meal|wak|getting ready|relax|busy|work|"
                     r"chore|clean|wash|read|walk|rest|shop|tend|open|clos|cook", re.I)
COMMIT = re.compile(r"calling on|meet|going to|appointment|visit|party|event|gathering|match|"
                    r"service|lesson|class|rehears|\bwith [A-Z]", re.I)
WORDTIME = {"noon": 720, "midday": 720, "midnight": 0, "morning": 600, "afternoon": 900,
            "evening": 1080, "tonight": 1140, "night": 1200, "after work": 1050, "sundown": 1140,
            "sunset": 1140, "dusk": 1140, "dawn": 360, "sunrise": 360, "lunchtime": 750,
            "teatime": 960}
NUMW = {w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten eleven "
                                      "twelve".split())}
SOCIAL = re.compile(r"sociab|outgoing|friendly|jovial|energetic|curious|warm|cheer|generous|nosy",
                    re.I)
RESERVED = re.compile(r"shy|reserved|grump|quiet|solitary|aloof|busy|stubborn|gruff|introvert", re.I)
YES = re.compile(r"count me in|i'?ll (be there|come|go)|i'd love|see you there|sounds (good|great|"
                 r"lovely)|i will come|wouldn't miss|i'll try to come|i mean to go", re.I)
INVITE = re.compile(r"\b(will|would|could|can|do) you (like to |want to )?(come|join)|join (us|me)\b|"
                    r"\byou'?re (invited|welcome)", re.I)
FUTURE = re.compile(r"\b(wants? to|will|going to|plans?|planning|means to|invit|hold|host|"
                    r"organi|throw|there is|there will|to be held|is on|celebrat|meet)", re.I)
NO = re.compile(r"can'?t make|cannot|sorry|not able|won'?t be able|another time|no thanks", re.I)


def _hm(m: int) -> str:
    m %= 1440
    return f"{m // 60:02d}:{m % 60:02d}"


def _words(s: str) -> set[str]:
    return {w for w in re.findall(r"[a-z']+", s.lower()) if w not in STOP and len(w) > 2}


def _clock(s: str) -> list[tuple[int, int]]:
    """All clock times in s as (position, minutes), any style."""
    out = []
    for m in re.finditer(r"\b(\d{1,2})[:.](\d{2})\s*(am|pm|a\.m\.|p\.m\.)?", s, re.I):
        h, mi = int(m.group(1)), int(m.group(2))
        if m.group(3) and m.group(3).lower().startswith("p") and h < 12:
            h += 12
        if h < 24 and mi < 60:
            out.append((m.start(), h * 60 + mi))
    for m in re.finditer(r"\b(\d{1,2})\s*(am|pm|a\.m\.|p\.m\.|o'clock)", s, re.I):
        h = int(m.group(1)) % 12
        if m.group(2).lower().startswith("p") or (m.group(2).startswith("o") and h < 8):
            h += 12
        out.append((m.start(), h * 60))
    for m in re.finditer(r"\b(half past|quarter past|quarter to) (\w+)", s, re.I):
        h = NUMW.get(m.group(2).lower()) or (int(m.group(2)) if m.group(2).isdigit() else 0)
        if h:
            h = h + 12 if h < 8 else h
            off = {"half past": 30, "quarter past": 15, "quarter to": -15}[m.group(1).lower()]
            out.append((m.start(), h * 60 + off))
    low = s.lower()
    for w, v in WORDTIME.items():
        for m in re.finditer(r"\b" + w + r"\b", low):
            out.append((m.start() + 10000, v))  # word times rank after clock times
    return sorted(out)


def _content(m: dict) -> str:
    c = m.get("content") or ""
    if isinstance(c, list):
        return "\n".join(str(p.get("text", "")) for p in c if isinstance(p, dict))
    return str(c)


class Ctx:
    """What the prompt shows: people, places, today, news, plan, conversation."""

    def __init__(self, body: dict) -> None:
        msgs = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        self.sys = "\n".join(_content(m) for m in msgs if m.get("role") == "system")
        users = [_content(m) for m in msgs if m.get("role") != "assistant"]
        self.text = "\n".join(users)
        self.ask = users[-1] if users else ""
        rf = body.get("response_format") or {}
        js = rf.get("json_schema") or {}
        self.schema = js.get("schema") if isinstance(js, dict) else None
        if not self.schema and isinstance(rf.get("schema"), dict):
            self.schema = rf["schema"]
        self.defs = (self.schema or {}).get("$defs") or {}
        self.multi = "talk" in ((self.schema or {}).get("properties") or {})
        self.people = self._people()
        self.me = self._me()
        self.others = [p for p in self.people if p != self.me]
        self.places = self._places()
        self.year = int((re.findall(r"\b(20\d\d)\b", self.text) or ["2026"])[0])
        self.today = self._today()
        self.now = self._now()
        self.lines = self._conversation()
        self.traits = 0.1 if SOCIAL.search(self.text[:600]) else 0.0
        self.traits -= 0.1 if RESERVED.search(self.text[:600]) else 0.0

    def _people(self) -> list[str]:
        enums: list[str] = []
        for d in [self.schema or {}] + list(self.defs.values()):
            for k, v in (d.get("properties") or {}).items():
                if k in ("speaker", "name", "addressed_to") and isinstance(v, dict):
                    enums += [e for e in v.get("enum") or [] if e != "everyone"]
        cands: dict[str, int] = {}
        txt = self.sys + "\n" + self.text
        for m in re.finditer(r"\b([A-Z][a-z]+(?: [A-Z][a-z'-]+){1,2})\b(?=( is| was| told| said| "
                             r"heard| learned| chatted|'s|: \"| and| knows| wants| means))", txt):
            n = m.group(1)
            if any(w.lower() in MONTHS + DAYS for w in n.split()):
                continue
            if re.search(r"\b(the|at|on) " + re.escape(n), txt):
                continue
            cands[n] = cands.get(n, 0) + 1
        out = list(dict.fromkeys(enums + sorted(cands, key=lambda n: -cands[n])))
        out = [p for p in out if p in enums or not any(p != q and q in p for q in out)]
        return out or ["Someone"]

    def _me(self) -> str:
        counts = {p: self.sys.count(p) * 5 + self.ask[:400].count(p) for p in self.people}
        return max(self.people, key=lambda p: counts[p])

    def _places(self) -> list[str]:
        for d in [self.schema or {}] + list(self.defs.values()):
            for v in (d.get("properties") or {}).values():
                if isinstance(v, dict) and v.get("enum") and any(":" in str(e) for e in v["enum"]):
                    return [e for e in v["enum"] if e]
        return list(dict.fromkeys(re.findall(r"^\s*-\s*(\w[^\n()]*:[^\n()]*)$", self.text, re.M)))

    def _dates(self, s: str) -> list[tuple[int, date]]:
        out = []
        for m in re.finditer(r"\b(" + "|".join(MONTHS) + r")\s+(\d{1,2})\b", s, re.I):
            try:
                out.append((m.start(), date(self.year, MONTHS.index(m.group(1).lower()) + 1,
                                            int(m.group(2)))))
            except ValueError:
                pass
        for m in re.finditer(r"\b(\d{4})-(\d{2})-(\d{2})\b", s):
            try:
                out.append((m.start(), date(*map(int, m.groups()))))
            except ValueError:
                pass
        return out

    def _today(self) -> date:
        m = re.search(r"(\d{4}-\d{2}-\d{2})\s*\(today", self.text)
        if m:
            return date.fromisoformat(m.group(1))
        unbr = re.sub(r"\[[^\]]*\]", "", self.ask)
        ds = self._dates(unbr)
        if ds:
            return ds[0][1]
        ds = self._dates(self.text)
        return max((d for _, d in ds), default=date(self.year, 1, 1))

    def _now(self) -> int:
        unbr = re.sub(r"\[[^\]]*\]", "", self.ask)
        for line in unbr.splitlines():
            if self._dates(line) and not line.lstrip().startswith("-"):
                c = [t for p, t in _clock(line) if p < 10000]
                if c:
                    return c[0]
        return 720

    def _conversation(self) -> list[tuple[str, str]]:
        out = []
        for line in self.ask.splitlines():
            m = re.match(r"^\s*([A-Z][\w'. -]{1,40}?):\s*\"(.*)\"\s*$", line)
            if m and m.group(1) in self.people:
                out.append((m.group(1), m.group(2)))
        return out

    def block_of(self, person: str) -> str:
        """Paragraphs whose first line names this person (their memories, plan)."""
        if not self.multi:  # one mind's view: all of it is what this mind knows
            return self.ask
        paras = re.split(r"\n\s*\n", self.ask)
        own = [p for p in paras if person in p.split("\n")[0] and
               not any(o in p.split("\n")[0] for o in self.people if o != person)]
        return "\n".join(own)

    def news(self, person: str) -> dict | None:
        """The dated coming event this person holds, if any (most repeated wins)."""
        src = self.block_of(person)
        best: dict[str, dict] = {}
        for raw in re.split(r"\n|(?<=[.;])\s+(?=[A-Z])", src):
            s = re.sub(r"^\s*[-\d.]*\s*(\[[^\]]*\])?\s*", "", raw)
            if re.match(r"^\d{1,2}:\d{2}", s) or "plan for" in s.lower() or "conversation" in s[:20]:
                continue
            if '"' in s or not FUTURE.search(s):  # quoted talk, or no intent/arrangement
                continue
            core = s.split(": ")[-1] if ": " in s else s
            core = re.sub(r"^.*?\b(learned|means to tell \w+|heard) that ", "", core)
            when = self._when(s)
            if not when or len([1 for p, _ in _clock(core) if p < 10000]) > 3:
                continue
            if when[0] < self.today or (when[0] == self.today and
                                        when[1] + when[2] < self.now):
                continue
            names = [(core.find(p), p) for p in self.people if p in core]
            host = min(names)[1] if names else ""
            key = " ".join(sorted(_words(core))[:6])
            e = best.setdefault(key, {"text": core.strip(" .;,"), "host": host, "date": when[0],
                                      "start": when[1], "minutes": when[2], "n": 0})
            e["n"] += 1
        if not best:
            return None
        e = max(best.values(), key=lambda e: (e["n"], len(e["text"])))
        e["place"] = self.place_for(e["text"])
        return e

    def _when(self, s: str) -> tuple[date, int, int] | None:
        low = s.lower()
        ds = self._dates(s)
        d = None
        if "(that is" in low:
            tail = s[low.index("(that is"):]
            td = self._dates(tail)
            d = td[0][1] if td else None
            s = tail + " " + s
        elif ds:
            d = ds[0][1]
        elif "tomorrow" in low:
            d = self.today + timedelta(1)
        elif re.search(r"\b(today|tonight|this (afternoon|evening|morning))\b", low):
            d = self.today
        else:
            for i, w in enumerate(DAYS):
                if re.search(r"\b(on|this|next) " + w, low):
                    d = self.today + timedelta((i - self.today.weekday()) % 7)
        if d is None:
            return None
        ts = _clock(s)
        if not ts:
            return None
        start = ts[0][1]
        later = [t for p, t in ts[1:] if p < 10000 and t > start]
        mins = min(later[0] - start, 600) if later else 120
        return d, start, mins

    def place_for(self, s: str) -> str:
        w = _words(s)
        scored = [(len(w & _words(" ".join(p.split(":")[1:]))), -i, p)
                  for i, p in enumerate(self.places)]
        best = max(scored, default=(0, 0, ""))
        return best[2] if best[0] > 0 else ""

    def home(self, person: str) -> str:
        last = person.split()[-1].lower() if person else ""
        for p in self.places:
            if last and last in p.lower():
                return p
        for p in self.places:
            if re.search(r"home|house|cottage|bedroom|flat|room", p, re.I):
                return p
        return self.places[0] if self.places else ""

    def plan(self, person: str) -> list[tuple[int, int, str]]:
        out = []
        for m in re.finditer(r"^\s*-\s*(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s+(.*)$",
                             self.block_of(person), re.M):
            a, b = (int(x.split(":")[0]) * 60 + int(x.split(":")[1]) for x in m.group(1, 2))
            out.append((a, b if b > a else b + 1440, m.group(3)))
        return out

    def committed(self, person: str, ev: dict) -> bool:
        if ev["date"] != self.today:
            return False
        s, e = ev["start"], ev["start"] + ev["minutes"]
        for a, b, act in self.plan(person):
            if a < e and s < b and COMMIT.search(act) and not _words(act) & _words(ev["text"]):
                return True
        return False

    def said(self, ev: dict) -> bool:
        key = _words(ev["text"])
        return any(len(key & _words(t)) >= max(2, len(key) // 3) for _, t in self.lines)


def _say_news(ctx: Ctx, ev: dict, teller: str, rng: random.Random) -> str:
    text = ev["text"]
    when = _day_word(ctx, ev["date"]) + " at " + _hm(ev["start"])
    if ev["host"] == teller:
        body = re.sub(r"^" + re.escape(teller) + r"\s+(wants|means|plans|is going) to\s+", "", text)
        return rng.choice([f"I'm planning to {body} - {when}. Will you come?",
                           f"Would you like to come? I want to {body}, {when}."])
    return rng.choice([f"Have you heard? {text} ({when}).", f"Did you know {text}? That's {when}."])


def _day_word(ctx: Ctx, d: date) -> str:
    if d == ctx.today:
        return "today"
    if d == ctx.today + timedelta(1):
        return "tomorrow"
    return DAYS[d.weekday()].capitalize() + f" {MONTHS[d.month - 1].capitalize()} {d.day}"


def _reply_to(ctx: Ctx, me: str, other: str, line: str, ev: dict | None,
              rng: random.Random) -> tuple[str, str]:
    """A listener's reply to a line; returns (text, stance: yes/no/'')."""
    if ev and len(_words(ev["text"]) & _words(line)) >= 2:
        busy = ctx.committed(me, ev)
        invite = ev["host"] == other or INVITE.search(line) is not None
        if invite:
            p = (0.2 if busy else 0.6) + ctx.traits
        else:
            p = (0.15 if busy else 0.4) + ctx.traits
        when = _day_word(ctx, ev["date"]) + " at " + _hm(ev["start"])
        if rng.random() < p:
            return (rng.choice([f"Sounds good, I'll be there {when}!", f"Count me in for {when}."])
                    if invite else f"Oh, thanks for telling me - I think I'll go along {when}."), "yes"
        if invite:
            why = "I've got something on then" if busy else "I don't think I can make it"
            return f"Sorry, {why}. Maybe another time.", "no"
        return rng.choice(["Good to know, thanks.", "Interesting, thanks for telling me."]), ""
    if re.search(r"\b(bye|see you|take care|good to talk)\b", line, re.I):
        return "Bye for now, take care!", ""
    first = other.split()[0]
    return rng.choice([f"Hello {first}, how are you keeping?", "Not bad, busy as usual.",
                       f"Good to see you, {first}.", "Yes, it's been a full day."]), ""


def _turn(ctx: Ctx, rng: random.Random, group: bool = False) -> tuple[str, bool, str]:
    me = ctx.me
    other = next((s for s, _ in reversed(ctx.lines) if s != me),
                 ctx.others[0] if ctx.others else "")
    ev = ctx.news(me)
    mine = sum(1 for s, _ in ctx.lines if s == me)
    if ev and not ctx.said(ev) and rng.random() < (0.75 if ev["host"] == me else 0.5):
        return _say_news(ctx, ev, me, rng), False, "everyone" if group else other
    last = ctx.lines[-1][1] if ctx.lines and ctx.lines[-1][0] != me else ""
    if last:
        oev = ctx.news(other) or ev
        text, _ = _reply_to(ctx, me, other, last, oev, rng)
    else:
        text = rng.choice([f"Hi {other.split()[0]}! How's your day going?" if other else "Hello!",
                           "Hello there, nice to see you."])
    bye = bool(re.search(r"\b(bye|see you|take care)\b", last, re.I))
    end = rng.random() < (0.85 if bye else min(0.8, 0.15 + 0.12 * len(ctx.lines)))
    if end and mine + 1 >= 1 and not bye:
        text += " Anyway, I'd better get on. See you!"
    return text, end, other


def _memo(ctx: Ctx, who: str, rng: random.Random, lines: list[tuple[str, str]],
          ev: dict | None, stance: str = "") -> dict:
    mine = " ".join(t for s, t in lines if s == who)
    if not stance:
        stance = "yes" if YES.search(mine) else "no" if NO.search(mine) else ""
    if ev is None:
        ev = _line_event(ctx, lines)
    heard = ev is not None and any(len(_words(ev["text"]) & _words(t)) >= 2 for _, t in lines)
    memo = {"summary": "", "importance": rng.randint(2, 3), "plan_activity": "",
            "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    others = [s for s, _ in lines if s != who] or ctx.others[:1]
    withs = ", ".join(dict.fromkeys(others)) or "someone"
    if ev and heard:
        memo["summary"] = f"{who} talked with {withs} about this: {ev['text']} " \
                          f"({_day_word(ctx, ev['date'])}, {_hm(ev['start'])})."[:400]
        memo["importance"] = rng.randint(7, 8) if ev["host"] == who else rng.randint(5, 7)
        p = 0.3 if ev["host"] == who else 0.85 if stance == "yes" else 0.0 if stance == "no" else 0.1
        if rng.random() < p:
            memo.update(plan_activity=("going to: " + ev["text"])[:120],
                        plan_date=ev["date"].isoformat(), plan_start=_hm(ev["start"]),
                        plan_minutes=ev["minutes"], plan_place=ev["place"])
    else:
        memo["summary"] = f"{who} chatted briefly with {withs}; nothing much was settled."
    return memo


def _line_event(ctx: Ctx, lines: list[tuple[str, str]]) -> dict | None:
    """An event told in the conversation's own lines (what, when, who holds it)."""
    for who, t in lines:
        when = ctx._when(t) if FUTURE.search(t) else None
        if when and when[0] >= ctx.today:
            named = [(t.find(p), p) for p in ctx.people if p in t]
            host = min(named)[1] if named else who
            text = re.sub(r"^(have you heard|did you know|guess what)\W*", "", t, flags=re.I)
            return {"text": text.strip(" .?!"), "host": host, "date": when[0], "start": when[1],
                    "minutes": when[2], "n": 1, "place": ctx.place_for(t)}
    return None


def _gist(ctx: Ctx, rng: random.Random, names: list[str]) -> tuple[bool, list, list]:
    holders = [(n, ctx.news(n)) for n in names]
    holders = [(n, e) for n, e in holders if e]
    if rng.random() >= (0.85 if holders else 0.45):
        return False, [], []
    lines: list[tuple[str, str]] = []
    stances: dict[str, str] = {}
    ev = None
    a, b = names[0], names[1] if len(names) > 1 else names[0]
    lines.append((a, f"Hello {b.split()[0]}, how are things?"))
    lines.append((b, "Fine, thanks - busy as ever."))
    if holders:
        teller, ev = holders[0]
        if rng.random() < (0.75 if ev["host"] == teller else 0.5):
            lines.append((teller, _say_news(ctx, ev, teller, rng)))
            for n in names:
                known = ctx.news(n)
                if n != teller and n != ev["host"] and not (
                        known and len(_words(known["text"]) & _words(ev["text"])) >= 3):
                    t, st = _reply_to(ctx, n, teller, lines[-1][1], ev, rng)
                    lines.append((n, t))
                    stances[n] = st
        else:
            ev = None
    lines.append((a if lines[-1][0] != a else b, "Well, good to see you. Take care!"))
    return True, lines, [(n, _memo(ctx, n, rng, lines, ev, stances.get(n, ""))) for n in names]


def _day(ctx: Ctx, rng: random.Random) -> dict:
    me = ctx.me
    life = ctx.text[:1500]
    lm = re.search(r"wake[^.,;\n]*", life, re.I)
    wake = next((t for _, t in _clock(lm.group(0))), 420) if lm else 420
    bm = re.search(r"(bed|sleep)[^.,;\n]*", life, re.I)
    bed = next((t for _, t in _clock(bm.group(0))), 1320) if bm else 1320
    if bed < 12 * 60:
        bed += 1440
    home = ctx.home(me)
    work = ctx.place_for(life.split("\n\n")[0]) or home
    segs = [(wake, wake + 30, "waking up and getting ready", "🌅", home),
            (wake + 30, wake + 90, "having breakfast", "🍳", home),
            (wake + 90, 720, "busy with the day's work", "🛠", work),
            (720, 780, "having lunch", "🥪", home), (780, 1020, "busy with the day's work", "🛠",
                                                        work),
            (1020, 1110, "relaxing", "📖", home), (1110, 1170, "having dinner", "🍲", home),
            (1170, bed, "relaxing at home", "🛋", home)]
    ev = ctx.news(me)
    outline = [f"wake up at {_hm(wake)}", "have breakfast", "work through the morning",
               "have lunch", "get on with the afternoon", "dinner and a quiet evening"]
    if ev and ev["date"] == ctx.today:
        said = YES.search(ctx.text) is not None or "going to" in ctx.text
        p = 0.9 if ev["host"] == me else 0.8 if said else 0.3 + ctx.traits
        if rng.random() < p:
            s, e = ev["start"], ev["start"] + ev["minutes"]
            act = ("hosting: " if ev["host"] == me else "going to: ") + ev["text"]
            new = []
            for a, b, *rest in segs:
                if b <= s or a >= e:
                    new.append((a, b, *rest))
                else:
                    if a < s:
                        new.append((a, s, *rest))
                    if b > e:
                        new.append((e, b, *rest))
            new.append((s, e, act[:120], "🎉", ev["place"] or work))
            segs = sorted(new)
            outline.insert(3, act[:120])
            if ev["host"] == me and rng.random() < 0.6:
                outline.insert(1, "ask people I meet to come along")
    segs = [x for x in segs if x[1] - x[0] >= 5][:15]
    blocks = [{"start": _hm(a), "duration_minutes": min(960, b - a), "activity": act,
               "emoji": em, "address": pl} for a, b, act, em, pl in segs]
    blocks.append({"start": _hm(bed), "duration_minutes": min(960, max(5, wake + 1440 - bed)),
                   "activity": "sleeping", "emoji": "😴", "address": home})
    return {"wake_up_hour": wake // 60, "outline": outline[:8], "blocks": blocks}


def _steps(ctx: Ctx, prop: dict) -> dict:
    m = re.search(r"fill\D{0,12}(\d+) min", ctx.ask) or re.search(r"\((\d+) min", ctx.ask)
    total = int(m.group(1)) if m else 30
    arr = (prop.get("properties") or {}).get("steps") or {}
    lo, hi = arr.get("minItems", 1), arr.get("maxItems", 12)
    k = re.search(r"into (\d+)\b", ctx.ask)
    n = int(k.group(1)) if k else -(-total // 15)
    n = max(lo, min(hi, n))
    base = [max(5, min(15, total // n))] * n
    for i in range(n):
        if sum(base) < total and base[i] < 15:
            base[i] += min(15 - base[i], total - sum(base))
    step = next((d for d in (prop.get("$defs") or {}).values()
                 if "object" in (d.get("properties") or {})), {})
    objs = [o for o in (_find_enum(step, "object") or _find_enum(prop, "object") or []) if o]
    act = re.search(r"is ([a-z][^,.\n]{3,60}), at", ctx.ask)
    what = act.group(1) if act else "the task"
    names = ["getting started on " + what, what, "carrying on with " + what, "taking a short break",
             "carrying on with " + what]
    return {"steps": [{"activity": (names[i % 5] if i < n - 1 else "finishing " + what)[:80],
                       "duration_minutes": d,
                       "object": objs[0] if objs and i == 1 else "",
                       "object_state": "in use" if objs and i == 1 else ""}
                      for i, d in enumerate(base)]}


def _find_enum(schema: dict, key: str) -> list | None:
    for d in [schema]:
        for k, v in (d.get("properties") or {}).items():
            if k == key:
                return v.get("enum")
            if isinstance(v, dict):
                r = _find_enum(v, key)
                if r is not None:
                    return r
    return None


def _rate(s: str, me: str) -> int:
    if re.search(r"told|heard|invit|wants to|means to|event|news", s, re.I) and _clock(s):
        return 7
    if re.search(r"conversation|chatted|talk|said", s, re.I):
        return 4
    return 2 if ROUTINE.search(s) else 3


def _interview(ctx: Ctx, rng: random.Random) -> str:
    qs = re.findall(r"\"([^\"]{3,200}\?)\"", ctx.ask)
    q = qs[-1] if qs else ctx.ask[-300:]
    mem = [re.sub(r"^\s*-\s*\[[^\]]*\]\s*", "", x) for x in ctx.ask.splitlines()
           if x.lstrip().startswith("- [")]
    qw = _words(q) - _words(ctx.me)
    scored = sorted(((len(qw & _words(m)), -i, m) for i, m in enumerate(mem)), reverse=True)
    if not scored or scored[0][0] == 0:
        return "I'm afraid I don't know anything about that."
    if rng.random() >= 0.85:
        return "I think I've heard something about that, but I can't quite recall the details."
    best = scored[0][2].replace(ctx.me + " ", "I ", 1)[:300]
    ev = ctx.news(ctx.me)
    extra = f" I heard that {ev['text']}." if ev and len(qw & _words(ev["text"])) >= 1 else ""
    return ("Yes - as far as I know, " + best.rstrip(".") + "." + extra)[:590]


def _goes(ctx: Ctx, rng: random.Random) -> dict | None:
    """Today's known event if this mind decides to go (the day-plan rates), else None."""
    ev = ctx.news(ctx.me)
    if not ev or ev["date"] != ctx.today:
        return None
    said = YES.search(ctx.text) is not None or "going to" in ctx.text
    p = 0.9 if ev["host"] == ctx.me else 0.8 if said else 0.3 + ctx.traits
    return ev if rng.random() < p else None


def _activity_at(ctx: Ctx, t: int, go: dict | None) -> tuple[str, str]:
    if go and go["start"] <= t < go["start"] + go["minutes"]:
        return ("going to: " + go["text"])[:80], go["place"]
    for a, b, act in ctx.plan(ctx.me):
        if a <= t < b or a <= t + 1440 < b:
            m = re.search(r"\(planned at ([^)]*)\)", act)
            return re.sub(r"\s*\(.*$", "", act)[:80] or "carrying on", m.group(1) if m else ""
    return "carrying on with the day", ""


def _fill(s: dict, ctx: Ctx, rng: random.Random, key: str = "", idx: int = 0,
          go: dict | None = None) -> object:
    """Generic schema filler: values drawn from the prompt (item idx of a list runs on in time)."""
    if "$ref" in s:
        s = ctx.defs.get(s["$ref"].split("/")[-1], {})
    if "anyOf" in s:
        s = next((x for x in s["anyOf"] if x.get("type") != "null"), {})
    t = s.get("type")
    when = ctx.now + idx * 60
    if s.get("enum"):
        en = s["enum"]
        hint = _activity_at(ctx, when, go)
        if hint[1] in en:
            return hint[1]
        scored = [(len(_words(str(e)) & _words(ctx.ask[-800:])), -i, e) for i, e in enumerate(en)]
        return max(scored)[2]
    if t == "object":
        props = s.get("properties") or {}
        return {k: _fill(v, ctx, rng, k, idx, go) for k, v in props.items()}
    if t == "array":
        n = max(s.get("minItems", 1), min(3, s.get("maxItems", 3)))
        it = s.get("items") or {"type": "string"}
        if it.get("enum") and len(it["enum"]) >= n:
            return list(it["enum"][:n])
        return [_fill(it, ctx, rng, key, i, go) for i in range(n)]
    if t in ("integer", "number"):
        lo = s.get("minimum", 0)
        hi = s.get("maximum", lo + 10)
        v = 60 if "min" in key or "dur" in key else (lo + hi) / 2
        v = max(lo, min(hi, v))
        return int(v) if t == "integer" and int(v) >= lo else v
    if t == "boolean":
        return False
    if s.get("pattern") or key in ("start", "time", "at"):
        pat = s.get("pattern", ":")
        if ":" in pat or "[0-5]" in pat:
            return _hm(when)
        return "" if re.fullmatch(pat, "") else _hm(when)
    txt = _activity_at(ctx, when, go)[0] if re.search(r"activ|what|task|do", key) else \
        f"{ctx.me} thinks it over and carries on."
    return txt[: s.get("maxLength", 200)]


def _json_answer(ctx: Ctx, rng: random.Random) -> dict:
    s = ctx.schema or {}
    props = set((s.get("properties") or {}).keys())
    me = ctx.me
    ev = ctx.news(me)
    if props == {"ok"}:
        return {"ok": True}
    if "answer" in props:
        return {"answer": _interview(ctx, rng)}
    if props == {"importance"}:
        q = re.findall(r"\"([^\"]{3,})\"", ctx.ask)
        return {"importance": min(10, _rate(q[-1] if q else ctx.ask[-300:], me) + rng.randint(0, 1))}
    if "ratings" in props:
        sch = s["properties"]["ratings"]
        mems = [m for m in re.findall(r"^\s*(?:-|\d+\.)\s*\"(.*)\"\s*$", ctx.ask, re.M)]
        n = max(sch.get("minItems", 1), min(sch.get("maxItems", len(mems) or 1), len(mems)))
        mems = (mems + [""] * n)[:n]
        return {"ratings": [min(10, _rate(m, me) + rng.randint(0, 1)) for m in mems]}
    if "currently" in props:
        old = re.search(re.escape(me) + r" is (\w+ing\b[^.\n]{0,120})\.", ctx.text)
        txt = f"{me} is {old.group(1) if old else 'getting on with the usual routine'}."
        if ev and rng.random() < 0.7:
            txt += f" {me} has in mind that {ev['text']} ({_day_word(ctx, ev['date'])}, " \
                   f"{_hm(ev['start'])})."
        return {"currently": txt[:500]}
    if {"wake_up_hour", "blocks"} <= props:
        return _day(ctx, rng)
    if "steps" in props:
        return _steps(ctx, s)
    if "choice" in props and "continue" in (s["properties"]["choice"].get("enum") or []):
        en = s["properties"]["choice"]["enum"]
        near = ctx.others[0] if ctx.others else "them"
        untold = ev is not None and "talk" in en
        r = rng.random()
        soon = ev and ev["date"] == ctx.today and 0 <= ev["start"] - ctx.now <= 60
        if "talk" in en and r < (0.6 if untold else 0.2):
            return {"choice": "talk", "reason": f"{me} wants a word with {near}.",
                    "new_activity": ""}
        if "react" in en and soon and rng.random() < 0.4:
            return {"choice": "react", "reason": "The event is about to start.",
                    "new_activity": ("going to: " + ev["text"])[:120]}
        if "wait" in en and r > 0.9:
            return {"choice": "wait", "reason": f"{near} is busy right now.", "new_activity": ""}
        if "react" in en and r < 0.05:
            return {"choice": "react", "reason": "Something to look into.",
                    "new_activity": "going to see what is happening"}
        return {"choice": "continue", "reason": "Nothing here calls for a change of plan.",
                "new_activity": ""}
    if "talk" in props and ("first" in props or "memos" in props):
        names = [me] + [o for o in ctx.others if o in ctx.ask][: 6]
        en = [d for d in ctx.defs.values() if "speaker" in (d.get("properties") or {})]
        if en and en[0]["properties"]["speaker"].get("enum"):
            sp = en[0]["properties"]["speaker"]["enum"]
            names = sorted(sp, key=lambda n: (ctx.ask.find(n) % 10**6, n))
        talk, lines, memos = _gist(ctx, rng, names)
        out: dict = {"talk": talk, "lines": [{"speaker": a, "text": t[:300]} for a, t in lines]}
        if "memos" in props:
            out["memos"] = [dict(m, name=n) for n, m in memos]
        elif talk:
            out["first"], out["second"] = memos[0][1], memos[-1][1]
        return out
    if "utterance" in props:
        text, end, to = _turn(ctx, rng, group=True)
        en = (s["properties"]["addressed_to"].get("enum") or ["everyone"])
        return {"utterance": text[:400], "addressed_to": to if to in en else en[-1],
                "end_conversation": end}
    if {"summary", "plan_activity"} <= props:
        other = ctx.others[0] if ctx.others else ""
        oev = ev or ctx.news(other)
        return _memo(ctx, me, rng, ctx.lines, oev)
    if "insights" in props:
        return _insights(ctx, rng, s)
    if "questions" in props:
        mx = s["properties"]["questions"].get("maxItems", 3)
        qs = [f"What does {me} think of {o}?" for o in ctx.others[:2]]
        if ev:
            short = ev["text"][:120].rsplit(" ", 1)[0] if len(ev["text"]) > 120 else ev["text"]
            qs.insert(0, f"Why does {me} care about this: {short}?")
        qs.append(f"How is {me}'s routine changing these days?")
        return {"questions": qs[:mx]}
    if props == {"summary"}:
        other = next((o for o in ctx.others if o in ctx.ask[ctx.ask.find("remember"):]),
                     ctx.others[0] if ctx.others else "them")
        n = ctx.ask.count(other)
        feel = "someone they talk to often and like" if n > 4 else "an acquaintance they know " \
                                                                   "by sight"
        return {"summary": f"{other} is {feel}; {me} feels friendly towards them right now."}
    return _fill(s, ctx, rng, go=_goes(ctx, rng))  # type: ignore[return-value]


def _insights(ctx: Ctx, rng: random.Random, s: dict) -> dict:
    stm = {int(m.group(1)): m.group(2) for m in re.finditer(r"^(\d+)\.\s*(.*)$", ctx.ask, re.M)}
    qs = re.findall(r"\"([^\"]+\?)\"", ctx.ask)
    out = []
    for q in qs[:3] or ["?"]:
        qw = _words(q) - _words(ctx.me)
        ev = sorted((n for n, t in stm.items() if qw & _words(t)), reverse=True)[:4] or \
            sorted(stm)[-2:] or [1]
        named = [p for p in ctx.people if p in q and p != ctx.me]
        about = (", ".join(named) or " ".join(sorted(qw))[:60])[:60]
        t = stm.get(ev[0], "")
        out.append({"insight": f"{ctx.me} has noticed a pattern: {t[t.find(']') + 1:].strip()}"[:300],
                    "about": about or "daily life", "evidence": sorted(ev),
                    "importance": min(10, _rate(t, ctx.me) + rng.randint(0, 1))})
    return {"insights": out}


def _malform_json(txt: str, rng: random.Random, me: str) -> str:
    r = rng.random()
    if r < 0.4:
        return txt[: max(1, len(txt) * 2 // 3)]
    if r < 0.6:
        return "I'm sorry, but I can't help with that request."
    return f"Sure! Here is {me}'s answer:\n```json\n{txt}\n```\nLet me know if you need more."


def respond(body: dict, seed: int) -> str:
    """The completion text for one request (see the module docstring for the rules)."""
    h = hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True, default=str)
                       .encode()).hexdigest()
    rng = random.Random(seed ^ int(h[:15], 16))
    try:
        ctx = Ctx(body)
    except Exception:  # never raise on odd bodies
        return "I'm not sure what you mean."
    bad = rng.random() < 0.05
    if ctx.schema:
        try:
            ans = _json_answer(ctx, rng)
        except Exception:
            ans = _fill(ctx.schema, ctx, rng)
        txt = json.dumps(ans, ensure_ascii=False)
        return _malform_json(txt, rng, ctx.me) if bad else txt
    asked = (body.get("response_format") or {}).get("type") == "json_object"
    if asked or re.search(r"\{\s*\"\w+\"\s*:", ctx.ask[-600:]):  # JSON asked for in words
        pairs = re.findall(r"\"(\w+)\"\s*:\s*(\S{0,12})", ctx.ask[-600:]) or [("answer", "")]
        out = {}
        for k, v in pairs:
            kind = "integer" if re.search(r"int|\d", v) else "boolean" if "true" in v else \
                "array" if v.startswith("[") else "string"
            out[k] = _fill({"type": kind}, ctx, rng, k)
        txt = json.dumps(out, ensure_ascii=False)
        return _malform_json(txt, rng, ctx.me) if bad else txt
    try:
        text, end, _ = _turn(ctx, rng)
    except Exception:
        text, end = "Hello there.", False
    tag = "[end]" if end else "[continue]"
    if bad:
        r = rng.random()
        if r < 0.6:
            return f"{ctx.me}: {text}\n{tag}"
        if r < 0.8:
            return f"\"{text}\"\n{tag}"
        return text
    return f"{text}\n{tag}"
