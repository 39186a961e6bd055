"""Blind stand-in #19: imitates a small hosted "mini" chat model (GPT-4o-mini /
Gemini-Flash-Lite class) behind an OpenAI-compatible endpoint with strict
structured outputs.  Written only from captured request bodies (cap19) and the
blind-evaluation note; no service code, tests, docs or other stand-in was read.

Entry point: ``respond(body, seed) -> str`` (assistant message content).

DECLARED RULES AND RATES (fixed before any town run; "p" is per answer unless
said otherwise; every draw = sha256(seed, canonical messages dump, decision key))
==============================================================================

0. Reading the prompt (by meaning, never by exact headings)
   - Kind of request: from the response_format schema's property names
     (talk/lines/memos, summary+importance+plan_*, wake_up_hour/blocks, steps,
     utterance/addressed_to, ratings, answer, choice, insights, questions,
     currently, place, ok); no schema -> plain-text conversation turn.
     Anything else -> a plausible generic answer built from the schema.
   - Self: the person the system message says the model speaks for ("mind of
     X", "you are X") else a "Name" line, else the most frequent person name.
   - People: two-word capitalised names that act in the text (followed by is /
     was / told / said / heard / ":" ...) or that are listed in a schema enum.
   - Places: "Town:Sector:Arena" strings in enums or text, matched to words in
     the text (sector and arena words); choose_address uses its enum tree.
   - Times in any style: 17:00, 5 pm, 9-11 am, "nine till eleven" (+morning/
     evening), noon, midnight, morning/afternoon/evening/after work/sundown.
     Days: ISO dates, "April 11", "11 April", "the 11th", weekday names,
     today/tomorrow/tonight/this morning (relative to the memory's own stamp).
   - An "event" = a statement with a day, a time and a place (not a plan line
     or a plan memory).  Duplicates are merged by (date, place).  If its
     statements give conflicting start times the model takes a non-majority
     one with p = 0.15 (confusion).
   - A person's plan: lines "HH:MM-HH:MM activity (place)".  An item is a real
     commitment when it names a person, an event, hosting, meeting, calling on,
     "going to", an appointment; otherwise it is ordinary (work, meals, rest).

1. Willingness to go to an event one hears of / is invited to (used by turns,
   memos, summaries; base rate then trait modifier +0.10 for sociable-type
   traits, -0.10 for quiet/tired-type traits, clipped to [0.02, 0.95]):
     plan shows the same event already planned ............ p = 0.90
     plan free at that time (or day not planned yet) ....... p = 0.55
     only ordinary activities there (work, meals) .......... p = 0.45
     a real commitment overlaps ............................ p = 0.15
     event already over ..................................... p = 0.02
   Of those who do not say yes, half hedge ("I'll try to drop by") and half
   decline politely; hedges do not count as a plan.

2. Conversation turns (plain text, group_turn JSON):
   - brings up an upcoming event it knows that has not come up yet in this
     conversation: p = 0.60 per turn; 0.75 if it hosts it; 0.30 if the prompt
     says it has no news for now; 0 if it knows none.  Copies the event
     sentence verbatim p = 0.30, paraphrases (own frame, shortened what, re-
     expressed day/time/place) p = 0.70.  Mentions the wrong day or time when
     paraphrasing only through rule 0's confusion.
   - reacts to news/invitation from the other in the last line with rule 1.
   - ends the conversation: after a goodbye from the other p = 0.85; after >= 6
     lines p = 0.50; otherwise p = 0.15.
   - group_turn: addresses the last speaker p = 0.65 else "everyone"; writes a
     first name only (enum break) p = 0.03.
   - plain-text format slips (mutually exclusive, drawn once):
     speaker name prefixed p = 0.05; tag missing p = 0.04; tag on the same
     line as the words p = 0.04; words wrapped in quotes p = 0.03; tag in
     another style ("(continue)", "[End]") p = 0.02.  Two sentences on two
     lines before the tag p = 0.03 (independent).

3. Conversation memo (and the per-person memos of pair/group summaries):
   - summary: one fluent sentence; includes the event's what/when/where when
     an event was discussed.  Semantically empty summary ("" or "N/A") p = 0.02;
     over-long summary (> maxLength) p = 0.02.
   - importance: small talk 2-3, news heard 5-7, accepted invitation 6-7 (+/-1
     jitter p = 0.3).
   - plan change:
       self said yes to the event ........................... p = 0.80
         (if the plan already holds it: restates it p = 0.40)
       self heard the news but gave no clear yes, plan free .. p = 0.15
         ... with a commitment at that time ................. p = 0.05
       self declined ........................................ p = 0.03
       self hosts the event ................................. p = 0.10
       self only passed the news on ......................... p = 0.20
     when writing one: start time in "9:00 AM" style (pattern break) p = 0.06;
     plan_date left "" while activity given p = 0.04; place outside the enum
     ("Plough Inn garden") p = 0.04; minutes = event length else 60.
   - leaks an event the partner knows but did not say into a summary memo
     p = 0.05.

4. Pair / group summaries: they talk p = 0.85 when someone knows an upcoming
   event another does not show knowing, else 0.60 when they appear to know each
   other, else 0.45.  A news holder tells it p = 0.70 (host 0.80).  Listeners
   react with rule 1.  When they do not talk: memos null / [] p = 0.7, else
   placeholder memos.  Lines 2-6 (pair) or 2-10 (group).

5. Daily plan: wake hour from the lifestyle (else 7; +/-1 p = 0.15), bed time
   from it (else 22:00), work block from it.  Event blocks:
     hosting an event that day .............................. p = 0.90
     earlier said yes / had it planned (memory shows it) ..... p = 0.80
     only heard of it, free then ............................ p = 0.35
     only heard of it, works then ........................... p = 0.20
   Has news to pass on: adds a block "telling people about ..." at a place
   where people will be p = 0.50.  Block count > 16 or a gap/overlap p = 0.04;
   an address outside the enum p = 0.03; outline of 3 or 9 items p = 0.03.

6. Decompose: 4-12 steps of 5-15 min that sum to the duration when possible;
   when the span is too long for 12x15, uses longer steps (max break) p = 0.5,
   else leaves it short.  Objects from the enum by words, else "".

7. React: knows news the observed person has not heard from it -> talk p=0.55;
   both doing the same thing -> continue 0.6 / talk 0.3 / wait 0.05 / react
   0.05; otherwise continue 0.70 / talk 0.20 / wait 0.07 / react 0.03.  An event
   the self knows happening now that it is not attending -> react p = 0.25.

8. Choose address: activity words match a place -> that place p = 0.85;
   activity names a known event -> its place p = 0.60; home-type activity ->
   home p = 0.80; else stays where it is p = 0.75, else first other place.

9. Importance: keyword bands (sleep 1, meals/rest 2, work 2-3, chat 3, news/
   event/invitation 5-7, grave life events 8-9), jitter +/-1 p = 0.3; batch
   gives one rating per item; wrong count p = 0.04.

10. Interview: a known person -> what the memories show of them (p = 0.9),
    else says it does not know; "heard about X" -> event by word overlap,
    retold with when/where (copy 0.3 / paraphrase 0.7); hedges p = 0.2.
11. Reflection questions 1-3 about frequent names/events; insights 1-5 with
    evidence numbers from the statements (out-of-range number p = 0.03).
12. Relationship: tone from number and kind of memories of the person.
    Revise "currently": keeps the old first sentence, adds a commitment to a
    known upcoming event if the memories show it accepted/planned (p = 0.7),
    hosting (p = 0.9), else the news heard (p = 0.4).
13. Failure modes for every JSON answer: strict mode keeps JSON valid, but an
    answer whose estimated token count (chars/3.6) passes max_tokens is cut at
    that length (truncated JSON).  Refusal text instead of JSON p = 0.005.

14. Labels for an event in plan items / activities: the copied clause
    p = 0.30, else a paraphrase ("Dalia's event at the Plough Inn garden").
15. Daily plan on a weekend day keeps the lifestyle's work block p = 0.50
    (this rule was in the code at the first check but missing from this list;
    declared here without change).

Changes after the first self-check (reading fixes only, no rate changed):
 - a plain "count me in" / "can't make it" reply in the last line now gets
   an acknowledgement instead of unrelated small talk (wording only);
 - interview: activities of a person read only from "<name> is ..." memory
   lines, cut at a colon or quote;
 - the "it is <date>, <clock>" line and clock ranges in annotations were read
   as an event / as "now": now skipped; sentences split before event search;
 - teller prefixes ("X told Y:", "Have you heard?", "Question:") stripped
   from the event wording; replies ("count me in") no longer read as events;
 - surnames no longer match house names ("Moss house"); places named only in
   words ("the garden of the Plough Inn") are recognised;
 - place-list regex no longer swallowed "Name: Name:" runs, which had hidden
   people; lifestyle work phrases without "at" ("runs the Plough Inn");
 - robustness: list-style message content read as text; a bare json_object
   request gets {"reply": ...} instead of null;
 - cosmetic: emoji per filler activity, filler blocks capped at 3 h, no random
   object for social steps, insight verb reads the self's own plan lines.
"""

import hashlib
import json
import re
from datetime import date, timedelta

# --------------------------------------------------------------------------
# randomness


class _Ctx(object):
    def __init__(self, body, seed):
        self.body = body if isinstance(body, dict) else {}
        self.seed = seed
        msgs = self.body.get("messages")
        try:
            self.dump = json.dumps(msgs, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        except Exception:
            self.dump = repr(msgs)

    def u(self, key):
        h = hashlib.sha256(("%s|%s|%s" % (self.seed, self.dump, key)).encode("utf-8", "replace")).hexdigest()
        return int(h[:13], 16) / float(16 ** 13)

    def p(self, key, prob):
        return self.u(key) < prob

    def pick(self, key, seq):
        seq = list(seq)
        if not seq:
            return None
        return seq[int(self.u(key) * len(seq)) % len(seq)]

    def randint(self, key, lo, hi):
        return lo + int(self.u(key) * (hi - lo + 1)) % (hi - lo + 1)


# --------------------------------------------------------------------------
# generic text helpers

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
NUMW = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
        "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
STOP = set("the a an of to in on at and or for with from by is was are be been it its this that "
           "their they them he she her his i you we our your will would can could have has had "
           "who whom which what when where there here as into out up down over if but not no so "
           "all any some just about after before till until round around also".split())
NON_NAME = set(MONTHS + WEEKDAYS) | set("answer name age identity lifestyle currently it today "
                                       "what where when places the memory question someone "
                                       "anyone nobody schedule innate".split())

_MON_RE = "(" + "|".join(m.capitalize() for m in MONTHS) + "|" + "|".join(MONTHS) + ")"
_WD_RE = "(" + "|".join(WEEKDAYS) + ")"


def _words(s):
    return [w for w in re.findall(r"[a-z][a-z']+", (s or "").lower()) if w not in STOP and len(w) > 2]


def _overlap(a, b):
    wa, wb = set(_words(a)), set(_words(b))
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / float(min(len(wa), len(wb)))


def _fmt_hm(m):
    m = int(m) % 1440
    return "%02d:%02d" % (m // 60, m % 60)


def _say_time(m, style):
    m = int(m) % 1440
    h, mi = m // 60, m % 60
    if style == 0:
        return _fmt_hm(m)
    if m == 720:
        return "noon"
    ap = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    if style == 1:
        return ("%d:%02d %s" % (h12, mi, ap)) if mi else ("%d %s" % (h12, ap))
    inv = dict((v, k) for k, v in NUMW.items())
    if mi == 0:
        return inv.get(h12, str(h12))
    return "%d:%02d" % (h12, mi)


def _say_range(s, e, style):
    if e is None:
        return "at " + _say_time(s, style)
    if style == 2:
        part = "in the morning" if s < 720 else ("in the afternoon" if s < 1020 else "in the evening")
        return "from %s till %s %s" % (_say_time(s, 2), _say_time(e, 2), part)
    return "from %s to %s" % (_say_time(s, style), _say_time(e, style))


def _say_day(d, now_d):
    if d is None:
        return ""
    if now_d is not None:
        if d == now_d:
            return "today"
        if d == now_d + timedelta(days=1):
            return "tomorrow"
    return "on %s %s %d" % (WEEKDAYS[d.weekday()].capitalize(), MONTHS[d.month - 1].capitalize(), d.day)


def _clip(s, n):
    s = s or ""
    if len(s) <= n:
        return s
    cut = s[:n].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") if cut else s[:n]


def _sentence(s):
    s = (s or "").strip()
    if not s:
        return s
    s = s[0].upper() + s[1:]
    if s[-1] not in ".!?":
        s += "."
    return s


# --------------------------------------------------------------------------
# time and date parsing

_AMPM = r"(a\.?m\.?|p\.?m\.?)"


def _h24(h, ap, ctx_text=""):
    h = int(h)
    if ap:
        ap = ap.replace(".", "").lower()
        if ap == "pm" and h < 12:
            h += 12
        if ap == "am" and h == 12:
            h = 0
        return h
    c = ctx_text.lower()
    if re.search(r"evening|night|afternoon|pm\b", c) and h < 12:
        return h + 12
    if re.search(r"morning|\bam\b", c):
        return h
    if 1 <= h <= 6:
        return h + 12
    return h


def _times(text):
    """Return list of (start_min, end_min_or_None, pos, explicit)."""
    out = []
    t = text or ""
    low = t.lower()
    used = []

    def free(a, b):
        for x, y in used:
            if a < y and x < b:
                return False
        return True

    for m in re.finditer(r"\b(\d{1,2}):(\d{2})\s*(?:-|–|to|till|until)\s*(\d{1,2}):(\d{2})\b", t):
        s = int(m.group(1)) * 60 + int(m.group(2))
        e = int(m.group(3)) * 60 + int(m.group(4))
        out.append((s, e, m.start(), True))
        used.append(m.span())
    for m in re.finditer(r"\b(\d{1,2})(?::(\d{2}))?\s*" + _AMPM + r"?\s*(?:-|–|to|till|until)\s*(\d{1,2})(?::(\d{2}))?\s*" + _AMPM, low):
        if not free(*m.span()):
            continue
        e = _h24(m.group(4), m.group(6)) * 60 + int(m.group(5) or 0)
        s = _h24(m.group(1), m.group(3) or m.group(6)) * 60 + int(m.group(2) or 0)
        out.append((s, e, m.start(), True))
        used.append(m.span())
    nw = "(" + "|".join(NUMW) + "|noon|midnight)"
    for m in re.finditer(r"\b" + nw + r"(?:\s*o'clock)?\s*(?:-|to|till|until)\s*" + nw + r"\b", low):
        if not free(*m.span()):
            continue
        after = low[m.end():m.end() + 40]
        def cv(w):
            if w == "noon":
                return 720
            if w == "midnight":
                return 1440
            return _h24(NUMW[w], None, after) * 60
        s, e = cv(m.group(1)), cv(m.group(2))
        if e < s and e + 720 <= 1440 and e < 720:
            e += 720
        out.append((s, e % 1440 if e != 1440 else 1439, m.start(), True))
        used.append(m.span())
    for m in re.finditer(r"\b(\d{1,2}):(\d{2})\b(\s*" + _AMPM + r")?", low):
        if not free(*m.span()):
            continue
        h = int(m.group(1))
        if m.group(3):
            h = _h24(h, m.group(4))
        if h < 24:
            out.append((h * 60 + int(m.group(2)), None, m.start(), True))
            used.append(m.span())
    for m in re.finditer(r"\b(\d{1,2})\s*" + _AMPM + r"(?![a-z])", low):
        if not free(*m.span()):
            continue
        out.append((_h24(m.group(1), m.group(2)) * 60, None, m.start(), True))
        used.append(m.span())
    for m in re.finditer(r"\b(?:at|from|by)\s+" + nw + r"\b", low):
        if not free(*m.span()):
            continue
        w = m.group(1)
        v = 720 if w == "noon" else (0 if w == "midnight" else _h24(NUMW[w], None, low[m.end():m.end() + 30]) * 60)
        out.append((v, None, m.start(), True))
        used.append(m.span())
    vague = [(r"\bafter work\b", 1080, 1200), (r"\blunch ?time\b", 720, 780), (r"\bsun(?:down|set)\b|\bdusk\b", 1170, 1290),
             (r"\bdawn\b|\bsunrise\b", 360, 420), (r"\bmorning\b", 540, 720), (r"\bafternoon\b", 840, 1020),
             (r"\bevening\b|\btonight\b", 1080, 1260), (r"\bmidday\b|\bnoon\b", 720, 780)]
    for pat, s, e in vague:
        for m in re.finditer(pat, low):
            if free(*m.span()):
                out.append((s, e, m.start(), False))
                used.append(m.span())
    out.sort(key=lambda x: x[2])
    return out


def _mon(w):
    return MONTHS.index(w.lower()) + 1


def _dates(text, ref, year):
    """List of (date, pos).  ref: date for relative words."""
    out = []
    t = text or ""
    low = t.lower()
    for m in re.finditer(r"\b(\d{4})-(\d{2})-(\d{2})\b", t):
        try:
            out.append((date(int(m.group(1)), int(m.group(2)), int(m.group(3))), m.start()))
        except ValueError:
            pass
    for m in re.finditer(r"\b" + _MON_RE + r"\s+(\d{1,2})(?:st|nd|rd|th)?\b", t):
        try:
            out.append((date(year, _mon(m.group(1)), int(m.group(2))), m.start()))
        except ValueError:
            pass
    for m in re.finditer(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MON_RE + r"\b", t):
        try:
            out.append((date(year, _mon(m.group(2)), int(m.group(1))), m.start()))
        except ValueError:
            pass
    if ref is not None:
        for m in re.finditer(r"\bthe\s+(\d{1,2})(?:st|nd|rd|th)\b", low):
            try:
                d = date(ref.year, ref.month, int(m.group(1)))
                if d < ref - timedelta(days=10):
                    d = date(ref.year + (ref.month == 12), ref.month % 12 + 1, int(m.group(1)))
                out.append((d, m.start()))
            except ValueError:
                pass
        for m in re.finditer(r"\bday after tomorrow\b", low):
            out.append((ref + timedelta(days=2), m.start()))
        for m in re.finditer(r"\btomorrow\b", low):
            if not low[max(0, m.start() - 10):m.start()].endswith("after "):
                out.append((ref + timedelta(days=1), m.start()))
        for m in re.finditer(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b", low):
            out.append((ref, m.start()))
        for m in re.finditer(r"\b" + _WD_RE + r"\b", low):
            wd = WEEKDAYS.index(m.group(1))
            delta = (wd - ref.weekday()) % 7
            out.append((ref + timedelta(days=delta), m.start()))
    out.sort(key=lambda x: x[1])
    return out


# --------------------------------------------------------------------------
# prompt model


def _text(c):
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "\n".join(_text(x.get("text") if isinstance(x, dict) else x) for x in c)
    return "" if c is None else str(c)


class _Prompt(object):
    def __init__(self, body, schema):
        msgs = body.get("messages") or []
        if not isinstance(msgs, list):
            msgs = []
        self.system = "\n".join(_text(m.get("content")) for m in msgs if isinstance(m, dict) and m.get("role") == "system")
        self.user = "\n".join(_text(m.get("content")) for m in msgs if isinstance(m, dict) and m.get("role") != "system")
        self.all = self.system + "\n" + self.user
        self.schema = schema or {}
        self.enum_names = set()
        self.enum_places = []
        self._scan_schema(self.schema, 0)
        self.year = self._year()
        self.places = self._places()
        self.people = self._people()
        self.self_name = self._self()
        if self.self_name and self.self_name not in self.people:
            self.people.append(self.self_name)
        self.now_d, self.now_t = self._now()
        self.lines = self.user.split("\n")
        self.owners = self._owners()
        self.transcript = self._transcript()
        self.plans = self._plans()
        self.events = self._events()

    # schema
    def _scan_schema(self, s, depth):
        if depth > 12:
            return
        if isinstance(s, dict):
            en = s.get("enum")
            if isinstance(en, list):
                for v in en:
                    if isinstance(v, str) and v.count(":") >= 2:
                        if v not in self.enum_places:
                            self.enum_places.append(v)
                    elif isinstance(v, str) and re.match(r"^[A-Z][\w'-]+ [A-Z][\w'-]+$", v):
                        self.enum_names.add(v)
            for v in s.values():
                self._scan_schema(v, depth + 1)
        elif isinstance(s, list):
            for v in s:
                self._scan_schema(v, depth + 1)

    def _year(self):
        m = re.search(r"\b(20\d\d)\b", self.all)
        if m:
            return int(m.group(1))
        for p in self._iso_in_schema():
            return int(p[:4])
        return 2026

    def _iso_in_schema(self):
        return re.findall(r"\b(\d{4}-\d{2}-\d{2})\b", json.dumps(self.schema))

    def _people(self):
        cnt = {}
        place_text = " ".join(self.places)
        for m in re.finditer(r"\b([A-Z][a-z]+(?:[-'][A-Za-z]+)?) ([A-Z][a-z]+(?:[-'][A-Za-z]+)?)\b(?=(\s+(?:is|was|told|said|heard|chatted|learned|will|has|knows|visits|means|started|sees|asks|buys|keeps|runs|teaches|bakes|tends)\b|:\s*\"|'s\b|\s*[,.]))", self.all):
            a, b = m.group(1), m.group(2)
            if a.lower() in NON_NAME or b.lower() in NON_NAME:
                continue
            full = a + " " + b
            if full in place_text:
                continue
            cnt[full] = cnt.get(full, 0) + 1
        names = [n for n, c in sorted(cnt.items(), key=lambda x: (-x[1], x[0])) if c >= 1]
        for n in sorted(self.enum_names):
            if n not in names:
                names.append(n)
        return names

    def _self(self):
        m = re.search(r"(?:mind of|[Yy]ou are|playing|speak for|voice of)\s+([A-Z][\w'-]+ [A-Z][\w'-]+)", self.system)
        if m:
            return m.group(1)
        m = re.search(r"\bName:\s*([A-Z][\w'-]+ [A-Z][\w'-]+)", self.user)
        if m:
            return m.group(1)
        return self.people[0] if self.people else ""

    def _places(self):
        pl = list(self.enum_places)
        for m in re.finditer(r"\b([A-Z][\w']*):([A-Z][\w']*(?: [\w']+){0,2}?):([a-z][\w']*)( [a-z][\w']*)?", self.all):
            ar = m.group(3)
            if m.group(4) and m.group(4).strip() not in STOP:
                ar += m.group(4)
            v = "%s:%s:%s" % (m.group(1), m.group(2), ar)
            if v not in pl:
                pl.append(v)
        return pl

    def _now(self):
        txt = self.user
        nob = re.sub(r"\[[^\]]*\]", " ", txt)
        # an ISO date annotated as today
        m = re.search(r"(\d{4}-\d{2}-\d{2})\s*\(\s*today", txt)
        d0 = None
        if m:
            try:
                d0 = date(*[int(x) for x in m.group(1).split("-")])
            except ValueError:
                d0 = None
        if d0:
            m = re.search(r"\b(?:it is|it's|now|time is)\b[^\n]{0,30}?\b(\d{1,2}):(\d{2})\b(?!\s*-\s*\d)", nob, re.I)
            return d0, (int(m.group(1)) * 60 + int(m.group(2))) if m else None
        m = re.search(r"\b(?:today is|it is|it's|now|date)\b[^\n]{0,25}?\b" + _MON_RE + r"\s+(\d{1,2})\b(?:,?\s+(\d{1,2}):(\d{2})\b(?!\s*-\s*\d))?", nob, re.I)
        if m:
            try:
                d = date(self.year, _mon(m.group(1)), int(m.group(2)))
                return d, (int(m.group(3)) * 60 + int(m.group(4))) if m.group(3) else None
            except ValueError:
                pass
        m = re.search(r"\b" + _MON_RE + r"\s+(\d{1,2}),?\s+(\d{1,2}):(\d{2})\b(?!\s*-\s*\d)", nob)
        if m:
            try:
                return date(self.year, _mon(m.group(1)), int(m.group(2))), int(m.group(3)) * 60 + int(m.group(4))
            except ValueError:
                pass
        stamps = re.findall(r"\[[^\]]*?" + _MON_RE + r"\s+(\d{1,2}),?\s*(\d{1,2}):(\d{2})", txt)
        if stamps:
            best = None
            for mo, dd, hh, mm in stamps:
                try:
                    k = (date(self.year, _mon(mo), int(dd)), int(hh) * 60 + int(mm))
                except ValueError:
                    continue
                if best is None or k > best:
                    best = k
            if best:
                return best
        ds = _dates(nob, None, self.year)
        if ds:
            return ds[0][0], None
        return date(self.year, 1, 1), None

    def _owners(self):
        """Owner per user line: first participant named on a non-list line; list items inherit."""
        own = []
        cur = self.self_name
        for ln in self.lines:
            s = ln.strip()
            if not s.startswith("-"):
                best = None
                for n in self.people:
                    i = s.find(n)
                    if i >= 0 and (best is None or i < best[0]):
                        best = (i, n)
                if best is not None and best[0] < 40:
                    cur = best[1]
            own.append(cur)
        return own

    def _transcript(self):
        out = []
        for i, ln in enumerate(self.lines):
            m = re.match(r"^\s*([A-Z][\w'-]+(?: [A-Z][\w'-]+)+):\s*\"(.*)$", ln)
            if m and m.group(1) in self.people:
                txt = m.group(2).strip()
                if txt.endswith('"'):
                    txt = txt[:-1]
                out.append((m.group(1), txt, i))
        return out

    def _plans(self):
        out = []
        for i, ln in enumerate(self.lines):
            m = re.match(r"^\s*-?\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s+(.*)$", ln)
            if not m:
                continue
            s = int(m.group(1)) * 60 + int(m.group(2))
            e = int(m.group(3)) * 60 + int(m.group(4))
            rest = m.group(5)
            place = ""
            for p in self.places:
                if p in rest:
                    place = p
                    break
            act = re.sub(r"\s*\([^()]*(?:\([^()]*\)[^()]*)*\)", "", rest).strip()
            act = re.sub(r"\s+on\s+" + _WD_RE + r".*$", "", act, flags=re.I).strip()
            d = self.now_d
            tail = rest[rest.rfind(")") + 1:] if ")" in rest else ""
            ds = _dates(tail, self.now_d, self.year)
            if ds:
                d = ds[-1][0]
            out.append({"owner": self.owners[i], "start": s, "end": e, "act": act, "place": place, "date": d, "line": i})
        return out

    # events
    def place_of(self, text):
        low = text or ""
        for n in self.people:
            low = low.replace(n, " ")
        low = low.lower()
        best, bs = "", 0
        for p in self.places:
            parts = p.split(":")
            sector = parts[-2] if len(parts) >= 2 else parts[0]
            arena = parts[-1]
            sc = 0
            if sector.lower() in low:
                sc += 3
            else:
                sw = [w for w in _words(sector) if w not in ("house", "flat", "cottage")]
                if sw and all(w in low for w in sw):
                    sc += 2
            if re.search(r"\b" + re.escape(arena.lower()) + r"\b", low):
                sc += 1 if sc else 1.5
            if sc > bs:
                best, bs = p, sc
        # a place named in words: "the garden of the Plough Inn", "at the Old Mill"
        raw = text or ""
        for n in self.people:
            raw = raw.replace(n, " ")
        m = re.search(r"\b(?:to|at|in|on|outside|behind|by) the ([a-z]+(?: [a-z]+)?) (?:of|at|behind|beside) the ([A-Z][\w']*(?: [A-Z][\w']*)*)", raw)
        town = self.places[0].split(":")[0] if self.places and self.places[0].count(":") >= 2 else "Town"
        if m and m.group(1) not in STOP:
            sec, ar = m.group(2), m.group(1)
            for p in self.places:
                if p.lower().endswith((":%s:%s" % (sec, ar)).lower()):
                    return p
            if not best or (bs < 4 and sec.lower() in best.lower()) or bs < 2:
                syn = "%s:%s:%s" % (town, sec, ar)
                return syn
        if bs >= 1.5:
            return best
        m = re.search(r"\b(?:to|at|in) the ([A-Z][\w']*(?: [A-Z][\w']*)*)\b", raw)
        if m and m.group(1).lower() not in NON_NAME and m.group(1).lower() not in MONTHS:
            return "%s:%s:%s" % (town, m.group(1), m.group(1).lower())
        return ""

    def _events(self):
        evs = {}
        for i, ln in enumerate(self.lines):
            if re.match(r"^\s*-?\s*\d{1,2}:\d{2}\s*-\s*\d{1,2}:\d{2}", ln):
                continue
            ref = self.now_d
            stamp = re.match(r"^\s*-?\s*\d*\.?\s*\[([^\]]*)\]", ln)
            if stamp:
                sd = _dates(stamp.group(1), None, self.year)
                if sd:
                    ref = sd[0][0]
            body = re.sub(r"\[[^\]]*\]", " ", ln)
            units = []
            for chunk in re.split(r" / ", body):
                units.extend(re.split(r"(?<=[.!?])\s+(?=[A-Z\"])", chunk))
            for u in units:
                low = u.lower()
                if self._is_now(u):
                    continue
                if re.search(r"\bplan(?:ned)? for\b|\bschedule\b|\bis going to\b|\bgoing to:", low):
                    continue
                if len(re.findall(r"\d{1,2}:\d{2}", u)) > 4:
                    continue
                if re.search(REPLY, low):
                    continue
                place = self.place_of(u)
                if not place:
                    continue
                ts = _times(u)
                ds = _dates(u, ref, self.year)
                if not ts or not ds:
                    continue
                d = ds[0][0]
                for dd, _ in ds:
                    if ref and dd >= ref and _:
                        pass
                # prefer an explicit calendar date at or after the reference
                exp = [dd for dd, pos in ds if re.match(r"\s*" + _MON_RE, u[pos:pos + 12]) or re.match(r"\d{4}-", u[pos:pos + 5])]
                if exp:
                    d = exp[0]
                tt = [x for x in ts if x[3]] or ts
                s, e = tt[0][0], tt[0][1]
                if e is None:
                    e = s + 60
                key = (d, place)
                core = self._core(u)
                ev = evs.get(key)
                if ev is None:
                    ev = {"date": d, "place": place, "starts": [], "end": e, "texts": [], "owners": set(),
                          "host": "", "core": core}
                    evs[key] = ev
                ev["starts"].append(s)
                ev["texts"].append(u.strip())
                ev["owners"].add(self.owners[i])
                if len(core) > len(ev["core"]) and not core.startswith("Sounds"):
                    ev["core"] = core
        out = []
        for ev in evs.values():
            st = {}
            for s in ev["starts"]:
                st[s] = st.get(s, 0) + 1
            ev["start_options"] = [s for s, c in sorted(st.items(), key=lambda x: (-x[1], x[0]))]
            ev["start"] = ev["start_options"][0]
            if ev["end"] <= ev["start"]:
                ev["end"] = ev["start"] + 60
            ev["host"] = self._host(ev)
            ev["n"] = len(ev["texts"])
            out.append(ev)
        out.sort(key=lambda e: (-e["n"], e["date"], e["start"]))
        return out

    def _is_now(self, u):
        """A statement of the present moment (date + current clock), not an event."""
        if self.now_t is None:
            return False
        if not re.search(r"\b0?%d:%02d\b" % (self.now_t // 60, self.now_t % 60), u):
            return False
        ds = _dates(u, None, self.year)
        return any(d == self.now_d for d, _ in ds)

    def _core(self, u):
        s = u.strip().lstrip("-").strip()
        for _ in range(6):
            s = s.strip().lstrip('"').strip()
            s = re.sub(r"^[A-Z][a-z]+(?: [a-z]+){0,2}:\s+", "", s) if re.match(r"^[A-Z][a-z]+(?: [a-z]+){0,2}:\s", s) and not re.match(r"^[A-Z][a-z]+ [A-Z]", s) else s
            s = s.strip().lstrip('"').strip()
            s2 = re.sub(r"^(?:Have you heard\??|Did you (?:hear|know)\??|I heard that|Guess what\??|Good news\W*)\s*", "", s, flags=re.I)
            m = re.match(r"^([^:\"]{3,110}):\s+(?=\S)", s2)
            if m and (any(n in m.group(1) for n in self.people) or re.search(r"heard|told|tell|news|learned|conversation|said|hosting|mind", m.group(1))):
                s2 = s2[m.end():]
            s2 = re.sub(r"^(?:[A-Z][\w'-]+ [A-Z][\w'-]+ (?:learned|heard|said) that)\s*", "", s2)
            if s2 == s:
                break
            s = s2
        s = re.sub(r"^[A-Z][\w'-]+ [A-Z][\w'-]+:\s*\"?", "", s)
        s = s.strip().strip('"').strip()
        return s

    def _host(self, ev):
        for t in ev["texts"]:
            m = re.search(r"([A-Z][\w'-]+ [A-Z][\w'-]+) (?:is hosting|hosts|will host|will have|is holding|is organi[sz]ing|invites)", t)
            if m and m.group(1) in self.people:
                return m.group(1)
        for t in ev["texts"]:
            m = re.search(r"hosted by ([A-Z][\w'-]+ [A-Z][\w'-]+)", t)
            if m:
                return m.group(1)
        # an event statement in someone's own status line, told by nobody
        for i, ln in enumerate(self.lines):
            if re.search(r"\bhosting\b|\bthey are hosting\b|\bhost\b", ln) and any(t[:40] in ln for t in ev["texts"]):
                o = self.owners[i]
                if o:
                    return o
        return ""

    # knowledge
    def knows(self, person, ev):
        if person in ev["owners"]:
            return True
        for t in self.transcript:
            if _overlap(t[1], ev["core"]) > 0.5:
                return True
        return False

    def upcoming(self, ev):
        if self.now_d is None:
            return True
        if ev["date"] > self.now_d:
            return True
        if ev["date"] < self.now_d:
            return False
        return self.now_t is None or ev["end"] > self.now_t

    def plans_of(self, person, d=None):
        out = [p for p in self.plans if p["owner"] == person or (not self.plans_owned() and person == self.self_name)]
        if d is not None:
            out = [p for p in out if p["date"] == d]
        return out

    def plans_owned(self):
        return any(p["owner"] for p in self.plans)

    def traits(self, person):
        for i, ln in enumerate(self.lines):
            if self.owners[i] == person and re.search(r"trait", ln, re.I):
                return ln.lower()
        return ""

    def status_of(self, person, ev):
        """'planned' | 'free' | 'ordinary' | 'commitment' | 'over'."""
        if not self.upcoming(ev):
            return "over"
        items = self.plans_of(person, ev["date"])
        s, e = ev["start"], ev["end"]
        res = "free"
        for p in items:
            ps, pe = p["start"], p["end"]
            if pe <= ps:
                pe += 1440
            if not (ps < e and s < pe):
                continue
            if _overlap(p["act"], ev["core"]) > 0.4 or (p["place"] == ev["place"] and re.search(r"going to|attend|event|hosting", p["act"])):
                return "planned"
            if _is_commitment(p["act"], self.people):
                res = "commitment"
            elif res == "free":
                res = "ordinary"
        return res


def _is_commitment(act, people):
    low = act.lower()
    if re.search(r"going to|hosting|meet|appointment|calling on|visit|event|party|match|service|class with|lesson|date with", low):
        return True
    return any(n in act for n in people)


REPLY = r"count me in|sounds (?:lovely|great|good|fun)|can'?t make it|other plans|i'?ll be there|i'?d love to|cannot go|good to know"
SOCIABLE = r"sociable|talkative|jovial|energetic|curious|generous|friendly|outgoing|cheerful|nosy|warm"
RESERVED = r"quiet|tired|shy|calm|reserved|grumpy|busy|solitary|introvert"


def _willing(pr, person, ev):
    st = pr.status_of(person, ev)
    base = {"planned": 0.90, "free": 0.55, "ordinary": 0.45, "commitment": 0.15, "over": 0.02}[st]
    tr = pr.traits(person)
    if re.search(SOCIABLE, tr):
        base += 0.10
    if re.search(RESERVED, tr):
        base -= 0.10
    return max(0.02, min(0.95, base)), st


POS = r"count me in|i'?ll (?:be there|come|go|join|drop by|bring)|i'?d love to|wouldn'?t miss|see you there|i'?m in\b|i will (?:come|go|be there)|i mean to go|i'?m going|definitely|absolutely|yes\b|sure\b|sounds (?:lovely|great|good|fun|wonderful)"
NEG = r"can'?t make it|cannot (?:go|make|come)|other plans|won'?t be able|not able to|i'?m busy|have to work|no,|afraid i can'?t|sorry, i can|can'?t come|maybe another time"
BYE = r"good to talk|see you|bye|goodbye|take care|must be off|have to go|got to go|catch you later|farewell"


def _stance(text):
    low = (text or "").lower()
    if re.search(NEG, low):
        return "no"
    if re.search(POS, low):
        return "yes"
    return "none"


# --------------------------------------------------------------------------
# event phrasing


def _what(ev, pr, short=True):
    core = ev["core"] or (ev["texts"][0] if ev["texts"] else "something")
    c = re.split(r";|\s\(|\.\s", core)[0]
    c = re.sub(r"\b(?:on\s+)?" + _WD_RE + r"\b[^,;]*?(?=,|$)", "", c, flags=re.I) if short else c
    c = re.sub(r"\s*(?:on\s+)?the\s+\d{1,2}(?:st|nd|rd|th)\b", "", c)
    c = re.sub(r",?\s*from\s+[\w:]+\s+(?:till|to|until|-)\s+[\w:]+(\s+(?:in the )?(?:morning|afternoon|evening))?", "", c, flags=re.I)
    parts = (ev.get("place") or "").split(":")
    if len(parts) >= 2 and short:
        sec, ar = re.escape(parts[-2]), re.escape(parts[-1])
        c = re.sub(r"\s+(?:to|at|in|on|by)\s+(?:the\s+)?(?:%s\s+(?:of|at|in)\s+(?:the\s+)?%s|%s\s+(?:of|at|in)\s+(?:the\s+)?%s|%s|%s)\b\.*" % (ar, sec, sec, ar, sec, ar), "", c, flags=re.I)
    c = re.sub(r"\s+", " ", c).strip(" ,.")
    if short:
        c = _clip(c, 90)
    if c and c[0].isupper() and not re.match(r"[A-Z][\w'-]+ [A-Z]", c):
        c = c[0].lower() + c[1:]
    return c or "a gathering"


def _label(ctx, pr, ev, key, n=80):
    """Short name for the event: copied clause (p = 0.3) or paraphrase (p = 0.7)."""
    if ctx.p(key + ":labelcopy", 0.30):
        return _clip(_what(ev, pr), n)
    parts = (ev.get("place") or "").split(":")
    where = ("the %s %s" % (parts[-2], parts[-1])) if len(parts) >= 3 and parts[-1].lower() not in parts[-2].lower() else ("the " + parts[-2] if len(parts) >= 2 else "town")
    host = ev.get("host") or ""
    if host:
        return _clip("%s's event at %s" % (host.split(" ")[0], where), n)
    return _clip("the event at %s" % where, n)


def _place_words(place):
    parts = place.split(":") if place else []
    if len(parts) >= 3:
        return "the %s at the %s" % (parts[-1], parts[-2])
    if len(parts) == 2:
        return "the %s" % parts[-1]
    return place or "town"


def _ev_start(ctx, pr, ev, key):
    opts = ev.get("start_options") or [ev["start"]]
    if len(opts) > 1 and ctx.p(key + ":confuse", 0.15):
        return opts[1]
    return opts[0]


def _tell_event(ctx, pr, ev, key, speaker):
    """One or two sentences bringing up the event (copy or paraphrase)."""
    s = _ev_start(ctx, pr, ev, key)
    e = ev["end"] if ev["end"] > s else s + 60
    if ctx.p(key + ":copy", 0.30):
        txt = ev["core"].strip()
        txt = re.sub(r"\s+", " ", txt)
        return _clip(_sentence("Have you heard? " + txt) if not txt.lower().startswith("have you") else _sentence(txt), 380)
    style = ctx.randint(key + ":style", 0, 2)
    day = _say_day(ev["date"], pr.now_d)
    when = "%s %s" % (day, _say_range(s, e, style))
    where = _place_words(ev["place"])
    what = _what(ev, pr)
    host = ev.get("host") or ""
    if host == speaker:
        frames = ["I'm holding something %s at %s: %s. Do come along, and tell anyone who might be interested!" % (when, where, what),
                  "Just so you know, %s %s at %s: %s. I'd be glad to see you there." % ("I'll be set up", when, where, what),
                  "I wanted to let you know: %s, %s at %s. Please pass the word along!" % (what, when, where)]
    else:
        hp = (" %s is behind it." % host) if host else ""
        frames = ["Did you hear? %s, %s at %s.%s" % (_sentence(what)[:-1], when, where, hp),
                  "I heard something you might like: %s, %s at %s.%s" % (what, when, where, hp),
                  "Oh, before I forget, there's news going round: %s, %s at %s.%s" % (what, when, where, hp)]
    return _clip(ctx.pick(key + ":frame", frames), 390)


def _reply_to_event(ctx, pr, ev, me, other, key, invited):
    """Returns (text, stance) where stance is yes/hedge/no/host/news."""
    if ev.get("host") == me:
        return (ctx.pick(key + ":hostr", ["Yes, that's mine! I'd be so happy to see you there.",
                                          "That's right, I'm hosting it, so I'll certainly be there."]), "host")
    p, st = _willing(pr, me, ev)
    s = ev["start"]
    when = "%s %s" % (_say_day(ev["date"], pr.now_d), _say_range(s, None, ctx.randint(key + ":st", 0, 1)))
    if st == "planned":
        yes_txt = ["Yes, I already have it in my plans, I'll be there %s." % when,
                   "Oh, I know about it! I'm planning to go %s." % when]
    else:
        yes_txt = ["That sounds lovely, count me in! I'll be there %s." % when,
                   "Oh, how nice! I'd love to come, I'll head over %s." % when,
                   "Thanks for telling me, I think I'll go along %s." % when]
    if ctx.p(key + ":acc", p):
        return ctx.pick(key + ":yt", yes_txt), "yes"
    if ctx.p(key + ":hedge", 0.5):
        return ctx.pick(key + ":ht", ["Thanks for letting me know! I'll try to drop by if I can manage it.",
                                      "That sounds nice, though I'm not sure I can fit it in. I'll see how the day goes."]), "hedge"
    if st == "commitment":
        return ctx.pick(key + ":nt", ["Oh, that's kind, but I already have something planned then. Maybe another time?",
                                      "Sorry, I can't make it, I've promised to be somewhere else then."]), "no"
    return ctx.pick(key + ":nt2", ["Thanks for telling me, but I don't think I'll be able to go.",
                                   "Good to know! I probably won't make it, but I hope it goes well."]), "no"


# --------------------------------------------------------------------------
# conversation turn logic (shared by plain text and group_turn)


def _turn(ctx, pr):
    me = pr.self_name
    tr = pr.transcript
    others = [n for n in pr.people if n != me]
    last = tr[-1] if tr else None
    partner = last[0] if last and last[0] != me else None
    if partner is None:
        m = re.search(re.escape(me) + r" is talking with ([A-Z][\w'-]+ [A-Z][\w'-]+)", pr.user) if me else None
        partner = m.group(1) if m else (others[0] if others else "")
    first = partner.split(" ")[0] if partner else "there"
    said = " ".join(t[1] for t in tr)
    parts = []
    end_p = 0.15
    if last and last[0] != me and re.search(BYE, last[1].lower()):
        end_p = 0.85
    elif len(tr) >= 6:
        end_p = 0.50
    # reaction to news in the last line
    reacted = False
    if last and last[0] != me:
        for ev in pr.events:
            if _overlap(last[1], ev["core"]) > 0.45 or (pr.place_of(last[1]) == ev["place"] and _times(last[1])):
                invited = bool(re.search(r"\b(?:come|join|would you like|you should)\b", last[1].lower()))
                if end_p < 0.85:
                    txt, stn = _reply_to_event(ctx, pr, ev, me, last[0], "react", invited)
                    parts.append(txt)
                    reacted = True
                break
    # bringing up news
    no_news = bool(me and re.search(re.escape(me) + r"[^.\n]{0,30}\bno (?:news|new)", pr.user))
    told = False
    if not reacted:
        for ev in pr.events:
            if not pr.upcoming(ev) or not pr.knows(me, ev):
                continue
            if _overlap(said, ev["core"]) > 0.45 or (said and pr.place_of(said) == ev["place"] and any(w in said.lower() for w in _words(ev["core"])[:6])):
                continue
            prob = 0.75 if ev.get("host") == me else (0.30 if no_news else 0.60)
            if ctx.p("tell", prob):
                opener = ""
                if not tr:
                    opener = ctx.pick("hi", ["Hi %s! " % first, "Hello %s, good to see you. " % first, "Morning, %s! " % first if (pr.now_t or 600) < 720 else "Hi %s! " % first])
                parts.append(opener + _tell_event(ctx, pr, ev, "tellev", me))
                told = True
                end_p = min(end_p, 0.10)
            break
    if not parts and last and last[0] != me and not re.search(BYE, last[1].lower()) and re.search(REPLY, last[1].lower()):
        if _stance(last[1]) == "yes":
            parts.append(ctx.pick("ack", ["Wonderful, I'm so glad! See you there, %s." % first, "That's great to hear, %s. It should be a lovely time." % first]))
        else:
            parts.append(ctx.pick("ackn", ["No worries at all, %s. Maybe next time!" % first, "That's a shame, but I understand, %s." % first]))
    if not parts:
        if last and last[0] != me and re.search(BYE, last[1].lower()):
            parts.append(ctx.pick("bye", ["Lovely to see you too, %s. Take care!" % first, "Likewise! See you soon, %s." % first,
                                          "You too, %s. Have a good rest of the day!" % first]))
        elif not tr:
            parts.append(ctx.pick("open", ["Hi %s! How are you doing today?" % first, "Hello %s, nice to run into you. How's your day going?" % first,
                                           "Oh, hi %s! I hope everything is going well with you." % first]))
        else:
            act = ""
            for p in pr.plans_of(me, pr.now_d):
                if pr.now_t is not None and p["start"] <= pr.now_t < (p["end"] if p["end"] > p["start"] else p["end"] + 1440):
                    act = re.split(r"[:(]", p["act"])[0].strip()
            line = ctx.pick("small", ["I'm doing well, thank you for asking! It's been a busy day%s." % ((", I'm " + act) if act else ""),
                                      "That's good to hear. Things are fine here, just keeping busy.",
                                      "Oh, that's nice. It's always good to catch up with you, %s." % first])
            parts.append(line)
    if told or reacted:
        end_p = min(end_p, 0.25)
    end = ctx.p("end", end_p)
    if end and not re.search(BYE, " ".join(parts).lower()):
        parts.append(ctx.pick("byeadd", ["Anyway, I should get going. See you around!", "I'd better be off now, take care!"]))
    text = " ".join(parts)
    return _clip(text, 380), end, partner


def _plain_turn(ctx, pr):
    text, end, partner = _turn(ctx, pr)
    me = pr.self_name
    tail = pr.user[-900:]
    tags = re.findall(r"\[([A-Za-z_ -]{2,20})\]", tail)
    end_tag = cont_tag = None
    for t in tags:
        if re.search(r"end|stop|bye|done|over|leave", t.lower()):
            end_tag = end_tag or t
        else:
            cont_tag = cont_tag or t
    tag = None
    if end_tag or cont_tag:
        tag = "[%s]" % ((end_tag or "end") if end else (cont_tag or "continue"))
    if ctx.p("twolines", 0.03) and ". " in text:
        a, b = text.split(". ", 1)
        text = a + ".\n" + b
    r = ctx.u("slip")
    if r < 0.05:
        out = "%s: %s" % (me, text) + ("\n" + tag if tag else "")
    elif r < 0.09:
        out = text
    elif r < 0.13:
        out = text + (" " + tag if tag else "")
    elif r < 0.16:
        out = '"%s"' % text + ("\n" + tag if tag else "")
    elif r < 0.18:
        out = text + ("\n" + ("(%s)" % tag[1:-1] if ctx.p("odd", 0.5) else tag.title()) if tag else "")
    else:
        out = text + ("\n" + tag if tag else "")
    return out


def _group_turn(ctx, pr, props):
    text, end, partner = _turn(ctx, pr)
    enum = (props.get("addressed_to") or {}).get("enum") or []
    tr = pr.transcript
    last = tr[-1][0] if tr and tr[-1][0] != pr.self_name else None
    to = "everyone"
    if last and ctx.p("addr", 0.65):
        to = last
    if enum and to not in enum:
        to = "everyone" if "everyone" in enum else enum[0]
    if to != "everyone" and ctx.p("addrbreak", 0.03):
        to = to.split(" ")[0]
    return {"utterance": text or "Hello!", "addressed_to": to, "end_conversation": bool(end)}


# --------------------------------------------------------------------------
# memos


def _importance_of(ctx, text, key):
    low = (text or "").lower()
    if re.search(r"\bdied|death|funeral|breakup|broke up|engaged|married|wedding|fire\b|accident|pregnan|fired\b", low):
        v = 8
    elif re.search(r"count me in|accepted|invit|promise|agreed", low):
        v = 6
    elif re.search(r"hosting|event|news|heard|told|festival|fair|party|match|gather|repair|meeting|wheel|going to", low):
        v = 5
    elif re.search(r"conversation|chatting|chatted|calling on|seeing people|talk", low):
        v = 3
    elif re.search(r"work|busy|bak|teach|sort|tend|brew|mark|restock|roll", low):
        v = 2
    elif re.search(r"sleep|waking|wake|brush|bed\b", low):
        v = 1
    elif re.search(r"breakfast|lunch|dinner|eat|relax|read", low):
        v = 2
    else:
        v = 3
    if ctx.p(key + ":jit", 0.3):
        v += 1 if ctx.p(key + ":jd", 0.5) else -1
    return max(1, min(10, v))


def _memo(ctx, pr, me, lines, key, enum_dates=None, enum_places=None, allow_leak=False):
    """lines: list of (speaker, text).  Returns memo dict."""
    others = []
    for sp, _ in lines:
        if sp != me and sp not in others:
            others.append(sp)
    with_ = " and ".join(others) if others else "someone"
    evs_said = []
    teller = None
    for sp, tx in lines:
        for ev in pr.events:
            if (_overlap(tx, ev["core"]) > 0.45 or pr.place_of(tx) == ev["place"] and _times(tx)) and ev not in evs_said:
                evs_said.append(ev)
                teller = teller or sp
    if not evs_said and allow_leak and ctx.p(key + ":leak", 0.05):
        for ev in pr.events:
            if not pr.knows(me, ev):
                evs_said.append(ev)
                break
    memo = {"summary": "", "importance": 2, "plan_activity": "", "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    if not evs_said:
        topic = ""
        for sp, tx in lines:
            mm = re.search(r"\bis ((?:busy|working|having|seeing|relaxing|doing|making|chatting|sorting|baking|tending)[^(.!?\"]{2,60})", tx)
            if mm:
                topic = "how %s is %s" % ("the day", "going") if False else mm.group(1).strip()
                break
        memo["summary"] = _sentence("%s had a friendly chat with %s%s" % (me, with_, (", mostly small talk about being " + topic) if topic else ", mostly small talk"))
        memo["importance"] = _importance_of(ctx, "chatted", key)
    else:
        ev = evs_said[0]
        s = _ev_start(ctx, pr, ev, key)
        my = " ".join(tx for sp, tx in lines if sp == me and sp != teller)
        stn = _stance(my) if my else "none"
        host = ev.get("host") == me
        told_by_me = teller == me
        st = pr.status_of(me, ev)
        what = _what(ev, pr)
        when = "%s %s" % (_say_day(ev["date"], pr.now_d), _say_range(s, ev["end"], 0))
        where = _place_words(ev["place"])
        if host:
            summ = "%s told %s about the event %s is hosting (%s, %s at %s)" % (me, with_, me, what, when, where)
            prob = 0.10
        elif told_by_me:
            reply = _stance(" ".join(tx for sp, tx in lines if sp != me))
            summ = "%s passed on the news to %s that %s, %s at %s%s" % (me, with_, what, when, where,
                                                                       "; they said they'd come" if reply == "yes" else "")
            prob = 0.20 if st in ("free", "ordinary") else 0.0
        else:
            summ = "%s heard from %s that %s, %s at %s" % (me, teller or with_, what, when, where)
            if stn == "yes":
                summ += ", and %s said they would go" % me
                prob = 0.40 if st == "planned" else 0.80
            elif stn == "no":
                summ += ", but %s can't make it" % me
                prob = 0.03
            else:
                prob = 0.15 if st in ("free", "ordinary") else 0.05
        if st == "over":
            prob = min(prob, 0.02)
        memo["summary"] = _sentence(summ)
        memo["importance"] = _importance_of(ctx, "invitation accepted" if stn == "yes" else "news event", key)
        if ctx.p(key + ":plan", prob):
            act = ("hosting " if host else "going to ") + _label(ctx, pr, ev, key, 100)
            memo["plan_activity"] = _clip(act, 118)
            memo["plan_date"] = ev["date"].isoformat()
            memo["plan_start"] = _fmt_hm(s)
            dur = ev["end"] - s
            memo["plan_minutes"] = dur if 0 < dur <= 600 else 60
            memo["plan_place"] = ev["place"]
            if ctx.p(key + ":tstyle", 0.06):
                memo["plan_start"] = _say_time(s, 1).replace("am", "AM").replace("pm", "PM")
                if ":" not in memo["plan_start"]:
                    memo["plan_start"] = memo["plan_start"].replace(" ", ":00 ")
            if ctx.p(key + ":nodate", 0.04):
                memo["plan_date"] = ""
            if ctx.p(key + ":badplace", 0.04) and ev["place"]:
                parts = ev["place"].split(":")
                memo["plan_place"] = "%s %s" % (parts[-2], parts[-1]) if len(parts) >= 2 else ev["place"]
            if enum_places and memo["plan_place"] and memo["plan_place"] not in enum_places and not ctx.p(key + ":keepbad", 0.5):
                memo["plan_place"] = ""
    r = ctx.u(key + ":sumfail")
    if r < 0.02:
        memo["summary"] = ctx.pick(key + ":empty", ["", "N/A"])
    elif r < 0.04:
        memo["summary"] = memo["summary"] + " " + ("It was a pleasant and friendly exchange, and " + me + " came away feeling warmly towards " + with_ + ", glad to have caught up and to have heard how things are going around town these days. ") * 3
    return memo


def _conversation_memo(ctx, pr, props):
    lines = [(sp, tx) for sp, tx, _ in pr.transcript]
    ep = (props.get("plan_place") or {}).get("enum")
    m = _memo(ctx, pr, pr.self_name, lines, "memo", enum_places=ep)
    return m


# --------------------------------------------------------------------------
# pair / group summaries


def _gen_lines(ctx, pr, parts, maxl):
    lines = []
    first = parts[0]
    holders = []
    for ev in pr.events:
        if not pr.upcoming(ev):
            continue
        for p in parts:
            if pr.knows(p, ev) and any(not pr.knows(q, ev) for q in parts if q != p):
                holders.append((p, ev))
    others = [p for p in parts if p != first]
    lines.append((first, ctx.pick("g0", ["Hi %s! How are you doing?" % (others[0].split()[0] if len(others) == 1 else "everyone"),
                                        "Hello! Nice to see you here."])))
    if holders:
        teller, ev = holders[0]
        prob = 0.80 if ev.get("host") == teller else 0.70
        if ctx.p("gtell", prob):
            lines.append((teller, _tell_event(ctx, pr, ev, "gtellev", teller)))
            for q in parts:
                if q != teller and len(lines) < maxl - 1:
                    txt, _ = _reply_to_event(ctx, pr, ev, q, teller, "grep:" + q, ev.get("host") == teller)
                    lines.append((q, txt))
    if len(lines) < 2:
        lines.append((others[0] if others else first, ctx.pick("g1", ["I'm well, thanks! Just getting on with the day.",
                                                                      "Doing fine, thank you. Busy as always!"])))
    if len(lines) < maxl:
        lines.append((lines[-2][0] if len(lines) >= 2 else first, ctx.pick("g2", ["Good to see you. See you around!", "Take care, talk soon!"])))
    return lines[:maxl]


def _talk_prob(pr, parts):
    for ev in pr.events:
        if pr.upcoming(ev) and any(pr.knows(p, ev) for p in parts) and any(not pr.knows(p, ev) for p in parts):
            return 0.85
    known = 0
    for p in parts:
        for q in parts:
            if p != q and any(pr.owners[i] == p and q in ln for i, ln in enumerate(pr.lines)):
                known += 1
    return 0.60 if known else 0.45


def _participants(pr, props):
    names = []
    for k in ("lines",):
        it = (props.get(k) or {}).get("items") or {}
    en = sorted(pr.enum_names)
    # order: self first, then by first appearance in text
    order = sorted(en, key=lambda n: (n != pr.self_name, pr.user.find(n) if pr.user.find(n) >= 0 else 10 ** 6))
    names = order or [n for n in pr.people[:2]]
    return names


def _pair_summary(ctx, pr, props, defs):
    parts = _participants(pr, props)
    if pr.self_name in parts:
        parts = [pr.self_name] + [p for p in parts if p != pr.self_name]
    # the first named after "Name" order in text if self not among them
    if len(parts) < 2:
        parts = (parts + [n for n in pr.people if n not in parts])[:2]
    if len(parts) < 2:
        parts = parts + ["someone"]
    talk = ctx.p("talk", _talk_prob(pr, parts))
    if not talk:
        if ctx.p("nullmemo", 0.7):
            return {"talk": False, "lines": [], "first": None, "second": None}
        ph = {"summary": "They did not talk.", "importance": 1, "plan_activity": "", "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": ""}
        return {"talk": False, "lines": [], "first": dict(ph), "second": dict(ph)}
    lines = _gen_lines(ctx, pr, parts, 6)
    out = {"talk": True, "lines": [{"speaker": s, "text": t} for s, t in lines]}
    out["first"] = _memo(ctx, pr, parts[0], lines, "m1", allow_leak=True)
    out["second"] = _memo(ctx, pr, parts[1], lines, "m2", allow_leak=True)
    return out


def _group_summary(ctx, pr, props, defs):
    parts = _participants(pr, props)
    if len(parts) < 2:
        parts = (parts + [n for n in pr.people if n not in parts])[:3]
    talk = ctx.p("talk", _talk_prob(pr, parts))
    if not talk:
        return {"talk": False, "lines": [], "memos": []}
    lines = _gen_lines(ctx, pr, parts, 10)
    memos = []
    for p in parts[:8]:
        m = _memo(ctx, pr, p, lines, "gm:" + p, allow_leak=True)
        m["name"] = p
        memos.append(m)
    return {"talk": True, "lines": [{"speaker": s, "text": t} for s, t in lines], "memos": memos}


# --------------------------------------------------------------------------
# daily plan


def _lifestyle(pr, me):
    txt = ""
    for i, ln in enumerate(pr.lines):
        if pr.owners[i] == me and re.search(r"wake|bed|works?|from .* to", ln.lower()) and not ln.strip().startswith("-"):
            txt += " " + ln
    low = txt.lower()
    wake, bed = 7, 22 * 60
    m = re.search(r"wak\w* up at (\d{1,2})(?::(\d\d))?\s*(am|pm)?", low)
    if m:
        wake = _h24(m.group(1), m.group(3) or "am")
    m = re.search(r"(?:goes|go|going) to bed at (\d{1,2})(?::(\d\d))?\s*(am|pm)?|to bed at (midnight)", low)
    if m:
        bed = 1440 if m.group(4) else _h24(m.group(1), m.group(3) or "pm") * 60 + int(m.group(2) or 0)
    work = None
    m = re.search(r"\b([a-z]+)(?: (?:at|on|in))? (?:the )?([A-Z][\w' ]+?) from (\d{1,2})\s*(am|pm)? (?:to|till|until|-) (\d{1,2})\s*(am|pm)?", txt)
    if m:
        ws = _h24(m.group(3), m.group(4) or ("am" if int(m.group(3)) > 5 else "pm")) * 60
        we = _h24(m.group(5), m.group(6) or "pm") * 60
        if we <= ws:
            we = ws + 480
        work = (ws, we, _gerund(m.group(1)) + " " + m.group(0).split(" from ")[0][len(m.group(1)):].strip(), pr.place_of("at the " + m.group(2)) or pr.place_of(m.group(2)))
    return wake, bed, work


def _gerund(phrase):
    ws = phrase.split(" ")
    w = ws[-1] if len(ws) == 1 else ws[0]
    rest = " ".join(ws[1:]) if len(ws) > 1 else ""
    irr = {"runs": "running", "keeps": "keeping", "does": "doing", "goes": "going", "has": "having", "is": "being"}
    if w in irr:
        g = irr[w]
    elif re.search(r"(?:ch|sh|x|ss)es$", w):
        g = w[:-2] + "ing"
    elif w.endswith("es") and not w.endswith("ees"):
        g = w[:-2] + "ing" if w[:-1].endswith("e") and len(w) > 4 else w[:-1] + "ing"
        if w.endswith("kes") or w.endswith("tes") or w.endswith("ves"):
            g = w[:-2] + "ing"
    elif w.endswith("s"):
        g = w[:-1] + "ing"
    else:
        g = w + "ing"
    return (g + (" " + rest if rest else "")).strip()


def _home(pr, me):
    sur = me.split(" ")[-1].lower() if me else ""
    for p in pr.places:
        if sur and sur in p.lower():
            return p
    for p in pr.places:
        if re.search(r"home|house|cottage|flat|bedroom", p.lower()):
            return p
    return pr.places[0] if pr.places else "home"


def _daily_plan(ctx, pr, props, defs):
    me = pr.self_name
    wake, bed, work = _lifestyle(pr, me)
    if ctx.p("wakej", 0.15):
        wake += 1 if ctx.p("wakejd", 0.5) else -1
    wake = max(3, min(11, wake))
    enum = []
    try:
        enum = defs.get("PlanBlock", {}).get("properties", {}).get("address", {}).get("enum") or []
    except Exception:
        enum = []
    if not enum:
        for d in defs.values():
            if isinstance(d, dict):
                e = ((d.get("properties") or {}).get("address") or {}).get("enum")
                if e:
                    enum = e
    places = enum or pr.places or ["home"]
    home = _home(pr, me)
    if home not in places:
        home = places[0]
    day = pr.now_d
    fixed = []  # (start, end, act, place, emoji)
    if work and day is not None and (day.weekday() < 5 or ctx.p("wkend", 0.5)):
        wp = work[3] if work[3] in places else ctx.pick("wpl", [p for p in places if p != home] or places)
        fixed.append([work[0], work[1], _clip(work[2], 60) or "working", wp, "💼"])
    # events
    for ev in pr.events:
        if ev["date"] != day:
            continue
        host = ev.get("host") == me
        mem_yes = False
        for i, ln in enumerate(pr.lines):
            if pr.owners[i] == me and _overlap(ln, ev["core"]) > 0.3 and re.search(re.escape(me) + r"[^/]{0,20}:\s*\"?(?:Sounds lovely|count me in|I'll)|means to go|going to", ln):
                mem_yes = True
        if host:
            prob = 0.90
        elif mem_yes:
            prob = 0.80
        elif pr.knows(me, ev):
            clash = work and work[0] < ev["end"] and ev["start"] < work[1]
            prob = 0.20 if clash else 0.35
        else:
            prob = 0.0
        if ctx.p("evblock", prob):
            s = _ev_start(ctx, pr, ev, "dpev")
            e = ev["end"] if ev["end"] > s else s + 60
            pl = ev["place"] if ev["place"] in places else ctx.pick("evpl", places)
            act = ("hosting " if host else "going to ") + _label(ctx, pr, ev, "dplab", 90)
            fixed = [f for f in fixed if not (f[0] < e and s < f[1])] + [f for f in _split_around(fixed, s, e)]
            fixed.append([s, e, act, pl, "🚲" if "bicycl" in act else "🎉"])
        break
    # news to pass on
    news = [ev for ev in pr.events if pr.upcoming(ev) and pr.knows(me, ev)]
    if news and ctx.p("tellblock", 0.5):
        cand = re.findall(r"-\s*([\w' ]+:[\w' ]+:[\w' ]+):\s*\d+ (?:people|person)", pr.user)
        pl = ctx.pick("tellpl", [c for c in cand if c in places] or places)
        free_s = 17 * 60 if not work or work[1] <= 17 * 60 else work[1]
        if free_s + 60 <= bed:
            if not any(f[0] < free_s + 60 and free_s < f[1] for f in fixed):
                fixed.append([free_s, free_s + 60, "telling people about " + _label(ctx, pr, news[0], "tellab", 90), pl, "🗣️"])
    fixed.sort(key=lambda f: f[0])
    blocks = []
    t = wake * 60
    routine = [(30, "waking up and getting ready", home, "🌅"), (30, "having breakfast", home, "🍳")]
    for d, a, p, em in routine:
        blocks.append([t, d, a, p, em])
        t += d
    meals = {"lunch": False, "dinner": False}

    def filler(t0, t1):
        out = []
        cur = t0
        while cur < t1:
            if not meals["lunch"] and cur >= 11 * 60 + 30 and cur < 14 * 60:
                d = min(60, t1 - cur)
                out.append([cur, d, "having lunch", ctx.pick("lunchpl:%d" % cur, [home] + [p for p in places if re.search(r"inn|bake|cafe|green", p.lower())]), "🥪"])
                meals["lunch"] = True
            elif not meals["dinner"] and cur >= 18 * 60:
                d = min(60, t1 - cur)
                out.append([cur, d, "having dinner", home, "🍲"])
                meals["dinner"] = True
            else:
                nxt = t1
                for b in (12 * 60, 18 * 60 + 30):
                    if cur < b < t1:
                        nxt = min(nxt, b)
                d = max(5, min(180, nxt - cur))
                act = ctx.pick("fill:%d" % cur, ["relaxing at home", "reading", "doing chores", "taking a walk"])
                pl = home if act != "taking a walk" else ctx.pick("walkpl:%d" % cur, places)
                out.append([cur, d, act, pl, {"reading": "📖", "doing chores": "🧹", "taking a walk": "🚶"}.get(act, "🏡")])
            cur = out[-1][0] + out[-1][1]
        return out

    for f in fixed:
        if f[0] < t:
            f[0] = t
        if f[1] <= f[0]:
            continue
        if f[0] > t:
            blocks.extend(filler(t, f[0]))
        blocks.append([f[0], f[1] - f[0], f[2], f[3], f[4]])
        if re.search(r"lunch", f[2]):
            meals["lunch"] = True
        t = f[1]
    if bed - 10 > t:
        blocks.extend(filler(t, bed))
        t = bed
    blocks.append([t, max(5, min(960, (wake * 60 + 1440) - t)), "sleeping", home, "😴"])
    # merge tiny duplicate fillers
    merged = []
    for b in blocks:
        if merged and merged[-1][2] == b[2] and merged[-1][3] == b[3] and b[2] != "sleeping":
            merged[-1][1] += b[1]
        else:
            merged.append(b)
    blocks = merged
    while len(blocks) > 16:
        # merge the two shortest adjacent non-fixed
        i = min(range(len(blocks) - 1), key=lambda k: blocks[k][1] + blocks[k + 1][1])
        blocks[i][1] += blocks[i + 1][1]
        del blocks[i + 1]
    if ctx.p("gap", 0.04) and len(blocks) > 3:
        blocks[2][0] += 15
    if ctx.p("badaddr", 0.03) and len(blocks) > 2:
        blocks[1][3] = blocks[1][3].split(":")[-2] if ":" in blocks[1][3] else "home"
    out_blocks = [{"start": _fmt_hm(b[0]), "duration_minutes": int(max(5, min(960, b[1]))), "activity": _clip(b[2], 118) or "resting",
                   "emoji": b[4], "address": b[3]} for b in blocks]
    outline = []
    for b in blocks:
        if b[2] in ("sleeping",):
            continue
        item = "%s at %s" % (b[2], _say_time(b[0], 1).replace(" ", ""))
        if item not in outline:
            outline.append(_clip(item, 118))
    n = ctx.randint("onum", 4, 8)
    if ctx.p("obad", 0.03):
        n = ctx.pick("obadn", [3, 9])
    if len(outline) > n:
        step = len(outline) / float(n)
        outline = [outline[int(k * step)] for k in range(n)]
    while len(outline) < n:
        outline.append(ctx.pick("oextra:%d" % len(outline), ["winding down in the evening", "going to bed on time", "catching up with neighbours", "tidying up"]))
    return {"wake_up_hour": int(wake), "outline": outline, "blocks": out_blocks}


def _split_around(fixed, s, e):
    out = []
    for f in fixed:
        if f[0] < e and s < f[1]:
            if f[0] < s:
                out.append([f[0], s, f[2], f[3], f[4]])
            if f[1] > e:
                out.append([e, f[1], f[2], f[3], f[4]])
    return out


# --------------------------------------------------------------------------
# decompose


STEP_LIB = [
    (r"sleep", ["falling asleep", "sleeping soundly", "turning over", "deep sleep", "dreaming", "half waking"], "bed", "occupied"),
    (r"breakfast", ["making coffee", "toasting bread", "eating breakfast", "clearing the table", "washing the dishes"], "", ""),
    (r"lunch|dinner|eat", ["setting the table", "serving the food", "eating", "chatting over the meal", "clearing up"], "", ""),
    (r"wak|getting ready", ["getting out of bed", "washing up", "getting dressed", "making the bed"], "bed", "being made"),
    (r"relax|read|rest", ["settling into a chair", "reading a few pages", "having a cup of tea", "looking out the window", "dozing briefly"], "", "in use"),
    (r"host|going to|event", ["arriving and looking around", "greeting people", "helping out", "chatting with others", "watching what's going on", "saying goodbyes"], "", "in use"),
    (r"seeing people|chat|calling", ["looking for familiar faces", "saying hello", "catching up on news", "chatting", "saying goodbye"], "", ""),
    (r"", ["getting things ready", "getting to work", "working steadily", "taking a short break", "carrying on with the task", "tidying up"], "", "in use"),
]


def _decompose(ctx, pr, props, defs):
    low = pr.user.lower()
    total = None
    act = ""
    m = re.search(r"\((\d{1,4}) minutes\)", pr.user) or re.search(r"(\d{1,4})\s*(?:minutes|min)\b", pr.user)
    if m:
        total = int(m.group(1))
    for ln in pr.lines:
        if re.search(r"\bfrom \d{1,2}:\d{2} to \d{1,2}:\d{2}", ln.lower()):
            mm = re.search(r"is (.+?)(?:, at |$)", ln)
            if mm:
                act = mm.group(1)
            if total is None:
                ts = _times(ln)
                if ts and ts[0][1] is not None:
                    total = (ts[0][1] - ts[0][0]) % 1440
    total = total or 60
    step_def = None
    objenum = []
    for d in defs.values():
        if isinstance(d, dict) and "object" in (d.get("properties") or {}):
            step_def = d
            objenum = [o for o in (d["properties"]["object"].get("enum") or []) if o]
    lo_hi = (5, 15)
    if step_def:
        dm = step_def["properties"].get("duration_minutes") or {}
        lo_hi = (dm.get("minimum", 5), dm.get("maximum", 15))
    arr = props.get("steps") or {}
    mn, mx = arr.get("minItems", 4), arr.get("maxItems", 12)
    lib = STEP_LIB[-1]
    for ent in STEP_LIB:
        if ent[0] and re.search(ent[0], act.lower()):
            lib = ent
            break
    n = max(mn, min(mx, int(round(total / 10.0))))
    longer = total > n * lo_hi[1] and ctx.p("longer", 0.5)
    if total <= n * lo_hi[1] or longer:
        base = total // n
        durs = [base] * n
        rem = total - base * n
        i = 0
        while rem > 0:
            durs[i % n] += 5 if rem >= 5 else rem
            rem -= 5 if rem >= 5 else rem
            i += 1
        if not longer:
            durs = [max(lo_hi[0], d) for d in durs]
    else:
        durs = [lo_hi[1]] * n
    steps = []
    obj_for = ""
    words = lib[1]
    for k, d in enumerate(durs):
        a = words[k % len(words)]
        if k >= len(words):
            a = words[k % len(words)] + (" again" if k < 2 * len(words) else " some more")
        o = ""
        for ob in objenum:
            if ob.lower() in a.lower() or ob.lower() in act.lower() or (lib[2] and lib[2] == ob):
                o = ob
        if not o and objenum and lib is STEP_LIB[-1] and ctx.p("obj%d" % k, 0.4):
            o = ctx.pick("objp%d" % k, objenum)
        steps.append({"activity": a, "duration_minutes": int(d), "object": o, "object_state": ((lib[3] or "in use") if o else "")})
    return {"steps": steps}


# --------------------------------------------------------------------------
# react, choose_address


def _react(ctx, pr, props):
    enum = (props.get("choice") or {}).get("enum") or ["continue", "talk", "wait", "react"]
    me = pr.self_name
    m = re.search(r"noticed:?\s*\"?([A-Z][\w'-]+ [A-Z][\w'-]+)", pr.user)
    other = m.group(1) if m else next((n for n in pr.people if n != me), "")
    my_now = ""
    m2 = re.search(re.escape(me) + r" is ([^.(\n]+)", pr.user) if me else None
    if m2:
        my_now = m2.group(1)
    obs = ""
    m3 = re.search(re.escape(other) + r" is ([^(\n\"]+)", pr.user) if other else None
    if m3:
        obs = m3.group(1)
    told = False
    news = [ev for ev in pr.events if pr.upcoming(ev) and pr.knows(me, ev)]
    for ln in pr.lines:
        if other and other in ln and news and _overlap(ln, news[0]["core"]) > 0.4 and re.search(r"conversation with|told|heard from", ln):
            told = True
    if news and not told:
        w = {"talk": 0.55, "continue": 0.35, "wait": 0.07, "react": 0.03}
    elif obs and my_now and _overlap(obs, my_now) > 0.5:
        w = {"continue": 0.6, "talk": 0.3, "wait": 0.05, "react": 0.05}
    else:
        w = {"continue": 0.70, "talk": 0.20, "wait": 0.07, "react": 0.03}
    now_ev = [ev for ev in pr.events if ev["date"] == pr.now_d and pr.now_t is not None and ev["start"] <= pr.now_t < ev["end"]
              and pr.status_of(me, ev) != "planned" and pr.knows(me, ev) and ev.get("host") != me]
    if now_ev and not (my_now and _overlap(my_now, now_ev[0]["core"]) > 0.3) and ctx.p("evnow", 0.25):
        choice = "react"
    else:
        r = ctx.u("choice")
        acc = 0.0
        choice = "continue"
        for k in ("continue", "talk", "wait", "react"):
            acc += w[k]
            if r < acc:
                choice = k
                break
    if choice not in enum:
        choice = enum[0]
    first = other.split(" ")[0] if other else "them"
    reasons = {
        "continue": ["%s is busy with their own things, so I'll carry on with my plan." % first,
                     "Nothing about this needs my attention right now; I'll keep going."],
        "talk": ["I'd like to have a quick word with %s while they're nearby." % first,
                 "It's a good chance to catch up with %s%s." % (first, " and share some news" if news and not told else "")],
        "wait": ["%s looks occupied, so I'll wait until they're done." % first],
        "react": ["This changes things a little, so I'll adjust what I'm doing for a while."],
    }
    new = ""
    if choice == "react":
        new = ("going to " + _clip(_what(now_ev[0], pr), 80)) if now_ev else "taking a short break nearby"
    return {"choice": choice, "reason": ctx.pick("reason", reasons[choice]), "new_activity": new}


def _choose_address(ctx, pr, props):
    opts = []
    for o in ((props.get("place") or {}).get("anyOf") or []):
        pp = o.get("properties") or {}
        try:
            opts.append((pp["sector"]["enum"][0], pp["arena"]["enum"][0], list(pp["object"]["enum"])))
        except Exception:
            continue
    if not opts:
        return None
    m = re.search(r"(?:do this|about to|is going to|wants to)[^\"\n]*:?\s*\"([^\"]+)\"", pr.user)
    act = m.group(1) if m else ""
    if not act:
        qs = re.findall(r"\"([^\"]{3,200})\"", pr.user)
        act = qs[0] if qs else ""
    low = act.lower()
    here = None
    home = None
    for s, a, objs in opts:
        if re.search(re.escape(s) + r"\s*\(here", pr.user) and here is None:
            here = (s, a, objs)
        if re.search(re.escape(s) + r"\s*\(home", pr.user) and home is None:
            home = (s, a, objs)
    here = here or opts[0]
    best, bs = None, 0
    for s, a, objs in opts:
        sc = 0
        if s.lower() in low:
            sc += 2
        if re.search(r"\b" + re.escape(a.lower()) + r"\b", low):
            sc += 1
        for ob in objs:
            if ob and re.search(r"\b" + re.escape(ob.lower()) + r"\b", low):
                sc += 1
        if sc > bs:
            best, bs = (s, a, objs), sc
    choice = None
    if best and ctx.p("wordmatch", 0.85):
        choice = best
    if choice is None and not best:
        for ev in pr.events:
            if _overlap(act, ev["core"]) > 0.3 and ctx.p("evmatch", 0.60):
                parts = ev["place"].split(":")
                for s, a, objs in opts:
                    if len(parts) >= 2 and s == parts[-2] and a == parts[-1]:
                        choice = (s, a, objs)
                break
    if choice is None and re.search(r"sleep|home|bed|relax|dinner|breakfast|getting ready", low) and home and ctx.p("home", 0.8):
        choice = home
    if choice is None:
        choice = here if ctx.p("stay", 0.75) else ctx.pick("other", [o for o in opts if o != here] or opts)
    s, a, objs = choice
    obj = ""
    for ob in objs:
        if ob and ob.lower() in low:
            obj = ob
    if not obj and objs:
        obj = "" if ctx.p("noobj", 0.5) or "" in objs and len(objs) == 1 else ctx.pick("obj", [o for o in objs if o] or [""])
    return {"place": {"sector": s, "arena": a, "object": obj}}


# --------------------------------------------------------------------------
# small kinds


def _memory_items(pr):
    items = re.findall(r"^\s*-\s*\"(.+?)\"\s*$", pr.user, re.M)
    if not items:
        items = re.findall(r"^\s*(?:-|\d+\.)\s*(.+)$", pr.user, re.M)
    return items


def _importance(ctx, pr):
    m = re.search(r"\"([^\"]{2,})\"\s*$", pr.user.strip().split("\n\n")[-2] if "\n\n" in pr.user else pr.user)
    mem = m.group(1) if m else ""
    if not mem:
        qs = re.findall(r"\"([^\"]{3,})\"", pr.user)
        mem = qs[-1] if qs else pr.user[-200:]
    return {"importance": _importance_of(ctx, mem, "imp")}


def _importance_batch(ctx, pr, props):
    arr = props.get("ratings") or {}
    items = re.findall(r"^\s*(?:-|\d+[.)])\s*\"?(.+?)\"?\s*$", pr.user, re.M)
    items = [x for x in items if not re.match(r"\d{1,2}:\d{2}", x)]
    n = len(items) or arr.get("minItems") or 1
    if arr.get("maxItems") and n > arr["maxItems"]:
        n = arr["maxItems"]
    rs = [_importance_of(ctx, items[k] if k < len(items) else "", "ib%d" % k) for k in range(n)]
    if ctx.p("wrongcount", 0.04):
        rs = rs[:-1] if len(rs) > 1 and ctx.p("wcd", 0.5) else rs + [3]
    return {"ratings": rs}


def _interview(ctx, pr):
    me = pr.self_name
    qs = re.findall(r"\"([^\"]{3,300}\?)\"", pr.user)
    q = qs[-1] if qs else ""
    target = None
    for n in pr.people:
        if n in q and n != me:
            target = n
    mems = [ln for ln in pr.lines if ln.strip().startswith("-")]
    hedge = ctx.p("hedge", 0.2)
    if target:
        about = [ln for ln in mems if target in ln]
        first = target.split(" ")[0]
        if about and ctx.p("know", 0.9):
            acts = []
            for ln in about:
                mm = re.search(r"\]\s*" + re.escape(target) + r" is ([^(\n\":/]+)", ln)
                if mm:
                    a = mm.group(1).strip().rstrip(".")
                    if a not in acts:
                        acts.append(a)
            talked = any(re.search(r"conversation|chatting|chatted|told|heard from", ln) for ln in about)
            s = "Yes, I know %s." % target
            if acts:
                s += " Lately I've seen them %s." % " and ".join(acts[-2:])
            if talked:
                s += " We've chatted a few times recently."
            if hedge:
                s += " I wouldn't say I know them very well, though."
            ans = s
        else:
            ans = "Hmm, I'm not sure I really know %s, I'm afraid. The name doesn't ring much of a bell." % target
    else:
        best = None
        for ev in pr.events:
            if _overlap(q, " ".join(ev["texts"][:2])) > 0.2:
                best = ev
                break
        if best and pr.knows(me, best):
            ans = "Yes, I've heard about it! " + _tell_event(ctx, pr, best, "iv", me).replace("Did you hear? ", "").replace("Have you heard? ", "")
            if hedge:
                ans += " At least that's what I was told."
        else:
            ans = "No, I haven't heard anything about that, I'm afraid."
    if ctx.p("ivempty", 0.02):
        ans = "I don't know."
    return {"answer": _clip(ans, 590)}


def _reflection_questions(ctx, pr, props):
    me = pr.self_name
    cnt = {}
    for n in pr.people:
        if n != me:
            cnt[n] = pr.user.count(n)
    top = [n for n, c in sorted(cnt.items(), key=lambda x: (-x[1], x[0])) if c > 0][:2]
    qs = []
    if pr.events:
        qs.append("How does %s feel about %s, and will they go?" % (me, _clip(_what(pr.events[0], pr), 70)))
    for n in top:
        qs.append("What is %s's relationship with %s like these days?" % (me, n))
    qs.append("What has %s been spending most of their time on lately?" % me)
    mx = (props.get("questions") or {}).get("maxItems", 3)
    k = ctx.randint("nq", 2, 3)
    return {"questions": qs[:min(mx, k)]}


def _reflection_insights(ctx, pr, props, defs):
    me = pr.self_name
    stm = re.findall(r"^\s*(\d{1,3})\.\s+(.*)$", pr.user, re.M)
    nums = [int(a) for a, _ in stm] or [1]
    ins = []
    evid_ev = [int(a) for a, t in stm if pr.events and _overlap(t, pr.events[0]["core"]) > 0.4]
    if pr.events and evid_ev:
        ev = pr.events[0]
        st = pr.status_of(me, ev)
        mine = any(re.search(re.escape(me) + r"(?: is going to|'s plan for[^:]*: [^;]*going to|: \"(?:Sounds lovely|count me in))", t) for a, t in stm) if me else False
        verb = "plans to go to" if st == "planned" or mine else "has heard a lot about"
        ins.append({"insight": "%s %s %s; the news has clearly been going around town." % (me, verb, _clip(_what(ev, pr), 90)),
                    "about": _clip(_what(ev, pr), 55), "evidence": evid_ev[:6], "importance": 6})
    people = {}
    for a, t in stm:
        for n in pr.people:
            if n != me and n in t:
                people.setdefault(n, []).append(int(a))
    for n, ev_ in sorted(people.items(), key=lambda x: (-len(x[1]), x[0]))[:2]:
        ins.append({"insight": "%s keeps crossing paths with %s and seems to get on well with them." % (me, n),
                    "about": n, "evidence": ev_[:5], "importance": 4})
    routine = [int(a) for a, t in stm if re.search(r"busy|working|lunch|dinner|breakfast", t)][:5]
    if routine:
        ins.append({"insight": "%s's days follow a steady routine of work and meals." % me, "about": "daily routine", "evidence": routine, "importance": 3})
    if not ins:
        ins.append({"insight": "%s has had a fairly ordinary stretch of days." % me, "about": me or "self", "evidence": nums[:3], "importance": 3})
    if ctx.p("evbad", 0.03):
        ins[0]["evidence"] = ins[0]["evidence"] + [max(nums) + 1]
    k = ctx.randint("nins", 1, 5)
    return {"insights": ins[:k]}


def _relationship(ctx, pr):
    me = pr.self_name
    others = [n for n in pr.people if n != me]
    target = None
    for n in others:
        if re.search(r"(?:about|with)\s+" + re.escape(n), pr.user):
            target = n
    target = target or (others[0] if others else "them")
    mems = [ln for ln in pr.lines if ln.strip().startswith("-") and target in ln]
    talked = any(re.search(r"conversation|chatt|told|heard from", ln) for ln in mems)
    first = target.split(" ")[0]
    if not mems:
        s = "I know %s only by sight around town; I don't have strong feelings either way right now." % target
    elif talked:
        s = ctx.pick("rel", ["%s and I are on friendly terms; we've been chatting and sharing news lately, and I feel warmly towards %s." % (target, first),
                             "I get along well with %s. We've talked recently and I appreciate how %s keeps me in the loop." % (target, first)])
    else:
        s = "%s is a familiar face in town; I see %s around now and then and feel friendly, if not especially close." % (target, first)
    return {"summary": _clip(s, 398)}


def _revise_currently(ctx, pr):
    me = pr.self_name
    old = ""
    for ln in pr.lines:
        m = re.match(r"^\s*Currently:\s*(.+)$", ln)
        if m:
            old = m.group(1)
    if not old:
        for ln in pr.lines:
            if me and ln.startswith(me + " is "):
                old = ln
                break
    first = re.split(r"(?<=[.!?])\s", old.strip())[0] if old else "%s is going about the usual routine." % me
    parts = [first]
    ups = [ev for ev in pr.events if pr.upcoming(ev) and pr.knows(me, ev)]
    if ups:
        ev = ups[0]
        w = "%s at %s" % (_say_day(ev["date"], pr.now_d), _place_words(ev["place"]))
        yes = pr.status_of(me, ev) == "planned" or any(re.search(re.escape(me) + r"[^/]{0,15}:\s*\"?(?:Sounds lovely|count me in)", ln) for ln in pr.lines)
        if ev.get("host") == me and ctx.p("cur_host", 0.9):
            parts.append("%s is hosting %s %s and is keen for people to spread the word." % (me, _clip(_what(ev, pr), 80), w))
        elif yes and ctx.p("cur_yes", 0.7):
            parts.append("%s plans to go to %s %s." % (me, _clip(_what(ev, pr), 80), w))
        elif ctx.p("cur_heard", 0.4):
            parts.append("%s has heard that %s %s." % (me, _clip(_what(ev, pr), 80), w))
    parts.append(ctx.pick("cur_end", ["%s also cares about keeping up with friends in town." % me.split(" ")[0],
                                      "Otherwise %s is keeping to the usual routine." % me.split(" ")[0]]))
    return {"currently": _clip(" ".join(parts), 495)}


# --------------------------------------------------------------------------
# generic schema filler


def _resolve(s, defs):
    if isinstance(s, dict) and "$ref" in s:
        name = s["$ref"].split("/")[-1]
        return defs.get(name, {})
    return s


def _fill(ctx, s, defs, key, depth=0):
    s = _resolve(s, defs)
    if not isinstance(s, dict) or depth > 8:
        return None
    if "anyOf" in s or "oneOf" in s:
        opts = [o for o in (s.get("anyOf") or s.get("oneOf")) if _resolve(o, defs).get("type") != "null"]
        return _fill(ctx, opts[0], defs, key, depth + 1) if opts else None
    if "enum" in s and s["enum"]:
        ne = [e for e in s["enum"] if e != ""]
        return ne[0] if ne else s["enum"][0]
    if "const" in s:
        return s["const"]
    t = s.get("type")
    if isinstance(t, list):
        t = [x for x in t if x != "null"][0] if [x for x in t if x != "null"] else "null"
    if t == "object" or "properties" in s:
        return dict((k, _fill(ctx, v, defs, key + "." + k, depth + 1)) for k, v in (s.get("properties") or {}).items())
    if t == "array":
        n = max(1, s.get("minItems", 1))
        return [_fill(ctx, s.get("items") or {}, defs, key + "[]", depth + 1) for _ in range(n)]
    if t == "integer":
        lo, hi = s.get("minimum", 1), s.get("maximum", 5)
        return int(max(lo, min(hi, (lo + hi) // 2)))
    if t == "number":
        return float(s.get("minimum", 0.5))
    if t == "boolean":
        return bool("ok" in key or ctx.p(key, 0.5))
    if t == "string":
        return "" if s.get("maxLength", 10) == 0 else "I'm not sure."
    return None


def _conform(ctx, obj, s, defs, key, depth=0):
    """Keep required keys/types present (strict mode)."""
    s = _resolve(s, defs)
    if not isinstance(s, dict) or depth > 8:
        return obj
    if "anyOf" in s:
        if obj is None and any(_resolve(o, defs).get("type") == "null" for o in s["anyOf"]):
            return None
        opts = [o for o in s["anyOf"] if _resolve(o, defs).get("type") != "null"]
        return _conform(ctx, obj, opts[0], defs, key, depth + 1) if opts else obj
    t = s.get("type")
    if t == "object" or "properties" in s:
        if not isinstance(obj, dict):
            return _fill(ctx, s, defs, key, depth)
        props = s.get("properties") or {}
        for k in s.get("required", []):
            if k not in obj:
                obj[k] = _fill(ctx, props.get(k, {}), defs, key + "." + k, depth + 1)
        if s.get("additionalProperties") is False:
            obj = dict((k, v) for k, v in obj.items() if k in props)
        for k in list(obj.keys()):
            if k in props:
                obj[k] = _conform(ctx, obj[k], props[k], defs, key + "." + k, depth + 1)
        return obj
    if t == "array":
        if not isinstance(obj, list):
            return _fill(ctx, s, defs, key, depth)
        return [_conform(ctx, v, s.get("items") or {}, defs, key + "[]", depth + 1) for v in obj]
    if t == "integer":
        try:
            return int(obj)
        except Exception:
            return _fill(ctx, s, defs, key, depth)
    if t == "boolean":
        return bool(obj)
    if t == "string":
        return obj if isinstance(obj, str) else ("" if obj is None else str(obj))
    return obj


# --------------------------------------------------------------------------
# dispatch


def _kind(props):
    k = set(props.keys())
    if {"talk", "memos"} <= k:
        return "group_summary"
    if {"talk"} <= k and ("first" in k or "lines" in k):
        return "pair_summary"
    if {"summary", "importance"} <= k and any(x.startswith("plan") for x in k):
        return "memo"
    if {"wake_up_hour", "blocks"} & k:
        return "daily_plan"
    if "steps" in k:
        return "decompose"
    if "utterance" in k:
        return "group_turn"
    if "ratings" in k:
        return "importance_batch"
    if k == {"importance"}:
        return "importance"
    if "answer" in k:
        return "interview"
    if "choice" in k:
        return "react"
    if "insights" in k:
        return "insights"
    if "questions" in k:
        return "questions"
    if "currently" in k:
        return "currently"
    if k == {"summary"}:
        return "relationship"
    if "place" in k:
        return "address"
    if "ok" in k:
        return "probe"
    return "generic"


def _estimate_cut(text, max_tokens):
    try:
        mt = int(max_tokens)
    except Exception:
        return text
    if mt <= 0:
        return text
    limit = int(mt * 3.6)
    if len(text) > limit:
        return text[:limit]
    return text


def respond(body, seed):
    try:
        return _respond(body, seed)
    except Exception:
        try:
            ctx = _Ctx(body if isinstance(body, dict) else {}, seed)
            rf = (body or {}).get("response_format") if isinstance(body, dict) else None
            js = (rf or {}).get("json_schema") or {}
            sch = js.get("schema") if isinstance(js, dict) else None
            if isinstance(sch, dict):
                return json.dumps(_fill(ctx, sch, sch.get("$defs") or sch.get("definitions") or {}, "fb"), ensure_ascii=False)
        except Exception:
            pass
        return "Sorry, could you say that again?\n[continue]"


def _respond(body, seed):
    if not isinstance(body, dict):
        body = {}
    ctx = _Ctx(body, seed)
    rf = body.get("response_format")
    schema = None
    if isinstance(rf, dict):
        js = rf.get("json_schema")
        if isinstance(js, dict) and isinstance(js.get("schema"), dict):
            schema = js["schema"]
        elif rf.get("type") == "json_object":
            schema = {}
    pr = _Prompt(body, schema or {})
    if schema is None:
        return _plain_turn(ctx, pr)
    defs = schema.get("$defs") or schema.get("definitions") or {}
    props = schema.get("properties") or {}
    kind = _kind(props)
    if kind != "probe" and ctx.p("refusal", 0.005):
        return "I'm sorry, but I can't help with that request."
    obj = None
    if kind == "probe":
        obj = {"ok": True}
    elif kind == "memo":
        obj = _conversation_memo(ctx, pr, props)
    elif kind == "pair_summary":
        obj = _pair_summary(ctx, pr, props, defs)
    elif kind == "group_summary":
        obj = _group_summary(ctx, pr, props, defs)
    elif kind == "daily_plan":
        obj = _daily_plan(ctx, pr, props, defs)
    elif kind == "decompose":
        obj = _decompose(ctx, pr, props, defs)
    elif kind == "group_turn":
        obj = _group_turn(ctx, pr, props)
    elif kind == "importance":
        obj = _importance(ctx, pr)
    elif kind == "importance_batch":
        obj = _importance_batch(ctx, pr, props)
    elif kind == "interview":
        obj = _interview(ctx, pr)
    elif kind == "react":
        obj = _react(ctx, pr, props)
    elif kind == "insights":
        obj = _reflection_insights(ctx, pr, props, defs)
    elif kind == "questions":
        obj = _reflection_questions(ctx, pr, props)
    elif kind == "currently":
        obj = _revise_currently(ctx, pr)
    elif kind == "relationship":
        obj = _relationship(ctx, pr)
    elif kind == "address":
        obj = _choose_address(ctx, pr, props)
    if obj is None:
        obj = _fill(ctx, schema, defs, "gen")
    if obj is None:
        obj = {"reply": _turn(ctx, pr)[0]}
    obj = _conform(ctx, obj, schema, defs, "root")
    text = json.dumps(obj, ensure_ascii=False)
    return _estimate_cut(text, body.get("max_tokens"))
