"""Blind stand-in model no. 10: a middling instruction-tuned chat model, written from captured requests only.

`respond(body, seed)` returns the text a model would put in `choices[0].message.content`. Standard
library only; deterministic per (body, seed): `random.Random` seeded from the seed and a sha256 of the
messages. It reads meaning, not headings: people are capitalised multi-word names that act in the text
(or a schema enum of speakers); times in any style ("3 pm", "15:00", "half past five", "after work");
places by the schema enum when there is one, else by words; an "event" is a sentence that names a day
(date, weekday, today/tomorrow/tonight) and a time, and is not a schedule line or a person's habits.

Declared rules and rates (fixed before any run, never tuned):
- Malformed answer, p = 0.05 per request: JSON requests get one of truncated JSON, a refusal, prose
  around the JSON, or a fenced block; plain-text turns get the speaker's name in front (2 in 4), the words
  in quotes with no tag (1 in 4), or a refusal (1 in 4).
- Traits (first paragraph, the persona): "warm" words (talkative, sociable, jovial, friendly, nosy...) add
  +0.15 to telling and accepting, "cool" words (quiet, shy, tired, reserved, stubborn...) subtract 0.15.
- Telling: a speaker who knows an event (the most repeated dated, timed sentence naming a person) not yet
  named in the conversation brings it up, p = 0.55 per turn (+trait), never to the event's own host; else
  small talk about what they are doing.
- Hearing of an event or being invited (the other's last line names it): accepts / says it will come when
  its schedule at that time holds only ordinary things (work, meals, chores, leisure, sleep), p = 0.55 (+trait);
  when it holds a real commitment (appointment, meeting, visit, another event), p = 0.2; if it is
  remembered as declining or unable to go, p = 0.1. Otherwise: with a commitment, a decline naming it; else
  a polite "maybe". The host hearing of their own event says it is theirs and asks them to come.
- Ending: never on the opening line; p = 0.1 per turn before 4 lines, 0.35 after; 0.9 when the prompt says
  this is the last line or the speaker must go now (a telling line then still ends).
- Meetings written as a summary: they talk, p = 0.85 if a speaker's memories hold the event, else 0.55;
  2-6 lines (within the schema's maximum) by the telling/accepting/ending rules above.
- Memo of a conversation: importance 5-7 if the event came up, else 2-3. Plan item: one who accepted in the
  lines records going to the event, p = 0.85; one who only heard it without declining, p = 0.3 (schedule
  free) / 0.1 (commitment); a decliner never. Date from the event's date, start and length from its
  times (2 h if only a start), place by word overlap with the enum.
- Day plan: hour blocks from the lifestyle's times (wake, work from-to, bed), meals at 12 and 18. The event,
  when it is today: put in at its time, p = 0.75 if it accepted (or hosts it), 0.35 if it only heard of it,
  0.05 if it declined / cannot go. A "passing on the news" block at a listed place where people are (its
  hours outside work), p = 0.4 (+trait), when it knows an event.
- Any other place field with place-like enum values (re-plans, choices of place): the event's place with the
  day-plan odds above when the event is today, else the place of the current schedule item, else random.
- React: react p = 0.3 when a person named in the observation has no known stance on the event it knows,
  else 0.08; the new activity is talking with that person.
- Importance: loss/love/conflict words 8; dated-and-timed or news/invitation words 6; a conversation 3;
  anything else 2; noise -1/0/0/+1, clamped to 1-10.
- Anything else: a generic schema filler (required fields, enums, types, min/max items, patterns) reading
  the prompt for values; with no schema but a JSON template in the prompt, the template's keys; with no
  schema and a tagged dialogue request, a dialogue line; else one plain sentence. A request asked again
  (short last message after an answer) is answered from the last full prompt.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from typing import Any

P_MALFORMED = 0.05
P_TELL, P_ACCEPT_FREE, P_ACCEPT_BUSY, P_ACCEPT_CANT = 0.55, 0.55, 0.2, 0.1
P_END_LONG, P_END_SHORT, P_END_MUST = 0.35, 0.1, 0.9
P_TALK_NEWS, P_TALK_NONE = 0.85, 0.55
P_PLAN_ACCEPTED, P_PLAN_HEARD_FREE, P_PLAN_HEARD_BUSY = 0.85, 0.3, 0.1
P_DAY_ACCEPTED, P_DAY_HEARD, P_DAY_CANT, P_DAY_TELL = 0.75, 0.35, 0.05, 0.4
P_REACT_NEWS, P_REACT = 0.3, 0.08
TRAIT = 0.15
WARM = ("talkative", "sociable", "jovial", "friendly", "outgoing", "chatty", "nosy", "cheerful", "warm",
        "energetic", "gregarious", "curious", "generous", "kind", "lively")
COOL = ("quiet", "shy", "tired", "reserved", "stubborn", "grumpy", "introvert", "aloof", "gruff", "solitary",
        "private", "cautious")
ORDINARY = ("sleep", "work", "busy", "breakfast", "lunch", "dinner", "supper", "meal", "relax", "rest", "read",
            "chore", "clean", "getting ready", "waking", "seeing people", "walk", "shop", "tend", "bak", "cook",
            "day off", "leisure", "home", "garden", "knit", "brew", "sort")
ACCEPT = re.compile(r"count me in|i'?ll (be there|come|join)|i will (come|be there)|love to|see you there|"
                    r"wouldn'?t miss|i'?m in\b|sounds (lovely|great|fun|good)", re.I)
DECLINE = re.compile(r"can'?t make it|cannot (go|come|make)|can'?t (go|come)|won'?t be able|other plans|"
                     r"not able to|declin", re.I)
MONTHS = "january february march april may june july august september october november december".split()
DAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
NAME = re.compile(r"\b([A-Z][a-z\-]+(?: [A-Z][a-z\-]+)+)\b")
TIME = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b|\b(\d{1,2}):(\d{2})\b|\b(noon|midday|midnight)\b|"
                  r"\b(half past|quarter past|quarter to) (\w+)|\b(\w+) o'?clock", re.I)
VAGUE = (("after work", 18), ("evening", 18), ("tonight", 19), ("sundown", 19), ("sunset", 19),
         ("afternoon", 15), ("lunchtime", 12), ("morning", 10), ("dawn", 6))
NUMW = "one two three four five six seven eight nine ten eleven twelve".split()
SCHED = re.compile(r"^\s*-\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s+(.*)$")
DAYREF = re.compile(r"\b(today|tomorrow|tonight|this (afternoon|evening|morning)|(" + "|".join(DAYS) + r")|(" +
                    "|".join(MONTHS) + r") \d{1,2})\b", re.I)
EMOJI = ["🙂", "☕", "🏠", "🔨", "🍲", "📚"]


def words(s: str, n: int = 5) -> set[str]:
    return set(re.findall("[a-z]{" + str(n) + ",}", s.lower()))


def _hm(m: re.Match[str]) -> int | None:
    """Minutes after midnight for one TIME match."""
    g = m.groups()
    if g[0]:
        return (int(g[0]) % 12 + (12 if g[2].lower() == "p" else 0)) * 60 + int(g[1] or 0)
    if g[3]:
        return int(g[3]) % 24 * 60 + int(g[4]) % 60
    if g[5]:
        return 0 if g[5].lower() == "midnight" else 720
    w = (g[7] or g[8] or "").lower()
    n = NUMW.index(w) + 1 if w in NUMW else int(w) if w.isdigit() and int(w) <= 24 else None
    if n is None:
        return None
    base = {"half past": 30, "quarter past": 15, "quarter to": -15}.get((g[6] or "").lower(), 0)
    return ((n + 12 if n < 8 else n) * 60 + base) % 1440


def times(text: str) -> list[int]:
    out = [t for t in (_hm(m) for m in TIME.finditer(text)) if t is not None]
    return out or [h * 60 for w, h in VAGUE if w in text.lower()][:1]


def fmt(t: int) -> str:
    return f"{t // 60 % 24:02d}:{t % 60:02d}"


def sub_schema(c: Ctx, sch: dict[str, Any]) -> dict[str, Any]:
    return c.defs.get(sch.get("$ref", "#/-").split("/")[-1], sch) if isinstance(sch, dict) else {}


class Ctx:
    """What a reader takes from the prompt: people, self, now, the event, schedules, places, traits."""

    def __init__(self, body: dict[str, Any]) -> None:
        msgs = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        self.system = " ".join(str(m.get("content") or "") for m in msgs if m.get("role") == "system")
        users = [str(m.get("content") or "") for m in msgs if m.get("role") not in ("system", "assistant")]
        self.text, self.last = "\n".join(users), next((u for u in reversed(users) if len(u) > 300), users[-1:] and
                                                       users[-1] or "")
        js = (body.get("response_format") or {}).get("json_schema") or {}
        self.schema = js.get("schema") if isinstance(js, dict) and isinstance(js.get("schema"), dict) else None
        self.defs = (self.schema or {}).get("$defs", {})
        counts: dict[str, int] = {}
        verbs = r"(?=:? ?\"| (?:is|was|told|heard|said|has|wants|chatted|cannot|knows)\b)"
        for m in re.finditer(NAME.pattern + verbs, self.text):
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
        self.people = sorted((n for n in counts if n.split(" ", 1)[1] not in counts and len(n.split()) <= 3),
                             key=lambda n: -counts[n])
        self.me = ([n for n in self.people if n in self.system] + self.people + ["I"])[0]
        self.places = self._places()
        persona = self.text.split("\n\n")[0].lower()
        self.mood = TRAIT * (any(w in persona for w in WARM) - any(w in persona for w in COOL))
        ym = re.search(r"\b((?:19|20)\d\d)\b", self.text + json.dumps(self.schema))
        self.year = int(ym.group(1)) if ym else 2000
        self.now_date, self.now = self._now()
        self.sched = self._schedules()
        self.event, self.event_line = self._event()

    def _places(self) -> list[str]:
        found = re.findall(r"\"([^\"]*:[^\"]*)\"", json.dumps(self.schema)) if self.schema else []
        found = [p for p in found if not p.startswith(("#", "^")) and " " not in p.split(":")[-1][:1]]
        return list(dict.fromkeys(found or re.findall(
            r"(?<![\w:])[A-Z][\w']*(?: [A-Z][\w']*)?(?::[A-Za-z][\w' ]*){1,3}", self.text)))

    def _date(self, s: str) -> tuple[int, int] | None:
        m = re.search(r"(" + "|".join(MONTHS) + r") (\d{1,2})", s, re.I)
        return (MONTHS.index(m.group(1).lower()) + 1, int(m.group(2))) if m else None

    def _now(self) -> tuple[tuple[int, int] | None, int]:
        body = re.sub(r"\[[^\]]*\]", "", self.text)
        for m in re.finditer(r"((?:" + "|".join(MONTHS) + r") \d{1,2})(?:, \d{4})?,? (\d{1,2}:\d{2})", body, re.I):
            return self._date(m.group(1)), times(m.group(2))[0]
        stamps = re.findall(r"\[([^\]]*\d{1,2}:\d{2})\]", self.text)
        return self._date(body) or (self._date(stamps[-1]) if stamps else None), (
            times(stamps[-1])[0] if stamps else 720)

    def _schedules(self) -> dict[str, list[tuple[int, int, str]]]:
        out: dict[str, list[tuple[int, int, str]]] = {}
        owner = self.me
        for line in self.text.splitlines():
            m = SCHED.match(line)
            if not m:
                names = [n for n in self.people if n in line]
                owner = names[0] if names and not line.strip().startswith("-") else owner
                continue
            a, b = int(m.group(1)) * 60 + int(m.group(2)), int(m.group(3)) * 60 + int(m.group(4))
            out.setdefault(owner, []).append((a, b if b > a else 1440, m.group(5)))
        return out

    def _event(self) -> tuple[str, str]:
        """The most repeated sentence naming a person, a day and a time (not a schedule or a habit)."""
        cands: dict[str, list[tuple[str, str]]] = {}
        for raw in re.split(r"\n|(?<=[.!?])\s+(?=[A-Z-])", self.text):
            line = re.sub(r"\[[^\]]*\]", "", raw).strip(" -\"")
            if SCHED.match(raw) or len(TIME.findall(line)) > 3 or re.search(r"wakes? up|goes to bed|plan for", line,
                                                                               re.I):
                continue
            if not (DAYREF.search(line) and (times(line) or re.search(r"afternoon|evening|morning", line, re.I))):
                continue
            core = line
            for m in re.finditer(r":\s+(?=[A-Z][a-z]+ [A-Z])", line):
                core = line[m.end():]
            core = re.split(r";|\" /|\(that is", core)[0].strip(" .\"")
            for m in re.finditer(r"\bthat (?=[A-Z][a-z]+ [A-Z])", core):
                core = core[m.end():]
            if len(core) >= 12 and any(n in core for n in self.people):
                cands.setdefault(core[:40].lower(), []).append((raw, core))
        if not cands:
            return "", ""
        best = max(cands.values(), key=len)
        return max((c for _, c in best), key=len), " ".join(r for r, _ in best)

    def host(self) -> str:
        names = [n for n in self.people if n in self.event]
        return min(names, key=self.event.find) if names else ""

    def event_span(self) -> tuple[int, int]:
        ts = times(self.event) or times(self.event_line)
        return (ts[0] if ts else 1080), (ts[1] - ts[0] if len(ts) >= 2 and ts[1] > ts[0] else 120)

    def event_time(self) -> int | None:
        return self.event_span()[0] if self.event else None

    def event_date(self) -> tuple[int, int] | None:
        d = self._date(self.event) or self._date(self.event_line)
        if d or not self.now_date:
            return d
        return (self.now_date[0], self.now_date[1] + 1) if "tomorrow" in self.event.lower() else self.now_date

    def event_iso(self, allowed: list[str]) -> str:
        d = self.event_date()
        iso = f"{self.year:04d}-{d[0]:02d}-{d[1]:02d}" if d else ""
        return iso if iso in allowed or not allowed else allowed[min(1, len(allowed) - 1)]

    def event_today(self) -> bool:
        return bool(self.event) and self.event_date() == self.now_date

    def event_place(self, choices: list[str] | None = None) -> str:
        ws = words(self.event, 4)
        best = max(choices if choices is not None else self.places, key=lambda p: len(ws & words(p, 4)), default="")
        return best if best and ws & words(best, 4) else ""

    def what(self) -> str:
        """The event in a few words, without the chain of who told whom."""
        return re.split(r", and |; ", self.event)[0][:110]

    def activity(self) -> str:
        rest = re.sub(r"^.*?\b(wants to|plans to|is going to|will|is holding|is having|hosts|invites \w+ to)\s+", "",
                      self.what())
        host = self.host()
        return (f"going to {host}'s event: {rest}" if host and host not in rest else f"going to {rest}")[:110]

    def commitment_at(self, who: str, t: int | None) -> str:
        """The schedule item of `who` at t if it is a real commitment (not work, meals, leisure, the event)."""
        for a, b, act in self.sched.get(who, []) if t is not None else []:
            if a <= t < b:  # type: ignore[operator]
                low = act.lower()
                if any(w in low for w in ORDINARY) and not re.search(r"appointment|meet|going to|visit", low):
                    return ""
                return "" if self.event and words(low) & words(self.event) else act
        return ""

    def stance(self, who: str) -> str:
        """'accepted', 'declined' or '' from what `who` said or is remembered as saying."""
        said = re.findall(re.escape(who) + r": \"([^\"]*)", self.text)
        if any(DECLINE.search(s) for s in said) or re.search(re.escape(who) + r" (cannot|can't) go", self.text):
            return "declined"
        return "accepted" if any(ACCEPT.search(s) for s in said) else ""

    def p_accept(self, who: str) -> float:
        if self.stance(who) == "declined":
            return P_ACCEPT_CANT
        base = P_ACCEPT_BUSY if self.commitment_at(who, self.event_time()) else P_ACCEPT_FREE
        return min(0.95, max(0.02, base + self.mood))


def said_so_far(c: Ctx) -> list[tuple[str, str]]:
    """The request's own exchange: quoted lines after the last bulleted (memory or plan) line."""
    rows = c.last.splitlines()
    start = max((i for i, r in enumerate(rows) if r.lstrip().startswith("- ")), default=-1) + 1
    found = (re.match(r"^([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)+): \"(.*)\"\s*$", r.strip()) for r in rows[start:])
    return [(m.group(1), m.group(2)) for m in found if m]


def line_for(c: Ctx, rng: random.Random, who: str, other: str, lines: list[tuple[str, str]]) -> tuple[str, bool]:
    """One line for `who` and whether it takes leave, by the declared rules."""
    key = words(c.what())
    mentioned = bool(key) and len(key & words(" ".join(t for _, t in lines))) >= max(1, len(key) // 2)
    first = (other.split() or ["there"])[0]
    must = bool(re.search(r"\blast line\b|(has|needs) to (go|leave) now|must (go|leave) now", c.last, re.I))
    end = rng.random() < (P_END_MUST if must else P_END_LONG if len(lines) >= 4 else P_END_SHORT if lines else 0)
    prev = lines[-1] if lines else ("", "")
    if c.event and mentioned and prev[0] not in (who, "") and key & words(prev[1]) and \
            not ACCEPT.search(" ".join(t for s, t in lines if s == who)):
        if who == c.host():
            return f"Yes, that's mine! I do hope you'll come, {first}.", end
        clash = c.commitment_at(who, c.event_time())
        if rng.random() < c.p_accept(who):
            return rng.choice(["That sounds wonderful, I'll be there!", "Oh, lovely. Count me in.",
                               "I'd like that, I'll come along."]), end
        if clash:
            return f"I'm sorry, I can't: I'm {clash.split('(')[0].strip()} then.", end
        return rng.choice(["Maybe, I'll see how the day goes.", "Thanks for telling me, I'll think about it."]), end
    if c.event and not mentioned and (who == c.me or who in c.event_line) and other != c.host() and \
            rng.random() < P_TELL + c.mood:
        when = f" at {fmt(c.event_span()[0])}" if not times(c.what()) else ""
        return f"Have you heard, {first}? {c.what()}{when}. You should come!", end and must
    if end:
        return rng.choice([f"Well, I must get on. See you, {first}!", f"Good talking to you, {first}. Bye for now."]), True
    if not lines:
        return f"Hello {first}, how are you today?", False
    doing = next((x.split("(")[0].strip() for a, b, x in c.sched.get(who, []) if a <= c.now < b), "keeping busy")
    return rng.choice([f"Not bad, {first}. I'm {doing} at the moment.", "It's a fine day for it, isn't it?",
                       "Good to see you. Anything new with you?"]), False


def partner(c: Ctx, lines: list[tuple[str, str]], allowed: list[str] | None = None) -> str:
    """Whom `me` is talking to: the last other speaker, else a person named beside the present time."""
    ok = [n for n in (allowed or c.people) if n != c.me]
    said = [s for s, _ in reversed(lines) if s in ok]
    para = next((p for p in c.last.split("\n\n") if fmt(c.now) in p and not p.lstrip().startswith("-")), "")
    here = [n for n in NAME.findall(para.split(fmt(c.now), 1)[-1]) if n in ok]
    return (said + here + ok + [""])[0]


def turn_text(c: Ctx, rng: random.Random) -> str:
    lines = said_so_far(c)
    text, end = line_for(c, rng, c.me, partner(c, lines), lines)
    tags = re.findall(r"\[([a-z_]+)\]", c.last)
    stop = next((t for t in tags if re.search(r"end|stop|over|bye|leave", t)), "end")
    return f"{text}\n[{stop if end else next((t for t in tags if t != stop), 'continue')}]"


def memo_for(c: Ctx, rng: random.Random, who: str, lines: list[tuple[str, str]], props: dict[str, Any]) -> dict:
    heard = bool(c.event) and any(words(t) & words(c.what()) for _, t in lines)
    said = " ".join(t for s, t in lines if s == who)
    others = sorted({s for s, _ in lines if s != who}) or [n for n in c.people if n != who][:1]
    summ = f"{who} talked with {', '.join(others) or 'someone'}" + (
        f"; news came up that {c.what()}." if heard else " and exchanged a few pleasantries.")
    p = 0.0 if DECLINE.search(said) else P_PLAN_ACCEPTED if ACCEPT.search(said) else \
        P_PLAN_HEARD_BUSY if c.commitment_at(who, c.event_time()) else P_PLAN_HEARD_FREE
    memo: dict[str, Any] = {"summary": summ[:390], "importance": rng.randint(5, 7) if heard else rng.randint(2, 3),
                            "plan_activity": "", "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    if heard and rng.random() < p:
        start, mins = c.event_span()
        dates = [d for d in (props.get("plan_date") or {}).get("enum") or [] if d]
        places = (props.get("plan_place") or {}).get("enum") or c.places
        memo.update(plan_activity=c.activity(), plan_date=c.event_iso(dates), plan_start=fmt(start),
                    plan_minutes=min(600, mins), plan_place=c.event_place(places))
    return {k: v for k, v in memo.items() if k in props or not props}


def importance(text: str, rng: random.Random) -> int:
    low = text.lower()
    base = 8 if re.search(r"died|death|funeral|love|breakup|fight|fire|hurt|married|fired|accident", low) else \
        6 if DAYREF.search(text) and times(text) or re.search(r"invit|party|festival|news|told|heard", low) else \
        3 if re.search(r"conversation|chatt|talk", low) else 2
    return max(1, min(10, base + rng.choice([-1, 0, 0, 1])))


def pick_place(c: Ctx, rng: random.Random, opts: list[str]) -> str:
    """Event place with the day-plan odds when the event is today, else where the schedule has it now."""
    st = c.stance(c.me)
    go = (P_DAY_CANT if st == "declined" else P_DAY_ACCEPTED if st == "accepted" else P_DAY_HEARD) \
        if c.event_today() else 0.0
    if rng.random() < go and c.event_place(opts):
        return c.event_place(opts)
    now = [x for a, b, x in c.sched.get(c.me, []) if a <= c.now < b]
    return next((o for o in opts if now and o and o in now[0]), rng.choice([o for o in opts if o] or opts))


def fill(c: Ctx, rng: random.Random, sch: dict[str, Any], name: str = "") -> Any:
    """A generic value for any schema, read from the prompt where the field's name says what it is."""
    sch = sub_schema(c, sch)
    for k in ("anyOf", "oneOf", "allOf"):
        if sch.get(k):
            return fill(c, rng, ([o for o in sch[k] if o.get("type") != "null"] or sch[k])[0], name)
    if "enum" in sch:
        opts = sch["enum"] or [""]
        if re.search(r"place|address|where|location", name) and any(":" in str(o) for o in opts):
            return pick_place(c, rng, opts)
        return rng.choice([o for o in opts if o not in ("", None)] or opts)
    t = sch.get("type", "string")
    t = t[0] if isinstance(t, list) else t
    if t == "object":
        return {k: fill(c, rng, v, k) for k, v in sch.get("properties", {}).items()}
    if t == "array":
        lo, hi = sch.get("minItems", 1), sch.get("maxItems", max(sch.get("minItems", 1), 3))
        return [fill(c, rng, sch.get("items", {}), name) for _ in range(max(lo, min(hi, 3)))]
    if t in ("integer", "number"):
        lo, hi = sch.get("minimum", 0), sch.get("maximum", max(sch.get("minimum", 0), 10))
        v = importance(c.last, rng) if re.search("import|rating|score", name) else rng.randint(int(lo), int(hi))
        return max(lo, min(hi, v))
    if t == "boolean":
        return rng.random() < 0.5
    pat = sch.get("pattern", "")
    if "[0-5][0-9]" in pat:
        return fmt(c.now)
    if "[0-9]{4}" in pat:
        return f"{c.year:04d}-{(c.now_date or (1, 1))[0]:02d}-{(c.now_date or (1, 1))[1]:02d}"
    if "emoji" in name:
        return rng.choice(EMOJI)
    doing = next((x.split("(")[0].strip() for a, b, x in c.sched.get(c.me, []) if a <= c.now < b), "")
    txt = doing if "activ" in name and doing else f"{c.me} knows that {c.what()}." if c.event else \
        f"{c.me} carries on with the day as planned."
    return txt[: sch.get("maxLength", 200)] or "ok"


def plan_day(c: Ctx, rng: random.Random, sch: dict[str, Any]) -> dict[str, Any]:
    """A day from the lifestyle's hours, with the event and a telling round by the declared odds."""
    props = sch["properties"]
    block = sub_schema(c, props["blocks"].get("items", {})).get("properties", {})
    addr = (block.get("address") or {}).get("enum") or c.places or ["home"]
    last = c.me.lower().split()[-1:]
    home = next((p for p in addr if last and last[0] in p.lower()), None) or \
        next((p for p in addr if re.search(r"home|house|bedroom|cottage|flat", p, re.I)), addr[0])
    persona = words(c.text.split("\n\n")[0].replace(c.what(), ""), 4)
    work = max(addr, key=lambda p: len(words(p.split(":", 1)[-1], 4) & persona) - (p == home))
    life = times(next((ln for ln in c.text.splitlines() if re.search(r"wakes? up|bed", ln, re.I)), ""))
    wake, bed = (life[0] // 60 if life else 7), (life[-1] // 60 if len(life) >= 2 else 22)
    bed = bed + 24 if bed <= wake else bed
    ws, we = (life[1] // 60, life[2] // 60) if len(life) >= 4 else (wake + 2, min(wake + 10, bed - 4))
    go = 0.0
    if c.event_today():
        st = c.stance(c.me)
        go = P_DAY_CANT if st == "declined" else P_DAY_ACCEPTED if st == "accepted" or c.host() == c.me else P_DAY_HEARD
    ev = c.event_span() if rng.random() < go else None
    spots = [(p, times(ln)) for ln in c.text.splitlines() if not SCHED.match(ln) for p in addr if p in ln and
             len(times(ln)) >= 2 and p != home]
    tell = spots[0] if spots and c.event and rng.random() < P_DAY_TELL + c.mood else None
    plan: list[list[Any]] = [[wake, 1, "waking up and getting ready", home], [wake + 1, 1, "having breakfast", home]]
    h = wake + 2
    while h < bed:
        dur = 1
        if ev and ev[0] // 60 == h:
            dur, act, where = max(1, ev[1] // 60), c.activity(), c.event_place(addr) or work
        elif tell and tell[1][0] // 60 <= h < max(tell[1][1] // 60, tell[1][0] // 60 + 1) and not ws <= h < we:
            act, where = "passing on the news to people", tell[0]
        elif h in (12, 18):
            act, where = ("having lunch", work if ws <= 12 < we else home) if h == 12 else ("having dinner", home)
        else:
            act, where = ("working", work) if ws <= h < we else ("relaxing", home)
        if plan[-1][2:] == [act, where]:
            plan[-1][1] += dur
        else:
            plan.append([h, dur, act, where])
        h += dur
    plan.append([bed, max(1, wake + 24 - bed), "sleeping", home])
    mx = (block.get("duration_minutes") or {}).get("maximum", 960)
    blocks = [{"start": fmt(a * 60), "duration_minutes": min(mx, d * 60), "activity": act[:110],
               "emoji": rng.choice(EMOJI), "address": where} for a, d, act, where in plan]
    blocks = blocks[: props["blocks"].get("maxItems", 16)]
    outline = [f"{b['activity']} at {b['start']}" for b in blocks][: props["outline"].get("maxItems", 8)]
    outline += ["getting on with the day"] * (props["outline"].get("minItems", 4) - len(outline))
    return {"wake_up_hour": wake % 24, "outline": outline, "blocks": blocks}


def steps(c: Ctx, rng: random.Random, arr: dict[str, Any]) -> list[dict[str, Any]]:
    objs = [o for o in (sub_schema(c, arr.get("items", {})).get("properties", {}).get("object", {}).get("enum") or [])
            if o]
    verbs = ["getting started", "setting things out", "checking the work", "tidying up", "taking a short break",
             "carrying on", "seeing to a detail", "finishing a task", "cleaning up", "putting things away"]
    out = []
    for i in range(max(arr.get("minItems", 4), min(arr.get("maxItems", 6), 6))):
        o = rng.choice(objs) if objs and rng.random() < 0.6 else ""
        out.append({"activity": verbs[i % len(verbs)] + (f" at the {o}" if o else ""),
                    "duration_minutes": rng.choice([5, 10, 15]), "object": o, "object_state": "in use" if o else ""})
    return out


def group(c: Ctx, rng: random.Random, props: dict[str, Any]) -> dict[str, Any]:
    """Whether people who meet talk, their lines, and what each takes away."""
    line_def = next((d for d in c.defs.values() if "speaker" in d.get("properties", {})), {})
    speakers = line_def.get("properties", {}).get("speaker", {}).get("enum") or c.people[:2] or [c.me]
    news = bool(c.event) and any(s in c.event_line for s in speakers)
    out: dict[str, Any] = {"talk": rng.random() < (P_TALK_NEWS if news else P_TALK_NONE)}
    lines: list[tuple[str, str]] = []
    for i in range(min(props.get("lines", {}).get("maxItems", 6), rng.randint(2, 6)) if out["talk"] else 0):
        text, end = line_for(c, rng, speakers[i % len(speakers)], speakers[(i + 1) % len(speakers)], lines)
        lines.append((speakers[i % len(speakers)], text[:290]))
        if end and len(lines) >= 2:
            break
    out["lines"] = [{"speaker": s, "text": t} for s, t in lines]
    if "memos" in props:
        mdef = next((d for d in c.defs.values() if "name" in d.get("properties", {})), {}).get("properties", {})
        out["memos"] = [dict(memo_for(c, rng, s, lines, mdef), name=s) for s in speakers] if lines else []
    for k, who in (("first", speakers[0]), ("second", speakers[-1])):
        if k in props:
            out[k] = memo_for(c, rng, who, lines, sub_schema(c, props[k]).get("properties", {}))
    return out


def answer(c: Ctx, rng: random.Random, sch: dict[str, Any]) -> Any:
    """The answer for a schema, chosen by what its fields ask for; anything else goes to the filler."""
    props = sch.get("properties", {})
    keys, out = set(props), fill(c, rng, sch)
    if not isinstance(out, dict):
        return out
    others = [p for p in c.people if p != c.me] or ["the neighbours"]
    if "ok" in keys:
        out["ok"] = True
    if "blocks" in keys and "outline" in keys:
        return plan_day(c, rng, sch)
    if "talk" in keys:
        return group(c, rng, props)
    if "blocks" in keys and isinstance(out["blocks"], list) and all(isinstance(b, dict) for b in out["blocks"]):
        enum = (sub_schema(c, props["blocks"].get("items", {})).get("properties", {}).get("address") or {}).get("enum")
        where, t = pick_place(c, rng, enum) if enum else "", c.now
        for b in out["blocks"]:
            b.update({k: v for k, v in (("start", fmt(t)), ("address", where)) if k in b and v})
            if "activity" in b and where and where == c.event_place(enum or []):
                b["activity"] = c.activity()
            t += b.get("duration_minutes", 60) if isinstance(b.get("duration_minutes"), int) else 60
    if "steps" in keys:
        out["steps"] = steps(c, rng, props["steps"])
    if "ratings" in keys:
        items = re.findall(r"^\s*-\s*\"(.*)\"\s*$", c.last, re.M)
        n = max(props["ratings"].get("minItems", len(items)), min(len(items), props["ratings"].get("maxItems", 99)))
        out["ratings"] = [importance(t, rng) for t in (items + [""] * n)[:n]]
    elif "importance" in keys and "summary" not in keys:
        out["importance"] = importance((re.findall(r"\"([^\"]+)\"", c.last) or [c.last])[-1], rng)
    if "utterance" in keys:
        lines = said_so_far(c)
        enum = props.get("addressed_to", {}).get("enum") or others + ["everyone"]
        other = partner(c, lines, [e for e in enum if e != "everyone"]) or enum[0]
        text, end = line_for(c, rng, c.me, other, lines)
        out.update(utterance=text, addressed_to=other if other in enum else enum[0], end_conversation=end)
    if {"summary", "plan_minutes"} <= keys:
        out.update(memo_for(c, rng, c.me, said_so_far(c) or re.findall(r"([A-Z]\w+ [A-Z]\w+): \"([^\"]*)\"", c.last),
                            props))
    if "choice" in keys:
        opts = props["choice"].get("enum") or ["continue", "react"]
        para = next((p for p in c.last.split("\n\n") if fmt(c.now) in p), "")
        seen = [n for q in re.findall(r"\"([^\"]+)\"", para) + [para] for n in NAME.findall(q) if n in others]
        act = rng.random() < (P_REACT_NEWS if c.event and seen and not c.stance(seen[0]) else P_REACT)
        out["choice"] = next((o for o in opts if ("react" in o or "change" in o) == act), opts[0])
        if "reason" in out:
            out["reason"] = f"A chance to talk with {seen[0]}." if act and seen else "Nothing here calls for a change."
        if "new_activity" in out:
            out["new_activity"] = f"talking with {seen[0]}" if act and seen else ""
    if "questions" in keys:
        qs = [f"How does {c.me} feel about {others[0]}?", f"What will {c.me} do about the news that {c.what()}?"
              if c.event else f"Who does {c.me} meet most often?", f"Why does {c.me} keep to the same routine?"]
        out["questions"] = qs[: max(1, min(props["questions"].get("maxItems", 3), 3))]
    if "insights" in keys:
        top = max(int(m) for m in re.findall(r"^(\d+)\. ", c.last, re.M) or ["1"])
        for i, ins in enumerate(out["insights"]):
            ins.update(evidence=sorted(rng.sample(range(1, top + 1), min(top, rng.randint(1, 3)))), about=others[0][:50],
                       insight=[f"{c.me} pays attention to the news that {c.what()}." if c.event else
                                f"{c.me} keeps to a steady daily routine.", f"{c.me} keeps in touch with {others[0]}.",
                                f"{c.me} spends most days at the same places."][i % 3])
    if keys == {"answer"}:
        q = (re.findall(r"\"([^\"]+\?)\"", c.last) or [""])[-1]
        who = next((n for n in NAME.findall(q) if n != c.me), "")
        known = c.text.count(who) > q.count(who) + 1
        out["answer"] = (f"Yes, I know {who}; we've crossed paths around town." if known else
                         f"I can't say I know {who}, to be honest.") if who else \
            f"Well, I've heard that {c.what()}." if c.event else "Nothing much, just my usual day."
    if keys == {"currently"}:
        old = next((ln[ln.index(c.me + " is "):] for ln in c.text.splitlines()
                    if c.me + " is " in ln and not ln.lstrip().startswith("-")), f"{c.me} is going about the day.")
        out["currently"] = (re.split(r"(?<=\.)\s", old)[0] + (f" {c.me} knows that {c.what()}." if c.event else
                                                             ""))[:480]
    if keys == {"summary"}:
        ask = [p for p in c.last.split("\n\n") if "?" in p] or [c.last]
        named = [n for n in NAME.findall(ask[-1]) if n != c.me]
        who = ([n for n in named if n in c.people] + named + others)[0]
        n = c.text.count(who)
        rel = f"someone {c.me} sees often and likes" if n > 5 else "an acquaintance" if n > 3 else \
            f"someone {c.me} does not really know yet"
        out["summary"] = f"{who} is {rel}; {c.me} feels friendly towards them right now."
    return out


def malformed(text: str, rng: random.Random, c: Ctx, is_json: bool) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return "I'm sorry, but I can't help with that request."
    if is_json:
        return [text[: max(1, len(text) * 2 // 3)], f"Sure! Here is the answer:\n{text}\nLet me know if you need more.",
                f"```json\n{text}\n```"][kind - 1]
    said = text.split("\n")[0]
    return f"{c.me}: {said}\n{text.split(chr(10))[-1]}" if kind != 2 else f'"{said}"'


def template(c: Ctx) -> dict[str, Any]:
    """A schema read from an answer template in the prompt ({"key": <int>, ...}) when none is given."""
    props: dict[str, Any] = {}
    for k, v in re.findall(r"\"(\w+)\":\s*(<[^>]*>|\[|true|false|\"|\d+)", c.last):
        props.setdefault(k, {"type": "integer", "minimum": 1, "maximum": 10} if v.startswith("<") or v[0].isdigit()
                         else {"type": "array", "items": {"type": "string"}} if v == "[" else {"type": "boolean"}
                         if v in ("true", "false") else {"type": "string"})
    return {"type": "object", "properties": props}


def respond(body: dict[str, Any], seed: int) -> str:
    """The completion text for one chat request (never raises)."""
    digest = hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True, default=str).encode()).hexdigest()
    rng = random.Random(f"{seed}:{digest}")
    try:
        c = Ctx(body)
        bad = rng.random() < P_MALFORMED
        sch = c.schema or (template(c) if re.search(r"json", c.system + c.last + str(body.get("response_format")),
                                                    re.I) and re.search(r"\{\s*\"\w+\":", c.last) else None)
        if sch:
            text = json.dumps(answer(c, rng, sch), ensure_ascii=False)
            return malformed(text, rng, c, True) if bad else text
        if re.search(r"\[[a-z_]+\]", c.last) or said_so_far(c) or re.search(r"says? next", c.last, re.I):
            text = turn_text(c, rng)
        else:
            text = f"{c.me} would carry on as planned." if not c.event else f"{c.me} has heard that {c.what()}."
        return malformed(text, rng, c, False) if bad else text
    except Exception:  # a real model never crashes; a broken answer is the worst it does
        return "Sorry, I didn't understand the request."
