"""blind35: a blind stand-in for a local chat model, written only from captured request bodies.

DECLARED MODEL
  A 24B dense open-weights instruct model (Mistral-Small-3.1-24B-Instruct class, Q4_K_M GGUF), served
  by LM Studio (llama.cpp engine) on a developer desktop, one model loaded, the app's default load
  settings: context length 4096 tokens, no KV-cache tricks, OpenAI-compatible /v1/chat/completions.

SERVING STACK (what LM Studio does with the request)
  S1  response_format json_schema -> a GBNF grammar (llama.cpp json-schema-to-grammar).  ENFORCED:
      type, properties (emitted in schema order, required ones first), required, additionalProperties
      false, enum, const, anyOf/oneOf (first matching branch), $ref/$defs, items, minItems/maxItems,
      string minLength/maxLength, string pattern (anchored), integer minimum/maximum.  IGNORED: title,
      description, default, uniqueItems, format meaning, every semantic constraint written in prose
      (times in order, no gaps, durations that add up, "one of the days offered" beyond the enum).
      So JSON answers always parse and validate UNLESS generation stops early (S3/S4) or loops (S5).
      The content inside the grammar is the model's own: wrong-but-allowed choices happen (M-rules).
  S2  Plain-text request (no response_format): free text, no grammar. Format slips at the rates in T1.
  S3  max_tokens: generation stops at max_tokens; the text is cut there (truncated JSON, no closing
      braces).  Token estimate: chars/3.6 for prose prompts, chars/3.2 for generated JSON.
  S4  Context 4096 tokens.  Prompt tokens = chars/3.6 + 12 per message (chat template).  A prompt
      longer than 4096 is rejected by LM Studio with an HTTP error ("tokens to keep ... greater than
      the context length"); respond() returns "" for it (no message content).  If prompt fits but
      prompt + answer would pass 4096, the answer is cut at the context end (like S3).  A max_tokens
      larger than the context is simply not reachable.
  S5  Degenerate decoding under a grammar (whitespace/newline run or a repeated array item until the
      token limit): p = 0.006 per JSON request at temperature > 0 -> output cut as in S3.
  S6  temperature: 0 -> greedy: the same text for every seed (the seed is ignored).  > 0: the seed
      and the body pick the sample; rates below are per request at the body's temperature (0.7 here).
  S7  Output JSON layout: compact one-line json with ", " and ": " separators; multi-field nested
      objects are pretty-printed (indent 2) with p = 0.3.  Non-ASCII (emoji) is written raw.

HOW THE MODEL READS (M-rules)
  M1  Long prompts, facts in the middle: a fact (a news line, a memory that answers the question) that
      sits in the middle 60% of a prompt longer than 1,500 tokens is missed with p = 0.2 (p = 0.3 over
      3,000 tokens).  Instructions at the end are followed (formats, the "Answer as" shape).
  M2  Dates: an explicit date (2026-04-16, April 16, Thursday April 16) wins over a relative word; when a
      remembered line says "tomorrow"/"today" and also gives the explicit date, the model reads the
      relative word against the current day instead with p = 0.08 (off-by-one day).
  M3  Times in any style are read ("5 pm", "17:00", "half past five", "11.30 a.m.", "noon",
      "at sundown" = 20:00, "after work" = the end of the persona's work hours, "evening" = 19:00).
      A bare hour 1-7 with no am/pm, said of an event, is taken as pm.
  M4  Places: chosen from the schema's enum by word overlap with the event text / activity; with no
      overlap the persona's current or home place.  With no enum, the words of the text are paraphrased
      ("the loft at the mill").
  M5  People: names are the capitalised full names in the persona, memories and schema enums.

CHARACTER AND CONVERSATION (C-rules)
  C1  Speaks in the first person, one or two short sentences, plain register, lightly coloured by the
      traits (warm/talkative -> exclamations and questions; dry/blunt/proud -> short, clipped).
  C2  News it holds (a line that says it has news / an event it hosts / someone told it of an event)
      that has not yet come up in the conversation: brought up at its first turn with p = 0.6 when
      nobody has spoken yet (greeting + news), p = 0.7 at a later turn, p = 0.35 per turn once it
      already said something else; hosts ask the listener to come (p = 0.9 of those mentions).  Held
      facts are subject to M1 first.
  C3  Paraphrasing an event: relative day word ("tomorrow", "tonight", "on Thursday") p = 0.7, else the
      weekday and date; clock said as "7 pm"/"seven"/"19:00" at random; the time is dropped p = 0.12,
      the place is dropped p = 0.25.
  C4  Answering an invitation (someone asks it to come) or news of an event it is not hosting:
      P(accept) starts at 0.6 for an invitation (0.4 "means to go" for passed-on news);
      +0.15 warm/close relationship words for the inviter, -0.3 grudge/cold words;
      +0.1 sociable traits, -0.1 reserved/proud/blunt traits; -0.15 if the event ends after its
      bedtime; a real commitment (not work, meals, chores, rest, sleep, free time) overlapping the
      event in its plan: P(accept) x 0.25 (it declines or proposes another time).  Clamped 0.05-0.92.
      The decision is a deterministic function of body, seed and these inputs.
  C5  Ending: goodbye after the other said goodbye p = 0.85; else p = 0.12 + 0.12 x (lines so far),
      +0.25 when its plan has something else starting within 20 minutes; after 8 lines p = 0.9.
  C6  Starting to talk when not watched (one-call conversation): p = 0.55, 0.9 if one has news,
      -0.3 if the relationship text shows a grudge; 2-6 lines (group: 3-8).

MEMOS, SUMMARIES, PLANS (P-rules)
  P1  Conversation memo: one sentence from the persona's point of view (first person p = 0.4, else third
      person naming it), with the event's what/when/where when one came up (each detail dropped with
      p = 0.15).  Importance: small talk 2-3, an event heard 4-6, an invitation accepted 5-7.
  P2  Plan change in a memo: filled with p = 0.88 when the persona's own line accepted / said it would go;
      filled anyway with p = 0.06 when an event came up but it did not say yes (over-eager model);
      hosts add their own event p = 0.15.  Date: M2; start: the event start; minutes: event length or
      120; place: M4 over the enum (p = 0.1 left "").
  P3  Daily plan: from the lifestyle (wake, work hours, bed), meals once each, sleep last; an event it
      hosts or has said it will go to today goes in with p = 0.85 (M1 first), at its time and place;
      a gap or overlap between blocks p = 0.08; outline 4-8 items.
  P4  Decompose: 5-15 minute steps, count inside the schema bounds; step activities by the activity's
      kind; durations sum to the window asked with p = 0.7, else near it.  Objects from the enum.
  P5  Reaction: "talk" when it has undelivered news and sees a person, p = 0.6; otherwise "talk" p = 0.18
      (0.05 with a grudge), "wait" p = 0.07, "react" p = 0.05, else "continue".
  P6  Importance rating: keyword scale (routine 1-3, chat 2-4, plans/invitations/news of an event 5-7,
      conflict 5-7, illness/death/love/loss 8-10), +-1 noise p = 0.4.  Batch: one per quoted item, in
      order; the grammar fixes the count.
  P7  Reflection: questions about the people and activities most frequent in the memories; insights
      cite 1-4 statement numbers that share words with them; importance 3-6.
  P8  Interview: answers from matching memories (names or content words of the question); nothing
      matching (or M1 missed it) -> "I don't know/haven't heard".  Knowing a person: relationship words
      from the identity, else "I've seen them about".
  P9  Revise status: keeps the old status's first sentence, adds the held event / plan it agreed to.
  P10 Unknown task: fills the schema from property names and the text (generic writer), still under S1.

TEXT FORMAT SLIPS (plain-text answers, T1)
  T1  The speaker's name in front ("Nell Hebblethwaite: ...") p = 0.04; the words in double quotes
      p = 0.06; a stage direction in brackets p = 0.04; the end/continue tag missing p = 0.04; the tag on
      the same line p = 0.05; a refusal-like reply p = 0.004.
"""
import datetime
import hashlib
import json
import random
import re

CTX = 4096
CH_PER_TOK_IN = 3.6
CH_PER_TOK_OUT = 3.2

MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september',
          'october', 'november', 'december']
MON_ABBR = {m[:3]: i + 1 for i, m in enumerate(MONTHS)}
WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
NUMWORDS = {'one': 1, 'two': 2, 'three': 3, 'four': 4, 'five': 5, 'six': 6, 'seven': 7, 'eight': 8,
            'nine': 9, 'ten': 10, 'eleven': 11, 'twelve': 12}
SAY_NUM = {v: k for k, v in NUMWORDS.items()}
STOP = set('a an the of to in on at and or for with from by is are was were be been it its this that '
           'their they them he she his her him i me my you your we our us as about into over under up '
           'down out off than then so if not no do does did will would can could should just very '
           'there here who what when where which how some any all each one two has have had am pm '
           'today tomorrow'.split())

ORDINARY = ('work', 'working', 'shop', 'open', 'opening', 'keeping', 'lunch', 'dinner', 'breakfast',
            'sleep', 'sleeping', 'relax', 'relaxing', 'free time', 'nap', 'chores', 'reading',
            'waking', 'getting ready', 'tend', 'tending', 'practis', 'farm', 'milking', 'cleaning',
            'seeing people', 'at home', 'cooking', 'resting', 'walk', 'paper', 'leisure')
WARM = ('oldest friend', 'friend', 'warm', 'close', 'fond', 'glad', 'love', 'proud of', 'wife',
        'husband', 'cousin', 'brother', 'sister', 'daughter', 'son ', 'mother', 'father', 'nephew', 'taught', 'helps', 'feeds', 'easy, friendly', 'enjoys', 'gets on')
COLD = ('grudge', 'not spoken', 'never forgiven', 'dislike', 'annoy', 'tension', 'wary', 'resent',
        'war over', 'argue', 'pushing notes', 'worse', 'distracts', 'irritat', 'cross with', 'feud',
        'cold towards', "can't stand", 'angry', 'never liked', 'quarrel', 'bad blood', 'bears a grudge')
SOCIABLE = ('curious', 'talkative', 'warm', 'generous', 'friendly', 'easy-going', 'cheerful',
            'sociable', 'nosy', 'kind', 'outgoing', 'devoted', 'gentle', 'chatty', 'lively')
RESERVED = ('proud', 'blunt', 'stubborn', 'dry', 'shy', 'reserved', 'grumpy', 'exacting', 'sharp',
            'private', 'wary', 'gruff', 'quiet', 'solitary', 'absent-minded')
ACCEPT_WORDS = ("count me in", "i'll be there", "i will be there", "i'll come", "i will come",
                "i'd love to", "i would love to", "i'll go", "i will go", "i think i'll go",
                "wouldn't miss", "i'll try to make it", "see you there", "sounds lovely, i'll",
                "i'm planning to go", "i'll pop", "i'll be along", "i might well go", "i'll join",
                "i mean to go", "yes, i'll", "i'd like to go", "i'll bring", "we'll be there",
                "i'll make it", "i can come", "i'll see you there")
DECLINE_WORDS = ("can't come", "cannot come", "can't make it", "won't make it", "can't go",
                 "not for me", "i'm afraid i", "another time", "sorry, i can't", "i'll pass",
                 "won't be coming", "i won't", "can't manage", "not my sort")
GOODBYE_WORDS = ('bye', 'see you', 'take care', 'must be off', 'should get going', "i'll let you get on",
                 'got to go', 'have to go', 'be off', 'good night', 'goodnight', 'so long', 'cheerio')
INVITE_WORDS = ('come', 'join', 'see you there', 'would you', 'invite', 'welcome', 'hope you can',
                'love to see you', 'you should', 'bring something', 'drop by', 'pop up', 'pop by')

EMOJI = [('sleep', '😴'), ('bed', '😴'), ('wak', '⏰'), ('ready', '🚿'), ('breakfast', '🍳'),
         ('lunch', '🥪'), ('dinner', '🍲'), ('supper', '🍲'), ('tea', '☕'), ('coffee', '☕'),
         ('read', '📖'), ('book', '📖'), ('mill', '⚙️'), ('farm', '🐄'), ('cow', '🐄'), ('milk', '🥛'),
         ('cheese', '🧀'), ('bak', '🍞'), ('bread', '🍞'), ('dairy', '🧀'), ('shop', '🏪'), ('post', '📮'), ('radio', '📻'),
         ('shortwave', '📻'), ('repair', '🔧'), ('mend', '🔧'), ('fix', '🔧'), ('garden', '🌱'),
         ('planter', '🌱'), ('tomato', '🍅'), ('music', '🎵'), ('jazz', '🎷'), ('bass', '🎸'),
         ('practis', '🎵'), ('walk', '🚶'), ('seeing people', '👋'), ('calling on', '👋'),
         ('visit', '👋'), ('relax', '🛋️'), ('free', '🛋️'), ('sheep', '🐑'), ('lamb', '🐑'),
         ('clean', '🧹'), ('tile', '🧱'), ('roof', '🏠'), ('party', '🎉'), ('evening', '🎉'),
         ('capsule', '📦'), ('work', '🛠️')]


# ----------------------------------------------------------------------------- small helpers

def _words(s):
    return re.findall(r"[a-z0-9']+", (s or '').lower())


def _content(s):
    return [w for w in _words(s) if w not in STOP and len(w) > 2]


def _fmt(m):
    m = int(m) % 1440
    return '%02d:%02d' % (m // 60, m % 60)


def _say_clock(m, rng):
    m = int(m) % 1440
    h, mi = m // 60, m % 60
    h12 = h % 12 or 12
    ampm = 'am' if h < 12 else 'pm'
    style = rng.random()
    if style < 0.25:
        return '%02d:%02d' % (h, mi)
    if mi == 0:
        if style < 0.6:
            return '%d %s' % (h12, ampm)
        return SAY_NUM.get(h12, str(h12))
    if mi == 30 and style < 0.6:
        return 'half past %s' % SAY_NUM.get(h12, str(h12))
    return '%d:%02d %s' % (h12, mi, ampm)


def _first(name):
    return (name or '').split(' ')[0] or name


def _has(text, words):
    t = (text or '').lower()
    return any(w in t for w in words)


def _cap(s):
    return s[:1].upper() + s[1:] if s else s


# ----------------------------------------------------------------------------- time and date

_AMPM = r"(a\.?\s?m\.?|p\.?\s?m\.?)"
_TIME_RE = re.compile(
    r"(?P<hm>\b(?P<h1>[01]?\d|2[0-3])[:.](?P<m1>[0-5]\d)\s*" + _AMPM + r"?)"
    r"|(?P<h>\b(?P<h2>1[0-2]|0?[1-9])\s*(?P<ap2>" + _AMPM[1:-1] + r"|o'clock)(?![a-z]))"
    r"|(?P<half>\b(?P<qual>half|quarter)\s+(?P<dir>past|to)\s+(?P<hw>[a-z]+|\d{1,2}))"
    r"|(?P<word>\b(?P<nw>one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(?:o'clock|in the (?P<part>morning|afternoon|evening)))"
    r"|(?P<named>\b(?:noon|midday|midnight|sundown|sunset|dusk|dawn|sunrise|lunchtime|after work|teatime))",
    re.I)


def find_times(text, work_end=None):
    """All clock mentions in text: list of (pos, minutes, explicit_ampm)."""
    out = []
    for m in _TIME_RE.finditer(text or ''):
        try:
            if m.group('hm'):
                h, mi = int(m.group('h1')), int(m.group('m1'))
                ap = (m.group(4) or '').lower().replace('.', '').replace(' ', '')
                if ap == 'pm' and h < 12:
                    h += 12
                if ap == 'am' and h == 12:
                    h = 0
                out.append((m.start(), h * 60 + mi, bool(ap) or h >= 13 or m.group('m1') != '00' or h == 0))
            elif m.group('h'):
                h = int(m.group('h2'))
                ap = (m.group('ap2') or '').lower().replace('.', '').replace(' ', '')
                if ap == 'pm' and h < 12:
                    h += 12
                elif ap == 'am' and h == 12:
                    h = 0
                elif ap == "o'clock" and 1 <= h <= 7:
                    h += 12
                out.append((m.start(), h * 60, ap != "o'clock"))
            elif m.group('half'):
                hw = m.group('hw').lower()
                h = NUMWORDS.get(hw) or (int(hw) if hw.isdigit() else None)
                if h is None:
                    continue
                if 1 <= h <= 7:
                    h += 12
                add = 30 if m.group('qual').lower() == 'half' else 15
                mins = h * 60 + (add if m.group('dir').lower() == 'past' else -add)
                out.append((m.start(), mins % 1440, False))
            elif m.group('word'):
                h = NUMWORDS[m.group('nw').lower()]
                part = (m.group('part') or '').lower()
                if part in ('afternoon', 'evening') and h < 12:
                    h += 12
                elif not part and 1 <= h <= 7:
                    h += 12
                out.append((m.start(), h * 60, False))
            else:
                w = m.group('named').lower()
                val = {'noon': 720, 'midday': 720, 'midnight': 0, 'sundown': 1200, 'sunset': 1200,
                       'dusk': 1200, 'dawn': 360, 'sunrise': 360, 'lunchtime': 750,
                       'teatime': 1020}.get(w)
                if w == 'after work':
                    val = work_end if work_end is not None else 1050
                out.append((m.start(), val, False))
        except Exception:
            continue
    return out


def find_range(text, work_end=None):
    """First (start, end) clock range in text, or (start, None), or (None, None)."""
    ts = find_times(text, work_end)
    if not ts:
        return None, None
    for i in range(len(ts) - 1):
        a, b = ts[i], ts[i + 1]
        between = (text or '')[a[0]:b[0]].lower()
        if b[0] - a[0] < 40 and re.search(r"(-|–|\bto\b|\btill\b|\buntil\b|\band\b)", between):
            s, e = a[1], b[1]
            if e < s and e + 720 > s and not b[2]:
                e += 720
            if not a[2] and s < 720 and e >= 720 and s + 720 < e:
                s += 720
            return s, e
    return ts[0][1], None


_DATE_ISO = re.compile(r"\b(20\d\d)-(\d\d)-(\d\d)\b")
_DATE_MD = re.compile(r"\b(" + '|'.join(m[:3] for m in MONTHS) + r")[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(20\d\d))?", re.I)
_DATE_DM = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + '|'.join(m[:3] for m in MONTHS) + r")[a-z]*\.?(?:,?\s+(20\d\d))?", re.I)


def find_dates(text, year):
    """All explicit dates: list of (pos, date)."""
    out = []
    for m in _DATE_ISO.finditer(text or ''):
        try:
            out.append((m.start(), datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))))
        except Exception:
            pass
    for rx, mo_i, d_i in ((_DATE_MD, 1, 2), (_DATE_DM, 2, 1)):
        for m in rx.finditer(text or ''):
            try:
                mo = MON_ABBR[m.group(mo_i)[:3].lower()]
                y = int(m.group(3)) if m.group(3) else year
                out.append((m.start(), datetime.date(y, mo, int(m.group(d_i)))))
            except Exception:
                pass
    out.sort(key=lambda x: x[0])
    return out


_DAYWORD = re.compile(r"\b(today|tomorrow|tonight|this evening|this afternoon|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I)


def rel_date(text, today):
    """A date named only by a relative word or a weekday."""
    t = (text or '').lower()
    if today is None:
        return None
    if 'day after tomorrow' in t:
        return today + datetime.timedelta(days=2)
    if re.search(r"\btomorrow\b", t):
        return today + datetime.timedelta(days=1)
    if re.search(r"\b(today|tonight|this evening|this afternoon)\b", t):
        return today
    for i, wd in enumerate(WEEKDAYS):
        if re.search(r"\b" + wd + r"\b", t):
            delta = (i - today.weekday()) % 7
            return today + datetime.timedelta(days=delta)
    return None


def event_date(text, today, year, rng):
    ds = find_dates(text, year)
    rd = rel_date(text, today)
    if ds:
        d = ds[0][1]
        if rd is not None and rd != d and rng.random() < 0.08:   # M2
            return rd
        return d
    return rd


def say_day(d, today, rng):
    if d is None:
        return ''
    if today is not None and rng.random() < 0.7:
        diff = (d - today).days
        if diff == 0:
            return 'today'
        if diff == 1:
            return 'tomorrow'
        if 1 < diff < 7:
            return 'on ' + WEEKDAYS[d.weekday()].capitalize()
    return 'on %s %s %d' % (WEEKDAYS[d.weekday()].capitalize(), MONTHS[d.month - 1].capitalize(), d.day)


# ----------------------------------------------------------------------------- reading the prompt

_NAME_RE = re.compile(r"\b([A-Z][a-z'\-]+(?: (?:[A-Z][a-z'\-]+|de|van|von|al|O'[A-Z][a-z]+)){1,2})\b")


class Prompt(object):
    """What the model takes from the messages: persona, people, clock, plan, memories, events."""

    def __init__(self, body, rng):
        self.rng = rng
        msgs = body.get('messages') or []
        self.system = '\n'.join(str(m.get('content') or '') for m in msgs
                                if isinstance(m, dict) and m.get('role') == 'system')
        self.user = '\n'.join(str(m.get('content') or '') for m in msgs
                              if isinstance(m, dict) and m.get('role') != 'system')
        if isinstance(self.user, list):
            self.user = ' '.join(map(str, self.user))
        self.text = self.system + '\n' + self.user
        self.ntok = len(self.text) / CH_PER_TOK_IN + 12 * max(1, len(msgs))
        self.lines = self.user.split('\n')
        yrs = re.findall(r"\b(20\d\d)\b", self.text)
        self.year = int(yrs[0]) if yrs else 2026
        self._people()
        self._clock()
        self._persona()
        self._plan()

    # people ---------------------------------------------------------------
    def _people(self):
        cnt = {}
        for m in _NAME_RE.finditer(self.text):
            cnt[m.group(1)] = cnt.get(m.group(1), 0) + 1
        people = set()
        for n in cnt:
            esc = re.escape(n)
            if re.search(r"(^|\n)\s*(?:name|character)\s*:\s*" + esc, self.text, re.I) or \
               re.search(r"(^|\n)\s*" + esc + r"\s*:\s*[\"“]", self.text) or \
               re.search(esc + r"(?:'s)? (?:is|was|told|says|said|seems|wants|will|has|feels|keeps|runs|farms|mends|makes|taught|plays|lives|grows|started|sees)\b", self.text) or \
               re.search(r"(?:with|asks|told|invited|tell|see|sees|on|and|know|about|like|liked|met|meet|called|named|to|of|by|for|brother|sister|wife|husband|friend|cousin|son|daughter|neighbour) " + esc, self.text):
                in_addr = re.search(r"(?:[A-Za-z]:" + esc + r"(?=:|\b)|" + esc + r":(?=[A-Za-z]))", self.text)
                if not in_addr or re.search(r"(^|\n)\s*" + esc + r"\s*:\s*[\"“]", self.text):
                    people.add(n)
        # a two-word name that is only a prefix of a three-word one is the same person
        self.people = sorted(people, key=lambda n: -cnt.get(n, 0))
        self.name_count = cnt
        me = None
        m = re.search(r"(?i:inner mind of|you are|you play|playing|role of|speak as|act as)\s+([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})", self.system)
        if m:
            me = m.group(1).strip()
        m2 = re.search(r"(^|\n)\s*Name\s*:\s*([^\n]+)", self.user)
        if not me and m2:
            me = m2.group(2).strip()
        if not me:
            me = self.people[0] if self.people else 'I'
        self.me = me
        if me not in self.people:
            self.people.insert(0, me)

    def others(self):
        return [p for p in self.people if p != self.me]

    # clock ------------------------------------------------------------------
    def _clock(self):
        head = self.user[:1500]
        m = re.search(r"(?:it is|today is|now)\b([^\n]{0,80})", head, re.I)
        seg = m.group(1) if m else head
        ds = find_dates(seg, self.year) or find_dates(head, self.year)
        self.today = ds[0][1] if ds else None
        ts = find_times(seg)
        self.now = ts[0][1] if (m and ts) else None

    # persona ----------------------------------------------------------------
    def _field(self, *keys):
        for k in keys:
            m = re.search(r"(^|\n)\s*" + k + r"\s*:\s*([^\n]+)", self.user, re.I)
            if m:
                return m.group(2).strip()
        return ''

    def _persona(self):
        self.traits = [t.strip() for t in re.split(r"[,;/]", self._field('innate traits', 'traits', 'personality')) if t.strip()]
        self.identity = self._field('identity', 'background', 'about')
        self.lifestyle = self._field('lifestyle', 'routine', 'daily routine')
        self.currently = self._field('currently', 'status', 'right now')
        ls = self.lifestyle
        self.wake, self.bed, self.work = 420, 1320, (540, 1020)
        m = re.search(r"(?:wak\w*|gets? up|rises|up at)[^,;]*", ls, re.I)
        if m:
            t = find_times(m.group(0))
            if t:
                self.wake = t[0][1]
        m = re.search(r"bed[^,;]*", ls, re.I)
        if m:
            t = find_times(m.group(0))
            if t:
                self.bed = t[0][1]
        m = re.search(r"from ([^,;]*?) (?:to|till|until) ([^,;]*)", ls, re.I)
        if m:
            a, b = find_times(m.group(1)), find_times(m.group(2))
            if a and b:
                s, e = a[0][1], b[0][1]
                if e <= s and e < 720:
                    e += 720
                self.work = (s, e)
        wm = re.search(r"(?:,|^)\s*([^,]*?)\s+from\s", ls)
        self.work_words = (wm.group(1) if wm else '').strip()
        self.social = sum(1 for t in self.traits if any(s in t.lower() for s in SOCIABLE)) - \
            sum(1 for t in self.traits if any(s in t.lower() for s in RESERVED))

    # plan -------------------------------------------------------------------
    def _plan(self):
        self.plan = []   # (start, end, activity, place, date)
        for ln in self.lines:
            s = ln.strip()
            m = re.match(r"^[-*•]?\s*(\d{1,2}:\d{2})\s*(?:-|–|to)\s*(\d{1,2}:\d{2})\s+(.*)$", s)
            if not m:
                continue
            a, b = find_times(m.group(1)), find_times(m.group(2))
            if not a or not b:
                continue
            rest = m.group(3)
            place = ''
            pm = re.search(r"\((?:planned )?(?:at |in )?([^()]*)\)", rest)
            if pm:
                place = pm.group(1)
            act = re.sub(r"\s*\(.*?\)", '', rest).strip()
            on = re.search(r"\)\s*on\s+(.*)$", rest)
            d = None
            if on:
                dd = find_dates(on.group(1), self.year)
                d = dd[0][1] if dd else rel_date(on.group(1), self.today)
            self.plan.append((a[0][1], b[0][1], act, place, d))

    def person_block(self, who):
        """Lines of the prompt that belong to one person's sections."""
        out = []
        cur = None
        for ln in self.lines:
            s = ln.strip()
            if not s:
                continue
            if not s.startswith('-') and not re.match(r"^\d+\.", s):
                owner = None
                for p in self.people:
                    if s.startswith(p) or re.match(r"^(?:name|what|how|places|things)\b[^:]*\b" + re.escape(p), s, re.I):
                        owner = p
                        break
                cur = owner if owner else (cur if s.endswith(':') is False and owner is None and cur else None)
                if owner:
                    out.append(s)
                continue
            if cur == who:
                out.append(s)
        return '\n'.join(out)

    def relation_text(self, other):
        """Everything the prompt says about me and the other person together."""
        parts = []
        for sent in re.split(r"(?<=[.;!?])\s+|\n", self.text):
            if _first(other) in sent or other in sent:
                parts.append(sent)
        return ' '.join(parts)

    def attitude(self, other):
        t = self.relation_text(other).lower()
        w = sum(1 for x in WARM if x in t)
        c = sum(1 for x in COLD if x in t)
        return (1 if w > c else 0) - (1 if c > 0 and c >= w else 0)

    def position_missed(self, pos):
        """M1: a fact in the middle of a long prompt is missed."""
        if self.ntok < 1500:
            return False
        frac = pos / float(max(1, len(self.text)))
        if 0.2 < frac < 0.8:
            return self.rng.random() < (0.3 if self.ntok > 3000 else 0.2)
        return False


# ----------------------------------------------------------------------------- events

_HOSTVERB = r"(?:hold|holds|holding|host|hosts|hosting|throw|throwing|run|running|organi[sz]e|organi[sz]ing|give|giving|put on|putting on|have|having|start|starting)"
_PREVERB = r"(?:(?:wants to|will|is going to|are going to|am going to|'m going to|plans to|is planning to|is getting ready to|'s|'m|am|is|are|'ll|we're|shall)\s+){0,3}"
_GENERIC = set('evening event night party gathering thing something day afternoon morning little small new '
               'wants hold host going come people everyone anyone bring'.split())
_BOUND = re.compile(r"\s+(?:in|at|on|from|under|so|for|with|this|next|tomorrow|today|tonight|between|until|till|up)\b|[,.;:!?(\"“”]")


class Event(object):
    def __init__(self, line, p, ref=None):
        self.line = line
        self.host = None
        self.title = ''
        self.verbal = False
        self._title(line, p)
        self.date = event_date(line, ref or p.today, p.year, p.rng)
        self.start, self.end = find_range(line, p.work[1])
        self.place = self._place(line)
        self.keys = [w for w in _content(self.title) if w not in _GENERIC] or _content(self.title)[:2]

    def _title(self, line, p):
        s = line
        s = re.sub(r"^\s*[-*•]\s*", '', s)
        s = re.sub(r"^\[[^\]]*\]\s*", '', s)
        names = '|'.join(re.escape(n) for n in sorted(p.people, key=len, reverse=True)) or 'XXXX'
        # a quoted speaker: "I" means the speaker
        qm = re.search(r"(" + names + r")\s*:\s*[\"“]([^\"”]*)", s)
        speaker = None
        if qm and re.search(r"\b(I|I'm|I'll|we're|we)\b", qm.group(2)):
            speaker = qm.group(1)
        s2 = re.sub(r"^.*?\btold\s+(?:" + names + r"|me|him|her|them)\s*(?:about|:|that)?\s*", '', s)
        rx = re.compile(r"(" + names + r"|\bI\b|\bwe\b|\bI'm|\bwe're)\s*(" + _PREVERB + r")(\w+(?: on)?)\s+(.*)")
        for st in [mm.start() for mm in re.finditer(r"(" + names + r"|\bI\b|\bwe\b|\bI'm|\bwe're)", s2)]:
            m = rx.match(s2, st)
            if not m:
                continue
            who, pre, verb, rest = m.group(1), m.group(2) or '', m.group(3).lower(), m.group(4)
            if who in ('I', "I'm", 'we', "we're"):
                who = speaker
            future = re.search(r"(will|wants to|going to|plans to|planning to|ready to|'ll|shall)", pre)
            if re.match(_HOSTVERB + r"$", verb) and (pre or verb.endswith('ing') or who):
                self.host = who
                self.title = self._cut(rest)
            elif future and verb not in ('be', 'go', 'come', 'see', 'have', 'get', 'do', 'try', 'let', 'make', 'take', 'tell', 'ask', 'bring'):
                self.host = who
                self.title = self._cut(verb + ' ' + rest)
                self.verbal = True
            if self.title:
                return
        m = re.search(r"(?:about|of|news on their mind|news)\s*:?\s*((?:a|an|the)\s+.*)", s2, re.I)
        if m:
            self.title = self._cut(m.group(1))
            return
        m = re.search(r"\b((?:a|an)\s+[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3})", s2)
        if m and re.search(r"\b(news|told|heard|invit|hold|host|come|join|event|about|welcome)", s2, re.I) and \
                not re.search(r"\([^()]*" + re.escape(m.group(1)) + r"[^()]*\)", s2):
            self.title = self._cut(m.group(1))

    @staticmethod
    def _cut(rest):
        mm = _BOUND.search(' ' + rest)
        t = (' ' + rest)[:mm.start()] if mm else ' ' + rest
        ws = t.split()[:6]
        return ' '.join(ws).strip()

    @staticmethod
    def _place(line):
        m = re.search(r"\b(?:in|at|up on|on)\s+(the\s+[a-z][\w' ]{2,30}?(?:\s+(?:of|at)\s+(?:the\s+)?[A-Z][\w' ]{2,30}?)?)(?=\s*(?:,|\.|\(|\)| from | on | so | to | tomorrow| today| and |$))", line)
        if m and not re.search(r"\d", m.group(1)):
            return m.group(1).strip()
        m = re.search(r"\bat\s+([A-Z][\w' ]{2,30}?)\s*\(([a-z][\w ]{1,20})\)", line)
        if m:
            return 'the %s at %s' % (m.group(2), m.group(1))
        return ''

    def noun(self):
        t = self.title or 'something'
        if self.verbal and self.host:
            return t
        return t

    def mentioned_in(self, text):
        t = (text or '').lower()
        if any(k in t for k in self.keys if len(k) > 3):
            return True
        return False

    def complete(self):
        return (self.date is not None) + (self.start is not None) + (self.end is not None) + bool(self.place)


def find_events(p):
    """Event mentions in the prompt: lines with a day and a clock time that are not schedules."""
    evs = []
    pos = 0
    for ln in p.lines:
        start_pos = p.text.find(ln, pos) if ln else -1
        s = ln.strip()
        if len(s) < 12:
            continue
        stamp = re.search(r"\[([^\]]*)\]", s)
        ref = None
        if stamp:
            sd = find_dates(stamp.group(1), p.year)
            ref = sd[0][1] if sd else None
        body = re.sub(r"\s*\[[^\]]*\]\s*", ' ', re.sub(r"^\s*[-*•]\s*", '', s)).strip()
        if re.match(r"^[-*•]?\s*\d{1,2}:\d{2}\s*(-|–|to)", s):
            continue
        ts = find_times(body, p.work[1])
        if not ts or len(ts) > 3:
            continue
        has_day = bool(find_dates(body, p.year)) or bool(_DAYWORD.search(body))
        if not has_day:
            continue
        if re.search(r"\bno news\b", body, re.I):
            continue
        if p.now is not None and p.today is not None and ts[0][1] == p.now and start_pos < 400 and \
                any(d == p.today for _, d in find_dates(body, p.year)):
            continue
        e = Event(body, p, ref)
        if not e.title or not e.keys:
            continue
        if any(n in e.title or _first(n) + ' ' in e.title + ' ' for n in p.people):
            continue
        e.pos = max(0, start_pos)
        e.news = bool(re.search(r"\bnews\b", body, re.I))
        owner = None
        for n in p.people:
            i = body.find(n)
            if i >= 0 and (owner is None or i < owner[0]):
                owner = (i, n)
        e.owner = owner[1] if owner else p.me
        if e.news:
            mm = re.search(r"(" + '|'.join(re.escape(n) for n in p.people) + r")\s+has news", body)
            if mm:
                e.owner = mm.group(1)
        e.told = bool(re.search(r"\b(told|heard|said|says)\b", body, re.I))
        if e.host is None and re.search(r"\b(own event|they are hosting|is hosting|their own|his own|her own)\b", body, re.I):
            e.host = e.owner
        evs.append(e)
    # merge duplicates (same distinctive words): keep the most complete, note any news flag/host
    merged = []
    for e in evs:
        for m in merged:
            if set(e.keys) & set(m.keys):
                m.all.append(e)
                if e.complete() > m.best.complete():
                    m.best = e
                break
        else:
            class _G(object):
                pass
            g = _G()
            g.best, g.all, g.keys = e, [e], e.keys
            merged.append(g)
    out = []
    for g in merged:
        b = g.best
        b.host = b.host or next((x.host for x in g.all if x.host), None)
        b.newsholders = set(x.owner for x in g.all if x.news)
        b.lines = [x.line for x in g.all]
        b.pos = g.all[0].pos
        for x in g.all:
            if b.date is None and x.date is not None:
                b.date = x.date
            if b.start is None and x.start is not None:
                b.start, b.end = x.start, x.end
            elif b.end is None and x.end is not None and x.start == b.start:
                b.end = x.end
            if not b.place and x.place:
                b.place = x.place
        out.append(b)
    return out


def news_of(p, who, events):
    """C2: the event `who` has on their mind (M1 applied), or None."""
    cands = [e for e in events if who in e.newsholders]
    if not cands:
        cands = [e for e in events if e.host == who]
    if not cands:
        return None
    e = cands[0]
    if p.position_missed(e.pos):
        return None
    return e


def real_clash(p, ev, plan=None):
    """A real commitment in the plan overlapping the event (not ordinary activity)."""
    if ev.start is None:
        return None
    end = ev.end if ev.end is not None else ev.start + 120
    for (s, e, act, place, d) in (plan if plan is not None else p.plan):
        if d is not None and ev.date is not None and d != ev.date:
            continue
        if d is None and ev.date is not None and p.today is not None and ev.date != p.today:
            continue
        ee = e if e > s else e + 1440
        if s < end and ee > ev.start:
            a = act.lower()
            if _has(a, ev.keys):
                continue
            if not _has(a, ORDINARY) or _has(a, ('calling on', 'meeting', 'appointment', 'hosting', 'going to')):
                return act
    return None


def p_attend(p, ev, inviter, invited, plan=None, traits_social=None, bed=None):
    """C4: probability of accepting / meaning to go."""
    pr = 0.6 if invited else 0.4
    if inviter:
        att = p.attitude(inviter)
        pr += 0.15 if att > 0 else (-0.3 if att < 0 else 0)
    soc = p.social if traits_social is None else traits_social
    pr += 0.1 if soc > 0 else (-0.1 if soc < 0 else 0)
    b = p.bed if bed is None else bed
    if ev.end is not None and b is not None and b > 600 and ev.end > b:
        pr -= 0.15
    if real_clash(p, ev, plan):
        pr *= 0.25
    return max(0.05, min(0.92, pr))


# ----------------------------------------------------------------------------- speech

def parse_plan_lines(lines, p):
    out = []
    for ln in lines:
        s = ln.strip()
        m = re.match(r"^[-*•]?\s*(\d{1,2}:\d{2})\s*(?:-|–|to)\s*(\d{1,2}:\d{2})\s+(.*)$", s)
        if not m:
            continue
        a, b = find_times(m.group(1)), find_times(m.group(2))
        if not a or not b:
            continue
        rest = m.group(3)
        pm = re.search(r"\((?:planned )?(?:at |in )?([^()]*)\)", rest)
        place = pm.group(1) if pm else ''
        act = re.sub(r"\s*\(.*?\)", '', rest.split('(')[0] if '(' in rest else rest).strip()
        on = re.search(r"\)\s*on\s+(.*)$", rest)
        d = None
        if on:
            dd = find_dates(on.group(1), p.year)
            d = dd[0][1] if dd else rel_date(on.group(1), p.today)
        out.append((a[0][1], b[0][1], act, place, d))
    return out


def when_phrase(ev, p, rng, drop=True):
    parts = []
    day = say_day(ev.date, p.today, rng)
    if day:
        parts.append(day)
    if ev.start is not None and not (drop and rng.random() < 0.12):
        if ev.end is not None and rng.random() < 0.5:
            parts.append('from %s to %s' % (_say_clock(ev.start, rng), _say_clock(ev.end, rng)))
        else:
            parts.append('at ' + _say_clock(ev.start, rng))
    if ev.place and not (drop and rng.random() < 0.25):
        parts.append(('in ' if ev.place.lower().startswith('the ') else 'at ') + ev.place)
    return ' '.join(parts)


def _event_said(ev):
    t = ev.title
    if not t:
        return 'something'
    return t


def news_sentence(p, me, ev, listener, rng, host_invites=True):
    w = when_phrase(ev, p, rng)
    lf = _first(listener) if listener and listener != 'everyone' else ''
    if ev.host == me:
        if ev.verbal:
            s = "I'm going to %s %s" % (_event_said(ev), w)
        else:
            s = "I'm holding %s %s" % (_event_said(ev), w)
        s = s.strip() + '.'
        if host_invites and rng.random() < 0.9:
            s += rng.choice([" I'd love to see you there%s." % (', ' + lf if lf else ''),
                             " Will you come%s?" % (', ' + lf if lf else ''),
                             " Do come along if you can."])
        return s
    host = _first(ev.host) if ev.host and ev.host != listener else ''
    if host and ev.verbal:
        core = "%s is going to %s %s" % (host, _event_said(ev), w)
    elif host:
        core = "%s is holding %s %s" % (host, _event_said(ev), w)
    else:
        core = "there's %s %s" % (_event_said(ev), w)
    return rng.choice(["Have you heard? %s." % _cap(core.strip()),
                       "Did you know %s?" % core.strip(),
                       "I heard %s." % core.strip()])


def my_status(p, who, currently):
    c = (currently or '').strip()
    if not c:
        return ''
    sent = re.split(r"(?<=\.)\s+", c)[0]
    sent = re.sub(r"^" + re.escape(who) + r"\s+(is|has|fears|wants|thinks)\b", lambda m: {'is': "I'm", 'has': "I've"}.get(m.group(1), 'I ' + m.group(1)[:-1] if m.group(1).endswith('s') else 'I'), sent)
    sent = re.sub(r"^" + re.escape(_first(who)) + r"\s+is\b", "I'm", sent)
    sent = re.sub(r"\b(his|her|their)\b", 'my', sent)
    sent = sent.replace(who, 'I')
    return sent.rstrip('.')


def parse_convo(text, people):
    out = []
    names = '|'.join(re.escape(n) for n in sorted(people, key=len, reverse=True))
    if not names:
        return out
    for ln in text.split('\n'):
        m = re.match(r"^\s*(" + names + r")\s*:\s*[\"“](.*?)[\"”]?\s*$", ln)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def _greet(p, other, rng):
    t = p.now if p.now is not None else 600
    g = 'Morning' if t < 720 else ('Afternoon' if t < 1080 else 'Evening')
    return rng.choice(['%s, %s.' % (g, _first(other)), 'Hello, %s!' % _first(other),
                       'Good %s, %s.' % (g.lower() if g != 'Afternoon' else 'afternoon', _first(other)),
                       'Hi %s, how are you?' % _first(other)])


def _goodbye(other, rng):
    o = _first(other) if other and other != 'everyone' else ''
    return rng.choice(["Well, I'd best get on. See you later%s." % (', ' + o if o else ''),
                       "Right, I must be off. Take care%s." % (', ' + o if o else ''),
                       "Good talking to you%s. Bye for now!" % (', ' + o if o else ''),
                       "I'll let you get on. Bye%s." % (', ' + o if o else '')])


def _smalltalk(p, me, other, currently, rng, dry, said=()):
    for _ in range(6):
        s = _smalltalk1(p, me, other, currently, rng, dry)
        if not any(s in x for x in said):
            return s
    return rng.choice(['Mm.', 'Quite so.', 'Well, there you are.'])


def _smalltalk1(p, me, other, currently, rng, dry):
    st = my_status(p, me, currently)
    opts = []
    if st:
        opts.append('%s, as it happens.' % _cap(st) if not dry else _cap(st) + '.')
        opts.append('Busy as ever. %s.' % _cap(st))
    opts += ['How are things with you, %s?' % _first(other), 'Keeping well, I hope?',
             "Not much to report here, %s." % _first(other)]
    if dry:
        opts += ['Can\'t complain.', 'Same as ever.']
    else:
        opts += ["It's lovely to see you!", 'What have you been up to?']
    return rng.choice(opts)


class Speaker(object):
    """A speaking persona inside a prompt: who, whom, what news, plan, traits."""

    def __init__(self, p, who, events, plan=None, currently=None, traits=None, bed=None):
        self.p, self.who = p, who
        self.events = events
        self.news = news_of(p, who, events)
        self.plan = plan if plan is not None else p.plan
        self.currently = currently if currently is not None else p.currently
        self.traits = traits if traits is not None else p.traits
        self.social = sum(1 for t in self.traits if any(s in t.lower() for s in SOCIABLE)) - \
            sum(1 for t in self.traits if any(s in t.lower() for s in RESERVED))
        self.bed = bed


def event_in(text, events, p):
    for e in events:
        if e.mentioned_in(text):
            return e
    if find_times(text) and (find_dates(text, p.year) or rel_date(text, p.today) is not None):
        e = Event(text, p)
        if e.title and e.keys:
            e.pos, e.news, e.owner, e.newsholders, e.lines = 0, False, None, set(), [text]
            return e
    return None


def utter(sp, others, convo, rng, group=False):
    """C1-C5: the next line for speaker sp given the conversation so far. Returns (text, end)."""
    p, me = sp.p, sp.who
    other = others[0] if len(others) == 1 else 'everyone'
    listener = others[0] if others else 'everyone'
    dry = sp.social < 0
    mine = [t for (s, t) in convo if s == me]
    theirs = [(s, t) for (s, t) in convo if s != me]
    alltext = ' '.join(t for _, t in convo)
    n = len(convo)
    # which of my later lines answered what
    last = theirs[-1] if theirs and convo and convo[-1][0] != me else None
    parts = []
    end = False
    if last is not None:
        speaker, text = last
        listener = speaker
        tl = text.lower()
        ev = event_in(text, sp.events, p)
        answered = ev is not None and any(ev.mentioned_in(t) or _has(t, ACCEPT_WORDS + DECLINE_WORDS) for t in mine[-1:]) and \
            any(_has(t, ACCEPT_WORDS + DECLINE_WORDS) for t in mine)
        if ev is not None and ev.host != me and not answered:
            invited = _has(tl, INVITE_WORDS) and (ev.host == speaker or _has(tl, ("i'm holding", "i am holding", "my ", "i'm going to", "i'll be")))
            heard_before = any(e is ev for e in sp.events) and speaker not in ev.newsholders and me in ev.newsholders
            pr = p_attend(p, ev, speaker, invited, sp.plan, sp.social, sp.bed)
            go = rng.random() < pr
            clash = real_clash(p, ev, sp.plan)
            if invited:
                if go:
                    parts.append(rng.choice(["Oh, I'd love to. Count me in!",
                                             "That sounds grand. I'll be there.",
                                             "Yes, I think I'll go. Thank you for asking, %s." % _first(speaker),
                                             "How lovely! I'll come along."]))
                elif clash:
                    parts.append("I'm sorry, I can't come: I've got %s then. Another time, perhaps?" % clash)
                else:
                    parts.append(rng.choice(["Thank you, %s, but I can't make it, I'm afraid." % _first(speaker),
                                             "Not really my sort of thing, I'm afraid. But thank you.",
                                             "I'm afraid I'll have to pass on that one."]))
            else:
                pre = "I'd heard! " if heard_before else rng.choice(['Is that so? ', 'Oh, really? ', 'Well I never. '])
                if go:
                    parts.append(pre + rng.choice(["I might well go along to that.", "I think I'll go.",
                                                   "I'd like to go to that."]))
                else:
                    parts.append(pre + rng.choice(["Thanks for letting me know.", "Good to know.",
                                                   "I doubt I'll get there, mind."]))
        elif ev is not None and ev.host == me and _has(tl, ACCEPT_WORDS) and not any('see you' in t.lower() for t in mine[-1:]):
            parts.append(rng.choice(["Wonderful, I'll see you there!", "Oh good, I'm so glad.",
                                     "Grand. See you then."]))
        elif sp.news is not None and sp.news.host == me and sp.news.mentioned_in(' '.join(mine)) and _has(tl, DECLINE_WORDS):
            parts.append(rng.choice(["Ah, never mind. Another time, then.", "That's a shame. Maybe next time."]))
        elif _has(tl, GOODBYE_WORDS):
            if rng.random() < 0.85:
                return (rng.choice(['Bye, %s!' % _first(speaker), 'Take care, %s.' % _first(speaker),
                                    'See you later.', 'Cheerio.']), True)
        elif '?' in text and not parts:
            parts.append(rng.choice(['Not bad, thanks.', 'Oh, getting by.', 'Well enough.']) + ' ' +
                         _smalltalk(p, me, speaker, sp.currently, rng, dry, mine))
    # my own news (C2)
    nw = sp.news
    if nw is not None and not nw.mentioned_in(alltext) and me not in [x for x in (others or [])]:
        if n == 0:
            pr = 0.6
        elif not mine:
            pr = 0.7
        else:
            pr = 0.35
        if rng.random() < pr:
            if n == 0:
                parts.append(_greet(p, listener if listener != 'everyone' else (others[0] if others else 'there'), rng))
            parts.append(news_sentence(p, me, nw, listener if len(others) == 1 else 'everyone', rng))
    if not parts:
        if n == 0:
            parts.append(_greet(p, listener if listener != 'everyone' else (others[0] if others else 'there'), rng))
            if rng.random() < 0.5:
                parts.append(_smalltalk(p, me, listener, sp.currently, rng, dry, mine))
        else:
            pend = 0.12 + 0.12 * n
            if p.now is not None and any(0 < s - p.now <= 20 for (s, e, a, pl, d) in sp.plan if d is None):
                pend += 0.25
            if n >= 8:
                pend = 0.9
            if rng.random() < pend:
                return (_goodbye(listener, rng), True)
            parts.append(_smalltalk(p, me, listener, sp.currently, rng, dry, mine))
    text = ' '.join(x.strip() for x in parts if x.strip())
    if n >= 8 and rng.random() < 0.5:
        end = True
    return text, end


# ----------------------------------------------------------------------------- schema (S1)

def _resolve(s, defs):
    seen = 0
    while isinstance(s, dict) and '$ref' in s and seen < 10:
        name = str(s['$ref']).split('/')[-1]
        s = defs.get(name, {})
        seen += 1
    return s if isinstance(s, dict) else {}


def _stype(s):
    t = s.get('type')
    if isinstance(t, list):
        t = [x for x in t if x != 'null'][0] if [x for x in t if x != 'null'] else 'null'
    if t is None:
        if 'properties' in s:
            return 'object'
        if 'items' in s:
            return 'array'
        if 'enum' in s and s['enum']:
            v = s['enum'][0]
            return {bool: 'boolean', int: 'integer', float: 'number', str: 'string'}.get(type(v), 'string')
    return t


def pick_enum(options, hint, rng, default=None):
    """M4: the option whose words best overlap the hint (then the default, then the first)."""
    if not options:
        return None
    if hint is not None and hint in options:
        return hint
    hw = set(_content(str(hint))) if hint else set()
    best, bs = None, 0.0
    for o in options:
        ow = _content(str(o))
        if not ow:
            continue
        parts = str(o).split(':')
        last = set(_content(parts[-1])) if parts else set()
        sc = sum(2.0 if w in last else 1.0 for w in ow if w in hw) / (1 + 0.1 * len(ow))
        if sc > bs:
            best, bs = o, sc
    if best is not None:
        return best
    if default is not None and default in options:
        return default
    return options[0]


def _valid(v, s, defs):
    s = _resolve(s, defs)
    try:
        if 'anyOf' in s or 'oneOf' in s:
            return any(_valid(v, b, defs) for b in (s.get('anyOf') or s.get('oneOf')))
        if 'const' in s:
            return v == s['const']
        if 'enum' in s:
            return v in s['enum']
        t = _stype(s)
        if t == 'null':
            return v is None
        if t == 'object':
            if not isinstance(v, dict):
                return False
            props = s.get('properties', {})
            if any(k not in v for k in s.get('required', [])):
                return False
            if s.get('additionalProperties') is False and any(k not in props for k in v):
                return False
            return all(_valid(v[k], props[k], defs) for k in v if k in props)
        if t == 'array':
            if not isinstance(v, list):
                return False
            if len(v) < s.get('minItems', 0) or len(v) > s.get('maxItems', 10 ** 9):
                return False
            return all(_valid(x, s.get('items', {}), defs) for x in v)
        if t == 'string':
            if not isinstance(v, str):
                return False
            if len(v) < s.get('minLength', 0) or len(v) > s.get('maxLength', 10 ** 9):
                return False
            if 'pattern' in s and not re.search(s['pattern'], v):
                return False
            return True
        if t == 'integer':
            return isinstance(v, int) and not isinstance(v, bool) and s.get('minimum', -10 ** 12) <= v <= s.get('maximum', 10 ** 12)
        if t == 'number':
            return isinstance(v, (int, float)) and not isinstance(v, bool)
        if t == 'boolean':
            return isinstance(v, bool)
    except Exception:
        return False
    return True


def conform(v, s, defs, rng, p, name=''):
    """The grammar's effect: whatever the model meant is forced into the schema's shape."""
    s = _resolve(s, defs)
    branches = s.get('anyOf') or s.get('oneOf')
    if branches:
        for b in branches:
            if _valid(v, b, defs):
                return v
        if v is None:
            for b in branches:
                if _stype(_resolve(b, defs)) == 'null':
                    return None
        nn = [b for b in branches if _stype(_resolve(b, defs)) != 'null']
        # the branch whose enums best fit the value
        if isinstance(v, dict) and len(nn) > 1:
            def fit(b):
                bb = _resolve(b, defs)
                return sum(1 for k, x in v.items() if _valid(x, bb.get('properties', {}).get(k, {'enum': []}), defs))
            nn = sorted(nn, key=lambda b: -fit(b))
        return conform(v, nn[0] if nn else branches[0], defs, rng, p, name)
    if 'const' in s:
        return s['const']
    if 'enum' in s and s['enum']:
        if v in s['enum']:
            return v
        return pick_enum(s['enum'], v, rng)
    t = _stype(s)
    if t == 'object':
        v = v if isinstance(v, dict) else {}
        props = s.get('properties', {})
        req = s.get('required', [])
        out = {}
        keys = [k for k in props if k in req] + [k for k in props if k not in req and k in v]
        for k in keys:
            if k in v:
                out[k] = conform(v[k], props[k], defs, rng, p, k)
            else:
                out[k] = conform(gen(props[k], defs, rng, p, k), props[k], defs, rng, p, k)
        if s.get('additionalProperties') is not False and not props:
            for k in v:
                out[k] = v[k]
        return out
    if t == 'array':
        v = v if isinstance(v, list) else ([] if v is None else [v])
        it = s.get('items', {})
        v = [conform(x, it, defs, rng, p, name) for x in v]
        mx = s.get('maxItems')
        if mx is not None:
            v = v[:mx]
        mn = s.get('minItems', 0)
        while len(v) < mn:
            v.append(conform(v[-1] if v and rng.random() < 0.5 else gen(it, defs, rng, p, name), it, defs, rng, p, name))
        return v
    if t == 'string':
        v = '' if v is None else (v if isinstance(v, str) else str(v))
        pat = s.get('pattern')
        if pat:
            try:
                if not re.search(pat, v):
                    for c in ('', '12:00', _fmt(p.now or 720), (p.today or datetime.date(p.year, 1, 1)).isoformat(), 'a'):
                        if re.search(pat, c):
                            v = c
                            break
            except Exception:
                pass
        mx = s.get('maxLength')
        if mx is not None and len(v) > mx:
            v = v[:mx]
        mn = s.get('minLength', 0)
        if len(v) < mn:
            v = v + ('.' * (mn - len(v)) if v else ('ok' + '.' * max(0, mn - 2)))
        return v
    if t == 'integer':
        try:
            v = int(round(float(v)))
        except Exception:
            v = gen(s, defs, rng, p, name)
            v = int(v) if isinstance(v, (int, float)) else 1
        if 'minimum' in s:
            v = max(int(s['minimum']), v)
        if 'maximum' in s:
            v = min(int(s['maximum']), v)
        return v
    if t == 'number':
        try:
            v = float(v)
        except Exception:
            v = 1.0
        if 'minimum' in s:
            v = max(s['minimum'], v)
        if 'maximum' in s:
            v = min(s['maximum'], v)
        return v
    if t == 'boolean':
        return bool(v) if not isinstance(v, str) else v.lower() in ('true', 'yes', '1')
    if t == 'null':
        return None
    return v


def gen(s, defs, rng, p, name=''):
    """P10: a plausible value for a schema the model has no specific reading for."""
    s = _resolve(s, defs)
    branches = s.get('anyOf') or s.get('oneOf')
    if branches:
        nn = [b for b in branches if _stype(_resolve(b, defs)) != 'null']
        return gen(nn[0] if nn else branches[0], defs, rng, p, name)
    if 'const' in s:
        return s['const']
    if 'enum' in s and s['enum']:
        opts = [o for o in s['enum'] if o != ''] or s['enum']
        return pick_enum(opts, p.user[-600:], rng, opts[0])
    if 'default' in s and s['default'] not in (None,) and rng.random() < 0.5:
        return s['default']
    t = _stype(s)
    n = (name or '').lower()
    if t == 'object':
        return dict((k, gen(v, defs, rng, p, k)) for k, v in s.get('properties', {}).items())
    if t == 'array':
        mn, mx = s.get('minItems', 1), s.get('maxItems', 3)
        k = max(mn, min(mx, rng.randint(1, 3)))
        return [gen(s.get('items', {}), defs, rng, p, n) for _ in range(k)]
    if t == 'string':
        if 'name' in n or 'speaker' in n or 'who' in n:
            return p.me
        if 'time' in n or 'start' in n or 'pattern' in s and ':' in s.get('pattern', ''):
            return _fmt(p.now or 720)
        if 'date' in n:
            return (p.today or datetime.date(p.year, 1, 1)).isoformat()
        if 'emoji' in n:
            return '🙂'
        st = my_status(p, p.me, p.currently)
        if any(k in n for k in ('reason', 'why', 'because')):
            return 'It seems the sensible thing to do right now.'
        if any(k in n for k in ('answer', 'text', 'utterance', 'reply', 'say', 'message')):
            return (_cap(st) + '.') if st else "I'm not sure, to be honest."
        if any(k in n for k in ('summary', 'description', 'insight', 'thought', 'note', 'currently', 'status')):
            return ('%s is %s.' % (p.me, st[4:])) if st.startswith("I'm ") else ('%s is going about the day.' % p.me)
        if 'activity' in n or 'action' in n or 'task' in n:
            return 'getting on with the work'
        return 'nothing in particular'
    if t == 'integer':
        lo, hi = int(s.get('minimum', 1)), int(s.get('maximum', max(int(s.get('minimum', 1)) + 9, 10)))
        if 'minute' in n or 'duration' in n:
            return max(lo, min(hi, 30))
        if 'hour' in n:
            return max(lo, min(hi, p.wake // 60))
        return max(lo, min(hi, lo + (hi - lo) * 2 // 5 + rng.randint(0, 1)))
    if t == 'number':
        return float(s.get('minimum', 0.5))
    if t == 'boolean':
        return rng.random() < 0.5
    return None


def dump(v, rng, nested):
    if nested and rng.random() < 0.3:
        return json.dumps(v, ensure_ascii=False, indent=2)
    return json.dumps(v, ensure_ascii=False)


def cut_to_budget(text, p, max_tokens, rng, json_mode, temperature):
    """S3/S4/S5."""
    try:
        mt = int(max_tokens) if max_tokens is not None else 10 ** 6
    except Exception:
        mt = 10 ** 6
    budget = min(mt, CTX - p.ntok)
    if json_mode and temperature > 0 and rng.random() < 0.006:
        k = max(1, int(len(text) * rng.uniform(0.2, 0.9)))
        pad = '\n' * 2 + ' ' * 4
        room = int(max(0, budget) * CH_PER_TOK_OUT)
        text = (text[:k] + pad * 400)[:max(k, room)]
        return text
    per = CH_PER_TOK_OUT if json_mode else 3.8
    room = int(max(0, budget) * per)
    if len(text) > room:
        return text[:room]
    return text


# ----------------------------------------------------------------------------- tasks

def rate_importance(text, p, rng):
    t = (text or '').lower()
    if re.search(r"\b(died|death|dead|funeral|engaged|married|pregnan|hospital|accident|fire|flood|broke up|lost (his|her|my) job|dying)\b", t):
        v = rng.choice([8, 8, 9, 9, 10])
    elif re.search(r"\b(grudge|quarrel|argu|fight|shout|furious|never forgiven|feud|row with)\b", t):
        v = rng.choice([5, 6, 6, 7])
    elif (find_times(t) and (find_dates(t, p.year) or _DAYWORD.search(t))) or \
            re.search(r"\b(invit|hold|host|party|festival|gathering|news|told|announce|wedding|supper|concert|dance)", t):
        v = rng.choice([5, 5, 6, 6, 7])
        if p.me.lower() in t and re.search(r"\b(wants to|will|hold|host)\b", t):
            v += 1
    elif re.search(r"\b(conversation|chatting|chatted|talked|talking|told|said)\b", t):
        v = rng.choice([2, 3, 3, 4])
    elif re.search(r"\b(seems|values|enjoys|relationship|pride|cares|worried|fears|hopes)\b", t):
        v = rng.choice([3, 4, 4, 5])
    elif re.search(r"\b(plan for|schedule)\b", t):
        v = rng.choice([2, 3, 3])
    elif re.search(r"^\W*[a-z][\w ]* is (occupied|in use|idle|empty|\w+ing)\W*$", t) and not any(n.lower() in t for n in p.people):
        v = 1
    else:
        v = rng.choice([1, 2, 2, 3])
    if rng.random() < 0.4:
        v += rng.choice([-1, 1])
    return max(1, min(10, v))


def quoted_items(p):
    items = []
    for ln in p.lines:
        m = re.match(r"^\s*(?:[-*•]|\d+[.)])\s*[\"“](.*)[\"”]\s*$", ln)
        if m:
            items.append(m.group(1))
    return items


def last_question(p):
    qs = re.findall(r"[\"“]([^\"”\n]{2,300}\?)[\"”]", p.user)
    return qs[-1] if qs else ''


def memory_lines(p):
    out = []
    pos = 0
    for ln in p.lines:
        i = p.text.find(ln, pos) if ln else -1
        if re.match(r"^\s*(?:[-*•]|\d+\.)\s+", ln) and not re.match(r"^\s*[-*•]?\s*\d{1,2}:\d{2}\s*[-–]", ln):
            out.append((max(0, i), re.sub(r"^\s*(?:[-*•]|\d+\.)\s+", '', ln).strip()))
        if i >= 0:
            pos = i
    return out


def h_interview(p, rng, events):
    q = last_question(p)
    ql = q.lower()
    mems = [(i, m) for i, m in memory_lines(p) if not re.search(r"nothing comes to mind|^\(none", m, re.I)]
    named = [n for n in p.people if n != p.me and (n in q or (_first(n) in q and len(_first(n)) > 2))]
    if named:
        o = named[0]
        ident = [s for s in re.split(r"(?<=[.;])\s+", p.identity) if _first(o) in s]
        att = p.attitude(o)
        hits = [m for i, m in mems if o in m]
        if ident:
            if att < 0:
                return rng.choice(["I know %s, all right. We don't get on, and I'd rather leave it at that." % _first(o),
                                   "Yes, I know %s. There's bad blood between us, I'm afraid." % o])
            if att > 0:
                return rng.choice(["Of course I know %s. %s" % (o, _cap(_first_person(ident[0], p.me)) + ('' if ident[0].endswith('.') else '.')),
                                   "Yes, %s and I go back a long way; I'm fond of %s." % (_first(o), _first(o))])
            return "Yes, I know %s. %s" % (o, _cap(_first_person(ident[0], p.me)) + ('' if ident[0].endswith('.') else '.'))
        if hits:
            h = hits[-1]
            if 'conversation' in h.lower() or 'chat' in h.lower() or 'told' in h.lower():
                return "Yes, I know %s a little. We had a chat not long ago." % _first(o)
            return "I've seen %s about, but I can't say I know them well." % _first(o)
        return rng.choice(["I don't think I know anyone called %s." % o, "No, I can't say I know %s." % o])
    keys = [w for w in _content(q) if w not in ('heard', 'know', 'anything', 'tell', 'think', 'going')]
    match = None
    for e in events:
        if any(k in e.keys for k in keys) or any(k in (e.title or '').lower() for k in keys if len(k) > 3):
            match = e
            break
    if match is None:
        for e in events:
            if keys and len([k for k in keys if k in _content(e.line + ' ' + e.place)]) * 2 >= len(keys) and len(keys) <= 3:
                match = e
                break
    if match is None:
        hits = [(i, m) for i, m in mems if any(k in m.lower() for k in keys)]
        if hits and keys:
            i, m = hits[-1]
            if not p.position_missed(i):
                return "Yes, I remember something about that: %s." % _first_person(re.sub(r"^\[[^\]]*\]\s*", '', m), p.me).rstrip('.')
        if keys:
            return rng.choice(["No, I haven't heard anything about that.", "I don't know anything about that, I'm afraid.",
                               "Can't say I have. What is it?"])
        st = my_status(p, p.me, p.currently)
        return (_cap(st) + '.') if st else "I'm not sure what you mean."
    if p.position_missed(match.pos):
        return rng.choice(["No, I haven't heard anything about that.", "I don't think so. What is it?"])
    w = when_phrase(match, p, rng)
    if match.host == p.me:
        s = "Yes, I'm %s %s %s." % ('going to' if match.verbal else 'holding', match.title, w)
        return s.replace('  ', ' ') + " I hope people come."
    host = match.host
    core = ('%s is %s %s %s' % (host, 'going to' if match.verbal else 'holding', match.title, w)) if host else ('there\'s %s %s' % (match.title, w))
    if said_yes(p, match):
        tail = rng.choice([" I mean to go.", " I'm planning to go.", " I'll be there."])
    else:
        tail = rng.choice([" I might go along.", " I haven't decided whether to go.", " I doubt I'll go."])
    return ('Yes, %s.' % core).replace('  ', ' ') + tail


def _first_person(sent, me):
    s = sent
    s = re.sub(r"^" + re.escape(me) + r"\s+is\b", "I'm", s)
    s = re.sub(r"^" + re.escape(me) + r"\s+has\b", "I've", s)
    s = re.sub(r"^" + re.escape(me) + r"\s+(\w+?)s\b", lambda m: 'I ' + (m.group(1) if not m.group(1).endswith(('sse', 'she', 'che')) else m.group(1)[:-1]), s)
    s = s.replace(me + "'s", 'my').replace(me, 'me')
    s = re.sub(r"^(He|She|They)\s+is\b", "I'm", s)
    s = re.sub(r"^(He|She|They)\s+has\b", "I have", s)
    s = re.sub(r"^(He|She|They)\s+(\w+?)s\b", r"I \2", s)
    s = re.sub(r"^(His|Her|Their)\b", 'My', s)
    s = re.sub(r"\b(his|her)\b", 'my', s)
    return s


def h_currently(p, rng, events):
    old = re.split(r"(?<=\.)\s+", p.currently.strip()) if p.currently else []
    base = old[0] if old else '%s is going about the usual routine.' % p.me
    mine = [e for e in events if e.host == p.me]
    going = [e for e in events if e.host != p.me and said_yes(p, e)]
    extra = ''
    if mine and not p.position_missed(mine[0].pos):
        e = mine[0]
        extra = '%s is getting ready to %s %s %s and is asking everyone to come.' % (
            p.me, e.title if e.verbal else 'hold ' + e.title, say_day(e.date, p.today, rng), ('at ' + _say_clock(e.start, rng)) if e.start is not None else '')
    elif going:
        e = going[0]
        extra = '%s means to go to %s %s.' % (p.me, e.title, when_phrase(e, p, rng))
    elif rng.random() < 0.5:
        extra = '%s is keeping to the usual routine.' % p.me
    return re.sub(r"\s+", ' ', (base + ' ' + extra).strip()).replace(' .', '.')


def h_relationship(p, rng):
    others = [n for n in p.people if n != p.me]
    o = others[0] if others else 'them'
    for n in others:
        if re.search(r"(about|with)\s+" + re.escape(n), p.user):
            o = n
            break
    ident = [s for s in re.split(r"(?<=[.;])\s+", p.identity) if _first(o) in s]
    att = p.attitude(o)
    mems = [m for _, m in memory_lines(p) if o in m]
    if ident:
        a = _cap(_first_person(ident[0].rstrip('.;'), p.me)) + '.'
    elif mems:
        a = "I've seen %s around lately." % _first(o)
    else:
        a = "I don't know %s well." % _first(o)
    if att > 0:
        b = rng.choice(["I feel warm towards %s and I'm glad to have them around." % _first(o),
                        "Right now I feel close to %s." % _first(o)])
    elif att < 0:
        b = rng.choice(["I still can't quite forgive %s, and I keep my distance." % _first(o),
                        "Things are strained between us and I'd rather avoid %s." % _first(o)])
    else:
        b = "I don't have strong feelings about %s either way." % _first(o)
    if any(('conversation' in m.lower() or 'chat' in m.lower()) for m in mems) and rng.random() < 0.5:
        b += ' We talked recently.'
    return a + ' ' + b


def _home(opts, p, kind='bed'):
    sur = p.me.split(' ')[-1].lower()
    first = p.me.split(' ')[0].lower()
    cand = [o for o in opts if kind in o.lower()]
    for o in cand:
        if sur in o.lower() or first in o.lower():
            return o
    m = re.search(r"(?:home|sleep)[^\n]{0,60}?\(([^()]*)\)", p.user, re.I)
    if m and m.group(1) in opts and kind in m.group(1).lower():
        return m.group(1)
    if kind != 'bed':
        h = _home(opts, p, 'bed')
        sector = ':'.join(h.split(':')[:-1]) if h else ''
        for o in cand:
            if sector and o.startswith(sector):
                return o
        return h
    return cand[0] if cand else (opts[0] if opts else '')


def _emoji(act):
    a = act.lower()
    for k, e in EMOJI:
        if k in a:
            return e
    return '🙂'


def _mine_in(line, me, people):
    """The parts of a remembered line that the persona said (all of it when nobody is quoted)."""
    names = '|'.join(re.escape(n) for n in people)
    segs = re.findall(r"(" + names + r")\s*:\s*[\"“]([^\"”]*)", line) if names else []
    if not segs:
        return line
    return ' '.join(t for n, t in segs if n == me)


def said_yes(p, e):
    """The persona's memories show it agreed to go / plans to go to e."""
    if any(_has(_mine_in(l, p.me, p.people), ACCEPT_WORDS) for l in e.lines):
        return True
    if any(e.mentioned_in(a) for (_, _, a, _, _) in p.plan):
        return True
    for _, m in memory_lines(p):
        if (e.mentioned_in(m) or (e.host and _first(e.host) in m)) and _has(_mine_in(m, p.me, p.people), ACCEPT_WORDS + ("plan to go", "means to go", "mean to go", "going to go")):
            return True
    return False


def today_events(p, events):
    out = []
    for e in events:
        if e.date is None or p.today is None or e.date != p.today or e.start is None:
            continue
        if e.host == p.me or said_yes(p, e):
            if not p.position_missed(e.pos) and p.rng.random() < 0.85:
                out.append(e)
    return out


def h_daily_plan(p, rng, events, schema, defs):
    blk = _resolve(schema.get('properties', {}).get('blocks', {}).get('items', {}), defs)
    opts = blk.get('properties', {}).get('address', {}).get('enum', []) or []
    home = _home(opts, p) if opts else 'home'
    kitchen = _home(opts, p, 'kitchen') if opts else 'home'
    work_hint = p.work_words + ' ' + p.lifestyle + ' ' + p.identity[:120]
    wopts = [o for o in opts if o not in (home, kitchen)]
    workp = pick_enum(wopts, work_hint, rng, home) if wopts else home
    wake, bed = p.wake, p.bed
    if bed <= wake:
        bed += 1440
    ws, we = p.work
    if ws < wake:
        ws += 1440 if ws + 1440 < bed else 0
    if we <= ws:
        we += 720 if we + 720 > ws else 1440
    wact = re.sub(r"^(works?|working)\b", 'working', p.work_words or 'working') or 'working'
    if not wact.endswith('ing') and not wact.startswith('working'):
        wact = re.sub(r"^(\w+?)e?s\b", lambda m: m.group(1) + 'ing', wact)
    blocks = [(wake, 'waking up and getting ready', home), (wake + 30, 'having breakfast', kitchen)]
    t = wake + 60
    if ws > t + 20:
        blocks.append((t, 'tidying up at home', home))
    t = max(t, ws)
    lunch = 720 if ws < 720 < we - 60 else None
    if lunch is not None:
        blocks.append((t, wact, workp))
        blocks.append((lunch, 'having lunch', kitchen))
        blocks.append((lunch + 60, wact, workp))
    else:
        blocks.append((t, wact, workp))
        if we <= 780 or ws >= 840:
            lt = 720 if ws >= 840 or we <= 720 else we
            blocks.append((lt, 'having lunch', kitchen))
    dinner = max(1080, we + 30) if we < bed - 120 else None
    ft = we + 60 if any(b[0] == we and 'lunch' in b[1] for b in blocks) else we
    if ft < (dinner or bed) - 30:
        blocks.append((ft, 'free time', home))
    if dinner is not None and dinner < bed - 60:
        blocks.append((dinner, 'having dinner', kitchen))
        blocks.append((dinner + 60, 'relaxing at home', home))
    blocks.append((bed, 'sleeping', home))
    for e in today_events(p, events):
        hint = ' '.join(getattr(e, 'lines', [e.line])) + ' ' + e.place
        place = pick_enum(opts, e.place + ' ' + hint, rng, '') if opts else e.place
        if opts and not (set(_content(place)) & set(_content(hint)) - set(_content(opts[0].split(':')[0]))):
            place = home
        if e.verbal:
            act = e.title if e.host == p.me else ('joining %s to %s' % (_first(e.host), e.title) if e.host else 'going to ' + e.title)
        else:
            act = ('hosting ' if e.host == p.me else 'going to ') + (e.title if not e.title.startswith(('a ', 'an ')) else 'the ' + e.title.split(' ', 1)[1])
        s, en = e.start, e.end if e.end is not None else e.start + 120
        if en > bed:
            blocks = [b if 'sleep' not in b[1] else (en, b[1], b[2]) for b in blocks]
            bed = en
        blocks = [b for b in blocks if not (s <= b[0] < en) or 'sleep' in b[1]]
        prev = [b for b in blocks if b[0] < s]
        blocks.append((s, act[:120], place))
        if prev and en < bed:
            blocks.append((en, prev[-1][1] if 'sleep' not in prev[-1][1] else 'relaxing at home', prev[-1][2]))
    blocks.sort(key=lambda b: b[0])
    ded = []
    for b in blocks:
        if ded and ded[-1][0] == b[0]:
            ded[-1] = b
        else:
            ded.append(b)
    blocks = ded[:16]
    out = []
    for i, (s, act, place) in enumerate(blocks):
        nxt = blocks[i + 1][0] if i + 1 < len(blocks) else wake + 1440
        dur = max(5, min(960, nxt - s))
        out.append({'start': _fmt(s), 'duration_minutes': dur, 'activity': act, 'emoji': _emoji(act), 'address': place})
    if len(out) > 3 and rng.random() < 0.08:   # P3 gap/overlap
        i = rng.randint(1, len(out) - 2)
        out[i]['duration_minutes'] = max(5, out[i]['duration_minutes'] + rng.choice([-20, -10, 15, 30]))
    outline = []
    for b in out:
        if b['activity'] in ('free time', 'relaxing at home', 'tidying up at home') and len(outline) >= 3:
            continue
        m = int(b['start'][:2]) * 60 + int(b['start'][3:])
        h12 = (m // 60) % 12 or 12
        tt = '%d%s%s' % (h12, (':%02d' % (m % 60)) if m % 60 else '', 'am' if m < 720 else 'pm')
        outline.append('%s at %s' % (b['activity'], tt))
    if len(outline) > 8:
        outline = outline[:7] + [outline[-1]]
    while len(outline) < 4:
        outline.append('relaxing at home in the evening')
    return {'wake_up_hour': wake // 60, 'outline': outline, 'blocks': out}


STEP_SETS = [
    (('breakfast', 'lunch', 'dinner', 'supper', 'meal', 'eat'),
     ['preparing the food', 'putting the kettle on', 'setting the table', 'eating at the table',
      'having a cup of tea', 'clearing the plates', 'washing the dishes', 'wiping the counter',
      'reading the paper over tea', 'putting things away', 'finishing the tea', 'sweeping crumbs']),
    (('sleep',), ['getting into bed', 'falling asleep', 'sleeping', 'sleeping soundly', 'turning over',
                  'sleeping', 'dreaming', 'sleeping deeply', 'stirring briefly', 'sleeping again']),
    (('waking', 'wake', 'getting ready'),
     ['getting out of bed', 'stretching', 'washing face', 'getting dressed', 'making the bed',
      'brushing hair', 'opening the curtains', 'checking the weather']),
    (('relax', 'free time', 'rest', 'nap', 'leisure', 'paper'),
     ['sitting down in a chair', 'reading a book', 'having a cup of tea', 'listening to the radio',
      'looking out of the window', 'dozing for a while', 'writing a letter', 'tidying a shelf']),
    (('seeing people', 'calling on', 'visit', 'chat'),
     ['walking over', 'knocking and saying hello', 'taking off coat', 'chatting', 'sharing news',
      'having a cup of tea together', 'listening', 'saying goodbye']),
    (('going to', 'hosting', 'evening', 'party', 'capsule', 'gathering', 'meeting'),
     ['arriving', 'greeting people', 'finding a seat', 'joining in', 'listening and watching',
      'chatting with neighbours', 'helping out', 'taking a short break', 'saying goodbyes']),
]
WORK_STEPS = ['getting set up', 'checking the %s', 'focusing on the main job', 'working at the %s',
              'taking a short break', 'getting on with the work', 'tidying up the %s', 'making notes',
              'fetching supplies', 'cleaning the %s', 'seeing to the %s', 'finishing a task']


def h_decompose(p, rng, schema, defs):
    arr = schema.get('properties', {})
    key = next((k for k, v in arr.items() if _stype(_resolve(v, defs)) == 'array'), 'steps')
    asch = _resolve(arr.get(key, {}), defs)
    it = _resolve(asch.get('items', {}), defs)
    objs = [o for o in (_resolve(it.get('properties', {}).get('object', {}), defs).get('enum') or []) if o]
    if not objs:
        m = re.search(r"objects?[^:\n]*:\s*([^\n]+)", p.user, re.I)
        if m:
            objs = [x.strip() for x in m.group(1).split(',') if x.strip()]
    dmin = _resolve(it.get('properties', {}).get('duration_minutes', {}), defs).get('minimum', 5)
    dmax = _resolve(it.get('properties', {}).get('duration_minutes', {}), defs).get('maximum', 15)
    mn, mx = asch.get('minItems', 4), asch.get('maxItems', 12)
    act = ''
    window = None
    for ln in p.lines:
        mm = re.search(r"\((\d+) minutes\)", ln)
        if mm and find_times(ln):
            window = int(mm.group(1))
            am = re.search(r"\bis\s+(.*?)(?:,\s*at\b|\.|$)", ln)
            act = am.group(1) if am else ln
            fm = re.search(r"first (\d+) minutes", p.user)
            if fm:
                window = int(fm.group(1))
            break
    if window is None:
        window = 60
        act = p.user[-400:]
    n = max(mn, min(mx, int(round(window / 10.0))))
    steps = None
    for keys, st in STEP_SETS:
        if _has(act, keys):
            steps = list(st)
            break
    if steps is None:
        steps = []
        for k, s in enumerate(WORK_STEPS):
            steps.append(s % (objs[k % len(objs)] if objs else 'tools') if '%s' in s else s)
    seq = [steps[i % len(steps)] if i < len(steps) else steps[i % len(steps)] + ' again' for i in range(n)]
    base = max(dmin, min(dmax, window // n))
    durs = [base] * n
    if rng.random() < 0.7:
        rem = window - base * n
        i = 0
        while rem != 0 and i < 200:
            j = i % n
            if rem > 0 and durs[j] < dmax:
                durs[j] += 1
                rem -= 1
            elif rem < 0 and durs[j] > dmin:
                durs[j] -= 1
                rem += 1
            i += 1
    else:
        durs = [max(dmin, min(dmax, d + rng.choice([-3, 0, 0, 2, 5]))) for d in durs]
    out = []
    for i, a in enumerate(seq):
        ob = ''
        for o in objs:
            if any(w in a for w in _content(o)):
                ob = o
                break
        if not ob and objs and rng.random() < 0.35 and not _has(a, ('break', 'walking', 'saying')):
            ob = objs[i % len(objs)]
        state = '' if not ob else rng.choice(['in use', 'being used', 'occupied', 'being checked'])
        out.append({'activity': a[:80], 'duration_minutes': durs[i], 'object': ob, 'object_state': state})
    return {key: out}


def h_react(p, rng, events, schema, defs):
    props = schema.get('properties', {})
    ck = next((k for k, v in props.items() if _resolve(v, defs).get('enum')), None)
    choices = _resolve(props.get(ck, {}), defs).get('enum', ['continue']) if ck else ['continue']
    seen = None
    for n in p.people:
        if n != p.me and re.search(re.escape(n), p.user[p.user.find('\n\n') if '\n\n' in p.user else 0:]):
            seen = n
            break
    my_news = news_of(p, p.me, events)
    told = False
    if my_news and seen:
        for _, m in memory_lines(p):
            if seen in m and (my_news.mentioned_in(m) or re.search(r"\btold\b", m)):
                told = my_news.mentioned_in(m)
                if told:
                    break
    r = rng.random()
    att = p.attitude(seen) if seen else 0

    def has(c):
        return c in choices
    choice = 'continue'
    if seen and my_news and not told and r < 0.6 and has('talk'):
        choice = 'talk'
    elif seen:
        pt = 0.05 if att < 0 else 0.18
        if r < pt and has('talk'):
            choice = 'talk'
        elif r < pt + 0.07 and has('wait'):
            choice = 'wait'
        elif r < pt + 0.12 and has('react'):
            choice = 'react'
    elif r < 0.05 and has('react'):
        choice = 'react'
    if choice not in choices:
        choice = choices[0]
    o = _first(seen) if seen else 'it'
    reasons = {
        'continue': ["Nothing here needs my attention; I'll carry on.", "%s is busy, and so am I." % _cap(o),
                     "It's nothing out of the ordinary, so I'll keep going."],
        'talk': ["I'd like a word with %s while they're close by." % o,
                 "I've something to tell %s." % o if my_news else "It would be nice to catch up with %s." % o],
        'wait': ["I'll let %s finish first." % o],
        'react': ["That changes things; I should see to it."],
    }
    out = {}
    for k in props:
        kl = k.lower()
        if k == ck:
            out[k] = choice
        elif 'reason' in kl or 'why' in kl:
            out[k] = rng.choice(reasons.get(choice, reasons['continue']))
        elif 'activity' in kl or 'new' in kl:
            out[k] = ('checking on %s' % o) if choice == 'react' else ''
        else:
            out[k] = gen(props[k], defs, rng, p, k)
    return out


def h_questions(p, rng, n):
    mems = [m for _, m in memory_lines(p)]
    cnt = {}
    for m in mems:
        for o in p.people:
            if o != p.me and o in m:
                cnt[o] = cnt.get(o, 0) + 1
    acts = {}
    for m in mems:
        mm = re.search(re.escape(p.me) + r" is ([a-z][a-z ]+?)(?: \(|$| to )", m)
        if mm:
            acts[mm.group(1)] = acts.get(mm.group(1), 0) + 1
    qs = []
    for o, _ in sorted(cnt.items(), key=lambda x: -x[1])[:2]:
        qs.append(rng.choice(["How does %s feel about %s?" % (p.me, o),
                              "What is the nature of %s's relationship with %s?" % (p.me, o),
                              "Why has %s been seeing so much of %s lately?" % (p.me, o)]))
    for e in find_events(p)[:1]:
        qs.insert(0, "What does %s make of %s?" % (p.me, e.title))
    for a, _ in sorted(acts.items(), key=lambda x: -x[1])[:3]:
        qs.append("What does %s's routine of %s say about what matters to %s?" % (p.me, a, _first(p.me)))
    if p.currently:
        qs.append("How is %s coping with %s?" % (p.me, my_status(p, p.me, p.currently).replace("I'm ", '')[:60]))
    qs.append("What is %s hoping for in the days ahead?" % p.me)
    k = n if rng.random() < 0.85 else max(1, n - 1)
    seen, out = set(), []
    for q in qs:
        if q not in seen:
            out.append(q)
            seen.add(q)
    return out[:k]


def h_insights(p, rng, schema, defs):
    stm = []
    for ln in p.lines:
        m = re.match(r"^\s*(\d+)[.)]\s+(.*)$", ln)
        if m:
            stm.append((int(m.group(1)), m.group(2)))
    qs = re.findall(r"^\s*[-*•]\s*[\"“](.*?)[\"”]\s*$", p.user, re.M)
    if not qs:
        qs = [last_question(p) or 'what matters']
    it = _resolve(_resolve(schema.get('properties', {}).get('insights', {}), defs).get('items', {}), defs)
    ev_enum = _resolve(it.get('properties', {}).get('evidence', {}), defs)
    ev_items = _resolve(ev_enum.get('items', {}), defs)
    maxn = ev_items.get('maximum') or (max(ev_items['enum']) if ev_items.get('enum') else (stm[-1][0] if stm else 1))
    out = []
    for q in qs[:5]:
        qw = set(_content(q)) - set(_content(p.me))
        scored = sorted(stm, key=lambda s: -len(qw & set(_content(s[1]))))
        ev = [n for n, s in scored[:rng.randint(1, 4)] if n <= maxn] or [1]
        txt = ' '.join(s for n, s in stm if n in ev)
        who = [o for o in p.people if o != p.me and o in txt]
        acts = re.findall(re.escape(p.me) + r" is ([a-z][a-z ]+?)(?: \(|$| to |\.)", txt)
        evs = [e for e in find_events(p) if e.mentioned_in(txt)]
        if evs:
            e = evs[0]
            ins = '%s is taken up with %s %s.' % (p.me, e.title, when_phrase(e, p, rng, drop=False))
            about = e.title
        elif who:
            att = p.attitude(who[0])
            ins = '%s and %s %s.' % (p.me, who[0], 'have an easy, friendly relationship built on small daily contact' if att >= 0 else 'keep a wary distance from each other')
            about = who[0]
        elif acts:
            ins = '%s takes care over %s and keeps to a steady routine.' % (p.me, acts[0].strip())
            about = acts[0].strip()[:60]
        else:
            ins = '%s seems to value quiet time to recharge between obligations.' % p.me
            about = 'daily routine'
        out.append({'insight': ins, 'about': about[:60], 'evidence': sorted(set(ev))[:10], 'importance': rng.choice([3, 4, 4, 5, 6])})
        if rng.random() < 0.3:
            out.append({'insight': '%s takes pride in keeping things orderly and on schedule.' % p.me, 'about': 'routine',
                        'evidence': sorted(set(ev))[:2], 'importance': rng.choice([3, 4])})
    dedup, seen = [], set()
    for o in out:
        if o['insight'] not in seen:
            dedup.append(o)
            seen.add(o['insight'])
    return {'insights': dedup}


def _iso(d):
    return d.isoformat() if d is not None else ''


def memo_for(p, who, convo, events, plan, rng, date_enum=None, place_enum=None, traits_social=None):
    """P1/P2."""
    others = []
    for s, _ in convo:
        if s != who and s not in others:
            others.append(s)
    partner = ' and '.join(others) if others else 'someone'
    alltext = ' '.join(t for _, t in convo)
    ev = None
    for e in events:
        if e.mentioned_in(alltext):
            ev = e
            break
    if ev is None:
        for s, t in convo:
            e = event_in(t, [], p)
            if e is not None:
                ev = e
                break
    first_person = rng.random() < 0.4
    subj = 'I' if first_person else who
    out = {'summary': '', 'importance': rng.choice([2, 2, 3]), 'plan_activity': '', 'plan_date': '',
           'plan_start': '', 'plan_minutes': 0, 'plan_place': ''}
    if ev is None:
        out['summary'] = '%s chatted with %s about everyday things; nothing was arranged.' % (subj, partner) if convo else \
            '%s did not really talk with anyone.' % subj
        return out
    mine = [t for s, t in convo if s == who]
    accepted = any(_has(t, ACCEPT_WORDS) for t in mine) and not any(_has(t, DECLINE_WORDS) for t in mine)
    declined = any(_has(t, DECLINE_WORDS) for t in mine)
    hosted = ev.host == who
    accepted = accepted and not hosted
    det_day = say_day(ev.date, p.today, rng) if rng.random() >= 0.15 else ''
    det_time = ('at ' + _say_clock(ev.start, rng)) if ev.start is not None and rng.random() >= 0.15 else ''
    det_place = (('in ' if ev.place.lower().startswith('the ') else 'at ') + ev.place) if ev.place and rng.random() >= 0.15 else ''
    det = ' '.join(x for x in (det_day, det_time, det_place) if x)
    teller = next((s for s, t in convo if ev.mentioned_in(t)), others[0] if others else 'someone')
    told_by_me = teller == who
    if told_by_me:
        teller = 'I' if first_person else who
    what = ev.title
    if ev.verbal:
        what = '%s\'s plan to %s' % (_first(ev.host) if ev.host and ev.host != who else ('my' if first_person else 'the'), ev.title)
        what = what.replace("my's plan", 'my plan').replace("the's plan", 'the plan')
    if hosted:
        s = '%s told %s about %s %s' % (subj, partner, what if ev.verbal else ('my ' if first_person else 'the ') + (ev.title.split(' ', 1)[1] if ev.title.startswith(('a ', 'an ')) else ev.title), det)
        if any(_has(t, ACCEPT_WORDS) for s2, t in convo if s2 != who):
            s += ', and %s said they would come' % _first(others[0]) if others else ''
        out['importance'] = rng.choice([4, 5, 5, 6])
    elif accepted:
        s = '%s told %s about %s %s, and %s said %s would go' % (teller, partner if told_by_me else ('me' if first_person else who), what, det, subj, 'I' if first_person else 'they')
        out['importance'] = rng.choice([5, 6, 6, 7])
    elif declined:
        s = '%s told %s about %s %s, but %s can\'t make it' % (teller, partner if told_by_me else ('me' if first_person else who), what, det, subj)
        out['importance'] = rng.choice([3, 4, 5])
    else:
        s = '%s told %s about %s %s' % (teller, partner if told_by_me else ('me' if first_person else who), what, det)
        out['importance'] = rng.choice([4, 5, 5, 6])
    out['summary'] = re.sub(r"\s+", ' ', s).strip().replace(' ,', ',') + '.'
    fill = (accepted and rng.random() < 0.88) or (hosted and rng.random() < 0.15) or \
        (not accepted and not hosted and rng.random() < 0.06)
    if fill:
        t = ev.title
        if t.startswith(('a ', 'an ')):
            t = 'the ' + t.split(' ', 1)[1]
        if ev.verbal:
            t = ('my plan to ' if hosted else '%s\'s ' % _first(ev.host or 'the') + 'plan to ') + ev.title if False else ev.title
            out['plan_activity'] = (ev.title if hosted else ('joining %s to %s' % (_first(ev.host), ev.title) if ev.host else 'going to ' + ev.title))[:120]
        else:
            out['plan_activity'] = (('hosting ' if hosted else 'going to ') + t)[:120]
        d = ev.date if ev.date is not None else p.today
        iso = _iso(d)
        if date_enum and iso not in date_enum:
            iso = ''
        out['plan_date'] = iso
        out['plan_start'] = _fmt(ev.start) if ev.start is not None else ''
        out['plan_minutes'] = (ev.end - ev.start) if (ev.start is not None and ev.end is not None and ev.end > ev.start) else 120
        if place_enum:
            hint = ' '.join(getattr(ev, 'lines', [ev.line])) + ' ' + ev.place + ' ' + ' '.join(t2 for _, t2 in convo)
            pl = pick_enum([o for o in place_enum if o], ev.place + ' ' + hint, rng, '')
            if not (set(_content(pl)) & set(_content(hint))) or rng.random() < 0.1:
                pl = ''
            out['plan_place'] = pl
        else:
            out['plan_place'] = ev.place if rng.random() >= 0.1 else ''
    return out


def _enum_of(schema, defs, key):
    s = _resolve(schema, defs)
    for b in (s.get('anyOf') or [s]):
        b = _resolve(b, defs)
        e = _resolve(b.get('properties', {}).get(key, {}), defs).get('enum')
        if e:
            return e
    return None


def persona_segments(p):
    """Per-person persona fields when several personas are given (Name: ... blocks)."""
    segs = {}
    idx = [m for m in re.finditer(r"(?:^|\n)\s*Name\s*:\s*([^\n]+)", p.user)]
    for i, m in enumerate(idx):
        nm = m.group(1).strip()
        end = idx[i + 1].start() if i + 1 < len(idx) else len(p.user)
        seg = p.user[m.start():end]
        f = {}
        for k in ('traits', 'lifestyle', 'currently'):
            mm = re.search(r"\n\s*(?:innate )?" + k + r"\s*:\s*([^\n]+)", seg, re.I)
            f[k] = mm.group(1).strip() if mm else ''
        segs[nm] = f
    return segs


def speakers_for(p, names, events):
    segs = persona_segments(p)
    sps = []
    for n in names:
        f = segs.get(n, {})
        blk = p.person_block(n)
        plan = parse_plan_lines(blk.split('\n'), p) if blk else []
        traits = [t.strip() for t in re.split(r"[,;]", f.get('traits', '')) if t.strip()]
        bed = None
        mm = re.search(r"bed[^,;]*", f.get('lifestyle', ''), re.I)
        if mm:
            tt = find_times(mm.group(0))
            bed = tt[0][1] if tt else None
        sps.append(Speaker(p, n, events, plan=plan, currently=f.get('currently', ''), traits=traits, bed=bed))
    return sps


def run_conversation(p, sps, rng, lo, hi):
    convo = []
    k = 0
    while len(convo) < hi:
        sp = sps[k % len(sps)]
        others = [s.who for s in sps if s.who != sp.who]
        text, end = utter(sp, others, convo, rng, group=len(sps) > 2)
        convo.append((sp.who, text))
        k += 1
        if end and len(convo) >= lo:
            break
    return convo


def h_pair(p, rng, events, schema, defs):
    props = schema.get('properties', {})
    speaker_enum = None
    for k, v in props.items():
        vv = _resolve(v, defs)
        if _stype(vv) == 'array':
            speaker_enum = _enum_of(vv.get('items', {}), defs, 'speaker') or speaker_enum
    names = [n for n in (speaker_enum or [])]
    if not names:
        names = [m.strip() for m in re.findall(r"(?:^|\n)\s*Name\s*:\s*([^\n]+)", p.user)][:8] or [p.me]
    if p.me in names:
        names.remove(p.me)
        names.insert(0, p.me)
    sps = speakers_for(p, names, events)
    group = 'memos' in props or len(names) > 2
    ptalk = 0.55
    if any(s.news for s in sps):
        ptalk = 0.9
    if len(names) > 1 and p.attitude(names[1]) < 0:
        ptalk -= 0.3
    talk = rng.random() < ptalk
    lines_key = next((k for k, v in props.items() if _stype(_resolve(v, defs)) == 'array' and 'line' in k.lower()), 'lines')
    mx = _resolve(props.get(lines_key, {}), defs).get('maxItems', 6)
    out = {}
    if not talk:
        for k, v in props.items():
            vv = _resolve(v, defs)
            if k == lines_key or _stype(vv) == 'array':
                out[k] = []
            elif _stype(vv) == 'boolean':
                out[k] = False
            else:
                out[k] = None if (vv.get('anyOf') and any(_stype(_resolve(b, defs)) == 'null' for b in vv['anyOf'])) else gen(vv, defs, rng, p, k)
        return out
    convo = run_conversation(p, sps, rng, 3 if group else 2, min(mx, 8 if group else 6))
    out_lines = [{'speaker': s, 'text': t} for s, t in convo]
    memos = []
    for sp in sps:
        memo_schema = None
        for k, v in props.items():
            vv = _resolve(v, defs)
            if _stype(vv) == 'array' and k != lines_key:
                memo_schema = vv.get('items', {})
        de = _enum_of(memo_schema or {}, defs, 'plan_date')
        pe = _enum_of(memo_schema or {}, defs, 'plan_place')
        m = memo_for(p, sp.who, convo, events, sp.plan, rng, de, pe)
        memos.append(m)
    for k, v in props.items():
        vv = _resolve(v, defs)
        st = _stype(vv)
        if k == lines_key:
            out[k] = out_lines
        elif st == 'boolean':
            out[k] = True
        elif st == 'array':
            lst = []
            for sp, m in zip(sps, memos):
                mm = dict(m)
                mm['name'] = sp.who
                lst.append(mm)
            out[k] = lst
        else:
            idx = 0 if k.lower() in ('first', 'a', 'self', 'me', 'mine') else 1 if k.lower() in ('second', 'b', 'partner', 'other') else len(out) - 2
            idx = max(0, min(len(memos) - 1, idx))
            bb = vv
            de = _enum_of(bb, defs, 'plan_date')
            pe = _enum_of(bb, defs, 'plan_place')
            out[k] = memo_for(p, sps[idx].who, convo, events, sps[idx].plan, rng, de, pe)
    return out


def h_memo(p, rng, events, schema, defs):
    convo = parse_convo(p.user, p.people)
    de = _enum_of(schema, defs, 'plan_date')
    pe = _enum_of(schema, defs, 'plan_place')
    return memo_for(p, p.me, convo, events, p.plan, rng, de, pe)


def h_group_turn(p, rng, events, schema, defs):
    props = schema.get('properties', {})
    ae = None
    for k, v in props.items():
        e = _resolve(v, defs).get('enum')
        if e and any(x in p.people or x == 'everyone' for x in e):
            ae = (k, e)
    others = [x for x in (ae[1] if ae else p.people) if x != p.me and x.lower() != 'everyone']
    convo = parse_convo(p.user, p.people)
    sp = Speaker(p, p.me, events)
    text, end = utter(sp, others, convo, rng, group=True)
    out = {}
    last = next((s for s, _ in reversed(convo) if s != p.me), None)
    for k, v in props.items():
        vv = _resolve(v, defs)
        if ae and k == ae[0]:
            if sp.news and sp.news.mentioned_in(text) and 'everyone' in ae[1] and rng.random() < 0.5:
                out[k] = 'everyone'
            else:
                out[k] = last if last in ae[1] else (others[0] if others else ae[1][0])
        elif _stype(vv) == 'boolean':
            out[k] = end
        elif _stype(vv) == 'string':
            out[k] = text
        else:
            out[k] = gen(vv, defs, rng, p, k)
    return out


def h_replan(p, rng, events, schema, defs):
    props = schema.get('properties', {})
    key = next((k for k, v in props.items() if _stype(_resolve(v, defs)) == 'array'), 'new_blocks')
    asch = _resolve(props.get(key, {}), defs)
    it = _resolve(asch.get('items', {}), defs)
    starts = _resolve(it.get('properties', {}).get('start', {}), defs).get('enum') or []
    addrs = _resolve(it.get('properties', {}).get('address', {}), defs).get('enum') or []
    now = p.now if p.now is not None else (find_times(starts[0])[0][1] if starts else 720)
    m = re.search(r"(?:changed|change)[^:\n]*:\s*([^\n]+)", p.user, re.I)
    why = m.group(1) if m else ''
    new_act = why.split(';')[-1].strip() if ';' in why else ('dealing with ' + why[:60] if why else 'seeing to something')
    new_act = new_act[:120] or 'seeing to something'
    here = p.plan[0][3] if p.plan else (addrs[0] if addrs else '')
    place = pick_enum(addrs, new_act + ' ' + why, rng, here if here in addrs else None) if addrs else here

    def snap(t):
        if not starts:
            return _fmt(t)
        best = None
        for s in starts:
            tt = find_times(s)
            if tt and tt[0][1] >= t % 1440 and (best is None or tt[0][1] < best[0]):
                best = (tt[0][1], s)
        return best[1] if best else starts[-1]
    lastst = max([tt[0][1] for tt in (find_times(s) for s in starts) if tt] or [now + 120])
    blocks = [{'start': snap(now), 'activity': new_act, 'emoji': _emoji(new_act), 'address': place}]
    t = now + 30
    for (s, e, act, pl, d) in p.plan:
        if d is not None:
            continue
        ee = e if e > s else e + 1440
        if ee <= t or s > now + 240 or max(s, t) > lastst:
            continue
        st = max(s, t)
        a = act if 'sleep' in act or rng.random() < 0.8 else 'relaxing at home'
        blocks.append({'start': snap(st), 'activity': a, 'emoji': _emoji(a), 'address': pl if pl in addrs else (addrs[0] if addrs else pl)})
        t = st + 30
    ded = []
    for b in blocks:
        if ded and ded[-1]['start'] == b['start']:
            continue
        ded.append(b)
    return {key: ded[:asch.get('maxItems', 6)]}


def h_address(p, rng, schema, defs):
    props = schema.get('properties', {})
    key = next(iter(props)) if props else 'place'
    branches = _resolve(props.get(key, {}), defs).get('anyOf') or [props.get(key, {})]
    qa = [x for x in re.findall(r"[\"“]([^\"”\n]{3,120})[\"”]", p.user) if ' ' in x.strip() and '...' not in x]
    act = qa[0] if qa else p.user[-300:]
    aw = set(_content(act))
    here = None
    m = re.search(r"^\s*-\s*([^\n(]+?)\s*\(here", p.user, re.M)
    if m:
        here = m.group(1).strip()
    harena = None
    m = re.search(r"^\s+-\s*([^\n:(]+?)\s*\(here\)", p.user, re.M)
    if m:
        harena = m.group(1).strip()
    best, bs = None, -1
    for b in branches:
        bb = _resolve(b, defs)
        pr = bb.get('properties', {})
        sec = (pr.get('sector', {}).get('enum') or [''])[0]
        ar = (pr.get('arena', {}).get('enum') or [''])[0]
        objs = [o for o in (pr.get('object', {}).get('enum') or []) if o]
        words = set(_content(sec + ' ' + ar + ' ' + ' '.join(objs)))
        sc = len(aw & words) * 2 + (1.5 if sec == here and ar == harena else (0.5 if sec == here else 0))
        if sc > bs:
            best, bs = (sec, ar, objs), sc
    if best is None:
        return gen(schema, defs, rng, p)
    sec, ar, objs = best
    ob = ''
    for o in objs:
        if set(_content(o)) & aw:
            ob = o
            break
    return {key: {'sector': sec, 'arena': ar, 'object': ob}}


def h_plain(p, rng, events):
    """Plain-text turn (S2, T1)."""
    convo = parse_convo(p.user, p.people)
    others = []
    m = re.search(r"talking with ([^.\n]+)", p.user)
    if m:
        others = [n for n in p.people if n in m.group(1) and n != p.me]
    if not others:
        others = [n for n in p.people if n != p.me][:1]
    sp = Speaker(p, p.me, events)
    text, end = utter(sp, others or ['everyone'], convo, rng)
    tags = re.findall(r"\[([A-Za-z_ -]{2,20})\]", p.user[-1500:])
    endtag = next((t for t in tags if re.search(r"end|stop|over|done|bye|leave", t, re.I)), None)
    conttag = next((t for t in tags if t != endtag), None)
    r = rng.random()
    if r < 0.004:
        return "I'm sorry, but I can't continue with this."
    if rng.random() < 0.04:
        text = '*%s* %s' % (rng.choice(['smiles', 'nods', 'looks up']), text)
    if rng.random() < 0.06:
        text = '"%s"' % text
    if rng.random() < 0.04:
        text = '%s: %s' % (p.me, text)
    tag = endtag if end else conttag
    if tag is None or rng.random() < 0.04:
        return text
    if rng.random() < 0.05:
        return '%s [%s]' % (text, tag)
    return '%s\n[%s]' % (text, tag)


# ----------------------------------------------------------------------------- dispatch

def _task(schema, defs):
    props = schema.get('properties', {}) if isinstance(schema, dict) else {}
    keys = set(k.lower() for k in props)
    types = dict((k.lower(), _resolve(v, defs)) for k, v in props.items())

    def arr_item_props(k):
        it = _resolve(types.get(k, {}).get('items', {}), defs)
        return set(x.lower() for x in it.get('properties', {}))
    if 'talk' in keys and any(_stype(v) == 'array' for v in types.values()):
        return 'pair'
    if {'summary', 'importance'} <= keys and any(k.startswith('plan') for k in keys):
        return 'memo'
    if 'utterance' in keys or ('text' in keys and any('address' in k or k.endswith('_to') for k in keys)):
        return 'group_turn'
    for k in keys:
        if _stype(types[k]) == 'array':
            ip = arr_item_props(k)
            if {'start', 'duration_minutes'} <= ip or ('blocks' in k and 'start' in ip and 'wake_up_hour' in keys):
                return 'daily_plan'
            if 'start' in ip and 'address' in ip:
                return 'replan'
            if 'duration_minutes' in ip and 'activity' in ip:
                return 'decompose'
            if 'insight' in ip:
                return 'insights'
            it = _resolve(types[k].get('items', {}), defs)
            if _stype(it) == 'integer':
                return 'ratings'
            if _stype(it) == 'string' and 'question' in k:
                return 'questions'
    for k, v in types.items():
        if v.get('enum') and {'continue', 'talk'} & set(map(str, v['enum'])):
            return 'react'
        if v.get('anyOf') and all('sector' in _resolve(b, defs).get('properties', {}) for b in v['anyOf']):
            return 'address'
    if keys == {'importance'} or (len(keys) == 1 and _stype(list(types.values())[0]) == 'integer'):
        return 'importance'
    if keys == {'answer'}:
        return 'interview'
    if keys == {'currently'} or keys == {'status'}:
        return 'currently'
    if keys == {'summary'}:
        return 'relationship'
    return 'generic'


def _respond(body, seed):
    if not isinstance(body, dict):
        body = {}
    try:
        temp = float(body.get('temperature', 0.7) if body.get('temperature') is not None else 0.7)
    except Exception:
        temp = 0.7
    key = json.dumps(body, sort_keys=True, ensure_ascii=True, default=str)
    salt = '' if temp <= 0 else str(seed)
    h = hashlib.sha256((key + '|' + salt).encode('utf-8')).hexdigest()
    rng = random.Random(int(h[:16], 16))
    p = Prompt(body, rng)
    if p.ntok > CTX:                                  # S4
        return ''
    rf = body.get('response_format') or {}
    schema, defs = None, {}
    if isinstance(rf, dict) and rf.get('type') in ('json_schema', 'json_object'):
        js = rf.get('json_schema') or {}
        schema = js.get('schema') if isinstance(js, dict) else None
        if schema is None and rf.get('type') == 'json_object':
            schema = {'type': 'object'}
        if schema is None:
            schema = rf.get('schema') or {'type': 'object'}
        defs = dict(schema.get('$defs') or {})
        defs.update(schema.get('definitions') or {})
    mt = body.get('max_tokens', body.get('max_completion_tokens'))
    if schema is None:
        events = find_events(p)
        text = h_plain(p, rng, events)
        return cut_to_budget(text, p, mt, rng, False, temp)
    task = _task(schema, defs)
    events = find_events(p) if task not in ('importance', 'ratings', 'decompose') else []
    props = schema.get('properties', {})
    v = None
    if task == 'interview':
        v = {list(props)[0]: h_interview(p, rng, events)}
    elif task == 'importance':
        m = [x for x in re.findall(r"[\"“]([^\"”\n]{3,})[\"”]", p.user) if ' ' in x.strip()]
        v = {list(props)[0]: rate_importance(max(m, key=len) if m else p.user[-400:], p, rng)}
    elif task == 'ratings':
        k = next(iter(props))
        s = _resolve(props[k], defs)
        items = quoted_items(p)
        n = s.get('minItems') or len(items) or 1
        items = (items + [''] * n)[:max(n, len(items))]
        v = {k: [rate_importance(x, p, rng) for x in items]}
    elif task == 'currently':
        v = {list(props)[0]: h_currently(p, rng, events)}
    elif task == 'relationship':
        v = {list(props)[0]: h_relationship(p, rng)}
    elif task == 'daily_plan':
        v = h_daily_plan(p, rng, events, schema, defs)
    elif task == 'decompose':
        v = h_decompose(p, rng, schema, defs)
    elif task == 'react':
        v = h_react(p, rng, events, schema, defs)
    elif task == 'questions':
        k = next(kk for kk, vv in props.items() if _stype(_resolve(vv, defs)) == 'array')
        mx = _resolve(props[k], defs).get('maxItems', 3)
        mm = re.search(r"\b(\d+|one|two|three|four|five)\s+questions", p.user)
        n = mx
        if mm:
            n = min(mx, int(mm.group(1)) if mm.group(1).isdigit() else NUMWORDS.get(mm.group(1), mx))
        v = {k: h_questions(p, rng, max(1, n))}
    elif task == 'insights':
        v = h_insights(p, rng, schema, defs)
    elif task == 'memo':
        v = h_memo(p, rng, events, schema, defs)
    elif task == 'pair':
        v = h_pair(p, rng, events, schema, defs)
    elif task == 'group_turn':
        v = h_group_turn(p, rng, events, schema, defs)
    elif task == 'replan':
        v = h_replan(p, rng, events, schema, defs)
    elif task == 'address':
        v = h_address(p, rng, schema, defs)
    else:
        v = gen(schema, defs, rng, p)
        if isinstance(v, dict) and 'ok' in v and _stype(_resolve(props.get('ok', {}), defs)) == 'boolean':
            v['ok'] = True
    v = conform(v, schema, defs, rng, p)
    nested = isinstance(v, dict) and any(isinstance(x, (dict, list)) for x in v.values()) and len(json.dumps(v)) > 200
    text = dump(v, rng, nested)
    return cut_to_budget(text, p, mt, rng, True, temp)


def respond(body, seed=0):
    """Answer one chat-completion request body as the declared model would (see the docstring)."""
    try:
        out = _respond(body, seed)
        return out if isinstance(out, str) else ''
    except Exception:
        try:
            rf = (body or {}).get('response_format') if isinstance(body, dict) else None
            return '{}' if rf else '...'
        except Exception:
            return ''
