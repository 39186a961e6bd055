"""Settings from the command line, the environment (prefix NPC_BRAIN_), a `.env` file and a TOML file.

Precedence: init arguments (the command line's flags) > environment > `.env` in the working directory >
TOML file (NPC_BRAIN_CONFIG or --config) > defaults. Every field carries its description: the
command line's help, `npc-brain config` and docs/configuration.md are generated from them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from brain_server.model import paper

LogLevel = Literal["debug", "info", "warning", "error", "critical"]
SYNC_AFTER_S = 1.0  # the embedded engine's power-loss window for an acknowledged write (persistence/storage/edge.py)
# Vectors of texts embedded lately (llm/vector_cache.py): ~1.7 KiB each at MiniLM's 384 dimensions, so
# ~19,000 texts, a day of a 1,000-NPC town's routine (docs/benchmarks.md section 7).
EMBEDDINGS_CACHE_MIB = 32.0
EMBEDDINGS_THREADS = 1  # per text the least CPU on 2 cores (docs/benchmarks.md, issue 44)
EMBEDDINGS_WINDOW_MS = 5.0
CHAT_REST_MINUTES = 60  # after any conversation an NPC that thinks takes part in no other sooner (cognition/chats.py)


class Settings(BaseSettings):
    # A .env file often holds other tools' variables too (Compose reads it): only NPC_BRAIN_* ones are
    # read from it, and a misspelt one of those is an error, as in the environment.
    model_config = SettingsConfigDict(env_prefix="NPC_BRAIN_", extra="forbid", env_file=".env",
                                      env_file_encoding="utf-8", dotenv_filtering="match_prefix")

    # Transports
    host: str = Field("127.0.0.1", description="Address both transports bind to.")
    grpc_port: int = Field(50051, description="gRPC port (0 picks a free one; the ready line prints the ports).")
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
    auth_token: SecretStr | None = Field(
        None, description="Bearer token every RPC and /metrics need (Authorization: Bearer <token>); required when "
        "HOST is not loopback; empty, shorter than 16 characters or with spaces stops the brain at start; 10 wrong "
        "tokens from an address lock it out (one more try every 5 s). The Godot game sends it from ?token= / "
        "--token= or the project setting npc_brain/brain/token.")
    jwt_secret: SecretStr | None = Field(
        None, description="HS256 key of the signed tokens a game server mints per player (docs/deployment.md, "
        "\"Hosting for many players\"): a token's `sub` is its tenant, `scope` what it may do (play, inspect, "
        "admin), `exp` is required; each tenant sees only its own worlds, NPCs, saves, traces and usage. At least "
        "32 characters; unset = no signed tokens (AUTH_TOKEN only).")
    jwt_issuer: str | None = Field(None, description="When set, a signed token must carry this `iss` (the game "
                                   "server's name), so tokens another service signs with a shared key are refused.")
    jwt_leeway_s: float = Field(30.0, ge=0, le=300, description="Seconds a signed token's `exp` (and `nbf`) may be "
                                "past: the game server's and the brain's clocks may differ by this much.")
    rate_limit_per_s: float = Field(200.0, ge=0, description="Requests a second per client address, both transports "
                                    "together (0 = no limit). One game process calls for all its NPCs from one "
                                    "address: 1,000 NPCs at a 60x clock ask ~150 a second; raise it for bigger or "
                                    "faster towns.")
    rate_limit_burst: int = Field(400, ge=1, description="Requests a client address may burst above the rate.")
    max_request_bytes: int = Field(4 * 1024 * 1024, ge=1024, description="Largest request body on both transports.")
    npc_cache: int = Field(10_000, ge=1, description="NPCs kept in memory, the least recently used forgotten first "
                           "(and read from the store again when asked for).")

    # Storage
    data_dir: Path = Field(Path("data"), description="Where the embedded Qdrant engine keeps its files.")
    sync_after_s: float = Field(SYNC_AFTER_S, ge=0, le=60, description="Embedded engine: an acknowledged write is on the "
                                "disk (fsync, surviving a power cut) at most this long after it; 0 = before "
                                "the answer, at a disk sync per write. A killed process loses nothing acknowledged either way.")
    qdrant_url: str | None = Field(None, description="Qdrant server or cluster URL (Qdrant 1.14 or later); unset = "
                                   "the embedded engine in DATA_DIR.")
    qdrant_api_key: SecretStr | None = Field(None, description="API key of the Qdrant server (QDRANT_URL).")
    qdrant_path: Path | None = Field(None, description="qdrant-client local mode folder (tests, small setups).")
    collection: str = Field("npc_memories", description="The one collection all NPCs' memories share (npc_id is "
                            "the tenant key).")

    # LLM
    llm_base_url: str | None = Field(None, description="OpenAI-compatible endpoint, its /v1 address (OpenAI, vLLM, "
                                     "Ollama, llama.cpp server); unset = the embedded SmolLM2.")
    llm_model: str = Field("gpt-4o-mini", description="Model name sent to the endpoint.")
    llm_api_key: SecretStr = Field(SecretStr("not-needed"), description="API key for the endpoint.")
    llm_timeout_s: float = Field(60.0, description="Per-attempt timeout of one completion.")
    llm_max_attempts: int = Field(3, ge=1, le=10, description="Attempts per call before it falls back to a safe "
                                  "default; a 429 or 503 with Retry-After waits what it asks (at most 20 s).")
    llm_json_schema: bool = Field(True, description="Send response_format json_schema; off: no response_format, the "
                                  "prompts ask for the JSON (an endpoint that rejects json_schema is stepped down to "
                                  "json_object or plain prompts anyway).")
    llm_max_concurrency: int = Field(8, ge=1, description="Completions in flight at once (1 with the embedded model); "
                                     "one more is kept for the player's Talk, Interview and Whisper; the rest wait, "
                                     "most urgent first: player, social, plan_now, ahead, background (GetUsage and "
                                     "/metrics show the queues).")
    llm_probe: bool = Field(True, description="Probe the LLM endpoint at start: a wrong URL, key or model stops "
                            "serve with one line; a rejected json_schema steps down to json_object or plain prompts.")
    llm_send_priority: bool = Field(False, description="Send each completion's class (0 player ... 4 background) "
                                    "as the request's priority, for a vLLM started with --scheduling-policy "
                                    "priority; other servers may reject the field.")
    llm_extra_body: dict[str, Any] | None = Field(None, description="A JSON object merged into every completion "
                                                  "request, for a server's own options: a thinking model's "
                                                  "thinking turned off ('{\"think\": false}' for Ollama, "
                                                  "'{\"chat_template_kwargs\": {\"enable_thinking\": false}}' "
                                                  "for vLLM or llama.cpp with Qwen3), '{\"reasoning_effort\": "
                                                  "\"low\"}' for OpenAI's reasoning models.")
    llm_extra_tokens: int = Field(0, ge=0, description="Tokens added to every completion's max_tokens (each purpose "
                                  "has its own, 12-300): room for a model that thinks before it answers "
                                  "(<think>...</think>, which counts against max_tokens), e.g. 1024; the reasoning "
                                  "is dropped before the answer is read.")
    llm_context_tokens: int | None = Field(None, ge=256, description="The model's context window in tokens; every "
                                           "prompt is fitted to it less its answer's max_tokens (memories dropped "
                                           "first, the persona cut last). Unset: what the server says (vLLM's "
                                           "max_model_len, llama.cpp's /props n_ctx, Ollama's /api/ps and "
                                           "/api/show; the embedded model's n_ctx), else only PROMPT_MAX_BYTES "
                                           "bounds prompts. Set it for Ollama when its server's "
                                           "OLLAMA_CONTEXT_LENGTH differs from a model's num_ctx.")
    llm_record: Path | None = Field(None, description="Append every completion (purpose, request hash, messages, "
                                    "answer, tokens) to this JSONL file.")
    llm_replay: Path | None = Field(None, description="Answer completions from such a recording through a loopback "
                                    "OpenAI-compatible server: no endpoint needed, the same answers (for the same "
                                    "run again: BACKGROUND_THINKING=false and the sim at --concurrency 1).")
    llm_fallback_purposes: Annotated[frozenset[str] | None, NoDecode] = Field(
        None, description="Purposes answered by their safe default without asking the model, e.g. daily_plan,decompose; "
        "unset: none with a configured endpoint, and with the embedded SmolLM2 those it cannot answer usefully "
        "(llm/embedded.py FALLBACK_PURPOSES); empty: ask the model for every purpose.")
    llm_calls_per_npc_hour: int = Field(0, ge=0, description="Ceiling on LLM calls an NPC makes per game hour "
                                        "(0 = none); a call over it is not made and gets its fallback, a coarser "
                                        "answer (a routine day, a block as one step, carrying on instead of "
                                        "reacting), so NPCs think less and never stop; Talk, Interview and Whisper "
                                        "are never refused; GetUsage shows the calls refused.")
    llm_calls_per_hour: int = Field(0, ge=0, description="Ceiling on LLM calls the whole town makes per game hour "
                                    "(0 = none), likewise.")
    # A tenant's spending ceiling (llm/spending.py; docs/deployment.md, "Hosting for many players")
    tenant_calls_per_window: int = Field(0, ge=0, description="Ceiling on LLM calls one tenant (a signed token's "
                                         "`sub`) makes per TENANT_WINDOW_S of real time (0 = none), Talk included: "
                                         "past it its NPCs live on their fallbacks (routine days, carrying on) and "
                                         "Talk answers with lines composed without the model, until the window "
                                         "rolls over; GetUsage and /metrics show each tenant's spend.")
    tenant_tokens_per_window: int = Field(0, ge=0, description="Ceiling on LLM tokens (prompt and completion) one "
                                          "tenant spends per TENANT_WINDOW_S (0 = none), likewise.")
    tenant_money_per_window: float = Field(0.0, ge=0, description="Ceiling on what one tenant's LLM tokens cost per "
                                           "TENANT_WINDOW_S, in LLM_PRICE_*'s currency (0 = none), likewise; needs a "
                                           "price.")
    tenant_window_s: float = Field(86_400.0, gt=0, description="A tenant's window, in real seconds: it opens at the "
                                   "tenant's first call and a fresh one opens at its first call after it closes.")
    tenant_calls_per_game_day: int = Field(0, ge=0, description="Ceiling on LLM calls one tenant makes per game "
                                           "day (the calendar day of each call's game time, as the game's requests "
                                           "send it; 0 = none), Talk included: past it its NPCs live on their "
                                           "fallbacks as past TENANT_CALLS_PER_WINDOW, until the game's day changes. "
                                           "It paces a town's thinking over its days; the real-time window is what "
                                           "bounds what a tenant costs, since the game's clock is the client's.")
    tenant_tokens_per_game_day: int = Field(0, ge=0, description="Ceiling on LLM tokens (prompt and completion) one "
                                            "tenant spends per game day (0 = none), likewise.")
    tenant_money_per_game_day: float = Field(0.0, ge=0, description="Ceiling on what one tenant's LLM tokens cost per "
                                             "game day, in LLM_PRICE_*'s currency (0 = none), likewise; needs a "
                                             "price.")
    tenant_idle_s: float = Field(0.0, ge=0, description="Seconds a tenant (a signed token's `sub`) may go without a "
                                 "call before its town sleeps: saved to the slot `brain.asleep` of each of its "
                                 "worlds and let go from memory (its records and memories stay in the store); its "
                                 "next call restores it first. 0 = never (a brain serving one game keeps its town).")
    # Tenants pinned to processes (api/pinning.py; docs/deployment.md, "Several brain processes, tenants pinned")
    replica_count: int = Field(0, ge=0, description="How many brain processes share the tenants, each tenant pinned "
                               "to one by nginx's `hash $http_x_npc_tenant;` (0 or 1: this is the only one, nothing "
                               "checked). Above 1, a call of a tenant that hash puts on another process is refused "
                               "(failed_precondition, naming the right one), so a misrouted call cannot split a "
                               "town across processes. Leave it unset behind Envoy's ring hash.")
    replica_index: int = Field(0, ge=0, description="This process's place among REPLICA_COUNT (0-based): its place "
                               "in the proxy's list of servers.")
    llm_price_input_per_m: float = Field(0.0, ge=0, description="What the endpoint charges per million prompt "
                                         "tokens (e.g. 0.15 for a small hosted model: an example, not a current "
                                         "price; 0 = unpriced): GetUsage and /metrics then show each tenant's spend "
                                         "in money.")
    llm_price_output_per_m: float = Field(0.0, ge=0, description="What the endpoint charges per million completion "
                                          "tokens (e.g. 0.60: an example, not a current price; 0 = unpriced).")
    # The crowd (cognition/attention.py, DecideRequest.attention = ATTENTION_CROWD)
    crowd_concern_hold_minutes: int = Field(60, ge=1, description="A crowd NPC that something concerns (the player "
                                            "in sight, a whisper, the player's talk, an action naming it, news from "
                                            "an NPC that thinks) thinks, out of view, for this many game minutes.")
    crowd_calls_per_thinking_hour: float = Field(2.0, gt=0, description="LLM calls per game hour an out-of-view NPC "
                                                 "is counted at: with LLM_CALLS_PER_HOUR set, at most that over this "
                                                 "many NPCs think (those in view first), the rest as a crowd; raise it "
                                                 "if your prompts make NPCs call more (docs/benchmarks.md: 1.77).")
    crowd_backlog_per_slot: int = Field(4, ge=1, description="Pieces of the NPCs' own work waiting per endpoint "
                                        "slot (for a slot, or for a pause in the game's Decides) beyond which the "
                                        "brain falls behind: the share of out-of-view NPCs that think shrinks by a "
                                        "fifth a second until little waits (lower: fewer think, sooner answered).")
    embedded_llm_port: int = Field(0, description="Port of the embedded llama.cpp server (0 = free port).")
    embedded_llm_threads: int = Field(1, ge=1, description="CPU threads of the embedded model (1 avoids stalls on 2 cores).")

    # Embeddings
    embeddings_base_url: str | None = Field(None, description="OpenAI-compatible embeddings endpoint; unset = the "
                                            "local EMBEDDER.")
    embedder: Literal["minilm", "static"] = Field("minilm", description="The local embedder: minilm (all-MiniLM-L6-v2, "
                                                  "~10-15 ms of CPU a text, in a process of its own) or static (a "
                                                  "table distilled from it, built once into DATA_DIR/cache: "
                                                  "microseconds a text, for crowds; retrieval a little weaker, "
                                                  "docs/benchmarks.md). A store keeps the one that made it.")
    embedder_integer_kernels: bool = Field(True, description="EMBEDDER=minilm: multiply in int8 (a model built "
                                           "once from the shipped one into the cache folder below, seconds; needs "
                                           "the onnx package): about half the CPU a text, retrieval the same on "
                                           "our set, one store for both (docs/benchmarks.md); a text's vector "
                                           "moves a little with the texts batched beside it (cosine ~0.99), so "
                                           "lockstep lab runs repeat exactly only with false; false = the float "
                                           "kernels the model ships with.")
    embeddings_table_dir: Path | None = Field(None, description="Where the static table (EMBEDDER=static, ~16 MB) "
                                              "and MiniLM's integer kernels (~23 MB) are cached, named by the "
                                              "model's hash; unset = DATA_DIR/cache. A folder shared by several "
                                              "data folders builds them once for all.")
    embeddings_model: str = Field("text-embedding-3-small", description="Embeddings model name sent to "
                                  "EMBEDDINGS_BASE_URL.")
    embeddings_api_key: SecretStr = Field(SecretStr("not-needed"), description="API key for the embeddings "
                                          "endpoint.")
    embeddings_cache_mib: float = Field(EMBEDDINGS_CACHE_MIB, ge=0, description="Memory for the vectors of texts "
                                        "embedded lately (a routine's actions, repeated perceptions and queries), "
                                        "reused instead of embedded again; about 1.7 KiB a text with local MiniLM, "
                                        "0 turns reuse off.")
    embeddings_window_ms: float = Field(EMBEDDINGS_WINDOW_MS, ge=0, le=1000, description="Local MiniLM: how long the "
                                        "first text waits for others to be embedded with it in one batch (a text "
                                        "alone costs more CPU; 0 = only those already waiting).")
    embeddings_threads: int = Field(EMBEDDINGS_THREADS, ge=1, le=64, description="Local MiniLM: onnxruntime's "
                                    "threads per batch (1: the least CPU per text; more: faster large batches "
                                    "on an idle machine).")

    # Cognition
    recency_decay: float = Field(paper.DECAY_PER_HOUR, gt=0, le=1,
                                 description="Recency factor per game hour since last access.")
    weight_recency: float = Field(paper.WEIGHT_RECENCY, description="Weight of recency in a memory's retrieval score.")
    weight_importance: float = Field(paper.WEIGHT_IMPORTANCE, description="Weight of importance in the retrieval score.")
    weight_relevance: float = Field(paper.WEIGHT_RELEVANCE, description="Weight of relevance (cosine similarity to the "
                                    "query) in the retrieval score.")
    retrieve_top_k: int = Field(paper.RETRIEVE_TOP_K, ge=1, description="Memories retrieved per question.")
    prepare_ahead_minutes: int = Field(60, ge=0, description="Decompose blocks starting this soon in the background (0 = off).")
    background_thinking: bool = Field(True, description="Decide answers at once and all thinking runs in the "
                                      "background; off: inside each Decide before it answers, so that a run at "
                                      "concurrency 1 is a pure function of the LLM's answers (record and replay).")
    importance_batch_size: int = Field(40, ge=1, description="Observations rated together in one LLM call.")
    importance_batch_minutes: int = Field(60, ge=0, description="Longest game time an observation waits for its "
                                          "rating (stored at once with a provisional 3; 0 = rate each decision's "
                                          "observations at once).")
    new_plan_importance: int = Field(0, ge=0, description="From the second day, a memory of at least this importance "
                                     "since the last day plan (a conversation, a thought, news seen) makes a new plan; "
                                     "a day with none repeats the last one without an LLM call, saving 2 calls per "
                                     "NPC per quiet day (0 = always plan anew, as the paper: a new plan also varies "
                                     "where NPCs go and whom they meet; 5 suits routine-heavy games).")
    reflection_threshold: int = Field(paper.REFLECTION_THRESHOLD, ge=1, description=(
        "Summed importance of new events that triggers a reflection. 150 is the paper's, for a world perceived "
        "every 10 game seconds (2-3 reflections a day); a game that sends perceptions only with each Decide sums "
        "less: the lab's Ville reflects about once a game day at 150 and three times at 50. Lower it until your "
        "NPCs reflect 2-3 times a game day (each reflection is one `reflection_insights` call in GetUsage; "
        "`npc-lab sim` reports them per game day)."))
    reflection_min_gap_minutes: int = Field(180, ge=0, description=(
        "Game minutes at least between two reflections of an NPC, whatever importance adds up meanwhile (it "
        "waits for the next): a model that rates most events highly would reflect many times an hour (two "
        "calls each; one stand-in reflected 20 times a game day in the Ville). The paper's 2-3 a day are hours "
        "apart, so 180 rarely binds for a model that rates as the paper's did; 0 reflects whenever the "
        "threshold is reached."))
    chat_rest_minutes: int = Field(CHAT_REST_MINUTES, ge=0, description=(
        "Game minutes after any conversation before an NPC takes part in another, in view or out; "
        "meanwhile no reaction is asked of it or about it. A conversation in view costs 5-7 calls, and "
        "residents who meet at one place all day talk in turn: with one model, 12 residents at one cafe held "
        "204 conversations in two days at 9.3 calls per NPC per awake hour, and with 60 minutes 79 at 5.1, the "
        "news as far. Out of view a conversation is one call, but without the rest there a town talked twice "
        "as often as in view and carried news further (docs/evaluation.md, stops 63 and 92). 0 = no rest: "
        "only a pair is held 2 hours apart. The player's talk is never held back; crowd NPCs, whose meetings "
        "cost no call, never rest."))
    prompt_max_bytes: int | None = Field(None, ge=1000, description="Largest prompt in UTF-8 bytes; a longer one has "
                                         "its longest parts cut (noted in the trace), and a stored memory is cut to "
                                         "8,000 bytes; unset: 24000, 12000 with the embedded model (its context is "
                                         "4096 tokens).")
    prompts_dir: Path | None = Field(None, description="Folder of prompt files overriding the built-in ones "
                                     "(brain_server/prompts/*.md), and a style.json there says how dates and clock "
                                     "times read in them, e.g. {\"clock\": \"12h\", \"date\": \"weekday, day "
                                     "month\"} (brain_server/prompts/style.py lists the forms; default: \"Tuesday "
                                     "February 14, 17:30\").")
    player_talk_idle_s: float = Field(600.0, gt=0, description="A player's conversation with an NPC ends (and is "
                                      "remembered) once the player has been silent this many wall seconds; at most 8 "
                                      "are open per NPC and 1,000 in all, the least recently continued ending first.")
    traces_per_npc: int = Field(100, ge=1, description="Decision traces kept in memory per NPC.")
    traces_total: int = Field(20_000, ge=1, description="Decision traces kept in memory in all, the oldest dropped "
                              "first (a trace with LLM calls holds its prompts: tens of KB).")
    ablate: Annotated[frozenset[Literal["observation", "reflection", "planning", "swap_speakers"]], NoDecode] = Field(
        frozenset(), description="Memory kinds retrieval cannot reach (the paper's ablations, docs/evaluation.md), "
        "e.g. reflection,planning; and a lab control, swap_speakers: each speaker of a conversation (and an NPC "
        "deciding whether to talk to another) is shown the memories and news retrieved for the other instead of "
        "its own, as a control on the evaluation, never for a game.")

    # Logging
    log_json: bool = Field(False, description="JSON log lines (a line of an NPC's work carries its npc_id and "
                           "trace_id; uvicorn's, grpc's and qdrant-client's lines too) instead of the human "
                           "console format.")
    log_level: LogLevel = Field("info", description="Lowest level logged: debug, info, warning, error or critical.")

    @model_validator(mode="after")
    def _priced_ceiling(self) -> Settings:
        """A money ceiling with no price would never be reached, and a replica index past the count
        would refuse every tenant: mistakes, said at start."""
        for name in ("tenant_money_per_window", "tenant_money_per_game_day"):
            if getattr(self, name) and not (self.llm_price_input_per_m or self.llm_price_output_per_m):
                raise ValueError(f"NPC_BRAIN_{name.upper()} needs a price: set NPC_BRAIN_LLM_PRICE_INPUT_PER_M and "
                                 "NPC_BRAIN_LLM_PRICE_OUTPUT_PER_M (what the endpoint charges per million tokens)")
        if self.replica_count > 1 and self.replica_index >= self.replica_count:
            raise ValueError(f"NPC_BRAIN_REPLICA_INDEX={self.replica_index} is not a place among "
                             f"NPC_BRAIN_REPLICA_COUNT={self.replica_count} processes: use 0-{self.replica_count - 1}")
        return self

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
