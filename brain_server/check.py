"""`npc-brain check`: each part `serve` needs, tried as serve would use it, in one table with what to
fix; exit status 1 if any is not OK. Nothing is served or created: the embedded model is found but
not started, a Qdrant server's collections are looked at, not made. A configured model is asked a
short probe run (llm/trial.py: two calls a purpose), and its context window is looked up."""

from __future__ import annotations

import asyncio
import os
import socket

from brain_server.api.security import InsecureBindError, check_bind
from brain_server.config import Settings
from brain_server.llm.client import LLM
from brain_server.llm.context import ContextWindow, context_at_start, prompt_tokens
from brain_server.llm.embedded import EMBEDDED_CONTEXT, MODEL_NAME, EmbeddedLLMUnavailable, model_path
from brain_server.llm.embeddings import Embedder, MiniLMEmbedder, OpenAIEmbedder, make_embedder, store_embedder_mismatch
from brain_server.llm.minilm import EmbedderUnavailable
from brain_server.llm.probe import Finding, configured_llm, probe_settings
from brain_server.llm.trial import TRIAL_ROUNDS, built_in_prompts, trial
from brain_server.llm.usage import FALLBACK_WARN_SHARE
from brain_server.model.errors import ConfigError
from brain_server.persistence.storage import EdgeMemoryStore, StoreLockedError
from brain_server.prompts import PromptLibrary

LABELS = {"ok": "OK", "warn": "WARN", "wrong": "FAIL"}
TRIAL_BACKOFF_S = 0.05  # the probe run asks again at once: a check, not a town, waits on it


async def checks(settings: Settings) -> list[tuple[str, Finding]]:
    llm, prompts = await _llm(settings), _prompts(settings)
    rows = [("LLM endpoint", llm)]
    if llm.verdict == "ok":
        context, window = await _context(settings)
        rows.append(("LLM context", context))
        if configured_llm(settings) is not None:
            rows.append(("LLM answers", await _answers(settings, llm, window) if prompts.verdict == "ok" else
                         Finding("wrong", "not asked: the prompts cannot be used (below)")))
    embeddings, dim = await _embeddings(settings)
    return [*rows, ("prompts", prompts), ("embeddings", embeddings), ("store", _store(settings, dim)),
            ("ports", _ports(settings))]


def run(settings: Settings) -> int:
    """Print the table; the exit status."""
    rows = asyncio.run(checks(settings))
    width = max(len(name) for name, _ in rows)
    for name, found in rows:
        print(f"{name:<{width}}  {LABELS[found.verdict]:<4}  {found.line}", flush=True)
    return 0 if all(found.verdict == "ok" for _, found in rows) else 1


async def _llm(settings: Settings) -> Finding:
    if settings.llm_replay:
        if not settings.llm_replay.is_file():
            return Finding("wrong", f"NPC_BRAIN_LLM_REPLAY={settings.llm_replay} does not exist")
        return Finding("ok", f"replay of {settings.llm_replay} (a loopback endpoint; starts with serve)")
    endpoint = configured_llm(settings)
    if endpoint is not None:
        return await probe_settings(settings, endpoint)
    try:
        model_path()
    except EmbeddedLLMUnavailable as exc:
        return Finding("wrong", str(exc))
    return Finding("ok", f"embedded {MODEL_NAME} (starts with serve)")


async def _context(settings: Settings) -> tuple[Finding, ContextWindow | None]:
    """The model's context window, and the prompts whose longest (PROMPT_MAX_BYTES, estimated in
    tokens) would not fit it with their answer: those the brain trims, memories first."""
    endpoint = configured_llm(settings)
    if endpoint is None and not settings.llm_replay and not settings.llm_context_tokens:
        return Finding("ok", f"{EMBEDDED_CONTEXT} tokens (the embedded model's n_ctx): prompts are fitted to it, "
                             "counted with its own tokenizer"), None
    window = await context_at_start(settings, endpoint.base_url if endpoint else None)
    longest = settings.prompt_max_bytes or 24_000
    tokens = prompt_tokens([{"content": "x" * (longest - 1)}, {"content": ""}])
    if window is None:
        return Finding("ok", f"the endpoint does not say its context window: a prompt may be {longest} bytes "
                             f"(about {tokens} tokens); set NPC_BRAIN_LLM_CONTEXT_TOKENS if the model's is "
                             "smaller"), None
    cut = sorted(p.purpose for p in built_in_prompts() if tokens + p.max_tokens + settings.llm_extra_tokens > window.tokens)
    said = f"{window.tokens} tokens ({window.source})"
    if not cut:
        return Finding("ok", f"{said}: the longest prompt ({longest} bytes, about {tokens} tokens) fits with its "
                             "answer"), window
    return Finding("warn", f"{said}: the longest prompt ({longest} bytes, about {tokens} tokens) would be cut for "
                           f"{', '.join(cut)} (with room for its answer): the brain drops memories to fit, so NPCs "
                           "recall less; give the model a larger context (Ollama: num_ctx or OLLAMA_CONTEXT_LENGTH; "
                           "vLLM: --max-model-len; llama.cpp: --ctx-size) or lower NPC_BRAIN_PROMPT_MAX_BYTES"), window


async def _answers(settings: Settings, found: Finding, window: ContextWindow | None) -> Finding:
    """A short probe run (llm/trial.py): the purposes whose answers fell back more than serve warns at."""
    endpoint = configured_llm(settings)
    assert endpoint is not None
    llm = LLM(base_url=endpoint.base_url, model=endpoint.model, api_key=settings.llm_api_key.get_secret_value(),
              prompts=PromptLibrary(settings.prompts_dir), timeout_s=settings.llm_timeout_s,
              max_attempts=settings.llm_max_attempts, max_concurrency=settings.llm_max_concurrency,
              backoff_s=TRIAL_BACKOFF_S, response_mode=found.mode, extra_body=settings.llm_extra_body,
              extra_tokens=settings.llm_extra_tokens, refused=found.refused, context=window)
    asked = [p for p in built_in_prompts() if p.purpose not in (settings.llm_fallback_purposes or ())]
    try:
        shares, left_out = await trial(llm, asked)
    finally:
        await llm.close()
    high = sorted(f"{purpose} {fell}/{answers}" for purpose, (fell, answers) in shares.items()
                  if fell > FALLBACK_WARN_SHARE * answers)
    run = f"a probe run of {TRIAL_ROUNDS} calls for each of {len(shares)} purposes" + (
        f" ({', '.join(left_out)} left out: a prompt override's placeholders)" if left_out else "")
    if not high:
        return Finding("ok", f"{run}: none fell back")
    return Finding("warn", f"{run}: fell back in {', '.join(high)} (more than {FALLBACK_WARN_SHARE:.0%}): those "
                           "NPCs would act on defaults; serve's log says why (llm_attempt_failed), or try a "
                           "stronger model")


async def _embeddings(settings: Settings) -> tuple[Finding, int | None]:
    try:
        embedder = make_embedder(settings)
    except EmbedderUnavailable as exc:
        return Finding("wrong", str(exc)), None
    try:
        dim = await embedder.ensure_dim()
    except ConfigError as exc:
        return Finding("wrong", str(exc)), None
    finally:
        if isinstance(embedder, OpenAIEmbedder):
            await embedder.aclose()
    if (mismatch := store_embedder_mismatch(settings, embedder, dim)) is not None:
        return Finding("wrong", mismatch), None  # the store is not opened with vectors it does not hold
    where = (f"{settings.embeddings_model} at {settings.embeddings_base_url}" if settings.embeddings_base_url
             else f"local {_local(embedder)} ({embedder.name})")
    return Finding("ok", f"{where}, dim {dim}"), dim


def _local(embedder: Embedder) -> str:
    """The local embedder in words: which MiniLM kernels run, or the static table."""
    if isinstance(embedder, MiniLMEmbedder):
        return f"MiniLM, {'integer' if embedder.integer_kernels else 'float'} kernels"
    return "static table"


def _prompts(settings: Settings) -> Finding:
    """The prompt folder as serve loads it (a folder that is not there, or a style.json that is not a
    style, stops serve)."""
    folder = settings.prompts_dir
    if folder is None:
        return Finding("ok", "built-in (brain_server/prompts)")
    try:
        style = PromptLibrary(folder).style
    except ConfigError as exc:
        return Finding("wrong", str(exc))
    own = sorted(p.stem for p in folder.glob("*.md"))
    dated = "the brain's dates and clocks" if style.plain else f"dates as {style.date!r}, clocks as {style.clock!r}"
    return Finding("ok", f"{folder}: {len(own)} of your own ({', '.join(own[:6])}{', ...' if len(own) > 6 else ''}), "
                         f"the rest built-in; {dated}")


def _store(settings: Settings, dim: int | None) -> Finding:
    if settings.qdrant_url:
        from brain_server.persistence.storage.qdrant_server import check_server  # qdrant-client: ~1 s to import

        api_key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        try:
            return Finding("ok", check_server(settings.qdrant_url, api_key, settings.collection, dim))
        except ConfigError as exc:
            return Finding("wrong", str(exc))
    folder = settings.qdrant_path or settings.data_dir / "qdrant"
    what = "qdrant-client local mode" if settings.qdrant_path else "embedded Qdrant Edge"
    if settings.qdrant_path is None and folder.is_dir() and dim:
        try:
            EdgeMemoryStore(folder, dim).close()
        except StoreLockedError as exc:
            return Finding("wrong", str(exc))
        return Finding("ok", f"{what} in {folder}")
    existing = next(p for p in (folder, *folder.resolve().parents) if p.exists())
    if not os.access(existing, os.W_OK):
        return Finding("wrong", f"{existing} is not writable: set NPC_BRAIN_DATA_DIR to a folder the brain may write")
    return Finding("ok", f"{what} in {folder}" + ("" if folder.exists() else " (serve creates it)"))


def _ports(settings: Settings) -> Finding:
    try:
        check_bind(settings)
    except InsecureBindError as exc:
        return Finding("wrong", str(exc))
    host, busy = settings.host, []
    for name, port in (("gRPC", settings.grpc_port), ("HTTP", settings.http_port)):
        if port and (why := _bind_refused(host, port)):
            busy.append(f"{name} {host}:{port} ({why})")
    if busy:
        return Finding("wrong", f"cannot bind {', '.join(busy)}: stop what holds it, or set NPC_BRAIN_GRPC_PORT / "
                                "NPC_BRAIN_HTTP_PORT")
    ports = [f"{name} {host}:{port or 'any'}" for name, port in (("gRPC", settings.grpc_port),
                                                                  ("HTTP", settings.http_port))]
    return Finding("ok", f"{' and '.join(ports)} free to bind")


def _bind_refused(host: str, port: int) -> str | None:
    """Why this address cannot be bound (as serve binds HTTP: SO_REUSEADDR), or None."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None

