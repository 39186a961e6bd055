"""Dialogue (paper section 4.3 "reacting and updating plans", dialogue): speakers alternate,
each line conditioned on a summary of the speaker's relationship with the partner, what each was
doing when the conversation began and why it began, the conversation so far, and memories
retrieved for the latest lines (not only the last one) and for the partner's status, as the
original's turns retrieve; with an explicit end decision and the original's maximum of 8 rounds.
Afterwards the whole conversation is stored in each participant's memory with a summary (linked
to it) and any plan change it implies, today or on another day. The player talks through the same
turn machinery. Interviews answer from memories.

A conversation nobody watches (both speakers out of the player's view) is resolved in one call
instead (`summarize_conversation`): whether they talk, its gist, and each speaker's memo, from
what each remembers (each its own memories and places only); both remember it as they would a
conversation written turn by turn, with only what the gist says each said (gist.py). One with
news on its mind (`news_said.held`) is shown it, once, out of view and in view alike, so it may tell it.
Under the lab control "swap_speakers" every one of these prompts shows a speaker the memories and
news retrieved for the other instead (`speaker.heads`): issue 42's control on the evaluation.

Every speaker sees its plan from now on (`schedule_from`), so an invitation over a block already
planned is declined or negotiated, and a memo's plan item names its place among those the
speaker knows (the partner's home included) and those the conversation named (`said_places`: told
"the walk leaves from the Chapel", a listener who has never been there now knows where to go), so
"going to Isabella's party" is booked where the party is, not where they talked."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable, Sequence
from datetime import date, datetime, time, timedelta

from brain_server.cognition.gist import (
    again,
    as_activity,
    fell_back,
    own_lines,
    place_heard,
    place_unsaid,
    said_only,
    unrepeated,
)
from brain_server.cognition.memory_stream import DEFAULT_IMPORTANCE, MEMO_OF, Head, MemoryStream, bullet_list
from brain_server.cognition.news import NO_NEWS, Held, said_it, teller_first
from brain_server.cognition.offline import offline_lines
from brain_server.cognition.offline.kept_days import anchored
from brain_server.cognition.offline.said_clock import clock_as_said, day_as_said
from brain_server.cognition.offline.wording import known_of
from brain_server.cognition.places_said import named_places, place_as_said
from brain_server.cognition.plan import bullets
from brain_server.cognition.said_yes import PlanChange
from brain_server.cognition.schedule import OWN_PLANS, schedule_from
from brain_server.cognition.speaker import Speaker, heads, held_by, may_name
from brain_server.cognition.turn_rules import leaving, rules
from brain_server.llm.scheduler import Work
from brain_server.llm.streaming import Listener
from brain_server.model.memory import TRANSCRIPTS, MemoryKind, MemoryNode
from brain_server.model.names import addressing
from brain_server.model.npc import DialogueLine, NpcState, Persona, as_label
from brain_server.model.trace import Trace
from brain_server.model.world import World, arena_of
from brain_server.prompts.conversation_memo import PROMPT as MEMO
from brain_server.prompts.conversation_memo import ConversationMemo
from brain_server.prompts.conversation_summary import PROMPT as SUMMARY
from brain_server.prompts.conversation_summary import ConversationSummary, GistLine
from brain_server.prompts.converse_turn import PROMPT as TURN
from brain_server.prompts.converse_turn import Turn
from brain_server.prompts.interview import PROMPT as INTERVIEW
from brain_server.prompts.interview import InterviewAnswer
from brain_server.prompts.relationship import PROMPT as RELATIONSHIP
from brain_server.prompts.relationship import Relationship

MAX_ROUNDS = 8  # the original's limit: 8 turns each
MAX_LINES = 2 * MAX_ROUNDS  # both speakers together
RECALL_LINES = 4  # the latest lines a turn's retrieval reads, as the original's
MEMORIES_PER_QUERY = 8
PLAN_DAYS_AHEAD = 14  # an invitation may be for today or a day of the next two weeks
SECONDS_PER_LINE = 20  # game time a line of dialogue takes, for the chat action's duration


def said_places(places: Iterable[str], lines: Sequence[DialogueLine]) -> list[str]:
    """The places among `places` the lines name ("from the Chapel", "the chapel": `gist.named_places`)."""
    return named_places(places, " ".join(line.text for line in lines))


def _dialogue_text(lines: Sequence[DialogueLine]) -> str:
    return "\n".join(f'{line.speaker_name}: "{line.text}"' for line in lines) or "(nobody has spoken yet)"


async def relationship(speaker: Speaker, partner_name: str, now: datetime, stream: MemoryStream,
                       trace: Trace, *, work: Work, head: Head | None = None, each: bool = False) -> tuple[str, str]:
    """How the speaker sees the partner, and the memories that view rests on (as prompt lines):
    those of `head` (`heads`; by default the speaker's own). `each`: the partner names several
    people (a group), asked of as "each of" them (read as one relationship, blind13's writer said)."""
    head = head or Head(speaker.npc_id, speaker.persona.name, partner_name)
    memories = await stream.retrieve(head.npc_id, f"{head.name}'s relationship with {head.partners}", now, trace,
                                     about=head.partners)
    remembered = bullet_list(memories)
    summary = await stream.llm.complete(
        RELATIONSHIP,
        {"npc_name": speaker.persona.name, "persona": speaker.persona.summary(),
         "partner": f"each of {partner_name}" if each else partner_name, "memories": remembered},
        work=work, npc_id=speaker.npc_id, trace=trace,
        fallback=lambda: Relationship(summary=known_of(speaker.persona.name, speaker.persona.identity, partner_name)),
    )
    return summary.summary, remembered


async def next_line(speaker: Speaker, partner_name: str, view: tuple[str, str], lines: Sequence[DialogueLine],
                    now: datetime, place: str, stream: MemoryStream, trace: Trace, *, work: Work,
                    partner_activity: str = "", opener: str = "", reason: str = "", last: bool = False,
                    news: Held = NO_NEWS, repeated: str = "", listener: Listener | None = None, head: Head | None = None,
                    partner_news: bool = False) -> Turn:
    """The speaker's next utterance given the dialogue so far. `opener`: who started the
    conversation, and `reason`: why (the reaction's reason, known to the one who started it);
    `last`: the line limit ends the conversation with this line, so the speaker takes its leave
    (else a model's last line was whatever it wrote, a question left hanging); `news`: what it has
    to tell (`news_said.held`; its memories that say it again are left out); `repeated`: a line of its
    own it just wrote again (`unrepeated`);
    `listener`: someone reading the line as the model writes it (llm/streaming.py); `head`: whose
    memories it is shown (`heads`; by default its own); `partner_news`: the partner holds news (the
    rules of answering an invitation are shown, `turn_rules.rules`)."""
    name = speaker.persona.name
    latest = " ".join(line.text for line in lines[-RECALL_LINES:])
    head = head or Head(speaker.npc_id, name, partner_name, partner_activity)
    by_dialogue, by_status = await stream.retrieve_two(head.npc_id, latest or reason or head.partners,
                                                       head.doing or head.partners, now, trace,
                                                       apart=MEMORIES_PER_QUERY, without=OWN_PLANS,
                                                       unless=news.restates)
    situation = [f"{name} was {_doing(speaker.activity, name)}." if speaker.activity else "",
                 f"{partner_name} was {_doing(partner_activity, partner_name)}." if partner_activity else "",
                 opened(name, opener, reason),
                 news.line, again(name, repeated), leaving(speaker.npc_id, name, news, lines) if last else ""]
    telling, answering = rules(stream.llm.prompts, name, partner_name, speaker.npc_id, lines,
                               telling=news.line != "", partner_news=partner_news)
    return await stream.llm.complete(
        TURN,
        {"npc_name": name, "persona": speaker.persona.summary(), "partner": partner_name,
         "telling": telling, "answering": answering,
         "time": now.strftime("%A %B %d, %H:%M"), "place": place, "relationship": view[0],
         "schedule": speaker.schedule,
         "situation": " ".join(part for part in situation if part) or "They met by chance.",
         "memories": bullet_list([*by_dialogue[:MEMORIES_PER_QUERY], *by_status[:MEMORIES_PER_QUERY]],
                                 limit=2 * MEMORIES_PER_QUERY),
         "dialogue": _dialogue_text(lines)},
        work=work, npc_id=speaker.npc_id, trace=trace, listener=listener,
        fallback=lambda: _without_words(partner_name, lines),
    )


def ends(said_so: bool, lines: Sequence[DialogueLine]) -> bool:
    """Whether the line just said (the last of `lines`) ends its speaker's part: as the model said,
    but never the conversation's opening line (a model marked "Morning, everyone! What are you up
    to?" as the end: a host who had come to call on a friend left at his greeting, news unsaid)."""
    return said_so and len(lines) > 1


def opened(name: str, opener: str, reason: str) -> str:
    """Who started the conversation, as the speaker `name` is told it, and why when it was the one
    (the reaction's reason, as the model wrote it: "because says hello after noticing: ..." read
    as broken English, so it is given as a label's value)."""
    if opener != name:
        return f"{opener} started this conversation." if opener else ""
    return f"{name} started this conversation" + (f" (reason: {reason.strip().rstrip('.')})" if reason.strip() else "") + "."


def _doing(description: str, name: str) -> str:
    """'Isabella Rodriguez is baking bread' as 'baking bread' after her name."""
    return description.removeprefix(f"{name} is ").removeprefix(f"{name} ")


def _without_words(partner_name: str, lines: Sequence[DialogueLine]) -> Turn:
    """The line when the model cannot write one: a greeting to open, else a polite goodbye."""
    if not lines:
        return Turn(utterance=f"Hi{addressing(partner_name, ' ')}! How are you?", end_conversation=False)
    return Turn(utterance=f"Good to see you{addressing(partner_name)}, but I have to get going. Talk later!",
                end_conversation=True)


async def converse(a: Speaker, b: Speaker, now: datetime, place: str, stream: MemoryStream, trace: Trace,
                   *, work: Work, max_lines: int = MAX_LINES, reason: str = "") -> list[DialogueLine]:
    """A whole NPC-to-NPC conversation, `a` speaking first (it started it, for `reason`)."""
    if offline_lines.composing(stream.llm, a.npc_id):
        return await offline_lines.conversation(a, b, now, place, stream, trace, work=work, max_lines=max_lines)
    mind = heads(stream, [a, b])
    head_a, head_b = mind[a.npc_id], mind[b.npc_id]
    both = await asyncio.gather(relationship(a, b.persona.name, now, stream, trace, work=work, head=head_a),
                                relationship(b, a.persona.name, now, stream, trace, work=work, head=head_b),
                                held_by(stream, head_a, a, now),
                                held_by(stream, head_b, b, now))
    views, news = {a.npc_id: both[0], b.npc_id: both[1]}, {a.npc_id: both[2], b.npc_id: both[3]}
    lines: list[DialogueLine] = []
    speaker, listener, closing = a, b, False
    while len(lines) < max_lines:
        def ask(repeated: str, speaker: Speaker = speaker, listener: Speaker = listener,
                last: bool = closing or len(lines) + 1 >= max_lines) -> Awaitable[Turn]:
            return next_line(speaker, listener.persona.name, views[speaker.npc_id], lines, now, place, stream, trace,
                             work=work, partner_activity=listener.activity, opener=a.persona.name,
                             reason=reason if speaker is a else "", last=last,
                             news=news[speaker.npc_id], repeated=repeated, head=mind[speaker.npc_id],
                             partner_news=news[listener.npc_id].news is not None)

        turn = await unrepeated(ask, [line.text for line in lines if line.speaker_npc_id == speaker.npc_id],
                                speaker.persona.name, trace)
        if turn is not None:
            lines.append(DialogueLine(speaker_npc_id=speaker.npc_id, speaker_name=speaker.persona.name,
                                      text=turn.utterance))
        # A speaker who takes leave, or whose line is dropped (it kept repeating itself), ends the
        # conversation; one who still holds news it has not said gets a last word first, as people do
        # ("before you go..."): blind8's listeners took leave at their first reply to a greeting, and
        # blind22's partners of a host who greeted first said their own worry three times.
        if closing or turn is None or ends(turn.end_conversation, lines):
            news_held = news[listener.npc_id].news
            if closing or news_held is None or said_it(listener.npc_id, news_held, lines, listener.places):
                break
            closing = True
        speaker, listener = listener, speaker
    trace.note(f"converse: {a.persona.name} and {b.persona.name} exchanged {len(lines)} lines")
    return lines


async def remember_conversation(npc: NpcState, partner_name: str, lines: Sequence[DialogueLine], now: datetime,
                                stream: MemoryStream, trace: Trace, *, work: Work, partner_home: str = "",
                                heard: Sequence[str] = (), world: World | None = None,
                                ) -> tuple[list[MemoryNode], PlanChange | None]:
    """Store the conversation and its summary (citing it) in this NPC's memory: the stored nodes,
    and the plan change the conversation implies, if any, today or on a later day, at the place
    it named among those the NPC may name (`speaker.may_name`), the partner's home (`partner_home`, an
    NPC's) and the places the lines named (`heard`, from `said_places`)."""
    days = _days_ahead(now)
    places = list(dict.fromkeys([*may_name(npc, world), *([arena_of(partner_home)] if partner_home else []), *heard]))
    memo = await stream.llm.complete(
        MEMO,
        {"npc_name": npc.persona.name, "persona": npc.persona.summary(), "partner": partner_name,
         "time": now.strftime("%A %B %d, %H:%M"), "dialogue": _dialogue_text(lines),
         "schedule": schedule_from(npc, now, stream.reaches_plans), "places": bullets(places), "place_list": places,
         "days": _days_text(days, now), "date_list": [d.isoformat() for d in days]},
        work=work, npc_id=npc.npc_id, trace=trace,
        fallback=lambda: _plain_memo(npc.persona.name, partner_name),
    )
    return await keep_conversation(npc, partner_name, lines, memo, now, stream, trace)


async def keep_conversation(npc: NpcState, partner_name: str, lines: Sequence[DialogueLine], memo: ConversationMemo,
                            now: datetime, stream: MemoryStream, trace: Trace) -> tuple[list[MemoryNode], PlanChange | None]:
    """The conversation and its memo as this NPC's memories (the memo's importance rates both; each
    line, as the memo, with its relative days dated: `anchored`), and the plan change the memo gives, if any."""
    name, dialogue = npc.persona.name, _dialogue_text(lines)
    memo = place_unsaid(memo, dialogue, npc.known_addresses, npc.address, trace)
    kept = "\n".join(anchored(line, now.date()) for line in dialogue.split("\n"))
    chat = MemoryNode(npc_id=npc.npc_id, kind=MemoryKind.CHAT, description=f"conversation with {partner_name}:\n{kept}",
                      subject=name, predicate="chatted with", object=partner_name, importance=memo.importance,
                      created=now, last_accessed=now, keywords=[partner_name.lower()])
    summary = MemoryNode(npc_id=npc.npc_id, kind=MemoryKind.THOUGHT, description=anchored(memo.summary, now.date()),
                         subject=name, predicate="remembers", object=f"{MEMO_OF}{partner_name}",
                         importance=memo.importance, created=now, last_accessed=now, keywords=[partner_name.lower()],
                         evidence_ids=[chat.id])
    stored = await stream.remember(npc.npc_id, npc.persona, [chat, summary], trace, rate=False)
    if not (memo.plan_activity.strip() and memo.plan_start and memo.plan_minutes):
        return stored, None
    day = date.fromisoformat(memo.plan_date) if memo.plan_date else now.date()
    clock = clock_as_said(memo.plan_start, f"{memo.summary} {memo.plan_activity} {dialogue}", trace)
    start = day_as_said(datetime.combine(day, time.fromisoformat(clock.zfill(5)), tzinfo=now.tzinfo),
                        f"{kept}\n{summary.description}", now, trace)
    activity = as_activity(as_label(memo.plan_activity, name), memo.summary, name)
    return stored, PlanChange(activity=activity, start=start, minutes=memo.plan_minutes,
                              place=place_as_said(f"{memo.plan_activity} {memo.summary}", memo.plan_place.strip(),
                                                  npc.known_addresses, trace))




async def summarize_conversation(a: Speaker, b: Speaker, now: datetime, place: str, stream: MemoryStream,
                                 trace: Trace, *, work: Work) -> tuple[list[DialogueLine], ConversationMemo, ConversationMemo] | None:
    """A conversation nobody watches, in one call: `a` noticed `b`. None when they do not stop to
    talk; else the gist as lines and each speaker's memo (`a`'s first), each speaker shown only its
    own memories, news and places, and remembered saying only what it could know (gist.py). One
    with news to pass on, beside one with none, comes first in the prompt and speaks first
    (`news.teller_first`)."""
    mind = heads(stream, [a, b])
    told = await asyncio.gather(*(held_by(stream, mind[me.npc_id], me, now)
                                  for me in (a, b)))
    first, second = teller_first(told)
    said = await _told_in_one((a, b)[first], (a, b)[second], [told[first], told[second]], now, place, stream,
                              trace, work)
    if said is None:
        return None
    memos = {first: said[1], second: said[2]}
    return said[0], memos[0], memos[1]


async def _told_in_one(a: Speaker, b: Speaker, told: Sequence[Held], now: datetime, place: str, stream: MemoryStream,
                       trace: Trace, work: Work) -> tuple[list[DialogueLine], ConversationMemo, ConversationMemo] | None:
    """`summarize_conversation` with `a` first and each speaker's news (`told`) read."""
    pair, mind = ((a, b), (b, a)), heads(stream, [a, b])
    recalled = await asyncio.gather(*(_recall(mind[me.npc_id], now, stream, trace, news)
                                      for me, news in zip((a, b), told, strict=True)))
    news = [t.line for t in told]
    days = _days_ahead(now)
    names = (a.persona.name, b.persona.name)
    mine = [list(dict.fromkeys(p for p in (*me.places, arena_of(other.persona.home)) if p)) for me, other in pair]
    # Either may book a place the other names: offered to the schema, shown only to the one who knows it.
    offered = [list(dict.fromkeys((*mine[0], *b.places))), list(dict.fromkeys((*mine[1], *a.places)))]
    answer = await stream.llm.complete(
        SUMMARY,
        {"npc_name": names[0], "persona": a.persona.summary(), "partner": names[1],
         "partner_persona": b.persona.summary(), "time": now.strftime("%A %B %d, %H:%M"), "place": place,
         "activity": _doing(a.activity, names[0]) or "about", "partner_activity": _doing(b.activity, names[1]) or "about",
         "memories": recalled[0], "partner_memories": recalled[1],
         "news": news[0] and f"- {news[0]}", "partner_news": news[1] and f"- {news[1]}",
         "schedule": a.schedule, "partner_schedule": b.schedule,
         "places": bullets(mine[0]), "place_list": offered[0],
         "partner_places": bullets(mine[1]), "partner_place_list": offered[1],
         "days": _days_text(days, now), "date_list": [d.isoformat() for d in days]},
        work=work, npc_id=a.npc_id, trace=trace,
        fallback=lambda: _greetings(names, trace),
    )
    if not answer.talk or not answer.lines:
        trace.note(f"converse: {names[0]} and {names[1]} did not stop to talk")
        return None
    known = [" ".join((place, recalled[i], news[i], me.persona.summary(), me.schedule, *mine[i]))
             for i, (me, _) in enumerate(pair)]
    ids = {a.persona.name: a.npc_id, b.persona.name: b.npc_id}
    lines = own_lines([DialogueLine(speaker_npc_id=ids.get(line.speaker, ""), speaker_name=line.speaker, text=line.text)
                       for line in answer.lines], dict(zip(names, known, strict=True)), trace)
    if not lines:
        return None
    trace.note(f"converse: {names[0]} and {names[1]} talked, told in {len(lines)} lines (one call: out of view)")
    memos = [place_heard(said_only(memo or _plain_memo(me.persona.name, other.persona.name), me.persona.name,
                                   other.persona.name, lines, knew, places, trace), own, lines)
             for memo, (me, other), knew, own, places in zip((answer.first, answer.second), pair, known, mine, offered,
                                                             strict=True)]
    return lines, memos[0], memos[1]


async def _recall(head: Head, now: datetime, stream: MemoryStream, trace: Trace, news: Held) -> str:
    """What may come up for a speaker: the memories of its `head` (`heads`) about the other, and
    about what the other is doing, but none that say again the `news` the prompt states."""
    about, doing = await stream.retrieve_two(head.npc_id, f"{head.name}'s relationship with {head.partners}",
                                             head.doing or head.partners, now, trace, apart=MEMORIES_PER_QUERY,
                                             about=head.partners, without=OWN_PLANS, unless=news.restates)
    return bullet_list([*about[:MEMORIES_PER_QUERY], *doing[:MEMORIES_PER_QUERY]],
                       limit=2 * MEMORIES_PER_QUERY)


def _greetings(names: tuple[str, str], trace: Trace) -> ConversationSummary:
    """When the model cannot tell the conversation: they greet each other, and nothing else changes
    (`gist.fell_back`: logged and counted)."""
    fell_back(names, trace)
    lines = [GistLine(speaker=names[0], text=f"Hi{addressing(names[1], ' ')}! How are you?"),
             GistLine(speaker=names[1], text=f"Good, thanks{addressing(names[0])}. See you!")]
    return ConversationSummary(talk=True, lines=lines, first=_plain_memo(*names),
                               second=_plain_memo(names[1], names[0]))


def _plain_memo(name: str, partner_name: str) -> ConversationMemo:
    return ConversationMemo(summary=f"{name} chatted with {partner_name}.", importance=DEFAULT_IMPORTANCE,
                            plan_activity="", plan_start="", plan_minutes=0)


def _days_ahead(now: datetime) -> list[date]:
    """The days a conversation may plan for: today and the PLAN_DAYS_AHEAD after."""
    return [now.date() + timedelta(days=n) for n in range(PLAN_DAYS_AHEAD + 1)]


def _days_text(days: Sequence[date], now: datetime) -> str:
    return ", ".join(f"{d.isoformat()} ({_day_name(d, now.date())})" for d in days)


def _day_name(day: date, today: date) -> str:
    ahead = (day - today).days
    return f"{'today, ' if ahead == 0 else 'tomorrow, ' if ahead == 1 else ''}{day:%A}"


def chat_minutes(lines: Sequence[DialogueLine]) -> int:
    return max(5, int(timedelta(seconds=SECONDS_PER_LINE * len(lines)).total_seconds() // 60) + 1)


async def answer_interview(npc_id: str, persona: Persona, question: str, now: datetime,
                           stream: MemoryStream, trace: Trace, *, work: Work) -> str:
    """The NPC's answer from the memories the question retrieves: what happened and what it thought,
    a conversation by its memo (`TRANSCRIPTS` left out, as the paper's interviews retrieve): shown the
    lines, blind23 answered "what was memorable today" by pasting one ("Ada Quint: 'Morning, Sidney.
    How are things with you?' / ...")."""
    memories = await stream.retrieve(npc_id, question, now, trace, without=TRANSCRIPTS)
    answer = await stream.llm.complete(
        INTERVIEW,
        {"npc_name": persona.name, "persona": persona.summary(), "time": now.strftime("%A %B %d, %H:%M"),
         "memories": bullet_list(memories, limit=20), "question": question},
        work=work, npc_id=npc_id,
        fallback=lambda: InterviewAnswer(answer="Sorry, my mind is elsewhere right now. Ask me again later?"),
        trace=trace,
    )
    return answer.answer
