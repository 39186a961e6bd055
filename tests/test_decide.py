"""One Decide, one orchestration (issue 41): lockstep and background thinking run the same
`Mind.decide` around the same pure `decide.answer`, which touches nothing of the mind's, and
forgetting one NPC waits for that NPC's work only."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path
import threading

import pytest

from brain_server.api.service import BrainCore
from brain_server.cognition import mind as mind_module
from brain_server.cognition.decide import Ask, View
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.mind import Mind
from brain_server.cognition.retrieve import RetrievalWeights
from brain_server.config import Settings
from brain_server.llm.client import LLM
from brain_server.prompts import PromptLibrary
from npc_brain.v1 import brain_pb2 as pb
from tests.test_mind import klaus
from tests.test_untrusted_races import request
from tests.town import spawn_json, world_json
from tests.waits import wait_until_async

DECIDE = Path(__file__).resolve().parent.parent / "brain_server" / "cognition" / "decide.py"
# What decide.py may import: data models and pure helpers, none of which holds the mind's state.
PURE = {"brain_server.cognition.perceive", "brain_server.cognition.offline.routine", "brain_server.cognition.runtime",
        "brain_server.cognition.steps", "brain_server.model.npc", "brain_server.model.trace", "brain_server.model.world_index",
        "collections.abc", "dataclasses", "datetime", "structlog", "__future__"}
# Modules whose objects are the mind's shared state: never imported by decide.py.
STATEFUL = ("brain_server.persistence.records", "brain_server.runtime.foreground", "brain_server.cognition.mind",
            "brain_server.cognition.thinking", "brain_server.cognition.work", "brain_server.cognition.attention",
            "brain_server.cognition.chats", "brain_server.cognition.senses", "brain_server.cognition.player_talk",
            "brain_server.llm", "brain_server.persistence.storage", "brain_server.api.service")
NINE = "2026-02-13T09:00:00Z"


def test_decide_imports_no_module_with_shared_state() -> None:
    tree = ast.parse(DECIDE.read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert imported <= PURE, f"decide.py imports {sorted(imported - PURE)}: only data models and pure helpers"
    assert not [m for m in imported if m.startswith(STATEFUL)]
    # Nothing mutable at module level either: constants, types and functions only.
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            value = node.value
            assert not isinstance(value, ast.Dict | ast.List | ast.Set | ast.DictComp | ast.ListComp | ast.SetComp), \
                ast.unparse(node)
    # The View and the Ask are frozen: a published view cannot be changed by whoever reads it.
    assert View.__dataclass_params__.frozen and Ask.__dataclass_params__.frozen  # type: ignore[attr-defined]


@pytest.mark.slow
def test_lockstep_and_background_run_the_same_decide(run, tmp_path, monkeypatch) -> None:
    """Through the core's Decide RPC, in both modes: `decide.answer` makes every answer (on the
    transports' thread in the background, on the mind's loop in lockstep) and `Mind.recorded`
    brings every one into the mind, always on the mind's loop."""
    answered: list[tuple[bool, int]] = []
    recorded: list[tuple[bool, int]] = []
    real_answer, real_recorded = mind_module.answer, Mind.recorded

    def counted_answer(view, ask):
        answered.append((mode[0], threading.get_ident()))
        return real_answer(view, ask)

    async def counted_recorded(self, decided):
        recorded.append((mode[0], threading.get_ident()))
        await real_recorded(self, decided)

    monkeypatch.setattr(mind_module, "answer", counted_answer)
    monkeypatch.setattr(Mind, "recorded", counted_recorded)
    mode = [False]

    async def scenario(stream: MemoryStream) -> None:
        mind_thread = threading.get_ident()
        for background in (False, True):
            mode[0] = background
            core = BrainCore(Settings(data_dir=tmp_path / f"b{background}", background_thinking=background,
                                      prepare_ahead_minutes=0), stream)
            await core.register_world(request(pb.RegisterWorldRequest, world_json()))
            await core.spawn_npc(request(pb.SpawnNpcRequest, spawn_json()))
            decide = request(pb.DecideRequest, {"npcId": "isabella", "gameTime": NINE})
            if not background:  # lockstep: the Decide runs on the mind's loop
                answer = await core.decide(decide)
            else:  # the transports' own thread and loop, as a server runs it
                answer = await asyncio.to_thread(asyncio.run, core.decide(decide))
                await wait_until_async(lambda: len(recorded) == 2, what="the Decide recorded on the mind's loop")
            assert answer.action.description
            await core.close()
        transport = answered[1][1]
        assert transport != mind_thread
        assert answered == [(False, mind_thread), (True, transport)]
        assert recorded == [(False, mind_thread), (True, mind_thread)]

    run(scenario)


@pytest.mark.slow
def test_resetting_one_npc_waits_only_for_its_own_work(fake_llm, store, minilm, tmp_path) -> None:
    """Klaus's memo of a talk waits 8 s on the model; ResetNpc of Isabella answers before it lands
    (before: it waited for every NPC's work, 8.3 s)."""
    summary = "Sam said goodbye at once."
    fake_llm.queue({"json": {"utterance": "Goodbye!", "end_conversation": True}}, purpose="converse_turn")
    fake_llm.queue({"delay_s": 8, "json": {"summary": summary, "importance": 3, "plan_activity": "",
                                           "plan_start": "", "plan_minutes": 0}}, purpose="conversation_memo")

    async def main() -> list[str]:
        llm = LLM(base_url=fake_llm.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(),
                  max_attempts=1, backoff_s=0.01, timeout_s=60.0)
        core = BrainCore(Settings(data_dir=tmp_path, prepare_ahead_minutes=0),  # background thinking
                         MemoryStream(store, minilm, llm, RetrievalWeights()))
        await core.register_world(request(pb.RegisterWorldRequest, world_json()))
        for npc in (spawn_json(), klaus()):
            await core.spawn_npc(request(pb.SpawnNpcRequest, npc))

        def memo_landed() -> bool:
            return any(summary in n.description for n in store.latest("klaus", 20, None))

        order: list[str] = []
        try:
            await core.talk(request(pb.TalkRequest, {"npcId": "klaus", "speakerName": "Sam", "text": "Bye!",
                                                     "gameTime": NINE}))
            await wait_until_async(lambda: len(fake_llm.chat_requests("conversation_memo")) == 1,
                                   what="Klaus's memo with the model")
            await core.reset_npc(pb.ResetNpcRequest(npc_id="isabella"))
            order += [*(["memo"] if memo_landed() else []), "reset"]  # what had finished when the reset answered
            await wait_until_async(memo_landed, what="Klaus's memo landed", limit_s=60)
            order += [] if "memo" in order else ["memo"]
        finally:
            await core.close()
            await llm.close()
        return order

    assert asyncio.run(main()) == ["reset", "memo"]
