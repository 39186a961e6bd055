"""One look at an OpenAI-compatible endpoint before serving, so that a wrong setting is one clear
line at start instead of every call falling back all day.

`probe_llm` lists the endpoint's models, then asks a tiny completion in each response mode from
the configured one down (json_schema, json_object, prompt) until an answer is JSON (a mode is left
after `PROBE_ASKS` answers without it). Its finding:
`ok` with the mode that works; `warn` for an endpoint that is down, failing (HTTP 5xx) or
answering no JSON (it may recover; calls fall back meanwhile); `wrong` for a setting to fix: a
404 on the path, a refused key, an unknown model. `Endpoint.diagnose` turns an error of the chat
or the embeddings endpoint into that line, naming the NPC_BRAIN_* setting; keys are never shown.
"""

from __future__ import annotations

from dataclasses import dataclass
import json
import re
from typing import Any, Literal

import openai
from openai.types.chat import ChatCompletion
import structlog

from brain_server.config import Settings
from brain_server.llm.client import PURPOSE_HEADER
from brain_server.llm.dialects import (
    REASONING_HINT,
    RESPONSE_MODES,
    ResponseMode,
    adapted,
    refused_parameter,
    rejects_response_format,
    response_format,
    thought_past_its_tokens,
    without_reasoning,
)
from brain_server.model.errors import ConfigError, root_cause

log = structlog.get_logger(__name__)
Verdict = Literal["ok", "warn", "wrong"]
PROBE_PURPOSE = "probe"  # the purpose header of the probe's completion (the fake never scripts it by default)
_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
_MESSAGES = [{"role": "system", "content": "Answer only with one JSON object."},
             {"role": "user", "content": 'Are you there? Answer as {"ok": true}.'}]
_MODEL_MISSING = re.compile(r"model_not_found|model\W.{0,80}\b(not found|does not exist|not exist|unknown|not available)"
                            r"|(unknown|invalid|no such) model", re.IGNORECASE)
_SHOWN_MODELS = 5
_HTML = re.compile(r"<\s*(?:!doctype|html|head|body)\b", re.IGNORECASE)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
PROBE_TOKENS = 64  # {"ok": true} needs a handful; a model that thinks first needs NPC_BRAIN_LLM_EXTRA_TOKENS more
# A mode is taken as ignored after this many answers without its JSON, the first greedy, the rest sampled: one
# malformed answer (a model's occasional fault) stepped a whole run of blind36 down from json_schema to
# json_object, and every call after asked for JSON with no schema.
PROBE_ASKS = 3
PROBE_RESAMPLED = 0.7  # the temperature of the asks after the first


@dataclass(frozen=True)
class Finding:
    verdict: Verdict
    line: str  # ok: what answers and how; otherwise what is wrong and what to change
    mode: ResponseMode | None = None
    refused: frozenset[str] = frozenset()  # parameters the model does not take (left out of every call)


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible endpoint as configured; `setting` prefixes its settings' names."""

    what: str  # "the LLM endpoint"
    setting: str  # "NPC_BRAIN_LLM"
    base_url: str
    model: str

    async def diagnose(self, exc: Exception, client: openai.AsyncOpenAI, models: list[str] | None = None) -> Finding:
        """What an error of this endpoint means for its settings (the served models listed for a wrong model)."""
        if isinstance(exc, openai.APITimeoutError):
            return Finding("warn", f"{self.what} {self.base_url} timed out: is it running, and is "
                                   f"{self.setting}_BASE_URL right?")
        if isinstance(exc, openai.APIConnectionError):
            return Finding("warn", f"{self.what} {self.base_url} cannot be reached ({root_cause(exc)}): is it running, "
                                   f"and is {self.setting}_BASE_URL right?")
        if not isinstance(exc, openai.APIStatusError):
            return Finding("wrong", f"{self.what} {self.base_url} answers unexpectedly ({exc}): is "
                                    f"{self.setting}_BASE_URL an OpenAI-compatible endpoint?")
        code = exc.status_code
        if code in (401, 403):
            return Finding("wrong", f"{self.what} {self.base_url} refuses the API key (HTTP {code}): set "
                                    f"{self.setting}_API_KEY to a key it accepts")
        if code in (400, 404) and _MODEL_MISSING.search(f"{exc} {exc.body}"):
            return self.unknown_model(await available_models(client) if models is None else models)
        if code == 404:
            hint = "does it end in /v1?" if not self.base_url.rstrip("/").endswith("/v1") else \
                "is it an OpenAI-compatible endpoint?"
            return Finding("wrong", f"{self.setting}_BASE_URL={self.base_url} answers 404: {hint}")
        if code in (405, 501):  # the URL takes no POST: a web server, not an API
            return Finding("wrong", f"{self.what} {self.base_url} takes no chat completions (HTTP {code}, "
                                    f"{_message(exc)}): is {self.setting}_BASE_URL an OpenAI-compatible endpoint?")
        if code >= 500 or code in (408, 429):
            return Finding("warn", f"{self.what} {self.base_url} answers HTTP {code} ({_message(exc)})")
        return Finding("wrong", f"{self.what} {self.base_url} answers HTTP {code}: {_message(exc)}")

    def unknown_model(self, models: list[str] | None) -> Finding:
        served = (f": {', '.join(models[:_SHOWN_MODELS])}{', ...' if len(models) > _SHOWN_MODELS else ''}"
                  if models else " (it does not list its models)")
        return Finding("wrong", f"{self.what} {self.base_url} has no model {self.model!r}: set {self.setting}_MODEL "
                                f"to one it serves{served}")


def client_for(base_url: str, api_key: str, timeout_s: float) -> openai.AsyncOpenAI:
    """A client that tries once and gives up connecting after 5 s (a probe must be quick to say "down")."""
    return openai.AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0,
                              timeout=openai.Timeout(timeout_s, connect=min(timeout_s, 5.0)))


async def available_models(client: openai.AsyncOpenAI) -> list[str] | None:
    """The ids the endpoint lists, or None when it lists none (or cannot)."""
    try:
        return [model.id for model in (await client.models.list()).data]
    except Exception:  # noqa: BLE001 - only a hint for a message
        return None


@dataclass(frozen=True)
class Asking:
    """What every completion carries beyond the prompt (NPC_BRAIN_LLM_EXTRA_BODY, _EXTRA_TOKENS)."""

    extra_body: dict[str, Any] | None = None
    extra_tokens: int = 0


async def probe_llm(endpoint: Endpoint, api_key: str, *, mode: ResponseMode = "json_schema",
                    timeout_s: float = 30.0, asking: Asking = Asking()) -> Finding:
    """Models listed, then completions per response mode from `mode` down until one answers JSON (`PROBE_ASKS` a mode)."""
    client = client_for(endpoint.base_url, api_key, timeout_s)
    try:
        return await _probe(client, endpoint, mode, asking)
    finally:
        await client.close()


async def _probe(client: openai.AsyncOpenAI, endpoint: Endpoint, mode: ResponseMode, asking: Asking) -> Finding:
    models: list[str] | None = None
    try:
        models = [model.id for model in (await client.models.list()).data]
    except openai.APIStatusError as exc:
        if exc.status_code != 404:  # 404: no model list here, or a wrong path: the completion tells which
            return await endpoint.diagnose(exc, client, [])
    except openai.APIError as exc:
        return await endpoint.diagnose(exc, client, [])
    rejected: list[str] = []
    ignored: list[str] = []
    refused: set[str] = set()  # parameters the model does not take (OpenAI's reasoning models), left out
    for candidate in RESPONSE_MODES[RESPONSE_MODES.index(mode):]:
        for ask in range(PROBE_ASKS):
            response = await _asked(client, endpoint, candidate, 0 if ask == 0 else PROBE_RESAMPLED, asking, refused)
            if isinstance(response, openai.APIError):
                return await endpoint.diagnose(response, client, models)
            if response is None:
                rejected.append(candidate)
                break
            message = response.choices[0].message if response.choices else None
            content = (message.content or "") if message is not None else ""
            cut = response.choices[0].finish_reason == "length" if response.choices else False
            if thought_past_its_tokens(content) or (cut and not without_reasoning(content).strip()):
                return Finding("warn", f"{endpoint.model} at {endpoint.base_url} thinks before it answers and its "
                                       f"{PROBE_TOKENS + asking.extra_tokens} tokens ran out while thinking: "
                                       f"{REASONING_HINT}")
            if _answers_json(content, strict=candidate == "json_schema"):
                notes = [f"rejects response_format {', '.join(rejected)}"] if rejected else []
                notes += [f"takes no {', '.join(sorted(refused))} (left out)"] if refused else []
                notes += [f"ignores response_format {', '.join(ignored)}"] if ignored else []
                if models is not None and endpoint.model not in models:
                    notes.append(f"does not list {endpoint.model}, but answers")
                return Finding("ok", f"{endpoint.model} at {endpoint.base_url}, response mode {candidate}"
                                     + (f" (the endpoint {'; '.join(notes)})" if notes else ""), candidate,
                               frozenset(refused))
        if candidate not in rejected:
            ignored.append(candidate)
    return Finding("warn", f"{endpoint.what} {endpoint.base_url} answers, but not with JSON in any response mode "
                           f"({', '.join(ignored)}): is {endpoint.setting}_MODEL an instruction-following chat model?")


async def _asked(client: openai.AsyncOpenAI, endpoint: Endpoint, mode: ResponseMode, temperature: float,
                 asking: Asking, refused: set[str]) -> ChatCompletion | openai.APIError | None:
    """The probe's completion in `mode`, asked again without each parameter the model refuses (added to
    `refused`); None where the endpoint rejects the mode's response_format; the error for any other."""
    while True:
        try:
            answer: ChatCompletion = await client.chat.completions.create(**adapted(dict(
                model=endpoint.model, messages=_MESSAGES, max_tokens=PROBE_TOKENS + asking.extra_tokens,
                temperature=temperature, extra_headers={PURPOSE_HEADER: PROBE_PURPOSE},
                extra_body=asking.extra_body or None, **response_format(mode, PROBE_PURPOSE, _SCHEMA)), refused))
            return answer
        except openai.APIError as exc:
            if (param := refused_parameter(exc)) is not None and param not in refused:
                refused.add(param)
                continue
            return None if mode != "prompt" and rejects_response_format(exc) else exc


def _answers_json(content: str, *, strict: bool) -> bool:
    """A JSON object in the answer; `strict`: the probe's schema, {"ok": <bool>}."""
    content = without_reasoning(content)
    start, end = content.find("{"), content.rfind("}")
    try:
        answer: Any = json.loads(content[start : end + 1]) if 0 <= start < end else None
    except json.JSONDecodeError:
        return False
    return isinstance(answer, dict) and (not strict or isinstance(answer.get("ok"), bool))


def configured_llm(settings: Settings) -> Endpoint | None:
    """The LLM endpoint in the settings; None for the brain's own (the embedded model, a replay)."""
    if not settings.llm_base_url or settings.llm_replay:
        return None
    return Endpoint("the LLM endpoint", "NPC_BRAIN_LLM", settings.llm_base_url, settings.llm_model)


def configured_mode(settings: Settings) -> ResponseMode:
    return "json_schema" if settings.llm_json_schema else "prompt"


async def probe_settings(settings: Settings, endpoint: Endpoint) -> Finding:
    return await probe_llm(endpoint, settings.llm_api_key.get_secret_value(), mode=configured_mode(settings),
                           timeout_s=settings.llm_timeout_s,
                           asking=Asking(settings.llm_extra_body, settings.llm_extra_tokens))


async def llm_dialect_at_start(settings: Settings) -> tuple[ResponseMode, frozenset[str]]:
    """serve's probe (unless NPC_BRAIN_LLM_PROBE=false): a ConfigError for a setting to fix; one warning
    line for an endpoint that is down (serving goes on, calls fall back until it answers); the
    response mode that works and the parameters the model refused, so no call of the town's asks
    with them first."""
    mode = configured_mode(settings)
    endpoint = configured_llm(settings)
    if endpoint is None or not settings.llm_probe:
        return mode, frozenset()
    found = await probe_settings(settings, endpoint)
    if found.verdict == "wrong":
        raise ConfigError(found.line)
    if found.verdict == "warn" or found.mode is None:
        log.warning("llm_probe_failed", note=f"{found.line}; serving anyway: calls fall back while it fails")
        return mode, frozenset()
    if found.mode != mode:
        log.warning("llm_response_format_rejected", rejected=mode, now=found.mode, note=found.line)
    else:
        log.info("llm_probe_ok", note=found.line)
    return found.mode, found.refused


def _message(exc: openai.APIStatusError) -> str:
    """What the endpoint said, on one line: a web page (no API answers in HTML) named by its title."""
    body = exc.body
    text = body.get("message") if isinstance(body, dict) else None
    said = str(text or body or exc.message)
    if _HTML.search(said):
        title = _TITLE.search(said)
        said = "an HTML page" + (f" titled {' '.join(title.group(1).split())!r}" if title else "")
    return " ".join(said.split())[:200]
