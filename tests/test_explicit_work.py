"""Context in plain sight (issue 41): what a completion is for travels as an argument (no
ContextVar carries the work or the streaming listener, a completion without its work is a
TypeError), dropped work is an ordinary exception that no fallback turns into an answer, and each
class of the mind is given the collaborators it uses (no `Parts` grab-bag reached through)."""

from __future__ import annotations

import ast
import asyncio
from datetime import UTC, datetime
from pathlib import Path

from google.protobuf import json_format
import pytest

from brain_server.cognition.memory_stream import MemoryStream
from brain_server.llm.scheduler import Priority, Work, WorkDropped
from brain_server.llm.streaming import Listener
from brain_server.model.errors import BrainError, Status
from brain_server.model.trace import Trace
from brain_server.prompts.converse_turn import PROMPT as TURN
from brain_server.prompts.converse_turn import spoken
from brain_server.prompts.importance import PROMPT as IMPORTANCE
from brain_server.prompts.importance import Importance
from npc_brain.v1 import brain_pb2 as pb
from npc_lab.fake_openai import FakeOpenAI
from tests.conftest import Run
from tests.test_llm import VARS, make_llm
from tests.test_untrusted_races import core_with_town

BRAIN = Path(__file__).resolve().parent.parent / "brain_server"
LOGGING = BRAIN / "runtime" / "logs.py"  # structlog's own binding of the npc and trace ids to each log line


def _context_vars(path: Path) -> list[str]:
    """Where a module imports contextvars or names a ContextVar."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import) and any(a.name == "contextvars" for a in node.names):
            found.append(f"{path.name}:{node.lineno}: import contextvars")
        elif isinstance(node, ast.ImportFrom) and node.module == "contextvars":
            found.append(f"{path.name}:{node.lineno}: from contextvars import ...")
        elif isinstance(node, ast.Name | ast.Attribute) and "ContextVar" in (getattr(node, "id", None),
                                                                              getattr(node, "attr", None)):
            found.append(f"{path.name}:{node.lineno}: ContextVar")
    return found


def test_no_context_var_of_ours_in_the_brain() -> None:
    found = [hit for path in sorted(BRAIN.rglob("*.py")) if path != LOGGING for hit in _context_vars(path)]
    assert found == [], "work and listeners are passed as arguments, not set in a ContextVar"


def test_the_check_finds_a_context_var(tmp_path: Path) -> None:
    module = tmp_path / "hidden.py"
    module.write_text("from contextvars import ContextVar\n_work: ContextVar[int] = ContextVar('w')\n")
    assert len(_context_vars(module)) == 3


def _reach_throughs(path: Path) -> list[str]:
    """Where a module reaches through a grab-bag of collaborators: `parts.x`, `x.parts` (of a name or
    an attribute: a path's `.parts`, read off a call, is pathlib's), a class Parts."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute) and (
                (node.attr == "parts" and isinstance(node.value, ast.Name | ast.Attribute)) or (
                isinstance(node.value, ast.Name) and node.value.id == "parts")):
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.ClassDef) and node.name == "Parts":
            found.append(f"{path.name}:{node.lineno}: class Parts")
    return found


def test_no_grab_bag_of_collaborators_is_reached_through() -> None:
    found = [hit for path in sorted(BRAIN.rglob("*.py")) for hit in _reach_throughs(path)]
    assert found == [], "each class takes the collaborators it uses as constructor arguments"


def test_the_check_finds_a_reach_through(tmp_path: Path) -> None:
    module = tmp_path / "bag.py"
    module.write_text("class Parts:\n    pass\n\ndef f(self, parts):\n    return parts.records, self.parts\n")
    assert len(_reach_throughs(module)) == 3


def _trace() -> Trace:
    return Trace(npc_id="isabella", kind="decide", game_time=datetime(2026, 2, 13, tzinfo=UTC))


def test_a_completion_without_its_work_is_a_type_error(fake_llm: FakeOpenAI) -> None:
    llm = make_llm(fake_llm)
    with pytest.raises(TypeError, match="work"):
        asyncio.run(llm.complete(IMPORTANCE, VARS, npc_id="isabella",  # type: ignore[call-arg]  # the point
                                 fallback=lambda: Importance(importance=3)))
    assert fake_llm.chat_requests("importance") == []


def test_dropped_work_is_not_turned_into_a_fallback_answer(fake_llm: FakeOpenAI) -> None:
    """Work stale when its slot comes raises WorkDropped, an ordinary Exception that
    `LLM.complete`'s handler of endpoint trouble lets through: no fallback, no call counted."""
    llm, trace, fell_back = make_llm(fake_llm), _trace(), []

    def fallback() -> Importance:
        fell_back.append(True)
        return Importance(importance=3)

    async def ask() -> Importance:
        try:
            return await llm.complete(IMPORTANCE, VARS, npc_id="isabella", trace=trace, fallback=fallback,
                                      work=Work(Priority.BACKGROUND, "isabella", stale=lambda: True))
        finally:
            await llm.close()

    with pytest.raises(Exception) as raised:  # noqa: PT011 - what matters: an Exception, and which one
        asyncio.run(ask())
    assert isinstance(raised.value, WorkDropped) and "stale" in raised.value.reason
    assert fell_back == [] and trace.llm_calls == [] and fake_llm.chat_requests("importance") == []
    counter = llm.usage.counter("isabella", "importance")
    assert (counter.calls, counter.fallbacks) == (0, 0)
    assert llm.scheduler.stats[Priority.BACKGROUND].dropped_stale == 1


def test_the_work_given_is_the_class_that_waits(fake_llm: FakeOpenAI) -> None:
    llm = make_llm(fake_llm)

    async def ask() -> None:
        await llm.complete(IMPORTANCE, VARS, npc_id="isabella", fallback=lambda: Importance(importance=3),
                           work=Work(Priority.AHEAD, "isabella"))
        await llm.close()

    asyncio.run(ask())
    assert [r.served for r in llm.scheduler.report()] == [0, 0, 0, 1, 0]


def test_a_listener_hears_only_the_completion_it_was_given_for(fake_llm: FakeOpenAI) -> None:
    llm = make_llm(fake_llm)
    listener = Listener(TURN.purpose, lambda: spoken("Isabella Rodriguez"), lambda text: None)
    with pytest.raises(ValueError, match="converse_turn"):
        asyncio.run(llm.complete(IMPORTANCE, VARS, npc_id="isabella", fallback=lambda: Importance(importance=3),
                                 work=Work(Priority.PLAYER, "isabella"), listener=listener))


def test_a_players_line_the_scheduler_drops_answers_resource_exhausted(run: Run, tmp_path: Path) -> None:
    """Every slot busy and no room to wait: the Talk's completion is dropped, and the player is
    told so (RESOURCE_EXHAUSTED) rather than given a made-up line or an internal error."""

    async def scenario(stream: MemoryStream) -> tuple[Status, int]:
        core = await core_with_town(stream, tmp_path)
        scheduler, release = stream.llm.scheduler, asyncio.Event()
        scheduler.max_waiting = 0

        async def busy() -> None:
            async with scheduler.slot(Work(Priority.PLAYER, "someone")):
                await release.wait()

        holders = [asyncio.create_task(busy()) for _ in range(scheduler.slots + scheduler.player_reserve)]
        await asyncio.sleep(0)
        try:
            with pytest.raises(BrainError) as refused:
                await core.talk(json_format.ParseDict({"npcId": "isabella", "speakerName": "Ada", "text": "Hello!",
                                                       "gameTime": "2026-02-13T10:00:00Z"}, pb.TalkRequest()))
        finally:
            release.set()
            await asyncio.gather(*holders)
            await core.close()
        return refused.value.status, scheduler.stats[Priority.PLAYER].dropped_full

    status, dropped = run(scenario)
    assert status is Status.RESOURCE_EXHAUSTED and dropped >= 1
