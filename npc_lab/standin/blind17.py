"""blind17 -- a blind, deterministic stand-in for a mid-size local chat model.

It plays a 7-9B instruction-tuned chat model (Llama-3.1-8B-Instruct / Qwen2.5-7B
class, temperature about 0.7) answering the requests of a game's NPC "brain".
It was written from captured request bodies only.  Entry point:

    respond(body: dict, seed: int) -> str

It returns the assistant message content: JSON text when the request carries a
``response_format`` JSON schema, otherwise plain text in the form the prompt asks
for (for dialogue: the words, then a tag line such as ``[end]``/``[continue]``).

DECLARED RULES AND RATES (fixed before the stand-in was run on any request)
===========================================================================
All dice are drawn from a SHA-256 digest of (seed, schema name, messages, a key
naming the decision), never from ``hash()`` or set order.

How it reads a prompt (by shape, not by headings)
-------------------------------------------------
R0.1 "Self" is the person the system message says it plays ("inner mind of X",
     "You are X"), else the first "Name: X", else the most mentioned person.
R0.2 People are capitalised two/three-word names taken from schema enums
     (speaker/name fields), "Name:" lines and names followed by a verb or a
     possessive; place names (parts of "Town:Building:room" strings) and
     weekday/month words are excluded.
R0.3 "Now" is the date/time in a sentence that opens with "It is"/"Today is"/
     "Now"; else the entry marked "(today" in a date list; else the latest
     bracketed timestamp.
R0.4 An EVENT is a sentence (or clause) in which a person intends to do
     something (would like to / wants to / hopes to / is planning / plans to /
     means to / intends to / is going to / will / 'll / is hosting, holding,
     running, organising, throwing, putting on, having, giving, leading /
     fancies / let's / anyone or everyone is welcome / come along / join us /
     invites) AND which names a day or a time (weekday, date, today, tomorrow,
     tonight, "this afternoon", clock times in any style, "half past four",
     noon, "after work", "at sundown" ...).  It is NOT an event when it is a
     routine (every, each day, daily, usually, always, weekdays, plural
     weekdays), in the past (yesterday, last week, ago, date before the anchor
     date), or a non-joinable chore (work shift, sleeping, waking up).
     The host is the person named right before the intent words ("I"/"we" in a
     quoted line = the speaker); the place is matched by words against the
     places the prompt lists (enum first); relative days are resolved against
     the timestamp of the line they sit in.
R0.5 Unclear times: "morning" 10:00, "lunchtime" 12:30, "afternoon" 14:00 or
     15:00 (p = 0.5 each), "teatime" 16:00, "after work" = end of the person's
     working hours (else 17:30), "evening" 19:00, "tonight" 20:00, "sundown/
     dusk" 19:30.  Unstated length: 60 minutes.  When one event is told with
     different times in the same prompt, the model uses the one in the most
     explicit line about its own news/plans, else the most recent line.
     A bare hour without am/pm ("at 4", "at nine") reads as pm for 1-7 and
     as morning for 8-11 unless the sentence says evening/tonight/night.
     Schedule rows ("15:00-16:00 activity") are read as the plan, not as news.
R0.6 A plan slot is a "real commitment" when its activity names a person,
     "calling on", "meeting", "appointment", "going to", "hosting", "visit"
     or an event; work, meals, chores, relaxing and sleeping are ordinary.

Conversation turns (plain-text turn, and the JSON group turn)
-------------------------------------------------------------
T1 News the prompt says is on the speaker's mind (an event it knows of, flagged
   with words like news / tell / pass on / on their mind / keen to share) that
   has not come up in the conversation yet: brought up in this turn with
   p = 0.75 when the speaker hosts the event, 0.60 when it is someone else's;
   0.15 when the event is already over.
T2 An upcoming event only present in memories (not flagged as news):
   mentioned with p = 0.20 when host, 0.10 otherwise.
T3 When it mentions an event: says the day p = 0.90, a clock time p = 0.75
   (else a vague part of the day), the place p = 0.85.
T4 A host telling of its own event adds an explicit invitation p = 0.70.
T5 Invitation heard from the event's host (or with "would you like / come
   along / join"): accepts p = 0.70 when its plan is free or ordinary at that
   time, 0.55 when the plan shows work then, 0.20 when the plan shows a real
   commitment then (a decline names the clash with p = 0.80, and proposes
   another time p = 0.30).
T6 News of someone else's event passed on by a non-host: says it means to go
   p = 0.50 (0.40 if work then, 0.15 if a real commitment then), a neutral
   thanks p = 0.35, not interested otherwise.
T7 The host hearing its own event told back: confirms as host p = 0.60,
   confusedly "accepts" its own event p = 0.10, otherwise ignores it.
T8 Partner's last line is a goodbye: says goodbye and ends p = 0.85.
T9 Prompt says the speaker has to go / this is its last line: goodbye and end
   p = 0.92 (squeezing in untold news with half the T1 rate).
T10 Otherwise a small-talk line; ends the conversation with
    p = min(0.7, 0.08 * lines so far + 0.05).
T11 Group turn: addressed to "everyone" p = 0.70 when announcing news, else
    to the last speaker (if a listed name).

Talk decision and gists (conversation_summary / group_summary)
--------------------------------------------------------------
S1 They stop to talk p = 0.85 when someone has news on their mind, 0.60 when
   one knows the other (named in their own section), 0.40 otherwise.
S2 The gist (2..max lines) is produced by the turn rules T1-T10, speakers in
   the order the prompt gives; memos then follow M1-M8 from those lines.

Memos (conversation_memo, memos/first/second of the summaries)
--------------------------------------------------------------
M1 It accepted an invitation or said it means to go: plan item p = 0.80
   (0.50 if its plan already shows that event).
M2 It only heard of an event (no word of going): plan item p = 0.15.
M3 It declined: plan item p = 0.03.
M4 It is the host and its event came up: plan item ("hosting") p = 0.35.
M5 No event in the lines: spurious plan item p = 0.03.
M6 Plan item time = the event's (R0.5); minutes = its length or 60; place =
   the matching offered place p = 0.90, else "".  Past events: no plan item.
M7 Importance: small talk 1-3, news of an event 4-6, accepted/host 5-7.
M8 Summary names the event's day p = 0.90, time p = 0.80, place p = 0.85.

Other requests
--------------
D1 daily_plan: wake-up hour and work hours/place from the lifestyle sentence;
   meals breakfast/lunch 12:00/dinner 18:30; on Saturday/Sunday keeps the work
   block p = 0.60.  D2 an event today it hosts is blocked in p = 0.92; one it
   accepted / means to go to p = 0.75; one it only heard of p = 0.30; an event
   already past is (wrongly) put in today p = 0.05.  D3 when the prompt lists
   where untold people will be, adds a "telling people" block there p = 0.50.
I1 interview "do you know X": yes with a remembered fact when memories or the
   identity name X; otherwise says it doesn't really know X p = 0.80, or gives a
   vague "I think I've seen them around" p = 0.20.  I2 a question about an
   event: if a remembered event shares its words, describes it (day 0.90, time
   0.75, place 0.85) and whether it means to go; else says it hasn't heard.
I3 other questions: answers from the memory with most shared words.
C1 revise_currently: keeps the old status; adds an upcoming own event p = 0.90,
   an accepted one p = 0.75, one only heard of p = 0.50; a past event is kept
   (stale) p = 0.40; forgets to add anything p = 0.15.
K1 react: untold news for the person seen: talk 0.70 / wait 0.15 / continue
   0.15; knows them, no news: talk 0.25 / wait 0.05 / continue 0.65 / react
   0.05; a stranger: talk 0.15 / continue 0.80 / react 0.05.
P1 importance: routine (waking, meals, sleeping, busy at, relaxing) 1-3; a chat
   2-4; an event (news or own) 5-7, own event +1; jitter +-1 p = 0.3.
Q1 reflection_questions: up to 3 questions about the most mentioned person and
   event; Q2 insights: 1-3 per question, evidence = statements sharing words.
L1 relationship: warm/neutral from the number of memories and chats about the
   other; mentions an event they share p = 0.5.
U1 decompose: ceil(minutes/15) steps clamped to the schema's limits, durations
   5-15 summing as close as possible; objects from the offered list.
G1 unknown schema: a plausible schema-valid object built from the schema.

Malformed output (declared rates; the caller's fallbacks should catch them)
--------------------------------------------------------------------------
F1 JSON answers, 5 % in all: truncated JSON 1.5 %, prose or a code fence
   around the JSON 1.5 %, a required field missing 1.0 %, a value of the
   wrong type/shape (number as string, date not in the offered form) 1.0 %.
F2 Plain-text turns, 5 % in all: the speaker's name in front 2 %, no tag line
   1.5 %, words wrapped in quotes 1.5 %.
F3 The connectivity probe (temperature 0, "Are you there?") is never malformed.

Fixes made after the first run on the captured requests (no rate was changed)
----------------------------------------------------------------------------
- reader: people who speak a quoted line ("Name: \"...\"") count as people, and
  one verb-followed mention suffices; "X: Y" prose was wrongly taken as a place
  string (this had hidden every other person's name); "HH:MM" is not a place.
- reader: "X will be ... today" with nothing to do is not an event; a reply
  that accepts/declines, a step-by-step plan record ("(15 min)") and "asking
  people to come along" are not events; the day/time is read after the intent
  words first; the activity stops at a place or part-of-day phrase; the longest
  wording of a merged event is used for its activity.
- "has to go" detection no longer fires on the generic instruction text.
- wording/format: first-person "I" kept upper case, grammar of relayed news in
  memos, a host's reply about its own past event, related objects in
  decompose steps, duplicate insights removed, relationship with several
  people, a fallback self name when none can be found.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import random
import re

# ---------------------------------------------------------------------------
# dice
# ---------------------------------------------------------------------------


class _Dice:
    """Independent, keyed, process-stable randomness."""

    def __init__(self, base: str):
        self.base = hashlib.sha256(base.encode("utf-8", "replace")).hexdigest()

    def rng(self, key: str) -> random.Random:
        d = hashlib.sha256((self.base + "|" + key).encode("utf-8", "replace")).digest()
        return random.Random(int.from_bytes(d[:8], "big"))

    def u(self, key: str) -> float:
        return self.rng(key).random()

    def p(self, key: str, prob: float) -> bool:
        return self.u(key) < prob

    def choice(self, key: str, seq):
        seq = list(seq)
        if not seq:
            return None
        return seq[self.rng(key).randrange(len(seq))]

    def randint(self, key: str, a: int, b: int) -> int:
        return self.rng(key).randint(a, b)


# ---------------------------------------------------------------------------
# words, dates, times
# ---------------------------------------------------------------------------

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"]
_MON3 = {m[:3]: i + 1 for i, m in enumerate(_MONTHS)}
_NUMW = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
         "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_STOP = set("""a an the and or but of to in on at by for with from into onto about as is are was were be
been being it its this that these those there their they them he she his her him we us our you your i me my
who whom which what when where how why not no yes if then than so too very just also all any anyone everyone
people some can could would should will shall may might must do does did done have has had having out up down
over under again still more most such own same other others each every like want wants hope hopes planning plan
plans mean means going go goes told tell heard hear said say news mind while day days today tomorrow tonight
morning afternoon evening pm am""".split())

_DAYPART = r"(?:morning|afternoon|evening|lunch ?time|teatime|tea time|tonight|night|noon|midday|midnight|dusk|dawn|sundown|sunset|sunrise)"

_WEEKDAY_RE = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_MONTH_RE = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"


def _hm(mins):
    if mins is None:
        return ""
    mins = int(mins) % (24 * 60)
    return "%02d:%02d" % (mins // 60, mins % 60)


def _clock_words(mins):
    """16:00 -> '4 pm', 16:30 -> '4:30 pm'."""
    if mins is None:
        return ""
    mins = int(mins) % (24 * 60)
    h, m = divmod(mins, 60)
    if h == 12 and m == 0:
        return "noon"
    suf = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return ("%d %s" % (h12, suf)) if m == 0 else ("%d:%02d %s" % (h12, m, suf))


def _words(s):
    return re.findall(r"[a-z][a-z']+", (s or "").lower())


def _content(s, n=8):
    out = []
    for w in _words(s):
        w = w.strip("'")
        if len(w) < 4 or w in _STOP or w in _WEEKDAYS or w in _MONTHS:
            continue
        if w not in out:
            out.append(w)
        if len(out) >= n:
            break
    return out


def _overlap(a, b):
    a, b = list(a), list(b)
    if not a or not b:
        return 0.0
    hit = sum(1 for w in a if w in b)
    return hit / float(min(len(a), len(b)))


_CLOCK = re.compile(
    r"(?<![\d:])(\d{1,2})(?::(\d{2})|\.(\d{2}))?\s*(a\.?m\.?|p\.?m\.?|o'?clock|h\b)?(?![\d:])", re.I)


def _to_min(h, m, suf, default_pm_small=True):
    h = int(h)
    m = int(m or 0)
    if h > 24 or m > 59:
        return None
    suf = (suf or "").lower().replace(".", "")
    if suf.startswith("p") and h < 12:
        h += 12
    elif suf.startswith("a") and h == 12:
        h = 0
    elif not suf and default_pm_small and 1 <= h <= 7:
        h += 12
    if h == 24:
        h = 0
    return h * 60 + m


def _word_hour(w):
    w = w.lower()
    if w.isdigit():
        return int(w)
    return _NUMW.get(w)


_TIME_TOKEN = (r"(?:\d{1,2}(?::\d{2}|\.\d{2})?\s*(?:a\.?m\.?|p\.?m\.?|o'?clock)?|noon|midday|midnight|"
               r"(?:half|quarter) (?:past|to) (?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)|"
               r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?: o'?clock)?)")


def _parse_time_token(tok, suffix_hint=None):
    t = tok.strip().lower()
    if t in ("noon", "midday"):
        return 12 * 60
    if t == "midnight":
        return 0
    m = re.match(r"(half|quarter) (past|to) (\w+)", t)
    if m:
        h = _word_hour(m.group(3))
        if h is None:
            return None
        base = _to_min(h, 0, suffix_hint)
        if base is None:
            return None
        if m.group(1) == "half":
            return base + 30
        return base + 15 if m.group(2) == "past" else base - 15
    m = re.match(r"(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?: o'?clock)?$", t)
    if m:
        return _to_min(_NUMW[m.group(1)], 0, suffix_hint)
    m = re.match(r"(\d{1,2})(?::(\d{2})|\.(\d{2}))?\s*(a\.?m\.?|p\.?m\.?|o'?clock)?$", t)
    if m:
        h = int(m.group(1))
        mm = m.group(2) or m.group(3)
        suf = m.group(4) or ""
        if suf.startswith("o"):
            suf = ""
        if not suf and suffix_hint:
            suf = suffix_hint
        if not suf and mm is not None and h >= 0:
            # 24-hour clock style like 16:00 or 09:30
            if h >= 13 or h == 0 or len(m.group(1)) == 2:
                return _to_min(h, mm, "", default_pm_small=False)
        return _to_min(h, mm, suf)
    return None


def _suffix_of(tok):
    m = re.search(r"(a\.?m\.?|p\.?m\.?)", tok, re.I)
    return m.group(1) if m else None


def _parse_clock(s, work_end=None):
    """Return (start_min, end_min, vague_label) found in s."""
    low = s.lower()
    # ranges
    rng_pat = re.compile(
        r"(?:from|between)?\s*\b(" + _TIME_TOKEN + r")\s*(?:-|–|to|until|till|and)\s*(" + _TIME_TOKEN + r")", re.I)
    for m in rng_pat.finditer(s):
        a, b = m.group(1), m.group(2)
        pre = s[max(0, m.start() - 6):m.start()].lower()
        # avoid dates such as 2026-04-11 or "April 11"
        if re.search(r"\d-$", pre) or re.search(_MONTH_RE + r"\s*$", pre, re.I):
            continue
        if not re.search(r"[a-z:.]", a + b, re.I) and not re.search(r"\b(from|between)\s*$", s[:m.start() + 8].lower()[-14:] + " "):
            # bare "4-5" without any hint: only accept after from/between/at
            if not re.search(r"\b(from|between|at)\s+$", s[max(0, m.start() - 9):m.start() + 1].lower() + " "):
                continue
        sb = _suffix_of(b)
        sa = _suffix_of(a) or sb
        t1 = _parse_time_token(a, sa)
        t2 = _parse_time_token(b, sb)
        if t1 is not None and t2 is not None:
            if t2 <= t1 and t2 + 12 * 60 > t1 and not _suffix_of(b):
                t2 += 12 * 60
            if 0 < (t2 - t1) % (24 * 60) <= 16 * 60:
                return t1, t2, None
    # single explicit clock
    for m in re.finditer(r"\b(?:at|from|by|around|about|for|starting|starts|begins|@)?\s*(" + _TIME_TOKEN + r")\b", s, re.I):
        tok = m.group(1)
        pre = s[max(0, m.start(1) - 12):m.start(1)]
        if re.search(r"\d[-/]$", pre) or re.search(_MONTH_RE + r"\.?\s*$", pre, re.I):
            continue
        if re.match(r"\d{1,2}$", tok.strip()):
            # a bare number is a time only right after at/from/around
            lead = s[max(0, m.start(1) - 8):m.start(1)].lower()
            if not re.search(r"\b(at|from|around|about|by)\s+$", lead):
                continue
            post = s[m.end(1):m.end(1) + 10].lower()
            if re.match(r"\s*(?:people|person|minutes|hours|days|years|of|th|st|nd|rd)", post):
                continue
        if re.match(r"(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)$", tok.strip(), re.I):
            lead = s[max(0, m.start(1) - 8):m.start(1)].lower()
            if not re.search(r"\b(at|from|around|about|by)\s+$", lead):
                continue
        if re.match(r"\d{1,2}(:\d{2})?$", tok.strip()) and ":" not in tok and not re.search(r"\b(at|from|around|about|by)\s+$", s[max(0, m.start(1) - 8):m.start(1)].lower()):
            continue
        t = _parse_time_token(tok)
        if t is not None:
            return t, None, None
    # vague
    checks = [
        (r"\bafter work\b", "after work"), (r"\bafter lunch\b", "after lunch"),
        (r"\bafter (?:dinner|supper|tea)\b", "after dinner"), (r"\bbefore lunch\b", "before lunch"),
        (r"\blunch ?time\b", "lunchtime"), (r"\btea ?time\b", "teatime"),
        (r"\b(?:sundown|sunset|dusk)\b", "sundown"), (r"\b(?:dawn|sunrise|first light)\b", "dawn"),
        (r"\btonight\b", "tonight"), (r"\bevening\b", "evening"), (r"\bafternoon\b", "afternoon"),
        (r"\bmorning\b", "morning"), (r"\bnight\b", "tonight")]
    for pat, lab in checks:
        if re.search(pat, low):
            return None, None, lab
    return None, None, None


def _vague_to_min(label, dice, key, work_end=None):
    if label is None:
        return None
    if label == "afternoon":
        return 14 * 60 if dice.u(key + ":aft") < 0.5 else 15 * 60
    table = {"morning": 600, "lunchtime": 750, "teatime": 960, "evening": 1140, "tonight": 1200,
             "sundown": 1170, "dawn": 360, "after lunch": 810, "after dinner": 1200, "before lunch": 660}
    if label == "after work":
        return work_end if work_end is not None else 1050
    return table.get(label)


_DATE_WD_MD = re.compile(r"\b(" + _WEEKDAY_RE + r")?,?\s*(" + _MONTH_RE + r")\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s*(\d{4}))?", re.I)
_DATE_D_M = re.compile(r"\b(" + _WEEKDAY_RE + r")?,?\s*(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + _MONTH_RE + r")\b(?:,?\s*(\d{4}))?", re.I)
_DATE_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


def _mk_date(y, mo, d):
    try:
        return _dt.date(int(y), int(mo), int(d))
    except Exception:
        return None


def _month_num(s):
    return _MON3.get(s.lower()[:3])


def _parse_day(s, anchor, year=None):
    """Return a date named in s (absolute or relative to anchor), or None."""
    if anchor is None:
        return None
    y = year or anchor.year
    low = s.lower()
    m = _DATE_ISO.search(s)
    if m:
        d = _mk_date(m.group(1), m.group(2), m.group(3))
        if d:
            return d
    m = _DATE_WD_MD.search(s)
    if m and _month_num(m.group(2)):
        d = _mk_date(m.group(4) or y, _month_num(m.group(2)), m.group(3))
        if d:
            return d
    m = _DATE_D_M.search(s)
    if m and _month_num(m.group(3)):
        d = _mk_date(m.group(4) or y, _month_num(m.group(3)), m.group(2))
        if d:
            return d
    if re.search(r"\bday after tomorrow\b", low):
        return anchor + _dt.timedelta(days=2)
    if re.search(r"\btomorrow\b", low):
        return anchor + _dt.timedelta(days=1)
    m = re.search(r"\bin (\w+) days?\b", low)
    if m:
        n = _word_hour(m.group(1))
        if n:
            return anchor + _dt.timedelta(days=n)
    m = re.search(r"\b(next|this|coming|on)?\s*(" + _WEEKDAY_RE + r")\b(?!s)", low)
    if m:
        wd = _WEEKDAYS.index(m.group(2))
        delta = (wd - anchor.weekday()) % 7
        if m.group(1) == "next" and delta == 0:
            delta = 7
        return anchor + _dt.timedelta(days=delta)
    if re.search(r"\b(today|tonight|this (?:morning|afternoon|evening)|later today|later on|this lunch ?time)\b", low):
        return anchor
    return None


def _parse_stamp(s, year):
    """'Friday April 10, 07:04' -> (date, minutes)."""
    m = _DATE_WD_MD.search(s)
    d = None
    t = None
    if m and _month_num(m.group(2)):
        d = _mk_date(m.group(4) or year, _month_num(m.group(2)), m.group(3))
        rest = s[m.end():m.end() + 12]
        mt = re.search(r"(\d{1,2}):(\d{2})", rest)
        if mt:
            t = int(mt.group(1)) * 60 + int(mt.group(2))
    else:
        m2 = _DATE_ISO.search(s)
        if m2:
            d = _mk_date(m2.group(1), m2.group(2), m2.group(3))
            mt = re.search(r"(\d{1,2}):(\d{2})", s[m2.end():m2.end() + 10])
            if mt:
                t = int(mt.group(1)) * 60 + int(mt.group(2))
    return d, t


def _day_phrase(d, today, dice=None, key=""):
    if d is None:
        return ""
    if today is not None:
        delta = (d - today).days
        if delta == 0:
            return "today"
        if delta == 1:
            return "tomorrow"
        if 1 < delta < 7:
            return "on " + _WEEKDAYS[d.weekday()].capitalize()
    return "on %s %s %d" % (_WEEKDAYS[d.weekday()].capitalize(), _MONTHS[d.month - 1].capitalize(), d.day)


def _part_of_day(mins):
    if mins is None:
        return ""
    if mins < 12 * 60:
        return "in the morning"
    if mins < 17 * 60:
        return "in the afternoon"
    return "in the evening"


# ---------------------------------------------------------------------------
# names and places
# ---------------------------------------------------------------------------

_NAME_PIECE = r"[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?"
_NAME_RE = re.compile(r"\b(" + _NAME_PIECE + r"(?: " + _NAME_PIECE + r"){1,2})\b")
_PERSON_VERB = re.compile(
    r"^(?:'s\b|\s+(?:is|was|has|had|told|tells|said|says|heard|would|wants|will|hopes|plans|means|knows|keeps|runs|"
    r"works|chatted|visits|bakes|teaches|sees|asks|started|left|does|did|can|could|likes|learned|agreed|invited|"
    r"buys|mends|lives|walks|gave|got|went|cannot|can't|isn't|wasn't|remembers|planned|passed|passes|sees|noticed|"
    r"invites|declined|accepted|asked|replied|answered|thinks|feels)\b)")
_BAD_FIRST = set("""It Have Sounds The This That What Who When Where How Why Name Age Places Answer Someone Nobody Lines
News Currently Identity Lifestyle Innate Today Then Each Under Questions Step Prefer Write Rewrite Plan Break Make
Good Fine Hi Hello Sorry Thanks Thank Yes No Oh Well Right Memory Objects From Text Give Keep Say Choose Should Things
Ordinary Someone Saturday Sunday Monday Tuesday Wednesday Thursday Friday January February March April May June July
August September October November December Village Post Plough Inn Green St""".split())


def _places_from(body, text):
    places = []
    sch = _schema(body)

    def walk(s, depth=0):
        if depth > 8 or not isinstance(s, dict):
            return
        for k, v in (s.get("properties") or {}).items():
            if isinstance(v, dict) and isinstance(v.get("enum"), list):
                vals = [x for x in v["enum"] if isinstance(x, str) and x.count(":") >= 1]
                if vals and ("place" in k.lower() or "address" in k.lower() or "location" in k.lower() or all(x.count(":") >= 2 for x in vals)):
                    for x in vals:
                        if x not in places:
                            places.append(x)
            walk(v, depth + 1)
        for v in (s.get("$defs") or {}).values():
            walk(v, depth + 1)
        if isinstance(s.get("items"), dict):
            walk(s["items"], depth + 1)
    walk(sch)
    for m in re.finditer(r"\b([A-Z][\w' ]{1,40}:[A-Z][\w' ]{1,40}(?::[\w' ]{1,40})?)", text):
        p = m.group(1).strip()
        if p not in places and not re.search(r"\b(?:Name|Age|Identity|Lifestyle|Currently)\b", p) and re.search(r"[a-z]", p):
            places.append(p)
    return places


def _place_parts(p):
    parts = [x.strip() for x in p.split(":")]
    if len(parts) >= 3:
        return parts[1], parts[2]
    if len(parts) == 2:
        return parts[0], parts[1]
    return parts[0], ""


def _place_short(p):
    b, r = _place_parts(p)
    return b or r or p


def _place_words(p):
    b, r = _place_parts(p)
    return [w for w in _words(b + " " + r) if len(w) >= 3]


def _at_place(p):
    b = _place_short(p)
    if "'s" in b or b.startswith("St ") or b.lower().startswith("the "):
        return "at " + b
    if any(w in b.lower() for w in ("green", "square", "common", "field", "park")):
        return "on the " + b
    return "at the " + b


def _is_home(p):
    b, r = _place_parts(p)
    s = (b + " " + r).lower()
    return any(w in s for w in ("bedroom", "house", "cottage", "flat", "home", "rooms", "apartment", "farmhouse"))


def _match_place(sentence, places, person_words=()):
    """Best place (from places) named in sentence, or ''."""
    if not sentence or not places:
        return ""
    low = sentence.lower()
    best, best_s, best_pos = "", 0, 10 ** 6
    for p in places:
        b, r = _place_parts(p)
        score = 0
        pos = 10 ** 6
        if b and b.lower() in low:
            score = 3
            pos = low.find(b.lower())
        else:
            for w in _words(b):
                if len(w) < 4 or w in ("house", "cottage", "flat", "rooms", "room", "bedroom", "home", "the"):
                    continue
                if w in person_words:
                    # a surname: counts only for "<name>'s house/place/home"
                    if re.search(r"\b" + re.escape(w) + r"(?:'s)?\s+(?:house|home|place|cottage|flat|rooms)", low):
                        score = max(score, 2)
                        pos = min(pos, low.find(w))
                    continue
                i = re.search(r"\b" + re.escape(w) + r"\b", low)
                if i:
                    score = max(score, 1)
                    pos = min(pos, i.start())
        if score > best_s or (score == best_s and score > 0 and pos < best_pos):
            best, best_s, best_pos = p, score, pos
    return best if best_s > 0 else ""


# ---------------------------------------------------------------------------
# schema helpers
# ---------------------------------------------------------------------------


def _schema(body):
    try:
        rf = body.get("response_format") or {}
        js = rf.get("json_schema") or {}
        s = js.get("schema")
        if isinstance(s, dict):
            return s
        if isinstance(rf.get("schema"), dict):
            return rf["schema"]
    except Exception:
        pass
    return None


def _schema_name(body):
    try:
        rf = body.get("response_format") or {}
        js = rf.get("json_schema") or {}
        return str(js.get("name") or rf.get("type") or "")
    except Exception:
        return ""


def _resolve(s, root):
    seen = 0
    while isinstance(s, dict) and "$ref" in s and seen < 10:
        ref = s["$ref"]
        seen += 1
        if isinstance(ref, str) and ref.startswith("#/"):
            cur = root
            for part in ref[2:].split("/"):
                cur = cur.get(part, {}) if isinstance(cur, dict) else {}
            s = cur
        else:
            break
    return s if isinstance(s, dict) else {}


def _prop(root, *path):
    """Schema of a nested property: _prop(schema, 'first', 'plan_place')."""
    s = _resolve(root, root)
    for k in path:
        if k == "[]":
            s = _resolve(s.get("items") or {}, root)
            continue
        props = s.get("properties") or {}
        s = props.get(k) or {}
        s = _resolve(s, root)
        if "anyOf" in s:
            for alt in s["anyOf"]:
                alt = _resolve(alt, root)
                if alt.get("type") != "null":
                    s = alt
                    break
    return s


def _enum_of(root, *path):
    s = _prop(root, *path) if root else {}
    e = s.get("enum") if isinstance(s, dict) else None
    return list(e) if isinstance(e, list) else None


def _fit(value, s, root, dice, key="fit"):
    """Coerce value into schema s (a constrained decoder would not let it out otherwise)."""
    s = _resolve(s, root)
    if "anyOf" in s:
        if value is None and any(_resolve(a, root).get("type") == "null" for a in s["anyOf"]):
            return None
        for a in s["anyOf"]:
            a = _resolve(a, root)
            if a.get("type") != "null":
                return _fit(value, a, root, dice, key)
    t = s.get("type")
    if "enum" in s:
        enum = s["enum"]
        if value in enum:
            return value
        if isinstance(value, str):
            for e in enum:
                if isinstance(e, str) and e.lower() == value.lower():
                    return e
        if "" in enum:
            return ""
        return enum[0] if enum else value
    if t == "object" or "properties" in s:
        props = s.get("properties") or {}
        out = {}
        src = value if isinstance(value, dict) else {}
        for k, ps in props.items():
            if k in src:
                out[k] = _fit(src[k], ps, root, dice, key + "." + k)
            elif k in (s.get("required") or []):
                out[k] = _build(ps, root, dice, key + "." + k)
        return out
    if t == "array":
        items = s.get("items") or {}
        lst = value if isinstance(value, list) else []
        lst = [_fit(x, items, root, dice, key + "[%d]" % i) for i, x in enumerate(lst)]
        mx = s.get("maxItems")
        mn = s.get("minItems", 0)
        if mx is not None:
            lst = lst[:mx]
        i = 0
        while len(lst) < mn and i < 50:
            lst.append(_build(items, root, dice, key + "+%d" % i) if not lst else lst[-1])
            i += 1
        return lst
    if t == "integer":
        try:
            v = int(round(float(value)))
        except Exception:
            v = int(s.get("minimum", 0))
        if "minimum" in s:
            v = max(v, int(s["minimum"]))
        if "maximum" in s:
            v = min(v, int(s["maximum"]))
        return v
    if t == "number":
        try:
            v = float(value)
        except Exception:
            v = float(s.get("minimum", 0))
        return v
    if t == "boolean":
        return bool(value)
    if t == "string":
        v = value if isinstance(value, str) else ("" if value is None else str(value))
        pat = s.get("pattern")
        if pat:
            try:
                if not re.search(pat, v):
                    v = "" if re.search(pat, "") else _pattern_default(pat)
            except re.error:
                pass
        mx = s.get("maxLength")
        if mx is not None and len(v) > mx:
            cut = v[:mx]
            if " " in cut[int(mx * 0.6):]:
                cut = cut[:cut.rfind(" ")].rstrip(",;: ")
            v = cut
        mn = s.get("minLength", 0)
        if len(v) < mn:
            v = (v + " ..." * mn)[:max(mn, len(v))] if v else "ok"[:max(mn, 2)]
        return v
    return value


def _pattern_default(pat):
    if "[0-9]{4}" in pat:
        return "2026-01-01"
    if ":" in pat:
        return "12:00"
    return ""


def _build(s, root, dice, key="b"):
    """A plausible schema-valid value built from a schema alone."""
    s = _resolve(s, root)
    if "anyOf" in s:
        for a in s["anyOf"]:
            a = _resolve(a, root)
            if a.get("type") != "null":
                return _build(a, root, dice, key)
        return None
    if "default" in s and s.get("type") != "object":
        return s["default"]
    if "enum" in s and s["enum"]:
        vals = [v for v in s["enum"] if v != ""] or s["enum"]
        return dice.choice(key, vals)
    t = s.get("type")
    if t == "object" or "properties" in s:
        return {k: _build(v, root, dice, key + "." + k) for k, v in (s.get("properties") or {}).items()}
    if t == "array":
        n = max(int(s.get("minItems", 1)), 1)
        if s.get("maxItems") is not None:
            n = min(n, int(s["maxItems"]))
        return [_build(s.get("items") or {}, root, dice, key + "[%d]" % i) for i in range(n)]
    if t == "integer":
        lo = int(s.get("minimum", 1))
        hi = int(s.get("maximum", lo + 9))
        return dice.randint(key, lo, max(lo, min(hi, lo + 5)))
    if t == "number":
        return float(s.get("minimum", 0.5))
    if t == "boolean":
        return dice.p(key, 0.7)
    if t == "string":
        if s.get("pattern"):
            return _pattern_default(s["pattern"])
        title = (s.get("title") or key.split(".")[-1]).lower()
        return _fit("I'm not sure, but I think it's fine." if "reason" in title or "answer" in title else "nothing much", s, root, dice)
    return None


# ---------------------------------------------------------------------------
# events
# ---------------------------------------------------------------------------

_INTENT = re.compile(
    r"\b(?:would (?:like|love) to|'d (?:like|love) to|wants? to|hopes? to|"
    r"(?:is|are|am|'s|'m|'re) planning(?: to| on)?|plans? to|planning to|means? to|intends? to|"
    r"(?:is|are|am|'s|'m|'re) going to(?!:)|gonna|will(?! be (?:busy|at work|working|asleep))|[a-z]+'ll|"
    r"(?:is|are|am|'s|'m|'re) (?:hosting|holding|running|organi[sz]ing|throwing|putting on|having|giving|leading|starting|"
    r"opening|doing|getting together|off to|heading)|"
    r"fanc(?:y|ies) (?:a |an |some |going|having|getting|doing|[a-z]+ing)|let'?s|shall we|"
    r"(?:anyone|everyone|all|everybody|anybody)(?: is| are|'s)? (?:welcome|invited)|welcome to (?:join|come)|"
    r"come along|do come|come and|come to|join (?:us|me|her|him|them|in)|invit(?:es|ing|ed)\b|"
    r"(?:there'?s|there is|there will be|there'll be) (?:a|an|going to be)|is set to|is scheduled)\b", re.I)
_WEAK_INTENT = re.compile(r"(?i)(?:anyone|everyone|all|everybody|anybody|welcome|come|do come|join|invit|let'?s|shall we|there)")
_PROGRESSIVE_BASE = {"hosting": "host", "holding": "hold", "running": "run", "organising": "organise",
                     "organizing": "organize", "throwing": "throw", "putting on": "put on", "having": "have",
                     "giving": "give", "leading": "lead", "starting": "start", "opening": "open", "doing": "do",
                     "getting together": "get together", "off to": "go to", "heading": "head"}
_ROUTINE = re.compile(
    r"\b(?:every|each (?:day|morning|evening|night|week|weekday)|daily|usually|always|normally|routinely|"
    r"on weekdays|weekdays|most days|as usual|" + _WEEKDAY_RE + r"s)\b", re.I)
_PAST = re.compile(r"\b(?:yesterday|last (?:night|week|month|year|" + _WEEKDAY_RE + r")|ago|earlier today|"
                   r"took place|was held|went to|had been|used to)\b", re.I)
_NONJOIN = re.compile(r"^(?:be )?(?:at work|work(?:ing)?\b|sleep|go to bed|wake|get up|be busy|be asleep|stay in bed)", re.I)
_INSTR = re.compile(r"YYYY|HH:MM|one of:|\banswer (?:as|with|only)\b|<int|\bschema\b", re.I)

_NEWS_CUE = re.compile(r"\b(?:news|pass(?:es|ing)? on|tell (?:friends|people|others|everyone)|on (?:their|his|her|my) mind|"
                       r"keen to share|spread the word|let people know|has not told|hasn't told|to share)\b", re.I)
_INVITE_CUE = re.compile(r"\b(?:would you like|do you want|fancy (?:coming|joining)|come along|join (?:us|me)|"
                         r"you(?:'re| are) (?:welcome|invited)|do come|hope you can|can you come|will you come|"
                         r"want to come|like to come|you should come|come too|you could come|invite you)\b", re.I)
_ACCEPT = re.compile(r"\b(?:count me in|i'?ll (?:\w+ )?(?:be there|come|go|join|pop|drop|head|try to make it|make it)|"
                     r"i will (?:be there|come|go|join)|i'?d love to|sounds? (?:lovely|great|good|fun|wonderful|grand|perfect)|"
                     r"see you there|wouldn'?t miss|i'?m in\b|i mean to go|i think i'?ll (?:go|come|pop)|"
                     r"i'?ll go along|yes,? please|i'?ll be along|i'?ll see you (?:there|then)|put me down|i'?m coming)", re.I)
_DECLINE = re.compile(r"\b(?:can'?t make it|can'?t come|cannot come|cannot make it|won'?t be able|unable to|"
                      r"not (?:be )?able to|no,? thanks|not for me|not really my thing|afraid (?:not|i can'?t)|"
                      r"i can'?t (?:then|go|do)|i'?ll have to (?:miss|pass|skip)|another time|i'?ll pass)\b", re.I)
_BYE = re.compile(r"\b(?:bye|goodbye|see you(?! there)|good to talk|take care|must (?:go|run|dash)|have to (?:go|run|dash)|"
                  r"got to (?:go|run)|need to (?:go|get going|run)|off i go|i'?d better (?:go|get)|catch you later|"
                  r"talk (?:to you )?later|so long|cheerio)\b", re.I)
_COMMIT = re.compile(r"\b(?:calling on|meeting|meet|appointment|going to|hosting|visit|visiting|party|event|"
                     r"match|class|lesson|service|session|rehearsal|practice|show|quiz|fair|talk|wedding|funeral|"
                     r"dinner with|lunch with|tea with|coffee with)\b", re.I)
_ORDINARY = re.compile(r"\b(?:work|working|busy|breakfast|lunch|dinner|supper|relax|relaxing|sleep|sleeping|"
                       r"waking|getting ready|chores|reading|knitting|tending|baking|teaching|shop|errand|"
                       r"cleaning|resting|home)\b", re.I)

_FIRST_PERSON = {"would like to": "I'd like to", "would love to": "I'd love to", "wants to": "I want to",
                 "want to": "I want to", "hopes to": "I hope to", "hope to": "I hope to", "plans to": "I plan to",
                 "means to": "I mean to", "intends to": "I intend to", "will": "I'll"}


class Event(dict):
    """host, intent, activity, date, start, end, vague, place, place_phrase, sentence, anchor, key."""


def _split_sentences(text):
    parts = re.split(r"(?<=[.!?])[\"”]?\s+(?=[A-Z\"(\[-])|\n+| / ", text)
    return [p.strip() for p in parts if p and p.strip()]


def _sub_clauses(sentence):
    """Relay forms 'X told Y: <event>' -> also look at the part after the last colon."""
    out = [sentence]
    if ": " in sentence:
        tail = sentence.split(": ")[-1]
        if len(tail) > 15:
            out.append(tail)
    return out


def _names_in(s, names):
    found = []
    for n in names:
        for m in re.finditer(r"\b" + re.escape(n) + r"\b", s):
            found.append((m.start(), n))
    return [n for _, n in sorted(found)]


def _first_names(names):
    d = {}
    for n in names:
        f = n.split()[0]
        d.setdefault(f, n)
    return d


def read_event(sentence, anchor_date, names, speaker=None, places=(), year=None, dice=None, work_end=None):
    """Return an Event if the sentence states an event, else None."""
    s = sentence.strip()
    if not s or len(s) < 8 or _INSTR.search(s):
        return None
    s_clean = re.sub(r"\[[^\]]*\]\s*", "", s)
    m = None
    weak = None
    for mm in _INTENT.finditer(s_clean):
        nxt = s_clean[mm.end():mm.end() + 40]
        if re.match(r"\s*:", nxt):
            continue  # a label such as "going to: ..." or "hosting: ..."
        if re.match(r"\s*(?:tell|let|pass on|share|mention|spread|ask)\b", nxt, re.I) and _INTENT.search(s_clean[mm.end():]):
            continue  # "means to tell friends that <event>": the event is the inner clause
        if _WEAK_INTENT.match(mm.group(0)):
            if weak is None:
                weak = mm
            continue
        m = mm
        break
    if m is None:
        m = weak
    if m is None:
        return None
    if _ROUTINE.search(s_clean) or _PAST.search(s_clean):
        return None
    if re.search(r"\(\d+ min\)", s_clean) or _ACCEPT.search(s_clean) or _DECLINE.search(s_clean):
        return None  # a step-by-step plan record, or a reply to an invitation
    if _WEAK_INTENT.match(m.group(0)) and re.search(r"\b(?:to|asking \w+ to|ask \w+ to)\s*$", s_clean[:m.start()]):
        return None  # "asking people to come along": an activity, not an invitation
    after = s_clean[m.start():]
    day = _parse_day(after, anchor_date, year) or _parse_day(s_clean, anchor_date, year)
    t1, t2, vague = _parse_clock(after)
    if t1 is None and vague is None:
        t1, t2, vague = _parse_clock(s_clean)
    if t1 is not None and t1 < 12 * 60 and re.search(r"\b(?:tonight|evening|night)\b", s_clean, re.I) \
            and 5 * 60 <= t1 < 12 * 60 and not re.search(r"\d\s*a\.?m", s_clean, re.I):
        t1 += 12 * 60
        if t2 is not None and t2 < 12 * 60:
            t2 += 12 * 60
    if day is None and t1 is None and vague is None:
        return None
    # host: nearest person name before the intent words
    pre = s_clean[:m.start()]
    host = None
    host_pos = -1
    for n in names:
        for mn in re.finditer(r"\b" + re.escape(n) + r"\b", pre):
            if mn.start() > host_pos:
                host, host_pos = n, mn.start()
    fn = _first_names(names)
    for mw in re.finditer(r"\b([A-Z][a-z]+)(?:'s)?\b", pre):
        if mw.group(1) in fn and mw.start() > host_pos and not pre[mw.end():mw.end() + 1].isalpha():
            nxt_word = pre[mw.end():].split()[:1]
            if fn[mw.group(1)] != host or host is None:
                if not (nxt_word and (mw.group(1) + " " + nxt_word[0]) in names):
                    host, host_pos = fn[mw.group(1)], mw.start()
    fp = None
    for mp_ in re.finditer(r"\b(?:I|we|I'm|we're|I'd|we'd|I'll|we'll|Let's|let's)\b", pre + " " + m.group(0)):
        fp = mp_.start()
    if fp is not None and fp >= max(0, len(pre) - 25) and fp > host_pos and speaker:
        host = speaker
    if host is None:
        nm_all = _names_in(s_clean, names)
        if nm_all:
            host = nm_all[0]
    if host is None:
        m2 = re.search(r"\b(" + _NAME_PIECE + r"(?: " + _NAME_PIECE + r")?)'s\b", s_clean)
        if m2:
            cand = m2.group(1)
            fn = _first_names(names)
            host = cand if cand in names else fn.get(cand.split()[0])
    if host is None:
        host = speaker
    intent = m.group(0).strip()
    act = s_clean[m.end():]
    act = re.split(r",|;| - | — |\(|\bon (?:" + _WEEKDAY_RE + r"|the \d|" + _MONTH_RE + r")|\b(?:tomorrow|today|tonight|this (?:morning|afternoon|evening)|"
                   r"in the (?:morning|afternoon|evening)|next week|from \d|at \d|between \d|at (?:noon|midday|midnight|half|quarter|sundown|dusk|dawn))\b", act, flags=re.I)[0]
    act = re.split(r"\s(?:out\s+)?(?:on|at|in|by|outside|near|behind)\s+(?:the\s+)?(?=[A-Z])", act)[0]
    act = re.sub(r"\s+(?:out\s+)?(?:on|at|in|by|outside)\s+(?:the\s+)?[A-Z][\w']*(?:\s+[A-Z][\w']*)*\s*$", "", act).strip()
    act = act.strip(" .!?\"'")
    if re.match(r"^(?:to|on)\s", act):
        act = re.sub(r"^(?:to|on)\s", "", act)
    mprog = re.match(r"(?i)(?:is|are|am|'s|'m|'re) (hosting|holding|running|organi[sz]ing|throwing|putting on|having|giving|leading|starting|opening|doing|getting together|off to|heading)", m.group(0))
    if mprog and act and not act.lower().startswith(("to ",)):
        act = _PROGRESSIVE_BASE.get(mprog.group(1).lower(), mprog.group(1)) + " " + act
    if len(act) < 4:
        mpp = re.search(r"\b(?:at|on|by|in)\s+((?:the\s+)?[A-Z][\w']*(?:\s+[A-Z][\w']*)*)", s_clean[m.end():])
        if act == "be" and mpp:
            act = "be at " + mpp.group(1)
        elif _WEAK_INTENT.match(m.group(0)):
            act = "get together"
        else:
            return None  # "X will be ... today": nothing anyone intends to do
    if _NONJOIN.search(act):
        return None
    pw = []
    for n in names:
        pw += [w.lower() for w in n.split()]
    place = _match_place(s_clean, places, pw)
    pp = ""
    mp = re.search(r"\b(?:on|at|in|outside|by|near|behind)\s+((?:the\s+)?[A-Z][\w']*(?:\s+[A-Z][\w']*)*)", s_clean)
    if mp and not re.match(r"(?:the\s+)?(?:" + _WEEKDAY_RE + r"|" + _MONTH_RE + r")\b", mp.group(1), re.I):
        pp = mp.group(1)
    ev = Event(host=host, intent=intent, activity=act[:160], date=day, start=t1, end=t2, vague=vague,
               place=place, place_phrase=pp, sentence=s_clean, anchor=anchor_date, key=_content(act, 6))
    if day is None:
        ev["date"] = anchor_date
    return ev


def _event_past(ev, today, now_min):
    d = ev.get("date")
    if d is None or today is None:
        return False
    if d < today:
        return True
    if d == today and now_min is not None:
        end = ev.get("end") or ((ev.get("start") + 60) if ev.get("start") is not None else None)
        if end is not None and end <= now_min:
            return True
    return False


def _same_event(a, b):
    if a is None or b is None:
        return False
    if a.get("host") and b.get("host") and a["host"] != b["host"]:
        return False
    return _overlap(a.get("key") or [], b.get("key") or []) >= 0.5


# ---------------------------------------------------------------------------
# prompt context
# ---------------------------------------------------------------------------


class Ctx:
    pass


def _msg_text(body, role):
    out = []
    for m in body.get("messages") or []:
        if isinstance(m, dict) and m.get("role") == role:
            c = m.get("content")
            if isinstance(c, list):
                c = " ".join(str(x.get("text", "")) if isinstance(x, dict) else str(x) for x in c)
            out.append(str(c or ""))
    return "\n".join(out)


def _find_names(body, system, user):
    names = []
    sch = _schema(body)

    def add(n):
        n = n.strip()
        if n and n.lower() not in ("everyone", "everybody", "all") and n not in names and " " in n:
            names.append(n)

    def walk(s, depth=0):
        if depth > 8 or not isinstance(s, dict):
            return
        for k, v in (s.get("properties") or {}).items():
            if isinstance(v, dict) and isinstance(v.get("enum"), list) and k.lower() in ("speaker", "name", "addressed_to", "person", "who", "to"):
                for x in v["enum"]:
                    if isinstance(x, str) and ":" not in x:
                        add(x)
            walk(v, depth + 1)
        for v in (s.get("$defs") or {}).values():
            walk(v, depth + 1)
        if isinstance(s.get("items"), dict):
            walk(s["items"], depth + 1)
    walk(sch)
    self_name = None
    m = re.search(r"(?:inner mind of|you are|You are|you play|playing)\s+(" + _NAME_PIECE + r"(?: " + _NAME_PIECE + r"){1,2})", system)
    if m and m.group(1).split()[0] not in _BAD_FIRST:
        self_name = m.group(1)
        add(self_name)
    for m in re.finditer(r"(?m)^\s*(?:Name|Character|NPC)\s*:\s*(" + _NAME_PIECE + r"(?: " + _NAME_PIECE + r"){1,2})\s*$", user):
        add(m.group(1))
    for m in re.finditer(r"(?m)^\s*(" + _NAME_PIECE + r"(?: " + _NAME_PIECE + r"){1,2})\s*:\s*[\"“]", user):
        if m.group(1).split()[0] not in _BAD_FIRST:
            add(m.group(1))
    place_words = set()
    for m in re.finditer(r"[A-Z][\w' ]{0,40}:[A-Z][\w' ]{0,40}(?::[\w' ]{1,40})?", user):
        for part in m.group(0).split(":"):
            place_words.add(part.strip())
    counts = {}
    for m in _NAME_RE.finditer(user):
        cand = m.group(1)
        first = cand.split()[0]
        if first in _BAD_FIRST or any(w.lower() in _WEEKDAYS or w.lower() in _MONTHS for w in cand.split()):
            continue
        if cand in place_words or any(cand in pw for pw in place_words):
            continue
        if _PERSON_VERB.match(user[m.end():m.end() + 12]):
            counts[cand] = counts.get(cand, 0) + 1
    for cand in sorted(counts, key=lambda c: (-counts[c], c)):
        if counts[cand] >= 1:
            # drop 3-word candidates that are a name plus a stray word
            if any(cand != n and (cand.startswith(n + " ") or cand.endswith(" " + n)) for n in names):
                continue
            add(cand)
    if self_name is None:
        m = re.search(r"(?m)^\s*Name\s*:\s*(" + _NAME_PIECE + r"(?: " + _NAME_PIECE + r"){1,2})", user)
        if m:
            self_name = m.group(1)
        elif names:
            self_name = names[0]
    return names, self_name


def _find_now(user, body, year):
    for m in re.finditer(r"(?:^|\n|\. )\s*(?:It is|It's|Today is|Now(?: it)? is|The time is|Date:|Time:)\s+([^\n]{0,90})", user):
        d, t = _parse_stamp(m.group(1), year)
        if d:
            return d, t
    m = re.search(r"(\d{4})-(\d{2})-(\d{2})\s*\(today", user)
    if m:
        return _mk_date(m.group(1), m.group(2), m.group(3)), None
    best = None
    for m in re.finditer(r"\[([^\]]{6,40})\]", user):
        d, t = _parse_stamp(m.group(1), year)
        if d and (best is None or (d, t or 0) > (best[0], best[1] or 0)):
            best = (d, t)
    if best:
        return best
    for m in _DATE_WD_MD.finditer(user):
        if _month_num(m.group(2)):
            d = _mk_date(m.group(4) or year, _month_num(m.group(2)), m.group(3))
            if d:
                return d, None
    return None, None


def _owner_map(lines, names):
    """Attribute each line to the person whose section it sits in (None = shared)."""
    owner = None
    out = []
    for ln in lines:
        st = ln.strip()
        if not st:
            out.append(owner)
            continue
        is_item = bool(re.match(r"^(?:[-*•]|\d+[.)])\s", st))
        if not is_item:
            nm = _names_in(st[:120], names)
            if nm:
                owner = nm[0]
        out.append(owner)
    return out


def _parse_plan(lines_with_owner):
    plans = {}
    for ln, own in lines_with_owner:
        m = re.match(r"^\s*[-*•]?\s*(\d{1,2}):(\d{2})\s*[-–]\s*(\d{1,2}):(\d{2})\s+(.*)$", ln)
        if not m:
            continue
        a = int(m.group(1)) * 60 + int(m.group(2))
        b = int(m.group(3)) * 60 + int(m.group(4))
        rest = m.group(5)
        place = ""
        mp = re.search(r"\(([^()]*:[^()]*)\)\s*$", rest)
        if mp:
            place = re.sub(r"^(?:planned at|at)\s+", "", mp.group(1)).strip()
            rest = rest[:mp.start()].strip()
        plans.setdefault(own, []).append({"start": a, "end": b if b > a else b + 1440, "activity": rest, "place": place})
    return plans


def _lifestyle(person_lines):
    """wake, bed, work (start,end,place_phrase,verb_phrase) from the person's own lines."""
    info = {"wake": None, "bed": None, "blocks": []}
    for ln in person_lines:
        low = ln.lower()
        if "wake" not in low and "bed" not in low and "from" not in low:
            continue
        if re.search(r"\[\w+day", ln):
            continue
        mw = re.search(r"wak\w*(?: up)? (?:at|around|by)?\s*(" + _TIME_TOKEN + r")", ln, re.I)
        if mw and info["wake"] is None:
            info["wake"] = _parse_time_token(mw.group(1), _suffix_of(mw.group(1)) or "am")
        mb = re.search(r"bed (?:at|around|by)?\s*(" + _TIME_TOKEN + r")", ln, re.I)
        if mb and info["bed"] is None:
            tok = mb.group(1)
            info["bed"] = _parse_time_token(tok, _suffix_of(tok) or ("pm" if tok.strip()[:2].isdigit() and int(re.match(r"\d+", tok.strip()).group(0)) < 12 else None))
        for mm in re.finditer(r"(?:^|,|;|\band\b)\s*([a-z][a-z ']{2,60}?)\s+from\s+(" + _TIME_TOKEN + r")\s+(?:to|until|till|-)\s+(" + _TIME_TOKEN + r")", ln, re.I):
            vp = mm.group(1).strip()
            if vp.lower().startswith(("wakes", "goes to bed")):
                continue
            sb = _suffix_of(mm.group(3))
            t1 = _parse_time_token(mm.group(2), _suffix_of(mm.group(2)) or None)
            t2 = _parse_time_token(mm.group(3), sb)
            if t1 is None or t2 is None:
                continue
            if t2 <= t1:
                t2 += 720 if t2 + 720 > t1 else 1440
            info["blocks"].append((t1, t2, vp))
    return info


def _gerund(vp):
    words = vp.split()
    if not words:
        return vp
    v = words[0].lower()
    if v.endswith("ies"):
        g = v[:-3] + "ying"
    elif v.endswith(("ches", "shes", "sses", "xes")):
        g = v[:-2] + "ing"
    elif v.endswith("es") and v[:-2].endswith(("k", "t", "v", "z", "c")) and v not in ("goes",):
        g = v[:-2] + "ing" if v[:-1].endswith("e") and v[:-2][-1] in "kvz" else v[:-1][:-1] + "ing"
    elif v == "goes":
        g = "going"
    elif v.endswith("s"):
        base = v[:-1]
        if base.endswith("e") and not base.endswith("ee"):
            g = base[:-1] + "ing"
        elif re.search(r"[^aeiou][aeiou][bdgmnprt]$", base) and len(base) <= 4:
            g = base + base[-1] + "ing"
        else:
            g = base + "ing"
    else:
        g = v + "ing" if not v.endswith("ing") else v
    return " ".join([g] + words[1:])


def build_ctx(body, seed):
    c = Ctx()
    c.body = body
    c.seed = seed
    c.schema = _schema(body)
    c.sname = _schema_name(body)
    c.system = _msg_text(body, "system")
    c.user = _msg_text(body, "user")
    msgs = body.get("messages") or []
    try:
        mdump = json.dumps(msgs, sort_keys=True, ensure_ascii=True)
    except Exception:
        mdump = repr(msgs)
    c.dice = _Dice("%s|%s|%s" % (seed, c.sname, mdump))
    years = re.findall(r"\b(20\d\d)\b", c.user)
    c.year = int(max(years)) if years else 2026
    c.names, c.self = _find_names(body, c.system, c.user)
    if not c.self:
        c.self = "Someone"
    c.first = _first_names(c.names)
    c.places = _places_from(body, c.user)
    c.today, c.now = _find_now(c.user, body, c.year)
    c.lines = c.user.split("\n")
    c.owners = _owner_map(c.lines, c.names)
    c.plans = _parse_plan(list(zip(c.lines, c.owners)))
    c.person_words = []
    for n in c.names:
        c.person_words += [w.lower() for w in n.split()]
    c.convo = _parse_convo(c.user, c.names, c.self)
    return c


def _person_lines(c, person):
    return [ln for ln, o in zip(c.lines, c.owners) if o == person]


def _line_anchor(ln, c):
    m = re.match(r"^\s*(?:[-*•]|\d+[.)])?\s*\[([^\]]+)\]", ln)
    if m:
        d, t = _parse_stamp(m.group(1), c.year)
        if d:
            return d, t
    return c.today, c.now


def _events_in_lines(c, lines, speaker=None, work_end=None):
    evs = []
    for ln in lines:
        if _INSTR.search(ln) and not re.match(r"^\s*[-*•]", ln):
            continue
        if re.match(r"^\s*[-*•]?\s*\d{1,2}:\d{2}\s*[-–]\s*\d{1,2}:\d{2}\b", ln):
            continue  # a schedule row, not something anyone said or heard
        anchor, _t = _line_anchor(ln, c)
        for sent in _split_sentences(ln):
            for cl in _sub_clauses(sent):
                ev = read_event(cl, anchor, c.names, speaker=speaker, places=c.places, year=c.year,
                                dice=c.dice, work_end=work_end)
                if ev:
                    ev["line"] = ln
                    ev["news"] = bool(_NEWS_CUE.search(ln))
                    ev["past"] = _event_past(ev, c.today, c.now)
                    evs.append(ev)
                    break
    return evs


def _merge_events(evs):
    """Group mentions of the same event; the representative is the most explicit one."""
    groups = []
    for ev in evs:
        for g in groups:
            if _same_event(g[0], ev):
                g.append(ev)
                break
        else:
            groups.append([ev])
    out = []
    for g in groups:
        flagged = [e for e in g if e.get("news")]
        explicit = [e for e in g if e.get("start") is not None]
        if flagged and flagged[-1].get("start") is not None:
            rep = Event(flagged[-1])
        elif explicit:
            rep = Event(explicit[-1])
        else:
            rep = Event(g[-1])
        longest = max(g, key=lambda e: len(e.get("activity") or ""))
        rep["activity"] = longest.get("activity") or rep.get("activity")
        rep["news"] = any(e.get("news") for e in g)
        rep["mentions"] = len(g)
        if not rep.get("place"):
            for e in g:
                if e.get("place"):
                    rep["place"] = e["place"]
                    rep["place_phrase"] = e.get("place_phrase", "")
                    break
        out.append(rep)
    return out


def _parse_convo(user, names, self_name):
    """Quoted lines 'Name: "text"' that are not list items: the conversation at hand."""
    out = []
    fn = _first_names(names)
    for ln in user.split("\n"):
        m = re.match(r"^\s*(" + _NAME_PIECE + r"(?: " + _NAME_PIECE + r"){0,2})\s*:\s*[\"“](.*)[\"”]\s*$", ln)
        if not m:
            continue
        sp = m.group(1)
        if sp not in names:
            sp = fn.get(sp.split()[0], sp)
            if sp not in names:
                continue
        out.append((sp, m.group(2)))
    return out


# ---------------------------------------------------------------------------
# per-person knowledge
# ---------------------------------------------------------------------------


def _person_info(c, person):
    pl = _person_lines(c, person) if len(c.names) > 1 else c.lines
    if not pl:
        pl = c.lines
    life = _lifestyle(pl)
    work_end = None
    for (a, b, vp) in life["blocks"]:
        work_end = b
        break
    evs = _events_in_lines(c, [ln for ln in pl if not _is_convo_line(ln, c)], speaker=person, work_end=work_end)
    merged = _merge_events(evs)
    info = {"name": person, "events": merged, "life": life, "work_end": work_end,
            "plan": c.plans.get(person) or (c.plans.get(None) if len(c.plans) == 1 else []) or [],
            "lines": pl}
    info["news"] = [e for e in merged if e.get("news")]
    others = [n for n in c.names if n != person]
    text = "\n".join(pl)
    info["knows"] = {o: (len(re.findall(re.escape(o), text)) + len(re.findall(r"\b" + re.escape(o.split()[0]) + r"\b", text))) for o in others}
    cur = ""
    for ln in sorted(pl, key=lambda x: 1 if re.match(r"^\s*[-*•]", x) else 0):
        mm = re.search(r"(?:^|\b)" + re.escape(person) + r" (?:is|was) ([a-z]+ing\b[^.;(\n]{0,60})", ln)
        if mm and not re.match(r"(?:chatting|talking|calling|going to|having|waking|sleeping)", mm.group(1)):
            cur = mm.group(1).strip()
            break
    info["current"] = cur
    return info


def _is_convo_line(ln, c):
    return bool(re.match(r"^\s*" + _NAME_PIECE + r"(?: " + _NAME_PIECE + r"){0,2}\s*:\s*[\"“]", ln))


def _plan_at(info, ev):
    """('free'|'ordinary'|'work'|'commitment'|'same', block) for the event's time in the person's plan."""
    if ev.get("start") is None:
        return "free", None
    start = ev["start"]
    end = ev.get("end") or start + 60
    worst = ("free", None)
    rank = {"free": 0, "same": 1, "ordinary": 2, "work": 3, "commitment": 4}
    for blk in info.get("plan") or []:
        a, b = blk["start"], blk["end"]
        if b <= start or a >= end:
            continue
        act = blk["activity"]
        if _overlap(_content(act, 8), ev.get("key") or []) >= 0.5 or (ev.get("host") and ev["host"] in act and "going to" in act.lower()):
            kind = "same"
        elif re.search(r"\b(?:work|working|shift|busy at|serving|teaching|baking|tending|opening)\b", act, re.I):
            kind = "work"
        elif _COMMIT.search(act) or any(n in act for n in info.get("knows", {})):
            kind = "commitment"
        else:
            kind = "ordinary"
        if rank[kind] > rank[worst[0]]:
            worst = (kind, blk)
    return worst


# ---------------------------------------------------------------------------
# speech
# ---------------------------------------------------------------------------


def _short(n):
    return n.split()[0] if n else ""


def _when_text(ev, now_day, dice, key, explicit_time_p=0.75, day_p=0.9):
    parts = []
    if ev.get("date") is not None and dice.p(key + ":day", day_p):
        parts.append(_day_phrase(ev["date"], now_day))
    st = ev.get("start")
    if st is None and ev.get("vague"):
        parts.append("in the " + ev["vague"] if ev["vague"] in ("morning", "afternoon", "evening") else ev["vague"])
    elif st is not None:
        if dice.p(key + ":time", explicit_time_p):
            if ev.get("end") and dice.p(key + ":range", 0.5):
                a, b = _clock_words(st), _clock_words(ev["end"])
                if a.endswith(b[-2:]) and a[-2:] in ("am", "pm") and b[-2:] in ("am", "pm"):
                    a = a[:-3]
                parts.append("from %s to %s" % (a, b))
            else:
                parts.append("at " + _clock_words(st))
        else:
            parts.append(_part_of_day(st))
    txt = " ".join(p for p in parts if p)
    txt = txt.replace("today in the afternoon", "this afternoon").replace("today in the morning", "this morning").replace("today in the evening", "this evening")
    return txt


def _where_text(ev, dice, key, p=0.85):
    if not dice.p(key + ":place", p):
        return ""
    if ev.get("place"):
        return _at_place(ev["place"])
    pp = ev.get("place_phrase") or ""
    if pp:
        return ("at " + pp) if not pp.lower().startswith("the ") else ("at " + pp)
    return ""


def _activity_for(ev, speaker_is_host):
    act = ev.get("activity") or "get together"
    if speaker_is_host:
        act = re.sub(r"\b(?:her|his|their)\b", "my", act)
    return act


def _event_sentence(ev, speaker, listener, now_day, dice, key, host_invite_p=0.7):
    is_host = ev.get("host") == speaker
    act = _activity_for(ev, is_host)
    when = _when_text(ev, now_day, dice, key)
    where = _where_text(ev, dice, key)
    tail = " ".join(x for x in (where, when) if x)
    if is_host:
        intent = ev.get("intent", "").lower()
        fp = None
        for k, v in _FIRST_PERSON.items():
            if intent.startswith(k):
                fp = v
        if fp is None:
            fp = dice.choice(key + ":fp", ["I'm going to", "I'd like to", "I'm planning to"])
        core = "%s %s%s." % (fp, act, (" " + tail) if tail else "")
        opener = dice.choice(key + ":op", ["", "Guess what: ", "By the way, ", "I've been meaning to tell you: "])
        s = opener + (core[0].lower() + core[1:] if opener and not re.match(r"I\b", core) else core)
        if dice.p(key + ":inv", host_invite_p):
            s += " " + dice.choice(key + ":invt", ["Would you like to come?", "You'd be very welcome to join.",
                                                   "Do come along if you can!", "I'd love to see you there."])
        return s
    host = ev.get("host") or "someone"
    hs = host if dice.p(key + ":full", 0.6) else _short(host)
    if host == listener:
        hs = "you"
    verb = dice.choice(key + ":vb", ["is going to", "wants to", "is planning to", ev.get("intent") or "will"])
    if hs == "you":
        verb = {"is going to": "are going to", "wants to": "want to", "is planning to": "are planning to"}.get(verb, "will")
    core = "%s %s %s%s." % (hs, verb, act, (" " + tail) if tail else "")
    opener = dice.choice(key + ":op", ["Have you heard? ", "Did you hear? ", "I heard that ", "Apparently ", "By the way, "])
    if opener in ("I heard that ", "Apparently "):
        return opener + core
    return opener + core[0].upper() + core[1:]


def _greeting(speaker, listeners, info, dice, key):
    to = _short(listeners[0]) if len(listeners) == 1 else "everyone"
    cur = info.get("current") or ""
    opts = ["Hi %s! How are you doing?" % to, "Hello %s, nice to see you." % to,
            "Morning, %s! How's things?" % to, "Oh, hello %s! Lovely day, isn't it?" % to]
    if cur:
        opts.append("Hi %s! I'm just %s." % (to, cur))
    return dice.choice(key, opts)


def _smalltalk(speaker, listeners, info, dice, key):
    cur = info.get("current") or ""
    to = _short(listeners[0]) if listeners else ""
    opts = ["Not much news from me, just the usual.", "It's been a busy day so far.",
            "The weather's been kind to us this week.", "How's everything with you, %s?" % to,
            "I can't complain. Keeping busy."]
    if cur:
        opts.append("I've been %s most of the day." % cur)
    return dice.choice(key, opts)


def _goodbye(speaker, listeners, dice, key):
    to = _short(listeners[0]) if len(listeners) == 1 else "all"
    return dice.choice(key, ["Good to see you, %s. Take care!" % to, "Right, I'd better get on. See you later, %s!" % to,
                             "Lovely chatting, %s. Bye for now!" % to, "I must get going. See you around!"])


# ---------------------------------------------------------------------------
# the turn engine (shared by dialogue turns and gists)
# ---------------------------------------------------------------------------


def _line_events(c, text, speaker, anchor_day):
    evs = []
    for sent in _split_sentences(text):
        for cl in _sub_clauses(sent):
            ev = read_event(cl, anchor_day, c.names, speaker=speaker, places=c.places, year=c.year)
            if ev:
                ev["past"] = _event_past(ev, c.today, c.now)
                evs.append(ev)
                break
    return evs


def decide_turn(c, info, listeners, history, dice, key, must_leave=False, flagged_only=False):
    """Return dict(text, end, kind, event, stance, addressed)."""
    me = info["name"]
    said_events = []
    for i, (sp, tx) in enumerate(history):
        for ev in _line_events(c, tx, sp, c.today):
            ev["teller"] = sp
            ev["idx"] = i
            said_events.append(ev)
    my_lines = [tx for sp, tx in history if sp == me]

    def mentioned(ev):
        return any(_same_event(ev, s) for s in said_events) or any(
            _overlap(ev.get("key") or [], _content(tx, 30)) >= 0.6 for _, tx in history)

    untold = []
    for ev in info["events"]:
        if mentioned(ev):
            continue
        untold.append(ev)

    def news_pick():
        for ev in untold:
            if ev.get("news"):
                if ev.get("past"):
                    p = 0.15
                elif ev.get("host") == me:
                    p = 0.75
                else:
                    p = 0.60
            else:
                if ev.get("past") or flagged_only:
                    continue
                p = 0.20 if ev.get("host") == me else 0.10
            if must_leave:
                p *= 0.5
            if dice.p(key + ":tell:" + "-".join(ev.get("key") or []), p):
                return ev
        return None

    last = None
    for sp, tx in reversed(history):
        if sp != me:
            last = (sp, tx)
            break
    out = {"text": "", "end": False, "kind": "smalltalk", "event": None, "stance": None,
           "addressed": last[0] if last else (listeners[0] if len(listeners) == 1 else "everyone")}

    if must_leave:
        ev = news_pick()
        bye = _goodbye(me, listeners, dice, key + ":bye")
        if ev is not None:
            out.update(text=_event_sentence(ev, me, listeners[0] if listeners else "", c.today, dice, key + ":ev") + " " + bye,
                       end=dice.p(key + ":leave", 0.92), kind="news", event=ev, addressed="everyone" if len(listeners) > 1 else out["addressed"])
        else:
            out.update(text=bye, end=dice.p(key + ":leave", 0.92), kind="bye")
        return out

    reply = ""
    if last is not None:
        sp, tx = last
        lev = [e for e in said_events if e.get("teller") == sp and e.get("idx") == max(i for i, (s, _) in enumerate(history) if s == sp)]
        responded = any(_ACCEPT.search(t) or _DECLINE.search(t) for t in my_lines[-1:]) if my_lines else False
        last_idx = max(i for i, (s, _) in enumerate(history) if s == sp)
        my_after = any(s == me for s, _ in history[last_idx + 1:])
        if lev and not my_after:
            ev = lev[0]
            if ev.get("past"):
                if ev.get("host") == me:
                    reply = dice.choice(key + ":pastr", ["Yes, that was mine. It went quite well, thank you.", "Oh, that's already been and gone!"])
                else:
                    reply = dice.choice(key + ":pastr", ["Oh, wasn't that already on?", "That's a shame, I think I missed it.", "Oh yes, I heard about that."])
                out.update(kind="reply")
            elif ev.get("host") == me:
                u = dice.u(key + ":own")
                if u < 0.60:
                    reply = dice.choice(key + ":ownr", ["Yes, that's mine! I do hope you'll come along.",
                                                        "That's right, I'm running it. It would be lovely to see you there.",
                                                        "Ha, word gets around! Yes, do come."])
                    out.update(kind="host_confirm", event=ev, stance="host")
                elif u < 0.70:
                    reply = "Sounds lovely, count me in!"
                    out.update(kind="confused_accept", event=ev, stance="accept")
            else:
                invite = ev.get("host") == sp or bool(_INVITE_CUE.search(tx))
                clash, blk = _plan_at(info, ev)
                when = _when_text(ev, c.today, dice, key + ":rw", explicit_time_p=0.5, day_p=0.7)
                if invite:
                    p = {"free": 0.70, "same": 0.70, "ordinary": 0.70, "work": 0.55, "commitment": 0.20}[clash]
                    if dice.p(key + ":acc", p):
                        reply = dice.choice(key + ":accr", [
                            "Oh, I'd love to. Count me in%s!" % ((" for " + when) if when and not when.startswith(("at", "from", "in the")) else ""),
                            "That sounds wonderful, I'll be there%s." % ((" " + when) if when else ""),
                            "Yes, I'll come along. Thanks for asking!",
                            "How lovely, I'll definitely come."])
                        out.update(kind="accept", event=ev, stance="accept")
                    else:
                        why = ""
                        if blk is not None and clash in ("commitment", "work") and dice.p(key + ":why", 0.8):
                            why = " I'm %s then." % blk["activity"].replace("going to: ", "going to ")[:70].rstrip(" .")
                        prop = " Could we do it another time?" if dice.p(key + ":prop", 0.3) else ""
                        reply = dice.choice(key + ":decr", ["Oh, I'm sorry, I can't make it.", "That's kind of you, but I won't be able to come.",
                                                             "I'd like to, but I can't make it then."]) + why + prop
                        out.update(kind="decline", event=ev, stance="decline")
                else:
                    p = {"free": 0.50, "same": 0.50, "ordinary": 0.50, "work": 0.40, "commitment": 0.15}[clash]
                    u = dice.u(key + ":newsr")
                    if u < p:
                        reply = dice.choice(key + ":goesr", ["Oh, how interesting! I think I'll go along%s." % ((" " + when) if when else ""),
                                                              "That sounds useful, I mean to go.",
                                                              "Really? I'll try to make it%s." % ((" " + when) if when else "")])
                        out.update(kind="intend", event=ev, stance="accept")
                    elif u < p + 0.35:
                        reply = dice.choice(key + ":neutr", ["Oh, that's nice to hear. Thanks for telling me.",
                                                              "Is that so? Good for %s." % _short(ev.get("host") or "them"),
                                                              "Thanks, I hadn't heard about that."])
                        out.update(kind="neutral", event=ev, stance="neutral")
                    else:
                        reply = dice.choice(key + ":uni", ["Not really my sort of thing, but thanks.",
                                                            "Hm, I don't think I'll have time for that."])
                        out.update(kind="uninterested", event=ev, stance="decline")
        elif _BYE.search(tx) and not my_after:
            if dice.p(key + ":byeback", 0.85):
                out.update(text=_goodbye(me, listeners, dice, key + ":bye2"), end=True, kind="bye")
                return out
        elif (_ACCEPT.search(tx) or _DECLINE.search(tx)) and not my_after and my_lines:
            if _ACCEPT.search(tx):
                reply = dice.choice(key + ":glad", ["Wonderful, see you there then!", "Lovely, I'm so glad.", "Great, see you then!"])
            else:
                reply = dice.choice(key + ":pity", ["No worries, maybe next time.", "Oh, that's a pity. Another time, then."])
            out.update(kind="ack")
        elif tx.strip().endswith("?") and not my_after:
            reply = _smalltalk(me, listeners, info, dice, key + ":ans")
            out.update(kind="answer")
    ev = news_pick()
    if ev is not None:
        sent = _event_sentence(ev, me, listeners[0] if len(listeners) == 1 else "", c.today, dice, key + ":ev")
        text = (reply + " " + sent).strip() if reply and len(reply) < 90 else (sent if not reply else reply)
        if text == sent or text.endswith(sent):
            out.update(kind="news" if not reply else out["kind"] + "+news", event=ev if not out.get("event") else out["event"], told=ev)
            if len(listeners) > 1 and dice.p(key + ":all", 0.7):
                out["addressed"] = "everyone"
        out["text"] = text
    elif reply:
        out["text"] = reply
    elif not history:
        out["text"] = _greeting(me, listeners, info, dice, key + ":greet")
    else:
        p_end = min(0.7, 0.08 * len(history) + 0.05)
        if dice.p(key + ":end", p_end):
            out.update(text=_goodbye(me, listeners, dice, key + ":bye3"), end=True, kind="bye")
            return out
        out["text"] = _smalltalk(me, listeners, info, dice, key + ":st")
    if out["text"] in my_lines:
        out.update(text=_goodbye(me, listeners, dice, key + ":bye4"), end=True, kind="bye")
        return out
    p_end = min(0.7, 0.08 * len(history) + 0.05)
    if out["kind"] in ("accept", "decline", "neutral", "uninterested", "ack", "intend"):
        p_end = min(0.7, p_end + 0.1)
    if out["kind"].startswith("news"):
        p_end = 0.05
    out["end"] = dice.p(key + ":end2", p_end)
    return out


# ---------------------------------------------------------------------------
# memos
# ---------------------------------------------------------------------------


def _stance_from_lines(c, me, lines, anchor_day):
    """Events mentioned in the lines, and me's stance on each (accept/decline/host/heard/told)."""
    found = []
    for i, (sp, tx) in enumerate(lines):
        for ev in _line_events(c, tx, sp, anchor_day):
            ev["teller"] = sp
            ev["idx"] = i
            if not any(_same_event(ev, f) for f in found):
                found.append(ev)
            else:
                for f in found:
                    if _same_event(ev, f) and f.get("start") is None and ev.get("start") is not None:
                        f["start"], f["end"] = ev["start"], ev.get("end")
    res = []
    for ev in found:
        st = "heard"
        if ev.get("host") == me:
            st = "host"
        elif ev.get("teller") == me:
            st = "told"
        for sp, tx in lines[ev["idx"] + 1:]:
            if sp != me:
                continue
            if _DECLINE.search(tx):
                st = "decline" if st not in ("host",) else st
                break
            if _ACCEPT.search(tx):
                st = "accept" if st != "host" else st
                break
        if st == "told":
            for sp, tx in lines[:ev["idx"]]:
                pass
        res.append((ev, st))
    return res


def make_memo(c, me, lines, info, dice, key, plan_date_enum=None, place_enum=None):
    others = []
    for sp, _ in lines:
        if sp != me and sp not in others:
            others.append(sp)
    if not others:
        others = [n for n in c.names if n != me][:2]
    anchor = c.today
    st = _stance_from_lines(c, me, lines, anchor)
    memo = {"summary": "", "importance": 2, "plan_activity": "", "plan_date": "", "plan_start": "",
            "plan_minutes": 0, "plan_place": ""}
    who = (", ".join(others[:-1]) + " and " + others[-1]) if len(others) > 1 else (others[0] if others else "someone")
    if not st:
        topic = ""
        for sp, tx in lines:
            if sp != me and len(tx) < 120 and not _BYE.search(tx):
                topic = tx
                break
        memo["summary"] = dice.choice(key + ":sum0", [
            "%s had a brief, friendly chat with %s; nothing in particular was arranged." % (me, who),
            "%s exchanged greetings with %s and they went on with their day." % (me, who),
            "%s chatted with %s for a moment%s." % (me, who, (" about how things are going") if topic else "")])
        memo["importance"] = dice.randint(key + ":imp0", 1, 3)
        if dice.p(key + ":spur", 0.03) and plan_date_enum:
            memo.update(plan_activity="catch up with %s" % _short(others[0]) if others else "catch up",
                        plan_date=(str(c.today + _dt.timedelta(days=1)) if c.today else ""),
                        plan_start="%02d:00" % dice.randint(key + ":spurh", 10, 17), plan_minutes=30, plan_place="")
        return memo
    # pick the main event: my own stance first
    order = {"accept": 0, "host": 1, "decline": 2, "heard": 3, "told": 4}
    st.sort(key=lambda x: order.get(x[1], 9))
    ev, stance = st[0]
    host = ev.get("host") or "someone"
    act = ev.get("activity") or "a get-together"
    when = _when_text(ev, c.today, dice, key + ":mw", explicit_time_p=0.8, day_p=0.9)
    where = _where_text(ev, dice, key + ":mw", p=0.85)
    detail = " ".join(x for x in (where, when) if x)
    teller = ev.get("teller") or (others[0] if others else "someone")
    if stance == "host":
        s = "%s told %s about %s plan to %s%s" % (me, who, dice.choice(key + ":pr", ["a", "the"]), act, (" " + detail) if detail else "")
        if teller != me:
            s = "%s brought up %s's plan to %s%s" % (teller, me, act, (" " + detail) if detail else "")
        s += dice.choice(key + ":hs", [", and hopes people will come.", "."])
        imp = dice.randint(key + ":imp", 5, 7)
    else:
        if teller == me:
            s = "%s told %s that %s %s %s%s" % (me, who, host if host != me else _short(me), "wants to" if dice.p(key + ":w", 0.5) else "is going to", act, (" " + detail) if detail else "")
        else:
            s = "%s told %s that %s %s %s%s" % (teller, me, host if host != teller else _short(teller), "wants to" if dice.p(key + ":w", 0.5) else "is going to", act, (" " + detail) if detail else "")
        if stance == "accept":
            s += dice.choice(key + ":as", [", and %s said they would go." % me, "; %s means to go." % me, ", and %s agreed to come." % me])
            imp = dice.randint(key + ":imp", 5, 7)
        elif stance == "decline":
            s += ", but %s can't make it." % me
            imp = dice.randint(key + ":imp", 3, 5)
        else:
            s += "."
            imp = dice.randint(key + ":imp", 4, 6)
    memo["summary"] = s
    memo["importance"] = imp
    # plan item
    past = _event_past(ev, c.today, c.now)
    clash, blk = _plan_at(info, ev) if info else ("free", None)
    if past:
        p = 0.0
    elif stance == "accept":
        p = 0.5 if clash == "same" else 0.8
    elif stance == "host":
        p = 0.35
    elif stance == "decline":
        p = 0.03
    else:
        p = 0.15
    if dice.p(key + ":plan", p):
        start = ev.get("start")
        if start is None:
            start = _vague_to_min(ev.get("vague"), dice, key + ":vg", info.get("work_end") if info else None)
        if start is None:
            start = _vague_to_min("afternoon", dice, key + ":vg2")
        dur = 60
        if ev.get("end") and ev.get("start") is not None:
            dur = (ev["end"] - ev["start"]) % 1440 or 60
        pa = ("hosting: " + act) if stance == "host" else dice.choice(key + ":pa", [
            "go to %s's %s" % (host, "session" if True else ""), "join %s: %s" % (host, act), act])
        if pa.startswith("go to") and dice.p(key + ":pa2", 0.5):
            pa = "go to %s to %s" % (_short(host), act)
        place = ""
        if place_enum is not None:
            if dice.p(key + ":plc", 0.9):
                cand = ev.get("place") or ""
                if cand in place_enum:
                    place = cand
                else:
                    place = _match_place(ev.get("sentence", ""), [x for x in place_enum if x], c.person_words)
        d = str(ev["date"]) if ev.get("date") else ""
        if plan_date_enum is not None and d not in plan_date_enum:
            d = ""
        memo.update(plan_activity=pa[:120], plan_date=d, plan_start=_hm(start), plan_minutes=int(min(600, max(0, dur))), plan_place=place)
        if not d:
            memo.update(plan_activity="", plan_start="", plan_minutes=0, plan_place="")
    return memo


# ---------------------------------------------------------------------------
# handlers
# ---------------------------------------------------------------------------


def _must_leave(c, person):
    pat = r"\b" + re.escape(person or "~~") + r"\b[^.\n]{0,40}(?:has to go|must go|must leave|needs to go|has to leave|has to run|last line|takes leave)"
    return bool(re.search(pat, c.user))


def h_converse_text(c):
    me = c.self
    info = _person_info(c, me)
    hist = c.convo
    listeners = []
    for n in c.names:
        if n != me and n not in listeners:
            listeners.append(n)
    # listeners: the people in the scene line (present in the line naming "talking with")
    scene = [n for n in _names_in(next((ln for ln in c.lines if re.search(r"talking|speaking|chatting|conversation with", ln)), ""), c.names) if n != me]
    if scene:
        listeners = list(dict.fromkeys(scene))
    if not listeners:
        listeners = ["friend"]
    r = decide_turn(c, info, listeners, hist, c.dice, "turn", must_leave=_must_leave(c, me))
    return r


def fmt_text_turn(c, r):
    words = r["text"].strip()
    tag = "[end]" if r["end"] else "[continue]"
    want = re.search(r"\[(end|continue|done|more|stop|go on)\]", c.user)
    if want:
        tags = re.findall(r"\[([a-z ]{2,12})\]", c.user)
        end_tag = "[end]" if "end" in tags else ("[%s]" % tags[0] if tags else "[end]")
        cont = [t for t in tags if t != "end"]
        tag = end_tag if r["end"] else ("[%s]" % cont[0] if cont else "[continue]")
    u = c.dice.u("malformed")
    if u < 0.02:
        return "%s: %s\n%s" % (c.self, words, tag)
    if u < 0.035:
        return words
    if u < 0.05:
        return "\"%s\"\n%s" % (words, tag)
    return "%s\n%s" % (words, tag)


def h_group_turn(c):
    r = h_converse_text(c)
    sch = c.schema
    enum = _enum_of(sch, "addressed_to") or []
    addressed = r.get("addressed") or "everyone"
    if enum and addressed not in enum:
        addressed = "everyone" if "everyone" in enum else enum[0]
    return {"utterance": r["text"], "addressed_to": addressed, "end_conversation": bool(r["end"])}


def _talk_decision(c, people, infos, key):
    if any(i["news"] and not all(e.get("past") for e in i["news"]) for i in infos.values()):
        p = 0.85
    elif any(any(i["knows"].get(o, 0) > 0 for o in people if o != i["name"]) for i in infos.values()):
        p = 0.60
    else:
        p = 0.40
    return c.dice.p(key, p)


def _gist(c, people, infos, max_lines, min_lines=2):
    lines = []
    ended = set()
    i = 0
    guard = 0
    while len(lines) < max_lines and guard < 30:
        guard += 1
        sp = people[i % len(people)]
        i += 1
        if sp in ended:
            if len(ended) >= len(people) - 1:
                break
            continue
        listeners = [p for p in people if p != sp and p not in ended] or [p for p in people if p != sp]
        r = decide_turn(c, infos[sp], listeners, lines, c.dice, "gist%d:%s" % (len(lines), sp))
        if not r["text"]:
            continue
        lines.append((sp, r["text"]))
        if r["end"]:
            ended.add(sp)
            if len(people) == 2 or len(ended) >= len(people) - 1:
                if len(lines) < max_lines and len(lines) >= min_lines - 1:
                    nxt = [p for p in people if p not in ended]
                    if nxt and len(lines) < min_lines:
                        lines.append((nxt[0], _goodbye(nxt[0], [sp], c.dice, "gistbye")))
                break
    while len(lines) < min_lines:
        sp = people[len(lines) % len(people)]
        lines.append((sp, _goodbye(sp, [p for p in people if p != sp], c.dice, "gistpad%d" % len(lines))))
    return lines[:max_lines]


def _people_from_schema(c, *path):
    enum = _enum_of(c.schema, *path) if c.schema else None
    if enum:
        return [e for e in enum if isinstance(e, str) and e]
    return None


def h_conversation_summary(c):
    sch = c.schema
    people = _people_from_schema(c, "lines", "[]", "speaker") or [n for n in c.names][:2]
    if c.self in people:
        people = [c.self] + [p for p in people if p != c.self]
    if len(people) < 2:
        people = (people + [n for n in c.names if n not in people])[:2]
    infos = {p: _person_info(c, p) for p in people}
    mx = (_prop(sch, "lines").get("maxItems") or 6) if sch else 6
    if not _talk_decision(c, people, infos, "talk"):
        return {"talk": False, "lines": [], "first": None, "second": None}
    lines = _gist(c, people, infos, mx)
    out = {"talk": True, "lines": [{"speaker": s, "text": t} for s, t in lines]}
    for slot, p in zip(("first", "second"), people[:2]):
        de = _enum_of(sch, slot, "plan_date") if sch else None
        pe = _enum_of(sch, slot, "plan_place") if sch else None
        out[slot] = make_memo(c, p, lines, infos[p], c.dice, "memo:" + p, de, pe)
    return out


def h_group_summary(c):
    sch = c.schema
    people = _people_from_schema(c, "lines", "[]", "speaker") or _people_from_schema(c, "memos", "[]", "name") or c.names[:3]
    if c.self in people:
        people = [c.self] + [p for p in people if p != c.self]
    infos = {p: _person_info(c, p) for p in people}
    mx = (_prop(sch, "lines").get("maxItems") or 10) if sch else 10
    if not _talk_decision(c, people, infos, "talk"):
        return {"talk": False, "lines": [], "memos": []}
    lines = _gist(c, people, infos, mx)
    de = _enum_of(sch, "memos", "[]", "plan_date") if sch else None
    pe = _enum_of(sch, "memos", "[]", "plan_place") if sch else None
    memos = []
    for p in people:
        mm = make_memo(c, p, lines, infos[p], c.dice, "memo:" + p, de, pe)
        mm = dict(name=p, **mm)
        memos.append(mm)
    return {"talk": True, "lines": [{"speaker": s, "text": t} for s, t in lines], "memos": memos}


def h_conversation_memo(c):
    sch = c.schema
    me = c.self
    info = _person_info(c, me)
    de = _enum_of(sch, "plan_date") if sch else None
    pe = _enum_of(sch, "plan_place") if sch else None
    return make_memo(c, me, c.convo, info, c.dice, "memo", de, pe)


_EMOJI = {"sleep": "😴", "wak": "⏰", "breakfast": "🍳", "lunch": "🥪", "dinner": "🍲", "work": "💼", "bak": "🍞",
          "teach": "📚", "read": "📖", "relax": "🛋️", "walk": "🚶", "tend": "🌱", "run": "🍺", "tell": "📣",
          "host": "🎉", "going": "🚶", "event": "🎉"}


def _emoji(act):
    low = act.lower()
    for k, v in _EMOJI.items():
        if k in low:
            return v
    return "🙂"


def h_daily_plan(c):
    sch = c.schema
    me = c.self
    info = _person_info(c, me)
    dice = c.dice
    addr = _enum_of(sch, "blocks", "[]", "address") if sch else None
    places = addr or c.places
    homes = [p for p in places if _is_home(p)]
    sur = (me or "").split()[-1].lower() if me else ""
    home = next((p for p in homes if sur and sur in p.lower()), homes[0] if homes else (places[0] if places else "home"))
    life = info["life"]
    wake = life["wake"] if life["wake"] is not None else 7 * 60
    bed = life["bed"] if life["bed"] is not None else 22 * 60
    if bed <= wake:
        bed += 1440
    today = c.today
    weekend = today is not None and today.weekday() >= 5
    slots = []  # (start, end, activity, place)
    slots.append((wake, wake + 30, "waking up and getting ready", home))
    slots.append((wake + 30, wake + 60, "having breakfast", home))
    t = wake + 60
    for (a, b, vp) in life["blocks"]:
        if weekend and not dice.p("weekendwork", 0.60):
            continue
        pl = _match_place(vp, places, c.person_words) or home
        act = _gerund(vp)
        if a < 12 * 60 < b and b - a > 5 * 60:
            slots.append((a, 12 * 60, act, pl))
            slots.append((12 * 60, 13 * 60, "having lunch", pl))
            slots.append((13 * 60, b, act, pl))
        else:
            slots.append((a, b, act, pl))
    slots.sort()
    # fill gaps with leisure/meals
    filled = []
    cur = wake
    has_lunch = any("lunch" in s[2] for s in slots)
    for s in slots:
        if s[0] > cur:
            filled.append((cur, s[0], "relaxing at home", home))
        if s[0] < cur:
            s = (cur, s[1], s[2], s[3])
        if s[1] > s[0]:
            filled.append(s)
            cur = s[1]
    if not has_lunch and cur <= 12 * 60:
        if cur < 12 * 60:
            filled.append((cur, 12 * 60, "relaxing at home", home))
        filled.append((12 * 60, 13 * 60, "having lunch", home))
        cur = 13 * 60
    if cur < 18 * 60 + 30:
        filled.append((cur, 18 * 60 + 30, "relaxing at home", home))
        cur = 18 * 60 + 30
    if cur < 19 * 60 + 30:
        filled.append((cur, 19 * 60 + 30, "having dinner", home))
        cur = 19 * 60 + 30
    if cur < bed:
        filled.append((cur, bed, "relaxing at home", home))
        cur = bed
    # events today
    inserts = []
    for ev in info["events"]:
        if ev.get("date") != today:
            if ev.get("past") and dice.p("stale:" + "-".join(ev.get("key") or []), 0.05):
                pass
            else:
                continue
        elif ev.get("past"):
            continue
        is_host = ev.get("host") == me
        accepted = bool(re.search(r"(?:count me in|i'?ll (?:be there|come|go)|means to go|said (?:she|he|they) would go|going to:)", "\n".join(info["lines"]), re.I))
        p = 0.92 if is_host else (0.75 if accepted else 0.30)
        if not dice.p("evplan:" + "-".join(ev.get("key") or []), p):
            continue
        st = ev.get("start")
        if st is None:
            st = _vague_to_min(ev.get("vague"), dice, "evv", info.get("work_end")) or 15 * 60
        en = ev.get("end") or st + 60
        pl = ev.get("place") if ev.get("place") in places else (_match_place(ev.get("sentence", ""), places, c.person_words) or home)
        act = ("hosting: " if is_host else "going to %s's: " % _short(ev.get("host") or "")) + (ev.get("activity") or "event")
        inserts.append((st, en, act[:110], pl))
    # telling people
    tell_rows = []
    for ln in info["lines"] + c.lines:
        m = re.match(r"^\s*[-*•]\s*(.+?):\s*(\d+)\s+(?:person|people)\w*,\s*(\d{1,2}):(\d{2})\s*[-–]\s*(\d{1,2}):(\d{2})", ln)
        if m:
            pl = m.group(1).strip()
            if pl in places:
                tell_rows.append((pl, int(m.group(3)) * 60 + int(m.group(4)), int(m.group(5)) * 60 + int(m.group(6))))
    if tell_rows and info["news"] and dice.p("tellblock", 0.50):
        pl, a, b = tell_rows[0]
        free = [s for s in filled if "relax" in s[2] and s[1] > a and s[0] < b]
        if free:
            s = free[0]
            st = max(s[0], a)
            inserts.append((st, min(st + 60, s[1], b), "telling people the news", pl))
    for (a, b, act, pl) in sorted(inserts):
        new = []
        for s in filled:
            if s[1] <= a or s[0] >= b:
                new.append(s)
                continue
            if s[0] < a:
                new.append((s[0], a, s[2], s[3]))
            if s[1] > b:
                new.append((b, s[1], s[2], s[3]))
        new.append((max(a, wake), b, act, pl))
        filled = sorted(x for x in new if x[1] > x[0])
    # merge neighbours with equal activity
    merged = []
    for s in filled:
        if merged and merged[-1][2] == s[2] and merged[-1][3] == s[3] and merged[-1][1] == s[0]:
            merged[-1] = (merged[-1][0], s[1], s[2], s[3])
        else:
            merged.append(s)
    while len(merged) > 15:
        # drop the shortest non-meal block by extending its neighbour
        idx = min(range(1, len(merged)), key=lambda i: merged[i][1] - merged[i][0])
        prev = merged[idx - 1]
        merged[idx - 1] = (prev[0], merged[idx][1], prev[2], prev[3])
        del merged[idx]
    sleep_len = (wake + 1440) - bed
    blocks = []
    for (a, b, act, pl) in merged:
        blocks.append({"start": _hm(a), "duration_minutes": int(max(5, min(960, b - a))), "activity": act,
                       "emoji": _emoji(act), "address": pl})
    blocks.append({"start": _hm(bed), "duration_minutes": int(max(5, min(960, sleep_len))), "activity": "sleeping",
                   "emoji": "😴", "address": home})
    outline = []
    for b in blocks:
        if len(outline) >= 8:
            break
        if b["activity"] in ("relaxing at home",) and len(blocks) > 8:
            continue
        outline.append("%s at %s" % (b["activity"], b["start"]))
    outline = outline[:8]
    while len(outline) < 4:
        outline.append("relax in the evening")
    return {"wake_up_hour": int(wake // 60) % 24, "outline": outline, "blocks": blocks}


_STEPS = {
    "breakfast": ["making tea", "making toast", "eating at the table", "reading the paper", "washing the dishes", "tidying up"],
    "lunch": ["preparing a sandwich", "eating lunch", "having a cup of tea", "clearing up"],
    "dinner": ["cooking dinner", "setting the table", "eating dinner", "washing up", "putting things away"],
    "sleep": ["getting into bed", "sleeping", "sleeping soundly", "turning over"],
    "wak": ["getting out of bed", "washing and dressing", "making the bed", "brushing hair"],
    "relax": ["sitting down with a book", "having a cup of tea", "resting in the armchair", "listening to the radio", "tidying a little"],
    "calling": ["knocking at the door", "saying hello", "chatting over tea", "catching up on news", "saying goodbye"],
    "going to": ["walking over", "finding a spot", "watching and listening", "chatting with others", "heading off"],
    "hosting": ["setting things up", "welcoming people", "showing how it's done", "answering questions", "packing up"],
    "telling": ["looking for people", "chatting with a neighbour", "passing on the news", "moving on"],
}


def h_decompose(c):
    sch = c.schema
    dice = c.dice
    m = re.search(r"(?:From|from)\s+(\d{1,2}):(\d{2})\s+to\s+(\d{1,2}):(\d{2})\s*\((\d+)\s*minutes?\)[^\n]*?(?:is|will be)\s+([^\n,]+?)(?:,\s*at\s+([^\n]+?))?\.\s*$", c.user, re.M)
    total = None
    act = ""
    if m:
        total = int(m.group(5))
        act = m.group(6)
    else:
        m2 = re.search(r"\((\d+)\s*minutes?\)", c.user)
        total = int(m2.group(1)) if m2 else 60
    objs = _enum_of(sch, "steps", "[]", "object") if sch else None
    objs = [o for o in (objs or []) if o]
    s_items = _prop(sch, "steps") if sch else {}
    mn, mx = s_items.get("minItems", 2), s_items.get("maxItems", 6)
    dmin = _prop(sch, "steps", "[]", "duration_minutes").get("minimum", 5) if sch else 5
    dmax = _prop(sch, "steps", "[]", "duration_minutes").get("maximum", 15) if sch else 15
    n = max(mn, min(mx, int(math.ceil(total / float(dmax)))))
    if total < n * dmin:
        n = max(mn, total // dmin)
    base = max(dmin, min(dmax, total // max(1, n)))
    durs = [base] * n
    rem = total - base * n
    i = 0
    while rem > 0 and i < n * 3:
        add = min(rem, dmax - durs[i % n])
        durs[i % n] += add
        rem -= add
        i += 1
    low = act.lower()
    names = None
    for k, v in _STEPS.items():
        if k in low:
            names = v
            break
    if names is None:
        core = re.sub(r"^(?:busy|working|seeing people)\s+(?:at|on)\s+the\s+", "", low)
        names = ["getting started", "working on " + core[:40] if core else "getting on with things", "taking a short break",
                 "carrying on", "chatting with someone nearby", "finishing up"]
    steps = []
    for j in range(n):
        nm = names[j % len(names)] if j < len(names) else names[-1] + " (continued)"
        obj = ""
        if objs:
            rel = {"bed": ("sleep", "bed", "turning", "making the bed"),
                   "armchair": ("sitting", "resting", "book", "radio", "relax", "reading"),
                   "table": ("eating", "table", "setting", "lunch", "dinner"),
                   "stove": ("cooking", "frying", "toast", "tea", "coffee"), "kettle": ("tea", "coffee")}
            for o in objs:
                ol = o.lower()
                if ol in nm.lower() or any(w in nm.lower() for w in rel.get(ol, ())):
                    obj = o
                    break
            if not obj and dice.p("obj%d" % j, 0.15):
                obj = dice.choice("objc%d" % j, objs)
        steps.append({"activity": nm, "duration_minutes": int(durs[j]), "object": obj,
                      "object_state": ("in use" if obj else "")})
    return {"steps": steps}


def _rate_memory(text, me, dice, key):
    low = text.lower()
    ev = None
    if _INTENT.search(text) and (re.search(_WEEKDAY_RE + "|tomorrow|today|tonight|" + _MONTH_RE, low) or re.search(r"\d\s*(?:am|pm)|\d:\d\d", low)):
        ev = True
    if ev:
        r = dice.randint(key, 5, 7)
        if me and low.startswith(me.lower() + " would") or (me and re.match(re.escape(me.lower()) + r" (?:is hosting|wants|hopes|plans)", low)):
            r += 1
    elif re.search(r"conversation|chatted|told|heard|said|learned", low):
        r = dice.randint(key, 2, 4)
    elif re.search(r"sleep|waking|breakfast|lunch|dinner|relaxing|busy at|working at|getting ready|having", low):
        r = dice.randint(key, 1, 3)
    else:
        r = dice.randint(key, 2, 4)
    if dice.p(key + ":j", 0.3):
        r += dice.choice(key + ":jd", [-1, 1])
    return max(1, min(10, r))


def h_importance(c):
    m = re.search(r"[\"“]([^\"”]{2,})[\"”]\s*$", c.user.split("Answer")[0].strip(), re.S)
    mem = m.group(1) if m else c.user[-300:]
    return {"importance": _rate_memory(mem, c.self, c.dice, "imp")}


def h_importance_batch(c):
    items = re.findall(r"(?m)^\s*(?:[-*•]|\d+[.)])\s*[\"“](.+?)[\"”]\s*$", c.user)
    sch = c.schema
    p = _prop(sch, "ratings") if sch else {}
    n = p.get("minItems") or len(items) or 1
    if p.get("maxItems"):
        n = min(max(n, len(items)), p["maxItems"])
    out = []
    for i in range(n):
        txt = items[i] if i < len(items) else ""
        out.append(_rate_memory(txt, c.self, c.dice, "b%d" % i))
    return {"ratings": out}


def _memory_items(c, person=None):
    out = []
    for ln in c.lines:
        m = re.match(r"^\s*(?:[-*•]|\d+[.)])\s*(?:\[([^\]]+)\]\s*)?(.+)$", ln)
        if m and m.group(1):
            out.append((m.group(1), m.group(2)))
    return out


def h_interview(c):
    dice = c.dice
    me = c.self
    q = ""
    m = re.search(r"asks?\s+(?:" + re.escape(me or "") + r"|you)?\s*:?\s*[\"“]([^\"”]+)[\"”]", c.user)
    if m:
        q = m.group(1)
    else:
        qs = re.findall(r"[\"“]([^\"”]+\?)[\"”]", c.user)
        q = qs[-1] if qs else ""
    mems = _memory_items(c)
    info = _person_info(c, me)
    ident = "\n".join(ln for ln in info["lines"] if not re.match(r"^\s*[-*•]", ln))
    qnames = [n for n in _names_in(q, c.names) if n != me]
    if not qnames:
        for w in re.findall(r"\b[A-Z][a-z]+\b", q):
            if w in c.first and c.first[w] != me:
                qnames.append(c.first[w])
    if qnames and re.search(r"\b(?:know|met|who is|friend|think of|feel about)\b", q, re.I):
        other = qnames[0]
        about = [t for _, t in mems if other in t or _short(other) in t]
        in_ident = other in ident
        if about or in_ident:
            fact = ""
            chats = [t for t in about if re.search(r"conversation|chatted|told|heard|said", t)]
            pick = chats[-1] if chats else (about[-1] if about else "")
            if pick:
                mm = re.search(re.escape(other) + r" (?:is|was) ([^.(/\"]{3,70})", pick)
                if mm:
                    fact = "Last I saw, %s was %s." % (_short(other), mm.group(1).strip())
                elif chats:
                    fact = "We had a chat not long ago."
            if in_ident and not fact:
                mm = re.search(r"([^.;]*" + re.escape(other) + r"[^.;]*)", ident)
                fact = "We go back a way." if not mm else ""
            ev = next((e for e in info["events"] if e.get("host") == other), None)
            if ev and dice.p("intev", 0.5):
                fact += " %s told me %s %s %s." % (_short(other), "they are going to" if dice.p("iw", 0.5) else "they want to", ev.get("activity"), _when_text(ev, c.today, dice, "iw2"))
            ans = dice.choice("yes", ["Yes, I know %s." % other, "Of course I know %s." % _short(other), "Yes, %s? Certainly." % other]) + (" " + fact.strip() if fact.strip() else "")
        else:
            if dice.p("dk", 0.8):
                ans = dice.choice("no", ["I don't really know %s, I'm afraid." % other, "Hmm, I can't say I know %s." % other,
                                         "No, I don't think I've met %s." % other])
            else:
                ans = "I think I've seen %s around the village, but I don't know them well." % _short(other)
        return {"answer": ans}
    # event question
    qkey = _content(q, 10)
    best, bs = None, 0.0
    for ev in info["events"]:
        sc = _overlap(qkey, ev.get("key") or [])
        if sc > bs:
            best, bs = ev, sc
    if best is not None and bs >= 0.3:
        ev = best
        when = _when_text(ev, c.today, dice, "iq", explicit_time_p=0.75, day_p=0.9)
        where = _where_text(ev, dice, "iq", p=0.85)
        host = ev.get("host") or "someone"
        past = _event_past(ev, c.today, c.now)
        verb = "was going to" if past else "is going to"
        s = "Yes, %s %s %s%s." % (host if host != me else "I", verb if host != me else ("was going to" if past else "am going to"), ev.get("activity"), (" " + " ".join(x for x in (where, when) if x)) if (where or when) else "")
        alltext = "\n".join(info["lines"])
        if host != me:
            if re.search(r"(?:count me in|i'?ll (?:be there|come|go)|going to:)", alltext, re.I) and re.search(re.escape(me) + r"[^\n]{0,40}(?:count me in|going to)", alltext):
                s += " I " + ("went along." if past else "mean to go.")
            elif dice.p("iqn", 0.5):
                s += " I " + ("didn't get there myself." if past and dice.p("iqp", 0.5) else "might go along.")
        return {"answer": s}
    if qkey and mems:
        scored = sorted(((_overlap(qkey, _content(t, 30)), i) for i, (_, t) in enumerate(mems)), reverse=True)
        if scored and scored[0][0] >= 0.5:
            t = mems[scored[0][1]][1]
            return {"answer": "I remember that %s." % t.rstrip(".")[:300]}
    return {"answer": dice.choice("idk", ["I'm sorry, I don't know anything about that.", "Hmm, I haven't heard about that.",
                                          "No, I can't say I know about that."])}


def h_react(c):
    dice = c.dice
    me = c.self
    others = [n for n in c.names if n != me]
    seen = None
    m = re.search(r"noticed:?\s*[\"“]([^\"”]+)[\"”]", c.user)
    if m:
        nm = _names_in(m.group(1), c.names)
        seen = next((n for n in nm if n != me), None)
    if seen is None and others:
        seen = others[0]
    untold = bool(re.search(r"(?:has news|news to pass on|has not told|hasn't told|not told)[^\n]*" + re.escape(seen or "~~"), c.user)) or bool(
        re.search(r"has not told " + re.escape(seen or "~~") + r"|hasn't told " + re.escape(seen or "~~"), c.user))
    knows = len(re.findall(re.escape(seen or "~~"), c.user)) >= 4
    u = dice.u("react")
    if untold:
        ch = "talk" if u < 0.70 else ("wait" if u < 0.85 else "continue")
    elif knows:
        ch = "talk" if u < 0.25 else ("wait" if u < 0.30 else ("continue" if u < 0.95 else "react"))
    else:
        ch = "talk" if u < 0.15 else ("continue" if u < 0.95 else "react")
    s = _short(seen) if seen else "them"
    reasons = {
        "talk": ["%s has news to share with %s." % (me, s) if untold else "%s would like a quick word with %s." % (me, s),
                 "It's a good chance to catch %s." % s],
        "wait": ["%s is busy right now, so %s will wait a moment before speaking." % (s, _short(me))],
        "continue": ["Nothing about this needs %s's attention." % _short(me), "%s carries on with what they were doing." % me],
        "react": ["%s decides to take a short break and see what %s is up to." % (me, s)],
    }
    return {"choice": ch, "reason": dice.choice("rr", reasons[ch]),
            "new_activity": ("chatting with %s" % s) if ch == "react" else ""}


def h_reflection_questions(c):
    dice = c.dice
    me = c.self
    info = _person_info(c, me)
    others = sorted(((v, k) for k, v in info["knows"].items() if v > 0), reverse=True)
    qs = []
    up = [e for e in info["events"] if not e.get("past")]
    evs = up or info["events"]
    if evs:
        ev = evs[0]
        host = ev.get("host") or "someone"
        if host == me:
            qs.append("Who is likely to come when %s %s?" % (me, ev.get("activity")))
        else:
            qs.append("Will %s go when %s %s %s?" % (me, host, ev.get("intent", "plans to"), ev.get("activity")))
    for v, o in others[:2]:
        qs.append(dice.choice("rq" + o, ["How is %s's relationship with %s developing?" % (me, o),
                                         "What does %s think of %s?" % (me, o), "Why does %s keep running into %s?" % (me, o)]))
    if len(qs) < 3:
        qs.append("How does %s usually spend the day, and is that changing?" % me)
    n = dice.choice("nq", [2, 3, 3])
    return {"questions": qs[:n]}


def h_reflection_insights(c):
    dice = c.dice
    me = c.self
    stm = []
    for ln in c.lines:
        m = re.match(r"^\s*(\d{1,2})[.)]\s+(.*)$", ln)
        if m:
            stm.append((int(m.group(1)), m.group(2)))
    qs = re.findall(r"(?m)^\s*[-*•]\s*[\"“](.+?)[\"”]\s*$", c.user)
    sch = c.schema
    ev_enum = _enum_of(sch, "insights", "[]", "evidence", "[]") if sch else None
    valid_nums = set(ev_enum) if ev_enum else None
    info = _person_info(c, me)
    insights = []
    for qi, q in enumerate(qs[:5] or ["What is going on?"]):
        qk = _content(q, 10)
        qn = [n for n in _names_in(q, c.names) if n != me]
        rel = []
        for num, t in stm:
            if (qn and any(n in t for n in qn)) or _overlap(qk, _content(t, 30)) >= 0.4:
                rel.append((num, t))
        if not rel:
            rel = stm[-3:]
        nums = [n for n, _ in rel][:6] or [1]
        if valid_nums is not None:
            nums = [n for n in nums if n in valid_nums] or [min(valid_nums)]
        k = dice.choice("nk%d" % qi, [1, 2, 2, 3])
        evs = [e for e in info["events"] if any(_overlap(e.get("key") or [], _content(t, 30)) >= 0.5 for _, t in rel)]
        cands = []
        if evs:
            ev = evs[0]
            host = ev.get("host") or "someone"
            when = _when_text(ev, None, dice, "riw%d" % qi, explicit_time_p=0.8)
            if host == me:
                cands.append(("%s is looking forward to %s %s and hopes people will come." % (me, _gerund("s " + ev.get("activity", ""))[4:] if False else "the chance to " + ev.get("activity", ""), when), "own event", 6))
            else:
                cands.append(("%s knows that %s %s %s %s." % (me, host, ev.get("intent", "plans to"), ev.get("activity", ""), when), host, 5))
                if re.search(r"count me in|i'?ll (?:be there|come)", "\n".join(t for _, t in rel), re.I):
                    cands.append(("%s has said they will go to %s's event." % (me, _short(host)), host, 5))
        if qn:
            o = qn[0]
            cnt = sum(1 for _, t in rel if o in t)
            cands.append(("%s sees %s fairly often%s." % (me, o, " and they chat now and then" if any("conversation" in t or "chat" in t for _, t in rel) else ""), o, dice.randint("ri%d" % qi, 3, 5)))
        cands.append(("%s's days follow a steady routine of meals, work and rest." % me, "routine", 2))
        for txt, about, imp in cands[:k]:
            insights.append({"insight": txt, "about": about[:60], "evidence": nums[:min(len(nums), 10)], "importance": imp})
    seen_i = []
    uniq = []
    for it in insights:
        if it["insight"] not in seen_i:
            seen_i.append(it["insight"])
            uniq.append(it)
    insights = uniq
    return {"insights": insights[:15] or [{"insight": "%s keeps to a routine." % me, "about": "routine", "evidence": [1], "importance": 2}]}


def h_relationship(c):
    dice = c.dice
    me = c.self
    others = [n for n in c.names if n != me]
    other = None
    tail = c.user[-700:]
    asked = [n for n in _names_in(tail, c.names) if n != me]
    asked = list(dict.fromkeys(asked))
    if len(asked) > 1:
        parts = []
        for o in asked[:3]:
            cnt = sum(1 for _, t in _memory_items(c) if o in t)
            parts.append("%s is %s" % (o, "someone %s sees around a fair bit" % _short(me) if cnt >= 2 else "someone %s knows only a little" % _short(me)))
        return {"summary": "From %s's side: %s; %s feels friendly enough towards them." % (me, "; ".join(parts), _short(me))}
    if asked:
        other = asked[0]
    if other is None and others:
        other = others[0]
    if other is None:
        return {"summary": "%s doesn't know them well yet." % me}
    mems = [t for _, t in _memory_items(c) if other and (other in t or _short(other) in t)]
    chats = [t for t in mems if re.search(r"conversation|chatted|told|heard", t)]
    ident = other and re.search(r"(?:Identity|knows|visits|friend)[^\n]*" + re.escape(other), c.user)
    if len(chats) >= 2 or ident:
        base = dice.choice("rel", ["%s knows %s well and is fond of them." % (me, other),
                                   "%s and %s are on friendly terms and see each other regularly." % (me, other),
                                   "%s thinks warmly of %s, someone they see often." % (me, other)])
    elif mems:
        base = dice.choice("rel", ["%s knows %s a little, mostly from seeing them around." % (me, other),
                                   "%s is on nodding terms with %s and feels friendly towards them." % (me, other)])
    else:
        base = "%s doesn't know %s well yet." % (me, other)
    info = _person_info(c, me)
    ev = next((e for e in info["events"] if e.get("host") in (me, other)), None)
    if ev and dice.p("relev", 0.5):
        if ev.get("host") == me:
            base += " %s hopes %s will come when they %s." % (_short(me), _short(other), ev.get("activity"))
        else:
            base += " %s is curious about %s's plan to %s." % (_short(me), _short(other), ev.get("activity"))
    return {"summary": base}


def h_revise_currently(c):
    dice = c.dice
    me = c.self
    old = ""
    m = re.search(r"(?m)^\s*(?:Currently|Status|Now)\s*:\s*(.+)$", c.user)
    if m:
        old = m.group(1).strip()
    first = _split_sentences(old)[0] if old else "%s is going about the day." % me
    info = _person_info(c, me)
    adds = []
    if not dice.p("forget", 0.15):
        for ev in info["events"]:
            host = ev.get("host") or "someone"
            past = ev.get("past")
            key = "cur:" + "-".join(ev.get("key") or [])
            when = _when_text(ev, c.today, dice, key, explicit_time_p=0.8)
            where = _where_text(ev, dice, key)
            tail = " ".join(x for x in (where, when) if x)
            if past:
                if dice.p(key + ":stale", 0.40):
                    adds.append("%s is still thinking about %s's plan to %s%s." % (me, host if host != me else "their own", ev.get("activity"), (" " + tail) if tail else ""))
                continue
            if host == me:
                if dice.p(key, 0.90):
                    adds.append("%s is planning to %s%s, and hopes to tell as many people as possible." % (me, ev.get("activity"), (" " + tail) if tail else ""))
            else:
                accepted = bool(re.search(re.escape(me) + r": \"[^\"]*(?:count me in|i'?ll (?:be there|come|go))", "\n".join(info["lines"]), re.I))
                if dice.p(key, 0.75 if accepted else 0.50):
                    adds.append("%s heard that %s %s %s%s%s." % (me, host, ev.get("intent", "plans to"), ev.get("activity"), (" " + tail) if tail else "",
                                                                  " and means to go" if accepted else ""))
            if len(adds) >= 2:
                break
    txt = " ".join([first] + adds)
    return {"currently": txt}


def h_probe(c):
    return {"ok": True}


_HANDLERS = {
    "conversation_memo": h_conversation_memo, "conversation_summary": h_conversation_summary,
    "group_summary": h_group_summary, "group_turn": h_group_turn, "daily_plan": h_daily_plan,
    "decompose": h_decompose, "importance": h_importance, "importance_batch": h_importance_batch,
    "interview": h_interview, "probe": h_probe, "react": h_react, "reflection_insights": h_reflection_insights,
    "reflection_questions": h_reflection_questions, "relationship": h_relationship,
    "revise_currently": h_revise_currently,
}


def _guess_handler(c):
    """Pick a handler by the schema's shape when the name is unknown."""
    s = c.schema or {}
    props = set((s.get("properties") or {}).keys())
    if {"talk", "lines"} <= props:
        return h_group_summary if "memos" in props else h_conversation_summary
    if {"utterance"} <= props:
        return h_group_turn
    if {"summary", "importance", "plan_activity"} <= props:
        return h_conversation_memo
    if "blocks" in props:
        return h_daily_plan
    if "steps" in props:
        return h_decompose
    if props == {"importance"}:
        return h_importance
    if "ratings" in props:
        return h_importance_batch
    if props == {"answer"}:
        return h_interview
    if "choice" in props:
        return h_react
    if "insights" in props:
        return h_reflection_insights
    if "questions" in props:
        return h_reflection_questions
    if props == {"summary"}:
        return h_relationship
    if props == {"currently"}:
        return h_revise_currently
    if props == {"ok"}:
        return h_probe
    return None


# ---------------------------------------------------------------------------
# malformation and entry point
# ---------------------------------------------------------------------------


def _malform_json(obj, text, c):
    dice = c.dice
    u = dice.u("malformed")
    if u < 0.015:
        cut = max(1, int(len(text) * (0.3 + 0.6 * dice.u("cut"))))
        return text[:cut]
    if u < 0.03:
        return dice.choice("wrap", ["Here is the JSON:\n```json\n%s\n```" % text,
                                    "%s\n\nI hope this helps!" % text,
                                    "Sure! %s" % text])
    if u < 0.04 and isinstance(obj, dict):
        req = list((c.schema or {}).get("required") or obj.keys())
        if req:
            k = dice.choice("drop", req)
            o2 = {kk: v for kk, v in obj.items() if kk != k}
            return json.dumps(o2, ensure_ascii=False)
    if u < 0.05 and isinstance(obj, dict):
        o2 = json.loads(json.dumps(obj))
        done = False
        for k, v in o2.items():
            if isinstance(v, bool):
                continue
            if isinstance(v, int):
                o2[k] = str(v)
                done = True
                break
            if isinstance(v, str) and re.match(r"^\d{4}-\d{2}-\d{2}$", v):
                d = _mk_date(*v.split("-"))
                o2[k] = "%s %d" % (_MONTHS[d.month - 1].capitalize(), d.day) if d else v + "?"
                done = True
                break
            if isinstance(v, list) and v and isinstance(v[0], dict):
                inner = v[0]
                for kk, vv in inner.items():
                    if isinstance(vv, int) and not isinstance(vv, bool):
                        inner[kk] = str(vv)
                        done = True
                        break
                if done:
                    break
            if isinstance(v, dict):
                for kk, vv in v.items():
                    if isinstance(vv, int) and not isinstance(vv, bool):
                        v[kk] = str(vv)
                        done = True
                        break
                if done:
                    break
        if not done:
            return text[:-1]
        return json.dumps(o2, ensure_ascii=False)
    return text


def respond(body: dict, seed: int) -> str:
    try:
        return _respond(body, seed)
    except Exception:
        try:
            sch = _schema(body)
            if sch:
                d = _Dice("fallback|%s|%s" % (seed, _schema_name(body)))
                return json.dumps(_fit(_build(sch, sch, d), sch, sch, d), ensure_ascii=False)
        except Exception:
            pass
        return "I'm not sure what to say.\n[end]"


def _respond(body, seed):
    if not isinstance(body, dict):
        body = {}
    c = build_ctx(body, seed)
    if c.schema is None:
        r = h_converse_text(c)
        return fmt_text_turn(c, r)
    h = _HANDLERS.get(c.sname) or _guess_handler(c)
    if h is None:
        obj = _build(c.schema, c.schema, c.dice, "unknown")
    else:
        obj = h(c)
    obj = _fit(obj, c.schema, c.schema, c.dice, "fit")
    text = json.dumps(obj, ensure_ascii=False)
    if h is h_probe:
        return text
    return _malform_json(obj, text, c)


# ---------------------------------------------------------------------------
# self-test of the event reader
# ---------------------------------------------------------------------------


def _self_test():
    names = ["Mara Quill", "Ted Olsen", "Rosa Lind", "Piet Haan"]
    places = ["Oakby:Corn Exchange:hall", "Oakby:Mill Pond:bank", "Oakby:Lind farmhouse:kitchen", "Oakby:Red Lion:bar",
              "Oakby:Chapel:vestry", "Oakby:Quill cottage:bedroom"]
    anchor = _dt.date(2026, 5, 6)  # a Wednesday
    events = [
        ("Mara Quill would like to show anyone interested how to graft apple trees at the Corn Exchange on Friday at 4 pm.", "2026-05-08", "16:00", "Oakby:Corn Exchange:hall"),
        ("Ted Olsen is hosting a quiz night at the Red Lion tomorrow evening, and anyone is welcome.", "2026-05-07", None, "Oakby:Red Lion:bar"),
        ("Rosa Lind is planning a picnic by the Mill Pond on Saturday from 12:30 to 14:00.", "2026-05-09", "12:30", "Oakby:Mill Pond:bank"),
        ("Piet Haan hopes to get a choir going at the Chapel next Thursday at half past seven.", "2026-05-07", "19:30", "Oakby:Chapel:vestry"),
        ("Mara Quill means to read her poems aloud at the Red Lion on May 12 at 8pm.", "2026-05-12", "20:00", "Oakby:Red Lion:bar"),
        ("Come along to the Corn Exchange on Sunday at 3 o'clock, Ted Olsen is running a repair café.", "2026-05-10", "15:00", "Oakby:Corn Exchange:hall"),
        ("Rosa Lind fancies a walk round the Mill Pond after work today; she'd love company.", "2026-05-06", None, "Oakby:Mill Pond:bank"),
        ("Ted Olsen will give a talk on old maps at the Chapel on 14 May, 18:00-19:00.", "2026-05-14", "18:00", "Oakby:Chapel:vestry"),
        ("Piet Haan is going to bake bread with the children at Lind farmhouse on Friday morning.", "2026-05-08", None, "Oakby:Lind farmhouse:kitchen"),
        ("Mara Quill wants to hold a seed swap at the Corn Exchange on Saturday 9 May at 10 am.", "2026-05-09", "10:00", "Oakby:Corn Exchange:hall"),
        ("Rosa Lind is throwing a party at Lind farmhouse tonight at nine.", "2026-05-06", "21:00", "Oakby:Lind farmhouse:kitchen"),
        ("Everyone is welcome at the Red Lion on Thursday at 7.30 pm when Ted Olsen plays the fiddle.", "2026-05-07", "19:30", "Oakby:Red Lion:bar"),
        ("Piet Haan is organising a clean-up of the Mill Pond on 2026-05-16 from 9 to 11 am.", "2026-05-16", "09:00", "Oakby:Mill Pond:bank"),
        ("Mara Quill intends to teach knitting in the Chapel vestry at noon tomorrow.", "2026-05-07", "12:00", "Oakby:Chapel:vestry"),
        ("Ted Olsen's having a few friends round at the Red Lion at sundown on Friday, join us!", "2026-05-08", "19:30", "Oakby:Red Lion:bar"),
        ("Rosa Lind plans to lead a birdwatching walk by the Mill Pond at dawn on Sunday.", "2026-05-10", "06:00", "Oakby:Mill Pond:bank"),
        ("Piet Haan is holding a card game at the Red Lion at a quarter past eight this evening.", "2026-05-06", "20:15", "Oakby:Red Lion:bar"),
        ("Mara Quill would like to meet anyone who wants to start a book club, at the Corn Exchange on Monday at 5:30 pm.", "2026-05-11", "17:30", "Oakby:Corn Exchange:hall"),
        ("Let's all meet at the Chapel on Saturday at 2 pm to paint the railings, says Ted Olsen.", "2026-05-09", "14:00", "Oakby:Chapel:vestry"),
        ("Rosa Lind is putting on a cheese tasting at Lind farmhouse the day after tomorrow at 6 pm.", "2026-05-08", "18:00", "Oakby:Lind farmhouse:kitchen"),
        ("Piet Haan is giving a free bike check at the Corn Exchange in two days, from 1 pm until 3 pm.", "2026-05-08", "13:00", "Oakby:Corn Exchange:hall"),
    ]
    non_events = [
        "Ted Olsen opens the Red Lion every day at 11 am.",
        "Rosa Lind milks the cows each morning at 5.",
        "Mara Quill hosted a quiz at the Red Lion yesterday at 8 pm.",
        "Piet Haan is mending a fence.",
        "Ted Olsen usually walks by the Mill Pond on Sundays at 7 am.",
        "Mara Quill works at the Corn Exchange from 9 am to 5 pm.",
        "Rosa Lind went to the Chapel last Saturday at 10 am.",
        "Piet Haan is having breakfast (starting: having breakfast).",
        "Lifestyle: wakes up at 6 am, works at the mill from 7 am to 4 pm, and goes to bed at 10 pm",
        "Ted Olsen always plays darts on Fridays at 9 pm.",
        "The repair café took place at the Corn Exchange on Monday at 3 pm.",
        "Rosa Lind will be at work on Thursday from 8 to 4.",
    ]
    fails = []
    for s, d, t, p in events:
        ev = read_event(s, anchor, names, places=places, year=2026)
        if ev is None:
            fails.append(("missed", s))
            continue
        if str(ev.get("date")) != d:
            fails.append(("date %s != %s" % (ev.get("date"), d), s))
        st = ev.get("start")
        if st is None and ev.get("vague"):
            st = _vague_to_min(ev["vague"], _Dice("selftest"), "v", 17 * 60)
        if t is not None and _hm(st) != t:
            fails.append(("time %s != %s" % (_hm(st), t), s))
        if t is None and ev.get("start") is None and not ev.get("vague"):
            fails.append(("no time at all", s))
        if ev.get("place") != p:
            fails.append(("place %r != %r" % (ev.get("place"), p), s))
        if not ev.get("host"):
            fails.append(("no host", s))
    for s in non_events:
        ev = read_event(s, anchor, names, places=places, year=2026)
        if ev is not None:
            fails.append(("false event", s))
    # determinism / shape smoke test
    body = {"messages": [{"role": "system", "content": "You are the inner mind of Mara Quill."},
                         {"role": "user", "content": "Name: Mara Quill\nIt is Wednesday May 6, 09:00.\n"
                          "Mara Quill has news on her mind: Mara Quill would like to show people how to graft apple trees at the Corn Exchange on Friday at 4 pm.\n"
                          "The conversation so far:\nTed Olsen: \"Morning, Mara!\"\n\nWhat does Mara Quill say next? Then [end] or [continue]."}]}
    a = respond(body, 3)
    b = respond(body, 3)
    if a != b:
        fails.append(("nondeterministic", a))
    return fails


if __name__ == "__main__":
    res = _self_test()
    if res:
        for r in res:
            print("FAIL", r)
    else:
        print("self-test: all event-reader cases pass")
