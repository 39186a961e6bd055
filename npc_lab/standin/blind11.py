"""Blind stand-in model no. 11: written from captured requests alone, rates fixed before any run.

It plays a middling instruction-tuned chat model. It reads people as capitalised name pairs that act
in the text ("X is", "X told", "X:"), times in any style ("5 pm", "17:00", "half past five", "after
work", "this afternoon"), dates ("May 3", "tomorrow", "Tuesday", ISO), places by the schema's
enum (word overlap), else by words. It never keys on a heading: the task is read from the schema's
field names and shapes (or from the JSON example in the prompt, or plain text when none is given).

Declared rules (chosen before running anything; traits shift each rate: sociable-type trait +0.1,
reserved-type trait -0.1, at most once each way):
- Tell news: a dated/timed event the speaker has "on their mind" (a sentence naming news/telling/
  sharing) that has not yet come up in this conversation: brought up p = 0.75 per turn; an upcoming
  event only found among memories (not flagged): p = 0.3 per turn. Never repeated once it came up.
- Answer to an event someone mentions (invitation or passed-on news): means to go / accepts when the
  plan at that time is free or only ordinary (work, meals, leisure) p = 0.6; when the plan holds a
  real commitment (another person, a visit, an appointment, another event) p = 0.2; at a time the
  speaker sleeps or already past p = 0.03; already planning to go p = 0.9. Else declines politely.
  The host of the event welcomes people (no accept/decline).
- After telling news, the teller answers the reply ("see you there" / "a shame"), ending p = 0.5.
- Ending a conversation: after a goodbye p = 0.9; after two own lines of small talk: always; else
  p = 0.15 + 0.12 per line already said (max 0.8). Memories count as news only when they involve
  someone else or a gathering, never one's own routine or plan bookkeeping.
- Stop to talk (conversation summaries): someone present has news p = 0.9; they know each other
  (names in each other's memories) p = 0.55; strangers p = 0.3.
- Conversation memo: plan item for the event when the person accepted / said they will go p = 0.85;
  heard news only, free then p = 0.25, committed then p = 0.05; declined or hosting: none (p = 0.97).
- Day plan: own hosted event today scheduled p = 0.9; event they accepted/means to go p = 0.75; event
  only heard of p = 0.3 if free; where the prompt lists places with people to tell, a block there in
  free time p = 0.5; a weekend day is a day off p = 0.5. A plan schema without a wake-up hour is a
  re-plan: the same day cut to the next 2-3 hours from now.
- React: untold news for the person seen p = 0.65 talk; news but not for them 0.35; otherwise
  talk 0.15 (0.08 if no memory of them); wait 0.05; react (drop plan) when an event they mean to go
  to or host starts within the hour p = 0.4, else 0.04; otherwise continue.
- Importance: routine 1-2, small talk 2-3, news of an event 5-6, own event 7-8, life events 8-9,
  plus noise -1/0/+1. Interview: tells the best-matching memory p = 0.85, else says it doesn't know.
- Status rewrite: adds an event the person means to go to p = 0.8; only heard of p = 0.4.
- Malformed answers, p = 0.05 per answer: truncated JSON (40%), prose around the JSON (25%), a
  refusal (15%), the speaker's name in front (20%); plain-text turns: name in front, refusal,
  missing tag, or quoted line. Text longer than 4 characters per max_tokens is cut there.
Standard library only; deterministic for (body, seed).
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import re
from typing import Any

MALFORMED = 0.05
WEEK = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december"]
NUM = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven "
                                  "twelve".split())}
PARTS = {"morning": 540, "noon": 720, "midday": 720, "lunchtime": 720, "afternoon": 840,
         "after work": 1050, "evening": 1080, "tonight": 1140, "sundown": 1140, "sunset": 1140,
         "dusk": 1140, "dawn": 360, "sunrise": 360}
UP = ("sociable", "outgoing", "friendly", "energetic", "talkative", "jovial", "generous", "curious",
      "cheerful", "warm", "lively", "kind")
DOWN = ("shy", "quiet", "tired", "reserved", "grumpy", "stubborn", "introvert", "lazy", "aloof")
STOP = set("that this with from have been will they their them about what when where there which "
           "would could should today tomorrow afternoon evening morning tonight everyone heard told "
           "wants means friends people other going said learned cannot come along watch".split())
ACCEPT = re.compile(r"count me in|i'?ll (be there|come|go|join|drop)|i will (come|go|be there|join)|"
                    r"i'?d love to|wouldn'?t miss|see you there|i'?m in\b|i'?ll try to make it|"
                    r"i might (go|come|drop)|means? to go|i'?m (already )?(planning|going) to go", re.I)
DECLINE = re.compile(r"can'?t (make|come|go)|cannot (make|come|go|go)|won'?t be able|not able to|"
                     r"other plans|afraid i|no,? thank|don'?t think i'?ll|cannot go|can'?t go", re.I)
SYN = [["duration_minutes", "minutes", "duration", "length"], ["activity", "what", "task", "action"],
       ["address", "where", "place", "location"], ["start", "time", "begin", "at"],
       ["utterance", "text", "line", "say", "words"], ["choice", "decision", "option"]]
LEAD = set("what where when how who why whom places things today yesterday has have did do does is are was "
           "ask tell name then and but so if someone because should let from with about at on in for to "
           "the a an this that it its your you we our they he she his her".split())
BYE = re.compile(r"\b(bye|goodbye|see you around|take care|good to talk|must be off|have to go)\b", re.I)
NAME_RE = re.compile(r"\b([A-Z][a-z]+(?:[-'][A-Za-z]+)?(?: [A-Z][a-z]+(?:[-'][A-Za-z]+)?){1,2})")
ACTS = r"(?= (?:is|was|told|has|had|heard|said|wants|means|learned|chatted|knows|keeps|runs|will|" \
       r"cannot|can't|invites|asks|plans|teaches|works)\b|'s |: )"


def respond(body: dict, seed: int) -> str:
    """The completion text for one chat request; never raises."""
    msgs = body.get("messages") or []
    digest = hashlib.sha256(json.dumps(msgs, sort_keys=True, default=str).encode()).hexdigest()
    rng = random.Random(f"{seed}:{digest}")
    schema = _schema(body)
    try:
        ctx = Ctx(msgs)
        if schema is None and re.search(r'\{\s*"\w+"\s*:', ctx.task):
            schema = _schema_from_example(ctx.task)
        out = _answer(ctx, schema, rng)
    except Exception:  # a stand-in must answer something, as a model always does
        out = json.dumps(conform(None, schema or {}, "", None, rng)) if schema else "Hmm, I see."
    if rng.random() < MALFORMED:
        out = _malform(out, schema is not None, rng, _safe_self(msgs))
    limit = 4 * int(body.get("max_tokens") or 4000)
    return out[:limit]


# ---------------------------------------------------------------- reading the prompt
def _content(m: dict) -> str:
    c = m.get("content") or ""
    if isinstance(c, list):
        return "\n".join(p.get("text", "") for p in c if isinstance(p, dict))
    return str(c)


def _safe_self(msgs: list) -> str:
    try:
        return Ctx(msgs).me
    except Exception:
        return ""


def parse_times(s: str) -> list[int]:
    """Clock times in order of appearance, as minutes after midnight."""
    out = []
    for m in re.finditer(r"\b(\d{1,2}):(\d{2})\s*([ap]\.?m\b\.?)?|\b(\d{1,2})\s*([ap]\.?m\b\.?)|"
                         r"\b(noon|midday|midnight)\b|\b(half past|quarter past|quarter to) (\w+)|"
                         r"\b(\w+) o'clock", s, re.I):
        g = m.groups()
        if g[0]:
            h, mi, ap = int(g[0]), int(g[1]), (g[2] or "").lower()
        elif g[3]:
            h, mi, ap = int(g[3]), 0, g[4].lower()
        elif g[5]:
            out.append(1440 if g[5].lower() == "midnight" else 720)
            continue
        else:
            word = (g[7] or g[8] or "").lower()
            h = NUM.get(word, int(word) if word.isdigit() else -1)
            if h < 0:
                continue
            mi = {"half past": 30, "quarter past": 15, "quarter to": -15}.get((g[6] or "").lower(), 0)
            ap = "pm" if h < 7 else ""
        if ap.startswith("p") and h < 12:
            h += 12
        if ap.startswith("a") and h == 12:
            h = 0
        if h <= 24:
            out.append(h * 60 + mi)
    if not out:
        low = s.lower()
        out = [v for k, v in PARTS.items() if re.search(r"\b" + k + r"\b", low)][:1]
    return out


def day_offset(s: str, today: dt.date | None) -> int | None:
    low = s.lower()
    if re.search(r"\b(today|tonight|this (morning|afternoon|evening))\b", low):
        return 0
    if "day after tomorrow" in low:
        return 2
    if "tomorrow" in low:
        return 1
    if today is None:
        return None
    m = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", s)
    if m:
        return (dt.date(*map(int, m.groups())) - today).days
    m = re.search(r"\b(" + "|".join(MONTHS) + r")\s+(\d{1,2})\b|\b(\d{1,2})(?:st|nd|rd|th)?\s+(of\s+)?("
                  + "|".join(MONTHS) + r")\b", low)
    if m:
        mon = MONTHS.index(m.group(1) or m.group(5)) + 1
        day = int(m.group(2) or m.group(3))
        try:
            return (dt.date(today.year, mon, day) - today).days
        except ValueError:
            return None
    for i, w in enumerate(WEEK):
        if re.search(r"\b" + w + r"\b", low):
            return (i - today.weekday()) % 7
    return None


def _date_of(s: str) -> dt.date | None:
    m = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", s)
    if m:
        return dt.date(*map(int, m.groups()))
    low = s.lower()
    m = re.search(r"\b(" + "|".join(MONTHS) + r")\s+(\d{1,2})\b(?:,?\s*(\d{4}))?|\b(\d{1,2})\s+("
                  + "|".join(MONTHS) + r")\b(?:\s+(\d{4}))?", low)
    if not m:
        return None
    mon = MONTHS.index(m.group(1) or m.group(5)) + 1
    year = int(m.group(3) or m.group(6) or 2026)
    try:
        return dt.date(year, mon, int(m.group(2) or m.group(4)))
    except ValueError:
        return None


def hhmm(t: int) -> str:
    t %= 1440
    return f"{t // 60:02d}:{t % 60:02d}"


def say_time(t: int, rng: random.Random) -> str:
    if rng.random() < 0.5:
        return hhmm(t)
    h, mi = (t // 60) % 24, t % 60
    return f"{(h - 1) % 12 + 1}{f':{mi:02d}' if mi else ''} {'pm' if h >= 12 else 'am'}"


def words(s: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]{4,}", s.lower()) if w not in STOP}


def best_enum(text: str, options: list, default: Any = None) -> Any:
    """The enum value sharing most words with text (the last segment of an address counts double)."""
    tw, best, score = words(text), default, 0
    for o in options:
        if not isinstance(o, str) or not o:
            continue
        segs = re.split(r"[:/]", o)
        sc = len(words(" ".join(segs[1:] or segs)) & tw) + len(words(segs[-1]) & tw)
        if sc > score:
            best, score = o, sc
    return best


class Ctx:
    """What the request shows: people, their sections (plan, memories, news), time and places."""

    def __init__(self, msgs: list):
        self.sys = "\n".join(_content(m) for m in msgs if m.get("role") == "system")
        users = [_content(m) for m in msgs if m.get("role") == "user"]
        self.task = users[-1] if users else ""
        self.text = "\n".join(users)
        self.lines = self.task.splitlines()
        cue = re.compile(NAME_RE.pattern + ACTS)
        bad = set(WEEK) | set(MONTHS) | {"have", "sounds", "sorry", "answer", "name", "it", "the"}
        counts: dict[str, int] = {}
        for m in cue.finditer(self.text + "\n" + self.sys):
            n = m.group(1)
            while n.split(" ")[0].lower() in LEAD and n.count(" ") > 1:
                n = n.split(" ", 1)[1]
            if not (set(n.lower().split()) & bad) and n.split(" ")[0].lower() not in LEAD:
                counts[n] = counts.get(n, 0) + 1
        for n in [n for n in counts if n.count(" ") == 2 and n.split(" ", 1)[1] in counts]:
            counts[n.split(" ", 1)[1]] += counts.pop(n)
        self.people = sorted(counts, key=lambda n: -counts[n])
        sys_names = [n for n in NAME_RE.findall(self.sys) if n in counts]
        named = re.search(r"(?im)^\s*name\s*[:\-]\s*([A-Z][\w' -]+?)\s*$", self.task)
        self.me = (sys_names or ([named.group(1)] if named else []) or self.people or ["I"])[0]
        self.today, self.now = None, None
        for ln in self.lines:
            if ln.lstrip().startswith("-") or ":" in ln[:15] and not re.match(r"\s*(it|today)", ln, re.I):
                continue
            d = _date_of(ln)
            if d:
                self.today = d
                ts = parse_times(re.sub(r"\b\d{4}\b|\b\d{1,2}(?:st|nd|rd|th)?\s+(of\s+)?[A-Z][a-z]+|[A-Z][a-z]+ \d{1,2}\b",
                                        "", ln))
                self.now = ts[0] if ts else None
                break
        self.sections: dict[str, dict] = {}
        owner = self.me
        for ln in self.lines:
            s = ln.strip()
            if not s:
                continue
            if not s.startswith("-") and not re.match(NAME_RE.pattern + r': "', s):
                found = [n for n in self.people if n in s]
                if found:
                    owner = min(found, key=s.index)
            sec = self.sections.setdefault(owner, {"plan": [], "mem": [], "news": "", "lines": []})
            sec["lines"].append(s)
            m = re.match(r"-?\s*(\d{1,2}:\d{2})\s*[-–]\s*(\d{1,2}:\d{2})\s+(.*)", s)
            if m:
                a, b = parse_times(m.group(1))[0], parse_times(m.group(2))[0]
                sec["plan"].append((a, b if b > a else b + 1440, m.group(3)))
            elif s.startswith("-"):
                sec["mem"].append(s)
            if not sec.get("flag") and not re.match(r"-\s*\[", s) and owner in s:
                for sent in re.split(r"(?<=[.!])\s+(?=[A-Z])", s):
                    m = re.search(r"\b(news|tell|pass on|share|spread)\b[^:]*?(?::|\bthat\b)\s*", sent, re.I)
                    if m and parse_times(sent[m.end():]) and (not sec["news"] or "news" in m.group(1)):
                        sec["news"], sec["flag"] = sent[m.end():], "news" in m.group(1).lower()
                        break
        self.places = sorted(set(re.findall(r"\b[A-Z][\w']*(?: [\w']+){0,3}(?::[\w'](?:[\w' ]{0,30}[\w'])?){2}",
                                            self.text)))

    def sec(self, who: str) -> dict:
        return self.sections.get(who) or {"plan": [], "mem": [], "news": "", "lines": []}

    def traits(self, who: str) -> float:
        txt = " ".join(l for l in self.sec(who)["lines"][:8] if not l.startswith("-")).lower()
        return 0.1 * (any(w in txt for w in UP)) - 0.1 * (any(w in txt for w in DOWN))

    def doing(self, who: str) -> str:
        for ln in self.sec(who)["lines"] + self.lines:
            m = re.search(re.escape(who) + r" (?:is|was) ([a-z]+ing\b[^.(\n;:]{0,50})", ln)
            if m and not ln.startswith("- ["):
                return m.group(1).strip()
        return "getting on with things"

    def event(self, s: str, teller: str = "") -> dict | None:
        """An event a sentence speaks of: what, host, day offset, start/end, place."""
        s = re.sub(r"^\s*-?\s*\[[^\]]*\]\s*", "", s)
        core = s
        while True:
            m = re.match(r"\s*[^:\"]{0,80}\b(told|heard|said|learned|mentioned|news)\b[^:\"]{0,60}:\s*|"
                         r"\s*[^.?!:]{0,30}[?!]\s+|[^:\"]{0,80}\b(tell|share|pass on|spread)\b[^:\"]{0,40}?\bthat\s+", core)
            if not m:
                break
            core = core[m.end():]
        times = parse_times(s)
        if not times:
            return None
        off = day_offset(s, self.today)
        what = re.split(r"\(|;|, and |\. ", core)[0].strip(" .")
        what = re.split(r"\s+(?:on|at|from|this|tomorrow|today|tonight)\b(?=\s*(?:\d|[A-Z][a-z]+ \d|"
                        r"afternoon|morning|evening|\w+day)|$)", what)[0].strip(" ,.") or what
        host = next((n for n in self.people if what.startswith(n)), teller or "")
        return {"what": what, "host": host, "day": 0 if off is None else off, "start": times[0],
                "end": times[1] if len(times) > 1 and times[1] > times[0] else times[0] + 120,
                "place": best_enum(core, self.places, ""), "keys": words(what) - words(host)}


# ---------------------------------------------------------------- decisions
def _clash(ctx: Ctx, who: str, ev: dict) -> str:
    """'same' (already going), 'sleep', 'commit' (a real commitment), or 'free'."""
    if ev["day"] != 0:
        return "free"
    if ctx.now is not None and ev["end"] <= ctx.now:
        return "sleep"
    kind = "free"
    for a, b, act in ctx.sec(who)["plan"]:
        if a < ev["end"] and ev["start"] < b:
            low = act.lower()
            if len(words(act) & ev["keys"]) >= 2:
                return "same"
            if "sleep" in low:
                kind = "sleep"
            elif any(n in act for n in ctx.people) or re.search(
                    r"\b(meet|appointment|visit|calling on|going to|event|party|lesson|rehears)", low):
                kind = "commit"
    return kind


def p_go(ctx: Ctx, who: str, ev: dict) -> float:
    base = {"same": 0.9, "sleep": 0.03, "commit": 0.2, "free": 0.6}[_clash(ctx, who, ev)]
    return max(0.0, min(1.0, base + ctx.traits(who)))


def my_news(ctx: Ctx, who: str) -> tuple[dict | None, float]:
    sec = ctx.sec(who)
    if sec["news"]:
        ev = ctx.event(sec["news"])
        if ev and ev["day"] >= 0:
            return ev, 0.75
    for m in reversed(sec["mem"]):
        ev = ctx.event(m) if eventish(ctx, who, m) else None
        if ev and (ev["day"] > 0 or ev["day"] == 0 and ctx.now is not None and ev["start"] > ctx.now) \
                and ev["keys"]:
            return ev, 0.3
    return None, 0.0


def eventish(ctx: Ctx, who: str, m: str) -> bool:
    """A memory about something happening (news), not one's own routine or plan bookkeeping."""
    body = re.sub(r"^\s*-?\s*\[[^\]]*\]\s*", "", m)
    if re.match(re.escape(who) + r"('s plan| is (sleeping|having|waking|relaxing|busy))", body):
        return False
    return any(n in body for n in ctx.people if n != who) or bool(
        re.search(r"invit|party|wants to|will hold|hosting|gathering|celebrat", body, re.I))


def came_up(ev: dict, convo: list) -> bool:
    said = words(" ".join(t for _, t in convo))
    return len(ev["keys"] & said) >= min(2, len(ev["keys"]))


def when(ev: dict, rng: random.Random) -> str:
    day = {0: "today", 1: "tomorrow"}.get(ev["day"], "in a few days")
    return f"{day} at {say_time(ev['start'], rng)}"


def tell_line(ev: dict, me: str, rng: random.Random) -> str:
    what = ev["what"]
    if what.startswith(me):
        what = "I" + what[len(me):].replace(" wants ", " want ").replace(" is ", " am ")
        return f"{what}, {when(ev, rng)} - do come along!"
    return rng.choice(["Have you heard? ", "Did you hear? ", "News: "]) + f"{what}, {when(ev, rng)}."


def next_line(ctx: Ctx, me: str, convo: list, rng: random.Random) -> tuple[str, bool, str]:
    """(words, ends, addressed speaker or '') for me's next line in a conversation."""
    last_who, last = convo[-1] if convo else ("", "")
    others = [n for n in ctx.people if n != me]
    if last_who and last_who != me and not ACCEPT.search(last) and not DECLINE.search(last):
        ev = ctx.event(last, last_who)
        if ev:
            known, _ = my_news(ctx, me)
            if known and len(known["keys"] & ev["keys"]) >= 2:
                ev = dict(ev, host=known["host"] or ev["host"], start=known["start"], end=known["end"])
            if ev["host"] == me:
                return (f"Yes, it's mine! Do come, {when(ev, rng)}.", rng.random() < 0.3, last_who)
            if rng.random() < p_go(ctx, me, ev):
                return (rng.choice(["That sounds lovely, I'll be there", "Count me in",
                                    "Oh nice, I'll come along"]) + f", {when(ev, rng)}!",
                        rng.random() < 0.3, last_who)
            if _clash(ctx, me, ev) == "free":
                return "Thanks for telling me, but I don't think I'll go.", rng.random() < 0.4, last_who
            return (f"Sorry, I can't make it then: I'm {_busy_with(ctx, me, ev)}.",
                    rng.random() < 0.4, last_who)
    if last_who and last_who != me and len(convo) >= 2 and convo[-2][0] == me \
            and not ACCEPT.search(convo[-2][1]) and not DECLINE.search(convo[-2][1]):
        if DECLINE.search(last):
            return "Oh, that's a shame. Another time, then!", rng.random() < 0.5, last_who
        if ACCEPT.search(last):
            return "Wonderful, see you there!", rng.random() < 0.5, last_who
    ev, p = my_news(ctx, me)
    if ev and not came_up(ev, convo) and rng.random() < min(1.0, p + ctx.traits(me)):
        return tell_line(ev, me, rng), False, ""
    mine = sum(1 for w, _ in convo if w == me)
    if convo and (BYE.search(last) and rng.random() < 0.9 or mine >= 2 or
                  rng.random() < min(0.8, 0.15 + 0.12 * len(convo)) and mine):
        first = (last_who or (others[0] if others else "")).split(" ")[0]
        return f"It was good to talk, {first}. See you around!", True, last_who
    if not convo:
        first = others[0].split(" ")[0] if others else "there"
        return f"Hi {first}! How are you doing?", False, ""
    if mine:
        return rng.choice(["Anyway, it's good to see you.", "Lovely weather for it, isn't it?"]), False, last_who
    return f"Not bad, thanks. I've been {ctx.doing(me)}.", False, last_who


def _busy_with(ctx: Ctx, me: str, ev: dict) -> str:
    for a, b, act in ctx.sec(me)["plan"]:
        if a < ev["end"] and ev["start"] < b:
            return re.sub(r"\s*\(.*", "", act)
    return "busy"


def parse_convo(ctx: Ctx) -> list:
    out = []
    for ln in ctx.lines:
        s = ln.strip()
        if s.startswith("-") or not s:
            continue
        for part in re.split(r" / (?=[A-Z][a-z]+ [A-Z][a-z]+: )", s):
            m = re.match(NAME_RE.pattern + r':\s+"?(.*?)"?\s*$', part)
            if m and m.group(1) in ctx.people and m.group(2):
                out.append((m.group(1), m.group(2)))
    return out


def importance(s: str, ctx: Ctx, rng: random.Random) -> int:
    low = s.lower()
    if re.search(r"\b(died|death|funeral|fire|accident|married|engaged|pregnant|fired|broke up|"
                 r"hospital|injured|born)\b", low):
        v = 8
    elif ctx.event(s) and re.search(r"\b(wants|hold|host|invit|come|join|told|heard|news|plan|spoke|would go)", low):
        v = 7 if s.lstrip("- ").startswith(ctx.me) and "told" not in low else 5
    elif re.search(r"\b(chat|talk|conversation|said)", low):
        v = 3
    else:
        v = 2 if not re.search(r"\b(sleep|breakfast|lunch|dinner|relax|waking|getting ready)", low) else 1
    return max(1, min(10, v + rng.choice([-1, 0, 0, 1])))


def memo(ctx: Ctx, me: str, convo: list, rng: random.Random) -> dict:
    others = sorted({w for w, _ in convo if w != me}) or [n for n in ctx.people if n != me][:1]
    ev, teller = None, ""
    joined = " ".join(t for _, t in convo)
    for w, t in convo:
        if BYE.search(t) or ACCEPT.search(t) or DECLINE.search(t) or len(words(t)) < 3:
            continue
        ev = ctx.event(t, w) or ctx.event(f"{t} ({joined})", w)
        if ev:
            teller = w
            for k in {x for x, _ in convo}:
                known = my_news(ctx, k)[0]
                if known and len(known["keys"] & ev["keys"]) >= 2:
                    ev = dict(known, host=known["host"] or ev["host"])
                    break
            break
    mine = " ".join(t for w, t in convo if w == me)
    summ = f"{me} talked with {' and '.join(others) or 'someone'}"
    plan = False
    if ev:
        summ += f"; {'they' if teller == me else teller} spoke of {ev['what']} ({when(ev, rng)})"
        if ev["host"] == me or DECLINE.search(mine):
            plan = rng.random() < 0.03
        elif ACCEPT.search(mine):
            plan = rng.random() < 0.85
            summ += f", and {me} said they would go"
        else:
            plan = rng.random() < (0.25 if _clash(ctx, me, ev) in ("free", "same") else 0.05)
    out = {"summary": summ + ".", "importance": importance(summ, ctx, rng), "plan_activity": "",
           "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    if plan and ev:
        date = (ctx.today + dt.timedelta(days=ev["day"])).isoformat() if ctx.today else ""
        out.update(plan_activity=f"going to {ev['what']}"[:110], plan_date=date,
                   plan_start=hhmm(ev["start"]), plan_minutes=max(30, min(600, ev["end"] - ev["start"])),
                   plan_place=ev["place"])
    return out


# ---------------------------------------------------------------- answering by what is asked
def _answer(ctx: Ctx, schema: dict | None, rng: random.Random) -> str:
    if schema is None:
        return _plain_turn(ctx, rng)
    props = set(_props(schema, schema))
    places = sorted({e for e in _all_enums(schema) if isinstance(e, str) and ":" in e})
    ctx.places = places or ctx.places
    value: Any = None
    if props & {"utterance", "addressed_to", "line", "say"}:
        value = _group_turn(ctx, schema, rng)
    elif "talk" in props or "lines" in props:
        value = _gist(ctx, schema, rng)
    elif "choice" in props or "decision" in props:
        value = _react(ctx, schema, rng)
    elif {"blocks", "schedule"} & props:
        value = _day(ctx, schema, rng)
    elif "steps" in props:
        value = _steps(ctx, schema, rng)
    elif "insights" in props:
        value = _insights(ctx, schema, rng)
    elif "questions" in props:
        value = {"questions": _questions(ctx, rng)}
    elif "ratings" in props:
        mems = [m.group(1) for m in re.finditer(r'^\s*[-*\d.]+\s*"(.*)"\s*$', ctx.task, re.M)]
        value = {"ratings": [importance(m, ctx, rng) for m in mems]}
    elif "plan_activity" in props or "plan_start" in props:
        value = memo(ctx, ctx.me, parse_convo(ctx), rng)
    elif "importance" in props and len(props) == 1:
        q = re.findall(r'"([^"]{8,})"', ctx.task)
        value = {"importance": importance(q[-1] if q else ctx.task[-300:], ctx, rng)}
    elif props & {"currently", "status"}:
        value = {k: _status(ctx, rng) for k in props & {"currently", "status"}}
    elif "summary" in props and len(props) == 1:
        value = {"summary": _relation(ctx, rng)}
    elif props & {"answer", "reply", "response"}:
        value = {k: _interview(ctx, rng) for k in props & {"answer", "reply", "response"}}
    elif props == {"ok"}:
        value = {"ok": True}
    return json.dumps(conform(value, schema, "", ctx, rng), ensure_ascii=False)


def _plain_turn(ctx: Ctx, rng: random.Random) -> str:
    convo = parse_convo(ctx)
    text, ends, _ = next_line(ctx, ctx.me, convo, rng)
    tags = re.findall(r"\[(\w+)\]", ctx.task)
    if not tags:
        return text
    end = next((t for t in tags if re.match(r"end|done|over|stop|bye|leave|finish", t, re.I)), tags[0])
    cont = next((t for t in tags if t != end), end)
    return f"{text}\n[{end if ends else cont}]"


def _group_turn(ctx: Ctx, schema: dict, rng: random.Random) -> dict:
    convo = parse_convo(ctx)
    text, ends, to = next_line(ctx, ctx.me, convo, rng)
    opts = _enum_of(schema, "addressed_to") or []
    to = to if to in opts else ("everyone" if "everyone" in opts else (opts[0] if opts else "everyone"))
    return {"utterance": text, "addressed_to": to, "end_conversation": ends}


def _gist(ctx: Ctx, schema: dict, rng: random.Random) -> dict:
    who = _enum_of(schema, "speaker") or [n for n in ctx.people if n in ctx.sections][:2]
    who = [w for w in who if w]
    if not who:
        return {"talk": False, "lines": []}
    news = any(my_news(ctx, w)[0] for w in who)
    know = any(o.split(" ")[0] in " ".join(ctx.sec(w)["mem"]) for w in who for o in who if o != w)
    if not rng.random() < (0.9 if news else 0.55 if know else 0.3):
        return {"talk": False, "lines": []}
    cap = _max_items(schema, "lines") or 6
    convo: list = []
    i = 0
    while len(convo) < cap:
        me = who[i % len(who)]
        text, ends, _ = next_line(ctx, me, convo, rng)
        convo.append((me, text))
        i += 1
        if ends and len(convo) >= 2:
            break
    out: dict = {"talk": True, "lines": [{"speaker": w, "text": t} for w, t in convo]}
    props = _props(schema, schema)
    if "memos" in props:
        out["memos"] = [dict(memo(ctx, w, convo, rng), name=w) for w in who]
    else:
        for key, w in zip(("first", "second"), who, strict=False):
            out[key] = memo(ctx, w, convo, rng)
    return out


def _react(ctx: Ctx, schema: dict, rng: random.Random) -> dict:
    key = "choice" if "choice" in _props(schema, schema) else "decision"
    opts = _enum_of(schema, key) or ["continue"]
    plain = " ".join(ln for ln in ctx.lines if not ln.strip().startswith("-"))
    seen = max([n for n in ctx.people if n != ctx.me], key=plain.count, default="")
    news, _ = my_news(ctx, ctx.me)
    untold = news and any(seen in ln and re.search(r"\bnot\b|\byet\b", ln) for ln in ctx.lines
                          if "news" in ln.lower() or "tell" in ln.lower())
    known = sum(seen in m for m in ctx.sec(ctx.me)["mem"]) > 1
    p_talk = 0.65 if untold else 0.35 if news else 0.15 if known else 0.08
    soon = news and news["day"] == 0 and ctx.now is not None and 0 <= news["start"] - ctx.now <= 60 \
        and (news["host"] == ctx.me or _clash(ctx, ctx.me, news) == "same")
    r = rng.random()
    pick, act, why = "continue", "", "Nothing here calls for a change of plan."
    if "talk" in opts and r < p_talk:
        pick, why = "talk", f"I'd like a word with {seen or 'them'}."
        act = f"talking with {seen}" if seen else ""
    elif "wait" in opts and r < p_talk + 0.05:
        pick, why = "wait", f"I'll wait until {seen or 'they'} are free."
    elif "react" in opts and rng.random() < (0.4 if soon else 0.04):
        pick, why = "react", "Something more pressing has come up."
        act = f"going to {news['what']}" if soon and news else f"seeing what {seen or 'is'} going on"
    if pick not in opts:
        pick = "continue" if "continue" in opts else opts[0]
    return {key: pick, "reason": why, "new_activity": act[:110]}


def _day(ctx: Ctx, schema: dict, rng: random.Random) -> dict:
    me, places = ctx.me, _enum_of(schema, "address") or ctx.places or ["home"]
    persona = " ".join(l for l in ctx.sec(me)["lines"][:8] if not l.startswith("-"))
    wake = next((t for s in re.findall(r"(?:wake|wakes|up|rise)[^,.;]*", persona) for t in parse_times(s)), 420)
    bed = next((t for s in re.findall(r"(?:bed|sleep)[^,.;]*", persona) for t in parse_times(s)), 1320)
    bed = bed if bed > wake + 360 else bed + 1440 if bed + 1440 > wake + 360 else wake + 960
    sur = me.split(" ")[-1].lower()
    home = next((p for p in places if sur in p.lower()), None) or best_enum("home house bedroom", places,
                                                                             places[0])
    rng_work = re.search(r"from ([^,;]*?) to ([^,;]*?)(?:,| and|$)", persona)
    ws, we = ((parse_times(rng_work.group(1)) + [540])[0], (parse_times(rng_work.group(2)) + [1020])[0]) \
        if rng_work else (540, 1020)
    work = best_enum(persona, [p for p in places if p != home], home)
    off = ctx.today is not None and ctx.today.weekday() >= 5 and rng.random() < 0.5
    slots = [(wake, wake + 30, "waking up and getting ready", home, "🌅"),
             (wake + 30, max(wake + 60, min(ws, wake + 90)), "having breakfast", home, "🍳")]
    t = slots[-1][1]
    day_act = ("relaxing on a day off", home, "🛋") if off else ("working", work, "💼")
    if t < 720:
        slots.append((t, 720, *day_act))
    slots.append((max(t, 720), max(t, 720) + 60, "having lunch", work if not off else home, "🥪"))
    t = slots[-1][1]
    if t < max(we, t + 60):
        slots.append((t, max(we, t + 60), *day_act))
    t = slots[-1][1]
    slots += [(t, max(t + 30, 1110), "relaxing at home", home, "🏠"),
              (max(t + 30, 1110), max(t + 90, 1170), "having dinner", home, "🍲")]
    slots.append((slots[-1][1], max(slots[-1][1] + 30, bed), "relaxing at home", home, "📖"))
    slots.append((slots[-1][1], wake + 1440, "sleeping", home, "😴"))
    for ev, p in _today_events(ctx, rng):
        if wake + 60 <= ev["start"] < bed - 30 and rng.random() < p:
            act = f"hosting: {ev['what'][len(ctx.me):].strip()}" if ev["host"] == ctx.me else \
                f"going to: {ev['what']}"
            slots = _carve(slots, ev["start"], ev["end"], act[:100],
                           ev["place"] if ev["place"] in places else best_enum(ev["what"], places, work),
                           "🎉")
    spots = [ln for ln in ctx.lines if ln.strip().startswith("-") and parse_times(ln)
             and any(p in ln.split(":")[0] + ln for p in places) and re.match(r"-\s*[A-Za-z]", ln.strip())]
    if spots and rng.random() < 0.5:
        tr = parse_times(spots[0])
        place = next(p for p in places if p in spots[0])
        a = tr[0]
        free = [s for s in slots if s[2] in ("working", "relaxing on a day off", "relaxing at home")
                and s[0] <= a < s[1]]
        if free:
            slots = _carve(slots, a, a + 60, "seeing people to tell them the news", place, "🗣")
    if "wake_up_hour" not in _props(schema, schema) and ctx.now is not None:  # a re-plan from now on
        end = ctx.now + 120 + 60 * (rng.random() < 0.5)
        slots = [(max(a, ctx.now), min(b, end), *r) for a, b, *r in slots if b > ctx.now and a < end] or \
            [(ctx.now, end, ctx.doing(me), home, "🙂")]
    slots = [s for s in slots if s[1] > s[0]][:16]
    blocks = [{"start": hhmm(a), "duration_minutes": max(5, min(960, b - a)), "activity": act,
               "emoji": em, "address": addr} for a, b, act, addr, em in slots]
    outline = [f"wake up at {say_time(wake, rng)}"] + [f"{s[2]} at {say_time(s[0], rng)}" for s in slots
                                                      if s[4] in ("💼", "🎉", "🗣", "🛋")][:5]
    outline += ["have dinner", f"go to bed at {say_time(bed, rng)}"]
    return {"wake_up_hour": wake // 60, "outline": outline[:8], "blocks": blocks}


def _today_events(ctx: Ctx, rng: random.Random) -> list:
    out: list = []
    seen: set = set()
    news, _ = my_news(ctx, ctx.me)
    cands = ([news] if news else []) + [e for e in (ctx.event(m) for m in ctx.sec(ctx.me)["mem"]
                                                if eventish(ctx, ctx.me, m)) if e]
    for ev in cands:
        if ev["day"] != 0 or not ev["keys"] or any(len(ev["keys"] & k) >= 2 for k in seen):
            continue
        seen.add(frozenset(ev["keys"]))
        said = any(ctx.me in m and ACCEPT.search(m.split(ctx.me, 1)[-1][:80] or "") and
                   len(words(m) & ev["keys"]) >= 2 for m in ctx.sec(ctx.me)["mem"])
        host = ev["host"] == ctx.me
        free = _clash(ctx, ctx.me, ev) in ("free", "same")
        out.append((ev, 0.9 if host else 0.75 if said else 0.3 if free else 0.0))
    return out[:2]


def _carve(slots: list, a: int, b: int, act: str, addr: str, em: str) -> list:
    out = []
    for s in slots:
        if s[1] <= a or s[0] >= b:
            out.append(s)
            continue
        if s[0] < a:
            out.append((s[0], a, *s[2:]))
        if s[1] > b:
            out.append((b, s[1], *s[2:]))
    out.append((a, b, act, addr, em))
    return sorted(out, key=lambda s: s[0])


def _steps(ctx: Ctx, schema: dict, rng: random.Random) -> dict:
    tail = "\n".join(l for l in ctx.lines if not l.strip().startswith("-"))
    mins = [int(m) for m in re.findall(r"(\d+)\s*min", tail)]
    total = mins[0] if mins else 60
    line = next((ln for ln in tail.splitlines() if re.search(r"\d+\s*min", ln)), tail)
    act = next((m.group(1) for t in (line, tail) for m in re.finditer(r"\b(?:is|be|was) ([a-z]+ing\b[^,.(\n]{0,50})",
                                                                         t)), "the task").strip()
    objs = [o for o in (_enum_of(schema, "object") or []) if o]
    low = act.lower()
    if re.search(r"breakfast|lunch|dinner|eat|meal", low):
        names = ["getting the food ready", "sitting down to eat", "eating slowly", "clearing up"]
    elif "sleep" in low:
        names = ["settling in", "sleeping", "sleeping soundly", "turning over"]
    elif re.search(r"people|chat|talk|visit|calling", low):
        names = ["looking around for people", "greeting someone", "chatting", "catching up on news"]
    else:
        names = [f"getting set up for {act}", f"{act}", f"{act}, carefully", "tidying up"]
    n = max(4, min(12, -(-total // 15)))
    base, extra = divmod(total, n)
    steps = []
    for i in range(n):
        d = max(5, min(15, base + (1 if i < extra else 0)))
        name = names[min(i, len(names) - 1)] if i < len(names) - 1 or i == n - 1 else names[1]
        obj = best_enum(name, objs, "") or (rng.choice(objs) if objs and rng.random() < 0.5 else "")
        steps.append({"activity": name[:80], "duration_minutes": d, "object": obj,
                      "object_state": "in use" if obj else ""})
    return {"steps": steps}


def _questions(ctx: Ctx, rng: random.Random) -> list:
    me, qs = ctx.me, []
    news, _ = my_news(ctx, me)
    if news:
        qs.append(f"What does {me} want to do about {news['what']}?")
    others = [n for n in ctx.people if n != me][:3]
    qs += [f"How does {me} get on with {o}?" for o in others[:2]]
    qs.append(f"What is changing in {me}'s days lately?")
    rng.shuffle(qs)
    return qs[:3]


def _insights(ctx: Ctx, schema: dict, rng: random.Random) -> dict:
    qs = [(m.start(), m.group(1)) for m in re.finditer(r'"([^"\n]{5,}\?)"', ctx.task)]
    nums = [(m.start(), int(m.group(1)), m.group(2)) for m in re.finditer(r"(?m)^\s*(\d+)[.)]\s+(.*)$",
                                                                          ctx.task)]
    out = []
    for i, (pos, q) in enumerate(qs or [(0, "")]):
        nxt = qs[i + 1][0] if i + 1 < len(qs) else len(ctx.task)
        group = [(n, s) for p, n, s in nums if pos < p < nxt] or [(n, s) for _, n, s in nums][:3]
        if not group:
            continue
        keyed = [g for g in group if len(words(g[1]) & words(q)) >= 2] or group[-3:]
        about = next((n for n in ctx.people if n in q and n != ctx.me), "") or "daily life"
        ev = next((ctx.event(s) for _, s in keyed if eventish(ctx, ctx.me, s) and ctx.event(s)), None)
        text = (f"{ctx.me} keeps hearing about {ev['what']} and takes an interest in it" if ev else
                f"{ctx.me} has a settled routine around {about}")
        out.append({"insight": text[:290] + ".", "about": about[:60],
                    "evidence": [n for n, _ in keyed][:10], "importance": importance(text, ctx, rng)})
    return {"insights": out}


def _status(ctx: Ctx, rng: random.Random) -> str:
    old = next((ln.split(":", 1)[1].strip() for ln in ctx.lines if re.match(r"\s*currently\s*:", ln, re.I)),
               f"{ctx.me} is {ctx.doing(ctx.me)}.")
    text = re.split(r"(?<=\.)\s", old)[0]
    for ev, p in _today_events(ctx, rng)[:1] or [(e, 0.4) for e in [my_news(ctx, ctx.me)[0]] if e]:
        if rng.random() < (0.8 if p >= 0.75 else 0.4):
            text += f" {ctx.me} means to go to {ev['what']} ({when(ev, rng)})."
    return text


def _relation(ctx: Ctx, rng: random.Random) -> str:
    tail = "\n".join(ctx.lines[-6:])
    names = [n for n in ctx.people if n in tail and n != ctx.me] or [n for n in ctx.people if n != ctx.me][:1]
    parts = []
    for n in names[:3]:
        mem = [m for m in ctx.sec(ctx.me)["mem"] + ctx.lines if n in m and m.startswith("-")]
        warm = "likes" if not any(DECLINE.search(m) for m in mem) else "is a little disappointed in"
        parts.append(f"{n} is someone {ctx.me} knows{' and talks with' if mem else ''}; {ctx.me} {warm} them")
    return ("; ".join(parts) or f"{ctx.me} hardly knows them") + "."


def _interview(ctx: Ctx, rng: random.Random) -> str:
    qs = re.findall(r'"([^"\n]*\?)"', ctx.task)
    q = qs[-1] if qs else ctx.task[-200:]
    who = next((n for n in ctx.people if n in q and n != ctx.me), "")
    mems = [re.sub(r"^-\s*\[[^\]]*\]\s*", "", m) for m in ctx.sec(ctx.me)["mem"] if m.startswith("- [")]
    key = words(q) | ({who} if who else set())
    mems = [re.split(r' / |: "', m)[0] for m in mems]
    best = sorted(mems, key=lambda m: -(len(words(m) & key) + 3 * (bool(who) and who in m) - len(m) / 150))
    if best and (who and who in best[0] or len(words(best[0]) & key) >= 2) and rng.random() < 0.85:
        fact = best[0].replace(ctx.me, "I")[:300]
        return (f"Yes, I know {who}. " if who else "") + f"What I remember: {fact}"
    if who and who in " ".join(ctx.lines[:8]):
        return f"Yes, I know {who}, though not much lately."
    return f"I don't really know{' ' + who if who else ''}, I'm afraid."


# ---------------------------------------------------------------- schema fitting
def _schema(body: dict) -> dict | None:
    rf = body.get("response_format")
    if not isinstance(rf, dict):
        return None
    js = rf.get("json_schema")
    if isinstance(js, dict) and isinstance(js.get("schema"), dict):
        return js["schema"]
    return {"type": "object"} if rf.get("type") == "json_object" else None


def _schema_from_example(task: str) -> dict:
    props: dict = {}
    for m in re.finditer(r'"(\w+)"\s*:\s*(<[^>]*>|"[^"]*"|\[|true|false|\{|[^,}\n]+)', task):
        v = m.group(2)
        kind = "integer" if "int" in v else "boolean" if v in ("true", "false") or "true" in v \
            else "array" if v == "[" else "object" if v == "{" else "string"
        props.setdefault(m.group(1), {"type": kind})
    return {"type": "object", "properties": props, "required": list(props)}


def _resolve(s: Any, root: dict) -> dict:
    while isinstance(s, dict) and "$ref" in s:
        s = root.get("$defs", root.get("definitions", {})).get(s["$ref"].split("/")[-1], {})
    return s if isinstance(s, dict) else {}


def _props(s: dict, root: dict) -> dict:
    return _resolve(s, root).get("properties") or {}


def _find(s: Any, root: dict, key: str, depth: int = 0) -> dict | None:
    s = _resolve(s, root)
    if depth > 6:
        return None
    if key in s.get("properties", {}):
        return _resolve(s["properties"][key], root)
    for sub in list(s.get("properties", {}).values()) + [s.get("items")] + s.get("anyOf", []):
        if isinstance(sub, dict):
            hit = _find(sub, root, key, depth + 1)
            if hit:
                return hit
    return None


def _all_enums(s: Any) -> list:
    if isinstance(s, dict):
        return list(s.get("enum", [])) + [e for v in s.values() for e in _all_enums(v)]
    return [e for v in s for e in _all_enums(v)] if isinstance(s, list) else []


def _enum_of(schema: dict, key: str) -> list | None:
    hit = _find(schema, schema, key)
    return list(hit["enum"]) if hit and "enum" in hit else None


def _max_items(schema: dict, key: str) -> int | None:
    hit = _find(schema, schema, key)
    return hit.get("maxItems") if hit else None


def conform(v: Any, s: dict, key: str, ctx: Ctx | None, rng: random.Random, root: dict | None = None) -> Any:
    """Coerce v to fit schema s (a generic filler for what the handlers did not give)."""
    root = root or s
    s = _resolve(s, root)
    if "anyOf" in s or "oneOf" in s:
        opts = [_resolve(o, root) for o in s.get("anyOf", s.get("oneOf", []))]
        if v is None and any(o.get("type") == "null" for o in opts):
            return None
        s = next((o for o in opts if o.get("type") != "null"), {})
    t = s.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if "enum" in s:
        opts = s["enum"]
        if v in opts:
            return v
        hint = str(v) if v is not None else (ctx.task[-400:] if ctx else "")
        if v is None and ctx and ctx.me in opts:
            return ctx.me
        return best_enum(hint, opts, None) or (rng.choice(opts) if opts else v)
    if t == "object" or "properties" in s:
        v = v if isinstance(v, dict) else {}
        props = s.get("properties", {})
        out = {}
        for k, ps in props.items():
            if k not in v:
                group = next((g for g in SYN if k in g), [k])
                v = dict(v, **{k: next((v[g] for g in group if g in v), None)}) if any(g in v for g in group) else v
            if k in v or k in s.get("required", []):
                out[k] = conform(v.get(k), ps, k, ctx, rng, root)
        if not props:
            out.update({k: x for k, x in v.items() if k not in props})
        return out
    if t == "array":
        v = list(v) if isinstance(v, (list, tuple)) else []
        lo, hi = s.get("minItems", 0), s.get("maxItems", max(len(v), s.get("minItems", 0)))
        v = v[:hi]
        while len(v) < lo:
            v.append(v[-1] if v else None)
        return [conform(x, s.get("items", {}), key, ctx, rng, root) for x in v]
    if t in ("integer", "number"):
        lo, hi = s.get("minimum", 0), s.get("maximum", float("inf"))
        try:
            x = float(v)
        except (TypeError, ValueError):
            x = (lo + hi) / 2 if "maximum" in s else max(lo, 1)
        x = max(lo, min(hi, x))
        return int(round(x)) if t == "integer" else x
    if t == "boolean":
        return bool(v) if v is not None else rng.random() < 0.5
    if t == "null":
        return None
    text = v if isinstance(v, str) else _default_text(key, ctx) if v is None else str(v)
    pat = s.get("pattern")
    if pat and not re.search(pat, text):
        text = next((c for c in ("", hhmm(ctx.now or 720) if ctx else "12:00", "ok") if re.search(pat, c)), "")
    if len(text) > s.get("maxLength", 10**6):
        text = text[: s["maxLength"]].rstrip()
    return text + "." * max(0, s.get("minLength", 0) - len(text))


def _default_text(key: str, ctx: Ctx | None) -> str:
    k = key.lower()
    if ctx is None:
        return ""
    if re.search(r"reason|why|summary|answer|text|utterance|thought", k):
        return f"{ctx.me} thinks it over and carries on."
    if re.search(r"activity|action|doing", k):
        return ctx.doing(ctx.me)
    if re.search(r"time|start", k):
        return hhmm(ctx.now or 720)
    if "date" in k:
        return ctx.today.isoformat() if ctx.today else ""
    return "" if k.startswith("plan") else "ok"


def _malform(out: str, is_json: bool, rng: random.Random, me: str) -> str:
    r = rng.random()
    if not is_json:
        first = out.split("\n")[0]
        return (f"{me}: {out}" if r < 0.4 else "I'm sorry, but I can't help with that." if r < 0.6
                else first if r < 0.8 else f'{me}: "{first}"')
    if r < 0.4:
        return out[: max(1, int(len(out) * rng.uniform(0.3, 0.9)))]
    if r < 0.65:
        return f"Sure! Here is the answer:\n```json\n{out}\n```\nLet me know if you need anything else."
    if r < 0.8:
        return "I'm sorry, but I can't help with that request."
    return f"{me}: {out}"
