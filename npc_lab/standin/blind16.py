"""blind16 -- a deterministic stand-in for a small (3-4B) instruction-tuned chat model.

Entry point: respond(body: dict, seed: int) -> str  (the assistant message content).
Python 3.11 standard library only.  Written blind, from the captured request bodies only.

HOW IT READS A REQUEST
  * Purpose = response_format.json_schema.name.  Without a response_format, a prompt that
    asks for an [end]/[continue] tag is a one-to-one conversation turn (plain text: the
    words, then the tag on its own line).  Unknown purposes get a plausible object built from
    the schema; a crash inside a handler is caught and answered the same way.
  * The character is the name in the system line ("inner mind of X").  Persona blocks
    (Name/Age/Innate traits/Identity/Lifestyle/Currently), "It is <weekday> <Month> <d>, HH:MM",
    "Today is ...", the day list "(one of: YYYY-MM-DD ...)", place lists, plan lines
    "- HH:MM-HH:MM activity (planned at P)", memories "- [stamp] text", 'Name: "text"'
    conversation lines, "conversation with ...: A: "..." / B: "..."" memories and
    "X has news ...: <sentence>" lines are found by shape.  Schema enums are the authority
    for names, places, days, objects.  Possessive pronouns are guessed from persona lines.
  * Attention like a small model: items of a memory list longer than 12 lines that are not
    among its last 6 lines are overlooked at MIDDLE_MISS.  The status line, the news line and
    the last lines are always read.

EVENT READER (sentence structure, never a list of event nouns)
  A sentence is an event when it has (1) an intention/hosting/invitation/announcement marker:
  means/intends/plans/hopes to, is going to, will, 'll, is hosting/holding/having/running/
  putting on/organising ..., invites, let's, come along/over/round, join us/in, drop by,
  pop in, bring a ..., do come, you're invited, anybody/anyone who, whoever fancies,
  all/everyone welcome, open to all, "<noun> starts/begins/kicks off/takes place at|on ..."
  -- or a progressive verb ("is setting up") with a day word; (2) a clock time, a part of
  day or a date; (3) no routine marker (every/each <day>, usually, always, daily, plural
  weekdays, wakes up, goes to bed), no past marker (yesterday, last <X>, ago, used to, back
  in, remember when, earlier today, went, was/were <verb>ing except wondering/thinking/
  hoping/going to), and fewer than three clock times (a schedule, not an event).  Markers
  of telling (means to tell/mention ...) are skipped to the next marker; "X told Y:" and
  "X heard from Y:" prefixes are removed and X kept as the teller.
  Host: the name (or I/we = the speaker) just before the marker, else a known person's first
  name earlier in the sentence, else the speaker.  What: the words after the marker (base
  verb phrase), or the words before an announcement marker (noun phrase), minus time, date,
  place, the telling clause and anything after ';', ':', a quote mark or ' / '.
  Time: "18:00", "6 pm", "6:30", noon/midday/midnight, "half past six", "quarter past/to",
  "seven o'clock", "six thirty", bare hours after at/from/to/until/between; ranges "between
  A and B", "from A to B", "A-B".  Without am/pm: afternoon/evening/tonight/night/dinner in
  the sentence -> pm; morning -> am; hours 1-7 -> pm; two-digit "HH:MM" is a 24-hour time.
  Part of day only: morning 10:00, lunchtime 12:00, afternoon 14:00, teatime 16:00, evening
  19:00, tonight 20:00.  Duration: the range, else 120 minutes.
  Date: ISO, "April 11", "11 April", "11th of April", weekday (next such day, "next" = a week
  on), today/tonight/this morning, tomorrow, the day after tomorrow -- relative to the time
  the sentence was said (memory stamp or now); no date -> that same day.
  Place: the first prepositional phrase (in/at/on/behind/outside/by/near/to ...) that is not a
  time or date and has a place noun, a capital or a possessive ("the back room of the X",
  "X's yard"); matched to known places by word overlap (distinct building words 3, room
  words 2, generic words like cottage/house/yard 1, a few synonyms pub=inn ...; a known
  first name brings its surname); below 2 points -> no place.
  Parentheses are read only when the main text lacks a time or date, except that with rate
  ANNOTATION_MISREAD a reversed range in a parenthesis ("12:00-10:00") is copied: its first
  time replaces the sentence's own.

DECISIONS AND RATES  (each draw = sha256(messages, seed, decision key); requests with
temperature 0 ignore the seed; wording variants are picked uniformly)
  Malformed JSON answers, 5.0% in total: TRUNCATED 1.5% (cut at 40-90% of its length),
  PROSE 1.5% (lead-in sentence with a code fence at FENCE 0.5, else "Sure! {...} I hope this
  helps."), MISSING 1.2% (one required top-level field dropped), REFUSAL 0.8% ("I'm sorry,
  but I can't help with that request.").  Plain-text turns, 5.0%: TEXT_PREFIX 2% (Name:
  "quoted"), TEXT_NOTAG 2% (tag missing), TEXT_NARRATE 1% ("X says: ..." tag on same line).
  The health probe ("Are you there?") is always answered {"ok": true}.
  Meetings (conversation_summary / group_summary): they talk at TALK_WITH_NEWS 0.92 if anyone
  has news, else TALK_NO_NEWS 0.50.  Order: the first named greets (and tells its news at
  once), the next greets back (GREET_ACT 0.50: mentions what they are doing) or tells its
  news; each other person answers each piece of news (at most two answers in groups of 4+);
  further tellers follow; the first speaker (the second, if the first spoke last)
  says goodbye.  Lines 2-6 (pair), 2-10 (group).
  NEWS_FORGET 0.10 a teller does not bring its news up.  News already over is not told as news
  (PAST_UNNOTICED 0.10 it still is); it is mentioned in the past tense at PAST_MENTION 0.50.
  Telling: OMIT_PLACE 0.08 and OMIT_TIME 0.08 leave the place / clock time out.
  Answering news: the host says it is theirs; a listener who already said yes/no keeps that;
  an event already over -> "been and gone" (PAST_UNNOTICED 0.10: not noticed); a real
  commitment (calling on / going to / visiting / meeting / hosting / a person's name) in the
  listener's plan of that day at that time -> decline at CLASH_DECLINE 0.85; otherwise yes at
  ACCEPT_BASE 0.45 + TRAIT_UP 0.10 (a trait like sociable, curious, jovial, nosy) - TRAIT_DOWN
  0.10 (stubborn, shy, reserved ...).  An invitation from the host is accepted/declined; news
  passed on is "I think I'll go along" (counts as meaning to go) or "Good to know".
  Memos (conversation_memo and the memos above) come from the lines: the first event told,
  who told it, and each later speaker's yes/no.  Summary: teller, host, what, place, when,
  replies; with no event, GIST_QUOTE 0.60 quotes the most informative line, else "a quick,
  friendly chat".  Importance: accepted 6, host 5, told/heard 4, declined 3, small talk 2
  (3 if the line passes news on), IMP_NOISE 0.30 +-1 (up at IMP_UP 0.60).
  Plan item only for one who said yes (host: HOST_PLAN_ITEM 0.10), not for an event already
  over (PAST_UNNOTICED 0.10), dropped at PLAN_FORGET 0.08; day from the event (else today),
  start from the event (else 10:00), minutes from the event (else 120), place matched among
  the offered places (else "").
  Turns (converse_turn / group_turn): 1) own news not yet mentioned -> tell it (NEWS_FORGET
  0.10; GREET_FIRST 0.50 prefix "Hi X!"; past news -> past-tense mention at PAST_MENTION 0.50,
  else small talk); 2) the last line tells an event -> answer as above (END_AFTER_REPLY 0.50
  end when 5+ lines); a yes/no to one's own news -> acknowledge (ACK_END 0.50 end when 4+
  lines); a goodbye from someone still present -> goodbye, end; 3) no lines -> greet; 4+
  lines -> goodbye at TURN_BYE 0.65; early -> greet back; else a filler line.  addressed_to:
  "everyone" for news in a group, else the last speaker if present, else the one partner.
  Daily plan: wake and bed hours and "<verb>s at X from A to B" items from Lifestyle (hour off
  by one at WAKE_OFF 0.10, direction HALF 0.50); Saturday/Sunday a day off at WEEKEND_OFF 0.50
  (lifestyle items of 3h+ dropped, DAYOFF_OUT 0.50 two hours on a green/park/garden); lunch
  12:00-13:00 and dinner 18:30-19:30 where one is at the time; HOBBY_EVENING 0.40 the status
  activity fills the evening; today's events: hosted/accepted ones kept at 1-EVENT_FORGET 0.93,
  ones only heard in the status/news at EVENT_HEARD_STATUS 0.40, in memories at
  EVENT_HEARD_MEMORY 0.20, declined ones never; SPREAD_NEWS 0.50 (+-trait) one hour at the
  first listed place of untold people; free time "relaxing at home"; sleeping at bedtime.
  Decompose: steps from an activity/place word table, count nearest total/10 at DECOMP_IDEAL
  0.60 else uniform in the allowed range, 5-15 minutes each adding up to the asked total
  (DECOMP_SUM_OFF 0.10: 5 minutes off), DECOMP_IDENTITY 0.30 one step from the status;
  objects only when a step's words fit one of the listed objects.
  Importance: sleeping/waking/meals/plans 1, relaxing/busy 2, chatting 3, told/heard 4, an
  event 6 (own event 8), anything else 3, IMP_NOISE 0.30 (+1 at IMP_UP 0.60), IMP_FLAT 0.05 a batch gets its
  mean throughout.
  React: asleep -> continue; untold news for the one seen -> talk 0.75 / wait 0.10 /
  continue 0.15; someone known (a chat remembered) -> talk 0.20 (+trait/3) / wait 0.03 /
  react 0.02 / continue; a stranger -> talk 0.12 (+trait/3) / wait 0.03 / react 0.02 /
  continue.
  Interview: "Do you know X?" -> the memories naming X (MIDDLE_MISS applies) and the Identity
  line; with none: "I don't know X"; else yes + what X told them (TOLD_MENTION 0.70) or a
  chat + what X was last seen doing.  Other questions: memories sharing 2+ content words; an
  event among them is told with teller, what, place, when and the own yes/no; else "I haven't
  heard anything about that".
  Reflection questions: the main event (host: who will come; guest: should I join), the two
  most-mentioned people, the usual workplace; FEWER_QUESTIONS 0.15 two instead of three.
  Reflection insights: per question, from statements naming its person or event (chats,
  where they are busy, yes/no answers) or the routine; WRONG_EVIDENCE 0.10 one cited number
  off by one (direction HALF 0.50).  Relationship: chats, places and yes/no answers per
  person.  Revise status: first sentence of the old status + up to two events (hosted,
  accepted, declined, heard); events already over are dropped unless STALE_KEEP 0.40.
"""
import datetime
import hashlib
import json
import random
import re

RATES = {
    "TRUNCATED": 0.015, "PROSE": 0.015, "MISSING": 0.012, "REFUSAL": 0.008,
    "TEXT_PREFIX": 0.02, "TEXT_NOTAG": 0.02, "TEXT_NARRATE": 0.01,
    "TALK_WITH_NEWS": 0.92, "TALK_NO_NEWS": 0.50, "NEWS_FORGET": 0.10,
    "OMIT_PLACE": 0.08, "OMIT_TIME": 0.08, "ACCEPT_BASE": 0.45, "TRAIT_UP": 0.10,
    "TRAIT_DOWN": 0.10, "CLASH_DECLINE": 0.85, "PAST_UNNOTICED": 0.10, "PLAN_FORGET": 0.08,
    "HOST_PLAN_ITEM": 0.10, "ANNOTATION_MISREAD": 0.25, "MIDDLE_MISS": 0.20,
    "WAKE_OFF": 0.10, "WEEKEND_OFF": 0.50, "EVENT_FORGET": 0.07, "SPREAD_NEWS": 0.50,
    "REACT_NEWS_TALK": 0.75, "REACT_NEWS_WAIT": 0.10, "REACT_KNOWN_TALK": 0.20,
    "REACT_STRANGER_TALK": 0.12, "REACT_WAIT": 0.03, "REACT_REACT": 0.02,
    "TURN_BYE": 0.65, "DECOMP_SUM_OFF": 0.10, "IMP_NOISE": 0.30, "IMP_FLAT": 0.05,
    "FEWER_QUESTIONS": 0.15, "WRONG_EVIDENCE": 0.10, "STALE_KEEP": 0.40,
    "GIST_QUOTE": 0.60, "IMP_UP": 0.60, "GREET_ACT": 0.50, "PAST_MENTION": 0.50,
    "GREET_FIRST": 0.50, "END_AFTER_REPLY": 0.50, "ACK_END": 0.50, "HOBBY_EVENING": 0.40,
    "DAYOFF_OUT": 0.50, "EVENT_HEARD_STATUS": 0.40, "EVENT_HEARD_MEMORY": 0.20,
    "DECOMP_IDENTITY": 0.30, "DECOMP_IDEAL": 0.60, "TOLD_MENTION": 0.70, "FENCE": 0.50,
    "HALF": 0.50,
}

OUTGOING = {"sociable", "energetic", "curious", "jovial", "generous", "nosy", "friendly",
            "outgoing", "cheerful", "warm", "chatty", "kind", "adventurous", "lively"}
RESERVED = {"stubborn", "shy", "grumpy", "reserved", "quiet", "cautious", "lazy", "gruff",
            "introverted", "private", "aloof"}

# ----------------------------------------------------------------------------- dice


class Dice:
    def __init__(self, body, seed):
        msgs = body.get("messages") or []
        temp = body.get("temperature")
        s = json.dumps(msgs, sort_keys=True, ensure_ascii=False)
        if temp == 0:
            seed = 0
        self.base = hashlib.sha256((s + "|" + str(seed)).encode("utf-8")).hexdigest()

    def r(self, key):
        h = hashlib.sha256((self.base + "#" + str(key)).encode("utf-8")).digest()
        return int.from_bytes(h[:8], "big") / 2 ** 64

    def chance(self, key, p):
        return self.r(key) < p

    def pick(self, key, seq):
        seq = list(seq)
        if not seq:
            return None
        return seq[int(self.r(key) * len(seq)) % len(seq)]

    def randint(self, key, a, b):
        return a + int(self.r(key) * (b - a + 1)) % (b - a + 1)

    def rng(self, key):
        return random.Random(self.base + "#" + str(key))


# ----------------------------------------------------------------------------- words

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]
MONTH_NAMES = [m.capitalize() for m in MONTHS]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
NUMW = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
        "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_NUMW_RE = "|".join(NUMW)
_MON_RE = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
           r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_WD_RE = r"(?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_UP, _LO = "A-ZÀ-ÖØ-Þ", "a-zß-öø-ÿ"
_PART = (r"(?:[" + _UP + r"]'[" + _UP + r"][" + _LO + r"]+|Mc[" + _UP + r"][" + _LO + r"]+|[" + _UP +
         r"][" + _LO + r"]+)(?:-[" + _UP + r"][" + _LO + r"]+)?")
NAME_RE = _PART + r"(?: " + _PART + r")?"
STOP = set("""a an the of to in on at for and or but with from by as is are was were be been
being it its this that these those he she they them his her their my our your you we i me us
him what who whom which when where how why do does did have has had will would can could
should shall may might must not no yes so if then than there here about into over after
before up down out off just also very really any anybody anyone some someone something
all each every much many more most other such only own same too s t let lets""".split())


def _mon_index(tok):
    tok = tok.lower().rstrip(".")
    for i, m in enumerate(MONTHS):
        if m.startswith(tok[:3]):
            return i + 1
    return None


def _num(tok):
    tok = tok.lower()
    if tok.isdigit():
        return int(tok)
    return NUMW.get(tok)


def hm(mins):
    mins = int(mins) % 1440
    return "%02d:%02d" % (mins // 60, mins % 60)


def parse_hm(s):
    m = re.match(r"\s*(\d{1,2}):(\d{2})", s or "")
    if not m:
        return None
    return int(m.group(1)) * 60 + int(m.group(2))


def say_time(mins):
    mins = int(mins) % 1440
    h, m = divmod(mins, 60)
    if h == 12 and m == 0:
        return "noon"
    if h == 0 and m == 0:
        return "midnight"
    ap = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return ("%d %s" % (h12, ap)) if m == 0 else ("%d:%02d %s" % (h12, m, ap))


def say_date(d, ref):
    if d is None:
        return ""
    wd = WEEKDAYS[d.weekday()].capitalize()
    full = "%s %s %d" % (wd, MONTH_NAMES[d.month - 1], d.day)
    if ref is not None:
        delta = (d - ref).days
        if delta == 0:
            return "today"
        if delta == 1:
            return "tomorrow (%s)" % full
    return "on " + full


def words(s):
    return [w for w in re.findall(r"[a-z0-9]+", (s or "").lower())]


def content_words(s):
    return [w for w in words(s) if w not in STOP and len(w) > 2]


NOT_NAME = set(w.capitalize() for w in WEEKDAYS + MONTHS) | {
    "The", "Have", "Sorry", "Hi", "Hello", "Yes", "No", "Oh", "Well", "So", "And", "But", "Then",
    "Good", "Great", "Sounds", "It", "I", "We", "Did", "Do", "Right", "Anyway", "Morning",
    "Afternoon", "Evening", "Lovely", "Really", "Thanks", "Maybe", "Shame", "Brilliant", "Fine",
    "Nice", "Bye", "See", "Take", "Mm", "Huh", "Wasn", "That", "This", "There", "What", "Who"}


def is_name(n):
    parts = (n or "").split(" ")
    return bool(parts[0]) and parts[0] not in NOT_NAME and not any(p in NOT_NAME for p in parts[1:])


def third_person(vp):
    parts = (vp or "").split(" ", 1)
    v = parts[0]
    lv = v.lower()
    if re.search(r"(?:s|sh|ch|x|o)$", lv):
        v3 = v + "es"
    elif re.search(r"[^aeiou]y$", lv):
        v3 = v[:-1] + "ies"
    elif lv == "have":
        v3 = "has"
    else:
        v3 = v + "s"
    return v3 + (" " + parts[1] if len(parts) > 1 else "")


def first_name(n):
    return (n or "").split(" ")[0]


def clip(s, n):
    s = re.sub(r"\s+", " ", s or "").strip()
    if len(s) <= n:
        return s
    cut = s[: n - 1]
    if " " in cut[n // 2:]:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:-") + "…"


def sentences_of(text):
    text = re.sub(r"\s+", " ", text or "").strip()
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z\"'(])|\s+/\s+", text)
    return [p.strip() for p in parts if p.strip()]


# ----------------------------------------------------------------------------- times

_AP = r"(?:a\.m\.|p\.m\.|am|pm)"
TIME_RE = re.compile(
    r"(?P<noon>\b(?:noon|midday|midnight)\b)"
    r"|(?P<half>\bhalf\s+past\s+(?P<hh>\d{1,2}|" + _NUMW_RE + r")\b)"
    r"|(?P<qp>\bquarter\s+past\s+(?P<qph>\d{1,2}|" + _NUMW_RE + r")\b)"
    r"|(?P<qt>\bquarter\s+to\s+(?P<qth>\d{1,2}|" + _NUMW_RE + r")\b)"
    r"|(?P<hmm>\b(?P<h>\d{1,2})[:.](?P<m>[0-5]\d)(?!\d)\s*(?P<ap>" + _AP + r")?)"
    r"|(?P<ha>\b(?P<h2>\d{1,2})\s*(?P<ap2>" + _AP + r")(?![a-z]))"
    r"|(?P<oc>\b(?P<h3>\d{1,2}|" + _NUMW_RE + r")\s+o'?clock\b)"
    r"|(?P<wt>\b(?P<h4>" + _NUMW_RE + r")[\s-]+(?P<m4>thirty|fifteen|forty-five|forty five)\b)"
    r"|(?P<bare>\b(?:at|from|until|till|til|to|between|and|after|around|about|by)\s+"
    r"(?P<h5>\d{1,2}|" + _NUMW_RE + r")\b(?!\s*(?:am|pm|a\.m|p\.m|o'?clock|st|nd|rd|th|people|persons|others|of|more|"
    r"lines|minutes|mins|hours|days|weeks|months|years|times|steps|insights|questions|%|"
    + _MON_RE + r")\b)(?![:.]\d))",
    re.I)
PM_QUAL = re.compile(r"\b(afternoon|evening|tonight|night|supper|teatime|tea-time|dinner)\b", re.I)
AM_QUAL = re.compile(r"\b(morning|breakfast|dawn|sunrise)\b", re.I)
PART_RE = re.compile(r"\b(?:(this|tomorrow|in the|on \w+|\w+day)\s+)?(morning|afternoon|evening|"
                     r"lunchtime|lunch time|teatime|tonight|night)\b", re.I)
PART_START = {"morning": 600, "lunchtime": 720, "lunch time": 720, "afternoon": 840,
              "teatime": 960, "evening": 1140, "tonight": 1200, "night": 1200}


def find_times(s):
    """Return list of dicts: start,end (spans), mins, explicit_ap ('am'/'pm'/None)."""
    out = []
    for m in TIME_RE.finditer(s):
        g = m.groupdict()
        ap = None
        if g["noon"]:
            w = g["noon"].lower()
            mins = 0 if w == "midnight" else 720
            ap = "fixed"
            pos = m.start("noon")
        elif g["half"]:
            h = _num(g["hh"])
            mins = h * 60 + 30
            pos = m.start("half")
        elif g["qp"]:
            mins = _num(g["qph"]) * 60 + 15
            pos = m.start("qp")
        elif g["qt"]:
            mins = _num(g["qth"]) * 60 - 15
            pos = m.start("qt")
        elif g["hmm"]:
            h = int(g["h"])
            if h > 24:
                continue
            mins = h * 60 + int(g["m"])
            ap = (g["ap"] or "").lower().replace(".", "") or None
            if ap is None and (h >= 13 or h == 0 or len(g["h"]) == 2) and g["hmm"][len(g["h"])] == ":":
                ap = "fixed"
            pos = m.start("hmm")
        elif g["ha"]:
            h = int(g["h2"])
            if h > 12 or h == 0:
                continue
            mins = h * 60
            ap = g["ap2"].lower().replace(".", "")
            pos = m.start("ha")
        elif g["oc"]:
            mins = _num(g["h3"]) * 60
            pos = m.start("oc")
        elif g["wt"]:
            mm = {"thirty": 30, "fifteen": 15}.get(g["m4"].lower(), 45)
            mins = _num(g["h4"]) * 60 + mm
            pos = m.start("wt")
        else:
            h = _num(g["h5"])
            if h is None or h == 0 or h > 12:
                continue
            mins = h * 60
            pos = m.start("h5")
        out.append({"pos": pos, "end": m.end(), "mins": mins, "ap": ap})
    return out


def _apply_ap(t, s, other=None):
    mins = t["mins"]
    ap = t["ap"]
    h = mins // 60
    if ap == "fixed":
        return mins
    if ap == "pm":
        return mins + 720 if h < 12 else mins
    if ap == "am":
        return mins - 720 if h == 12 else mins
    if other is not None and other.get("ap") == "pm" and h < 12:
        return mins + 720
    if PM_QUAL.search(s) and h < 12:
        return mins + 720
    if AM_QUAL.search(s):
        return mins
    if 1 <= h <= 7:
        return mins + 720
    return mins


def read_time(s):
    """(start, end, how) from a sentence; how in {'clock','part',None}."""
    ts = find_times(s)
    if ts:
        t1 = ts[0]
        t2 = None
        if len(ts) > 1:
            between = s[t1["end"]:ts[1]["pos"]]
            if re.fullmatch(r"\s*(?:-|–|—|to|till|til|until|and|through)\s*", between, re.I):
                t2 = ts[1]
        # "until 8" right after "from 6" handled above; bare "to" with numbers too
        st = _apply_ap(t1, s, t2)
        en = _apply_ap(t2, s, t1) if t2 else None
        if en is not None and en <= st and t2["ap"] is None and en + 720 > st:
            en += 720
        if en is not None and en < st:
            en = None
        return st, en, "clock"
    m = PART_RE.search(s)
    if m:
        part = m.group(2).lower()
        return PART_START.get(part, 600), None, "part"
    return None, None, None


def part_word(s):
    m = PART_RE.search(s or "")
    return m.group(2).lower() if m else None


# ----------------------------------------------------------------------------- dates

MD_RE = re.compile(r"\b(?P<mon>" + _MON_RE + r")\.?\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?\b(?!:)", re.I)
DM_RE = re.compile(r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>" + _MON_RE + r")\b", re.I)
ISO_RE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
WD_RE = re.compile(r"\b(?P<mod>next|this|coming|on)?\s*(?P<wd>" + _WD_RE + r")(?P<pl>s)?\b", re.I)
REL_RE = re.compile(r"\b(the day after tomorrow|tomorrow|today|tonight|this (?:morning|afternoon|"
                    r"evening))\b", re.I)


def read_date(s, ref, year):
    """date or None; ref = date the sentence was said."""
    m = ISO_RE.search(s)
    if m:
        try:
            return datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            pass
    for rx in (MD_RE, DM_RE):
        m = rx.search(s)
        if m:
            mon = _mon_index(m.group("mon"))
            d = int(m.group("d"))
            if mon and 1 <= d <= 31:
                try:
                    y = year or (ref.year if ref else 2026)
                    dt = datetime.date(y, mon, d)
                    if ref and (ref - dt).days > 180:
                        dt = datetime.date(y + 1, mon, d)
                    return dt
                except ValueError:
                    pass
    m = REL_RE.search(s)
    rel = None
    if m and ref:
        w = m.group(1).lower()
        rel = ref + datetime.timedelta(days=2 if w.startswith("the day after") else
                                       1 if w == "tomorrow" else 0)
    for m in WD_RE.finditer(s):
        if m.group("pl"):
            continue
        if ref is None:
            break
        wd = WEEKDAYS.index(m.group("wd").lower())
        ahead = (wd - ref.weekday()) % 7
        if ahead == 0 and (m.group("mod") or "").lower() == "next":
            ahead = 7
        return ref + datetime.timedelta(days=ahead)
    return rel


# ----------------------------------------------------------------------------- markers

INTENT_RE = re.compile(
    r"(?P<m>\b(?:means to|meaning to|intends? to|intending to|plans? to|planning to|"
    r"(?:is|are|am|'m|'re|'s) going to(?!:)|gonna|wants? (?:everyone|everybody|people|anyone|anybody|"
    r"folk|you|us|friends) to|hopes? to|(?<!it )will|(?<=\w)'ll|shall|"
    r"(?:is|are|am|'m|'re|'s|will be) (?:hosting|holding|throwing|having|running|organi[sz]ing|"
    r"putting on|opening|starting|giving|leading|hosting|showing|doing|playing|teaching|"
    r"setting up|laying on|cooking|baking)|invites?|inviting|let'?s|lets|"
    r"come (?:along|over|round|by|and|to|join)|join (?:me|us|him|her|them|in)|"
    r"(?:all|everyone|everybody|anyone|anybody) (?:is |are )?welcome|anybody who|anyone who|"
    r"whoever fancies|who fancies|open to all|bring (?:a|an|your|some)|drop (?:by|in)|"
    r"pop (?:in|over|round|along|by)|do come|you'?re (?:all )?invited|feel free to|join in|"
    r"(?:starts|begins|kicks off|takes place)(?= (?:at|from|on|in|this|tomorrow|tonight)))\b)", re.I)
ANNOUNCE_RE = re.compile(r"^(?:(?:all|everyone|everybody|anyone|anybody) (?:is |are )?welcome|"
                         r"open to all|bring |drop |pop |do come|you'?re (?:all )?invited|feel free|"
                         r"join in|starts|begins|kicks off|takes place)", re.I)
COMM_AFTER = re.compile(r"^\s*(?:tell|mention|pass|spread|say|ask|let \w+ know|remind|"
                        r"talk|chat|see you|catch)\b", re.I)
PROG_RE = re.compile(r"\b(?:is|are|am|'m|'re)\s+(?P<v>[a-z]+ing)\b", re.I)
ROUTINE_RE = re.compile(
    r"\b(?:every|each)\s+(?:day|morning|afternoon|evening|night|week|weekend|month|year|"
    + _WD_RE + r")\b|\b(?:usually|always|daily|weekly|nightly|most days|on weekdays|every)\b|"
    r"\b(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b|"
    r"\bwakes? up at\b|\bgoes to bed\b", re.I)
PAST_RE = re.compile(
    r"\b(?:yesterday|last\s+(?:night|week|month|year|spring|summer|autumn|winter|time|"
    + _WD_RE + r"|" + _MON_RE + r")|ago|used to|back in|in the past|remember(?:s|ed)? (?:when|how|"
    r"the time)|years back|as a (?:boy|girl|child)|earlier today|earlier on|just now|"
    r"(?:was|were) (?!wondering|thinking|hoping|going to)\w+ing|went|had been|took place)\b", re.I)
ACCEPT_RE = re.compile(
    r"\b(?:count me in|i'?ll (?:be there|come|go|join|pop|drop|try to come|make it|be along|bring|"
    r"see you there)|i will (?:be there|come|go|join)|i'?d love to|wouldn't miss it|see you there|"
    r"i'?m in\b|i'?m coming|i can make it|yes,? please|i might (?:go|come|pop|drop)|"
    r"i think i'?ll (?:go|come|pop|drop)|means? to go|i'?ll go along|i'?ll come along|"
    r"(?:sure|yes|okay|ok|great)[,!.] (?:i'?ll|see you|count)|i'?ll be there)", re.I)
DECLINE_RE = re.compile(
    r"\b(?:can'?t make it|cannot make it|can'?t come|won'?t be able|not able to come|no thanks|"
    r"i'?ll pass|not for me|i'?m busy then|have other plans|i have plans|can'?t go|cannot go|"
    r"won'?t make it|afraid not|maybe next time|i'?ll have to miss|i'?ll miss it|can'?t join)", re.I)
BYE_RE = re.compile(r"\b(?:see you|goodbye|bye|take care|must be off|must dash|better get on|"
                    r"good to talk|good talking|nice talking|cheerio|so long)\b", re.I)

PLACE_PREP = re.compile(
    r"\b(?P<prep>in|at|on|outside|behind|inside|by|near|round at|over at|down at|up at|beside|to)\s+"
    r"(?P<p>(?:the\s+)?(?:[A-Za-z][\w'’]*\s+){0,6}?[A-Za-z][\w'’]*)"
    r"(?=\s+(?:on|at|from|between|this|tomorrow|today|tonight|next|and|to|for|with|until|till|"
    r"when|where|around|before|after|if|so|that|who|while|by|in|\d)\b|\s*[,.;:!?()]|\s*$)")
PLACE_BAD_HEAD = re.compile(r"^(?:the\s+)?(?:morning|afternoon|evening|night|noon|midday|midnight|"
                            r"weekend|moment|time|end|start|least|all|once|first|last|home|it|"
                            r"\d|" + _WD_RE + r"|" + _MON_RE + r"\b|half|quarter|" + _NUMW_RE + r")",
                            re.I)
PLACE_NOUN = re.compile(r"\b(?:garden|yard|room|hall|green|inn|pub|church|chapel|school|house|"
                        r"cottage|barn|field|square|shop|kitchen|workshop|bakery|bakehouse|surgery|"
                        r"office|park|pond|river|bridge|mill|farm|market|library|cafe|café|"
                        r"taproom|bar|porch|meadow|orchard|lane|street|corner|pavilion|nave|"
                        r"classroom|cellar|loft|shed|terrace|stall|quay|harbour|beach|common)s?\b",
                        re.I)
SYNONYMS = {"pub": ["inn", "taproom"], "church": ["nave", "st"], "chapel": ["nave"],
            "doctor": ["surgery"], "doctors": ["surgery"], "post": ["post", "office"],
            "bakery": ["bakehouse", "bakery"], "bakehouse": ["bakery", "bakehouse"],
            "school": ["classroom", "school"], "bar": ["taproom"], "home": ["bedroom"],
            "surgery": ["surgery", "waiting"]}


GENERIC_PLACE = {"cottage", "house", "flat", "rooms", "room", "bedroom", "home", "hall", "yard",
                 "place", "st", "old", "new", "little", "big"}


def norm_tokens(s):
    out = []
    for w in re.findall(r"[A-Za-z0-9]+", (s or "").replace("’", "'").replace("'s", "")):
        w = w.lower()
        if w in ("the", "of", "a", "an", "at", "in", "on"):
            continue
        out.append(w)
        out.extend(SYNONYMS.get(w, []))
    return set(out)


def match_place(text, places, names=()):
    """Best known place for a place phrase, or None."""
    if not text or not places:
        return None
    toks = norm_tokens(text)
    # a first name that belongs to a known person brings the surname
    for n in names:
        fn = first_name(n).lower()
        if fn in toks:
            toks |= norm_tokens(n)
    best, best_sc = None, 0.0
    for i, p in enumerate(places):
        parts = p.split(":")
        if len(parts) >= 3:
            town, bld, room = parts[0], parts[1], ":".join(parts[2:])
        elif len(parts) == 2:
            town, bld, room = "", parts[0], parts[1]
        else:
            town, bld, room = "", p, ""
        bt = toks & norm_tokens(bld)
        rt = toks & norm_tokens(room)
        sc = sum(1 if w in GENERIC_PLACE else 3 for w in bt) + \
            sum(0.5 if w in GENERIC_PLACE else 2 for w in rt) + 0.5 * len(toks & norm_tokens(town))
        sc -= i * 0.001
        if sc > best_sc:
            best, best_sc = p, sc
    return best if best_sc >= 2 else None


# ----------------------------------------------------------------------------- events

_ING_BASE = {"having": "have", "making": "make", "taking": "take", "giving": "give",
             "baking": "bake", "serving": "serve", "dancing": "dance", "sharing": "share",
             "closing": "close", "hosting": "host", "holding": "hold", "throwing": "throw",
             "running": "run", "putting": "put", "setting": "set", "opening": "open",
             "organising": "organise", "organizing": "organize", "showing": "show",
             "teaching": "teach", "playing": "play", "singing": "sing", "reading": "read",
             "cooking": "cook", "leading": "lead", "starting": "start", "doing": "do",
             "getting": "get", "bringing": "bring", "meeting": "meet", "writing": "write",
             "celebrating": "celebrate", "inviting": "invite", "lighting": "light",
             "turning": "turn", "offering": "offer", "laying": "lay", "firing": "fire",
             "giving away": "give away", "coming": "come", "going": "go", "riding": "ride",
             "pouring": "pour", "tasting": "taste", "sitting": "sit", "swimming": "swim"}
_BASE_ING = {v: k for k, v in _ING_BASE.items()}


def ing_to_base(v):
    v = v.lower()
    if v in _ING_BASE:
        return _ING_BASE[v]
    st = v[:-3]
    if len(st) > 2 and st[-1] == st[-2] and st[-1] not in "lsz":
        return st[:-1]
    return st


def base_to_ing(v):
    lv = v.lower()
    if lv in _BASE_ING:
        return _BASE_ING[lv]
    if lv.endswith("ie"):
        return lv[:-2] + "ying"
    if lv.endswith("e") and not lv.endswith("ee") and len(lv) > 2:
        return lv[:-1] + "ing"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", lv) and len(lv) <= 4:
        return lv + lv[-1] + "ing"
    return lv + "ing"


class Event:
    def __init__(self):
        self.host = None
        self.what = ""           # verb phrase (base form) or noun phrase
        self.kind = "verb"
        self.date = None
        self.start = None        # minutes
        self.end = None
        self.time_how = None
        self.place_text = ""     # e.g. "in the garden of the Plough Inn"
        self.source = ""
        self.teller = None

    def key(self):
        return ((self.host or "").lower(), " ".join(content_words(self.what)[:3]))

    def minutes(self):
        if self.start is not None and self.end is not None and self.end > self.start:
            return min(600, self.end - self.start)
        return 120

    def merge(self, o):
        for a in ("date", "place_text", "host"):
            if getattr(self, a) in (None, "") and getattr(o, a) not in (None, ""):
                setattr(self, a, getattr(o, a))
        if self.start is None and o.start is not None:
            self.start, self.end, self.time_how = o.start, o.end, o.time_how
        elif self.end is None and o.end is not None and o.start == self.start:
            self.end = o.end
        if len(o.what) > len(self.what) and not self.what:
            self.what = o.what

    # -- wording
    def vp(self, first_person=False):
        w = self.what
        if first_person:
            w = re.sub(r"\b(his|her|their)\b", "my", w)
            w = re.sub(r"\b(he|she|they)\b", "I", w)
        return w

    def gerund(self, first_person=False):
        w = self.vp(first_person)
        if self.kind != "verb" or not w:
            return w
        parts = w.split(" ", 1)
        return base_to_ing(parts[0]) + (" " + parts[1] if len(parts) > 1 else "")

    def short(self, n=6, first_person=False):
        ws = self.gerund(first_person).split()
        out = []
        for w in ws:
            if w.lower() in ("and",) and len(out) >= 3:
                break
            out.append(w)
            if len(out) >= n:
                break
        return " ".join(out).rstrip(",;")

    def when(self, ref, omit_time=False):
        bits = []
        if self.date is not None:
            bits.append(say_date(self.date, ref))
        if self.start is not None and not omit_time:
            if self.time_how == "part":
                pw = {600: "in the morning", 720: "at lunchtime", 840: "in the afternoon",
                      960: "at teatime", 1140: "in the evening", 1200: "in the evening"}
                bits.append(pw.get(self.start, "at " + say_time(self.start)))
            elif self.end is not None:
                bits.append("from %s to %s" % (say_time(self.start), say_time(self.end)))
            else:
                bits.append("at " + say_time(self.start))
        return " ".join(bits)

    def describe(self, speaker=None, ref=None, omit_place=False, omit_time=False, host_self=False):
        fp = host_self
        if fp:
            subj = "I'm going to "
        else:
            subj = (self.host + " is going to ") if self.host else "there's going to be "
        if self.kind == "verb":
            body = subj + self.vp(fp)
        else:
            body = (("I'm having " if fp else (self.host + " is having ")) if self.host or fp
                    else "there's ") + self.vp(fp)
        if self.place_text and not omit_place:
            body += " " + self.place_text
        w = self.when(ref, omit_time)
        if w:
            body += " " + w
        return re.sub(r"\s+", " ", body).strip()


def _strip_tell_clause(s):
    s = re.sub(r",?\s*and (?:he|she|they|I|we) (?:will|'ll|means to|wants to) (?:mention|tell|"
               r"pass|spread)[^.;]*", "", s, flags=re.I)
    return s


def read_event(sentence, ref_date=None, year=None, speaker=None, places=None, names=(),
               misread=False):
    """Structure-based event reader.  Returns Event or None."""
    s = re.sub(r"\s+", " ", (sentence or "")).strip()
    if not s:
        return None
    s = s.replace("’", "'")
    # strip "X told Y:" / "X heard from Y:" prefixes (reported speech)
    teller = None
    m = re.match(r"^(?:Have you heard\?\s*)?(" + NAME_RE + r") (?:told|heard from|learned from) "
                 r"(?:" + NAME_RE + r")(?:(?:,| and) " + NAME_RE + r")*:\s*(.*)$", s)
    if m:
        teller = m.group(1)
        s = m.group(2)
    main = re.sub(r"\([^()]*\)", " ", s)
    parens = " ".join(re.findall(r"\(([^()]*)\)", s))
    if PAST_RE.search(main) or ROUTINE_RE.search(main):
        return None
    if len(find_times(main)) >= 3:
        return None
    # choose the intent marker
    chosen = None
    for im in INTENT_RE.finditer(main):
        after = main[im.end():]
        if COMM_AFTER.match(after):
            continue
        chosen = im
        break
    date = read_date(main, ref_date, year)
    st, en, how = read_time(main)
    if chosen is None:
        pm = PROG_RE.search(main)
        if pm and (date is not None or REL_RE.search(main)) and pm.group("v").lower() not in (
                "chatting", "talking", "relaxing", "sleeping", "having", "working"):
            chosen = pm
        else:
            return None
    # time/date fallbacks from parentheses
    pst, pen, phow = read_time(parens) if parens else (None, None, None)
    if st is None and pst is not None:
        st, en, how = pst, pen, phow
    elif misread and pst is not None and pen is None:
        rev = re.search(r"(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})", parens)
        if rev:
            a = int(rev.group(1)) * 60 + int(rev.group(2))
            b = int(rev.group(3)) * 60 + int(rev.group(4))
            if b < a:
                st, en, how = a, None, "clock"
    if date is None and parens:
        date = read_date(parens, ref_date, year)
    if st is None and date is None and not PART_RE.search(main):
        return None
    ev = Event()
    ev.source = sentence
    ev.teller = teller
    # host: subject right before the marker
    pre = main[:chosen.start()]
    hm_ = re.search(r"(" + NAME_RE + r"|\bI\b|\b[Ww]e\b)\s*(?:really |also |still |just |'s )?$", pre)
    host = None
    if hm_:
        h = hm_.group(1)
        if h in ("I", "We", "we"):
            host = speaker
        elif is_name(h):
            host = h
    if host is None:
        allnames = re.findall(NAME_RE, pre)
        for cand in reversed(allnames):
            if not is_name(cand):
                continue
            full = [n for n in names if n == cand or n.split(" ")[0] == cand.split(" ")[0]]
            if full:
                host = full[0]
                break
        if host is None:
            host = speaker
    ev.host = host
    # what
    mk = chosen.group(0).lower()
    rest = main[chosen.end():]
    announce = chosen.re is not PROG_RE and ANNOUNCE_RE.match(mk)
    if announce and len(content_words(pre)) >= 1:
        rest = re.sub(r"^(?:the|our|my)\s+", "the ", pre.strip(), flags=re.I)
    rest = re.split(r'[";]|:(?=\s|$)|\s/\s', rest)[0]
    rest = _strip_tell_clause(rest)
    if re.search(r"(hosting|holding|throwing|having|running|organi[sz]ing|putting on|opening|"
                 r"starting|giving|leading|showing|doing|playing|teaching|setting up|laying on|"
                 r"cooking|baking)$", mk) or (chosen.re is PROG_RE):
        verb = chosen.group("v") if chosen.re is PROG_RE else mk.split(" ", 1)[1] \
            if mk.split(" ", 1)[0] in ("is", "are", "am", "'m", "'re", "'s") else mk
        if verb.startswith("be "):
            verb = verb[3:]
        bparts = verb.split(" ", 1)
        base = ing_to_base(bparts[0]) + (" " + bparts[1] if len(bparts) > 1 else "")
        rest = base + " " + rest.strip()
        kind = "verb"
    elif announce:
        kind = "noun"
    else:
        if re.match(r"invit", mk):
            rest = re.sub(r"^.*?\bto\b\s*", "", rest, count=1)
        rest = re.sub(r"^\s*(?:to\s+|along\s+to\s+|to join\s+)", "", rest)
        first = (rest.strip().split(" ") or [""])[0].lower()
        kind = "noun" if first in ("the", "a", "an", "my", "his", "her", "our", "their", "this",
                                   "some") else "verb"
    # place
    ptxt = ""
    pcand = ""
    for pstart in re.finditer(r"\b(?:in|at|on|outside|behind|inside|by|near|round|over|down|up|"
                              r"beside|to)\s", main):
        pmt = PLACE_PREP.match(main, pstart.start())
        if not pmt:
            continue
        cand = pmt.group("p").strip()
        if re.search(r"\b(?:in|at|on|outside|behind|inside|near|beside|to)\b", cand):
            continue
        if PLACE_BAD_HEAD.match(cand):
            continue
        if not (PLACE_NOUN.search(cand) or re.search(r"[A-Z]", cand[1:]) or "'" in cand):
            continue
        if pmt.group("prep") == "to" and not re.match(r"(?:the\s|" + NAME_RE + r"'s\s)", cand):
            continue
        if re.fullmatch(r"(?:the )?(?:" + _WD_RE + r"|" + _MON_RE + r")\b.*", cand, re.I):
            continue
        prep = main[pmt.start():pmt.start("p")].strip()
        ptxt = prep + " " + cand
        pcand = cand
        break
    # remove place/time/date phrases from what
    w = rest
    if ptxt:
        w = w.replace(ptxt, " ") if ptxt in w else w.replace(pcand, " ")
    w = re.sub(r"\b(?:on |this |next |coming )?(?:" + _WD_RE + r")\b,?", " ", w, flags=re.I)
    w = MD_RE.sub(" ", w)
    w = DM_RE.sub(" ", w)
    w = re.sub(r"\b(?:on|of)\s+(?=\s|,|$)", " ", w)
    w = re.sub(r"\b(?:between|from)\s+\S+(?:\s+(?:am|pm|a\.m\.|p\.m\.|o'clock))?\s+(?:and|to|till|"
               r"until|-)\s+\S+(?:\s+(?:am|pm|a\.m\.|p\.m\.|o'clock))?", " ", w, flags=re.I)
    for t in sorted(find_times(w), key=lambda t: -t["pos"]):
        seg_start = t["pos"]
        pre_w = w[:seg_start]
        pm2 = re.search(r"\b(?:at|from|until|till|to|between|and|after|around|about|by)\s*$", pre_w)
        if pm2:
            seg_start = pm2.start()
        w = w[:seg_start] + " " + w[t["end"]:]
    w = re.sub(r"\b(?:the day after tomorrow|tomorrow|today|tonight|this (?:morning|afternoon|"
               r"evening))\b", " ", w, flags=re.I)
    w = re.sub(r"\b(?:in the|on the|at|this)\s+(?:morning|afternoon|evening|night)\b", " ", w,
               flags=re.I)
    w = re.sub(r"\b(?:morning|afternoon|evening)\b(?=\s*(?:$|[.,;!?]))", " ", w, flags=re.I)
    w = re.sub(r"\s+", " ", w).strip(" ,;:.!?-")
    w = re.sub(r"\b(?:and|then|on|at|from|with)\s*$", "", w).strip(" ,;:.!?-")
    w = re.sub(r"^(?:for|to)\s+(?=(?:a|an|the|some|my|his|her|our|their)\b)", "", w)
    w = re.sub(r"\s+,", ",", w)
    if not w or COMM_AFTER.match(w) or len(w.split()) < (1 if kind == "noun" else 2):
        return None
    if re.match(r"^(?:see|talk|catch|speak|be|stay|sleep|rest)\b", w, re.I):
        return None
    if hm_ and hm_.group(1) in ("I", "We", "we") and host:
        g = getattr(names, "genders", {}).get(host, "their")
        w = re.sub(r"\bmy\b", g, w)
        w = re.sub(r"\bour\b", "their", w)
        w = re.sub(r"\bme\b", "them", w)
    ev.what = clip(w, 110)
    ev.kind = kind
    ev.date = date
    ev.start, ev.end, ev.time_how = st, en, how
    if ev.date is None and ref_date is not None:
        ev.date = ref_date
    ev.place_text = ptxt
    return ev


def read_events(text, ref_date=None, year=None, speaker=None, names=(), misread=False):
    out = []
    t = re.sub(r"\s+", " ", text or "")
    # a parenthesis belongs to the sentence before it
    for s in sentences_of(t):
        ev = read_event(s, ref_date, year, speaker, names=names, misread=misread)
        if ev is not None:
            out.append(ev)
    return out


# ----------------------------------------------------------------------------- prompt

STAMP_RE = re.compile(r"^\s*(?:-|\d+\.)\s*\[(?P<wd>" + _WD_RE + r")\s+(?P<mon>[A-Za-z]+)\s+(?P<d>\d{1,2}),"
                      r"\s*(?P<h>\d{1,2}):(?P<m>\d{2})\]\s*(?P<t>.*)$", re.I)
PLAN_RE = re.compile(r"^\s*-\s*(?P<a>\d{1,2}:\d{2})-(?P<b>\d{1,2}:\d{2})\s+(?P<act>.*?)\s*"
                     r"\((?:planned at\s+)?(?P<place>[^()]*:[^()]*)\)\s*$")
LINE_RE = re.compile(r"^(?P<n>" + NAME_RE + r"):\s*\"(?P<t>.*)\"\s*$")


class Names(list):
    """A list of known names that also carries guessed possessive pronouns."""

    def __init__(self, it=()):
        super().__init__(it)
        self.genders = {}


class Memory:
    def __init__(self, when, text, idx, total):
        self.when = when          # datetime or None
        self.text = text
        self.idx = idx
        self.total = total

    def date(self):
        return self.when.date() if self.when else None


class Prompt:
    def __init__(self, body):
        self.body = body
        msgs = body.get("messages") or []
        self.system = "\n".join(m.get("content") or "" for m in msgs if m.get("role") == "system")
        users = [m.get("content") or "" for m in msgs if m.get("role") == "user"]
        self.user = users[-1] if users else ""
        if not isinstance(self.user, str):
            self.user = json.dumps(self.user)
        rf = body.get("response_format") or {}
        js = rf.get("json_schema") or {}
        self.schema = js.get("schema") or {}
        self.purpose = js.get("name") or ("json" if rf.get("type") == "json_object" else "")
        self.json_mode = bool(rf)
        m = re.search(r"inner mind of (" + NAME_RE + r")", self.system)
        self.me = m.group(1) if m else None
        years = re.findall(r"\b(20\d\d)-\d\d-\d\d\b", self.user) or re.findall(r"\b(20\d\d)\b",
                                                                                  self.user)
        self.year = int(years[0]) if years else 2026
        self.now = None
        m = re.search(r"\bIt is (" + _WD_RE + r") ([A-Z][a-z]+) (\d{1,2}), (\d{1,2}):(\d{2})", self.user)
        if m:
            mon = _mon_index(m.group(2)) or 1
            self.now = datetime.datetime(self.year, mon, int(m.group(3)), int(m.group(4)),
                                         int(m.group(5)))
        else:
            m = re.search(r"\bToday is (" + _WD_RE + r") ([A-Z][a-z]+) (\d{1,2})", self.user)
            if m:
                mon = _mon_index(m.group(2)) or 1
                self.now = datetime.datetime(self.year, mon, int(m.group(3)), 0, 0)
        self.today = self.now.date() if self.now else None
        self.persons = self._persons()
        self.names = Names(dict.fromkeys([p["name"] for p in self.persons] +
                                        ([self.me] if self.me else []) +
                                        re.findall(r"\b(" + NAME_RE + r"):\s*\"", self.user)))
        for p in self.persons:
            t = " " + p.get("identity", "") + " " + p.get("currently", "") + " "
            he = len(re.findall(r"\b(?:he|his|him)\b", t, re.I))
            she = len(re.findall(r"\b(?:she|her|hers)\b", t, re.I))
            if he > she:
                self.names.genders[p["name"]] = "his"
            elif she > he:
                self.names.genders[p["name"]] = "her"

    # -- persona blocks
    def _persons(self):
        out = []
        for m in re.finditer(r"^Name: (.+)$", self.user, re.M):
            blk = self.user[m.start():]
            nxt = re.search(r"\n\s*\n|\nName: ", blk[5:])
            blk = blk[: nxt.start() + 5] if nxt else blk
            p = {"name": m.group(1).strip()}
            for key, lab in (("age", "Age"), ("traits", "Innate traits"), ("identity", "Identity"),
                             ("lifestyle", "Lifestyle"), ("currently", "Currently")):
                mm = re.search(r"^" + lab + r": (.*)$", blk, re.M)
                p[key] = mm.group(1).strip() if mm else ""
            out.append(p)
        return out

    def person(self, name):
        for p in self.persons:
            if p["name"] == name:
                return p
        return {"name": name, "age": "", "traits": "", "identity": "", "lifestyle": "",
                "currently": ""}

    # -- sections
    def section(self, header_rx, start=0):
        """Lines (bullets) right after a header line matching header_rx."""
        m = re.search(header_rx, self.user[start:], re.M)
        if not m:
            return []
        rest = self.user[start + m.end():]
        rest = rest[rest.find("\n") + 1:] if "\n" in rest else ""
        out = []
        for ln in rest.split("\n"):
            if re.match(r"^\s*(?:-|\d+\.)\s", ln):
                out.append(ln)
            elif ln.strip() == "" and not out:
                continue
            else:
                break
        return out

    def memories(self, name=None, header=None):
        if header is None:
            if name:
                header = r"^What " + re.escape(name) + r" remembers[^\n]*:\s*$"
            else:
                header = r"^(?:What .* remembers|Things .* remembers|These are .* memories)[^\n]*:\s*$"
        lines = self.section(header)
        return self.mem_objs(lines)

    def mem_objs(self, lines):
        out = []
        for ln in lines:
            m = STAMP_RE.match(ln)
            if m:
                mon = _mon_index(m.group("mon")) or 1
                try:
                    when = datetime.datetime(self.year, mon, int(m.group("d")), int(m.group("h")),
                                             int(m.group("m")))
                except ValueError:
                    when = None
                out.append(Memory(when, m.group("t").strip(), 0, 0))
            else:
                t = re.sub(r"^\s*(?:-|\d+\.)\s*", "", ln).strip()
                if t and not t.startswith("("):
                    out.append(Memory(None, t, 0, 0))
        for i, mo in enumerate(out):
            mo.idx, mo.total = i, len(out)
        return out

    def plan(self, name=None):
        if name:
            hdr = r"^What " + re.escape(name) + r" (?:has planned|had planned before it)[^\n]*:\s*$"
        else:
            hdr = r"^What .* (?:has planned|had planned before it)[^\n]*:\s*$"
        out = []
        for ln in self.section(hdr):
            m = PLAN_RE.match(ln)
            if m:
                a, b = parse_hm(m.group("a")), parse_hm(m.group("b"))
                if b <= a:
                    b += 1440
                out.append((a, b, m.group("act"), m.group("place").strip()))
        return out

    def news(self, name):
        rx = re.compile(re.escape(name) + r" has news (?:on their mind|to pass on)(?P<host>, an event "
                        r"they are hosting)?(?: and has not told (?P<to>[^:]+?) yet)?: (?P<t>.*)$", re.M)
        m = rx.search(self.user)
        if not m:
            return None
        return {"text": m.group("t").strip(), "hosting": bool(m.group("host")),
                "untold": m.group("to")}

    def places_of(self, name=None):
        if name:
            m = re.search(r"^Places " + re.escape(name) + r" knows:\s*(.*)$", self.user, re.M)
            if m and m.group(1).strip():
                return [x.strip() for x in m.group(1).split(",") if x.strip()]
            lines = self.section(r"^Places " + re.escape(name) + r" knows:\s*$")
            if lines:
                return [re.sub(r"^\s*-\s*", "", x).strip() for x in lines]
        lines = self.section(r"places [^\n]*knows[^\n]*:\s*$") or self.section(
            r"one of these places[^\n]*:\s*$")
        return [re.sub(r"^\s*-\s*", "", x).strip() for x in lines if ":" in x]

    def day_options(self):
        m = re.search(r"\(one of: (.*?)\)\)", self.user, re.S)
        out = []
        if m:
            for d in re.findall(r"(\d{4}-\d{2}-\d{2})", m.group(1)):
                out.append(d)
        return out

    def lines_after(self, header_rx):
        m = re.search(header_rx, self.user, re.M)
        if not m:
            return []
        rest = self.user[m.end():]
        rest = rest[rest.find("\n") + 1:]
        out = []
        for ln in rest.split("\n"):
            lm = LINE_RE.match(ln.strip())
            if lm:
                out.append((lm.group("n"), lm.group("t")))
            elif ln.strip() == "" or ln.strip().startswith("("):
                if out:
                    break
                continue
            else:
                break
        return out


def schema_enum(schema, *path):
    """Follow properties/items/$ref to an enum list."""
    defs = schema.get("$defs") or schema.get("definitions") or {}

    def res(node):
        while isinstance(node, dict) and "$ref" in node:
            node = defs.get(node["$ref"].split("/")[-1], {})
        if isinstance(node, dict) and "anyOf" in node:
            for alt in node["anyOf"]:
                r = res(alt)
                if r.get("type") != "null":
                    return r
        return node

    node = res(schema)
    for p in path:
        if p == "[]":
            node = res(node.get("items") or {})
        elif p.startswith("$"):
            node = res(defs.get(p[1:], {}))
        else:
            node = res((node.get("properties") or {}).get(p, {}))
    return node.get("enum") if isinstance(node, dict) else None


def schema_items_bounds(schema, prop):
    node = (schema.get("properties") or {}).get(prop, {})
    return node.get("minItems", 0), node.get("maxItems", 99)


# ----------------------------------------------------------------------------- knowledge

def traits_adj(p):
    t = set(words(p.get("traits", "")))
    return (RATES["TRAIT_UP"] if t & OUTGOING else 0.0) - (RATES["TRAIT_DOWN"] if t & RESERVED else 0.0)


def split_convo(text):
    """'conversation with X: A: "..." / B: "..."' -> [(speaker, text)]"""
    body = text.split(":", 1)[1] if text.lower().startswith("conversation with") else text
    out = []
    for part in re.split(r'"\s*/\s*(?=' + NAME_RE + r':\s*")', body):
        m = re.match(r'\s*(' + NAME_RE + r'):\s*"(.*)$', part.strip(), re.S)
        if m:
            out.append((m.group(1), m.group(2).rstrip('"').strip()))
    return out


class Know:
    """What one character knows about events, from status, news and memories."""

    def __init__(self, P, name, dice, mems=None, news=None, currently=None, tag=""):
        self.P, self.name, self.dice = P, name, dice
        self.events = []        # list of dict(ev, role, src)
        misread = dice.chance("misread" + tag + name, RATES["ANNOTATION_MISREAD"])
        self.misread = misread
        ref = P.today
        cur = currently if currently is not None else P.person(name).get("currently", "")
        for ev in read_events(cur, ref, P.year, speaker=name, names=P.names, misread=misread):
            self._add(ev, "status")
        nw = news if news is not None else P.news(name)
        self.news = nw
        self.news_event = None
        if nw:
            evs = read_events(nw["text"], ref, P.year, speaker=None, names=P.names, misread=misread)
            if evs:
                self.news_event = evs[0]
                self._add(evs[0], "news")
        mems = mems if mems is not None else []
        self.mems = mems
        for mo in mems:
            seen = True
            if mo.total > 12 and mo.idx < mo.total - 6:
                seen = not dice.chance("miss%s%s%d" % (tag, name, mo.idx), RATES["MIDDLE_MISS"])
            if not seen:
                continue
            mref = mo.date() or ref
            t = mo.text
            if t.lower().startswith("conversation with"):
                conv = split_convo(t)
                told = None
                for sp, tx in conv:
                    evs = read_events(tx, mref, P.year, speaker=sp, names=P.names, misread=misread)
                    if evs and told is None:
                        told = evs[0]
                        told.teller = sp
                        self._add(told, "heard", mo)
                        continue
                    if told is not None and sp == name:
                        if DECLINE_RE.search(tx):
                            self._role(told, "declined")
                        elif ACCEPT_RE.search(tx):
                            self._role(told, "accepted")
                continue
            if re.search(r"\b(?:'s plan for|plan for)\b", t):
                continue
            for ev in read_events(t, mref, P.year, speaker=None, names=P.names, misread=misread):
                role = "heard"
                if re.search(re.escape(name) + r" (?:cannot|can't|won't) go|" + re.escape(name) +
                             r" said (?:he|she|they) (?:can't|cannot|won't) (?:make it|go|come)", t):
                    role = "declined"
                elif ev.host == name:
                    role = "host"
                elif re.search(re.escape(name) + r" (?:means to go|will go|is going to go|said (?:he|she|"
                               r"they) would go)", t):
                    role = "accepted"
                self._add(ev, role, mo)
        for e in self.events:
            if e["ev"].host == name:
                e["role"] = "host"

    def _find(self, ev):
        k = ev.key()
        for e in self.events:
            if e["ev"].key() == k or (k[0] and e["ev"].host == ev.host and
                                      len(set(content_words(e["ev"].what)) &
                                          set(content_words(ev.what))) >= 2):
                return e
        return None

    def _add(self, ev, role, mo=None):
        e = self._find(ev)
        if e is None:
            self.events.append({"ev": ev, "role": role, "mem": mo})
            return
        e["ev"].merge(ev)
        rank = {"heard": 0, "status": 1, "news": 1, "declined": 2, "accepted": 2, "host": 3}
        r_new, r_old = rank.get(role, 0), rank.get(e["role"], 0)
        if r_new > r_old or (r_new == r_old == 2):   # a later yes/no replaces an earlier one
            e["role"] = role

    def _role(self, ev, role):
        e = self._find(ev)
        if e is not None and e["role"] != "host":
            e["role"] = role

    def role_of(self, ev):
        e = self._find(ev)
        return e["role"] if e else None

    def main_event(self):
        if self.news_event is not None:
            e = self._find(self.news_event)
            return e["ev"] if e else self.news_event
        for e in self.events:
            if e["role"] in ("host", "status"):
                return e["ev"]
        return self.events[-1]["ev"] if self.events else None


def commitment_at(plan, start, end):
    """A real commitment (not work, meals, chores, leisure) overlapping [start, end)."""
    if start is None:
        return None
    for a, b, act, place in plan:
        if a < end and start < b:
            if re.search(r"\b(?:calling on|going to|visiting|meeting|hosting|holding|appointment|"
                         r"joining)\b", act) or re.search(r"\b[A-Z][a-z]+", act):
                return act
    return None


def is_past(ev, now):
    if ev.date is None or now is None:
        return False
    if ev.date < now.date():
        return True
    if ev.date == now.date() and ev.start is not None:
        end = ev.end if ev.end is not None else ev.start + 120
        return end <= now.hour * 60 + now.minute
    return False


def ev_mentioned(ev, lines):
    """Has the event come up in these conversation lines?"""
    cw = set(content_words(ev.what))
    if not cw:
        return False
    for sp, tx in lines:
        if len(cw & set(content_words(tx))) >= max(2, len(cw) // 3):
            return True
    return False


def event_from_lines(P, lines, know=None, misread=False):
    """First event told in the lines: (index, Event, teller)."""
    ref = P.today
    for i, (sp, tx) in enumerate(lines):
        evs = read_events(tx, ref, P.year, speaker=sp, names=P.names, misread=misread)
        if evs:
            ev = evs[0]
            if know is not None:
                e = know._find(ev)
                if e is not None:
                    ev.merge(e["ev"])
            return i, ev, sp
        # news without a time: an event known to the listener may still be meant
        if know is not None and re.search(r"\b(?:have you heard|did you hear|heard that)\b", tx, re.I):
            for e in know.events:
                if len(set(content_words(e["ev"].what)) & set(content_words(tx))) >= 2:
                    return i, e["ev"], sp
    return None, None, None


def place_for(ev, places, names=(), fallback=""):
    if ev is None or not ev.place_text:
        return fallback
    return match_place(ev.place_text, places, names) or fallback


def date_iso(d, enum=None):
    if d is None:
        return ""
    s = d.isoformat()
    if enum is not None and s not in enum:
        return ""
    return s


# ----------------------------------------------------------------------------- conversation

def join_names(ns):
    ns = [n for n in ns if n]
    if not ns:
        return "someone"
    if len(ns) == 1:
        return ns[0]
    return ", ".join(ns[:-1]) + " and " + ns[-1]


def activity_for(ev, me, host_self=False, n=80):
    if host_self:
        a = ("hosting: " + ev.vp()) if ev.kind == "verb" else ("hosting " + ev.vp())
    elif ev.kind == "verb":
        a = ("joining %s to %s" % (ev.host, ev.vp())) if ev.host and ev.host != me else ev.gerund()
    else:
        a = "going to " + ev.vp()
    a = re.sub(r"\s+", " ", a).strip()
    if len(a) > 45:
        a = re.split(r",| and | who | which ", a)[0]
    if len(a) > n:
        a = a[:n]
        a = a[: a.rfind(" ")] if " " in a[n // 2:] else a
    return a.rstrip(" ,;:-")


def analyse(P, me, lines, know, misread=False):
    """Outcome of a conversation for `me`: dict(ev, teller, role, responses)."""
    idx, ev, teller = event_from_lines(P, lines, know, misread)
    res = {"ev": ev, "teller": teller, "role": None, "responses": {}}
    if ev is None:
        return res
    for sp, tx in lines[idx + 1:]:
        if sp in res["responses"] or sp == teller:
            continue
        if DECLINE_RE.search(tx):
            res["responses"][sp] = "declined"
        elif ACCEPT_RE.search(tx):
            res["responses"][sp] = "accepted"
    if ev.host == me:
        res["role"] = "host"
    elif me in res["responses"]:
        res["role"] = res["responses"][me]
    elif teller == me:
        res["role"] = "teller"
    else:
        res["role"] = "heard"
        prior = know.role_of(ev) if know else None
        if prior in ("accepted", "declined"):
            res["role"] = prior
    return res


def memo_for(P, dice, me, others, lines, know, places, date_enum, tag=""):
    a = analyse(P, me, lines, know, know.misread if know else False)
    ev = a["ev"]
    ref = P.today
    memo = {"summary": "", "importance": 2, "plan_activity": "", "plan_date": "",
            "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    oth = [o for o in others if o != me]
    if ev is None:
        said = [(sp, tx) for sp, tx in lines if sp != me and not (
            BYE_RE.search(tx) and len(tx) < 60)]
        said.sort(key=lambda x: -len(content_words(x[1])))
        if said and (dice.chance("quote" + tag, RATES["GIST_QUOTE"]) or re.search(r"heard|told|news", said[0][1])):
            sp, tx = said[0]
            memo["summary"] = clip('%s chatted with %s; %s said: "%s"' % (
                me, join_names(oth), sp, clip(tx, 160)), 390)
            memo["importance"] = 3 if re.search(r"heard|told|news", tx, re.I) else 2
        else:
            memo["summary"] = "%s had a quick, friendly chat with %s; nothing was arranged." % (
                me, join_names(oth))
            memo["importance"] = 2
    else:
        desc = ev.describe(ref=ref)
        resp = a["responses"]
        bits = []
        for o, r in resp.items():
            if o == me:
                continue
            bits.append("%s said %s" % (o, "they would come" if r == "accepted" else
                                        "they can't make it"))
        if a["role"] == "host" or (a["teller"] == me):
            if a["role"] == "host":
                core = "%s told %s about %s plan: %s" % (me, join_names(oth), "their",
                                                          ev.describe(ref=ref, host_self=False))
            else:
                core = "%s told %s that %s" % (me, join_names(oth), desc)
            summ = core + (("; " + ", ".join(bits)) if bits else "")
        else:
            core = "%s told %s that %s" % (a["teller"] or "Someone", me, desc)
            mine = {"accepted": "%s said they would go" % me,
                    "declined": "%s said they can't make it" % me}.get(a["role"], "")
            summ = core + ("; " + mine if mine else "")
        memo["summary"] = clip(summ + ".", 395)
        role = a["role"]
        imp = {"accepted": 6, "host": 5, "teller": 4, "heard": 4, "declined": 3}.get(role, 4)
        memo["importance"] = imp
        want_plan = (role == "accepted") or (role == "host" and dice.chance("hostplan" + tag,
                                                                             RATES["HOST_PLAN_ITEM"]))
        if want_plan and is_past(ev, P.now) and not dice.chance("pastun" + tag,
                                                                RATES["PAST_UNNOTICED"]):
            want_plan = False
        if want_plan and dice.chance("planforget" + tag, RATES["PLAN_FORGET"]):
            want_plan = False
        if want_plan:
            d = ev.date or ref
            ds = date_iso(d, date_enum)
            if ds:
                memo["plan_activity"] = activity_for(ev, me, host_self=(role == "host"))
                memo["plan_date"] = ds
                memo["plan_start"] = hm(ev.start if ev.start is not None else 600)
                memo["plan_minutes"] = ev.minutes()
                memo["plan_place"] = place_for(ev, places, P.names, "")
    if dice.chance("impnoise" + tag, RATES["IMP_NOISE"]):
        memo["importance"] += 1 if dice.chance("impup" + tag, RATES["IMP_UP"]) else -1
    memo["importance"] = max(1, min(10, memo["importance"]))
    return memo


def greet(dice, key, me, others):
    if len(others) == 1:
        fn = first_name(others[0])
        return dice.pick(key, ["Hello %s, how are you doing?" % fn, "Morning, %s!" % fn,
                               "Hi %s! Nice to see you." % fn, "Oh, hello %s. All well?" % fn])
    return dice.pick(key, ["Hello everyone!", "Hi all, how are we doing?", "Afternoon, everyone."])


def short_greet(dice, key, others):
    if len(others) == 1:
        return dice.pick(key, ["Hi %s!", "Hello %s!", "Morning, %s!"]) % first_name(others[0])
    return dice.pick(key, ["Hi all!", "Hello everyone!"])


def greet_back(dice, key, me, who, status):
    fn = first_name(who)
    act = ""
    m = re.search(r" is (.+?)(?:\.|$)", status or "")
    if m and dice.chance(key + "act", RATES["GREET_ACT"]):
        act = " Just %s." % clip(m.group(1), 60)
    return dice.pick(key, ["Hi %s! Not bad, thanks." % fn, "Hello %s, all good here." % fn,
                           "Oh hi %s, fine thanks." % fn]) + act


def past_line(dice, key, teller, ev, ref):
    day = "earlier today" if ev.date == ref else ("on " + WEEKDAYS[ev.date.weekday()].capitalize()
                                                  if ev.date else "the other day")
    place = (" " + ev.place_text) if ev.place_text else ""
    if ev.host == teller:
        return "It went well %s, %s%s." % (day, ev.gerund(first_person=True), place)
    return "Did you see? %s was %s%s %s." % (ev.host or "Someone", ev.gerund(), place, day)


def news_to_tell(P, dice, know, key):
    """(mode, ev): mode 'tell' for upcoming news, 'past' for news already over, None."""
    ev = know.news_event
    if ev is None:
        return None, None
    if is_past(ev, P.now) and not dice.chance(key + "pastun", RATES["PAST_UNNOTICED"]):
        return "past", ev
    return "tell", ev


def tell_line(dice, key, teller, ev, ref, hostself):
    om_p = dice.chance(key + "omp", RATES["OMIT_PLACE"])
    om_t = dice.chance(key + "omt", RATES["OMIT_TIME"])
    d = ev.describe(ref=ref, omit_place=om_p, omit_time=om_t, host_self=hostself)
    if hostself:
        tail = dice.pick(key + "tail", [" Do come along if you fancy it!", " Everyone's welcome.",
                                        " You'd be very welcome."])
        return d[0].upper() + d[1:] + "." + tail
    lead = dice.pick(key + "lead", ["Have you heard? ", "Did you know? ", "I heard that "])
    if lead == "I heard that ":
        return "I heard that " + d + "."
    return lead + d[0].upper() + d[1:] + "."


def reply_to_event(P, dice, key, listener, ev, teller, know_l, plan_l, ref):
    """-> (text, outcome)"""
    if ev.host == listener:
        return dice.pick(key, ["Yes, that's mine! I hope lots of people come.",
                               "That's right, I'm running it. Spread the word!"]), "host"
    if is_past(ev, P.now) and not dice.chance(key + "past", RATES["PAST_UNNOTICED"]):
        return dice.pick(key + "pp", ["Oh, I think that's been and gone already.",
                                      "Wasn't that earlier? I missed it."]), "none"
    prior = know_l.role_of(ev) if know_l else None
    if prior == "accepted":
        return "Yes, I'd heard. I'll be there!", "accepted"
    if prior == "declined":
        return "I'd heard, but I can't make it, sadly.", "declined"
    invited = (teller == ev.host)
    if ev.date == P.today and ev.start is not None:
        c = commitment_at(plan_l, ev.start, ev.start + ev.minutes())
        if c and dice.chance(key + "clash", RATES["CLASH_DECLINE"]):
            return "Sorry, I can't make it then: I'm %s." % clip(c, 60), "declined"
    p = RATES["ACCEPT_BASE"] + traits_adj(P.person(listener))
    when = ""
    if ev.date is not None:
        when = say_date(ev.date, ref).split(" (")[0]
    if dice.chance(key + "acc", p):
        if invited:
            return dice.pick(key + "a", ["Sounds lovely, count me in!",
                                         "I'd love to, I'll be there %s." % when,
                                         "Oh yes, I'll come along!"]).replace(" .", "."), "accepted"
        return dice.pick(key + "a", ["Oh, that sounds fun, I think I'll go along.",
                                     "Really? I'll be there, then!",
                                     "Sounds good, I might go %s." % when]).replace(" .", "."), \
            "accepted"
    if invited:
        return dice.pick(key + "d", ["That's kind, but I'll pass this time.",
                                     "Sorry, I can't make it, but thanks for asking."]), "declined"
    return dice.pick(key + "d", ["Good to know, thanks.", "Oh really? Good to know.",
                                 "Huh, I hadn't heard that."]), "heard"


def bye_line(dice, key, who=None):
    fn = first_name(who) if who else ""
    return dice.pick(key, ["Anyway, I'd better get on. See you%s!" % ((", " + fn) if fn else ""),
                           "Right, I must be off. Take care!",
                           "Good to talk%s. See you around!" % ((", " + fn) if fn else "")])


def simulate(P, dice, people, knows, plans, max_lines, tag=""):
    """Gist lines of a meeting.  Returns (talk, lines)."""
    ref = P.today
    tellers = []
    pasts = {}
    for n in people:
        mode, ev = news_to_tell(P, dice, knows[n], "sim" + tag + n)
        if mode == "tell":
            tellers.append(n)
        elif mode == "past":
            pasts[n] = ev
    talk_p = RATES["TALK_WITH_NEWS"] if tellers else RATES["TALK_NO_NEWS"]
    if any(P.news(n) for n in people) and not tellers:
        talk_p = RATES["TALK_WITH_NEWS"]
    if not dice.chance("talk" + tag, talk_p):
        return False, []
    lines = []
    first = people[0]
    others = people[1:]
    if first in tellers and not dice.chance("forget" + tag + first, RATES["NEWS_FORGET"]):
        ev = knows[first].news_event
        lines.append((first, short_greet(dice, "g0" + tag, others) + " "
                      + tell_line(dice, "t" + tag + first, first, ev, ref, ev.host == first)))
        told = {first}
    else:
        lines.append((first, greet(dice, "g0" + tag, first, others)))
        told = set()
        if len(others) >= 1:
            o = others[0]
            if o in tellers and not dice.chance("forget" + tag + o, RATES["NEWS_FORGET"]):
                ev = knows[o].news_event
                lines.append((o, "Hi %s! " % first_name(first) +
                              tell_line(dice, "t" + tag + o, o, ev, ref, ev.host == o)))
                told.add(o)
            else:
                lines.append((o, greet_back(dice, "gb" + tag + o, o, first,
                                            P.person(o).get("currently", ""))))
    for n, ev in pasts.items():
        if len(lines) < max_lines - 1 and dice.chance("pastm" + tag + n, RATES["PAST_MENTION"]) and \
                not ev_mentioned(ev, lines):
            lines.append((n, past_line(dice, "pl" + tag + n, n, ev, ref)))
    # responses to told news, then further tellers
    queue = [t for t in tellers if t not in told]
    pending = list(told)
    responded = set()
    while len(lines) < max_lines:
        if pending:
            t = pending.pop(0)
            ev = knows[t].news_event
            for lst in [n for n in people if n != t]:
                if len(lines) >= max_lines - 1:
                    break
                if (lst, ev.key()) in responded:
                    continue
                if knows[lst].role_of(ev) == "host" or ev.host == lst:
                    if ev.host == lst and t != lst:
                        txt, _ = reply_to_event(P, dice, "r" + tag + lst, lst, ev, t, knows[lst],
                                                plans.get(lst, []), ref)
                        lines.append((lst, txt))
                    responded.add((lst, ev.key()))
                    continue
                txt, _ = reply_to_event(P, dice, "r" + tag + lst, lst, ev, t, knows[lst],
                                        plans.get(lst, []), ref)
                lines.append((lst, txt))
                responded.add((lst, ev.key()))
                if len(people) > 3 and len([1 for x in responded if x[1] == ev.key()]) >= 2:
                    break
            continue
        if queue:
            t = queue.pop(0)
            ev = knows[t].news_event
            if ev_mentioned(ev, lines) or dice.chance("forget" + tag + t, RATES["NEWS_FORGET"]):
                continue
            lines.append((t, tell_line(dice, "t" + tag + t, t, ev, ref, ev.host == t)))
            pending.append(t)
            continue
        break
    if len(lines) < max_lines:
        closer = people[0] if lines[-1][0] != people[0] else people[1 % len(people)]
        lines.append((closer, bye_line(dice, "bye" + tag, None)))
    return True, lines[:max_lines]


def next_turn(P, dice, me, partners, lines, know, plan, group=False):
    """-> (utterance, addressed_to, end)"""
    ref = P.today
    n = len(lines)
    ev = know.news_event
    last = lines[-1] if lines else None
    addressee = partners[0] if len(partners) == 1 else "everyone"
    # 1. news not yet mentioned
    mode, ev = news_to_tell(P, dice, know, "nt")
    if ev is not None and not ev_mentioned(ev, lines):
        if mode == "past":
            if dice.chance("pastmention", RATES["PAST_MENTION"]):
                return past_line(dice, "past", me, ev, ref), "everyone" if group else addressee, False
        elif not dice.chance("forget", RATES["NEWS_FORGET"]):
            txt = tell_line(dice, "tell", me, ev, ref, ev.host == me)
            if n == 0 and dice.chance("greetfirst", RATES["GREET_FIRST"]):
                txt = short_greet(dice, "g", partners) + " " + txt
            return txt, "everyone" if group else addressee, False
    # 2. answer to an event just told by someone else
    if last is not None and last[0] != me:
        evs = read_events(last[1], ref, P.year, speaker=last[0], names=P.names,
                          misread=know.misread)
        if not evs and re.search(r"\b(?:have you heard|did you hear|i heard that)\b", last[1], re.I):
            for e in know.events:
                if len(set(content_words(e["ev"].what)) & set(content_words(last[1]))) >= 2:
                    evs = [e["ev"]]
                    break
        if evs:
            e0 = evs[0]
            kk = know._find(e0)
            if kk is not None:
                e0.merge(kk["ev"])
            txt, outcome = reply_to_event(P, dice, "reply", me, e0, last[0], know, plan, ref)
            end = n >= 5 and dice.chance("endafter", RATES["END_AFTER_REPLY"])
            return txt, last[0] if last[0] in partners else addressee, end
        told_by_me = any(sp == me and (read_events(tx, ref, P.year, speaker=sp, names=P.names) or
                                       re.search(r"have you heard|did you know", tx, re.I))
                         for sp, tx in lines[:-1])
        if told_by_me and (ACCEPT_RE.search(last[1]) or DECLINE_RE.search(last[1])):
            fn = first_name(last[0])
            if DECLINE_RE.search(last[1]):
                txt = dice.pick("ackd", ["Ah well, maybe next time, %s." % fn,
                                         "No worries, %s." % fn, "Shame, but never mind."])
            else:
                txt = dice.pick("acka", ["Great, see you there, %s!" % fn,
                                         "Lovely, I'm glad you can come.", "Brilliant!"])
            end = n >= 4 and dice.chance("ackend", RATES["ACK_END"])
            return txt, (last[0] if last[0] in partners else addressee), end
        if BYE_RE.search(last[1]) and n >= 2 and last[0] in partners:
            return dice.pick("byeback", ["See you, %s!" % first_name(last[0]), "Bye for now!",
                                         "Take care, see you around!"]), \
                (last[0] if last[0] in partners else addressee), True
    # 3. opening
    if n == 0:
        return greet(dice, "g", me, partners), addressee, False
    if n >= 4 and dice.chance("turnbye", RATES["TURN_BYE"]):
        return bye_line(dice, "bye", partners[0] if len(partners) == 1 else None), addressee, True
    if last is not None and last[0] != me:
        if n <= 2:
            return greet_back(dice, "gb", me, last[0], P.person(me).get("currently", "")), \
                (last[0] if last[0] in partners else addressee), False
        return dice.pick("small", ["Lovely weather for it, anyway.", "Well, it's been a busy day.",
                                   "Mm, I know what you mean."]), addressee, False
    return bye_line(dice, "bye2", partners[0] if len(partners) == 1 else None), addressee, True


# ----------------------------------------------------------------------------- daily plan

EMOJI = [(r"sleep", "😴"), (r"wak|getting ready", "⏰"), (r"breakfast", "🍳"), (r"lunch", "🥪"),
         (r"dinner|supper", "🍲"), (r"hosting|joining|going to|event", "🎉"),
         (r"telling|seeing people|asking people|news", "🗣️"), (r"calling on|visit", "🚪"),
         (r"bak|bread|loaf", "🍞"), (r"inn|pub|taproom|brew|ale", "🍺"),
         (r"workshop|carpent|build|gate", "🔨"), (r"teach|school|class|essay", "📚"),
         (r"surgery|nurse|patient|first-aid", "🩺"), (r"post|parcel|letter", "✉️"),
         (r"green|walk|pitch|garden", "🌳"), (r"read", "📖"), (r"knit", "🧶"),
         (r"church|nave", "⛪"), (r"relax|day off|rest", "🛋️")]


def emoji_for(act):
    for rx, e in EMOJI:
        if re.search(rx, act, re.I):
            return e
    return "🙂"


def third_to_ing(v):
    lv = v.lower()
    if re.search(r"(?:ch|sh|ss|x|o)es$", lv):
        b = lv[:-2]
    elif lv.endswith("ies"):
        b = lv[:-3] + "y"
    elif lv.endswith("s") and not lv.endswith("ss"):
        b = lv[:-1]
    else:
        b = lv
    return base_to_ing(b)


def home_of(me, places):
    sur = (me or "").split(" ")[-1].lower()
    for p in places:
        if sur and sur in p.lower():
            return p
    for p in places:
        if "bedroom" in p.lower() or "home" in p.lower():
            return p
    return places[0] if places else ""


def parse_lifestyle(ls, places, home):
    wake, bed, acts = None, None, []
    m = re.search(r"wakes? up at ([^,]+)", ls)
    if m:
        t, _, _ = read_time("at " + m.group(1))
        if t is not None:
            if t >= 720 and "pm" not in m.group(1):
                t -= 720
            wake = t
    m = re.search(r"(?:goes|go) to bed at ([^,]+)", ls)
    if m:
        if "midnight" in m.group(1):
            bed = 1440
        else:
            t, _, _ = read_time("at " + m.group(1))
            if t is not None:
                bed = t if t >= 720 else (t + 720 if t >= 8 * 60 else t + 1440)
    for seg in re.split(r",\s*(?:and\s+)?|\s+and\s+(?=[a-z]+s\b)", ls):
        seg = seg.strip()
        if not seg or re.match(r"(?:wakes?|goes|go) ", seg):
            continue
        st, en, how = read_time(seg)
        if st is None:
            continue
        if how == "part":
            en = st + 120
        if en is None:
            en = st + 120
        verbm = re.match(r"([a-z]+)\s+(.*?)\s*(?:from|between|in the|at \d|at noon|$)", seg)
        if not verbm:
            continue
        act = (third_to_ing(verbm.group(1)) + " " + verbm.group(2)).strip()
        place = match_place(seg, places) or home
        acts.append((st, en, act, place))
    return wake, bed, acts


def spread_windows(P):
    out = []
    for ln in P.section(r"^Where people .* will be today[^\n]*:\s*$"):
        m = re.match(r"\s*-\s*(.+?):\s*(\d+) (?:person|people),\s*(\d{1,2}:\d{2})-(\d{1,2}:\d{2})", ln)
        if m:
            out.append((m.group(1).strip(), parse_hm(m.group(3)), parse_hm(m.group(4))))
    return out


def do_daily_plan(P, dice):
    me = P.me or (P.persons[0]["name"] if P.persons else "")
    per = P.person(me)
    places = schema_enum(P.schema, "blocks", "[]", "address") or P.places_of() or ["home"]
    home = home_of(me, places)
    wake, bed, acts = parse_lifestyle(per.get("lifestyle", ""), places, home)
    if wake is None:
        wake = 7 * 60
    if bed is None or bed <= wake + 8 * 60:
        bed = 22 * 60
    today = P.today
    weekend = today is not None and today.weekday() >= 5
    day_off = weekend and dice.chance("weekend", RATES["WEEKEND_OFF"])
    L = bed - wake
    lab = [None] * L
    prio = [-1] * L

    def paint(a, b, act, place, pr):
        for t in range(max(a, wake), min(b, bed)):
            i = t - wake
            if pr >= prio[i]:
                lab[i] = (act, place)
                prio[i] = pr

    cur = per.get("currently", "")
    hobby = None
    m = re.search(re.escape(me) + r" is ([a-z][^.]*?)(?:\.|$)", cur) if me else None
    if m and len(m.group(1)) < 50:
        hobby = m.group(1)
    paint(wake, bed, "relaxing at home", home, 0)
    if hobby and dice.chance("hobby", RATES["HOBBY_EVENING"]):
        paint(19 * 60 + 30, bed, hobby, home, 0)
    paint(wake, wake + 30, "waking up and getting ready", home, 1)
    first_work = min([a for a, b, act, pl in acts] or [wake + 90])
    paint(wake + 30, max(wake + 45, min(wake + 60, first_work)), "having breakfast", home, 1)
    for a, b, act, pl in acts:
        if day_off and b - a >= 180:
            continue
        paint(a, b, act, pl, 1)
    if day_off:
        green = [p for p in places if re.search(r"green|park|garden", p, re.I)]
        if green and dice.chance("dayoffout", RATES["DAYOFF_OUT"]):
            paint(14 * 60, 16 * 60, "relaxing at the " + green[0].split(":")[-1], green[0], 1)
        paint(9 * 60, 12 * 60, "relaxing on a day off", home, 1) if wake < 9 * 60 else None
    for (a, b, meal) in ((12 * 60, 13 * 60, "lunch"), (18 * 60 + 30, 19 * 60 + 30, "dinner")):
        if a < wake + 60 or b > bed:
            continue
        here = lab[a - wake] if 0 <= a - wake < L else None
        pl = here[1] if here and prio[a - wake] >= 1 else home
        paint(a, b, "having " + meal, pl, 2)
    # events of today
    know = Know(P, me, dice, mems=P.memories(header=r"^What .* remembers[^\n]*:\s*$"),
                news=P.news(me), tag="dp")
    evlist = []
    for e in know.events:
        ev, role = e["ev"], e["role"]
        if ev.date != today or ev.start is None:
            continue
        if role == "declined":
            continue
        if role in ("host", "accepted"):
            p = 1 - RATES["EVENT_FORGET"]
        elif role in ("status", "news"):
            p = RATES["EVENT_HEARD_STATUS"]
        else:
            p = RATES["EVENT_HEARD_MEMORY"]
        if not dice.chance("evin" + ev.key()[1], p):
            continue
        evlist.append((ev, role))
    for ev, role in evlist:
        pl = place_for(ev, places, P.names, "") or (
            match_place(ev.what, places, P.names) or home)
        act = activity_for(ev, me, host_self=(role == "host"), n=60)
        paint(ev.start, ev.start + ev.minutes(), act, pl, 4)
    # spreading the news
    if know.news_event is not None and dice.chance("spread", RATES["SPREAD_NEWS"]
                                                   + traits_adj(per)):
        for wp, a, b in spread_windows(P)[:1]:
            pl = wp if wp in places else (match_place(wp, places) or None)
            if pl is None or a is None or b is None:
                continue
            s0 = max(a, wake + 60)
            e0 = min(b, s0 + 60)
            if e0 - s0 >= 15 and all(prio[t - wake] < 3 for t in range(s0, e0) if 0 <= t - wake < L):
                paint(s0, e0, "telling people about " + clip(know.news_event.short(5), 50),
                      pl, 3)
    # compress
    blocks = []
    for i in range(L):
        if blocks and blocks[-1][2] == lab[i]:
            blocks[-1][1] += 1
        else:
            blocks.append([wake + i, 1, lab[i]])
    # merge tiny
    merged = []
    for b in blocks:
        if merged and b[1] < 10:
            merged[-1][1] += b[1]
        else:
            merged.append(b)
    while len(merged) > 15:
        j = min(range(1, len(merged)), key=lambda k: merged[k][1])
        merged[j - 1][1] += merged[j][1]
        del merged[j]
    out = []
    for st, du, (act, pl) in merged:
        out.append({"start": hm(st), "duration_minutes": max(5, min(960, du)),
                    "activity": clip(act, 100), "emoji": emoji_for(act), "address": pl})
    sleep_d = max(5, min(960, wake + 1440 - bed))
    out.append({"start": hm(bed), "duration_minutes": sleep_d, "activity": "sleeping",
                "emoji": "😴", "address": home})
    outline = ["wake up at %s" % say_time(wake)]
    for b in out[1:-1]:
        if b["activity"].startswith("relaxing") and len(outline) > 2:
            continue
        outline.append("%s at %s" % (b["activity"], say_time(parse_hm(b["start"]))))
    outline = outline[:7]
    outline.append("go to bed at %s" % say_time(bed))
    while len(outline) < 4:
        outline.insert(-1, "relax at home")
    outline = [clip(o, 118) for o in outline[:8]]
    wh = wake // 60
    if dice.chance("wakeoff", RATES["WAKE_OFF"]):
        wh = max(0, min(23, wh + (1 if dice.chance("wakeup", RATES["HALF"]) else -1)))
    return {"wake_up_hour": wh, "outline": outline, "blocks": out}


# ----------------------------------------------------------------------------- decompose

STEP_LIB = [
    (r"sleep", ["settling into bed", "sleeping", "turning over", "sleeping soundly"]),
    (r"wak|getting ready", ["getting out of bed", "washing face", "brushing teeth", "getting dressed",
                            "making the bed", "opening the curtains"]),
    (r"breakfast", ["putting the kettle on", "making toast", "eating breakfast", "drinking tea",
                    "reading yesterday's paper", "washing up the plates", "wiping the table",
                    "putting things away", "boiling an egg", "slicing bread", "pouring more tea",
                    "clearing the table"]),
    (r"lunch", ["finding a seat", "unwrapping a sandwich", "eating lunch", "having a cup of tea",
                "chatting to whoever is about", "clearing up", "finishing the tea"]),
    (r"dinner|supper", ["peeling potatoes", "cooking dinner", "setting the table", "eating dinner",
                        "washing the dishes", "drying up", "putting the plates away",
                        "making a cup of tea", "wiping the table", "stirring the pot",
                        "serving up", "sitting back with tea"]),
    (r"calling on|visit", ["knocking on the door", "saying hello", "chatting over tea",
                           "catching up on news", "admiring the garden", "saying goodbye"]),
    (r"telling people|seeing people|asking people", ["looking around for familiar faces",
                                                      "stopping to chat", "sharing the news",
                                                      "chatting with a neighbour",
                                                      "waving to someone", "moving on"]),
    (r"bakery|bak|bread|loaf", ["kneading dough", "shaping loaves", "checking the oven",
                                "taking bread out of the oven", "serving a customer",
                                "wiping down the counter", "weighing flour", "setting out buns",
                                "washing the trays", "proving the dough", "counting change",
                                "sweeping the floor"]),
    (r"taproom|inn|pub|bar|brew|ale", ["wiping down the bar", "pulling pints", "serving customers",
                                       "collecting glasses", "changing a barrel", "washing glasses",
                                       "stoking the fire", "chatting with regulars", "restocking shelves",
                                       "sweeping the floor", "checking the cellar", "tallying the till"]),
    (r"workshop|carpent|gate|timber", ["measuring timber", "sawing planks", "planing a board",
                                       "sanding the edges", "fitting the joints", "gluing and clamping",
                                       "sharpening chisels", "sweeping up shavings", "checking the fit",
                                       "oiling the wood", "sorting screws", "tidying the bench"]),
    (r"classroom|school|teach|essay", ["preparing the lesson", "writing on the board",
                                       "teaching the class", "marking essays", "answering questions",
                                       "handing out worksheets", "tidying the desks",
                                       "reading aloud", "checking homework", "planning tomorrow",
                                       "filing papers", "wiping the board"]),
    (r"surgery|waiting room|nurse|first-aid", ["checking the appointment list", "calling in a patient",
                                               "taking a blood pressure", "restocking first-aid kits",
                                               "updating records", "tidying the waiting room",
                                               "answering the phone", "dressing a cut",
                                               "washing hands", "sorting supplies",
                                               "wiping the chairs", "writing notes"]),
    (r"counter room|post|parcel", ["sorting letters", "weighing parcels", "serving at the counter",
                                   "selling stamps", "stacking parcels", "checking the ledger",
                                   "answering a query", "tidying the counter", "bagging the post",
                                   "counting stamps", "labelling sacks", "filing forms"]),
    (r"green|pitch|park", ["walking the paths", "rolling the pitch", "picking up litter",
                           "checking the benches", "raking the grass", "watering the flowerbeds",
                           "chatting with passers-by", "resting on a bench", "marking the crease",
                           "clearing leaves", "checking the nets", "looking at the view"]),
    (r"garden", ["setting out chairs", "wiping the tables", "weeding a bed", "watering plants",
                 "chatting with people", "carrying things out", "sweeping the path",
                 "tidying up", "having a breather", "helping someone", "putting things away",
                 "looking around"]),
    (r"nave|church", ["sitting quietly", "arranging flowers", "polishing the brass",
                      "saying a prayer", "tidying the hymn books", "lighting a candle"]),
    (r"relax|day off|rest|home", ["sitting in the armchair", "reading a book", "having a cup of tea",
                                  "listening to the radio", "having a nap", "tidying up a little",
                                  "looking out of the window", "writing a letter", "doing a puzzle",
                                  "stretching legs", "watering the plants", "making another tea"]),
]
OBJ_HINT = {"bed": r"bed|sleep|nap|turning over", "armchair": r"armchair|sitting|read|radio|nap|puzzle|knit",
            "desk": r"desk|writ|marking|records|notes|letter|ledger|plan|filing|homework",
            "oven": r"oven|bak|bread|loaves|proving", "counter": r"counter|serv|customer|stamp|parcel|weigh|till|change",
            "bar": r"bar\\b|pint|serv|glasses|regulars|till", "fireplace": r"fire|stok",
            "tables": r"table|chairs|set|serv", "chairs": r"chair|seat|waiting|patient|sitting",
            "bench": r"bench|sitting|resting|timber|sawing|planing|sanding|joint|glu|chisel|fit",
            "kettle": r"tea|kettle", "stove": r"cook|stir|egg|dinner|peel"}
OBJ_STATE = {"bed": "occupied", "armchair": "occupied", "desk": "in use", "oven": "baking",
             "counter": "in use", "bar": "serving", "fireplace": "lit", "tables": "in use",
             "chairs": "occupied", "bench": "in use", "kettle": "boiling", "stove": "cooking"}


def do_decompose(P, dice):
    u = P.user
    m = re.search(r"From (\d{1,2}:\d{2}) to (\d{1,2}:\d{2}) \((\d+) minutes\) (.*?) is (.*?), at ([^\n]*?)\.\s*$",
                  u, re.M)
    act = m.group(5) if m else "busy"
    place = m.group(6) if m else ""
    total = int(m.group(3)) if m else 60
    m2 = re.search(r"fill (?:the )?(\d+) minutes", u)
    if m2:
        total = int(m2.group(1))
    m3 = re.search(r"into (\d+) to (\d+) concrete steps", u)
    lo, hi = (int(m3.group(1)), int(m3.group(2))) if m3 else (2, 12)
    mn, mx = schema_items_bounds(schema_enum_root(P.schema), "steps")
    lo, hi = max(lo, mn or 1), min(hi, mx or 12)
    objs = schema_enum(P.schema, "steps", "[]", "object") or []
    objs = [o for o in objs if o]
    lib = None
    for rx, steps in STEP_LIB:
        if re.search(rx, act, re.I):
            lib = steps
            break
    if lib is None:
        for rx, steps in STEP_LIB:
            if re.search(rx, place, re.I):
                lib = steps
                break
    if re.search(r"hosting|holding|joining|going to", act):
        lib = ["arriving and looking around", "saying hello to people", "watching people have a go",
               "having a go at it", "chatting with people", "helping out", "having a drink",
               "taking a turn", "cheering someone on", "tidying up", "saying goodbye",
               "heading off"]
        if act.startswith("hosting") or act.startswith("holding") or (
                P.me and re.search(re.escape(P.me) + r" (?:means|is going|will|plans)", act)):
            lib = ["setting things up", "welcoming people", "showing people how it works",
                   "helping someone have a go", "chatting with visitors", "taking a short break",
                   "answering questions", "helping the next person", "tidying the tools",
                   "thanking everyone", "packing things away", "sweeping up"]
    if lib is None:
        lib = ["getting started", "working steadily", "taking a short break", "carrying on",
               "tidying up", "checking everything", "finishing off", "having a breather"]
    if re.search(r"busy at|working", act) and dice.chance("identity", RATES["DECOMP_IDENTITY"]):
        ident = P.person(P.me).get("currently", "")
        mm = re.search(r" is ([a-z][^.]*?)(?:\.|$)", ident)
        if mm and not any(len(set(content_words(mm.group(1))) & set(content_words(x))) >= 2
                          for x in lib):
            lib = lib[:3] + [clip(mm.group(1), 60)] + lib[3:]
    # count
    k_lo = max(lo, -(-total // 15))
    k_hi = min(hi, max(1, total // 5))
    if k_lo > k_hi:
        k = max(lo, min(hi, k_lo))
    else:
        ideal = max(k_lo, min(k_hi, round(total / 10)))
        k = ideal if dice.chance("kideal", RATES["DECOMP_IDEAL"]) else dice.randint("k", k_lo, k_hi)
    durs = [5] * k
    rem = total - 5 * k
    r = dice.rng("durs")
    guard = 0
    while rem >= 5 and guard < 1000:
        i = r.randrange(k)
        if durs[i] < 15:
            durs[i] += 5
            rem -= 5
        guard += 1
    if rem > 0:
        for i in range(k):
            if durs[i] + rem <= 15:
                durs[i] += rem
                rem = 0
                break
    if dice.chance("sumoff", RATES["DECOMP_SUM_OFF"]):
        i = r.randrange(k)
        durs[i] = min(15, max(5, durs[i] + (5 if durs[i] <= 10 else -5)))
    steps = []
    for i in range(k):
        desc = lib[i % len(lib)]
        if i >= len(lib):
            desc = desc + " again"
        obj, st = "", ""
        for o in objs:
            rx = OBJ_HINT.get(o.lower(), re.escape(o.lower()))
            if re.search(r"\b(?:" + rx + r")", desc, re.I) or \
                    re.search(r"\b" + re.escape(o.lower()) + r"\b", desc.lower()):
                obj = o
                st = OBJ_STATE.get(o.lower(), "in use")
                if re.search(r"wip|clean|sweep|polish|wash|tidy|making the bed", desc):
                    st = "being cleaned" if "bed" not in desc else "being made"
                break
        steps.append({"activity": clip(desc, 78), "duration_minutes": int(durs[i]),
                      "object": obj, "object_state": st})
    return {"steps": steps}


def schema_enum_root(schema):
    return schema


# ----------------------------------------------------------------------------- importance

def imp_of(text, me, P=None):
    t = text.lower()
    if re.search(r"\bsleeping\b|waking up|getting ready|having (?:breakfast|lunch|dinner)|"
                 r"is in use|plan for", t):
        return 1
    if re.search(r"relaxing|busy at|seeing people", t) and not re.search(r"told|heard|learned", t):
        return 2
    ev = read_event(text, P.today if P else None, P.year if P else 2026, names=P.names if P else ())
    if ev is not None:
        return 8 if (me and ev.host == me) else 6
    if re.search(r"\b(?:told|heard|learned|conversation with|said)\b", t):
        return 4
    if re.search(r"chatting|chatted|calling on", t):
        return 3
    if re.search(r"hosting|holding|going to", t):
        return 4
    return 3


def do_importance(P, dice):
    m = re.search(r'Memory: "(.*)"\s*$', P.user, re.M)
    text = m.group(1) if m else P.user[-300:]
    v = imp_of(text, P.me, P)
    if dice.chance("noise", RATES["IMP_NOISE"]):
        v += 1 if dice.chance("up", RATES["IMP_UP"]) else -1
    return {"importance": max(1, min(10, v))}


def do_importance_batch(P, dice):
    items = re.findall(r'^- "(.*)"\s*$', P.user, re.M)
    lo, hi = schema_items_bounds(P.schema, "ratings")
    vals = []
    flat = dice.chance("flat", RATES["IMP_FLAT"])
    for i, t in enumerate(items):
        v = imp_of(t, P.me, P)
        if dice.chance("noise%d" % i, RATES["IMP_NOISE"]):
            v += 1 if dice.chance("up%d" % i, RATES["IMP_UP"]) else -1
        vals.append(max(1, min(10, v)))
    if flat and vals:
        vals = [max(1, min(10, round(sum(vals) / len(vals))))] * len(vals)
    n = len(vals)
    if lo and n < lo:
        vals += [2] * (lo - n)
    if hi and len(vals) > hi:
        vals = vals[:hi]
    return {"ratings": vals}


# ----------------------------------------------------------------------------- interview

def event_story(ev, me, teller, ref, role):
    d = ev.describe(ref=ref)
    if ev.date is not None and ref is not None and ev.date < ref:
        d = d.replace(" is going to ", " was going to ", 1).replace(" is having ", " was having ", 1)
    if ev.host == me:
        s = "Yes, that's mine: " + ev.describe(ref=ref, host_self=True) + "."
        return s
    if teller and teller != me:
        s = "Yes, %s told me that %s." % (teller, d)
    else:
        s = "Yes, I heard that %s." % d
    if role == "accepted":
        s += " I said I'd go along."
    elif role == "declined":
        s += " I couldn't make it, though."
    return s


def do_interview(P, dice):
    me = P.me
    m = re.search(r'Someone asks ' + re.escape(me or "") + r': "(.*)"\s*$', P.user, re.M) or \
        re.search(r'asks [^:]*: "(.*)"', P.user)
    q = m.group(1) if m else ""
    mems = P.memories(header=r"^It is .* remembers[^\n]*:\s*$") or P.memories()
    per = P.person(me)
    ref = P.today
    know = Know(P, me, dice, mems=mems, news=P.news(me), tag="iv")
    mk = re.search(r"\b(?:know|think of|feel about|met|seen)\s+(" + NAME_RE + r")", q)
    if mk:
        target = mk.group(1)
        if target == me:
            return {"answer": "That's me! " + clip(per.get("identity", "").replace(me, "I am"), 200)}
        fn = first_name(target)
        hits = []
        for mo in mems:
            if target in mo.text or re.search(r"\b" + re.escape(fn) + r"\b", mo.text):
                seen = True
                if mo.total > 12 and mo.idx < mo.total - 6:
                    seen = not dice.chance("miss%d" % mo.idx, RATES["MIDDLE_MISS"])
                if seen:
                    hits.append(mo)
        ident = per.get("identity", "")
        in_ident = target in ident or re.search(r"\b" + re.escape(fn) + r"\b", ident)
        if not hits and not in_ident:
            return {"answer": dice.pick("dk", ["No, I don't think I know %s." % target,
                                               "I can't say I do. The name %s doesn't ring a bell." % target,
                                               "No, I don't know %s, I'm afraid." % target])}
        parts = []
        if in_ident:
            sent = [s for s in re.split(r"(?<=[.;])\s+", ident) if target in s or fn in s]
            if sent:
                parts.append("Yes. " + clip(sent[0].replace(me + " ", "I ").replace(" she ", " I ")
                                            .replace(" her ", " my "), 160))
        chats = [mo for mo in hits if re.search(r"chat|conversation|told|heard|said", mo.text)]
        doing = [mo for mo in hits if re.match(re.escape(target) + r" is ", mo.text)]
        if not parts:
            parts.append("Yes, I know %s." % target)
        if chats:
            c = chats[-1]
            when = "on %s" % WEEKDAYS[c.when.weekday()].capitalize() if c.when else "recently"
            told = [e for e in know.events if e["ev"].teller == target or
                    (e["mem"] is not None and target in e["mem"].text and "told" in e["mem"].text)]
            if told and dice.chance("toldmention", RATES["TOLD_MENTION"]):
                parts.append("%s told me %s." % (fn, told[-1]["ev"].describe(ref=ref)))
            else:
                parts.append("We had a chat %s." % when)
        if doing:
            dm = re.match(re.escape(target) + r" is (.*?)(?: \(|$)", doing[-1].text)
            if dm:
                parts.append("Last I saw, %s was %s." % (fn, clip(dm.group(1), 80)))
        return {"answer": clip(" ".join(parts[:3]), 590)}
    # topic question
    qw = set(content_words(q)) - set(words(me or ""))
    best = []
    for mo in mems:
        seen = True
        if mo.total > 12 and mo.idx < mo.total - 6:
            seen = not dice.chance("miss%d" % mo.idx, RATES["MIDDLE_MISS"])
        if not seen:
            continue
        sc = len(qw & set(content_words(mo.text)))
        if sc >= 2 or (sc >= 1 and len(qw) <= 2):
            best.append((sc + 0.01 * mo.idx, mo))
    cur = per.get("currently", "")
    if len(qw & set(content_words(cur))) >= 2:
        best.append((len(qw & set(content_words(cur))) - 0.5, Memory(None, cur, -1, 0)))
    if not best:
        return {"answer": dice.pick("dk", ["No, I haven't heard anything about that.",
                                           "I don't know anything about that, sorry.",
                                           "Hmm, no, that's news to me."])}
    best.sort(key=lambda x: x[0])
    top = best[-1][1]
    # an event that fits the question?
    for e in reversed(know.events):
        if len(qw & set(content_words(e["ev"].what + " " + (e["ev"].host or "")))) >= 1:
            ev = e["ev"]
            teller = ev.teller
            if teller is None and e["mem"] is not None:
                mt = re.match(r"(" + NAME_RE + r") told " + re.escape(me), e["mem"].text)
                mh = re.search(r"heard from (" + NAME_RE + r")", e["mem"].text)
                teller = mt.group(1) if mt else (mh.group(1) if mh else None)
            return {"answer": clip(event_story(ev, me, teller, ref, e["role"]), 590)}
    txt = re.sub(r"^" + re.escape(me or "") + r"\b", "I", top.text)
    txt = re.sub(r"\s*\((?:starting|finishing): [^)]*\)", "", txt)
    return {"answer": clip("I only know what I heard: " + clip(txt, 300) +
                           ("" if txt.endswith(".") else "."), 590)}


# ----------------------------------------------------------------------------- react

def do_react(P, dice):
    me = P.me
    u = P.user
    m = re.search(r'has just noticed: "(.*)"', u)
    seen = m.group(1) if m else ""
    tm = re.match(r"(" + NAME_RE + r")", seen)
    target = tm.group(1) if tm else "them"
    news = P.news(me)
    about = P.section(r"^What " + re.escape(me or "") + r" remembers about [^\n]*:\s*$")
    knows = any(re.search(r"chat|conversation|told|heard", ln) for ln in about)
    mnow = re.search(r"\. " + re.escape(me or "") + r" is (.*?) at (\S+:[^\n]*?)\.\s*$", u, re.M)
    doing = re.sub(r"\s*\((?:starting|finishing)[^)]*\)", "", mnow.group(1)) if mnow else ""
    r = dice.r("react")
    if re.search(r"sleep", doing):
        ch = "continue"
    elif news and news.get("untold"):
        ch = "talk" if r < RATES["REACT_NEWS_TALK"] else (
            "wait" if r < RATES["REACT_NEWS_TALK"] + RATES["REACT_NEWS_WAIT"] else "continue")
    else:
        pt = (RATES["REACT_KNOWN_TALK"] if knows else RATES["REACT_STRANGER_TALK"]) + \
            traits_adj(P.person(me)) / 3
        if r < pt:
            ch = "talk"
        elif r < pt + RATES["REACT_WAIT"]:
            ch = "wait"
        elif r < pt + RATES["REACT_WAIT"] + RATES["REACT_REACT"]:
            ch = "react"
        else:
            ch = "continue"
    fn = first_name(target)
    if ch == "talk":
        if news and news.get("untold"):
            ev = read_event(news["text"], P.today, P.year, names=P.names)
            what = ev.short(6) if ev else "the news"
            reason = "%s hasn't heard about %s yet and is right here." % (fn, clip(what, 60))
        else:
            reason = dice.pick("rt", ["%s is close by, a good moment to say hello." % fn,
                                      "It would be friendly to have a quick word with %s." % fn])
    elif ch == "wait":
        reason = "%s looks busy; better to wait until they finish before saying anything." % fn
    elif ch == "react":
        reason = "Seeing %s is a reminder of something %s wanted to do." % (fn, first_name(me))
    else:
        reason = dice.pick("rc", ["Nothing about this needs %s's attention; carry on." % first_name(me),
                                  "%s is just going about their day, no need to interrupt." % fn,
                                  "%s would rather carry on: %s." % (first_name(me),
                                                                    clip(doing or "the plan", 60))])
    new = ""
    if ch == "react":
        new = "going over to help %s" % fn
    return {"choice": ch, "reason": clip(reason, 290), "new_activity": new}


# ----------------------------------------------------------------------------- reflection

def names_in(texts, me):
    cnt = {}
    for t in texts:
        for n in re.findall(NAME_RE, t):
            if n == me or " " not in n or not is_name(n):
                continue
            cnt[n] = cnt.get(n, 0) + 1
    return sorted(cnt.items(), key=lambda x: -x[1])


def do_reflection_questions(P, dice):
    me = P.me
    mems = P.memories(header=r"^These are .* memories[^\n]*:\s*$") or P.memories()
    texts = [mo.text for mo in mems]
    ppl = names_in(texts, me)
    know = Know(P, me, dice, mems=mems, news=P.news(me), tag="rq")
    qs = []
    ev = know.main_event()
    if ev is not None:
        vp = " ".join(re.split(r",| and | who ", ev.vp())[0].split()[:7])
        if ev.host == me:
            qs.append("Who will come when %s %s, and who can't make it?" % (me, third_person(vp)))
        else:
            qs.append("Should %s join %s to %s?" % (me, ev.host or "them", vp))
    for n, c in ppl[:2]:
        qs.append(dice.pick("q" + n, ["What does %s know about %s?" % (me, n),
                                      "How does %s get on with %s?" % (me, n),
                                      "Why does %s keep running into %s?" % (me, n)]))
    places = re.findall(r"busy at the ([a-z]+(?: room)?)", " ".join(texts))
    if places:
        qs.append("Why does %s spend so much of the day at the %s?" % (me, places[-1]))
    qs.append("How is %s settling into this week?" % me)
    qs = list(dict.fromkeys(qs))
    k = 2 if dice.chance("fewer", RATES["FEWER_QUESTIONS"]) else 3
    mn, mx = schema_items_bounds(P.schema, "questions")
    k = max(mn or 1, min(k, mx or 3))
    return {"questions": qs[:k]}


def do_reflection_insights(P, dice):
    me = P.me
    u = P.user
    mnum = re.search(r"numbers \(1 to (\d+)\)", u)
    stm = {}
    for m in re.finditer(r"^(\d+)\. (?:\[[^\]]*\] )?(.*)$", u, re.M):
        stm[int(m.group(1))] = m.group(2)
    N = int(mnum.group(1)) if mnum else (max(stm) if stm else 1)
    enum = schema_enum(P.schema, "insights", "[]", "evidence", "[]") or list(range(1, N + 1))
    # groups of questions
    qblock = []
    for ln in u.split("\n"):
        mq = re.match(r'^(?:- |Question: )"(.*)"\s*$', ln)
        ms = re.match(r"^(\d+)\. ", ln)
        if mq:
            if qblock and qblock[-1][1]:
                qblock.append(([mq.group(1)], []))
            elif qblock:
                qblock[-1][0].append(mq.group(1))
            else:
                qblock.append(([mq.group(1)], []))
        elif ms and qblock:
            qblock[-1][1].append(int(ms.group(1)))
    if not qblock:
        qblock = [(["What stands out?"], sorted(stm))]
    allnums = sorted(stm) or [1]
    know = Know(P, me, dice, mems=[], news=None, tag="ri")
    out = []
    for qs, nums in qblock:
        for q in qs:
            if len(out) >= 15:
                break
            ins = insights_for(P, dice, me, q, nums or allnums, stm, allnums, know)
            out.extend(ins[: 5])
    out = out[:15] or [{"insight": "%s has had an ordinary few days." % me, "about": me,
                        "evidence": [allnums[0]], "importance": 2}]
    for i, it in enumerate(out):
        ev = [x for x in it["evidence"] if x in enum][:10] or [enum[0]]
        if dice.chance("wrongev%d" % i, RATES["WRONG_EVIDENCE"]):
            j = dice.randint("wj%d" % i, 0, len(ev) - 1)
            alt = ev[j] + (1 if dice.chance("wd%d" % i, RATES["HALF"]) else -1)
            if alt in enum:
                ev[j] = alt
        it["evidence"] = list(dict.fromkeys(ev))
        it["insight"] = clip(it["insight"], 295)
        it["about"] = clip(it["about"], 58)
    return {"insights": out}


def ev_about(ev):
    return clip(re.split(r",| and | who ", ev.vp())[0], 55)


def insights_for(P, dice, me, q, nums, stm, allnums, know):
    out = []
    mn = re.search(r"about (" + NAME_RE + r")\?", q) or re.search(r"with (" + NAME_RE + r")\?", q)
    if mn and mn.group(1) != me:
        who = mn.group(1)
        fn = first_name(who)
        rel = [n for n in nums if who in stm.get(n, "") or re.search(r"\b%s\b" % fn, stm.get(n, ""))]
        if not rel:
            rel = [n for n in allnums if who in stm.get(n, "")]
        if not rel:
            return [{"insight": "%s does not really know much about %s yet." % (me, who),
                     "about": who, "evidence": [nums[0]], "importance": 2}]
        chats = [n for n in rel if re.search(r"chat|conversation", stm[n])]
        where = re.findall(re.escape(who) + r" is busy at the ([a-z]+(?: room)?)", " ".join(stm[n] for n in rel))
        declined = [n for n in rel if re.search(r"can'?t make it|cannot go", stm[n])]
        accepted = [n for n in rel if ACCEPT_RE.search(stm[n])]
        if chats:
            out.append({"insight": "%s and %s run into each other often and chat, if only briefly." % (me, who),
                        "about": who, "evidence": chats[:10], "importance": 3})
        if where:
            out.append({"insight": "%s seems to spend most of the day busy at the %s." % (who, where[-1]),
                        "about": who, "evidence": rel[:10], "importance": 2})
        if declined:
            out.append({"insight": "%s has said they can't make it to the plans that came up." % who,
                        "about": who, "evidence": declined[:10], "importance": 4})
        if accepted and not declined:
            out.append({"insight": "%s seems keen to join in when something is on." % who,
                        "about": who, "evidence": accepted[:10], "importance": 4})
        if not out:
            out.append({"insight": "%s knows %s only a little so far." % (me, who), "about": who,
                        "evidence": rel[:10], "importance": 2})
        return out
    # an intention / event question
    evn = [n for n in nums if read_event(stm.get(n, ""), P.today, P.year, names=P.names)]
    qev = read_event(q.split(":", 1)[-1], P.today, P.year, names=P.names)
    if qev is not None or evn:
        ev = qev or read_event(stm[evn[0]], P.today, P.year, names=P.names)
        told = [n for n in nums if re.search(r"Have you heard|told|heard from", stm.get(n, ""))]
        decl = [n for n in nums if re.search(r"can'?t make it|cannot go", stm.get(n, ""))]
        acc = [n for n in nums if ACCEPT_RE.search(stm.get(n, ""))]
        base = (evn[:1] or nums[:1])
        if ev.host == me:
            out.append({"insight": "%s is set on %s %s and wants people to come." % (
                me, ev.gerund(), ev.when(P.today)), "about": ev_about(ev),
                "evidence": base + told[:4], "importance": 6})
        else:
            out.append({"insight": "%s knows that %s." % (me, ev.describe(ref=P.today)),
                        "about": ev_about(ev), "evidence": base, "importance": 5})
        mine = [n for n in told if re.search(r"(?:^|/ )" + re.escape(me) + r'(?: told|: "Have you heard)',
                                             stm.get(n, ""))]
        others = [n for n in told if n not in mine]
        if mine:
            out.append({"insight": "%s has been telling people about it whenever they meet." % me,
                        "about": "spreading the word", "evidence": mine[:10], "importance": 4})
        if others:
            out.append({"insight": "Several people have told %s about it." % me,
                        "about": "the news going round", "evidence": others[:10], "importance": 3})
        if decl:
            out.append({"insight": "Some people %s told said they can't make it." % me,
                        "about": "who is coming", "evidence": decl[:10], "importance": 4})
        if acc:
            out.append({"insight": "Others sounded keen and said they would come.",
                        "about": "who is coming", "evidence": acc[:10], "importance": 5})
        return out
    # generic
    texts = [stm.get(n, "") for n in nums]
    places = re.findall(re.escape(me) + r" is busy at the ([a-z]+(?: room)?)", " ".join(texts))
    if places:
        out.append({"insight": "%s spends most days busy at the %s." % (me, places[-1]),
                    "about": "%s's routine" % first_name(me),
                    "evidence": [n for n in nums if "busy at" in stm.get(n, "")][:10] or nums[:1],
                    "importance": 2})
    ppl = names_in(texts, me)
    if ppl:
        who = ppl[0][0]
        out.append({"insight": "%s sees a lot of %s these days." % (me, who), "about": who,
                    "evidence": [n for n in nums if who in stm.get(n, "")][:10], "importance": 3})
    if not out:
        out.append({"insight": "%s's days follow a steady routine." % me, "about": "routine",
                    "evidence": nums[:3], "importance": 2})
    return out


# ----------------------------------------------------------------------------- relationship

def do_relationship(P, dice):
    me = P.me
    m = re.search(r"relationship with (?:each of )?(.*?),\s*\n?and how", P.user, re.S)
    targets = []
    if m:
        targets = [t.strip() for t in re.split(r",\s*|\s+and\s+", m.group(1)) if t.strip()]
    lines = P.section(r"^What " + re.escape(me or "") + r" remembers about [^\n]*:\s*$")
    texts = [re.sub(r"^\s*-\s*(?:\[[^\]]*\]\s*)?", "", ln) for ln in lines]
    parts = []
    for t in targets[:3]:
        fn = first_name(t)
        rel = [x for x in texts if t in x]
        chats = [x for x in rel if re.search(r"chat|conversation", x)]
        decl = [x for x in rel if re.search(t + r"[^/]*\"?[^\"]*can'?t make it", x) or
                re.search(r"chatted with [^,]*" + t + r"[^,]*, who said: Sorry, I can'?t make it", x)]
        acc = [x for x in rel if re.search(t + r': "[^"]*(?:count me in|I\'ll be there|I\'ll come)', x)]
        busy = re.findall(re.escape(t) + r" is busy at the ([a-z]+(?: room)?)", " ".join(rel))
        if not rel:
            parts.append("%s hardly knows %s yet" % (me, t))
        elif chats:
            s = "%s knows %s%s and they have chatted %s" % (
                me, t, (" from the " + busy[-1]) if busy else "",
                "a few times" if len(chats) > 2 else "briefly")
            if acc:
                s += "; %s was glad %s wants to come along" % (first_name(me), fn)
            elif decl:
                s += "; %s was a little disappointed %s couldn't make it" % (first_name(me), fn)
            parts.append(s)
        else:
            parts.append("%s has only seen %s around%s and feels neutral about them" % (
                me, t, (" at the " + busy[-1]) if busy else ""))
    if not parts:
        parts = ["%s does not know them well yet" % me]
    feel = dice.pick("feel", ["friendly", "warm", "easy-going", "fine"])
    out = "; ".join(parts) + ". Right now %s feels %s towards %s." % (
        first_name(me), feel, "them" if len(targets) != 1 else first_name(targets[0]))
    return {"summary": clip(out, 395)}


# ----------------------------------------------------------------------------- revise currently

def do_revise_currently(P, dice):
    me = P.me
    per = P.person(me)
    cur = per.get("currently", "")
    first = re.split(r"(?<=\.)\s+", cur)[0] if cur else "%s is getting on with things." % me
    mems = P.memories(header=r"^What .* remembers[^\n]*:\s*$")
    know = Know(P, me, dice, mems=mems, news=P.news(me), tag="rc")
    out = [first]
    added = 0
    for e in reversed(know.events):
        if added >= 2:
            break
        ev, role = e["ev"], e["role"]
        past = is_past(ev, P.now) if P.today is None or ev.date is None else ev.date < P.today
        if past and not dice.chance("stale%d" % added, RATES["STALE_KEEP"]):
            continue
        if role == "host":
            out.append("%s means to %s %s %s, and is telling everyone about it." % (
                me, ev.vp(), ev.place_text, ev.when(None)))
        elif role == "accepted":
            out.append("%s plans to join %s to %s %s %s." % (
                me, ev.host or "them", ev.vp(), ev.place_text, ev.when(None)))
        elif role == "declined":
            out.append("%s heard that %s but can't go." % (me, ev.describe(ref=None)))
        else:
            out.append("%s heard that %s." % (me, ev.describe(ref=None)))
        added += 1
    txt = " ".join(re.sub(r"\s+", " ", s).replace(" ,", ",").replace(" .", ".") for s in out)
    return {"currently": clip(txt, 495)}


# ----------------------------------------------------------------------------- conversation tasks

def convo_participants(P):
    m = re.search(r"just had this conversation with (.*?):\s*$", P.user, re.M)
    if m:
        return [x.strip() for x in re.split(r",\s*|\s+and\s+", m.group(1)) if x.strip()]
    m = re.search(r"is talking with (.*?)\.\s*$", P.user, re.M) or \
        re.search(r"is talking with (.*?)\.", P.user)
    if m:
        return [x.strip() for x in re.split(r",\s*|\s+and\s+", m.group(1)) if x.strip()]
    return []


def do_conversation_memo(P, dice):
    me = P.me
    others = convo_participants(P)
    lines = P.lines_after(r"just had this conversation with [^\n]*:\s*$")
    places = schema_enum(P.schema, "plan_place") or P.places_of()
    places = [p for p in places if p]
    denum = [d for d in (schema_enum(P.schema, "plan_date") or P.day_options()) if d]
    know = Know(P, me, dice, mems=[], news=P.news(me), tag="cm")
    return memo_for(P, dice, me, others, lines, know, places, denum or None, "cm")


def person_know(P, dice, name, tag):
    mems = P.memories(name)
    return Know(P, name, dice, mems=mems, news=P.news(name), tag=tag)


def do_conversation_summary(P, dice):
    names = [p["name"] for p in P.persons][:2]
    spk = schema_enum(P.schema, "lines", "[]", "speaker") or names
    if len(names) < 2:
        names = (names + [n for n in spk if n not in names])[:2]
    first, second = names[0], names[1]
    knows = {n: person_know(P, dice, n, "cs" + n) for n in names}
    plans = {n: P.plan(n) for n in names}
    talk, lines = simulate(P, dice, [first, second], knows, plans, 6, "cs")
    if not talk:
        return {"talk": False, "lines": [], "first": None, "second": None}
    denum = [d for d in (schema_enum(P.schema, "$ConversationMemo", "plan_date") or
                         P.day_options()) if d]
    pl1 = [p for p in (schema_enum(P.schema, "$ConversationMemo", "plan_place") or
                       P.places_of(first)) if p]
    pl2 = [p for p in (schema_enum(P.schema, "$PartnerMemo", "plan_place") or
                       P.places_of(second)) if p]
    m1 = memo_for(P, dice, first, [second], lines, knows[first], pl1, denum or None, "m1")
    m2 = memo_for(P, dice, second, [first], lines, knows[second], pl2, denum or None, "m2")
    return {"talk": True, "lines": [{"speaker": a, "text": clip(b, 298)} for a, b in lines],
            "first": m1, "second": m2}


def do_group_summary(P, dice):
    spk = schema_enum(P.schema, "lines", "[]", "speaker")
    names = [p["name"] for p in P.persons] or spk or []
    if spk:
        names = [n for n in names if n in spk] or spk
    knows = {n: person_know(P, dice, n, "gs" + n) for n in names}
    plans = {n: P.plan(n) for n in names}
    talk, lines = simulate(P, dice, names, knows, plans, 10, "gs")
    if not talk:
        return {"talk": False, "lines": [], "memos": []}
    denum = [d for d in (schema_enum(P.schema, "$GroupMemo", "plan_date") or P.day_options()) if d]
    allpl = [p for p in (schema_enum(P.schema, "$GroupMemo", "plan_place") or []) if p]
    memos = []
    for n in names[:8]:
        own = P.places_of(n)
        pl = [p for p in allpl if not own or p in own] or allpl
        mm = memo_for(P, dice, n, [x for x in names if x != n], lines, knows[n], pl or allpl,
                      denum or None, "gm" + n)
        if mm["plan_place"] and allpl and mm["plan_place"] not in allpl:
            mm["plan_place"] = ""
        mm = dict([("name", n)] + list(mm.items()))
        memos.append(mm)
    return {"talk": True, "lines": [{"speaker": a, "text": clip(b, 298)} for a, b in lines],
            "memos": memos}


def do_converse_turn(P, dice):
    me = P.me
    partners = convo_participants(P) or [n for n in P.names if n != me][:1] or ["you"]
    lines = P.lines_after(r"^The conversation so far:\s*$")
    know = Know(P, me, dice, mems=P.memories(me), news=P.news(me), tag="ct")
    plan = P.plan(me)
    txt, to, end = next_turn(P, dice, me, partners, lines, know, plan, group=False)
    return txt, end


def do_group_turn(P, dice):
    me = P.me
    enum = schema_enum(P.schema, "addressed_to") or []
    partners = [n for n in enum if n != "everyone"] or convo_participants(P)
    lines = P.lines_after(r"^The conversation so far:\s*$")
    know = Know(P, me, dice, mems=P.memories(me), news=P.news(me), tag="gt")
    plan = P.plan(me)
    txt, to, end = next_turn(P, dice, me, partners, lines, know, plan, group=True)
    if enum and to not in enum:
        to = "everyone" if "everyone" in enum else enum[0]
    return {"utterance": clip(txt, 398), "addressed_to": to, "end_conversation": bool(end)}


# ----------------------------------------------------------------------------- generic

def from_schema(schema, node=None, key="", depth=0):
    defs = schema.get("$defs") or schema.get("definitions") or {}
    node = schema if node is None else node
    while isinstance(node, dict) and "$ref" in node:
        node = defs.get(node["$ref"].split("/")[-1], {})
    if "anyOf" in node:
        alts = [a for a in node["anyOf"] if a.get("type") != "null"]
        node = alts[0] if alts else {"type": "null"}
    if "enum" in node:
        vals = [v for v in node["enum"] if v != ""] or node["enum"]
        return vals[0]
    t = node.get("type")
    if t == "object" or "properties" in node:
        out = {}
        for k, v in (node.get("properties") or {}).items():
            out[k] = from_schema(schema, v, k, depth + 1)
        return out
    if t == "array":
        n = max(1, node.get("minItems", 1))
        return [from_schema(schema, node.get("items") or {}, key, depth + 1) for _ in range(n)]
    if t == "integer":
        lo = node.get("minimum", 0)
        hi = node.get("maximum", lo + 5)
        return int(max(lo, min(hi, (lo + hi) // 2)))
    if t == "number":
        return float(node.get("minimum", 0))
    if t == "boolean":
        return key in ("ok", "talk")
    if t == "null":
        return None
    pat = node.get("pattern", "")
    if "[0-5][0-9]" in pat:
        return "" if pat.endswith(")?$") else "12:00"
    if pat.startswith("^(") and pat.endswith(")?$"):
        return ""
    s = "I'm not sure."
    return s[: node.get("maxLength", 400)]


HANDLERS = {
    "conversation_memo": do_conversation_memo,
    "conversation_summary": do_conversation_summary,
    "group_summary": do_group_summary,
    "group_turn": do_group_turn,
    "daily_plan": do_daily_plan,
    "decompose": do_decompose,
    "importance": do_importance,
    "importance_batch": do_importance_batch,
    "interview": do_interview,
    "react": do_react,
    "reflection_questions": do_reflection_questions,
    "reflection_insights": do_reflection_insights,
    "relationship": do_relationship,
    "revise_currently": do_revise_currently,
}


def malform_json(obj, P, dice):
    s = json.dumps(obj, ensure_ascii=False)
    if P.purpose == "probe":
        return s
    r = dice.r("malform")
    a = RATES["TRUNCATED"]
    b = a + RATES["PROSE"]
    c = b + RATES["MISSING"]
    d = c + RATES["REFUSAL"]
    if r < a:
        cut = int(len(s) * (0.4 + 0.5 * dice.r("cut")))
        return s[:max(1, cut)]
    if r < b:
        if dice.chance("fence", RATES["FENCE"]):
            return "Here is the JSON:\n```json\n" + s + "\n```"
        return "Sure! " + s + "\nI hope this helps."
    if r < c:
        req = [k for k in (P.schema.get("required") or []) if k in obj]
        if req and isinstance(obj, dict):
            o2 = dict(obj)
            del o2[dice.pick("drop", req)]
            return json.dumps(o2, ensure_ascii=False)
        return s[: len(s) // 2]
    if r < d:
        return "I'm sorry, but I can't help with that request."
    return s


def malform_text(txt, tag, me, dice):
    r = dice.r("malformtext")
    a = RATES["TEXT_PREFIX"]
    b = a + RATES["TEXT_NOTAG"]
    c = b + RATES["TEXT_NARRATE"]
    if r < a:
        return '%s: "%s"\n%s' % (me, txt, tag)
    if r < b:
        return txt
    if r < c:
        return "%s says: %s %s" % (me, txt, tag)
    return txt + "\n" + tag


def _respond(body, seed):
    P = Prompt(body)
    dice = Dice(body, seed)
    if P.purpose == "probe" or re.search(r'Answer as \{"ok": true\}', P.user):
        return json.dumps({"ok": True})
    if not P.json_mode:
        if re.search(r"\[end\]|\[continue\]", P.user):
            txt, end = do_converse_turn(P, dice)
            return malform_text(txt, "[end]" if end else "[continue]", P.me or "Me", dice)
        return "I'm not sure what to say."
    h = HANDLERS.get(P.purpose)
    if h is None:
        obj = from_schema(P.schema) if P.schema else {}
    else:
        obj = h(P, dice)
    return malform_json(obj, P, dice)


def respond(body: dict, seed: int) -> str:
    try:
        return _respond(body, seed)
    except Exception:  # a real model never crashes; answer something plausible
        try:
            P = Prompt(body)
            if P.json_mode and P.schema:
                return json.dumps(from_schema(P.schema), ensure_ascii=False)
            if re.search(r"\[end\]|\[continue\]", P.user):
                return "Nice to see you.\n[continue]"
        except Exception:
            pass
        return "{}"
