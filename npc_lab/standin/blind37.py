"""blind37: blind stand-in for a Llama-3.1-8B-Instruct-class model.

DECLARED MODEL
  Llama-3.1-8B-Instruct class (8B dense), Q4_K_M GGUF, served by llama.cpp `llama-server` on a
  gamer's GPU, 16,384-token context, chat template with a system role, OpenAI-compatible
  /v1/chat/completions route.  A `response_format` of type json_schema is turned by llama.cpp
  into a GBNF grammar.
  What the grammar KEEPS: the object shape, required keys, key order, value types, enums/consts,
  integer minimum/maximum, array minItems/maxItems, string maxLength/minLength, simple patterns,
  anyOf/$ref choices.  So an answer that finishes is always parseable and fits keys/types/enums.
  What it CANNOT enforce: (a) finishing - the reply is cut when max_tokens is reached (cut JSON);
  (b) whitespace - the grammar allows free whitespace, so the model can fall into a run of
  newlines inside the object until max_tokens (cut JSON); (c) meaning - a wrong date from the
  enum, a wrong place, a name in the wrong field, an insight citing the wrong statement, all
  schema-valid.  Plain-text requests (no response_format) get no grammar at all.
  The prompt is under 16,384 tokens in every request seen, so the model reads all of it
  (no context truncation), but it attends unevenly (rules below).

DETERMINISM: RNG = sha256(json(messages) + seed).  Never raises: on an internal error it returns
  what a confused 8B returns: for JSON requests a minimal schema-valid object with generic text,
  for text requests "Sorry, what was that?\n[continue]".

REQUEST KINDS are told apart by the schema's property names (not its name) and, for plain text,
by the request asking for words plus an [end]/[continue] tag.  Dates and clock times are read in
any common English style (17:00, 5 pm, 5:00 PM, 5.00 p.m., 5 in the afternoon, noon, midnight,
the 7th of October, Oct 7, 7 Oct, 2026-10-07, weekday names, today/tomorrow/tonight); headings
are not matched: a bullet line belongs to the person named first in the nearest non-bullet line
above it; conversation lines are `Name: "..."` lines that are not bullets.

DECLARED RULES AND RATES (chosen before running on any captured body)

A. Malformed output (what the grammar cannot stop)
  A1 JSON, any kind: output cut at a random point (max_tokens-like stop) p=0.015; newline runaway
     (JSON prefix then a long run of "\\n", cut) p=0.010.  Long kinds (daily plan, decomposition,
     reflection insights, whole-conversation summaries, replan) p=0.03 cut instead of 0.015.
     In addition, any JSON whose length exceeds ~3.6 chars x max_tokens is cut there (real cut).
  A2 A retry request (an earlier assistant answer plus a complaint) halves A1/A3 rates.
  A3 Plain-text turn: speaker's name in front p=0.04; the words wrapped in quotes p=0.02; the
     [end]/[continue] tag missing p=0.03; the model also writes the other person's reply p=0.015;
     a meta refusal ("I can't continue this roleplay") p=0.005.
  A4 Inside valid JSON: a string field with a refusal-like text p=0.003.

B. Conversation (turn-by-turn text turns, group turns, and whole conversations)
  B1 News/event on the speaker's mind is taken from a statement that the speaker has news / an
     event they hold (any wording), or failing that from the status ("Currently") when it speaks
     of an event the speaker holds or means to go to.  Explicitly flagged news: brought up at a
     turn where it has not yet been said with p=0.80 (first chance) and p=0.60 at later turns;
     news read only from the status: p=0.40.  If the relationship to the listener reads cold
     (words like not spoken / never forgiven / forbidden / quarrel / will not speak): p x 0.5.
  B2 How news is told: what, place, day, time.  Day slip (today<->tomorrow, or weekday dropped)
     p=0.08; time left out p=0.07; copies the prompt's wording of the event verbatim p=0.30
     (otherwise a shortened paraphrase in first/third person).  Host asks the listener to come.
  B3 Answering an invitation (a line from another asking to come/join/'glad if you came'):
     base accept p: warm relationship (friend, fond, family words, values) 0.85; neutral 0.70;
     cold 0.30.  If the speaker's own plan (bullets owned by the speaker) holds a real commitment
     (calling on / meeting / hosting / event / appointment / 'with <Name>') overlapping the event
     time on the event day: accept p x 0.35, otherwise declines or proposes another time.
     Ordinary activity overlap: no effect.  Lost track of whose plan (p=0.07): checks the other's
     plan instead.  Mistakes plain news for an invitation and 'declines' it: p=0.05.
  B4 Hearing someone else's event as news (not from its host): says it means to go with p=0.45
     warm / 0.35 neutral / 0.15 cold to the host if known; otherwise thanks and notes it.
  B5 Ending: tags [end] if the other said goodbye (p=0.9); otherwise p(end) = 0.10 + 0.12 x
     (lines so far), capped 0.85, and never before its news is out unless B1 skipped it.
  B6 Small talk otherwise: a greeting, a question, or a remark drawn from the speaker's status
     or identity (may copy a clause from the prompt verbatim p=0.25).
  B7 Whole conversation in one request (unwatched): talk p=0.92 if someone has flagged news, 0.55
     otherwise, x0.4 if the pair reads cold; 2-6 (pair) or 2-10 (group) lines built with B1-B6.
     Section mix-up: a speaker without news voices the other's news as its own p=0.05.

C. Memos (conversation memo, and the memos inside whole-conversation answers)
  C1 Summary: one sentence naming the other, any event told (what/when/where) and any agreement.
  C2 Plan change recorded when the memo's owner said yes / that it will come or go
     (acceptance words in its own lines after an event or invitation) p=0.88; recorded wrongly
     when it only heard news or declined p=0.07; the host records its own event p=0.20.
  C3 Plan fields: date mapped from the event's day to the offered enum; slip to the adjacent
     day p=0.10; time from the event (ambiguous bare hour read as morning p=0.05); minutes from
     the event's range else 120; place matched by words to the enum, '' if no match, the
     speaker's current place instead p=0.08.  No change: '' fields and 0 minutes.
  C4 Importance: small talk 2-3, news heard 5-6, accepted/arranged 6-7, jitter +-1.

D. Other kinds
  D1 Interview "do you know X": knows if X (full or first name) appears in the persona or memory
     text owned by the speaker; answers with the clause that names X (copied p=0.4).  Claims to
     know someone it has no trace of p=0.06 ('I think I've seen them around').  "Heard about <E>":
     yes if a memory line shares >=1 rare word with E; says what/when/where from that line; day
     slip p=0.08; says it means to go if its memories show it said so, or p=0.3 otherwise.
  D2 Importance ratings: keyword heuristic (routine/'is in use' 1-2, chat 2-3, conversation 3-4,
     plans 3-4, event/news/invitation 6-8, conflict/death/illness 7-9) +-1 jitter; batch keeps the
     count (grammar-enforced); a shifted/duplicated rating p=0.04 per batch.
  D3 Daily plan: wake/work/bed hours from the lifestyle text; meals once each; a same-day
     commitment shown in status or memories is placed at its time p=0.80 (missed p=0.20; wrong
     hour p=0.05); addresses matched by words to the enum (home bedroom/kitchen, work place);
     blocks contiguous; last block sleeping at home.
  D4 Decomposition: 8-12 steps of 5-15 minutes summing to the window asked for (120 or the
     block length), objects from the enum spread over the steps.
  D5 React: 'talk' when the speaker has undelivered news and the other is close by p=0.70;
     'talk' otherwise p=0.15 (cold: 0.03); 'wait' p=0.08; 'react' p=0.04; else 'continue'.
  D6 Relationship / revise status / reflections / replan / address choice: short text built
     from the owner's own lines; copying a clause from the prompt verbatim p=0.35; reflection
     insights cite statement numbers from the offered range, with one off-by-one citation
     p=0.10; address choice stays 'here' if the activity's words fit, else the place named in the
     status/memories for that activity, else the home sector.
"""
import hashlib, json, random, re, datetime

# ----------------------------------------------------------------------------- helpers
MONTHS = {m: i + 1 for i, m in enumerate(
    ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september',
     'october', 'november', 'december'])}
for _k, _v in list(MONTHS.items()):
    MONTHS[_k[:3]] = _v
MONTHS['sept'] = 9
WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
MON_RE = r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
D_MONTH = re.compile(r"\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + MON_RE + r"\b\.?", re.I)
MONTH_D = re.compile(r"\b" + MON_RE + r"\.?\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\b", re.I)
ISO = re.compile(r"\b(20\d\d)-(\d\d)-(\d\d)\b")
WD_RE = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I)
TQ = re.compile(
    r"\b(noon|midday|midnight)\b"
    r"|\b(\d{1,2})(?:[:.](\d{2}))?\s*(a\.?m\b\.?|p\.?m\b\.?)"
    r"|\b(\d{1,2})(?:[:.](\d{2}))?\s+(?:o'clock\s+)?(in the morning|in the afternoon|in the evening|at night|tonight)\b"
    r"|\b(\d{1,2})[:.](\d{2})\b", re.I)
RANGE_PRE = re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?\s*(?:to|-|–|until|till)\s*$", re.I)
RANGE_POST = re.compile(r"^\s*(?:to|-|–|until|till)\s*", re.I)
VAGUE = [(r"\b(sundown|sunset|dusk)\b", 19 * 60), (r"\b(dawn|sunrise)\b", 6 * 60),
         (r"\bafter work\b", 17 * 60 + 30), (r"\blunch ?time\b", 12 * 60), (r"\bthis evening\b", 19 * 60),
         (r"\bthis afternoon\b", 14 * 60), (r"\bthis morning\b", 9 * 60)]
NAME_LINE = re.compile(r"^\s*Name:\s*(.+?)\s*$", re.M)
DIALOG = re.compile(r'^([A-Z][\w\'.-]*(?: [A-Z][\w\'.-]*){0,3}):\s*"(.*)"\s*$')
PLACE3 = re.compile(r"[A-Z][\w' .-]{0,40}:[^\s:\"][^:\n()\"]{0,40}:[^\s:\"][^:\n(),;\"]{0,40}")


def _tok_minutes(m):
    g = m.groups()
    if g[0]:
        w = g[0].lower()
        return (0 if w == 'midnight' else 720), True
    if g[1]:
        h, mi, ap = int(g[1]), int(g[2] or 0), g[3].lower()
        if h > 12:
            return h * 60 + mi, True
        h = h % 12 + (12 if ap.startswith('p') else 0)
        return h * 60 + mi, True
    if g[4]:
        h, mi, per = int(g[4]), int(g[5] or 0), g[6].lower()
        if per == 'in the morning':
            h = h % 12
        elif per in ('in the afternoon', 'in the evening', 'tonight'):
            h = h + 12 if h < 12 else h
        else:  # at night
            h = h + 12 if 7 <= h < 12 else (0 if h == 12 else h)
        return h * 60 + mi, True
    h, mi = int(g[7]), int(g[8])
    if h > 23 or mi > 59:
        return None, False
    return h * 60 + mi, True


def find_times(text):
    """list of (start_min, end_min or None, pos) in text order."""
    out = []
    i = 0
    while True:
        m = TQ.search(text, i)
        if not m:
            break
        v, ok = _tok_minutes(m)
        i = m.end()
        if v is None:
            continue
        start, end, pos = v, None, m.start()
        pre = RANGE_PRE.search(text[max(0, m.start() - 20):m.start()])
        if pre and not (out and out[-1][2] >= m.start() - 20 and out[-1][1] is None and out[-1][0] is not None and False):
            h1, m1 = int(pre.group(1)), int(pre.group(2) or 0)
            if h1 <= 23 and m1 <= 59:
                s = h1 * 60 + m1
                if pre.group(3):
                    s = (h1 % 12 + (12 if pre.group(3).lower().startswith('p') else 0)) * 60 + m1
                elif h1 < 12 and v >= 12 * 60 and s + 720 <= v:
                    s += 720
                start, end, pos = s, v, m.start() - len(pre.group(0))
                # drop an earlier token that was the start (e.g. '17:00-19:00')
                if out and out[-1][1] is None and out[-1][0] == s and out[-1][2] >= pos - 2:
                    out.pop()
        else:
            post = RANGE_POST.match(text[i:])
            if post:
                m2 = TQ.match(text, i + post.end())
                if m2:
                    v2, ok2 = _tok_minutes(m2)
                    if v2 is not None:
                        end = v2
                        i = m2.end()
        out.append((start, end, pos))
    if not out:
        for pat, v in VAGUE:
            mm = re.search(pat, text, re.I)
            if mm:
                out.append((v, None, mm.start()))
                break
    return out


def hhmm(mins):
    mins = int(mins) % 1440
    return "%02d:%02d" % (mins // 60, mins % 60)


def speak_time(mins):
    mins = int(mins) % 1440
    h, mi = mins // 60, mins % 60
    if mins == 720:
        return "noon"
    suf = 'am' if h < 12 else 'pm'
    h12 = h % 12 or 12
    return ("%d%s" % (h12, suf)) if mi == 0 else ("%d:%02d%s" % (h12, mi, suf))


def find_date(text, now, year):
    """first date in text, resolved against now (a date or None)."""
    cands = []
    for m in ISO.finditer(text):
        try:
            cands.append((m.start(), datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))))
        except ValueError:
            pass
    for m in D_MONTH.finditer(text):
        try:
            cands.append((m.start(), datetime.date(year, MONTHS[m.group(2).lower()], int(m.group(1)))))
        except (ValueError, KeyError):
            pass
    for m in MONTH_D.finditer(text):
        try:
            cands.append((m.start(), datetime.date(year, MONTHS[m.group(1).lower()], int(m.group(2)))))
        except (ValueError, KeyError):
            pass
    if now is not None:
        for m in re.finditer(r"\b(day after tomorrow|tomorrow|today|tonight|this (?:morning|afternoon|evening))\b", text, re.I):
            w = m.group(1).lower()
            d = now + datetime.timedelta(days=2 if w.startswith('day after') else (1 if w == 'tomorrow' else 0))
            cands.append((m.start(), d))
        for m in WD_RE.finditer(text):
            wd = WEEKDAYS.index(m.group(1).lower())
            # a weekday directly before an explicit date is part of it; resolve anyway
            delta = (wd - now.weekday()) % 7
            cands.append((m.start() + 0.5, now + datetime.timedelta(days=delta)))
        for m in re.finditer(r"\bthe (\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?" + MON_RE + ")", text, re.I):
            try:
                d = datetime.date(now.year, now.month, int(m.group(1)))
                if d < now:
                    d = datetime.date(now.year + (now.month == 12), now.month % 12 + 1, int(m.group(1)))
                cands.append((m.start() + 0.7, d))
            except ValueError:
                pass
    if not cands:
        return None
    cands.sort(key=lambda c: c[0])
    # prefer an explicit (month) date within 40 chars of the first candidate
    first = cands[0]
    for c in cands:
        if c[0] - first[0] > 40:
            break
        if isinstance(c[0], int) and c[0] != first[0] and not isinstance(first[0], int):
            return c[1]
    return first[1]


def words(s):
    return [w for w in re.findall(r"[a-z][a-z'-]+", s.lower()) if w not in STOP]


STOP = set("""a an the and or of to in on at for with from by is are was were be been being this that these those
it its as into over under about it's he she they them their his her him i me my you your we our us who whom which what
when where how why not no yes do does did has have had will would can could should may might must shall just very
so than then there here up down out off all any some more most other such only own same too s t one two three
there's going go goes went come comes came get gets got like well also if but because while after before again
morning afternoon evening night today tomorrow day days time am pm""".split())


def first_name(n):
    return n.split()[0] if n else n


# ----------------------------------------------------------------------------- reading a prompt
def _enum_strings(s, depth=0):
    out = []
    if depth > 12:
        return out
    if isinstance(s, dict):
        for k, v in s.items():
            if k == 'enum' and isinstance(v, list):
                out.extend(v)
            else:
                out.extend(_enum_strings(v, depth + 1))
    elif isinstance(s, list):
        for v in s:
            out.extend(_enum_strings(v, depth + 1))
    return out


class Prompt:
    def __init__(self, body):
        msgs = body.get('messages') or []
        self.system = ''
        users = []
        for m in msgs:
            c = m.get('content')
            if isinstance(c, list):
                c = ' '.join(x.get('text', '') for x in c if isinstance(x, dict))
            c = c or ''
            if m.get('role') == 'system':
                self.system += c + '\n'
            elif m.get('role') == 'user':
                users.append(c)
        self.retry = len(users) > 1
        self.user = users[0] if users else ''
        if not self.system and self.user.startswith('You are'):
            pass
        self.text = self.user
        m = re.search(r"inner mind of ([^,\n]+?)(?:,| a character|\.)", self.system + self.user)
        names = NAME_LINE.findall(self.user)
        self.persons = []
        for n in names:
            if n not in self.persons:
                self.persons.append(n)
        self.me = m.group(1).strip() if m else (self.persons[0] if self.persons else 'I')
        if self.me not in self.persons:
            self.persons.insert(0, self.me)
        rf = body.get('response_format') or {}
        js = rf.get('json_schema') or {}
        self.schema = js.get('schema') or rf.get('schema') or None
        self.max_tokens = body.get('max_tokens') or 512
        self.year = 2026
        my = re.search(r"\b(20\d\d)\b", self.user)
        if my:
            self.year = int(my.group(1))
        self.now = None
        self.now_min = None
        self._find_now()
        self.lines = self.user.split('\n')
        self._owners()
        self.places = self._places()
        self.date_enum = set()
        for e in _enum_strings(self.schema):
            if isinstance(e, str) and e.count(':') == 2 and e not in self.places:
                self.places.append(e)
            if isinstance(e, str) and ISO.match(e):
                self.date_enum.add(e)

    def _find_now(self):
        for line in self.user.split('\n'):
            s = line.strip()
            if re.match(r"(It is|It's|Today is|Now:|Current time)", s, re.I):
                d = find_date(s, None, self.year)
                if d is None:
                    wd = WD_RE.search(s)
                    if wd:
                        continue
                if d:
                    self.now = d
                    t = find_times(s)
                    if t:
                        self.now_min = t[0][0]
                    return
        # fallback: a bracketed memory stamp, or any date
        d = find_date(self.user, None, self.year)
        self.now = d or datetime.date(self.year, 1, 1)
        t = find_times(self.user[:4000])
        self.now_min = t[0][0] if t else 8 * 60

    def known_names(self):
        return self.persons

    def _owners(self):
        """owner of each line: first person named in the nearest non-bullet line above."""
        self.owner = []
        cur = self.me
        full = sorted(set(self.persons), key=len, reverse=True)
        for line in self.lines:
            s = line.strip()
            if s and not s.startswith('-') and not re.match(r"^\d+\.", s) and not DIALOG.match(s):
                best = None
                for n in full:
                    p = s.find(n)
                    if p >= 0 and (best is None or p < best[0]):
                        best = (p, n)
                if best:
                    cur = best[1]
            self.owner.append(cur)

    def owned(self, who, bullets_only=True):
        out = []
        for line, o in zip(self.lines, self.owner):
            if o == who and (not bullets_only or line.strip().startswith('-')):
                out.append(line.strip())
        return out

    def _places(self):
        ps = []
        for m in PLACE3.finditer(self.user):
            p = m.group(0).strip().rstrip('.')
            if p.count(':') == 2 and p not in ps and len(p) < 90:
                ps.append(p)
        return ps

    def field(self, label, who=None):
        """'Label: value' line belonging to who (persona blocks)."""
        who = who or self.me
        for line, o in zip(self.lines, self.owner):
            if o == who and re.match(r"^\s*" + label + r"\s*:", line, re.I):
                return line.split(':', 1)[1].strip()
        return ''

    def persona_text(self, who=None):
        who = who or self.me
        return ' '.join(self.field(k, who) for k in ('Identity', 'Currently', 'Lifestyle', 'Innate traits'))

    def dialog(self):
        out = []
        for line in self.lines:
            m = DIALOG.match(line.strip())
            if m and m.group(1) not in ('Memory', 'Question', 'Answer', 'Name'):
                out.append((m.group(1), m.group(2)))
        return out


# ----------------------------------------------------------------------------- events and news
class Event:
    def __init__(self, what, date, start, end, place, host, raw):
        self.what, self.date, self.start, self.end, self.place, self.host, self.raw = what, date, start, end, place, host, raw


def match_place(text, places, rng=None, strict=True):
    best, bs = '', 0
    tw = set(words(text))
    tl = text.lower()
    for p in places:
        parts = [x.strip() for x in p.split(':')]
        sc = 0
        if strict and len(parts) == 3 and parts[1].lower() not in tl and not (set(words(parts[1])) and set(words(parts[1])) <= tw):
            continue  # fix F1: no sector evidence, no match
        for i, part in enumerate(parts[1:]):
            if part.lower() in tl:
                sc += 3 + i
            else:
                sc += len(set(words(part)) & tw) * 0.8
        if sc > bs:
            best, bs = p, sc
    return best if bs >= 2.5 else ''


NEWS_PAT = re.compile(r"(has|have|with|on (?:his|her|their) mind)[^.\n]{0,30}\bnews\b|\bnews on (?:his|her|their) mind|\bevent (?:they|he|she) (?:are|is) hosting|\bis holding\b|\bhosting\b", re.I)


NEWS_STRONG = re.compile(r"has news on (?:his|her|their) mind|\bhas news\b|news on (?:his|her|their) mind", re.I)


def event_from_text(raw, P, host=None):
    ts = find_times(raw)
    start, end = (ts[0][0], ts[0][1]) if ts else (None, None)
    date = find_date(raw, P.now, P.year)
    place = match_place(raw, P.places)
    w = extract_what(raw)
    copy = re.split(r"\s*\(that is", raw)[0].strip()
    copy = re.sub(r"^\s*[A-Z][\w'-]+(?: [A-Z][\w'-]+)* told [A-Z][\w'-]+(?: [A-Z][\w'-]+)*:\s*", '', copy)  # fix F2b
    return Event(w, date, start, end, place, host, copy or raw.strip())


TRAIL = set("a an the in on at of to and for with his her their my he she they has have had been is was by from".split())
WHAT_CUT = re.compile(r"\(that is|\(|\btomorrow\b|\btoday\b|\btonight\b|\bthis (?:morning|afternoon|evening)\b|\bon (?:the )?\d|\bon (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|\bon " + MON_RE + r"\b|\bfrom \d|\bat \d|\bat (?:noon|midday|midnight)\b|\bbetween\b|\bnext (?:week|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I)
WHAT_VERB = re.compile(r"\b(?:is holding|am holding|'m holding|are holding|wants? to hold|plans? to hold|hopes? to hold|to hold|is hosting|'m hosting|am hosting|hosting|holding|putting on|'m having|is having|there's|there is|there will be|there'll be|is throwing|'m throwing|heard about|told (?:me|us) about|going to|go to)\s+", re.I)


def extract_what(raw):
    raw = re.sub(r"^\s*[A-Z][\w'-]+(?: [A-Z][\w'-]+)* told [A-Z][\w'-]+(?: [A-Z][\w'-]+)*:\s*", '', raw)  # fix F2
    sents = [x for x in re.split(r"(?<=[.!?])\s+", raw.strip()) if x]
    sent = raw
    for x in sents:
        if find_times(x) or find_date(x, datetime.date(2026, 1, 1), 2026) or WHAT_VERB.search(x):
            sent = x
            break
    m = WHAT_VERB.search(sent)
    w = sent[m.end():] if m and m.start() < 80 else sent
    w = re.sub(r"^(?:[Oo]h,? )?(?:before I forget,? )?", '', w)
    w = re.sub(r"^(?:[A-Z][\w'-]+, )(?=[A-Za-z])", '', w)  # fix F12: leading vocative is not the event
    w = WHAT_CUT.split(w)[0]
    w = w.strip(' ,.:;-!?')
    if len(w.split()) > 16:
        w = next((x.strip() for x in re.split(r",| so that| - |: ", w) if len(x.split()) > 3), w)  # fix F12
    if len(w.split()) > 16:
        ws = w.split()[:16]
        while len(ws) > 3 and ws[-1].lower() in TRAIL:
            ws.pop()  # fix F2: no cut mid-phrase
        w = ' '.join(ws)
    return w or 'a get-together'


def news_of(P, who):
    """(event, flagged) the speaker has on their mind, or (None, False)."""
    cands = []
    for line, o in zip(P.lines, P.owner):
        s = line.strip()
        if who not in s and o != who:
            continue
        if re.search(r"\bno news\b|nothing to pass on|no news to pass on", s, re.I):
            continue
        if s.startswith('- [') or s.startswith('['):
            continue  # memory lines are not flagged news
        if s.startswith('-') and find_times(s[:40]) and find_times(s[:40])[0][2] <= 4:
            continue  # fix F7: a plan item is not the news statement
        if s.lower().startswith('identity') or s.lower().startswith('currently'):
            continue
        m = NEWS_STRONG.search(s) or NEWS_PAT.search(s)  # fix F17: the explicit news statement wins over 'X was hosting ...'
        if m and who in s[:m.end() + 40]:
            seg = s[m.start():]
            raw = seg.split(':', 1)[1] if ':' in seg[:120] else seg
            # sentence that holds it
            head = seg[:len(seg) - len(raw)] if seg.endswith(raw) else seg[:60]
            hosting = bool(re.search(r"hosting|holding|holds|their own|his own|her own", head, re.I)) or bool(
                re.match(r"\s*" + re.escape(who) + r"\s+(?:\w+\s+){0,2}(?:hold|host)", raw))  # fix F18: host read from the news statement only
            ev = event_from_text(raw, P, host=who if hosting else None)
            if ev.start is not None or ev.date is not None:
                cands.append(ev)
    # 'Events X is holding' style bullet blocks
    if not cands:
        for i, (line, o) in enumerate(zip(P.lines, P.owner)):
            s = line.strip()
            if re.search(r"event", s, re.I) and re.search(r"hold|host", s, re.I) and who in s and not s.startswith('-'):
                j = i + 1
                while j < len(P.lines) and P.lines[j].strip().startswith('-'):
                    ev = event_from_text(P.lines[j].strip()[1:], P, host=who)
                    if ev.start is not None:
                        return ev, True
                    j += 1
    if cands:
        cands.sort(key=lambda e: e.start is None)  # fix F7: prefer the statement that gives the time
        return cands[0], True
    cur = P.field('Currently', who)
    for sent in re.split(r"(?<=[.!?])\s+", cur):
        if re.search(r"\b(hold|host|holding|hosting|throw|put on|plans? to go|going to|means? to go|will go)\b", sent, re.I) and find_times(sent):
            hosting = bool(re.search(r"\b(hold|host|holding|hosting|throw|put on)\b", sent, re.I))
            ev = event_from_text(sent, P, host=who if hosting else None)
            return ev, False
    return None, False


COLD = re.compile(r"not spoken|never forgiven|has not forgiven|hasn't forgiven|forbidden|quarrel|feud|will not speak|won't speak|resent|dislike|can't stand|cannot stand|not speak|grudge|enemy|not since", re.I)
WARM = re.compile(r"friend|fond|cousin|wife|husband|son\b|daughter|mother|father|brother|sister|niece|nephew|uncle|aunt|like a daughter|treats|values|loves|close to|trusts|grand", re.I)


def valence(P, who, other):
    if not other:
        return 'neutral'
    fn = first_name(other)
    texts = []
    for line, o in zip(P.lines, P.owner):
        if o == who and (other in line or re.search(r"\b" + re.escape(fn) + r"\b", line)):
            if line.strip().startswith('- [') and 'conversation' not in line:
                continue
            for sent in re.split(r"(?<=[.!?;])\s+", line):  # fix F3: only sentences naming the other
                if other in sent or re.search(r"\b" + re.escape(fn) + r"\b", sent):
                    texts.append(sent)
    ident = P.field('Identity', who)
    for sent in re.split(r"(?<=[.!?;])\s+", ident):
        if other in sent or re.search(r"\b" + re.escape(fn) + r"\b", sent):
            texts.append(sent)
    # fix F20: a cold word in a sentence that also names a third person is about that person
    ally = r"\b(?:he|she|they|I) and " + re.escape(fn) + r"\b|\b" + re.escape(fn) + r"(?: [A-Z][\w'-]+)? and (?:he|she|I)\b|\b(?:wife|husband|son|daughter|mother|father|brother|sister|partner)\s*,?\s+" + re.escape(fn)
    texts = [x for x in texts if not (COLD.search(x) and re.search(ally, x, re.I))] or texts
    t = ' '.join(texts)
    if COLD.search(t):
        return 'cold'
    if WARM.search(t):
        return 'warm'
    return 'neutral'


def plan_items(P, who):
    out = []
    for s in P.owned(who):
        body = s[1:].strip()
        if body.startswith('['):
            continue
        ts = find_times(body[:60])
        if not ts or ts[0][2] > 3:
            continue
        st, en = ts[0][0], ts[0][1]
        d = P.now
        dd = re.search(r"\bon ([A-Z][a-z]+day[^()]*?)$", body)
        if dd:
            d2 = find_date(dd.group(1), P.now, P.year)
            d = d2 or d
        out.append((d, st, en if en is not None else st + 60, body))
    return out


COMMIT = re.compile(r"calling on|meet|hosting|event|appointment|visit|\bwith [A-Z]|going to|party|gathering|evening at|talk to|promised", re.I)


def same_event(e1, e2):
    if e1 is None or e2 is None:
        return False
    if e1.place and e1.place == e2.place and (e1.date == e2.date or e1.date is None or e2.date is None):
        return True
    return len((set(words(e1.what)) & set(words(e2.what))) - {'event', 'evening', 'holding', 'going'}) >= 1 and (e1.start is None or e2.start is None or e1.start == e2.start)


def clash(P, who, ev):
    if ev is None or ev.start is None:
        return None
    d = ev.date or P.now
    e0, e1 = ev.start, (ev.end if ev.end is not None else ev.start + 90)
    for (pd, st, en, body) in plan_items(P, who):
        if pd != d:
            continue
        if en <= st:
            en += 1440
        pev = event_from_text(re.sub(r"^[^a-zA-Z]*", '', body), P)
        pev.date, pev.start = pd, st
        if same_event(ev, pev) or (ev.place and ev.place in body):
            continue  # fix F10: the same event is no clash
        if st < e1 and e0 < en and COMMIT.search(body) and not (ev.what and ev.what[:20].lower() in body.lower()):
            if 'sleep' in body.lower():
                continue
            return body
    return None


def day_phrase(P, d, rng, slip=0.0):
    if d is None:
        return ''
    if P.now is not None and rng.random() < slip:
        d = d + datetime.timedelta(days=-1 if d > P.now else 1)
    if P.now is not None:
        delta = (d - P.now).days
        if delta == 0:
            return 'today'
        if delta == 1:
            return 'tomorrow'
        if 1 < delta < 7:
            return 'on ' + WEEKDAYS[d.weekday()].capitalize()
    return 'on %s %d' % (d.strftime('%B'), d.day)


def place_phrase(place):
    if not place:
        return ''
    parts = [x.strip() for x in place.split(':')]
    if len(parts) != 3:
        return place
    if re.search(r"room|bedroom|kitchen|shop|house|^inside$|^main", parts[2], re.I):
        return 'the ' + parts[1]
    return 'the %s of %s' % (parts[2], parts[1])


def first_person(s, me):
    fn = first_name(me)
    s = s.replace(me + "'s", 'my').replace(me, 'I').replace(fn + "'s", 'my')  # fix F13: possessive
    s = re.sub(r"\b" + re.escape(fn) + r"\b", 'I', s)
    s = re.sub(r"\bI (wants|plans|hopes|means|is|has|can)\b", lambda m: 'I ' + {'wants': 'want', 'plans': 'plan', 'hopes': 'hope', 'means': 'mean', 'is': 'am', 'has': 'have', 'can': 'can'}[m.group(1)], s)
    s = re.sub(r"\b(he|she) (has|had) been\b", r"I have been", s)
    s = re.sub(r"\b(his|her) own\b", 'my own', s)
    return s


def tell_news(P, me, ev, listener, rng, copy_p=0.30):
    slip = 0.08
    when_day = day_phrase(P, ev.date, rng, slip)
    when_t = '' if (ev.start is None or rng.random() < 0.07) else (
        ('from %s to %s' % (speak_time(ev.start), speak_time(ev.end))) if ev.end is not None and rng.random() < 0.5 else 'at ' + speak_time(ev.start))
    where = place_phrase(ev.place)
    what = ev.raw if rng.random() < copy_p else ev.what
    what = what.rstrip('.').strip()
    fn = first_name(listener) if listener else ''
    dup = ev.place and (set(words(' '.join(ev.place.split(':')[1:]))) & set(words(what)))
    bits = ' '.join(x for x in [('at ' + where) if where and not dup else '', when_day, when_t] if x)
    if ev.host == me:
        w = first_person(what, me)
        if not re.search(r"\b(I|I'm|my)\b", w):
            w = "I'm holding " + (w[0].lower() + w[1:] if not w[:2].isupper() else w)
        return rng.choice([
            "%s %s. I'd be glad if you came, %s." % (w, bits, fn),
            "Oh, before I forget: %s %s. Will you come?" % (w[0].lower() + w[1:] if w.startswith('I') is False else w, bits),
            "%s, %s %s. Would you like to come along?" % (fn, w, bits)]).replace('  ', ' ')
    host = ev.host if ev.host and ev.host != me else ''
    core = what
    if host and first_name(host) not in core and host not in core:
        core = "%s is holding %s" % (first_name(host), what[0].lower() + what[1:])
    return rng.choice([
        "I've a bit of news: %s, %s." % (core, bits),
        "Have you heard? %s %s." % (core[0].upper() + core[1:], bits),
        "Oh, before I forget, there's %s %s." % (core[0].lower() + core[1:], bits)]).replace('  ', ' ')


INVITE = re.compile(r"would you (like to )?(come|join)|will you come|come along|glad if you came|like you to come|hope (you'll|you can|to see you)|you're (welcome|invited)|do come|join (us|me)|you should come|why don't you come|can you come|fancy coming|want to come|love (it )?if you came|care to (come|join)", re.I)
ACCEPT = re.compile(r"i'll be there|count me in|i'll come|i'd (love|like) to (come|go)|i'll go|wouldn't miss|see you there|i will come|i'll (try to )?make it|i'd be glad to come|i'll come along|i mean to go|i'll be along|yes,? i'll", re.I)
DECLINE = re.compile(r"can't make it|cannot make it|won't be able|i'm afraid i|another time|not for me|i'll pass|have to decline|sorry,? (i|but)", re.I)
BYE = re.compile(r"\b(goodbye|bye|(?<!good to )(?<!nice to )(?<!glad to )(?<!great to )see you( later| soon| around)?(?! there)|take care|must be off|should get going|i'd better go|be on my way|got to go|have to go)\b", re.I)


def said_news(dialog, who, ev):
    if ev is None:
        return False
    key = set(words(ev.what)) - {'hold', 'holding', 'wants', 'want'}
    key = set(list(key)[:8])
    for spk, txt in dialog:
        if True:  # fix F11: 'has not come up in this conversation' - by anyone
            tw = set(words(txt))
            if key and len(key & tw) >= min(2, len(key)):
                return True
            if ev.start is not None and any(t[0] == ev.start for t in find_times(txt)):
                return True
    return False


def small_talk(P, me, other, rng, n):
    fn = first_name(other) if other else ''
    if n == 0:
        g = rng.choice(["Oh, hello %s! Good %s." % (fn, 'morning' if (P.now_min or 600) < 720 else ('afternoon' if (P.now_min or 0) < 1080 else 'evening')),
                        "Ah, %s. How are you keeping?" % fn, "Hello, %s! How are things with you?" % fn,
                        "%s! Mind how you go in this weather." % fn])
        return g
    cur = P.field('Currently', me)
    sents = [s for s in re.split(r"(?<=[.!?])\s+", cur) if s]
    if sents and rng.random() < 0.5:
        s = rng.choice(sents)
        if rng.random() < 0.25:
            return first_person(s, me)
        s = first_person(s, me)
        ws = s.split()[:18]
        while len(ws) > 3 and len(s.split()) > 18 and ws[-1].lower() in TRAIL:
            ws.pop()  # fix F21
        s = ' '.join(ws).rstrip(',;:')
        return rng.choice(["To be honest, %s." % s.rstrip('.'), "Well, %s." % s.rstrip('.'), "Busy as ever. %s." % s.rstrip('.')])
    return rng.choice(["Quiet day so far, thankfully.", "How are things with you?", "Same as ever here, plenty to do.",
                       "Can't complain. And you?", "It's been a long day already.", "The weather's not helping, is it?"])


def gen_line(P, me, others, dialog, rng, ctx):
    """one line of `me` in a conversation with `others` given dialog so far.
    ctx: dict news{name:(ev,flagged)}, turn index. returns (text, end_bool)"""
    other = others[0] if others else ''
    last = None
    for spk, txt in reversed(dialog):
        if spk != me:
            last = (spk, txt)
            break
    if last:
        other = last[0] if last[0] in others or not others else other
    val = valence(P, me, other)
    ev, flagged = ctx['news'].get(me, (None, False))
    n_mine = sum(1 for s, _ in dialog if s == me)
    parts = []
    end = False
    responded = False
    if last:
        lt = last[1]
        answered = any(s == me for s, _ in dialog[dialog.index(last) + 1:]) if last in dialog else False
        if BYE.search(lt) and len(dialog) >= 2 and not INVITE.search(lt) and not find_times(lt):  # fix F9
            parts.append(rng.choice(["See you later, %s." % first_name(last[0]), "Take care, %s." % first_name(last[0]), "Bye now."]))
            return ' '.join(parts), rng.random() < 0.9
        ev_heard = None
        ts = find_times(lt)
        is_inv = bool(INVITE.search(lt)) and not ACCEPT.search(lt)
        if ts or (is_inv and re.search(r"holding|hosting|putting on|having|there's|there is|tomorrow|today|tonight", lt, re.I)):
            ev_heard = event_from_text(lt, P, host=None)  # fix F8: an invitation need not give the time
        if ev is not None and ev_heard is not None and same_event(ev, ev_heard):
            ev_heard.host = ev.host or ev_heard.host
        if not is_inv and ev_heard is not None and rng.random() < 0.05:
            is_inv = True  # mistakes news for an invitation (B3)
        if is_inv and ev_heard is not None:
            ev_heard.host = last[0]
            base = {'warm': 0.85, 'neutral': 0.70, 'cold': 0.30}[val]
            who_plan = me if rng.random() >= 0.07 else last[0]
            c = clash(P, who_plan, ev_heard)
            if c:
                base *= 0.35
            if rng.random() < base:
                parts.append(rng.choice(["I'd love to, I'll be there.", "Count me in, %s." % first_name(last[0]),
                                         "That sounds grand, I'll come along.", "Yes, I'll be there %s." % ('at ' + speak_time(ev_heard.start) if ev_heard.start is not None else '')]).replace(' .', '.'))
            else:
                if c:
                    act = re.sub(r"^[\d:.apm\s-]+", '', c.split('(')[0]).strip()
                    parts.append(rng.choice(["I'm sorry, I've got %s then. Could we make it another time?" % act,
                                             "I'd like to, but I'm %s at that time, I'm afraid." % act]))
                else:
                    parts.append(rng.choice(["I don't think I'll manage it, but thank you.", "I'm afraid that's not for me.", "I'll see how I feel."]))
            responded = True
        elif ev_heard is not None and (ev is None or not said_news(dialog, me, ev) or True) and not ACCEPT.search(lt):
            if ctx.get('host_of_my') is None and ev is not None and ev.host == me and said_news(dialog, me, ev):
                pass
            else:
                hv = val
                p = {'warm': 0.45, 'neutral': 0.35, 'cold': 0.15}[hv]
                if rng.random() < p:
                    parts.append(rng.choice(["Thanks for telling me, I'll come along to that.", "Oh, that sounds lovely, I think I'll go.", "I might well go to that, thank you."]))
                else:
                    parts.append(rng.choice(["Thanks for letting me know.", "Is that so? I'll keep it in mind.", "Oh, I hadn't heard that."]))
                responded = True
        elif ACCEPT.search(lt) and ev is not None and ev.host == me and said_news(dialog, me, ev):
            parts.append(rng.choice(["Wonderful, I'll see you there then.", "Grand, I'm glad you'll come.", "Lovely, see you then."]))
            responded = True
        elif lt.strip().endswith('?') and not responded:
            parts.append(rng.choice(["I'm well enough, thanks.", "Not too bad, thank you.", "Oh, can't complain."]))
    # news
    if ev is not None and not said_news(dialog, me, ev):
        p = (0.80 if n_mine == 0 else 0.60) if flagged else 0.40
        if val == 'cold':
            p *= 0.5
        if rng.random() < p:
            if not last and not parts:
                parts.append(small_talk(P, me, other, rng, 0).split('!')[0].split('.')[0] + '!')
            parts.append(tell_news(P, me, ev, other, rng))
            ctx.setdefault('told', set()).add(me)
    if not parts:
        parts.append(small_talk(P, me, other, rng, len(dialog)))
    text = ' '.join(parts[:2])
    pend = min(0.85, 0.10 + 0.12 * len(dialog))
    if ev is not None and not said_news(dialog + [(me, text)], me, ev) and flagged and len(dialog) < 5:
        pend *= 0.3
    if rng.random() < pend and len(dialog) >= 1:
        if not BYE.search(text):
            text += rng.choice([" Anyway, I should get going. Take care!", " Right, I must be off.", " See you later, %s." % first_name(other)])
        end = True
    return text, end


# ----------------------------------------------------------------------------- memos
def lc(w):
    return w if re.match(r"I\b", w) or w[:2].isupper() else w[0].lower() + w[1:]


def make_memo(P, me, dialog, rng, places=None):
    places = places if places is not None else P.places
    others = [s for s, _ in dialog if s != me]
    other = others[0] if others else 'someone'
    ev = None
    ev_line_i = None
    for i, (s, t) in enumerate(dialog):
        if find_times(t):
            e = event_from_text(t, P, host=s if INVITE.search(t) or re.search(r"\bI'm holding|\bI am holding|\bI'm putting on|\bmy\b", t) else None)
            if e.start is not None:
                ev, ev_line_i = e, i
                break
    accepted = False
    declined = False
    if ev is not None:
        inviter = dialog[ev_line_i][0] if INVITE.search(dialog[ev_line_i][1]) or ev.host else None
        for s, t in dialog[ev_line_i + 1:] if ev_line_i is not None else []:
            if s == me and ACCEPT.search(t) and me != inviter:  # fix F14: the host's 'see you there' is no acceptance
                accepted = True
            if s == me and DECLINE.search(t):
                declined = True
        if dialog[ev_line_i][0] == me and ACCEPT.search(dialog[ev_line_i][1]):
            accepted = True
    host_self = ev is not None and ev.host == me
    if ev is None:
        summary = rng.choice(["%s had a short friendly chat with %s; nothing in particular was arranged." % (me, other),
                              "%s and %s exchanged greetings and small talk." % (me, other)])
        imp = rng.choice([2, 2, 3])
    else:
        dp = day_phrase(P, ev.date, rng, 0.0)
        tp = speak_time(ev.start)
        wp = place_phrase(ev.place)
        teller = dialog[ev_line_i][0]
        if wp and set(words(' '.join(ev.place.split(':')[1:]))) & set(words(ev.what)):
            wp = ''
        ev.what = ev.what if re.match(r"I\b", ev.what) else ev.what
        if teller == me:
            summary = "%s told %s about %s%s %s at %s" % (me, other, lc(ev.what), (' at ' + wp) if wp else '', dp, tp)
        else:
            summary = "%s told %s about %s%s %s at %s" % (teller, me, lc(ev.what), (' at ' + wp) if wp else '', dp, tp)
        if accepted:
            summary += ", and %s said they would come." % me
        elif declined:
            summary += ", but %s could not make it." % me
        else:
            summary += "."
        imp = 6 if accepted else 5
    imp = max(1, min(10, imp + rng.choice([-1, 0, 0, 1])))
    memo = {'summary': summary[:400], 'importance': imp, 'plan_activity': '', 'plan_date': '', 'plan_start': '', 'plan_minutes': 0, 'plan_place': ''}
    rec = False
    if ev is not None:
        if accepted and rng.random() < 0.88:
            rec = True
        elif host_self and rng.random() < 0.20:
            rec = True
        elif not accepted and rng.random() < 0.07:
            rec = True
    if rec:
        d = ev.date or P.now
        if rng.random() < 0.10:
            step = rng.choice([-1, 1])
            d2 = d + datetime.timedelta(days=step)
            if P.date_enum and d2.isoformat() not in P.date_enum:
                d2 = d - datetime.timedelta(days=step)  # fix F15: the grammar only offers listed days
            d = d2
        st = ev.start
        if rng.random() < 0.05 and st >= 13 * 60 and not re.search(r"pm|p\.m|evening|afternoon|night|\d\d:\d\d", ev.raw, re.I):
            st -= 720
        mins = (ev.end - ev.start) if ev.end is not None and ev.end > ev.start else 120
        pl = ev.place
        if rng.random() < 0.08:
            pl = ''
        memo.update({'plan_activity': ('going to ' + ev.what[0].lower() + ev.what[1:])[:120], 'plan_date': d.isoformat(),
                     'plan_start': hhmm(st), 'plan_minutes': int(max(0, min(600, mins))), 'plan_place': pl})
    return memo


# ----------------------------------------------------------------------------- schema tools
def resolve(schema, root):
    if isinstance(schema, dict) and '$ref' in schema:
        ref = schema['$ref'].split('/')[-1]
        return resolve((root.get('$defs') or root.get('definitions') or {}).get(ref, {}), root)
    return schema or {}


def props(schema):
    return set(((schema or {}).get('properties') or {}).keys())


def default_for(s, root, rng, hint=''):
    s = resolve(s, root)
    if 'anyOf' in s:
        opts = [o for o in s['anyOf'] if resolve(o, root).get('type') != 'null']
        return default_for(opts[0] if opts else s['anyOf'][0], root, rng, hint) if s['anyOf'] else None
    if 'enum' in s:
        e = s['enum']
        return e[1] if len(e) > 1 and e[0] == '' else e[0]
    t = s.get('type')
    if t == 'object':
        return {k: default_for(v, root, rng, k) for k, v in (s.get('properties') or {}).items()}
    if t == 'array':
        n = s.get('minItems', 1)
        return [default_for(s.get('items') or {}, root, rng, hint) for _ in range(n)]
    if t == 'integer':
        lo, hi = s.get('minimum', 0), s.get('maximum', 10)
        return max(lo, min(hi, (lo + hi) // 2))
    if t == 'number':
        return 1.0
    if t == 'boolean':
        return True
    if t == 'null':
        return None
    if s.get('pattern', '').startswith('^(') and s.get('pattern', '').endswith(')?$'):
        return ''
    return 'I am not sure.'


def fit(value, s, root):
    """clip to grammar limits (what llama.cpp's grammar would have forced)."""
    s = resolve(s, root)
    if 'anyOf' in s:
        if value is None:
            return None
        for o in s['anyOf']:
            ro = resolve(o, root)
            if ro.get('type') != 'null':
                return fit(value, ro, root)
        return value
    if 'enum' in s:
        e = s['enum']
        if value in e:
            return value
        if isinstance(value, str):
            for x in e:
                if isinstance(x, str) and x.lower() == value.lower():
                    return x
        return e[0]
    t = s.get('type')
    if t == 'object' and isinstance(value, dict):
        ps = s.get('properties') or {}
        out = {}
        for k, sub in ps.items():
            out[k] = fit(value[k], sub, root) if k in value else default_for(sub, root, None, k)
        return out
    if t == 'array' and isinstance(value, list):
        mx = s.get('maxItems')
        mn = s.get('minItems', 0)
        if mx is not None:
            value = value[:mx]
        while len(value) < mn:
            value = value + [value[-1] if value else default_for(s.get('items') or {}, root, None)]
        return [fit(v, s.get('items') or {}, root) for v in value]
    if t == 'integer':
        try:
            v = int(value)
        except Exception:
            v = s.get('minimum', 1)
        if 'minimum' in s:
            v = max(s['minimum'], v)
        if 'maximum' in s:
            v = min(s['maximum'], v)
        return v
    if t == 'boolean':
        return bool(value)
    if t == 'string':
        v = value if isinstance(value, str) else str(value)
        if 'maxLength' in s:
            v = v[:s['maxLength']]
        if s.get('minLength', 0) > len(v):
            v = (v + ' ...')[:max(s['minLength'], len(v) + 4)]
        pat = s.get('pattern')
        if pat:
            try:
                if not re.match(pat, v):
                    v = ''
                    if not re.match(pat, v):
                        v = '12:00'
            except re.error:
                pass
        return v
    return value


# ----------------------------------------------------------------------------- kinds
def k_interview(P, rng):
    m = re.search(r'asks?[^:"\n]*:\s*"(.*?)"', P.user)
    q = m.group(1) if m else ''
    me = P.me
    mine = ' \n'.join(P.owned(me, bullets_only=False))
    mem = [l for l in P.owned(me) if l.startswith('- [') or l.startswith('-')]
    km = re.search(r"know (?:of )?([A-Z][\w'-]+(?: [A-Z][\w'-]+)*)", q)
    if km:
        who = km.group(1)
        fn = first_name(who)
        if who == me:
            return {'answer': "That's me, %s." % me}
        hits = []
        for sent in re.split(r"(?<=[.!?])\s+|\n", mine):
            if who in sent or re.search(r"\b" + re.escape(fn) + r"\b", sent):
                hits.append(sent.strip(' -'))
        if hits:
            h = hits[0]
            h = re.sub(r"^\[[^\]]*\]\s*", '', h)
            if rng.random() < 0.4:
                return {'answer': ("Yes, I know %s. " % fn) + first_person(h, me)}
            v = valence(P, me, who)
            tail = {'warm': "I think a lot of %s." % fn, 'neutral': "We get along well enough.", 'cold': "I'd rather not talk about %s." % fn}[v]
            return {'answer': "Yes, I know %s. %s" % (who, tail)}
        if rng.random() < 0.06:
            return {'answer': "I think I've seen %s around town, but I don't really know them." % fn}
        return {'answer': rng.choice(["No, I don't think I know %s." % who, "I'm not sure I've met %s." % who, "Can't say I do, no."])}
    hm = re.search(r"heard (?:about|of) (.*?)[?]?$", q)
    topic = hm.group(1) if hm else q
    tw = set(words(topic)) - {'heard'}
    best = None
    for l in mem + [P.field('Currently', me)]:
        lw = set(words(l))
        if tw & lw:
            best = l
            break
    if best:
        body = re.sub(r"^-?\s*\[[^\]]*\]\s*", '', best)
        ev = event_from_text(body, P)
        bits = [x for x in [place_phrase(ev.place), day_phrase(P, ev.date, rng, 0.08), ('at ' + speak_time(ev.start)) if ev.start is not None else ''] if x]
        going = bool(re.search(r"I'll (be there|come)|count me in|plans? to go|means? to go|going to", ' '.join(mem), re.I)) or rng.random() < 0.3
        ans = "Yes, I heard about %s%s." % (topic.rstrip('?').strip(), (', ' + ' '.join(bits)) if bits else '')
        if rng.random() < 0.3:
            cb = re.sub(r"^conversation with ([^:]+):\s*", r"\1 and I talked: ", body)
            cb = re.sub(r"(?<=: )([A-Z][\w'-]+(?: [A-Z][\w'-]+)*): \"", r'\1 said "', cb)
            ans = "Yes. " + first_person(cb, me)[:300]
        if going:
            ans += " I mean to go."
        return {'answer': ans}
    return {'answer': rng.choice(["No, I haven't heard anything about that.", "No, that's news to me.", "I don't think I have, no."])}


def rate(text, rng):
    t = text.lower()
    if re.search(r"died|death|funeral|ill\b|illness|accident|fire|flood|fight|quarrel|broke up|arrest", t):
        v = 8
    elif re.search(r"event|evening|party|invite|holding|hosting|news|festival|gathering|ceremony|will come|i'll be there", t):
        v = 6
    elif re.search(r"conversation with|told|asked|promised", t):
        v = 4
    elif re.search(r"plan for|schedule", t):
        v = 3
    elif re.search(r"chatting|chat\b|talking", t):
        v = 2
    elif re.search(r" is in use| is being used|is idle", t):
        v = 1
    else:
        v = 2
    return max(1, min(10, v + rng.choice([-1, 0, 0, 0, 1])))


def k_importance(P, rng):
    m = re.search(r'Memory:\s*"(.*)"', P.user, re.S)
    return {'importance': rate(m.group(1) if m else P.user[-400:], rng)}


def k_batch(P, rng, n):
    items = re.findall(r'^\s*(?:-|\d+[.)])\s*"(.*)"\s*$', P.user, re.M)
    if not items:
        items = [l for l in P.lines if l.strip().startswith('- ')]
    r = [rate(x, rng) for x in items]
    if rng.random() < 0.04 and len(r) > 2:
        i = rng.randrange(len(r) - 1)
        r = r[:i] + [r[i]] + r[i:]
    if n:
        r = (r + [2] * n)[:n]
    return {'ratings': r}


def lifestyle_hours(P, me):
    ls = P.field('Lifestyle', me)
    ts = find_times(ls)
    wake = 7 * 60
    bed = 22 * 60
    work = None
    m = re.search(r"wakes? up at ([^,;]+)", ls)
    if m and find_times(m.group(1)):
        wake = find_times(m.group(1))[0][0]
    m = re.search(r"(?:goes|go) to bed at ([^,;]+)", ls)
    if m and find_times(m.group(1)):
        bed = find_times(m.group(1))[0][0]
    for s, e, p in ts:
        if e is not None:
            seg = ls[max(0, p - 60):p]
            act = re.split(r",|\band\b", seg)[-1].strip()
            act = re.sub(r"\bfrom\s*$", '', act).strip()
            act = re.sub(r"^(works|work)\b", 'working', act)
            act = re.sub(r"^(\w+?)s\b", lambda mm: mm.group(1) + 'ing' if mm.group(1) in ('keep', 'run', 'mend', 'farm', 'bake', 'sell', 'tend', 'fish') else mm.group(0), act)
            work = (s, e, act or 'working')
            break
    return wake, bed, work


def pick_addr(activity, enum, home_hint, rng):
    a = activity.lower()
    if not enum:
        return ''
    best = match_place(activity, enum, strict=False)  # fix F1c: an activity names the room, not the sector
    if best:
        return best
    homes = [e for e in enum if re.search(r"house|cottage|home|farm|quarters|homestead", e, re.I)]
    if re.search(r"sleep|bed|wak|relax|rest|read", a):
        cand = [e for e in homes if re.search(r"bedroom|room", e.split(':')[-1], re.I)] or homes
        if cand:
            return cand[0]
    if re.search(r"breakfast|lunch|dinner|cook|supper|meal|eat", a):
        cand = [e for e in homes if 'kitchen' in e.lower()] or [e for e in enum if 'kitchen' in e.lower()]
        if cand:
            return cand[0]
    return home_hint or enum[0]


EMO = {'sleep': '😴', 'breakfast': '🍳', 'lunch': '🥪', 'dinner': '🍲', 'work': '🔧', 'relax': '📖', 'wak': '🌅', 'call': '🚪', 'free': '☕', 'event': '🎉', 'going': '🚶'}


def emoji_for(a):
    for k, v in EMO.items():
        if k in a.lower():
            return v
    return '🙂'


def k_daily(P, rng, schema):
    me = P.me
    root = schema
    try:
        enum = resolve(resolve(schema['properties']['blocks'], root)['items'], root)['properties']['address']['enum']
    except Exception:
        enum = P.places
    wake, bed, work = lifestyle_hours(P, me)
    bedroom = pick_addr('sleeping', enum, '', rng)
    m = re.search(r"last block[^()]*\(([^)]+)\)", P.user)
    if m and m.group(1) in enum:
        bedroom = m.group(1)
    kitchen = pick_addr('having breakfast', enum, bedroom, rng)
    wact = work[2] if work else 'working'
    wplace = pick_addr(wact, enum, bedroom, rng)
    ws, we = (work[0], work[1]) if work else (9 * 60, 17 * 60)
    # commitments today
    commits = []
    today_txt = []
    for l in P.owned(me) + [P.field('Currently', me)]:
        if re.search(r"going to|plans? to go|means? to go|will come|I'll be there|count me in|hold|host|meet|promised|said (he|she|they) would", l, re.I):
            l = re.sub(r"^-?\s*\[[^\]]*\]\s*", '', l)  # fix F16: the memory's time stamp is not the event time
            ts = find_times(l)
            d = find_date(l, P.now, P.year)
            if ts and (d == P.now):
                commits.append((ts[0][0], ts[0][1], l))
    ev_block = None
    if commits and rng.random() < 0.80:
        st, en, l = commits[0]
        if rng.random() < 0.05:
            st += 60
        ev = event_from_text(re.sub(r"^-?\s*\[[^\]]*\]", '', l), P)
        verb = 'hosting ' if re.search(re.escape(me) + r"\s+(?:\w+\s+){0,2}(hold|host)", l) else 'going to '  # fix F16
        ev_block = (st, (en if en else st + 120), (verb + ev.what[0].lower() + ev.what[1:])[:110], ev.place if ev.place in enum else pick_addr(ev.what, enum, wplace, rng))
    blocks = []
    t = wake
    seq = [(wake, 30, 'waking up and getting ready', bedroom), (wake + 30, 30, 'having breakfast', kitchen)]
    t = wake + 60
    if ws > t:
        seq.append((t, ws - t, 'getting ready for the day', bedroom)); t = ws
    lunch = max(t, 12 * 60)
    if lunch < we:
        seq.append((t, lunch - t, wact, wplace)) if lunch > t else None
        seq.append((lunch, 60, 'having lunch', kitchen))
        t = lunch + 60
    if we > t:
        seq.append((t, we - t, wact, wplace)); t = we
    din = max(t, 18 * 60)
    if din > t:
        seq.append((t, din - t, 'free time', bedroom)); t = din
    seq.append((t, 60, 'having dinner', kitchen)); t += 60
    if bed > t:
        seq.append((t, bed - t, 'relaxing at home', bedroom)); t = bed
    sl = (wake + 1440 - t) % 1440 or 480
    seq.append((t, sl, 'sleeping', bedroom))
    if ev_block:
        st, en, act, pl = ev_block
        new = []
        for (s, d, a, p) in seq:
            e = s + d
            if e <= st or s >= en or a == 'sleeping':
                new.append((s, d, a, p))
            else:
                if s < st:
                    new.append((s, st - s, a, p))
                if not any(x[2] == act for x in new):
                    new.append((st, en - st, act, pl))
                if e > en:
                    new.append((en, e - en, a, p))
        seq = new
    for (s, d, a, p) in seq:
        if d <= 0:
            continue
        blocks.append({'start': hhmm(s), 'duration_minutes': int(max(5, min(960, d))), 'activity': a[:120], 'emoji': emoji_for(a), 'address': p if p in enum else (enum[0] if enum else p)})
    outline = ["%s at %s" % (b['activity'], speak_time(int(b['start'][:2]) * 60 + int(b['start'][3:]))) for b in blocks if b['activity'] != 'sleeping'][:8]
    while len(outline) < 4:
        outline.append('going to bed at %s' % speak_time(bed))
    return {'wake_up_hour': wake // 60, 'outline': outline, 'blocks': blocks[:16]}


STEPS = {
    'breakfast': ['putting the kettle on', 'making tea', 'slicing bread', 'frying eggs', 'eating at the table', 'washing the dishes', 'wiping the table', 'putting things away'],
    'lunch': ['slicing bread', 'making a sandwich', 'heating soup', 'eating lunch', 'having a hot drink', 'washing up', 'tidying the kitchen', 'sitting for a moment'],
    'dinner': ['peeling vegetables', 'cooking the stew', 'setting the table', 'eating dinner', 'clearing the table', 'washing the dishes', 'drying the pots', 'putting the kettle on'],
    'sleep': ['getting into bed', 'sleeping', 'sleeping', 'sleeping', 'turning over', 'sleeping', 'sleeping', 'sleeping'],
    'call': ['walking over', 'knocking and saying hello', 'chatting', 'having a cup of tea together', 'catching up on news', 'chatting', 'sharing a joke', 'saying goodbye'],
    'relax': ['sitting down by the fire', 'reading a book', 'having a cup of tea', 'mending a sock', 'listening to the radio', 'reading a book', 'tidying up', 'getting ready for bed'],
}
GEN = ['getting set up', 'checking the day\'s tasks', 'getting on with the work', 'sorting things out', 'taking a short break',
       'carrying on with the work', 'tidying up', 'writing up notes', 'fetching supplies', 'checking the work', 'cleaning the tools', 'finishing off']


def k_decompose(P, rng, schema):
    root = schema
    try:
        st = resolve(resolve(schema['properties']['steps'], root)['items'], root)
        objs = [o for o in st['properties']['object'].get('enum', []) if o]
        lo, hi = st['properties']['duration_minutes'].get('minimum', 5), st['properties']['duration_minutes'].get('maximum', 15)
        mn, mx = schema['properties']['steps'].get('minItems', 8), schema['properties']['steps'].get('maxItems', 12)
    except Exception:
        objs, lo, hi, mn, mx = [], 5, 15, 8, 12
    m = re.search(r"is ([^\n]*?), at [^\n]*\n", P.user)
    act = ''
    mm = re.search(r"\(\d+ minutes\) [^\n]* is (.+?), at ", P.user)
    if mm:
        act = mm.group(1)
    fill = None
    mf = re.search(r"first (\d+) minutes", P.user)
    if mf:
        fill = int(mf.group(1))
    else:
        md = re.search(r"\((\d+) minutes\)", P.user)
        fill = int(md.group(1)) if md else 60
    n = max(mn, min(mx, round(fill / 10)))
    while n * lo > fill and n > mn:
        n -= 1
    key = next((k for k in STEPS if k in act.lower()), None)
    if key is None and re.search(r"calling on|seeing people|visit", act, re.I):
        key = 'call'
    if key is None and re.search(r"relax|free time|rest", act, re.I):
        key = 'relax'
    names = STEPS[key] if key else GEN
    durs = [lo] * n
    rem = fill - lo * n
    i = 0
    while rem > 0 and any(d < hi for d in durs):
        if durs[i % n] < hi:
            add = min(hi - durs[i % n], rem, rng.choice([5, 5, 10]))
            durs[i % n] += add
            rem -= add
        i += 1
    steps = []
    for j in range(n):
        a = names[j % len(names)]
        o = ''
        if objs and rng.random() < 0.6:
            o = objs[j % len(objs)]
        steps.append({'activity': a, 'duration_minutes': durs[j], 'object': o, 'object_state': ('in use' if o else '')})
    return {'steps': steps}


def k_react(P, rng):
    me = P.me
    m = re.search(r'noticed:\s*"([^"]*)"', P.user)
    obs = m.group(1) if m else ''
    others = [n for n in re.findall(r"[A-Z][a-z'-]+ [A-Z][a-z'-]+(?: [A-Z][a-z'-]+)?", obs) if n != me]
    other = others[0] if others else ''
    if not other:
        mm = re.search(r'"talk": start a conversation with ([A-Z][\w\' -]+?) now', P.user)
        other = mm.group(1) if mm else ''
    ev, flagged = news_of(P, me)
    val = valence(P, me, other) if other else 'neutral'
    can_talk = bool(other) and not re.search(r"sleeping|asleep", obs, re.I)
    recent_chat = bool(re.search(r"chatting with " + re.escape(other), P.user)) if other else False
    r = rng.random()
    if ev is not None and can_talk and r < 0.70 * (0.5 if val == 'cold' else 1):
        ch, why = 'talk', "%s wants to tell %s about %s." % (me, first_name(other), ev.what[0].lower() + ev.what[1:])
    elif can_talk and rng.random() < (0.03 if val == 'cold' else (0.08 if recent_chat else 0.15)):
        ch, why = 'talk', "It would be nice to have a quick word with %s." % first_name(other)
    else:
        r2 = rng.random()
        if r2 < 0.08:
            ch, why = 'wait', "%s is busy, so %s will wait a moment." % (first_name(other) or 'They', me)
        elif r2 < 0.12:
            ch, why = 'react', "This calls for a change of plan."
        else:
            ch, why = 'continue', "Nothing here needs %s's attention." % me
    return {'choice': ch, 'reason': why, 'new_activity': ('seeing what %s needs' % first_name(other)) if ch == 'react' else ''}


def k_relationship(P, rng):
    me = P.me
    mm = re.search(r"relationship with (?:each of |both )?([A-Z][^\n:,.]*?(?:,\s*[A-Z][^\n:,.]*?)*(?:,? and [A-Z][\w'-]+(?: [A-Z][\w'-]+)*))(?=[,.]|$)", P.user, re.M)
    if mm:  # fix F19: 'relationship with each of A and B'
        names = [x.strip() for x in re.split(r",\s*|\s+and\s+", mm.group(1)) if x.strip()]
        if len(names) >= 2:
            parts = []
            for o in names[:4]:
                v = valence(P, me, o)
                parts.append({'warm': "%s is fond of %s" % (me, o), 'neutral': "%s gets along well enough with %s" % (me, o), 'cold': "%s keeps %s at arm's length" % (me, o)}[v])
            return {'summary': ('; '.join(parts) + '.')[:400]}
    m = re.search(r"relationship with ([A-Z][\w'-]+(?: [A-Z][\w'-]+)*)", P.user)
    other = m.group(1) if m else ''
    if not other:
        m = re.search(r"remembers about ([A-Z][\w'-]+(?: [A-Z][\w'-]+)*)", P.user)
        other = m.group(1) if m else 'them'
    v = valence(P, me, other)
    ident = P.field('Identity', me)
    sent = next((s for s in re.split(r"(?<=[.!?])\s+", ident) if first_name(other) in s), '')
    if sent and rng.random() < 0.35:
        base = sent
    else:
        base = {'warm': "%s is fond of %s and trusts them." % (me, other), 'neutral': "%s knows %s from around town." % (me, other), 'cold': "%s keeps %s at arm's length and has not let go of old grievances." % (me, other)}[v]
    mem = [l for l in P.owned(me) if other in l or first_name(other) in l]
    ev = any(re.search(r"holding|event|will come|be there", l, re.I) for l in mem)
    tail = {'warm': " Right now %s feels warmly towards %s." % (me, first_name(other)), 'neutral': " %s gets along well enough with %s." % (me, first_name(other)), 'cold': " %s still feels wary of %s." % (me, first_name(other))}[v]
    if ev:
        tail += " They have talked about an upcoming event."
    return {'summary': (base + tail)[:400]}


def k_currently(P, rng):
    me = P.me
    old = P.field('Currently', me)
    mem = [re.sub(r"^-\s*(\[[^\]]*\]\s*)?", '', l) for l in P.owned(me)]
    add = [l for l in mem if re.search(r"hold|host|going to|plans? to go|will come|I'll be there|invit|event|promised|told", l, re.I) and 'plan for' not in l]
    first_old = re.split(r"(?<=[.!?])\s+", old)[0] if old else ''
    parts = [first_old] if first_old else []
    uniq, seenw = [], set()
    for a in add:  # fix F6: one mention per event
        k = extract_what(a).lower().replace('a ', '', 1)[:25]
        if k not in seenw:
            seenw.add(k); uniq.append(a)
    add = uniq
    for a in add[:2]:
        if rng.random() < 0.35:
            parts.append(a.rstrip('.') + '.')
        else:
            ev = event_from_text(a, P)
            bits = ' '.join(x for x in [place_phrase(ev.place) and 'at ' + place_phrase(ev.place), day_phrase(P, ev.date, rng, 0.08), ('at ' + speak_time(ev.start)) if ev.start is not None else ''] if x)
            parts.append("%s has %s on their mind%s." % (me, ev.what[0].lower() + ev.what[1:], (' (' + bits + ')') if bits else ''))
    if len(parts) < 2:
        parts.append("%s is mostly caught up in the daily routine." % me)
    s = ' '.join(p for p in parts if p)
    seen, out = set(), []
    for p in re.split(r"(?<=[.!?])\s+", s):
        if p not in seen:
            seen.add(p); out.append(p)
    return {'currently': ' '.join(out)[:700]}


def k_questions(P, rng, mx):
    me = P.me
    mem = [l for l in P.owned(me) if l.startswith('- [')]
    sectors = set(x.split(':')[1].strip() for x in P.places if x.count(':') == 2)
    names = [re.sub(r"'s$", '', n) for n in re.findall(r"[A-Z][a-z'-]+ [A-Z][a-z'-]+", ' '.join(mem))]
    names = [n for n in names if n != me and n not in sectors and not any(n in x for x in sectors)]  # fix F4
    cnt = {}
    for n in names:
        if n.split()[0] in ('Wednesday', 'Tuesday', 'Monday', 'Thursday', 'Friday', 'Saturday', 'Sunday') or n.split()[1] in MONTHS or n.split()[1].lower() in MONTHS:
            continue
        cnt[n] = cnt.get(n, 0) + 1
    top = sorted(cnt, key=lambda k: -cnt[k])
    qs = []
    if top:
        qs.append("What is the relationship between %s and %s like?" % (me, top[0]))
    ev, _ = news_of(P, me)
    if ev:
        qs.append("How does %s feel about %s?" % (me, ev.what[0].lower() + ev.what[1:]))
    if len(top) > 1:
        qs.append("Why does %s spend time with %s?" % (me, top[1]))
    qs.append("What is %s most focused on these days?" % me)
    return {'questions': qs[:max(1, mx or 3)]}


def k_insights(P, rng, schema):
    me = P.me
    nums = []
    for l in P.lines:
        m = re.match(r"^\s*(\d+)\.\s+(.*)$", l)
        if m:
            nums.append((int(m.group(1)), m.group(2)))
    try:
        ins = resolve(resolve(schema['properties']['insights'], schema)['items'], schema)
        ev_enum = ins['properties']['evidence']['items'].get('enum') or list(range(1, 11))
    except Exception:
        ev_enum = [n for n, _ in nums] or [1]
    qs = re.findall(r'^\s*-?\s*(?:Question:\s*)?"(.*\?)"\s*$', P.user, re.M)
    out = []
    for q in qs[:3] or ['']:
        rel = [(n, t) for n, t in nums if set(words(q)) & set(words(t))] or nums[:3]
        for k in range(rng.choice([1, 2])):
            pick = rel[k::2][:3] or nums[:2]
            evid = [n for n, _ in pick] or [ev_enum[0]]
            if rng.random() < 0.10:
                evid = [min(max(ev_enum), e + 1) for e in evid]
            evid = [e for e in evid if e in ev_enum] or [ev_enum[0]]
            t = pick[0][1] if pick else ''
            t = re.sub(r"^\[[^\]]*\]\s*", '', t)
            sectors = set(x.split(':')[1].strip() for x in P.places if x.count(':') == 2)
            who = next((n for n in (re.sub(r"'s$", '', x) for x in re.findall(r"[A-Z][a-z'-]+ [A-Z][a-z'-]+", t)) if n != me and n not in sectors), '')  # fix F4
            if who:
                s = "%s keeps in regular contact with %s." % (me, who)
                about = who
            elif re.search(r"hold|event|evening", t, re.I):
                s = "%s is keen to share the event with everyone she meets." % me if rng.random() < 0.5 else "%s has an upcoming event on their mind." % me
                about = 'the event'
            else:
                s = "%s is mostly caught up in the daily routine." % me
                about = 'daily routine'
            out.append({'insight': s, 'about': about[:60], 'evidence': evid[:10], 'importance': rate(t, rng)})
    return {'insights': out[:15] or [{'insight': "%s is mostly caught up in the daily routine." % me, 'about': 'routine', 'evidence': [ev_enum[0]], 'importance': 3}]}


def k_replan(P, rng, schema):
    try:
        bl = resolve(resolve(schema['properties']['new_blocks'], schema)['items'], schema)
        starts = bl['properties']['start']['enum']
        addrs = bl['properties']['address']['enum']
    except Exception:
        starts, addrs = [hhmm(P.now_min or 600)], P.places
    m = re.search(r"changed [^:]*plans?: ([^\n]*)", P.user)
    cause = m.group(1) if m else ''
    parts = [p.strip() for p in cause.split(';') if p.strip()]
    new_act = parts[-1] if parts else 'seeing what is going on'
    place = match_place(cause, addrs) or addrs[0]
    blocks = [{'start': starts[0], 'activity': new_act[:120], 'emoji': emoji_for(new_act), 'address': place}]
    if len(starts) > 6:
        blocks.append({'start': starts[min(len(starts) - 1, 6)], 'activity': 'getting back to what I was doing', 'emoji': '🔧', 'address': addrs[0]})
    return {'new_blocks': blocks}


def k_address(P, rng, schema):
    m = re.search(r'about to do this:\s*"([^"]*)"', P.user)
    act = m.group(1) if m else ''
    opts = resolve(schema['properties']['place'], schema).get('anyOf') or []
    here = None
    mh = re.search(r"^\s*-\s*(.+?) \(here\)", P.user, re.M)
    ctx = act + ' ' + P.field('Currently', P.me)
    best, bs = None, -1
    for o in opts:
        o = resolve(o, schema)
        pr = o.get('properties', {})
        sec = pr.get('sector', {}).get('enum', [''])[0]
        ar = pr.get('arena', {}).get('enum', [''])[0]
        objs = [x for x in pr.get('object', {}).get('enum', ['']) if x]
        sc = len(set(words(act)) & set(words(sec + ' ' + ar + ' ' + ' '.join(objs))))
        if ar and ar.lower() in ctx.lower() and sec.lower() in ctx.lower():
            sc += 3
        if mh and sec == mh.group(1).strip():
            sc += 0.5
        if sc > bs:
            obj = next((x for x in objs if x in act.lower()), '')
            best, bs = {'sector': sec, 'arena': ar, 'object': obj}, sc
    return {'place': best}


# ----------------------------------------------------------------------------- whole conversations
def simulate(P, people, rng, max_lines, news):
    dialog = []
    ctx = {'news': news}
    order = list(people)
    # talk decision
    flagged_any = any(news.get(p, (None, False))[1] for p in people)
    cold = any(valence(P, people[0], q) == 'cold' for q in people[1:])
    p_talk = (0.92 if flagged_any else 0.55) * (0.4 if cold else 1.0)
    if rng.random() >= p_talk:
        return False, []
    # section mix-up (B7)
    if len(people) >= 2 and rng.random() < 0.05:
        holders = [p for p in people if news.get(p, (None, False))[0] is not None]
        empties = [p for p in people if news.get(p, (None, False))[0] is None]
        if holders and empties:
            news = dict(news)
            news[empties[0]] = news[holders[0]]
            ctx['news'] = news
    n_target = rng.randint(2, max_lines)
    i = 0
    ended = set()
    while len(dialog) < n_target:
        me = order[i % len(order)]
        i += 1
        if me in ended:
            if len(ended) >= len(order) - 1:
                break
            continue
        others = [p for p in people if p != me]
        txt, end = gen_line(P, me, others, dialog, rng, ctx)
        dialog.append((me, txt[:300]))
        if end and len(dialog) >= 2:
            if len(people) == 2:
                break
            ended.add(me)
    if len(dialog) < 2:
        other = people[1]
        dialog.append((other, small_talk(P, other, people[0], rng, 1)))
    return True, dialog


def k_pair_summary(P, rng, schema):
    try:
        sp = resolve(resolve(schema['properties']['lines'], schema)['items'], schema)['properties']['speaker']['enum']
    except Exception:
        sp = P.persons[:2]
    people = [P.me] + [x for x in sp if x != P.me]
    people = people[:2] if len(people) >= 2 else people + ['someone']
    mx = schema['properties']['lines'].get('maxItems', 6)
    news = {p: news_of(P, p) for p in people}
    talk, dialog = simulate(P, people, rng, mx, news)
    if not talk:
        return {'talk': False, 'lines': [], 'first': None, 'second': None}
    out = {'talk': True, 'lines': [{'speaker': s, 'text': t} for s, t in dialog]}
    for key, who in (('first', people[0]), ('second', people[1])):
        sub = resolve(schema['properties'][key], schema)
        en = None
        for o in sub.get('anyOf', [sub]):
            ro = resolve(o, schema)
            if ro.get('type') == 'object':
                en = ro['properties']['plan_place'].get('enum')
        out[key] = make_memo(P, who, dialog, rng, places=[e for e in (en or P.places) if e])
    return out


def k_group_summary(P, rng, schema):
    try:
        sp = resolve(resolve(schema['properties']['lines'], schema)['items'], schema)['properties']['speaker']['enum']
    except Exception:
        sp = P.persons
    people = [P.me] + [x for x in sp if x != P.me]
    mx = schema['properties']['lines'].get('maxItems', 10)
    news = {p: news_of(P, p) for p in people}
    talk, dialog = simulate(P, people, rng, mx, news)
    if not talk:
        return {'talk': False, 'lines': [], 'memos': []}
    try:
        en = resolve(resolve(schema['properties']['memos'], schema)['items'], schema)['properties']['plan_place']['enum']
    except Exception:
        en = P.places
    memos = []
    for who in people:
        mm = make_memo(P, who, dialog, rng, places=[e for e in en if e])
        mm['name'] = who
        memos.append(mm)
    return {'talk': True, 'lines': [{'speaker': s, 'text': t} for s, t in dialog], 'memos': memos}


def partners(P):
    m = re.search(re.escape(P.me) + r" is talking with ([^.\n]+)\.", P.user)
    out = []
    if m:
        for n in re.split(r",\s*|\s+and\s+", m.group(1)):
            n = n.strip()
            if n and n != P.me:
                out.append(n)
    if not out:
        for s, _ in P.dialog():
            if s != P.me and s not in out:
                out.append(s)
    if not out:
        m = re.search(r"If ([A-Z][\w'-]+(?: [A-Z][\w'-]+)*) invites", P.user)
        if m:
            out.append(m.group(1))
    return out


def k_turn_text(P, rng):
    others = partners(P)
    dialog = P.dialog()
    news = {P.me: news_of(P, P.me)}
    txt, end = gen_line(P, P.me, others, dialog, rng, {'news': news})
    return txt, end


def k_group_turn(P, rng, schema):
    enum = schema['properties']['addressed_to'].get('enum') or ['everyone']
    others = partners(P) or [e for e in enum if e != 'everyone']
    dialog = P.dialog()
    news = {P.me: news_of(P, P.me)}
    txt, end = gen_line(P, P.me, others, dialog, rng, {'news': news})
    last = next((s for s, _ in reversed(dialog) if s != P.me), None)
    to = last if (last in enum and rng.random() < 0.6) else ('everyone' if 'everyone' in enum else enum[0])
    return {'utterance': txt[:400], 'addressed_to': to, 'end_conversation': bool(end)}


def k_memo(P, rng):
    dialog = P.dialog()
    return make_memo(P, P.me, dialog, rng)


# ----------------------------------------------------------------------------- dispatch
LONG = {'daily', 'decompose', 'insights', 'pair', 'group', 'replan'}


def build(P, rng):
    s = P.schema
    if s is None:
        return 'text', k_turn_text(P, rng)
    pr = props(s)
    if pr == {'ok'}:
        return 'probe', {'ok': True}
    if 'answer' in pr:
        return 'interview', k_interview(P, rng)
    if pr == {'importance'}:
        return 'importance', k_importance(P, rng)
    if 'ratings' in pr:
        n = s['properties']['ratings'].get('minItems')
        return 'batch', k_batch(P, rng, n)
    if 'currently' in pr:
        return 'currently', k_currently(P, rng)
    if 'blocks' in pr:
        return 'daily', k_daily(P, rng, s)
    if 'steps' in pr:
        return 'decompose', k_decompose(P, rng, s)
    if 'choice' in pr:
        return 'react', k_react(P, rng)
    if pr == {'summary'}:
        return 'relationship', k_relationship(P, rng)
    if 'questions' in pr:
        return 'questions', k_questions(P, rng, s['properties']['questions'].get('maxItems', 3))
    if 'insights' in pr:
        return 'insights', k_insights(P, rng, s)
    if 'new_blocks' in pr:
        return 'replan', k_replan(P, rng, s)
    if 'utterance' in pr:
        return 'group_turn', k_group_turn(P, rng, s)
    if 'memos' in pr:
        return 'group', k_group_summary(P, rng, s)
    if 'first' in pr and 'lines' in pr:
        return 'pair', k_pair_summary(P, rng, s)
    if 'plan_date' in pr:
        return 'memo', k_memo(P, rng)
    if 'place' in pr:
        return 'address', k_address(P, rng, s)
    return 'other', default_for(s, s, rng)


def malformed_json(txt, kind, P, rng):
    f = 0.5 if P.retry else 1.0
    cut_p = (0.03 if kind in LONG else 0.015) * f
    run_p = 0.010 * f
    limit = int(P.max_tokens * 3.6)
    if len(txt) > limit:
        return txt[:limit]
    r = rng.random()
    if r < cut_p and len(txt) > 10:
        return txt[:rng.randint(int(len(txt) * 0.3), int(len(txt) * 0.9))]
    if r < cut_p + run_p and len(txt) > 10:
        k = rng.randint(int(len(txt) * 0.3), int(len(txt) * 0.8))
        return txt[:k] + '\n' * max(1, min(limit - k, 2000))
    return txt


def respond(body, seed=0):
    try:
        msgs = body.get('messages') if isinstance(body, dict) else None
        h = hashlib.sha256((json.dumps(msgs, sort_keys=True, ensure_ascii=False) + '|' + str(seed)).encode('utf-8')).hexdigest()
        rng = random.Random(int(h[:16], 16))
    except Exception:
        rng = random.Random(seed)
    P = None
    try:
        P = Prompt(body)
        kind, val = build(P, rng)
        if kind == 'text':
            txt, end = val
            f = 0.5 if P.retry else 1.0
            r = rng.random()
            if r < 0.005 * f:
                return "I'm sorry, but I can't continue this roleplay."
            tag = '[end]' if end else '[continue]'
            if r < 0.045 * f:
                txt = P.me + ': ' + txt
            elif r < 0.065 * f:
                txt = '"' + txt + '"'
            if rng.random() < 0.03 * f:
                return txt
            out = txt + '\n' + tag
            if rng.random() < 0.015 * f:
                oth = partners(P)
                out += '\n' + (oth[0] if oth else 'Them') + ': "' + rng.choice(["See you then.", "That sounds good.", "Oh, really?"]) + '"'
            return out
        val = fit(val, P.schema, P.schema)
        if rng.random() < 0.003:
            for k, v in val.items():
                if isinstance(v, str) and k not in ('plan_date', 'plan_start', 'plan_place', 'addressed_to', 'choice', 'start'):
                    sub = (P.schema.get('properties') or {}).get(k, {})
                    if 'enum' not in sub and 'pattern' not in sub:
                        val[k] = "I'm sorry, I can't help with that."[:sub.get('maxLength', 200)]
                        break
        txt = json.dumps(val, ensure_ascii=False)
        return malformed_json(txt, kind, P, rng)
    except Exception:
        try:
            if isinstance(body, dict) and body.get('response_format'):
                s = (body['response_format'].get('json_schema') or {}).get('schema') or {}
                return json.dumps(fit(default_for(s, s, rng), s, s), ensure_ascii=False)
        except Exception:
            pass
        if isinstance(body, dict) and body.get('response_format'):
            return '{}'
        return "Sorry, what was that?\n[continue]"
