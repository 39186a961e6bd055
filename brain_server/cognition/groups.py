"""Conversations of three or more (issue 31): who speaks next, each line written from the
speaker's own memories, and the whole told in one call when nobody watches.

Turn-taking is a small deterministic policy over the model's lines: the person the last line
addressed by name speaks next; else whoever has spoken least (fairness), among them the one the
latest lines name most (they have most to answer), then the earliest to join; never the same
speaker twice running. A speaker who ends its line leaves the conversation, the others go on; it
ends when fewer than two are left (someone left the place, or turned to the player), when the
talk runs out, or at `MAX_LINES` lines. Every participant then remembers it (memo and plan
change each), as in a pair (`converse.remember_conversation`, `keep_conversation`).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from brain_server.cognition.converse import (
    MAX_LINES,
    MEMORIES_PER_QUERY,
    RECALL_LINES,
    _days_ahead,
    _days_text,
    _dialogue_text,
    _doing,
    _plain_memo,
    _without_words,
    ends,
    opened,
    relationship,
)
from brain_server.cognition.gist import again, fell_back, own_lines, place_heard, said_only, unrepeated
from brain_server.cognition.memory_stream import Head, MemoryStream, bullet_list, memory_line
from brain_server.cognition.news import NO_NEWS, Held, teller_first
from brain_server.cognition.offline.heard import first_name
from brain_server.cognition.schedule import OWN_PLANS
from brain_server.cognition.speaker import Speaker, heads, held_by, listed
from brain_server.llm.scheduler import Work
from brain_server.model.budget import Bullets, Item
from brain_server.model.names import addressing
from brain_server.model.npc import DialogueLine
from brain_server.model.trace import Trace
from brain_server.prompts.conversation_memo import ConversationMemo
from brain_server.prompts.conversation_summary import GistLine
from brain_server.prompts.group_summary import MAX_GROUP_GIST_LINES, GroupSummary
from brain_server.prompts.group_summary import PROMPT as GROUP_SUMMARY
from brain_server.prompts.group_turn import EVERYONE, GroupTurn
from brain_server.prompts.group_turn import PROMPT as GROUP_TURN

MAX_GROUP = 4  # people in one conversation: who started it, whom it addressed, and two more at the place


@dataclass
class Group:
    """A conversation in progress: who is in it (who started it first), its lines so far, and who
    left it (ended their part, or turned to the player, whose words the others heard)."""

    speakers: list[Speaker]
    lines: list[DialogueLine] = field(default_factory=list)
    left: set[str] = field(default_factory=set)
    turned: set[str] = field(default_factory=set)  # those of `left` who turned to the player
    heard: list[DialogueLine] = field(default_factory=list)  # the player's words to one who turned away

    def present(self) -> list[Speaker]:
        return [s for s in self.speakers if s.npc_id not in self.left]

    def ids(self) -> list[str]:
        return [s.npc_id for s in self.speakers]

    def turn_away(self, npc_id: str, player: str, text: str) -> None:
        """`npc_id` turns to the player, who said `text`: it leaves; the others heard it."""
        self.left.add(npc_id)
        self.turned.add(npc_id)
        self.heard.append(DialogueLine(speaker_npc_id="", speaker_name=player, text=" ".join(text.split())))


def names(speakers: Sequence[Speaker]) -> str:
    return listed([s.persona.name for s in speakers])


def next_speaker(present: Sequence[Speaker], lines: Sequence[DialogueLine], addressed: str) -> Speaker:
    """Who speaks next (the policy in the module's docstring)."""
    last = next((line.speaker_npc_id for line in reversed(lines) if line.speaker_npc_id), "")
    candidates = [s for s in present if s.npc_id != last] or list(present)
    named = next((s for s in candidates if s.persona.name == addressed), None)
    if named is not None:
        return named
    spoken = Counter(line.speaker_npc_id for line in lines)
    recent = " ".join(line.text for line in lines[-RECALL_LINES:]).lower()
    return min(candidates, key=lambda s: (spoken[s.npc_id], -recent.count(first_name(s.persona.name).lower()),
                                          present.index(s)))


async def talk_in_group(group: Group, now: datetime, place: str, stream: MemoryStream, trace: Trace, *,
                        work: Work, reason: str = "", max_lines: int = MAX_LINES,
                        here: Callable[[str], bool] = lambda npc_id: True) -> list[DialogueLine]:
    """A conversation of three or more written line by line, the first speaker having started it
    (for `reason`). Lines land in `group.lines` as they are written; the others' words to one who
    turned away (`group.heard`) join them when the next line is due. `here`: whether a participant
    still stands at the place (one the game moved away leaves the conversation)."""
    opener, mind = group.speakers[0], heads(stream, group.speakers)
    viewed = await asyncio.gather(*(relationship(s, names([o for o in group.speakers if o is not s]), now, stream,
                                                 trace, work=work, head=mind[s.npc_id], each=True)
                                    for s in group.speakers))
    views = {s.npc_id: view for s, view in zip(group.speakers, viewed, strict=True)}
    told = await asyncio.gather(*(held_by(stream, mind[s.npc_id], s, now)
                                  for s in group.speakers))
    news = dict(zip([s.npc_id for s in group.speakers], told, strict=True))
    addressed = ""
    while len(group.lines) < max_lines and len(present := group.present()) >= 2:
        if gone := [s for s in present if not here(s.npc_id)]:
            group.left.update(s.npc_id for s in gone)
            trace.note(f"converse: {names(gone)} left the place, and so the conversation")
            continue
        speaker = opener if not group.lines and opener in present else next_speaker(present, group.lines, addressed)
        others, head = [s for s in present if s is not speaker], heads(stream, present)[speaker.npc_id]
        def ask(repeated: str, speaker: Speaker = speaker, others: list[Speaker] = others,
                head: Head = head) -> Awaitable[GroupTurn]:
            return group_line(speaker, others, views[speaker.npc_id], group.lines, now, place, stream, trace,
                              work=work, opener=opener.persona.name, reason=reason if speaker is opener else "",
                              news=news[speaker.npc_id], repeated=repeated, head=head,
                              gone=[s.persona.name for s in group.speakers if s not in present])

        turn = await unrepeated(ask, [line.text for line in group.lines if line.speaker_npc_id == speaker.npc_id],
                                speaker.persona.name, trace)
        if turn is None:  # it could only say again what it said: it has nothing more to say
            group.left.add(speaker.npc_id)
        elif speaker.npc_id not in group.left:  # else it turned to the player meanwhile: the line goes unsaid
            group.lines.append(DialogueLine(speaker_npc_id=speaker.npc_id, speaker_name=speaker.persona.name,
                                            text=turn.utterance))
            addressed = turn.addressed_to
            if ends(turn.end_conversation, group.lines):
                group.left.add(speaker.npc_id)
        group.lines.extend(group.heard)
        group.heard.clear()
    trace.note(f"converse: {names(group.speakers)} exchanged {len(group.lines)} lines")
    return group.lines


async def group_line(speaker: Speaker, others: Sequence[Speaker], view: tuple[str, str],
                     lines: Sequence[DialogueLine], now: datetime, place: str, stream: MemoryStream, trace: Trace, *,
                     work: Work, opener: str = "", reason: str = "", news: Held = NO_NEWS, repeated: str = "",
                     head: Head | None = None, gone: Sequence[str] = ()) -> GroupTurn:
    """The speaker's next line, from its own memories (or `head`'s: `speaker.heads`) retrieved for
    the latest lines and for what the others were doing; `news` and `repeated` as for a pair
    (`converse.next_line`); `gone`: who has left (a prompt named who started the conversation, and
    its lines, but not that she had gone, and offered only those still there to speak to)."""
    name = speaker.persona.name
    latest = " ".join(line.text for line in lines[-RECALL_LINES:])
    head = head or Head(speaker.npc_id, name, names(others), "; ".join(o.activity for o in others if o.activity))
    by_dialogue, by_status = await stream.retrieve_two(head.npc_id, latest or reason or head.partners,
                                                       head.doing or head.partners, now, trace,
                                                       apart=MEMORIES_PER_QUERY, without=OWN_PLANS,
                                                       unless=news.restates)
    situation = [f"{name} was {_doing(speaker.activity, name)}." if speaker.activity else "",
                 *(f"{o.persona.name} was {_doing(o.activity, o.persona.name)}." for o in others if o.activity),
                 opened(name, opener, reason),
                 f"{listed(gone)} {'has' if len(gone) == 1 else 'have'} left the conversation." if gone else "",
                 news.line, again(name, repeated)]
    return await stream.llm.complete(
        GROUP_TURN,
        {"npc_name": name, "persona": speaker.persona.summary(), "others": names(others),
         "other_names": [o.persona.name for o in others], "time": now.strftime("%A %B %d, %H:%M"), "place": place,
         "relationship": view[0], "situation": " ".join(part for part in situation if part),
         "schedule": speaker.schedule,
         "memories": bullet_list([*by_dialogue[:MEMORIES_PER_QUERY], *by_status[:MEMORIES_PER_QUERY]],
                                 limit=2 * MEMORIES_PER_QUERY),
         "dialogue": _dialogue_text(lines)},
        work=work, npc_id=speaker.npc_id, trace=trace,
        fallback=lambda: _silent(others, lines),
    )


def _silent(others: Sequence[Speaker], lines: Sequence[DialogueLine]) -> GroupTurn:
    """When the model cannot write the line: a greeting to open, else a polite goodbye."""
    said = _without_words(names(others), lines)
    return GroupTurn(utterance=said.utterance, addressed_to=EVERYONE, end_conversation=said.end_conversation)


async def tell_group(speakers: Sequence[Speaker], now: datetime, place: str, stream: MemoryStream,
                     trace: Trace, *, work: Work) -> tuple[list[DialogueLine], list[ConversationMemo]] | None:
    """A conversation of three or more nobody watches, in one call: None when they do not stop to
    talk; else the gist as lines and each participant's memo (in `speakers`' order), each shown
    only its own memories, news and places and kept to what it could know, as for a pair (gist.py).
    One with news to pass on opens it when the one who began has none (`news.teller_first`)."""
    asked = speakers
    mind = heads(stream, speakers)  # each one's own memories, unless the lab control swaps them
    told = await asyncio.gather(*(held_by(stream, mind[s.npc_id], s, now)
                                  for s in speakers))
    order = teller_first(told)
    speakers, told = [speakers[i] for i in order], [told[i] for i in order]
    days = _days_ahead(now)
    opener, everyone = speakers[0], [s.persona.name for s in speakers]
    places = list(dict.fromkeys(p for s in speakers for p in s.places))  # anyone's place may be named
    people, knew = await _people(speakers, told, mind, now, stream, trace)
    known = [f"{place} {k}" for k in knew]  # where they stand, each knows
    answer = await stream.llm.complete(
        GROUP_SUMMARY,
        {"npc_name": opener.persona.name, "opener": opener.persona.name,
         "activity": _doing(opener.activity, opener.persona.name) or "about",
         "others": names(speakers[1:]), "count": str(len(speakers)),
         "people": people, "name_list": everyone,
         "time": now.strftime("%A %B %d, %H:%M"), "place": place, "max_lines": str(MAX_GROUP_GIST_LINES),
         "days": _days_text(days, now), "date_list": [d.isoformat() for d in days],
         "places": ", ".join(places), "place_list": places},
        work=work, npc_id=opener.npc_id, trace=trace,
        fallback=lambda: _greetings(speakers, trace),
    )
    if not answer.talk or not answer.lines:
        trace.note(f"converse: {names(speakers)} did not stop to talk")
        return None
    ids = {s.persona.name: s.npc_id for s in speakers}
    lines = own_lines([DialogueLine(speaker_npc_id=ids.get(line.speaker, ""), speaker_name=line.speaker,
                                    text=line.text) for line in answer.lines], dict(zip(everyone, known, strict=True)),
                      trace)
    if not lines:
        return None
    memos = {memo.name: ConversationMemo.model_validate(memo.model_dump(exclude={"name"})) for memo in answer.memos}
    trace.note(f"converse: {names(speakers)} talked, told in {len(lines)} lines (one call: out of view)")
    kept = {}
    for s, knows in zip(speakers, known, strict=True):
        partners = names([o for o in speakers if o is not s])
        memo = memos.get(s.persona.name) or _plain_memo(s.persona.name, partners)
        kept[s.npc_id] = place_heard(said_only(memo, s.persona.name, partners, lines, knows, places, trace), s.places,
                                     lines)
    return lines, [kept[s.npc_id] for s in asked]


def _greetings(speakers: Sequence[Speaker], trace: Trace) -> GroupSummary:
    """When the model cannot tell the conversation (as for a pair): they greet each other, and
    nothing else changes (each memo is a plain one; logged and counted, `gist.fell_back`)."""
    fell_back([s.persona.name for s in speakers], trace)
    first = speakers[0].persona.name
    return GroupSummary(talk=True, lines=[GistLine(speaker=first, text="Hi everyone! How are you?"),
                                          *(GistLine(speaker=s.persona.name, text=f"Good, thanks{addressing(first)}.")
                                            for s in speakers[1:])])


async def _people(speakers: Sequence[Speaker], told: Sequence[Held], mind: dict[str, Head], now: datetime,
                  stream: MemoryStream, trace: Trace) -> tuple[Bullets, list[str]]:
    """Each participant: persona, what it was doing, its plans, the places it knows, its news (`told`)
    and what may come up for it (its memories of the others and of what they were doing, from the
    head `mind` gives it), as one list the prompt budget trims item by item; and what each knew, as
    text (for `gist.own_lines`)."""
    headers, items, known = [], [], []
    for g, (me, news) in enumerate(zip(speakers, told, strict=True)):
        head = mind[me.npc_id]
        about, doing = await stream.retrieve_two(head.npc_id, f"{head.name}'s relationship with {head.partners}",
                                                 head.doing or head.partners, now, trace, apart=MEMORIES_PER_QUERY,
                                                 about=head.partners, without=OWN_PLANS, unless=news.restates)
        name = me.persona.name
        headers.append(("\n" if g else "") + f"{me.persona.summary()}\n{name} was {_doing(me.activity, name) or 'about'}."
                       f"\nWhat {name} has planned:\n{me.schedule}\nPlaces {name} knows: {', '.join(me.places) or 'none'}"
                       + (f"\n{news.line}" if news.line else "") + f"\nWhat {name} remembers that may come up:")
        chosen = sorted([*about[:MEMORIES_PER_QUERY], *doing[:MEMORIES_PER_QUERY]], key=lambda r: r.node.created)
        items += [Item(memory_line(r.node), (r.score, r.node.created.timestamp()), group=g) for r in chosen]
        known.append(" ".join((headers[-1], *(memory_line(r.node) for r in chosen))))
    return Bullets(items, headers=headers), known
