"""blind2: a blind, prompt-only stand-in language model (issue 42, evaluation).

Written only from captured request bodies. Deterministic per (body, seed): every random draw comes
from random.Random seeded by sha256(seed, messages); decisions that must hold for a whole
conversation (tell news, accept) are seeded by sha256(seed, speaker, partner, event, day) instead,
so a speaker behaves consistently turn after turn.

DECLARED RULES (fixed before any run; rates are what a middling instruction-tuned model might do)
---------------------------------------------------------------------------------------------------
Reading the prompt (by meaning, not headings):
  R0  Speaker = the person the system line says we are ("mind of X", "you are X"), else the first
      "Name:" field, else the first full name. People = capitalised two/three-word names in the text.
      Today = the date marked "today" in any list, else the first written date; clock times are read
      in any style (17:00, 5 pm, 5:30pm, half past five, quarter to six, noon, after work = 17:30,
      evening/tonight = 18:30, sundown/sunset/dusk = 19:00, morning = 09:00, afternoon = 15:00,
      lunchtime = 12:00); days as ISO dates, "February 14"/"14 Feb", weekday names, today/tomorrow.
  R1  An "event" is a sentence in what the speaker knows (persona, memories; never schedule lines
      with 2+ clock ranges) that has a time-or-day cue AND a gathering cue (party, festival, fair,
      dinner, concert, meeting, service, market, reading, ... or verbs throw/hold/host/invite/
      organise/celebrate/gather). Its host is the first person named in it.
  R2  Relationship of speaker to partner: "close" if the partner is named in the speaker's persona
      (identity/currently), "known" if named in the speaker's memories, else "stranger".
  R3  Schedule: lines "HH:MM-HH:MM activity (place)" are today's plan. A slot is "busy" if its
      activity is work-like (busy, work, shift, class, open/run/tend/keep..., sleeping), else free.
      For another day: busy if the persona's lifestyle gives working hours ("from 8 am to 4 pm")
      covering the time, else free.

Conversation turns (plain-text turn requests, group turns, whole-conversation summaries):
  T1  Telling news: when the speaker knows an event the conversation has not mentioned yet, they
      bring it up once per conversation with p = 0.75 if they host it, 0.40 if close to the partner,
      0.30 if known, 0.15 if stranger (never "telling" the host their own event). Of those tellings
      20% are vague (no clock time). A host who hears their own event repeated just welcomes them.
  T2  Answering an invitation/news with a time (partner's last line has an event or invite words):
      free slot: accept p = 0.65 close, 0.55 known, 0.40 stranger; busy slot: accept p = 0.12
      (it "matters more"), else decline (60%) or propose another time (40%). Of non-accepts
      when free, 50% are a vague "maybe, I'll see".
  T3  Otherwise: opening line = greeting with a bit of their own "currently"; later lines = small
      talk; the speaker ends after their 3rd line with p = 0.7, at any other line with p = 0.15,
      and always once the conversation has 10+ lines. Group turns address the last speaker 60%,
      else "everyone".
  T4  Whole-conversation requests: they talk with p = 0.80 if close/known, 0.55 strangers; 2-6
      lines (groups up to 8) simulated with T1-T3; then each side's memo from the lines (M1).
Memos (after a conversation):
  M1  If the lines contain an event: the person accepted (their own later line has accept words)
      -> plan item with p = 0.85; they host it -> p = 0.55; they only heard or passed it on -> 0.06;
      declined/maybe -> p = 0.03. Plan day/time from the event text relative to today (unparsed
      time -> 18:00), minutes = stated span else 120; place = enum option sharing most words with
      the event (empty if none shares). Importance 6 accepted/host, 4 news, 2 small talk (+-1 30%).
Plans:
  P1  Daily plan from lifestyle (wake, work hours, bed), work place = known place sharing words
      with the persona, home = place named after the person or a bedroom. A today event from the
      memories/currently is put in: host p = 0.90, promised (accept words in a memory) p = 0.75,
      only heard p = 0.30; halved if it overlaps work (not for hosts).
  P2  Decompose: 2-6 steps of 5-15 min from the activity's words; objects by word match, else "".
  P3  React: observed person and the speaker knows an event: talk p = 0.50 host / 0.30 heard;
      otherwise talk p = 0.25 close, 0.15 known, 0.08 stranger; react p = 0.05; else continue.
      Asleep, or no person observed -> continue (react 5%).
Other:
  O1  Interview: memory line sharing the most content words with the question is recounted
      (p = 0.85; 15% hedge "I think I heard something about..."); none shares -> "I don't know".
  O2  Importance: word-scored (routine 1-2, chat 3, worries/feelings/news 5, event 6, life events
      8), +-1 with p = 0.3.
  O3  Relationship / currently / reflection questions & insights: templated from names and memory
      lines; currently adds a known event with p = 0.8; insights cite statements naming the subject.
  O4  Any other schema: filled from the schema itself (enums by word overlap with the prompt).
Malformed output (applied last, independent of content):
  JSON answers: 3% truncated JSON, 1% refusal sentence, 2% "Speaker Name: {json}", 1% wrapped in a
  ```json fence, 1% (where an enum of places/names exists) a value outside the enum.
  Text answers: 2% "Speaker Name: words", 1% refusal, 2% no [end]/[continue] marker, 1% wrapped in
  double quotes.
"""
import hashlib
import json
import random
import re

# ----------------------------------------------------------------------------- helpers

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december"]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
NUMW = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
        "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
EVENT_NOUNS = ("party", "festival", "fair", "gathering", "celebration", "concert", "dinner", "supper",
               "meeting", "reading", "show", "match", "service", "wedding", "feast", "market day",
               "dance", "launch", "opening", "exhibition", "vigil", "ceremony", "picnic", "potluck",
               "race", "tournament", "auction", "rehearsal", "blessing", "social", "gala",
               "open-mic", "open mic", "quiz", "recital", "screening", "bonfire", "regatta",
               "parade", "barbecue", "lecture", "workshop", "tasting", "premiere", "walk", "launch",
               "event", "contest", "competition", "swap", "sale", "fete", "ball", "session", "meetup",
               "jam", "club", "night out", "get-together", "drinks", "lunch together", "dinner together")
HABIT_RE = re.compile(r"\b(every|usually|often|always|wakes? up|goes to bed|each (?:day|morning|evening)|most (?:days|mornings|evenings))\b", re.I)
EVENT_VERBS = ("throw", "hold", "host", "invit", "organis", "organiz", "celebrat", "gather", "put on",
               "get together", "get-together", "come along", "join", "meet up", "meet at", "meet for", "come to", "come by",
               "promis", "agreed to", "attend", "would come", "will come", "welcome", "everyone", "perform",
               "sing", "choir", "band", "music", "celebrat")
ACCEPT_W = ("count me in", "i'll be there", "i will be there", "i'd love to", "love to come",
            "see you there", "wouldn't miss", "i'll come", "i will come", "sounds lovely",
            "sounds great", "sure", "yes", "absolutely", "of course", "i'm in", "agreed", "promised",
            "will go", "will come", "accepted", "be there")
DECLINE_W = ("can't make", "cannot make", "can't come", "won't be able", "other plans", "no,",
             "sorry", "declin", "another time", "not able", "busy then", "maybe", "i'll see")
BUSY_W = ("busy", "work", "shift", "class", "lecture", "open", "run", "tend", "keep", "teach",
          "sleep", "meeting", "serv", "bak", "fish", "study", "paint", "writ", "draw", "shop")
STOP = set("the a an and or of to in on at for with is was are be been it its this that what who whom "
           "how do does did you your about any some from by as not no yes they them their there here "
           "his her she he him i me my we our us know".split())
REFUSALS = ["I'm sorry, but I can't help with that request.",
            "As an AI language model, I cannot role-play this character.",
            "I'm not able to continue this conversation."]


def _h(*parts):
    return int(hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8", "replace"))
               .hexdigest()[:16], 16)


def _words(s):
    return [w for w in re.findall(r"[a-z][a-z']+", (s or "").lower()) if w not in STOP and len(w) > 2]


def _hm(m):
    m = int(m) % (24 * 60)
    return "%02d:%02d" % (m // 60, m % 60)


def _clip(s, n):
    s = re.sub(r"\s+", " ", str(s)).strip()
    return s if len(s) <= n else s[:max(1, n - 1)].rstrip() + "."


def parse_time(s):
    """First clock time in s, in minutes after midnight, or None."""
    t = (s or "").lower()
    best = None

    def take(pos, val):
        nonlocal best
        if val is not None and 0 <= val < 24 * 60 and (best is None or pos < best[0]):
            best = (pos, val)
    m = re.search(r"\b([01]?\d|2[0-3])[:.h]([0-5]\d)\b(?!\s*-\s*\d)", t)
    if m:
        h, mi = int(m.group(1)), int(m.group(2))
        rest = t[m.end():m.end() + 4]
        if "pm" in rest and h < 12:
            h += 12
        if "am" in rest and h == 12:
            h = 0
        take(m.start(), h * 60 + mi)
    m = re.search(r"\b(\d{1,2})(?::(\d\d))?\s*(a\.?m\.?|p\.?m\.?)", t)
    if m:
        h = int(m.group(1)) % 12
        if m.group(3).startswith("p"):
            h += 12
        take(m.start(), h * 60 + int(m.group(2) or 0))
    m = re.search(r"\b(half past|quarter past|quarter to)\s+(\w+)", t)
    if m and (m.group(2) in NUMW or m.group(2).isdigit()):
        h = NUMW.get(m.group(2)) or int(m.group(2))
        if h < 8:
            h += 12
        v = {"half past": h * 60 + 30, "quarter past": h * 60 + 15, "quarter to": h * 60 - 15}[m.group(1)]
        take(m.start(), v)
    m = re.search(r"\b(?:from|between)\s+(\d{1,2})(?::(\d\d))?\s*(?:to|and|until|till|-)\s*\d{1,2}(?::\d\d)?\s*(a\.?m|p\.?m)", t)
    if m:
        h = int(m.group(1)) % 12 + (12 if m.group(3).startswith("p") else 0)
        take(m.start(), h * 60 + int(m.group(2) or 0))
    m = re.search(r"\b(?:at\s+)?(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})\s+o'?clock", t)
    if m:
        h = NUMW.get(m.group(1)) or int(m.group(1))
        take(m.start(), (h + 12 if h < 8 else h) * 60)
    for pat, v in ((r"\bnoon|midday\b", 720), (r"\bmidnight\b", 0), (r"after work", 1050),
                   (r"\bsundown|sunset|dusk\b", 1140), (r"\btonight|this evening|in the evening|evening\b", 1110),
                   (r"\bafternoon\b", 900), (r"\blunch ?time\b", 720), (r"\bdawn|sunrise\b", 360),
                   (r"\bmorning\b", 540)):
        m = re.search(pat, t)
        if m:
            take(m.start() + 10000, v)  # vaguer cues lose to real clock times
    return best[1] if best else None


def parse_span(s):
    """Minutes between 'from X to Y' style times, or None."""
    m = re.search(r"(?:from|between)\s+(.{1,20}?)\s*(?:to|until|till|and|-)\s*(.{1,20}?)(?:[,.;)]|$| and| on)", (s or "").lower())
    if m:
        a, b = parse_time(m.group(1)), parse_time(m.group(2))
        if a is None and b is not None and re.match(r"^\d{1,2}(?::\d\d)?$", m.group(1).strip()):
            hh, _, mm_ = m.group(1).strip().partition(":")
            a = (int(hh) % 12 + (12 if b >= 12 * 60 else 0)) * 60 + int(mm_ or 0)
        if a is not None and b is not None:
            if b < a and b < 12 * 60 and a >= 12 * 60 - 60:
                pass
            if b <= a and b + 720 > a:
                b += 720
            if 0 < b - a <= 600:
                return b - a
    return None


def _ord(y, mo, d):
    import datetime
    try:
        return datetime.date(y, mo, d).toordinal()
    except Exception:
        return None


def _iso(o):
    import datetime
    return datetime.date.fromordinal(o).isoformat()


def find_today(text):
    m = re.search(r"(\d{4})-(\d\d)-(\d\d)\s*\(today", text)
    if m:
        return _ord(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    m = re.search(r"\b(?:today is|it is|it's|now is|date:?)\s+(?:[A-Za-z]+,?\s+)?(?:the\s+)?(.{0,40})", text, re.I)
    if m:
        cand = m.group(1)
        mm = re.match(r"(?:(" + "|".join(MONTHS) + r")\s+(\d{1,2})|(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" +
                      "|".join(MONTHS) + r")|(\d{4})-(\d\d)-(\d\d))", cand, re.I)
        if mm:
            ym = re.search(r"\b(20\d\d)\b", cand) or re.search(r"\b(20\d\d)\b", text)
            y = int(ym.group(1)) if ym else 2026
            if mm.group(5):
                return _ord(int(mm.group(5)), int(mm.group(6)), int(mm.group(7)))
            if mm.group(1):
                return _ord(y, MONTHS.index(mm.group(1).lower()) + 1, int(mm.group(2)))
            return _ord(y, MONTHS.index(mm.group(4).lower()) + 1, int(mm.group(3)))
    year = None
    ym = re.search(r"\b(20\d\d)\b", text)
    if ym:
        year = int(ym.group(1))
    for m in re.finditer(r"\b(" + "|".join(MONTHS) + r")\s+(\d{1,2})\b|\b(\d{1,2})(?:st|nd|rd|th)?\s+(" +
                         "|".join(MONTHS) + r")\b|\b(\d{4})-(\d\d)-(\d\d)\b", text, re.I):
        if m.group(5):
            return _ord(int(m.group(5)), int(m.group(6)), int(m.group(7)))
        if m.group(1):
            mo, d = MONTHS.index(m.group(1).lower()) + 1, int(m.group(2))
        else:
            mo, d = MONTHS.index(m.group(4).lower()) + 1, int(m.group(3))
        return _ord(year or 2026, mo, d)
    return None


def parse_day(s, today):
    """Ordinal of the day s refers to (relative to today), or None."""
    t = (s or "").lower()
    if today is None:
        return None
    import datetime
    ty = datetime.date.fromordinal(today).year
    m = re.search(r"\b(\d{4})-(\d\d)-(\d\d)\b", t)
    if m:
        return _ord(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    m = re.search(r"\b(" + "|".join(MONTHS) + r")\s+(\d{1,2})\b", t) or None
    if m:
        return _ord(ty, MONTHS.index(m.group(1)) + 1, int(m.group(2)))
    m = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + "|".join(MONTHS) + r")\b", t)
    if m:
        return _ord(ty, MONTHS.index(m.group(2)) + 1, int(m.group(1)))
    m = re.search(r"\b(jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s+(\d{1,2})\b", t)
    if m:
        mo = [x[:3] for x in MONTHS].index(m.group(1)[:3]) + 1
        return _ord(ty, mo, int(m.group(2)))
    m = re.search(r"\b(\d{1,2})/(\d{1,2})\b", t)
    if m and 1 <= int(m.group(2)) <= 12:
        return _ord(ty, int(m.group(2)), int(m.group(1)))
    if "day after tomorrow" in t:
        return today + 2
    if "tomorrow" in t:
        return today + 1
    if re.search(r"\btoday|tonight|this evening|this afternoon\b", t):
        return today
    m = re.search(r"\b(" + "|".join(WEEKDAYS) + r")\b", t)
    if m:
        wd = WEEKDAYS.index(m.group(1))
        tw = datetime.date.fromordinal(today).weekday()
        return today + ((wd - tw) % 7)
    return None


def day_words(o, today):
    import datetime
    if o is None or today is None:
        return ""
    if o == today:
        return "today"
    if o == today + 1:
        return "tomorrow"
    d = datetime.date.fromordinal(o)
    return "on " + WEEKDAYS[d.weekday()].capitalize()


def clock_words(m):
    if m is None:
        return ""
    h, mi = divmod(int(m), 60)
    suf = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return ("%d %s" % (h12, suf)) if mi == 0 else ("%d:%02d %s" % (h12, mi, suf))


# ----------------------------------------------------------------------------- prompt reading

NAME_RE = re.compile(r"\b([A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?(?:\s+(?:van|de|da|von|del|le)?\s*[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?){1,2})\b")
NOT_NAME_FIRST = set("The This That Have Hi Hello Sorry It What How Who Name Age Identity Lifestyle Currently "
                     "Today Innate Answer Someone Things Places Nobody Then Make Break Should Give Write Plan "
                     "Rewrite Step Question Lines Objects From Right Keep Say Decide Choose On In At Are "
                     "Valentine Oak Hobbs Johnson Harvey Willows Rose Dorm Market Tide Marsh Chapel Harbour "
                     "Lighthouse Saturday Sunday Monday Tuesday Wednesday Thursday Friday January February "
                     "March April May June July August September October November December Good See".split())


class Ctx:
    def __init__(self, body):
        msgs = body.get("messages") or []
        self.system = "\n".join(str(m.get("content") or "") for m in msgs if m.get("role") == "system")
        self.user = "\n".join(str(m.get("content") or "") for m in msgs if m.get("role") != "system")
        self.all = self.system + "\n" + self.user
        self.today = find_today(self.user)
        self.people = self._people()
        self.me = self._me()

    def _people(self):
        seen = []
        for m in NAME_RE.finditer(self.user):
            n = re.sub(r"\s+", " ", m.group(1))
            if n.split()[0] in NOT_NAME_FIRST or n.split()[-1] in NOT_NAME_FIRST:
                continue
            if n not in seen:
                seen.append(n)
        # a person's name is a name that appears "doing" things or as a speaker; keep those seen 2+ times
        counts = {n: len(re.findall(re.escape(n), self.user)) for n in seen}
        self.cands = seen
        return [n for n in seen if counts[n] >= 2] or seen

    def _me(self):
        for pat in (r"mind of ([A-Z][\w' -]+?)[,.]", r"you are ([A-Z][\w' -]+?)[,.]", r"playing ([A-Z][\w' -]+?)[,.]"):
            m = re.search(pat, self.system)
            if m:
                return m.group(1).strip()
        m = re.search(r"^\s*Name:\s*(.+)$", self.user, re.M)
        if m:
            return m.group(1).strip()
        return self.people[0] if self.people else "I"

    # persona paragraph of a person: the block of lines after "Name: X" (or starting with X) until blank
    def persona(self, who):
        blocks = re.split(r"\n\s*\n", self.user)
        for b in blocks:
            first = b.strip().split("\n")[0]
            if who in first and (":" in first[:20] or first.startswith(who)):
                return b
        return blocks[0] if blocks else ""

    def sections_about(self, who, others):
        """Text that is `who`'s knowledge: persona + sections whose heading names who and no other."""
        out = [self.persona(who)]
        lines = self.user.split("\n")
        cur = None
        for ln in lines:
            s = ln.strip()
            if s and not s.startswith(("-", "*")) and not re.match(r"^\d+\.", s) and s.endswith(":") and len(s) < 120:
                names_in = sorted([p for p in [who] + list(others) if p in s], key=lambda p: s.find(p))
                cur = who if names_in and names_in[0] == who else None
                continue
            if cur == who:
                out.append(ln)
        return "\n".join(out)

    def schedule(self, text=None):
        blocks = []
        tp = r"(\d{1,2}(?::\d\d)?\s*(?:[ap]\.?m\.?)|\d{1,2}[:.h]\d\d|noon|midnight)"
        for m in re.finditer(r"^[\s\-*]*(?:from\s+)?" + tp + r"\s*(?:[-\u2013]|to|until|till)\s*" + tp +
                             r"\s*[:,]?\s+([^\n(]+?)\s*(?:\(([^)\n]*)\))?\s*$",
                             text if text is not None else self.user, re.M):
            a, b = parse_time(m.group(1)), parse_time(m.group(2))
            if a is None or b is None:
                continue
            if b <= a:
                b += 24 * 60
            blocks.append((a, b, m.group(3).strip(), (m.group(4) or "").strip()))
        return blocks


def is_busy_activity(act):
    a = act.lower()
    if any(w in a for w in ("relax", "free", "leisure", "rest", "walk", "dinner", "lunch", "breakfast", "home")):
        return "sleep" in a
    return any(w in a for w in BUSY_W)


def work_hours(persona_text):
    t = persona_text.lower()
    for m in re.finditer(r"from\s+(\d{1,2}(?::\d\d)?\s*[ap]\.?m\.?|\d{1,2}:\d\d)\s+(?:to|until|till)\s+(\d{1,2}(?::\d\d)?\s*[ap]\.?m\.?|\d{1,2}:\d\d)", t):
        a, b = parse_time(m.group(1)), parse_time(m.group(2))
        if a is not None and b is not None and b > a:
            return a, b
    m = re.search(r"opens?[^,.]*?at\s+(\d{1,2}(?::\d\d)?\s*[ap]m)[^.]*?clos\w*[^,.]*?at\s+(\d{1,2}(?::\d\d)?\s*[ap]m)", t)
    if m:
        a, b = parse_time(m.group(1)), parse_time(m.group(2))
        if a is not None and b is not None and b > a:
            return a, b
    return None


def slot_busy(ctx, who_text, day, minute):
    """(busy?, activity) for `minute` on `day` according to what the prompt shows."""
    if minute is None:
        return False, ""
    if day is None or day == ctx.today:
        for a, b, act, _ in ctx.schedule(who_text):
            if a <= minute < b or a <= minute + 1440 < b:
                return is_busy_activity(act), act
    wh = work_hours(who_text)
    if wh and wh[0] <= minute < wh[1]:
        return True, "working"
    if minute >= 23 * 60 or minute < 6 * 60:
        return True, "asleep"
    return False, ""


def split_sentences(text):
    out = []
    for ln in text.split("\n"):
        ln = ln.strip().lstrip("-*").strip()
        ln = re.sub(r"^\d+\.\s*", "", ln)
        if not ln:
            continue
        for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", ln):
            if s.strip():
                out.append(s.strip())
    return out


def has_time_cue(s):
    t = s.lower()
    return (parse_time(t) is not None or re.search(r"\b(" + "|".join(MONTHS + WEEKDAYS) +
            r"|tomorrow|tonight|today|next week)\b", t) is not None)


def has_event_cue(s):
    t = s.lower()
    return (any(re.search(r"\b" + re.escape(w) + r"(?:s|es)?\b", t) for w in EVENT_NOUNS)
            or any(re.search(r"\b" + re.escape(v), t) for v in EVENT_VERBS))


def event_what(s):
    t = s
    m = re.search(r"\b(?:a|an|the|her|his|their|our|my)\s+((?:[\w'-]+\s+){0,4}?(?:" +
                  "|".join(re.escape(w) for w in EVENT_NOUNS) + r"))\b", t, re.I)
    if m:
        return "a " + m.group(1) if not m.group(0).lower().startswith(("a ", "an ")) else m.group(0)
    c = re.split(r"\s+(?:tonight|tomorrow|today|this|next|at\s+\d|on\s+|from\s+|after\s+|before\s+|and\s+|in the)|[,;(]",
                 s.strip(), maxsplit=1)[0]
    words = c.split()
    return " ".join(words[:8]) or "something"


class Event:
    def __init__(self, text, ctx, me):
        self.text = text.strip().strip('"')
        self.day = parse_day(self.text, ctx.today)
        self.time = parse_time(self.text)
        self.span = parse_span(self.text)
        names = [p for p in ctx.people if p in self.text]
        first = min(names, key=lambda n: self.text.find(n)) if names else None
        # "X heard/learned that Y ..." -> host is Y
        m = re.search(r"(?:heard|learned|learnt|said|told\b[^:]*?)(?: from [^:]+)?(?: that|:)\s+(.*)", self.text)
        core = m.group(1) if m else self.text
        cn = [p for p in ctx.people if p in core]
        self.host = min(cn, key=lambda n: core.find(n)) if cn else (first if not m else None)
        if self.host is None and re.match(r"^(i|we)\b", core.lower()):
            self.host = me
        self.core = core
        self.what = event_what(core)
        self.key = " ".join(sorted(set(_words(self.what))))

    def place_from(self, options):
        return best_option(self.text, options, need=1)


def find_events(text, ctx, me):
    evs = []
    for s in split_sentences(text):
        if len(re.findall(r"\d{1,2}:\d\d", s)) >= 2 or re.search(r"\d{1,2}:\d\d\s*[-\u2013]\s*\d{1,2}:\d\d", s):
            continue
        if has_time_cue(s) and has_event_cue(s) and not HABIT_RE.search(s) and not s.lower().startswith("lifestyle"):
            e = Event(s, ctx, me)
            if ctx.today is not None and e.day is not None and e.day < ctx.today:
                continue
            if all(e.key != o.key for o in evs):
                evs.append(e)
    return evs


def best_option(text, options, need=1):
    tw = set(_words(text))
    best, score = "", 0
    for o in options:
        if not o:
            continue
        parts = [p.strip() for p in str(o).split(":")]
        ow = set(_words(" ".join(parts[1:]) if len(parts) > 1 else o))
        sc = len(tw & ow)
        if ow and " ".join(parts[1:2]).lower() and " ".join(parts[1:2]).lower() in text.lower():
            sc += 2
        if sc > score:
            best, score = o, sc
    return best if score >= need else ""


def conversation_lines(ctx, people):
    """The current conversation: last run of `Name: "words"` lines not under a memory bullet."""
    lines = ctx.user.split("\n")
    runs, cur, start = [], [], None
    for i, ln in enumerate(lines):
        m = re.match(r'^\s*(?:[-*]\s+)?(?:\[[^\]]*\]\s*)?([A-Z][\w\'. -]{1,60}?)(?:\s+(?:said|says|asked|replied))?\s*[:\u2014-]\s*["\u201c]?(.*?)["\u201d]?\s*$', ln)
        nm = m.group(1).strip() if m else ""
        pool = list(people) + [c for c in getattr(ctx, "cands", []) if c not in people]
        if m and m.group(2) and (nm in pool or any(nm == p.split()[0] for p in pool)) and nm not in ("Name", "Memory", "Question"):
            nm = next((p for p in pool if p == nm or p.split()[0] == nm), nm)
            if not cur:
                start = i
            cur.append((nm, m.group(2).strip().rstrip('"').rstrip("\u201d")))
        else:
            if cur:
                runs.append((start, cur))
            cur = []
    if cur:
        runs.append((start, cur))
    keep = []
    for start, run in runs:
        prev = ""
        j = start - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0:
            prev = lines[j].strip()
        if re.match(r"^([-*]|\d+\.)\s", prev) and not re.match(r"^\s*[-*]", lines[start]):
            continue  # a remembered conversation (lines under a remembered item)
        keep.append((start, run))
    empty_mark = re.compile(r"(nobody|no one|no-one) has (spoken|said)|not (yet )?(spoken|said anything)|"
                            r"(hasn't|has not) (started|begun)|nothing (has been )?said yet", re.I)
    em = [i for i, ln in enumerate(lines) if empty_mark.search(ln)]
    if not keep:
        return []
    start, run = keep[-1]
    if em and em[-1] > start + len(run) - 1:
        return []
    return run


def relation(ctx, me, other):
    if not other or other == me:
        return "known"
    per = ctx.persona(me)
    if other in per or other.split()[0] in per:
        return "close"
    if other in ctx.user:
        mem = ctx.sections_about(me, [p for p in ctx.people if p != me])
        if other in mem:
            return "known"
    return "stranger"


def first_person(me, clause):
    c = clause.strip().rstrip(".")
    for n in (me, me.split()[0]):
        if c.startswith(n + " "):
            rest = c[len(n) + 1:]
            w = rest.split(" ", 1)
            verb = w[0]
            verb = {"is": "am", "wants": "want", "has": "have", "was": "was", "will": "will"}.get(verb, verb)
            if verb.endswith("s") and verb not in ("was", "has", "is") and len(verb) > 3 and not verb.endswith("ss"):
                verb = verb[:-1]
            rest2 = re.sub(r"\b(his|her|their)\b", "my", w[1]) if len(w) > 1 else ""
            rest2 = re.sub(r"\band (\w+?)s\b", lambda mm: "and " + mm.group(1) if mm.group(1) not in ("i", "ha", "wa") else mm.group(0), rest2)
            return "I " + verb + (" " + rest2 if rest2 else "")
    return c


def _short(clause):
    c = re.split(r",\s+and\s+|;\s+", clause)[0]
    return c.strip().rstrip(".")


# ----------------------------------------------------------------------------- conversation engine

def decide_turn(ctx, rng, seed, me, partners, conv, my_text):
    """Return (words, end) for speaker `me` given conversation so far."""
    partner = partners[0] if partners else "there"
    pfirst = partner.split()[0]
    evs = find_events(my_text, ctx, me)
    conv_text = " ".join(t for _, t in conv).lower()
    mine = [t for s, t in conv if s == me]
    last_other = None
    for s, t in reversed(conv):
        if s != me:
            last_other = (s, t)
            break
        else:
            break
    # T2: answer an invitation / news
    if last_other is not None:
        s_o, t_o = last_other
        lo = t_o.lower()
        if (has_event_cue(t_o) and has_time_cue(t_o)) or re.search(r"\b(would you|want to|will you|come|join)\b.*\?", lo):
            ev = Event(t_o, ctx, s_o)
            rel = relation(ctx, me, s_o)
            if ev.host == me:
                return rng.choice(["Yes, that's right — I do hope you'll come!",
                                   "That's my plan! Everyone is welcome."]), False
            rr = random.Random(_h(seed, "accept", me, ev.key, ctx.today))
            busy, act = slot_busy(ctx, my_text, ev.day, ev.time if ev.time is not None else 18 * 60)
            dw = day_words(ev.day, ctx.today)
            tw = clock_words(ev.time)
            if busy:
                if rr.random() < 0.12:
                    return ("It clashes with %s, but this matters more — count me in%s." %
                            (act or "my plans", (" " + dw) if dw else "")), False
                if rr.random() < 0.6:
                    return "Sorry, I can't make it: I'm %s then." % (act or "busy"), False
                return "I'm %s at that time — could we meet another day instead?" % (act or "busy"), False
            p = {"close": 0.65, "known": 0.55, "stranger": 0.40}[rel]
            if rr.random() < p:
                return "That sounds lovely, count me in — I'll be there%s%s!" % (
                    (" " + dw) if dw else "", (" at " + tw) if tw else ""), False
            if rr.random() < 0.5:
                return "Maybe, I'll see how I feel %s." % (dw or "then"), False
            return "Thanks for telling me, but I don't think I'll come.", False
    # T1: tell news once per conversation
    for ev in evs:
        toks = set(_words(ev.what))
        if toks and len(toks & set(_words(conv_text))) >= max(1, len(toks) // 2):
            continue  # already mentioned
        if any("have you heard" in t.lower() or "come" in t.lower() for t in mine):
            break
        if ev.host in partners and ev.host != me:
            continue
        if ev.host == me:
            p = 0.75
        else:
            p = {"close": 0.40, "known": 0.30, "stranger": 0.15}[relation(ctx, me, partner)]
        rr = random.Random(_h(seed, "tell", me, partner, ev.key, ctx.today))
        if rr.random() < p:
            vague = rr.random() < 0.20
            if ev.host == me:
                c = _short(first_person(me, ev.core))
                if vague:
                    return "I'm planning %s soon — you should come!" % ev.what, False
                return "%s — would you like to come?" % c, False
            if vague:
                return "Have you heard? %s is planning %s sometime soon." % (ev.host or "someone", ev.what), False
            c = _short(ev.core)
            if ev.host and ev.host in c:
                pass
            return "Have you heard? %s." % c, False
        break
    # T3: small talk
    n = len(conv)
    cur = re.search(r"Currently:\s*(.+)", ctx.persona(me))
    curtext = cur.group(1) if cur else ""
    topic = _short(first_person(me, split_sentences(curtext)[0])) if curtext else "I've been keeping busy"
    if n == 0:
        return rng.choice(["Hi %s! How are you doing today?" % pfirst,
                           "Hello %s, nice to see you. %s." % (pfirst, topic),
                           "Good to see you, %s. %s these days." % (pfirst, topic)]), False
    if n >= 10 or (len(mine) >= 2 and rng.random() < 0.7):
        return rng.choice(["It was good to talk, %s. See you around!" % pfirst,
                           "I should get going — take care, %s." % pfirst,
                           "Anyway, I'd better get back to it. Bye for now!"]), True
    end = rng.random() < 0.15
    return rng.choice(["I'm doing well, thanks. %s." % topic,
                       "Oh, that's nice to hear. %s." % topic,
                       "Same as always, really. %s." % topic,
                       "Good, good. Busy day, you know how it is."]), end


def my_knowledge(ctx, me, others):
    return ctx.sections_about(me, others)


# ----------------------------------------------------------------------------- memos

def make_memo(ctx, rng, seed, me, lines, schema_props):
    date_enum = ((schema_props or {}).get("plan_date") or {}).get("enum") or []
    place_enum = ((schema_props or {}).get("plan_place") or {}).get("enum") or []
    others = [s for s, _ in lines if s != me]
    partner = others[0] if others else "someone"
    evs, ev_idx = [], []
    for i, (s, t) in enumerate(lines):
        if has_event_cue(t) and has_time_cue(t):
            evs.append(Event(t, ctx, s))
            ev_idx.append(i)
    memo = {"summary": "", "importance": 2, "plan_activity": "", "plan_date": "", "plan_start": "",
            "plan_minutes": 0, "plan_place": ""}
    if not evs:
        memo["summary"] = "%s chatted briefly with %s; nothing in particular was arranged." % (me, partner)
        memo["importance"] = 2 + (1 if rng.random() < 0.3 else 0)
        return memo
    ev, i0 = evs[0], ev_idx[0]
    teller = lines[i0][0]
    after = [t.lower() for s, t in lines[i0 + 1:] if s == me]
    stance = "heard"
    if teller == me and (ev.host == me or re.search(r"\b(i|we|my|our)\b", lines[i0][1].lower())
                         and ev.host in (None, me)):
        stance = "host"
    elif any(any(w in a for w in DECLINE_W) for a in after):
        stance = "declined"
    elif any(any(w in a for w in ACCEPT_W) for a in after):
        stance = "accepted"
    elif teller == me:
        stance = "told"
    day = ev.day if ev.day is not None else ctx.today
    dw = day_words(day, ctx.today)
    tw = clock_words(ev.time)
    if stance == "accepted":
        memo["summary"] = "%s heard from %s about %s and agreed to go %s%s." % (me, teller, ev.what, dw, (" at " + tw) if tw else "")
        memo["importance"] = 6
        p = 0.85
    elif stance == "host":
        memo["summary"] = "%s told %s about %s %s%s." % (me, partner, ev.what, dw, (" at " + tw) if tw else "")
        memo["importance"] = 6
        p = 0.55
    elif stance == "told":
        memo["summary"] = "%s passed on the news about %s to %s." % (me, ev.what, partner)
        memo["importance"] = 4
        p = 0.06
    elif stance == "declined":
        memo["summary"] = "%s heard about %s from %s but said they could not make it." % (me, ev.what, teller)
        memo["importance"] = 4
        p = 0.03
    else:
        memo["summary"] = "%s heard from %s about %s %s." % (me, teller, ev.what, dw)
        memo["importance"] = 4
        p = 0.06
    if rng.random() < 0.3:
        memo["importance"] += rng.choice([-1, 1])
    rr = random.Random(_h(seed, "memo", me, ev.key, stance, ctx.today))
    if rr.random() < p:
        memo["plan_activity"] = _clip("going to " + ev.what, 110) if stance != "host" else _clip("hosting " + ev.what, 110)
        iso = _iso(day) if day is not None else ""
        if date_enum and iso not in date_enum:
            iso = next((d for d in date_enum if d), "")
        memo["plan_date"] = iso
        memo["plan_start"] = _hm(ev.time if ev.time is not None else 18 * 60)
        memo["plan_minutes"] = ev.span or 120
        memo["plan_place"] = best_option(ev.text, place_enum, need=1) if place_enum else ""
    return memo


# ----------------------------------------------------------------------------- handlers

def h_turn_text(ctx, rng, seed):
    me = ctx.me
    others = [p for p in ctx.people if p != me]
    conv = conversation_lines(ctx, ctx.people)
    partners = [s for s, _ in reversed(conv) if s != me]
    if not partners:
        m = re.search(r"(?:talking|chatting|speaking) (?:with|to) ([A-Z][^.\n]+)", ctx.user)
        if m:
            partners = [p for p in others if p in m.group(1)]
    if not partners:
        partners = others[:1]
    words, end = decide_turn(ctx, rng, seed, me, partners, conv, my_knowledge(ctx, me, others))
    return words, end


def h_text(ctx, rng, seed, body):
    wants_marker = "[end]" in ctx.user or "[continue]" in ctx.user
    words, end = h_turn_text(ctx, rng, seed)
    r = rng.random()
    if r < 0.02:
        words = "%s: %s" % (ctx.me, words)
    elif r < 0.03:
        return rng.choice(REFUSALS)
    elif r < 0.04:
        words = '"%s"' % words
    if wants_marker and not (0.04 <= r < 0.06):
        return words + "\n" + ("[end]" if end else "[continue]")
    return words


def h_group_turn(ctx, rng, seed, props):
    me = ctx.me
    enum = (props.get("addressed_to") or {}).get("enum") or []
    others = [p for p in ctx.people if p != me]
    conv = conversation_lines(ctx, ctx.people)
    partners = [s for s, _ in reversed(conv) if s != me] or [e for e in enum if e != me and e.lower() != "everyone"] or others[:1]
    words, end = decide_turn(ctx, rng, seed, me, partners, conv, my_knowledge(ctx, me, others))
    to = partners[0] if conv and rng.random() < 0.6 else "everyone"
    if enum and to not in enum:
        to = "everyone" if "everyone" in enum else enum[0]
    return {"utterance": words, "addressed_to": to, "end_conversation": bool(end)}


def simulate(ctx, rng, seed, names, max_lines):
    conv = []
    done = set()
    know = {n: ctx.sections_about(n, [o for o in names if o != n]) for n in names}
    i = 0
    while len(conv) < max_lines and len(done) < len(names) - (0 if len(names) <= 2 else 1):
        me = names[i % len(names)]
        i += 1
        if me in done:
            continue
        partners = [s for s, _ in reversed(conv) if s != me] or [n for n in names if n != me]
        words, end = decide_turn(ctx, rng, seed, me, partners, conv, know[me])
        conv.append((me, words))
        if end:
            done.add(me)
            if len(names) == 2:
                break
    if len(conv) < 2:
        other = names[1] if len(names) > 1 else names[0]
        conv.append((other, "Take care, see you around!"))
    return conv


def h_conv_summary(ctx, rng, seed, schema):
    props = schema.get("properties", {})
    defs = schema.get("$defs", {})
    gist = defs.get("GistLine") or {}
    spk_enum = ((gist.get("properties") or {}).get("speaker") or {}).get("enum") or []
    names = spk_enum or [p for p in ctx.people][:2]
    if len(names) < 2:
        names = names + ["someone"]
    memo_keys = [k for k in props if k not in ("talk", "lines")]
    # is it a group (list of memos) or first/second
    rel = relation(ctx, names[0], names[1])
    talk = rng.random() < (0.80 if rel != "stranger" else 0.55)
    if not talk:
        out = {"talk": False, "lines": []}
        return out
    maxl = (props.get("lines") or {}).get("maxItems") or 6
    conv = simulate(ctx, rng, seed, names, min(maxl, 6 if len(names) == 2 else 8))
    out = {"talk": True, "lines": [{"speaker": s, "text": _clip(t, 290)} for s, t in conv]}

    def memo_schema(k):
        p = props.get(k) or {}
        ref = None
        if "$ref" in p:
            ref = p["$ref"]
        for alt in p.get("anyOf", []) or []:
            if "$ref" in alt:
                ref = alt["$ref"]
        if "items" in p and "$ref" in p["items"]:
            ref = p["items"]["$ref"]
        return (defs.get(ref.split("/")[-1]) if ref else p) or {}
    if "memos" in props:
        ms = memo_schema("memos")
        mp = ms.get("properties", {})
        out["memos"] = []
        for n in names:
            m = make_memo(ctx, rng, seed, n, conv, mp)
            if "name" in mp:
                m = dict(name=n, **m)
            out["memos"].append(m)
    else:
        for idx, k in enumerate(memo_keys):
            if idx < len(names):
                out[k] = make_memo(ctx, rng, seed, names[idx], conv, memo_schema(k).get("properties", {}))
    return out


def h_memo(ctx, rng, seed, props):
    conv = conversation_lines(ctx, ctx.people)
    return make_memo(ctx, rng, seed, ctx.me, conv, props)


def _places(ctx, enum):
    if enum:
        return [e for e in enum if e]
    m = re.findall(r"^\s*-\s*([^\n:]+:[^\n]+:[^\n]+)$", ctx.user, re.M)
    return m


def h_daily_plan(ctx, rng, seed, schema):
    me = ctx.me
    per = ctx.persona(me)
    blk = resolve(((schema.get("properties") or {}).get("blocks") or {}).get("items") or {}, schema)
    bprops = blk.get("properties") or {}
    addr_key = next((k for k in bprops if k in ("address", "place", "location", "where")), "address")
    enum = (resolve(bprops.get(addr_key) or {}, schema)).get("enum") or []
    places = _places(ctx, enum) or ["home"]
    sur = me.split()[-1]
    home = next((p for p in places if me in p or (sur in p and "bed" in p.lower())), None) or \
        next((p for p in places if "bed" in p.lower() or "home" in p.lower() or "apartment" in p.lower()), places[0])
    idw = ctx.persona(me)
    work = ""
    sc = 0
    for p in places:
        if p == home or "bedroom" in p.lower() or "bathroom" in p.lower() or re.search(r"[A-Z]\w+'s (room|bedroom)", p):
            continue
        parts = p.split(":")
        s2 = len(set(_words(":".join(parts[1:]))) & set(_words(idw)))
        if s2 > sc:
            work, sc = p, s2
    work = work or places[min(1, len(places) - 1)]
    food = next((p for p in places if re.search(r"cafe|pub|inn|taproom|kitchen|market|bakery|diner", p, re.I)), home)
    wm = re.search(r"(?:wakes? up|sleeps? in until|gets? up|rises?|up by)\s+(?:at |around |about |by )?([^,;]+)", per, re.I)
    wake = parse_time(wm.group(1)) if wm else None
    wake = wake if wake is not None and 240 <= wake <= 720 else 7 * 60
    bm = re.search(r"(?:to bed|in bed|turns in|goes to sleep|falls asleep)\s+(?:at |around |by |about )?([^,;]+)", per, re.I)
    bed = parse_time(bm.group(1)) if bm else None
    if bed is not None and 4 * 60 <= bed < 19 * 60:
        bed = None
    if bed is None:
        bed = 23 * 60
    if bed < 12 * 60:
        bed += 24 * 60
    wh = work_hours(per) or (max(wake + 90, 9 * 60), 17 * 60)
    wa, wb = max(wh[0], wake + 60), max(min(wh[1], bed - 120), wh[0] + 60)
    items = [(wake, wake + 30, "waking up and getting ready", "\U0001F6BF", home),
             (wake + 30, max(wa, wake + 60), "having breakfast", "\U0001F373", home)]
    if wa < 12 * 60 < wb - 60:
        items += [(max(wa, wake + 60), 12 * 60, "working", "\U0001F4BC", work), (12 * 60, 13 * 60, "having lunch", "\U0001F96A", food),
                  (13 * 60, wb, "working", "\U0001F4BC", work)]
    else:
        items += [(max(wa, wake + 60), wb, "working", "\U0001F4BC", work)]
    dn = max(wb, 18 * 60)
    if dn > wb:
        items.append((wb, dn, "relaxing", "\U0001F6CB", home))
    items += [(dn, dn + 60, "having dinner", "\U0001F37D", home), (dn + 60, bed, "relaxing at home", "\U0001F4D6", home)]
    items = [it for it in items if it[1] > it[0]]
    # P1 event
    know = ctx.user
    for ev in find_events(know, ctx, me):
        if ev.day is not None and ev.day != ctx.today:
            continue
        if ev.time is None:
            continue
        promised = any(any(w in s.lower() for w in ACCEPT_W) and (set(_words(ev.what)) & set(_words(s)))
                       for s in split_sentences(know) if me.split()[0] in s or s.lower().startswith("i "))
        p = 0.90 if ev.host == me else (0.75 if promised else 0.30)
        a, b = ev.time, ev.time + (ev.span or 120)
        overlaps_work = any(x[2] == "working" and x[0] < b and a < x[1] for x in items)
        if overlaps_work and ev.host != me:
            p *= 0.5
        rr = random.Random(_h(seed, "attend", me, ev.key, ctx.today))
        if rr.random() < p and wake + 60 <= a and b <= bed:
            place = best_option(ev.text, places, need=1) or food
            new = []
            for x in items:
                if x[1] <= a or x[0] >= b:
                    new.append(x)
                else:
                    if x[0] < a:
                        new.append((x[0], a) + x[2:])
                    if x[1] > b:
                        new.append((b,) + x[1:])
            new.append((a, b, _clip(("hosting " if ev.host == me else "going to ") + ev.what, 110), "\U0001F389", place))
            items = sorted(new)
        break
    items = [x for x in items if x[1] - x[0] >= 5]
    items.append((items[-1][1], items[-1][1] + min(960, max(5, wake + 1440 - items[-1][1])), "sleeping", "\U0001F634", home))
    if "wake_up_hour" not in (schema.get("properties") or {}):
        # a re-plan of the rest of the day: start from the time now
        nm = re.search(r"\b(?:it is|now|time is|current time)\b[^\n]{0,60}?(\d{1,2}:\d\d(?:\s*[ap]m)?|\d{1,2}\s*[ap]m)", ctx.user, re.I)
        now = parse_time(nm.group(1)) if nm else None
        if now is not None:
            kept = [(max(x[0], now),) + x[1:] for x in items if x[1] > now]
            items = [x for x in kept if x[1] - x[0] >= 5] or items[-1:]
    items = items[:16]
    blocks = [{"start": _hm(x[0]), "duration_minutes": int(min(960, max(5, x[1] - x[0]))), "activity": x[2],
               "emoji": x[3], addr_key: x[4]} for x in items]
    outline = ["wake up at %s" % clock_words(wake), "have breakfast", "work at %s from %s to %s" % (
        work.split(":")[1] if ":" in work else work, clock_words(wa), clock_words(wb))]
    outline += [x[2] + " at " + clock_words(x[0]) for x in items if x[3] == "\U0001F389"]
    outline += ["have dinner", "go to bed at %s" % clock_words(bed % 1440)]
    return {"wake_up_hour": wake // 60, "outline": outline[:8], "blocks": blocks}


STEP_LIB = [
    (("breakfast", "lunch", "dinner", "eat", "meal", "supper"), ["preparing the food", "setting the table", "eating", "washing the dishes"]),
    (("sleep", "bed", "nap"), ["getting into bed", "sleeping"]),
    (("waking", "getting ready", "wash", "shower"), ["getting out of bed", "washing up", "getting dressed", "tidying the room"]),
    (("relax", "rest", "leisure"), ["sitting down", "reading a little", "stretching", "tidying up"]),
]


def h_decompose(ctx, rng, schema):
    defs = schema.get("$defs", {})
    st = next(iter(defs.values()), {}) if defs else {}
    sp = st.get("properties", {})
    objs = [o for o in ((sp.get("object") or {}).get("enum") or []) if o]
    dmax = (sp.get("duration_minutes") or {}).get("maximum", 15)
    dmin = (sp.get("duration_minutes") or {}).get("minimum", 5)
    m = re.search(r"\((\d+)\s*min", ctx.user[-1500:]) or re.search(r"(\d+)\s*minutes", ctx.user)
    total = int(m.group(1)) if m else 30
    am = re.search(r"is ([^,\n]+?), at ", ctx.user) or re.search(r"is ([a-z][^,.\n]+)", ctx.user[-1500:])
    act = am.group(1).strip() if am else "working"
    steps_txt = None
    for keys, st_list in STEP_LIB:
        if any(k in act.lower() for k in keys):
            steps_txt = st_list
            break
    if steps_txt is None:
        core = re.sub(r"^(starting|finishing):\s*", "", act)
        steps_txt = ["getting set up for " + core, core, "taking a short break", "carrying on " + core, "wrapping up"]
    items = (sp.get("steps") or {})
    n = max(2, min(6, round(total / 10)))
    n = min(n, len(steps_txt)) if len(steps_txt) >= 2 else 2
    base = max(dmin, min(dmax, total // n))
    durs = [base] * n
    rem = total - base * n
    k = 0
    while rem > 0 and k < 100:
        if durs[k % n] < dmax:
            durs[k % n] += 1
            rem -= 1
        k += 1
    out = []
    for i in range(n):
        a = steps_txt[i % len(steps_txt)]
        o = best_option(a + " " + act, objs, need=1) if objs else ""
        if not o and objs:
            for ob in objs:
                if ob.lower() in (a + " " + act).lower():
                    o = ob
        state = ("in use" if o else "")
        out.append({"activity": _clip(a, 78), "duration_minutes": durs[i], "object": o, "object_state": state})
    return {"steps": out}


def h_react(ctx, rng, seed):
    me = ctx.me
    m = re.search(r'noticed:?\s*"([^"]+)"', ctx.user) or re.search(r'"([^"]+)"', ctx.user)
    obs = m.group(1) if m else ""
    who = next((p for p in ctx.people if p != me and p in obs), None)
    situ = ctx.user.split("\n\n", 1)[-1]
    cur = re.search(re.escape(me) + r" is ([^\n(.]+)", situ)
    doing = cur.group(1).strip() if cur else "what they were doing"
    if "sleep" in doing.lower() or who is None:
        if rng.random() < 0.05:
            return {"choice": "react", "reason": "It is worth a look.", "new_activity": "looking into " + _clip(obs, 60)}
        return {"choice": "continue", "reason": "%s carries on %s; nothing here needs attention." % (me, doing), "new_activity": ""}
    others = [p for p in ctx.people if p != me]
    evs = find_events(ctx.sections_about(me, others), ctx, me)
    rel = relation(ctx, me, who)
    p = {"close": 0.25, "known": 0.15, "stranger": 0.08}[rel]
    reason = "%s would like to say hello to %s." % (me, who)
    if evs:
        e = evs[0]
        p = 0.50 if e.host == me else max(p, 0.30)
        reason = "%s wants to tell %s about %s." % (me, who, e.what)
    r = rng.random()
    if r < p:
        return {"choice": "talk", "reason": reason, "new_activity": ""}
    if r < p + 0.05:
        return {"choice": "react", "reason": "Seeing %s reminds %s of something to do." % (who, me),
                "new_activity": "checking on " + _clip(obs, 80)}
    return {"choice": "continue", "reason": "%s keeps on %s; it can wait." % (me, doing), "new_activity": ""}


def h_interview(ctx, rng):
    me = ctx.me
    m = re.findall(r'["\u201c]([^"\u201d]{3,300})["\u201d]', ctx.user)
    qs = [x for x in m if "?" in x]
    q = qs[-1] if qs else (max(m[-3:], key=len) if m else ctx.user[-200:])
    qw = set(_words(q)) - set(_words(me))
    best, sc = None, 0
    for s in split_sentences(ctx.user):
        if q in s or s.startswith(("Name:", "Age:")):
            continue
        k = len(qw & set(_words(s)))
        if k > sc:
            best, sc = s, k
    if best and sc >= max(1, min(2, len(qw) // 2)):
        fact = first_person(me, best.strip('"'))
        if rng.random() < 0.15:
            return {"answer": _clip("I think I heard something about that: %s. I'm not completely sure of the details." % fact.rstrip("."), 590)}
        return {"answer": _clip("Yes — %s." % fact.rstrip("."), 590)}
    return {"answer": "I don't know anything about that, sorry."}


def score_importance(text, rng):
    t = text.lower()
    if any(w in t for w in ("death", "died", "breakup", "broke up", "married", "engaged", "accepted to", "fired", "fire", "pregnan", "accident", "funeral")):
        v = 8
    elif has_event_cue(t) and has_time_cue(t):
        v = 6
    elif re.search(r"\b(crush|in love|secret|argument|fight|quarrel|promotion|exams?|worried|afraid|ill|sick|"
                   r"debt|job|news|proposal|invited)\b", t):
        v = 5
    elif any(w in t for w in ("conversation", "chatted", "said", "heard", "told", "asked")):
        v = 3
    elif any(w in t for w in ("sleeping", "waking", "breakfast", "lunch", "dinner", "in use", "idle", "relaxing", "busy at", "getting ready")):
        v = 1 if ("sleeping" in t or "in use" in t or "idle" in t) else 2
    else:
        v = 3
    if rng.random() < 0.3:
        v += rng.choice([-1, 1])
    return max(1, min(10, v))


def h_importance(ctx, rng):
    m = re.findall(r'["\u201c]([^"\u201d]{3,})["\u201d](?!\s*:)', ctx.user)
    text = m[-1] if m else ctx.user[-300:]
    return {"importance": score_importance(text, rng)}


def h_importance_batch(ctx, rng, props):
    it = props.get("ratings") or {}
    n = it.get("minItems") or 0
    quoted = re.findall(r'^\s*(?:[-*]|\d+\.)\s*"?(.+?)"?\s*$', ctx.user.split("rate", 1)[-1], re.M)
    quoted = [q for q in quoted if q.strip()]
    if n and len(quoted) != n:
        quoted = (quoted + [""] * n)[:n]
    return {"ratings": [score_importance(q, rng) for q in quoted] or [3]}


def h_relationship(ctx, rng):
    me = ctx.me
    others = [p for p in ctx.people if p != me]
    m = re.search(r"about ([A-Z][\w'-]+(?: [A-Z][\w'-]+)+)", ctx.user)
    who = m.group(1) if m and m.group(1) != me else (others[0] if others else "them")
    rel = relation(ctx, me, who)
    per = ctx.persona(me)
    if rel == "close":
        s = next((x for x in split_sentences(per) if who in x or who.split()[0] in x), "")
        s = s.replace(me, "").strip() if s else ""
        return {"summary": _clip("%s is someone %s knows well%s; %s feels warmly towards %s right now." % (
            who, me, (" (" + _clip(s, 160) + ")") if s else "", me, who.split()[0]), 395)}
    if rel == "known":
        return {"summary": _clip("%s is an acquaintance of %s from around town; they have crossed paths recently and %s feels friendly but not close." % (who, me, me), 395)}
    return {"summary": "%s barely knows %s; %s has no strong feelings about them yet." % (me, who, me)}


def h_currently(ctx, rng):
    me = ctx.me
    m = re.search(r"Currently:\s*(.+)", ctx.user)
    old = m.group(1).strip() if m else "%s is going about the usual routine." % me
    sent = split_sentences(old)[:2]
    evs = find_events(ctx.user.split(old, 1)[-1] if old in ctx.user else ctx.user, ctx, me)
    if evs and rng.random() < 0.8:
        e = evs[0]
        dw = day_words(e.day, ctx.today)
        if e.host == me:
            sent.append("%s is getting ready for %s %s." % (me, e.what, dw))
        else:
            sent.append("%s knows about %s %s and is thinking about going." % (me, e.what, dw))
    return {"currently": _clip(" ".join(sent), 495)}


def h_questions(ctx, rng, props):
    me = ctx.me
    mx = (props.get("questions") or {}).get("maxItems") or 3
    others = [p for p in ctx.people if p != me]
    counts = sorted(others, key=lambda p: -ctx.user.count(p))
    qs = []
    for p in counts[:2]:
        qs.append("What does %s know about %s?" % (me, p))
    qs.append("What is %s most focused on these days?" % me)
    return {"questions": qs[:max(1, min(mx, 3))]}


def h_insights(ctx, rng, schema):
    me = ctx.me
    defs = schema.get("$defs", {})
    ins = next(iter(defs.values()), {}) if defs else {}
    ev_enum = (((ins.get("properties") or {}).get("evidence") or {}).get("items") or {}).get("enum") or list(range(1, 31))
    stmts = {}
    for m in re.finditer(r"^\s*(\d{1,2})\.\s*(.+)$", ctx.user, re.M):
        stmts[int(m.group(1))] = m.group(2)
    questions = re.findall(r'Question:?\s*"([^"]+)"', ctx.user) or re.findall(r"(What [^?\n]+\?)", ctx.user)[:2] or ["about %s" % me]
    out = []
    for q in questions[:5]:
        subj = next((p for p in ctx.people if p != me and p in q), None)
        keyw = subj or me
        ev = [n for n, s in stmts.items() if keyw in s and n in ev_enum][:6] or [n for n in stmts if n in ev_enum][:2] or [ev_enum[0]]
        txt = "\n".join(stmts.get(n, "") for n in ev)
        evs = find_events(txt, ctx, me)
        if evs:
            out.append({"insight": _clip("%s knows that %s." % (me, _clip(_short(evs[0].core), 200).rstrip(".")), 290),
                        "about": _clip(evs[0].what, 58), "evidence": ev[:4], "importance": 6})
        if subj:
            out.append({"insight": _clip("%s sees %s often around town and they are on friendly terms." % (me, subj), 290),
                        "about": _clip(subj, 58), "evidence": ev[:5], "importance": 3 + (1 if rng.random() < 0.3 else 0)})
        else:
            out.append({"insight": _clip("%s keeps to a steady daily routine." % me, 290), "about": "daily routine",
                        "evidence": ev[:5], "importance": 2})
    return {"insights": out[:15]}


# ----------------------------------------------------------------------------- generic schema filler

def resolve(schema, root):
    if not isinstance(schema, dict):
        return {}
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        return resolve((root.get("$defs") or root.get("definitions") or {}).get(name, {}), root)
    if "anyOf" in schema or "oneOf" in schema:
        alts = [a for a in (schema.get("anyOf") or schema.get("oneOf")) if a.get("type") != "null"]
        return resolve(alts[0], root) if alts else {"type": "null"}
    return schema


def generic(schema, root, ctx, rng, key=""):
    s = resolve(schema, root)
    if "enum" in s:
        opts = s["enum"]
        strs = [o for o in opts if isinstance(o, str) and o]
        if strs:
            b = best_option(ctx.user[-1500:], strs, need=1)
            if b:
                return b
        return rng.choice(opts) if opts else ""
    t = s.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if t == "object" or "properties" in s:
        out = {}
        for k, v in (s.get("properties") or {}).items():
            out[k] = generic(v, root, ctx, rng, k)
        return out
    if t == "array":
        n = max(s.get("minItems", 1), 1)
        n = min(n, s.get("maxItems", n))
        return [generic(s.get("items", {}), root, ctx, rng, key) for _ in range(n)]
    if t == "integer":
        lo, hi = s.get("minimum", 1), s.get("maximum", 10)
        return int((lo + hi) // 2)
    if t == "number":
        return float(s.get("minimum", 0))
    if t == "boolean":
        return rng.random() < 0.5 if key not in ("ok",) else True
    if t == "null":
        return None
    pat = s.get("pattern", "")
    if "[0-5][0-9]" in pat or "HH:MM" in (s.get("description") or ""):
        return "" if pat.endswith(")?$") else "12:00"
    if "[0-9]{4}" in pat:
        return ""
    txt = "%s thinks it over and answers plainly." % ctx.me
    if re.search(r"utter|say|line|text|answer|reply", key):
        txt = "Hello there. I'm %s." % ctx.me
    return txt


def conform(v, schema, root):
    """Make an intended-valid answer fit its schema (lengths, ranges, enums, required)."""
    s = resolve(schema, root)
    try:
        if v is None:
            if "anyOf" in (schema or {}) and any(a.get("type") == "null" for a in schema["anyOf"]):
                return None
            return generic(s, root, _EMPTY, random.Random(0))
        if "enum" in s and v not in s["enum"]:
            strs = [o for o in s["enum"] if isinstance(o, str)]
            if "" in s["enum"]:
                return ""
            return best_option(str(v), strs, 0) or s["enum"][0]
        t = s.get("type")
        if (t == "object" or "properties" in s) and isinstance(v, dict):
            props = s.get("properties") or {}
            out = {}
            for k, sv in props.items():
                if k in v:
                    out[k] = conform(v[k], sv, root)
            for k in s.get("required", []):
                if k not in out:
                    out[k] = generic(props.get(k, {}), root, _EMPTY, random.Random(0), k)
            if s.get("additionalProperties", True) is not False:
                for k in v:
                    out.setdefault(k, v[k])
            return out
        if t == "array" and isinstance(v, list):
            mx = s.get("maxItems")
            if mx is not None:
                v = v[:mx]
            v = [conform(x, s.get("items", {}), root) for x in v]
            while len(v) < s.get("minItems", 0):
                v.append(v[-1] if v else generic(s.get("items", {}), root, _EMPTY, random.Random(0)))
            return v
        if t == "string":
            v = str(v)
            if "maxLength" in s and len(v) > s["maxLength"]:
                v = _clip(v, s["maxLength"])
            if s.get("minLength", 0) > len(v):
                v = (v + " ok")[:max(s["minLength"], len(v) + 3)]
            if "pattern" in s and not re.search(s["pattern"], v):
                v = "" if re.search(s["pattern"], "") else generic(s, root, _EMPTY, random.Random(0))
            return v
        if t == "integer":
            v = int(round(float(v)))
            v = max(s.get("minimum", v), min(s.get("maximum", v), v))
            return v
        if t == "boolean":
            return bool(v)
    except Exception:
        pass
    return v


class _Empty:
    user = ""
    me = "I"


_EMPTY = _Empty()


# ----------------------------------------------------------------------------- dispatch

def _json_answer(ctx, rng, seed, name, schema):
    props = schema.get("properties") or {}
    keys = set(props)
    if keys == {"ok"} or name == "probe":
        return {"ok": True}
    if "utterance" in keys:
        return h_group_turn(ctx, rng, seed, props)
    if "talk" in keys:
        return h_conv_summary(ctx, rng, seed, schema)
    if {"summary", "plan_activity"} <= keys:
        return h_memo(ctx, rng, seed, props)
    if "blocks" in keys:
        return h_daily_plan(ctx, rng, seed, schema)
    if "steps" in keys:
        return h_decompose(ctx, rng, schema)
    if "choice" in keys:
        return h_react(ctx, rng, seed)
    if "insights" in keys:
        return h_insights(ctx, rng, schema)
    if "questions" in keys:
        return h_questions(ctx, rng, props)
    if "ratings" in keys:
        return h_importance_batch(ctx, rng, props)
    if keys == {"importance"}:
        return h_importance(ctx, rng)
    if "answer" in keys:
        return h_interview(ctx, rng)
    if "currently" in keys:
        return h_currently(ctx, rng)
    if keys == {"summary"}:
        return h_relationship(ctx, rng)
    return generic(schema, schema, ctx, rng)


def _enum_paths(v, schema, root, path=()):
    """Paths to string fields with a non-trivial enum (for the out-of-enum malformation)."""
    s = resolve(schema, root)
    out = []
    if "enum" in s and isinstance(v, str) and len([e for e in s["enum"] if e]) > 1:
        out.append(path)
    elif isinstance(v, dict):
        for k, sv in (s.get("properties") or {}).items():
            if k in v:
                out += _enum_paths(v[k], sv, root, path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out += _enum_paths(x, s.get("items", {}), root, path + (i,))
    return out


def respond(body, seed):
    """The completion's content text for one chat completion request body."""
    try:
        body = body if isinstance(body, dict) else {}
        msgs = body.get("messages") or []
        rng = random.Random(_h(seed, json.dumps(msgs, sort_keys=True, default=str)))
        ctx = Ctx(body)
        rf = body.get("response_format") or {}
        rtype = rf.get("type") if isinstance(rf, dict) else None
        if rtype == "json_schema":
            js = rf.get("json_schema") or {}
            schema = js.get("schema") or {}
            name = js.get("name") or ""
            val = _json_answer(ctx, rng, seed, name, schema)
            val = conform(val, schema, schema)
            r = rng.random()
            if r < 0.01:
                paths = _enum_paths(val, schema, schema)
                if paths:
                    pth = rng.choice(paths)
                    tgt = val
                    for k in pth[:-1]:
                        tgt = tgt[k]
                    old = tgt[pth[-1]]
                    tgt[pth[-1]] = (old.split(":")[-1] if ":" in old else (old + " (probably)")) or "somewhere nearby"
            text = json.dumps(val, ensure_ascii=False)
        elif rtype == "json_object":
            val = {"answer": h_turn_text(ctx, rng, seed)[0]}
            r = rng.random()
            text = json.dumps(val, ensure_ascii=False)
        else:
            return h_text(ctx, rng, seed, body)
        if 0.01 <= r < 0.04:
            cut = max(1, int(len(text) * rng.uniform(0.4, 0.85)))
            return text[:cut]
        if 0.04 <= r < 0.05:
            return rng.choice(REFUSALS)
        if 0.05 <= r < 0.07:
            return "%s: %s" % (ctx.me, text)
        if 0.07 <= r < 0.08:
            return "```json\n%s\n```" % text
        return text
    except Exception:
        try:
            rf = (body or {}).get("response_format") or {}
            if isinstance(rf, dict) and rf.get("type") in ("json_schema", "json_object"):
                sch = ((rf.get("json_schema") or {}).get("schema")) or {}
                try:
                    return json.dumps(conform(generic(sch, sch, _EMPTY, random.Random(seed)), sch, sch))
                except Exception:
                    return "{}"
        except Exception:
            pass
        return "Sorry, I lost my train of thought.\n[continue]"
