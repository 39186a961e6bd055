"""blind4: a blind, prompt-only stand-in chat model for NPC minds (issue 42, evaluation).

Written only from captured request bodies. Entry point: respond(body, seed) -> str.
Deterministic per (seed, messages): one random.Random seeded from sha256 of both.
All decisions read meaning (names of people found in the text, times and dates in any style,
places by schema enum values, else by words), never exact headings.

DECLARED RULES (rates chosen before any run; not to be tuned)
-------------------------------------------------------------
Reading the request
 R0  The speaker is the character the system/user text says it plays ("mind of X", "you are X",
     "Name: X", "point of view of X"); people are capitalised names that act in the text (or the
     schema's speaker/addressee enums). Each line of the prompt belongs to the person named by the
     nearest preceding heading-like line (a line ending in ":" or "Name: X" that names one person).
 R1  An *event* is a sentence (timestamps removed) that names a host doing something (wants to,
     is hosting, holds, invites, organises, throws, plans ...) AND has a day or a time in any style
     ("April 11", "2026-04-11", "11 April", "Saturday", "tomorrow", "tonight", "5 pm", "17:00",
     "half past five", "noon", "after work", "this afternoon", "at sundown"); schedules (three or
     more clock times, or a "plan for" line) are not events. An event already over is not news.
 R2  A plan block clashes with an event when they overlap in time. It is a *real commitment* when
     it names another person or an appointment/event/hosting/"going to"/meeting/visit; work,
     meals, chores, rest, sleep and leisure are *ordinary*.

Talking (plain-text turns, group turns, one-call conversation and group summaries)
 T1  Speaker holds news (an event it hosts or heard of) not yet mentioned in this conversation:
     brings it up on this turn with p = 0.70 if it hosts it, 0.55 if it is someone else's event.
     Wording: what+when+where p = 0.60, what+when p = 0.25, only what (vague) p = 0.15.
 T2  Partner's last line raises an event (news or an invitation) the speaker has not answered:
     - speaker's plan already holds the event ("going to", accepted earlier): confirms, p = 0.90;
     - speaker's memories say it declined / cannot go: declines again, p = 0.80;
     - invitation by the host (or "come"/"join" addressed to speaker) and the event's time is free
       or only ordinary activities: accepts p = 0.60, +0.10 if the traits are sociable-like,
       +0.10 if the speaker's memories/persona name the host, -0.15 if they never do;
       the rest: vague ("maybe, I'll see") 0.5 of it, decline the other 0.5;
     - clash with a real commitment: accepts p = 0.20, proposes another time p = 0.30, declines;
     - time unknown: accepts 0.30, vague 0.50, declines 0.20;
     - news of someone else's event passed on: says it means to go p = 0.40 when free
       (0.10 on a real-commitment clash), else just acknowledges.
     The plan shown is today's: an event on another day counts as free (unknown if untimed).
     News is not told to a partner who hosts it, nor to a group who all already know it.
 T3  Otherwise: no lines yet -> greeting/small talk; else says goodbye with p = 0.35 (2-3 lines so
     far), 0.60 (4-5), 0.90 (6+). Tag [end] after a goodbye, after a decline p = 0.30, else
     [continue]. One line so far: goodbye p = 0.15. Group turns address the partner whose line
     it answers, else the first partner or "everyone" (p = 0.5 each when telling news).
 T4  One-call conversation: they talk p = 0.90 if either holds news, else p = 0.55 (+0.10 if
     either one's memories name the other). Lines are simulated with T1-T3, the teller tells with
     p = 0.85 within the exchange. Group summary alike, talk p = 0.90 / 0.50.
Memos (conversation memo, memos inside summaries)
 M1  Owner accepted / said it will go in the lines: plan item (event day, start, minutes, place)
     p = 0.85 (forgets 0.15). Owner said "might go": p = 0.45. Declined: wrong plan item p = 0.03.
     Heard news, said nothing about going: p = 0.08. Owner hosts the event: plan item p = 0.25
     unless it is already in the owner's plan. Importance: event talk 5-7, small talk 2-3 (+-1).
Planning
 P1  Daily plan from the lifestyle (wake, work hours, bed), the home and work places by enum.
     Events today: hosted p = 0.90, accepted/going p = 0.80, only heard of p = 0.30, said it
     cannot go 0.05. Host with people still to tell at listed places: "asking people" block
     p = 0.50. Weekend (Sat/Sun) and lifestyle silent about it: day off p = 0.40.
     A re-plan (a schema with blocks but no wake hour): the same day plan from now on.
 P2  Decompose: 2-6 steps of 5-15 minutes using an enum object that fits the words (else "").
 P3  Revise status: old status kept; a commitment/event found in memories added p = 0.80.
Other kinds
 O1  React: options are those the prompt offers. Seen person not yet told of held news:
     talk p = 0.60; otherwise continue 0.65, talk 0.20, wait 0.10, react 0.05 (re-normalised).
 O2  Importance: mundane 1-3, social/news 4-7, grave (death, fire, wedding...) 8-9, +-1 noise.
 O3  Interview: knows a person named in persona/memories (tells what it remembers), else says
     it does not know (p = 0.90) or guesses vaguely (0.10); event questions answered from
     matching memories p = 0.85.
 O4  Reflection questions/insights, relationship: built from the named people and events.
 O5  Unknown schema: filled from the schema itself; unknown text request: one plausible line.
Malformed output (after the answer is made; probe is exempt)
 X1  JSON answers: truncated JSON p = 0.03, a refusal sentence p = 0.01, prose before the JSON
     p = 0.01, one enum value replaced by a near miss (e.g. short place name) p = 0.01.
 X2  Text answers: speaker's name in front p = 0.02, refusal p = 0.01, tag missing p = 0.02,
     the words wrapped in quotes p = 0.01.
 X3  Any internal error: a short plausible answer (an empty-plan JSON or a greeting line).
"""
import hashlib
import json
import random
import re
from datetime import date, timedelta

# ----------------------------------------------------------------------------- basics
MONTHS = {m: i + 1 for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"])}
MONTHS.update({k[:3]: v for k, v in list(MONTHS.items())})
MONTHS["sept"] = 9
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
NUMWORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
NOT_NAMES = set(WEEKDAYS) | set(MONTHS) | {
    "the", "what", "answer", "name", "age", "identity", "lifestyle", "currently", "innate",
    "today", "it", "places", "nobody", "have", "sounds", "sorry", "hi", "question", "someone",
    "rewrite", "plan", "break", "on", "if", "then", "in", "from", "things", "how", "keep", "say",
    "these", "step", "choose", "give", "should", "write", "each", "make", "objects", "who",
    "when", "where", "one", "yes", "no", "good", "see", "it's", "i", "a", "an", "and"}
STOP = set("""a an the and or but of to in on at for with from by is are was were be been it its
this that these those as into about over after before up down out he she they them their his her
i me my we our you your do does did has have had will would can could may might must shall should
not no so if then than there here just very also wants want going go get getting some any all
everyone who what when where which afternoon morning evening tonight today tomorrow heard have
pm am o'clock""".split())
SOCIABLE = re.compile(r"sociable|friendly|outgoing|jovial|energetic|talkative|cheerful|warm|"
                      r"generous|curious|lively|gregarious|kind|chatty|extrovert", re.I)
GRAVE = re.compile(r"\b(died|death|dead|funeral|fire|accident|wedding|married|engaged|pregnan|"
                   r"born|birth|fired|arrest|stolen|theft|injur|hospital|divorce|breakup|broke up|"
                   r"proposal|proposed|flood|storm)", re.I)
SOCIAL = re.compile(r"\b(conversation|heard|learned|news|invit|party|match|fair|festival|"
                    r"concert|dinner party|celebrat|event|hosting|going to|count me in|told|said|"
                    r"meet|game|show|market|dance|quiz|feast|picnic|gathering|service|meeting|"
                    r"wants to|plans to|decided)", re.I)
HOST_VERB = (r"(?:wants? to|is hosting|hosts?\b|is holding|holds?\b|invites?|is inviting|"
             r"is organi[sz]ing|organi[sz]es|is throwing|throws|is planning|plans? to|plans? a|"
             r"is putting on|puts on|is getting up|gets up|is running a|runs a|is having an?|"
             r"is arranging|arranges|is starting|will hold|will host|is giving|gives an?|"
             r"is celebrating|celebrates|is setting up|sets up|is calling|calls a|announced|"
             r"is announcing|is leading|leads an?|will be holding|'s hosting|is host(?:ing)? of)")
ACCEPT = re.compile(r"count me in|i'?ll be there|i will be there|i'?d love to|i would love to|"
                    r"i'?ll come|i will come|i'?ll go\b|i will go\b|see you there|wouldn'?t miss|"
                    r"\bi'?m in\b|i'?ll join|i can make it|i'?ll make it|i'?m coming|"
                    r"i'?ll be coming|i mean to go|i'?m going|i'?ll definitely|yes,? i'?ll|"
                    r"save me a|i'?ll be along|i'?ll pop|i'?ll drop by|i'?ll head over", re.I)
MAYBE = re.compile(r"\bmight (go|come|pop|drop|look|head)|\bmay (go|come)|maybe i'?ll|"
                   r"i'?ll try to|i'?ll see if|perhaps i'?ll|might make it|i'?ll think", re.I)
DECLINE = re.compile(r"can'?t|cannot|can not|won'?t be able|not able to|other plans|"
                     r"\bsorry\b|afraid i|no,? thanks|i'?ll pass|another time|won'?t make|"
                     r"not going|unable|must decline|have to miss|can'?t go|cannot go", re.I)
COMMIT = re.compile(r"hosting|going to|appointment|meeting|meet\b|meets\b|visit|calling on|"
                    r"event|party|match|lesson|class\b|service|rehearsal|date with|dinner with|"
                    r"lunch with|interview|ceremony|wedding|funeral|concert|fair|game|with ", re.I)
ORDINARY = re.compile(r"work|busy|shift|lunch|breakfast|dinner|meal|relax|rest|home|sleep|nap|"
                      r"chore|clean|read|walk|tend|day off|getting ready|waking|wake|bath|cook|"
                      r"garden|knit|brew|sort|counter|shop|open|clos|teach|mark|bak|serv", re.I)


class Ctx:
    pass


def _rng(body, seed):
    try:
        msgs = json.dumps(body.get("messages", []), sort_keys=True, ensure_ascii=True)
    except Exception:
        msgs = repr(body)
    h = hashlib.sha256((str(seed) + "|" + msgs).encode("utf-8", "replace")).hexdigest()
    return random.Random(int(h[:16], 16))


def _p(r, p):
    return r.random() < p


def _first(name):
    return name.split()[0] if name else "friend"


def _clean(s, n=None):
    s = re.sub(r"\s+", " ", str(s or "")).strip()
    if n and len(s) > n:
        s = s[:n].rsplit(" ", 1)[0].rstrip(",;:") if " " in s[:n] else s[:n]
    return s


# ----------------------------------------------------------------------------- time & dates
def _hm(h, m=0):
    return "%02d:%02d" % (int(h) % 24, int(m) % 60)


_CLOCK = re.compile(
    r"\b(\d{1,2})(?:[:.h](\d{2}))?\s*(a\.?m\.?|p\.?m\.?|o'?clock)(?![a-z])|\b(\d{1,2})[:h](\d{2})\b",
    re.I)


def parse_times(text, ctx_words=""):
    """All clock times in text as minutes since midnight, in order (any common style)."""
    out = []
    t = text
    for m in _CLOCK.finditer(t):
        if m.group(4) is not None:
            h, mi = int(m.group(4)), int(m.group(5))
            if h > 23 or mi > 59:
                continue
            out.append((m.start(), h * 60 + mi))
        else:
            h = int(m.group(1))
            mi = int(m.group(2) or 0)
            suf = m.group(3).lower().replace(".", "")
            if h > 23 or mi > 59:
                continue
            if suf.startswith("p") and h < 12:
                h += 12
            elif suf.startswith("a") and h == 12:
                h = 0
            elif suf.startswith("o") and 1 <= h <= 6:
                h += 12
            out.append((m.start(), h * 60 + mi))
    low = t.lower()
    for m in re.finditer(r"\b(half|quarter) (past|to) (\w+)", low):
        w = m.group(3)
        h = NUMWORDS.get(w) or (int(w) if w.isdigit() else None)
        if not h:
            continue
        if 1 <= h <= 7:
            h += 12
        add = 30 if m.group(1) == "half" else 15
        mins = h * 60 + (add if m.group(2) == "past" else -add)
        out.append((m.start(), mins % 1440))
    for m in re.finditer(r"\b(%s) o'?clock" % "|".join(NUMWORDS), low):
        h = NUMWORDS[m.group(1)]
        out.append((m.start(), (h + 12 if h <= 7 else h) * 60))
    words = [(r"\bnoon\b|\bmidday\b|\blunchtime\b|\blunch time\b", 12 * 60),
             (r"\bmidnight\b", 0), (r"\bafter work\b|\bafter hours\b", 17 * 60 + 30),
             (r"\bsundown\b|\bsunset\b|\bdusk\b|\bnightfall\b", 19 * 60 + 30),
             (r"\bdawn\b|\bsunrise\b|\bfirst light\b", 6 * 60),
             (r"\btea ?time\b", 16 * 60)]
    for pat, v in words:
        for m in re.finditer(pat, low):
            out.append((m.start(), v))
    out.sort()
    return [v for _, v in out]


def part_of_day(text):
    low = text.lower()
    if re.search(r"\bmorning\b", low):
        return 10 * 60
    if re.search(r"\bafternoon\b", low):
        return 14 * 60
    if re.search(r"\bevening\b|\btonight\b", low):
        return 19 * 60
    if re.search(r"\bnight\b", low):
        return 20 * 60
    return None


def parse_range(text):
    """(start, end) minutes of the first time range, else (start, None)."""
    m = re.search(r"(\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?)\s*(?:-|–|to|until|till)\s*"
                  r"(\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?)", text, re.I)
    if m:
        a, b = m.group(1), m.group(2)
        if re.search(r"[ap]\.?m|:", a + b, re.I):
            if re.search(r"[ap]\.?m", b, re.I) and not re.search(r"[ap]\.?m|:", a, re.I):
                a = a + " " + re.search(r"([ap])\.?m", b, re.I).group(1) + "m"
            ta, tb = parse_times(a), parse_times(b)
            if ta and tb:
                return ta[0], tb[0]
    ts = parse_times(text)
    if ts:
        return ts[0], None
    return None, None


def parse_dates(text, ref):
    """All dates in text (explicit, weekday, relative to ref) in order of appearance."""
    out = []
    low = text.lower()
    year = ref.year if ref else 2026
    for m in re.finditer(r"\b(\d{4})-(\d{2})-(\d{2})\b", low):
        try:
            out.append((m.start(), date(int(m.group(1)), int(m.group(2)), int(m.group(3)))))
        except ValueError:
            pass
    mn = "|".join(sorted(MONTHS, key=len, reverse=True))
    for m in re.finditer(r"\b(%s)\.? (\d{1,2})(?:st|nd|rd|th)?\b" % mn, low):
        try:
            out.append((m.start(), date(year, MONTHS[m.group(1)], int(m.group(2)))))
        except ValueError:
            pass
    for m in re.finditer(r"\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?(%s)\b" % mn, low):
        try:
            out.append((m.start(), date(year, MONTHS[m.group(2)], int(m.group(1)))))
        except ValueError:
            pass
    for m in re.finditer(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b", low):
        try:
            out.append((m.start(), date(int(m.group(3)), int(m.group(2)), int(m.group(1)))))
        except ValueError:
            pass
    if ref:
        for m in re.finditer(r"\bday after tomorrow\b", low):
            out.append((m.start(), ref + timedelta(days=2)))
        for m in re.finditer(r"(?<!after )\btomorrow\b", low):
            out.append((m.start(), ref + timedelta(days=1)))
        for m in re.finditer(r"\btoday\b|\btonight\b|\bthis (?:morning|afternoon|evening)\b",
                             low):
            out.append((m.start(), ref))
        for m in re.finditer(r"\b(next )?(%s)\b" % "|".join(WEEKDAYS), low):
            wd = WEEKDAYS.index(m.group(2))
            d = (wd - ref.weekday()) % 7
            if m.group(1) and d == 0:
                d = 7
            out.append((m.start(), ref + timedelta(days=d)))
    out.sort(key=lambda x: x[0])
    # explicit dates first if any (a weekday next to an explicit date is the same day)
    return [d for _, d in out]


def explicit_or_first_date(text, ref):
    low = text.lower()
    ds = parse_dates(text, None)
    if ds:
        return ds[0]
    ds = parse_dates(text, ref)
    return ds[0] if ds else None


# ----------------------------------------------------------------------------- reading
def find_speaker(system, user):
    pats = [r"(?:inner )?mind of ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})",
            r"\b[Yy]ou are (?:playing |now )?([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})",
            r"\bplay(?:ing)? (?:the (?:role|part) of )?([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})",
            r"(?im)^\s*(?:name|character|npc)\s*[:\-]\s*([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})",
            r"point of view of ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})",
            r"([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})'s point of view"]
    for src in (system, user):
        for p in pats:
            m = re.search(p, src or "")
            if m:
                n = m.group(1).strip()
                n = re.sub(r",.*", "", n)
                if n.split()[0].lower() not in NOT_NAMES:
                    return n
    return ""


def find_people(text, schema_names, speaker):
    cands = {}
    for m in re.finditer(r"\b([A-Z][a-z'\-]+ [A-Z][a-z'\-]+)\b(?=(?:'s)? (?:is|was|wants|has|had|"
                         r"heard|learned|said|says|knows|keeps|runs|will|and|chatted|told|asks|"
                         r"means|can|cannot|sees|visits|invites|hosts|holds|started)\b|: \"|:\s*$"
                         r"|\?|!|,)", text, re.M):
        n = m.group(1)
        if n.split()[0].lower() in NOT_NAMES or n.split()[1].lower() in NOT_NAMES:
            continue
        cands[n] = cands.get(n, 0) + 1
    people = [n for n in schema_names if n and n.lower() != "everyone"]
    for n, c in sorted(cands.items(), key=lambda x: -x[1]):
        if re.search(r"\b(?:the|at|in|to) " + re.escape(n) + r"|:" + re.escape(n) + r"\b|" +
                     re.escape(n) + r":\S", text):
            continue
        if n not in people:
            people.append(n)
    if speaker and speaker not in people:
        people.insert(0, speaker)
    seen = []
    for p in people:
        if p not in seen:
            seen.append(p)
    return seen


def name_in(name, text):
    if not name:
        return False
    if name in text:
        return True
    f = _first(name)
    return len(f) > 2 and re.search(r"\b%s\b" % re.escape(f), text) is not None


def owners_of_lines(lines, people):
    """Attribute each line to the person named by the nearest heading-like line."""
    owner = None
    res = []
    for ln in lines:
        s = ln.strip()
        bullet = re.match(r"^(?:[-*•]|\d+[.)])\s", s) is not None
        m = re.match(r"^(?:name|character|npc)\s*[:\-]\s*(.+)$", s, re.I)
        if m:
            for p in people:
                if name_in(p, m.group(1)):
                    owner = p
                    break
        elif not bullet and (s.endswith(":") or (len(s) < 90 and re.search(
                r"\b(remembers?|planned|plans?|schedule|knows?|memories|recalls?|agenda)\b",
                s, re.I))):
            named = [(s.find(p) if p in s else s.find(_first(p)), p) for p in people
                     if name_in(p, s)]
            named = [x for x in named if x[0] >= 0]
            if named:
                owner = sorted(named)[0][1]
        res.append(owner)
    return res


def dialogue_blocks(lines):
    """Blocks of quoted speech lines; each with a flag: inside a memory bullet or not."""
    blocks = []
    cur = None
    pat = re.compile(r"^\s*([A-Z][\w'\-]+(?: [A-Z][\w'\-]+){0,2})\s*:\s*[\"“](.*)$")
    for i, ln in enumerate(lines):
        m = pat.match(ln)
        if m:
            if cur is None:
                prev = lines[i - 1].strip() if i > 0 else ""
                cur = {"start": i, "memory": bool(re.match(r"^(?:[-*•]|\d+[.)])\s", prev)),
                       "lines": []}
                blocks.append(cur)
            txt = m.group(2)
            txt = re.sub(r"[\"”]\s*$", "", txt)
            cur["lines"].append((m.group(1), txt))
        else:
            cur = None
    return blocks


def current_conversation(lines):
    blocks = dialogue_blocks(lines)
    for b in reversed(blocks):
        if not b["memory"]:
            return b["lines"]
    return []


def find_now(text):
    """Current date and time from a non-bullet sentence that gives a date (and maybe a time)."""
    for ln in text.split("\n"):
        s = ln.strip()
        if not s or re.match(r"^(?:[-*•]|\d+[.)])\s", s) or s.startswith("["):
            continue
        if re.search(r"\[[^\]]*\]", s):
            s = re.sub(r"\[[^\]]*\]", "", s)
        ds = parse_dates(s, None)
        if not ds:
            continue
        if not re.search(r"\b(it is|it's|today|now|current|this is)\b", s, re.I) and \
                not re.search(r"\b\d{1,2}:\d{2}\b", s):
            continue
        ts = parse_times(s)
        return ds[0], (ts[0] if ts else None)
    # fallback: the option marked today, or the latest timestamp
    m = re.search(r"(\d{4}-\d{2}-\d{2})\s*\(today", text)
    if m:
        return parse_dates(m.group(1), None)[0], None
    stamps = re.findall(r"\[([^\]]+)\]", text)
    best = None
    for st in stamps:
        ds = parse_dates(st, None)
        ts = parse_times(st)
        if ds:
            k = (ds[0], ts[0] if ts else 0)
            if best is None or k > best:
                best = k
    if best:
        return best
    return date(2026, 4, 10), 9 * 60


class Event:
    def __init__(self):
        self.host = ""
        self.what = ""
        self.desc = ""
        self.date = None
        self.start = None
        self.end = None
        self.place_words = ""
        self.knowers = set()
        self.sources = []


def content_words(s):
    return set(w for w in re.findall(r"[a-z][a-z'\-]{2,}", s.lower()) if w not in STOP)


def strip_stamps(s):
    ref = None
    m = re.match(r"^\s*(?:[-*•]|\d+[.)])?\s*[(\[{]([^)\]}]{3,40})[)\]}]", s)
    if m and (parse_dates(m.group(1), None) or parse_times(m.group(1))):
        ref = m.group(1)
        s = s[:m.start(1) - 1] + " " + s[m.end(1) + 1:]
    m = re.search(r"\[([^\]]+)\]", s)
    if m and ref is None:
        ref = m.group(1)
    return re.sub(r"\[[^\]]*\]", " ", s), ref


def extract_events(lines, owners, people, now_date):
    events = []
    for idx, ln in enumerate(lines):
        raw = ln.strip()
        if not raw:
            continue
        if len(re.findall(r"\d{1,2}:\d{2}", raw)) >= 3 or re.search(r"\bplan for\b|schedule:",
                                                                     raw, re.I):
            continue
        s, stamp = strip_stamps(raw)
        ref = now_date
        if stamp:
            ds = parse_dates(stamp, None)
            if ds:
                ref = ds[0]
        # sentence pieces
        for piece in re.split(r"(?<=[.!?])\s+(?=[A-Z])|;\s+", s):
            hv = None
            for p in people:
                m = re.search(re.escape(p) + r"(?:'s)?\s+" + HOST_VERB, piece)
                if m and (hv is None or m.start() < hv[0]):
                    hv = (m.start(), p, m.end())
            low = piece.lower()
            dts = parse_dates(piece, ref)
            tms = parse_times(piece)
            if hv is None:
                continue
            if not dts and not tms and part_of_day(piece) is None:
                continue
            if re.match(r"^\s*(?:[-*•]\s*)?(?:[A-Z][\w'\-]+ ){1,2}is (busy|having|relaxing|"
                        r"sleeping|waking|chatting|sorting)", piece) and not re.search(
                    HOST_VERB, piece):
                continue
            e = Event()
            e.host = hv[1]
            rest = piece[hv[2]:]
            vm = re.search(HOST_VERB, piece[hv[0]:]).group(0)
            cut = re.split(r"\s+(?:on|at|from|this|tomorrow|today|tonight|next|in the|by|"
                           r"between|after|before|around)\s+|,|\(|;|\.\s", rest)[0]
            e.what = _clean((vm + " " + cut.strip(" :")).strip(), 90)
            e.desc = _clean(piece, 300)
            exp = parse_dates(piece, None)
            e.date = exp[0] if exp else (dts[0] if dts else ref)
            st, en = parse_range(piece)
            if st is None:
                st = part_of_day(piece)
                if st == 14 * 60:
                    st = 15 * 60
            e.start, e.end = st, en
            e.place_words = piece
            own = owners[idx] if idx < len(owners) else None
            if own:
                e.knowers.add(own)
            e.sources.append(raw)
            e.times = [(st, en)] if st is not None else []
            events.append(e)
    # merge same events
    merged = []
    for e in events:
        cw = content_words(e.what) - set(w.lower() for p in people for w in p.split())
        for m in merged:
            mw = content_words(m.what) - set(w.lower() for p in people for w in p.split())
            if m.host == e.host and (len(cw & mw) >= min(2, len(cw), len(mw)) or not cw):
                m.knowers |= e.knowers
                m.sources += e.sources
                m.times += e.times
                if m.date is None:
                    m.date = e.date
                break
        else:
            merged.append(e)
    for m in merged:
        # the start most sources agree on; its most common end
        if m.times:
            starts = [t[0] for t in m.times]
            st = max(sorted(set(starts)), key=starts.count)
            ends = [t[1] for t in m.times if t[0] == st and t[1] is not None]
            m.start = st
            m.end = max(sorted(set(ends)), key=ends.count) if ends else None
    return merged


def mentioned(event, text):
    if not text:
        return False
    ew = content_words(event.what) - {"wants", "hosting", "host", "holding"}
    tw = content_words(text)
    if not ew:
        return False
    return len(ew & tw) >= max(1, min(2, len(ew) - 1))


def match_place(enum, text, r=None):
    """The enum value whose name parts best appear in text."""
    best, score = "", 0
    low = text.lower()
    for v in enum or []:
        if not v:
            continue
        parts = [p.strip().lower() for p in re.split(r"[:/>|,]", v) if p.strip()]
        sc = 0
        for i, p in enumerate(parts):
            if len(p) > 2 and re.search(r"\b%s\b" % re.escape(p), low):
                sc += len(p) + (2 if i == len(parts) - 1 else 0) + i
        if sc > score:
            best, score = v, sc
    return best


def plan_blocks(lines, owners, who):
    out = []
    for i, ln in enumerate(lines):
        if owners[i] != who:
            continue
        s = ln.strip()
        m = re.match(r"^(?:[-*•]\s*)?(\d{1,2}[:.]\d{2}|\d{1,2}\s*[ap]m)\s*(?:-|–|to)\s*"
                     r"(\d{1,2}[:.]\d{2}|\d{1,2}\s*[ap]m)\s*:?\s*(.*)$", s, re.I)
        if m:
            a = parse_times(m.group(1).replace(".", ":"))
            b = parse_times(m.group(2).replace(".", ":"))
            if a and b:
                out.append((a[0], b[0], m.group(3)))
    return out


def is_commitment(activity, people, who):
    a = re.sub(r"\((?:planned )?at [^)]*\)", "", activity)
    for p in people:
        if p != who and name_in(p, a):
            return True
    return bool(COMMIT.search(a)) and not re.match(r"^\s*(busy|having|relaxing|sleeping)", a)


def clash(blocks, start, end, people, who, ev=None):
    """'free' | 'ordinary' | 'commit' | 'same' (already going) | 'unknown'."""
    if start is None:
        return "unknown"
    end = end if end is not None else start + 90
    res = "free"
    for a, b, act in blocks:
        bb = b if b > a else b + 1440
        if a < end and start < bb:
            if ev is not None and (mentioned(ev, act) or re.search(r"going to|attending", act,
                                                                   re.I) and ev.host and
                                   name_in(ev.host, act)):
                return "same"
            if is_commitment(act, people, who):
                res = "commit"
            elif res == "free":
                res = "ordinary"
    return res


# ----------------------------------------------------------------------------- context
def build_ctx(body, r):
    c = Ctx()
    c.r = r
    msgs = body.get("messages") or []
    c.system = "\n".join(str(m.get("content") or "") for m in msgs if m.get("role") == "system")
    users = [str(m.get("content") or "") for m in msgs if m.get("role") != "system"]
    c.user = "\n".join(users)
    c.text = c.system + "\n" + c.user
    rf = body.get("response_format") or {}
    c.schema, c.kind = None, "text"
    if isinstance(rf, dict) and rf.get("type") == "json_schema":
        js = rf.get("json_schema") or {}
        c.schema = js.get("schema") or {}
        c.kind = js.get("name") or "json"
    elif isinstance(rf, dict) and rf.get("type") == "json_object":
        c.kind = "json"
        c.schema = {}
    c.defs = (c.schema or {}).get("$defs") or (c.schema or {}).get("definitions") or {}
    enums_names = []
    c.place_enum = []
    for sch in iter_schemas(c.schema, c.defs):
        props = sch.get("properties") or {}
        for k, v in props.items():
            en = v.get("enum") if isinstance(v, dict) else None
            if not en:
                continue
            if re.search(r"speaker|addressed|name|who|person|to$", k, re.I):
                enums_names += [x for x in en if isinstance(x, str)]
            if re.search(r"place|location|where", k, re.I) or k.lower() == "address":
                c.place_enum += [x for x in en if isinstance(x, str) and x not in c.place_enum]
    c.speaker = find_speaker(c.system, c.user)
    c.people = find_people(c.text, enums_names, c.speaker)
    if not c.speaker and c.people:
        c.speaker = c.people[0]
    c.lines = c.user.split("\n")
    c.owners = owners_of_lines(c.lines, c.people)
    c.now_date, c.now_time = find_now(c.user)
    c.events = extract_events(c.lines, c.owners, c.people, c.now_date)
    c.conv = current_conversation(c.lines)
    return c


def iter_schemas(s, defs, depth=0):
    if not isinstance(s, dict) or depth > 6:
        return
    if "$ref" in s:
        ref = s["$ref"].split("/")[-1]
        if ref in defs:
            yield from iter_schemas(defs[ref], defs, depth + 1)
        return
    yield s
    for v in (s.get("properties") or {}).values():
        yield from iter_schemas(v, defs, depth + 1)
    if isinstance(s.get("items"), dict):
        yield from iter_schemas(s["items"], defs, depth + 1)
    for alt in s.get("anyOf") or s.get("oneOf") or []:
        yield from iter_schemas(alt, defs, depth + 1)


def persona_of(c, who):
    return "\n".join(l for l, o in zip(c.lines, c.owners) if o == who)


def knows_person(c, who, other):
    txt = persona_of(c, who)
    if not txt and who == c.speaker:
        txt = c.user
    return name_in(other, txt.replace("Name: " + who, ""))


def future_events(c, who=None):
    res = []
    for e in c.events:
        if e.date and c.now_date and e.date < c.now_date:
            continue
        if e.date == c.now_date and e.end is not None and c.now_time is not None and \
                e.end <= c.now_time:
            continue
        if who is None or who in e.knowers or who == e.host or (
                not any(e.knowers) and who == c.speaker):
            res.append(e)
    # own events first, then those with a full date and time
    res.sort(key=lambda e: (e.host != who, e.start is None, e.date is None))
    return res


# ----------------------------------------------------------------------------- speech
def say_time(c, e, r):
    parts = []
    if e.date:
        if e.date == c.now_date:
            parts.append(r.choice(["today", "this " + ("afternoon" if (e.start or 0) >= 720 and
                                                         (e.start or 0) < 1080 else "evening" if
                                                         (e.start or 0) >= 1080 else "morning")]))
        elif c.now_date and e.date == c.now_date + timedelta(days=1):
            parts.append("tomorrow")
        else:
            parts.append("on %s %s %d" % (WEEKDAYS[e.date.weekday()].title(),
                                          e.date.strftime("%B"), e.date.day))
    if e.start is not None:
        h, m = divmod(e.start, 60)
        if r.random() < 0.5:
            hh = h % 12 or 12
            parts.append("at %d%s %s" % (hh, (":%02d" % m) if m else "", "pm" if h >= 12 else "am"))
        else:
            parts.append("at %s" % _hm(h, m))
        if e.end is not None and r.random() < 0.4:
            parts.append("until %s" % _hm(*divmod(e.end, 60)))
    return " ".join(parts)


def say_place(c, e):
    p = match_place(c.place_enum, e.place_words) if c.place_enum else ""
    if p:
        parts = [x for x in re.split(r"[:/]", p) if x.strip()]
        return "at the " + (parts[1] if len(parts) > 1 else parts[0]).strip()
    m = re.search(r"\b(?:at|on|in) (the [A-Z][\w']+(?: [A-Z][\w']+)*)", e.place_words)
    return ("at " + m.group(1)) if m else ""


def first_person(what):
    w = what
    w = re.sub(r"^wants to\b", "I want to", w)
    w = re.sub(r"^is (\w+)", r"I'm \1", w)
    w = re.sub(r"^(\w+)s\b", r"I \1", w) if not w.startswith("I") else w
    return w


def tell_line(c, speaker, e, r):
    u = r.random()
    when = say_time(c, e, r)
    where = say_place(c, e)
    if speaker == e.host:
        core = first_person(e.what)
    else:
        core = "%s %s" % (e.host, e.what)
    if u < 0.60:
        tail = " ".join(x for x in [when, where] if x)
    elif u < 0.85:
        tail = when
    else:
        tail = ""
    if speaker == e.host:
        s = r.choice(["Guess what: %s %s!", "I've got news: %s %s.", "Listen, %s %s."]) % (
            core, tail)
        if r.random() < 0.7:
            s += r.choice([" Will you come?", " Do come along!", " I'd love to see you there."])
    else:
        s = r.choice(["Have you heard? %s %s.", "Did you know %s %s?", "I heard that %s %s."]) % (
            core, tail)
    return re.sub(r"\s+([.?!])", r"\1", re.sub(r"\s+", " ", s))


def event_in_line(c, txt, who_said):
    """The event a spoken line raises (known event if the words match), else a new one."""
    for e in c.events:
        if mentioned(e, txt):
            return e
    if not (parse_dates(txt, c.now_date) or parse_times(txt) or part_of_day(txt)):
        return None
    if not re.search(r"\b(come|join|invite|party|match|fair|having a|hosting|holding|"
                     r"wants to|going to|event|gathering|celebrat|do you fancy|would you like)\b",
                     txt, re.I):
        return None
    e = Event()
    e.host = who_said
    for p in c.people:
        if p != who_said and name_in(p, txt) and re.search(re.escape(_first(p)) + r"[\w ]{0,12}"
                                                           + HOST_VERB, txt):
            e.host = p
    stop = r"(?=\s+(?:at|on|in|tonight|tomorrow|today|this|from|next|by|around)\b|[,.?!;]|$)"
    m1 = re.search(r"\b(?:i'?m|i am|we'?re|we are)\s+(\w+ing\b[^,.?!;]*?)" + stop, txt, re.I)
    m2 = re.search("(" + HOST_VERB + r"\s+[^,.?!;]*?)" + stop, txt)
    if m1:
        e.what = _clean("is " + m1.group(1), 80)
    elif m2:
        e.what = _clean(m2.group(1), 80)
    else:
        e.what = _clean(re.split(r"[.?!]", re.sub(
            r"^(have you heard\?|did you know|guess what:?|listen,)\s*", "", txt,
            flags=re.I))[0], 60)
    e.desc = txt
    ds = parse_dates(txt, c.now_date)
    e.date = ds[0] if ds else None
    st, en = parse_range(txt)
    if st is None:
        st = part_of_day(txt)
        if st == 14 * 60:
            st = 15 * 60
    e.start, e.end = st, en
    e.place_words = txt
    return e


def reply_to_event(c, me, other, e, txt, r):
    """Returns (line, kind) where kind in accept/maybe/decline/ack."""
    blocks = plan_blocks(c.lines, c.owners, me)
    mine = persona_of(c, me)
    st = clash(blocks, e.start, e.end, c.people, me, e) if (e.date is None or e.date ==
                                                                c.now_date) else (
        "unknown" if e.start is None else "free")
    if e.date and e.date != c.now_date:
        st = "free" if e.start is not None else "unknown"
    said_no = any(mentioned(e, l) and re.search(r"cannot go|can'?t go|declin|can'?t make",
                                                l, re.I) and name_in(me, l.split(":")[0] + l)
                  for l in mine.split("\n"))
    going = st == "same" or any(mentioned(e, l) and re.search(r"going to|count me in|will go|"
                                                              r"means to go|accepted", l, re.I)
                                for l in mine.split("\n"))
    invite = (e.host == other) or bool(re.search(r"\b(come|join|will you|would you|invite)\b",
                                                 txt, re.I))
    when = say_time(c, e, r) if e.start is not None or e.date else ""
    fo = _first(other)
    if going and r.random() < 0.9:
        return r.choice(["Yes, I'll be there %s!" % when, "I'm already planning to go, see you "
                         "there!", "Wouldn't miss it, %s." % fo]), "accept"
    if said_no and r.random() < 0.8:
        return "Sorry, I still can't make it, I have other plans.", "decline"
    if e.host == me:
        return r.choice(["Yes, that's my do, I hope you'll come!", "That's right, I'm "
                         "organising it."]), "ack"
    if not invite:
        pgo = 0.10 if st == "commit" else 0.40
        if r.random() < pgo:
            return r.choice(["Oh, that sounds fun, I think I'll go %s." % when,
                             "Thanks for telling me, I mean to go."]), "accept"
        return r.choice(["Thanks for telling me, %s." % fo, "Oh, I hadn't heard, good to know!",
                         "Interesting, thanks."]), "ack"
    if st == "commit":
        u = r.random()
        if u < 0.2:
            return "I had something on, but I'll move it. Count me in!", "accept"
        if u < 0.5:
            return "I'm already committed then, %s. Could we do another day?" % fo, "decline"
        return "Sorry, I can't make it then: I have something on.", "decline"
    if st == "unknown":
        u = r.random()
        if u < 0.3:
            return "Sounds good, count me in!", "accept"
        if u < 0.8:
            return "Maybe, I'll see how the day goes.", "maybe"
        return "Sorry, I don't think I can.", "decline"
    p = 0.60
    if SOCIABLE.search(mine or c.user):
        p += 0.10
    if e.host and e.host != me:
        p += 0.10 if knows_person(c, me, e.host) else -0.15
    if r.random() < p:
        return r.choice(["Sounds lovely, count me in %s!" % when, "I'd love to, I'll be there "
                         "%s." % when, "Yes, I'll come along!"]), "accept"
    if r.random() < 0.5:
        return "Maybe, I'll see if I can get away.", "maybe"
    return r.choice(["Thanks, but I don't think I'll make it.", "Sorry, not this time."]), \
        "decline"


def small_talk(c, me, other, r):
    fo = _first(other) if other else "there"
    act = ""
    m = re.search(re.escape(me) + r" is ([a-z]+ing\b[^.\n(]{0,50})", persona_of(c, me) or c.user)
    if m:
        act = m.group(1)
    opts = ["Hi %s! How are you doing?" % fo, "Morning, %s. Lovely weather, isn't it?" % fo,
            "Hello %s, busy day?" % fo]
    if act:
        opts.append("Hi %s! I've been %s." % (fo, act.rstrip(". ")))
    return r.choice(opts)


def decide_turn(c, me, others, conv, r, tell_boost=None):
    """(utterance, end?, addressed) for speaker `me` given conversation so far."""
    last = None
    for who, txt in reversed(conv):
        if who != me:
            last = (who, txt)
            break
        else:
            break
    other = last[0] if last else (others[0] if others else "")
    said = " ".join(t for _, t in conv)
    n = len(conv)
    # T2: answer an event raised by the partner
    if last:
        e = event_in_line(c, last[1], last[0])
        my_answered = any(w == me and e is not None and mentioned(e, t) for w, t in conv)
        told_by_me = e is not None and any(w == me and mentioned(e, t) for w, t in conv)
        if e is not None and e.host != me and not my_answered and not told_by_me and \
                not ACCEPT.search(
                " ".join(t for w, t in conv if w == me)):
            line, k = reply_to_event(c, me, other, e, last[1], r)
            end = (k == "decline" and r.random() < 0.3)
            return line, end, other
    # T1: tell own news
    for e in future_events(c, me):
        if mentioned(e, said) or (others and (e.host in others or all(
                o in e.knowers for o in others))):
            continue
        p = 0.70 if e.host == me else 0.55
        if tell_boost is not None:
            p = tell_boost
        if r.random() < p:
            return tell_line(c, me, e, r), False, (other if others and len(others) == 1 or
                                                    r.random() < 0.5 else "everyone")
        break
    # T3
    if n == 0:
        return small_talk(c, me, other, r), False, other
    pend = 0.35 if n < 4 else (0.60 if n < 6 else 0.90)
    if n == 1:
        pend = 0.15
    if r.random() < pend:
        fo = _first(other) if other else "all"
        return r.choice(["It was good to talk, %s. See you around!" % fo,
                         "Well, I'd better get on. Bye, %s!" % fo,
                         "Right, I must be going. Take care!"]), True, other or "everyone"
    return r.choice(["Fine, thanks. Things are ticking along.", "Oh, not bad at all, thanks.",
                     "Same as ever, keeping busy.", "It's been a quiet day so far.",
                     "Glad to hear it!"]), False, other or "everyone"


# ----------------------------------------------------------------------------- memos
def make_memo(c, me, conv, r, enum_dates=None, enum_places=None):
    said = " ".join(t for _, t in conv)
    my = " ".join(t for w, t in conv if w == me)
    ev = None
    for e in c.events:
        if mentioned(e, said):
            ev = e
            break
    if ev is None:
        for w, t in conv:
            e = event_in_line(c, t, w)
            if e is not None:
                ev = e
                break
    others = sorted(set(w for w, _ in conv if w != me))
    with_ = " and ".join(others) if others else "someone"
    memo = {"summary": "", "importance": 2, "plan_activity": "", "plan_date": "",
            "plan_start": "", "plan_minutes": 0, "plan_place": ""}
    if ev is None:
        memo["summary"] = _clean("%s chatted briefly with %s about nothing in particular." %
                                 (me, with_), 380)
        memo["importance"] = max(1, min(10, 2 + r.choice([-1, 0, 0, 1])))
        return memo
    declined = bool(DECLINE.search(my)) and not ACCEPT.search(my)
    accepted = bool(ACCEPT.search(my)) and not declined
    maybe = bool(MAYBE.search(my)) and not accepted and not declined
    host = ev.host == me
    outcome = ("agreed to go" if accepted else "could not go" if declined else
               "might go" if maybe else "heard about it")
    if host:
        outcome = "told them about it"
    memo["summary"] = _clean("%s talked with %s about %s %s (%s); %s %s." % (
        me, with_, "their own event:" if host else (ev.host or "someone") + "'s plan:", ev.what,
        say_time(c, ev, random.Random(1)) or "no time settled", me, outcome), 390)
    memo["importance"] = max(1, min(10, r.choice([5, 6, 6, 7]) + (1 if accepted else 0)))
    if host:
        blocks = plan_blocks(c.lines, c.owners, me)
        inplan = any(mentioned(ev, a) for _, _, a in blocks)
        p = 0.0 if inplan else 0.25
    elif accepted:
        p = 0.85
    elif maybe:
        p = 0.45
    elif declined:
        p = 0.03
    else:
        p = 0.08
    if r.random() < p:
        d = ev.date or c.now_date
        st = ev.start if ev.start is not None else 15 * 60
        mins = ((ev.end - st) % 1440) if ev.end is not None else 90
        mins = max(15, min(600, mins or 90))
        memo["plan_activity"] = _clean(("hosting: " if host else "going to: ") +
                                       ("%s %s" % (ev.host, ev.what) if not host else ev.what),
                                       115)
        ds = d.isoformat() if d else ""
        if enum_dates and ds not in enum_dates:
            ds = ""
        memo["plan_date"] = ds
        memo["plan_start"] = _hm(*divmod(st, 60)) if ds else ""
        memo["plan_minutes"] = mins if ds else 0
        pl = match_place(enum_places or c.place_enum, ev.place_words + " " + said)
        memo["plan_place"] = pl if ds else ""
        if not ds:
            memo["plan_activity"] = ""
    return memo


def prop_enum(schema, defs, key):
    for s in iter_schemas(schema, defs):
        v = (s.get("properties") or {}).get(key)
        if isinstance(v, dict) and v.get("enum"):
            return v["enum"]
    return None


# ----------------------------------------------------------------------------- kinds
def k_text(c, r):
    me = c.speaker
    others = [p for p in c.people if p != me and name_in(p, c.user[:4000])]
    # partners: people named in the sentence that says who is talking with whom
    m = re.search(re.escape(me) + r" is (?:talking|chatting|speaking) (?:with|to) ([^.\n]+)",
                  c.user) if me else None
    if m:
        others = [p for p in c.people if p != me and name_in(p, m.group(1))] or others
    line, end, _ = decide_turn(c, me, others, c.conv, r)
    tags = re.findall(r"\[([a-z_ \-]{2,15})\]", c.user, re.I)
    endtag, conttag = "[end]", "[continue]"
    for t in tags:
        tl = t.lower()
        if re.search(r"end|over|bye|stop|done|leave|finish", tl):
            endtag = "[%s]" % t
        elif re.search(r"cont|go on|more|next|stay", tl):
            conttag = "[%s]" % t
    if not tags and not re.search(r"\bend\b.*\bcontinue\b|continue.*end", c.user, re.I):
        return line
    return line + "\n" + (endtag if end else conttag)


def k_group_turn(c, r):
    me = c.speaker
    en = prop_enum(c.schema, c.defs, "addressed_to") or []
    others = [x for x in en if x != "everyone" and x != me] or [p for p in c.people if p != me]
    line, end, addr = decide_turn(c, me, others, c.conv, r)
    if en and addr not in en:
        addr = "everyone" if "everyone" in en else en[0]
    return {"utterance": line, "addressed_to": addr or "everyone", "end_conversation": bool(end)}


def simulate(c, parts, maxlines, r, teller_first=True):
    conv = []
    has_news = {p: [e for e in future_events(c, p) if p in e.knowers or p == e.host]
                for p in parts}
    order = list(parts)
    i = 0
    ended = set()
    while len(conv) < maxlines and len(ended) < len(order):
        me = order[i % len(order)]
        i += 1
        if me in ended:
            continue
        others = [p for p in order if p != me]
        boost = 0.85 if has_news.get(me) else None
        line, end, _ = decide_turn(c, me, others, conv, r, tell_boost=boost)
        conv.append((me, line))
        if end and len(conv) >= 2:
            if len(order) == 2:
                break
            ended.add(me)
        if len(conv) >= 2 and i > len(order) * 3:
            break
    return conv


def k_conversation_summary(c, r):
    parts = [p for p in (prop_enum(c.schema, c.defs, "speaker") or []) if p]
    if len(parts) < 2:
        parts = (c.people + ["Someone Else"])[:2]
    news = any(future_events(c, p) for p in parts)
    know = knows_person(c, parts[0], parts[1]) or knows_person(c, parts[1], parts[0])
    pt = 0.90 if news else (0.55 + (0.10 if know else 0))
    if r.random() >= pt:
        return {"talk": False, "lines": [], "first": None, "second": None}
    mx = 6
    for s in iter_schemas(c.schema, c.defs):
        li = (s.get("properties") or {}).get("lines")
        if isinstance(li, dict) and li.get("maxItems"):
            mx = li["maxItems"]
    conv = simulate(c, parts, min(mx, 6), r)
    dates = prop_enum(c.schema, c.defs, "plan_date")
    out = {"talk": True, "lines": [{"speaker": w, "text": _clean(t, 290)} for w, t in conv]}
    out["first"] = make_memo(c, parts[0], conv, r, dates)
    out["second"] = make_memo(c, parts[1], conv, r, dates)
    return out


def k_group_summary(c, r):
    parts = [p for p in (prop_enum(c.schema, c.defs, "speaker") or []) if p] or c.people[:3]
    news = any(future_events(c, p) for p in parts)
    if r.random() >= (0.90 if news else 0.50):
        return {"talk": False, "lines": [], "memos": []}
    conv = simulate(c, parts, 8, r)
    dates = prop_enum(c.schema, c.defs, "plan_date")
    memos = []
    for p in parts:
        m = make_memo(c, p, conv, r, dates)
        m["name"] = p
        memos.append(m)
    return {"talk": True, "lines": [{"speaker": w, "text": _clean(t, 290)} for w, t in conv],
            "memos": memos}


def k_conversation_memo(c, r):
    me = c.speaker
    conv = c.conv
    if not conv:
        blocks = dialogue_blocks(c.lines)
        conv = blocks[-1]["lines"] if blocks else []
    dates = prop_enum(c.schema, c.defs, "plan_date")
    return make_memo(c, me, conv, r, dates)


def lifestyle(c, me):
    txt = persona_of(c, me) or c.user
    wake, bed, work = 7, 22, None
    m = re.search(r"(?:wakes?|gets?) up (?:at |around )?([^,;.\n]+)", txt, re.I) or \
        re.search(r"rises (?:at )?([^,;.\n]+)", txt, re.I)
    if m:
        t = parse_times(m.group(1))
        if t:
            wake = t[0] // 60
    m = re.search(r"(?:bed|sleep|turns in)\w* (?:at |around )?([^,;.\n]+)", txt, re.I)
    if m:
        t = parse_times(m.group(1))
        if t:
            bed = t[0] // 60 if t[0] >= 12 * 60 or t[0] == 0 else t[0] // 60 + 12
            if bed == 0:
                bed = 24
    for ln in txt.split("\n"):
        if re.search(r"wake|work|runs|from .* to", ln, re.I):
            m = re.search(r"(\w[\w ]{0,40}?) from ([^,;]+?) (?:to|until|till) ([^,;.]+)", ln)
            if m:
                a, b = parse_times(m.group(2)), parse_times(m.group(3))
                if a and b and b[0] > a[0]:
                    work = (a[0], b[0], m.group(1).strip())
                    break
    return wake, min(bed, 24), work


EMOJI = [(r"sleep|bed", "😴"), (r"wak|ready", "🌅"), (r"breakfast", "🍳"), (r"lunch", "🥪"),
         (r"dinner|supper", "🍲"), (r"relax|rest|read", "🛋️"), (r"ask|tell|invit|chat", "🗣️"),
         (r"host|match|party|game|going to", "🎉"), (r"walk|green", "🚶"), (r"work|busy", "💼")]


def emoji(a):
    for p, e in EMOJI:
        if re.search(p, a, re.I):
            return e
    return "🙂"


def k_daily_plan(c, r):
    me = c.speaker
    places = prop_enum(c.schema, c.defs, "address") or c.place_enum or [""]
    sur = me.split()[-1] if me else ""
    home = next((p for p in places if sur and sur.lower() in p.lower()), None) or next(
        (p for p in places if re.search(r"home|house|cottage|flat|rooms|bedroom", p, re.I)),
        places[0])
    wake, bed, work = lifestyle(c, me)
    persona = persona_of(c, me) or c.user
    nothome = [p for p in places if p != home]
    ident = "\n".join(l for l in persona.split("\n")[:8] if re.search(
        r"work|runs|keeps|teach|job|identity|role|owns|manag|serves", l, re.I))
    workplace = (match_place(nothome, work[2]) if work else "") or match_place(nothome, ident) or \
        match_place(nothome, "\n".join(persona.split("\n")[:8])) or None
    today = c.now_date
    slots = {}

    def paint(a, b, act, place):
        for t in range(a, b, 5):
            slots[t] = (act, place)
    start, end = wake * 60, bed * 60
    paint(start, end, "relaxing at home", home)
    paint(start, start + 30, "waking up and getting ready", home)
    paint(start + 30, start + 60, "having breakfast", home)
    dayoff = today.weekday() >= 5 and not re.search(r"weekend|saturday|sunday|every day|daily",
                                                   persona, re.I) and r.random() < 0.40
    if work and not dayoff:
        wp = workplace or home
        paint(max(work[0], start + 60), min(work[1], end), "working: " + _clean(work[2], 40)
              if work[2] else "working", wp)
    elif dayoff:
        paint(start + 60, 12 * 60, "relaxing on a day off", home)
        paint(14 * 60, 17 * 60, "taking a walk",
              next((p for p in places if re.search(r"green|park|square|garden", p, re.I)), home))
    paint(12 * 60, 13 * 60, "having lunch", slots.get(12 * 60, ("", home))[1])
    paint(18 * 60 + 30, 19 * 60 + 30, "having dinner", home)
    # host asking people at listed places
    for e in future_events(c, me):
        if e.date != today:
            continue
        src = " ".join(e.sources)
        if e.host == me:
            p = 0.90
        elif re.search(r"cannot go|can'?t go|declin|can'?t make", src, re.I):
            p = 0.05
        elif re.search(r"going to|count me in|will go|means to go|accept|agreed", src, re.I):
            p = 0.80
        else:
            p = 0.30
        if r.random() < p and e.start is not None:
            a = max(start, e.start)
            b = min(end, e.end if e.end and e.end > e.start else e.start + 90)
            if b > a:
                act = ("hosting: " if e.host == me else "going to: " + e.host + " ") + e.what
                paint(a, b, _clean(act, 110), match_place(places, e.place_words) or home)
    if any(e.host == me for e in future_events(c, me)) and r.random() < 0.5:
        for ln in c.lines:
            if re.search(r"\d+ (people|person)", ln):
                pl = match_place(places, ln)
                rg = parse_range(ln)
                if pl and rg[0] is not None:
                    a = max(start + 60, rg[0])
                    if a + 60 <= end and slots.get(a, ("",))[0].startswith(("working",
                                                                             "relaxing")):
                        paint(a, a + 60, "asking people to come along", pl)
                        break
    blocks = []
    for t in range(start, end, 5):
        act, pl = slots[t]
        if blocks and blocks[-1]["activity"] == act and blocks[-1]["address"] == pl:
            blocks[-1]["duration_minutes"] += 5
        else:
            blocks.append({"start": _hm(*divmod(t, 60)), "duration_minutes": 5, "activity": act,
                           "emoji": emoji(act), "address": pl})
    while len(blocks) > 15:
        i = min(range(len(blocks) - 1), key=lambda k: blocks[k]["duration_minutes"])
        j = i + 1 if i + 1 < len(blocks) else i - 1
        a, b = sorted([i, j])
        blocks[a]["duration_minutes"] += blocks[b]["duration_minutes"]
        del blocks[b]
    blocks.append({"start": _hm(*divmod(end % 1440, 60)),
                   "duration_minutes": max(5, (start - end) % 1440 or 480),
                   "activity": "sleeping", "emoji": "😴", "address": home})
    outline = []
    for b in blocks:
        if b["duration_minutes"] >= 30 and len(outline) < 8:
            outline.append(_clean("%s at %s" % (b["activity"], b["start"]), 110))
    while len(outline) < 4:
        outline.append(["wake up", "get ready", "get through the day", "rest in the evening"][
            len(outline)])
    return {"wake_up_hour": wake % 24, "outline": outline[:8], "blocks": blocks}


STEPS = {
    r"wak|ready|get up": ["getting out of bed", "washing up", "getting dressed", "tidying up"],
    r"breakfast": ["making tea", "preparing breakfast", "eating breakfast", "washing the dishes"],
    r"lunch": ["getting lunch ready", "eating lunch", "having a cup of tea", "clearing up"],
    r"dinner|supper": ["cooking dinner", "eating dinner", "washing up", "putting things away"],
    r"sleep": ["settling into bed", "sleeping", "sleeping soundly"],
    r"relax|rest|day off": ["sitting down to rest", "reading a little", "having a cup of tea",
                            "dozing for a while", "looking out of the window"],
    r"going to|host|match|party|event": ["arriving", "greeting people", "joining in",
                                         "watching the others", "chatting afterwards"],
    r"ask|tell|invit": ["looking for people", "stopping to chat", "passing on the news",
                        "moving on"],
}


def k_decompose(c, r):
    txt = c.user
    m = re.search(r"\((\d+)\s*min", txt)
    total = int(m.group(1)) if m else None
    line = ""
    for ln in c.lines:
        if re.search(r"\d{1,2}:\d{2}\D{1,12}\d{1,2}:\d{2}", ln) and not ln.strip().startswith("-"):
            line = ln
            break
    if total is None:
        a, b = parse_range(line or txt)
        total = ((b - a) % 1440) if a is not None and b is not None else 60
    objs = [o for o in (prop_enum(c.schema, c.defs, "object") or []) if o]
    acts = None
    for p, st in STEPS.items():
        if re.search(p, line, re.I):
            acts = st
            break
    if acts is None:
        core = re.sub(r"^.*? is ", "", line).split(",")[0] or "working"
        core = _clean(core, 40)
        acts = ["getting started", core, "carrying on: " + core, "finishing up"]
    lo_n, hi_n, lo_d, hi_d = 2, 6, 5, 15
    m = re.search(r"(\d+) to (\d+) (?:concrete )?steps", txt)
    if m:
        lo_n, hi_n = int(m.group(1)), int(m.group(2))
    for s in iter_schemas(c.schema, c.defs):
        pr = s.get("properties") or {}
        if isinstance(pr.get("steps"), dict):
            lo_n = pr["steps"].get("minItems", lo_n)
            hi_n = pr["steps"].get("maxItems", hi_n)
        if isinstance(pr.get("duration_minutes"), dict):
            lo_d = pr["duration_minutes"].get("minimum", lo_d)
            hi_d = pr["duration_minutes"].get("maximum", hi_d)
    n = max(lo_n, min(hi_n, max(len(acts), -(-total // hi_d)), max(lo_n, total // lo_d)))
    while len(acts) < n:
        acts = acts + [acts[len(acts) % max(1, len(acts) - 1)]]
    per = max(lo_d, min(hi_d, total // n))
    steps = []
    rem = total
    for i in range(n):
        d = max(lo_d, min(hi_d, per if i < n - 1 else rem))
        rem -= d
        a = acts[i]
        ob = ""
        for o in objs:
            if re.search(r"\b%s\b" % re.escape(o.split()[0]), a + " " + line, re.I) or (
                    o in ("bed",) and re.search(r"sleep|bed|doz", a)) or (
                    re.search(r"chair|armchair|sofa", o) and re.search(r"sit|read|rest|doz", a)) or (
                    re.search(r"desk|table|counter|bar", o) and re.search(r"eat|work|sort|serv|"
                                                                         r"mark|busy", a)):
                ob = o
                break
        steps.append({"activity": _clean(a, 78), "duration_minutes": d, "object": ob,
                      "object_state": ("in use" if ob else "")})
    return {"steps": steps}


def rate_memory(s, r):
    if GRAVE.search(s):
        v = 8
    elif re.search(r"invit|party|match|fair|festival|news|hosting|wants to|count me in|"
                   r"going to|can'?t make|conversation", s, re.I):
        v = 5
    elif SOCIAL.search(s):
        v = 4
    elif re.search(r"sleep|breakfast|lunch|dinner|waking|busy|relax|plan for|getting ready",
                   s, re.I):
        v = 2
    else:
        v = 3
    return max(1, min(10, v + r.choice([-1, 0, 0, 0, 1])))


def k_importance(c, r):
    m = re.findall(r"[\"“]([^\"”]{3,})[\"”]", c.user)
    mem = max(m, key=len) if m else c.user[-300:]
    return {"importance": rate_memory(mem, r)}


def k_importance_batch(c, r):
    mems = [l for l in c.lines if re.match(r"^\s*(?:[-*•]|\d+[.)])\s", l)]
    n = len(mems) or 3
    for s in iter_schemas(c.schema, c.defs):
        it = (s.get("properties") or {}).get("ratings")
        if isinstance(it, dict):
            lo, hi = it.get("minItems", n), it.get("maxItems", n)
            n = max(lo, min(hi, n))
    vals = [rate_memory(mems[i] if i < len(mems) else "", r) for i in range(n)]
    return {"ratings": vals}


def k_interview(c, r):
    me = c.speaker
    m = re.search(r"[\"“]([^\"”]+\?)[\"”]", c.user)
    q = m.group(1) if m else "How are you?"
    mems = [re.sub(r"^\s*[-*•]\s*(\[[^\]]*\]\s*)?", "", l) for l in c.lines
            if re.match(r"^\s*[-*•]\s*\[", l)]
    persona = "\n".join(l for l in c.lines[:10])
    target = None
    for p in c.people:
        if p != me and name_in(p, q):
            target = p
    if target:
        about = [x for x in mems if name_in(target, x)]
        pers = [l for l in persona.split("\n") if name_in(target, l)]
        if about or pers:
            src = about[-1] if about else pers[0]
            src = re.sub(r"^[A-Z][a-z]+: ", "", src)
            return {"answer": _clean("Yes, I know %s. %s" % (_first(target), src.replace(
                me, "I")), 580)}
        if r.random() < 0.9:
            return {"answer": "No, I don't think I know %s." % target}
        return {"answer": "The name %s rings a faint bell, but I couldn't tell you much." %
                target}
    qw = content_words(q) - {"know", "heard", "about", "you"}
    hits = [x for x in mems if len(qw & content_words(x)) >= 1]
    if hits and r.random() < 0.85:
        return {"answer": _clean("Yes: %s" % hits[-1].replace(me, "I"), 580)}
    return {"answer": "No, I haven't heard anything about that."}


def k_react(c, r):
    me = c.speaker
    en = prop_enum(c.schema, c.defs, "choice") or ["continue", "talk", "wait", "react"]
    offered = [x for x in en if re.search(r"[\"“]%s[\"”]" % re.escape(str(x)), c.user)] or en
    m = re.search(r"[\"“]([^\"”]+)[\"”]", c.user)
    seen_txt = m.group(1) if m else ""
    seen = next((p for p in c.people if p != me and name_in(p, seen_txt)), None) or next(
        (p for p in c.people if p != me), "")
    untold = False
    for e in future_events(c, me):
        conv_with = [l for l in c.lines if name_in(seen, l) and mentioned(e, l)]
        if not conv_with and seen != e.host:
            untold = True
    w = {"continue": 0.65, "talk": 0.20, "wait": 0.10, "react": 0.05}
    if untold and "talk" in offered and r.random() < 0.60:
        ch = "talk"
    else:
        opts = [(x, w.get(x, 0.05)) for x in offered]
        tot = sum(v for _, v in opts)
        u = r.random() * tot
        ch = opts[-1][0]
        for x, v in opts:
            u -= v
            if u <= 0:
                ch = x
                break
    reasons = {"talk": "%s would like a word with %s." % (me, seen),
               "continue": "Nothing about it calls for a change of plan.",
               "wait": "%s is busy, so %s will wait a moment." % (seen, me),
               "react": "%s decides to go and see what is happening." % me}
    return {"choice": ch, "reason": _clean(reasons.get(ch, "It seems right."), 290),
            "new_activity": "seeing what %s is up to" % _first(seen) if ch == "react" else ""}


def k_reflection_questions(c, r):
    me = c.speaker
    n = 3
    others = [p for p in c.people if p != me][:3]
    qs = []
    for e in future_events(c, me)[:1] + [e for e in c.events][:1]:
        qs.append("What will %s do about %s %s?" % (me, e.host, e.what))
    for p in others:
        qs.append("How does %s feel about %s?" % (me, p))
    qs.append("What matters most to %s these days?" % me)
    out = []
    for q in qs:
        q = _clean(q, 200)
        if q not in out:
            out.append(q)
    return {"questions": out[:n]}


def k_reflection_insights(c, r):
    me = c.speaker
    nums = [int(x) for x in re.findall(r"(?m)^\s*(\d+)[.)]\s", c.user)]
    mx = max(nums) if nums else 1
    en = None
    for s in iter_schemas(c.schema, c.defs):
        ev = (s.get("properties") or {}).get("evidence")
        if isinstance(ev, dict):
            en = (ev.get("items") or {}).get("enum")
            mx = min(mx, (ev.get("items") or {}).get("maximum", mx))
    stm = {}
    for l in c.lines:
        m = re.match(r"^\s*(\d+)[.)]\s+(.*)", l)
        if m:
            stm[int(m.group(1))] = m.group(2)
    ins = []
    for p in [x for x in c.people if x != me][:3]:
        ev = [k for k, v in stm.items() if name_in(p, v) and k <= mx][:5]
        if ev:
            ins.append({"insight": _clean("%s sees %s often and knows them from around town." % (
                me, p), 290), "about": _clean(p, 58), "evidence": ev, "importance": r.choice([3, 4, 5])})
    for e in c.events[:2]:
        ev = [k for k, v in stm.items() if mentioned(e, v) and k <= mx][:5]
        if ev:
            ins.append({"insight": _clean("%s knows that %s %s." % (me, e.host, e.what), 290),
                        "about": _clean(e.what, 58), "evidence": ev,
                        "importance": r.choice([5, 6])})
    rout = [k for k, v in stm.items() if re.search(r"plan|busy|lunch|breakfast", v) and k <= mx][:4]
    if rout or not ins:
        ins.append({"insight": "%s keeps to a steady daily routine." % me, "about": "routine",
                    "evidence": rout or [1], "importance": 2})
    if en:
        for i in ins:
            i["evidence"] = [x for x in i["evidence"] if x in en] or [en[0]]
    return {"insights": ins[:15]}


def k_relationship(c, r):
    me = c.speaker
    m = re.search(r"remembers about ([A-Z][\w'\-]+(?: [A-Z][\w'\-]+)?)", c.user)
    other = m.group(1) if m else next((p for p in c.people if p != me), "them")
    mems = [l for l in c.lines if name_in(other, l) and l.strip().startswith("-")]
    tone = "friendly" if len(mems) > 1 else "neutral"
    if any(DECLINE.search(l) for l in mems):
        tone = "a little disappointed but still friendly"
    if any(ACCEPT.search(l) for l in mems):
        tone = "warm"
    return {"summary": _clean("%s is someone %s knows around town; %s feels %s towards them "
                              "right now." % (other, me, me, tone), 390)}


def k_revise(c, r):
    me = c.speaker
    m = re.search(r"(?im)^\s*currently\s*[:\-]\s*(.+)$", c.user) or re.search(
        re.escape(me) + r" is ([^.\n]+\.)", c.user)
    old = m.group(1).strip() if m else "%s is going about the day." % me
    old = re.split(r"(?<=\.)\s", old)[0]
    add = ""
    ev = future_events(c, me)
    if ev and r.random() < 0.80:
        e = ev[0]
        src = " ".join(e.sources)
        if e.host == me:
            add = " %s is organising this: %s %s." % (me, e.what, say_time(c, e, r))
        elif re.search(r"cannot go|can'?t go|declin", src, re.I):
            add = " %s heard that %s %s, but cannot go." % (me, e.host, e.what)
        else:
            add = " %s has heard that %s %s %s and may go." % (me, e.host, e.what,
                                                             say_time(c, e, r))
    return {"currently": _clean(old + add, 490)}


# ----------------------------------------------------------------------------- generic filler
def fill(s, defs, c, r, key="", depth=0):
    if not isinstance(s, dict) or depth > 8:
        return ""
    if "$ref" in s:
        return fill(defs.get(s["$ref"].split("/")[-1], {}), defs, c, r, key, depth + 1)
    for alt in s.get("anyOf") or s.get("oneOf") or []:
        if isinstance(alt, dict) and alt.get("type") != "null":
            return fill(alt, defs, c, r, key, depth + 1)
    if "enum" in s and s["enum"]:
        en = s["enum"]
        if re.search(r"place|address|location|where", key, re.I):
            return match_place(en, c.user[-1500:]) or next((x for x in en if x), en[0])
        return next((x for x in en if x not in ("", None)), en[0])
    t = s.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if t == "object" or "properties" in s:
        out = {}
        for k, v in (s.get("properties") or {}).items():
            out[k] = fill(v, defs, c, r, k, depth + 1)
        return out
    if t == "array":
        n = max(1, s.get("minItems", 1))
        return [fill(s.get("items") or {}, defs, c, r, key, depth + 1) for _ in range(n)]
    if t == "integer" or t == "number":
        lo, hi = s.get("minimum", 1), s.get("maximum", max(s.get("minimum", 1), 5))
        v = max(lo, min(hi, (lo + hi) // 2 if t == "integer" else (lo + hi) / 2))
        return int(v) if t == "integer" else v
    if t == "boolean":
        return r.random() < 0.5
    if re.search(r"start|time", key, re.I):
        return _hm(*divmod((c.now_time or 600) + 60, 60))
    if re.search(r"date", key, re.I):
        return c.now_date.isoformat()
    txt = "%s carries on with the day." % (c.speaker or "They")
    if re.search(r"activ", key, re.I):
        txt = "carrying on as planned"
    if re.search(r"utter|line|say|text|answer", key, re.I):
        txt = "Hello there, nice to see you."
    return _clean(txt, s.get("maxLength", 400))


def conform(v, s, defs, depth=0):
    """Clamp a made answer into the schema (intended answers are valid)."""
    if not isinstance(s, dict) or depth > 10:
        return v
    if "$ref" in s:
        return conform(v, defs.get(s["$ref"].split("/")[-1], {}), defs, depth + 1)
    alts = s.get("anyOf") or s.get("oneOf")
    if alts:
        if v is None and any(isinstance(a, dict) and a.get("type") == "null" for a in alts):
            return None
        for a in alts:
            if isinstance(a, dict) and a.get("type") != "null":
                return conform(v, a, defs, depth + 1)
    if "enum" in s and s["enum"] and v not in s["enum"]:
        return "" if "" in s["enum"] else s["enum"][0]
    t = s.get("type")
    if t == "object" and isinstance(v, dict):
        props = s.get("properties") or {}
        if s.get("additionalProperties") is False:
            v = {k: x for k, x in v.items() if k in props}
        for k in s.get("required") or []:
            if k not in v:
                v[k] = None
        for k in list(v):
            if k in props:
                if v[k] is None and k not in (s.get("required") or []):
                    ps = props[k]
                    if not (ps.get("anyOf") and any(a.get("type") == "null" for a in ps["anyOf"]
                                                     if isinstance(a, dict))):
                        del v[k]
                        continue
                v[k] = conform(v[k], props[k], defs, depth + 1)
        return v
    if t == "array" and isinstance(v, list):
        mx = s.get("maxItems")
        if mx is not None:
            v = v[:mx]
        return [conform(x, s.get("items") or {}, defs, depth + 1) for x in v]
    if t == "string":
        v = "" if v is None else str(v)
        if s.get("maxLength") and len(v) > s["maxLength"]:
            v = _clean(v, s["maxLength"])
        if s.get("minLength") and len(v) < s["minLength"]:
            v = (v + " ...").strip() if v else "okay"
        return v
    if t == "integer":
        try:
            v = int(v)
        except Exception:
            v = s.get("minimum", 0)
        return max(s.get("minimum", v), min(s.get("maximum", v), v))
    if t == "boolean":
        return bool(v)
    return v


def k_replan(c, r):
    """Rest of the day: the daily plan from now (or the first time the request names) on."""
    plan = k_daily_plan(c, r)
    t0 = c.now_time
    m = re.search(r"\b(?:from|after|rest of)\b[^\n]{0,40}", c.user)
    if m and parse_times(m.group(0)):
        t0 = parse_times(m.group(0))[0]
    if t0 is None:
        return plan
    out = []
    for b in plan["blocks"]:
        st = parse_times(b["start"])[0]
        en = st + b["duration_minutes"]
        if en <= t0 and b["activity"] != "sleeping":
            continue
        if st < t0 < en and b["activity"] != "sleeping":
            b = dict(b, start=_hm(*divmod(t0, 60)), duration_minutes=max(5, en - t0))
        out.append(b)
    plan["blocks"] = out or plan["blocks"][-1:]
    return plan


KINDS = {
    "conversation_summary": k_conversation_summary, "group_summary": k_group_summary,
    "conversation_memo": k_conversation_memo, "daily_plan": k_daily_plan,
    "decompose": k_decompose, "group_turn": k_group_turn, "importance": k_importance,
    "importance_batch": k_importance_batch, "interview": k_interview, "react": k_react,
    "reflection_insights": k_reflection_insights,
    "reflection_questions": k_reflection_questions, "relationship": k_relationship,
    "revise_currently": k_revise, "replan": k_replan,
}


def shape_kind(schema, defs):
    """Recognise a kind by its fields when the name is unfamiliar."""
    props = set((schema or {}).get("properties") or {})
    if {"utterance", "addressed_to"} <= props:
        return "group_turn"
    if "talk" in props and "memos" in props:
        return "group_summary"
    if "talk" in props:
        return "conversation_summary"
    if {"summary", "plan_date"} <= props or {"summary", "plan_activity"} <= props:
        return "conversation_memo"
    if "blocks" in props and "wake_up_hour" in props:
        return "daily_plan"
    if "blocks" in props:
        return "replan"
    if "steps" in props:
        return "decompose"
    if props == {"importance"}:
        return "importance"
    if "ratings" in props:
        return "importance_batch"
    if props == {"answer"}:
        return "interview"
    if "choice" in props and "new_activity" in props:
        return "react"
    if "insights" in props:
        return "reflection_insights"
    if "questions" in props:
        return "reflection_questions"
    if props == {"currently"}:
        return "revise_currently"
    if props == {"summary"}:
        return "relationship"
    return None


# ----------------------------------------------------------------------------- malformation
def malform_json(obj, txt, c, r):
    u = r.random()
    if u < 0.03:
        cut = max(1, int(len(txt) * (0.3 + 0.5 * r.random())))
        return txt[:cut]
    if u < 0.04:
        return "I'm sorry, but I can't help with that request."
    if u < 0.05:
        return "Sure! Here is the answer:\n" + txt
    if u < 0.06:
        s = json.dumps(obj, ensure_ascii=False)
        places = [p for p in c.place_enum if p and p in s]
        if places:
            p = places[0]
            short = p.split(":")[1] if p.count(":") >= 1 else p.lower()
            return s.replace(json.dumps(p, ensure_ascii=False)[1:-1], short, 1)
        en = prop_enum(c.schema, c.defs, "addressed_to") or prop_enum(c.schema, c.defs, "choice")
        if en:
            for x in en:
                tok = '"%s"' % x
                if tok in s:
                    return s.replace(tok, tok.upper(), 1)
        return s
    return txt


def malform_text(txt, c, r):
    u = r.random()
    if u < 0.02:
        return "%s: %s" % (c.speaker or "Me", txt)
    if u < 0.03:
        return "I'm sorry, I can't continue this role-play."
    if u < 0.05:
        return txt.split("\n")[0]
    if u < 0.06:
        parts = txt.split("\n")
        parts[0] = '"%s"' % parts[0]
        return "\n".join(parts)
    return txt


# ----------------------------------------------------------------------------- entry
def _respond(body, seed):
    r = _rng(body, seed)
    c = build_ctx(body, r)
    if c.kind == "probe" or re.search(r"are you there|\{\s*\"ok\"", c.user, re.I) and (
            c.schema is not None and set((c.schema.get("properties") or {})) <= {"ok"}):
        return json.dumps({"ok": True})
    if c.schema is None:
        return malform_text(k_text(c, r), c, r)
    fn = KINDS.get(c.kind) or KINDS.get(shape_kind(c.schema, c.defs) or "")
    if fn is None:
        obj = fill(c.schema, c.defs, c, r) if c.schema else {"answer": "okay"}
    else:
        obj = fn(c, r)
    if c.schema:
        obj = conform(obj, c.schema, c.defs)
    txt = json.dumps(obj, ensure_ascii=False)
    return malform_json(obj, txt, c, r)


def respond(body: dict, seed: int) -> str:
    """The completion's content text for one chat completion request body."""
    try:
        return _respond(body, seed)
    except Exception:
        try:
            rf = (body or {}).get("response_format") or {}
            if isinstance(rf, dict) and rf.get("type") in ("json_schema", "json_object"):
                sch = (rf.get("json_schema") or {}).get("schema") or {}
                c = Ctx()
                c.user, c.speaker, c.now_time, c.now_date = "", "", 600, date(2026, 4, 10)
                c.place_enum = []
                defs = sch.get("$defs") or {}
                return json.dumps(conform(fill(sch, defs, c, random.Random(seed)), sch, defs))
        except Exception:
            pass
        return "Hello there, nice to see you.\n[continue]"
