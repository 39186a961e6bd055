"""What a line heard asks, read in code for the lines composed offline (offline_lines.py): its kind
(a greeting, thanks, the NPC's job, its plans, the time, the way somewhere...) and the words that
say more (a name asked of, today's hours), and whether a line may answer it (`acceptable`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from difflib import SequenceMatcher
from enum import StrEnum
import functools
import re

from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.names import called
from brain_server.model.npc import Persona

NAMES_KEPT = 16_384  # patterns made from names kept compiled (`made_once`): a large game's every name
LOOP_PAIRS = 3  # the same two words this often in a line is a loop
REPEAT_WORDS = 4  # a line this long or longer said again (nearly) word for word is a repeat; "Yes, thanks!" may recur
REPEAT_NEAR = 0.8  # the share of words two lines have in sequence (difflib's ratio) that makes one the other again


class Kind(StrEnum):
    GREETING = "greeting"
    THANKS = "thanks"
    TIME = "time"
    JOB = "job"
    PLANS = "plans"
    NOW = "now"
    PERSON = "person"
    PLACE = "place"
    WAY = "way"
    BYE = "bye"
    REQUEST = "request"
    COMPLIMENT = "compliment"
    INSULT = "insult"
    OTHER = "other"


# Asked who the NPC is; how it is; met for the first time; an apology (each a kind's part, told apart in the answer).
_WHO = r"who are you|your name|introduce yourself|about yourself"
_AGE = r"how old are you|your age"
_HOW_ARE_YOU = r"how are you|how('s| is) (?:it|your day) going|how do you do|what's up\b"
_MEETING = r"nice to meet|new (?:in town|here)|my name is|i'm \w+,? by the way"
_SORRY = r"sorry|apologi[sz]e"
GREETING = re.compile(r"^\s*(hi|hello|hey|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening|day))\b"
                      r"(?:[^.!?,]{0,30}[.!?,]+\s*|(?:\s+[\w']+){0,2}\s*$)", re.IGNORECASE)
# First match wins: "what are you doing tomorrow" is about plans, "where do you work" about the job,
# "where is the bakery?" the way there, "where do you live?" the NPC's place.
_KINDS = (
    (Kind.BYE, re.compile(r"\b(bye|goodbye|see you|farewell|good ?night|take care|(?:(?:have|got) to|must|gotta) go(?=\s*(?:now)?[.!]*$))\b",
                          re.IGNORECASE)),
    (Kind.TIME, re.compile(r"\b(what time is it|what's the time|the time\?|what day is it)", re.IGNORECASE)),
    (Kind.REQUEST, re.compile(r"\b(?:can|could|would|will) you (?!be\b|tell\b|say\b|do\b|go\b)|\bplease\b|"
                              r"\bcan i (?:get|have|borrow|buy)\b|\blet's\b", re.IGNORECASE)),
    (Kind.PLANS, re.compile(r"\b(tomorrow|tonight|later|plans?|planning|(?:you|you're|are you) going to|will you|"
                            r"next|these days|nowadays|on your mind|thinking about|this (afternoon|evening|weekend|"
                            r"week)|in the evenings?|after (this|that|work))\b",
                            re.IGNORECASE)),
    (Kind.JOB, re.compile(r"\b(jobs?|work|works|working|occupation|profession|trade|career|for a living|"
                          r"what do you do|business|(?:when|what time) do you (?:open|close|finish|start|stop)|" + _WHO +
                          "|" + _AGE + r")\b", re.IGNORECASE)),
    (Kind.NOW, re.compile(r"\b(doing|up to|busy|right now|at the moment|did you do)\b", re.IGNORECASE)),
    (Kind.WAY, re.compile(r"\bwhere(?:'s| is| are| can i find| do i find)\b(?! you\b)", re.IGNORECASE)),
    (Kind.PLACE, re.compile(r"\b(where|liv(?:e|es|ed|ing))\b", re.IGNORECASE)),
    (Kind.GREETING, re.compile(f"({_HOW_ARE_YOU}|{_MEETING})", re.IGNORECASE)),
    (Kind.INSULT, re.compile(r"\b(idiot|stupid|fool|ugly|useless|dumb|moron|liar|lazy|pathetic|hate you|shut up|"
                             r"stinks?|smelly|loser|coward|worthless)\b", re.IGNORECASE)),
    (Kind.COMPLIMENT, re.compile(r"\byou(?:r|'re)?\b.*\b(beautiful|lovely|wonderful|great|nice|amazing|delicious|"
                                 r"fantastic|brilliant|impressive|kind|clever)\b|\b(?:well done|good job|i (?:like|love)"
                                 r" your)\b", re.IGNORECASE)),
    (Kind.THANKS, re.compile(rf"\b(thanks|thank you|cheers|{_SORRY})\b", re.IGNORECASE)),
)
WHO = re.compile(rf"\b({_WHO})\b", re.IGNORECASE)
AGE = re.compile(_AGE, re.IGNORECASE)
HOW_ARE_YOU = re.compile(_HOW_ARE_YOU, re.IGNORECASE)
MEETING = re.compile(_MEETING, re.IGNORECASE)
NEWS = re.compile(r"\bnews\b|what'?s new|anything new|happening|going on|gossip|rumou?rs?", re.IGNORECASE)
# A question without its question mark ("what time do you close"), and one that asks to be agreed with.
QUESTION = re.compile(r"\?|^\s*(what|who|whom|where|when|why|how|which|do|does|did|are|is|was|were|can|could|would|"
                      r"will|have|has)\b", re.IGNORECASE)
AGREE = re.compile(r"\b(isn't it|is it not|aren't they|don't you think)\?\s*$", re.IGNORECASE)
SORRY = re.compile(rf"\b({_SORRY})\b", re.IGNORECASE)
# Asked of what it is up to these days: its currently answers, not today's plan.
THESE_DAYS = re.compile(r"\b(these days|nowadays|this week|on your mind|thinking about)\b", re.IGNORECASE)
# Asked of today's hours ("later", "tonight"), the plan answers first; else what it is up to these days.
TODAY = re.compile(r"\b(today|tonight|later|this (morning|afternoon|evening)|in the evenings?|tomorrow|next)\b",
                   re.IGNORECASE)
# Words of asking and of time, not of what is done ("what are you doing later?" names no item).
ASKING = {"what", "when", "where", "which", "your", "have", "with", "this", "that", "there", "doing", "going", "plans",
          "work", "works", "working",
          "planning", "planned", "later", "tonight", "today", "tomorrow", "will", "about", "after", "before",
          "morning", "afternoon", "evening", "week", "weekend", "anything", "something"}
# Asked of someone by name ("Have you seen Zoë?", "Do you know Bram?"): a person, remembered or not.
ASKED_OF = re.compile(r"\b(?:seen|see|met|meet|heard from|heard of|know|think of|about|talked (?:to|with)|"
                      r"spoken (?:to|with)|did|does|has)\s+([A-Z][\w']*)")
# Words that tell nothing of what a line is about (a line of them only is not English, or nonsense).
ENGLISH = {"go", "come", "get", "want", "like", "need", "let's", "now", "then", "good", "oh", "the", "a", "an", "is", "are", "am", "was", "be", "you", "your", "i", "me", "my", "we", "they", "he", "she",
            "it", "what", "who", "how", "why", "do", "does", "did", "to", "of", "and", "or", "but", "in", "on", "at",
            "that", "this", "have", "has", "for", "with", "can", "not", "no", "yes", "so", "if", "just", "too", "very",
            "will", "would", "there", "here", "it's", "i'm", "you're", "don't", "anyone", "ever", "any", "some", "all", "from", "up", "out", "by", "as", "new"}
# Pronouns name nothing of what a text is about: "her", "them" and "five" were three of the four words by
# which Bir Tamrit's host's status "On Thursday she will be up there from half past five ... stand in front
# of them with her" named her engravings, so her status kept no word of them and none was put back.
PRONOUNS = {"her", "hers", "him", "his", "them", "their", "theirs", "its", "our", "ours", "yours", "mine", "who", "whom",
            "himself", "herself", "themselves", "themself", "itself", "myself", "yourself", "ourselves"}
VAGUE = {*ENGLISH, *ASKING, *PRONOUNS, "see", "seen", "saw", "know", "think", "like", "get", "got", "go", "went", "say",
         "said", "tell", "told", "long", "much", "many", "really", "good", "well", "right", "come", "coming", "day", "today"}
NOT_NAMES = {"He", "She", "Her", "His", "They", "Their", "The", "A", "An", "It", "Its", "I", "My", "In", "On", "At"}
ACK = {"ok", "okay", "alright", "sure", "right", "yes", "yeah", "yep", "no", "nope", "hmm", "i", "see", "cool", "fine"}
_WORD = re.compile(r"[a-z0-9']+")
# "wants to hold a shortwave evening in the loft ...", "is planning on having a party at ...", "is
# throwing a party at ...", "wants to get up a cricket match", "he'll seal a time capsule under the
# tiles": the intent, a verb (and its particle), and what is held, up to where the place, the day or the time is said.
# "There will be bread baking in the square": what there will be, where a clause begins so (a whisper
# said "..., there will be" and its news was told as "some news"), with or without an article.
_CLAUSE = r"(?:^|(?<=[,;:.!?] )|(?<=\bthat )|(?<=\btoday )|(?<=\btonight )|(?<=\btomorrow ))"  # where a clause begins
_THERE_BE = r"there(?:\s+(?:will|is going to)|['\u2019]ll)\s+be"
# A host's verb, after which what is held needs no article: "will hold indigo dyeing", "is running pottery
# classes". Read so in a host's own event, and where a statement is asked whether it says one at all
# (`happens._what_at`) (`HOSTED`): what others' news, lines and plans are read for (`EVENT`) is left as it was
# measured (read so there too, blind34's Cauldwell runs went another way from the first news passed on: 56%
# (5-7 of 9) knew against 89% (6-9), three seeds in view).
_HOSTS = r"(?:host|hold|throw|giv|run|runn|lead|teach|organi[sz]|stag)(?:e|s|es|ing)?\b"
_NOT_HELD = r"(?!(?:for|to|into|home|away|late|off|out|around|about|with|from|over|back|by|after|across|up|down)\b)"


def _event(hosts: bool) -> re.Pattern[str]:
    """`EVENT`, or with `hosts` `HOSTED`: the intent, a verb (and its particle), and what is held."""
    # never "be": "will be on the gravel beach" says where, and a call's reason was "to tell them about the gravel beach"
    verb = rf"(?:(?P<hosts>{_HOSTS})|(?!be\b)\w+)" if hosts else r"(?!be\b)\w+"
    doing = rf"(?:(?P<hosting>{_HOSTS})|\w+ing)" if hosts else r"\w+ing"
    article = r"(?:an?|the|his|her|their|its)\s+"
    held = rf"(?(hosts){_NOT_HELD}|(?(hosting){_NOT_HELD}|{article}))" if hosts else article
    return re.compile(
        r"(?:(?:wants|plans|means|hopes|intends|would like|is going|is planning|is hoping|has decided|will|"
        rf"(?<=\w)['\u2019]ll)\s+(?:to\s+|on\s+)?{verb}|is\s+{doing}|(?P<there>{_CLAUSE}{_THERE_BE}))"
        r"(?:\s+(?:up|on|together|out|in|round|along))?\s+"
        rf"(?P<what>(?(there)|{held}).+?)"
        r"(?=\s+(?:in|at|on|from|for|by|near|under|behind|beside|outside|inside|above|below|up|so|to|this|next|"
        r"tomorrow|today|tonight|during|between|after|before|he|she|they|we|I)\b|"  # a pronoun: "the sundial he has cut"
        r"\s*\(|[,.;:]|$)",
        re.IGNORECASE)


EVENT, HOSTED = _event(hosts=False), _event(hosts=True)
_THERE_LEAD = re.compile(rf"(?:{_THERE_BE}|there(?:['\u2019]s|\s+is|\s+are))\s+", re.IGNORECASE)  # "There's a chess match ..."
_SUBJECT = re.compile(r"(?:he|she|they|we|I)(?=\s|['\u2019])\s*", re.IGNORECASE)
# "A flotsam auction in the boat hall ...": an event said by its name first, with an article, up to
# where its place, day or time is said; no verb among its words ("The Workshop is open ..." is none,
# nor "The cafe hosts a Valentine's party ...": a word in -s before an article is a verb, and the
# host's news was said as "Isabella Rodriguez is hosting the cafe hosts a Valentine's party").
_NOT_NOUN = r"(?!(?:is|are|was|were|will|has|have|had|can|may|opens?)\b|[\w'’-]+s\s+(?:an?|the|its|his|her|their|our)\s)"
NAMED_FIRST = re.compile(
    rf"(?P<what>(?:an?|the)\s+(?:{_NOT_NOUN}[\w'’-]+\s+){{0,4}}?{_NOT_NOUN}[\w'’-]+)"
    r"(?=\s+(?:in|at|on|from|for|by|near|under|behind|beside|outside|inside|this|next|tomorrow|today|tonight|"
    r"between|after|before)\b|\s*[,(:;.]|$)", re.IGNORECASE)


def what_there_is(clause: str) -> str:
    """A clause that says what there will be ("there will be indigo dyeing in the drying shed") as
    what it is ("indigo dyeing in the drying shed"): said after "an event they are hosting:", the
    lead read as a line to say, and blind21 told Cauldwell "There will be indigo dyeing .... there
    will be indigo dyeing ... tomorrow afternoon"; said from where it is first, as `what_before_where`."""
    return clause[lead.end():] if (lead := _THERE_LEAD.match(clause)) else what_before_where(clause)


def what_before_where(clause: str) -> str:
    """A clause said from where something is ("Under the overhang at Kef Rock, there are engravings
    of giraffes") as what there is first ("engravings of giraffes under the overhang at Kef Rock"):
    blind31 told Bir Tamrit's host's news by its first words, as "Under the overhang", and those it
    told kept nothing of the giraffes. Any other clause is as it was."""
    if fronted := _FRONTED.fullmatch(clause.strip()):
        return f"{fronted['what']} {fronted['where'][0].lower()}{fronted['where'][1:]}{fronted['stop']}"
    return clause


# A place (or time) said before what there is, set off by a comma, an aside about it allowed: "Under the
# overhang at Kef Rock, where ..., there are ..."; not "At noon, Bo said that there is ...".
_FRONTED = re.compile(r"(?P<where>(?:under|in|at|on|inside|outside|behind|beside|by|near|beneath|below|above|over|"
                      r"up|down|across|along|past|among|round|around)\s[^,.;:!?]+?(?:,\s+(?:where|which|whose|when)\b"
                      r"[^,.;:!?]+)?),\s+there(?:\s+(?:are|is|were|was|will\s+be|is\s+going\s+to\s+be)|['\u2019](?:s|ll\s+be))"
                      r"\s+(?P<what>\S.*?)(?P<stop>[.!?]?)", re.IGNORECASE)


def event_in(clause: str, pattern: re.Pattern[str] = EVENT) -> re.Match[str] | None:
    """The event (`pattern`: `EVENT`, or `HOSTED` for a host's own) a clause begins with, after its
    subject if a pronoun: "he'll seal a time capsule under the new tiles" holds a time capsule; else
    one said after a name in it ("Tomorrow at noon Mara Quill is having a barbecue ...", "Mara Quill
    will hold a vigil ..." after a statement of how it came about): read from their first words only,
    such events were labelled "hosting: Tomorrow at noon Mara Quill is having ..." and told so."""
    subject = _SUBJECT.match(clause)
    if found := pattern.match(clause, subject.end() if subject else 0):
        return found
    return next((found for name in _DOER.finditer(clause) if (found := pattern.match(clause, name.end()))), None)


_DOER = re.compile(r"\b[A-Z][\w'\u2019-]*(?:\s+[A-Z][\w'\u2019-]*){0,2}\s+")  # a name: who does what follows


def named_first(clause: str) -> re.Match[str] | None:
    """The event a clause says by its name first (`NAMED_FIRST`), after "there's" or "there will be"
    where it opens so ("There's a chess tournament at The Anchor tonight")."""
    lead = _THERE_LEAD.match(clause)
    return NAMED_FIRST.match(clause, lead.end() if lead else 0)


# "Ines Varga told Tomas Reyes: ...", "Jonah Pike heard from Tomas Reyes and Ines Varga: ...", "Tomas
# Reyes learned that ...", a memo's "Ivo Kranjc talked with Agata Wilk; they spoke of ..." (or "Agata
# Wilk spoke of", "news came up that"), blind13's "Maria Lopez talked with Klaus Mueller about how
# ..." and its spoken "Klaus, I talked with someone about how ..." (before a name: "about how she"
# is left whole), blind19's "Ivo Kranjc passed on the news to Agata Wilk that ..." and "Agata Wilk
# heard from Ivo Kranjc that ...": who passed the news on, before what it is.
RELAYED = re.compile(r"(?:(?:[A-Z][\w'’-]*\s+){1,3}(?:told\s+[^:]{1,80}?:\s+|heard from\s+[^:]{1,80}?:\s+|"
                     r"(?:heard from|passed\s+(?:on\s+)?(?:the\s+(?:news|word)\s+)?(?:on\s+)?to)\s+"
                     r"(?:[A-Z][\w'’-]*\s+){1,3}(?:(?:and|,)\s+(?:[A-Z][\w'’-]*\s+){1,3})*that\s+|"
                     r"has news on their mind(?:,[^:]{1,60})?:\s+|"
                     r"(?:heard|learned|learnt|found out|was told)(?::\s+|\s+that\s+)|"
                     r"talked with\s+[^;:]{1,120}?;\s+(?:(?:they|(?:[A-Z][\w'’-]*\s+){1,3})\s*(?:spoke|talked)\s+"
                     r"(?:of|about)|news came up that)\s+)|"
                     r"(?:(?:[A-Z][\w'’-]*\s+){0,2}[A-Z][\w'’-]*,\s+I\s+|(?:[A-Z][\w'’-]*\s+){1,3})"
                     r"(?:talked|spoke)\s+(?:with|to)\s+[^;:]{1,120}?\s+about how\s+(?=[A-Z]))")


def unrelayed(text: str) -> str:
    """`text` without every lead of news passed on (`RELAYED`) before what it is."""
    while match := RELAYED.match(text):
        text = text[match.end():]
    return text


# Where a sentence ends: not after an initial or a title ("Chidi O. is the cook", "Dr. Ruiz").
SENTENCE = re.compile(r"(?<=[.!?])(?<!\b[A-Z]\.)(?<!\b(?:Mr|Ms|Dr|St)\.)(?<!\bMrs\.)\s+")
_NAMED = 3  # words after a greeting that only name who is greeted ("Good morning, Odile!")


def kind_of(heard: str) -> tuple[Kind, str]:
    """The kind of what was heard, and the greeting it opened with ("" if none)."""
    greeting = GREETING.match(heard)
    rest = asked(heard[greeting.end():] if greeting else heard)
    kind = next((k for k, pattern in _KINDS if pattern.search(rest)), None)
    if kind is None:
        only_named = len(rest.split()) <= _NAMED and "?" not in rest
        kind = Kind.GREETING if greeting and only_named else Kind.OTHER
    return kind, greeting.group(1).capitalize() if greeting else ""


def asked(heard: str) -> str:
    """The questions of a line that asks some ("I'm busy at the lock. Where do you live?": the
    second sentence), else all of it: what the line is read for."""
    questions = [s for s in SENTENCE.split(heard.strip()) if s.rstrip().endswith("?")]
    return " ".join(questions) or heard


def first_name(name: str) -> str:
    """How a line names someone, and is searched for them: as they are called ("Isabella", "Dr. Lee"),
    else by their whole name ("the player", "Guard #2": "the" or "Guard" would be found in any line)."""
    return called(name) or name


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def stems(text: str) -> set[str]:
    """The words of a text that say what it is about, without their endings ("hauling": "haul")."""
    return {re.sub(r"(?<=\w{3})(?:ing|ed|(?<=sh|ch|ss)es|s)$", "", w.removesuffix("'s")) for w in words(text)
            if w not in VAGUE and len(w) > 2}


def acceptable(line: str, heard: str, said: Sequence[str]) -> bool:
    """Not an echo of what it answers, not repeating itself (a four-word run twice, two words
    together LOOP_PAIRS times: "a job, a job, a job"), not a line said before."""
    spoken_words, heard_words = words(line), words(heard)
    if not spoken_words:
        return False
    spoken = " ".join(spoken_words)
    if heard_words and (spoken in " ".join(heard_words)
                        or len(set(spoken_words) & set(heard_words)) > 0.75 * len(set(spoken_words))):
        return False
    runs = list(zip(spoken_words, spoken_words[1:], spoken_words[2:], spoken_words[3:], strict=False))
    pairs = Counter(zip(spoken_words, spoken_words[1:], strict=False))
    looping = len(set(runs)) < len(runs) or max(pairs.values(), default=0) >= LOOP_PAIRS
    return not looping and spoken not in {" ".join(words(s)) for s in said}


def repeats(line: str, said: Sequence[str]) -> bool:
    """Whether a model's line says one of `said` (its speaker's earlier lines) again, word for word
    or nearly: a model looping in a conversation, which a person would not."""
    mine = words(line)
    return len(mine) >= REPEAT_WORDS and any(SequenceMatcher(None, mine, words(s)).ratio() >= REPEAT_NEAR for s in said)


@functools.lru_cache(maxsize=NAMES_KEPT)
def made_once(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`pattern` compiled once: patterns made from a town's names and places are more than `re`'s
    cache holds (512), so each call compiled its pattern again and evicted the constant ones too."""
    return re.compile(pattern, flags)


def name_matches(text: str, name: str, flags: re.RegexFlag = re.NOFLAG) -> Iterator[re.Match[str]]:
    """Each place `text` holds `name` as a whole name (not inside a longer word)."""
    return made_once(rf"(?<!\w){re.escape(name)}(?!\w)", flags).finditer(text)


def whole_name(text: str, name: str, flags: re.RegexFlag = re.NOFLAG) -> bool:
    """Whether `text` holds `name` as a whole name (not inside a longer word)."""
    return next(name_matches(text, name, flags), None) is not None


def says_name(text: str, person: str) -> bool:
    return made_once(rf"\b({re.escape(person)}|{re.escape(first_name(person))})\b").search(text) is not None


def speaks_of(text: str, person: str) -> bool:
    """Whether `text` speaks of `person`: by name (`says_name`), or as "he" or "she"."""
    return says_name(text, person) or _HE_SHE.search(text) is not None


_HE_SHE = re.compile(r"\b(?:[Hh]e|[Ss]he)\b")


def may_name(heard: str, *known: str) -> bool:
    """Whether a capitalised word inside a sentence may name someone (memories are searched then;
    the other kinds are answered from the persona and the plan alone, without the embedder's wait)."""
    skip = {"I", *(w for name in known for w in name.split())}
    return any(w.removesuffix("'s") not in skip for w in re.findall(r"(?:(?<=\w )|(?<=\w, ))[A-Z][\w']*", heard))


def known_in(heard: str, persona: Persona, partner: str) -> str:
    """A name the line says that the NPC's persona tells of ("What do you think of Pip?": "Her
    deckhand is Pip Harrow"), "" if none."""
    names = set(re.findall(r"\b[A-Z][\w']+(?: [A-Z][\w']+)*", f"{persona.identity} {persona.currently}"))
    names = {n for n in names if n.split()[0] not in NOT_NAMES} - {persona.name, first_name(persona.name), partner}
    return next((n for n in sorted(names, key=len, reverse=True) if says_name(heard, n)), "")


def person_in(heard: str, memories: Sequence[MemoryNode], me: str, partner: str) -> str:
    """A person the line names whom the NPC's memories mention ("" if none)."""
    names = {n for m in memories for n in (m.subject, m.object if m.kind == MemoryKind.CHAT else "")
             if n[:1].isupper()}  # a person's name, not an object seen ("the great lens")
    for name in sorted(names - {me, partner}, key=len, reverse=True):
        if says_name(heard, name):
            return name
    return ""
