"""Blind stand-in "blind20": a rule-based imitation of a mid-size (12-14B) open-weights
chat model served without schema-guided decoding, written only from the captured
request bodies (nothing else of the brain was read).

Entry point: ``respond(body: dict, seed: int) -> str`` returns the message content.
Deterministic: every random draw comes from one ``random.Random`` seeded with a
SHA-256 digest of the canonical JSON of the request plus the seed.  Standard library
only.  It never raises: on anything unexpected it answers with a short plain reply or
a minimal JSON object built from the schema.

DECLARED RULES AND RATES (fixed before any test against the captured requests)
==========================================================================

How it reads a request
----------------------
* Kind of request: from the schema's property names (utterance, choice, talk+lines,
  talk+memos, summary+plan fields, wake_up_hour/blocks, steps, importance, ratings,
  answer, insights, questions, summary alone, currently, ok); else from the keys of
  the prompt's "Answer as {...}" template; else plain text (a dialogue turn when the
  prompt asks for an [end]/[continue] tag).  Unknown schemas are filled generically
  from the schema and the prompt's words.
* Meaning, not headings: people are found by names the prompt uses ("Name:" lines,
  enums, "talking with ...", speakers of quoted lines); memory bullets are lines
  with a "[weekday month day, HH:MM]" stamp; plan bullets are "HH:MM-HH:MM ..."
  lines; places are the "Town:Building:room" addresses the prompt or schema lists;
  a section belongs to the person whose name its header line carries.
* Times are read in any style (13:00, 1 pm, 1-3pm, "one o'clock to three", noon);
  an hour without am/pm from 1 to 7 is taken as afternoon.  Days are read from
  ISO dates, "Saturday April 11", today/tomorrow/tonight, or a weekday name.
  Places are matched by the words of the listed addresses (building name, room).
* News / events: a line "<X> has news (on their mind|to pass on) ..." gives X's
  news; "an event they are hosting" makes X the host, "<Y> told X: ..." makes Y the
  teller; the "(that is ...)" part, else the text, gives day, time and place.
  Events in conversation lines are found from a time or day plus an event-like
  word (an event noun, come along / drop in / join / invite ...) or a known place
  with a future marker (will, 'll, tomorrow); later lines are read as answers to
  it by their wording (yes / maybe / no phrases).

Global output format (every JSON kind except the probe, which is always clean)
------------------------------------------------------------------------------
F1 JSON wrapped in a ```json fence ....................................... p = 0.06
F2 one short sentence before the JSON ("Here is the JSON:") ............... p = 0.04
F3 one required top-level key dropped (schemas with >= 2 required keys) ... p = 0.03
F4 one integer value written as a string ("5") ............................ p = 0.04
F5 pretty-printed with indentation (harmless) ............................. p = 0.30
F6 text longer than about 4 characters per max_tokens is cut off there (deterministic)
   When the request already holds an earlier assistant message (a retry), F1-F4 are
   halved.

Dialogue (plain_text_turn, group_turn, and the lines written inside summaries)
------------------------------------------------------------------------------
D1 A character with news on its mind that has not come up in this conversation
   brings it up at a turn: host of the event p = 0.80, passing on someone else's
   news p = 0.60; both 0.10 lower when the prompt carries more than 25 memory lines.
D2 On the opening line the greeting and the news share one line; when the news is
   not told, the line is greeting / small talk only.
D3 Telling: the day is said p = 0.96, the time p = 0.92 (of those: 12-hour 45 %,
   24-hour 25 %, words 20 %, start only 10 %), the place p = 0.95; the end time
   given as the start p = 0.04; the host adds the back-story clause p = 0.60.
D4 Reply to an event someone else mentioned (the speaker is not its host):
   ignores it and makes small talk p = 0.06; already knew (own memories show it):
   says so (and, if it had said it would go, confirms).  Otherwise:
   - during its sleeping hours: declines;
   - clash with a real commitment (a plan item naming a person, a visit, a meeting,
     another event) at that time: declines or proposes another time p = 0.75;
   - clash with ordinary work at that time: declines p = 0.15;
   - else an invitation from the host is accepted with p = interest; news passed on
     by someone else is answered "I mean to go" with p = 0.85 * interest;
   - of the rest, "maybe / might look in" p = 0.10, else a polite no / thanks.
   interest = 0.55 + 0.12 per outgoing trait (sociable, curious, nosy, talkative,
   jovial, energetic, friendly, generous, cheerful, outgoing; at most 2)
   - 0.10 per reserved trait (quiet, tired, shy, grumpy, stubborn, reserved)
   + 0.15 if the host is named in its identity or status + 0.10 if a topic word of
   the event appears in its identity / lifestyle / status; clipped to [0.10, 0.90].
D5 The host answers an acceptance with thanks / "see you there" (no draw).
D6 Ending: told it must leave -> goodbye and [end] (squeezes in untold news first
   p = 0.50); the other just said goodbye -> [end] p = 0.85; otherwise, once it has
   spoken twice with nothing pending, [end] p = 0.45 (0.70 from 6 lines on, 0.90 from
   9 lines on), +0.25 when its next plan item starts within 15 minutes.
D7 Spontaneous invitation in small talk (it has a later leisure item today at a
   public place): p = 0.05.
D8 Plain-text slips: name prefix "Name: " p = 0.04; words in quotes p = 0.05;
   tag missing p = 0.04; tag on the same line p = 0.03.
D9 Group turns: news addressed to "everyone" p = 0.60 (else to one listener); a
   reply goes to the last speaker; addressed_to as a first name only (off-enum)
   p = 0.04; end_conversation written as a string p = 0.02.

Summaries (conversation_summary, group_summary)
-----------------------------------------------
S1 They talk: someone has news p = 0.90; else p = 0.45 + 0.10 per participant with
   an outgoing trait (at most 0.80); p = 0.10 if one of them is asleep.
S2 Lines follow D1-D7, 2 to the allowed maximum, stopping when it ends.
S3 Each memo follows M1-M5 from the lines only.  Group: one memo per participant,
   one memo left out p = 0.05.

Memos (conversation_memo and memos inside summaries)
----------------------------------------------------
M1 importance: small talk 2 (+-1 with p = 0.4); heard of an event 5 (4-6); accepted
   an invitation / said it would go 6; host whose event was told 4-5; declined 3-4.
M2 plan item: owner clearly said yes in the lines p = 0.90 (else forgets); said maybe
   p = 0.40; heard news but did not say it would go p = 0.07 (over-eager); declined 0;
   host of its own event re-adds it p = 0.08.  No plan if the day is not offered.
M3 fields: start = event start said; minutes = end - start, else 60; place = the
   offered place the words name, else ""; date = the event day.
M4 slips: start in 12-hour style p = 0.05; start off by 12 hours p = 0.04; place
   worded differently (off-enum) p = 0.08; date as a weekday word p = 0.04; date off
   by one day p = 0.03; empty plan fields written as null p = 0.04.
M5 summary sentence: third person p = 0.70, first person p = 0.30; holds the event's
   what / when / where when one came up and what the owner said to it.

Daily plan
----------
P1 wake hour from the lifestyle p = 0.85, one hour off p = 0.15.
P2 Saturday/Sunday day off: p = 0.30 (teachers / school: 0.85).
P3 builds on the previous day's blocks when the prompt shows them p = 0.35, else
   from the lifestyle (wake, breakfast, work hours, lunch 12-13, dinner 18:30, bed).
P4 events on that day: own hosted p = 0.95; said it would go p = 0.88; heard but
   not committed p = 0.60 * interest; declined p = 0.05.  When the event's place is
   not among its places: writes that address anyway p = 0.50, else leaves it out.
P5 news to pass on with places listed: lunch at a listed place whose window covers
   midday p = 0.55; a free-time block at a listed place p = 0.45.
P6 slips: one block start in 12-hour style p = 0.05; one duration off by 15-30 min
   p = 0.06; one address off-enum (building only) p = 0.04; only 3 outline items
   p = 0.03.

Decompose
---------
K1 steps from activity / place templates, count within the asked range, 5-15 min
   each, summing to the minutes asked; object from the listed ones when a step uses
   one (else "").
K2 slips: sum off by 5-10 min p = 0.06; one 20-minute step p = 0.04; object not in
   the list p = 0.05; the character's name repeated in a step p = 0.03.

React
-----
R1 has news to pass on and the observed person has not been told (no memory of
   telling them): talk p = 0.75, wait p = 0.15 (when they are busy), else continue.
R2 talked with them within the last 60 minutes: continue p = 0.85, else talk.
R3 otherwise: talk p = 0.25 + 0.10 per outgoing trait - 0.10 per reserved trait;
   wait p = 0.05; react p = 0.04; else continue.
R4 slip: choice off-enum ("talk to them") p = 0.03.

Interview
---------
I1 a relevant memory is found: answers from it (who told, what, when, where, whether
   it means to go / went); misses it and says it is not sure p = 0.06.
I2 nothing relevant: says it does not know p = 0.95, vague "might have heard" 0.05.
I3 "Do you know X?": graded by identity and number of memories of X.

Importance / batch
------------------
N1 routine (sleep, meals, waking, relaxing) 1-2; work 2-3; chats 2-3; talk of
   plans / events 4-6; own news or hosted event 6-8; life events 8-9; +-1 p = 0.30.
N2 batch: wrong number of ratings (one short) p = 0.04.

Reflection
----------
Q1 up to 3 questions: about an event it knows of (p = 0.90 when there is one), the
   person it meets most, its routine; 4 questions p = 0.04.
Q2 insights: 1-3 per question from statements naming the subject; an evidence
   number outside the range p = 0.03.

Relationship / revised status
-----------------------------
L1 relationship: from the number and kind of memories of the person, tone from traits.
C1 revised status keeps the old first sentence p = 0.90; adds an upcoming own event
   p = 0.90, an event it said it would go to p = 0.85, an event it heard of p = 0.50;
   past events are dropped.
"""

import datetime
import hashlib
import json
import random
import re

# ---------------------------------------------------------------------------
# basic tables

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]
NUMWORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
NUMWORD_OF = {v: k for k, v in NUMWORDS.items()}

OUTGOING = {"sociable", "curious", "nosy", "talkative", "jovial", "energetic", "friendly",
            "generous", "cheerful", "outgoing", "chatty", "warm", "kind", "gregarious"}
RESERVED = {"quiet", "tired", "shy", "grumpy", "stubborn", "reserved", "gruff", "taciturn",
            "aloof", "private", "withdrawn"}

STOP = set("""a an the and or but of to in on at for with by from into onto about around after
before over under up down out off than then that this these those there their they them
she he her him his hers its it's it is are was were be been being have has had do does did
will would can could should shall may might must i you we our your yours ours me my mine
us who whom whose what when where which while why how all any some each other others
such very just also only even still so too not no nor yes if as via per own same
today tomorrow tonight yesterday morning afternoon evening night o'clock oclock clock
said says say tell told telling hopes hope hoping news mind event events hosting host know
knows knew heard hear hearing people neighbours neighbors someone anyone everyone something
going go goes went come comes came get gets got make makes made take takes took like
drop drops dropped listen listening names name were thing things time times day days
week year years ago one two three four five six seven eight nine ten eleven twelve
sixty fifty forty thirty twenty plan plans planned planning chatted chatting chat talk
talked talking conversation remember remembers good well nice lovely great little lot
really much many more most back again here""".split())

EVENT_NOUNS = ["coffee morning", "bake sale", "jumble sale", "open day", "sing-along",
               "party", "reading", "talk", "concert", "match", "meeting", "fair", "fete",
               "sale", "picnic", "supper", "service", "festival", "show", "lesson", "class",
               "workshop", "game", "quiz", "dance", "ceilidh", "celebration", "gathering",
               "tasting", "exhibition", "market", "auction", "rehearsal", "recital",
               "screening", "tour", "ceremony", "wedding", "funeral", "christening",
               "birthday", "anniversary", "bonfire", "barbecue", "storytelling"]
VERB_NOUN = [(r"\bread(s|ing)?\b", "reading"), (r"\bsing(s|ing)?\b", "sing-along"),
             (r"\bplay(s|ing)?\b", "game"), (r"\bbak(e|es|ing)\b", "bake"),
             (r"\bshow(s|ing)?\b", "showing"), (r"\btalk(s|ing)?\b", "talk"),
             (r"\bdanc(e|es|ing)\b", "dance"), (r"\bcelebrat", "celebration"),
             (r"\bmeet(s|ing)?\b", "meeting"), (r"\bteach", "lesson"),
             (r"\bsell(s|ing)?\b", "sale"), (r"\bexhibit", "exhibition"),
             (r"\bperform", "performance"), (r"\bscreen(s|ing)?\b", "screening"),
             (r"\bcook(s|ing)?\b", "cook-up"), (r"\bopen(s|ing)?\b", "opening")]
EVENT_WORD_RE = re.compile(
    r"\b(" + "|".join(re.escape(w) for w in EVENT_NOUNS if w not in ("reading", "talk", "show")) +
    r"|hosting|holding|invite|invited|inviting|come|join|drop in|drop by|welcome|"
    r"pop in|pop along|come along|come by|look in|see you there|count me in)\b",
    re.I)
COMMIT_RE = re.compile(r"\b(calling on|call on|visit|visiting|meet|meeting|appointment|going to|"
                       r"hosting|host|party|match|service|class|lesson|event|with [A-Z])", re.I)
ORDINARY_RE = re.compile(r"\b(work|working|busy|having|breakfast|lunch|dinner|relax|relaxing|"
                         r"sleep|sleeping|waking|reading|walk|walking|bak|tend|teach|running|"
                         r"chores|day off|home|rest)", re.I)

ACCEPT_RE = re.compile(
    r"(count me in|wouldn't miss|would not miss|see you there|i'm in\b|i am in\b|"
    r"\b(i'll|i will|i'm going to|i am going to|i'd love to|i would love to|i'm planning to|"
    r"i am planning to|planning to|i mean to|i think i'll|we'll)\b(?:\s+\w+){0,2}?\s+"
    r"(come|be there|be along|go|pop|drop|look in|stop by|join|make it|head|attend|swing by|"
    r"call in|be at)|\bi'll be there\b|\bsave me a seat\b|\bsounds lovely, count\b)", re.I)
DECLINE_RE = re.compile(
    r"(can't make|cannot make|can not make|can't come|cannot come|can't go|won't be able|"
    r"unable to|not able to|not really my|i'll pass|have to miss|i'm busy|i am busy|"
    r"won't make it|can't join|not for me|i'll have to give it a miss|give it a miss|"
    r"don't think i'll manage|won't manage|can't manage|"
    r"but i'll be (?:busy|working|at|away|out)|but i'm (?:busy|working|away|out)|i'm afraid i|sorry, i can't|"
    r"sorry, i'm (?:busy|working|away|out))", re.I)
MAYBE_RE = re.compile(r"\b(might|maybe|perhaps|if i can|try to|i'll try|may come|possibly)\b", re.I)
GOODBYE_RE = re.compile(
    r"(\bbye\b|see you(?! there)|take care|best be off|must be off|have to go|got to go|"
    r"good to talk|lovely to see you|nice to see you|catch you later|off i go|"
    r"i'd better get going|i should get going|i'll let you get on)", re.I)

EMOJI = [("sleep", "😴"), ("waking", "🌅"), ("breakfast", "🍳"), ("lunch", "🥪"),
         ("dinner", "🍲"), ("hosting", "🎉"), ("going to", "🎉"), ("calling on", "🚪"),
         ("chatting", "💬"), ("telling", "💬"), ("read", "📖"), ("walk", "🚶"),
         ("relax", "🛋️"), ("day off", "🛋️"), ("surgery", "🩺"), ("waiting room", "🩺"),
         ("post", "📮"), ("counter", "📮"), ("bak", "🍞"), ("taproom", "🍺"),
         ("inn", "🍺"), ("green", "🏏"), ("workshop", "🔨"), ("school", "📚"),
         ("classroom", "📚"), ("teach", "📚"), ("nave", "⛪"), ("work", "💼"),
         ("busy", "💼")]

# ---------------------------------------------------------------------------
# small helpers


def _s(x):
    if x is None:
        return ""
    if isinstance(x, str):
        return x
    if isinstance(x, list):
        out = []
        for p in x:
            if isinstance(p, dict):
                out.append(_s(p.get("text", "")))
            else:
                out.append(_s(p))
        return "\n".join(out)
    return str(x)


def _norm(s):
    s = _s(s).replace("\u2019", "'").replace("\u2018", "'").lower()
    return re.sub(r"\s+", " ", s)


def _words(s):
    return re.findall(r"[a-z][a-z'\-]*", _norm(s))


def _stem(w):
    w = w.strip("'-")
    if w.endswith("'s"):
        w = w[:-2]
    return w[:6]


def _clip(x, lo, hi):
    return max(lo, min(hi, x))


def _first(name):
    return (name or "").split()[0] if name else ""


def _cap(s):
    s = s.strip()
    return s[:1].upper() + s[1:] if s else s


def _trim(s, n):
    s = _s(s).strip()
    if not n or len(s) <= n:
        return s
    cut = s[:n]
    for sep in (". ", "; ", ", ", " "):
        i = cut.rfind(sep)
        if i > n * 0.5:
            return cut[:i].rstrip(" ,;") + ("." if sep != ". " else ".")
    return cut


def _join_names(names):
    names = [n for n in names if n]
    if not names:
        return "someone"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def fmt24(m):
    if m is None:
        return ""
    m = int(m) % 1440
    return "%02d:%02d" % (m // 60, m % 60)


def fmt12(m, compact=False):
    if m is None:
        return ""
    m = int(m) % 1440
    h, mi = divmod(m, 60)
    ap = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    if mi:
        t = "%d:%02d" % (h12, mi)
    else:
        t = "%d" % h12
    return t + ap if compact else t + " " + ap


def fmt_words(m):
    m = int(m) % 1440
    h, mi = divmod(m, 60)
    h12 = h % 12 or 12
    w = NUMWORD_OF.get(h12, str(h12))
    if mi == 30:
        return "half past " + w
    if mi:
        return fmt12(m)
    return w + " o'clock"


def day_str(d):
    if not d:
        return ""
    return "%s %s %d" % (WEEKDAYS[d.weekday()].title(), MONTHS[d.month - 1].title(), d.day)


def rel_day(d, ref):
    if not d:
        return ""
    if ref:
        delta = (d - ref).days
        if delta == 0:
            return "today"
        if delta == 1:
            return "tomorrow"
        if 1 < delta < 7:
            return "on " + WEEKDAYS[d.weekday()].title()
    return "on " + day_str(d)


# ---------------------------------------------------------------------------
# dates and times

_MON_RE = (r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
           r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_MD_RE = re.compile(r"\b" + _MON_RE + r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s*(\d{4}))?", re.I)
_DM_RE = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MON_RE + r"\b(?:,?\s*(\d{4}))?", re.I)
_ISO_RE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_WD_RE = re.compile(r"\b(next\s+|this\s+|on\s+)?(mon|tues|wednes|thurs|fri|satur|sun)day\b", re.I)
_TS_RE = re.compile(r"^\s*\[([^\]]*)\]\s*")


def _mon(s):
    s = s.lower()[:3]
    for i, m in enumerate(MONTHS):
        if m.startswith(s):
            return i + 1
    return 1


def _mkdate(y, mo, d):
    try:
        return datetime.date(int(y), int(mo), int(d))
    except Exception:
        return None


def parse_date(text, ref=None, year=None):
    t = _s(text)
    if not t:
        return None
    y = year or (ref.year if ref else 2026)
    m = _ISO_RE.search(t)
    if m:
        d = _mkdate(m.group(1), m.group(2), m.group(3))
        if d:
            return d
    for m in _MD_RE.finditer(t):
        if m.group(1) == "may" or m.group(1) == "mar":
            continue
        d = _mkdate(m.group(3) or y, _mon(m.group(1)), m.group(2))
        if d:
            return d
    for m in _DM_RE.finditer(t):
        if m.group(2) == "may":
            continue
        d = _mkdate(m.group(3) or y, _mon(m.group(2)), m.group(1))
        if d:
            return d
    tl = t.lower()
    if ref:
        if re.search(r"\bday after tomorrow\b", tl):
            return ref + datetime.timedelta(days=2)
        if re.search(r"\btomorrow\b", tl):
            return ref + datetime.timedelta(days=1)
        if re.search(r"\b(today|tonight|this (morning|afternoon|evening)|later on|later today)\b", tl):
            return ref
        m = _WD_RE.search(t)
        if m:
            key = m.group(2).lower()[:3]
            idx = [w[:3] for w in WEEKDAYS].index(key)
            delta = (idx - ref.weekday()) % 7
            if m.group(1) and m.group(1).strip().lower() == "next" and delta == 0:
                delta = 7
            return ref + datetime.timedelta(days=delta)
    return None


def parse_stamp(s, year):
    """'[Friday April 10, 07:04]' -> (date, minutes)."""
    m = _TS_RE.match(_s(s))
    if not m:
        return None, None, _s(s)
    inner = m.group(1)
    d = parse_date(inner, None, year)
    tm = re.search(r"(\d{1,2}):(\d{2})", inner)
    mins = int(tm.group(1)) * 60 + int(tm.group(2)) if tm else None
    return d, mins, _s(s)[m.end():]


_AP = r"(a\.?\s?m\.?|p\.?\s?m\.?)"
_NW = r"(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_R24 = re.compile(r"\b(\d{1,2}):(\d{2})\s*" + _AP + r"?\s*(?:-|–|—|to|until|till)\s*(\d{1,2}):(\d{2})\s*" + _AP + r"?", re.I)
_RAP = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*" + _AP + r"?\s*(?:-|–|—|to|until|till)\s*(\d{1,2})(?::(\d{2}))?\s*(?:" + _AP + r"|o'?clock)", re.I)
_RFROM = re.compile(r"\b(?:from|between)\s+(\d{1,2})(?::(\d{2}))?\s*" + _AP + r"?\s*(?:-|–|to|until|till|and)\s*(\d{1,2})(?::(\d{2}))?\s*" + _AP + r"?", re.I)
_RW = re.compile(r"\b(from\s+)?" + _NW + r"(\s+o'?clock)?\s*" + _AP + r"?\s*(?:-|–|to|until|till)\s*" + _NW + r"(\s+o'?clock)?\s*" + _AP + r"?", re.I)
_S24 = re.compile(r"\b(\d{1,2}):(\d{2})\s*" + _AP + r"?", re.I)
_SAP = re.compile(r"\b(\d{1,2})\s*(?:" + _AP + r"|o'?clock)", re.I)
_SW = re.compile(r"\b" + _NW + r"\s+o'?clock\b|\bhalf past " + _NW + r"\b|\bat\s+" + _NW +
                 r"\b(?!\s+(?:of|people|person|years|days|minutes|hours|times|or|and))", re.I)
_NOON = re.compile(r"\b(noon|midday|midnight)\b", re.I)


def _ctx_pm(text):
    tl = _norm(text)
    if re.search(r"\b(afternoon|evening|tonight)\b|\d\s*p\.?m\b", tl):
        return True
    return None


def _hm(hs, ms, ap, ctx_pm):
    try:
        h = int(hs)
        mi = int(ms) if ms else 0
    except Exception:
        return None
    if h > 24 or mi > 59:
        return None
    if ap:
        a = ap.strip().lower()[0]
        if a == "p" and h < 12:
            h += 12
        elif a == "a" and h == 12:
            h = 0
    else:
        literal = (len(str(hs)) == 2 and str(hs).startswith("0")) or h >= 13 or h == 0
        if not literal:
            if ctx_pm is True and h < 12:
                h += 12
            elif ctx_pm is None and 1 <= h <= 7:
                h += 12
    return (h * 60 + mi) % 1440 if h < 24 else 0


def _fix_end(s, e):
    if s is None or e is None:
        return s, e
    if e <= s and e + 720 > s:
        e += 720
    if e <= s:
        e += 1440
    return s, e


def parse_times(text):
    t = _s(text)
    if not t:
        return None, None
    cp = _ctx_pm(t)
    m = _R24.search(t)
    if m:
        ap2 = m.group(6)
        s = _hm(m.group(1), m.group(2), m.group(3) or None, cp)
        e = _hm(m.group(4), m.group(5), ap2, cp)
        return _fix_end(s, e)
    m = _RAP.search(t) or _RFROM.search(t)
    if m:
        h1, m1, a1, h2, m2, a2 = m.groups()[:6]
        if not a1 and a2:
            try:
                a1 = a2 if int(h1) <= int(h2) or int(h1) == 12 else ("am" if a2.lower().startswith("p") else "pm")
            except Exception:
                a1 = a2
        if not a2 and not a1:
            s = _hm(h1, m1, None, cp)
            e = _hm(h2, m2, None, cp)
        else:
            s = _hm(h1, m1, a1, cp)
            e = _hm(h2, m2, a2 or a1, cp)
        return _fix_end(s, e)
    m = _RW.search(t)
    if m and (m.group(1) or m.group(3) or m.group(4) or m.group(6) or m.group(7)):
        a1, a2 = m.group(4), m.group(7)
        if not a1 and a2:
            a1 = a2
        s = _hm(NUMWORDS[m.group(2).lower()], None, a1, cp)
        e = _hm(NUMWORDS[m.group(5).lower()], None, a2 or a1, cp)
        return _fix_end(s, e)
    cands = []
    for rx in (_S24, _SAP):
        for m in rx.finditer(t):
            if rx is _S24:
                v = _hm(m.group(1), m.group(2), m.group(3), cp)
            else:
                v = _hm(m.group(1), None, m.group(2), cp)
            if v is not None:
                cands.append((m.start(), v))
    for m in _SW.finditer(t):
        w = m.group(1) or m.group(2) or m.group(3)
        if w:
            v = _hm(NUMWORDS[w.lower()], "30" if m.group(2) else None, None, cp)
            if v is not None:
                cands.append((m.start(), v))
    for m in re.finditer(r"\b(?:at|around|about|by)\s+(\d{1,2})\b(?!\s*(?:people|persons?|years|days|minutes|hours|times|%|:|\.\d))", t):
        v = _hm(m.group(1), None, None, cp)
        if v is not None:
            cands.append((m.start(), v))
    for m in _NOON.finditer(t):
        cands.append((m.start(), 0 if m.group(1).lower() == "midnight" else 720))
    if cands:
        cands.sort()
        return cands[0][1], None
    return None, None


def has_time(text):
    s, _ = parse_times(text)
    return s is not None


_DATEWORD_RE = re.compile(r"\b(today|tonight|tomorrow|this (morning|afternoon|evening)|"
                          r"(mon|tues|wednes|thurs|fri|satur|sun)day)\b", re.I)


def has_dateword(text):
    t = _s(text)
    return bool(_DATEWORD_RE.search(t) or _MD_RE.search(t) or _ISO_RE.search(t))


def strip_when(text):
    """Remove day and time expressions from a description."""
    t = _s(text)
    t = re.sub(r"\(that is[^()]*(\([^()]*\)[^()]*)*\)", "", t)
    pats = [
        r"\(?\b(?:on\s+)?(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s*)?\(?" + _MON_RE + r"\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s*\d{4})?\)?",
        r"\b(?:the\s+)?day after tomorrow\b",
        r"\b(?:today|tonight|tomorrow|this (?:morning|afternoon|evening))\b\s*(?:\([^)]*\))?",
        r"\b(?:on\s+|this\s+|next\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day\b\s*(?:\([^)]*\))?",
        r"\b(?:from\s+|between\s+)?\d{1,2}(?::\d{2})?\s*" + _AP + r"?\s*(?:-|–|to|until|till|and)\s*\d{1,2}(?::\d{2})?\s*(?:" + _AP + r"|o'?clock)?",
        r"\b(?:from\s+)?" + _NW + r"(?:\s+o'?clock)?\s*(?:" + _AP + r")?\s*(?:-|–|to|until|till)\s*" + _NW + r"(?:\s+o'?clock)?",
        r"\b(?:at|from|by|around)\s+\d{1,2}(?::\d{2})?\s*(?:" + _AP + r"|o'?clock)?",
        r"\b\d{1,2}:\d{2}\s*" + _AP + r"?",
        r"\b\d{1,2}\s*(?:" + _AP + r"|o'?clock)",
        r"\b" + _NW + r"\s+o'?clock\b",
    ]
    for p in pats:
        t = re.sub(p, "", t, flags=re.I)
    t = re.sub(r"\(\s*[,;]?\s*\)", "", t)
    t = re.sub(r"\(\s*([,;])", r"\1", t)
    t = re.sub(r"\s+([,.;:!?])", r"\1", t)
    t = re.sub(r"([,;])\s*([,;])+", r"\1", t)
    t = re.sub(r";\s*,", ";", t)
    t = re.sub(r",\s*;", ";", t)
    t = re.sub(r"\s{2,}", " ", t)
    return t.strip(" ,;")


# ---------------------------------------------------------------------------
# places

_ADDR_RE = re.compile(r"([A-Z][A-Za-z'\-]*(?: [A-Z][A-Za-z'\-]*)*:[A-Z][A-Za-z'\-]*(?: [A-Za-z'\-]+)*:[a-z][a-z'\-]*(?: [a-z][a-z'\-]*)?)")
_GENERIC = {"house", "cottage", "flat", "rooms", "room", "home", "bedroom", "the", "of",
            "village", "inn", "office", "st", "saint", "town", "hall", "street", "lane"}


def addr_parts(a):
    parts = _s(a).split(":")
    if len(parts) >= 3:
        return parts[0], parts[1], parts[-1]
    if len(parts) == 2:
        return "", parts[0], parts[1]
    return "", _s(a), ""


def place_short(a, with_room=False):
    if not a:
        return ""
    _, b, r = addr_parts(a)
    if with_room and r and r.lower() not in ("bedroom",) and r.lower() not in b.lower():
        return "the %s of %s" % (r, b) if r in ("nave", "garden") else "the %s at %s" % (r, b)
    if r and b and r.lower() in b.lower():
        return "the " + b
    if b.lower().startswith("st ") or b[:1].isupper() and " " not in b and b.lower() not in ("surgery", "bakehouse", "workshop", "school"):
        return b
    return "the " + b


def place_room(a):
    _, b, r = addr_parts(a)
    return r or b


def match_place(text, places):
    tl = _norm(text)
    if not tl or not places:
        return None
    best, bs = None, 0
    for p in places:
        _, b, r = addr_parts(p)
        s = 0
        bn = _norm(b)
        if bn and re.search(r"\b" + re.escape(bn) + r"\b", tl):
            s += 3
        else:
            for tok in _words(b):
                tk = tok[:-2] if tok.endswith("'s") else tok
                if len(tk) >= 4 and tk not in _GENERIC and re.search(r"\b" + re.escape(tk), tl):
                    s += 2
                    break
        rn = _norm(r)
        if rn and rn != "bedroom" and re.search(r"\b" + re.escape(rn) + r"\b", tl):
            s += 1
        if s > bs:
            best, bs = p, s
    return best if bs >= 2 else None


def is_home_addr(a, person_name=""):
    _, b, r = addr_parts(a)
    bl = b.lower()
    last = person_name.split()[-1].lower() if person_name else ""
    if last and last in bl:
        return True
    return r.lower() == "bedroom" and any(w in bl for w in ("house", "cottage", "flat", "rooms", "home"))


# ---------------------------------------------------------------------------
# events


class Event(object):
    def __init__(self):
        self.desc = ""
        self.host = ""
        self.teller = ""
        self.date = None
        self.start = None
        self.end = None
        self.place = None
        self.place_words = ""
        self.full = ""

    def key(self):
        return (self.date, self.start, self.place)


def _singular(w):
    if w.endswith("ies"):
        return w[:-3] + "y"
    if re.search(r"(ss|sh|ch|x)es$", w):
        return w[:-2]
    if w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def ev_kind(ev):
    text = _norm(ev.full or ev.desc)
    kind = None
    for n in EVENT_NOUNS:
        if n == "reading":
            continue
        if re.search(r"\b" + re.escape(n) + r"\b", text):
            kind = n
            break
    if not kind:
        act = text
        m = re.search(r"\b(will|'ll|going to|is going to)\b(.*)", text)
        if m:
            act = m.group(2)
        for rx, n in VERB_NOUN:
            if re.search(rx, act):
                kind = n
                break
    if not kind:
        kind = "event"
    topic = None
    m = re.search(r"\b(?:bundle|box|pile|stack|set|collection|batch|basket|crate|heap|album|trunk|tin|bag|sack|chest|folder|bunch) of (?:old )?([a-z]+)", text)
    if m:
        topic = _singular(m.group(1))
    else:
        m = re.search(r"\bold ([a-z]+s)\b", text)
        if m:
            topic = _singular(m.group(1))
    if topic and kind in ("reading", "showing", "exhibition", "sale", "tasting", "talk", "event"):
        return topic + " " + kind
    return kind


def _event_sentences(text):
    """the sentences of a status / memory that carry an upcoming event."""
    sents = [x for x in re.split(r"(?<=[.!?])\s+", _s(text)) if x.strip()]
    keep = [x for x in sents if has_time(x) or has_dateword(x) or re.search(r"\b(will|'ll)\b", x)]
    return " ".join(keep) if keep else _s(text)


def ev_topic(ev):
    text = _norm(ev.full or ev.desc)
    m = re.search(r"\b(?:bundle|box|pile|stack|set|collection|batch|basket|crate|heap|album|trunk|tin|bag|sack|chest|folder|bunch) of (?:old )?([a-z]+s)\b", text)
    if m:
        return m.group(1)
    return None


def ev_label(ev, who=None, rng=None):
    kind = ev_kind(ev)
    host = ev.host or ev.teller
    hf = _first(host)
    place = place_short(ev.place) if ev.place else ev.place_words
    if who and host and who == host:
        core = "hosting the " + kind
    elif hf:
        core = "going to %s's %s" % (hf, kind)
    else:
        core = "going to the " + kind
    if place and place.lower().replace("the ", "") not in core.lower():
        core += " at " + place
    return core


def ev_salient(ev, names=()):
    ban = set()
    for n in names:
        for w in _words(n):
            ban.add(_stem(w))
    toks = set()
    for w in _words(strip_when(ev.full or ev.desc)):
        st = _stem(w)
        if len(w) < 4 or w in STOP or st in ban or w in WEEKDAYS or w in MONTHS:
            continue
        toks.add(st)
    if ev.place:
        _, b, r = addr_parts(ev.place)
        for w in _words(b):
            if w not in _GENERIC and len(w) >= 4:
                toks.add(_stem(w))
    return toks


def mentions_event(text, ev, names=()):
    if not text or ev is None:
        return False
    sal = ev_salient(ev, names)
    tw = set(_stem(w) for w in _words(text))
    score = len(sal & tw)
    if ev.place:
        _, b, _r = addr_parts(ev.place)
        bw = [w for w in _words(b) if w not in _GENERIC and len(w) >= 4]
        if bw and all(_stem(w) in tw for w in bw):
            score += 1
    return score >= 2


def _balanced_after(text, i):
    """text[i] == '(' -> index after the matching ')'."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


def fill_when(ev, text, ref, year, places):
    if ev.date is None:
        ev.date = parse_date(text, ref, year)
    if ev.start is None:
        s, e = parse_times(text)
        if s is not None:
            ev.start, ev.end = s, e
    if ev.place is None and not ev.place_words:
        act = _action_part(text)
        ev.place = match_place(act, places)
        if ev.place is None:
            mw = re.search(r"\b(?:in|at) ((?:the [a-z]+ (?:of|at) )?(?:St |the )?[A-Z][\w']*(?: [A-Z][\w']*)*)", act)
            if mw and mw.group(1) not in ("I",):
                ev.place_words = mw.group(1)
            else:
                ev.place = match_place(text, places)


# ---------------------------------------------------------------------------
# context


class Line(object):
    def __init__(self, speaker, text):
        self.speaker = speaker
        self.text = text


class Person(object):
    def __init__(self, name):
        self.name = name
        self.first = _first(name)
        self.age = None
        self.traits = []
        self.identity = ""
        self.lifestyle = ""
        self.currently = ""
        self.plan = []
        self.prev_plan = []
        self.memories = []
        self.places = []
        self.news = None
        self.activity = ""
        self.sees = ""
        self.must_leave = False
        self.people_windows = []

    def outgoing(self):
        return sum(1 for t in self.traits if t in OUTGOING)

    def reserved(self):
        return sum(1 for t in self.traits if t in RESERVED)

    def home(self):
        for p in self.places:
            if is_home_addr(p, self.name):
                return p
        for it in self.plan + self.prev_plan:
            if it.get("place") and is_home_addr(it["place"], self.name):
                return it["place"]
        for p in self.places:
            if addr_parts(p)[2].lower() == "bedroom":
                return p
        return self.places[0] if self.places else ""

    def mem_texts(self):
        return [m[2] for m in self.memories]


class Ctx(object):
    pass


def _content(msg):
    if not isinstance(msg, dict):
        return ""
    return _s(msg.get("content"))


def _walk_schema(node, out):
    if isinstance(node, dict):
        if "enum" in node and isinstance(node["enum"], list):
            out.append(node["enum"])
        for v in node.values():
            _walk_schema(v, out)
    elif isinstance(node, list):
        for v in node:
            _walk_schema(v, out)


def _resolve(schema, node, depth=0):
    if not isinstance(node, dict) or depth > 8:
        return node if isinstance(node, dict) else {}
    if "$ref" in node:
        ref = node["$ref"]
        if isinstance(ref, str) and ref.startswith("#/"):
            cur = schema
            for part in ref[2:].split("/"):
                if isinstance(cur, dict):
                    cur = cur.get(part, {})
            return _resolve(schema, cur, depth + 1)
    if "anyOf" in node or "oneOf" in node:
        for alt in node.get("anyOf") or node.get("oneOf") or []:
            r = _resolve(schema, alt, depth + 1)
            if isinstance(r, dict) and r.get("type") != "null":
                return r
    return node


def build_ctx(body, seed):
    c = Ctx()
    c.body = body if isinstance(body, dict) else {}
    msgs = c.body.get("messages") or []
    if not isinstance(msgs, list):
        msgs = []
    c.system = "\n".join(_content(m) for m in msgs if isinstance(m, dict) and m.get("role") == "system")
    users = [_content(m) for m in msgs if isinstance(m, dict) and m.get("role") == "user"]
    c.user = users[0] if users else ""
    c.user_all = "\n".join(users)
    c.retry = any(isinstance(m, dict) and m.get("role") == "assistant" for m in msgs)
    c.text = c.system + "\n" + c.user_all
    rf = c.body.get("response_format") or {}
    if not isinstance(rf, dict):
        rf = {}
    c.rf = rf
    js = rf.get("json_schema") or {}
    if not isinstance(js, dict):
        js = {}
    c.schema = js.get("schema") or rf.get("schema") or {}
    if not isinstance(c.schema, dict):
        c.schema = {}
    c.purpose = _s(js.get("name"))
    c.wants_json = (bool(rf) and rf.get("type") != "text") or bool(
        re.search(r"\bJSON\b", c.system) and not re.search(r"plain text", c.system, re.I))
    try:
        c.max_tokens = int(c.body.get("max_tokens") or c.body.get("max_completion_tokens") or 800)
    except Exception:
        c.max_tokens = 800
    try:
        c.temperature = float(c.body.get("temperature", 0.7))
    except Exception:
        c.temperature = 0.7
    c.rng = _make_rng(c.body, seed)
    # year
    m = re.search(r"\b(20\d\d)\b", c.user_all)
    c.year = int(m.group(1)) if m else 2026
    enums = []
    _walk_schema(c.schema, enums)
    c.enums = enums
    c.offered_days = []
    for en in enums:
        ds = [x for x in en if isinstance(x, str) and _ISO_RE.fullmatch(x)]
        if ds:
            c.offered_days = [parse_date(x) for x in ds]
            if not m:
                c.year = c.offered_days[0].year
            break
    if not c.offered_days:
        for mm in re.finditer(r"\b(\d{4}-\d{2}-\d{2})\b", c.user_all):
            d = parse_date(mm.group(1))
            if d and d not in c.offered_days:
                c.offered_days.append(d)
    # now
    c.now_date, c.now_min = None, None
    mm = re.search(r"\b(?:it is|today is|it's|now is|the time is)\s+([^\n]{0,80})", c.user, re.I)
    if mm:
        snip = mm.group(1)
        c.now_date = parse_date(snip, None, c.year)
        tm = re.match(r"[^:\n]*?\b(\d{1,2}):(\d{2})\b", snip)
        if tm:
            c.now_min = int(tm.group(1)) * 60 + int(tm.group(2))
    if c.now_date is None:
        for line in c.user.split("\n"):
            d, mi, _ = parse_stamp(re.sub(r"^[-\d.\s]+(?=\[)", "", line.strip()), c.year)
            if d and (c.now_date is None or d > c.now_date):
                c.now_date = d
        if c.now_date is None:
            c.now_date = parse_date(c.user, None, c.year) or datetime.date(c.year, 1, 1)
    # places
    addrs = []
    for en in enums:
        for x in en:
            if isinstance(x, str) and x.count(":") >= 2 and x not in addrs:
                addrs.append(x)
    for mm in re.finditer(r"\((?:planned at\s+)?([^()\n]*:[^()\n]*:[^()\n]*)\)", c.user):
        a = mm.group(1).strip()
        if a not in addrs and len(a) < 100:
            addrs.append(a)
    for line in c.user.split("\n"):
        ls = line.strip()
        mm = re.match(r"^-\s*([A-Z][^:\n\d]*:[A-Z][^:\n]*:[a-z][^:\n]*?)(?::\s.*)?$", ls)
        if mm and "[" not in ls and len(mm.group(1)) < 100:
            a = mm.group(1).strip()
            if a not in addrs:
                addrs.append(a)
        mm = re.match(r"^places .*?knows?:\s*(.+)$", ls, re.I)
        if mm:
            for a in re.split(r",\s*", mm.group(1)):
                a = a.strip().rstrip(".")
                if a.count(":") >= 2 and a not in addrs:
                    addrs.append(a)
    for mm in _ADDR_RE.finditer(c.user):
        a = mm.group(1)
        if a not in addrs and not any(a.startswith(x) or x.startswith(a) for x in addrs):
            addrs.append(a)
    c.places = addrs
    # names
    names = []
    self_name = ""
    mm = re.search(r"inner mind of ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*)", c.system)
    if mm:
        self_name = mm.group(1)
    for mm in re.finditer(r"^Name:\s*(.+)$", c.user, re.M):
        n = mm.group(1).strip()
        if n and n not in names:
            names.append(n)
    if not self_name:
        self_name = names[0] if names else ""
    if self_name and self_name not in names:
        names.insert(0, self_name)
    for en in enums:
        for x in en:
            if isinstance(x, str) and re.fullmatch(r"[A-Z][\w'\-]+(?: [A-Z][\w'\-]+){1,2}", x) and x not in names:
                if x.lower() != "everyone" and ":" not in x:
                    names.append(x)
    buildings = set()
    for a in c.places:
        buildings.add(addr_parts(a)[1])
    for mm in re.finditer(r"\b([A-Z][a-z'\-]+ [A-Z][a-z'\-]+)\b(?= (?:is|was|has|told|chatted|said|means|heard|started|had|sees|knows|asks|invites|invited|came|found|will|wants|hopes|plans)\b)", c.user):
        n = mm.group(1)
        if n not in names and n not in buildings and n.split()[0].lower() not in WEEKDAYS and n.split()[0].lower() not in MONTHS and n.split()[0] not in ("The", "It", "What", "How", "Someone", "Places", "Name"):
            names.append(n)
    for mm in re.finditer(r"^([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)+):\s*\"", c.user, re.M):
        n = mm.group(1)
        if n not in names:
            names.append(n)
    c.names = names
    c.self_name = self_name
    c.first_map = {}
    for n in names:
        c.first_map.setdefault(_first(n), n)
    # persons
    c.persons = parse_persons(c)
    c.me = c.persons.get(self_name) or Person(self_name or "Someone")
    return c


def _make_rng(body, seed):
    try:
        canon = json.dumps(body, sort_keys=True, ensure_ascii=True, default=str)
    except Exception:
        canon = repr(body)
    h = hashlib.sha256((canon + "|seed=" + str(seed)).encode("utf-8")).digest()
    return random.Random(int.from_bytes(h[:8], "big"))


def _owner_of(header, names, default):
    best = None
    for n in names:
        if n and n in header:
            if best is None or len(n) > len(best):
                best = n
    return best or default


def parse_persons(c):
    persons = {}
    order = []

    def get(n):
        if n not in persons:
            persons[n] = Person(n)
            order.append(n)
        return persons[n]

    if c.self_name:
        get(c.self_name)
    lines = c.user.split("\n")
    cur = None
    # profile blocks
    for ln in lines:
        mm = re.match(r"^(Name|Age|Innate traits|Traits|Identity|Lifestyle|Currently):\s*(.*)$", ln.strip())
        if mm:
            k, v = mm.group(1), mm.group(2).strip()
            if k == "Name":
                cur = get(v)
            elif cur is not None:
                if k == "Age":
                    try:
                        cur.age = int(re.sub(r"\D", "", v) or 0)
                    except Exception:
                        pass
                elif k in ("Innate traits", "Traits"):
                    cur.traits = [t.strip().lower() for t in re.split(r"[,;]", v) if t.strip()]
                elif k == "Identity":
                    cur.identity = v
                elif k == "Lifestyle":
                    cur.lifestyle = v
                elif k == "Currently":
                    cur.currently = v
    for n in c.names:
        get(n)
    # sections
    owner = c.self_name
    header = ""
    for ln in lines:
        s = ln.strip()
        if not s:
            continue
        if not s.startswith("-"):
            if s.endswith(":") or re.match(r"^(what|places|things|where)\b", s, re.I):
                header = s
                owner = _owner_of(s, c.names, c.self_name)
                mm = re.match(r"^places (.*?) knows?:\s*(.+)$", s, re.I)
                if mm:
                    p = get(_owner_of(s, c.names, c.self_name))
                    for a in re.split(r",\s*", mm.group(2)):
                        a = a.strip().rstrip(".")
                        if a.count(":") >= 2 and a not in p.places:
                            p.places.append(a)
                continue
            if re.match(r"^Name:", s):
                owner = s.split(":", 1)[1].strip()
                header = ""
            continue
        body = s[1:].strip()
        p = get(owner) if owner else None
        if p is None:
            continue
        mm = re.match(r"^\[([^\]]+)\]\s*(.*)$", body)
        if mm:
            d, mi, rest = parse_stamp(body, c.year)
            p.memories.append((d, mi, rest))
            continue
        mm = re.match(r"^(\d{1,2}:\d{2})\s*[-–]\s*(\d{1,2}:\d{2})\s+(.*)$", body)
        if mm:
            st = _hm(mm.group(1).split(":")[0], mm.group(1).split(":")[1], None, False)
            en = _hm(mm.group(2).split(":")[0], mm.group(2).split(":")[1], None, False)
            rest = mm.group(3)
            day = None
            md = re.search(r"\)\s+on\s+(.+)$", rest)
            if md:
                day = parse_date(md.group(1), c.now_date, c.year)
                rest = rest[:md.start() + 1]
            place = None
            mp = re.search(r"\((?:planned at\s+)?([^()]*:[^()]*)\)\s*$", rest)
            if mp:
                place = mp.group(1).strip()
                rest = rest[:mp.start()].strip()
            it = {"s": st, "e": en, "act": rest.strip(), "place": place, "day": day, "header": header}
            if re.search(r"last day|yesterday|previous", header, re.I):
                p.prev_plan.append(it)
            else:
                p.plan.append(it)
            if place and place.count(":") >= 2 and place not in c.places:
                c.places.append(place)
            continue
        mm = re.match(r"^([A-Z][^:\n\d]*:[A-Z][^:\n]*:[a-z][^:\n]*?)(?::\s*(\d+)\s+(?:people|persons?)\s*,\s*(\d{1,2}:\d{2})\s*[-–]\s*(\d{1,2}:\d{2}))?\s*$", body)
        if mm and body.count(":") >= 2:
            a = mm.group(1).strip()
            if mm.group(2):
                s1 = _hm(*mm.group(3).split(":"), None, False)
                e1 = _hm(*mm.group(4).split(":"), None, False)
                p.people_windows.append((a, int(mm.group(2)), s1, e1))
            elif re.search(r"places", header, re.I) or not re.search(r"remember|plan", header, re.I):
                if a not in p.places:
                    p.places.append(a)
            continue
    # news
    for n in list(persons.keys()):
        p = persons[n]
        p.news = parse_news(c, n)
        mm = re.search(r"\b" + re.escape(n) + r" was ([^.\n]+)\.", c.user)
        if mm and mm.group(1).strip() not in ("about", "around", "out"):
            p.activity = mm.group(1).strip()
        if not p.activity:
            mm = re.search(r"\b" + re.escape(n) + r" is ((?:busy|working|having|relaxing|sleeping|waking|calling|chatting|walking|reading|baking|teaching)[^\n.]*?)(?: at [A-Z][\w' ]*:[^\n]*)?\.(?:\s|$)", c.user)
            if mm:
                p.activity = mm.group(1).strip()
        if re.search(re.escape(n) + r" has to go now|" + re.escape(n) + r"'s last line|this is " + re.escape(n) + r"'s last", c.user):
            p.must_leave = True
    return persons


def parse_news(c, name):
    for mm in re.finditer(re.escape(name) + r" has (?:some )?news (?:on (?:their|his|her) mind|to pass on|to share)", c.user):
        rest = c.user[mm.end():]
        if rest.startswith(" (above)") or rest.lstrip().startswith("(above)"):
            continue
        nl = rest.find("\n")
        line = rest if nl < 0 else rest[:nl]
        ev = Event()
        ev.teller = name
        body = line
        hosting = False
        mh = re.match(r"^\s*,?\s*an event (?:they are|she is|he is|they're) hosting:\s*", body)
        if mh:
            hosting = True
            body = body[mh.end():]
        else:
            body = re.sub(r"^\s*[:,]\s*", "", body)
        mt = re.match(r"^(?:" + re.escape(name) + r" heard from |)([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*) told " + re.escape(name) + r":\s*", body)
        if mt:
            ev.teller = mt.group(1)
            body = body[mt.end():]
        else:
            mt = re.match(r"^" + re.escape(name) + r" heard from ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*):\s*", body)
            if mt:
                ev.teller = mt.group(1)
                body = body[mt.end():]
        i = body.rfind("(that is")
        when = ""
        if i >= 0:
            j = _balanced_after(body, i)
            when = body[i:j]
            desc = body[:i].strip()
        else:
            desc = body.strip()
        desc = re.split(r"\.\s+(?=[A-Z][a-z]+ [A-Z][a-z]+ (?:has|can|is)\b|Where people|To tell)", desc)[0].strip().rstrip(".")
        ev.desc = desc
        if hosting:
            ev.host = name
        else:
            hn = None
            for n in c.names:
                if n and n != name and re.search(r"\b" + re.escape(n) + r"\b", desc):
                    pos = desc.find(n)
                    if hn is None or pos < hn[0]:
                        hn = (pos, n)
            ev.host = hn[1] if hn else (ev.teller if ev.teller != name else "")
        if when:
            fill_when(ev, when, c.now_date, c.year, c.places)
            mw = re.search(r"\bat ([^,()]+(?:\([^()]*\))?)\)?\s*$", when[:-1] if when.endswith(")") else when)
            if mw:
                ev.place_words = mw.group(1).strip()
        fill_when(ev, desc, c.now_date, c.year, c.places)
        # fuller text for the same event (status, memories)
        full = desc
        cands = []
        for p in c.persons.values() if hasattr(c, "persons") else []:
            cands.append(p.currently)
        cands.append(c.user)
        best = desc
        for blob in [c.user]:
            for seg in re.split(r"\n", blob):
                seg2 = _TS_RE.sub("", seg.lstrip("- ").strip())
                seg2 = re.sub(r"^(Currently:\s*)", "", seg2)
                seg2 = re.sub(r"^[A-Z][\w'\-]+(?: [A-Z][\w'\-]+)* told [A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*:\s*", "", seg2)
                if '"' in seg2 or "has news" in seg2 or "plan for" in seg2:
                    continue
                if not (ev.host and (ev.host in seg2 or _first(ev.host) in seg2)):
                    continue
                sents = [x for x in re.split(r"(?<=[.!?])\s+", seg2) if mentions_event(x, ev, c.names)]
                seg3 = " ".join(sents)
                if len(seg3) > len(best) and len(seg3) < 700:
                    best = seg3
        ev.full = best if best else full
        ev.full = re.split(r"(?<=[.!?])\s+(?=[A-Z][a-z]+ [A-Z][a-z]+ has news)", ev.full)[0]
        fill_when(ev, ev.full, c.now_date, c.year, c.places)
        return ev
    return None


# ---------------------------------------------------------------------------
# conversation lines

_QLINE_RE = re.compile(r"^\s*([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*):\s*[\"\u201c](.*)[\"\u201d]\s*$")


def parse_conversation(c):
    out = []
    for ln in c.user.split("\n"):
        if ln.lstrip().startswith("-"):
            continue
        mm = _QLINE_RE.match(ln)
        if mm and mm.group(1) not in ("Name", "Memory", "Answer", "Currently", "Identity"):
            out.append(Line(mm.group(1), mm.group(2)))
    return out


def split_memory_conversation(text):
    """'conversation with X: A: "..." / B: "..."' -> lines."""
    out = []
    i = text.find(":")
    rest = text
    mm = re.match(r"^conversation with [^:]*:\s*(.*)$", text)
    if mm:
        rest = mm.group(1)
    for part in re.split(r'"\s*/\s*', rest):
        m2 = re.match(r'^\s*([A-Z][\w\'\-]+(?: [A-Z][\w\'\-]+)*):\s*"(.*?)"?\s*$', part)
        if m2:
            out.append(Line(m2.group(1), m2.group(2)))
    return out


def resolve_name(c, token):
    if not token:
        return ""
    if token in c.names:
        return token
    return c.first_map.get(_first(token), token)


def classify_reply(text):
    t = _s(text)
    if DECLINE_RE.search(t):
        return "decline"
    if ACCEPT_RE.search(t):
        if MAYBE_RE.search(t) and not re.search(r"count me in|i'll be there|wouldn't miss|definitely", t, re.I):
            return "maybe"
        return "accept"
    if MAYBE_RE.search(t) and re.search(r"\b(come|go|pop|look in|drop|make it|join)\b", t, re.I):
        return "maybe"
    return None


def _action_part(t):
    """the clause that carries the event (after the last ';' or from 'will' on)."""
    m = re.search(r"\b(will|'ll|is going to|are going to|is holding|hosting)\b", t)
    if m:
        return t[max(0, m.start() - 40):]
    parts = re.split(r";\s*", t)
    return parts[-1]


def event_from_line(c, text, speaker, ref=None, prev_event=None):
    t = _s(text)
    if not t:
        return None
    ref = ref or c.now_date
    tsn = has_time(t)
    tdw = has_dateword(t)
    if not (tsn or tdw):
        return None
    action = _action_part(t)
    place = match_place(action, c.places) or match_place(t, c.places)
    future = re.search(r"\b(will|'ll)\b(?!\s+(?:have to|need to|better|let you))|\b(going to|is holding|are holding|hosting|tomorrow|tonight)\b", t, re.I)
    if not (EVENT_WORD_RE.search(t) or (place and future)):
        return None
    if re.search(r"'s plan for\b", t):
        return None
    if prev_event is not None and classify_reply(t):
        return None
    ev = Event()
    ev.desc = t
    ev.full = t
    ev.teller = speaker
    ev.place = place
    fill_when(ev, t, ref, c.year, c.places)
    if ev.date is None and ev.start is None:
        return None
    # host: a named person who is the subject of the event, else the speaker
    tl = _norm(t)
    cands = []
    for n in c.names:
        if n == speaker:
            continue
        for variant in (n, _first(n)):
            if not variant:
                continue
            mm = re.search(r"\b" + re.escape(variant) + r"(?:'s\b|\s+(?:is|will|has|had|was|came|found|'ll|\w+ed|\w+s)\b)", t)
            if mm:
                cands.append((mm.start(), n))
                break
    for mm in re.finditer(r"\b([A-Z][a-z]+)(?:'s\b|\s+(?:is|will|has|had|was|came|found|\w+ed)\b)", t):
        w = mm.group(1)
        if w in c.first_map and c.first_map[w] != speaker:
            cands.append((mm.start(), c.first_map[w]))
    if cands and not re.search(r"\b(i'll|i will|i'm hosting|i am hosting|my)\b", tl):
        cands.sort()
        ev.host = cands[0][1]
    else:
        ev.host = speaker
    if ev.place:
        ev.place_words = place_short(ev.place)
    return ev


def events_in_lines(c, lines, ref=None):
    """list of (index, event) for the event lines, merging follow-ups."""
    out = []
    for i, l in enumerate(lines):
        prev = out[-1][1] if out else None
        ev = event_from_line(c, l.text, l.speaker, ref, prev)
        if ev is None:
            continue
        same_time = ev.start is None or prev is None or prev.start is None or ev.start in (prev.start, prev.end)
        same_place = ev.place is None or prev is None or ev.place == prev.place
        if prev is not None and (ev.key() == prev.key() or mentions_event(l.text, prev, c.names) or (same_time and same_place and (ev.date is None or ev.date == prev.date))):
            if prev.start is None and ev.start is not None:
                prev.start, prev.end = ev.start, ev.end
            if prev.place is None and ev.place:
                prev.place = ev.place
            continue
        out.append((i, ev))
    return out


# ---------------------------------------------------------------------------
# knowledge about events


def interest(c, P, ev):
    x = 0.55 + 0.12 * min(2, P.outgoing()) - 0.10 * P.reserved()
    host = ev.host or ""
    if host and host != P.name and (host in P.identity or host in P.currently or (_first(host) and re.search(r"\b" + re.escape(_first(host)) + r"\b", P.identity))):
        x += 0.15
    mine = set(_stem(w) for w in _words(P.identity + " " + P.lifestyle + " " + P.currently) if w not in STOP and len(w) >= 4)
    theirs = ev_salient(ev, c.names)
    if mine & theirs:
        x += 0.10
    return _clip(x, 0.10, 0.90)


def person_knows(c, P, ev):
    """returns (knows, committed, declined)."""
    knows = committed = declined = False
    if P.news is not None and (P.news.key() == ev.key() or mentions_event(ev.full or ev.desc, P.news, c.names)):
        knows = True
    for (d, mi, t) in P.memories:
        if mentions_event(t, ev, c.names):
            knows = True
            if re.search(r"\bis going to\b|means to go|plans to go|will go|said (?:she|he|they) would go|" + re.escape(P.name) + r" is going to", t):
                committed = True
            if t.startswith("conversation with"):
                ls = split_memory_conversation(t)
                seen_ev = False
                for l in ls:
                    if mentions_event(l.text, ev, c.names) and l.speaker != P.name:
                        seen_ev = True
                        continue
                    if seen_ev and l.speaker == P.name:
                        r = classify_reply(l.text)
                        if r == "accept":
                            committed = True
                        elif r == "decline":
                            declined = True
    for it in P.plan:
        if mentions_event(it.get("act", ""), ev, c.names) or (it.get("act", "").startswith("going to") and ev.place and it.get("place") == ev.place and ev.start is not None and it.get("s") == ev.start):
            knows = True
            committed = True
    if P.currently and mentions_event(P.currently, ev, c.names):
        knows = True
        if re.search(r"means to go|plans to go|intends to go|will go|going to go|looking forward", P.currently):
            committed = True
    return knows, committed, declined


def clash_with(c, P, ev):
    """returns ('sleep'|'commit'|'work'|None, plan item)."""
    if ev.start is None:
        return None, None
    s0 = ev.start
    e0 = ev.end if ev.end is not None else s0 + 60
    for it in P.plan:
        day = it.get("day") or c.now_date
        if ev.date and day and day != ev.date:
            continue
        s, e = it.get("s"), it.get("e")
        if s is None or e is None:
            continue
        if e <= s:
            e += 1440
        ov = min(e, e0) - max(s, s0)
        if ov <= 0:
            continue
        act = it.get("act", "")
        if mentions_event(act, ev, c.names) or (ev.place and it.get("place") == ev.place and s == ev.start):
            continue
        if re.search(r"\bsleep", act):
            return "sleep", it
        named = any(n in act for n in c.names if n != P.name)
        if named or (COMMIT_RE.search(act) and not re.search(r"^(working|busy|having|relaxing)", act)):
            return "commit", it
        if re.search(r"\b(work|working|busy|tend|bak|teach|shift|running)\b", act):
            return "work", it
    return None, None


# ---------------------------------------------------------------------------
# speech


def _fp_verb(v):
    vl = v.lower()
    irregular = {"is": "am", "has": "have", "does": "do", "goes": "go", "was": "was", "will": "will",
                 "would": "would", "can": "can", "could": "could", "should": "should", "might": "might",
                 "must": "must", "'s": "'m"}
    if vl in irregular:
        return irregular[vl]
    if vl.endswith("ies") and len(vl) > 4:
        return v[:-3] + "y"
    if re.search(r"(ss|sh|ch|x|o)es$", vl):
        return v[:-2]
    if vl.endswith("s") and not vl.endswith("ss") and len(vl) > 3:
        return v[:-1]
    return v


def to_first_person(text, host):
    t = _s(text)
    if not host:
        return t
    first = _first(host)
    for nm in (host, first):
        t = re.sub(r"\b" + re.escape(nm) + r"'s\b", "my", t)
        t = re.sub(r"\b" + re.escape(nm) + r" is\b", "I'm", t)
        t = re.sub(r"\b" + re.escape(nm) + r" has\b", "I have", t)
        t = re.sub(r"\b" + re.escape(nm) + r" (\w+s)\b", lambda m: "I " + _fp_verb(m.group(1)), t)
        t = re.sub(r"\b" + re.escape(nm) + r"\b", "I", t)

    def subj(m):
        return "I " + _fp_verb(m.group(2))
    t = re.sub(r"\b(she|he|She|He)\s+([\w']+)", subj, t)

    def herfix(m):
        nxt = m.group(2)
        if nxt.lower() in ("who", "what", "when", "where", "how", "that", "to", "and", "about", "the", "a",
                           "an", "if", "why", "which", "some", "all", "in", "on", "at", "for", "with"):
            return "me" + m.group(1) + nxt
        return "my" + m.group(1) + nxt
    t = re.sub(r"\b(?:her|his)(\s+)([\w']+)", herfix, t)
    t = re.sub(r"\b(?:her|him)\b(?=\s*[,.;!?)]|\s*$)", "me", t)
    t = re.sub(r"\bhimself\b|\bherself\b", "myself", t)
    t = re.sub(r"\bI will\b", "I'll", t)
    t = re.sub(r"\bI am\b", "I'm", t)
    return t


def to_third_short(text, host):
    t = _s(text)
    if host and " " in host:
        t = re.sub(r"\b" + re.escape(host) + r"\b", _first(host), t)
    t = re.sub(r"\b(she|he) will\b", lambda m: m.group(1) + "'ll", t)
    return t


def event_clauses(ev):
    text = strip_when(ev.full or ev.desc)
    text = re.sub(r"^(have you heard\??|guess what\??|news:)\s*", "", text, flags=re.I)
    parts = [p.strip(" ,.;") for p in re.split(r";\s*|\.\s+", text) if p.strip(" ,.;")]
    if not parts:
        return "", text, ""
    idx = None
    for i, p in enumerate(parts):
        if re.search(r"\b(will|'ll|is going to|are going to|plans to|is hosting|hosts?|is holding|is putting on)\b", p):
            idx = i
            break
    if idx is None:
        idx = len(parts) - 1
    disc = "; ".join(parts[:idx])
    action = parts[idx]
    main, rest = action, ""
    k = action.find(", and ")
    if k > 0:
        main, rest = action[:k], action[k + 6:]
    return disc, main, rest


def say_when(c, ev, rng, style=None, with_day=True, with_time=True):
    bits = []
    if with_day and ev.date:
        r = rel_day(ev.date, c.now_date)
        if r in ("today", "tomorrow") and rng.random() < 0.5:
            r = "%s (%s)" % (r, day_str(ev.date))
        elif r == "today" and ev.start is not None and ev.start >= 720 and rng.random() < 0.5:
            r = "this afternoon" if ev.start < 1020 else "this evening"
        bits.append(r)
    if with_time and ev.start is not None:
        s, e = ev.start, ev.end
        if rng.random() < 0.04 and e is not None:
            s, e = e, None
        if style is None:
            x = rng.random()
            style = "12" if x < 0.45 else "24" if x < 0.70 else "words" if x < 0.90 else "start"
        if style == "12":
            if e is not None:
                a, b = fmt12(s), fmt12(e)
                if a[-2:] == b[-2:]:
                    a = a[:-3]
                bits.append("from %s to %s" % (a, b))
            else:
                bits.append("at " + fmt12(s))
        elif style == "24":
            bits.append("from %s to %s" % (fmt24(s), fmt24(e)) if e is not None else "at " + fmt24(s))
        elif style == "words":
            if e is not None:
                bits.append("from %s to %s" % (fmt_words(s), fmt_words(e).replace(" o'clock", "")))
            else:
                bits.append("at " + fmt_words(s))
        else:
            bits.append("at " + fmt12(s))
    return " ".join(bits).strip()


def tell_event(c, S, ev, rng, listeners, greeting="", max_len=None):
    """S tells ev to the listeners (without the back-story when it would run too long)."""
    st = rng.getstate()
    txt = _tell_event(c, S, ev, rng, listeners, greeting, True)
    if max_len and len(txt) > max_len:
        rng.setstate(st)
        txt = _tell_event(c, S, ev, rng, listeners, greeting, False)
    return txt


def _tell_event(c, S, ev, rng, listeners, greeting, allow_disc):
    lf = _first(listeners[0]) if listeners else ""
    with_day = rng.random() < 0.96
    with_time = rng.random() < 0.92
    with_place = rng.random() < 0.95
    when = say_when(c, ev, rng, with_day=with_day, with_time=with_time)
    disc, main, rest = event_clauses(ev)
    if len(main.split()) < 3:
        main = ("%s is holding a %s" % (_first(ev.host) or "someone", ev_kind(ev))) if ev.host != S.name else "I'm holding a " + ev_kind(ev)
    use_disc = bool(disc) and rng.random() < 0.6 and allow_disc
    topic = ev_topic(ev)
    if not use_disc and topic:
        main = re.sub(r"\bsome of them\b", "some of the old " + topic, main)
        main = re.sub(r"\bthem\b", "the old " + topic, main)
    host = ev.host or S.name
    place_txt = ""
    if with_place and ev.place:
        _, b, r = addr_parts(ev.place)
        if not re.search(re.escape(_norm(b).split()[-1]) if b else "zzzz", _norm(main)):
            place_txt = " at " + (place_short(ev.place, with_room=rng.random() < 0.5))
    elif with_place and ev.place_words and not mentions_event(main, ev, c.names):
        place_txt = " at " + re.sub(r"\s*\(([^)]*)\)", r" (\1)", ev.place_words)
    if host == S.name:
        main_fp = to_first_person(main, S.name)
        disc_fp = to_first_person(disc, S.name)
        if not re.match(r"^(I|we)\b", main_fp, re.I):
            main_fp = "I'm having " + main_fp if len(main_fp.split()) <= 6 else main_fp
        invite = rng.choice(["do drop in if you can!", "I'd love you to come along.",
                             "come and listen if you're free!", "I hope you'll come by.",
                             "it would be lovely to see you there."])
        openers = ["Oh, I must tell you", "Guess what", "I've got a bit of news", "You'll never guess"]
        s2 = "%s%s%s" % (main_fp, place_txt, "")
        if when:
            s2 = _cap(when) + ", " + s2[0].lower() + s2[1:] if not s2.startswith("I") else _cap(when) + ", " + s2
        else:
            s2 = _cap(s2)
        if disc_fp and use_disc:
            op = rng.choice(openers)
            s1 = "%s%s — %s!" % (greeting, op, disc_fp[0].lower() + disc_fp[1:] if not disc_fp.startswith("I ") else disc_fp)
            return "%s %s — %s" % (s1, s2, invite)
        pre = greeting + rng.choice(["Guess what? ", "I've got news! ", "Oh, before I forget: ", ""])
        return "%s%s — %s" % (pre, s2, invite)
    # passing on someone else's news
    hf = _first(host)
    disc3 = to_third_short(disc, host)
    main3 = to_third_short(main, host)
    if not re.search(r"\b(she|he|they)\b", main3[:12], re.I) and hf and hf not in main3:
        main3 = "%s is holding %s" % (hf, main3) if len(main3.split()) < 5 else main3
    opener = greeting + rng.choice(["Have you heard? ", "Did you know? ", "Oh, I heard something nice: ", ""])
    if disc3 and use_disc:
        s = "%s%s, and %s%s%s." % (opener, _cap(disc3), (when + " ") if when else "", main3, place_txt)
    else:
        if hf and hf not in main3:
            main3 = re.sub(r"^(she|he)'ll\b", hf + " will", main3, flags=re.I)
            main3 = re.sub(r"^(she|he)\b", hf, main3, flags=re.I)
        s = "%s%s%s%s." % (opener, _cap(main3), place_txt, (" " + when) if when else "")
    if rng.random() < 0.5:
        s += " " + rng.choice(["%s hopes people will drop in." % hf if hf else "Everyone's welcome.",
                               "Sounds rather lovely, doesn't it?", "I thought you'd like to know."])
    return s


def reply_to_event(c, S, ev, teller, rng, others):
    """S answers an event mention. returns (text, decision)."""
    tf = _first(teller)
    hf = _first(ev.host) if ev.host else tf
    if ev.host == S.name or (ev.host and _first(ev.host) == S.first and ev.host.split()[-1:] == S.name.split()[-1:]):
        return (rng.choice(["That's mine, actually! Do come along %s." % (say_when(c, ev, rng) or "if you can"),
                            "Yes, that's me! I do hope people come."]), "own")
    if rng.random() < 0.06:
        return None, "ignore"
    knows, committed, declined = person_knows(c, S, ev)
    when_short = say_when(c, ev, rng, with_day=rng.random() < 0.5, with_time=rng.random() < 0.7)
    prefix = ""
    if knows:
        if committed:
            return ("Yes, %s told me already — I'm planning to go%s!" % (hf or "someone", (" " + when_short) if when_short else ""), "accept")
        if ev.host != teller:
            return ("Yes, I'd heard about that already. Thanks, %s!" % tf, "knew")
        prefix = "Oh yes, I'd heard about that! "
    kind, item = clash_with(c, S, ev)
    invite = (teller == ev.host)
    p = interest(c, S, ev)
    if kind == "sleep":
        return (prefix + "Oh, that's past my bedtime, I'm afraid — but I hope it goes well!", "decline")
    if kind == "commit" and rng.random() < 0.75:
        what = plan_act_text(c, S, item.get("act", "busy")) if item else "busy"
        return (prefix + rng.choice(["Oh, I'd love to, but I'm %s then — could I come another time?" % what,
                                     "Sorry, I can't make it — I'm %s then. Maybe next time!" % what]), "decline")
    if kind == "work" and rng.random() < 0.15:
        what = plan_act_text(c, S, item.get("act", "working")) if item else "working"
        return (prefix + "Sounds lovely, but I'll be %s then, I'm afraid." % what, "decline")
    go_p = p if invite else 0.85 * p
    txt, dec = _decide_reply(c, S, ev, rng, kind, item, invite, go_p, tf, hf, when_short)
    return prefix + txt, dec


def _decide_reply(c, S, ev, rng, kind, item, invite, go_p, tf, hf, when_short):
    if rng.random() < go_p:
        at = ""
        if when_short and rng.random() < 0.6:
            at = " " + when_short
        return (rng.choice(["Oh, that sounds lovely — count me in! I'll come along%s." % at,
                            "How wonderful — I wouldn't miss it. I'll be there%s!" % at,
                            "Ooh, I'll definitely pop in%s!" % at,
                            "What a lovely idea! I think I'll go along%s." % at]), "accept")
    if rng.random() < 0.10:
        return ("That sounds interesting — I might look in if I can get away.", "maybe")
    if invite:
        return ("Thank you for asking, %s, but I don't think I'll manage it this time." % tf, "decline")
    return (rng.choice(["Oh, how interesting! Thanks for letting me know, %s." % tf,
                        "Really? Well, good for %s!" % (hf or "them")]), "ack")


def current_activity(c, P):
    if P.activity:
        return P.activity
    now = c.now_min
    if now is not None:
        for it in P.plan:
            s, e = it.get("s"), it.get("e")
            if s is None or e is None or it.get("day"):
                continue
            if e <= s:
                e += 1440
            if s <= now < e or s <= now + 1440 < e:
                return it.get("act", "")
    return ""


def next_plan_item(c, P):
    now = c.now_min
    if now is None:
        return None
    best = None
    for it in P.plan:
        s = it.get("s")
        if s is None or it.get("day"):
            continue
        if s > now and (best is None or s < best.get("s")):
            best = it
    return best


def status_first_person(P):
    cur = P.currently.split(". ")[0].strip().rstrip(".")
    if not cur:
        return ""
    t = re.sub(r"^" + re.escape(P.name) + r" is\b", "I'm", cur)
    t = re.sub(r"^" + re.escape(P.name) + r" has\b", "I've", t)
    if t == cur:
        return ""
    return t


def _greet_word(c):
    m = c.now_min if c.now_min is not None else 600
    if m < 720:
        return "Morning" if m >= 300 else "Hello"
    if m < 1050:
        return "Afternoon"
    return "Evening"


def _meal_of(act):
    for w in ("breakfast", "lunch", "dinner"):
        if w in (act or ""):
            return w
    return None


def plan_act_text(c, S, act):
    act = (act or "").split(" (")[0]
    m = re.match(r"^(hosting|going to)\s*:", act)
    if m:
        if S.news is not None and (mentions_event(act, S.news, c.names) or m.group(1) == "hosting"):
            return ev_label(S.news, S.name)
        return "going to an event" if m.group(1) == "going to" else "hosting an event"
    return act


def small_talk(c, S, others, lines, rng):
    of = _first(others[0]) if others else "there"
    other_p = c.persons.get(others[0]) if others else None
    mine = [l for l in lines if l.speaker == S.name]
    oact = (other_p.activity if other_p else "") or ""
    if not oact and S.sees:
        oact = S.sees
    if not lines:
        meal = _meal_of(oact)
        if meal:
            q = "Enjoying your %s?" % meal
        elif re.search(r"work|busy", oact):
            q = "Busy day?"
        elif re.search(r"relax", oact):
            q = "Having a nice rest?"
        else:
            q = rng.choice(["How are you doing?", "How's your day going?", "How are things?"])
        return "%s, %s! %s" % (rng.choice(["Hi", "Hello", _greet_word(c)]), of, q)
    if not mine:
        act = current_activity(c, S)
        st = status_first_person(S)
        bits = []
        if act and rng.random() < 0.6:
            bits.append("Just %s%s" % (plan_act_text(c, S, act), rng.choice([" — it's been a busy one.", ", nothing exciting.", "."])))
        elif st:
            bits.append(st + ", as usual.")
        else:
            bits.append("I'm well, thanks.")
        tail = rng.choice([" And you?", " How about you?", "", ""])
        return "%s, %s! %s%s" % (rng.choice(["Hi", "Hello", "Oh, hello"]), of, " ".join(bits), tail)
    nxt = next_plan_item(c, S)
    x = rng.random()
    if nxt and x < 0.4:
        return rng.choice(["I'll have to get on soon — I'm %s at %s." % (plan_act_text(c, S, nxt.get("act", "")), fmt12(nxt.get("s"))),
                           "Then it's %s for me." % plan_act_text(c, S, nxt.get("act", ""))])
    st = status_first_person(S)
    if st and x < 0.7:
        return rng.choice(["%s — slow going, but I'm getting there." % st,
                           "%s these days, if you can believe it." % st])
    return rng.choice(["Lovely weather for it, isn't it?", "It's been a quiet sort of day so far.",
                       "It's always nice to see a friendly face, %s." % of])


def goodbye(c, S, others, rng):
    of = _first(others[0]) if others else ""
    return rng.choice(["Lovely to see you, %s — take care!" % of,
                       "Right, I'd best be off. See you soon, %s!" % of,
                       "Good to talk, %s. Bye for now!" % of,
                       "I'll let you get on. See you around, %s!" % of]).replace(",  ", ", ").replace(", !", "!").replace(",  —", " —")


def spontaneous_invite(c, S, rng):
    now = c.now_min or 0
    for it in S.plan:
        if it.get("day") or it.get("s") is None or it.get("s") <= now:
            continue
        act = it.get("act", "")
        pl = it.get("place") or ""
        if re.search(r"relax|day off|walk", act) and pl and not is_home_addr(pl, S.name):
            return "I'll be at %s from %s — come by if you like!" % (place_short(pl), fmt12(it["s"]))
    return None


def dialogue_turn(c, S, others, lines, rng, long_prompt=False, max_len=None):
    """returns (text, end, addressed_to, kind)."""
    mine = [l for l in lines if l.speaker == S.name]
    last = lines[-1] if lines else None
    last_other = last if last and last.speaker != S.name else None
    # event mentioned by someone else, not yet answered by S
    pending = None
    evs = events_in_lines(c, lines)
    for (i, ev) in reversed(evs):
        if lines[i].speaker == S.name:
            break
        if not any(l.speaker == S.name for l in lines[i + 1:]):
            pending = (i, ev)
        break
    news = S.news
    untold = news is not None and not any(mentions_event(l.text, news, c.names) for l in lines)
    if untold and news.date and c.now_date and news.date < c.now_date:
        untold = False
    if untold and news.date == c.now_date and news.end is not None and c.now_min is not None and news.end <= c.now_min:
        untold = False
    p_tell = 0.80 if (news and news.host == S.name) else 0.60
    if long_prompt:
        p_tell -= 0.10
    other_bye = bool(last_other and GOODBYE_RE.search(last_other.text))
    addr = others[0] if others else "everyone"
    if S.must_leave:
        parts = []
        if untold and rng.random() < 0.5:
            parts.append(tell_event(c, S, news, rng, others, max_len=(max_len - 60) if max_len else None))
        parts.append(goodbye(c, S, others, rng))
        return " ".join(parts), True, ("everyone" if len(others) > 1 else addr), "leave"
    if pending is not None:
        i, ev = pending
        txt, dec = reply_to_event(c, S, ev, lines[i].speaker, rng, others)
        if txt:
            end = other_bye and rng.random() < 0.85
            if end:
                txt += " " + goodbye(c, S, others, rng)
            return txt, end, lines[i].speaker, "reply"
    # host hears an acceptance
    if news is not None and news.host == S.name and last_other and classify_reply(last_other.text) == "accept" and any(mentions_event(l.text, news, c.names) for l in lines):
        txt = rng.choice(["Wonderful — see you there!", "Lovely, I'll save you a seat!",
                          "Oh, I'm so glad. See you there, %s!" % _first(last_other.speaker)])
        end = rng.random() < 0.5
        return txt, end, last_other.speaker, "thanks"
    if untold and rng.random() < p_tell:
        greet = ""
        if not mine:
            of = _first(others[0]) if others else ""
            greet = "%s, %s! " % (rng.choice(["Hi", "Hello", _greet_word(c)]), of) if not lines else "Hi, %s! " % of
            greet = greet.replace(", !", "!")
        txt = tell_event(c, S, news, rng, others, greeting=greet, max_len=max_len)
        to = "everyone" if (len(others) > 1 and rng.random() < 0.6) else addr
        return txt, False, to, "tell"
    if other_bye:
        if rng.random() < 0.85:
            return goodbye(c, S, others, rng), True, last_other.speaker, "bye"
    if len(mine) >= 2:
        p_end = 0.45
        if len(lines) >= 9:
            p_end = 0.90
        elif len(lines) >= 6:
            p_end = 0.70
        nxt = next_plan_item(c, S)
        if nxt and c.now_min is not None and nxt.get("s") - c.now_min <= 15:
            p_end += 0.25
        if rng.random() < p_end:
            return goodbye(c, S, others, rng), True, (last_other.speaker if last_other else addr), "bye"
    txt = small_talk(c, S, others, lines, rng)
    if mine and rng.random() < 0.05:
        inv = spontaneous_invite(c, S, rng)
        if inv:
            txt = txt + " " + inv
    return txt, False, (last_other.speaker if last_other else addr), "small"


# ---------------------------------------------------------------------------
# memo


def _slip_time(m, rng):
    """M4 / P6: start time, maybe in 12-hour style or off by 12 hours."""
    if m is None:
        return ""
    x = rng.random()
    if x < 0.05:
        return rng.choice([fmt12(m, compact=True), fmt12(m).upper().replace(" ", " "), fmt12(m)])
    if x < 0.09:
        return fmt24((m + 720) % 1440)
    return fmt24(m)


def memo_for(c, S, lines, others, rng, place_enum, offered, memo_place_enum=None):
    evs = events_in_lines(c, lines)
    of = [o for o in others if o != S.name]
    others_str = _join_names(of)
    third = rng.random() < 0.70
    me = S.name if third else "I"
    memo = {"summary": "", "importance": 2, "plan_activity": "", "plan_date": "",
            "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    loc = ""
    if c.now_min is not None:
        pass
    if not evs:
        topics = []
        for l in lines:
            m = _meal_of(l.text)
            if m and m not in topics:
                topics.append(m)
        about = ("over %s" % topics[0]) if topics else rng.choice(["and said hello", "about how the day was going", "about nothing in particular"])
        if third:
            memo["summary"] = "%s had a friendly chat with %s %s." % (S.name, others_str, about)
        else:
            memo["summary"] = "I had a friendly chat with %s %s." % (others_str, about)
        imp = 2
        if rng.random() < 0.4:
            imp += rng.choice([-1, 1])
        memo["importance"] = _clip(imp, 1, 10)
        inv = [l for l in lines if re.search(r"come by if you like", l.text)]
        return memo
    i0, ev = evs[0]
    host = ev.host or lines[i0].speaker
    teller = lines[i0].speaker
    # owner's stance
    stance = None
    for l in lines[i0 + 1:]:
        if l.speaker == S.name:
            r = classify_reply(l.text)
            if r:
                stance = r
                break
    is_host = (host == S.name)
    if teller == S.name and not is_host and stance is None:
        stance = "teller"
    dstr = day_str(ev.date) if ev.date else "a day not said"
    tstr = ""
    if ev.start is not None:
        tstr = fmt24(ev.start) + ("-" + fmt24(ev.end) if ev.end is not None else "")
    pstr = place_short(ev.place, with_room=True) if ev.place else (ev.place_words or "")
    kind = ev_kind(ev)
    hf = _first(host)
    what = "%s's %s" % (hf, kind) if not is_host else ("%s %s" % ("their" if third else "my", kind))
    wstr = ", ".join(x for x in [dstr if ev.date else "", tstr] if x)
    if pstr:
        wstr += " at " + pstr
    responders = []
    for l in lines[i0 + 1:]:
        if l.speaker != S.name and l.speaker != host and l.speaker not in [x[0] for x in responders]:
            r = classify_reply(l.text)
            if r:
                responders.append((l.speaker, r))
    if is_host:
        yes = [n for n, r in responders if r == "accept"]
        no = [n for n, r in responders if r == "decline"]
        if teller != S.name:
            s = "%s brought up %s (%s) with %s" % (teller, what, wstr, "me" if not third else S.name)
        else:
            s = "%s told %s about %s (%s)" % (me, others_str, what, wstr)
        if yes:
            s += ", and %s said they would come" % _join_names(yes)
        elif no:
            s += ", but %s can't make it" % _join_names(no)
        memo["summary"] = s + "."
        memo["importance"] = rng.choice([4, 5])
    else:
        src = teller if teller != S.name else "I"
        if third:
            if teller == S.name:
                s = "%s passed on the news of %s (%s) to %s" % (S.name, what, wstr, others_str)
            else:
                s = "%s told %s about %s (%s)" % (teller, S.name, what, wstr)
        else:
            if teller == S.name:
                s = "I told %s about %s (%s)" % (others_str, what, wstr)
            else:
                s = "%s told me about %s (%s)" % (teller, what, wstr)
        if stance == "accept":
            s += "; %s said %s would go" % (("I", "I") if not third else (S.name, "they"))
            memo["importance"] = 6
        elif stance == "maybe":
            s += "; %s might go" % ("I" if not third else S.name)
            memo["importance"] = 5
        elif stance == "decline":
            s += "; %s can't make it" % ("I" if not third else S.name)
            memo["importance"] = rng.choice([3, 4])
        else:
            memo["importance"] = rng.choice([4, 5, 5, 6])
        memo["summary"] = s.replace("(%s)" % "", "") + "."
    memo["summary"] = memo["summary"].replace(" ()", "")
    # plan
    p_plan = 0.0
    if is_host:
        p_plan = 0.08
    elif stance == "accept":
        p_plan = 0.90
    elif stance == "maybe":
        p_plan = 0.40
    elif stance == "decline":
        p_plan = 0.0
    else:
        p_plan = 0.07
    if ev.date is None or (offered and ev.date not in offered) or (c.now_date and ev.date < c.now_date):
        p_plan = 0.0
    if rng.random() < p_plan:
        memo["plan_activity"] = _trim(ev_label(ev, S.name, rng), 120)
        d = ev.date
        xd = rng.random()
        if xd < 0.04:
            memo["plan_date"] = rng.choice([WEEKDAYS[d.weekday()].title(), "tomorrow" if c.now_date and (d - c.now_date).days == 1 else "today", day_str(d)])
        elif xd < 0.07:
            memo["plan_date"] = (d + datetime.timedelta(days=rng.choice([-1, 1]))).isoformat()
        else:
            memo["plan_date"] = d.isoformat()
        memo["plan_start"] = _slip_time(ev.start, rng) if ev.start is not None else ""
        if ev.start is not None and ev.end is not None:
            memo["plan_minutes"] = int(_clip((ev.end - ev.start) % 1440, 5, 600))
        else:
            memo["plan_minutes"] = 60
        pl = ""
        enum = memo_place_enum or place_enum
        if ev.place and (not enum or ev.place in enum):
            pl = ev.place
        elif ev.place:
            pl = ev.place if rng.random() < 0.5 else ""
        elif enum:
            pl = match_place(ev.desc, enum) or ""
        if pl and rng.random() < 0.08:
            pl = rng.choice([place_short(pl, with_room=True), addr_parts(pl)[1], place_room(pl)])
        memo["plan_place"] = pl
        memo["importance"] = max(memo["importance"], 5)
    else:
        if rng.random() < 0.04:
            memo["plan_activity"] = None
            memo["plan_date"] = None
            memo["plan_start"] = None
            memo["plan_place"] = None
    return memo


def _fix_memo_keys(memo, schema_props):
    if not schema_props:
        return memo
    out = {}
    for k in schema_props:
        if k in memo:
            out[k] = memo[k]
    for k, v in memo.items():
        if k not in out and k in schema_props:
            out[k] = v
    return out


# ---------------------------------------------------------------------------
# builders for each kind


def build_turn_lines(c):
    return parse_conversation(c)


def turn_others(c, S):
    mm = re.search(re.escape(S.name) + r" is talking with ([^.\n]+)\.", c.user)
    others = []
    if mm:
        for n in re.split(r",\s*|\s+and\s+", mm.group(1)):
            n = n.strip()
            if n:
                others.append(resolve_name(c, n))
    if not others:
        for n in c.names:
            if n != S.name and n in c.user:
                others.append(n)
                break
    return others


def do_plain_turn(c):
    rng = c.rng
    S = c.me
    lines = parse_conversation(c)
    others = turn_others(c, S)
    mm = re.search(r"How " + re.escape(S.name) + r" sees [^:]+:\s*(.+)", c.user)
    if mm:
        S.sees = mm.group(1)
    long_prompt = len(S.memories) > 25
    txt, end, addr, kind = dialogue_turn(c, S, others, lines, rng, long_prompt)
    txt = txt.strip()
    if rng.random() < 0.04:
        txt = S.name + ": " + txt
    if rng.random() < 0.05:
        txt = '"' + txt + '"'
    tag = "[end]" if end else "[continue]"
    x = rng.random()
    if x < 0.04:
        return txt
    if x < 0.07:
        return txt + " " + tag
    return txt + "\n" + tag


def do_group_turn(c, props):
    rng = c.rng
    S = c.me
    lines = parse_conversation(c)
    others = turn_others(c, S)
    long_prompt = len(S.memories) > 25
    txt, end, addr, kind = dialogue_turn(c, S, others, lines, rng, long_prompt, max_len=400)
    enum = None
    ap = props.get("addressed_to") or {}
    if isinstance(ap, dict):
        enum = ap.get("enum")
    if enum and addr not in enum:
        addr = "everyone" if "everyone" in enum else enum[0]
    if rng.random() < 0.04 and addr != "everyone":
        addr = _first(addr)
    obj = {"utterance": _trim(txt, 400), "addressed_to": addr, "end_conversation": bool(end)}
    if rng.random() < 0.02:
        obj["end_conversation"] = "true" if end else "false"
    return obj


def summary_participants(c):
    first = c.self_name
    mm = re.search(r"sees ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*(?:(?:,\s*| and )[A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*)*)", c.user)
    parts = [first] if first else []
    if mm:
        for n in re.split(r",\s*|\s+and\s+", mm.group(1)):
            n = resolve_name(c, n.strip())
            if n and n not in parts:
                parts.append(n)
    for mm in re.finditer(r"^Name:\s*(.+)$", c.user, re.M):
        n = mm.group(1).strip()
        if n not in parts:
            parts.append(n)
    return parts


def simulate(c, parts, rng, max_lines):
    persons = [c.persons.get(n) or Person(n) for n in parts]
    lines = []
    ended = set()
    long_prompt = sum(len(p.memories) for p in persons) > 25 * max(1, len(persons))
    guard = 0
    while len(lines) < max_lines and guard < 30:
        guard += 1
        active = [p for p in persons if p.name not in ended]
        if len(active) < 2:
            break
        if not lines:
            sp = persons[0]
        elif len(active) == 2:
            sp = active[0] if lines[-1].speaker != active[0].name else active[1]
        else:
            last = lines[-1].speaker
            unspoken = [p for p in active if p.name not in [l.speaker for l in lines] and p.name != last]
            if unspoken:
                sp = unspoken[0]
            else:
                idx = [p.name for p in active].index(last) if last in [p.name for p in active] else -1
                sp = active[(idx + 1) % len(active)]
        others = [p.name for p in persons if p.name != sp.name and p.name not in ended]
        txt, end, addr, kind = dialogue_turn(c, sp, others, lines, rng, long_prompt, max_len=300)
        lines.append(Line(sp.name, _trim(txt, 300)))
        if end:
            ended.add(sp.name)
            if len(persons) == 2 or len(persons) - len(ended) < 2:
                if len(lines) >= 2:
                    break
    if len(lines) == 1 and max_lines >= 2 and len(persons) >= 2:
        sp = persons[1]
        lines.append(Line(sp.name, goodbye(c, sp, [persons[0].name], rng)))
    return lines


def do_summary(c, props, group=False):
    rng = c.rng
    parts = summary_participants(c)
    persons = [c.persons.get(n) or Person(n) for n in parts]
    asleep = any(re.search(r"\bsleep", (p.activity or "")) for p in persons)
    anynews = any(p.news is not None for p in persons)
    if asleep:
        p_talk = 0.10
    elif anynews:
        p_talk = 0.90
    else:
        p_talk = min(0.80, 0.45 + 0.10 * sum(1 for p in persons if p.outgoing() > 0))
    talk = rng.random() < p_talk
    lp = _resolve(c.schema, props.get("lines") or {})
    max_lines = lp.get("maxItems") if isinstance(lp, dict) else None
    mm = re.search(r"\b2 to\s+(\d+)\s+lines", c.user)
    if mm:
        max_lines = int(mm.group(1))
    max_lines = max_lines or (10 if group else 6)
    speaker_enum = None
    try:
        it = _resolve(c.schema, lp.get("items", {}))
        speaker_enum = _resolve(c.schema, it.get("properties", {}).get("speaker", {})).get("enum")
    except Exception:
        speaker_enum = None
    if not talk:
        obj = {"talk": False, "lines": []}
        if group:
            obj["memos"] = []
        else:
            for k in [k for k in props if k not in ("talk", "lines")]:
                obj[k] = None
        return obj
    lines = simulate(c, parts, rng, max_lines)
    obj = {"talk": True, "lines": [{"speaker": l.speaker, "text": l.text} for l in lines]}
    if group:
        mp = _resolve(c.schema, props.get("memos") or {})
        item = _resolve(c.schema, mp.get("items", {})) if isinstance(mp, dict) else {}
        iprops = item.get("properties", {}) if isinstance(item, dict) else {}
        penum = _resolve(c.schema, iprops.get("plan_place", {})).get("enum") if iprops else None
        memos = []
        for p in persons:
            others = [q.name for q in persons if q.name != p.name]
            m = memo_for(c, p, lines, others, rng, penum or c.places, c.offered_days, _person_place_enum(p, penum))
            m = dict([("name", p.name)] + list(m.items()))
            memos.append(_fix_memo_keys(m, iprops))
        if len(memos) > 1 and rng.random() < 0.05:
            memos.pop(rng.randrange(len(memos)))
        obj["memos"] = memos
    else:
        keys = [k for k in props if k not in ("talk", "lines")]
        for k, p in zip(keys, persons):
            sub = _resolve(c.schema, props.get(k) or {})
            sprops = sub.get("properties", {}) if isinstance(sub, dict) else {}
            penum = _resolve(c.schema, sprops.get("plan_place", {})).get("enum") if sprops else None
            others = [q.name for q in persons if q.name != p.name]
            m = memo_for(c, p, lines, others, rng, penum or c.places, c.offered_days, _person_place_enum(p, penum))
            obj[k] = _fix_memo_keys(m, sprops)
    return obj


def _person_place_enum(p, enum):
    if enum:
        return [e for e in enum if e]
    return p.places or None


def do_memo(c, props):
    rng = c.rng
    S = c.me
    lines = parse_conversation(c)
    mm = re.search(r"conversation with ([^:\n]+):", c.user)
    others = []
    if mm:
        for n in re.split(r",\s*|\s+and\s+", mm.group(1)):
            n = resolve_name(c, n.strip())
            if n:
                others.append(n)
    if not others:
        others = [l.speaker for l in lines if l.speaker != S.name][:1]
    penum = _resolve(c.schema, props.get("plan_place", {})).get("enum") if props else None
    enum = [e for e in (penum or []) if e] or c.places
    m = memo_for(c, S, lines, others, rng, enum, c.offered_days, enum)
    return _fix_memo_keys(m, props) if props else m


# ----------------------------------------------------------------- daily plan

_TIME_TOKEN = r"(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?|(noon|midnight|midday)"


def _life_time(tok):
    tok = tok.strip().lower()
    if tok in ("noon", "midday"):
        return 720
    if tok == "midnight":
        return 1440
    m = re.match(r"(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?", tok)
    if not m:
        return None
    v = _hm(m.group(1), m.group(2), m.group(3), None)
    return v


def parse_lifestyle(P, places):
    life = P.lifestyle or ""
    wake = None
    m = re.search(r"wakes? up at ((?:\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?)|noon|midnight)", life, re.I)
    if m:
        wake = _life_time(m.group(1))
    bed = None
    m = re.search(r"(?:goes|go) to (?:bed|sleep) at ((?:\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?)|noon|midnight)", life, re.I)
    if m:
        bed = _life_time(m.group(1))
        if bed is not None and bed == 0:
            bed = 1440
    works = []
    for m in re.finditer(r"\b(\w+)\s+(?:at|on|in)?\s*(?:the\s+)?([A-Z][\w']*(?: [A-Z][\w']*)*)\s+from\s+((?:\d{1,2}(?::\d{2})?\s*(?:am|pm)?)|noon)\s+(?:to|until|till)\s+((?:\d{1,2}(?::\d{2})?\s*(?:am|pm)?)|noon|midnight)", life):
        verb, bld, a, b = m.group(1), m.group(2), m.group(3), m.group(4)
        s, e = _life_time(a), _life_time(b)
        if s is None or e is None:
            continue
        if e <= s:
            e += 720 if e + 720 > s else 1440
        vl = verb.lower()
        if vl.endswith("ies"):
            ger = vl[:-3] + "ying"
        elif vl.endswith("es") and vl[:-2].endswith(("k", "v", "c", "z")):
            ger = vl[:-2] + "ing"
        elif vl.endswith("s"):
            ger = vl[:-1]
            if ger.endswith("e") and not ger.endswith("ee"):
                ger = ger[:-1]
            if re.search(r"[^aeiou][aeiou][nptg]$", ger) and ger not in ("open", "visit"):
                ger = ger + ger[-1]
            ger += "ing"
        else:
            ger = vl + "ing"
        place = match_place(bld, places) or match_place(bld + " " + life, places)
        label = "%s %s the %s" % (ger, "on" if bld.lower().endswith("green") else "at", bld)
        if ger in ("running", "keeping", "tending"):
            label = "%s the %s" % (ger, bld)
        works.append({"s": s, "e": e, "act": label, "place": place, "bld": bld})
    extra = None
    m = re.search(r"\b(\w+s) in the (morning|afternoon|evening)", life)
    if m:
        v = m.group(1)[:-1]
        ger = (v[:-1] if v.endswith("e") else v) + "ing"
        extra = (m.group(2), ger)
    return wake, bed, works, extra


def _emoji(act, place=""):
    t = (act + " " + (place or "")).lower()
    for k, e in EMOJI:
        if k in t:
            return e
    return "🙂"


def do_daily_plan(c, props):
    rng = c.rng
    S = c.me
    day = c.now_date
    bp = _resolve(c.schema, props.get("blocks") or {})
    bitem = _resolve(c.schema, bp.get("items", {})) if isinstance(bp, dict) else {}
    aenum = _resolve(c.schema, (bitem.get("properties", {}) if isinstance(bitem, dict) else {}).get("address", {})).get("enum")
    places = [p for p in (aenum or S.places or c.places) if p]
    S.places = places if places else S.places
    home = S.home() or (places[0] if places else "home")
    wake, bed, works, extra = parse_lifestyle(S, places)
    if wake is None:
        wake = 7 * 60
    if rng.random() < 0.15:
        wake += rng.choice([-60, 60])
    wake = _clip(wake, 0, 23 * 60)
    if bed is None:
        bed = 22 * 60
    if bed <= wake:
        bed += 1440
    bed = min(bed, wake + 20 * 60)
    weekend = day.weekday() >= 5 if day else False
    teacher = bool(re.search(r"\bteach|school", S.lifestyle + " " + S.identity, re.I))
    day_off = weekend and rng.random() < (0.85 if teacher else 0.30)
    # timeline paint
    span = list(range(wake, bed))
    lab = {}

    def paint(s, e, act, place, prio):
        for t in range(max(s, wake), min(e, bed)):
            cur = lab.get(t)
            if cur is None or cur[2] <= prio:
                lab[t] = (act, place, prio)

    leisure_home = "relaxing at home"
    paint(wake, bed, leisure_home, home, 0)
    if extra:
        part, ger = extra
        rngs = {"morning": (540, 720), "afternoon": (780, 1020), "evening": (1140, 1290)}[part]
        paint(rngs[0], rngs[1], "%s at home" % ger, home, 1)
    use_prev = bool(S.prev_plan) and rng.random() < 0.35
    if use_prev:
        for it in S.prev_plan:
            act = it.get("act", "")
            if re.search(r"sleep|^going to|^hosting|going to:", act):
                continue
            s, e = it.get("s"), it.get("e")
            if s is None or e is None:
                continue
            if e <= s:
                e += 1440
            if s < wake - 120:
                s += 1440
                e += 1440
            pl = it.get("place") if it.get("place") in places else (match_place(act, places) or home)
            if day_off and re.search(r"work|busy", act):
                act, pl = "relaxing on a day off", home
            paint(s, e, act, pl, 1)
    else:
        for w in works:
            if day_off and not re.search(r"walk", w["act"]):
                continue
            paint(w["s"], w["e"], w["act"], w["place"] or home, 1)
        if day_off:
            paint(wake + 90, min(bed, 720), "relaxing on a day off", home, 1)
    paint(wake, wake + 30, "waking up and getting ready", home, 2)
    work_start = min([w["s"] for w in works if w["s"] > wake] or [wake + 120])
    bend = min(wake + 90, max(wake + 60, work_start))
    paint(wake + 30, bend, "having breakfast", home, 2)
    lunch_place = home
    x = rng.random()
    midday_work = [w for w in works if w["s"] <= 720 and w["e"] >= 780 and not day_off]
    if midday_work and x < 0.4:
        lunch_place = midday_work[0]["place"] or home
    elif x < 0.7:
        pubs = [p for p in places if re.search(r"bakery|taproom|green|counter", p, re.I) and not is_home_addr(p, S.name)]
        if pubs:
            lunch_place = rng.choice(pubs)
    news = S.news
    windows = S.people_windows
    if news is not None and windows:
        cover = [w for w in windows if w[2] is not None and w[3] is not None and w[2] <= 720 and w[3] >= 780 and w[0] in places]
        if cover and rng.random() < 0.55:
            lunch_place = cover[0][0]
    if wake + 60 <= 720 and bed >= 780:
        paint(720, 780, "having lunch at the %s" % place_room(lunch_place) if lunch_place != home else "having lunch", lunch_place, 2)
    if bed >= 19 * 60 + 60:
        paint(1110, 1170, "having dinner", home, 2)
    elif bed >= 1080:
        paint(bed - 90, bed - 30, "having dinner", home, 2)
    # news: free-time block at a listed place
    if news is not None and windows and rng.random() < 0.45:
        best = None
        for (a, n, s1, e1) in windows:
            if a not in places or s1 is None or e1 is None:
                continue
            free = [t for t in range(max(s1, wake), min(e1, bed)) if lab.get(t, ("", "", 0))[2] == 0]
            if len(free) >= 30 and (best is None or len(free) > best[1]):
                best = (a, len(free), free[0])
        if best:
            a, n, s0 = best
            paint(s0, s0 + min(90, n), "telling people the news at the %s" % place_room(a), a, 1)
    # events
    evs = []
    if news is not None:
        evs.append(news)
    for (d, mi, t) in S.memories:
        if news is not None and mentions_event(t, news, c.names):
            continue
        if t.startswith("conversation with"):
            ls = split_memory_conversation(t)
            found = events_in_lines(c, ls, ref=d or c.now_date)
            for (i, ev) in found:
                if not any(ev.key() == e.key() for e in evs):
                    evs.append(ev)
    for ev in evs:
        if ev.date != day or ev.start is None:
            continue
        host_me = ev.host == S.name
        knows, committed, declined = person_knows(c, S, ev)
        if host_me:
            p = 0.95
        elif committed:
            p = 0.88
        elif declined:
            p = 0.05
        else:
            p = 0.60 * interest(c, S, ev)
        if rng.random() >= p:
            continue
        pl = ev.place
        if pl not in places:
            if pl and rng.random() < 0.5:
                pass
            else:
                continue
        e = ev.end if ev.end is not None else ev.start + 60
        paint(ev.start, e, _trim(ev_label(ev, S.name, rng), 100), pl, 3)
    # compress
    blocks = []
    for t in range(wake, bed):
        v = lab.get(t, (leisure_home, home, 0))
        if blocks and blocks[-1]["act"] == v[0] and blocks[-1]["place"] == v[1]:
            blocks[-1]["e"] = t + 1
        else:
            blocks.append({"s": t, "e": t + 1, "act": v[0], "place": v[1]})
    # merge tiny blocks
    merged = []
    for b in blocks:
        if merged and b["e"] - b["s"] < 15:
            merged[-1]["e"] = b["e"]
        else:
            merged.append(b)
    while len(merged) > 15:
        i = min(range(len(merged) - 1), key=lambda k: merged[k]["e"] - merged[k]["s"])
        j = i + 1 if i + 1 < len(merged) else i - 1
        a, b = sorted([i, j])
        merged[a]["e"] = merged[b]["e"]
        merged.pop(b)
    merged.append({"s": bed, "e": wake + 1440, "act": "sleeping", "place": home})
    out = []
    for b in merged:
        dur = int(b["e"] - b["s"])
        out.append({"start": fmt24(b["s"]), "duration_minutes": _clip(dur, 5, 960),
                    "activity": _trim(b["act"], 120), "emoji": _emoji(b["act"], b["place"]),
                    "address": b["place"] or home})
    # slips P6
    if out and rng.random() < 0.05:
        k = rng.randrange(len(out))
        m = merged[k]["s"]
        out[k]["start"] = fmt12(m).upper() if rng.random() < 0.5 else fmt12(m, compact=True)
    if len(out) > 2 and rng.random() < 0.06:
        k = rng.randrange(len(out) - 1)
        out[k]["duration_minutes"] = max(5, out[k]["duration_minutes"] + rng.choice([-30, -15, 15, 30]))
    if out and rng.random() < 0.04:
        k = rng.randrange(len(out))
        out[k]["address"] = addr_parts(out[k]["address"])[1] or "home"
    # outline
    outline = []
    outline.append("wake up at %s" % fmt12(wake, compact=True))
    seen = set()
    for b in merged[1:-1]:
        key = b["act"].split(" at ")[0]
        if key in seen or b["act"] in ("waking up and getting ready",):
            continue
        seen.add(key)
        outline.append("%s at %s" % (b["act"], fmt12(b["s"], compact=True)))
    outline.append("bed at %s" % fmt12(bed, compact=True))
    if len(outline) > 8:
        # keep events and first/last
        ev_items = [o for o in outline if o.startswith(("going to", "hosting", "telling"))]
        core = [o for o in outline if o not in ev_items]
        keep = core[:1] + ev_items[:3]
        rest = [o for o in core[1:-1]]
        while len(keep) + len(rest) + 1 > 8 and rest:
            rest.pop(rng.randrange(len(rest)))
        outline = [core[0]] + sorted(rest + ev_items[:3], key=lambda o: outline.index(o)) + [core[-1]]
    while len(outline) < 4:
        outline.insert(-1, "relax at home")
    if rng.random() < 0.03:
        outline = outline[:3]
    outline = [_trim(o, 120) for o in outline]
    wake_h = wake // 60
    return {"wake_up_hour": int(wake_h), "outline": outline, "blocks": out}


# -------------------------------------------------------------------- decompose

STEP_LIB = [
    (r"\bsleep", ["getting into bed", "drifting off", "sleeping", "sleeping soundly", "turning over", "sleeping"]),
    (r"waking up|getting ready", ["waking up", "stretching", "washing face", "getting dressed", "making the bed", "brushing hair"]),
    (r"breakfast", ["putting the kettle on", "making toast", "eating breakfast", "drinking tea", "reading the paper", "washing up"]),
    (r"lunch", ["getting some food", "finding a seat", "eating lunch", "chatting over lunch", "finishing lunch", "clearing up"]),
    (r"dinner|supper", ["cooking dinner", "setting the table", "eating dinner", "having seconds", "washing the dishes", "drying up"]),
    (r"hosting|host", ["setting out chairs", "laying things out", "welcoming neighbours", "starting the session", "talking with guests", "answering questions", "carrying on", "tidying up"]),
    (r"going to|attend", ["arriving", "finding a seat", "greeting neighbours", "listening", "chatting with others", "thanking the host"]),
    (r"calling on|visit", ["knocking on the door", "saying hello", "chatting over tea", "catching up", "saying goodbye"]),
    (r"chatting|telling", ["looking for neighbours", "saying hello", "sharing the news", "chatting", "moving on"]),
    (r"surgery|waiting room|nurse", ["checking the appointment list", "calling in a patient", "taking blood pressure", "dressing a wound", "updating notes", "restocking supplies", "tidying the waiting room", "answering the phone"]),
    (r"counter|post office|parcel", ["serving a customer", "weighing parcels", "sorting letters", "selling stamps", "filing forms", "stacking parcels", "checking the post bags"]),
    (r"bakery|bakehouse|bak", ["kneading dough", "shaping loaves", "checking the oven", "taking out bread", "serving customers", "wiping the counter", "weighing flour"]),
    (r"taproom|inn|pub|bar", ["pulling pints", "wiping the bar", "chatting with regulars", "changing a barrel", "tending the fire", "collecting glasses", "checking the cellar"]),
    (r"garden", ["watering plants", "wiping tables", "sweeping the path", "setting out chairs"]),
    (r"green|pitch|cricket", ["rolling the pitch", "mowing the outfield", "checking the wickets", "raking the grass", "updating the scoreboard", "sitting on the pavilion bench"]),
    (r"workshop|carpent|timber", ["measuring timber", "sawing planks", "planing wood", "sanding edges", "fitting joints", "sweeping shavings"]),
    (r"classroom|school|teach", ["taking the register", "teaching a lesson", "marking work", "helping a pupil", "setting homework", "tidying desks"]),
    (r"nave|church|st ", ["tidying the pews", "sorting hymn books", "sitting quietly", "arranging flowers", "dusting", "listening to the organ"]),
    (r"relax|day off|rest", ["sitting down", "reading a book", "having a cup of tea", "listening to the radio", "tidying up", "resting"]),
    (r"read", ["finding a book", "reading", "making tea", "reading on", "resting eyes"]),
    (r"walk", ["setting off", "walking", "stopping to look around", "walking on", "heading back"]),
]
OBJ_HINTS = [("bed", r"bed|sleep|lying|drift|turning over|stretch"), ("armchair", r"sitting|reading|rest|tea|radio"),
             ("desk", r"notes|marking|forms|register|writing|appointment|paper"), ("chairs", r"seat|sitting|chairs|waiting"),
             ("counter", r"serv|stamp|counter|customer|wiping"), ("sorting rack", r"sort|letters|parcel|post"),
             ("bar", r"pint|bar|glasses|regulars"), ("fireplace", r"fire"), ("pews", r"pew|seat|sitting|chairs|guests|listening"),
             ("organ", r"organ|music"), ("pitch", r"pitch|wicket|rolling|mowing|grass"), ("pavilion bench", r"bench|sitting|rest"),
             ("scoreboard", r"score"), ("oven", r"oven|bread|loaves|baking"), ("table", r"table|eating|dinner|lunch|breakfast"),
             ("kettle", r"kettle|tea"), ("workbench", r"saw|plan|sand|joint|timber")]


def do_decompose(c, props):
    rng = c.rng
    S = c.me
    sp = _resolve(c.schema, props.get("steps") or {})
    mn = sp.get("minItems", 4) if isinstance(sp, dict) else 4
    mx = sp.get("maxItems", 12) if isinstance(sp, dict) else 12
    item = _resolve(c.schema, sp.get("items", {})) if isinstance(sp, dict) else {}
    iprops = item.get("properties", {}) if isinstance(item, dict) else {}
    dprop = _resolve(c.schema, iprops.get("duration_minutes", {}))
    dmin = dprop.get("minimum", 5) if isinstance(dprop, dict) else 5
    dmax = dprop.get("maximum", 15) if isinstance(dprop, dict) else 15
    objs = [o for o in (_resolve(c.schema, iprops.get("object", {})).get("enum") or []) if o]
    if not objs:
        mm = re.search(r"Objects there:\s*(.+)", c.user)
        if mm:
            objs = [o.strip() for o in mm.group(1).split(",") if o.strip() and o.strip().lower() != "none"]
    m = re.search(r"From (\d{1,2}:\d{2}) to (\d{1,2}:\d{2}) \((\d+) minutes\)\s*(.*)", c.user)
    act, place = "", ""
    total = None
    if m:
        total = int(m.group(3))
        rest = m.group(4)
        ma = re.match(r".*? is (.+?), at ([^\n]+?)\.?$", rest)
        if ma:
            act, place = ma.group(1), ma.group(2)
        else:
            act = rest
    if total is None:
        mm = re.search(r"\((\d+) minutes\)", c.user)
        total = int(mm.group(1)) if mm else 60
    mm = re.search(r"first (\d+) minutes", c.user)
    target = int(mm.group(1)) if mm else None
    if target is None:
        mm = re.search(r"fill (?:the|all) (\d+) minutes", c.user)
        target = int(mm.group(1)) if mm else min(total, 120)
    key = (act + " " + place).lower()
    lib = None
    for rx, steps in STEP_LIB:
        if re.search(rx, act.lower()):
            lib = steps
            break
    if lib is None:
        for rx, steps in STEP_LIB:
            if re.search(rx, key):
                lib = steps
                break
    if lib is None:
        base = act.split(" (")[0] or "the task"
        lib = ["getting started", base, "taking a short break", "carrying on with " + base, "finishing up"]
    if re.search(r"hosting", act) and S.news is not None:
        k = ev_kind(S.news)
        lib = ["setting out chairs", "getting things ready", "welcoming neighbours", "starting the %s" % k,
               "%s" % ("reading aloud" if "reading" in k else "talking to guests"), "answering questions",
               "chatting with listeners", "carrying on", "thanking everyone", "tidying up"]
    # count
    lo = max(mn, -(-target // dmax))
    hi = min(mx, target // dmin) if dmin else mx
    if hi < lo:
        hi = lo
    ideal = int(round(target / 10.0))
    n = _clip(ideal + rng.choice([-1, 0, 0, 1]), lo, hi)
    n = max(1, n)
    durs = [target // n] * n
    for k in range(target - sum(durs)):
        durs[k % n] += 1
    # round to 5 where possible while keeping sum
    if target % 5 == 0:
        fives = [max(dmin, min(dmax, int(round(d / 5.0)) * 5)) for d in durs]
        diff = target - sum(fives)
        k = 0
        while diff != 0 and k < 200:
            j = k % n
            if diff > 0 and fives[j] + 5 <= dmax:
                fives[j] += 5
                diff -= 5
            elif diff < 0 and fives[j] - 5 >= dmin:
                fives[j] -= 5
                diff += 5
            k += 1
        if diff == 0:
            durs = fives
    steps = []
    seq = list(lib)
    while len(seq) < n:
        seq = seq + [s for s in lib[1:-1] or lib]
    if len(seq) > n:
        if n >= 2:
            L = len(seq)
            seq = [seq[int(round(i * (L - 1) / float(n - 1)))] for i in range(n)]
        else:
            seq = seq[:1]
    for i in range(n):
        a = seq[i]
        obj, state = "", ""
        for o in objs:
            if o.lower() in a.lower():
                obj = o
                break
        if not obj:
            for o, rx in OBJ_HINTS:
                if o in objs and re.search(rx, a.lower()) and rng.random() < 0.75:
                    obj = o
                    break
        if obj:
            state = rng.choice(["in use", "occupied", "being used"]) if not re.search(r"sleep|bed", a) else "occupied"
        steps.append({"activity": a, "duration_minutes": int(durs[i]), "object": obj, "object_state": state})
    # slips K2
    if steps and rng.random() < 0.06:
        k = rng.randrange(len(steps))
        steps[k]["duration_minutes"] = int(_clip(steps[k]["duration_minutes"] + rng.choice([-10, -5, 5, 10]), 1, 30))
    if steps and rng.random() < 0.04:
        steps[rng.randrange(len(steps))]["duration_minutes"] = 20
    if steps and rng.random() < 0.05:
        k = rng.randrange(len(steps))
        steps[k]["object"] = rng.choice(["kettle", "table", "chair", "book", "cup"])
        steps[k]["object_state"] = "in use"
    if steps and rng.random() < 0.03:
        k = rng.randrange(len(steps))
        steps[k]["activity"] = S.first + " " + steps[k]["activity"]
    return {"steps": steps}


# ------------------------------------------------------------------------ react


def do_react(c, props):
    rng = c.rng
    S = c.me
    ch = _resolve(c.schema, props.get("choice") or {})
    options = ch.get("enum") if isinstance(ch, dict) and ch.get("enum") else ["continue", "talk", "wait", "react"]
    mm = re.search(r'noticed:?\s*"([^"]+)"', c.user)
    obs = mm.group(1) if mm else ""
    target = None
    for n in sorted(c.names, key=len, reverse=True):
        if n != S.name and n in obs:
            target = n
            break
    if not target:
        mm = re.search(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b", obs)
        target = mm.group(1) if mm else ""
    tf = _first(target) or "them"
    busy = bool(re.search(r"busy|working|having|lunch|breakfast|dinner", obs))
    told = False
    recent = False
    news = S.news
    if news is None:
        for (d, mi, t) in S.memories:
            mm2 = re.match(re.escape(S.name) + r" means to tell friends that (.+)$", t)
            if mm2 and (has_time(mm2.group(1)) or has_dateword(mm2.group(1))) and re.search(r"\b(will|'ll)\b", mm2.group(1)):
                ev = Event()
                ev.desc = ev.full = _event_sentences(mm2.group(1))
                fill_when(ev, ev.full, d or c.now_date, c.year, c.places)
                ev.host = S.name if re.search(r"\b(she|he|they|I) will\b|" + re.escape(S.name) + r" will\b", ev.full) else ""
                if ev.date is None or not c.now_date or ev.date >= c.now_date:
                    news = ev
    for (d, mi, t) in S.memories:
        if target and target in t:
            if news is not None and mentions_event(t, news, c.names) and (t.startswith("conversation with") or "told" in t):
                told = True
            if d and mi is not None and c.now_date and c.now_min is not None and d == c.now_date and 0 <= c.now_min - mi <= 60 and re.search(r"chat|conversation", t):
                recent = True
    x = rng.random()
    choice = "continue"
    reason = ""
    new_act = ""
    if news is not None and not told and target:
        if x < 0.75:
            choice = "talk"
            reason = "%s wants to tell %s about %s." % (S.name, target, ev_label(news, S.name).replace("going to ", "").replace("hosting ", ""))
        elif x < 0.90 and busy:
            choice = "wait"
            reason = "%s is busy, so %s will wait and then tell them the news." % (target, S.name)
        else:
            choice = "continue"
            reason = "%s is getting on with %s for now." % (S.name, current_activity(c, S) or "the day")
    elif recent:
        if x < 0.85:
            choice = "continue"
            reason = "%s has only just chatted with %s." % (S.name, target)
        else:
            choice = "talk"
            reason = "%s wants to pick up the earlier chat with %s." % (S.name, target)
    else:
        p_talk = _clip(0.25 + 0.10 * S.outgoing() - 0.10 * S.reserved(), 0.05, 0.9)
        if x < p_talk:
            choice = "talk"
            reason = "%s is friendly with %s and fancies a quick chat." % (S.name, target)
        elif x < p_talk + 0.05:
            choice = "wait"
            reason = "%s will wait for %s to finish before saying hello." % (S.name, target)
        elif x < p_talk + 0.09:
            choice = "react"
            reason = "Seeing %s reminds %s of something to do." % (target, S.name)
            new_act = rng.choice(["helping %s for a while" % target, "tidying up nearby", "taking a short break"])
        else:
            choice = "continue"
            reason = "%s is busy with %s and sees no need to interrupt." % (S.name, (current_activity(c, S) or "the plan").split(" (")[0])
    if choice not in options:
        choice = options[0]
    if rng.random() < 0.03:
        choice = rng.choice(["talk to them", "Talk", "continue plan"])
    return {"choice": choice, "reason": _trim(reason, 300), "new_activity": new_act}


# -------------------------------------------------------------------- interview


def do_interview(c, props):
    rng = c.rng
    S = c.me
    mm = re.search(r'asks [^:\n]*:\s*"([^"]+)"', c.user)
    q = mm.group(1) if mm else ""
    if not q:
        qs = re.findall(r'"([^"]{5,})"', c.user)
        q = qs[-1] if qs else ""
    mems = S.mem_texts()
    ql = _norm(q)
    # who question
    mk = re.search(r"\bknow ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*)", q)
    if mk:
        target = resolve_name(c, mk.group(1).rstrip("?"))
        tf = _first(target)
        rel = [t for t in mems if target in t or re.search(r"\b" + re.escape(tf) + r"\b", t)]
        chats = [t for t in rel if re.search(r"chat|conversation|told|said", t)]
        in_id = target in S.identity or target in S.currently
        places_seen = []
        for t in rel:
            m2 = re.search(re.escape(target) + r" is [^(]*? at the ([a-z]+(?: room)?)\b", t)
            if m2 and m2.group(1) not in places_seen:
                places_seen.append(m2.group(1).strip())
        news_bits = ""
        for t in rel:
            for ev in ([S.news] if S.news else []):
                if mentions_event(t, ev, c.names):
                    news_bits = " We talked about %s too." % (("my " + ev_kind(ev)) if ev.host == S.name else ("%s's %s" % (_first(ev.host) or "the", ev_kind(ev))).replace("the's", "the"))
                    break
        if rel and rng.random() < 0.06:
            return {"answer": "Hmm, %s... the name rings a bell, but I couldn't tell you much." % target}
        if in_id or len(chats) >= 3:
            a = "Yes, I know %s well%s." % (tf, (" — " + re.sub(r"^" + re.escape(S.name) + r" ", "I ", S.identity.split(";")[-1].strip()).rstrip(".")) if in_id else "")
            if chats:
                a += " We've had a few chats lately%s." % (" at the " + places_seen[0] if places_seen else "")
            return {"answer": _trim(a + news_bits, 600)}
        if chats:
            return {"answer": _trim("Yes, a little — we had a chat %s, and %s seemed friendly.%s" % (
                ("at the " + places_seen[0]) if places_seen else "the other day", tf, news_bits), 600)}
        if rel:
            return {"answer": "I've seen %s about%s, but we haven't really talked." % (tf, (" at the " + places_seen[0]) if places_seen else "")}
        return {"answer": rng.choice(["No, I can't say I know %s." % target, "I don't think I've met %s, no." % target])}
    # heard-about question
    qw = set(_stem(w) for w in _words(q) if w not in STOP and len(w) >= 4)
    best, bscore = None, 0
    for t in mems:
        tw = set(_stem(w) for w in _words(t))
        sc = len(qw & tw)
        if sc > bscore:
            best, bscore = t, sc
    if S.currently:
        tw = set(_stem(w) for w in _words(S.currently))
        if len(qw & tw) > bscore:
            best, bscore = S.currently, len(qw & tw)
    if best is None or bscore < 2:
        if rng.random() < 0.05:
            return {"answer": "I might have heard something about that, but I honestly can't remember the details."}
        return {"answer": rng.choice(["No, I haven't heard anything about that.", "No, that's news to me — I haven't heard about it.",
                                      "I'm afraid I don't know anything about that."])}
    if rng.random() < 0.06:
        return {"answer": "I'm not sure, to be honest — I might have heard something, but I couldn't say."}
    ev = None
    if S.news is not None and mentions_event(best, S.news, c.names):
        ev = S.news
    else:
        src = best
        if best.startswith("conversation with"):
            ls = split_memory_conversation(best)
            found = events_in_lines(c, ls)
            if found:
                ev = found[0][1]
        if ev is None:
            ev = Event()
            ev.desc = ev.full = _event_sentences(re.sub(r"^[A-Z][\w'\-]+(?: [A-Z][\w'\-]+)* told [^:]+:\s*", "", best))
            mt = re.match(r"^([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*) told ", best)
            ev.teller = mt.group(1) if mt else ""
            for n in c.names:
                if n in ev.desc:
                    ev.host = n
                    break
            ev.host = ev.host or ev.teller
            fill_when(ev, ev.desc, c.now_date, c.year, c.places)
    for t in mems:
        if mentions_event(t, ev, c.names):
            mt = re.match(r"^([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*) told ", t) or re.search(r"heard from ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*)", t)
            if mt and not ev.teller:
                ev.teller = mt.group(1)
            if not ev.teller and t.startswith("conversation with"):
                ls = split_memory_conversation(t)
                for l in ls:
                    if l.speaker != S.name and mentions_event(l.text, ev, c.names):
                        ev.teller = l.speaker
                        break
    if ev.start is None or ev.date is None:
        for t in mems:
            if mentions_event(t, ev, c.names):
                fill_when(ev, t, c.now_date, c.year, c.places)
    knows, committed, declined = person_knows(c, S, ev)
    past = ev.date is not None and c.now_date is not None and (ev.date < c.now_date or (ev.date == c.now_date and ev.end is not None and c.now_min is not None and ev.end <= c.now_min))
    when = say_when(c, ev, rng, style=rng.choice(["12", "24"]))
    wh = (" " + when) if when else ""
    place = (" at " + place_short(ev.place, with_room=rng.random() < 0.5)) if ev.place else ""
    kind = ev_kind(ev)
    went = False
    if ev.date and ev.start is not None:
        for (d, mi, t) in S.memories:
            if d == ev.date and mi is not None and ev.start - 15 <= mi <= (ev.end or ev.start + 60) and t.startswith(S.name + " is ") and (mentions_event(t, ev, c.names) or (ev.place and place_room(ev.place) in t) or "going to" in t):
                went = True
    if ev.host == S.name:
        if past:
            a = "Of course — that was my %s%s%s. %s" % (kind, place, wh, "I hope people enjoyed it.")
        else:
            a = "Yes, that's my %s%s%s — do come along!" % (kind, place, wh)
        return {"answer": _trim(a, 600)}
    who = ev.teller if ev.teller and ev.teller != S.name else (ev.host or "someone")
    hf = _first(ev.host) if ev.host else ""
    a = "Yes, %s told me about it — %s%s %s%s%s." % (_first(who) if who != "someone" else "someone",
                                                   (hf + "'s ") if hf else "the ", kind,
                                                   "was" if past else "is", place, wh)
    if went:
        a += " I went along myself."
    elif committed:
        a += " I said I'd go." if not past else " I meant to go."
    elif declined:
        a += " I couldn't make it, though."
    return {"answer": _trim(a.replace("  ", " "), 600)}


# -------------------------------------------------------------------- importance


def rate_memory(c, S, text, rng):
    t = _norm(text)
    if re.search(r"\b(died|death|funeral|accident|hospital|engaged|married|wedding|fired|breakup|broke up|pregnan|baby|fire broke|burgl|stolen)\b", t):
        v = rng.choice([8, 9])
    elif S.news is not None and mentions_event(text, S.news, c.names):
        v = rng.choice([6, 7, 8]) if S.news.host == S.name else rng.choice([5, 6])
    elif has_time(text) and re.search(r"\b" + re.escape(S.first or "zzz") + r"\b", text) and re.search(r"\b(will|'ll)\b", text) and not re.search(r"'s plan for", text):
        v = rng.choice([6, 7, 8])
    elif has_time(text) and EVENT_WORD_RE.search(text) and not re.search(r"'s plan for", text):
        v = rng.choice([4, 5, 6])
    elif re.search(r"'s plan for|plan for", t):
        v = 2
    elif re.search(r"conversation with|chatted with|told", t):
        v = rng.choice([2, 3])
    elif re.search(r"\b(sleep|sleeping|waking|breakfast|lunch|dinner|relaxing|getting ready|in use)\b", t):
        v = rng.choice([1, 1, 2])
    elif re.search(r"\b(work|working|busy|chatting)\b", t):
        v = rng.choice([2, 3])
    else:
        v = rng.choice([2, 3, 4])
    if rng.random() < 0.30:
        v += rng.choice([-1, 1])
    return int(_clip(v, 1, 10))


def do_importance(c, props):
    S = c.me
    mm = re.search(r'Memory:\s*"(.+)"\s*$', c.user, re.M)
    if mm:
        t = mm.group(1)
    else:
        qs = re.findall(r'"([^"]{3,})"', c.user)
        t = qs[-1] if qs else c.user[-200:]
    return {"importance": rate_memory(c, S, t, c.rng)}


def do_batch(c, props):
    S = c.me
    rng = c.rng
    items = re.findall(r'^\s*(?:-|\d+[.)])\s*"(.*)"\s*$', c.user, re.M)
    rp = _resolve(c.schema, props.get("ratings") or {})
    n = rp.get("minItems") or rp.get("maxItems") if isinstance(rp, dict) else None
    if not items:
        items = ["something"] * (n or 1)
    ratings = [rate_memory(c, S, t, rng) for t in items]
    if n and len(ratings) != n:
        ratings = (ratings + [2] * n)[:n]
    if len(ratings) > 1 and rng.random() < 0.04:
        ratings = ratings[:-1]
    return {"ratings": ratings}


# -------------------------------------------------------------------- reflection


def do_questions(c, props):
    rng = c.rng
    S = c.me
    mems = S.mem_texts()
    qs = []
    ev = S.news
    if ev is None:
        for t in mems:
            if has_time(t) and EVENT_WORD_RE.search(t) and not re.search(r"plan for", t) and re.search(r"told|heard|conversation", t):
                found = events_in_lines(c, split_memory_conversation(t)) if t.startswith("conversation") else []
                if found:
                    ev = found[0][1]
                    break
    if ev is None and S.currently:
        e2 = Event()
        e2.desc = e2.full = _event_sentences(S.currently)
        fill_when(e2, S.currently, c.now_date, c.year, c.places)
        if e2.date or e2.start is not None:
            e2.host = S.name if re.search(r"\b(she|he|they) will|" + re.escape(S.name) + r" will", S.currently) else ""
            ev = e2
    if ev is not None and rng.random() < 0.90:
        kind = ev_kind(ev)
        if ev.host == S.name:
            qs.append(rng.choice(["Who in the village is likely to come to %s's %s?" % (S.first, kind),
                                  "How can %s get more neighbours to come to the %s?" % (S.name, kind)]))
        else:
            qs.append("Does %s want to go to %s's %s?" % (S.name, _first(ev.host) or "the", kind))
    counts = {}
    for t in mems:
        for n in c.names:
            if n != S.name and n in t:
                counts[n] = counts.get(n, 0) + 1
    if counts:
        top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        qs.append(rng.choice(["How does %s feel about %s?" % (S.name, top),
                              "What is the relationship between %s and %s like?" % (S.name, top),
                              "Why does %s keep running into %s?" % (S.name, top)]))
    rooms = {}
    for t in mems:
        m = re.search(re.escape(S.name) + r" is [a-z ]+? at the ([a-z]+(?: room)?)\b", t)
        if m:
            r = m.group(1).strip()
            rooms[r] = rooms.get(r, 0) + 1
    if rooms:
        top = sorted(rooms.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        qs.append("Why does %s spend so much of the day at the %s?" % (S.name, top))
    if "tired" in S.traits:
        qs.append("Is %s getting enough rest?" % S.name)
    qs.append("What matters most to %s these days?" % S.name)
    out = []
    for q in qs:
        if q not in out:
            out.append(q)
    n = 4 if rng.random() < 0.04 else 3
    return {"questions": out[:n]}


def do_insights(c, props):
    rng = c.rng
    S = c.me
    stmts = {}
    for mm in re.finditer(r"^\s*(\d{1,3})\.\s*(.+)$", c.user, re.M):
        stmts[int(mm.group(1))] = _TS_RE.sub("", mm.group(2))
    qs = re.findall(r'^\s*(?:-\s*|Question:\s*)"([^"]+)"', c.user, re.M)
    if not qs:
        qs = ["What matters to %s?" % S.name]
    nmax = max(stmts) if stmts else 1
    ins = []
    for q in qs[:5]:
        target = None
        for n in sorted(c.names, key=len, reverse=True):
            if n != S.name and n in q:
                target = n
                break
        if target:
            ev_nums = [k for k, t in stmts.items() if target in t][:10]
            chats = [k for k in ev_nums if re.search(r"chat|conversation|told", stmts[k])]
            rooms = []
            for k in ev_nums:
                m = re.search(r" at the ([a-z]+(?: room)?)\b", stmts[k])
                if m and m.group(1).strip() not in rooms:
                    rooms.append(m.group(1).strip())
            if not ev_nums:
                continue
            ins.append({"insight": "%s mostly runs into %s%s." % (S.name, target, (" at the " + rooms[0]) if rooms else " around the village"),
                        "about": target, "evidence": ev_nums[:6], "importance": rng.choice([2, 3])})
            if chats:
                ins.append({"insight": "%s and %s are on friendly terms, though their chats so far have been brief." % (S.name, target),
                            "about": target, "evidence": chats[:6], "importance": rng.choice([3, 4])})
            if S.news is not None and any(mentions_event(stmts[k], S.news, c.names) for k in ev_nums):
                nums = [k for k in ev_nums if mentions_event(stmts[k], S.news, c.names)]
                ins.append({"insight": "%s has talked with %s about %s." % (S.name, target, ev_label(S.news, S.name).replace("going to ", "").replace("hosting ", "")),
                            "about": target, "evidence": nums[:6], "importance": 5})
        else:
            ev = S.news
            if ev is None and (has_time(q) or has_dateword(q)):
                ev = Event()
                ev.desc = ev.full = _event_sentences(q)
                fill_when(ev, ev.full, c.now_date, c.year, c.places)
                ev.host = S.name if re.search(r"\b(she|he|they) will\b|" + re.escape(S.name) + r" will\b", q) else ""
                for n in c.names:
                    if not ev.host and n != S.name and n in q:
                        ev.host = n
            if ev is not None:
                nums = [k for k, t in stmts.items() if mentions_event(t, ev, c.names)][:10]
                if nums:
                    when = say_when(c, ev, rng, style="24")
                    if ev.host == S.name:
                        txt = "%s is keen for neighbours to come to %s %s." % (S.name, "the " + ev_kind(ev), when)
                    else:
                        txt = "%s knows about %s's %s %s." % (S.name, _first(ev.host) or "a", ev_kind(ev), when)
                    ins.append({"insight": txt.replace("  ", " "), "about": ev_kind(ev), "evidence": nums[:6], "importance": rng.choice([6, 7])})
                    continue
            rooms = {}
            for k, t in stmts.items():
                m = re.search(re.escape(S.name) + r" is [a-z ]+? at the ([a-z]+(?: room)?)\b", t)
                if m:
                    rooms.setdefault(m.group(1).strip(), []).append(k)
            if rooms:
                top = sorted(rooms.items(), key=lambda kv: -len(kv[1]))[0]
                ins.append({"insight": "%s's days revolve around the %s." % (S.name, top[0]), "about": "routine",
                            "evidence": top[1][:8], "importance": rng.choice([2, 3])})
    uniq = []
    for it in ins:
        if it["insight"] not in [u["insight"] for u in uniq]:
            uniq.append(it)
    ins = uniq
    if not ins:
        ins.append({"insight": "%s keeps to a steady daily routine." % S.name, "about": "routine",
                    "evidence": sorted(stmts)[:3] or [1], "importance": 2})
    for it in ins:
        it["evidence"] = [int(x) for x in it["evidence"] if 1 <= x <= nmax] or [1]
        it["insight"] = _trim(it["insight"], 300)
        it["about"] = _trim(it["about"], 60)
    if rng.random() < 0.03:
        ins[0]["evidence"] = ins[0]["evidence"] + [nmax + rng.randint(1, 5)]
    return {"insights": ins[:15]}


# ---------------------------------------------------------------- relationship


def _relation_clause(c, S, target, rng, first_clause):
    tf = _first(target) or "them"
    mems = [t for t in S.mem_texts() if target in t or (tf and re.search(r"\b" + re.escape(tf) + r"\b", t))]
    chats = [t for t in mems if re.search(r"chat|conversation|told", t)]
    rooms = []
    for t in mems:
        m = re.search(r" at the ([a-z]+(?: room)?)\b", t)
        if m and m.group(1).strip() not in rooms:
            rooms.append(m.group(1).strip())
    who = S.name if first_clause else S.first
    warm = "warmly" if S.outgoing() else ("quietly fond of" if S.reserved() else "kindly")
    in_id = target and (target in S.identity)
    if in_id:
        s = "%s knows %s well%s and feels %s towards %s" % (who, target, " from the " + rooms[0] if rooms else "", "warmly" if warm == "warmly" else "fondly", tf)
    elif len(chats) >= 2:
        s = "%s is on friendly terms with %s, often running into %s at the %s, and feels %s about %s right now" % (
            who, target, tf, rooms[0] if rooms else "village", "good" if warm != "quietly fond of" else "quietly positive", tf)
    elif chats:
        s = "%s has chatted with %s a little%s and finds %s pleasant enough, though they are not close yet" % (
            who, target, " at the " + rooms[0] if rooms else "", tf)
    elif mems:
        s = "%s mostly sees %s about%s but hasn't really talked with %s yet" % (who, target, " at the " + rooms[0] if rooms else "", tf)
    else:
        s = "%s doesn't really know %s yet" % (who, target or "them")
    if S.news is not None and any(mentions_event(t, S.news, c.names) for t in mems):
        k = ev_kind(S.news)
        s += ", and has told %s about %s" % (tf, ("the " + k) if S.news.host == S.name else "%s's %s" % (_first(S.news.host) or "the", k))
    return s


def do_relationship(c, props):
    rng = c.rng
    S = c.me
    mm = re.search(r"relationship with (?:each of )?([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*(?:(?:,\s*| and )[A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*)*)", c.user) or \
        re.search(r"remembers about (?:each of )?([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*(?:(?:,\s*| and )[A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*)*)", c.user)
    targets = []
    if mm:
        for n in re.split(r",\s*|\s+and\s+", mm.group(1)):
            n = resolve_name(c, n.strip())
            if n and n != S.name and n not in targets:
                targets.append(n)
    if not targets:
        targets = [""]
    clauses = [_relation_clause(c, S, t, rng, i == 0) for i, t in enumerate(targets[:4])]
    if len(clauses) == 1:
        txt = clauses[0] + "."
    else:
        txt = clauses[0] + "; " + "; ".join(clauses[1:]) + "."
    return {"summary": _trim(txt, 400)}


# ------------------------------------------------------------------ currently


def do_currently(c, props):
    rng = c.rng
    S = c.me
    old = S.currently.strip()
    sents = re.split(r"(?<=[.!?])\s+", old)
    first = sents[0] if sents else ""
    out = []
    if first and rng.random() < 0.90:
        out.append(first if first.endswith((".", "!", "?")) else first + ".")
    elif first:
        out.append("%s is going about the usual routine." % S.name)
    evs = []
    if S.news is not None:
        evs.append(S.news)
    if not evs:
        # the old status or memories may hold the event
        for txt in [old] + S.mem_texts():
            if has_time(txt) and (has_dateword(txt)) and EVENT_WORD_RE.search(txt) and not re.search(r"plan for|'s plan", txt):
                ev = Event()
                mt = re.match(r"^([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*) told " + re.escape(S.name) + r":\s*", txt)
                body = txt[mt.end():] if mt else txt
                if txt.startswith("conversation with"):
                    found = events_in_lines(c, split_memory_conversation(txt))
                    if not found:
                        continue
                    ev = found[0][1]
                else:
                    ev.desc = ev.full = _event_sentences(body)
                    ev.teller = mt.group(1) if mt else ""
                    for n in c.names:
                        if n in body:
                            ev.host = n
                            break
                    fill_when(ev, body, c.now_date, c.year, c.places)
                if ev.date and not any(mentions_event(ev.full, e, c.names) for e in evs):
                    evs.append(ev)
    for ev in evs[:2]:
        if ev.date is None or (c.now_date and ev.date < c.now_date):
            continue
        knows, committed, declined = person_knows(c, S, ev)
        when = say_when(c, ev, rng, style="24")
        place = (" at " + place_short(ev.place, with_room=True)) if ev.place else ""
        kind = ev_kind(ev)
        if ev.host == S.name:
            if rng.random() < 0.90:
                disc, main, rest = event_clauses(ev)
                core = main
                if re.match(r"^(she|he|they)\b", core, re.I):
                    core = S.first + core[core.find(" "):]
                elif re.match(r"^(she|he|they)'ll\b", core, re.I):
                    core = S.first + " will" + core[core.find(" "):]
                topic = ev_topic(ev)
                if disc:
                    core = disc.rstrip(" ,;") + ", and " + re.sub(r"^" + re.escape(S.first) + r" will\b", "will", core)
                elif topic:
                    core = re.sub(r"\bsome of them\b", "some of the old " + topic, core)
                out.append(_cap("%s %s%s." % (core, when, "" if ev.place and addr_parts(ev.place)[1].split()[-1].lower() in core.lower() else place)).replace("  ", " "))
                if rng.random() < 0.5:
                    out.append("%s hopes plenty of neighbours will come." % S.first)
        elif committed:
            if rng.random() < 0.85:
                out.append("%s means to go to %s's %s%s %s." % (S.name, _first(ev.host) or "the", kind, place, when))
        elif knows or ev is S.news:
            if rng.random() < 0.50:
                out.append("%s heard about %s's %s%s %s." % (S.name, _first(ev.host) or "a", kind, place, when))
    if not out:
        out.append("%s is going about the usual routine." % S.name)
    txt = " ".join(o.replace("  ", " ").replace(" .", ".") for o in out)
    return {"currently": _trim(txt, 500)}


# ----------------------------------------------------------------- generic


def _gen_value(c, schema, node, rng, key="", depth=0):
    node = _resolve(schema, node)
    if not isinstance(node, dict) or depth > 5:
        return ""
    if "enum" in node and node["enum"]:
        return rng.choice(node["enum"])
    t = node.get("type")
    if isinstance(t, list):
        t = [x for x in t if x != "null"][0] if [x for x in t if x != "null"] else "string"
    if t == "object" or "properties" in node:
        out = {}
        for k, v in (node.get("properties") or {}).items():
            out[k] = _gen_value(c, schema, v, rng, k, depth + 1)
        return out
    if t == "array":
        n = max(node.get("minItems", 1), 1)
        n = min(n + rng.randint(0, 1), node.get("maxItems", n + 1))
        return [_gen_value(c, schema, node.get("items", {}), rng, key, depth + 1) for _ in range(n)]
    if t == "integer":
        lo, hi = node.get("minimum", 1), node.get("maximum", 10)
        return int((lo + hi) // 2)
    if t == "number":
        lo, hi = node.get("minimum", 0), node.get("maximum", 1)
        return (lo + hi) / 2.0
    if t == "boolean":
        return rng.random() < 0.5
    k = key.lower()
    S = c.me
    if "time" in k or "start" in k:
        return fmt24(c.now_min or 720)
    if "date" in k:
        return c.now_date.isoformat() if c.now_date else ""
    if "name" in k or "speaker" in k:
        return S.name
    if any(w in k for w in ("place", "address", "location")):
        return c.places[0] if c.places else ""
    mx = node.get("maxLength", 200)
    if any(w in k for w in ("summary", "answer", "text", "reason", "description", "currently", "insight", "utterance")):
        st = S.currently.split(". ")[0] if S.currently else "%s is getting on with the day" % (S.name or "I")
        return _trim(st.rstrip(".") + ".", mx)
    return _trim(S.name or "ok", mx)


def do_generic(c, props):
    rng = c.rng
    if c.schema:
        v = _gen_value(c, c.schema, c.schema, rng)
        if isinstance(v, dict):
            return v
        return {"answer": v}
    mm = re.search(r"Answer as\s*(\{.*\})", c.user, re.S)
    out = {}
    if mm:
        for k, v in re.findall(r'"(\w+)"\s*:\s*([^,}]*)', mm.group(1)):
            if re.search(r"<\s*(int|integer|number)", v):
                nums = [int(x) for x in re.findall(r"\d+", v)]
                out[k] = int(sum(nums[:2]) // 2) if nums else 1
            elif re.search(r"true\s*\|\s*false", v):
                out[k] = rng.random() < 0.5
            elif v.strip().startswith("["):
                out[k] = []
            else:
                out[k] = _gen_value(c, {}, {"type": "string"}, rng, k)
    return out or {"answer": "ok"}


# ---------------------------------------------------------------- dispatch


def _props(c):
    s = _resolve(c.schema, c.schema)
    return s.get("properties") or {} if isinstance(s, dict) else {}


def classify(c):
    props = _props(c)
    keys = set(props)
    if not keys and c.wants_json:
        mm = re.search(r"Answer as\s*(\{.*\})", c.user, re.S)
        if mm:
            keys = set(re.findall(r'"(\w+)"\s*:', mm.group(1)))
    if not c.wants_json and not keys:
        if re.search(r"\[end\]|\[continue\]", c.user):
            return "plain_turn"
        return "plain"
    if keys == {"ok"}:
        return "probe"
    if "utterance" in keys:
        return "group_turn"
    if "choice" in keys:
        return "react"
    if "talk" in keys and "memos" in keys:
        return "group_summary"
    if "talk" in keys and "lines" in keys:
        return "summary"
    if "wake_up_hour" in keys or "blocks" in keys:
        return "daily_plan"
    if "steps" in keys:
        return "decompose"
    if "plan_activity" in keys or ("summary" in keys and "importance" in keys):
        return "memo"
    if "ratings" in keys:
        return "batch"
    if keys == {"importance"}:
        return "importance"
    if "answer" in keys:
        return "interview"
    if "insights" in keys:
        return "insights"
    if "questions" in keys:
        return "questions"
    if "currently" in keys:
        return "currently"
    if keys == {"summary"}:
        return "relationship"
    return "generic"


def _int_paths(obj, path=()):
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _int_paths(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _int_paths(v, path + (i,))
    elif isinstance(obj, int) and not isinstance(obj, bool):
        out.append(path)
    return out


def _set_path(obj, path, val):
    cur = obj
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = val


def render_json(c, obj, kind):
    rng = c.rng
    if kind == "probe":
        return json.dumps(obj)
    half = 0.5 if c.retry else 1.0
    s = c.schema if isinstance(c.schema, dict) else {}
    req = s.get("required") or []
    if isinstance(obj, dict) and len(req) >= 2 and rng.random() < 0.03 * half:
        k = rng.choice(req)
        obj.pop(k, None)
    if rng.random() < 0.04 * half:
        paths = _int_paths(obj)
        if paths:
            p = rng.choice(paths)
            try:
                cur = obj
                for q in p:
                    cur = cur[q]
                _set_path(obj, p, str(cur))
            except Exception:
                pass
    if rng.random() < 0.30:
        txt = json.dumps(obj, ensure_ascii=False, indent=2)
    else:
        txt = json.dumps(obj, ensure_ascii=False)
    if rng.random() < 0.06 * half:
        txt = "```json\n" + txt + "\n```"
    if rng.random() < 0.04 * half:
        txt = rng.choice(["Here is the JSON:", "Sure! Here's my answer:", "Here you go:"]) + "\n" + txt
    limit = int(c.max_tokens * 4)
    if limit > 0 and len(txt) > limit:
        txt = txt[:limit]
    return txt


def _respond(body, seed):
    c = build_ctx(body, seed)
    kind = classify(c)
    props = _props(c)
    if kind == "plain_turn":
        txt = do_plain_turn(c)
        limit = int(c.max_tokens * 4)
        return txt[:limit] if limit > 0 else txt
    if kind == "plain":
        S = c.me
        st = status_first_person(S)
        return (st + ".") if st else "Hello! I'm doing well, thank you."
    if kind == "probe":
        return render_json(c, {"ok": True}, kind)
    fn = {"group_turn": lambda: do_group_turn(c, props),
          "react": lambda: do_react(c, props),
          "group_summary": lambda: do_summary(c, props, group=True),
          "summary": lambda: do_summary(c, props, group=False),
          "daily_plan": lambda: do_daily_plan(c, props),
          "decompose": lambda: do_decompose(c, props),
          "memo": lambda: do_memo(c, props),
          "batch": lambda: do_batch(c, props),
          "importance": lambda: do_importance(c, props),
          "interview": lambda: do_interview(c, props),
          "insights": lambda: do_insights(c, props),
          "questions": lambda: do_questions(c, props),
          "currently": lambda: do_currently(c, props),
          "relationship": lambda: do_relationship(c, props),
          "generic": lambda: do_generic(c, props)}.get(kind)
    obj = fn() if fn else do_generic(c, props)
    return render_json(c, obj, kind)


def _fallback(body, seed):
    try:
        rf = (body or {}).get("response_format") if isinstance(body, dict) else None
        if rf:
            c = Ctx()
            c.schema = (rf.get("json_schema") or {}).get("schema") or {}
            c.me = Person("")
            c.now_min = 720
            c.now_date = datetime.date(2026, 1, 1)
            c.places = []
            v = _gen_value(c, c.schema, c.schema, _make_rng(body, seed))
            return json.dumps(v if isinstance(v, dict) else {})
    except Exception:
        pass
    try:
        txt = json.dumps(body, default=str)
        if "[end]" in txt or "[continue]" in txt:
            return "Nice to see you!\n[end]"
    except Exception:
        pass
    return "Sorry, could you say that again?"


def respond(body, seed=0):
    try:
        out = _respond(body, seed)
        if not isinstance(out, str) or not out.strip():
            return _fallback(body, seed)
        return out
    except Exception:
        try:
            return _fallback(body, seed)
        except Exception:
            return "{}"
