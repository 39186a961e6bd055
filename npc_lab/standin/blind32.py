"""blind32 -- a blind stand-in for a small local chat model (declared BEFORE the first check run).

MODEL CLASS
    A ~3-4B open-weights instruct model (Llama-3.2-3B-Instruct / Qwen2.5-3B-Instruct /
    Phi-3.5-mini class) served by Ollama on a game developer's PC through the OpenAI-compatible
    route, temperature ~0.8 (the request's temperature is ignored except 0 -> fewer damages).
    Ollama turns response_format json_schema into a grammar: answers normally parse and have the
    schema's keys, types and enums. It does NOT reliably honour lengths, item counts, numeric
    bounds or string patterns, and it stops at max_tokens (cut JSON).
    Context: 8192 tokens. Every captured prompt fits (longest ~5.5k tokens), so nothing is
    truncated, but attention is uneven: the start (persona) and the end (instructions, latest
    lines) are read well; a fact that sits in the middle 20%-80% of a prompt longer than ~2500
    tokens (estimated chars/4) is noticed only with p = 0.75 ("lost in the middle").
    It is a literal reader: it copies phrases from the prompt, sometimes confuses who is who,
    forgets times/places when passing news on, and is agreeable in talk but not always consistent
    later.

HOW A REQUEST KIND IS RECOGNISED (schema name first, then the schema's properties, then words
of the instruction; the "purpose" field is never read)
    probe            properties {ok}
    importance       single integer property "importance" and nothing else
    importance_batch array property "ratings"
    revise_currently property "currently"
    daily_plan       properties wake_up_hour / outline / blocks
    decompose        property "steps"
    react            property "choice" with an enum
    relationship     only "summary" (no plan fields)
    conversation_memo summary + importance + plan_* fields
    reflection_questions  "questions"
    reflection_insights   "insights"
    group_turn       utterance + addressed_to + end_conversation
    interview        "answer"
    conversation_summary  talk + lines + first + second
    group_summary    talk + lines + memos
    replan           "new_blocks"
    choose_address   "place" (anyOf sector/arena/object)
    converse_turn    no response_format; plain text; the instruction names end tags in [brackets]
    anything else    a schema-shaped answer filled from the prompt's words (generic filler)

HOW THE PROMPT IS READ (meaning, not headings)
    Self: "inner mind of X" in the system message, else the first "Name:" line.
    People: "Name:" lines, enums of addressed_to / speaker / name, "talking with A, B and C".
    Now: the first line that starts "It is" / "Today is" (else the first dated line); dates in any
    style (2026-04-16, April 16, Apr 16, 16th of April, weekday names, today/tomorrow); clocks in
    any style (17:00, 5 pm, 5:00 PM, 5.00 p.m., noon, midnight, half past five, quarter to six,
    five in the afternoon, seven o'clock).
    News: a line saying someone "has/have news ...: <text>" (whose news by the name before it),
    else "Events X is holding" bullets. Hosting when that line says hosting/their own or the news
    says the person themself holds/hosts/runs it. From the news text: the event phrase (verb
    "hold/host/run/put on/throw/organise" + object, or "a/an ..." after the colon), the day
    (explicit date > today/tomorrow > weekday), the first time range, and the place (the known
    address whose words best match the text).
    Plans: bullets "<time>-<time> activity (...address...)" [on <day>] under a line naming a
    person. Conversation lines: `Name: "text"` where Name is a known person.
    Sections: each non-bullet line opens a section; its subject is the first known person it names.

DECISION RULES AND RATES (declared before the first run; not tuned)
    T  TELL news (turns, group turns, out-of-view summaries), speaker has news not yet mentioned
       in the conversation (event words absent from lines so far):
         host: p = 0.85 on the speaker's first line, 0.70 on later lines
         passer-on (heard it from someone): p = 0.65 first line, 0.50 later lines
         traits talkative/nosy/sharp/eager/warm/curious/chatty/friendly: +0.10;
         shy/quiet/reserved/self-reliant/gruff/taciturn: -0.15;
         bad relation with the listener (grudge/not spoken/never forgiven/dislike near the
         listener's name, or negative "how X sees Y"): -0.20;  lost-in-middle factor applies.
       Details when telling: day p = 0.90 (host 0.97), time p = 0.80 (host 0.95),
       place p = 0.70 (host 0.90); time garbled (hour shifted by one) p = 0.04.
       Host asks the listener to come p = 0.90; a passer-on adds "you should come" p = 0.30.
    R  REPLY to an event raised by the other (invitation or news):
         already planned / said yes before: "I'll be there" p = 0.90
         p_yes = 0.65 (invited by the host) or 0.45 (news passed on); traits sociable +0.10,
         reserved -0.10; relation to the host/teller negative -0.25, positive +0.10;
         a real commitment (event, appointment, calling on someone, meeting) overlapping the
         event time on that day: p_yes x 0.35; an ordinary activity misread as a clash: p = 0.10
         (declines citing work/chores); clamp to [0.05, 0.95].
         not yes -> "maybe / might drop by" p = 0.55, else a polite no.
    E  END TAG / end_conversation: p = 0.10 before 2 lines, 0.35 at 2-3, 0.60 at 4-5, 0.85 at >= 6;
       +0.20 once the news was told and answered.
    M  MEMO plan (conversation_memo, summaries' memos): self said yes -> plan p = 0.90;
       self said maybe -> p = 0.30; self declined -> p = 0.03; self is the host -> adds own event
       p = 0.10 (confusion); only another speaker said yes -> p = 0.05 (who-is-who confusion).
       Plan fields: date = event day (p = 0.07 uses today's date instead; p = 0.06 date left ""
       while activity set); start = event start (p = 0.05 ""); minutes = event length (120 if
       unknown); place = matching enum (p = 0.10 ""). Summary names the event, day and time with
       the same detail rates as T.  Importance: event 6-8, plain chat 2-4.
    P  DAILY PLAN: from the lifestyle (wake, work hours, bed) and meals. An event on the planned
       day: hosting p = 0.92; said yes / planned to go p = 0.75; only heard / maybe p = 0.35
       (lost-in-middle factor applies). News to pass on with places listed: a "telling people the
       news" block at one listed place in free time p = 0.55 (host 0.70). Soft slips: outline with
       9 items p = 0.08; a gap or overlap between blocks p = 0.05.
    D  DECOMPOSE: 8-12 steps of 5-15 min using the listed objects; p = 0.10 one step of 20 min;
       p = 0.05 only 6 steps.
    A  REACT: news for the noticed person not yet told -> "talk" p = 0.65; self is out seeing
       people / telling news -> "talk" p = 0.55; otherwise continue 0.75, talk 0.12, wait 0.08,
       react 0.05.
    I  INTERVIEW: memories sharing words with the question -> answers from them (time forgotten
       p = 0.25, place forgotten p = 0.30; says it will go / went when a memory shows it);
       else "I haven't heard anything about that" (p = 0.15 vague guess instead).
    C  REVISE CURRENTLY: old status + hosting / going statements from memories; host confusion
       (says it holds an event it only heard of) p = 0.06.
    S  OUT-OF-VIEW SUMMARIES: talk p = 0.85 if one of them has news, else 0.45; lines built turn
       by turn with T/R/E; memos with M; group memos: one participant's memo omitted p = 0.10.
    Q  IMPORTANCE: keyword score (routine/objects 1-3, chat 2-4, news/invite/event 5-8) +-1
       noise; p = 0.15 answers a flat 5. Batch: one rating too many or too few p = 0.06.
       Reflection questions: 3 (p = 0.10 four). Insights: 1-2 per question, evidence numbers from
       statements sharing words. Choose address: stay "here" p = 0.85 unless the activity names
       another sector/arena (then that one p = 0.80). Replan: keep listed events, fill free time.

DAMAGE RATES (per answer; temperature 0 requests: a quarter of these)
    JSON kinds: cut off at max_tokens whenever the answer is longer (tokens ~ chars/3.6);
      random early cut (mid-JSON) 0.015; fenced ```json block 0.015; prose around the JSON 0.010;
      a refusal sentence instead of JSON 0.003.  (~4.3% in all)
    Plain-text turns: speaker's name in front 0.06; quotes around the words 0.05; end tag missing
      0.05; tag misspelt ([END] / (end) / [Continue.]) 0.02; runs on with the other's reply 0.02;
      stage direction (*nods*) 0.04 (style only).
    Group-turn JSON: speaker's own name put in front of the utterance 0.03.

FIXES
    after check run 1:
    - decompose read neither the asked step count nor the minutes to fill (always 8-12 steps over
      >= 40 minutes, so "2 to 6 steps ... fill the 30 minutes" got 8-12 steps): now reads "into A to
      B" (else the schema's min/maxItems) and "fill (only its first|the) N minutes"; the declared
      count slip (p = 0.05, "only 6 steps") is now "two fewer than the least asked".
    - conversation_memo (and summaries' memos) read an event found only in the transcript as never
      hosted, so the host saying "I'm holding ..." got a 0.90 "going to" plan for their own event;
      "I'm holding/running/putting on/hosting ..." in the line now marks the speaker as host (rule M
      host rate 0.10 applies).
    after check run 2:
    - memo plan_minutes wrapped a backwards range round midnight ("from noon to 9 am" -> 1260
      minutes, over the schema's 600); a range whose end is not after its start now gives the
      default 120 minutes, as for an unknown length.
    after check run 3 (compliance, no rate touched):
    - removed three words that echo the captured town ("mill", "flock", "dairy") from the list of
      ordinary-activity words used by the clash test; only generic words remain.
"""
import hashlib
import json
import random
import re
import datetime as _dt

# ----------------------------------------------------------------------------------------------
# basic helpers
# ----------------------------------------------------------------------------------------------

MONTHS = {m: i + 1 for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"])}
for _k, _v in list(MONTHS.items()):
    MONTHS[_k[:3]] = _v
MONTHS["sept"] = 9
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
NUMWORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
            "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}

_MON_RE = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_WD_RE = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"

_NUMW = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
CLOCK_RE = re.compile(
    r"(?P<hm>\b(?P<h>[01]?\d|2[0-3])[:.](?P<m>[0-5]\d)\s*(?P<ap>[ap]\.?\s?m\.?(?![a-z]))?)"
    r"|(?P<ho>\b(?P<h2>1[0-2]|0?[1-9])\s*(?P<ap2>[ap]\.?\s?m\.?)(?![a-z]))"
    r"|(?P<noon>\bnoon\b|\bmidday\b)|(?P<mid>\bmidnight\b)"
    r"|(?P<half>\b(?P<frac>half|quarter)\s+(?P<rel>past|to)\s+(?P<hw>" + _NUMW + r"|\d{1,2})"
    r"(?:\s+in\s+the\s+(?P<part3>morning|afternoon|evening|night))?)"
    r"|(?P<word>\b(?P<w>" + _NUMW + r")(?:\s+o'?clock)?\s+(?:in\s+the\s+|at\s+)(?P<part>morning|afternoon|evening|night)\b)"
    r"|(?P<oc>\b(?P<w2>" + _NUMW + r"|\d{1,2})\s+o'?clock\b)",
    re.I)


def _apply_ampm(h, ap):
    ap = (ap or "").lower().replace(".", "").replace(" ", "")
    if ap.startswith("p") and h < 12:
        h += 12
    if ap.startswith("a") and h == 12:
        h = 0
    return h


def _part_hour(h, part):
    part = (part or "").lower()
    if part in ("afternoon", "evening") and h < 12:
        return h + 12
    if part == "night" and 6 <= h < 12:
        return h + 12
    return h


def find_clocks(text):
    """All clock times in text: list of (start, end, minutes since midnight)."""
    out = []
    for m in CLOCK_RE.finditer(text or ""):
        try:
            if m.group("hm"):
                h = int(m.group("h")); mi = int(m.group("m"))
                if m.group("ap"):
                    h = _apply_ampm(h, m.group("ap"))
                else:
                    # a dotted number without am/pm is probably a decimal or date, keep only ':'
                    if "." in m.group("hm") and ":" not in m.group("hm"):
                        continue
                out.append((m.start(), m.end(), h * 60 + mi))
            elif m.group("ho"):
                h = _apply_ampm(int(m.group("h2")), m.group("ap2"))
                out.append((m.start(), m.end(), h * 60))
            elif m.group("noon"):
                out.append((m.start(), m.end(), 12 * 60))
            elif m.group("mid"):
                out.append((m.start(), m.end(), 24 * 60 - 1))
            elif m.group("half"):
                hw = m.group("hw").lower()
                h = NUMWORDS.get(hw) or int(hw)
                if m.group("part3"):
                    h = _part_hour(h, m.group("part3"))
                elif h < 7:
                    h += 12
                base = h * 60
                d = 30 if m.group("frac").lower() == "half" else 15
                base = base + d if m.group("rel").lower() == "past" else base - d
                out.append((m.start(), m.end(), base))
            elif m.group("word"):
                h = _part_hour(NUMWORDS[m.group("w").lower()], m.group("part"))
                out.append((m.start(), m.end(), h * 60))
            elif m.group("oc"):
                w = m.group("w2").lower()
                h = NUMWORDS.get(w) or int(w)
                if h < 7:
                    h += 12
                out.append((m.start(), m.end(), h * 60))
        except Exception:
            continue
    return out


def find_range(text):
    """First time range 'A-B' / 'from A to B' / 'A until B' in text: (start_min, end_min) or None."""
    cl = find_clocks(text)
    for i in range(len(cl) - 1):
        a, b = cl[i], cl[i + 1]
        between = text[a[1]:b[0]].strip().lower()
        if between in ("-", "–", "—", "to", "until", "till", "and", "- ", "−"):
            return a[2], b[2]
    if cl:
        return cl[0][2], None
    return None


def hhmm(mins):
    mins = int(mins) % (24 * 60)
    return "%02d:%02d" % (mins // 60, mins % 60)


def spoken_time(mins, rng=None):
    mins = int(mins) % (24 * 60)
    h, m = divmod(mins, 60)
    if h == 12 and m == 0:
        return "noon"
    suf = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return ("%d %s" % (h12, suf)) if m == 0 else ("%d:%02d %s" % (h12, m, suf))


DATE_RES = [
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), "iso"),
    (re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + _MON_RE + r")(?:,?\s+(\d{4}))?", re.I), "dm"),
    (re.compile(r"\b(" + _MON_RE + r")\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4}))?", re.I), "md"),
]


def find_dates(text, year=2026):
    out = []
    for rx, kind in DATE_RES:
        for m in rx.finditer(text or ""):
            try:
                if kind == "iso":
                    d = _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
                elif kind == "dm":
                    mon = MONTHS.get(m.group(2).lower().rstrip(".")[:4] if m.group(2).lower().startswith("sept") else m.group(2).lower().rstrip(".")[:3])
                    d = _dt.date(int(m.group(3) or year), mon, int(m.group(1)))
                else:
                    mon = MONTHS.get(m.group(1).lower().rstrip(".")[:3])
                    d = _dt.date(int(m.group(3) or year), mon, int(m.group(2)))
                out.append((m.start(), d))
            except Exception:
                continue
    out.sort(key=lambda x: x[0])
    return out


def resolve_day(text, today):
    """The day a piece of text speaks of: explicit date > today/tomorrow > weekday. None if none."""
    if not text:
        return None
    ds = find_dates(text, today.year if today else 2026)
    low = text.lower()
    if ds:
        return ds[0][1]
    if today is None:
        return None
    if re.search(r"\btomorrow\b", low):
        return today + _dt.timedelta(days=1)
    if re.search(r"\b(today|tonight|this evening|this afternoon)\b", low):
        return today
    m = re.search(r"\b" + _WD_RE + r"\b", low)
    if m:
        wd = WEEKDAYS.index(m.group(0))
        delta = (wd - today.weekday()) % 7
        return today + _dt.timedelta(days=delta)
    return None


def words(s):
    return set(w for w in re.findall(r"[a-z']+", (s or "").lower()) if len(w) > 2)


STOP = set("the and for with that this from have has was are were you your they them their there into onto "
           "about will would could should what when where which who whom while being been than then some "
           "just very also only more most much many other others people person again still here now".split())


def content_words(s):
    return set(w for w in words(s) if w not in STOP)


# ----------------------------------------------------------------------------------------------
# reading the prompt
# ----------------------------------------------------------------------------------------------

class Ctx:
    pass


ACCEPT_RE = re.compile(
    r"\b(i'?ll (?:be there|come|go|make it|drop by|pop (?:in|along|by)|see you there|be along)|i will (?:come|go|be there)|"
    r"i said i'?d (?:go|come)|count me in|i'?d (?:like|love) (?:that|to (?:go|come))|wouldn'?t miss|"
    r"see you there|i think i'?ll (?:go|come)|i'?m (?:coming|going)|sounds (?:good|lovely|great)[^.]*i'?ll|"
    r"means? to go|(?:said|says) (?:they|he|she|i) (?:will|would|'d) (?:go|come))", re.I)
MAYBE_RE = re.compile(r"\b(might|maybe|perhaps|if i can|keep it in mind|we'?ll see|possibly|i'?ll try)\b", re.I)
DECLINE_RE = re.compile(
    r"\b(can'?t (?:come|make it|go|manage)|cannot (?:come|go)|won'?t (?:be able|come|go|make it)|not my thing|"
    r"no thanks|i'?ll pass|not for me|i'?m busy|have to (?:work|be)|rather not|afraid not|sorry, i can'?t|can'?t come)", re.I)
EVENT_TALK = re.compile(r"\b(have you heard|did you hear|come along|you should come|hope you can come|like to come|love to see you|do come|i'?m (?:holding|running|putting on|hosting|having|throwing)|is (?:holding|running|putting on|hosting|having|throwing))\b", re.I)
HOSTVERB = r"(?:hold|holds|holding|host|hosts|hosting|run|runs|running|put on|puts on|putting on|throw|throws|throwing|organi[sz]e|organi[sz]es|organi[sz]ing|give|gives|giving|lead|leads|leading|open|opens|opening)"

POS_TRAITS = set("talkative nosy sharp eager warm curious chatty friendly sociable outgoing cheerful kind generous lively".split())
NEG_TRAITS = set("shy quiet reserved self-reliant gruff taciturn blunt proud withdrawn solitary grumpy stubborn".split())
NEG_REL = re.compile(r"(grudge|not spoken|never forgiven|dislike|resent|can'?t stand|feud|quarrel|annoy|irritat|cross with|at odds|distrust|angry)", re.I)
POS_REL = re.compile(r"(friend|fond|like (?:them|her|him)|close|trust|proud of|teach|taught|cousin|wife|husband|nephew|uncle|helps|feeds|warm)", re.I)
COMMIT_RE = re.compile(r"\b(calling on|meeting|visit|appointment|going to|hosting|attending|seeing \w+ \w+|party|evening|dinner with|lunch with|match|service|event)\b", re.I)
ORDINARY_RE = re.compile(r"\b(work|working|shop|farm|field|sleep|sleeping|relax|relaxing|breakfast|lunch|dinner|chores|waking|reading|opening|keeping|cooking|tidying|mending|home)\b", re.I)


def build_ctx(body):
    c = Ctx()
    msgs = body.get("messages") or []
    c.system = ""
    c.user = ""
    for m in msgs:
        if m.get("role") == "system" and not c.system:
            c.system = str(m.get("content") or "")
        if m.get("role") == "user" and not c.user:
            c.user = str(m.get("content") or "")
    c.retry = sum(1 for m in msgs if m.get("role") == "assistant")
    rf = body.get("response_format") or {}
    js = rf.get("json_schema") or {}
    c.schema_name = str(js.get("name") or "")
    c.schema = js.get("schema") or ({} if rf.get("type") != "json_object" else {"type": "object"})
    c.json_mode = bool(rf)
    c.defs = c.schema.get("$defs") or c.schema.get("definitions") or {}
    c.max_tokens = int(body.get("max_tokens") or 1000)
    c.temperature = body.get("temperature", 0.8)
    text = c.user
    c.text = text
    c.lines = text.split("\n")
    c.tokens = len(c.system + text) // 4
    # self
    m = re.search(r"inner mind of ([^,\n]+?)(?:,|\.|\n)", c.system)
    names = re.findall(r"^Name:\s*(.+?)\s*$", text, re.M)
    c.self = (m.group(1).strip() if m else (names[0] if names else "I"))
    people = []
    for n in names + [c.self]:
        if n and n not in people and n != "I":
            people.append(n)
    for en in _all_enums_by_key(c.schema, ("addressed_to", "speaker", "name")):
        for v in en:
            if v and v.lower() != "everyone" and v not in people:
                people.append(v)
    for mm in re.finditer(r'^([A-Z][\w\'-]+(?: [A-Z][\w\'-]+){0,3}): "', text, re.M):
        if mm.group(1) not in people:
            people.append(mm.group(1))
    for mm in re.finditer(r"(?:talking|chatting|speaking|conversation) with ([^.:\n]+)", text):
        for n in re.split(r",\s*|\s+and\s+", mm.group(1)):
            n = n.strip()
            if n and n[0].isupper() and len(n) < 40 and n not in people:
                people.append(n)
    c.people = people
    c.others = [p for p in people if p != c.self]
    # places
    c.addresses = _collect_addresses(c)
    # now
    c.today, c.now_min = _read_now(text)
    c.sections = _sections(c)
    c.convo = _conversation_lines(c)
    c.news = _read_news(c)
    c.traits = words(_field(text, "Innate traits") or "")
    return c


def _field(text, label):
    m = re.search(r"^" + re.escape(label) + r":\s*(.+)$", text, re.M)
    return m.group(1).strip() if m else ""


def _all_enums_by_key(schema, keys, out=None, depth=0):
    out = [] if out is None else out
    if depth > 8 or not isinstance(schema, dict):
        return out
    for k, v in (schema.get("properties") or {}).items():
        if k in keys and isinstance(v, dict) and v.get("enum"):
            out.append([x for x in v["enum"] if isinstance(x, str)])
        _all_enums_by_key(v, keys, out, depth + 1)
    for k in ("$defs", "definitions"):
        for v in (schema.get(k) or {}).values():
            _all_enums_by_key(v, keys, out, depth + 1)
    if isinstance(schema.get("items"), dict):
        _all_enums_by_key(schema["items"], keys, out, depth + 1)
    for v in schema.get("anyOf") or []:
        _all_enums_by_key(v, keys, out, depth + 1)
    return out


def _collect_addresses(c):
    addrs = []
    for en in _all_enums_by_key(c.schema, ("address", "plan_place")):
        for v in en:
            if v and v not in addrs:
                addrs.append(v)
    # addresses written in the text: tokens with two or more ':' separators
    for m in re.finditer(r"(?<![\w':])([A-Z][\w' -]{0,40}:[\w' -]{1,40}:[\w' -]{1,40})(?=[)\n,.:]|$)", c.user):
        v = re.split(r"\.\s", m.group(1))[0].strip().rstrip(".")
        if v.count(":") >= 2 and v not in addrs and len(v) < 120:
            addrs.append(v)
    return addrs


def _read_now(text):
    today = None
    now = None
    for line in text.split("\n"):
        s = line.strip()
        if re.match(r"^(it is|today is|now it is|the time is|it's)\b", s, re.I):
            ds = find_dates(s)
            if ds:
                today = ds[0][1]
            cl = find_clocks(s)
            # exclude the year digits: clocks found after the date
            if cl:
                now = cl[0][2]
            if today:
                break
    if today is None:
        ds = find_dates(text)
        if ds:
            today = ds[0][1]
    return today, now


def _sections(c):
    """list of (subject_name or None, heading, [bullet lines], start offset)."""
    secs = []
    cur = [None, "", [], 0]
    off = 0
    for line in c.lines:
        s = line.strip()
        if s.startswith("- ") or re.match(r"^\d+\.\s", s):
            cur[2].append(s)
        else:
            if cur[2] or cur[1]:
                secs.append(tuple(cur))
            subj = None
            best = 10 ** 9
            for p in c.people:
                i = s.find(p)
                if i >= 0 and i < best:
                    best, subj = i, p
            cur = [subj, s, [], off]
        off += len(line) + 1
    secs.append(tuple(cur))
    return secs


def _conversation_lines(c):
    out = []
    names = sorted(c.people, key=len, reverse=True)
    for line in c.lines:
        s = line.strip()
        for n in names:
            if s.startswith(n + ":"):
                rest = s[len(n) + 1:].strip()
                if rest.startswith('"') and rest.endswith('"') and len(rest) >= 2:
                    rest = rest[1:-1]
                elif rest.startswith('"'):
                    rest = rest.strip('"')
                else:
                    break  # "Name: X" persona lines etc.
                out.append((n, rest))
                break
    return out


class News:
    pass


_DAYTIME = r"(?:tomorrow|today|tonight|this (?:evening|afternoon|morning)|on " + _WD_RE + r"|" + _WD_RE + r"|on \d|from \d|at \d|from noon|\(|in the|at the)"


def _event_phrase(t):
    end = r"(?=\s+(?:in|at|on|from|tomorrow|today|tonight|this|next|by|for|so|to|with|near)\b|[,.;:()?!]|$)"
    pats = [r"\b" + HOSTVERB + r"\s+((?:a|an|the|her|his|their|our|my)\s+[^,.;:()?!]+?)" + end,
            r"\b(?:heard|hear|told me|tell you|know)\s+(?:about|of)\s+((?:a|an|the)\s+[^,.;:()?!]+?)" + end,
            r"\babout\s+((?:a|an)\s+[^,.;:()?!]+?)" + end]
    ph = None
    for rx in pats:
        m = re.search(rx, t, re.I)
        if m:
            ph = m.group(1).strip()
            break
    if ph is None:
        m = re.search(_DAYTIME, t, re.I)
        pre = t[:m.start()] if m else t
        m2 = re.search(r"\b((?:a|an)\s+(?:[\w'-]+\s+){0,3}[\w'-]+)\s*$", pre.strip(), re.I)
        ph = m2.group(1).strip() if m2 else "the event"
    ph = re.sub(r"^(her|his|their|our|my)\s+", "a ", ph, flags=re.I)
    ws = ph.split()
    if len(ws) > 6:
        ph = " ".join(ws[:6])
    return ph


def _parse_news(text, c, holder, hosting_hint):
    n = News()
    n.holder = holder
    n.text = text.strip()
    n.phrase = _event_phrase(text)
    n.day = resolve_day(text, c.today)
    rg = find_range(text)
    n.start, n.end = (rg if rg else (None, None))
    # place: best matching known address
    best, bs = "", 0
    tw = content_words(text)
    for a in c.addresses:
        parts = a.split(":")
        tail = parts[1:] if len(parts) > 1 else parts
        aw = content_words(" ".join(tail))
        sc = len(aw & tw)
        last = content_words(parts[-1])
        if last and last <= tw:
            sc += 1.5
        if sc > bs:
            best, bs = a, sc
    n.place = best if bs >= 1.5 else ""
    pm = re.search(r"\b(?:in|at)\s+(?:the\s+)?([^,.;()]+?)(?=\s+(?:on|from|tomorrow|today|at|this|so)\b|[,.;()]|$)", text)
    n.place_words = pm.group(1).strip() if pm else ""
    hosting = hosting_hint
    if holder and re.match(r"^\s*" + re.escape(holder) + r"\s+(?:wants to|will|is going to|is|plans to|means to)?\s*" + HOSTVERB + r"\b", text, re.I):
        hosting = True
    told = re.match(r"^\s*([A-Z][^:]{1,40}?) told ([^:]{1,40}):\s*(.*)$", text)
    n.source = None
    if told:
        n.source = told.group(1).strip()
        hosting = False
        ho = re.match(r"^\s*([A-Z][\w'-]+(?: [A-Z][\w'-]+)*)\s+(?:wants to|will|is going to|is|plans to)?\s*" + HOSTVERB, told.group(3))
        n.host = ho.group(1) if ho else n.source
    else:
        ho = re.match(r"^\s*([A-Z][\w'-]+(?: [A-Z][\w'-]+)*)\s+(?:wants to|will|is going to|is|plans to)?\s*" + HOSTVERB, text)
        n.host = ho.group(1) if ho else None
        if hosting:
            n.host = holder
        m2 = re.search(r"\b([A-Z][a-z]+)'?s? (?:running|holding|hosting|putting on)", text)
        if not n.host and m2:
            n.host = m2.group(1)
    n.hosting = bool(hosting)
    n.keywords = [w for w in content_words(n.phrase) if w not in ("event",)] or list(content_words(n.phrase))
    try:
        n.pos = c.text.find(text[:40]) / max(1, len(c.text))
    except Exception:
        n.pos = 0.5
    return n


def _read_news(c):
    """dict holder -> News"""
    res = {}
    rx = re.compile(r"(?:^|(?<=[.\n])\s*|-\s)([A-Z][\w'-]+(?: [A-Z][\w'-]+){0,3}) (?:has|have) news\b([^:\n]*):\s*(.+)")
    for m in rx.finditer(c.text):
        holder = m.group(1).strip()
        pre = m.group(2).lower()
        body = m.group(3)
        body = re.split(r"\.\s+(?=Where people|To tell them|How [A-Z]|What [A-Z])", body)[0]
        if holder not in c.people:
            # "X has news..." with X matched partially
            for p in c.people:
                if holder.endswith(p) or p.endswith(holder):
                    holder = p
        hosting = ("host" in pre) or ("their own" in pre) or ("holding" in pre)
        if holder not in res:
            res[holder] = _parse_news(body, c, holder, hosting)
    if not res:
        for s in c.sections:
            h = s[1].lower()
            if ("holding" in h or "hosting" in h) and s[2]:
                holder = s[0] or c.self
                res[holder] = _parse_news(s[2][0][2:], c, holder, True)
                break
    return res


def plans_of(c, person):
    """plan items (start, end, activity, address, day) for a person from plan-looking bullets."""
    out = []
    for subj, head, bullets, off in c.sections:
        if subj not in (person, None) and subj is not None:
            continue
        if subj is None and person != c.self:
            continue
        for b in bullets:
            if b.startswith("- ["):
                continue
            cl = find_clocks(b)
            if len(cl) < 2 or cl[0][0] > 4:
                continue
            rest = b[cl[1][1]:].strip()
            mm = re.match(r"(.+?)\s*\((?:planned at\s+)?([^()]*?)\)\s*(?:on\s+(.+))?$", rest)
            if mm:
                act, addr, dtxt = mm.group(1), mm.group(2), mm.group(3)
            else:
                act, addr, dtxt = rest, "", None
            day = resolve_day(dtxt, c.today) if dtxt else None
            out.append((cl[0][2], cl[1][2], act.strip(), addr.strip(), day))
    return out


def memories_of(c, person=None):
    out = []
    for subj, head, bullets, off in c.sections:
        if person and subj not in (person, None):
            continue
        for b in bullets:
            if b.startswith("- [") or re.match(r"^\d+\.\s*\[", b):
                out.append(b)
    return out


def mentioned(news, lines):
    """has the news come up in these conversation lines?"""
    if not news:
        return False
    kws = news.keywords
    for sp, t in lines:
        tw = words(t)
        if kws and sum(1 for k in kws if k in tw) >= max(1, (len(kws) + 1) // 2):
            return True
    return False


def relation_score(c, a, b):
    """-1 bad, 0 neutral, +1 good: a's view of b from the persona/identity and 'how X sees' text."""
    if not b:
        return 0
    score = 0
    short_b = b.split()[0]
    for line in c.lines:
        if (line.startswith("Identity:") and a in line) or line.startswith("How " + a) or \
                (line.startswith("Identity:") and c.self == a):
            for sent in re.split(r"(?<=[.;])\s+", line):
                if b in sent or short_b in sent:
                    if NEG_REL.search(sent):
                        score -= 1
                    elif POS_REL.search(sent):
                        score += 1
    return max(-1, min(1, score))


def persona_of(c, person):
    """(traits set, identity text) for person in multi-persona prompts."""
    txt = c.text
    i = txt.find("Name: " + person)
    if i < 0:
        return c.traits, _field(txt, "Identity")
    seg = txt[i:i + 2000]
    return words(_field(seg, "Innate traits")), _field(seg, "Identity")


def trait_mod(traits, pos=0.10, neg=-0.15):
    d = 0.0
    if traits & POS_TRAITS:
        d += pos
    if traits & NEG_TRAITS:
        d += neg
    return d


def middle_factor(c, news):
    if c.tokens > 2500 and news is not None and 0.2 < getattr(news, "pos", 0.5) < 0.8:
        return 0.75
    return 1.0


def first(name):
    return (name or "").split()[0] if name else ""


# ----------------------------------------------------------------------------------------------
# speech
# ----------------------------------------------------------------------------------------------

GREET = ["Morning, {o}.", "Hello, {o}.", "Oh, {o}, good to see you.", "{o}! How are you keeping?",
         "Hi {o}, how's your day going?", "Afternoon, {o}."]
SMALL = ["Busy day, is it?", "Weather's been odd lately.", "Not much new with me, just the usual.",
         "I'm keeping busy, as ever.", "How are things at home?", "Can't complain, really."]
BYE = ["Right, I'd better get on. See you, {o}.", "Anyway, I must be off. Take care, {o}.",
       "Good talking to you, {o}. Bye for now!", "I should get going. See you around, {o}."]


def tell_line(rng, c, speaker, listener, news, hosting, first_line):
    d_day = rng.random() < (0.97 if hosting else 0.90)
    d_time = rng.random() < (0.95 if hosting else 0.80)
    d_place = rng.random() < (0.90 if hosting else 0.70)
    parts = []
    if news.day and d_day and c.today:
        delta = (news.day - c.today).days
        parts.append("today" if delta == 0 else "tomorrow" if delta == 1 else
                     ("on " + WEEKDAYS[news.day.weekday()].capitalize()))
    if news.start is not None and d_time:
        st = news.start
        if rng.random() < 0.04:
            st += 60 if rng.random() < 0.5 else -60
        if news.end is not None:
            parts.append("from %s to %s" % (spoken_time(st), spoken_time(news.end)))
        else:
            parts.append("at %s" % spoken_time(st))
    if d_place:
        if news.place:
            pp = news.place.split(":")
            parts.append("in the %s at %s" % (pp[-1], pp[-2]) if len(pp) >= 2 else "at " + pp[-1])
        elif news.place_words:
            parts.append("at " + news.place_words)
    det = (" " + " ".join(parts)) if parts else ""
    o = first(listener) if listener else "everyone"
    phrase = news.phrase
    if hosting:
        s = rng.choice(["I'm holding %s%s." % (phrase, det), "News! I'm putting on %s%s." % (phrase, det),
                        "I'm running %s%s." % (phrase, det)])
        if rng.random() < 0.90:
            s += " " + rng.choice(["I hope you can come, %s." % o, "Would you like to come?",
                                   "I'd love to see you there.", "Do come along!"])
    else:
        host = first(news.host) if news.host and news.host != speaker else None
        src = first(news.source) if news.source and news.source != speaker else host
        opts = ["Have you heard about %s%s?" % (phrase, det)]
        if host:
            opts += ["Have you heard? %s is holding %s%s." % (host, phrase, det),
                     "Did you hear about %s%s? %s's running it." % (phrase, det, host)]
        if src:
            opts.append("%s told me about %s%s." % (src, phrase, det))
        s = rng.choice(opts)
        if rng.random() < 0.30:
            s += " You should come."
    if first_line and rng.random() < 0.5:
        s = rng.choice(GREET).format(o=o) + " " + s
    return s


def event_for_reply(c, speaker):
    """the event raised by someone else in the conversation so far (a News-like object) or None."""
    convo = c.convo
    for sp, t in reversed(convo):
        if sp == speaker:
            continue
        for holder, n in c.news.items():
            if holder != speaker and mentioned(n, [(sp, t)]):
                return n, sp, t
        # the speaker's own knowledge: news text in the prompt may belong to someone else
        if EVENT_TALK.search(t) or (re.search(r"\b(come|join|heard|holding|running|putting on|invite)\b", t, re.I) and find_clocks(t)):
            n = _parse_news(t, c, sp, bool(re.search(r"\bI'?m (holding|running|putting on|hosting)\b", t)))
            return n, sp, t
    return None


def has_replied(c, speaker, since_line):
    seen = False
    for sp, t in c.convo:
        if t == since_line:
            seen = True
            continue
        if seen and sp == speaker:
            return True
    return False


def already_going(c, person, news):
    if news is None:
        return False
    for st, en, act, addr, day in plans_of(c, person):
        if news.keywords and any(k in words(act) for k in news.keywords):
            return True
    for mline in memories_of(c, person):
        low = mline.lower()
        if news.keywords and any(k in low for k in news.keywords) and ACCEPT_RE.search(mline):
            return True
    return False


def clash(c, person, news, rng):
    """'real' if a real commitment overlaps the event, 'ordinary' if only ordinary, None if free."""
    if news is None or news.start is None:
        return None
    end = news.end if news.end is not None else news.start + 120
    if end <= news.start:
        end += 24 * 60
    kind = None
    for st, en, act, addr, day in plans_of(c, person):
        if day is not None and news.day is not None and day != news.day:
            continue
        if day is None and news.day is not None and c.today is not None and news.day != c.today:
            continue  # today's plan does not cover another day
        if news.keywords and any(k in words(act) for k in news.keywords):
            continue
        e2 = en if en > st else en + 24 * 60
        if st < end and news.start < e2:
            if "sleep" in act.lower():
                continue
            if COMMIT_RE.search(act) and not ORDINARY_RE.search(act):
                return "real", act
            if COMMIT_RE.search(act) and "calling on" in act.lower():
                return "real", act
            kind = ("ordinary", act)
    return kind


def reply_line(rng, c, speaker, ev, teller, mods_traits):
    news, sp, t = ev
    if already_going(c, speaker, news) and rng.random() < 0.90:
        return rng.choice(["Yes, I know, I'll be there.", "I'd heard! I'm planning to go.",
                           "I'll be there, don't worry."]), "yes"
    invited = bool(re.search(r"\b(come|join|see you there|invite)\b", t, re.I)) and (
        news.hosting or (news.host and teller and first(news.host) == first(teller)))
    p = 0.65 if invited else 0.45
    p += trait_mod(mods_traits, 0.10, -0.10)
    rel = relation_score(c, speaker, news.host or teller)
    p += -0.25 if rel < 0 else (0.10 if rel > 0 else 0)
    cl = clash(c, speaker, news, rng)
    if cl and cl[0] == "real":
        p *= 0.35
    p = max(0.05, min(0.95, p))
    if cl and cl[0] == "ordinary" and rng.random() < 0.10:
        return "Sorry, I can't, I'll be %s then." % cl[1], "no"
    if rng.random() < p:
        return rng.choice(["Oh, that sounds good. I'll be there.", "Really? I think I'll go.",
                           "Count me in!", "I'd like that, I'll come along.",
                           "Thanks for telling me, I'll be there."]), "yes"
    if rng.random() < 0.55:
        return rng.choice(["I might drop by if I can.", "Interesting, I'll keep it in mind.",
                           "Maybe, we'll see how the day goes."]), "maybe"
    if cl and cl[0] == "real":
        return "I'm sorry, I can't, I've got %s then." % cl[1], "no"
    return rng.choice(["Not really my thing, but thanks for telling me.", "Sorry, I can't come to that.",
                       "I don't think so, but thanks."]), "no"


def next_utterance(rng, c, speaker, listener, convo_override=None, first_line=None):
    """(text, want_end, told, replied)"""
    saved = c.convo
    if convo_override is not None:
        c.convo = convo_override
    try:
        mine = [t for sp, t in c.convo if sp == speaker]
        if first_line is None:
            first_line = not mine
        traits, ident = persona_of(c, speaker)
        # 1) reply to an event raised by someone else and not yet answered by us
        ev = event_for_reply(c, speaker)
        if ev is not None and not has_replied(c, speaker, ev[2]) and ev[1] != speaker:
            txt, ans = reply_line(rng, c, speaker, ev, ev[1], traits)
            return txt, None, False, ans
        # 1b) acknowledge an answer to the news I told
        n = c.news.get(speaker)
        if n is not None and mentioned(n, [(sp, t) for sp, t in c.convo if sp == speaker]) and c.convo \
                and c.convo[-1][0] != speaker:
            last = c.convo[-1][1]
            if ACCEPT_RE.search(last):
                return rng.choice(["Great, I'll save you a seat.", "Lovely, see you there!", "Good, glad to hear it."]), None, False, None
            if DECLINE_RE.search(last) or MAYBE_RE.search(last):
                return rng.choice(["Oh well, maybe next time.", "No worries, if you can make it, do.", "Fair enough."]), None, False, None
        # 2) tell own news
        if n is not None and not mentioned(n, c.convo):
            hosting = n.hosting
            p = (0.85 if first_line else 0.70) if hosting else (0.65 if first_line else 0.50)
            p += trait_mod(traits)
            if relation_score(c, speaker, listener) < 0:
                p -= 0.20
            p *= middle_factor(c, n)
            if rng.random() < p:
                return tell_line(rng, c, speaker, listener, n, hosting, first_line), None, True, None
        # 3) small talk / goodbye
        o = first(listener) if listener else "everyone"
        if first_line:
            s = rng.choice(GREET).format(o=o)
            if rng.random() < 0.6:
                s += " " + rng.choice(SMALL)
            return s, None, False, None
        cur = _field(c.text, "Currently")
        if rng.random() < 0.3 and cur and speaker == c.self:
            bit = re.split(r"(?<=\.)\s", cur)[0]
            bit = bit.replace(speaker + " is", "I'm").replace(speaker + " has", "I've").replace(speaker, "I")
            return bit, None, False, None
        return rng.choice(SMALL + ["Funny how the days go.", "That's good to hear."]), None, False, None
    finally:
        c.convo = saved


def end_prob(n_lines, news_done):
    p = 0.10 if n_lines < 2 else 0.35 if n_lines < 4 else 0.60 if n_lines < 6 else 0.85
    if news_done:
        p += 0.20
    return min(0.97, p)


# ----------------------------------------------------------------------------------------------
# kind detection
# ----------------------------------------------------------------------------------------------

def detect_kind(c):
    name = c.schema_name.lower()
    props = set((c.schema.get("properties") or {}).keys())
    known = ["probe", "importance_batch", "importance", "revise_currently", "daily_plan", "decompose",
             "react", "relationship", "conversation_memo", "reflection_questions", "reflection_insights",
             "group_turn", "interview", "conversation_summary", "group_summary", "replan", "choose_address"]
    if name in known:
        return name
    if not c.json_mode:
        return "converse_turn"
    if props == {"ok"}:
        return "probe"
    if "ratings" in props:
        return "importance_batch"
    if props == {"importance"}:
        return "importance"
    if "currently" in props:
        return "revise_currently"
    if {"blocks", "outline"} & props:
        return "daily_plan"
    if "new_blocks" in props:
        return "replan"
    if "steps" in props:
        return "decompose"
    if "choice" in props:
        return "react"
    if {"talk", "memos"} <= props:
        return "group_summary"
    if {"talk", "lines"} <= props:
        return "conversation_summary"
    if "utterance" in props:
        return "group_turn"
    if "questions" in props:
        return "reflection_questions"
    if "insights" in props:
        return "reflection_insights"
    if "answer" in props:
        return "interview"
    if "place" in props:
        return "choose_address"
    if "summary" in props and any(p.startswith("plan") for p in props):
        return "conversation_memo"
    if "summary" in props:
        return "relationship"
    return "generic"


# ----------------------------------------------------------------------------------------------
# schema helpers (grammar emulation: keys, types, enums)
# ----------------------------------------------------------------------------------------------

def _deref(s, defs):
    if isinstance(s, dict) and "$ref" in s:
        ref = s["$ref"].split("/")[-1]
        return defs.get(ref, {})
    return s or {}


def fill(s, defs, depth=0):
    s = _deref(s, defs)
    if depth > 10:
        return None
    if "enum" in s and s["enum"]:
        return s["enum"][0]
    if "anyOf" in s:
        for alt in s["anyOf"]:
            a = _deref(alt, defs)
            if a.get("type") != "null":
                return fill(a, defs, depth + 1)
        return None
    t = s.get("type")
    if isinstance(t, list):
        t = [x for x in t if x != "null"][0] if [x for x in t if x != "null"] else "null"
    if t == "object" or "properties" in s:
        return {k: fill(v, defs, depth + 1) for k, v in (s.get("properties") or {}).items()}
    if t == "array":
        n = max(1, s.get("minItems", 1))
        return [fill(s.get("items") or {}, defs, depth + 1) for _ in range(n)]
    if t == "integer":
        return int(s.get("minimum", 1))
    if t == "number":
        return float(s.get("minimum", 1))
    if t == "boolean":
        return False
    if t == "null":
        return None
    return "ok"


def conform(v, s, defs, depth=0):
    """coerce v to the schema's types/enums/keys, as a grammar would. Lengths/counts untouched."""
    s = _deref(s, defs)
    if depth > 12:
        return v
    if "anyOf" in s:
        alts = [_deref(a, defs) for a in s["anyOf"]]
        if v is None and any(a.get("type") == "null" for a in alts):
            return None
        for a in alts:
            if a.get("type") == "object" and isinstance(v, dict):
                ok = True
                for k, ps in (a.get("properties") or {}).items():
                    ps = _deref(ps, defs)
                    if "enum" in ps and v.get(k) not in ps["enum"]:
                        ok = False
                if ok:
                    return conform(v, a, defs, depth + 1)
        for a in alts:
            if a.get("type") != "null":
                return conform(v, a, defs, depth + 1) if isinstance(v, dict) or a.get("type") != "object" else fill(a, defs)
        return None
    if "enum" in s and s["enum"]:
        if v in s["enum"]:
            return v
        vs = str(v).lower()
        best, bs = s["enum"][0], -1
        for e in s["enum"]:
            sc = len(words(str(e)) & words(vs)) + (2 if str(e).lower() == vs else 0)
            if isinstance(e, str) and e and e.lower() in vs:
                sc += 1
            if sc > bs:
                best, bs = e, sc
        return best
    t = s.get("type")
    if t == "object" or "properties" in s:
        if not isinstance(v, dict):
            v = {}
        out = {}
        for k, ps in (s.get("properties") or {}).items():
            if k in v:
                out[k] = conform(v[k], ps, defs, depth + 1)
            else:
                out[k] = fill(ps, defs)
        return out
    if t == "array":
        if not isinstance(v, list):
            v = [] if v is None else [v]
        return [conform(x, s.get("items") or {}, defs, depth + 1) for x in v]
    if t == "integer":
        try:
            return int(round(float(v)))
        except Exception:
            return int(s.get("minimum", 1))
    if t == "number":
        try:
            return float(v)
        except Exception:
            return 0.0
    if t == "boolean":
        return bool(v)
    if t == "string":
        return "" if v is None else str(v)
    return v


def prop_schema(c, *path):
    s = c.schema
    for p in path:
        s = _deref(s, c.defs)
        if p == "[]":
            s = s.get("items") or {}
        else:
            s = (s.get("properties") or {}).get(p) or {}
    return _deref(s, c.defs)


def enum_of(c, *path):
    s = prop_schema(c, *path)
    if "anyOf" in s:
        for a in s["anyOf"]:
            a = _deref(a, c.defs)
            if a.get("enum"):
                return a["enum"]
    return s.get("enum") or []


# ----------------------------------------------------------------------------------------------
# generators per kind
# ----------------------------------------------------------------------------------------------

def g_probe(rng, c):
    return {"ok": True}


def importance_of(rng, text):
    low = text.lower()
    if re.search(r"\b(is (in use|occupied|being used|idle)|sleeping|brushing|waking up)\b", low):
        base = rng.choice([1, 1, 2, 2, 3])
    elif re.search(r"\b(told|news|invit|event|evening|party|wedding|festival|hold|host|said i'?d|will go|plan for)\b", low):
        base = rng.choice([5, 6, 6, 7, 7, 8])
    elif re.search(r"\b(chatting|conversation|talk|calling on|seeing people)\b", low):
        base = rng.choice([2, 3, 3, 4])
    elif re.search(r"\b(death|died|fire|flood|accident|love|married|fired|lost)\b", low):
        base = rng.choice([7, 8, 9])
    else:
        base = rng.choice([2, 3, 3, 4, 5])
    return max(1, min(10, base + rng.choice([-1, 0, 0, 0, 1])))


def g_importance(rng, c):
    m = re.search(r"Memory:\s*\"?(.+)", c.text)
    t = m.group(1) if m else c.text[-400:]
    if rng.random() < 0.15:
        return {"importance": 5}
    return {"importance": importance_of(rng, t)}


def g_importance_batch(rng, c):
    items = re.findall(r'^\s*(?:-|\d+[.)])\s*"(.+)"\s*$', c.text, re.M)
    if not items:
        items = [b for s in c.sections for b in s[2]]
    s = prop_schema(c, "ratings")
    n = s.get("maxItems") or s.get("minItems") or len(items) or 1
    if items and len(items) != n and not s.get("maxItems"):
        n = len(items)
    flat = rng.random() < 0.15
    r = [5 if flat else importance_of(rng, items[i] if i < len(items) else "") for i in range(n)]
    if rng.random() < 0.06:
        if rng.random() < 0.5 and len(r) > 1:
            r = r[:-1]
        else:
            r.append(rng.choice([2, 3]))
    return {"ratings": r}


def third(c, s):
    return s


def g_revise_currently(rng, c):
    old = _field(c.text, "Currently")
    keep = re.split(r"(?<=\.)\s+", old)[0] if old else "%s is going about the usual routine." % c.self
    add = []
    for holder, n in c.news.items():
        if holder == c.self:
            day = ""
            if n.day and c.today:
                delta = (n.day - c.today).days
                day = " today" if delta == 0 else " tomorrow" if delta == 1 else (" on " + WEEKDAYS[n.day.weekday()].capitalize()) if delta > 0 else ""
            tm = (" from %s to %s" % (spoken_time(n.start), spoken_time(n.end))) if n.start is not None and n.end is not None else ""
            if n.hosting or rng.random() < 0.06:
                add.append("%s is getting ready to hold %s%s%s and is asking everyone to come." % (c.self, n.phrase, day, tm))
            else:
                add.append("%s has heard about %s%s%s and wants to pass the news on." % (c.self, n.phrase, day, tm))
    mems = memories_of(c)
    for mline in mems[-12:]:
        if ACCEPT_RE.search(mline) and not add:
            ev = _event_phrase(mline)
            if ev != "the event":
                add.append("%s means to go to %s." % (c.self, ev))
                break
    if not add:
        for mline in mems:
            if re.search(r"\b(wants to|plans to|will)\s+" + HOSTVERB, mline, re.I) and c.self in mline[:80]:
                add.append("%s is getting ready to hold %s and is asking everyone to come." % (c.self, _event_phrase(mline)))
                break
    if not add:
        add.append("%s is keeping to the usual routine." % c.self)
    return {"currently": " ".join([keep] + add[:2])}


def lifestyle(c):
    lf = _field(c.text, "Lifestyle")
    cl = find_clocks(lf)
    wake = cl[0][2] if cl else 7 * 60
    ws = cl[1][2] if len(cl) > 2 else wake + 120
    we = cl[2][2] if len(cl) > 2 else 17 * 60
    bed = cl[-1][2] if len(cl) >= 2 else 22 * 60
    if bed < 12 * 60:
        bed += 24 * 60 if bed < 3 * 60 else 0
    m = re.search(r"wakes up[^,]*,\s*(.+?)\s+from\b", lf)
    work = m.group(1).strip() if m else "working"
    work = re.sub(r"^(works|keeps|opens|is|runs)\b", lambda x: {"works": "working", "keeps": "keeping", "opens": "opening", "is": "being", "runs": "running"}[x.group(1)], work)
    return wake, ws, we, bed, work


EMO = {"sleep": "😴", "breakfast": "🍳", "lunch": "🥪", "dinner": "🍲", "relax": "📖", "work": "🛠️",
       "news": "📣", "event": "🎉", "call": "🚶", "wak": "🛏️"}


def emoji_for(act):
    a = act.lower()
    for k, e in EMO.items():
        if k in a:
            return e
    return "🙂"


def pick_addr(opts, *hints, default=None):
    """best option by shared words; the first hint weighs 3x; words common to all options ignored."""
    best, bs = default if default is not None else (opts[0] if opts else ""), 0
    common = None
    for a in opts:
        w = content_words(a.replace(":", " "))
        common = w if common is None else (common & w)
    common = common or set()
    for a in opts:
        aw = content_words(a.replace(":", " ")) - common
        sc = 0
        for i, h in enumerate(hints):
            sc += (3 if i == 0 else 1) * len(aw & content_words(h))
        if sc > bs:
            best, bs = a, sc
    return best


def home_addrs(c, opts):
    m = re.search(r"sleeping at home \(([^)]+)\)", c.text)
    bedroom = m.group(1) if m else (opts[0] if opts else "")
    house = bedroom.rsplit(":", 1)[0] if ":" in bedroom else bedroom
    kitchen = next((a for a in opts if a.startswith(house) and "kitchen" in a.lower()), bedroom)
    return bedroom, kitchen


def event_today_for_plan(rng, c, plan_day):
    """(news, intent) for an event on plan_day the persona knows of; intent in host/yes/maybe."""
    cands = []
    for holder, n in c.news.items():
        if holder == c.self:
            cands.append((n, "host" if n.hosting else "heard"))
    mems = memories_of(c)
    for mline in mems:
        if ACCEPT_RE.search(mline) or MAYBE_RE.search(mline) or "told" in mline:
            n = _parse_news(re.sub(r"^\s*-\s*\[[^\]]*\]\s*", "", mline), c, None, False)
            if n.start is None:
                continue
            intent = "yes" if ACCEPT_RE.search(mline) else "maybe"
            cands.append((n, intent))
    cur = _field(c.text, "Currently")
    if cur and re.search(r"\b(hold|host|holding|hosting)\b", cur):
        n = _parse_news(cur, c, c.self, True)
        if n.start is not None:
            cands.append((n, "host"))
    best = None
    rank = {"host": 3, "yes": 2, "maybe": 1, "heard": 1}
    for n, intent in cands:
        if n.day is not None and plan_day is not None and n.day != plan_day:
            continue
        if n.day is None:
            continue
        if best is None or rank[intent] > rank[best[1]]:
            best = (n, intent)
    if best is None:
        return None
    # did any memory of accepting refer to this event? upgrade 'heard' to 'yes'
    n, intent = best
    if not n.place:
        for n2, _i in cands:
            if n2.place and set(n2.keywords) & set(n.keywords):
                n.place = n2.place
                break
    if intent in ("heard", "maybe"):
        for mline in mems:
            if n.keywords and any(k in mline.lower() for k in n.keywords) and ACCEPT_RE.search(mline):
                intent = "yes"
                break
    return n, intent


def g_daily_plan(rng, c):
    opts = enum_of(c, "blocks", "[]", "address") or c.addresses or ["home"]
    wake, ws, we, bed, work = lifestyle(c)
    bedroom, kitchen = home_addrs(c, opts)
    workaddr = pick_addr(opts, work, _field(c.text, "Identity")[:160], default=bedroom)
    plan_day = c.today
    blocks = []

    def add(st, dur, act, addr):
        blocks.append([st, dur, act, addr])

    add(wake, 30, "waking up and getting ready", bedroom)
    add(wake + 30, 30, "having breakfast", kitchen)
    t = wake + 60
    if ws > t:
        add(t, ws - t, "relaxing at home", bedroom)
        t = ws
    lunch = max(t + 60, min(13 * 60, (ws + we) // 2))
    if we <= lunch:
        we = lunch + 120
    add(t, lunch - t, work, workaddr)
    add(lunch, 60, "having lunch", kitchen)
    add(lunch + 60, we - lunch - 60, work, workaddr)
    t = we
    dinner = max(t, 18 * 60)
    if dinner > t:
        add(t, dinner - t, "relaxing at home", bedroom)
    add(dinner, 60, "having dinner", kitchen)
    if bed > dinner + 60:
        add(dinner + 60, bed - dinner - 60, "relaxing at home", bedroom)
    sleep_start = max(bed, dinner + 60)
    # event / news
    ev = event_today_for_plan(rng, c, plan_day)
    outline_extra = []
    if ev:
        n, intent = ev
        p = {"host": 0.92, "yes": 0.75}.get(intent, 0.35) * middle_factor(c, n)
        if rng.random() < p and n.start is not None:
            end = n.end if n.end is not None and n.end > n.start else n.start + 120
            act = ("hosting " + n.phrase) if intent == "host" else ("going to " + re.sub(r"^(a|an)\s", "the ", n.phrase))
            addr = n.place if n.place in opts else pick_addr(opts, n.place, n.place_words, n.text)
            blocks = _insert_block(blocks, n.start, end - n.start, act, addr)
            sleep_start = max(sleep_start, end)
            outline_extra.append((n.start, act))
    own = c.news.get(c.self)
    places = re.findall(r"^- ([^\n:]+:[^\n:]+:[^\n:]+?):\s*\d+ (?:person|people),\s*(.+)$", c.text, re.M)
    if own is not None and places:
        p = 0.70 if own.hosting else 0.55
        if rng.random() < p * middle_factor(c, own):
            addr, when = rng.choice(places)
            rg = find_range(when)
            if rg and rg[0] is not None:
                st = max(rg[0], wake + 60)
                free = [b for b in blocks if "relax" in b[2] and b[0] <= st < b[0] + b[1]]
                if not free:
                    free = [b for b in blocks if "relax" in b[2]]
                    if free:
                        st = free[0][0]
                if free:
                    blocks = _insert_block(blocks, st, 60, "telling people the news", addr if addr in opts else pick_addr(opts, addr))
                    outline_extra.append((st, "telling people the news"))
    blocks = [b for b in blocks if b[1] > 0]
    blocks.sort(key=lambda b: b[0])
    last_end = blocks[-1][0] + blocks[-1][1] if blocks else bed
    sleep_start = max(last_end, min(sleep_start, 23 * 60 + 55))
    blocks.append([sleep_start, (wake + 24 * 60) - sleep_start, "sleeping", bedroom])
    if rng.random() < 0.05 and len(blocks) > 3:
        i = rng.randrange(1, len(blocks) - 1)
        blocks[i][1] += rng.choice([-15, 15, 30])
    out_blocks = [{"start": hhmm(b[0]), "duration_minutes": int(b[1]), "activity": b[2],
                   "emoji": emoji_for(b[2]), "address": b[3]} for b in blocks]
    outline = ["wake up at %s" % spoken_time(wake)]
    seen = set()
    for b in blocks[1:-1]:
        if b[2] in seen and "work" not in b[2]:
            continue
        seen.add(b[2])
        outline.append("%s at %s" % (b[2], spoken_time(b[0])))
    outline.append("go to bed at %s" % spoken_time(sleep_start))
    if len(outline) > 8 and rng.random() >= 0.08:
        keep = [outline[0]] + [o for o in outline[1:-1] if "relax" not in o][:6] + [outline[-1]]
        outline = keep[:8]
    return {"wake_up_hour": wake // 60, "outline": outline, "blocks": out_blocks}


def _insert_block(blocks, st, dur, act, addr):
    en = st + dur
    out = []
    for b in blocks:
        bs, be = b[0], b[0] + b[1]
        if be <= st or bs >= en:
            out.append(b)
            continue
        if bs < st:
            out.append([bs, st - bs, b[2], b[3]])
        if be > en:
            out.append([en, be - en, b[2], b[3]])
    out.append([st, dur, act, addr])
    out.sort(key=lambda b: b[0])
    return out


STEP_BANK = {
    "breakfast": ["making coffee", "frying eggs", "making toast", "eating at the table", "washing the dishes",
                  "wiping the table", "putting things away", "drinking tea"],
    "lunch": ["cutting bread", "heating soup", "eating lunch", "clearing up", "washing up", "making tea"],
    "dinner": ["peeling potatoes", "cooking dinner", "setting the table", "eating dinner", "washing up after dinner",
               "drying the plates"],
    "sleep": ["sleeping", "sleeping soundly", "turning over", "sleeping"],
    "relax": ["making a cup of tea", "reading for a while", "resting in a chair", "listening to the radio",
              "tidying the room", "looking out of the window"],
    "wak": ["stretching and getting out of bed", "washing face", "getting dressed", "making the bed"],
    "news": ["looking for people to talk to", "chatting with whoever is there", "passing on the news",
             "waiting for someone to come by"],
    "call": ["walking over", "knocking on the door", "chatting over tea", "saying goodbye"],
}
GENERIC_STEPS = ["getting set up", "getting on with the work", "checking the {o}", "using the {o}",
                 "taking a short break", "carrying on with the work", "tidying up afterwards",
                 "sorting things out", "cleaning the {o}", "fetching supplies"]


def g_decompose(rng, c):
    objs = [o for o in enum_of(c, "steps", "[]", "object") if o]
    if not objs:
        m = re.search(r"Objects there:\s*(.+)", c.text)
        objs = [o.strip() for o in m.group(1).split(",")] if m else []
    m = re.search(r"\((\d+) minutes\)\s*[^,.]*? is ([^,]+?), at", c.text)
    act = m.group(2) if m else ""
    m2 = re.search(r"fill (?:only its first|the) (\d+) minutes", c.text)
    total = int(m2.group(1)) if m2 else (int(m.group(1)) if m else 60)
    total = max(5, min(total, 240))
    bank = None
    for k, v in STEP_BANK.items():
        if k in act.lower():
            bank = v
            break
    if bank is None:
        bank = GENERIC_STEPS
    ss = prop_schema(c, "steps")
    mc = re.search(r"into (\d+) to (\d+)", c.text)
    lo = int(mc.group(1)) if mc else int(ss.get("minItems", 8))
    hi = int(mc.group(2)) if mc else int(ss.get("maxItems", 12))
    n = max(lo, min(hi, int(round(total / 10.0)) + rng.choice([-1, 0, 0, 1])))
    n = max(1, min(n, max(1, total // 5)))
    if rng.random() < 0.05:
        n = max(1, lo - 2)
    per = max(5, min(15, total // n))
    steps = []
    used = 0
    for i in range(n):
        a = bank[i % len(bank)]
        o = rng.choice(objs) if objs and rng.random() < 0.7 else ""
        a = a.format(o=o or "tools")
        d = per if i < n - 1 else max(5, min(15, total - used))
        if rng.random() < 0.10 / max(1, n) * 1.0 and i == 0:
            d = 20
        used += d
        steps.append({"activity": a, "duration_minutes": d, "object": o,
                      "object_state": ("in use" if o else "") if rng.random() < 0.5 else ("occupied" if o else "")})
    if rng.random() < 0.10:
        steps[rng.randrange(len(steps))]["duration_minutes"] = 20
    return {"steps": steps}


def g_react(rng, c):
    m = re.search(r"has news to pass on and has not told ([^:]+?) yet", c.text)
    m_not = re.search(r"has just noticed:\s*\"([^\"]+)\"", c.text)
    target = None
    if m_not:
        for p in c.others:
            if m_not.group(1).startswith(p):
                target = p
    target = target or (c.others[0] if c.others else "them")
    now_line = next((l for l in c.lines if re.match(r"^(it is|it's)\b", l.strip(), re.I)), "")
    out_seeing = bool(re.search(r"\b(seeing people|telling people|looking for people|passing on)\b", now_line))
    if m:
        p_talk = 0.65 * middle_factor(c, next(iter(c.news.values()), None))
        if rng.random() < p_talk:
            return {"choice": "talk", "reason": "I want to tell %s the news." % first(target), "new_activity": ""}
    if out_seeing and rng.random() < 0.55:
        return {"choice": "talk", "reason": "%s is right here and I'm out to see people." % first(target), "new_activity": ""}
    r = rng.random()
    if r < 0.75:
        return {"choice": "continue", "reason": "Nothing about this needs me to stop what I'm doing.", "new_activity": ""}
    if r < 0.87:
        return {"choice": "talk", "reason": "It would be nice to say hello to %s." % first(target), "new_activity": ""}
    if r < 0.95:
        return {"choice": "wait", "reason": "I'll let %s finish first." % first(target), "new_activity": ""}
    return {"choice": "react", "reason": "This changes what I should be doing.", "new_activity": "going over to see what %s is doing" % first(target)}


def g_relationship(rng, c):
    m = re.search(r"relationship with ([^,\n]+?)(?:,|\n|$)", c.text)
    other = m.group(1).strip() if m else (c.others[0] if c.others else "them")
    rel = relation_score(c, c.self, other)
    mems = [x for x in memories_of(c) if other in x or first(other) in x]
    talked = any("chat" in x or "told" in x or "conversation" in x for x in mems)
    if rel < 0:
        s = "I have never got on with %s, and I still feel wary of them right now." % first(other)
    elif rel > 0:
        s = "%s is someone I care about and trust; right now I feel warmly towards them." % first(other)
    elif talked:
        s = "I know %s from around town and we've had a few words lately; I feel friendly towards them." % first(other)
    else:
        s = "I only know %s a little from around town. Right now I feel fine towards them." % first(other)
    if mems and rng.random() < 0.4:
        s += " " + re.sub(r"^\s*-\s*\[[^\]]*\]\s*", "", mems[-1])[:150]
    return {"summary": s}


def parse_memo_convo(c):
    """the conversation lines a memo is about."""
    return c.convo


def memo_for(rng, c, person, lines, news_known=None, today=None):
    """one memo dict from person's point of view (rules M)."""
    today = today or c.today
    others = [sp for sp, t in lines if sp != person]
    other = others[0] if others else (c.others[0] if c.others else "someone")
    ev = None
    ev_line = None
    for sp, t in lines:
        for holder, n in c.news.items():
            if mentioned(n, [(sp, t)]):
                ev, ev_line = n, (sp, t)
                break
        if ev:
            break
        if ev is None and (EVENT_TALK.search(t) or (find_clocks(t) and re.search(r"\b(come|heard|holding|running|putting on|hosting)\b", t, re.I))):
            ev = _parse_news(t, c, sp, bool(re.search(r"\bI'?m (?:holding|running|putting on|hosting|having|throwing|organi[sz]ing)\b", t, re.I)))
            ev_line = (sp, t)
            break
    if news_known is not None and ev is None:
        ev = news_known
    own = [t for sp, t in lines if sp == person]
    said_yes = any(ACCEPT_RE.search(t) for t in own)
    said_maybe = any(MAYBE_RE.search(t) for t in own) and not said_yes
    said_no = any(DECLINE_RE.search(t) for t in own) and not said_yes
    other_yes = any(ACCEPT_RE.search(t) for sp, t in lines if sp != person)
    is_host = ev is not None and ((ev.holder == person and ev.hosting) or (ev.host and first(ev.host) == first(person)))
    memo = {"summary": "", "importance": 3, "plan_activity": "", "plan_date": "", "plan_start": "",
            "plan_minutes": 0, "plan_place": ""}
    names = " and ".join(first(o) for o in dict.fromkeys(others)) or first(other)
    if ev is None:
        topic = ""
        if own or others:
            topic = " about everyday things"
        memo["summary"] = "I chatted with %s%s; nothing was arranged." % (names, topic)
        memo["importance"] = rng.choice([2, 2, 3, 3, 4])
        return memo
    # summary with detail rates
    det = []
    if ev.day and today and rng.random() < (0.97 if is_host else 0.90):
        delta = (ev.day - today).days
        det.append("today" if delta == 0 else "tomorrow" if delta == 1 else "on " + WEEKDAYS[ev.day.weekday()].capitalize())
    if ev.start is not None and rng.random() < (0.95 if is_host else 0.80):
        det.append(("from %s to %s" % (spoken_time(ev.start), spoken_time(ev.end))) if ev.end is not None else "at " + spoken_time(ev.start))
    if ev.place and rng.random() < (0.90 if is_host else 0.70):
        det.append("at " + ev.place.split(":")[-2] if ev.place.count(":") >= 1 else ev.place)
    d = (" " + " ".join(det)) if det else ""
    if is_host:
        resp = " and they said they'd come" if other_yes else (" and they weren't sure" if not other_yes else "")
        memo["summary"] = "I told %s about %s%s and asked them to come%s." % (names, ev.phrase, d, resp)
    else:
        tail = ", and I said I'd go" if said_yes else "; I might go" if said_maybe else "; I can't go" if said_no else ""
        teller = first(ev_line[0]) if ev_line and ev_line[0] != person else None
        if teller:
            memo["summary"] = "%s told me about %s%s%s." % (teller, ev.phrase, d, tail)
        else:
            memo["summary"] = "I told %s about %s%s%s." % (names, ev.phrase, d, tail)
    memo["importance"] = rng.choice([5, 6, 6, 7, 7, 8])
    # plan decision
    if is_host:
        p = 0.10
    elif said_yes:
        p = 0.90
    elif said_maybe:
        p = 0.30
    elif said_no:
        p = 0.03
    elif other_yes:
        p = 0.05
    else:
        p = 0.0
    if rng.random() < p:
        memo["plan_activity"] = ("hosting " if is_host else "going to ") + re.sub(r"^(a|an)\s", "the ", ev.phrase)
        if ev.day:
            dd = ev.day
            if rng.random() < 0.07 and today:
                dd = today
            memo["plan_date"] = dd.isoformat()
            if rng.random() < 0.06:
                memo["plan_date"] = ""
        if ev.start is not None and rng.random() >= 0.05:
            memo["plan_start"] = hhmm(ev.start)
        if ev.start is not None and ev.end is not None and 0 < ev.end - ev.start <= 600:
            memo["plan_minutes"] = ev.end - ev.start
        else:
            memo["plan_minutes"] = 120
        if rng.random() >= 0.10:
            memo["plan_place"] = ev.place
    return memo


def _fix_memo_enums(c, memo, path):
    # keep grammar enums
    dates = enum_of(c, *path, "plan_date")
    if dates and memo.get("plan_date") not in dates:
        memo["plan_date"] = "" if "" in dates else dates[0]
    places = enum_of(c, *path, "plan_place")
    if places and memo.get("plan_place") not in places:
        pl = memo.get("plan_place") or ""
        memo["plan_place"] = pick_addr([p for p in places if p], pl, default="") if pl else ""
        if memo["plan_place"] not in places:
            memo["plan_place"] = "" if "" in places else places[0]
    return memo


def g_conversation_memo(rng, c):
    memo = memo_for(rng, c, c.self, c.convo)
    return _fix_memo_enums(c, memo, [])


def g_reflection_questions(rng, c):
    mems = memories_of(c)
    names = {}
    for mline in mems:
        for p in c.others:
            if p in mline:
                names[p] = names.get(p, 0) + 1
    acts = {}
    for mline in mems:
        m = re.search(re.escape(c.self) + r" is ([a-z ]+?)(?: \(|$)", mline)
        if m:
            acts[m.group(1)] = acts.get(m.group(1), 0) + 1
    qs = []
    if acts:
        a = max(acts, key=acts.get)
        qs.append("What does %s's habit of %s say about what matters to them?" % (c.self, a))
    if names:
        p = max(names, key=names.get)
        qs.append("How are things between %s and %s these days?" % (c.self, p))
    n = next(iter(c.news.values()), None)
    ev = n.phrase if n else None
    if not ev:
        for mline in mems:
            if "told" in mline or ACCEPT_RE.search(mline):
                ev = _event_phrase(mline)
                if ev != "the event":
                    break
                ev = None
    if ev:
        qs.append("What does %s make of %s, and will they go?" % (c.self, ev))
    qs.append("What is on %s's mind these days?" % c.self)
    k = 4 if rng.random() < 0.10 else 3
    return {"questions": qs[:k]}


def g_reflection_insights(rng, c):
    qs = re.findall(r'^\s*-\s*"(.+?)"\s*$', c.text, re.M)
    stmts = re.findall(r"^(\d+)\.\s*(.+)$", c.text, re.M)
    ev_enum = enum_of(c, "insights", "[]", "evidence", "[]")
    maxn = max([int(x) for x, _ in stmts] or [1])
    out = []
    for q in qs[:3] or ["What is on my mind?"]:
        qw = content_words(q) - content_words(c.self)
        scored = sorted(stmts, key=lambda s: -len(content_words(s[1]) & qw))
        ev = sorted(set(int(s[0]) for s in scored[:rng.randint(2, 4)])) or [1]
        ev = [e for e in ev if (not ev_enum or e in ev_enum)] or [ev_enum[0] if ev_enum else 1]
        topic = re.sub(r"^(what|how|why|who|will|does|is|are)\b\s*", "", q, flags=re.I).rstrip("?")
        who = next((p for p in c.others if p in q), None)
        if who:
            ins = "%s keeps crossing paths with %s, which has become part of their days." % (c.self, who)
            about = who
        elif "make of" in q or "will they go" in q:
            ph = re.search(r"make of (.+?),", q)
            ph = ph.group(1) if ph else "the news"
            goes = any(ACCEPT_RE.search(s[1]) for s in stmts)
            ins = "%s has been thinking about %s and %s." % (c.self, ph, "means to go" if goes else "what it means for the coming days")
            about = ph
        else:
            ins = "%s keeps to a steady routine and takes their daily duties seriously." % c.self
            about = "routine"
        out.append({"insight": ins, "about": about[:60], "evidence": ev, "importance": rng.choice([3, 4, 5, 6])})
        if rng.random() < 0.4:
            out.append({"insight": "%s cares about the people around them and what they think." % c.self,
                        "about": "the people around them", "evidence": ev[:2], "importance": rng.choice([3, 4, 5])})
    return {"insights": out}


def g_group_turn(rng, c):
    addr_enum = enum_of(c, "addressed_to")
    listeners = [p for p in c.others if p in c.text]
    listener = None
    for sp, t in reversed(c.convo):
        if sp != c.self:
            listener = sp
            break
    if listener is None:
        listener = listeners[0] if listeners else None
    txt, _, told, ans = next_utterance(rng, c, c.self, listener if listener else None)
    if told and len(listeners) > 1 and rng.random() < 0.5:
        txt = txt.replace(", %s." % first(listener), ", everyone.") if listener else txt
        to = "everyone"
    else:
        to = listener if (listener and rng.random() >= 0.3) else "everyone"
    if addr_enum and to not in addr_enum:
        to = "everyone" if "everyone" in addr_enum else addr_enum[0]
    n_lines = len(c.convo)
    news_done = any(mentioned(n, c.convo) for n in c.news.values())
    end = rng.random() < end_prob(n_lines + 1, news_done and ans is not None)
    if end and not told:
        txt = txt + " " + rng.choice(BYE).format(o=first(listener) if listener else "all")
    if rng.random() < 0.03:
        txt = "%s: %s" % (c.self, txt)
    return {"utterance": txt, "addressed_to": to, "end_conversation": bool(end)}


def g_interview(rng, c):
    m = re.search(r'asks [^:]*:\s*"(.+?)"', c.text)
    q = m.group(1) if m else c.text[-300:]
    qw = content_words(q) - {"heard", "have", "you", "know", "what", "think"}
    mems = memories_of(c)
    rel = [x for x in mems if len(content_words(x) & qw) >= max(1, min(2, len(qw)))]
    if not rel:
        if rng.random() < 0.15:
            return {"answer": "I think I've heard something about it, but I can't remember the details."}
        return {"answer": "No, I haven't heard anything about that."}
    src = re.sub(r"^\s*-\s*\[[^\]]*\]\s*", "", rel[0])
    n = _parse_news(src, c, None, False)
    for x in rel:
        nn = _parse_news(re.sub(r"^\s*-\s*\[[^\]]*\]\s*", "", x), c, None, False)
        if n.start is None and nn.start is not None:
            n.start, n.end = nn.start, nn.end
        if not n.place and nn.place:
            n.place = nn.place
    parts = []
    if n.start is not None and rng.random() >= 0.25:
        parts.append("from %s to %s" % (spoken_time(n.start), spoken_time(n.end)) if n.end is not None else "at " + spoken_time(n.start))
    if n.place and rng.random() >= 0.30:
        parts.append("at the " + n.place.split(":")[-1] + (" of " + n.place.split(":")[-2] if n.place.count(":") >= 2 else ""))
    teller = re.match(r"([A-Z][\w'-]+(?: [A-Z][\w'-]+)?) told", src)
    who = ("%s told me about it" % first(teller.group(1))) if teller and teller.group(1) != c.self else "I heard about it"
    went = any(re.search(r"\bis (going to|hosting|at)\b", x) and c.self in x for x in rel)
    yes = any(ACCEPT_RE.search(x) for x in rel)
    ans = "Yes, %s%s. " % (who, (": " + n.phrase + " " + " ".join(parts)) if parts else "")
    if went:
        ans += "I went along myself."
    elif yes:
        ans += "I said I'd go."
    else:
        ans += "I'm not sure yet whether I'll go."
    return {"answer": ans.strip()}


def g_conversation_summary(rng, c, group=False):
    # participants in order
    order = [p for p in re.findall(r"^Name:\s*(.+?)\s*$", c.text, re.M)]
    if not order:
        order = [c.self] + c.others[:1]
    has_news = any(h in order for h in c.news)
    p_talk = 0.85 if has_news else 0.45
    if not has_news:
        tr, _ = persona_of(c, order[0])
        p_talk += trait_mod(tr, 0.10, -0.10)
    if rng.random() >= p_talk:
        return {"talk": False, "lines": [], "memos": []} if group else {"talk": False, "lines": [], "first": None, "second": None}
    lines = []
    maxl = (prop_schema(c, "lines").get("maxItems") or (10 if group else 6))
    speaker_i = 0
    news_done = False
    for k in range(maxl):
        sp = order[speaker_i % len(order)]
        others = [o for o in order if o != sp]
        lis = others[0] if len(others) == 1 else (lines[-1][0] if lines and lines[-1][0] != sp else others[0])
        txt, _, told, ans = next_utterance(rng, c, sp, lis, convo_override=list(lines))
        lines.append((sp, txt))
        if ans:
            news_done = True
        if len(lines) >= 2 and rng.random() < end_prob(len(lines), news_done):
            bye_sp = order[(speaker_i + 1) % len(order)]
            if len(lines) < maxl:
                lines.append((bye_sp, rng.choice(BYE).format(o=first(sp))))
            break
        speaker_i += 1
    spk_enum = enum_of(c, "lines", "[]", "speaker")
    out_lines = [{"speaker": sp if (not spk_enum or sp in spk_enum) else spk_enum[0], "text": t} for sp, t in lines]
    if group:
        memos = []
        for p in order:
            m = memo_for(rng, c, p, lines)
            m = _fix_memo_enums(c, m, ["memos", "[]"])
            m = dict(name=p, **m)
            memos.append(m)
        if len(memos) > 1 and rng.random() < 0.10:
            memos.pop(rng.randrange(len(memos)))
        return {"talk": True, "lines": out_lines, "memos": memos}
    a = order[0]
    b = order[1] if len(order) > 1 else (c.others[0] if c.others else a)
    m1 = _fix_memo_enums(c, memo_for(rng, c, a, lines), ["first"])
    m2 = _fix_memo_enums(c, memo_for(rng, c, b, lines), ["second"])
    return {"talk": True, "lines": out_lines, "first": m1, "second": m2}


def g_group_summary(rng, c):
    return g_conversation_summary(rng, c, group=True)


def g_replan(rng, c):
    starts = enum_of(c, "new_blocks", "[]", "start")
    opts = enum_of(c, "new_blocks", "[]", "address") or c.addresses
    m = re.search(r"from\s+(\S+(?:\s?[ap]\.?m\.?)?)\s+until\s+(\S+(?:\s?[ap]\.?m\.?)?)", c.text)
    s0 = starts[0] if starts else "18:00"
    blocks = []
    still = [b for s in c.sections if "still" in s[1].lower() or "so far" in s[1].lower() for b in s[2]]
    bedroom, kitchen = home_addrs(c, opts) if opts else ("", "")
    for b in still:
        cl = find_clocks(b)
        if not cl:
            continue
        st = hhmm(cl[0][2])
        mm = re.search(r"\d\s*[ap]?\.?m?\.?\s+([a-z][^()]+?)\s*\(([^)]*)\)", b)
        act = mm.group(1) if mm else "carrying on"
        addr = mm.group(2) if mm else ""
        if starts and st not in starts:
            st = s0 if not blocks else None
        if st and (not blocks or st > blocks[-1]["start"]):
            blocks.append({"start": st, "activity": act, "emoji": emoji_for(act), "address": addr if addr in opts else pick_addr(opts, addr)})
    own = c.news.get(c.self)
    if own and rng.random() < 0.5:
        places = re.findall(r"^- ([^\n:]+:[^\n:]+:[^\n:]+?):\s*\d+ (?:person|people)", c.text, re.M)
        if places:
            blocks.insert(0, {"start": s0, "activity": "telling people the news", "emoji": "📣",
                              "address": places[0] if places[0] in opts else pick_addr(opts, places[0])})
            if len(blocks) > 1 and blocks[1]["start"] == s0:
                blocks.pop(1)
    if not blocks:
        blocks = [{"start": s0, "activity": "relaxing at home", "emoji": "📖", "address": bedroom}]
    return {"new_blocks": blocks[:6]}


def g_choose_address(rng, c):
    s = prop_schema(c, "place")
    alts = [_deref(a, c.defs) for a in s.get("anyOf", [])]
    m = re.search(r'about to do this:\s*"([^"]+)"', c.text)
    act = m.group(1) if m else ""
    here = None
    hm = re.search(r"^- (.+?) \(here\)", c.text, re.M)
    ha = re.search(r"^\s+- (.+?) \(here\)", c.text, re.M)
    cands = []
    for a in alts:
        pr = a.get("properties") or {}
        sec = (pr.get("sector") or {}).get("enum", [""])[0]
        ar = (pr.get("arena") or {}).get("enum", [""])[0]
        objs = (pr.get("object") or {}).get("enum", [""])
        cands.append((sec, ar, objs))
        if hm and sec == hm.group(1).strip() and (not ha or ar == ha.group(1).strip()):
            here = (sec, ar, objs)
    aw = content_words(act)
    best, bs = None, 0
    for cand in cands:
        sc = len(aw & content_words(cand[0] + " " + cand[1]))
        if sc > bs:
            best, bs = cand, sc
    if best is not None and best != here and rng.random() < 0.80:
        pick = best
    elif here is not None and rng.random() < 0.85:
        pick = here
    else:
        pick = rng.choice(cands) if cands else ("", "", [""])
    obj = ""
    for o in pick[2]:
        if o and content_words(o) & aw:
            obj = o
    if not obj and rng.random() < 0.5:
        nonempty = [o for o in pick[2] if o]
        obj = rng.choice(nonempty) if nonempty else ""
    return {"place": {"sector": pick[0], "arena": pick[1], "object": obj}}


def g_generic(rng, c):
    inst = fill(c.schema, c.defs)
    if isinstance(inst, dict):
        for k, v in inst.items():
            if isinstance(v, str) and v == "ok":
                inst[k] = "%s thinks about it for a moment." % c.self
    return inst


# ----------------------------------------------------------------------------------------------
# plain-text conversation turn
# ----------------------------------------------------------------------------------------------

def g_converse_turn(rng, c):
    listener = c.others[0] if c.others else None
    m = re.search(r"is talking with ([^.\n]+)", c.text)
    if m:
        cand = [p for p in c.people if p in m.group(1)]
        if cand:
            listener = cand[0]
    txt, _, told, ans = next_utterance(rng, c, c.self, listener)
    tags = re.findall(r"\[([a-z]+)\]", c.text)
    end_tag = "[end]" if "end" in tags else ("[" + tags[0] + "]" if tags else "[end]")
    cont_tag = "[continue]" if "continue" in tags else ("[" + tags[-1] + "]" if tags else "[continue]")
    news_done = any(mentioned(n, c.convo) for n in c.news.values())
    end = rng.random() < end_prob(len(c.convo) + 1, news_done and ans is not None)
    if end and not told and ans is None:
        txt += " " + rng.choice(BYE).format(o=first(listener) if listener else "all")
    # style / damage
    if rng.random() < 0.04:
        txt = rng.choice(["*nods* ", "*smiles* ", "*looks up* "]) + txt
    if rng.random() < 0.05:
        txt = '"%s"' % txt
    if rng.random() < 0.06:
        txt = "%s: %s" % (c.self, txt)
    tag = end_tag if end else cont_tag
    r = rng.random()
    if r < 0.05:
        return txt
    if r < 0.07:
        tag = rng.choice([tag.upper(), "(" + tag.strip("[]") + ")", tag[:-1].capitalize() + ".]"])
    out = txt + "\n" + tag
    if rng.random() < 0.02 and listener:
        out += "\n%s: %s" % (listener, rng.choice(["Oh, I see.", "That sounds nice.", "Right you are."]))
    return out


# ----------------------------------------------------------------------------------------------
# damage, entry point
# ----------------------------------------------------------------------------------------------

GEN = {"probe": g_probe, "importance": g_importance, "importance_batch": g_importance_batch,
       "revise_currently": g_revise_currently, "daily_plan": g_daily_plan, "decompose": g_decompose,
       "react": g_react, "relationship": g_relationship, "conversation_memo": g_conversation_memo,
       "reflection_questions": g_reflection_questions, "reflection_insights": g_reflection_insights,
       "group_turn": g_group_turn, "interview": g_interview, "conversation_summary": g_conversation_summary,
       "group_summary": g_group_summary, "replan": g_replan, "choose_address": g_choose_address,
       "generic": g_generic}


def _damage_json(rng, c, text):
    scale = 0.25 if (c.temperature == 0) else 1.0
    limit = int(c.max_tokens * 3.6)
    if len(text) > limit:
        return text[:limit]
    r = rng.random()
    if r < 0.015 * scale:
        cut = rng.randint(max(1, len(text) // 3), max(2, len(text) - 2))
        return text[:cut]
    r -= 0.015 * scale
    if r < 0.015 * scale:
        return "```json\n" + text + "\n```"
    r -= 0.015 * scale
    if r < 0.010 * scale:
        return rng.choice(["Here is the answer:\n", "Sure! ", ""]) + text + rng.choice(["", "\n\nI hope this helps!"])
    r -= 0.010 * scale
    if r < 0.003 * scale:
        return "I'm sorry, but I can't help with that request."
    return text


def _seed(body, seed):
    msgs = body.get("messages") if isinstance(body, dict) else None
    canon = json.dumps(msgs, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    h = hashlib.sha256((canon + "|" + str(seed)).encode("utf-8")).hexdigest()
    return random.Random(int(h[:16], 16))


def _minimal(body):
    try:
        rf = (body or {}).get("response_format") or {}
        js = rf.get("json_schema") or {}
        sch = js.get("schema")
        if sch:
            return json.dumps(fill(sch, sch.get("$defs") or sch.get("definitions") or {}), ensure_ascii=False)
        if rf:
            return "{}"
    except Exception:
        pass
    return "Hello there.\n[continue]"


def respond(body, seed=0):
    try:
        rng = _seed(body, seed)
        c = build_ctx(body)
        kind = detect_kind(c)
        if kind == "converse_turn":
            return g_converse_turn(rng, c)
        obj = GEN.get(kind, g_generic)(rng, c)
        if c.schema:
            obj = conform(obj, c.schema, c.defs)
        text = json.dumps(obj, ensure_ascii=False)
        return _damage_json(rng, c, text)
    except Exception:
        return _minimal(body)


def respond_debug(body, seed=0):
    """like respond but lets exceptions through (for the check script)."""
    rng = _seed(body, seed)
    c = build_ctx(body)
    kind = detect_kind(c)
    if kind == "converse_turn":
        return g_converse_turn(rng, c)
    obj = GEN.get(kind, g_generic)(rng, c)
    if c.schema:
        obj = conform(obj, c.schema, c.defs)
    return _damage_json(rng, c, json.dumps(obj, ensure_ascii=False))
