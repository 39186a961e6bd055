"""How a speaker calls someone to their face. A game names whoever talks to an NPC as it likes
("the player", "Guard #2", "Dr. Ana Lee"), and a line written "Good to talk, {first word}" read
"Good to talk, the" or "Good to talk, Dr.": a name that is not a person's is left out instead."""

from __future__ import annotations

import re

# Titles said with the surname: "Dr. Ana Lee" is "Dr. Lee", "Captain Reyes" stays as it is.
TITLES = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "doctor", "prof", "professor", "sir", "dame", "lady", "lord",
                    "captain", "capt", "sergeant", "sgt", "officer", "father", "mother", "sister", "brother",
                    "master", "mistress", "madam", "madame", "monsieur", "herr", "frau", "señor", "señora"})
_NOT_A_PERSON = re.compile(r"[\d#_@/\\]")  # a numbered or coded name: "Guard #2", "npc_07"


def called(name: str) -> str:
    """What a speaker calls `name` to their face: a person's first name ("Isabella" for "Isabella
    Rodriguez", "Bob" for "Bob"), a title with the surname ("Dr. Lee"), or "" for a name that is no
    person's: a description ("the player", "someone", "stranger") or a number ("Guard #2")."""
    words = name.split()
    if not words or _NOT_A_PERSON.search(name) or words[0][0].islower():
        return ""
    if words[0].rstrip(".").lower() in TITLES:  # alone, a title is said as it is ("Captain"), an abbreviation not
        return f"{words[0]} {words[-1]}" if len(words) > 1 else words[0] if len(words[0].rstrip(".")) > 3 else ""
    return words[0].rstrip(",;:")


def addressing(name: str, before: str = ", ") -> str:
    """`name` as called, led by `before`, for a line that reads without it too: "It was good to
    talk" + this + "." is "It was good to talk, Isabella." to her and "It was good to talk." to "the player"."""
    said = called(name)
    return f"{before}{said}" if said else ""
