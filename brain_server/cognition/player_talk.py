"""The player's and the user's ways into an NPC's mind: talking with it (a conversation kept open
between the player's lines, bounded in number and idle time), whispering it a thought (the
paper's inner voice), and interviewing it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
import time

from brain_server.cognition.booking import booked_item
from brain_server.cognition.chats import Chats
from brain_server.cognition.converse import MAX_LINES, answer_interview, next_line, relationship, remember_conversation
from brain_server.cognition.locate import learn_places, open_places
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.offline import offline_lines
from brain_server.cognition.offline.heard import Kind
from brain_server.cognition.offline.inner_voice import about_them, pronoun_of
from brain_server.cognition.offline.kept_days import anchored
from brain_server.cognition.places_said import home_named, named_places
from brain_server.cognition.reflect import note_importance
from brain_server.cognition.said_yes import yes_unbooked
from brain_server.cognition.speaker import Speaker, listed
from brain_server.cognition.status import revise_currently
from brain_server.cognition.thinking import Thinking
from brain_server.cognition.work import Workshop, adopt_currently
from brain_server.config import Settings
from brain_server.llm.scheduler import Priority, Work, WorkDropped
from brain_server.llm.streaming import Listener
from brain_server.model.errors import BrainError, Status
from brain_server.model.memory import OWN, MemoryKind, MemoryNode
from brain_server.model.npc import DialogueLine, NpcState
from brain_server.model.trace import Trace
from brain_server.persistence.records import Apply, Records
from brain_server.prompts.converse_turn import PROMPT as TURN
from brain_server.prompts.converse_turn import spoken

OPEN_TALKS_PER_NPC = 8  # players talking to one NPC at once; the least recently continued ends first
OPEN_TALKS = 1000  # open player conversations in all


@contextmanager
def _busy_when_dropped(npc_id: str) -> Iterator[None]:
    """A player's line the scheduler dropped (the player class's queue is full: NPC_BRAIN_LLM_MAX_CONCURRENCY
    far too low for the players talking) is answered RESOURCE_EXHAUSTED, not made up by a fallback."""
    try:
        yield
    except WorkDropped as exc:
        raise BrainError(Status.RESOURCE_EXHAUSTED, f"NPC {npc_id!r} cannot answer now: {exc.reason}; "
                         "try again shortly") from None


@dataclass
class PlayerTalk:
    """A conversation with the player in progress: the NPC's view of them and the lines so far."""

    view: tuple[str, str]
    lines: list[DialogueLine] = field(default_factory=list)
    summary: asyncio.Task[tuple[str, str]] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    spoken: float = field(default_factory=time.monotonic)  # when the player last spoke (wall clock)
    at: datetime | None = None  # the game time of that line
    witnesses: list[str] = field(default_factory=list)  # NPCs it turned away from to talk (they heard it)


class Player:
    """Talk, Whisper and Interview, each in the player's class of the endpoint's scheduler."""

    def __init__(self, thinking: Thinking, workshop: Workshop, records: Records, stream: MemoryStream, chats: Chats,
                 settings: Settings) -> None:
        self.thinking = thinking
        self.workshop = workshop  # a whisper re-plans as a reaction does
        self.records = records
        self.stream = stream
        self.chats = chats
        self.settings = settings
        self._talks: dict[tuple[str, str], PlayerTalk] = {}
        self._answering: dict[str, set[asyncio.Task[object]]] = {}  # Talks being answered, by NPC
        self._ended: set[asyncio.Task[object]] = set()  # those `end` cancelled
        self._sweeper: asyncio.Task[None] | None = None  # ends the talks players left (`_sweep`)

    def end(self, npc_ids: Collection[str]) -> list[asyncio.Task[object]]:
        """End every conversation of these NPCs with the player, unremembered (ResetNpc, DeleteNpc,
        LoadWorld: nothing said before reaches a prompt or a memory after): open ones are dropped,
        those they overheard are no longer theirs to remember, and a Talk or TalkStream being
        answered is cancelled (it answers `aborted`). The cancelled Talks, for the caller to await."""
        ids = set(npc_ids)
        for key in [k for k in self._talks if k[0] in ids]:
            talk = self._talks.pop(key)
            if talk.summary is not None:
                talk.summary.cancel()
        for talk in self._talks.values():
            talk.witnesses = [w for w in talk.witnesses if w not in ids]
        answering = [t for n in ids for t in self._answering.get(n, ()) if t is not asyncio.current_task()]
        for task in answering:
            self._ended.add(task)
            task.cancel()
        return answering

    async def talk(self, npc_id: str, player: str, text: str, now: datetime,
                   on_text: Callable[[str], None] | None = None) -> tuple[str, bool, Trace]:
        """`_talk`, ended by `end` as `aborted`."""
        task = asyncio.current_task()
        assert task is not None
        self._answering.setdefault(npc_id, set()).add(task)
        try:
            with _busy_when_dropped(npc_id):
                return await self._talk(npc_id, player, text, now, on_text)
        except asyncio.CancelledError:
            if task not in self._ended:
                raise
            task.uncancel()
            raise BrainError(Status.ABORTED, f"NPC {npc_id!r} was reset, deleted or loaded from a save while it "
                             "answered: that conversation is over; talk to it again") from None
        finally:
            self._ended.discard(task)
            answering = self._answering.get(npc_id, set())
            answering.discard(task)
            if not answering:
                self._answering.pop(npc_id, None)

    async def _talk(self, npc_id: str, player: str, text: str, now: datetime,
                    on_text: Callable[[str], None] | None = None) -> tuple[str, bool, Trace]:
        """The player speaks; the NPC answers within one completion (it holds no lock meanwhile,
        and its first line does not wait for its view of the player, which is written beside it).
        When the conversation ends it is remembered, in the background. `on_text` hears the line
        as the model writes it; cancelled meanwhile, the conversation keeps the player's line and
        the NPC's as far as it was heard (`_cut_short`), and stays open."""
        heard = time.perf_counter()
        npc = await self.records.npc(npc_id)
        trace = Trace(npc_id=npc_id, kind="talk", game_time=now)
        speaker = await Speaker.read(npc, now, self.stream, await self.records.world(npc.world_name))
        key, work = (npc_id, player), Work(Priority.PLAYER, npc_id)
        talk = self._talks.get(key)
        if talk is None:
            await self._end_talks(npc_id)
            talk = self._talks[key] = await self._start_talk(speaker, player, now, trace)
        talk.spoken, talk.at = time.monotonic(), now
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.create_task(self._sweep())
        turned_from = await self.chats.interrupt(npc_id, player, text, now, trace)
        talk.witnesses += [i for i in turned_from if i not in talk.witnesses]
        async with talk.lock:
            if talk.summary is not None and talk.summary.done() and not talk.summary.cancelled():
                talk.view = talk.summary.result()
            # One line of speech: newlines collapsed, so a player cannot start a fake line in the prompt.
            talk.lines.append(DialogueLine(speaker_npc_id="", speaker_name=player, text=" ".join(text.split())))
            last = len(talk.lines) + 1 >= MAX_LINES  # the NPC's line ends it, as a goodbye
            listener = (Listener(TURN.purpose, lambda: spoken(npc.persona.name), on_text)
                        if on_text is not None else None)
            try:
                if offline_lines.composing(self.stream.llm, npc_id):
                    turn = await offline_lines.reply(speaker, player, talk.lines, now, npc.address, self.stream,
                                                     trace, work=work, kind=Kind.BYE if last else None)
                else:
                    turn = await next_line(speaker, player, talk.view, talk.lines, now, npc.address,
                                           self.stream, trace, work=work, opener=player, last=last,
                                           listener=listener)
            except asyncio.CancelledError:
                self._cut_short(talk, npc, listener.text if listener is not None else "", trace)
                raise
            if listener is not None and listener.asked is not None and listener.first_words is not None:
                trace.note(f"talk: the model asked {(listener.asked - heard) * 1000:.0f} ms after the line was "
                           f"heard, its first words read {(listener.first_words - listener.asked) * 1000:.0f} "
                           "ms later")
            talk.lines.append(DialogueLine(speaker_npc_id=npc_id, speaker_name=npc.persona.name,
                                           text=turn.utterance))
            ended = turn.end_conversation or last
            if last:
                trace.note(f"talk: the conversation with {player} reached its {MAX_LINES} lines and ends")
        if ended:
            self._talks.pop(key, None)
            if talk.summary is not None:
                talk.summary.cancel()
            await self.thinking.meanwhile(self._remember_talk(npc_id, player, talk, now, trace), (npc_id, *talk.witnesses))
        self.thinking.traces.add(trace)
        return turn.utterance, ended, trace

    async def take_back(self, npc_id: str, player: str) -> tuple[str, int]:
        """The player withdraws their last line of the open conversation, and the NPC's answer to
        it as far as it went: no later prompt and no memory of the conversation holds them. An
        answer under way is waited for (a stopped one ends as `_cut_short` keeps it, then goes too).
        The line taken back and how many of the NPC's lines went with it."""
        npc = await self.records.npc(npc_id)
        answering = {t for t in self._answering.get(npc_id, ()) if t is not asyncio.current_task()}
        if answering:
            await asyncio.wait(answering)
        talk = self._talks.get((npc_id, player))
        if talk is None:
            raise BrainError(Status.FAILED_PRECONDITION, f"{player} has no open conversation with NPC {npc_id!r} "
                             "(never begun, or ended: by its goodbye, or left idle): there is no line to take back")
        async with talk.lock:
            mine = [i for i, line in enumerate(talk.lines) if not line.speaker_npc_id]
            if self._talks.get((npc_id, player)) is not talk or not mine:
                raise BrainError(Status.FAILED_PRECONDITION, f"{player} has no line left to take back in the "
                                 f"conversation with NPC {npc_id!r}: each line can be taken back once")
            withdrawn = talk.lines[mine[-1]:]
            del talk.lines[mine[-1]:]
        trace = Trace(npc_id=npc_id, kind="talk", game_time=talk.at or datetime.now(UTC))
        trace.note(f"talk: {player} took back their line, and {len(withdrawn) - 1} of {npc.persona.name}'s after it")
        self.thinking.traces.add(trace)
        return withdrawn[0].text, len(withdrawn) - 1

    def _cut_short(self, talk: PlayerTalk, npc: NpcState, said: str, trace: Trace) -> None:
        """The player stopped the NPC mid-line: what it had said (if anything) is part of the
        conversation, marked as cut off, so its next line follows on from it."""
        if said.strip():
            talk.lines.append(DialogueLine(speaker_npc_id=npc.npc_id, speaker_name=npc.persona.name,
                                           text=f"{said.strip()}—"))
        trace.note(f"talk: the player stopped {npc.persona.name} after {len(said.strip())} characters of the line")
        self.thinking.traces.add(trace)

    async def _end_talks(self, npc_id: str) -> None:
        """Open player conversations are bounded: one the player left (silent for
        NPC_BRAIN_PLAYER_TALK_IDLE_S, found at the next Talk or `_sweep`) ends, and so does the
        least recently continued beyond OPEN_TALKS_PER_NPC for this NPC or OPEN_TALKS in all; each
        is remembered as if it had ended."""
        clock, idle = time.monotonic(), self.settings.player_talk_idle_s
        open_talks = sorted((t.spoken, k) for k, t in self._talks.items() if not t.lock.locked())
        mine = [k for _, k in open_talks if k[0] == npc_id]
        ending = {k for spoken, k in open_talks if clock - spoken > idle}
        ending |= set(mine[:len(mine) - OPEN_TALKS_PER_NPC + 1] if len(mine) >= OPEN_TALKS_PER_NPC else [])
        ending |= {k for _, k in open_talks[:max(0, len(self._talks) - OPEN_TALKS + 1)]}
        for key in ending:
            talk = self._talks.pop(key, None)
            if talk is None:
                continue
            if talk.summary is not None:
                talk.summary.cancel()
            if talk.lines and talk.at is not None:
                trace = Trace(npc_id=key[0], kind="talk", game_time=talk.at)
                trace.note(f"talk: the conversation with {key[1]} ended unfinished (open conversations are bounded)")
                self.thinking.traces.add(trace)
                await self.thinking.meanwhile(self._remember_talk(key[0], key[1], talk, talk.at, trace),
                                              (key[0], *talk.witnesses))

    async def _sweep(self) -> None:
        """While any talk is open, every quarter of NPC_BRAIN_PLAYER_TALK_IDLE_S the ones the player
        left end and are remembered (`_end_talks`), so what a player agreed and walked away from
        becomes a plan without waiting for someone's next Talk."""
        while self._talks:
            await asyncio.sleep(self.settings.player_talk_idle_s / 4)
            await self._end_talks("")

    async def _start_talk(self, speaker: Speaker, player: str, now: datetime, trace: Trace) -> PlayerTalk:
        name, stream = speaker.persona.name, self.stream
        if offline_lines.composing(stream.llm, speaker.npc_id):
            return PlayerTalk(view=("", ""))  # composed lines need no view, and the model no second call
        # Until the view is written, the turn's prompt points at the memories it shows (no retrieval
        # of its own here: the first words would wait for it, and `relationship` retrieves them).
        talk = PlayerTalk(view=(f"(see what {name} remembers of {player})", ""))
        if self.thinking.background:
            talk.summary = asyncio.create_task(relationship(speaker, player, now, stream, trace,
                                                            work=Work(Priority.SOCIAL, speaker.npc_id)))
        else:
            talk.view = await relationship(speaker, player, now, stream, trace, work=Work(Priority.PLAYER, speaker.npc_id))
        return talk

    async def _remember_talk(self, npc_id: str, player: str, talk: PlayerTalk, now: datetime, trace: Trace) -> None:
        """The NPC remembers its conversation with the player, and so do those it turned away from
        for it (they were there), each with its memo and plan change."""
        name = (await self.records.npc(npc_id)).persona.name
        for me, partner in ((npc_id, player), *((w, listed([name, player])) for w in talk.witnesses)):
            if me == npc_id or await self.records.npc_or_none(me) is not None:  # a witness may be gone
                await self._remember_lines(me, partner, talk.lines, now, trace)

    async def _remember_lines(self, npc_id: str, partner: str, lines: list[DialogueLine], now: datetime,
                              trace: Trace) -> None:
        work = Work(Priority.SOCIAL, npc_id)

        async def think(npc: NpcState) -> Apply:
            world = await self.records.world(npc.world_name)
            stored, change = await remember_conversation(npc, partner, lines, now, self.stream, trace, work=work,
                                                         world=world)
            change = change or yes_unbooked(npc.persona.name, lines, npc.known_addresses, now, trace)
            item = (await booked_item(change, npc, world, self.stream, trace, work=work)
                    if change is not None else None)

            def apply(live: NpcState) -> None:
                note_importance(live, stored)
                if item is not None:
                    live.commit(item)

            return apply

        await self.records.revise(npc_id, think)

    async def whisper(self, npc_id: str, text: str, now: datetime) -> tuple[str, Trace]:
        """The paper's inner voice: a thought the NPC takes as its own. It is remembered, and its
        "Currently" status is revised with it (the paper seeded Isabella's party there), so every
        prompt's persona carries it, not only those whose retrieval reaches the memory; during a
        planned day it also re-plans the next hours. A place of the world that it names becomes one
        the NPC knows: a game whispered an event in an inn's garden to a teacher who had never been
        there, and she could neither plan it nor say where it was."""
        npc = await self.records.npc(npc_id)
        trace = Trace(npc_id=npc_id, kind="whisper", game_time=now)
        work = Work(Priority.PLAYER, npc_id)
        # "You are planning ...": kept as a thought about the NPC, in the pronoun its persona uses
        text = about_them(text, npc.persona.name, pronoun=pronoun_of(npc.persona.identity))
        text = anchored(text, now.date())  # read on later days, "tomorrow" or "on Saturday" must say which
        text = home_named(text, npc.persona.home, npc.persona.name)  # "at her place" is somewhere to plan
        world = await self.records.world(npc.world_name)
        named = named_places(open_places(world, npc), text)

        def learn(me: NpcState) -> None:
            if learned := learn_places(me, world, named):
                trace.note(f"whisper: {me.persona.name} now knows {learned} place(s) the thought names")

        async def rethink(draft: NpcState) -> Apply:
            learn(draft)
            draft.persona.currently = await revise_currently(draft, now, self.stream, trace, text, work=work)
            planned = draft.plan_day == now.date() and not draft.is_asleep()
            window = await self.workshop.replan(draft, now, f"{draft.persona.name} now thinks: {text}", trace,
                                                work) if planned else None

            def apply(live: NpcState) -> bool:
                learn(live)
                adopt_currently(live, draft, trace)
                if window is not None:
                    window(live)
                return True
            return apply

        node = MemoryNode(npc_id=npc_id, kind=MemoryKind.THOUGHT, description=text, subject=npc.persona.name,
                          predicate=OWN, object=text[:80], created=now, last_accessed=now)
        with _busy_when_dropped(npc_id):
            [node] = await self.stream.remember(npc_id, npc.persona, [node], trace, work=work)
            await self.records.revise(npc_id, rethink)
        self.thinking.traces.add(trace)
        return node.id, trace

    async def interview(self, npc_id: str, question: str, now: datetime, *, remember: bool) -> tuple[str, Trace]:
        """Answers from retrieved memories; stores the exchange only when asked to."""
        npc = await self.records.npc(npc_id)
        trace = Trace(npc_id=npc_id, kind="interview", game_time=now)
        work = Work(Priority.PLAYER, npc_id)
        with _busy_when_dropped(npc_id):
            if offline_lines.composing(self.stream.llm, npc_id):
                asked = DialogueLine(speaker_npc_id="", speaker_name="an interviewer", text=question)
                speaker = await Speaker.read(npc, now, self.stream, await self.records.world(npc.world_name))
                answer = (await offline_lines.reply(speaker, "an interviewer", [asked], now, npc.address, self.stream,
                                                    trace, work=work)).utterance
            else:
                answer = await answer_interview(npc_id, npc.persona, question, now, self.stream, trace, work=work)
            if remember:
                node = MemoryNode(npc_id=npc_id, kind=MemoryKind.CHAT, subject="an interviewer", predicate="asked",
                                  object=npc.persona.name, created=now, last_accessed=now,
                                  description=f'an interviewer asked "{question}" and {npc.persona.name} '
                                              f'answered "{answer}"')
                await self.stream.remember(npc_id, npc.persona, [node], trace, work=work)
        self.thinking.traces.add(trace)
        return answer, trace

    async def close(self) -> None:
        """Stop writing the NPCs' views of the players, and ending the talks they left."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        summaries = [t.summary for t in self._talks.values() if t.summary is not None]
        for task in summaries:
            task.cancel()
        await asyncio.gather(*summaries, return_exceptions=True)
