"""Embedders: the local MiniLM model for real, and the OpenAI client against a loopback HTTP server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
import hashlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import json
import os
from pathlib import Path
import signal
import sys
import threading
from typing import Any

import numpy as np
import pytest

from brain_server.config import Settings
from brain_server.llm import embeddings
from brain_server.llm.embeddings import MiniLMEmbedder, OpenAIEmbedder, make_embedder
from brain_server.llm.minilm import PADDING_WASTE, EmbedderUnavailable, MiniLMModel
from brain_server.runtime import metrics
from brain_server.runtime.foreground import BACKGROUND_NICENESS
from tests.hung import assert_closes_while_hung


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    """The model itself: no vector reused, every text computed."""
    return MiniLMEmbedder(batch_size=4, cache_mib=0)


def test_minilm_shapes_and_normalisation(minilm: MiniLMEmbedder) -> None:
    vectors = asyncio.run(minilm.embed(["hello", "", "a much longer sentence " * 200]))
    assert minilm.dim == 384
    assert [len(v) for v in vectors] == [384, 384, 384]
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert asyncio.run(minilm.embed([])) == []


@pytest.mark.skipif(sys.platform != "linux", reason="niceness is per thread only on Linux")
def test_minilm_computes_in_a_process_of_its_own_at_a_lower_priority(minilm: MiniLMEmbedder) -> None:
    """Embedding shares no interpreter with the game's answers and takes the cores they leave: it
    runs in another process, whose threads (the model's and onnxruntime's) are all niced; the
    brain's own threads keep their priority."""
    asyncio.run(minilm.embed(["warm-up"]))
    pid = minilm.process_id()
    assert pid != os.getpid()
    own = {_niceness(os.getpid(), int(t)) for t in os.listdir("/proc/self/task")}
    assert len(own) == 1, own
    theirs = [_niceness(pid, int(t)) for t in os.listdir(f"/proc/{pid}/task")]
    assert len(theirs) >= 2 and set(theirs) == {min(19, min(own) + BACKGROUND_NICENESS)}


@pytest.mark.skipif(sys.platform != "linux", reason="niceness is per thread only on Linux")
def test_in_lockstep_the_embedder_keeps_the_brains_priority(tmp_path: Path) -> None:
    """In lockstep a Decide waits for its perceptions' embeddings: niced, they waited for every
    other process's CPU."""
    embedder = make_embedder(Settings(background_thinking=False, embeddings_cache_mib=0, data_dir=tmp_path,
                                      embedder_integer_kernels=False))
    try:
        asyncio.run(embedder.embed(["warm-up"]))
        own = {_niceness(os.getpid(), int(t)) for t in os.listdir("/proc/self/task")}
        pid = embedder.process_id()  # type: ignore[attr-defined]
        assert {_niceness(pid, int(t)) for t in os.listdir(f"/proc/{pid}/task")} == own
    finally:
        embedder.close()


def test_minilm_starts_its_process_again_when_it_died() -> None:
    """A killed embedding process (out of memory, say) costs one restart, not the brain's memory."""
    embedder = MiniLMEmbedder(cache_mib=0)
    try:
        before = asyncio.run(embedder.embed(["the cafe opens at eight"]))
        os.kill(embedder.process_id(), signal.SIGKILL)
        assert asyncio.run(embedder.embed(["the cafe opens at eight"])) == before
    finally:
        embedder.close()


def test_minilm_closes_while_its_process_hangs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hung embedding process (here stopped) does not hold the brain's shutdown: closing waits
    CLOSE_WAIT_S for the batch in flight, then kills the process; the waiting call gets an error."""
    monkeypatch.setattr(embeddings, "CLOSE_WAIT_S", 1.0)
    embedder = MiniLMEmbedder()
    asyncio.run(embedder.embed(["warm-up"]))
    assert_closes_while_hung(embedder.process_id(), lambda: asyncio.run(embedder.embed(["the bakery sells out by noon"])),
                             embedder.close, EmbedderUnavailable)


def _niceness(pid: int, tid: int) -> int:
    stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2:].split()[16])


def test_minilm_semantic_ordering(minilm: MiniLMEmbedder) -> None:
    coffee, espresso, engine = np.array(
        asyncio.run(
            minilm.embed(
                ["drinking coffee at the cafe", "having an espresso in a coffee shop", "repairing a car engine"]
            )
        )
    )
    assert coffee @ espresso > 0.4
    assert coffee @ espresso > coffee @ engine + 0.3


def test_minilm_batch_equals_single(minilm: MiniLMEmbedder) -> None:
    texts = [
        "Isabella is planning a Valentine's Day party at Hobbs Cafe",
        "hi",
        "Klaus Mueller is writing a research paper on the effects of gentrification",
        "the stove is burning",
        "Maria",
        "John Lin is a pharmacy shopkeeper who loves to help people",
        "sleeping",
    ]
    batched = np.array(asyncio.run(minilm.embed(texts)))
    single = np.array([asyncio.run(minilm.embed([t]))[0] for t in texts])
    assert batched.shape == (len(texts), 384)
    assert np.allclose(batched, single, atol=1e-5)


def test_minilm_pads_a_batch_of_mixed_lengths_little_and_gives_each_text_its_own_vector() -> None:
    """A padded token costs the model what a real one does: short observations in one batch with a
    long day plan must not be padded to its length (they were: 3x the CPU per text)."""
    model = MiniLMModel(batch_size=32)
    fed: list[tuple[int, int]] = []
    session = model._session

    class Counting:
        def run(self, names: Any, feeds: dict[str, np.ndarray]) -> Any:
            fed.append((int(feeds["attention_mask"].sum()), feeds["input_ids"].size))
            return session.run(names, feeds)

    model._session = Counting()  # type: ignore[assignment]
    plan = "Ann's plan for today: " + ", ".join(f"task {i} at the mill until noon" for i in range(30))
    texts = [f"Bob {i} is sweeping the porch" for i in range(31)] + [plan] + ["hi", "the kettle is boiling over"]
    vectors = model.embed(texts)
    real, padded = map(sum, zip(*fed, strict=True))
    assert padded <= real * (1 + PADDING_WASTE), fed
    assert np.allclose(vectors, np.concatenate([model.embed([t]) for t in texts]), atol=1e-5)


def test_make_embedder_defaults_to_minilm(tmp_path: Path) -> None:
    local = make_embedder(Settings(embeddings_window_ms=20, data_dir=tmp_path, embedder_integer_kernels=False))
    assert isinstance(local, MiniLMEmbedder) and local.window_s == 0.02
    local.close()
    remote = make_embedder(Settings(embeddings_base_url="http://127.0.0.1:9/v1", embeddings_model="m"))
    assert isinstance(remote, OpenAIEmbedder) and remote.name == "m"


def _batches() -> float:
    return metrics.PROCESS.get_sample_value("npc_brain_embedding_batches_total") or 0.0


def test_minilm_reuses_the_vector_of_a_repeated_text_bit_for_bit() -> None:
    """A text embedded lately is not computed again: its vector is the one the model gave, bit for
    bit; the new texts of a call go to the model together, each once, and the order is the call's."""
    embedder = MiniLMEmbedder()
    try:
        first = asyncio.run(embedder.embed(["Klaus Mueller is sleeping", "Maria Lopez is studying"]))
        asked = _batches()
        again = asyncio.run(embedder.embed(["Maria Lopez is studying", "Eddy Lin is composing",
                                            "Klaus Mueller is sleeping", "Eddy Lin is composing"]))
        assert _batches() == asked + 1 and len(embedder.cache) == 3
        assert np.array_equal(again[0], first[1]) and np.array_equal(again[2], first[0])
        assert again[1] == again[3] and not np.array_equal(again[1], first[0])
        assert np.array_equal(again[1], embedder.embed_sync(["Eddy Lin is composing"])[0])  # what the model gives
    finally:
        embedder.close()


def _fake_vector(text: str, dim: int) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [float(b) - 100.0 for b in digest[:dim]]


class _EmbeddingsHandler(BaseHTTPRequestHandler):
    """Answers POST /v1/embeddings like OpenAI does, deterministically, in reverse index order."""

    dim = 8
    requests: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/v1/embeddings":
            self.send_error(404)
            return
        type(self).requests.append({"body": body, "auth": self.headers.get("Authorization")})
        data = [
            {"object": "embedding", "index": i, "embedding": _fake_vector(text, self.dim)}
            for i, text in enumerate(body["input"])
        ]
        payload = json.dumps(
            {
                "object": "list",
                "data": data[::-1],
                "model": body["model"],
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def embeddings_server() -> Iterator[str]:
    _EmbeddingsHandler.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EmbeddingsHandler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_openai_embedder_over_http(embeddings_server: str) -> None:
    texts = [f"memory number {i}" for i in range(7)]
    embedder = OpenAIEmbedder(base_url=embeddings_server, model="tiny-embed", api_key="sk-test", batch_size=3)

    async def run() -> tuple[int, list[list[float]]]:
        dim = await embedder.ensure_dim()
        vectors = await embedder.embed(texts)
        await embedder.aclose()
        return dim, vectors

    dim, vectors = asyncio.run(run())
    assert dim == embedder.dim == 8
    expected = np.array([_fake_vector(t, 8) for t in texts])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(vectors, expected, atol=1e-6)
    requests = _EmbeddingsHandler.requests
    assert [len(r["body"]["input"]) for r in requests] == [1, 3, 3, 1]
    assert all(r["body"]["model"] == "tiny-embed" and r["auth"] == "Bearer sk-test" for r in requests)


def test_openai_embedder_rejects_dimension_change(embeddings_server: str) -> None:
    embedder = OpenAIEmbedder(base_url=embeddings_server, model="tiny-embed", dim=16)
    with pytest.raises(ValueError, match="dimension 8"):
        asyncio.run(embedder.embed(["x"]))
    assert len(embedder.cache) == 0  # a failed call keeps nothing


def test_openai_embedder_asks_only_for_texts_it_has_not_embedded(embeddings_server: str) -> None:
    """Repeated texts cost the endpoint no request; a text that differs at all (case, a space,
    an accent) is its own and gets its own vector; with no memory for them nothing is reused."""
    embedder = OpenAIEmbedder(base_url=embeddings_server, model="tiny-embed")
    texts = ["Isabella is at the cafe", "the cafe is busy", "Isabella is at the cafe"]
    variants = ["Isabella is at the cafe ", "isabella is at the cafe", "Isabella is at the café"]

    async def run() -> tuple[list[list[float]], list[list[float]], list[list[float]]]:
        first = await embedder.embed(texts)
        again = await embedder.embed(texts[::-1])
        return first, again, await embedder.embed([*variants, texts[1]])

    first, again, varied = asyncio.run(run())
    inputs = [r["body"]["input"] for r in _EmbeddingsHandler.requests]
    assert inputs == [texts[:2], variants]
    assert again == first[::-1] and first[0] == first[2]
    expected = np.array([_fake_vector(t, 8) for t in [*variants, texts[1]]], dtype=np.float32)
    assert varied == (expected / np.linalg.norm(expected, axis=1, keepdims=True)).tolist()

    uncached = OpenAIEmbedder(base_url=embeddings_server, model="tiny-embed", cache_mib=0)
    asyncio.run(uncached.embed(texts[:1]))
    asyncio.run(uncached.embed(texts[:1]))
    assert [r["body"]["input"] for r in _EmbeddingsHandler.requests][2:] == [texts[:1], texts[:1]]


def test_minilm_serves_the_calls_after_one_that_gave_up(minilm: MiniLMEmbedder) -> None:
    """A caller cancelled while its texts wait (a deadline passed) is left out of the batch; the
    calls waiting with it, and those after, are answered."""

    async def main() -> list[list[list[float]]]:
        waiting = [asyncio.ensure_future(minilm.embed([f"text {i}"])) for i in range(20)]
        await asyncio.sleep(0)
        for task in waiting[::2]:
            task.cancel()
        kept = await asyncio.gather(*waiting[1::2])
        return [*kept, await minilm.embed(["after"])]

    answers = asyncio.run(asyncio.wait_for(main(), 30))
    assert len(answers) == 11 and all(len(a) == 1 and len(a[0]) == 384 for a in answers)



def _model_batches() -> float:
    return metrics.PROCESS.get_sample_value("npc_brain_embedding_model_batches_total") or 0.0


class _Watched(MiniLMEmbedder):
    """Says when a call's texts are queued for the embedding thread."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.queued = threading.Event()

    async def _embed_new(self, texts: list[str]) -> np.ndarray:
        sent = asyncio.ensure_future(super()._embed_new(texts))
        await asyncio.sleep(0)  # it runs up to its wait, its texts queued
        self.queued.set()
        return await sent


def _embed_in_thread(embedder: _Watched, texts: list[str], got: list[list[list[float]]]) -> threading.Thread:
    """The call started on a thread of its own and held by the embedding thread (taken, in its window)."""
    thread = threading.Thread(target=lambda: got.append(asyncio.run(embedder.embed(texts))))
    thread.start()
    assert embedder.queued.wait(60)
    while not embedder._requests.empty():
        threading.Event().wait(0.01)
    return thread


def test_minilm_embeds_calls_that_come_within_the_window_in_one_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """At 1,000 NPCs in view the calls come one text at a time, and a text alone costs the model
    more CPU than one in a batch: a call waits up to the window for others (here until the batch
    is full, COALESCE_TEXTS), so texts asked after the first was taken go in its batch."""
    monkeypatch.setattr(embeddings, "COALESCE_TEXTS", 3)
    embedder = _Watched(cache_mib=0, window_s=600.0)  # only a full batch ends the wait here
    try:
        asked, got = _model_batches(), []
        first = _embed_in_thread(embedder, ["the cafe opens at eight"], got)
        vectors = asyncio.run(embedder.embed(["the bakery sells out by noon", "Klaus is writing"]))
        first.join()
        assert _model_batches() == asked + 1 and [len(got[0]), len(vectors)] == [1, 2]
    finally:
        embedder.close()


def test_minilm_closing_ends_the_window() -> None:
    """A call waiting out a long window is embedded at once when the embedder closes."""
    embedder = _Watched(cache_mib=0, window_s=600.0)
    got: list[list[list[float]]] = []
    waiting = _embed_in_thread(embedder, ["the cafe opens at eight"], got)
    embedder.close()
    waiting.join()
    assert [len(v) for v in got[0]] == [384]
