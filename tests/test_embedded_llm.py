"""The embedded SmolLM2 server: a real structured completion through the `openai` client."""

from __future__ import annotations

import importlib.util

import openai
from pydantic import BaseModel, Field
import pytest

from brain_server.llm import embedded
from brain_server.llm.embedded import EmbeddedLLM, EmbeddedLLMUnavailable
from brain_server.llm.streaming import FieldText
from brain_server.prompts.converse_turn import Turn


class Importance(BaseModel):
    importance: int = Field(ge=1, le=10)


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
def test_structured_call_through_openai_client() -> None:
    try:
        embedded.model_path()
    except EmbeddedLLMUnavailable as exc:
        pytest.skip(f"embedded-llm extra not installed ({exc})")
    with EmbeddedLLM() as llm:
        assert llm.base_url.startswith("http://127.0.0.1:")
        client = openai.OpenAI(base_url=llm.base_url, api_key="not-needed", max_retries=0, timeout=120)
        assert [m.id for m in client.models.list().data] == [llm.model]
        response = client.chat.completions.create(
            model=llm.model,
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
        _streams_and_stops(client, llm.model)
        process = llm._process
    assert process is not None and process.poll() is not None


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
    assert reader.buffer.startswith("{") and len(set(heard)) > 3 and heard[-1] in reader.buffer, heard
    with client.chat.completions.create(**{**ask, "max_tokens": 400}, stream=True) as stream:
        next(iter(stream))  # then closed: the model stops, its lock is free for the next completion
    again = client.chat.completions.create(**{**ask, "max_tokens": 8})
    assert again.choices[0].message.content
