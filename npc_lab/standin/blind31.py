"""blind31: a blind, prompt-only stand-in for a small hosted chat model.

MODEL IMITATED
  A hosted small commercial model of the GPT-4o-mini / Gemini Flash / Claude Haiku class, called
  through an OpenAI-compatible chat-completions API at temperature ~1 with strict structured
  outputs. Under a json_schema response_format its JSON always parses and keeps the schema's
  types, required keys and enums; it does NOT reliably honour maxLength / minItems / maxItems /
  minimum / maximum / pattern (OpenAI strict mode ignores most of them), so those are broken at
  the declared "soft" rates below. Plain-text requests are unconstrained.
  Written only from captured request bodies (four runs of one ten-person town); it reads meaning:
  people by "Name:" lines, the system line and schema enums; places by schema enums or
  "A:B:C" address text; times in any style ("15:00", "3 pm", "3:00 PM", "3 in the afternoon",
  "noon", "at night"); days as dates, weekdays, "today"/"tomorrow". It never looks for a named
  person, place or event of the captures.

  respond(body, seed) -> str   deterministic per (messages, seed); never raises; fast.

KINDS (recognised by the schema's property names, not its title; no schema -> plain text turn)
  probe, importance, importance batch, revise "currently", daily plan, decompose, react, replan,
  relationship, reflection questions, reflection insights, interview, conversation turn
  (plain text with [end]/[continue] tag), group turn (JSON), conversation memo (one side),
  conversation summary (two people, out of view), group summary (3+ people, out of view).

DECISION RULES AND RATES (declared before any run; a "roll" is one draw per request)
  Output damage (all JSON kinds except probe):
    D1 truncated JSON (cut at 40-90% of its text)          p = 0.008
    D2 wrapped in a ```json fence                           p = 0.006
    D3 refusal prose ("I'm sorry, but I can't help...")    p = 0.002
  Soft-limit breaks (JSON stays type/enum valid):
    S1 importance batch: one rating too many or too few     p = 0.04
    S2 daily plan outline with 9 items (maxItems 8)         p = 0.03
    S3 decompose: a step of 20 minutes (max 15)             p = 0.03
    S4 memo plan_start written "3:00 PM" (pattern)          p = 0.02 of memos with a plan
    S5 reflection questions: one question too many          p = 0.02
  Plain-text conversation turn damage:
    T1 speaker's name before the words ("Ann Lee: ...")    p = 0.05
    T2 words wrapped in double quotes                       p = 0.05
    T3 tag missing                                          p = 0.04
    T4 tag on the same line as the words                    p = 0.03
    T5 meta refusal / out-of-character line                 p = 0.005
    (an "*action*" stage direction is added at p = 0.04; not damage)

  News telling (conversation turn, group turn; the speaker has news on their mind that has not
  come up in the transcript yet, judged by the event's content words in the transcript):
    N1 brings it up on the speaker's first line            p = 0.80
    N2 brings it up on a later line (each line)            p = 0.60
    N3 when mentioned: says the time                       p = 0.88; says the place p = 0.82
    N4 hosts add an explicit invitation                    p = 0.90
    N5 a non-host teller turns news into "you should come" p = 0.25 (misread as an invitation)
    N6 teller who said they'd go adds "I'm going myself"   p = 0.50
    Out of view (one request writes the gist): each person with news brings it up p = 0.85.
    An event that has already ended (today, end < now) is mentioned only at p = 0.2.
  Going (listener hears of an event; same rule for turns, gists and interview tone):
    G0 base p(yes): invited by the host 0.55; news passed on 0.40
    G1 +0.15 fond / friend / easy terms / gets on well with the teller (relationship text);
       -0.15 hardly spoken / dislike / quarrel / feud / cannot stand (relationship or identity)
    G2 +0.10 sociable-type traits; -0.10 solitary-type traits (trait word lists)
    G3 +0.10 the event's content words overlap the listener's Currently / Identity
    G4 plan holds a real commitment at that time (calling on / meeting / another event / with
       a named person) -> p x 0.35 and a decline names it
    G5 plan holds sleep at that time -> p x 0.6; plan holds work -> treated as a clash at
       p = 0.20 (misread of "ordinary activities are no clash")
    G6 plan already holds going to it -> "already going" p = 0.9
    G7 of the non-yes answers, 45% are a "maybe / I'll keep it in mind", the rest a no
    clamp p(yes) to [0.05, 0.90]
  Conversation ending (turns): p(end) = 0.10 + 0.15 x (lines so far), cap 0.85; x 0.3 while the
    speaker still holds unmentioned news; 0.9 when the prompt says the speaker must leave now;
    0.85 after the other said goodbye. Gists: 2-6 lines.
    Out of view: talk = true p = 0.92 if someone has news, else 0.55.
  Memos (conversation memo, summary memos, group memos):
    M1 said yes (own lines) -> plan item p = 0.88; said maybe -> 0.30; told but silent -> 0.12;
       declined -> 0.03; host of the event -> 0.15 (adds "hosting" again)
    M2 plan date wrong by one day p = 0.06; place left "" p = 0.10; minutes default 60 when the
       end is unknown
    M3 importance: event talked of 5-7 (host 6-8), small talk 2-3
    M4 out-of-view memos swapped between first and second p = 0.02; a group memo dropped p = 0.04
  Daily plan: event known for today that the person hosts -> block p = 0.95; said they would go
    (memory/status/plan) -> 0.80; said might -> 0.40; only heard -> 0.30. Has news to pass on ->
    a "telling people" block at a listed place p = 0.50. Event time read 12 h off p = 0.03.
    Wake hour from Lifestyle (fallback 7); work block from Lifestyle hours.
  Replan: has news + a listed place/time inside the window -> go there p = 0.55; else keep plan.
  React: "react" p = 0.08 base; 0.30 if the observed person is one the NPC has news for
    (news in the prompt) ; 0.20 if someone is calling on / knocking for the NPC.
  Interview: memory mentions the asked thing -> says what it knows (time/place if in memory);
    says "no" anyway p = 0.07; no memory -> "haven't heard" (hallucinates vague yes p = 0.05).
  Revise currently: keeps the old first sentence; adds a held event p = 0.95; an event it said it
    would go to p = 0.80; one merely heard p = 0.45.
  Importance: mundane observations 1-3; chat 2-4; news/events/invitations 5-8; +/-1 jitter.
  Decompose: 2-6 steps of 5-15 min summing to the block (capped at 6x15); object from enum.

FIXES AFTER THE FIRST CHECK RUN (crashes / invalid output only)
  F1 (after check run 1) decompose: the step count now follows the schema's minItems/maxItems and
     a "first N minutes" fill window (a reworded template asks for 8-12 steps); before, 2-6 steps
     were always written, breaking minItems on 442 answers.
  F2 (after check run 2, reading outputs) daily plan: work block was put at home (place matching
     counted the town name and the person's surname); a night worker got no dinner (meal now
     placed before a late work start). Memos: an event line without a clock time was missed, and
     "I want to teach X" gave a garbled "what"; details now merge across the event lines; a host
     whose event another brought up no longer writes "I told them".
"""

import hashlib
import json
import random
import re

# ---------------------------------------------------------------- text helpers

STOP = set("""a an the and or but of to in on at for from with by about into over after before
his her their its them they he she it is are was were be been being this that these those there
here what when where who whom which will would can could should may might must do does did done
have has had having not no yes you your our we us i me my mine so as if then than too very just
also up down out off again today tomorrow tonight morning afternoon evening night pm am people
wants want teach hold host holding hosting going give run lesson event""".split())
# note: 'lesson'/'event' are kept out of keyword matching only when alone; see ev_keywords()

SOCIABLE = ("sociable", "cheerful", "gossip", "friendly", "warm", "outgoing", "curious", "earnest",
            "chatty", "lively", "motherly", "kind", "generous", "playful", "talkative", "eager")
SOLITARY = ("solitary", "taciturn", "proud", "shy", "reserved", "gruff", "aloof", "lonely",
            "withdrawn", "grumpy", "stubborn", "cold")
GOOD_REL = ("fond", "friend", "warmly", "easy terms", "gets on well", "close", "likes", "married",
            "sister", "brother", "trust")
BAD_REL = ("hardly spoken", "dislike", "quarrel", "feud", "cannot stand", "can't stand", "resent",
           "tiresome", "annoy", "rival", "avoid")

YES_RE = re.compile(r"(i'll be there|i will be there|count me in|i'll come|i will come|i'll go|"
                    r"i will go|i'll join|i'd love to (come|go|join)|i'd like to (come|go)|"
                    r"i'm going|i am going|i'm coming|planning to go|see you there|i think i'll go|"
                    r"wouldn't miss it|i'll drop by|i'll be going|yes, i'll|sign me up|i'm in\b)", re.I)
MAYBE_RE = re.compile(r"(might|maybe|perhaps|keep it in mind|if i can|i'll see|we'll see|"
                      r"i'll try)", re.I)
NO_RE = re.compile(r"(can't make|cannot make|can't come|won't be able|not able to|i'm afraid i|"
                   r"have to pass|not for me|not really my|i'll pass|sorry, i can't|clashes)", re.I)
BYE_RE = re.compile(r"(bye|see you|take care|must be off|better get on|better go|should get going|"
                    r"good talking|goodnight|good night|farewell|catch you later)", re.I)
INVITE_RE = re.compile(r"(would you like to come|hope you can come|do come|come along|join us|"
                       r"you should come|you should go|you're welcome to|glad to see you there|"
                       r"love to see you|hope to see you|will you come|can you come|you must come)",
                       re.I)
HOST_CUE_RE = re.compile(r"\b(i'm holding|i am holding|i'm hosting|i am hosting|i'm running|"
                         r"i'm teaching|i'm giving|i want to teach|i'm putting on|my own)\b", re.I)
EVENT_CUE_RE = re.compile(r"(heard|news|there's|there is|holding|hosting|event|going on|"
                          r"putting on|teach|invite|come along|join)", re.I)

DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december"]

NAME_PAT = r"[A-Z][a-zA-Z'\-]+(?: [A-Z][a-zA-Z'\-]+){1,2}"

TOK = (r"(?:noon|midday|midnight|\d{1,2}(?::\d{2})?(?:\s*(?:am|pm|a\.m\.|p\.m\.|AM|PM))?"
       r"(?:\s+(?:in the morning|in the afternoon|in the evening|at night|o'clock))?)")
TOK_RE = re.compile(r"\b" + TOK + r"(?![\d:])")
RANGE_RE = re.compile(r"\b(" + TOK + r")\s*(?:-|–|to|until|till)\s*(" + TOK + r")(?![\d:])")
LEAD_RANGE_RE = re.compile(r"^\s*(" + TOK + r")\s*(?:-|–|to|until|till)\s*(" + TOK + r")(?![\d:])\s*")
ISO_RE = re.compile(r"(\d{4}-\d{2}-\d{2}) \(([^)]*)\)")


def _suffix(tok):
    t = tok.lower()
    for s, v in (("a.m.", "am"), ("p.m.", "pm"), ("am", "am"), ("pm", "pm"),
                 ("in the morning", "morning"), ("in the afternoon", "pm"),
                 ("in the evening", "pm"), ("at night", "night")):
        if s in t:
            return v
    return ""


def tok_minutes(tok, borrow=""):
    """time token -> minutes after midnight, or None"""
    t = tok.strip().lower()
    if t.startswith("noon") or t.startswith("midday"):
        return 12 * 60
    if t.startswith("midnight"):
        return 0
    m = re.match(r"(\d{1,2})(?::(\d{2}))?", t)
    if not m:
        return None
    h = int(m.group(1))
    mi = int(m.group(2) or 0)
    suf = _suffix(t) or borrow
    if h > 23 or mi > 59:
        return None
    if suf in ("am", "morning"):
        if h == 12:
            h = 0
    elif suf == "pm":
        if h < 12:
            h += 12
    elif suf == "night":
        if h == 12:
            h = 0
        elif h >= 6:
            h += 12 if h < 12 else 0
    elif not m.group(2):
        # bare hour without any clue: guess daytime
        if 1 <= h <= 6:
            h += 12
    return h * 60 + mi


def range_minutes(a, b):
    sa, sb = _suffix(a), _suffix(b)
    if not sa and sb and ":" not in a:
        ea = tok_minutes(a, sb)
        eb = tok_minutes(b)
        if ea is not None and eb is not None and ea > eb and sb in ("pm", "night"):
            ea = tok_minutes(a, "am")
        return ea, eb
    return tok_minutes(a), tok_minutes(b)


def hhmm(m):
    m = int(m) % 1440
    return "%02d:%02d" % (m // 60, m % 60)


def say_time(m):
    m = int(m) % 1440
    h, mi = divmod(m, 60)
    if m == 720:
        return "noon"
    if m == 0:
        return "midnight"
    suf = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return ("%d %s" % (h12, suf)) if mi == 0 else ("%d:%02d %s" % (h12, mi, suf))


def first_name(n):
    return (n or "").split(" ")[0]


def words(s):
    return [w for w in re.findall(r"[a-z][a-z'\-]+", (s or "").lower())]


def content_words(s):
    return [w for w in words(s) if len(w) > 3 and w not in STOP]


def clip(s, n):
    s = s or ""
    if len(s) <= n:
        return s
    cut = s[:n - 1]
    if " " in cut[-20:]:
        cut = cut[:cut.rfind(" ")]
    return cut.rstrip(",;: ") + "."


# ---------------------------------------------------------------- prompt reading

class Ctx:
    pass


def first_person_status(status, name):
    s = (status or "").split(". ")[0].strip().rstrip(".")
    if not s:
        return ""
    fn = first_name(name)
    for pre in (name + " is ", fn + " is "):
        if s.startswith(pre):
            return "I'm " + s[len(pre):]
    for pre in (name + " ", fn + " "):
        if s.startswith(pre):
            rest = s[len(pre):]
            parts = rest.split(" ", 1)
            if parts and parts[0].endswith("s") and len(parts) > 1:
                return "I " + parts[0][:-1] + " " + parts[1]
            return "I " + rest
    return s


def parse_people(text):
    """Name: blocks -> dict name -> {traits, identity, lifestyle, currently}"""
    people = {}
    cur = None
    for line in text.split("\n"):
        m = re.match(r"^\s*Name:\s*(.+?)\s*$", line)
        if m:
            cur = m.group(1)
            people.setdefault(cur, {"traits": "", "identity": "", "lifestyle": "", "currently": ""})
            continue
        if cur is None:
            continue
        m = re.match(r"^\s*(Innate traits|Traits|Identity|Lifestyle|Currently)\s*:\s*(.*)$", line, re.I)
        if m:
            key = m.group(1).lower().split()[-1]
            people[cur][key] = m.group(2)
    return people


def parse_transcript(text, known):
    out = []
    for line in text.split("\n"):
        m = re.match(r'^\s*(' + NAME_PAT + r'):\s*"(.*)"\s*$', line)
        if m and (not known or m.group(1) in known):
            out.append((m.group(1), m.group(2)))
    return out


HEAD_PLAN = ("plan", "schedule")
HEAD_MEM = ("remember", "memor")
HEAD_PLACE = ("place", "knows")


def parse_sections(text, persona, names):
    """generic heading + bullet sections. returns list of (kind, owner, heading, items)"""
    secs = []
    cur = None
    for raw in text.split("\n"):
        line = raw.strip()
        if not line:
            continue
        is_bullet = line.startswith("- ") or re.match(r"^\d+\.\s", line)
        if is_bullet:
            if cur is not None:
                cur[3].append(re.sub(r"^(- |\d+\.\s)", "", line))
            continue
        low = line.lower().lstrip("#").strip()
        inline = None
        if line.startswith("#") or line.endswith(":") or (line.isupper() and len(line) < 120):
            head = low
        elif ":" in line and len(line.split(":", 1)[0]) < 60 and "knows" in line.split(":", 1)[0].lower():
            head = line.split(":", 1)[0].lower()
            inline = [p.strip() for p in line.split(":", 1)[1].split(", ") if p.strip()]
        else:
            cur = None
            continue
        kind = None
        if any(k in head for k in HEAD_MEM):
            kind = "mem"
        elif any(k in head for k in HEAD_PLAN) and "last day" not in head:
            kind = "plan"
        elif any(k in head for k in HEAD_PLACE):
            kind = "places"
        owner = persona
        for n in names:
            if n.lower() in head:
                owner = n
                break
        cur = [kind, owner, head, []]
        secs.append(cur)
        if inline is not None:
            cur[3].extend(inline)
            cur = None
    return secs


def parse_sched_item(s):
    """'14:00-14:30 doing x (planned at A:B:C) on Wednesday ...' -> dict or None"""
    m = LEAD_RANGE_RE.match(s)
    if not m:
        return None
    a, b = range_minutes(m.group(1), m.group(2))
    if a is None or b is None:
        return None
    rest = s[m.end():]
    place = ""
    pm = re.search(r"\((?:planned at\s+)?([^()]*:[^()]*)\)", rest)
    if pm:
        place = pm.group(1).strip()
    act = rest.split(" (")[0].strip()
    other_day = bool(re.search(r"\)\s+on\s+\w", rest))
    if b <= a:
        b += 1440
    return {"start": a, "end": b, "act": act, "place": place, "other_day": other_day}


class Event:
    def __init__(self):
        self.what = ""
        self.holder = ""
        self.start = None
        self.end = None
        self.date = ""
        self.rel = ""
        self.place = ""
        self.place_words = ""
        self.keys = []
        self.text = ""
        self.hosting = False
        self.said_go = False
        self.said_might = False


def ev_keywords(what, text, names):
    nm = set(w for n in names for w in words(n))
    ks = [w for w in content_words(what) if w not in nm]
    if not ks:
        ks = [w for w in words(what) if len(w) > 3 and w not in nm]
    return ks[:4]


class Prompt:
    def __init__(self, body):
        msgs = body.get("messages") or []
        self.system = ""
        self.user = ""
        for m in msgs:
            c = m.get("content")
            if isinstance(c, list):
                c = " ".join(p.get("text", "") for p in c if isinstance(p, dict))
            c = c or ""
            if m.get("role") == "system":
                self.system += c + "\n"
            else:
                self.user += c + "\n"
        rf = body.get("response_format") or {}
        js = rf.get("json_schema") or {}
        self.schema = js.get("schema") or {}
        self.sname = (js.get("name") or "").lower()
        self.defs = self.schema.get("$defs") or self.schema.get("definitions") or {}
        self.props = self.schema.get("properties") or {}
        self.text = self.user
        m = re.search(r"inner mind of (.+?),", self.system)
        self.persona = m.group(1).strip() if m else ""
        self.people = parse_people(self.user)
        if not self.persona and self.people:
            self.persona = list(self.people)[0]
        names = set(self.people)
        for e in self.all_enums("speaker") + self.all_enums("name") + self.all_enums("addressed_to"):
            if e and e != "everyone":
                names.add(e)
        if self.persona:
            names.add(self.persona)
        for pat in (r"talking with ([^\n.]*)", r"sees ([^\n.]*?)(?::|, who|\.|$)", r"conversation with ([^\n:]*)",
                    r"(?:^|\n)How [^\n]*? sees ([^\n:]*)"):
            for m in re.finditer(pat, self.user):
                for n in re.findall(NAME_PAT, m.group(1)):
                    names.add(n)
        for m in re.finditer(r"(?m)^\s*(" + NAME_PAT + r'):\s*"', self.user):
            names.add(m.group(1))
        for m in re.finditer(r"(" + NAME_PAT + r") (?:told|heard from) (" + NAME_PAT + r")", self.user):
            names.add(m.group(1))
            names.add(m.group(2))
        self.names = sorted(names, key=len, reverse=True)
        self.places = self.all_enums("address") or self.all_enums("plan_place")
        self.places = [p for p in self.places if p]
        if not self.places:
            self.places = sorted(set(re.findall(r"(?<![\w])[A-Z][\w'\-]*(?: [\w'\-]+)*:[A-Za-z][\w'\-]*(?: [\w'\-]+)*"
                                                r":[A-Za-z][\w'\-]*(?: [\w'\-]+)*", self.user)))
        self.dates = {}
        self.today = ""
        for d, lab in ISO_RE.findall(self.user):
            self.dates[d] = lab.lower()
            if "today" in lab.lower() and not self.today:
                self.today = d
        for e in self.all_enums("plan_date"):
            if e and e not in self.dates:
                self.dates[e] = ""
        if not self.today:
            self._synth_dates()
        self.now = None
        m = re.search(r"(?:It is|Today is|Now:|Time:)\s+([^\n]*)", self.user)
        if m:
            mm = TOK_RE.findall(re.sub(r"\b(19|20)\d\d\b", "", m.group(1)))
            for t in mm:
                if re.search(r"\d:\d|am|pm|noon|midnight|morning|afternoon|evening|night", t, re.I):
                    self.now = tok_minutes(t)
                    break
        self._secs = None

    def _synth_dates(self):
        """no ISO date list in the prompt: build one from the 'It is / Today is' line"""
        m = re.search(r"(?:It is|Today is)\s+([^\n]*)", self.user)
        if not m:
            return
        s = m.group(1).lower()
        wd = next((i for i, d in enumerate(DAYS) if d in s), None)
        mo = next((i for i, mn in enumerate(MONTHS) if re.search(r"\b" + mn[:3], s)), None)
        dm = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\b(?!:)", re.sub(r"\d{1,2}:\d{2}", "", s))
        y = re.search(r"\b(19|20)\d\d\b", s)
        if mo is None or not dm:
            return
        import datetime
        try:
            d0 = datetime.date(int(y.group(0)) if y else 2001, mo + 1, int(dm.group(1)))
        except ValueError:
            return
        base = {}
        for k in range(-1, 15):
            d = d0 + datetime.timedelta(days=k)
            w = DAYS[(wd + k) % 7] if wd is not None else DAYS[d.weekday()]
            lab = ("today, " if k == 0 else ("tomorrow, " if k == 1 else "")) + w
            base[d.isoformat()] = lab
        base.update(self.dates)
        self.dates = base
        self.today = d0.isoformat()

    def all_enums(self, key):
        out = []

        def walk(o):
            if isinstance(o, dict):
                for k, v in o.items():
                    if k == key and isinstance(v, dict) and "enum" in v:
                        out.extend(v["enum"])
                    elif k == key and isinstance(v, dict) and "anyOf" in v:
                        walk(v)
                    walk(v) if isinstance(v, (dict, list)) else None
            elif isinstance(o, list):
                for x in o:
                    walk(x)
        walk(self.schema)
        seen = []
        for x in out:
            if x not in seen:
                seen.append(x)
        return seen

    def sections(self):
        if self._secs is None:
            self._secs = parse_sections(self.user, self.persona, self.names)
        return self._secs

    def items(self, kind, owner):
        out = []
        for k, o, h, its in self.sections():
            if k == kind and o == owner:
                out.extend(its)
        return out

    def schedule(self, owner):
        out = []
        for s in self.items("plan", owner):
            it = parse_sched_item(s)
            if it:
                out.append(it)
        return out

    def memories(self, owner):
        return self.items("mem", owner)

    def person_places(self, owner):
        ps = self.items("places", owner)
        ps = [p for p in ps if p.count(":") >= 1]
        return ps or self.places

    # ---- news
    def news_for(self, who):
        """the news text a person has on their mind (or '')"""
        for line in self.user.split("\n"):
            l = line.strip().lstrip("- ").strip()
            for m in re.finditer(re.escape(who) + r" has news (?:on (?:their|his|her) mind|to pass on)"
                                 r"([^:]*):\s*(.+)", l):
                tail = m.group(2)
                # cut off a following sentence that is about something else
                tail = re.split(r"\)\.\s+(?=[A-Z])|(?<=\))\.\s*Where people|\.\s+How ", tail)[0]
                return tail.strip(), ("hosting" in m.group(1) or "host" in m.group(1))
        return "", False

    def date_for_dom(self, dom):
        for d in self.dates:
            try:
                if int(d[-2:]) == dom:
                    return d
            except ValueError:
                pass
        return ""

    def date_rel(self, rel):
        rel = rel.lower()
        for d, lab in self.dates.items():
            if rel in lab:
                return d
        return ""

    def shift_date(self, d, k):
        ds = sorted(self.dates)
        if d in ds:
            i = ds.index(d) + k
            if 0 <= i < len(ds):
                return ds[i]
        return d

    def match_place(self, text, places=None):
        places = places if places is not None else self.places
        if not text or not places:
            return ""
        tl = text.lower()
        best, bs = "", 0
        for p in places:
            parts = p.split(":")
            sc = 0
            if len(parts) >= 2 and parts[-2].lower() in tl:
                sc += 2
            if parts[-1].lower() in tl:
                sc += 3
            if sc > bs:
                best, bs = p, sc
        return best

    def parse_event(self, text, holder_hint=""):
        ev = Event()
        ev.text = text
        t = re.sub(r"^(" + NAME_PAT + r") told (" + NAME_PAT + r"):\s*", "", text.strip())
        t2 = t
        m = re.match(r"(" + NAME_PAT + r") heard from (" + NAME_PAT + r") about (.+)", t2)
        if m:
            ev.holder = ""
            whatp = m.group(3)
            whatp = re.split(r" (?:on|at|and said|\(|from)\b|\?|,", whatp)[0]
            ev.what = whatp.strip()
        else:
            m = re.search(r"(" + NAME_PAT + r")?\s*(?:wants to|is going to|plans to|will|is hosting|"
                          r"is holding|is organi[sz]ing|is throwing|is giving|is running|is teaching|"
                          r"is putting on|hosts|holds|invites everyone to)\s+(.+)", t2)
            if m:
                ev.holder = (m.group(1) or "").strip()
                whatp = m.group(2)
                whatp = re.split(r" (?:on|from|at the|in the|at|so that|for|to ask|\()\b|,|\.", whatp)[0]
                ev.what = whatp.strip()
            else:
                ev.what = re.split(r" (?:on|from|at|\()\b|,|\.", t2)[0].strip()[:60]
        ev.what = re.sub(r"^(teach|hold|host|give|run|throw|have|organi[sz]e|put on|make)\s+", "", ev.what)
        if not ev.what:
            ev.what = "the event"
        if not ev.holder and holder_hint:
            ev.holder = holder_hint
        # time
        rs = list(RANGE_RE.finditer(t))
        if rs:
            r = rs[-1]
            ev.start, ev.end = range_minutes(r.group(1), r.group(2))
        else:
            for tk in TOK_RE.findall(t):
                if re.search(r"\d:\d|am|pm|noon|midnight|morning|afternoon|evening|night", tk, re.I):
                    ev.start = tok_minutes(tk)
                    break
        if ev.start is not None and ev.end is not None and ev.end <= ev.start:
            ev.end += 1440
        # date
        low = t.lower()
        d = ""
        rel = re.findall(r"\b(today|tomorrow|tonight)\b", low)
        for mm in re.finditer(r"(?:(\d{1,2})(?:st|nd|rd|th)?(?: of)? (" + "|".join(m[:3] for m in MONTHS) +
                              r")[a-z]*|(" + "|".join(m[:3] for m in MONTHS) + r")[a-z]* (\d{1,2})\b)", low):
            dom = int(mm.group(1) or mm.group(4))
            d = self.date_for_dom(dom) or d
        if rel:
            r0 = rel[-1]
            ev.rel = "today" if r0 == "tonight" else r0
            if not d:
                d = self.date_rel(ev.rel)
        if not d:
            for i, dn in enumerate(DAYS):
                if re.search(r"\b" + dn + r"\b", low):
                    d = self.date_rel(dn)
                    if d:
                        break
        ev.date = d
        if d and not ev.rel:
            lab = self.dates.get(d, "")
            ev.rel = "today" if "today" in lab else ("tomorrow" if "tomorrow" in lab else "")
        ev.place = self.match_place(t)
        pm = re.search(r"\bat ([A-Z][\w' ]+(?: \([\w' ]+\))?)\)?\s*\)?\s*$", t.strip().rstrip(".)"))
        ev.place_words = ""
        if ev.place:
            parts = ev.place.split(":")
            ev.place_words = "the " + parts[-1] if len(parts) >= 1 else ""
            if len(parts) >= 2 and parts[-2].lower() not in ev.what.lower():
                ev.place_words += " at the " + parts[-2] if not parts[-2].lower().startswith("the ") else ""
        elif pm:
            ev.place_words = pm.group(1)
        ev.keys = ev_keywords(ev.what, t, self.names)
        ev.said_go = bool(re.search(r"said (they|he|she) would go|said (they|he|she)'d go|will go", low))
        ev.said_might = "might go" in low
        return ev

    def event_from_line(self, line, speaker):
        """an event mentioned in a spoken line (listener side)"""
        ev = self.parse_event(line)
        if HOST_CUE_RE.search(line) or re.search(r"\b(my|I'm|I am) (holding|hosting|having|giving|teaching|running)\b", line):
            ev.holder = speaker
        # what: after 'about', 'there's', 'holding'
        m = re.search(r"(?:about|there's|there is|holding|hosting|having|giving|teaching|running|putting on|"
                      r"want to teach|want to hold|want to host|to teach|to hold|to host)"
                      r"\s+((?:a|an|the|my)\s+[^,.?!]+?)(?=\s+(?:on|at|in|from|tomorrow|today|tonight|this|next)\b|[,.?!]|$)",
                      line, re.I)
        if m:
            ev.what = re.sub(r"^my ", "a ", m.group(1).strip())
            ev.keys = ev_keywords(ev.what, line, self.names)
        return ev


def line_mentions_event(line):
    l = line
    has_time = bool(re.search(r"\b\d{1,2}(:\d{2})?\s*(am|pm|AM|PM|in the|at night)|\b\d{1,2}:\d{2}\b|\bnoon\b", l))
    has_day = bool(re.search(r"\b(today|tomorrow|tonight|monday|tuesday|wednesday|thursday|friday|"
                             r"saturday|sunday)\b", l, re.I))
    cue = bool(EVENT_CUE_RE.search(l)) or bool(INVITE_RE.search(l))
    return ((has_time or has_day) and cue) or bool(INVITE_RE.search(l))


def mentioned(ev, transcript):
    if not transcript:
        return False
    keys = ev.keys or []
    for sp, tx in transcript:
        tl = tx.lower()
        if keys and sum(1 for k in keys if k in tl) >= max(1, min(2, len(keys)) - 1):
            return True
        if ev.start is not None and line_mentions_event(tx):
            for tk in TOK_RE.findall(tx):
                if re.search(r"\d:\d|am|pm|noon|morning|afternoon|evening|night", tk, re.I):
                    if tok_minutes(tk) == ev.start:
                        return True
                    break
    return False


# ---------------------------------------------------------------- person model

def rel_score(p, me, other):
    """relationship modifier from the text"""
    txt = ""
    for line in p.user.split("\n"):
        if other and other in line and (me in line or line.lower().startswith("how ")):
            if "sees" in line.lower() or "relationship" in line.lower() or "terms" in line.lower():
                txt += line.lower() + " "
    ident = (p.people.get(me, {}).get("identity", "") or "")
    for sent in re.split(r"(?<=[.;])\s+", ident):
        if other and (other in sent or first_name(other) in sent):
            txt += sent.lower() + " "
    # look at the part after the other's name in "How X sees ..." lines
    sc = 0.0
    seg = txt
    if other and other.lower() in txt:
        i = txt.find(other.lower())
        seg = txt[max(0, i - 90): i + 40]
    if any(w in seg for w in GOOD_REL):
        sc += 0.15
    if any(w in seg for w in BAD_REL):
        sc -= 0.15
    return sc


def trait_score(p, me):
    tr = (p.people.get(me, {}).get("traits", "") or "").lower()
    sc = 0.0
    if any(w in tr for w in SOCIABLE):
        sc += 0.10
    if any(w in tr for w in SOLITARY):
        sc -= 0.10
    return sc


REAL_COMMIT = re.compile(r"(calling on|meeting|appointment|visit|going to|hosting|with [A-Z]|lesson|party|"
                         r"class|gathering|dinner with|lunch with|event|match|service|concert)", re.I)
ORDINARY = re.compile(r"(work|shift|breakfast|lunch|dinner|relax|chore|clean|keeping|cook|tending|"
                      r"seeing people|telling people|reading|nap|rest|driving|open)", re.I)


def clash_at(sched, ev, same_day=True):
    """what the plan holds at the event's time: (kind, activity)"""
    if ev.start is None:
        return None, ""
    for it in sched:
        if it["other_day"] != (not same_day):
            continue
        s, e = it["start"], it["end"]
        st = ev.start
        if s <= st < e or s <= st + 1440 < e:
            a = it["act"]
            al = a.lower()
            if ev.keys and any(k in al for k in ev.keys):
                return "already", a
            if re.search(r"going to|hosting|attending", al) and (
                    s == st or any(w in al for w in content_words(ev.what + " " + ev.text + " " + ev.place))):
                return "already", a
            if "sleep" in al:
                return "sleep", a
            if REAL_COMMIT.search(a) and not re.search(r"seeing people|telling people", al):
                return "commit", a
            if ORDINARY.search(a):
                return "work" if re.search(r"work|shift|driving|keeping|tending|open", al) else "ordinary", a
            return "ordinary", a
    return None, ""


def decide_going(p, rng, me, ev, teller, invited):
    """returns ('yes'|'maybe'|'no'|'already', reason activity)"""
    sched = p.schedule(me)
    same_day = (ev.rel == "today") or (not ev.rel)
    kind, act = clash_at(sched, ev, same_day)
    if kind == "already" and rng.random() < 0.9:
        return "already", act
    pr = 0.55 if invited else 0.40
    pr += rel_score(p, me, teller)
    pr += trait_score(p, me)
    person = p.people.get(me, {})
    interest = set(content_words(person.get("currently", "") + " " + person.get("identity", "")))
    if interest & set(content_words(ev.what + " " + ev.text)):
        pr += 0.10
    reason = ""
    if kind == "commit":
        pr *= 0.35
        reason = act
    elif kind == "sleep":
        pr *= 0.6
        reason = act
    elif kind == "work" and rng.random() < 0.20:
        pr *= 0.3
        reason = act
    if ev.rel == "today" and ev.end is not None and p.now is not None and ev.end <= p.now:
        pr = 0.05
        reason = "it's over already"
    pr = max(0.05, min(0.90, pr))
    if rng.random() < pr:
        return "yes", ""
    return ("maybe" if rng.random() < 0.45 else "no"), reason


# ---------------------------------------------------------------- speech

GREET = ["Hi {fn}, good to see you.", "Hello, {fn}! How are you keeping?", "Morning, {fn}.",
         "Hey {fn}, how's your day going?", "{fn}! Nice to run into you.", "Afternoon, {fn}."]
SMALL_Q = ["How are things with you?", "How's work treating you?", "Busy day?",
           "What are you up to these days?", "Keeping warm, I hope?"]
SMALL_A = ["Can't complain. {status}.", "Not bad, thanks. {status}.", "Busy as ever. {status}.",
           "Oh, you know. {status}.", "Well enough. {status}."]
FILLER = ["That's good to hear.", "Well, that's life, isn't it?", "I know what you mean.",
          "Glad to hear it.", "Funny how the days go.", "Same here, more or less."]
BYE = ["Well, I'd better get on. See you, {fn}!", "Right, I must be off. Take care, {fn}.",
       "Good talking to you, {fn}. Bye for now!", "I should get going. See you around, {fn}.",
       "Anyway, back to it. See you later, {fn}."]


def when_phrase(ev, speaker_p):
    parts = []
    if ev.rel == "today":
        parts.append("today")
    elif ev.rel == "tomorrow":
        parts.append("tomorrow")
    elif ev.date:
        lab = speaker_p.dates.get(ev.date, "")
        wd = [d for d in DAYS if d in lab]
        parts.append("on " + wd[0].capitalize() if wd else "on the " + ev.date[-2:].lstrip("0"))
    if ev.start is not None:
        if ev.end is not None:
            parts.append("from %s to %s" % (say_time(ev.start), say_time(ev.end)))
        else:
            parts.append("at " + say_time(ev.start))
    return " ".join(parts)


def news_line(p, rng, me, ev, listener, first_line):
    fn = first_name(listener) if listener else ""
    what = ev.what
    if not re.match(r"(?i)^(a|an|the|my|some)\b", what):
        what = "the " + what if not what[:1].isupper() else what
    when = when_phrase(ev, p) if rng.random() < 0.88 else ""
    where = ("in " + ev.place_words if ev.place_words.startswith("the ") else ("at " + ev.place_words if ev.place_words else "")) \
        if rng.random() < 0.82 else ""
    tail = " ".join(x for x in (when, where) if x)
    tail = (" " + tail) if tail else ""
    opener = rng.choice(GREET).format(fn=fn) + " " if first_line and fn and rng.random() < 0.7 else ""
    if ev.hosting:
        s = rng.choice(["I'm holding %s%s." % (what, tail), "I'm putting on %s%s." % (what, tail),
                        "News! I'm running %s%s." % (what, tail)])
        if rng.random() < 0.90:
            s += " " + rng.choice(["Would you like to come?", "I'd be glad to see you there.",
                                   "Do come along if you can.", "I hope you can come%s." % (", " + fn if fn else "")])
        return opener + s
    holder = ev.holder if ev.holder and ev.holder != me else ""
    if holder:
        s = rng.choice(["Did you hear? %s is holding %s%s." % (first_name(holder), what, tail),
                        "%s is putting on %s%s, have you heard?" % (first_name(holder), what, tail),
                        "Have you heard about %s? %s's running it%s." % (what, first_name(holder), tail)])
    else:
        s = rng.choice(["Have you heard about %s? It's%s." % (what, tail or " soon"),
                        "Apparently there's %s%s." % (what, tail),
                        "I heard about %s%s." % (what, tail)])
    if ev.said_go and rng.random() < 0.5:
        s += " I'm going myself."
    if rng.random() < 0.25:
        s += " " + rng.choice(["You should come!", "You should go.", "Why don't you come along?"])
    return opener + s


def reply_to_event(p, rng, me, ev, teller, invited, host_is_me):
    if host_is_me:
        return rng.choice(["Yes, that's mine! I do hope you'll come.", "That's my own, in fact. Will you come?",
                           "Ha, I know, I'm the one holding it. Come along!"])
    d, why = decide_going(p, rng, me, ev, teller, invited)
    if d == "already":
        return rng.choice(["Yes, I heard about that too. I'm going.", "I know, I'm already planning to go.",
                           "Yes, it's in my plans already, I'll be there."])
    if d == "yes":
        return rng.choice(["Oh, that sounds good. I'll be there.", "Count me in, I wouldn't miss it.",
                           "Really? I think I'll go.", "I'd like that, I'll come along.",
                           "Thanks for telling me, I'll be there."])
    if d == "maybe":
        return rng.choice(["Interesting, I'll keep it in mind.", "I might drop by if I can.",
                           "Maybe, we'll see how the day goes.", "Hm, perhaps. I'll see."])
    if why and why != "it's over already":
        return rng.choice(["I'm afraid I can't make it, I'm %s then." % why,
                           "That clashes with %s, sorry." % why,
                           "Sorry, I won't be able to, I'll be %s." % why])
    if why:
        return "Oh, I think I've missed that one."
    return rng.choice(["Not really my thing, but thanks for telling me.", "I'll pass, I think. Thanks though.",
                       "Sorry, I can't come to that."])


def status_phrase(p, me):
    s = first_person_status(p.people.get(me, {}).get("currently", ""), me)
    return s or "Just keeping busy"


def reply_small(p, rng, me, last_line):
    if last_line and "?" in last_line:
        return rng.choice(SMALL_A).format(status=clip(status_phrase(p, me), 140))
    if rng.random() < 0.4:
        return rng.choice(FILLER) + " " + rng.choice(SMALL_Q)
    return rng.choice(FILLER)


def speaker_event(p, me):
    """(Event, is_host) the speaker has on their mind, or (None, False)"""
    txt, host = p.news_for(me)
    if not txt:
        return None, False
    ev = p.parse_event(txt)
    if host or (ev.holder and ev.holder == me):
        ev.hosting = True
    return ev, ev.hosting


def compose_turn(p, rng, me, others, transcript):
    """returns (utterance, end, addressed_to)"""
    ev, host = speaker_event(p, me)
    my_lines = [t for s, t in transcript if s == me]
    other_lines = [(s, t) for s, t in transcript if s != me]
    last = transcript[-1] if transcript else None
    target = last[0] if last and last[0] != me else (others[0] if others else "")
    fn = first_name(target)
    parts = []
    must_leave = bool(re.search(re.escape(me) + r" (has to go|must go|needs to go|must leave|has to leave)|"
                                r"last line|takes leave", p.user))
    news_pending = ev is not None and not mentioned(ev, transcript)
    if ev is not None and ev.rel == "today" and ev.end is not None and p.now is not None and ev.end <= p.now:
        news_pending = news_pending and rng.random() < 0.2
    # respond to the last line first
    responded = False
    if last and last[0] != me:
        lt = last[1]
        if line_mentions_event(lt) and not (ev is not None and mentioned(ev, [last]) and host):
            lev = p.event_from_line(lt, last[0])
            invited = bool(INVITE_RE.search(lt)) or lev.holder == last[0]
            i_host = host and ev is not None and mentioned(ev, [last])
            if YES_RE.search(lt) and not INVITE_RE.search(lt):
                # the other said they'd come: answer, not an invitation
                parts.append(rng.choice(["Wonderful, see you there!", "Lovely, I'm glad.", "Good, see you there then."])
                             if (host or i_host) else rng.choice(["Good to hear.", "Maybe I'll see you there then."]))
            else:
                parts.append(reply_to_event(p, rng, me, lev, last[0], invited, i_host))
            responded = True
        elif YES_RE.search(lt) and host:
            parts.append(rng.choice(["Wonderful, see you there!", "Lovely, I'm glad.", "Great, I'll save you a seat."]))
            responded = True
        elif BYE_RE.search(lt):
            parts.append(rng.choice(BYE).format(fn=fn))
            return " ".join(parts), rng.random() < 0.85, target
        elif not my_lines or "?" in lt or rng.random() < 0.6:
            parts.append(reply_small(p, rng, me, lt) if other_lines else "")
            responded = True
    told = False
    if news_pending:
        pr = 0.80 if not my_lines else 0.60
        if rng.random() < pr:
            parts.append(news_line(p, rng, me, ev, target, first_line=not transcript))
            told = True
    if not parts or all(not x for x in parts):
        if not transcript:
            parts = [rng.choice(GREET).format(fn=fn) + " " + rng.choice(SMALL_Q)]
        else:
            parts = [rng.choice(FILLER)]
    n = len(transcript)
    pend = min(0.85, 0.10 + 0.15 * n)
    if news_pending and not told:
        pend *= 0.3
    if told:
        pend *= 0.3
    if must_leave:
        pend = 0.9
    end = rng.random() < pend
    if end and not BYE_RE.search(" ".join(parts)):
        parts.append(rng.choice(BYE).format(fn=fn))
    return " ".join(x for x in parts if x), end, target


# ---------------------------------------------------------------- memos

def memo_for(p, rng, me, transcript, partners, ev_hint=None):
    """returns dict summary/importance/plan_*"""
    ev = None
    mention_by = ""
    for s, t in transcript:
        if line_mentions_event(t):
            e2 = p.event_from_line(t, s)
            if ev is None:
                ev, mention_by = e2, s
            else:
                if ev.start is None and e2.start is not None:
                    ev.start, ev.end = e2.start, e2.end
                if not ev.date and e2.date:
                    ev.date, ev.rel = e2.date, e2.rel
                if not ev.place and e2.place:
                    ev.place, ev.place_words = e2.place, e2.place_words
    my_ev, my_host = speaker_event(p, me)
    if ev is None and my_ev is not None and mentioned(my_ev, transcript):
        ev, mention_by = my_ev, me
    if ev is not None and my_ev is not None and mention_by == me:
        ev = my_ev
    elif ev is not None and ev_hint is not None and (ev.start is None or not ev.date):
        ev.start = ev.start if ev.start is not None else ev_hint.start
        ev.end = ev.end if ev.end is not None else ev_hint.end
        ev.date = ev.date or ev_hint.date
        ev.place = ev.place or ev_hint.place
    others = ", ".join(partners) if partners else "them"
    res = {"summary": "", "importance": 2, "plan_activity": "", "plan_date": "", "plan_start": "",
           "plan_minutes": 0, "plan_place": ""}
    if ev is None:
        topic = ""
        for s, t in transcript:
            if s != me and len(t) > 25:
                topic = t
                break
        res["summary"] = clip("I chatted with %s about everyday things%s; nothing was arranged." %
                              (others, (" (" + clip(topic, 90).rstrip(".") + ")") if topic and rng.random() < 0.5 else ""), 390)
        res["importance"] = rng.choice([2, 2, 3, 3, 1, 4])
        return res
    mine = " ".join(t for s, t in transcript if s == me)
    host = (mention_by == me and my_host) or bool(HOST_CUE_RE.search(mine))
    said_yes = bool(YES_RE.search(mine)) and not host
    said_no = bool(NO_RE.search(mine))
    said_maybe = bool(MAYBE_RE.search(mine)) and not said_yes
    when = when_phrase(ev, p)
    what = ev.what
    if host and mention_by != me:
        summ = "%s brought up %s, which I am holding %s; I asked them to come." % (first_name(mention_by), what, when)
        pr = 0.15
        res["importance"] = rng.randint(6, 8)
    elif host:
        summ = "I told %s about %s %s and asked them to come." % (others, what, when)
        pr = 0.15
        res["importance"] = rng.randint(6, 8)
    elif mention_by == me:
        summ = "I told %s about %s %s%s." % (others, what, when, (" in " + ev.place_words) if ev.place_words else "")
        pr = 0.88 if said_yes else (0.30 if said_maybe else 0.05)
        res["importance"] = rng.randint(4, 6)
    else:
        summ = "%s told me about %s %s%s" % (first_name(mention_by), what, when,
                                             (" in " + ev.place_words) if ev.place_words else "")
        if said_yes:
            summ += ", and I said I'd go."
            pr = 0.88
        elif said_no:
            summ += ", but I can't make it."
            pr = 0.03
        elif said_maybe:
            summ += "; I might go."
            pr = 0.30
        else:
            summ += "."
            pr = 0.12
        res["importance"] = rng.randint(5, 7)
    res["summary"] = clip(re.sub(r"\s+", " ", summ).replace(" .", ".").replace(" ,", ","), 390)
    if rng.random() < pr and ev.start is not None:
        d = ev.date or p.today
        if rng.random() < 0.06:
            d = p.shift_date(d, rng.choice([-1, 1]))
        allowed = set(p.all_enums("plan_date")) or set(p.dates)
        if d not in allowed:
            d = p.today if p.today in allowed else ""
        if d:
            res["plan_date"] = d
            res["plan_activity"] = clip(("hosting " if host else "going to ") + re.sub(r"^(a|an|the)\s+", "the ", what), 110)
            res["plan_start"] = hhmm(ev.start) if rng.random() >= 0.02 else say_time(ev.start).upper()
            mins = (ev.end - ev.start) if ev.end is not None else 60
            res["plan_minutes"] = max(15, min(600, mins))
            place = ev.place
            allowed_pl = [x for x in p.all_enums("plan_place") if x] or p.places
            if place not in allowed_pl:
                place = p.match_place(ev.text + " " + ev.place_words, allowed_pl)
            if rng.random() < 0.10:
                place = ""
            res["plan_place"] = place
    return res


# ---------------------------------------------------------------- kinds

def k_probe(p, rng):
    return {"ok": True}


MUNDANE = re.compile(r"(is (in use|being used|occupied|idle)|is sleeping|waking up|brushing|getting ready|"
                     r"having (breakfast|lunch|dinner)|relaxing|tidying|washing|making (coffee|tea|a cup)|"
                     r"taking a short break|resting)", re.I)
SOCIALR = re.compile(r"(chatting|talking|calling on|conversation|share news|on friendly terms|familiar part)", re.I)
BIGR = re.compile(r"(told|heard|invite|news|wants to|hosting|holding|lesson|party|event|festival|meeting|"
                  r"said they would|will go|plan for|funeral|wedding|accident|fire|sick|ill|death|died|"
                  r"fight|argument|love)", re.I)


def rate_memory(m, rng, me):
    if BIGR.search(m):
        base = rng.choice([5, 5, 6, 6, 7, 8])
        if re.search(r"(death|died|funeral|accident|fire|wedding)", m, re.I):
            base = rng.choice([7, 8, 9])
    elif SOCIALR.search(m):
        base = rng.choice([2, 3, 3, 4])
    elif MUNDANE.search(m):
        base = rng.choice([1, 1, 2, 2, 3])
    else:
        base = rng.choice([2, 2, 3, 4])
    if rng.random() < 0.15:
        base += rng.choice([-1, 1])
    return max(1, min(10, base))


def k_importance(p, rng):
    m = re.search(r'Memory:\s*"(.*)"', p.user)
    mem = m.group(1) if m else p.user[-300:]
    return {"importance": rate_memory(mem, rng, p.persona)}


def k_batch(p, rng):
    rs = p.props.get("ratings", {})
    mems = re.findall(r'^\s*(?:- |\d+\.\s)"(.*)"\s*$', p.user, re.M)
    n = rs.get("minItems") or rs.get("maxItems") or len(mems) or 1
    if mems and not rs.get("minItems"):
        n = len(mems)
    out = [rate_memory(mems[i] if i < len(mems) else "", rng, p.persona) for i in range(n)]
    if rng.random() < 0.04:
        if rng.random() < 0.5 and len(out) > 1:
            out = out[:-1]
        else:
            out.append(rng.choice([1, 2, 3]))
    return {"ratings": out}


def k_currently(p, rng):
    me = p.persona
    old = p.people.get(me, {}).get("currently", "") or ("%s is keeping to the usual routine." % me)
    sents = [s.strip() for s in re.split(r"(?<=\.)\s+", old) if s.strip()]
    keep = []
    for s in sents:
        if re.search(r"(heard about the event at|keeping to the usual routine)", s) and rng.random() < 0.5:
            continue
        keep.append(s)
    keep = keep[:2]
    add = []
    low = p.user.lower()
    ev, host = speaker_event(p, me)
    held = re.search(re.escape(me) + r" (?:is )?(?:holding|hosting|wants to)", p.user)
    if ev is None:
        # look through memories for an event
        for m in p.memories(me):
            if re.search(r"(heard from|told|wants to|hosting|holding)", m) and re.search(r"\d", m):
                ev = p.parse_event(re.sub(r"^\[[^\]]*\]\s*", "", m))
                if me in m.split(" wants to")[0] and "wants to" in m:
                    ev.hosting = True
                break
    if ev is not None:
        wp = when_phrase(ev, p)
        if ev.hosting or held:
            if rng.random() < 0.95:
                add.append("%s is getting ready to hold %s %s and is asking everyone to come." % (me, ev.what, wp))
        elif ev.said_go or re.search(re.escape(me) + r"[^.\n]{0,80}said they would go", p.user):
            if rng.random() < 0.80:
                add.append("%s plans to go to %s %s." % (me, ev.what, wp))
        elif rng.random() < 0.45:
            add.append("%s has heard about %s %s." % (me, ev.what, wp))
    if not add and rng.random() < 0.3:
        add.append("%s is keeping to the usual routine." % me)
    text = " ".join(keep[:2 if not add else 1] + add)
    text = re.sub(r"\s+", " ", text).replace(" .", ".")
    return {"currently": clip(text, 480) or old[:480]}


def lifestyle_hours(ls):
    wake = None
    bed = None
    work = None
    m = re.search(r"wakes? up (?:at|around)\s+(" + TOK + ")", ls)
    if m:
        wake = tok_minutes(m.group(1))
    m = re.search(r"(?:goes to bed|bed) (?:at|around)\s+(" + TOK + ")", ls)
    if m:
        bed = tok_minutes(m.group(1))
    m = RANGE_RE.search(ls[ls.find(",") if "," in ls else 0:])
    if m:
        a, b = range_minutes(m.group(1), m.group(2))
        if a is not None and b is not None:
            act = ls[:m.start() + (ls.find(",") if "," in ls else 0)]
            act = act.split(",")[-1].strip()
            act = re.sub(r"\s*(from|between)\s*$", "", act)
            work = (a, b, act)
    return wake, bed, work


def gerund(act):
    act = act.strip()
    w = act.split(" ", 1)
    if not w or not w[0]:
        return "working"
    v = w[0]
    rest = (" " + w[1]) if len(w) > 1 else ""
    irregular = {"keeps": "keeping", "works": "working", "runs": "running", "drives": "driving",
                 "cooks": "cooking", "tends": "tending", "opens": "opening", "sells": "selling",
                 "teaches": "teaching", "serves": "serving", "does": "doing", "goes": "going"}
    if v in irregular:
        return irregular[v] + rest
    if v.endswith("es") and v[:-2].endswith(("sh", "ch", "x", "s")):
        return v[:-2] + "ing" + rest
    if v.endswith("s"):
        base = v[:-1]
        if base.endswith("e") and not base.endswith("ee"):
            base = base[:-1]
        return base + "ing" + rest
    return act


def best_place(p, words_s, places, exclude_home=False):
    """place whose own words (minus the words every place shares and people's names) best match"""
    if not places:
        return ""
    common = None
    for pl in places:
        s = set(content_words(pl.replace(":", " ")))
        common = s if common is None else (common & s)
    names = set(w for n in p.names for w in words(n))
    ws = set(w.rstrip("s") for w in words(words_s) if len(w) > 2 and w not in STOP) - names
    best, bs = "", 0
    for pl in places:
        pw = set(w.rstrip("s") for w in words(pl.replace(":", " ")) if len(w) > 2) - (common or set()) - names
        sc = len(ws & pw)
        if sc > bs:
            best, bs = pl, sc
    return best


def k_daily_plan(p, rng):
    me = p.persona
    person = p.people.get(me, {})
    ls = person.get("lifestyle", "")
    wake, bed, work = lifestyle_hours(ls)
    if wake is None:
        wake = 7 * 60
    wake = (wake // 30) * 30
    if bed is None:
        bed = (wake + 16 * 60) % 1440
    places = p.places
    mh = re.search(r"sleeping at home \(([^)]*)\)", p.user)
    home = mh.group(1) if mh and mh.group(1) in places else ""
    if not home:
        home = next((x for x in places if "bedroom" in x.lower() or "room" in x.split(":")[-1].lower()), places[0] if places else "")
    kitchen = ""
    hb = home.split(":")[1] if home.count(":") >= 2 else ""
    for x in places:
        if hb and hb in x and re.search(r"kitchen|dining", x, re.I):
            kitchen = x
    if not kitchen:
        kitchen = next((x for x in places if re.search(r"kitchen|dining", x, re.I)), home)
    workplace = home
    wact = "working"
    if work:
        wact = gerund(work[2]) or "working"
        workplace = best_place(p, work[2], places) or best_place(p, person.get("identity", "")[:200], places) or home
    # events for today
    events = []
    today = p.today or ""
    seen = set()
    cands = []
    ntxt, nhost = p.news_for(me)
    if ntxt:
        cands.append((ntxt, nhost))
    cands.append((person.get("currently", ""), False))
    for m in p.memories(me):
        cands.append((re.sub(r"^\[[^\]]*\]\s*", "", m), False))
    for txt, host in cands:
        if not re.search(r"(heard|told|wants to|hosting|holding|going to|invite|lesson|party|event)", txt, re.I):
            continue
        ev = p.parse_event(txt)
        if ev.start is None:
            continue
        if not ev.date:
            continue
        if ev.date != today:
            continue
        key = (ev.start, ev.what[:12])
        if key in seen:
            continue
        seen.add(key)
        hosting = host or (ev.holder == me) or bool(re.match(re.escape(me) + r" (wants to|is hosting|is holding)", txt))
        if hosting:
            pr = 0.95
        elif ev.said_go or re.search(re.escape(me) + r".{0,120}said (they|he|she) would go", txt):
            pr = 0.80
        elif ev.said_might:
            pr = 0.40
        else:
            pr = 0.30
        if rng.random() < pr:
            st = ev.start
            if rng.random() < 0.03:
                st = (st + 720) % 1440
            dur = (ev.end - ev.start) if ev.end is not None else 60
            pl = ev.place if ev.place in places else best_place(p, ev.text, places) or workplace
            events.append((st, max(30, min(300, dur)), ("hosting " if hosting else "going to ") + ev.what, pl))
    tell_block = None
    if ntxt and rng.random() < 0.5:
        m = re.findall(r"^\s*- ([^\n]*:[^\n]*?): \d+ (?:person|people), ([^\n]*)$", p.user, re.M)
        for pl, span in m:
            r = RANGE_RE.search(span)
            if pl in places and r:
                a, b = range_minutes(r.group(1), r.group(2))
                if a is not None:
                    tell_block = (a, 60, "telling people the news", pl)
                    break
    # build the skeleton in minutes from wake
    day_end = bed if bed > wake else bed + 1440
    blocks = []

    def add(st, dur, act, pl, emo):
        blocks.append([st, dur, act, pl, emo])

    t = wake
    add(t, 30, "waking up and getting ready", home, "🛏️")
    t += 30
    add(t, 30, "having breakfast", kitchen, "🍳")
    t += 30
    meals = [("having lunch", "🥪"), ("having dinner", "🍲")]
    if work:
        ws, we = work[0], work[1]
        if ws < wake:
            ws += 1440
        if we <= ws:
            we += 1440
        if ws - t > 240:
            gap = ((ws - t - 60) // 2 // 30) * 30
            add(t, gap, "relaxing at home", home, "☕")
            t += gap
            add(t, 60, meals[0][0], kitchen, meals[0][1])
            meals = meals[1:]
            t += 60
        if ws > t:
            add(t, ws - t, "relaxing at home", home, "☕")
            t = ws
        span = we - t
        if span > 300 and meals:
            half = (span // 2 // 30) * 30
            add(t, half, wact, workplace, "🛠️")
            t += half
            add(t, 60, meals[0][0], kitchen, meals[0][1])
            meals = meals[1:]
            t += 60
            add(t, we - t, wact, workplace, "🛠️")
            t = we
        elif span > 0:
            add(t, span, wact, workplace, "🛠️")
            t = we
    # meals and leisure till bed
    while meals and t < day_end - 60:
        gap = min(180, max(60, (day_end - t) // (len(meals) + 1)))
        if gap > 60:
            add(t, gap - 60 if gap > 120 else 60, "relaxing at home", home, "📖")
            t += gap - 60 if gap > 120 else 60
        add(t, 60, meals[0][0], kitchen, meals[0][1])
        meals = meals[1:]
        t += 60
    if t < day_end:
        add(t, day_end - t, "relaxing at home", home, "📻")
        t = day_end
    # overlay events
    for ev in events + ([tell_block] if tell_block else []):
        st, dur, act, pl = ev
        if st < wake:
            st += 1440
        if not (wake < st < day_end):
            continue
        nb = []
        for b in blocks:
            bs, bd = b[0], b[1]
            be = bs + bd
            if be <= st or bs >= st + dur:
                nb.append(b)
                continue
            if bs < st:
                nb.append([bs, st - bs, b[2], b[3], b[4]])
            if be > st + dur:
                nb.append([st + dur, be - st - dur, b[2], b[3], b[4]])
        nb.append([st, dur, clip(act, 100), pl, "📅"])
        blocks = sorted(nb, key=lambda x: x[0])
    sleep_len = (wake + 1440) - day_end
    add(day_end, max(60, min(960, sleep_len)), "sleeping", home, "😴")
    blocks = [b for b in blocks if b[1] >= 5]
    if len(blocks) > 16:
        blocks = blocks[:15] + [blocks[-1]]
    out_blocks = []
    for b in blocks:
        out_blocks.append({"start": hhmm(b[0]), "duration_minutes": int(max(5, min(960, b[1]))),
                           "activity": b[2], "emoji": b[4], "address": b[3] if b[3] in places else (places[0] if places else "")})
    outline = ["wake up at %s" % say_time(wake)]
    for b in blocks[1:]:
        if b[2] in ("relaxing at home",) and rng.random() < 0.6:
            continue
        item = "%s at %s" % (b[2], say_time(b[0]))
        if item not in outline:
            outline.append(item)
    outline = outline[:7] + ["go to bed at %s" % say_time(day_end)]
    while len(outline) < 4:
        outline.insert(-1, "relaxing at home")
    if rng.random() < 0.03:
        while len(outline) < 9:
            outline.insert(-1, "take a short walk")
    return {"wake_up_hour": (wake // 60) % 24, "outline": outline, "blocks": out_blocks}


STEPS = [
    (r"breakfast", ["making coffee", "making toast", "eating breakfast", "washing up"]),
    (r"lunch", ["preparing lunch", "eating lunch", "clearing up"]),
    (r"dinner|supper", ["cooking dinner", "eating dinner", "washing up after dinner"]),
    (r"waking|getting ready", ["stretching and getting out of bed", "washing up", "getting dressed"]),
    (r"sleep", ["getting into bed", "sleeping"]),
    (r"relax|rest", ["making a cup of tea", "reading for a while", "resting in a chair", "listening to the radio"]),
    (r"calling on|visit", ["walking over", "knocking on the door", "chatting over tea", "saying goodbye"]),
    (r"seeing people|telling|news", ["looking for people to talk to", "chatting with whoever is there", "passing on the news"]),
    (r"hosting|holding", ["setting up", "welcoming people", "running it", "tidying up"]),
    (r"going to", ["walking over", "finding a seat", "joining in", "chatting afterwards"]),
]


def k_decompose(p, rng):
    m = re.search(r"From (" + TOK + r") to (" + TOK + r")\s*\((\d+) minutes\)\s*" + r"(?:" + NAME_PAT + r")? is ([^,\n]*)", p.user)
    dur = 60
    act = "working"
    m2 = re.search(r"\((\d+) minutes\)", p.user)
    if m2:
        dur = int(m2.group(1))
    m3 = re.search(r"\(\d+ minutes\) " + re.escape(p.persona) + r" is ([^\n]*?), at ", p.user)
    if m3:
        act = m3.group(1)
    objs = [o for o in p.all_enums("object") if o]
    al = act.lower()
    names = None
    for pat, st in STEPS:
        if re.search(pat, al):
            names = st
            break
    if names is None:
        base = re.sub(r"^(working|keeping|tending|doing)\s*", "", al) or al
        names = ["getting set up", "getting on with the work", "taking a short break", "carrying on with the work",
                 "tidying up afterwards"]
    sp = p.props.get("steps") or {}
    lo, hi = sp.get("minItems", 2) or 1, sp.get("maxItems", 6) or 6
    mf = re.search(r"first (\d+) minutes", p.user)
    fill = int(mf.group(1)) if mf else dur
    n = max(lo, min(hi, -(-fill // 15)))
    if fill <= len(names) * 15 and lo <= len(names):
        n = max(lo, min(n, len(names)))
    total = max(n * 5, min(fill, n * 15))
    base = total // n
    durs = [base] * n
    for i in range(total - base * n):
        durs[i % n] += 1
    durs = [max(5, min(15, (d // 5) * 5 if d >= 5 else 5)) for d in durs]
    if rng.random() < 0.03:
        durs[0] = 20
    steps = []
    for i in range(n):
        nm = names[i % len(names)] + (" again" if i >= len(names) else "")
        obj = ""
        if objs and rng.random() < 0.7:
            ws = set(words(nm + " " + act))
            cand = [o for o in objs if set(words(o)) & ws]
            obj = cand[0] if cand else objs[i % len(objs)]
        state = "" if not obj else rng.choice(["in use", "being used", "occupied"])
        steps.append({"activity": nm, "duration_minutes": durs[i], "object": obj, "object_state": state})
    return {"steps": steps}


def k_react(p, rng):
    me = p.persona
    m = re.search(r'noticed:\s*"([^"]*)"', p.user)
    obs = m.group(1) if m else ""
    pr = 0.08
    ev, host = speaker_event(p, me)
    obs_person = next((n for n in p.names if n != me and n in obs), "")
    if obs_person and (ev is not None or re.search(r"news", p.user.split("Should")[0][-2000:], re.I) and
                       re.search(re.escape(me) + r" has news", p.user)):
        pr = 0.30
    if re.search(r"calling on " + re.escape(me) + r"|knocking", obs):
        pr = max(pr, 0.20)
    if rng.random() < pr:
        if obs_person:
            na = "chatting with %s" % obs_person if ev is None else "telling %s the news" % obs_person
        else:
            na = "looking into it"
        reason = "%s wants to %s." % (me, na.replace("chatting", "chat").replace("telling", "tell"))
        return {"choice": "react", "reason": clip(reason, 290), "new_activity": clip(na, 110)}
    return {"choice": "continue", "reason": clip("Nothing about %s calls for a change of plan." %
                                                (obs[:80] or "this"), 290), "new_activity": ""}


def k_replan(p, rng):
    me = p.persona
    starts = p.all_enums("start")
    places = p.places
    if not starts:
        return {"new_blocks": [{"start": "00:00", "activity": "carrying on", "emoji": "🙂", "address": places[0] if places else ""}]}
    smin = [tok_minutes(s) for s in starts]
    planned = p.schedule(me)
    cur = None
    for it in planned:
        if it["start"] <= smin[0] < it["end"] or it["start"] == smin[0]:
            cur = it
            break
    cur = cur or (planned[0] if planned else None)
    act = cur["act"] if cur else "carrying on"
    pl = cur["place"] if cur and cur["place"] in places else (places[0] if places else "")
    blocks = []
    m = re.search(r"Something just changed[^:]*:\s*([^\n]*)", p.user)
    reason = m.group(1) if m else ""
    first_act = act
    if re.search(r"calling on " + re.escape(me), reason):
        first_act = "talking with " + (next((n for n in p.names if n != me and n in reason), "a visitor"))
    blocks.append({"start": starts[0], "activity": clip(first_act, 110), "emoji": "🗣️" if first_act != act else "🙂", "address": pl})
    ntxt, _ = p.news_for(me)
    if ntxt and rng.random() < 0.55:
        for pl2, span in re.findall(r"^\s*- ([^\n]*:[^\n]*?): \d+ (?:person|people), ([^\n]*)$", p.user, re.M):
            r = RANGE_RE.search(span)
            if pl2 not in places or not r:
                continue
            a, b = range_minutes(r.group(1), r.group(2))
            if a is None:
                continue
            cand = [s for s, mm in zip(starts, smin) if mm is not None and mm > smin[0] and (a <= mm < (b if b > a else b + 1440) or mm >= a)]
            if cand:
                st = cand[0] if a <= smin[0] else next((s for s, mm in zip(starts, smin) if mm >= a), cand[0])
                if st == starts[0]:
                    blocks = []
                blocks.append({"start": st, "activity": "telling people the news", "emoji": "📣", "address": pl2})
                break
    return {"new_blocks": blocks[:6]}


def k_relationship(p, rng):
    me = p.persona
    m = re.search(r"remembers about (" + NAME_PAT + r")", p.user)
    other = m.group(1) if m else next((n for n in p.names if n != me), "them")
    mems = [re.sub(r"^\[[^\]]*\]\s*", "", x) for x in p.memories(me)]
    ident = p.people.get(me, {}).get("identity", "")
    rel = ""
    for s in re.split(r"(?<=[.;])\s+", ident):
        if other in s or first_name(other) in s:
            rel = s.strip().rstrip(".;")
            break
    sc = rel_score(p, me, other)
    feel = "warmly" if sc > 0 else ("a bit wary" if sc < 0 else "fine")
    if rel:
        s1 = "%s: %s." % (first_name(other), rel.replace(me, "I").replace(" his ", " my ").replace(" her ", " my "))
        s1 = "I know %s well; %s" % (first_name(other), rel.split(";")[0].strip().rstrip(".")) + "."
    else:
        s1 = "I only know %s a little%s." % (first_name(other), " from around town" if len(mems) < 3 else ", though we cross paths often")
    ev_mem = next((x for x in mems if re.search(r"told|heard|conversation|share news", x)), "")
    s2 = ("Right now I feel %s towards them" % ("warm" if feel == "warmly" else feel)) + \
         (", especially since we talked recently." if ev_mem else ".")
    return {"summary": clip(s1.replace(me, "I") + " " + s2, 390)}


def k_refl_q(p, rng):
    me = p.persona
    mems = [re.sub(r"^\[[^\]]*\]\s*", "", x) for x in p.memories(me)]
    if not mems:
        mems = [re.sub(r"^\[[^\]]*\]\s*", "", x) for k, o, h, its in p.sections() for x in its]
    counts = {}
    for x in mems:
        for n in p.names:
            if n != me and n in x:
                counts[n] = counts.get(n, 0) + 1
    acts = {}
    for x in mems:
        mm = re.match(re.escape(me) + r" is ([a-z ]+?)(?: \(|$| at )", x)
        if mm:
            acts[mm.group(1)] = acts.get(mm.group(1), 0) + 1
    mx = (p.props.get("questions") or {}).get("maxItems", 3) or 3
    qs = []
    if acts:
        a = max(acts, key=acts.get)
        qs.append("What does %s's habit of %s say about what matters to them?" % (me, a))
    if counts:
        n = max(counts, key=counts.get)
        qs.append("How are things between %s and %s these days?" % (me, n))
    evm = next((x for x in mems if re.search(r"(heard from|told|wants to|hosting)", x)), "")
    if evm:
        ev = p.parse_event(evm)
        qs.append("What does %s make of %s, and will they go?" % (me, ev.what))
    qs.append("What is on %s's mind these days?" % me)
    qs.append("What part does routine play in %s's days?" % me)
    out = qs[:mx]
    if rng.random() < 0.02:
        out = qs[:mx + 1]
    return {"questions": out}


def k_refl_i(p, rng):
    me = p.persona
    numbered = re.findall(r"^\s*(\d+)\.\s+(?:\[[^\]]*\]\s*)?(.*)$", p.user, re.M)
    qs = re.findall(r'^\s*- "(.*\?)"\s*$', p.user, re.M) or ["What is on %s's mind?" % me]
    ev_enum = None
    try:
        ev_enum = p.defs.get("Insight", {}).get("properties", {}).get("evidence", {}).get("items", {}).get("enum")
    except Exception:
        ev_enum = None
    maxn = max([int(n) for n, _ in numbered] or [1])
    insights = []
    for q in qs[:5]:
        qk = set(content_words(q)) - set(words(me))
        scored = []
        for n, s in numbered:
            sk = set(content_words(s))
            scored.append((len(qk & sk) + rng.random() * 0.5, int(n), s))
        scored.sort(reverse=True)
        k = rng.choice([1, 2, 2, 3])
        for j in range(k):
            if len(insights) >= 8 or not scored:
                break
            top = scored[j * 2: j * 2 + 3] or scored[:2]
            ev = sorted(set(x[1] for x in top))
            if ev_enum:
                ev = [e for e in ev if e in ev_enum] or [ev_enum[0]]
            else:
                ev = [e for e in ev if 1 <= e <= maxn] or [1]
            s = top[0][2]
            about = next((n for n in p.names if n != me and n in s), "") or clip(" ".join(content_words(q)[:3]), 50) or "daily life"
            if re.search(r"(heard|told|wants to|hosting|lesson|event)", s):
                txt = "%s has been thinking about %s and what it means for the coming days." % (me, clip(p.parse_event(s).what, 60))
                imp = rng.randint(5, 7)
            elif about in p.names:
                txt = "%s often crosses paths with %s, which has become part of their routine." % (me, about)
                imp = rng.randint(3, 5)
            else:
                txt = "%s keeps to a steady routine and takes their daily duties seriously." % me
                imp = rng.randint(2, 4)
            insights.append({"insight": clip(txt, 290), "about": clip(about, 58), "evidence": ev[:10], "importance": imp})
    if not insights:
        insights = [{"insight": "%s keeps to a steady routine." % me, "about": "routine",
                     "evidence": [ev_enum[0] if ev_enum else 1], "importance": 3}]
    return {"insights": insights[:10]}


def k_interview(p, rng):
    me = p.persona
    m = re.search(r'asks[^:]*:\s*"([^"]*)"', p.user)
    q = m.group(1) if m else ""
    qk = set(content_words(q)) - {"heard", "have", "about"}
    mems = [re.sub(r"^\[[^\]]*\]\s*", "", x) for x in p.memories(me)]
    if not mems:
        mems = [re.sub(r"^\[[^\]]*\]\s*", "", l) for l in re.findall(r"^\s*- (\[.*)$", p.user, re.M)]
    hits = [x for x in mems if qk and len(qk & set(content_words(x))) >= max(1, min(2, len(qk)) - 0)]
    if not hits:
        hits = [x for x in mems if qk and len(qk & set(content_words(x))) >= 1]
    if hits and rng.random() >= 0.07:
        src = next((x for x in hits if re.search(r"(told|heard|wants to)", x) and re.search(r"\d", x)), hits[0])
        ev = p.parse_event(src)
        wp = when_phrase(ev, p)
        who = ""
        mm = re.match(r"(" + NAME_PAT + r") told " + re.escape(me), src)
        if mm:
            who = mm.group(1)
        mm = re.search(re.escape(me) + r" heard from (" + NAME_PAT + r")", src)
        if mm:
            who = mm.group(1)
        host = src.startswith(me + " wants to") or src.startswith(me + " is hosting")
        if host:
            ans = "Yes, it's mine: I'm holding %s %s%s." % (ev.what, wp, (" in " + ev.place_words) if ev.place_words else "")
        else:
            ans = "Yes, %s told me about %s%s%s." % (first_name(who) if who else "someone", ev.what,
                                                   (" " + wp) if wp else "", (" in " + ev.place_words) if ev.place_words else "")
            went = any(re.search(re.escape(me) + r" is (going to|at)", x) for x in hits) or \
                any(re.search(r"said (they|he|she) would go", x) and me in x for x in hits)
            if went:
                ans += " I said I'd go."
        return {"answer": clip(re.sub(r"\s+", " ", ans), 590)}
    if rng.random() < 0.05:
        return {"answer": "I think I've heard something about it, but I don't remember the details."}
    return {"answer": "No, I haven't heard anything about that."}


def k_turn_json(p, rng):
    me = p.persona
    known = set(p.names)
    tr = parse_transcript(p.user, known)
    enum = p.all_enums("addressed_to")
    others = [e for e in enum if e != "everyone"] or [n for n in p.names if n != me]
    utt, end, target = compose_turn(p, rng, me, others, tr)
    addr = target if target in enum else ("everyone" if "everyone" in enum else (enum[0] if enum else target))
    if len(others) > 1 and rng.random() < 0.35 and "everyone" in enum:
        addr = "everyone"
    if rng.random() < 0.04:
        utt = "*%s* %s" % (rng.choice(["smiles", "nods", "waves"]), utt)
    return {"utterance": clip(utt, 395), "addressed_to": addr, "end_conversation": bool(end)}


def k_memo(p, rng):
    me = p.persona
    tr = parse_transcript(p.user, set(p.names))
    partners = []
    for s, t in tr:
        if s != me and s not in partners:
            partners.append(s)
    m = re.search(r"conversation with ([^\n]*)", p.user)
    if not partners and m:
        partners = [n for n in p.names if n in m.group(1) and n != me]
    return memo_for(p, rng, me, tr, partners)


def gist(p, rng, order, maxlines):
    """simulate an out-of-view conversation; returns list of (speaker, text)"""
    evs = {n: speaker_event(p, n) for n in order}
    has_news = any(e is not None for e, h in evs.values())
    talk = rng.random() < (0.92 if has_news else 0.55)
    if not talk:
        return False, []
    lines = []
    told = {}
    for n in order:
        e, h = evs[n]
        told[n] = e is not None and rng.random() < 0.85
    i = 0
    nlines = rng.randint(2, min(6, maxlines)) if not has_news else min(maxlines, rng.randint(3, 6))
    spoke = {n: 0 for n in order}
    while len(lines) < nlines:
        sp = order[i % len(order)]
        i += 1
        others = [o for o in order if o != sp]
        tgt = others[0] if others else ""
        e, h = evs[sp]
        last = lines[-1] if lines else None
        if told.get(sp) and e is not None and not mentioned(e, lines):
            if e.rel == "today" and e.end is not None and p.now is not None and e.end <= p.now and rng.random() > 0.2:
                told[sp] = False
                continue
            txt = news_line(p, rng, sp, e, tgt if len(order) == 2 else "", first_line=not lines)
        elif last and last[0] != sp and line_mentions_event(last[1]):
            lev = p.event_from_line(last[1], last[0])
            if e is not None and mentioned(e, [last]) and (lev.holder == last[0]) is False and h:
                txt = reply_to_event(p, rng, sp, lev, last[0], False, True)
            else:
                invited = bool(INVITE_RE.search(last[1])) or lev.holder == last[0]
                txt = reply_to_event(p, rng, sp, lev, last[0], invited, False)
        elif last and YES_RE.search(last[1]) and evs[order[0]][1]:
            txt = rng.choice(["Wonderful, see you there!", "Good, see you there then."])
        elif not lines:
            txt = rng.choice(GREET).format(fn=first_name(tgt) if len(order) == 2 else "all") + " " + rng.choice(SMALL_Q)
        elif len(lines) >= nlines - 1:
            txt = rng.choice(BYE).format(fn=first_name(tgt) if len(order) == 2 else "all")
        else:
            txt = reply_small(p, rng, sp, last[1] if last else "")
        lines.append((sp, clip(txt, 295)))
        spoke[sp] += 1
        if i > 20:
            break
    if len(lines) < 2:
        lines.append((order[1 % len(order)], rng.choice(FILLER)))
    return True, lines


def k_conv_summary(p, rng):
    me = p.persona
    sp_enum = p.all_enums("speaker")
    other = next((n for n in sp_enum if n != me), "") or next((n for n in p.names if n != me), "")
    order = [me, other] if other else [me]
    mx = (p.props.get("lines") or {}).get("maxItems", 6) or 6
    talk, lines = gist(p, rng, order, mx)
    if not talk:
        return {"talk": False, "lines": [], "first": None, "second": None}
    a = memo_for(p, rng, me, lines, [other])
    b = memo_for(p, rng, other, lines, [me])
    if rng.random() < 0.02:
        a, b = b, a
    fix_places(p, a, "first")
    fix_places(p, b, "second")
    return {"talk": True, "lines": [{"speaker": s, "text": t} for s, t in lines], "first": a, "second": b}


def fix_places(p, memo, which):
    """keep plan_place inside the enum for that slot"""
    enum = None
    try:
        ref = p.props[which]["anyOf"][0]["$ref"].split("/")[-1]
        enum = p.defs[ref]["properties"]["plan_place"]["enum"]
    except Exception:
        try:
            enum = p.defs["GroupMemo"]["properties"]["plan_place"]["enum"]
        except Exception:
            enum = None
    if enum is not None and memo.get("plan_place") not in enum:
        memo["plan_place"] = p.match_place(memo.get("plan_place", ""), [e for e in enum if e]) if memo.get("plan_place") else ""
        if memo["plan_place"] not in enum:
            memo["plan_place"] = ""
    denum = set(p.all_enums("plan_date"))
    if denum and memo.get("plan_date") not in denum:
        memo["plan_date"] = ""


def k_group_summary(p, rng):
    me = p.persona
    sp_enum = p.all_enums("speaker") or p.all_enums("name")
    order = [me] + [n for n in sp_enum if n != me]
    mx = (p.props.get("lines") or {}).get("maxItems", 10) or 10
    talk, lines = gist(p, rng, order, mx)
    if not talk:
        return {"talk": False, "lines": [], "memos": []}
    memos = []
    for n in order:
        if rng.random() < 0.04 and len(order) > 2:
            continue
        m = memo_for(p, rng, n, lines, [o for o in order if o != n])
        m = dict({"name": n}, **m)
        fix_places(p, m, "memos")
        memos.append(m)
    return {"talk": True, "lines": [{"speaker": s, "text": t} for s, t in lines], "memos": memos}


def plain_turn(p, rng):
    me = p.persona
    known = set(p.names)
    tr = parse_transcript(p.user, known)
    m = re.search(re.escape(me) + r" is talking with ([^\n.]*)", p.user)
    others = [n for n in p.names if n != me and m and n in m.group(1)] or [n for n in p.names if n != me][:1]
    utt, end, target = compose_turn(p, rng, me, others, tr)
    if rng.random() < 0.04:
        utt = "*%s* %s" % (rng.choice(["smiles", "nods", "waves"]), utt)
    tag = "[end]" if end else "[continue]"
    r = rng.random()
    if r < 0.005:
        return "I'm sorry, but as an AI I can't continue this role-play."
    words_ = utt
    r = rng.random()
    if r < 0.05:
        words_ = "%s: %s" % (me, words_)
    elif r < 0.10:
        words_ = '"%s"' % words_
    r = rng.random()
    if r < 0.04:
        return words_
    if r < 0.07:
        return words_ + " " + tag
    return words_ + "\n" + tag


# ---------------------------------------------------------------- dispatch

def kind_of(p):
    if not p.schema:
        return "turn_text"
    props = set(p.props)
    if props == {"ok"}:
        return "probe"
    if "ratings" in props:
        return "importance_batch"
    if props == {"importance"}:
        return "importance"
    if "currently" in props:
        return "revise_currently"
    if "wake_up_hour" in props or "blocks" in props:
        return "daily_plan"
    if "steps" in props:
        return "decompose"
    if "choice" in props:
        return "react"
    if "new_blocks" in props:
        return "replan"
    if "questions" in props:
        return "reflection_questions"
    if "insights" in props:
        return "reflection_insights"
    if "answer" in props:
        return "interview"
    if "utterance" in props:
        return "group_turn"
    if "memos" in props:
        return "group_summary"
    if "talk" in props:
        return "conversation_summary"
    if "summary" in props and "plan_date" in props:
        return "conversation_memo"
    if props == {"summary"} or "summary" in props:
        return "relationship"
    return "unknown"


HANDLERS = {
    "probe": k_probe, "importance": k_importance, "importance_batch": k_batch,
    "revise_currently": k_currently, "daily_plan": k_daily_plan, "decompose": k_decompose,
    "react": k_react, "replan": k_replan, "relationship": k_relationship,
    "reflection_questions": k_refl_q, "reflection_insights": k_refl_i, "interview": k_interview,
    "group_turn": k_turn_json, "conversation_memo": k_memo, "conversation_summary": k_conv_summary,
    "group_summary": k_group_summary,
}


def minimal_for(schema, defs=None, depth=0):
    """a minimal instance of a schema (fallback)"""
    defs = defs if defs is not None else (schema.get("$defs") or {})
    if depth > 8:
        return None
    if "$ref" in schema:
        return minimal_for(defs.get(schema["$ref"].split("/")[-1], {}), defs, depth + 1)
    if "anyOf" in schema:
        for s in schema["anyOf"]:
            if s.get("type") == "null":
                return None
        return minimal_for(schema["anyOf"][0], defs, depth + 1)
    if "enum" in schema:
        return schema["enum"][0]
    t = schema.get("type")
    if t == "object":
        return {k: minimal_for(v, defs, depth + 1) for k, v in (schema.get("properties") or {}).items()
                if k in (schema.get("required") or [])}
    if t == "array":
        n = schema.get("minItems", 0)
        return [minimal_for(schema.get("items", {}), defs, depth + 1) for _ in range(n)]
    if t == "integer":
        return schema.get("minimum", 0)
    if t == "number":
        return schema.get("minimum", 0)
    if t == "boolean":
        return False
    if t == "string":
        return "..." if schema.get("minLength", 0) > 0 else ""
    return None


def damage(text, rng):
    r = rng.random()
    if r < 0.008:
        cut = int(len(text) * (0.4 + 0.5 * rng.random()))
        return text[:max(1, cut)]
    if r < 0.014:
        return "```json\n" + text + "\n```"
    if r < 0.016:
        return "I'm sorry, but I can't help with that request."
    return text


def respond(body, seed=0):
    try:
        msgs = body.get("messages") if isinstance(body, dict) else None
        h = hashlib.sha256((json.dumps(msgs, sort_keys=True, ensure_ascii=False) + "|" + str(seed)).encode("utf-8")).hexdigest()
        rng = random.Random(int(h[:16], 16))
        p = Prompt(body)
        k = kind_of(p)
        if k == "turn_text":
            return plain_turn(p, rng)
        fn = HANDLERS.get(k)
        if fn is None:
            return json.dumps(minimal_for(p.schema), ensure_ascii=False)
        obj = fn(p, rng)
        text = json.dumps(obj, ensure_ascii=False)
        if k == "probe":
            return text
        return damage(text, rng)
    except Exception:
        try:
            rf = (body.get("response_format") or {}).get("json_schema") or {}
            sch = rf.get("schema")
            if sch:
                return json.dumps(minimal_for(sch), ensure_ascii=False)
        except Exception:
            pass
        return "Hello.\n[end]"
