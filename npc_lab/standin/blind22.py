"""blind22 -- a rule-based stand-in for a mid-size (~8B) chat model served by
Ollama's OpenAI-compatible route (json_schema passed on as a JSON "format").

Character imitated: chatty, eager to please, a little wordy, sometimes adds a
small invented detail; follows plain instructions most of the time; reads the
start and the end of a long prompt better than its middle; sometimes careless
with clock formats; usually valid JSON, but field constraints (lengths,
patterns, enums, array bounds) are not always respected.

Entry point: respond(body: dict, seed: int = 0) -> str.  Deterministic: every
random draw is sha256(seed, purpose, all message text, a decision label).
Never raises: any internal error falls back to a generic schema-filled answer.

DECLARED RULES AND RATES (fixed before testing; "appeal" is defined below)
--------------------------------------------------------------------------
Output form
 F1  JSON answers, per answer: truncated mid-way 1.5%; wrapped in a ```json
     fence 1.5%; a sentence of prose before the JSON 1.0%; one required field
     (not the first) missing 1.0%.  Total ~5%.  At temperature 0 all four
     rates are divided by 4.
 F2  Plain-text turns: speaker's name before the words 5%; words wrapped in
     quotes 4%; the [end]/[continue] tag missing 3%; tag on the same line 3%.
 F3  Field slips inside otherwise valid JSON: a 24-hour time written 12-hour
     style ("2:00 PM") 5% per answer that carries a time; decompose step
     minutes not adding up to the span 8%; an array one item off its bounds
     (ratings count, number of questions) 3%; addressed_to naming someone not
     offered 3%; an evidence number one past the last statement 3%.

Reading (all by meaning: names from the persona/memories/schema enums, times
in any style, places by the schema enum or place lines, dates by the offered
day list).  Middle blindness: a relevant memory that sits only in the middle
third of a list of more than 12 items is overlooked with p = 0.15.

"appeal" of an event to a listener = 0.6, +0.15 if traits are outgoing
(sociable, energetic, curious, jovial, generous, nosy, friendly, cheerful,
warm, chatty, kind), -0.15 if withdrawn (quiet, tired, shy, grumpy, reserved,
busy, lazy, solitary), +0.1 if the event touches the listener's identity
(shared keyword such as children/school/bread/cricket), clamped to 0.2..0.9.
A "real commitment" is a plan item naming another event, a person, an
appointment, "going to:", holding/hosting/meeting; ordinary = sleep, meals,
work/busy, relaxing, chores, seeing people.

Conversation turns (plain_text_turn, group_turn, any "say next" request)
 C1  has news not yet mentioned in the conversation: brings it up at this
     turn p = 0.8 (as an invitation if the speaker hosts the event, p = 0.9
     of those); otherwise small talk.  If the event is already over, p = 0.4
     (told in the past tense, no invitation); if the only listener is the
     event's own host, p = 0.3 (as a compliment).  [These two sub-cases were
     added while implementing, before reading any rate outcome.]
 C1b the listener answered the speaker's news yes/no: acknowledges it.
 C2  invited by the event's host: plan at that time holds a real commitment
     -> declines (or proposes later) p = 0.8, accepts 0.2; no clash ->
     accepts p = appeal.
 C3  news of someone else's event passed on: says they mean to go p = 0.8 *
     appeal when free, p = 0.1 when committed; else just interest.
 C4  the other side said goodbye: says goodbye and ends p = 0.9.
 C5  nothing new and >= 4 lines so far: wraps up and ends p = 0.6; else asks
     or remarks and continues.
 C6  embellishes with a small invented detail p = 0.25.

Memos (conversation_memo, the first/second of conversation_summary, memos of
group_summary)
 M1  the character accepted / said it would go (count me in, I'll come ...):
     plan item recorded p = 0.88; the 12% miss leaves plan fields empty.
 M2  declined / nothing settled: plan fields empty, except a false plan item
     p = 0.03.
 M3  the event is already in the character's plan at that time (host or
     guest): no change, except p = 0.25 it restates it as a plan item.
     An event already over: recorded only p = 0.2 of the above.
 M4  importance: small talk 2-3, news of an event 5-6, invitation accepted
     6-7, declined 4-5, serious life news 8-9; +-1 jitter p = 0.3.

Conversation/group summaries
 S1  they talk: p = 0.85 if anyone has news; 0.5 if they know each other;
     0.35 strangers; +0.1 if the opener is outgoing, -0.1 if withdrawn.
 S2  lines follow C1..C3 for the news holder and the listener(s); 2-6 lines.

Reaction (react)
 R1  untold news for the person noticed: talk 0.7, wait 0.15, continue 0.12,
     react 0.03 (talk 0.45 / continue 0.4 / wait 0.15 if the person noticed
     is the event's own host).
 R2  no news: talk 0.3 (+0.15 outgoing, -0.1 withdrawn, +0.1 known),
     wait 0.1, react 0.03, else continue.

Plans
 P1  daily_plan: hosts own event today p = 0.95; attends someone else's event
     today p = 0.85 if it earlier said it would go, else 0.8 * appeal; uses
     free time to go where untold people are p = 0.5; weekend day off p = 0.4
     (Saturday) / 0.7 (Sunday), halved for shop/inn/bakery keepers.
 P2  decompose: 2-12 steps of 5-15 minutes from an activity library, objects
     only from those offered.
 P3  revise_currently: keeps the old status p = 0.9; adds news/commitments
     p = 0.85.

Ratings
 I1  importance: routine 1-2, observation of others 2-3, conversation 3-4,
     news/invitation 5-7, touching own event/identity +1, serious life news
     8-10; jitter +-1 p = 0.3.

Interviews, relationships, reflections
 Q1  interview "do you know X": yes with a remembered detail if X is in the
     memories or identity (subject to middle blindness), else says it does
     not know; "have you heard about Y": matches memory keywords.
     Embellishment p = 0.25.
 Q2  relationship: from identity mentions and counted interactions; none ->
     "does not know them well yet".
 Q3  reflection questions: from the most frequent people/topics; up to the
     allowed count.  Insights: 1-3 per question, evidence from that question.

Unknown purposes: fill the schema (required fields, enums respected, numbers
inside bounds, arrays at their minimum or a few items), using the prompt's
names/places for strings.
"""

import hashlib
import json
import re
import datetime as _dt

# ---------------------------------------------------------------- randomness


class _Rng:
    def __init__(self, body, seed):
        try:
            msgs = body.get("messages") or []
            txt = "\n".join(str(m.get("content", "")) for m in msgs if isinstance(m, dict))
        except Exception:
            txt = ""
        self.base = "%s|%s|%s" % (seed, _purpose(body), txt)

    def u(self, label):
        h = hashlib.sha256((self.base + "#" + str(label)).encode("utf-8", "replace")).hexdigest()
        return int(h[:12], 16) / float(16 ** 12)

    def chance(self, label, p):
        return self.u(label) < p

    def pick(self, label, seq):
        seq = list(seq)
        if not seq:
            return None
        return seq[int(self.u(label) * len(seq)) % len(seq)]

    def randint(self, label, a, b):
        if b < a:
            a, b = b, a
        return a + int(self.u(label) * (b - a + 1)) % (b - a + 1)


def _purpose(body):
    try:
        rf = body.get("response_format")
        if isinstance(rf, dict):
            js = rf.get("json_schema")
            if isinstance(js, dict) and js.get("name"):
                return str(js.get("name"))
            return "json"
    except Exception:
        pass
    return "text"


# ---------------------------------------------------------------- vocabulary

_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"]
_NUMW = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
         "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_NOT_NAME = set(_DAYS + _MONTHS + [
    "The", "This", "That", "What", "It", "Its", "Today", "Tomorrow", "Name", "Age", "Innate",
    "Identity", "Lifestyle", "Currently", "Answer", "Someone", "Things", "Places", "Nobody",
    "Question", "Memory", "Rewrite", "Plan", "First", "Then", "Make", "Break", "Should",
    "Give", "Keep", "Say", "Decide", "Choose", "Write", "Step", "Which", "Prefer", "If", "In",
    "On", "At", "For", "From", "With", "Who", "How", "When", "Where", "Why", "Each", "Lines",
    "Text", "You", "Have", "Hi", "Hello", "Sorry", "Sounds", "Fine", "Good", "See", "Yes", "No",
    "Ordinary", "News", "An", "A", "Objects", "Describe", "Right", "Schedule", "Agreed", "Relevant",
    "Conversation", "Thanks", "Thank", "Well", "Oh", "Morning", "Evening", "Afternoon", "Wake",
    "Do", "Did", "Are", "Is", "Was", "I", "We", "He", "She", "They", "My", "Our", "Let", "Not",
    "Everyone", "All", "Any", "Some", "There", "Here", "But", "And", "Or", "So", "JSON", "HH", "MM",
    "YYYY", "Great", "Lovely", "Really", "Just", "Dear", "Ah", "Well", "Count", "Bring", "Come"])
_OUTGOING = ["sociable", "energetic", "curious", "jovial", "generous", "nosy", "friendly",
             "cheerful", "warm", "chatty", "kind", "outgoing", "lively", "talkative", "gregarious",
             "enthusiastic", "helpful"]
_WITHDRAWN = ["quiet", "tired", "shy", "grumpy", "reserved", "busy", "lazy", "solitary",
              "gruff", "introvert", "withdrawn", "aloof", "cautious", "serious", "stern"]
_ORDINARY = ["sleep", "breakfast", "lunch", "dinner", "supper", "tea", "meal", "eat", "relax",
             "rest", "home", "busy", "work", "working", "waking", "getting ready", "seeing people",
             "day off", "chore", "clean", "shop", "walk", "read", "tidy", "wash", "teach", "bake",
             "tend", "sort", "open", "serve", "run", "at the", "study", "garden", "knit", "brew",
             "mark", "cook", "leisure", "coffee", "nap", "stroll", "practice", "practise"]
_COMMIT = ["going to:", "going to the", "meeting", "appointment", "with ", "holding", "hosting",
           "party", "event", "match", "concert", "fair", "festival", "wedding", "funeral",
           "service", "celebration", "visit", "calling on", "promised", "keep the", "lesson with"]
_SERIOUS = ["died", "death", "dead", "funeral", "engaged", "wedding", "married", "pregnant",
            "baby", "born", "fire", "accident", "hospital", "ill ", "illness", "sick", "injured",
            "broke up", "breakup", "divorce", "fired", "lost his job", "lost her job", "arrested",
            "storm", "flood", "stolen", "theft", "missing", "proposal", "proposed", "won "]
_ACCEPT = ["count me in", "i'll come", "i will come", "i'll be there", "i will be there",
           "see you there", "wouldn't miss", "would love to", "i'd love to", "i'll try to come",
           "i'll join", "i will join", "i'll go", "i will go", "i'll pop", "i'll drop by",
           "i'll stop by", "i'm in", "i am in", "save me a", "i'll definitely", "i'll be along",
           "i'll come along", "mean to go", "plan to go", "i'll head", "we'll be there",
           "yes, please", "sign me up", "i'll make it"]
_DECLINE = ["can't make it", "cannot make it", "can't come", "cannot come", "won't be able",
            "not be able", "can't go", "cannot go", "i'll have to miss", "have to pass",
            "i'll pass", "no thanks", "no, thank", "another time", "other plans", "can't join",
            "won't make it", "not this time", "too busy", "i'm afraid i can't", "unable to"]
_BYE = ["see you around", "see you later", "goodbye", "good bye", "bye", "good to talk",
        "nice talking", "take care", "see you soon", "must be off", "better get going",
        "be on my way", "until next time", "cheerio", "have a good"]
_EMOJI = {"sleep": "\U0001F634", "wak": "\u23F0", "breakfast": "\U0001F373", "lunch": "\U0001F96A",
          "dinner": "\U0001F37D", "relax": "\U0001F6CB", "bak": "\U0001F35E", "bread": "\U0001F35E",
          "teach": "\U0001F4DA", "class": "\U0001F4DA", "school": "\U0001F3EB", "post": "\U0001F4EE",
          "counter": "\U0001F4EE", "parcel": "\U0001F4E6", "taproom": "\U0001F37A", "inn": "\U0001F37A",
          "ale": "\U0001F37A", "green": "\U0001F333", "cricket": "\U0001F3CF", "nurse": "\U0001FA7A",
          "surgery": "\U0001FA7A", "waiting": "\U0001FA7A", "church": "\u26EA", "nave": "\u26EA",
          "walk": "\U0001F6B6", "seeing people": "\U0001F44B", "telling": "\U0001F4E3",
          "oven": "\U0001F525", "knit": "\U0001F9F6", "read": "\U0001F4D6", "build": "\U0001F528",
          "gate": "\U0001F528", "work": "\U0001F6E0", "busy": "\U0001F6E0", "garden": "\U0001F33B"}

_TS_RE = re.compile(r"\[(?:(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s+)?([A-Z][a-z]+\s+\d{1,2}),?\s+(\d{1,2}:\d{2})\]")
_ROOMW = "room|rooms|hall|kitchen|garden|yard|bar|shop|area|office|floor|corner|field|pitch|stall|ward|parlour|lounge|porch|loft|cellar|study|table|court|house"
_PLACE_RE = re.compile(r"\b([A-Z][\w'&-]*(?: [A-Z][\w'&-]*){0,2}:[A-Z0-9][\w'.&-]*(?: [\w'&-]+){0,4}?:[a-z0-9][\w'&-]*(?: (?:" + _ROOMW + r"))?)\b")
_SCHED_RE = re.compile(r"^\s*(?:[-*\u2022]|\d+\.)?\s*(\d{1,2}:\d{2})\s*(?:-|\u2013|to|until)\s*(\d{1,2}:\d{2})\s*:?\s*(.*?)\s*$")
_PLACE_NOUNS = set("Green Inn Office Hall Street Lane Church Farm House Cottage School Surgery Bakery Bakehouse Road Square Park Market Mill Bridge Arms Tavern Pub Shop Store Station Chapel Common Field Fields Wood Woods Hill Pond River Library Museum Garden Gardens Rooms Manor Court Close Row Way Place Yard Forge Smithy Dairy Barn Quay Harbour Pier Cafe Café Hotel Clinic Hospital Abbey Castle Tower Gate Well Cross Centre Center Club".split())
_NAME_RE = re.compile(r"\b([A-Z][a-z'\-]+(?: (?:de |van |von |O')?[A-Z][a-z'\-]+){1,2})\b")


def _hm(s):
    try:
        h, m = s.split(":")
        return int(h) * 60 + int(m)
    except Exception:
        return None


def _fmt(mins, twelve=False):
    mins = int(mins) % (24 * 60)
    h, m = divmod(mins, 60)
    if twelve:
        ap = "AM" if h < 12 else "PM"
        hh = h % 12 or 12
        return "%d:%02d %s" % (hh, m, ap)
    return "%02d:%02d" % (h, m)


def _spoken_time(mins):
    mins = int(mins) % (24 * 60)
    h, m = divmod(mins, 60)
    if h == 12 and m == 0:
        return "noon"
    if h == 0 and m == 0:
        return "midnight"
    ap = "am" if h < 12 else "pm"
    hh = h % 12 or 12
    return ("%d %s" % (hh, ap)) if m == 0 else ("%d:%02d %s" % (hh, m, ap))


def _low(s):
    return (s or "").lower()


def _clip(s, n):
    s = re.sub(r"\s+", " ", s or "").strip()
    if len(s) <= n:
        return s
    cut = s[:n - 1]
    if " " in cut:
        cut = cut[:cut.rfind(" ")]
    return cut.rstrip(",;: ") + "\u2026" if n > 20 else cut


def _first(name):
    return (name or "").split(" ")[0] if name else ""


def _has_any(text, words):
    t = _low(text)
    return any(w in t for w in words)


# ---------------------------------------------------------------- time parsing

def _ctx_pm(text, h):
    """decide am/pm for a bare hour from nearby words"""
    t = _low(text)
    if h == 12 or h > 12:
        return h
    if re.search(r"\b(evening|tonight|night|afternoon|pm|p\.m\.|dinner|supper)\b", t):
        return h + 12
    if re.search(r"\b(morning|am|a\.m\.|breakfast|dawn)\b", t):
        return h
    if 1 <= h <= 6:
        return h + 12
    return h


def _one_time(tok, ctx):
    """parse one time expression (string) into minutes, or None"""
    t = _low(tok).strip()
    t = t.replace(".", "") if re.search(r"\d\.\d\d", t) is None else t.replace(".", ":")
    if not t:
        return None
    if t in ("noon", "midday", "12 noon"):
        return 12 * 60
    if t == "midnight":
        return 0
    m = re.match(r"^(\d{1,2})(?::(\d{2}))?\s*(am|pm|a m|p m|o'clock|oclock|h)?$", t)
    if m:
        h = int(m.group(1))
        mi = int(m.group(2) or 0)
        ap = (m.group(3) or "").replace(" ", "")
        if h > 23 or mi > 59:
            return None
        if ap == "am":
            h = h % 12
        elif ap == "pm":
            h = h % 12 + 12
        elif m.group(2) is None or ap in ("o'clock", "oclock"):
            h = _ctx_pm(ctx, h) if h <= 12 else h
        return h * 60 + mi
    m = re.match(r"^(half past|quarter past|quarter to|twenty past|ten past|five past|twenty to|ten to|five to)\s+(\w+)(?:\s*(am|pm))?$", t)
    if m:
        base = _NUMW.get(m.group(2)) or (int(m.group(2)) if m.group(2).isdigit() else None)
        if base is None:
            return None
        off = {"half past": 30, "quarter past": 15, "quarter to": -15, "twenty past": 20,
               "ten past": 10, "five past": 5, "twenty to": -20, "ten to": -10, "five to": -5}[m.group(1)]
        h = base
        if m.group(3) == "pm":
            h = h % 12 + 12
        elif m.group(3) == "am":
            h = h % 12
        else:
            h = _ctx_pm(ctx, h)
        return (h * 60 + off) % (24 * 60)
    m = re.match(r"^(\w+)(?:\s+(o'clock|am|pm|in the morning|in the afternoon|in the evening|at night))?$", t)
    if m and m.group(1) in _NUMW:
        h = _NUMW[m.group(1)]
        suf = m.group(2) or ""
        if suf in ("am", "in the morning"):
            h = h % 12
        elif suf in ("pm", "in the afternoon", "in the evening", "at night"):
            h = h % 12 + 12
        else:
            h = _ctx_pm(ctx, h)
        return h * 60
    return None


_TIME_TOK = (r"(?:noon|midday|midnight|(?:half past|quarter past|quarter to|twenty past|ten past|five past|twenty to|ten to|five to)\s+\w+(?:\s*[ap]m)?"
             r"|\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|o'clock)?|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?:\s+o'clock)?)")
_RANGE_RE = re.compile(r"(?:from\s+|between\s+)?(" + _TIME_TOK + r")\s*(?:until|till|til|to|-|\u2013|and)\s*(" + _TIME_TOK + r")\b", re.I)
_AT_RE = re.compile(r"\b(?:at|from|by|around|about|starts at|starting at)\s+(" + _TIME_TOK + r")\b", re.I)


def parse_time_range(text):
    """(start, end) in minutes from free text; end may be None; None if no time"""
    if not text:
        return None
    t = re.sub(r"\[[^\]]*\]", " ", text)
    for m in _RANGE_RE.finditer(t):
        a, b = m.group(1), m.group(2)
        if re.fullmatch(r"\d{1,2}", a.strip()) and re.fullmatch(r"\d{1,2}", b.strip()):
            # bare numbers: only if clock-like context words follow/precede
            win = _low(t[max(0, m.start() - 25):m.end() + 25])
            if not re.search(r"morning|afternoon|evening|night|o'clock|am|pm", win):
                continue
        ctx = t[max(0, m.start() - 40):m.end() + 40]
        s = _one_time(a, ctx)
        e = _one_time(b, ctx)
        if s is None or e is None:
            continue
        if e <= s and e + 12 * 60 > s and e < 12 * 60:
            e += 12 * 60
        if e <= s:
            e = s + 120
        return (s, e)
    for m in _AT_RE.finditer(t):
        tok = m.group(1)
        if re.fullmatch(r"\d{1,2}", tok.strip()):
            win = _low(t[m.end():m.end() + 25])
            if not re.search(r"morning|afternoon|evening|night|o'clock", win):
                continue
        ctx = t[max(0, m.start() - 40):m.end() + 40]
        s = _one_time(tok, ctx)
        if s is not None:
            return (s, None)
    m = re.search(r"\b([01]?\d|2[0-3]):([0-5]\d)\b", t)
    if m:
        return (int(m.group(1)) * 60 + int(m.group(2)), None)
    m = re.search(r"\b((?:half past|quarter past|quarter to|twenty past|ten past|five past|twenty to|ten to|five to)\s+\w+|\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|noon|midday)\b", t, re.I)
    if m:
        s = _one_time(m.group(1), t[max(0, m.start() - 40):m.end() + 40])
        if s is not None:
            return (s, None)
    tl = _low(t)
    if "this evening" in tl or "tonight" in tl:
        return (18 * 60, None)
    return None


# ---------------------------------------------------------------- prompt reading

class Prompt:
    """Everything the model 'reads' from a request, found by meaning."""

    def __init__(self, body):
        self.body = body if isinstance(body, dict) else {}
        msgs = self.body.get("messages") or []
        self.system = "\n".join(str(m.get("content", "")) for m in msgs
                                if isinstance(m, dict) and m.get("role") == "system")
        users = [str(m.get("content", "")) for m in msgs
                 if isinstance(m, dict) and m.get("role") != "system"]
        self.user = "\n".join(users)
        self.text = self.system + "\n" + self.user
        self.lines = self.user.split("\n")
        rf = self.body.get("response_format")
        self.schema = {}
        if isinstance(rf, dict):
            js = rf.get("json_schema") or {}
            if isinstance(js, dict):
                self.schema = js.get("schema") or {}
            if not self.schema and isinstance(rf.get("schema"), dict):
                self.schema = rf.get("schema")
        self.purpose = _purpose(self.body)
        try:
            self.temperature = float(self.body.get("temperature", 0.7))
        except Exception:
            self.temperature = 0.7
        self._parse()

    # -- schema helpers
    def resolve(self, sch):
        seen = 0
        while isinstance(sch, dict) and "$ref" in sch and seen < 10:
            ref = sch["$ref"].split("/")[-1]
            sch = (self.schema.get("$defs") or self.schema.get("definitions") or {}).get(ref, {})
            seen += 1
        if isinstance(sch, dict) and "anyOf" in sch:
            for alt in sch["anyOf"]:
                a = self.resolve(alt)
                if isinstance(a, dict) and a.get("type") != "null":
                    return a
        return sch if isinstance(sch, dict) else {}

    def enums_named(self, key_words):
        out = []

        def walk(s, key=""):
            if isinstance(s, dict):
                if "enum" in s and any(k in _low(key) for k in key_words):
                    for v in s["enum"]:
                        if isinstance(v, str) and v not in out:
                            out.append(v)
                for k, v in s.items():
                    walk(v, k if k not in ("items", "properties", "anyOf", "$defs") else key)
            elif isinstance(s, list):
                for v in s:
                    walk(v, key)
        walk(self.schema)
        return out

    # -- main parse
    def _parse(self):
        text = self.user
        # self name
        m = re.search(r"(?:inner mind of|you are|You play|playing)\s+([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})", self.system)
        self.me = m.group(1) if m else None
        persons = []
        for mm in re.finditer(r"^\s*(?:Name|Character|NPC)\s*:\s*(.+?)\s*$", text, re.M):
            nm = mm.group(1).strip()
            if nm and nm not in persons:
                persons.append(nm)
        if not self.me:
            self.me = persons[0] if persons else None
        if not self.me:
            m = re.search(r"What does ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)?) say", text)
            self.me = m.group(1) if m else None
        # places
        places = self.enums_named(["place", "address", "location", "where"])
        for mm in _PLACE_RE.finditer(text):
            p = mm.group(1).strip().rstrip(".,;)")
            if p.count(":") == 2 and p not in places and len(p) < 90:
                places.append(p)
        self.places = [p for p in places if p]
        # people
        enum_people = self.enums_named(["speaker", "name", "addressed", "person", "who"])
        enum_people = [p for p in enum_people if p and _low(p) not in ("everyone", "all", "nobody", "none")]
        placewords = set()
        for p in self.places:
            for part in p.split(":"):
                placewords.add(part.strip())
        cand = {}
        for mm in _NAME_RE.finditer(text):
            nm = mm.group(1)
            ws = nm.split(" ")
            if ws[0] in _NOT_NAME or ws[-1] in _NOT_NAME or nm in placewords:
                continue
            if any(nm in pw for pw in placewords) or (":" + nm + ":") in text:
                continue
            if ws[-1] in _PLACE_NOUNS or ws[0] in ("St", "Saint", "Old", "New", "Upper", "Lower", "Little", "Great"):
                continue
            after = text[mm.end():mm.end() + 14]
            if re.match(r"(?: is | was | has | told| chatted| heard| said| started| knows| means|:|'s|,| and| who| left| invites| will)", after):
                cand[nm] = cand.get(nm, 0) + 1
        people = []
        for nm in ([self.me] if self.me else []) + persons + enum_people:
            if nm and nm not in people:
                people.append(nm)
        for nm, c in sorted(cand.items(), key=lambda kv: -kv[1]):
            if nm not in people and not any(nm in q or q in nm for q in people):
                people.append(nm)
        self.people = people
        self.others = [p for p in people if p != self.me]
        # persona blocks
        self.personas = {}
        cur = None
        for ln in self.lines:
            mm = re.match(r"^\s*([A-Za-z][A-Za-z ]{1,20}):\s*(.*)$", ln)
            if mm and _low(mm.group(1)).strip() in ("name", "character", "npc"):
                cur = mm.group(2).strip()
                self.personas[cur] = {"name": cur}
                continue
            if cur and mm:
                key = _low(mm.group(1)).strip()
                val = mm.group(2).strip()
                for k, alias in (("age", "age"), ("trait", "traits"), ("identity", "identity"),
                                 ("about", "identity"), ("occupation", "identity"),
                                 ("lifestyle", "lifestyle"), ("routine", "lifestyle"),
                                 ("currently", "currently"), ("status", "currently")):
                    if k in key and alias not in self.personas[cur]:
                        self.personas[cur][alias] = val
                        break
            elif cur and not ln.strip():
                cur = None
        # now (date and time)
        self.today_name, self.today_md, self.now = None, None, None
        for ln in [x for x in self.lines if re.search(r"\b(it is|it's|today|now|date|current)\b", _low(x))] + self.lines:
            if ln.lstrip().startswith(("-", "*")) or re.match(r"^\s*\d+\.", ln):
                continue
            mm = re.search(r"\b(" + "|".join(_DAYS) + r"),?\s+(" + "|".join(_MONTHS) + r")\s+(\d{1,2})", ln)
            if mm:
                self.today_name = mm.group(1)
                self.today_md = (_MONTHS.index(mm.group(2)) + 1, int(mm.group(3)))
                tm = re.search(r"\b(\d{1,2}):(\d{2})\b", ln[mm.end():])
                if tm:
                    self.now = int(tm.group(1)) * 60 + int(tm.group(2))
                else:
                    r = parse_time_range(ln[mm.end():])
                    if r:
                        self.now = r[0]
                break
        ym = re.search(r"\b(20\d\d)-\d\d-\d\d\b", self.text + json.dumps(self.schema)) or re.search(r"\b(20\d\d)\b", self.text)
        self.year = int(ym.group(1)) if ym else 2026
        self.today_iso = None
        if self.today_md:
            try:
                self.today_iso = _dt.date(self.year, self.today_md[0], self.today_md[1]).isoformat()
            except Exception:
                self.today_iso = None
        if not self.today_iso:
            mm = re.search(r"(\d{4}-\d{2}-\d{2})\s*\(today", self.text)
            if mm:
                self.today_iso = mm.group(1)
        # offered dates
        d = self.enums_named(["date", "day"])
        d = [x for x in d if re.fullmatch(r"\d{4}-\d{2}-\d{2}", x)]
        for mm in re.finditer(r"\b(\d{4}-\d{2}-\d{2})\b", self.user):
            if mm.group(1) not in d:
                d.append(mm.group(1))
        self.dates = d
        # schedules by owner
        self.schedules = {}
        self.memories = {}
        self.sections = self._sections()
        for head, owner, items in self.sections:
            sch = []
            mem = []
            for it in items:
                sm = _SCHED_RE.match(it)
                if sm and _hm(sm.group(1)) is not None and _hm(sm.group(2)) is not None:
                    rest = sm.group(3)
                    pl = ""
                    pm = _PLACE_RE.search(rest)
                    if pm:
                        pl = pm.group(1).rstrip(").")
                        rest = rest[:pm.start()]
                    rest = re.sub(r"\(\s*(planned at|at)?\s*$", "", rest).strip(" (")
                    sch.append({"start": _hm(sm.group(1)), "end": _hm(sm.group(2)),
                                "activity": rest.strip(), "place": pl})
                elif _TS_RE.search(it[:40]) or re.match(r"^\s*(?:[-*]|\d+\.)\s*\[", it):
                    mem.append(it)
            if sch and owner:
                self.schedules.setdefault(owner, []).extend(sch)
            if mem and owner:
                self.memories.setdefault(owner, []).extend(mem)
        # conversation lines
        self.convo = self._conversation()
        # news
        self.news = self._news()

    def _sections(self):
        out = []
        head = ""
        owner = self.me
        items = []
        persona_owner = self.me
        for ln in self.lines:
            s = ln.strip()
            mm = re.match(r"^\s*(?:Name|Character|NPC)\s*:\s*(.+?)\s*$", ln)
            if mm:
                persona_owner = mm.group(1).strip()
            if re.match(r"^\s*(?:[-*\u2022]|\d+\.)\s+", ln):
                items.append(s)
                continue
            if not s:
                continue
            if items:
                out.append((head, owner, items))
                items = []
            head = s
            owner = None
            hl = head
            best = None
            for p in sorted(self.people, key=len, reverse=True):
                i = hl.find(p)
                if i >= 0 and (best is None or i < best[0]):
                    best = (i, p)
            if best is None:
                for p in self.people:
                    if re.search(r"\b" + re.escape(_first(p)) + r"\b", hl):
                        best = (0, p)
                        break
            owner = best[1] if best else persona_owner
        if items:
            out.append((head, owner, items))
        return out

    def _conversation(self):
        """list of (speaker, text) for the conversation being discussed"""
        best = []
        cur = []
        for ln in self.lines:
            s = ln.strip()
            mm = re.match(r"^(?:[-*]\s*)?([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})\s*:\s*[\"\u201c](.*?)[\"\u201d]?\s*$", s)
            if mm and mm.group(1) not in ("Name", "Memory", "Identity", "Currently", "Question", "Answer") \
                    and not _TS_RE.search(s[:40]):
                cur.append((mm.group(1), mm.group(2)))
                continue
            if cur:
                if len(cur) >= len(best):
                    best = cur
                cur = []
        if cur and len(cur) >= len(best):
            best = cur
        return best

    def _news(self):
        """dict owner -> news text (None if no news) from lines announcing news"""
        out = {}
        pat = re.compile(r"(has news|news on (?:their|his|her) mind|news to (?:pass on|share|tell)|keen to (?:share|tell)|wants to tell|eager to (?:share|tell)|has something to tell|is bursting to tell)", re.I)
        for ln in self.lines:
            if _TS_RE.search(ln[:45]):
                continue
            lnl = _low(ln)
            nomm = re.search(r"\b(has no news|no news to|nothing (?:new )?to pass on|no news on)", lnl)
            if nomm:
                owner = self._closest(ln[:nomm.start()])
                if owner not in out:
                    out[owner] = None
                continue
            for mm in pat.finditer(ln):
                pre = ln[:mm.start()]
                owner = self._closest(pre)
                rest = ln[mm.end():]
                c = rest.find(":")
                if c < 0 or c > 80:
                    continue
                body = rest[c + 1:].strip()
                body = re.split(r"\s(?:Where people|To tell them|How \w+ \w+ sees)", body)[0]
                if body and owner not in out:
                    out[owner] = body
                break
        return out

    def _closest(self, pre):
        best, bi = None, -1
        for p in self.people:
            i = pre[-80:].rfind(p)
            if i > bi:
                best, bi = p, i
        return best or self.me

    # -- helpers
    def persona(self, name=None):
        name = name or self.me
        return self.personas.get(name) or {}

    def traits(self, name=None):
        p = self.persona(name)
        return _low(p.get("traits", "") + " " + p.get("identity", ""))

    def outgoing(self, name=None):
        t = self.traits(name)
        return any(w in t for w in _OUTGOING), any(w in t for w in _WITHDRAWN)

    def home_of(self, name=None):
        name = name or self.me
        sur = (name or "").split(" ")[-1]
        for p in self.places:
            if sur and sur in p:
                return p
        sch = self.schedules.get(name) or []
        for b in sch:
            if "sleep" in _low(b["activity"]) and b["place"]:
                return b["place"]
        for p in self.places:
            if any(w in _low(p) for w in ("home", "house", "cottage", "flat", "rooms", "bedroom")):
                return p
        return self.places[0] if self.places else ""

    def place_for(self, text, allowed=None):
        allowed = allowed if allowed is not None else self.places
        if not allowed or not text:
            return ""
        tl = _low(text)
        best, bs = "", 1
        for p in allowed:
            parts = p.split(":")
            mid = parts[1] if len(parts) >= 3 else parts[0]
            last = parts[-1]
            sc = 0
            ws = [w for w in re.findall(r"[A-Za-z']+", mid) if len(w) >= 3]
            for j, w in enumerate(ws):
                wl = _low(w)
                if wl in ("the", "and", "st", "old", "new"):
                    continue
                if re.search(r"\b" + re.escape(wl) + r"\b", tl):
                    sc += 2 if j == len(ws) - 1 else 1
            for w in re.findall(r"[A-Za-z']+", last):
                wl = _low(w)
                if len(wl) >= 4 and wl not in ("room", "rooms", "bedroom") and re.search(r"\b" + re.escape(wl) + r"\b", tl):
                    sc += 1
            if sc > bs:
                best, bs = p, sc
        return best

    def short_place(self, p):
        if not p:
            return ""
        parts = p.split(":")
        if len(parts) >= 3:
            return parts[1]
        return parts[-1]

    def date_from(self, text):
        """ISO date meant by text, relative to today; None if none"""
        if not text:
            return None
        tl = text
        found = None
        for mm in re.finditer(r"\b(" + "|".join(_MONTHS) + r")\s+(\d{1,2})\b", tl):
            try:
                found = _dt.date(self.year, _MONTHS.index(mm.group(1)) + 1, int(mm.group(2))).isoformat()
            except Exception:
                pass
        if found:
            return found
        for mm in re.finditer(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + "|".join(_MONTHS) + r")\b", tl):
            try:
                found = _dt.date(self.year, _MONTHS.index(mm.group(2)) + 1, int(mm.group(1))).isoformat()
            except Exception:
                pass
        if found:
            return found
        if not self.today_iso:
            return None
        today = _dt.date.fromisoformat(self.today_iso)
        t = _low(tl)
        if re.search(r"\b(today|tonight|this (?:morning|afternoon|evening))\b", t):
            return today.isoformat()
        if "day after tomorrow" in t:
            return (today + _dt.timedelta(days=2)).isoformat()
        if "tomorrow" in t:
            return (today + _dt.timedelta(days=1)).isoformat()
        for i, dn in enumerate(_DAYS):
            if re.search(r"\b" + dn.lower() + r"\b", t):
                delta = (i - today.weekday()) % 7
                if "next " + dn.lower() in t and delta == 0:
                    delta = 7
                return (today + _dt.timedelta(days=delta)).isoformat()
        return None

    def day_phrase(self, iso):
        if not iso or not self.today_iso:
            return ""
        try:
            d = _dt.date.fromisoformat(iso)
            t = _dt.date.fromisoformat(self.today_iso)
        except Exception:
            return ""
        delta = (d - t).days
        if delta == 0:
            return "today"
        if delta == 1:
            return "tomorrow"
        if 1 < delta < 7:
            return "on " + _DAYS[d.weekday()]
        return "on %s %s %d" % (_DAYS[d.weekday()], _MONTHS[d.month - 1], d.day)


# ---------------------------------------------------------------- events

_HOSTVERB = r"(?:is going to|is gonna|will|is holding|is hosting|is having|is throwing|is putting on|is organising|is organizing|is running|is opening|invites|is inviting|plans to|is planning to|means to|wants to|has invited|is starting|is giving|'ll)"


class Event:
    def __init__(self):
        self.host = None
        self.teller = None
        self.what = ""
        self.date = None
        self.start = None
        self.end = None
        self.place = ""
        self.raw = ""
        self.keywords = []

    def minutes(self):
        if self.start is None:
            return 60
        if self.end is None or self.end <= self.start:
            return 120
        return min(600, self.end - self.start)


def extract_event(P, text, default_host=None):
    if not text:
        return None
    ev = Event()
    t = text.strip()
    m = re.match(r"^(?:.*?\b)?([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2}) (?:told|said to|tells) ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})\s*:\s*", t)
    if m and m.start(1) < 5:
        ev.teller = m.group(1)
        t = t[m.end():]
    m = re.match(r"^([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2}) (?:heard from|learned from) [^:]{0,60}:\s*", t)
    if m:
        t = t[m.end():]
    ev.raw = t
    sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z])", t)
    best, bs = t, -1
    for snt in sentences:
        sc = 0
        if re.search(_HOSTVERB, snt):
            sc += 2
        if parse_time_range(snt):
            sc += 2
        if re.search(r"\b(today|tomorrow|tonight|" + "|".join(_DAYS) + r")\b", snt, re.I):
            sc += 1
        if sc > bs:
            best, bs = snt, sc
    ev.host = None
    fp = re.search(r"\b(?:I'm|I am|I'll|I will|We're|We are|we're|we are|we'll)\s+(going to|holding|hosting|having|throwing|putting on|organising|organizing|running|opening|giving|starting|inviting (?:you|everyone) to|planning to)\s+(.*)", best)
    if fp and default_host:
        ev.host = default_host
        v = fp.group(1)
        ev.verb = "is " + ("inviting everyone to" if v.startswith("inviting") else v)
        rest = fp.group(2)
        hm = None
    else:
        hm = re.search(r"\b([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})\s+(" + _HOSTVERB + r")\s+(.*)", best)
    if ev.host is None:
        ev.verb = "is going to"
        if hm:
            ev.verb = hm.group(2)
        if hm and hm.group(1) in P.people:
            ev.host = hm.group(1)
            rest = hm.group(3)
        else:
            for p in P.people:
                if p in best:
                    ev.host = p
                    break
            rest = best
            if hm:
                rest = hm.group(3)
    if ev.host is None:
        ev.host = default_host
    # the 'what': verb phrase up to time/date words
    w = re.split(r"\s*(?:[,;(]|\s(?:tomorrow|today|tonight|this (?:morning|afternoon|evening)|on (?:" + "|".join(_DAYS) + r")|next |at \d|at (?:noon|midday|" + "|".join(_NUMW) + r")\b|from \d|from (?:" + "|".join(_NUMW) + r")\b|between |so that|so |in the (?:morning|afternoon|evening))\b)", rest, maxsplit=1)[0]
    w = w.strip(" .")
    if not w or len(w) < 4:
        w = _clip(re.sub(r"\([^)]*\)", "", best), 60)
    ev.what = _clip(w, 70)
    # purpose clause (for flavour)
    pm = re.search(r"\bso (?:that )?([^;.]{5,120})", best)
    ev.purpose = pm.group(1).strip() if pm else ""
    ev.date = P.date_from(t) or P.date_from(best)
    tr = parse_time_range(best) or parse_time_range(t)
    if tr:
        ev.start, ev.end = tr
    ev.place = P.place_for(t) if P.places else ""
    pw = ""
    for mm in re.finditer(r"\b(?:at|in|on) (?:the )?([A-Z][\w']+(?: [A-Z][\w']+){0,2})", t):
        if mm.group(1).split(" ")[0] not in _DAYS + _MONTHS and mm.group(1) not in P.people:
            pw = mm.group(1)
    if not ev.place:
        ev.place_words = pw
    else:
        ev.place_words = P.short_place(ev.place)
    if ev.place_words:
        ev.what = re.sub(r"\s+(?:at|in) (?:the )?" + re.escape(ev.place_words) + r"\b", "", ev.what).strip() or ev.what
    kw = []
    for wd in re.findall(r"[A-Za-z']+", ev.what):
        if len(wd) > 3 and _low(wd) not in ("going", "keep", "have", "hold", "with", "that", "this", "their", "will", "from", "make", "take", "some", "into", "about"):
            kw.append(_low(wd))
    if ev.place_words:
        kw.append(_low(ev.place_words.split(" ")[0]))
    ev.keywords = kw[:6]
    return ev


def gerund(phrase):
    ws = (phrase or "").split(" ")
    if not ws or not ws[0]:
        return phrase
    v = ws[0]
    lv = _low(v)
    irregular = {"run": "running", "get": "getting", "put": "putting", "sit": "sitting", "shop": "shopping",
                 "be": "being", "see": "seeing", "set": "setting", "stop": "stopping", "plan": "planning",
                 "swim": "swimming", "begin": "beginning"}
    if lv in irregular:
        g = irregular[lv]
    elif lv.endswith("ie"):
        g = lv[:-2] + "ying"
    elif lv.endswith("e") and not lv.endswith("ee") and len(lv) > 2:
        g = lv[:-1] + "ing"
    elif lv.endswith("ing") or lv in ("a", "an", "the"):
        return phrase
    else:
        g = lv + "ing"
    return " ".join([g] + ws[1:])


def event_label(ev, for_host):
    """short activity label for a plan item"""
    if not ev:
        return "the event"
    v = _low(getattr(ev, "verb", "is going to"))
    what = ev.what
    holding = any(x in v for x in ("holding", "hosting", "having", "throwing", "putting on", "organis", "organiz", "running", "giving", "starting", "opening"))
    if for_host:
        if holding:
            return _clip(v.replace("is ", "") + " " + what, 100)
        return _clip(gerund(what), 100)
    hf = _first(ev.host) if ev.host else "the"
    if holding:
        noun = re.sub(r"^(?:a|an|the|his|her|their)\s+", "", what)
        return _clip("going to %s's %s" % (hf, noun), 100) if ev.host else _clip("going to the " + noun, 100)
    return _clip("joining %s: %s" % (hf, gerund(what)), 100)


def event_sentence(P, ev, first_person=False):
    """'Owen Pryce is going to keep the Bakehouse oven hot today from 10 am to noon, at the Bakehouse'"""
    v = getattr(ev, "verb", "is going to")
    w = when_phrase(P, ev)
    if first_person:
        fv = v
        if v.startswith("is "):
            fv = "I'm " + v[3:]
        elif v == "will" or v == "'ll":
            fv = "I'll"
        elif v in ("invites", "has invited"):
            fv = "I'm inviting everyone to"
        else:
            fv = "I " + re.sub(r"s$", "", v)
        s = "%s %s" % (fv, third_to_first(ev.what, ev.host))
    else:
        s = "%s %s %s" % (ev.host or "someone", v, ev.what)
    if w:
        s += " " + w
    return s


def event_mentioned(ev, text):
    if not ev or not text:
        return False
    tl = _low(text)
    hits = sum(1 for k in ev.keywords if k in tl)
    return hits >= max(1, min(2, len(ev.keywords) // 2))


def when_phrase(P, ev, speaker_is_host=False):
    parts = []
    dp = P.day_phrase(ev.date) if ev.date else ""
    if ev.start is not None:
        if dp == "today" and ev.start < 12 * 60 and (P.now or 0) < 12 * 60:
            dp = "this morning"
        elif dp == "today" and ev.start >= 17 * 60:
            dp = "this evening"
        if ev.end:
            tp = "from %s to %s" % (_spoken_time(ev.start), _spoken_time(ev.end))
        else:
            tp = "at %s" % _spoken_time(ev.start)
        parts.append(((dp + " ") if dp else "") + tp)
    elif dp:
        parts.append(dp)
    if ev.place_words:
        parts.append("at the %s" % ev.place_words)
    return ", ".join(parts)


def third_to_first(what, host):
    w = what
    w = re.sub(r"\bhis\b|\bher\b|\btheir\b", "my", w)
    w = re.sub(r"\bhim\b|\bthem\b", "me", w)
    return w


def plan_item_at(P, owner, start, date=None):
    """the schedule item of owner covering start (same day only)"""
    if start is None:
        return None
    if date and P.today_iso and date != P.today_iso:
        # schedules shown are for today (plus a 'tomorrow not planned yet' line)
        return None
    for b in P.schedules.get(owner, []):
        s, e = b["start"], b["end"]
        if e <= s:
            if start >= s or start < e:
                return b
        elif s <= start < e:
            return b
    return None


def is_commitment(activity):
    a = _low(activity)
    if not a:
        return False
    if any(w in a for w in ("going to:", "appointment", "meeting", "holding", "hosting", "party",
                            "wedding", "funeral", "match", "concert", "lesson with", "calling on",
                            "visit", "promised", "event")):
        return True
    if re.search(r"\bwith [A-Z]", activity or ""):
        return True
    if re.search(r"\b(going to the|going to) ", a) and not re.search(r"going to (bed|sleep|work)", a):
        return True
    return False


def appeal(P, who, ev):
    a = 0.6
    og, wd = P.outgoing(who)
    if og:
        a += 0.15
    if wd:
        a -= 0.15
    ident = _low(P.persona(who).get("identity", "") + " " + P.persona(who).get("currently", "").split(".")[0])
    evt = _low((ev.raw if ev else "") + " " + (ev.what if ev else ""))
    shared = [w for w in ("child", "school", "bread", "bak", "cricket", "music", "garden", "church",
                          "book", "dance", "ale", "beer", "cake", "food", "knit", "fish", "walk", "sport",
                          "art", "paint", "sing", "film", "market", "fair", "game", "play")
              if w in ident and w in evt]
    if shared:
        a += 0.1
    return max(0.2, min(0.9, a))


def said_yes(text):
    t = _low(text)
    if any(w in t for w in _DECLINE):
        return False
    return any(w in t for w in _ACCEPT)


def said_no(text):
    return any(w in _low(text) for w in _DECLINE)


def is_bye(text):
    return any(w in _low(text) for w in _BYE)


# ---------------------------------------------------------------- talking

_SMALL_DETAILS = [
    "The weather's meant to hold, too.",
    "I'll bring a flask of tea.",
    "It's been such a busy week, hasn't it?",
    "I might bring a few scones along.",
    "Lovely to have something to look forward to.",
    "I was only saying so to my neighbour this morning.",
]


def event_past(P, ev):
    if not ev or not ev.date or not P.today_iso:
        return False
    if ev.date < P.today_iso:
        return True
    if ev.date == P.today_iso and P.now is not None and ev.start is not None:
        end = ev.end if ev.end else ev.start + 120
        return end <= P.now
    return False


def news_event(P, who):
    n = P.news.get(who)
    if not n:
        return None
    return extract_event(P, n, default_host=None)


def me_sentence(P, who):
    cur = P.persona(who).get("currently", "")
    first = re.split(r"(?<=[.!?])\s", cur)[0] if cur else ""
    m = re.match(r"^" + re.escape(who) + r"\s+is\s+(.*?)[.!]?$", first) if who else None
    if m:
        return "I've been " + m.group(1).rstrip(".")
    ident = P.persona(who).get("identity", "")
    if ident:
        return "Busy as ever here"
    return "Oh, not much to report"


def _listen_name(listeners):
    if not listeners:
        return ""
    if len(listeners) == 1:
        return _first(listeners[0])
    return "everyone"


def find_convo_event(P, convo, prefer=None):
    """the event discussed in a list of (speaker, text) lines"""
    for who, n in P.news.items():
        if n:
            ev = extract_event(P, n)
            if ev and any(event_mentioned(ev, t) for _, t in convo):
                return ev
    for sp, t in convo:
        if parse_time_range(t) or re.search(r"\b(today|tomorrow|tonight|" + "|".join(_DAYS) + r")\b", t):
            if re.search(_HOSTVERB, t) or re.search(r"\b(i'm|i am|we're|i'll|we'll) (having|holding|hosting|throwing|putting on|organi[sz]ing|running|opening|giving|going to)\b", _low(t)) or \
                    re.search(r"\b(come|coming|join|fancy|would you like|want to come|invite|invited|party|event|barbecue|dance|tasting|fair|concert|match|picnic|celebration|gathering)\b", _low(t)):
                ev = extract_event(P, t, default_host=sp)
                if ev and (ev.start is not None or ev.date):
                    return ev
    return prefer


def busy_phrase(act):
    a = (act or "").strip()
    if a and a[0].isupper() and not re.match(r"^[A-Z][a-z]+ [A-Z]", a):
        a = a[0].lower() + a[1:]
    if re.match(r"^\w+ing\b", a):
        return "I'm " + a
    return "I've got " + a


def _greeting_word(P):
    n = P.now if P.now is not None else 600
    if n < 12 * 60:
        return "Morning"
    if n < 17 * 60:
        return "Afternoon"
    return "Evening"


def _ask_about(P, other):
    cur = P.persona(other).get("currently", "")
    m = re.match(r"^" + re.escape(other) + r"\s+is\s+(\w+ing)\s+(.*?)[.!;]", cur) if other else None
    if m:
        return "How's the %s coming along?" % re.sub(r"^(a|an|the|some)\s+", "", m.group(2).split(",")[0])[:60]
    return "What have you been up to?"


def _fresh(R, label, options, convo):
    said = set(t for _, t in convo)
    opts = [o for o in options if o not in said] or options
    return R.pick(label, opts)


def next_turn(P, R, speaker, listeners, convo, label="t"):
    """returns (utterance, addressed_to, end)"""
    L = lambda x: "%s|%s|%d|%s" % (label, speaker, len(convo), x)
    ev_self = news_event(P, speaker)
    present = set(listeners)
    others_lines = [(s, t) for s, t in convo if s != speaker and (s in present or not present)]
    if not others_lines:
        others_lines = [(s, t) for s, t in convo if s != speaker]
    my_lines = [t for s, t in convo if s == speaker]
    lo_sp, lo_t = (others_lines[-1] if others_lines else (None, ""))
    addr_name = lo_sp if (lo_sp and (lo_sp in present or not present)) else (listeners[0] if listeners else lo_sp)
    addressed = addr_name if addr_name else "everyone"
    if len(listeners) > 1 and not lo_sp:
        addressed = "everyone"
    extra = (" " + R.pick(L("det"), _SMALL_DETAILS)) if R.chance(L("emb"), 0.25) else ""
    greet_back = ""
    if not my_lines and lo_t and re.search(r"\b(hi|hello|morning|afternoon|evening|hey)\b", _low(lo_t)[:40]):
        greet_back = "Hi %s! " % _first(lo_sp)
    # the event the others talked about (most recent line that mentions one)
    ev_o, ev_line_sp, ev_idx = None, None, -1
    for i in range(len(convo) - 1, -1, -1):
        s_, t_ = convo[i]
        if s_ == speaker:
            continue
        if ev_self and event_mentioned(ev_self, t_):
            ev_o = ev_self
        else:
            ev_o = find_convo_event(P, [(s_, t_)])
        if ev_o:
            ev_line_sp, ev_idx = s_, i
            break
    responded = False
    if ev_o:
        for s_, t_ in convo[ev_idx + 1:]:
            if s_ == speaker:
                responded = True
    ev_self_mentioned = bool(ev_self) and any(event_mentioned(ev_self, t) for _, t in convo)
    host_listener = bool(ev_self) and ev_self.host in listeners and len(listeners) == 1
    past_self = bool(ev_self) and event_past(P, ev_self)
    p_news = 0.3 if host_listener else (0.4 if past_self else 0.8)
    # 1. opening
    if not convo:
        who = _listen_name(listeners) or "there"
        greet = R.pick(L("g"), ["Hi %s!" % who, "Hello, %s!" % who, "Oh, hello %s!" % who, "%s, %s!" % (_greeting_word(P), who)])
        if ev_self and R.chance(L("news"), p_news):
            return greet + " " + news_line(P, R, speaker, ev_self, L, listeners) + extra, addressed, False
        q = R.pick(L("q"), ["How are you doing?", "How's your day going?", "Lovely to see you - how are things?"])
        return "%s %s %s." % (greet, q, me_sentence(P, speaker)), addressed, False
    # 2. someone present said goodbye
    bye_now = is_bye(lo_t[-70:]) if lo_t else False
    if bye_now and not (ev_o and not responded and ev_line_sp == lo_sp and len(lo_t) > 160):
        if R.chance(L("bye"), 0.9):
            return _fresh(R, L("byet"), ["Bye for now, %s - take care!" % _first(lo_sp),
                                          "Good to see you, %s. See you around!" % _first(lo_sp),
                                          "Take care, %s! Have a lovely rest of your day." % _first(lo_sp)], convo), addressed, True
        return "Oh, before you go - it was really good to catch up, %s." % _first(lo_sp), addressed, False
    # 3. an event came up from the others and this speaker has not answered it
    if ev_o and not responded:
        if ev_o.host == speaker:
            if said_yes(lo_t):
                return greet_back + _fresh(R, L("ownyes"), ["Wonderful, I'm so glad you can come! See you there.",
                                                            "Oh, lovely - I'll save you some dough!"], convo) + extra, addressed, False
            return greet_back + _fresh(R, L("own"), ["Ha, that's me! Yes, do come along %s - the more the merrier." % when_phrase(P, ev_o),
                                                     "That's my doing, actually! I'd love to see you there %s." % when_phrase(P, ev_o)], convo) + extra, addressed, False
        if event_past(P, ev_o):
            return greet_back + "Oh, that was %s, wasn't it? I hope it went well." % (P.day_phrase(ev_o.date) or "earlier"), addressed, False
        item = plan_item_at(P, speaker, ev_o.start, ev_o.date)
        clash = bool(item) and is_commitment(item["activity"]) and not event_mentioned(ev_o, item["activity"])
        ap = appeal(P, speaker, ev_o)
        invited = (ev_o.host is not None and ev_o.host == ev_line_sp)
        at = (" at %s" % _spoken_time(ev_o.start)) if ev_o.start is not None else ""
        if item and event_mentioned(ev_o, item["activity"]):
            return greet_back + "Yes, I know - I'm already planning to be there%s!" % at + extra, addressed, False
        if invited:
            yes = R.chance(L("acc"), 0.2 if clash else ap)
            if yes:
                moved = R.pick(L("mvt"), [" I can shuffle my plans around.", " I'll rearrange my day for that."]) if item and R.chance(L("mv"), 0.5) else ""
                return greet_back + _fresh(R, L("acct"), ["That sounds wonderful, count me in! I'll be there%s." % at,
                                                          "Oh, I'd love to come - see you there%s!" % at,
                                                          "Yes please, I'll come along%s." % at], convo) + moved + extra, addressed, False
            why = ("%s then" % busy_phrase(item["activity"])) if item else "I've got other plans"
            if R.chance(L("prop"), 0.3):
                return greet_back + "Oh, I'm sorry, I can't make it: %s. Could I pop by another time instead?" % why, addressed, False
            return greet_back + "That's kind of you, but I'm afraid I can't make it - %s." % why, addressed, False
        go = R.chance(L("go"), 0.1 if clash else 0.8 * ap)
        src = ev_o.host and _first(ev_o.host)
        if go:
            return greet_back + _fresh(R, L("got"), ["Oh, how lovely! I think I'll go along to that%s." % at,
                                                     "Thanks for telling me - count me in, I'll head over%s." % at,
                                                     "That sounds like fun, I'd like to go%s." % at], convo) + extra, addressed, False
        if clash:
            return greet_back + "That sounds lovely, but %s then, so I'll have to miss it." % busy_phrase(item["activity"]), addressed, False
        return greet_back + _fresh(R, L("ngo"), ["Oh, that's nice to hear. Good for %s!" % (src or "them"),
                                                 "How nice - I'll keep it in mind.",
                                                 "Really? I hadn't heard that. Thanks for telling me."], convo), addressed, False
    # 3b. the other answered this speaker's news
    if my_lines and ev_self and any(event_mentioned(ev_self, t) for t in my_lines) and (said_yes(lo_t) or said_no(lo_t)):
        if said_yes(lo_t):
            if ev_self.host == speaker:
                return _fresh(R, L("ack"), ["Wonderful! I'll see you there, then.", "Oh, that's lovely - I'm so glad you'll come!"], convo) + extra, addressed, False
            return _fresh(R, L("ack"), ["Lovely! %s will be so pleased." % _first(ev_self.host or "they"), "Oh good, maybe I'll see you there!"], convo), addressed, False
        return _fresh(R, L("ackno"), ["Oh, what a shame - maybe next time.", "Never mind, there'll be other chances."], convo), addressed, False
    # 4. own news still untold
    if ev_self and not ev_self_mentioned:
        if R.chance(L("news2"), p_news):
            return greet_back + news_line(P, R, speaker, ev_self, L, listeners) + extra, ("everyone" if len(listeners) > 1 else addressed), False
    # 5. nothing new
    if len(convo) >= 4 and R.chance(L("wrap"), 0.6):
        return _fresh(R, L("wrapt"), ["Well, I'd better get on. It was good to talk - see you around!",
                                       "I must be off now, but lovely to catch up. Bye for now!"], convo), addressed, True
    if len(convo) >= 8:
        return "Right, I'll let you get on. See you around!", addressed, True
    if "?" in (lo_t or ""):
        ql = _low(lo_t)
        if "coming along" in ql or "how's the" in ql:
            opts = ["Coming along nicely, thank you - slowly but surely!", "Oh, it's getting there, thanks for asking. It's taken longer than I hoped!"]
        elif "new with you" in ql or "up to" in ql:
            opts = ["Not much, really. %s." % me_sentence(P, speaker), "Oh, the usual! %s." % me_sentence(P, speaker)]
        else:
            opts = ["Oh, I'm well, thank you! %s." % me_sentence(P, speaker),
                    "Can't complain! %s. %s" % (me_sentence(P, speaker), _ask_about(P, lo_sp))]
        return greet_back + _fresh(R, L("ans"), opts, convo), addressed, False
    return greet_back + _fresh(R, L("sm"), ["%s, and it's kept me busy. %s" % (me_sentence(P, speaker), _ask_about(P, lo_sp)),
                                            "It's nice to have a moment to chat. %s" % _ask_about(P, lo_sp),
                                            "Anything new with you?"], convo), addressed, False


def news_line(P, R, speaker, ev, L, listeners=()):
    past = event_past(P, ev)
    if ev.host == speaker:
        if past:
            return "It was lovely %s - %s, and plenty of people came by." % (P.day_phrase(ev.date) if P.day_phrase(ev.date) != "today" else "earlier today", "I " + re.sub(r"^(\w+)", lambda m: {"keep": "kept", "hold": "held", "have": "had", "run": "ran", "make": "made", "open": "opened", "give": "gave", "throw": "threw", "put": "put"}.get(m.group(1), m.group(1) + "ed"), ev.what))
        s = event_sentence(P, ev, first_person=True)
        purp = (" - " + ev.purpose.replace("his ", "my ").replace("he'd", "I'd").replace("her ", "my ").replace("she'd", "I'd")) if ev.purpose and R.chance(L("purp"), 0.6) else ""
        inv = R.pick(L("inv"), [" Would you like to come?", " Do come along!", " I'd love it if you came."]) if R.chance(L("invq"), 0.9) else ""
        return "Guess what - %s%s.%s" % (s, purp, inv)
    if ev.host and ev.host in listeners and len(listeners) == 1:
        return "Everyone's talking about your plan to %s%s!" % (ev.what, (" " + when_phrase(P, ev)) if not past else "")
    if past:
        return "Did you hear about %s %s %s? It sounded lovely." % (_first(ev.host) if ev.host else "them", gerund(ev.what), P.day_phrase(ev.date) if P.day_phrase(ev.date) != "today" else "earlier today")
    s = event_sentence(P, ev)
    return R.pick(L("nl"), ["Have you heard? %s." % s, "Did you hear the news? %s." % s, "Oh, you'll like this: %s." % s])


# ---------------------------------------------------------------- memos

def _names_list(names):
    names = [n for n in names if n]
    if not names:
        return "someone"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def make_memo(P, R, who, convo, participants, allowed_places=None, allowed_dates=None, label="m"):
    L = lambda x: "%s|%s|%s" % (label, who, x)
    others = [p for p in participants if p != who] or sorted({s for s, _ in convo if s != who})
    ev = find_convo_event(P, convo)
    my = [t for s, t in convo if s == who]
    theirs = [(s, t) for s, t in convo if s != who]
    yes = any(said_yes(t) for t in my) and not any(said_no(t) for t in my)
    no = any(said_no(t) for t in my)
    serious = any(_has_any(t, _SERIOUS) for _, t in convo)
    memo = {"summary": "", "importance": 2, "plan_activity": "", "plan_date": "", "plan_start": "",
            "plan_minutes": 0, "plan_place": ""}
    wl = _names_list(others)
    if ev:
        es = event_sentence(P, ev)
        if event_past(P, ev):
            es = "%s was %s %s" % (ev.host or "someone", gerund(ev.what), P.day_phrase(ev.date) if P.day_phrase(ev.date) != "today" else "earlier today")
        if ev.host == who:
            told = "%s told %s about %s" % (who, wl, "their plan: " + es) if my and any(event_mentioned(ev, t) for t in my) else "%s and %s talked about %s's plan: %s" % (who, wl, who, es)
            reply = ""
            for s, t in theirs:
                if said_yes(t):
                    reply += "; %s said they would come" % s
                elif said_no(t):
                    reply += "; %s can't make it" % s
            summ = told + reply + "."
            imp = 5
        else:
            teller = next((s for s, t in theirs if event_mentioned(ev, t)), None)
            if teller:
                summ = "%s told %s that %s" % (teller, who, es)
            else:
                summ = "%s mentioned to %s that %s" % (who, wl, es)
            if yes:
                summ += ", and %s said they would go" % who
                imp = 6
            elif no:
                summ += ", but %s can't make it" % who
                imp = 4
            else:
                imp = 5
            summ += "."
    else:
        if serious:
            summ = "%s had a serious talk with %s about some worrying news." % (who, wl)
            imp = 8
        else:
            bits = []
            for sp in [who] + others:
                for s_, t_ in convo:
                    if s_ == sp:
                        mm = re.search(r"I've been ([^.,!?]+)", t_)
                        if mm:
                            bits.append("%s has been %s" % ("%s" % _first(sp), mm.group(1).strip()))
                            break
            summ = "%s had a friendly chat with %s%s." % (who, wl, (": " + "; ".join(bits)) if bits else ", mostly greetings")
            imp = 2 if len(convo) <= 3 else 3
    if R.chance(L("jit"), 0.3):
        imp += R.pick(L("jd"), [-1, 1])
    memo["importance"] = max(1, min(10, imp))
    memo["summary"] = _clip(summ, 390)
    # plan change
    record = False
    if ev and (ev.start is not None or ev.date):
        item = plan_item_at(P, who, ev.start, ev.date)
        already = bool(item) and (event_mentioned(ev, item["activity"]) or (ev.host == who and is_commitment(item["activity"])))
        if ev.host == who:
            record = R.chance(L("host"), 0.25) if already or yes else False
        elif yes:
            record = R.chance(L("rec"), 0.25 if already else 0.88)
        else:
            record = R.chance(L("false"), 0.03)
        if event_past(P, ev):
            record = record and R.chance(L("pastrec"), 0.2)
    if record:
        memo["plan_activity"] = event_label(ev, ev.host == who)
        d = ev.date or P.today_iso or ""
        if allowed_dates and d not in allowed_dates:
            d = next((x for x in allowed_dates if x), "")
        memo["plan_date"] = d
        st = ev.start if ev.start is not None else 10 * 60
        memo["plan_start"] = _fmt(st, twelve=R.chance(L("12h"), 0.05))
        memo["plan_minutes"] = ev.minutes()
        pl = ev.place
        if allowed_places is not None:
            if pl not in allowed_places:
                pl = P.place_for(ev.raw + " " + ev.place_words, [x for x in allowed_places if x]) or ""
        memo["plan_place"] = pl
    return memo


def _prop(P, sch, name):
    s = P.resolve(sch)
    return P.resolve((s.get("properties") or {}).get(name, {}))


def _enum_of(P, sch, name):
    e = _prop(P, sch, name).get("enum")
    return list(e) if isinstance(e, list) else None


def participants_of(P):
    sp = P.enums_named(["speaker"])
    if sp:
        return sp
    ps = [p for p in P.personas.keys()]
    if ps:
        return ps
    return [p for p in P.people[:2]]


def simulate(P, R, parts, first, max_lines, label):
    convo = []
    order = [first] + [p for p in parts if p != first]
    # a news holder other than the opener speaks second
    i = 0
    ended = set()
    while len(convo) < max_lines:
        sp = order[i % len(order)]
        i += 1
        if sp in ended:
            if len(ended) >= len(order) - 1:
                break
            continue
        listeners = [p for p in order if p != sp and p not in ended]
        if not listeners:
            break
        utt, _, end = next_turn(P, R, sp, listeners, convo, label)
        convo.append((sp, utt))
        if end:
            ended.add(sp)
            if len(order) == 2:
                # the other says goodbye too if room
                other = listeners[0]
                if len(convo) < max_lines:
                    u2, _, _ = next_turn(P, R, other, [sp], convo, label)
                    convo.append((other, u2))
                break
            if len(ended) >= len(order) - 1:
                break
    if len(convo) < 2 and len(order) > 1:
        convo.append((order[1], "Good to see you too, %s!" % _first(order[0])))
    return convo


def talk_decision(P, R, parts, first, label):
    anynews = any(P.news.get(p) for p in parts)
    known = any(any(q in " ".join(P.memories.get(p, [])) for q in parts if q != p) for p in parts)
    p = 0.85 if anynews else (0.5 if known else 0.35)
    og, wd = P.outgoing(first)
    if og:
        p += 0.1
    if wd:
        p -= 0.1
    return R.chance(label + "|talk", p)


def do_conversation_summary(P, R):
    parts = participants_of(P)
    m = re.search(r"lines?,\s*([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)?) first", P.user)
    first = m.group(1) if m and m.group(1) in parts else (P.me if P.me in parts else parts[0])
    if first not in parts:
        parts = [first] + parts
    maxl = 6
    lines_s = _prop(P, P.schema, "lines")
    if isinstance(lines_s.get("maxItems"), int):
        maxl = lines_s["maxItems"]
    if not talk_decision(P, R, parts, first, "cs"):
        return {"talk": False, "lines": [], "first": None, "second": None} if "first" in (P.schema.get("properties") or {}) else {"talk": False, "lines": [], "memos": []}
    convo = simulate(P, R, parts, first, min(maxl, 6), "cs")
    out = {"talk": True, "lines": [{"speaker": s, "text": _clip(t, 290)} for s, t in convo]}
    props = P.schema.get("properties") or {}
    if "first" in props or "second" in props:
        for key, who in (("first", parts[0] if parts[0] == first else first), ("second", [p for p in parts if p != first][0] if len(parts) > 1 else first)):
            sch = props.get(key, {})
            out[key] = make_memo(P, R, who, convo, parts, _enum_of(P, sch, "plan_place"), _enum_of(P, sch, "plan_date"), "cs" + key)
    else:
        memos = []
        msch = P.resolve((props.get("memos") or {}).get("items", {}))
        for who in parts:
            mm = make_memo(P, R, who, convo, parts, _enum_of(P, msch, "plan_place"), _enum_of(P, msch, "plan_date"), "gs")
            mm = dict([("name", who)] + list(mm.items()))
            memos.append(mm)
        out["memos"] = memos
    return out


def do_conversation_memo(P, R):
    convo = P.convo
    parts = []
    for s, _ in convo:
        if s not in parts:
            parts.append(s)
    m = re.search(r"conversation with ([^:\n]+):", P.user)
    if m:
        for p in P.people:
            if p in m.group(1) and p not in parts:
                parts.append(p)
    if P.me and P.me not in parts:
        parts.append(P.me)
    return make_memo(P, R, P.me, convo, parts, _enum_of(P, P.schema, "plan_place"), _enum_of(P, P.schema, "plan_date"), "cm")


# ---------------------------------------------------------------- turns

def turn_setup(P):
    speaker = P.me
    m = re.search(r"What (?:does|will|would) ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2}) say", P.user)
    if m and m.group(1) in P.people:
        speaker = m.group(1)
    listeners = []
    m = re.search(r"(?:is talking with|talks with|is chatting with|is speaking with|is with)\s+([^.\n]+)", P.user)
    if m:
        for p in P.people:
            if p in m.group(1) and p != speaker:
                listeners.append(p)
    enum = P.enums_named(["addressed"])
    if not listeners:
        listeners = [e for e in enum if _low(e) != "everyone" and e != speaker]
    if not listeners:
        listeners = [s for s, _ in P.convo if s != speaker][:1] or [p for p in P.others[:1]]
    left = []
    for mm in re.finditer(r"([A-Z][^.\n]{0,80}?)\s+(?:has|have) left", P.user):
        for p in P.people:
            if p in mm.group(1):
                left.append(p)
    listeners = [p for p in listeners if p not in left] or listeners
    return speaker, listeners, enum


def do_group_turn(P, R):
    speaker, listeners, enum = turn_setup(P)
    utt, addr, end = next_turn(P, R, speaker, listeners, P.convo, "gt")
    if enum:
        if addr not in enum:
            if R.chance("addrslip", 0.03) and addr:
                pass
            else:
                addr = enum[0] if len(enum) == 2 and _low(enum[-1]) == "everyone" and len(listeners) == 1 else ("everyone" if "everyone" in enum else enum[0])
    return {"utterance": _clip(utt, 390), "addressed_to": addr or "everyone", "end_conversation": bool(end)}


def do_plain_turn(P, R):
    speaker, listeners, _ = turn_setup(P)
    utt, addr, end = next_turn(P, R, speaker, listeners, P.convo, "pt")
    tl = _low(P.user)
    tag_end, tag_cont = "[end]", "[continue]"
    m = re.search(r"write (\[[a-z_ ]+\]) if", tl)
    if m:
        tag_end = m.group(1)
    m = re.search(r"else (\[[a-z_ ]+\])", tl)
    if m:
        tag_cont = m.group(1)
    tag = tag_end if end else tag_cont
    u = R.u("plainfmt")
    words = utt
    if u < 0.05:
        words = "%s: %s" % (speaker, utt)
    elif u < 0.09:
        words = "\"%s\"" % utt
    u2 = R.u("plaintag")
    if u2 < 0.03:
        return words
    if u2 < 0.06:
        return words + " " + tag
    return words + "\n" + tag


# ---------------------------------------------------------------- react

def do_react(P, R):
    m = re.search(r"(?:noticed|notices|sees|observes|spotted|spots)\s*:?\s*[\"\u201c]?([^\n\"\u201d]+)", P.user)
    obs = m.group(1) if m else ""
    target = None
    for p in P.people:
        if p != P.me and p in obs:
            target = p
            break
    if not target:
        target = P.others[0] if P.others else "them"
    ev = news_event(P, P.me)
    has_untold = bool(ev) and bool(re.search(r"not told|hasn't told|has not yet told|untold|not yet told", P.user)) or (bool(ev) and target not in " ".join(P.memories.get(P.me, [])))
    og, wd = P.outgoing(P.me)
    known = any(target in x for x in P.memories.get(P.me, [])[:-1]) or target in P.persona().get("identity", "")
    u = R.u("react")
    busy = ""
    if re.search(r"(lunch|breakfast|dinner|eating|sleep)", _low(obs)):
        busy = "eating"
    if has_untold and ev:
        if ev.host == target:
            probs = [("talk", 0.45), ("continue", 0.4), ("wait", 0.15), ("react", 0.0)]
        else:
            probs = [("talk", 0.7), ("wait", 0.15), ("continue", 0.12), ("react", 0.03)]
    else:
        pt = 0.3 + (0.15 if og else 0) - (0.1 if wd else 0) + (0.1 if known else 0)
        probs = [("talk", pt), ("wait", 0.1), ("react", 0.03), ("continue", 1.0)]
    acc = 0
    choice = "continue"
    for c, p in probs:
        acc += p
        if u < acc:
            choice = c
            break
    tf = _first(target)
    act = ""
    if choice == "talk":
        reason = ("%s hasn't heard yet that %s, and %s is right here." % (tf, event_sentence(P, ev), tf)) if has_untold and ev else \
            R.pick("rr", ["It would be friendly to say hello to %s." % tf, "%s is close by and a chat would be nice." % tf])
    elif choice == "wait":
        reason = "%s looks busy%s, so it's better to catch %s afterwards." % (tf, " " + busy if busy else "", tf) if not has_untold else \
            "Better to let %s finish first, then tell them the news." % tf
    elif choice == "react":
        act = "going over to find %s and tell them the news" % tf if has_untold else "taking a short break to chat with %s" % tf
        reason = "This is a good chance to change plans for a while."
    else:
        reason = ("Nothing about %s needs attention right now; carry on with the plan." % tf) if not has_untold else \
            "%s probably knows already, so there's no need to interrupt." % tf
    return {"choice": choice, "reason": _clip(reason, 290), "new_activity": act}


# ---------------------------------------------------------------- plans

def _verb_ing(v):
    lv = _low(v)
    if re.search(r"(ches|shes|sses|xes)$", lv):
        lv = lv[:-2]
    elif lv.endswith("ies"):
        lv = lv[:-3] + "y"
    elif lv.endswith("s") and not lv.endswith("ss"):
        lv = lv[:-1]
    return gerund(lv)


def lifestyle_info(P, who):
    ls = P.persona(who).get("lifestyle", "")
    info = {"wake": None, "bed": None, "work": None}
    m = re.search(r"wak\w*(?: up)?\s*(?:at|around|by)?\s*([^,;]+?)(?:,|;| and |$)", ls)
    if m:
        info["wake"] = _one_time(m.group(1).strip(), "morning " + m.group(1))
    m = re.search(r"(?:goes to bed|go(?:es)? to sleep|turns in|bed)\s*(?:at|around|by)?\s*([^,;.]+)", ls)
    if m:
        t = m.group(1).strip()
        v = _one_time(t, "night " + t)
        if v is not None:
            info["bed"] = v if v > 12 * 60 or v == 0 else v + 12 * 60
            if info["bed"] == 0:
                info["bed"] = 24 * 60
    for seg in re.split(r",|;| and ", ls):
        if re.search(r"wak|bed|sleep", seg):
            continue
        r = _RANGE_RE.search(seg)
        if r:
            tr = parse_time_range(seg)
            if tr and tr[1]:
                vm = re.match(r"\s*(\w+)", seg)
                verb = _verb_ing(vm.group(1)) if vm else "working"
                rest = seg[vm.end():r.start()].strip() if vm else ""
                label = (verb + " " + rest).strip()
                info["work"] = (tr[0], tr[1], _clip(label, 60), P.place_for(seg))
                break
    return info


def _emoji(act):
    a = _low(act)
    for k, e in _EMOJI.items():
        if k in a:
            return e
    return "\U0001F642"


def do_daily_plan(P, R):
    me = P.me
    bsch = P.resolve((P.resolve(P.schema).get("properties") or {}).get("blocks", {}).get("items", {}))
    allowed = _enum_of(P, {"properties": {"a": (bsch.get("properties") or {}).get("address", {})}}, "a") or P.places
    home = P.home_of(me)
    if allowed and home not in allowed:
        home = next((p for p in allowed if (me or "x").split(" ")[-1] in p), allowed[0])
    info = lifestyle_info(P, me)
    prev = [b for b in P.schedules.get(me, [])]
    wake = info["wake"]
    if wake is None:
        w = [b for b in prev if "wak" in _low(b["activity"])]
        wake = w[0]["start"] if w else 7 * 60
    bed = info["bed"]
    if bed is None:
        s = [b for b in prev if "sleep" in _low(b["activity"])]
        bed = (s[0]["start"] if s else 22 * 60)
        if bed < 12 * 60:
            bed += 24 * 60
    if bed <= wake:
        bed = wake + 16 * 60
    # weekend
    dayoff = False
    ident = _low(P.persona(me).get("identity", ""))
    keeper = any(w in ident for w in ("keeps", "runs", "shop", "inn", "bake", "pub", "cafe", "farm"))
    if P.today_name in ("Saturday", "Sunday"):
        p = 0.4 if P.today_name == "Saturday" else 0.7
        if keeper:
            p /= 2
        dayoff = R.chance("dayoff", p)
    # base timeline (minutes from midnight, may exceed 1440 before bed)
    blocks = []

    def add(s, e, a, pl):
        if e > s:
            blocks.append([s, e, a, pl])
    work = info["work"]
    tmpl = [b for b in prev if not is_commitment(b["activity"]) and "sleep" not in _low(b["activity"])]
    if tmpl and not dayoff and abs(tmpl[0]["start"] - wake) <= 90:
        for b in tmpl:
            e = b["end"] if b["end"] > b["start"] else b["end"] + 1440
            pl = b["place"] if (not allowed or b["place"] in allowed) else home
            add(b["start"], e, b["activity"], pl or home)
    else:
        add(wake, wake + 30, "waking up and getting ready", home)
        add(wake + 30, wake + 60, "having breakfast", home)
        cur = wake + 60
        if work and not dayoff and work[1] > cur:
            ws, we, wl, wp = work
            wp = wp if (wp and (not allowed or wp in allowed)) else home
            ws = max(ws, cur)
            if ws > cur:
                add(cur, ws, "relaxing at home", home)
            if ws < 12 * 60 < we - 60:
                add(ws, 12 * 60, wl, wp)
                add(12 * 60, 13 * 60, "having lunch", wp)
                add(13 * 60, we, wl, wp)
            else:
                add(ws, we, wl, wp)
                if we <= 12 * 60:
                    add(we, 12 * 60, "relaxing at home", home)
                    add(12 * 60, 13 * 60, "having lunch", home)
                    we = 13 * 60
            cur = we
        else:
            og, _ = P.outgoing(me)
            spot = next((p for p in allowed if "green" in _low(p) or "park" in _low(p)), home) if og else home
            add(cur, 12 * 60, "relaxing on a day off", home)
            add(12 * 60, 13 * 60, "having lunch", home)
            add(13 * 60, 16 * 60, "walking and seeing people" if og else "relaxing on a day off", spot)
            cur = 16 * 60
        if cur < 18 * 60 + 30:
            add(cur, 18 * 60 + 30, "relaxing at home", home)
            cur = 18 * 60 + 30
        add(cur, cur + 60, "having dinner", home)
        add(cur + 60, bed, "relaxing at home", home)
    # overlay: events and telling people
    specials = []
    ev = news_event(P, me)
    if ev is None:
        for line in reversed(P.memories.get(me, [])):
            if me and re.search(re.escape(me) + r": [\"\u201c][^\"\u201d]*(count me in|i'll come|i'll be there|see you there)", line, re.I):
                e2 = find_convo_event(P, [("x", line)])
                if e2:
                    ev = e2
                    break
    if ev and ev.date == P.today_iso and ev.start is not None and ev.host is not None and not ev.date is None:
        committed = any(me in ln and event_mentioned(ev, ln) and said_yes(ln) for ln in P.memories.get(me, []))
        if ev.host == me:
            go = R.chance("hostgo", 0.95)
        else:
            go = R.chance("attgo", 0.85 if committed else 0.8 * appeal(P, me, ev))
        if go:
            pl = ev.place if (not allowed or ev.place in allowed) else (P.place_for(ev.raw, allowed) or home)
            specials.append((ev.start, ev.start + ev.minutes(), event_label(ev, ev.host == me), pl))
    # where untold people will be
    if ev and R.chance("tellpeople", 0.5):
        spots = []
        for ln in P.user.split("\n"):
            mm = re.match(r"^\s*[-*]\s*(.+?):\s*(\d+)\s+(?:people|person)\w*,\s*(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})", ln)
            if mm and (not allowed or mm.group(1) in allowed):
                spots.append((int(mm.group(2)), mm.group(1), _hm(mm.group(3)), _hm(mm.group(4))))
        spots.sort(key=lambda x: -x[0])
        for n, pl, s, e in spots:
            s2, e2 = s, min(e, s + 60)
            clash = any(not (e2 <= a or s2 >= b) for a, b, _, _ in specials)
            busy = any(not (e2 <= b[0] or s2 >= b[1]) and ("work" in _low(b[2]) or "busy" in _low(b[2]) or _low(b[2]).startswith(("bak", "teach", "run", "tend"))) for b in blocks)
            if not clash and not busy:
                specials.append((s2, e2, "telling people the news at the %s" % P.short_place(pl).lower(), pl))
                break
    for s, e, a, pl in specials:
        nb = []
        for b in blocks:
            if b[1] <= s or b[0] >= e:
                nb.append(b)
                continue
            if b[0] < s:
                nb.append([b[0], s, b[2], b[3]])
            if b[1] > e:
                nb.append([e, b[1], b[2], b[3]])
        nb.append([s, e, a, pl])
        blocks = sorted(nb, key=lambda b: b[0])
    # sleep
    blocks = [b for b in blocks if b[0] < bed]
    if blocks and blocks[-1][1] > bed:
        blocks[-1][1] = bed
    # fill gaps
    filled = []
    last = wake
    for b in sorted(blocks, key=lambda b: b[0]):
        if b[0] > last:
            filled.append([last, b[0], "relaxing at home", home])
        if b[1] > b[0]:
            filled.append([max(b[0], last), b[1], b[2], b[3]])
            last = max(last, b[1])
    if last < bed:
        filled.append([last, bed, "relaxing at home", home])
    merged = []
    for b in filled:
        if merged and merged[-1][2] == b[2] and merged[-1][3] == b[3] and merged[-1][1] == b[0]:
            merged[-1][1] = b[1]
        elif b[1] > b[0]:
            merged.append(b)
    sleep_len = (wake + 24 * 60) - bed
    merged.append([bed, bed + max(60, min(960, sleep_len)), "sleeping", home])
    while len(merged) > 16:
        i = min(range(len(merged) - 1), key=lambda k: merged[k][1] - merged[k][0])
        j = i + 1 if i + 1 < len(merged) - 1 else i - 1
        a, b = sorted([i, j])
        merged[a][1] = merged[b][1]
        del merged[b]
    slip = R.chance("12h", 0.05)
    slip_i = R.randint("12hi", 1, max(1, len(merged) - 1))
    out_blocks = []
    for i, (s, e, a, pl) in enumerate(merged):
        out_blocks.append({"start": _fmt(s, twelve=(slip and i == slip_i)), "duration_minutes": int(max(5, min(960, e - s))),
                           "activity": _clip(a, 110), "emoji": _emoji(a), "address": pl or home})
    outline = []
    outline.append("wake up at %s" % _spoken_time(wake))
    seen = set()
    for s, e, a, pl in merged:
        k = _low(a)
        if k in seen or "waking" in k or "relaxing at home" in k:
            continue
        seen.add(k)
        if "sleep" in k:
            continue
        outline.append("%s at %s" % (a, _spoken_time(s)))
    outline.append("go to bed at %s" % _spoken_time(bed))
    if len(outline) > 8:
        outline = outline[:7] + [outline[-1]]
    while len(outline) < 4:
        outline.insert(-1, "relax at home in the evening")
    return {"wake_up_hour": int(wake // 60) % 24, "outline": outline, "blocks": out_blocks}


_STEPS = [
    (("sleep",), ["settling into bed", "drifting off to sleep", "sleeping soundly", "turning over in bed", "sleeping deeply"]),
    (("wak", "getting ready"), ["stretching and getting out of bed", "washing face", "getting dressed", "making the bed", "brushing hair", "opening the curtains"]),
    (("breakfast", "lunch", "dinner", "supper", "meal", "eat"), ["preparing the food", "setting the table", "eating slowly", "sipping a cup of tea", "chatting over the meal", "clearing the plates", "washing the dishes", "wiping the table"]),
    (("oven", "bakehouse oven"), ["arriving at the bakehouse", "greeting everyone", "shaping a loaf from the dough", "putting the loaf in the oven", "chatting while it bakes", "taking the loaf out", "wrapping the warm loaf", "thanking the baker"]),
    (("seeing people", "chat", "telling", "visit", "calling on"), ["saying hello to neighbours", "chatting with a friend", "catching up on news", "sharing the latest news", "listening to village gossip", "waving goodbye"]),
    (("relax", "day off", "rest", "home", "leisure"), ["making a cup of tea", "reading a book", "resting on the bed", "listening to the radio", "tidying up a little", "writing a letter", "looking out of the window", "having a short nap"]),
    (("bak", "bakery"), ["weighing out flour", "kneading dough", "shaping loaves", "loading the oven", "checking the bake", "taking bread out of the oven", "stacking the counter", "serving a customer", "wiping down the counter", "cleaning the trays"]),
    (("class", "teach", "school"), ["taking the register", "writing on the blackboard", "teaching a lesson", "helping a pupil", "handing out books", "marking work at the desk", "reading aloud to the class", "tidying the desks"]),
    (("counter", "post", "parcel"), ["sorting letters at the sorting rack", "serving a customer at the counter", "weighing a parcel", "stamping envelopes", "filing forms", "counting the till", "chatting with a customer"]),
    (("taproom", "inn", "pub", "bar", "ale"), ["pulling pints", "wiping the bar", "chatting with regulars", "changing a barrel", "collecting glasses", "washing glasses", "checking the ale"]),
    (("surgery", "waiting", "nurse", "clinic"), ["calling in a patient", "checking notes at the desk", "tidying the chairs", "restocking supplies", "taking a blood pressure", "updating records", "answering a question"]),
    (("green", "pitch", "garden"), ["mowing the grass", "rolling the pitch", "raking leaves", "marking the lines", "checking the fences", "watering the flowerbeds", "sitting on a bench"]),
]
_GENERIC_STEPS = ["getting set up", "working steadily", "taking a short break", "tidying the workspace", "checking progress", "finishing a task", "chatting with someone nearby", "packing up"]


def do_decompose(P, R):
    m = re.search(r"\bis ([^,\n]+?), at ([^\n]+?)\.?\s*$", P.user, re.M)
    act = m.group(1) if m else ""
    place = m.group(2) if m else ""
    if not act:
        m = re.search(r"(?:activity|task)\s*:\s*(.+)", P.user, re.I)
        act = m.group(1) if m else "getting on with the day"
    m = re.search(r"first (\d+) minutes", P.user)
    if m:
        total = int(m.group(1))
    else:
        m = re.search(r"\((\d+) minutes\)", P.user) or re.search(r"(\d+) minutes", P.user)
        total = int(m.group(1)) if m else 60
    ssch = P.resolve(P.schema).get("properties", {}).get("steps", {})
    lo = ssch.get("minItems", 2) if isinstance(ssch, dict) else 2
    hi = ssch.get("maxItems", 12) if isinstance(ssch, dict) else 12
    m = re.search(r"into (\d+) to (\d+)", P.user)
    if m:
        lo, hi = int(m.group(1)), int(m.group(2))
    item = P.resolve(ssch.get("items", {})) if isinstance(ssch, dict) else {}
    dmin = (item.get("properties", {}).get("duration_minutes", {}) or {}).get("minimum", 5)
    dmax = (item.get("properties", {}).get("duration_minutes", {}) or {}).get("maximum", 15)
    objs = _enum_of(P, item, "object") or []
    m = re.search(r"Objects there:\s*([^\n]+)", P.user)
    if not objs and m:
        objs = [""] + [o.strip() for o in m.group(1).split(",") if o.strip()]
    key = _low(act + " " + place)
    lib = None
    for keys, steps in _STEPS:
        if any(k in _low(act) for k in keys):
            lib = steps
            break
    if lib is None:
        for keys, steps in _STEPS:
            if any(k in key for k in keys):
                lib = steps
                break
    lib = lib or _GENERIC_STEPS
    target_n = max(lo, min(hi, int(round(total / 10.0)) or 1))
    n = target_n
    while n < hi and n * dmax < total:
        n += 1
    while n > lo and n * dmin > total:
        n -= 1
    n = max(1, n)
    base = [total // n // 5 * 5] * n
    rem = total - sum(base)
    i = 0
    while rem >= 5 and i < 100:
        if base[i % n] + 5 <= dmax:
            base[i % n] += 5
            rem -= 5
        i += 1
    base = [max(dmin, b) for b in base]
    for k in range(n // 2):
        i1, i2 = R.randint("sw1%d" % k, 0, n - 1), R.randint("sw2%d" % k, 0, n - 1)
        if i1 != i2 and base[i1] + 5 <= dmax and base[i2] - 5 >= dmin:
            base[i1] += 5
            base[i2] -= 5
    if R.chance("sumslip", 0.08):
        k = R.randint("sumk", 0, n - 1)
        base[k] = base[k] + 5 if base[k] + 5 <= dmax else base[k] - 5
    if n <= len(lib):
        idx = list(range(len(lib)))
        k = 0
        while len(idx) > n:
            idx.pop(R.randint("drop%d" % k, 1 if len(idx) > 2 else 0, len(idx) - 1))
            k += 1
        acts = [lib[i] for i in idx]
    else:
        acts = [lib[i % len(lib)] + (" again" if i >= len(lib) else "") for i in range(n)]
    steps = []
    for j in range(n):
        a = acts[j]
        obj = ""
        for o in objs:
            if o and any(w in _low(a) for w in _low(o).split()):
                obj = o
                break
        if not obj and objs:
            if "bed" in objs and any(w in _low(a) for w in ("sleep", "rest", "nap", "bed")):
                obj = "bed"
        state = ""
        if obj:
            state = {"bed": "occupied", "oven": "baking bread", "counter": "in use", "desk": "in use",
                     "blackboard": "written on", "desks": "in use", "chairs": "occupied"}.get(obj, "in use")
        steps.append({"activity": a, "duration_minutes": base[j], "object": obj, "object_state": state})
    return {"steps": steps}


# ---------------------------------------------------------------- ratings

def rate_memory(P, R, text, label):
    t = _low(text)
    me = P.me or ""
    if _has_any(t, _SERIOUS):
        v = 8
    elif re.search(r"\b(is sleeping|waking up|getting ready|having breakfast|having lunch|having dinner|brushing|is in use|plan for)\b", t):
        v = 1
    elif re.search(r"(told|heard|news|invit|count me in|going to keep|is going to|party|event|festival)", t):
        v = 5
        if re.search(r"(count me in|i'll come|invit)", t):
            v = 6
    elif re.search(r"(conversation|chatted|talked|said)", t):
        v = 3
    elif re.search(r"\b(is relaxing|is busy|is working|seeing people|is going to the)\b", t):
        v = 2
    else:
        v = 3
    cur = _low(P.persona().get("currently", "") + " " + P.persona().get("identity", ""))
    ownwords = [w for w in re.findall(r"[a-z]{5,}", cur) if w not in ("going", "tomorrow", "morning", "anybody", "village", "saturday", "sunday", "friday", "monday", "tuesday", "wednesday", "thursday", "april", "would", "their", "there", "about")]
    if v >= 2 and sum(1 for w in set(ownwords) if w in t) >= 2:
        v += 1
    if me and me.lower() not in t and v <= 2 and v > 1:
        v = max(1, v - 0)
    if R.chance(label + "jit", 0.3):
        v += R.pick(label + "jd", [-1, 1])
    return max(1, min(10, v))


def do_importance(P, R):
    m = re.findall(r"[\"\u201c]([^\"\u201d]{3,})[\"\u201d]", P.user)
    mem = ""
    for cand in m:
        if "importance" in _low(cand) or cand.startswith("{"):
            continue
        mem = cand
    if not mem:
        mm = re.search(r"(?:Memory|Event|Observation)\s*:\s*(.+)", P.user)
        mem = mm.group(1) if mm else P.user[-300:]
    key = None
    for k, v in (P.schema.get("properties") or {}).items():
        key = k
        break
    return {key or "importance": rate_memory(P, R, mem, "imp")}


def do_importance_batch(P, R):
    items = []
    for ln in P.lines:
        mm = re.match(r"^\s*(?:[-*\u2022]|\d+[.)])\s*[\"\u201c](.*)[\"\u201d]\s*$", ln)
        if mm:
            items.append(mm.group(1))
    if not items:
        items = [ln for ln in P.lines if re.match(r"^\s*(?:[-*\u2022]|\d+[.)])\s+", ln)]
    props = P.schema.get("properties") or {}
    key = next(iter(props), "ratings")
    arr = P.resolve(props.get(key, {}))
    n = len(items)
    if isinstance(arr.get("minItems"), int) and isinstance(arr.get("maxItems"), int) and arr["minItems"] == arr["maxItems"]:
        n = arr["minItems"]
    vals = [rate_memory(P, R, items[i] if i < len(items) else "", "b%d" % i) for i in range(max(1, n))]
    if R.chance("batchslip", 0.03):
        if len(vals) > 1 and R.chance("batchdrop", 0.5):
            vals = vals[:-1]
        else:
            vals.append(vals[-1])
    return {key: vals}


# ---------------------------------------------------------------- interviews etc.

_STOP = set("have heard about know does what when where which with that this there their they them from your you people someone anything something the and for are was were been into onto over will would could should just like some any".split())


def _stem(w):
    w = _low(w)
    for suf in ("ing", "es", "ed", "s"):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[:-len(suf)]
            break
    return w[:3]


def _visible(P, mems, label):
    n = len(mems)
    out = []
    for i, m in enumerate(mems):
        if n > 12 and n / 3.0 <= i < 2 * n / 3.0 and P.ctx_R.chance(label + str(i), 0.15):
            continue
        out.append(m)
    return out


def _mem_text(m):
    return re.sub(r"^\s*(?:[-*]|\d+\.)\s*", "", _TS_RE.sub("", m)).strip()


def do_interview(P, R):
    q = ""
    for mm in re.finditer(r"(?:ask\w*|question)[^\n\"\u201c]{0,40}[:\s][\"\u201c]([^\"\u201d]+)[\"\u201d]", P.user, re.I):
        q = mm.group(1)
    if not q:
        qs = re.findall(r"[\"\u201c]([^\"\u201d]*\?)[\"\u201d]", P.user)
        q = qs[-1] if qs else P.user.strip().split("\n")[-1]
    me = P.me
    mems = _visible(P, P.memories.get(me, []), "iv")
    ident = P.persona(me).get("identity", "")
    target = None
    for mm in _NAME_RE.finditer(q):
        if mm.group(1).split(" ")[0] not in _NOT_NAME:
            target = mm.group(1)
    ql = _low(q)
    if target and re.search(r"\b(know|who is|met|heard of)\b", ql) and target != me:
        rel = [m for m in mems if target in m]
        tf = _first(target)
        if target in ident:
            seg = [x for x in re.split(r"[;.]", ident) if target in x]
            ans = "Yes, I know %s. %s." % (tf, seg[0].strip().replace(me + " ", "I ").replace(" him", " me").replace(" her", " me")) if seg else "Yes, I know %s." % tf
            if rel:
                ans += " I saw them just recently, in fact."
        elif rel:
            last = _mem_text(rel[-1])
            convs = [m for m in rel if "conversation" in m or "chatted" in m or "told" in m]
            if convs:
                ans = "Yes, I know %s - we've chatted a few times. Last time %s." % (tf, _clip(_mem_text(convs[-1]).replace(me, "I"), 140))
            else:
                ans = "I know %s a little - I've seen them around. Last I noticed, %s." % (tf, _clip(last.replace(target, tf).replace(me + " is", "I was").replace(me, "I"), 120))
            if R.chance("ivemb", 0.25):
                ans += " They always seem friendly enough."
        else:
            ans = R.pick("ivno", ["I don't think I know %s, I'm afraid - the name doesn't ring a bell." % target,
                                   "No, I can't say I know %s." % target,
                                   "Hmm, %s? I don't believe we've met." % target])
        return {"answer": _clip(ans, 590)}
    kws = set(_stem(w) for w in re.findall(r"[A-Za-z']{4,}", q) if _low(w) not in _STOP)
    best, bs = None, 1
    for m in mems:
        mt = set(_stem(w) for w in re.findall(r"[A-Za-z']{4,}", m))
        sc = len(kws & mt)
        if sc > bs or (sc == bs and best is not None and sc > 1):
            best, bs = m, sc
    if best is not None and bs >= 2:
        ev = extract_event(P, _mem_text(best))
        if ev and (ev.start is not None or ev.date):
            s = event_sentence(P, ev)
            if ev.host == me:
                s = event_sentence(P, ev, first_person=True)
            ans = "Yes, I heard about that: %s." % s if ev.host != me else "Oh yes, that's my doing - %s." % s
            if event_past(P, ev):
                dp = P.day_phrase(ev.date)
                dp = "earlier today" if dp == "today" else (dp or "earlier")
                purp = (" so that " + ev.purpose) if ev.purpose else ""
                if ev.host == me:
                    ans = "Yes, that was my doing - I was %s %s%s." % (gerund(ev.what), dp, purp.replace(" his ", " my ").replace(" he'd ", " I'd "))
                else:
                    ans = "Yes - %s was %s %s%s." % (ev.host or "someone", gerund(ev.what), dp, purp)
        else:
            ans = "I think so - I remember that %s." % _clip(_mem_text(best).replace(me, "I"), 200)
        if R.chance("ivemb2", 0.25):
            ans += " Everyone seems to be talking about it."
    else:
        ans = R.pick("ivnk", ["No, I haven't heard anything about that.", "I'm afraid I don't know anything about that.",
                              "Hmm, no, that's news to me."])
    return {"answer": _clip(ans, 590)}


def do_relationship(P, R):
    me = P.me
    targets = []
    m = re.search(r"relationship with ([^,\n]+?)(?:,|\n| and how)", P.user)
    if m:
        for p in P.people:
            if p in m.group(1) and p != me:
                targets.append(p)
    if not targets:
        targets = P.others[:2]
    mems = P.memories.get(me, [])
    ident = P.persona(me).get("identity", "")
    parts = []
    for t in targets:
        tf = _first(t)
        rel = [x for x in mems if t in x]
        convs = [x for x in rel if re.search(r"conversation|chatted|told|heard from", x)]
        yes = [x for x in rel if re.search(re.escape(t) + r": [\"\u201c][^\"\u201d]*(count me in|i'll come)", x, re.I)]
        no = [x for x in rel if re.search(re.escape(t) + r": [\"\u201c][^\"\u201d]*(can't make it|cannot)", x, re.I)]
        if t in ident:
            base = "%s knows %s well through everyday village life" % (me, tf)
        elif convs:
            base = "%s has chatted with %s %s" % (me, tf, "a few times lately" if len(convs) > 1 else "recently")
        elif rel:
            base = "%s has only seen %s around" % (me, tf)
        else:
            base = "%s doesn't know %s well yet" % (me, tf)
        feel = ""
        if yes:
            feel = " and is pleased %s is keen to come along" % tf
        elif no:
            feel = " and is a little disappointed %s couldn't make it" % tf
        elif convs:
            feel = " and feels warmly towards them"
        elif rel or t in ident:
            feel = " and feels friendly towards them"
        else:
            feel = " but would be glad to get to know them"
        parts.append(base + feel)
    s = "; ".join(parts) + "."
    return {"summary": _clip(s, 395)}


def do_revise_currently(P, R):
    me = P.me
    cur = P.persona(me).get("currently", "")
    sents = re.split(r"(?<=[.!?])\s+(?=[A-Z])", cur)
    keep = ""
    if sents and sents[0] and '"' not in sents[0] and R.chance("keep", 0.9):
        keep = sents[0].strip()
        if not keep.endswith("."):
            keep += "."
    ev = None
    evsrc = ""
    for ln in reversed(P.memories.get(me, [])):
        e = extract_event(P, _mem_text(ln))
        if e and e.host and (e.start is not None or e.date) and re.search(_HOSTVERB, _mem_text(ln)):
            ev, evsrc = e, ln
            break
    if ev is None and cur:
        e = extract_event(P, cur)
        if e and e.host and (e.start is not None or e.date) and len(sents) > 1:
            ev, evsrc = e, cur
    add = ""
    if ev and R.chance("addnews", 0.85):
        said = any(me in ln and said_yes(ln) and event_mentioned(ev, ln) for ln in P.memories.get(me, []))
        if event_past(P, ev):
            add = "%s's %s has already happened (%s)." % (_first(ev.host), _clip(ev.what, 60), P.day_phrase(ev.date) or "earlier") if ev.host != me else \
                "%s has already %s and is glad it went well." % (me, _clip(ev.what.replace("keep", "kept").replace("hold", "held"), 80))
        elif ev.host == me:
            add = "%s is getting ready to %s %s and hopes plenty of people will come." % (me, ev.what, when_phrase(P, ev))
        elif said:
            add = "%s has promised to go along when %s %s %s %s." % (me, ev.host, ev.verb, ev.what, when_phrase(P, ev))
        else:
            add = "%s has heard that %s %s %s %s, and is keen to pass the news on." % (me, ev.host, ev.verb, ev.what, when_phrase(P, ev))
    if not keep and not add:
        keep = "%s is going about the usual routine." % me
    extra = ""
    if R.chance("curemb", 0.25):
        extra = " %s is looking forward to a quiet evening afterwards." % _first(me)
    return {"currently": _clip((keep + " " + add + extra).strip(), 495)}


# ---------------------------------------------------------------- reflection

def _people_counts(P, texts):
    c = {}
    for t in texts:
        for p in P.people:
            if p != P.me and p in t:
                c[p] = c.get(p, 0) + 1
    return sorted(c.items(), key=lambda kv: -kv[1])


def _activity_counts(texts, me):
    c = {}
    for t in texts:
        m = re.search(re.escape(me or "@@") + r" is ([a-z][a-z ]+?)(?: \(|$)", t)
        if m:
            a = m.group(1).strip()
            c[a] = c.get(a, 0) + 1
    return sorted(c.items(), key=lambda kv: -kv[1])


def do_reflection_questions(P, R):
    me = P.me or "they"
    mems = _visible(P, P.memories.get(me, []) or [ln for ln in P.lines if ln.strip().startswith("-")], "rq")
    n = 3
    qs = P.resolve((P.schema.get("properties") or {}).get("questions", {}))
    if isinstance(qs.get("maxItems"), int):
        n = qs["maxItems"]
    m = re.search(r"at most (\d+)", P.user)
    if m:
        n = int(m.group(1))
    ppl = _people_counts(P, mems)
    acts = _activity_counts(mems, me)
    ev = None
    for ln in reversed(mems):
        e = extract_event(P, _mem_text(ln))
        if e and e.host and e.start is not None and re.search(_HOSTVERB, ln):
            ev = e
            break
    cands = []
    if ev:
        if ev.host == me:
            cands.append("How does %s feel about the way people are responding to the plan to %s?" % (me, ev.what))
        else:
            cands.append("Why does %s's plan to %s matter so much to %s and the people around them?" % (_first(ev.host), ev.what, me))
    if ppl:
        cands.append("What is the nature of %s's relationship with %s, whom they keep running into?" % (me, ppl[0][0]))
    if len(ppl) > 1:
        cands.append("How are %s and %s connected in %s's daily life?" % (ppl[1][0], ppl[0][0], me))
    if acts:
        cands.append("What does %s's steady routine of %s say about what they care about?" % (me, acts[0][0]))
    if any("means to tell" in x or "told" in x for x in mems):
        cands.append("Why is %s so eager to share news with friends lately?" % me)
    cands.append("How has %s's week been changing compared with their usual routine?" % me)
    out = cands[:max(1, n)]
    if R.chance("qslip", 0.03) and len(cands) > n:
        out = cands[:n + 1]
    return {"questions": out}


def do_reflection_insights(P, R):
    me = P.me or "they"
    groups = []
    cur = None
    for ln in P.lines:
        mm = re.match(r"^\s*(\d+)[.)]\s+(.*)$", ln)
        if mm:
            if cur is None:
                cur = {"q": "", "items": []}
                groups.append(cur)
            cur["items"].append((int(mm.group(1)), mm.group(2)))
        elif "?" in ln and len(ln) > 10:
            cur = {"q": ln.strip(), "items": []}
            groups.append(cur)
    groups = [g for g in groups if g["items"]]
    allnums = [k for g in groups for k, _ in g["items"]]
    maxn = max(allnums) if allnums else 1
    isch = P.resolve((P.schema.get("properties") or {}).get("insights", {}))
    cap = isch.get("maxItems", 15) if isinstance(isch, dict) else 15
    ins = []
    for gi, g in enumerate(groups):
        items = g["items"]
        texts = [t for _, t in items]
        got = 0
        ev = None
        for k, t in items:
            e = extract_event(P, _mem_text(t))
            if e and e.host and e.start is not None and re.search(_HOSTVERB, t):
                ev = e
                break
        if ev:
            nums = [k for k, t in items if event_mentioned(ev, t)][:10] or [items[0][0]]
            if ev.host == me:
                s = "%s is putting real effort into the plan to %s and wants the village to join in." % (me, ev.what)
            else:
                s = "%s has taken an interest in %s's plan to %s." % (me, _first(ev.host), ev.what)
            ins.append({"insight": s, "about": _clip(ev.what, 58), "evidence": nums, "importance": 6 + (1 if R.chance("ie%d" % gi, 0.3) else 0)})
            got += 1
        ppl = _people_counts(P, texts)
        if ppl:
            p = ppl[0][0]
            nums = [k for k, t in items if p in t][:10]
            conv = sum(1 for t in texts if p in t and re.search(r"conversation|chatted|told", t))
            s = ("%s talks with %s often, so %s is becoming a familiar part of %s's days." % (me, p, _first(p), me)) if conv else \
                ("%s keeps crossing paths with %s around the village." % (me, p))
            if any(x["insight"] == s for x in ins):
                s = "%s seems to be someone %s can count on to share what is going on." % (p, me)
            ins.append({"insight": s, "about": p, "evidence": nums or [items[0][0]], "importance": 4 + (1 if conv > 1 else 0)})
            got += 1
        acts = _activity_counts(texts, me)
        if acts and (got < 2 or R.chance("ia%d" % gi, 0.5)):
            a = acts[0][0]
            nums = [k for k, t in items if a in t][:10]
            ins.append({"insight": "%s keeps a steady routine built around %s." % (me, ("being " + a) if a.startswith("busy") else a), "about": "%s's routine" % _first(me),
                        "evidence": nums or [items[0][0]], "importance": 3})
    if not ins:
        ins.append({"insight": "%s's days have been fairly ordinary lately." % me, "about": "daily life",
                    "evidence": [allnums[0] if allnums else 1], "importance": 2})
    ins = ins[:cap]
    if R.chance("evslip", 0.03):
        ins[0]["evidence"] = ins[0]["evidence"] + [maxn + 1]
    return {"insights": ins}


# ---------------------------------------------------------------- generic

def fill_schema(P, R, sch, key="", depth=0):
    sch = P.resolve(sch)
    if depth > 6:
        return None
    t = sch.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if "enum" in sch and sch["enum"]:
        opts = [e for e in sch["enum"] if e not in ("", None)] or sch["enum"]
        return R.pick("enum" + key, opts)
    if "const" in sch:
        return sch["const"]
    if t == "object" or "properties" in sch:
        out = {}
        for k, v in (sch.get("properties") or {}).items():
            out[k] = fill_schema(P, R, v, k, depth + 1)
        return out
    if t == "array":
        n = sch.get("minItems", 1 if depth == 0 else 1)
        n = max(n, 1) if sch.get("maxItems", 1) >= 1 else 0
        return [fill_schema(P, R, sch.get("items", {}), key, depth + 1) for _ in range(n)]
    if t == "boolean":
        return R.chance("bool" + key, 0.6)
    if t in ("integer", "number"):
        lo = sch.get("minimum", 0)
        hi = sch.get("maximum", max(lo + 10, 10))
        v = lo + (hi - lo) // 2 if t == "integer" else (lo + hi) / 2.0
        if "import" in _low(key):
            v = max(lo, min(hi, 4))
        return int(v) if t == "integer" else v
    # string
    kl = _low(key)
    pat = sch.get("pattern", "")
    if "date" in kl:
        return P.today_iso or ""
    if "time" in kl or "start" in kl or "HH" in pat:
        return _fmt(P.now or 9 * 60)
    if "name" in kl or "speaker" in kl or "who" in kl:
        return P.me or (P.people[0] if P.people else "Someone")
    if "place" in kl or "address" in kl or "location" in kl:
        return P.places[0] if P.places else ""
    if "emoji" in kl:
        return "\U0001F642"
    me = P.me or "I"
    cur = P.persona().get("currently", "")
    base = {"summary": "%s had an ordinary but pleasant time. %s" % (me, cur.split(".")[0] + "." if cur else ""),
            "reason": "It seems the sensible thing to do right now.",
            "answer": "I think so, as far as I know.",
            "text": "Well, it's been a lovely day so far!",
            "utterance": "Hello there! How are you doing?"}.get(kl)
    if base is None:
        base = "%s: %s" % (key.replace("_", " ").capitalize() or "Answer", _clip(cur or "nothing much to report", 100))
    ml = sch.get("maxLength")
    if isinstance(ml, int):
        base = base[:ml]
    if sch.get("minLength", 0) > len(base):
        base = base + "." * (sch["minLength"] - len(base))
    return base


def do_generic(P, R):
    want = P.user
    # a plain instruction like Answer as {"ok": true}
    m = re.search(r"Answer (?:as|with)\s*(\{.*\})\s*\.?\s*$", want, re.S)
    if m and len(m.group(1)) < 200:
        try:
            obj = json.loads(m.group(1))
            if isinstance(obj, dict):
                return obj
        except Exception:
            pass
    if P.schema:
        return fill_schema(P, R, P.schema)
    return {"answer": "OK"}


_HANDLERS = {
    "conversation_memo": do_conversation_memo,
    "conversation_summary": do_conversation_summary,
    "group_summary": do_conversation_summary,
    "group_turn": do_group_turn,
    "daily_plan": do_daily_plan,
    "decompose": do_decompose,
    "importance": do_importance,
    "importance_batch": do_importance_batch,
    "interview": do_interview,
    "react": do_react,
    "reflection_insights": do_reflection_insights,
    "reflection_questions": do_reflection_questions,
    "relationship": do_relationship,
    "revise_currently": do_revise_currently,
}


def _guess_handler(P):
    """an unseen purpose name: guess from the schema's fields and the prompt"""
    props = set((P.resolve(P.schema).get("properties") or {}).keys())
    tl = _low(P.user)
    if {"utterance"} <= props:
        return do_group_turn
    if {"talk", "lines"} <= props:
        return do_conversation_summary
    if {"plan_activity", "summary"} <= props:
        return do_conversation_memo
    if "blocks" in props:
        return do_daily_plan
    if "steps" in props:
        return do_decompose
    if "ratings" in props:
        return do_importance_batch
    if props == {"importance"}:
        return do_importance
    if "choice" in props and "continue" in json.dumps(P.schema):
        return do_react
    if "insights" in props:
        return do_reflection_insights
    if "questions" in props:
        return do_reflection_questions
    if "currently" in props:
        return do_revise_currently
    if props == {"answer"} and ("asks" in tl or "?" in tl):
        return do_interview
    if props == {"summary"} and "relationship" in tl:
        return do_relationship
    return do_generic


# ---------------------------------------------------------------- output

def _malform(P, R, s, obj):
    scale = 0.25 if P.temperature == 0 else 1.0
    u = R.u("malform")
    props = P.resolve(P.schema).get("required") or []
    if u < 0.015 * scale:
        cut = max(1, int(len(s) * (0.4 + 0.5 * R.u("cut"))))
        return s[:cut]
    if u < 0.030 * scale:
        return "```json\n" + s + "\n```"
    if u < 0.040 * scale:
        return R.pick("prose", ["Here is the JSON object:\n", "Sure! Here's my answer:\n\n", "Of course.\n"]) + s
    if u < 0.050 * scale and isinstance(obj, dict) and len(obj) > 1:
        req = [k for k in props if k in obj][1:] or list(obj.keys())[1:]
        if req:
            k = R.pick("dropk", req)
            o2 = dict((a, b) for a, b in obj.items() if a != k)
            return json.dumps(o2, ensure_ascii=False)
    return s


def respond(body, seed=0):
    try:
        R = _Rng(body if isinstance(body, dict) else {}, seed)
    except Exception:
        R = _Rng({}, seed)
    try:
        P = Prompt(body)
        P.ctx_R = R
    except Exception:
        return json.dumps({"answer": "OK"}) if isinstance(body, dict) and body.get("response_format") else "Hello there!\n[continue]"
    if not P.schema and not (isinstance(body, dict) and body.get("response_format")):
        try:
            return do_plain_turn(P, R) if re.search(r"say next|\[end\]|\[continue\]|what (?:does|will) \w+", P.user, re.I) else \
                (next_turn(P, R, P.me or "I", P.others[:1], P.convo, "free")[0])
        except Exception:
            return "Oh, hello! Lovely to see you.\n[continue]"
    obj = None
    try:
        if P.purpose == "probe" or (set((P.schema.get("properties") or {}).keys()) == {"ok"}):
            obj = {"ok": True}
        else:
            h = _HANDLERS.get(P.purpose) or _guess_handler(P)
            obj = h(P, R)
    except Exception:
        obj = None
    if obj is None:
        try:
            obj = do_generic(P, R)
        except Exception:
            obj = {}
    try:
        s = json.dumps(obj, ensure_ascii=False)
    except Exception:
        s = "{}"
    try:
        return _malform(P, R, s, obj)
    except Exception:
        return s
