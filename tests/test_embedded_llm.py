"""The embedded SmolLM2 server: a real structured completion through the `openai` client, and
the lines it picks (cognition/offline/offline_lines.py) in a town of our own. The model is started once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import AsyncExitStack
import importlib.util
from itertools import pairwise
from pathlib import Path
import re

from google.protobuf import json_format
import openai
from pydantic import BaseModel, Field
import pytest

from brain_server.cognition.offline.offline_lines import acceptable
from brain_server.config import Settings
from brain_server.llm import embedded
from brain_server.llm.embedded import FALLBACK_PURPOSES, EmbeddedLLM, EmbeddedLLMUnavailable
from brain_server.llm.streaming import FieldText
from brain_server.prompts.converse_turn import Turn
from brain_server.server import build_core
from npc_brain.v1 import brain_pb2 as pb
from npc_lab import talk_bench


class Importance(BaseModel):
    importance: int = Field(ge=1, le=10)


@pytest.fixture(scope="module")
def smollm() -> Iterator[EmbeddedLLM]:
    try:
        embedded.model_path()
    except EmbeddedLLMUnavailable as exc:
        pytest.skip(f"embedded-llm extra not installed ({exc})")
    with EmbeddedLLM() as llm:
        process = llm._process
        yield llm
    assert process is not None and process.poll() is not None


def test_response_format_translation() -> None:
    schema = Importance.model_json_schema()
    wrapped = {"type": "json_schema", "json_schema": {"name": "importance", "schema": schema, "strict": True}}
    # llama-cpp-python's grammar ignores minimum and maximum: the range is spelled as an enum.
    ranged = {**schema, "properties": {"importance": {**schema["properties"]["importance"], "enum": list(range(1, 11))}}}
    assert embedded._response_format(wrapped) == {"type": "json_object", "schema": ranged}
    assert embedded._grammar_safe({"type": "integer", "minimum": 0, "maximum": 10**6}) == {
        "type": "integer", "minimum": 0, "maximum": 10**6}  # too wide for an enum: left open
    assert embedded._response_format({"type": "json_object"}) == {"type": "json_object"}
    assert embedded._response_format({"type": "text"}) is None
    assert embedded._response_format(None) is None
    with pytest.raises(ValueError):
        embedded._response_format({"type": "xml"})


def test_missing_packages_say_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(EmbeddedLLMUnavailable, match=r"npc-brain\[embedded-llm\].*NPC_BRAIN_LLM_BASE_URL"):
        EmbeddedLLM().start()


@pytest.mark.slow
def test_structured_call_through_openai_client(smollm: EmbeddedLLM) -> None:
    assert smollm.base_url.startswith("http://127.0.0.1:")
    client = openai.OpenAI(base_url=smollm.base_url, api_key="not-needed", max_retries=0, timeout=120)
    assert [m.id for m in client.models.list().data] == [smollm.model]
    response = client.chat.completions.create(
        model=smollm.model,
        messages=[
            {"role": "system", "content": "Rate how important an event is to a person, 1 to 10. Answer in JSON."},
            {"role": "user", "content": "Event: Isabella's best friend moved to another town."},
        ],
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "importance", "schema": Importance.model_json_schema(), "strict": True},
        },
        max_tokens=32,
        temperature=0,
    )
    answer = Importance.model_validate_json(response.choices[0].message.content or "")
    assert 1 <= answer.importance <= 10
    _streams_and_stops(client, smollm.model)


def _streams_and_stops(client: openai.OpenAI, model: str) -> None:
    """A line streamed token by token in the schema's JSON (cut at max_tokens: only its growth is
    checked); a stream closed early frees the model."""
    ask = {"model": model, "max_tokens": 30, "temperature": 0, "messages": [
        {"role": "user", "content": "You are Isabella, who runs a cafe. Klaus says hello. Answer in JSON."}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "turn", "schema": Turn.model_json_schema()}}}
    reader, heard = FieldText("utterance"), []
    with client.chat.completions.create(**ask, stream=True, stream_options={"include_usage": True}) as stream:
        chunks = list(stream)
    for chunk in chunks:
        if chunk.choices and chunk.choices[0].delta.content:
            heard.append(reader.feed(chunk.choices[0].delta.content))
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == len(chunks) - 1
    # The line's words are the model's and differ with the CPU llama.cpp was built for ("Klaus" on one
    # machine, a sentence on another): what is checked is that the line grew piece by piece.
    assert reader.buffer.startswith("{") and heard[-1] in reader.buffer, heard
    assert all(later.startswith(earlier) for earlier, later in pairwise(heard)), heard
    assert len({h for h in heard if h}) >= 2, heard
    with client.chat.completions.create(**{**ask, "max_tokens": 400}, stream=True) as stream:
        next(iter(stream))  # then closed: the model stops, its lock is free for the next completion
    again = client.chat.completions.create(**{**ask, "max_tokens": 8})
    assert again.choices[0].message.content


@pytest.mark.slow
def test_lines_from_persona_plan_and_meeting(smollm: EmbeddedLLM, tmp_path: Path) -> None:
    """Issue 31: in the harbour town (npc_lab/talk_bench.py), served as `serve` serves the embedded
    model, an interview about the job names it, a question about tomorrow names an item of the
    plan, a question about the person met recalls the meeting, and no line (the NPCs' own
    conversation included) echoes what it answers or repeats itself or an earlier line."""
    settings = Settings(data_dir=tmp_path, llm_base_url=smollm.base_url, llm_model=smollm.model, llm_probe=False,
                        llm_fallback_purposes=FALLBACK_PURPOSES, llm_max_concurrency=1, prompt_max_bytes=12_000,
                        background_thinking=False)
    when = talk_bench.stamp(talk_bench.at("10:00"))

    async def main() -> tuple[list[pb.DialogueLine], dict[str, str], list[str]]:
        async with AsyncExitStack() as stack:
            core = await build_core(settings, stack)
            met = await talk_bench.harbour(core)
            job = await core.interview(json_format.ParseDict(
                {"npcId": "odile", "question": "What is your job?", "gameTime": when}, pb.InterviewRequest()))
            talked = {}
            for npc_id, text in (("bram", "What are you doing tomorrow?"), ("odile", "Have you seen Bram lately?")):
                talked[text] = (await core.talk(json_format.ParseDict(
                    {"npcId": npc_id, "speakerName": "Ada", "text": text, "gameTime": when}, pb.TalkRequest()))).reply
            bram = await core.records.npc("bram")
            return met, {"What is your job?": job.answer, **talked}, [i.activity for i in bram.plan]

    met, answers, plan = asyncio.run(main())
    assert "lighthouse keeper" in answers["What is your job?"]
    assert any(activity in answers["What are you doing tomorrow?"] for activity in plan)
    assert re.search(r"\b(talked|chatted) with Bram\b", answers["Have you seen Bram lately?"])
    assert all(acceptable(line, heard, []) for heard, line in answers.items())
    assert len(met) >= 2 and all(
        acceptable(line.text, met[n - 1].text if n else "", [m.text for m in met[:n] if m.speaker_npc_id ==
                                                             line.speaker_npc_id]) for n, line in enumerate(met))
