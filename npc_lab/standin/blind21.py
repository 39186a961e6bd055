"""blind21 -- a rule-based test model that imitates a chat LLM for a village-life simulation.

Imitated model: a 70B-class open-weights instruction model served by vLLM in plain JSON
mode (a `response_format` of type json_schema is NOT enforced; the model only tries to
follow the schema it reads).  Character: terse, literal, reserved.  It answers what is
asked and little more, keeps to what its character already planned unless there is a
clear reason, does not volunteer news unless the prompt makes it plainly relevant or
asks for it, and in dialogue says times in its own words ("half five", "quarter to six",
"17:30") instead of copying the prompt's wording.

Entry point: respond(body: dict, seed: int) -> str  (the message content).
Standard library only.  Deterministic: every random draw comes from ONE random.Random
seeded with the SHA-256 digest of the canonical JSON of the request (sorted keys,
compact separators) followed by "|" and the seed.  It never raises: on anything
unexpected it answers with a short plain reply, or a minimal JSON object built from the
schema.

The request kind is read from the meaning of the request (the property names of the
schema, or of the "Answer as {...}" template, or the [end]/[continue] tag instructions of
a plain-text turn), never from fixed headings.  No name, place or event is hard-coded.

DECLARED RULES AND RATES (fixed before the first run against any request)
=========================================================================

Dialogue (plain-text turns, group turns, and the lines the model writes itself inside
two-person and group conversation summaries)
  * Bringing up news the speaker holds that has not come up in the conversation yet,
    drawn at each of the speaker's turns until it has come up:
      - the host of the event (it is their own event) ............ 0.90
      - a non-host who started the talk in order to tell it ....... 0.85
      - any other non-host holder ................................. 0.65
    When not brought up, the turn is a short greeting / small-talk line.
  * Answer to an invitation made by the event's host (or any direct invitation
    "come to / join me / fancy ..." with a time):
      - no real commitment in the listener's plan at that time:
          accept 0.55, non-committal 0.35, decline 0.10
      - a real commitment (another event, "calling on", "meeting", "going to",
        "hosting", an appointment) at that time:
          decline naming the commitment 0.85, accept anyway 0.15
  * Answer to news of someone else's event passed on by a non-host (news, not an
    invitation):
      - no clash: says they mean to go 0.30, non-committal 0.60, not for them 0.10
      - clash:    means to go 0.05, says they can't make it 0.60, non-committal 0.35
  * Listener who already has the event in their plan: "already going" 1.0.
    Listener who already said no earlier (remembered): no again 0.80, non-committal 0.20.
  * Ending: answer to a goodbye is a goodbye and ends (1.0).  A speaker with nothing left
    to say takes leave 0.60 (else one short small-talk line).  From the speaker's third
    own line on, takes leave 1.0.  "Has to go now" -> takes leave 1.0.  "Already said X:
    says something new or takes leave" -> takes leave 0.70.
  * Wording-level draws (no behavioural effect): a greeting before news on an opening
    line 0.50; "anyone's welcome" tail when the news says all may come 0.50; time style in
    dialogue and interviews: "half five" 0.45, "half past five" 0.25, "17:30" 0.20,
    "5:30pm" 0.10; other phrasings uniformly among fixed variants.
  * Group turn addressed_to: the last speaker who spoke to them, else "everyone" when
    telling news to two or more, else the only other person.

Conversation summaries (two people / a group meeting in passing)
  * They talk: someone present holds news another present has not heard 0.90; someone
    holds news but all have heard it 0.55; nobody holds news 0.40.
  * Lines are produced with the dialogue rules above; two-person 2-6 lines, group 2-8.
  * Each participant's memo follows the memo rules below.

Memos (conversation memo, and memos inside summaries)
  * Plan item when the character said yes to the event/invitation in the lines, not host:
    0.92 (if the event is already in the plan shown: 0.30).
  * Plan item when only told of it (no yes said): 0.04.  Declined: 0.  Host: 0.03.
  * Importance: small talk 2; told of an event 4-5; said yes 5-6; declined 3-4;
    host telling own event 4-5; +/-1 noise with 0.25.
  * plan_place: the known place matching the event; if none of the offered places
    matches: "" 0.80, else the event's own place string (outside enum) 0.20.

Daily plan
  * Host of an event that falls today: hosts it 1.0; extra 30-minute setting-up block
    before it 0.50.
  * Non-host, event today: said yes earlier -> attends 0.95; declined earlier -> 0.05;
    heard only -> 0.35, +0.15 if a trait is sociable/curious/talkative/nosy/jovial/
    energetic/friendly/outgoing, -0.15 if tired/quiet/reserved/shy/grumpy/solitary.
  * Holder of news with a "where untold people will be" list: adds a block there to tell
    them, host 0.60, others 0.40 (only in free time).
  * Saturday or Sunday: takes the day off work 0.40.
  * Lunch at a known public eating place instead of work/home 0.30 (on a day off 0.50).

Reactions
  * Untold news for the noticed person: talk 0.75 (host 0.85); if that person is busy,
    wait 0.10; else continue.
  * The noticed person is calling on the character: talk 0.90, else continue.
  * Otherwise: talk 0.20 (+0.15 with a sociable trait, -0.10 with a quiet trait),
    wait 0.03, react 0.01, else continue.

Interviews
  * "Do you know X": yes if the identity or memories name X (one plain fact added);
    only seen about -> "I've seen them about"; otherwise says they don't know X.
  * "Heard about <event>": yes with what/when/where in own words and own stance
    (going / can't make it / not decided) when memories hold it; else says no.
  * Other questions: answered from plan/memories; otherwise "I'm not sure."
  * Never volunteers news that the question does not touch.

Importance ratings: routine/observation 1-2, chat 2-3, plans 2-3, news/event 5-6,
own hosted event 7 (6-7 for the single-memory rating); values drawn uniformly from the
listed ranges (routine: 1 twice as likely as 2); +/-1 noise with 0.25.  Relationship, revise-currently and reflection
answers are rule-built from the memories (no extra probabilities beyond noted ones).
Reflection questions: always as many as asked (at most 3 unless told).

Format slips (one draw per answer; at most one kind-specific slip per answer)
  * All JSON kinds except the probe: wrapped in a ```json code fence ......... 0.01
  * importance ............... rating as a string 0.02
  * importance batch ......... list one too long/short 0.02; ratings as strings 0.01
  * daily plan ............... address outside the list 0.01; extra key 0.01;
                               outline of 9 items 0.01
  * decompose ................ a duration as a string 0.02.  When the span cannot be
                               filled with the allowed steps: the maximum number of
                               steps with some steps over 15 minutes 0.60, else the
                               maximum number of 15-minute steps (under-fill) 0.40.
  * react .................... new_activity missing 0.015; choice capitalised (outside
                               enum) 0.015
  * group turn ............... addressed_to as first name only 0.015;
                               end_conversation as a string 0.015
  * conversation memo ........ importance as a string 0.02; extra key 0.01
  * conversation summary ..... a memo missing plan_minutes 0.015; a speaker given by
                               first name only 0.015
  * group summary ............ one memo left out 0.015; a speaker by first name 0.015
  * relationship / revise / interview ... extra key 0.01
  * reflection questions ..... one question too many 0.02
  * reflection insights ...... an evidence number out of range 0.02; importance as a
                               string 0.01
  * plain-text turn .......... tag line missing 0.02; speaker name before the words 0.01
  * probe .................... always {"ok": true}, no slips.

Changes after first run (bug fixes only; no declared rate was changed)
======================================================================
 1. Event keywords were cut to 12 words, so news that had already come up was told
    again; the full keyword list is used.
 2. Event host was sometimes taken to be the teller, a place ("Village Hall"), or a name
    from an unrelated schedule line; host now comes from verbs/possessives, names the
    prompt uses for people, and matching "is hosting" text; unknown host -> "they".
 3. Known-place matching took a surname dwelling ("X house") from a person's name; now
    dwellings need their full name, a unique area word counts, and the raw news text is
    also searched.
 4. A host's first-person announcement without an invitation phrase was not seen as an
    event by listeners; detection now also accepts first-person future + date, or an
    event noun + date/time; direct invitations ("fancy ...", "would you like ...") make
    the speaker the host; "at four" style hours and evening-social words are parsed.
 5. A teller could tell the host her own event, and a host hearing it answered with small
    talk; both fixed.
 6. In groups, one goodbye made everybody leave; now a farewell to someone who left does
    not end the speaker's part unless nobody else is left.
 7. Bare "Mm." / repeated greetings: the declared "nothing left to say" rule (leave 0.60,
    else one small-talk line) is now applied there as well.
 8. Garbled quoted lines ('... / Name: "...') are split by speaker before reading anyone's
    yes/no; a shadowed variable made memos read "X told X".
 9. A non-host teller answered an acceptance with "see you there" (read as a yes of their
    own); now only when the event is in the teller's own plan.
10. "What X remembers" text included the conversation and instructions (everything looked
    already heard); only the memory block is read.  Schedule lines are no longer used as
    cleaner copies of the news.
11. Daily plan: the news-telling block could replace lunch (meals now count as busy);
    outline put in time order; an emoji keyword matched "ready".
12. Decompose: the core step (e.g. eating) could be dropped; long "still ..." runs;
    step sets now depend on place/objects.
13. Interview: "are you going / when is / who is / what do you think of / what are you
    doing" were answered with the wrong template; unrelated event questions no longer
    match on generic words.
14. Reflection: "Friday April" and possessives were treated as people; day questions
    handled.  Relationship prompts naming several people handled.  Revise-currently:
    place fallback and events found in quoted conversation.
15. Event labels: "talk", "fair", "reading" no longer fire on ordinary words; the label is
    read from the dated sentence first.  Capture-specific words removed from word lists.
"""

import datetime as _dt
import hashlib
import json
import random
import re

# ----------------------------------------------------------------------------------
# small utilities
# ----------------------------------------------------------------------------------

WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
NUMW = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
        "ten", "eleven", "twelve"]
NUMW_RE = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
NUM_RE = r"(?:\d{1,2}|" + NUMW_RE + r")"
SOCIABLE = {"sociable", "curious", "talkative", "nosy", "jovial", "energetic", "friendly",
            "outgoing", "chatty", "gregarious", "cheerful", "warm"}
QUIET = {"tired", "quiet", "reserved", "shy", "grumpy", "solitary", "withdrawn", "gruff",
         "introverted"}
ACCEPT_PH = ["count me in", "i'll be there", "i will be there", "i'll come", "i will come",
             "i'll go", "i will go", "i'll be along", "see you there", "i'd love to",
             "wouldn't miss", "i'm in", "i'll join", "i'll pop along", "i'll look in",
             "i mean to go", "i'm going", "i'll head along", "i'll head over",
             "i'll make it", "i'll try to be there", "i'll come along", "i'll go along",
             "see you at", "yes, please", "sounds good, i'll", "already going",
             "i'll be going", "i'm planning to go", "i'm already going"]
DECLINE_PH = ["can't make it", "cannot make it", "can't come", "won't be able", "can't go",
              "cannot come", "not for me", "have to miss", "i have other plans", "i'll pass",
              "can't manage", "won't make it", "cannot go", "i'm busy then", "not able to"]
GOODBYE_PH = ["see you around", "goodbye", "bye", "see you later", "take care",
              "must be off", "must get on", "good to talk", "good to see you",
              "i'd better get on", "i'll let you get on", "see you soon", "cheerio",
              "i should get going", "best be off", "i'll be off"]
STOP = set("""a an the and or but if of to in on at by for with from as is are was were be been
being this that these those it its it's i you he she they we me him her them us my your his
their our there here then than so too very just also not no yes do does did done have has had
will would shall should can could may might must about into over after before till until up
down out off all any some each every much many more most other such only own same one two
anybody anyone everyone everybody someone somebody nobody people person saturday sunday monday
tuesday wednesday thursday friday january february march april may june july august september
october november december evening morning afternoon night today tomorrow tonight half past
quarter o'clock am pm she'll he'll they'll i'll glad help heard news event told said hosting
mind what when where who why how time while back come came going went get got set see seen
would've""".split())


def _canon(body):
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def make_rng(body, seed):
    h = hashlib.sha256((_canon(body) + "|" + str(seed)).encode("utf-8")).hexdigest()
    return random.Random(int(h, 16))


def first_name(full):
    return (full or "").split()[0] if full else ""


def hm(m):
    m = int(m) % 1440
    return "%02d:%02d" % (m // 60, m % 60)


def parse_hm(s):
    mo = re.match(r"\s*(\d{1,2})[:.](\d\d)", s or "")
    if not mo:
        return None
    return int(mo.group(1)) * 60 + int(mo.group(2))


def ampm(m):
    m = int(m) % 1440
    h, mi = m // 60, m % 60
    suf = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    if m == 0:
        return "midnight"
    if m == 720:
        return "noon"
    return ("%d%s" % (h12, suf)) if mi == 0 else ("%d:%02d%s" % (h12, mi, suf))


def word_hour(h12):
    return NUMW[h12] if 0 <= h12 <= 12 else str(h12)


def say_time(m, style):
    m = int(m) % 1440
    h, mi = m // 60, m % 60
    h12 = h % 12 or 12
    nxt = (h12 % 12) + 1
    if style == "24":
        return "%02d:%02d" % (h, mi)
    if style == "ampm":
        return ("%d" % h12 if mi == 0 else "%d:%02d" % (h12, mi)) + ("pm" if h >= 12 else "am")
    if mi == 0:
        return word_hour(h12)
    if mi == 30:
        return ("half " if style == "brit" else "half past ") + word_hour(h12)
    if mi == 15:
        return "quarter past " + word_hour(h12)
    if mi == 45:
        return "quarter to " + word_hour(nxt)
    return "%d:%02d" % (h12, mi)


def say_range(s, e, style):
    if s is None:
        return ""
    if e is None or e == s:
        return ("at " if style != "24" else "at ") + say_time(s, style)
    joiner = {"brit": " till ", "past": " to ", "24": " to ", "ampm": " to "}[style]
    a = say_time(s, style)
    b = say_time(e, style)
    if style == "ampm" and a[-2:] == b[-2:]:
        a = a[:-2]
    return a + joiner + b


def clip(s, n):
    s = (s or "").strip()
    if len(s) <= n:
        return s
    cut = s[: n - 1]
    if " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(",;: ") + "."


def low_first(s):
    return s[:1].lower() + s[1:] if s else s


def up_first(s):
    return s[:1].upper() + s[1:] if s else s


def has_any(text, phrases):
    t = (text or "").lower().replace("\u2019", "'")
    return any(p in t for p in phrases)


def content_words(text):
    ws = re.findall(r"[A-Za-z][A-Za-z'\-]+", text or "")
    return [w.lower() for w in ws if len(w) >= 4 and w.lower() not in STOP]


# ----------------------------------------------------------------------------------
# dates and times in text
# ----------------------------------------------------------------------------------

def num_val(tok):
    tok = tok.lower()
    if tok.isdigit():
        return int(tok)
    if tok in NUMW:
        return NUMW.index(tok)
    return None


TIME_TOK = (r"(?:(?:half past|half|quarter past|quarter to)\s+" + NUM_RE +
            r"|\d{1,2}[:.]\d\d\s*(?:am|pm|a\.m\.|p\.m\.)?|\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)"
            r"|" + NUM_RE + r"\s+o'clock|noon|midday|midnight|" + NUM_RE + r")")


def tok_to_min(tok, evening_ctx):
    t = tok.lower().strip()
    mer = None
    mo = re.search(r"(am|pm|a\.m\.|p\.m\.)$", t)
    if mo:
        mer = "pm" if mo.group(1).startswith("p") else "am"
        t = t[: mo.start()].strip()
    if t in ("noon", "midday"):
        return 720
    if t == "midnight":
        return 0
    h = mi = None
    explicit24 = False
    mo = re.match(r"half past (\S+)$", t) or re.match(r"half (\S+)$", t)
    if mo:
        h, mi = num_val(mo.group(1)), 30
    elif re.match(r"quarter past (\S+)$", t):
        h, mi = num_val(t.split()[-1]), 15
    elif re.match(r"quarter to (\S+)$", t):
        v = num_val(t.split()[-1])
        h, mi = (None if v is None else v - 1), 45
    else:
        mo = re.match(r"(\d{1,2})[:.](\d\d)$", t)
        if mo:
            h, mi = int(mo.group(1)), int(mo.group(2))
            explicit24 = h >= 13 or mo.group(1).startswith("0")
        else:
            t2 = t.replace("o'clock", "").strip()
            v = num_val(t2)
            if v is not None:
                h, mi = v, 0
    if h is None or h < 0 or h > 23 or mi is None:
        return None
    if mer == "pm" and h < 12:
        h += 12
    elif mer == "am" and h == 12:
        h = 0
    elif mer is None and not explicit24 and 1 <= h <= 11:
        if evening_ctx or h <= 7:
            h += 12
    return h * 60 + mi


def find_time_range(text):
    """First time range (or single time) found in free text -> (start, end) minutes."""
    if not text:
        return None, None
    t = text.replace("\u2013", "-").replace("\u2019", "'")
    ev = bool(re.search(r"evening|tonight|after work|\bpm\b|p\.m\.|supper|dinner|\bpint|darts|\bdrinks?\b|\bpub\b|quiz|party", t, re.I))
    rx = re.compile(r"(?:from|between)?\s*(" + TIME_TOK + r")\s*(?:-|to|till|until|'til|and)\s*("
                    + TIME_TOK + r")", re.I)
    for mo in rx.finditer(t):
        a, b = mo.group(1), mo.group(2)
        if re.fullmatch(NUM_RE, a.strip(), re.I) and re.fullmatch(NUM_RE, b.strip(), re.I):
            if not re.search(r"(from|between)\s*$", t[: mo.start(1)], re.I):
                continue
        s = tok_to_min(a, ev)
        e = tok_to_min(b, ev)
        if s is None:
            continue
        if e is not None and e <= s:
            if e + 720 > s and e < 720:
                e += 720
            else:
                e = None
        return s, e
    rx2 = re.compile(r"\bat\s+(" + TIME_TOK + r")", re.I)
    for mo in rx2.finditer(t):
        tok = mo.group(1)
        if re.fullmatch(NUM_RE, tok.strip(), re.I) and not re.search(r"\d", tok):
            nxt = t[mo.end(): mo.end() + 12]
            if not re.match(r"\s*(?:[?.!,;-]|$|tomorrow|today|tonight|this|on |in the|sharp|then)", nxt, re.I):
                continue
        s = tok_to_min(tok, ev)
        if s is not None:
            return s, None
    mo = re.search(r"\b(\d{1,2}[:.]\d\d)\b", t)
    if mo:
        s = tok_to_min(mo.group(1), ev)
        if s is not None:
            return s, None
    return None, None


def parse_date_words(s, year):
    """'Saturday April 11' -> date."""
    mo = re.search(r"(?:(" + "|".join(WEEKDAYS) + r"),?\s+)?(" + "|".join(MONTHS) + r")\s+(\d{1,2})", s or "")
    if mo:
        try:
            return _dt.date(year, MONTHS.index(mo.group(2)) + 1, int(mo.group(3)))
        except ValueError:
            return None
    mo = re.search(r"(\d{1,2})(?:st|nd|rd|th)?\s+(" + "|".join(MONTHS) + r")", s or "")
    if mo:
        try:
            return _dt.date(year, MONTHS.index(mo.group(2)) + 1, int(mo.group(1)))
        except ValueError:
            return None
    return None


def find_date(text, ref, year):
    """Date an event in free text falls on, relative to ref date."""
    if not text:
        return None
    d = parse_date_words(text, year)
    if d:
        return d
    t = text.lower()
    if ref is None:
        return None
    if re.search(r"\btomorrow\b", t):
        return ref + _dt.timedelta(days=1)
    if re.search(r"\b(today|tonight|this (morning|afternoon|evening))\b", t):
        return ref
    for i, w in enumerate(WEEKDAYS):
        if re.search(r"\b" + w.lower() + r"\b", t):
            delta = (i - ref.weekday()) % 7
            return ref + _dt.timedelta(days=delta)
    return None


def date_label(d):
    return "%s %s %d" % (WEEKDAYS[d.weekday()], MONTHS[d.month - 1], d.day)


def spoken_day(d, ref, start, rng):
    if d is None or ref is None:
        return ""
    part = ""
    if start is not None:
        part = "evening" if start >= 17 * 60 else ("afternoon" if start >= 12 * 60 else "morning")
    if d == ref:
        if part == "evening":
            return rng.choice(["this evening", "tonight", "this evening"])
        return "this " + part if part else "today"
    if d == ref + _dt.timedelta(days=1):
        return "tomorrow " + part if part else "tomorrow"
    if 0 < (d - ref).days < 7:
        return "on " + WEEKDAYS[d.weekday()] + ((" " + part) if part else "")
    return "on %s the %d%s" % (WEEKDAYS[d.weekday()], d.day,
                              "th" if 11 <= d.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d.day % 10, "th"))


# ----------------------------------------------------------------------------------
# prompt parsing
# ----------------------------------------------------------------------------------

PLACE_RX = re.compile(r"([A-Z][\w'\u2019 .\-]*?):([\w'\u2019][\w'\u2019 .\-]*?):([\w'\u2019][\w'\u2019 .\-]*?)(?=\)|,|\n|$| \(|\"|;)")


def find_places(text):
    out = []
    for mo in PLACE_RX.finditer(text or ""):
        p = "%s:%s:%s" % (mo.group(1).strip(), mo.group(2).strip(), mo.group(3).strip())
        p = re.sub(r"^(?:- |planned at |at )", "", p)
        if p not in out:
            out.append(p)
    return out


def place_parts(p):
    parts = (p or "").split(":")
    if len(parts) >= 3:
        return parts[0], parts[1], ":".join(parts[2:])
    if len(parts) == 2:
        return parts[0], parts[1], ""
    return "", p or "", ""


def spoken_place(p):
    if not p:
        return ""
    if ":" not in p:
        bld = re.sub(r"\s*\(.*?\)", "", p).strip()
    else:
        bld = place_parts(p)[1]
    if not bld:
        return ""
    if "'" in bld or "\u2019" in bld or bld.startswith("St ") or bld.split()[0][0].isupper() and len(bld.split()) > 1 and bld.split()[-1].lower() in ("house", "cottage", "flat", "rooms", "farm"):
        if bld.split()[-1].lower() in ("house", "cottage", "flat", "rooms", "farm"):
            return "the " + bld
        return bld
    return "the " + bld


def match_place(text, places):
    """Best known place mentioned in text (by building and area words)."""
    if not text or not places:
        return ""
    t = text.lower()
    best, score = "", 0
    generic = {"bedroom", "kitchen", "bathroom", "living room", "garden", "hall", "room", "main room"}
    areas = [place_parts(p)[2].lower() for p in places]
    for p in places:
        _, b, a = place_parts(p)
        sc = 0
        dwelling = bool(re.search(r"\b(house|cottage|flat|rooms|farm|home)$", b.lower()))
        if b and re.search(r"\b" + re.escape(b.lower()) + r"\b", t):
            sc += 3
        elif b and not dwelling:
            bw = [w for w in re.findall(r"[a-z']+", b.lower()) if len(w) > 3]
            if bw and all(re.search(r"\b" + re.escape(w) + r"\b", t) for w in bw):
                sc += 2
        if a and re.search(r"\b" + re.escape(a.lower()) + r"\b", t):
            sc += 1
            if a.lower() not in generic and areas.count(a.lower()) == 1 and not dwelling:
                sc += 1
        if sc > score:
            best, score = p, sc
    return best if score >= 2 else ""


class Profile:
    def __init__(self):
        self.name = ""
        self.age = ""
        self.traits = []
        self.identity = ""
        self.lifestyle = ""
        self.currently = ""


def parse_profiles(text):
    profs = []
    for mo in re.finditer(r"(?m)^Name: (.+)$", text or ""):
        p = Profile()
        p.name = mo.group(1).strip()
        seg = text[mo.end(): mo.end() + 3000]
        nxt = re.search(r"(?m)^Name: ", seg)
        if nxt:
            seg = seg[: nxt.start()]
        for key, attr in (("Age", "age"), ("Innate traits", "traits"), ("Identity", "identity"),
                          ("Lifestyle", "lifestyle"), ("Currently", "currently")):
            m2 = re.search(r"(?m)^" + key + r": (.*)$", seg)
            if m2:
                v = m2.group(1).strip()
                if attr == "traits":
                    v = [x.strip().lower() for x in re.split(r",|;| and ", v) if x.strip()]
                setattr(p, attr, v)
        profs.append(p)
    return profs


def parse_now(text, year):
    mo = re.search(r"It is (\w+day \w+ \d{1,2}),? (\d{1,2}:\d\d)", text or "")
    if mo:
        return parse_date_words(mo.group(1), year), parse_hm(mo.group(2))
    mo = re.search(r"Today is (\w+day \w+ \d{1,2})", text or "")
    if mo:
        return parse_date_words(mo.group(1), year), None
    mo = re.search(r"\[(\w+day \w+ \d{1,2}), (\d{1,2}:\d\d)\]", text or "")
    if mo:
        return parse_date_words(mo.group(1), year), parse_hm(mo.group(2))
    return None, None


def parse_year(text):
    mo = re.search(r"\b(20\d\d)-\d\d-\d\d\b", text or "") or re.search(r"\b\w+ \d{1,2}, (20\d\d)\b", text or "")
    if mo:
        return int(mo.group(1))
    mo = re.search(r"\b(19\d\d|20\d\d)\b", text or "")
    return int(mo.group(1)) if mo else 2026


def parse_conv_lines(block):
    lines = []
    for ln in (block or "").split("\n"):
        ln = ln.strip()
        mo = re.match(r'^([A-Z][^:"\n]{0,60}?): "(.*)"\s*$', ln)
        if mo:
            lines.append((mo.group(1).strip(), mo.group(2)))
        elif ln.startswith("(") or not ln:
            continue
    return lines


def parse_plan_lines(text):
    """'- 17:30-19:00 activity (planned at T:P:A) [on Weekday Month D]' lines."""
    out = []
    for mo in re.finditer(r"(?m)^- (\d{1,2}:\d\d)-(\d{1,2}:\d\d) (.*?) \((?:planned at )?([^()\n]*:[^()\n]*)\)(?: on (\w+day \w+ \d{1,2}))?\s*$", text or ""):
        out.append({"start": parse_hm(mo.group(1)), "end": parse_hm(mo.group(2)),
                    "activity": mo.group(3), "place": mo.group(4).strip(), "on": mo.group(5)})
    return out


def parse_memories(text):
    out = []
    for mo in re.finditer(r"(?m)^(?:- |\d+\. )\[(\w+day \w+ \d{1,2}), (\d{1,2}:\d\d)\] (.*)$", text or ""):
        out.append((mo.group(1), parse_hm(mo.group(2)), mo.group(3)))
    return out


NOT_NAME = set(WEEKDAYS) | set(MONTHS) | {"Behind", "The", "What", "Have", "Sounds", "Sorry", "It", "Hi",
                                          "Fine", "Good", "Yes", "No", "Hello", "Morning", "Evening",
                                          "Afternoon", "Did", "Right", "Thanks", "Count", "Anyone", "Never",
                                          "Not", "That", "This", "There", "Answer", "Name", "Age", "Identity",
                                          "Lifestyle", "Currently", "Innate", "Today", "Tomorrow", "Someone",
                                          "Where", "When", "Who", "Why", "How", "Break", "Plan", "Rate",
                                          "Should", "Write", "Step", "Things", "Questions", "Question", "Places"}


PLACE_NOUNS = {"Inn", "Hall", "Green", "Church", "School", "Office", "House", "Cottage", "Farm", "Arms", "Street",
               "Lane", "Road", "Park", "Shop", "Bakery", "Surgery", "Workshop", "Chapel", "Mill",
               "Bridge", "Square", "Market", "Garden", "Gardens", "Common", "Field", "Fields", "Wood", "Hill",
               "Court", "Place", "Centre", "Room", "Rooms", "Club", "Station", "Library", "Museum", "Hotel", "Cafe",
               "Village", "Post", "Tavern", "Pub", "Castle", "Manor", "Abbey", "Priory", "Barn", "Yard"}


def memory_block(text, name=""):
    """The remembered-items block of a prompt (from its heading to the next blank line)."""
    t = text or ""
    i = t.find("What " + name + " remembers") if name else -1
    if i < 0:
        mo = re.search(r"(?m)^[^\n]*\bremembers\b[^\n]*:\s*$", t)
        i = mo.start() if mo else -1
    if i < 0:
        return ""
    j = t.find("\n\n", i)
    return t[i: j if j > 0 else len(t)]


def names_in(text):
    out = []
    for mo in re.finditer(r"\b([A-Z][a-z]+(?:-[A-Z][a-z]+)?) ([A-Z][a-z'\-]+(?:-[A-Z][a-z]+)?)\b", text or ""):
        a, b = mo.group(1), mo.group(2)
        if b.endswith("'s"):
            b = b[:-2]
        if a in NOT_NAME or b in NOT_NAME or not b or b in PLACE_NOUNS or a in PLACE_NOUNS:
            continue
        out.append(a + " " + b)
    return out


# ----------------------------------------------------------------------------------
# events / news
# ----------------------------------------------------------------------------------

class Event:
    def __init__(self):
        self.host = ""
        self.desc = ""
        self.date = None
        self.start = None
        self.end = None
        self.place_text = ""
        self.place = ""      # a known place string if matched
        self.label = "get-together"
        self.teller = ""
        self.keywords = []
        self.invite = False

    def window(self):
        s = self.start
        e = self.end if self.end is not None else (None if s is None else s + 90)
        return s, e

    def minutes(self):
        s, e = self.window()
        if s is None:
            return 60
        return max(15, min(600, e - s))


EVENT_NOUNS = [("slide show", ["slide show", "slideshow", "slides"]), ("quiz", ["quiz"]),
               ("concert", ["concert"]), ("recital", ["recital"]), ("party", ["party"]),
               ("dance", ["dance", "ceilidh"]), ("fete", ["fete", "f\u00eate"]), ("fair", ["a fair", "the fair", "village fair", "craft fair", "funfair", "fair on"]),
               ("sale", ["sale", "jumble"]), ("auction", ["auction"]), ("match", ["match"]),
               ("tournament", ["tournament"]), ("supper", ["supper"]), ("picnic", ["picnic"]),
               ("tea", ["tea party", "cream tea"]), ("meeting", ["meeting"]),
               ("exhibition", ["exhibition", "display"]), ("film night", ["film", "screening"]),
               ("reading", ["poetry reading", "a reading", "book reading"]), ("talk", ["a talk", "the talk", "giving a talk", "lecture"]), ("workshop", ["workshop"]),
               ("tasting", ["tasting"]), ("service", ["service"]), ("festival", ["festival"]),
               ("market", ["market"]), ("bonfire", ["bonfire"]), ("walk", ["guided walk"]),
               ("tour", ["tour"]), ("celebration", ["celebration", "birthday", "anniversary"]),
               ("open evening", ["open evening", "open day"]), ("sing-song", ["sing", "singing", "choir"]),
               ("competition", ["competition", "contest", "bake-off"]), ("show", ["show"]),
               ("gathering", ["gathering", "get-together"])]


def event_label(desc):
    sents = re.split(r"(?<=[.!?;])\s+", desc or "")
    timed = [x for x in sents if find_time_range(x)[0] is not None or
             re.search(r"\b(" + "|".join(WEEKDAYS) + r"|tomorrow|tonight|today|this evening)\b", x)]
    for t in [" ".join(timed), desc or ""]:
        t = t.lower()
        for lab, keys in EVENT_NOUNS:
            for k in keys:
                if re.search(r"\b" + re.escape(k), t):
                    return lab
    return "get-together"


NORM_RX = re.compile(r"\(that is (today|tomorrow|[^,()]*?),\s*(?:(\w+day),?\s+)?(\w+) (\d{1,2})(?:,\s*(\d{1,2}:\d\d)(?:-(\d{1,2}:\d\d))?)?(?:,\s*at ([^()]*?)(?:\s*\(([^()]*)\))?)?\)")


def clean_desc(raw, names):
    d = raw or ""
    for _ in range(3):
        d0 = d
        d = re.sub(r"^\s*(?:Have you heard\?|Did you know\?|I heard that|I heard|Guess what\?)\s*", "", d)
        d = re.sub(r"^\s*[A-Z][\w'\- ]+? (?:told|heard from|chatted with) [A-Z][\w'\- ]+?(?:, who said)?: ", "", d)
        d = re.sub(r"^\s*[A-Z][\w'\- ]+? has news (?:on their mind|to pass on)(?:, an event they are hosting)?: ", "", d)
        if d == d0:
            break
    cut = len(d)
    for pat in ['"', " / ", " (that is", "\n"]:
        i = d.find(pat)
        if i >= 0:
            cut = min(cut, i)
    d = d[:cut].strip().rstrip(".;,: ")
    return d


def event_keywords(desc, place_text):
    ws = content_words(desc)
    seen = []
    for w in ws:
        if w not in seen:
            seen.append(w)
    return seen


def build_event(raw_body, text_all, self_name, ref_date, year, places, host_flag=False, teller=""):
    """Event from a news body (may be garbled) + the whole prompt for cleaner copies."""
    ev = Event()
    ev.teller = teller
    body = raw_body or ""
    mo = NORM_RX.search(body)
    if mo:
        rel, wd, mon, day, s, e, plc, area = mo.groups()
        if mon in MONTHS:
            try:
                ev.date = _dt.date(year, MONTHS.index(mon) + 1, int(day))
            except ValueError:
                ev.date = None
        if s:
            ev.start = parse_hm(s)
        if e:
            ev.end = parse_hm(e)
        if plc:
            ev.place_text = plc.strip() + ((" (" + area + ")") if area else "")
    desc = clean_desc(body, [])
    # a cleaner, longer copy of the same news somewhere in the prompt ("X told Y: ...")
    kw = set(content_words(desc))
    best = desc
    for m2 in re.finditer(r"\btold [A-Z][a-z]+ [A-Z][\w'\-]+: ([^\"\n]+)", text_all or ""):
        cand = clean_desc(m2.group(1), [])
        if len(cand) > 700 or re.search(r"Schedule:|plan for|\d\d:\d\d [a-z]", cand):
            continue
        ck = set(content_words(cand))
        if len(kw & ck) >= max(2, min(4, len(kw) // 2)) and len(cand) > len(best) and '"' not in cand:
            best = cand
    ev.desc = best
    if ev.start is None:
        ev.start, ev.end = find_time_range(best)
        if ev.start is None:
            ev.start, ev.end = find_time_range(body)
    if ev.date is None:
        ev.date = find_date(best, ref_date, year) or find_date(body[:400], ref_date, year)
    ev.label = event_label(best)
    # host
    if host_flag:
        ev.host = self_name
    else:
        placewords = set()
        for p_ in places or []:
            for part in place_parts(p_):
                if part:
                    placewords.add(part.lower())
        nm = [n for n in names_in(best) if n.lower() not in placewords and
              not any(n.lower() in pw or pw in n.lower() for pw in placewords if len(pw) > 3)]
        kp = known_people(text_all)
        if kp:
            nm = [n for n in nm if n in kp]
        hostcands = []
        mverb = re.search(r"([A-Z][a-z]+ [A-Z][\w'\-]+?)(?:'s| (?:found|is hosting|is holding|will host|is putting on|is showing|has organised|is organising|is running|will show|will hold|invites))\b", best)
        if mverb and mverb.group(1) in nm:
            hostcands.append(mverb.group(1))
        for n in nm:
            if n == self_name or n in hostcands:
                continue
            if re.search(re.escape(n) + r" (?:told|heard from|has news|chatted)|(?:told|heard from|calling on|with) " + re.escape(n), best):
                continue
            hostcands.append(n)
        mh = re.search(r"([A-Z][a-z]+ [A-Z][\w'\-]+) has news (?:on their mind|to pass on), an event they are hosting", body) \
            or re.search(r"([A-Z][a-z]+ [A-Z][\w'\-]+) is hosting\b", best) \
            or re.search(r"([A-Z][a-z]+ [A-Z][\w'\-]+)'s (?:own )?" + re.escape(ev.label), best)
        if mh:
            ev.host = mh.group(1)
        elif hostcands:
            ev.host = hostcands[0]
        elif self_name and self_name in nm:
            ev.host = self_name
        else:
            ev.host = ""
            for mg in re.finditer(r"([A-Z][a-z]+ [A-Z][\w'\-]+) (?:has news (?:on their mind|to pass on), an event they are hosting: |is hosting )([^\n]{0,300})", text_all or ""):
                if len(set(content_words(mg.group(2))) & set(content_words(best))) >= 2:
                    ev.host = mg.group(1)
                    break
    # place
    ev.place = match_place(ev.place_text, places) if ev.place_text else ""
    if not ev.place:
        ev.place = match_place(best, places) or match_place(body[:600], places)
    if not ev.place_text:
        mq = re.search(r"at ([A-Z][\w'\- ]*?) \(([a-z][\w' ]*)\)", body)
        if ev.place:
            ev.place_text = place_parts(ev.place)[1]
        elif mq:
            ev.place_text = mq.group(1) + " (" + mq.group(2) + ")"
        else:
            mp = re.search(r"\b(?:at|in) the ([A-Z][\w\-]+(?: [A-Z][\w\-]+)*)", best) or \
                re.search(r"\bthe ([A-Z][\w\-]+(?: [A-Z][\w\-]+)*)(?:'s)?\b", best)
            if mp:
                ev.place_text = mp.group(1)
    ev.keywords = event_keywords(best, ev.place_text)
    return ev


_KP_CACHE = {}


def known_people(text):
    """Names the prompt uses for people (speakers, profiles, subjects of doings)."""
    key = text or ""
    if key in _KP_CACHE:
        return _KP_CACHE[key]
    t = text or ""
    out = set()
    pats = [r"(?m)^Name: ([A-Z][a-z]+ [A-Z][\w'\-]+)", r"inner mind of ([A-Z][a-z]+ [A-Z][\w'\-]+)",
            r"\b([A-Z][a-z]+ [A-Z][\w'\-]+) (?:is|was) [a-z]+ing\b", r"\b([A-Z][a-z]+ [A-Z][\w'\-]+): \"",
            r"(?:with|told|heard from|calling on|talking with) ([A-Z][a-z]+ [A-Z][\w'\-]+)",
            r"\b([A-Z][a-z]+ [A-Z][\w'\-]+) (?:told|heard from|chatted with|has news|has no news|found)\b"]
    for pat in pats:
        for mo in re.finditer(pat, t):
            n = mo.group(1)
            if n.endswith("'s"):
                n = n[:-2]
            a, b = n.split(" ", 1)
            if a not in NOT_NAME and b not in NOT_NAME:
                out.add(n)
    if len(_KP_CACHE) > 64:
        _KP_CACHE.clear()
    _KP_CACHE[key] = out
    return out


def valid_occurrence(text, pos):
    ls = text.rfind("\n", 0, pos) + 1
    prefix = text[ls:pos]
    if prefix.count('"') % 2 == 1:
        return False
    p = prefix.rstrip()
    return prefix.strip() in ("", "-") or p.endswith(".") or p.endswith(")") and p.endswith(").")


def find_news(text, name, anchor=0):
    """(status, body, host_flag, teller) for a named person; status in None/'none'/'news'."""
    if not name:
        return None, "", False, ""
    rx = re.compile(re.escape(name) + r" has (no news[^.\n]*|news (?:on their mind|to pass on))((?:, an event they are hosting)?)((?: and has not told [^:\n]*? yet)?)(: )?")
    found = [m for m in rx.finditer(text or "") if valid_occurrence(text, m.start())]
    if not found:
        return None, "", False, ""
    after = [m for m in found if m.start() >= anchor]
    m = (after or found)[0]
    if m.group(1).startswith("no news"):
        return "none", "", False, ""
    rest = text[m.end():]
    # body: up to the end of the normalised parenthetical, else end of line
    nl = rest.find("\n")
    line = rest if nl < 0 else rest[:nl]
    mo = NORM_RX.search(line)
    body = line[: mo.end()] if mo else line
    host_flag = bool(m.group(2))
    teller = ""
    mt = re.match(r"\s*([A-Z][a-z]+ [A-Z][\w'\-]+) told ", body)
    if mt:
        teller = mt.group(1)
    mt = re.match(r"\s*[A-Z][a-z]+ [A-Z][\w'\-]+ heard from ([A-Z][a-z]+ [A-Z][\w'\-]+)", body)
    if mt:
        teller = mt.group(1)
    return "news", body, host_flag, teller


def mentions_event(text, ev):
    if not ev or not text:
        return False
    t = text.lower()
    hits = sum(1 for k in ev.keywords if re.search(r"\b" + re.escape(k) + r"\b", t))
    if hits >= 2:
        return True
    if ev.label != "get-together" and ev.label in t and hits >= 1:
        return True
    bld = place_parts(ev.place)[1].lower() if ev.place else (ev.place_text or "").lower()
    if bld and bld in t and find_time_range(text)[0] is not None and ev.start is not None \
            and find_time_range(text)[0] == ev.start:
        return True
    return False


def event_from_line(text, speaker, self_name, ref, year, places):
    """An event or invitation contained in one spoken line, or None."""
    s, e = find_time_range(text)
    d = find_date(text, ref, year)
    inv = has_any(text, ["would you like", "fancy", "join me", "join us", "come to", "come round",
                         "come along", "come over", "shall we", "let's", "you're welcome to",
                         "do come", "you should come", "anyone can come", "anybody may come",
                         "anyone's welcome", "all welcome", "have you heard", "i heard"])
    first_future = bool(re.search(r"\b(I'll|I will|I'm going to|I am going to|we'll|we will|I'm holding|I'm showing|I'm hosting|I'm putting on)\b", text))
    dated = d is not None or bool(re.search(r"\b(tonight|this (morning|afternoon|evening)|tomorrow)\b", text, re.I))
    if s is None or not (inv or (first_future and dated) or (dated and event_label(text) != "get-together")):
        return None
    ev = Event()
    ev.desc = clean_desc(re.sub(r"^(?:Have you heard\?|I heard that|I heard)\s*", "", text), [])
    ev.start, ev.end = s, e
    ev.date = d or ref
    ev.place = match_place(text, places)
    ev.place_text = place_parts(ev.place)[1] if ev.place else ""
    if not ev.place_text:
        mp = re.search(r"\b(?:at|in) the ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*)", text)
        if mp:
            ev.place_text = mp.group(1)
    ev.label = event_label(text)
    nm = [n for n in names_in(text) if n not in (speaker, self_name)]
    first_person = bool(re.search(r"\b(I'll|I will|I'm|I am|my|we're|we'll|join me|join us|come round|come over)\b", text))
    direct = re.search(r"\b(?:fancy|would you like(?: to)?(?: come)?(?: round| over)?(?: for)?|join me for|come (?:round |over )?for|how about|shall we (?:have|go for)?)\s+(.*?)(?=\s+(?:at|on|tomorrow|tonight|this|in the|with|after)\b|[?.!,]|$)", text, re.I)
    if direct and direct.group(1).strip():
        first_person = True
        ev.invite = True
        if ev.label == "get-together":
            ev.label = clip(direct.group(1).strip(), 40).rstrip(".")
    if first_person:
        ev.host = speaker
    elif nm:
        ev.host = nm[0]
    else:
        m1 = re.search(r"\b([A-Z][a-z]+)(?:'s| is| will)\b", text)
        ev.host = ""
        if m1 and m1.group(1) not in NOT_NAME:
            ev.host = m1.group(1)
    ev.teller = speaker
    ev.keywords = event_keywords(ev.desc, ev.place_text)
    return ev


# ----------------------------------------------------------------------------------
# speaking about an event
# ----------------------------------------------------------------------------------

TIME_STRIP = [
    r"\s*\bon (?:" + "|".join(WEEKDAYS) + r")\b(?:\s*\([^)]*\))?",
    r"\s*\b(?:" + "|".join(WEEKDAYS) + r")\b(?:\s*\([^)]*\))?",
    r"\s*\((?:on )?(?:" + "|".join(MONTHS) + r") \d{1,2}\)",
    r"\s*\b(?:on )?(?:" + "|".join(MONTHS) + r") \d{1,2}(?:st|nd|rd|th)?\b",
    r"\s*\b(?:from|between)\s+" + TIME_TOK + r"\s*(?:-|to|till|until|and)\s*" + TIME_TOK,
    r"\s*\b\d{1,2}[:.]\d\d\s*(?:-|to|till|until)\s*\d{1,2}[:.]\d\d",
    r"\s*\bat\s+(?:\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm)?|half past \w+|half \w+|quarter (?:past|to) \w+|\w+ o'clock|noon|midnight)\b",
    r"\s*\b(?:this|tomorrow|in the) (?:morning|afternoon|evening|night)\b",
    r"\s*\b(?:tonight|tomorrow|today|after work)\b",
]


def strip_times(s):
    out = s
    for rx in TIME_STRIP:
        out = re.sub(rx, "", out, flags=re.I)
    out = re.sub(r"\s+,", ",", out)
    out = re.sub(r"\s{2,}", " ", out)
    out = re.sub(r"\b(and|or|from|at|on|the)\s*$", "", out.strip()).strip()
    return out.strip(" ,;")


def to_first_person(s, host):
    if not host:
        return s
    f = first_name(host)
    s = re.sub(re.escape(host) + r"'s\b", "my", s)
    s = re.sub(r"\b" + re.escape(host) + r"\b", "I", s)
    s = re.sub(r"\b" + re.escape(f) + r"'s\b", "my", s)
    reps = [(r"\bShe'll\b|\bHe'll\b|\bThey'll\b", "I'll"), (r"\bshe'll\b|\bhe'll\b|\bthey'll\b", "I'll"),
            (r"\b[Ss]he is\b|\b[Hh]e is\b", "I am"), (r"\b[Ss]he's\b|\b[Hh]e's\b", "I'm"),
            (r"\b[Ss]he would\b|\b[Hh]e would\b", "I would"), (r"\b[Ss]he will\b|\b[Hh]e will\b", "I will"),
            (r"\b[Ss]he\b|\b[Hh]e\b", "I"), (r"\bherself\b|\bhimself\b", "myself"),
            (r"\bher own\b|\bhis own\b", "my own"), (r"\bhis\b", "my")]
    for a, b in reps:
        s = re.sub(a, b, s)
    s = re.sub(r"\bI (finds|has|is|was|wants|plans|runs|keeps|holds|hosts)\b",
               lambda m: "I " + {"finds": "find", "has": "have", "is": "am", "was": "was", "wants": "want",
                                 "plans": "plan", "runs": "run", "keeps": "keep", "holds": "hold",
                                 "hosts": "host"}[m.group(1)], s)
    return s


def split_sentences(s):
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z])", s or "")
    return [p.strip() for p in parts if p.strip()]


def news_utterance(ev, speaker, is_host, ref, rng, maxlen=280, opener=True):
    style = rng.choices(["brit", "past", "24", "ampm"], [0.45, 0.25, 0.2, 0.1])[0]
    when = spoken_day(ev.date, ref, ev.start, rng)
    trange = say_range(ev.start, ev.end, style) if ev.start is not None else ""
    place = spoken_place(ev.place or ev.place_text)
    sents = split_sentences(ev.desc)
    timed = [x for x in sents if find_time_range(x)[0] is not None or re.search("|".join(WEEKDAYS) + r"|tomorrow|tonight|today", x)]
    back = [x for x in sents if x not in timed]
    core = timed[0] if timed else (sents[-1] if sents else "")
    core = core.split(";")[0]
    core = strip_times(core)
    pron = re.match(r"^(She|He|They)('ll| will|'s| is)\b", core)
    if pron:
        who = ev.host if ev.host else "They"
        verb = " will" if pron.group(2) in ("'ll", " will") else " is"
        if who == "They":
            verb = "'ll" if verb == " will" else "'re"
        core_named = who + verb + core[pron.end():]
    else:
        core_named = core
    if len(core) < 12:
        core = core_named = ("%s is holding a %s" % (ev.host, ev.label)) if ev.host else ("there's a %s on" % ev.label)
    clause = ", ".join(x for x in [when, trange] if x)
    if place and place.split()[-1].lower() not in core.lower():
        clause = (clause + ", at " + place) if clause else "at " + place
    tail = ""
    if has_any(ev.desc, ["anybody may come", "anyone may come", "everyone welcome", "all welcome",
                         "anyone can come", "anybody can come", "open to all", "everyone is welcome"]) and rng.random() < 0.5:
        tail = " Anyone's welcome." if is_host else " Anyone can go."

    def compose(with_back):
        bits = []
        if with_back and back:
            bits.append(back[0].rstrip(".") + ".")
            c = core
        else:
            c = core_named
        bits.append(c.rstrip(".") + ((" " + clause) if clause else "") + ".")
        text = " ".join(bits) + tail
        if is_host:
            text = to_first_person(text, ev.host)
            text = re.sub(r"\bI will\b", "I'll", text)
        text = up_first(text)
        if opener and not is_host:
            text = rng.choice(["Have you heard? ", "Did you know? ", "Have you heard? ", ""]) + text
        return re.sub(r"\s{2,}", " ", text)

    text = compose(bool(back) and len(back[0]) < 170)
    if len(text) > maxlen:
        text = compose(False)
    return clip(text, maxlen)


# ----------------------------------------------------------------------------------
# people in a conversation
# ----------------------------------------------------------------------------------

class Person:
    def __init__(self, name):
        self.name = name
        self.profile = None
        self.news = None           # Event the person holds as news
        self.is_host = False
        self.plan = []             # plan lines
        self.memtext = ""          # memories text
        self.reason_tell = False
        self.activity = ""
        self.places = []

    @property
    def traits(self):
        return self.profile.traits if self.profile else []


def commitment_at(person, ev, ref):
    """Return a plan activity that is a real commitment overlapping ev, '' if none,
    or 'SAME' when the plan already holds this event."""
    if ev is None or ev.start is None:
        return ""
    s, e = ev.window()
    for pl in person.plan:
        if pl["start"] is None or pl["end"] is None:
            continue
        pd = parse_date_words(pl["on"], ev.date.year if ev.date else 2026) if pl.get("on") else ref
        if ev.date and pd and pd != ev.date:
            continue
        ps, pe = pl["start"], pl["end"]
        if pe <= ps:
            pe += 1440
        if ps < e and s < pe:
            a = pl["activity"].lower()
            same = (ev.place and pl["place"] == ev.place) or mentions_event(pl["activity"], ev)
            if a.startswith(("going to", "hosting", "attending")) and same:
                return "SAME"
            if a.startswith(("going to", "hosting", "attending", "calling on", "meeting", "visiting",
                             "appointment", "seeing ")) and not a.startswith("seeing people"):
                return pl["activity"]
            if any(n in pl["activity"] for n in names_in(pl["activity"])):
                return pl["activity"]
    return ""


def prior_stance(person, ev):
    """What the person said earlier about the event, from memories: 'yes'/'no'/''."""
    if ev is None or not person.memtext:
        return ""
    name = person.name
    stance = ""
    for ln in person.memtext.split("\n"):
        if not mentions_event(ln, ev) and name + " cannot go" not in ln:
            # a line about the event may carry the stance in a later quoted line
            if not ("conversation with" in ln and (ev.host and ev.host in ln)):
                continue
        for mo in re.finditer(re.escape(name) + r': "([^"]*)"', ln):
            seg = mo.group(1)
            if has_any(seg, DECLINE_PH):
                stance = "no"
            elif has_any(seg, ACCEPT_PH):
                stance = "yes"
        if re.search(re.escape(name) + r" cannot go|" + re.escape(name) + r" can't go", ln):
            stance = "no"
        if re.search(re.escape(name) + r" (?:means|plans|intends) to go", ln):
            stance = "yes"
    return stance


def knows_event(person, ev):
    if ev is None:
        return False
    if person.news is not None and (person.news is ev or mentions_event(person.news.desc, ev)):
        return True
    return mentions_event(person.memtext, ev)


class Line:
    def __init__(self, speaker, text):
        self.speaker = speaker
        self.text = text


def classify_line(text):
    t = (text or "").lower()
    return {
        "goodbye": has_any(t, GOODBYE_PH),
        "accept": has_any(t, ACCEPT_PH),
        "decline": has_any(t, DECLINE_PH),
        "question": "?" in t,
    }


def segments(speaker, text):
    """Split a spoken line that quotes others ('... / Name: "...') into (speaker, text) parts."""
    out = []
    parts = re.split(r'"?\s*/\s*(?=[A-Z][a-z]+ [A-Z][\w\'\-]+: ")', text or "")
    for k, part in enumerate(parts):
        mo = re.match(r'^([A-Z][a-z]+ [A-Z][\w\'\-]+): "(.*)$', part)
        if k > 0 and mo:
            out.append((mo.group(1), mo.group(2).strip('"')))
        else:
            out.append((speaker, part.strip('"')))
    return out


def stance_of(text):
    if has_any(text, DECLINE_PH):
        return "no"
    if has_any(text, ACCEPT_PH):
        return "yes"
    return ""


def greeting(me, others, rng, now_min):
    who = first_name(others[0].name) if len(others) == 1 else "everyone"
    if now_min is not None and now_min < 12 * 60:
        hi = rng.choice(["Morning", "Hello", "Morning"])
    elif now_min is not None and now_min >= 18 * 60:
        hi = rng.choice(["Evening", "Hello"])
    else:
        hi = rng.choice(["Hello", "Afternoon", "Hello"])
    return "%s, %s." % (hi, who)


def small_talk(me, others, rng, history=None):
    act = (me.activity or "").split(" (")[0].strip()
    asked = any(l.speaker == me.name and "?" in l.text for l in (history or []))
    if asked:
        opts = ["Quiet day today.", "Weather's holding, at least."]
    else:
        opts = ["How are you keeping?", "All well with you?", "Busy day?", "Keeping well?"]
    if act and not act.startswith(("chatting", "talking")):
        opts.append("Just %s." % act)
    return rng.choice(opts)


def answer_small(me, rng):
    act = (me.activity or "").split(" (")[0].strip()
    if act:
        return rng.choice(["Not bad, thanks. Just %s." % act, "Fine, thanks. %s, as usual." % up_first(act),
                           "Well enough, thanks."])
    return rng.choice(["Not bad, thanks.", "Fine, thanks.", "Well enough, thanks."])


def goodbye_line(me, others, rng, going_event=None, ref=None):
    who = first_name(others[0].name) if len(others) == 1 else ""
    base = rng.choice(["I'd better get on", "Right, I must get on", "I'll let you get on", "Best be off"])
    tail = ""
    if going_event is not None:
        tail = " See you " + (spoken_day(going_event.date, ref, going_event.start, rng) or "there") + "."
        tail = tail.replace("See you this evening", "See you this evening").replace("See you tonight", "See you tonight")
    else:
        tail = " " + rng.choice(["See you.", "Take care.", "Bye for now."])
    return base + ((", " + who) if who else "") + "." + tail


def respond_to_event(me, ev, from_host, ref, rng, speaker_name):
    """Returns (text, stance) with stance in yes/no/maybe/already."""
    style = rng.choices(["brit", "past", "24", "ampm"], [0.45, 0.25, 0.2, 0.1])[0]
    clash = commitment_at(me, ev, ref)
    prior = prior_stance(me, ev)
    when = spoken_day(ev.date, ref, ev.start, rng) if ev.date else ""
    t_start = say_time(ev.start, style) if ev.start is not None else ""
    if clash == "SAME":
        return rng.choice(["I know, I'm already going. See you there.", "Yes, I'd heard. I'll be there.",
                           "I know about it, I'm going."]), "already"
    if me.is_host and me.news is not None and mentions_event(me.news.desc, ev):
        return rng.choice(["That's mine, actually. Do come.", "Yes, that's my do. I hope you'll come."]), "host"
    heard = knows_event(me, ev)
    pre = rng.choice(["Yes, I'd heard. ", "I heard, yes. "]) if heard else ""
    if prior == "no":
        st = "no" if rng.random() < 0.80 else "maybe"
    elif from_host:
        r = rng.random()
        if clash:
            st = "no" if r < 0.85 else "yes"
        else:
            st = "yes" if r < 0.55 else ("maybe" if r < 0.90 else "no")
    else:
        r = rng.random()
        if clash:
            st = "yes" if r < 0.05 else ("no" if r < 0.65 else "maybe")
        else:
            st = "yes" if r < 0.30 else ("maybe" if r < 0.90 else "no")
    if st == "yes":
        if from_host:
            txt = rng.choice(["That sounds good. I'll come.", "I'll be there.",
                              "Count me in. I'll come along %s." % (("at " + t_start) if t_start else "").strip(),
                              "Thanks, I'll come %s." % when])
        else:
            txt = rng.choice(["That sounds good. I'll go along.", "That sounds worth seeing. I'll go.",
                              "Thanks for telling me. I'll go %s." % when])
    elif st == "no":
        if clash:
            txt = "I can't make it, I'm %s then." % low_first(clash.split(":")[0].strip())
        else:
            txt = rng.choice(["I can't make it, I'm afraid.", "Not for me, I think. Thanks, though.",
                              "I won't be able to, I'm afraid."])
    else:
        txt = rng.choice(["Thanks, good to know.", "I'll see how I feel.", "Thanks. I might look in.",
                          "Good to know, thanks."])
    txt = re.sub(r"\s+\.", ".", txt).replace("  ", " ").strip()
    return pre + txt, st


def same_event(a, b):
    if a is None or b is None:
        return False
    if a is b:
        return True
    if a.date and b.date and a.date != b.date:
        return False
    if a.start is not None and b.start is not None and a.start != b.start:
        return False
    return mentions_event(a.desc, b) or mentions_event(b.desc, a) or (
        a.start is not None and a.start == b.start and a.place and a.place == b.place)


def next_line(me, others, history, ref, now_min, rng, ctx):
    """Returns (text, end, addressed_to_name_or_everyone, info)."""
    info = {"told": False, "stance": None, "event": None}
    my_lines = [l for l in history if l.speaker == me.name]
    last_mine = max([i for i, l in enumerate(history) if l.speaker == me.name], default=-1)
    after = [l for l in history[last_mine + 1:] if l.speaker != me.name]
    all_text = " ".join(l.text for l in history)
    other_names = [o.name for o in others]
    addressee = others[0].name if len(others) == 1 else "everyone"
    if after and len(others) > 1 and after[-1].speaker in other_names:
        addressee = after[-1].speaker
    my_event = me.news
    pending = my_event is not None and not mentions_event(all_text, my_event)
    # nobody to tell: the only listeners hold the event themselves
    if pending and others and all(o.name == my_event.host for o in others):
        pending = False
    if ctx.get("must_leave"):
        return goodbye_line(me, others, rng, None, ref), True, addressee, info
    if ctx.get("already_said") and rng.random() < 0.70:
        return goodbye_line(me, others, rng, None, ref), True, addressee, info
    if len(my_lines) >= 2:
        return goodbye_line(me, others, rng, None, ref), True, addressee, info
    p_tell = 0.0
    if pending:
        p_tell = 0.90 if me.is_host else (0.85 if me.reason_tell else 0.65)
    parts = []
    end = False
    responded = False
    ev_in = None
    ev_speaker = None
    ev_text = ""
    for l in after:
        evl = None
        if my_event is not None and mentions_event(l.text, my_event):
            evl = my_event
        else:
            evl = event_from_line(l.text, l.speaker, me.name, ref, ctx.get("year", 2026), me.places)
            if evl is not None:
                for cand in ctx.get("known_events", []):
                    if cand is not None and (mentions_event(l.text, cand) or same_event(evl, cand)):
                        evl = cand
                        break
        if evl is not None:
            ev_in, ev_speaker, ev_text = evl, l.speaker, l.text
    if ev_in is not None:
        mine = me.is_host and my_event is not None and same_event(ev_in, my_event)
        if mine:
            parts.append(rng.choice(["That's mine, yes. I hope you'll come.", "Yes, that's my do. Do come.",
                                     "That's me, yes. You'd be welcome."]))
            info["stance"], info["event"] = "host", my_event
            pending = False
        else:
            first_p = bool(re.search(r"\b(I'll|I will|I'm|my|join me|join us|we'll)\b", ev_text))
            from_host = (ev_in.host == ev_speaker) or (first_p and ev_in.host in ("", ev_speaker))
            txt, st = respond_to_event(me, ev_in, from_host, ref, rng, ev_speaker)
            parts.append(txt)
            info["stance"], info["event"] = st, ev_in
            if my_event is not None and same_event(ev_in, my_event):
                pending = False
        responded = True
        if len(others) > 1:
            addressee = ev_speaker
    elif after:
        lastc = classify_line(after[-1].text)
        if lastc["goodbye"]:
            gone = after[-1].speaker
            bye = rng.choice(["Bye for now.", "See you.", "Take care, %s." % first_name(gone), "Right you are. See you."])
            if len(others) <= 1 or gone not in other_names:
                if len(others) <= 1:
                    return bye, True, addressee, info
            parts.append(bye)
            responded = True
        elif my_event is not None and not pending and (lastc["accept"] or lastc["decline"]):
            if lastc["accept"] and (me.is_host or commitment_at(me, my_event, ref) == "SAME"):
                parts.append(rng.choice(["Good. See you there.", "Good, see you then.", "Grand, see you there."]))
            elif lastc["accept"]:
                parts.append(rng.choice(["Good. You'll enjoy it.", "Grand.", "Good, I thought you might like it."]))
            else:
                parts.append(rng.choice(["Never mind. Another time.", "Not to worry.", "That's a shame. Another time."]))
            responded = True
        elif lastc["question"]:
            parts.append(answer_small(me, rng))
            responded = True
        elif len(history) <= 1:
            parts.append(greeting(me, others, rng, now_min))
            responded = True
    if pending:
        if rng.random() < p_tell:
            maxlen = ctx.get("maxlen", 280) - (len(" ".join(parts)) + 1)
            if not history and not parts and rng.random() < 0.5:
                parts.append(greeting(me, others, rng, now_min))
                maxlen -= len(parts[-1]) + 1
            parts.append(news_utterance(my_event, me.name, me.is_host, ref, rng, maxlen=max(120, maxlen)))
            info["told"] = True
            info["event"] = my_event
            if len(others) > 1:
                addressee = "everyone"
        elif not parts:
            if not history:
                parts.append(greeting(me, others, rng, now_min) + " " + small_talk(me, others, rng))
            else:
                parts.append(small_talk(me, others, rng, history))
        return clip(" ".join(p.strip() for p in parts if p.strip()), ctx.get("maxlen", 280)), False, addressee, info
    if not history:
        parts.append(greeting(me, others, rng, now_min) + " " + small_talk(me, others, rng))
        return clip(" ".join(parts), ctx.get("maxlen", 280)), False, addressee, info
    # nothing left to say: takes leave (declared 0.60), else one short small-talk line
    if rng.random() < 0.60:
        going = info["event"] if info.get("stance") in ("yes", "already") else None
        if parts:
            parts.append(rng.choice(["Anyway, I'd better get on.", "Right, I must get on.", "I'll let you get on."]))
            text = " ".join(parts)
        else:
            text = goodbye_line(me, others, rng, going, ref)
        return clip(text, ctx.get("maxlen", 280)), True, addressee, info
    if not parts or not responded:
        parts.append(small_talk(me, others, rng, history))
    return clip(" ".join(p.strip() for p in parts if p.strip()), ctx.get("maxlen", 280)), False, addressee, info


# ----------------------------------------------------------------------------------
# memos
# ----------------------------------------------------------------------------------

def date_options(text):
    opts = {}
    mo = re.search(r"one of: ((?:\d{4}-\d\d-\d\d \([^)]*\),?\s*)+)", text or "")
    if mo:
        for d, lab in re.findall(r"(\d{4}-\d\d-\d\d) \(([^)]*)\)", mo.group(1)):
            opts[d] = lab
    return opts


def memo_for(person, others_names, lines, ev_candidates, ref, rng, places, date_opts, role_host=False):
    """Build the memo dict for one person from the spoken lines."""
    alltxt = " ".join(l.text for l in lines)
    ev = None
    for cand in ev_candidates:
        if cand is not None and mentions_event(alltxt, cand):
            ev = cand
            break
    if ev is None:
        for l in lines:
            e2 = event_from_line(l.text, l.speaker, person.name, ref, ref.year if ref else 2026, places)
            if e2 is not None:
                ev = e2
                break
    who = " and ".join(others_names) if len(others_names) <= 2 else ", ".join(others_names[:-1]) + " and " + others_names[-1]
    stance = ""
    teller = ""
    if ev is not None:
        told_idx = None
        for i, l in enumerate(lines):
            if mentions_event(l.text, ev) or (ev.start is not None and find_time_range(l.text)[0] == ev.start):
                told_idx = i
                teller = l.speaker
                break
        if told_idx is not None:
            for k, l in enumerate(lines[told_idx:]):
                for spk, seg in segments(l.speaker, l.text):
                    if spk != person.name:
                        continue
                    st2 = stance_of(seg)
                    if st2:
                        stance = st2
    host = (ev is not None and ev.host == person.name) or (role_host and ev is not None)
    imp = 2
    plan = {"plan_activity": "", "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    if ev is None:
        topic = "small talk"
        if lines:
            summ = "%s had a short chat with %s; nothing in particular was settled." % (person.name, who)
        else:
            summ = "%s and %s exchanged a few words." % (person.name, who)
    else:
        when = ""
        if ev.date:
            when = date_label(ev.date)
        if ev.start is not None:
            when += (", " if when else "") + hm(ev.start) + ("-" + hm(ev.end) if ev.end is not None else "")
        place = ev.place or ev.place_text or "a place not named"
        what = ("%s's %s" % (ev.host, ev.label)) if ev.host and ev.host != person.name else ("the " + ev.label)
        if getattr(ev, "invite", False):
            what = ("%s with %s" % (ev.label, ev.host)) if ev.host and ev.host != person.name else ev.label
        if host:
            if teller and teller != person.name:
                summ = "%s mentioned the %s %s is hosting (%s, at %s)." % (teller, ev.label, person.name, when, place)
            else:
                summ = "%s told %s about the %s %s is hosting (%s, at %s)." % (person.name, who, ev.label, person.name, when, place)
            acc, dec = [], []
            for l in lines:
                for spk, seg in segments(l.speaker, l.text):
                    if spk != person.name and spk in others_names:
                        if stance_of(seg) == "yes":
                            acc.append(spk)
                        elif stance_of(seg) == "no":
                            dec.append(spk)
            if acc:
                summ = summ[:-1] + "; %s said they would come." % " and ".join(sorted(set(acc)))
            elif dec:
                summ = summ[:-1] + "; %s can't come." % " and ".join(sorted(set(dec)))
            imp = rng.choice([4, 5])
        else:
            if teller == person.name:
                summ = "%s told %s about %s (%s, at %s)." % (person.name, who, what, when, place)
            else:
                summ = "%s told %s about %s (%s, at %s)." % (teller or who, person.name, what, when, place)
            if stance == "yes":
                summ = summ[:-1] + "; %s said they would go." % person.name
                imp = rng.choice([5, 6])
            elif stance == "no":
                summ = summ[:-1] + "; %s can't go." % person.name
                imp = rng.choice([3, 4])
            else:
                imp = rng.choice([4, 5])
        p = 0.0
        if host:
            p = 0.03
        elif stance == "yes":
            p = 0.30 if commitment_at(person, ev, ref) == "SAME" else 0.92
        elif stance == "":
            p = 0.04
        if ev.start is not None and ev.date is not None and rng.random() < p:
            if getattr(ev, "invite", False):
                plan["plan_activity"] = clip(what, 120)
            else:
                plan["plan_activity"] = clip(("going to %s" % what) if not host else ("hosting the %s" % ev.label), 120)
            plan["plan_date"] = ev.date.isoformat()
            if date_opts and plan["plan_date"] not in date_opts:
                plan["plan_date"] = ""
            plan["plan_start"] = hm(ev.start)
            plan["plan_minutes"] = ev.minutes()
            if ev.place and (not places or ev.place in places):
                plan["plan_place"] = ev.place
            else:
                mp = match_place(ev.place_text, places) if places else ""
                if mp:
                    plan["plan_place"] = mp
                else:
                    plan["plan_place"] = "" if rng.random() < 0.80 else (ev.place or ev.place_text or "")
            if not plan["plan_date"]:
                plan = {"plan_activity": "", "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    if rng.random() < 0.25:
        imp += rng.choice([-1, 1])
    imp = max(1, min(10, imp))
    memo = {"summary": clip(summ, 400), "importance": imp}
    memo.update(plan)
    return memo


# ----------------------------------------------------------------------------------
# kind handlers
# ----------------------------------------------------------------------------------

class Req:
    def __init__(self, body, rng):
        self.body = body
        self.rng = rng
        msgs = body.get("messages") or []
        self.system = "\n".join(str(m.get("content", "")) for m in msgs if m.get("role") == "system")
        users = [m for m in msgs if m.get("role") == "user"]
        self.user = str(users[-1].get("content", "")) if users else "\n".join(str(m.get("content", "")) for m in msgs)
        self.text = self.system + "\n" + self.user
        rf = body.get("response_format") or {}
        sch = None
        if isinstance(rf, dict):
            js = rf.get("json_schema") or {}
            sch = js.get("schema") if isinstance(js, dict) else None
            if sch is None and isinstance(rf.get("schema"), dict):
                sch = rf.get("schema")
        self.schema = sch if isinstance(sch, dict) else None
        self.rf_type = rf.get("type") if isinstance(rf, dict) else None
        self.year = parse_year(self.user)
        self.now_date, self.now_min = parse_now(self.user, self.year)
        self.profiles = parse_profiles(self.user)
        mo = re.search(r"inner mind of ([^,\n]+?)(?:,|\n|$)", self.system)
        self.self_name = mo.group(1).strip() if mo else (self.profiles[0].name if self.profiles else "")
        self.places = find_places(self.user)

    def prof(self, name=None):
        name = name or self.self_name
        for p in self.profiles:
            if p.name == name:
                return p
        return self.profiles[0] if self.profiles else Profile()


def resolve(schema, root):
    if isinstance(schema, dict) and "$ref" in schema:
        ref = schema["$ref"]
        if ref.startswith("#/"):
            node = root
            for part in ref[2:].split("/"):
                node = node.get(part, {}) if isinstance(node, dict) else {}
            return resolve(node, root)
    if isinstance(schema, dict) and "anyOf" in schema:
        for alt in schema["anyOf"]:
            r = resolve(alt, root)
            if r.get("type") != "null":
                return r
    return schema if isinstance(schema, dict) else {}


def prop_schema(req, *path):
    node = req.schema or {}
    for p in path:
        node = resolve(node, req.schema or {})
        if p == "[]":
            node = node.get("items", {})
        else:
            node = (node.get("properties") or {}).get(p, {})
    return resolve(node, req.schema or {})


def enum_of(req, *path):
    return prop_schema(req, *path).get("enum")


def minimal_from_schema(schema, root, depth=0):
    s = resolve(schema, root)
    t = s.get("type")
    if isinstance(t, list):
        t = [x for x in t if x != "null"][0] if [x for x in t if x != "null"] else "null"
    if "enum" in s and s["enum"]:
        return s["enum"][0]
    if t == "object" or "properties" in s:
        out = {}
        props = s.get("properties") or {}
        for k in s.get("required") or list(props.keys())[:1]:
            out[k] = minimal_from_schema(props.get(k, {}), root, depth + 1) if depth < 6 else None
        return out
    if t == "array":
        n = s.get("minItems", 0) or 0
        return [minimal_from_schema(s.get("items", {}), root, depth + 1) for _ in range(n)]
    if t == "integer":
        return int(s.get("minimum", 0) or 0)
    if t == "number":
        return s.get("minimum", 0) or 0
    if t == "boolean":
        return False
    if t == "null":
        return None
    ml = s.get("minLength", 0) or 0
    return "ok" if ml > 0 else ""


def detect_kind(req):
    keys = set()
    if req.schema:
        keys = set((resolve(req.schema, req.schema).get("properties") or {}).keys())
    if not keys:
        mo = re.search(r"Answer (?:as|with) (\{.*)", req.user, re.S)
        if mo:
            keys = set(re.findall(r'"(\w+)"\s*:', mo.group(1)[:600]))
    if keys:
        if keys == {"ok"}:
            return "probe"
        if "ratings" in keys:
            return "importance_batch"
        if "blocks" in keys or "wake_up_hour" in keys:
            return "daily_plan"
        if "steps" in keys:
            return "decompose"
        if "choice" in keys:
            return "react"
        if "utterance" in keys:
            return "group_turn"
        if "lines" in keys and "memos" in keys:
            return "group_summary"
        if "lines" in keys or ("talk" in keys and ("first" in keys or "second" in keys)):
            return "conversation_summary"
        if "plan_activity" in keys or ("summary" in keys and "importance" in keys):
            return "conversation_memo"
        if "currently" in keys:
            return "revise_currently"
        if "questions" in keys:
            return "reflection_questions"
        if "insights" in keys:
            return "reflection_insights"
        if "answer" in keys:
            return "interview"
        if "importance" in keys:
            return "importance"
        if "summary" in keys:
            return "relationship"
        return "unknown_json"
    if re.search(r"\[end\]|\[continue\]", req.user):
        return "plain_text_turn"
    return "plain"


# ---- importance ----------------------------------------------------------------

def rate_memory(mem, self_name, rng, hosted_kw=None):
    t = mem.lower()
    if re.search(r"\btold\b|heard from|news|invit|\bevent\b|count me in|can't make it", t) or \
            re.search(r"\b(party|show|concert|quiz|fair|fete|match|meeting|slides?|talk|festival|supper)\b", t) and \
            find_time_range(mem)[0] is not None:
        r = rng.choice([5, 6])
        if self_name and re.search(re.escape(self_name) + r" (found|is hosting|will host|has organised|is holding)", mem):
            r = 7
        elif self_name and mem.startswith(self_name) is False and re.search(r"\b(She'll|He'll)\b", mem) and hosted_kw:
            r = 7
    elif "conversation with" in t or "chatted with" in t or "is chatting with" in t or "calling on" in t:
        r = rng.choice([2, 3]) if "conversation" in t or "chatted" in t else 2
    elif "plan for" in t or "means to" in t:
        r = rng.choice([2, 3])
    elif re.search(r"sleeping|waking up|getting ready|breakfast|lunch|dinner|relaxing|busy at|working|is in use|is idle", t):
        r = rng.choice([1, 1, 2])
    else:
        r = rng.choice([1, 2, 2, 3])
    if rng.random() < 0.25:
        r += rng.choice([-1, 1])
    return max(1, min(10, r))


def h_importance(req):
    rng = req.rng
    mo = re.search(r'Memory: "(.*)"\s*$', req.user, re.M) or re.search(r'memory[^:\n]*:\s*"?(.*?)"?\s*\n', req.user, re.I)
    mem = mo.group(1) if mo else req.user[-300:]
    hosted = None
    if req.self_name and req.self_name in mem and re.search(r"found|hosting|will show|organis", mem):
        hosted = True
    r = rate_memory(mem, req.self_name, rng, hosted)
    if hosted and r < 6:
        r = 6 + (1 if rng.random() < 0.5 else 0)
    return {"importance": r}


def h_importance_batch(req):
    rng = req.rng
    mems = re.findall(r'(?m)^- "(.*)"\s*$', req.user)
    if not mems:
        mems = re.findall(r"(?m)^- (.*)$", req.user)
    want = None
    sch = prop_schema(req, "ratings")
    if sch.get("minItems") is not None and sch.get("minItems") == sch.get("maxItems"):
        want = sch["minItems"]
    n = want if want is not None else len(mems)
    rs = [rate_memory(m, req.self_name, rng) for m in mems][:n]
    while len(rs) < n:
        rs.append(2)
    return {"ratings": rs}


# ---- daily plan ----------------------------------------------------------------

def parse_clock_phrase(s):
    s = (s or "").strip().lower()
    if s.startswith("midnight"):
        return 24 * 60
    if s.startswith("noon") or s.startswith("midday"):
        return 720
    mo = re.match(r"(\d{1,2})(?:[:.](\d\d))?\s*(am|pm)?", s)
    if not mo:
        return None
    h = int(mo.group(1))
    mi = int(mo.group(2) or 0)
    if mo.group(3) == "pm" and h < 12:
        h += 12
    if mo.group(3) == "am" and h == 12:
        h = 0
    return h * 60 + mi


def gerund(verb):
    v = verb.lower()
    irregular = {"runs": "running", "keeps": "keeping", "sits": "sitting", "shops": "shopping",
                 "swims": "swimming", "is": "being", "has": "having", "does": "doing", "goes": "going",
                 "sees": "seeing", "mends": "mending", "tends": "tending"}
    if v in irregular:
        return irregular[v]
    if v.endswith("ies"):
        return v[:-3] + "ying"
    if v.endswith(("ches", "shes", "sses", "xes")):
        return v[:-2] + "ing"
    if v.endswith("es") and not v.endswith(("ees",)):
        return v[:-1][:-1] + "ing" if v[:-1].endswith("e") else v[:-1] + "ing"
    if v.endswith("s"):
        v = v[:-1]
    if v.endswith("e") and not v.endswith("ee"):
        return v[:-1] + "ing"
    return v + "ing"


def pick_home(places, name):
    sur = name.split()[-1] if name else ""
    for p in places:
        if sur and sur.lower() in p.lower():
            return p
    for p in places:
        if re.search(r"house|cottage|flat|rooms|home|bedroom", p, re.I):
            return p
    return places[0] if places else ""


def work_info(prof, places, home):
    ls = prof.lifestyle or ""
    mo = re.search(r"(\w+) (?:at |on |in )?(?:the )?([A-Z][\w'\u2019]*(?: [A-Z][\w'\u2019]*)*) from (\d{1,2}(?::\d\d)? ?(?:am|pm)?|noon|midday) (?:to|until|till) (\d{1,2}(?::\d\d)? ?(?:am|pm)?|noon|midday|midnight)", ls)
    if not mo:
        mo2 = re.search(r"(\w+) from (\d{1,2}(?::\d\d)? ?(?:am|pm)?) (?:to|until|till) (\d{1,2}(?::\d\d)? ?(?:am|pm)?|midnight)", ls)
        if not mo2:
            return None
        verb, where, a, b = mo2.group(1), "", mo2.group(2), mo2.group(3)
    else:
        verb, where, a, b = mo.group(1), mo.group(2), mo.group(3), mo.group(4)
    s, e = parse_clock_phrase(a), parse_clock_phrase(b)
    if s is None or e is None:
        return None
    if e <= s:
        e += 720 if e + 720 > s else 1440
    wp = match_place(where + " " + where, places) if where else ""
    if not wp and where:
        for p in places:
            if where.lower() in p.lower():
                wp = p
                break
    if not wp:
        wp = match_place(prof.identity, places) or home
    act = gerund(verb)
    if where:
        prep = "at" if not re.search(r"\b(the )?" + re.escape(where), ls.split(" from ")[0].split(verb)[-1]) or re.search(verb + r" (at|in|on) ", ls) else ""
        if re.search(re.escape(verb) + r" (at|in|on) ", ls):
            prep = re.search(re.escape(verb) + r" (at|in|on) ", ls).group(1)
            act = "%s %s the %s" % (act, prep, where)
        else:
            act = "%s the %s" % (act, where)
    return {"start": s, "end": e, "place": wp, "activity": act}


EMOJI = [("sleep", "\U0001F634"), ("waking", "\u23F0"), ("breakfast", "\U0001F373"), ("lunch", "\U0001F96A"),
         ("dinner", "\U0001F37D\uFE0F"), ("tea", "\u2615"), ("bak", "\U0001F35E"), ("teach", "\U0001F4DA"),
         ("school", "\U0001F4DA"), ("post", "\U0001F4EE"), ("counter", "\U0001F4EE"), ("surgery", "\U0001FA7A"),
         ("nurs", "\U0001FA7A"), ("inn", "\U0001F37A"), ("taproom", "\U0001F37A"), ("pub", "\U0001F37A"),
         ("green", "\U0001F333"), ("walk", "\U0001F6B6"), ("reading", "\U0001F4D6"), ("telling", "\U0001F5E3\uFE0F"),
         ("hosting", "\U0001F3AA"), ("going to", "\U0001F39F\uFE0F"), ("setting up", "\U0001F527"),
         ("workshop", "\U0001F528"), ("carpen", "\U0001F528"), ("church", "\u26EA"), ("nave", "\u26EA"),
         ("relax", "\U0001F6CB\uFE0F"), ("calling on", "\U0001F6AA"), ("work", "\U0001F4BC")]


def emoji_for(act):
    a = act.lower()
    for k, e in EMOJI:
        if k in a:
            return e
    return "\U0001F642"


def overlay(blocks, s, e, act, place):
    out = []
    for b in blocks:
        bs, be = b["s"], b["e"]
        if be <= s or bs >= e:
            out.append(b)
            continue
        if bs < s:
            out.append(dict(b, e=s))
        if be > e:
            out.append(dict(b, s=e))
    out.append({"s": s, "e": e, "act": act, "place": place})
    out.sort(key=lambda x: x["s"])
    return [b for b in out if b["e"] > b["s"]]


def h_daily_plan(req):
    rng = req.rng
    prof = req.prof()
    name = req.self_name or prof.name
    places = enum_of(req, "blocks", "[]", "address") or []
    if not places:
        mo = re.search(r"one of these places[^\n]*:\n((?:- .*\n?)+)", req.user)
        places = [x[2:].strip() for x in mo.group(1).strip().split("\n")] if mo else req.places
    home = pick_home(places, name)
    today = req.now_date
    ls = prof.lifestyle or ""
    mo = re.search(r"wakes? up at ([^,;]+)", ls)
    wake = parse_clock_phrase(mo.group(1)) if mo else None
    if wake is None:
        wake = 7 * 60
    mo = re.search(r"(?:goes|go) to bed at ([^,;.]+)", ls)
    bed = parse_clock_phrase(mo.group(1)) if mo else None
    if bed is None:
        bed = 22 * 60 + (60 if wake >= 8 * 60 else 0)
    if bed <= wake:
        bed += 1440 if bed < 12 * 60 or bed == 1440 else 0
    if bed > wake + 20 * 60:
        bed = wake + 16 * 60
    work = work_info(prof, places, home)
    day_off = False
    if today is not None and today.weekday() >= 5 and work is not None:
        day_off = rng.random() < 0.40
    eateries = [p for p in places if re.search(r"inn|pub|tavern|taproom|bakery|bakehouse|cafe|caf\u00e9|tea ?room|kitchen|arms", p, re.I) and p != home]
    blocks = []
    t = wake
    blocks.append({"s": t, "e": t + 30, "act": "waking up and getting ready", "place": home})
    t += 30
    bfast_end = t + 30
    if work and not day_off and work["start"] - t < 60 and work["start"] > t:
        bfast_end = work["start"]
    blocks.append({"s": t, "e": bfast_end, "act": "having breakfast", "place": home})
    t = bfast_end
    lunch_s, lunch_e = 12 * 60, 13 * 60
    dinner_s = 18 * 60 + 30
    wk = work if (work and not day_off) else None
    if wk:
        ws, we = max(wk["start"], t), wk["end"]
        if ws > t:
            blocks.append({"s": t, "e": ws, "act": "pottering about at home" if ws - t < 90 else "relaxing at home", "place": home})
        if ws < lunch_s and we > lunch_e:
            lunch_place = wk["place"]
            if eateries and rng.random() < 0.30:
                lunch_place = rng.choice(eateries)
            blocks.append({"s": ws, "e": lunch_s, "act": wk["activity"], "place": wk["place"]})
            blocks.append({"s": lunch_s, "e": lunch_e, "act": "having lunch", "place": lunch_place})
            if we > dinner_s + 60:
                blocks.append({"s": lunch_e, "e": 18 * 60, "act": wk["activity"], "place": wk["place"]})
                blocks.append({"s": 18 * 60, "e": 18 * 60 + 30, "act": "having dinner", "place": wk["place"]})
                blocks.append({"s": 18 * 60 + 30, "e": min(we, bed), "act": wk["activity"], "place": wk["place"]})
                if bed > we:
                    blocks.append({"s": we, "e": bed, "act": "winding down at home", "place": home})
                dinner_s = None
            else:
                blocks.append({"s": lunch_e, "e": we, "act": wk["activity"], "place": wk["place"]})
            t = we
        elif we <= lunch_e:
            blocks.append({"s": ws, "e": we, "act": wk["activity"], "place": wk["place"]})
            t = we
            ls_ = max(t, lunch_s)
            if ls_ > t:
                blocks.append({"s": t, "e": ls_, "act": "relaxing at home", "place": home})
            blocks.append({"s": ls_, "e": ls_ + 60, "act": "having lunch", "place": home})
            t = ls_ + 60
        else:
            if ws > lunch_s:
                blocks.append({"s": t, "e": lunch_s, "act": "relaxing at home", "place": home})
                blocks.append({"s": lunch_s, "e": lunch_e, "act": "having lunch", "place": home})
                if ws > lunch_e:
                    blocks.append({"s": lunch_e, "e": ws, "act": "relaxing at home", "place": home})
                ws = max(ws, lunch_e)
            if we > dinner_s + 60:
                blocks.append({"s": ws, "e": 18 * 60, "act": wk["activity"], "place": wk["place"]})
                blocks.append({"s": 18 * 60, "e": 18 * 60 + 30, "act": "having dinner", "place": wk["place"]})
                blocks.append({"s": 18 * 60 + 30, "e": min(we, bed), "act": wk["activity"], "place": wk["place"]})
                if bed > we:
                    blocks.append({"s": we, "e": bed, "act": "winding down at home", "place": home})
                dinner_s = None
            else:
                blocks.append({"s": ws, "e": we, "act": wk["activity"], "place": wk["place"]})
            t = we
    else:
        free_place = next((p for p in places if re.search(r"green|park|common|garden|church|nave", p, re.I)), home)
        if t < lunch_s:
            blocks.append({"s": t, "e": lunch_s, "act": "relaxing on a day off" if work else "pottering about at home", "place": home})
        lp = rng.choice(eateries) if (eateries and rng.random() < 0.5) else home
        blocks.append({"s": lunch_s, "e": lunch_e, "act": "having lunch", "place": lp})
        blocks.append({"s": lunch_e, "e": 15 * 60, "act": "taking a walk" if free_place != home else "reading at home", "place": free_place})
        t = 15 * 60
    if dinner_s is not None:
        if t < dinner_s:
            blocks.append({"s": t, "e": dinner_s, "act": "relaxing at home", "place": home})
            t = dinner_s
        blocks.append({"s": t, "e": t + 60, "act": "having dinner", "place": home})
        t += 60
        if t < bed:
            blocks.append({"s": t, "e": bed, "act": "relaxing at home", "place": home})
    blocks = [b for b in blocks if b["e"] > b["s"]]
    # the news / event
    anchor = max(req.user.find("What " + name + " remembers"), 0)
    st, body, host_flag, teller = find_news(req.user, name, anchor)
    ev = None
    if st == "news":
        ev = build_event(body, req.user, name, today, req.year, places, host_flag, teller)
        if ev.host == name:
            host_flag = True
    if ev is None:
        # an event the character remembers agreeing to (no news line)
        for mo in re.finditer(r"(?m)^- \[(\w+day \w+ \d{1,2}), (\d\d:\d\d)\] (.*)$", req.user):
            line = mo.group(3)
            if re.search(re.escape(name) + r': "[^"]*(' + "|".join(re.escape(p) for p in ACCEPT_PH) + ")", line, re.I):
                pass
    outline_event = None
    if ev is not None and ev.date == today and ev.start is not None:
        person = Person(name)
        person.memtext = memory_block(req.user, name)
        person.profile = prof
        s, e = ev.window()
        if host_flag:
            attend = True
        else:
            stc = prior_stance(person, ev)
            if stc == "yes":
                pa = 0.95
            elif stc == "no":
                pa = 0.05
            else:
                pa = 0.35 + (0.15 if set(prof.traits) & SOCIABLE else 0) - (0.15 if set(prof.traits) & QUIET else 0)
            attend = rng.random() < pa
        ev_place = ev.place if ev.place in places else (match_place(ev.place_text, places) or "")
        if attend and ev_place:
            if host_flag:
                if rng.random() < 0.5:
                    blocks = overlay(blocks, s - 30, s, "setting up for the %s" % ev.label, ev_place)
                blocks = overlay(blocks, s, e, "hosting the %s" % ev.label, ev_place)
            else:
                what = ("%s's %s" % (ev.host, ev.label)) if ev.host and ev.host != name else "the " + ev.label
                blocks = overlay(blocks, s, e, "going to " + what, ev_place)
            outline_event = (s, blocks[[b["s"] for b in blocks].index(s)]["act"])
            # dinner displaced?
            if not any(b["act"] == "having dinner" for b in blocks):
                de = e
                blocks = overlay(blocks, de, min(de + 60, bed), "having dinner", home)
            if not any(b["act"] == "having lunch" for b in blocks):
                blocks = overlay(blocks, 13 * 60, 14 * 60, "having lunch", home)
    if st == "news" and ev is not None:
        mo = re.search(r"will be today[^\n]*:\n((?:- .*\n?)+)", req.user)
        if mo and rng.random() < (0.60 if host_flag else 0.40):
            cands = []
            for ln in mo.group(1).strip().split("\n"):
                m2 = re.match(r"- (.*?): (\d+) (?:people|person), (\d{1,2}:\d\d)-(\d{1,2}:\d\d)", ln.strip())
                if m2 and m2.group(1) in places:
                    a, b = parse_hm(m2.group(3)), parse_hm(m2.group(4))
                    # only free time: not over work or the event
                    busy = any(bl["s"] < b and a < bl["e"] and (bl["act"].startswith(("going to", "hosting", "setting up", "having "))
                               or (wk and bl["act"] == wk["activity"])) for bl in blocks)
                    if not busy and a >= wake + 60:
                        cands.append((int(m2.group(2)), a, b, m2.group(1)))
            if cands:
                cands.sort(key=lambda x: (-x[0], x[1]))
                n, a, b, p = cands[0]
                blocks = overlay(blocks, a, min(b, a + 60), "telling people about the %s" % ev.label, p)
    # merge adjacent same blocks, cap 15 + sleep
    merged = []
    for b in sorted(blocks, key=lambda x: x["s"]):
        if merged and merged[-1]["act"] == b["act"] and merged[-1]["place"] == b["place"] and merged[-1]["e"] == b["s"]:
            merged[-1]["e"] = b["e"]
        else:
            merged.append(dict(b))
    while len(merged) > 15:
        # merge the shortest relaxing block into its neighbour
        idx = min(range(1, len(merged)), key=lambda i: merged[i]["e"] - merged[i]["s"])
        merged[idx - 1]["e"] = merged[idx]["e"]
        del merged[idx]
    sleep_len = max(5, min(960, (wake + 1440) - bed))
    out_blocks = []
    for b in merged:
        out_blocks.append({"start": hm(b["s"]), "duration_minutes": int(b["e"] - b["s"]),
                           "activity": clip(b["act"], 120), "emoji": emoji_for(b["act"]), "address": b["place"]})
    out_blocks.append({"start": hm(bed), "duration_minutes": int(sleep_len), "activity": "sleeping",
                       "emoji": emoji_for("sleep"), "address": home})
    ol = [(wake, "wake up at %s" % ampm(wake))]
    if wk:
        ol.append((wk["start"], "%s from %s to %s" % (wk["activity"], ampm(wk["start"]), ampm(wk["end"]))))
    elif work:
        ol.append((wake + 1, "day off from work"))
    ln = next((b["s"] for b in merged if b["act"] == "having lunch"), None)
    if ln is not None:
        ol.append((ln, "lunch at %s" % ampm(ln)))
    tel = next((b for b in merged if b["act"].startswith("telling people")), None)
    if tel:
        ol.append((tel["s"], "tell people the news at %s" % ampm(tel["s"])))
    if outline_event:
        ol.append((outline_event[0], "%s at %s" % (outline_event[1], ampm(outline_event[0]))))
    dn = next((b["s"] for b in merged if b["act"] == "having dinner"), None)
    if dn is not None:
        ol.append((dn, "dinner at %s" % ampm(dn)))
    ol.sort(key=lambda x: x[0])
    outline = [x[1] for x in ol][:7] + ["bed at %s" % ampm(bed)]
    while len(outline) < 4:
        outline.insert(-1, "relax in the evening")
    return {"wake_up_hour": wake // 60, "outline": outline, "blocks": out_blocks}


# ---- decompose -----------------------------------------------------------------

STEP_SETS = [
    (r"breakfast", ["making tea", "making toast", "*eating breakfast at the table", "reading over breakfast",
                    "washing up", "tidying the kitchen"]),
    (r"lunch|dinner|supper|meal", ["getting the food ready", "setting a place", "*eating {meal}",
                                   "having a cup of tea", "clearing away", "washing up"]),
    (r"waking|getting ready", ["getting out of bed", "*washing and dressing", "making the bed",
                               "brushing hair", "looking over the day"]),
    (r"sleep", ["getting into bed", "*sleeping", "sleeping soundly", "turning over"]),
    (r"calling on|visiting", ["knocking at the door", "*saying hello", "*sitting down for a chat",
                              "having a cup of tea", "catching up on news", "saying goodbye"]),
    (r"hosting", ["setting things out", "*welcoming people", "*running the {label}", "answering questions",
                  "thanking everyone", "packing up"]),
    (r"going to|attending", ["arriving", "finding a seat", "*watching the {label}", "chatting with neighbours",
                             "saying goodbye"]),
    (r"setting up", ["carrying things in", "arranging chairs", "*setting things out", "checking everything works"]),
    (r"telling|seeing people|chatting", ["looking out for familiar faces", "*chatting with neighbours",
                                          "passing on the news", "catching up on gossip", "saying goodbye"]),
    (r"walk", ["setting off", "*walking round", "stopping to look around", "walking back"]),
]
OBJ_PHRASE = {"bar": "serving at the bar", "counter": "serving at the counter", "sorting rack": "sorting post at the sorting rack",
              "oven": "baking in the oven", "desk": "working at the desk", "fireplace": "seeing to the fireplace",
              "workbench": "working at the workbench", "stove": "cooking at the stove", "pitch": "rolling the pitch",
              "scoreboard": "putting up the scoreboard", "shelves": "stocking the shelves", "till": "working the till"}
SEATS = ["armchair", "chair", "sofa", "pavilion bench", "bench", "pew", "stool"]


def choose_steps(base, n, rng):
    core = [k for k, x in enumerate(base) if x.startswith("*")]
    clean = [x.lstrip("*") for x in base]
    if n <= len(clean):
        chosen = []
        for k in core + [0, len(clean) - 1]:
            if k not in chosen and len(chosen) < n:
                chosen.append(k)
        rest = [k for k in range(len(clean)) if k not in chosen]
        rng.shuffle(rest)
        for k in rest:
            if len(chosen) >= n:
                break
            chosen.append(k)
        return [clean[k] for k in sorted(chosen)]
    out = list(clean)
    pool = clean[1:-1] or clean
    fillers = ["taking a short break", "having a cup of tea", "looking around"]
    k = 0
    while len(out) < n:
        item = pool[k % len(pool)]
        extra = ("carrying on " + item) if not item.startswith(("carrying on", "taking", "having")) else item
        if k % 3 == 2:
            extra = fillers[(k // 3) % len(fillers)]
        out.insert(len(out) - 1, extra)
        k += 1
    return out


def h_decompose(req):
    rng = req.rng
    mo = re.search(r"From (\d{1,2}:\d\d) to (\d{1,2}:\d\d) \((\d+) minutes\) (.*?) is (.*?), at ([^\n]*?)\.\s*\n", req.user)
    total = int(mo.group(3)) if mo else 60
    activity = mo.group(5) if mo else "getting on"
    where = mo.group(6) if mo else ""
    mo2 = re.search(r"into (\d+) to (\d+)", req.user)
    sch = prop_schema(req, "steps")
    lo = sch.get("minItems") or (int(mo2.group(1)) if mo2 else 2)
    hi = sch.get("maxItems") or (int(mo2.group(2)) if mo2 else 6)
    dsch = prop_schema(req, "steps", "[]", "duration_minutes")
    dmin, dmax = dsch.get("minimum", 5), dsch.get("maximum", 15)
    objs = enum_of(req, "steps", "[]", "object")
    if objs is None:
        mo3 = re.search(r"Objects there: (.*)", req.user)
        objs = [""] + [o.strip() for o in mo3.group(1).split(",")] if mo3 else [""]
    objs = [o for o in objs if o]
    a = activity.lower()
    meal = "lunch" if "lunch" in a else ("dinner" if "dinner" in a else ("supper" if "supper" in a else "the meal"))
    label = "event"
    mo4 = re.search(r"(?:hosting|going to) (?:[A-Z][\w']+ [A-Z][\w']+'s |the )?(.*)", activity)
    if mo4:
        label = re.sub(r"\s*\(.*", "", mo4.group(1))[:40]
    base = None
    for rx, steps in STEP_SETS:
        if re.search(rx, a):
            base = list(steps)
            break
    seat = next((o for o in SEATS if o in objs), "")
    if base is None and re.search(r"relaxing|day off|pottering|winding down|reading|resting", a):
        if "bar" in objs:
            base = ["finding a seat", "*having a drink at the bar", "chatting with the regulars",
                    "sitting by the fireplace" if "fireplace" in objs else "reading the paper", "heading off"]
        elif re.search(r"green|park|garden|common|field", where.lower()) or any(o in objs for o in ("pitch", "bench", "pavilion bench")):
            base = ["taking a stroll", ("*sitting on the " + seat) if seat else "*sitting in the sun",
                    "watching people go by", "chatting with passers-by", "heading back"]
        else:
            base = ["sitting down with a cup of tea" if not seat else "sitting in the %s with a cup of tea" % seat,
                    "*reading a book", "resting", "tidying up a little", "listening to the radio", "writing a letter",
                    "having a nap"]
    if base is None:
        core = re.sub(r"\s*\(.*?\)", "", activity)
        if objs:
            base = ["getting set up"] + ["*" + OBJ_PHRASE.get(o, "seeing to the %s" % o) for o in objs[:3]] + \
                   ["dealing with people", "tidying up"]
        else:
            base = ["getting started", "*" + core, "carrying on with it", "finishing up"]
    base = [x.replace("{meal}", meal).replace("{label}", label) for x in base]
    feasible = lo * dmin <= total <= hi * dmax
    if feasible:
        n = max(lo, min(hi, int(round(total / 10.0))))
        while n * dmax < total:
            n += 1
        while n * dmin > total:
            n -= 1
        durs = [dmin] * n
        rest = total - n * dmin
        k = 0
        while rest > 0 and k < 10000:
            add = min(5 if rest >= 5 else rest, dmax - durs[k % n])
            if add > 0:
                durs[k % n] += add
                rest -= add
            k += 1
        rng.shuffle(durs)
    elif total > hi * dmax:
        n = hi
        if rng.random() < 0.60:
            q, r = divmod(total, n)
            durs = [q + (1 if k < r else 0) for k in range(n)]
        else:
            durs = [dmax] * n
    else:
        n = lo
        durs = [dmin] * n
    texts = choose_steps(base, n, rng)
    steps = []
    for txt, d in zip(texts, durs):
        obj = ""
        for o in sorted(objs, key=len, reverse=True):
            if re.search(r"\b" + re.escape(o.lower()) + r"\b", txt.lower()):
                obj = o
                break
        if not obj and objs:
            tl = txt.lower()
            prefs = [("bed", r"\bbed\b|sleep|nap|getting out|getting into"), ("armchair", r"sitting|resting|reading|tea|chat"),
                     ("chair", r"sitting|resting|reading"), ("table", r"eating|meal|breakfast|food"),
                     ("desk", r"writing|letter|looking over"), ("bar", r"drink|serving|regulars"),
                     ("counter", r"serving|dealing|customers"), ("sorting rack", r"sorting"),
                     ("stove", r"cooking|food ready|making tea|toast"), ("oven", r"baking|bread|loaf"),
                     ("workbench", r"working|making|mending")]
            for o, rx in prefs:
                if o in objs and re.search(rx, tl):
                    obj = o
                    break
        state = ""
        if obj:
            state = {"bed": "occupied", "armchair": "occupied", "chair": "occupied", "bench": "occupied",
                     "pavilion bench": "occupied", "sofa": "occupied", "table": "in use", "desk": "in use",
                     "bar": "serving drinks", "fireplace": "lit", "counter": "in use", "sorting rack": "in use",
                     "stove": "cooking", "oven": "baking", "workbench": "in use", "pitch": "being rolled",
                     "scoreboard": "in use"}.get(obj, "in use")
        steps.append({"activity": clip(txt, 80), "duration_minutes": int(d), "object": obj, "object_state": state})
    return {"steps": steps}


# ---- react ---------------------------------------------------------------------

def h_react(req):
    rng = req.rng
    name = req.self_name
    prof = req.prof()
    mo = re.search(r"has just noticed: \"(.*)\"", req.user)
    noticed = mo.group(1) if mo else ""
    mo = re.search(r'"talk": start a conversation with ([A-Z][^\n]*?) now', req.user)
    other = mo.group(1) if mo else (names_in(noticed)[0] if names_in(noticed) else "them")
    st, body, host_flag, teller = find_news(req.user, name, 0)
    untold = st == "news" and re.search(re.escape(name) + r" has news (?:to pass on|on their mind)[^:\n]*has not told " + re.escape(other), req.user) is not None
    busy = re.search(r'"wait"', req.user) is not None
    choices = set(enum_of(req, "choice") or ["continue", "talk", "wait", "react"])
    r = rng.random()
    reason = ""
    if untold:
        ev = build_event(body, req.user, name, req.now_date, req.year, req.places, host_flag, teller)
        is_host = host_flag or ev.host == name
        pt = 0.85 if is_host else 0.75
        if r < pt:
            choice = "talk"
            reason = "%s hasn't heard about the %s yet and is right here." % (first_name(other), ev.label)
        elif r < pt + 0.10 and busy:
            choice = "wait"
            reason = "%s is busy; better to tell them about the %s once they're done." % (first_name(other), ev.label)
        else:
            choice = "continue"
            reason = "Not the moment; %s will tell them another time." % first_name(name)
    elif re.search(re.escape(other) + r" is calling on " + re.escape(name), noticed):
        if r < 0.90:
            choice = "talk"
            reason = "%s has come to call." % first_name(other)
        else:
            choice = "continue"
            reason = "Nothing that needs saying just now."
    else:
        pt = 0.20 + (0.15 if set(prof.traits) & SOCIABLE else 0) - (0.10 if set(prof.traits) & QUIET else 0)
        if r < pt:
            choice = "talk"
            reason = "A quick hello to %s." % first_name(other)
        elif r < pt + 0.03:
            choice = "wait" if busy else "continue"
            reason = ("%s looks busy for now." % first_name(other)) if busy else "Nothing here that needs anything."
        elif r < pt + 0.04:
            choice = "react"
            reason = "Seeing %s is a reminder of something to do." % first_name(other)
        else:
            choice = "continue"
            reason = "Nothing here that needs anything."
    if choice not in choices:
        choice = "continue"
    new_act = ""
    if choice == "react":
        new_act = "going over to see %s" % first_name(other)
    return {"choice": choice, "reason": clip(reason, 300), "new_activity": new_act}


# ---- turns ----------------------------------------------------------------------

def setup_turn(req):
    name = req.self_name
    prof = req.prof()
    me = Person(name)
    me.profile = prof
    me.places = req.places
    mo = re.search(re.escape(name) + r" is talking with (.*?)\.\s*\n", req.user)
    others_names = []
    if mo:
        others_names = [x.strip() for x in re.split(r",\s*|\s+and\s+", mo.group(1)) if x.strip()]
    enum_addr = enum_of(req, "addressed_to") or []
    for n in enum_addr:
        if n != "everyone" and n not in others_names and n != name:
            others_names.append(n)
    anchor = req.user.find("It is ")
    st, body, host_flag, teller = find_news(req.user, name, max(anchor, 0))
    if st == "news":
        ev = build_event(body, req.user, name, req.now_date, req.year, req.places, host_flag, teller)
        me.news = ev
        me.is_host = host_flag or ev.host == name
    me.reason_tell = bool(re.search(re.escape(name) + r" started this conversation \(reason: (?:wants to tell|came to call on [^)]*to tell)", req.user))
    ma = re.search(re.escape(name) + r" was (.*?)\.\s", req.user)
    me.activity = ma.group(1) if ma else ""
    me.plan = parse_plan_lines(req.user)
    mi = req.user.find("What " + name + " remembers")
    me.memtext = memory_block(req.user, name)
    k = req.user.find("The conversation so far")
    block = ""
    if k >= 0:
        rest = req.user[k:].split("\n", 1)[1] if "\n" in req.user[k:] else ""
        endi = rest.find("\n\n")
        block = rest if endi < 0 else rest[:endi]
    hist = [Line(s, t) for s, t in parse_conv_lines(block)]
    others = []
    for n in others_names:
        p = Person(n)
        others.append(p)
    if not others:
        spk = [l.speaker for l in hist if l.speaker != name]
        others = [Person(spk[-1] if spk else "you")]
    ctx = {"year": req.year, "known_events": [me.news] if me.news else []}
    ctx["must_leave"] = bool(re.search(re.escape(name) + r" has to go now", req.user))
    ctx["already_said"] = bool(re.search(re.escape(name) + r' already said ".*?": ' + re.escape(name) + r" says something new", req.user))
    return me, others, hist, ctx


def h_plain_turn(req):
    rng = req.rng
    me, others, hist, ctx = setup_turn(req)
    ctx["maxlen"] = 300
    text, end, _, _ = next_line(me, others, hist, req.now_date, req.now_min, rng, ctx)
    text = text.replace("\n", " ").strip()
    if rng.random() < 0.01:
        text = "%s: %s" % (first_name(me.name), text)
    if rng.random() < 0.02:
        return text
    return text + "\n" + ("[end]" if end else "[continue]")


def h_group_turn(req):
    rng = req.rng
    me, others, hist, ctx = setup_turn(req)
    ctx["maxlen"] = min(400, prop_schema(req, "utterance").get("maxLength", 400))
    text, end, addr, _ = next_line(me, others, hist, req.now_date, req.now_min, rng, ctx)
    enum_addr = enum_of(req, "addressed_to")
    if enum_addr and addr not in enum_addr:
        addr = "everyone" if "everyone" in enum_addr else enum_addr[0]
    return {"utterance": text or "Hello.", "addressed_to": addr, "end_conversation": bool(end)}


# ---- memo ------------------------------------------------------------------------

def h_memo(req):
    rng = req.rng
    name = req.self_name
    me = Person(name)
    me.profile = req.prof()
    me.plan = parse_plan_lines(req.user)
    mo = re.search(r"just had this conversation with (.*?):\s*\n", req.user)
    others_names = [x.strip() for x in re.split(r",\s*|\s+and\s+", mo.group(1))] if mo else []
    k = mo.end() if mo else 0
    rest = req.user[k:]
    endi = rest.find("\n\n")
    block = rest if endi < 0 else rest[:endi]
    lines = [Line(s, t) for s, t in parse_conv_lines(block)]
    if not others_names:
        others_names = sorted(set(l.speaker for l in lines if l.speaker != name))
    places = enum_of(req, "plan_place") or []
    places = [p for p in places if p]
    if not places:
        places = req.places
    cands = []
    st, body, host_flag, teller = find_news(req.user, name, 0)
    if st == "news":
        ev = build_event(body, req.user, name, req.now_date, req.year, places, host_flag, teller)
        cands.append(ev)
        me.is_host = host_flag or ev.host == name
    # the character's own status may carry its hosted event
    cur = req.prof().currently or ""
    hosting_plan = [p for p in me.plan if p["activity"].lower().startswith("hosting")]
    if hosting_plan:
        hp = hosting_plan[0]
        ev = build_event(hp["activity"].split(":", 1)[-1] + " " + cur, req.user, name, req.now_date, req.year, places, True, "")
        if ev.start is None:
            ev.start, ev.end = hp["start"], hp["end"]
        if ev.date is None:
            ev.date = parse_date_words(hp["on"], req.year) if hp.get("on") else req.now_date
        ev.place = hp["place"]
        ev.place_text = place_parts(hp["place"])[1]
        ev.start, ev.end = hp["start"], hp["end"]
        ev.host = name
        cands.append(ev)
        me.is_host = True
    for l in lines:
        e2 = event_from_line(l.text, l.speaker, name, req.now_date, req.year, places)
        if e2 is not None:
            if e2.invite:
                cands.append(e2)
                continue
            e3 = build_event(l.text, req.user, name, req.now_date, req.year, places, False, l.speaker)
            if not e3.host and e2.host:
                e3.host = e2.host
            if e3.start is not None:
                cands.append(e3)
            cands.append(e2)
    opts = date_options(req.user)
    memo = memo_for(me, others_names, lines, cands, req.now_date, rng, places, opts, role_host=me.is_host)
    return memo


# ---- summaries ---------------------------------------------------------------------

def persons_from_summary(req, names):
    persons = []
    txt = req.user
    for i, n in enumerate(names):
        p = Person(n)
        p.profile = req.prof(n)
        # the section of the prompt about this person
        secs = [m.start() for m in re.finditer(r"(?m)^(?:Name: |What )" + re.escape(n), txt)]
        start = min(secs) if secs else 0
        nxt = [txt.find("Name: " + m, start + 1) for m in names if m != n]
        nxt += [txt.find("What " + m + " remembers", start + 1) for m in names if m != n]
        nxt += [txt.find("What " + m + " has planned", start + 1) for m in names if m != n]
        nxt = [x for x in nxt if x > start]
        endp = min(nxt) if nxt else len(txt)
        # For the two-person layout the memories and plans come later in their own blocks
        mem_i = txt.find("What " + n + " remembers")
        plan_i = txt.find("What " + n + " has planned")
        segs = []
        for si in (mem_i, plan_i):
            if si >= 0:
                ends = [txt.find("\n\n", si)]
                ends = [e for e in ends if e > si]
                segs.append(txt[si: min(ends) if ends else len(txt)])
        section = txt[start:endp] + "\n" + "\n".join(segs)
        p.memtext = section
        p.plan = parse_plan_lines("\n".join(s for s in segs if "has planned" in s) or section)
        p.places = req.places
        st, body, host_flag, teller = find_news(section, n, 0)
        if st == "news":
            ev = build_event(body, txt, n, req.now_date, req.year, req.places, host_flag, teller)
            p.news = ev
            p.is_host = host_flag or ev.host == n
        ma = re.search(re.escape(n) + r" was (?:about|([^.\n]*))", txt)
        p.activity = (ma.group(1) or "") if ma else ""
        ma2 = re.search(r"who was ([^.\n]*)", txt)
        if i > 0 and not p.activity and ma2:
            p.activity = ma2.group(1)
        persons.append(p)
    return persons


def simulate(req, persons, max_lines, rng):
    hist = []
    known = [p.news for p in persons if p.news is not None]
    turn = 0
    active = list(persons)
    while len(hist) < max_lines and len(active) >= 2:
        sp = active[turn % len(active)]
        others = [p for p in active if p is not sp]
        ctx = {"year": req.year, "known_events": ([sp.news] if sp.news else []) + known, "maxlen": 280}
        if len(hist) >= max_lines - 1:
            ctx["must_leave"] = True
        text, end, addr, info = next_line(sp, others, hist, req.now_date, req.now_min, rng, ctx)
        hist.append(Line(sp.name, text))
        turn += 1
        if end:
            if len(active) == 2:
                # the other answers a goodbye once, then it is over
                if len(hist) < max_lines:
                    o = others[0]
                    t2, _, _, _ = next_line(o, [sp], hist, req.now_date, req.now_min, rng, {"year": req.year, "maxlen": 280, "known_events": known})
                    hist.append(Line(o.name, t2))
                break
            active = [p for p in active if p is not sp]
            turn = turn % max(1, len(active))
    return hist


def talk_decision(persons, rng):
    untold = False
    anynews = False
    for p in persons:
        if p.news is not None:
            anynews = True
            for q in persons:
                if q is not p and not knows_event(q, p.news):
                    untold = True
    pr = 0.90 if untold else (0.55 if anynews else 0.40)
    return rng.random() < pr


def h_conversation_summary(req):
    rng = req.rng
    names = []
    sp_enum = enum_of(req, "lines", "[]", "speaker")
    if sp_enum:
        names = list(sp_enum)
    else:
        names = [p.name for p in req.profiles][:2]
    if len(names) < 2:
        names = [p.name for p in req.profiles][:2] or names
    persons = persons_from_summary(req, names[:2])
    mo = re.search(r"2 to\s+(\d+)\s+lines", req.user)
    maxl = int(mo.group(1)) if mo else 6
    if not talk_decision(persons, rng):
        return {"talk": False, "lines": []}
    hist = simulate(req, persons, min(maxl, 6), rng)
    if len(hist) < 2:
        hist.append(Line(persons[1].name, rng.choice(["Hello.", "See you."])))
    known = [p.news for p in persons if p.news is not None]
    places_a = [p for p in (enum_of(req, "first", "plan_place") or []) if p] or req.places
    places_b = [p for p in (enum_of(req, "second", "plan_place") or []) if p] or req.places
    opts = date_options(req.user)
    m1 = memo_for(persons[0], [persons[1].name], hist, known, req.now_date, rng, places_a, opts, persons[0].is_host)
    m2 = memo_for(persons[1], [persons[0].name], hist, known, req.now_date, rng, places_b, opts, persons[1].is_host)
    return {"talk": True, "lines": [{"speaker": l.speaker, "text": clip(l.text, 300)} for l in hist],
            "first": m1, "second": m2}


def h_group_summary(req):
    rng = req.rng
    names = enum_of(req, "lines", "[]", "speaker") or enum_of(req, "memos", "[]", "name") or [p.name for p in req.profiles]
    persons = persons_from_summary(req, list(names))
    mo = re.search(r"2 to\s+(\d+)\s+lines", req.user)
    maxl = int(mo.group(1)) if mo else 10
    if not talk_decision(persons, rng):
        return {"talk": False, "lines": [], "memos": []}
    hist = simulate(req, persons, min(maxl, 8), rng)
    if len(hist) < 2:
        hist.append(Line(persons[1].name, "Hello."))
    known = [p.news for p in persons if p.news is not None]
    places = [p for p in (enum_of(req, "memos", "[]", "plan_place") or []) if p] or req.places
    opts = date_options(req.user)
    memos = []
    for p in persons:
        others = [q.name for q in persons if q is not p]
        m = memo_for(p, others, hist, known, req.now_date, rng, places, opts, p.is_host)
        m = dict({"name": p.name}, **m)
        memos.append(m)
    return {"talk": True, "lines": [{"speaker": l.speaker, "text": clip(l.text, 300)} for l in hist], "memos": memos}


# ---- relationship / currently / interview / reflection ---------------------------------

FIRST_FUT = r"\b(I'll|I will|I'm going to|I am going to|I'm holding|I'm showing|I'm hosting|I'm putting on|I found|my)\b"


def memory_event(req, person_name, text):
    """The most informative event found in a memory text, or None."""
    cands = []
    for mo in re.finditer(r"([A-Z][a-z]+ [A-Z][\w'\-]+) told " + re.escape(person_name) + r": ([^\n]*)", text or ""):
        cands.append((mo.group(2), mo.group(1), "told"))
    st, body, hf, teller = find_news(text or "", person_name, 0)
    if st == "news":
        cands.append((body, teller, hf))
    for ln in (text or "").split("\n"):
        for mo in re.finditer(r'([A-Z][a-z]+ [A-Z][\w\'\-]+): "([^"]*)', ln):
            seg = mo.group(2)
            if find_time_range(seg)[0] is not None and (event_label(seg) != "get-together" or
                                                       re.search("|".join(WEEKDAYS) + r"|tonight|tomorrow|this evening", seg)):
                cands.append((seg, mo.group(1), False))
    for d, t, m in parse_memories(text or ""):
        if re.search(r"'s plan for", m):
            continue
        if find_time_range(m)[0] is not None and re.search(r"\b(will|She'll|He'll|They'll|is hosting|is holding)\b", m):
            cands.append((m, "", False))
    best, bscore = None, -1
    for raw, who, hflag in cands[:40]:
        ev = build_event(raw, text, person_name, req.now_date, req.year, req.places, hflag is True, who)
        if not ev.host and who and re.search(FIRST_FUT, raw):
            ev.host = who
        if ev.host == "" and re.search(re.escape(person_name) + r" (?:found|is hosting|will host|is holding)", raw):
            ev.host = person_name
        sc = (2 if ev.start is not None else 0) + (1 if ev.date else 0) + (1 if ev.host else 0) + \
             (1 if ev.label != "get-together" else 0) + min(len(ev.desc), 400) / 1000.0 + (0.5 if hflag == "told" else 0)
        if sc > bscore:
            best, bscore = ev, sc
    if best is not None and re.search(re.escape(person_name) + r" (?:found|is hosting|will host)", best.desc):
        best.host = person_name
    return best


def relation_sentence(req, name, other, mems, rng):
    mine = [m for m in mems if other in m[2]]
    convs = [m for m in mine if re.search(r"conversation with|chatted with|chatting with", m[2])]
    told = [m for m in mine if re.search(re.escape(other) + r" told " + re.escape(name) + r"|" + re.escape(name) + r" heard from " + re.escape(other), m[2])]
    visits = [m for m in mine if re.search(re.escape(other) + r" is calling on " + re.escape(name) + r"|" + re.escape(name) + r" is calling on " + re.escape(other), m[2])]
    ident = req.prof().identity or ""
    fo, fn = first_name(other), first_name(name)
    if not mine:
        if other in ident:
            return "%s knows %s well enough; nothing new between them lately." % (name, other)
        return "%s doesn't really know %s yet and has no particular feelings about them." % (name, other)
    bits = []
    if convs:
        bits.append(("%s has chatted with %s a few times lately, mostly in passing" if len(convs) > 2
                     else "%s has had a short chat or two with %s") % (name, other))
    else:
        bits.append("%s mostly just sees %s about the village" % (name, other))
    if visits:
        bits.append("they have called on each other")
    if told:
        ev = memory_event(req, name, "\n".join(m[2] for m in told))
        if ev is not None and ev.label != "get-together":
            what = ("%s's %s" % (ev.host, ev.label)) if ev.host and ev.host not in (other, name) else "the " + ev.label
            bits.append("%s told %s about %s" % (fo, fn, what))
        else:
            bits.append("%s passed on some news" % fo)
    if convs or told:
        feel = rng.choice(["feels friendly towards %s" % fo, "gets on fine with %s" % fo, "thinks well enough of %s" % fo])
    else:
        feel = "has no strong feelings about %s" % fo
    return "; ".join(bits) + ". " + fn + " " + feel + "."


def h_relationship(req):
    rng = req.rng
    name = req.self_name
    mo = re.search(r"What " + re.escape(name) + r" remembers about ([^:\n]+):", req.user)
    who = mo.group(1).strip() if mo else "them"
    who = re.sub(r"^(?:each of|both of|all of)\s+", "", who)
    others = [x.strip() for x in re.split(r",\s*|\s+and\s+", who) if x.strip()] or ["them"]
    mems = parse_memories(req.user)
    sents = [relation_sentence(req, name, o, mems, rng) for o in others[:4]]
    s = " ".join(sents)
    if len(s) > 400 and len(others) > 1:
        s = " ".join(clip(x, 400 // len(others[:4])) for x in sents)
    return {"summary": clip(s, 400)}


def clean_status_sentences(cur, name):
    out = []
    for s in split_sentences(cur or ""):
        if '"' in s or " / " in s or "(that is" in s or "has news on their mind" in s:
            continue
        if re.match(r"^(She|He|They)('ll| will| is|'s)\b", s) and not out:
            continue
        out.append(s.rstrip(".") + ".")
    return out


def h_revise(req):
    rng = req.rng
    name = req.self_name
    prof = req.prof()
    cur_s = clean_status_sentences(prof.currently, name)
    base = []
    for s in cur_s:
        if find_time_range(s)[0] is not None or re.search("|".join(WEEKDAYS), s):
            continue  # time-bound sentences are re-derived below
        base.append(s)
    if not base:
        base = [cur_s[0]] if cur_s else ["%s is going about the usual routine." % name]
    base = base[:1]
    memtext = memory_block(req.user, name)
    ev = memory_event(req, name, memtext)
    if ev is None:
        # a hosted event of one's own appears as plain memory
        for d, t, m in parse_memories(memtext):
            if name in m and find_time_range(m)[0] is not None and re.search(r"found|will|show|host|invit", m):
                ev = build_event(m, req.user, name, req.now_date, req.year, req.places, False, "")
                if name in names_in(ev.desc):
                    ev.host = name
                break
    extra = []
    if ev is not None and ev.date is not None and req.now_date is not None and ev.date >= req.now_date:
        p = Person(name)
        p.memtext = memtext
        p.plan = parse_plan_lines(req.user)
        stc = prior_stance(p, ev)
        when = date_label(ev.date) + ((", " + hm(ev.start) + ("-" + hm(ev.end) if ev.end else "")) if ev.start is not None else "")
        where = spoken_place(ev.place or ev.place_text) or "a place in the village"
        pron = "They"
        if ev.host == name:
            extra.append("%s is hosting the %s at %s on %s and wants as many people as possible to hear of it." % (first_name(name), ev.label, where, when))
        elif stc == "yes":
            extra.append("%s means to go to %s's %s at %s on %s." % (first_name(name), ev.host or "a neighbour", ev.label, where, when))
        elif stc == "no":
            extra.append("%s heard about %s's %s on %s but can't go." % (first_name(name), ev.host or "a neighbour", ev.label, when))
        else:
            extra.append("%s has heard about %s's %s at %s on %s and may look in." % (first_name(name), ev.host or "a neighbour", ev.label, where, when))
    s = " ".join(base + extra)
    return {"currently": clip(s, 500)}


def schedule_items(memtext, day_label):
    """(minute, activity) items of the character's stored plan for a day."""
    out = []
    for mo in re.finditer(r"'s plan for ([A-Z]\w+day \w+ \d{1,2}), \d{4}: [^\n]*?Schedule: ([^\n]*)", memtext or ""):
        if day_label and not mo.group(1).startswith(day_label):
            continue
        for it in mo.group(2).split(";"):
            m2 = re.match(r"\s*(\d{1,2}:\d\d) (.*)", it)
            if m2:
                out.append((parse_hm(m2.group(1)), m2.group(2).strip()))
    return out


def h_interview(req):
    rng = req.rng
    name = req.self_name
    prof = req.prof()
    mo = re.search(r'Someone asks [^:]*: "(.*)"', req.user)
    q = mo.group(1) if mo else req.user.strip().split("\n")[-1]
    memtext = memory_block(req.user, name)
    mems = parse_memories(memtext)
    style = rng.choices(["brit", "past", "24", "ampm"], [0.45, 0.25, 0.2, 0.1])[0]
    mk = re.search(r"\b(?:know|met|of|is|about)\s+([A-Z][a-z]+ [A-Z][\w'\-]+)\??", q)
    person_q = re.search(r"\bdo you know\b|\bhave you met\b|\bwho is\b|\bthink of\b|\bfeel about\b|\bget on with\b|\bhow well\b", q, re.I)
    if mk and person_q and mk.group(1) not in ("Village Green",) and mk.group(1).split()[0] not in NOT_NAME:
        other = mk.group(1)
        ident = prof.identity or ""
        about = [m for m in mems if other in m[2]]
        talked = [m for m in about if re.search(r"conversation with|chatted with|chatting with|told|heard from|calling on", m[2])]
        opinion = re.search(r"think of|feel about|get on with", q, re.I)
        whoq = re.search(r"\bwho is\b", q, re.I)
        if whoq and (other in ident or talked or about):
            ans = "%s is someone I know%s." % (other, ("; we talked on %s" % talked[-1][0].split()[0]) if talked else "")
            return {"answer": clip(ans, 600)}
        if other in ident:
            clause = ""
            for part in re.split(r";|\. ", ident):
                if other in part:
                    clause = part.strip()
                    break
            mk2 = re.search(r"\b(?:she|he|they) knows " + re.escape(other) + r" from (?:her|his|their) (.*)", clause)
            if mk2:
                ans = "Yes, I know %s from my %s." % (other, mk2.group(1).rstrip("."))
            else:
                ans = "Yes, I know %s." % other
            if opinion:
                ans = "I get on well enough with %s. " % first_name(other) + ans.replace("Yes, ", "")
            elif talked and rng.random() < 0.5:
                ans += " We spoke on %s." % talked[-1][0].split()[0]
        elif talked:
            ans = ("I get on fine with %s. We talked on %s." if opinion else "Yes, I know %s. We talked on %s.") % (
                other if not opinion else first_name(other), talked[-1][0].split()[0])
            tt = [m for m in talked if re.search(re.escape(other) + r" told " + re.escape(name) + "|heard from " + re.escape(other), m[2])]
            if tt:
                ans += " %s told me about some news." % first_name(other)
        elif about:
            where = re.search(r"at the ([a-z][\w ]+?)(?:\)|$| \()", about[-1][2])
            ans = "I know who %s is; I've seen them about%s." % (other, (" at the " + where.group(1)) if where else "")
        else:
            ans = rng.choice(["No, I don't know %s." % other, "I don't know %s, I'm afraid." % other])
            if opinion:
                ans = "I don't really know %s, so I couldn't say." % other
        return {"answer": clip(ans, 600)}
    event_q = re.search(r"heard|going to|go to|coming to|attend|when is|where is|what time|event|happening|what's on|"
                        r"know anything about|are you going|will you go", q, re.I)
    ev = memory_event(req, name, memtext) if memtext else None
    qk = set(content_words(q))
    relevant = False
    if ev is not None:
        relevant = len(qk & set(ev.keywords)) >= 1 or ev.label.split()[0] in q.lower() or \
            bool(re.search(r"anything|happening|what's on|this weekend|going on", q, re.I))
        q_label = event_label(q)
        generic_q = {"anything", "happening", "village", "weekend", "know", "heard", "going", "week"}
        if q_label != "get-together" and q_label != ev.label and not ((qk - generic_q) & set(ev.keywords)):
            relevant = False
    if event_q and relevant:
        p = Person(name)
        p.memtext = memtext
        p.plan = parse_plan_lines(req.user)
        stc = prior_stance(p, ev)
        when = spoken_day(ev.date, req.now_date, ev.start, rng)
        tr = say_range(ev.start, ev.end, style)
        place = spoken_place(ev.place or ev.place_text)
        where = (", at " + place) if place else ""
        who = ev.teller or ""
        if not who:
            mt = re.search(r"([A-Z][a-z]+ [A-Z][\w'\-]+) told " + re.escape(name), memtext)
            who = mt.group(1) if mt else ""
        what = ("%s's %s" % (ev.host, ev.label)) if ev.host and ev.host != name else "the " + ev.label
        details = "It's %s, %s%s." % (when, tr, where) if tr else "It's %s%s." % (when, where)
        if re.search(r"going|go to|coming|attend|will you", q, re.I):
            if ev.host == name:
                ans = "Of course, it's mine. " + details
            elif stc == "yes":
                ans = "Yes, I'm going. " + details
            elif stc == "no":
                ans = "No, I can't make it. " + details
            else:
                ans = "I haven't decided. " + details
        elif re.search(r"when|what time|where", q, re.I):
            ans = details + ((" %s is running it." % ev.host) if ev.host and ev.host != name else "")
        else:
            if ev.host == name:
                ans = "Yes, I'm holding it: the %s%s, %s %s." % (ev.label, (" at " + place) if place else "", when, tr)
            else:
                st_txt = {"yes": "I'm going.", "no": "I can't make it, though."}.get(stc, "I haven't decided whether to go.")
                src = ("%s told me. " % who) if who and who != ev.host else ""
                ans = "Yes. %s%s is %s, %s%s. %s" % (src, up_first(what), when, tr, where, st_txt)
        ans = re.sub(r"\s+,", ",", ans).replace("  ", " ").replace(",.", ".")
        return {"answer": clip(ans, 600)}
    if event_q and not re.search(r"what are you|your plans|doing", q, re.I):
        if re.search(r"heard", q, re.I):
            return {"answer": rng.choice(["No, I haven't heard about that.", "No, that's news to me."])}
        return {"answer": rng.choice(["I don't know anything about that.", "I couldn't tell you; I haven't heard of it."])}
    if re.search(r"what are you|your plans|doing (today|this|tomorrow|later)|up to", q, re.I):
        part = None
        if re.search(r"evening|tonight", q, re.I):
            part = (17 * 60, 24 * 60)
        elif re.search(r"afternoon", q, re.I):
            part = (12 * 60, 17 * 60)
        elif re.search(r"morning", q, re.I):
            part = (0, 12 * 60)
        day = WEEKDAYS[req.now_date.weekday()] if req.now_date else ""
        items = schedule_items(memtext, day)
        lo_, hi_ = part if part else ((req.now_min or 0), 24 * 60)
        sel = [a for m, a in items if lo_ <= m < hi_ and "sleeping" not in a]
        ev = memory_event(req, name, memtext) if memtext else None
        if ev is not None and ev.date == req.now_date and ev.start is not None and lo_ <= ev.start < hi_:
            p = Person(name)
            p.memtext = memtext
            stc = prior_stance(p, ev)
            if ev.host == name or stc == "yes":
                sel = [("hosting the %s" % ev.label) if ev.host == name else ("going to %s's %s" % (ev.host, ev.label))] + \
                      [a for a in sel if not a.startswith("going to")]
        evw = ("going to %s's %s" % (ev.host, ev.label)) if (ev is not None and ev.host and ev.host != name) else "going to an event"
        sel = [re.sub(r"going to: .*", evw, a) for a in sel]
        if sel:
            return {"answer": clip("I'm %s." % ", then ".join(dict.fromkeys(sel[:3])), 600)}
        cur = clean_status_sentences(prof.currently, name)
        if cur:
            return {"answer": clip(to_first_person(cur[0], name).replace("I is ", "I'm ").replace("I am ", "I'm "), 600)}
    return {"answer": rng.choice(["I'm not sure.", "I couldn't say."])}


def h_reflection_questions(req):
    rng = req.rng
    name = req.self_name
    mo = re.search(r"Which (\d+) questions", req.user)
    n = int(mo.group(1)) if mo else 3
    mx = prop_schema(req, "questions").get("maxItems")
    if mx:
        n = min(n, mx)
    mems = parse_memories(req.user)
    counts = {}
    for d, t, m in mems:
        for nm in set(names_in(m)):
            if nm != name and not re.match(r"^(Behind|The|What|Have|Sounds|Sorry|It|Hi|Fine)\b", nm):
                counts[nm] = counts.get(nm, 0) + 1
    people = sorted(counts, key=lambda k: -counts[k])
    ev = memory_event(req, name, req.user)
    qs = []
    if ev is not None:
        if ev.host == name:
            qs.append("Who is likely to come to %s's %s, and who still needs to hear about it?" % (name, ev.label))
        else:
            qs.append("Will %s go to %s's %s, and what stands in the way?" % (name, ev.host or "the", ev.label))
    for p in people[:3]:
        qs.append("How are things between %s and %s?" % (name, p))
    qs.append("What does %s's daily routine say about what matters to them?" % name)
    qs = qs[:n]
    return {"questions": qs}


def h_reflection_insights(req):
    rng = req.rng
    name = req.self_name
    u = req.user
    ev_sch = prop_schema(req, "insights", "[]", "evidence", "[]")
    maxn = ev_sch.get("maximum")
    mo = re.search(r"numbers \(1 to\s+(\d+)\)", u)
    if maxn is None and mo:
        maxn = int(mo.group(1))
    # split into question groups
    groups = []
    cur_q = []
    cur_st = []
    mode = None
    for ln in u.split("\n"):
        mq = re.match(r'^(?:- |Question: )"(.*)"\s*$', ln)
        ms = re.match(r"^(\d+)\. (.*)$", ln)
        if mq:
            if cur_st:
                groups.append((cur_q, cur_st))
                cur_q, cur_st = [], []
            cur_q.append(mq.group(1))
        elif ms:
            cur_st.append((int(ms.group(1)), ms.group(2)))
    if cur_q or cur_st:
        groups.append((cur_q, cur_st))
    insights = []
    ev = memory_event(req, name, u)
    for qs, sts in groups:
        for q in qs:
            if len(insights) >= 15:
                break
            nums_all = [k for k, _ in sts]
            mp = re.search(r"know about ([A-Z][a-z]+ [A-Z][\w'\-]+)\??$", q)
            mday = re.search(r"know about (" + "|".join(WEEKDAYS) + r")\b", q)
            if mday:
                day = mday.group(1)
                dn = [k for k, st_ in sts if st_.startswith("[" + day)][:8] or nums_all[:4] or [1]
                chats = [k for k, st_ in sts if st_.startswith("[" + day) and re.search(r"conversation|chatted|chatting", st_)]
                if chats:
                    txt = "%s's %s was mostly the usual routine, with a few short chats." % (name, day)
                else:
                    txt = "%s's %s was mostly the usual routine of work, meals and rest." % (name, day)
                insights.append({"insight": txt, "about": day, "evidence": dn, "importance": 2})
            elif mp and mp.group(1) in " ".join(s for _, s in sts):
                other = mp.group(1)
                ev_n = [k for k, s in sts if other in s][:6]
                conv_n = [k for k, s in sts if other in s and re.search(r"conversation|chatted|chatting", s)][:6]
                told_n = [k for k, s in sts if re.search(re.escape(other) + r" told " + re.escape(name) + "|heard from " + re.escape(other), s)][:4]
                if conv_n:
                    insights.append({"insight": "%s has talked with %s %s recently, briefly each time." % (name, other, "several times" if len(conv_n) > 2 else "once or twice"),
                                     "about": other, "evidence": conv_n, "importance": rng.choice([2, 3])})
                elif ev_n:
                    insights.append({"insight": "%s mostly sees %s in passing around the village." % (name, other),
                                     "about": other, "evidence": ev_n[:5], "importance": 2})
                if told_n and ev is not None and len(insights) < 15:
                    insights.append({"insight": "%s is one of the people who passed the news of the %s on to %s." % (other, ev.label, name),
                                     "about": other, "evidence": told_n, "importance": rng.choice([3, 4])})
            elif re.search(r"going to do about|going to do|intend", q) and ev is not None:
                p = Person(name)
                p.memtext = "\n".join(s for _, s in sts)
                stc = prior_stance(p, ev)
                ev_n = [k for k, s in sts if mentions_event(s, ev) or "going to" in s][:6] or nums_all[:3]
                if ev.host == name:
                    txt = "%s is holding the %s and wants people to know about it." % (name, ev.label)
                elif stc == "yes":
                    txt = "%s has said yes to %s's %s and means to go." % (name, ev.host or "the", ev.label)
                elif stc == "no":
                    txt = "%s has said they can't go to %s's %s." % (name, ev.host or "the", ev.label)
                else:
                    txt = "%s knows about %s's %s but has not settled whether to go." % (name, ev.host or "the", ev.label)
                insights.append({"insight": txt.replace("the's", "the"), "about": "the " + ev.label, "evidence": ev_n,
                                 "importance": rng.choice([4, 5])})
            else:
                ev_n = nums_all[:4] if nums_all else [1]
                insights.append({"insight": "%s's days keep to a steady routine of work, meals and rest." % name,
                                 "about": "routine", "evidence": ev_n, "importance": 2})
    if not insights:
        insights.append({"insight": "%s's days keep to a steady routine." % name, "about": "routine",
                         "evidence": [1], "importance": 2})
    if maxn:
        for ins in insights:
            ins["evidence"] = [k for k in ins["evidence"] if 1 <= k <= maxn][:10] or [1]
    for ins in insights:
        ins["insight"] = clip(ins["insight"], 300)
        ins["about"] = clip(ins["about"], 60)
    return {"insights": insights[:15]}


def h_unknown(req):
    obj = minimal_from_schema(req.schema or {}, req.schema or {})
    if isinstance(obj, dict):
        for k, v in list(obj.items()):
            if v == "ok":
                obj[k] = "All right."
    return obj


# ----------------------------------------------------------------------------------
# slips and serialisation
# ----------------------------------------------------------------------------------

def apply_slip(kind, obj, req):
    rng = req.rng
    r = rng.random()
    try:
        if kind == "importance" and r < 0.02:
            obj["importance"] = str(obj["importance"])
        elif kind == "importance_batch":
            if r < 0.02:
                if rng.random() < 0.5 and len(obj["ratings"]) > 1:
                    obj["ratings"] = obj["ratings"][:-1]
                else:
                    obj["ratings"] = obj["ratings"] + [2]
            elif r < 0.03:
                obj["ratings"] = [str(x) for x in obj["ratings"]]
        elif kind == "daily_plan":
            if r < 0.01 and obj["blocks"]:
                b = obj["blocks"][len(obj["blocks"]) // 2]
                b["address"] = ":".join(b["address"].split(":")[:2])
            elif r < 0.02:
                obj["date"] = req.now_date.isoformat() if req.now_date else ""
            elif r < 0.03:
                while len(obj["outline"]) < 9:
                    obj["outline"].insert(-1, "relax at home")
        elif kind == "decompose" and r < 0.02 and obj["steps"]:
            obj["steps"][0]["duration_minutes"] = str(obj["steps"][0]["duration_minutes"])
        elif kind == "react":
            if r < 0.015:
                obj.pop("new_activity", None)
            elif r < 0.03:
                obj["choice"] = obj["choice"].capitalize()
        elif kind == "group_turn":
            if r < 0.015 and obj["addressed_to"] != "everyone":
                obj["addressed_to"] = first_name(obj["addressed_to"])
            elif 0.015 <= r < 0.03:
                obj["end_conversation"] = "true" if obj["end_conversation"] else "false"
        elif kind == "conversation_memo":
            if r < 0.02:
                obj["importance"] = str(obj["importance"])
            elif r < 0.03:
                obj["topic"] = "conversation"
        elif kind == "conversation_summary" and obj.get("talk"):
            if r < 0.015 and obj.get("second"):
                obj["second"].pop("plan_minutes", None)
            elif r < 0.03 and obj.get("lines"):
                obj["lines"][0]["speaker"] = first_name(obj["lines"][0]["speaker"])
        elif kind == "group_summary" and obj.get("talk"):
            if r < 0.015 and len(obj.get("memos", [])) > 1:
                obj["memos"] = obj["memos"][:-1]
            elif r < 0.03 and obj.get("lines"):
                obj["lines"][-1]["speaker"] = first_name(obj["lines"][-1]["speaker"])
        elif kind in ("relationship", "revise_currently", "interview") and r < 0.01:
            obj["mood"] = "calm"
        elif kind == "reflection_questions" and r < 0.02:
            obj["questions"] = obj["questions"] + ["What will %s do next?" % req.self_name]
        elif kind == "reflection_insights" and obj.get("insights"):
            if r < 0.02:
                obj["insights"][0]["evidence"] = obj["insights"][0]["evidence"] + [999]
            elif r < 0.03:
                obj["insights"][0]["importance"] = str(obj["insights"][0]["importance"])
    except Exception:
        pass
    return obj


HANDLERS = {
    "importance": h_importance, "importance_batch": h_importance_batch, "daily_plan": h_daily_plan,
    "decompose": h_decompose, "react": h_react, "group_turn": h_group_turn,
    "conversation_memo": h_memo, "conversation_summary": h_conversation_summary,
    "group_summary": h_group_summary, "relationship": h_relationship, "revise_currently": h_revise,
    "interview": h_interview, "reflection_questions": h_reflection_questions,
    "reflection_insights": h_reflection_insights, "unknown_json": h_unknown,
}


def _fallback(body):
    try:
        rf = (body or {}).get("response_format") or {}
        sch = (rf.get("json_schema") or {}).get("schema") if isinstance(rf, dict) else None
        if isinstance(sch, dict):
            return json.dumps(minimal_from_schema(sch, sch), ensure_ascii=False)
        msgs = (body or {}).get("messages") or []
        txt = " ".join(str(m.get("content", "")) for m in msgs if isinstance(m, dict))
        if "[end]" in txt or "[continue]" in txt:
            return "All right.\n[end]"
        if "json" in txt.lower() and "{" in txt:
            return "{}"
    except Exception:
        pass
    return "All right."


def respond(body, seed=0):
    try:
        rng = make_rng(body, seed)
    except Exception:
        rng = random.Random(str(seed))
    try:
        req = Req(body, rng)
        kind = detect_kind(req)
        if kind == "probe":
            return json.dumps({"ok": True})
        if kind == "plain_text_turn":
            return h_plain_turn(req)
        if kind == "plain":
            return "All right."
        obj = HANDLERS[kind](req)
        obj = apply_slip(kind, obj, req)
        out = json.dumps(obj, ensure_ascii=False)
        if rng.random() < 0.01:
            out = "```json\n" + out + "\n```"
        return out
    except Exception:
        return _fallback(body)
