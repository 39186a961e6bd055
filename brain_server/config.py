"""Settings from the command line, the environment (prefix NPC_BRAIN_), a `.env` file and a TOML file.

Precedence: init arguments (the command line's flags) > environment > `.env` in the working directory >
TOML file (NPC_BRAIN_CONFIG or --config) > defaults. Every field carries its description: the
command line's help, `npc-brain config` and docs/configuration.md are generated from them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from brain_server.cognition.retrieve import RetrievalWeights

_PAPER = RetrievalWeights()  # the paper's retrieval weights, decay and top-k: defined once, in retrieve.py
REFLECTION_THRESHOLD = 150  # the paper's; its released 25-agent run used 250
LogLevel = Literal["debug", "info", "warning", "error", "critical"]
SYNC_AFTER_S = 1.0  # the embedded engine's power-loss window for an acknowledged write (storage/edge.py)


class Settings(BaseSettings):
    # A .env file often holds other tools' variables too (Compose reads it): only NPC_BRAIN_* ones are
    # read from it, and a misspelt one of those is an error, as in the environment.
    model_config = SettingsConfigDict(env_prefix="NPC_BRAIN_", extra="forbid", env_file=".env",
                                      env_file_encoding="utf-8", dotenv_filtering="match_prefix")

    # Transports
    host: str = Field("127.0.0.1", description="Address both transports bind to.")
    grpc_port: int = Field(50051, description="gRPC port (0 picks a free one).")
    http_port: int = Field(8080, description="Connect JSON / HTTP port (0 picks a free one).")
    web_root: Path | None = Field(None, description="Folder served at / on the HTTP port (the Godot web build).")
    cors_origins: list[str] | None = Field(
        None, description="Origins a browser page may call the Connect endpoint from; unset: the page's own origin "
        "and local pages (http://localhost, 127.0.0.1 and [::1], any port); a list: the page's own origin and "
        "those (\"*\" = any; [] = the page's own origin only).")
    allowed_hosts: list[str] = Field(
        [], description="Host names the HTTP port answers to besides localhost, loopback and the bind address "
        "(any IP address too when bound to 0.0.0.0 or ::); other Host headers are refused (DNS rebinding); "
        "\"*\" = any.")
    auth_token: SecretStr | None = Field(None, description="Bearer token every RPC needs; required off loopback.")
    rate_limit_per_s: float = Field(200.0, ge=0, description="Requests a second per client address (0 = no limit).")
    rate_limit_burst: int = Field(400, ge=1, description="Requests a client address may burst above the rate.")
    max_request_bytes: int = Field(4 * 1024 * 1024, ge=1024, description="Largest request body on both transports.")
    npc_cache: int = Field(10_000, ge=1, description="NPCs kept in memory, the least recently used forgotten first "
                           "(and read from the store again when asked for).")

    # Storage
    data_dir: Path = Field(Path("data"), description="Where the embedded Qdrant engine keeps its files.")
    sync_after_s: float = Field(SYNC_AFTER_S, ge=0, le=60, description="Embedded engine: an acknowledged write is on the "
                                "disk (fsync, surviving a power cut) at most this long after it; 0 = before "
                                "the answer, at a disk sync per write.")
    qdrant_url: str | None = Field(None, description="Qdrant server or cluster URL; unset = embedded engine.")
    qdrant_api_key: SecretStr | None = Field(None, description="API key of the Qdrant server (QDRANT_URL).")
    qdrant_path: Path | None = Field(None, description="qdrant-client local mode folder (tests, small setups).")
    collection: str = Field("npc_memories", description="The one collection all NPCs' memories share.")

    # LLM
    llm_base_url: str | None = Field(None, description="OpenAI-compatible endpoint; unset = embedded SmolLM2.")
    llm_model: str = Field("gpt-4o-mini", description="Model name sent to the endpoint.")
    llm_api_key: SecretStr = Field(SecretStr("not-needed"), description="API key for the endpoint.")
    llm_timeout_s: float = Field(60.0, description="Per-attempt timeout of one completion.")
    llm_max_attempts: int = Field(3, ge=1, le=10, description="Attempts per call before the fallback.")
    llm_json_schema: bool = Field(True, description="Send response_format json_schema (turn off for old servers).")
    llm_max_concurrency: int = Field(8, ge=1, description="Completions in flight at once.")
    llm_probe: bool = Field(True, description="Probe the LLM endpoint at start: a wrong URL, key or model stops "
                            "serve with one line; a rejected json_schema steps down to json_object or plain prompts.")
    llm_record: Path | None = Field(None, description="Append every completion to this JSONL file (llm/recording.py).")
    llm_replay: Path | None = Field(None, description="Answer completions from this recording; no endpoint needed.")
    llm_fallback_purposes: Annotated[frozenset[str] | None, NoDecode] = Field(
        None, description="Purposes answered by their safe default without asking the model, e.g. daily_plan,decompose; "
        "unset: none with a configured endpoint, and with the embedded SmolLM2 those it cannot answer usefully "
        "(llm/embedded.py FALLBACK_PURPOSES); empty: ask the model for every purpose.")
    llm_calls_per_npc_hour: int = Field(0, ge=0, description="Ceiling on LLM calls an NPC makes per game hour "
                                        "(0 = none); calls over it get their fallback, a coarser answer; Talk, "
                                        "Interview and Whisper are never refused.")
    llm_calls_per_hour: int = Field(0, ge=0, description="Ceiling on LLM calls the whole town makes per game hour "
                                    "(0 = none), likewise.")
    embedded_llm_port: int = Field(0, description="Port of the embedded llama.cpp server (0 = free port).")
    embedded_llm_threads: int = Field(1, ge=1, description="CPU threads of the embedded model (1 avoids stalls on 2 cores).")

    # Embeddings
    embeddings_base_url: str | None = Field(None, description="OpenAI-compatible embeddings endpoint; unset = local MiniLM.")
    embeddings_model: str = Field("text-embedding-3-small", description="Embeddings model name sent to "
                                  "EMBEDDINGS_BASE_URL.")
    embeddings_api_key: SecretStr = Field(SecretStr("not-needed"), description="API key for the embeddings "
                                          "endpoint.")

    # Cognition
    recency_decay: float = Field(_PAPER.decay_per_hour, gt=0, le=1,
                                 description="Recency factor per game hour since last access.")
    weight_recency: float = Field(_PAPER.recency, description="Weight of recency in a memory's retrieval score.")
    weight_importance: float = Field(_PAPER.importance, description="Weight of importance in the retrieval score.")
    weight_relevance: float = Field(_PAPER.relevance, description="Weight of relevance (cosine similarity to the "
                                    "query) in the retrieval score.")
    retrieve_top_k: int = Field(_PAPER.top_k, ge=1, description="Memories retrieved per question.")
    prepare_ahead_minutes: int = Field(60, ge=0, description="Decompose blocks starting this soon in the background (0 = off).")
    background_thinking: bool = Field(True, description="Decide answers at once and all thinking runs in the "
                                      "background; off: inside each Decide before it answers, so that a run at "
                                      "concurrency 1 is a pure function of the LLM's answers (record and replay).")
    importance_batch_size: int = Field(40, ge=1, description="Observations rated together in one LLM call.")
    importance_batch_minutes: int = Field(60, ge=0, description="Longest game time an observation waits for its "
                                          "rating (0 = rate each decision's observations at once).")
    new_plan_importance: int = Field(0, ge=0, description="From the second day, a memory of at least this importance "
                                     "since the last day plan (a conversation, a thought, news seen) makes a new plan; "
                                     "a day with none repeats the last one without an LLM call (0 = always plan anew, "
                                     "as the paper; 5 suits routine-heavy games).")
    reflection_threshold: int = Field(REFLECTION_THRESHOLD, ge=1, description="Summed importance of new events that triggers a reflection.")
    prompt_max_bytes: int | None = Field(None, ge=1000, description="Largest prompt in UTF-8 bytes; a longer one has "
                                         "its longest parts cut (noted in the trace); unset: 24000, 12000 with the "
                                         "embedded model (its context is 4096 tokens).")
    prompts_dir: Path | None = Field(None, description="Folder of prompt files overriding the built-in ones.")
    player_talk_idle_s: float = Field(600.0, gt=0, description="A player's conversation with an NPC ends (and is "
                                      "remembered) once the player has been silent this many wall seconds.")
    traces_per_npc: int = Field(100, ge=1, description="Decision traces kept in memory per NPC.")
    traces_total: int = Field(20_000, ge=1, description="Decision traces kept in memory in all (oldest dropped first).")
    ablate: Annotated[frozenset[Literal["observation", "reflection", "planning"]], NoDecode] = Field(
        frozenset(), description="Memory kinds retrieval cannot reach (the paper's ablations), e.g. reflection,planning.")

    # Logging
    log_json: bool = Field(False, description="JSON log lines instead of the human console format.")
    log_level: LogLevel = Field("info", description="Lowest level logged: debug, info, warning, error or critical.")

    @field_validator("log_level", mode="before")
    @classmethod
    def _lower_case(cls, value: Any) -> Any:
        """LOG_LEVEL=WARNING is as good as warning."""
        return value.lower() if isinstance(value, str) else value

    @field_validator("ablate", "llm_fallback_purposes", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        """NPC_BRAIN_ABLATE=reflection,planning reads as a set, as a TOML list does."""
        return [part.strip() for part in value.split(",") if part.strip()] if isinstance(value, str) else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings, dotenv_settings]
        toml_file = os.environ.get("NPC_BRAIN_CONFIG")
        if toml_file:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=Path(toml_file)))
        return tuple(sources)
