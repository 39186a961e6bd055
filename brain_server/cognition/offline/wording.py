"""How an NPC words what it knows in its own lines (the lines composed offline, offline_lines.py):
its persona in the first person, what it is doing, a plan item as what it will do, times and
places as said aloud, a thought whispered to it as its own, a memory as it tells it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
import re

from brain_server.cognition.offline.heard import GREETING, SENTENCE, first_name, made_once, says_name
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.world import place_names

LISTED_VERBS = 4  # verbs after the first in one sentence put in the first person ("loads sacks and dreams of")


def own_words(text: str, name: str, *, pronouns: bool = False) -> str:
    """A sentence about the NPC as it says it: "Odile Marsh keeps the lighthouse. She loves her lamp"
    as "I keep the lighthouse. I love my lamp" (pronouns too where the text is its persona's)."""
    subject = rf"(?:{re.escape(name)}|{re.escape(first_name(name))})"
    if pronouns:
        subject = rf"(?:{subject}|\b[Ss]he\b|\b[Hh]e\b)"
    text = made_once(rf"{subject}'s\b").sub("my", text)
    text = made_once(rf"{subject} (\w+)").sub(lambda m: f"I {base_verb(m.group(1))}", text)
    if pronouns:
        verb = r"\b(I \w+[^.;]*?(?:,| and)) (\w+s)\b(?= (?:at|in|on|to|with|for|every|each|the|a|an|his|her|of|about|up|out|"\
               r"it|them|all|some|one|\w+ed|\w+s)\b)"  # "I am ... and works at", "I coil ropes, loads sacks and dreams of": its verbs
        for _ in range(LISTED_VERBS):  # one of a sentence's verbs a pass: the pattern starts at its "I"
            text = re.sub(verb, lambda m: f"{m.group(1)} {base_verb(m.group(2))}", text)
        text = re.sub(r"\b(?:[Hh]is|[Hh]er)\b(?=\s+\w)", lambda m: "My" if m.group()[0].isupper() else "my", text)
        text = re.sub(r"\b(?:himself|herself)\b", "myself", text)
        text = re.sub(r"\b(?:him|her)\b", "me", text)
    return text[:1].upper() + text[1:]


def base_verb(verb: str) -> str:
    """The verb after "I": is -> am, loves -> love, watches -> watch, tries -> try."""
    special = {"is": "am", "has": "have", "does": "do", "was": "was", "goes": "go"}
    if verb in special:
        return special[verb]
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if re.search(r"(ch|sh|ss|x|o)es$", verb):
        return verb[:-2]
    return verb[:-1] if verb.endswith("s") and not verb.endswith("ss") and len(verb) > 3 else verb


def doing(activity: str, name: str) -> str:
    """'Odile Marsh is polishing the lens' as 'polishing the lens'."""
    return activity.removeprefix(f"{name} is ").removeprefix(f"{name} ").strip().rstrip(".")


def clock(when: datetime) -> str:
    """'8 am', '5:30 pm'."""
    hour, half = when.hour % 12 or 12, "am" if when.hour < 12 else "pm"
    return f"{hour} {half}" if when.minute == 0 else f"{hour}:{when:%M} {half}"


def will(activity: str) -> str:
    """A plan item as what the NPC will do: 'be serving customers', 'go to the regatta'."""
    first = activity.split()[0] if activity.split() else ""
    return f"be {activity}" if first.endswith("ing") else f"go to {activity}"


def when_said(then: datetime, now: datetime) -> str:
    days = (now.date() - then.date()).days
    if days == 0:
        return "this morning" if then.hour < 12 else "this afternoon" if then.hour < 18 else "this evening"
    if days == 1:
        return "yesterday"
    return f"on {then:%A}" if days < 7 else f"on {then:%B} {then.day}"


def place_name(address: str) -> str:
    """'Brookhaven:Lighthouse:lamp room' as 'the lamp room at Lighthouse' (sectors are names)."""
    parts = [p for p in address.split(":")[1:] if p]
    if len(parts) >= 2:
        return f"the {parts[1]} at {parts[0]}"
    return parts[0] if parts else "here"


def place_said(address: str) -> str:
    """An arena's address as news says where its event is, the building first: "Tarnbeck Mill
    (loft)", "Hobbs Cafe" for its cafe (`place_name`'s "the loft at Tarnbeck Mill" after "at" reads
    as two places)."""
    sector, arena = place_names(address)
    return sector if not arena or arena.lower() in sector.lower() else f"{sector} ({arena})"


_KEPT_VERBS = {"should", "could", "would", "will", "can", "must", "might", "may", "shall", "was", "had", "did"}
_THIRD = {"am": "is", "are": "is", "have": "has", "do": "does", "go": "goes", "were": "was"}
_CONTRACTED = {"m": "is", "re": "is", "ve": "has", "ll": "will", "d": "would"}
_ADVERBS = r"(?:(?:really|never|always|often|still|also|just|only|truly|\w+ly) )?"
_SUBJECT = re.compile(rf"^(?:you|I)(?:'(m|re|ve|ll|d)\b|( {_ADVERBS})(\w+))", re.IGNORECASE)


def _third(verb: str) -> str:
    """The verb after a name: want -> wants, are -> is, should -> should, try -> tries."""
    if verb.lower() in _KEPT_VERBS or verb.endswith("ed"):
        return verb
    if verb.lower() in _THIRD:
        return _THIRD[verb.lower()]
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + ("es" if re.search(r"(ch|sh|ss|x|z|o)$", verb) else "s")


def as_theirs(thought: str, name: str) -> str:
    """A thought whispered to the NPC ("You want to bake mooncakes", "I'm tired") as its own status
    ("Ines Calder wants to bake mooncakes"), which own_words turns back into its first person."""
    def theirs(sentence: str, who: str) -> str:
        sentence = _SUBJECT.sub(lambda m: f"{who} {_CONTRACTED[m.group(1).lower()]}" if m.group(1)
                                else f"{who}{m.group(2)}{_third(m.group(3))}", sentence)
        return re.sub(r"\b(?:[Yy]our|[Mm]y)\b", f"{first_name(name)}'s", sentence)

    sentences = [s for s in re.split(r"(?<=[.!?])\s+", thought.strip()) if s]
    return " ".join(theirs(s, name if n == 0 else first_name(name)) for n, s in enumerate(sentences))


def recall(node: MemoryNode, name: str, now: datetime, about: str = "") -> str:
    """A memory as the NPC tells it: 'I talked with Bram this morning. He said: "..."'; asked
    `about` someone, what was said of them is the part told."""
    when = when_said(node.created, now)
    if node.kind == MemoryKind.CHAT:
        partner = node.object if node.object != name else node.subject
        theirs = [gist(t) for t in _their_lines(node, name)]
        part = max((t for t in theirs if about and says_name(t, about)), key=len, default="") or max(
            theirs, key=len, default="")
        called = first_name(partner)
        told = f' {called[:1].upper()}{called[1:]} told me: "{part}"' if part else ""  # "The player told me"
        return f"I talked with {called} {when}.{told}"
    text = node.description.strip().rstrip(".")
    if node.kind == MemoryKind.OBSERVATION and " is " in text and not text.startswith(name):
        return f"I saw {text.replace(' is ', ' ', 1)} {when}."
    return f"{own_words(as_theirs(text, name), name)}."  # a whisper ("You want to...") is its own thought


def _their_lines(node: MemoryNode, name: str) -> list[str]:
    """What the others said in a conversation the NPC remembers."""
    return [t for who, t in re.findall(r'^(.+?): "(.*)"$', node.description, re.MULTILINE) if who != name]


def tells_of(node: MemoryNode, person: str, name: str) -> bool:
    """Whether a memory says something of `person`: a conversation with them, or in which another
    told of them (asked about them, as the one asking now may have done before, tells nothing);
    another memory that names them."""
    if node.kind != MemoryKind.CHAT:
        return says_name(node.description, person)
    return person in (node.subject, node.object) or any(
        says_name(gist(t), person) for t in _their_lines(node, name))


def gist(said: str) -> str:
    """What a line told, without its greeting and its questions."""
    return " ".join(s for s in SENTENCE.split(said.strip())
                    if s.strip() and not s.endswith("?") and not (GREETING.match(s) and len(s.split()) <= 4))


def by_event(memories: Sequence[MemoryNode]) -> list[MemoryNode]:
    """What happened (conversations, then sightings) before what was thought of it, each once."""
    unique = {m.id: m for m in memories if m.kind != MemoryKind.PLAN}
    return sorted(unique.values(), key=lambda m: (m.kind != MemoryKind.CHAT, m.kind != MemoryKind.OBSERVATION))


def clipped(text: str, limit: int) -> str:
    """`text` cut to `limit` at a word's end, marked "...": a status cut mid-word read "Sorry, I
    can't m" in every prompt after (blind6's writer), and a label "... the Plough Inn o"."""
    if len(text) <= limit:
        return text
    return text[:limit - 3].rsplit(" ", 1)[0].rstrip(",;:") + "..."


def known_of(name: str, identity: str, other: str) -> str:
    """How `name` sees `other` when no model says it: the sentences of its `identity` that name them
    ("... Leila Fassi, the teacher, said in front of everyone that she had spoiled the water; the two of
    them have hardly spoken since"), else that it knows them. "X knows Y." stood for a feud in every
    prompt after a failed relationship call."""
    said = [s for s in SENTENCE.split(identity) if says_name(s, other)]
    return " ".join(said[:KNOWN_OF_SENTENCES]) or f"{name} knows {other}."


KNOWN_OF_SENTENCES = 2
