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
- Anything else: a schema filler that reads values from the prompt (enums by word overlap).
"""
from __future__ import annotations

import hashlib
import json
import random
import re
from datetime import date, timedelta

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


class Ctx:
    """What the prompt shows: people, places, today, news, plan, conversation."""

    def __init__(self, body: dict) -> None:
        msgs = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        self.sys = "\n".join(str(m.get("content") or "") for m in msgs if m.get("role") == "system")
        users = [str(m.get("content") or "") for m in msgs if m.get("role") != "assistant"]
        self.text = "\n".join(users)
        self.ask = users[-1] if users else ""
        rf = body.get("response_format") or {}
        js = rf.get("json_schema") or {}
        self.schema = js.get("schema") if isinstance(js, dict) else None
        if not self.schema and isinstance(rf.get("schema"), dict):
            self.schema = rf["schema"]
        self.defs = (self.schema or {}).get("$defs") or {}
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
        return [p for p in out if not any(p != q and p in q for q in out)] or ["Someone"]

    def _me(self) -> str:
        counts = {p: self.sys.count(p) * 5 + self.ask[:400].count(p) for p in self.people}
        return max(self.people, key=lambda p: counts[p])

    def _places(self) -> list[str]:
        for d in [self.schema or {}] + list(self.defs.values()):
            for k, v in (d.get("properties") or {}).items():
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
        paras = re.split(r"\n\s*\n", self.ask)
        own = [p for p in paras if person in p.split("\n")[0] and
               not any(o in p.split("\n")[0] for o in self.people if o != person)]
        return "\n".join(own) if len(self.people) > 1 and own else self.ask

    def news(self, person: str) -> dict | None:
        """The dated coming event this person holds, if any (most repeated wins)."""
        src = self.block_of(person)
        best: dict[str, dict] = {}
        for raw in re.split(r"\n|(?<=[.;])\s+(?=[A-Z])", src):
            s = re.sub(r"^\s*[-\d.]*\s*(\[[^\]]*\])?\s*", "", raw)
            if re.match(r"^\d{1,2}:\d{2}", s) or "plan for" in s.lower() or "conversation" in s[:20]:
                continue
            core = s.split(": ")[-1] if ": " in s else s
            core = re.sub(r"^.*?\b(learned|means to tell \w+|heard) that ", "", core)
            when = self._when(s)
            if not when or len([1 for p, _ in _clock(core) if p < 10000]) > 3:
                continue
            if when[0] < self.today:
                continue
            names = [(core.find(p), p) for p in self.people if p in core]
            host = min(names)[1] if names else ""
            key = " ".join(sorted(_words(core))[:6])
            e = best.setdefault(key, {"text": core.strip(" ."), "host": host, "date": when[0],
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
        invite = ev["host"] == other or "you" in line.lower() and "come" in line.lower()
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
                if n != teller and not (ctx.news(n) and ctx.news(n)["text"] == ev["text"]):
                    t, st = _reply_to(ctx, n, teller, lines[-1][1], ev, rng)
                    lines.append((n, t))
                    stances[n] = st
        else:
            ev = None
    lines.append((names[-1], "Well, good to see you. Take care!"))
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
    m = re.search(r"\((\d+) minutes?\)", ctx.ask)
    total = int(m.group(1)) if m else 30
    n = max(2, min(6, -(-total // 15)))
    base = [max(5, min(15, total // n))] * n
    for i in range(n):
        if sum(base) < total and base[i] < 15:
            base[i] += min(15 - base[i], total - sum(base))
    objs = [o for o in (_find_enum(prop, "object") or []) if o]
    act = re.search(r"is ([a-z][^,.\n]{3,60}), at", ctx.ask)
    what = act.group(1) if act else "the task"
    names = ["getting started on " + what, what, "carrying on with " + what, "taking a short break",
             "finishing " + what, "tidying up"]
    return {"steps": [{"activity": names[i if i < n - 1 else 4][:80], "duration_minutes": d,
                       "object": objs[i % len(objs)] if objs else "",
                       "object_state": "in use" if objs else ""} for i, d in enumerate(base)]}


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


def _fill(s: dict, ctx: Ctx, rng: random.Random, key: str = "") -> object:
    """Generic schema filler: values drawn from the prompt."""
    if "$ref" in s:
        s = ctx.defs.get(s["$ref"].split("/")[-1], {})
    if "anyOf" in s:
        s = next((x for x in s["anyOf"] if x.get("type") != "null"), {})
    if s.get("enum"):
        en = s["enum"]
        scored = [(len(_words(str(e)) & _words(ctx.ask)), -i, e) for i, e in enumerate(en)]
        return max(scored)[2] if key not in ("choice",) else en[0]
    t = s.get("type")
    if t == "object":
        props = s.get("properties") or {}
        return {k: _fill(v, ctx, rng, k) for k, v in props.items()}
    if t == "array":
        n = max(s.get("minItems", 1), min(3, s.get("maxItems", 3)))
        return [_fill(s.get("items") or {"type": "string"}, ctx, rng, key) for _ in range(n)]
    if t == "integer" or t == "number":
        lo, hi = s.get("minimum", 0), s.get("maximum", lo + 10 if False else 10)
        return max(lo, min(hi, (lo + hi) // 2))
    if t == "boolean":
        return False
    if s.get("pattern"):
        return _hm(ctx.now) if ":" in s["pattern"] else ""
    txt = f"{ctx.me} carries on with the day." if not ctx.others else \
        f"{ctx.me} thinks about {ctx.others[0]}."
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
        old = re.search(re.escape(me) + r" is ([^.\n]{3,120})\.", ctx.text)
        txt = f"{me} is {old.group(1) if old else 'getting on with the usual routine'}."
        if ev and rng.random() < 0.7:
            txt += f" {me} has in mind that {ev['text']} ({_day_word(ctx, ev['date'])}, " \
                   f"{_hm(ev['start'])})."
        return {"currently": txt[:500]}
    if {"wake_up_hour", "blocks"} <= props:
        return _day(ctx, rng)
    if "steps" in props:
        return _steps(ctx, s)
    if "choice" in props:
        en = s["properties"]["choice"].get("enum") or ["continue"]
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
        if "memos" in props:
            en = _find_enum(ctx.defs.get("GistLine", {}), "speaker")
            names = en or names
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
            qs.insert(0, f"Why does {me} care about this: {ev['text'][:120]}?")
        qs.append(f"How is {me}'s routine changing these days?")
        return {"questions": qs[:mx]}
    if props == {"summary"}:
        other = next((o for o in ctx.others if o in ctx.ask[ctx.ask.find("remember"):]),
                     ctx.others[0] if ctx.others else "them")
        n = ctx.ask.count(other)
        feel = "someone they talk to often and like" if n > 4 else "an acquaintance they know " \
                                                                   "by sight"
        return {"summary": f"{other} is {feel}; {me} feels friendly towards them right now."}
    return _fill(s, ctx, rng)  # type: ignore[return-value]


def _insights(ctx: Ctx, rng: random.Random, s: dict) -> dict:
    stm = {int(m.group(1)): m.group(2) for m in re.finditer(r"^(\d+)\.\s*(.*)$", ctx.ask, re.M)}
    qs = re.findall(r"\"([^\"]+\?)\"", ctx.ask)
    out = []
    for q in qs[:3] or ["?"]:
        qw = _words(q) - _words(ctx.me)
        ev = sorted((n for n, t in stm.items() if qw & _words(t)), reverse=True)[:4] or \
            sorted(stm)[-2:] or [1]
        about = " ".join(w for w in re.findall(r"[A-Z][a-z]+", q) if w not in ctx.me.split())[:60]
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
    if re.search(r"\{\s*\"\w+\"\s*:", ctx.ask[-600:]):  # JSON asked for in words only
        keys = re.findall(r"\"(\w+)\"\s*:", ctx.ask[-600:])
        txt = json.dumps({k: _fill({"type": "string"}, ctx, rng) for k in dict.fromkeys(keys)})
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
