"""The memory stream (paper section 4.1): writing nodes with importance and embeddings, and
retrieving them by recency, importance and relevance, always within one NPC's own tenant."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
import re
from typing import TypeVar

from brain_server.cognition.memory_adds import Adds
from brain_server.cognition.offline.heard import says_name
from brain_server.cognition.offline.kept_days import dates_alone
from brain_server.cognition.offline.said_clock import named_days
from brain_server.cognition.retrieve import (
    SWAP_SPEAKERS,
    RetrievalWeights,
    formula,
    score,
    thoughts_split,
    unreachable_thought,
)
from brain_server.llm.client import LLM
from brain_server.llm.embeddings import Embedder
from brain_server.llm.scheduler import Work
from brain_server.model.budget import Bullets, Item, fit_memory
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import NpcState, Persona
from brain_server.model.trace import RetrievedRecord, Trace
from brain_server.model.world import SEPARATOR
from brain_server.persistence.storage.base import PREFETCH_SLACK, MemoryStore
from brain_server.prompts.importance import PROMPT as IMPORTANCE
from brain_server.prompts.importance import Importance
from brain_server.prompts.importance_batch import PROMPT as IMPORTANCE_BATCH
from brain_server.prompts.importance_batch import Ratings

# Events this mundane are scored 1 without asking the LLM, as the paper's code does for "idle".
TRIVIAL_PREDICATES = {"idle", "is idle"}
DEFAULT_IMPORTANCE = 3  # when the LLM cannot rate: a little above mundane
RATED_CACHE = 50_000  # remembered observation ratings, all NPCs together
# How many of the best-scored memories are searched for those about another person (`about`): the
# paper's conversation retrieval reads 50 for one focal point; a stream about others is rarer.
ABOUT_CANDIDATES = 100
SAID_FOR_A_DAY = 3  # conversations that named the day a prompt is about, listed first
CHATS_LOOKED_AT = 50  # the newest conversations read for what was said in them (`latest_chats`)
THOUGHTS_LOOKED_AT = 50  # the newest thoughts read for the news an NPC holds (`latest_thoughts`)
_LEAD, _FOLD = re.compile(r":[ \t]*\n\s*"), re.compile(r"[ \t]*\n\s*")  # a transcript's heading, its lines
# The day and time `memory_line` leads a memory with, as a model may copy it into what it writes.
_LISTED = re.compile(r",\s*(?:and\s+)?|\s+and\s+")  # "Ann Lee, Bo Chen and Cy Diaz": the names
T = TypeVar("T")


@dataclass(frozen=True)
class Head:
    """Whose memories and news a social prompt shows, and what it asks of them: the NPC's own
    (`npc_id`, `name`), about those it is with (`partners`, listed) and what they were doing
    (`doing`, "" when unknown)."""

    npc_id: str
    name: str
    partners: str
    doing: str = ""


@dataclass
class MemoryStream:
    store: MemoryStore
    embedder: Embedder
    llm: LLM
    weights: RetrievalWeights
    # Ratings of observations already rated for this NPC: "Klaus Mueller is sleeping" seen again
    # tomorrow matters as much as today, and need not cost another call.
    _rated: OrderedDict[tuple[str, str], int] = field(default_factory=OrderedDict)
    adds: Adds = field(init=False)

    def __post_init__(self) -> None:
        self.adds = Adds()

    @property
    def reaches_plans(self) -> bool:
        """Whether the NPC can bring its plans to mind (not under the paper's "planning" ablation):
        a conversation shows it its schedule only then."""
        return MemoryKind.PLAN not in self.weights.exclude

    @property
    def own_heads(self) -> bool:
        """Whether each speaker's prompts show its own memories and news (not under `heads`' control)."""
        return SWAP_SPEAKERS not in self.weights.ablate

    def heads(self, own: Sequence[T]) -> list[T]:
        """Whose memories and news the prompts of speakers with these `own` heads show, in order:
        each its own; under the lab control "swap_speakers" (NPC_BRAIN_ABLATE, docs/evaluation.md)
        each the next one's, a pair's each the other's: the same retrieval, in the wrong head, so a
        teller sees its news only where its partner holds it too (issue 42's control)."""
        return list(own) if self.own_heads else [*own[1:], *own[:1]]

    async def remember(
        self,
        npc_id: str,
        persona: Persona,
        nodes: Sequence[MemoryNode],
        trace: Trace | None,
        *,
        rate: bool = True,
        work: Work | None = None,
    ) -> list[MemoryNode]:
        """Rate (unless told not to: then no `work` is needed), embed and store new nodes; durable once
        this returns. Rating is a completion, for the `work` that remembers."""
        if rate:
            if work is None:
                raise TypeError("remember(rate=True) needs the work it rates for (work=...)")
            nodes = await self._rated_nodes(npc_id, persona, nodes, trace, work)
        return await self._store(nodes, trace)

    async def remember_unrated(self, npc_id: str, persona: Persona, nodes: Sequence[MemoryNode],
                               trace: Trace | None) -> tuple[list[MemoryNode], list[MemoryNode]]:
        """Store new nodes now and leave the LLM's rating for later (`rate_stored`): every stored
        node, and those of them that got a provisional rating (the rest were trivial or seen before)."""
        known = self._known_ratings(npc_id, nodes)
        stored = await self._store([n.model_copy(update={"importance": r or DEFAULT_IMPORTANCE})
                                    for n, r in zip(nodes, known, strict=True)], trace)
        return stored, [n for n, r in zip(stored, known, strict=True) if r is None]

    async def rate_stored(self, npc_id: str, persona: Persona, ids: Sequence[str],
                          trace: Trace | None, work: Work) -> list[MemoryNode]:
        """Rate nodes stored with a provisional importance, in one call, and save the ratings."""
        stored = await asyncio.to_thread(self.store.get, npc_id, ids)
        if not stored:
            return []
        rated = await self._rated_nodes(npc_id, persona, stored, trace, work)
        await asyncio.to_thread(self.store.set_importance, npc_id, {n.id: n.importance for n in rated})
        return rated

    async def _store(self, nodes: Sequence[MemoryNode], trace: Trace | None) -> list[MemoryNode]:
        if not nodes:
            return []
        nodes = [fit_memory(n, trace) for n in nodes]  # a byte budget per memory (budget.py)
        vectors = await self.embedder.embed([n.embedded_text for n in nodes])
        await self.adds.add(self.store, nodes, vectors)
        if trace is not None:
            trace.stored_memory_ids.extend(n.id for n in nodes)
        return list(nodes)

    def _known_ratings(self, npc_id: str, nodes: Sequence[MemoryNode]) -> list[int | None]:
        """1 for trivial nodes, the remembered rating of an observation seen before, else None."""
        return [1 if _trivial(n) else self._rated.get(_rating_key(npc_id, n)) if n.kind is MemoryKind.OBSERVATION
                else None for n in nodes]

    async def _rated_nodes(self, npc_id: str, persona: Persona, nodes: Sequence[MemoryNode],
                           trace: Trace | None, work: Work) -> list[MemoryNode]:
        """The nodes with their importance: known ratings without a call, the rest in one call (an
        observation repeated among them is asked about once)."""
        ratings = self._known_ratings(npc_id, nodes)
        asked: dict[object, list[int]] = {}  # what is asked about -> indexes of the nodes it rates
        for i, rating in enumerate(ratings):
            if rating is None:
                key = _rating_key(npc_id, nodes[i]) if nodes[i].kind is MemoryKind.OBSERVATION else i
                asked.setdefault(key, []).append(i)
        todo = [group[0] for group in asked.values()]
        common = {"npc_name": persona.name, "persona": persona.summary()}
        given: list[int] = []
        if len(todo) == 1:
            answer = await self.llm.complete(
                IMPORTANCE, {**common, "memory": nodes[todo[0]].description}, npc_id=npc_id, work=work, trace=trace,
                fallback=lambda: Importance(importance=DEFAULT_IMPORTANCE))
            given = [answer.importance]
        elif todo:
            batch = await self.llm.complete(
                IMPORTANCE_BATCH,
                {**common, "count": len(todo),
                 "memories": "\n".join(f'- "{nodes[i].description}"' for i in todo)},
                npc_id=npc_id, work=work, trace=trace, fallback=lambda: Ratings(ratings=[DEFAULT_IMPORTANCE] * len(todo)))
            given = [min(10, max(1, r)) for r in batch.ratings][: len(todo)]
            given += [DEFAULT_IMPORTANCE] * (len(todo) - len(given))
        for group, rating in zip(asked.values(), given, strict=True):
            for i in group:
                ratings[i] = rating
            if nodes[group[0]].kind is MemoryKind.OBSERVATION:
                self._rated[_rating_key(npc_id, nodes[group[0]])] = rating
        while len(self._rated) > RATED_CACHE:
            self._rated.popitem(last=False)
        return [n.model_copy(update={"importance": r}) for n, r in zip(nodes, ratings, strict=True)]

    async def retrieve(
        self, npc_id: str, query: str, now: datetime, trace: Trace | None, *, kind: MemoryKind | None = None,
        about: str = "", without: frozenset[MemoryKind] = frozenset(),
    ) -> list[RetrievedRecord]:
        """The top memories for a query, every memory of the NPC scored as in the paper (inside
        Qdrant: `retrieve.py`); retrieving refreshes their recency. `about`: the person (or the
        people, listed: "Ann Lee and Bo Chen") the query asks about; only memories `about_them` are
        returned, the best of `ABOUT_CANDIDATES`; `without`: kinds left out."""
        [vector] = await self.embedder.embed([query])
        return await self._retrieved(npc_id, query, vector, now, trace, kind, about, without)

    async def _retrieved(self, npc_id: str, query: str, vector: list[float], now: datetime, trace: Trace | None,
                         kind: MemoryKind | None = None, about: str = "", without: frozenset[MemoryKind] = frozenset(),
                         unless: Callable[[MemoryNode], bool] | None = None) -> list[RetrievedRecord]:
        """The query's best memories, touched; `about` and `unless` choose among a wider list before
        the top_k are cut and touched, so a prompt shows as many and none left out looks recent."""
        people = [p for p in _LISTED.split(about) if p]
        if people or unless is not None:
            wider = await asyncio.to_thread(self.top, npc_id, vector, query, now, kind,
                                            ABOUT_CANDIDATES if people else 2 * self.weights.top_k, without)
            records = [r for r in wider if (not people or about_them(r.node, people))
                       and not (unless is not None and unless(r.node))][: self.weights.top_k]
        else:
            records = await asyncio.to_thread(self.top, npc_id, vector, query, now, kind, 0, without)
        if records:
            await asyncio.to_thread(self.store.touch, npc_id, [r.node.id for r in records], now)
        if trace is not None:
            trace.retrieved.extend(records)
        return records

    async def retrieve_two(self, npc_id: str, first: str, second: str, now: datetime, trace: Trace | None, *,
                           apart: int, about: str = "", without: frozenset[MemoryKind] = frozenset(),
                           unless: Callable[[MemoryNode], bool] | None = None,
                           ) -> tuple[list[RetrievedRecord], list[RetrievedRecord]]:
        """Two queries' memories, as reacting and talking ask the paper's two questions: the second's
        without those among the first's `apart` best, so a prompt showing both lists no memory twice.
        `about`: whom the first query asks about (as `retrieve`'s); `without`: kinds left out of both
        (a conversation's own plans: its prompt shows the schedule apart); `unless`: memories left
        out of both before they are counted or touched (those that say again the news the prompt
        states: `news.Held.restates`): left out after, they cut a prompt's list short and, touched,
        stayed recent enough to cut it again."""
        vectors = await self.embedder.embed([first, second])  # one wait for the embedder, not two
        by_first = await self._retrieved(npc_id, first, vectors[0], now, trace, about=about, without=without,
                                         unless=unless)
        shown = {_said(r.node) for r in by_first[:apart]}  # a memory itself, or one kept alike
        return by_first, [r for r in await self._retrieved(npc_id, second, vectors[1], now, trace, without=without,
                                                           unless=unless) if _said(r.node) not in shown]

    async def latest_chats(self, npc_id: str) -> list[MemoryNode]:
        """The NPC's newest conversations (`CHATS_LOOKED_AT`), newest first, without retrieving them
        (recency untouched): where what was said in them is looked for, not what bears on a question."""
        return await asyncio.to_thread(self.store.latest, npc_id, CHATS_LOOKED_AT, MemoryKind.CHAT)

    async def latest_thoughts(self, npc_id: str) -> list[MemoryNode]:
        """The NPC's newest thoughts (`THOUGHTS_LOOKED_AT`), newest first, without retrieving them:
        where the news it holds, its own events among them, is looked for."""
        return await asyncio.to_thread(self.store.latest, npc_id, THOUGHTS_LOOKED_AT, MemoryKind.THOUGHT)

    async def said_for(self, npc_id: str, day: date, records: Sequence[RetrievedRecord]) -> list[RetrievedRecord]:
        """`records` led by the newest conversations that named `day` (at most `SAID_FOR_A_DAY`),
        so a prompt's shorter list keeps them: a yes said in one ("count me in, I'll be there
        tomorrow (Thursday October 15) at 11 am") ranked below the day's own doings when the model's
        memo called the talk small talk, and the day plan never showed it (blind19 in Brinnick:
        six invited, none came). Scored as the best of `records`; not read again, so not touched.
        None under the observation ablation, which takes conversations away."""
        if MemoryKind.CHAT in self.weights.exclude:
            return list(records)
        named = [c for c in await self.latest_chats(npc_id) if day in named_days(c.description, c.created.date())][:SAID_FOR_A_DAY]
        ids, best = {c.id for c in named}, max((r.score for r in records), default=1.0)
        return [*(RetrievedRecord(node=c, recency=0.0, importance=0.0, relevance=0.0, score=best,
                                  query=f"said for {day:%A %B %d}") for c in named),
                *(r for r in records if r.node.id not in ids)]

    def top(self, npc_id: str, vector: Sequence[float], query: str, now: datetime,
            kind: MemoryKind | None, limit: int = 0, without: frozenset[MemoryKind] = frozenset(),
            ) -> list[RetrievedRecord]:
        """What `retrieve` returns for an embedded query (the best `limit`, else top_k; kinds `without`
        left out), without refreshing recency (blocking: a thread's)."""
        w = replace(self.weights, top_k=limit or self.weights.top_k, exclude=self.weights.exclude | without) \
            if limit or without else self.weights
        if self.store.scores_in_python or thoughts_split(w.ablate):
            # qdrant-client's local mode, or some thoughts ablated (not a kind Qdrant can filter): one
            # brute-force scan, scored here over what is reachable
            every = self.store.nearest(npc_id, vector, self.store.count(npc_id) + PREFETCH_SLACK, kind, w.exclude)
            return score([c for c in every if not unreachable_thought(c.node, w.ablate)], now, query, w)
        span = self.store.span(npc_id, vector, kind, w.exclude)
        if span is None:
            return []
        if span.last_accessed[1] > now.timestamp():  # accessed after now (a clock set back): scored here
            return score(self.store.nearest(npc_id, vector, span.count + PREFETCH_SLACK, kind, w.exclude), now,
                         query, w, span)
        best = self.store.top_scored(npc_id, vector, formula(span, now, w), w.top_k, span.count, kind, w.exclude)
        return score(best, now, query, w, span)


def queue_for_rating(npc: NpcState, unrated: Sequence[MemoryNode], now: datetime) -> None:
    """Note newly stored observations whose importance is still provisional.

    The paper rates each observation as it arrives: one call per event. Queued and rated together
    (`rating_due`, then `MemoryStream.rate_stored`) they get the same ratings for a fraction of
    the calls, and no decision waits for them; reflection counts a node once its rating is known."""
    if unrated and not npc.unrated_ids:
        npc.unrated_since = now
    npc.unrated_ids.extend(n.id for n in unrated)


def rating_due(npc: NpcState, now: datetime, *, batch: int, wait: timedelta) -> bool:
    """Whether `batch` observations wait for their rating, or the oldest has waited `wait` of game time."""
    return bool(npc.unrated_ids) and (len(npc.unrated_ids) >= batch or now - (npc.unrated_since or now) >= wait)


def _rating_key(npc_id: str, node: MemoryNode) -> tuple[str, str]:
    return npc_id, node.description.strip().lower()


def _trivial(node: MemoryNode) -> bool:
    return node.object.strip().lower() in TRIVIAL_PREDICATES or node.description.strip().lower().endswith(" is idle")


def bullet_list(records: Sequence[RetrievedRecord], limit: int = 15) -> Bullets:
    """Retrieved memories as prompt lines (`memory_line`), oldest first so the story
    reads forward; over the prompt budget the lowest-scored go first (budget.py), never the newest by
    position. One seen doing the same thing is listed once (`distinct`)."""
    chosen = sorted(distinct(records)[:limit], key=lambda r: r.node.created)
    return Bullets([Item(memory_line(r.node), (r.score, r.node.created.timestamp())) for r in chosen])


_STEP = re.compile(r"\s*\([^()]*\)\s*$")  # an action's step: "is having breakfast (washing up)"


def _said(node: MemoryNode) -> str:
    """A memory as a prompt would list it, to tell two kept alike (the same chat seen and kept by
    two of its parts) apart from two memories: blind35's writer saw the same line twice in 61 reactions."""
    return f"{node.created:%Y-%m-%d %H:%M} {node.description}"


def distinct(records: Sequence[RetrievedRecord]) -> list[RetrievedRecord]:
    """`records` in their order, each observation of an activity after its first left out: an
    action is observed at its start, at each step and at its end ("is having breakfast (starting:
    having breakfast)", "is having breakfast", "... (finishing: having breakfast)"), and in the
    requests captured for blind17 a conversation's eleven memories held five lines of the speaker's
    own two activities (issue 42: memories crowded with the NPC's own doings). A thing's state of
    little importance is left out too (`mundane_thing`), a memory kept twice alike is listed once, and
    two seen chatting where the list holds what they said (`_talked`): of 12,137 memory lines in the
    prompts captured at stop 113, 2,073 were "A is chatting with B", most beside A's conversation with B
    itself and B's "B is chatting with A" (blind36's writer: one talk listed three and four times)."""
    seen: set[str] = set()
    talked = {pair for r in records if (pair := _talked(r.node))}
    kept = []
    for r in records:
        if mundane_thing(r.node) or (said := _said(r.node)) in seen or _chatting(r.node) in talked:
            continue
        seen.add(said)
        if r.node.kind is MemoryKind.OBSERVATION:
            activity = _STEP.sub("", r.node.description.strip()).lower()
            if activity in seen:
                continue
            seen.add(activity)
        kept.append(r)
    return kept


def _talked(node: MemoryNode) -> frozenset[str] | None:
    """The two whose conversation `node` keeps (its lines, or the memo of it), else None."""
    if node.kind is MemoryKind.CHAT:
        return frozenset((node.subject, node.object))
    partner = node.object.removeprefix(MEMO_OF) if node.kind is MemoryKind.THOUGHT else node.object
    return frozenset((node.subject, partner)) if partner != node.object else None


def _chatting(node: MemoryNode) -> frozenset[str] | None:
    """The two an observation sees chatting ("Bo Tamm is chatting with Ann Lee"), else None."""
    match = _CHATTING.match(node.description.strip()) if node.kind is MemoryKind.OBSERVATION else None
    return frozenset((match["one"], match["other"])) if match else None


MEMO_OF = "the conversation with "  # what a conversation's memo is of, before the partner's name
_CHATTING = re.compile(r"(?P<one>.+?) is (?:chatting|talking) (?:with|to) (?P<other>.+?)(?:\s*\([^()]*\))?$")
THING_SHOWN_FROM = 4  # a thing's state rated below this is not listed in a prompt's memories


def mundane_thing(node: MemoryNode) -> bool:
    """Whether a memory is a thing's state of little importance ("bed is in use", "benches is in use":
    what someone's action gives it, rated 1-2): 3,331 of 21,946 memory lines in the prompts captured at
    stop 108 were such, crowding the news out of conversations and reflections (blind34's writer). A
    state that matters ("the well has run dry", rated higher) is listed; the memories keep them all."""
    return node.kind is MemoryKind.OBSERVATION and SEPARATOR in node.subject and node.importance < THING_SHOWN_FROM


def about_them(node: MemoryNode, people: Sequence[str]) -> bool:
    """Whether a memory is about one of `people`, as the paper's reaction retrieves the memories
    whose keywords name the one observed: it names them (whole, or as they are called), and it is
    not one of the NPC's own plans (a day's schedule says what it does, not who they are)."""
    text = f"{node.description} {node.object}"
    return node.kind is not MemoryKind.PLAN and any(says_name(text, person) for person in people)


def memory_line(node: MemoryNode) -> str:
    """A memory as every prompt lists it: led by the day and time it was made, in the prompts' form
    for dates, so that yesterday's dinner is not read as today's; a remembered conversation's lines
    joined into one, so that it reads as a memory, not as the conversation under way (blind9 took a
    host's telling remembered from an earlier talk as said in the one it was in, and told nobody else;
    a numbered reflection statement is one line). Its relative days are said by their dates alone
    (`dates_alone`), true on any day it is read: "tomorrow (Wednesday August 12)" read on the 12th
    passed news on a day late (blind34's writer), and said from the day it was read it put "today" in
    the mouth of one quoted the day before (blind35's writer)."""
    text = dates_alone(_FOLD.sub(" / ", _LEAD.sub(": ", node.description.strip())))
    return f"[{node.created:%A %B} {node.created.day}, {node.created:%H:%M}] {text}"
