"""blind25 - a blind stand-in language model for the NPC brain.

Modelled model
--------------
A mid-size mixture-of-experts instruction-tuned model (about 30B parameters, ~3B active),
served by vLLM with guided decoding. When `response_format` carries a JSON schema the output
always parses and follows the schema's structure (required keys, enums, bounds, lengths), unless
it is cut at max_tokens; the *content* can still be off. Plain-text requests are not constrained.
It reads the whole prompt: dates and clock times in any written form ("09:15", "9:15 AM",
"9:15 in the morning", "noon", "Friday April 10", "Friday the 10th of April", "Friday 10 Apr"),
and works out "today"/"tomorrow"/named days relative to the date the prompt says it is now.

Written only from captured request bodies; it never sees the brain's code.

Declared rules and rates (chosen before the first run over the captures)
--------------------------------------------------------------------------
Randomness: random.Random seeded from sha256(messages JSON + seed). Same body+seed -> same answer.
A retry request (an earlier assistant answer followed by a "could not be used" user turn) is
answered afresh from the first user turn, with the same rates.

Conversation turn (plain text, and the JSON group turn; also used to write gist lines):
 T1 News it holds (the prompt says the speaker has news / heard something and it has not come up
    in the talk yet, judged by the event's content words appearing in the lines so far):
    brings it up on its own 1st or 2nd line with p = 0.7 per line, on later lines p = 0.4;
    if the prompt shows the listener is the one who told it, p = 0.1. Telling it gives what,
    when (relative day + clock) and where, with p = 0.15 leaving out the time or the place (vague).
 T2 Hosting: when the news is an event the speaker hosts, the telling line asks the listener to
    come with p = 0.9.
 T3 Invitation received (listener's last line invites the speaker, for an event not its own):
    looks up its own plan at the event's date and time. Real commitment there (another event,
    hosting/joining/meeting/calling on someone, an appointment) -> declines or offers another
    time with p = 0.8 (else accepts anyway). No real clash -> accepts with p = 0.75, +0.1 if its
    traits are outgoing (sociable, energetic, talkative, jovial, generous, friendly), -0.15 if
    reserved (quiet, shy, grumpy, private), -0.2 if the relationship line sounds cool
    (wary, dislikes, annoyed, distrust). A decline of a no-clash invitation cites an ordinary
    plan item (a middling model's mistake).
 T4 News of someone else's event passed on by the listener: shows interest; says it means to go
    with p = 0.45 (+0.1 outgoing); with p = 0.1 misreads it as an invitation and answers
    accept/decline as if invited.
 T5 Listener says they will come to the speaker's own event: thanks them / "see you there".
 T6 Goodbye from the listener: says goodbye and ends with p = 0.9.
 T7 Otherwise small talk from its persona (status, current activity, a question back).
 T8 End tag: [end] with p = min(0.85, 0.1 + 0.12 * lines so far) when nothing is pending;
    p = 0.1 on a line that just told news or invited; always after its own goodbye.
 Plain-text imperfections (declared, independent, per answer): speaker's name before the words
 p = 0.04; words wrapped in quotes p = 0.03; the [end]/[continue] tag missing p = 0.03;
 rambling answer cut at max_tokens (no tag) p = 0.02.

Group turn (JSON): T1-T8 apply; addressed_to = "everyone" for news told to a group with p = 0.6,
else the last speaker (or first other person); end_conversation = the end decision.

Conversation memo (one person's, or each person's in a gist summary):
 M1 Finds the event named in the lines (date in any form, relative days, clock range, place).
 M2 Plan change only when this person's own lines say yes to it (accept phrases) after the event
    came up and its last stance is not a decline; a host whose plan already holds the event adds
    nothing. Rates of content mistakes: accepted but plan left empty p = 0.1; the other person's
    stance read as its own p = 0.06; date taken as today instead of the event's day p = 0.06;
    plan_activity copied from a spoken line (over-long, cut to the limit) p = 0.08; place left
    "" although named p = 0.05.
 M3 Importance: 2-3 small talk, 5-6 news of an event, 7 when it committed; +-1 noise p = 0.3.
Gist summary (pair or group): talk = true with p = 0.9 when someone holds news, else 0.55
 (+0.1 if someone is outgoing); the lines are written with T1-T8 in turn order, 2..max lines.

React (continue/talk/wait/react): holds news the observed person has not heard -> talk 0.65,
 wait 0.1 (if that person is busy), continue 0.2, react 0.05. Observed a person, no news ->
 talk 0.25 (0.35 outgoing/nosy), continue 0.65, wait 0.05, react 0.05. Observed an object ->
 continue 0.9, react 0.1.
Importance (single and batch): heuristic on the memory text: object states 1, own routine 2,
 others' routine 2-3, plans 3, conversations 4, news of a dated event 5-6, a promise/hosting 6-7,
 life events (death, illness, wedding, accident, breakup...) 8-9; +-1 noise p = 0.3; nosy/curious
 traits +1 on other people's news.
Daily plan: wake/bed hours and work hours from the lifestyle (or copies yesterday's schedule if
 shown, p = 0.85). A dated event today it committed to (said it would go / hosts it) is put in
 with p = 0.85; one it only heard of with p = 0.35 (+0.15 outgoing). With news to pass on and a
 list of where people are, swaps a leisure block for seeing people there with p = 0.5.
Decompose: 2-6 (or as the schema says) common-sense steps of 5-15 minutes filling the span;
 object picked by word match (p = 0.15 leaves it "" anyway).
Replan: the new activity from the change, at the place it names, then back to the plan.
Interview: answers from memories shown (knows a person if memories/identity name them, else says
 it does not know; p = 0.1 "the name rings a bell" hedge); asked about an event, recounts the
 memory that names it with date and time (p = 0.15 vague), else says it has not heard.
Relationship / revise_currently / reflection questions & insights: built from the memories shown;
 revise_currently leaves out a committed event p = 0.1 and copies a memory verbatim p = 0.08;
 relationship written in the first person p = 0.25 (ambiguous ask), else third person.
JSON imperfections (declared): output cut mid-way at random p = 0.03 (as if max_tokens hit); and
 any output longer than max_tokens (~3.5 chars/token) is cut there.
Unknown schemas get a generic schema-driven filler.

Fixes after the first run over the captures (crashes / invalid outputs only)
---------------------------------------------------------------------------
Run 1 (seed 0 over the three capture files): no crash, no schema-invalid JSON. Parser bugs that
made answers garbled (not what was asked) were fixed; no rate or decision rule was changed:
 F1 "noon" was found inside "afternoon" (greetings read as event times): word boundaries added.
 F2 news written "X told Y about their plan: ..." kept the prefix in the retold news: stripped.
 F3 the event's wording/noun came from text up to the first comma (a greeting): now from the
    sentence that carries the date/time, greeting openers stripped.
 F4 places were matched on words of people's names ("Bram Oduya" read as "Oduya flat"):
    name words are ignored when matching places.
 F5 an event with no "a/an <noun>" got a random word as its noun ("the apr"): now "event".
 F6 "X is going to ..." made X the host of the event: host only for organising verbs.
 F7 reflection insights treated any dated statement (a day plan) as an event: only statements
    with telling/wanting/going/inviting/hosting count.
Also: the schema fallback on an internal exception re-raises when _STRICT is set (test harness).
"""
import datetime as _dt
import hashlib
import json
import random
import re

# ---------------------------------------------------------------------------------------------
# basic text helpers
MONTHS = {m.lower(): i + 1 for i, m in enumerate(
    ["January", "February", "March", "April", "May", "June", "July", "August", "September",
     "October", "November", "December"])}
for _k, _v in list(MONTHS.items()):
    MONTHS[_k[:3]] = _v
MONTHS["sept"] = 9
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December"]
_MON = r"(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
DATE_MD = re.compile(_MON + r"\s+(\d{1,2})(?:st|nd|rd|th)?\b", re.I)
DATE_DM = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MON + r"(?![a-z])", re.I)
ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")
_PER = r"(?:a\.?\s?m\.?|p\.?\s?m\.?|in the morning|in the afternoon|in the evening|at night)"
TOK = r"(?:noon\b|midday\b|midnight\b|\d{1,2}(?::\d{2})?(?:\s*" + _PER + r")?)"
RANGE_RE = re.compile(r"(?<![\w:])(" + TOK + r")\s*(?:-|–|—|to|until|till)\s*(" + TOK + r")(?![\d:])", re.I)
TIME_RE = re.compile(r"(?<![\w:])(noon|midday|midnight|\d{1,2}:\d{2}(?:\s*" + _PER + r")?|\d{1,2}\s*" + _PER + r")(?![\d:])", re.I)
ADDR_RE = re.compile(r"([A-Z][\w' .-]*:[^():\n]+:[^():\n,)]+)")
STOP = set("""a an the and or but of to in on at for from with by is are was were be been being it its
this that these those he she they them their his her i you we me my your our as if so not no yes do does
did have has had will would can could should may might must about into over after before up down out
than then there here what when where who whom which how all any some more most very just also only
tomorrow today yesterday am pm morning afternoon evening night noon midnight told said says wants want
going go get got someone everyone everybody news heard hear guess did you ask asks asked""".split())
OUTGOING = ("sociable", "energetic", "talkative", "jovial", "generous", "friendly", "outgoing", "warm",
            "chatty", "cheerful", "gregarious", "lively", "kind")
RESERVED = ("quiet", "shy", "grumpy", "private", "reserved", "gruff", "withdrawn", "aloof", "solitary")
ACCEPT = ("count me in", "i'll be there", "i will be there", "i'll come", "i will come", "i'd love to come",
          "i would love to come", "yes please", "i'll go", "i will go", "see you there", "i'll head over",
          "i think i'll go", "wouldn't miss", "i'll join", "i'll pop along", "i'll come along",
          "i'll be along", "i'd like to go", "i'd love to go", "i'm in", "i'll try to come", "i'll make it",
          "we'll be there", "i'll definitely", "i'll try to make it", "i'll go along")
DECLINE = ("can't make it", "cannot make it", "won't be able", "can't come", "cannot come", "not able to come",
           "won't make it", "i can't go", "have to say no", "i'll have to pass", "i'll pass", "can't join")
INVITE = ("would you like to come", "like to come", "love it if you came", "will you come", "do come",
          "join us", "join me", "hope you can come", "you should come", "fancy coming", "want to come",
          "like to join", "come along", "come and", "hope to see you", "can you come", "could you come",
          "are you coming", "you're welcome to come", "you are welcome to come", "come too", "care to join")
BYE = ("bye", "see you around", "must be off", "better get on", "take care", "see you later",
       "good to talk", "catch you later", "off now", "so long", "farewell", "good night")
LIFE = ("died", "death", "dead", "funeral", "ill", "hospital", "married", "wedding", "engaged", "pregnant",
        "baby", "accident", "fire", "broke up", "breakup", "divorce", "fired", "lost his job", "lost her job",
        "argument", "fight", "injured", "stolen", "burgled", "flood", "promotion", "retire")


def words(s):
    return re.findall(r"[a-z][a-z'-]+", s.lower())


def content_words(s, names=()):
    nm = set()
    for n in names:
        nm.update(words(n))
    return [w for w in words(s) if w not in STOP and w not in nm and len(w) > 2]


def first_name(n):
    return n.split()[0] if n else n


def period_min(h, m, per):
    per = (per or "").lower().replace(" ", "").replace(".", "")
    if per in ("am", "inthemorning"):
        return (h % 12) * 60 + m
    if per in ("pm", "intheafternoon", "intheevening"):
        return ((h % 12) + 12) * 60 + m
    if per == "atnight":
        if h == 12:
            return m
        if h >= 6:
            return (h + 12) % 24 * 60 + m
        return h * 60 + m
    return (h % 24) * 60 + m


def parse_tok(tok):
    """-> (minutes, has_period, h, m, period_text)"""
    t = tok.strip().lower()
    if t in ("noon", "midday"):
        return 720, True, 12, 0, "pm"
    if t == "midnight":
        return 0, True, 0, 0, "am"
    mm = re.match(r"(\d{1,2})(?::(\d{2}))?\s*(.*)$", t)
    h, m = int(mm.group(1)), int(mm.group(2) or 0)
    per = mm.group(3).strip()
    return period_min(h, m, per), bool(per), h, m, per


def parse_range(a, b):
    sa, pa, ha, ma, pera = parse_tok(a)
    sb, pb, hb, mb, perb = parse_tok(b)
    colon_a = ":" in a
    if not pa and pb and not (colon_a and ha >= 13):
        cands = {period_min(ha, ma, perb), period_min(ha, ma, "am"), period_min(ha, ma, "pm")}
        sa = min(cands, key=lambda c: (sb - c) % 1440 or 1440)
    if not pb and pa and not (":" in b and hb >= 13):
        cands = {period_min(hb, mb, pera), period_min(hb, mb, "am"), period_min(hb, mb, "pm")}
        sb = min(cands, key=lambda c: (c - sa) % 1440 or 1440)
    return sa, sb


def valid_range_text(a, b):
    pa, pb = parse_tok(a)[1], parse_tok(b)[1]
    return pa or pb or (":" in a and ":" in b)


def find_range(text):
    for m in RANGE_RE.finditer(text):
        if valid_range_text(m.group(1), m.group(2)):
            s, e = parse_range(m.group(1), m.group(2))
            return s, e, m.start(), m.end()
    return None


def find_time(text):
    m = TIME_RE.search(text)
    if not m:
        return None
    return parse_tok(m.group(1))[0]


def hhmm(mins):
    mins %= 1440
    return "%02d:%02d" % (mins // 60, mins % 60)


def spoken_time(mins):
    mins %= 1440
    h, m = divmod(mins, 60)
    if mins == 720:
        return "noon"
    suf = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return ("%d %s" % (h12, suf)) if m == 0 else ("%d:%02d %s" % (h12, m, suf))


def find_date(text, ref):
    """First date written in text (any style), relative words resolved against ref (a date)."""
    best = None
    for rx, mi, di in ((DATE_MD, 1, 2), (DATE_DM, 2, 1)):
        for m in rx.finditer(text):
            mon = MONTHS.get(m.group(mi).lower().rstrip("."))
            day = int(m.group(di))
            if not mon or not 1 <= day <= 31:
                continue
            if best is None or m.start() < best[0]:
                best = (m.start(), mon, day)
            break
    m = ISO_DATE.search(text)
    if m and (best is None or m.start() < best[0]):
        try:
            return _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            pass
    if best:
        y = ref.year if ref else 2026
        try:
            d = _dt.date(y, best[1], best[2])
        except ValueError:
            return ref
        if ref and (d - ref).days < -200:
            d = _dt.date(y + 1, best[1], best[2])
        return d
    if ref is None:
        return None
    low = text.lower()
    rel = []
    for w, off in (("today", 0), ("tonight", 0), ("this afternoon", 0), ("this evening", 0),
                   ("tomorrow", 1), ("day after tomorrow", 2)):
        i = low.find(w)
        if i >= 0:
            rel.append((i, off))
    for i, wd in enumerate(WEEKDAYS):
        j = low.find(wd)
        if j >= 0:
            rel.append((j, (i - ref.weekday()) % 7))
    if rel:
        rel.sort()
        return ref + _dt.timedelta(days=rel[0][1])
    return None


def rel_day(d, today):
    if d is None or today is None:
        return ""
    n = (d - today).days
    if n == 0:
        return "today"
    if n == 1:
        return "tomorrow"
    if 1 < n < 7:
        return "on " + WEEKDAYS[d.weekday()].capitalize()
    return "on %s %s %d" % (WEEKDAYS[d.weekday()].capitalize(), MONTH_NAMES[d.month - 1], d.day)


def long_date(d):
    return "%s %s %d" % (WEEKDAYS[d.weekday()].capitalize(), MONTH_NAMES[d.month - 1], d.day)


# ---------------------------------------------------------------------------------------------
# reading a prompt
class Prompt:
    def __init__(self, body):
        msgs = body.get("messages") or []
        self.system = "\n".join(m.get("content") or "" for m in msgs if m.get("role") == "system")
        users = [m.get("content") or "" for m in msgs if m.get("role") == "user"]
        self.retry = any(m.get("role") == "assistant" for m in msgs)
        self.text = users[0] if (self.retry and users) else (users[-1] if users else "")
        self.lines = self.text.split("\n")
        m = re.search(r"(?:inner mind of|You are|as)\s+([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)+)", self.system)
        self.self_name = m.group(1).strip() if m else ""
        if not self.self_name:
            m = re.search(r"Name:\s*(.+)", self.text)
            self.self_name = m.group(1).strip() if m else "I"
        self.names = self._names()
        NAME_WORDS.clear()
        NAME_WORDS.update(self.names)
        self.now_date, self.now_min = self._now()
        y = YEAR.search(self.text)
        if y and self.now_date and abs(int(y.group(1)) - self.now_date.year) <= 1:
            try:
                self.now_date = self.now_date.replace(year=int(y.group(1)))
            except ValueError:
                pass

    def _names(self):
        cands = {}
        for m in re.finditer(r"\b([A-Z][a-z]+(?:-[A-Z][a-z]+)?\s+[A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b", self.text):
            n = m.group(1)
            if n.split()[0].lower() in WEEKDAYS or n.split()[0] in MONTH_NAMES or n.split()[1] in MONTH_NAMES:
                continue
            cands[n] = cands.get(n, 0) + 1
        out = set()
        for m in re.finditer(r"Name:\s*([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)+)", self.text):
            out.add(m.group(1).strip())
        for m in re.finditer(r"^\s*-?\s*\[?[^\]\n]*\]?\s*([A-Z][a-z]+\s+[A-Z][a-z]+) is ", self.text, re.M):
            out.add(m.group(1))
        for m in re.finditer(r"([A-Z][a-z]+\s+[A-Z][a-z]+):\s*\"", self.text):
            out.add(m.group(1))
        for n, c in cands.items():
            if c >= 3 and re.search(re.escape(n) + r"\s+(is|was|has|told|said|wants|knows|sees)\b", self.text):
                out.add(n)
        if self.self_name:
            out.add(self.self_name)
        return out

    def _now(self):
        ref = None
        for ln in self.lines:
            if re.search(r"\b(it is|today is|it's|now is)\b", ln, re.I) and (DATE_MD.search(ln) or DATE_DM.search(ln)):
                d = find_date(ln, None)
                rest = ln
                m = DATE_MD.search(ln) or DATE_DM.search(ln)
                t = None
                if m:
                    after = ln[m.end():]
                    tm = TIME_RE.search(after)
                    before = ln[:m.start()]
                    tb = TIME_RE.search(before)
                    if tm:
                        t = parse_tok(tm.group(1))[0]
                    elif tb:
                        t = parse_tok(tb.group(1))[0]
                return d, t
        for ln in self.lines:
            d = find_date(ln, None)
            if d:
                ref = d
                break
        return ref, None

    def schema(self, body):
        rf = body.get("response_format") or {}
        js = rf.get("json_schema") or {}
        return js.get("schema") if isinstance(js, dict) else None

    def field(self, label):
        m = re.search(r"^" + label + r":\s*(.+)$", self.text, re.M | re.I)
        return m.group(1).strip() if m else ""

    def person_field(self, name, label):
        """Field of a persona block (Name: X ... label: ...)."""
        blocks = re.split(r"(?m)^Name:\s*", self.text)
        for b in blocks:
            if b.startswith(name):
                m = re.search(r"^" + label + r":\s*(.+)$", b, re.M | re.I)
                if m:
                    return m.group(1).strip()
        return self.field(label) if name == self.self_name else ""

    def traits(self, name=None):
        name = name or self.self_name
        return (self.person_field(name, "Innate traits") + " " + self.person_field(name, "Identity")).lower()

    def memories(self):
        out = []
        for ln in self.lines:
            m = re.match(r"\s*(?:\d+\.|-)\s*\[([^\]]+)\]\s*(.*)", ln)
            if m:
                out.append((m.group(1), m.group(2)))
        return out

    def schedule(self, owner=None):
        """[(date, start, end, activity, address)] from bullet lines with a clock range."""
        out = []
        cur_owner = self.self_name
        for ln in self.lines:
            s = ln.strip()
            if not s.startswith("-"):
                present = [n for n in self.names if n in s]
                if len(present) == 1:
                    cur_owner = present[0]
                elif s.startswith("Name:"):
                    cur_owner = s[5:].strip()
                continue
            if owner and cur_owner != owner:
                continue
            body = s[1:].strip()
            if body.startswith("["):
                continue
            r = None
            for m in RANGE_RE.finditer(body[:40]):
                if m.start() <= 1 and valid_range_text(m.group(1), m.group(2)):
                    r = m
                    break
            if not r:
                continue
            st, en = parse_range(r.group(1), r.group(2))
            rest = body[r.end():].strip()
            am = ADDR_RE.search(rest)
            addr = am.group(1).strip() if am else ""
            act = re.split(r"\s*\(", rest)[0].strip()
            tail = rest[rest.rfind(")") + 1:] if ")" in rest else ""
            d = find_date(tail, self.now_date) if tail.strip() else None
            out.append((d or self.now_date, st, en, act, addr))
        return out

    def news_of(self, name):
        """(text, hosting, teller) of the news the prompt says `name` holds, or None."""
        esc = re.escape(name)
        for ln in self.lines:
            if "(above)" in ln or ln.strip().startswith("- ["):
                continue
            for m in re.finditer(esc + r"[^.:\n]{0,70}?\bnews\b([^:\n]{0,90}):\s*(.+)", ln):
                pre = ln[m.start():m.start(2)]
                if re.search(r"\bno news\b|nothing to pass", pre, re.I):
                    continue
                txt = m.group(2).strip()
                hosting = bool(re.search(r"\bhost", pre, re.I))
                teller = None
                tm = re.match(r"([A-Z][a-z]+ [A-Z][a-z]+) told " + esc, txt)
                if tm:
                    teller = tm.group(1)
                return txt, hosting, teller
        return None


# ---------------------------------------------------------------------------------------------
# events
class Event:
    def __init__(self, text, ref_date, places, now_date=None):
        self.text = text
        # prefer the explanatory parenthesis "(that is tomorrow, Saturday ..., 14:00-16:00, at X)"
        par = re.findall(r"\(([^()]*)\)", text)
        d = None
        rng = None
        for p in par:
            dd = find_date(p, ref_date)
            rr = find_range(p)
            if dd and rr:
                d, rng = dd, rr
        if d is None:
            d = find_date(text, ref_date)
        if rng is None:
            rng = find_range(text)
        self.date = d
        if rng:
            self.start, self.end = rng[0], rng[1]
        else:
            t = find_time(text)
            self.start = t
            self.end = (t + 120) % 1440 if t is not None else None
        self.place = match_place(text, places)
        self.place_words = self._place_words(text)
        sents = [x for x in re.split(r"(?<=[.!?])\s+", text) if x.strip()]
        pick = text
        for x in sents:
            if find_date(x, ref_date) or find_range(x) or find_time(x) is not None:
                pick = x
                break
        core = re.sub(r"^([A-Z][a-z]+ [A-Z][a-z]+) told ([A-Z][a-z]+ [A-Z][a-z]+)( about [^:]{0,40}:| that|:)?\s*", "", pick)
        core = re.sub(r"^(?:did you hear( the news)?\??|have you heard\??|guess what\s*-?|hi\b[^!]*!|hello\b[^!]*!)\s*", "", core, flags=re.I)
        core = re.split(r"\s+(?:on\s+" + _MON + r"|from\s+\d|tomorrow|today|this\s|at\s+\d|\()|,", core)[0]
        self.core = core.strip().rstrip(".") or text[:80]
        nm = re.search(r"\b(?:a|an)\s+([a-z][\w-]*(?:\s+[a-z][\w-]*)?)", self.core) or \
            re.search(r"\b(?:a|an)\s+([a-z][\w-]*(?:\s+[a-z][\w-]*)?)", pick)
        noun = nm.group(1) if nm else ""
        noun = re.split(r"\s+(?:on|at|in|for|from|with|to|and)\b", noun)[0].strip()
        if not noun:
            noun = "event"
        self.noun = noun
        self.keys = [w for w in content_words(self.core) if w not in ("village",)][:6]
        m = re.match(r"([A-Z][a-z]+ [A-Z][a-z]+)\s+(?:wants to (?:get up|hold|host|hav|organi|run|throw|put on)|"
                     r"is (?:hosting|holding|organi|getting up|putting on|running|throwing)|plans to (?:hold|host|have))", self.core)
        self.host = m.group(1) if m else None

    def _place_words(self, text):
        m = re.search(r"\bat (?:the )?([A-Z][\w' ]+?)(?:[,.;)]|$)", text)
        if not m or any(m.group(1).strip() in n or n in m.group(1) for n in NAME_WORDS):
            return ""
        return m.group(1).strip()

    def minutes(self):
        if self.start is None or self.end is None:
            return 60
        return max(15, (self.end - self.start) % 1440 or 60)

    def when_text(self, today, vague=False):
        parts = []
        if self.date:
            parts.append(rel_day(self.date, today))
        if self.start is not None and not vague:
            if self.end is not None:
                parts.append("from %s to %s" % (spoken_time(self.start), spoken_time(self.end)))
            else:
                parts.append("at %s" % spoken_time(self.start))
        return " ".join(p for p in parts if p)

    def place_text(self):
        if self.place:
            return "the " + self.place.split(":")[1] if self.place.count(":") >= 1 else self.place
        if self.place_words:
            return "the " + self.place_words if not self.place_words.lower().startswith("the ") else self.place_words
        return ""

    def mentioned_in(self, text):
        low = text.lower()
        hits = sum(1 for k in self.keys if k in low)
        return (self.noun and self.noun.lower() in low) or hits >= max(2, len(self.keys) // 2)


NAME_WORDS = set()


def match_place(text, places):
    if not places:
        return ""
    low = text
    for n in sorted(NAME_WORDS, key=len, reverse=True):
        low = low.replace(n, " ")
    low = low.lower()
    best, score = "", 0
    for p in places:
        if not p:
            continue
        parts = p.split(":")
        if p.lower() in low:
            return p
        building = parts[1] if len(parts) > 1 else parts[0]
        sc = 0
        if building.lower() in low:
            sc = 3 + len(building) / 100
        else:
            bw = [w for w in words(building) if w not in STOP and len(w) > 3]
            sc = sum(1 for w in bw if re.search(r"\b" + re.escape(w) + r"\b", low)) * 1.0
            if len(parts) > 2 and parts[2].lower() in low and len(parts[2]) > 4:
                sc += 0.5
        if sc > score:
            best, score = p, sc
    return best if score >= 1 else ""


# ---------------------------------------------------------------------------------------------
def is_ordinary(activity):
    a = activity.lower()
    if re.search(r"\b(hosting|joining|meeting|appointment|going to|party|celebrat|match|service|wedding|"
                 r"funeral|concert|calling on|visit|with [A-Z])", activity, re.I):
        return False
    return True


def outgoing(traits):
    return any(t in traits for t in OUTGOING)


def reserved(traits):
    return any(t in traits for t in RESERVED)


def has_any(text, phrases):
    low = text.lower().replace("’", "'")
    return any(p in low for p in phrases)


def conv_lines(text, names):
    out = []
    for ln in text.split("\n"):
        m = re.match(r"\s*([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)+):\s*\"(.*)\"\s*$", ln)
        if m and (not names or m.group(1) in names):
            out.append((m.group(1), m.group(2)))
    return out


# ---------------------------------------------------------------------------------------------
# speaking
class Speaker:
    def __init__(self, P, name, rng):
        self.P, self.name, self.rng = P, name, rng
        self.traits = P.traits(name)
        self.status = P.person_field(name, "Currently")
        self.schedule = P.schedule(owner=name) if len(P.names) > 2 and "Name:" in P.text and P.text.count("Name:") > 1 else P.schedule()
        nw = P.news_of(name)
        self.news = None
        self.hosting = False
        self.teller = None
        if nw:
            self.news = Event(nw[0], P.now_date, self.places(), P.now_date)
            self.hosting = nw[1]
            self.teller = nw[2]
        if self.news is None:
            # "has heard that ... keen to pass the news" in the status
            m = re.search(r"has heard that (.+?)(?:, and is keen| and is keen|$)", self.status)
            if m:
                self.news = Event(m.group(1), P.now_date, self.places(), P.now_date)

    def places(self):
        return sorted(set(re.findall(r"(?m)^\s*-\s*([A-Z][\w' .-]*:[^():\n]+:[^():\n]+?)\s*$", self.P.text)))

    def clash(self, ev):
        if ev is None or ev.date is None or ev.start is None:
            return None
        for d, s, e, act, addr in self.schedule:
            if d != ev.date:
                continue
            ee = e if e > s else e + 1440
            es = ev.start
            een = ev.end if ev.end is not None else es + 60
            if een <= es:
                een += 1440
            if s < een and es < ee and "sleep" not in act.lower():
                if ev.noun and ev.noun.lower() in act.lower():
                    continue
                return act, is_ordinary(act)
        return None

    def p_accept(self, rel):
        p = 0.75
        if outgoing(self.traits):
            p += 0.1
        if reserved(self.traits):
            p -= 0.15
        if re.search(r"wary|dislike|annoy|distrust|irritat|cool towards|avoid", rel or "", re.I):
            p -= 0.2
        return p

    def say_news(self, listener, vague_p=0.15):
        ev = self.news
        today = self.P.now_date
        vague = self.rng.random() < vague_p
        core = ev.core
        me = self.name
        if core.startswith(me):
            core = "I" + core[len(me):]
            core = re.sub(r"^I wants\b", "I want", core)
            core = re.sub(r"^I is\b", "I'm", core)
            core = re.sub(r"^I has\b", "I have", core)
        else:
            for n in self.P.names:
                if core.startswith(n):
                    core = first_name(n) + core[len(n):]
                    break
        when = ev.when_text(today, vague=vague)
        place = "" if (vague and self.rng.random() < 0.5) else ev.place_text()
        s = core
        if when:
            s += " " + when
        if place and place.lower()[4:] not in s.lower():
            s += ", at " + place
        s += "."
        opener = self.rng.choice(["Did you hear? ", "Have you heard? ", "Guess what - ", "I must tell you - ", ""])
        if core.startswith("I "):
            opener = self.rng.choice(["Guess what - ", "", "I've got news: "])
        line = opener + s
        if self.hosting and self.rng.random() < 0.9:
            line += " " + self.rng.choice(["Would you like to come?", "I'd love it if you came.",
                                           "Do come along!", "Will you come?"])
        elif self.rng.random() < 0.3:
            line += " " + self.rng.choice(["I'm thinking of going.", "Should be fun.", "Everyone's talking about it."])
        return line

    def speak(self, others, history, rel=""):
        """-> (text, end, kind). others: list of names; history: [(speaker, text)]."""
        rng = self.rng
        P = self.P
        mine = [t for s, t in history if s == self.name]
        theirs = [(s, t) for s, t in history if s != self.name]
        last = theirs[-1] if theirs and history and history[-1][0] != self.name else (history[-1] if history else None)
        last_other = history[-1] if history and history[-1][0] != self.name else None
        all_text = " ".join(t for _, t in history)
        lis = last_other[0] if last_other else (others[0] if others else "")
        lfn = first_name(lis)
        n = len(history)
        kind = "small"
        text = None
        end = None
        news_pending = self.news is not None and not self.news.mentioned_in(all_text)
        if last_other:
            lt = last_other[1]
            ev = Event(lt, P.now_date, self.places(), P.now_date)
            has_evt = (ev.date is not None or ev.start is not None) and len(content_words(lt)) > 3
            own_event = self.news is not None and self.hosting and self.news.mentioned_in(lt)
            if has_any(lt, BYE) and not has_any(lt, INVITE):
                if rng.random() < 0.9:
                    text = rng.choice(["Bye, %s - take care!" % lfn, "See you around, %s!" % lfn,
                                       "Good to see you, %s. Bye for now!" % lfn])
                    return text, True, "bye"
            if own_event and has_any(lt, ACCEPT):
                text = rng.choice(["Wonderful - see you there, %s!" % lfn,
                                   "Lovely, I'm so glad you can come!",
                                   "That's great, the more the merrier."])
                kind = "thanks"
            elif own_event and has_any(lt, DECLINE):
                text = rng.choice(["Never mind, maybe next time.", "Ah, that's a shame - another time then."])
                kind = "thanks"
            elif has_evt and not own_event and (has_any(lt, INVITE) or
                                                (rng.random() < 0.1 and not has_any(lt, ACCEPT))):
                c = self.clash(ev)
                pa = self.p_accept(rel)
                what = ev.noun or "that"
                if c and not c[1]:
                    acc = rng.random() >= 0.8
                else:
                    acc = rng.random() < pa
                if acc:
                    text = rng.choice(["Oh, I'd love to come - see you there%s!" % (" at " + spoken_time(ev.start) if ev.start is not None else ""),
                                       "Count me in! I'll be there.",
                                       "That sounds lovely, I'll come along to the %s." % what])
                    kind = "accept"
                else:
                    why = c[0] if c else (self.schedule[0][3] if self.schedule else "busy")
                    text = rng.choice(["I'm sorry, I can't make it - I'm %s then. Maybe another time?" % why,
                                       "That's kind of you, but I won't be able to come; I'll be %s." % why])
                    kind = "decline"
            elif has_evt and not own_event and ev.mentioned_in(lt) and not has_any(lt, ACCEPT) and \
                    (self.news is None or not self.news.mentioned_in(lt)):
                pg = 0.45 + (0.1 if outgoing(self.traits) else 0)
                if rng.random() < pg:
                    text = rng.choice(["Oh, how lovely! I think I'll go along to that.",
                                       "Really? I hadn't heard - I'd like to go to the %s." % ev.noun,
                                       "Thanks for telling me, I might well pop along%s." % (" at " + spoken_time(ev.start) if ev.start is not None else "")])
                    kind = "meanstogo"
                else:
                    text = rng.choice(["Oh, I hadn't heard that. Thanks for telling me.",
                                       "Is that so? Well, good for them.",
                                       "Really? That's nice to hear."])
                    kind = "heard"
        if text is None and news_pending:
            p = 0.7 if len(mine) < 2 else 0.4
            if self.teller and self.teller in others:
                p = 0.1
            if rng.random() < p:
                greet = ""
                if not history:
                    greet = rng.choice(["Hi %s! " % first_name(others[0]) if others else "Hello! ",
                                        "Morning, %s! " % first_name(others[0]) if others else "Hello! ",
                                        "Oh, hello %s! " % first_name(others[0]) if others else "Hello! "])
                text = greet + self.say_news(lis)
                kind = "news"
        if text is None:
            if not history:
                who = first_name(others[0]) if others else ""
                text = rng.choice(["Hello, %s! How are you doing?" % who, "Hi %s, lovely to see you - how are things?" % who,
                                   "Morning, %s! Keeping well?" % who])
            elif len(mine) >= 2 and rng.random() < 0.35 + 0.1 * len(mine):
                text = rng.choice(["Well, I'd better get on. Good to talk - see you around!",
                                   "I must be off now, but lovely to catch up. Bye for now!"])
                return text, True, "bye"
            else:
                st = self.status
                m = re.search(re.escape(self.name) + r" is ([^.]+)", st)
                busy = m.group(1) if m else "keeping busy"
                if last_other and last_other[1].rstrip().endswith("?"):
                    text = rng.choice(["Oh, I'm well, thank you! I've been %s." % busy,
                                       "Not bad at all - I've been %s, it keeps me busy." % busy])
                else:
                    text = rng.choice(["I've been %s lately. What have you been up to?" % busy,
                                       "It's nice to have a moment to chat.",
                                       "Lovely weather for it, isn't it?",
                                       "Anything new with you, %s?" % lfn])
        if end is None:
            if kind in ("news", "accept", "decline") or (text and text.endswith("?")):
                end = rng.random() < 0.1
            else:
                end = rng.random() < min(0.85, 0.1 + 0.12 * n)
        return text, end, kind


# ---------------------------------------------------------------------------------------------
# tasks
def t_converse_plain(P, body, rng):
    me = P.self_name
    others = sorted(n for n in P.names if n != me)
    hist = conv_lines(P.text, P.names)
    # partner: the other name mentioned most in the non-memory text
    txt = "\n".join(l for l in P.lines if not l.strip().startswith("- ["))
    counts = {n: txt.count(n) for n in others}
    ordered = sorted(others, key=lambda n: -counts[n])
    sp = Speaker(P, me, rng)
    rel = ""
    for ln in P.lines:
        if me in ln and ordered and ordered[0] in ln and re.search(r"\bsees\b|feels|friendly|knows", ln) and not ln.startswith("-"):
            rel = ln
    text, end, kind = sp.speak(ordered[:1] or ["you"], hist, rel)
    r = rng.random()
    if r < 0.04:
        text = me + ": " + text
    elif r < 0.07:
        text = '"' + text + '"'
    tag = "[end]" if end else "[continue]"
    r2 = rng.random()
    if r2 < 0.03:
        return text
    if r2 < 0.05:
        mt = int(body.get("max_tokens") or 200)
        ram = (text + " ") * 12
        return ram[:int(mt * 3.5)]
    return text + "\n" + tag


def t_group_turn(P, body, rng, schema):
    me = P.self_name
    enum = (schema.get("properties", {}).get("addressed_to", {}) or {}).get("enum") or []
    others = [n for n in enum if n not in ("everyone", me)]
    hist = conv_lines(P.text, set(enum) | {me})
    sp = Speaker(P, me, rng)
    text, end, kind = sp.speak(others or ["everyone"], hist)
    last_other = [s for s, t in hist if s != me]
    if kind == "news" and rng.random() < 0.6:
        to = "everyone"
    elif last_other and last_other[-1] in enum:
        to = last_other[-1]
    else:
        to = others[0] if others else (enum[0] if enum else "everyone")
    return {"utterance": text, "addressed_to": to, "end_conversation": bool(end)}


def memo_for(P, me, other_names, lines, rng, places, date_enum):
    today = P.now_date
    hist_text = " ".join(t for _, t in lines)
    ev = None
    ev_idx = None
    for i, (s, t) in enumerate(lines):
        e = Event(t, today, places, today)
        if (e.date is not None or e.start is not None) and len(content_words(t)) > 3:
            ev, ev_idx = e, i
            break
    sp_news = P.news_of(me)
    hosting = bool(sp_news and sp_news[1])
    stance = None
    other_stance = None
    if ev is not None:
        for s, t in lines[ev_idx:]:
            st = "acc" if has_any(t, ACCEPT) else ("dec" if has_any(t, DECLINE) else None)
            if st is None:
                continue
            if s == me:
                stance = st
            else:
                other_stance = st
        if lines[ev_idx][0] == me and re.search(r"\b(i|i'm|i am|i've)\b", lines[ev_idx][1].lower()) and \
                lines[ev_idx][1].lower().startswith(("i ", "i'", "guess", "oh", "hi", "hello", "morning")) and hosting:
            stance = "host"
    if rng.random() < 0.06:
        stance = other_stance or stance
    others = ", ".join(other_names) or "someone"
    imp = 2 + rng.randint(0, 1)
    out = {"summary": "", "importance": imp, "plan_activity": "", "plan_date": "", "plan_start": "",
           "plan_minutes": 0, "plan_place": ""}
    if ev is None:
        topic = content_words(hist_text, P.names)
        topic = topic[0] if topic else "this and that"
        out["summary"] = "%s chatted with %s about %s; nothing was arranged." % (me, others, topic)
        return out
    teller = lines[ev_idx][0]
    when = ev.when_text(today)
    dstr = long_date(ev.date) if ev.date else ""
    place = ev.place_text()
    what = "the %s" % ev.noun
    if teller == me:
        s = "%s told %s about %s%s%s%s" % (me, others, what, " on " + dstr if dstr else "",
                                           " from %s to %s" % (spoken_time(ev.start), spoken_time(ev.end)) if ev.start is not None and ev.end is not None else "",
                                           ", at " + place if place else "")
    else:
        s = "%s told %s about %s%s%s%s" % (teller, me, what, " on " + dstr if dstr else "",
                                           " from %s to %s" % (spoken_time(ev.start), spoken_time(ev.end)) if ev.start is not None and ev.end is not None else "",
                                           ", at " + place if place else "")
    if stance == "acc":
        s += ", and %s said they would go." % me
    elif stance == "dec":
        s += ", but %s can't make it." % me
    elif stance == "host":
        s += "; %s %s." % (others, "said they would come" if other_stance == "acc" else ("can't come" if other_stance == "dec" else "heard about it"))
    else:
        s += "."
    out["summary"] = s
    out["importance"] = 5 + rng.randint(0, 1) + (1 if stance in ("acc", "host") else 0)
    if rng.random() < 0.3:
        out["importance"] = max(1, min(10, out["importance"] + rng.choice([-1, 1])))
    if stance == "acc" and rng.random() >= 0.1:
        act = "going to the %s" % ev.noun
        if ev.host and ev.host != me:
            act += " with %s" % first_name(ev.host)
        if rng.random() < 0.08:
            act = lines[ev_idx][1]
        out["plan_activity"] = act
        d = ev.date or today
        if rng.random() < 0.06:
            d = today
        iso = d.isoformat() if d else ""
        if date_enum and iso not in date_enum:
            iso = ""
        out["plan_date"] = iso
        out["plan_start"] = hhmm(ev.start) if ev.start is not None else ""
        out["plan_minutes"] = min(600, ev.minutes()) if ev.start is not None else 60
        pl = ev.place or match_place(hist_text, places)
        if rng.random() < 0.05:
            pl = ""
        out["plan_place"] = pl
    return out


def schema_enum(schema, *path):
    s = schema
    defs = schema.get("$defs", {})
    for p in path:
        s = resolve(s, defs)
        if p == "[]":
            s = s.get("items", {})
        else:
            s = (s.get("properties") or {}).get(p, {})
    s = resolve(s, defs)
    return s.get("enum") or []


def resolve(s, defs):
    if not isinstance(s, dict):
        return {}
    if "$ref" in s:
        return resolve(defs.get(s["$ref"].split("/")[-1], {}), defs)
    if "anyOf" in s:
        for a in s["anyOf"]:
            if a.get("type") != "null":
                return resolve(a, defs)
    return s


def t_memo(P, body, rng, schema):
    me = P.self_name
    hist = conv_lines(P.text, P.names)
    others = sorted({s for s, _ in hist if s != me}) or sorted(n for n in P.names if n != me)[:1]
    places = [p for p in schema_enum(schema, "plan_place") if p]
    dates = schema_enum(schema, "plan_date")
    return memo_for(P, me, others, hist, rng, places, dates)


def t_gist(P, body, rng, schema):
    defs = schema.get("$defs", {})
    props = schema.get("properties", {})
    line_s = resolve(props.get("lines", {}), defs)
    speakers = schema_enum(schema, "lines", "[]", "speaker")
    if not speakers:
        speakers = sorted(P.names)
    m = re.search(r"([A-Z][a-z]+ [A-Z][a-z]+) first\b", P.text)
    order = list(speakers)
    if m and m.group(1) in order:
        order.remove(m.group(1))
        order.insert(0, m.group(1))
    maxl = int(line_s.get("maxItems", 6) or 6)
    sps = {n: Speaker(P, n, rng) for n in order}
    for n in order:
        sps[n].schedule = P.schedule(owner=n)
    any_news = any(s.news for s in sps.values())
    p_talk = 0.9 if any_news else 0.55 + (0.1 if any(outgoing(s.traits) for s in sps.values()) else 0)
    talk = rng.random() < p_talk
    out = {"talk": talk, "lines": []}
    places_all = sorted(set(re.findall(r"([A-Z][\w' .-]*:[^():\n,]+:[^():\n,)]+)", P.text)))
    if not talk:
        if "memos" in props:
            out["memos"] = []
        return out
    hist = []
    left = set()
    i = 0
    while len(hist) < maxl:
        active = [n for n in order if n not in left]
        if len(active) < 2:
            break
        n = active[i % len(active)]
        i += 1
        others = [o for o in active if o != n]
        text, end, kind = sps[n].speak(others, hist)
        hist.append((n, text))
        if end:
            if len(order) == 2 or kind == "bye":
                if len(order) == 2:
                    break
                left.add(n)
    if len(hist) < 2 and len(order) >= 2:
        n = order[1] if hist and hist[0][0] == order[0] else order[0]
        hist.append((n, "Good to see you - bye for now!"))
    out["lines"] = [{"speaker": s, "text": t} for s, t in hist]
    date_enum = [d for d in (schema_enum(schema, "first", "plan_date") or schema_enum(schema, "memos", "[]", "plan_date"))]
    if "memos" in props:
        memos = []
        pl = [p for p in schema_enum(schema, "memos", "[]", "plan_place") if p] or places_all
        for n in order:
            mm = memo_for(P, n, [o for o in order if o != n], hist, rng, pl, date_enum)
            mm["name"] = n
            memos.append(mm)
        out["memos"] = memos
    else:
        fm = re.search(r'"first":\s*([A-Z][a-z]+ [A-Z][a-z]+)', P.text)
        sm = re.search(r'"second":\s*([A-Z][a-z]+ [A-Z][a-z]+)', P.text)
        a = fm.group(1) if fm else order[0]
        b = sm.group(1) if sm else (order[1] if len(order) > 1 else order[0])
        out["first"] = memo_for(P, a, [b], hist, rng, [p for p in schema_enum(schema, "first", "plan_place") if p] or places_all, date_enum)
        out["second"] = memo_for(P, b, [a], hist, rng, [p for p in schema_enum(schema, "second", "plan_place") if p] or places_all, date_enum)
    return out


def rate_memory(P, text, rng, me):
    low = text.lower()
    traits = P.traits()
    if re.match(r"^[a-z][\w ]* (is|are) [\w ]+$", text.strip()) and not re.search(r"[A-Z]", text.strip()[:1]):
        v = 1
    elif any(re.search(r"\b" + w + r"\b", low) for w in LIFE):
        v = 8 + rng.randint(0, 1)
    elif re.search(r"promis|said they would|will go|count me|hosting|host|invit", low):
        v = 6 + rng.randint(0, 1)
    elif (DATE_MD.search(text) or DATE_DM.search(text) or re.search(r"\btomorrow\b", low)) and re.search(r"wants|told|news|heard|going to|plan to", low):
        v = 5 + rng.randint(0, 1)
    elif "conversation" in low or "told" in low or '"' in text:
        v = 4
    elif "plan for" in low or "schedule" in low:
        v = 3
    elif low.startswith(me.lower()):
        v = 2
    else:
        v = 2 + (1 if "nosy" in traits or "curious" in traits else 0)
    if rng.random() < 0.3:
        v += rng.choice([-1, 1])
    return max(1, min(10, v))


def t_importance(P, body, rng, schema):
    m = re.search(r"(?:Memory|memory)[^\n:]*:\s*\"(.+)\"", P.text) or re.search(r"\"(.+)\"", P.text)
    mem = m.group(1) if m else P.text[-200:]
    return {"importance": rate_memory(P, mem, rng, P.self_name)}


def t_importance_batch(P, body, rng, schema):
    items = re.findall(r"(?m)^\s*(?:-|\d+\.)\s*\"(.*)\"\s*$", P.text)
    arr = schema.get("properties", {}).get("ratings", {})
    n = arr.get("minItems") or len(items) or 1
    n = max(n, min(len(items), arr.get("maxItems", len(items))))
    vals = [rate_memory(P, items[i] if i < len(items) else "", rng, P.self_name) for i in range(n)]
    return {"ratings": vals}


def t_interview(P, body, rng, schema):
    me = P.self_name
    qm = re.findall(r"\"([^\"]+\?)\"", P.text)
    q = qm[-1] if qm else "?"
    mems = P.memories()
    identity = P.field("Identity") + " " + P.field("Lifestyle")
    nm = re.search(r"([A-Z][a-z]+ [A-Z][a-z]+)", q)
    if nm and re.search(r"\bknow\b", q, re.I):
        who = nm.group(1)
        if who == me:
            return {"answer": "Well, that's me! I'm %s." % me}
        fn = first_name(who)
        rel = [t for _, t in mems if who in t or re.search(r"\b" + fn + r"\b", t)]
        if who in identity or re.search(r"\b" + fn + r"\b", identity):
            cl = [c for c in re.split(r"[;.]", P.field("Identity")) if fn in c]
            extra = (" " + cl[0].strip().replace(me, "I").replace(" her.", " me.") + ".") if cl else ""
            return {"answer": "Yes, I know %s.%s" % (fn, extra.replace("  ", " "))}
        if rel:
            last = rel[-1]
            convo = [t for t in rel if t.startswith("conversation")]
            if convo:
                a = "Yes, I know %s - we've chatted%s." % (fn, " a few times" if len(convo) > 1 else " recently")
            else:
                a = "Yes, I know %s by sight." % fn
            detail = re.sub(r"\s*\([^)]*\)", "", last)
            if not detail.startswith("conversation") and len(detail) < 160:
                a += " Last I saw, %s." % detail.replace(who, fn).rstrip(".")
            ev = [t for t in rel if (DATE_MD.search(t) or DATE_DM.search(t)) and re.search(r"told|wants|going", t)]
            if ev and rng.random() < 0.6:
                e = Event(ev[-1], P.now_date, [], P.now_date)
                a += " %s mentioned the %s %s." % (fn if fn in ev[-1] else "Someone", e.noun, e.when_text(P.now_date))
            return {"answer": a}
        if rng.random() < 0.1:
            return {"answer": "The name %s rings a bell, but I can't say I really know them." % who}
        return {"answer": "I don't think I know %s, I'm afraid - the name doesn't ring a bell." % who}
    keys = content_words(q, P.names)
    hits = [(sum(1 for k in keys if k in t.lower()), i, t) for i, (_, t) in enumerate(mems)]
    hits = [h for h in hits if h[0] > 0]
    if not hits:
        return {"answer": "No, I haven't heard anything about that."}
    hits.sort(key=lambda h: (-h[0], -h[1]))
    dated = [h for h in hits if (DATE_MD.search(h[2]) or DATE_DM.search(h[2]))]
    best = (dated or hits)[0][2]
    src = re.sub(r"^conversation with [^:]+:\s*", "", best)
    if "\"" in src:
        qq = re.findall(r"\"([^\"]+)\"", src)
        qq = [x for x in qq if any(k in x.lower() for k in keys)]
        src = qq[0] if qq else src
    ev = Event(src, P.now_date, [], P.now_date)
    vague = rng.random() < 0.15
    a = "Yes, I heard about that: %s" % ev.core.replace(me, "I")
    w = ev.when_text(P.now_date, vague=vague)
    if w:
        a += " " + w
    if ev.place_text() and not vague:
        a += ", at " + ev.place_text()
    a += "."
    going = [t for _, t in mems if any(k in t.lower() for k in keys) and re.search(r"said they would (go|come)|count me in|promised", t)
             and (me + " said" in t or t.startswith(me))]
    if going:
        a += " I said I'd go."
    return {"answer": a}


def t_revise(P, body, rng, schema):
    me = P.self_name
    old = P.field("Currently") or P.field("Identity") or ("%s is going about their day." % me)
    first = re.split(r"(?<=\.)\s", old)[0]
    today = P.now_date
    mems = P.memories()
    evs = []
    for stamp, t in mems:
        ref = find_date(stamp, today) or today
        if not re.search(r"wants|told|going to|said they would|promised|invit|plan to", t):
            continue
        e = Event(t, ref, [], today)
        if e.date is None or (today and e.date < today):
            continue
        committed = (t.startswith(me) and re.search(r"wants|plans|hosting|will", t)) or \
                    re.search(re.escape(me) + r" said they would|" + re.escape(me) + r" promised", t)
        evs.append((bool(committed), e, t))
    s = first if first.endswith(".") else first + "."
    if evs and rng.random() >= 0.1:
        evs.sort(key=lambda x: (not x[0],))
        com, e, t = evs[0]
        if rng.random() < 0.08:
            s += " " + t
        else:
            host = e.host == me
            if host:
                s += " %s is getting the %s ready for %s and hopes plenty of people will come." % (
                    me, e.noun, (e.when_text(today) + (" at " + e.place_text() if e.place_text() else "")).strip())
            elif com:
                s += " %s means to go to the %s %s%s." % (me, e.noun, e.when_text(today), ", at " + e.place_text() if e.place_text() else "")
            else:
                s += " %s has heard about the %s %s and is thinking of going." % (me, e.noun, e.when_text(today))
    else:
        s += " %s is keeping to the usual routine." % me
    return {"currently": s}


def t_relationship(P, body, rng, schema):
    me = P.self_name
    others = [n for n in P.names if n != me]
    m = re.search(r"(?:about|with)\s+([A-Z][a-z]+ [A-Z][a-z]+)", P.text[P.text.find("Currently"):])
    other = m.group(1) if m and m.group(1) != me else (others[0] if others else "them")
    mems = [t for _, t in P.memories() if other in t]
    convo = [t for t in mems if "conversation" in t or "told" in t or "\"" in t]
    fn = first_name(other)
    if convo:
        base = "%s has chatted with %s %s" % (me, fn, "a few times lately" if len(convo) > 1 else "recently")
        ev = [t for t in convo if (DATE_MD.search(t) or DATE_DM.search(t))]
        if ev:
            e = Event(ev[-1], P.now_date, [], P.now_date)
            base += ", including about the %s" % e.noun
        feel = "feels warmly towards them" if outgoing(P.traits()) else "feels friendly towards them"
    elif mems:
        base = "%s has only seen %s around" % (me, fn)
        feel = "feels neutral but friendly towards them"
    else:
        base = "%s barely knows %s" % (me, fn)
        feel = "has no strong feelings about them"
    s = "%s and %s." % (base, feel)
    if rng.random() < 0.25:
        s = s.replace(me + " has", "I have").replace(me + " barely knows", "I barely know").replace(" and feels", " and feel").replace(" and has no", " and have no")
    return {"summary": s}


def t_react(P, body, rng, schema):
    me = P.self_name
    enum = schema_enum(schema, "choice") or ["continue"]
    noticed = re.search(r"\"([^\"]+)\"", P.text)
    obs = noticed.group(1) if noticed else ""
    om = re.match(r"([A-Z][a-z]+ [A-Z][a-z]+)", obs)
    other = om.group(1) if om else None
    news = P.news_of(me)
    untold = False
    if news and other:
        for ln in P.lines:
            if "news" in ln and other in ln and me in ln and re.search(r"not told|hasn't heard|has not heard|not heard", ln):
                untold = True
        if not untold:
            ev = Event(news[0], P.now_date, [], P.now_date)
            told = [t for _, t in P.memories() if other in t and ev.mentioned_in(t) and "told" in t]
            untold = not told
    traits = P.traits()
    r = rng.random()
    busy = other and re.search(r"\bis (?!chatting)\w+ing\b", obs)
    if other and untold:
        choice = "talk" if r < 0.65 else ("wait" if r < 0.75 and busy else ("continue" if r < 0.95 else "react"))
    elif other:
        pt = 0.35 if (outgoing(traits) or "nosy" in traits) else 0.25
        choice = "talk" if r < pt else ("continue" if r < pt + 0.65 else ("wait" if r < pt + 0.7 else "react"))
    else:
        choice = "continue" if r < 0.9 else "react"
    if choice not in enum:
        choice = enum[0]
    fn = first_name(other) if other else ""
    reasons = {
        "talk": ("%s hasn't heard the news yet and is right here." % fn) if untold else ("It would be friendly to say hello to %s." % fn),
        "wait": "%s looks busy, so it is better to wait a moment." % fn,
        "continue": "Nothing about this needs %s's attention right now." % first_name(me),
        "react": "This is worth changing plans for.",
    }
    new = ""
    if choice == "react":
        new = ("going over to talk with %s" % fn) if other else "taking a look at what is going on"
    return {"choice": choice, "reason": reasons.get(choice, "It seems best."), "new_activity": new}


def t_questions(P, body, rng, schema):
    me = P.self_name
    arr = schema.get("properties", {}).get("questions", {})
    n = arr.get("maxItems") or 3
    m = re.search(r"\b(\d+)\s+questions?\b", P.text)
    if m:
        n = min(n, int(m.group(1)))
    mems = [t for _, t in P.memories()]
    qs = []
    evs = [t for t in mems if (DATE_MD.search(t) or DATE_DM.search(t)) and re.search(r"wants|told|going", t)]
    if evs:
        e = Event(evs[-1], P.now_date, [], P.now_date)
        qs.append("How does %s feel about the %s, and who has said they will come?" % (me, e.noun))
    cnt = {}
    for t in mems:
        for nm in P.names:
            if nm != me and nm in t:
                cnt[nm] = cnt.get(nm, 0) + 1
    for nm, _ in sorted(cnt.items(), key=lambda x: -x[1])[:2]:
        qs.append("What is the nature of %s's relationship with %s?" % (me, nm))
    acts = {}
    for t in mems:
        mm = re.match(re.escape(me) + r" is ([a-z ]+?)(?: \(|$)", t)
        if mm:
            acts[mm.group(1)] = acts.get(mm.group(1), 0) + 1
    if acts:
        a = max(acts, key=acts.get)
        qs.append("What does %s's routine of %s say about what matters to them?" % (me, a))
    if not qs:
        qs.append("What has %s been spending their days on lately?" % me)
    rng.shuffle(qs) if rng.random() < 0.3 else None
    return {"questions": qs[:max(1, n)]}


def t_insights(P, body, rng, schema):
    me = P.self_name
    stm = {}
    for ln in P.lines:
        m = re.match(r"\s*(\d+)\.\s+(.*)", ln)
        if m:
            stm[int(m.group(1))] = m.group(2)
    ev_enum = schema_enum(schema, "insights", "[]", "evidence", "[]")
    qs = re.findall(r"(?m)^\s*-\s*\"(.+?)\"\s*$", P.text)
    if not qs:
        qs = ["What matters to %s lately?" % me]
    out = []
    for q in qs[:5]:
        names = [n for n in P.names if n in q and n != me]
        keys = content_words(q, [me])
        sc = []
        for k, t in stm.items():
            s = sum(1 for n in names if n in t) * 2 + sum(1 for w in keys if w in t.lower())
            if s:
                sc.append((s, k))
        sc.sort(key=lambda x: (-x[0], x[1]))
        evid = sorted(k for _, k in sc[:5]) or ([min(stm)] if stm else [1])
        if ev_enum:
            evid = [e for e in evid if e in ev_enum] or [ev_enum[0]]
        if names:
            nm = names[0]
            talks = sum(1 for k in evid if "conversation" in stm.get(k, ""))
            ins = "%s and %s cross paths often%s; %s is becoming a familiar part of %s's days." % (
                me, first_name(nm), " and talk when they do" if talks else "", first_name(nm), me)
            about = nm
        else:
            evt = [stm[k] for k in evid if (DATE_MD.search(stm.get(k, "")) or DATE_DM.search(stm.get(k, "")))
                   and re.search(r"wants|told|going to|invit|host", stm.get(k, ""))]
            if evt:
                e = Event(evt[0], P.now_date, [], P.now_date)
                ins = "%s is keen on the %s %s and it is on %s's mind." % (me, e.noun, e.when_text(P.now_date), first_name(me))
                about = "the " + e.noun
            else:
                ins = "%s keeps a steady routine and finds comfort in it." % me
                about = "routine"
        out.append({"insight": ins, "about": about[:60], "evidence": evid[:10], "importance": 4 + rng.randint(0, 3)})
    return {"insights": out}


EMOJI = [("sleep", "😴"), ("breakfast", "🍳"), ("lunch", "🥪"), ("dinner", "🍲"), ("wak", "⏰"),
         ("relax", "🛋️"), ("read", "📖"), ("walk", "🚶"), ("bak", "🍞"), ("work", "💼"), ("teach", "📚"),
         ("going to", "🎉"), ("hosting", "🎉"), ("seeing people", "👋"), ("calling on", "👋"), ("tell", "📣")]


def emoji_for(act):
    a = act.lower()
    for k, e in EMOJI:
        if k in a:
            return e
    return "🙂"


def ing(verb):
    v = verb.lower()
    if v.endswith("ies"):
        return v[:-3] + "ying"
    if v.endswith("es") and v[-3] in "sxz" or v.endswith(("ches", "shes")):
        base = v[:-2]
    elif v.endswith("s"):
        base = v[:-1]
    else:
        base = v
    if base.endswith("e") and not base.endswith("ee"):
        return base[:-1] + "ing"
    if re.match(r".*[^aeiou][aeiou][bdgmnprt]$", base) and len(base) <= 4:
        return base + base[-1] + "ing"
    return base + "ing"


def t_daily_plan(P, body, rng, schema):
    me = P.self_name
    places = schema_enum(schema, "blocks", "[]", "address")
    today = P.now_date
    life = P.field("Lifestyle")
    wm = re.search(r"wake[s]?\s+up\s+at\s+(" + TOK + r")", life, re.I)
    wake = parse_tok(wm.group(1))[0] if wm else 7 * 60
    bm = re.search(r"bed at\s+(" + TOK + r")", life, re.I)
    bed = parse_tok(bm.group(1))[0] if bm else 22 * 60
    home = ""
    m = re.search(r"sleep\w*[^\n]{0,40}?\(([^()]+:[^()]+:[^()]+)\)", P.text)
    if m and m.group(1) in places:
        home = m.group(1)
    if not home:
        sur = me.split()[-1].lower()
        home = next((p for p in places if sur in p.lower()), places[0] if places else "home")
    prev = P.schedule()
    blocks = []
    if prev and rng.random() < 0.85:
        for d, s, e, act, addr in prev:
            blocks.append([s, e, act, addr if addr in places else home])
        wake = blocks[0][0]
    else:
        work = []
        for cl in re.split(r",|\band\b(?= goes)", life):
            r = find_range(cl)
            if r and "bed" not in cl:
                pre = cl[:r[2]].strip()
                pre = re.sub(r"\s+from$", "", pre).strip()
                ws = pre.split()
                if ws:
                    act = ing(ws[0]) + (" " + " ".join(ws[1:]) if len(ws) > 1 else "")
                    work.append((r[0], r[1], act, match_place(cl, places) or home))
        t = wake
        blocks.append([t, t + 30, "waking up and getting ready", home])
        blocks.append([t + 30, t + 60, "having breakfast", home])
        t += 60
        meals = [(12 * 60, 13 * 60, "having lunch"), (18 * 60 + 30, 19 * 60 + 30, "having dinner")]
        items = sorted(work + [(a, b, c, None) for a, b, c in meals])
        for s, e, act, pl in items:
            if e <= s:
                e = min(bed, s + 120)
            if s < t:
                s = t
            if e <= s:
                continue
            if s > t:
                blocks.append([t, s, "relaxing at home", home])
            if pl is None:
                pl = blocks[-1][3] if blocks and blocks[-1][2] not in ("relaxing at home",) and blocks[-1][1] == s else home
            blocks.append([s, e, act, pl])
            t = e
        if bed > t:
            blocks.append([t, bed, "relaxing at home", home])
        blocks.append([bed, wake, "sleeping", home])
    # events today
    traits = P.traits()
    for stamp, txt in P.memories() + [("", P.field("Currently"))]:
        ref = find_date(stamp, today) or today
        if not re.search(r"wants|told|going to|said they would|promised|invit|host|heard", txt):
            continue
        e = Event(txt, ref, places, today)
        if e.date != today or e.start is None:
            continue
        committed = (txt.startswith(me) and re.search(r"wants|plans|host|getting ready", txt)) or \
            re.search(re.escape(me) + r" (said they would|promised|has promised)", txt)
        p = 0.85 if committed else 0.35 + (0.15 if outgoing(traits) else 0)
        if any(e.noun in b[2] for b in blocks):
            break
        if rng.random() < p:
            host = e.host == me
            act = ("hosting the %s" if host else "going to the %s") % e.noun
            blocks = insert_block(blocks, e.start, e.start + e.minutes(), act, e.place or home)
        break
    news = P.news_of(me)
    if news and rng.random() < 0.5:
        spots = re.findall(r"(?m)^\s*-\s*([A-Z][\w' .-]*:[^():\n]+:[^():\n]+?):\s*\d+ (?:person|people)[^,\n]*,\s*(" + TOK + r")\s*(?:-|to)\s*(" + TOK + r")", P.text)
        for addr, a, b in spots:
            s, e = parse_range(a, b)
            for blk in blocks:
                if "relax" in blk[2] and blk[1] - blk[0] >= 60 and s <= blk[0] < e and addr in places:
                    room = addr.split(":")[-1]
                    blk[2] = "seeing people at the %s" % room
                    blk[3] = addr
                    break
            else:
                continue
            break
    blocks = [b for b in blocks if (b[1] - b[0]) % 1440 >= 5]
    while len(blocks) > 16:
        # merge the two shortest neighbours
        i = min(range(len(blocks) - 1), key=lambda k: (blocks[k][1] - blocks[k][0]) % 1440)
        blocks[i][1] = blocks[i + 1][1]
        del blocks[i + 1]
    out_blocks = []
    for s, e, act, addr in blocks:
        dur = (e - s) % 1440 or 60
        out_blocks.append({"start": hhmm(s), "duration_minutes": max(5, min(960, dur)), "activity": act[:120],
                           "emoji": emoji_for(act), "address": addr if addr in places else home})
    outline = []
    outline.append("wake up at %s" % spoken_time(wake))
    for s, e, act, addr in blocks[1:-1]:
        if "relax" in act:
            continue
        outline.append("%s at %s" % (act, spoken_time(s)))
    outline.append("go to bed at %s" % spoken_time(blocks[-1][0]))
    if len(outline) > 8:
        outline = outline[:7] + outline[-1:]
    while len(outline) < 4:
        outline.insert(-1, "relaxing at home")
    return {"wake_up_hour": (wake // 60) % 24, "outline": outline, "blocks": out_blocks}


def insert_block(blocks, s, e, act, addr):
    out = []
    for b in blocks:
        bs, be = b[0], b[1]
        if "sleep" in b[2] or be <= s or bs >= e:
            out.append(b)
            continue
        if bs < s:
            out.append([bs, s, b[2], b[3]])
        if be > e:
            out.append([e, be, b[2], b[3]])
    out.append([s, e, act, addr])
    sleep = [b for b in out if "sleep" in b[2]]
    rest = sorted([b for b in out if "sleep" not in b[2]], key=lambda b: b[0])
    return rest + sleep


STEPS = [
    ("wak", ["stretching and getting out of bed", "washing face", "getting dressed", "brushing hair", "making the bed", "opening the curtains"]),
    ("breakfast", ["making tea", "preparing breakfast", "eating at the table", "washing the dishes"]),
    ("lunch", ["preparing lunch", "eating lunch", "clearing up"]),
    ("dinner", ["cooking dinner", "eating dinner", "washing up", "putting things away"]),
    ("sleep", ["getting into bed", "sleeping"]),
    ("relax", ["making a cup of tea", "sitting in the armchair", "reading a book", "listening to the radio", "tidying up a little", "writing a letter"]),
    ("walk", ["setting off", "walking a lap", "stopping to look around", "walking another lap", "heading back"]),
    ("seeing people", ["saying hello to neighbours", "chatting with a friend", "catching up on news", "sharing the latest news", "waving goodbye"]),
    ("calling on", ["knocking on the door", "saying hello", "chatting over tea", "saying goodbye"]),
    ("going to", ["arriving", "finding a good spot", "joining in", "chatting with people", "cheering along", "heading home"]),
    ("hosting", ["setting things up", "welcoming people", "getting things started", "keeping things going", "thanking everyone", "tidying up"]),
]


def t_decompose(P, body, rng, schema):
    me = P.self_name
    defs = schema.get("$defs", {})
    arr = resolve(schema.get("properties", {}).get("steps", {}), defs)
    mn, mx = int(arr.get("minItems", 2)), int(arr.get("maxItems", 6))
    objs = [o for o in schema_enum(schema, "steps", "[]", "object") if o]
    # the sentence that names the span to break down
    tot, act = 60, "keeping busy"
    for ln in P.lines:
        m = re.search(r"\((\d+)\s*min(?:ute)?s?\)\s*" + re.escape(me) + r" is (.+?)(?:, at |\.$)", ln)
        if m:
            tot, act = int(m.group(1)), m.group(2)
            break
    fm = re.search(r"first (\d+) minutes", P.text)
    if fm:
        tot = min(tot, int(fm.group(1)))
    a = act.lower()
    cands = None
    for k, steps in STEPS:
        if k in a:
            cands = list(steps)
            break
    if cands is None:
        core = re.sub(r"^(\w+ing)\b", r"\1", act)
        obj_words = [o for o in objs]
        cands = ["getting ready for " + core[:50], core[:60], "carrying on " + core[:50],
                 "taking a short break", core[:50] + " again", "tidying up afterwards"]
        if obj_words:
            cands.insert(1, "using the %s" % obj_words[0])
    n = max(mn, min(mx, round(tot / 10) or mn))
    n = max(mn, min(n, mx))
    while len(cands) < n:
        cands = cands + [c + " again" for c in cands]
    steps = cands[:n]
    # durations
    base = [5] * n
    rem = tot - 5 * n
    i = 0
    while rem >= 5 and any(b < 15 for b in base):
        if base[i % n] < 15:
            base[i % n] += 5
            rem -= 5
        i += 1
    out = []
    for st, d in zip(steps, base):
        obj = ""
        for o in objs:
            if o.lower() in st.lower() or o.lower() in a and rng.random() < 0.3:
                obj = o
                break
        if not obj and objs:
            if re.search(r"sit|read|radio|tea|relax", st) and any(o in ("armchair", "chair", "sofa", "bench") for o in objs):
                obj = next(o for o in objs if o in ("armchair", "chair", "sofa", "bench"))
            elif re.search(r"bed|sleep", st) and "bed" in objs:
                obj = "bed"
        if obj and rng.random() < 0.15:
            obj = ""
        state = ("in use" if obj not in ("bed",) else "occupied") if obj else ""
        out.append({"activity": st[:80], "duration_minutes": d, "object": obj, "object_state": state})
    return {"steps": out}


def t_replan(P, body, rng, schema):
    me = P.self_name
    starts = schema_enum(schema, "new_blocks", "[]", "start")
    places = schema_enum(schema, "new_blocks", "[]", "address")
    reason = ""
    for ln in P.lines:
        if re.search(r"\bchang|\binterrupt|\bplans?\b", ln, re.I) and ":" in ln and not ln.strip().startswith("-") \
                and re.search(r"\b(it is|now)\b", ln, re.I) is None or re.search(r"changed .*plans?:", ln):
            if re.search(r"plans?\s*:", ln):
                reason = ln.split(":", 1)[1] if re.search(r"plans?:", ln) is None else re.split(r"plans?:", ln, 1)[1]
                break
    parts = [p.strip() for p in reason.split(";") if p.strip()]
    new_act = parts[-1] if parts else "dealing with what came up"
    if len(new_act) > 100:
        new_act = new_act[:100]
    addr = match_place(reason, places) or ""
    sched = P.schedule()
    cur = None
    st0 = parse_tok(starts[0])[0] if starts else (P.now_min or 0)
    for d, s, e, act, ad in sched:
        if d == P.now_date and s <= st0 < (e if e > s else e + 1440):
            cur = (s, e, act, ad)
    if not addr:
        addr = cur[3] if cur and cur[3] in places else (places[0] if places else "")
    blocks = [{"start": starts[0] if starts else hhmm(st0), "activity": new_act, "emoji": emoji_for(new_act), "address": addr}]
    nxt = st0 + 30
    later = [s for s in starts if parse_tok(s)[0] >= nxt]
    if later:
        back = None
        for d, s, e, act, ad in sched:
            if d == P.now_date and s <= parse_tok(later[0])[0] < (e if e > s else e + 1440) and "sleep" not in act:
                back = (act, ad)
        if back is None and cur:
            back = (cur[2], cur[3])
        if back:
            blocks.append({"start": later[0], "activity": back[0] or "carrying on", "emoji": emoji_for(back[0]),
                           "address": back[1] if back[1] in places else addr})
    return {"new_blocks": blocks}


# ---------------------------------------------------------------------------------------------
# schema conformance (what guided decoding guarantees) and a generic filler
def generic(schema, defs, rng, P, key=""):
    s = resolve(schema, defs)
    if "enum" in s:
        return s["enum"][0] if s["enum"] else ""
    t = s.get("type")
    if isinstance(t, list):
        t = [x for x in t if x != "null"][0] if t else "string"
    if t == "object":
        return {k: generic(v, defs, rng, P, k) for k, v in (s.get("properties") or {}).items()
                if k in (s.get("required") or []) or rng.random() < 0.7}
    if t == "array":
        n = max(int(s.get("minItems", 1)), 1)
        return [generic(s.get("items", {}), defs, rng, P, key) for _ in range(n)]
    if t == "integer":
        lo, hi = s.get("minimum", 1), s.get("maximum", 10)
        return int((lo + hi) // 2)
    if t == "number":
        return float(s.get("minimum", 0))
    if t == "boolean":
        return True if key == "ok" else False
    return "%s is going about their day." % P.self_name


def conform(v, schema, defs, rng, P, key=""):
    s = resolve(schema, defs)
    if "enum" in s and s["enum"]:
        en = s["enum"]
        if v in en:
            return v
        if isinstance(v, str) and en and all(isinstance(e, str) for e in en):
            sv = set(words(v))
            best = max(en, key=lambda e: (len(sv & set(words(e))), -en.index(e)))
            return best
        return en[0]
    t = s.get("type")
    if isinstance(t, list):
        t = [x for x in t if x != "null"][0] if t else "string"
    if t == "object":
        props = s.get("properties") or {}
        if not isinstance(v, dict):
            v = {}
        out = {}
        for k, ps in props.items():
            if k in v:
                out[k] = conform(v[k], ps, defs, rng, P, k)
            elif k in (s.get("required") or []):
                out[k] = conform(generic(ps, defs, rng, P, k), ps, defs, rng, P, k)
        return out
    if t == "array":
        if not isinstance(v, list):
            v = []
        it = s.get("items", {})
        mx = s.get("maxItems")
        mn = s.get("minItems", 0)
        v = v[:mx] if mx is not None else v
        while len(v) < mn:
            v.append(v[-1] if v else generic(it, defs, rng, P, key))
        return [conform(x, it, defs, rng, P, key) for x in v]
    if t == "integer":
        try:
            x = int(v)
        except (TypeError, ValueError):
            x = int(s.get("minimum", 0))
        if "minimum" in s:
            x = max(x, int(s["minimum"]))
        if "maximum" in s:
            x = min(x, int(s["maximum"]))
        return x
    if t == "number":
        try:
            return float(v)
        except (TypeError, ValueError):
            return 0.0
    if t == "boolean":
        return bool(v)
    if t == "string" or t is None:
        x = "" if v is None else str(v)
        pat = s.get("pattern")
        if pat:
            try:
                if not re.search(pat, x):
                    x = "" if re.search(pat, "") else "12:00" if re.search(pat, "12:00") else x
            except re.error:
                pass
        mx = s.get("maxLength")
        if mx is not None and len(x) > mx:
            x = x[:mx].rstrip()
            if len(x) > mx:
                x = x[:mx]
        mn = s.get("minLength", 0)
        if len(x) < mn:
            x = (x + " " + P.self_name)[:max(mn, len(x) + 1)] if mn else x
            while len(x) < mn:
                x += "."
        return x
    return v


_STRICT = False

TASKS = [
    (lambda p: "ok" in p and len(p) == 1, None),
    (lambda p: "utterance" in p, "group_turn"),
    (lambda p: "talk" in p and "lines" in p, "gist"),
    (lambda p: "plan_activity" in p, "memo"),
    (lambda p: "ratings" in p, "importance_batch"),
    (lambda p: "importance" in p and len(p) == 1, "importance"),
    (lambda p: "answer" in p, "interview"),
    (lambda p: "currently" in p, "revise"),
    (lambda p: "choice" in p, "react"),
    (lambda p: "questions" in p, "questions"),
    (lambda p: "insights" in p, "insights"),
    (lambda p: "blocks" in p, "daily_plan"),
    (lambda p: "new_blocks" in p, "replan"),
    (lambda p: "steps" in p, "decompose"),
    (lambda p: "summary" in p, "relationship"),
]
FUN = {"group_turn": t_group_turn, "gist": t_gist, "memo": t_memo, "importance_batch": t_importance_batch,
       "importance": t_importance, "interview": t_interview, "revise": t_revise, "react": t_react,
       "questions": t_questions, "insights": t_insights, "daily_plan": t_daily_plan, "replan": t_replan,
       "decompose": t_decompose, "relationship": t_relationship}


def respond(body: dict, seed: int) -> str:
    """The assistant message content this model returns for a chat request `body` (as captured)."""
    msgs = body.get("messages") or []
    h = hashlib.sha256((json.dumps(msgs, sort_keys=True, ensure_ascii=False) + "|" + str(seed)).encode("utf-8")).hexdigest()
    rng = random.Random(int(h[:16], 16))
    P = Prompt(body)
    schema = P.schema(body)
    if not schema:
        return t_converse_plain(P, body, rng)
    defs = schema.get("$defs", {})
    props = resolve(schema, defs).get("properties") or {}
    task = "generic"
    for test, name in TASKS:
        if test(props):
            task = name or "probe"
            break
    try:
        if task == "probe":
            val = {"ok": True}
        elif task in FUN:
            val = FUN[task](P, body, rng, schema)
        else:
            val = generic(schema, defs, rng, P)
    except Exception:  # a real model never crashes: fall back to a generic schema-shaped answer
        if _STRICT:
            raise
        val = generic(schema, defs, rng, P)
    val = conform(val, schema, defs, rng, P)
    out = json.dumps(val, ensure_ascii=False)
    mt = int(body.get("max_tokens") or 1000)
    if task != "probe" and rng.random() < 0.03:
        cut = int(len(out) * (0.3 + 0.6 * rng.random()))
        return out[:max(1, cut)]
    lim = int(mt * 3.5)
    if len(out) > lim:
        return out[:lim]
    return out
