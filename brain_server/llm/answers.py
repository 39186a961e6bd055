"""Reading a completion as its purpose's schema, as models we have never run write it.

Without `response_format` (endpoints that reject it, `NPC_BRAIN_LLM_JSON_SCHEMA=false`) small and
chatty models wrap the object in prose and code fences, follow it with more prose (braces and
all), write Python's quotes, trailing commas or comments, capitalise keys, wrap the object in
another ({"answer": {...}}) or in a list. Each of those used to cost the call (retried, then its
fallback). The strict reading comes first; the others are tried only when it fails, and what they
give is validated against the schema all the same. A cut-off answer (brackets left open) is not
repaired: closing it would pass a truncated value ("Hobbs Ca") as the model's choice; nor is a
runaway generation (longer than any purpose's token limit allows), which is asked again.
Before any of it, `chat_message` checks that what came back is a chat completion at all.
"""

from __future__ import annotations

from collections.abc import Iterator
import json
import re
from typing import Any, TypeVar, get_args

import httpx2
import json_repair
from openai.types import CompletionUsage
from pydantic import BaseModel, ValidationError

from brain_server.llm.dialects import REASONING_HINT, thought_past_its_tokens, without_reasoning

Out = TypeVar("Out", bound=BaseModel)
_STARTS_TRIED = 8  # object starts tried for a complete value followed by chatter
_READ_MAX_CHARS = 16_000
_CHECK_BASE_URL = "is NPC_BRAIN_LLM_BASE_URL the API's /v1 address?"
_QUOTED = re.compile(r'"(?:\\.|[^"\\])*"')


class AnswerError(Exception):
    """The completion arrived but is not usable JSON for the schema."""


def parse_answer(text: str, schema: type[Out]) -> Out:
    """The schema's object from a completion: strictly, else from the first reading that validates."""
    if thought_past_its_tokens(text):
        raise AnswerError(f"the model was still thinking when its tokens ran out: {REASONING_HINT}")
    text = without_reasoning(text or "")
    # From the first "{" to the last "}": linear, where a regex backtracks on megabytes of braces.
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise AnswerError(f"no JSON object in the answer: {text[:120]!r}")
    try:
        return schema.model_validate_json(text[start:end + 1])
    except ValidationError as exc:
        strict = exc
    for value in _readings(text, start, end) if end - start < _READ_MAX_CHARS else ():
        try:
            return schema.model_validate(_fitted(value, schema))
        except ValidationError:
            continue
    raise AnswerError(f"answer does not match the {schema.__name__} schema: {strict.error_count()} error(s): "
                      f"{said_plainly(strict.errors()[0])}") from strict


def said_plainly(error: Any) -> str:
    """A validation error (pydantic's) as what to give instead, in words a small model can act on:
    '"outline" has 9 items: give at most 8', where pydantic says "('outline',) List should have at
    most 8 items after validation, not 9" (blind32's writer: a small model sends the same nine again)."""
    where = " ".join(f'"{part}"' if isinstance(part, str) else f"item {part + 1}" for part in error["loc"]) or "the answer"
    ctx, given = error.get("ctx") or {}, error.get("input")
    plain = {
        "missing": f"{where} is missing: give it",
        "too_long": f"{where} has {ctx.get('actual_length')} items: give at most {ctx.get('max_length')}",
        "too_short": f"{where} has {ctx.get('actual_length')} items: give at least {ctx.get('min_length')}",
        "string_too_long": f"{where} is too long: at most {ctx.get('max_length')} characters",
        "string_too_short": f"{where} is too short: at least {ctx.get('min_length')} characters",
        "less_than_equal": f"{where} is {given!r}: give a number no more than {ctx.get('le')}",
        "less_than": f"{where} is {given!r}: give a number below {ctx.get('lt')}",
        "greater_than_equal": f"{where} is {given!r}: give a number no less than {ctx.get('ge')}",
        "greater_than": f"{where} is {given!r}: give a number above {ctx.get('gt')}",
        "string_pattern_mismatch": f"{where} is {given!r}, not in the form asked",
        "literal_error": f"{where} is {given!r}: give one of {ctx.get('expected')}",
        "enum": f"{where} is {given!r}: give one of {ctx.get('expected')}",
    }.get(error["type"])
    return plain or f"{where}: {error['msg']}"


def _readings(text: str, start: int, end: int) -> Iterator[Any]:
    """The first complete JSON value at each of the first object starts (chatter after it), then the
    spans from the first start to each close, repaired (quotes, commas, comments, bare keys) where
    their brackets are balanced."""
    decoder = json.JSONDecoder()
    at = start
    for _ in range(_STARTS_TRIED):
        try:
            yield decoder.raw_decode(text, at)[0]
        except json.JSONDecodeError:
            pass
        at = text.find("{", at + 1)
        if at < 0:
            break
    close = text.find("}", start)
    for _ in range(_STARTS_TRIED):  # the shortest balanced span first: chatter after it is no part
        span = text[start:close + 1]
        if _balanced(span):
            repaired = json_repair.loads(span)
            yield repaired[0] if isinstance(repaired, list) and repaired else repaired
        if close == end:
            break
        close = text.find("}", close + 1)


def _balanced(span: str) -> bool:
    """Whether every bracket opened outside double-quoted strings is closed: a cut-off answer is not."""
    bare = _QUOTED.sub('""', span)
    return bare.count("{") == bare.count("}") and bare.count("[") == bare.count("]")


def _fitted(value: Any, schema: type[BaseModel]) -> Any:
    """`value` shaped as `schema` reads it: the one object of a list, a lone wrapper's content, keys
    matched to the fields whatever their case or separators, nulls left to the fields' defaults."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if not isinstance(value, dict):
        return value
    fields = {_key(name): name for name in schema.model_fields}
    if len(value) == 1 and not any(_key(k) in fields for k in value):
        (inner,) = value.values()
        if isinstance(inner, (dict, list)):
            return _fitted(inner, schema)
    fitted: dict[str, Any] = {}
    for key, item in value.items():
        name: str = fields.get(_key(key)) or key  # JSON's keys are strings
        field = schema.model_fields.get(name)
        if field is None:
            fitted[name] = item
            continue
        if item is None and not field.is_required():
            continue
        nested = _model_in(field.annotation)
        if nested is not None and isinstance(item, list) and not _is_list(field.annotation):
            item = item[0] if len(item) == 1 else item
        if nested is not None:
            item = [_fitted(i, nested) for i in item] if isinstance(item, list) else _fitted(item, nested)
        fitted[name] = item
    return fitted


def _key(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip()).lower()


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds (itself, in a list or optional), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _is_list(annotation: Any) -> bool:
    return getattr(annotation, "__origin__", None) is list or any(_is_list(a) for a in get_args(annotation))


class NotACompletion(Exception):
    """The endpoint answered, but not with a chat completion: a proxy's page, plain text, another API's JSON."""


def out_of_room(content: str) -> bool:
    """Whether an unusable answer looks cut off by its max_tokens: empty (a model that spent them all
    thinking, its reasoning in a field of its own), a think block never closed, or JSON never closed."""
    text = content.strip()
    return not text or (text.startswith("<think>") and "</think>" not in text) or (
        text[:1] in "{[" and text[-1:] not in "}]")


def chat_message(http: httpx2.Response) -> tuple[str, object, object]:
    """The first choice's content and refusal and the completion's usage, read from the endpoint's
    answer as it arrived (JSON under any label, as the openai client reads it), or NotACompletion
    saying what came instead (a page, a list, a completion with no message): every level is checked."""
    label = http.headers.get("content-type", "").split(";")[0]
    answered = (f"the endpoint answered HTTP {http.status_code} with {label or 'no Content-Type'}"
                + (f" (redirected to {http.url})" if http.history else ""))
    try:
        completion = json.loads(http.content)
    except ValueError as exc:  # not JSON; labelled JSON, it does not parse
        if not label.endswith("json"):
            raise NotACompletion(f"{answered}, not a chat completion: {_CHECK_BASE_URL}") from exc
        raise NotACompletion(f"{answered} that does not parse ({exc}), not a chat completion: "
                             f"{_CHECK_BASE_URL}") from exc
    if not isinstance(completion, dict):
        raise NotACompletion(f"{answered}, not a chat completion: {_CHECK_BASE_URL}")
    choices = completion.get("choices")
    if not isinstance(choices, list) or not choices:
        raise NotACompletion(f"{answered}: JSON with {'empty' if choices == [] else 'no'} choices, "
                             f"not a chat completion: {_CHECK_BASE_URL}")
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    if not isinstance(message, dict):
        raise NotACompletion(f"{answered}: a chat completion whose first choice has no message")
    content = message.get("content")
    if not isinstance(content, str | None):
        raise NotACompletion(f"{answered}: a chat completion whose content is {type(content).__name__}, not text")
    return content or "", message.get("refusal"), completion.get("usage")


def tokens_of(usage: object) -> tuple[int, int]:
    """(prompt, completion) tokens; (0, 0) where usage is missing or not counts (some servers omit it).
    `usage`: a completion's JSON object, or a streamed one's `CompletionUsage`."""
    if isinstance(usage, CompletionUsage):
        usage = {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens}
    counts = (usage.get("prompt_tokens"), usage.get("completion_tokens")) if isinstance(usage, dict) else (None, None)
    if all(type(n) is int and n >= 0 for n in counts):
        return counts  # type: ignore[return-value]
    return 0, 0
