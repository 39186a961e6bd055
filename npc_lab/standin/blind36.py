"""blind36 -- a blind stand-in for a chat model behind /v1/chat/completions.

DECLARED MODEL
  Gemma-3-12B-it class (12B dense instruct model, Q4 quantised), served by Ollama through
  its OpenAI-compatible route on a desktop GPU, num_ctx raised to 8,192 tokens.

SERVING STACK (as modelled)
  * Gemma has no system role: the system message is folded into the first user turn.  The
    model reads system + user text as one prompt.  Any earlier assistant turn and the
    follow-up user turn (a "that answer could not be used" retry) are read as a retry.
  * response_format json_schema -> Ollama `format` grammar.  The grammar keeps keys, types,
    required keys and enums; it does NOT keep maxLength/minLength, patterns, minItems/maxItems
    or numeric minimum/maximum, and never prose rules.  Every JSON answer therefore has the
    schema's keys, types and enum values, unless cut (below).
  * Prompt longer than the context (estimated at 3.6 characters per token, prompt > 8,192 -
    256 tokens): cut from its front silently; the model then loses the system text and persona
    and answers from what is left (persona-less generic answer, same grammar).
  * max_tokens cuts the answer: answer length estimated at 3.3 characters per token; if longer
    than max_tokens the text is cut there (JSON then malformed).
  * A request with no messages, or no user text at all, is refused by the server: "".

READING
  Reads meaning, not headings: the speaker is the character the system message names (else
  the first "Name" in the persona); people are capitalised two-word names found in the text;
  now = the first weekday/month-day + clock time in the prompt (any style: "07:00", "7 am",
  "7:30pm", "noon", "midday", "midnight", "morning"=09:00, "afternoon"=14:00/15:00 when said
  with "the", "evening"/"after work"=18:00, "sundown"/"dusk"=18:00); a year is taken from any
  4-digit year or date enum, else 2026.  Events are sentences that contain a hosting/holding/
  teaching/"news" word and a date or clock time; the event's what/when/where/host are parsed
  from that sentence (place = best word overlap with the place list or enum).  Plan lines are
  "start-end activity (place)" lines; a plan item is a REAL COMMITMENT when it names an
  event, meeting, appointment, "going to", "calling on", "hosting", "visit"; meals, work,
  sleep, chores, relaxing and free time are ordinary.
  Relationship tone toward a person = words in sentences of the speaker's identity, status and
  relationship lines that name that person: positive (friend, fond, enjoy, closest, favourite,
  values, easy, warm, married, daughter/son/mother/father, husband, wife) / negative (quarrel,
  grudge, against, argue, resent, not yet paid, dislikes, rival, wary).

SPEAKING (turn-by-turn text requests and group turns)
  * Voice: Gemma-style warm, slightly flowery, first names, the odd "Oh," / "Well,";
    traits colour the opener (gruff/dry/brisk -> short; warm/generous -> effusive).
  * BRINGS UP NEWS: if the prompt says the speaker has news / is hosting an event and the
    event's key word has not appeared in the conversation so far: p = 0.85 on the speaker's
    first line, 0.75 on a later line (x0.85 when the prompt exceeds 5,000 tokens, long-prompt
    drift).  If the prompt says the speaker has no news but a memory holds an upcoming event:
    p = 0.12 (it leaks out anyway).
  * When it tells: says what, the day (today/tomorrow/weekday/date) and time and place as read;
    omits the time with p = 0.08; says the wrong day word ("tomorrow" for today or vice versa)
    with p = 0.04 (date slip).
  * INVITES: when the speaker hosts the event it asks the listener to come, p = 0.9.  When the
    news is someone else's event it only reports it (does not invite), p = 0.9; p = 0.1 it
    adds "you should come along" (a mistaken invitation).
  * ANSWERS AN INVITATION (the other's last line contains an invitation word and an event):
    - clash = speaker's plan holds a real commitment overlapping the event time, or the event
      falls in the speaker's sleeping hours (lifestyle/plan).
    - p(accept) = 0.70 base; +0.12 positive tone to the host, -0.25 negative tone; -0.10 if
      traits solitary/shy/gruff/proud/reserved; clash -> p(accept) = 0.15.  Clamped 0.05-0.95.
    - otherwise declines politely (with an excuse from its plan if it has one), p = 0.4 of the
      declines propose "another time".
  * HEARS NEWS OF SOMEONE ELSE'S EVENT (not an invitation): says it means to go with
    p = 0.35 (+0.15 positive tone to the host, -0.2 negative, 0.05 on clash); else
    thanks them / non-committal.
  * Small talk otherwise from the "currently" status and what the other said.
  * ENDS: [end] never on the speaker's first line; after that p = 0.25 per line, 0.55 from the
    5th line, 0.85 from the 8th, and always after a goodbye already said by the other.
  * Text faults (declared): name prefix "Name: " p = 0.05; line wrapped in quotes p = 0.06;
    *stage action* p = 0.04; tag missing p = 0.04; tag on the same line p = 0.03.

ONE-CALL CONVERSATIONS (off-screen pair / group summaries)
  * talk = true with p = 0.92 if anyone has news, else 0.6.  If no talk: lines [] and both
    memos null (pair) / memos [] (group).
  * Lines are made with the same speaking rules, 2-6 (pair) / 3-8 (group) lines, first named
    person first; each speaker uses only its own section of the prompt (sections read by which
    person a header line names), EXCEPT a declared leak: p = 0.06 a line mentions an event
    only the other person's section holds.
  * Memos: from the lines, with the memo rules below, for each person.

MEMOS (conversation_memo and the memos above)
  * summary: one sentence naming the partner and any event said (what, when, where).
  * importance: 2 small talk; 5 news heard; 6 invitation accepted / plan made; +/-1 noise p=0.3.
  * plan change only when the character's own lines say yes/intend ("count me in", "I'll be
    there", "I'll come", "I think I'll go", "wouldn't miss it", ...): plan = event date/time/
    place read from the lines, else from its memories; p = 0.08 a plan is written although it
    only heard the news (over-eager); p = 0.07 an accepted plan is left out (missed);
    p = 0.06 the date is given as today's date instead of the event's (date slip); place =
    enum best match, "" if no match; minutes = event length, else 120 (60 p = 0.3).
    A host does not re-plan its own event.

PLANNING
  * daily_plan: wake hour from lifestyle ("wakes up at"), work hours from lifestyle; blocks
    wake/breakfast/work/lunch/work/free/dinner/relax/sleep, in time order; where the status or
    memories show the character is going to / hosting an event on this day, a block at its time
    and place with p = 0.85 (0.6 when only "heard of" without an intention); faults: the sleep
    block runs wake-to-wake and is written as is when over 960 minutes (grammar does not bound
    it; on a retry it is capped at 960 with p = 0.85); outline item count under 4 p = 0.03.
  * decompose: 6-12 steps by activity kind (meal/sleep/work/leisure/visit/event), durations 5-15
    summing to the span; objects from the enum; a step over 15 minutes p = 0.06; one step
    fewer than the minimum p = 0.04.
  * replan: blocks from the allowed starts; keeps an already planned event; with news to pass on
    and people's whereabouts shown, goes where they are with p = 0.45; else carries on.
  * react: "talk" p = 0.55 when the speaker has untold news/hosting and the noticed person is a
    person; otherwise continue 0.68 / talk 0.14 (+0.1 positive tone) / wait 0.12 / react 0.06.

RATING, REFLECTING, INTERVIEWS, STATUS
  * importance: routine "is X-ing"/object states 1-2; chat 3; news/told/heard 5-6; an event the
    character hosts or will attend 7-8; death/accident/fire/storm words 8; noise +/-1 p = 0.25.
    importance_batch: one per item, wrong count (one missing) p = 0.03.
  * relationship: one or two sentences from identity + memories naming the person, tone above.
  * reflection_questions: up to 3 questions on people/events that recur in the memories.
  * reflection_insights: 1 per question (up to 5) plus 1 on an event the statements hold,
    evidence = numbers of statements naming its subject (else the last three), importance 3-5
    (6 for the event insight).
  * interview: "do you know X": identity names X -> describes the tie; memories name X ->
    "I've seen/talked with X ..."; else says no, p = 0.88 (p = 0.12 vague small-town claim).
    "heard about EVENT": memories/status hold it -> tells what/when/where as read (time dropped
    p = 0.1); else says no, p = 0.85 (p = 0.15 vague guess).  Other questions: answer from the
    status.
  * revise_currently: old status kept (first sentence) + an event it hosts / said it will go
    to / heard of with p = 0.85 / 0.85 / 0.5.
  * probe and unknown JSON tasks: fill the schema from the prompt's most fitting words
    (strings: a short plain sentence; numbers: a middle value; booleans true; enums: first
    enum value whose words occur in the prompt, else the first non-empty value).  Unknown
    plain-text tasks: one short helpful paragraph about the request's main topic.

FORMAT FAULTS (JSON), beyond the max_tokens cut
  * runaway whitespace/repetition under the grammar (known Ollama/Gemma behaviour): p = 0.01,
    output padded until max_tokens and cut (malformed).
  * indented (pretty-printed) JSON p = 0.25 (costs tokens, can hit max_tokens).
  * On a retry turn the previous non-grammar fault (length/bounds/count) is repaired p = 0.85.
Determinism: all choices come from random.Random seeded by sha256(body JSON + seed).
"""
import hashlib
import json
import random
import re

CTX = 8192
CPT_IN = 3.6
CPT_OUT = 3.3

MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august',
          'september', 'october', 'november', 'december']
WDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
MON_RE = r'(January|February|March|April|May|June|July|August|September|October|November|December)'
WD_RE = r'(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)'
NAME_RE = r"\b([A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)? [A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?)\b"
POS_W = ['friend', 'fond', 'enjoy', 'closest', 'favourite', 'favorite', 'values', 'easy',
         'warm', 'married', 'daughter', 'son ', 'mother', 'father', 'husband', 'wife', 'likes',
         'kind to', 'under her wing', 'under his wing', 'good terms', 'trust']
NEG_W = ['quarrel', 'grudge', 'against', 'argue', 'resent', 'not yet paid', 'dislike',
         'rival', 'wary', 'feud', 'annoy', 'distrust', 'row with', 'sets ']
HOST_VERBS = r'(?:is hosting|\'m hosting|\'m holding|am hosting|am holding|\'m putting on|\'re holding|\'re hosting|are holding|are hosting|hosts|is holding|holds|will hold|will host|wants to teach|wants to hold|wants to run|is running|is putting on|is getting it up|is organising|is organizing|is giving|is throwing|invites everyone|means to hold|plans to hold|is teaching)'
EVENT_WORDS = ['hosting', 'holding', 'auction', 'lesson', 'party', 'fair', 'meeting', 'event',
               'gathering', 'ceilidh', 'dance', 'concert', 'supper', 'sale', 'class',
               'workshop', 'teach', 'festival', 'talk ', 'show', 'market', 'afternoon of',
               'evening of', 'dyeing', 'news', 'told', 'heard']
COMMIT_W = ['going to', 'hosting', 'meeting', 'appointment', 'calling on', 'visit', 'lesson',
            'auction', 'party', 'event', 'class', 'workshop', 'see ', 'attend', 'fair',
            'concert', 'dance', 'holding', 'teaching']
YES_RE = re.compile(r"(count me in|i'll be there|i will be there|i'll come|i will come|"
                    r"i'd love to|i would love to|i'll go|i think i'll go|i'll definitely|"
                    r"wouldn't miss it|i'm in\b|see you there|we'll be there|i can make it|"
                    r"i'll be along|i'll join|i'll try to make it|sounds lovely, count)", re.I)
NO_RE = re.compile(r"(can't make it|cannot make it|can't come|won't be able|not my sort|"
                   r"another time|i'm afraid i|sorry, i|i have other plans|i've already got|"
                   r"i'll pass|not for me)", re.I)
INVITE_RE = re.compile(r"(would you (like to )?come|will you come|do come|you should come|"
                       r"you'd be (very )?welcome|care to join|hope you('ll| can) come|"
                       r"come along|join (me|us)|be glad if you came|like to come|"
                       r"fancy coming|can you make it)", re.I)


# ----------------------------------------------------------------- small utilities
def _rng(body, seed, salt=''):
    s = json.dumps(body, sort_keys=True, ensure_ascii=False) + '|' + str(seed) + '|' + salt
    return random.Random(int(hashlib.sha256(s.encode('utf-8')).hexdigest()[:16], 16))


def _hm(m):
    m = int(m) % 1440
    return '%02d:%02d' % (m // 60, m % 60)


def _clock_words(m):
    h, mi = divmod(int(m) % 1440, 60)
    if h == 12 and mi == 0:
        return 'noon'
    suf = 'am' if h < 12 else 'pm'
    h12 = h % 12 or 12
    return ('%d%s' % (h12, suf)) if mi == 0 else ('%d:%02d%s' % (h12, mi, suf))


WORDNUM = {'one': 1, 'two': 2, 'three': 3, 'four': 4, 'five': 5, 'six': 6, 'seven': 7,
           'eight': 8, 'nine': 9, 'ten': 10, 'eleven': 11, 'twelve': 12}


def parse_times(text):
    """All clock times in text, in order, as minutes since midnight."""
    out = []
    t = text
    pat = re.compile(
        r"(\b\d{1,2}:\d{2}\s*(?:am|pm|a\.m\.|p\.m\.)?)|(\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.))|"
        r"(\bnoon\b|\bmidday\b|\bmidnight\b|\bsundown\b|\bdusk\b|\bsunset\b|\bdawn\b|"
        r"\bafter work\b|\bthe afternoon\b|\bthe morning\b|\bthe evening\b|\bteatime\b|\blunchtime\b)|"
        r"\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) o'clock\b", re.I)
    for m in pat.finditer(t):
        g = m.group(0).lower().replace('.', '')
        if m.group(1) or m.group(2):
            mm = re.match(r'(\d{1,2})(?::(\d{2}))?\s*(am|pm)?', g)
            h = int(mm.group(1)); mi = int(mm.group(2) or 0); ap = mm.group(3)
            if h > 24 or mi > 59:
                continue
            if ap == 'pm' and h < 12:
                h += 12
            if ap == 'am' and h == 12:
                h = 0
            out.append((h * 60 + mi) % 1440)
        elif m.group(4):
            h = WORDNUM[m.group(4).lower()]
            out.append((h + 12 if h < 8 else h) * 60)
        else:
            out.append({'noon': 720, 'midday': 720, 'midnight': 0, 'sundown': 1080, 'dusk': 1080,
                        'sunset': 1080, 'dawn': 360, 'after work': 1080,
                        'the afternoon': 900, 'the morning': 540, 'the evening': 1140,
                        'teatime': 1020, 'lunchtime': 720}[g])
    return out


def parse_date(text, year=2026, now=None):
    """First explicit date in text -> (y, m, d), relative words resolved against now."""
    m = re.search(MON_RE + r'\s+(\d{1,2})\b', text)
    m2 = re.search(r'\b(\d{4})-(\d{2})-(\d{2})\b', text)
    cands = []
    if m:
        cands.append((m.start(), (year, MONTHS.index(m.group(1).lower()) + 1, int(m.group(2)))))
    if m2:
        cands.append((m2.start(), (int(m2.group(1)), int(m2.group(2)), int(m2.group(3)))))
    if now:
        r = re.search(r'\b(today|tonight|this (?:afternoon|evening|morning))\b', text, re.I)
        if r:
            cands.append((r.start(), now))
        r = re.search(r'\btomorrow\b', text, re.I)
        if r:
            cands.append((r.start(), _add_days(now, 1)))
        if not cands:
            r = re.search(WD_RE, text)
            if r:
                wd = WDAYS.index(r.group(1).lower())
                k = (wd - _weekday(now)) % 7
                cands.append((r.start(), _add_days(now, k)))
    if not cands:
        return None
    cands.sort(key=lambda c: c[0])
    return cands[0][1]


MDAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def _ord(d):
    y, m, dd = d
    n = (y - 1) * 365 + (y - 1) // 4 - (y - 1) // 100 + (y - 1) // 400
    leap = (y % 4 == 0 and y % 100 != 0) or y % 400 == 0
    for i in range(m - 1):
        n += MDAYS[i] + (1 if (i == 1 and leap) else 0)
    return n + dd


def _from_ord(n):
    y = max(1, int(n / 365.2425))
    while _ord((y + 1, 1, 1)) <= n:
        y += 1
    while _ord((y, 1, 1)) > n:
        y -= 1
    leap = (y % 4 == 0 and y % 100 != 0) or y % 400 == 0
    r = n - _ord((y, 1, 1)) + 1
    for i in range(12):
        ml = MDAYS[i] + (1 if (i == 1 and leap) else 0)
        if r <= ml:
            return (y, i + 1, r)
        r -= ml
    return (y, 12, 31)


def _add_days(d, k):
    return _from_ord(_ord(d) + k)


def _weekday(d):
    return (_ord(d) - 1) % 7  # 0 = Monday (proleptic: 0001-01-01 was a Monday)


def _iso(d):
    return '%04d-%02d-%02d' % d


def _day_words(d, now):
    if not d or not now:
        return ''
    k = _ord(d) - _ord(now)
    if k == 0:
        return 'today'
    if k == 1:
        return 'tomorrow'
    if 1 < k < 7:
        return 'on ' + WDAYS[_weekday(d)].capitalize()
    return 'on %s %d' % (MONTHS[d[1] - 1].capitalize(), d[2])


def _sentences(text):
    return [s.strip() for s in re.split(r'(?<=[.!?])\s+|\n', text) if s.strip()]


def _first(name):
    return name.split()[0] if name and name.split() else 'there'


def _cut(s, n):
    s = s.strip()
    return s if len(s) <= n else s[:n].rsplit(' ', 1)[0]


# ----------------------------------------------------------------- prompt reading
class Prompt:
    def __init__(self, body):
        msgs = body.get('messages') or []
        self.system = '\n'.join(m.get('content') or '' for m in msgs if m.get('role') == 'system')
        users = [m for m in msgs if m.get('role') == 'user']
        self.retry = any(m.get('role') == 'assistant' for m in msgs)
        self.user = (users[0].get('content') or '') if users else ''
        if isinstance(self.user, list):
            self.user = ' '.join(p.get('text', '') for p in self.user if isinstance(p, dict))
        self.full = self.system + '\n\n' + self.user
        self.tokens = len(self.full) / CPT_IN
        self.lost_front = self.tokens > CTX - 256
        if self.lost_front:
            keep = int((CTX - 256) * CPT_IN)
            self.user = self.full[-keep:]
            self.system = ''
            self.full = self.user
        yr = re.search(r'\b(20\d\d)\b', self.full)
        self.year = int(yr.group(1)) if yr else 2026
        self.me = None
        m = re.search(r'(?:inner mind of|You are|playing)\s+' + NAME_RE, self.system)
        if m:
            self.me = m.group(1)
        if not self.me:
            m = re.search(r'Name:\s*' + NAME_RE, self.user)
            self.me = m.group(1) if m else None
        # now
        self.now = None
        self.now_min = None
        lines = [l for l in self.user.split('\n') if not l.lstrip().startswith(('- ', 'Currently', 'Identity', 'Memory'))]
        lines = [l for l in lines if re.search(r"\b(It is|It's|Today is|Now is|now)\b", l)] + lines
        for line in lines:
            d = re.search(r'(?:' + WD_RE + r',?\s+)?' + MON_RE + r'\s+(\d{1,2})', line)
            if d:
                self.now = (self.year, MONTHS.index(d.group(2).lower()) + 1, int(d.group(3)))
                ts = parse_times(line)
                if ts:
                    self.now_min = ts[0]
                break
        if not self.now:
            d = re.search(MON_RE + r'\s+(\d{1,2})', self.user)
            if d:
                self.now = (self.year, MONTHS.index(d.group(1).lower()) + 1, int(d.group(2)))
        self.names = []
        for n in re.findall(r'Name:\s*' + NAME_RE, self.user):
            if n not in self.names:
                self.names.append(n)
        self.places = _find_places(self.user)

    def persona(self, who=None):
        who = who or self.me
        txt = self.section(who)
        p = {}
        for key, pat in (('traits', r'Innate traits:\s*(.*)'), ('identity', r'Identity:\s*(.*)'),
                         ('life', r'Lifestyle:\s*(.*)'), ('currently', r'Currently:\s*(.*)'),
                         ('age', r'Age:\s*(\d+)')):
            m = re.search(pat, txt)
            p[key] = m.group(1).strip() if m else ''
        life = p['life']
        w = re.search(r'wakes? up at ([^,;]+)', life)
        b = re.search(r'(?:goes|go) to bed at ([^,;]+)', life)
        p['wake'] = (parse_times(w.group(1)) or [420])[0] if w else 420
        p['bed'] = (parse_times(b.group(1)) or [1320])[0] if b else 1320
        wk = re.search(r'from ([^,;]+?) to ([^,;]+?)(?:,|;| and|$)', life)
        if wk:
            a = parse_times(wk.group(1)); z = parse_times(wk.group(2))
            p['work'] = (a[0], z[0]) if a and z else None
            ww = re.sub(r'\s*from .*', '', life.split(',')[1].strip()) if ',' in life else 'working'
            ws_ = ww.split(' ', 1)
            if ws_ and ws_[0].endswith('s') and not ws_[0].endswith('ss'):
                v = ws_[0][:-1]
                v = {'doe': 'do', 'goe': 'go', 'tend': 'tend'}.get(v, v)
                if v.endswith('e') and not v.endswith(('ee', 'ye', 'oe')):
                    v = v[:-1]
                ww = v + 'ing' + ((' ' + ws_[1]) if len(ws_) > 1 else '')
            p['work_what'] = ww
        else:
            p['work'] = None
            p['work_what'] = 'working'
        return p

    def section(self, who):
        """Lines of the prompt that belong to one person (by which person a header names)."""
        if not who or len(self.names) < 2:
            return self.user
        owner = None
        out = []
        for line in self.user.split('\n'):
            s = line.lstrip()
            if not s.startswith('-') and s:
                hits = [(line.find(n), n) for n in self.names if n in line]
                if s.startswith('Name:'):
                    owner = s[5:].strip()
                elif hits:
                    hits.sort()
                    if s.startswith('Places ') or s.startswith('What ') or ' has news' in s or \
                            ' has no news' in s or ' was ' in s or ' is ' in s[:60]:
                        owner = hits[0][1]
                if owner is None or owner == who:
                    out.append(line)
                elif s.startswith(('Nobody', 'In their', '1.', '2.', '3.', '4.', '5.')):
                    owner = None
                    out.append(line)
            elif owner is None or owner == who:
                out.append(line)
        return '\n'.join(out)

    def plan(self, text=None):
        text = self.user if text is None else text
        items = []
        for line in text.split('\n'):
            m = re.match(r'\s*-\s*(\d{1,2}:\d{2})\s*[-\u2013]\s*(\d{1,2}:\d{2})\s+(.*)', line)
            if not m:
                continue
            a = parse_times(m.group(1))[0]; z = parse_times(m.group(2))[0]
            rest = m.group(3)
            pl = re.search(r"\(([^()]*:[^()]*:[^()]*)\)", rest)
            place = pl.group(1).replace('planned at ', '').strip() if pl else ''
            act = re.sub(r'\s*\(.*', '', rest).strip()
            d = None
            on = re.search(r'\bon ' + WD_RE + r'?,?\s*' + MON_RE + r'\s+(\d{1,2})', rest)
            if on:
                d = (self.year, MONTHS.index(on.group(2).lower()) + 1, int(on.group(3)))
            items.append({'start': a, 'end': z, 'act': act, 'place': place, 'date': d or self.now})
        return items

    def tone(self, who, toward):
        if not toward:
            return 0
        txt = self.section(who) if who else self.user
        score = 0
        keys = [toward, _first(toward)]
        for s in _sentences(txt):
            if any(k in s for k in keys) and not s.lstrip().startswith('- ['):
                sl = s.lower()
                score += sum(1 for w in POS_W if w in sl)
                score -= 2 * sum(1 for w in NEG_W if w in sl)
        return (score > 0) - (score < 0)

    def best_place(self, text, options=None):
        options = [o for o in (options if options is not None else self.places) if o]
        if not options:
            return ''
        tl = set(re.findall(r"[a-z']+", text.lower())) - {'the', 'of', 'at', 'in', 'a', 'on', 'by'}
        best, bs = '', 0
        for o in options:
            parts = o.split(':')
            w = set(re.findall(r"[a-z']+", ':'.join(parts[1:]).lower())) - {'the', 'of'}
            sub = set(re.findall(r"[a-z']+", parts[-1].lower()))
            sc = len(w & tl) + 0.5 * len(sub & tl)
            if sc > bs:
                best, bs = o, sc
        return best if bs >= 1.5 else ''


PLACE_RE = r"[A-Z][\w'-]*(?: [\w'-]+)*:[\w'-]+(?: [\w'-]+)*:[\w'-]+(?: [\w'-]+)*"


def _find_places(text):
    out = []
    for line in text.split('\n'):
        st = line.strip()
        cands = []
        if re.fullmatch(r'-\s*' + PLACE_RE, st):
            cands.append(st.lstrip('- ').strip())
        cands += re.findall(r'\((?:planned at )?(' + PLACE_RE + r')\)', st)
        if re.search(r'knows?:\s*' + PLACE_RE, st):
            cands += [c.strip() for c in st.split(':', 1)[1].split(',') if re.fullmatch(PLACE_RE, c.strip())]
        cands += re.findall(r'\bat (' + PLACE_RE + r')[.,;]', st)
        cands += re.findall(r'\b(?:home|at home) \((' + PLACE_RE + r')\)', st)
        for c in cands:
            if c not in out:
                out.append(c)
    return out


class Event:
    def __init__(self):
        self.what = 'the event'
        self.key = 'event'
        self.host = None
        self.date = None
        self.start = None
        self.end = None
        self.where_txt = ''
        self.place = ''
        self.src = ''


def parse_event(sentence, P):
    """Read an event out of one sentence (meaning-based, tolerant of styles)."""
    s = re.sub(r'^\s*-?\s*\[[^\]]*\]\s*', '', sentence)
    ev = Event()
    ev.src = s
    # the host
    m = re.search(NAME_RE + r"(?:'s)? " + HOST_VERBS, s)
    if m:
        ev.host = m.group(1)
    elif re.search(r'\b(she|he|they) (?:is|are|means to|will) (?:hosting|holding|getting it up)', s, re.I) \
            or re.search(r'getting it up (?:her|him|them)self', s):
        names = re.findall(NAME_RE, s)
        ev.host = names[0] if names else None
    # what
    w = None
    m = re.search(HOST_VERBS + r"\s+(?:an? |the |some )?(.+?)(?=\s+(?:in|at|on|by|from|between|"
                  r"this|tomorrow|today|for|of [A-Z]|,)\b|\s*[,(:;.]|$)", s)
    if m:
        w = m.group(1)
    if w and re.match(r"(?:in|at|on|by|from)\b", w):
        w = None
    if not w:
        m = re.search(r"\b(?:[Aa]n?|[Tt]he) ([a-z][a-z' -]{2,40}?) " + NAME_RE + r" " + HOST_VERBS, s)
        if m:
            w = m.group(1)
    if not w:
        for m in re.finditer(r"\b([Aa]n?|[Tt]he) ([a-z][a-z' -]{2,40}?)(?=\s+(?:in|at|on|by|from|between)\b|,)", s):
            if 'news' not in m.group(2) and m.group(2).split()[0] not in ('bit', 'lot', 'word', 'few'):
                w = m.group(2)
                break
    if w and (re.match(r"(?:her|him|them|it|my|our)sel(?:f|ves)\b", w.strip()) or len(w.split()) > 8 or 'news' in w
              or re.fullmatch(r"(?:an?|the)?\s*", w.strip())):
        w = None
        m = re.search(r"\b(?:[Aa]n?|[Tt]he) ([a-z][a-z' -]{2,40}?)(?=\s+(?:in|at|on|by|from|between)\b|,)", s)
        if m:
            w = m.group(1)
    if w:
        w = w.strip()
        w = re.sub(r'^(?:an?|the)\s+', '', w)
        ev.what = (('an ' if w[0].lower() in 'aeiou' else 'a ') + w) if not w.endswith('ing') else w
        words = [x for x in re.findall(r"[a-z]+", w.lower()) if len(x) > 3 and x not in
                 ('some', 'little', 'small', 'great', 'lesson' if False else '')]
        ev.key = words[-1] if words else w.split()[-1].lower()
    # where: the phrase after in/at
    m = re.search(r"\b(?:in|at) (the [A-Za-z' ]+?(?: of| at| by)? (?:the )?[A-Z][A-Za-z' ]+?)(?=[,.(;:]| on | from | between | this | tomorrow| today|$)", s)
    if m:
        ev.where_txt = m.group(1).strip()
        if re.search(r"\b(is|are|was|told|said|heard)\b", ev.where_txt) or re.search(WD_RE + '|' + MON_RE, ev.where_txt) \
                or not re.search(r"[A-Z]", ev.where_txt) or len(ev.where_txt.split()) > 9 or \
                re.search(NAME_RE + r" (?:is|told)", ev.where_txt):
            ev.where_txt = ''
    ev.place = P.best_place((ev.where_txt or '') + ' ' + re.sub(r'\(.*?\)', ' ', s) + ' ' +
                            ' '.join(re.findall(r'\(([^()]*)\)', s)))
    if ev.where_txt == '' and ev.place:
        parts = ev.place.split(':')
        ev.where_txt = 'the %s at %s' % (parts[-1], parts[1]) if len(parts) > 2 else ev.place
    # when
    ev.date = parse_date(s, P.year, P.now)
    ts = parse_times(s)
    if ts:
        ev.start = ts[0]
        ev.end = ts[1] if len(ts) > 1 and ts[1] > ts[0] else None
    return ev


def find_events(text, P):
    evs = []
    for s in re.split(r'\n', text):
        low = s.lower()
        if 'no news' in low:
            continue
        if not any(w in low for w in EVENT_WORDS):
            continue
        if not (re.search(MON_RE + r'\s+\d', s) or re.search(r'\b(today|tomorrow)\b', low)
                or parse_times(s) or re.search(WD_RE, s)):
            continue
        if not (re.search(HOST_VERBS, s) or 'news' in low or 'event' in low):
            continue
        ev = parse_event(s, P)
        if ev.what == 'the event' and not ev.host:
            continue
        evs.append(ev)
    return evs


def news_of(P, who):
    """(event, keen, hosting) for the person: what the prompt says they have on their mind."""
    sec = P.section(who)
    keen = None
    for line in sec.split('\n'):
        s = line.strip()
        if s.startswith('- ['):
            continue
        low = s.lower()
        if who and who in s and ('news' in low or re.search(HOST_VERBS, s)) and 'no news' not in low \
                and not low.startswith(('- one', 'one with', 'if ', '1.', '- if', 'each with')):
            evs = find_events(s, P)
            if evs:
                keen = evs[0]
                break
    events = find_events(sec, P)
    if keen is None:
        for e in events:
            if e.host == who and ('Events' in sec or 'holding' in sec.lower()):
                if re.search(re.escape(who) + r' (?:is|are) (?:holding|hosting)', sec) or \
                        'getting it up' in e.src:
                    keen = e
                    break
    hosting = bool(keen and keen.host == who)
    if keen is None:
        for line in sec.split('\n'):
            if who and who in line and ('event they are hosting' in line or 'holding' in line.lower()) \
                    and not line.strip().startswith('- ['):
                ev = find_events(line, P)
                if ev:
                    keen, hosting = ev[0], True
    # the best-informed version of the same event from anywhere in the section
    if keen is not None:
        def _score(e):
            return (e.date is not None) + (e.start is not None) + 2 * bool(e.where_txt) + bool(e.place) + (e.what != 'the event')
        same = [e for e in events if e.key == keen.key or (keen.what == 'the event' and e.host == keen.host)]
        if same:
            b = max(same, key=_score)
            if _score(b) > _score(keen):
                h = keen.host
                keen = b
                keen.host = keen.host or h
    if False:
        for e in events:
            if e.key == keen.key and e.start is not None:
                keen.start = keen.start if keen.start is not None else e.start
                keen.end = keen.end or e.end
                keen.date = keen.date or e.date
                keen.place = keen.place or e.place
                keen.where_txt = keen.where_txt or e.where_txt
                break
    known = events
    return keen, hosting, known


# ----------------------------------------------------------------- speaking
def _event_phrase(ev, P, r, hosting, teller):
    day = _day_words(ev.date, P.now)
    if day and r.random() < 0.04:  # date slip
        day = {'today': 'tomorrow', 'tomorrow': 'today'}.get(day, day)
    tm = ''
    if ev.start is not None and r.random() >= 0.08:
        tm = ('from %s to %s' % (_clock_words(ev.start), _clock_words(ev.end))) if ev.end and r.random() < 0.5 \
            else 'at ' + _clock_words(ev.start)
    where = (' ' + ('in ' if ev.where_txt.lower().startswith('the ') and not ev.where_txt.lower().startswith('the quay') else 'at ') + ev.where_txt) if ev.where_txt else ''
    when = ' '.join(x for x in (day, tm) if x)
    what = ev.what
    if hosting:
        base = r.choice(["I'm holding %s%s %s" % (what, where, when),
                         "I'm putting on %s%s %s" % (what, where, when),
                         "I'm hosting %s%s %s" % (what, where, when)])
    else:
        host = ev.host if ev.host and ev.host != teller else None
        if host:
            base = r.choice(["%s is holding %s%s %s" % (_first(host), what, where, when),
                             "%s's hosting %s%s %s" % (_first(host), what, where, when)])
        else:
            base = "there's %s%s %s" % (what, where, when)
    return re.sub(r'\s+', ' ', base).strip()


def _greet(P, partner, r, traits):
    t = P.now_min if P.now_min is not None else 600
    part = 'morning' if t < 720 else ('afternoon' if t < 1080 else 'evening')
    fn = _first(partner) if partner and partner != 'everyone' else 'all'
    tl = traits.lower()
    if any(w in tl for w in ('gruff', 'dry', 'brisk', 'solitary', 'taciturn', 'blunt')):
        return r.choice(['%s.' % fn if fn != 'all' else 'Hello, all.', 'Morning, %s.' % fn if part == 'morning' else 'Evening, %s.' % fn,
                         "Ah, %s." % fn])
    return r.choice(['Oh, hello %s! Good %s.' % (fn, part), 'Good %s, %s!' % (part, fn),
                     'Ah, %s, good to see you.' % fn, 'Hello, %s! How are you keeping?' % fn])


def _small_talk(P, me, partner, r, cur):
    cur = cur or ''
    c = re.sub(r'^' + re.escape(me or '') + r' (is |has |was )?', '', _sentences(cur)[0] if cur else '').rstrip('.')
    c = re.split(r',| and | to tell| who | which ', c)[0].strip()
    if re.search(HOST_VERBS, cur or '') or re.search(r'\b(hosting|holding)\b', c) or ':' in c:
        c = ''
    c = re.sub(r'\b(his|her|their)\b', 'my', c)
    opts = ["I've been %s, if you can believe it." % c if c and len(c) < 110 and not c[0].isupper() else "It's been a busy few days.",
            "How are things with you?",
            "Quiet day so far, thankfully.",
            "Mind how you go in this weather."]
    return r.choice(opts)


def conv_lines(text):
    """Lines said so far: list of (speaker, words)."""
    out = []
    for m in re.finditer(r'^\s*' + NAME_RE + r':\s*"?(.*?)"?\s*$', text, re.M):
        out.append((m.group(1), m.group(2)))
    return out


def speak(P, me, others, said, r, sec_text=None, first_line=None):
    """One line for `me`, given what has been said. Returns (text, ends, info)."""
    pers = P.persona(me)
    partner = others[0] if len(others) == 1 else 'everyone'
    keen, hosting, known = news_of(P, me)
    info = {'told': None, 'accepted': None, 'intends': None}
    long_factor = 0.85 if P.tokens > 5000 else 1.0
    my_lines = [w for s, w in said if s == me]
    last = said[-1] if said else None
    all_text = ' '.join(w for _, w in said).lower()
    parts = []
    ends = False
    if not my_lines and (not said or len(said) <= 1):
        parts.append(_greet(P, partner if len(others) == 1 else 'everyone', r, pers['traits']))
    # respond to an invitation / news in the other's last line
    if last and last[0] != me:
        lw = last[1]
        evs_in = find_events(lw, P) if (re.search(HOST_VERBS, lw) or any(k in lw.lower() for k in ('holding', 'hosting', 'putting on'))) else []
        ev = evs_in[0] if evs_in else None
        if ev is None and known:
            for e in known:
                if e.key and e.key in lw.lower():
                    ev = e
        inviter = last[0]
        invited = bool(INVITE_RE.search(lw)) and ev is not None
        if ev is not None and ev.host is None and re.search(r"\bI'm (holding|hosting|putting on)", lw):
            ev.host = inviter
        if ev is not None and ev.date is None:
            ev.date = P.now
        if ev is not None and ev.host != me:
            clash, what = _clash(P, me, ev, pers)
            host = ev.host or inviter
            tone = P.tone(me, host)
            if invited and (ev.host in (None, inviter)):
                p = 0.70 + 0.12 * (tone > 0) - 0.25 * (tone < 0)
                if any(w in pers['traits'].lower() for w in ('solitary', 'shy', 'gruff', 'proud', 'reserved')):
                    p -= 0.10
                if clash:
                    p = 0.15
                p = min(0.95, max(0.05, p))
                if r.random() < p:
                    info['accepted'] = True
                    parts.append(r.choice(["Oh, I'd love to, count me in!",
                                           "That sounds grand. I'll be there%s." % (
                                               ' at ' + _clock_words(ev.start) if ev.start is not None else ''),
                                           "Yes, I'll come along, thank you for asking.",
                                           "I wouldn't miss it, %s." % _first(inviter)]))
                else:
                    info['accepted'] = False
                    exc = (" I've got %s then." % what) if (clash and what) else ''
                    parts.append(r.choice(["Ah, I'm afraid I can't make it.%s" % exc,
                                           "Sorry, %s, I won't be able to come.%s" % (_first(inviter), exc)]))
                    if r.random() < 0.4:
                        parts.append("Maybe another time?")
            elif ev.key and ev.key in lw.lower():
                p = 0.35 + 0.15 * (tone > 0) - 0.2 * (tone < 0)
                if clash:
                    p = 0.05
                if r.random() < p:
                    info['intends'] = True
                    parts.append(r.choice(["Oh, that sounds worth seeing. I think I'll go along.",
                                           "Really? I'll be there, then.",
                                           "Thanks for telling me, I'll come along to that."]))
                else:
                    parts.append(r.choice(["Oh, is that so? Thanks for letting me know.",
                                           "Interesting. I'll have to see how the day goes.",
                                           "Not really my sort of thing, but good to know."]))
        elif re.search(r'\b(bye|goodbye|see you|take care|must be off|get going)\b', lw, re.I) and my_lines:
            parts.append(r.choice(['Take care, %s.' % _first(inviter), 'See you later, %s.' % _first(inviter), 'Bye now!']))
            ends = True
        elif YES_RE.search(lw) and (ev is not None and ev.host == me or (keen_h := news_of(P, me))[1] and keen_h[0].key in all_text):
            parts.append(r.choice(["Wonderful, I'm so glad you'll come, %s!" % _first(inviter),
                                   "Grand, see you there then."]))
    # bring up own news
    if keen is not None and not ends:
        already = keen.key and keen.key in all_text
        if not already:
            p = (0.85 if not my_lines else 0.75) * long_factor
        else:
            p = 0.0
        if r.random() < p:
            phr = _event_phrase(keen, P, r, hosting, me)
            opener = r.choice(['Oh, before I forget, ', 'Have you heard? ', "I've a bit of news: ", ''])
            low1 = opener and not re.match(r"I\b|I'|[A-Z][a-z]+[\s']", phr)
            txt = opener + (phr[0].lower() + phr[1:] if low1 else phr[0].upper() + phr[1:]) + '.'
            parts.append(txt)
            info['told'] = keen
            if hosting:
                if r.random() < 0.9:
                    parts.append(r.choice(['Would you like to come?', "I'd be glad if you came along.",
                                           'Do come, %s!' % (_first(partner) if partner != 'everyone' else 'all of you')]))
            elif r.random() < 0.1:
                parts.append('You should come along.')
    elif keen is None and not ends and known and not my_lines:
        up = [e for e in known if e.date and P.now and _ord(e.date) >= _ord(P.now) and e.key not in all_text]
        if up and r.random() < 0.12:
            e = up[0]
            parts.append('Have you heard? ' + _event_phrase(e, P, r, e.host == me, me) + '.')
            info['told'] = e
    if len(parts) == 0 or (len(parts) == 1 and not my_lines and not said and not info['told']):
        parts.append(_small_talk(P, me, partner, r, pers['currently']))
    # ending
    n = len(said)
    if not ends and my_lines:
        pe = 0.25 if n < 4 else (0.55 if n < 7 else 0.85)
        if info['accepted'] is not None or info['intends']:
            pe = max(pe, 0.3)
        if r.random() < pe:
            ends = True
            if not any('bye' in x.lower() or 'take care' in x.lower() for x in parts):
                parts.append(r.choice(['Anyway, I should get going. Take care!', 'Right, I must be off.',
                                       'See you later, %s.' % _first(partner) if partner != 'everyone' else 'See you all later.']))
    return ' '.join(parts), ends, info


def _clash(P, me, ev, pers):
    if ev.start is None:
        return False, ''
    s, e = ev.start, ev.end or ev.start + 60
    wake, bed = pers['wake'], pers['bed']
    # sleeping hours
    if bed > wake:
        asleep = s >= bed or s < wake
    else:
        asleep = bed <= s < wake
    if asleep:
        return True, 'my sleep'
    sec = P.section(me)
    for it in P.plan(sec):
        if ev.date and it['date'] and it['date'] != ev.date:
            continue
        if it['start'] < e and s < (it['end'] if it['end'] > it['start'] else 1440):
            a = it['act'].lower()
            if ev.key and ev.key in a:
                continue
            if any(w in a for w in COMMIT_W) and not any(w in a for w in ('sleep', 'lunch', 'dinner', 'breakfast', 'relax', 'free time')):
                return True, it['act']
    return False, ''


# ----------------------------------------------------------------- memo logic
def memo_for(P, me, others, lines, r, schema_props):
    fn = ', '.join(_first(o) for o in others if o != me) or 'someone'
    mine = ' '.join(w for s, w in lines if s == me)
    theirs = ' '.join(w for s, w in lines if s != me)
    alltxt = ' '.join(w for _, w in lines)
    evs = find_events(alltxt.replace('. ', '.\n'), P) if alltxt else []
    ev = evs[0] if evs else None
    keen, hosting, known = news_of(P, me)
    if ev is None:
        for e in known:
            if e.key and e.key in alltxt.lower():
                ev = e
                break
    if ev is not None and (ev.start is None or ev.date is None):
        for e in known + ([keen] if keen else []):
            if e and e.key == ev.key:
                ev.start = ev.start if ev.start is not None else e.start
                ev.end = ev.end or e.end
                ev.date = ev.date or e.date
                ev.place = ev.place or e.place
    said_yes = bool(YES_RE.search(mine)) and not NO_RE.search(mine)
    is_host = ev is not None and (ev.host == me or (hosting and keen and keen.key == ev.key))
    if ev is not None and ev.host is None and re.search(r"I'm (holding|hosting|putting on)", theirs):
        pass
    plan = None
    if ev is not None and not is_host:
        if said_yes:
            plan = r.random() >= 0.07
        else:
            plan = (r.random() < 0.08) if ev.key in alltxt.lower() else False
    # summary
    if ev is not None and ev.key in alltxt.lower():
        when = _day_words(ev.date, P.now)
        tm = (' at ' + _clock_words(ev.start)) if ev.start is not None else ''
        wh = (' at ' + ev.where_txt) if ev.where_txt else ''
        host = ev.host or ('I' if is_host else None)
        tellers = [s_ for s_, w_ in lines if ev.key in w_.lower()]
        teller = tellers[0] if tellers else None
        hostpart = (' held by %s' % _first(host)) if host and host not in (me, 'I') else ''
        if is_host or teller == me:
            summ = 'I told %s about %s%s%s %s%s.' % (fn, ev.what, hostpart, wh, when, tm)
        else:
            summ = '%s told me about %s%s%s %s%s%s.' % (
                _first(teller) if teller else fn, ev.what, hostpart if teller != host else '',
                wh, when, tm, (' and I said I would go' if said_yes else ''))
        imp = 6 if said_yes or is_host else 5
    else:
        summ = 'I had a short friendly chat with %s; nothing in particular was arranged.' % fn
        imp = 2
    if r.random() < 0.3:
        imp += r.choice([-1, 1])
    imp = max(1, min(10, imp))
    m = {'summary': re.sub(r'\s+', ' ', summ).replace(' .', '.'), 'importance': imp, 'plan_activity': '',
         'plan_date': '', 'plan_start': '', 'plan_minutes': 0, 'plan_place': ''}
    if plan and ev is not None:
        d = ev.date or P.now
        if r.random() < 0.06 and P.now:
            d = P.now
        m['plan_activity'] = 'going to ' + ev.what
        m['plan_date'] = _iso(d) if d else ''
        if ev.start is not None:
            m['plan_start'] = _hm(ev.start)
        elif r.random() < 0.5:
            m['plan_start'] = '10:00'
        m['plan_minutes'] = (ev.end - ev.start) if (ev.end and ev.start is not None and ev.end > ev.start) else (60 if r.random() < 0.3 else 120)
        enum = (schema_props.get('plan_place') or {}).get('enum')
        m['plan_place'] = P.best_place(ev.place + ' ' + ev.where_txt, enum) if enum else ev.place
        if enum and ev.place in enum:
            m['plan_place'] = ev.place
    return m


# ----------------------------------------------------------------- task handlers
def h_interview(P, r, props):
    q = ''
    m = re.search(r'asks?[^:\n]*:\s*"([^"]+)"', P.user)
    if m:
        q = m.group(1)
    else:
        qs = re.findall(r'"([^"]*\?)"', P.user)
        q = qs[-1] if qs else ''
    me = P.me
    pers = P.persona()
    mem = '\n'.join(l for l in P.user.split('\n') if l.strip().startswith('- '))
    nm = re.search(NAME_RE, q)
    if nm and 'know' in q.lower():
        who = nm.group(1)
        idsents = [s for s in _sentences(pers['identity'])
                   if (who in s or (_first(who) in s and len(_first(who)) > 2)) and ':' not in s and 'told me' not in s]
        if who == me:
            return "That's me! I'm %s." % me
        if idsents:
            s = idsents[0]
            s = re.sub(r'\b' + re.escape(me) + r'\b', 'I', s)
            s = re.sub(r'\b' + re.escape(_first(me)) + r'\b', 'I', s)
            s = s.replace('I is ', "I'm ").replace('I has ', 'I have ').replace(' her ', ' my ').replace(' his ', ' my ')
            t = P.tone(me, who)
            tail = {1: ' We get on well.', -1: " We don't always see eye to eye.", 0: ''}[t]
            return 'Of course I know %s. %s%s' % (_first(who), s.rstrip('.') + '.', tail)
        if who in mem:
            return "Yes, I know %s a little; I've seen them about lately." % _first(who)
        if r.random() < 0.12:
            return "I think I've seen %s around, but I couldn't tell you much about them." % _first(who)
        return "No, I don't think I know %s." % who
    evw = re.search(r'(?:heard (?:about|of)|know about)\s+(?:an? |the )?(.+?)\?', q)
    if evw:
        topic = evw.group(1)
        key = [w for w in re.findall(r'[a-z]+', topic.lower()) if len(w) > 3]
        key = key[-1] if key else topic.lower()
        evs = [e for e in find_events(P.user, P) if key in e.src.lower()]
        if evs:
            e = max(evs, key=lambda x: (x.start is not None, x.place != ''))
            host = e.host
            hosting = host == me
            phr = _event_phrase(e, P, r, hosting, me)
            if r.random() < 0.1:
                phr = re.sub(r' (at|from) \d[^ ]*( to \d\S*)?', '', phr)
            if not re.match(r"I\b|I'|[A-Z][a-z]+[\s']", phr):
                phr = phr[0].lower() + phr[1:]
            return "Yes, %s." % phr
        if key in P.user.lower().split('someone asks')[0]:
            return "I've heard a little about the %s, but I don't know the details." % key
        if r.random() < 0.15:
            return "I might have heard something about it, but I'm not sure of the details."
        art = re.search(r'heard (?:about|of)\s+((?:an?|the) )', q)
        return "No, I haven't heard anything about %s%s." % (art.group(1) if art else '', topic)
    cur = pers['currently'] or 'getting on with things'
    return "Well, " + re.sub(r'^' + re.escape(me or '') + r' (is )?', "I'm ", _sentences(cur)[0])


def rate_text(t, me, r):
    tl = t.lower()
    if any(w in tl for w in ('died', 'death', 'funeral', 'accident', 'fire', 'drown', 'injur', 'wreck')):
        v = 8
    elif me and ((me + ' is hosting') in t or (me + ' is holding') in t or 'getting it up' in tl or 'means to tell' in tl):
        v = 8
    elif any(w in tl for w in ('count me in', "i'll be there", 'said i would go', "said i'd come", 'going to:')):
        v = 7
    elif any(w in tl for w in ('hosting', 'holding', 'auction', 'lesson', 'event', 'news', 'told', 'heard')):
        v = 6
    elif any(w in tl for w in ('chat', 'conversation', 'talk')):
        v = 3
    elif ' is being ' in tl or ' is in use' in tl or ' is occupied' in tl or re.search(r'^\S+( \S+)? is \w+ing$', tl):
        v = 1
    elif any(w in tl for w in ('sleep', 'breakfast', 'lunch', 'dinner', 'eating', 'washing', 'wiping', 'waking')):
        v = 1
    elif 'plan for' in tl:
        v = 3
    else:
        v = 2
    if r.random() < 0.25:
        v += r.choice([-1, 1])
    return max(1, min(10, v))


def h_importance(P, r, props):
    m = re.search(r'Memory:\s*"?(.*)', P.user)
    t = m.group(1) if m else P.user[-400:]
    return {'importance': rate_text(t, P.me, r)}


def h_batch(P, r, props, schema):
    items = re.findall(r'^\s*-\s*"(.*)"\s*$', P.user, re.M)
    if not items:
        items = [l for l in P.user.split('\n') if l.strip().startswith('- ')]
    n = (schema.get('properties', {}).get('ratings', {}) or {}).get('minItems') or len(items)
    vals = [rate_text(t, P.me, r) for t in items] or [2] * n
    if len(vals) > 1 and r.random() < 0.03 and not P.retry:
        vals = vals[:-1]
    return {'ratings': vals}


def h_currently(P, r, props):
    pers = P.persona()
    cur = pers['currently']
    me = P.me
    first = _sentences(cur)[0] if cur else '%s is getting on with things.' % me
    if len(first) > 260:
        first = _cut(first, 250) + '.'
    keen, hosting, known = news_of(P, me)
    add = ''
    evs = [keen] if keen else []
    evs += [e for e in known if e not in evs]
    mem = P.user
    for e in evs:
        if not e:
            continue
        d = _day_words(e.date, P.now)
        if P.now and e.date and _ord(e.date) < _ord(P.now):
            continue
        tm = (' at ' + _clock_words(e.start)) if e.start is not None else ''
        wh = (' at ' + e.where_txt) if e.where_txt else ''
        if e.host == me:
            if r.random() < 0.85:
                add = ' %s is getting ready to host %s%s %s%s and wants everyone to know about it.' % (_first(me), e.what, wh, d, tm)
        elif re.search(r"(count me in|i'll be there|said (?:i|they|he|she)(?:'d| would) (?:come|go)|going to:|means to go|will go)", mem, re.I):
            if r.random() < 0.85:
                add = ' %s plans to go to %s%s %s%s.' % (_first(me), e.what, wh, d, tm)
        elif r.random() < 0.5:
            add = ' %s has heard about %s%s %s%s.' % (_first(me), e.what, wh, d, tm)
        break
    return {'currently': re.sub(r'\s+', ' ', first + add).strip()}


def _meal_place(places, home_kw='kitchen'):
    for p in places:
        if home_kw in p.lower():
            return p
    return places[0] if places else ''


def h_daily(P, r, props, schema):
    pers = P.persona()
    blk = schema.get('$defs', {}).get('PlanBlock', {}) if schema else {}
    enum = ((blk.get('properties') or {}).get('address') or {}).get('enum') or P.places
    places = list(enum)
    home_bed = ''
    m = re.search(r'sleeping at home \(([^)]*)\)', P.user)
    if m:
        home_bed = m.group(1)
    if not home_bed:
        home_bed = next((p for p in places if 'bedroom' in p.lower() or 'cabin' in p.lower()), places[0] if places else '')
    kitchen = next((p for p in places if 'kitchen' in p.lower() and p.split(':')[1] == home_bed.split(':')[1]), None) \
        or next((p for p in places if 'kitchen' in p.lower()), home_bed)
    wake, bed = pers['wake'], pers['bed']
    work = pers['work']
    work_what = pers['work_what'] or 'working'
    work_place = P.best_place(pers['life'] + ' ' + work_what + ' ' + pers['identity'][:200], places) or home_bed
    # events today the character intends to attend or hosts
    today_ev = None
    for e in find_events(P.user, P):
        if e.date == P.now and e.start is not None:
            intent = e.host == P.me or re.search(r"(count me in|i'll be there|going to|means to go|said (?:i|they)'?d? (?:come|go)|will go)", P.user, re.I)
            if r.random() < (0.85 if intent else 0.6):
                today_ev = e
            break
    blocks = []
    t = wake
    def add(start, dur, act, emo, addr):
        blocks.append({'start': _hm(start), 'duration_minutes': int(dur), 'activity': act, 'emoji': emo, 'address': addr})
    add(t, 30, 'waking up and getting ready', '\u23f0', home_bed); t += 30
    add(t, 30, 'having breakfast', '\U0001f373', kitchen); t += 30
    day_end = bed if bed > wake else bed + 1440
    if work and (work[1] if work[1] > work[0] else work[1] + 1440) - work[0] > 0:
        ws = work[0] if work[0] >= t - 30 else t
        ws = max(ws, t)
        we = work[1] if work[1] > work[0] else work[1] + 1440
        if ws > t:
            add(t, ws - t, 'getting ready for the day', '\U0001f6b6', home_bed); t = ws
        if we - ws > 300:
            mid = 720 if ws + 60 <= 720 <= we - 60 else ws + (we - ws) // 2
            mid -= mid % 60
            add(t, mid - t, work_what, '\U0001f6e0', work_place); t = mid
            add(t, 60, 'having lunch', '\U0001f96a', kitchen); t += 60
            add(t, we - t, work_what, '\U0001f6e0', work_place); t = we
        else:
            add(t, we - t, work_what, '\U0001f6e0', work_place); t = we
            if t < 13 * 60 or (wake >= 12 * 60):
                add(t, 60, 'having lunch', '\U0001f96a', kitchen); t += 60
    else:
        add(t, max(60, 12 * 60 - t) if t < 12 * 60 else 120, 'pottering about', '\U0001f3e1', home_bed); t = max(t + 60, 12 * 60)
        add(t, 60, 'having lunch', '\U0001f96a', kitchen); t += 60
    if t < day_end - 180:
        dn = max(t, 18 * 60 if t < 18 * 60 else t)
        if dn > t:
            add(t, dn - t, 'free time', '\U0001f6b6', home_bed); t = dn
        add(t, 60, 'having dinner', '\U0001f372', kitchen); t += 60
    if t < day_end:
        add(t, day_end - t, 'relaxing at home', '\U0001f6cb', home_bed); t = day_end
    sleep = (wake + 1440) - (t % 1440 if t >= 1440 else t) if (wake + 1440 - t) > 0 else 480
    sleep = max(240, (wake + 1440 - t) % 1440 or 480)
    if sleep > 960 and (P.retry and r.random() < 0.85):
        sleep = 960
    add(t, sleep, 'sleeping', '\U0001f634', home_bed)
    if today_ev is not None:
        place = today_ev.place if today_ev.place in places else (P.best_place(today_ev.where_txt + ' ' + today_ev.src, places) or blocks[-2]['address'])
        _insert_block(blocks, today_ev.start, (today_ev.end - today_ev.start) if today_ev.end else 120,
                      ('hosting ' if today_ev.host == P.me else 'going to ') + today_ev.what, '\U0001f389', place)
    outline = ['%s at %s' % (b['activity'], _clock_words(parse_times(b['start'])[0])) for b in blocks[:-1]][:8]
    while len(outline) < 4:
        outline.append('resting')
    if r.random() < 0.03 and not P.retry:
        outline = outline[:3]
    return {'wake_up_hour': wake // 60, 'outline': outline, 'blocks': blocks}


def _insert_block(blocks, start, dur, act, emo, addr):
    """Put a block at start..start+dur, trimming the blocks it overlaps (keeps order, no gaps)."""
    def mins(b):
        return parse_times(b['start'])[0]
    base = mins(blocks[0])
    def lin(m):
        return m if m >= base else m + 1440
    s, e = lin(start), lin(start) + dur
    out = []
    for b in blocks:
        bs = lin(mins(b)); be = bs + b['duration_minutes']
        if be <= s or bs >= e:
            out.append(b)
            continue
        if bs < s:
            out.append(dict(b, duration_minutes=s - bs))
        if be > e:
            out.append(dict(b, start=_hm(e), duration_minutes=be - e))
    out.append({'start': _hm(s), 'duration_minutes': dur, 'activity': act, 'emoji': emo, 'address': addr})
    out.sort(key=lambda b: lin(mins(b)))
    blocks[:] = out


STEPS = {
    'breakfast': ['putting the kettle on', 'making toast', 'frying an egg', 'eating at the table', 'having a cup of tea', 'clearing the plates', 'washing the dishes', 'wiping the counter'],
    'lunch': ['slicing bread', 'making a sandwich', 'heating soup', 'eating lunch', 'having a hot drink', 'washing up', 'tidying the table'],
    'dinner': ['peeling potatoes', 'cooking the stew', 'setting the table', 'eating dinner', 'clearing the plates', 'washing the dishes', 'drying the pots'],
    'sleep': ['getting into bed', 'sleeping', 'sleeping soundly', 'turning over', 'sleeping', 'sleeping'],
    'wake': ['getting out of bed', 'washing face', 'getting dressed', 'making the bed', 'brushing hair', 'opening the curtains'],
    'relax': ['sitting by the fire', 'reading a book', 'listening to the radio', 'having a cup of tea', 'mending a sock', 'dozing in the chair', 'writing a letter'],
    'work': ['getting set up', 'checking the day\'s tasks', 'getting on with the work', 'sorting things out', 'taking a short break', 'carrying on with the work', 'tidying up', 'writing up notes'],
    'visit': ['walking over', 'knocking and saying hello', 'chatting', 'having a cup of tea together', 'catching up on news', 'saying goodbye'],
    'event': ['arriving', 'greeting people', 'looking around', 'joining in', 'chatting with neighbours', 'helping clear up'],
}


def h_decompose(P, r, props, schema):
    st = schema.get('$defs', {}).get('Step', {}) if schema else {}
    objs = [o for o in (((st.get('properties') or {}).get('object') or {}).get('enum') or []) if o]
    steps_s = (schema.get('properties') or {}).get('steps', {})
    lo = steps_s.get('minItems', 6); hi = steps_s.get('maxItems', 12)
    m = re.search(r'From (\S+) to (\S+) \((\d+) minutes\) \S+ \S+ is ([^,\n]+)', P.user)
    span = None
    act = ''
    m2 = re.search(r'\((\d+) minutes\)[^\n]*? is (.+?), at ', P.user)
    if m2:
        span = int(m2.group(1)); act = m2.group(2)
    m3 = re.search(r'first (\d+) minutes', P.user)
    if m3:
        span = int(m3.group(1))
    span = span or 60
    al = act.lower()
    kind = 'work'
    for k, ws in (('breakfast', ['breakfast']), ('lunch', ['lunch']), ('dinner', ['dinner', 'supper']),
                  ('sleep', ['sleep']), ('wake', ['waking']), ('relax', ['relax', 'free time', 'leisure', 'reading']),
                  ('visit', ['calling on', 'seeing people', 'visit']), ('event', ['going to', 'hosting', 'auction', 'lesson'])):
        if any(w in al for w in ws):
            kind = k
            break
    n = max(lo, min(hi, span // 10))
    n = max(lo, min(hi, n))
    base = span // n
    durs = [max(5, min(15, base))] * n
    rem = span - sum(durs)
    i = 0
    while rem != 0 and i < 200:
        j = i % n
        if rem > 0 and durs[j] < 15:
            durs[j] += 5 if rem >= 5 else rem; rem = span - sum(durs)
        elif rem < 0 and durs[j] > 5:
            durs[j] -= 5 if -rem >= 5 else -rem; rem = span - sum(durs)
        i += 1
    names = STEPS[kind]
    steps = []
    for k in range(n):
        a = names[k % len(names)] if k < len(names) else names[(k * 3) % len(names)]
        ob = ''
        if objs:
            ob = objs[k % len(objs)] if r.random() < 0.7 else (objs[0] if r.random() < 0.5 else '')
        state = ('in use' if ob else '')
        if ob and r.random() < 0.3:
            state = 'being used'
        steps.append({'activity': a, 'duration_minutes': durs[k], 'object': ob, 'object_state': state})
    if not P.retry or r.random() >= 0.85:
        if r.random() < 0.06 and len(steps) > 1:
            steps[0]['duration_minutes'] += steps[1]['duration_minutes'] + 5
            del steps[1]
            steps[0]['duration_minutes'] = max(steps[0]['duration_minutes'], 20)
        elif r.random() < 0.04 and len(steps) > 1:
            steps = steps[:-1]
    return {'steps': steps}


def h_react(P, r, props):
    me = P.me
    m = re.search(r'(?:noticed|sees|notices|observ\w+):\s*"?([^"\n]*)', P.user)
    obs = m.group(1) if m else ''
    nm = re.findall(NAME_RE, obs)
    other = next((n for n in nm if n != me), None)
    keen, hosting, known = news_of(P, me)
    told_other = False
    if keen and other:
        told_other = bool(re.search(re.escape(me) + r' told ' + re.escape(other), P.user)) or \
            bool(re.search(r'I told ' + re.escape(_first(other)), P.user))
    tone = P.tone(me, other)
    x = r.random()
    if keen and other and not told_other:
        ch = 'talk' if x < 0.55 else ('continue' if x < 0.85 else 'wait')
    else:
        pt = 0.14 + (0.1 if tone > 0 else 0)
        ch = 'continue' if x < 0.68 else ('talk' if x < 0.68 + pt else ('wait' if x < 0.92 else 'react'))
        if not other and ch in ('talk', 'wait'):
            ch = 'continue'
    fo = _first(other) if other else 'them'
    reason = {'talk': ('I want to tell %s about %s.' % (fo, keen.what)) if keen else 'It would be nice to have a quick word with %s.' % fo,
              'continue': 'Nothing about this needs my attention right now.',
              'wait': '%s looks busy, so I will let them finish first.' % fo,
              'react': 'This changes what I should be doing for a while.'}[ch]
    na = 'checking on %s' % fo if ch == 'react' else ''
    return {'choice': ch, 'reason': reason, 'new_activity': na}


def h_relationship(P, r, props):
    me = P.me
    m = re.search(r"relationship with " + NAME_RE, P.user)
    other = m.group(1) if m else None
    if not other:
        names = [n for n in re.findall(NAME_RE, P.user) if n != me]
        other = names[-1] if names else 'them'
    pers = P.persona()
    ids = [s for s in _sentences(pers['identity']) if other in s or _first(other) in s]
    tone = P.tone(me, other)
    mem = [l for l in P.user.split('\n') if l.strip().startswith('- [') and other in l]
    talked = any('conversation' in l or 'chat' in l or 'told' in l for l in mem)
    feel = {1: 'is fond of', -1: 'is wary of', 0: 'gets along well enough with'}[tone]
    s1 = ids[0].rstrip('.') + '.' if ids else '%s knows %s from around town.' % (me, other)
    s2 = ' %s %s %s%s.' % (me, feel, _first(other), ' and has been talking with them lately' if talked else '')
    return {'summary': s1 + s2}


STOPFIRST = {'Will', 'What', 'How', 'Does', 'Is', 'Did', 'Why', 'When', 'Who', 'The', 'Has', 'Can', 'Should',
             'Would', 'Do', 'Are', 'Was', 'Where', 'Which', 'Have', 'Name', 'It', 'Today', 'Answer'}


def _people(text, me):
    out = []
    for n in re.findall(NAME_RE, text):
        if n.split()[0] in STOPFIRST or n == me or n.split()[0] in [m.capitalize() for m in MONTHS + WDAYS]:
            continue
        out.append(n)
    return out


def h_questions(P, r, props):
    me = P.me
    names = _people(P.user.split('\n', 8)[-1], me)
    cnt = {}
    for n in names:
        cnt[n] = cnt.get(n, 0) + 1
    top = sorted(cnt, key=lambda k: -cnt[k])[:2]
    qs = []
    evs = find_events(P.user, P)
    if evs:
        qs.append('What does %s mean to %s, and will %s go?' % (evs[0].what, _first(me), _first(me)))
    for n in top:
        qs.append('How does %s really feel about %s?' % (me, n))
    pers = P.persona()
    if len(qs) < 3:
        qs.append('How is %s coping with %s?' % (me, _cut(re.sub(r'^' + re.escape(me) + r' (is )?', '', pers['currently']).rstrip('.'), 60) or 'things lately'))
    return {'questions': qs[:3]}


def h_insights(P, r, props, schema):
    me = P.me
    qs = re.findall(r'^\s*-\s*"(.+?)"\s*$', P.user, re.M)
    stm = re.findall(r'^\s*(\d+)\.\s+(.*)$', P.user, re.M)
    nums = [int(a) for a, _ in stm]
    ins = []
    ev_enum = (((schema.get('$defs', {}).get('Insight', {}) or {}).get('properties', {}) or {}).get('evidence', {}) or {}).get('items', {}).get('enum')
    for q in qs[:5] or ['How are things going?']:
        nm = _people(q, me)
        subj = nm[0] if nm else None
        ev = [int(a) for a, t in stm if subj and subj in t][:4] or nums[-3:] or [1]
        if ev_enum:
            ev = [e for e in ev if e in ev_enum] or [ev_enum[0]]
        if subj:
            tone = P.tone(me, subj)
            txt = '%s %s %s and keeps in regular contact.' % (me, {1: 'values', -1: 'is uneasy around', 0: 'is on easy terms with'}[tone], subj)
        else:
            txt = '%s is mostly caught up in the daily routine.' % me
        ins.append({'insight': txt, 'about': subj or 'daily life', 'evidence': ev, 'importance': r.choice([3, 4, 5])})
    evs = find_events(P.user, P)
    if evs:
        e = evs[0]
        ev = [int(a) for a, t in stm if e.key in t.lower()][:5] or nums[:1] or [1]
        if ev_enum:
            ev = [x for x in ev if x in ev_enum] or [ev_enum[0]]
        ins.append({'insight': '%s has %s on %s mind.' % (me, e.what, 'their'), 'about': e.what, 'evidence': ev, 'importance': 6})
    return {'insights': ins}


def h_replan(P, r, props, schema):
    blk = schema.get('$defs', {}).get('ReplanBlock', {})
    bp = blk.get('properties', {})
    starts = (bp.get('start') or {}).get('enum') or []
    addrs = (bp.get('address') or {}).get('enum') or P.places
    first = starts[0] if starts else (_hm(P.now_min) if P.now_min is not None else '09:00')
    me = P.me
    keen, hosting, known = news_of(P, me)
    m = re.search(r'-\s*(\S+:\S[^:\n]*:[^:\n]+): (\d+) people', P.user)
    blocks = []
    sect = P.user.split('Planned so far')[1] if 'Planned so far' in P.user else ''
    pl = P.plan(sect.split('Still planned')[0]) if sect else []
    if m and keen and r.random() < 0.45:
        pl_t = parse_times(P.user[m.end():m.end() + 30])
        st = _hm(pl_t[0]) if pl_t else first
        if st not in starts:
            st = first
        if st != first and pl:
            blocks.append({'start': first, 'activity': pl[0]['act'], 'emoji': '\U0001f6e0', 'address': pl[0]['place'] if pl[0]['place'] in addrs else addrs[0]})
        blocks.append({'start': st, 'activity': 'telling people about ' + keen.what, 'emoji': '\U0001f5e3', 'address': m.group(1) if m.group(1) in addrs else P.best_place(m.group(1), addrs) or addrs[0]})
    elif pl:
        blocks.append({'start': first, 'activity': pl[0]['act'], 'emoji': '\U0001f6e0', 'address': pl[0]['place'] if pl[0]['place'] in addrs else (P.best_place(pl[0]['place'], addrs) or addrs[0])})
    else:
        blocks.append({'start': first, 'activity': 'carrying on', 'emoji': '\U0001f6b6', 'address': addrs[0] if addrs else ''})
    return {'new_blocks': blocks}


def h_text_turn(P, r):
    me = P.me
    m = re.search(NAME_RE + r' is talking with ' + r'(.+?)\.', P.user)
    others = []
    if m:
        others = [n for n in re.findall(NAME_RE, m.group(2)) if n != me]
    if not others:
        others = [n for n in dict.fromkeys(re.findall(NAME_RE, P.user)) if n != me][:1] or ['someone']
    so_far = P.user
    k = re.search(r'(?:conversation so far|said so far)[^\n]*\n', P.user, re.I)
    if k:
        so_far = P.user[k.end():]
        so_far = so_far.split('\n\n')[0]
    said = conv_lines(so_far)
    txt, ends, _ = speak(P, me, others, said, r)
    return txt, ends


def h_group_turn(P, r, props):
    me = P.me
    enum = (props.get('addressed_to') or {}).get('enum') or []
    others = [n for n in enum if n != 'everyone' and n != me]
    k = re.search(r'(?:conversation so far|said so far)[^\n]*\n', P.user, re.I)
    so_far = P.user[k.end():].split('\n\n')[0] if k else ''
    said = conv_lines(so_far)
    txt, ends, _ = speak(P, me, others, said, r)
    if said and said[-1][0] in others and r.random() < 0.6:
        to = said[-1][0]
    else:
        to = 'everyone' if 'everyone' in enum else (others[0] if others else (enum[0] if enum else 'everyone'))
    return {'utterance': txt, 'addressed_to': to, 'end_conversation': ends}


def h_summary(P, r, props, schema, group=False):
    defs = schema.get('$defs', {})
    sp = ((defs.get('GistLine') or {}).get('properties') or {}).get('speaker', {}).get('enum') or P.names
    people = [n for n in P.names if n in sp] or list(sp)
    if P.me in people:
        people.remove(P.me)
        people.insert(0, P.me)
    any_news = any(news_of(P, p)[0] is not None for p in people)
    talk = r.random() < (0.92 if any_news else 0.6)
    if not talk:
        if group:
            return {'talk': False, 'lines': [], 'memos': []}
        return {'talk': False, 'lines': [], 'first': None, 'second': None}
    said = []
    maxl = 8 if group else 6
    minl = 3 if group else 2
    order = list(people)
    i = 0
    gone = set()
    while len(said) < maxl:
        who = order[i % len(order)]
        i += 1
        if who in gone:
            if len(gone) >= len(order) - 1:
                break
            continue
        others = [p for p in order if p != who]
        txt, ends, info = speak(P, who, others, said, r)
        said.append((who, txt))
        if r.random() < 0.06:
            for p in others:
                k, h, kn = news_of(P, p)
                if k is not None and k.key not in ' '.join(w for _, w in said).lower() and news_of(P, who)[0] is None:
                    said[-1] = (who, txt + ' Someone said ' + _event_phrase(k, P, r, False, who) + '.')
                    break
        if ends and len(said) >= minl:
            if group:
                gone.add(who)
                if len(gone) >= len(order) - 1:
                    break
            else:
                break
    lines = [{'speaker': s, 'text': t} for s, t in said]
    memo_props = ((defs.get('ConversationMemo') or defs.get('GroupMemo') or {}).get('properties') or {})
    if group:
        memos = []
        for p in people:
            mm = memo_for(P, p, [o for o in people if o != p], said, r, memo_props)
            mm['name'] = p
            memos.append(mm)
        return {'talk': True, 'lines': lines, 'memos': memos}
    a = people[0]; b = people[1] if len(people) > 1 else people[0]
    return {'talk': True, 'lines': lines,
            'first': memo_for(P, a, [b], said, r, memo_props),
            'second': memo_for(P, b, [a], said, r, ((defs.get('PartnerMemo') or {}).get('properties') or memo_props))}


def h_memo(P, r, props):
    me = P.me
    k = re.search(r'conversation with ' + NAME_RE + r'[^\n]*:\s*\n', P.user)
    txt = P.user[k.end():].split('\n\n')[0] if k else P.user
    said = conv_lines(txt)
    others = [s for s, _ in said if s != me] or ([k.group(1)] if k else ['someone'])
    return memo_for(P, me, list(dict.fromkeys(others)), said, r, props)


# ----------------------------------------------------------------- generic schema filling
def _resolve(s, root):
    if isinstance(s, dict) and '$ref' in s:
        ref = s['$ref'].split('/')[-1]
        return root.get('$defs', {}).get(ref) or root.get('definitions', {}).get(ref) or {}
    if isinstance(s, dict) and 'anyOf' in s:
        for o in s['anyOf']:
            if o.get('type') != 'null':
                return _resolve(o, root)
    return s or {}


def fill(s, root, P, r, key=''):
    s = _resolve(s, root)
    if 'enum' in s:
        en = s['enum']
        for v in en:
            if isinstance(v, str) and v and v.lower() in P.user.lower():
                return v
        return next((v for v in en if v not in ('', None)), en[0] if en else '')
    t = s.get('type')
    if isinstance(t, list):
        t = next((x for x in t if x != 'null'), 'string')
    if t == 'object' or 'properties' in s:
        return {k: fill(v, root, P, r, k) for k, v in (s.get('properties') or {}).items()}
    if t == 'array':
        n = s.get('minItems', 1) or 1
        return [fill(s.get('items', {}), root, P, r, key) for _ in range(n)]
    if t == 'integer':
        lo, hi = s.get('minimum', 1), s.get('maximum', 10)
        return int((lo + hi) // 2)
    if t == 'number':
        return float(s.get('minimum', 0) + s.get('maximum', 1)) / 2
    if t == 'boolean':
        return True
    if t == 'null':
        return None
    return 'I think so.' if not key else 'As far as I can tell, things are fine.'


def coerce(v, s, root):
    """Grammar: keys, types, required and enums are kept; lengths/bounds/patterns are not."""
    if isinstance(s, dict) and 'anyOf' in s and v is None and any(o.get('type') == 'null' for o in s['anyOf']):
        return None
    s = _resolve(s, root)
    if 'enum' in s:
        return v if v in s['enum'] else s['enum'][0]
    t = s.get('type')
    if t == 'object' or 'properties' in s:
        props = s.get('properties') or {}
        v = v if isinstance(v, dict) else {}
        out = {}
        for k, ps in props.items():
            if k in v:
                out[k] = coerce(v[k], ps, root)
            else:
                out[k] = coerce(None, ps, root) if ('anyOf' in ps and None is None and any(o.get('type') == 'null' for o in ps.get('anyOf', []))) else _default(ps, root)
        return out
    if t == 'array':
        v = v if isinstance(v, list) else []
        return [coerce(x, s.get('items', {}), root) for x in v]
    if t == 'integer':
        try:
            return int(v)
        except Exception:
            return 1
    if t == 'number':
        try:
            return float(v)
        except Exception:
            return 0.0
    if t == 'boolean':
        return bool(v)
    if t == 'string':
        return '' if v is None else str(v)
    return v


def _default(s, root):
    s = _resolve(s, root)
    if 'default' in s:
        return s['default']
    if 'enum' in s:
        return s['enum'][0]
    t = s.get('type')
    return {'string': '', 'integer': 0, 'number': 0.0, 'boolean': False, 'array': [], 'object': {}}.get(t, None)


# ----------------------------------------------------------------- entry point
def respond(body, seed=0):
    try:
        msgs = body.get('messages') if isinstance(body, dict) else None
        if not msgs or not any((m.get('role') == 'user' and m.get('content')) for m in msgs):
            return ''
        P = Prompt(body)
        r = _rng(body, seed)
        maxtok = body.get('max_tokens') or body.get('max_completion_tokens') or 2048
        rf = body.get('response_format') or {}
        schema = None
        if rf.get('type') == 'json_schema':
            schema = (rf.get('json_schema') or {}).get('schema') or {}
        elif rf.get('type') == 'json_object':
            schema = {}
        if P.lost_front:
            P.me = P.me or 'I'
        if schema is None:
            return _finish_text(P, r, maxtok)
        props = schema.get('properties') or {}
        keys = set(props)
        obj = None
        if keys == {'ok'}:
            obj = {'ok': True}
        elif keys == {'answer'}:
            obj = {'answer': h_interview(P, r, props)}
        elif keys == {'importance'}:
            obj = h_importance(P, r, props)
        elif keys == {'ratings'}:
            obj = h_batch(P, r, props, schema)
        elif keys == {'currently'}:
            obj = h_currently(P, r, props)
        elif {'wake_up_hour', 'blocks'} <= keys:
            obj = h_daily(P, r, props, schema)
        elif keys == {'steps'}:
            obj = h_decompose(P, r, props, schema)
        elif 'choice' in keys:
            obj = h_react(P, r, props)
        elif keys == {'summary'}:
            obj = h_relationship(P, r, props)
        elif 'plan_date' in keys and 'summary' in keys:
            obj = h_memo(P, r, props)
        elif keys == {'questions'}:
            obj = h_questions(P, r, props)
        elif keys == {'insights'}:
            obj = h_insights(P, r, props, schema)
        elif 'utterance' in keys:
            obj = h_group_turn(P, r, props)
        elif 'new_blocks' in keys:
            obj = h_replan(P, r, props, schema)
        elif {'talk', 'lines', 'memos'} <= keys:
            obj = h_summary(P, r, props, schema, group=True)
        elif {'talk', 'lines'} <= keys:
            obj = h_summary(P, r, props, schema, group=False)
        else:
            obj = fill(schema, schema, P, r) if schema else {'answer': 'I think so.'}
        if schema:
            obj = coerce(obj, schema, schema)
        out = json.dumps(obj, ensure_ascii=False, indent=2 if r.random() < 0.25 else None)
        if r.random() < 0.01:
            out = out[:max(1, len(out) // 2)] + '\n' * int(maxtok * CPT_OUT)
        return _cap(out, maxtok)
    except Exception:
        raise


def _cap(out, maxtok):
    lim = int(maxtok * CPT_OUT)
    return out if len(out) <= lim else out[:lim]


def _finish_text(P, r, maxtok):
    low = P.user.lower()
    dialogue = ('say next' in low or 'says next' in low or 'reply' in low and P.me) and P.me
    if dialogue:
        txt, ends = h_text_turn(P, r)
        if r.random() < 0.04:
            txt = '*' + r.choice(['smiles', 'nods', 'looks up']) + '* ' + txt
        if r.random() < 0.06:
            txt = '"' + txt + '"'
        if r.random() < 0.05:
            txt = P.me + ': ' + txt
        x = r.random()
        tag = '[end]' if ends else '[continue]'
        if x < 0.04:
            out = txt
        elif x < 0.07:
            out = txt + ' ' + tag
        else:
            out = txt + '\n' + tag
    else:
        topic = _sentences(P.user)[-1] if P.user.strip() else ''
        out = 'Sure. ' + (('Here is my answer: ' + _cut(topic, 200)) if topic else 'I can help with that.')
    return _cap(out, maxtok)
