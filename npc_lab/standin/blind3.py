"""blind3: a blind, prompt-only stand-in language model (issue 42, evaluation).

Written only from captured request bodies.  respond(body, seed) -> content text.
Deterministic per (seed, messages, response_format).  Never raises.

DECLARED RULES (chosen before any run; rates are per request unless said otherwise)
==================================================================================
Reading the prompt (meaning, not headings)
  R0  Speaker = the name after "mind of"/"you are", else after "Name:", else the first
      two-word capitalised name.  People = capitalised two-word names that act in the text
      (followed by is/was/has/wants/said/heard/'s/":"), plus names in schema enums.
      Times in any style: "17:00", "5 pm", "5pm", "half past five", "quarter to six",
      "noon", "midnight", "after work"(17:30), "morning"(10:00), "afternoon"(15:00),
      "evening"/"tonight"(19:00), "sundown"/"dusk"(19:30), "lunchtime"(12:30).
      Dates: ISO, "April 11", "11 April", weekday names, "today", "tomorrow", "tonight".
      Places: schema enum values matched by their name parts in the text, else words.
  R1  Event = a sentence (not a schedule line) that names a future day or time AND either an
      event/gathering word or a host/invite phrase ("wants to", "hosting", "invite", "come
      and", "organis", "join") or a known place.  Host = first person named in it.
      A person knows the event if it appears in the text that is about them.
Conversations (dialogue turns: plain-text turns, group turns, one-shot gists)
  C1  Speaker who hosts an upcoming event and has not yet told this partner in the
      conversation mentions it with p = 0.85; a non-host who heard of it: p = 0.55; if the
      memories show it was already told to this partner before: p = 0.25.  Past events
      (day before today, or ended earlier today) are not mentioned (p = 0.9 of omitting; in
      gists, never).  Memory lines resolve "tomorrow"/weekdays against their own timestamp.
  C2  Hearing an event or an invitation (last line of another person names it) the speaker
      decides to attend by schedule and traits:
        sleeping block overlaps event             -> accept 0.05
        real commitment overlaps (another event, "going to", meeting, appointment, a
        person's name in the plan item)           -> accept 0.20, else decline/propose later
        ordinary activity overlaps (work, meal, chores, leisure) -> accept 0.55
        free (or a day whose plan is not shown)   -> accept 0.65
      traits: sociable/energetic/talkative/jovial/curious/generous +0.10 each (max +0.15);
      quiet/tired/stubborn/shy/grumpy/reserved -0.10 each (max -0.15).  If the speaker's
      memories mention the host by name +0.05.  Of the non-accepts, 35% are vague
      ("maybe, I'll see") and 65% declines.  Host never "accepts" own event.
  C3  A speaker who declined earlier (memory says "cannot go"/"can't make it") keeps it:
      re-decides with accept 0.15.
  C4  Ending: a plain-text or group turn ends the conversation with p = 0.15 for the first
      two lines, 0.45 after 2-3 lines, 0.8 after 4+ lines; always ends after someone said
      goodbye twice, and with p = 0.7 right after the other said goodbye.  A reply to news
      ends the talk with p = 0.35; a host's reply to a yes/no/maybe with p = 0.4-0.5 (and
      says "see you there" / "shame, another time").  Small talk otherwise (greeting, what
      one is doing, a remark).
  C5  Gists (one request for the whole talk): they talk with p = 0.8 when either has an
      upcoming event to tell, else 0.45; 0.1 if one of them is sleeping.  2 to 6 lines.
Memos (after a conversation, per person)
  M1  The person said yes to an event in the lines (count me in / I'll be there / I'd love
      to / sounds good ...): plan item with p = 0.85; said maybe: 0.25; said no: 0.03;
      heard it but said nothing about going: 0.15; host of the event: 0.2 (a "hosting" item).
      One who passed on someone else's event: by what they themselves said, as above.
  M2  Plan item fields: date resolved from the event (else today), start from the event time
      (else 15:00 with p 0.5 / empty), minutes = event length (else 120), place = enum value
      the event names (else "" with p 1; a wrong known place with p 0.05).  5% of items
      leave the date empty.
  M3  Importance: event news 5-7, invitation accepted 6-8, small talk 2-3, +-1 noise.
Other purposes
  P1  react: upcoming news to tell the noticed person and not yet told: talk 0.6, continue
      0.25, wait 0.1, react 0.05; noticed person goes to/hosts an event the speaker meant to
      attend: react 0.3 (join), talk 0.3, continue 0.4; speaker sleeping: continue 0.9;
      otherwise continue 0.55, talk 0.25, wait 0.12, react 0.08.
  P2  daily_plan: wake hour from lifestyle (else 7), bed from lifestyle (else 22); work block
      from lifestyle hours at the place the identity names; three meals; an event held
      today that the memories show the speaker means to go to / hosts goes in with p = 0.85,
      one only heard of with p = 0.35; the host also plans "asking people" with p = 0.5.
  P3  decompose: 2-12 steps from activity templates, count within schema bounds, durations
      split evenly and clamped to schema bounds; object from enum when a word matches.
  P4  importance: mundane states 1-3, talks 2-4, plans 2-4, events/news/invites 5-8,
      life events (death, wedding, accident, fire, birth, breakup, fired) 7-10, noise +-1.
  P5  interview: "do you know X": yes (+ a remembered fact) if X is in the memories or
      identity, else no; 10% vague.  "heard about Y": tells the event if known, else no.
  P6  relationship / revise_currently / reflections: built from the names, the event and
      counts of memories; reflections cite statement numbers that mention the subject.
  P7  Unknown schema: filled from the schema itself; json_object: keys of the
      "Answer as {...}" template; unknown text: one plausible sentence.
Malformed output (declared shares; probe requests are always valid)
  X1  JSON answers: 2% truncated mid-way; 1% a refusal sentence; 1% JSON wrapped in prose
      and a ```json fence; 1% (schemas with enums) one enum value replaced by a near miss.
  X2  Plain-text turns: 2% speaker's name in front ("Name: ..."); 1% wrapped in quotes;
      1% end/continue marker missing; 1% a refusal sentence.
  X3  Any answer longer than 4 x max_tokens characters is cut there (length stop).
"""

import hashlib
import json
import random
import re
import datetime as _dt

# ----------------------------------------------------------------------------- helpers

_MONTHS = {m: i + 1 for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august",
     "september", "october", "november", "december"])}
_MON_ABBR = {k[:3]: v for k, v in _MONTHS.items()}
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_NUMWORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
             "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_NOT_NAMES = set(_WEEKDAYS) | set(_MONTHS) | {
    "answer", "name", "age", "identity", "lifestyle", "currently", "innate", "places", "what",
    "it", "the", "today", "schedule", "question", "memory", "nobody", "sounds", "have", "hi",
    "sorry", "fine", "see", "step", "from", "make", "then", "if", "news", "lines", "text",
    "things", "right", "how", "should", "give", "keep", "say", "plan", "rewrite", "on",
    "these", "under", "yes", "no", "and", "i", "you", "a", "an", "is", "was", "do", "does"}

_EVENT_WORDS = (
    "match", "party", "fair", "festival", "concert", "dinner party", "gathering", "meeting",
    "picnic", "dance", "celebration", "show", "market", "service", "wedding", "game",
    "tournament", "quiz", "ceremony", "feast", "supper", "lecture", "talk at", "reading",
    "rehearsal", "practice", "contest", "competition", "race", "parade", "sale", "fete",
    "fête", "ball", "vigil", "tasting", "exhibition", "opening", "launch", "club", "session",
    "night", "evening of", "screening", "recital", "jam", "bonfire", "barbecue", "potluck",
    "auction", "raffle", "social", "get-together", "birthday", "anniversary", "festivities")
_HOST_WORDS = ("wants to", "hosting", "host", "invit", "come and", "come along", "organis",
               "organiz", "join", "holding", "will hold", "is throwing", "putting on",
               "get up", "everyone", "all welcome", "welcome to", "arranging", "planning a",
               "there's a", "there is a", "there will be", "will be a", "come ", "bring ")
_COMMIT_WORDS = ("going to", "meeting", "appointment", "event", "hosting", "visit", "calling on",
                 "date with", "promised", "attend", "ceremony", "match", "party", "rehearsal")
_ORDINARY = ("busy", "work", "lunch", "dinner", "breakfast", "meal", "relax", "chore",
             "clean", "reading", "walk", "shop", "rest", "day off", "tending", "garden",
             "sorting", "cooking", "baking", "knitting", "running", "opening", "closing")
_POS_TRAITS = ("sociable", "energetic", "talkative", "jovial", "curious", "generous",
               "friendly", "outgoing", "cheerful", "lively", "warm", "adventurous")
_NEG_TRAITS = ("quiet", "tired", "stubborn", "shy", "grumpy", "reserved", "solitary",
               "lazy", "cautious", "withdrawn", "gloomy", "busy")
_YES_WORDS = ("count me in", "i'll be there", "i will be there", "i'll come", "i will come",
              "i'd love", "i would love", "see you there", "i'll go", "i will go",
              "wouldn't miss", "sounds good", "sounds lovely", "sounds great", "i'm in",
              "i am in", "yes", "sure", "gladly", "of course", "i'll join", "i will join",
              "looking forward", "i mean to go", "i'll try to make it", "definitely")
_NO_WORDS = ("can't", "cannot", "can not", "sorry", "other plans", "no thanks", "not able",
             "won't", "will not", "unable", "busy then", "decline", "too busy", "pass on")
_MAYBE_WORDS = ("maybe", "might", "perhaps", "i'll see", "we'll see", "not sure", "possibly")


def _rng(seed, body):
    try:
        key = json.dumps([seed, body.get("messages"), body.get("response_format")],
                         sort_keys=True, default=str)
    except Exception:
        key = repr((seed, body))
    h = hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()
    return random.Random(int(h[:16], 16))


def _hm(m):
    m = int(m) % (24 * 60)
    return "%02d:%02d" % (m // 60, m % 60)


def _clean(s):
    return re.sub(r"\s+", " ", str(s or "")).strip()


# ----------------------------------------------------------------------------- time parsing

_TIME_RE = re.compile(
    r"(?<![\d-])(\d{1,2})(?:[:.h](\d{2}))?\s*(a\.?m\.?|p\.?m\.?|o'clock)?(?![\d-])", re.I)


def _parse_clock(tok, ampm=None, guess_pm=True):
    pass


def find_times(text, guess_pm=True):
    """All (position, minutes) clock mentions in text, in order."""
    out = []
    low = text.lower()
    for m in _TIME_RE.finditer(low):
        h, mi, ap = m.group(1), m.group(2), m.group(3)
        if mi is None and ap is None:
            # a bare number: only with "at"/"from"/"to"/"until" before it
            pre = low[max(0, m.start() - 6):m.start()]
            if not re.search(r"\b(at|from|to|until|till|by)\s*$", pre):
                continue
            # skip "April 11", "11 April"
            post = low[m.end():m.end() + 4]
            if re.match(r"\s*(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", post):
                continue
        h = int(h)
        mi = int(mi) if mi else 0
        if h > 24 or mi > 59:
            continue
        if ap and ap.startswith("p") and h < 12:
            h += 12
        elif ap and ap.startswith("a") and h == 12:
            h = 0
        elif not ap and mi == 0 and guess_pm and 1 <= h <= 7:
            h += 12
        elif ap == "o'clock" and guess_pm and 1 <= h <= 7:
            h += 12
        out.append((m.start(), h * 60 + mi))
    for m in re.finditer(r"\b(half past|quarter past|quarter to)\s+(\w+)", low):
        w = m.group(2)
        h = _NUMWORDS.get(w) or (int(w) if w.isdigit() else None)
        if h is None:
            continue
        if guess_pm and 1 <= h <= 7:
            h += 12
        base = h * 60
        off = {"half past": 30, "quarter past": 15, "quarter to": -15}[m.group(1)]
        out.append((m.start(), base + off))
    for m in re.finditer(r"\b(" + "|".join(_NUMWORDS) + r")\s+o'clock", low):
        h = _NUMWORDS[m.group(1)]
        if guess_pm and 1 <= h <= 7:
            h += 12
        out.append((m.start(), h * 60))
    fuzzy = [(r"\bnoon\b|\bmidday\b", 720), (r"\bmidnight\b", 0),
             (r"\bafter work\b", 1050), (r"\blunch ?time\b", 750), (r"\bteatime\b|\btea time\b", 960),
             (r"\bsundown\b|\bsunset\b|\bdusk\b|\bnightfall\b", 1170), (r"\bdawn\b|\bsunrise\b", 360),
             (r"\bafternoon\b", 900), (r"\bevening\b|\btonight\b", 1140), (r"\bmorning\b", 600)]
    for pat, val in fuzzy:
        for m in re.finditer(pat, low):
            out.append((m.start() + 0.5, val))
    out.sort()
    return out


def find_range(text):
    """(start, end) minutes of the first time range in text, else (start, None) or (None, None)."""
    low = text.lower()
    m = re.search(r"(?:from\s+)?([^,;()]{1,22}?)\s*(?:-|–|to|until|till)\s*([^,;()]{1,22})", low)
    ts = [t for _, t in find_times(text)]
    precise = [t for p, t in find_times(text) if p == int(p)]
    if len(precise) >= 2:
        # look for "X to Y" / "X-Y"
        mm = re.search(r"(\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?m\.?)?)\s*(?:-|–|to|until|till)\s*"
                       r"(\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?m\.?)?)", low)
        if mm:
            a = find_times("at " + mm.group(1))
            b = find_times("at " + mm.group(2))
            if a and b:
                s, e = a[0][1], b[0][1]
                if e <= s and e + 720 > s and "m" not in mm.group(2):
                    e += 720
                return s, e
    if precise:
        return precise[0], None
    if ts:
        return ts[0], None
    return None, None


# ----------------------------------------------------------------------------- dates

def _year_of(text):
    m = re.search(r"\b(20\d\d)\b", text)
    return int(m.group(1)) if m else 2026


def parse_today(text, schema_dates=()):
    """The current date and clock (minutes) the prompt is set at."""
    today = None
    m = re.search(r"(\d{4}-\d{2}-\d{2})\s*\((?:[^)]*\b)?today\b", text)
    if m:
        try:
            today = _dt.date.fromisoformat(m.group(1))
        except ValueError:
            today = None
    year = _year_of(text)
    # first date mention outside [brackets]
    stripped = re.sub(r"\[[^\]]*\]", " ", text)
    now_min = None
    for mm in re.finditer(r"\b(?:today is|it is|it's|now)\b[^\n]{0,60}", stripped, re.I):
        seg = mm.group(0)
        d = _date_in(seg, year, None)
        if d and today is None:
            today = d
        tms = [t for p, t in find_times(seg, guess_pm=False) if p == int(p)]
        if tms and now_min is None:
            now_min = tms[0]
        if today is not None:
            break
    if today is None:
        d = _date_in(stripped, year, None)
        if d:
            today = d
    if today is None:
        for s in schema_dates:
            try:
                today = _dt.date.fromisoformat(s)
                break
            except ValueError:
                pass
    if today is None:
        today = _dt.date(year, 4, 10)
    if now_min is None:
        m = re.search(r"\[[^\]]*?(\d{1,2}:\d{2})\]", text[::-1][:1] and text)
        now_min = 9 * 60
    return today, now_min


def _date_in(seg, year, today):
    low = seg.lower()
    m = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", low)
    if m:
        try:
            return _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            pass
    m = re.search(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b", low)
    if m:
        try:
            return _dt.date(year, _MON_ABBR[m.group(1)], int(m.group(2)))
        except ValueError:
            pass
    m = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", low)
    if m:
        try:
            return _dt.date(year, _MON_ABBR[m.group(2)], int(m.group(1)))
        except ValueError:
            pass
    if today is not None:
        if re.search(r"\btomorrow\b", low):
            return today + _dt.timedelta(days=1)
        if re.search(r"\b(today|tonight|this (morning|afternoon|evening))\b", low):
            return today
        m = re.search(r"\b(next week)\b", low)
        if m:
            return today + _dt.timedelta(days=7)
        for i, w in enumerate(_WEEKDAYS):
            if re.search(r"\b" + w + r"\b", low):
                delta = (i - today.weekday()) % 7
                return today + _dt.timedelta(days=delta)
    return None


# ----------------------------------------------------------------------------- people & places

def speaker_of(body):
    msgs = body.get("messages") or []
    sys_t = " ".join(str(m.get("content", "")) for m in msgs if m.get("role") == "system")
    all_t = " ".join(str(m.get("content", "")) for m in msgs)
    for pat in (r"mind of ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})",
                r"[Yy]ou are ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})",
                r"[Yy]ou play ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})"):
        m = re.search(pat, sys_t)
        if m:
            return m.group(1).strip()
    m = re.search(r"Name:\s*([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})", all_t)
    if m:
        return m.group(1).strip()
    ppl = people_in(all_t)
    return ppl[0] if ppl else "I"


def people_in(text):
    cands = {}
    for m in re.finditer(r"\b([A-Z][a-z'\-]+ [A-Z][a-z'\-]+)(?=\s+(?:is|was|has|had|wants|said|says|"
                         r"heard|knows|asked|told|hosts|invites|chatted|will|'s|keeps|runs)\b|'s\b|:\s*\")",
                         text):
        n = m.group(1)
        if n.split()[0].lower() in _NOT_NAMES or n.split()[1].lower() in _NOT_NAMES:
            continue
        cands[n] = cands.get(n, 0) + 1
    return sorted(cands, key=lambda n: (-cands[n], text.find(n)))


def _enum_vals(schema, key_hint):
    """All enum lists under properties whose name contains key_hint."""
    out = []

    def walk(s):
        if isinstance(s, dict):
            for k, v in (s.get("properties") or {}).items():
                if key_hint in k and not (key_hint == "address" and "addressed" in k) and isinstance(v, dict) and v.get("enum"):
                    out.append(v["enum"])
            for v in s.values():
                walk(v)
        elif isinstance(s, list):
            for v in s:
                walk(v)
    walk(schema)
    return out


def places_from(text, schema):
    ps = []
    for lst in _enum_vals(schema, "place") + _enum_vals(schema, "address"):
        for v in lst:
            if v and v not in ps:
                ps.append(v)
    for m in re.finditer(r"\b([A-Z][\w' ]+:[\w' ]+:[\w' ]+)\b", text):
        v = m.group(1).strip()
        if v not in ps and len(v) < 80:
            ps.append(v)
    return ps


def match_place(sentence, places, avoid_generic=True):
    """The known place a sentence names, by its name parts; None if none."""
    low = sentence.lower()
    best, score = None, 0
    tops = {}
    for p in places:
        parts = [x.strip() for x in p.split(":") if x.strip()]
        if parts:
            tops[parts[0]] = tops.get(parts[0], 0) + 1
    for p in places:
        if p.lower() in low:
            return p
        parts = [x.strip() for x in p.split(":") if x.strip()]
        sc = 0
        for i, part in enumerate(parts):
            if len(parts) > 1 and i == 0 and tops.get(part, 0) > 1:
                continue  # the town name
            pl = part.lower()
            if pl in ("bedroom", "home", "house") and avoid_generic:
                continue
            if len(pl) >= 4 and re.search(r"\b" + re.escape(pl) + r"\b", low):
                sc += 2 + (1 if i == len(parts) - 2 else 0)
        if sc > score:
            best, score = p, sc
    return best


def home_of(name, places):
    last = name.split()[-1].lower() if name else ""
    for p in places:
        if last and last in p.lower() and any(w in p.lower() for w in ("bed", "home", "house", "room", "flat", "cottage")):
            return p
    for p in places:
        if last and last in p.lower():
            return p
    for p in places:
        if any(w in p.lower() for w in ("bedroom", "home")):
            return p
    return places[0] if places else ""


# ----------------------------------------------------------------------------- segments

def _sentences(text):
    parts = re.split(r"\n|(?<=[.!?])\s+(?=[A-Z\[\-])", text)
    return [p.strip(" -") for p in parts if p and p.strip(" -")]


def person_text(text, person, people):
    """Paragraphs mostly about person."""
    paras = re.split(r"\n\s*\n", text)
    mine = []
    for p in paras:
        counts = {n: p.count(n) for n in people}
        if counts.get(person, 0) and counts[person] >= max(counts.values()):
            mine.append(p)
    return "\n\n".join(mine) if mine else text


def dialogue(text):
    """The current conversation's lines [(speaker, text)], from after the last memory line."""
    lines = text.split("\n")
    last_mem = -1
    for i, ln in enumerate(lines):
        if re.match(r"\s*(?:-\s*|\d+\.\s*)?\[[^\]]{4,40}\]", ln):
            last_mem = i
    out = []
    for ln in lines[last_mem + 1:]:
        m = re.match(r"\s*([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2}):\s*[\"“](.*?)[\"”]?\s*$", ln)
        if m and m.group(1).split()[0].lower() not in _NOT_NAMES:
            out.append((m.group(1), m.group(2)))
    return out


# ----------------------------------------------------------------------------- events

class Event:
    def __init__(self, sentence, host, date, start, end, place, desc):
        self.sentence, self.host, self.date = sentence, host, date
        self.start, self.end, self.place, self.desc = start, end, place, desc

    def when_phrase(self, today):
        d = ""
        if self.date:
            if self.date == today:
                d = "today"
            elif self.date == today + _dt.timedelta(days=1):
                d = "tomorrow"
            else:
                d = "on " + _WEEKDAYS[self.date.weekday()].capitalize()
        t = ""
        if self.start is not None:
            h, mi = divmod(self.start, 60)
            t = "at %d%s %s" % (h % 12 or 12, (":%02d" % mi) if mi else "", "pm" if h >= 12 else "am")
        return (d + " " + t).strip()


def _is_schedule_line(s):
    low = s.lower()
    if "plan for" in low or "schedule" in low or len(re.findall(r"\d{1,2}:\d{2}", s)) >= 3:
        return True
    if re.match(r"\s*(?:[-*•]\s*)?(?:from\s+)?\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?m\.?)?\s*(?:-|–|to|until|till)\s*"
                r"\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?m\.?)?\b", s):
        return True
    if re.search(r"\(\d+ min\)", low):
        return True
    return False


def find_events(text, people, places, today):
    evs = []
    seen = set()
    for s in _sentences(text):
        ref = today
        mts = re.match(r"^\[([^\]]*)\]", s)
        if mts:
            ref = _date_in(mts.group(1), today.year, None) or today
        body = re.sub(r"^\[[^\]]*\]\s*", "", s)
        if _is_schedule_line(body):
            continue
        low = body.lower()
        has_ev = any(re.search(r"\b" + re.escape(w), low) for w in _EVENT_WORDS)
        has_host = any(w in low for w in _HOST_WORDS)
        date = _date_in(body, today.year, ref)
        times = find_times(body)
        has_time = bool(times) or date is not None
        pl = match_place(body, places)
        if re.search(r"\bis (busy|sleeping|having|relaxing|waking|chatting)\b", low) and not (has_host or "going to" in low):
            continue
        quoted = bool(re.match(r"\s*[A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*:\s*[\"“]", body))
        score = (2 if has_time else 0) + (2 if has_ev else 0) + (1 if has_host else 0) + (1 if pl else 0) + (1 if quoted and date else 0)
        if not has_time or score < 4:
            continue
        key = (pl, date)
        host = _host_of(body, people)
        start, end = find_range(body)
        if start is not None and start < 6 * 60 and not re.search(r"\d\s*a\.?m", low):
            start += 12 * 60
        desc = _event_desc(body, host)
        for e in evs:
            if e.place == pl and e.desc == desc:
                key = (e.place, e.date)
                if e.date is None and date is not None:
                    e.date = date
                break
        if key in seen:
            for e in evs:
                if (e.place, e.date) == key:
                    if e.start is None and start is not None:
                        e.start, e.end = start, end
                    if e.end is None and end is not None:
                        e.end = end
            continue
        seen.add(key)
        evs.append(Event(body, host, date, start, end, pl, desc))
    return evs


def _host_of(body, people):
    """Who holds the event: a name doing the holding (wants to / is hosting / invites / 's),
    else the first name after any 'heard from X:'-like lead-in, else the first name."""
    best = None
    for n in people:
        for m in re.finditer(re.escape(n) + r"(?:'s\b|\s+(?:wants|is hosting|hosts|is holding|holds|invites|is organi|"
                             r"is putting on|puts on|is throwing|is getting up|will hold|is having a|is running))", body):
            if best is None or m.start() < best[0]:
                best = (m.start(), n)
    if best:
        return best[1]
    tail = re.split(r":\s", body, maxsplit=1)[-1] if re.search(r"(heard|learned|mind|told)[^:]{0,60}:\s", body) else body
    first = None
    for n in people:
        if n in tail and (first is None or tail.find(n) < tail.find(first)):
            first = n
    return first


def _event_desc(body, host):
    s = body
    s = re.sub(r"^.*?(heard from|learned that|news on their mind[^:]*:)\s*[A-Z][\w]+ [A-Z][\w]+:?\s*", "", s)
    s = re.sub(r"^(have you heard\?\s*)", "", s, flags=re.I)
    m = re.search(r"(\b(?:a|an|the|his|her|their)\s+[^,.;:]*?\b(?:" + "|".join(re.escape(w) for w in _EVENT_WORDS) + r")\b)", s, re.I)
    if m:
        d = m.group(1)
    else:
        d = re.split(r"[,;(]| on | at | from ", s)[0]
        d = re.sub(r"^" + re.escape(host or "") + r"\s*", "", d) if host else d
    d = _clean(d)
    return d[:70] or "the gathering"


def event_passed(ev, today, now):
    if ev.date and ev.date < today:
        return True
    if ev.date == today and now is not None:
        end = ev.end if ev.end is not None else ((ev.start or 0) + 120)
        if ev.start is not None and end <= now:
            return True
    return False


def plan_items(text):
    """Schedule lines: [(start, end, activity)] from 'HH:MM-HH:MM activity' lines."""
    out = []
    tpat = r"(\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?m\.?)?)"
    for m in re.finditer(r"(?m)^\s*(?:[-*•]\s*)?(?:from\s+)?" + tpat + r"\s*(?:-|–|to|until|till)\s*" + tpat +
                         r"\s*[:,]?\s*(.+)$", text):
        a = find_times("at " + m.group(1), guess_pm=False)
        b = find_times("at " + m.group(2), guess_pm=False)
        if a and b:
            out.append((a[0][1], b[0][1], m.group(3).strip()))
    return out


def clash(text, ev, today, people):
    """'sleep', 'commit:<activity>', 'ordinary:<activity>' or 'free' for the event time."""
    if ev.start is None or (ev.date is not None and ev.date != today):
        return "free"
    s, e = ev.start, (ev.end if ev.end is not None else ev.start + 90)
    worst = "free"
    for a, b, act in plan_items(text):
        bb = b if b > a else b + 1440
        if a < e and s < bb:
            low = act.lower()
            evwords = set(w for w in re.findall(r"[a-z]{4,}", ev.desc.lower()))
            if evwords and any(w in low for w in evwords):
                continue  # it is the event itself
            if "sleep" in low:
                return "sleep"
            if any(w in low for w in _COMMIT_WORDS) or any(n in act for n in people):
                worst = "commit:" + act
            elif worst == "free":
                worst = "ordinary:" + act
    return worst


def trait_bonus(text, who):
    low = text.lower()
    m = re.search(r"traits?:\s*([^\n]+)", low)
    seg = m.group(1) if m else low[:400]
    pos = sum(1 for w in _POS_TRAITS if w in seg)
    neg = sum(1 for w in _NEG_TRAITS if re.search(r"\b" + w + r"\b", seg))
    return max(-0.15, min(0.15, 0.1 * pos)) if pos and not neg else (
        max(-0.15, -0.1 * neg) if neg and not pos else 0.0)


def decide_attend(rng, text, who, ev, today, people):
    """'yes', 'maybe', or ('no', reason)."""
    c = clash(text, ev, today, people)
    if c == "sleep":
        p = 0.05
    elif c.startswith("commit"):
        p = 0.20
    elif c.startswith("ordinary"):
        p = 0.55
    else:
        p = 0.65
    p += trait_bonus(text, who)
    if ev.host and ev.host != who and text.count(ev.host) >= 2:
        p += 0.05
    low = text.lower()
    if re.search(r"(cannot go|can't make it|can not go|won't go|declined)", low):
        p = min(p, 0.15)
    if rng.random() < p:
        return "yes", c
    if rng.random() < 0.35:
        return "maybe", c
    return "no", c


# ----------------------------------------------------------------------------- phrasing

def _first(n):
    return (n or "").split()[0] if n else "there"


def tell_line(rng, who, ev, today, is_host):
    when = ev.when_phrase(today)
    place = ""
    if ev.place:
        parts = [p for p in ev.place.split(":") if p.strip()]
        place = parts[1] if len(parts) >= 2 else parts[-1]
    where = (" at the " + place) if place and place.lower() not in ev.desc.lower() else ""
    if is_host:
        opts = ["I'm putting on %s%s %s; would you come along?" % (ev.desc, where, when),
                "You must come: I'm getting up %s%s %s." % (ev.desc, where, when),
                "I'm organising %s%s %s, everyone's welcome. Will you come?" % (ev.desc, where, when)]
    else:
        h = ev.host or "someone"
        opts = ["Have you heard? %s is holding %s%s %s." % (h, ev.desc, where, when),
                "Did you know %s has %s%s %s? Thought you'd like to hear." % (h, ev.desc, where, when),
                "There's %s%s %s, %s is behind it." % (ev.desc, where, when, _first(h))]
    return _clean(rng.choice(opts)).replace(" .", ".").replace(" ?", "?")


def reply_line(rng, decision, clash_txt, ev, today):
    when = ev.when_phrase(today)
    if decision == "yes":
        return rng.choice(["That sounds lovely, count me in %s!" % when,
                           "Oh, I'd love to. I'll be there %s." % when,
                           "Sounds good, I'll come along %s." % when])
    if decision == "maybe":
        return rng.choice(["Maybe, I'll see how the day goes.",
                           "Perhaps, I'm not sure yet. Thanks for telling me.",
                           "Oh? I might look in, we'll see."])
    act = clash_txt.split(":", 1)[1] if ":" in clash_txt else ""
    act = re.sub(r"\s*\(.*$", "", act)
    if act:
        return rng.choice(["Sorry, I can't make it, I'm %s then." % act,
                           "I'd like to, but I'm %s then. Another time?" % act])
    return rng.choice(["Sorry, I can't make it this time.",
                       "Thanks, but I don't think I'll go."])


def smalltalk(rng, who, partner, text):
    low = text.lower()
    act = ""
    m = re.search(re.escape(who) + r" is ([a-z]+ing\b[^.\n(]{0,45})", text)
    if m:
        act = m.group(1).strip()
    opts = ["Hello %s, how are you keeping?" % _first(partner),
            "Morning, %s! Busy day?" % _first(partner) if "morning" in low else "Hi %s, nice to see you." % _first(partner),
            ("I'm %s at the moment, how about you?" % act) if act else "Not much news from me, how about you?",
            "Lovely weather for it, isn't it?"]
    return rng.choice(opts)


def goodbye(rng, partner):
    return rng.choice(["It was good to talk, %s. See you around!" % _first(partner),
                       "Well, I'd better get on. Bye for now, %s." % _first(partner),
                       "Take care, %s!" % _first(partner)])


def _said_yes(t):
    low = t.lower()
    if any(w in low for w in _NO_WORDS) and not any(w in low for w in ("count me in", "i'll be there")):
        return "no"
    if any(w in low for w in _MAYBE_WORDS):
        return "maybe"
    if any(re.search(r"\b" + re.escape(w) + r"\b", low) for w in _YES_WORDS):
        return "yes"
    return None


def _mentions(t, ev):
    low = t.lower()
    words = [w for w in re.findall(r"[a-z]{4,}", ev.desc.lower()) if w not in ("wants", "with", "from", "that")]
    return bool(words) and sum(1 for w in words if w in low) >= max(1, len(words) // 2)


# ----------------------------------------------------------------------------- turn logic

def _told_before(text, partner, ev):
    """Memories show this event already came up with partner (a remembered talk or 'heard from')."""
    lines = text.split("\n")
    for i, ln in enumerate(lines):
        if not re.match(r"\s*(?:-\s*|\d+\.\s*)?\[[^\]]{4,40}\]", ln):
            continue
        if partner not in ln:
            continue
        if re.search(r"(conversation|talk|chat|heard|told|said)", ln.lower()):
            seg = " ".join([ln] + lines[i + 1:i + 5])
            if re.search(r"(conversation with|heard from|told|talked with|chatted with)\s+" + re.escape(partner), ln) and _mentions(seg, ev):
                return True
    return False


def next_turn(rng, who, partners, text, dlg, today, now, events, people):
    """(utterance, end, addressed) for one turn by who."""
    partner = partners[0] if partners else "there"
    mine_before = [t for s, t in dlg if s == who]
    others = [(s, t) for s, t in dlg if s != who]
    nlines = len(dlg)
    goodbyes = sum(1 for _, t in dlg if re.search(r"\b(bye|see you|take care|good to talk)\b", t.lower()))
    upcoming = [e for e in events if not (event_passed(e, today, now) and rng.random() < 0.9)]
    # respond to news / invitation just heard
    if others and dlg[-1][0] != who:
        last_s, last_t = dlg[-1]
        for ev in upcoming:
            if _mentions(last_t, ev) or (any(w in last_t.lower() for w in _HOST_WORDS + ("heard",)) and find_times(last_t)):
                if ev.host == who:
                    u = rng.choice(["Yes, that's mine! I do hope you'll come.", "That's right, I'm running it. Do come."])
                    return u, rng.random() < 0.3, last_s
                if any(_mentions(t, ev) and _said_yes(t) for t in mine_before):
                    break
                dec, c = decide_attend(rng, text, who, ev, today, people)
                return reply_line(rng, dec, c, ev, today), rng.random() < 0.35, last_s
    if others and dlg[-1][0] != who and any(_mentions(t, ev) for t in mine_before for ev in events):
        st = _said_yes(dlg[-1][1])
        if st == "yes":
            return rng.choice(["Wonderful, see you there!", "Splendid, the more the merrier."]), rng.random() < 0.4, dlg[-1][0]
        if st == "no":
            return rng.choice(["Ah, that's a shame. Another time, then.", "Never mind, maybe next time."]), rng.random() < 0.5, dlg[-1][0]
        if st == "maybe":
            return "Do try, it should be fun.", rng.random() < 0.4, dlg[-1][0]
    if goodbyes >= 2 or (goodbyes >= 1 and dlg and dlg[-1][0] != who and rng.random() < 0.7):
        return goodbye(rng, partner), True, partner
    # tell news
    for ev in upcoming:
        if any(_mentions(t, ev) for _, t in dlg):
            continue
        if ev.host is None and who not in ev.sentence:
            pass
        is_host = ev.host == who
        told_before = _told_before(text, partner, ev)
        p = 0.85 if is_host else 0.55
        if told_before:
            p = 0.25
        if rng.random() < p:
            addressed = "everyone" if len(partners) > 1 else partner
            return tell_line(rng, who, ev, today, is_host), False, addressed
        break
    pend = 0.15 if nlines < 2 else (0.45 if nlines < 4 else 0.8)
    if rng.random() < pend and nlines > 0:
        return goodbye(rng, partner), True, partner
    if not mine_before:
        return smalltalk(rng, who, partner, text), False, partner
    return rng.choice(["Oh, that's good to hear.", "Indeed. Well, it's been a full week.",
                       "Quite right. I must get on soon."]), False, partner


# ----------------------------------------------------------------------------- memos

def make_memo(rng, who, other, dlg, events, today, now, places, date_enum, place_enum):
    said = [t for s, t in dlg if s == who]
    heard = [t for s, t in dlg if s != who]
    ev_hit = None
    for ev in events:
        if any(_mentions(t, ev) for _, t in dlg):
            ev_hit = ev
            break
    if ev_hit is None and dlg:
        # an event talked of in the lines that the prompt otherwise never described
        joined = " ".join(t for _, t in dlg)
        if find_times(joined) and any(w in joined.lower() for w in _EVENT_WORDS + _HOST_WORDS):
            evs = find_events("\n".join(t for _, t in dlg), [who, other], places, today)
            if evs:
                ev_hit = evs[0]
    memo = {"summary": "", "importance": 2, "plan_activity": "", "plan_date": "",
            "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    if not dlg:
        memo["summary"] = "%s and %s just said hello." % (who, other)
        return memo
    if ev_hit is None:
        memo["summary"] = "%s chatted briefly with %s; nothing in particular was settled." % (who, other)
        memo["importance"] = max(1, min(10, 2 + rng.choice([-1, 0, 0, 1])))
        return memo
    stance = None
    for t in said:
        if _mentions(t, ev_hit) and ev_hit.host != who:
            continue
        st = _said_yes(t)
        if st:
            stance = st
    when = ev_hit.when_phrase(today)
    host = ev_hit.host or other
    if ev_hit.host == who:
        p = 0.2
        memo["summary"] = "%s told %s about %s %s%s." % (who, other, ev_hit.desc, when,
                                                       {"yes": ", and they said they would come", "no": ", but they cannot come", "maybe": ", and they might come"}.get(_said_yes(" ".join(heard)) or "", ""))
        memo["importance"] = 5
    elif any(_mentions(t, ev_hit) for t in said) and not any(_mentions(t, ev_hit) for t in heard):
        p = 0.15 if stance is None else {"yes": 0.85, "maybe": 0.25, "no": 0.03}.get(stance, 0.15)
        memo["summary"] = _clean("%s told %s about %s %s%s." % (who, other, ev_hit.desc, when,
                                 {"yes": ", and they said they would come", "no": ", but they cannot come", "maybe": ", and they might come"}.get(_said_yes(" ".join(heard)) or "", "")))
        memo["importance"] = 4
    else:
        p = {"yes": 0.85, "maybe": 0.25, "no": 0.03}.get(stance, 0.15)
        verb = {"yes": "and said they would go", "maybe": "and might go", "no": "but cannot go"}.get(stance, "")
        memo["summary"] = _clean("%s heard from %s about %s %s %s." % (who, other, ev_hit.desc, when, verb)).replace(" .", ".")
        memo["importance"] = 6 if stance == "yes" else 5
    memo["importance"] = max(1, min(10, memo["importance"] + rng.choice([-1, 0, 0, 1])))
    if rng.random() < p:
        act = ("hosting " if ev_hit.host == who else "going to ") + ev_hit.desc
        memo["plan_activity"] = act[:120]
        d = ev_hit.date or today
        ds = d.isoformat()
        if date_enum and ds not in date_enum:
            ds = ""
        if rng.random() < 0.05:
            ds = ""
        memo["plan_date"] = ds
        if ev_hit.start is not None:
            memo["plan_start"] = _hm(ev_hit.start)
        elif rng.random() < 0.5:
            memo["plan_start"] = "15:00"
        if ev_hit.start is not None and ev_hit.end is not None and ev_hit.end > ev_hit.start:
            memo["plan_minutes"] = min(600, ev_hit.end - ev_hit.start)
        else:
            memo["plan_minutes"] = 120
        pl = ev_hit.place or ""
        if place_enum is not None:
            if pl not in place_enum:
                pl = match_place(ev_hit.sentence, [x for x in place_enum if x]) or ""
            if pl and rng.random() < 0.05:
                alt = [x for x in place_enum if x and x != pl]
                if alt:
                    pl = rng.choice(alt)
        memo["plan_place"] = pl
    return memo


# ----------------------------------------------------------------------------- generic schema filling

def _resolve(schema, root):
    if isinstance(schema, dict) and "$ref" in schema:
        ref = schema["$ref"]
        node = root
        for part in ref.lstrip("#/").split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        return node
    return schema


def fill(schema, root, rng, hint=""):
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return None
    if "anyOf" in schema:
        nn = [s for s in schema["anyOf"] if _resolve(s, root).get("type") != "null"]
        return fill(nn[0], root, rng, hint) if nn else None
    if "enum" in schema and schema["enum"]:
        vals = [v for v in schema["enum"] if v != ""] or schema["enum"]
        return rng.choice(vals)
    t = schema.get("type")
    if t == "object" or "properties" in schema:
        out = {}
        for k, v in (schema.get("properties") or {}).items():
            out[k] = fill(v, root, rng, k)
        return out
    if t == "array":
        n = max(schema.get("minItems", 1), min(schema.get("maxItems", 3), 2))
        return [fill(schema.get("items", {}), root, rng, hint) for _ in range(n)]
    if t == "integer":
        lo, hi = schema.get("minimum", 1), schema.get("maximum", 10)
        return max(lo, min(hi, (lo + hi) // 2))
    if t == "number":
        return float(schema.get("minimum", 0.5))
    if t == "boolean":
        return hint not in ("end_conversation",) and rng.random() < 0.7
    if t == "string":
        if schema.get("pattern", "").find(":[0-5]") >= 0:
            return "12:00"
        s = "I'm fine, thank you."
        return s[:schema.get("maxLength", 400)]
    return None


def conform(obj, schema, root, rng, hint=""):
    """Trim, clamp and complete obj to fit schema (what a constrained decoder would do)."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return obj
    if "anyOf" in schema:
        if obj is None:
            return None
        nn = [s for s in schema["anyOf"] if _resolve(s, root).get("type") != "null"]
        return conform(obj, nn[0], root, rng, hint) if nn else obj
    if "enum" in schema and schema["enum"]:
        if obj in schema["enum"]:
            return obj
        return "" if "" in schema["enum"] else schema["enum"][0]
    t = schema.get("type")
    if t == "object" or "properties" in schema:
        if not isinstance(obj, dict):
            obj = {}
        props = schema.get("properties") or {}
        out = {}
        for k, v in props.items():
            if k in obj:
                out[k] = conform(obj[k], v, root, rng, k)
            elif k in (schema.get("required") or []):
                out[k] = fill(v, root, rng, k)
        if schema.get("additionalProperties", True) is not False:
            for k, v in obj.items():
                out.setdefault(k, v)
        return out
    if t == "array":
        if not isinstance(obj, list):
            obj = []
        obj = obj[:schema.get("maxItems", 10 ** 6)]
        it = schema.get("items", {})
        obj = [conform(x, it, root, rng, hint) for x in obj]
        while len(obj) < schema.get("minItems", 0):
            obj.append(obj[-1] if obj else fill(it, root, rng, hint))
        return obj
    if t == "integer":
        try:
            v = int(obj)
        except (TypeError, ValueError):
            v = schema.get("minimum", 1)
        return max(schema.get("minimum", v), min(schema.get("maximum", v), v))
    if t == "boolean":
        return bool(obj)
    if t == "string":
        s = "" if obj is None else str(obj)
        if schema.get("minLength", 0) > len(s):
            s = s or "nothing much"
        ml = schema.get("maxLength")
        if ml and len(s) > ml:
            s = s[:ml].rstrip()
        pat = schema.get("pattern")
        if pat:
            try:
                if not re.search(pat, s):
                    s = "" if re.search(pat, "") else "12:00"
            except re.error:
                pass
        return s
    return obj


def _near_miss(obj, schema, root, rng):
    """Replace one enum value by a plausible near miss (declared malformation X1)."""
    paths = []

    def walk(o, s, path):
        s = _resolve(s, root)
        if not isinstance(s, dict):
            return
        if "anyOf" in s:
            for a in s["anyOf"]:
                walk(o, a, path)
            return
        if s.get("enum") and isinstance(o, str) and o:
            paths.append(path)
        if isinstance(o, dict):
            for k, v in (s.get("properties") or {}).items():
                if k in o:
                    walk(o[k], v, path + [k])
        if isinstance(o, list):
            for i, x in enumerate(o):
                walk(x, s.get("items", {}), path + [i])
    walk(obj, schema, [])
    if not paths:
        return False
    path = rng.choice(paths)
    node = obj
    for p in path[:-1]:
        node = node[p]
    v = node[path[-1]]
    parts = v.split(":")
    node[path[-1]] = (parts[1] if len(parts) > 2 else v.lower() + "s") if isinstance(v, str) else v
    return True


# ----------------------------------------------------------------------------- purposes

def _dates_enum(schema):
    for lst in _enum_vals(schema, "date"):
        return [x for x in lst if x]
    return []


def _ctx(body):
    msgs = body.get("messages") or []
    text = "\n".join(str(m.get("content", "")) for m in msgs if m.get("role") != "system")
    rf = body.get("response_format") or {}
    schema = {}
    name = ""
    if isinstance(rf, dict) and rf.get("type") == "json_schema":
        js = rf.get("json_schema") or {}
        schema = js.get("schema") or {}
        name = js.get("name") or ""
    return text, schema, name, rf


def _schema_kind(schema, name, text):
    props = set((schema.get("properties") or {}).keys())
    low = text.lower()
    if name in ("probe",) or props == {"ok"}:
        return "probe"
    if "talk" in props and ("first" in props or "memos" in props or "lines" in props):
        return "gist"
    if {"utterance", "end_conversation"} & props:
        return "group_turn"
    if "ratings" in props:
        return "importance_batch"
    if "choice" in props:
        return "react"
    if "blocks" in props or "wake_up_hour" in props:
        return "daily_plan"
    if "steps" in props:
        return "decompose"
    if "insights" in props:
        return "reflection_insights"
    if "questions" in props:
        return "reflection_questions"
    if "plan_activity" in props or "plan_start" in props:
        return "memo"
    if "currently" in props:
        return "revise_currently"
    if "answer" in props:
        return "interview"
    if props == {"importance"}:
        return "importance"
    if props == {"summary"}:
        return "relationship"
    return name or "unknown"


def do_gist(rng, who, text, schema, today, now, places, people):
    props = schema.get("properties") or {}
    root = schema
    speakers = []
    for lst in _enum_vals(schema, "speaker") + _enum_vals(schema, "name"):
        for v in lst:
            if v not in speakers:
                speakers.append(v)
    if not speakers:
        speakers = [who] + [p for p in people if p != who][:1]
    if who in speakers:
        speakers.remove(who)
        speakers.insert(0, who)
    segs = {p: person_text(text, p, speakers) for p in speakers}
    events = find_events(text, people, places, today)
    has_news = []
    for p in speakers:
        for ev in events:
            if ev.sentence in segs[p] and not event_passed(ev, today, now):
                has_news.append((p, ev))
                break
    nomem = "\n".join(ln for ln in text.split("\n") if not re.match(r"\s*(?:-\s*|\d+\.\s*)?\[", ln))
    sleeping = any(re.search(re.escape(p) + r" (was|is) (sleeping|asleep)", nomem) for p in speakers)
    ptalk = 0.1 if sleeping else (0.8 if has_news else 0.45)
    talk = rng.random() < ptalk
    out = {"talk": talk}
    if not talk:
        out["lines"] = []
        if "memos" in props:
            out["memos"] = []
        if "first" in props:
            out["first"] = None
            out["second"] = None
        return out
    maxl = (props.get("lines") or {}).get("maxItems", 6)
    dlg = []
    a = speakers[0]
    others = speakers[1:] or ["there"]
    dlg.append((a, "Hello %s, how are you?" % (_first(others[0]) if len(others) == 1 else "all")))
    told = set()
    for p, ev in has_news:
        if len(dlg) >= maxl - 1:
            break
        is_host = ev.host == p
        pr = 0.9 if is_host else 0.6
        if rng.random() >= pr:
            continue
        dlg.append((p, tell_line(rng, p, ev, today, is_host)))
        told.add(id(ev))
        for q in speakers:
            if q == p or len(dlg) >= maxl - 1:
                continue
            if ev.sentence in segs[q] and ev.host != q:
                continue  # already knew it
            if ev.host == q:
                continue
            dec, c = decide_attend(rng, segs[q], q, ev, today, people)
            dlg.append((q, reply_line(rng, dec, c, ev, today)))
    if len(dlg) < 2:
        dlg.append((others[0], rng.choice(["Fine, thanks. Busy as ever.", "Not bad at all, thank you."])))
    if len(dlg) < maxl:
        closer = dlg[-1][0] if rng.random() < 0.3 else a
        dlg.append((closer, goodbye(rng, others[0] if closer == a else a)))
    out["lines"] = [{"speaker": s, "text": t} for s, t in dlg[:maxl]]
    date_enum = _dates_enum(schema)
    defs = schema.get("$defs") or schema.get("definitions") or {}

    def penum(defname):
        d = defs.get(defname) or {}
        pe = ((d.get("properties") or {}).get("plan_place") or {}).get("enum")
        return pe

    if "memos" in props:
        memos = []
        gm = None
        for k, v in defs.items():
            if "name" in (v.get("properties") or {}):
                gm = k
        pe = penum(gm) if gm else None
        for p in speakers:
            other = [q for q in speakers if q != p]
            m = make_memo(rng, p, other[0] if len(other) == 1 else " and ".join(other), dlg, events,
                          today, now, places, date_enum, pe)
            m["name"] = p
            memos.append(m)
        out["memos"] = memos
    if "first" in props:
        names = list(defs.keys())
        fdef = None
        sdef = None
        for k in ("first", "second"):
            sch = _resolve(((props.get(k) or {}).get("anyOf") or [{}])[0], root)
            if k == "first":
                fdef = ((sch.get("properties") or {}).get("plan_place") or {}).get("enum")
            else:
                sdef = ((sch.get("properties") or {}).get("plan_place") or {}).get("enum")
        b = speakers[1] if len(speakers) > 1 else others[0]
        out["first"] = make_memo(rng, a, b, dlg, events, today, now, places, date_enum, fdef)
        out["second"] = make_memo(rng, b, a, dlg, events, today, now, places, date_enum, sdef)
    return out


def do_turn(rng, who, text, schema, today, now, places, people, as_text):
    dlg = dialogue(text)
    partners = []
    for lst in _enum_vals(schema, "addressed"):
        partners = [v for v in lst if v != "everyone" and v != who]
    if not partners:
        tail = text[-2500:]
        cnt = {p: tail.count(p) for p in people if p != who}
        partners = [p for p in sorted(cnt, key=lambda x: -cnt[x]) if cnt[p] > 0][:1]
        for s, _ in dlg:
            if s != who and s not in partners:
                partners.append(s)
    if not partners:
        partners = ["there"]
    events = find_events(text, people, places, today)
    u, end, addressed = next_turn(rng, who, partners, text, dlg, today, now, events, people)
    if as_text:
        return u, end
    enum = None
    for lst in _enum_vals(schema, "addressed"):
        enum = lst
    if enum and addressed not in enum:
        addressed = "everyone" if "everyone" in enum else enum[0]
    return {"utterance": u, "addressed_to": addressed, "end_conversation": bool(end)}


def _rate_importance(rng, mem):
    low = mem.lower()
    if re.search(r"\b(died|death|funeral|wedding|married|engaged|accident|fire|born|pregnan|breakup|broke up|fired|sacked|injur|ill\b|hospital|stolen|arrest)", low):
        base = rng.choice([7, 8, 8, 9])
    elif any(w in low for w in _HOST_WORDS) or any(re.search(r"\b" + re.escape(w) + r"\b", low) for w in _EVENT_WORDS) and (find_times(mem) or "heard" in low):
        base = rng.choice([5, 6, 6, 7])
    elif re.search(r"\b(conversation|chatted|chatting|said|told|heard|asked)\b", low):
        base = rng.choice([2, 3, 3, 4])
    elif re.search(r"plan for|schedule", low):
        base = rng.choice([2, 3])
    elif re.search(r"\b(sleeping|having|eating|breakfast|lunch|dinner|busy|relaxing|waking|getting ready|brushing|walking)\b", low):
        base = rng.choice([1, 1, 2, 2, 3])
    else:
        base = rng.choice([2, 3, 4])
    return max(1, min(10, base + (rng.choice([-1, 0, 0, 0, 1]) if base > 1 else rng.choice([0, 0, 1]))))


def do_daily_plan(rng, who, text, schema, today, places, people):
    low = text.lower()
    life = ""
    m = re.search(r"(?i)lifestyle:?\s*([^\n]+)", text)
    life = m.group(1) if m else text[:800]
    wake = 7
    mm = re.search(r"(?i)wak\w*\s+up\s+(?:at\s+)?([^,;.]{1,20})", life)
    if mm:
        t = find_times("at " + mm.group(1), guess_pm=False)
        if t:
            wake = t[0][1] // 60
    bed = 22
    mm = re.search(r"(?i)(?:bed|sleep)\w*\s+(?:at\s+)?([^,;.]{1,20})", life)
    if mm:
        t = find_times("at " + mm.group(1), guess_pm=True)
        if t:
            bed = t[0][1] // 60 or 24
            if bed < 12:
                bed = bed + 12 if bed > 3 else bed + 24
    if bed <= wake:
        bed = 22 if wake < 20 else 23
    ws, we = 9 * 60, 17 * 60
    mm = re.search(r"(?i)from\s+([^,;]{1,12}?)\s+to\s+([^,;]{1,12})", life)
    if mm:
        a = find_times("at " + mm.group(1))
        b = find_times("at " + mm.group(2))
        if a and b:
            ws, we = a[0][1], b[0][1]
            if we <= ws:
                we += 720
    addr_enum = []
    for lst in _enum_vals(schema, "address") + _enum_vals(schema, "place"):
        addr_enum = lst
    if not addr_enum:
        addr_enum = places or ["home"]
    home = home_of(who, addr_enum)
    ident = ""
    m = re.search(r"(?i)identity:?\s*([^\n]+)", text)
    ident = m.group(1) if m else life
    work_place = match_place(ident + " " + life, addr_enum) or (
        [p for p in addr_enum if p != home] or [home])[0]
    work_act = "working"
    mm = re.search(r"(?i)\b(runs|keeps|works at|tends|looks after|minds|bakes|teaches)\b\s+([^,;.]{2,40})", ident + " " + life)
    if mm:
        work_act = re.split(r" and | from |;", "%s %s" % ({"runs": "running", "keeps": "keeping", "works at": "working at", "tends": "tending",
                               "looks after": "looking after", "minds": "minding", "bakes": "baking",
                               "teaches": "teaching"}[mm.group(1).lower()], mm.group(2).strip()))[0]
    retired = "retired" in (ident + life).lower()
    # event today?
    segs = text
    events = find_events(segs, people, places, today)
    ev_today = None
    for ev in events:
        if (ev.date == today or ev.date is None) and ev.start is not None:
            is_host = ev.host == who
            meant = is_host or bool(re.search(r"(count me in|i'll be there|going to|mean to go|will go|said (?:they|she|he) would)", low)) and _mentions(text, ev)
            if re.search(r"(cannot go|can't make it)", low) and not is_host:
                meant = False
            p = 0.85 if meant else 0.35
            if rng.random() < p:
                ev_today = (ev, is_host)
            break
    blocks = []
    t = wake * 60
    end_day = bed * 60

    def add(start, dur, act, emo, addr):
        if dur >= 5:
            blocks.append({"start": _hm(start), "duration_minutes": int(min(960, dur)), "activity": act[:120],
                           "emoji": emo, "address": addr})

    add(t, 30, "waking up and getting ready", "🌅", home)
    t += 30
    add(t, 30 + rng.choice([0, 15, 30]), "having breakfast", "🍳", home)
    t = int(blocks[-1]["duration_minutes"]) + t
    sched = []
    if retired or we - ws < 60:
        sched = [(max(t, 9 * 60), 12 * 60, "walking and pottering about", "🚶", work_place)]
        sched += [(13 * 60, 17 * 60, "reading and resting", "📖", home)]
    else:
        ws2 = max(t, ws)
        sched = [(ws2, 12 * 60, work_act, "💼", work_place), (13 * 60, max(13 * 60 + 30, min(we, 18 * 60)), work_act, "💼", work_place)]
    hosted = [e for e in events if e.host == who and (e.date is None or e.date >= today)]
    if hosted and rng.random() < 0.5:
        a1_, b1_, _, _, ad1_ = sched[1]
        sched[1] = (a1_, b1_, ("asking people to come to " + hosted[0].desc)[:120], "📣", ad1_)
    if t < sched[0][0]:
        add(t, sched[0][0] - t, "relaxing at home", "☕", home)
        t = sched[0][0]
    ev_block = None
    if ev_today:
        ev, is_host = ev_today
        es = ev.start
        ee = ev.end if ev.end and ev.end > es else es + 120
        ev_block = (es, ee, ("hosting " if is_host else "going to ") + ev.desc, "🎉", ev.place or work_place)
    # morning work
    a0, b0, act0, e0, ad0 = sched[0]
    if b0 > t:
        add(t, b0 - t, act0, e0, ad0)
        t = b0
    add(t, 60, "having lunch", "🥪", rng.choice([home, work_place]))
    t += 60
    a1, b1, act1, e1, ad1 = sched[1]
    if ev_block and ev_block[0] >= t and ev_block[1] <= end_day:
        if ev_block[0] > t:
            add(t, ev_block[0] - t, act1, e1, ad1)
        add(ev_block[0], ev_block[1] - ev_block[0], ev_block[2], "🎉", ev_block[4])
        t = ev_block[1]
    if b1 > t:
        add(t, b1 - t, act1, e1, ad1)
        t = b1
    dinner = max(t, 18 * 60 + 30)
    if dinner > t:
        add(t, dinner - t, "relaxing at home", "🛋️", home)
        t = dinner
    add(t, 60, "having dinner", "🍲", home)
    t += 60
    if end_day > t:
        add(t, end_day - t, "relaxing at home", "🛋️", home)
        t = end_day
    add(t, (wake * 60 + 1440 - t) % 1440 or 480, "sleeping", "😴", home)
    outline = ["wake up at %d:00" % wake, "breakfast at home", sched[0][2],
               "lunch at noon"]
    if ev_block:
        outline.append("%s at %s" % (ev_block[2][:60], _hm(ev_block[0])))
    outline += ["dinner at home", "bed at %d:00" % (bed % 24)]
    maxb = ((schema.get("$defs") or {}).get("PlanBlock") and ((schema.get("properties") or {}).get("blocks") or {}).get("maxItems")) or 16
    return {"wake_up_hour": wake, "outline": outline[:8], "blocks": blocks[:maxb]}


_STEP_TEMPLATES = [
    (("wak", "getting ready"), ["getting out of bed", "washing up", "getting dressed", "brushing hair", "making the bed"]),
    (("breakfast",), ["making tea", "cooking eggs", "eating at the table", "reading the paper", "washing the dishes"]),
    (("lunch",), ["fetching food", "sitting down to eat", "eating lunch", "chatting over lunch", "clearing up"]),
    (("dinner", "supper"), ["cooking dinner", "setting the table", "eating dinner", "washing up", "tidying the kitchen"]),
    (("sleep",), ["lying down", "sleeping"]),
    (("relax", "day off", "rest"), ["sitting down with a cup of tea", "reading a book", "looking out of the window", "having a short nap", "tidying up a little"]),
    (("going to", "match", "event", "party", "hosting"), ["walking over", "greeting people", "finding a spot", "watching and chatting", "cheering along", "saying goodbyes"]),
]


def do_decompose(rng, who, text, schema):
    mm = re.search(r"\((\d+)\s*min[a-z]*\)\s*" + re.escape(who) + r" is ([^,\n]+)", text) or re.search(r"\((\d+) min[a-z]*\)[^\n]*? is ([^,\n]+)", text)
    total = int(mm.group(1)) if mm else 60
    act = mm.group(2).strip() if mm else "working"
    steps_s = ((schema.get("properties") or {}).get("steps") or {})
    lo, hi = steps_s.get("minItems", 2), steps_s.get("maxItems", 6)
    step = _resolve(steps_s.get("items", {}), schema)
    dprop = (step.get("properties") or {}).get("duration_minutes", {})
    dlo, dhi = dprop.get("minimum", 5), dprop.get("maximum", 15)
    objs = [o for o in ((step.get("properties") or {}).get("object") or {}).get("enum", []) if o]
    if not objs:
        mo = re.search(r"(?i)objects? there:\s*([^\n]+)", text)
        if mo:
            objs = [o.strip() for o in mo.group(1).split(",") if o.strip()]
    tmpl = None
    la = act.lower()
    for keys, lst in _STEP_TEMPLATES:
        if any(k in la for k in keys):
            tmpl = lst
            break
    if tmpl is None:
        core = re.sub(r"^(busy at|busy with|starting:|finishing:)\s*", "", la)
        tmpl = ["getting set up", "getting on with %s" % core[:40], "dealing with what comes up",
                "taking a short break", "carrying on with %s" % core[:40], "tidying up"]
    n = max(lo, min(hi, max(2, round(total / ((dlo + dhi) / 2)))))
    per = max(dlo, min(dhi, total // max(1, n)))
    steps = []
    for i in range(n):
        a = tmpl[i % len(tmpl)] if i < len(tmpl) else tmpl[min(len(tmpl) - 1, 1 + i % max(1, len(tmpl) - 2))]
        o = ""
        for ob in objs:
            if ob.lower() in a.lower() or (ob == "bed" and ("sleep" in a or "bed" in a or "lying" in a)):
                o = ob
        if not o and objs and rng.random() < 0.35:
            o = rng.choice(objs)
        steps.append({"activity": a, "duration_minutes": per, "object": o,
                      "object_state": ("in use" if o else "")})
    return {"steps": steps}


def do_interview(rng, who, text, people):
    qs = re.findall(r"[\"“]([^\"”\n]{3,300}\?)[\"”]", text)
    m = re.search(r"asks[^:\n]*:\s*(.+)", text)
    q = m.group(1).strip(" \"“”") if m else (qs[-1] if qs else "How are you?")
    mems = [ln.strip(" -") for ln in text.split("\n") if re.match(r"\s*-\s*\[", ln)]
    low_q = q.lower()
    if rng.random() < 0.10:
        return "Hmm, I'm not really sure what to say about that."
    mk = re.search(r"know ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)?)", q)
    if mk:
        x = mk.group(1).rstrip("?")
        ident = "\n".join(ln for ln in text.split("\n")[:12] if "asks" not in ln and "?" not in ln)
        hits = [mm for mm in mems if x in mm]
        if x in ident or hits:
            fact = ""
            if hits:
                fact = re.sub(r"^\[[^\]]*\]\s*", "", hits[-1])
                fact = " Last I remember, " + fact.rstrip(".") + "." if fact else ""
            return ("Yes, I know %s." % x + fact)[:590]
        return "No, I don't think I know %s." % x
    words = [w for w in re.findall(r"[a-z]{4,}", low_q) if w not in ("have", "heard", "about", "what", "know", "does", "your", "think")]
    best, sc = None, 0
    for mm in mems:
        s = sum(1 for w in words if w in mm.lower())
        if s > sc:
            best, sc = mm, s
    if best:
        fact = re.sub(r"^\[[^\]]*\]\s*", "", best)
        fact = fact.replace(who + " heard", "I heard").replace(who + " learned", "I learned")
        return ("Yes, I did: %s." % fact.rstrip("."))[:590] if "heard" in low_q else ("Well, %s." % fact.rstrip("."))[:590]
    if "heard" in low_q:
        return "No, I haven't heard anything about that."
    return "I couldn't say, really."


def do_reflection_q(rng, who, text, people, events):
    qs = []
    others = [p for p in people if p != who]
    if events:
        qs.append("What will %s do about %s?" % (who, events[0].desc))
    for o in others[:2]:
        qs.append("How does %s feel about %s these days?" % (who, o))
    qs.append("What is taking up most of %s's days lately?" % who)
    rng.shuffle(qs)
    return qs[:rng.choice([2, 3, 3])]


def do_reflection_i(rng, who, text, schema, people):
    items = re.findall(r"(?m)^\s*(\d{1,2})\.\s+(.+)$", text)
    nums = [int(n) for n, _ in items]
    blocks = re.split(r"(?m)^Question:", text)
    ev_items = ((((schema.get("$defs") or {}).get("Insight") or {}).get("properties") or {}).get("evidence") or {}).get("items", {})
    hi = ev_items.get("maximum", max(nums) if nums else 1)
    insights = []
    for b in blocks[1:]:
        q = b.split("\n")[0].strip(" \"?")
        subj = None
        for p in people:
            if p in q and p != who:
                subj = p
        subj = subj or (q.split("about")[-1].strip(" :") if "about" in q else q)[:50]
        mine = [int(n) for n, s in re.findall(r"(?m)^\s*(\d{1,2})\.\s+(.+)$", b) if True]
        rel = [int(n) for n, s in items if subj and subj.lower()[:12] in s.lower()]
        ev = [n for n in (rel or mine or nums[:3]) if 1 <= n <= hi][:rng.choice([2, 3, 4])] or [1]
        if subj in people:
            txt = "%s sees %s often around the village and they are on easy terms." % (who, subj)
        elif any(w in q.lower() for w in ("going to do", "intend", "plan")):
            txt = "%s means to follow through on this and keep to the day's plan around it." % who
        else:
            txt = "%s's days follow a steady routine of work, meals and a few chats." % who
        insights.append({"insight": txt, "about": subj[:60], "evidence": ev,
                         "importance": rng.choice([3, 4, 5, 6])})
    if not insights:
        insights.append({"insight": "%s keeps to a steady routine." % who, "about": who[:60],
                         "evidence": [n for n in nums[:2] if 1 <= n <= hi] or [1], "importance": 3})
    return {"insights": insights}


def do_relationship(rng, who, text, people):
    m = re.search(r"about ([A-Z][\w'\-]+ [A-Z][\w'\-]+)", text)
    other = m.group(1) if m else ([p for p in people if p != who] or ["them"])[0]
    n = sum(1 for ln in text.split("\n") if other in ln and ln.strip().startswith("-"))
    low = text.lower()
    if re.search(r"(can't make it|cannot go|declined)", low):
        feel = "a little let down, though there are no hard feelings"
    elif re.search(r"(count me in|i'll be there|sounds lovely)", low):
        feel = "warm and looking forward to seeing them"
    else:
        feel = rng.choice(["friendly enough", "neutral, with no strong feelings", "pleasant"])
    kind = "an acquaintance" if n <= 2 else "someone %s sees regularly" % _first(who)
    return {"summary": "To %s, %s is %s; right now %s feels %s about them." % (who, other, kind, _first(who), feel)}


def do_revise(rng, who, text, people, places, today, now):
    m = re.search(r"(?i)currently:?\s*([^\n]+)", text)
    old = m.group(1).strip() if m else "%s is going about the usual routine." % who
    old = re.split(r"(?<=\.)\s", old)[0]
    events = [e for e in find_events(text, people, places, today) if not event_passed(e, today, now)]
    add = ""
    if events and rng.random() < 0.8:
        ev = events[0]
        if ev.host == who:
            add = " %s is busy getting people to come to %s %s." % (_first(who), ev.desc, ev.when_phrase(today))
        elif re.search(r"(cannot go|can't make it)", text.lower()):
            add = " %s heard about %s but cannot go." % (_first(who), ev.desc)
        else:
            add = " %s has heard about %s %s and is thinking of going." % (_first(who), ev.desc, ev.when_phrase(today))
    return {"currently": _clean(old + add + " %s cares about keeping things running smoothly." % _first(who))}


def do_react(rng, who, text, people, places, today, now):
    m = re.search(r"noticed:?\s*[\"“]([^\"”]+)", text)
    obs = m.group(1) if m else ""
    target = None
    for p in people:
        if p != who and p in obs:
            target = p
    target = target or ([p for p in people if p != who] or ["them"])[0]
    events = [e for e in find_events(text, people, places, today) if not event_passed(e, today, now)]
    low = text.lower()
    if re.search(re.escape(who) + r" is sleeping", text[-1500:]) and not re.search(re.escape(who) + r" is (busy|having|relaxing)", text[-600:]):
        w = [("continue", 0.9), ("talk", 0.05), ("wait", 0.03), ("react", 0.02)]
    elif events and any(e.sentence.lower() in low and not any(_mentions(ln, e) for ln in text.split("\n") if target in ln and "conversation" in ln) for e in events) and target not in (events[0].host or ""):
        w = [("talk", 0.6), ("continue", 0.25), ("wait", 0.1), ("react", 0.05)]
    elif events and _mentions(obs, events[0]) and re.search(r"(going to|count me in|mean to go|i'll be there)", low):
        w = [("react", 0.3), ("talk", 0.3), ("continue", 0.4)]
    else:
        w = [("continue", 0.55), ("talk", 0.25), ("wait", 0.12), ("react", 0.08)]
    r = rng.random()
    acc = 0
    choice = w[-1][0]
    for c, p in w:
        acc += p
        if r < acc:
            choice = c
            break
    reasons = {"continue": "%s has things to get on with, and nothing about %s needs attention." % (_first(who), _first(target)),
               "talk": "%s has something worth telling %s while they are close by." % (_first(who), _first(target)),
               "wait": "%s is busy just now; better to wait a moment." % _first(target),
               "react": "%s wants to join in with what %s is doing." % (_first(who), _first(target))}
    new = ""
    if choice == "react":
        new = ("going to " + events[0].desc) if events else "joining %s" % _first(target)
    return {"choice": choice, "reason": reasons[choice], "new_activity": new[:120]}


def _answer_template_keys(text):
    m = re.search(r"\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}\s*\.?\s*$", text.strip()) or re.search(r"[Aa]nswer[^{]*(\{.*\})", text, re.S)
    if not m:
        return []
    return re.findall(r"\"(\w+)\"\s*:", m.group(0))


# ----------------------------------------------------------------------------- main

def _core(body, rng):
    text, schema, name, rf = _ctx(body)
    who = speaker_of(body)
    people = people_in(text)
    for lst in _enum_vals(schema, "speaker") + _enum_vals(schema, "name") + _enum_vals(schema, "addressed"):
        for v in lst:
            if v not in people and v != "everyone":
                people.append(v)
    if who not in people and who != "I":
        people.insert(0, who)
    places = places_from(text, schema)
    today, now = parse_today(text, _dates_enum(schema))
    kind = _schema_kind(schema, name, text) if schema else ("json_object" if isinstance(rf, dict) and rf.get("type") == "json_object" else "text")
    if kind == "probe":
        return {"ok": True}, kind, schema
    if kind == "gist":
        return do_gist(rng, who, text, schema, today, now, places, people), kind, schema
    if kind == "group_turn":
        return do_turn(rng, who, text, schema, today, now, places, people, False), kind, schema
    if kind == "memo":
        dlg = dialogue(text)
        other = ([s for s, _ in dlg if s != who] or [p for p in people if p != who] or ["someone"])[0]
        events = find_events(text, people, places, today)
        pe = ((schema.get("properties") or {}).get("plan_place") or {}).get("enum")
        return make_memo(rng, who, other, dlg, events, today, now, places, _dates_enum(schema), pe), kind, schema
    if kind == "importance":
        m = re.search(r"\"([^\"]{2,})\"", text.split("\n\n")[-2] if text.count("\n\n") >= 2 else text)
        mem = m.group(1) if m else text[-300:]
        return {"importance": _rate_importance(rng, mem)}, kind, schema
    if kind == "importance_batch":
        mems = re.findall(r"(?m)^\s*(?:-|\d+\.)\s*\"(.+)\"\s*$", text)
        rs = (schema.get("properties") or {}).get("ratings") or {}
        n = rs.get("minItems", len(mems) or 1)
        while len(mems) < n:
            mems.append("")
        return {"ratings": [_rate_importance(rng, x) for x in mems[:max(n, len(mems))]]}, kind, schema
    if kind == "daily_plan":
        return do_daily_plan(rng, who, text, schema, today, places, people), kind, schema
    if kind == "decompose":
        return do_decompose(rng, who, text, schema), kind, schema
    if kind == "interview":
        return {"answer": do_interview(rng, who, text, people)}, kind, schema
    if kind == "reflection_questions":
        return {"questions": do_reflection_q(rng, who, text, people, find_events(text, people, places, today))}, kind, schema
    if kind == "reflection_insights":
        return do_reflection_i(rng, who, text, schema, people), kind, schema
    if kind == "relationship":
        return do_relationship(rng, who, text, people), kind, schema
    if kind == "revise_currently":
        return do_revise(rng, who, text, people, places, today, now), kind, schema
    if kind == "react":
        return do_react(rng, who, text, people, places, today, now), kind, schema
    if kind == "text":
        low = text.lower()
        if re.search(r"say next|says next|what does .{0,40} say|reply|respond", low) or dialogue(text):
            u, end = do_turn(rng, who, text, schema, today, now, places, people, True)
            marks = re.findall(r"\[(\w+)\]", text[-900:])
            if len(marks) >= 2:
                em = "end" if "end" in marks else marks[0]
                cm = "continue" if "continue" in marks else marks[1]
                return u + "\n[" + (em if end else cm) + "]", kind, schema
            return u, kind, schema
        return ("%s thinks it over and carries on with the day." % who) if who != "I" else "I'll think it over.", kind, schema
    if kind == "json_object":
        keys = _answer_template_keys(text) or ["answer"]
        out = {}
        for k in keys:
            m = re.search(r"\"" + re.escape(k) + r"\"\s*:\s*([^,}]{0,40})", text)
            ph = (m.group(1) if m else "").lower()
            if "int" in ph or "number" in ph or re.match(r"\s*<?\d", ph):
                out[k] = rng.randint(3, 7)
            elif "true" in ph or "false" in ph:
                out[k] = rng.random() < 0.6
            elif ph.strip().startswith("["):
                out[k] = []
            else:
                out[k] = "I'm not sure."
        return out, kind, {}
    # unknown schema: fill from it
    return fill(schema, schema, rng), kind, schema


def respond(body: dict, seed: int) -> str:
    """The completion's content text for one chat completion request body."""
    try:
        if not isinstance(body, dict):
            body = {}
        rng = _rng(seed, body)
        try:
            obj, kind, schema = _core(body, rng)
        except Exception:
            rf = body.get("response_format") if isinstance(body, dict) else None
            if isinstance(rf, dict) and rf.get("type") == "json_schema":
                sch = (rf.get("json_schema") or {}).get("schema") or {}
                obj, kind, schema = fill(sch, sch, rng), "fallback", sch
            elif isinstance(rf, dict) and rf.get("type") == "json_object":
                obj, kind, schema = {"answer": "I'm not sure."}, "fallback", {}
            else:
                obj, kind, schema = "I'm not sure what to say.", "text", {}
        try:
            max_chars = 4 * int(body.get("max_tokens") or 4096)
        except (TypeError, ValueError):
            max_chars = 16384
        r = rng.random()
        if isinstance(obj, str):
            out = obj
            if kind == "text":
                who = speaker_of(body)
                if r < 0.02:
                    out = "%s: %s" % (who, out)
                elif r < 0.03:
                    lines = out.split("\n")
                    lines[0] = "\"%s\"" % lines[0]
                    out = "\n".join(lines)
                elif r < 0.04:
                    out = out.split("\n")[0]
                elif r < 0.05:
                    out = "I'm sorry, but I can't continue this conversation."
            return out[:max_chars]
        if schema:
            obj = conform(obj, schema, schema, rng)
        if kind == "probe":
            return json.dumps(obj)
        txt = json.dumps(obj, ensure_ascii=False)
        if r < 0.02:
            cut = max(1, int(len(txt) * (0.3 + 0.6 * rng.random())))
            txt = txt[:cut]
        elif r < 0.03:
            txt = "I'm sorry, but I can't help with that request."
        elif r < 0.04:
            txt = "Sure! Here is the JSON:\n```json\n" + txt + "\n```"
        elif r < 0.05 and schema:
            if _near_miss(obj, schema, schema, rng):
                txt = json.dumps(obj, ensure_ascii=False)
        return txt[:max_chars]
    except Exception:
        return "{}" if isinstance(body, dict) and body.get("response_format") else "Hello."
