"""What a conversation turn's prompt asks of its speaker beyond the line itself: which of the turn's
rules it shows (`rules`: telling news, answering an invitation) and what its last line is for
(`leaving`). The rules' words are prompt files (`converse_turn_telling.md`, `converse_turn_answering.md`);
this says when each applies."""

from __future__ import annotations

from collections.abc import Sequence
import re

from brain_server.cognition.news import Held, said_it
from brain_server.cognition.offline.said_clock import says_when
from brain_server.model.npc import DialogueLine
from brain_server.prompts import PromptLibrary

# A line that may ask someone along: what the rules of answering an invitation are for.
_ASKING_ALONG = re.compile(r"\b(?:come|coming|join|invit\w*|welcome|fancy|want to go|like to go|bring)\b", re.IGNORECASE)


def rules(prompts: PromptLibrary, name: str, partner: str, npc_id: str, lines: Sequence[DialogueLine], *,
          telling: bool, partner_news: bool) -> tuple[str, str]:
    """The turn's rules, each only where it has something to rule (the two parts of converse_turn.md):
    telling news, where the speaker holds some; answering an invitation, where the partner holds news
    or has said something that names a time or asks someone along. All of them in every turn were
    1,100 characters of nested conditions, in 67 of 300 captured turns with no news at all, that a
    literal model answers by declining passed-on news or reciting them (blind34's and blind33's writers)."""
    said = " ".join(line.text for line in lines if line.speaker_npc_id != npc_id)
    names = {"npc_name": name, "partner": partner}
    told = " " + prompts.template("converse_turn_telling").substitute(names).strip() if telling else ""
    asked = partner_news or says_when(said) or bool(_ASKING_ALONG.search(said))
    answered = "\n" + prompts.template("converse_turn_answering").substitute(names).strip() if asked else ""
    return told, answered


def leaving(npc_id: str, name: str, news: Held, lines: Sequence[DialogueLine]) -> str:
    """The speaker's last line, as its prompt asks for it: with its news in it while that is unsaid.
    "Has to go now ... takes leave" beside "brings it up at the first natural opening" was two
    orders for one line (blind33's writer), and a host held back for a last word (`converse`) left
    with a goodbye, its news unsaid."""
    if news.news is not None and not said_it(npc_id, news.news, lines, news.places):
        return f"{name} has to go now: in this last line {name} tells the news, then takes leave."
    return f"{name} has to go now: this is {name}'s last line, and it takes leave."
