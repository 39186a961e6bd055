"""blind.py - a blind stand-in language model (issue 42), written only from captured requests.

respond(body, seed) -> str: the content text of one chat completion. Deterministic per
(seed, messages). Never raises. Standard library only.

DECLARED RULES (fixed before any run; rates are per request unless said otherwise)
-------------------------------------------------------------------------------------
Reading the prompt (meaning, not headings):
  R0  Speaker = the person the system message says it is the mind of, else the first "Name:"
      persona, else the person asked "what does X say". People = persona names and any
      capitalised First Last pairs in the text. Text is split into paragraphs; a bullet list
      belongs to the single participant named in the line that introduces it.
  R1  Times are read in any style: "17:00", "5 pm", "5:30 p.m.", "half past five", "quarter to
      six", "noon", "midnight", "after work" (17:30), "evening" (18:00), "tonight" (19:00),
      "sundown/sunset/dusk" (18:30), "morning" (09:00), "afternoon" (14:00), "lunchtime" (12:00).
      A bare hour below 8 in an event sentence is read as pm. "from A to B" gives a duration.
  R2  Dates: ISO, "March 5", "5 March", "5th of March", "today", "tonight", "tomorrow",
      weekday names (next such day), relative to the current date found in the prompt.
  R3  An "event" is a sentence (persona status, memory, quoted line) that holds a date or time
      reference plus an intent/gathering word, and is not a schedule line (no "HH:MM-HH:MM",
      fewer than 3 clock times). Its place is matched to the schema enum (or offered place
      list) by shared words; else no place.
  R4  A person's schedule = lines "HH:MM-HH:MM activity (place)" under them, or a memory line
      "Schedule: HH:MM activity; ...". A block is "hard" (work/busy/sleep), "soft" (meal,
      chores) or "free" (relaxing, home, free time, nothing).

Conversations (text turns, group_turn, conversation_summary, group_summary):
  C1  Telling news: when the speaker knows an event still ahead and has not mentioned it in this
      conversation, mentions it in its turn with p = 0.6 if it is the speaker's own event (their
      name opens the sentence / it is in their status), p = 0.4 if heard from someone else,
      p = 0.15 if the memories show the partner already heard about it. Only one mention per
      speaker per conversation. When told, the time is left vague ("soon", no clock) with
      p = 0.2 and the place is dropped with p = 0.1.
  C2  Invitations: when the last partner line proposes an event (time/date + invite word),
      the speaker accepts with p = 0.65 if its schedule is free or unknown then (0.75 if the
      proposer is named in the speaker's identity text), p = 0.45 if the time holds a soft
      block, p = 0.25 if a hard block (0.35 if the proposer is named in the identity). Otherwise
      declines (70%) or stays vague "maybe, I'll see" (30%, no commitment).
  C3  Otherwise small talk about its current activity / status. Ends the conversation after its
      line with p = 0.1 at <2 lines so far, 0.35 at 2-5 lines, 0.7 at >=6 lines; never on its
      very first line of a new conversation.
  C4  One-request conversations (summary kinds) decide talk = true with p = 0.8 if any of them
      names another in the identity text, else 0.6; the gist follows C1-C3 with each line built
      only from that person's own memories.
  C5  Memos: a plan change is given only if the speaker accepted (accept words in its own line)
      an event with a readable time: then filled with p = 0.85 (15% forget), date/time/place from
      the event; minutes = the event's span, else 120. A declined/vague/none conversation gives no
      plan change, except a spurious one-hour "meet again" plan with p = 0.03. Importance: 2-3
      small talk, 5-7 news/invitation (+1 if accepted).
Other kinds:
  P1  daily_plan: wake hour from the lifestyle text (+-0 h; 10% shifted 1 h later); blocks
      routine (getting ready, breakfast, work at the workplace matched by words from identity,
      lunch, work, dinner, relaxing, sleeping at home). An event for that day is put in at its
      time and place with p = 0.85 if the speaker owns it or its memories show it agreed to go,
      p = 0.25 if only heard of it, p = 0.0 if its memories show it declined.
  P2  decompose: 2-6 (as asked) steps of 5-15 min from templates by activity words; objects
      chosen from the offered enum by shared words, else "".
  P3  importance / importance_batch: routine (sleep, wake, eat, busy, chatting, in use) 1-3;
      conversation/news 4-6; event/invitation/plan with a date 6-8; +-1 jitter (p = 0.3).
  P4  interview: answers from memory lines sharing >= 2 content words with the question; gives
      the event's time and place with p = 0.85, vague otherwise; says it does not know when
      nothing matches (and with p = 0.1 even when something does: forgetting).
  P5  react: "talk" with p = 0.45 if the speaker has untold event news and the person seen is
      someone it could tell, p = 0.25 if the seen person is named in its identity, else 0.1;
      "react" p = 0.05; else "continue".
  P6  reflection_questions / reflection_insights / relationship / revise_currently / probe:
      built from the statements given (names most mentioned, numbered evidence that mentions
      the subject); revise keeps the old status and adds up to 2 event/intention memories
      (each kept with p = 0.8).
  P7  any other schema: by its fields (blocks: the daily plan from now on; utterance: a turn;
      summary+plan_date: a memo; steps/ratings/answer: as above), else filled from the schema
      itself (types, bounds; a string enum takes the value sharing most words with the end of the
      request with p = 0.7, else a random value); any other text request: one plausible
      in-character sentence.
Malformed output (declared shares, drawn per request, probe excluded):
  M1  JSON kinds: 3% truncated JSON; 1% a refusal sentence; 2% the speaker's name in front of
      the JSON ("Name: {...}"); 1% one enum value replaced by a value outside the enum (when the
      answer has an enum field), 1% wrapped in a ```json code fence.
  M2  Text turns: 2% speaker's name in front; 1% a refusal sentence; 2% no [end]/[continue]
      marker line; 1% wrapped in double quotes.
"""
import hashlib
import json
import random
import re

# ---------------------------------------------------------------- basic reading

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]
MON_ABBR = {m[:3]: i + 1 for i, m in enumerate(MONTHS)}
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
NUMW = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
        "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
VAGUE_TIMES = [(r"after work", 17 * 60 + 30), (r"sundown|sunset|dusk|nightfall", 18 * 60 + 30),
               (r"\btonight\b", 19 * 60), (r"\bevening\b", 18 * 60), (r"\bnoon\b|\bmidday\b", 12 * 60),
               (r"\bmidnight\b", 23 * 60 + 59), (r"lunch ?time", 12 * 60), (r"\bafternoon\b", 14 * 60),
               (r"\bmorning\b", 9 * 60), (r"\bdawn\b|\bsunrise\b", 6 * 60 + 30)]
INTENT = re.compile(r"\b(want|wants|plan|plans|planning|will|going to|invite|invites|invited|invit\w*|host\w*|"
                    r"hold\w*|throw\w*|organi[sz]\w*|celebrat\w*|gather\w*|meet\w*|join|come|coming|party|"
                    r"festival|fair|concert|lead\w*|open\w*|show|night|dance|feast|walk|match|service|"
                    r"reading|launch|ask\w* everyone|hope\w*|expect\w*|count me|be there)\b", re.I)
ACCEPT = re.compile(r"(count me in|i'?ll be there|i will be there|i'?d love to|see you there|sounds (great|lovely|good|fun)|"
                    r"\bi'?ll come\b|wouldn'?t miss|\byes\b|\bsure\b|i'?m in\b|i can make it|i'?ll join)", re.I)
DECLINE = re.compile(r"(can'?t|cannot|won'?t be able|other plans|\bsorry\b|not free|i'?m busy|have to work|\bno\b,)", re.I)
HARD = re.compile(r"(work|busy|shift|class|lecture|study|shop|store|stall|bak|tend|lamp|repair|build|paint|writ|"
                  r"teach|open|serv|running|runs|sleep|counter|taproom|shed)", re.I)
SOFT = re.compile(r"(breakfast|lunch|dinner|meal|eat|errand|chore|clean|wash|getting ready)", re.I)
FREE = re.compile(r"(relax|free|rest|leisure|home|reading|walk|nothing)", re.I)
NAME_RE = re.compile(r"\b([A-Z][a-z'\u00C0-\u017F-]+(?: [A-Z][a-z'\u00C0-\u017F-]+){1,2})\b")
QUOTE_LINE = re.compile(r"^([A-Z][\w' .-]+?): \"(.*)\"\s*$", re.M)
CLOCK_RE = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
NOT_FIRST = set("the a an have did sorry hi hello it its by yes no oh well thanks thank good lovely sounds "
                "question name age identity lifestyle currently what who how where when answer things "
                "someone nobody today tomorrow sure maybe if then when should keep say lines from step break "
                "plan make give choose rate rewrite write each one first second objects places prefer conclude "
                "nothing whose which this that these those".split())
NOT_LAST = set("cafe pub college store market hall inn chapel house day shop school church library pharmacy "
               "supply harbour lighthouse crown street square bakery taproom room".split())
STOP = set("the a an and or of to in on at for with from by is are was were be been it its this that "
           "there their they them he she his her you your i my me we our as into about after before "
           "up out over any some what who how do does did not no yes has have had just will would can "
           "could should may might than then so very more most one two all".split())


def _s(x):
    return x if isinstance(x, str) else ("" if x is None else str(x))


def words(t):
    return [w for w in re.findall(r"[a-z][a-z'-]+", t.lower()) if w not in STOP and len(w) > 2]


def fmt_hm(m):
    m = max(0, min(int(m), 23 * 60 + 59))
    return "%02d:%02d" % (m // 60, m % 60)


def parse_time(t, event=True):
    """First time-of-day in t (minutes after midnight), and an end time if "from A to B"."""
    tl = t.lower()
    found = []
    for m in re.finditer(r"\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?|o'?clock)(?![a-z])", tl):
        h = int(m.group(1)); mi = int(m.group(2) or 0); suf = m.group(3)
        if h > 23 or mi > 59:
            continue
        if suf.startswith("p") and h < 12:
            h += 12
        elif suf.startswith("a") and h == 12:
            h = 0
        elif suf.startswith("o") and event and h < 8:
            h += 12
        found.append((m.start(), h * 60 + mi))
    for m in re.finditer(r"(?<![\d:-])\b([01]?\d|2[0-3]):([0-5]\d)\b(?!\s*[-\u2013]\s*\d)(?!\s*(?:a\.?m|p\.?m))", tl):
        if any(abs(p - m.start()) < 3 for p, _ in found):
            continue
        h = int(m.group(1)); mi = int(m.group(2))
        if event and h < 8 and not m.group(1).startswith("0"):
            h += 12
        found.append((m.start(), h * 60 + mi))
    nw = "|".join(NUMW)
    for m in re.finditer(r"\b(half past|quarter past|quarter to) (%s|\d{1,2})\b" % nw, tl):
        v = m.group(2); h = NUMW.get(v) or int(v)
        mi = 30 if m.group(1) == "half past" else 15
        if m.group(1) == "quarter to":
            h -= 1; mi = 45
        if event and h < 8:
            h += 12
        found.append((m.start(), (h % 24) * 60 + mi))
    for m in re.finditer(r"\b(%s) o'?clock\b" % nw, tl):
        h = NUMW[m.group(1)]
        if event and h < 8:
            h += 12
        found.append((m.start(), h * 60))
    if not found:
        for pat, v in VAGUE_TIMES:
            m = re.search(pat, tl)
            if m:
                found.append((m.start(), v))
                break
    if not found:
        return None, None
    found.sort()
    start = found[0][1]
    if start < 12 * 60 and re.search(r"\b(tonight|this evening|in the evening|at night|p\.?m\.?)\b", tl) \
            and not re.search(r"\b(a\.?m\.?)(?![a-z])", tl):
        start += 12 * 60
        found = [(p, v + 12 * 60 if v < 12 * 60 else v) for p, v in found]
    end = None
    if len(found) > 1 and re.search(r"\b(from|between)\b.*\b(to|until|till|and)\b|[-\u2013]", tl):
        if found[1][1] > start:
            end = found[1][1]
    return start, end


def parse_date(t, today):
    """(y, m, d) for the first date reference in t; today = (y, m, d, weekday index) or None."""
    tl = t.lower()
    m = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", tl)
    if m:
        return (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    y = today[0] if today else 2026
    mn = "|".join(MONTHS + [k for k in MON_ABBR])
    m = re.search(r"\b(%s)\.? (\d{1,2})(?:st|nd|rd|th)?\b" % mn, tl)
    if m:
        return (y, MON_ABBR[m.group(1)[:3]], int(m.group(2)))
    m = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?(%s)\b" % mn, tl)
    if m:
        return (y, MON_ABBR[m.group(2)[:3]], int(m.group(1)))
    if today:
        if re.search(r"\btomorrow\b", tl):
            return add_days(today, 1)
        if re.search(r"\b(today|tonight|this evening|this afternoon|later on)\b", tl):
            return today[:3]
        m = re.search(r"\b(%s)\b" % "|".join(WEEKDAYS), tl)
        if m and len(today) > 3 and today[3] is not None:
            k = (WEEKDAYS.index(m.group(1)) - today[3]) % 7
            return add_days(today, k)
    return None


def days_in(y, mo):
    return [31, 29 if y % 4 == 0 else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]


def add_days(d, k):
    y, mo, da = d[0], d[1], d[2]
    for _ in range(k):
        da += 1
        if da > days_in(y, mo):
            da = 1; mo += 1
            if mo > 12:
                mo = 1; y += 1
    return (y, mo, da)


def iso(d):
    return "%04d-%02d-%02d" % d[:3] if d else ""


def find_today(text, enum_dates):
    wd = None
    y = None
    m = re.search(r"\b(%s),? (%s) (\d{1,2})\b(?:,? (\d{4}))?" % ("|".join(WEEKDAYS), "|".join(MONTHS)), text.lower())
    if m:
        wd = WEEKDAYS.index(m.group(1))
        y = int(m.group(4)) if m.group(4) else None
    yy = re.search(r"\b(20\d\d)\b", text)
    if y is None:
        y = int(yy.group(1)) if yy else 2026
    for e in enum_dates or []:
        mm = re.match(r"(\d{4})-(\d{2})-(\d{2})$", e)
        if mm:
            d = (int(mm.group(1)), int(mm.group(2)), int(mm.group(3)))
            if wd is None:
                m2 = re.search(re.escape(e) + r" \(today, (\w+)\)", text)
                if m2 and m2.group(1).lower() in WEEKDAYS:
                    wd = WEEKDAYS.index(m2.group(1).lower())
            return d + (wd,)
    if m:
        return (y, MONTHS.index(m.group(2)) + 1, int(m.group(3)), wd)
    m = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", text)
    if m:
        return (int(m.group(1)), int(m.group(2)), int(m.group(3)), None)
    return None


def now_minutes(text):
    for line in text.split("\n"):
        if line.startswith("-"):
            continue
        m = CLOCK_RE.search(line)
        if m and re.search(r"(%s)" % "|".join(MONTHS + WEEKDAYS), line.lower()):
            return int(m.group(1)) * 60 + int(m.group(2))
    return None


# ---------------------------------------------------------------- prompt model

class Prompt:
    def __init__(self, body):
        msgs = body.get("messages") or []
        self.system = "\n".join(_s(m.get("content")) for m in msgs if isinstance(m, dict) and m.get("role") == "system")
        self.user = "\n".join(_s(m.get("content")) for m in msgs if isinstance(m, dict) and m.get("role") != "system")
        self.text = self.user
        rf = body.get("response_format") or {}
        self.rf_type = rf.get("type") if isinstance(rf, dict) else None
        js = rf.get("json_schema") if isinstance(rf, dict) else None
        self.kind = (js or {}).get("name") if isinstance(js, dict) else None
        self.schema = (js or {}).get("schema") if isinstance(js, dict) else None
        self.lines = self.text.split("\n")
        self.personas = re.findall(r"^Name: *(.+?) *$", self.text, re.M)
        m = re.search(r"mind of ([A-Z][^,.\n]+?)(?:,|\.|\n| a )", self.system)
        self.speaker = m.group(1).strip() if m else None
        if not self.speaker:
            m = re.search(r"What does ([A-Z][\w' -]+?) say", self.text)
            self.speaker = m.group(1) if m else (self.personas[0] if self.personas else "I")
        self.enum_dates = []
        self.enum_places = []
        self._scan_schema(self.schema)
        placetxt = " ".join(self.enum_places) + " " + " ".join(re.findall(r"[A-Z][\w' ]+:[\w' ]+:[\w' ]+", self.text))
        placesegs = set(seg.strip() for seg in re.split(r"[:\n]", placetxt))
        self.people = []
        for n in [self.speaker] + self.personas + [q.group(1) for q in QUOTE_LINE.finditer(self.text)] + NAME_RE.findall(self.text):
            n = n.strip()
            if n.endswith("'s"):
                n = n[:-2]
            if not n or n in self.people:
                continue
            if n not in self.personas and n != self.speaker and (
                    re.search(r"\b(%s)\b" % "|".join(w.title() for w in MONTHS + WEEKDAYS), n)
                    or n.split()[0].endswith("'s") or n in placesegs or n.split()[0].lower() in NOT_FIRST or n.split()[-1].lower() in NOT_LAST):
                continue
            self.people.append(n)
        self.today = find_today(self.text, self.enum_dates)
        self.now = now_minutes(self.text)
        self.offered_places = self._offered_places()
        self.sections = self._sections()

    def _scan_schema(self, s, depth=0):
        if depth > 8:
            return
        if isinstance(s, dict):
            for k, v in s.items():
                if k == "enum" and isinstance(v, list):
                    if any(isinstance(x, str) and re.match(r"\d{4}-\d\d-\d\d$", x) for x in v):
                        if not self.enum_dates:
                            self.enum_dates = [x for x in v if x]
                    elif any(isinstance(x, str) and x.count(":") >= 2 for x in v):
                        for x in v:
                            if x and x not in self.enum_places:
                                self.enum_places.append(x)
                else:
                    self._scan_schema(v, depth + 1)
        elif isinstance(s, list):
            for v in s:
                self._scan_schema(v, depth + 1)

    def _offered_places(self):
        out = list(self.enum_places)
        for line in self.lines:
            for p in re.findall(r"[A-Z][\w' ]+:[\w' ]+:[\w' ]+", line):
                p = p.strip()
                if p not in out and len(p) < 120:
                    out.append(p)
        return out

    def _sections(self):
        """owner name -> list of bullet lines; a bullet list belongs to the one participant named
        in the line introducing it (persona blocks belong to their Name)."""
        parts = [p for p in self.personas] or [self.speaker]
        sec = {p: [] for p in parts}
        sec[None] = []
        owner = parts[0] if parts else None
        cur_persona = owner
        for line in self.lines:
            if line.startswith("Name:"):
                cur_persona = line[5:].strip()
                owner = cur_persona
                continue
            if line.startswith("- ") or line[:1].isdigit() or (line.startswith(tuple(parts)) and ": \"" in line) or line.startswith(("Identity:", "Currently:")):
                sec.setdefault(owner, []).append(line)
                continue
            if not line.strip():
                continue
            named = [p for p in parts if p in line or p.split()[0] + "'s" in line]
            if len(named) == 1:
                owner = named[0]
            elif len(named) > 1:
                # the first one named is the owner of what follows ("What X remembers about Y")
                owner = min(named, key=lambda p: line.find(p))
            else:
                owner = cur_persona if len(parts) > 1 else parts[0]
        return sec

    def own_text(self, person):
        if len(self.personas) <= 1:
            return self.text
        return "\n".join(self.sections.get(person, []))

    def identity(self, person):
        out = []
        cur = None
        for line in self.lines:
            if line.startswith("Name:"):
                cur = line[5:].strip()
            elif cur == person and re.match(r"^(Identity|Currently|Innate traits|Lifestyle):", line):
                out.append(line)
        if not out:
            for para in re.split(r"\n\s*\n", self.text):
                if person and person in para and not re.search(r"^\s*- ", para, re.M):
                    out = [para]
                    break
        return "\n".join(out)

    def field(self, person, name):
        ident = self.identity(person)
        for l in ident.split("\n"):
            if l.lower().startswith(name.lower() + ":"):
                return l.split(":", 1)[1].strip()
        if name == "Currently":
            for snt in sentences(ident):
                if person in snt and re.search(r"\b(is|are) \w+ing\b", snt):
                    return snt
        if name == "Lifestyle":
            for snt in sentences(ident):
                if re.search(r"wakes?|to bed|gets? up", snt, re.I):
                    return snt
        return ""

    def match_place(self, t, places=None):
        places = places if places is not None else self.offered_places
        if not t or not places:
            return ""
        tw = set(words(t))
        best, score = "", 0
        for p in places:
            segs = p.split(":")
            pw = words(" ".join(segs[1:]))
            if not pw:
                continue
            sc = sum(1 for w in set(pw) if w in tw) / (len(set(pw)) ** 0.5)
            sc += 0.5 * sum(1 for w in set(words(segs[-1])) if w in tw)
            if sc > score + 1e-9:
                best, score = p, sc
        return best if score >= 0.7 else ""


# ---------------------------------------------------------------- events and schedules

def sentences(t):
    out = []
    for line in t.split("\n"):
        line = line.strip().lstrip("-").strip()
        if not line:
            continue
        line = re.sub(r"^(Identity|Currently|Memory):\s*", "", line)
        for s in re.split(r"(?<=[.!?])\s+(?=[A-Z\"])", line):
            out.append(s.strip())
    return out


class Event:
    def __init__(self, text, owner, date, start, end, place):
        self.text, self.owner, self.date, self.start, self.end, self.place = text, owner, date, start, end, place
        self.key = set(w for w in words(text) if len(w) > 3) - {"wants", "throw", "invite", "heard", "tomorrow",
                                                                   "today", "after", "work", "there"}

    def minutes(self):
        if self.start is not None and self.end is not None and self.end > self.start:
            return min(600, self.end - self.start)
        return 120


def find_events(P, text, persons):
    evs = []
    for s in sentences(text):
        if re.search(r"\d{1,2}:\d{2}\s*[-\u2013]\s*\d{1,2}:\d{2}", s) or len(CLOCK_RE.findall(s)) >= 3:
            continue
        if re.search(r"\bis (\w+ing)\b", s) and not INTENT.search(s):
            continue
        d = parse_date(s, P.today)
        st, en = parse_time(s)
        if d is None and st is None:
            continue
        if not INTENT.search(s):
            continue
        if re.search(r"'s plan for|\bschedule\b", s, re.I):
            continue
        if ACCEPT.search(s) or DECLINE.search(s):
            continue
        if re.search(r"\b(wakes? up|goes to bed|to bed|usually|every (day|morning|evening)|sleeps in)\b", s, re.I):
            continue
        if P.today and d and d < P.today[:3]:
            continue
        if P.today and d == P.today[:3] and st is not None and P.now is not None and st + 30 < P.now:
            continue
        q = re.match(r"^([A-Z][\w' -]+?): \"(.*)\"?$", s)
        body = q.group(2) if q else s
        body = re.sub(r"^(have you heard\?|did you hear\?|by the way,)\s*", "", body.strip().strip('"'), flags=re.I)
        body = re.sub(r"^[A-Z][\w' -]+? (?:heard|learned|learnt) from [A-Z][\w' -]+?(?: and [A-Z][\w' -]+?)?:\s+", "", body)
        body = re.sub(r"^[A-Z][\w' -]+? (?:heard|learned|learnt) that ", "", body)
        owner = None
        for p in persons:
            if body.startswith(p) or body.startswith(p.split()[0] + " "):
                owner = p
        evs.append(Event(body.strip('"'), owner, d, st, en, P.match_place(body)))
    # dedupe by key overlap, keep the most specific
    out = []
    for e in evs:
        dup = None
        for o in out:
            if len(e.key & o.key) >= max(2, min(len(e.key), len(o.key)) // 2):
                dup = o
        if dup is None:
            out.append(e)
        else:
            sp = lambda x: (x.date is not None) + (x.start is not None) + bool(x.place) + (x.owner is not None)
            if sp(e) > sp(dup):
                out[out.index(dup)] = e
    return out


def schedule_of(P, person):
    """list of (start, end, activity) for today, from the person's own lines."""
    txt = P.own_text(person)
    blocks = []
    for m in re.finditer(r"(\d{1,2}):(\d{2})\s*[-\u2013]\s*(\d{1,2}):(\d{2})\s+([^(\n]+)", txt):
        a = int(m.group(1)) * 60 + int(m.group(2)); b = int(m.group(3)) * 60 + int(m.group(4))
        if b <= a:
            b += 24 * 60
        blocks.append((a, b, m.group(5).strip()))
    if blocks:
        return blocks
    for line in txt.split("\n"):
        if person in line and len(CLOCK_RE.findall(line)) >= 4:
            part = line.split("Schedule:", 1)[-1]
            items = re.findall(r"(\d{1,2}):(\d{2}) ([^;]+)", part)
            pts = [(int(h) * 60 + int(mi), act.strip()) for h, mi, act in items]
            for i, (a, act) in enumerate(pts):
                b = pts[i + 1][0] if i + 1 < len(pts) else 24 * 60 + 6 * 60
                if b <= a:
                    b += 24 * 60
                blocks.append((a, b, act))
            if blocks:
                return blocks
    return blocks


def slot_kind(P, person, ev):
    """free / soft / hard / unknown for the person at the event's time."""
    if ev.start is None:
        return "unknown"
    if ev.date is not None and P.today is not None and ev.date != P.today[:3]:
        return "unknown"
    for a, b, act in schedule_of(P, person):
        t = ev.start
        if a <= t < b or a <= t + 24 * 60 < b:
            if re.search(r"sleep", act, re.I):
                return "hard"
            if FREE.search(act) and not re.search(r"busy|work", act, re.I):
                return "free"
            if SOFT.search(act):
                return "soft"
            return "hard"
    return "unknown"


def close_to(P, a, b):
    ident = P.identity(a)
    return bool(b) and (b in ident or b.split()[0] in ident)


def first(n):
    return n.split()[0] if n else n


def event_name(ev, P):
    m = re.search(r"\b(?:a|an)\s+([\w' -]{3,40}?)(?=\s+(?:at|in|on|from|for|with|tonight|today|tomorrow|after|this)\b|[,.;(]|$)", ev.text)
    if m:
        return "the " + m.group(1).strip()
    toks = set(w.lower() for p in P.people for w in p.split())
    return " ".join([w for w in words(ev.text) if w not in toks][:4]) or "the event"


def describe_event(ev, speaker, rng, told_vague=True):
    t = ev.text.strip().rstrip(".")
    if ev.owner == speaker:
        t = re.sub(r"^%s (wants|plans|hopes|is going|intends)" % re.escape(speaker),
                   lambda m: "I " + {"wants": "want", "plans": "plan", "hopes": "hope",
                                     "is going": "am going", "intends": "intend"}[m.group(1)], t)
        t = t.replace(speaker + " ", "I ", 1) if t.startswith(speaker) else t
        t = re.sub(r"\b(her|his|their) (customers|friends)", r"my \2", t)
        t = re.sub(r"\b(she|he|they) (can|meets|knows|sees)\b", lambda m: "I " + {"meets": "meet", "knows": "know", "sees": "see"}.get(m.group(2), m.group(2)), t)
    if told_vague and rng.random() < 0.2:
        t = re.sub(r"\b(?:at |from |between )?\d{1,2}(?::\d\d)?\s*(?:a\.?m\.?|p\.?m\.?)(?:\s*(?:to|until|-|and)\s*\d{1,2}(?::\d\d)?\s*(?:a\.?m\.?|p\.?m\.?))?", "", t)
        t = re.sub(r"\b(?:at |from )?\d{1,2}:\d\d\b", "", t)
        t = re.sub(r"\(\s*\)", "", t)
        t = re.sub(r"\s{2,}", " ", t).strip() + " sometime soon"
    if rng.random() < 0.1 and ev.place:
        t = re.sub(r"(the )?" + re.escape(ev.place.split(":")[1]), "somewhere in town", t)
    return t


# ---------------------------------------------------------------- conversations



def transcript(P):
    """The conversation in progress: the last run of quoted lines after the last bullet."""
    last_bullet = -1
    for i, l in enumerate(P.lines):
        if l.startswith("- ") or re.match(r"^\d+\. ", l):
            last_bullet = i
    run = []
    prev = P.lines[last_bullet] if last_bullet >= 0 else ""
    for l in P.lines[last_bullet + 1:]:
        m = QUOTE_LINE.match(l.strip())
        if m:
            attached = prev.startswith("- ") or re.match(r"^\d+\. ", prev) or (QUOTE_LINE.match(prev.strip()) and not run)
            if not attached:
                run.append((m.group(1), m.group(2)))
        elif l.strip():
            run = [] if run and False else run
        prev = l if l.strip() else prev
    return run


def is_proposal(P, line):
    if ACCEPT.search(line) or DECLINE.search(line):
        return False
    d = parse_date(line, P.today); st, _ = parse_time(line)
    return (d is not None or st is not None) and bool(re.search(
        r"(come|join|invite|party|would you|will you|want to|have you heard|did you hear|you should|"
        r"coming|along|are you free|let'?s)", line, re.I)) and bool(INTENT.search(line))


def decide_accept(P, me, proposer, ev, rng):
    k = slot_kind(P, me, ev)
    close = close_to(P, me, proposer)
    p = {"free": 0.65, "unknown": 0.65, "soft": 0.45, "hard": 0.25}[k]
    if close and k in ("free", "unknown"):
        p = 0.75
    elif close and k == "hard":
        p = 0.35
    r = rng.random()
    if r < p:
        return "accept", k
    return ("decline" if rng.random() < 0.7 else "vague"), k


def time_phrase(ev):
    if ev.start is None:
        return ""
    h, m = divmod(ev.start, 60)
    hh = h % 12 or 12
    return " at %d%s %s" % (hh, (":%02d" % m) if m else "", "pm" if h >= 12 else "am")


def accept_line(ev, rng):
    return rng.choice(["Sounds lovely, count me in%s!", "I'd love to come, I'll be there%s.",
                       "Sure, I'll be there%s, thanks for asking."]) % time_phrase(ev)


def decline_line(kind, rng):
    if kind == "hard":
        return rng.choice(["Sorry, I can't make it: I'll be working then.", "I'm sorry, I'm busy at that time."])
    return rng.choice(["Sorry, I can't make it: I have other plans.", "Thanks, but I don't think I can come."])


def vague_line(rng):
    return rng.choice(["Maybe, I'll see how the day goes.", "Oh, that sounds nice, I might drop by if I can."])


def smalltalk(P, me, partner, rng, opening):
    cur = P.field(me, "Currently")
    cur = re.sub(r"^%s (is )?" % re.escape(me), "", cur).split(".")[0].split(" and ")[0].strip()
    cur = re.sub(r"\b(his|her|their)\b", "my", cur)
    hi = "Hi %s! " % first(partner) if opening and partner else ""
    opts = ["How have you been?", "It's been a busy day for me.",
            "I've been %s lately." % cur if cur and len(cur) < 140 else "Nice to see you.",
            "Lovely weather today, isn't it?"]
    return hi + rng.choice(opts)


def goodbye(partner, rng):
    return rng.choice(["It was good to talk, %s. See you around!", "I should get going, %s. Take care!"]) % first(partner)


def heard_by(P, me, partner, ev):
    txt = P.own_text(me)
    for blk in re.split(r"\n(?=- )", txt):
        if partner and (partner in blk or first(partner) in blk) and len(ev.key & set(words(blk))) >= max(2, len(ev.key) // 2):
            return True
    return False


def conv_turn(P, me, partner, lines_so_far, rng, mentioned_by_me=None, own_text=None):
    """(utterance, end?, info) for one turn by `me`."""
    others = [p for p in P.personas if p != me] if len(P.personas) > 1 else [p for p in P.people if p != me]
    info = {"told": None, "answer": None, "event": None}
    opening = not any(s == me for s, _ in lines_so_far)
    # respond to a proposal in the last line by someone else
    if lines_so_far:
        sp, last = lines_so_far[-1]
        if sp != me and is_proposal(P, last) and (me in last or re.search(r"\b%s\b" % re.escape(first(me)), last)):
            return rng.choice(["Yes, that's right, I'd love to see you there!", "That's my plan, I hope lots of people come."]), False, info
        if sp != me and is_proposal(P, last):
            evs = find_events(P, last, [sp]) or [Event(last, sp, parse_date(last, P.today), *parse_time(last), P.match_place(last))]
            ev = evs[0]
            dec, k = decide_accept(P, me, sp, ev, rng)
            info["answer"] = dec; info["event"] = ev
            txt = accept_line(ev, rng) if dec == "accept" else decline_line(k, rng) if dec == "decline" else vague_line(rng)
            return txt, rng.random() < 0.3, info
    # tell news
    said = " ".join(t for s, t in lines_so_far if s == me)
    heard = " ".join(t for s, t in lines_so_far)
    mine = own_text if own_text is not None else P.own_text(me)
    evs = find_events(P, mine, P.personas or P.people)
    cands = []
    for ev in evs:
        if len(ev.key & set(words(heard))) >= max(2, len(ev.key) // 2):
            continue
        if ev.owner == me or (P.field(me, "Currently") and ev.text in P.field(me, "Currently")):
            p = 0.6
        else:
            p = 0.4
        if partner and heard_by(P, me, partner, ev):
            p = 0.15
        cands.append((p, ev))
    if cands and not (mentioned_by_me or said and any(len(ev.key & set(words(said))) >= 2 for _, ev in cands)):
        p, ev = cands[-1] if len(cands) == 1 else max(cands, key=lambda c: c[0])
        if rng.random() < p:
            info["told"] = ev
            lead = ("Hi %s! " % first(partner)) if opening and partner and rng.random() < 0.5 else ""
            txt = lead + rng.choice(["Have you heard? ", "Did you hear? ", "By the way, "]) + describe_event(ev, me, rng) + "."
            if ev.owner == me:
                txt += rng.choice([" Would you like to come?", " You should come!", ""])
            return txt, False, info
    n = len(lines_so_far)
    pend = 0.1 if n < 2 else 0.35 if n < 6 else 0.7
    if opening and n == 0:
        pend = 0.0
    if rng.random() < pend:
        return goodbye(partner, rng), True, info
    return smalltalk(P, me, partner, rng, opening), False, info


def partner_of(P, me, lines):
    for s, _ in reversed(lines):
        if s != me:
            return s
    cands = [p for p in P.people if p != me]
    inpersona = False
    for l in P.lines:
        if l.startswith("Name:"):
            inpersona = True
            continue
        if not l.strip():
            inpersona = False
            continue
        if inpersona or l.startswith("- ") or QUOTE_LINE.match(l.strip()):
            continue
        hits = [(l.find(p), p) for p in cands if p in l]
        if hits:
            return min(hits)[1]
    return cands[0] if cands else ""


def memo_for(P, me, lines, rng, today_idx_ok=True):
    said_me = [t for s, t in lines if s == me]
    others = [s for s, _ in lines if s != me]
    partner = others[0] if others else ""
    allt = " ".join(t for _, t in lines)
    ev = None
    evs = find_events(P, "\n".join('%s: "%s"' % (s, t) for s, t in lines), list({s for s, _ in lines}))
    if evs:
        ev = evs[0]
    accepted = False
    if ev is not None:
        for i, (s, t) in enumerate(lines):
            if s == me and ACCEPT.search(t) and not DECLINE.search(t) and i > 0:
                if any(is_proposal(P, tt) for ss, tt in lines[:i] if ss != me):
                    accepted = True
    names = ", ".join(sorted(set(others))) or "someone"
    if ev is not None:
        summ = "%s talked with %s about this: %s" % (me, names, ev.text.strip().rstrip("."))
        if accepted:
            summ += "; %s said they would come" % me
        elif any(DECLINE.search(t) for t in said_me):
            summ += "; %s could not make it" % me
        imp = rng.randint(5, 7) + (1 if accepted else 0)
    else:
        summ = "%s had a short, friendly chat with %s" % (me, names)
        imp = rng.randint(2, 3)
    memo = {"summary": summ[:390] + ".", "importance": max(1, min(10, imp)), "plan_activity": "",
            "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    if accepted and ev.start is not None and rng.random() < 0.85:
        d = ev.date or (P.today[:3] if P.today else None)
        act = re.sub(r"^.*?\b(to|for|at)\b ", "", ev.text)[:60]
        memo.update({"plan_activity": ("going to " + event_name(ev, P))[:110],
                     "plan_date": iso(d) if d and (not P.enum_dates or iso(d) in P.enum_dates) else "",
                     "plan_start": fmt_hm(ev.start), "plan_minutes": ev.minutes(),
                     "plan_place": P.match_place(ev.text, P.enum_places) if P.enum_places else ev.place})
    elif rng.random() < 0.03 and P.today:
        memo.update({"plan_activity": "meeting %s again" % (first(partner) or "a friend"),
                     "plan_date": iso(add_days(P.today, 1)), "plan_start": "12:00", "plan_minutes": 60})
    return memo


def run_gist(P, people, maxlines, rng):
    lines = []
    mentioned = set()
    i = 0
    while len(lines) < maxlines:
        me = people[i % len(people)]
        partner = people[(i + 1) % len(people)] if len(people) == 2 else (lines[-1][0] if lines and lines[-1][0] != me else people[(i + 1) % len(people)])
        txt, end, info = conv_turn(P, me, partner, lines, rng, mentioned_by_me=me in mentioned)
        if info.get("told"):
            mentioned.add(me)
        lines.append((me, txt[:290]))
        i += 1
        if end and len(lines) >= 2:
            break
    if len(lines) < 2:
        lines.append((people[1 % len(people)], goodbye(people[0], rng)))
    return lines


# ---------------------------------------------------------------- kinds

def k_text_turn(P, rng):
    me = P.speaker
    lines = transcript(P)
    partner = partner_of(P, me, lines)
    txt, end, _ = conv_turn(P, me, partner, lines, rng)
    return txt, end


def k_conversation_summary(P, rng):
    people = P.personas[:2] if len(P.personas) >= 2 else [P.speaker, partner_of(P, P.speaker, [])]
    a, b = people[0], people[1]
    p_talk = 0.8 if (close_to(P, a, b) or close_to(P, b, a)) else 0.6
    if rng.random() >= p_talk:
        return {"talk": False, "lines": [], "first": None, "second": None}
    lines = run_gist(P, people, 6, rng)
    out = {"talk": True, "lines": [{"speaker": s, "text": t} for s, t in lines],
           "first": memo_for(P, a, lines, rng), "second": memo_for(P, b, lines, rng)}
    return out


def k_group_summary(P, rng):
    people = P.personas or [P.speaker]
    close = any(close_to(P, x, y) for x in people for y in people if x != y)
    if rng.random() >= (0.8 if close else 0.6):
        return {"talk": False, "lines": [], "memos": []}
    lines = run_gist(P, people, min(10, 2 * len(people) + 2), rng)
    memos = []
    for p in people:
        m = memo_for(P, p, lines, rng); m["name"] = p; memos.append(m)
    return {"talk": True, "lines": [{"speaker": s, "text": t} for s, t in lines], "memos": memos}


def k_group_turn(P, rng):
    me = P.speaker
    lines = transcript(P)
    partner = partner_of(P, me, lines)
    txt, end, _ = conv_turn(P, me, partner, lines, rng)
    addr = "everyone"
    en = enum_at(P.schema, ["properties", "addressed_to"]) or []
    if lines and lines[-1][0] != me and lines[-1][0] in en and rng.random() < 0.6:
        addr = lines[-1][0]
    if addr not in en and en:
        addr = "everyone" if "everyone" in en else en[0]
    return {"utterance": txt[:390], "addressed_to": addr, "end_conversation": bool(end)}


def k_conversation_memo(P, rng):
    me = P.speaker
    run = []
    for l in P.lines:
        m = QUOTE_LINE.match(l.strip())
        if m:
            run.append((m.group(1), m.group(2)))
    return memo_for(P, me, run, rng)


def lifestyle_hours(P, me):
    ls = P.field(me, "Lifestyle") or P.text
    wake = 7
    m = re.search(r"(?:wakes?|gets? up|up at|rises|sleeps in until|up around|until about)[^,.;]*?(\d{1,2})(?::(\d\d))?\s*(am|a\.m\.)?", ls, re.I)
    if m:
        wake = int(m.group(1)) % 24
    bed = 23
    m = re.search(r"(?:to bed|in bed|asleep|turns in|retires)[^,.;]*?(\d{1,2})(?::\d\d)?\s*(am|pm|a\.m\.|p\.m\.)?", ls, re.I)
    if m:
        h = int(m.group(1)); suf = (m.group(2) or "pm").lower()
        bed = h + 12 if suf.startswith("p") and h < 12 else (h if h < 5 or suf.startswith("a") else h)
        if suf.startswith("a") and h < 5:
            bed = 24 + h
        if m.group(0).lower().find("midnight") >= 0:
            bed = 24
    if re.search(r"midnight", ls, re.I):
        bed = 24
    ws, we = 9 * 60, 17 * 60
    m = re.search(r"from (\d{1,2})\s*(am|pm) to (\d{1,2})\s*(am|pm)", ls, re.I)
    m2 = re.search(r"(?:opens?|starts?)[^,.;]*?(\d{1,2})\s*(am|pm)[^.;]*?(?:closes?|until|ends?)[^,.;]*?(\d{1,2})\s*(am|pm)", ls, re.I)
    mm = m or m2
    if mm:
        a = int(mm.group(1)) % 12 + (12 if mm.group(2).lower() == "pm" else 0)
        b = int(mm.group(3)) % 12 + (12 if mm.group(4).lower() == "pm" else 0)
        if b > a:
            ws, we = a * 60, b * 60
    return wake, max(bed, wake + 12) if bed < wake else bed, ws, we


def k_daily_plan(P, rng):
    me = P.speaker
    places = enum_at(P.schema, ["$defs", "PlanBlock", "properties", "address"]) or P.offered_places or ["home"]
    home = next((p for p in places if me in p), None) or next((p for p in places if re.search(r"home|house|apartment|bedroom|room", p, re.I)), places[0])
    ident = P.field(me, "Identity") + " " + P.field(me, "Lifestyle")
    work = P.match_place(ident, [p for p in places if p != home]) or home
    wake, bed, ws, we = lifestyle_hours(P, me)
    if rng.random() < 0.1:
        wake = (wake + 1) % 24
    t = wake * 60
    ws = max(ws, t + 60)
    we = max(we, ws + 120)
    blocks = []

    def add(start, end, act, emo, where):
        if end > start:
            blocks.append([start, end, act, emo, where])

    add(t, t + 30, "waking up and getting ready", "\U0001F6BF", home)
    add(t + 30, t + 60, "having breakfast", "\U0001F373", home)
    if ws > t + 60:
        add(t + 60, ws, "tidying up at home", "\U0001F9F9", home)
    lunch = 12 * 60 if ws < 12 * 60 < we - 60 else None
    wl = re.sub(r"^.*?\b(runs|owns|keeps|works|sells|builds|is)\b", "", P.field(me, "Identity")).split(",")[0].split(".")[0].strip()
    wact = ("working at " + work.split(":")[1]) if work != home else ("working on " + (wl[:50] or "projects"))
    if lunch:
        add(ws, lunch, wact, "\U0001F4BC", work)
        add(lunch, lunch + 60, "having lunch", "\U0001F96A", work)
        add(lunch + 60, we, wact, "\U0001F4BC", work)
    else:
        add(ws, we, wact, "\U0001F4BC", work)
    din = max(we, 18 * 60)
    add(we, din, "relaxing at home", "\U0001F6CB", home)
    add(din, din + 60, "having dinner", "\U0001F37D", home)
    bedm = max(bed * 60, din + 90)
    add(din + 60, bedm, "relaxing at home", "\U0001F4D6", home)
    add(bedm, wake * 60 + 24 * 60, "sleeping", "\U0001F634", home)
    # events of the day
    for ev in find_events(P, P.text, P.people):
        if ev.start is None or (ev.date and P.today and ev.date != P.today[:3]):
            continue
        if ev.date is None and not re.search(r"\b(today|tonight)\b", ev.text, re.I):
            continue
        own = ev.owner == me
        mem = P.text
        agreed = bool(re.search(r"(count me in|i'?ll be there|agreed|said they would come|will go|going to go)", mem, re.I)) and len(ev.key & set(words(mem))) >= 2
        declined = bool(re.search(r"could not make it|can'?t make it", mem, re.I)) and not agreed and not own
        p = 0.85 if (own or agreed) else (0.0 if declined else 0.25)
        if rng.random() >= p:
            continue
        s, e = ev.start, ev.start + ev.minutes()
        where = P.match_place(ev.text, places) or work
        nb = []
        for b in blocks:
            if b[1] <= s or b[0] >= e:
                nb.append(b)
            else:
                if b[0] < s:
                    nb.append([b[0], s, b[2], b[3], b[4]])
                if b[1] > e:
                    nb.append([e, b[1], b[2], b[3], b[4]])
        nb.append([s, e, ("hosting " if own else "going to ") + event_name(ev, P), "\U0001F389", where])
        blocks = sorted(nb)
        break
    blocks = blocks[:16]
    if blocks[-1][2] != "sleeping":
        blocks[-1] = [blocks[-1][0], wake * 60 + 24 * 60, "sleeping", "\U0001F634", home]
    outb = [{"start": fmt_hm(b[0] % (24 * 60)), "duration_minutes": max(5, min(960, b[1] - b[0])),
             "activity": b[2][:110], "emoji": b[3], "address": b[4]} for b in blocks]
    outline = ["wake up at %d:00" % wake, "have breakfast", wact[:100], "have lunch", "dinner at home",
               "go to bed around %s" % fmt_hm(bedm % 1440)]
    return {"wake_up_hour": wake, "outline": outline[:8], "blocks": outb}


STEP_TEMPL = [
    (r"wak|getting ready", ["getting out of bed", "washing up", "getting dressed", "combing hair"]),
    (r"breakfast|lunch|dinner|eat|meal", ["getting food ready", "sitting down", "eating", "drinking something", "clearing up", "washing the dishes"]),
    (r"sleep|bed", ["getting into bed", "sleeping"]),
    (r"relax|rest|home", ["sitting down", "reading a little", "tidying up", "resting"]),
    (r"", ["getting set up", "working", "working steadily", "taking a short break", "working more", "tidying up"]),
]


def k_decompose(P, rng):
    txt = P.text
    m = re.search(r"\((\d+) minutes?\)", txt)
    total = int(m.group(1)) if m else 60
    m = re.search(r"(\d+) to (\d+) (?:concrete )?steps", txt)
    smin, smax = (int(m.group(1)), int(m.group(2))) if m else (2, 6)
    sch = P.schema or {}
    smin = max(smin, (sch.get("properties", {}).get("steps", {}) or {}).get("minItems", 1) or 1)
    smax = min(smax, (sch.get("properties", {}).get("steps", {}) or {}).get("maxItems", 12) or 12)
    am = re.search(r"is ([^,\n]+?), at ", txt)
    act = am.group(1) if am else ""
    objs = enum_at(P.schema, ["$defs", "Step", "properties", "object"]) or [""]
    objs = [o for o in objs if o]
    tmpl = next(t for pat, t in STEP_TEMPL if re.search(pat, act, re.I))
    n = max(smin, min(smax, round(total / 10)))
    n = max(smin, min(n, smax))
    durs = [total // n] * n
    for i in range(total - sum(durs)):
        durs[i % n] += 1
    durs = [max(5, min(15, d)) for d in durs]
    steps = []
    for i in range(n):
        a = tmpl[i % len(tmpl)] if i < len(tmpl) else tmpl[-1] + " some more"
        o = ""
        for ob in objs:
            if set(words(ob)) & set(words(a + " " + act)):
                o = ob
        if not o and objs and rng.random() < 0.4:
            o = rng.choice(objs)
        steps.append({"activity": a, "duration_minutes": durs[i], "object": o, "object_state": ("in use" if o else "")})
    return {"steps": steps}


def rate_memory(t, rng, me=""):
    tl = t.lower()
    if re.search(r"\b(is|are) (sleeping|waking|having|busy|eating|relaxing|chatting|idle)|in use|getting ready|plan for", tl):
        v = rng.randint(1, 3)
    elif parse_date(t, None) or re.search(r"party|invite|wants to|festival|\d ?pm|tomorrow", tl) or (INTENT.search(t) and parse_time(t)[0] is not None):
        v = rng.randint(6, 8)
    elif re.search(r"said|heard|told|conversation|chatted|news", tl):
        v = rng.randint(4, 6)
    else:
        v = rng.randint(2, 5)
    if rng.random() < 0.3:
        v += rng.choice([-1, 1])
    return max(1, min(10, v))


def k_importance(P, rng):
    m = re.search(r"\"(.+)\"", P.text.split("Memory:")[-1]) or re.findall(r"\"([^\"]+)\"", P.text)
    t = m.group(1) if hasattr(m, "group") else (m[-1] if m else P.text[-300:])
    return {"importance": rate_memory(t, rng)}


def k_importance_batch(P, rng):
    items = re.findall(r"^\s*(?:-|\d+\.)\s*\"(.*)\"\s*$", P.text, re.M)
    arr = ((P.schema or {}).get("properties") or {}).get("ratings") or {}
    n = len(items) or arr.get("minItems") or 1
    if arr.get("minItems") and arr.get("maxItems") and arr["minItems"] == arr["maxItems"]:
        n = arr["minItems"]
    items = (items + [""] * n)[:n]
    r = [rate_memory(t, rng) for t in items]
    if rng.random() < 0.02 and len(r) > 1:
        r = r[:-1]
    return {"ratings": r}


def k_interview(P, rng):
    me = P.speaker
    q = re.findall(r"\"([^\"]+\?)\"", P.text)
    q = q[-1] if q else P.lines[-1]
    qw = set(words(q)) - {"know", "about", "anything"}
    best, bs = None, 0
    for s in sentences(P.text):
        sc = len(qw & set(words(s)))
        if sc > bs and q not in s:
            best, bs = s, sc
    if best is None or bs < min(2, len(qw)) or rng.random() < 0.1:
        return {"answer": rng.choice(["I don't know anything about that, sorry.", "Hmm, no, I haven't heard about that."])}
    evs = find_events(P, best, P.people)
    if evs and rng.random() < 0.85:
        ev = evs[0]
        d = ev.date
        when = (" on " + iso(d) if d else "") + time_phrase(ev)
        where = (" at " + ev.place.split(":")[1]) if ev.place else ""
        extra = ""
        if ev.place and ev.place.split(":")[1].lower() not in ev.text.lower():
            extra += where
        if ev.start is not None and not parse_time(ev.text)[0] is not None:
            extra += when
        return {"answer": ("Yes, I heard about it: %s%s." % (describe_event(ev, me, rng, False).rstrip("."), extra))[:590]}
    b = best.strip().rstrip(".").strip('"')
    b = re.sub(r"^%s (heard|learned|remembers|cannot|can't|is)\b" % re.escape(me), lambda m: "I " + {"heard": "heard", "learned": "learned", "remembers": "remember", "cannot": "cannot", "can't": "can't", "is": "am"}[m.group(1)], b)
    b = re.sub(r"; %s (cannot|can't) go" % re.escape(me), r"; I can't go", b)
    return {"answer": ("Yes, I remember something: %s." % b)[:590]}


def k_react(P, rng):
    me = P.speaker
    seen = partner_of(P, me, [])
    evs = [e for e in find_events(P, P.own_text(me), P.people)]
    p_talk = 0.45 if evs and seen else (0.25 if close_to(P, me, seen) else 0.1)
    en = enum_at(P.schema, ["properties", "choice"]) or ["continue", "talk", "react"]
    if "talk" not in en:
        p_talk = 0.0
    r = rng.random()
    if r < p_talk:
        return {"choice": "talk", "reason": "%s would like a word with %s." % (me, seen or "them"), "new_activity": ""}
    if r < p_talk + 0.05:
        return {"choice": "react", "reason": "%s decides to take a short break because of it." % me, "new_activity": "taking a short break"}
    return {"choice": "continue", "reason": "Nothing here calls for a change; %s carries on." % me, "new_activity": ""}


def k_reflection_questions(P, rng):
    me = P.speaker
    counts = {}
    for n in NAME_RE.findall("\n".join(l for l in P.lines if l.startswith("-") or QUOTE_LINE.match(l))):
        if n != me and n in P.people:
            counts[n] = counts.get(n, 0) + 1
    top = sorted(counts, key=lambda k: -counts[k])[:2]
    qs = ["What does %s think of %s?" % (me, n) for n in top]
    evs = find_events(P, P.text, P.people)
    if evs:
        qs.append("What is %s going to do about this: %s?" % (me, evs[-1].text.rstrip(".")))
    qs.append("How is %s's work going these days?" % me)
    return {"questions": qs[:3]}


def k_reflection_insights(P, rng):
    me = P.speaker
    numbered = {}
    for m in re.finditer(r"^(\d+)\. (.*)$", P.text, re.M):
        numbered[int(m.group(1))] = m.group(2)
    qs = re.findall(r"Question: \"(.+?)\"", P.text) or ["about %s" % me]
    mx = max(numbered) if numbered else 1
    ins = []
    for q in qs[:5]:
        subj = [n for n in P.people if n in q and n != me] or [me]
        s = subj[0]
        ev_nums = [k for k, v in numbered.items() if s in v][:6] or [k for k in list(numbered)[:3]] or [1]
        ev_nums = [k for k in ev_nums if 1 <= k <= mx] or [1]
        if s != me:
            ins.append({"insight": "%s often crosses paths with %s and they are on friendly terms." % (me, s),
                        "about": s[:60], "evidence": ev_nums[:5], "importance": rng.randint(3, 5)})
        evs = find_events(P, "\n".join(numbered.get(k, "") for k in ev_nums) + "\n" + q, P.people)
        if evs:
            ins.append({"insight": ("%s knows that %s" % (me, evs[0].text.rstrip(".")))[:290],
                        "about": (evs[0].owner or s)[:60], "evidence": ev_nums[:3], "importance": rng.randint(5, 7)})
        else:
            ins.append({"insight": "%s keeps a steady daily routine." % me, "about": me[:60],
                        "evidence": ev_nums[:3], "importance": rng.randint(2, 4)})
    seen, uniq = set(), []
    for x in ins:
        if x["insight"] not in seen:
            seen.add(x["insight"]); uniq.append(x)
    return {"insights": uniq[:15]}


def k_relationship(P, rng):
    me = P.speaker
    m = re.search(r"about ([A-Z][\w'-]+(?: [A-Z][\w'-]+)+)", P.text)
    other = m.group(1) if m and m.group(1) != me else partner_of(P, me, [])
    ident = P.field(me, "Identity")
    sent = next((s for s in re.split(r"(?<=[.;])\s+", ident) if other and (other in s or first(other) in s)), None)
    if sent:
        return {"summary": "%s is someone %s knows well: %s %s feels warmly toward them." % (other, me, sent.rstrip(".;") + ".", me)}
    return {"summary": "%s is an acquaintance %s sees around town; %s feels friendly but does not know them well." % (other or "They", me, me)}


def k_revise_currently(P, rng):
    me = P.speaker
    old = P.field(me, "Currently") or "%s is going about their usual days." % me
    add = []
    for ev in find_events(P, "\n".join(l for l in P.lines if l.startswith("- ")), P.people):
        if ev.text not in old and rng.random() < 0.8:
            add.append(ev.text.rstrip(".") + ".")
    s = old if not add else old.rstrip(".") + ". " + " ".join(add[:2])
    return {"currently": s[:495]}


# ---------------------------------------------------------------- generic schema filler

def resolve(schema, root, depth=0):
    if isinstance(schema, dict) and "$ref" in schema and depth < 10:
        ref = schema["$ref"].split("/")[1:]
        node = root
        for r in ref:
            node = node.get(r, {}) if isinstance(node, dict) else {}
        return resolve(node, root, depth + 1)
    return schema if isinstance(schema, dict) else {}


def enum_at(schema, path):
    node = schema
    for p in path:
        if not isinstance(node, dict):
            return None
        node = node.get(p)
    return node.get("enum") if isinstance(node, dict) else None


def fill(schema, root, P, rng, name="", depth=0):
    s = resolve(schema, root)
    if depth > 6:
        return None
    if "enum" in s and s["enum"]:
        vals = [v for v in s["enum"] if v != ""] or s["enum"]
        if all(isinstance(v, str) for v in vals) and rng.random() < 0.7:
            tail = P.text[-600:]
            best = P.match_place(tail, vals) if any(":" in v for v in vals) else ""
            if not best:
                tw = set(words(tail))
                sc = [(len(set(words(v)) & tw), v) for v in vals]
                if max(sc)[0] > 0:
                    best = max(sc)[1]
            if best:
                return best
        return rng.choice(vals)
    if "anyOf" in s:
        for alt in s["anyOf"]:
            a = resolve(alt, root)
            if a.get("type") != "null":
                return fill(a, root, P, rng, name, depth + 1)
        return None
    t = s.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if t == "object" or "properties" in s:
        out = {}
        for k, v in (s.get("properties") or {}).items():
            out[k] = fill(v, root, P, rng, k, depth + 1)
        return out
    if t == "array":
        n = max(s.get("minItems", 1), min(s.get("maxItems", 3), 2))
        return [fill(s.get("items", {}), root, P, rng, name, depth + 1) for _ in range(n)]
    if t == "integer":
        lo, hi = s.get("minimum", 1), s.get("maximum", max(s.get("minimum", 1), 10))
        return rng.randint(int(lo), int(max(lo, min(hi, lo + 9))))
    if t == "number":
        return float(s.get("minimum", 0.5))
    if t == "boolean":
        return rng.random() < 0.5
    if "pattern" in s and ":" in s["pattern"]:
        return "" if "?$" in s["pattern"] else "12:00"
    txt = {"reason": "It seems like the sensible thing to do.", "summary": "%s goes on with the day." % P.speaker}.get(name.lower())
    if txt is None:
        txt = "%s carries on as planned." % P.speaker
    ml = s.get("maxLength")
    return txt[:ml] if ml else txt


def by_shape(P):
    """Unknown kinds: pick a builder by the schema's fields (P7)."""
    props = set(((P.schema or {}).get("properties") or {}).keys())
    if "blocks" in props:
        def replan(P, rng):
            out = k_daily_plan(P, rng)
            if P.now is not None:
                keep = [b for b in out["blocks"] if int(b["start"][:2]) * 60 + int(b["start"][3:]) >= P.now - 30
                        or b["activity"] == "sleeping"]
                out["blocks"] = keep or out["blocks"][-1:]
            return out
        return replan
    if "utterance" in props:
        return k_group_turn
    if "summary" in props and "plan_date" in props:
        return k_conversation_memo
    if "steps" in props:
        return k_decompose
    if "ratings" in props:
        return k_importance_batch
    if "answer" in props:
        return k_interview
    return None


def template_json(P, rng):
    """json_object without a schema: keys from an 'Answer as {...}' template, else a generic object."""
    m = re.search(r"\{\s*\"(.+)\}", P.text, re.S)
    keys = re.findall(r"\"(\w+)\"\s*:", m.group(0)) if m else []
    out = {}
    for k in keys:
        if k in out:
            continue
        if re.search(r"importance|rating|score|minutes|hour", k):
            out[k] = rng.randint(3, 6)
        elif re.search(r"^(talk|ok|end|end_conversation)$", k):
            out[k] = True
        else:
            out[k] = ""
    return out or {"answer": "Okay."}


KINDS = {"conversation_memo": k_conversation_memo, "conversation_summary": k_conversation_summary,
         "daily_plan": k_daily_plan, "decompose": k_decompose, "group_summary": k_group_summary,
         "group_turn": k_group_turn, "importance": k_importance, "importance_batch": k_importance_batch,
         "interview": k_interview, "react": k_react, "reflection_insights": k_reflection_insights,
         "reflection_questions": k_reflection_questions, "relationship": k_relationship,
         "revise_currently": k_revise_currently}

REFUSALS = ["I'm sorry, but I can't help with that request.", "As an AI language model, I cannot answer that."]


def conform(obj, schema, root, P, rng, depth=0):
    """Make a built answer fit the schema: fill missing required keys, clip strings/ints/enums."""
    s = resolve(schema, root)
    if depth > 8:
        return obj
    if "anyOf" in s:
        if obj is None and any(resolve(a, root).get("type") == "null" for a in s["anyOf"]):
            return None
        for a in s["anyOf"]:
            if resolve(a, root).get("type") != "null":
                return conform(obj, a, root, P, rng, depth + 1)
    t = s.get("type")
    if "enum" in s:
        if obj not in s["enum"]:
            return "" if "" in s["enum"] else s["enum"][0]
        return obj
    if t == "object" or "properties" in s:
        if not isinstance(obj, dict):
            return fill(s, root, P, rng)
        props = s.get("properties") or {}
        out = {}
        for k, v in obj.items():
            if k in props:
                out[k] = conform(v, props[k], root, P, rng, depth + 1)
            elif s.get("additionalProperties", True) is not False:
                out[k] = v
        for k in s.get("required", []):
            if k not in out:
                out[k] = fill(props.get(k, {}), root, P, rng, k)
        return out
    if t == "array":
        if not isinstance(obj, list):
            obj = []
        obj = [conform(x, s.get("items", {}), root, P, rng, depth + 1) for x in obj]
        if "maxItems" in s:
            obj = obj[:s["maxItems"]]
        while len(obj) < s.get("minItems", 0):
            obj.append(fill(s.get("items", {}), root, P, rng))
        return obj
    if t == "integer":
        try:
            v = int(obj)
        except Exception:
            v = s.get("minimum", 1)
        return max(s.get("minimum", v), min(s.get("maximum", v), v))
    if t == "boolean":
        return bool(obj)
    if t == "string":
        v = _s(obj)
        if s.get("maxLength"):
            v = v[:s["maxLength"]]
        if s.get("minLength", 0) > len(v):
            v = (v + " " + P.speaker + " carries on.").strip()[:s.get("maxLength", 400)]
        if s.get("pattern"):
            try:
                if not re.search(s["pattern"], v):
                    v = "" if re.search(s["pattern"], "") else "12:00"
            except re.error:
                pass
        return v
    return obj


def break_enum(obj, schema, root, rng):
    """Replace one enum-valued string with a value outside the enum (declared malformation)."""
    s = resolve(schema, root)
    if isinstance(obj, dict):
        props = s.get("properties") or {}
        for k, v in obj.items():
            ps = resolve(props.get(k, {}), root)
            if "anyOf" in ps:
                ps = next((resolve(a, root) for a in ps["anyOf"] if resolve(a, root).get("type") != "null"), {})
            if "enum" in ps and isinstance(v, str) and v:
                obj[k] = v.split(":")[-1].lower() if ":" in v else v.upper() + "?"
                return True
            if break_enum(v, ps, root, rng):
                return True
    elif isinstance(obj, list):
        for x in obj:
            if break_enum(x, s.get("items", {}), root, rng):
                return True
    return False


def respond(body, seed):
    """The completion's content text for one chat completion request body."""
    try:
        msgs = body.get("messages") if isinstance(body, dict) else None
        h = hashlib.sha256(("%s|%s" % (seed, json.dumps(msgs, sort_keys=True, default=str))).encode()).hexdigest()
        rng = random.Random(int(h[:16], 16))
    except Exception:
        rng = random.Random(seed if isinstance(seed, int) else 0)
    try:
        return _respond(body if isinstance(body, dict) else {}, rng)
    except Exception:
        try:
            P = Prompt(body if isinstance(body, dict) else {})
            if P.schema:
                return json.dumps(fill(P.schema, P.schema, P, rng))
            if P.rf_type == "json_object":
                return json.dumps(template_json(P, rng))
        except Exception:
            pass
        return "Okay.\n[continue]"


def _respond(body, rng):
    P = Prompt(body)
    if P.kind == "probe" or (P.schema and re.search(r"\bAre you there\b", P.text)):
        return json.dumps({"ok": True})
    if P.schema is not None or P.rf_type in ("json_object", "json_schema"):
        fn = KINDS.get(P.kind or "") or by_shape(P)
        obj = None
        if fn is not None:
            try:
                obj = fn(P, rng)
            except Exception:
                obj = None
        if P.schema is not None:
            obj = conform(obj, P.schema, P.schema, P, rng) if obj is not None else fill(P.schema, P.schema, P, rng)
        elif obj is None:
            obj = template_json(P, rng)
        r = rng.random()
        if r < 0.01 and P.schema is not None:
            if break_enum(obj, P.schema, P.schema, rng):
                return json.dumps(obj, ensure_ascii=False)
        txt = json.dumps(obj, ensure_ascii=False)
        if r < 0.01:
            pass
        elif r < 0.04:
            return txt[:max(1, int(len(txt) * rng.uniform(0.3, 0.9)))]
        elif r < 0.05:
            return rng.choice(REFUSALS)
        elif r < 0.07:
            return "%s: %s" % (P.speaker, txt)
        elif r < 0.08:
            return "```json\n%s\n```" % txt
        return txt
    # plain text
    if re.search(r"say next|words only|\[end\]|\[continue\]", P.text):
        utt, end = k_text_turn(P, rng)
    else:
        utt, end = smalltalk(P, P.speaker, partner_of(P, P.speaker, []), rng, False), False
        if not re.search(r"\[end\]", P.text):
            return utt
    r = rng.random()
    mark = "[end]" if end else "[continue]"
    if r < 0.02:
        return "%s: %s\n%s" % (P.speaker, utt, mark)
    if r < 0.03:
        return rng.choice(REFUSALS)
    if r < 0.05:
        return utt
    if r < 0.06:
        return "\"%s\"\n%s" % (utt, mark)
    return "%s\n%s" % (utt, mark)
