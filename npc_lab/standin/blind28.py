"""blind28: a blind stand-in for a mid-size hosted instruction model in JSON mode.

Written only from captured request bodies (the practice note's rules). Standard library only.
respond(body, seed) -> completion text. Deterministic: random.Random(sha256(messages, seed)).

DECLARED RULES AND RATES (fixed before the first run over the captures)
-----------------------------------------------------------------------
Kind is taken from response_format.json_schema.name, else from the schema's property names,
else (no schema) a plain-text line if the request asks what someone "says next", else generic prose.
The request text is the first user message; a later user message (a retry after an unusable
answer) only lowers the malformation rate to a quarter.

Reading (all kinds): the speaker is "inner mind of X" in the system text; other people are names
("Name: X" lines, schema enums, "Name: \"...\"" dialogue lines, capitalised two-word names that
recur). Times in any style (17:00, 5 pm, 5.00 p.m., "3 to 5 pm", "five in the afternoon"); dates
as month+day in either order, weekday names, "today"/"tomorrow", ISO; the day list offered in the
prompt or the schema enum maps them to YYYY-MM-DD. Places: schema enum entry with most word
overlap with the words said; never a hard-coded name.
News/event: a sentence outside the instruction paragraphs that says the speaker has news, was
told something, or (Currently/memories) that someone "wants to / is hosting / will hold / is
holding / there will be / there's" something, with a time or a day. Hosting = the speaker's own
name is the subject of the intent, or the text says "they are hosting".

plain dialogue line / group_turn utterance (per turn):
 - own news not yet said by the speaker in the dialogue: bring it up p=0.70 (0.55 on the very
   first line of a conversation, where a greeting often comes first); if hosting, ask them to come
   p=0.85 of those mentions. Says what, day, time, and place words when known (paraphrased).
 - the last other line invites the speaker (come/join/would you like + event): accept p=0.78;
   if the speaker's plan holds a real commitment (visit/appointment/hosting/meeting with someone)
   overlapping that time, accept only p=0.35 else decline or propose another time; relationship
   words of dislike (feud, quarrel, dislike, rival, resent) lower acceptance by 0.25.
 - the last other line passes on news of someone else's event: says it means to go p=0.45,
   otherwise acknowledges; p=0.08 it thanks them "for the invitation" (reads news as an invite).
 - otherwise small talk drawn from the Currently status / the activity (paraphrased).
 - ends the conversation p = 0.12 + 0.12 * (own lines so far), capped 0.75; p=0.8 when the other
   just said goodbye. group_turn addressed_to: a named person p=0.6 (the last speaker if any), else
   "everyone".
 - plain-text malformations: speaker name in front 3%, quotes around 3%, tag missing 2%,
   tag on the same line 1%.  group_turn: addressed_to a first name only (outside enum) 2%.
conversation_memo / memos in conversation_summary and group_summary:
 - summary: one paraphrased sentence naming who talked and any event said (what/day/time).
 - importance: 2-3 small talk; 5-7 an event came up; +1 if the person agreed to go.
 - plan change: if the person said yes/count me in/I'll be there/I'd like to go/I'll try to make it
   (in their own lines) to an event: p=0.85 a plan item (activity, date, start, minutes from the
   event's span else 60-120, place by enum word match else ""). If the person hosts the event:
   p=0.30 (re-states it). If it was only news they heard and did not say they'd go: p=0.12
   (over-reading). Nothing otherwise. Wrong day (the day before/after) 3% of plan items;
   place a near variant outside the enum 2%; plan_minutes as a string 1%.
conversation_summary (out of view, two people): talk p=0.80 (0.92 if either has news, 0.45 if
 either is asleep per the prompt, -0.25 with dislike words). Lines 4-8 alternating, first person
 first. Each with news tells it p=0.85; a host invites p=0.9; the invited accepts with the same
 rule as dialogue; a listener of passed-on news says it will go p=0.45. Memo mixing: with p=0.04 the
 second person's memo summary also names the first person's unspoken news (leakage).
group_summary: same with N people (talk p=0.75), 3-9 lines; one memo per person, a memo missing 3%.
daily_plan: wake hour from the Lifestyle sentence (first time), bed time (last "bed"/"sleep"
 time), work span (a "from X to Y" in Lifestyle). Blocks: get up, breakfast, work, lunch, work,
 free time, dinner, free time, sleep; home = the place named for sleeping, kitchen = same building's
 kitchen/dining, work = enum place best matching the work words. An event today (memories /
 Currently): host p=0.92 put in; said would go p=0.80; only heard of it p=0.35; an intent to ask
 people / see someone p=0.5 adds a visiting block. Meals occasionally duplicated (5%);
 an address outside the enum (building name only) 2%.
decompose: 2-6 steps summing to the stated minutes (steps 5-15); activity words from the activity
 kind; object from the offered objects by word match, else "". Object outside enum 2%.
react: "react" p=0.35 if the observed person is someone the speaker has untold news for or the
 observation shows an event/urgency (hurt, fire, ill, help, crying), p=0.06 otherwise.
replan: 1-3 blocks from the first allowed start; continuing the current/next planned activity at
 its place, or, with an urgency word, going to the observed person's place.
importance / importance_batch: keyword scale (sleep/routine 1-2, meals/work 2-3, chat 3-4,
 relationship insight 4-5, event/news/invite 6-8, illness/death/love 8-9) +-1 jitter p=0.4.
 Batch: wrong number of ratings 2%. importance as string 2%.
reflection_questions: 3 questions about the people and activities that recur most.
reflection_insights: 1-3 per question, naming the speaker, evidence = statements mentioning the
 same person/activity (max 10, valid numbers), importance 3-7. Evidence number out of range 1%.
relationship: one-two sentences from identity words about the other (married, brother, friend,
 neighbour, feud...) and count of shared memories; mixes up who said what with p=0.03.
revise_currently: keep the first sentence of the old status; add an event remembered (own or
 heard, if not past) p=0.7 ("plans to go" if said would go, "is telling people" if host).
interview: looks for content words of the question in the memories; if found, answers from the
 best memory (event: what/when/where); else "I don't know"/"haven't heard" ; p=0.05 vague guess.
probe: {"ok": true}.  unknown schema: values built from the schema types.
JSON malformations (all JSON kinds, per answer, first request): code fence 2%, prose before 1%,
 truncated 1%, a required key dropped 1.5%, an extra key 1%  (about 6.5% total).

Fixes after the first run
-------------------------
1. decompose: the step count and step-duration bounds are read from the request's schema
   (minItems/maxItems, minimum/maximum vary per request: 1-2 .. 8-12) instead of assuming 2-6 and
   5-15; invalid lengths otherwise.
2. conversation_summary: lines clipped to the schema's maxItems (6 in these captures).
3. memos: a plan_date computed outside the offered days becomes "" (then, as declared, a plan
   item with no day and no time is dropped).
"""
import hashlib
import json
import random
import re

MALFORM = None  # diagnostic: last declared malformation applied (for the checker)

MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august',
          'september', 'october', 'november', 'december']
MON_RE = r'(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?'
DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
NUMW = {'one': 1, 'two': 2, 'three': 3, 'four': 4, 'five': 5, 'six': 6, 'seven': 7, 'eight': 8,
        'nine': 9, 'ten': 10, 'eleven': 11, 'twelve': 12, 'noon': 12, 'midday': 12, 'midnight': 0}
STOP = set('the a an of in on at to and or for with from is are was be by it its this that his her their they them he she i you we what who when where how do does did have has had about any some there here as not no into over after before than then so'.split())
EVENT_WORDS = ('event', 'party', 'lesson', 'meeting', 'gathering', 'celebrat', 'dance', 'fair', 'market',
               'concert', 'feast', 'supper', 'dinner party', 'class', 'talk', 'reading', 'festival',
               'wedding', 'service', 'match', 'show', 'workshop', 'ceremony', 'tasting', 'night')
INTENT_RE = r'\b(wants to|want to|is hosting|are hosting|hosting|will hold|is holding|holding|will host|plans to|is planning|there will be|there\'s going to be|there is going to be|invites|is throwing|is organi[sz]ing|will teach|will give|will run)\b'
YES_RE = r"(count me in|i'll be there|i will be there|i'll come|i will come|i'd (?:like|love) to (?:go|come)|i'll go|i will go|i'll try to make it|see you there|wouldn't miss|i'm (?:already )?planning to (?:come|go)|i'll join|i think i'll go|sounds lovely, i'll|i'd be glad to come|yes,? i'll)"
DISLIKE = ('feud', 'quarrel', 'dislike', 'rival', 'resent', 'hate', 'annoy', 'grudge')
COMMIT_RE = r'\b(calling on|visiting|meeting|appointment|hosting|with [A-Z][a-z]+|lesson|event)\b'


# ----------------------------------------------------------------------------- helpers
def _rng(body, seed):
    h = hashlib.sha256((json.dumps(body.get('messages', []), sort_keys=True) + '|' + str(seed)).encode('utf-8', 'replace')).hexdigest()
    return random.Random(int(h[:16], 16))


def _words(s):
    return [w for w in re.findall(r"[a-z']+", (s or '').lower()) if w not in STOP and len(w) > 2]


def parse_times(s):
    """All clock times in s, minutes since midnight, in order."""
    out = []
    s2 = s or ''
    for m in re.finditer(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*(a\.?\s?m\.?|p\.?\s?m\.?)?(?=[\s,.;)\-]|$)|\b(%s)\b(?:\s+(?:o'clock))?(?:\s+in the\s+(morning|afternoon|evening))?" % '|'.join(NUMW), s2, re.I):
        if m.group(4):
            h = NUMW[m.group(4).lower()]
            part = (m.group(5) or '').lower()
            if not part and m.group(4).lower() not in ('noon', 'midday', 'midnight'):
                continue
            if part in ('afternoon', 'evening') and h < 12:
                h += 12
            out.append((m.start(), h * 60))
            continue
        h = int(m.group(1)); mi = m.group(2); ap = (m.group(3) or '').lower().replace('.', '').replace(' ', '')
        if mi is None and not ap:
            continue
        if mi is not None and int(mi) > 59:
            continue
        if h > 23:
            continue
        # skip dates like "20, 2026" or years
        if ap == 'pm' and h < 12:
            h += 12
        elif ap == 'am' and h == 12:
            h = 0
        out.append((m.start(), h * 60 + int(mi or 0)))
    # "3 to 5 pm" -> the 3 is pm too
    for m in re.finditer(r'\b(\d{1,2})\s*(?:to|-|until|till)\s*(\d{1,2})(?:[:.]\d{2})?\s*(p\.?\s?m\.?|a\.?\s?m\.?)', s2, re.I):
        h1 = int(m.group(1)); h2 = int(m.group(2))
        if h1 <= 12 and h2 <= 12:
            pm = m.group(3).lower().startswith('p')
            v = (h1 + (12 if pm and h1 < 12 and h1 <= h2 else 0)) * 60
            out.append((m.start(), v))
    out.sort()
    return [v for _, v in out]


def fmt_hm(m):
    m = int(m) % 1440
    return '%02d:%02d' % (m // 60, m % 60)


def say_time(m, rng):
    h, mi = divmod(int(m) % 1440, 60)
    h12 = h % 12 or 12
    ap = 'am' if h < 12 else 'pm'
    return ('%d %s' % (h12, ap)) if mi == 0 else ('%d:%02d %s' % (h12, mi, ap))


def parse_date(s, year=2026):
    """First (month, day) in s, or None."""
    m = re.search(r'\b(%s)\s+(\d{1,2})\b|\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(%s)\b' % (MON_RE, MON_RE), s or '', re.I)
    if m:
        mon = (m.group(1) or m.group(4)).lower()[:3]
        day = int(m.group(2) or m.group(3))
        for i, mn in enumerate(MONTHS):
            if mn.startswith(mon):
                return (i + 1, day)
    m = re.search(r'\b(\d{4})-(\d{2})-(\d{2})\b', s or '')
    if m:
        return (int(m.group(2)), int(m.group(3)))
    return None


def day_options(text, schema_enums):
    """List of ISO dates offered (from schema enum or text)."""
    opts = [d for d in schema_enums if re.match(r'^\d{4}-\d{2}-\d{2}$', str(d))]
    if not opts:
        opts = re.findall(r'\b\d{4}-\d{2}-\d{2}\b', text)
    return sorted(set(opts))


def iso_for(md, opts, text_year=2026):
    if not md:
        return ''
    for o in opts:
        y, mo, d = o.split('-')
        if int(mo) == md[0] and int(d) == md[1]:
            return o
    return '%04d-%02d-%02d' % (text_year, md[0], md[1])


def find_enum(schema, key):
    """First enum under a property named key (searching $defs too)."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            props = node.get('properties')
            if isinstance(props, dict) and key in props and isinstance(props[key], dict) and 'enum' in props[key]:
                found.append(props[key]['enum'])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(schema)
    return found[0] if found else []


def best_place(words_text, places, rng=None, default=''):
    ws = set(_words(words_text))
    best, score = default, 0
    for p in places:
        if not p:
            continue
        pw = _words(p.replace(':', ' '))
        # weigh the room/building parts more than the town
        parts = p.split(':')
        sc = sum(2 for w in _words(' '.join(parts[1:])) if w in ws) + sum(1 for w in pw if w in ws) * 0.1
        if sc > score:
            best, score = p, sc
    return best if score >= 2 else default


def strip_instr(text):
    """Context part of the prompt: drop the instruction paragraph(s) at the end."""
    cut = len(text)
    for pat in (r'\n(?:What does|What will|Should|Plan |Rewrite|Step back|On a scale|Re-plan|Break this|In one or two|From [A-Z][a-z]+ [A-Z][a-z]+.s point of view|Someone asks|Do they stop|Nobody is watching|What can)',):
        ms = list(re.finditer(pat, text))
        if ms:
            cut = ms[-1].start()
    return text[:cut]


class Req:
    def __init__(self, body):
        msgs = body.get('messages') or []
        self.system = ''
        users = []
        for m in msgs:
            c = m.get('content') if isinstance(m, dict) else ''
            if not isinstance(c, str):
                c = json.dumps(c)
            if m.get('role') == 'system':
                self.system += c + '\n'
            elif m.get('role') == 'user':
                users.append(c)
        self.text = users[0] if users else ''
        self.retry = len(users) > 1
        rf = body.get('response_format') or {}
        js = rf.get('json_schema') if isinstance(rf, dict) else None
        self.schema = (js or {}).get('schema') or {}
        self.name = (js or {}).get('name') or ''
        self.json_mode = bool(rf)
        self.max_tokens = body.get('max_tokens') or 500
        m = re.search(r'inner mind of ([^,\n]+?)(?:,| a character|\n)', self.system)
        self.me = m.group(1).strip() if m else ''
        if not self.me:
            m = re.search(r'Name:\s*([^\n]+)', self.text)
            self.me = m.group(1).strip() if m else 'I'
        self.first = self.me.split()[0] if self.me else ''
        self.people = []
        for n in re.findall(r'^Name:\s*([^\n]+)', self.text, re.M):
            if n.strip() not in self.people:
                self.people.append(n.strip())
        for n in re.findall(r'^([A-Z][\w\'-]+(?: [A-Z][\w\'-]+)+): "', self.text, re.M):
            if n not in self.people:
                self.people.append(n)
        self.context = strip_instr(self.text)
        self.years = re.findall(r'\b(20\d\d)\b', self.text)
        self.year = int(self.years[0]) if self.years else 2026

    def others(self):
        return [p for p in self.people if p != self.me]


def dialogue_lines(text, people=None):
    """(speaker, line) pairs of a conversation written Name: "..." on their own lines."""
    out = []
    for m in re.finditer(r'^([A-Z][\w\'-]+(?: [A-Z][\w\'-]+){0,3}): "(.*)"\s*$', text, re.M):
        out.append((m.group(1), m.group(2)))
    return out


def news_for(req, who=None):
    """The news/event on `who`'s mind: dict(text, host, time, end, date, place_words) or None."""
    who = who or req.me
    ctx = req.context
    cands = []
    for sent in re.split(r'(?<=[.!?])\s+(?=[A-Z])|\n', ctx):
        low = sent.lower()
        if who.lower() not in low and 'their mind' not in low:
            continue
        if re.search(r'\bno news\b|nothing to pass', low):
            continue
        if sent.lstrip().startswith('- ['):
            continue
        score = 0
        if re.search(r'news (?:on (?:their|his|her) mind|to pass on)', low):
            score += 3
        if re.search(r'\btold\b', low):
            score += 1
        if re.search(INTENT_RE, low):
            score += 2
        if any(w in low for w in EVENT_WORDS):
            score += 1
        if parse_times(sent):
            score += 1
        if parse_date(sent) or re.search(r'\b(today|tomorrow|%s)\b' % '|'.join(DAYS), low):
            score += 1
        if score >= 4 and re.match(r'\s*%s\b' % re.escape(who), sent) or score >= 5:
            cands.append((score, sent))
    if not cands:
        return None
    cands.sort(key=lambda x: -x[0])
    sent = cands[0][1]
    low = sent.lower()
    host = bool(re.search(r'(they are|he is|she is|i am) hosting', low)) or bool(
        re.match(r'\s*(?:currently:\s*)?%s\s+(?:wants to|is hosting|will hold|is holding|will host|plans to|is planning|will teach|is throwing|is organi)' % re.escape(who.lower()), low)) or bool(
        re.search(r'mind, an event they are hosting', low))
    # the informative part: after the last colon that precedes the event
    core = sent
    if ':' in sent:
        parts = sent.split(': ')
        core = parts[-1] if len(parts[-1]) > 20 else sent
    core = re.sub(r'^\s*Currently:\s*', '', core)
    times = parse_times(core)
    mdate = parse_date(core)
    rel = None
    if re.search(r'\btomorrow\b', low):
        rel = 'tomorrow'
    elif re.search(r'\btoday\b', low):
        rel = 'today'
    what = _event_phrase(core, who)
    return dict(text=core.strip().rstrip('.'), host=host, time=times[0] if times else None,
                end=times[1] if len(times) > 1 and times[1] > times[0] else None,
                date=mdate, rel=rel, what=what, place=_place_phrase(core), teller=None)


def _event_phrase(s, who):
    s2 = re.sub(r'\s*\(.*?\)', '', s)
    m = re.search(r'\b(?:to (?:teach|hold|host|give|run|throw|have|organi[sz]e)|hosting|holding|be|is)\s+(an? [^,.;]+?)(?=\s+(?:in|at|on|from|this|next|tomorrow|today)\b|[,.;]|$)', s2, re.I)
    if m:
        return m.group(1).strip()
    m = re.search(r'\b(an? (?:\w+ ){0,3}(?:%s)\w*)' % '|'.join(EVENT_WORDS), s2, re.I)
    if m:
        return m.group(1).strip()
    return 'an event'


def _place_phrase(s):
    s2 = re.sub(r'\s*\(that is[^)]*\)', '', s)
    m = re.search(r'\b(?:in|at)\s+(the\s+[a-z][\w\' ]+?(?:of the [A-Z][\w\' ]+)?|[A-Z][\w\']+(?: [A-Z][\w\']+)*)(?=\s+(?:on|from|at|this|tomorrow|today|to)\b|[,.;)]|$)', s2)
    if m and not re.match(r'\d', m.group(1)):
        return m.group(1).strip()
    return ''


def describe_event(ev, rng, first_person=False):
    what = ev.get('what') or 'an event'
    if first_person and ev.get('host'):
        what = re.sub(r'^an? ', 'a ', what)
    bits = [what]
    if ev.get('place'):
        p = ev['place']
        bits.append(('in ' if p.lower().startswith('the ') else 'at ') + p)
    if ev.get('rel'):
        bits.append(ev['rel'])
    elif ev.get('date'):
        bits.append('on %s %d' % (MONTHS[ev['date'][0] - 1].capitalize(), ev['date'][1]))
    if ev.get('time') is not None:
        if ev.get('end') is not None:
            bits.append('from %s to %s' % (say_time(ev['time'], rng), say_time(ev['end'], rng)))
        else:
            bits.append('at %s' % say_time(ev['time'], rng))
    return ' '.join(bits)


def plan_commitment_at(req, minutes):
    """True if the prompt's plan lines hold a real commitment overlapping minutes."""
    if minutes is None:
        return False
    for line in req.context.split('\n'):
        if not line.startswith('- ') or line.startswith('- ['):
            continue
        ts = parse_times(line)
        if len(ts) >= 2 and ts[0] <= minutes < (ts[1] if ts[1] > ts[0] else ts[1] + 1440):
            if re.search(COMMIT_RE, line.split('(')[0]):
                return True
    return False


def dislikes(req, other):
    low = req.text.lower()
    for sent in re.split(r'[.;\n]', low):
        if other and other.split()[0].lower() in sent and any(w in sent for w in DISLIKE):
            return True
    return False


def mentions_event(line):
    low = line.lower()
    return (any(w in low for w in EVENT_WORDS) or bool(re.search(INTENT_RE, low))) and (
        bool(parse_times(line)) or bool(parse_date(line)) or bool(re.search(r'\b(today|tomorrow|%s)\b' % '|'.join(DAYS), low)) or 'heard' in low)


def is_invite(line):
    low = line.lower()
    return bool(re.search(r'\b(come along|would you like to come|do come|you should come|join (?:us|me)|will you come|can you come|please come|hope (?:you|to see you)|want to come|like to come|you\'re welcome to come|come\?)', low))


def is_goodbye(line):
    return bool(re.search(r'\b(bye|goodbye|see you|take care|must be off|i\'d better get on|i\'ll let you get on|got to go|have to go|good night)\b', line.lower()))


SMALL_OPEN = ["Hello, {o}! How are you keeping?", "Morning, {o}. Good to see you.", "Oh, {o}, hello there!",
              "Hi {o}, how's your day going?", "Well, {o}! Fancy seeing you here.", "Evening, {o}. Keeping warm?"]
SMALL_MID = ["Things are much as ever here. {cur}", "Oh, not much to report. {cur}", "{cur}", "Busy as always. {cur}",
             "Can't complain, really. {cur}", "How about you, what are you up to?", "It's been a long day, I can tell you."]
BYES = ["Well, I'd better get on. Take care, {o}!", "I must be off now. See you around, {o}.", "Good talking to you, {o}. Bye for now!",
        "Right, back to it. Bye, {o}!"]


def cur_phrase(req):
    m = re.search(r'^(?:Currently|Status|Right now|These days)[^:\n]*:\s*(.+)$', req.text, re.M | re.I)
    if not m:
        return ''
    s = re.split(r'(?<=\.)\s', m.group(1))[-1 if False else 0].strip()
    s = re.sub(r'^%s\s+' % re.escape(req.me), 'I ', s)
    s = re.sub(r'^I is\b', "I'm", s)
    s = re.sub(r'^I (worries|wants|hopes|thinks|keeps|has|is|does)\b', lambda m: 'I ' + {'worries': 'worry', 'wants': 'want', 'hopes': 'hope', 'thinks': 'think', 'keeps': 'keep', 'has': 'have', 'is': 'am', 'does': 'do'}[m.group(1)], s)
    s = re.sub(r'\b(his|her|their)\b', 'my', s) if s.startswith('I ') else s
    return s if len(s) < 220 else s[:200].rsplit(' ', 1)[0] + '.'


# ----------------------------------------------------------------------------- dialogue
def dialogue_turn(req, rng, lines, partner_names):
    """Decide one utterance for req.me. Returns (text, end)."""
    own = [t for s, t in lines if s == req.me]
    others = [(s, t) for s, t in lines if s != req.me]
    last_s, last_t = others[-1] if others else ('', '')
    o = (last_s or (partner_names[0] if partner_names else 'there')).split()[0]
    ev = news_for(req)
    said_news = any(mentions_event(t) for t in own)
    parts = []
    # respond to the other
    if last_t and is_invite(last_t) and mentions_event(' '.join(t for _, t in others)):
        when = parse_times(last_t)
        p = 0.78
        if when and plan_commitment_at(req, when[0]):
            p = 0.35
        if dislikes(req, last_s):
            p -= 0.25
        if rng.random() < p:
            parts.append(rng.choice(["I'd love to come, count me in!", "Yes, I'll be there.", "That sounds lovely, I'll come along.",
                                     "Of course, I'll be there. Thank you for asking."]))
        else:
            parts.append(rng.choice(["I'm afraid I can't make it then, I've already got something on.",
                                     "Sorry, I'm busy then. Could we do another time?", "I don't think I can, but thank you for asking."]))
    elif last_t and mentions_event(last_t) and not any(mentions_event(t) for t in own):
        r = rng.random()
        if r < 0.08:
            parts.append("Thanks for the invitation, I'll be there!")
        elif r < 0.45:
            parts.append(rng.choice(["Oh, I hadn't heard! I think I'll go along.", "Really? I'd like to go to that.", "That sounds good, I'll try to make it."]))
        else:
            parts.append(rng.choice(["Oh, I hadn't heard that. Thanks for telling me.", "Is that so? Good for them.", "Interesting, I'll keep it in mind."]))
    elif not lines:
        parts.append(rng.choice(SMALL_OPEN).format(o=o))
    # own news
    if ev and not said_news:
        p = 0.55 if not lines else 0.70
        if rng.random() < p:
            if ev['host']:
                s = "I'm holding %s." % describe_event(ev, rng, True)
                if rng.random() < 0.85:
                    s += rng.choice([" Would you like to come?", " Do come along!", " I'd be glad to see you there."])
            else:
                s = rng.choice(["Have you heard? There's %s.", "Did you hear about %s?", "Apparently there's %s, I'm told."]) % describe_event(ev, rng)
            parts.append(s)
    if not parts:
        if last_t and is_goodbye(last_t):
            parts.append(rng.choice(BYES).format(o=o))
        else:
            parts.append(rng.choice(SMALL_MID).format(cur=cur_phrase(req) or "Just getting on with things.").strip() or "Nice to see you.")
    pe = 0.8 if (last_t and is_goodbye(last_t)) else min(0.75, 0.12 + 0.12 * len(own))
    end = rng.random() < pe
    if end and not is_goodbye(' '.join(parts)) and rng.random() < 0.6:
        parts.append(rng.choice(BYES).format(o=o))
    return ' '.join(p for p in parts if p).strip(), end


def k_plain(req, rng):
    global MALFORM
    lines = dialogue_lines(req.context)
    text, end = dialogue_turn(req, rng, lines, req.others())
    tag = '[end]' if end else '[continue]'
    r = rng.random() * (4 if req.retry else 1)
    if r < 0.03:
        MALFORM = 'name_prefix'; text = '%s: %s' % (req.me, text)
    elif r < 0.06:
        MALFORM = 'quotes'; text = '"%s"' % text
    if rng.random() < 0.02 / (4 if req.retry else 1):
        MALFORM = 'no_tag'; return text
    if rng.random() < 0.01:
        MALFORM = 'tag_inline'; return text + ' ' + tag
    return text + '\n' + tag


def k_group_turn(req, rng):
    lines = dialogue_lines(req.context)
    names = [n for n in find_enum(req.schema, 'addressed_to') if n != 'everyone'] or req.others()
    text, end = dialogue_turn(req, rng, lines, names)
    others = [s for s, _ in lines if s != req.me]
    if rng.random() < 0.6 and names:
        to = others[-1] if others and others[-1] in names else rng.choice(names)
    else:
        to = 'everyone'
    if to != 'everyone' and rng.random() < 0.02:
        set_m('first_name'); to = to.split()[0]
    return {'utterance': text[:400], 'addressed_to': to, 'end_conversation': end}


# ----------------------------------------------------------------------------- memos
def memo_for(req, rng, person, lines, opts, places, all_news):
    said = [t for s, t in lines if s == person]
    heard = [t for s, t in lines if s != person]
    ev = None
    for s, t in lines:
        if mentions_event(t):
            ev = dict(text=t, time=(parse_times(t) or [None])[0], date=parse_date(t), host=False,
                      what=_event_phrase(t, s), place=_place_phrase(t), teller=s)
            ts = parse_times(t)
            ev['end'] = ts[1] if len(ts) > 1 and ts[1] > ts[0] else None
            rel = re.search(r'\b(today|tomorrow)\b', t.lower())
            ev['rel'] = rel.group(1) if rel else None
            # complete from the news the speaker had in mind (the prompt states it)
            src = all_news.get(s)
            if src:
                for k in ('time', 'end', 'date', 'place', 'rel'):
                    if ev.get(k) in (None, '') and src.get(k) not in (None, ''):
                        ev[k] = src[k]
                ev['host'] = src.get('host') and s == person
                if src.get('host'):
                    ev['what'] = src.get('what') or ev['what']
            break
    others = [s for s, _ in lines if s != person]
    withn = ', '.join(sorted(set(others))) or 'someone'
    memo = {'summary': '', 'importance': 2, 'plan_activity': '', 'plan_date': '', 'plan_start': '', 'plan_minutes': 0, 'plan_place': ''}
    yes = any(re.search(YES_RE, t.lower()) for t in said)
    host = ev and all_news.get(person, {}).get('host') and ev.get('teller') == person
    if ev:
        d = describe_event(ev, rng)
        if host:
            memo['summary'] = '%s told %s about %s and asked them to come.' % (person, withn, d)
        elif ev['teller'] == person:
            memo['summary'] = '%s passed on news of %s to %s.' % (person, d, withn)
        else:
            memo['summary'] = '%s heard from %s about %s%s.' % (person, ev['teller'], d, ' and said they would go' if yes else '')
        memo['importance'] = rng.choice([5, 6, 6, 7]) + (1 if yes else 0)
        p = 0.30 if host else (0.85 if yes else 0.12)
        if rng.random() < p:
            iso = ''
            if ev.get('date'):
                iso = iso_for(ev['date'], opts, req.year)
            elif ev.get('rel') and opts:
                today = _today_iso(req, opts)
                if today:
                    i = opts.index(today) if today in opts else -1
                    iso = opts[min(len(opts) - 1, i + (1 if ev['rel'] == 'tomorrow' else 0))] if i >= 0 else ''
            if iso and rng.random() < 0.03 and iso in opts:
                i = opts.index(iso); iso = opts[max(0, min(len(opts) - 1, i + rng.choice([-1, 1])))]
                if iso == '':
                    iso = opts[1] if len(opts) > 1 else iso
            if iso and opts and iso not in opts:
                iso = ''
            memo['plan_activity'] = ('hosting ' if host else 'going to ') + re.sub(r'^an? ', 'the ', ev.get('what') or 'event')
            memo['plan_date'] = iso
            memo['plan_start'] = fmt_hm(ev['time']) if ev.get('time') is not None else ''
            memo['plan_minutes'] = (ev['end'] - ev['time']) if ev.get('end') is not None and ev.get('time') is not None else rng.choice([60, 90, 120])
            pl = best_place((ev.get('place') or '') + ' ' + ev.get('text', ''), places)
            if rng.random() < 0.02 and pl:
                set_m('place_variant'); pl = pl.split(':')[1] if ':' in pl else pl + ' room'
            memo['plan_place'] = pl
            if not memo['plan_start'] and not iso:
                memo.update(plan_activity='', plan_minutes=0, plan_place='')
    else:
        topic = 'everyday things'
        memo['summary'] = '%s chatted with %s about %s; nothing was arranged.' % (person, withn, topic)
        memo['importance'] = rng.choice([2, 2, 3])
    if rng.random() < 0.01 and memo['plan_minutes']:
        set_m('minutes_string'); memo['plan_minutes'] = str(memo['plan_minutes'])
    return memo


def _today_iso(req, opts):
    m = re.search(r'(?:today is|it is|it\'s)\s+([^\n]{0,60})', req.text, re.I)
    md = parse_date(m.group(1)) if m else None
    if md:
        return iso_for(md, opts, req.year)
    m = re.search(r'(\d{4}-\d{2}-\d{2}) \(today', req.text)
    return m.group(1) if m else (opts[1] if len(opts) > 1 and opts[0] == '' else (opts[0] if opts else ''))


def set_m(tag):
    global MALFORM
    MALFORM = tag


def k_conversation_memo(req, rng):
    lines = dialogue_lines(req.context)
    opts = [o for o in day_options(req.text, find_enum(req.schema, 'plan_date'))]
    places = find_enum(req.schema, 'plan_place')
    news = {}
    for p in set([s for s, _ in lines] + [req.me]):
        n = news_for(req, p)
        if n:
            news[p] = n
    return memo_for(req, rng, req.me, lines, opts, places, news)


def gen_conversation(req, rng, people, lo, hi):
    news = {p: news_for(req, p) for p in people}
    news = {k: v for k, v in news.items() if v}
    lines = []
    n = rng.randint(lo, hi)
    told = set()
    for i in range(n):
        sp = people[i % len(people)]
        others = [p for p in people if p != sp]
        o = (others[rng.randrange(len(others))] if others else 'there').split()[0]
        prev = lines[-1][1] if lines else ''
        txt = ''
        if prev and is_invite(prev) and lines[-1][0] != sp:
            ts = parse_times(prev)
            ev = news.get(lines[-1][0])
            t0 = ev['time'] if ev and ev.get('time') is not None else (ts[0] if ts else None)
            p = 0.35 if plan_commitment_at_person(req, sp, t0) else 0.78
            if dislikes(req, lines[-1][0]) and sp == req.me:
                p -= 0.25
            txt = rng.choice(["Count me in, I'll be there!", "Yes, I'd love to come.", "Oh, lovely, I'll come along."]) if rng.random() < p else \
                rng.choice(["I'm sorry, I can't make it then, I've got something on.", "Not that day, I'm afraid. Another time?"])
        elif prev and mentions_event(prev) and lines[-1][0] != sp and sp not in told:
            txt = rng.choice(["Oh, I hadn't heard! I think I'll go.", "Really? I'd like to go to that."]) if rng.random() < 0.45 else \
                rng.choice(["Oh, I see. Thanks for telling me.", "Is that so? Good to know."])
        elif sp in news and sp not in told and rng.random() < 0.85:
            ev = news[sp]; told.add(sp)
            if ev['host']:
                txt = "I'm holding %s." % describe_event(ev, rng, True) + (" Would you like to come?" if rng.random() < 0.9 else '')
            else:
                txt = "Have you heard? There's %s." % describe_event(ev, rng)
        elif i == 0:
            txt = rng.choice(SMALL_OPEN).format(o=o)
        elif i >= n - 2:
            txt = rng.choice(BYES).format(o=o)
        else:
            txt = rng.choice(["How are things with you?", "Things are much the same as ever here.", "Busy day?", "It's nice to have a moment to chat.", "Cold out today, isn't it?"])
        lines.append((sp, txt))
    return lines, news


def plan_commitment_at_person(req, person, minutes):
    if minutes is None:
        return False
    # the plan section that follows the person's name
    idx = req.text.find('What %s has planned' % person)
    seg = req.text[idx: idx + 2000] if idx >= 0 else ''
    if not seg:
        return False
    sub = Req.__new__(Req)
    sub.context = seg.split('\n\n')[0]
    return plan_commitment_at(sub, minutes)


def asleep(req, people):
    low = req.text.lower()
    return any(re.search(r'%s (?:is|was) (?:sleeping|asleep)' % re.escape(p.lower()), low) for p in people)


def k_conversation_summary(req, rng):
    people = [n for n in find_enum(req.schema, 'speaker')] or req.people[:2]
    if len(people) < 2:
        people = (people + req.others() + ['someone'])[:2]
    has_news = any(news_for(req, p) for p in people)
    p = 0.92 if has_news else 0.80
    if asleep(req, people):
        p = 0.45
    if dislikes(req, people[1]):
        p -= 0.25
    empty = {'summary': 'They did not talk.', 'importance': 1, 'plan_activity': '', 'plan_date': '', 'plan_start': '', 'plan_minutes': 0, 'plan_place': ''}
    if rng.random() >= p:
        return {'talk': False, 'lines': [], 'first': dict(empty), 'second': dict(empty)}
    lines, news = gen_conversation(req, rng, people, 4, 8)
    opts = day_options(req.text, find_enum(req.schema, 'plan_date'))
    places = find_enum(req.schema, 'plan_place')
    first = memo_for(req, rng, people[0], lines, opts, places, news)
    second = memo_for(req, rng, people[1], lines, opts, places, news)
    if news.get(people[0]) and rng.random() < 0.04:
        second['summary'] = (second['summary'] + ' ' + people[0] + ' is planning %s.' % describe_event(news[people[0]], rng))[:400]
    mx = int(((req.schema.get('properties') or {}).get('lines') or {}).get('maxItems', 10))
    return {'talk': True, 'lines': [{'speaker': s, 'text': t[:300]} for s, t in lines[:mx]], 'first': first, 'second': second}


def k_group_summary(req, rng):
    people = find_enum(req.schema, 'name') or find_enum(req.schema, 'speaker') or req.people
    people = list(people) or [req.me]
    if rng.random() >= 0.75:
        return {'talk': False, 'lines': [], 'memos': []}
    lines, news = gen_conversation(req, rng, people, 3, 9)
    opts = day_options(req.text, find_enum(req.schema, 'plan_date'))
    places = find_enum(req.schema, 'plan_place')
    memos = []
    for p in people:
        if rng.random() < 0.03 and len(people) > 1:
            set_m('memo_missing'); continue
        m = memo_for(req, rng, p, lines, opts, places, news)
        m['name'] = p
        memos.append(m)
    return {'talk': True, 'lines': [{'speaker': s, 'text': t[:300]} for s, t in lines[:10]], 'memos': memos}


# ----------------------------------------------------------------------------- planning
def lifestyle(req):
    m = re.search(r'^(?:Lifestyle|Routine|Habits|Daily life)[^:\n]*:\s*(.+)$', req.text, re.M | re.I)
    s = m.group(1) if m else ''
    ts = parse_times(s)
    wake = ts[0] if ts else 7 * 60
    bed = ts[-1] if len(ts) >= 2 else 22 * 60
    work = (ts[1], ts[2]) if len(ts) >= 4 else None
    wm = re.search(r'(?:works?|keeps?|cooks?|drives?|runs?)\b([^,]*?)\bfrom\b', s)
    return wake, bed, work, (wm.group(0) if wm else s)


def k_daily_plan(req, rng):
    places = find_enum(req.schema, 'address') or ['home']
    wake, bed, work, workwords = lifestyle(req)
    m = re.search(r'sleeping at home \(([^)]+)\)', req.text)
    home = m.group(1) if m and m.group(1) in places else next((p for p in places if 'bed' in p.lower() or 'room' in p.lower()), places[0])
    bld = home.rsplit(':', 1)[0]
    kitchen = next((p for p in places if p.startswith(bld) and re.search(r'kitchen|dining', p)), home)
    workp = best_place(workwords + ' ' + req.text[:800], [p for p in places if not p.startswith(bld)], default=home)
    blocks = []

    def add(t, dur, act, emo, addr):
        blocks.append({'start': fmt_hm(t), 'duration_minutes': int(max(5, min(960, dur))), 'activity': act, 'emoji': emo, 'address': addr})
    t = wake
    add(t, 30, 'waking up and getting ready', '\U0001F6BF', home); t += 30
    add(t, 30, 'having breakfast', '\U0001F373', kitchen); t += 30
    ev = news_for(req)
    ev_t = ev['time'] if ev and ev.get('time') is not None else None
    include = False
    if ev and ev_t is not None:
        today = parse_date(re.search(r'(?:today is|it is)[^\n]*', req.text, re.I).group(0)) if re.search(r'(?:today is|it is)[^\n]*', req.text, re.I) else None
        if ev.get('date') is None or ev['date'] == today or ev.get('rel') == 'today':
            said = re.search(YES_RE + r"|said (?:they|he|she) would go|means to go", req.text.lower())
            p = 0.92 if ev['host'] else (0.80 if said else 0.35)
            include = rng.random() < p
    if work:
        ws, we = work
        if we <= ws:
            we += 1440
        if ws > t:
            add(t, ws - t, 'relaxing at home', '\U0001F6CB', home); t = ws
        mid = ws + (we - ws) // 2 if we - ws > 300 else None
        if mid:
            add(t, mid - t, 'working', '\U0001F6E0', workp); t = mid
            add(t, 60, 'having lunch', '\U0001F372', kitchen if rng.random() < 0.5 else workp); t += 60
        add(t, max(30, we - t), 'working', '\U0001F6E0', workp); t = max(t + 30, we)
    else:
        add(t, 240, 'going about the day', '\U0001F6B6', workp); t += 240
        add(t, 60, 'having lunch', '\U0001F372', kitchen); t += 60
    if include and ev_t is not None and ev_t >= t and ev_t < bed + (1440 if bed < wake else 0):
        if ev_t > t:
            add(t, ev_t - t, 'relaxing at home', '\U0001F6CB', home); t = ev_t
        dur = (ev['end'] - ev_t) if ev.get('end') else 120
        add(t, dur, ('hosting ' if ev['host'] else 'going to ') + re.sub(r'^an? ', 'the ', ev.get('what') or 'event')[:100], '\U0001F389',
            best_place((ev.get('place') or '') + ' ' + ev['text'], places, default=workp)); t += dur
    elif re.search(r'\bask|tell (?:people|everyone)|see (?:people|someone)', ' '.join(re.findall(r'Currently[^\n]*', req.text))) and rng.random() < 0.5:
        add(t, 60, 'seeing people to pass on news', '\U0001F5E3', workp); t += 60
    bedt = bed if bed > t else bed + 1440
    dinner = max(t, min(bedt - 120, 18 * 60 + 30))
    if dinner > t:
        add(t, dinner - t, 'relaxing at home', '\U0001F6CB', home); t = dinner
    add(t, 60, 'having dinner', '\U0001F35D', kitchen); t += 60
    if rng.random() < 0.05:
        set_m('meal_twice'); add(t, 30, 'having a late snack dinner', '\U0001F35D', kitchen); t += 30
    if bedt > t:
        add(t, bedt - t, 'relaxing at home', '\U0001F4D6', home); t = bedt
    add(t, max(5, min(960, (wake + 1440) - t)), 'sleeping', '\U0001F634', home)
    if rng.random() < 0.02:
        set_m('address_variant'); blocks[2]['address'] = blocks[2]['address'].split(':')[1] if ':' in blocks[2]['address'] else 'home'
    blocks = blocks[:16]
    outline = ['wake up at %s' % say_time(wake, rng)] + ['%s at %s' % (b['activity'], say_time(int(b['start'][:2]) * 60 + int(b['start'][3:]), rng)) for b in blocks[2:-1]][:6] + ['go to bed at %s' % say_time(bed, rng)]
    while len(outline) < 4:
        outline.insert(1, 'have breakfast')
    return {'wake_up_hour': wake // 60, 'outline': [o[:120] for o in outline[:8]], 'blocks': blocks}


STEP_WORDS = {
    'sleep': ['sleeping soundly', 'turning over in bed', 'dozing'],
    'wak': ['stretching and getting out of bed', 'washing up', 'getting dressed', 'making the bed'],
    'breakfast': ['making coffee', 'frying eggs', 'eating at the table', 'washing the dishes'],
    'lunch': ['preparing the food', 'eating lunch', 'clearing up'],
    'dinner': ['cooking dinner', 'eating dinner', 'washing up'],
    'relax': ['making a cup of tea', 'reading a book', 'writing a letter', 'resting in a chair'],
    'work': ['getting ready for work', 'getting on with the work', 'taking a short break', 'tidying up afterwards'],
    'call': ['knocking on the door', 'chatting over tea', 'saying goodbye'],
    'host': ['setting out chairs', 'welcoming people', 'running the event', 'tidying up afterwards'],
    'going': ['walking over', 'finding a seat', 'joining in', 'chatting afterwards'],
}


def k_decompose(req, rng):
    objs = [o for o in find_enum(req.schema, 'object') if o]
    ctx = req.context
    m = re.search(r'\((\d+) minutes?\)', req.text)
    total = int(m.group(1)) if m else 30
    am = re.search(r'is ([^,\n]+?), at ', req.text[m.start():] if m else req.text)
    act = am.group(1) if am else 'going about the day'
    key = next((k for k in STEP_WORDS if k in act.lower()), 'work')
    ssch = (req.schema.get('properties') or {}).get('steps') or {}
    lo_n, hi_n = int(ssch.get('minItems', 2)), int(ssch.get('maxItems', 6))
    dsch = ((req.schema.get('$defs') or {}).get('Step') or {}).get('properties', {}).get('duration_minutes', {})
    lo_d, hi_d = int(dsch.get('minimum', 5)), int(dsch.get('maximum', 15))
    n = max(lo_n, min(hi_n, -(-total // hi_d)))
    base = total // n
    durs = [base] * n
    for i in range(total - base * n):
        durs[i % n] += 1
    durs = [max(lo_d, min(hi_d, d)) for d in durs]
    words = STEP_WORDS[key]
    steps = []
    for i, d in enumerate(durs):
        a = words[min(i, len(words) - 1)] if i < len(words) else words[i % len(words)] + ' again'
        if key == 'work' and rng.random() < 0.5 and i == 1:
            a = act[:60]
        obj = ''
        for o in objs:
            if any(w in a.lower() for w in _words(o)) or (key in ('sleep', 'wak') and 'bed' in o):
                obj = o; break
        if not obj and objs and key not in ('call', 'going') and rng.random() < 0.5:
            obj = rng.choice(objs)
        if obj and rng.random() < 0.02:
            set_m('object_variant'); obj = 'the ' + obj
        steps.append({'activity': a[:80], 'duration_minutes': d, 'object': obj, 'object_state': ('in use' if obj else '')})
    return {'steps': steps}


def k_react(req, rng):
    m = re.search(r'noticed:?\s*"([^"]+)"', req.text) or re.search(r'"([^"]+)"', req.context)
    obs = m.group(1) if m else ''
    ev = news_for(req)
    who = next((p for p in req.others() + re.findall(r'[A-Z][a-z]+ [A-Z][a-z]+', obs) if p in obs), '')
    urgent = re.search(r'\b(hurt|injur|fire|ill|sick|help|crying|fell|bleeding|emergency)\b', obs.lower())
    sleeping = 'sleep' in obs.lower()
    p = 0.35 if ((ev and who and not sleeping) or urgent or mentions_event(obs)) else 0.06
    if rng.random() < p:
        na = ('going over to talk to %s' % who) if who else 'looking into it'
        if ev and who and not urgent:
            na = 'going over to tell %s about %s' % (who, re.sub(r'^an? ', 'the ', ev.get('what') or 'the news'))
        return {'choice': 'react', 'reason': 'It seems worth stopping for %s.' % (who or 'this'), 'new_activity': na[:120]}
    return {'choice': 'continue', 'reason': 'Nothing about this needs %s to change plans.' % req.first, 'new_activity': ''}


def k_replan(req, rng):
    starts = find_enum(req.schema, 'start') or []
    places = find_enum(req.schema, 'address') or ['home']
    st = starts[0] if starts else '08:00'
    nm = re.search(r'(?:changed|because|noticed)[^\n]*?([A-Z][a-z]+ [A-Z][a-z]+)', req.text)
    plan = [l for l in req.context.split('\n') if l.startswith('- ') and not l.startswith('- [') and '(' in l]
    addr = places[0]
    act = 'carrying on with the day'
    if plan:
        pm = re.search(r'\d\s+(.+?)\s*\(([^)]+)\)', plan[0])
        if pm:
            act = pm.group(1)
            addr = pm.group(2) if pm.group(2) in places else best_place(pm.group(2), places, default=places[0])
    blocks = []
    if nm and rng.random() < 0.6:
        blocks.append({'start': st, 'activity': 'talking with %s' % nm.group(1), 'emoji': '\U0001F4AC', 'address': addr})
        if len(starts) > 3:
            blocks.append({'start': starts[min(len(starts) - 1, 3)], 'activity': act[:120], 'emoji': '\U0001F6E0', 'address': addr})
    else:
        blocks.append({'start': st, 'activity': act[:120], 'emoji': '\U0001F6E0', 'address': addr})
    return {'new_blocks': blocks}


# ----------------------------------------------------------------------------- ratings & reflection
def rate(s, rng):
    low = s.lower()
    if re.search(r'\b(death|died|dying|love|married|engaged|fired|accident|illness|pregnan)\b', low):
        v = 8
    elif any(w in low for w in EVENT_WORDS) and (re.search(INTENT_RE, low) or parse_times(s) or 'heard' in low):
        v = 7
    elif re.search(r'\b(invit|news|told|promise|agreed)\b', low):
        v = 5
    elif re.search(r'\b(friend|relationship|terms|familiar|cares|worr)\b', low):
        v = 4
    elif re.search(r'\b(chatting|conversation|talking|calling on|seeing people)\b', low):
        v = 3
    elif re.search(r'\b(sleep|waking|bed|brush|wash)\b', low):
        v = 1
    else:
        v = 2
    if rng.random() < 0.4:
        v += rng.choice([-1, 1])
    return max(1, min(10, v))


def k_importance(req, rng):
    m = re.search(r'(?:Memory|Event|Observation)[^:\n]*:\s*"?(.+)', req.text)
    v = rate(m.group(1) if m else req.text[-600:], rng)
    if rng.random() < 0.02:
        set_m('int_string'); return {'importance': str(v)}
    return {'importance': v}


def k_importance_batch(req, rng):
    items = re.findall(r'^\s*(?:-|\d+[.)])\s*"(.+)"\s*$', req.text, re.M)
    if not items:
        items = re.findall(r'^\s*-\s*(.+)$', req.context, re.M)
    n = len(items) or 1
    sch = req.schema.get('properties', {}).get('ratings', {})
    if sch.get('maxItems'):
        n = sch['maxItems'] if sch.get('maxItems') == sch.get('minItems') else n
    r = [rate(items[i] if i < len(items) else '', rng) for i in range(n)]
    if rng.random() < 0.02:
        set_m('count'); r = r[:-1] if len(r) > 1 else r + [3]
    return {'ratings': r}


def recurring(req):
    counts = {}
    for p in re.findall(r'[A-Z][a-z]+ [A-Z][a-z]+', req.context):
        if p != req.me and p in req.text[:3000] or p in req.people:
            counts[p] = counts.get(p, 0) + 1
    ppl = [p for p, _ in sorted(counts.items(), key=lambda x: -x[1]) if p != req.me]
    acts = {}
    for a in re.findall(r'%s is ([a-z][a-z ]+?)(?:\s*\(|$)' % re.escape(req.me), req.context, re.M):
        acts[a] = acts.get(a, 0) + 1
    acts = [a for a, _ in sorted(acts.items(), key=lambda x: -x[1])]
    return ppl, acts


def k_reflection_questions(req, rng):
    ppl, acts = recurring(req)
    qs = []
    if ppl:
        qs.append('How are things between %s and %s these days?' % (req.me, ppl[0]))
    if acts:
        qs.append("What does %s's habit of %s say about what matters to them?" % (req.me, acts[0]))
    if len(ppl) > 1:
        qs.append('What part does %s play in %s\'s days?' % (ppl[1], req.me))
    ev = news_for(req)
    if ev and rng.random() < 0.7:
        qs.insert(0, 'How does %s feel about %s?' % (req.me, re.sub(r'^an? ', 'the ', ev.get('what') or 'the news')))
    qs.append('What is %s most concerned about at the moment?' % req.me)
    return {'questions': qs[:3]}


def k_reflection_insights(req, rng):
    stm = {int(n): s for n, s in re.findall(r'^(\d+)\.\s*(.+)$', req.text, re.M)}
    qs = re.findall(r'^\s*-\s*"(.+\?)"\s*$', req.text, re.M) or ['what matters now']
    ev_enum = [x for x in (req.schema.get('$defs', {}).get('Insight', {}).get('properties', {}).get('evidence', {}).get('items', {}).get('enum') or [])]
    maxn = max(stm) if stm else 1
    out = []
    for q in qs[:5]:
        names = [p for p in re.findall(r'[A-Z][a-z]+ [A-Z][a-z]+', q) if p != req.me]
        qw = set(_words(q)) - set(_words(req.me))
        ev = [n for n, s in stm.items() if (names and names[0] in s) or (qw & set(_words(s)))][:10] or [min(stm) if stm else 1]
        about = names[0] if names else (' '.join(list(qw)[:3]) or 'daily life')
        if names:
            ins = '%s spends time with %s and they are on easy terms.' % (req.me, names[0])
        else:
            ins = '%s keeps to a steady routine and takes %s seriously.' % (req.me, about)
        if rng.random() < 0.01:
            set_m('evidence_range'); ev = ev + [maxn + 1]
        out.append({'insight': ins, 'about': about[:60], 'evidence': ev, 'importance': rng.randint(3, 7)})
        if rng.random() < 0.5 and len(ev) > 2:
            out.append({'insight': '%s notices the same pattern coming back again and again.' % req.me, 'about': about[:60], 'evidence': ev[:3], 'importance': rng.randint(2, 5)})
    return {'insights': out[:15]}


def k_relationship(req, rng):
    m = re.search(r'(?:remembers about|relationship with|knows about)\s+([A-Z][\w\']+(?: [A-Z][\w\']+)+)', req.text)
    other = m.group(1).rstrip(':') if m else (req.others()[0] if req.others() else 'them')
    ident = req.text.lower()
    fo = other.split()[0].lower()
    rel = 'knows %s from around town' % other
    for pat, r in ((r'married', 'is married to %s'), (r'brother|sister', 'is family to %s'), (r'friend', 'counts %s as a friend'),
                   (r'neighbou?r', 'lives next door to %s'), (r'feud|quarrel', 'has a long-running quarrel with %s'),
                   (r'lodger|under (?:her|his) wing|fond', 'looks out for %s')):
        for sent in re.split(r'[.;]', ident):
            if fo in sent and re.search(pat, sent):
                rel = r % other; break
        else:
            continue
        break
    n = len(re.findall(re.escape(other), req.context))
    feel = 'feels warmly towards them' if not dislikes(req, other) else 'is wary of them just now'
    if rng.random() < 0.03:
        set_m('pov_mixup')
        return {'summary': '%s %s and %s.' % (other, rel.replace(other, req.me), feel)}
    extra = ' They have crossed paths a lot lately.' if n > 3 else ''
    return {'summary': ('%s %s and %s.%s' % (req.me, rel, feel, extra))[:400]}


def k_revise_currently(req, rng):
    m = re.search(r'^(?:Currently|Status)[^:\n]*:\s*(.+)$', req.text, re.M | re.I)
    old = m.group(1) if m else '%s is going about the usual routine.' % req.me
    first = re.split(r'(?<=\.)\s', old)[0]
    new = first
    evs = [l for l in req.context.split('\n') if l.startswith('- [') and mentions_event(l)]
    if evs and rng.random() < 0.7:
        line = re.sub(r'^- \[[^\]]*\]\s*', '', evs[-1])
        evd = news_for(req) or dict(what=_event_phrase(line, ''), place=_place_phrase(line), date=parse_date(line), time=(parse_times(line) or [None])[0], end=None, rel=None, host=False)
        d = describe_event(evd, rng)
        if evd.get('host') or line.startswith(req.me + ' wants'):
            new += ' %s is getting ready to hold %s and is asking people to come.' % (req.me, d)
        elif re.search(YES_RE + r'|said (?:they|he|she) would go', line.lower()):
            new += ' %s plans to go to %s.' % (req.me, d)
        else:
            new += ' %s has heard about %s.' % (req.me, d)
    else:
        new += ' %s is keeping to the usual routine.' % req.me
    return {'currently': new[:500]}


def k_interview(req, rng):
    m = re.search(r'asks %s:\s*"([^"]+)"' % re.escape(req.me), req.text) or re.search(r'"([^"]+\?)"', req.text)
    q = m.group(1) if m else ''
    qw = set(_words(q)) - {'heard', 'hear', 'know', 'think', 'going', 'will', 'would', 'did'}
    best, sc = None, 0
    for l in req.context.split('\n'):
        if not l.startswith('- ['):
            continue
        s = len(qw & set(_words(l)))
        if s > sc:
            best, sc = l, s
    if best and sc >= 1 and rng.random() >= 0.05:
        line = re.sub(r'^- \[[^\]]*\]\s*', '', best)
        ev = dict(what=_event_phrase(line, ''), place=_place_phrase(line), date=parse_date(line), time=(parse_times(line) or [None])[0], end=None, rel=None, host=False)
        going = re.search(YES_RE + r'|said (?:they|he|she) would go', line.lower())
        if mentions_event(line):
            a = 'Yes, I heard about %s.%s' % (describe_event(ev, rng), " I said I'd go." if going else '')
        else:
            a = 'From what I remember, %s.' % line[0].lower() + line[1:200] if line else "I'm not sure."
        return {'answer': a[:600]}
    if rng.random() < 0.05:
        return {'answer': "I think I heard something about it, but I can't recall the details."}
    return {'answer': "No, I haven't heard anything about that."}


def k_generic(schema, rng, depth=0):
    if depth > 6 or not isinstance(schema, dict):
        return ''
    if 'enum' in schema and schema['enum']:
        return schema['enum'][0]
    t = schema.get('type')
    if t == 'object' or 'properties' in schema:
        return {k: k_generic(v, rng, depth + 1) for k, v in (schema.get('properties') or {}).items() if k in (schema.get('required') or schema.get('properties'))}
    if t == 'array':
        return [k_generic(schema.get('items') or {}, rng, depth + 1) for _ in range(max(1, schema.get('minItems', 1)))]
    if t == 'integer':
        return max(schema.get('minimum', 1), min(schema.get('maximum', 5), 5))
    if t == 'number':
        return 1.0
    if t == 'boolean':
        return True
    return 'Yes.'


def _resolve(schema):
    """inline $ref once for k_generic."""
    defs = schema.get('$defs') or {}

    def fix(n):
        if isinstance(n, dict):
            if '$ref' in n:
                return fix(defs.get(n['$ref'].split('/')[-1], {}))
            return {k: fix(v) for k, v in n.items()}
        if isinstance(n, list):
            return [fix(v) for v in n]
        return n
    return fix(schema)


KINDS = {
    'probe': lambda r, g: {'ok': True},
    'importance': k_importance, 'importance_batch': k_importance_batch, 'revise_currently': k_revise_currently,
    'daily_plan': k_daily_plan, 'decompose': k_decompose, 'react': k_react, 'replan': k_replan,
    'relationship': k_relationship, 'conversation_memo': k_conversation_memo, 'reflection_questions': k_reflection_questions,
    'reflection_insights': k_reflection_insights, 'group_turn': k_group_turn, 'interview': k_interview,
    'conversation_summary': k_conversation_summary, 'group_summary': k_group_summary,
}
PROPS_KIND = [({'ok'}, 'probe'), ({'ratings'}, 'importance_batch'), ({'importance'}, 'importance'), ({'currently'}, 'revise_currently'),
              ({'wake_up_hour'}, 'daily_plan'), ({'steps'}, 'decompose'), ({'choice'}, 'react'), ({'new_blocks'}, 'replan'),
              ({'questions'}, 'reflection_questions'), ({'insights'}, 'reflection_insights'), ({'utterance'}, 'group_turn'),
              ({'answer'}, 'interview'), ({'memos'}, 'group_summary'), ({'first', 'second'}, 'conversation_summary'),
              ({'plan_activity'}, 'conversation_memo'), ({'summary'}, 'relationship')]


def kind_of(req):
    if req.name in KINDS:
        return req.name
    props = set((req.schema.get('properties') or {}).keys())
    for keys, k in PROPS_KIND:
        if keys <= props:
            return k
    if req.json_mode:
        return 'generic'
    return 'plain' if re.search(r'say next|says next|what does .* say|words only', req.text, re.I | re.S) else 'text'


def malform_json(obj, req, rng):
    s = json.dumps(obj, ensure_ascii=False)
    scale = 0.25 if req.retry else 1.0
    r = rng.random() / scale
    if r < 0.015 and isinstance(obj, dict) and obj:
        req_keys = req.schema.get('required') or list(obj)
        k = rng.choice([k for k in req_keys if k in obj] or list(obj))
        o2 = dict(obj); o2.pop(k, None); set_m('missing_key'); s = json.dumps(o2, ensure_ascii=False)
    elif r < 0.025 and isinstance(obj, dict):
        o2 = dict(obj); o2['note'] = 'ok'; set_m('extra_key'); s = json.dumps(o2, ensure_ascii=False)
    r2 = rng.random() / scale
    if r2 < 0.02:
        set_m('fence'); return '```json\n' + s + '\n```'
    if r2 < 0.03:
        set_m('prose'); return 'Here is the JSON:\n' + s
    if r2 < 0.04:
        set_m('truncated'); return s[:max(5, int(len(s) * rng.uniform(0.3, 0.9)))]
    # long answers really truncate at max_tokens (about 3.5 characters a token)
    if len(s) > req.max_tokens * 3.5:
        set_m('truncated_max_tokens'); return s[:int(req.max_tokens * 3.5)]
    return s


def respond(body, seed):
    global MALFORM
    MALFORM = None
    try:
        body = body if isinstance(body, dict) else {}
        rng = _rng(body, seed)
        req = Req(body)
        k = kind_of(req)
        if k == 'plain':
            return k_plain(req, rng)
        if k == 'text':
            return 'I understand. ' + (cur_phrase(req) or 'Let me think about that.')
        if k == 'generic':
            obj = k_generic(_resolve(req.schema), rng)
        else:
            obj = KINDS[k](req, rng)
        return malform_json(obj, req, rng)
    except Exception as e:  # never raise
        MALFORM = 'exception:%s' % type(e).__name__
        return '{"error": "I could not answer that."}'
