"""Blind stand-in model 8: written from captured request bodies alone, rates fixed before any run.

Reads a chat-completion request as a middling instruction-tuned model would: the kind of answer from
the JSON schema's fields (or plain text with a tag when no schema), people from capitalised names
in the text, times in any style, places from schema enums else by shared words. Deterministic per
(body, seed): random.Random seeded with the seed and a sha256 of the messages.

Declared rules (rates chosen before running anything):
- Malformed answer, any request: p = 0.05. Kinds, equally likely: truncated JSON, a refusal, prose
  around the JSON, (plain-text turns) the speaker's name in front / the tag missing.
- News: a sentence owned by the speaker (starts with their name) that names a future dated event
  (a day or date plus a time). Telling it in a turn when not yet said in this conversation: p = 0.7
  per turn; in a one-call conversation gist: p = 0.75 per conversation.
- Talk at all (gist of an encounter): p = 0.85 when someone has untold news, else 0.45.
- React to seeing someone: untold news for them -> talk 0.7; else talk 0.3, wait 0.1, react 0.05,
  rest continue.
- Answer to an invitation (teller holds the event): yes p = 0.6 when the listener's plan at that
  time is free or ordinary (work, meals, chores, leisure); 0.15 when it holds a real commitment
  (an event, a meeting, someone to see) or the listener earlier said they cannot go.
- News of someone else's event: "means to go" p = 0.4 when free/ordinary, 0.1 when committed.
- Traits: sociable-type traits +0.1, reserved-type traits -0.15 on those two rates; knowing the
  teller +0.05.
- Plan change in a memo: a person who said yes gets the event as a plan item p = 0.85; one who
  declined never; the host p = 0.3; a listener who gave no answer p = 0.1.
- Day plan: wake and bed hours and work hours from the lifestyle; an event on that day goes in:
  host 0.9, accepted/means to go 0.8, heard without an answer 0.45, said cannot go 0.1.
- Importance: routine 1-3, chat 3-5, events/news 6-8, life events 8-10 (+-1 noise).
- End a plain-text turn: p = 0.15 + 0.15 per line already said, 0.9 after a goodbye.
- Anything else with a schema: a generic filler that reads values from the prompt; no schema and no
  tag asked for: one or two plain sentences.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from typing import Any

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december"]
_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_NAME = re.compile(r"\b([A-Z][a-z'\-]+(?: [A-Z][a-z'\-]+)+)\b")
_SOCIAL = ("sociable", "outgoing", "friendly", "energetic", "jovial", "curious", "cheerful",
           "warm", "generous", "lively", "chatty", "nosy", "gregarious", "kind")
_RESERVED = ("shy", "reclusive", "grumpy", "stubborn", "introvert", "reserved", "gruff", "quiet",
             "aloof", "private", "irritable", "solitary")
_COMMIT = ("hosting", "event", "meeting", "appointment", "party", "match", "game", "service",
           "lesson", "class", "wedding", "funeral", "rehearsal", "calling on", "visit", "concert",
           "fair", "festival", "date with", "going to", "goingto", "ceremony", "market", "club")
_YES = ("count me in", "i'll be there", "i will be there", "i'll come", "i'd love to", "see you there",
        "i'll go", "i will go", "i mean to go", "wouldn't miss", "sounds great", "sounds lovely",
        "i'm in", "yes")
_NO = ("can't", "cannot", "won't be able", "not able", "sorry", "other plans", "no thanks")
_BYE = ("bye", "see you", "take care", "must go", "have to go", "good to talk")


def respond(body: dict, seed: int) -> str:
    """Return the completion text for one request; never raises."""
    msgs = body.get("messages") or []
    digest = hashlib.sha256(json.dumps(msgs, sort_keys=True, default=str).encode()).hexdigest()
    rng = random.Random(f"{seed}:{digest}")
    try:
        return _answer(body, rng)
    except Exception:  # a stand-in must answer something; a real model never raises either
        return "I'm not sure what to say."


def _answer(body: dict, rng: random.Random) -> str:
    msgs = body.get("messages") or []
    text = "\n".join(str(m.get("content", "")) for m in msgs if m.get("role") != "system")
    system = "\n".join(str(m.get("content", "")) for m in msgs if m.get("role") == "system")
    rf = body.get("response_format") or {}
    schema = rf.get("json_schema", {}).get("schema") if rf.get("type") == "json_schema" else rf
    if isinstance(schema, dict) and "schema" in schema and "properties" not in schema:
        schema = schema["schema"]
    ctx = _Ctx(text, system, schema if isinstance(schema, dict) and rf else None, rng)
    bad = rng.random() < 0.05
    if ctx.schema is None:
        out = _plain(ctx)
        if bad:
            return rng.choice([f"{ctx.me}: {out}", out.split("\n")[0], "I'm sorry, I can't continue."])
        return out
    obj = _fit(ctx.schema, _by_kind(ctx), ctx, ctx.schema)
    raw = json.dumps(obj, ensure_ascii=False)
    if bad:
        kind = rng.randrange(3)
        if kind == 0:
            return raw[: max(1, len(raw) // 2)]
        if kind == 1:
            return "I'm sorry, but I can't help with that request."
        return f"Sure! Here is my answer:\n{raw}\nLet me know if you need anything else."
    return raw


class _Ctx:
    """What the request shows: who speaks, who else is there, the time, the places, the news."""

    def __init__(self, text: str, system: str, schema: dict | None, rng: random.Random):
        self.text, self.schema, self.rng = text, schema, rng
        self.props = set((schema or {}).get("properties", {}))
        self.names = _names(text + "\n" + system)
        sysn = [n for n in _NAME.findall(system) if n in self.names]
        self.me = sysn[0] if sysn else (self.names[0] if self.names else "I")
        self.others = [n for n in self.names if n != self.me]
        self.now = _now(text)
        self.places = _enum_strings(schema, "address") + _enum_strings(schema, "plan_place")
        self.places = [p for p in dict.fromkeys(self.places) if p]
        self.convo = _conversation(text)
        low = text.lower()
        self.traits = sum(t in low[:600] for t in _SOCIAL) - sum(t in low[:600] for t in _RESERVED)

    def other(self) -> str:
        """Whom the speaker faces: the last one who spoke, else one named beside them at the clock."""
        said = [s for s, _ in self.convo if s != self.me]
        if said:
            return said[-1]
        for line in self.text.split("\n"):
            if self.me in line and re.search(r"\b\d{1,2}:\d{2}\b", line) and not line.lstrip().startswith("-"):
                near = [n for n in self.others if n in line]
                if near:
                    return min(near, key=line.index)
        return self.others[0] if self.others else "there"

    def news(self, owner: str) -> list[dict]:
        return _events(self.text, owner, self.now)


def _names(text: str) -> list[str]:
    counts: dict[str, int] = {}
    for n in _NAME.findall(text):
        low = n.lower()
        if any(w in _MONTHS + _DAYS for w in low.split()) or ":" in n:
            continue
        if re.search(":" + re.escape(n) + r"|" + re.escape(n) + r":[^ ]", text):
            continue
        counts[n] = counts.get(n, 0) + 1
    acts = r" (?:is|was|has|had|heard|wants|said|says|keeps|knows|chatted|learned|means|will|can|cannot)\b"
    return [n for n, c in sorted(counts.items(), key=lambda kv: -kv[1])
            if c >= 2 and re.search(re.escape(n) + r'(?:' + acts + r'|: ")', text)]


def _now(text: str) -> tuple[int, int, int]:
    """(month, day, minute of day) of the first date with a clock time outside memory brackets."""
    clean = re.sub(r"\[[^\]]*\]", "", text)
    m = re.search(r"(" + "|".join(_MONTHS) + r")\s+(\d{1,2}),?\s+(\d{1,2}):(\d{2})", clean, re.I)
    if m:
        return _MONTHS.index(m.group(1).lower()) + 1, int(m.group(2)), int(m.group(3)) * 60 + int(m.group(4))
    m = re.search(r"(" + "|".join(_MONTHS) + r")\s+(\d{1,2})", clean, re.I)
    if m:
        return _MONTHS.index(m.group(1).lower()) + 1, int(m.group(2)), 7 * 60
    return 1, 1, 12 * 60


def _times(s: str) -> list[int]:
    """Clock times in minutes, in order of appearance, in any common style."""
    found: list[tuple[int, int]] = []
    for m in re.finditer(r"\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)", s, re.I):
        h = int(m.group(1)) % 12 + (12 if m.group(3).lower().startswith("p") else 0)
        found.append((m.start(), h * 60 + int(m.group(2) or 0)))
    for m in re.finditer(r"\b([01]?\d|2[0-3]):([0-5]\d)\b(?!\s*[ap]\.?m)", s, re.I):
        found.append((m.start(), int(m.group(1)) * 60 + int(m.group(2))))
    words = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
             "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
    for m in re.finditer(r"\b(half|quarter) (past|to) (\w+)", s, re.I):
        h = words.get(m.group(3).lower())
        if h:
            h = h + 12 if h < 8 else h
            d = 30 if m.group(1).lower() == "half" else 15
            found.append((m.start(), h * 60 + (d if m.group(2).lower() == "past" else -d)))
    parts = {"noon": 720, "midday": 720, "lunchtime": 720, "after work": 1050, "evening": 1080,
             "sundown": 1140, "dusk": 1140, "afternoon": 840, "morning": 540, "tonight": 1140}
    if not found:
        for w, t in parts.items():
            i = s.lower().find(w)
            if i >= 0:
                found.append((i, t))
    return [t for _, t in sorted(found)]


def _event_day(s: str, now: tuple[int, int, int]) -> tuple[int, int] | None:
    m = re.search(r"(" + "|".join(_MONTHS) + r")\s+(\d{1,2})\b", s, re.I)
    if m:
        return _MONTHS.index(m.group(1).lower()) + 1, int(m.group(2))
    low = s.lower()
    if "tomorrow" in low:
        return now[0], now[1] + 1
    if "today" in low or "tonight" in low or "this afternoon" in low or "this evening" in low:
        return now[0], now[1]
    return None


def _events(text: str, owner: str, now: tuple[int, int, int]) -> list[dict]:
    """Future dated events in sentences that start with the owner's name (their own knowledge)."""
    out: list[dict] = []
    seen: set[str] = set()
    for line in text.split("\n"):
        line = re.sub(r"^\s*-\s*", "", line)
        line = re.sub(r"\[[^\]]*\]\s*", "", line).strip()
        if '"' in line[:60] or re.match(r"\d{1,2}:\d{2}\s*-", line):
            continue
        for sent in re.split(r"(?<=[.!?])\s+(?=[A-Z])", line):
            if not sent.startswith(owner):
                continue
            day, ts = _event_day(sent, now), _times(sent)
            if day is None or not ts or (day[0], day[1]) < (now[0], now[1]):
                continue
            if (day[0], day[1]) == (now[0], now[1]) and max(ts) <= now[2] and len(ts) > 1:
                continue
            gist = re.sub(r"^" + re.escape(owner) + r" (?:heard from [^:]+|learned that|has news[^:]*):\s*",
                          "", sent)
            gist = re.sub(r"\s*\(that is[^)]*\)", "", gist)
            gist = re.sub(r";[^;]*(cannot|can't) go[^;]*", "", gist).strip(" .;")
            key = gist[:40]
            if key in seen or len(gist) < 12:
                continue
            seen.add(key)
            host = next((n for n in _NAME.findall(gist[:40])), "")
            low = sent.lower()
            stance = ("no" if f"{owner.lower()} cannot go" in low or "can't make it" in low
                      else "yes" if "mean" in low and "go" in low else "")
            end = ts[1] if len(ts) > 1 and ts[1] > ts[0] else ts[0] + 120
            out.append({"gist": gist, "day": day, "start": ts[0], "end": end, "host": host,
                        "stance": stance})
    return out


def _conversation(text: str) -> list[tuple[str, str]]:
    """The current exchange: the last block of `Name: "words"` lines not under a memory bullet."""
    blocks: list[list[tuple[str, str]]] = []
    prev, cur = "", []
    for line in text.split("\n"):
        m = re.match(r"^([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*): \"(.*)\"\s*$", line.strip())
        if m:
            if not cur and prev.lstrip().startswith("-"):
                cur = [("", "")]
            cur.append((m.group(1), m.group(2)))
        else:
            if cur:
                blocks.append(cur)
            cur = []
            prev = line
    if cur:
        blocks.append(cur)
    own = [b for b in blocks if b[0] != ("", "")]
    return own[-1] if own else []


def _mentioned(ev: dict, lines: list[tuple[str, str]]) -> bool:
    words = {w for w in re.findall(r"[a-z]{4,}", ev["gist"].lower())}
    for _, t in lines:
        tw = set(re.findall(r"[a-z]{4,}", t.lower()))
        if words and len(words & tw) >= max(2, len(words) // 3):
            return True
    return False


def _plan_at(text: str, start: int, end: int) -> str:
    """The planned activity overlapping [start, end) today, '' if none shown."""
    for m in re.finditer(r"(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s+([^\n(]+)", text):
        s, e = int(m.group(1)) * 60 + int(m.group(2)), int(m.group(3)) * 60 + int(m.group(4))
        if e <= s:
            e += 1440
        if s < end and start < e:
            return m.group(5).strip()
    return ""


def _committed(activity: str, me: str) -> bool:
    low = activity.lower()
    return any(w in low for w in _COMMIT) or bool(re.search(r"\bwith [A-Z]", activity))


def _p_yes(ctx: _Ctx, ev: dict, teller: str, invitation: bool) -> float:
    clash = ""
    if tuple(ev["day"]) == (ctx.now[0], ctx.now[1]):
        clash = _plan_at(ctx.text, ev["start"], ev["end"])
    busy = _committed(clash, ctx.me) or ev.get("stance") == "no"
    p = (0.15 if busy else 0.6) if invitation else (0.1 if busy else 0.4)
    p += 0.1 * (ctx.traits > 0) - 0.15 * (ctx.traits < 0)
    p += 0.05 if f"{teller} is someone" in ctx.text or f"knows {teller}" in ctx.text else 0.0
    return min(0.95, max(0.02, p))


def _hm(m: int) -> str:
    m %= 1440
    return f"{m // 60:02d}:{m % 60:02d}"


def _say_news(ev: dict, teller: str = "") -> str:
    if teller and ev["gist"].startswith(teller):
        own = re.sub(r"^ (\w+?)s\b", r" \1", ev["gist"][len(teller):].replace(" is ", " am ", 1))
        return f"Guess what: I{own}. Do come along!"
    return f"Have you heard? {ev['gist']}."


def _what(gist: str) -> str:
    m = re.search(r"\b(?:a|an|the|our|my)\s+([a-z][^,;()]*?)(?:\s+(?:on|at|from|in|this|tomorrow)\b|[,;(]|$)", gist)
    return f"going to the {m.group(1)}"[:120] if m else "going to the event"


def _reply(ctx: _Ctx, speaker: str, heard: str, teller: str, rng: random.Random) -> str:
    """A listener's answer to news or an invitation they just heard, or small talk."""
    evs = [e for n in (ctx.names or [teller]) for e in ctx.news(n) if _mentioned(e, [("", heard)])]
    if not evs:
        ts = _times(heard)
        day = _event_day(heard, ctx.now)
        if not ts or day is None:
            return rng.choice(["Glad to hear it. How has your day been?", "That's good to know.",
                               "Oh, really? Tell me more.", "Nice to see you!"])
        evs = [{"gist": heard, "day": day, "start": ts[0], "end": ts[0] + 120, "host": teller,
                "stance": ""}]
    ev = evs[0]
    invitation = ev["host"] == teller or " come" in heard.lower() or "join" in heard.lower()
    if rng.random() < _p_yes(ctx, ev, teller, invitation):
        return f"Sounds great, count me in! I'll be there at {_hm(ev['start'])}."
    if invitation:
        what = _plan_at(ctx.text, ev["start"], ev["end"]) or "something else on"
        return f"Sorry, I can't make it then; I'll be {what}."
    return "Thanks for telling me, but I don't think I'll go."


def _by_kind(ctx: _Ctx) -> Any:
    p, rng = ctx.props, ctx.rng
    if "ok" in p:
        return {"ok": True}
    if "wake_up_hour" in p or "blocks" in p:
        return _day(ctx)
    if "steps" in p:
        return {"steps": _steps(ctx)}
    if "ratings" in p:
        items = re.findall(r'^\s*-\s*"(.*)"\s*$', ctx.text, re.M)
        return {"ratings": [_importance(s, rng) for s in items]}
    if p == {"importance"}:
        quoted = re.findall(r'"([^"]{8,})"', ctx.text)
        return {"importance": _importance(quoted[-1] if quoted else ctx.text[-300:], rng)}
    if "choice" in p:
        return _react(ctx)
    if p == {"summary"}:
        return {"summary": _relation(ctx)}
    if p == {"currently"}:
        return {"currently": _status(ctx)}
    if "answer" in p:
        return {"answer": _interview(ctx)}
    if "questions" in p:
        who = ctx.others[:2] or ["the people around"]
        return {"questions": [f"How does {ctx.me} get on with {w}?" for w in who]
                + [f"What is {ctx.me} planning for the coming days?"]}
    if "insights" in p:
        return {"insights": _insights(ctx)}
    if "talk" in p:
        return _gist(ctx)
    if "utterance" in p:
        return _group_turn(ctx)
    if "place" in p:
        return {"place": _place(ctx)}
    if "summary" in p and "importance" in p:
        return _memo(ctx, ctx.me, ctx.convo)
    return {}


def _importance(s: str, rng: random.Random) -> int:
    low = s.lower()
    if any(w in low for w in ("died", "death", "wedding", "married", "born", "fire", "accident")):
        base = 9
    elif _times(s) and _event_day(s, (1, 1, 0)) or any(w in low for w in ("invit", "match", "party", "heard", "news")):
        base = 7
    elif any(w in low for w in ("conversation", "chat", "talk", "said")):
        base = 4
    else:
        base = 2
    return max(1, min(10, base + rng.choice([-1, 0, 0, 1])))


def _plain(ctx: _Ctx) -> str:
    """A spoken turn: the words, then one of the tags the prompt names on its own line."""
    rng, lines = ctx.rng, ctx.convo
    tags = list(dict.fromkeys(re.findall(r"\[([a-z_ ]{2,20})\]", ctx.text[-1500:])))
    mine = ctx.news(ctx.me)
    untold = [e for e in mine if not _mentioned(e, lines)]
    other = ctx.other()
    first = other.split()[0] if other else ""
    last_other = next((t for s, t in reversed(lines) if s != ctx.me), "")
    goodbye = any(b in last_other.lower() for b in _BYE)
    if goodbye:
        words = f"Bye, {first}, take care!"
    elif last_other and (_times(last_other) or "heard" in last_other.lower()) and \
            not any(s == ctx.me for s, _ in lines[lines.index(next(x for x in lines if x[1] == last_other)):]):
        words = _reply(ctx, ctx.me, last_other, other, rng)
    elif untold and rng.random() < 0.7:
        words = _say_news(untold[0], ctx.me)
    elif not lines:
        words = rng.choice([f"Hi {first}! How are you doing?", f"Good to see you, {first}."])
    else:
        words = rng.choice(["It was good to talk. See you around!", "How's work been lately?",
                            "Lovely weather today, isn't it?"])
    p_end = 0.9 if goodbye or "see you" in words.lower() else 0.15 + 0.15 * len(lines)
    end = rng.random() < p_end
    if len(tags) >= 2:
        endtag = next((t for t in tags if "end" in t or "over" in t or "stop" in t), tags[0])
        cont = next((t for t in tags if t != endtag), tags[-1])
        return f"{words}\n[{endtag if end else cont}]"
    return words


def _react(ctx: _Ctx) -> dict:
    opts = _enum_strings(ctx.schema, "choice") or ["continue"]
    seen = [n for n in ctx.others if n in ctx.text[ctx.text.find("notice"):][:400]] or ctx.others
    who = seen[0] if seen else "them"
    untold = [e for e in ctx.news(ctx.me) if who not in e["gist"]]
    r = ctx.rng.random()
    if untold and "talk" in opts:
        choice = "talk" if r < 0.7 else "continue"
    else:
        choice = "talk" if r < 0.3 else "wait" if r < 0.4 else "react" if r < 0.45 else "continue"
    choice = choice if choice in opts else opts[0]
    reason = {"talk": f"{ctx.me} wants to have a word with {who}.",
              "wait": f"{who} looks busy; {ctx.me} will wait a moment.",
              "react": f"Seeing {who} gives {ctx.me} an idea for the next hour."}.get(
        choice, "Nothing here calls for a change of plan.")
    return {"choice": choice, "reason": reason,
            "new_activity": f"spending time with {who}" if choice == "react" else ""}


def _relation(ctx: _Ctx) -> str:
    who = ctx.others[0] if ctx.others else "this person"
    talked = ctx.text.count(f"{who}:") + ctx.text.lower().count("conversation")
    feel = "likes and trusts" if talked > 1 else "knows a little and feels friendly towards"
    return f"{who} is someone from town whom {ctx.me} {feel}."


def _status(ctx: _Ctx) -> str:
    m = re.search(re.escape(ctx.me) + r" is [^.\n]+\.", ctx.text)
    base = m.group(0) if m else f"{ctx.me} is going about the usual routine."
    evs = ctx.news(ctx.me)
    extra = f" {ctx.me} has in mind: {evs[0]['gist']}." if evs else ""
    return (base + extra + f" {ctx.me} cares about the people in town.")[:480]


def _interview(ctx: _Ctx) -> str:
    q = (re.findall(r'"([^"]+\?)"', ctx.text) or [""])[-1]
    qn = [n for n in _NAME.findall(q) if n != ctx.me]
    if qn:
        mem = [ln for ln in ctx.text.split("\n") if qn[0] in ln and ln.lstrip().startswith("-")]
        if mem:
            fact = re.sub(r"^\s*-\s*(\[[^\]]*\]\s*)?", "", mem[-1])[:200]
            return f"Yes, I know {qn[0]}. Last I remember, {fact}"
        return f"I'm sorry, I don't really know {qn[0]}."
    evs = ctx.news(ctx.me)
    if evs and any(w in q.lower() for w in ("event", "plan", "happen", "going", "news", "week")):
        return f"I heard that {evs[0]['gist']}."
    return "Not much to tell, really; I keep to my routine and my neighbours."


def _insights(ctx: _Ctx) -> list[dict]:
    n = max([int(x) for x in re.findall(r"^\s*(\d{1,3})\.\s", ctx.text, re.M)] or [1])
    out = []
    for i, who in enumerate((ctx.others or ["the town"])[:4]):
        ev = [int(x) for x in re.findall(r"^\s*(\d{1,3})\.\s[^\n]*" + re.escape(who), ctx.text, re.M)][:5]
        out.append({"insight": f"{ctx.me} often crosses paths with {who}.", "about": who[:60],
                    "evidence": ev or [min(n, i + 1)], "importance": 3 + ctx.rng.randrange(3)})
    return out


def _memo(ctx: _Ctx, who: str, lines: list[tuple[str, str]]) -> dict:
    """One person's take-away: summary, importance and a plan item when they said yes."""
    rng = ctx.rng
    evs = [e for n in ctx.names for e in ctx.news(n) if _mentioned(e, lines)]
    said = " ".join(t.lower() for s, t in lines if s == who)
    memo = {"summary": f"{who} chatted briefly.", "importance": 2 + rng.randrange(2),
            "plan_activity": "", "plan_date": "", "plan_start": "", "plan_minutes": 0,
            "plan_place": ""}
    partners = sorted({s for s, _ in lines if s != who})
    if partners:
        memo["summary"] = f"{who} talked with {', '.join(partners)}."
    if not evs:
        return memo
    ev = evs[0]
    yes = any(y in said for y in _YES) and not any(n in said for n in _NO)
    no = any(n in said for n in _NO)
    p = 0.3 if ev["host"] == who else 0.85 if yes else 0.0 if no else 0.1
    memo["summary"] = (f"{who} talked with {', '.join(partners) or 'someone'} about this: "
                       f"{ev['gist']}" + (" and said yes." if yes else " and cannot go." if no else "."))[:400]
    memo["importance"] = 5 + rng.randrange(3)
    if rng.random() < p:
        memo.update(plan_activity=_what(ev["gist"]), plan_date=_date(ctx, ev),
                    plan_start=_hm(ev["start"]), plan_minutes=max(30, min(600, ev["end"] - ev["start"])),
                    plan_place=_match_place(ev["gist"], ctx.places))
    return memo


def _date(ctx: _Ctx, ev: dict) -> str:
    want = f"-{ev['day'][0]:02d}-{ev['day'][1]:02d}"
    dates = [d for d in _enum_strings(ctx.schema, "plan_date") if d]
    return next((d for d in dates if d.endswith(want)), "")


def _match_place(words: str, places: list[str]) -> str:
    toks = set(re.findall(r"[a-z]{3,}", words.lower()))
    best, score = "", 0
    for p in places:
        s = len(toks & set(re.findall(r"[a-z]{3,}", p.lower())))
        if s > score:
            best, score = p, s
    return best


def _gist(ctx: _Ctx) -> dict:
    """A whole encounter in one call: do they talk, the lines, and each person's memo."""
    rng = ctx.rng
    people = _enum_strings(ctx.schema, "speaker") or [ctx.me] + ctx.others[:1]
    news = [(n, e) for n in people for e in ctx.news(n)]
    if rng.random() >= (0.85 if news else 0.45):
        return {"talk": False, "lines": []}
    a = people[0]
    lines = [(a, f"Hi {people[1].split()[0] if len(people) > 1 else 'there'}! How are you?")]
    for b in people[1:]:
        lines.append((b, "Doing well, thanks."))
    if news and rng.random() < 0.75:
        teller, ev = news[0]
        lines.append((teller, _say_news(ev, teller)))
        for b in people:
            if b != teller and ev["host"] != b:
                sub = _Ctx.__new__(_Ctx)
                sub.__dict__.update(ctx.__dict__, me=b)
                lines.append((b, _reply(sub, b, lines[-1][1] if lines[-1][0] == teller else _say_news(ev),
                                        teller, rng)))
    lines.append((a, "Good to see you. Take care!"))
    maxn = ctx.schema.get("properties", {}).get("lines", {}).get("maxItems", 6)
    lines = lines[: max(2, maxn)]
    out: dict = {"talk": True, "lines": [{"speaker": s, "text": t} for s, t in lines]}
    if "memos" in ctx.props:
        out["memos"] = [dict(_memo(ctx, p, lines), name=p) for p in people]
    else:
        out["first"] = _memo(ctx, people[0], lines)
        out["second"] = _memo(ctx, people[1] if len(people) > 1 else people[0], lines)
    return out


def _group_turn(ctx: _Ctx) -> dict:
    to = _enum_strings(ctx.schema, "addressed_to") or ["everyone"]
    line = _plain(ctx).split("\n")
    end = len(line) > 1 and ("end" in line[1] or "over" in line[1])
    target = ctx.other() if ctx.other() in to else "everyone" if "everyone" in to else to[0]
    return {"utterance": line[0][:400] or "Hello!", "addressed_to": target, "end_conversation": end}


def _place(ctx: _Ctx) -> dict:
    opts = ctx.schema["properties"]["place"].get("anyOf", [])
    act = (re.findall(r'"([^"]+)"', ctx.text) or [""])[-1]
    toks = set(re.findall(r"[a-z]{3,}", act.lower()))
    best, score = None, 0
    for o in opts:
        pr = o.get("properties", {})
        words = " ".join(str(v) for k in ("sector", "arena", "object") for v in pr.get(k, {}).get("enum", []))
        s = len(toks & set(re.findall(r"[a-z]{3,}", words.lower())))
        if s > score:
            best, score = o, s
    best = best or (opts[0] if opts else {"properties": {}})
    pr = best.get("properties", {})
    objs = pr.get("object", {}).get("enum", [""])
    obj = next((x for x in objs if x and x.lower() in act.lower()), "" if "" in objs else objs[0])
    return {"sector": pr.get("sector", {}).get("enum", [""])[0],
            "arena": pr.get("arena", {}).get("enum", [""])[0], "object": obj}


def _steps(ctx: _Ctx) -> list[dict]:
    total = int((re.findall(r"\((\d+) minutes\)", ctx.text) or re.findall(r"(\d+) minutes", ctx.text) or [30])[0])
    n = max(2, min(6, -(-total // 15)))
    base, rem = divmod(total, n)
    durs = [max(5, min(15, base + (1 if i < rem else 0))) for i in range(n)]
    objs = [o for o in _enum_strings(ctx.schema, "object") if o]
    words = ["getting started", "carrying on", "keeping at it", "taking a short pause", "finishing up",
             "tidying away"]
    out = []
    for i, d in enumerate(durs):
        obj = objs[i % len(objs)] if objs and ctx.rng.random() < 0.6 else ""
        out.append({"activity": words[i] if i < n - 1 else "finishing up", "duration_minutes": d,
                    "object": obj, "object_state": "in use" if obj else ""})
    return out


def _day(ctx: _Ctx) -> dict:
    low = ctx.text
    life = next((ln for ln in low.split("\n") if "wake" in ln.lower() or "bed" in ln.lower()), "")
    ts = _times(life)
    wake = ts[0] if ts else 7 * 60
    bed = ts[-1] if len(ts) > 1 else 22 * 60
    bed = bed + 1440 if bed <= wake else bed
    work = (ts[1], ts[2]) if len(ts) >= 4 else (9 * 60, 17 * 60)
    places = ctx.places or [""]
    home = next((p for p in places if ctx.me.split()[-1].lower() in p.lower()), places[0])
    workp = _match_place(re.sub(re.escape(ctx.me), "", life + " " + low[:600]), [p for p in places if p != home]) \
        or home
    plan = [(wake, wake + 30, "waking up and getting ready", home),
            (wake + 30, wake + 60, "having breakfast", home)]
    t = wake + 60
    for s, e, a, p in [(max(t, work[0]), 720, "working", workp), (720, 780, "having lunch", workp),
                       (780, work[1], "working", workp), (work[1], 1110, "relaxing", home),
                       (1110, 1170, "having dinner", home), (1170, bed, "relaxing at home", home)]:
        if e > t:
            plan.append((t, e, a if s <= t or a != "working" else a, p))
            t = e
    for ev in ctx.news(ctx.me):
        if tuple(ev["day"]) != (ctx.now[0], ctx.now[1]):
            continue
        p = 0.9 if ev["host"] == ctx.me else 0.1 if ev["stance"] == "no" else \
            0.8 if ev["stance"] == "yes" else 0.45
        if ctx.rng.random() < p and wake < ev["start"] < bed:
            plan = _insert(plan, ev["start"], min(ev["end"], bed), _what(ev["gist"]),
                           _match_place(ev["gist"], places) or home)
    blocks = [{"start": _hm(s), "duration_minutes": e - s, "activity": a, "emoji": "🙂", "address": p}
              for s, e, a, p in plan if e - s >= 5][:15]
    blocks.append({"start": _hm(bed), "duration_minutes": max(5, min(960, wake + 1440 - bed)),
                   "activity": "sleeping", "emoji": "😴", "address": home})
    outline = [f"wake up at {_hm(wake)}", "have breakfast", "work and lunch", "dinner and rest"]
    return {"wake_up_hour": wake // 60, "outline": outline, "blocks": blocks}


def _insert(plan: list, s: int, e: int, act: str, place: str) -> list:
    out = []
    for a, b, x, p in plan:
        if b <= s or a >= e:
            out.append((a, b, x, p))
            continue
        if a < s:
            out.append((a, s, x, p))
        if b > e:
            out.append((e, b, x, p))
    out.append((s, e, act, place))
    return sorted(out)


def _enum_strings(schema: Any, key: str) -> list[str]:
    """All enum values under any property called `key`, anywhere in the schema."""
    found: list[str] = []
    if isinstance(schema, dict):
        for k, v in schema.items():
            if k == "properties" and isinstance(v, dict) and isinstance(v.get(key), dict):
                found += [str(x) for x in v[key].get("enum", [])]
            found += _enum_strings(v, key)
    elif isinstance(schema, list):
        for v in schema:
            found += _enum_strings(v, key)
    return list(dict.fromkeys(found))


def _fit(schema: Any, val: Any, ctx: _Ctx, root: dict) -> Any:
    """Make `val` fit `schema`: fill missing required fields, clamp numbers, cut strings and lists."""
    if not isinstance(schema, dict):
        return val
    if "$ref" in schema:
        ref = schema["$ref"].split("/")[-1]
        return _fit(root.get("$defs", {}).get(ref, {}), val, ctx, root)
    if "anyOf" in schema:
        for sub in schema["anyOf"]:
            if sub.get("type") == "null" and val is None:
                return None
        subs = [s for s in schema["anyOf"] if s.get("type") != "null"]
        return _fit(subs[0], val, ctx, root) if subs else None
    if "enum" in schema:
        opts = schema["enum"]
        return val if val in opts else (ctx.rng.choice(opts) if val is None else
                                        ("" if "" in opts else opts[0]))
    t = schema.get("type")
    if t == "object" or "properties" in schema:
        val = val if isinstance(val, dict) else {}
        props = schema.get("properties", {})
        out = {}
        for k, sub in props.items():
            if k in val:
                out[k] = _fit(sub, val[k], ctx, root)
            elif k in schema.get("required", []):
                out[k] = _fit(sub, None, ctx, root)
        return out
    if t == "array":
        val = val if isinstance(val, list) else []
        lo, hi = schema.get("minItems", 0), schema.get("maxItems", 10 ** 6)
        items = schema.get("items", {})
        val = [_fit(items, v, ctx, root) for v in val][:hi]
        while len(val) < max(lo, 1 if not val and lo else 0):
            val.append(_fit(items, val[-1] if val and not isinstance(val[-1], (dict, list)) else None,
                            ctx, root))
        return val
    if t == "integer" or t == "number":
        lo, hi = schema.get("minimum", 0), schema.get("maximum", 10 ** 6)
        v = val if isinstance(val, (int, float)) and not isinstance(val, bool) else (lo + hi) // 2 if hi < 10 ** 6 else lo
        v = int(max(lo, min(hi, v))) if t == "integer" else max(lo, min(hi, v))
        return v
    if t == "boolean":
        return val if isinstance(val, bool) else ctx.rng.random() < 0.5
    if t == "string":
        s = val if isinstance(val, str) else ""
        pat = schema.get("pattern", "")
        if pat and not re.match(pat, s):
            s = "" if re.match(pat, "") else _hm(ctx.now[2]) if re.match(pat, "12:00") else s
        if not s and schema.get("minLength", 0) > 0:
            s = f"{ctx.me} is thinking it over."
        return s[: schema.get("maxLength", 10 ** 6)]
    return val
