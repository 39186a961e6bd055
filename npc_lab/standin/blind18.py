"""Blind stand-in #18: imitates a SMALL local model (3-4B, Llama-3.2-3B-Instruct /
Qwen2.5-3B / Phi-3.5-mini class) served by Ollama with default settings
(temperature ~0.8, JSON-schema "format" mode) answering the NPC brain's requests.

Written only from the captured request bodies (runs/cap18/requests) and the note
shared/notes/blind-evaluation.md.  Entry point: respond(body, seed) -> str.

HOW ANSWERS ARE DRAWN
- Every random draw is u(key) = sha256(seed | purpose | canonical JSON of the messages
  | key) mapped to [0,1).  No hash(), no time, no global state, no set-order dependence.
- The purpose is recognised from the response_format schema's property names
  (utterance -> group turn, ratings -> importance batch, steps -> decompose, ...); a
  request without a schema is a dialogue turn (plain text).  Schema is structure, not
  wording, so reworded prompts are recognised the same way.
- Prompt reading is by meaning: the speaker is the person whose profile comes first
  ("Name:" field or "mind of X"); people are full names (Capitalised Two Words) that
  also appear in schema enums or the text; "now" is the date/time stated as the present
  (a date right after "it is / today is / now"), else the latest bracketed memory stamp,
  else the day the date list marks as today.  Places are matched to enum / known
  "Town:Building:Room" addresses by word overlap.

EVENT READER (used by every purpose)
An event is a sentence/clause that (a) names a time or day in any style (weekday, month
day, ISO date, today/tomorrow/tonight, "10 in the morning", "noon", "5 pm", "17:00",
"after work", "at sundown", "between X and Y", "from X to Y"), (b) carries a joinable or
intentional marker (open to / anybody / everyone / welcome / invite / join / come along /
hosting / holding / organising / "has it in mind" / means to / plans to / will / there
will be / a gathering word such as party, fair, market, match, meeting, class, lesson,
concert, picnic, supper, tasting, sale, service, festival, show, game, practice, talk,
workshop-session), and (c) is not a routine ("every", "usually", "wakes up", "goes to
bed", "works ... from", "each day/morning") nor a past happening ("yesterday", "last
week", "was held", "went", "used to").  Schedule rows ("- 10:00-12:00 ...") and plan
memories are not events.  Host = the named person the sentence is about (or the speaker
for "I/we/my").  Date, start, end (default start+120 min) and place are read off it;
events are de-duplicated by (date, start, place).

DIALOGUE TURN (plain text; converse_turn)
- News on the speaker's mind = an event in a sentence that says the speaker has news /
  means to tell / will mention it (not negated: "no news").  "Come up already" = an
  earlier line of the conversation shares >= 3 content words or its day+time with it.
- If the speaker has news not yet come up: brings it up this turn with p = 0.80
  (otherwise greets / small talk first).  Telling it: copies the event sentence from the
  prompt, own name turned into "I", p = 0.70; a short paraphrase "X at the PLACE DAY at
  TIME" p = 0.22; a vague version without day or time p = 0.08.  Independently, the
  relative day word is wrong (today<->tomorrow) with p = 0.05.
- Spontaneous gossip: when the prompt says the speaker has NO news, but a memory holds an
  upcoming event heard of from someone, it is mentioned with p = 0.10 per turn.
- Hearing an event (from the last line of the other speaker) the speaker does not host:
  p(go) = 0.50 base; +0.15 if a trait is outgoing (sociable, talkative, energetic,
  curious, nosy, friendly, cheerful, kind, helpful, practical); -0.15 if a trait is
  withdrawn (tired, shy, grumpy, reserved, lazy, gloomy, stubborn); -0.10 if the speaker
  "does not know" the teller well; if the plan holds a real commitment (another event,
  "calling on", "meeting", an appointment, a named person) overlapping the event:
  p(go) = 0.20; an ordinary work block overlapping: -0.10 (small models read "busy" too
  literally); clamped to [0.10, 0.85].  Outcome: go (says yes, names day/time with
  p = 0.5), else "maybe" with p = 0.35 of the remainder, else a polite no.  When it is
  a clash, the no names the clashing item.
- Host hearing someone accept: thanks them / "see you there".
- Otherwise small talk copied from the situation (what the other is doing, own activity,
  one memory), or a goodbye if the other just said goodbye.
- [end]: after a goodbye from the other p = 0.85; turn index >= 4: p = 0.45; >= 6:
  p = 0.80; right after telling news: p = 0.10; otherwise p = 0.15.
- Malformations (plain text): speaker's name before the line p = 0.06; quotes around the
  words p = 0.05; tag missing p = 0.04; tag on the same line p = 0.04; both lines
  written as a two-speaker script (role confusion) p = 0.02.  Drawn exclusively, total
  0.21.

GROUP TURN (JSON utterance/addressed_to/end_conversation)
- Same speech rules as the dialogue turn, line from the last speaker.  addressed_to:
  "everyone" when telling news p = 0.6 (else the first other named), otherwise the last
  speaker (or first other person) p = 0.7, "everyone" p = 0.3.  end_conversation as the
  [end] rule above.
- Malformations: truncated JSON p = 0.02; addressed_to a first name only / not in enum
  p = 0.04; speaker name inside the utterance p = 0.04.

CONVERSATION MEMO (JSON summary/importance/plan_*)
- Summary: one sentence from the owner's view naming the partner(s), the event if one
  was told in the lines (what, day, time, place copied), and the owner's answer.
- Plan change: if an event was told in the lines and the owner then said yes ("count me
  in", "I'll come/be there", "see you there", "sounds lovely/good", "wouldn't miss"):
  plan item with p = 0.85; owner said maybe: p = 0.30; owner said nothing/declined:
  false plan p = 0.10 (news merely heard) / 0.03 (declined).  Owner is the host:
  adds the hosting as a plan item anyway p = 0.20 (literal reading).  No event: no plan
  (false plan from small talk p = 0.0).
- Plan fields: date = event date (wrong: today's date instead p = 0.07); start = event
  start (or "" -> stays ""); minutes = event length (default 120; 60 with p = 0.2);
  place = matched enum (empty with p = 0.10 even when known).
- Importance: small talk 2 (1-3); event heard 5 (4-7); accepted 6 (5-7); own event
  told 5 (4-6).
- Malformations: truncated JSON p = 0.03; plan_place free text not in enum p = 0.03;
  plan_date as a weekday word p = 0.02.

CONVERSATION SUMMARY (two people) / GROUP SUMMARY (3+)
- talk: p = 0.90 if someone has news on mind, else 0.55 (+0.10 if a talkative/sociable
  trait present, -0.20 if anyone is sleeping or it is before 06:30 or after 22:00).
- Lines: 2-6 (group 2-10): greeting, the news holder tells the event with p = 0.85
  (same wording rules as the turn), the listener answers by the hearing rule above,
  goodbye.  Group: each listener answers independently.
- Leakage: a person repeats an event only the OTHER one knows p = 0.04.
- Memos built from the lines with the memo rules above (one per person).
- Malformations: truncated JSON p = 0.03; a line's speaker not in enum (first name)
  p = 0.03; "second"/one memo null p = 0.02.

DAILY PLAN
- wake_up_hour from the lifestyle ("wakes up at ..."), +1 h with p = 0.10.
- Blocks: getting ready 30 min, breakfast, work span from lifestyle (split by lunch at
  12:00), free time, dinner at 18:30, relaxing, sleep at bed time; on Saturday/Sunday a
  worker takes the day off with p = 0.50.
- Events of TODAY the person hosts: block at the event time p = 0.92; events they said
  they would go to: p = 0.80; events merely heard of: p = 0.30.  Events of tomorrow put
  on today by mistake p = 0.10.  Past events ignored.
- If the prompt says they have news to tell and lists where people are: one "seeing
  people at X" block in free time p = 0.60.
- Malformations: truncated JSON p = 0.03; address not in enum p = 0.03; outline of 3
  items p = 0.02; a second lunch block p = 0.04 (valid JSON, rule broken).

DECOMPOSE
- 8-12 steps of 5-15 minutes, generic start/middle/finish vocabulary for the activity,
  objects from the enum used in turns, durations summed near the requested window.
- Malformations: truncated p = 0.02; one step too few/many p = 0.03; a 20-minute step p = 0.03;
  object not in enum p = 0.02.

IMPORTANCE / IMPORTANCE BATCH
- Routine (sleep, meals, busy, relaxing, plan memos): 2 (1-3); chatting: 3 (2-4);
  an event / news / invitation: 6 (5-8); own hosted event: 7 (6-8); conflict, illness,
  death words: 8 (7-9).  Noise: +-1 with p = 0.3.
- Malformations: truncated p = 0.02; rating count off by one (batch) p = 0.04; value as
  string / out of range p = 0.01.

REFLECTION QUESTIONS / INSIGHTS
- Questions: 3 (2 with p = 0.15) about the people and activities most often named in the
  memories, plus the event if one is present ("What will X do about ...?").
- Insights: 1-3 per question, evidence = statements sharing a name or content word with
  it (1-4 numbers), importance 3-6 (event 6-7).  Malformations: truncated p = 0.04
  (long answers); evidence number out of range p = 0.03.

RELATIONSHIP: one or two sentences from memories about the other person (count of chats,
the event told/accepted).  Malformation: truncated p = 0.02.

REVISE "CURRENTLY": keeps old status, adds an upcoming event the person hosts (p =
0.90), accepted (p = 0.80) or merely heard (p = 0.45); a past event is kept stale with
p = 0.30.  Malformation: truncated p = 0.02.

REACT: observed person is someone the observer has untold news for: talk p = 0.60,
continue 0.30, wait 0.10.  Observer hosting and the person is coming to it: talk 0.50,
continue 0.45, wait 0.05.  Observer asleep: continue 0.95.  Otherwise continue 0.62, talk
0.25, wait 0.10, react 0.03.  Malformations: truncated p = 0.02; choice not in enum
("Talk", "talk to them") p = 0.03.

INTERVIEW: the question's content words are matched against the memories (>= 2 shared
content words or the host's name with one): known -> "Yes, ..." with what/when/where
copied (host speaking of self: first person p = 0.70, third-person confusion p = 0.30);
unknown -> "No, I haven't heard about that." with confabulation ("I think someone
mentioned it") p = 0.07.  Malformation: truncated p = 0.02.

PROBE: {"ok": true}, always valid.

GLOBAL FALLBACK MALFORMATION: an outright refusal/prose answer ("I'm sorry, I can't ...")
for any JSON purpose except probe, p = 0.01, drawn before the purpose rules.

Fixes after the first run
- decompose: the step count now follows the schema's minItems/maxItems (the prompt may
  ask for "2 to 6" steps); it was fixed at 8-12, an outright bug.  The "bad_count"
  malformation is now one below the minimum or one above the maximum.
- event reader: the gist ("what the event is") was cut mid-phrase and kept stray
  commas ("On , , the Workshop ... or a"); it now takes the intended action ("X's plan
  to ...") or the clause left after removing day/time phrases.
- place matcher: a person's surname inside the text ("Tomas Reyes") matched a home named
  after them ("Reyes cottage") at full weight, so events landed at the host's home; name
  words now weigh like generic words (0.3).
- a relative day word in a memory ("this morning") was read against the present instead
  of the memory's own [timestamp]; schedule-outline rows ("- x at 10:00") were read as
  events; both contrary to the declared reader.
- "current activity" matched the Identity line ("is the carpenter ..."); it now needs an
  -ing verb.
- interview / insight overlaps counted the person's own name words as shared content
  words, so any memory naming the host counted as knowing the event; names now only
  count through the declared "host's name with one word" rule.
- (second pass) outline rows containing a colon escaped the schedule-row filter; the
  interview read memory rows without their [timestamp], so "this morning" in a
  Saturday memory became Sunday.
- (fourth pass) an acceptance line ("count me in, this morning!") was itself read as a
  new event, so a host "declined" his own event; "count me in" is no longer an event
  marker.  A plan row that IS the heard event (same place, or >= 3 shared words) no
  longer counts as a clashing commitment.  Interview self-answer grammar ("I my plan").
- (third pass, from the made-up sentences) "half past six" was read as 18:00, and the
  rating scale "1 (small talk) to 10" in instructions was read as a 10:00 event time;
  "half/quarter past N" and number words before a clock word ("six in the evening")
  are now clock times, and the 1-to-10 scale is not a time.
"""

import hashlib
import json
import re

# ---------------------------------------------------------------- randomness

class _Rng:
    def __init__(self, seed, purpose, body):
        msgs = json.dumps(body.get("messages", []), sort_keys=True, ensure_ascii=True)
        self.base = "%s|%s|%s" % (seed, purpose, hashlib.sha256(msgs.encode("utf-8")).hexdigest())

    def u(self, key):
        h = hashlib.sha256((self.base + "|" + str(key)).encode("utf-8")).hexdigest()
        return int(h[:15], 16) / float(16 ** 15)

    def chance(self, key, p):
        return self.u(key) < p

    def pick(self, key, seq):
        seq = list(seq)
        if not seq:
            return None
        return seq[int(self.u(key) * len(seq)) % len(seq)]

    def randint(self, key, a, b):
        return a + int(self.u(key) * (b - a + 1)) % (b - a + 1)


# ---------------------------------------------------------------- calendar

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MON_RE = "(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_WD_RE = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"


def _days_from_civil(y, m, d):
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _civil_from_days(z):
    z += 719468
    era = (z if z >= 0 else z - 146096) // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return (y + (m <= 2), m, d)


def _iso(dn):
    y, m, d = _civil_from_days(dn)
    return "%04d-%02d-%02d" % (y, m, d)


def _weekday(dn):  # 0 = Monday
    return (dn + 3) % 7


def _wdname(dn):
    return WEEKDAYS[_weekday(dn)].capitalize()


def _human_date(dn):
    y, m, d = _civil_from_days(dn)
    return "%s %s %d" % (_wdname(dn), MONTHS[m - 1].capitalize(), d)


# ---------------------------------------------------------------- times

_NAMED_TIMES = [
    (r"\bmidday\b|\bnoon\b", 12 * 60),
    (r"\bmidnight\b", 0),
    (r"\bafter work\b|\bafter (?:the )?shop closes\b", 17 * 60 + 30),
    (r"\bsundown\b|\bsunset\b|\bdusk\b|\bnightfall\b", 19 * 60 + 30),
    (r"\bdawn\b|\bsunrise\b|\bfirst light\b", 6 * 60),
    (r"\blunch ?time\b", 12 * 60),
    (r"\btea ?time\b", 16 * 60),
    (r"\btonight\b|\bthis evening\b", 19 * 60),
]

_CLOCK_RE = re.compile(
    r"(?<![\d:])(\d{1,2})(?:[:.](\d{2}))?\s*"
    r"(a\.?m\.?\b|p\.?m\.?\b|o'clock|in the morning|in the afternoon|in the evening|at night)?",
    re.I)


def _strip_dates(s):
    s = re.sub(r"\b\d{4}-\d{2}-\d{2}\b", " ", s)
    s = re.sub(_MON_RE + r"\s+\d{1,2}(?:st|nd|rd|th)?(?:,\s*\d{4})?", " ", s)
    s = re.sub(r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MON_RE, " ", s)
    s = re.sub(r"\b\d+\s*(?:min(?:ute)?s?|hours?|people|person|years?|days?)\b", " ", s, flags=re.I)
    s = re.sub(r"\b1\s*(?:\([^)]*\))?\s*(?:to|-)\s*10\b", " ", s)
    _nw = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
    s = re.sub(r"\b(" + "|".join(_nw) + r")\b(?=\s*(?:o'clock|am|pm|in the|at night)|\s*$|[,.;])",
               lambda m: str(_nw.index(m.group(1).lower()) + 1), s, flags=re.I)
    s = re.sub(r"\b(half|quarter) past (" + "|".join(_nw) + r")\b",
               lambda m: "%s past %d" % (m.group(1), _nw.index(m.group(2).lower()) + 1), s, flags=re.I)
    s = re.sub(r"\bhalf past (\d{1,2})\b", lambda m: "%s:30" % m.group(1), s, flags=re.I)
    s = re.sub(r"\bquarter past (\d{1,2})\b", lambda m: "%s:15" % m.group(1), s, flags=re.I)
    return s


def _clock_tokens(s):
    out = []
    s2 = _strip_dates(s)
    for m in _CLOCK_RE.finditer(s2):
        h = int(m.group(1))
        mi = int(m.group(2)) if m.group(2) else 0
        suf = (m.group(3) or "").lower()
        if h > 23 or mi > 59:
            continue
        if not suf and not m.group(2):
            # bare number: only a time when a time word sits right around it
            ctx = s2[max(0, m.start() - 12):m.start()].lower()
            if not re.search(r"(at|from|between|until|till|to|and|by|around|about)\s*$", ctx):
                continue
        if suf.startswith("p") or suf in ("in the afternoon", "in the evening", "at night"):
            if h < 12:
                h += 12
        elif suf.startswith("a") or suf == "in the morning":
            if h == 12:
                h = 0
        elif 1 <= h <= 6 and (not m.group(2) or s2[m.start():m.end()].endswith(":30") or s2[m.start():m.end()].endswith(":15")):
            h += 12
        out.append((m.start(), h * 60 + mi))
    for pat, val in _NAMED_TIMES:
        for m in re.finditer(pat, s2, re.I):
            out.append((m.start(), val))
    out.sort()
    return [v for _, v in out]


def parse_span(s):
    """(start, end) minutes from a text, end may be None; None when no time."""
    t = _clock_tokens(s)
    if not t:
        low = s.lower()
        for w, v in (("morning", 9 * 60), ("afternoon", 14 * 60), ("evening", 18 * 60)):
            if re.search(r"\b(?:in the|this|tomorrow|on \w+) " + w + r"\b", low):
                return (v, None)
        return None
    start = t[0]
    end = None
    if len(t) >= 2 and t[1] > start and re.search(r"between|from|until|till|to |-|and", s, re.I):
        end = t[1]
    return (start, end)


def _hm(m):
    m %= 24 * 60
    return "%02d:%02d" % (m // 60, m % 60)


def _spoken_time(m):
    h, mi = divmod(m % 1440, 60)
    if m == 12 * 60:
        return "noon"
    suf = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return ("%d%s" % (h12, suf)) if mi == 0 else ("%d:%02d%s" % (h12, mi, suf))


# ---------------------------------------------------------------- text helpers

_STOP = set("""a an the and or but of to in on at for with by from as is are was were be been
being it its this that these those there here he she they them his her their i me my we our
you your has have had will would can could should may might do does did not no yes so if
then than into over about up out just very more most some any all each every other one two
what when where who whom which while after before until till between during also only own
same such too s t don now today tomorrow anybody anyone everyone people person""".split())


def _words(s):
    return re.findall(r"[a-z][a-z']+", s.lower())


def _content(s, drop=()):
    out = []
    for w in _words(s):
        if w in drop:
            continue
        if w not in _STOP and len(w) > 2 and w not in out:
            out.append(w)
    return out


_NAME_RE = re.compile(r"\b([A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?) ([A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?)\b")
_NOT_NAME_FIRST = set(WEEKDAYS + MONTHS + ["the", "on", "at", "in", "village", "post", "plough",
                                           "answer", "name", "what", "how", "have", "it", "today",
                                           "innate", "places", "lines", "things", "someone", "from",
                                           "nobody", "question", "memory", "step", "right", "keep",
                                           "then", "when", "with", "where", "who", "one"])


def _first_person(text, body):
    m = re.search(r"(?im)^\s*name\s*[:\-]\s*([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)+)", text)
    if m:
        return m.group(1).strip()
    for msg in body.get("messages", []):
        m = re.search(r"\b(?:of|as|are|play(?:ing)?)\s+([A-Z][a-z]+ [A-Z][a-z]+)", msg.get("content", ""))
        if m:
            return m.group(1)
    m = _NAME_RE.search(text)
    return m.group(0) if m else "I"


def _people(text, schema_names=()):
    names = []
    for n in schema_names:
        if n not in names and n.lower() != "everyone":
            names.append(n)
    for m in re.finditer(r"(?im)^\s*name\s*[:\-]\s*([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)+)", text):
        if m.group(1) not in names:
            names.append(m.group(1).strip())
    counts = {}
    for m in _NAME_RE.finditer(text):
        if m.group(1).lower() in _NOT_NAME_FIRST:
            continue
        counts[m.group(0)] = counts.get(m.group(0), 0) + 1
    for n, c in counts.items():
        if c >= 2 and n not in names and not any(n.split()[1] == x for x in ("Inn", "Office", "Green", "Hall", "Room", "House", "Cottage", "Street", "Lane")):
            # a name that also appears with a person verb
            if re.search(re.escape(n) + r"(?:'s)? (?:is|was|has|said|says|told|heard|means|chatted|learned|started|remembers|knows|sees)\b", text) or re.search(r'\b' + re.escape(n) + r':\s*"', text):
                names.append(n)
    return names


def _first(name):
    return name.split()[0] if name else name


def _places_in(text):
    out = []
    for m in re.finditer(r"\b([A-Z][\w' ]*?:[A-Z][\w' ]*?:[\w' ]+?)(?=[\s,;)\n]|$)", text):
        p = m.group(1).strip()
        if p not in out:
            out.append(p)
    return out


_GENERIC_PLACE = set(["bedroom", "room", "house", "cottage", "flat", "rooms", "home"])


def _place_tokens(place):
    parts = place.split(":")
    core = parts[1:] if len(parts) > 2 else parts
    toks = []
    for p in core:
        for w in _words(p):
            if w not in _STOP and w not in toks:
                toks.append(w)
    return toks


def match_place(text, places, prefer_people=()):
    best, score = "", 0.0
    low = set(_words(text))
    namey = set(w.lower() for w in re.findall(r"\b[A-Z][a-z]+ ([A-Z][a-z]+)\b", text))
    for p in places:
        sc = 0.0
        for w in _place_tokens(p):
            if w in low:
                sc += 0.3 if (w in _GENERIC_PLACE or w in namey) else 1.0
        if sc > score:
            best, score = p, sc
    return best if score >= 1.0 else ""


def _short_place(place):
    if not place:
        return ""
    parts = place.split(":")
    return parts[1] if len(parts) > 2 else parts[-1]


def _traits(text):
    m = re.search(r"(?im)^\s*(?:innate )?traits?\s*[:\-]\s*(.+)$", text)
    return _words(m.group(1)) if m else []


_OUTGOING = ["sociable", "talkative", "energetic", "curious", "nosy", "friendly", "cheerful",
             "kind", "helpful", "practical", "outgoing", "warm", "generous"]
_WITHDRAWN = ["tired", "shy", "grumpy", "reserved", "lazy", "gloomy", "stubborn", "quiet",
              "aloof", "busy", "solitary"]


# ---------------------------------------------------------------- "now"

def _year(text):
    m = re.search(r"\b(20\d\d)\b", text)
    return int(m.group(1)) if m else 2026


def _date_at(s, year, ref_dn=None):
    """Day number of the first explicit date in s (month-day, ISO, or weekday rel. to ref)."""
    m = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", s)
    best = []
    if m:
        best.append((m.start(), _days_from_civil(int(m.group(1)), int(m.group(2)), int(m.group(3)))))
    m = re.search("(" + _MON_RE + r")\s+(\d{1,2})(?:st|nd|rd|th)?\b", s)
    if m:
        mo = MONTHS.index(m.group(1).lower()) + 1
        best.append((m.start(), _days_from_civil(year, mo, int(m.group(2)))))
    m = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + _MON_RE + r")", s)
    if m:
        mo = MONTHS.index(m.group(2).lower()) + 1
        best.append((m.start(), _days_from_civil(year, mo, int(m.group(1)))))
    if ref_dn is not None:
        m = re.search(r"\b(today|tonight|this (?:morning|afternoon|evening))\b", s, re.I)
        if m:
            best.append((m.start(), ref_dn))
        m = re.search(r"\btomorrow\b", s, re.I)
        if m:
            best.append((m.start(), ref_dn + 1))
        m = re.search(r"\b(?:on|this|next|coming)?\s*(" + _WD_RE + r")s?\b", s)
        if m:
            wd = WEEKDAYS.index(m.group(1).lower())
            delta = (wd - _weekday(ref_dn)) % 7
            if re.match(r"\s*next", m.group(0), re.I) and delta == 0:
                delta = 7
            best.append((m.start() + 50, ref_dn + delta))  # explicit dates win
    if not best:
        return None
    best.sort()
    return best[0][1]


def find_now(text):
    """(day number, minutes) of the present."""
    year = _year(text)
    dn, mins = None, None
    for m in re.finditer(r"(?i)\b(?:it is|it's|today is|now|current (?:time|date)|date)\b[\s:,]*", text):
        seg = text[m.end():m.end() + 60]
        d = _date_at(seg, year)
        if d is not None:
            dn = d
            t = re.search(r"(?<!\d)(\d{1,2}):(\d{2})", seg)
            if t:
                mins = int(t.group(1)) * 60 + int(t.group(2))
            break
    if dn is None:
        m = re.search(r"(\d{4}-\d{2}-\d{2})\s*\(today", text)
        if m:
            dn = _date_at(m.group(1), year)
    if dn is None or mins is None:
        stamps = []
        for m in re.finditer(r"\[([^\]]{4,40})\]", text):
            d = _date_at(m.group(1), year)
            t = re.search(r"(\d{1,2}):(\d{2})", m.group(1))
            if d is not None and t:
                stamps.append((d, int(t.group(1)) * 60 + int(t.group(2))))
        if stamps:
            stamps.sort()
            if dn is None:
                dn = stamps[-1][0]
            if mins is None:
                mins = stamps[-1][1] if stamps[-1][0] == dn else 7 * 60
    if dn is None:
        dn = _days_from_civil(year, 1, 1)
    if mins is None:
        mins = 7 * 60
    return dn, mins


# ---------------------------------------------------------------- events

_JOIN = re.compile(
    r"\b(open to|anybody|anyone|everyone|everybody|all welcome|welcome|invit\w*|join|come along|"
    r"come by|drop by|bring|hosting|hosts?|holding|holds|organi[sz]\w+|has it in mind|means to|"
    r"plans? to|planning|will be (?:holding|running|showing|giving|open)|there will be|there's a|"
    r"there is a|is having a|is throwing|party|fair|market|match|meeting|class|lesson|concert|"
    r"picnic|supper|tasting|sale|service|festival|show|game|practice|talk|gathering|get-together|"
    r"celebrat\w+|dance|reading|contest|competition|quiz|feast|barbecue|bonfire|ceremony|"
    r"rehearsal|session|demonstration|open day|open house)\b", re.I)
_ROUTINE = re.compile(
    r"\b(every|each (?:day|morning|evening|week)|usually|daily|always|wakes? up|goes to bed|"
    r"works? at .{0,40}from|on weekdays|most days)\b", re.I)
_PAST = re.compile(r"\b(yesterday|last (?:week|night|month|year|\w+day)|was held|went to|used to|"
                   r"had been|ago)\b", re.I)
_DAYWORD = re.compile(r"\b(today|tonight|tomorrow|this (?:morning|afternoon|evening)|" + _WD_RE +
                      r"|" + _MON_RE + r"\s+\d{1,2}|\d{4}-\d{2}-\d{2})\b", re.I)


def _sentences(text):
    text = re.sub(r"\[[^\]]{0,40}\]", " ", text)
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z\"])|\n+|\s/\s", text)
    return [p.strip() for p in parts if p and p.strip()]


def event_from(sentence, now_dn, year, places, people):
    s = sentence
    if re.match(r"^\s*-?\s*\d{1,2}:\d{2}\s*-\s*\d{1,2}:\d{2}", s):
        return None
    if re.search(r"'s plan for|\bplan for \d|schedule:", s, re.I):
        return None
    if not _JOIN.search(s):
        return None
    if _ROUTINE.search(s) or _PAST.search(s):
        return None
    span = parse_span(s)
    has_day = _DAYWORD.search(s) is not None
    if span is None and not has_day:
        return None
    if span is None and not re.search(r"\b(invit|party|fair|market|match|meeting|class|lesson|concert|picnic|supper|festival|gathering|open)\w*", s, re.I):
        return None
    dn = _date_at(s, year, now_dn)
    start, end = (span if span else (None, None))
    if dn is None:
        dn = now_dn if (start is not None) else None
    host = ""
    best = 10 ** 6
    for p in people:
        i = s.find(p)
        if i >= 0 and i < best:
            best, host = i, p
    place = match_place(s, places)
    return {"text": s.strip(), "date": dn, "start": start,
            "end": end if end is not None else (start + 120 if start is not None else None),
            "place": place, "host": host}


def find_events(text, now_dn, places, people):
    year = _year(text)
    out = []
    items = []
    for line in text.split("\n"):
        ref = now_dn
        m = re.match(r"\s*(?:-|\d+\.)?\s*\[([^\]]{4,40})\]", line)
        if m:
            d = _date_at(m.group(1), year)
            if d is not None:
                ref = d
        elif re.match(r"\s*-\s*.{0,220}\bat \d{1,2}:\d{2}\s*$", line):
            continue
        for s in _sentences(line):
            items.append((s, ref))
    for s, ref in items:
        s2 = re.sub(r'^[A-Z][a-z]+ [A-Z][a-z]+:\s*"', "", s).strip('"')
        ev = event_from(s2, ref, year, places, people)
        if not ev:
            continue
        dup = False
        for e in out:
            if e["date"] == ev["date"] and e["start"] == ev["start"] and (e["place"] == ev["place"] or not ev["place"] or not e["place"]):
                dup = True
                if len(ev["text"]) > len(e["text"]) and ev["start"] is not None:
                    e["text"] = ev["text"]
                if not e["place"]:
                    e["place"] = ev["place"]
                if not e["host"]:
                    e["host"] = ev["host"]
                break
        if not dup:
            out.append(ev)
    return out


def _clean_event_text(ev, speaker, max_len=230):
    s = ev["text"]
    # drop the trailing "and he will mention it to people" style clause
    s = re.sub(r",?\s*and (?:he|she|they) (?:will|would) (?:mention|tell|spread)[^.]*", "", s)
    s = re.sub(r"\s*\((?:that is|i\.e\.)[^)]*\)", "", s)
    if speaker:
        s = s.replace(speaker + "'s", "my")
        s = re.sub(re.escape(speaker) + r" has it in mind", "I have it in mind", s)
        s = re.sub(re.escape(speaker) + r" (is|was)\b", lambda m: "I am" if m.group(1) == "is" else "I was", s)
        s = re.sub(re.escape(speaker) + r" (\w+)s\b", r"I \1", s)
        s = s.replace(speaker, "I")
    s = s.strip().rstrip(".")
    if len(s) > max_len:
        cut = s[:max_len]
        i = max(cut.rfind(","), cut.rfind(":"), cut.rfind(";"))
        s = cut[:i] if i > 60 else cut.rsplit(" ", 1)[0]
    return s


def _gist(ev, speaker=""):
    """a few words saying what the event is"""
    s = _clean_event_text(ev, speaker, 400)
    s = re.sub(r"^[\s\-\"']+", "", s)
    s = re.sub(r"^(?:have you heard\?|guess what,?|listen,?|oh, by the way,?|i wanted to tell you:?)\s*", "", s, flags=re.I)
    m = re.search(r"(?:has it in mind|have it in mind|means|plans|intends|wants|is going|am going|will)\s+(?:to\s+)?([a-z][^:;]{8,})", s)
    if m:
        rest = re.split(r",? and (?:he|she|they|I) ", m.group(1))[0]
        who = "my" if ev.get("host") and ev.get("host") == speaker else ((_first(ev["host"]) + "'s") if ev.get("host") else "a")
        out = "%s plan to %s" % (who, rest)
    else:
        t = re.sub(r"\b(?:on |this |next )?(?:" + _WD_RE + r")\b,?", " ", s)
        t = re.sub(_MON_RE + r"\s+\d{1,2}(?:st|nd|rd|th)?,?", " ", t)
        t = re.sub(r"\b(?:between|from)\s+[^,:;]*?\b(?:and|to|until|till)\s+[^,:;]*?(?=[,:;]|$)", " ", t)
        t = re.sub(r"\b(?:at|by|around)\s+\d{1,2}(?::\d{2})?\s*(?:am|pm|o'clock)?", " ", t)
        t = re.sub(r"\b(today|tonight|tomorrow|this (?:morning|afternoon|evening))\b", " ", t, flags=re.I)
        parts = [p for p in re.split(r"[:;]", t) if p.strip()]
        out = max(parts, key=lambda p: len(_content(p))) if parts else t
    out = re.sub(r"\s+", " ", out).strip(" ,.-")
    out = re.sub(r"^(?:on|at|,)\s+", "", out)
    w = out.split()
    if len(w) > 18:
        out = " ".join(w[:18])
    return out or "a get-together"


def _when_words(ev, now_dn, rng=None, key="", slip=0.0):
    parts = []
    if ev["date"] is not None:
        d = ev["date"]
        if rng is not None and slip and rng.chance(key + "slip", slip):
            d = now_dn if d != now_dn else now_dn + 1
        if d == now_dn:
            parts.append("today")
        elif d == now_dn + 1:
            parts.append("tomorrow")
        else:
            parts.append("on " + _wdname(d))
    if ev["start"] is not None:
        if ev.get("end") is not None and ev["end"] != ev["start"] + 120:
            parts.append("from %s to %s" % (_spoken_time(ev["start"]), _spoken_time(ev["end"])))
        else:
            parts.append("at %s" % _spoken_time(ev["start"]))
    return " ".join(parts)


# ---------------------------------------------------------------- plans

_PLAN_ROW = re.compile(r"(?m)^\s*-\s*(\d{1,2}):(\d{2})\s*[-\u2013]\s*(\d{1,2}):(\d{2})\s+(.+?)\s*(?:\((?:planned at )?([^()]*:[^()]*)\))?\s*$")


def parse_plan_rows(block):
    rows = []
    for m in _PLAN_ROW.finditer(block):
        s = int(m.group(1)) * 60 + int(m.group(2))
        e = int(m.group(3)) * 60 + int(m.group(4))
        if e <= s:
            e += 1440
        rows.append((s, e, m.group(5).strip(), (m.group(6) or "").strip()))
    return rows


_COMMIT = re.compile(r"\b(calling on|meeting|appointment|going to|hosting|visit\w*|party|fair|"
                     r"class|lesson|match|concert|service|event)\b", re.I)


def plan_conflict(rows, ev, now_dn, people):
    """'commit' text, 'work', or ''"""
    if ev["start"] is None or ev["date"] != now_dn:
        return ""
    s, e = ev["start"], ev["end"] or ev["start"] + 60
    kind = ""
    for (a, b, act, _pl) in rows:
        if a < e and s < b:
            if (ev["place"] and _pl == ev["place"]) or len([w for w in _content(act) if w in _content(ev["text"])]) >= 3:
                continue  # the same event already in the plan
            if _COMMIT.search(act) or any(p in act for p in people):
                if _gist(ev)[:10].lower() not in act.lower():
                    return act
            if re.search(r"\b(busy|work\w*|shift|serving|teaching|open(?:ing)? the)\b", act, re.I):
                kind = "work"
    return kind


# ---------------------------------------------------------------- request context

def _schema_of(body):
    rf = body.get("response_format") or {}
    if not isinstance(rf, dict):
        return None
    js = rf.get("json_schema")
    if isinstance(js, dict):
        return js.get("schema") or None
    if rf.get("type") == "json_object":
        return {}
    return rf.get("schema")


def _resolve(schema, node):
    if isinstance(node, dict) and "$ref" in node:
        name = node["$ref"].split("/")[-1]
        return _resolve(schema, (schema.get("$defs") or schema.get("definitions") or {}).get(name, {}))
    if isinstance(node, dict) and "anyOf" in node:
        for alt in node["anyOf"]:
            r = _resolve(schema, alt)
            if r.get("type") != "null":
                return r
    return node if isinstance(node, dict) else {}


def _collect_enums(schema, node, out, path=""):
    node = _resolve(schema, node)
    if not isinstance(node, dict):
        return
    if "enum" in node:
        out.setdefault(path.split(".")[-1], [])
        for v in node["enum"]:
            if v not in out[path.split(".")[-1]]:
                out[path.split(".")[-1]].append(v)
    for k, v in (node.get("properties") or {}).items():
        _collect_enums(schema, v, out, k)
    if "items" in node:
        _collect_enums(schema, node["items"], out, path)


class Ctx:
    def __init__(self, body):
        self.body = body
        msgs = body.get("messages", [])
        self.system = "\n".join(m.get("content", "") for m in msgs if m.get("role") == "system")
        self.text = "\n".join(m.get("content", "") for m in msgs if m.get("role") != "system")
        self.schema = _schema_of(body)
        self.enums = {}
        if self.schema:
            _collect_enums(self.schema, self.schema, self.enums)
        self.me = _first_person(self.text, body)
        name_enum = []
        for k in ("speaker", "name", "addressed_to"):
            for v in self.enums.get(k, []):
                if isinstance(v, str) and v and v not in name_enum and v.lower() != "everyone":
                    name_enum.append(v)
        self.people = _people(self.text, [self.me] + name_enum)
        plc = []
        for k, vals in self.enums.items():
            for v in vals:
                if isinstance(v, str) and v.count(":") >= 1 and v not in plc:
                    plc.append(v)
        for p in _places_in(self.text):
            if p not in plc:
                plc.append(p)
        self.places = plc
        self.now_dn, self.now_min = find_now(self.text)
        self.year = _year(self.text)
        self.events = [e for e in find_events(self.text, self.now_dn, self.places, self.people)]
        self.lines = [(m.group(1), m.group(2)) for m in re.finditer(
            r'(?m)^\s*([A-Z][\w\'\-]+(?: [A-Z][\w\'\-]+)+):\s*"(.*)"\s*$', self.text)]
        self.paras = self._paras()

    def _paras(self):
        out = {}
        for para in re.split(r"\n\s*\n", self.text):
            first = para.strip().split("\n")[0]
            who = None
            pos = 10 ** 6
            for p in self.people:
                i = first.find(p)
                if 0 <= i < pos:
                    who, pos = p, i
            if who:
                out[who] = out.get(who, "") + "\n" + para
        return out

    def info(self, person):
        return self.paras.get(person, "") or (self.text if person == self.me else "")

    def others(self):
        return [p for p in self.people if p != self.me]

    def future(self, ev):
        if ev["date"] is None:
            return True
        if ev["date"] > self.now_dn:
            return True
        if ev["date"] == self.now_dn:
            return ev["end"] is None or ev["end"] > self.now_min
        return False

    def news_of(self, person):
        """event on person's mind to tell, or None"""
        txt = self.info(person)
        for s in _sentences(txt):
            if person not in s and not re.match(r"\s*(?:they|he|she)\b", s, re.I):
                continue
            if re.search(r"\bno news\b|\bnothing to (?:tell|pass|share)\b|\bnot (?:have|got) any news\b", s, re.I):
                if s.find(person) >= 0 and s.find(person) < 5:
                    return None
                continue
            if not re.search(r"\b(news|tell|pass (?:it )?on|share|mention|spread the word|on (?:their|his|her) mind)\b", s, re.I):
                continue
            ev = event_from(s, self.now_dn, self.year, self.places, self.people)
            if ev and self.future(ev):
                return ev
        return None

    def known_events(self, person):
        txt = self.info(person)
        return [e for e in find_events(txt, self.now_dn, self.places, self.people) if self.future(e)]

    def plan_rows(self, person):
        return parse_plan_rows(self.info(person))

    def traits(self, person):
        return _traits(self.info(person))


def _mentioned(ev, lines):
    cw = _content(_gist(ev))
    for _s, t in lines:
        tw = _content(t)
        if len([w for w in cw if w in tw]) >= 3:
            return True
        if ev["start"] is not None and (_spoken_time(ev["start"]) in t or _hm(ev["start"]) in t) and _DAYWORD.search(t):
            return True
    return False


_YES = re.compile(r"count me in|i'?ll (?:be there|come|go|join|drop by|stop by|pop (?:in|by|over|along)|bring|head over|try to make it)|"
                  r"i will (?:come|be there|go|join)|see you there|wouldn'?t miss|i'?d love to(?!,? but)|i'?m in\b|"
                  r"sounds (?:lovely|good|great|fun|useful|wonderful)|yes,? (?:i'?ll|please)|i'?ll see you", re.I)
_NO = re.compile(r"\b(can'?t|cannot|won'?t be able|busy then|not for me|not really my|another time|"
                 r"i'?d love to,? but|unfortunately|afraid i)\b", re.I)
_MAYBE = re.compile(r"\b(maybe|might|perhaps|see if|if i can|not sure)\b", re.I)
_BYE = re.compile(r"\b(bye|goodbye|see you around|take care|good to talk|must be going|have to go|see you later)\b", re.I)


def classify_reply(t):
    if _NO.search(t):
        return "no"
    if _MAYBE.search(t) and not re.search(r"count me in|i'?ll be there", t, re.I):
        return "maybe"
    if _YES.search(t):
        return "yes"
    return ""


def p_go(ctx, person, ev, teller):
    info = ctx.info(person)
    tr = ctx.traits(person)
    p = 0.50
    if any(t in tr for t in _OUTGOING):
        p += 0.15
    if any(t in tr for t in _WITHDRAWN):
        p -= 0.15
    if teller and re.search(r"(?:not know|doesn'?t know|hardly knows|barely knows) " + re.escape(teller) + r"|does not know " + re.escape(teller), info):
        p -= 0.10
    c = plan_conflict(ctx.plan_rows(person), ev, ctx.now_dn, ctx.people)
    if c == "work":
        p -= 0.10
    elif c:
        p = 0.20
    return max(0.10, min(0.85, p)), (c if c not in ("", "work") else "")


def _tell_line(ctx, rng, key, speaker, ev, listener):
    r = rng.u(key + "form")
    place = _short_place(ev["place"])
    if r < 0.70:
        core = _clean_event_text(ev, speaker)
        when = _when_words(ev, ctx.now_dn, rng, key, 0.05)
        opener = rng.pick(key + "op", ["Have you heard?", "Oh, by the way,", "Listen,", "I wanted to tell you:", "Guess what,"])
        tail = rng.pick(key + "tail", [" Do come along!", " You should come by.", "", " It would be nice to see you there."]) if ev["host"] == speaker else rng.pick(key + "tail", ["", " Might be worth a look."])
        return "%s %s (%s).%s" % (opener, core[0].upper() + core[1:] if core else core, when, tail) if when else "%s %s.%s" % (opener, core, tail)
    gist = _gist(ev, speaker)
    if r < 0.92:
        when = _when_words(ev, ctx.now_dn, rng, key, 0.05)
        who = "I'm" if ev["host"] == speaker else ((_first(ev["host"]) + " is") if ev["host"] else "There's")
        if who == "There's":
            return "There's something on%s %s: %s. Thought you'd like to know." % ((" at the " + place) if place else "", when, gist)
        return "%s putting on something%s %s: %s. Come if you can!" % (who, (" at the " + place) if place else "", when, gist)
    return "There's going to be something%s soon, %s. You should come." % ((" at the " + place) if place else "", gist)


def _reply_to_event(ctx, rng, key, me, ev, teller):
    p, commit = p_go(ctx, me, ev, teller)
    r = rng.u(key + "go|" + _gist(ev)[:40])
    when = _when_words(ev, ctx.now_dn)
    if r < p:
        if rng.chance(key + "namewhen", 0.5) and when:
            return "yes", rng.pick(key + "yes", ["Oh, I'd like that. I'll come by %s." % when,
                                                  "Sounds lovely, count me in, %s!" % when,
                                                  "That sounds useful, I'll be there %s." % when])
        return "yes", rng.pick(key + "yes2", ["Sounds lovely, count me in!", "Oh, that's a good idea. I'll be there.",
                                                "I'd love to, I'll come along.", "Good to know, I'll drop by."])
    if rng.u(key + "maybe") < 0.35:
        return "maybe", rng.pick(key + "mb", ["Maybe, if I have time. Thanks for telling me.",
                                              "I might drop by, I'll see if I can make it.",
                                              "Hm, I'm not sure yet, but thanks."])
    if commit:
        return "no", "I'd love to, but I'm %s then. Maybe another time?" % commit.split("(")[0].strip()
    return "no", rng.pick(key + "no", ["That's nice, but it's not really my thing. Good luck with it.",
                                        "I'm afraid I can't make it, but thanks for telling me.",
                                        "Sorry, I'm busy then."])


def _current_activity(ctx, person):
    for a, b, act, _pl in ctx.plan_rows(person):
        if a <= ctx.now_min < b or a <= ctx.now_min + 1440 < b:
            return act.split("(")[0].strip()
    m = re.search(re.escape(person) + r" (?:was|is) ([a-z]+ing\b[^.()\n]{0,60})", ctx.text)
    return m.group(1).strip() if m else ""


def _small_talk(ctx, rng, key, me, other, n, last):
    f = _first(other) if other else ""
    if n == 0:
        return rng.pick(key + "hi", ["Hi %s! How are you doing?" % f, "Morning, %s. All well?" % f if ctx.now_min < 720 else "Hello %s, how's your day going?" % f,
                                      "Hello %s! Good to see you." % f])
    if last and re.search(r"\?\s*$", last[1]) and n <= 2:
        act = _current_activity(ctx, me)
        return rng.pick(key + "fine", ["Fine, thanks, %s. Just %s." % (f, act) if act else "Fine, thanks, %s." % f,
                                        "Not bad at all. And you?", "Good, thanks! Busy as ever."])
    mem = ""
    rows = [s for s in _sentences(ctx.info(me)) if other and other in s and len(s) < 140 and not s.startswith("What ")]
    if rows and rng.chance(key + "mem", 0.3):
        mem = rows[-1]
        mem = re.sub(r"\s*\((?:starting|finishing)[^)]*\)", "", mem).replace(other, f).replace(me, "I").strip(" -.")
        return "I remember %s." % (mem[0].lower() + mem[1:])
    return rng.pick(key + "st", ["Lovely day for it, isn't it?", "It's been a busy week.", "How's work going?",
                                  "Anything new with you?", "Well, I'd better get on.", "Good to catch up, %s." % f])


def speak(ctx, rng, key, me, others, lines):
    """returns (text, kind) kind in tell/yes/no/maybe/bye/talk"""
    n = len(lines)
    last_other = None
    for s, t in reversed(lines):
        if s != me:
            last_other = (s, t)
            break
        else:
            break
    partner = last_other[0] if last_other else (others[0] if others else "")
    # 1. respond to an event just told
    if last_other:
        for ev in find_events(last_other[1], ctx.now_dn, ctx.places, ctx.people):
            if not ev["host"] and re.search(r"\b(I|I'm|I am|my|we)\b", last_other[1]):
                ev["host"] = last_other[0]
            if ev["host"] == me or _mentioned(ev, [(s, t) for s, t in lines if s == me]):
                continue
            if not ctx.future(ev):
                continue
            kind, text = _reply_to_event(ctx, rng, key + "hear|", me, ev, last_other[0])
            return text, kind
    # 2. own news
    news = ctx.news_of(me)
    if news and not _mentioned(news, lines):
        if rng.chance(key + "tell%d" % n, 0.80):
            return _tell_line(ctx, rng, key + "tl", me, news, partner), "tell"
    elif not news and re.search(re.escape(me) + r" has no news", ctx.text):
        heard = [e for e in ctx.known_events(me) if e["host"] != me and not _mentioned(e, lines)]
        if heard and rng.chance(key + "gossip%d" % n, 0.10):
            return _tell_line(ctx, rng, key + "gs", me, heard[0], partner), "tell"
    # 3. host hears acceptance
    if last_other and classify_reply(last_other[1]) == "yes":
        return rng.pick(key + "ack", ["Wonderful, see you there, %s!" % _first(last_other[0]), "Great, glad you can come.",
                                      "Good, I'll look out for you."]), "talk"
    if last_other and _BYE.search(last_other[1]):
        return rng.pick(key + "bye", ["Take care, %s. See you around!" % _first(last_other[0]), "Bye for now!",
                                      "It was good to talk, %s. See you around!" % _first(last_other[0])]), "bye"
    if n >= 4 and rng.chance(key + "late", 0.5):
        return rng.pick(key + "bye2", ["Well, I'd better get going. See you, %s!" % _first(partner), "Good to see you, take care!"]), "bye"
    return _small_talk(ctx, rng, key, me, partner, n, last_other), "talk"


def end_after(rng, key, kind, lines, n):
    last = lines[-1][1] if lines else ""
    if kind == "bye":
        return True
    if lines and _BYE.search(last):
        return rng.chance(key + "endbye", 0.85)
    if kind == "tell":
        return rng.chance(key + "endtell", 0.10)
    if n >= 6:
        return rng.chance(key + "end6", 0.80)
    if n >= 4:
        return rng.chance(key + "end4", 0.45)
    return rng.chance(key + "end", 0.15)


# ---------------------------------------------------------------- memos

def _date_enum_ok(ctx, iso):
    allowed = ctx.enums.get("plan_date")
    return (not allowed) or iso in allowed


def memo(ctx, rng, key, owner, lines, places):
    m = {"summary": "", "importance": 2, "plan_activity": "", "plan_date": "", "plan_start": "",
         "plan_minutes": 0, "plan_place": ""}
    others = []
    for s, _t in lines:
        if s != owner and s not in others:
            others.append(s)
    who = " and ".join(others) if others else "someone"
    ev, teller, idx = None, "", -1
    for i, (s, t) in enumerate(lines):
        for e in find_events(t, ctx.now_dn, places or ctx.places, ctx.people):
            if not e["host"] and re.search(r"\b(I|I'm|I am|my|we)\b", t):
                e["host"] = s
            ev, teller, idx = e, s, i
            break
        if ev:
            break
    if not ev:
        topic = ""
        for s, t in lines:
            if s != owner and not _BYE.search(t) and len(t) > 20:
                topic = re.sub(r"\s*\([^)]*\)", "", t)[:80].rstrip(".!? ")
                break
        m["summary"] = ("%s chatted briefly with %s%s." % (owner, who, (" (\"%s\")" % topic) if topic and rng.chance(key + "tq", 0.5) else "")) if lines else "%s did not really talk with %s." % (owner, who)
        m["importance"] = max(1, min(10, 2 + (rng.randint(key + "imp", -1, 1) if rng.chance(key + "impn", 0.3) else 0)))
        return m
    gist = _gist(ev, "")
    when = _when_words(ev, ctx.now_dn)
    place = _short_place(ev["place"])
    replies = [classify_reply(t) for s, t in lines[idx + 1:] if s == owner]
    reply = "no" if "no" in replies else ("yes" if "yes" in replies else ("maybe" if "maybe" in replies else ""))
    if teller == owner:
        others_r = [classify_reply(t) for s, t in lines[idx + 1:] if s != owner]
        said = {"yes": "said they would come", "no": "could not come", "maybe": "might come"}.get(
            "yes" if "yes" in others_r else ("no" if "no" in others_r else ("maybe" if "maybe" in others_r else "")), "listened")
        m["summary"] = "%s told %s about %s %s%s; %s %s." % (owner, who, gist, when, (" at the " + place) if place else "", _first(others[0]) if others else "they", said)
        m["importance"] = 5
        plan_p = 0.20 if ev["host"] == owner else 0.0
    else:
        said = {"yes": "%s said they would go" % owner, "no": "%s said they could not go" % owner,
                "maybe": "%s might go" % owner, "": "%s did not say whether they would go" % owner}[reply]
        m["summary"] = "%s told %s about %s %s%s; %s." % (teller, owner, gist, when, (" at the " + place) if place else "", said)
        m["importance"] = 6 if reply == "yes" else 5
        plan_p = {"yes": 0.85, "maybe": 0.30, "": 0.10, "no": 0.03}[reply]
    if rng.chance(key + "impn", 0.3):
        m["importance"] = max(1, min(10, m["importance"] + rng.pick(key + "impd", [-1, 1, 2])))
    if len(m["summary"]) > 390:
        m["summary"] = m["summary"][:387] + "..."
    if rng.chance(key + "plan", plan_p):
        act = ("hosting: " if ev["host"] == owner else "going to: ") + gist
        m["plan_activity"] = act[:118]
        d = ev["date"] if ev["date"] is not None else ctx.now_dn
        if rng.chance(key + "wrongday", 0.07):
            d = ctx.now_dn
        iso = _iso(d)
        m["plan_date"] = iso if _date_enum_ok(ctx, iso) else ""
        m["plan_start"] = _hm(ev["start"]) if ev["start"] is not None else ""
        mins = (ev["end"] - ev["start"]) if (ev["start"] is not None and ev["end"]) else 120
        if rng.chance(key + "60", 0.2):
            mins = 60
        m["plan_minutes"] = max(0, min(600, mins))
        pl = ev["place"]
        allowed = ctx.enums.get("plan_place")
        if allowed and pl not in allowed:
            pl = match_place(ev["text"], [a for a in allowed if a])
        if rng.chance(key + "noplace", 0.10):
            pl = ""
        m["plan_place"] = pl
    return m


# ---------------------------------------------------------------- conversation simulation (summaries)

def simulate(ctx, rng, key, people, max_lines):
    lines = []
    first = people[0]
    anyone_news = any(ctx.news_of(p) for p in people)
    p = 0.90 if anyone_news else 0.55
    alltr = []
    for q in people:
        alltr += ctx.traits(q)
    if not anyone_news and any(t in alltr for t in ("talkative", "sociable", "chatty", "outgoing")):
        p += 0.10
    if ctx.now_min < 390 or ctx.now_min >= 1320 or any("sleeping" in _current_activity(ctx, q) for q in people):
        p -= 0.20
    if not rng.chance(key + "talk", p):
        return False, []
    # greeting
    lines.append((first, _small_talk(ctx, rng, key + "g0", first, people[1] if len(people) > 1 else "", 0, None)))
    order = people[1:] + people[:1]
    told = []
    i = 0
    while len(lines) < max_lines - 1 and i < 12:
        spk = order[i % len(order)]
        i += 1
        news = ctx.news_of(spk)
        if news and not _mentioned(news, lines) and rng.chance(key + "tell" + spk, 0.85):
            lines.append((spk, _tell_line(ctx, rng, key + "t" + spk, spk, news, "")))
            told.append(news)
            for lis in people:
                if lis != spk and len(lines) < max_lines - 1:
                    _k, txt = _reply_to_event(ctx, rng, key + "r" + lis, lis, news, spk)
                    lines.append((lis, txt))
            continue
        # leak: someone repeats another's untold news
        for q in people:
            if q != spk:
                nq = ctx.news_of(q)
                if nq and not _mentioned(nq, lines) and rng.chance(key + "leak" + spk, 0.04):
                    lines.append((spk, _tell_line(ctx, rng, key + "lk", spk, nq, "")))
                    break
        if len(lines) >= 2 and (rng.chance(key + "stop%d" % i, 0.5) or len(lines) >= 4):
            break
        if len(lines) == 1:
            lines.append((spk, _small_talk(ctx, rng, key + "s%d" % i, spk, first, 1, lines[-1])))
    bye_by = lines[-1][0] if lines else first
    bye_sp = [q for q in people if q != bye_by][0] if len(people) > 1 else first
    lines.append((bye_sp, rng.pick(key + "bye", ["It was good to talk, %s. See you around!" % _first(bye_by),
                                                   "Right, I'd better get on. Take care!", "See you later, %s!" % _first(bye_by)])))
    return True, lines[:max_lines]


# ---------------------------------------------------------------- purposes

def _purpose(body, schema):
    if schema is None:
        return "converse_turn"
    props = (schema.get("properties") or {}) if isinstance(schema, dict) else {}
    keys = set(props.keys())
    table = [("ok", "probe"), ("utterance", "group_turn"), ("ratings", "importance_batch"),
             ("steps", "decompose"), ("blocks", "daily_plan"), ("questions", "reflection_questions"),
             ("insights", "reflection_insights"), ("choice", "react"), ("answer", "interview"),
             ("currently", "revise_currently"), ("memos", "group_summary"), ("first", "conversation_summary"),
             ("talk", "conversation_summary"), ("plan_activity", "conversation_memo"),
             ("importance", "importance"), ("summary", "relationship")]
    for k, p in table:
        if k in keys:
            return p
    return "generic"


def do_converse(ctx, rng):
    others = ctx.others()
    text, kind = speak(ctx, rng, "cv|", ctx.me, others, ctx.lines)
    end = end_after(rng, "cv|", kind, ctx.lines, len(ctx.lines))
    tag = "[end]" if end else "[continue]"
    r = rng.u("cv|malform")
    if r < 0.06:
        return "%s: %s\n%s" % (ctx.me, text, tag), "name_prefix"
    if r < 0.11:
        return "\"%s\"\n%s" % (text, tag), "quoted"
    if r < 0.15:
        return text, "no_tag"
    if r < 0.19:
        return "%s %s" % (text, tag), "tag_inline"
    if r < 0.21 and others:
        return "%s: %s\n%s: %s\n%s" % (ctx.me, text, others[0], "Oh, really?", tag), "script"
    return "%s\n%s" % (text, tag), ""


def do_group_turn(ctx, rng):
    others = [p for p in ctx.enums.get("addressed_to", []) if p != "everyone"] or ctx.others()
    text, kind = speak(ctx, rng, "gt|", ctx.me, others, ctx.lines)
    end = end_after(rng, "gt|", kind, ctx.lines, len(ctx.lines))
    last = [s for s, _t in ctx.lines if s != ctx.me]
    if kind == "tell":
        to = "everyone" if rng.chance("gt|toall", 0.6) else (others[0] if others else "everyone")
    else:
        tgt = last[-1] if last and last[-1] in others else (others[0] if others else "everyone")
        to = tgt if rng.chance("gt|tolast", 0.7) else "everyone"
    obj = {"utterance": text[:400], "addressed_to": to, "end_conversation": bool(end)}
    r = rng.u("gt|malform")
    if r < 0.04 and to != "everyone":
        obj["addressed_to"] = _first(to)
        return obj, "bad_enum"
    if r < 0.08:
        obj["utterance"] = ("%s: %s" % (ctx.me, text))[:400]
        return obj, "name_prefix"
    if r < 0.10:
        return obj, "truncate"
    return obj, ""


def do_memo(ctx, rng):
    m = memo(ctx, rng, "mm|", ctx.me, ctx.lines, ctx.places)
    r = rng.u("mm|malform")
    if r < 0.03:
        return m, "truncate"
    if r < 0.06 and m["plan_place"]:
        m["plan_place"] = _short_place(m["plan_place"])
        return m, "bad_enum"
    if r < 0.08 and m["plan_date"]:
        y, mo, d = m["plan_date"].split("-")
        m["plan_date"] = _wdname(_days_from_civil(int(y), int(mo), int(d)))
        return m, "bad_enum"
    return m, ""


def do_conv_summary(ctx, rng, group):
    names = list(ctx.enums.get("speaker", [])) or ([ctx.me] + ctx.others()[:1])
    if ctx.me in names:
        names = [ctx.me] + [n for n in names if n != ctx.me]
    talk, lines = simulate(ctx, rng, "cs|", names, 10 if group else 6)
    obj = {"talk": talk, "lines": [{"speaker": s, "text": t[:300]} for s, t in lines]}
    if group:
        obj["memos"] = []
        if talk:
            for n in names:
                m = memo(ctx, rng, "cs|m" + n, n, lines, ctx.places)
                m["name"] = n
                obj["memos"].append(m)
    else:
        if talk:
            obj["first"] = memo(ctx, rng, "cs|f", names[0], lines, ctx.places)
            obj["second"] = memo(ctx, rng, "cs|s", names[1], lines, ctx.places) if len(names) > 1 else None
        else:
            obj["first"] = None
            obj["second"] = None
    r = rng.u("cs|malform")
    if r < 0.03:
        return obj, "truncate"
    if r < 0.06 and obj["lines"]:
        obj["lines"][0]["speaker"] = _first(obj["lines"][0]["speaker"])
        return obj, "bad_enum"
    if r < 0.08 and talk:
        if group and obj["memos"]:
            obj["memos"] = obj["memos"][:-1]
        else:
            obj["second"] = None
        return obj, "missing_memo"
    return obj, ""


def _lifestyle_times(info):
    m = re.search(r"(?im)^\s*lifestyle\s*[:\-]\s*(.+)$", info)
    life = m.group(1) if m else ""
    wake, bed, work = 7 * 60, 22 * 60, None
    mw = re.search(r"wakes? up (?:at )?([^,;]+)", life, re.I)
    if mw:
        t = _clock_tokens("at " + mw.group(1))
        if t:
            wake = t[0]
    mb = re.search(r"(?:bed|sleep)\w* (?:at )?([^,;]+)", life, re.I)
    if mb:
        t = _clock_tokens("at " + mb.group(1))
        if t:
            bed = t[0] if t[0] > 12 * 60 else t[0] + 12 * 60 * (t[0] < 6 * 60 and t[0] > 0)
    for cl in re.split(r",|;| and (?=\w+s )", life):
        if re.search(r"wake|bed|sleep", cl, re.I):
            continue
        sp = parse_span(cl)
        if sp and sp[1]:
            work = (sp[0], sp[1], cl.strip())
            break
    return wake, bed, work


def do_daily_plan(ctx, rng):
    me = ctx.me
    allowed = ctx.enums.get("address") or ctx.places
    info = ctx.text
    wake, bed, work = _lifestyle_times(info)
    wake_h = wake // 60
    if rng.chance("dp|late", 0.10):
        wake_h += 1
    wake = wake_h * 60
    sur = me.split()[-1].lower() if me else ""
    home = ""
    for p in allowed:
        if sur and sur in p.lower():
            home = p
            break
    if not home:
        home = next((p for p in allowed if re.search(r"home|house|cottage|flat|bedroom", p, re.I)), allowed[0] if allowed else "")
    workplace = match_place(work[2], allowed) if work else ""
    wd = _weekday(ctx.now_dn)
    day_off = work is not None and wd >= 5 and rng.chance("dp|dayoff", 0.5)
    blocks = [(wake, wake + 30, "waking up and getting ready", home, "\U0001F6BF"),
              (wake + 30, wake + 60, "having breakfast", home, "\U0001F373")]
    t = wake + 60
    social = [p for p in allowed if p not in (home, workplace)]
    lunch_place = rng.pick("dp|lunch", [home] + social) or home
    if work and not day_off and workplace:
        ws, we_, _c = work
        ws = max(ws, t)
        if ws > t:
            blocks.append((t, ws, "relaxing at home", home, "\u2615"))
        if ws < 720 < we_:
            blocks.append((ws, 720, "working at the " + _short_place(workplace).lower(), workplace, "\U0001F528"))
            blocks.append((720, 780, "having lunch", lunch_place, "\U0001F96A"))
            blocks.append((780, we_, "working at the " + _short_place(workplace).lower(), workplace, "\U0001F528"))
        else:
            blocks.append((ws, we_, "working at the " + _short_place(workplace).lower(), workplace, "\U0001F528"))
        t = we_
    else:
        fun = rng.pick("dp|fun", social) or home
        blocks.append((t, 720, "relaxing on a day off" if t < 720 else "relaxing", home, "\U0001F4D6"))
        blocks.append((720, 780, "having lunch", lunch_place, "\U0001F96A"))
        blocks.append((780, 960, "seeing people at the " + _short_place(fun).lower(), fun, "\U0001F44B"))
        t = 960
    if t < 1110:
        fun2 = rng.pick("dp|fun2", social + [home]) or home
        blocks.append((t, 1110, "relaxing" if fun2 == home else "seeing people at the " + _short_place(fun2).lower(), fun2, "\U0001F37A"))
        t = 1110
    blocks.append((t, max(t + 60, 1170), "having dinner", home, "\U0001F372"))
    t = max(t + 60, 1170)
    if bed > t:
        blocks.append((t, bed, "relaxing at home", home, "\U0001F4FA"))
        t = bed
    blocks.append((t, t + max(60, (wake + 1440 - t)), "sleeping", home, "\U0001F634"))
    # events
    outline_extra = []
    for ev in find_events(info, ctx.now_dn, ctx.places, ctx.people):
        if ev["start"] is None or ev["date"] is None:
            continue
        is_today = ev["date"] == ctx.now_dn
        if not is_today and not (ev["date"] == ctx.now_dn + 1 and rng.chance("dp|tomslip", 0.10)):
            continue
        if ev["host"] == me:
            p = 0.92
        elif re.search(r"count me in|said (?:they|he|she) would (?:go|come)|going to|means to go|I'll be there", info, re.I):
            p = 0.80
        else:
            p = 0.30
        if not rng.chance("dp|ev" + _gist(ev)[:20], p):
            continue
        s, e = ev["start"], ev["end"] or ev["start"] + 120
        place = ev["place"] if ev["place"] in allowed else (match_place(ev["text"], allowed) or home)
        act = ("hosting: " if ev["host"] == me else "going to: ") + _gist(ev, me)
        nb = []
        for (a, b, ac, pl, em) in blocks:
            if b <= s or a >= e:
                nb.append((a, b, ac, pl, em))
            else:
                if a < s:
                    nb.append((a, s, ac, pl, em))
                if b > e:
                    nb.append((e, b, ac, pl, em))
        nb.append((s, e, act[:110], place, "\u2B50"))
        nb.sort()
        blocks = nb
        outline_extra.append("%s at %s" % (act[:60], _spoken_time(s)))
    # telling news
    if re.search(re.escape(me) + r" has news", info) and rng.chance("dp|tell", 0.60):
        spots = [p for p in _places_in(info) if p in allowed and p != home]
        spot = rng.pick("dp|spot", spots) if spots else None
        if spot:
            for i, (a, b, ac, pl, em) in enumerate(blocks):
                if re.search(r"relax", ac) and b - a >= 60 and a >= wake + 60:
                    blocks[i] = (a, b, "seeing people at the " + _short_place(spot).lower(), spot, "\U0001F5E3")
                    outline_extra.append("tell people the news at the " + _short_place(spot))
                    break
    if rng.chance("dp|lunch2", 0.04):
        for i, (a, b, ac, pl, em) in enumerate(blocks):
            if ac.startswith("relax") and b - a >= 60:
                blocks[i] = (a, a + 60, "having lunch", pl, "\U0001F96A")
                blocks.insert(i + 1, (a + 60, b, ac, pl, em))
                break
    blocks = [b for b in blocks if b[1] - b[0] >= 5][:16]
    out_blocks = [{"start": _hm(a), "duration_minutes": max(5, min(960, b - a)), "activity": ac[:118],
                   "emoji": em, "address": pl} for (a, b, ac, pl, em) in blocks]
    outline = ["wake up at %s" % _spoken_time(wake)]
    if work and not day_off:
        outline.append("work at the %s from %s" % (_short_place(workplace), _spoken_time(work[0])))
    outline.append("have lunch at %s" % ("home" if lunch_place == home else "the " + _short_place(lunch_place)))
    outline += outline_extra[:3]
    outline += ["have dinner at home", "relax in the evening", "go to bed at %s" % _spoken_time(bed)]
    outline = outline[:8]
    obj = {"wake_up_hour": wake_h % 24, "outline": outline, "blocks": out_blocks}
    r = rng.u("dp|malform")
    if r < 0.03:
        return obj, "truncate"
    if r < 0.06:
        obj["blocks"][min(3, len(obj["blocks"]) - 1)]["address"] = _short_place(obj["blocks"][min(3, len(obj["blocks"]) - 1)]["address"]) or "home"
        return obj, "bad_enum"
    if r < 0.08:
        obj["outline"] = outline[:3]
        return obj, "bad_count"
    return obj, ""


def do_decompose(ctx, rng):
    objs = [o for o in ctx.enums.get("object", []) if o]
    m = re.search(r"\((\d+) minutes\)", ctx.text)
    total = int(m.group(1)) if m else 60
    m2 = re.search(r"first (\d+) minutes", ctx.text)
    if m2:
        total = int(m2.group(1))
    ma = re.search(r"(?:is|be) ([a-z][a-z ,']{3,60}?),? at [A-Z]", ctx.text)
    act = ma.group(1).strip() if ma else "the task"
    st_node = _resolve(ctx.schema, (ctx.schema.get("properties") or {}).get("steps", {})) if ctx.schema else {}
    lo, hi = int(st_node.get("minItems", 8)), int(st_node.get("maxItems", 12))
    n = rng.randint("dc|n", lo, hi)
    n = max(lo, min(hi, n, max(lo, total // 5)))
    base = ["getting started with %s" % act, "setting out what is needed", "checking the %s" % (objs[0] if objs else "space"),
            "working steadily", "taking a short break", "carrying on with %s" % act, "tidying up a little",
            "focusing on the main part", "checking progress", "finishing the current part", "cleaning up",
            "putting things away", "looking over the work"]
    if re.search(r"breakfast|lunch|dinner|eat", act):
        base = ["making coffee", "preparing food", "setting the table", "eating at the table", "chatting over food",
                "having a second cup", "clearing the plates", "washing the dishes", "drying the dishes",
                "wiping the table", "putting things away", "relaxing a moment", "checking the time"]
    if re.search(r"sleep", act):
        base = ["sleeping"] * 13
    steps = []
    per = max(5, min(15, total // n))
    left = total
    for i in range(n):
        d = per if i < n - 1 else max(5, min(15, left))
        left -= d
        ob = objs[i % len(objs)] if objs and rng.chance("dc|o%d" % i, 0.6) else ""
        st = "" if not ob else rng.pick("dc|s%d" % i, ["in use", "occupied", "being used"])
        steps.append({"activity": base[i % len(base)][:78], "duration_minutes": d, "object": ob, "object_state": st})
    obj = {"steps": steps}
    r = rng.u("dc|malform")
    if r < 0.02:
        return obj, "truncate"
    if r < 0.05:
        if rng.chance("dc|short", 0.5) and lo > 1:
            obj["steps"] = steps[:lo - 1]
        else:
            while len(steps) < hi + 1:
                steps.append(dict(steps[-1]))
        return obj, "bad_count"
    if r < 0.08:
        steps[0]["duration_minutes"] = 20
        return obj, "bad_range"
    if r < 0.10:
        steps[0]["object"] = "table"
        steps[0]["object_state"] = "in use"
        if "table" in objs:
            steps[0]["object"] = "chair-x"
        return obj, "bad_enum"
    return obj, ""


def _rate(ctx, rng, key, mem):
    low = mem.lower()
    if re.search(r"\b(died|death|funeral|fire|accident|ill|hospital|fight|quarrel|broke up|fired)\b", low):
        v = 8
    elif ctx.me and ev_in(ctx, mem) and ctx.me in mem and re.search(r"has it in mind|hosting|I am|my ", mem):
        v = 7
    elif ev_in(ctx, mem) or re.search(r"\b(news|invit\w*|heard from|told)\b", low):
        v = 6
    elif re.search(r"\b(chat\w*|conversation|talk\w*|said)\b", low):
        v = 3
    else:
        v = 2
    if rng.chance(key + "n", 0.3):
        v += rng.pick(key + "d", [-1, 1])
    return max(1, min(10, v))


def ev_in(ctx, s):
    return bool(find_events(s, ctx.now_dn, ctx.places, ctx.people))


def _quoted_items(text):
    return [m.group(1) for m in re.finditer(r'(?m)^\s*-\s*"(.*)"\s*$', text)]


def do_importance(ctx, rng):
    m = re.search(r'(?s)"([^"]{3,})"\s*(?:\n|$)', ctx.text.split("Memory")[-1]) if "emory" in ctx.text else None
    mem = m.group(1) if m else ctx.text[-300:]
    obj = {"importance": _rate(ctx, rng, "im|", mem)}
    r = rng.u("im|malform")
    if r < 0.02:
        return obj, "truncate"
    if r < 0.03:
        obj["importance"] = str(obj["importance"])
        return obj, "bad_type"
    return obj, ""


def do_importance_batch(ctx, rng):
    items = _quoted_items(ctx.text)
    ratings = [_rate(ctx, rng, "ib|%d|" % i, it) for i, it in enumerate(items)] or [3]
    obj = {"ratings": ratings}
    r = rng.u("ib|malform")
    if r < 0.02:
        return obj, "truncate"
    if r < 0.06:
        if len(ratings) > 1 and rng.chance("ib|drop", 0.5):
            obj["ratings"] = ratings[:-1]
        else:
            obj["ratings"] = ratings + [ratings[-1]]
        return obj, "bad_count"
    if r < 0.07:
        obj["ratings"][0] = 0
        return obj, "bad_range"
    return obj, ""


def _memory_rows(text):
    return [m.group(1) for m in re.finditer(r"(?m)^\s*(?:-|\d+\.)\s*(?:\[[^\]]*\])?\s*(.+)$", text)]


def do_reflection_questions(ctx, rng):
    rows = _memory_rows(ctx.text)
    counts = {}
    for r in rows:
        for p in ctx.others():
            if p in r:
                counts[p] = counts.get(p, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    qs = []
    evs = [e for e in ctx.events if e["host"]]
    if evs:
        qs.append("How will %s make sure people know about %s?" % (ctx.me, _gist(evs[0], ctx.me)))
    for p, _c in ranked[:2]:
        qs.append(rng.pick("rq|" + p, ["What is %s's relationship with %s like?" % (ctx.me, p),
                                       "Why does %s keep running into %s?" % (ctx.me, p),
                                       "What does %s know about %s?" % (ctx.me, p)]))
    qs.append("How does %s spend most of the day?" % ctx.me)
    n = 2 if rng.chance("rq|two", 0.15) else 3
    obj = {"questions": qs[:n]}
    if rng.chance("rq|malform", 0.03):
        obj["questions"] = qs[:3] + ["What will %s do tomorrow?" % ctx.me]
        return obj, "bad_count"
    return obj, ""


def do_reflection_insights(ctx, rng):
    mx = 1
    for m in re.finditer(r"(?m)^\s*(\d+)\.\s", ctx.text):
        mx = max(mx, int(m.group(1)))
    qs = [m.group(1) for m in re.finditer(r'(?m)^\s*Question:\s*"(.*)"\s*$', ctx.text)]
    if not qs:
        qs = ["what happened"]
    stmts = {}
    for m in re.finditer(r"(?m)^\s*(\d+)\.\s*(.+)$", ctx.text):
        stmts[int(m.group(1))] = m.group(2)
    out = []
    for qi, q in enumerate(qs):
        namew = [w.lower() for p in ctx.people for w in p.split()]
        qw = _content(q, namew)
        names = [p for p in ctx.people if p in q and p != ctx.me]
        ev = [n for n in sorted(stmts) if any(p in stmts[n] for p in names) or len([w for w in _content(stmts[n], namew) if w in qw]) >= 2][:4]
        if not ev:
            ev = [min(stmts)] if stmts else [1]
        k = rng.randint("ri|k%d" % qi, 1, 3)
        for j in range(k):
            about = names[0] if names else (_gist({"text": q, "host": ""}, ctx.me)[:40] if False else " ".join(qw[:4]) or ctx.me)
            if names:
                txt = rng.pick("ri|t%d%d" % (qi, j), ["%s sees %s fairly often around town." % (ctx.me, names[0]),
                                                         "%s and %s are on friendly terms." % (ctx.me, names[0]),
                                                         "%s mostly knows %s from chatting in passing." % (ctx.me, names[0])])
            elif any(ev_in(ctx, stmts.get(n, "")) for n in ev):
                txt = rng.pick("ri|e%d%d" % (qi, j), ["%s cares about the upcoming event and wants people to come." % ctx.me,
                                                         "%s plans the day around the event." % ctx.me,
                                                         "%s means to tell people about it." % ctx.me])
            else:
                txt = rng.pick("ri|g%d%d" % (qi, j), ["%s keeps to a steady daily routine." % ctx.me,
                                                         "%s spends most of the day working." % ctx.me,
                                                         "%s values a quiet, practical life." % ctx.me])
            imp = 6 if any(ev_in(ctx, stmts.get(n, "")) for n in ev) else rng.randint("ri|i%d%d" % (qi, j), 3, 5)
            out.append({"insight": txt, "about": about[:58], "evidence": ev[:max(1, min(4, len(ev) - j))], "importance": imp})
    out = out[:15]
    obj = {"insights": out}
    r = rng.u("ri|malform")
    if r < 0.04:
        return obj, "truncate"
    if r < 0.07:
        out[0]["evidence"] = out[0]["evidence"] + [mx + 1]
        return obj, "bad_range"
    return obj, ""


def do_relationship(ctx, rng):
    other = ctx.others()[0] if ctx.others() else "them"
    rows = [r for r in _memory_rows(ctx.text) if other in r]
    chats = len([r for r in rows if re.search(r"chat|conversation|talk", r)])
    evs = [e for e in find_events("\n".join(rows), ctx.now_dn, ctx.places, ctx.people)]
    if evs and any(classify_reply(r) == "yes" for r in rows):
        s = "%s and %s get on well; %s said they would come to %s, and %s is glad about it." % (ctx.me, other, _first(other), _gist(evs[0], ctx.me), ctx.me)
    elif chats >= 2:
        s = "%s knows %s from a few friendly chats around town and feels warmly towards them." % (ctx.me, other)
    elif chats == 1:
        s = "%s has chatted with %s once; they are on friendly terms but not close." % (ctx.me, other)
    elif rows:
        s = "%s knows %s only by sight; %s feels neutral but open." % (ctx.me, other, ctx.me)
    else:
        s = "%s does not really know %s yet." % (ctx.me, other)
    obj = {"summary": s[:400]}
    return obj, ("truncate" if rng.chance("rl|malform", 0.02) else "")


def do_revise(ctx, rng):
    m = re.search(r"(?im)^\s*currently\s*[:\-]\s*(.+)$", ctx.text)
    old = m.group(1).strip() if m else "%s is going about the day." % ctx.me
    first_sent = re.split(r"(?<=\.)\s", old)[0]
    parts = [first_sent]
    for ev in find_events(ctx.text, ctx.now_dn, ctx.places, ctx.people):
        fut = ctx.future(ev)
        if ev["host"] == ctx.me:
            p = 0.90 if fut else 0.30
            s = "%s is looking forward to %s %s%s." % (ctx.me, _gist(ev, ctx.me), _when_words(ev, ctx.now_dn), (" at the " + _short_place(ev["place"])) if ev["place"] else "") if fut else \
                "%s has been busy with %s." % (ctx.me, _gist(ev, ctx.me))
        else:
            accepted = re.search(r"count me in|I'll (?:be there|come)|going to", ctx.text) is not None
            p = (0.80 if accepted else 0.45) if fut else 0.30
            s = "%s %s %s %s." % (ctx.me, "means to go to" if accepted else "has heard about", _gist(ev, ctx.me), _when_words(ev, ctx.now_dn))
        if rng.chance("rv|" + _gist(ev)[:20], p):
            parts.append(s)
        break
    if len(parts) == 1:
        parts.append("%s wants to keep things running smoothly." % ctx.me)
    obj = {"currently": " ".join(parts)[:500]}
    return obj, ("truncate" if rng.chance("rv|malform", 0.02) else "")


def do_react(ctx, rng):
    other = ""
    m = re.search(r'noticed[^"]*"([A-Z][a-z]+ [A-Z][a-z]+)', ctx.text)
    if m:
        other = m.group(1)
    elif ctx.others():
        other = ctx.others()[0]
    myact = _current_activity(ctx, ctx.me)
    news = ctx.news_of(ctx.me)
    told = news is not None and re.search(r"(?:told|conversation with) " + re.escape(other) + r"[^\n]*(?:" + "|".join(re.escape(w) for w in _content(_gist(news))[:3]) + ")", ctx.text) if news and other else None
    hosting_now = any(e["host"] == ctx.me and e["date"] == ctx.now_dn and e["start"] is not None and e["start"] <= ctx.now_min < (e["end"] or e["start"] + 120) for e in ctx.events)
    if "sleep" in myact:
        probs = [("continue", 0.95), ("wait", 0.05)]
    elif news and other and not told:
        probs = [("talk", 0.60), ("continue", 0.30), ("wait", 0.10)]
    elif hosting_now:
        probs = [("talk", 0.50), ("continue", 0.45), ("wait", 0.05)]
    else:
        probs = [("continue", 0.62), ("talk", 0.25), ("wait", 0.10), ("react", 0.03)]
    r = rng.u("rc|choice")
    acc = 0.0
    choice = probs[-1][0]
    for c, p in probs:
        acc += p
        if r < acc:
            choice = c
            break
    reasons = {"continue": "%s is busy %s and nothing here needs attention." % (ctx.me, myact or "with the plan"),
               "talk": "%s could use the chance to say hello to %s%s." % (ctx.me, other, " and tell them the news" if news else ""),
               "wait": "%s will let %s finish first." % (ctx.me, other),
               "react": "%s decides to spend some time with %s instead." % (ctx.me, other)}
    obj = {"choice": choice, "reason": reasons[choice][:300], "new_activity": ("chatting with " + other) if choice == "react" else ""}
    rr = rng.u("rc|malform")
    if rr < 0.02:
        return obj, "truncate"
    if rr < 0.05:
        obj["choice"] = rng.pick("rc|bad", ["Talk", "talk to them", "Continue"])
        return obj, "bad_enum"
    return obj, ""


def do_interview(ctx, rng):
    m = re.search(r'asks?[^"]*"([^"]+)"', ctx.text)
    q = m.group(1) if m else ctx.text[-200:]
    namew = [w.lower() for p in ctx.people for w in p.split()]
    qw = _content(q, namew)
    rows = [ln for ln in ctx.text.split("\n") if re.match(r"\s*(?:-|\d+\.)\s", ln)]
    host_q = [p for p in ctx.people if p in q]
    hits = [r for r in rows if not re.search(r"'s plan for", r) and (
        len([w for w in _content(r, namew) if w in qw]) >= 2 or
        (any(h in r for h in host_q) and len([w for w in _content(r, namew) if w in qw]) >= 1))]
    about_self = ctx.me in host_q
    if hits:
        evs = find_events("\n".join(hits), ctx.now_dn, ctx.places, ctx.people)
        ev = evs[0] if evs else None
        detail = ""
        if ev:
            place = _short_place(ev["place"])
            d = ("on %s" % _wdname(ev["date"])) if ev["date"] is not None else ""
            t = ("at %s" % _spoken_time(ev["start"])) if ev["start"] is not None else ""
            detail = " ".join(x for x in [d, t, ("at the " + place) if place else ""] if x)
        src = ""
        for r in hits:
            mm = re.search(r"heard from ([A-Z][a-z]+ [A-Z][a-z]+)|conversation with ([A-Z][a-z]+ [A-Z][a-z]+)", r)
            if mm:
                src = mm.group(1) or mm.group(2)
                break
        went = any(re.search(r"going to|count me in", r) for r in hits)
        if about_self and rng.chance("iv|self", 0.70):
            a = "Yes, that was me: %s%s. %s" % (_gist(ev, ctx.me) if ev else "I did that", (" " + detail) if detail else "",
                                                 rng.pick("iv|s2", ["A few people came by.", "I told whoever I met about it.", "It went well."]))
        elif about_self:
            a = "Yes, I heard %s was %s%s." % (ctx.me, _gist(ev, "") if ev else "doing that", (" " + detail) if detail else "")
        else:
            a = "Yes, %s told me about it%s%s." % (_first(src) if src else "someone", (" — " + detail) if detail else "",
                                                  ", and I went along" if went else "")
    else:
        if rng.chance("iv|confab", 0.07):
            a = "I think someone mentioned it, but I don't know the details."
        else:
            a = rng.pick("iv|no", ["No, I haven't heard about that.", "No, I don't know anything about that, I'm afraid.",
                                   "Hm, no, nobody told me about that."])
    obj = {"answer": a[:600]}
    return obj, ("truncate" if rng.chance("iv|malform", 0.02) else "")


# ---------------------------------------------------------------- entry point

_HANDLERS = {
    "group_turn": do_group_turn, "conversation_memo": do_memo,
    "conversation_summary": lambda c, r: do_conv_summary(c, r, False),
    "group_summary": lambda c, r: do_conv_summary(c, r, True),
    "daily_plan": do_daily_plan, "decompose": do_decompose, "importance": do_importance,
    "importance_batch": do_importance_batch, "reflection_questions": do_reflection_questions,
    "reflection_insights": do_reflection_insights, "relationship": do_relationship,
    "revise_currently": do_revise, "react": do_react, "interview": do_interview,
}


def _truncate(rng, s):
    frac = 0.4 + 0.5 * rng.u("truncate-at")
    return s[:max(1, int(len(s) * frac))]


def respond_with_kind(body, seed):
    """(content, malformation kind or "") ; respond() returns only the content."""
    schema = _schema_of(body)
    purpose = _purpose(body, schema)
    rng = _Rng(seed, purpose, body)
    if purpose == "probe":
        return json.dumps({"ok": True}), ""
    ctx = Ctx(body)
    if purpose == "converse_turn":
        return do_converse(ctx, rng)
    if rng.chance("refusal", 0.01):
        return rng.pick("refusal-text", ["I'm sorry, but I can't help with that request.",
                                         "As an AI language model, I don't have personal memories, but here is a possible answer."]), "refusal"
    h = _HANDLERS.get(purpose)
    if h is None:
        return json.dumps({}), ""
    obj, kind = h(ctx, rng)
    text = json.dumps(obj, ensure_ascii=False)
    if kind == "truncate":
        text = _truncate(rng, text)
    return text, kind


def respond(body, seed):
    try:
        return respond_with_kind(body, seed)[0]
    except Exception:  # a real model never crashes; answer something plausible and broken
        return "{\"error\": \"" 
