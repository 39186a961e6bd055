"""`npc-lab bench embedded`: how often the embedded SmolLM2-135M answers each prompt the brain
uses in the game loop, and how long it takes.

The model is started as `serve` starts it (`EmbeddedLLM.from_settings`: llama.cpp, one thread,
loopback) and asked through the brain's own client (`LLM.complete`: response mode json_schema,
`LLM_MAX_ATTEMPTS` attempts, `LLM_TIMEOUT_S` each, the prompts in `PROMPTS_DIR` if set; no
purpose left to its fallback) by the real cognition functions, on an in-process memory stream
(embedded Qdrant in a temporary folder, the local MiniLM) seeded afresh for each purpose with a
morning of memories of two Ville residents, Isabella Rodriguez and Klaus Mueller, on the first
day of the party scenario. Samples alternate between the two and vary the moment (the block to
decompose, the activity to place, the question asked), so a purpose's count is not one prompt
asked N times.

Each call is counted as valid on the first attempt, valid after retries, or fallen back; with
its latency (all attempts), prompt and completion tokens, and the first errors seen. A valid
answer is also checked for being usable, since a constrained decoder makes any model's answer
valid JSON (`usable`): its texts read as words and are not copied from the prompt's examples,
and a place chosen for an activity is the one kind of place that suits it. A lenient check: it
catches copies and placeholders, not nonsense.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
import json
from pathlib import Path
import re
import statistics
import tempfile
import time
from typing import Any

PURPOSES = ("importance_batch", "importance", "daily_plan", "revise_currently", "decompose", "react", "replan",
            "relationship", "converse_turn", "conversation_memo", "choose_address", "reflection_questions",
            "reflection_insights", "interview")
HOST, GUEST = "isabella_rodriguez", "klaus_mueller"
DAY = datetime(2026, 2, 13, tzinfo=UTC)  # the party scenario's first day, a Friday

# A morning of memories per resident: (minutes after 06:00, kind, description, importance).
SEEDS = {
    HOST: [
        (0, "thought", "Isabella Rodriguez wants to throw a Valentine's Day party at Hobbs Cafe on February 14 "
                       "from 5 pm to 7 pm, and to invite as many of her customers and friends as she can.", 8),
        (90, "observation", "Hobbs Cafe is open and the coffee machine is brewing", 2),
        (120, "observation", "Maria Lopez is wiping the cafe tables", 2),
        (150, "observation", "Klaus Mueller is reading at a cafe table", 3),
        (155, "chat", "conversation with Klaus Mueller:\nIsabella Rodriguez: \"Morning, Klaus! The usual?\"\n"
                      "Klaus Mueller: \"Yes please. I have a chapter due to Mei Lin next week.\"", 4),
        (160, "thought", "Klaus Mueller is a regular who works on his thesis at the cafe most mornings", 4),
        (170, "observation", "Arthur Burton is walking past Hobbs Cafe", 2),
        (180, "plan", "Isabella Rodriguez's plan for Friday February 13: open the cafe at 8; serve the morning "
                      "regulars; bake pastries for the party; invite customers to the party", 5),
    ],
    GUEST: [
        (60, "observation", "Maria Lopez is making coffee in the dorm kitchen", 2),
        (70, "chat", "conversation with Maria Lopez:\nMaria Lopez: \"Going to the cafe later?\"\n"
                     "Klaus Mueller: \"Probably, I work better there than in the library.\"", 3),
        (100, "thought", "Klaus Mueller has a chapter due to Mei Lin next week and is behind on it", 6),
        (150, "observation", "Isabella Rodriguez is serving coffee behind the cafe counter", 2),
        (155, "chat", "conversation with Isabella Rodriguez:\nIsabella Rodriguez: \"Morning, Klaus! The usual?\"\n"
                      "Klaus Mueller: \"Yes please. I have a chapter due to Mei Lin next week.\"", 4),
        (165, "observation", "the bulletin board at Hobbs Cafe shows a poster for a spring concert", 2),
        (175, "thought", "Klaus Mueller thinks cafes like Hobbs Cafe are where the Ville's friendships are made", 5),
    ],
}
# Each resident's day as a plan would have it: (HH:MM, minutes, activity, emoji, arena under the world).
DAYS = {
    HOST: [("06:00", 60, "getting ready for the day", "🪥", "Isabella Rodriguez's apartment:main room"),
           ("07:00", 60, "opening Hobbs Cafe", "🔑", "Hobbs Cafe:cafe"),
           ("08:00", 240, "serving customers at the cafe", "☕", "Hobbs Cafe:cafe"),
           ("12:00", 60, "having lunch", "🥪", "Hobbs Cafe:cafe kitchen"),
           ("13:00", 120, "baking pastries for the party", "🥐", "Hobbs Cafe:cafe kitchen"),
           ("15:00", 300, "serving customers at the cafe", "☕", "Hobbs Cafe:cafe"),
           ("20:00", 60, "having dinner", "🍲", "Isabella Rodriguez's apartment:kitchen"),
           ("21:00", 120, "reading at home", "📖", "Isabella Rodriguez's apartment:main room"),
           ("23:00", 420, "sleeping", "😴", "Isabella Rodriguez's apartment:main room")],
    GUEST: [("07:00", 60, "getting ready for the day", "🪥", "Dorm for Oak Hill College:Klaus Mueller's room"),
            ("08:00", 60, "having breakfast", "🍳", "Dorm for Oak Hill College:kitchen"),
            ("09:00", 180, "writing his thesis chapter at the cafe", "📝", "Hobbs Cafe:cafe"),
            ("12:00", 60, "having lunch", "🥪", "Hobbs Cafe:cafe"),
            ("13:00", 240, "researching in the library", "📚", "Oak Hill College:library"),
            ("17:00", 60, "meeting Mei Lin about his thesis", "🧑‍🏫", "Oak Hill College:faculty office"),
            ("18:00", 60, "having dinner", "🍲", "Dorm for Oak Hill College:kitchen"),
            ("19:00", 240, "reading in the common room", "📖", "Dorm for Oak Hill College:common room"),
            ("23:00", 480, "sleeping", "😴", "Dorm for Oak Hill College:Klaus Mueller's room")],
}
SEEN = {HOST: "Klaus Mueller is reading at a cafe table", GUEST: "Isabella Rodriguez is serving coffee at the counter"}
REASONS = {HOST: "Isabella Rodriguez decided to invite Klaus Mueller to the Valentine's Day party in person",
           GUEST: "Klaus Mueller heard that the library closes early today"}
DIALOGUE = [(HOST, "Klaus! I'm throwing a Valentine's Day party here tomorrow from 5 to 7 pm. Will you come?"),
            (GUEST, "A party at the cafe? That sounds great. I'll come after my meeting with Mei Lin."),
            (HOST, "Wonderful! Bring Maria too, if she's free."),
            (GUEST, "I'll ask her. See you tomorrow at five, then.")]
# Activities to place, each with the word of the one kind of place that suits it among those both residents know.
ACTIVITIES = [("buying groceries", "store"), ("borrowing a book", "library"), ("having a coffee with a friend", "cafe"),
              ("taking a walk", "park"), ("having a pint", "pub")]
QUESTIONS = ["What are you working on these days?", "Do you know about a Valentine's Day party?",
             "Who do you know at Hobbs Cafe?", "What did you do this morning?"]
REFLECTION_QUESTIONS = ["How does {name} feel about the people at Hobbs Cafe?",
                        "What matters most to {name} this week?"]
PERCEIVED = ["Maria Lopez is carrying a tray of cups", "the pastry case is almost empty", "Ryan Park is ordering a "
             "latte", "Giorgio Rossi is reading the bulletin board", "Arthur Burton is waving from the street",
             "the coffee machine is out of milk"]


@dataclass
class Town:
    """What every sample needs: the memory stream, the world and the two residents as the brain keeps them."""

    stream: Any
    world: Any
    objects: dict[str, list[str]]
    npcs: dict[str, Any]

    def other(self, npc_id: str) -> Any:
        return self.npcs[GUEST if npc_id == HOST else HOST]

    def places(self, npc: Any) -> list[str]:
        """The arenas a plan may send the NPC to, as the mind gives them (known and not private)."""
        from brain_server.cognition.locate import accessible_places

        return accessible_places(self.world, npc).arena_addresses()

    def fresh_stream(self) -> Any:
        """The same store and client without the rating cache (a rating asked twice would not be asked)."""
        from brain_server.cognition.memory_stream import MemoryStream

        return MemoryStream(self.stream.store, self.stream.embedder, self.stream.llm, self.stream.weights)


def at(clock: str, day: datetime = DAY) -> datetime:
    hours, minutes = clock.split(":")
    return day + timedelta(hours=int(hours), minutes=int(minutes))


def work(npc: Any) -> Any:
    """What each sample's completions are for: a plan needed now, as a town's own would wait."""
    from brain_server.llm.scheduler import Priority, Work

    return Work(Priority.PLAN_NOW, npc.npc_id)


def planned(npc: Any, day: datetime) -> Any:
    """A copy of the NPC with its usual day (DAYS) planned for `day`."""
    from brain_server.model.npc import PlanItem

    copy = npc.model_copy(deep=True)
    world = npc.world_name
    copy.plan = [PlanItem(start=at(clock, day), duration_minutes=minutes, activity=activity, emoji=emoji,
                          address=f"{world}:{arena}") for clock, minutes, activity, emoji, arena in DAYS[npc.npc_id]]
    copy.plan_day, copy.wake_up_hour = day.date(), copy.plan[0].start.hour
    return copy


# --- one sample per purpose: the real cognition function, with its own trace -----------------------


Sample = Callable[[Town, Any, int, Any], Awaitable[None]]


async def _importance_batch(town: Town, npc: Any, i: int, trace: Any) -> None:
    await _rate(town, npc, i, trace, PERCEIVED[i % 3: i % 3 + 4])


async def _importance(town: Town, npc: Any, i: int, trace: Any) -> None:
    await _rate(town, npc, i, trace, [PERCEIVED[i % len(PERCEIVED)]])


async def _rate(town: Town, npc: Any, i: int, trace: Any, seen: list[str]) -> None:
    from brain_server.cognition.perceive import Attention, PerceivedEvent, attend

    now = at("10:00") + timedelta(minutes=i)
    events = [PerceivedEvent(text.split(" is ")[0], "is", text, text, npc.address, 2.0) for text in seen]
    nodes, _ = attend(npc.npc_id, events, [], now, Attention(8, 8))
    stream = town.fresh_stream()
    _, unrated = await stream.remember_unrated(npc.npc_id, npc.persona, nodes, trace)
    await stream.rate_stored(npc.npc_id, npc.persona, [n.id for n in unrated], trace, work(npc))


async def _daily_plan(town: Town, npc: Any, i: int, trace: Any) -> None:
    from brain_server.cognition.plan import plan_day

    await plan_day(npc.model_copy(deep=True), at("06:00"), town.stream, trace, work=work(npc), places=town.places(npc))


async def _revise_currently(town: Town, npc: Any, i: int, trace: Any) -> None:
    from brain_server.cognition.status import revise_currently

    await revise_currently(planned(npc, DAY - timedelta(days=1)), at("06:00"), town.stream, trace, work=work(npc))


async def _decompose(town: Town, npc: Any, i: int, trace: Any) -> None:
    from brain_server.cognition.steps import decompose_upcoming

    draft = planned(npc, DAY)
    blocks = draft.plan[1:-1]  # not getting ready, not sleep
    block = blocks[i // 2 % len(blocks)]
    await decompose_upcoming(draft, block.start + timedelta(minutes=1), town.stream, trace, work=work(npc),
                             horizon_minutes=0, objects=town.objects)


async def _react(town: Town, npc: Any, i: int, trace: Any) -> None:
    from brain_server.cognition.react import decide_reaction
    from brain_server.cognition.steps import action_now
    from brain_server.model.memory import MemoryKind, MemoryNode

    now = at("10:30")
    other = town.other(npc.npc_id).persona.name
    observation = MemoryNode(npc_id=npc.npc_id, kind=MemoryKind.OBSERVATION, description=SEEN[npc.npc_id],
                             subject=other, predicate="is", object=SEEN[npc.npc_id], importance=3, created=now,
                             last_accessed=now)
    draft = planned(npc, DAY)
    draft.action = action_now(draft, now, "plan")
    await decide_reaction(draft, observation, now, i % 2 == 0, town.stream, trace, work=work(npc))


async def _replan(town: Town, npc: Any, i: int, trace: Any) -> None:
    from brain_server.cognition.plan import replan_from

    await replan_from(planned(npc, DAY), at("10:30"), REASONS[npc.npc_id], town.stream, trace,
                      work=work(npc), places=town.places(npc))


async def _relationship(town: Town, npc: Any, i: int, trace: Any) -> None:
    from brain_server.cognition.converse import relationship
    from brain_server.cognition.speaker import Speaker

    await relationship(Speaker(npc.npc_id, npc.persona), town.other(npc.npc_id).persona.name, at("10:30"),
                       town.stream, trace, work=work(npc))


def _lines(count: int) -> list[Any]:
    from brain_server.model.npc import DialogueLine

    return [DialogueLine(speaker_npc_id=who, speaker_name="Isabella Rodriguez" if who == HOST else "Klaus Mueller",
                         text=text) for who, text in DIALOGUE[:count]]


async def _converse_turn(town: Town, npc: Any, i: int, trace: Any) -> None:
    from brain_server.cognition.converse import next_line
    from brain_server.cognition.speaker import Speaker

    # The host opens (no lines yet) or answers after the guest's line; the guest answers the host.
    count = (i // 2 % 2) * 2 if npc.npc_id == HOST else 1 + (i // 2 % 2) * 2
    other = town.other(npc.npc_id).persona.name
    view = (f"{other} is a regular at Hobbs Cafe whom {npc.persona.name} likes.", "")
    await next_line(Speaker(npc.npc_id, npc.persona), other, view, _lines(count), at("10:30"), "Hobbs Cafe",
                    town.stream, trace, work=work(npc))


async def _conversation_memo(town: Town, npc: Any, i: int, trace: Any) -> None:
    from brain_server.cognition.converse import remember_conversation

    await remember_conversation(npc, town.other(npc.npc_id).persona.name, _lines(2 + i // 2 % 3), at("10:30"),
                                town.stream, trace, work=work(npc))


async def _choose_address(town: Town, npc: Any, i: int, trace: Any) -> None:
    from brain_server.cognition.locate import choose_address

    draft = npc.model_copy(deep=True)
    draft.address = draft.persona.home if i // 2 % 2 else f"{draft.world_name}:Hobbs Cafe:cafe"
    await choose_address(ACTIVITIES[i // 2 % len(ACTIVITIES)][0], draft, town.world, town.stream.llm, trace,
                         work=work(npc))


async def _reflection_questions(town: Town, npc: Any, i: int, trace: Any) -> None:
    from brain_server.cognition.reflect import ask_questions

    recent = await asyncio.to_thread(town.stream.store.latest, npc.npc_id, 100)
    await ask_questions(npc, recent, town.stream, trace, work=work(npc))


async def _reflection_insights(town: Town, npc: Any, i: int, trace: Any) -> None:
    from brain_server.cognition.reflect import draw_insights

    questions = [q.format(name=npc.persona.name) for q in REFLECTION_QUESTIONS]
    await draw_insights(npc, questions, at("11:00"), town.stream, trace, work=work(npc))


async def _interview(town: Town, npc: Any, i: int, trace: Any) -> None:
    from brain_server.cognition.converse import answer_interview

    await answer_interview(npc.npc_id, npc.persona, QUESTIONS[i // 2 % len(QUESTIONS)], at("11:00"), town.stream,
                           trace, work=work(npc))


SAMPLES: dict[str, Sample] = {
    "importance_batch": _importance_batch, "importance": _importance, "daily_plan": _daily_plan,
    "revise_currently": _revise_currently, "decompose": _decompose, "react": _react, "replan": _replan,
    "relationship": _relationship, "converse_turn": _converse_turn, "conversation_memo": _conversation_memo,
    "choose_address": _choose_address, "reflection_questions": _reflection_questions,
    "reflection_insights": _reflection_insights, "interview": _interview,
}


# --- usable answers: the texts the brain uses read as words ------------------------------------------


def _reads(text: str, least: int = 2) -> bool:
    return len(re.findall(r"[A-Za-z]{2,}", text)) >= least


def _texts(purpose: str, answer: dict[str, Any]) -> list[tuple[str, int]]:
    """The texts of an answer the brain uses, with the least words each should have."""
    if purpose == "daily_plan":
        return [(o, 2) for o in answer["outline"]] + [(b["activity"], 2) for b in answer["blocks"]]
    if purpose in ("decompose", "replan"):
        return [(b["activity"], 1 if purpose == "decompose" else 2) for b in answer.get("steps") or answer["new_blocks"]]
    if purpose == "react":  # the choice is the decision; what instead only matters for "react"
        return [(answer["new_activity"], 2)] if answer["choice"] == "react" else []
    if purpose == "conversation_memo":
        return [(answer["summary"], 5)] + ([(answer["plan_activity"], 2)] if answer["plan_minutes"] else [])
    if purpose == "reflection_questions":
        return [(q, 4) for q in answer["questions"]]
    if purpose == "reflection_insights":
        return [(i["insight"], 4) for i in answer["insights"]]
    field = {"revise_currently": ("currently", 5), "relationship": ("summary", 5), "converse_turn": ("utterance", 3),
             "interview": ("answer", 3)}.get(purpose)
    return [(answer[field[0]], field[1])] if field else []


def usable(purpose: str, parsed: str, i: int, template: str) -> bool:
    """Whether a valid answer is one the brain can use: its texts read as words and are not copied
    from the prompt's own examples or answer shape ("...", "frying eggs", "<a question>"); an
    activity is not an address or a clock time; ratings are not the numbers 1, 2, 3... of the list;
    a place chosen for an activity is the kind of place that suits it."""
    answer = json.loads(parsed)
    if purpose == "choose_address":
        return ACTIVITIES[i // 2 % len(ACTIVITIES)][1] in answer["place"]["arena"]
    if purpose == "importance_batch":
        return len(answer["ratings"]) < 3 or answer["ratings"] != list(range(1, len(answer["ratings"]) + 1))
    shown = {q.lower() for q in re.findall(r'"([^"$]+)"', template)}
    places = purpose in ("daily_plan", "decompose", "replan")
    return all(_reads(text, least) and text.strip().lower() not in shown and "<" not in text and "..." not in text
               and not (places and re.search(r"\w:\w", text)) for text, least in _texts(purpose, answer))


# --- setting up and measuring ---------------------------------------------------------------------


async def _town(stream: Any) -> Town:
    from brain_server.model.memory import MemoryKind, MemoryNode
    from brain_server.model.npc import NpcState
    from brain_server.model.world import arena_of
    from brain_server.model.world_index import WorldIndex
    from npc_lab import residents as loaders

    layout = loaders.load_town_layout(loaders.TOWN_LAYOUT_PATH)
    world = layout.world
    people = {r.npc_id: r for r in loaders.load_residents(loaders.RESIDENTS_DIR)}
    npcs = {}
    for npc_id in (HOST, GUEST):
        persona = people[npc_id].persona(world.name)
        known = sorted({arena_of(a) for a in (persona.home, *persona.known_areas)})
        npcs[npc_id] = NpcState(npc_id=npc_id, world_name=world.name, persona=persona, address=persona.home,
                                known_addresses=known)
        nodes = [MemoryNode(npc_id=npc_id, kind=MemoryKind(kind), description=text, subject=persona.name,
                            predicate="remembers", object=text[:80], importance=importance,
                            created=at("06:00") + timedelta(minutes=minutes),
                            last_accessed=at("06:00") + timedelta(minutes=minutes))
                 for minutes, kind, text, importance in SEEDS[npc_id]]
        await stream.remember(npc_id, persona, nodes, None, rate=False)
    return Town(stream, world, WorldIndex(world).objects, npcs)


def summarise(calls: list[dict[str, Any]]) -> dict[str, Any]:
    first = sum(1 for c in calls if not c["fallback"] and c["attempts"] == 1)
    retried = sum(1 for c in calls if not c["fallback"] and c["attempts"] > 1)
    fallback = sum(1 for c in calls if c["fallback"])
    good = sum(1 for c in calls if c["usable"])

    def median(key: str) -> float:
        return statistics.median(c[key] for c in calls) if calls else 0.0

    errors = list(dict.fromkeys(e.split(": ", 1)[1] for c in calls for e in c["errors"]))
    return {"calls": len(calls), "valid_first": first, "valid_after_retry": retried, "fallback": fallback,
            "valid_rate": (first + retried) / len(calls) if calls else 0.0, "usable": good,
            "usable_rate": good / len(calls) if calls else 0.0, "median_latency_s": median("latency_s"),
            "median_attempt_s": median("attempt_s"), "median_prompt_tokens": median("prompt_tokens"),
            "median_completion_tokens": median("completion_tokens"), "errors": errors[:5]}


async def measure(samples: int, purposes: list[str], data_dir: Path) -> dict[str, Any]:
    from brain_server.cognition.memory_stream import MemoryStream
    from brain_server.cognition.retrieve import RetrievalWeights
    from brain_server.config import Settings
    from brain_server.llm.client import LLM
    from brain_server.llm.embedded import EmbeddedLLM
    from brain_server.llm.embeddings import MiniLMEmbedder
    from brain_server.persistence.storage import open_store
    from brain_server.prompts import PromptLibrary

    settings = Settings()
    embedder = MiniLMEmbedder()
    embedded = await asyncio.to_thread(EmbeddedLLM.from_settings(settings).start)
    llm = LLM(base_url=embedded.base_url, model=embedded.model, api_key="not-needed",
              prompts=PromptLibrary(settings.prompts_dir), timeout_s=settings.llm_timeout_s,
              max_attempts=settings.llm_max_attempts)
    results: dict[str, Any] = {}
    try:
        for purpose in purposes:
            # Each purpose starts from the same seeded memories, whatever the purposes before it stored.
            store = open_store(Settings(data_dir=data_dir / purpose), embedder.dim)
            try:
                town = await _town(MemoryStream(store, embedder, llm, RetrievalWeights()))
                results[purpose] = await _measure(town, purpose, samples)
            finally:
                store.close()
            row = results[purpose]
            print(f"{purpose}: {row['valid_first']} valid, {row['valid_after_retry']} after retries, "
                  f"{row['fallback']} fallbacks of {row['calls']}, {row['usable']} usable; "
                  f"median {row['median_latency_s']:.1f} s", flush=True)
    finally:
        await llm.close()
        await asyncio.to_thread(embedded.stop)
    return {"model": embedded.model, "threads": settings.embedded_llm_threads,
            "max_attempts": settings.llm_max_attempts, "timeout_s": settings.llm_timeout_s, "samples": samples,
            "purposes": results}


async def _measure(town: Town, purpose: str, samples: int) -> dict[str, Any]:
    from brain_server.model.trace import Trace

    calls: list[dict[str, Any]] = []
    template = town.stream.llm.prompts.template(purpose).template
    started = time.perf_counter()
    for i in range(samples):
        npc = town.npcs[HOST if i % 2 == 0 else GUEST]
        trace = Trace(npc_id=npc.npc_id, kind="bench", game_time=at("10:00"))
        await SAMPLES[purpose](town, npc, i, trace)
        for record in (r for r in trace.llm_calls if r.purpose == purpose):
            calls.append({"npc_id": npc.npc_id, "attempts": record.attempts, "fallback": record.fallback_used,
                          "latency_s": record.latency_ms / 1000,
                          "attempt_s": record.latency_ms / 1000 / max(record.attempts, 1),
                          "prompt_tokens": record.prompt_tokens, "completion_tokens": record.completion_tokens,
                          "errors": record.errors, "answer": record.raw_completion,
                          "usable": not record.fallback_used and usable(purpose, record.parsed_json, i, template)})
    return {**summarise(calls), "wall_s": time.perf_counter() - started, "samples": calls}


def table(result: dict[str, Any]) -> list[list[Any]]:
    rows = []
    for purpose, r in result["purposes"].items():
        rows.append([purpose, r["calls"], r["valid_first"], r["valid_after_retry"], r["fallback"],
                     f"{r['valid_rate']:.0%}", f"{r['usable_rate']:.0%}", f"{r['median_latency_s']:.1f}", f"{r['median_attempt_s']:.1f}",
                     f"{r['median_prompt_tokens']:.0f}", f"{r['median_completion_tokens']:.0f}"])
    return rows


HEADERS = ["purpose", "calls", "valid 1st", "valid retried", "fallback", "valid", "usable", "median s", "s / attempt",
           "prompt tok", "completion tok"]


TALK = "talk"  # not a prompt: the player's Talk and interviews on composed lines (npc_lab/talk_bench.py)


def bench_embedded(args: argparse.Namespace) -> dict[str, Any]:
    from npc_lab.tables import markdown_table

    if args.purposes == [TALK]:
        from npc_lab.talk_bench import bench_talk

        return bench_talk(args)
    purposes = list(args.purposes or PURPOSES)
    unknown = set(purposes) - set(PURPOSES)
    if unknown:
        raise SystemExit(f"npc-lab bench embedded: unknown purposes {sorted(unknown)}; choose from {PURPOSES}, "
                         f"or {TALK} alone")
    with tempfile.TemporaryDirectory() as data_dir:
        result = asyncio.run(measure(args.samples, purposes, Path(data_dir)))
    print(markdown_table(HEADERS, table(result)))
    print(f"{result['model']} on llama.cpp, {result['threads']} thread(s), {result['max_attempts']} attempts of at "
          f"most {result['timeout_s']:.0f} s; tokens summed over a call's attempts")
    return result
