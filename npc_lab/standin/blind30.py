"""blind30 -- blind stand-in for a ~27-32B open-weights instruction-tuned chat model served by vLLM
with guided JSON decoding, asked to act as a JUDGE that ranks lettered interview answers given by
versions of a town resident by believability.

Written from the captured request bodies only (requests/judge.jsonl) and blind-evaluation.md.
All rules, weights and rates below were declared before the module was first run.

ENTRY POINT: respond(body: dict, seed: int) -> str   (assistant message content)
Determinism: every random draw comes from random.Random seeded with sha256(seed | sha256(canonical
JSON of body) | draw counter).  No hash(), no global random.  respond() never raises: any internal
error returns a minimal object valid for the request's schema (or '{}' / a short sentence).

READING THE REQUEST (by form, not by headings)
 R1 The request text is the user message that holds a run of lettered lines (A./A)/(A)/A:/
    "Answer A:") whose letters are the schema's letter enum, in order; the LAST such complete run
    is the answer set.  Continuation lines belong to the previous answer; quotes are stripped.
    Retries: earlier assistant turn + later complaint are read too (see J10).
 R2 Question = the nearest line before the answers that is wholly quoted or ends with '?'
    (a 'Label:' prefix is dropped); else nearest such line anywhere; else ''.
 R3 Resident = a capitalised 2-3 word name given on a short 'label: Name' line, else the most
    frequent capitalised bigram of the text that is not a place (Cafe, Park, College, Day ...).
 R4 Record = bullet/numbered lines (-, *, bullet, '1.'); context = everything except the answers
    and the question (description + record + instructions).  Times are read in any style:
    '17:00', '5 pm', '5:45pm', 'noon', 'midnight', 'five in the afternoon', 'half past five',
    "six o'clock" -> minutes of the day.
 R5 A request is a RANKING when its schema has an array property whose items are a string enum
    (letters) and the text has the lettered answers.  Otherwise see NON-RANKING below.

SCORING (per answer; 'noticed' draws are made once per distinct answer text and check, so
identical answers are judged identically)
 S1 Length/fluency bias: +0.30*ln(1+words) (the prompt says not to reward length; a 30B model
    partly does anyway).  Rambling: words>55 -> -0.012 per word over 55, noticed p=0.5.
 S2 Specificity: +0.16 per concrete detail (known names, clock times, numbers, known capitalised
    places), capped at 5 details.
 S3 Grounding: +0.9 * share of the answer's content-word stems (not in the question) that occur in
    the description/record.
 S4 Question coverage: each part of the question ('..., and who/what/...') has a demand:
    who->a person, where->a place, when/what time/routine/planned/tomorrow/next->a time,
    why->a reason, 'what do you do / how do you respond / what would you do'->an action,
    'think of / describe / feel about'->an evaluative word, a person named in the question->that
    person mentioned.  Each unmet demand -0.45, noticed p=0.7.
 S5 Evasive non-answer ("don't know", "can't recall", "you've got me there", "only be guessing",
    "nothing comes to mind", ...; the phrase must be in the first 40% of the answer or the answer
    <=12 words): -1.2, noticed p=0.9; halved when it gives a reason (>=9 words and
    because/so/since/mostly/though).
 S6 Out of character / meta text (refusal, "as an AI", role-play, schema/validation/error text,
    JSON): -3.0, noticed p=0.95.
 S7 Third person about oneself (resident's first/full name outside 'I'm X'/'my name is X'/'X here'),
    or a 'Name says:' prefix: -1.6 (+ -0.4 for the prefix), noticed p=0.8.
 S8 Truncated answer (no closing . ! ? ... or quote): -1.0, noticed p=0.75.
 S9 Fluency glitches, each -0.45 (repeated sentence -0.7, 24h clock -0.25), total capped -1.6:
    repeated sentence p=0.7; capital after a comma ('After all, My') p=0.45; same name twice in a
    list p=0.5; 'that so,' p=0.5; >=3 told/heard/said in one sentence p=0.5; record scaffolding
    leaked ('said they would go', 'share news with each other', 'did:'/'thought:') p=0.6;
    two time spans back to back p=0.35; 24-hour clock in speech p=0.25; embedded dialogue
    ('Name: "') p=0.7; 'the Maria's' p=0.35; two discourse openers stacked ('Honestly, hello')
    p=0.35; a statement echoed with '?' p=0.35.  Names in a list are compared by known first names.
    Clock times are matched per comma clause (a clause holding only a time joins the next one).
    Stems = first 4 letters of content words.
 S10 Contradictions with the prompt: person name not in the prompt or a mixed-up full name
    (known first + wrong surname) -0.9, noticed p=0.55; a clock time whose clause shares words
    with record/description lines that carry times, none within 20 min -> -0.8, noticed p=0.4
    (unverifiable times are not penalised); denying knowledge ("didn't know", "never heard", ...)
    of a topic from the question that the record mentions -1.2, noticed p=0.6.
 S11 Discourse-opener taste, drawn per request: p=0.5 likes them (+0.15 'natural, conversational'),
    p=0.3 neutral, p=0.2 dislikes them (-0.10 'filler').
 S12 Position (primacy) bias: +0.12 for the first answer falling linearly to 0 for the last.
 S13 Noise (temperature 0.7): Gaussian sd 0.40 per distinct answer text.
 S14 Ties (identical texts): kept in letter order with p=0.85, else reversed.

JUDGE-LEVEL BEHAVIOUR (per request)
 J1 Skim mode p=0.07: subtle checks (S4, S9, S10, rambling) noticed at half their rate, length
    weight doubled.
 J2 Copies the example order from the prompt (enum order) p=0.03.
 J3 Full inversion (reads 'least' first) p=0.01.
 J4 Reason names a different letter as best than the ranking puts first p=0.03 (sloppy).
 J5 Reason: 1-2 sentences, <=~330 chars (schema maxLength always honoured): the top answer's
    strongest noticed merit and the bottom answer's worst noticed flaw, using the resident's first
    name; p=0.2 a generic reason instead; p=0.3 a remark on identical answers when there are any.
 J6 Guided decoding: output always matches the schema (enum letters once each, min/max items,
    maxLength, required, no extra keys).  Declared malformed-output rate: 0 (guided decoding;
    max_tokens 400 is far above the ~100 tokens used).
 J10 Retry (earlier assistant turn in the messages): p=0.7 the letter first named in the earlier
    answer is put first again (anchoring), rest by score.

NON-RANKING requests: if the prompt shows a JSON example that validates against the schema, that
example is returned; else a minimal valid object is built from the schema (strings a short
sentence, enums a draw, numbers the lower bound or 0, arrays minItems).  Without a schema: a short
plain sentence ('{}' for json_object mode).

CHANGES AFTER FIRST RUN
 (none) -- first run over the 609 captured requests (seed 0, then seeds 0-9 under two
 PYTHONHASHSEEDs): 609/609 and 6090/6090 answered, all schema-valid, 0 exceptions, identical output
 digests across processes.  No rule, weight or rate was changed after that run.
"""
import hashlib
import json
import math
import random
import re

# ---------------------------------------------------------------- randomness
class _Dice:
    def __init__(self, seed, body):
        try:
            canon = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        except Exception:
            canon = repr(body)
        self.base = "%s|%s" % (seed, hashlib.sha256(canon.encode("utf-8", "replace")).hexdigest())
        self.n = 0

    def _r(self):
        self.n += 1
        h = hashlib.sha256(("%s|%d" % (self.base, self.n)).encode()).hexdigest()
        return random.Random(int(h, 16))

    def p(self, prob):
        return self._r().random() < prob

    def gauss(self, sd):
        return self._r().gauss(0.0, sd)

    def choice(self, seq):
        return self._r().choice(list(seq))


# ---------------------------------------------------------------- word lists
STOP = set("""a an the and or but if so to of in on at by for with from as is are was were be been being
i me my mine we us our you your he him his she her they them their it its this that these those there here
what who whom where when why how which do does did done doing have has had having will would shall should
can could may might must not no yes just very really also too then than about into over after before up
down out off again still only even much many more most some any all each every other another such own same
i'm i'd i'll i've it's that's don't didn't can't couldn't won't wouldn't isn't wasn't there's let's
am get got go going went come came say said tell told know knew think thought like well oh hmm hm
honestly okay ok sure maybe probably today yesterday tomorrow now while though because since until""".split())
PLACE = set("""cafe café park college pub day street road library store shop house market hall bar supply
garden hill crown rose lane avenue square church school university hospital office station inn bakery
restaurant bank center centre gym studio club museum theatre theater grocery pharmacy apartments dorm
room bedroom kitchen town city ville village river beach lake bridge tower building""".split())
NOTNAME = set("""The A An I And But Or So If Then When Where What Who Why How This That These Those It
Its My Our Your His Her Their We You He She They Hello Hi Hey Yes No Oh Well Hmm Hm Honestly Maybe
Probably Most Mostly Earlier Later Today Tomorrow Yesterday Tonight Nothing Not Nobody Right Let After
Besides Also Otherwise Beyond Try Home At In On Of For With To From By As Sure Let's Valentine's""".split())
DAYS = set("""Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May
June July August September October November December""".split())
OPENERS = ("honestly", "well", "oh", "hmm", "hm", "let me think", "you know", "after all", "right now",
           "to be honest", "so", "ah", "um", "uh", "besides")
EVASIVE = ["don't know", "do not know", "not sure", "can't recall", "cannot recall", "can't remember",
           "don't remember", "no idea", "haven't a clue", "not a clue", "got me there", "only be guessing",
           "couldn't say", "could not say", "nothing comes to mind", "nobody much", "hard to say",
           "couldn't give you", "couldn't tell you", "don't hold me to it", "much the same as ever",
           "not the best one to ask", "can't think of", "not sure what to say", "i wouldn't know",
           "nothing in particular", "can't say"]
META = [r"\bas an ai\b", r"language model", r"\brole-?play", r"\bschema\b", r"\berror\(s\)|\berrors?:",
        r"extra inputs", r"not permitted", r"\bjson\b", r"\bvalidation\b", r"happy to help with",
        r"\bcannot assist\b", r"\bcan't assist\b", r"\bai assistant\b", r"\bthe prompt\b", r"\bpydantic\b",
        r"\bnull\b", r"\bundefined\b", r"traceback"]
DENIAL = ["didn't know", "did not know", "never heard", "haven't heard", "have not heard", "don't know about",
          "news to me", "first i've heard", "first i have heard", "no idea about", "not heard of"]
EVAL = set("""kind nice good great warm lovely friend friends friendly like love admire trust sweet smart funny
generous sharp hard-working hardworking fond decent solid reliable wonderful brilliant caring talented
busy bright clever helpful heart best respect annoying difficult odd fun patient thoughtful honest""".split())
REASONW = re.compile(r"\b(because|since|so that|as i|as it|'cause|that's why|which is why|to get|to see|"
                     r"to be|to finish|to help|so i|so we|for the|reason)\b|;", re.I)
ACTIONW = re.compile(r"\b(i'd|i would|i'll|i will|i'm going to|i am going to|i go|i ask|i get|i turn|"
                     r"i call|first|then|i'd)\b", re.I)
TIMEWORD = re.compile(r"\b(morning|afternoon|evening|night|tonight|noon|midnight|tomorrow|today|later|soon|"
                      r"now|first thing|o'clock|until|till|after|before|around \d|at \d|wake|bed|lunch|"
                      r"dinner|breakfast|yesterday|ago|last)\b", re.I)
PLACEW = re.compile(r"\b(home|here|there|at the|in the|to the|cafe|café|pub|park|college|library|dorm|"
                    r"town|house|room|flat|apartment|place|work|office|shop|store)\b", re.I)

NUMW = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
        "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}


# ---------------------------------------------------------------- small text helpers
def _words(t):
    return re.findall(r"[A-Za-z][A-Za-z'\-]*|\d+", t)


def _stem(w):
    w = w.lower().strip("'-")
    if w.endswith("'s"):
        w = w[:-2]
    return w[:4] if len(w) > 4 else w


def _content_stems(t):
    return {_stem(w) for w in _words(t) if len(w) >= 3 and w.lower() not in STOP}


def _sentences(t):
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", t) if s.strip()]


def _times(text):
    """Clock times in any common style -> list of minutes of day."""
    out, masked = [], text
    for m in re.finditer(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s*m\b\.?", masked, re.I):
        h, mi = int(m.group(1)) % 12, int(m.group(2) or 0)
        if m.group(3).lower() == "p":
            h += 12
        out.append(h * 60 + mi)
        masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
    for m in re.finditer(r"\b([01]?\d|2[0-4])[:h]([0-5]\d)\b", masked):
        out.append((int(m.group(1)) % 24) * 60 + int(m.group(2)))
    low = masked.lower()
    nw = "|".join(NUMW)
    for m in re.finditer(r"\b(half past|quarter past|quarter to)\s+(%s|\d{1,2})\b" % nw, low):
        h = NUMW.get(m.group(2)) or int(m.group(2))
        mi = {"half past": 30, "quarter past": 15, "quarter to": -15}[m.group(1)]
        out.append(((h % 12) * 60 + mi) % 1440)
    for m in re.finditer(r"\b(%s)(?:\s+o'clock)?\s+(in the morning|in the afternoon|in the evening|at night|"
                         r"o'clock)" % nw, low):
        h = NUMW[m.group(1)] % 12
        if m.group(2) in ("in the afternoon", "in the evening") or (m.group(2) == "at night" and h >= 6):
            h += 12
        out.append(h * 60)
    out += [720] * len(re.findall(r"\bnoon\b|\bmidday\b", low))
    out += [0] * len(re.findall(r"\bmidnight\b", low))
    return out


def _tdist(a, b):
    d = abs(a - b) % 1440
    return min(d, 1440 - d)


# ---------------------------------------------------------------- schema helpers
def _resolve(s, root):
    seen = 0
    while isinstance(s, dict) and "$ref" in s and seen < 10:
        ref = s["$ref"]
        node = root
        for part in ref.lstrip("#/").split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        s, seen = node, seen + 1
    if isinstance(s, dict) and "allOf" in s and len(s["allOf"]) == 1 and "properties" not in s:
        return _resolve(s["allOf"][0], root)
    return s if isinstance(s, dict) else {}


def _types(s):
    t = s.get("type")
    if isinstance(t, list):
        return t
    return [t] if t else []


def _valid(v, s, root):
    s = _resolve(s, root)
    if not s:
        return True
    for key in ("anyOf", "oneOf"):
        if key in s:
            return any(_valid(v, sub, root) for sub in s[key])
    if "allOf" in s and not all(_valid(v, sub, root) for sub in s["allOf"]):
        return False
    if "const" in s and v != s["const"]:
        return False
    if "enum" in s and v not in s["enum"]:
        return False
    num = isinstance(v, (int, float)) and not isinstance(v, bool)
    kinds = {"object": isinstance(v, dict), "array": isinstance(v, list), "string": isinstance(v, str),
             "boolean": isinstance(v, bool), "null": v is None, "number": num,
             "integer": num and float(v).is_integer() and not isinstance(v, float)}
    if _types(s) and not any(kinds.get(t, False) for t in _types(s)):
        return False
    if isinstance(v, dict):
        props = s.get("properties", {})
        for r in s.get("required", []):
            if r not in v:
                return False
        for k, x in v.items():
            if k in props:
                if not _valid(x, props[k], root):
                    return False
            elif s.get("additionalProperties") is False:
                return False
            elif isinstance(s.get("additionalProperties"), dict) and not _valid(x, s["additionalProperties"], root):
                return False
    if isinstance(v, list):
        if len(v) < s.get("minItems", 0) or len(v) > s.get("maxItems", 10 ** 9):
            return False
        if s.get("uniqueItems") and len({json.dumps(x, sort_keys=True) for x in v}) != len(v):
            return False
        if "items" in s and isinstance(s["items"], dict) and not all(_valid(x, s["items"], root) for x in v):
            return False
    if isinstance(v, str):
        if len(v) < s.get("minLength", 0) or len(v) > s.get("maxLength", 10 ** 9):
            return False
        if "pattern" in s:
            try:
                if not re.search(s["pattern"], v):
                    return False
            except re.error:
                pass
    if num and (v < s.get("minimum", v) or v > s.get("maximum", v) or
                v <= s.get("exclusiveMinimum", v - 1) or v >= s.get("exclusiveMaximum", v + 1)):
        return False
    return True


def _fit_str(text, s):
    mx, mn = s.get("maxLength"), s.get("minLength", 0)
    if mx is not None and len(text) > mx:
        cut = text[:max(0, mx - 1)]
        if " " in cut[10:]:
            cut = cut[:cut.rfind(" ")]
        text = (cut.rstrip(" ,;:") + ".")[:mx]
    if len(text) < mn:
        text = (text + " " + "ok " * mn)[:max(mn, len(text))]
        text = text[:mn] if mx is None else text[:max(mn, min(len(text), mx))]
    return text


def _fill(s, root, hints, name="", dice=None):
    """Build a value valid for schema s; hints: ranking/reason/top/bottom/sentence."""
    s = _resolve(s, root)
    for key in ("anyOf", "oneOf"):
        if key in s and s[key]:
            subs = [x for x in s[key] if "null" not in _types(_resolve(x, root))] or s[key]
            return _fill(subs[0], root, hints, name, dice)
    if "const" in s:
        return s["const"]
    low = name.lower()
    if "enum" in s and s["enum"]:
        en = s["enum"]
        if hints.get("top") in en and not re.search(r"worst|least|last|bottom", low):
            return hints["top"]
        if hints.get("bottom") in en:
            return hints["bottom"]
        return dice.choice(en) if dice else en[0]
    ts = _types(s) or ["object" if "properties" in s else "string"]
    t = ts[0] if ts[0] != "null" or len(ts) == 1 else ts[1]
    if t == "object":
        out = {}
        props = s.get("properties", {})
        for k in props:
            if k in s.get("required", []) or not s.get("required") or _is_rank_prop(props[k], root):
                out[k] = _fill(props[k], root, hints, k, dice)
        return out
    if t == "array":
        it = _resolve(s.get("items", {}), root) if isinstance(s.get("items"), dict) else {}
        mn, mx = s.get("minItems", 0), s.get("maxItems", 10 ** 9)
        if hints.get("ranking") and it.get("enum") and all(x in it["enum"] for x in hints["ranking"]):
            r = list(hints["ranking"])
            extra = [x for x in it["enum"] if x not in r]
            r = (r + extra)[:mx]
            return r if len(r) >= mn else r + [x for x in it["enum"]][: mn - len(r)]
        if it.get("enum"):
            return list(it["enum"])[:max(mn, min(mx, len(it["enum"])))] if mn else []
        return [_fill(it, root, hints, name, dice) for _ in range(mn)]
    if t == "string":
        txt = hints.get("reason") if hints.get("reason") else hints.get("sentence", "Okay.")
        return _fit_str(txt, s)
    if t == "integer":
        lo = s.get("minimum", s.get("exclusiveMinimum", -1) + 1 if "exclusiveMinimum" in s else 0)
        return int(max(lo, min(s.get("maximum", lo), lo)))
    if t == "number":
        lo = s.get("minimum", 0)
        return max(lo, min(s.get("maximum", lo), lo))
    if t == "boolean":
        return False
    return None


def _is_rank_prop(p, root):
    p = _resolve(p, root)
    if "array" not in _types(p):
        return False
    it = _resolve(p.get("items", {}), root) if isinstance(p.get("items"), dict) else {}
    return bool(it.get("enum")) and all(isinstance(x, str) for x in it["enum"])


def _get_schema(body):
    rf = body.get("response_format") or {}
    if not isinstance(rf, dict):
        return None, None
    if rf.get("type") == "json_schema":
        js = rf.get("json_schema") or {}
        sch = js.get("schema", js) if isinstance(js, dict) else None
        return "schema", sch if isinstance(sch, dict) else None
    if rf.get("type") == "json_object":
        return "object", rf.get("schema") if isinstance(rf.get("schema"), dict) else None
    return None, None


# ---------------------------------------------------------------- reading the request
_ANS = re.compile(r"^\s*(?:answer\s+)?[\(\[]?([A-Z])[\)\].:]\s+(.*\S)\s*$", re.I)


def _parse(text, letters):
    lines = text.split("\n")
    hits = []
    for i, ln in enumerate(lines):
        m = _ANS.match(ln)
        if m and m.group(1).upper() in letters and len(m.group(1)) == 1 and m.group(1).isupper():
            hits.append((i, m.group(1).upper(), m.group(2)))
    best = None
    for k in range(len(hits)):
        if hits[k][1] != letters[0]:
            continue
        run = [hits[k]]
        for h in hits[k + 1:]:
            if len(run) == len(letters):
                break
            if h[1] == letters[len(run)]:
                run.append(h)
        if len(run) == len(letters):
            best = run
    if not best:
        return None
    answers, used = {}, set()
    for j, (i, let, first) in enumerate(best):
        end = best[j + 1][0] if j + 1 < len(best) else len(lines)
        parts = [first]
        used.add(i)
        for q in range(i + 1, end):
            if not lines[q].strip() or _ANS.match(lines[q]):
                break
            if j + 1 == len(best) and re.match(r"^[A-Z][a-z]+ the answers|^(rank|order|answer as)", lines[q], re.I):
                break
            parts.append(lines[q].strip())
            used.add(q)
        a = " ".join(parts).strip()
        if len(a) >= 2 and a[0] in "\"'\u201c\u2018" and a[-1] in "\"'\u201d\u2019":
            a = a[1:-1].strip()
        elif a[:1] in "\"\u201c":
            a = a[1:].strip()
        answers[let] = a
    first_ans = best[0][0]
    # question
    q, qi = "", None
    cands = []
    for i, ln in enumerate(lines):
        if i in used:
            continue
        s = ln.strip()
        if re.match(r"^[-*\u2022]|^\d+[.)]\s", s):
            continue
        if (len(s) > 3 and s[0] in "\"\u201c" and s[-1] in "\"\u201d") or (s.endswith("?") and len(s) < 300):
            cands.append((i, s))
    before = [c for c in cands if c[0] < first_ans]
    pick = before[-1] if before else (cands[0] if cands else None)
    if pick:
        qi, q = pick
        q = re.sub(r"^[A-Za-z ]{1,20}:\s*", "", q) if not q.startswith(("\"", "\u201c")) else q
        q = q.strip("\"\u201c\u201d ")
    ctx_lines = [ln for i, ln in enumerate(lines) if i not in used and i != qi]
    return {"answers": answers, "question": q, "context": "\n".join(ctx_lines),
            "record": [ln.strip() for ln in ctx_lines if re.match(r"^\s*([-*\u2022]|\d+[.)])\s", ln)]}


def _resident(text):
    for m in re.finditer(r"^[^\n:]{1,25}:\s*([A-Z][a-z'\-]+(?: [A-Z][a-z'\-]+){1,2})\s*$", text, re.M):
        return m.group(1)
    cnt = {}
    for m in re.finditer(r"\b([A-Z][a-z]+) ([A-Z][a-z]+)\b", text):
        a, b = m.group(1), m.group(2)
        if a in NOTNAME or a in DAYS or b in DAYS or b.lower() in PLACE:
            continue
        cnt[a + " " + b] = cnt.get(a + " " + b, 0) + 1
    return max(cnt, key=lambda k: cnt[k]) if cnt else ""


def _people(ctx):
    full, firsts, lasts, caps = set(), set(), set(), set()
    for m in re.finditer(r"\b([A-Z][a-z]+) ([A-Z][a-z]+)\b", ctx):
        a, b = m.group(1), m.group(2)
        if a in NOTNAME or a in DAYS or b in DAYS or b.lower() in PLACE or a.lower() in PLACE:
            continue
        full.add(a + " " + b)
        firsts.add(a)
        lasts.add(b)
    for w in re.findall(r"\b[A-Z][a-z'\-]+", ctx):
        caps.add(w.split("'")[0])
    return full, firsts, lasts, caps


# ---------------------------------------------------------------- features
def _demands(question, resident, people):
    full, firsts, lasts, caps = people
    q = question.lower()
    parts = re.split(r"\?|,?\s+and\s+(?=(?:what|who|whom|where|when|why|how)\b)", q)
    dem = []
    for p in parts:
        p = p.strip()
        if not p:
            continue
        if re.search(r"\bwho(m)?\b", p):
            dem.append("person")
        elif re.search(r"\bwhere\b", p):
            dem.append("place")
        elif re.search(r"\bwhen\b|\bwhat time\b", p) or (re.search(r"\bwhat\b", p) and re.search(
                r"routine|workday|day look|schedule|planned|tomorrow|next thing", p)):
            dem.append("time")
        elif re.search(r"\bwhy\b", p):
            dem.append("reason")
        elif re.search(r"what (do|would|will) you do|how (do|would|will) you (respond|react|take|handle)|"
                       r"what do you tell", p):
            dem.append("action")
        elif re.search(r"think of|feel about|opinion of|describe", p):
            dem.append("opinion")
    for n in sorted(full):
        if n in question and n != resident:
            dem.append("named:" + n)
            break
    return dem


def _covers(d, ans, people):
    full, firsts, lasts, caps = people
    low = ans.lower()
    if d == "person":
        return any(f in ans for f in firsts) or bool(re.search(r"\b(friend|family|parents|everyone|nobody|"
                                                                 r"no one|people|roommate|colleague)", low))
    if d == "place":
        return bool(PLACEW.search(ans))
    if d == "time":
        return bool(_times(ans)) or bool(TIMEWORD.search(ans))
    if d == "reason":
        return bool(REASONW.search(ans))
    if d == "action":
        return bool(ACTIONW.search(ans)) or bool(re.match(r"^\W*(?:\w+,\s*)?(try|go|ask|head|get|tell)\b", low))
    if d == "opinion":
        return bool(set(w.lower() for w in _words(ans)) & EVAL)
    if d.startswith("named:"):
        n = d[6:]
        return n.split(" ")[0] in ans or bool(re.search(r"\b(he|she|him|her|they|them)\b", low))
    return True


def _features(ans, question, resident, parsed, people):
    full, firsts, lasts, caps = people
    f = {}
    low = ans.lower()
    ws = _words(ans)
    f["words"] = len(ws)
    sents = _sentences(ans)
    # specificity
    names = {n for n in full if n in ans} | {w for w in firsts if re.search(r"\b%s\b" % re.escape(w), ans)}
    names.discard(resident)
    places = {w for w in re.findall(r"\b[A-Z][a-z]+\b", ans)
              if w in caps and w not in firsts and w not in lasts and w not in NOTNAME and w not in DAYS}
    nums = re.findall(r"\b\d+\b", ans)
    f["details"] = min(5, len(names) + len(_times(ans)) + min(2, len(nums)) + min(2, len(places)))
    # grounding
    st = _content_stems(ans) - _content_stems(question)
    ctx_st = parsed["ctx_stems"]
    f["ground"] = (len(st & ctx_st) / len(st)) if st else 0.5
    # evasive
    pos_ev = [low.find(e) for e in EVASIVE if e in low]
    ev = bool(pos_ev) and (len(ws) <= 12 or min(pos_ev) <= 0.4 * len(low))
    f["evasive"] = ev
    f["evasive_reasoned"] = ev and len(ws) >= 9 and bool(re.search(r"\b(because|so|since|mostly|though)\b", low))
    f["meta"] = any(re.search(p, low) for p in META)
    # third person
    third, prefix = False, False
    if resident:
        rf = resident.split(" ")[0]
        for nm in (resident, rf):
            for m in re.finditer(r"\b%s\b" % re.escape(nm), ans):
                pre = ans[max(0, m.start() - 14):m.start()].lower()
                post = ans[m.end():m.end() + 8].lower()
                if re.search(r"(i'm|i am|name is|name's|call me|this is|it's)\s*$", pre) or post.startswith(" here"):
                    continue
                if nm == rf and ans[m.end():m.end() + len(resident) - len(rf)] == resident[len(rf):]:
                    continue
                third = True
        if re.match(r"^\W*(?:\w+,\s*)?%s(?:\s+(?:says|said))?\s*:" % re.escape(resident), ans) or \
           re.search(r"\b%s (says|said):" % re.escape(rf), ans):
            prefix = True
            third = True
    f["third"], f["prefix"] = third, prefix
    f["trunc"] = bool(ans.strip()) and ans.rstrip()[-1] not in ".!?\u2026\"'\u201d\u2019)"
    # glitches: list of (penalty, prob)
    g = []
    norm = [re.sub(r"\W+", " ", s.lower()).strip() for s in sents]
    if len(norm) != len(set(norm)):
        g.append((0.7, 0.7))
    for m in re.finditer(r",\s+([A-Z][a-z']+)", ans):
        w = m.group(1).split("'")[0]
        if (w in NOTNAME or w not in caps) and w != "I" and w not in DAYS:
            g.append((0.45, 0.45))
            break
    nm_ = r"[A-Z][a-z]+(?: [A-Z][a-z]+)?"
    for m in re.finditer(r"((?:%s, )+%s,? and %s)" % (nm_, nm_, nm_), ans):
        items = []
        for it in re.split(r",\s*(?:and\s+)?|\s+and\s+", m.group(1)):
            toks = [t for t in it.split() if t in firsts]
            items.append(toks[0] if toks else it)
        if len(items) != len(set(items)):
            g.append((0.45, 0.5))
            break
    if re.search(r"\bthat so,", low):
        g.append((0.45, 0.5))
    if any(len(re.findall(r"\b(told|heard|said)\b", s.lower())) >= 3 for s in sents):
        g.append((0.45, 0.5))
    if re.search(r"said they would|share news with each other|so they are on friendly|\bdid:|\bthought:", low):
        g.append((0.45, 0.6))
    tspan = r"(?:\d{1,2}(?::\d{2})?\s*(?:[ap]m)?|\d{1,2}:\d{2})\s*(?:-|to)\s*(?:\d{1,2}(?::\d{2})?\s*(?:[ap]m)?)"
    if re.search(tspan + r"[^.]{0,25}?" + tspan, low):
        g.append((0.45, 0.35))
    if re.search(r"\b([01]?\d|2[0-3]):[0-5]\d\b(?!\s*[ap]\.?m)", low) and \
       re.search(r"\b(1[3-9]|2[0-3]|00):[0-5]\d\b", low):
        g.append((0.25, 0.25))
    if re.search(r"[A-Z][a-z]+(?: [A-Z][a-z]+)?: \"", ans):
        g.append((0.45, 0.7))
    if re.search(r"\bthe [A-Z][a-z]+(?: [A-Z][a-z]+)?'s\b", ans):
        g.append((0.45, 0.35))
    op = r"(?:%s)" % "|".join(re.escape(o) for o in OPENERS)
    if re.match(r"^\W*%s\W+(?:%s|hello|hi)\b" % (op, op), low):
        g.append((0.45, 0.35))
    if sents and sents[0].endswith("?") and len(_words(sents[0])) > 3 and not re.search(
            r"\b(you|right now|really)\?$", sents[0].lower()):
        g.append((0.45, 0.35))
    f["glitch"] = g
    # contradictions: names
    badname = False
    for m in re.finditer(r"\b([A-Z][a-z]+) ([A-Z][a-z]+)\b", ans):
        a, b = m.group(1), m.group(2)
        if a in NOTNAME or a in DAYS or b in DAYS or b.lower() in PLACE or a.lower() in PLACE:
            continue
        nm = a + " " + b
        if nm in full or nm == resident:
            continue
        if (a in firsts or b in lasts) or a not in caps:
            badname = True
    for m in re.finditer(r"(?<=[a-z] )([A-Z][a-z]+)\b", ans):
        w = m.group(1)
        if w not in caps and w not in NOTNAME and w not in DAYS and w.lower() not in PLACE:
            badname = True
    f["badname"] = badname
    # contradictions: times
    badtime = False
    carry = ""
    for clause in re.split(r"[.;!?]|, ", ans):
        clause = carry + " " + clause
        ts = _times(clause)
        if not ts:
            carry = ""
            continue
        cst = _content_stems(clause) - parsed["res_stems"] - {"toda", "tomo", "ill", "arou", "abou"}
        cst = {c for c in cst if not c.isdigit() and c not in ("pm", "am")}
        carry = "" if cst else clause
        if not cst:
            continue
        rel = []
        for tl, tst, ttimes in parsed["tlines"]:
            if ttimes and (cst & tst):
                rel += ttimes
        if rel and any(min(_tdist(t, r) for r in rel) > 20 for t in ts):
            badtime = True
    f["badtime"] = badtime
    # denial of something the record shows
    deny = False
    if any(d in low for d in DENIAL):
        topic = _content_stems(question) - {"supp", "hear", "call", "woul", "take", "know", "abou"}
        rec_st = _content_stems(" ".join(parsed["record"]))
        deny = len(topic & rec_st) >= 1
    f["deny"] = deny
    f["opener"] = bool(re.match(r"^\W*%s\b" % op, low))
    f["demands_missed"] = [d for d in parsed["demands"] if not _covers(d, ans, people)]
    return f


# ---------------------------------------------------------------- judging
def _judge(parsed, letters, resident, dice, prev_top):
    answers = parsed["answers"]
    n = len(letters)
    skim = dice.p(0.07)
    half = 0.5 if skim else 1.0
    taste_r = dice._r().random()
    taste = 0.15 if taste_r < 0.5 else (0.0 if taste_r < 0.8 else -0.10)
    people = parsed["people"]
    feats, notes, scores = {}, {}, {}
    memo = {}
    for i, L in enumerate(letters):
        a = answers.get(L, "")
        key = re.sub(r"\s+", " ", a.strip().lower())
        if key not in memo:
            f = _features(a, parsed["question"], resident, parsed, people)
            s, pos, neg = 0.0, [], []
            s += (0.60 if skim else 0.30) * math.log(1 + f["words"])
            if f["words"] > 55 and dice.p(0.5 * half):
                s -= 0.012 * (f["words"] - 55)
                neg.append((0.3, "rambles"))
            s += 0.16 * f["details"]
            if f["details"] >= 2:
                pos.append((0.16 * f["details"], "concrete"))
            s += 0.9 * f["ground"]
            if f["ground"] >= 0.7:
                pos.append((0.5, "grounded"))
            miss = 0
            for d in f["demands_missed"]:
                if dice.p(0.7 * half):
                    s -= 0.45
                    miss += 1
            if miss:
                neg.append((0.45 * miss, "partial"))
            elif parsed["demands"] and not f["evasive"]:
                pos.append((0.3, "covers"))
            if f["evasive"] and dice.p(0.9):
                pen = 0.6 if f["evasive_reasoned"] else 1.2
                s -= pen
                neg.append((pen, "evasive"))
            if f["meta"] and dice.p(0.95):
                s -= 3.0
                neg.append((3.0, "meta"))
            if f["third"] and dice.p(0.8):
                s -= 1.6 + (0.4 if f["prefix"] else 0)
                neg.append((1.6, "prefix" if f["prefix"] else "third"))
            if f["trunc"] and dice.p(0.75):
                s -= 1.0
                neg.append((1.0, "trunc"))
            gl = 0.0
            for pen, pr in f["glitch"]:
                if dice.p(pr * half):
                    gl += pen
            gl = min(gl, 1.6)
            if gl:
                s -= gl
                neg.append((gl, "glitch"))
            if f["badname"] and dice.p(0.55 * half):
                s -= 0.9
                neg.append((0.9, "name"))
            if f["badtime"] and dice.p(0.4 * half):
                s -= 0.8
                neg.append((0.8, "time"))
            if f["deny"] and dice.p(0.6 * half):
                s -= 1.2
                neg.append((1.2, "deny"))
            if f["opener"]:
                s += taste
                if taste > 0:
                    pos.append((0.1, "natural"))
            s += dice.gauss(0.40)
            memo[key] = (s, pos, neg, f)
        s, pos, neg, f = memo[key]
        scores[L] = s + 0.12 * (n - 1 - i) / max(1, n - 1)
        notes[L] = (pos, neg)
        feats[L] = f
    keep = dice.p(0.85)
    idx = {L: i for i, L in enumerate(letters)}
    order = sorted(letters, key=lambda L: (-round(scores[L], 9), idx[L]))
    groups = {}
    for L in letters:
        groups.setdefault(re.sub(r"\s+", " ", answers.get(L, "").strip().lower()), []).append(L)
    for g in groups.values():
        if len(g) > 1:
            slots = sorted(order.index(L) for L in g)
            for slot, L in zip(slots, g if keep else g[::-1]):
                order[slot] = L
    mode = "normal"
    if dice.p(0.03):
        order, mode = list(letters), "template"
    elif dice.p(0.01):
        order, mode = order[::-1], "inverted"
    if prev_top in letters and dice.p(0.7):
        order = [prev_top] + [x for x in order if x != prev_top]
    return order, notes, feats, mode


POS_TXT = {"concrete": "gives concrete details (names and times) that fit {first}'s record",
           "grounded": "matches {first}'s description and what {pron} did",
           "covers": "answers every part of the question",
           "natural": "sounds natural and conversational, like {first} talking"}
NEG_TXT = {"meta": "breaks character with assistant or error text",
           "prefix": "puts {first}'s name in front like a script line",
           "third": "talks about {first} in the third person",
           "trunc": "is cut off mid-sentence",
           "evasive": "dodges the question although the record gives {first} plenty to say",
           "glitch": "reads garbled and unnatural",
           "name": "mentions a name that doesn't fit the people in {first}'s life",
           "time": "gives a time that doesn't match the record",
           "deny": "claims not to know something the record shows {first} knew",
           "partial": "leaves part of the question unanswered",
           "rambles": "rambles with details that don't answer the question"}


def _reason(order, notes, answers, resident, dice, mode):
    first = resident.split(" ")[0] if resident else "the resident"
    pron = "they"
    top, bot = order[0], order[-1]
    if mode == "template" or dice.p(0.2):
        txt = dice.choice([
            "{t} fits {first} best and stays in character; {b} is the least convincing.",
            "{t} sounds most like {first} and is consistent with the record, while {b} is weakest.",
            "The answers are close; {t} is the most believable and {b} the least.",
        ])
    else:
        pos = sorted(notes[top][0], key=lambda x: -x[0])
        neg = sorted(notes[bot][1], key=lambda x: -x[0])
        ptxt = POS_TXT[pos[0][1]] if pos else "is the most plausible for {first}"
        if pos and len(pos) > 1 and dice.p(0.5):
            ptxt += " and " + POS_TXT[pos[1][1]].replace("{first}'s", "{first}'s")
        ntxt = NEG_TXT[neg[0][1]] if neg else "is vaguer than the others"
        txt = dice.choice([
            "{t} is most believable because it " + ptxt + ", while {b} " + ntxt + ".",
            "{t} " + ptxt + ", so it ranks first; {b} " + ntxt + ", so it ranks last.",
            "I put {t} first since it " + ptxt + "; {b} comes last because it " + ntxt + ".",
        ])
    if mode != "template" and dice.p(0.03):
        top = order[1] if len(order) > 1 else top
    txt = txt.format(t=top, b=bot, first=first, pron=pron)
    groups = {}
    for L in order:
        groups.setdefault(re.sub(r"\s+", " ", answers.get(L, "").strip().lower()), []).append(L)
    dup = [g for g in groups.values() if len(g) > 1]
    if dup and dice.p(0.3):
        g = sorted(dup[0])
        txt += " " + ", ".join(g[:-1]) + " and " + g[-1] + " are identical, so their order is arbitrary."
    return txt


def _prev_top(messages, letters):
    for m in messages:
        if isinstance(m, dict) and m.get("role") == "assistant" and isinstance(m.get("content"), str):
            for mm in re.finditer(r"\b([A-Z])\b", m["content"]):
                L, after = mm.group(1), m["content"][mm.end():mm.end() + 12]
                if L not in letters:
                    continue
                if L == "A" and re.match(r" [a-z]+", after) and not re.match(
                        r" (is|and|or|fits|gives|sounds|ranks|stays|seems|has|was|reads)\b", after):
                    continue
                return L
    return None


def _msg_text(m):
    c = m.get("content", "")
    if isinstance(c, list):
        c = "\n".join(x.get("text", "") for x in c if isinstance(x, dict))
    return c if isinstance(c, str) else ""


def _ranking(body, schema, dice):
    root = schema
    props = schema.get("properties", {}) if schema else {}
    rk = None
    for k, p in props.items():
        if _is_rank_prop(p, root):
            rk = k
            break
    letters = None
    if rk:
        it = _resolve(_resolve(props[rk], root).get("items", {}), root)
        letters = [x for x in it["enum"] if isinstance(x, str)]
    msgs = body.get("messages") or []
    users = [_msg_text(m) for m in msgs if isinstance(m, dict) and m.get("role") == "user"]
    texts = users[::-1] + [_msg_text(m) for m in msgs if isinstance(m, dict) and m.get("role") == "system"]
    parsed, text = None, ""
    for t in texts:
        cand_letters = letters or [chr(65 + i) for i in range(26)]
        if not letters:
            found = sorted({m.group(1) for ln in t.split("\n") for m in [_ANS.match(ln)] if m and m.group(1).isupper()})
            cand_letters = [c for c in cand_letters if c in found]
            while cand_letters and cand_letters[-1] != chr(64 + len(cand_letters)):
                cand_letters.pop()
            if len(cand_letters) < 2:
                continue
        p = _parse(t, cand_letters)
        if p:
            parsed, text, letters = p, t, cand_letters
            break
    if not parsed:
        return None
    resident = _resident(text)
    parsed["people"] = _people(parsed["context"])
    parsed["ctx_stems"] = _content_stems(parsed["context"])
    parsed["res_stems"] = _content_stems(resident)
    tl = []
    for ln in parsed["record"] + _sentences(" ".join(l for l in parsed["context"].split("\n")
                                                      if l.strip() and not l.strip().startswith(("-", "*")))):
        tl.append((ln, _content_stems(ln) - parsed["res_stems"] - {"thou", "hear", "told", "said"}, _times(ln)))
    parsed["tlines"] = tl
    parsed["demands"] = _demands(parsed["question"], resident, parsed["people"])
    order, notes, feats, mode = _judge(parsed, letters, resident, dice, _prev_top(msgs, letters))
    reason = _reason(order, notes, parsed["answers"], resident, dice, mode)
    return letters, order, reason, rk


def _json_examples(body):
    out, dec = [], json.JSONDecoder()
    for m in body.get("messages") or []:
        t = _msg_text(m) if isinstance(m, dict) else ""
        for i, ch in enumerate(t):
            if ch == "{":
                try:
                    v = dec.raw_decode(t, i)[0]
                    if isinstance(v, dict):
                        out.append(v)
                except Exception:
                    pass
    return out


def _respond(body, seed):
    dice = _Dice(seed, body)
    kind, schema = _get_schema(body)
    rk = _ranking(body, schema or {}, dice)
    if rk:
        letters, order, reason, rkey = rk
        if schema:
            hints = {"ranking": order, "reason": reason, "top": order[0], "bottom": order[-1],
                     "sentence": reason}
            obj = _fill(schema, schema, hints, "", dice)
            if _valid(obj, schema, schema):
                return json.dumps(obj, ensure_ascii=False)
            return json.dumps(_fill(schema, schema, {"ranking": letters, "sentence": "ok"}, "", None))
        rkey2, skey = "ranking", "reason"
        for ex in _json_examples(body):
            for k, v in ex.items():
                if isinstance(v, list):
                    rkey2 = k
                elif isinstance(v, str):
                    skey = k
        return json.dumps({skey: reason, rkey2: order}, ensure_ascii=False)
    if schema:
        for ex in reversed(_json_examples(body)):
            if _valid(ex, schema, schema):
                return json.dumps(ex, ensure_ascii=False)
        return json.dumps(_fill(schema, schema, {"sentence": "I'm not sure."}, "", dice), ensure_ascii=False)
    if kind == "object":
        exs = _json_examples(body)
        return json.dumps(exs[-1] if exs else {}, ensure_ascii=False)
    return "I'm not sure what you mean, could you say that again?"


def _minimal(body):
    try:
        kind, schema = _get_schema(body)
        if schema:
            return json.dumps(_fill(schema, schema, {"sentence": "ok"}, "", None))
        return "{}" if kind else "Okay."
    except Exception:
        return "{}"


def respond(body: dict, seed: int) -> str:
    try:
        if not isinstance(body, dict):
            return "{}"
        return _respond(body, seed)
    except Exception:
        return _minimal(body if isinstance(body, dict) else {})
