"""blind27 -- blind stand-in language model for the NPC-brain service.

Imitates a middling ~8B instruction-tuned model (Llama-3.1-8B-Instruct / Qwen2.5-7B
class) served by Ollama's OpenAI-compatible route.  Written only from captured request
bodies; standard library only; deterministic: every answer comes from a random.Random
seeded with sha256(messages + seed).

    respond(body: dict, seed: int) -> str      # the text of choices[0].message.content

DECLARED RULES AND RATES (written before the module was first run over any capture)
===================================================================================

0. General
---------
* Kind of request: from the response_format schema's *property names* (not its title or
  name): {ok}=probe, {wake_up_hour,outline,blocks}=day plan, {steps}=decomposition,
  {choice,...}=reaction, {new_blocks}=re-plan, {summary} alone=relationship,
  {summary,importance,plan_*}=conversation memo, {utterance,addressed_to,...}=group turn,
  {importance} alone=importance, {ratings}=importance batch, {questions}=reflection
  questions, {insights}=reflection insights, {currently}=status rewrite, {answer}=interview,
  {talk,lines,first,second}=pair summary, {talk,lines,memos}=group summary; any other
  schema is filled generically from the schema with words from the prompt.  No schema:
  a request that names bracketed tags ("[end]", "[continue]") is a dialogue line; a request
  with a quoted question put to the character is an interview; anything else gets one
  plain in-character sentence.
* People are found by meaning: the character is "the inner mind of X" / the first "Name:";
  other people are capitalised multi-word names that act in the text (speak in quoted
  lines, are told / tell / is / has ...), or the schema's enums; place names that are whole
  parts of an address are not people.  The conversation partner is the non-self person
  named most often outside the memory lines.  First names are mapped to full names.
* Times are read in any style (19:00, 7 pm, 7:00 PM, 7.00 p.m., "7 in the evening",
  "9 at night", noon, midnight, "seven o'clock", "five in the afternoon"); dates in any
  style (2026-04-16, Thursday April 16, 16 Apr, the 16th of April, today, tomorrow,
  weekday names).  "Now" is the date/time of the sentence that says what day/time it is.
* Places: by the schema's enum where there is one, scored by words shared between the
  address parts (below the top-level world part) and the text that names the place.
* An event is read from a news/memory sentence: what (the noun phrase after hold/host/
  have/throw/organise/put on/about the/going to the), who hosts (the name before
  "wants to hold"/"is holding"/..., or the character when the text says they host it),
  when (date + time range; a "(that is ...)" gloss is preferred), where (enum match).
* Retries (an earlier assistant answer followed by "could not be used"): the original
  request is answered again; every malformation rate below is halved.
* JSON answers keep the schema's keys, types, enums, required fields and item counts
  (Ollama grammar).  Not always kept (declared): numeric bounds and string patterns
  (see per kind).  Any answer longer than max_tokens (about 3.5 characters a token) is cut
  off there (finish_reason=length), as Ollama does.

1. Dialogue line (plain text, one turn of an in-view conversation)
------------------------------------------------------------------
Reads: own news (a sentence saying the character has news / something to pass on, with
the content after the colon; "has no news" = none), whether it is an event they host,
the conversation so far (quoted lines), own plan lines, relationship sentences that name
the partner, traits, memories.
* N1 untold news (its key words not yet in the conversation): mention it on the character's
  first line p=0.65; on each later line p=0.45.  Stale news (event date before today):
  these rates are halved.  If the partner already raised the same event the character
  does not announce it again (p=0.9; p=0.1 it repeats it anyway).
* N1b no explicit news, but memories show an upcoming event (date today or later) the
  character was told of: mentions it on its first line p=0.15 (drawn to its memories).
* N2 when mentioning: what always; day p=0.85 (today/tomorrow/weekday); time p=0.8; place
  p=0.75; copies the news clause nearly verbatim instead of paraphrasing p=0.2.
* N3 host mentioning its own event asks the partner to come p=0.85.
* I1 partner's last line is an invitation (will/would you come, do come, join us, ...):
  accept p=0.75; grudge/dislike toward the inviter in the text -> p=0.40; a real commitment
  (calling on / meeting / another event / appointment) in own plan overlapping the event
  and noticed (p=0.6) -> declines or proposes another time; an ordinary activity (work,
  meal, chore, leisure) wrongly cited as a clash p=0.10.  Already planning to go (plan or
  memory says so) -> confirms p=0.9.
* I2 partner passes on news of an event (no invitation): says it means to go with
  p = 0.40 (+0.20 warm words toward the host, -0.25 grudge toward the host, +0.10
  sociable trait, -0.10 reserved trait; clamped 0.05..0.85); otherwise acknowledges it
  without commitment.  Thanks the partner "for the invitation" as if invited p=0.05.
  Already going (plan/memory) -> says so p=0.7.
* S small talk otherwise: a greeting on a first line; then own "Currently" status in first
  person, a question back, a remark; repeats a line already said in the conversation
  p=0.08.
* E end tag: p([end]) by lines so far n (this one included): n<3 0.08, 3-4 0.30, 5-6 0.50,
  >=7 0.75; partner's last line a goodbye -> 0.90 (and answers with a goodbye); halved
  while own news is still untold.  With [end] the line is a goodbye p=0.8.
* Mix-up: addresses the partner by another person's first name p=0.02.
* Malformed (declared): tag missing 0.02; speaker's name in front 0.02; line in double
  quotes 0.015; also writes the partner's reply ("Name: ...") 0.01; a prose preamble
  ("Here is what X says:") 0.005.  (~7% in all.)

2. Group turn (JSON {utterance, addressed_to, end_conversation})
-----------------------------------------------------------------
Same decisions as 1 (N1-N3, I1, I2, S, E).  addressed_to: when announcing news
"everyone" p=0.6 (if allowed), else the last other speaker in the enum p=0.7, else
another allowed value.  Truncated JSON p=0.02.

3. Conversation memo (JSON, the character's own point of view)
---------------------------------------------------------------
Reads the conversation lines, own plan lines, the offered days (enum) and places (enum).
* Summary: one sentence naming the partner(s); if an event came up: what + day/time
  (day/time included p=0.85), else small-talk gist.  Importance: small talk 2, event news
  heard 5, invitation answered / own event 6 (each +-1 with p=0.4), 1..10.
* Plan item, by what the character itself said in the lines:
  said yes / will go / count me in -> p=0.85; hedged (might, maybe, pop along) -> 0.50;
  declined -> 0.05; heard of an event and said nothing about going -> 0.12; told others
  of someone else's event and said nothing about going -> 0.10; it hosts the event -> 0.25;
  a meeting agreed ("see you at <time>") with no event -> 0.50; nothing -> 0.
  Fields: date = event date p=0.88 (today's date 0.08, "" 0.04); start = event start
  p=0.9 (else an hour off); minutes = event length p=0.85 (else 60 or 120); place = enum
  match of the event's place p=0.85 where one matches (else "").
* Start written as "7:00 PM" (pattern ignored) p=0.02; truncated JSON p=0.02.

4. Pair / group summary of an out-of-view encounter (JSON)
---------------------------------------------------------
* talk: anyone has news -> true p=0.85; nobody -> 0.45; a grudge between them in the
  text multiplies by 0.6.  No talk -> empty lines and null memos p=0.7 (else short
  "did not talk" memos with empty plans).
* lines: 2-6 (pair) / 2..max (group), the named first speaker first, others in turn.  A
  news holder brings it up in the lines p=0.8; host invites p=0.85; responses follow I1/I2.
* memos: follow rule 3 from each one's own lines.  Group: one memo per person p=0.9,
  else one person's memo is left out.  Who-is-who mix-up (first/second plans swapped)
  p=0.03.  Truncated JSON p=0.02.

5. Reaction (JSON {choice, reason, new_activity})
-------------------------------------------------
Choices from the schema enum.  Observed a person and has untold news for them: talk 0.65,
continue 0.25, wait 0.05 (if offered), react 0.05.  The person is coming to / calling on
the character: talk 0.70.  A person, nothing to tell: talk 0.25 (0.10 with a grudge),
continue 0.65, wait 0.05, react 0.05.  No person (objects, states): continue 0.90, react
0.10.  new_activity empty unless react.  Truncated JSON p=0.01.

6. Re-plan (JSON new_blocks)
----------------------------
Starts from the schema's allowed start times.  Trigger names a person who comes to talk:
first block "talking with <person>" p=0.6, then the planned activity resumes.  Has news and
a listed place where untold people will be inside the window: goes there p=0.35.
Otherwise keeps the planned activity.  Truncated JSON p=0.01.

7. Day plan (JSON)
------------------
wake_up_hour from the lifestyle p=0.9 (else +-1).  Blocks: wake and get ready, breakfast,
work (split by lunch), free time, dinner, evening, sleeping at home last; work place = the
enum place sharing most words with the lifestyle/identity.  An event found in memories or
status dated today (date by majority of mentions p=0.85, by the latest mention p=0.15) is
given a block at its place: hosts it p=0.9; memories say it will go / is keen p=0.75;
only heard of it p=0.30 (-0.15 with a grudge toward the host).  Calls on a person named
warmly in its identity p=0.30.  One meal doubled p=0.04; a 15-minute gap p=0.05.
Truncated JSON p=0.01.

8. Decomposition (JSON steps)
-----------------------------
Step count within the asked range; durations 5-15 summing to the asked span p=0.8 (else
off by 5-15 minutes); one step of 20 minutes (bound broken) p=0.03; objects from the enum
when a step names it or, for work steps, p=0.4; repeats the character's name in a step
p=0.03.  Truncated JSON p=0.01.

9. Importance / importance batch: by content: sleeping, routine and object states 1-2;
activities 2-3; conversations/small talk 3-4; plans 3; news of an event or told/telling
5-6; accepted invitation / means to go / keen 6-7; grief, love, conflict words 7-8;
+-1 noise p=0.4.  Batch: one rating per memory (grammar).  Truncated p=0.01.

10. Reflection questions: as many as asked, about the most-mentioned other people, the
most frequent activity, an event if one appears; a question about a single event instead
of a pattern p=0.3 each.  Reflection insights: up to the asked cap, 1-2 per question,
evidence = numbers of statements sharing the question's key words (up to 5; 2-3 random
numbers when none), importance 3-7.  Truncated p=0.02.

11. Status rewrite: keeps the old status's first sentence p=0.85; adds a commitment
sentence when memories show it said it would go / is keen on an event dated today or
later p=0.7 (a past event p=0.3); a host adds "getting <event> ready" p=0.8; else a
routine sentence.  Truncated p=0.01.

12. Interview: memories mention the question's key words -> says it heard of it, from
whom, what/when/where (when included p=0.85), and whether it went / means to go
(p=0.6 when memories show it); no such memory -> says it has not heard p=0.9 (vague
"someone may have mentioned it" p=0.1).  Truncated p=0.01.

13. Probe: {"ok": true}.  Unknown schema: generic fill, truncated p=0.02.

Fixes after the first run
-------------------------
(First run: 2,061 captured requests x seeds 0-2; no exceptions, no schema-invalid JSON.
 The fixes below are invalid-output (garbled or wrong-content text) bugs found by reading
 that run's outputs; no rate or rule was changed.)
F1. "X told Y: ..." prefix reader stopped at the colon inside a clock time ("7:00 PM"),
    giving garbled lines ("an event in the 00 PM at 00 PM-9"): the prefix may not contain
    digits and its colon must be followed by a space.
F2. The address reader took clock ranges ("..., 19:00-21:00") for A:B:C addresses; address
    parts must now start with a letter.
F3. Prompts that write no year got dates in a default year, so weekday names in answers were
    wrong: the year is now the one (nearest 2025) in which a written weekday falls on its
    written date.
F4. Place matching read people's surnames as places (a surname that is also a house name):
    people's names are removed from the text before places are matched.
"""

import datetime as _dt
import hashlib
import json
import random
import re

# ----------------------------------------------------------------------------
# small text utilities
# ----------------------------------------------------------------------------

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = {"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6,
          "july": 7, "august": 8, "september": 9, "october": 10, "november": 11,
          "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7,
          "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}
NUMWORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
STOP = set("""a an the and or but of in on at to for from with by about as is are was were be been
being it its this that these those there here he she they them their his her him i you we our my
your me us not no nor so than then too very can could will would shall should may might must do
does did done have has had having just also only into over under up down out off again more most
some any each every all both few other such own same what which who whom whose when where why how
today tomorrow yesterday evening morning afternoon night pm am event said told tell telling news
wants want hold holding going go like would people everyone everybody""".split())

MONTH_RE = r"(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
WEEKDAY_RE = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
NAME_WORD = r"[A-Z][a-z\u00c0-\u024f'\u2019-]+"
NAME_RE = NAME_WORD + r"(?: " + NAME_WORD + r"){1,2}"


def _words(s):
    return re.findall(r"[a-z][a-z'\u2019-]+", (s or "").lower())


def _content_words(s):
    return [w for w in _words(s) if len(w) > 3 and w not in STOP]


def _first(name):
    return (name or "").split(" ")[0] if name else ""


def _cap(s):
    return s[:1].upper() + s[1:] if s else s


def _clip(s, n):
    s = s or ""
    if len(s) <= n:
        return s
    cut = s[:n].rsplit(" ", 1)[0]
    return cut.rstrip(",;: ")


def _hhmm(m):
    m = int(m) % (24 * 60)
    return "%02d:%02d" % (m // 60, m % 60)


def _ampm(m):
    m = int(m) % (24 * 60)
    h, mi = divmod(m, 60)
    suf = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return ("%d" % h12 if mi == 0 else "%d:%02d" % (h12, mi)) + " " + suf


def _ampm_short(m):
    m = int(m) % (24 * 60)
    h, mi = divmod(m, 60)
    h12 = h % 12 or 12
    return "%d" % h12 if mi == 0 else "%d:%02d" % (h12, mi)


# ----------------------------------------------------------------------------
# times and dates
# ----------------------------------------------------------------------------

_MER = r"(?:a\.?\s?m\.?|p\.?\s?m\.?|AM|PM|A\.M\.|P\.M\.)"
_PART = r"(?:in the morning|in the afternoon|in the evening|at night|at noon|at midnight|o'clock|o\u2019clock)"
_NUMW = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_TIME_TOKEN = re.compile(
    r"(?<![\w:])(?:(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?|(?P<w>" + _NUMW + r"|half past " + _NUMW + r"|noon|midnight))"
    r"(?P<suf>\s*(?:" + _MER + r"|" + _PART + r"(?:\s+" + _PART + r")?))?(?![\d])", re.I)


def _apply_suffix(h, mi, suf):
    s = (suf or "").lower().replace(" ", "").replace(".", "")
    if not s:
        return None
    if s.startswith("pm") or "afternoon" in s or "evening" in s:
        if h < 12:
            h += 12
    elif "night" in s:
        if h >= 6 and h < 12:
            h += 12
        elif h == 12:
            h = 0
    elif s.startswith("am") or "morning" in s:
        if h == 12:
            h = 0
    elif "noon" in s:
        h = 12
    elif "midnight" in s:
        h = 0
    return h * 60 + mi


def find_times(text):
    """All time mentions in text: list of (start_index, end_index, minutes, explicit)."""
    out = []
    for mt in _TIME_TOKEN.finditer(text or ""):
        h = mt.group("h")
        mi = mt.group("m")
        w = mt.group("w")
        suf = mt.group("suf")
        if w:
            wl = w.lower()
            if wl == "noon":
                out.append((mt.start(), mt.end(), 12 * 60, True))
                continue
            if wl == "midnight":
                out.append((mt.start(), mt.end(), 0, True))
                continue
            half = 0
            if wl.startswith("half past "):
                half = 30
                wl = wl[10:]
            hh = NUMWORDS.get(wl, 0)
            if not suf and not half:
                continue          # bare number words are not times
            val = _apply_suffix(hh, half, suf)
            if val is None:
                val = hh * 60 + half
                if hh < 7:
                    val += 12 * 60
            out.append((mt.start(), mt.end(), val, bool(suf)))
            continue
        hh = int(h)
        mm = int(mi) if mi else 0
        if hh > 24 or mm > 59:
            continue
        # avoid dates, years, counts: bare numbers need ":" or a suffix
        if not mi and not suf:
            # a bare number directly before "-" / "to" + a time may be a range start
            after = text[mt.end():mt.end() + 6]
            if not re.match(r"\s*(?:-|\u2013|to\s)\s*\d", after):
                continue
        if mi and not suf and text[mt.start() - 1:mt.start()] in ("[",):
            pass
        val = _apply_suffix(hh, mm, suf) if suf else None
        explicit = val is not None or (mi is not None and hh >= 13) or (mi is not None and hh == 0)
        if val is None:
            val = (hh % 24) * 60 + mm
            if mi is not None:
                explicit = True   # HH:MM, read as a 24-hour clock
        out.append((mt.start(), mt.end(), val, explicit))
    return out


def find_range(text):
    """First time range in text -> (start_min, end_min) or None; a single time -> (t, None)."""
    ts = find_times(text)
    if not ts:
        return None
    for i in range(len(ts) - 1):
        a, b = ts[i], ts[i + 1]
        between = text[a[1]:b[0]]
        if re.fullmatch(r"\s*(?:-|\u2013|to|until|till)\s*", between, re.I):
            s, e = a[2], b[2]
            if not a[3] and b[3]:
                # "7 to 9 in the evening", "6 to 6:30 pm": take the second's half of day
                if e >= 12 * 60 and s < 12 * 60 and s + 12 * 60 <= e + 1:
                    s += 12 * 60
            return (s, e)
    return (ts[0][2], None)


def _year_hint(text):
    m = re.search(r"\b(19|20)\d{2}\b", text or "")
    if m:
        return int(m.group(0))
    # no year written: the year in which a written weekday falls on its written date
    pats = [r"\b(" + WEEKDAY_RE + r"),?\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + MONTH_RE + r")",
            r"\b(" + WEEKDAY_RE + r"),?\s+(" + MONTH_RE + r")\s+(?:the\s+)?(\d{1,2})"]
    for i, p in enumerate(pats):
        mm = re.search(p, text or "", re.I)
        if not mm:
            continue
        try:
            wd = WEEKDAYS.index(mm.group(1).lower())
            if i == 0:
                d, mo = int(mm.group(2)), MONTHS[mm.group(3).lower().rstrip(".")]
            else:
                mo, d = MONTHS[mm.group(2).lower().rstrip(".")], int(mm.group(3))
            base = 2025
            for y in sorted(range(base - 6, base + 7), key=lambda y: abs(y - base)):
                try:
                    if _dt.date(y, mo, d).weekday() == wd:
                        return y
                except ValueError:
                    continue
        except Exception:
            continue
    return 2024


_DATE_PATTERNS = [
    re.compile(r"\b(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})\b"),
    re.compile(r"\b(?:" + WEEKDAY_RE + r",?\s+)?(?:the\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>" + MONTH_RE + r")(?:,?\s+(?P<y>\d{4}))?", re.I),
    re.compile(r"\b(?:" + WEEKDAY_RE + r",?\s+)?(?P<mon>" + MONTH_RE + r")\s+(?:the\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(?P<y>\d{4}))?", re.I),
]


def find_dates(text, year=2024, today=None):
    """All date mentions: list of (start_index, date)."""
    out = []
    taken = []
    text = text or ""
    for pat in _DATE_PATTERNS:
        for m in pat.finditer(text):
            if any(a <= m.start() < b for a, b in taken):
                continue
            try:
                d = int(m.group("d"))
                if "mo" in pat.groupindex and m.group("mo"):
                    mo = int(m.group("mo"))
                else:
                    mo = MONTHS[m.group("mon").lower().rstrip(".")]
                y = int(m.group("y")) if m.group("y") else year
                out.append((m.start(), _dt.date(y, mo, d)))
                taken.append((m.start(), m.end()))
            except Exception:
                continue
    if today is not None:
        for m in re.finditer(r"\b(today|tonight|this evening|this afternoon|this morning|tomorrow)\b", text, re.I):
            if any(a <= m.start() < b for a, b in taken):
                continue
            w = m.group(1).lower()
            out.append((m.start(), today + _dt.timedelta(days=1) if w == "tomorrow" else today))
    out.sort(key=lambda x: x[0])
    return out


# ----------------------------------------------------------------------------
# schema helpers
# ----------------------------------------------------------------------------

def _resolve(schema, root):
    seen = 0
    while isinstance(schema, dict) and "$ref" in schema and seen < 20:
        ref = schema["$ref"]
        node = root
        for part in ref.lstrip("#/").split("/"):
            if part:
                node = node.get(part, {}) if isinstance(node, dict) else {}
        schema = node
        seen += 1
    return schema if isinstance(schema, dict) else {}


def _collect_enums(schema, root, path="", out=None, depth=0):
    """Map of property name -> enum list, found anywhere in the schema."""
    if out is None:
        out = {}
    if depth > 12 or not isinstance(schema, dict):
        return out
    schema = _resolve(schema, root)
    if "enum" in schema and path:
        out.setdefault(path, schema["enum"])
    for k, v in (schema.get("properties") or {}).items():
        _collect_enums(v, root, k, out, depth + 1)
    if "items" in schema:
        _collect_enums(schema["items"], root, path, out, depth + 1)
    for alt in schema.get("anyOf", []) + schema.get("oneOf", []):
        _collect_enums(alt, root, path, out, depth + 1)
    return out


def _prop_schema(schema, root, *path):
    s = _resolve(schema, root)
    for p in path:
        if p == "[]":
            s = _resolve(s.get("items", {}), root)
        else:
            s = (s.get("properties") or {}).get(p, {})
            s = _resolve(s, root)
            if "anyOf" in s:
                for alt in s["anyOf"]:
                    alt = _resolve(alt, root)
                    if alt.get("type") != "null":
                        s = alt
                        break
    return s


# ----------------------------------------------------------------------------
# reading the request
# ----------------------------------------------------------------------------

_ADDR_RE = re.compile(r"\b([A-Z][^:\n()\"]{1,40}):([A-Za-z][^:\n()\"]{0,59}):([A-Za-z][^:\n()\",;]{0,59}?)(?=\)|,|;|\n|$| \(| on )")
_SOCIABLE = {"curious", "warm", "talkative", "nosy", "friendly", "cheerful", "sociable", "outgoing",
             "kind", "gregarious", "chatty", "lively", "generous", "enthusiastic", "gossipy"}
_RESERVED = {"shy", "proud", "blunt", "grumpy", "reserved", "dry", "gruff", "quiet", "stubborn",
             "solitary", "taciturn", "suspicious", "stern", "cold", "private"}
_POS_WORDS = ["friend", "fond", "love", "dear", "cousin", "taught", "help", "brings", "trust", "like",
              "admire", "feeds", "close", "kind", "sister", "brother", "husband", "wife", "nephew",
              "niece", "uncle", "aunt", "friendly", "familiar", "warm", "grateful"]
_NEG_WORDS = ["grudge", "never forgiven", "not spoken", "distract", "dislike", "resent", "feud",
              "quarrel", "angry", "rival", "hate", "wary", "suspicious", "annoy", "irritat",
              "never forgave", "bitter", "falling out", "fell out", "cross with", "avoid"]


class Ctx(object):
    def __init__(self, body):
        self.body = body if isinstance(body, dict) else {}
        msgs = self.body.get("messages") or []
        msgs = [m for m in msgs if isinstance(m, dict)]
        self.retry = False
        sys_parts = [str(m.get("content") or "") for m in msgs if m.get("role") == "system"]
        users = [m for m in msgs if m.get("role") == "user"]
        self.system = "\n".join(sys_parts)
        if len(users) >= 2 and any(m.get("role") == "assistant" for m in msgs):
            self.retry = True
            self.user = str(users[0].get("content") or "")
        elif users:
            self.user = str(users[-1].get("content") or "")
        else:
            self.user = "\n".join(str(m.get("content") or "") for m in msgs)
        if not isinstance(self.user, str):
            self.user = str(self.user)
        self.text = self.system + "\n" + self.user
        try:
            self.max_tokens = int(self.body.get("max_tokens") or 512)
        except Exception:
            self.max_tokens = 512
        rf = self.body.get("response_format") or {}
        self.schema = None
        if isinstance(rf, dict):
            js = rf.get("json_schema")
            if isinstance(js, dict) and isinstance(js.get("schema"), dict):
                self.schema = js["schema"]
            elif rf.get("type") == "json_object":
                self.schema = {}
        self.root = self.schema or {}
        self.enums = _collect_enums(self.schema, self.root) if self.schema else {}
        self.lines = self.user.split("\n")
        self.mem_lines = [l for l in self.lines if re.match(r"\s*(?:-|\d+\.)\s*\[", l)]
        self.other_lines = [l for l in self.lines if not re.match(r"\s*(?:-|\d+\.)\s*\[", l)]
        self.other_text = "\n".join(self.other_lines)
        self.year = _year_hint(self.text + " " + json.dumps(self.enums.get("plan_date") or []))
        self._find_self()
        self._find_addresses()
        self._find_people()
        self._find_now()
        self._personas()
        self.convo = self._conversation()

    # --- who ---
    def _find_self(self):
        m = re.search(r"inner mind of (" + NAME_RE + r")", self.system) or \
            re.search(r"(?:You are|you are|as) (" + NAME_RE + r")", self.system)
        if not m:
            m = re.search(r"^\s*Name:\s*(.+?)\s*$", self.user, re.M)
        self.me = m.group(1).strip() if m else "I"

    def _find_addresses(self):
        addrs = []
        for k, v in self.enums.items():
            for x in v or []:
                if isinstance(x, str) and x.count(":") >= 2 and x not in addrs:
                    addrs.append(x)
        for m in _ADDR_RE.finditer(self.user):
            a = ("%s:%s:%s" % (m.group(1), m.group(2), m.group(3))).strip()
            if a not in addrs and len(a) < 120:
                addrs.append(a)
        self.addresses = addrs
        parts = set()
        for a in addrs:
            for p in a.split(":"):
                parts.add(p.strip())
        self.addr_parts = parts

    def _find_people(self):
        cands = {}
        people = []

        def add(n):
            n = n.strip()
            if n and n not in people and n != "I":
                people.append(n)
        for m in re.finditer(r"^\s*Name:\s*(" + NAME_RE + r")\s*$", self.user, re.M):
            add(m.group(1))
        for k, v in self.enums.items():
            if k in ("speaker", "addressed_to", "name"):
                for x in v or []:
                    if isinstance(x, str) and re.fullmatch(NAME_RE, x):
                        add(x)
        for m in re.finditer(r"(?:^|[\n/] ?|\s)(" + NAME_RE + r"): \"", self.user):
            add(m.group(1))
        verbs = r"(?:is|was|has|had|told|tells|said|says|wants|keeps|runs|farms|makes|mends|started|invites|asked|sees|feels|thinks|bears|spends|brings|knows|hopes|came|will|would|and)\b"
        for m in re.finditer(r"\b(" + NAME_RE + r")(?:'s)? " + verbs, self.text):
            n = m.group(1)
            cands[n] = cands.get(n, 0) + 1
        for n, c in cands.items():
            ws = n.lower().split()
            if any(w in WEEKDAYS or w in MONTHS for w in ws):
                continue
            if n in self.addr_parts:
                continue
            if ws[0] in ("the", "this", "that", "what", "then", "answer", "name", "it", "today",
                         "they", "one", "each", "news", "give", "make", "break", "someone"):
                continue
            add(n)
        if self.me != "I":
            add(self.me)
        # drop names that are prefixes of longer names already present
        self.people = [p for p in people if not any(q != p and q.startswith(p + " ") for q in people)]
        self.first_map = {}
        for p in self.people:
            self.first_map.setdefault(_first(p), p)

    def full_name(self, s):
        s = (s or "").strip()
        if s in self.people:
            return s
        return self.first_map.get(_first(s), s)

    def strip_people(self, text):
        for p in sorted(self.people, key=len, reverse=True):
            text = text.replace(p, " ")
        return text

    def others(self):
        return [p for p in self.people if p != self.me]

    def partner_guess(self, exclude=()):
        counts = {}
        for p in self.people:
            if p == self.me or p in exclude:
                continue
            c = len(re.findall(re.escape(p), self.other_text))
            if c:
                counts[p] = c
        if not counts:
            return None
        return max(counts.items(), key=lambda kv: kv[1])[0]

    # --- when ---
    def _find_now(self):
        self.today = None
        self.now_min = None
        for l in self.other_lines:
            if re.search(r"\b(?:it is|today is|it's|the time is|the date is)\b", l, re.I):
                ds = find_dates(l, self.year)
                if ds and self.today is None:
                    self.today = ds[0][1]
                    seg = l[:200]
                    ts = find_times(re.sub(r"\b\d{4}\b", "", seg))
                    if ts:
                        self.now_min = ts[0][2]
                    break
        if self.today is None:
            for k, v in self.enums.items():
                for x in v or []:
                    if isinstance(x, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", x):
                        m = re.search(re.escape(x) + r"\s*\(today", self.user)
                        if m:
                            self.today = _dt.date(*map(int, x.split("-")))
        if self.today is None:
            ds = []
            for l in self.mem_lines:
                d = find_dates(l[:60], self.year)
                if d:
                    ds.append(d[0][1])
            if ds:
                self.today = max(ds)
        if self.today is None:
            self.today = _dt.date(self.year, 1, 1)
        if self.now_min is None:
            for l in self.other_lines:
                if re.search(r"\b(?:it is|it's)\b", l, re.I):
                    ts = find_times(l)
                    if ts:
                        self.now_min = ts[0][2]
                        break
        if self.now_min is None:
            self.now_min = 12 * 60

    def date_phrase(self, d, start=None):
        if d is None:
            return ""
        diff = (d - self.today).days
        eve = start is not None and start >= 17 * 60
        if diff == 0:
            return "this evening" if eve else "today"
        if diff == 1:
            return "tomorrow evening" if eve else "tomorrow"
        if 1 < diff < 7:
            return "on " + WEEKDAYS[d.weekday()].capitalize()
        return "on %s %d" % (["January", "February", "March", "April", "May", "June", "July",
                               "August", "September", "October", "November", "December"][d.month - 1], d.day)

    # --- personas ---
    def _personas(self):
        self.persona = {}
        cur = None
        for l in self.lines:
            m = re.match(r"^\s*Name:\s*(.+?)\s*$", l)
            if m:
                cur = self.full_name(m.group(1))
                self.persona[cur] = {"_text": ""}
                continue
            if cur is None:
                continue
            if not l.strip():
                cur = None
                continue
            m = re.match(r"^\s*([A-Za-z][A-Za-z ]{1,30}):\s*(.*)$", l)
            if m and not l.lstrip().startswith("-"):
                self.persona[cur][m.group(1).strip().lower()] = m.group(2).strip()
            self.persona[cur]["_text"] += l + "\n"

    def pfield(self, who, *keys):
        p = self.persona.get(who) or {}
        for k in keys:
            for kk, v in p.items():
                if k in kk:
                    return v
        return ""

    def traits(self, who):
        t = self.pfield(who, "trait")
        return set(_words(t))

    def sociability(self, who):
        t = self.traits(who)
        s = 0.0
        if t & _SOCIABLE:
            s += 0.10
        if t & _RESERVED:
            s -= 0.10
        return s

    def feeling(self, a, b):
        """+1 warm, -1 grudge, 0 neutral: a's text about b (identity, relationship sentences)."""
        if not a or not b:
            return 0
        fb = _first(b)
        score = 0
        srcs = [self.persona.get(a, {}).get("_text", "")]
        srcs += [l for l in self.other_lines if (a in l or _first(a) in l) and ("sees" in l or "feels" in l or "relationship" in l.lower())]
        for src in srcs:
            for sent in re.split(r"(?<=[.!?])\s+|\n", src):
                if b not in sent and not re.search(r"\b" + re.escape(fb) + r"\b", sent):
                    continue
                low = sent.lower()
                for w in _NEG_WORDS:
                    if w in low:
                        score -= 2
                for w in _POS_WORDS:
                    if re.search(r"\b" + w, low):
                        score += 1
        # b's text about a counts a little (a grudge is usually mutual)
        for sent in re.split(r"(?<=[.!?])\s+|\n", self.persona.get(b, {}).get("_text", "")):
            if a in sent or re.search(r"\b" + re.escape(_first(a)) + r"\b", sent):
                low = sent.lower()
                for w in _NEG_WORDS:
                    if w in low:
                        score -= 1
        if score <= -1:
            return -1
        if score >= 1:
            return 1
        return 0

    # --- conversation lines ---
    def _conversation(self):
        out = []
        for l in self.other_lines:
            m = re.match(r"^\s*(" + NAME_RE + r"|" + NAME_WORD + r"):\s*[\"\u201c](.*)[\"\u201d]\s*$", l)
            if m:
                out.append((self.full_name(m.group(1)), m.group(2)))
        return out


# ----------------------------------------------------------------------------
# plans, places, events, news
# ----------------------------------------------------------------------------

_BOUND = set("""in at on from for this next tomorrow today tonight so to with where which that and
starting between by around after before during until till while near inside outside up down
along beside across through round over behind""".split())
_COMMIT_RE = re.compile(r"\b(calling on|call on|visit|meet|meeting|appointment|promised|lesson|going to|"
                        r"hosting|party|gathering|service|match|wedding|funeral|rehearsal|practice|"
                        r"concert|fair|dance|evening|supper with|dinner with|lunch with|tea with)\b", re.I)
_INTENT_RE = re.compile(r"(said (?:they|he|she|I) would (?:go|come)|would go|will go|will come|means to go|mean to go|"
                        r"meant to go|keen on|thinking of going|plans to go|planning to go|intends to go|"
                        r"looking forward|count me in|I'd love to come|I'll come|I'll be there|I think I'll go|"
                        r"I'll go|going along|accepted)", re.I)


def match_place(text, addrs):
    if not addrs or not text:
        return None
    words = set(_words(text))
    worlds = set(a.split(":")[0] for a in addrs)
    best, bscore = None, 0.0
    for a in addrs:
        parts = a.split(":")
        if len(worlds) == 1 and len(parts) > 1:
            parts = parts[1:]
        toks = [w for w in _words(" ".join(parts)) if len(w) > 2 and w not in STOP]
        if not toks:
            continue
        hit = sum(1 for w in toks if w in words or (w.endswith("s") and w[:-1] in words))
        if hit == 0:
            continue
        score = hit - 0.1 * (len(toks) - hit)
        # the innermost part (the room) counts double when named
        last = [w for w in _words(parts[-1]) if len(w) > 2]
        if last and all(w in words for w in last):
            score += 0.5
        if score > bscore:
            best, bscore = a, score
    return best


def _what(text):
    pats = [
        r"\b(?:hold|host|holding|hosting|throw|throwing|organi[sz]e|organi[sz]ing|put on|putting on|"
        r"run|running|arrange|arranging|give|giving|have|having|start|starting|lead|leading)\s+"
        r"(?:a|an|the|her|his|their|my|our|its|some)\s+([^,.;:()\"!?]+)",
        r"\babout (?:the|a|an) ([^,.;:()\"!?]+)",
        r"\b(?:going|go|come|coming) to (?:the|a|an) ([^,.;:()\"!?]+)",
        r"\bthere(?:'s| is| will be) (?:a|an) ([^,.;:()\"!?]+)",
    ]
    for p in pats:
        m = re.search(p, text, re.I)
        if not m:
            continue
        ws = m.group(1).split()
        out = []
        for w in ws:
            lw = w.lower().strip("'\u2019")
            if lw in _BOUND or re.match(r"\d", lw) or lw in WEEKDAYS or lw in MONTHS:
                break
            out.append(w)
            if len(out) >= 5:
                break
        if out and not (len(out) == 1 and out[0].lower() in ("event", "thing", "one", "day")):
            if out[0].lower() in ("breakfast", "lunch", "dinner", "a", "look", "chat", "moment", "word"):
                continue
            return " ".join(out)
        if out:
            return " ".join(out)
    return ""


class Event(object):
    def __init__(self):
        self.what = ""
        self.host = None
        self.date = None
        self.start = None
        self.end = None
        self.address = None
        self.place_phrase = ""
        self.raw = ""
        self.content = ""
        self.teller = None

    @property
    def keys(self):
        return [w for w in _content_words(self.what) if w not in ("event",)]

    def minutes(self):
        if self.start is None or self.end is None:
            return None
        d = (self.end - self.start) % (24 * 60)
        return d or None

    def mentioned_in(self, s):
        low = (s or "").lower()
        ks = self.keys
        if ks:
            return sum(1 for k in ks if k in low) >= max(1, min(2, len(ks)) - (1 if len(ks) >= 3 else 0))
        return ("event" in low and self.start is not None and _ampm_short(self.start) in low)


def parse_event(ctx, text, default_host=None):
    ev = Event()
    ev.raw = text or ""
    content = ev.raw
    m = re.match(r"^\s*(" + NAME_RE + r") told ([^:\d]{1,120}?):\s+(.+)$", content)
    if m:
        ev.teller = ctx.full_name(m.group(1))
        content = m.group(3)
    gloss = ""
    g = re.search(r"\(that is ((?:[^()]|\([^()]*\))*)\)", content)
    if g:
        gloss = g.group(1)
        content_main = content[:g.start()].strip()
    else:
        content_main = content
    ev.content = content_main.strip()
    ev.what = _what(content_main) or _what(ev.raw) or "the event"
    ev.what = re.sub(r"^(?:the|a|an)\s+", "", ev.what, flags=re.I) if ev.what != "the event" else ev.what
    hm = re.search(r"\b(" + NAME_RE + r"|" + NAME_WORD + r") (?:(?:wants|plans|hopes|means|is going|would like|is planning|intends) to "
                   r"(?:hold|host|throw|organi[sz]e|put on|give|run|have|start|lead)|(?:is|are|will be) "
                   r"(?:holding|hosting|throwing|organi[sz]ing|putting on|giving|running))", content_main)
    if hm:
        ev.host = ctx.full_name(hm.group(1))
    elif re.search(r"\bI (?:want|plan|hope|mean|am going|'m going) to (?:hold|host|throw)|\bI'm (?:holding|hosting)|\bmy ", content_main):
        ev.host = default_host
    src_when = gloss or content_main
    ds = find_dates(src_when, ctx.year, ctx.today)
    if not ds and gloss:
        ds = find_dates(content_main, ctx.year, ctx.today)
    if ds:
        ev.date = ds[0][1]
    rg = find_range(re.sub(r"\b(?:19|20)\d{2}\b", "", src_when))
    if not rg and gloss:
        rg = find_range(content_main)
    if rg:
        ev.start, ev.end = rg
    pm = re.search(r"\b(?:in|at) ((?:the )?[^,.;()\"]+?)(?=\s+(?:on|from|tomorrow|today|tonight|this|next|at \d|between|starting|so)\b|[,.;(]|$)", content_main)
    if pm:
        pp = pm.group(1).strip()
        if not re.match(r"\d", pp) and len(pp.split()) <= 7:
            ev.place_phrase = pp
    place_src = ctx.strip_people(content_main + " " + gloss)
    ev.address = match_place(ctx.strip_people(ev.place_phrase + " " + gloss), ctx.addresses) or match_place(place_src, ctx.addresses)
    if not ev.place_phrase and ev.address:
        parts = ev.address.split(":")
        ev.place_phrase = "the %s at %s" % (parts[-1], parts[-2]) if len(parts) >= 3 else parts[-1]
    return ev


def find_news(ctx, who):
    """The news `who` has on their mind per the prompt: (Event, hosting) or (None, False)."""
    if not who:
        return None, False
    pat = re.compile(r"\b" + re.escape(who) + r" (has (?:some )?news|has something (?:to tell|to share|to pass on)|"
                     r"is keen to (?:tell|share)|wants to (?:tell|pass on|share))([^:\n]*):\s*(.+)")
    for l in ctx.other_lines + ctx.mem_lines:
        m = pat.search(l)
        if m:
            pre = m.group(2) or ""
            content = m.group(3)
            content = re.split(r"(?<=\))\.\s+" + NAME_WORD, content)[0]
            hosting = "host" in pre.lower()
            ev = parse_event(ctx, content, default_host=who)
            if hosting:
                ev.host = who
            if ev.host == who:
                hosting = True
            return ev, hosting
    return None, False


def plan_items(ctx):
    """Schedule lines: list of dicts(owner, start, end, activity, address, date)."""
    items = []
    owner = ctx.me
    for l in ctx.lines:
        s = l.strip()
        if not s:
            continue
        if not s.startswith("-"):
            # a heading/sentence naming a person sets the owner of the lines below
            names = [p for p in ctx.people if p in s]
            if names:
                owner = max(names, key=lambda p: s.find(p) >= 0 and -s.find(p))
                owner = names[0]
            continue
        body = s.lstrip("- ").strip()
        if body.startswith("["):
            continue
        ts = find_times(body[:80])
        if len(ts) < 2 or ts[0][0] > 2:
            continue
        between = body[ts[0][1]:ts[1][0]]
        if not re.fullmatch(r"\s*(?:-|\u2013|to|until)\s*", between):
            continue
        rg = find_range(body[:ts[1][1]])
        if not rg or rg[1] is None:
            continue
        rest = body[ts[1][1]:].strip()
        am = re.search(r"\((?:planned at )?([^()]*:[^()]*)\)", rest)
        addr = am.group(1).strip() if am else None
        act = rest[:am.start()].strip() if am else rest
        act = act.strip(" ,;:")
        date = None
        after = rest[am.end():] if am else ""
        dm = find_dates(after, ctx.year)
        if dm:
            date = dm[0][1]
        items.append({"owner": owner, "start": rg[0], "end": rg[1], "activity": act,
                      "address": addr, "date": date})
    return items


def clash_for(ctx, who, ev, items=None):
    """A real commitment in who's plan overlapping the event (activity text) or None;
    also returns whether the plan already holds the event."""
    if ev is None or ev.start is None:
        return None, False
    items = plan_items(ctx) if items is None else items
    end = ev.end if ev.end is not None else ev.start + 60
    has = False
    for it in items:
        if it["owner"] != who:
            continue
        d = it["date"] or ctx.today
        if ev.date is not None and d != ev.date:
            continue
        if ev.mentioned_in(it["activity"]):
            has = True
            continue
        s, e = it["start"], it["end"]
        if e <= s:
            e += 24 * 60
        if s < end and ev.start < e and _COMMIT_RE.search(it["activity"]):
            return it["activity"], has
    return None, has


def memory_events(ctx, who):
    """Events in memories/status: dict key -> info(event, votes, intent, host, heard)."""
    out = {}
    srcs = list(ctx.mem_lines)
    cur = ctx.pfield(who, "currently")
    if cur:
        srcs.append(cur)
    for l in srcs:
        if not (find_dates(l[12:] if l.lstrip().startswith(("-", "1", "2", "3", "4", "5", "6", "7", "8", "9")) else l, ctx.year) or
                re.search(r"\b(today|tomorrow|tonight)\b", l, re.I)):
            continue
        body = re.sub(r"^\s*(?:-|\d+\.)\s*\[[^\]]*\]\s*", "", l)
        ev = parse_event(ctx, body, default_host=None)
        if ev.what == "the event" or ev.start is None:
            continue
        k = " ".join(ev.keys) or ev.what.lower()
        if not k:
            continue
        info = out.setdefault(k, {"event": ev, "votes": {}, "last": None, "intent": False,
                                  "host": None, "heard": 0})
        if ev.date:
            info["votes"][ev.date] = info["votes"].get(ev.date, 0) + 1
            info["last"] = ev.date
        if ev.host and not info["host"]:
            info["host"] = ev.host
            info["event"].host = ev.host
        if info["event"].address is None and ev.address:
            info["event"].address = ev.address
        info["heard"] += 1
        fw = _first(who)
        if (who in body or re.search(r"\b" + re.escape(fw) + r"\b", body)) and _INTENT_RE.search(body):
            info["intent"] = True
    return out


def pick_memory_event(ctx, who, rng, upcoming_only=True):
    evs = memory_events(ctx, who)
    if not evs:
        return None, None
    k = max(evs, key=lambda x: evs[x]["heard"])
    info = evs[k]
    ev = info["event"]
    if info["votes"]:
        if rng.random() < 0.85:
            ev.date = max(info["votes"].items(), key=lambda kv: kv[1])[0]
        else:
            ev.date = info["last"]
    if upcoming_only and ev.date is not None and ev.date < ctx.today:
        return None, info
    return ev, info


# ----------------------------------------------------------------------------
# speech
# ----------------------------------------------------------------------------

INVITE_RE = re.compile(r"\b(?:(?:will|would|do|can|could|won't|wouldn't) you (?:like to )?(?:come|join|be there|make it)|"
                       r"do come|come along|you should come|you must come|love it if you came|"
                       r"love (?:to see|for) you (?:there|to come)|hope (?:to see you|you(?:'ll| can| will) come)|"
                       r"join us|you're welcome to come|you are welcome to come|fancy coming|care to come|"
                       r"want to come|like to come|are you coming|come with me|why don't you come)\b", re.I)
ACCEPT_RE = re.compile(r"\b(?:I'd love to (?:come|go|be there|join)|I(?:'ll| will) (?:come|be there|go|join|make it|definitely|"
                       r"come along|see you there|pop along|be along)|count me in|see you there|I think I'll (?:go|come)|"
                       r"I'd like to (?:go|come)|I want to go|I'm going|I am going|I'll try to (?:come|make it)|"
                       r"yes,? (?:please|I'd|I will|I'll)|wouldn't miss it|I'm in\b|I'll be going|going along)", re.I)
HEDGE_RE = re.compile(r"\b(?:might|maybe|perhaps|may well|I'll see|I'll think|if I can|possibly)\b", re.I)
DECLINE_RE = re.compile(r"\b(?:can't (?:make|come|go|be there)|cannot (?:come|make)|won't be able|not able to|"
                        r"I'll pass|no,? thank|sorry,? I can't|I'm busy|another time|can't make it|"
                        r"not my sort of thing|I won't (?:come|go|be))", re.I)
GOODBYE_RE = re.compile(r"\b(?:bye|goodbye|see you around|see you later|take care|must be off|better get on|"
                        r"better be going|must dash|be off now|farewell|good night|goodnight)\b", re.I)


def _a(what):
    if what == "the event":
        return "an event"
    if re.match(r"(?:the|a|an|my|her|his|their|our)\b", what, re.I):
        return what
    return ("an " if what[:1].lower() in "aeiou" else "a ") + what


def _time_phrase(ev, rng):
    if ev.start is None:
        return ""
    if ev.end is not None and rng.random() < 0.7:
        if rng.random() < 0.5:
            return "from %s to %s" % (_ampm(ev.start), _ampm(ev.end))
        return "from %s to %s" % (_ampm_short(ev.start), _ampm(ev.end))
    return "at %s" % _ampm(ev.start)


def news_sentence(ctx, rng, me, listener, ev, hosting):
    host = ev.host
    if host == me:
        hosting = True
    if rng.random() < 0.2 and ev.content:
        core = ev.content
        if hosting:
            core = re.sub(r"^" + re.escape(me) + r" wants", "I want", core)
            core = re.sub(r"^" + re.escape(me) + r" ", "I ", core)
        core = _clip(core, 230).rstrip(".")
        lead = rng.choice(["Have you heard? ", "Did you hear? ", "I've got news: ", "Guess what - ", ""])
        s = lead + core + "."
        if hosting and rng.random() < 0.85:
            s += " " + rng.choice(["Would you like to come?", "Do come along!", "I'd love it if you came.", "Will you come?"])
        return s
    day = ctx.date_phrase(ev.date, ev.start) if (ev.date is not None and rng.random() < 0.85) else ""
    tm = _time_phrase(ev, rng) if rng.random() < 0.8 else ""
    place = ""
    if ev.place_phrase and rng.random() < 0.75:
        pp = ev.place_phrase
        place = pp if re.match(r"(?:in|at|on|by|near|up|down)\b", pp) else ("at " + pp if not pp.lower().startswith("the ") else "in " + pp)
    bits = " ".join(x for x in [place, day, tm] if x)
    what = _a(ev.what)
    if hosting:
        s = rng.choice(["I'm holding %s %s." % (what, bits),
                        "I'm putting on %s %s." % (what, bits),
                        "I've got news: I'm holding %s %s." % (what, bits)])
        if rng.random() < 0.85:
            s += " " + rng.choice(["Would you like to come?", "Do come along!", "I'd love it if you came.",
                                   "Will you come?", "I hope you can make it."])
        return re.sub(r"\s+\.", ".", s)
    hn = _first(host) if host and host != listener else ""
    if host and host == listener:
        hn = ""
    if hn:
        s = rng.choice(["Have you heard? %s is holding %s %s." % (hn, what, bits),
                        "Did you hear %s is putting on %s %s?" % (hn, what, bits),
                        "%s is holding %s %s - have you heard?" % (hn, what, bits),
                        "I must tell you - %s wants to hold %s %s." % (hn, what, bits)])
    else:
        s = rng.choice(["Have you heard? There's %s %s." % (what, bits),
                        "Did you hear about %s %s?" % (what.replace("a ", "the ", 1) if what.startswith("a ") else what, bits),
                        "There's going to be %s %s, I hear." % (what, bits)])
    if rng.random() < 0.15:
        s += " " + rng.choice(["Should be fun.", "Everyone's talking about it.", "I'm thinking of going."])
    return re.sub(r"\s+([.?!])", r"\1", s)


def status_first_person(ctx, who):
    cur = ctx.pfield(who, "currently") or ""
    sent = re.split(r"(?<=[.!?])\s+", cur.strip())[0] if cur.strip() else ""
    if not sent:
        return ""
    s = sent
    fw = _first(who)
    m = re.match(r"^(?:" + re.escape(who) + r"|" + re.escape(fw) + r"|He|She|They)\s+(\w+)\s*(.*)$", s)
    if not m:
        return ""
    verb, rest = m.group(1), m.group(2)
    if verb in ("is", "are"):
        lead = "I'm"
    elif verb == "has":
        if rest.startswith("just ") or re.match(r"\w+ed\b|been\b|brought\b|found\b|made\b", rest):
            lead = "I've"
        else:
            lead = "I have"
    elif verb == "was":
        lead = "I was"
    elif verb.endswith("ies"):
        lead = "I " + verb[:-3] + "y"
    elif re.search(r"(?:sh|ch|ss|x|o)es$", verb):
        lead = "I " + verb[:-2]
    elif verb.endswith("s"):
        lead = "I " + verb[:-1]
    else:
        lead = "I " + verb
    rest = re.sub(r"\b(?:his|her|their)\b", "my", rest)
    rest = re.sub(r"\b" + re.escape(who) + r"\b", "me", rest)
    out = (lead + " " + rest).strip().rstrip(".")
    return out + "."


def _greeting(ctx, rng, fn):
    h = ctx.now_min // 60
    base = "Morning" if h < 12 else ("Afternoon" if h < 17 else "Evening")
    return rng.choice(["%s, %s!" % (base, fn), "Hello, %s." % fn, "Hi %s, lovely to see you." % fn,
                       "Oh, hello %s!" % fn, "%s, %s. How are you keeping?" % (base, fn)])


SMALL_Q = ["How have you been keeping?", "What have you been up to?", "Busy day?",
           "Anything new with you?", "How are things with you?"]
SMALL_R = ["It's nice to have a moment to chat.", "Lovely weather for it, isn't it?",
           "It's been a long day, I can tell you.", "Things are much the same as ever here.",
           "Can't complain, really."]
GOODBYES = ["Well, I'd better get on. Good to see you, {fn}!", "I must be off now - take care, {fn}.",
            "Right, back to it. Bye for now, {fn}!", "I'll let you get on. See you around, {fn}.",
            "Bye, {fn} - take care!"]


def _already_going(ctx, me, ev, items):
    if ev is None:
        return False
    _, has = clash_for(ctx, me, ev, items)
    if has:
        return True
    for l in ctx.mem_lines:
        if ev.mentioned_in(l) and (me in l or _first(me) in l) and _INTENT_RE.search(l):
            # the intent must be me's, not someone else's
            seg = l.split(":", 1)[-1]
            if re.search(r"\b" + re.escape(me) + r" said (?:they|he|she) would go|and " + re.escape(me) + r" said|"
                         + re.escape(me) + r" (?:is keen|means to go|is thinking of going|plans to go)", l):
                return True
            if seg and re.search(re.escape(me) + r": \"[^\"]*(?:I'd love to come|I'll come|I think I'll go|see you there|I'll be there)", l):
                return True
    return False


def decide_line(ctx, rng, me, partner, convo, news, items, force_news=None, group=False):
    """One line for `me`. Returns dict(text, end, mentioned_news, kind)."""
    ev, hosting = news if news else (None, False)
    my_lines = [t for s, t in convo if s == me]
    first_line = not my_lines
    last_other = None
    for s, t in reversed(convo):
        if s != me:
            last_other = (s, t)
            break
    addressee = last_other[0] if last_other else partner
    fn = _first(addressee) if addressee else ""
    if fn and rng.random() < 0.02:
        alts = [p for p in ctx.people if p not in (me, addressee)]
        if alts:
            fn = _first(rng.choice(alts))
    n_after = len(convo) + 1
    parts = []
    kind = "small"
    mentioned = False

    came_up = bool(ev) and any(ev.mentioned_in(t) for _, t in convo)
    want_news = False
    if ev is not None:
        if not came_up:
            p = 0.65 if first_line else 0.45
            if ev.date is not None and ev.date < ctx.today:
                p /= 2
            want_news = rng.random() < p
        elif not any(ev.mentioned_in(t) for t in my_lines):
            want_news = rng.random() < 0.1
        if force_news is not None:
            want_news = force_news and not any(ev.mentioned_in(t) for t in my_lines)

    lo_text = last_other[1] if last_other else ""
    lo_ev = None
    if last_other:
        e2 = parse_event(ctx, lo_text, default_host=last_other[0])
        if (e2.start is not None or e2.date is not None) and (e2.what != "the event" or re.search(r"\bevent\b", lo_text)):
            if ev is not None and (ev.mentioned_in(lo_text)):
                # the same event as my news: keep my richer reading of it
                lo_ev = ev
            else:
                lo_ev = e2
                if not lo_ev.host:
                    mev, info = pick_memory_event(ctx, me, rng, upcoming_only=False)
                    if mev is not None and mev.mentioned_in(lo_text):
                        lo_ev.host = mev.host
                        lo_ev.date = lo_ev.date or mev.date
                        lo_ev.start = lo_ev.start if lo_ev.start is not None else mev.start
                        lo_ev.end = lo_ev.end if lo_ev.end is not None else mev.end
        if lo_ev is not None and re.search(r"\bI (?:want|plan|hope|mean|am going|'m going) to (?:hold|host)|\bI'm (?:holding|hosting|putting on)", lo_text):
            lo_ev.host = last_other[0]
    lo_invite = bool(last_other) and bool(INVITE_RE.search(lo_text))
    lo_bye = bool(last_other) and bool(GOODBYE_RE.search(lo_text))
    end = None

    if lo_bye and not (lo_invite or lo_ev is not None):
        parts.append(rng.choice(GOODBYES).format(fn=fn))
        kind = "bye"
        end = rng.random() < 0.9
    elif lo_invite and last_other is not None:
        kind = "invite_reply"
        inv_ev = lo_ev or ev
        inviter = last_other[0]
        already = _already_going(ctx, me, inv_ev, items)
        clash, _ = clash_for(ctx, me, inv_ev, items) if inv_ev is not None else (None, False)
        if already and rng.random() < 0.9:
            parts.append(rng.choice(["Yes, I'll be there - I wouldn't miss it.", "Oh, I'm already planning to come!",
                                     "I'll be there, count on it."]))
            kind = "accept"
        else:
            p = 0.75
            if ctx.feeling(me, inviter) < 0:
                p = 0.40
            noticed = clash is not None and rng.random() < 0.6
            misread = clash is None and rng.random() < 0.10
            if noticed or misread:
                what_busy = clash
                if misread:
                    cur = [it for it in items if it["owner"] == me and inv_ev is not None and inv_ev.start is not None
                           and it["start"] <= inv_ev.start < (it["end"] if it["end"] > it["start"] else it["end"] + 1440)]
                    what_busy = cur[0]["activity"] if cur else "busy"
                parts.append(rng.choice(["That's kind of you, but I can't make it - I'll be %s then. Another time?" % what_busy,
                                         "Oh, I'm sorry, I'm %s then. Could we find another time?" % what_busy]))
                kind = "decline"
            elif rng.random() < p:
                t = _ampm(inv_ev.start) if inv_ev is not None and inv_ev.start is not None else ""
                parts.append(rng.choice(["Oh, I'd love to come - see you there%s!" % (" at " + t if t else ""),
                                         "Count me in. I'll be there%s." % (" at " + t if t else ""),
                                         "That sounds lovely, I'll come along.",
                                         "Yes, I'll come - thank you for asking, %s." % fn]))
                kind = "accept"
            else:
                if ctx.feeling(me, inviter) < 0:
                    parts.append(rng.choice(["I'll think about it.", "Not really my sort of thing, thanks.",
                                             "Hm. We'll see."]))
                else:
                    parts.append(rng.choice(["That's kind of you, but I don't think I'll manage it.",
                                             "Maybe - I'll see how I feel.", "I might, if I get the chance."]))
                kind = "no"
    elif lo_ev is not None and not (ev is not None and lo_ev is ev and hosting):
        kind = "news_reply"
        host = lo_ev.host
        already = _already_going(ctx, me, lo_ev, items)
        if already and rng.random() < 0.7:
            parts.append(rng.choice(["Yes, I'd heard - I'm going along myself.", "I know! I'll be there.",
                                     "Yes, I heard about it. I mean to go."]))
            kind = "accept"
        else:
            p = 0.40 + ctx.sociability(me)
            f = ctx.feeling(me, host) if host else 0
            if f > 0:
                p += 0.20
            elif f < 0:
                p -= 0.25
            p = max(0.05, min(0.85, p))
            if rng.random() < 0.05:
                parts.append(rng.choice(["Thank you for the invitation - I'd love to come.",
                                         "Thanks for inviting me, I'll come along."]))
                kind = "accept"
            elif rng.random() < p:
                parts.append(rng.choice(["Oh, how lovely! I think I'll go along to that.",
                                         "Really? I'd like to go to that.",
                                         "That sounds grand - I'll go%s." % (" at " + _ampm(lo_ev.start) if lo_ev.start is not None else ""),
                                         "Oh, I hadn't heard! I'll try to make it."]))
                kind = "accept"
            else:
                parts.append(rng.choice(["Oh, I hadn't heard that. Thanks for telling me.",
                                         "Really? That's nice to hear.", "Is that so? Good for %s." % (_first(host) if host else "them"),
                                         "Oh, I see."]))
                kind = "ack"
        if want_news and ev is not None and ev is not lo_ev and not ev.mentioned_in(lo_text):
            parts.append(news_sentence(ctx, rng, me, addressee, ev, hosting))
            mentioned = True
    else:
        if first_line and not convo:
            parts.append(_greeting(ctx, rng, fn))
        elif first_line and last_other and rng.random() < 0.5:
            parts.append(rng.choice(["Hello, %s!" % fn, "Oh, hello %s." % fn, "Good to see you, %s." % fn]))
        if want_news and ev is not None:
            parts.append(news_sentence(ctx, rng, me, addressee, ev, hosting))
            mentioned = True
            kind = "news"
        else:
            said = set(t for _, t in convo)
            if last_other and "?" in lo_text and rng.random() < 0.7:
                st = status_first_person(ctx, me)
                parts.append(rng.choice(["Oh, I'm well, thank you! ", "Not bad at all - ", ""]) + (st or "I've been keeping busy."))
            else:
                pool = SMALL_Q + SMALL_R
                st = status_first_person(ctx, me)
                if st:
                    pool = pool + [st, st]
                if rng.random() < 0.08 and said:
                    parts.append(rng.choice(sorted(said)))
                else:
                    cand = [x for x in pool if x not in said] or pool
                    parts.append(rng.choice(cand))
    # end of conversation?
    if end is None:
        if n_after < 3:
            p = 0.08
        elif n_after <= 4:
            p = 0.30
        elif n_after <= 6:
            p = 0.50
        else:
            p = 0.75
        untold = ev is not None and not came_up and not mentioned
        if untold:
            p /= 2
        end = rng.random() < p
        if end and rng.random() < 0.8 and kind not in ("bye",):
            parts.append(rng.choice(GOODBYES).format(fn=fn))
    text = " ".join(x.strip() for x in parts if x and x.strip())
    text = re.sub(r"\s+", " ", text).strip() or "Hello."
    return {"text": text, "end": bool(end), "mentioned": mentioned, "kind": kind, "addressee": addressee}


# ----------------------------------------------------------------------------
# conversation memos
# ----------------------------------------------------------------------------

def _iso(d):
    return d.isoformat() if d else ""


def _event_in_lines(ctx, rng, lines, news_list):
    for ev, hosting, holder in news_list:
        if ev is not None and any(ev.mentioned_in(t) for _, t in lines):
            return ev
    for s, t in lines:
        e = parse_event(ctx, t, default_host=s)
        if e.what != "the event" or (e.start is not None and re.search(r"\bevent\b", t)):
            if e.what != "the event" and not e.keys:
                continue
            mev, info = pick_memory_event(ctx, s, rng, upcoming_only=False)
            if mev is not None and (not e.keys or mev.mentioned_in(t)):
                e.host = e.host or mev.host
                e.date = e.date or mev.date
                if e.start is None:
                    e.start, e.end = mev.start, mev.end
                e.address = e.address or mev.address
                e.place_phrase = e.place_phrase or mev.place_phrase
            if e.start is None and e.date is None and not e.keys:
                continue
            return e
    return None


def analyze_memo(ctx, rng, me, lines, news_list, date_enum=None, place_enum=None, items=None):
    items = plan_items(ctx) if items is None else items
    others = []
    for s, _ in lines:
        if s != me and s not in others:
            others.append(s)
    if not others:
        others = [p for p in ctx.people if p != me][:1]
    ev = _event_in_lines(ctx, rng, lines, news_list)
    my = [t for s, t in lines if s == me]
    status = None
    if ev is not None:
        mention_idx = next((i for i, (s, t) in enumerate(lines) if ev.mentioned_in(t) or INVITE_RE.search(t)), 0)
        host_me = ev.host == me or any(re.search(r"\bI (?:want|plan|hope|mean|am going|'m going) to (?:hold|host)|\bI'm (?:holding|hosting)", t) for t in my)
        sig = None
        for i, (s, t) in enumerate(lines):
            if s != me or i < mention_idx:
                continue
            if DECLINE_RE.search(t):
                sig = "declined"
            elif ACCEPT_RE.search(t):
                sig = "hedge" if HEDGE_RE.search(t) and not re.search(r"\b(?:will|I'll|count me)\b", t) else "yes"
            elif HEDGE_RE.search(t) and (ev.mentioned_in(t) or re.search(r"\b(?:go|come|along)\b", t)):
                sig = sig or "hedge"
        told = any(ev.mentioned_in(t) for t in my)
        if host_me:
            status = "host"
        elif sig:
            status = sig
        elif told:
            status = "told"
        else:
            status = "heard"
    meet_time = None
    if ev is None:
        for s, t in lines:
            m = re.search(r"\bsee you (?:at|there at|on)\b(.{0,30})", t, re.I)
            if m:
                ts = find_times(m.group(1))
                if ts:
                    meet_time = ts[0][2]
    p_plan = {"yes": 0.85, "hedge": 0.50, "declined": 0.05, "heard": 0.12, "told": 0.10, "host": 0.25}.get(status, 0.0)
    if ev is None and meet_time is not None:
        p_plan = 0.50
    plan = {"plan_activity": "", "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    if rng.random() < p_plan:
        if ev is not None:
            act = ("hosting the %s" if status == "host" else "going to the %s") % (ev.what if ev.what != "the event" else "event")
            act = act.replace("the the ", "the ")
            d = ev.date
            r = rng.random()
            if r < 0.88:
                pass
            elif r < 0.96:
                d = ctx.today
            else:
                d = None
            st = ev.start
            if st is not None and rng.random() >= 0.9:
                st = st + rng.choice([-60, 60])
            mins = ev.minutes()
            if mins is None or rng.random() >= 0.85:
                mins = rng.choice([60, 120])
            place = ""
            if ev.address and rng.random() < 0.85:
                place = ev.address
            plan = {"plan_activity": act, "plan_date": _iso(d), "plan_start": _hhmm(st) if st is not None else "",
                    "plan_minutes": int(mins), "plan_place": place}
        else:
            cur_addr = None
            for l in ctx.other_lines:
                if re.search(r"\b(?:it is|it's)\b", l, re.I):
                    a = match_place(l, ctx.addresses)
                    m = _ADDR_RE.search(l)
                    cur_addr = ("%s:%s:%s" % m.groups()).strip() if m else a
                    break
            plan = {"plan_activity": "meeting %s" % " and ".join(others[:2]), "plan_date": _iso(ctx.today),
                    "plan_start": _hhmm(meet_time), "plan_minutes": 30, "plan_place": cur_addr or ""}
        if plan["plan_start"] and rng.random() < 0.02:
            plan["plan_start"] = _ampm(int(plan["plan_start"][:2]) * 60 + int(plan["plan_start"][3:])).upper()
    # keep enum'd fields inside their enums
    if date_enum and plan["plan_date"] not in date_enum:
        plan["plan_date"] = ""
    if place_enum is not None and plan["plan_place"] not in place_enum:
        plan["plan_place"] = ""
    # summary
    with_ = " and ".join(others) if others else "someone"
    if ev is not None:
        teller = next((s for s, t in lines if ev.mentioned_in(t)), None) or (others[0] if others else me)
        w = ev.what if ev.what != "the event" else "an event"
        hostbit = ("%s's " % _first(ev.host)) if ev.host and ev.host not in (me, teller) else "the "
        if ev.host == teller or ev.host == me:
            hostbit = "the "
        when = ""
        if rng.random() < 0.85:
            bits = []
            if ev.date is not None:
                bits.append("on %s %s" % (WEEKDAYS[ev.date.weekday()].capitalize(), ev.date.strftime("%B %d").replace(" 0", " ")))
            if ev.start is not None:
                bits.append(_time_phrase(ev, rng))
            when = " ".join(bits)
        where = (" at " + ev.address.split(":")[1] if ev.address and ev.address.count(":") >= 2 else "")
        what_s = hostbit + w if not w.startswith(("a ", "an ")) else w
        if teller == me:
            summ = "%s told %s about %s%s %s" % (me, with_, what_s, where, when)
        else:
            summ = "%s told %s about %s%s %s" % (teller, me, what_s, where, when)
        summ = summ.strip()
        if status in ("yes",):
            summ += ", and %s said they would go" % me
        elif status == "hedge":
            summ += ", and %s said they might go" % me
        elif status == "declined":
            summ += ", but %s can't make it" % me
        elif status == "host":
            acc = [s for s, t in lines if s != me and ACCEPT_RE.search(t)]
            if acc:
                summ += ", and %s said they would come" % " and ".join(acc)
        summ += "."
        imp = 6 if status in ("yes", "declined", "host", "hedge") else 5
    else:
        topic = ""
        st = ctx.pfield(me, "currently")
        summ = "%s chatted with %s about everyday things; nothing was arranged." % (me, with_)
        if meet_time is not None:
            summ = "%s chatted with %s and they agreed to meet at %s." % (me, with_, _ampm(meet_time))
        imp = 2
    if rng.random() < 0.4:
        imp += rng.choice([-1, 1])
    imp = max(1, min(10, imp))
    if rng.random() < 0.02:
        summ = summ + " " + _clip(" ".join(t for _, t in lines), 420)
    out = {"summary": re.sub(r"\s+", " ", summ).replace(" ,", ","), "importance": imp}
    out.update(plan)
    return out


def _json_out(ctx, rng, obj, p_trunc):
    s = json.dumps(obj, ensure_ascii=False)
    p = p_trunc / 2.0 if ctx.retry else p_trunc
    if rng.random() < p and len(s) > 10:
        s = s[:max(5, int(len(s) * rng.uniform(0.3, 0.9)))]
    limit = int(ctx.max_tokens * 3.5)
    if len(s) > limit:
        s = s[:limit]
    return s


EMOJI = [("sleep", "\U0001F634"), ("bed", "\U0001F634"), ("wak", "\u23F0"), ("breakfast", "\U0001F373"),
         ("lunch", "\U0001F96A"), ("dinner", "\U0001F372"), ("supper", "\U0001F372"), ("eat", "\U0001F37D"),
         ("cook", "\U0001F373"), ("shop", "\U0001F6D2"), ("read", "\U0001F4D6"), ("book", "\U0001F4D6"),
         ("talk", "\U0001F4AC"), ("chat", "\U0001F4AC"), ("calling", "\U0001F6AA"), ("visit", "\U0001F6AA"),
         ("people", "\U0001F44B"), ("relax", "\u2615"), ("tea", "\u2615"), ("walk", "\U0001F6B6"),
         ("going to", "\U0001F389"), ("hosting", "\U0001F389"), ("work", "\U0001F6E0"), ("mend", "\U0001F527"),
         ("farm", "\U0001F33E"), ("field", "\U0001F33E"), ("garden", "\U0001F33B"), ("write", "\u270D")]


def _emoji(act):
    low = (act or "").lower()
    for k, e in EMOJI:
        if k in low:
            return e
    return "\U0001F642"


# ----------------------------------------------------------------------------
# handlers: conversations
# ----------------------------------------------------------------------------

def _my_news(ctx, rng, me, first_line):
    ev, hosting = find_news(ctx, me)
    if ev is None and first_line:
        # N1b: no explicit news, but an upcoming event in its memories
        if not re.search(re.escape(me) + r" has no news", ctx.user):
            mev, info = pick_memory_event(ctx, me, rng, upcoming_only=True)
            if mev is not None and rng.random() < 0.15:
                return (mev, mev.host == me), True
        return None, False
    if ev is None:
        return None, False
    return (ev, hosting), False


def h_dialogue_text(ctx, rng):
    me = ctx.me
    partner = ctx.partner_guess() or (ctx.others()[0] if ctx.others() else "there")
    convo = ctx.convo
    items = plan_items(ctx)
    first_line = not any(s == me for s, _ in convo)
    news, forced = _my_news(ctx, rng, me, first_line)
    r = decide_line(ctx, rng, me, partner, convo, news, items, force_news=(True if forced else None))
    text = r["text"]
    tags = re.findall(r"\[([A-Za-z_ -]{2,20})\]", ctx.user[-1500:])
    end_tag, cont_tag = "[end]", "[continue]"
    uniq = []
    for t in tags:
        if t not in uniq:
            uniq.append(t)
    for t in uniq:
        if re.search(r"end|over|stop|done|bye|leave|close", t, re.I):
            end_tag = "[" + t + "]"
        elif re.search(r"cont|more|go on|next|open", t, re.I):
            cont_tag = "[" + t + "]"
    tag = end_tag if r["end"] else cont_tag
    scale = 0.5 if ctx.retry else 1.0
    x = rng.random()
    cut = 0.0
    for p, form in ((0.02, "notag"), (0.02, "name"), (0.015, "quotes"), (0.01, "partner"), (0.005, "preamble")):
        cut += p * scale
        if x < cut:
            break
    else:
        form = "ok"
    if form == "notag":
        return text
    if form == "name":
        return "%s: %s\n%s" % (me, text, tag)
    if form == "quotes":
        return "\"%s\"\n%s" % (text, tag)
    if form == "partner":
        reply = rng.choice(SMALL_R + ["Oh, I see. Thanks for telling me."])
        return "%s\n%s\n%s: \"%s\"" % (text, tag, r["addressee"] or partner, reply)
    if form == "preamble":
        return "Here is what %s says:\n\n%s\n%s" % (me, text, tag)
    return "%s\n%s" % (text, tag)


def h_group_turn(ctx, rng):
    me = ctx.me
    allowed = ctx.enums.get("addressed_to") or []
    partner = None
    for s, _ in reversed(ctx.convo):
        if s != me:
            partner = s
            break
    if partner is None:
        cands = [a for a in allowed if a != "everyone"]
        partner = cands[0] if cands else (ctx.partner_guess() or "everyone")
    items = plan_items(ctx)
    first_line = not any(s == me for s, _ in ctx.convo)
    news, forced = _my_news(ctx, rng, me, first_line)
    r = decide_line(ctx, rng, me, partner, ctx.convo, news, items, force_news=(True if forced else None), group=True)
    people_allowed = [a for a in allowed if a != "everyone"]
    if allowed:
        if r["mentioned"] and "everyone" in allowed and rng.random() < 0.6:
            to = "everyone"
        elif r["addressee"] in allowed and rng.random() < 0.7:
            to = r["addressee"]
        else:
            to = rng.choice(allowed)
    else:
        to = r["addressee"] or "everyone"
    obj = {"utterance": r["text"], "addressed_to": to, "end_conversation": r["end"]}
    return _json_out(ctx, rng, obj, 0.02)


def h_memo(ctx, rng):
    me = ctx.me
    lines = ctx.convo
    news_list = [(find_news(ctx, p)[0], False, p) for p in [me] + ctx.others()]
    out = analyze_memo(ctx, rng, me, lines, news_list, ctx.enums.get("plan_date"),
                       ctx.enums.get("plan_place"))
    props = (_resolve(ctx.schema, ctx.root).get("properties") or {})
    out = {k: v for k, v in out.items() if k in props or not props}
    return _json_out(ctx, rng, out, 0.02)


def _gist(ctx, rng, speakers, max_lines, min_lines=2):
    items = plan_items(ctx)
    news = {}
    for p in speakers:
        ev, hosting = find_news(ctx, p)
        news[p] = (ev, hosting) if ev is not None else None
    n = rng.randint(max(min_lines, 3), max(max_lines, 3)) if max_lines >= 3 else max_lines
    n = max(min_lines, min(n, max_lines))
    plan_turn = {}
    for p in speakers:
        if news[p] is not None and rng.random() < 0.8:
            plan_turn[p] = 0 if rng.random() < 0.75 else 1
    lines = []
    turns = {p: 0 for p in speakers}
    i = 0
    while len(lines) < n:
        sp = speakers[i % len(speakers)]
        others = [q for q in speakers if q != sp]
        fn = plan_turn.get(sp)
        force = (fn is not None and turns[sp] >= fn)
        r = decide_line(ctx, rng, sp, others[0] if others else sp, lines, news[sp], items,
                        force_news=force if news[sp] is not None else None, group=len(speakers) > 2)
        text = r["text"]
        if len(lines) == n - 1 and not GOODBYE_RE.search(text) and rng.random() < 0.5:
            text += " " + rng.choice(GOODBYES).format(fn=_first(others[0]) if others else "")
        lines.append((sp, _clip(text, 290)))
        turns[sp] += 1
        i += 1
    return lines, news


def h_pair_summary(ctx, rng):
    spk_enum = []
    sch = _prop_schema(ctx.schema, ctx.root, "lines", "[]", "speaker")
    spk_enum = sch.get("enum") or []
    first = None
    m = re.search(r"(" + NAME_RE + r") first\b", ctx.user)
    if m:
        first = ctx.full_name(m.group(1))
    people = [p for p in spk_enum] or [p for p in ctx.persona] or ctx.people[:2]
    if first is None:
        first = ctx.me if ctx.me in people else people[0]
    second = next((p for p in people if p != first), None) or (ctx.partner_guess(exclude=(first,)) or "someone")
    speakers = [first, second]
    any_news = any(find_news(ctx, p)[0] is not None for p in speakers)
    p_talk = 0.85 if any_news else 0.45
    if ctx.feeling(first, second) < 0 or ctx.feeling(second, first) < 0:
        p_talk *= 0.6
    talk = rng.random() < p_talk
    if not talk:
        if rng.random() < 0.7:
            obj = {"talk": False, "lines": [], "first": None, "second": None}
        else:
            e = {"plan_activity": "", "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": ""}
            f = dict(summary="%s saw %s but they did not stop to talk." % (first, second), importance=1, **e)
            s = dict(summary="%s saw %s but they did not stop to talk." % (second, first), importance=1, **e)
            obj = {"talk": False, "lines": [], "first": f, "second": s}
        return _json_out(ctx, rng, obj, 0.02)
    maxl = _prop_schema(ctx.schema, ctx.root, "lines").get("maxItems", 6)
    lines, news = _gist(ctx, rng, speakers, min(int(maxl), 6))
    news_list = [(news[p][0] if news[p] else None, False, p) for p in speakers]
    fs = _prop_schema(ctx.schema, ctx.root, "first")
    ss = _prop_schema(ctx.schema, ctx.root, "second")

    def enums_of(s):
        pr = s.get("properties") or {}
        de = _resolve(pr.get("plan_date", {}), ctx.root).get("enum")
        pe = _resolve(pr.get("plan_place", {}), ctx.root).get("enum")
        return de, pe
    de1, pe1 = enums_of(fs)
    de2, pe2 = enums_of(ss)
    m1 = analyze_memo(ctx, rng, first, lines, news_list, de1, pe1)
    m2 = analyze_memo(ctx, rng, second, lines, news_list, de2, pe2)
    if rng.random() < 0.03:
        keys = ["plan_activity", "plan_date", "plan_start", "plan_minutes", "plan_place"]
        a = {k: m1[k] for k in keys}
        b = {k: m2[k] for k in keys}
        m1.update(b)
        m2.update(a)
        if pe1 is not None and m1["plan_place"] not in pe1:
            m1["plan_place"] = ""
        if pe2 is not None and m2["plan_place"] not in pe2:
            m2["plan_place"] = ""
    gl = [{"speaker": s, "text": t} for s, t in lines]
    if spk_enum:
        gl = [g for g in gl if g["speaker"] in spk_enum]
    obj = {"talk": True, "lines": gl, "first": m1, "second": m2}
    return _json_out(ctx, rng, obj, 0.02)


def h_group_summary(ctx, rng):
    sch = _prop_schema(ctx.schema, ctx.root, "lines", "[]", "speaker")
    spk_enum = sch.get("enum") or []
    people = list(spk_enum) or [p for p in ctx.persona] or ctx.people[:3]
    first = None
    m = re.search(r"(" + NAME_RE + r") first\b", ctx.user)
    if m:
        first = ctx.full_name(m.group(1))
    if first in people:
        people = [first] + [p for p in people if p != first]
    any_news = any(find_news(ctx, p)[0] is not None for p in people)
    p_talk = 0.85 if any_news else 0.45
    for a in people:
        for b in people:
            if a != b and ctx.feeling(a, b) < 0:
                p_talk *= 0.6
                break
        else:
            continue
        break
    if rng.random() >= p_talk:
        if rng.random() < 0.7:
            obj = {"talk": False, "lines": [], "memos": []}
        else:
            obj = {"talk": False, "lines": [], "memos": [
                {"summary": "%s saw the others but did not stop to talk." % p, "importance": 1, "plan_activity": "",
                 "plan_date": "", "plan_start": "", "plan_minutes": 0, "plan_place": "", "name": p} for p in people]}
        return _json_out(ctx, rng, obj, 0.02)
    maxl = int(_prop_schema(ctx.schema, ctx.root, "lines").get("maxItems", 10))
    lines, news = _gist(ctx, rng, people, min(maxl, 10))
    news_list = [(news[p][0] if news[p] else None, False, p) for p in people]
    ms = _prop_schema(ctx.schema, ctx.root, "memos", "[]")
    pr = ms.get("properties") or {}
    de = _resolve(pr.get("plan_date", {}), ctx.root).get("enum")
    pe = _resolve(pr.get("plan_place", {}), ctx.root).get("enum")
    memos = []
    for p in people:
        mm = analyze_memo(ctx, rng, p, lines, news_list, de, pe)
        mm["name"] = p
        memos.append(mm)
    if len(memos) > 1 and rng.random() < 0.1:
        memos.pop(rng.randrange(len(memos)))
    mx = int(_prop_schema(ctx.schema, ctx.root, "memos").get("maxItems", 8))
    memos = memos[:mx]
    gl = [{"speaker": s, "text": t} for s, t in lines if not spk_enum or s in spk_enum]
    obj = {"talk": True, "lines": gl, "memos": memos}
    return _json_out(ctx, rng, obj, 0.02)


# ----------------------------------------------------------------------------
# handlers: reaction, re-plan, day plan, decomposition
# ----------------------------------------------------------------------------

def h_react(ctx, rng):
    me = ctx.me
    fme = _first(me)
    choices = ctx.enums.get("choice") or ["continue", "talk", "react"]
    obs = ""
    for l in ctx.other_lines:
        if re.search(r"\b(?:noticed|notices|sees|observ|right now)\b", l, re.I):
            obs += " " + l
    persons = [p for p in ctx.people if p != me and (p in obs or re.search(r"\b" + re.escape(_first(p)) + r"\b", obs))]
    target = persons[0] if persons else None
    ev, hosting = find_news(ctx, me)
    coming = bool(target) and bool(re.search(r"(?:calling on|visiting|to talk with|to see|over to talk with|looking for) (?:" +
                                             re.escape(me) + r"|" + re.escape(fme) + r")\b", obs))
    if target is None:
        w = {"continue": 0.90, "react": 0.10}
    elif coming:
        w = {"talk": 0.70, "continue": 0.20, "wait": 0.05, "react": 0.05}
    elif ev is not None:
        w = {"talk": 0.65, "continue": 0.25, "wait": 0.05, "react": 0.05}
    else:
        pt = 0.10 if ctx.feeling(me, target) < 0 else 0.25
        w = {"talk": pt, "continue": 0.95 - pt - 0.05, "wait": 0.05, "react": 0.05}
    w = {k: v for k, v in w.items() if k in choices}
    if not w:
        w = {choices[0]: 1.0}
    x = rng.random() * sum(w.values())
    acc = 0.0
    choice = list(w)[-1]
    for k, v in w.items():
        acc += v
        if x < acc:
            choice = k
            break
    tf = _first(target) if target else ""
    if choice == "talk":
        if ev is not None:
            reason = "%s hasn't heard about the %s yet and is right here." % (tf, ev.what if ev.what != "the event" else "news")
        elif coming:
            reason = "%s has come to see %s, so it would be rude not to talk." % (tf, fme)
        else:
            reason = "It would be friendly to say hello to %s." % tf
    elif choice == "wait":
        reason = "%s is busy right now; better to wait until they are done." % (tf or "They")
    elif choice == "react":
        reason = "This changes what %s should be doing for a while." % fme
    else:
        reason = rng.choice(["Nothing here calls for a change of plan.", "%s carries on as planned." % fme,
                             "It's an ordinary moment; no need to interrupt the day."])
    new_act = ""
    if choice == "react":
        new_act = ("going over to see %s" % target) if target else rng.choice(["having a look around", "tidying up", "taking a short walk"])
    obj = {"choice": choice, "reason": reason, "new_activity": new_act}
    props = (_resolve(ctx.schema, ctx.root).get("properties") or {})
    obj = {k: v for k, v in obj.items() if k in props or not props}
    return _json_out(ctx, rng, obj, 0.01)


def h_replan(ctx, rng):
    me = ctx.me
    bs = _prop_schema(ctx.schema, ctx.root, "new_blocks", "[]")
    pr = bs.get("properties") or {}
    starts = _resolve(pr.get("start", {}), ctx.root).get("enum") or []
    addr_enum = _resolve(pr.get("address", {}), ctx.root).get("enum") or ctx.addresses
    maxb = int(_prop_schema(ctx.schema, ctx.root, "new_blocks").get("maxItems", 6) or 6)

    def tmin(s):
        try:
            h, m = s.split(":")
            return int(h) * 60 + int(m)
        except Exception:
            return None
    svals = [tmin(s) for s in starts if tmin(s) is not None]
    if svals:
        w0, w1 = min(svals), max(svals) + 5
    else:
        w0 = ctx.now_min
        w1 = w0 + 60
    items = [it for it in plan_items(ctx) if it["owner"] == me]
    cur = None
    best = 0
    for it in items:
        s, e = it["start"], it["end"]
        if e <= s:
            e += 1440
        ov = min(e, w1) - max(s, w0)
        if ov > best and not it["date"]:
            best, cur = ov, it
    cur_act = cur["activity"] if cur else "carrying on with the day"
    cur_addr = cur["address"] if cur and cur["address"] in addr_enum else (match_place(cur_act, addr_enum) or (addr_enum[0] if addr_enum else ""))
    trig = ""
    for l in ctx.other_lines:
        if re.search(r"\bchang", l) and re.search(r"\bplan", l):
            trig = l
            break
    persons = [p for p in ctx.people if p != me and (p in trig or re.search(r"\b" + re.escape(_first(p)) + r"\b", trig))]
    blocks = []

    def snap(m):
        if not starts:
            return _hhmm(m)
        best_s = min(starts, key=lambda s: abs((tmin(s) or 0) - m))
        return best_s
    t = w0
    if persons and re.search(r"\btalk|chat|visit|calling", trig) and rng.random() < 0.6:
        blocks.append({"start": snap(t), "activity": "talking with %s" % persons[0], "emoji": "\U0001F4AC",
                       "address": cur_addr})
        t += rng.choice([10, 15, 20])
    ev, hosting = find_news(ctx, me)
    went = False
    if ev is not None:
        spots = []
        for l in ctx.other_lines:
            m = re.match(r"^\s*-\s*(.+?):\s*(\d+)\s+(?:people|person)\b[^,]*,\s*(.+)$", l)
            if m and m.group(1) in addr_enum:
                rg = find_range(m.group(3))
                if rg and rg[1] is not None and rg[0] < w1 and rg[1] > t:
                    spots.append((m.group(1), max(rg[0], t)))
        if spots and rng.random() < 0.35:
            a, st = spots[0]
            if st > t and len(blocks) < maxb:
                blocks.append({"start": snap(t), "activity": cur_act, "emoji": _emoji(cur_act), "address": cur_addr})
            blocks.append({"start": snap(st), "activity": "passing on the news at %s" % a.split(":")[-1],
                           "emoji": "\U0001F4E3", "address": a})
            went = True
    if not went:
        blocks.append({"start": snap(t), "activity": cur_act if not cur_act.startswith("sleep") else cur_act,
                       "emoji": _emoji(cur_act), "address": cur_addr})
    # starts strictly increasing; de-duplicate
    out = []
    seen = set()
    for b in blocks:
        if b["start"] in seen:
            continue
        seen.add(b["start"])
        out.append(b)
    out.sort(key=lambda b: tmin(b["start"]) or 0)
    if starts and out and out[0]["start"] != starts[0] and rng.random() < 0.9:
        out[0]["start"] = starts[0]
    obj = {"new_blocks": out[:maxb] or [{"start": starts[0] if starts else _hhmm(w0), "activity": cur_act,
                                         "emoji": _emoji(cur_act), "address": cur_addr}]}
    return _json_out(ctx, rng, obj, 0.01)


def _lifestyle_times(text):
    wake = bed = ws = we = None
    m = re.search(r"wakes? up (?:at |around )?([^,;]+?)(?:,|;| and|$)", text)
    if m:
        ts = find_times(m.group(1) + " ")
        if ts:
            wake = ts[0][2]
    m = re.search(r"(?:goes|go|going) to bed (?:at |around )?([^,;]+?)(?:,|;|$|\.\s)", text + " ")
    if m:
        ts = find_times(m.group(1))
        if ts:
            bed = ts[0][2]
    m = re.search(r"from ([^,;]+?) (?:to|until|till) ([^,;]+?)(?:,|;| and|$)", text)
    if m:
        a = find_times(m.group(1) + " ")
        b = find_times(m.group(2) + " ")
        if a and b:
            ws, we = a[0][2], b[0][2]
    return wake, bed, ws, we


def h_daily_plan(ctx, rng):
    me = ctx.me
    bs = _prop_schema(ctx.schema, ctx.root, "blocks", "[]")
    addr_enum = _resolve((bs.get("properties") or {}).get("address", {}), ctx.root).get("enum") or ctx.addresses or ["home"]
    life = ctx.pfield(me, "lifestyle") or ""
    ident = ctx.pfield(me, "identity") or ""
    wake, bed, ws, we = _lifestyle_times(life)
    wake = 7 * 60 if wake is None else wake
    bed = 22 * 60 if bed is None else bed
    if bed < 12 * 60:
        bed += 24 * 60
    if ws is None or we is None or we <= ws:
        ws, we = 9 * 60, 17 * 60
    wh = wake // 60
    if rng.random() >= 0.9:
        wh = max(0, min(23, wh + rng.choice([-1, 1])))
    # home / kitchen / work place
    home = None
    m = re.search(r"home \(([^()]+:[^()]+)\)", ctx.user)
    if m and m.group(1) in addr_enum:
        home = m.group(1)
    if home is None:
        sur = me.split()[-1]
        cands = [a for a in addr_enum if sur in a]
        home = (cands[0] if cands else addr_enum[0])
    bld = ":".join(home.split(":")[:-1])
    kitchen = next((a for a in addr_enum if a.startswith(bld + ":") and "kitchen" in a.lower()), home)
    work_text = re.sub(r"wakes? up.*?,|goes to bed.*", "", life)
    work_act = None
    m = re.search(r"\b((?:works?|keeps?|runs?|opens?|tends?|minds?|teaches|teach|mends?|farms?|bakes?)\b[^,;]*?)\s+from\b", life)
    if m:
        work_act = m.group(1).strip()
        wa = work_act.split(" ", 1)
        v = wa[0]
        if v.endswith("es") and v[:-2].endswith(("ch", "sh", "x")):
            v = v[:-2]
        elif v.endswith("s"):
            v = v[:-1]
        ing = (v[:-1] + "ing") if v.endswith("e") and not v.endswith("ee") else v + "ing"
        work_act = ing + (" " + wa[1] if len(wa) > 1 else "")
        work_act = re.sub(r"\b(?:his|her|their)\b", "the", work_act)
    else:
        work_act = "working"
    non_home = [a for a in addr_enum if not a.startswith(bld + ":")]
    work_addr = match_place(ctx.strip_people(work_text), non_home) or match_place(ctx.strip_people(work_text + " " + ident), addr_enum) or (non_home[0] if non_home else home)
    blocks = []  # (start, end, activity, address)

    def add(s, e, act, addr):
        if e > s:
            blocks.append([s, e, act, addr])
    t = wake if wh == wake // 60 else wh * 60
    add(t, t + 30, "waking up and getting ready", home)
    t += 30
    add(t, t + 30, "having breakfast", kitchen)
    t += 30
    if ws > t:
        pub = [a for a in addr_enum if a != home and a != work_addr and not a.startswith(bld + ":")]
        if pub and rng.random() < 0.4:
            add(t, ws, "seeing people at the %s" % rng.choice(pub).split(":")[-1], rng.choice(pub))
        else:
            add(t, ws, "relaxing at home", home)
        t = ws
    lunch = 12 * 60 if ws < 12 * 60 < we - 60 else None
    if lunch:
        add(t, lunch, work_act, work_addr)
        add(lunch, lunch + 30 + (30 if rng.random() < 0.3 else 0), "having lunch", work_addr if rng.random() < 0.6 else kitchen)
        t = blocks[-1][1]
    add(t, we, work_act, work_addr)
    t = max(t, we)
    if not lunch and t < 15 * 60:
        add(t, t + 30, "having lunch", kitchen)
        t += 30
    dinner = max(t, 18 * 60 + 30 if t <= 18 * 60 else t)
    evening_end = bed
    # event today?
    mev, info = pick_memory_event(ctx, me, rng, upcoming_only=True)
    ev_block = None
    if mev is not None and mev.date == ctx.today and mev.start is not None:
        host = mev.host == me or (info and info.get("host") == me)
        if host:
            p = 0.9
        elif info and info.get("intent"):
            p = 0.75
        else:
            p = 0.30
            if mev.host and ctx.feeling(me, mev.host) < 0:
                p -= 0.15
        if rng.random() < p:
            st = mev.start
            en = mev.end if mev.end is not None and mev.end > st else st + 120
            addr = mev.address if mev.address in addr_enum else (match_place(mev.place_phrase, addr_enum) or work_addr)
            ev_block = [st, en, ("hosting the %s" if host else "going to the %s") % mev.what.replace("the event", "event"), addr]
            if en > evening_end:
                evening_end = en
    # afternoon/evening
    if ev_block and ev_block[0] < t:
        # the event cuts into work
        blocks = [b for b in blocks if b[0] < ev_block[0]]
        if blocks:
            blocks[-1][1] = min(blocks[-1][1], ev_block[0])
        t = ev_block[0]
    rest = []
    if t < dinner:
        friends = [p for p in ctx.people if p != me and ctx.feeling(me, p) > 0]
        if friends and rng.random() < 0.30:
            fr = rng.choice(friends)
            fa = next((a for a in addr_enum if fr.split()[-1] in a), None) or home
            rest.append([t, min(dinner, t + 60), "calling on %s" % fr, fa])
            if t + 60 < dinner:
                rest.append([t + 60, dinner, "relaxing at home", home])
        else:
            rest.append([t, dinner, "relaxing at home", home])
    rest.append([dinner, dinner + 60, "having dinner", kitchen])
    rest.append([dinner + 60, evening_end, "relaxing at home", home])
    if ev_block:
        merged = []
        for b in rest:
            if b[1] <= ev_block[0] or b[0] >= ev_block[1]:
                merged.append(b)
            else:
                if b[0] < ev_block[0]:
                    merged.append([b[0], ev_block[0], b[2], b[3]])
                if b[1] > ev_block[1]:
                    merged.append([ev_block[1], b[1], b[2], b[3]])
                if "dinner" in b[2] and not any("dinner" in x[2] for x in merged):
                    pass
        merged.append(ev_block)
        merged.sort(key=lambda b: b[0])
        if not any("dinner" in b[2] for b in merged):
            # put dinner right before the event
            pre = [b for b in merged if b[1] == ev_block[0]]
            if pre and pre[0][1] - pre[0][0] >= 30:
                pre[0][1] -= 30
                merged.append([ev_block[0] - 30, ev_block[0], "having dinner", kitchen])
            merged.sort(key=lambda b: b[0])
        rest = merged
    for b in rest:
        add(b[0], b[1], b[2], b[3])
    blocks = [b for b in blocks if b[1] > b[0] and b[0] < evening_end]
    blocks.sort(key=lambda b: b[0])
    # sleep
    sleep_len = (wh * 60 + 24 * 60) - evening_end
    if sleep_len < 60:
        sleep_len = 8 * 60
    blocks.append([evening_end, evening_end + sleep_len, "sleeping", home])
    if rng.random() < 0.04 and len(blocks) > 3:
        b = blocks[-2]
        if b[1] - b[0] >= 60:
            mid = b[0] + 30
            blocks.insert(len(blocks) - 1, [mid, b[1], "having dinner", kitchen])
            b[1] = mid
    if rng.random() < 0.05 and len(blocks) > 4:
        i = rng.randrange(2, len(blocks) - 1)
        blocks[i][0] += 15 if blocks[i][1] - blocks[i][0] > 30 else 0
    maxb = int(_prop_schema(ctx.schema, ctx.root, "blocks").get("maxItems", 16) or 16)
    if len(blocks) > maxb:
        blocks = blocks[:maxb - 1] + [blocks[-1]]
    out_blocks = []
    for s, e, act, addr in blocks:
        out_blocks.append({"start": _hhmm(s), "duration_minutes": int(max(5, e - s)), "activity": _clip(act, 110),
                           "emoji": _emoji(act), "address": addr if addr in addr_enum else addr_enum[0]})
    ol = [(blocks[0][0], "wake up at %s" % _ampm(blocks[0][0])), (ws, "%s at %s" % (work_act, _ampm(ws)))]
    if ev_block:
        ol.append((ev_block[0], "%s at %s" % (ev_block[2], _ampm(ev_block[0]))))
    dn = next((b for b in blocks if "dinner" in b[2]), None)
    if dn:
        ol.append((dn[0], "have dinner at %s" % _ampm(dn[0])))
    cb = next((b for b in blocks if b[2].startswith("calling on")), None)
    if cb:
        ol.append((cb[0], "%s at %s" % (cb[2], _ampm(cb[0]))))
    ol.append((evening_end, "go to bed at %s" % _ampm(evening_end)))
    osch = _prop_schema(ctx.schema, ctx.root, "outline")
    mn = int(osch.get("minItems", 4) or 4)
    mx = int(osch.get("maxItems", 8) or 8)
    fillers = [(blocks[0][0] + 30, "have breakfast at %s" % _ampm(blocks[0][0] + 30)),
               (evening_end - 1, "relax at home in the evening"), (evening_end - 1, "tidy up before bed")]
    while len(ol) < mn and fillers:
        ol.append(fillers.pop(0))
    ol.sort(key=lambda x: x[0])
    outline = [x[1] for x in ol][:mx]
    obj = {"wake_up_hour": wh, "outline": outline, "blocks": out_blocks}
    return _json_out(ctx, rng, obj, 0.01)


_STEP_SETS = [
    (r"breakfast|lunch|dinner|supper|meal|eat", ["preparing the food", "cooking", "eating at the table", "washing up", "clearing the table"]),
    (r"wak|getting ready|get up", ["stretching and getting out of bed", "washing face", "getting dressed", "making the bed"]),
    (r"sleep|bed", ["getting into bed", "sleeping", "sleeping soundly", "turning over in sleep"]),
    (r"calling on|visit", ["knocking on the door", "saying hello", "chatting over tea", "catching up on news", "saying goodbye"]),
    (r"seeing people|chat|talk|gossip", ["saying hello to neighbours", "chatting with a friend", "catching up on news", "sharing the latest news", "waving goodbye"]),
    (r"relax|rest|leisure", ["making a cup of tea", "sitting in the armchair", "reading a book", "listening to the radio", "tidying up a little", "writing a letter"]),
    (r"hosting", ["setting things up", "welcoming people", "getting everyone settled", "running the evening", "chatting with guests", "tidying up afterwards"]),
    (r"going to|party|evening|fair|concert|gathering", ["arriving", "saying hello to people", "finding a seat", "enjoying the occasion", "chatting with people", "heading home"]),
]


def h_decompose(ctx, rng):
    me = ctx.me
    ss = _prop_schema(ctx.schema, ctx.root, "steps")
    mn = int(ss.get("minItems", 2) or 2)
    mx = int(ss.get("maxItems", 6) or 6)
    m = re.search(r"into (\d+) to (\d+)", ctx.user)
    if m:
        mn, mx = max(mn, int(m.group(1))), min(mx, int(m.group(2))) if int(m.group(2)) >= max(mn, int(m.group(1))) else mx
    target = None
    m = re.search(r"first (\d+) minutes", ctx.user)
    if m:
        target = int(m.group(1))
    else:
        m = re.search(r"\((\d+) minutes\)", ctx.user)
        if m:
            target = int(m.group(1))
    act = ""
    for l in ctx.other_lines:
        m2 = re.search(re.escape(me) + r" is (.+?), at ", l)
        if m2 and re.search(r"\bfrom\b", l, re.I):
            act = m2.group(1)
            break
    if target is None:
        target = 60
    objs = [o for o in (_resolve(_prop_schema(ctx.schema, ctx.root, "steps", "[]").get("properties", {}).get("object", {}), ctx.root).get("enum") or []) if o]
    k = max(mn, min(mx, (target + 9) // 10))
    while k * 15 < target and k < mx:
        k += 1
    while k * 5 > target and k > mn:
        k -= 1
    total = target if rng.random() < 0.8 else max(5 * k, target + rng.choice([-15, -10, -5, 5, 10, 15]))
    durs = [5] * k
    left = total - 5 * k
    idx = 0
    guard = 0
    while left > 0 and guard < 500:
        i = idx % k
        if durs[i] < 15:
            step = min(5, left, 15 - durs[i])
            durs[i] += step
            left -= step
        idx += 1
        guard += 1
    if rng.random() < 0.03:
        durs[rng.randrange(k)] = 20
    low = act.lower()
    names = None
    for pat, seq in _STEP_SETS:
        if re.search(pat, low):
            names = seq
            break
    if names is None:
        base = re.sub(r"^(?:working|keeping|running)\s+", "", act) or "the work"
        names = ["getting ready for %s" % act, act, "carrying on %s" % act, "taking a short break", "tidying up afterwards"]
        if objs:
            names.insert(1, "using the %s" % objs[0])
            if len(objs) > 1:
                names.insert(3, "seeing to the %s" % objs[1])
    steps = []
    for i in range(k):
        nm = names[i % len(names)]
        if i >= len(names):
            nm += " again"
        if rng.random() < 0.03:
            nm = "%s %s" % (_first(me), nm)
        obj = ""
        for o in objs:
            if o.lower() in nm.lower():
                obj = o
                break
        if not obj and objs and names is not None and "work" in low and rng.random() < 0.4:
            obj = rng.choice(objs)
        if not obj and objs and re.search(r"sleep|bed", nm) and "bed" in objs:
            obj = "bed"
        state = ""
        if obj:
            state = "occupied" if obj == "bed" else rng.choice(["in use", "being used", "busy"])
        steps.append({"activity": _clip(nm, 78), "duration_minutes": durs[i], "object": obj, "object_state": state})
    return _json_out(ctx, rng, {"steps": steps}, 0.01)


# ----------------------------------------------------------------------------
# handlers: importance, reflection, status, interview, relationship, generic
# ----------------------------------------------------------------------------

def _score_memory(text, rng):
    low = (text or "").lower()
    if re.search(r"\b(died|death|funeral|broke up|breakup|proposal|married|wedding|fire|accident|betray|fight|furious|in love|heartbroken)\b", low):
        s = 7 + (1 if rng.random() < 0.3 else 0)
    elif re.search(r"said (?:they|he|she) would (?:go|come)|would go|will come|accepted|keen on|means to go|i'd love to come|count me in", low):
        s = 6 + (1 if rng.random() < 0.4 else 0)
    elif re.search(r"\btold\b|\bnews\b|invit|wants to hold|hosting|event", low):
        s = 5 + (1 if rng.random() < 0.3 else 0)
    elif re.search(r"conversation with|chatting|chatted|\": \"|said", low):
        s = 3 + (1 if rng.random() < 0.4 else 0)
    elif re.search(r"'s plan for|plan for|planned", low):
        s = 3
    elif re.search(r"\bis (?:in use|occupied|idle|empty)\b|^\s*\"?[a-z ]+ is (?:in use|occupied)|sleeping|brushing|getting dressed|washing", low):
        s = 1 + (1 if rng.random() < 0.3 else 0)
    elif re.search(r"routine|familiar|cross paths|relationship|feels", low):
        s = 4
    else:
        s = 2 + (1 if rng.random() < 0.3 else 0)
    if rng.random() < 0.4:
        s += rng.choice([-1, 1])
    return max(1, min(10, s))


def h_importance(ctx, rng):
    m = re.search(r"Memory:\s*(.+)", ctx.user)
    text = m.group(1) if m else ctx.user[-400:]
    return _json_out(ctx, rng, {"importance": _score_memory(text, rng)}, 0.01)


def h_batch(ctx, rng):
    items = re.findall(r"^\s*(?:-|\d+[.)])\s*\"?(.+?)\"?\s*$", ctx.user, re.M)
    items = [i for i in items if not i.startswith("[") or True]
    rs = _prop_schema(ctx.schema, ctx.root, "ratings")
    n = rs.get("minItems") or rs.get("maxItems") or len(items) or 1
    n = int(n)
    vals = []
    for i in range(n):
        t = items[i] if i < len(items) else ""
        vals.append(_score_memory(t, rng))
    mx = rs.get("maxItems")
    if mx is not None:
        vals = vals[:int(mx)]
    return _json_out(ctx, rng, {"ratings": vals}, 0.01)


def _people_counts(ctx, me, lines):
    c = {}
    for l in lines:
        for p in ctx.people:
            if p != me and (p in l):
                c[p] = c.get(p, 0) + 1
    return sorted(c.items(), key=lambda kv: -kv[1])


def _activity_counts(me, lines):
    c = {}
    for l in lines:
        m = re.search(re.escape(me) + r" is ([a-z][^()\n]+?)(?: \(|$)", l)
        if m:
            a = m.group(1).strip()
            c[a] = c.get(a, 0) + 1
    return sorted(c.items(), key=lambda kv: -kv[1])


def h_questions(ctx, rng):
    me = ctx.me
    qs = _prop_schema(ctx.schema, ctx.root, "questions")
    m = re.search(r"\b(\d+) questions\b", ctx.user)
    n = int(m.group(1)) if m else int(qs.get("maxItems", 3) or 3)
    n = max(int(qs.get("minItems", 1) or 1), min(n, int(qs.get("maxItems", n) or n)))
    pc = _people_counts(ctx, me, ctx.mem_lines)
    ac = _activity_counts(me, ctx.mem_lines)
    mev, info = pick_memory_event(ctx, me, rng, upcoming_only=False)
    pool = []
    for p, _ in pc[:3]:
        pool.append(rng.choice(["How does %s feel about %s?" % (me, p),
                                "What is the relationship between %s and %s like these days?" % (me, p),
                                "Why does %s keep crossing paths with %s?" % (me, p)]))
    if ac:
        pool.append("What does %s's routine of %s say about what matters to them?" % (me, ac[0][0]))
    if mev is not None:
        if rng.random() < 0.3:
            pool.insert(0, "Will %s go to the %s?" % (me, mev.what))
        else:
            pool.insert(0, "How are the people around %s responding to the %s?" % (me, mev.what))
    pool.append("What is %s most concerned about at the moment?" % me)
    pool.append("Is %s's daily routine changing?" % me)
    out = []
    for q in pool:
        if q not in out:
            out.append(q)
        if len(out) >= n:
            break
    return _json_out(ctx, rng, {"questions": out[:n]}, 0.01)


def h_insights(ctx, rng):
    me = ctx.me
    ins = _prop_schema(ctx.schema, ctx.root, "insights")
    cap = int(ins.get("maxItems", 5) or 5)
    m = re.search(r"\((\d+) at most in all\)|up to (\d+) insights", ctx.user)
    if m:
        cap = min(cap, int(m.group(1) or m.group(2)))
    questions = re.findall(r"\"([^\"]+\?)\"", ctx.user)
    stmts = {}
    for l in ctx.lines:
        mm = re.match(r"^\s*(\d+)\.\s+(.*)$", l)
        if mm:
            stmts[int(mm.group(1))] = mm.group(2)
    ev_s = _prop_schema(ctx.schema, ctx.root, "insights", "[]", "evidence", "[]")
    allowed = ev_s.get("enum") or sorted(stmts) or [1]
    out = []
    if not questions:
        questions = ["What matters to %s?" % me]
    for q in questions:
        if len(out) >= cap:
            break
        keys = [p for p in ctx.people if p != me and (p in q or _first(p) in q)]
        words = keys or _content_words(q.replace(me, ""))[:3]
        ev_nums = [i for i, s in stmts.items() if any(w.lower() in s.lower() for w in words)][:5]
        if not ev_nums:
            ev_nums = sorted(rng.sample(list(allowed), min(len(allowed), rng.choice([2, 3]))))
        ev_nums = [i for i in ev_nums if i in allowed] or [allowed[0]]
        text_blob = " ".join(stmts.get(i, "") for i in ev_nums)
        mev = parse_event(ctx, text_blob)
        if keys:
            p = keys[0]
            if re.search(r"told|news", text_blob):
                ins_t = "%s and %s share news with each other and are on friendly terms." % (me, p)
            else:
                ins_t = "%s sees %s often and is becoming familiar with them." % (me, p)
            about = p
            imp = 4
        elif mev.what != "the event" and mev.keys:
            ins_t = "%s is interested in the %s and has been talking about it with others." % (me, mev.what)
            about = mev.what
            imp = 6
        else:
            acts = _activity_counts(me, [stmts.get(i, "") for i in ev_nums])
            a = acts[0][0] if acts else "the daily routine"
            ins_t = "%s keeps a steady routine of %s and finds comfort in it." % (me, a)
            about = "routine"
            imp = 3
        if rng.random() < 0.4:
            imp += rng.choice([-1, 1])
        out.append({"insight": ins_t, "about": _clip(about, 58), "evidence": ev_nums[:10], "importance": max(1, min(10, imp))})
        if len(out) < cap and rng.random() < 0.35:
            out.append({"insight": "%s cares about the people around them and keeps up with the town's news." % me,
                        "about": "community", "evidence": ev_nums[:3], "importance": 4})
    return _json_out(ctx, rng, {"insights": out[:cap]}, 0.02)


def h_currently(ctx, rng):
    me = ctx.me
    old = ctx.pfield(me, "currently") or ""
    sents = re.split(r"(?<=[.!?])\s+", old.strip()) if old.strip() else []
    out = []
    if sents and rng.random() < 0.85:
        out.append(sents[0])
    mev, info = pick_memory_event(ctx, me, rng, upcoming_only=False)
    if mev is not None:
        future = mev.date is None or mev.date >= ctx.today
        host = mev.host == me
        when = ctx.date_phrase(mev.date, mev.start) if mev.date else ""
        tm = (" at " + _ampm(mev.start)) if mev.start is not None else ""
        if host and rng.random() < (0.8 if future else 0.3):
            out.append("%s is getting the %s ready for %s%s." % (me, mev.what, when.replace("on ", "") or "soon", tm))
        elif info and info.get("intent") and rng.random() < (0.7 if future else 0.3):
            out.append("%s means to go to the %s %s%s." % (me, mev.what, when, tm))
        elif rng.random() < 0.3:
            out.append("%s has heard about the %s%s." % (me, mev.what, (" " + when) if when else ""))
    if len(out) < 2:
        out.append("%s is keeping to the usual routine." % me)
    return _json_out(ctx, rng, {"currently": _clip(re.sub(r"\s+", " ", " ".join(out)), 480)}, 0.01)


def _interview_answer(ctx, rng):
    me = ctx.me
    m = re.search(r"asks? (?:" + re.escape(me) + r"|you)?:?\s*[\"\u201c]([^\"\u201d]+)[\"\u201d]", ctx.user) or \
        re.search(r"[\"\u201c]([^\"\u201d]+\?)[\"\u201d]", ctx.user)
    q = m.group(1) if m else ""
    keys = [w for w in _content_words(q) if w not in ("heard", "know", "about")]
    rel = [l for l in ctx.mem_lines if keys and any(k in l.lower() for k in keys)]
    if not rel:
        if rng.random() < 0.9:
            return rng.choice(["No, I haven't heard anything about that.", "I'm afraid I don't know anything about that.",
                               "No - nobody's mentioned it to me."])
        return "I think someone may have mentioned it, but I don't remember the details."
    ev = None
    teller = None
    for l in rel:
        body = re.sub(r"^\s*(?:-|\d+\.)\s*\[[^\]]*\]\s*", "", l)
        mm = re.match(r"(" + NAME_RE + r") told " + re.escape(me), body)
        if mm and teller is None:
            teller = mm.group(1)
        e = parse_event(ctx, body)
        if e.start is not None and e.what != "the event" and ev is None:
            ev = e
    host_me = any(re.search(re.escape(me) + r" (?:wants to hold|is hosting|is holding)", l) for l in rel)
    if ev is None:
        ev = parse_event(ctx, rel[0])
    what = ev.what if ev.what != "the event" else (" ".join(keys[:2]) or "it")
    parts = []
    if host_me:
        parts.append("Yes - it's mine, I'm the one holding the %s." % what)
    elif teller:
        parts.append("Yes, %s told me about the %s." % (_first(teller), what))
    else:
        parts.append("Yes, I've heard about the %s." % what)
    if rng.random() < 0.85 and (ev.date or ev.start is not None):
        bits = []
        if ev.date:
            bits.append("on %s" % WEEKDAYS[ev.date.weekday()].capitalize())
        if ev.start is not None:
            bits.append(_time_phrase(ev, rng))
        if ev.place_phrase:
            pp = ev.place_phrase
            bits.append(pp if re.match(r"(?:in|at)\b", pp) else ("in " + pp if pp.startswith("the ") else "at " + pp))
        parts.append("It was %s." % " ".join(bits) if ev.date and ev.date < ctx.today else "It's %s." % " ".join(bits))
    went = any(re.search(re.escape(me) + r" is (?:going to|hosting|at) ", l) and any(k in l.lower() for k in keys) for l in rel)
    intent = any(_INTENT_RE.search(l) and (me in l) for l in rel)
    if (went or intent) and rng.random() < 0.6:
        if ev.date and ev.date < ctx.today and went:
            parts.append("I went along myself.")
        elif intent:
            parts.append("I said I'd go.")
    return " ".join(parts)


def h_interview(ctx, rng):
    return _json_out(ctx, rng, {"answer": _clip(_interview_answer(ctx, rng), 590)}, 0.01)


def h_relationship(ctx, rng):
    me = ctx.me
    targets = []
    for l in ctx.other_lines:
        if re.search(r"relationship|about each of|remembers about", l):
            for p in ctx.people:
                if p != me and p in l and p not in targets:
                    targets.append(p)
    if not targets:
        g = ctx.partner_guess()
        targets = [g] if g else ["them"]
    parts = []
    for t in targets[:3]:
        n_talk = sum(1 for l in ctx.mem_lines if t in l and ("conversation" in l or "told" in l or "chatt" in l))
        f = ctx.feeling(me, t)
        if f < 0:
            s = "%s still holds an old grudge against %s and feels wary of them" % (me, t)
        elif f > 0:
            s = "%s is close to %s and feels warmly towards them" % (me, t)
        elif n_talk >= 2:
            s = "%s has chatted with %s a few times lately and feels friendly towards them" % (me, t)
        else:
            s = "%s knows %s only in passing and feels neutral but friendly towards them" % (me, t)
        if any(t in l and re.search(r"told .* about|event", l) for l in ctx.mem_lines) and rng.random() < 0.5:
            s += ", especially since they talked about the news"
        parts.append(s)
    txt = "; ".join(parts) + "."
    return _json_out(ctx, rng, {"summary": _clip(txt, 395)}, 0.02)


def _gen_value(ctx, rng, schema, key="", depth=0):
    s = _resolve(schema, ctx.root)
    if depth > 8:
        return None
    if "enum" in s and s["enum"]:
        return rng.choice(s["enum"])
    if "anyOf" in s:
        alts = [a for a in s["anyOf"] if _resolve(a, ctx.root).get("type") != "null"] or s["anyOf"]
        return _gen_value(ctx, rng, alts[0], key, depth + 1)
    t = s.get("type")
    if isinstance(t, list):
        t = [x for x in t if x != "null"][0] if [x for x in t if x != "null"] else "null"
    if t == "object" or "properties" in s:
        out = {}
        for k, v in (s.get("properties") or {}).items():
            out[k] = _gen_value(ctx, rng, v, k, depth + 1)
        return out
    if t == "array":
        n = max(int(s.get("minItems", 1) or 1), 1)
        n = min(n + (1 if rng.random() < 0.5 else 0), int(s.get("maxItems", n + 1) or n + 1))
        return [_gen_value(ctx, rng, s.get("items", {}), key, depth + 1) for _ in range(n)]
    if t == "integer":
        lo = int(s.get("minimum", 1))
        hi = int(s.get("maximum", max(lo, 5)))
        return rng.randint(lo, max(lo, min(hi, lo + 9)))
    if t == "number":
        return round(rng.uniform(float(s.get("minimum", 0)), float(s.get("maximum", 1))), 2)
    if t == "boolean":
        return rng.random() < 0.5
    if t == "null":
        return None
    st = status_first_person(ctx, ctx.me) or "I'm keeping busy."
    txt = rng.choice([st, "%s is keeping to the usual routine." % ctx.me, "Nothing much to report."])
    return _clip(txt, int(s.get("maxLength", 200) or 200))


def h_generic_json(ctx, rng):
    if not ctx.schema:
        return _json_out(ctx, rng, {"answer": _clip(status_first_person(ctx, ctx.me) or "Yes.", 200)}, 0.02)
    return _json_out(ctx, rng, _gen_value(ctx, rng, ctx.schema), 0.02)


def h_plain(ctx, rng):
    if re.search(r"\bSomeone asks\b|\basks? (?:you|" + re.escape(ctx.me) + r")\b", ctx.user):
        return _interview_answer(ctx, rng)
    st = status_first_person(ctx, ctx.me)
    return st or "I'm keeping busy, thank you."


def _kind(ctx):
    if ctx.schema is None:
        if re.search(r"\[(?:end|continue)\]", ctx.user, re.I) or re.search(r"say next\b", ctx.user):
            return "dialogue"
        return "plain"
    props = set((_resolve(ctx.schema, ctx.root).get("properties") or {}).keys())
    if props == {"ok"}:
        return "probe"
    if {"wake_up_hour", "blocks"} <= props:
        return "daily_plan"
    if "steps" in props:
        return "decompose"
    if "choice" in props:
        return "react"
    if "new_blocks" in props:
        return "replan"
    if "utterance" in props:
        return "group_turn"
    if {"talk", "lines"} <= props and "memos" in props:
        return "group_summary"
    if {"talk", "lines"} <= props:
        return "pair_summary"
    if "summary" in props and any(p.startswith("plan_") for p in props):
        return "memo"
    if props == {"summary"}:
        return "relationship"
    if "ratings" in props:
        return "batch"
    if props == {"importance"}:
        return "importance"
    if "questions" in props:
        return "questions"
    if "insights" in props:
        return "insights"
    if "currently" in props:
        return "currently"
    if "answer" in props:
        return "interview"
    return "generic"


_RAISE = False   # the checker sets this to see handler errors instead of the fallback

HANDLERS = {
    "dialogue": h_dialogue_text, "plain": h_plain, "probe": lambda c, r: "{\"ok\": true}",
    "daily_plan": h_daily_plan, "decompose": h_decompose, "react": h_react, "replan": h_replan,
    "group_turn": h_group_turn, "group_summary": h_group_summary, "pair_summary": h_pair_summary,
    "memo": h_memo, "relationship": h_relationship, "batch": h_batch, "importance": h_importance,
    "questions": h_questions, "insights": h_insights, "currently": h_currently, "interview": h_interview,
    "generic": h_generic_json,
}


def kind_of(body):
    try:
        return _kind(Ctx(body))
    except Exception:
        return "error"


def respond(body, seed):
    """The completion text a middling 8B model would return for this request body."""
    try:
        msgs = body.get("messages") if isinstance(body, dict) else None
        key = json.dumps(msgs, sort_keys=True, ensure_ascii=False, default=str) + "|" + str(seed)
    except Exception:
        key = repr(body) + "|" + str(seed)
    rng = random.Random(int(hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:16], 16))
    try:
        ctx = Ctx(body)
        kind = _kind(ctx)
        out = HANDLERS.get(kind, h_generic_json)(ctx, rng)
        if not isinstance(out, str):
            out = str(out)
        return out
    except Exception:
        if _RAISE:
            raise
        # never raise: a plausible generic answer
        try:
            rf = (body or {}).get("response_format") or {}
            if rf:
                return "{\"answer\": \"I'm not sure.\"}"
        except Exception:
            pass
        return "I'm not sure what to say."
