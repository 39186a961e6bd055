"""Lines for a model too small to write them (the embedded SmolLM2-135M): composed in code from
what the NPC knows, its persona, its plan, what it is doing and the memories retrieved for what
it heard, by the kind of line heard (`heard.py`: who it is and its job, its plans, the time, a
person, where it is or the way somewhere, a greeting, thanks, a goodbye, anything else); the
model only picks one of them by its number (prompts/choose_line),
within what is left of ANSWER_WITHIN_S, else the first is said. Free text from it was echoes of the question and
loops ("The job is a job, a job...") after 5 s; a composed line never echoes what it answers,
repeats itself or repeats a line the NPC said in the conversation (`acceptable`).

With any other model nothing here runs (`composing`, the one test)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
import re
import time
from typing import TYPE_CHECKING

from brain_server.cognition.offline.heard import (
    ACK,
    AGE,
    AGREE,
    ASKED_OF,
    ASKING,
    ENGLISH,
    GREETING,
    HOW_ARE_YOU,
    MEETING,
    NEWS,
    QUESTION,
    SENTENCE,
    SORRY,
    THESE_DAYS,
    TODAY,
    WHO,
    Kind,
    acceptable,
    asked,
    first_name,
    kind_of,
    known_in,
    may_name,
    person_in,
    says_name,
    stems,
    words,
)
from brain_server.cognition.offline.wording import (
    by_event,
    clock,
    doing,
    own_words,
    place_name,
    recall,
    tells_of,
    will,
)
from brain_server.llm.embedded import MODEL_NAME
from brain_server.llm.scheduler import Work
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.names import addressing
from brain_server.model.npc import DialogueLine, PlanItem, is_sleep
from brain_server.model.trace import Trace
from brain_server.prompts.choose_line import MAX_OPTIONS, ChosenLine
from brain_server.prompts.choose_line import PROMPT as CHOOSE
from brain_server.prompts.converse_turn import Turn

if TYPE_CHECKING:  # converse.py calls this module: its names are for the types only
    from brain_server.cognition.memory_stream import MemoryStream
    from brain_server.cognition.speaker import Speaker
    from brain_server.llm.client import LLM

CHOICE_WAIT_S = 1.2  # the model's pick is awaited this long (it may be busy with another NPC's thought)
ANSWER_WITHIN_S = 1.5  # and no longer than leaves a reply this long from the line heard (retrieval first)
SHOWN_WORDS = 12  # of each line, to the model
RECALLED = 3  # memories of a person or topic offered as lines
# An NPC-NPC conversation's questions; the second, of no hour, is answered with what the NPC is up to these
# days first (the event it organises), so news travels offline as the paper's party did.
ASK, ASK_BACK = "What are you up to?", "Any plans coming up?"
CONVERSATION_LINES = 4  # greeting and question, answer and question back, answer, goodbye
EVENING_HOUR = 17  # "tonight" is the plan from here on


def composing(llm: LLM, npc_id: str = "") -> bool:
    """Whether lines are composed: the model answering is the embedded one (the one test of it), or
    the NPC's tenant is past its spending ceiling (llm/spending.py), so the model is asked nothing."""
    return llm.model == MODEL_NAME or llm.ceilings.over(npc_id)


def _main_items(items: Sequence[PlanItem]) -> list[PlanItem]:
    """The items worth telling: not sleep, the two activities that take longest in all (work split by
    lunch is one), each at its first start, in time order."""
    kept = sorted((i for i in items if not is_sleep(i.activity) and not i.activity.startswith("getting ready")),
                  key=lambda i: i.start)
    total = Counter[str]()
    for item in kept:
        total[item.activity] += item.duration_minutes
    first = {i.activity: i for i in reversed(kept)}
    return sorted((first[activity] for activity, _ in total.most_common(2)), key=lambda i: i.start)


def _plan_lines(plan: Sequence[PlanItem], heard: str, now: datetime) -> list[str]:
    tomorrow = now.date() + timedelta(days=1)
    if "tomorrow" in heard.lower():
        promised = [i for i in plan if i.start.date() == tomorrow]
        usual = _main_items([i for i in plan if i.start.date() == now.date()])
        lines = [f"Tomorrow at {clock(i.start)} I'll {will(i.activity)}." for i in promised]
        if usual:
            same = " and then ".join(f"{will(i.activity)} from {clock(i.start)}" for i in usual)
            lines += [f"Tomorrow is much like today for me: I'll {same}.",
                      f"The usual, I think: I'll {will(usual[0].activity)} from {clock(usual[0].start)}."]
        return lines
    if re.search(r"\b(tonight|this evening|in the evenings?)\b", heard, re.IGNORECASE):
        evening = now.replace(hour=EVENING_HOUR, minute=0)
        return [f"Tonight I'll {will(i.activity)}, " + (f"from {clock(i.start)}." if i.start >= evening else
                f"until {clock(i.end)}.") for i in plan if (i.start >= evening or i.end >= evening + timedelta(hours=2))
                and i.end > now and i.start.date() == now.date() and not is_sleep(i.activity)][:2] or [
                    "Nothing much tonight: an early night for me."]
    later = [i for i in plan if now < i.start and i.start.date() == now.date()]
    lines = [f"Later I'll {will(i.activity)}, from {clock(i.start)}." for i in later[:1]]
    if len(later) > 1:
        lines.append(f"At {clock(later[0].start)} I'll {will(later[0].activity)}, and at "
                     f"{clock(later[1].start)} I'll {will(later[1].activity)}.")
    return lines


def _asked_items(plan: Sequence[PlanItem], heard: str, now: datetime) -> list[str]:
    """The items from now on whose activity the question names ("what's for dinner?": having dinner)."""
    asked = {w for w in words(heard) if len(w) > 3} - ASKING
    return [f"Right now I'm {i.activity}." if i.start <= now else f"At {clock(i.start)} I'll {will(i.activity)}."
            for i in plan if i.end > now and i.start.date() <= now.date() + timedelta(days=1)
            and asked & set(words(i.activity))][:2]


def _these_days(speaker: Speaker) -> list[str]:
    """What the NPC is up to these days (the persona's "currently"), as it says it."""
    told = [s for s in SENTENCE.split(speaker.persona.currently.strip()) if s][:1]
    return [own_words(told[0], speaker.persona.name, pronouns=True)] if told else []


def _identity(speaker: Speaker) -> list[str]:
    persona = speaker.persona
    return [own_words(s, persona.name, pronouns=True) for s in SENTENCE.split(persona.identity.strip()) if s]


def _persona_sentences(speaker: Speaker) -> list[str]:
    """Its identity and what it is up to these days, a sentence each, as it says them."""
    persona = speaker.persona
    return [*_identity(speaker), *(own_words(s, persona.name, pronouns=True)
                                   for s in SENTENCE.split(persona.currently.strip()) if s)]


@dataclass(frozen=True)
class _Heard:
    """What a composer knows: who speaks to whom (`them`: the partner as addressed, ", Ada" or ""
    for "the player"), what was heard, when and where, what came to mind, and what the speaker is
    doing and will do later."""

    speaker: Speaker
    partner: str
    name: str
    them: str
    heard: str  # its questions, if it asks any (`asked`)
    line: str  # all of it
    now: datetime
    place: str
    memories: Sequence[MemoryNode]
    person: str
    now_doing: str
    later: list[str]


def _person(h: _Heard) -> list[str]:
    about = by_event([m for m in h.memories if tells_of(m, h.person, h.name)])
    lines = [recall(m, h.name, h.now, h.person) for m in about[:RECALLED]]
    lines += [s for s in _persona_sentences(h.speaker) if says_name(s, h.person)]  # "My deckhand is Pip Harrow."
    return lines or [f"I haven't seen {h.person} lately.", f"{h.person}? I can't say I know them."]


def _job(h: _Heard) -> list[str]:
    if AGE.search(h.heard):
        return [f"I'm {h.speaker.persona.age}." if h.speaker.persona.age else "I'd rather not say."]
    today = [i for i in h.speaker.plan if i.start.date() == h.now.date()]
    main = max(_main_items(today), key=lambda i: sum(j.duration_minutes for j in today if j.activity == i.activity),
               default=None)  # its work, most days
    if main and re.search(r"\b(when|what time)\b", h.heard, re.IGNORECASE):  # "When do you finish work?"
        hours = [i for i in today if i.activity == main.activity and i.end > h.now]
        if hours:
            return [f"I'm {hours[0].activity} until {clock(hours[-1].end)} today." if hours[0].start <= h.now else
                    f"Today I'll {will(hours[0].activity)} from {clock(hours[0].start)} to {clock(hours[-1].end)}."]
    intro = f"I'm {h.name.rstrip('.')}. " if WHO.search(h.heard) else ""
    who = _identity(h.speaker)
    return [f"{intro}{who[0]} Right now I'm {h.now_doing}.", intro + " ".join(who[:2]), intro + who[0]] if who else [
        f"{intro}Right now I'm {h.now_doing}."]


def _plans(h: _Heard) -> list[str]:
    """Asked of today's hours, its plan first; of these days, or of what its currently names ("What
    are you planning for the lantern float?"), its currently alone; else its currently first."""
    planned, these_days = _plan_lines(h.speaker.plan, h.heard, h.now), _these_days(h.speaker)
    if these_days and (THESE_DAYS.search(h.heard) or stems(h.heard) & stems(these_days[0])):
        planned = []
    ordered = (planned or these_days) if TODAY.search(h.heard) else [*these_days, *planned]
    return [*_asked_items(h.speaker.plan, h.heard, h.now), *ordered] or [f"Nothing planned. For now I'm {h.now_doing}."]


def _now(h: _Heard) -> list[str]:
    """Asked what it is up to (as NPCs open their conversations), what it is doing and what it is up
    to these days: the opener's partner passes its news on too, not only the one asked back. Asked
    what it was doing (today), its plan's items before now."""
    these_days = _these_days(h.speaker) if h.heard.strip() == ASK else []
    if these_days:
        return [f"I'm {h.now_doing}. {these_days[0]}"]
    if re.search(r"\b(were you|did you)\b", h.heard, re.IGNORECASE) and "yesterday" not in h.heard.lower():
        return [f"I was {i.activity}, from {clock(i.start)} to {clock(i.end)}." for i in h.speaker.plan if i.end <= h.now
                and i.start.date() == h.now.date() and not is_sleep(i.activity)][-2:][::-1] or [
                    f"Nothing much. Now I'm {h.now_doing}."]
    return [f"I'm {h.now_doing}." + (f" {h.later[0]}" if h.later else ""), f"Just {h.now_doing}."]


def _where(h: _Heard) -> list[str]:
    home = h.speaker.persona.home
    lives = [f"I live at {home.split(':')[1] if home.count(':') else 'home'}."]
    here = [f"I'm at {place_name(h.place)}, {h.now_doing}.", f"Right now, {place_name(h.place)}."]
    asked_home = re.search(r"\bliv(e|es|ed|ing)\b", h.heard, re.IGNORECASE)
    return lives if asked_home else here  # the one asked of (the model picked "I live at" for "where are you?")


def _bye(h: _Heard) -> list[str]:
    return [f"Goodbye{h.them}! Back to {h.now_doing} for me.", f"See you later{h.them}!", "Take care!"]


def _greeting(h: _Heard) -> list[str]:
    if HOW_ARE_YOU.search(h.heard):
        return [f"Doing well, thanks{h.them}! I'm {h.now_doing}.", f"Fine, thanks. Just {h.now_doing}."]
    if MEETING.search(h.heard):
        who = _identity(h.speaker)
        return [f"Nice to meet you{h.them}! I'm {h.name.rstrip('.')}." + (f" {who[0]}" if who else ""),
                f"Welcome{h.them}! I'm {first_name(h.name)}."]
    greeted = GREETING.match(h.line)
    hello = greeted.group(1).capitalize() if greeted else "Hello"
    return [f"{hello}{h.them}! I'm {h.now_doing}.", f"Good to see you{h.them}. I'm {h.now_doing} today.",
            f"{hello}{h.them}!"]


def _thanks(h: _Heard) -> list[str]:
    return ["No trouble at all.", f"Don't worry about it{h.them}."] if SORRY.search(h.heard) else [
        f"You're welcome{h.them}!", "Any time."]


def _time(h: _Heard) -> list[str]:
    return [f"It's {clock(h.now)}, {h.now:%A}.", f"About {clock(h.now)}."]


def _way(h: _Heard) -> list[str]:
    """It knows no way in words: it says so, rather than where it is itself."""
    return [f"Sorry{h.them}, I couldn't tell you the way.", "I'm not sure where that is, sorry."]


def _request(h: _Heard) -> list[str]:
    """It can do nothing asked of it in words: it says so."""
    return [f"Sorry{h.them}, I can't right now: I'm {h.now_doing}.", "I'm afraid I can't help with that just now."]


def _compliment(h: _Heard) -> list[str]:
    return [f"Thank you{h.them}! That's kind of you.", "Why, thank you!"]


def _insult(h: _Heard) -> list[str]:
    return [f"There's no need for that{h.them}.", "That's not a kind thing to say."]


def _other(h: _Heard) -> list[str]:
    """What its persona (asked of itself) and its memories tell of the words heard (news: what it
    remembers of others and what it is up to these days), only that if anything; never the partner's own words
    back, nor what it saw itself doing. Else that it cannot say (not what it is doing: no answer)."""
    heard, about, news = words(h.line), stems(h.line), NEWS.search(h.heard)
    if heard and set(heard) <= ACK:
        return ["Right.", "Mm-hm."]
    traits = [f"I can be {t}, I suppose." for t in h.speaker.persona.traits if t.lower() in heard]
    known = [s for s in _persona_sentences(h.speaker) if about & stems(s)]
    others = [m for m in h.memories if not (m.kind == MemoryKind.OBSERVATION and m.subject == h.name)
              and h.partner not in (m.subject, m.object) and not says_name(m.description, h.partner)
              and (about & stems(m.description) or news and (m.kind == MemoryKind.CHAT or m.subject != h.name))]
    told = [recall(m, h.name, h.now) for m in by_event(others)[:RECALLED]]
    mine = [*known, *told] if re.search(r"\byou", h.line, re.IGNORECASE) else [*told, *known]
    if lines := [*traits, *mine, *(_these_days(h.speaker) if news else [])]:
        return lines
    if news:
        return [f"Nothing much. I'm {h.now_doing} right now.", *h.later[:1]]
    if len(heard) > 1 and not ENGLISH & set(heard):  # nonsense, or a language it does not speak
        return [f"Sorry{h.them}, I only speak English." if re.search(r"[^\x00-\x7f]", h.line) else
                f"Sorry{h.them}, I don't follow."]
    if AGREE.search(h.line):  # small talk ("Nice weather, isn't it?"): agreed with
        return ["It is, yes.", "Isn't it just."]
    return _unknown(h.them) if QUESTION.search(h.line) else [
        "I see.", f"I'm {h.now_doing} right now."]


def _unknown(them: str) -> list[str]:
    """What it says to a question it knows nothing of (no answer: never said again "as I said")."""
    return [f"I couldn't say{them}.", "I really couldn't tell you.", "No idea, I'm afraid."]


_COMPOSERS: dict[Kind, Callable[[_Heard], list[str]]] = {
    Kind.PERSON: _person, Kind.JOB: _job, Kind.PLANS: _plans, Kind.NOW: _now, Kind.PLACE: _where, Kind.BYE: _bye,
    Kind.GREETING: _greeting, Kind.THANKS: _thanks, Kind.TIME: _time, Kind.WAY: _way, Kind.REQUEST: _request,
    Kind.COMPLIMENT: _compliment, Kind.INSULT: _insult, Kind.OTHER: _other}


def compose(kind: Kind, speaker: Speaker, partner: str, heard: str, now: datetime, place: str,
            memories: Sequence[MemoryNode], person: str = "") -> list[str]:
    """The lines the speaker could say for this kind of line heard, the best first."""
    name = speaker.persona.name
    now_doing = doing(speaker.activity, name) or next(
        (i.activity for i in speaker.plan if i.start <= now < i.end), "taking it easy")
    return _COMPOSERS[kind](_Heard(speaker, partner, name, addressing(partner), asked(heard), heard, now, place,
                                   memories, person, now_doing, _plan_lines(speaker.plan, "", now)))


async def reply(speaker: Speaker, partner: str, lines: Sequence[DialogueLine], now: datetime, place: str,
                stream: MemoryStream, trace: Trace, *, work: Work, ask: str = "", kind: Kind | None = None) -> Turn:
    """The speaker's answer to the last line (the partner's), composed and chosen: of the `kind`
    given, else of the kind of that line; `ask` is added to it."""
    started = time.monotonic()
    heard = lines[-1].text if lines else ""
    said = [line.text for line in lines if line.speaker_npc_id == speaker.npc_id]
    heard_kind, greeting = kind_of(heard)
    kind = kind or heard_kind
    memories: list[MemoryNode] = []
    if kind in (Kind.OTHER, Kind.PERSON) or may_name(heard, speaker.persona.name, partner):
        memories = [r.node for r in await stream.retrieve(speaker.npc_id, heard or partner, now, trace)]
    person = person_in(heard, memories, speaker.persona.name, partner) or (
        known_in(heard, speaker.persona, partner) if heard_kind is Kind.OTHER else "")
    if not person and heard_kind is Kind.OTHER and (asked := ASKED_OF.search(heard)) and asked.group(1) not in (
            first_name(speaker.persona.name), first_name(partner), "I"):
        person = asked.group(1)  # nobody it remembers: it says so, rather than what else it remembers
    if person and kind is heard_kind:
        kind = Kind.PERSON
        if sum(first_name(person) in m.description for m in memories) < RECALLED:  # more of them, when few came
            memories = [r.node for r in await stream.retrieve(speaker.npc_id, person, now, trace)] + memories
    greets = greeting and not said and kind not in (Kind.GREETING, Kind.BYE)  # once, as the answer to one
    opening = f"{greeting}{addressing(partner)}! " if greets else ""
    composed = compose(kind, speaker, partner, heard, now, place, memories, person)
    options = [f"{opening}{line}{' ' + ask if ask else ''}" for line in composed]
    options = list(dict.fromkeys(o for o in options if acceptable(o, heard, said)))[:MAX_OPTIONS]
    trace.note(f"offline lines: {kind} line heard, {len(options)} composed")
    if not options:  # all said before: its best answer again, said as such, rather than anything else
        again = [f"As I said: {composed[0]}"] if composed and kind not in (Kind.GREETING, Kind.BYE, Kind.THANKS) and (
            composed[0] not in _unknown(addressing(partner))) else []
        options = [o for o in again if acceptable(o, heard, said)] or [o for o in (
            f"Sorry{addressing(partner)}, I can't say.", "Let me think about that.") if acceptable(o, heard, said)] or [
            "Hm."]
    wait = min(CHOICE_WAIT_S, ANSWER_WITHIN_S - (time.monotonic() - started))
    line = await choose(speaker, partner, heard, options, stream, trace, work=work, wait_s=wait)
    return Turn(utterance=line, end_conversation=kind is Kind.BYE)


async def choose(speaker: Speaker, partner: str, heard: str, options: Sequence[str], stream: MemoryStream,
                 trace: Trace, *, work: Work, wait_s: float = CHOICE_WAIT_S) -> str:
    """The model's pick among the options, or the first when it does not pick within `wait_s`."""
    if len(options) == 1 or wait_s <= 0:
        return options[0]
    # Each line's first words: the prompt's length is most of the model's time.
    shown = "\n".join(f'{n}. "{" ".join(o.split()[:SHOWN_WORDS])}"' for n, o in enumerate(options, 1))
    variables = {"npc_name": speaker.persona.name, "partner": partner, "heard": heard or "(nothing yet)",
                 "options": shown, "count": len(options)}
    try:
        chosen = await asyncio.wait_for(stream.llm.complete(CHOOSE, variables, npc_id=speaker.npc_id, work=work,
                                                            trace=trace, fallback=lambda: ChosenLine(choice=1)), wait_s)
    except TimeoutError:
        trace.note(f"offline lines: no pick within {wait_s:.2f} s, the first line said")
        return options[0]
    return options[min(chosen.choice, len(options)) - 1]


async def conversation(a: Speaker, b: Speaker, now: datetime, place: str, stream: MemoryStream, trace: Trace,
                       *, work: Work, max_lines: int) -> list[DialogueLine]:
    """An NPC-NPC conversation of composed lines: `a` greets and asks, each answers and asks back,
    and the last line is a goodbye."""
    opener = await choose(a, b.persona.name, "", [f"Hi{addressing(b.persona.name, ' ')}! {ASK}",
                                                  f"Hello{addressing(b.persona.name)}! {ASK}"],
                          stream, trace, work=work)
    lines = [DialogueLine(speaker_npc_id=a.npc_id, speaker_name=a.persona.name, text=opener)]
    speaker, listener = b, a
    while len(lines) < max_lines:
        last = len(lines) + 1 >= min(max_lines, CONVERSATION_LINES)
        turn = await reply(speaker, listener.persona.name, lines, now, place, stream, trace, work=work,
                           ask=ASK_BACK if len(lines) == 1 and not last else "", kind=Kind.BYE if last else None)
        lines.append(DialogueLine(speaker_npc_id=speaker.npc_id, speaker_name=speaker.persona.name,
                                  text=turn.utterance))
        if last:
            break
        speaker, listener = listener, speaker
    trace.note(f"converse: {a.persona.name} and {b.persona.name} exchanged {len(lines)} composed lines")
    return lines
