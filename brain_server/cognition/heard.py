"""What a line heard asks, read in code for the lines composed offline (offline_lines.py): its kind
(a greeting, thanks, the NPC's job, its plans, the time, the way somewhere...) and the words that
say more (a name asked of, today's hours), and whether a line may answer it (`acceptable`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import StrEnum
import re

LOOP_PAIRS = 3  # the same two words this often in a line is a loop


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
    OTHER = "other"


# Asked who the NPC is; how it is; met for the first time; an apology (each a kind's part, told apart in the answer).
_WHO = r"who are you|your name|introduce yourself|about yourself"
_HOW_ARE_YOU = r"how are you|how('s| is) it going|how do you do"
_MEETING = r"nice to meet|new (?:in town|here)|my name is"
_SORRY = r"sorry|apologi[sz]e"
GREETING = re.compile(r"^\s*(hi|hello|hey|hiya|howdy|greetings|good (?:morning|afternoon|evening|day))\b"
                      r"[^.!?,]{0,30}[.!?,]+\s*", re.IGNORECASE)
# First match wins: "what are you doing tomorrow" is about plans, "where do you work" about the job,
# "where is the bakery?" the way there, "where do you live?" the NPC's place.
_KINDS = (
    (Kind.BYE, re.compile(r"\b(bye|goodbye|see you|farewell|good ?night|take care)\b", re.IGNORECASE)),
    (Kind.TIME, re.compile(r"\b(what time is it|what's the time|the time\?|what day is it)", re.IGNORECASE)),
    (Kind.PLANS, re.compile(r"\b(tomorrow|tonight|later|plans?|planning|going to|will you|next|this (afternoon|"
                            r"evening|weekend)|after (this|that|work))\b", re.IGNORECASE)),
    (Kind.JOB, re.compile(r"\b(jobs?|work|works|working|occupation|profession|trade|career|for a living|"
                          r"what do you do|business|" + _WHO + r")\b", re.IGNORECASE)),
    (Kind.NOW, re.compile(r"\b(doing|up to|busy|right now|at the moment)\b", re.IGNORECASE)),
    (Kind.WAY, re.compile(r"\bwhere(?:'s| is| are| can i find| do i find)\b(?! you\b)", re.IGNORECASE)),
    (Kind.PLACE, re.compile(r"\b(where|live)\b", re.IGNORECASE)),
    (Kind.GREETING, re.compile(f"({_HOW_ARE_YOU}|{_MEETING})", re.IGNORECASE)),
    (Kind.THANKS, re.compile(rf"\b(thanks|thank you|cheers|{_SORRY})\b", re.IGNORECASE)),
)
WHO = re.compile(rf"\b({_WHO})\b", re.IGNORECASE)
HOW_ARE_YOU = re.compile(_HOW_ARE_YOU, re.IGNORECASE)
MEETING = re.compile(_MEETING, re.IGNORECASE)
NEWS = re.compile(r"\bnews\b|what'?s new|anything new|happening|going on", re.IGNORECASE)
SORRY = re.compile(rf"\b({_SORRY})\b", re.IGNORECASE)
# Asked of today's hours ("later", "tonight"), the plan answers first; else what it is up to these days.
TODAY = re.compile(r"\b(today|tonight|later|this (morning|afternoon|evening)|tomorrow|next)\b", re.IGNORECASE)
# Words of asking and of time, not of what is done ("what are you doing later?" names no item).
ASKING = {"what", "when", "where", "which", "your", "have", "with", "this", "that", "there", "doing", "going", "plans",
          "planning", "planned", "later", "tonight", "today", "tomorrow", "will", "about", "after", "before",
          "morning", "afternoon", "evening", "week", "weekend", "anything", "something"}
# Asked of someone by name ("Have you seen Zoë?", "Do you know Bram?"): a person, remembered or not.
ASKED_OF = re.compile(r"\b(?:seen|see|met|meet|heard from|heard of|know)\s+([A-Z][\w']*)")
_WORD = re.compile(r"[a-z0-9']+")
_NAMED = 3  # words after a greeting that only name who is greeted ("Good morning, Odile!")


def kind_of(heard: str) -> tuple[Kind, str]:
    """The kind of what was heard, and the greeting it opened with ("" if none)."""
    greeting = GREETING.match(heard)
    rest = heard[greeting.end():] if greeting else heard
    kind = next((k for k, pattern in _KINDS if pattern.search(rest)), None)
    if kind is None:
        only_named = len(rest.split()) <= _NAMED and "?" not in rest
        kind = Kind.GREETING if greeting and only_named else Kind.OTHER
    return kind, greeting.group(1).capitalize() if greeting else ""


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


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
