"""blind12: a blind stand-in model, written from captured requests alone (rules fixed before any run).

`respond(body, seed)` returns the text a middling instruction-tuned model would put in
`choices[0].message.content`. Deterministic per (body, seed): random.Random(seed + sha256(messages)).
It reads meaning, not headings: people are capitalised word pairs seen twice or more (not inside an
"a:b:c" address), times any style ("5 pm", "17:00", "half past five", "afternoon"), places by the
schema's enum else by words; an *event* is a sentence that names a day (weekday, month day, today,
tomorrow, tonight) and a time and is not a routine line (sleeping, meals, busy, relaxing).

Declared rules and rates (chosen before running anything; not to be changed after):
- Malformed answer, p = 0.05 per request, one of (equal shares): truncated JSON, a refusal,
  prose around the JSON, the speaker's name in front of the line.
- Telling news (a turn, a group turn, lines of a conversation written whole): an event the
  speaker knows and that has not come up in the conversation is brought up with p = 0.8 when the
  speaker hosts it (their name starts the event sentence), 0.55 when they only heard of it.
- Accepting an event someone mentioned: p = 0.6 when the speaker's plan at that time holds only
  ordinary things (work, meals, chores, rest, sleep) or nothing; 0.2 when it holds a commitment
  (anything else: a meeting, another event, someone's name); +0.1 for a sociable/jovial/energetic/
  friendly trait, -0.15 for a shy/reserved/grumpy/busy one. Otherwise a polite non-committal reply.
- Memo / summary plan item: when the one it is for accepted in the lines (words of assent beside
  the event), p = 0.85 a plan item at the event's day, time and place; heard news without
  assent, p = 0.25 ("means to go"); otherwise no plan change. The host plans their own event, 0.9.
- Day plan: a known event on the planned day is given a block at its time with p = 0.95 for the
  host, 0.75 when the memories/status show assent or a plan to go, 0.3 when only heard; else the
  day is built from the lifestyle (wake, meals once each, work, leisure, sleep at home last).
- React: "talk" p = 0.35 when the other person is near and the speaker has an untold event, else
  0.2; "wait" 0.1; "react" 0.05; else "continue".
- Conversation ends after a line: p = 0.25 per turn, 0.5 after four or more lines.
- Whether two people talk when they meet (schema asks "talk"): p = 0.7.
- Importance: routine 1-3, conversations 3-5, events/news/invitations 5-8 (uniform within band).
- Interview: answers from memories naming what was asked about; says it does not know otherwise.
- Anything else: a generic schema filler that picks values from the prompt's words; never raises.
"""
from __future__ import annotations

import hashlib
import json
import random
import re
from typing import Any

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"]
_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_STOP = set(m.capitalize() for m in _MONTHS + _DAYS) | {"Have", "Sounds", "It", "The", "What",
    "Answer", "Name", "Age", "Identity", "Lifestyle", "Currently", "Innate", "Things", "Places",
    "Today", "From", "Someone", "Rewrite", "Plan", "Make", "Break", "Objects", "Should", "Give",
    "Choose", "Step", "Write", "Which", "Prefer", "On", "Memory", "Question", "Right", "Keep",
    "If", "Then", "Say", "Decide", "Lines", "News", "An", "Ordinary", "Text", "You", "Hi", "See"}
_ROUTINE = re.compile(r"\b(sleep|waking|wake|getting ready|breakfast|lunch|dinner|busy at|"
                      r"relaxing|chatting|reading|chores|working|at home|finishing:|starting:)", re.I)
_ASSENT = re.compile(r"\b(count me in|i'?ll (be there|come)|i will come|wouldn'?t miss|see you there|"
                     r"sounds (lovely|great|good|fun)|love to|i'?m in|yes\b|gladly|of course)", re.I)
_DECLINE = re.compile(r"\b(can'?t make it|sorry|another time|busy then|won'?t be able)", re.I)
_CLOCK = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b|\b(1[0-2]|[1-9])(?::([0-5]\d))?\s*(am|pm|a\.m\.|p\.m\.)",
                    re.I)
_WORDNUM = {w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten eleven "
                                            "twelve".split())}
_PARTS = {"morning": 10, "noon": 12, "midday": 12, "afternoon": 15, "after work": 17,
          "evening": 19, "tonight": 19, "sundown": 19, "sunset": 19, "dusk": 19, "night": 20}


def _h(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:12], 16)


def _hour(text: str) -> int | None:
    """First time of day in `text`, any style, as an hour (minutes kept in _hm)."""
    hm = _hm(text)
    return None if hm is None else hm[0]


def _hm(text: str) -> tuple[int, int] | None:
    m = _CLOCK.search(text)
    if m:
        if m.group(1):
            return int(m.group(1)), int(m.group(2))
        h = int(m.group(3)) % 12 + (12 if m.group(5).lower().startswith("p") else 0)
        return h, int(m.group(4) or 0)
    low = text.lower()
    m2 = re.search(r"half past (\w+)", low)
    if m2 and m2.group(1) in _WORDNUM:
        h = _WORDNUM[m2.group(1)]
        return (h + 12 if h < 8 else h), 30
    m3 = re.search(r"\b(\w+) o'?clock", low)
    if m3 and m3.group(1) in _WORDNUM:
        h = _WORDNUM[m3.group(1)]
        return (h + 12 if h < 8 else h), 0
    for word, h in _PARTS.items():
        if re.search(r"\b" + word + r"\b", low):
            return h, 0
    return None


def _names(text: str) -> list[str]:
    found = re.findall(r"(?<![:\w'])([A-Z][a-z\-]+ [A-Z][a-z\-]+)(?![\w'])", text)
    counts: dict[str, int] = {}
    for n in found:
        if n.split()[0] in _STOP or n.split()[1] in _STOP:
            continue
        if re.search(r"(:|\b[Tt]he )" + re.escape(n) + "|" + re.escape(n) + ":[A-Za-z]", text):
            continue
        counts[n] = counts.get(n, 0) + 1
    return sorted((n for n in counts if counts[n] >= 2), key=lambda n: -counts[n])


def _is_event(line: str) -> bool:
    line = re.sub(r"^\s*-?\s*(\d+\.\s*)?\[[^\]]*\]\s*", "", line)
    low = line.lower()
    if re.match(r"^(it is|it's|today is|now is|the time is)\b", low):
        return False
    dayish = any(d in low for d in _DAYS) or "tomorrow" in low or "tonight" in low or \
        re.search(r"\b(" + "|".join(_MONTHS) + r") \d{1,2}\b", low) is not None or "today" in low
    if not dayish or _hm(line) is None:
        return False
    body = re.sub(r"^\s*-?\s*\[[^\]]*\]\s*", "", line)
    return not (_ROUTINE.search(body) and not re.search(r"\b(party|match|wants|invite|come|"
                                                          r"event|gather|heard|news)\b", body, re.I))


class _Ctx:
    def __init__(self, body: dict[str, Any], rng: random.Random) -> None:
        msgs = body.get("messages") or []
        self.system = "\n".join(str(m.get("content", "")) for m in msgs if m.get("role") == "system")
        self.user = "\n".join(str(m.get("content", "")) for m in msgs if m.get("role") != "system")
        self.all = self.system + "\n" + self.user
        self.rng = rng
        self.people = _names(self.all)
        sys_names = [n for n in self.people if n in self.system]
        self.me = sys_names[0] if sys_names else (self.people[0] if self.people else "I")
        self.others = [n for n in self.people if n != self.me]
        lines = [ln.strip() for ln in self.user.splitlines()]
        self.event_lines = [ln for ln in lines if _is_event(ln) and not re.match(r"^-?\s*\d+:\d+\s*-", ln)]
        self.event = self._event_clause()
        first = self.event.split(" ")[:2] if self.event else []
        self.host = bool(self.event) and " ".join(first) == self.me
        low = self.user.lower()
        self.traits_plus = any(w in low for w in ("sociable", "jovial", "energetic", "friendly", "outgoing"))
        self.traits_minus = any(w in low for w in ("shy", "reserved", "grumpy", "solitary", "aloof"))

    def _event_clause(self) -> str:
        for ln in self.event_lines:
            body = re.sub(r"^\s*-?\s*(\d+\.\s*)?\[[^\]]*\]\s*", "", ln).strip("- ")
            if ":" in body and re.search(r"\b(heard|told|news|conversation)\b", body.split(":")[0], re.I):
                body = body.split(":", 1)[1].strip()
            body = body.split(" / ")[0].strip(' "')
            body = re.sub(r"^[A-Z][a-z]+:\s*", "", body)
            sents = [x for x in re.split(r"(?<=[.!?])\s+", body) if _is_event(x)]
            body = sents[0] if sents else body
            body = re.sub(r"^(Have you heard\?\s*)", "", body)
            body = re.sub(r"^[^:]*\btold [A-Z][\w'\-]+(?: [A-Z][\w'\-]+)?:\s*", "", body)
            if len(body) > 12:
                return body[:220].rstrip(".")
        return ""

    def event_day_label(self) -> str:
        e = (self.event or "").lower()
        m = re.search(r"\b(" + "|".join(_MONTHS) + r") (\d{1,2})\b", e)
        if m:
            return f"{_MONTHS.index(m.group(1)) + 1:02d}-{int(m.group(2)):02d}"
        for key in ("tomorrow", "today", "tonight") + tuple(_DAYS):
            if key in e:
                return key
        return ""

    def plan_at(self, hour: int) -> str:
        for m in re.finditer(r"(\d{1,2}):(\d\d)\s*[-–]\s*(\d{1,2}):(\d\d)\s+([^\n(]*)", self.user):
            a, b = int(m.group(1)), int(m.group(3))
            if (a <= hour < b) or (b < a and (hour >= a or hour < b)):
                return m.group(5).strip()
        return ""

    def said_in_convo(self, needle: str) -> bool:
        tail = self.user.rsplit("\n\n", 3)
        return bool(needle) and any(needle[:40].lower() in t.lower() for t in tail[1:])


def _accept_p(ctx: _Ctx) -> float:
    h = _hour(ctx.event) if ctx.event else None
    plan = ctx.plan_at(h) if h is not None else ""
    p = 0.6 if (not plan or _ROUTINE.search(plan)) else 0.2
    return p + (0.1 if ctx.traits_plus else 0) - (0.15 if ctx.traits_minus else 0)


def _short(name: str) -> str:
    return name.split()[0] if name and name != "I" else "there"


def _utterance(ctx: _Ctx, listener: str, convo: str) -> tuple[str, bool]:
    r = ctx.rng
    ev = ctx.event
    told = bool(ev) and ev[:30].lower() in convo.lower()
    other_spoke_of_event = bool(ev) and told and not ctx.host
    if ev and not told and r.random() < (0.8 if ctx.host else 0.55):
        if ctx.host:
            return f"Have you heard? {ev}. I'm organising it myself, do come!", False
        return f"Have you heard? {ev}.", False
    if other_spoke_of_event and not _ASSENT.search(convo.split(ev[:30])[-1] if ev[:30] in convo else ""):
        if r.random() < _accept_p(ctx):
            return "That sounds lovely, count me in. I'll be there.", False
        return r.choice(["Sorry, I can't make it then, I have something on.", "Maybe, we'll see how the day goes."]), False
    n_lines = convo.count("\n") + (1 if convo.strip() else 0)
    end = r.random() < (0.5 if n_lines >= 4 else 0.25)
    if end:
        return f"It was good to see you, {_short(listener)}. Take care!", True
    return r.choice([f"Good to see you, {_short(listener)}. How has your day been?",
                     "Busy as ever here, but I can't complain.", "Lovely weather for it, isn't it?",
                     f"What have you been up to, {_short(listener)}?"]), False


def _convo_text(ctx: _Ctx) -> str:
    parts = re.split(r"\n\s*\n", ctx.user)
    for i, p in enumerate(parts):
        if re.search(r"conversation so far|so far", p, re.I):
            return "\n".join(parts[i:i + 2])
    return parts[-2] if len(parts) > 1 else ""


def _rate(text: str, r: random.Random) -> int:
    if _is_event(text) or re.search(r"\b(wants to|invite|party|match|news|heard|festival)\b", text, re.I):
        return r.randint(5, 8)
    if re.search(r"conversation|chatted|talked|said", text, re.I):
        return r.randint(3, 5)
    return r.randint(1, 3)


def _day_iso(ctx: _Ctx, enum: list[str]) -> str:
    label = ctx.event_day_label()
    if not label:
        return ""
    offered = re.findall(r"(\d{4}-(\d\d-\d\d)) \(([^)]*)\)", ctx.user)
    for iso, md, lab in offered:
        if label == md or label in lab.lower():
            return iso if (not enum or iso in enum) else ""
    return ""


def _place(ctx: _Ctx, enum: list[str], text: str) -> str:
    opts = [e for e in enum if e]
    if not opts:
        return ""
    words = set(re.findall(r"[a-z]{4,}", text.lower()))
    best = max(opts, key=lambda e: len(words & set(re.findall(r"[a-z]{4,}", e.lower()))))
    if words & set(re.findall(r"[a-z]{4,}", best.lower())):
        return best
    return ""


def _memo(ctx: _Ctx, who: str, enum_day: list[str], enum_place: list[str], lines: str) -> dict[str, Any]:
    r = ctx.rng
    ev = ctx.event
    mine = "\n".join(ln for ln in lines.splitlines() if ln.strip().startswith(who))
    host = bool(ev) and ev.startswith(who)
    summ = f"{who} had a chat" + (f"; they spoke of this: {ev}." if ev and ev[:25] in lines else ".")
    memo: dict[str, Any] = {"summary": summ[:390], "importance": _rate(summ, r), "plan_activity": "",
                            "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    if ev and ev[:25] in lines:
        assent = bool(_ASSENT.search(mine)) and not _DECLINE.search(mine)
        p = 0.9 if host else (0.85 if assent else 0.25)
        hm = _hm(ev)
        day = _day_iso(ctx, enum_day)
        if hm and day and r.random() < p:
            memo.update(plan_activity=("hosting " if host else "going to ") + ev[:100],
                        plan_date=day, plan_start=f"{hm[0]:02d}:{hm[1]:02d}", plan_minutes=120,
                        plan_place=_place(ctx, enum_place, ev))
    return memo


def _gen_lines(ctx: _Ctx, speakers: list[str]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    convo = ""
    for i in range(8):
        sp = speakers[i % len(speakers)]
        sub = _Ctx.__new__(_Ctx)
        sub.__dict__.update(ctx.__dict__)
        sub.me = sp
        sub.host = bool(ctx.event) and ctx.event.startswith(sp)
        sub.event = ctx.event if (sub.host or ctx.event[:25] in _know(ctx, sp) or ctx.event[:25] in convo) else ""
        text, end = _utterance(sub, speakers[(i + 1) % len(speakers)], convo)
        out.append({"speaker": sp, "text": text[:290]})
        convo += f"\n{sp}: {text}"
        if end and i >= 1:
            break
    return out


def _know(ctx: _Ctx, who: str) -> str:
    """The part of the prompt about `who` (from their name's first block to the next person's)."""
    i = ctx.user.find(f"{who} remembers")
    if i < 0:
        return ""
    j = ctx.user.find(" remembers", i + len(who) + 12)
    return ctx.user[i:j if j > 0 else None]


def _resolve(s: Any, root: dict[str, Any]) -> dict[str, Any]:
    for _ in range(8):
        if isinstance(s, dict) and "$ref" in s:
            ref = s["$ref"].split("/")[-1]
            s = (root.get("$defs") or root.get("definitions") or {}).get(ref, {})
        elif isinstance(s, dict) and ("anyOf" in s or "oneOf" in s or "allOf" in s):
            alts = s.get("anyOf") or s.get("oneOf") or s.get("allOf") or [{}]
            s = next((x for x in alts if x.get("type") != "null"), alts[0])
        else:
            break
    return s if isinstance(s, dict) else {}


def _day_plan(ctx: _Ctx, enum: list[str]) -> tuple[int, list[str], list[dict[str, Any]]]:
    r = ctx.rng
    life = ctx.user
    wake = _hour(re.split(r"wak\w*", life, maxsplit=1)[-1][:30]) if re.search(r"wak", life) else None
    wake = wake if wake is not None and 3 <= wake <= 12 else 7
    bedm = re.search(r"bed\w*[^.\n]{0,20}?(\d{1,2}(?::\d\d)?\s*(?:am|pm)|midnight|\d{1,2}:\d\d)", life, re.I)
    bed = 22
    if bedm:
        bed = 24 if "midnight" in bedm.group(1) else (_hour(bedm.group(1)) or 22)
        bed = bed if bed > wake + 8 else 22
    home = next((e for e in enum if ctx.me.split()[-1].lower() in e.lower()), enum[0] if enum else "")
    work = next((e for e in enum if e != home), home)
    ev_h = None
    if ctx.event:
        hm = _hm(ctx.event)
        today = re.search(r"(today|tonight)", ctx.event, re.I) or ctx.event_day_label() in ctx.user[:0] or \
            (ctx.event_day_label() and ctx.event_day_label() in _today_words(ctx))
        assent = bool(_ASSENT.search(ctx.user)) or re.search(r"\b(going to|mean to go|plans? to go)", ctx.user, re.I)
        p = 0.95 if ctx.host else (0.75 if assent else 0.3)
        if hm and today and wake < hm[0] < bed - 1 and r.random() < p:
            ev_h = hm[0]
    items = [(wake, 1, "waking up and getting ready", "\U0001F6BF", home),
             (wake + 1, 1, "having breakfast", "\U0001F373", home)]
    h = wake + 2
    while h < bed - 1:
        if ev_h is not None and h == ev_h:
            items.append((h, 2, ("hosting " if ctx.host else "going to ") + ctx.event[:90], "\U0001F389",
                          _place(ctx, enum, ctx.event) or work))
            h += 2
            continue
        if h == 12:
            items.append((h, 1, "having lunch", "\U0001F96A", r.choice([home, work])))
        elif h == 18:
            items.append((h, 1, "having dinner", "\U0001F37D", home))
        else:
            nxt = min(x for x in (12, 18, bed - 1, ev_h if ev_h and ev_h > h else 99) if x > h)
            items.append((h, nxt - h, "working" if h < 17 else "relaxing at home", "\U0001F4BC" if h < 17
                          else "\U0001F4D6", work if h < 17 else home))
            h = nxt
            continue
        h += 1
    items.append((bed - 1, 1, "winding down", "\U0001F319", home))
    items.append((bed % 24, 24 - bed + wake, "sleeping", "\U0001F634", home))
    blocks = [{"start": f"{a % 24:02d}:00", "duration_minutes": max(5, min(960, d * 60)),
               "activity": act[:118], "emoji": em, "address": ad} for a, d, act, em, ad in items][:16]
    outline = [f"wake up at {wake}:00", "breakfast at home", "work through the day", "dinner at 18:00"]
    if ev_h is not None:
        outline.insert(3, f"{ctx.event[:80]} at {ev_h}:00")
    return wake, outline[:8], blocks


def _today_words(ctx: _Ctx) -> str:
    m = re.search(r"(" + "|".join(d.capitalize() for d in _DAYS) + r")[, ]+(" +
                  "|".join(x.capitalize() for x in _MONTHS) + r") (\d{1,2})", ctx.user)
    if not m:
        return "today"
    return f"today {m.group(1).lower()} {_MONTHS.index(m.group(2).lower()) + 1:02d}-{int(m.group(3)):02d}"


def _fill(s: Any, root: dict[str, Any], ctx: _Ctx, key: str, state: dict[str, Any]) -> Any:
    s = _resolve(s, root)
    r = ctx.rng
    t = s.get("type")
    if "enum" in s and t != "array":
        enum = list(s["enum"])
        return _pick_enum(ctx, key, enum, state)
    if t == "object" or "properties" in s:
        return _fill_object(s, root, ctx, state)
    if t == "array":
        return _fill_array(s, root, ctx, key, state)
    if t == "boolean":
        if key == "ok":
            return True
        if key == "talk":
            return r.random() < 0.7
        return r.random() < 0.25
    if t in ("integer", "number"):
        lo, hi = int(s.get("minimum", 0)), int(s.get("maximum", max(10, int(s.get("minimum", 0)) + 10)))
        if "import" in key:
            v = _rate(ctx.user[-600:], r)
        elif "minute" in key:
            v = r.choice([5, 10, 15, 30, 60])
        elif "hour" in key:
            v = 7
        else:
            v = r.randint(lo, hi)
        return max(lo, min(hi, v))
    return _fill_string(s, ctx, key, state)


def _pick_enum(ctx: _Ctx, key: str, enum: list[Any], state: dict[str, Any]) -> Any:
    r = ctx.rng
    if key == "choice" and "continue" in enum:
        near = bool(ctx.others) and r.random() < (0.35 if ctx.event and not ctx.host else 0.2)
        x = r.random()
        pick = "talk" if near and "talk" in enum else ("wait" if x < 0.1 else "react" if x < 0.15 else "continue")
        return pick if pick in enum else enum[0]
    if key == "addressed_to":
        named = [e for e in enum if e in state.get("utterance", "")]
        return named[0] if named else ("everyone" if "everyone" in enum else enum[0])
    if "date" in key:
        return state.get("_day", "") if state.get("_day", "") in enum else ("" if "" in enum else enum[0])
    if "place" in key or "address" in key:
        p = state.get("_place") or _place(ctx, enum, ctx.event)
        return p if p in enum else ("" if "" in enum else enum[0])
    if "speaker" in key or key == "name":
        return state.get("_speaker") if state.get("_speaker") in enum else enum[0]
    hits = [e for e in enum if isinstance(e, str) and e and e.lower() in ctx.user.lower()]
    return r.choice(hits) if hits else r.choice(enum)


def _fill_string(s: dict[str, Any], ctx: _Ctx, key: str, state: dict[str, Any]) -> str:
    r = ctx.rng
    mx = int(s.get("maxLength", 300))
    if "start" in key or "time" in key:
        return state.get("_start", "") if "plan" in key else f"{r.randint(7, 20):02d}:00"
    if key == "answer":
        q = re.findall(r'"([^"]{5,200}\?)"', ctx.user) or re.findall(r"([^\n]{5,200}\?)", ctx.user)
        ask = q[-1] if q else ""
        subj = [n for n in re.findall(r"[A-Z][a-z\-]+ [A-Z][a-z\-]+", ask) if n != ctx.me]
        mems = [ln for ln in ctx.user.splitlines() if ln.startswith("- [") and any(x in ln for x in subj)]
        if ctx.event and any(w in ask.lower() for w in ("event", "happen", "going", "plan", "news", "week")):
            v = f"Yes, I heard: {ctx.event}."
        elif subj and mems:
            v = f"Yes, I know {subj[0]}. " + re.sub(r"^- \[[^\]]*\]\s*", "", mems[-1])[:200]
        elif subj and subj[0] in ctx.user.split(ask)[0]:
            v = f"Yes, I know {subj[0]}, though not well."
        else:
            v = "I'm afraid I don't know anything about that."
    elif key == "currently":
        old = re.search(r"Currently:\s*([^\n]*)", ctx.user)
        v = (old.group(1) if old else f"{ctx.me} is going about the day.")
        if ctx.event and ctx.event[:30] not in v:
            v += f" {ctx.me} has in mind: {ctx.event}."
    elif key == "utterance" or key == "text":
        v = state.get("_utt", "Hello.")
    elif key == "reason":
        v = "Nothing here calls for a change of plan." if state.get("choice") == "continue" else \
            "It seems worth a word now."
    elif key == "new_activity":
        v = "talking it over" if state.get("choice") == "react" else ""
    elif key == "plan_activity":
        v = state.get("_act", "")
    elif key == "object_state":
        v = "in use" if state.get("object") else ""
    elif key == "about":
        v = ctx.others[0] if ctx.others else "daily routine"
    elif key in ("summary", "insight"):
        who = ctx.others[0] if ctx.others else "the day"
        v = f"{ctx.me} knows {who} from around town and feels friendly towards them." if key == "summary" \
            else f"{ctx.me} keeps to a steady routine" + (f" and has {ctx.event} in mind." if ctx.event else ".")
    else:
        v = r.choice(["taking a short break", "tidying up", "getting things ready", "a quiet moment"])
    return v[:mx] if v or s.get("minLength", 0) == 0 else "ok"


def _fill_array(s: dict[str, Any], root: dict[str, Any], ctx: _Ctx, key: str, state: dict[str, Any]) -> list[Any]:
    r = ctx.rng
    lo, hi = int(s.get("minItems", 0)), int(s.get("maxItems", 5))
    items = _resolve(s.get("items", {}), root)
    if key == "ratings":
        mems = re.findall(r'^- "(.*)"\s*$', ctx.user, re.M)
        vals = [_rate(m, r) for m in mems]
        n = max(lo, min(hi, len(vals) or lo))
        vals = (vals + [2] * n)[:n]
        return [max(int(items.get("minimum", 1)), min(int(items.get("maximum", 10)), v)) for v in vals]
    if key == "evidence":
        enum = items.get("enum") or list(range(int(items.get("minimum", 1)), int(items.get("maximum", 3)) + 1))
        return sorted(r.sample(list(enum), min(len(enum), max(lo, 2))))[:hi] if enum else []
    if key == "questions":
        n = max(lo, min(hi, 3))
        who = ctx.others or ["the people around"]
        qs = [f"What does {ctx.me} feel about {who[i % len(who)]}?" for i in range(n)]
        if ctx.event and qs:
            qs[0] = f"What will come of {ctx.event[:120]}?"
        return qs
    if key == "outline":
        return state.get("_outline", ["get up", "eat", "work", "rest"])[:hi]
    if key == "blocks":
        return state.get("_blocks", [])
    if key == "lines":
        if state.get("talk") is False:
            return []
        spk = items.get("properties", {}).get("speaker", {})
        spk = _resolve(spk, root).get("enum") or ([ctx.me] + ctx.others[:1])
        lines = _gen_lines(ctx, list(spk))
        state["_lines"] = "\n".join(f'{x["speaker"]}: {x["text"]}' for x in lines)
        return lines[:hi]
    if key == "memos":
        if state.get("talk") is False:
            return []
        props = _resolve(items, root).get("properties", {})
        names = _resolve(props.get("name", {}), root).get("enum") or ([ctx.me] + ctx.others)
        return [dict(_memo(ctx, n, _resolve(props.get("plan_date", {}), root).get("enum", []),
                           _resolve(props.get("plan_place", {}), root).get("enum", []),
                           state.get("_lines", "")), name=n) for n in names][:hi]
    if key == "steps":
        n = r.randint(max(lo, 2), max(lo, min(hi, 4)))
        return [_fill_object(items, root, ctx, {"_i": i}) for i in range(n)]
    n = max(lo, min(hi, r.randint(1, 3)))
    return [_fill(items, root, ctx, key[:-1], state) for _ in range(n)]


def _fill_object(s: dict[str, Any], root: dict[str, Any], ctx: _Ctx, state: dict[str, Any]) -> dict[str, Any]:
    props = s.get("properties", {})
    out: dict[str, Any] = {}
    st = dict(state)
    keys = list(props)
    if "plan_activity" in props and "summary" in props and "_memo" not in st:
        who = st.get("_who", ctx.me)
        lines = st.get("_lines") or ctx.user
        m = _memo(ctx, who, _resolve(props.get("plan_date", {}), root).get("enum", []),
                  _resolve(props.get("plan_place", {}), root).get("enum", []), lines)
        return {k: m[k] if k in m else _fill(props[k], root, ctx, k, st) for k in keys}
    if "blocks" in props:
        addr = _resolve(_resolve(props["blocks"], root).get("items", {}), root)
        enum = _resolve(addr.get("properties", {}).get("address", {}), root).get("enum") or \
            re.findall(r"^- (\S[^\n]*:[^\n]*)$", ctx.user, re.M)
        st["_wake"], st["_outline"], st["_blocks"] = _day_plan(ctx, list(enum))
        if not enum:
            for b in st["_blocks"]:
                b["address"] = ""
    if "utterance" in props:
        listener = ctx.others[0] if ctx.others else "everyone"
        st["_utt"], end = _utterance(ctx, listener, _convo_text(ctx))
        st["utterance"] = st["_utt"]
        out["utterance"] = st["_utt"][:int(_resolve(props["utterance"], root).get("maxLength", 400))]
        if "end_conversation" in props:
            out["end_conversation"] = end
    if "talk" in props:
        out["talk"] = st["talk"] = ctx.rng.random() < 0.7
    spk = []
    if "lines" in props:
        li = _resolve(_resolve(props["lines"], root).get("items", {}), root)
        spk = _resolve(li.get("properties", {}).get("speaker", {}), root).get("enum") or []
    for k in keys:
        if k in out:
            continue
        if k == "wake_up_hour" and "_wake" in st:
            out[k] = st["_wake"]
        elif k in ("first", "second") and "lines" in out:
            idx = 0 if k == "first" else 1
            names = list(spk) or [ctx.me] + ctx.others
            st2 = dict(st, _who=names[idx] if idx < len(names) else ctx.me, _lines=st.get("_lines", ""))
            out[k] = _fill(props[k], root, ctx, k, st2)
        elif k == "lines":
            out[k] = _fill(props[k], root, ctx, k, st)
            st["_lines"] = "\n".join(f'{x["speaker"]}: {x["text"]}' for x in out[k])
        else:
            out[k] = _fill(props[k], root, ctx, k, st)
            if isinstance(out[k], (str, bool)):
                st[k] = out[k]
    if "object" in out and out["object"] and "object_state" in out:
        out["object_state"] = "in use"
    if "activity" in out and "duration_minutes" in out and "object" in props:
        i = state.get("_i", 0)
        out["activity"] = ["getting started", "doing the main part", "carrying on", "tidying up"][min(i, 3)]
        out["duration_minutes"] = max(5, min(15, out["duration_minutes"]))
    return out


def _malform(text: str, ctx: _Ctx, kind: int) -> str:
    if kind == 0:
        return text[: max(1, len(text) // 2)]
    if kind == 1:
        return "I'm sorry, but I can't help with that request."
    if kind == 2:
        return "Sure! Here is the answer:\n" + text + "\nI hope this helps."
    return f"{ctx.me}: {text}"


def respond(body: dict[str, Any], seed: int) -> str:
    """The completion text for one chat request; never raises."""
    try:
        return _respond(body, seed)
    except Exception:  # a model always answers something; a fault here becomes a plain reply
        return "Sorry, I lost my train of thought."


def _respond(body: dict[str, Any], seed: int) -> str:
    msgs = body.get("messages") or []
    rng = random.Random(seed * 1_000_003 + _h(json.dumps(msgs, sort_keys=True, ensure_ascii=False)))
    ctx = _Ctx(body, rng)
    bad = rng.random() < 0.05
    kind = rng.randrange(4)
    rf = body.get("response_format") or {}
    schema = (rf.get("json_schema") or {}).get("schema") if isinstance(rf, dict) else None
    if schema:
        text = json.dumps(_fill(schema, schema, ctx, "", {}), ensure_ascii=False)
    elif isinstance(rf, dict) and rf.get("type") == "json_object":
        text = json.dumps({"answer": "I'm not sure."})
    else:
        listener = ctx.others[0] if ctx.others else "there"
        utt, end = _utterance(ctx, listener, _convo_text(ctx))
        wants_tag = re.search(r"\[(end|continue)\]", ctx.user)
        text = utt + ("\n[end]" if end else "\n[continue]") if wants_tag else utt
    return _malform(text, ctx, kind) if bad else text
