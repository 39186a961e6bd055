"""Blind stand-in model no. 6: written from captured requests only, rates fixed before any run.

It reads a chat-completion body as a middling instruction-tuned model would (people by the names
used as subjects in the text, times in any style, places by the schema's enum or by shared words)
and writes the completion text. Decisions and their declared rates (never tuned afterwards):

- D1 tell news: a speaker whose memories/status hold an upcoming dated event (a time of day plus a
  day: date, weekday, today/tomorrow) not yet mentioned in the conversation brings it up, per turn:
  p = 0.70 when the speaker holds it, 0.45 when heard from someone else. Traits: +0.10 outgoing
  (sociable, talkative, nosy, chatty, friendly, energetic, jovial, outgoing), -0.15 reserved (shy,
  quiet, reserved, private, grumpy, gruff, aloof).
- D2 answer an invitation (the event's holder asks): accepts p = 0.60 when the speaker's plan at
  that time holds only ordinary activity (work, meals, chores, leisure, sleep) or nothing; 0.20 when
  it holds a commitment (names another person, a visit, a meeting, "going to"); 0.90 when the plan
  already holds that event. Same trait shifts as D1; +0.05 when the asker is known (in 3+ of the
  speaker's memories or named in its identity). Otherwise declines or says "another time".
- D3 news of someone else's event passed on: says it means to go p = 0.40 when free, 0.10 when
  committed (same shifts as D2); otherwise just acknowledges. Nobody tells an event to its holder.
- D4 memo after a talk: a plan item is written p = 0.85 when the NPC's own line accepted or said it
  means to go; p = 0.10 when it only heard of an event and said nothing either way; none when it
  declined or only passed the news on. Date, time and place are those the conversation gives (its
  clock time first), else the NPC's own memory of the event; the date must be one the schema offers.
- D5 day plan: an event known for that day is put in the schedule p = 0.90 when the NPC holds it,
  0.75 when it accepted/plans to go (memory or status says so), 0.30 when only heard of it, none
  when a memory says it cannot go. When the
  prompt lists places and hours where people could be told, a block there in free time p = 0.50.
- D6 status rewrite mentions the upcoming event: holder 0.85, accepted 0.70, heard 0.40, declined 0.
- D7 react to an observation: talk p = 0.60 when the NPC has untold news and the person is close
  by; else, a known person: talk 0.25, wait 0.05, react 0.05; a stranger: talk 0.10, react 0.05;
  the rest continue.
- D8 conversation end after a line: p = min(0.9, 0.10 + 0.12 x lines so far); never on the first
  line, always after 10; an answer to an invitation never ends it unless 2+ lines came before.
- D9 whole-conversation summaries: they talk p = 0.90 when someone has news, else 0.50.
- D10 importance: routine 1-3, chat 2-4, news/event 5-8 (+1 for the holder), each +-1 at random.
- D11 interview: says what the memories hold about the asked subject p = 0.90, else "don't know".
- D12 malformed answers, 5% of all: JSON requests 2% truncated, 1.5% prose around the JSON,
  0.5% a refusal, 1% the speaker's name in front; plain-text requests 3% name in front, 1% the
  closing tag missing, 1% a refusal.
"""
from __future__ import annotations

import hashlib
import json
import random
import re
from typing import Any

MONTHS = "January February March April May June July August September October November December".split()
DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
_CAL = set(MONTHS) | set(DAYS)
_NAME = re.compile(r"\b([A-Z][a-z'\u2019-]+(?: [A-Z][a-z'\u2019-]+){1,2})\b")
_SUBJ = re.compile(r"^(?: is | was | wants| has | had | heard| knows| keeps| runs| will| means| to |'s |:|\?)")
_STARTERS = set("What How Who Where When Why Which Places Place Name Hi Hello Hey Sorry Have Has The It Its "
                "Then And But So Yes No Oh Well Good Thanks Dear Today Tomorrow Answer Someone Question".split())
STOP = set("wants want that with from have heard this today tomorrow going cannot afternoon morning evening tonight "
           "there will would about learned said told them they their".split())
OUTGOING = ("sociab", "talkat", "nosy", "chatty", "friendl", "energ", "jovial", "outgo", "warm", "gregar")
RESERVED = ("shy", "quiet", "reserv", "private", "grump", "gruff", "aloof", "solitar", "introvert")
ORDINARY = ("sleep", "breakfast", "lunch", "dinner", "meal", "relax", "rest", "work", "busy", "shift",
            "chore", "read", "waking", "getting ready", "tend", "home", "nap", "clean", "cook", "shop",
            "walk", "open", "clos", "bak", "sort", "knit", "garden")
COMMIT = ("going to", "meet", "appointment", "visit", "calling on", "hosting", " with ")
NUMW = {w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split())}
FUZZY = (("after work", 17 * 60 + 30), ("sundown", 19 * 60 + 30), ("sunset", 19 * 60 + 30), ("dusk", 19 * 60 + 30),
         ("noon", 12 * 60), ("midday", 12 * 60), ("lunchtime", 12 * 60 + 30), ("teatime", 16 * 60),
         ("tonight", 19 * 60), ("evening", 19 * 60), ("afternoon", 15 * 60), ("morning", 10 * 60),
         ("midnight", 0), ("dawn", 6 * 60), ("sunrise", 6 * 60))


def _text(content: Any) -> str:
    """Message content as text (a string, or a list of text parts)."""
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return str(content or "")


def _strings(node: Any) -> list[str]:
    """Every string enum value in a schema."""
    if isinstance(node, dict):
        return [v for k, x in node.items() for v in (x if k == "enum" and isinstance(x, list) else _strings(x))
                if isinstance(v, str)]
    if isinstance(node, list):
        return [v for x in node for v in _strings(x)]
    return []


def _rng(body: dict, seed: int) -> random.Random:
    raw = json.dumps(body.get("messages", []) if isinstance(body, dict) else [], sort_keys=True, default=str).encode()
    return random.Random(seed * 1_000_003 + int(hashlib.sha256(raw).hexdigest()[:12], 16))


def hm(m: int) -> str:
    return f"{(m // 60) % 24:02d}:{m % 60:02d}"


def clock12(m: int) -> str:
    h, mi = (m // 60) % 24, m % 60
    s = f"{(h % 12) or 12}" + (f":{mi:02d}" if mi else "")
    return s + (" am" if h < 12 else " pm")


def times_in(s: str) -> list[int]:
    """Times of day in any style, in order of appearance (minutes since midnight)."""
    found: list[tuple[int, int]] = []
    low = s.lower()
    for m in re.finditer(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?\b", low):
        h = int(m.group(1)) % 12 + (12 if m.group(3) == "p" else 0)
        found.append((m.start(), h * 60 + int(m.group(2) or 0)))
    for m in re.finditer(r"(?<!\d)(\d{1,2}):(\d{2})(?!\s*[ap]\.?m)", low):
        if int(m.group(1)) < 24:
            found.append((m.start(), int(m.group(1)) * 60 + int(m.group(2))))
    words = "|".join(NUMW)
    for m in re.finditer(rf"\b(half past|quarter past|quarter to) ({words}|\d{{1,2}})\b", low):
        h = NUMW.get(m.group(2)) or int(m.group(2))
        h = h + 12 if h < 8 else h
        off = {"half past": 30, "quarter past": 15, "quarter to": -15}[m.group(1)]
        found.append((m.start(), h * 60 + off))
    for m in re.finditer(r"\b(\d{1,2}) in the (morning|afternoon|evening)\b", low):
        found.append((m.start(), int(m.group(1)) % 12 * 60 + (0 if m.group(2) == "morning" else 720)))
    for m in re.finditer(rf"\b({words}) o'?clock\b", low):
        h = NUMW[m.group(1)]
        found.append((m.start(), (h + 12 if h < 8 else h) * 60))
    for word, t in FUZZY:
        hit = re.search(rf"\b{word}\b", low)
        i = hit.start() if hit else -1
        if i >= 0 and not any(abs(i - p) < 25 for p, _ in found):
            found.append((i, t))
    return [t for _, t in sorted(found)]


class Ctx:
    """What the request shows: people, self, now, places, plans, memories, conversation."""

    def __init__(self, body: dict) -> None:
        msgs = [dict(m, content=_text(m.get("content"))) for m in body.get("messages") or [] if isinstance(m, dict)]
        self.system = " ".join(m["content"] for m in msgs if m.get("role") in ("system", "developer"))
        users = [m["content"] for m in msgs if m.get("role") == "user"]
        self.user = "\n".join(users)
        self.text = self.system + "\n" + "\n".join(users)
        rf = body.get("response_format") or {}
        self.schema = ((rf.get("json_schema") or {}).get("schema")) if isinstance(rf, dict) else None
        self.json_mode = isinstance(rf, dict) and rf.get("type") in ("json_schema", "json_object")
        seg, top = r"[\w'\u2019-]+(?: [\w'\u2019-]+)*", r"[A-Z][\w'\u2019-]*(?: [A-Z][\w'\u2019-]*)*"
        found = re.findall(rf"(?:^[-*]\s*|\((?:[^()\n]*? )?)({top}:{seg}:{seg})(?:\)|\s*$)", self.text, re.M)
        found += [v for v in _strings(self.schema) if v.count(":") >= 2 and "\n" not in v]
        self.places = sorted(set(found), key=lambda p: (self.text.find(p) < 0, self.text.find(p)))
        place_words = " ".join(self.places)
        count: dict[str, int] = {}
        for m in _NAME.finditer(self.text):
            n = m.group(1)
            if self.text[max(0, m.start() - 1):m.start()] == ":":
                continue
            while len(n.split()) > 2 or n.split()[0] in _STARTERS:
                head, _, rest = n.partition(" ")
                if head not in _STARTERS and not re.search(rf"\b{head.lower()}\b", self.text):
                    break
                n = rest
            if " " not in n:
                continue
            if set(n.split()) & _CAL or n in place_words:
                continue
            if _SUBJ.match(self.text[m.end():m.end() + 8]):
                count[n] = count.get(n, 0) + 1
        self.people = [n for n in sorted(count, key=lambda n: -count[n])]
        sys_names = [n for n in self.people if n in self.system]
        first = [n for n in self.people if n in self.user[:300]]
        self.me = sys_names[0] if sys_names else (first[0] if first else (self.people[0] if self.people else "I"))
        self.others = [n for n in self.people if n != self.me]
        self.year = int((re.findall(r"\b(20\d\d)\b", self.text) or ["2026"])[0])
        self.now_pos = 0
        self.now_day, self.now = self._now()
        after = self.user[self.now_pos:]
        self.partner = min(self.others, key=lambda n: (n not in after, after.find(n)), default="")
        self.days = {d: lab.lower() for d, lab in re.findall(r"(\d{4}-\d{2}-\d{2}) \(([^)]*)\)", self.user)}
        self.plans: dict[str, list[tuple[int, int, str, str]]] = {}
        self.mems: dict[str, list[str]] = {}
        self.convo: list[tuple[str, str]] = []
        self.traits_of: dict[str, str] = {}
        self._sections()
        self.traits = self.traits_of.get(self.me) or self._line_after("trait") or ""

    def _now(self) -> tuple[str, int]:
        """The request's own date and clock: a dated mention outside memory brackets, best dressed first."""
        mon, wd = "|".join(MONTHS), "|".join(DAYS)
        pat = (rf"(?:({wd}),? )?(?:({mon}) (\d{{1,2}})|(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? ({mon})|(\d{{4}}-\d{{2}}-\d{{2}}))"
               rf"(?:,? (\d{{4}}))?(?:,? (?:at )?(\d{{1,2}}:\d{{2}}(?:\s*[ap]\.?m\.?)?|\d{{1,2}}\s*[ap]\.?m\.?))?")
        hits = [m for m in re.finditer(pat, self.user) if self.user[max(0, m.start() - 1):m.start()] != "["
                and (m.group(2) or m.group(5) or m.group(6))]
        def inside(m: re.Match) -> bool:
            line = self.user[self.user.rfind("\n", 0, m.start()) + 1:m.start()]
            return line.count("(") > line.count(")") or self.user[m.end():m.end() + 1] == "-"
        stamps = re.findall(rf"\[(?:[^\]]*?)({mon}) (\d{{1,2}}), (\d{{1,2}}:\d{{2}})\]", self.user)
        if stamps and not any(m.group(8) for m in hits):
            mo, d, t = max(stamps, key=lambda x: (MONTHS.index(x[0]), int(x[1]), times_in(x[2])[0]))
            return f"{self.year}-{MONTHS.index(mo) + 1:02d}-{int(d):02d}", times_in(t)[0]
        for m in sorted(hits, key=lambda m: (inside(m), not (m.group(1) and (m.group(7) or m.group(8))), not m.group(8))):
            self.now_pos = m.end()
            t = times_in(m.group(8) or "")
            return self.date_of(m.group(0), f"{self.year}-01-01"), (t[0] if t else 8 * 60)
        return f"{self.year}-01-01", 8 * 60

    def _line_after(self, key: str) -> str | None:
        for line in self.user.splitlines():
            if key in line.lower() and ":" in line:
                return line.split(":", 1)[1].strip()
        return None

    def _sections(self) -> None:
        owner, in_mem = self.me, False
        run: list[tuple[str, str]] = []
        for line in self.user.splitlines():
            s = line.strip()
            blk = re.match(r"^-\s*(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s+(.*)$", s)
            sp = re.match(r'^([A-Z][\w\' -]+?): "?(.*?)"?$', s)
            if blk:
                a, b = times_in(blk.group(1))[0], times_in(blk.group(2))[0]
                place = next((p for p in self.places if p in blk.group(3)), "")
                act = re.sub(r"\s*\([^)]*\)\s*$", "", blk.group(3))
                self.plans.setdefault(owner, []).append((a, b if b > a else b + 1440, act, place))
                in_mem = False
            elif s.startswith("- [") or re.match(r"^\d+\. \[", s):
                self.mems.setdefault(owner, []).append(s)
                in_mem, run = True, []
            elif sp and sp.group(1) in self.people:
                if in_mem and self.mems.get(owner):
                    self.mems[owner][-1] += " " + s
                else:
                    run.append((sp.group(1), sp.group(2)))
            elif s and not s.startswith("-"):
                if "trait" in s.lower() and ":" in s:
                    self.traits_of.setdefault(owner, s.split(":", 1)[1])
                named = [n for n in self.people if n in s]
                if named and len(s) < 200:
                    owner = min(named, key=s.find)
                in_mem = False
                if run:
                    self.convo, run = run, []
        if run:
            self.convo = run

    def date_of(self, s: str, ref: str) -> str:
        iso = re.search(r"\b(\d{4}-\d{2}-\d{2})\b", s)
        if iso:
            return iso.group(1)
        md = re.search(rf"({'|'.join(MONTHS)}) (\d{{1,2}})\b", s)
        dm = re.search(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? ({'|'.join(MONTHS)})\b", s)
        if md or dm:
            mon, day = (md.group(1), md.group(2)) if md else (dm.group(2), dm.group(1))
            return f"{self.year}-{MONTHS.index(mon) + 1:02d}-{int(day):02d}"
        low = s.lower()
        import datetime as dt
        try:
            base = dt.date.fromisoformat(ref)
        except ValueError:
            return ref
        if "tomorrow" in low:
            return (base + dt.timedelta(days=1)).isoformat()
        for i, wd in enumerate(DAYS):
            if wd.lower() in low:
                return (base + dt.timedelta(days=(i - base.weekday()) % 7)).isoformat()
        return ref

    def events(self, who: str | None = None) -> list[dict]:
        """Upcoming dated events in the memories/status/news of `who` (default: self)."""
        who = who or self.me
        srcs = list(self.mems.get(who, []))
        for line in self.user.splitlines():
            if who in line and ("news" in line.lower() or line.lower().startswith(("currently", "status"))):
                srcs.append(line)
        out: list[dict] = []
        for raw in srcs:
            stamp = re.match(r"^(?:-|\d+\.)\s*\[([^\]]*)\]\s*", raw.strip())
            ref = self.date_of(stamp.group(1), self.now_day) if stamp else self.now_day
            body = re.sub(r"\[[^\]]*\]", "", raw)
            body = body.split(" conversation with ")[0] if "conversation with" in body[:40] else body
            segs = [g for g in re.split(r":\s+", body) if times_in(g) and not re.match(r"^\s*\d", g)]
            if not segs or len(set(times_in(body))) >= 4 or '"' in segs[-1] or re.search(r"\d-\d|\d min\b", segs[-1]):
                continue
            seg = segs[-1].strip(" -.")
            seg = [x for x in re.split(r"(?<=[.!?])\s+", seg) if times_in(x)][-1]
            tail = [t for t in seg.split(" that ") if any(t.strip().startswith(n) for n in self.people)]
            seg = tail[-1].strip() if tail else seg
            ts = times_in(seg)
            day = self.date_of(seg, ref)
            start = ts[0]
            end = ts[1] if len(ts) > 1 and ts[1] > ts[0] else start + 120
            if (day, end) < (self.now_day, self.now):
                continue
            host = next((n for n in sorted(self.people, key=lambda n: (seg.find(n) < 0, seg.find(n))) if n in seg), "")
            low = raw.lower()
            going = any(k in low for k in ("count me in", "will go", "means to go", "accepted", "going to", "will come"))
            declined = any(k in low for k in ("cannot go", "can't", "declin", "won't"))
            place = self.place_for(seg)
            key = self.keyof(seg)
            ev = dict(text=seg, day=day, start=start, end=end, host=host, going=going and not declined,
                      declined=declined, place=place, key=key)
            if len(key.split()) >= 2 and not any(self.same(e["key"], key) for e in out):
                out.append(ev)
        return out

    def keyof(self, text: str) -> str:
        """The content words of an event's description, without names, days and fillers."""
        skip = {w.lower() for n in self.people for w in n.split()} | {w.lower() for w in _CAL} | STOP
        return " ".join([w for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in skip][:8])

    @staticmethod
    def same(a: str, b: str) -> bool:
        x, y = set(a.split()), set(b.split())
        return bool(x and y) and len(x & y) >= max(2, 0.6 * min(len(x), len(y)))

    def place_for(self, s: str, pool: list[str] | None = None) -> str:
        for n in self.people:
            s = s.replace(n, " ")
        words = re.findall(r"[a-z]{3,}", s.lower())
        best, score = "", 0
        for p in pool or self.places:
            sc = sum(words.count(w) for w in set(re.findall(r"[a-z]{3,}", p.lower().split(":", 1)[-1])))
            if sc > score:
                best, score = p, sc
        return best

    def said(self, ev: dict, convo: list[tuple[str, str]] | None = None) -> bool:
        words = set(ev["key"].split())
        return any(len(words & set(re.findall(r"[a-z]{4,}", t.lower()))) >= max(2, len(words) // 2)
                   for _, t in (self.convo if convo is None else convo))

    def shift(self, who: str | None = None) -> float:
        t = (self.traits_of.get(who or self.me) or self.traits).lower()
        return (0.10 if any(k in t for k in OUTGOING) else 0.0) - (0.15 if any(k in t for k in RESERVED) else 0.0)

    def slot(self, who: str, day: str, start: int, ev: dict | None = None) -> str:
        """'free', 'same' (already planned for this event) or 'busy' (a commitment) at that time."""
        if day != self.now_day:
            return "free"
        for a, b, act, _ in self.plans.get(who, []):
            if a <= start < b:
                low = act.lower()
                if ev and set(ev["key"].split()) & set(re.findall(r"[a-z]{4,}", low)):
                    return "same"
                if any(n in act for n in self.people) or any(k in low for k in COMMIT):
                    return "busy"
        return "free"


ACCEPT = ("count me in", "i'll be there", "i'll come", "love to", "see you there", "i'll go", "i think i'll go",
          "wouldn't miss", "i'm in", "i will come", "i'll join")
DECLINE = ("can't", "cannot", "sorry", "other plans", "won't", "another time", "not able", "rather not")


def first(n: str) -> str:
    return n.split()[0] if n else "friend"


def when_words(c: Ctx, day: str, start: int) -> str:
    label = c.days.get(day, "")
    if day == c.now_day:
        d = "today"
    elif "tomorrow" in label:
        d = "tomorrow"
    else:
        import datetime as dt
        try:
            d = "on " + DAYS[dt.date.fromisoformat(day).weekday()]
        except ValueError:
            d = "soon"
    return f"{d} at {clock12(start)}"


def tell_line(c: Ctx, who: str, ev: dict) -> str:
    s = ev["text"].split(" (")[0]
    if ev["host"] == who:
        s = s.replace(who, "I", 1)
        for a, b in (("I wants", "I want"), ("I is", "I am"), ("I has", "I have"), ("I means", "I mean")):
            s = s.replace(a, b)
    where = ev["place"].split(":")[1] if ev["place"].count(":") >= 1 else ""
    tail = f" — {when_words(c, ev['day'], ev['start'])}" + (f", at the {where}" if where and where not in s else "")
    ask = " Do come along!" if ev["host"] == who else ""
    return f"Have you heard? {s[:220]}{tail}.{ask}"


def line_event(c: Ctx, text: str) -> dict | None:
    ts = times_in(text)
    low = text.lower()
    clock = re.search(r"\d\s*[ap]\.?m|\d:\d\d|o'?clock|half past|quarter (?:past|to)", low)
    if not clock and not re.search(r"\b(tomorrow|today|tonight|this (?:morning|afternoon|evening)|"
                                   + "|".join(d.lower() for d in DAYS + MONTHS) + r")\b", low):
        return None
    start = ts[0] if ts else 18 * 60
    key = c.keyof(text)
    host = next((n for n in sorted(c.people, key=lambda n: (text.find(n) < 0, text.find(n))) if n in text), "")
    return dict(text=text, day=c.date_of(text, c.now_day), start=start, end=start + 120, host=host,
                place=c.place_for(text), key=key, going=False, declined=False, clock=bool(clock))


def pending(c: Ctx, who: str, convo: list[tuple[str, str]]) -> tuple[str, dict] | None:
    """The last event another speaker raised that `who` has not answered yet."""
    out = None
    for sp, t in convo:
        if sp == who:
            out = None
        elif any(k in t.lower() for k in ACCEPT + DECLINE):
            continue
        else:
            ev = line_event(c, t)
            if ev:
                out = (sp, ev)
    return out


def answer(c: Ctx, who: str, sp: str, ev: dict, rng: random.Random) -> tuple[str, bool]:
    """Accept/decline an invitation (D2) or react to news of another's event (D3)."""
    invite = ev["host"] in ("", sp) or bool(re.search(r"\b(come|join)\b", ev["text"].lower()))
    mine = next((e for e in c.events(who) if c.same(e["key"], ev["key"])), None)
    if mine:
        ev = dict(ev, day=mine["day"], place=mine["place"] or ev["place"],
                  start=ev["start"] if ev.get("clock") else mine["start"])
    slot = c.slot(who, ev["day"], ev["start"], ev)
    known = sum(sp in m for m in c.mems.get(who, [])) >= 3 or sp in (c.traits_of.get(who, "") + (c._line_after("identity") or ""))
    p = {"free": 0.60, "busy": 0.20, "same": 0.90}[slot] if invite else {"free": 0.40, "busy": 0.10, "same": 0.90}[slot]
    p += c.shift(who) + (0.05 if known else 0.0)
    when = when_words(c, ev["day"], ev["start"])
    if rng.random() < p:
        return rng.choice([f"I'd love to — count me in, {when}!", f"Sounds lovely, I'll be there {when}.",
                           f"Oh, I think I'll go along to that, {when}."]), True
    if invite and slot == "busy":
        return "Sorry, I can't make it then, I've got something on. Another time?", False
    return rng.choice(["Thanks for telling me, good to know.", "Is that so? Nice to hear.",
                       "Good to know, thanks."]), False


def next_line(c: Ctx, who: str, to: str, convo: list[tuple[str, str]], rng: random.Random) -> tuple[str, bool]:
    n = len(convo)
    end = n >= 10 or (rng.random() < min(0.9, 0.10 + 0.12 * n) and n > 0)
    pend = pending(c, who, convo)
    if pend and pend[1]["host"] == who:
        return rng.choice(["Yes, that's mine — I do hope you'll come!", "That's right, I'm the one getting it up."]), False
    if pend:
        text, _ = answer(c, who, pend[0], pend[1], rng)
        return text, end and n >= 2
    for ev in c.events(who):
        if not c.said(ev) and not c.said(ev, convo) and ev["host"] != to:
            p = (0.70 if ev["host"] == who else 0.45) + c.shift(who)
            if rng.random() < p:
                return tell_line(c, who, ev), False
            break
    if end or n >= 8:
        return f"It was good to talk, {first(to)}. See you around!", True
    if n == 0:
        return rng.choice([f"Hi {first(to)}! How are you doing?", f"Morning, {first(to)}! All well?",
                           f"Hello {first(to)}, nice to see you."]), False
    return rng.choice(["Not bad at all, keeping busy.", "Can't complain — plenty to do as always.",
                       "Fine, thanks. Lovely weather for it."]), False


def memo(c: Ctx, who: str, convo: list[tuple[str, str]], rng: random.Random, pool: list[str]) -> dict:
    """One participant's take on a finished talk (D4, D10)."""
    others = sorted({sp for sp, _ in convo if sp != who}) or c.others[:1]
    ev, stance, teller = None, "none", ""
    for i, (sp, t) in enumerate(convo):
        if sp != who and any(k in t.lower() for k in ACCEPT + DECLINE):
            continue
        if sp != who and (e := line_event(c, t)):
            ev, stance, teller = e, "heard", sp
            for sp2, t2 in convo[i + 1:]:
                if sp2 == who:
                    low = t2.lower()
                    stance = "accepted" if any(k in low for k in ACCEPT) else ("declined" if any(k in low for k in DECLINE) else stance)
                    break
        elif sp == who and line_event(c, t) and ev is None:
            ev, stance = line_event(c, t), "told"
    with_ = " and ".join(others) or "someone"
    item = dict(plan_activity="", plan_date="", plan_start="", plan_minutes=0, plan_place="")
    if ev is None:
        summary, imp = f"{who} chatted briefly with {with_}.", rng.randint(2, 4)
    else:
        mine = next((e for e in c.events(who) if c.same(e["key"], ev["key"])), None)
        if mine:
            ev = dict(ev, day=mine["day"], place=mine["place"] or ev["place"], text=mine["text"],
                      start=ev["start"] if ev.get("clock") else mine["start"], end=mine["end"])
            ev["end"] = ev["end"] if ev["end"] > ev["start"] else ev["start"] + 120
        gist = ev["text"].split(" (")[0].split(" — ")[0].replace("Have you heard? ", "")[:200].rstrip(".!")
        gist = re.sub(r"^I (want|am|have|mean)\b", lambda m: f"{teller or who} {m.group(1)}s".replace("ams", "is")
                      .replace("haves", "has"), gist)
        when = when_words(c, ev["day"], ev["start"])
        src = teller or with_
        summary = {"accepted": f"{who} heard from {src} that {gist}, and said they would go ({when}).",
                   "declined": f"{who} heard from {src} that {gist} ({when}), but cannot go.",
                   "heard": f"{who} heard from {src} that {gist} ({when}).",
                   "told": f"{who} told {with_} that {gist} ({when})."}[stance]
        imp = min(10, rng.randint(5, 7) + (1 if ev["host"] == who else 0))
        p = {"accepted": 0.85, "heard": 0.10}.get(stance, 0.0)
        days = (schema_enum(pool_schema(c), "plan_date") or [ev["day"]])
        if rng.random() < p and ev["day"] in days:
            place = ev["place"] if ev["place"] in pool else c.place_for(ev["text"], pool)
            item = dict(plan_activity=("going to: " + gist)[:110], plan_date=ev["day"], plan_start=hm(ev["start"]),
                        plan_minutes=max(30, min(600, ev["end"] - ev["start"])), plan_place=place)
    return dict(summary=summary[:390], importance=max(1, min(10, imp)), **item)


def schema_enum(schema: Any, field: str) -> list:
    """The enum of a field anywhere in a schema (first found)."""
    if isinstance(schema, dict):
        for k, v in schema.items():
            if k == field and isinstance(v, dict) and "enum" in v:
                return list(v["enum"])
            found = schema_enum(v, field)
            if found:
                return found
    elif isinstance(schema, list):
        for v in schema:
            found = schema_enum(v, field)
            if found:
                return found
    return []


def pool_schema(c: Ctx) -> Any:
    return c.schema or {}


def resolve(root: Any, node: Any) -> Any:
    """Follow $ref and pick the non-null branch of anyOf."""
    for _ in range(8):
        if isinstance(node, dict) and "$ref" in node:
            defs = (root.get("$defs") or root.get("definitions") or {}) if isinstance(root, dict) else {}
            node = defs.get(str(node["$ref"]).split("/")[-1], {})
        elif isinstance(node, dict) and ("anyOf" in node or "oneOf" in node):
            opts = [o for o in (node.get("anyOf") or node.get("oneOf") or []) if isinstance(o, dict)] or [{}]
            node = next((o for o in opts if o.get("type") != "null"), opts[0])
        else:
            break
    return node if isinstance(node, dict) else {}


def fill(c: Ctx, root: Any, node: Any, name: str, rng: random.Random) -> Any:
    """Generic schema filler that takes values from the prompt."""
    node = resolve(root, node)
    t = node.get("type")
    if "enum" in node:
        opts = [o for o in node["enum"] if o != ""] or node["enum"]
        best = c.place_for(c.user, [o for o in opts if isinstance(o, str)]) if any(isinstance(o, str) for o in opts) else ""
        return best if best else rng.choice(opts)
    if t == "object" or "properties" in node:
        return {k: fill(c, root, v, k, rng) for k, v in (node.get("properties") or {}).items()}
    if t == "array":
        lo = node.get("minItems", 1)
        n = max(lo, min(node.get("maxItems", 3), 3))
        return [fill(c, root, node.get("items", {}), name, rng) for _ in range(n)]
    if t == "integer" or t == "number":
        lo, hi = node.get("minimum", 1), node.get("maximum", max(node.get("minimum", 1), 10))
        if "minute" in name:
            return max(lo, min(hi, 60))
        return max(lo, min(hi, (lo + hi) // 2 + rng.randint(-1, 1)))
    if t == "boolean":
        return rng.random() < 0.5
    pat = node.get("pattern", "")
    if ":[0-5]" in pat or "hh:mm" in str(node.get("description", "")).lower():
        return hm((c.now // 5) * 5)
    if "[0-9]{4}-" in pat:
        return c.now_day
    act = c.plans.get(c.me, [(0, 0, "carrying on as planned", "")])
    cur = next((a for a in act if a[0] <= c.now < a[1]), act[0])[2]
    text = f"{c.me} keeps on with {cur}." if c.me != "I" else "Carrying on as before."
    return text[: node.get("maxLength", 300)]


def props(c: Ctx) -> dict:
    return (c.schema or {}).get("properties") or {}


def enum_at(c: Ctx, *path: str) -> list:
    node: Any = c.schema
    for p in path:
        node = resolve(c.schema, node)
        node = (node.get("properties") or {}).get(p) if p != "[]" else node.get("items")
    node = resolve(c.schema, node)
    return list(node.get("enum", [])) if node else []


def bounds(c: Ctx, field: str, lo: int, hi: int) -> tuple[int, int]:
    node = resolve(c.schema, props(c).get(field, {}))
    return node.get("minItems", lo), node.get("maxItems", hi)


def importance_of(c: Ctx, s: str, rng: random.Random) -> int:
    low = s.lower()
    if times_in(s) and (any(m in s for m in MONTHS + DAYS) or "tomorrow" in low or "today" in low):
        base = 6 + (1 if c.me in s.split(" ")[0:2] or s.startswith(c.me) else 0)
    elif "conversation" in low or "chat" in low or '"' in s or "heard" in low:
        base = 3
    elif any(k in low for k in ("sleep", "breakfast", "lunch", "dinner", "waking", "getting ready")):
        base = 1
    else:
        base = 2
    return max(1, min(10, base + rng.randint(-1, 1)))


def day_plan(c: Ctx, rng: random.Random) -> dict:
    """Full day (D5) from the lifestyle, or a short re-plan from now when no wake-up hour is asked."""
    pool = enum_at(c, "blocks", "[]", "address") or c.places or ["home"]
    life = c._line_after("lifestyle") or " ".join(l for l in c.user.splitlines() if "wake" in l.lower())[:300]
    low = life.lower()
    wake = (times_in(low[low.find("wak"):]) or [7 * 60])[0] if "wak" in low else 7 * 60
    bed = (times_in(low[low.find("bed"):]) or [22 * 60])[0] if "bed" in low else 22 * 60
    bed = bed + 1440 if bed <= wake else bed
    sleeps = [p for a, b, act, p in c.plans.get(c.me, []) if "sleep" in act.lower() and p in pool]
    home = sleeps[0] if sleeps else next((p for p in pool if any(k in p.lower() for k in ("bed", "home", "house"))), pool[0])
    rest = [p for p in pool if p != home] or [home]
    work = c.place_for(life, rest) or c.place_for(c._line_after("identity") or "", rest) or rest[0]
    span = [t for t in times_in(life) if t not in (wake, bed % 1440)]
    full = "wake_up_hour" in props(c)
    start = wake if full else (c.now // 5) * 5
    stop = wake + 1440 if full else start + rng.choice([60, 90, 120])
    slots: dict[int, tuple[str, str]] = {}

    def paint(a: int, b: int, act: str, place: str) -> None:
        for m in range(max(a, start), min(b, stop), 5):
            slots[m] = (act, place)
    if full:
        paint(start, stop, "relaxing at home", home)
        if len(span) >= 2 and span[1] > span[0]:
            paint(span[0], span[1], f"busy at the {work.split(':')[-1]}", work)
        else:
            paint(wake + 90, 17 * 60, f"spending time at the {work.split(':')[-1]}", work)
        paint(wake, wake + 30, "waking up and getting ready", home)
        paint(wake + 30, wake + 60, "having breakfast", home)
        lunch = 12 * 60 if wake + 90 <= 12 * 60 else wake + 300
        paint(lunch, lunch + 60, "having lunch", slots.get(lunch, ("", home))[1])
        dinner = min(18 * 60 + 30, bed - 90)
        paint(dinner, dinner + 60, "having dinner", home)
        paint(bed, stop, "sleeping", home)
    else:
        cur = next((x for x in c.plans.get(c.me, []) if x[0] <= c.now < x[1]), None)
        paint(start, stop, cur[2] if cur else "carrying on", cur[3] if cur and cur[3] in pool else home)
    for ev in c.events():
        if ev["day"] != c.now_day:
            continue
        p = 0.90 if ev["host"] == c.me else (0.75 if ev["going"] else (0.0 if ev["declined"] else 0.30))
        if rng.random() < p:
            place = ev["place"] if ev["place"] in pool else (c.place_for(ev["text"], pool) or work)
            what = ("hosting: " if ev["host"] == c.me else "going to: ") + ev["text"].split(" (")[0]
            paint(ev["start"], ev["end"], what[:100], place)
    for line in c.user.splitlines():
        place = next((p for p in pool if p in line), "")
        ts = times_in(line.split(place)[-1]) if place else []
        if place and len(ts) >= 2 and not line.strip().startswith("- [") and rng.random() < 0.5:
            free = [m for m in range(ts[0], ts[1], 5) if slots.get(m, ("", ""))[0] == "relaxing at home"]
            if free:
                paint(free[0], free[0] + 60, "asking people to come along", place)
    blocks: list[dict] = []
    for m in sorted(slots):
        act, place = slots[m]
        if blocks and blocks[-1]["activity"] == act and blocks[-1]["address"] == place:
            blocks[-1]["duration_minutes"] += 5
        else:
            emo = "😴" if "sleep" in act else ("🍽️" if any(k in act for k in ("lunch", "dinner", "breakfast")) else "🙂")
            blocks.append(dict(start=hm(m), duration_minutes=5, activity=act, emoji=emo, address=place))
    while len(blocks) > 16:
        i = min(range(len(blocks) - 1), key=lambda j: blocks[j]["duration_minutes"])
        blocks[i + 1 if i + 1 < len(blocks) - 1 else i - 1]["duration_minutes"] += blocks[i]["duration_minutes"]
        blocks.pop(i)
    for b in blocks:
        b["duration_minutes"] = max(5, min(960, b["duration_minutes"]))
    out: dict[str, Any] = {"blocks": blocks}
    if full:
        out["wake_up_hour"] = wake // 60
        outline = [f"{b['activity']} at {b['start']}" for b in blocks if b["duration_minutes"] >= 30][:8]
        while len(outline) < 4:
            outline.append(f"{blocks[-1]['activity']} at {blocks[-1]['start']}")
        out["outline"] = outline
    for k in props(c):
        out.setdefault(k, fill(c, c.schema, props(c)[k], k, rng))
    return out


def steps(c: Ctx, rng: random.Random) -> dict:
    line = next((l for l in c.user.splitlines() if re.search(r"\(\d+ minutes?\)", l)), "")
    total = int((re.findall(r"\((\d+) minutes?\)", line) or ["60"])[0])
    t0 = (times_in(line) or [c.now])[0]
    act = next((a[2] for a in c.plans.get(c.me, []) if a[0] == t0), "") or "the task"
    lo, hi = bounds(c, "steps", 2, 6)
    k = max(lo, min(hi, -(-total // 15)))
    objs = enum_at(c, "steps", "[]", "object") or [""]
    words = set(re.findall(r"[a-z]{3,}", act.lower()))
    obj = next((o for o in objs if o and set(re.findall(r"[a-z]{3,}", o.lower())) & words), "")
    if not obj and len(objs) > 1 and rng.random() < 0.6:
        obj = rng.choice([o for o in objs if o])
    names = [f"getting started with {act}"] + [f"{act}" for _ in range(k - 2)] + [f"finishing {act}"]
    base, extra = divmod(total, k)
    out = []
    for i in range(k):
        d = max(5, min(15, base + (1 if i < extra else 0)))
        out.append(dict(activity=names[i][:78], duration_minutes=d, object=obj,
                        object_state=("in use" if obj else "")))
    return {"steps": out}


def react(c: Ctx, rng: random.Random) -> dict:
    choices = enum_at(c, "choice") or ["continue"]
    other = c.partner
    mems = c.mems.get(c.me, [])
    untold = [e for e in c.events() if not any(other in m and set(e["key"].split()[:3]) <= set(m.lower().split()) for m in mems)]
    known = sum(other in m for m in mems) >= 2 or other in (c._line_after("identity") or "")
    r = rng.random()
    if other and untold:
        pick = "talk" if r < 0.60 else "continue"
    elif known:
        pick = "talk" if r < 0.25 else "wait" if r < 0.30 else "react" if r < 0.35 else "continue"
    else:
        pick = "talk" if r < 0.10 else "react" if r < 0.15 else "continue"
    pick = pick if pick in choices else choices[0]
    reason = {"talk": f"{c.me} wants a word with {other or 'them'}.", "wait": f"{c.me} waits for {other} to finish.",
              "react": f"{c.me} decides to go and see what {other} is up to.",
              "continue": "Nothing here calls for a change of plan."}.get(pick, "It seems best.")
    return dict(choice=pick, reason=reason, new_activity=(f"going over to {first(other)}" if pick == "react" else ""))


def interview(c: Ctx, rng: random.Random) -> dict:
    q = (re.findall(r'"([^"]{3,300}\?)"', c.user) or [c.user[-200:]])[-1]
    subj = [n for n in c.people if n in q]
    keys = subj or [w for w in re.findall(r"[A-Za-z]{5,}", q) if w.lower() not in ("about", "think", "going", "there")]
    facts = [re.sub(r"^[-\d.\s]*\[[^\]]*\]\s*", "", m) for m in c.mems.get(c.me, []) if any(k in m for k in keys)]
    facts += [s for s in re.split(r"(?<=[.;])\s+", c._line_after("identity") or "") if any(k in s for k in keys)]
    if facts and rng.random() < 0.90:
        f = max(facts, key=lambda s: ('"' not in s, bool(times_in(s)), -len(s)))
        f = re.sub(r"\[[^\]]*\]\s*", "", f).replace(c.me, "I").replace("I is ", "I am ").replace("I was ", "I was ")
        return {"answer": f"As far as I know, {f[:400].rstrip('.')}."}
    return {"answer": "I'm afraid I don't really know anything about that."}


def status(c: Ctx, rng: random.Random) -> dict:
    old = (c._line_after("currently") or f"{c.me} is going about the usual day.").split(". ")[0].rstrip(".") + "."
    for ev in c.events():
        p = 0.85 if ev["host"] == c.me else (0.70 if ev["going"] else (0.0 if ev["declined"] else 0.40))
        if rng.random() < p:
            verb = "is looking forward to hosting" if ev["host"] == c.me else "means to go to"
            what = ev["text"].split(" (")[0]
            return {"currently": f"{old} {c.me} {verb} this: {what[:250]} ({when_words(c, ev['day'], ev['start'])})."[:490]}
        break
    return {"currently": f"{old} {c.me} is keeping to the usual routine."[:490]}


def questions(c: Ctx, rng: random.Random) -> dict:
    lo, hi = bounds(c, "questions", 1, 3)
    qs = [f"How does {c.me} feel about {o}?" for o in c.others[:2]]
    qs += [f"Will {c.me} take part in this: {e['text'].split(' (')[0][:120]}?" for e in c.events()[:1]]
    qs += [f"What matters most to {c.me} in daily life these days?", f"Is {c.me}'s routine changing?"]
    return {"questions": qs[:max(lo, min(hi, 3))]}


def insights(c: Ctx, rng: random.Random) -> dict:
    stm = {int(m.group(1)): m.group(2) for m in re.finditer(r"^(\d+)\. (.*)$", c.user, re.M)}
    ok = enum_at(c, "insights", "[]", "evidence", "[]") or list(stm) or [1]
    lo, hi = bounds(c, "insights", 1, 5)
    out = []
    for who in (c.others[:3] or [c.me]):
        ev = [n for n, s in stm.items() if who in s and n in ok][:10] or [ok[0]]
        body = " ".join(stm.get(n, "") for n in ev)
        mood = "is keen to see more of" if "heard" in body or "conversation" in body else "often crosses paths with"
        out.append(dict(insight=f"{c.me} {mood} {who}.", about=who[:60], evidence=ev,
                        importance=importance_of(c, body, rng)))
    return {"insights": out[:max(lo, min(hi, len(out)))]}


def relation(c: Ctx, rng: random.Random) -> dict:
    other = next((o for o in c.others if o in c.user[c.user.find(c.me) + len(c.me):]), "them")
    mems = [m for m in c.mems.get(c.me, []) if other in m]
    tone = "a bit let down by" if any(k in " ".join(mems).lower() for k in DECLINE) and c.shift() < 0.1 else "friendly towards"
    kind = f"someone {c.me} sees about town" if len(mems) < 3 else f"a familiar face {c.me} talks with"
    return {"summary": f"{other} is {kind}; {c.me} feels {tone} {first(other)} right now."}


def converse(c: Ctx, rng: random.Random, people: list[str], most: int) -> list[tuple[str, str]]:
    convo: list[tuple[str, str]] = []
    for i in range(most):
        who = people[i % len(people)]
        to = convo[-1][0] if convo and convo[-1][0] != who else next(p for p in people if p != who)
        text, end = next_line(c, who, to, convo, rng)
        convo.append((who, text))
        if end and len(convo) >= 2:
            break
    return convo


def summary(c: Ctx, rng: random.Random) -> dict:
    people = [p for p in enum_at(c, "lines", "[]", "speaker") if p] or [c.me] + c.others[:1]
    news = any(c.events(p) for p in people)
    if rng.random() >= (0.90 if news else 0.50):
        return {"talk": False, "lines": []} | ({"memos": []} if "memos" in props(c) else {})
    lo, most = bounds(c, "lines", 2, 6)
    convo = converse(c, rng, people, max(2, most))
    out: dict[str, Any] = {"talk": True, "lines": [{"speaker": s, "text": t[:295]} for s, t in convo]}
    if "memos" in props(c):
        pool = enum_at(c, "memos", "[]", "plan_place")
        out["memos"] = [dict(name=p, **memo(c, p, convo, rng, pool)) for p in people][: bounds(c, "memos", 0, 8)[1]]
    else:
        for key, p in zip(("first", "second"), people, strict=False):
            out[key] = memo(c, p, convo, rng, enum_at(c, key, "plan_place"))
    return out


def turn(c: Ctx, rng: random.Random) -> tuple[str, bool, str]:
    to = c.convo[-1][0] if c.convo and c.convo[-1][0] != c.me else c.partner
    if c.json_mode:
        allowed = [a for a in enum_at(c, "addressed_to") if a != "everyone"]
        to = to if to in allowed or not allowed else allowed[0]
    text, end = next_line(c, c.me, to, c.convo, rng)
    return text, end, to


def json_answer(c: Ctx, rng: random.Random) -> dict:
    p = set(props(c))
    if "utterance" in p:
        text, end, to = turn(c, rng)
        allowed = enum_at(c, "addressed_to")
        if text.startswith("Have you heard") and "everyone" in allowed and rng.random() < 0.6:
            to = "everyone"
        return {"utterance": text[:395], "addressed_to": to if to in allowed or not allowed else allowed[0],
                "end_conversation": end}
    table = [("ok", lambda: {"ok": True}), ("answer", lambda: interview(c, rng)), ("ratings", None),
             ("currently", lambda: status(c, rng)), ("blocks", lambda: day_plan(c, rng)), ("steps", lambda: steps(c, rng)),
             ("choice", lambda: react(c, rng)), ("questions", lambda: questions(c, rng)),
             ("insights", lambda: insights(c, rng)), ("talk", lambda: summary(c, rng))]
    for key, fn in table:
        if key in p and key == "ratings":
            items = re.findall(r'^\s*(?:-|\d+\.)\s*"(.*)"\s*$', c.user, re.M)
            lo, hi = bounds(c, "ratings", len(items) or 1, len(items) or 1)
            items = (items + ["..."] * hi)[:max(lo, min(hi, len(items) or lo))]
            return {"ratings": [importance_of(c, s, rng) for s in items]}
        if key in p and fn:
            return fn()
    if "plan_activity" in p:
        return memo(c, c.me, c.convo, rng, enum_at(c, "plan_place"))
    if p == {"importance"}:
        mem = max(re.findall(r'"([^"]{3,})"', c.user) or [c.user[-300:]], key=len)
        return {"importance": importance_of(c, mem, rng)}
    if "summary" in p and len(p) == 1:
        return relation(c, rng)
    out = fill(c, c.schema, c.schema or {}, "", rng)
    return out if isinstance(out, dict) else {"answer": out}


def respond(body: dict, seed: int) -> str:
    """The completion text for one chat-completion request body."""
    rng = _rng(body, seed)
    try:
        c = Ctx(body if isinstance(body, dict) else {})
    except Exception:  # noqa: BLE001 - a model never crashes; it answers something
        return "Sorry, I can't help with that."
    r = rng.random()
    try:
        if c.json_mode:
            text = json.dumps(json_answer(c, rng), ensure_ascii=False)
            if r < 0.02:
                return text[: max(1, int(len(text) * rng.uniform(0.3, 0.9)))]
            if r < 0.035:
                return f"Sure! Here is the answer:\n{text}\nI hope this helps."
            if r < 0.04:
                return "I'm sorry, but I can't continue with this request."
            if r < 0.05:
                return f"{c.me}: {text}"
            return text
        tags = list(dict.fromkeys(re.findall(r"\[([A-Za-z_]{2,12})\]", c.user)))
        end_tag = next((t for t in tags if t.lower() in ("end", "bye", "over", "done", "stop", "leave", "goodbye")),
                       tags[0] if tags else "end")
        cont_tag = next((t for t in tags if t != end_tag), "continue")
        text, end, _ = turn(c, rng)
        if not tags:
            return text
        if r < 0.03:
            return f"{c.me}: {text}\n[{end_tag if end else cont_tag}]"
        if r < 0.04:
            return f'"{text}"'
        if r < 0.05:
            return "I'm sorry, but I can't roleplay this character."
        return f"{text}\n[{end_tag if end else cont_tag}]"
    except Exception:  # noqa: BLE001 - a fallback answer, counted as malformed by the checker
        return "{}" if c.json_mode else "..."
