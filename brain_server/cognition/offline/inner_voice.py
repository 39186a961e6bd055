"""A whisper said to the NPC or in its own voice, kept as a statement about it (`about_them`).

The paper's inner voice speaks to the agent ("You are going to run against Sam in the upcoming
election"), and its code asks the model to turn such a thought into "a statement about" the agent
before keeping it. Kept as said, "You are planning a party at The Anchor tomorrow" was the host's
news word for word: told on, a listener kept "Mara Quill told Bo Tamm: You are planning a party",
a plan's label read "hosting: You are planning ...", and no event was read from it. Here it is
rewritten by rule, not by a model: each sentence's first mention is the NPC's name (its verb made
to agree), later ones the pronoun its persona uses of it ("he", "his", "himself"; "they" where the
persona says none: `pronoun_of`), so that a sentence read alone, as a status's are, still says whom it
is about, and the event, its day and its place are read from it as from any thought said of the NPC.
"""

from __future__ import annotations

from dataclasses import dataclass
import re

# A text that opens said to the NPC or in its voice: "You are ...", "Your ...", "I'm ...", "My ...".
_OPENS_VOICED = re.compile(r"\s*(?:you|your|I|my)\b", re.IGNORECASE)
# Words, and what lies between them.
_TOKEN = re.compile(r"[A-Za-z]+(?:['\u2019][A-Za-z]+)?|[^A-Za-z]+")
# A word between a subject and its verb that leaves the verb's form to the subject ("you really want").
_BETWEEN = {"also", "still", "just", "really", "always", "never", "already", "finally", "often", "now", "even",
            "only", "actually", "truly", "certainly", "definitely", "probably", "both", "all"}
# The verbs whose form with a name is not the plain one with -s.
_AGREES = {"are": "is", "am": "is", "were": "was", "have": "has", "do": "does", "go": "goes", "aren't": "isn't",
           "weren't": "wasn't", "haven't": "hasn't", "don't": "doesn't", "was": "was", "wasn't": "wasn't"}
# Verbs that keep their form with any subject: modals, and what a past tense (-ed, or one of these) or a
# contraction already says; those whose past is their present ("put", "set") are kept as past ("You built
# it yourself" was "Mara builts it").
_KEEPS = {"can", "could", "will", "would", "shall", "should", "must", "may", "might", "ought", "can't", "couldn't",
          "won't", "wouldn't", "shouldn't", "mustn't", "had", "hadn't", "did", "didn't", "said", "got", "made",
          "felt", "thought", "knew", "found", "saw", "heard", "told", "left", "met", "kept", "took", "came", "went",
          "built", "bought", "brought", "caught", "taught", "fought", "sought", "began", "became", "broke", "chose",
          "drove", "rode", "wrote", "spoke", "woke", "froze", "stole", "ate", "fell", "forgot", "gave", "grew", "threw",
          "flew", "drew", "held", "led", "fed", "fled", "bled", "lent", "sent", "spent", "bent", "meant",
          "dealt", "learnt", "burnt", "dreamt", "lost", "paid", "laid", "ran", "rang", "sang", "swam", "drank", "sank",
          "sat", "stood", "understood", "won", "wore", "tore", "swore", "shook", "slept", "swept", "wept", "crept",
          "dug", "hung", "stuck", "struck", "swung", "spun", "sold", "hid", "bit", "shot", "slid", "lit", "rose",
          "put", "set", "cut", "let", "hit", "read", "shut", "spread", "cost", "hurt", "quit", "split", "cast", "bet"}
# A "you" or "me" that ends the phrase it is in, not one that begins a clause: what follows it.
_AFTER_OBJECT = {"to", "for", "with", "at", "in", "on", "about", "from", "into", "by", "a", "an", "the", "and", "or",
                 "too", "up", "out", "back", "there", "here", "again", "some", "something", "that", "this", "what",
                 "how", "if", "so", "but", "as", "off", "over", "round", "around", "through", "first", "soon",
                 "later", "tomorrow", "today", "tonight", "yesterday", "before", "after", "when", "then", "all",
                 "know", "come", "go", "see"}


@dataclass(frozen=True)
class Pronoun:
    """How a persona speaks of its NPC after naming it: subject, possessive, possessive alone, object,
    itself; "they" takes the plural verb."""

    subject: str
    possessive: str
    alone: str
    object: str
    itself: str

    @property
    def plural(self) -> bool:
        return self.subject == "they"


THEY = Pronoun("they", "their", "theirs", "them", "themself")
_BY_SUBJECT = {p.subject: p for p in (THEY, Pronoun("he", "his", "his", "him", "himself"),
                                      Pronoun("she", "her", "hers", "her", "herself"))}
# A sentence, or a clause after a semicolon, that opens with a pronoun: how a persona speaks of its NPC.
_OPENS_WITH = re.compile(r"(?:^|[.!?;]\s+)(he|she|they)\b", re.IGNORECASE)


def pronoun_of(identity: str) -> Pronoun:
    """The pronoun a persona's identity uses of its NPC: the one its sentences open with ("He finished
    school in June ..."; others it names are named), where one does so more than twice as often as any
    other; else "they". A whisper said to a young man kept "Duarte Quintas built it themself" in every
    prompt's status while his identity said "He ..." throughout."""
    counts = {p: 0 for p in ("he", "she", "they")}
    for found in _OPENS_WITH.findall(identity):
        counts[found.lower()] += 1
    first, second = sorted(counts.values(), reverse=True)[:2]
    return _BY_SUBJECT[max(counts, key=counts.__getitem__)] if first > 2 * second else THEY


@dataclass(frozen=True)
class _Voice:
    """How a voice says its subject, and its possessives and objects with what each is said of the NPC."""

    subject: str
    possessive: dict[str, str]
    object: dict[str, str]


def _voices(p: Pronoun) -> tuple[_Voice, _Voice]:
    """The second-person voice and the first, each said of the NPC with pronoun `p`."""
    return (_Voice("you", {"your": p.possessive, "yours": p.alone}, {"yourself": p.itself, "yourselves": "themselves"}),
            _Voice("i", {"my": p.possessive, "mine": p.alone}, {"me": p.object, "myself": p.itself}))
# The contractions of a subject: said after a name, and after "they".
_CONTRACTED = {"re": ("is", "are"), "m": ("is", "are"), "ve": ("has", "have"), "ll": ("will", "will"),
               "d": ("would", "would"), "s": ("is", "is")}
_PLURAL = {"am": "are", "was": "were", "wasn't": "weren't"}  # a later "I" is "they": "I am" is "they are"


def about_them(text: str, name: str, *, opening: bool = False, pronoun: Pronoun = THEY) -> str:
    """`text` (a thought whispered to the NPC called `name`) as a statement about it, where it is said
    to the NPC ("You want to hold a bonfire ...") or in its own voice ("I'm throwing a housewarming
    ..."); a thought that names the NPC, or says neither "you" nor "I", is kept as it is (its "you" is
    anybody's: "anyone may come, and you can bring a shirt"). With `opening`, only a text that opens
    so ("You are a retired sailor ..."): a description's "you" is often anybody's ("A gruff fisherman:
    if you cross him, you'll regret it")."""
    if not name or _names(text, name) or opening and not _OPENS_VOICED.match(text):
        return text
    words = _TOKEN.findall(text)
    lowered = [w.lower().replace("\u2019", "'") for w in words]
    second = next((i for i, w in enumerate(lowered) if w.split("'")[0] in ("you", "your", "yours", "yourself")), None)
    first = next((i for i, w in enumerate(words) if w == "I" or w.startswith(("I'", "I\u2019"))
                  or lowered[i] in ("my", "myself")), None)
    if second is None and first is None:
        return text
    second_voice, first_voice = _voices(pronoun)
    voice = second_voice if first is None or second is not None and second < first else first_voice
    out, named = list(words), False
    for i, word in enumerate(words):
        if not word[0].isalpha():
            named = named and not re.search(r"[.!?]\s", word)  # each sentence names the NPC once again
            continue
        low = lowered[i]
        base, _, contraction = low.partition("'")
        if voice is first_voice and base == "i" and word[0] != "I":
            continue  # "i" in lower case is no pronoun here
        if base == voice.subject and (voice is first_voice or contraction or not _object(lowered, i)):
            out[i] = _subject(out, words, i, name, named, contraction, voice is first_voice, pronoun)
        elif low in voice.possessive:
            out[i] = f"{name}'s" if not named and low in ("your", "my") else voice.possessive[low]
        elif low in voice.object or base == voice.subject:
            out[i] = name if not named else voice.object.get(low, pronoun.object)
        else:
            continue
        named = True
        if word[0].isupper() and out[i][0].islower() and _opens(words, i):
            out[i] = out[i][0].upper() + out[i][1:]
    return "".join(out)


def _names(text: str, name: str) -> bool:
    """Whether `text` speaks of `name` by its whole name or a given name (not a title such as "Dr.";
    nor its family name alone, which may name a place: "the drying shed at Bramall's Laundry" was
    whispered to Netta Bramall)."""
    given = [part for part in name.split()[:-1] or name.split() if not part.endswith(".")]
    return any(re.search(rf"\b{re.escape(said)}\b", text) for said in {name, *given})


def _object(lowered: list[str], at: int) -> bool:
    """Whether the "you" at `at` ends its phrase ("I'll invite you to ..."), by the word after it."""
    after = next((w for w in lowered[at + 1:] if w[0].isalpha()), "")
    between = lowered[at + 1] if at + 1 < len(lowered) else ""
    return not after or after in _AFTER_OBJECT or bool(re.search(r"[.,;:!?)]", between))


def _subject(out: list[str], words: list[str], at: int, name: str, named: bool, contraction: str,
             first: bool, pronoun: Pronoun) -> str:
    """The subject at `at` said of the NPC: its name the first time, its verb agreeing, else its
    pronoun (the verb plural after "they", as after a name after "he" or "she")."""
    if contraction:
        one, many = _CONTRACTED.get(contraction, (contraction, contraction))
        return f"{name} {one}" if not named else f"{pronoun.subject} {many if pronoun.plural else one}"
    if named:
        verb = _verb_at(words, at)
        if verb is not None and not pronoun.plural:
            out[verb] = _agreeing(words[verb])
        elif verb is not None and first:
            out[verb] = _PLURAL.get(words[verb].lower(), words[verb])
        return pronoun.subject
    if (verb := _verb_at(words, at)) is not None:
        out[verb] = _agreeing(words[verb])
    return name


def _verb_at(words: list[str], at: int) -> int | None:
    """The index of the verb after the subject at `at`, past a word like "really" or "also"."""
    for i in range(at + 1, len(words)):
        if not words[i][0].isalpha():
            if re.search(r"[^\s]", words[i]):
                return None
            continue
        if words[i].lower() in _BETWEEN or words[i].lower().endswith("ly"):
            continue
        return i
    return None


def _agreeing(verb: str) -> str:
    """`verb`, said after "you" or "I", as said after a name: "want" is "wants", "are" "is"."""
    low = verb.lower()
    if low in _AGREES:
        return _AGREES[low]
    if low in _KEEPS or low.endswith(("ed", "n't", "'t", "\u2019t")) or "'" in low or "\u2019" in low:
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _opens(words: list[str], at: int) -> bool:
    """Whether the word at `at` opens a sentence (nothing before it but a sentence's end)."""
    before = "".join(words[:at]).rstrip()
    return not before or before[-1] in ".!?\"("
