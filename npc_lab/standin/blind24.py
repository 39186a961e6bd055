"""blind24: a blind stand-in for a ~70B instruction-tuned chat model acting as a ranking judge.

Written from the captured request bodies only. Rules, weights and rates below were declared BEFORE
the module was first run over the captures, and are frozen.

PARSING (by shape, not by headings)
- Answers: the longest run of lines starting "A." / "B)" / "C:" ... with consecutive letters; an
  answer runs to the next letter line (the last one to the next blank line); outer quotes stripped.
- Question: the last quoted string (straight or curly quotes) before the answers; else the last
  line ending in "?" before them. Context line just before the question (e.g. a topic) is used only
  as a fallback for classifying the question.
- Description: the paragraphs before the question's paragraph, lines ending in ":" dropped.
- Character name: the most frequent 2-3-word capitalised sequence outside the answers.
- Order direction: "least ... to most" / "worst first" reverses the output; default best first.
- Letters: from the schema's enum if given, else the parsed letters.

SCORING (per distinct answer text; higher = more believable)
 R1 parrot: a run of >=4 words shared verbatim with the question that contains you/your/yourself
    (the answer echoes the question, not its topic) .................................. -0.60
 R2 form mismatch: an open (wh-) question answered with a leading bare "Yes"/"No" ..... -0.25
 R3 garbled, each of: question syntax ("do you", "will you"...) inside a non-question
    sentence outside quotes; a sentence starting lower-case; "I wants/I has/I is"... -0.20 each,
    cap ............................................................................... -0.40
 R4 evasive/stock non-answer (hard to say, not sure, no idea, don't remember, haven't heard,
    hmm, maybe?, fuzzy ...): -0.45 if the answer has <=6 other content words, else -0.225;
    x0.45 when the question is a yes/no question and the answer is a plain "No" (honest no).
 R5 voice: first person outside quoted dialogue ...................................... +0.20
    third-person self-reference (own name, or opening "She/He") with no first person .. -0.30
    own name used as a third party although first person is present too .............. -0.10
    (self-introductions "I'm X", "my name is X", "call me X" do not count as own-name use)
 R6 log/template/transcript artefacts, each of: speaker labels (Name: "..."), " / " joints,
    zero-padded 24h clock (07:10), a date with a year, a lower-case "(-ing ...)" status
    parenthesis, a "Word:" label mid-text ........................ -0.15 each, cap -0.45
 R7 truncated (no closing punctuation, or an odd number of double quotes) ............ -0.25
 R8 answers what was asked: kinds read from the question (where, when, who, future, hypothetical,
    self-description, why, past, opinion, yes/no); +0.25 x share of kinds whose expected content
    (place phrase, time word, person/relation, future marker, first-person action, "I'm/I work",
    because/so, past verb, first-person evaluation, leading yes/no) the answer shows. If no kind
    is found: +0.25 when >=4 content words, else +0.125.
 R9 topical overlap: +0.15 x share of the question's content stems found in the answer.
 R10 specificity: +0.30 x min(1, (numbers + distinct capitalised names + content words/4) / 6).
 R11 grounding: +0.15 x share of the answer's content stems found in description or question.
 R12 contradictions, -0.40 each, cap -0.80: (a) denies knowing/hearing while the question names a
    person the description knows; (b) "my <relation> X" where the description's sentence about X
    gives a different relation; (c) opens "Yes" but denies knowing, or opens "No" but then shows
    it knew ("told me", "I heard", "I know").
CRITERIA MODULATION (from the instruction text, by meaning words): specificity R10 x0.7 unless the
 criteria mention specific/detail/concrete; R12 x0.7 unless they mention contradict/consistent;
 R5 x0.7 unless they mention character/believable/in-character/fits/voice; length bias x0.5 when
 they say not to reward length.

BIASES AND NOISE (declared rates)
 B1 length: +0.04 x log2(1 + words/8), cap +0.12 (halved if told not to reward length).
 B2 position: +0.05 for the first letter shown, falling linearly to 0 for the last.
 B3 noise: Gaussian, sd = 0.05 + 0.12 x temperature (temperature 0.7 if absent -> sd 0.134),
    one draw per distinct answer text.
 B4 identical answers form one tie group (same score, position bias of its first member); kept in
    shown order with p = 0.75, else shuffled.
 B5 attention lapse: p = 0.04 one random adjacent pair swapped after ranking.
OUTPUT
 - JSON with keys in schema order: a 1-2 sentence reason (<= schema maxLength) naming what put the
   top answer first and the bottom one last; then the ranking. A letter-enum string property gets
   the top letter; other numbers get their minimum or 0; booleans true.
 - Malformed judge output, total 1.5%: 0.5% truncated JSON (cut at 40-90% of its length); 0.4%
   prose or a ```json fence around it; 0.3% one letter left out; 0.3% one letter repeated in
   place of another. Output longer than ~4 chars x max_tokens is cut there.
 - Probe / any other request: a JSON example in the prompt that fits the schema is answered as
   given (the probe {"ok": true}); otherwise a minimal object valid for the schema; with no schema
   and no example, a short plain sentence. These are always valid (temperature-0 trivia).
RANDOMNESS: sha256 over (seed, canonical JSON of the body, draw counter). No hash(), no random.
CHANGES AFTER FIRST RUN (no rule, weight or rate changed):
 1. Robustness fix: a judge request with no schema worded "list them from least to most ..." was
    not recognised as a ranking request (fell through to the plain-text fallback). The trigger
    words now also include list/sort/worst/most/least/prefer/compare. No effect on the captures
    (all carry a ranking schema).
"""
import hashlib
import json
import math
import re

STOP = set("""a an the and or but if of to in on at by for with from as is are was were be been being am
do does did done have has had having i me my mine myself you your yours yourself we our us he him his
she her it its they them their this that these those what which who whom whose when where why how
there here then than so not no yes just very really still about into over after before up down out
would could should will shall can may might must any some all most more much many few each other
own same such only also too again once well one two get got go going like know think say said
thing things lot way day days time""".split())
AUX = {"have", "has", "had", "do", "does", "did", "are", "is", "was", "were", "will", "would",
       "can", "could", "should", "shall"}
FIRST = re.compile(r"\b(I|I'm|I've|I'd|I'll|me|my|mine|myself|we|our|us)\b")
HEDGES = ["hard to say", "not sure", "don't know", "do not know", "no idea", "can't remember",
          "cannot remember", "don't remember", "do not remember", "fuzzy", "who knows", "can't say",
          "cannot say", "rather not", "not heard", "haven't heard", "have not heard", "never heard",
          "i guess", "hmm", "maybe?", "nothing to tell", "not much to say", "never met"]
RELS = {"wife": "spouse", "husband": "spouse", "married": "spouse", "spouse": "spouse",
        "son": "son", "daughter": "daughter", "brother": "brother", "sister": "sister",
        "mother": "mother", "father": "father", "neighbour": "neighbour", "neighbor": "neighbour",
        "boss": "boss", "cousin": "cousin", "uncle": "uncle", "aunt": "aunt"}
EVAL = re.compile(r"\b(good|kind|hard|love|like|worry|worried|proud|trust|glad|afraid|fond|best|"
                  r"important|care|miss|hope|wish|enjoy|decent|honest|stubborn|patient|funny|"
                  r"generous|solid|annoy\w*|admire|respect|matters?|happy|sad|tired|excited|"
                  r"learn\w*|better|wrong|right|fair|warm|quiet)\b", re.I)
EXPECT = {
    "where": re.compile(r"\b(at|in|on|by|near|behind|inside|outside|over)\s+(the|my|our|his|her)\b"
                        r"|\b(home|upstairs|downstairs|next door)\b", re.I),
    "when": re.compile(r"\d|\b(morning|afternoon|evening|night|noon|midnight|yesterday|today|tonight|"
                       r"ago|earlier|o'clock|monday|tuesday|wednesday|thursday|friday|saturday|"
                       r"sunday|week|hour|hours|minutes|dawn|dusk|later|soon)\b", re.I),
    "who": re.compile(r"(?<![.!?] )(?<!^)\b[A-Z][a-z]+\b|\b(wife|husband|friend|friends|neighbou?r|"
                      r"colleague|mother|father|brother|sister|son|daughter|boss|everyone|nobody|"
                      r"alone|family|people)\b"),
    "future": re.compile(r"\b(will|going to|plan|planning|intend|tomorrow|tonight|later|next|"
                         r"after|before|soon|promised)\b|'ll\b", re.I),
    "hypo": re.compile(r"\b(I'd|I would|I'll|I will|I'm going to|first|then)\b"
                       r"|^(Go|Get|Grab|Take|Call|Open|Turn|Try|Head|Tell)\b", re.I),
    "self": re.compile(r"\b(I'm|I am|I work|my job|I've been|I run|I keep|my name|I do)\b", re.I),
    "why": re.compile(r"\b(because|since|so that|so|as|that's why|reason)\b", re.I),
    "past": re.compile(r"\b(was|were|did|had|went|saw|met|told|heard|talked|spoke|said|came|"
                       r"yesterday|earlier|ago)\b|\b\w{3,}ed\b", re.I),
    "yesno": re.compile(r"^\W*(yes|yeah|yep|no|nope|not yet|i have|i haven't|i did|i didn't|sure|"
                        r"of course|aye)\b", re.I),
}

class Rng:
    def __init__(self, key): self.key, self.n = key, 0
    def u(self):
        self.n += 1
        d = hashlib.sha256(f"{self.key}|{self.n}".encode()).digest()
        return int.from_bytes(d[:8], "big") / 2 ** 64
    def gauss(self): return math.sqrt(-2 * math.log(1 - self.u())) * math.cos(2 * math.pi * self.u())
    def shuffle(self, xs):
        xs = list(xs)
        for i in range(len(xs) - 1, 0, -1):
            j = int(self.u() * (i + 1)); xs[i], xs[j] = xs[j], xs[i]
        return xs

def text_of(msg):
    c = msg.get("content", "")
    if isinstance(c, list):
        c = " ".join(p.get("text", "") for p in c if isinstance(p, dict))
    return c or ""

def words(t): return re.findall(r"[A-Za-z][A-Za-z']*|\d+", t)

def stems(t): return {w.lower()[:5] for w in words(t) if len(w) >= 4 and w.lower() not in STOP}

def unquote(t): return re.sub(r'"[^"]*"|“[^”]*”', " ", t)

def parse(user):
    lines = user.split("\n")
    marks = [(i, m.group(1), m.group(2)) for i, l in enumerate(lines)
             for m in [re.match(r"^\s*\(?([A-Z])[.):]\s+(.*)$", l)] if m]
    best = []
    for k, (i, let, _) in enumerate(marks):
        if let != "A": continue
        run = [marks[k]]
        for m in marks[k + 1:]:
            if ord(m[1]) == ord(run[-1][1]) + 1:
                run.append(m)
        best = run if len(run) > len(best) else best
    if len(best) < 2: return None
    answers, end = {}, best[-1][0]
    for n, (i, let, first) in enumerate(best):
        stop = best[n + 1][0] if n + 1 < len(best) else len(lines)
        body = [first]
        for l in lines[i + 1:stop]:
            if n + 1 == len(best) and not l.strip():
                break
            body.append(l)
        end = i + len(body)
        t = "\n".join(body).strip()
        if len(t) >= 2 and t[0] in "\"“" and t[-1] in "\"”": t = t[1:-1]
        answers[let] = t.strip()
    pre, post = "\n".join(lines[:best[0][0]]), "\n".join(lines[end:])
    qs = list(re.finditer(r'"([^"\n]{3,600})"|“([^”\n]{3,600})”', pre))
    if qs:
        qm = qs[-1]
        question, qpos = qm.group(1) or qm.group(2), qm.start()
    else:
        cand = [m for m in re.finditer(r"(?m)^.*\?\s*$", pre)]
        qm = cand[-1] if cand else None
        question, qpos = (qm.group(0).strip(), qm.start()) if qm else ("", len(pre))
    before = pre[:qpos]
    paras = re.split(r"\n\s*\n", before)
    qctx = paras[-1] if paras else ""
    desc = "\n".join(l for p in paras[:-1] for l in p.split("\n")
                     if l.strip() and not l.rstrip().endswith(":"))
    desc = desc or before
    outside = pre + "\n" + post
    cnt = {}
    for m in re.finditer(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+){1,2}\b", outside.replace(question, " ")):
        nm = m.group(0)
        if nm.split()[0] not in ("The", "A", "An", "This", "Here", "Rank", "Answer", "Name"):
            cnt[nm] = cnt.get(nm, 0) + 1
    name = max(cnt, key=lambda k: (cnt[k], -outside.find(k))) if cnt else ""
    return dict(answers=answers, question=question, qctx=qctx, desc=desc, name=name, post=post)

def kinds_of(q, ctx):
    ql = q.lower().strip()
    ks = set()
    if re.search(r"\bwhere\b", ql): ks.add("where")
    if re.search(r"\bwhen\b|what time", ql): ks.add("when")
    if re.search(r"\bwho\b|\bwhom\b|\bpeople\b", ql): ks.add("who")
    if re.search(r"\bwill\b|tomorrow|tonight|this evening|planned|\bplans?\b|going to|\bnext\b|"
                 r"promised|intend", ql): ks.add("future")
    if re.search(r"for a living|introduce|describe you|who you are|about yourself|your work|"
                 r"your job|yourself", ql): ks.add("self")
    if re.search(r"\bsuppose\b|\bimagine\b|\bif you\b|what (?:do|would) you do\b(?! for a living)|"
                 r"how (?:do|would) you (?:respond|react|take|handle)|what do you tell|"
                 r"what would you", ql): ks.add("hypo")
    if re.search(r"\bwhy\b", ql): ks.add("why")
    if re.search(r"\blast\b|\byesterday\b|happened|recently|lately|\bdid\b|"
                 r"have you (?:heard|seen|met)", ql): ks.add("past")
    if re.search(r"\bthink\b|\bfeel\b|matters|learned|excited|describe|would like|differently", ql):
        ks.add("opinion")
    sents = [s.strip() for s in re.split(r"[.?!]\s+", ql) if s.strip()]
    wh = any(re.match(r"(what|where|when|who|whom|why|how|which|whose)\b", s) for s in sents)
    first = (words(ql) or [""])[0]
    request = re.match(r"(could|can|would|will) you (please )?(tell|describe|introduce|say|explain|"
                       r"give|share)", ql)
    yesno = first in AUX and not wh and not request
    if yesno: ks.add("yesno")
    if not ks and ctx:
        c = ctx.lower()
        if re.search(r"plan|intend", c): ks.add("future")
        elif re.search(r"react|respond|situation", c): ks.add("hypo")
        elif re.search(r"memor|saw|heard", c): ks.add("past")
    return ks, yesno

def features(ans, P, kinds, yesno, crit):
    name, q, desc = P["name"], P["question"], P["desc"]
    first_name = name.split()[0] if name else "\x00"
    out = unquote(ans)
    aw, qw = [w.lower() for w in words(ans)], [w.lower() for w in words(q)]
    f, sc = {}, 0.0
    run = 0  # R1 parrot
    for i in range(len(aw)):
        for j in range(len(qw)):
            k = 0
            while i + k < len(aw) and j + k < len(qw) and aw[i + k] == qw[j + k]:
                k += 1
            if k >= 4 and {"you", "your", "yourself"} & set(aw[i:i + k]): run = max(run, k)
    f["parrot"] = run >= 4
    content = [w for w in aw if len(w) >= 3 and w not in STOP]
    other = max(0, len(content) - run)
    lead = re.match(r"^\W*(yes|no)\b\s*[.,!]", ans, re.I)
    f["form"] = bool(lead) and not yesno
    g = 0  # R3 garbled
    for s in re.split(r"(?<=[.!?])\s+", out):
        if re.search(r"\b(do|does|did|will|would|are|is|have|can|could)\s+you\b", s, re.I) \
                and not s.strip().endswith("?"):
            g += 1; break
    if re.search(r"[.!?]\s+[a-z]", out) or re.match(r"^\s*[a-z]", out): g += 1
    if re.search(r"\bI (wants|has|is|does|goes|says|likes|needs|thinks)\b", ans): g += 1
    f["garbled"] = g
    low = ans.lower()
    f["evasive"] = any(h in low for h in HEDGES)
    ev = 0.0
    if f["evasive"]:
        ev = 0.45 if other <= 6 else 0.225
        if yesno and re.match(r"^\W*no\b", low): ev *= 0.45
    fp = bool(FIRST.search(out))
    intro = re.sub(r"(?i)\b(I'm|I am|name's|name is|call me|it's|this is)\s+" + re.escape(first_name)
                   + r"( [A-Z][a-z]+)?", " ", out)
    named = bool(re.search(r"\b%s\b" % re.escape(first_name), intro)) or bool(
        re.match(r"^\W*(yes|no)?\W*(she|he)\b", out, re.I))
    f["first"], f["third"] = fp, named and not fp
    art = 0  # R6
    art += bool(re.search(r"[A-Z][a-z]+:\s*[\"“]", ans))
    art += " / " in ans
    art += bool(re.search(r"\b[0-2]\d:[0-5]\d\b", ans))
    art += bool(re.search(r"\b(1[89]|20)\d\d\b", ans) and re.search(
        r"(january|february|march|april|may|june|july|august|september|october|november|december|"
        r"day\b)", low))
    art += bool(re.search(r"\([a-z]+ing\b[^)]*\)", ans))
    art += bool(re.search(r"(?<=\S )[A-Z][a-z]+:\s+(?![\"“])", out))
    f["artefacts"] = art
    s = ans.rstrip()
    f["truncated"] = bool(s) and (s[-1] not in ".!?\"'”’)…" or ans.count('"') % 2 == 1)
    hit = [k for k in kinds if k != "opinion" and EXPECT[k].search(ans)]
    if "opinion" in kinds and fp and EVAL.search(ans): hit.append("opinion")
    resp = 0.25 * len(hit) / len(kinds) if kinds else (0.25 if len(content) >= 4 else 0.125)
    qs = stems(q)
    ov = len(qs & stems(ans)) / len(qs) if qs else 0.0
    names = {m for m in re.findall(r"(?<![.!?] )(?<!^)\b[A-Z][a-z]+\b", ans)}
    nums = len(re.findall(r"\d+", ans))
    spec = min(1.0, (nums + len(names) + len(set(content)) / 4) / 6)
    ast = stems(ans)
    ground = len(ast & (stems(desc) | qs)) / len(ast) if ast else 0.0
    con = 0  # R12
    denial = re.search(r"not heard|haven't heard|never heard|don't know|do not know|no idea|"
                       r"never met", low)
    qnames = set(re.findall(r"\b[A-Z][a-z]+\b", q)) - {"What", "When", "Where", "Who", "How",
                                                     "Why", "Have", "Do", "Did", "Are", "Is"}
    if denial and any(n in desc for n in qnames if n != first_name): con += 1
    for rel, who in re.findall(r"\bmy (\w+),? ([A-Z][a-z]+)", ans):
        if rel.lower() in RELS:
            for sent in re.split(r"(?<=[.!?])\s+", desc):
                if who in sent:
                    said = {RELS[w] for w in re.findall(r"[a-z]+", sent.lower()) if w in RELS}
                    if said and RELS[rel.lower()] not in said: con += 1; break
    if (re.match(r"^\W*yes\b", low) and denial) or (re.match(r"^\W*no\b", low) and re.search(
            r"told me|i heard|i know about|i'll be there", low)): con += 1
    f["contradiction"] = con
    wv = 1.0 if crit["voice"] else 0.7
    sc -= 0.60 * f["parrot"] + 0.25 * f["form"] + min(0.40, 0.20 * g) + ev
    sc += wv * (0.20 * fp - 0.30 * f["third"] - 0.10 * (named and fp))
    sc -= min(0.45, 0.15 * art) + 0.25 * f["truncated"]
    sc += resp + 0.15 * ov + (1.0 if crit["spec"] else 0.7) * 0.30 * spec + 0.15 * ground
    sc -= (1.0 if crit["contra"] else 0.7) * min(0.80, 0.40 * con)
    lb = min(0.12, 0.04 * math.log2(1 + len(aw) / 8)) * (0.5 if crit["nolen"] else 1.0)
    f.update(resp=resp, spec=spec, ground=ground, hit=hit)
    return sc + lb, f

def describe(f, first, good):
    if good:
        bits = []
        if f["resp"] >= 0.2: bits.append("answers what was asked")
        if f["first"]: bits.append(f"speaks as {first} would")
        if f["spec"] >= 0.5: bits.append("gives concrete details")
        if f["ground"] >= 0.5 and not f["contradiction"]: bits.append("fits the description")
        return " and ".join(bits[:2]) or "is the least flawed"
    if f["parrot"]: return "just echoes the question back"
    if f["contradiction"]: return "contradicts the description or itself"
    if f["evasive"]: return "is an evasive stock non-answer"
    if f["artefacts"] >= 2: return "reads like a log or transcript rather than speech"
    if f["third"]: return f"talks about {first} in the third person"
    if f["truncated"]: return "breaks off mid-sentence"
    if f["form"]: return "answers yes or no to a question that did not ask for it"
    if f["garbled"]: return "is garbled"
    return "is vaguer than the others"

def join_letters(ls): return ls[0] if len(ls) == 1 else ", ".join(ls[:-1]) + " and " + ls[-1]

def judge(body, P, letters, rng):
    msgs = body.get("messages", [])
    instr = (P["post"] + " " + " ".join(text_of(m) for m in msgs if m.get("role") == "system")).lower()
    crit = dict(spec=bool(re.search(r"specific|detail|concrete", instr)),
                contra=bool(re.search(r"contradict|consistent", instr)),
                voice=bool(re.search(r"character|believab|fits|voice", instr)),
                nolen=bool(re.search(r"(not|n't) reward length|length for its own|regardless of "
                                     r"length|ignore length", instr)))
    kinds, yesno = kinds_of(P["question"], P["qctx"])
    temp = body.get("temperature")
    sd = 0.05 + 0.12 * (0.7 if temp is None else float(temp))
    n = len(letters)
    groups = {}
    for i, L in enumerate(letters):
        key = re.sub(r"\s+", " ", P["answers"].get(L, "").strip().lower())
        groups.setdefault(key, []).append((i, L))
    scored, feats = [], {}
    for key, mem in groups.items():
        s, f = features(P["answers"].get(mem[0][1], ""), P, kinds, yesno, crit)
        s += 0.05 * (1 - mem[0][0] / (n - 1 if n > 1 else 1)) + sd * rng.gauss()
        order = [L for _, L in mem]
        if len(order) > 1 and rng.u() >= 0.75: order = rng.shuffle(order)
        feats.update({L: f for L in order})
        scored.append((s, mem[0][0], order))
    scored.sort(key=lambda t: (-t[0], t[1]))
    ranking = [L for _, _, o in scored for L in o]
    if n > 1 and rng.u() < 0.04:
        k = int(rng.u() * (n - 1))
        ranking[k], ranking[k + 1] = ranking[k + 1], ranking[k]
    first = P["name"].split()[0] if P["name"] else "the resident"
    if len(groups) == 1:
        reason = (f"All {n} answers are identical, and each {describe(feats[letters[0]], first, False)}"
                  f", so the order among them is arbitrary.")
    else:
        top, bottom = scored[0], scored[-1]
        tf, bf = feats[top[2][0]], feats[bottom[2][0]]
        tl, bl = join_letters(sorted(top[2])), join_letters(sorted(bottom[2]))
        verb, it = ("is", "it") if len(top[2]) == 1 else ("are", "each")
        bl += "" if len(bottom[2]) == 1 else " each"
        if top[0] < 0:
            reason = (f"None of the answers really works; {tl} {verb} least bad as {it} "
                      f"{describe(tf, first, True)}, while {bl} {describe(bf, first, False)}.")
        else:
            reason = (f"{tl} {verb} most believable as {it} {describe(tf, first, True)}; "
                      f"{bl} {describe(bf, first, False)}.")
        dups = [join_letters(o) for _, _, o in scored if len(o) > 1]
        if dups and rng.u() < 0.5:
            reason += f" {dups[0]} are word-for-word the same."
    return ranking, reason, feats

def schema_of(body):
    js = (body.get("response_format") or {}).get("json_schema") or {}
    return js.get("schema") if isinstance(js, dict) else None

def fill(sch, name=""):
    if not isinstance(sch, dict): return "ok"
    if "enum" in sch: return sch["enum"][0]
    t = sch.get("type")
    if isinstance(t, list): t = t[0]
    if t == "object" or "properties" in sch:
        props = sch.get("properties", {})
        keys = [k for k in props if k in sch.get("required", props)] or list(props)
        return {k: fill(props[k], k) for k in keys}
    if t == "boolean": return True
    if t in ("integer", "number"): return sch.get("minimum", 0)
    if t == "array": return [fill(sch.get("items", {}), name) for _ in range(sch.get("minItems", 0))]
    if t == "null": return None
    return "ok"

def examples(text):
    found = []
    for st in [m.start() for m in re.finditer(r"\{", text)]:
        depth = 0
        for k in range(st, len(text)):
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            if depth == 0:
                try: found.append(json.loads(text[st:k + 1]))
                except ValueError: pass
                break
    return [v for v in found if isinstance(v, dict)]

def fits(v, sch):
    if not isinstance(sch, dict): return True
    if "enum" in sch: return v in sch["enum"]
    t = sch.get("type")
    ok = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
    if t in ok and not isinstance(v, ok[t]): return False
    if t in ("integer", "number") and (isinstance(v, bool) or not isinstance(v, (int, float))):
        return False
    if t == "object" or isinstance(v, dict) and "properties" in sch:
        props = sch.get("properties", {})
        if any(k not in v for k in sch.get("required", [])): return False
        if sch.get("additionalProperties") is False and any(k not in props for k in v): return False
        return all(fits(v[k], props[k]) for k in v if k in props)
    if t == "array":
        return all(fits(x, sch.get("items", {})) for x in v) and \
            sch.get("minItems", 0) <= len(v) <= sch.get("maxItems", 10 ** 9)
    return True

def respond(body: dict, seed: int) -> str:
    canon = json.dumps(body, sort_keys=True, ensure_ascii=False)
    rng = Rng(hashlib.sha256(f"{seed}|{canon}".encode()).hexdigest())
    msgs = body.get("messages", []) or []
    users = [text_of(m) for m in msgs if m.get("role") == "user"]
    user = users[-1] if users else ""
    sch = schema_of(body)
    P = parse(user)
    arr_key = None
    if isinstance(sch, dict):
        for k, v in sch.get("properties", {}).items():
            if isinstance(v, dict) and v.get("type") == "array": arr_key = k
    asks_rank = re.search(r"\b(rank|order|list|sort|best|worst|most|least|prefer|compare)\b", user, re.I)
    if P and (arr_key or asks_rank):
        letters = list(P["answers"])
        if arr_key:
            en = sch["properties"][arr_key].get("items", {}).get("enum")
            if en and all(isinstance(x, str) for x in en): letters = list(en)
        ranking, reason, _ = judge(body, P, letters, rng)
        post = P["post"].lower()
        if re.search(r"least\b[^.]*\bto (the )?most|worst first|least \w+ first", post): ranking.reverse()
        props = (sch or {}).get("properties") or {"reason": {"type": "string"},
                                                  "ranking": {"type": "array"}}
        obj = {}
        for k, v in props.items():
            v = v if isinstance(v, dict) else {}
            if k == arr_key or (not arr_key and v.get("type") == "array"):
                obj[k] = ranking
            elif v.get("type") == "string" and v.get("enum"):
                obj[k] = ranking[0] if ranking[0] in v["enum"] else v["enum"][0]
            elif v.get("type") == "string" or "type" not in v:
                obj[k] = reason[:v.get("maxLength", 600)]
            else:
                obj[k] = fill(v, k)
        u = rng.u()
        if 0.009 <= u < 0.012 and arr_key and len(ranking) > 1:
            obj[arr_key] = ranking[:-1]
        elif 0.012 <= u < 0.015 and arr_key and len(ranking) > 1:
            obj[arr_key] = ranking[:-1] + [ranking[int(rng.u() * (len(ranking) - 1))]]
        text = json.dumps(obj, ensure_ascii=False)
        if u < 0.005:
            text = text[:int(len(text) * (0.4 + 0.5 * rng.u()))]
        elif u < 0.009:
            text = ("Here is my judgement:\n" + text) if rng.u() < 0.5 else ("```json\n" + text + "\n```")
        mt = body.get("max_tokens")
        return text[:4 * mt] if isinstance(mt, int) and len(text) > 4 * mt else text
    for ex in reversed(examples(user)):
        if sch is None or fits(ex, sch): return json.dumps(ex)
    if sch is not None: return json.dumps(fill(sch))
    if re.search(r"\bjson\b", " ".join(text_of(m) for m in msgs), re.I):
        return json.dumps({"answer": "Yes, I'm here."})
    return "Yes, I'm here. How can I help?"
