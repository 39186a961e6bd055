"""blind13: a stand-in model written from captured requests alone (no brain code, no other stand-in).

It reads a chat-completion body and writes what a middling instruction-tuned model would put in
``choices[0].message.content``. Meaning is read from the prompt text (names = capitalised name
sequences, times in any style, places by schema enum or by shared words); the JSON schema, when
given, decides the shape (a generic filler conforms every answer to it). Declared rules, fixed
before any run (p = probability per request unless said otherwise):

News ("an event": a statement with a day/clock time that is not past, found in persona or memories)
- Teller, in a dialogue turn, brings up news not yet mentioned in the conversation: p = 0.70 per
  turn when it is someone else's event, 0.85 when the speaker hosts it (then it is an invitation).
- Two-/group-gist summaries: they talk p = 0.90 when someone has news, else 0.45 (+0.10 if a trait
  reads sociable, -0.10 if quiet/shy/tired); given talk, the news is told p = 0.85.
Accepting / meaning to go (the listener's plan at the event's time decides)
- Invitation from the host: accept p = 0.65 when the plan there is free or ordinary (work, meals,
  chores, leisure, sleep words), 0.20 when it holds a commitment (other activity, a named person).
- News of someone else's event: says it means to go p = 0.50 when free/ordinary, 0.10 when committed.
- Already planned for that event: says yes p = 0.95. Sociable traits +0.10, quiet/tired -0.10.
- Memo/summary plan item: when the character said yes in the lines, fills the plan fields p = 0.85
  (date, start, minutes, place parsed from the event); when it declined, adds one anyway p = 0.05;
  heard news without saying anything, p = 0.15.
Going
- Day plan: puts a block for an upcoming event today p = 0.90 if it hosts or said yes, 0.35 if only
  heard of it, 0.05 if it declined; one with news and a list of places where people will be takes
  lunch at one of them to tell them p = 0.40.
- Reaction to someone noticed: "talk" p = 0.65 when it has news not told to them, else 0.20
  (+0.15 sociable); "wait" 0.05, "react" 0.05, else "continue".
Questions (interviews): a memory/persona line that shares the question's names or content words
  is answered from, p = 0.90 (misses it 0.10 and says it is not sure); nothing related: says it
  does not know p = 0.95, a vague guess 0.05.
Ratings: importance from content (routine 1-3, conversation 3-4, news/plans with a time 5-7, +-1).
Turn ends: goodbye when the prompt says the speaker must go now, else p = 0.50 right after a yes/no
  to its news, p = 0.35 after 2+ own lines, always after 4+ own lines.
Other requests: a choice among listed options (no schema) takes the one matching its news p = 0.50,
  else the one matching its persona; a question without a schema is answered as an interview;
  unknown schemas are filled field by field from the prompt (speech-like fields as a reply).
Malformed answers, p = 0.05 in all (never for a trivial probe: max_tokens <= 64): JSON kinds:
  truncated JSON 0.02, prose around the JSON 0.015, a refusal 0.01, speaker's name in front 0.005;
  plain-text kinds: name in front 0.025, the tag line missing 0.01, quotes around 0.01, refusal 0.005.
Deterministic per (body, seed): random.Random(seed + sha256 of the messages).
"""
from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import json
import random
import re
from typing import Any

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december"]
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
NUMS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
ORDINARY = ("sleep", "wak", "breakfast", "lunch", "dinner", "supper", "meal", "eat", "relax", "rest",
            "home", "work", "busy", "shift", "chore", "clean", "read", "walk", "getting ready", "tend",
            "open", "clos", "nap", "bath", "wash", "cook", "shop", "errand")
YES = ("count me in", "i'll be there", "i will be there", "i'd love", "i would love", "i'll come",
       "i will come", "see you there", "wouldn't miss", "i'm in", "i'll go", "i will go", "i'll join",
       "i mean to go", "i think i'll", "yes", "sure", "of course", "i'll try to make it")
NO = ("can't", "cannot", "can not", "won't", "unable", "not able", "other plans", "doubt i",
      "sorry", "have to miss", "must miss", "i'll pass", "not go", "no,")
STOP = set("the a an and or of to in on at for with from by is are was were be been it its this that "
           "these those you your yours i me my we our they them their he she his her him who whom what "
           "when where which why how do does did have has had know heard about any anything there here "
           "tell say said will would can could about going some someone something just".split())
NAME_RE = re.compile(r"\b([A-Z][a-z’-]+(?:[ ](?:[A-Z][a-z’-]+|de|van|von|del|la))+)\b")
LEADS = set("how what if when where who why then answer name it is the a an on in at this that these there "
            "yes no but and so someone something everyone hi hello dear".split())
CONV_RE = re.compile(r'^\s*([A-Z][\w\'’. -]{1,60}?):\s*"(.*)"\s*$')
PLAN_RE = re.compile(r"(\d{1,2}:\d{2})\s*[-–]\s*(\d{1,2}:\d{2})\s+(.+?)(?:\s*\((?:planned at )?([^()]*)\))?"
                     r"(?:\s+on\s+(.+))?$")


# ---------------------------------------------------------------- text reading
def _words(s: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", s.lower()) if len(w) > 2 and w not in STOP}


def person_names(text: str, places: list[str]) -> list[str]:
    """Capitalised name sequences that are neither dates, places nor sentence openers, first seen first."""
    found = []
    for n in NAME_RE.findall(text):
        parts = n.split(" ")
        while parts and parts[0].lower() in LEADS:
            parts = parts[1:]
        n = " ".join(parts)
        if len(parts) < 2 or any(x.lower() in MONTHS + DAYS for x in parts) or any(n in pl for pl in places):
            continue
        found.append(n)
    seen = set(found)
    found = [n for n in found if not re.search(rf"\b[Tt]he {re.escape(n)}\b", text)  # 'the Mill Pond' is a place
             and not any(m != n and m.startswith(n) for m in seen)]  # 'Ann Le' cut off from 'Ann Lee'
    out = []
    for n in found:  # 'Places Ann Lee' -> 'Ann Lee' when that stands alone elsewhere
        parts = n.split(" ")
        out.append(next((" ".join(parts[i:]) for i in range(1, len(parts) - 1) if " ".join(parts[i:]) in seen), n))
    return list(dict.fromkeys(out))


def _clock(h: int, m: int, ap: str | None) -> int:
    ap = (ap or "").replace(".", "").lower()
    if ap == "pm" and h < 12:
        h += 12
    if ap == "am" and h == 12:
        h = 0
    return (h % 24) * 60 + m


def parse_times(s: str) -> tuple[int | None, int | None]:
    """First (start, end) minutes-of-day in any style: '2 pm to 4 pm', '14:00-16:00', 'half past five'."""
    t = s.lower()
    one = r"(\d{1,2})(?:[:.](\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?"
    m = re.search(r"(?:from\s+)?" + one + r"\s*(?:to|until|till|-|–)\s*" + one, t)
    if m and (m.group(2) or m.group(3) or m.group(5) or m.group(6)):
        ap2 = m.group(6)
        ap1 = m.group(3) or (ap2 if ap2 and int(m.group(1)) <= int(m.group(4)) else None)
        return _clock(int(m.group(1)), int(m.group(2) or 0), ap1), _clock(int(m.group(4)), int(m.group(5) or 0), ap2)
    m = re.search(r"(\d{1,2}):(\d{2})\s*(a\.?m\.?|p\.?m\.?)?|(\d{1,2})\s*(a\.?m\.?|p\.?m\.?|o'clock)", t)
    if m:
        if m.group(1):
            return _clock(int(m.group(1)), int(m.group(2)), m.group(3)), None
        h = int(m.group(4))
        ap = m.group(5) if "m" in m.group(5) else ("pm" if h < 8 else None)
        return _clock(h, 0, ap), None
    m = re.search(r"half past (\w+)|quarter past (\w+)|quarter to (\w+)", t)
    if m:
        w = next(g for g in m.groups() if g)
        h = NUMS.get(w, int(w) if w.isdigit() else 0)
        h += 12 if 1 <= h < 8 else 0
        return h * 60 + (30 if m.group(1) else 15 if m.group(2) else -15), None
    for word, mins in ((r"\bnoon", 720), ("midday", 720), ("lunchtime", 720), ("midnight", 0),
                       ("after work", 1050), ("sundown", 1140), ("sunset", 1140), ("dusk", 1140),
                       ("tonight", 1140), ("evening", 1140), ("afternoon", 900), ("morning", 600)):
        if re.search(word, t):
            return mins, None
    return None, None


def parse_date(s: str, today: dt.date | None) -> dt.date | None:
    t = s.lower()
    year = today.year if today else 2024
    m = re.search(r"(\d{4})-(\d{2})-(\d{2})", t)
    if m:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    mo = "|".join(MONTHS)
    m = re.search(rf"\b({mo})\s+(\d{{1,2}})\b|\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({mo})\b", t)
    if m:
        mon = MONTHS.index(m.group(1) or m.group(4)) + 1
        try:
            return dt.date(year, mon, int(m.group(2) or m.group(3)))
        except ValueError:
            return None
    if today is None:
        return None
    if "tomorrow" in t:
        return today + dt.timedelta(days=1)
    if re.search(r"\btoday\b|tonight|this (after|even|morn)", t):
        return today
    for i, d in enumerate(DAYS):
        if re.search(rf"\b{d}\b", t):
            return today + dt.timedelta(days=(i - today.weekday()) % 7)
    return None


def strip_stamps(s: str) -> str:
    return re.sub(r"\[[^\]]*\]", "", s).strip(" -")


class Prompt:
    """What the request shows: self, names, today/now, places, plan lines, events."""

    def __init__(self, body: dict[str, Any]) -> None:
        msgs = body.get("messages") or []
        self.system = " ".join(str(m.get("content") or "") for m in msgs if m.get("role") == "system")
        self.text = "\n".join(str(m.get("content") or "") for m in msgs if m.get("role") != "system")
        rf = body.get("response_format") or {}
        js = rf.get("json_schema") or {}
        self.schema = js.get("schema") if isinstance(js, dict) else None
        m = re.search(r"(?im)^\s*name\s*[:\-]\s*(.+?)\s*$", self.text)
        sysn = person_names(self.system, [])
        self.me = sysn[0] if sysn else (m.group(1) if m else "I")
        self.first = self.me.split()[0]
        self.places = sorted(set(re.findall(r"\b[A-Z][\w'’]*(?: [A-Z][\w'’]*)*:[\w'’][\w'’ ]*?:[\w'’]+"
                                            r"(?: [a-z][\w'’]*){0,2}", self.text + json.dumps(self.schema or {}))))
        self.names = [n for n in person_names(self.text, self.places) if n != self.me]
        mo = "|".join(m.capitalize() for m in MONTHS)
        pat = rf"\b(?:{mo})\s+\d{{1,2}}\b(?:,\s*(\d{{4}}))?(?:,\s*(\d{{1,2}}:\d{{2}}))?"
        unbr = re.sub(r"\[[^\]]*\]", "", self.text)  # 'now' is a date given with a year or a clock, not a memory stamp
        d = next((m for m in re.finditer(pat, unbr) if m.group(1) or m.group(2)), None) or re.search(pat, self.text)
        yr = re.search(r"\b(20\d\d)\b", self.text + json.dumps(self.schema or {}))
        year = int(yr.group(1)) if yr else 2024
        if d and not yr:  # no year shown: the one where the weekday shown fits the date
            wd = re.search(r"(?i)\b(" + "|".join(DAYS) + r")\W+" + re.escape(d.group(0)[:3]), self.text)
            for y in range(2020, 2036):
                got = parse_date(d.group(0), dt.date(y, 1, 1))
                if wd and got and DAYS[got.weekday()] == wd.group(1).lower():
                    year = y
                    break
        self.today = parse_date(d.group(0), dt.date(year, 1, 1)) if d else None
        self.now = parse_times(d.group(2))[0] if d and d.group(2) else None
        self.traits = (re.search(r"(?i)traits?\s*[:\-]\s*(.+)", self.text) or [None, ""])[1].lower()
        self.social = 0.1 if re.search(r"sociab|outgo|friendl|talkat|jovial|energet|warm", self.traits) else 0.0
        self.social -= 0.1 if re.search(r"quiet|shy|tired|reserved|grump|stubborn", self.traits) else 0.0

    def plan(self, chunk: str | None = None) -> list[tuple[int, int, str, str, str]]:
        out = []
        for line in (chunk or self.text).splitlines():
            if "[" in line[:4]:
                continue
            m = PLAN_RE.search(line.strip(" -"))
            if m and line.strip().startswith(("-", "*")) or (m and line.strip()[:1].isdigit()):
                out.append((parse_times(m.group(1))[0] or 0, parse_times(m.group(2))[0] or 0,
                            m.group(3), m.group(4) or "", m.group(5) or ""))
        return out

    def events(self, chunk: str | None = None) -> list[dict[str, Any]]:
        """Statements with a time that is not past, best first."""
        found = []
        text = re.sub(r"\n(?![-*\[\d]|\s*\n|[A-Z][\w ]{0,30}:)", " ", chunk or self.text)  # unwrap lines
        for pos, raw in enumerate(re.split(r"\n|(?<=[.!?])\s+(?=[A-Z])", text)):
            line = raw.strip()
            bullet = line.startswith(("-", "*", "[")) or "[" in line[:4]
            s = strip_stamps(line)
            if not s or PLAN_RE.match(s) or len(s) < 25 or s.endswith("?") or "{" in s or re.search(
                    r"(?i)\b(whether|one of:|for each|answer as|if (it|they|not|someone|so|he|she)\b|e\.g\.)", s):
                continue
            segs = {x for pl in self.places for x in pl.split(":")[1:2]}
            if not any(n in s for n in [self.me, *self.names, *segs]):
                continue  # news is about someone or somewhere; a sentence naming neither is instructions
            start, end = parse_times(s)
            date = parse_date(s, self.today)
            if date is None and (start is None or not re.search(
                    r"\b(will|going to|wants? to|plans?|invit\w*|holding|hosting|there'?s|tonight)\b", s, re.I)):
                continue
            if re.search(r"(?i)\bwak\w*\b.*\bbed\b", s):
                continue
            if date and self.today and date < self.today:
                continue
            if date == self.today and self.now is not None and (end or (start or 0) + 60) < self.now:
                continue
            core = clean_core(s)
            content = _words(core) - _words(" ".join([self.me] + self.names + list(YES) + list(NO)))
            if len(core) < 12 or len(content - {"afternoon", "morning", "evening", "tonight", "today",
                                                "tomorrow", "sounds", "lovely", "great"}) < 3:
                continue
            score = 2 * (date is not None) + 2 * (start is not None) + (not bullet) * 3 - ('"' in s)
            found.append({"core": core, "date": date or self.today, "start": start, "end": end,
                          "score": score, "pos": pos, "host": hosts(core, self.me)})
        found.sort(key=lambda e: (-e["score"], e["pos"]))
        return found


def hosts(core: str, who: str) -> bool:
    """The event is who's own (who is its subject), not one they heard of or will go to."""
    return core.startswith(who) and not re.search(r"\b(tell|told|heard|learn\w*|going to|go to|attend\w*|join\w*)\b",
                                                   " ".join(core[len(who):].split()[:5]))


def clean_core(s: str) -> str:
    """The event itself: drop 'X told Y:' / 'conversation with ..:' labels, quoted chatter, trailing clauses."""
    for _ in range(6):
        old = s
        s = re.sub(r'^(?:[^:"?]{0,120}:\s*)+"?', "", s.strip())
        s = re.sub(r'^[^"]{0,80}?\b(?:tell|told|heard|learned|learnt|knows?|said|says|mentioned)\b[^":]{0,40}?\bthat\s+',
                   "", s)
        s = re.sub(r"^[^?\"]{0,40}\?\s+", "", s) if len(s.split("?", 1)[-1]) > 20 else s
        if s == old:
            break
    s = re.split(r'"|\s/\s|;', s)[0].strip(" .,(")
    s = re.sub(r"\s*\(that is[^)]*\)?", "", s)
    while s.count(")") > s.count("(") and ")" in s:
        s = s[::-1].replace(")", "", 1)[::-1]
    return s[:240].rstrip(" ,(")


def told_me(line: str, me: str) -> str:
    """A memory line retold in the first person."""
    s = strip_stamps(line)
    m = re.match(r'^([^:"]{0,120}?)\b(told|heard from)\s+([^:"]{0,80}):\s*(.+)$', s)
    if m:
        who = m.group(1).strip() if m.group(2) == "told" else m.group(3).strip()
        who = "someone" if who in ("", me) else who
        s = f"{who} told me that {clean_core(m.group(4))}"
    elif re.match(r"(?i)conversation with", s):
        core = clean_core(s)
        s = "we talked recently" + (f", about how {core}" if len(core) > 15 else "")
    s = re.sub(rf"\b(told|with|and|from|to|asked|invited|saw) {re.escape(me)}\b", r"\1 me", s)
    s = first_person(s, me).replace(f"{me}'s", "my").replace(me, "I")
    return s[:400]


def when_phrase(ev: dict[str, Any], p: Prompt) -> str:
    bits = []
    if ev.get("date"):
        d = ev["date"]
        bits.append("today" if d == p.today else "tomorrow" if p.today and d == p.today + dt.timedelta(1)
                    else f"on {DAYS[d.weekday()].capitalize()} {MONTHS[d.month - 1].capitalize()} {d.day}")
    if ev.get("start") is not None:
        bits.append(f"at {ev['start'] // 60:02d}:{ev['start'] % 60:02d}")
    return " ".join(bits)


def _conj(verb: str) -> str:
    irregular = {"is": "am", "has": "have", "was": "was", "does": "do", "'s": "am", "’s": "am"}
    if verb in irregular:
        return irregular[verb]
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if re.search(r"(sh|ch|ss|x|o)es$", verb):
        return verb[:-2]
    return verb[:-1] if verb.endswith("s") and not verb.endswith("ss") else verb


def first_person(core: str, name: str) -> str:
    """'<name> wants to ...' becomes 'I want to ...', wherever the name is the subject."""
    out = re.sub(rf"\b{re.escape(name)}\s+(\w+|'s)", lambda m: "I " + _conj(m.group(1)), core)
    return out[:1].upper() + out[1:] if out.startswith("I ") else out


def plan_at(plan: list[Any], ev: dict[str, Any], p: Prompt) -> tuple[str, str]:
    """('free'|'ordinary'|'commit'|'same', activity) of the plan at the event's time."""
    if ev.get("start") is None:
        return "free", ""
    s, e = ev["start"], ev.get("end") or ev["start"] + 60
    evw = _words(ev["core"])
    for a, b, act, _place, day in plan:
        if day and (parse_date(day, p.today) != ev.get("date")):
            continue
        if not day and p.today and ev.get("date") and ev["date"] != p.today:
            continue
        b2 = b if b > a else b + 1440
        if a < e and s < b2:
            if len(evw & _words(act)) >= 2 or re.search(r"going to|attend|event", act) and len(evw & _words(act)):
                return "same", act
            if any(n in act for n in p.names) or not any(o in act.lower() for o in ORDINARY):
                return "commit", act
            return "ordinary", act
    return "free", ""


def stance(text: str) -> str:
    t = text.lower()
    if any(n in t for n in NO):
        return "no"
    return "yes" if any(y in t for y in YES) else ""


def mentioned(ev: dict[str, Any], text: str) -> bool:
    w = _words(ev["core"]) - {"wants", "want", "get"}
    return bool(w) and len(w & _words(text)) >= max(2, len(w) // 2)


def social(chunk: str) -> float:
    t = (re.search(r"(?i)traits?\s*[:\-]\s*(.+)", chunk) or [None, ""])[1].lower()
    return (0.1 if re.search(r"sociab|outgo|friendl|talkat|jovial|energet|warm", t) else 0.0) - (
        0.1 if re.search(r"quiet|shy|tired|reserved|grump|stubborn", t) else 0.0)


def decide(p: Prompt, plan: list[Any], ev: dict[str, Any], invited: bool, soc: float, rng: random.Random) -> tuple[str, str]:
    """'yes' | 'no' | 'meh' for an event raised to this character, with the clashing activity."""
    st, act = plan_at(plan, ev, p)
    free = st in ("free", "ordinary")
    pr = 0.95 if st == "same" else (0.65 if free else 0.20) if invited else (0.50 if free else 0.10)
    if rng.random() < pr + soc:
        return "yes", act
    return ("no" if invited or st == "commit" else "meh"), act


def best_enum(text: str, enum: list[Any]) -> str:
    opts = [v for v in enum if isinstance(v, str) and v]
    if not opts:
        return ""
    common = set.intersection(*[_words(v.replace(":", " ")) for v in opts]) if len(opts) > 1 else set()
    low, tw = text.lower(), _words(text)
    scores = [(len((_words(v.replace(":", " ")) - common) & tw)
               + sum(3 for part in v.split(":")[1:] if part.lower() in low), -i, v) for i, v in enumerate(opts)]
    best = max(scores)
    return best[2] if best[0] > 0 else ""


def event_thing(core: str) -> str:
    m = re.search(r"\b(an?|the|her|his|their|my|our)\s+([\w'-]+(?:\s[\w'-]+){0,3}?)(?=\s+(?:on|at|in|from|this|"
                  r"tomorrow|tonight|for|by|with)\b|[,.;]|$)", core)
    return f"a {m.group(2)}" if m else core[:60]


def plan_fields(p: Prompt, ev: dict[str, Any] | None, host: bool, sch: dict[str, Any]) -> dict[str, Any]:
    blank = {"plan_activity": "", "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    if not ev or ev.get("start") is None:
        return blank
    props = _props(sch)
    iso = ev["date"].isoformat() if ev.get("date") else ""
    dates = (props.get("plan_date") or {}).get("enum")
    s, e = ev["start"], ev.get("end") or ev["start"] + 120
    place = best_enum(ev["core"], (props.get("plan_place") or {}).get("enum") or p.places)
    return {"plan_activity": ("holding " if host else "going to ") + event_thing(ev["core"]),
            "plan_date": iso if not dates or iso in dates else "", "plan_start": f"{s // 60:02d}:{s % 60:02d}",
            "plan_minutes": max(30, min(600, (e - s) % 1440 or 120)), "plan_place": place}


def _props(sch: Any) -> dict[str, Any]:
    return sch.get("properties", {}) if isinstance(sch, dict) else {}


def conv_lines(p: Prompt) -> list[tuple[str, str]]:
    people = {p.me, *p.names}
    return [(m.group(1).strip(), m.group(2)) for line in p.text.splitlines()
            if (m := CONV_RE.match(line)) and m.group(1).strip() in people]


def core_when(ev: dict[str, Any], p: Prompt) -> str:
    """The event with its day and time, said once."""
    core = ev["core"]
    head = core.split(", and ")[0]
    if parse_times(head)[0] is not None and parse_date(head, p.today):
        core = head
    timed = parse_times(core)[0] is not None and parse_date(core, p.today)
    when = "" if timed else when_phrase(ev, p)
    return core + (f" ({when})" if when else "")


def news_line(ev: dict[str, Any], speaker: str, p: Prompt, to: str = "") -> str:
    core = first_person(core_when(ev, p), speaker)
    hi = f"{to.split()[0]}, " if to else ""
    if core.startswith("I "):
        return f"{hi}{core}, and I'd love you to come along!"[:390]
    return f"{hi or 'H'}{'h' if hi else ''}ave you heard? {core[0].upper() + core[1:]}.".strip()[:390]


def reply_line(verdict: str, ev: dict[str, Any], act: str, p: Prompt, invited: bool) -> str:
    when = when_phrase(ev, p)
    if verdict == "yes":
        return f"Oh, that sounds grand, I'll be there {when}!" if invited else \
            f"Thanks for telling me, I think I'll go along {when}."
    if verdict == "no":
        return f"Sorry, I can't make it {when}, I'm {act or 'tied up'} then."
    return "Thanks for letting me know, though I doubt I'll make it."


def dialogue(p: Prompt, rng: random.Random) -> tuple[str, bool, str]:
    """A turn: (words, leaves?, addressed-to person or '')."""
    conv = conv_lines(p)
    rest = "\n".join(ln for ln in p.text.splitlines() if not CONV_RE.match(ln))
    own = [i for i, (s, _) in enumerate(conv) if s == p.me]
    me = re.escape(p.me)
    must_go = bool(re.search(rf"{me}[^.\n]{{0,30}}\b(has to|needs to|ought to|must) (go|leave|head off) (now|soon|shortly)"
                             rf"|{me}(?:'s|’s) last (line|word)", rest, re.I))
    others = [s for s, _ in conv if s != p.me] or [n for n in p.names if n in rest[:600]][:1]
    plan = p.plan(rest)
    for i, (spk, txt) in enumerate(conv):
        if spk == p.me or stance(txt.split('"')[0]) or any(j > i and stance(conv[j][1]) for j in own):
            continue
        evs = [e for e in p.events(txt) if not any(mentioned(e, conv[j][1]) for j in own if j < i)]
        if evs and not any(mentioned(evs[0], conv[j][1]) for j in own if j > i):
            ev = evs[0]
            invited = ev["core"].startswith(("I ", "We ", spk)) or bool(re.search(r"\b(come|join)\b", txt))
            verdict, act = decide(p, plan, ev, invited, p.social, rng)
            return reply_line(verdict, ev, act, p, invited), must_go, spk
    mine = p.events(rest)
    talked = " ".join(t for _, t in conv)
    if mine and not mentioned(mine[0], talked):
        ev = mine[0]
        if rng.random() < (0.85 if ev["host"] else 0.70):
            return news_line(ev, p.me, p, others[0] if not conv and others else ""), must_go, "everyone"
    if not conv:
        who = others[0].split()[0] if others else "there"
        return f"Hi {who}! How are you doing?", must_go, others[0] if others else ""
    last = stance(conv[-1][1].split('"')[0]) if conv[-1][0] != p.me else ""
    if must_go or len(own) >= 4 or (len(own) >= 2 and rng.random() < 0.35) or (last and rng.random() < 0.5):
        return f"It was good to talk, {conv[-1][0].split()[0] if conv[-1][0] != p.me else 'all'}. "\
               "I'd better get on, see you around!", True, conv[-1][0]
    cur = re.search(rf"{re.escape(p.me)} (?:is|was) (\w+ing\b[^.\n(]*)", rest)
    if last:
        return ("Wonderful, see you there then!" if last == "yes" else "Never mind, another time then."), False, conv[-1][0]
    return rng.choice([f"Not bad at all, I've been {cur.group(1).strip() if cur else 'keeping busy'}.",
                       "Same as ever here, busy but happy.", "Lovely weather for it, isn't it?"]), False, conv[-1][0]


def chunks(p: Prompt, people: list[str]) -> dict[str, str]:
    """Each participant's share of the prompt: paragraphs where their name is the most frequent."""
    out = {n: "" for n in people}
    owner = people[0]
    for para in re.split(r"\n\s*\n", p.text):
        counts = [(para.count(n), -i, n) for i, n in enumerate(people)]
        top = max(counts)
        owner = top[2] if top[0] else owner
        out[owner] += para + "\n\n"
    return out


def gist(p: Prompt, sch: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Two- or many-person conversation told briefly: talk?, lines, one memo each."""
    enums = _find(sch, "speaker") or _find(sch, "name")
    people = [n for n in enums if isinstance(n, str)] or [p.me] + p.names[:1]
    people = sorted(people, key=lambda n: (n != p.me, p.text.find(f"{n}\n") if n in p.text else 10**6))
    part = chunks(p, people)
    news = {n: p.events(part[n]) for n in people}
    tellers = sorted([n for n in people if news[n]], key=lambda n: (not hosts(news[n][0]["core"], n),
                                                                    people.index(n)))
    soc = sum(social(part[n]) for n in people) / len(people)
    if rng.random() >= (0.90 if tellers else 0.45 + soc):
        return {"talk": False, "lines": [], "first": None, "second": None, "memos": []}
    lines = [{"speaker": people[0], "text": f"Hello {people[1].split()[0] if len(people) > 1 else 'there'}, how are you?"}]
    memo = {n: {"summary": f"{n} chatted with {', '.join(x for x in people if x != n)} about this and that.",
                "importance": 2, **plan_fields(p, None, False, sch)} for n in people}
    if tellers and rng.random() < 0.85:
        t, ev = tellers[0], news[tellers[0]][0]
        lines.append({"speaker": t, "text": news_line(ev, t, p)})
        told = f"{t} told them: {ev['core']} ({when_phrase(ev, p)})"
        memo[t].update(summary=f"{t} told {', '.join(x for x in people if x != t)} about it: {ev['core']}.",
                       importance=5, **plan_fields(p, None, False, sch))
        for n in people:
            if n == t:
                continue
            host = hosts(ev["core"], t)
            verdict, act = decide(p, p.plan(part[n]), ev, host, social(part[n]), rng)
            lines.append({"speaker": n, "text": reply_line(verdict, ev, act, p, host)})
            said = {"yes": "said they will go", "no": "said they cannot go", "meh": "did not say they would go"}
            memo[n].update(summary=f"{told}; {n} {said[verdict]}.", importance=6 if verdict == "yes" else 4)
            keep = rng.random() < (0.85 if verdict == "yes" else 0.05 if verdict == "no" else 0.15)
            memo[n].update(plan_fields(p, ev if keep else None, False, sch))
    lines.append({"speaker": people[-1], "text": "Good to see you, take care!"})
    maxl = (_props(sch).get("lines") or {}).get("maxItems", 10)
    lines = lines[:maxl - 1] + lines[-1:] if len(lines) > maxl else lines
    ms = [{"name": n, **memo[n]} for n in people]
    return {"talk": True, "lines": lines, "first": memo[people[0]],
            "second": memo[people[1]] if len(people) > 1 else None, "memos": ms}


def _find(sch: Any, key: str) -> list:
    """The enum of the first property called key anywhere in the schema."""
    if isinstance(sch, dict):
        for k, v in sch.items():
            if k == key and isinstance(v, dict) and "enum" in v:
                return list(v["enum"])
            got = _find(v, key)
            if got:
                return got
    elif isinstance(sch, list):
        for v in sch:
            got = _find(v, key)
            if got:
                return got
    return []


def importance(s: str, rng: random.Random) -> int:
    t = s.lower()
    if re.search(r"sleep|waking|getting ready|breakfast|lunch|dinner|brush|bed\b", t) and len(t) < 80:
        base = 1
    elif parse_times(strip_stamps(s))[0] is not None or parse_date(s, dt.date(2024, 1, 1)) and len(t) > 40:
        base = 6 if re.search(r"invit|told|heard|news|want|party|fair|meet|wedding|funeral|show|game", t) else 4
    elif '"' in s or "convers" in t or "chat" in t:
        base = 3
    else:
        base = 2
    return max(1, min(10, base + rng.choice([-1, 0, 0, 1])))


def day_plan(p: Prompt, sch: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    addrs = _find(sch, "address") or p.places or ["home"]
    persona = "\n".join(p.text.split("\n\n")[:1])
    life = (re.search(r"(?i)^.*\bwake.*$", persona, re.M) or [persona])[0]
    wake = parse_times((re.search(r"(?i)wake\w*\s+(?:up\s+)?(?:at\s+)?([^,;]+)", life) or [0, "7 am"])[1])[0]
    bed = parse_times((re.search(r"(?i)(?:bed|sleep)\w*\s+(?:at\s+)?([^,;.]+)", life) or [0, "10 pm"])[1])[0]
    ws, we = parse_times(re.sub(r"(?i)wake\w* up at [^,]+|bed at [^,]+", "", life))
    wake = 420 if wake is None else wake
    bed = 1320 if bed is None else (bed if bed > wake else bed + 1440)
    home = next((a for a in addrs if any(x in a for x in p.me.split())), addrs[0])
    others = [a for a in addrs if a != home]
    workplace = best_enum(life, others) or best_enum(re.sub(re.escape(p.me), "", persona), others) or home
    if ws is None or we is None:
        ws, we = (wake + 120, wake + 600) if workplace != home else (None, None)
    eat = best_enum("bakery cafe inn pub tavern diner restaurant kitchen canteen tea", addrs) or home
    seg: list[list] = []

    def put(a: int, b: int, act: str, emo: str, addr: str) -> None:
        nonlocal seg
        new = []
        for s, e, *rest in seg:
            if s < a:
                new.append([s, min(e, a), *rest])
            if e > b:
                new.append([max(s, b), e, *rest])
        seg = sorted([x for x in new if x[1] > x[0]] + [[a, b, act, emo, addr]])

    put(wake, bed, "relaxing at home", "🏠", home)
    if ws is not None and we is not None:
        put(max(ws, wake + 30), we if we > ws else we + 1440, f"busy at the {workplace.split(':')[-1]}", "🛠️",
            workplace)
    put(wake, wake + 30, "waking up and getting ready", "🚿", home)
    if not any(s <= wake + 30 < e and "work" in act for s, e, act, *_ in seg):
        put(wake + 30, wake + 75, "having breakfast", "🍳", home)
    if wake + 60 < 720 < bed - 60:
        put(720, 780, "having lunch", "🥪", eat if rng.random() < 0.5 else workplace)
    if wake < 1110 < bed - 60:
        put(1110, 1170, "having dinner", "🍲", home)
    evs = p.events()
    if evs and evs[0]["date"] == p.today and evs[0]["start"] is not None:
        ev = evs[0]
        mine = [m.group(2) for m in re.finditer(rf'({re.escape(p.me)}):\s*"([^"]*)"', p.text)]
        said = stance(" ".join(mine[-2:])) or ("no" if re.search(r"cannot go|can't go|declin", p.text) else "")
        pr = 0.90 if ev["host"] or said == "yes" else 0.05 if said == "no" else 0.35
        if rng.random() < pr and wake <= ev["start"] < bed:
            e = ev.get("end") or ev["start"] + 120
            put(ev["start"], min(e, bed), ("holding " if ev["host"] else "going to ") + event_thing(ev["core"]),
                "🎉", best_enum(ev["core"], addrs) or workplace)

    busy = [a for a in addrs if re.search(re.escape(a) + r"[^\n]*\d{1,2}:\d{2}\s*-\s*\d", p.text)]
    if evs and busy and rng.random() < 0.40 and wake + 60 < 720 < bed - 60:
        put(720, 780, "having lunch and telling people the news", "🗣️", rng.choice(busy))
    merged: list[list] = []
    for s in seg:
        if merged and merged[-1][2] == s[2] and merged[-1][4] == s[4] and merged[-1][1] == s[0]:
            merged[-1][1] = s[1]
        else:
            merged.append(s)
    merged = merged[:15]
    merged.append([bed, bed + min(960, max(5, wake + 1440 - bed)), "sleeping", "😴", home])
    blocks = [{"start": f"{(s // 60) % 24:02d}:{s % 60:02d}", "duration_minutes": max(5, min(960, e - s)),
               "activity": a, "emoji": em, "address": ad} for s, e, a, em, ad in merged]
    outline = [f"{b['activity']} at {b['start']}" for b in blocks if b["duration_minutes"] >= 45][:8]
    while len(outline) < 4:
        outline.append(f"{blocks[len(outline) % len(blocks)]['activity']}")
    return {"wake_up_hour": wake // 60, "outline": outline, "blocks": blocks}


STEP_SETS = {"breakfast|lunch|dinner|meal|eat": ["getting the food ready", "setting the table", "eating",
                                                 "having a second cup", "clearing up", "washing the dishes"],
             "sleep|nap|bed": ["settling down", "sleeping soundly", "turning over", "sleeping"],
             "wak|ready|wash": ["getting up", "washing", "getting dressed", "tidying up"],
             "": ["getting started", "working steadily", "taking a short break", "carrying on",
                  "checking on things", "tidying up", "finishing off"]}


def steps(p: Prompt, sch: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    mins = [int(m) for m in re.findall(r"(\d{1,3})\s*min", p.text)]
    total = mins[-1] if mins else 60
    m = re.findall(r"\d{1,2}:\d{2}\s*(?:to|-|–)\s*\d{1,2}:\d{2}[^\n]*?\b(?:is|was|will be)\s+([^,.\n]+)", p.text)
    act = (m[-1] if m else "the task").strip()
    arr = _props(sch).get("steps") or {}
    lo, hi = arr.get("minItems", 1), arr.get("maxItems", 12)
    k = max(lo, min(hi, -(-total // 15)))
    base, extra = divmod(total, k)
    durs = [max(5, min(15, base + (i < extra))) for i in range(k)]
    pool = next(v for key, v in STEP_SETS.items() if not key or re.search(key, act.lower()))
    objs = _find(sch, "object") or [""]
    obj = best_enum(act + " " + " ".join(pool), objs)
    things = [o for o in objs if o]
    if not obj and (things and rng.random() < 0.5 or "" not in objs):
        obj = rng.choice(things or objs)
    return {"steps": [{"activity": (pool[i] if i < len(pool) else f"carrying on with {act}")[:80],
                       "duration_minutes": d, "object": obj, "object_state": "in use" if obj else ""}
                      for i, d in enumerate(durs)]}


def question_of(p: Prompt) -> str:
    qs = re.findall(r'"([^"\n]{3,300}\?)"', p.text)
    return qs[-1] if qs else (re.findall(r"[^.\n]*\?", p.text) or [""])[-1]


def interview(p: Prompt, rng: random.Random) -> str:
    q = question_of(p)
    before = p.text[:p.text.rfind(q)] if q else p.text
    who = [n for n in NAME_RE.findall(q) if n != p.me]
    qw = _words(q) - _words(p.me) - {"know", "heard", "doing", "think", "like", "feel", "happen", "happening"}
    lines = [strip_stamps(x) for x in before.splitlines()[1:] if x.strip()]
    hits = [x for x in lines if (who and any(w in x for w in who)) or (not who and len(qw & _words(x)) >= 1)]
    hits = [h for h in hits if q not in h and not h.startswith("Someone")]
    if not hits:
        return "I'm afraid I don't know anything about that." if rng.random() < 0.95 else \
            "I might have heard something, but I honestly couldn't say."
    if rng.random() >= 0.90:
        return "Hmm, I'm not sure, I can't quite remember."
    best = max(hits, key=lambda h: (bool(p.events(h)), bool(re.search(r"\b(told|heard from)\b", h)),
                                    -abs(len(h) - 120)))
    fact = told_me(best, p.me).rstrip(" .")
    evs = p.events(best)
    lead = f"Yes, I know {who[0].split()[0]}." if who and any(w in best for w in who) else "Yes, I think so."
    when = f" That's {when_phrase(evs[0], p)}." if evs and when_phrase(evs[0], p) not in fact else ""
    return f"{lead} {fact[0].upper() + fact[1:]}.{when}"[:590]


def status(p: Prompt, rng: random.Random) -> str:
    old = re.search(rf"{re.escape(p.me)} is \w+ing\b[^.\n]*\.", p.text) or re.search(rf"{re.escape(p.me)} is [^.\n]+\.", p.text)
    base = old.group(0) if old else f"{p.me} is going about the usual routine."
    evs = p.events()
    if not evs:
        return base + f" {p.me} cares about keeping the days steady and seeing friends around town."
    ev = evs[0]
    mine = " ".join(m.group(1) for m in re.finditer(rf'{re.escape(p.me)}:\s*"([^"]*)"', p.text))
    said = stance(mine) or ("no" if re.search(r"cannot go|can't go", p.text) else "")
    if ev["host"]:
        return f"{base} {core_when(ev, p)}, and {p.me} is asking everyone to come."[:495]
    tail = "means to go" if said == "yes" else "cannot go" if said == "no" else "may go along"
    return f"{base} {p.me} heard that {core_when(ev, p)}, and {tail}."[:495]


def relation(p: Prompt) -> str:
    bullets = [i for i, x in enumerate(p.text.splitlines()) if x.strip().startswith("- [")]
    head = p.text.splitlines()[bullets[0] - 1] if bullets else p.text
    who = [n for n in p.names if n in head] or p.names[:1]
    names = " and ".join(who) or "them"
    mem = "\n".join(x for x in p.text.splitlines() if x.strip().startswith("- ["))
    if re.search(r"convers|chat|told|said|heard from", mem):
        return f"{p.me} gets on well with {names}; they have talked recently and {p.me} feels friendly towards them."
    if mem:
        return f"{p.me} knows {names} from around town but has not had much to do with them lately."
    return f"{p.me} hardly knows {names} yet."


def questions(p: Prompt, sch: dict[str, Any]) -> dict[str, Any]:
    counts = sorted(p.names, key=lambda n: -p.text.count(n))
    qs = [f"What does {p.me} think of {n}, and how are they getting on?" for n in counts[:2]]
    evs = p.events()
    if evs:
        qs.insert(0, f"What will {p.me} do about {event_thing(evs[0]['core'])}?")
    qs.append(f"How is {p.me}'s routine changing these days?")
    return {"questions": qs[:max(1, (_props(sch).get("questions") or {}).get("maxItems", 3))]}


def insights(p: Prompt, sch: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    stm = {int(m.group(1)): m.group(2) for m in re.finditer(r"(?m)^\s*(\d{1,3})[.)]\s+(.+)$", p.text)}
    ok = set(_find(sch, "evidence") or stm or [1])
    out = []
    for n in sorted(p.names, key=lambda n: -p.text.count(n))[:4]:
        ev = [i for i, s in stm.items() if n in s and i in ok][:6] or [min(ok)]
        talk = any(re.search(r"convers|chat|told|said", stm.get(i, "")) for i in ev)
        out.append({"insight": f"{p.me} {'often talks with' if talk else 'keeps seeing'} {n} around town.",
                    "about": n, "evidence": ev, "importance": 4 if talk else 3})
    evs = p.events()
    if evs:
        ids = [i for i, s in stm.items() if mentioned(evs[0], s) and i in ok][:8] or [min(ok)]
        out.insert(0, {"insight": f"{p.me} has {event_thing(evs[0]['core'])} on their mind.",
                       "about": event_thing(evs[0]["core"])[:60], "evidence": ids, "importance": 6})
    return {"insights": out or [{"insight": f"{p.me} keeps to a steady routine.", "about": "routine",
                                 "evidence": [min(ok)], "importance": 2}]}


def react(p: Prompt, sch: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    opts = (_props(sch).get("choice") or {}).get("enum") or ["continue", "talk", "wait", "react"]
    pick = {k: next((o for o in opts if k in str(o).lower()), opts[0]) for k in ("continue", "talk", "wait", "react")}
    quoted = re.findall(r'"([^"]+)"', p.text)
    who = next((n for q in quoted for n in NAME_RE.findall(q) if n != p.me), p.names[0] if p.names else "them")
    evs = p.events()
    told = evs and any(who in ln and mentioned(evs[0], ln) for ln in p.text.splitlines() if ln.startswith("- ["))
    r = rng.random()
    p_talk = 0.65 if evs and not told else 0.20 + (0.15 if p.social > 0 else 0.0)
    if r < p_talk:
        why = f"{p.me} wants to tell {who} the news." if evs and not told else f"{p.me} fancies a chat with {who}."
        return {"choice": pick["talk"], "reason": why, "new_activity": ""}
    if r < p_talk + 0.05:
        return {"choice": pick["wait"], "reason": f"{who} looks busy for now.", "new_activity": ""}
    if r < p_talk + 0.10:
        return {"choice": pick["react"], "reason": "It seems worth a change of plan.",
                "new_activity": f"going over to see {who}"}
    return {"choice": pick["continue"], "reason": "Nothing here calls for a change of plan.", "new_activity": ""}


def _deref(s: Any, root: dict[str, Any]) -> Any:
    while isinstance(s, dict) and "$ref" in s:
        cur: Any = root
        for part in s["$ref"].lstrip("#/").split("/"):
            cur = cur.get(part, {}) if isinstance(cur, dict) else {}
        s = cur
    return s if isinstance(s, dict) else {}


def default_for(key: str, s: dict[str, Any], p: Prompt, rng: random.Random) -> Any:
    k = key.lower()
    enum = s.get("enum")
    t = s.get("type")
    if enum:
        if re.search(r"place|address|location|where", k):
            evs = p.events()
            return best_enum(evs[0]["core"] if evs else p.text[-800:], enum) or enum[0]
        return enum[0]
    if t == "boolean":
        return False
    if t in ("integer", "number"):
        lo, hi = s.get("minimum", 0), s.get("maximum", max(s.get("minimum", 0), 10))
        return (lo + hi) // 2 if "import" in k or "minut" not in k else max(lo, min(hi, 60))
    if t == "array":
        return []
    if t == "object" or "properties" in s:
        return {}
    if re.search(r"time|start|hour", k):
        h = ((p.now or 720) // 60 + 1) % 24
        return f"{h:02d}:00"
    if re.search(r"activ|doing|plan", k):
        return "carrying on with the day"
    if re.search(r"reply|answer|say|utter|text|respon|message|line|speech", k):
        return interview(p, rng) if question_of(p) else dialogue(p, rng)[0]
    return f"{p.me} thinks it over and does what seems sensible."


def conform(v: Any, s: Any, root: dict[str, Any], p: Prompt, rng: random.Random, key: str = "") -> Any:
    s = _deref(s, root)
    if "anyOf" in s or "oneOf" in s:
        opts = [_deref(o, root) for o in s.get("anyOf") or s.get("oneOf")]
        if v is None and any(o.get("type") == "null" for o in opts):
            return None
        s = next((o for o in opts if o.get("type") != "null"), {})
    t = s.get("type") or ("object" if "properties" in s else None)
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if v is None:
        v = default_for(key, s, p, rng)
    if t == "object":
        v = v if isinstance(v, dict) else {}
        props = s.get("properties", {})
        out = {k: conform(v[k], sub, root, p, rng, k) for k, sub in props.items() if k in v}
        for k in s.get("required", []):
            if k not in out:
                out[k] = conform(None, props.get(k, {}), root, p, rng, k)
        return out
    if t == "array":
        v = v if isinstance(v, list) else [v]
        items = s.get("items", {})
        out = [conform(x, items, root, p, rng, key) for x in v][:s.get("maxItems", 10**6)]
        while len(out) < s.get("minItems", 0):
            out.append(conform(out[-1] if out else None, items, root, p, rng, key))
        return out
    if "enum" in s:
        enum = s["enum"]
        if v in enum:
            return v
        close = difflib.get_close_matches(str(v), [str(e) for e in enum], 1, 0.6)
        return next((e for e in enum if close and str(e) == close[0]), "" if "" in enum else enum[0])
    if t == "boolean":
        return bool(v)
    if t in ("integer", "number"):
        try:
            n = float(v)
        except (TypeError, ValueError):
            n = float(default_for(key, {**s, "enum": None}, p, rng))
        n = max(s.get("minimum", n), min(s.get("maximum", n), n))
        return int(round(n)) if t == "integer" else n
    v = str(v)
    if s.get("pattern") and not re.search(s["pattern"], v):
        v = "" if re.search(s["pattern"], "") else str(default_for("start", {}, p, rng))
    if len(v) > s.get("maxLength", 10**6):
        v = v[:s["maxLength"]].rsplit(" ", 1)[0] or v[:s["maxLength"]]
    return v + "." * max(0, s.get("minLength", 0) - len(v))


def schema_from_text(text: str) -> dict[str, Any] | None:
    """No schema given but a JSON shape asked for: read the keys of the last '{"key": ...}' example."""
    i = text.rfind('{"')
    if i < 0:
        return None
    props = {}
    for k, rest in re.findall(r'"(\w+)":\s*([^,}\]]*)', text[i:]):
        props[k] = {"type": "integer"} if "int" in rest or rest.strip()[:1].isdigit() else \
            {"type": "boolean"} if "true" in rest else {"type": "array", "items": {"type": "string"}} \
            if rest.strip().startswith("[") else {"type": "string"}
    return {"type": "object", "properties": props, "required": list(props)} if props else None


def build(p: Prompt, sch: dict[str, Any], rng: random.Random) -> Any:
    keys = set(_props(sch))
    if "answer" in keys:
        return {"answer": interview(p, rng)}
    if "ok" in keys:
        return {"ok": True}
    if "ratings" in keys:
        items = [m for m in re.findall(r'(?m)^\s*[-*\d.)]+\s*"?(.+?)"?\s*$', p.text.split("\n\n", 1)[-1])]
        n = (_props(sch)["ratings"] or {}).get("minItems", len(items))
        return {"ratings": [importance(items[i] if i < len(items) else "", rng) for i in range(max(n, 1))]}
    if keys == {"importance"}:
        qs = [q for q in re.findall(r'"([^"\n]{2,})"', p.text) if " " in q.strip()]
        return {"importance": importance(qs[-1] if qs else p.text[-300:], rng)}
    if "currently" in keys:
        return {"currently": status(p, rng)}
    if "blocks" in keys:
        return day_plan(p, sch, rng)
    if "steps" in keys:
        return steps(p, sch, rng)
    if "choice" in keys:
        return react(p, sch, rng)
    if "talk" in keys:
        return gist(p, sch, rng)
    if "utterance" in keys:
        words, end, to = dialogue(p, rng)
        enum = (_props(sch).get("addressed_to") or {}).get("enum") or []
        return {"utterance": words, "end_conversation": end,
                "addressed_to": to if to in enum or not enum else ("everyone" if "everyone" in enum else enum[0])}
    if "questions" in keys:
        return questions(p, sch)
    if "insights" in keys:
        return insights(p, sch, rng)
    if "summary" in keys and "plan_activity" in keys:
        conv = conv_lines(p)
        mine = " ".join(t for s, t in conv if s == p.me)
        evs = [e for s, t in conv if s != p.me for e in p.events(t)] or p.events("\n".join(t for _, t in conv))
        said = stance(mine)
        ev = evs[0] if evs else None
        keep = ev and not ev["host"] and rng.random() < (0.85 if said == "yes" else 0.05 if said == "no" else 0.15)
        who = ", ".join(sorted({s for s, _ in conv if s != p.me})) or "someone"
        summ = f"{p.me} talked with {who}" + (f" about how {ev['core']} ({when_phrase(ev, p)}); {p.me} "
                                              f"{ {'yes': 'said they would go', 'no': 'cannot go'}.get(said, 'listened')}"
                                              if ev else " about this and that") + "."
        return {"summary": summ, "importance": 6 if ev else 2, **plan_fields(p, ev if keep else None, False, sch)}
    if "summary" in keys:
        return {"summary": relation(p)}
    return {}


def malform(text: str, p: Prompt, rng: random.Random, plain: bool) -> str:
    r = rng.random()
    if plain:
        if r < 0.025:
            return f"{p.me}: {text}"
        if r < 0.035:
            return text.splitlines()[0]
        if r < 0.045:
            return f'"{text.splitlines()[0]}"\n' + "\n".join(text.splitlines()[1:])
        return "I'm sorry, I can't help with that." if r < 0.05 else text
    if r < 0.02:
        return text[:max(1, int(len(text) * rng.uniform(0.3, 0.8)))]
    if r < 0.035:
        return f"Sure! Here is the answer:\n{text}\nLet me know if you need anything else."
    if r < 0.045:
        return "I'm sorry, but I can't help with that request."
    return f"{p.me}: {text}" if r < 0.05 else text


def respond(body: dict[str, Any], seed: int) -> str:
    """The completion text for this request body (deterministic for body and seed)."""
    digest = hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True, default=str).encode()).hexdigest()
    try:
        return _answer(body, random.Random(f"{seed}:{digest}"))
    except Exception:  # never raise: a confused model still answers something
        return "I'm not sure how to answer that."


def _answer(body: dict[str, Any], rng: random.Random) -> str:
    if True:
        p = Prompt(body)
        sch = p.schema if isinstance(p.schema, dict) else None
        plain = sch is None and not re.search(r"(?i)\bjson\b", p.system + p.text[-600:])
        tags = re.findall(r"\[([a-z][a-z _-]{1,15})\]", p.text[-1500:])
        opts = [o.strip() for o in re.findall(r"(?m)^\s*(?:[-*]|\d+[.)])\s+(.+)$", p.text[-800:]) if "[" not in o[:2]]
        if plain and not tags and opts and re.search(r"(?i)\b(choose|pick|which|select|one of)\b", p.text[-800:]):
            evs = p.events()
            text = best_enum(evs[0]["core"] if evs and rng.random() < 0.5 else p.text[:600], opts) or rng.choice(opts)
        elif plain and not tags and question_of(p):
            text = interview(p, rng)
        elif plain:
            words, end, _ = dialogue(p, rng)
            stop = next((t for t in tags if re.search(r"end|stop|done|over|bye|leave", t)), "end")
            go = next((t for t in tags if t != stop), "continue")
            text = f"{words}\n[{stop if end else go}]" if tags or re.search(r"(?i)\b(says? next|say now)\b", p.text) \
                else words
        else:
            sch = sch or schema_from_text(p.text) or {"type": "object", "properties": {}}
            text = json.dumps(conform(build(p, sch, rng), sch, sch, p, rng), ensure_ascii=False)
        if (body.get("max_tokens") or 999) > 64:
            text = malform(text, p, rng, plain)
        return text
