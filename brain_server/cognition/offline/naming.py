"""Whether a text names an event (`naming`): enough of the words of what it is about, read from the
event's own text, in any word form. A memory's news (`news.naming`) and a status's sentence
(`status.dated_own`) are read so."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from brain_server.cognition.offline.happens import before_when, event_named, what_clause
from brain_server.cognition.offline.heard import stems
from brain_server.cognition.offline.said_clock import WHEN_WORDS
from brain_server.model.world import SEPARATOR

MENTIONED = 3  # words of what the news is about that a conversation names when it told it


def naming(said: str, teller: str, places: Iterable[str] = ()) -> Callable[[str], bool]:
    """Whether a text names the event `said` (its text without stamps): MENTIONED of the words of
    what it is about (its first clause that says more than when, `what_clause`, and the statements
    before it, `before_when`; the `teller`'s name left out; all of them, if fewer), in any word
    form; and, given the `places` the speaker knows, one of them a word of what happens, not only
    of where or when: Brinnick's whisper began "A flotsam auction in the boat hall of the Old
    Lifeboat House", and a host's line "I mean to tell everyone ... at the Old Lifeboat House
    tomorrow at 11 am" counted as telling it, so each listener kept the auction as told them, which
    nobody had said. A text that says what the event is called (`event_named`, two words or more:
    "indigo dyeing") names it too: a guest's plan block "going to: ..., there will be indigo
    dyeing" (the hard stand-in in Cauldwell) shared two of the words of "there will be indigo dyeing in the drying shed
    at Bramall's Laundry, of Netta Bramall's own devising", and the guest was kept at work. The
    event's words are read once, for every text asked about."""
    wanted = stems(f"{before_when(said)} {what_clause(said)}") - stems(teller)
    what = wanted - where_and_when(places) if places else set()
    least = min(MENTIONED, len(wanted))
    called = stems(event_named(said, anywhere=True)) - stems(teller)
    called = called if len(called) >= 2 else set()

    def named(text: str) -> bool:  # news with no words of its own ("N/A") is named by nothing
        words = stems(text)
        return bool(wanted) and (len(wanted & words) >= least or bool(called) and called <= words) and (
            not what or bool(what & words))

    return named


def where_and_when(places: Iterable[str]) -> set[str]:
    """The words of the places' names (every part of each address) and of days and times of day."""
    return stems(" ".join(part for place in places for part in place.split(SEPARATOR))) | WHEN_WORDS
