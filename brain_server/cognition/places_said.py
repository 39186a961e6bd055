"""Which of the places an NPC knows some words name: a place said in other words counts as said ("the
chapel" names the Chapel of St Ives: a word of its name that tells it apart is enough), a room by its
name ("the loft"), one's home by "her place" (`home_named`); and a plan item's place as its own words
name it (`place_as_said`), as a clock is read as said."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
import functools
import re

from brain_server.cognition.offline.heard import made_once
from brain_server.model.trace import Trace
from brain_server.model.world import SEPARATOR, place_names

_WORD = re.compile(r"[\w'’]+")
# Two or more capitalised words together: a name of its own ("Bo Tamm", "the Engine Depot").
_NAME_RUN = re.compile(r"\b[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)+")
PLACES_KEPT = 16_384  # places whose names are kept compiled (`_place_terms`): a large game's every place
# Words of a place's name too common to say which place is meant ("the old house" names no house).
_COMMON = {"the", "of", "and", "old", "new", "little", "big", "great", "upper", "lower", "north", "south", "east",
           "west", "main", "room", "house", "home", "street", "road", "lane", "hall", "st"}



def words(text: str) -> set[str]:
    return {w.lower().removesuffix("'s").removesuffix("’s") for w in _WORD.findall(text)}


def named_places(places: Iterable[str], said: str) -> list[str]:
    """The places among `places` whose sector or arena `said` names whole, or whose sector it names
    by a word that tells it apart ("the chapel": the Chapel of St Ives; "the kitchen" names no house),
    but not by a word said only in another name ("Bo Tamm will come" names no Tamm house, "Isabella
    Rodriguez is hosting" not Isabella Rodriguez's apartment)."""
    runs = [(m.group(), words(m.group())) for m in _NAME_RUN.finditer(said)]
    heard_anywhere = words(said)

    def named(place: str) -> bool:
        names, own, telling = _place_terms(place)
        if any(name.search(said) for name in names):
            return True
        if not telling & heard_anywhere:  # the words left once other names are taken out are fewer
            return False
        rest = said
        for text, its in runs:  # another name (a person's), unless it is the place's own
            if not its <= own or not own - _COMMON <= its:
                rest = rest.replace(text, " ")
        return bool(telling & words(rest))

    return [p for p in dict.fromkeys(places) if named(p)]


@functools.lru_cache(maxsize=PLACES_KEPT)
def _place_terms(place: str) -> tuple[tuple[re.Pattern[str], ...], frozenset[str], frozenset[str]]:
    """A place's sector and arena names as whole-word patterns, its sector's words, and those of
    them that tell it apart: every plan item's words are matched against each place it knows (a
    thousand day plans landing at once spent most of their own CPU compiling these again)."""
    sector, arena = place_names(place)
    own = frozenset(words(sector))
    return (tuple(re.compile(rf"\b{re.escape(name)}\b", re.IGNORECASE) for name in (sector, arena) if name), own,
            frozenset(w for w in own if w not in _COMMON and len(w) > 2))


def _building_said(place: str, said: str) -> bool:
    """Whether `said` names the place's building whole."""
    return _place_terms(place)[0][0].search(said) is not None


def named_place(places: Iterable[str], said: str) -> str:
    """The place among `places` that `said` names most closely: one whose room it names too ("in the
    mess room of the Engine Depot": not the depot's engine shed), and of those one whose building it
    names whole ("from the lookout up at the Varden": not the Varden Path's path, where "he hauled it
    up the path"), else the first it names; "" for none."""
    return min(named_places(places, said), default="",
               key=lambda p: (not room_named(p, said), not (sector := _place_terms(p)[0][0].search(said)),
                              sector.start() if sector else len(said)))


# Where one's own home is said without its name: "round to her place", "at home" (or after the NPC's own name:
# "to Mara Quill's flat", as a whisper said in its own voice is kept).
_HOME_WORDS = r"(?:own\s+)?(?:place|house|home|flat|cottage|cabin)"
_HOME_SAID = re.compile(rf"\b(?:(?:her|his|their|my|our)\s+{_HOME_WORDS}|at\s+home)\b(?!\s*\()", re.IGNORECASE)


def home_named(said: str, home: str, name: str = "") -> str:
    """`said` (a thought whispered to the NPC whose `home` it is, called `name`) with its home's
    building named after where it says it without a name ("round to her place (Lock House)"): a
    whisper's party "at her place" named no place the brain knew, so its host held no event of her own."""
    found = _HOME_SAID.search(said) or (re.search(rf"\b{re.escape(name)}['\u2019]s\s+{_HOME_WORDS}\b(?!\s*\()", said,
                                                  re.IGNORECASE) if name else None)
    if not home or found is None or named_places([home], said):
        return said
    return f"{said[:found.end()]} ({place_names(home)[0]}){said[found.end():]}"


def room_named(place: str, said: str) -> bool:
    """Whether `said` names the place's room (its last part: "the loft"), not only its building."""
    return made_once(rf"\b{re.escape(place.rsplit(SEPARATOR, 1)[-1])}\b", re.IGNORECASE).search(said) is not None


def place_as_said(said: str, place: str, known: Sequence[str], trace: Trace | None) -> str:
    """A plan item's place, unless its own words (`said`) name another place the NPC knows and not
    it: then that one, as a clock is read as said (the Ville, blind6: "going to: ... a Valentine's
    Day party at Hobbs Cafe" booked at the pub where it was heard, by a memo and by a day plan). A place
    whose building the words name whole goes before `place` named only by a word of its building's name
    (a corpus of conversations by another hand, stop 114: a memo booked a talk "in the Miners' Institute
    lecture hall" at the Assay Office, where they talked, its words naming "the assay book")."""
    named = named_places(known, said)
    whole = [p for p in named if _building_said(p, said)]
    if place and whole and not _building_said(place, said):
        named = whole
    elif not named or place in named or (place and named_places([place], said)):
        return place
    chosen = named_place(named, said)
    if trace is not None:
        trace.note(f"plan: {said[:60]!r} names {chosen!r}, not its place {place!r}: put there")
    return chosen


_LOWER_WORD = re.compile(r"\b[a-z][\w'-]*")  # a word not capitalised: a common noun in a place's name


def room_said(place: str, heard: str, places: Sequence[str]) -> bool:
    """Whether `heard` names the place's room by a word of its name that no other of `places` has in its
    room's ("the kiln" for a kiln room; "the kitchen" where two houses have one names neither), a common
    noun (not "Maria Lopez" of "Maria Lopez's room", said whenever she speaks)."""
    others = {w for p in places if p != place for w in words(p.rsplit(SEPARATOR, 1)[-1])}
    nouns = words(" ".join(_LOWER_WORD.findall(place.rsplit(SEPARATOR, 1)[-1])))
    telling = {w for w in nouns if w not in _COMMON and len(w) > 2} - others
    return bool(telling & words(heard))
