"""blind34: a blind stand-in for a 70B-class open-weights instruct model
(Llama-3.3-70B-Instruct class) served by a hosted OpenAI-compatible provider.

Written only from captured request bodies. Standard library only. Entry point:
    respond(body: dict, seed: int = 0) -> str
returns the completion's content text. Deterministic: a random.Random seeded from
sha256(messages JSON + seed). Never raises.

DECLARED MODEL (frozen before the first run on the captures)
=============================================================
Serving
  * Context is never truncated. response_format json_schema is mapped to the provider's
    JSON mode: the JSON is normally syntactically valid, keys and enums are mostly followed,
    numeric/length/count bounds are followed less well (rates below).
  * Temperature is honoured: at temperature <= 0.1 every probabilistic decision takes its
    more likely branch (p >= 0.5 -> yes) and no output corruption is applied.
  * An output longer than max_tokens (estimated as chars/3.6) is cut at max_tokens.

How the task is recognised (never by our headings or by a purpose label)
  * JSON tasks are recognised from the SHAPE of the schema (an array of integers = ratings;
    objects with an address-like enum and start time = schedule blocks, with durations = a
    full day, without = a re-plan; items with an object enum = step breakdown; items with
    evidence numbers = insights; an array of strings = questions; a top-level string enum =
    a choice; a summary plus plan-like fields = a conversation memo; a single integer 1-10 =
    a rating; a single string = free text whose kind is read from the prompt: a quoted question
    asked of the character -> first-person answer; "third person" status -> status rewrite;
    otherwise a relationship/summary sentence). Unknown schemas get a generic typed fill.
  * No response_format -> plain text; if the prompt names a tag protocol ([end]/[continue]
    style bracketed tags) it is a dialogue line followed by a tag.
  * People = capitalised multi-word names in the prompt that are not components of any
    "A:B:C" address; places = address strings (from enums or from prose); times = clock
    expressions in any style ("07:00", "7 am", "7:30 pm", "noon", "midday", "half past
    eleven", "quarter to seven", "a little before twelve"); days = "today", "tonight",
    "tomorrow", weekday names, "Month D" dates.

Output format habits (JSON mode), per JSON answer, temperature > 0.1
  * 2.0% wrapped in a ```json fence; 1.0% preceded by a sentence of prose ("Here is ...");
    1.0% truncated at 55-95% of its length; 0.3% a refusal in prose instead of JSON.
    Total malformed about 4.3%.
  * 1.5% an extra key the schema does not have ("note" / "explanation").
  * Nested or long answers are pretty-printed (indent 2) with p = 0.5, else one line.

Dialogue line (plain text), per line, temperature > 0.1
  * 4% the speaker's name in front ("Name: ..."); 4% the words wrapped in double quotes;
    3% the tag missing; 3% the tag on the same line as the words; 5% a role-play stage
    direction in asterisks (*smiles*); 2% a trailing parenthetical note about the character.
  * Length: one or two sentences normally; 25% a third sentence (verbosity).
  * Warm, polite register; addresses the other person by first name with p = 0.6.

Importance ratings (single or batch)
  * Base by content: an object-state line (a short lower-case thing "is in use/occupied/...")
    -> 1 (p .7) or 2; the person's own routine (sleep, meals, waking, rest, ordinary work) -> 2;
    another person's ordinary activity -> 2, +1 if that person appears in the identity text;
    a plan line -> 3; a chat/conversation -> 3 (+2 if it arranged something);
    a self-insight ("feels", "cares about") -> 4; a dated/timed upcoming event or news -> 7,
    8 if the person is its host/subject; strong emotional words (death, quarrel, love, fear,
    illness, loss, accident) +2.
  * Llama inflation: +1 with p = 0.25; noise: +-1 with p = 0.25; clamp 1..10.
  * Batch: rating count differs from the number of memories with p = 0.03 (one dropped or
    one duplicated).

Interview answer (first person, 1-3 sentences)
  * "Do you know <person>?": if the person appears in the identity text or shown memories,
    say yes and paraphrase the first such mention (identity first); if not, say they don't
    know them, but with p = 0.15 instead invent a vague acquaintance ("seen them around").
  * "Have you heard about <thing>?" (any other question): find memories sharing content words
    with the question (plan lines skipped); if found, retell the best one in the first person
    (its first 40 words, so with its day/time/place when they are there) with p = 0.9 (else a vague "I heard something about it"); if none, say no, with
    p = 0.10 a made-up vague "I think someone mentioned it" (hallucination).
  * 30% an extra sentence of colour from the identity or status (verbosity/role-play).

Status rewrite ("currently", third person, 2-3 sentences)
  * Keeps the old status first sentence (paraphrased minimally); adds the first upcoming
    dated event found in the memories/held events with p = 0.85, stating its day with p = 0.8
    and its clock time with p = 0.7; adds a commitment to meet someone found in memories with
    p = 0.6; 20% one more sentence of hedged feeling ("seems quietly hopeful").

Relationship summary (first person, 1-2 sentences)
  * Uses identity sentences and memories naming the other person; feeling from warm/cold words
    (friend, cousin, wife, fond, close -> warm; quarrel, not spoken, avoid -> cold; none ->
    neutral/"don't know them well"). 25% an invented plausible detail when nothing is known.

Daily plan
  * Wake hour and bedtime from the lifestyle's clock expressions (wake/bed words), default 7/22.
  * Blocks: wake-up 30 min at home; breakfast 30 min in a kitchen-like address (else home);
    each timed lifestyle clause becomes a block at the best word-matching enum address;
    lunch 12:00 (p .6) else 12:30 and dinner 18:00 (p .6) else 17:30 unless a clause covers
    them; evening at home; sleep at home until the wake hour.
  * An upcoming event on THIS day found in the memories or status is put in: host/subject
    p = 0.95; the person said they'd go/accepted p = 0.85; only heard of it p = 0.35.
  * Errors: one block's duration off by 30 min (gap/overlap) p = 0.12; an address outside the
    enum p = 0.02 per plan; outline has 5-7 items (bounded 4..8).

Step breakdown (decompose)
  * Step vocabulary by the activity's meaning (sleep, waking, meals, rest, visiting, hosting,
    walking, teaching/working); objects picked from the enum by word overlap, else another enum
    object with p = 0.35, else "". Count within the schema bounds; sum aimed at the target
    minutes, but arithmetic off by 5-15 min with p = 0.30; one step outside 5..15 min p = 0.05;
    count one outside the bounds p = 0.04; first name of the person in a step p = 0.05;
    an object not in the enum p = 0.03.

React (choice among the offered enum)
  * Observation of a thing (no person) -> continue 0.93, react 0.03, wait 0.02, talk 0.02.
  * Observation of a person -> talk probability: base 0.18; +0.20 if the identity ties them
    warmly; -0.13 if coldly (quarrel / not speaking), strangers +-0; +0.40 if this person has an
    upcoming event/news of their own to share that the other person has not yet been told
    (no remembered conversation with them mentioning it); x0.7 if the other is busy working;
    x0.25 if they talked in the last 90 minutes; x0.3 at night (before 06:00 / after 22:00);
    other is asleep -> 0.02. wait 0.06; react 0.05 (+0.25 for alarming words). Rest continue.
    Options not offered are redistributed to continue.
  * new_activity: filled for react; also for talk with p = 0.5 and continue/wait with p = 0.25.

Conversation line
  * Opening line (nobody spoke yet): greeting by time of day; when they have no news, small
    talk from the status with p = 0.35, else a how-are-you question.
  * Lines with more than two parts are cut back to greeting + news/invitation/goodbye parts
    with p = 0.75 (so 25% stay long).
  * News of their own (the prompt says they have news / an event they host): brought up at this
    turn with p = 0.70 on their first line and p = 0.85 on later lines until it has been said;
    told with what (a condensed clause), day and time (time said vaguely with p = 0.15) and
    place; if they host it, an invitation to the other with p = 0.90; a made-up concrete extra
    (bring something, wrap up warm) with p = 0.25.
  * Being invited (the other's last line asks them to come/join with a time or day): declines
    or proposes another time with p = 0.75 if their own plan holds a real commitment (calling
    on someone, hosting, another event; or their own news event within 90 min) at that time; else accepts with p = 0.80 (warm),
    0.65 (neutral), 0.30 (cold); reserved/taciturn traits -0.10.
  * News of someone else's event passed on by the other: says they might/will go with p = 0.45,
    non-committal interest 0.35, not interested 0.20.
  * Ending: [end] after the other said goodbye with p = 0.85; otherwise p = 0.10 in the first
    2 lines, 0.35 in lines 3-5, 0.70 from line 6 on; a closing line says goodbye.

Group conversation turn (a JSON schema with an utterance-like string, whom it is addressed
to, and a leave flag): the same line rules as the conversation line (no tag; stage direction
5%); addressed to a person named in the line, else the last other speaker (p = 0.6), else
"everyone"; the leave flag is the [end] decision.

Conversation memo
  * Event talk = a line with a day or clock expression plus an event/meeting word.
  * Plan item filled: the memo's owner accepted (yes / I'll come / count me in / see you there)
    p = 0.90; said maybe p = 0.30; declined p = 0.05; event mentioned, no answer p = 0.12;
    the owner is the host/proposer p = 0.35 (adds own event); no event p = 0.02.
  * Date resolved from day words against the prompt's date (off by one day p = 0.05); start
    from the clock expression ("" with p = 0.5 when none, else 12:00); minutes from a range,
    else 60; place by word match to the enum, else "" (p 0.7) or a plausible enum entry (0.3).
  * Importance: small talk 2-3; event mentioned 5-6; accepted 6-7; +-1 noise p = 0.25.
  * Summary in first person with p = 0.6, else third person.

Reflection
  * Questions: always as many as allowed (max), about the most-mentioned other person, the most
    repeated activity, and an upcoming event if any (else the status); 10% of questions drift to
    the identity/status beyond the memories; 5% one question too many.
  * Insights: 2-3 per question (<= max), evidence = statements sharing words with the question
    (1-4 numbers, from the allowed numbers; one out-of-range number p = 0.03), importance 3-6
    (+2 for event/relationship insights).

Re-plan
  * First block at the first allowed start: dealing with the change (talking with the person
    named, or going to the event's place) 10-20 min, then resuming the interrupted activity;
    a start time outside the enum p = 0.08.
"""

import hashlib
import json
import random
import re
from datetime import date, timedelta

# ----------------------------------------------------------------------------- constants

WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
NUMWORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
CAP_STOP = set(WEEKDAYS + MONTHS + [
    "I", "It", "The", "A", "An", "Answer", "Name", "Age", "Identity", "Lifestyle", "Currently",
    "Today", "Tomorrow", "Yesterday", "What", "How", "Which", "Who", "Where", "When", "Why",
    "If", "Then", "Each", "Give", "Rewrite", "Plan", "Re", "Break", "Should", "Choose", "Make",
    "From", "On", "In", "At", "Things", "Someone", "Events", "Questions", "Step", "Write",
    "Conclude", "Prefer", "Text", "You", "No", "Yes", "Hi", "Hello", "Good", "News", "Keep",
    "Lines", "Ordinary", "An", "Innate", "Already", "Still", "Planned", "Right", "Now", "Do",
    "Have", "Are", "Is", "Sorry", "Well", "Anyway", "Quiet", "Busy", "Can't", "Oh", "Bye",
    "See", "Nice", "Down", "Up", "He", "She", "They", "His", "Her", "Their", "We", "My", "Our",
    "Mr", "Mrs", "Ms", "Dr", "But", "And", "So", "This", "That", "These", "Those", "There",
    "I'm", "I'll", "I'd", "I've", "Let", "Did", "Not", "Ah", "Oh", "After", "Before", "Whoever"])

WARM_WORDS = ["friend", "wife", "husband", "son", "daughter", "mother", "father", "cousin",
              "sister", "brother", "fond", "close", "oldest", "best", "love", "likes", "warm",
              "get on", "keeps", "brings", "trust"]
COLD_WORDS = ["not spoken", "quarrel", "never spoken", "hardly", "avoid", "dislike", "angry",
              "cold", "won't speak", "will not speak", "resent", "feud", "grudge", "turned away"]
ACCEPT_WORDS = ["i'll come", "i will come", "i'd like that", "i'd love to", "count me in",
                "see you there", "i'll be there", "i will be there", "sounds lovely",
                "sounds good", "sounds wonderful", "i'll come along", "i'll go", "i will go",
                "wouldn't miss", "i'd be glad", "yes", "of course", "gladly", "i'll join",
                "i'm in", "i'll try to make it", "happy to", "i'll see you"]
DECLINE_WORDS = ["sorry", "can't", "cannot", "won't be able", "not able", "i'll pass",
                 "no thanks", "not for me", "another time", "another day", "i'm busy",
                 "i'll be sleeping", "i have to", "i must", "rather not"]
MAYBE_WORDS = ["maybe", "might", "perhaps", "we'll see", "i'll think", "if i can"]
INVITE_WORDS = ["come", "join", "would you like", "you're welcome", "invite", "why don't you",
                "care to", "want to", "fancy", "bring yourself", "stop by", "drop by"]
EVENT_WORDS = ["party", "gathering", "meeting", "celebrat", "event", "show", "concert",
               "festival", "dinner", "service", "market", "match", "lecture", "opening",
               "launch", "ceremony", "watch", "see", "come", "join", "hosting", "invite",
               "news", "going to", "will be", "tomorrow", "tonight"]
EMO_WORDS = ["died", "death", "dead", "funeral", "quarrel", "love", "married", "wedding",
             "divorce", "fear", "afraid", "worried", "sick", "ill ", "illness", "hospital",
             "lost", "loss", "accident", "fired", "pregnant", "baby", "crying", "hurt", "fight"]
ALARM_WORDS = ["fire", "hurt", "fell", "fallen", "accident", "crying", "help", "bleeding",
               "injured", "collapsed", "screaming", "emergency", "flames"]
ROUTINE_WORDS = ["sleeping", "waking", "getting ready", "breakfast", "lunch", "dinner",
                 "relaxing", "eating", "resting", "nap", "washing", "dressed", "tidying",
                 "working", "reading", "tea", "music", "dishes", "table", "setting"]
CONV_WORDS = ["chatted", "conversation", "talked", "said", "told", "asked", "chatting"]
STATE_RE = re.compile(r"^[a-z][\w' -]{0,40} is (in use|being used|occupied|idle|free|empty|"
                      r"open|closed|on|off|running|available|\w+ing\b)", re.I)
EMOJI = [("sleep", "😴"), ("bed", "😴"), ("wak", "⏰"), ("breakfast", "🍳"), ("lunch", "🥪"),
         ("dinner", "🍲"), ("coffee", "☕"), ("tea", "🍵"), ("read", "📖"), ("teach", "🍎"),
         ("class", "🏫"), ("walk", "🚶"), ("shop", "🛒"), ("music", "🎵"), ("visit", "👋"), ("calling", "👋"),
         ("chat", "💬"), ("talk", "💬"), ("host", "🎉"), ("watch", "👀"), ("work", "🛠️"),
         ("relax", "🛋️"), ("home", "🏠"), ("clean", "🧹"), ("cook", "🍳"), ("write", "✍️")]


# ----------------------------------------------------------------------------- helpers

class _R:
    """Random source honouring temperature."""

    def __init__(self, body, seed):
        msgs = body.get("messages") or []
        h = hashlib.sha256((json.dumps(msgs, sort_keys=True, ensure_ascii=False) + "|" +
                            str(seed)).encode("utf-8")).hexdigest()
        self.rng = random.Random(int(h[:16], 16))
        t = body.get("temperature")
        try:
            t = float(t) if t is not None else 0.7
        except Exception:
            t = 0.7
        self.greedy = t <= 0.1

    def chance(self, p):
        if self.greedy:
            self.rng.random()
            return p >= 0.5
        return self.rng.random() < p

    def pick(self, seq):
        seq = list(seq)
        if not seq:
            return None
        if self.greedy:
            self.rng.random()
            return seq[0]
        return self.rng.choice(seq)

    def randint(self, a, b):
        if self.greedy:
            self.rng.random()
            return (a + b) // 2
        return self.rng.randint(a, b)

    def weighted(self, options):
        """options: list of (value, weight)."""
        options = [(v, max(0.0, w)) for v, w in options]
        tot = sum(w for _, w in options)
        if tot <= 0:
            return options[0][0]
        if self.greedy:
            self.rng.random()
            return max(options, key=lambda x: x[1])[0]
        x = self.rng.random() * tot
        for v, w in options:
            x -= w
            if x <= 0:
                return v
        return options[-1][0]


def _words(s):
    return [w for w in re.findall(r"[^\W\d_]+", (s or "").lower()) if len(w) > 2]


_STOPW = set("the and for with that this from have has had was were are is his her their they "
             "them she him you your our who whom what when where which will would could should "
             "about into onto over under been being than then there here also just only some "
             "any all one two not but out off its it's can did does done more most very much "
             "does each other many such own same so up down at on in of to by as an a".split())


def _content(s):
    return set(w.rstrip("s") for w in _words(s) if w not in _STOPW)


def _clean(s):
    return re.sub(r"\s+", " ", (s or "")).strip()


def _first_sentences(s, n=1):
    parts = re.split(r"(?<=[.!?])\s+", _clean(s))
    return " ".join(parts[:n]).strip()


def _trim_words(s, n):
    w = _clean(s).split()
    if len(w) <= n:
        return " ".join(w)
    return " ".join(w[:n])


def fmt_hm(m):
    m = int(m) % (24 * 60)
    return "%02d:%02d" % (m // 60, m % 60)


def fmt_ampm(m):
    m = int(m) % (24 * 60)
    h, mi = m // 60, m % 60
    suf = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return ("%d%s" % (h12, suf)) if mi == 0 else ("%d:%02d%s" % (h12, mi, suf))


_CLOCK_RE = re.compile(
    r"(?P<hm>\b(?P<hh>[01]?\d|2[0-3])[:.](?P<mm>[0-5]\d)(?!\d)\s*(?P<ap1>[ap]\.?m\b\.?)?)|"
    r"(?P<h>\b(?P<h2>1[0-2]|0?[1-9])\s*(?P<ap2>[ap]\.?m)\b\.?)|"
    r"(?P<word>\b(?:noon|midday|midnight)\b)|"
    r"(?P<half>\bhalf past (?P<hw>\w+))|"
    r"(?P<qp>\bquarter past (?P<qpw>\w+))|"
    r"(?P<qt>\bquarter to (?P<qtw>\w+))|"
    r"(?P<bef>\b(?:a little |just )?before (?P<bw>one|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve)\b)|"
    r"(?P<oc>\b(?P<ow>one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) o'clock)",
    re.I)


def _num(w):
    w = (w or "").lower()
    if w.isdigit():
        return int(w)
    return NUMWORDS.get(w)


def _pm_guess(h):
    # bare hour words in daytime talk: 1-6 -> afternoon, 7-11 -> morning, 12 -> noon
    return h + 12 if 1 <= h <= 6 else h


def find_clocks(text):
    """Return list of (minutes, start_index, end_index)."""
    out = []
    for m in _CLOCK_RE.finditer(text or ""):
        try:
            if m.group("hm"):
                h, mi = int(m.group("hh")), int(m.group("mm"))
                ap = (m.group("ap1") or "").lower()
                if ap.startswith("p") and h < 12:
                    h += 12
                if ap.startswith("a") and h == 12:
                    h = 0
                out.append((h * 60 + mi, m.start(), m.end()))
            elif m.group("h"):
                h = int(m.group("h2"))
                ap = m.group("ap2").lower()
                if ap.startswith("p") and h < 12:
                    h += 12
                if ap.startswith("a") and h == 12:
                    h = 0
                out.append((h * 60, m.start(), m.end()))
            elif m.group("word"):
                w = m.group("word").lower()
                out.append((0 if w == "midnight" else 720, m.start(), m.end()))
            elif m.group("half"):
                h = _num(m.group("hw"))
                if h:
                    out.append((_pm_guess(h) * 60 + 30, m.start(), m.end()))
            elif m.group("qp"):
                h = _num(m.group("qpw"))
                if h:
                    out.append((_pm_guess(h) * 60 + 15, m.start(), m.end()))
            elif m.group("qt"):
                h = _num(m.group("qtw"))
                if h:
                    out.append((_pm_guess(h) * 60 - 15, m.start(), m.end()))
            elif m.group("bef"):
                h = _num(m.group("bw"))
                if h:
                    out.append((_pm_guess(h) * 60 - 10, m.start(), m.end()))
            elif m.group("oc"):
                h = _num(m.group("ow"))
                if h:
                    out.append((_pm_guess(h) * 60, m.start(), m.end()))
        except Exception:
            continue
    return out


_DATE_RE = re.compile(r"\b(?:(%s),?\s+)?(%s)\s+(\d{1,2})(?:,?\s+(\d{4}))?" %
                      ("|".join(WEEKDAYS), "|".join(MONTHS)))
_ISO_RE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


def _infer_year(wd, mon, day, hint_text):
    m = _ISO_RE.search(hint_text or "")
    if m:
        return int(m.group(1))
    ym = re.search(r"\b(19|20)\d{2}\b", hint_text or "")
    if ym:
        return int(ym.group(0))
    if wd:
        for y in range(2024, 2040):
            try:
                if WEEKDAYS[date(y, mon, day).weekday()] == wd:
                    return y
            except Exception:
                pass
    return 2025


def find_today(text, hint_text=""):
    """The prompt's current date (first weekday+month+day found, or ISO date)."""
    year = None
    ym = re.search(r"\b(19|20)\d{2}\b", text or "")
    if ym:
        year = int(ym.group(0))
    for m in _DATE_RE.finditer(text or ""):
        try:
            mon, day = MONTHS.index(m.group(2)) + 1, int(m.group(3))
            y = int(m.group(4)) if m.group(4) else (year or _infer_year(m.group(1), mon, day, hint_text))
            d = date(y, mon, day)
            return d
        except Exception:
            continue
    m = _ISO_RE.search(text or "")
    if m:
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except Exception:
            pass
    return None


def resolve_day(text, today):
    """Resolve a day expression in text relative to today; returns date or None."""
    if today is None:
        return None
    t = text or ""
    for m in _DATE_RE.finditer(t):
        try:
            d = date(today.year, MONTHS.index(m.group(2)) + 1, int(m.group(3)))
            if d < today - timedelta(days=200):
                d = date(today.year + 1, d.month, d.day)
            return d
        except Exception:
            continue
    low = t.lower()
    if "day after tomorrow" in low:
        return today + timedelta(days=2)
    if "tomorrow" in low:
        return today + timedelta(days=1)
    if re.search(r"\b(today|tonight|this (morning|afternoon|evening))\b", low):
        return today
    for i, wd in enumerate(WEEKDAYS):
        if re.search(r"\b%s\b" % wd, t):
            delta = (i - today.weekday()) % 7
            return today + timedelta(days=delta or 7 if "next" in low else delta)
    return None


def find_addresses(text):
    out = []
    for a in re.findall(r"[^\s:(),\"\[\]][^:\n(),\"\[\]]{0,60}:[^:\n(),\"]{1,60}:"
                        r"[^:\n(),\"\]]{1,60}", text or ""):
        head, tail = a.rsplit(":", 1)
        tail = re.split(r"\.\s|\.$|;", tail)[0].strip()
        if any(part.strip()[:1].isdigit() or part.strip()[-1:].isdigit() for part in a.split(":")):
            continue
        if any(len(part.split()) > 4 for part in a.split(":")) or \
                not all(w[:1].isupper() for w in a.split(":")[0].split()):
            continue
        if tail:
            out.append(head + ":" + tail)
    return list(dict.fromkeys(out))


def place_words(addresses):
    ws = set()
    for a in addresses:
        for part in a.split(":"):
            ws.add(part.strip().lower())
    return ws


def find_people(text, addresses):
    """Capitalised multi-word sequences that are not address components."""
    comps = place_words(addresses)
    comp_words = set()
    for c in comps:
        for w in c.split():
            comp_words.add(w.lower())
    counts = {}
    text = text or ""
    for m in re.finditer(r"(?<![\w:])((?:[^\W\d_][\w'’-]*)(?:\s+[^\W\d_][\w'’-]*){1,2})", text or ""):
        seq = m.group(1).split()
        # split on non-capitalised tokens
        run = []
        for tok in seq + ["x"]:
            if tok[:1].isupper() and tok.strip("'’") not in CAP_STOP:
                run.append(tok.rstrip("'’s") if tok.endswith("'s") or tok.endswith("’s") else tok)
            else:
                if len(run) >= 2:
                    name = " ".join(run)
                    if name.lower() not in comps and not all(w.lower() in comp_words for w in run):
                        counts[name] = counts.get(name, 0) + 1
                run = []
    for name in list(counts):
        e = re.escape(name)
        if not re.search(r"%s(?:'s)? (?:is|was|has|had|said|told|asked|says|will|would|came|comes|"
                         r"lives|works|keeps|brings|sends|can|does|did|feels|knows)\b|"
                         r"\b(?:with|told|asked|and|to|about|of|on|sees|see|by|for) %s\b|^%s:|"
                         r"^- \"?%s|\n%s:" % (e, e, e, e, e), text, re.M):
            del counts[name]
    return counts


def first_name(name):
    return (name or "").split()[0] if name else ""


def mentions(text, person):
    if not person or not text:
        return False
    if person in text:
        return True
    fn = first_name(person)
    return bool(fn) and len(fn) > 2 and re.search(r"\b%s\b" % re.escape(fn), text) is not None


def best_address(text, addresses, min_score=1):
    tw = _content(text)
    best, bs = None, 0
    for a in addresses:
        parts = a.split(":")
        aw = set()
        for i, p in enumerate(parts[1:] if len(parts) > 1 else parts):
            aw |= _content(p)
        s = len(aw & tw)
        # exact component phrase present counts double
        for p in parts[1:]:
            if p.strip() and p.strip().lower() in (text or "").lower():
                s += 2
        if s > bs:
            best, bs = a, s
    return best if bs >= min_score else None


def emoji_for(act):
    a = (act or "").lower()
    for k, e in EMOJI:
        if k in a:
            return e
    return "🙂"


def third_to_first(s, me):
    """Crude third->first person conversion of a status/identity clause."""
    if not s:
        return s
    out = s
    fn = first_name(me)
    for nm in [me, fn]:
        if not nm:
            continue
        out = re.sub(r"\b%s is\b" % re.escape(nm), "I'm", out)
        out = re.sub(r"\b%s has\b" % re.escape(nm), "I've", out)
        out = re.sub(r"\b%s will\b" % re.escape(nm), "I'll", out)
        out = re.sub(r"\b%s's\b" % re.escape(nm), "my", out)
        out = re.sub(r"\b%s\b" % re.escape(nm), "I", out)
    out = re.sub(r"\b(He|She) (is)\b", "I am", out)
    out = re.sub(r"\b(he|she) (is)\b", "I am", out)
    out = re.sub(r"\b(He|She|he|she)\b", "I", out)
    out = re.sub(r"\b(His|his)\b", "my", out)
    out = re.sub(r"\b(her)\b(?= (?:to|a|an|the|and|or|in|on|at|for|with|from|up|out|off|now|again)\b|[.,;!?]|$)",
                 "me", out)
    out = re.sub(r"\b(Her|her)\b", "my", out)
    out = re.sub(r"\b(told|asked|invited|with|to|for|about|saw|met|tell|ask|invite|see|meet|called|"
                 r"visited|gave|brings|bring|sends|send|knows|know|than|like|likes) I\b", r"\1 me", out)
    out = re.sub(r"\bhimself\b|\bherself\b", "myself", out)
    out = re.sub(r"\bI has\b", "I have", out)
    out = re.sub(r"\bI does\b", "I do", out)
    out = re.sub(r"\bI was\b", "I was", out)
    out = re.sub(r"\bI (\w+)s\b(?= )", lambda m: "I " + m.group(1) if m.group(1) not in (
        "wa", "ha", "i", "thi") and len(m.group(1)) > 2 else m.group(0), out)
    return out[:1].upper() + out[1:]


# ----------------------------------------------------------------------------- context

class Ctx:
    def __init__(self, body):
        self.body = body
        msgs = body.get("messages") or []
        self.system = "\n".join(str(m.get("content") or "") for m in msgs
                                if isinstance(m, dict) and m.get("role") == "system")
        self.user = "\n".join(str(m.get("content") or "") for m in msgs
                              if isinstance(m, dict) and m.get("role") != "system")
        self.all = self.system + "\n" + self.user
        rf = body.get("response_format") or {}
        self.schema = None
        if isinstance(rf, dict):
            js = rf.get("json_schema")
            if isinstance(js, dict):
                self.schema = js.get("schema") if isinstance(js.get("schema"), dict) else None
            elif rf.get("type") == "json_object":
                self.schema = {}
        self.json_mode = isinstance(rf, dict) and rf.get("type") in ("json_schema", "json_object")
        self.max_tokens = body.get("max_tokens") or 4096
        # persona card: leading "Key: value" lines
        self.card = {}
        for line in self.user.split("\n"):
            m = re.match(r"^([A-Z][\w ]{1,30}):\s+(.+)$", line)
            if m:
                self.card.setdefault(m.group(1).lower(), m.group(2))
            elif line.strip() == "" and self.card:
                break
        self.addresses = find_addresses(self.all)
        self.people = find_people(self.all, self.addresses)
        self.me = self._find_me()
        self.identity = self._field(["identity", "description", "bio", "background"], longest=True)
        self.lifestyle = self._field(["lifestyle", "routine", "daily"])
        self.currently = self._field(["currently", "status", "now"])
        self.traits = self._field(["innate", "traits", "personality"])
        self.today = find_today(self.user[len(self._card_text()):] or self.user,
                                self.all + json.dumps(self.schema or {}))
        self.now_min = self._now_clock()

    def _card_text(self):
        t = ""
        for k, v in self.card.items():
            t += v
        idx = self.user.find(list(self.card.values())[-1]) if self.card else -1
        return self.user[:idx + len(list(self.card.values())[-1])] if idx >= 0 else ""

    def _field(self, keys, longest=False):
        cands = [(k, v) for k, v in self.card.items() if any(x in k for x in keys)]
        if not cands:
            if longest and self.card:
                return max(self.card.values(), key=len)
            return ""
        return cands[0][1]

    def _find_me(self):
        m = re.search(r"(?:mind|role|voice|thoughts) of ([^\W\d_][\w'’ -]+?)[,.\n]", self.system)
        if m:
            return m.group(1).strip()
        for k, v in self.card.items():
            if k in ("name", "character", "npc"):
                return v.strip()
        if self.people:
            return max(self.people.items(), key=lambda x: x[1])[0]
        return "I"

    def _now_clock(self):
        rest = self.user[len(self._card_text()):]
        m = re.search(r"\b(?:It is|Now|It's)\b[^\n]{0,60}", rest)
        seg = m.group(0) if m else rest[:300]
        cl = find_clocks(seg)
        if cl:
            return cl[0][0]
        cl = find_clocks(rest[:400])
        return cl[0][0] if cl else 9 * 60

    def others(self):
        return [p for p, _ in sorted(self.people.items(), key=lambda x: -x[1])
                if p != self.me and not (self.me in p or p in self.me)]

    def task_text(self):
        return self.user[len(self._card_text()):]

    def home_address(self, enum=None):
        addrs = enum or self.addresses
        t = self.task_text()
        for m in re.finditer(r"(?:sleep|home|bed)[^\n]{0,80}?\(([^()]*:[^()]*:[^()]*)\)", t, re.I):
            if m.group(1) in addrs:
                return m.group(1)
        sn = _content(self.me)
        for a in addrs:
            if _content(a.split(":")[1] if ":" in a else a) & sn:
                if any(x in a.lower() for x in ("room", "bed")):
                    return a
        for a in addrs:
            if any(x in a.lower() for x in ("house", "home", "flat", "apartment", "cottage")):
                return a
        return addrs[0] if addrs else ""

    def kitchen(self, enum, home):
        hp = home.rsplit(":", 1)[0] if home else ""
        for a in enum:
            if "kitchen" in a.lower() and a.startswith(hp):
                return a
        return home

    def warmth_to(self, person):
        """+1 warm, -1 cold, 0 neutral/unknown, from identity and any feeling line."""
        sents = [s for s in re.split(r"(?<=[.;])\s+", self.identity or "") if mentions(s, person)]
        t = " ".join(sents).lower()
        feel = re.search(r"feel (\w+) towards", self.user)
        if feel:
            w = feel.group(1).lower()
            if w in ("warm", "close", "fond", "great", "good"):
                return 1
            if w in ("cold", "wary", "angry", "annoyed", "bad", "uneasy"):
                return -1
        if any(w in t for w in COLD_WORDS):
            return -1
        if any(w in t for w in WARM_WORDS):
            return 1
        return 0


def memory_lines(text):
    out = []
    for m in re.finditer(r"^\s*(?:-|\d+\.)\s*\[([^\]]+)\]\s*(.+)$", text or "", re.M):
        out.append((m.group(1), m.group(2).strip()))
    return out


def strip_stamp(s):
    return re.sub(r"^\s*(?:-|\d+\.)?\s*\[[^\]]*\]\s*", "", s or "")


def event_gist(sent, me):
    """('own', clause) when the person is the event's subject, else ('heard', clause)."""
    s = strip_stamp(sent)
    for nm in [me, first_name(me)]:
        if nm and re.search(r"\b%s (?:will|is going to|can|wants to|plans to|means to|is hosting|hosts)\b"
                            % re.escape(nm), s):
            return "own", condense_event(s, me)
    m = re.search(r"\bthat (.+)", s)
    clause = m.group(1) if m else s
    clause = re.split(r";|, and | - ", clause)[0]
    return "heard", _trim_words(clause, 18).rstrip(" .,;")


def event_sentences(text, me=None):
    """Sentences that read like an upcoming event: a day word or clock expression plus an
    event-ish word. Returns list of sentences."""
    out = []
    for s in re.split(r"(?<=[.!?])\s+|\n", text or ""):
        s = strip_stamp(s)
        low = s.lower()
        if len(s) < 20:
            continue
        if "plan for" in low or "schedule" in low:
            continue
        has_day = bool(re.search(r"\b(tomorrow|tonight|today|this evening|%s)\b" %
                                 "|".join(w.lower() for w in WEEKDAYS), low))
        has_clock = bool(find_clocks(s))
        evw = any(w in low for w in ["will ", "come", "join", "whoever", "invite", "host",
                                     "gather", "party", "celebrat", "meet", "show", "watch"])
        if (has_day or has_clock) and evw:
            out.append(s.strip())
    return out


def event_when_where(text, ctx, today=None):
    today = today or ctx.today
    d = resolve_day(text, today)
    cl = find_clocks(text)
    start = cl[0][0] if cl else None
    end = cl[1][0] if len(cl) > 1 and cl[1][0] > (start or 0) else None
    m = re.search(r"\b([01]?\d|2[0-3]):([0-5]\d)\s*-\s*([01]?\d|2[0-3]):([0-5]\d)", text or "")
    if m:
        start = int(m.group(1)) * 60 + int(m.group(2))
        end = int(m.group(3)) * 60 + int(m.group(4))
    return d, start, end


def day_phrase(d, today):
    if d is None or today is None:
        return ""
    if d == today:
        return "today"
    if d == today + timedelta(days=1):
        return "tomorrow"
    return "on " + WEEKDAYS[d.weekday()]


def place_phrase(text, addresses):
    a = best_address(text, addresses, min_score=2) if addresses else None
    if a:
        parts = a.split(":")
        if len(parts) >= 3:
            return "at the %s at %s" % (parts[2].strip(), parts[1].strip()) if \
                parts[2].strip().lower() not in parts[1].strip().lower() else "at %s" % parts[1]
        return "at " + a
    m = re.search(r"\b(?:at|up at|down at|in) (?:the )?([A-Z][\w'’]+(?: [A-Z][\w'’]+)*)"
                  r"(?: \(([^()]{1,30})\))?", text or "")
    if m and addresses and m.group(1).lower() not in place_words(addresses):
        m = None
    if m:
        if m.group(2):
            return "at the %s by %s" % (m.group(2), m.group(1))
        return "at " + m.group(1)
    return ""


def condense_event(text, me):
    """Short 'what' clause of an event sentence, in the third person."""
    t = _clean(text)
    m = None
    for nm in [me, first_name(me)]:
        if nm:
            m = re.search(r"\b%s (?:will|is going to|can|could|wants to|hopes to|plans to|means to|"
                          r"is to|is) (.+)" % re.escape(nm), t)
            if m:
                break
    if not m:
        m = re.search(r"\b(?:will|is going to|can|wants to|means to) (.+)", t)
    core = m.group(1) if m else t
    for nm in [me, first_name(me)]:
        if nm and core.startswith(nm + " "):
            core = core[len(nm) + 1:]
    cut = re.search(r"(?<=\w)( (he|she|they|which|that|who) (has|have|had|is|was|will)\b|,|;|"
                    r" and (?:whoever|all)| by the | before | from \d| at \d| tomorrow| today| tonight| on (?:%s)|"
                    r" this (?:morning|afternoon|evening)|\?)" % "|".join(WEEKDAYS),
                    core)
    if cut and len(core[:cut.start()].split()) >= 3:
        core = core[:cut.start()]
    core = _trim_words(core, 14).rstrip(" ,.;:")
    return core


def event_np(line):
    """The event named in a spoken line, as a short phrase ('a concert at the hall')."""
    t = _clean(line).strip('"')
    prev = None
    while prev != t:
        prev = t
        t = re.sub(r"^(news!?|hi\b[^.!?]*[.!?]|hello\b[^.!?]*[.!?]|good (morning|afternoon|evening)"
                   r"[^.!?]*[.!?]|did you hear(?: about)?\??|have you heard(?: about)?\??|did you know\??|"
                   r"guess what\??|oh,?|so,?|listen,?)\s*", "", t, flags=re.I)
    sents = re.split(r"(?<=[.!?])\s+", t)
    pick = next((x for x in sents if find_clocks(x) or re.search(
        r"\b(tomorrow|tonight|today|%s)\b" % "|".join(WEEKDAYS), x, re.I)), sents[0] if sents else t)
    pick = re.sub(r"^(did you hear(?: about)?|have you heard(?: about)?|did you know(?: about)?|"
                  r"news!?)\s*", "", pick.strip(), flags=re.I)
    pick = re.split(r"\?|, (?:would|do|want|if|care|fancy|why)\b", pick)[0]
    pick = re.sub(r"^(there's|there is|there will be|we're having|we are having|i'm having|"
                  r"i am having|i'm going to|i'll be|i will|i'm|we're)\s+", "", pick, flags=re.I)
    return _trim_words(pick, 16).rstrip(" .,!;:")


def short_np(np_):
    cut = re.search(r"( tomorrow| today| tonight| on (?:%s)| at \d| from \d| this )" % "|".join(WEEKDAYS), np_)
    core = np_[:cut.start()] if cut and cut.start() > 3 else np_
    core = re.sub(r"^(a|an)\s+", "the ", core.strip())
    return _trim_words(core, 10)


# ----------------------------------------------------------------------------- schema utils

def _resolve(schema, root):
    if isinstance(schema, dict) and "$ref" in schema:
        ref = schema["$ref"]
        if ref.startswith("#/"):
            node = root
            for part in ref[2:].split("/"):
                node = node.get(part, {}) if isinstance(node, dict) else {}
            return node
    if isinstance(schema, dict) and "anyOf" in schema:
        for s in schema["anyOf"]:
            if isinstance(s, dict) and s.get("type") != "null":
                return _resolve(s, root)
    return schema if isinstance(schema, dict) else {}


def props_of(schema, root):
    s = _resolve(schema, root)
    return s.get("properties") or {}


def item_schema(prop, root):
    p = _resolve(prop, root)
    return _resolve(p.get("items") or {}, root)


def generic_fill(schema, root, rng, ctx, key=""):
    s = _resolve(schema, root)
    if "enum" in s and s["enum"]:
        vals = [v for v in s["enum"] if v not in ("", None)] or s["enum"]
        return rng.pick(vals)
    t = s.get("type")
    if isinstance(t, list):
        t = [x for x in t if x != "null"][0] if [x for x in t if x != "null"] else "string"
    if t == "object" or "properties" in s:
        return {k: generic_fill(v, root, rng, ctx, k) for k, v in (s.get("properties") or {}).items()}
    if t == "array":
        n = max(1, int(s.get("minItems", 1)))
        return [generic_fill(s.get("items") or {}, root, rng, ctx, key) for _ in range(n)]
    if t == "integer":
        lo, hi = s.get("minimum", 1), s.get("maximum", 10)
        return max(lo, min(hi, (lo + hi) // 2))
    if t == "number":
        return float(s.get("minimum", 0.5))
    if t == "boolean":
        return True
    if "answer" in key or "summary" in key or "text" in key:
        return "I'm not sure, to be honest."
    return ""


# ----------------------------------------------------------------------------- task: ratings

def rate_memory(mem, ctx, rng):
    m = mem.strip().strip('"')
    low = m.lower()
    starts_person = any(m.startswith(p) for p in list(ctx.people) + [ctx.me])
    base = 2
    if not starts_person and STATE_RE.match(m) and len(m.split()) <= 8:
        base = 1 if rng.chance(0.7) else 2
    elif "plan for" in low or low.startswith("schedule"):
        base = 3
    elif any(w in low for w in ("feels", "cares about", "pays attention", "values", "seems to")):
        base = 4
    elif any(w in low for w in CONV_WORDS) or '"' in m:
        base = 3
        if any(w in low for w in ("arranged", "agreed", "promised", "invited", "will come",
                                  "i'll come")) and "nothing was arranged" not in low:
            base = 5
    elif m.startswith(ctx.me) and any(w in low for w in ROUTINE_WORDS):
        base = 2
    elif starts_person:
        base = 2
        who = [p for p in ctx.people if m.startswith(p)]
        if who and mentions(ctx.identity, who[0]):
            base = 3
    if event_sentences(m) or (len(m) > 160 and find_clocks(m) and resolve_day(m, ctx.today)):
        base = 7
        if mentions(m, ctx.me) or "whoever" in low or "host" in low:
            base = 8
    if any(w in low for w in EMO_WORDS):
        base += 2
    if rng.chance(0.25):
        base += 1
    if rng.chance(0.25):
        base += rng.pick([-1, 1])
    return max(1, min(10, base))


def task_rating_single(ctx, rng, key):
    t = ctx.task_text()
    qs = re.findall(r'"([^"]{3,})"', t)
    mem = max(qs, key=len) if qs else t[-400:]
    return {key: rate_memory(mem, ctx, rng)}


def task_rating_batch(ctx, rng, key, prop):
    t = ctx.task_text()
    mems = re.findall(r'^\s*(?:-|\d+[.)])\s*"(.+)"\s*$', t, re.M)
    if not mems:
        mems = [x for x in re.findall(r'^\s*(?:-|\d+[.)])\s*(.+)$', t, re.M)]
    p = _resolve(prop, ctx.schema)
    n = p.get("minItems") or len(mems) or 1
    if len(mems) < n:
        mems = mems + [mems[-1] if mems else ""] * (n - len(mems))
    ratings = [rate_memory(x, ctx, rng) for x in mems[:max(n, len(mems))]]
    if rng.chance(0.03) and len(ratings) > 1:
        if rng.chance(0.5):
            ratings = ratings[:-1]
        else:
            ratings.append(ratings[-1])
    return {key: ratings}


# ----------------------------------------------------------------------------- task: free text

def _question(ctx):
    """The question put to the character: a quoted question introduced by a verb of asking."""
    t = ctx.task_text()
    qs = re.findall(r'\b(?:ask|asks|asked|asking|wonders|wants to know|question)\b[^"\n]{0,80}"([^"\n]{3,300}\?)"',
                    t, re.I)
    return qs[-1] if qs else None


def _memory_block(ctx):
    return [(ts, m) for ts, m in memory_lines(ctx.task_text())]


def task_answer(ctx, rng, q):
    me = ctx.me
    mems = _memory_block(ctx)
    ql = q.lower()
    people_q = [p for p in find_people(q, ctx.addresses)]
    if not people_q:
        # single-capitalised word name (first name) in a know-question
        m = re.search(r"\bknow ([A-Z][\w'’-]+)", q)
        if m:
            people_q = [m.group(1)]
    out = []
    if people_q and re.search(r"\bknow\b|\bwho is\b|\bmet\b", ql):
        p = people_q[0]
        sents = [s for s in re.split(r"(?<=[.;])\s+", ctx.identity or "") if mentions(s, p)]
        msents = [m for _, m in mems if mentions(m, p)]
        if sents:
            s = third_to_first(sents[0], me).rstrip(".;")
            out.append("Yes, I know %s. %s." % (first_name(p), s))
        elif msents:
            s = msents[-1]
            out.append("Yes, I know %s a little. Last I saw, %s." % (
                first_name(p), s[0].lower() + s[1:].rstrip(".")))
        else:
            if rng.chance(0.15):
                out.append(rng.pick([
                    "I think I've seen %s around, but I couldn't tell you much about them." % p,
                    "The name rings a bell, %s; I believe we've crossed paths once or twice." % p,
                ]))
            else:
                out.append(rng.pick([
                    "No, I don't know %s, I'm afraid." % p,
                    "I can't say I know %s. The name doesn't ring a bell." % p,
                    "I don't think I've met %s." % p,
                ]))
    else:
        qw = _content(q) - {"heard", "know", "hear", "about", "anything", "you"}
        scored = []
        for ts, m in mems:
            if "plan for" in m.lower():
                continue
            s = len(_content(m) & qw)
            if s:
                scored.append((s, len(m), ts, m))
        if scored:
            scored.sort(key=lambda x: (-x[0], -x[1]))
            m = scored[0][3]
            if rng.chance(0.9):
                rec = third_to_first(_trim_words(strip_stamp(m), 40), me).rstrip(" .,;")
                out.append("Yes, " + ("I did. " if rng.chance(0.5) else "") + rec[0].upper() + rec[1:] + ".")
            else:
                out.append("I think I heard something about it, but I don't know the details.")
        else:
            if rng.chance(0.10):
                out.append("I think someone mentioned it in passing, but I didn't catch the details.")
            else:
                out.append(rng.pick(["No, I haven't heard anything about that.",
                                     "Can't say I have. What's this about?",
                                     "No, that's news to me."]))
    if rng.chance(0.30):
        extra = third_to_first(_first_sentences(ctx.currently, 1), me)
        if extra:
            out.append(_trim_words(extra, 30).rstrip(".") + ", so I've had my hands full.")
    return " ".join(out)


def task_status(ctx, rng):
    me = ctx.me
    old = _first_sentences(ctx.currently, 1)
    parts = []
    if old:
        parts.append(old if old.endswith(".") else old + ".")
    t = ctx.task_text()
    evs = event_sentences(t)
    if evs and rng.chance(0.85):
        ev = max(evs, key=len)
        d, st, en = event_when_where(ev, ctx)
        kind, what = event_gist(ev, me)
        if kind == "own":
            s = "%s is getting ready to %s" % (first_name(me), what)
        else:
            s = "%s has heard that %s" % (first_name(me), what[0].lower() + what[1:])
            if any(w in ev.lower() for w in ACCEPT_WORDS + ["will come", "will go", "means to go"]):
                s += ", and means to go"
        if d and rng.chance(0.8):
            s += " " + day_phrase(d, ctx.today)
        if st is not None and rng.chance(0.7):
            s += " at " + fmt_ampm(st)
        pl = place_phrase(ev, ctx.addresses)
        if pl:
            s += " " + pl
        parts.append(s.strip() + ".")
    meet = [m for _, m in memory_lines(t) if re.search(r"\b(agreed|promised|will meet|accepted)\b", m.lower())
            and not (evs and strip_stamp(m) in " ".join(evs))]
    if meet and rng.chance(0.6):
        parts.append("%s has also agreed: %s." % (
            first_name(me), _trim_words(strip_stamp(meet[-1]), 18).rstrip(".")))
    if rng.chance(0.2):
        parts.append(rng.pick(["%s seems quietly hopeful about the days ahead.",
                               "%s is keeping busy but looking forward to a change of pace.",
                               "Underneath it all, %s wants things to go well."]) % first_name(me))
    if not parts:
        parts.append("%s is going about the usual routine." % me)
    return " ".join(parts)


def task_relationship(ctx, rng):
    me = ctx.me
    t = ctx.task_text()
    others = [p for p in ctx.others() if p in t]
    other = others[0] if others else (ctx.others()[0] if ctx.others() else "them")
    fn = first_name(other)
    w = ctx.warmth_to(other)
    sents = [s for s in re.split(r"(?<=[.;])\s+", ctx.identity or "") if mentions(s, other)]
    mems = [m for _, m in memory_lines(t) if mentions(m, other)]
    out = []
    if sents:
        out.append(_trim_words(third_to_first(sents[0], me), 40).rstrip(".;") + ".")
    elif mems:
        out.append("I've seen %s around lately; %s." % (fn, _trim_words(mems[-1], 20).rstrip(".")))
    else:
        if rng.chance(0.25):
            out.append(rng.pick(["%s and I have exchanged a few words now and then, nothing more." % fn,
                                 "I know %s to nod to; we've never really sat down together." % fn]))
        else:
            out.append("I don't really know %s beyond seeing them around." % fn)
    if w > 0:
        out.append(rng.pick(["I feel warm towards %s and I'm glad to have them around." % fn,
                             "Right now I feel close to %s." % fn]))
    elif w < 0:
        out.append(rng.pick(["Things are still strained between us, and I'd rather keep my distance.",
                             "I can't say I feel kindly towards %s right now." % fn]))
    else:
        out.append(rng.pick(["I feel fine about %s, if a bit neutral." % fn,
                             "I don't have strong feelings about %s either way." % fn]))
    return " ".join(out)


# ----------------------------------------------------------------------------- task: daily plan

def lifestyle_items(ctx):
    items = []
    for clause in re.split(r",\s*(?:and\s+)?|;\s*|\band then\b", ctx.lifestyle or ""):
        cl = find_clocks(clause)
        if cl:
            items.append((cl[0][0], _clean(clause)))
    return items


def _gerund(phrase, me):
    p = _clean(phrase)
    p = re.sub(r"\b(at|from|around|by|until)\s+[\d:]+\s*(?:[ap]\.?m\.?)?", "", p, flags=re.I)
    p = re.sub(r"\b(noon|midday|midnight)\b", "", p)
    p = _clean(p).strip(" ,.")
    w = p.split()
    if not w:
        return "getting on with the day"
    v = w[0].lower()
    irregular = {"goes": "going", "runs": "running", "gets": "getting", "sits": "sitting",
                 "shuts": "shutting", "does": "doing", "makes": "making", "takes": "taking",
                 "leaves": "leaving", "comes": "coming", "has": "having", "is": "being",
                 "hauls": "hauling", "meets": "meeting", "opens": "opening",
                 "works": "working", "teaches": "teaching", "buys": "buying", "spends": "spending",
                 "climbs": "climbing", "crosses": "crossing", "listens": "listening",
                 "unpacks": "unpacking", "baits": "baiting", "sleeps": "sleeping",
                 "wakes": "waking", "reads": "reading", "walks": "walking", "cooks": "cooking"}
    if v in irregular:
        w[0] = irregular[v]
    elif v.endswith("es") and len(v) > 4:
        w[0] = v[:-1] + "ing" if v.endswith("ees") else v[:-2] + "ing"
    elif v.endswith("s") and len(v) > 3:
        w[0] = v[:-1] + "ing"
    return _trim_words(" ".join(w), 8)


def task_daily_plan(ctx, rng, key_map):
    root = ctx.schema
    bprop = key_map["blocks"]
    bitem = item_schema(bprop[1], root)
    enum = list((_resolve(bitem.get("properties", {}).get("address", {}), root) or {}).get("enum") or [])
    if not enum:
        for k, v in (bitem.get("properties") or {}).items():
            vv = _resolve(v, root)
            if vv.get("enum"):
                enum = vv["enum"]
    home = ctx.home_address(enum)
    kitchen = ctx.kitchen(enum, home)
    items = lifestyle_items(ctx)
    wake = 7 * 60
    bed = 22 * 60
    for m, cl in items:
        low = cl.lower()
        if "wake" in low or "get up" in low or "gets up" in low or "rise" in low:
            wake = m
        elif "bed" in low or "sleep" in low and m >= 18 * 60:
            bed = m
    if bed <= wake:
        bed = 22 * 60
    blocks = []  # (start, activity, address)
    blocks.append((wake, "waking up and getting ready", home))
    blocks.append((wake + 30, "having breakfast", kitchen))
    for m, cl in items:
        low = cl.lower()
        if m <= wake + 30 or m >= bed or "wake" in low or "bed" in low:
            continue
        act = _gerund(cl, ctx.me)
        addr = best_address(cl, enum) or home
        blocks.append((m, act, addr))
    covered = " ".join(b[1] for b in blocks)
    if "lunch" not in covered:
        lt = 12 * 60 if rng.chance(0.6) else 12 * 60 + 30
        blocks.append((lt, "having lunch", kitchen))
    if "dinner" not in covered and "supper" not in covered:
        dt = 18 * 60 if rng.chance(0.6) else 17 * 60 + 30
        if dt < bed - 60:
            blocks.append((dt, "having dinner", kitchen))
    # events today
    t = ctx.task_text() + " " + (ctx.currently or "")
    for ev in event_sentences(t):
        d, st, en = event_when_where(ev, ctx)
        if st is None or d is None or d != ctx.today or st <= wake or st >= bed:
            continue
        low = ev.lower()
        if mentions(ev, ctx.me) and ("will" in low or "host" in low):
            p = 0.95
        elif any(w in low for w in ("i'll come", "accepted", "said i'd", "agreed", "will go",
                                    "count me in", "means to go")):
            p = 0.85
        else:
            p = 0.35
        if rng.chance(p):
            addr = best_address(ev, enum) or home
            kind, what = event_gist(ev, ctx.me)
            if kind == "own":
                act = _trim_words(what, 8)
            else:
                act = "going to " + (addr.split(":")[1] if addr.count(":") >= 2 else "the event")
            blocks.append((st, act or "going to the event", addr))
            if en and en > st:
                blocks.append((en, "heading back", home))
            break
    blocks.sort(key=lambda b: b[0])
    # after the last daytime block, evening at home
    if blocks[-1][0] < bed - 90 and "relax" not in blocks[-1][1]:
        blocks.append((max(blocks[-1][0] + 60, 19 * 60 if bed > 20 * 60 else bed - 60),
                       "relaxing at home", home))
    blocks.sort(key=lambda b: b[0])
    dedup = []
    for b in blocks:
        if dedup and b[0] - dedup[-1][0] < 15:
            dedup[-1] = b if "having" not in dedup[-1][1] else dedup[-1]
            continue
        dedup.append(b)
    blocks = dedup[:15]
    blocks.append((bed, "sleeping", home))
    out = []
    for i, (st, act, addr) in enumerate(blocks):
        nxt = blocks[i + 1][0] if i + 1 < len(blocks) else wake + 24 * 60
        dur = max(5, nxt - st)
        out.append({"start": fmt_hm(st), "duration_minutes": int(dur), "activity": act,
                    "emoji": emoji_for(act), "address": addr})
    if rng.chance(0.12) and len(out) > 2:
        i = rng.randint(0, len(out) - 2)
        out[i]["duration_minutes"] = max(5, out[i]["duration_minutes"] + rng.pick([-30, 30]))
    if rng.chance(0.02) and out:
        i = rng.randint(0, len(out) - 1)
        parts = out[i]["address"].split(":")
        out[i]["address"] = parts[-1] if parts else "home"
    n_out = rng.randint(5, 7)
    outline = []
    for b in out:
        if len(outline) >= n_out:
            break
        st = int(b["start"][:2]) * 60 + int(b["start"][3:])
        outline.append("%s at %s" % (b["activity"], fmt_ampm(st)))
    while len(outline) < 4:
        outline.append("wind down in the evening")
    res = {}
    for k in key_map["order"]:
        if k == key_map.get("wake"):
            res[k] = wake // 60
        elif k == key_map.get("outline"):
            res[k] = outline
        elif k == bprop[0]:
            res[k] = out
    return res


# ----------------------------------------------------------------------------- task: decompose

STEP_VOCAB = {
    "sleep": ["getting into bed", "settling down", "drifting off", "sleeping soundly",
              "turning over", "sleeping", "dreaming", "deep sleep", "stirring briefly",
              "sleeping on", "resting quietly", "sleeping through"],
    "wake": ["getting out of bed", "stretching", "washing face", "brushing teeth",
             "getting dressed", "making the bed", "opening the curtains", "checking the weather"],
    "meal": ["preparing the food", "putting the kettle on", "setting the table", "eating",
             "having a hot drink", "clearing the plates", "washing the dishes", "wiping the counter"],
    "relax": ["sitting down in a chair", "reading for a while", "making a cup of tea",
              "listening to the radio", "looking out the window", "having a short nap",
              "tidying up a little", "writing a note", "flipping through a magazine"],
    "visit": ["walking over", "knocking and saying hello", "taking off coat",
              "chatting over coffee", "catching up on news", "sharing a laugh",
              "asking how things are", "saying goodbye"],
    "host": ["getting things ready", "checking everything is in place", "welcoming people",
             "explaining what is happening", "watching together", "chatting with guests",
             "thanking everyone", "packing up"],
    "walk": ["putting on a coat", "heading out", "walking along", "greeting a neighbour",
             "stopping to look around", "carrying on", "arriving"],
    "work": ["getting set up", "checking the day's tasks", "getting on with the work",
             "focusing on the main job", "taking a short break", "carrying on with the work",
             "sorting things out", "talking with a colleague", "tidying the workspace",
             "writing up notes", "checking the results", "finishing up"],
}


def _category(act):
    a = (act or "").lower()
    if "sleep" in a or "bed" in a:
        return "sleep"
    if "wak" in a or "getting ready" in a:
        return "wake"
    if any(w in a for w in ("breakfast", "lunch", "dinner", "supper", "meal", "eat")):
        return "meal"
    if any(w in a for w in ("relax", "rest", "home", "leisure", "evening")):
        return "relax"
    if any(w in a for w in ("calling on", "visit", "seeing people", "meeting", "chat")):
        return "visit"
    if any(w in a for w in ("host", "party", "gather", "celebrat")):
        return "host"
    if any(w in a for w in ("walk", "going to", "heading", "path", "road")):
        return "walk"
    return "work"


def task_decompose(ctx, rng, key, prop):
    root = ctx.schema
    it = item_schema(prop, root)
    iprops = it.get("properties") or {}
    p = _resolve(prop, root)
    lo_n, hi_n = int(p.get("minItems", 4)), int(p.get("maxItems", 10))
    dkey = next((k for k in iprops if "minute" in k or "duration" in k), None)
    okey = next((k for k in iprops if k == "object" or ("object" in k and "state" not in k)), None)
    skey = next((k for k in iprops if "state" in k), None)
    akey = next((k for k in iprops if k not in (dkey, okey, skey)), "activity")
    dmin, dmax = 5, 15
    if dkey:
        ds = _resolve(iprops[dkey], root)
        dmin, dmax = int(ds.get("minimum", 5)), int(ds.get("maximum", 15))
    objs = []
    if okey:
        objs = [o for o in (_resolve(iprops[okey], root).get("enum") or []) if o]
    t = ctx.task_text()
    m = re.search(r"fill[^\d]{0,40}?(\d+)\s*minutes", t)
    if m:
        target = int(m.group(1))
    else:
        mm = re.findall(r"\((\d+) minutes\)", t)
        target = int(mm[0]) if mm else 60
    am = re.search(r"%s is ([^,\n]+?), at" % re.escape(ctx.me), t)
    act = am.group(1) if am else ""
    cat = _category(act)
    vocab = list(STEP_VOCAB[cat])
    n = max(lo_n, min(hi_n, round(target / ((dmin + dmax) / 2))))
    n = max(lo_n, min(hi_n, n))
    if rng.chance(0.04):
        n = n + rng.pick([-1, 1])
        n = max(1, n)
    # durations
    base = [target / n] * n
    durs = [max(dmin, min(dmax, int(round(b)))) for b in base]
    diff = target - sum(durs)
    i = 0
    while diff != 0 and i < 200:
        j = i % n
        if diff > 0 and durs[j] < dmax:
            durs[j] += 1
            diff -= 1
        elif diff < 0 and durs[j] > dmin:
            durs[j] -= 1
            diff += 1
        i += 1
    durs = [max(1, int(5 * round(d / 5))) if rng.chance(0.5) else d for d in durs]
    if rng.chance(0.30):
        j = rng.randint(0, n - 1)
        durs[j] = max(1, durs[j] + rng.pick([-10, -5, 5, 10, 15]))
    if rng.chance(0.05):
        j = rng.randint(0, n - 1)
        durs[j] = rng.pick([20, 25, 30, 3])
    steps = []
    for k in range(n):
        a = vocab[k % len(vocab)]
        if k >= len(vocab):
            a = a + " again"
        if rng.chance(0.05):
            a = first_name(ctx.me) + " " + a
        obj = ""
        aw = _content(a + " " + act)
        for o in objs:
            if _content(o) & aw:
                obj = o
                break
        if not obj and objs and rng.chance(0.35):
            obj = rng.pick(objs)
        if rng.chance(0.03):
            obj = rng.pick(["kettle", "chair", "table", "coat"])
        st = ""
        if obj:
            st = rng.pick(["in use", "being used", "occupied", a.split()[0] if a.split()[0].endswith("ing") else "in use"])
        row = {}
        for kk in iprops:
            if kk == akey:
                row[kk] = a
            elif kk == dkey:
                row[kk] = durs[k]
            elif kk == okey:
                row[kk] = obj
            elif kk == skey:
                row[kk] = st
            else:
                row[kk] = generic_fill(iprops[kk], root, rng, ctx, kk)
        steps.append(row)
    return {key: steps}


# ----------------------------------------------------------------------------- task: react

def task_react(ctx, rng, ckey, choices, props):
    t = ctx.task_text()
    qs = re.findall(r'"([^"]{3,300})"', t)
    obs = qs[0] if qs else ""
    who = [p for p in ctx.people if obs.startswith(p) and p != ctx.me]
    opts = [c for c in choices]
    w = {c: 0.0 for c in opts}
    other = who[0] if who else None

    def setw(name, val):
        for c in opts:
            if c.lower() == name:
                w[c] = val

    cont_key = next((c for c in opts if c.lower() in ("continue", "ignore", "carry on", "none")), opts[0])
    if not other:
        setw("talk", 0.02)
        setw("wait", 0.02)
        setw("react", 0.03)
        w[cont_key] = 0.93
    else:
        low = obs.lower()
        ptalk = 0.18
        wr = ctx.warmth_to(other)
        ptalk += 0.20 if wr > 0 else (-0.13 if wr < 0 else 0)
        # own news not yet told to this person
        mems = memory_lines(t)
        own_ev = [s for s in event_sentences(t + " " + (ctx.currently or "")) if mentions(s, ctx.me)]
        if own_ev:
            kw = _content(condense_event(own_ev[0], ctx.me))
            told = any(mentions(m, other) and (len(_content(m) & kw) >= 2) and
                       any(c in m.lower() for c in CONV_WORDS + ["conversation"]) for _, m in mems)
            if not told:
                ptalk += 0.40
        if any(x in low for x in ("working", "teaching", "busy", "serving")):
            ptalk *= 0.7
        # recent talk
        for ts, m in mems:
            if mentions(m, other) and any(c in m.lower() for c in ("conversation", "chatted", "talked")):
                cl = find_clocks(ts)
                if cl and 0 <= ctx.now_min - cl[-1][0] <= 90:
                    ptalk *= 0.25
                    break
        if ctx.now_min < 6 * 60 or ctx.now_min >= 22 * 60:
            ptalk *= 0.3
        if "sleeping" in low:
            ptalk = 0.02
        preact = 0.05 + (0.25 if any(a in low for a in ALARM_WORDS) else 0)
        setw("talk", max(0.01, min(0.9, ptalk)))
        setw("wait", 0.06)
        setw("react", preact)
        rest = 1.0 - sum(v for c, v in w.items() if c != cont_key)
        w[cont_key] = max(0.02, rest)
    # choices not offered are simply absent; the mass stays with continue
    choice = rng.weighted(list(w.items()))
    cl = choice.lower()
    fn = first_name(other) if other else "it"
    if cl == "talk":
        reason = rng.pick([
            "%s is right here and it's a good moment to have a word with them." % fn,
            "I haven't caught up with %s yet today, and now seems like a natural chance." % fn,
            "Since %s is close by, I'd like to share what's on my mind." % fn])
    elif cl == "wait":
        reason = "%s seems occupied for the moment, so I'll give them a few minutes before carrying on." % fn
    elif cl == "react":
        reason = "What I just noticed changes things, so I should deal with it now rather than carry on."
    else:
        reason = rng.pick([
            "This doesn't really call for anything, so I'll carry on with what I'm doing.",
            "Nothing unusual here; I'll stick to my plan.",
            "It's just part of the everyday routine, no need to interrupt my work." if other else
            "It's just an object being used; nothing that needs my attention."])
    cur = re.search(r"%s is ([^.\n]+?)(?: at [^.\n]*)?\." % re.escape(ctx.me), t)
    cur_act = cur.group(1) if cur else "the usual routine"
    new_act = ""
    if cl == "react":
        new_act = "going to see what is happening" if not other else "checking on %s" % fn
    elif cl == "talk" and rng.chance(0.5):
        new_act = "chatting with %s" % fn
    elif rng.chance(0.25):
        new_act = "carrying on with " + _trim_words(cur_act, 8)
    res = {}
    for k in props:
        if k == ckey:
            res[k] = choice
        elif "reason" in k or "why" in k:
            res[k] = reason
        elif "activ" in k or "new" in k:
            res[k] = new_act
        else:
            res[k] = generic_fill(props[k], ctx.schema, rng, ctx, k)
    return res


# ----------------------------------------------------------------------------- conversation

def parse_lines(text):
    return [(m.group(1).strip(), m.group(2)) for m in
            re.finditer(r'^([^\n:"\[\]-][^\n:"\[\]]{1,60}):\s*"(.*)"\s*$', text or "", re.M)]


def _is_invite(line):
    low = line.lower()
    return (any(w in low for w in INVITE_WORDS) and "?" in line) or "you should come" in low or \
        "you're welcome to" in low or "join me" in low or "join us" in low


def _has_time(line, ctx):
    return bool(find_clocks(line)) or bool(re.search(
        r"\b(tomorrow|tonight|today|this (morning|afternoon|evening)|%s)\b" %
        "|".join(w.lower() for w in WEEKDAYS), line.lower()))


def _commitment_at(ctx, d, st):
    """True if the plan list holds a real commitment (not routine) at that day/time."""
    if st is None:
        return False
    for m in re.finditer(r"^\s*-\s*(\d{1,2}:\d{2})-(\d{1,2}:\d{2})\s+(.+)$", ctx.task_text(), re.M):
        a = find_clocks(m.group(1))[0][0]
        b = find_clocks(m.group(2))[0][0]
        act = m.group(3).lower()
        other_day = resolve_day(m.group(3), ctx.today)
        if other_day and d and other_day != d:
            continue
        if not other_day and d and ctx.today and d != ctx.today:
            continue
        if a <= st < (b if b > a else b + 1440):
            if any(w in act for w in ("calling on", "meeting", "hosting", "appointment", "visit",
                                      "party", "celebrat", "event", "watch", "with ")):
                return True
    return False


def task_dialogue(ctx, rng, as_json=False):
    me = ctx.me
    t = ctx.task_text()
    hist = parse_lines(t)
    # keep only conversation-so-far lines (the last contiguous run)
    conv_idx = t.rfind("\n\n", 0, t.find(hist[-1][1]) if hist else len(t))
    hist = [h for h in hist if t.find('"%s"' % h[1]) > conv_idx] if hist else []
    speakers = [s for s, _ in hist]
    others = [p for p in ctx.others() if p != me]
    partner = next((s for s in speakers if s != me), None)
    if not partner:
        sit = t[:800]
        withs = [x for x in re.split(r"(?<=[.!?])\s+", sit) if me in x and " with " in x]
        cands = [p for p in others if withs and p in withs[0].split(" with ", 1)[1]]
        cands = cands or [p for p in others if p in sit]
        partner = cands[0] if cands else (others[0] if others else "friend")
    pfn = first_name(partner)
    my_lines = [l for s, l in hist if s == me]
    their_lines = [l for s, l in hist if s != me]
    last_theirs = their_lines[-1] if hist and hist[-1][0] != me else (their_lines[-1] if their_lines else "")
    n_said = len(hist)
    # news on my mind
    news = None
    hosting = False
    for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", t[:3000]):
        low = s.lower()
        bare = re.sub(r"\([^()]*\)", "", s).strip()
        subj = re.match(r"^(?:%s|I) (?:has|have)\b[^.]{0,40}?\bnews\b" % re.escape(me), bare)
        if subj and "no news" not in low and "nothing" not in low[:80]:
            news = s.split(":", 1)[1] if ":" in s else s
            hosting = "host" in low or "their own" in low
            break
    told = False
    if news:
        kw = _content(condense_event(news, me))
        told = any(len(_content(l) & kw) >= 2 for l in my_lines)
    warm = ctx.warmth_to(partner)
    hour = ctx.now_min // 60
    greet = "Good morning" if hour < 12 else ("Good afternoon" if hour < 18 else "Good evening")
    parts = []
    end = False
    last_low = (last_theirs or "").lower()
    bye_words = ("bye", "see you", "take care", "must be off", "better get going", "goodbye",
                 "back to it")
    they_bye = bool(last_theirs) and any(b in last_low for b in bye_words) and hist[-1][0] != me
    use_name = rng.chance(0.6)
    nm = (", " + pfn) if use_name else ""
    if not hist:
        parts.append(rng.pick(["%s%s!" % (greet, nm), "Hello%s, good to see you." % nm,
                               "Ah, %s%s." % (greet.lower(), nm)]))
        if rng.chance(0.35) and ctx.currently and not news:
            s = _trim_words(third_to_first(_first_sentences(ctx.currently, 1), me), 22).rstrip(".")
            parts.append(s + ", if you can believe it.")
        elif not news:
            parts.append(rng.pick(["How are you keeping?", "How are things with you?",
                                   "Keeping busy?"]))
    else:
        if they_bye:
            parts.append(rng.pick(["Take care%s, see you soon." % nm, "Bye for now%s." % nm,
                                   "Alright, see you later%s." % nm]))
            end = rng.chance(0.85)
        elif _is_invite(last_theirs) and _has_time(last_theirs, ctx):
            d, st, en = event_when_where(last_theirs, ctx)
            busy = _commitment_at(ctx, d, st)
            if news and st is not None:
                nd, nst, nen = event_when_where(news, ctx)
                if nst is not None and (nd == d or nd is None or d is None) and abs(nst - st) <= 90:
                    busy = True
            if busy and rng.chance(0.75):
                parts.append(rng.pick([
                    "Oh, I'm sorry%s, I've already got something on then. Could we do another time?" % nm,
                    "I'd love to, but I've promised to be somewhere else at that time. Maybe later in the day?"]))
            else:
                pacc = 0.80 if warm > 0 else (0.30 if warm < 0 else 0.65)
                if any(x in (ctx.traits or "").lower() for x in ("reserved", "taciturn", "shy", "gruff")):
                    pacc -= 0.10
                if rng.chance(pacc):
                    parts.append(rng.pick(["That sounds lovely%s, I'll be there." % nm,
                                           "I'd like that. Count me in.",
                                           "Oh, how nice! Yes, I'll come along%s." % (
                                               " " + day_phrase(d, ctx.today) if d else "")]))
                else:
                    parts.append(rng.pick(["Thanks for asking%s, but I don't think I'll make it." % nm,
                                           "Hm, I'm not sure that's for me, but thank you."]))
        elif _has_time(last_theirs, ctx) and any(w in last_low for w in EVENT_WORDS) and \
                not any(w in last_low for w in ACCEPT_WORDS + DECLINE_WORDS):
            r = rng.weighted([("go", 0.45), ("meh", 0.35), ("no", 0.20)])
            if r == "go":
                parts.append(rng.pick(["Really? That sounds worth seeing, I think I'll go along.",
                                       "Oh, I didn't know that! I'd like to be there."]))
            elif r == "meh":
                parts.append(rng.pick(["Is that so? I'll have to see how the day goes.",
                                       "Interesting, thanks for telling me."]))
            else:
                parts.append("Not really my sort of thing, but thanks for letting me know.")
        elif news and hosting and my_lines and any(w in last_low for w in ACCEPT_WORDS):
            parts.append(rng.pick(["Wonderful, I'm glad you'll come%s." % nm,
                                   "Good, I'll look out for you then."]))
            told = True
        elif "?" in last_theirs:
            reply = rng.pick(["Oh, not bad at all, thanks for asking.", "Can't complain, really.",
                              "Busy as always, but well enough."])
            parts.append(reply)
            if rng.chance(0.3) and ctx.currently:
                s = _trim_words(third_to_first(_first_sentences(ctx.currently, 1), me), 20).rstrip(".")
                parts.append(s + ".")
        else:
            parts.append(rng.pick(["I know what you mean%s." % nm, "That's good to hear.",
                                   "Ah, yes.", "Right you are."]))
    if news and not told and not end:
        p = 0.70 if not my_lines else 0.85
        if rng.chance(p):
            d, st, en = event_when_where(news, ctx)
            what = third_to_first(condense_event(news, me), me)
            what = re.sub(r"^I'll ", "", what)
            lead = rng.pick(["Did you hear?", "I've got a bit of news, actually.",
                             "Oh, before I forget,"])
            if hosting:
                s = "%s I'm going to %s" % (lead, what[0].lower() + what[1:] if what else "do something special")
            else:
                src_m = re.match(r"^\s*([^:]{3,80}?)\s+(?:told|said to|mentioned to)\s+[^:]{2,60}:\s*(.+)$",
                                 _clean(news))
                body_ = src_m.group(2) if src_m else _clean(news)
                body_ = re.sub(r"\((?:that is|i\.e\.)[^()]*(?:\([^()]*\)[^()]*)*\)", "", body_)
                body_ = re.sub(r"\([^()]*\)", "", body_)
                body_ = re.split(r"(?<=[.!?])\s", _clean(body_))[0]
                body_ = _trim_words(third_to_first(body_, me), 22).rstrip(" .,;:")
                body_ = re.sub(r"\b(today|tomorrow|tonight)\b.*$", "", body_).rstrip(" ,") or body_
                body_ = ("there's " + body_[0].lower() + body_[1:]) if re.match(r"^(the|a|an)\b", body_, re.I) \
                    else body_
                if lead.endswith(("?", ".")):
                    body_ = body_[0].upper() + body_[1:]
                s = "%s %s" % (lead, body_)
                if src_m and rng.chance(0.6):
                    parts_src = " (%s told me)" % first_name(src_m.group(1).strip())
                else:
                    parts_src = ""
            dp = day_phrase(d, ctx.today)
            if dp:
                s += " " + dp
            if st is not None:
                s += (" around %s" % ("midday" if 11 * 60 <= st <= 13 * 60 else fmt_ampm(st))) \
                    if rng.chance(0.15) else " at %s" % fmt_ampm(st)
            pl = place_phrase(news, ctx.addresses)
            if pl and pl.lower() not in s.lower():
                s += " " + pl
            if not hosting:
                s += parts_src
            parts.append(s.rstrip(". ") + ".")
            if hosting and rng.chance(0.90):
                parts.append(rng.pick(["Would you like to come?", "You'd be very welcome to join me.",
                                       "I'd be glad if you came along%s." % nm]))
            if rng.chance(0.25):
                parts.append(rng.pick(["Wrap up warm if the weather turns.",
                                       "I'll bring a flask of coffee.",
                                       "It won't take long, but it's something to see."]))
            they_bye = False
            end = False
    if not end and not they_bye:
        if n_said < 2:
            pe = 0.10
        elif n_said < 5:
            pe = 0.35
        else:
            pe = 0.70
        if news and not told and not any("going to" in x for x in parts):
            pe *= 0.5
        if rng.chance(pe):
            end = True
            parts.append(rng.pick(["Anyway, I should get going. Take care!",
                                   "Well, I'll let you get on. See you later%s." % nm]))
    if len(parts) > 2 and not rng.chance(0.25):
        # keep to two sentences-ish: drop small-talk filler, keep news/invite
        keep = [p for p in parts[1:] if any(x in p for x in ("going to", "come", "join", "Take care",
                                                         "See you", "see you", "sorry"))]
        parts = (parts[:1] + keep)[:3] if keep else parts[:2]
    text = " ".join(parts)
    if as_json:
        if rng.chance(0.05):
            text = rng.pick(["*nods* ", "*smiles* ", "*looks up* "]) + text
        return text, ("end" if end else "continue")
    if rng.chance(0.05):
        text = rng.pick(["*nods* ", "*smiles* ", "*looks up* "]) + text
    if rng.chance(0.02):
        text += " (%s seems in a good mood.)" % first_name(me)
    if rng.chance(0.04):
        text = '"%s"' % text
    if rng.chance(0.04):
        text = "%s: %s" % (me, text)
    tag = "[end]" if end else "[continue]"
    tags = re.findall(r"\[(\w+)\]", t)
    if tags and "end" not in [x.lower() for x in tags]:
        tag = "[%s]" % tags[0]
    r = rng.rng.random() if not rng.greedy else 1.0
    if r < 0.03:
        return text
    if r < 0.06:
        return text + " " + tag
    return text + "\n" + tag


def task_group_turn(ctx, rng, ukey, kinds):
    """Dialogue line as JSON: words, whom it is addressed to, whether the speaker leaves."""
    raw = task_dialogue(ctx, rng, as_json=True)
    words, tag = raw
    res = {}
    for k, v in kinds.items():
        kl = k.lower()
        if k == ukey:
            res[k] = words
        elif v.get("type") == "boolean":
            res[k] = tag == "end"
        elif "address" in kl or "to" in kl.split("_") or "target" in kl or "whom" in kl:
            enum = v.get("enum") or []
            t = ctx.task_text()
            hist = parse_lines(t)
            last_other = next((sp for sp, _ in reversed(hist) if sp != ctx.me), None)
            named = [e for e in enum if e != "everyone" and mentions(words, e)]
            if named:
                res[k] = named[0]
            elif last_other and last_other in enum and rng.chance(0.6):
                res[k] = last_other
            elif "everyone" in enum:
                res[k] = "everyone"
            elif enum:
                res[k] = rng.pick(enum)
            else:
                res[k] = last_other or "everyone"
        else:
            res[k] = generic_fill(v, ctx.schema, rng, ctx, k)
    return res


# ----------------------------------------------------------------------------- memo

def task_memo(ctx, rng, props):
    me = ctx.me
    t = ctx.task_text()
    hist = parse_lines(t)
    others = [s for s, _ in hist if s != me]
    partner = others[0] if others else (ctx.others()[0] if ctx.others() else "someone")
    pfn = first_name(partner)
    ev_idx = None
    for i, (s, l) in enumerate(hist):
        if _has_time(l, ctx) and any(w in l.lower() for w in EVENT_WORDS + INVITE_WORDS):
            ev_idx = i
            break
    stance = None
    proposer = None
    ev_line = ""
    if ev_idx is not None:
        proposer, ev_line = hist[ev_idx]
        after = [l.lower() for s, l in hist[ev_idx + 1:] if s == me]
        if proposer == me:
            stance = "own"
        else:
            for l in after:
                if any(w in l for w in DECLINE_WORDS):
                    stance = "no"
                    break
                if any(w in l for w in MAYBE_WORDS):
                    stance = "maybe"
                    break
                if any(w in l for w in ACCEPT_WORDS):
                    stance = "yes"
                    break
            stance = stance or "none"
    p = {"yes": 0.90, "maybe": 0.30, "no": 0.05, "none": 0.12, "own": 0.35, None: 0.02}[stance]
    do_plan = rng.chance(p)
    d, st, en = event_when_where(ev_line, ctx) if ev_line else (None, None, None)
    # summary
    fp = rng.chance(0.6)
    if ev_line:
        what = event_np(ev_line) or "something coming up"
        who = "I" if fp else first_name(me)
        verb = "invited" if _is_invite(ev_line) else "told"
        if proposer == me:
            summ = "%s %s %s %s %s" % (who, verb, pfn, "to" if verb == "invited" else "about",
                                       what[0].lower() + what[1:])
        else:
            summ = "%s %s %s %s %s" % (pfn, verb, "me" if fp else first_name(me),
                                       "to" if verb == "invited" else "about", what[0].lower() + what[1:])
        if stance == "yes":
            summ += ", and %s said %s'd come" % (who, "I" if fp else ("they"))
        elif stance == "no":
            summ += ", but %s couldn't make it" % who.lower() if who == "I" else ", but %s couldn't make it" % who
        summ += "."
        imp = 6 if stance == "yes" else 5
    else:
        summ = ("I had a quick, friendly chat with %s; nothing in particular was arranged." % pfn) if fp \
            else ("%s had a brief, friendly exchange with %s about everyday things." % (first_name(me), pfn))
        imp = rng.pick([2, 3])
    if rng.chance(0.25):
        imp += rng.pick([-1, 1])
    imp = max(1, min(10, imp))
    # plan fields
    pact, pdate, pstart, pmin, pplace = "", "", "", 0, ""
    date_enum, place_enum = [], []
    for k, v in props.items():
        vv = _resolve(v, ctx.schema)
        if "date" in k:
            date_enum = [x for x in (vv.get("enum") or []) if x]
        if "place" in k or "address" in k or "where" in k:
            place_enum = [x for x in (vv.get("enum") or []) if x]
    if do_plan and (ev_line or stance is None):
        pact = ("going to " + short_np(event_np(ev_line))) if ev_line else \
            "meeting %s again" % pfn
        dd = d or ctx.today
        if dd and rng.chance(0.05):
            dd = dd + timedelta(days=rng.pick([-1, 1]))
        if dd:
            pdate = dd.isoformat()
            if date_enum and pdate not in date_enum and not rng.chance(0.3):
                pdate = date_enum[0]
        if st is not None:
            pstart = fmt_hm(st)
        else:
            pstart = "" if rng.chance(0.5) else "12:00"
        pmin = (en - st) if (st is not None and en and en > st) else 60
        a = best_address(ev_line, place_enum or ctx.addresses, min_score=1) if ev_line else None
        if a:
            pplace = a
        elif place_enum and rng.chance(0.3):
            pplace = rng.pick(place_enum)
    res = {}
    for k, v in props.items():
        kl = k.lower()
        if "summary" in kl or kl in ("memo", "text"):
            res[k] = summ
        elif "importance" in kl or "poignan" in kl:
            res[k] = imp
        elif "activ" in kl:
            res[k] = pact
        elif "date" in kl or "day" in kl:
            res[k] = pdate
        elif "start" in kl or "time" in kl:
            res[k] = pstart
        elif "minute" in kl or "duration" in kl:
            res[k] = int(pmin)
        elif "place" in kl or "address" in kl or "where" in kl:
            res[k] = pplace
        else:
            res[k] = generic_fill(v, ctx.schema, rng, ctx, k)
    return res


# ----------------------------------------------------------------------------- reflection

def task_questions(ctx, rng, key, prop):
    p = _resolve(prop, ctx.schema)
    n = int(p.get("maxItems", 3))
    mems = memory_lines(ctx.task_text())
    me, fn = ctx.me, first_name(ctx.me)
    counts = {}
    for _, m in mems:
        for person in ctx.people:
            if person != me and mentions(m, person) and not (person in me or me in person):
                counts[person] = counts.get(person, 0) + 1
    acts = {}
    for _, m in mems:
        mm = re.search(r"\bis ([a-z][a-z ]+?)(?: \(|$|\.)", m)
        if mm and m.startswith(me):
            acts[mm.group(1)] = acts.get(mm.group(1), 0) + 1
    qs = []
    for person, _ in sorted(counts.items(), key=lambda x: -x[1])[:2]:
        qs.append(rng.pick(["What is the nature of %s's relationship with %s, and is it changing?" % (me, person),
                            "Why has %s been spending time with %s lately?" % (me, person),
                            "How does %s really feel about %s?" % (me, person)]))
    evs = [m for _, m in mems if event_sentences(m)]
    if evs:
        kind, what = event_gist(evs[0], me)
        if kind == "own":
            qs.insert(0, "Who will come when %s goes to %s?" % (me, _trim_words(what, 10)))
        else:
            qs.insert(0, "Will %s go, now that %s?" % (me, _trim_words(what[0].lower() + what[1:], 12)))
    for a, _ in sorted(acts.items(), key=lambda x: -x[1])[:2]:
        qs.append("What does %s's routine of %s say about what matters to %s?" % (me, a, fn))
    if ctx.currently:
        qs.append("How is %s coping with %s?" % (me, _trim_words(
            re.sub(r"^.*?\b(is|has)\b\s*", "", _first_sentences(ctx.currently, 1)), 10).rstrip(".")))
    qs.append("What is %s hoping for in the coming days?" % me)
    out = []
    for q in qs:
        if q not in out:
            out.append(q)
    k = n + (1 if rng.chance(0.05) else 0)
    out = out[:k]
    if rng.chance(0.10) and out:
        out[-1] = "What does %s want most out of life right now?" % me
    return {key: out}


def task_insights(ctx, rng, key, prop):
    root = ctx.schema
    p = _resolve(prop, root)
    maxn = int(p.get("maxItems", 10))
    it = item_schema(prop, root)
    iprops = it.get("properties") or {}
    t = ctx.task_text()
    qs = re.findall(r'^\s*-\s*"(.+\?)"\s*$', t, re.M)
    stm = [(int(m.group(1)), m.group(2)) for m in re.finditer(r"^\s*(\d+)\.\s*(.+)$", t, re.M)]
    allowed = None
    for k, v in iprops.items():
        vv = _resolve(v, root)
        if vv.get("type") == "array":
            ie = _resolve(vv.get("items") or {}, root)
            if ie.get("enum"):
                allowed = list(ie["enum"])
    nums = [n for n, _ in stm] or [1]
    me, fn = ctx.me, first_name(ctx.me)
    out = []
    for q in (qs or ["What matters to %s?" % me]):
        qw = _content(q)
        rel = [n for n, s in stm if _content(s) & qw] or nums[:3]
        people = [pp for pp in find_people(q, ctx.addresses) if pp != me]
        k = rng.randint(2, 3)
        for j in range(k):
            if len(out) >= maxn:
                break
            ev = rel[j:j + rng.randint(1, 3)] or rel[:1]
            if allowed:
                ev = [e for e in ev if e in allowed] or [allowed[0]]
            if rng.chance(0.03):
                ev = ev + [max(nums) + 1]
            if people:
                who = people[0]
                txt = [
                    "%s enjoys %s's company and values their regular visits." % (me, who),
                    "%s and %s have an easy, friendly relationship built on small daily contact." % (me, who),
                    "%s seems to want to stay on good terms with %s." % (me, who)][j % 3]
                about = who
                imp = rng.randint(4, 6) + (1 if rng.chance(0.3) else 0)
            else:
                topic = _trim_words(re.sub(r"^.*?\b(of|about)\b\s*", "", q.rstrip("?")), 8)
                txt = [
                    "%s is a creature of habit who finds comfort in a steady daily routine." % me,
                    "%s takes pride in keeping things orderly and on schedule." % me,
                    "%s seems to value quiet time to recharge between obligations." % me][j % 3]
                about = topic or fn
                imp = rng.randint(3, 5)
            row = {}
            for kk, vv in iprops.items():
                kl = kk.lower()
                if kl in ("insight", "text", "statement"):
                    row[kk] = txt
                elif "about" in kl or "topic" in kl:
                    row[kk] = _trim_words(about, 8)
                elif "evidence" in kl:
                    row[kk] = ev
                elif "importance" in kl:
                    row[kk] = imp
                else:
                    row[kk] = generic_fill(vv, root, rng, ctx, kk)
            out.append(row)
    return {key: out}


# ----------------------------------------------------------------------------- replan

def task_replan(ctx, rng, key, prop):
    root = ctx.schema
    p = _resolve(prop, root)
    it = item_schema(prop, root)
    iprops = it.get("properties") or {}
    starts, addrs = [], []
    for k, v in iprops.items():
        vv = _resolve(v, root)
        if "start" in k or "time" in k:
            starts = list(vv.get("enum") or [])
        if "address" in k or "place" in k:
            addrs = list(vv.get("enum") or [])
    t = ctx.task_text()
    t0 = starts[0] if starts else fmt_hm(ctx.now_min)
    m0 = find_clocks(t0)[0][0] if find_clocks(t0) else ctx.now_min
    change = ""
    mm = re.search(r"(?:changed|interrupt|because)[^:\n]*:\s*([^\n]+)", t)
    if mm:
        change = mm.group(1)
    who = [pp for pp in ctx.people if pp in change and pp != ctx.me]
    cur_addr = None
    cur_act = "getting back to work"
    pl = re.findall(r"^\s*-\s*\d{1,2}:\d{2}-\d{1,2}:\d{2}\s+(.+?)\s+\(([^()]*:[^()]*:[^()]*)\)\s*$", t, re.M)
    if pl:
        cur_act, cur_addr = pl[-0][0], pl[0][1]
        for a, ad in pl:
            pass
    # the current block: last "planned so far" item (first match after 'until')
    seg = re.search(r"(?:so far|until)[^\n]*\n((?:\s*-[^\n]*\n?)+)", t)
    if seg:
        rows = re.findall(r"-\s*\d{1,2}:\d{2}-\d{1,2}:\d{2}\s+(.+?)\s+\(([^()]*)\)", seg.group(1))
        if rows:
            cur_act, cur_addr = rows[0]
    if cur_addr not in addrs:
        cur_addr = addrs[0] if addrs else (cur_addr or "")
    blocks = []
    if who:
        blocks.append((m0, "talking with %s" % first_name(who[0]), cur_addr))
    else:
        evs = event_sentences(change)
        if evs:
            a = best_address(change, addrs) or cur_addr
            blocks.append((m0, "going to " + _trim_words(condense_event(evs[0], ctx.me), 6), a))
        else:
            blocks.append((m0, "dealing with what just happened", cur_addr))
    step = 15 if rng.chance(0.6) else 20
    m1 = m0 + step
    s1 = fmt_hm(m1)
    if starts:
        later = [s for s in starts if find_clocks(s) and find_clocks(s)[0][0] >= m1]
        s1 = later[0] if later else None
    if s1:
        blocks.append((find_clocks(s1)[0][0], "back to " + _trim_words(cur_act, 8), cur_addr))
    out = []
    for st, act, ad in blocks[:int(p.get("maxItems", 6))]:
        sv = fmt_hm(st)
        if rng.chance(0.08):
            sv = fmt_hm(st + rng.pick([2, 3, 7]))
        row = {}
        for kk, vv in iprops.items():
            kl = kk.lower()
            if "start" in kl or "time" in kl:
                row[kk] = sv
            elif "activ" in kl:
                row[kk] = act
            elif "emoji" in kl:
                row[kk] = emoji_for(act)
            elif "address" in kl or "place" in kl:
                row[kk] = ad
            elif "minute" in kl or "duration" in kl:
                row[kk] = step
            else:
                row[kk] = generic_fill(vv, root, rng, ctx, kk)
        out.append(row)
    return {key: out}


# ----------------------------------------------------------------------------- dispatch

def _json_task(ctx, rng):
    root = ctx.schema or {}
    props = props_of(root, root)
    if not props:
        # json_object mode without schema: a short object echoing the requested keys
        keys = re.findall(r'\{\s*"(\w+)"\s*:', ctx.user)
        if keys:
            return {keys[0]: True if "true" in ctx.user else "ok"}
        return {"answer": "ok"}
    kinds = {}
    for k, v in props.items():
        vv = _resolve(v, root)
        kinds[k] = vv
    keys = list(props)
    # a spoken line inside JSON (group conversation turn)
    ukey = next((k for k in keys if re.search(r"utter|line|say|speech|words|message|reply", k.lower())
                 and kinds[k].get("type") == "string"), None)
    if ukey:
        return task_group_turn(ctx, rng, ukey, kinds)
    # memo: summary + plan-ish fields
    if any("summary" in k for k in keys) and any(("plan" in k or "date" in k) for k in keys):
        return task_memo(ctx, rng, props)
    # arrays
    for k, vv in kinds.items():
        if vv.get("type") == "array":
            it = item_schema(vv, root)
            ip = it.get("properties") or {}
            if it.get("type") == "integer":
                return task_rating_batch(ctx, rng, k, vv)
            if ip:
                ipk = list(ip)
                has_addr = any(_resolve(ip[x], root).get("enum") and ":" in str(
                    (_resolve(ip[x], root).get("enum") or [""])[-1]) for x in ipk)
                has_start = any("start" in x or "time" in x for x in ipk)
                if has_addr and has_start:
                    if any("duration" in x or "minute" in x for x in ipk) and len(keys) > 1:
                        km = {"blocks": (k, vv), "order": keys}
                        for kk, v2 in kinds.items():
                            if v2.get("type") == "integer":
                                km["wake"] = kk
                            elif v2.get("type") == "array" and kk != k:
                                km["outline"] = kk
                        return task_daily_plan(ctx, rng, km)
                    return task_replan(ctx, rng, k, vv)
                if any("evidence" in x for x in ipk):
                    return task_insights(ctx, rng, k, vv)
                if any("object" in x for x in ipk) or any("duration" in x or "minute" in x for x in ipk):
                    return task_decompose(ctx, rng, k, vv)
            if it.get("type") == "string" and len(keys) == 1:
                return task_questions(ctx, rng, k, vv)
    # choice
    for k, vv in kinds.items():
        if vv.get("type") == "string" and vv.get("enum") and len(vv["enum"]) <= 8 and \
                not any(":" in str(e) for e in vv["enum"]):
            return task_react(ctx, rng, k, vv["enum"], props)
    if len(keys) == 1:
        k = keys[0]
        vv = kinds[k]
        if vv.get("type") == "integer":
            return task_rating_single(ctx, rng, k)
        if vv.get("type") == "boolean":
            return {k: True}
        if vv.get("type") == "string":
            q = _question(ctx)
            low = ctx.task_text().lower()
            if q and ("first person" in low or "asks" in low or "answer" in k):
                return {k: task_answer(ctx, rng, q)}
            if "third person" in low:
                return {k: task_status(ctx, rng)}
            return {k: task_relationship(ctx, rng)}
    return generic_fill(root, root, rng, ctx)


def _est_tokens(s):
    return int(len(s) / 3.6) + 1


def _serialize(obj, ctx, rng):
    nested = any(isinstance(v, (list, dict)) for v in obj.values()) if isinstance(obj, dict) else True
    if nested and rng.chance(0.5):
        txt = json.dumps(obj, ensure_ascii=False, indent=2)
    else:
        txt = json.dumps(obj, ensure_ascii=False)
    return txt


def _corrupt_json(txt, obj, ctx, rng):
    if rng.greedy:
        return txt
    r = rng.rng.random()
    if r < 0.020:
        return "```json\n%s\n```" % txt
    if r < 0.030:
        return rng.pick(["Here is the JSON response:\n\n", "Here is my answer:\n",
                         "Sure! Here's the JSON:\n\n"]) + txt
    if r < 0.040:
        cut = int(len(txt) * (0.55 + 0.4 * rng.rng.random()))
        return txt[:max(1, cut)]
    if r < 0.043:
        return rng.pick(["I can't help with that request.",
                         "I'm sorry, but I can't provide a response in that format."])
    if r < 0.058 and isinstance(obj, dict):
        o2 = dict(obj)
        o2[rng.pick(["note", "explanation"])] = "Answered in character based on the information given."
        return json.dumps(o2, ensure_ascii=False)
    return txt


def _respond(body, seed):
    rng = _R(body, seed)
    ctx = Ctx(body)
    if ctx.json_mode:
        obj = _json_task(ctx, rng)
        txt = _serialize(obj, ctx, rng)
        txt = _corrupt_json(txt, obj, ctx, rng)
    else:
        low = ctx.all.lower()
        if re.search(r"\[(end|continue|done|stop)\]", low) or '"' in ctx.user:
            txt = task_dialogue(ctx, rng)
        else:
            q = _question(ctx)
            txt = task_answer(ctx, rng, q) if q else "I'm not sure what you mean, but I'm happy to help."
    try:
        mt = int(ctx.max_tokens)
    except Exception:
        mt = 4096
    if _est_tokens(txt) > mt:
        txt = txt[:int(mt * 3.6)]
    return txt


def respond(body: dict, seed: int = 0) -> str:
    try:
        out = _respond(body if isinstance(body, dict) else {}, seed)
        if not isinstance(out, str) or not out:
            return "{}" if isinstance(body, dict) and body.get("response_format") else "..."
        return out
    except Exception:
        try:
            rf = (body or {}).get("response_format")
            if rf:
                return "{}"
        except Exception:
            pass
        return "Sorry, could you say that again?"
