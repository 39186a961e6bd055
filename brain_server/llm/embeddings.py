"""Text embeddings for memory retrieval: local MiniLM by default, a static table distilled from it
(NPC_BRAIN_EMBEDDER=static, for crowds), or any OpenAI-compatible endpoint if set.

Vectors are always L2-normalised so a dot product is the cosine similarity the retrieval score uses.
Every embedder reuses the vectors of texts it embedded lately (`vector_cache.py`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
import asyncio
from collections.abc import Sequence
from concurrent.futures import Future
import json
from pathlib import Path
import queue
import sys
import threading
import time

import numpy as np
import openai
from prometheus_client import Counter

from brain_server.config import EMBEDDINGS_CACHE_MIB, EMBEDDINGS_THREADS, EMBEDDINGS_WINDOW_MS, Settings
from brain_server.llm import minilm
from brain_server.llm.integer_kernels import integer_model
from brain_server.llm.minilm import EmbedderUnavailable, model_files, said, unit_rows
from brain_server.llm.probe import Endpoint
from brain_server.llm.static_embed import STATIC_DIM, StaticModel
from brain_server.llm.vector_cache import VectorCache
from brain_server.model.errors import ConfigError
from brain_server.runtime import metrics
from brain_server.runtime.pipes import Child

COALESCE_TEXTS = 64  # texts that wait for the embedding process are sent together, up to this many
CLOSE_WAIT_S = 10.0  # how long closing waits for the batches already asked before it kills the process
_TEXTS = Counter("npc_brain_embedding_texts", "Texts asked of the embedder, by outcome: embedded (sent to the model "
                 "or endpoint) or reused (a vector kept from an earlier call, or a repeat within the call).",
                 ["outcome"], registry=metrics.PROCESS)
EMBEDDED, REUSED = _TEXTS.labels("embedded"), _TEXTS.labels("reused")  # labels bound once (metrics.py)
BATCHES = Counter("npc_brain_embedding_batches", "Embed calls that sent texts to the model or endpoint (the MiniLM "
                  "process batches those that wait together once more).",
                  registry=metrics.PROCESS)
MODEL_BATCHES = Counter("npc_brain_embedding_model_batches", "Batches the local MiniLM process computed: the texts "
                        "of the calls gathered within EMBEDDINGS_WINDOW_MS (texts embedded / this = texts per batch).",
                        registry=metrics.PROCESS)
CPU = Counter("npc_brain_embedding_cpu_seconds", "CPU the brain's own process spent embedding (the static "
              "embedder computes in it; MiniLM's CPU is its process's).", registry=metrics.PROCESS)
MODEL_TEXTS = Counter("npc_brain_embedding_model_texts", "Texts in the batches the local MiniLM process computed, "
                      "counted when computed (the texts embedded are counted when asked, and may wait behind a busy "
                      "process): this / model batches = texts per batch.", registry=metrics.PROCESS)


class Embedder(ABC):
    """Turns texts into unit vectors of `dim` floats; `name` identifies the vector space.

    A text embedded lately is not sent again: its vector is the one kept (bit for bit what the
    model gave), and the texts of a call that are new go to the model in one batch, each once.
    """

    dim: int
    name: str

    def __init__(self, cache_mib: float = EMBEDDINGS_CACHE_MIB) -> None:
        self.cache = VectorCache(int(cache_mib * 2**20))

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in input order."""
        if not texts:
            return []
        kept = self.cache.get_many(texts)
        new = list(dict.fromkeys(text for text, row in zip(texts, kept, strict=True) if row is None))
        if len(texts) > len(new):
            REUSED.inc(len(texts) - len(new))
        fresh: dict[str, np.ndarray] = {}
        if new:
            BATCHES.inc()
            EMBEDDED.inc(len(new))
            rows = await self._embed_new(new)
            self.cache.put_many(new, rows)
            fresh = dict(zip(new, rows, strict=True))
        return [(fresh[text] if row is None else np.frombuffer(row, dtype=np.float32)).tolist()
                for text, row in zip(texts, kept, strict=True)]

    @abstractmethod
    async def _embed_new(self, texts: list[str]) -> np.ndarray:
        """The model's float32 unit rows for texts not kept, in order (one row per text)."""

    def close(self) -> None:  # noqa: B027 - most embedders hold nothing to release
        """Release what the embedder holds (a process)."""

    async def ensure_dim(self) -> int:
        """The dimension, probing the model once if it is not known yet (collections need it)."""
        if not self.dim:
            await self.embed(["dimension probe"])
        return self.dim


class MiniLMEmbedder(Embedder):
    """Local MiniLM (`MiniLMModel`), computed in a process of its own at a lower priority.

    At 1,000 NPCs embedding wants a core or more of a two-core machine. On a thread of the brain
    its Python steps (tokens in, vectors out) took the interpreter the answering threads need, and
    niced, it could be preempted while holding it. In a process of its own it shares no
    interpreter with the game's answers, and the cores go to them first. Texts go over its stdin and vectors come back
    over its stdout, one batch at a time: the texts of every call that came within `window_s` of
    the first (up to COALESCE_TEXTS) in one batch, since a quiet town of 1,000 NPCs in view asks
    one text at a time and a text alone costs the model ~1.4x its CPU in a batch (docs/benchmarks.md);
    perceptions are stored in the background, so the window delays no Decide. A process that
    died (killed, out of memory) is started again by the next call, and one whose brain died ends
    with its stdin.
    """

    name = "all-MiniLM-L6-v2-onnx-int8"
    dim = minilm.DIM

    def __init__(self, *, threads: int = EMBEDDINGS_THREADS, batch_size: int = 32, max_tokens: int = 256,
                 model_path: Path | None = None, tokenizer_path: Path | None = None,
                 cache_mib: float = EMBEDDINGS_CACHE_MIB, window_s: float = EMBEDDINGS_WINDOW_MS / 1000,
                 lower_priority: bool = True, kernels_dir: Path | None = None) -> None:
        """`kernels_dir`: where MiniLM's integer kernels are built once and kept (`integer_kernels.py`);
        None runs the float kernels the model ships with."""
        super().__init__(cache_mib)
        self.window_s = window_s
        model_path, tokenizer_path = model_files(model_path, tokenizer_path)  # a missing package is told here
        integer = integer_model(model_path, kernels_dir) if kernels_dir is not None else None
        self.integer_kernels = integer is not None
        model_path = integer or model_path
        options = {"threads": threads, "batch_size": batch_size, "max_tokens": max_tokens,
                   "model_path": str(model_path), "tokenizer_path": str(tokenizer_path),
                   "lower_priority": lower_priority}
        command = [sys.executable, "-m", minilm.__name__, json.dumps(options)]
        self._child = Child(command, "embedding",
                            lambda reply: EmbedderUnavailable(f"the embedding process did not start: {said(reply)}"))
        # One thread talks to the process (waiting on the pipe without holding the interpreter), and
        # sends what waits meanwhile as one batch: per text, a batch costs a fraction of one at a time.
        self._requests: queue.SimpleQueue[tuple[list[str], Future[np.ndarray]] | None] = queue.SimpleQueue()
        self._child.process_id()  # loaded and ready before the first call
        self._thread = threading.Thread(target=self._serve_requests, name="embeddings", daemon=True)
        self._thread.start()

    def process_id(self) -> int:
        """The embedding process's pid (started if it is not running)."""
        return self._child.process_id()

    async def _embed_new(self, texts: list[str]) -> np.ndarray:
        done: Future[np.ndarray] = Future()
        self._requests.put((texts, done))
        return await asyncio.wrap_future(done)

    def _serve_requests(self) -> None:
        while (first := self._requests.get()) is not None:
            batch, until = [first], time.monotonic() + self.window_s
            while sum(len(texts) for texts, _ in batch) < COALESCE_TEXTS:
                try:
                    more = self._requests.get(timeout=max(0.0, until - time.monotonic()))
                except queue.Empty:
                    break
                if more is None:
                    self._requests.put(None)  # closing: after this batch
                    break
                batch.append(more)
            # A caller that gave up (cancelled) is left out; the others' futures can no longer be cancelled.
            batch = [(texts, done) for texts, done in batch if done.set_running_or_notify_cancel()]
            if not batch:
                continue
            flat = [text for texts, _ in batch for text in texts]
            MODEL_BATCHES.inc()
            MODEL_TEXTS.inc(len(flat))
            try:
                vectors = self.embed_sync(flat)
            except Exception as exc:  # noqa: BLE001 - each caller gets the error
                for _, done in batch:
                    done.set_exception(exc)
                continue
            for texts, done in batch:
                done.set_result(vectors[: len(texts)])
                vectors = vectors[len(texts) :]

    def embed_sync(self, texts: list[str]) -> np.ndarray:
        """Blocking embed by the model, the cache passed by (the embedding thread's, or a benchmark's)."""
        reply = self._child.ask(json.dumps(texts).encode())
        if reply[:1] != b"V":
            raise RuntimeError(f"the embedding process failed: {said(reply)}")
        return np.frombuffer(reply, dtype=np.float32, offset=1).reshape(len(texts), self.dim)

    def close(self) -> None:
        self._requests.put(None)
        self._thread.join(CLOSE_WAIT_S)
        if self._thread.is_alive():  # a hung process would hold the brain's shutdown forever
            self._child.kill()  # the batch in flight and those behind it fail
            self._thread.join()
        self._child.close(timeout_s=5)  # it ends at the end of its input


class StaticEmbedder(Embedder):
    """The static table distilled from MiniLM (`static_embed.py`), computed in the brain's process:
    a text costs microseconds of CPU, less than sending it to a process would. Built on first use
    (minutes, once) into `cache_dir`; a batch large enough to hold the event loop runs on a thread."""

    dim = STATIC_DIM
    INLINE_TEXTS = 64  # at ~10-20 us a text, fewer than this are computed on the caller's loop

    def __init__(self, cache_dir: Path, *, cache_mib: float = EMBEDDINGS_CACHE_MIB,
                 model_path: Path | None = None, tokenizer_path: Path | None = None,
                 token_ids: Sequence[int] | None = None) -> None:
        super().__init__(cache_mib)
        self.model = StaticModel(cache_dir, dim=self.dim, model_path=model_path, tokenizer_path=tokenizer_path,
                                 token_ids=token_ids)
        self.name = f"static-minilm-{self.dim}-{self.model.path.stem.rsplit('-', 1)[-1]}"

    async def _embed_new(self, texts: list[str]) -> np.ndarray:
        if len(texts) < self.INLINE_TEXTS:
            return self.embed_sync(texts)
        return await asyncio.to_thread(self.embed_sync, texts)

    def embed_sync(self, texts: list[str]) -> np.ndarray:
        """Blocking embed by the table, the cache passed by; its CPU counted (`CPU`)."""
        began = time.thread_time()
        try:
            return self.model.embed(texts)
        finally:
            CPU.inc(time.thread_time() - began)


class OpenAIEmbedder(Embedder):
    """Embeddings from an OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM, Ollama, ...).

    The dimension is taken from the first answer unless given, since it depends on the model.
    """

    def __init__(
        self,
        *,
        base_url: str | None,
        model: str,
        api_key: str = "not-needed",
        dim: int = 0,
        batch_size: int = 256,
        timeout_s: float = 60.0,
        cache_mib: float = EMBEDDINGS_CACHE_MIB,
    ) -> None:
        super().__init__(cache_mib)
        self.name = model
        self.dim = dim
        self.base_url = base_url
        self._model = model
        self._batch_size = batch_size
        self._client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key, timeout=timeout_s)

    async def ensure_dim(self) -> int:
        """The dimension from one embedding, asked once without retries: a wrong URL, key or model,
        or an endpoint that is down (the store needs the dimension to start), is a ConfigError line."""
        if self.dim:
            return self.dim
        client = self._client.with_options(max_retries=0)
        endpoint = Endpoint("the embeddings endpoint", "NPC_BRAIN_EMBEDDINGS", self.base_url or str(client.base_url),
                            self._model)
        try:
            await self._embed(client, ["dimension probe"])
        except openai.APIError as exc:
            raise ConfigError((await endpoint.diagnose(exc, client)).line) from None
        except ValueError as exc:
            raise ConfigError(f"{endpoint.what} {endpoint.base_url}: {exc}") from None
        return self.dim

    async def _embed_new(self, texts: list[str]) -> np.ndarray:
        return await self._embed(self._client, texts)

    async def _embed(self, client: openai.AsyncOpenAI, texts: Sequence[str]) -> np.ndarray:
        out: list[np.ndarray] = []
        for start in range(0, len(texts), self._batch_size):
            batch = list(texts[start : start + self._batch_size])
            # encoding_format="float": the client's default (base64) is not served by every endpoint.
            response = await client.embeddings.create(model=self._model, input=batch, encoding_format="float")
            rows = sorted(response.data, key=lambda d: d.index)
            if len(rows) != len(batch):
                raise ValueError(f"embeddings endpoint returned {len(rows)} vectors for {len(batch)} texts")
            vectors = np.array([r.embedding for r in rows], dtype=np.float32)
            if self.dim and vectors.shape[1] != self.dim:
                raise ValueError(f"embeddings endpoint returned dimension {vectors.shape[1]}, expected {self.dim}")
            self.dim = int(vectors.shape[1])
            out.append(unit_rows(vectors))
        return np.concatenate(out)

    async def aclose(self) -> None:
        await self._client.close()


def make_embedder(settings: Settings) -> Embedder:
    """The configured embedder: the endpoint in settings if one is set, else the local one
    (EMBEDDER: MiniLM, or the static table distilled from it, cached under DATA_DIR/cache)."""
    if settings.embeddings_base_url:
        return OpenAIEmbedder(
            base_url=settings.embeddings_base_url,
            model=settings.embeddings_model,
            api_key=settings.embeddings_api_key.get_secret_value(),
            cache_mib=settings.embeddings_cache_mib,
        )
    if settings.embedder == "static":
        return StaticEmbedder(settings.embeddings_table_dir or settings.data_dir / "cache",
                              cache_mib=settings.embeddings_cache_mib)
    # In lockstep a Decide stores what its NPC saw before it answers: the embedder is on the answer's
    # path there, and niced it waits for every other process's CPU (a Decide took 45 s beside busy ones).
    return MiniLMEmbedder(cache_mib=settings.embeddings_cache_mib, threads=settings.embeddings_threads,
                          window_s=settings.embeddings_window_ms / 1000, lower_priority=settings.background_thinking,
                          kernels_dir=(settings.embeddings_table_dir or settings.data_dir / "cache")
                          if settings.embedder_integer_kernels else None)


def store_embedder_mismatch(settings: Settings, embedder: Embedder, dim: int) -> str | None:
    """Why the embedded store's memories cannot be searched with this embedder's vectors, or None:
    they were embedded by another (same-sized vectors of two models would match nonsense without an
    error). The embedder's name is kept beside the store; a store from before the name was kept is
    checked by its vector size. A Qdrant server or local-mode path checks the size when it opens
    (qdrant_server.py); a saved slot of another size is embedded again when loaded (save_files.py)."""
    if settings.qdrant_url or settings.qdrant_path is not None:
        return None
    folder = settings.data_dir / "qdrant"
    marker, config = folder / "embedder.json", folder / "memories" / "edge_config.json"
    if marker.is_file():
        kept = json.loads(marker.read_text())
    elif config.is_file():
        kept = {"name": "an earlier embedder", "dim": json.loads(config.read_text())["vectors"]["v"]["size"]}
    else:
        return None
    if kept["dim"] == dim and (not marker.is_file() or kept["name"] == embedder.name):
        return None
    return (f"the memories in {folder} were embedded by {kept['name']} ({kept['dim']} numbers each), the "
            f"configured embedder is {embedder.name} ({dim}): set NPC_BRAIN_EMBEDDER (or the embeddings endpoint) "
            "back to the one that made them, or point NPC_BRAIN_DATA_DIR elsewhere to start a new store (saved "
            "slots are embedded again when loaded)")


def check_store_embedder(settings: Settings, embedder: Embedder, dim: int) -> None:
    """A ConfigError if the embedded store was embedded by another embedder; else its name is kept."""
    if (mismatch := store_embedder_mismatch(settings, embedder, dim)) is not None:
        raise ConfigError(mismatch)
    if not (settings.qdrant_url or settings.qdrant_path is not None):
        folder = settings.data_dir / "qdrant"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "embedder.json").write_text(json.dumps({"name": embedder.name, "dim": dim}))
