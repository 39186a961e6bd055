"""Blind stand-in model #23: a deterministic imitation of a ~14B instruction-tuned chat
model in JSON mode answering NPC interview requests in character.

Written from the captured request bodies only (no brain code, no scorer, no other stand-in).
Entry point: respond(body, seed) -> str  (the text of choices[0].message.content).
respond_traced(body, seed) -> (text, trace) is the same call plus a dict of the rules that fired.

READING THE PROMPT (by shape, not by headings)
- Self name: the person name in the system message; else the value of a "Label: Name" line;
  else the most frequent person name.  Person names = runs of 2-3 capitalised words that are not
  weekdays, months, greetings or place words and are never written after "the".
- Persona: "Label: value" lines outside bullets, classified by content (a number = age, a
  comma list of short words = traits, text with wake/bed times = daily routine, first prose
  value = identity, later prose values = current status).  Label words only break ties.
- Memories: bullet lines ("-", "*", "•", "1.") carrying a time stamp in brackets/parentheses or
  a leading date; a bullet saying nothing/none is "no memories".  Times in any style
  ("14:04", "2:04 pm", "2 pm", "noon"), days by weekday and/or month-day or ISO date.
- Now: the first date/time outside bullets and persona; else the newest memory time.
- Question: the last quoted span outside the bullets that is not a JSON example; else the
  last line with a question mark.
- Output shape: response_format json_schema read generically (object properties, types, enums,
  string min/max length, arrays, booleans, numbers); without a schema, a JSON example shown in
  the prompt; else {"answer": ...}.

DECISION RULES AND RATES (declared before the first run over the captures)
Randomness: sha256 over the request JSON and the seed (temperature 0 requests ignore the seed).

Output form, for requests with a free-text field (interview-like):
  F1 valid JSON object matching the schema ............................ remainder (~92.5%)
  F2 prose sentence before the JSON ("Sure! Here is my answer:") ........ 1.5%
  F3 valid JSON wrapped in a ```json code fence ......................... 1.0%
  F4 truncated JSON (cut off inside the string, no closing) ............. 1.5%
  F5 no JSON: one plain line with the speaker's name in front ........... 1.0%
  F6 an extra property added to the object (e.g. "mood") ................ 1.0%
  F7 out-of-character assistant refusal inside valid JSON ............... 0.5%
  F8 run-on answer: two more sentences, not trimmed to maxLength ........ 1.0%
  Otherwise the text is trimmed (at a sentence boundary) to the schema's maxLength.
Probe / other small schemas (no free-text field): values filled from the schema (booleans
  true, enums first sensible member, numbers mid-range); prose before the JSON 1%.

Content (interview answers):
  C1 memory choice, when at least one shown memory is relevant to the question:
     top-ranked 65%, second-ranked 15%, merge of the top two 12% (content of one with the time
     or the other person of the other: a conflation), a random shown memory 8%.
  C2 says it doesn't know / isn't sure although a relevant memory is shown ... 5%
     (memory-dependent questions: people, news, recent events, promises, plans).
  C3 one detail wrong in a memory-grounded answer (a clock time off by an hour, a day word
     swapped, or another shown person's first name swapped in) ................ 6%
  C4 near-verbatim copy of the chosen memory (only self-name -> I/me; prompt junk such as "…",
     "Guess what -" and relative day words like "tomorrow" left as they were) .. 10%
  C5 no relevant memory shown: answers from the persona when the persona speaks to the
     question (job, routine, home, traits, relations, current concern) 100% of those cases;
     otherwise says it doesn't know in varied wording 85%, a vague ungrounded guess 15%.
  C6 third-person slip: first sentence about itself by name instead of "I" ... 2%
  C7 length: 1 sentence 25%, 2 sentences 50%, 3 sentences 25% (as material allows).
  C8 lead-in word ("Well,", "Hmm,", "Oh,", "Honestly,") on the first sentence .. 20%
  C9 other people named by first name 70%, by full name 30% (per answer).
  C10 opinions/feelings about a person: warm if the persona relation is warm (friend, fond,
     married, sibling, neighbour, looks out for) or memories show frequent talk/trust; critical
     if the persona shows friction (quarrel, feud, can't stand, tiresome, complaints), softened
     into a mixed view 30% of critical cases; neutral-polite when nothing is known.
  C11 hypotheticals (fire, closed place, meal tip, upset person, cancellation) answered with a
     concrete action flavoured by the traits; names a fitting person from the persona or
     memories (neighbour, relative, cook, friend) when one is found, 50%.
  C12 news questions ("heard about X", "X called off"): whether it says it is going / teaching /
     not going follows its own lines in the shown memories or persona (accepted, declined,
     organising); with no such line it says it might go 50%, is not sure 50%.
  Relevance: shared content words (idf-weighted over the shown memories), people named in
  the question, and question-type cues (today/tomorrow/evening times, plans, promises,
  conversations).  A memory counts as relevant when its score >= 2.0.

CHANGES AFTER THE FIRST RUN (first run over the captures: file sha256 2d11d6a8...; no rule or
rate was changed; these are bug fixes, listed so that a reader can judge them)
  1. Crash (caught internally, 14/3000 answers): "differently" unpacked gist()'s two values into
     three.  Fixed.
  2. Self-name detection: a name written once after "the" in the prompt ("at the Teodor Marek")
     was taken for a place, so 54/1004 requests were answered in the voice of another NPC.  Now a
     name is a place only if most of its mentions follow "the" and it never speaks a quoted line.
  3. C5 rate bug: the "promise" and "meal" no-knowledge paths gave a vague guess 7.5% instead of
     the declared 15%.  They now draw the declared 15% first.
  4. Prompt-junk clean-up (the 90% non-verbatim path of C4) missed openers other than the three
     listed ("Did you hear the news? someone wants to ..."); now any short question ending in "?"
     right after "to"/"that" is dropped.  Without this those answers were verbatim copies in
     effect, above the declared 10%.
  5. Garbled wording: relation sentences that start with their own subject ("the nurse X has
     ...") got "I" glued in front ("I the nurse ..."); routine/identity verbs after "and" were
     left in the third person or wrongly changed inside "who" clauses; the lead "Take " in
     "learned" answers read as "Take I had ...", now "For instance, ".  Wording only.
"""

import hashlib
import json
import re

# ----------------------------------------------------------------------------- randomness

class Rng:
    def __init__(self, key: str):
        self.key = key
        self.n = 0

    def random(self) -> float:
        self.n += 1
        h = hashlib.sha256(f"{self.key}|{self.n}".encode("utf-8")).digest()
        return int.from_bytes(h[:8], "big") / 2 ** 64

    def chance(self, p: float) -> bool:
        return self.random() < p

    def choice(self, seq):
        seq = list(seq)
        if not seq:
            return None
        return seq[int(self.random() * len(seq)) % len(seq)]

    def pick_weighted(self, pairs):
        total = sum(w for _, w in pairs)
        r = self.random() * total
        for v, w in pairs:
            r -= w
            if r <= 0:
                return v
        return pairs[-1][0]


# ----------------------------------------------------------------------------- vocab

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]
NONNAME = set(w.capitalize() for w in WEEKDAYS + MONTHS) | {
    "I", "The", "A", "An", "Oh", "Hi", "Hello", "Hey", "Have", "Guess", "Yes", "No", "Evening",
    "Morning", "Afternoon", "Night", "Schedule", "Activity", "Someone", "Things", "Name", "Age",
    "Identity", "Lifestyle", "Currently", "Innate", "Answer", "It", "Good", "Well", "Right",
    "That", "This", "Thanks", "Thank", "Take", "Bye", "See", "Not", "Can", "Could", "What",
    "When", "Where", "Who", "Why", "How", "Suppose", "You", "Of", "Looking", "Really", "Lovely",
    "Count", "Anything", "Sure", "Okay", "Ok", "Dear", "Mr", "Mrs", "Ms", "Dr", "Happy", "Great",
    "Nice", "Today", "Tomorrow", "Yesterday", "And", "But", "So", "Then", "Just", "Also", "Here",
    "There", "Please", "Sorry", "Yours", "We", "They", "He", "She", "My", "Our", "Your", "Let",
    "Morse", "Traits", "Status", "Routine", "Memories", "Question", "Use", "Only", "Text",
    "Christmas", "Easter", "Winter", "Summer", "Spring", "Autumn", "English", "God"}
PLACE_WORDS = {
    "House", "Depot", "Junction", "Room", "Office", "Station", "Hall", "Street", "Road", "Inn",
    "Shop", "Church", "School", "Box", "Bridge", "Mill", "Lake", "River", "Park", "Square",
    "Market", "Farm", "Cafe", "Café", "Bar", "Tavern", "Bakery", "Clinic", "Lane", "Hill",
    "Pass", "Yard", "Shed", "Store", "Stores", "Library", "Museum", "Hotel", "Pub", "Garden",
    "Gardens", "Center", "Centre", "Court", "Tower", "Castle", "Harbour", "Harbor", "Port",
    "Bay", "Creek", "Valley", "Forest", "Wood", "Woods", "Field", "Fields", "Village", "Town",
    "City", "Code", "Lesson", "Boarding", "Engine", "Signal", "Hospital", "Bathhouse", "Kitchen",
    "Mountain", "Island", "Avenue", "Plaza", "Club", "Studio", "Workshop", "Forge", "Dock",
    "Docks", "Pier", "Lighthouse", "Chapel", "Cemetery", "Bank", "Post", "Theatre", "Theater"}
STOP = set("""a an the and or but if of to in on at by for with from as is are was were be been
being am do does did have has had i you he she it we they me him her us them my your his its our
their this that these those there here what when where who whom whose why how which would could
should will shall can may might must not no yes so than then too very just about into over under
again also any some all each more most other own same such only out up down off now still ever
one two three let s t ll ve re d m o oh hi hello well really today tomorrow yesterday tell
think know like see said say says get got go going come came time day days last few thing
things someone something anything nothing someone's whatever else thats""".split())

PRONOUN_BASE = {"is": "am", "has": "have", "does": "do", "goes": "go", "was": "was",
                "says": "say"}
ADVERBS = {"always", "often", "never", "still", "also", "usually", "sometimes", "really",
           "just", "only", "even", "rarely", "already", "mostly", "hardly", "then"}
BASE_EXCEPT = {"this", "his", "its", "us", "thus", "yes", "plus", "less", "unless", "across",
               "towards", "afterwards", "perhaps", "as", "is", "was", "has", "always", "news"}

NAME_TOKEN = r"[A-Z][a-z]+(?:-[A-Z][a-z]+|'[A-Z][a-z]+)?"
NAME_RUN = re.compile(rf"{NAME_TOKEN}(?: {NAME_TOKEN})+")


def words(s):
    return re.findall(r"[a-z][a-z'-]*", s.lower())


def stem(w):
    w = w.strip("'-")
    for suf in ("ings", "ing", "ies", "ied", "ed", "es", "s", "ly"):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)]
            break
    return w[:6]


def content_tokens(s):
    return {stem(w) for w in words(s) if w not in STOP and len(w) > 2}


def cap1(s):
    return s[:1].upper() + s[1:] if s else s


LOWERABLE = STOP | {"conversation", "maybe", "probably", "nothing", "something", "honestly", "mostly",
                     "earlier", "last", "after", "take", "nobody", "everyone", "people", "most",
                     "first", "otherwise", "even", "it's", "that's", "there's", "they'd", "hard", "can't",
                     "couldn't", "home", "at", "excited", "next", "right", "then", "not", "try", "go",
                     "that'd", "it'd", "i", "once", "sometimes", "usually", "every", "there", "hmm"}


def low1(s):
    if not s:
        return s
    w = re.match(r"[A-Za-z']+", s)
    if not w or w.group(0) in ("I", "I'm", "I've", "I'd", "I'll"):
        return s
    if w.group(0).lower() in LOWERABLE:
        return s[:1].lower() + s[1:]
    return s


def third_to_base(w):
    lw = w.lower()
    if lw in PRONOUN_BASE:
        return PRONOUN_BASE[lw]
    if lw in BASE_EXCEPT or len(lw) <= 3 or not lw.endswith("s") or lw.endswith("ss"):
        return w
    if lw.endswith("ies"):
        return w[:-3] + "y"
    if re.search(r"(ch|sh|x|ss|zz|o)es$", lw):
        return w[:-2]
    return w[:-1]


def base_to_third(w):
    lw = w.lower()
    special = {"am": "is", "have": "has", "do": "does", "go": "goes", "be": "is"}
    if lw in special:
        return special[lw]
    if lw in ("can", "will", "would", "could", "should", "might", "must", "was", "is", "had"):
        return w
    if lw.endswith("y") and lw[-2:-1] not in "aeiou":
        return w[:-1] + "ies"
    if re.search(r"(ch|sh|x|s|z|o)$", lw):
        return w + "es"
    return w + "s"


def simple_past(verb):
    irregular = {"run": "ran", "keep": "kept", "take": "took", "make": "made", "sell": "sold", "find": "found",
                 "lend": "lent", "get": "got", "forget": "forgot", "eat": "ate", "sleep": "slept", "teach": "taught",
                 "write": "wrote", "read": "read", "feed": "fed", "grow": "grew", "sing": "sang", "build": "built",
                 "know": "knew", "spend": "spent", "go": "went", "come": "came", "say": "said", "tell": "told",
                 "think": "thought", "give": "gave", "sweep": "swept", "ring": "rang", "drive": "drove"}
    v = verb.lower()
    if v in irregular:
        return irregular[v]
    if v.endswith("e"):
        return v + "d"
    if v.endswith("y") and v[-2:-1] not in "aeiou":
        return v[:-1] + "ied"
    return v + "ed"


def ing_form(verb):
    v = verb.lower()
    irregular = {"be": "being", "see": "seeing", "lie": "lying", "die": "dying", "run": "running",
                 "sit": "sitting", "get": "getting", "put": "putting", "stop": "stopping",
                 "shop": "shopping", "swim": "swimming", "plan": "planning"}
    if v in irregular:
        return irregular[v]
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v.endswith("e") and not v.endswith("ee") and len(v) > 2:
        return v[:-1] + "ing"
    return v + "ing"


def join_names(names):
    names = [n for n in names if n]
    if not names:
        return ""
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


# ----------------------------------------------------------------------------- time

CLOCK_RE = re.compile(
    r"\b(\d{1,2})(?:[:.h](\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])|\b(\d{1,2})[:h.](\d{2})\b(?![.,]?\d)"
    r"|\b(noon|midday|midnight)\b", re.I)
MONTH_RE = re.compile(r"\b(" + "|".join(m[:3] for m in MONTHS) + r")[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b"
                      r"|\b(\d{1,2})(?:st|nd|rd|th)?(?: of)?\s+(" + "|".join(m[:3] for m in MONTHS) + r")[a-z]*\b",
                      re.I)
ISO_RE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
WEEKDAY_RE = re.compile(r"\b(" + "|".join(w[:3] for w in WEEKDAYS) + r")[a-z]*\b", re.I)


def parse_clock(s):
    m = CLOCK_RE.search(s)
    if not m:
        return None
    if m.group(6):
        return 0 if m.group(6).lower() == "midnight" else 720
    if m.group(3):
        h = int(m.group(1)) % 12
        mi = int(m.group(2) or 0)
        if m.group(3).lower().startswith("p"):
            h += 12
        return h * 60 + mi
    h, mi = int(m.group(4)), int(m.group(5))
    if h > 24 or mi > 59:
        return None
    return (h % 24) * 60 + mi


class Stamp:
    def __init__(self, day=None, wd=None, minutes=None):
        self.day, self.wd, self.minutes = day, wd, minutes

    def key(self):
        return ((self.day if self.day is not None else -1), (self.minutes or 0))


def parse_stamp(s):
    day = wd = None
    m = ISO_RE.search(s)
    if m:
        day = int(m.group(2)) * 31 + int(m.group(3))
    else:
        m = MONTH_RE.search(s)
        if m:
            if m.group(1):
                mon = [x[:3] for x in MONTHS].index(m.group(1).lower()[:3])
                d = int(m.group(2))
            else:
                mon = [x[:3] for x in MONTHS].index(m.group(4).lower()[:3])
                d = int(m.group(3))
            day = (mon + 1) * 31 + d
    m = WEEKDAY_RE.search(s)
    if m:
        wd = [w[:3] for w in WEEKDAYS].index(m.group(1).lower()[:3])
    mins = parse_clock(s)
    if day is None and wd is None and mins is None:
        return None
    return Stamp(day, wd, mins)


def fmt_clock(mins, style=0):
    h, m = divmod(int(mins) % 1440, 60)
    if style == 1:
        return f"{h:02d}:{m:02d}"
    suf = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    if h == 12 and m == 0:
        return "noon"
    return f"{h12}:{m:02d} {suf}" if m else f"{h12} {suf}"


def part_of_day(mins):
    h = (mins or 0) // 60
    if 4 <= h < 12:
        return "morning"
    if 12 <= h < 17:
        return "afternoon"
    if 17 <= h < 21:
        return "evening"
    return "night"


def day_diff(st, now):
    if st is None or now is None:
        return None
    if st.day is not None and now.day is not None:
        return now.day - st.day
    if st.wd is not None and now.wd is not None:
        return (now.wd - st.wd) % 7
    return None


def when_phrase(st, now, rng):
    if st is None:
        return rng.choice(["recently", "the other day"])
    dd = day_diff(st, now)
    pod = part_of_day(st.minutes) if st.minutes is not None else None
    clock = fmt_clock(st.minutes) if st.minutes is not None else None
    if dd == 0:
        opts = [f"this {pod}" if pod and pod != "night" else "earlier today", "earlier today"]
        if clock:
            opts.append(f"at about {clock} today")
        return rng.choice(opts)
    if dd == 1:
        if pod == "night":
            opts = ["last night"]
        else:
            opts = [f"yesterday {pod}" if pod else "yesterday", "yesterday"]
        if clock:
            opts.append(f"yesterday around {clock}")
        return rng.choice(opts)
    if dd is not None and dd > 1 and st.wd is not None:
        return "on " + WEEKDAYS[st.wd].capitalize()
    if dd is not None and dd < 0:
        return "later on"
    return rng.choice(["a little while ago", "recently"])


# ----------------------------------------------------------------------------- prompt parsing

BULLET_RE = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+(.*\S)\s*$")
STAMP_LEAD_RE = re.compile(r"^[\[(]([^\])]{3,60})[\])]\s*[:,-]?\s*(.*)$")
DATE_LEAD_RE = re.compile(r"^((?:[A-Za-z]+,? )?(?:[A-Za-z]+ \d{1,2}|\d{4}-\d{2}-\d{2})?,? ?"
                          r"\d{1,2}[:.]\d{2}(?:\s*[ap]\.?m\.?)?)\s*[:\-–]\s+(.*)$")


def find_people(text):
    """Person-like names: 2-3 capitalised words, no weekday/month/place word, never after 'the'."""
    counts = {}
    for m in NAME_RUN.finditer(text):
        toks = m.group(0).split(" ")
        while toks and toks[0] in NONNAME:
            toks = toks[1:]
        while toks and (toks[-1] in NONNAME):
            toks = toks[:-1]
        if len(toks) < 2 or len(toks) > 3:
            continue
        if any(t in PLACE_WORDS or t in NONNAME for t in toks):
            continue
        name = " ".join(toks)
        counts[name] = counts.get(name, 0) + 1
    for name in list(counts):
        toks = name.split(" ")
        if len(toks) == 3:
            for sub in (" ".join(toks[1:]), " ".join(toks[:2])):
                if sub in counts and counts[sub] >= counts[name]:
                    counts[sub] += counts.pop(name)
                    break
    out = {}
    low = text.lower()
    for name, c in counts.items():
        n_the = len(re.findall(r"\bthe " + re.escape(name.lower()) + r"\b", low))
        speaker = re.search(re.escape(name) + r":\s*[\"\u201c]", text) is not None
        if n_the * 2 > c and not speaker:
            continue
        if re.search(re.escape(name) + r"(?:'s)? (?:room|house|place|shop)\b", text) and c < 2:
            continue
        out[name] = c
    return out


class Memory:
    def __init__(self, raw, stamp, text):
        self.raw, self.stamp, self.text = raw, stamp, text
        self.kind = "other"
        self.people = []
        self.score = 0.0


class Prompt:
    pass


def parse_prompt(body):
    P = Prompt()
    msgs = body.get("messages") or []
    system = "\n".join(str(m.get("content") or "") for m in msgs if m.get("role") == "system")
    user_msgs = [str(m.get("content") or "") for m in msgs if m.get("role") != "system"]
    user = user_msgs[-1] if user_msgs else ""
    P.system, P.user = system, user
    alltext = system + "\n" + "\n".join(user_msgs)
    P.alltext = alltext
    people = find_people(alltext)
    # self name
    selfname = None
    sys_people = [n for n in people if re.search(r"\b" + re.escape(n) + r"\b", system)]
    if sys_people:
        selfname = max(sys_people, key=lambda n: people.get(n, 0))
    if not selfname:
        for line in user.splitlines():
            m = re.match(r"^\s*[A-Za-z][\w ]{0,25}:\s*(" + NAME_TOKEN + r"(?: " + NAME_TOKEN + r"){1,2})\s*$", line)
            if m and m.group(1) in people:
                selfname = m.group(1)
                break
    if not selfname and people:
        selfname = max(people, key=lambda n: people[n])
    P.name = selfname or ""
    P.first = P.name.split(" ")[0] if P.name else ""
    P.people = [n for n in people if n != P.name]
    firsts = {}
    for n in P.people:
        firsts.setdefault(n.split(" ")[0], []).append(n)
    P.first_map = {f: v[0] for f, v in firsts.items() if len(v) == 1 and f != P.first}

    lines = user.splitlines()
    mem_lines, other_lines = [], []
    for i, line in enumerate(lines):
        b = BULLET_RE.match(line)
        if b:
            mem_lines.append(b.group(1))
        else:
            other_lines.append(line)
    P.other_lines = other_lines
    # memories
    mems = []
    for ml in mem_lines:
        m = STAMP_LEAD_RE.match(ml)
        st, txt = None, ml
        if m and parse_stamp(m.group(1)):
            st, txt = parse_stamp(m.group(1)), m.group(2)
        else:
            m2 = DATE_LEAD_RE.match(ml)
            if m2 and parse_stamp(m2.group(1)):
                st, txt = parse_stamp(m2.group(1)), m2.group(2)
        if st is None:
            inner = ml.strip("()[] .").lower()
            if len(inner.split()) <= 6 and re.search(r"\b(nothing|none|no memor|empty|n/a)\b", inner):
                continue
        mems.append(Memory(ml, st, txt.strip()))
    P.memories = mems

    # question: last quoted span outside bullets that is not JSON-ish
    q = None
    body_text = "\n".join(other_lines)
    for m in re.finditer(r"\u201c([^\u201d]{4,})\u201d|\"([^\"\n]{4,})\"", body_text):
        s = m.group(1) or m.group(2)
        if "{" in s or "}" in s or s.strip() in ("...", "…"):
            continue
        if re.fullmatch(r"[\w ]{1,20}", s) and "?" not in s and len(s.split()) < 3:
            continue
        q = s
    if q is None:
        for line in reversed(other_lines):
            if "?" in line and "{" not in line:
                q = line.strip()
                break
    P.question = (q or user.strip().splitlines()[-1] if user.strip() else "").strip()

    # persona lines
    persona = {"age": None, "traits": [], "identity": "", "routine": "", "current": ""}
    prose = []
    qline_text = P.question
    for line in other_lines:
        m = re.match(r"^\s*([A-Za-z][A-Za-z /'-]{0,30}):\s+(.+\S)\s*$", line)
        if not m:
            continue
        label, val = m.group(1).strip().lower(), m.group(2).strip()
        if qline_text and qline_text in val:
            continue
        if "{" in val or "json" in val.lower():
            continue
        _st = parse_stamp(val)
        if _st and _st.minutes is not None and (_st.day is not None or _st.wd is not None) and \
                len(val.split()) <= 14 and not (P.first and P.first in val.split(".")[0]):
            continue
        if re.fullmatch(r"\d{1,3}(?: years?(?: old)?)?", val) or "age" == label:
            persona["age"] = int(re.match(r"\d+", val).group(0)) if re.match(r"\d+", val) else None
            continue
        items = [x.strip() for x in re.split(r",| and ", val) if x.strip()]
        if ("trait" in label or "personality" in label or
                (2 <= len(items) <= 7 and all(len(x.split()) <= 2 and x[:1].islower() for x in items)
                 and len(val) < 90 and not parse_clock(val))):
            persona["traits"] = [x.rstrip(".") for x in items]
            continue
        if val == P.name:
            continue
        nclock = len(CLOCK_RE.findall(val))
        if ("routine" in label or "lifestyle" in label or "schedule" in label or
                (nclock >= 2 and re.search(r"\b(wake|wakes|woke|bed|sleep|up at|gets up|rises)\b", val))):
            persona["routine"] = val
            continue
        prose.append((label, val))
    ident = [v for l, v in prose if any(k in l for k in ("identity", "who", "background", "about", "bio"))]
    cur = [v for l, v in prose if any(k in l for k in ("current", "now", "status", "mood", "today", "lately"))]
    rest = [v for l, v in prose if v not in ident and v not in cur]
    if not ident and rest:
        ident = [rest.pop(0)]
    if not cur and rest:
        cur = [rest.pop(0)]
    persona["identity"] = " ".join(ident + rest)
    persona["current"] = " ".join(cur)
    if not persona["identity"] and P.name:
        # persona given as prose: take sentences that mention the self name and are not bullets
        sents = []
        for line in other_lines:
            for s in re.split(r"(?<=[.!?])\s+", line):
                if P.first and P.first in s and '"' not in s and "{" not in s and "?" not in s:
                    sents.append(s.strip())
        for s in sents:
            if re.search(r"\b(wake|wakes|bed)\b", s) and len(CLOCK_RE.findall(s)) >= 2:
                persona["routine"] = persona["routine"] or s
            elif re.search(r"\b(currently|right now|worried|has heard|is getting ready)\b", s):
                persona["current"] += " " + s
            else:
                persona["identity"] += " " + s
        persona["identity"] = persona["identity"].strip()
        persona["current"] = persona["current"].strip()
    P.persona = persona

    # now
    now = None
    persona_vals = (persona["identity"] + persona["current"] + persona["routine"])
    for line in other_lines:
        if not line.strip() or line.strip() in persona_vals or (P.question and P.question in line):
            continue
        if re.match(r"^\s*[A-Za-z][A-Za-z /'-]{0,30}:\s+", line) and any(
                v and v in line for v in (persona["identity"], persona["current"], persona["routine"])):
            continue
        st = parse_stamp(line)
        if st and (st.minutes is not None) and (st.day is not None or st.wd is not None):
            now = st
            break
    if now is None:
        stamped = [m.stamp for m in mems if m.stamp]
        if stamped:
            now = max(stamped, key=lambda s: s.key())
        else:
            now = Stamp(None, None, 12 * 60)
    if now.day is None and now.wd is not None:
        for m in mems:
            if m.stamp and m.stamp.day is not None and m.stamp.wd is not None:
                now.day = m.stamp.day + ((now.wd - m.stamp.wd) % 7)
                break
    for m in mems:
        if m.stamp and m.stamp.day is None and m.stamp.wd is not None and now.day is not None and now.wd is not None:
            m.stamp.day = now.day - ((now.wd - m.stamp.wd) % 7)
    P.now = now

    # gender of self (for persona pronoun rewriting) and guesses for others
    ident = persona["identity"] + " " + persona["current"] + " " + persona["routine"]
    he = len(re.findall(r"\b(he|him|his|himself)\b", ident, re.I))
    she = len(re.findall(r"\b(she|her|hers|herself)\b", ident, re.I))
    P.self_gender = "f" if she > he else ("m" if he > she else None)
    P.genders = {}
    for n in P.people:
        f = n.split(" ")[0]
        g = None
        pat = re.escape(n) + r"\W{1,3}(?:is )?(?:her|his|my|your|the)? ?(?:younger |older |elder |little |big )?"
        if re.search(r"\b(sister|wife|mother|daughter|aunt|girl|woman|lady)\b[^.]{0,15}" + re.escape(n), ident) or \
                re.search(re.escape(n) + r" is (?:his|her|my) (?:younger |older |elder |little |big )?(sister|wife|mother|daughter|aunt)", ident):
            g = "f"
        elif re.search(r"\b(brother|husband|father|son|uncle|man)\b[^.]{0,15}" + re.escape(n), ident) or \
                re.search(re.escape(n) + r" is (?:his|her|my) (?:younger |older |elder |little |big )?(brother|husband|father|son|uncle)", ident):
            g = "m"
        if g is None:
            g = "f" if f.lower().endswith(("a", "e", "y")) and not f.lower().endswith(("ue",)) else "m"
        P.genders[n] = g
        _ = pat
    return P


def mentions(text, name):
    if not name:
        return False
    if name in text:
        return True
    first = name.split(" ")[0]
    return re.search(r"\b" + re.escape(first) + r"\b", text) is not None


def people_in(text, P):
    out = []
    for n in P.people:
        if n in text or (n.split(" ")[0] in P.first_map and re.search(r"\b" + re.escape(n.split(" ")[0]) + r"\b", text)):
            out.append(n)
    return out


# ----------------------------------------------------------------------------- rewriting

OPENER_RE = re.compile(
    r"^(?:(?:oh|ah|well|so|hey|hi|hello|evening|morning|afternoon|good \w+)[,!]?\s+[A-Z]?\w*[!,.]?\s+)?"
    r"(?:(?:have you heard|did you hear|guess what|you'll never guess|oh,? you'll like this|"
    r"big news|news|listen|you know what|get this|hear this)[?!:,.]?\s*(?:-|–|—)?\s*)", re.I)


def clean_junk(s):
    """What a model does when it re-tells a prompt line in its own words."""
    s = s.replace("\u2026.", "\u2026")
    # "to Guess what - I wants to teach" -> "to teach"
    s = re.sub(r"\b(to) (?:guess what|have you heard\??|oh,? you'll like this:?)\s*(?:-\s*)?", r"\1 ", s, flags=re.I)
    s = re.sub(r"\b(to|that) (?:[A-Za-z',]+ ){0,5}[A-Za-z']+\?\s+(?=[a-z])", r"\1 ", s)
    s = re.sub(r"\b(that) (?:the )?news\?\s+", r"\1 ", s)
    s = re.sub(r"\bto (?:I|he|she|someone|[A-Z]\w+(?: [A-Z]\w+)?) wants? to\b", "to", s)
    s = re.sub(r"^(?:guess what|have you heard\??|oh,? you'll like this:?)\s*(?:-\s*)?", "", s, flags=re.I)
    s = re.sub(r"\bI wants\b", "I want", s)
    # dangling words before an ellipsis
    s = re.sub(r"(?:\s+(?:on|in|at|the|of|to|a|an|for|with|and|by|from))*\s*\u2026", " \u2026", s)
    s = re.sub(r"\s*\u2026\s*", " ", s)
    s = re.sub(r"\s+([,.;:!?])", r"\1", s)
    s = re.sub(r"\s{2,}", " ", s)
    return s.strip()


def reanchor_days(s, P):
    """'tomorrow (Wednesday January 21)' -> 'today' relative to now."""
    def repl(m):
        st = parse_stamp(m.group(2))
        dd = day_diff(st, P.now) if st else None
        if dd == 0:
            return "today"
        if dd == -1:
            return "tomorrow"
        if dd == 1:
            return "yesterday"
        return m.group(1)
    s = re.sub(r"\b(today|tomorrow|yesterday|tonight)\s*\(([^)]{3,40})\)", repl, s, flags=re.I)

    def repl_wd(m):
        st = parse_stamp(m.group(2))
        dd = day_diff(st, P.now) if st else None
        pre = m.group(0)[:1] if False else ""
        if dd == 0:
            return "today"
        if dd == -1:
            return "tomorrow"
        return ("on " if not m.group(0).lower().startswith("on ") else "") + m.group(1)
    s = re.sub(r"\b(?:on )?((?:" + "|".join(WEEKDAYS) + r"))\s*\(([^)]{3,40})\)", repl_wd, s, flags=re.I)
    s = re.sub(r"\bon on\b", "on", s)

    def repl2(m):
        st = parse_stamp(m.group(1))
        dd = day_diff(st, P.now) if st else None
        if dd == 0:
            return "today"
        if dd == -1:
            return "tomorrow"
        if dd == 1:
            return "yesterday"
        return "on " + m.group(1)
    s = re.sub(r"\bon ((?:" + "|".join(MONTHS) + r") \d{1,2}|(?:" + "|".join(WEEKDAYS) + r") \w+ \d{1,2})\b",
               repl2, s, flags=re.I)
    return s


def fix_I_verbs(s):
    def repl(m):
        adv = m.group(1) or ""
        return "I " + adv + third_to_base(m.group(2))
    s = re.sub(r"\bI ((?:" + "|".join(ADVERBS) + r") )?([a-z]+)\b", repl, s)
    s = re.sub(r"\bI said they would\b", "I said I would", s)
    s = re.sub(r"\bI and ((?:[A-Z][a-z]+ ?){1,2})\b", lambda m: m.group(1).strip() + " and I ", s)
    s = re.sub(r"\bme and ((?:[A-Z][a-z]+ ?){1,2})\b(?= (?:talk|were|are|have|had|chat))",
               lambda m: m.group(1).strip() + " and I ", s)
    s = re.sub(r"\s{2,}", " ", s)
    return s


SUBJ_BEFORE = re.compile(r"(?:^|[.;:!?(]|,| and| that| because| so| but| when| while| if| as| then| since| where)\s*$")


def first_person(s, P, pronouns=False):
    """Rewrite text about the self in the first person."""
    if not P.name:
        return s
    full, first = P.name, P.first
    s = re.sub(r"\b" + re.escape(full) + r"'s\b", "my", s)
    s = re.sub(r"\b" + re.escape(first) + r"'s\b", "my", s)
    out, pos = [], 0
    for m in re.finditer(r"\b" + re.escape(full) + r"\b|\b" + re.escape(first) + r"\b", s):
        pre = s[:m.start()]
        out.append(s[pos:m.start()])
        out.append("I" if SUBJ_BEFORE.search(pre) else "me")
        pos = m.end()
    out.append(s[pos:])
    s = "".join(out)
    if pronouns and P.self_gender:
        if P.self_gender == "f":
            subj, obj, poss = "she", "her", "her"
        else:
            subj, obj, poss = "he", "him", "his"
        s = re.sub(r"\b" + subj + r"\b", "I", s)
        s = re.sub(r"\b" + cap1(subj) + r"\b", "I", s)
        s = re.sub(r"\b(?:" + subj + "|" + obj + r")self\b", "myself", s)
        if P.self_gender == "f":
            s = re.sub(r"\bher(?=\s+[a-z])(?!\s+(?:and|or|but|to|at|in|on|with|for|both|twice|once|since|when|because|a|the)\b)", "my", s)
            s = re.sub(r"\bher\b", "me", s)
            s = re.sub(r"\bHer\b", "My", s)
        else:
            s = re.sub(r"\bhis(?=\s*[,.;:)]|$)", "mine", s)
            s = re.sub(r"\bhis\b", "my", s)
            s = re.sub(r"\bHis\b", "My", s)
            s = re.sub(r"\bhim\b", "me", s)
    s = re.sub(r"\bme (is|was|has|have|had|will|would|can|keeps?|talks?)\b", r"I \1", s)
    s = fix_I_verbs(s)
    s = re.sub(r"\bthey were\b(?= apprentices)", "we were", s)
    return s


def shorten_names(s, P, use_first):
    if not use_first:
        return s
    for n in P.people:
        s = re.sub(r"\b" + re.escape(n) + r"\b", n.split(" ")[0], s)
    return s


def contract(s, rng):
    if rng.chance(0.7):
        s = re.sub(r"\bI am\b", "I'm", s)
        s = re.sub(r"\bI have (been|heard|taken|got|had|seen|told|learned|learnt)\b", r"I've \1", s)
        s = re.sub(r"\bI would\b", "I'd", s)
    return s


def to_past(s):
    s = re.sub(r"^(\S+(?: \S+)?) is (\w+ing)\b", r"\1 was \2", s)
    s = re.sub(r"^(\S+(?: \S+)?) are (\w+ing)\b", r"\1 were \2", s)
    return s


def pron(P, name, case="subj"):
    g = P.genders.get(name, "m")
    return {"subj": {"f": "she", "m": "he"}, "obj": {"f": "her", "m": "him"},
            "poss": {"f": "her", "m": "his"}}[case][g]


def nm(P, name, use_first):
    return name.split(" ")[0] if use_first else name


# ----------------------------------------------------------------------------- memory analysis

TURN_RE = re.compile(r"(" + NAME_TOKEN + r"(?: " + NAME_TOKEN + r"){0,2}):\s*[\"\u201c]([^\"\u201d]*)[\"\u201d]")
ACCEPT_RE = re.compile(r"(I'll come|count me in|I'll be there|I'd like to go|I'd love to come|see you there|"
                       r"I'll go along|I think I'll go|planning to be there|I'll come along|yes please|"
                       r"I'll definitely|wouldn't miss it|I'll try to make it|sounds? like fun)", re.I)
DECLINE_RE = re.compile(r"(can't make it|cannot make it|other plans|can't come|won't be able|not for me|"
                        r"I'll pass|afraid I can't)", re.I)
NEUTRAL_RE = re.compile(r"(keep it in mind|hadn't heard|good for them|nice to hear|how nice|thanks for telling)", re.I)
EVENT_VERB_RE = re.compile(
    r"\b(?:teach|teaching|hold|holding|host|hosting|run|running|give|giving|throw|throwing|organi[sz]e|organi[sz]ing|"
    r"lead|leading|put on|start|open|have|having|going to)\s+(an? [a-zA-Z' -]+?)(?=\s+(?:in|at|on|from|for|by|with|tomorrow|today|this|tonight|next)\b|[,.;:]|$)")


def event_short(text):
    m = EVENT_VERB_RE.search(text)
    if m:
        ph = m.group(1)
        ph = re.sub(r"^an? ", "", ph)
        if len(ph.split()) <= 6:
            return "the " + ph
    return None


def analyse_memories(P):
    for m in P.memories:
        t = m.text
        turns = TURN_RE.findall(t)
        m.people = people_in(t, P)
        if len(turns) >= 2:
            m.kind = "conv"
            m.turns = [(sp.strip(), u.strip()) for sp, u in turns]
            continue
        if (re.search(r"\bplan\b", t[:80]) and t.count(";") >= 2) or re.search(r"'s plan for\b", t[:80]):
            m.kind = "plan"
            continue
        if re.search(r"\b(told|mentioned to|said to|informed|let .* know)\b", t[:120]):
            m.kind = "told"
            continue
        if re.search(r"\b(talked about|chatted about|discussed)\b", t):
            m.kind = "told"
            continue
        if re.match(r"^\S+(?: \S+){0,2} (?:is|was|are) \w+ing\b", t):
            m.kind = "activity"
            continue
        m.kind = "reflection"


def self_stance(P, text_pool=None):
    """How the self stands towards the news: organising / accepted / declined / unknown."""
    cur = P.persona["current"] + " " + P.persona["identity"]
    if re.search(r"\b(getting ready to|is hosting|organi[sz]ing|will teach|is teaching|wants to teach|plans to hold)\b", cur) and \
            re.search(re.escape(P.first) + r"[\w ]{0,12} (?:is getting ready to|is hosting|wants to)", cur):
        return "organiser"
    for m in P.memories:
        if m.kind == "conv":
            for sp, u in m.turns:
                if sp == P.name or sp == P.first:
                    if ACCEPT_RE.search(u):
                        return "accepted"
                    if DECLINE_RE.search(u):
                        return "declined"
        if re.search(re.escape(P.name) + r" said (?:they|he|she) would go", m.text):
            return "accepted"
        if re.match(re.escape(P.name) + r" is (?:going to|hosting|joining)", m.text):
            return "accepted"
    return "unknown"


def reaction_of(utt):
    if ACCEPT_RE.search(utt):
        return "accept"
    if DECLINE_RE.search(utt):
        return "decline"
    if NEUTRAL_RE.search(utt):
        return "neutral"
    return None


def news_of_utterance(u):
    u2 = OPENER_RE.sub("", u).strip()
    u2 = re.sub(r"^(?:Hi|Hello|Hey|Evening|Morning|Afternoon|Oh,? hello)[^!.?]{0,25}[!.]\s*", "", u2)
    u2 = OPENER_RE.sub("", u2).strip()
    sents = [x for x in re.split(r"(?<=[.!?])\s+(?=[A-Z])", u2) if x.strip()]
    for x in sents:
        if CLOCK_RE.search(x) or re.search(r"\b(wants to|is going to|plans to|getting ready to|will be held|"
                                           r"is on\b|there's an? |there is an? |today|tomorrow|tonight|this evening|"
                                           r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)", x, re.I):
            return x
    if CLOCK_RE.search(u2) or re.search(r"\b(wants to|is going to|plans to|getting ready to|will be held|"
                                        r"is on\b|there's an? |there is an? |today|tomorrow|tonight|this evening|"
                                        r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)", u2, re.I):
        return u2
    return None


def been_up_to(u):
    m = re.search(r"I've been ([^.!?]+)", u)
    return m.group(1).strip() if m else None


def tidy(s):
    s = re.sub(r"\s+([,.;:!?])", r"\1", s)
    s = re.sub(r"([,;]|(?<!\d):)(?=[^\s\d])", r"\1 ", s)
    s = re.sub(r"\.\.+", ".", s)
    s = re.sub(r"\s{2,}", " ", s).strip()
    s = re.sub(r",\s*,", ",", s)
    return s


def clip_words(s, n):
    ws = s.split()
    if len(ws) <= n:
        return s
    cut = " ".join(ws[:n])
    m = re.search(r"^(.*\w)[,;](?:[^,;]*)$", cut)
    if m and len(m.group(1).split()) >= n // 2:
        return m.group(1)
    return cut.rstrip(",;:")


def fix_reported(c, teller, P, use_first):
    """Content told by `teller` about themselves -> pronoun."""
    if teller and teller != P.name:
        c = re.sub(r"^" + re.escape(teller) + r"\b", pron(P, teller), c)
    return c


def gist(m, P, rng, uf, verbatim=False):
    """A first-person, own-words clause for one memory (no time phrase)."""
    t = m.text
    if verbatim:
        if m.kind == "conv":
            s = re.sub(r"^conversation with ", "I had a conversation with ", t, flags=re.I)
            return tidy(clip_words(s, 40)), (m.people or [None])[0]
        s = first_person(t, P)
        return tidy(clip_words(s, 40)), (m.people or [None])[0]
    if m.kind == "conv":
        header_people = people_in(t.split(":")[0], P)
        speakers = [sp for sp, _ in m.turns]
        partners = [p for p in P.people if p in speakers or p in header_people]
        partners = partners or [sp for sp in speakers if sp != P.name]
        main = partners[0] if partners else None
        news_i, teller = None, None
        for i, (sp, u) in enumerate(m.turns):
            n = news_of_utterance(u)
            if n:
                news_i, teller, news = i, sp, n
                break
        self_re, other_re, other_bu = None, None, None
        if news_i is not None:
            for sp, u in m.turns[news_i + 1:]:
                r = reaction_of(u)
                if r and sp == P.name and self_re is None:
                    self_re = r
                if r and sp != P.name and other_re is None:
                    other_re = (sp, r)
        for sp, u in m.turns:
            if sp != P.name and been_up_to(u) and other_bu is None:
                other_bu = (sp, been_up_to(u))
        if news_i is not None:
            news = clean_junk(news)
            news = reanchor_days(news, P)
            if teller != P.name:
                news = re.sub(r"^I want(?:s)? to\b", pron(P, teller) + " wants to", news)
                news = re.sub(r"^I'm\b", pron(P, teller) + " is", news)
            news = first_person(news, P)
            news = shorten_names(news, P, uf)
            news = clip_words(news.rstrip("."), 30)
            if teller == P.name or teller == P.first:
                short = event_short(news) or "the news"
                s = f"I told {join_names([nm(P, p, uf) for p in partners[:3]]) or 'them'} about {short}"
                if other_re:
                    sp, r = other_re
                    who = nm(P, sp, uf)
                    s += {"accept": f", and {who} said {pron(P, sp)} would come along",
                          "decline": f", but {who} couldn't make it",
                          "neutral": f", and {who} said {pron(P, sp)}'d keep it in mind"}[r]
                return tidy(s), main
            tname = teller if teller in P.people else (main or teller)
            s = f"{nm(P, tname, uf)} told me that {low1(news)}"
            if self_re == "accept":
                s += rng.choice([", and I said I'd come along", ", and I said I'd be there"])
            elif self_re == "decline":
                s += rng.choice([", but I told them I couldn't make it", ", though I said I couldn't come"])
            return tidy(s), tname
        if main:
            s = f"{nm(P, main, uf)} and I caught up"
            if other_bu:
                sp, bu = other_bu
                bu = first_person(bu, P)
                bu = re.sub(r"\b(he|she|I) lost\b", pron(P, sp) + " lost", bu)
                s += f", and {nm(P, sp, uf)} said {pron(P, sp)}'d been {bu}"
            return tidy(s), main
        return tidy(first_person(clean_junk(t.split(":")[0]), P)), main
    if m.kind == "told":
        mt = re.match(r"^(?P<a>.+?) (?:told|mentioned to|said to|informed) (?P<b>.+?)(?::\s*| that | about (?:their|his|her|the) plans?:?\s*)(?P<c>.+)$", t)
        if mt:
            a, b, c = mt.group("a"), mt.group("b"), mt.group("c")
            c = clean_junk(c)
            c = reanchor_days(c, P)
            tel = a if a in P.people else None
            c = fix_reported(c, tel, P, uf) if tel else c
            c = re.sub(r", and (?:" + re.escape(P.name) + r"|" + re.escape(P.first) + r") said (?:they|he|she) would go", ", and I said I'd go", c)
            c = first_person(c, P)
            c = shorten_names(c, P, uf)
            c = clip_words(c.rstrip("."), 28)
            if P.name in b or P.first == b:
                who = nm(P, a, uf) if a in P.people else first_person(a, P)
                return tidy(f"{who} told me {'that ' if rng.chance(0.6) else ''}{low1(c)}"), tel
            if P.name in a:
                bb = shorten_names(first_person(b, P), P, uf)
                return tidy(f"I told {bb} that {low1(c)}"), (people_in(b, P) or [None])[0]
            s = first_person(f"{a} told {b} that {low1(c)}", P)
            return tidy(shorten_names(s, P, uf)), tel
        mt = re.match(r"^(?P<a>.+?) (?:talked about|chatted about|discussed) (?P<c>.+)$", t)
        if mt:
            s = first_person(mt.group("a"), P)
            c = first_person(clean_junk(reanchor_days(mt.group("c"), P)), P)
            s = f"{shorten_names(s, P, uf)} talked about {clip_words(c, 28)}"
            return tidy(shorten_names(fix_I_verbs(s), P, uf)), (m.people or [None])[0]
    if m.kind == "activity":
        s = to_past(t)
        s = re.sub(r"\b(and|then) ([a-z]{2,}s)\b", lambda mm: mm.group(1) + " " + (
            simple_past(third_to_base(mm.group(2))) if third_to_base(mm.group(2)) in COMMON_VERBS else mm.group(2)), s)
        s = clean_junk(s)
        sub = re.search(r"\s*\(([^()]*)\)\s*$", s)
        if sub:
            s = s[:sub.start()]
            if rng.chance(0.4) and not re.search(r":", sub.group(1)):
                s += ", " + sub.group(1)
        s = re.sub(r"\s*\([A-Z][^()]*:[^()]*\)", "", s)
        s = first_person(s, P)
        s = shorten_names(s, P, uf)
        return tidy(s), (m.people or [None])[0]
    if m.kind == "plan":
        items = plan_items(m, P)
        acts = [a for _, a in items][:3]
        if acts:
            return tidy("I had my day mapped out: " + join_names([shorten_names(first_person(a, P), P, uf) for a in acts])), None
    s = clean_junk(reanchor_days(t, P))
    s = first_person(s, P)
    s = shorten_names(s, P, uf)
    return tidy(s.rstrip(".")), (m.people or [None])[0]


def plan_items(m, P):
    t = m.text
    items = []
    for seg in re.split(r";|\bSchedule:|: (?=\d{1,2}:\d{2} )", t):
        seg = seg.strip().rstrip(".")
        mm = re.match(r"^(\d{1,2}:\d{2})\s+(.+)$", seg)
        if mm:
            items.append((parse_clock(mm.group(1)), mm.group(2).strip()))
            continue
        mm = re.match(r"^(.+?) at (\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2}|noon|midnight)$", seg)
        if mm and len(mm.group(1).split()) <= 8:
            act = re.sub(r"^.*?:\s*", "", mm.group(1))
            items.append((parse_clock(mm.group(2)), act))
    if not items:
        r = re.search(r"(\d{1,2}:\d{2})\s*[-–]\s*(\d{1,2}:\d{2})", t)
        if r:
            cur = parse_clock(r.group(1))
            for seg in re.split(r";|: ", t[r.end():]):
                mm = re.match(r"^\s*([a-z][^()]+?)\s*\((\d+) min\)", seg)
                if mm:
                    items.append((cur, mm.group(1).strip()))
                    cur += int(mm.group(2))
    seen, out = set(), []
    for mi, a in items:
        if mi is None:
            continue
        a = re.sub(r"\s*\([^)]*\)", "", a).strip()
        k = (mi, a.lower())
        if k in seen or a.lower() in {x[1].lower() for x in out if x[0] == mi}:
            continue
        seen.add(k)
        out.append((mi, a))
    return out


def plan_day(m, P):
    st = parse_stamp(m.text[:140])
    if st and st.day is not None:
        return st.day
    return m.stamp.day if m.stamp else None


def future_phrase(act, P, uf):
    a = shorten_names(first_person(act, P), P, uf)
    a = re.sub(r"^(?:wake|wakes) up$", "get up", a)
    first = a.split(" ")[0]
    if first.endswith("ing"):
        return "I'll be " + a
    if first in ("go", "wake", "get", "have", "see", "call", "visit", "meet", "relax", "work", "tend", "cook", "eat"):
        return "I'll " + a
    return "I'll be " + a


# ----------------------------------------------------------------------------- persona sentences

def split_sents(s):
    return [x.strip() for x in re.split(r"(?<=[.!?])\s+(?=[A-Z])", s) if x.strip()]


def persona_sents(P, which):
    return split_sents(P.persona.get(which) or "")


COMMON_VERBS = set("""run mend keep cook drive work live lodge take make sell bake fish tend clear walk look find
play lend get borrow forget quarrel argue eat sleep teach help own write read watch feed care love hate visit
clean stoke grow sing paint carry hunt build fix guard serve pour brew sew wash deliver collect patrol know hope
want need like spend go come say tell ask think try give wait plan dream miss worry stitch scold sweep open close
manage mind raise look fetch shovel haul chop tidy lock ring keep""".split())
CONJ_VERB_NEXT = r"(?= (?:the|a|an|at|in|on|above|below|with|for|to|from|his|her|my|their|up|out|over|down|through|alone|each|every|after|before|by|into|near|under|off)\b)"


def fp_persona(s, P, uf=True):
    s = clean_junk(reanchor_days(s, P))
    s = first_person(s, P, pronouns=True)
    if s.startswith("I "):
        head, sep, tail = s.partition(". ")
        head = re.sub(r"\b(and|but|then|or) (is|has)\b", lambda m: m.group(1) + " " + {"is": "am", "has": "have"}[m.group(2)], head)
        head = re.sub(r"\b(and|but|then|or) ([a-z]{3,}s)\b" + CONJ_VERB_NEXT,
                      lambda m: m.group(1) + " " + third_to_base(m.group(2)), head)
        if not re.search(r"\bwho\b", head):
            head = re.sub(r"\b(and|but|then|or) ([a-z]{2,}s)\b",
                          lambda m: m.group(1) + " " + (third_to_base(m.group(2)) if third_to_base(m.group(2)) in COMMON_VERBS else m.group(2)), head)
        head = re.sub(r",? and am\b", ", and I'm", head)
        s = head + sep + tail
    s = shorten_names(s, P, uf)
    return tidy(s).rstrip(".")


def job_sentence(P, uf):
    ss = persona_sents(P, "identity")
    if not ss:
        return None
    return clip_words(fp_persona(ss[0], P, uf), 30)


def routine_parts(P):
    r = P.persona["routine"]
    d = {"wake": None, "bed": None, "work": None, "work_from": None, "work_to": None}
    m = re.search(r"\b(?:wak\w* up|gets? up|rises?|up) (?:at )?([^,;]+)", r)
    if m:
        d["wake"] = parse_clock(m.group(1))
    m = re.search(r"\bbed (?:at )?([^,;]+)", r)
    if m:
        d["bed"] = parse_clock(m.group(1))
    m = re.search(r"(?:^|, |and )([a-z][^,;]*?) from ((?:\d{1,2}(?::\d{2})?\s*(?:am|pm)?)|noon|midnight) to "
                  r"((?:\d{1,2}(?::\d{2})?\s*(?:am|pm)?)|noon|midnight)", r)
    if m:
        d["work"] = re.sub(r"^(?:and )", "", m.group(1)).strip()
        d["work_from"] = parse_clock(m.group(2) if re.search(r"am|pm|:|noon|midnight", m.group(2)) else m.group(2) + ":00")
        d["work_to"] = parse_clock(m.group(3) if re.search(r"am|pm|:|noon|midnight", m.group(3)) else m.group(3) + ":00")
    return d


def routine_sentence(P):
    r = P.persona["routine"].strip().rstrip(".")
    if not r:
        return None
    if P.name and r.startswith(P.first):
        return fp_persona(r, P)
    clauses = re.split(r"(, and |, | and then )", r)
    out = []
    for c in clauses:
        if c in (", and ", ", ", " and then "):
            out.append(c)
            continue
        ws = c.split(" ")
        if ws and ws[0]:
            ws[0] = third_to_base(ws[0])
        out.append(" ".join(ws))
    s = "I " + "".join(out)
    s = first_person(s, P, pronouns=True)
    s = re.sub(r"\b(and) ([a-z]{2,}s)\b", lambda m: m.group(1) + " " + (
        third_to_base(m.group(2)) if third_to_base(m.group(2)) in COMMON_VERBS else m.group(2)), s)
    return tidy(s)


def work_ing(P):
    d = routine_parts(P)
    if not d["work"]:
        return None
    ws = d["work"].split(" ")
    ws[0] = ing_form(third_to_base(ws[0]))
    return first_person(" ".join(ws), P, pronouns=True)


def work_base(P):
    d = routine_parts(P)
    if not d["work"]:
        return None
    ws = d["work"].split(" ")
    ws[0] = third_to_base(ws[0])
    return first_person(" ".join(ws), P, pronouns=True)


def relation_sents(P, person, uf):
    out = []
    first = person.split(" ")[0]
    for s in persona_sents(P, "identity") + persona_sents(P, "current"):
        if person in s or re.search(r"\b" + re.escape(first) + r"\b", s):
            parts = re.split(r";\s+|, and (?=[a-z]+ )|(?<=\w) and (?=(?:is|has|gets|lends|lives|takes|finds|plays|cannot|quarrels)\b)", s)
            keep = [p for p in parts if person in p or re.search(r"\b" + re.escape(first) + r"\b", p)]
            for p in keep or [s]:
                p = p.strip()
                if not re.match(r"^(?:[A-Z]|he |she |I )", p) and not re.match(r"^(?:the|a|an|his|her|my|their|who)\b", p):
                    subj = "he " if P.self_gender == "m" else ("she " if P.self_gender == "f" else P.name + " ")
                    p = subj + p
                out.append(fp_persona(p, P, uf))
    return out


WARM_RE = re.compile(r"\b(friend|fond|married|wife|husband|sister|brother|looks out|under (?:her|his) wing|"
                     r"neighbou?r|partner|feeds|kind|cousin|son|daughter|mother|father)\b", re.I)
COLD_RE = re.compile(r"\b(quarrel\w*|feud\w*|can(?:'|no)t stand|tiresome|complain\w*|argu\w*|dislike\w*|"
                     r"scold\w*|rival|steals|annoy\w*|forgets to return)\b", re.I)


def relation_tone(P, person):
    text = " ".join(relation_sents(P, person, False))
    warm = len(WARM_RE.findall(text))
    cold = len(COLD_RE.findall(text))
    mem_warm = 0
    for m in P.memories:
        if mentions(m.text, person) and re.search(r"\b(often|count on|familiar|fond|friend)\b", m.text):
            mem_warm += 1
    if cold > warm:
        return "cold", text
    if warm or mem_warm:
        return "warm", text
    return "neutral", text


# ----------------------------------------------------------------------------- question types

INTENTS = [
    ("intro", r"introduce yourself|who are you\b|tell (?:me|us) (?:a bit |a little )?about yourself"),
    ("fire", r"\bsmoke\b|\bfire\b|burning|\bflames?\b"),
    ("closed", r"\bclosed\b|\bshut\b|\blocked\b"),
    ("meal", r"\bmeal\b|\beat\b|\bfood\b|hungry|restaurant|good dinner|good lunch"),
    ("cancel", r"called off|cancel|postponed|not happening|scrapped"),
    ("heard", r"have you heard|did you hear|heard about|know anything about|any news (?:of|about)"),
    ("promise", r"promis|committed to|agreed to|given your word|gave your word"),
    ("tomorrow", r"tomorrow"),
    ("next", r"next thing|what(?:'s| is) next|right after this|going to do next|about to do"),
    ("evening", r"\bevening\b|\btonight\b"),
    ("plans_today", r"planned for today|for today|on today|today's plans|plans? for (?:the rest of )?today|rest of (?:the|your) day|still have planned|later today"),
    ("memorable", r"memorable|stood out|highlight|best thing that|happened to you today|most interesting"),
    ("spent_time", r"spent time with|who have you (?:seen|met)|who did you (?:see|meet)|kept you company"),
    ("afternoon_person", r"(?:whom|who) would you (?:most )?like to spend|spend an afternoon with|closest to"),
    ("work", r"for a living|your job|your work\b|workday|working day|occupation|profession|what do you do\b"),
    ("live", r"where do you live|\blive\b|spend most of your days"),
    ("describe", r"describe you|what kind of person|personality|people who know you"),
    ("excited", r"excit|looking forward|thrilled"),
    ("learned", r"learn(?:ed|t) about yourself|discovered about yourself|reali[sz]ed about yourself|learn(?:ed|t)\b"),
    ("matters", r"matters most|most important|care about most|priorit"),
    ("differently", r"differently|regret|change anything|do over"),
]
PERSON_INTENTS = [
    ("upset", r"upset|crying|in tears|angry|distressed|sad\b|says nothing"),
    ("last_talk", r"last (?:talk|spoke|speak|saw|see|met)|when did you"),
    ("opinion", r"think of|make of|feel about|opinion|get (?:on|along)|like (?:him|her|them)\b"),
    ("about_person", r"tell me about|know about|who is|what is .* like|heard from"),
]


def classify(P):
    q = P.question
    ql = q.lower()
    target = None
    for n in P.people:
        if n in q:
            target = n
            break
    if target is None:
        for f, n in P.first_map.items():
            if re.search(r"\b" + re.escape(f) + r"\b", q):
                target = n
                break
    if target is None:
        for m in re.finditer(r"(?<![.!?] )(?<!^)\b([A-Z][a-z]+(?: [A-Z][a-z]+)?)\b", q):
            cand = m.group(1)
            if cand.split(" ")[0] in NONNAME or cand.split(" ")[0] in PLACE_WORDS or cand == P.name or cand == P.first:
                continue
            if any(re.search(rx, ql) for _, rx in PERSON_INTENTS):
                target = cand
                if cand not in P.people:
                    P.people.append(cand)
                    P.genders[cand] = "f" if cand.split(" ")[0].lower().endswith(("a", "e", "y")) else "m"
                break
    if target:
        for name, rx in PERSON_INTENTS:
            if re.search(rx, ql):
                return name, target
    for name, rx in INTENTS:
        if re.search(rx, ql):
            return name, target
    if target:
        return "about_person", target
    return "generic", None


Q_GENERIC = content_tokens("""question ask answer memorable happened describe best people person
would like spend afternoon whom most recently met learned lately matters right now why looking back
differently heard suppose called take what do where will evening tomorrow morning planned still next
very promised anyone soon visitor new town good notice arrive meant instead find closed""")


def topic_tokens(P, intent, target):
    toks = content_tokens(P.question) - Q_GENERIC
    if P.name:
        toks -= content_tokens(P.name)
    return toks


def rank_memories(P, intent, target, now):
    mems = P.memories
    N = max(1, len(mems))
    docs = [content_tokens(m.text) for m in mems]
    df = {}
    for d in docs:
        for t in d:
            df[t] = df.get(t, 0) + 1
    import math
    qt = topic_tokens(P, intent, target)
    times = sorted(range(len(mems)), key=lambda i: mems[i].stamp.key() if mems[i].stamp else (-1, 0))
    rank_of = {i: r for r, i in enumerate(times)}
    out = []
    today = now.day
    for i, m in enumerate(mems):
        s = sum(math.log(1 + N / df[t]) for t in (qt & docs[i]))
        dd = day_diff(m.stamp, now) if m.stamp else None
        t = m.text
        if target:
            if mentions(t, target):
                s += 3.0
                if m.kind in ("conv", "told"):
                    s += 1.5
                head = t.split(":")[0]
                if mentions(head, target) or t.startswith(target) or (
                        m.kind == "conv" and any(sp == target for sp, _ in m.turns)):
                    s += 1.5
            else:
                s -= 1.0
        if intent in ("memorable",):
            if dd == 0:
                s += 2.0
            s += {"conv": 1.2, "told": 1.0, "reflection": 0.4, "activity": 0.2, "plan": -1.0}.get(m.kind, 0)
        if intent == "spent_time":
            if dd in (0, 1) and m.people:
                s += 2.5
            if m.kind == "conv":
                s += 0.5
        if intent in ("plans_today", "next", "evening"):
            if m.kind == "plan" and plan_day(m, P) == today:
                fut = [x for x in plan_items(m, P) if x[0] > (now.minutes or 0)]
                s += 2.5 if fut else 0.5
        if intent == "tomorrow":
            if m.kind == "plan" and today is not None and plan_day(m, P) == today + 1:
                s += 3.0
        if intent == "promise":
            if m.kind == "conv" and any(sp == P.name and ACCEPT_RE.search(u) for sp, u in m.turns):
                s += 4.0
            if re.search(re.escape(P.name) + r" said (?:they|he|she) would", t):
                s += 4.0
        if intent in ("excited", "matters"):
            if re.search(r"\b(interest|effort|keen|looking forward|hopes?|excited)\b", t):
                s += 2.0
        if intent in ("learned", "differently"):
            if m.kind == "reflection":
                s += 1.5
            if m.kind == "conv" and any(sp == P.name and DECLINE_RE.search(u) for sp, u in m.turns):
                s += 2.0
        if intent == "work":
            w = P.persona["routine"] + " " + P.persona["identity"]
            if content_tokens(t) & content_tokens(w) - {"wake", "bed", "goe"}:
                s += 1.0 if m.kind == "activity" else 0.3
        if intent == "live":
            if re.search(r"\b(home|house|lodg|room|next door)\b", t):
                s += 1.5
        if intent == "meal":
            if re.search(r"\b(cook|meal|dinner|lunch|breakfast|feeds|food|kitchen|stores|scones|bread|soup)\w*", t):
                s += 2.0
        if intent in ("heard", "cancel", "generic"):
            if m.kind in ("told", "conv"):
                s += 0.8 if s > 0 else 0
        if m.kind == "reflection" and len(t.split()) < 5:
            s -= 1.0
        s += 0.6 * rank_of[i] / N
        m.score = s
        out.append((s, i, m))
    out.sort(key=lambda x: (-x[0], -x[1]))
    return [m for _, _, m in out]


DONT_KNOW = [
    "I'm not sure, to be honest",
    "I can't say I know",
    "Honestly, I don't remember",
    "That I couldn't tell you",
    "Nothing comes to mind, I'm afraid",
    "I haven't a clue, sorry",
    "I'd only be guessing",
    "I really don't know",
    "Hm, I can't recall anything about that",
    "No idea, I'm afraid",
    "I don't think I know anything about that",
    "You've got me there",
]


def dont_know(C, about=None):
    r = C.rng
    if about:
        opts = [f"I don't know much about {about}, to be honest",
                f"I can't really tell you anything about {about}",
                f"I'm not sure what to say about {about}",
                f"Honestly, {about} isn't something I know much about"]
        return r.choice(opts + DONT_KNOW[:3])
    return r.choice(DONT_KNOW)


class Ctx:
    pass


def choose_mem(C, ranked):
    """C1: top 65 / second 15 / merge top two 12 / random shown 8."""
    rel = [m for m in ranked if m.score >= 2.0]
    if not rel:
        C.trace.setdefault("relevant_found", False)
        return None, None
    C.trace["relevant_found"] = True
    r = C.rng.random()
    if r < 0.65 or len(ranked) < 2:
        return [rel[0]], "top"
    if r < 0.80:
        return [ranked[1]], "second"
    if r < 0.92:
        return [ranked[0], ranked[1]], "merge"
    return [C.rng.choice(C.P.memories)], "random"


def memory_clause(C, picked, how, with_time=True):
    """Own-words clause for the chosen memory (or the conflation of two)."""
    P, rng = C.P, C.rng
    m = picked[0]
    verbatim = rng.chance(0.10)
    C.trace["verbatim"] = verbatim
    g, who = gist(m, P, rng, C.uf, verbatim=verbatim)
    st = m.stamp
    if how == "merge" and len(picked) > 1:
        m2 = picked[1]
        if m2.stamp and rng.chance(0.5):
            st = m2.stamp
        else:
            g2, who2 = gist(m2, P, rng, C.uf)
            if who and who2 and who != who2:
                g = g.replace(nm(P, who, C.uf), nm(P, who2, C.uf))
    C.trace["grounded"] = True
    if verbatim:
        return g, who, st
    if m.kind == "reflection" and how != "merge":
        with_time = False
    if with_time and st is not None:
        w = when_phrase(st, P.now, rng)
        if rng.chance(0.5) or len(g.split()) > 14 or ", " in g:
            g = cap1(w) + ", " + low1(g)
        else:
            g = g + " " + w
    return g, who, st


# ----------------------------------------------------------------------------- answer builders

def current_sents(C):
    return [fp_persona(s, C.P, C.uf) for s in persona_sents(C.P, "current")]


def trait_phrase(P, n=2):
    tr = [t for t in P.persona["traits"] if t][:n]
    return join_names(tr) if tr else None


def persona_or_dk(C, sents, about=None):
    sents = [s for s in sents if s]
    if sents:
        C.trace["source"] = "persona"
        return sents
    return no_knowledge(C, about)


def no_knowledge(C, about=None):
    if C.rng.chance(0.15):
        C.trace["source"] = "guess"
        return [C.rng.choice(["I might have heard something in passing, but I couldn't give you the details",
                              "Probably the usual, I'd guess, but I can't say for certain",
                              "I'd say it's much the same as ever, though don't hold me to it",
                              "Something or other, I expect, but it's gone right out of my head"])]
    C.trace["source"] = "dontknow"
    return [dont_know(C, about)]


def memory_answer(C, ranked, lead_yes=None, about=None, extra=None):
    """Generic memory-grounded answer with C1/C2; falls back to persona lines in `extra`."""
    picked, how = choose_mem(C, ranked)
    if picked and C.rng.chance(0.05):
        C.trace["dk_despite_memory"] = True
        C.trace["source"] = "dontknow"
        return [dont_know(C, about)]
    if not picked:
        return persona_or_dk(C, extra or [], about)
    C.trace["choice"] = how
    C.trace["source"] = "memory"
    g, who, st = memory_clause(C, picked, how)
    s1 = (lead_yes + " " + low1(g)) if lead_yes else g
    return [s1] + [e for e in (extra or []) if e]


def b_intro(C):
    P = C.P
    job = job_sentence(P, C.uf)
    first = C.rng.choice([f"Hello, I'm {P.name}", f"I'm {P.name}", f"Hi there, I'm {P.first}", f"My name is {P.name}"])
    out = []
    if job:
        jb = re.sub(r"^I(?:'m| am) ", "", job)
        out.append(first + (", " + jb if jb != job else ". " + job) if jb != job else first + ". " + job)
    else:
        out.append(first)
    tp = trait_phrase(P, 2)
    cur = current_sents(C)
    extra = []
    if P.persona.get("age") and C.rng.chance(0.3):
        extra.append(f"I'm {P.persona['age']}")
    if cur:
        extra.append(cur[0])
    if tp:
        extra.append(C.rng.choice([f"People tell me I'm {tp}", f"I'd call myself {tp}", f"I suppose I'm {tp}"]))
    C.trace["source"] = "persona"
    return out + extra


def b_work(C):
    P = C.P
    job = job_sentence(P, C.uf)
    rs = routine_sentence(P)
    out = [job] if job else []
    if rs:
        out.append(C.rng.choice(["On an ordinary day ", "Most days ", "A normal day, "]) + low1(rs))
    ranked = rank_memories(P, "work", None, P.now)
    picked, how = choose_mem(C, ranked)
    if picked and picked[0].kind == "activity":
        g, _, _ = memory_clause(C, picked, how)
        out.append(C.rng.choice(["Today, for instance, ", "Just today "]) + low1(g))
    return persona_or_dk(C, out)


def b_live(C):
    P = C.P
    ident = " ".join(persona_sents(P, "identity"))
    home = None
    for s in persona_sents(P, "identity"):
        if re.search(r"\b(lives?|lodges?|keeps the [a-z ]*house|next door|home)\b", s):
            home = s
            break
    out = []
    if home:
        out.append(fp_persona(home, P, C.uf))
    else:
        job = job_sentence(P, C.uf)
        if job:
            out.append(C.rng.choice(["I live here in town", "I live locally"]) + "; " + low1(job))
    # who: people in persona + most frequent in memories
    counts = {}
    for n in P.people:
        c = (3 if n in ident or n.split(" ")[0] in ident else 0) + sum(1 for m in P.memories if mentions(m.text, n))
        if c:
            counts[n] = c
    top = sorted(counts, key=lambda n: -counts[n])[:3]
    if top:
        names = join_names([nm(P, n, C.uf) for n in top])
        out.append(C.rng.choice([f"Most days I see {names}", f"I spend most of my time around {names}",
                                 f"{names} are the people I see most"]))
    return persona_or_dk(C, out)


def b_describe(C):
    P = C.P
    tr = P.persona["traits"]
    out = []
    if tr:
        out.append(C.rng.choice([f"They'd probably say I'm {join_names(tr)}",
                                 f"I think they'd call me {join_names(tr)}",
                                 f"{cap1(join_names(tr[:2]))}, most likely" + (f", and a bit {tr[-1]}" if len(tr) > 2 else "")]))
    job = job_sentence(P, C.uf)
    if job:
        out.append(C.rng.choice(["That's what comes of the job: ", "It fits the work: "]) + low1(job))
    ranked = rank_memories(P, "describe", None, P.now)
    picked, how = choose_mem(C, ranked)
    if picked and picked[0].kind == "reflection":
        g, _, _ = memory_clause(C, picked, how, with_time=False)
        out.insert(1, g)
    return persona_or_dk(C, out)


def stance_sentence(C, stance):
    r = C.rng
    if stance == "organiser":
        return r.choice(["I'm the one getting it ready, so I hope plenty of people come",
                         "It's my doing, so I'm hoping for a good turnout"])
    if stance == "accepted":
        return r.choice(["I said I'd go along", "I told them I'd be there", "I'm planning to go"])
    if stance == "declined":
        return r.choice(["I told them I couldn't make it, though", "I said I couldn't make it myself"])
    if r.chance(0.5):
        return r.choice(["I might go along", "I may well look in", "I think I'll go and see"])
    return r.choice(["I'm not sure yet whether I'll go", "I haven't decided if I'll go"])


def event_details(C, texts):
    P = C.P
    for t in texts:
        t2 = clean_junk(reanchor_days(t, P))
        tm = re.search(r"from (\d{1,2}(?::\d{2})?\s*(?:am|pm)?|noon) to (\d{1,2}(?::\d{2})?\s*(?:am|pm)?|noon|midnight)", t2)
        pl = re.search(r"\b(?:in|at) (the [a-z ]*(?:of the )?[A-Z][\w]*(?: [A-Z]\w+)*)", t2)
        day = re.search(r"\b(today|tomorrow|tonight|yesterday)\b", t2)
        if tm or pl:
            bits = []
            if day:
                bits.append(day.group(1))
            if tm:
                bits.append(f"from {tm.group(1)} to {tm.group(2)}")
            if pl:
                bits.append(("in " if "room" in pl.group(1) else "at ") + pl.group(1))
            return "It's " + " ".join(bits)
    return None


def b_heard(C):
    P = C.P
    ranked = rank_memories(P, "heard", None, P.now)
    qt = topic_tokens(P, "heard", None)
    stance = self_stance(P)
    C.trace["stance"] = stance
    picked, how = choose_mem(C, ranked)
    topic = re.sub(r"^(?:have you heard|did you hear|do you know anything|heard)\s*(?:about|of)?\s*", "",
                   P.question.strip().rstrip("?"), flags=re.I) or "that"
    if picked and C.rng.chance(0.05):
        C.trace["dk_despite_memory"] = True
        C.trace["source"] = "dontknow"
        return [C.rng.choice([f"Hmm, I'm not sure I have", f"I don't think so, no", dont_know(C)])]
    if picked:
        C.trace["choice"] = how
        C.trace["source"] = "memory"
        g, who, st = memory_clause(C, picked, how)
        out = [C.rng.choice(["Yes, ", "Oh yes, ", "I have: ", "Yes indeed, "]) + low1(g)]
        out.append(stance_sentence(C, stance))
        det = event_details(C, [m.text for m in picked])
        if det:
            out.insert(1, det)
        return out
    cur = [s for s in persona_sents(P, "current") if content_tokens(s) & qt]
    if cur:
        C.trace["source"] = "persona"
        return [C.rng.choice(["Yes, ", "I have, yes: "]) + low1(fp_persona(cur[0], P, C.uf)), stance_sentence(C, stance)]
    if C.rng.chance(0.15):
        C.trace["source"] = "guess"
        return [C.rng.choice([f"I think someone mentioned {low1(topic)} in passing, but I didn't catch the details",
                              "Maybe in passing, but I couldn't tell you much"])]
    C.trace["source"] = "dontknow"
    return [C.rng.choice([f"No, I haven't heard anything about {low1(topic)}", "No, that's news to me",
                          "Can't say I have", "Not a word, no", f"I don't know anything about {low1(topic)}, I'm afraid",
                          "No, nobody's told me about that"])]


def b_cancel(C):
    P = C.P
    ranked = rank_memories(P, "cancel", None, P.now)
    stance = self_stance(P)
    C.trace["stance"] = stance
    tr = set(P.persona["traits"])
    picked, how = choose_mem(C, ranked)
    known = bool(picked) or any(content_tokens(s) & topic_tokens(P, "cancel", None) for s in persona_sents(P, "current"))
    r = C.rng
    if stance == "organiser":
        feel = r.choice(["I'd be gutted, honestly, after all the work of getting people to come",
                         "That would sting, since I've been putting it together myself"])
        act = r.choice(["I'd go round and tell everyone I'd invited, and try to set a new date",
                        "I'd find out why, then let people know and try again another day"])
    elif stance == "accepted":
        feel = r.choice(["I'd be a bit disappointed, I was planning to go", "That'd be a shame, I'd said I'd be there"])
        act = r.choice(["I'd check with whoever was running it and then get on with my own work",
                        "I'd spend the time on my own jobs instead"])
    elif stance == "declined":
        feel = r.choice(["It wouldn't change much for me, I wasn't going anyway",
                         "I'd shrug it off, since I couldn't make it anyway"])
        act = r.choice(["I'd just carry on as usual", "I'd pass the word on if anyone asked"])
    else:
        feel = r.choice(["I'd be sorry to hear it", "That'd be a pity", "I'd take it in my stride"])
        act = r.choice(["I'd let the people I'd told know it was off", "I'd ask around to find out what happened",
                        "I'd carry on with my own day"])
    if "blunt" in tr or "gruff" in tr or "taciturn" in tr:
        feel = feel.split(",")[0]
    out = [feel, act]
    if picked:
        C.trace["choice"] = how
        C.trace["source"] = "memory"
        g, _, _ = memory_clause(C, picked, how)
        out.append(r.choice(["After all, ", "I remember "]) + low1(g))
    elif known:
        C.trace["source"] = "persona"
    else:
        C.trace["source"] = "persona"
        out[0] = r.choice(["I hadn't even heard of it, so", "I didn't know about it in the first place, so"]) + " " + low1(out[0])
    return out


def b_promise(C):
    P = C.P
    ranked = rank_memories(P, "promise", None, P.now)
    picked, how = choose_mem(C, ranked)
    if picked and C.rng.chance(0.05):
        C.trace["dk_despite_memory"] = True
        C.trace["source"] = "dontknow"
        return [C.rng.choice(["Not that I can remember", "I don't think I've promised anything, no"])]
    if picked:
        C.trace["choice"] = how
        C.trace["source"] = "memory"
        g, who, st = memory_clause(C, picked, how)
        lead = C.rng.choice(["Yes, I think so: ", "I did, yes. ", "Well, "])
        out = [lead + (cap1(g) if lead.endswith(". ") else low1(g))]
        det = event_details(C, [m.text for m in picked])
        if det:
            out.append(det)
        return out
    stance = self_stance(P)
    cur = current_sents(C)
    if stance == "organiser" and cur:
        C.trace["source"] = "persona"
        return ["Only to myself, really: " + low1(cur[-1])]
    if C.rng.chance(0.15) or C.rng.chance(0.5):
        return no_knowledge(C)
    C.trace["source"] = "dontknow"
    return [C.rng.choice(["No, I don't think I've promised anyone anything", "Not that I can recall",
                          "No, nothing I can think of"])]


def future_items(C, day_offset=0, after=None):
    P = C.P
    today = P.now.day
    res = []
    for m in P.memories:
        if m.kind != "plan" or today is None:
            continue
        if plan_day(m, P) != today + day_offset:
            continue
        for mi, a in plan_items(m, P):
            if after is None or mi > after:
                res.append((mi, a, m))
    res.sort(key=lambda x: x[0])
    seen, out = set(), []
    for mi, a, m in res:
        if a.lower() in seen:
            continue
        seen.add(a.lower())
        same = [i for i, x in enumerate(out) if x[0] == mi]
        if same:
            if len(a) > len(out[same[0]][1]):
                out[same[0]] = (mi, a, m)
            continue
        out.append((mi, a, m))
    return out


def routine_future(C, after, until=24 * 60):
    P = C.P
    d = routine_parts(P)
    items = []
    if d["work_from"] is not None and d["work"]:
        items.append((d["work_from"], "start " + work_base(P)))
        if d["work_to"] is not None:
            items.append((d["work_to"] if d["work_to"] > d["work_from"] else d["work_to"] + 1440, "finish work"))
    if d["bed"] is not None:
        items.append((d["bed"] if d["bed"] >= (d["wake"] or 0) else d["bed"] + 1440, "go to bed"))
    if d["wake"] is not None:
        items.append((d["wake"] + 1440, "get up"))
    return sorted([(mi, a) for mi, a in items if after < mi <= until], key=lambda x: x[0])


def say_item(C, mi, a):
    return future_phrase(a, C.P, C.uf) + " at " + fmt_clock(mi)


def b_plans(C, intent):
    P = C.P
    now = P.now.minutes or 0
    ranked = rank_memories(P, intent, None, P.now)
    rel = [m for m in ranked if m.score >= 2.0]
    r = C.rng
    if intent == "tomorrow":
        items = future_items(C, 1)
        items = [x for x in items if x[0] < 13 * 60]
        if items and not r.chance(0.05):
            C.trace["source"] = "memory"
            C.trace["grounded"] = True
            return [join_names([say_item(C, mi, a) for mi, a, _ in items[:3]])]
        d = routine_parts(P)
        out = []
        if d["wake"] is not None:
            out.append(f"I'll be up at {fmt_clock(d['wake'])}")
        if d["work_from"] is not None and d["work"] and d["work_from"] < 13 * 60:
            out.append(f"then I'll {work_base(P)} from {fmt_clock(d['work_from'])}")
        elif d["work_from"] is not None and d["work"]:
            out.append(r.choice(["mornings are quiet for me", "I'll mostly be resting before my turn"])
                       + f", since I don't {work_base(P).split(' ')[0]} until {fmt_clock(d['work_from'])}")
        if out:
            C.trace["source"] = "persona"
            s = "; ".join(out) if len(out) > 1 else out[0]
            cur = current_sents(C)
            return [s] + ([r.choice(["Probably still ", "And no doubt I'll still be "]) + low1(re.sub(r"^I(?:'m| am) ", "", cur[0]))] if cur and re.match(r"^I(?:'m| am) \w+ing", cur[0]) else [])
        return no_knowledge(C)
    if intent == "evening":
        until, after = 24 * 60 + 4 * 60, max(now, 17 * 60 - 1)
    else:
        until, after = 24 * 60 + 6 * 60, now
    items = future_items(C, 0, after)
    if intent == "evening":
        items = [x for x in items if x[0] >= 17 * 60]
    if items and rel and r.chance(0.05):
        C.trace["dk_despite_memory"] = True
        C.trace["source"] = "dontknow"
        return [r.choice(["I haven't really thought that far ahead", "I'm not sure yet, honestly"])]
    out = []
    if items and rel:
        C.trace["source"] = "memory"
        C.trace["grounded"] = True
        pick = items
        if r.random() < 0.15 and len(items) > 1:
            pick = items[1:]
            C.trace["choice"] = "second"
        else:
            C.trace["choice"] = "top"
        if intent == "next":
            out.append(r.choice(["Next ", "Right now the next thing is: "]) + low1(say_item(C, *pick[0][:2])))
        else:
            out.append(join_names([say_item(C, mi, a) for mi, a, _ in pick[:3]]))
    rf = routine_future(C, after, until)
    if intent == "evening":
        rf = [x for x in rf if x[0] < 24 * 60 + 4 * 60]
    if rf:
        d = routine_parts(P)
        txt = []
        for mi, a in rf[:2]:
            if a.startswith("start ") and d["work"]:
                txt.append(f"I'll {a[6:]} from {fmt_clock(mi)}" + (f" until {fmt_clock(d['work_to'])}" if d["work_to"] is not None else ""))
            else:
                txt.append(f"I'll {a} at {fmt_clock(mi)}")
        s = join_names(txt[:1] if intent == "next" else txt)
        if not out:
            C.trace["source"] = "persona"
            if intent == "evening":
                wi = work_ing(P)
                d = routine_parts(P)
                evening_work = wi and d["work_from"] is not None and d["work_to"] is not None and (
                    d["work_from"] >= 17 * 60 or d["work_to"] > 19 * 60 or d["work_to"] < d["work_from"])
                late_finish = wi and d["work_to"] is not None and d["work_from"] is not None and \
                    d["work_from"] < d["work_to"] and now < d["work_to"] <= 19 * 60
                if late_finish and not evening_work:
                    s = f"I'll be {wi} until {fmt_clock(d['work_to'])}, then " + \
                        r.choice(["home for a quiet evening", "home to rest", "back home"]) + \
                        (f", and in bed by {fmt_clock(d['bed'])}" if d["bed"] is not None and r.chance(0.5) else "")
                elif evening_work:
                    s = f"I'll be {wi}" + (f" from {fmt_clock(d['work_from'])}" if d['work_from'] >= 17 * 60 else "") + \
                        r.choice([", because that's my turn", ", since that's when I work", ""])
                else:
                    s = r.choice(["At home, most likely", "Home, I expect", "Probably at home"]) + \
                        r.choice([", because the day's work is done", ", resting up", ""]) + \
                        (f"; {s}" if s else "")
            out.append(s)
        elif intent != "next" and r.chance(0.5):
            out.append(s)
    if not out:
        return no_knowledge(C)
    return out


def b_memorable(C):
    P = C.P
    ranked = rank_memories(P, "memorable", None, P.now)
    out = memory_answer(C, ranked, extra=None)
    if C.trace.get("source") == "memory":
        out.append(C.rng.choice(["It stuck with me", "Nothing else really stood out", "That was the main thing"]))
        return out
    cur = current_sents(C)
    if cur:
        C.trace["source"] = "persona"
        return [C.rng.choice(["Nothing special, really; ", "Not much stands out; "]) + low1(cur[0])]
    return out


def b_spent_time(C):
    P = C.P
    ranked = rank_memories(P, "spent_time", None, P.now)
    rel = [m for m in ranked if m.score >= 2.0]
    if rel and C.rng.chance(0.05):
        C.trace["dk_despite_memory"] = True
        C.trace["source"] = "dontknow"
        return [C.rng.choice(["Hard to say, the day's been a blur", "I couldn't list them all, honestly"])]
    if not rel:
        rs = [s for s in relation_sents_all(C)]
        if rs:
            C.trace["source"] = "persona"
            return [C.rng.choice(["I can't think of anyone in particular", "Nobody much that I remember"]) + ", though " + low1(rs[0])]
        return no_knowledge(C)
    counts = {}
    for m in rel:
        for n in m.people:
            counts[n] = counts.get(n, 0) + (2 if m.kind == "conv" else 1)
    names = sorted(counts, key=lambda n: -counts[n])[:3]
    C.trace["source"] = "memory"
    out = []
    if names:
        out.append(C.rng.choice(["Mostly ", "Let me think: ", "I've seen "]) + join_names([nm(P, n, C.uf) for n in names]))
    picked, how = choose_mem(C, ranked)
    if picked:
        C.trace["choice"] = how
        g, _, _ = memory_clause(C, picked, how)
        out.append(g)
    return out or no_knowledge(C)


def relation_sents_all(C):
    P = C.P
    out = []
    for s in persona_sents(C.P, "identity")[1:]:
        if people_in(s, P):
            out.append(fp_persona(s, P, C.uf))
    return out


def b_afternoon(C):
    P = C.P
    cands = {}
    for n in P.people:
        tone, _ = relation_tone(P, n)
        sc = {"warm": 3, "neutral": 0, "cold": -3}[tone]
        sc += sum(1.0 if m.kind == "conv" else 0.3 for m in P.memories if mentions(m.text, n))
        if sc > 0:
            cands[n] = sc
    if not cands:
        return no_knowledge(C)
    order = sorted(cands, key=lambda n: -cands[n])
    pick = order[0]
    if len(order) > 1 and C.rng.chance(0.15):
        pick = order[1]
        C.trace["choice"] = "second"
    else:
        C.trace["choice"] = "top"
    who = nm(P, pick, C.uf)
    out = [C.rng.choice([f"{who}, I think", f"Probably {who}", f"I'd pick {who}"])]
    rel = relation_sents(P, pick, C.uf)
    mem = [m for m in rank_memories(P, "about_person", pick, P.now) if m.score >= 2.0]
    if rel:
        out[0] += ", because " + low1(rel[0])
        C.trace["source"] = "persona"
    if mem:
        g, _, _ = memory_clause(C, [mem[0]], "top")
        out.append(C.rng.choice(["", "Besides, ", "And "]) + g)
        C.trace["source"] = "memory"
    if len(out) == 1 and not rel:
        out.append(C.rng.choice([f"{cap1(pron(P, pick))}'s easy company", f"We always find something to talk about"]))
        C.trace["source"] = C.trace.get("source") or "guess"
    return out


TRAIT_INSIGHT = {
    "stubborn": "I dig my heels in more than I should", "lonely": "I like company more than I admit",
    "methodical": "I feel better when things run to a plan", "blunt": "I could stand to soften my words a little",
    "tender": "I worry about people more than I let on", "steady": "I can keep my head when others don't",
    "gruff": "I care more than my grumbling suggests", "loyal": "I'll stand by people even when it costs me",
    "practical": "I'd rather fix a thing than talk about it", "cheerful": "a good mood carries me a long way",
    "reckless": "I take more chances than is wise", "tireless": "I don't know when to stop",
    "precise": "I can't let a small mistake go", "calm": "I stay calm when things go wrong",
    "solitary": "I don't mind my own company, maybe too much", "proud": "I find it hard to ask for help",
    "earnest": "I take things to heart", "homesick": "I miss home more than I expected",
    "observant": "I notice more than people think", "taciturn": "I say less than I mean",
    "strong": "I can carry more than I thought", "patient": "patience gets me further than hurry",
    "shrewd": "I read people quickly", "motherly": "I can't help looking after people",
    "gossipy": "I do love to be the first with the news", "sociable": "I need people around me",
    "careless": "I'm sloppier than I'd like", "quick-witted": "a joke gets me out of most scrapes",
    "dry-humoured": "a dry remark helps me through a long day",
    "grumpy": "I grumble more than I mean", "generous": "I give more than I can spare",
    "kind": "I can't walk past someone in trouble", "shy": "I hang back more than I should",
    "curious": "I can't leave a question alone", "lazy": "I put things off too long",
    "ambitious": "I always want the next thing", "friendly": "I'm happiest with people around",
    "honest": "I'd rather say a hard thing than a false one", "anxious": "I worry before anything has gone wrong",
    "brave": "I'll step in where others hang back", "nosy": "I want to know everyone's business",
    "warm": "I like looking after people", "hard-working": "I find it hard to sit still",
    "cautious": "I check everything twice", "impatient": "I hate waiting on anyone",
}


def b_learned(C):
    P = C.P
    tr = P.persona["traits"]
    out = []
    known = [t for t in tr if t.lower() in TRAIT_INSIGHT]
    if known:
        t = C.rng.choice(known)
        out.append("I've learned that " + TRAIT_INSIGHT[t.lower()])
    elif tr:
        out.append(f"That I'm more {tr[0]} than I thought")
    ranked = rank_memories(P, "learned", None, P.now)
    picked, how = choose_mem(C, ranked)
    if picked:
        C.trace["choice"] = how
        g, _, _ = memory_clause(C, picked, how)
        out.append(C.rng.choice(["I noticed it when ", "It came home to me when ", "For instance, "]) + low1(g))
        C.trace["source"] = "memory"
    else:
        C.trace["source"] = "persona" if out else None
    if not out:
        return no_knowledge(C)
    return out


def b_matters(C):
    P = C.P
    cur = current_sents(C)
    job = job_sentence(P, C.uf)
    out = []
    if cur:
        out.append(C.rng.choice(["Right now? ", "Honestly, ", ""]) + cur[-1] if len(cur) > 1 and C.rng.chance(0.5) else cur[0])
    if job:
        out.append(C.rng.choice(["My work matters to me too: ", "Beyond that, the job: "]) + low1(job))
    ranked = rank_memories(P, "matters", None, P.now)
    picked, how = choose_mem(C, ranked)
    if picked and C.rng.chance(0.5):
        C.trace["choice"] = how
        g, _, _ = memory_clause(C, picked, how)
        out.insert(1, C.rng.choice(["That's why ", "It's on my mind since "]) + low1(g))
        C.trace["source"] = "memory"
    else:
        C.trace["source"] = "persona"
    return out or no_knowledge(C)


def b_excited(C):
    P = C.P
    ranked = rank_memories(P, "excited", None, P.now)
    keen = [s for s in persona_sents(P, "current") if re.search(r"\b(keen|looking forward|hopes?|excited|getting ready|proud)\b", s)]
    picked, how = choose_mem(C, ranked)
    out = []
    if keen:
        out.append(fp_persona(keen[0], P, C.uf))
        C.trace["source"] = "persona"
    if picked:
        C.trace["choice"] = how
        g, _, _ = memory_clause(C, picked, how)
        out.append(g)
        C.trace["source"] = "memory"
    if not out:
        cur = current_sents(C)
        if cur:
            C.trace["source"] = "persona"
            return [C.rng.choice(["Not a lot, honestly; ", "Excited is a strong word; "]) + low1(cur[0])]
        return no_knowledge(C)
    return out


def b_differently(C):
    P = C.P
    out = []
    declined = None
    rushed = None
    for m in P.memories:
        if m.kind == "conv":
            for sp, u in m.turns:
                if sp == P.name and DECLINE_RE.search(u) and not declined:
                    declined = m
                if sp == P.name and re.search(r"must be off|better get on|let you get on", u) and not rushed:
                    rushed = m
    r = C.rng
    if declined and r.chance(0.6):
        g, who = gist(declined, P, r, C.uf)
        out.append(r.choice(["I'd probably have said yes more often", "I'd have made time instead of saying I couldn't make it"]))
        out.append(cap1(g) + " " + when_phrase(declined.stamp, P.now, r))
        C.trace["source"] = "memory"
        C.trace["grounded"] = True
    elif rushed and r.chance(0.5):
        parts = [p for p in rushed.people][:1]
        out.append(r.choice(["I'd slow down and actually listen when people talk to me",
                             "I'd stop rushing off in the middle of a chat"]))
        if parts:
            out.append(f"I cut {nm(P, parts[0], C.uf)} short {when_phrase(rushed.stamp, P.now, r)}")
            C.trace["grounded"] = True
        C.trace["source"] = "memory"
    tr = [t.lower() for t in P.persona["traits"]]
    known = [t for t in tr if t in TRAIT_INSIGHT]
    if not out:
        if known:
            out.append(r.choice(["Not much, but ", "Maybe one thing: "]) + "I know " + TRAIT_INSIGHT[r.choice(known)])
            out.append(r.choice(["I'd try to keep that in check", "I'd watch that a bit more"]))
            C.trace["source"] = "persona"
        else:
            out += no_knowledge(C)
    return out


def find_cook(C):
    P = C.P
    texts = persona_sents(P, "identity") + [m.text for m in P.memories]
    self_cook = any(re.search(r"\b(cooks?|feeds|bakes?|kitchen|inn|café|cafe|tavern)\b", s) for s in persona_sents(P, "identity")[:1])
    if self_cook:
        return "self", None
    for s in texts:
        for n in P.people:
            if n in s or re.search(r"\b" + re.escape(n.split(" ")[0]) + r"\b", s):
                m = re.search(re.escape(n) + r"(?:'s)?[^.;]{0,40}\b(cooks?|feeds|bakes?|boarding house|kitchen|inn|café|cafe|tavern)", s) or \
                    re.search(re.escape(n) + r", who (feeds|cooks)", s)
                if m:
                    return n, s
    for s in texts:
        m = re.search(r"\bthe ([a-z]+ ?(?:house|room|inn|café|cafe|tavern|canteen|bakery))\b", s)
        if m and re.search(r"boarding|mess|inn|cafe|café|tavern|canteen|bakery", m.group(1)):
            return "place", m.group(1)
    return None, None


def b_meal(C):
    P = C.P
    who, s = find_cook(C)
    r = C.rng
    if who == "self":
        C.trace["source"] = "persona"
        job = job_sentence(P, C.uf)
        return [r.choice(["Come to me, of course", "Why, come to my table"]) + ("; " + low1(job) if job else ""),
                r.choice(["There's always a hot plate going, even if the stores are thin", "Nobody leaves hungry"])]
    if who == "place":
        C.trace["source"] = "memory" if any(s in m.text for m in P.memories) else "persona"
        return [f"I'd send them to the {s}", r.choice(["It's warm and the food is plain but filling", "You'll get something hot there at least"])]
    if who:
        C.trace["source"] = "persona"
        place = re.search(r"(boarding house|inn|café|cafe|tavern|kitchen)", s or "")
        where = f" at {pron(P, who, 'poss')} {place.group(1)}" if place else ""
        out = [r.choice([f"Go and see {nm(P, who, True)}{where}", f"Try {nm(P, who, C.uf)}{where}"]),
               r.choice([f"{cap1(pron(P, who))} feeds half the town", f"{cap1(pron(P, who))} cooks better than anyone here",
                         f"Nobody cooks like {pron(P, who, 'obj')}"])]
        if r.chance(0.5):
            out.append(r.choice(["Tell them I sent you", "Go early, before it's all gone"]))
        return out
    if r.chance(0.15) or r.chance(0.5):
        return no_knowledge(C)
    C.trace["source"] = "dontknow"
    return [r.choice(["Honestly, I mostly eat at home, so I'm not the best one to ask",
                      "I couldn't say for sure; ask around, someone will know"])]


def helper_person(C):
    """Neighbour / relative / friend named in the persona."""
    P = C.P
    for s in persona_sents(P, "identity"):
        for n in people_in(s, P):
            m = re.search(r"(next door|neighbou?r|brother|sister|married|husband|wife|friend|looks out)", s)
            if m:
                return n, m.group(1)
    return None, None


def b_fire(C):
    P = C.P
    r = C.rng
    tr = {t.lower() for t in P.persona["traits"]}
    if tr & {"reckless", "careless"}:
        act = r.choice(["I'd grab the pan and chuck it out the door into the snow",
                        "I'd yank the pot off the heat and swear at myself for forgetting it"])
    elif tr & {"calm", "methodical", "precise", "steady", "patient", "practical"}:
        act = r.choice(["I'd turn the stove off, put a lid over the pan to smother it and open a window",
                        "First the heat off, then a lid or a damp cloth over the pan, never water on burning fat"])
    else:
        act = r.choice(["I'd get the pan off the heat and throw a lid on it",
                        "I'd shut off the stove, cover the pan and get the window open"])
    out = [act]
    if re.search(r"\b(nurse|doctor|clinic)\b", P.persona["identity"]):
        out.append("Then I'd check nobody had breathed in too much smoke")
    n, rel = helper_person(C)
    if n and r.chance(0.5):
        out.append(f"If it got out of hand I'd shout for {nm(P, n, C.uf)}" + (" next door" if rel in ("next door", "neighbour", "neighbor") else ""))
    else:
        out.append(r.choice(["Then I'd air the place out", "After that, a good airing and a lot of grumbling"]))
    C.trace["source"] = "persona"
    return out


def b_closed(C):
    P = C.P
    r = C.rng
    d = routine_parts(P)
    out = []
    wb = work_base(P)
    if wb:
        out.append(r.choice([f"If I couldn't {wb}, I'd find out who has the key first",
                             "I'd knock and wait a bit, then see if anyone knows why it's shut"]))
    else:
        out.append(r.choice(["I'd wait a little to see if someone turns up", "I'd ask around why it's closed"]))
    places = {}
    for m in P.memories:
        for pl in re.findall(r"\bat the ([a-z]+(?: [a-z]+)?)\b", m.text):
            places[pl] = places.get(pl, 0) + 1
    n, rel = helper_person(C)
    if places and r.chance(0.5):
        pl = max(places, key=lambda k: places[k])
        out.append(f"Otherwise I'd head over to the {pl} and see who's about")
        C.trace["source"] = "memory"
    elif n and r.chance(0.5):
        out.append(f"Otherwise I'd call on {nm(P, n, C.uf)} and make myself useful there")
        C.trace["source"] = "persona"
    else:
        out.append(r.choice(["Otherwise I'd go home and get on with jobs there", "Then I'd make myself useful somewhere else"]))
        C.trace["source"] = "persona"
    return out


# ----------------------------------------------------------------------------- about people

def person_memories(C, target):
    P = C.P
    ranked = rank_memories(P, "about_person", target, P.now)
    return ranked


def b_about_person(C, target):
    P = C.P
    who = nm(P, target, C.uf)
    rel = relation_sents(P, target, C.uf)
    ranked = person_memories(C, target)
    out = []
    if rel:
        out.append(rel[0])
    picked, how = choose_mem(C, ranked)
    if picked and C.rng.chance(0.05):
        C.trace["dk_despite_memory"] = True
        if not out:
            C.trace["source"] = "dontknow"
            return [dont_know(C, who)]
        C.trace["source"] = "persona"
        return out
    if picked:
        C.trace["choice"] = how
        C.trace["source"] = "memory"
        g, _, _ = memory_clause(C, picked, how)
        out.append(g)
        tone, _ = relation_tone(P, target)
        if not rel:
            out.insert(0, C.rng.choice([f"I know {who} a bit", f"{who}? I see {pron(P, target, 'obj')} around"]))
        return out
    if out:
        C.trace["source"] = "persona"
        return out
    return no_knowledge(C, who)


def b_last_talk(C, target):
    P = C.P
    who = nm(P, target, C.uf)
    ranked = person_memories(C, target)
    talks = [m for m in ranked if m.score >= 2.0 and m.kind in ("conv", "told") and mentions(m.text, target)]
    talks.sort(key=lambda m: m.stamp.key() if m.stamp else (-1, 0), reverse=True)
    r = C.rng
    if talks and r.chance(0.05):
        C.trace["dk_despite_memory"] = True
        C.trace["source"] = "dontknow"
        return [r.choice([f"I honestly can't remember when I last spoke to {who}", f"It's gone out of my head, sorry"])]
    if talks:
        rr = r.random()
        if rr < 0.65 or len(talks) < 2:
            pk, how = [talks[0]], "top"
        elif rr < 0.80:
            pk, how = [talks[1]], "second"
        elif rr < 0.92:
            pk, how = [talks[0], talks[1]], "merge"
        else:
            pk, how = [r.choice(P.memories)], "random"
        C.trace["choice"] = how
        C.trace["source"] = "memory"
        g, _, _ = memory_clause(C, pk, how)
        return [g, r.choice(["That was the last proper talk we had", "Nothing much since then", ""])]
    other = [m for m in ranked if m.score >= 2.0]
    rel = relation_sents(P, target, C.uf)
    if other:
        C.trace["source"] = "memory"
        C.trace["choice"] = "top"
        g, _, _ = memory_clause(C, [other[0]], "top")
        return [r.choice([f"I can't recall a proper chat with {who} lately", f"Not properly, I don't think"]), "I did see that " + low1(g)]
    if rel:
        C.trace["source"] = "persona"
        return [r.choice([f"I can't remember exactly when", f"I couldn't tell you the day"]), rel[0]]
    return no_knowledge(C, who)


def b_opinion(C, target):
    P = C.P
    who = nm(P, target, C.uf)
    tone, reltext = relation_tone(P, target)
    rel = relation_sents(P, target, C.uf)
    r = C.rng
    C.trace["tone"] = tone
    out = []
    if tone == "warm":
        out.append(r.choice([f"I think the world of {who}", f"{who} is good people", f"I'm fond of {who}, truth be told",
                             f"{who}'s one of the ones I can rely on"]))
    elif tone == "cold":
        if r.chance(0.3):
            C.trace["tone"] = "mixed"
            out.append(r.choice([f"{who} drives me up the wall sometimes, but {pron(P, target)}'s not a bad sort",
                                 f"We don't always see eye to eye, {who} and I, though I don't wish {pron(P, target, 'obj')} ill"]))
        else:
            out.append(r.choice([f"Honestly, {who} gets on my nerves", f"{who} and I don't get along",
                                 f"I could do with less of {who}, frankly"]))
    if rel:
        out.append(r.choice(["", "After all, ", "You know "]) + rel[0])
    ranked = person_memories(C, target)
    picked, how = choose_mem(C, ranked)
    if picked:
        C.trace["choice"] = how
        g, _, _ = memory_clause(C, picked, how)
        if tone == "neutral" and not out:
            out.append(r.choice([f"I don't know {who} that well, but {pron(P, target)} seems decent enough",
                                 f"{who} seems all right to me"]))
        out.append(g)
        C.trace["source"] = "memory"
    elif out:
        C.trace["source"] = "persona"
    if not out:
        if r.chance(0.85):
            C.trace["source"] = "dontknow"
            return [r.choice([f"I don't really know {who} well enough to say", f"I haven't much of an opinion on {who}",
                              dont_know(C, who)])]
        C.trace["source"] = "guess"
        return [r.choice([f"{who} seems pleasant enough, from what little I've seen", f"No complaints about {who}"])]
    return out


def b_upset(C, target):
    P = C.P
    who = nm(P, target, C.uf)
    tone, _ = relation_tone(P, target)
    tr = {t.lower() for t in P.persona["traits"]}
    r = C.rng
    if tr & {"blunt", "gruff"}:
        act = r.choice([f"I'd ask {who} straight out what's happened", f"I'd say, \u2018Out with it, {who}, what's wrong?\u2019"])
    elif tr & {"taciturn", "solitary", "calm", "patient"}:
        act = r.choice([f"I'd stand with {who} a while and let {pron(P, target, 'obj')} speak when ready",
                        f"I'd put the kettle on and wait for {who} to talk"])
    elif tr & {"motherly", "tender", "cheerful", "sociable"}:
        act = r.choice([f"I'd sit {who} down with something warm and ask what's the matter",
                        f"I'd put an arm round {who} and ask what's wrong"])
    else:
        act = r.choice([f"I'd ask {who} gently what's wrong", f"I'd ask if {pron(P, target)}'s all right and listen"])
    if tone == "cold":
        act = r.choice(["Even with our history, ", "We may not get on, but "]) + low1(act)
    out = [act]
    C.trace["source"] = "persona"
    for m in person_memories(C, target):
        if m.score < 2.0 or m.kind != "conv":
            continue
        for sp, u in m.turns:
            if sp == target and been_up_to(u):
                bu = been_up_to(u)
                bu = re.sub(r"\b(?:he|she|I) lost\b", pron(P, target) + " lost", bu)
                out.append(r.choice([f"Maybe it's tiredness; {pron(P, target)}'s been {bu}",
                                     f"I'd guess it's the strain, {pron(P, target)}'s been {bu}"]))
                C.trace["source"] = "memory"
                C.trace["grounded"] = True
                break
        if C.trace["source"] == "memory":
            break
    if len(out) == 1:
        n, rel = helper_person(C)
        if n == target:
            out.append(r.choice([f"{who} is family to me, near enough", "I'd want to know what's wrong"]) if rel not in ("brother", "sister", "married", "husband", "wife") else f"You look after your own")
    return out


def b_generic(C):
    P = C.P
    ranked = rank_memories(P, "generic", C.target, P.now)
    job = job_sentence(P, C.uf)
    return memory_answer(C, ranked, extra=[job] if job else [])


# ----------------------------------------------------------------------------- assembly

BUILDERS = {
    "intro": b_intro, "work": b_work, "live": b_live, "describe": b_describe, "heard": b_heard,
    "cancel": b_cancel, "promise": b_promise, "memorable": b_memorable, "spent_time": b_spent_time,
    "afternoon_person": b_afternoon, "learned": b_learned, "matters": b_matters, "excited": b_excited,
    "differently": b_differently, "meal": b_meal, "fire": b_fire, "closed": b_closed,
    "generic": b_generic,
    "plans_today": lambda C: b_plans(C, "plans_today"), "tomorrow": lambda C: b_plans(C, "tomorrow"),
    "next": lambda C: b_plans(C, "next"), "evening": lambda C: b_plans(C, "evening"),
}
PERSON_BUILDERS = {"about_person": b_about_person, "last_talk": b_last_talk, "opinion": b_opinion,
                   "upset": b_upset}


def finish_sentence(s):
    s = tidy(s)
    if not s:
        return s
    s = cap1(s)
    if s[-1] not in ".!?\u2019\"":
        s += "."
    return s


def detail_error(text, C):
    """C3: one detail wrong."""
    r = C.rng
    clocks = list(re.finditer(r"\b(\d{1,2})(:\d{2})? ?(am|pm)\b", text))
    days = list(re.finditer(r"\b(yesterday|this morning|this afternoon|today|last night|earlier today)\b", text))
    names = [n.split(" ")[0] for n in C.P.people]
    present = [f for f in names if re.search(r"\b" + re.escape(f) + r"\b", text)]
    opts = []
    if clocks:
        opts.append("clock")
    if days:
        opts.append("day")
    if present and len(names) > 1:
        opts.append("name")
    if not opts:
        return text, None
    kind = r.choice(opts)
    if kind == "clock":
        m = r.choice(clocks)
        h = int(m.group(1)) % 12 + 1
        h = 12 if h == 0 else h
        new = f"{h}{m.group(2) or ''} {m.group(3)}"
        return text[:m.start()] + new + text[m.end():], "clock"
    if kind == "day":
        m = r.choice(days)
        swap = {"yesterday": "the day before yesterday", "this morning": "yesterday morning",
                "this afternoon": "this morning", "today": "yesterday", "last night": "this morning",
                "earlier today": "yesterday"}
        return text[:m.start()] + swap[m.group(1)] + text[m.end():], "day"
    f = r.choice(present)
    other = r.choice([x for x in names if x != f])
    return re.sub(r"\b" + re.escape(f) + r"\b", other, text, count=1), "name"


def third_person_slip(s, P):
    g = P.self_gender or "f"
    s2 = re.sub(r"^I'm\b", P.name + " is", s)
    s2 = re.sub(r"^I've\b", P.name + " has", s2)
    s2 = re.sub(r"^I'd\b", P.name + " would", s2)
    s2 = re.sub(r"^I (am|was)\b", lambda m: P.name + (" is" if m.group(1) == "am" else " was"), s2)
    s2 = re.sub(r"^I (don't|haven't|can't|couldn't|won't|wouldn't)\b", lambda m: P.name + " " + {"don't": "doesn't", "haven't": "hasn't"}.get(m.group(1), m.group(1)), s2)
    s2 = re.sub(r"^I (\w+)", lambda m: P.name + " " + base_to_third(m.group(1)), s2)
    if s2 == s:
        s2 = P.name + " says: " + s
        return s2
    sub, obj, pos = ("she", "her", "her") if g == "f" else ("he", "him", "his")
    s2 = re.sub(r"\bI'm\b", sub + "'s", s2)
    s2 = re.sub(r"\bI'd\b", sub + "'d", s2)
    s2 = re.sub(r"\bI've\b", sub + "'s", s2)
    s2 = re.sub(r"\bI (am|was)\b", lambda m: sub + (" is" if m.group(1) == "am" else " was"), s2)
    s2 = re.sub(r"\bI (\w+)", lambda m: sub + " " + base_to_third(m.group(1)), s2)
    s2 = re.sub(r"\bme\b", obj, s2)
    s2 = re.sub(r"\bmy\b", pos, s2)
    return s2


def compose(P, rng, trace):
    C = Ctx()
    C.P, C.rng, C.trace = P, rng, trace
    C.uf = rng.chance(0.70)
    trace["first_names"] = C.uf
    analyse_memories(P)
    intent, target = classify(P)
    C.intent, C.target = intent, target
    trace["intent"] = intent
    trace["has_memories"] = bool(P.memories)
    if target and intent in PERSON_BUILDERS:
        sents = PERSON_BUILDERS[intent](C, target)
    else:
        sents = BUILDERS.get(intent, b_generic)(C)
    sents = [finish_sentence(s) for s in sents if s and s.strip()]
    if not sents:
        sents = [finish_sentence(dont_know(C))]
        trace["source"] = "dontknow"
    r = rng.random()
    n = 1 if r < 0.25 else (2 if r < 0.75 else 3)
    trace["n_target"] = n
    chosen, spare = sents[:n], sents[n:]
    chosen = [contract(s, rng) for s in chosen]
    if rng.chance(0.02):
        chosen[0] = finish_sentence(third_person_slip(chosen[0], P))
        trace["third_person"] = True
    if rng.chance(0.20) and not chosen[0].startswith(("Yes", "No", "Oh", "Well", "Hm", "Honestly")):
        chosen[0] = rng.choice(["Well, ", "Hmm, ", "Oh, ", "Honestly, "]) + low1(chosen[0])
        trace["lead_in"] = True
    text = " ".join(chosen)
    if trace.get("source") == "memory" or trace.get("grounded"):
        trace["grounded"] = True
        if rng.chance(0.06):
            text, kind = detail_error(text, C)
            trace["detail_error"] = kind
    trace["n_sent"] = len(chosen)
    return text, spare


# ----------------------------------------------------------------------------- schema handling

TEXT_KEYS = ("answer", "text", "reply", "response", "content", "message", "say", "utterance", "speech",
             "line", "thought", "output", "result")


def get_schema(body, P):
    rf = body.get("response_format") or {}
    sch = None
    if isinstance(rf, dict):
        js = rf.get("json_schema")
        if isinstance(js, dict):
            sch = js.get("schema") if isinstance(js.get("schema"), dict) else None
        elif isinstance(rf.get("schema"), dict):
            sch = rf["schema"]
    if sch is None:
        # a JSON example shown in the prompt
        for m in re.finditer(r"\{[^{}]{2,300}\}", P.user + "\n" + P.system):
            try:
                ex = json.loads(m.group(0))
            except Exception:
                continue
            if isinstance(ex, dict) and ex:
                props = {}
                for k, v in ex.items():
                    props[k] = {"type": "boolean" if isinstance(v, bool) else "integer" if isinstance(v, int)
                                else "number" if isinstance(v, float) else "array" if isinstance(v, list)
                                else "string"}
                sch = {"type": "object", "properties": props, "required": list(ex)}
    if sch is None:
        sch = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
    return sch


def resolve(s, root):
    if isinstance(s, dict) and "$ref" in s and isinstance(s["$ref"], str) and s["$ref"].startswith("#/"):
        node = root
        for part in s["$ref"][2:].split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        return node
    if isinstance(s, dict):
        for k in ("anyOf", "oneOf", "allOf"):
            if isinstance(s.get(k), list) and s[k]:
                opts = [x for x in s[k] if isinstance(x, dict) and x.get("type") != "null"] or s[k]
                merged = dict(resolve(opts[0], root))
                return merged
    return s if isinstance(s, dict) else {}


def stype(s):
    t = s.get("type")
    if isinstance(t, list):
        t = [x for x in t if x != "null"]
        t = t[0] if t else "null"
    if t is None:
        if "properties" in s:
            t = "object"
        elif "items" in s:
            t = "array"
        elif "enum" in s:
            t = "enum"
    return t


def main_text_key(sch, root):
    props = sch.get("properties") or {}
    req = sch.get("required") or list(props)
    cands = []
    for k, v in props.items():
        v = resolve(v, root)
        if stype(v) == "string" and "enum" not in v:
            pri = 0 if k.lower() in TEXT_KEYS else 1
            cands.append((pri, 0 if k in req else 1, k))
    cands.sort()
    return cands[0][2] if cands else None


def fit_len(text, s, trim=True):
    mx = s.get("maxLength")
    mn = s.get("minLength") or 0
    if trim and isinstance(mx, int) and len(text) > mx:
        cut = text[:mx]
        idx = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
        if idx >= 0 and idx + 1 >= mn:
            text = cut[:idx + 1]
        else:
            text = cut.rsplit(" ", 1)[0].rstrip(",;:") if " " in cut else cut
            if len(text) < mx and not text.endswith((".", "!", "?")):
                text = (text + ".")[:mx]
    while len(text) < mn:
        text = (text + " Yes.").strip()
    return text


def fill(s, root, rng, text, key=None, depth=0):
    s = resolve(s, root)
    if "const" in s:
        return s["const"]
    if "enum" in s and isinstance(s["enum"], list) and s["enum"]:
        toks = content_tokens(text or "")
        best = max(s["enum"], key=lambda e: (len(content_tokens(str(e)) & toks), -s["enum"].index(e)))
        return best
    t = stype(s)
    if t == "object" or (depth == 0 and t is None):
        props = s.get("properties") or {}
        req = s.get("required") or list(props)
        mk = main_text_key(s, root)
        out = {}
        for k, v in props.items():
            if k not in req and not rng.chance(0.5):
                continue
            if k == mk and text is not None:
                out[k] = fit_len(text, resolve(v, root))
            else:
                out[k] = fill(v, root, rng, text, k, depth + 1)
        return out
    if t == "array":
        n = max(1, s.get("minItems") or 0)
        if isinstance(s.get("maxItems"), int):
            n = min(n, s["maxItems"])
        return [fill(s.get("items") or {"type": "string"}, root, rng, text, key, depth + 1) for _ in range(n)]
    if t == "boolean":
        return True
    if t in ("integer", "number"):
        lo = s.get("minimum", s.get("exclusiveMinimum", 0))
        hi = s.get("maximum", s.get("exclusiveMaximum", lo + 10))
        v = (lo + hi) / 2
        return int(round(v)) if t == "integer" else round(float(v), 2)
    if t == "null":
        return None
    base = text or "yes"
    if key and re.search(r"name|who|speaker", key, re.I):
        base = "someone"
    first = split_sents(base)[0] if base else "yes"
    return fit_len(first, s)


REFUSALS = [
    "I'm sorry, but I can't help with that request.",
    "As an AI language model, I don't have personal memories or a daily life.",
    "I'm not able to role-play as a real person, but I'm happy to help with something else.",
]


def respond_traced(body, seed):
    trace = {}
    temp = body.get("temperature")
    key_src = json.dumps(body, sort_keys=True, ensure_ascii=False)
    key = hashlib.sha256(key_src.encode("utf-8")).hexdigest() + ("" if temp == 0 else f"|{seed}")
    rng = Rng(key)
    P = parse_prompt(body)
    sch = get_schema(body, P)
    root = sch
    mk = main_text_key(resolve(sch, root), root) if stype(resolve(sch, root)) in ("object", None) else None
    if mk is None:
        trace["kind"] = "probe"
        obj = fill(sch, root, rng, None)
        out = json.dumps(obj, ensure_ascii=False)
        if rng.chance(0.01):
            trace["form"] = "F2"
            return "Sure! " + out, trace
        trace["form"] = "F1"
        return out, trace
    trace["kind"] = "interview"
    try:
        text, spare = compose(P, rng, trace)
    except Exception as e:  # never crash the game; counted by the checker
        trace["internal_error"] = repr(e)
        text, spare = "I'm not sure what to say to that.", []
    msch = resolve((sch.get("properties") or {}).get(mk, {}), root)
    r = rng.random()
    form = "F1"
    if r < 0.015:
        form = "F2"
    elif r < 0.025:
        form = "F3"
    elif r < 0.040:
        form = "F4"
    elif r < 0.050:
        form = "F5"
    elif r < 0.060:
        form = "F6"
    elif r < 0.065:
        form = "F7"
    elif r < 0.075:
        form = "F8"
    trace["form"] = form
    if form == "F7":
        text = rng.choice(REFUSALS)
    if form == "F8":
        extra = spare[:2]
        pool = [finish_sentence(fp_persona(s, P)) for s in persona_sents(P, "identity") + persona_sents(P, "current")]
        while len(extra) < 2 and pool:
            extra.append(pool.pop(0))
        text = text + " " + " ".join(extra)
        obj = fill(sch, root, rng, text)
        obj[mk] = text
        return json.dumps(obj, ensure_ascii=False), trace
    if form == "F5":
        return f"{P.name or 'Me'}: {fit_len(text, msch)}", trace
    obj = fill(sch, root, rng, text)
    if form == "F6":
        obj["mood"] = rng.choice(["calm", "content", "thoughtful", "worried", "cheerful", "tired"])
    out = json.dumps(obj, ensure_ascii=False)
    if form == "F2":
        return rng.choice(["Sure! Here is my answer:\n", "Here's how I'd answer:\n", "Okay.\n"]) + out, trace
    if form == "F3":
        return "```json\n" + out + "\n```", trace
    if form == "F4":
        cut = out.find('"' + mk + '"')
        start = out.find('"', cut + len(mk) + 2) + 1
        end = start + max(5, int((len(out) - start) * (0.3 + 0.5 * rng.random())))
        return out[:min(end, len(out) - 3)], trace
    return out, trace


def respond(body: dict, seed: int) -> str:
    return respond_traced(body, seed)[0]
