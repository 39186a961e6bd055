"""Record a short sim's LLM completions against the fake endpoint, replay them with no endpoint at
all, and get the same actions; unrecorded requests fall back instead of failing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from brain_server.llm.recording import Recorder, ReplayServer, request_hash
from npc_lab.sim.runner import Sim
from tests.sim_town import config, small_town

pytestmark = pytest.mark.slow


def _actions(run: Path) -> list[tuple]:
    return [(a["npc_id"], a["game_time"], a["description"], a["address"], a.get("chatting_with", ""))
            for a in map(json.loads, (run / "actions.jsonl").read_text().splitlines())]


def test_replay_gives_the_recorded_run(fake_llm, tmp_path: Path) -> None:
    recording = tmp_path / "calls.jsonl"
    town, residents, scenario = small_town(hours=3)
    # One decision at a time, thinking before answering: the run is then a pure function of the answers.
    same = {"background_thinking": False}
    recorded = config(tmp_path / "rec", fake_llm.base_url, concurrency=1, tick_s=30,
                      settings={**same, "llm_record": recording})
    asyncio.run(Sim(town, residents, scenario, recorded).run())
    lines = [json.loads(x) for x in recording.read_text().splitlines()]
    assert len(lines) == len(fake_llm.chat_requests()) > 10
    assert {"purpose", "hash", "messages", "content", "prompt_tokens", "completion_tokens"} <= set(lines[0])

    fake_llm.stop()  # no endpoint from here on
    replayed = config(tmp_path / "rep", "http://127.0.0.1:9/v1", concurrency=1, tick_s=30,
                      settings={**same, "llm_replay": recording})
    asyncio.run(Sim(town, residents, scenario, replayed).run())
    assert _actions(tmp_path / "rep") == _actions(tmp_path / "rec")
    usage = [json.loads((tmp_path / d / "usage.json").read_text())["counters"] for d in ("rec", "rep")]
    assert [(c["purpose"], c["calls"], c.get("fallbacks")) for c in usage[0]] == \
        [(c["purpose"], c["calls"], c.get("fallbacks")) for c in usage[1]]


def test_replay_server_answers_in_order_and_misses(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    rec = Recorder(path)
    messages = [{"role": "user", "content": "hi"}]
    rec("importance", messages, '{"a": 1}', 3, 2)
    rec("importance", messages, '{"a": 2}', 3, 2)
    rec.close()
    with ReplayServer(path) as replay:
        assert [replay.answer("importance", messages)["content"] for _ in range(3)] == ['{"a": 1}', '{"a": 2}',
                                                                                       '{"a": 2}']
        assert replay.answer("daily_plan", messages) is None and replay.misses == 1
    assert request_hash("a", messages) != request_hash("b", messages)
