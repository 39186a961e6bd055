"""Reacting (paper section 4.3.1): on a new observation, continue the plan, react by re-planning,
wait for the other to finish (the original's "wait"), or start a conversation. The context is what
the NPC remembers, retrieved with the paper's two queries: its relationship with the observed
entity (only memories about it, as the paper's keyword retrieval: `memory_stream.about_them`),
and that entity's current status; both reach the prompt, with the status itself. The NPC's own
plans are not among them: a status query's ten memories were seven of its own plan steps ("X's plan
for 09:30-10:00 ...: having breakfast (30 min)"). Nor is its schedule shown: its dated lines ("06:55-07:00
sleeping on Wednesday January 21") were taken for the news to tell by a blind model (blind5, Korrin:
every conversation its host started was "to tell" a line of its schedule, and nobody heard of the event).

What is observed may be a person or a thing (an object event, subject = the object's address:
"the stove is burning"); a thing can be reacted to, not talked to or waited for."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
import re

from brain_server.cognition.memory_stream import Head, MemoryStream, bullet_list
from brain_server.cognition.offline.heard import first_name, made_once
from brain_server.cognition.schedule import OWN_PLANS
from brain_server.llm.scheduler import Work
from brain_server.model.memory import MemoryNode
from brain_server.model.npc import NpcState
from brain_server.model.trace import Trace
from brain_server.model.world import SEPARATOR
from brain_server.prompts.react import PROMPT as REACT
from brain_server.prompts.react import Reaction

MEMORIES_PER_QUERY = 10  # each of the two queries' best, shown apart (30 retrieved for each)
CHOICES = {
    "continue": "carry on with the plan; the observation does not call for anything.",
    "talk": "start a conversation with {subject} now ({subject} is close by and could be approached).",
    # what they are doing stands above ("Right now: ..."): repeated here, nested in the option's own
    # brackets, it read "(Rasa Stankute is working at the filleting hall (taking a short break), until ...)"
    "wait": "wait for {subject} to finish what they are doing (until about {until}), then carry on.",
    "react": "change what {name} is doing for the next hour or two because of it.",
}


def talks_with(activity: str, name: str) -> bool:
    """Whether a reaction's new activity is talking with `name` (their whole name, or as a line calls
    them, `heard.first_name`): "chatting with Piotr Savin", "telling Piotr the news", "going over to
    ask Piotr". A model that chose "react" so, not "talk", was re-planned into an hour of "telling
    Piotr Savin the news" and no conversation began (blind31, in view: 8 pairs of a town talked in a
    run, out of view 16)."""
    if not name:
        return False
    names = "|".join(re.escape(n) for n in dict.fromkeys((name, first_name(name))))
    return made_once(rf"\b(?:(?:talk|chat|speak)\w*\s+(?:with|to)|(?:tell|ask|invit|greet)\w*|catch\w*\s+up\s+with)"
                     rf"\s+(?:{names})(?!\w)", re.IGNORECASE).search(activity) is not None


def is_thing(subject: str) -> bool:
    """Whether an observation's subject is an object (its address) rather than a person."""
    return SEPARATOR in subject


def worth_considering(nodes: Sequence[MemoryNode], npc: NpcState, fresh: set[str]) -> MemoryNode | None:
    """The observation most worth a reaction among those whose subject is `fresh` (people and
    things not considered lately): most important first, a person before a thing."""
    candidates = [n for n in nodes if n.subject in fresh and n.subject != npc.persona.name]
    return max(candidates, key=lambda n: (n.importance, not is_thing(n.subject)), default=None)


async def decide_reaction(npc: NpcState, observation: MemoryNode, now: datetime, can_talk: bool,
                          stream: MemoryStream, trace: Trace, *, work: Work, status: str = "",
                          wait_until: datetime | None = None, untold: str = "", partner: NpcState | None = None,
                          ) -> Reaction:
    """`status`: what the observed is doing now (the paper's second query; the observation if
    unknown); `wait_until`: when the observed person's action ends, which offers "wait";
    `untold`: news the NPC holds and has not told the observed person (`gather.news_for`), which
    the retrieved memories about that person may not bring up, shown only when it may talk now (a
    model was shown news to pass on with "talk" not among its choices); `partner`: the NPC observed, whose
    memories the lab control "swap_speakers" shows instead (`MemoryStream.heads`)."""
    name, subject = npc.persona.name, observation.subject
    thing = is_thing(subject)
    called = subject.rsplit(SEPARATOR, 1)[-1] if thing else subject
    status = status or observation.description
    theirs = [Head(partner.npc_id, partner.persona.name, name, npc.action.description if npc.action else "")
              ] if partner is not None and not thing else []
    head = stream.heads([Head(npc.npc_id, name, called, status), *theirs])[0]
    by_relationship, by_status = await stream.retrieve_two(
        head.npc_id, f"{head.name}'s relationship with {head.partners}", head.doing or head.partners, now, trace,
        apart=MEMORIES_PER_QUERY, about=head.partners, without=OWN_PLANS)
    offered = ["continue", *(["talk"] if can_talk and not thing else []),
               *(["wait"] if wait_until is not None and wait_until > now and not thing else []), "react"]
    activity = npc.action.description.removeprefix(f"{name} is ") if npc.action else "going about the day"
    until = f"{wait_until:%H:%M}" if wait_until else ""
    reaction = await stream.llm.complete(
        REACT,
        {"npc_name": name, "persona": npc.persona.summary(), "time": now.strftime("%A %B %d, %H:%M"),
         "current_activity": activity, "place": npc.address, "observation": observation.description,
         "subject": called, "status": status, "untold": f"\n{untold}" if untold and "talk" in offered else "",
         "relationship_memories": bullet_list(by_relationship, limit=MEMORIES_PER_QUERY),
         "status_memories": bullet_list(by_status, limit=MEMORIES_PER_QUERY),
         "choices": "\n".join(f'- "{c}": ' + CHOICES[c].format(subject=called, status=status, until=until, name=name)
                              for c in offered),
         "choice_names": " | ".join(f'"{c}"' for c in offered), "choice_list": offered},
        work=work, npc_id=npc.npc_id, trace=trace,
        fallback=lambda: Reaction(choice="continue", reason="keeps to the plan", new_activity=""),
    )
    if reaction.choice not in offered:
        reaction = stream.llm.unusable(REACT, npc.npc_id, reaction.model_copy(update={"choice": "continue"}),
                                       f"{reaction.choice!r} is not a choice offered", trace)
    if reaction.choice == "react" and "talk" in offered and talks_with(reaction.new_activity, called):
        trace.note(f"react: {reaction.new_activity!r} is talking with {called}: taken as \"talk\"")
        reaction = reaction.model_copy(update={"choice": "talk"})
    trace.note(f"react: {reaction.choice} to {observation.description!r} ({reaction.reason})")
    return reaction
