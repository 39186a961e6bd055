"""blind14 -- a deterministic stand-in for a middling (7-8B class) instruction-tuned chat model answering an NPC-brain
server's chat-completions requests.  Written only from captured request bodies.  Standard library only; no I/O, clock,
network or global mutable state.  Every random choice hashes (messages, schema name, seed, a decision tag).

How it reads a request
  * Kind: from the schema's property names, else its name; unknown schemas are filled from the schema itself; no schema
    and an "[end]/[continue]" tag asked for -> a plain-text turn; no schema but an "Answer as {...}" template -> that.
  * People: two-word capitalised names in the text and in schema enums (not days, months, common words, building names,
    nor names mostly written "the X Y").  The character: after "Name:" / "mind of" / "you are|play", else the most named.
  * Each line belongs to the person it first names (bullets inherit): what each person knows in multi-person prompts.
    Places: schema enums and "Town:Building:room" strings, matched to words ("the Village Green") by building name.
  * Times in any style (17:00, 5 pm, 5.30 pm, half past five, noon, "this afternoon"); dates as ISO, "April 11",
    "11 April", weekdays, today/tomorrow, each resolved against the date stamped on its memory line.
  * The event: the most-mentioned event noun (match, party, fete, quiz, concert, ...) seen with a time/date or a host
    ("X wants to hold / is hosting", "X's", "my party" in X's own line, "she is holding" in X's line); what, where and
    when by weighted vote over all mentions (explicit ranges outweigh "at 3 pm", which outweighs "afternoon").

Decisions and their rates (p before the trait adjustment, then clamped to [0.05, 0.95])
  * Traits: +0.08 per outgoing trait (sociable, jovial, talkative, curious, nosy, ...), -0.08 per reserved one (quiet,
    tired, shy, stubborn, ...).
  * Telling news, per turn (also inside summarised conversations): a speaker who knows a future or ongoing event brings it
    up at p = 0.8 if it is their own event, 0.6 if someone else's, 0.2 if their memories show the listener already knows
    it (or the listener is the host); 0.1, as "you missed it", once it is over.
  * Answering: an invitation from the host is accepted at p = 0.65 (+traits); someone else's news -> "means to go" at
    0.45 (+traits).  The plan at that time holds a real commitment (calling on / meeting / appointment / another event):
    0.15, and the refusal names it.  Work overlapping: -0.1.  Said no before: halved.  Already committed (plan or an
    earlier yes): 0.9.  Event over: 0.  Same seed, person, event, partners and day give the same answer.
  * Conversation memos read the lines: a plan item only if the character's own line accepts / says it will go, the date
    is offered and the event not past (an ongoing one starts now).  Misreading: p = 0.08 adds the item when the character
    only heard the news and said nothing either way; p = 0.07 leaves it out despite acceptance.  Importance: small talk 2
    (3 at p = 0.3), news 5, accepted 6, declined 3, own event 5, these then +-1 at p = 0.3.
  * Stopping to talk (summaries): p = 0.85 if someone has news the other has not heard, else 0.5 + 2 x mean trait
    adjustment, -0.1 if both are working, -0.3 if one is asleep.  2-6 lines (up to 10 in groups).
  * Turns end with a goodbye: always when the prompt says the speaker must go; after 4+ lines at p = 0.5 per turn; when
    they would repeat themselves; the teller of news ends after the answer at p = 0.3.
  * React: untold news for the one noticed -> talk 0.75 (0.85 own event), wait 0.1, else continue.  Otherwise talk 0.3
    if busy working / 0.45 at leisure (+traits), wait 0.1, react 0.05, else continue; 0.15 talk if they chatted within
    the hour; the other asleep -> continue.
  * Daily plan: wake/work/bed from the lifestyle line; a day off on Sat/Sun at p = 0.35; hosting one's own event that
    day p = 0.95; going to another's: 0.85 if committed, 0.15 if declined before, else 0.4 (+traits, -0.15 if it
    overlaps work); a "telling people" hour where the prompt says untold people are (else at the event's place) at
    p = 0.6 for one's own event, 0.5 for news.
  * Interviews: a person asked about -> up to 2 facts from the persona and memories that name them; none -> says they do
    not know them (p = 0.04 a vague "seen them around").  An event asked about -> what/when/where and own stance from
    memories, or "haven't heard".  Otherwise the best word-matching memory in the first person, or "not sure".
  * Importance: routine 1-2, chats 2-3, news/invitations/refusals 4, an event 5, one's own event 7, life events (death,
    wedding, fire, ...) 8; then +1 (p = 0.15) or -1 (p = 0.10).
  * Reflection questions: the event, the two most-named people, the routine.  Insights cite only statements naming their
    subject.  Relationship / currently: from shared chats and the event stance in memories.  Decompose: steps from a
    small per-activity vocabulary, durations split evenly over the minutes asked for.

Malformed answers (as a middling model writes them unconstrained), declared rates per request: p = 0.04 for every kind,
plus a truncation at p = 0.03 when the request allows >= 800 tokens (about 4.9% over the captured mix).  JSON kinds, the
0.04 split: cut off mid-JSON 30%, prose or a ```json fence around it 25%, a short refusal 15%, a required field missing
15%, an enum value written off-list 15% (prose when there is no enum).  Plain-text turns: the speaker's name in front
35%, the words in quotes 20%, the [end]/[continue] tag missing 25%, a short refusal 20%.  Group turns: first a 25% share
of the speaker's name in front of the utterance (JSON still parses).  Nothing else is invalid: every other answer is
coerced to its schema (lengths, ranges, enums, required keys; patterns only where "" or a clock time fits them, so
an unknown schema with another pattern can still be missed).
"""
from __future__ import annotations
import datetime as _dt
import hashlib
import json
import re
from typing import Any

# ------------------------------------------------------------------ randomness
class _R:
    def __init__(self, key: bytes):
        self.key = key
    def u(self, tag: str) -> float:
        h = hashlib.blake2b(self.key + b"|" + tag.encode(), digest_size=8).digest()
        return int.from_bytes(h, "big") / 18446744073709551616.0
    def chance(self, p: float, tag: str) -> bool: return self.u(tag) < p
    def pick(self, seq, tag: str): return seq[int(self.u(tag) * len(seq))] if seq else ""
    def sub(self, extra: str) -> "_R": return _R(hashlib.blake2b(self.key + b"#" + extra.encode(), digest_size=16).digest())
def _clamp(p, lo=0.05, hi=0.95): return max(lo, min(hi, p))

# ------------------------------------------------------------------ vocabulary
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = {m: i + 1 for i, m in enumerate("january february march april may june july august september october "
                                          "november december".split())}
NUMW = {w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split())}
STOP1 = set(DAYS) | set(MONTHS) | set("""the a an it on at in have sorry sounds hi hello answer name what someone nobody
make plan places today lines ordinary news then give choose should right rewrite step write break describe for objects
keep decide say if innate age identity lifestyle currently things these questions question under each conclude from when
where who how why yes no ok fine thanks good great see do does did is was are i
my our you your we they he she but and or so not just morning afternoon evening lovely memory ratings fill""".split())
OUTGOING = set("sociable energetic jovial generous talkative friendly outgoing cheerful curious chatty lively nosy "
               "gregarious enthusiastic warm kind bubbly".split())
RESERVED = set("quiet tired shy reserved stubborn grumpy introverted solitary private cautious anxious gloomy aloof "
               "busy lazy".split())
EV_NOUNS = ["birthday party", "tea party", "dinner party", "garden party", "match", "party", "fete", "fair", "meeting",
            "gathering", "concert", "quiz", "picnic", "festival", "sale", "celebration", "birthday", "wedding", "funeral",
            "lecture", "market day", "dance", "ceilidh", "tournament", "race", "barbecue", "bonfire", "harvest supper",
            "recital", "exhibition", "raffle", "ceremony", "parade", "auction", "tasting", "rehearsal", "screening",
            "open day", "coffee morning", "book club", "choir practice", "game night", "jumble sale", "show", "sports day"]
EV_RE = re.compile(r"\b(%s)s?\b" % "|".join(sorted(EV_NOUNS, key=len, reverse=True)))  # on lower-cased text (fast)
HOSTV = r"(?:get(?:ting)? up|hold(?:ing)?|host(?:ing)?|throw(?:ing)?|organi[sz](?:e|ing)|put(?:ting)? on|arrang(?:e|ing)|run(?:ning)?)"
STOPMOD = set("a an the to of for at on in is was big this that their her his my our your going holding hosting about up"
              " get got into with and or no any some".split())
NAME = r"(?:O')?[A-Z][a-z]+(?:-[A-Z][a-z]+)?"
PERSON_RE = re.compile(r"(?<![:\w])(?=(%s) (%s)(?![\w:]))" % (NAME, NAME))
TIME_TOK = (r"(?:\d{1,2}:\d{2}(?:\s*[ap]\.?m\.?)?|\d{1,2}(?:\.\d{2})?\s*[ap]\.?m\.?|noon|midday|midnight|"
            r"(?:half past|quarter past|quarter to)\s+[a-z]+|[a-z]+ o'clock)")
RANGE_RE = re.compile(r"(?:from\s+|between\s+)?(%s|\d{1,2})\s*(?:-|–|to|until|till|and)\s*(%s)" % (TIME_TOK, TIME_TOK))
AT_RE = re.compile(r"\b(?:at|from|around|about|by)\s+(%s)" % TIME_TOK)  # both used on lower-cased text
POD_RE = re.compile(r"\b(morning|lunchtime|afternoon|teatime|evening|tonight)\b")
PART_OF_DAY = {"morning": (600, 120), "lunchtime": (720, 60), "afternoon": (840, 120), "teatime": (960, 60),
               "evening": (1080, 120), "tonight": (1140, 120)}
ADDR_RE = re.compile(r"([A-Z][\w' ]*:[A-Za-z][\w' ]*:[A-Za-z][\w' ]*)")
BULLET_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
STAMP_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*[\[(]([^\])]*\d[^\])]*)[\])]\s*(.*)$")
SPEECH_RE = re.compile(r"^\s*(%s %s):\s*[\"“](.*?)[\"”]?\s*$" % (NAME, NAME))
SCHED_RE = re.compile(r"^\s*(?:[-*•]\s*)?(%s)\s*(?:-|–|to)\s*(%s)\s+(.*?)\s*(?:\((?:planned at\s*)?([^()]*:[^()]*)\))?\s*$"
                      % (TIME_TOK, TIME_TOK), re.I)
ACCEPT_RE = re.compile(r"count me in|i'?ll be there|i'?ll come|see you there|wouldn'?t miss|i'?d love to|i'?ll go\b|"
                       r"i might (?:go|come|pop)|i'?ll (?:pop|look in|head|try to come|come along|go along|be along)|"
                       r"means? to go|i'?m in\b|we'?ll be there", re.I)
DECLINE_RE = re.compile(r"can'?t make it|cannot make it|can'?t come|won'?t be able|another time|not this time|"
                        r"have to miss|other plans|cannot go|can'?t go|couldn'?t make|don'?t think i'?ll manage", re.I)
COMMIT_RE = re.compile(r"calling on|visit|meeting|appointment|with [A-Z][a-z]+ [A-Z]|going to|hosting|holding|"
                       r"lesson with|doctor|dentist|funeral|wedding", re.I)
WORK_RE = re.compile(r"\bbusy\b|work|shift|open|serv|bak|teach|tend|running|sorting|nurs", re.I)
ROUTINE_SKIP = r"breakfast|lunch|dinner|sleep|waking|chatting"
def ev_mentions(s: str):
    """[(noun, modifier, hostish)] for event nouns in s; 'birthday party' -> ('party', 'birthday')."""
    out, low = [], s.lower()
    for m in EV_RE.finditer(low):
        n = m.group(1)
        if " " in n: mod, n = n.split(" ", 1)
        else:
            prev = s[max(0, m.start() - 20):m.start()].split()
            mod = prev[-1].lower() if prev and re.fullmatch(r"[a-z][a-z'-]+", prev[-1]) and prev[-1] not in STOPMOD else None
        host = bool(re.search(r"(?:%s|\bmy|\bour|'s)\s+(?:\S+\s+){0,3}$" % HOSTV, low[max(0, m.start() - 40):m.start()]))
        out.append((n, mod, host))
    return out

# ------------------------------------------------------------------ time and date parsing
def parse_clock(s: str, pm_hint: bool = False):
    s = s.lower().strip()
    if "noon" in s or "midday" in s: return 720
    if "midnight" in s: return 0
    m = re.search(r"(half past|quarter past|quarter to)\s+([a-z]+|\d+)", s)
    if m:
        h = NUMW.get(m.group(2), int(m.group(2)) if m.group(2).isdigit() else 0)
        if not h: return None
        h = h + 12 if h < 8 or pm_hint and h < 12 else h
        return {"half past": h * 60 + 30, "quarter past": h * 60 + 15}.get(m.group(1), h * 60 - 15)
    m = re.search(r"(\d{1,2})(?:[:.](\d{2}))?\s*([ap])?\.?m?\.?", s)
    if m and (m.group(2) or m.group(3)):
        h, mi = int(m.group(1)), int(m.group(2) or 0)
        h = h + 12 if m.group(3) == "p" and h < 12 else (0 if m.group(3) == "a" and h == 12 else h)
        return (h % 24) * 60 + mi if mi < 60 else None
    m = re.search(r"([a-z]+|\d+) o'clock", s)
    if m:
        h = NUMW.get(m.group(1), int(m.group(1)) if m.group(1).isdigit() else 0)
        return (h + 12 if h < 8 or pm_hint and h < 12 else h) * 60 if h else None
    return None
def hhmm(m: int) -> str:
    m = int(m) % 1440
    return "%02d:%02d" % (m // 60, m % 60)
def speak_time(m: int) -> str:
    h, mi = (m // 60) % 24, m % 60
    return ("%d" % (h % 12 or 12) if not mi else "%d:%02d" % (h % 12 or 12, mi)) + (" am" if h < 12 else " pm")
def parse_date(s: str, ref, year: int):
    """Best date named in s, resolved against ref (a date or None)."""
    low = s.lower(); m = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", s)
    try:
        if m: return _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        m = re.search(r"\b(%s)\s+(\d{1,2})(?:st|nd|rd|th)?\b" % "|".join(MONTHS), low) or \
            re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(%s)\b" % "|".join(MONTHS), low)
        if m:
            a, b = m.group(1), m.group(2); mon, day = (MONTHS[a], int(b)) if a in MONTHS else (MONTHS[b], int(a))
            return _dt.date(year, mon, day)
    except ValueError: return None
    if ref is None: return None
    if "tomorrow" in low: return ref + _dt.timedelta(days=1)
    if re.search(r"\btoday\b|\btonight\b|this (?:morning|afternoon|evening)", low): return ref
    for i, d in enumerate(DAYS):
        if re.search(r"\b%s\b" % d, low): return ref + _dt.timedelta(days=(i - ref.weekday()) % 7)
    return None
def _vote(d, k, n=1):
    d[k] = d.get(k, 0) + n
def _best(d, default=None, key=None): return max(d, key=key or (lambda k: d[k])) if d else default

# ------------------------------------------------------------------ the prompt as a small world
class World:
    def __init__(self, body: dict):
        msgs = [m for m in (body.get("messages") if isinstance(body.get("messages"), list) else []) if isinstance(m, dict)]
        txt = lambda c: " ".join(str(x.get("text", "")) if isinstance(x, dict) else str(x) for x in c) if isinstance(
            c, list) else str(c or "")
        self.sys = "\n".join(txt(m.get("content")) for m in msgs if m.get("role") == "system")
        self.user = "\n".join(txt(m.get("content")) for m in msgs if m.get("role") != "system")
        self.text, self.ulines = self.sys + "\n" + self.user, self.user.split("\n")
        rf = body.get("response_format") or {}; js = rf.get("json_schema") or {} if isinstance(rf, dict) else {}
        self.schema = js.get("schema") if isinstance(js.get("schema"), dict) else None
        self.sname = str(js.get("name") or "")
        self.max_tokens = int(body.get("max_tokens") or 512) if str(body.get("max_tokens") or "").isdigit() else 512
        enums = []
        _collect_enums(self.schema, enums, 0); self.enum_strs = [e for e in enums if isinstance(e, str)]
        self.places = []
        for p in self.enum_strs + ADDR_RE.findall(self.text):
            if p.strip().count(":") == 2 and p.strip() not in self.places: self.places.append(p.strip())
        self.year = int((re.findall(r"\b(20\d\d)\b", self.text + " ".join(self.enum_strs)) or ["2026"])[0])
        self.date_enum = [e for e in self.enum_strs if re.fullmatch(r"\d{4}-\d{2}-\d{2}", e)]
        self._people()
        self._now()
        self._sections(); self._sched, self._cache = {}, {}
        self.lines = [(m.group(1), m.group(2).strip().rstrip('"')) for m in map(SPEECH_RE.match, self.ulines) if m]
        self.event = self._event()
    def _people(self):
        cand, the = {}, {}; buildings = {p.split(":")[1] for p in self.places}
        for m in PERSON_RE.finditer(self.text):
            a, b = m.group(1), m.group(2)
            if a.lower() in STOP1 or b.lower() in STOP1 or a + " " + b in buildings: continue
            _vote(cand, a + " " + b)
            if self.text[max(0, m.start() - 4):m.start()].lower() == "the ": _vote(the, a + " " + b)
        cand = {k: v for k, v in cand.items() if 2 * the.get(k, 0) < v}
        for e in self.enum_strs:
            if re.fullmatch(r"%s %s" % (NAME, NAME), e) and e not in buildings: _vote(cand, e, 3)
        cand = {k: v for k, v in cand.items() if not any(o != k and o.startswith(k) for o in cand)}
        self.people = sorted(cand, key=lambda k: -cand[k]); me = None
        for rx in (r"\bName:\s*(%s %s)" % (NAME, NAME), r"(?:[Mm]ind of|[Yy]ou are|[Yy]ou play|[Pp]lay|[Pp]laying|[Rr]ole of"
                                                        r"|[Vv]oice of|[Aa]ct as|[Ss]peak as)\s+(%s %s)" % (NAME, NAME)):
            m = re.search(rx, self.text)
            if m and m.group(1) in cand:
                me = m.group(1)
                break
        self.me = me or (self.people[0] if self.people else "Someone")
        if self.me not in self.people: self.people.insert(0, self.me)
    def names_in(self, s: str):
        found = []
        for p in self.people:
            m = re.search(r"\b%s(?![a-z])" % re.escape(p), s) if p in s else None
            if m: found.append((m.start(), p))
        return [p for _, p in sorted(found)]
    def _now(self):
        self.today, self.now = None, None
        m = re.search(r"(\d{4}-\d{2}-\d{2})\s*\(today", self.text)
        if m: self.today = parse_date(m.group(1), None, self.year)
        for line in self.ulines:
            low = line.lower()
            if BULLET_RE.match(line) or SPEECH_RE.match(line) or not (
                    any(d in low for d in DAYS) or re.search(r"\d{4}-\d{2}-\d{2}", low)):
                continue
            d = parse_date(line, None, self.year)
            if d:
                t = re.search(r"\b(\d{1,2}:\d{2})\b|\b\d{1,2}\s*[ap]\.?m\b", line)
                self.today, self.now = self.today or d, parse_clock(t.group(0)) if t else None
                break
        if self.today is None:
            self.today = parse_date(self.date_enum[0], None, self.year) if self.date_enum else _dt.date(self.year, 4, 10)
    def minutes_now(self): return self.now if self.now is not None else 8 * 60
    def _sections(self):
        """Each line belongs to the person it first names; bullets inherit (what each person knows)."""
        self.sec, owner = {p: [] for p in self.people}, self.me
        for line in self.ulines:
            if not line.strip() or SPEECH_RE.match(line): continue
            if not BULLET_RE.match(line): owner = (self.names_in(line) or [owner])[0]
            self.sec.setdefault(owner, []).append(line)
        self.multi = sum(1 for l in self.ulines if re.match(r"\s*Name:", l)) > 1 or "talk" in ((self.schema or {}).get(
            "properties") or {})
    def know(self, p: str): return self.sec.get(p, []) if self.multi else self.ulines
    def persona(self, p: str) -> str: return " ".join(l for l in self.know(p) if not BULLET_RE.match(l))[:3000]
    def traits(self, p: str) -> float:
        t = self.persona(p).lower(); m = re.search(r"traits?:([^\n.]*)", t)
        words = set(re.findall(r"[a-z]+", m.group(1) if m else t[:400]))
        return 0.08 * (len(words & OUTGOING) - len(words & RESERVED))
    def schedule(self, p: str):
        if p not in self._sched:
            out = self._sched[p] = []
            for m in map(SCHED_RE.match, self.know(p)):
                a, b = (parse_clock(m.group(1)), parse_clock(m.group(2))) if m else (None, None)
                if a is not None and b is not None:
                    out.append((a, b if b > a else b + 1440, m.group(3).strip(), (m.group(4) or "").strip()))
        return self._sched[p]
    def activity_at(self, p: str, t: int):
        return next(((act, pl) for a, b, act, pl in self.schedule(p) if a <= t < b or a <= t + 1440 < b), None)
    def place_in(self, s: str, pool=None):
        low, best = s.lower(), ("", 0); words = set(re.findall(r"[a-z']+", low))
        for p in (pool if pool is not None else self.places):
            parts = p.lower().split(":")
            if len(parts) < 3: continue
            b, r = parts[1], parts[2]; sc = 3 if b in low else (1 if b.split()[-1] in words else 0)
            sc += 1 if sc and (r in words or " " in r and r in low) else 0
            if sc > best[1]: best = (p, sc)
        return best[0]
    def _event(self):
        """The most-mentioned event with a time or date; what/host/where/when by weighted vote."""
        sents, refs, who = {}, {}, {}
        for line in self.ulines:
            if not EV_RE.search(line.lower()): continue
            m = STAMP_RE.match(line)
            if m and m.group(1) not in refs: refs[m.group(1)] = parse_date(m.group(1), None, self.year)
            ref, sp = refs[m.group(1)] if m else self.today, SPEECH_RE.match(line)
            owner = (self.names_in(line) or [self.me])[0]
            for s in re.split(r"(?<=[.!?])\s+|\s/\s", m.group(2) if m else line):
                _vote(sents, (s, ref), 3 if sp else 1)
                who.setdefault(s, (sp.group(1) if sp else None, owner))
        counts, mods, seen = {}, {}, {}
        for (s, _), n in sents.items():
            if s not in seen:
                ms = ev_mentions(s)
                seen[s] = (ms, bool(ms) and bool(RANGE_RE.search(s.lower()) or AT_RE.search(s.lower()) or re.search(
                    r"afternoon|evening|morning|tonight|today|tomorrow|\d", s, re.I)))
            ms, timed = seen[s]
            for noun, mod, hostish in ms:
                _vote(counts, noun, ((2 if timed else 0) + (3 if hostish else 0) + 1) * n)
                if mod: _vote(mods.setdefault(noun, {}), mod, n)
        counts = {k: v for k, v in counts.items() if v >= 3}
        if not counts: return None
        noun = _best(counts); what = ((_best(mods.get(noun, {}), "")) + " " + noun).strip()
        nrx = self._nrx = re.compile(r"\b%ss?\b" % noun)
        rel = [(s, r, n) for (s, r), n in sents.items() if seen[s][0] and nrx.search(s.lower())]
        hosts, places, starts, dates = {}, {}, {}, {}
        hrx = re.compile(r"(%s %s)\s+(?:wants to|would like to|plans to|is planning to|is going to|will|is|was)\s+(?:get up|"
                         r"getting up|hold|holding|host|hosting|have|having|throw|throwing|organi[sz]e|organi[sz]ing|put on|"
                         r"putting on|run|running|arrange|arranging|give|giving|start|starting)\b[^.]{0,40}?\b%s"
                         % (NAME, NAME, noun))
        prx = re.compile(r"(%s %s)'s\s+(?:[a-z]+\s+)?%s" % (NAME, NAME, noun))
        mine = re.compile(r"\b(?:my|our)\s+(?:\S+\s+){0,2}%s|\bI(?:'m| am| will| want to)\s+%s" % (noun, HOSTV))
        pron = re.compile(r"\b(?:she|he|they)(?:'s|'re| is| are| wants to| will)\s+%s\b[^.]{0,40}%s" % (HOSTV, noun), re.I)
        for s, ref, n in rel:
            for m in list(hrx.finditer(s)) + list(prx.finditer(s)): _vote(hosts, m.group(1), n)
            sp, owner = who.get(s, (None, self.me))
            h = sp if sp and mine.search(s.split(":", 1)[-1]) else owner if pron.search(s) else None
            if h: _vote(hosts, h, 2 * n)
            pl = self.place_in(s)
            if pl: _vote(places, pl, n)
            d = parse_date(s, ref, self.year)
            if d: _vote(dates, d, (3 if re.search(r"\d", s) else 1) * n)
            for wgt, st, en in self._times(s): _vote(starts, (st, en), wgt * n)
        if not starts:
            for _, t in self.lines:
                for wgt, st, en in (self._times(t) if nrx.search(t.lower()) else []): _vote(starts, (st, en), wgt)
        host = _best(hosts); st, en = _best(starts, (None, None), lambda k: (starts[k], k[1] is not None))
        if st is not None and en is None: en = max([e for (s2, e) in starts if s2 == st and e], default=None)
        place, pw = _best(places, ""), ""
        for s, _, _ in ([] if place else rel):
            m = re.search(r"\b(on|at|in) the ((?:[A-Z][\w']*\s?)+)", s)
            if m and m.group(2).strip() not in self.people:
                pw = "%s the %s" % (m.group(1), m.group(2).strip())
                break
        return {"noun": noun, "what": what, "host": host if host in self.people else None, "place": place,
                "date": _best(dates), "start": st, "end": en, "pw": pw}
    def _times(self, s: str):
        out, s = [], s.lower()
        if not re.search(r"\d|noon|midday|midnight|o'clock|half past|quarter|morning|lunchtime|afternoon|teatime|evening|tonight", s):
            return out
        for m in RANGE_RE.finditer(s):
            b = parse_clock(m.group(2), True); a = parse_clock(m.group(1), True) if not m.group(1).isdigit() else None
            if a is None and m.group(1).isdigit() and b is not None:
                a = (int(m.group(1)) % 12 + (12 if b >= 720 else 0)) * 60
            if a is not None and b is not None and b > a: out.append((3, a, b))
        for m in ([] if out else AT_RE.finditer(s)):
            a = parse_clock(m.group(1), True)
            if a is not None: out.append((2, a, None))
        m = None if out else POD_RE.search(s)
        if m:
            a, d = PART_OF_DAY[m.group(1)]
            out.append((1, a, a + d))
        return out
    def ev_mentioned(self, s: str) -> bool:
        low = s.lower()
        return bool(self.event) and self.event["noun"].split()[-1] in low and bool(self._nrx.search(low))
    def ev_state(self):
        """'future', 'now', 'over' or 'unknown'."""
        e = self.event
        if not e or not e["date"]: return "unknown"
        if e["date"] != self.today: return "future" if e["date"] > self.today else "over"
        t, st, en = self.minutes_now(), e["start"] or 720, e["end"] or (e["start"] or 720) + 120
        return "future" if t < st else ("now" if t < en else "over")
    def _memo(self, key, fn):
        if key not in self._cache: self._cache[key] = fn()
        return self._cache[key]
    def knows_event(self, p: str) -> bool:
        return self._memo(("k", p), lambda: bool(self.event) and any(self.ev_mentioned(l) for l in self.know(p)))
    def stance(self, p: str):
        """'yes', 'no' or None from p's plan and earlier words about the event."""
        return self._memo(("s", p), lambda: self._stance(p))
    def _stance(self, p: str):
        e, yes, no = self.event, 0, 0
        if not e: return None
        for a, b, act, _ in self.schedule(p):
            if (self.ev_mentioned(act) or re.search(r"going to|hosting|holding", act)) and (
                    e["start"] is None or a < (e["end"] or 1440) and b > e["start"]):
                yes += 2
        for l in self.know(p):
            if not self.ev_mentioned(l) and not re.search(re.escape(p) + r" cannot go", l): continue
            for m in re.finditer(re.escape(p) + r':\s*"([^"]*)', l):
                yes, no = yes + bool(ACCEPT_RE.search(m.group(1))), no + bool(DECLINE_RE.search(m.group(1)))
            no += bool(re.search(re.escape(p) + r" (?:cannot|can't) go", l))
            yes += bool(re.search(re.escape(p.split()[0]) + r"\b.{0,30}(?:means to go|will go|is going to the)", l))
        return "yes" if yes > no else ("no" if no else None)
    def heard(self, teller: str, listener: str) -> bool:
        """Teller's memories show listener already knows the event."""
        return self._memo(("h", teller, listener), lambda: bool(self.event) and (self.event["host"] == listener or any(
            STAMP_RE.match(l) and self.ev_mentioned(l) and listener in l for l in self.know(teller))))
    def has_news(self, p: str) -> bool: return self.knows_event(p) and self.ev_state() in ("future", "now", "unknown")
def _collect_enums(node, out, depth):
    if depth > 12 or not isinstance(node, (dict, list)): return
    for k, v in (enumerate(node) if isinstance(node, list) else node.items()):
        if k == "enum" and isinstance(v, list): out.extend(v)
        else: _collect_enums(v, out, depth + 1)

# ------------------------------------------------------------------ schema helpers
def resolve(s, root):
    for _ in range(10):
        if not (isinstance(s, dict) and "$ref" in s): break
        node = root
        for part in s["$ref"].lstrip("#/").split("/"): node = node.get(part, {}) if isinstance(node, dict) else {}
        s = node
    return s if isinstance(s, dict) else {}
def _unany(s, root):
    s = resolve(s, root)
    return next((a for a in (resolve(x, root) for x in s.get("anyOf") or []) if a.get("type") != "null"), s)
def subschema(root, *keys):
    s = root
    for k in keys:
        s = _unany(s, root); s = s.get("items", {}) if k == "[]" else (s.get("properties") or {}).get(k, {})
    return _unany(s, root)
def enum_of(root, *keys): return list(subschema(root, *keys).get("enum") or [])
def fit(v, s, root, depth=0):
    """Coerce v to schema s (the declared 'nothing else is invalid' guarantee)."""
    s = resolve(s, root)
    if depth > 12: return v
    if "anyOf" in s:
        alts = [resolve(a, root) for a in s["anyOf"]]
        if v is None and any(a.get("type") == "null" for a in alts): return None
        s = next((a for a in alts if a.get("type") != "null"), {})
    t = s.get("type")
    if "enum" in s:
        en = s["enum"]
        if v in en: return v
        for e in (en if isinstance(v, str) else []):
            if isinstance(e, str) and e and (e.lower() == v.lower() or (v and v.lower() in e.lower())): return e
        return "" if "" in en else (s.get("default") if s.get("default") in en else en[0])
    if t == "object" or "properties" in s:
        v, props, out = v if isinstance(v, dict) else {}, s.get("properties") or {}, {}
        for k, ps in props.items():
            if k in v: out[k] = fit(v[k], ps, root, depth + 1)
            elif k in (s.get("required") or []): out[k] = fit(default_for(ps, root, k), ps, root, depth + 1)
        if s.get("additionalProperties", True) is not False:
            for k in v: out.setdefault(k, v[k])
        return out
    if t == "array":
        v, it = list(v) if isinstance(v, (list, tuple)) else [], s.get("items", {})
        v = [fit(x, it, root, depth + 1) for x in (v[:s["maxItems"]] if s.get("maxItems") is not None else v)]
        while len(v) < s.get("minItems", 0):
            v.append(fit(v[-1] if v else default_for(it, root, "item"), it, root, depth + 1))
        return v
    if t in ("integer", "number"):
        try: v = int(round(float(v))) if t == "integer" else float(v)
        except (TypeError, ValueError): v = s.get("minimum", 1)
        return min(max(v, s.get("minimum", v)), s.get("maximum", v))
    if t == "boolean": return bool(v)
    if t == "string" or isinstance(v, str):
        v = "" if v is None else str(v)
        if "maxLength" in s and len(v) > s["maxLength"]:
            cut = v[: s["maxLength"]]; v = (cut[: cut.rfind(" ")] if " " in cut[20:] else cut).rstrip(",;: ")
        try:
            if s.get("pattern") and not re.search(s["pattern"], v):
                v = "" if re.search(s["pattern"], "") else ("12:00" if re.search(s["pattern"], "12:00") else v)
        except re.error: pass
        if len(v) < s.get("minLength", 0): v = (v + " ok" * s["minLength"]).strip()[: max(s.get("minLength", 1), 2)]
    return v
def default_for(s, root, key=""):
    s, t = resolve(s, root), resolve(s, root).get("type")
    if "enum" in s: return s["enum"][0]
    if t == "object" or "properties" in s:
        return {k: default_for(v, root, k) for k, v in (s.get("properties") or {}).items()}
    if t == "array": return [default_for(s.get("items", {}), root, key) for _ in range(s.get("minItems", 0))]
    if t == "integer": return (s.get("minimum", 0) + s.get("maximum", s.get("minimum", 0) + 4) + 1) // 2
    if t in ("number", "boolean"): return s.get("minimum", 0) if t == "number" else key in ("ok", "talk")
    return None if "anyOf" in s else ("ok" if s.get("minLength") else "")

# ------------------------------------------------------------------ phrases
def and_list(xs) -> str:
    xs = list(dict.fromkeys(xs))
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]
def first(n: str) -> str: return n.split()[0] if n else "there"
def place_phrase(addr: str) -> str:
    parts = addr.split(":")
    if len(parts) < 3: return ""
    if re.search(r"rooms|house|cottage|flat", parts[1], re.I): return "at " + parts[1]
    return ("on the " if parts[1].lower().endswith("green") else "at the ") + parts[1]
def day_phrase(w: World, d) -> str:
    if d is None: return ""
    delta = (d - w.today).days
    if delta in (0, 1): return "tomorrow" if delta else "today"
    if 1 < delta < 7: return "on " + DAYS[d.weekday()].capitalize()
    return "on %s %s %d" % (DAYS[d.weekday()].capitalize(), d.strftime("%B"), d.day)
def when_phrase(w: World) -> str:
    e, dp = w.event, day_phrase(w, w.event["date"])
    if e["start"] is None: return dp
    tp = "from %s to %s" % (speak_time(e["start"]), speak_time(e["end"])) if e["end"] else "at " + speak_time(e["start"])
    return (dp + " " + tp).strip()
def ev_tail(w: World) -> str:
    pp = place_phrase(w.event["place"]) if w.event["place"] else w.event.get("pw", "")
    return " ".join(x for x in (pp, when_phrase(w)) if x)
def ev_desc(w: World) -> str:
    return "%s %s %s" % ("an" if w.event["what"][:1] in "aeiou" else "a", w.event["what"], ev_tail(w)) if ev_tail(w) else \
        "%s %s" % ("an" if w.event["what"][:1] in "aeiou" else "a", w.event["what"])
def gerund(verb: str) -> str:
    v = verb.lower(); base = v[:-2] if v.endswith(("ches", "shes", "sses")) else v[:-1] if v.endswith("s") else v
    if base.endswith("e") and not base.endswith("ee"): return base[:-1] + "ing"
    return base + base[-1] + "ing" if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnpt]", base) and len(base) <= 4 else base + "ing"

# ------------------------------------------------------------------ conversation engine
def _overlaps(w: World, a, b):
    e = w.event
    return e["start"] is not None and a < (e["end"] or e["start"] + 120) and b > e["start"]
def accept_prob(w: World, p: str, inviter: str) -> float:
    e, stance = w.event, w.stance(p)
    if w.ev_state() == "over": return 0.0
    if stance == "yes": return 0.9
    base = (0.65 if inviter and inviter == e["host"] else 0.45) + w.traits(p)
    for a, b, act, _ in w.schedule(p):
        if _overlaps(w, a, b):
            if COMMIT_RE.search(act) and not w.ev_mentioned(act): return 0.15
            base -= 0.1 if WORK_RE.search(act) else 0
    return _clamp(base * (0.5 if stance == "no" else 1))
def clash(w: World, p: str):
    return next((act for a, b, act, _ in w.schedule(p) if _overlaps(w, a, b) and not w.ev_mentioned(act)), None)
def tell_line(w: World, s: str, rng: _R, tag: str) -> str:
    e, d = w.event, ev_desc(w)
    if e["host"] == s:
        return rng.pick(["Have you heard? I'm getting up %s. Do come and join in!" % d,
                         "I'm holding %s - I'd love you to come along!" % d, "You must come: I'm organising %s." % d], tag)
    h = first(e["host"]) if e["host"] else "someone"
    if w.ev_state() == "over": return "Shame you missed it - %s had %s earlier." % (h, d.split(" from ")[0])
    if not e["host"]: return rng.pick(["Have you heard? There's %s." % d, "Did you know there's %s? Might be fun." % d], tag)
    return rng.pick(["Have you heard? %s is getting up %s." % (h, d), "Did you know %s is holding %s? Might be fun." % (h, d),
                     "News for you: there's %s, %s's organising it." % (d, h)], tag)
def reply_line(w: World, s: str, teller: str, rng: _R, tag: str, partners: str):
    """s answers news/invitation from teller -> (text, 'yes'|'no'|'host'|'ack')."""
    e = w.event
    if e["host"] == s:
        return rng.pick(["Yes, that's my %s! I hope you'll come." % e["noun"], "That's mine, actually - do come along!"], tag), "host"
    if w.ev_state() == "over": return "Oh, I'm sorry I missed it.", "ack"
    if teller == s: return "Great, see you there!", "ack"
    if rng.chance(accept_prob(w, s, teller), "acc|%s|%s|%s|%s" % (s, e["noun"], partners, w.today)):
        if teller == e["host"]:
            return rng.pick(["Sounds lovely, count me in!", "I'd love to - I'll be there %s." % day_phrase(w, e["date"]),
                             "Oh yes, I'll come along."], tag), "yes"
        return rng.pick(["Oh, that sounds fun. I think I'll go along.", "Thanks for telling me - I'll go and watch.",
                         "I might well pop along to that, I'll be there."], tag), "yes"
    c = clash(w, s)
    if c and COMMIT_RE.search(c): return "Sorry, I can't make it: I'm %s then. Another time?" % c, "no"
    if teller == e["host"]:
        return rng.pick(["Sorry, I can't make it - I've got too much on.", "Thanks, but I don't think I'll manage it."], tag), "no"
    return rng.pick(["Oh, interesting. I don't think it's really for me, though.", "Good to know - not sure I'll get there."],
                    tag), "ack"
def small_talk(w: World, s: str, to: str, n_said: int, rng: _R, tag: str, said=()) -> str:
    act, t = w.activity_at(s, w.minutes_now()), w.minutes_now()
    tod = "Morning" if t < 720 else ("Afternoon" if t < 1080 else "Evening")
    if n_said == 0:
        opts = ["Hi %s! How are you doing?" % first(to), "%s, %s! Nice to see you." % (tod, first(to)),
                "Hello %s, how's your day going?" % first(to)]
    else:
        opts = ["Not bad at all, thanks. Busy day, but a good one.", "Lovely weather for it, isn't it?",
                "Can't complain. Keeping busy as ever.", "It's been a quiet sort of day, really."]
        if act and not (w.event and w.ev_mentioned(act[0])) and not re.search(r"sleep|chatting", act[0]):
            opts.append("Oh, just %s. The usual." % act[0])
    return rng.pick([o for o in opts if o not in said] or opts, tag)
def bye_line(to: str, rng: _R, tag: str) -> str:
    return rng.pick(["Well, I'd better get on. See you, %s!" % first(to), "Good to see you, %s. Take care!" % first(to),
                     "Right, I must be off. Bye for now, %s!" % first(to)], tag)
def next_line(w: World, s: str, others: list, lines: list, rng: _R, turn: int, must_leave=False):
    """-> (text, addressed_to, end, kind)."""
    mine, e = [t for sp, t in lines if sp == s], w.event
    last = next(((sp, t) for sp, t in reversed(lines) if sp != s), None)
    to = last[0] if last and last[0] in others else (others[0] if others else "everyone")
    if must_leave: return bye_line(to, rng, "bye%d" % turn), to, True, "bye"
    if e:
        tells = [i for i, (sp, t) in enumerate(lines) if sp != s and w.ev_mentioned(t)]
        mine_ev = [i for i, (sp, t) in enumerate(lines) if sp == s and w.ev_mentioned(t)]
        if tells and not mine_ev and not any(sp == s for sp, _ in lines[tells[0] + 1:]):
            txt, k = reply_line(w, s, lines[tells[0]][0], rng, "rep%d" % turn, ",".join(sorted(others)))
            return txt, lines[tells[0]][0], False, k
        resp = [i for i, (sp, t) in enumerate(lines) if mine_ev and sp != s and i > mine_ev[0] and (
            ACCEPT_RE.search(t) or DECLINE_RE.search(t))]
        if resp and resp[-1] > max(i for i, (sp, _) in enumerate(lines) if sp == s):
            t = lines[resp[-1]][1]
            txt = "Wonderful, see you there!" if ACCEPT_RE.search(t) and not DECLINE_RE.search(t) else \
                "Ah well, never mind - another time."
            return txt, lines[resp[-1]][0], rng.chance(0.3, "endafter%d" % turn), "ack"
    if e and w.has_news(s) and not any(w.ev_mentioned(t) for _, t in lines):
        untold = [o for o in others if not w.heard(s, o)]
        p = 0.1 if w.ev_state() == "over" else (0.8 if e["host"] == s else 0.6) if untold else 0.2
        if rng.chance(p, "tell%d" % turn):
            return tell_line(w, s, rng, "tl%d" % turn), (to if len(others) == 1 else "everyone"), False, "tell"
    txt = small_talk(w, s, to, len(mine), rng, "st%d" % turn, {t for _, t in lines})
    if len(lines) >= 4 and rng.chance(0.5, "bye?%d" % turn) or (mine and len(lines) >= 6) or txt in mine:
        return bye_line(to, rng, "bye%d" % turn), to, True, "bye"
    return txt, to, False, "small"
def simulate(w: World, people: list, rng: _R, max_lines: int):
    lines, active, order = [], list(people), 0
    while len(lines) < max_lines and len(active) >= 2:
        s = active[order % len(active)]
        txt, to, end, _ = next_line(w, s, [p for p in active if p != s], lines, rng, len(lines),
                                    len(lines) >= max_lines - 1 and len(lines) >= 2)
        lines.append((s, txt))
        if end:
            active.remove(s); order -= 1 if len(lines) < 2 and active else 0
        else: order += 1
        if end and len(active) == 1 and len(lines) < max_lines:
            lines.append((active[0], bye_line(s, rng, "lastbye%d" % len(lines))))
            break
    return lines
def memo(w: World, p: str, lines: list, rng: _R, date_enum: list, place_enum: list) -> dict:
    """p's one-sentence memo of lines, importance and any plan item (only on p's own yes)."""
    e = w.event; others = sorted({sp for sp, _ in lines if sp != p}) or [n for n in w.people if n != p][:1]
    where, who = w.place_in(w.ulines[0]).split(":")[-1], and_list(others) if others else "someone"
    out = {"summary": "", "importance": 2, "plan_activity": "", "plan_date": "", "plan_start": "", "plan_minutes": 0,
           "plan_place": ""}
    ev_lines = [(sp, t) for sp, t in lines if e and w.ev_mentioned(t)]
    if not ev_lines:
        out["summary"] = "%s chatted briefly with %s%s; it was small talk and nothing was arranged." % (
            p, who, (" at the " + where) if where else "")
        out["importance"] = 2 + (rng.u("imp") < 0.3)
        return out
    teller = ev_lines[0][0]; mine = [t for sp, t in lines if sp == p] if teller != p else []
    said_yes = any(ACCEPT_RE.search(t) and not DECLINE_RE.search(t) for t in mine)
    said_no = any(DECLINE_RE.search(t) for t in mine); hostn = e["host"] or teller
    if e["host"] == p:
        resp = [(sp, t) for sp, t in lines if sp != p and (ACCEPT_RE.search(t) or DECLINE_RE.search(t))]
        yes = [sp for sp, t in resp if ACCEPT_RE.search(t) and not DECLINE_RE.search(t)]
        no = [sp for sp, t in resp if DECLINE_RE.search(t)]
        out["summary"] = "%s told %s about the %s %s is holding %s%s%s." % (
            p, who, e["what"], p, ev_tail(w), "; %s said they would come" % and_list(yes) if yes else "",
            "; %s can't make it" % and_list(no) if no else "")
        out["importance"] = 5
    else:
        told = ("%s invited %s to %s's %s" if teller == hostn else "%s told %s about %s's %s") % (
            teller, p if teller != p else who, first(hostn) if teller == hostn else hostn, ev_desc(w).split(" ", 1)[-1])
        out["summary"] = told + (", and %s said they would go" % p if said_yes else (
            ", but %s can't make it" % p if said_no else "")) + "."
        out["importance"] = 6 if said_yes else (3 if said_no else 5)
    if rng.u("impj") < 0.3: out["importance"] += 1 if rng.u("impd") < 0.5 else -1
    plan = said_yes and e["host"] != p and not rng.chance(0.07, "omit")
    if not plan and e["host"] != p and not said_yes and not said_no and teller != p and rng.chance(0.08, "misread"):
        plan = True
    iso = e["date"].isoformat() if e["date"] else ""
    if plan and iso and w.ev_state() != "over" and (not date_enum or iso in date_enum):
        st = e["start"] if e["start"] is not None else 14 * 60
        if e["date"] == w.today and w.now is not None and w.now > st: st = (w.now + 4) // 5 * 5
        out.update(plan_activity="going to %s's %s" % (first(hostn), e["what"]), plan_date=iso, plan_start=hhmm(st),
                   plan_minutes=max(0, min(600, (e["end"] or (e["start"] or st) + 120) - st)),
                   plan_place=e["place"] if e["place"] in place_enum else (
                       w.place_in(e["place"].replace(":", " "), place_enum) if e["place"] else ""))
    return out

# ------------------------------------------------------------------ handlers: conversations
def h_memo(w: World, rng: _R): return memo(w, w.me, w.lines, rng, w.date_enum, [x for x in w.enum_strs if x.count(":") == 2])
def h_summary(w: World, rng: _R):
    root = w.schema; spk, group = enum_of(root, "lines", "[]", "speaker"), "memos" in (root.get("properties") or {})
    ppl = w.names_in(next((l for l in w.ulines if l.strip()), ""))
    if spk: ppl = [n for n in ppl if n in spk] + [n for n in spk if n not in ppl]
    ppl = ppl if group else ppl[:2]
    if len(ppl) < 2: ppl = (ppl + [n for n in w.people if n not in ppl])[:2]
    news = any(w.has_news(p) and any(not w.heard(p, o) for o in ppl if o != p) for p in ppl)
    p_talk = 0.85 if news else _clamp(0.5 + sum(w.traits(p) for p in ppl) / max(1, len(ppl)) * 2)
    acts = [w.activity_at(p, w.minutes_now()) for p in ppl]
    p_talk -= 0.1 if not news and all(a and WORK_RE.search(a[0]) for a in acts) else 0
    p_talk -= 0.3 if any(a and "sleep" in a[0] for a in acts) or re.search(r"\bsleeping\b", w.ulines[0]) else 0
    if not rng.chance(p_talk, "talk"):
        return {"talk": False, "lines": [], **({"memos": []} if group else {"first": None, "second": None})}
    lines = simulate(w, ppl, rng, min(subschema(root, "lines").get("maxItems", 10 if group else 6), 10 if group else 6))
    out = {"talk": True, "lines": [{"speaker": sp, "text": t} for sp, t in lines]}
    if group:
        pe, de = enum_of(root, "memos", "[]", "plan_place"), enum_of(root, "memos", "[]", "plan_date")
        out["memos"] = [dict(name=p, **memo(w, p, lines, rng.sub(p), de, pe)) for p in ppl]
    for k, p in ([] if group else zip(("first", "second"), ppl)):
        out[k] = memo(w, p, lines, rng.sub(p), enum_of(root, k, "plan_date"), enum_of(root, k, "plan_place"))
    return out
def _turn_context(w: World):
    me = w.me; others = [n for n in w.enum_strs if n in w.people and n != me]
    if not others:  # the first plain line naming me and someone else, then the speakers so far
        hdr = next((l for l in w.ulines if not BULLET_RE.match(l) and not re.match(r"\s*\w+:", l) and me in l and len(
            w.names_in(l)) > 1), "")
        others = list(dict.fromkeys([n for n in w.names_in(hdr) + [sp for sp, _ in w.lines] if n != me]))
    left = set(re.findall(r"(%s %s) has left" % (NAME, NAME), w.user))
    others = [o for o in others if o not in left] or others or [n for n in w.people if n != me][:1]
    must = bool(re.search(re.escape(me) + r"[^.\n]{0,20}(?:has to go|must go|needs to leave|last line|takes leave)", w.user))
    return me, others, must
def h_turn_text(w: World, rng: _R):
    me, others, must = _turn_context(w); txt, _, end, _ = next_line(w, me, others, w.lines, rng, len(w.lines), must)
    return txt + "\n" + ("[end]" if end else "[continue]")
def h_group_turn(w: World, rng: _R):
    me, others, must = _turn_context(w); txt, to, end, _ = next_line(w, me, others, w.lines, rng, len(w.lines), must)
    en = enum_of(w.schema, "addressed_to")
    return {"utterance": txt, "addressed_to": to if not en or to in en else ("everyone" if "everyone" in en else en[0]),
            "end_conversation": end}

# ------------------------------------------------------------------ handlers: ratings, reactions, interviews
def rate(w: World, mem: str, me: str, rng: _R, tag: str) -> int:
    low = mem.lower()
    if re.search(r"\b(died|death|funeral|fire|accident|engaged|wedding|pregnan|divorce|broke up|arrested|hospital|fired)\b", low):
        r = 8
    elif w.event and w.ev_mentioned(mem): r = 7 if w.event["host"] == me else (4 if DECLINE_RE.search(mem) else 5)
    elif re.search(r"invit|told|heard|news|promise|asked", low): r = 4
    elif re.search(r"chatting|chatted|conversation|talking", low): r = 2 + (me in mem and low.count(" ") > 6)
    else: r = 1 if re.search(r"sleep|waking|breakfast|lunch|dinner|relaxing|brushing", low) else 2
    if rng.u(tag) < 0.25: r += 1 if rng.u(tag + "d") < 0.6 else -1
    return max(1, min(10, r))
def h_importance(w: World, rng: _R):
    m = [x for x in re.findall(r'"([^"\n]{3,})"', w.user) if " " in x]
    return {"importance": rate(w, m[-1] if m else w.user[-300:], w.me, rng, "imp")}
def h_batch(w: World, rng: _R):
    items = [re.sub(r'^\s*(?:[-*•]|\d+[.)])\s*"?|"\s*$', "", l) for l in w.ulines if BULLET_RE.match(l)]
    s = subschema(w.schema, "ratings"); n = min(s.get("minItems") or len(items) or 1, s.get("maxItems", 99))
    return {"ratings": [rate(w, it, w.me, rng, "r%d" % i) for i, it in enumerate((items + [""] * n)[:n])]}
def _mins_ago(w: World, line: str) -> int:
    m = STAMP_RE.match(line)
    d, t = (parse_date(m.group(1), None, w.year), re.search(r"(\d{1,2}:\d{2})", m.group(1))) if m else (None, None)
    return (w.today - d).days * 1440 + w.minutes_now() - parse_clock(t.group(1)) if d and t else 10 ** 6
def h_react(w: World, rng: _R):
    me = w.me
    noticed = next((n for n in w.names_in(" ".join(l for l in w.ulines if '"' in l or "noticed" in l)) if n != me), None) \
        or next((n for n in w.people if n != me), "Someone")
    en = enum_of(w.schema, "choice") or ["continue", "talk", "wait", "react"]
    act = w.activity_at(me, w.minutes_now())
    cur = re.search(re.escape(me) + r" is ([^.\n]*?) at [A-Z][\w ]*:", w.user)
    act = re.sub(r"\s*\([^)]*\)", "", cur.group(1) if cur else act[0] if act else "").strip()
    act = act if act.startswith("busy") else "busy " + act if act else ""
    news_line = any(noticed in l and re.search(r"not told|news|tell", l) for l in w.ulines if not STAMP_RE.match(l))
    untold = w.has_news(me) and (news_line or not w.heard(me, noticed))
    recent = any(noticed in l and re.search(r"chat|conversation", l) and _mins_ago(w, l) < 60 for l in w.know(me)
                 if STAMP_RE.match(l))
    u = rng.u("react")
    if re.search(re.escape(noticed) + r" is sleeping", w.user): ch = "continue"
    elif untold:
        pt = 0.85 if w.event["host"] == me else 0.75
        ch = "talk" if u < pt else ("wait" if u < pt + 0.1 else "continue")
    else:
        pt = 0.15 if recent else _clamp((0.3 if WORK_RE.search(act) else 0.45) + w.traits(me))
        ch = "talk" if u < pt else "wait" if u < pt + 0.1 else "react" if u < pt + 0.15 else "continue"
    ch = ch if ch in en else en[0]
    reasons = {"talk": ("%s wants to tell %s about %s." % (first(me), first(noticed), ev_desc(w)) if untold and w.event
                        else "%s is close by and it would be friendly to say hello." % first(noticed)),
               "wait": "%s looks busy, so %s will wait a moment before saying hello." % (first(noticed), first(me)),
               "react": "Seeing %s reminds %s of something worth doing instead." % (first(noticed), first(me)),
               "continue": "%s is %s and there is no need to interrupt." % (first(me), act or "busy with the day")}
    return {"choice": ch, "reason": reasons.get(ch, "It seems best."),
            "new_activity": ("spending time with %s" % first(noticed)) if ch == "react" else ""}
def _memories(w: World, p=None):
    return [m.group(2) for m in map(STAMP_RE.match, w.know(p) if p else w.ulines) if m and "plan for" not in m.group(2)]
def h_interview(w: World, rng: _R):
    me, e = w.me, w.event; qs = re.findall(r'"([^"]*\?)"', w.user)
    q = qs[-1] if qs else next((l for l in reversed(w.ulines) if "?" in l), ""); mems = _memories(w, me)
    persona = " ".join(l for l in w.ulines[:8] if not BULLET_RE.match(l) and '"' not in l and "?" not in l)
    names = [n for n in w.names_in(q) if n != me]
    if names:
        n, f, facts = names[0], first(names[0]), []
        m = re.search(r"([^;.]*\b%s\b[^;.]*)" % re.escape(n), persona.split("Identity:")[-1])
        if m:
            rel = re.sub(r"^%s\s+" % re.escape(me), "I ", re.sub(r"\b(she|he|they)\s+knows?", "I know", m.group(1).strip()))
            rel = rel.replace(n, f)
            facts.append(rel[0].upper() + rel[1:] + ".")
        about = [x for x in mems if n in x]
        if e and any(w.ev_mentioned(x) for x in about):
            facts.append("%s is getting up %s." % (f, ev_desc(w)) if e["host"] == n else "%s and I talked about %s %s." % (
                f, "my" if e["host"] == me else (first(e["host"]) + "'s") if e["host"] else "the", e["what"]))
        elif any(re.search(r"chat|conversation", x) for x in about): facts.append("We had a chat not long ago.")
        seen = [x for x in about if re.search(re.escape(n) + r" is ([a-z ]+)", x)]
        act = re.search(re.escape(n) + r" is ([a-z ]+?)(?: \(|$|\.)", seen[-1]) if seen and len(facts) < 2 else None
        if act: facts.append("I saw %s %s recently." % (f, act.group(1).strip()))
        if facts: return {"answer": "Yes, I know %s. %s" % (f, " ".join(facts[:2]))}
        if rng.chance(0.04, "confab"):
            return {"answer": "I think I've seen %s around the village, but I couldn't tell you much about them." % f}
        return {"answer": rng.pick(["I don't think I know %s, I'm afraid - the name doesn't ring a bell." % n,
                                     "No, I can't say I know %s. I don't remember ever meeting them." % n], "idk")}
    if e and (w.ev_mentioned(q) or re.search(r"\bevent|happening|invit", q, re.I)):
        if not (any(w.ev_mentioned(x) for x in mems) or w.ev_mentioned(persona)):
            return {"answer": "I haven't heard anything about that, I'm afraid."}
        st = w.stance(me)
        tail = " I'm hosting it." if e["host"] == me else (" I'm planning to go." if st == "yes" else
                                                          " I can't make it, though." if st == "no" else "")
        return {"answer": ("%s is holding %s." % (first(e["host"]), ev_desc(w)) if e["host"] and e["host"] != me
                           else "There's %s." % ev_desc(w)) + tail}
    words = set(re.findall(r"[a-z]{4,}", q.lower())) - {"what", "where", "when", "your", "know", "does", "have", "about", "with"}
    best = max(mems, key=lambda x: len(words & set(re.findall(r"[a-z]{4,}", x.lower()))), default="")
    if not (best and words & set(re.findall(r"[a-z]{4,}", best.lower()))):
        return {"answer": "I'm not sure, to be honest - nothing comes to mind about that."}
    fp = re.sub(r"\b(her|his|their)\b", "my", best, count=1) if best.startswith(me) else best
    for a, b in ((me + " is", "I'm"), (me + " was", "I was"), (me + " has", "I've"), (me + "'s", "my"), (me, "I")):
        fp = fp.replace(a, b)
    return {"answer": "From what I remember, %s." % fp.rstrip(".")}

# ------------------------------------------------------------------ handlers: reflection, relationship, status
def h_relationship(w: World, rng: _R):
    me, e, parts = w.me, w.event, []
    hdr = " ".join(l for l in w.ulines if not BULLET_RE.match(l) and not re.match(r"\s*\w+:", l))
    mems = _memories(w, None)
    for o in ([n for n in w.names_in(hdr) if n != me] or [n for n in w.people if n != me][:1])[:2]:
        about, f = [x for x in mems if o in x], first(o)
        chats = sum(1 for x in about if re.search(r"conversation|chatted", x))
        prel = re.search(r"knows? %s ([^;.\n]*)" % re.escape(o), w.user)
        base = "%s knows %s %s" % (first(me), f, prel.group(1)) if prel else ("%s and %s have chatted %s" % (
            first(me), f, "a few times lately" if chats > 1 else "recently") if chats else
            "%s only knows %s by sight so far" % (first(me), f))
        feel = "feels friendly towards them"
        if e and any(w.ev_mentioned(x) for x in about):
            ls = " ".join(x for x in about if w.ev_mentioned(x))
            no = re.search(re.escape(o) + r'(?::\s*"[^"]*can\'?t make it| cannot go)', ls)
            yes = re.search(re.escape(o) + r':\s*"[^"]*(?:count me in|be there)', ls)
            feel = ("is pleased they're coming to the %s" if yes else "is a little disappointed they can't come to the %s"
                    if no else "hopes they'll come to the %s") if e["host"] == me else "likes that they share news about the %s"
            feel %= e["noun"]
        elif not about and not prel: feel = "has no strong feelings about them yet"
        parts.append("%s; %s %s." % (base, first(me), feel))
    return {"summary": " ".join(parts) or "%s doesn't know them well yet." % me}
def h_currently(w: World, rng: _R):
    me, e, extra = w.me, w.event, ""; old = re.search(r"Currently:\s*([^\n]*)", w.user) or re.search(
        r"(%s is [^.\n]*\.)" % re.escape(me), w.persona(me))
    first_sent = re.split(r"(?<=\.)\s", old.group(1).strip() if old else "%s is going about the day." % me)[0]
    if e and w.knows_event(me):
        sd = w.stance(me)
        if w.ev_state() == "over":
            extra = ("%s's %s has now taken place." % (first(e["host"]), e["what"])) if e["host"] else \
                "The %s has now taken place." % e["what"]
        elif e["host"] == me:
            extra = "%s is getting up %s and is asking everyone %s meets to come." % (me, ev_desc(w), first(me))
        else:
            extra = ("%s means to go to %s." if sd == "yes" else "%s has heard about %s but can't make it." if sd == "no"
                     else "%s has heard about %s and is passing the news on.") % (me, ev_desc(w))
    work = _lifestyle(w, me, w.places or ["home"])[2]
    routine = "%s is also keeping up with %s as usual." % (first(me), work[2]) if work else ""
    return {"currently": " ".join(x for x in (first_sent, extra, routine) if x)}
def _routine(me, items):
    acts = {}
    for k, v in items:
        m = re.search(re.escape(me) + r" is ([a-z ]+?)(?: \(|$)", v)
        if m and not re.search(ROUTINE_SKIP, m.group(1)): acts.setdefault(m.group(1), []).append(k)
    return acts
def h_questions(w: World, rng: _R):
    me, e, cnt, qs = w.me, w.event, {}, []; mems = _memories(w, None)
    for n in (n for x in mems for n in w.names_in(x) if n != me): _vote(cnt, n)
    if e and any(w.ev_mentioned(x) for x in mems):
        qs.append("Who is coming to %s's %s, and who has said no?" % (first(e["host"]) if e["host"] else "the", e["what"])
                  if e["host"] != me else "Why are some people saying they can't come to %s's %s?" % (first(me), e["what"]))
    qs += ["How does %s feel about %s, given how often they cross paths?" % (first(me), n)
           for n in sorted(cnt, key=lambda k: -cnt[k])[:2]]
    acts = _routine(me, enumerate(mems))
    if acts: qs.append("Why does %s spend so much of the day %s?" % (first(me), max(acts, key=lambda k: len(acts[k]))))
    return {"questions": (qs or ["What matters most to %s right now?" % first(me)])[: subschema(w.schema, "questions").get(
        "maxItems", 3)]}
def h_insights(w: World, rng: _R):
    me, e, stm, ins, out = w.me, w.event, {}, [], []
    for m in (re.match(r"^\s*(\d+)[.)]\s+(?:\[[^\]]*\]\s*)?(.*)$", l) for l in w.ulines):
        if m: stm[int(m.group(1))] = m.group(2)
    qs = re.findall(r'"([^"\n]{5,}\?)"', w.user.split("\n1.")[0]) or ["What does %s think about recently?" % me]
    mx_ev = subschema(w.schema, "insights", "[]", "evidence", "[]").get("maximum", max(stm) if stm else 1)
    for q in qs[:5]:
        subj = [n for n in w.names_in(q) if n != me]
        if e and w.ev_mentioned(q):
            ev = [k for k, v in stm.items() if w.ev_mentioned(v)]
            yes, no = sum(1 for k in ev if ACCEPT_RE.search(stm[k])), sum(1 for k in ev if DECLINE_RE.search(stm[k]))
            txt = ("%s is set on getting people to the %s, and keeps asking around" % (me, e["what"]) if e["host"] == me
                   else "%s keeps hearing about %s's %s" % (me, first(e["host"]) if e["host"] else "the", e["what"]))
            txt += "; %s." % ("replies are mixed, with some yeses and some refusals" if yes and no else "people sound keen"
                              if yes else "several people say they can't come" if no else "nobody has answered yet")
            ins.append((txt, e["what"], ev, 6 if e["host"] == me else 4))
        elif subj:
            ev = [k for k, v in stm.items() if subj[0] in v]
            chats = sum(1 for k in ev if re.search(r"chat|conversation", stm[k]))
            places = [w.place_in(stm[k]) for k in ev]
            pl = max(set(p for p in places if p), key=places.count, default="")
            ins.append(("%s sees %s often%s and they %s." % (me, subj[0], (" " + place_phrase(pl)) if pl else "",
                        "talk regularly" if chats > 1 else "have spoken now and then" if chats else "mostly just cross paths"),
                        subj[0], ev, 3 + (chats > 1)))
        else:
            acts = _routine(me, stm.items())
            if acts:
                a = max(acts, key=lambda k: len(acts[k]))
                ins.append(("%s spends much of the day %s; it is the steady core of the routine." % (me, a), "daily routine",
                            acts[a], 2))
    for txt, about, ev, imp in ins:
        ev = [k for k in ev if 1 <= k <= mx_ev][-10:]
        if ev and txt not in [o["insight"] for o in out]:
            out.append({"insight": txt, "about": about[:60], "evidence": ev, "importance": imp})
    if not out and stm:
        out.append({"insight": "%s's recent days have been ordinary and busy." % me, "about": "recent days",
                    "evidence": [min(max(stm), mx_ev)], "importance": 2})
    return {"insights": out[:15]}

# ------------------------------------------------------------------ daily plan
EMOJI = [("sleep", "😴"), ("wak", "⏰"), ("breakfast", "🍳"), ("lunch", "🥪"), ("dinner", "🍲"), ("cricket", "🏏"),
         ("match", "🏏"), ("party", "🎉"), ("telling", "📣"), ("asking", "📣"), ("bak", "🍞"), ("teach", "📚"),
         ("school", "📚"), ("surgery", "🩺"), ("nurs", "🩺"), ("post", "📮"), ("workshop", "🔨"), ("inn", "🍺"),
         ("taproom", "🍺"), ("green", "🌳"), ("walk", "🚶"), ("relax", "🛋️"), ("read", "📖")]
def emoji_for(act: str, place: str = "") -> str:
    low = (act + " " + place).lower()
    return next((e for k, e in EMOJI if k in act.lower()), None) or next((e for k, e in EMOJI if k in low), "🙂")
def _lifestyle(w: World, me: str, pool: list):
    """(wake, bed, work=(start, end, activity, place) or None, home) from the persona's lifestyle line."""
    pers = [l for l in w.know(me) if not BULLET_RE.match(l)]
    life = next((l for l in pers if re.search(r"\bwake|\bbed\b|get up", l, re.I)), " ".join(pers))
    m = re.search(r"(?:wakes?|gets? up|rises?)\D{0,12}(%s)" % TIME_TOK, life, re.I)
    wake = parse_clock(m.group(1)) if m else None; wake = 420 if wake is None else wake
    m = re.search(r"(?:bed|sleep)\D{0,8}(%s)" % TIME_TOK, life, re.I)
    bed = parse_clock(m.group(1), True) if m else None
    bed = min(1320 if bed is None else (bed + 1440 if bed <= wake else bed), 1410); work = None
    m = re.search(r"\b([a-z]+s)\s+((?:[a-z']+\s+){0,4}?(?:the\s+)?[A-Z][\w' ]*?)\s+from\s+(%s)\s+(?:to|until|till|-)\s+(%s)"
                  % (TIME_TOK, TIME_TOK), life)
    a, b = (parse_clock(m.group(3)), parse_clock(m.group(4), True)) if m else (None, None)
    if a is not None and b is not None:
        pl = w.place_in(m.group(2) + " " + m.group(2).split()[-1], pool) or (pool[1] if len(pool) > 1 else pool[0])
        work = (max(a, wake + 45), min(b if b > a else b + 1440, bed - 30), gerund(m.group(1)) + " " + m.group(2).strip(), pl)
    home = next((p for p in pool if me.split()[-1].lower() in p.lower()), None) or \
        next((p for p in pool if re.search(r"house|cottage|flat|home|rooms", p, re.I)), pool[0] if pool else "")
    return wake, bed, work, home
def _overlay(base: list, blk: tuple) -> list:
    out = [blk]
    for s, e, act, pl in base:
        out += [(s, e, act, pl)] if e <= blk[0] or s >= blk[1] else \
            ([(s, blk[0], act, pl)] if s < blk[0] else []) + ([(blk[1], e, act, pl)] if e > blk[1] else [])
    return sorted(out)
def h_daily(w: World, rng: _R):
    me, e, st = w.me, w.event, w.ev_state()
    pool = enum_of(w.schema, "blocks", "[]", "address") or w.places or ["home"]
    wake, bed, work, home = _lifestyle(w, me, pool)
    off = bool(work) and w.today.weekday() >= 5 and rng.chance(0.35, "dayoff")
    public = next((p for p in pool if re.search(r"green|park|square", p, re.I)), pool[-1])
    base = [(wake, wake + 30, "waking up and getting ready", home), (wake + 30, wake + 90, "having breakfast", home)]
    if work and not off:
        ws, we, act, wp = work; ws = max(ws, wake + 60)
        if ws < wake + 90: base[1] = (wake + 30, ws, "having breakfast", home)
        base += [(wake + 90, ws, "relaxing at home", home), (ws, we, act, wp), (we, bed, "relaxing at home", home)]
    else:
        wp, ws, we = home, 0, 0
        base += [(wake + 90, 780, "relaxing at home", home), (780, 1020, "relaxing on a day off" if off else "taking a walk",
                                                              home if off else public), (1020, bed, "relaxing at home", home)]
    base = [x for x in base if x[1] > x[0]]
    for m0, name in ((720, "having lunch"), (1110, "having dinner")):
        if m0 + 60 <= bed and m0 >= wake + 90: base = _overlay(base, (m0, m0 + 60, name, wp if ws <= m0 < we else home))
        elif name == "having dinner": base = _overlay(base, (bed - 60, bed, name, home))
    base = sorted([b for b in base if b[1] > b[0]])
    if e and e["date"] == w.today and w.knows_event(me) and st != "over" and e["start"] is not None:
        en = e["end"] or e["start"] + 120
        epl = e["place"] if e["place"] in pool else (w.place_in(e["place"].replace(":", " "), pool) or public)
        if e["host"] == me: go, act = rng.chance(0.95, "host"), "hosting the " + e["what"]
        else:
            sd = w.stance(me)
            p = 0.85 if sd == "yes" else 0.15 if sd == "no" else _clamp(0.4 + w.traits(me) - (
                0.15 if work and not off and work[0] < en and work[1] > e["start"] else 0))
            go, act = rng.chance(p, "go"), ("going to %s's %s" % (first(e["host"]), e["what"]) if e["host"]
                                            else "going to the " + e["what"])
        if go: base = _overlay(base, (max(e["start"], wake + 60), min(en, bed), act, epl))
    if e and w.has_news(me) and st == "future" and rng.chance(0.6 if e["host"] == me else 0.5, "spread"):
        spots = []
        for l in w.know(me):
            a, r = ADDR_RE.search(l), RANGE_RE.search(l.lower())
            if BULLET_RE.match(l) and not STAMP_RE.match(l) and a and r and a.group(1).strip() in pool and re.search(
                    r"\bperson|people", l):
                x, y = parse_clock(r.group(1)), parse_clock(r.group(2), True)
                if x is not None and y is not None: spots.append((x, y, a.group(1).strip()))
        free = [(s, en2) for s, en2, act, _ in base if re.search(r"relax|walk", act)]
        for x, y, pl in spots or ([(0, 1440, e["place"])] if e["place"] in pool else []):
            slot = next(((max(s, x), min(en2, y, max(s, x) + 60)) for s, en2 in free if min(en2, y) - max(s, x) >= 30), None)
            if slot:
                base = _overlay(base, (slot[0], slot[1], "telling people about the " + e["what"], pl))
                break
    merged = []
    for b in (b for b in base if b[1] > b[0]):
        if merged and merged[-1][2:] == b[2:] and merged[-1][1] == b[0]: merged[-1] = (merged[-1][0],) + b[1:]
        else: merged.append(b)
    while len(merged) > 15:
        i = min(range(1, len(merged)), key=lambda k: merged[k][1] - merged[k][0])
        merged[i - 1] = (merged[i - 1][0], merged[i][1]) + merged[i - 1][2:]
        del merged[i]
    blocks = [{"start": hhmm(a), "duration_minutes": max(5, min(960, b - a)), "activity": act[:120],
               "emoji": emoji_for(act, pl), "address": pl} for a, b, act, pl in merged]
    blocks.append({"start": hhmm(bed), "duration_minutes": max(5, min(960, wake + 1440 - bed)), "activity": "sleeping",
                   "emoji": "😴", "address": home})
    outline = ["wake up at %s" % speak_time(wake).replace(" ", "")] + [
        "%s at %s" % (act, speak_time(a).replace(" ", "")) for a, b, act, _ in merged[1:]
        if b - a >= 60 or re.search(r"hosting|going to|telling", act)] + ["go to bed at %s" % speak_time(bed).replace(" ", "")]
    if len(outline) > 8:
        keep = [o for o in outline if re.search(r"hosting|going to|telling", o)]
        rest = [o for o in outline[1:-1] if o not in keep][: max(0, 6 - len(keep))]
        outline = [outline[0]] + sorted(rest + keep, key=outline.index) + [outline[-1]]
    while len(outline) < 4:
        outline.insert(-1, "have dinner at 6:30pm" if "dinner" not in " ".join(outline) else "relax at home")
    return {"wake_up_hour": wake // 60, "outline": outline, "blocks": blocks}

# ------------------------------------------------------------------ decompose
def _steps(spec): return [(a.strip(), o.strip()) for a, _, o in (x.partition("@") for x in spec.split(";"))]
STEPS = {k: _steps(v) for k, v in {
    "sleep": "sleeping soundly@bed;turning over in bed@bed;sleeping@bed",
    "wake": "getting out of bed@bed;washing face;brushing teeth;getting dressed;making the bed@bed;checking the weather",
    "meal": "setting out the food@table;making a pot of tea;eating@table;chatting over the meal;finishing the meal@table;"
            "clearing the plates@table;washing up@sink;tidying up",
    "relax": "reading a book@armchair;having a cup of tea;listening to the radio;dozing for a bit@bed;writing a letter@desk;"
             "tidying up;knitting@armchair;looking out of the window;doing a crossword@armchair;stretching legs",
    "bake": "weighing flour@counter;mixing dough@counter;kneading dough@counter;shaping loaves@counter;loading the oven@oven;"
            "baking bread@oven;taking loaves out@oven;cooling the bread@counter;serving customers@counter;"
            "wiping the counter@counter;cleaning trays;checking the oven@oven",
    "post": "sorting letters@sorting rack;weighing parcels@counter;selling stamps@counter;serving customers@counter;"
            "filling the sorting rack@sorting rack;checking forms@counter;bundling mail@sorting rack;chatting with customers@counter",
    "nurse": "checking the appointment list@desk;calling in a patient@chairs;taking blood pressure;updating notes@desk;"
             "restocking supplies;tidying the waiting room@chairs;answering the phone@desk;reassuring a patient@chairs",
    "wood": "measuring timber@workbench;sawing planks@workbench;turning a spindle@lathe;planing boards@workbench;"
            "sanding edges@workbench;gluing joints@workbench;sharpening chisels@workbench;sweeping sawdust",
    "inn": "pulling pints@bar;wiping the bar@bar;serving customers@bar;changing a barrel;laying the fire@fireplace;"
           "collecting glasses@bar;chatting with regulars@bar;checking the cellar",
    "green": "rolling the pitch@pitch;mowing the outfield;marking the crease@pitch;checking the scoreboard@scoreboard;"
             "mending the pavilion bench@pavilion bench;raking the boundary;walking around the green;"
             "sitting on the pavilion bench@pavilion bench",
    "school": "preparing the lesson@desk;teaching a class@desk;marking essays@desk;helping a pupil@desk;tidying the classroom;"
              "writing on the board",
    "event": "setting out the stumps@pitch;greeting people;watching the play@pavilion bench;keeping score@scoreboard;cheering;"
             "chatting with neighbours;taking a turn@pitch;having a drink",
    "social": "greeting neighbours;chatting;passing on the news;listening to gossip;waving to a friend;catching up"}.items()}
STATE = {"bed": "occupied", "oven": "baking", "chairs": "occupied", "bar": "busy", "fireplace": "lit",
         "scoreboard": "being updated", "pavilion bench": "occupied", "lathe": "spinning", "sorting rack": "being filled",
         "armchair": "occupied"}
JOBS = (("bake", r"\bbak"), ("post", r"post office|counter room|parcel"), ("nurse", r"surgery|nurse|waiting room"),
        ("wood", r"workshop|carpent"), ("inn", r"\binn\b|taproom|\bbar\b"), ("school", r"school|teach|classroom"),
        ("green", r"\bgreen\b"))
def h_decompose(w: World, rng: _R):
    root = w.schema; sent = next((l for l in w.ulines if re.search(r"\(\d+ minutes\)", l)), "") or next(
        (l for l in w.ulines if not BULLET_RE.match(l) and RANGE_RE.search(l.lower())), "")
    m = re.search(r"\bis (.*?), at ([^\n]*?)\.?$", sent); act, place = (m.group(1), m.group(2)) if m else (sent, "")
    fm = re.search(r"fill (?:the )?(\d+) minutes", w.user) or re.search(r"\((\d+) minutes\)", sent)
    r = RANGE_RE.search(sent.lower())
    span = (parse_clock(r.group(2)) or 0) - (parse_clock(r.group(1)) or 0) if r and not r.group(1).isdigit() else 0
    total = int(fm.group(1)) if fm else min(180, span) if span >= 10 else 60
    arr, dur = subschema(root, "steps"), subschema(root, "steps", "[]", "duration_minutes")
    lo, hi, dmin, dmax = arr.get("minItems", 2), arr.get("maxItems", 12), dur.get("minimum", 5), dur.get("maximum", 15)
    n = max(lo, min(hi, round(total / 10)))
    while n < hi and total > n * dmax: n += 1
    while n > lo and total < n * dmin: n -= 1
    objs = [o for o in enum_of(root, "steps", "[]", "object") if o]
    low = (act + " " + place).lower() + (" " + w.persona(w.me)[:400].lower() if re.match(r"busy|working", act) or
                                         "work" in act else "")
    cat = ("sleep" if "sleep" in act else "wake" if "wak" in act else "meal" if re.search(r"breakfast|lunch|dinner|supper", act)
           else "event" if w.event and w.ev_mentioned(act) or "hosting" in act else "social" if re.search(
               r"seeing people|asking|telling|chat", act) else "relax" if re.search(r"relax|day off|rest", act) else
           next((c for c, rx in JOBS if re.search(rx, low)), "relax"))
    pool = STEPS[cat]; off = int(rng.u("off") * 3) if len(pool) > n else 0
    seq = [pool[(off + i) % len(pool)] for i in range(n)] if cat not in ("meal", "wake") else \
        [pool[i] if i < len(pool) else pool[2 + (i % max(1, len(pool) - 3))] for i in range(n)]
    durs = [total // n + (1 if i < total - n * (total // n) else 0) for i in range(n)]; steps = []
    for (a, o), d in zip(seq, durs):
        obj = o if o in objs else next((x for x in objs if x in a), "")
        obj = "bed" if not obj and cat in ("sleep", "relax") and "bed" in objs and "doz" in a else obj
        steps.append({"activity": a, "duration_minutes": max(dmin, min(dmax, d)), "object": obj,
                      "object_state": STATE.get(obj, "in use") if obj else ""})
    return {"steps": steps}

# ------------------------------------------------------------------ generic, kinds, templates
def h_generic(w: World, rng: _R):
    s = w.schema or {"type": "object", "properties": {}}; obj = default_for(s, s)
    for k, ps in ((s.get("properties") or {}).items() if isinstance(obj, dict) else []):
        ps = resolve(ps, s)
        if ps.get("type") == "string" and "enum" not in ps and not ps.get("pattern"):
            obj[k] = "%s thinks it over: %s." % (w.me, (w.activity_at(w.me, w.minutes_now()) or ("going about the day",))[0])
    return obj
HANDLERS = {"conversation_memo": h_memo, "conversation_summary": h_summary, "group_summary": h_summary,
            "group_turn": h_group_turn, "importance": h_importance, "importance_batch": h_batch, "interview": h_interview,
            "probe": lambda w, rng: {"ok": True}, "react": h_react, "reflection_insights": h_insights,
            "reflection_questions": h_questions, "relationship": h_relationship, "revise_currently": h_currently,
            "daily_plan": h_daily, "decompose": h_decompose}
BY_PROP = [("utterance", "group_turn"), ("ratings", "importance_batch"), ("steps", "decompose"), ("blocks", "daily_plan"),
           ("insights", "reflection_insights"), ("questions", "reflection_questions"), ("currently", "revise_currently"),
           ("choice", "react"), ("answer", "interview"), ("talk memos", "group_summary"), ("talk", "conversation_summary"),
           ("summary plan_date", "conversation_memo"), ("summary plan_activity", "conversation_memo"),
           ("summary", "relationship"), ("importance", "importance"), ("ok", "probe")]
def detect(w: World) -> str:
    props = set((w.schema or {}).get("properties") or {})
    k = next((k for need, k in BY_PROP if set(need.split()) <= props), None)
    return k or (w.sname if w.sname in HANDLERS else "generic" if w.schema else "turn_text")
def schema_from_template(text: str):
    m = re.search(r"\{\s*\"[a-z_]+\".*\}", text.split("\n\n")[-1], re.S) or re.search(r"\{\s*\"[a-z_]+\".*?\}", text, re.S)
    props = {}
    for k, v in (re.findall(r"\"([a-z_]+)\":\s*([^,}]*)", m.group(0)) if m else []):
        t = "integer" if re.search(r"int|<1-10>|\d", v) else "boolean" if "true" in v else "array" if v.strip()[:1] == "[" \
            else "string"
        props[k] = {"type": t, **({"items": {"type": "string"}} if t == "array" else {})}
    return {"type": "object", "properties": props, "required": list(props)} if props else None

# ------------------------------------------------------------------ malformations
def _enum_paths(v, s, root, path, out, depth=0):
    s = _unany(s, root)
    if depth > 8: return
    if isinstance(v, dict):
        for k, x in v.items(): _enum_paths(x, (s.get("properties") or {}).get(k, {}), root, path + [k], out, depth + 1)
    elif isinstance(v, list):
        for i, x in enumerate(v): _enum_paths(x, s.get("items", {}), root, path + [i], out, depth + 1)
    elif isinstance(v, str) and v and "enum" in s: out.append(path)
def malform(text: str, kind: str, obj, w: World, rng: _R) -> str:
    """The declared malformations, at the declared rates; otherwise text unchanged."""
    u, cut = rng.u("malform"), lambda: text[: max(1, int(len(text) * (0.3 + 0.6 * rng.u("cut"))))]
    if u >= 0.04 + (0.03 if w.max_tokens >= 800 else 0): return text
    if u >= 0.04: return cut()
    v = rng.u("mkind")
    if kind == "turn_text":
        words, tag = text.rsplit("\n", 1) if "\n" in text else (text, "")
        return "%s: %s\n%s" % (w.me, words, tag) if v < 0.35 else '"%s"\n%s' % (words, tag) if v < 0.55 else \
            words if v < 0.80 else "I'm sorry, but I can't continue this conversation."
    if kind == "group_turn" and v < 0.25 and isinstance(obj, dict):
        return json.dumps(dict(obj, utterance="%s: %s" % (w.me, obj.get("utterance", ""))), ensure_ascii=False)
    v = rng.u("mkind2")
    if v < 0.30: return cut()
    if 0.55 <= v < 0.70: return "I'm sorry, but I can't help with that request."
    if 0.70 <= v < 0.85 and isinstance(obj, dict) and obj:
        req = (w.schema or {}).get("required") or list(obj)
        return json.dumps({k: x for k, x in obj.items() if k != req[0]}, ensure_ascii=False)
    paths = []
    if v >= 0.85 and isinstance(obj, (dict, list)): _enum_paths(obj, w.schema or {}, w.schema or {}, [], paths)
    if paths:
        p, o2 = paths[int(rng.u("ep") * len(paths))], json.loads(json.dumps(obj)); node = o2
        for k in p[:-1]: node = node[k]
        val = node[p[-1]]
        node[p[-1]] = ("the " + val.split(":")[1]) if val.count(":") == 2 else (
            val.split()[0] if " " in val else val.capitalize() + "!")
        return json.dumps(o2, ensure_ascii=False)
    if rng.u("fence") < 0.5: return "```json\n%s\n```" % text
    return "Sure! Here is the answer:\n%s\nLet me know if you need anything else." % text

# ------------------------------------------------------------------ entry point
def respond(body: dict[str, Any], seed: int) -> str:
    """The completion text for this request body (deterministic for body and seed)."""
    try: return _respond(body, seed)
    except Exception:  # never raise: a plain but valid answer
        try:
            s = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
            return json.dumps(fit(default_for(s, s), s, s), ensure_ascii=False) if isinstance(s, dict) else \
                "Nice to see you. I'd better get on.\n[end]"
        except Exception: return "{}"
def _respond(body: dict, seed: int) -> str:
    body = body if isinstance(body, dict) else {}
    try: mkey = json.dumps(body.get("messages"), sort_keys=True, ensure_ascii=False, default=str)
    except Exception: mkey = repr(body.get("messages"))
    w = World(body)
    rng = _R(hashlib.blake2b((mkey + "|" + w.sname + "|" + str(seed)).encode("utf-8", "replace"), digest_size=16).digest())
    if w.schema is None and not re.search(r"\[end\]|\[continue\]", w.text): w.schema = schema_from_template(w.user)
    kind = detect(w)
    if kind == "turn_text": return malform(h_turn_text(w, rng), kind, None, w, rng)
    obj = HANDLERS.get(kind, h_generic)(w, rng); obj = fit(obj, w.schema, w.schema) if w.schema else obj
    return malform(json.dumps(obj, ensure_ascii=False), kind, obj, w, rng)
