"""The static embedder distilled from MiniLM (llm/static_embed.py), for real: the shipped model run
over a small vocabulary (the tokens of these tests' texts, so a build takes seconds, not the
minutes of the whole vocabulary), the table cached and reused, and the store's embedder check."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
import os
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from brain_server.check import checks
from brain_server.config import Settings
from brain_server.llm.embeddings import CPU, StaticEmbedder, check_store_embedder
from brain_server.llm.minilm import TOKENIZER_FILE
from brain_server.llm.static_embed import BUILDS, STATIC_DIM, StaticModel, table_path
from brain_server.model.errors import ConfigError
from brain_server.persistence.storage.edge import EdgeMemoryStore
from npc_lab.retrieval_bench import retrieval_quality
from npc_lab.retrieval_set import MEMORIES, QUERIES

BAKING = ("the baker is baking fresh bread in the oven", "loaves and buns from the bakery")
STORM = ("a storm with heavy rain and wind over the sea", "thunder and lightning over the harbour waves")
SICK = ("the old woman has a fever and a cough", "the healer gives medicine to the sick")
TEXTS = (*BAKING, *STORM, *SICK, "hello", "")


def tokenizer() -> Tokenizer:
    """MiniLM's tokenizer as the static model uses it: whole texts (the file pads to 128, cuts at 128)."""
    whole = Tokenizer.from_file(str(TOKENIZER_FILE))
    whole.no_padding()
    whole.no_truncation()
    return whole


def vocabulary() -> list[int]:
    return sorted({i for e in tokenizer().encode_batch(list(TEXTS), add_special_tokens=False) for i in e.ids})


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def static(cache_dir: Path) -> StaticEmbedder:
    return StaticEmbedder(cache_dir, cache_mib=0, token_ids=vocabulary())


def count(counter: object) -> float:
    return counter._value.get()  # type: ignore[attr-defined]


def test_same_text_same_unit_vector(static: StaticEmbedder) -> None:
    first = np.array(asyncio.run(static.embed(list(TEXTS))))
    again = np.array(asyncio.run(static.embed(list(reversed(TEXTS)))))[::-1]
    assert first.shape == (len(TEXTS), STATIC_DIM) and static.dim == STATIC_DIM
    assert np.array_equal(first, again)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)  # the empty text too: the store's cosine


def test_related_texts_are_nearer_than_unrelated(static: StaticEmbedder) -> None:
    vectors = dict(zip(TEXTS, static.model.embed(TEXTS), strict=True))
    for (a, b), others in ((BAKING, STORM + SICK), (STORM, BAKING + SICK), (SICK, BAKING + STORM)):
        related = float(vectors[a] @ vectors[b])
        assert all(related > float(vectors[a] @ vectors[o]) for o in others), (a, b)


def test_the_cached_table_is_reused_not_built_again(static: StaticEmbedder, cache_dir: Path) -> None:
    builds = count(BUILDS)
    again = StaticModel(cache_dir, token_ids=vocabulary())
    assert count(BUILDS) == builds and again.built_s is None and again.path == static.model.path
    assert np.array_equal(again.embed(TEXTS), static.model.embed(TEXTS))
    other = StaticModel(cache_dir, token_ids=vocabulary()[:-1])  # another vocabulary: another table
    assert count(BUILDS) == builds + 1 and other.built_s is not None and other.path != again.path
    assert sorted(p.suffix for p in cache_dir.iterdir()) == [".npy", ".npy"]  # no partial file left


def test_a_table_is_named_by_its_model_files_as_they_are_now(tmp_path: Path) -> None:
    """Its name is kept while the files' sizes and times of change stay (a start hashed the model's
    23 MB each time); a changed model names another table, and a file changed back the first again."""
    model, words = tmp_path / "model.onnx", tmp_path / "tokenizer.json"
    model.write_bytes(b"model")
    words.write_bytes(b"words")
    first = table_path(tmp_path, model, words, STATIC_DIM)
    assert table_path(tmp_path, model, words, STATIC_DIM) == first != table_path(tmp_path, model, words, 8)
    model.write_bytes(b"other")
    os.utime(model, ns=(1, 1))
    assert table_path(tmp_path, model, words, STATIC_DIM) != first
    model.write_bytes(b"model")
    assert table_path(tmp_path, model, words, STATIC_DIM) == first


def test_its_cpu_is_counted_in_the_brains_process(static: StaticEmbedder) -> None:
    before = count(CPU)
    static.embed_sync(["the baker is baking"] * 2000)
    assert count(CPU) > before


def test_a_store_made_by_another_embedder_is_refused(static: StaticEmbedder, tmp_path: Path) -> None:
    """A store from before the embedder's name was kept (MiniLM's 384 numbers a memory) and one
    kept under another name are both refused, and nothing of theirs is changed."""
    settings = Settings(data_dir=tmp_path, embedder="static")
    EdgeMemoryStore(tmp_path / "qdrant", 384, sync_after_s=0).close()
    with pytest.raises(ConfigError, match=r"embedded by an earlier embedder \(384 numbers each\).*static-minilm-256"):
        check_store_embedder(settings, static, static.dim)
    assert not (tmp_path / "qdrant" / "embedder.json").exists()

    fresh = Settings(data_dir=tmp_path / "fresh", embedder="static")
    check_store_embedder(fresh, static, static.dim)  # a new store takes the embedder's name
    check_store_embedder(fresh, static, static.dim)  # and is opened again by the same
    other = StaticEmbedder(static.model.path.parent, cache_mib=0, token_ids=vocabulary()[:-1])  # another table
    with pytest.raises(ConfigError, match=f"embedded by {static.name} .*{other.name}"):
        check_store_embedder(fresh, other, other.dim)  # the same size, another model


@pytest.mark.parametrize("text", ["Klaus Mueller is sleeping.", "don't stop--now!! (3.5 km)", "Café naïve résumé",
                                  "cafe\u0301 under_score x2 東京 tower", "  spaces\tand\nnewlines  ", ""])
def test_a_texts_tokens_are_the_tokenizers_for_the_whole_text(static: StaticEmbedder, text: str) -> None:
    """Words are tokenized once and looked up after: the ids must be those of the whole text."""
    whole = tokenizer().encode(text, add_special_tokens=False).ids
    assert static.model.token_ids(text) == whole
    assert static.model.token_ids(text) == whole  # the second time from the words kept


def test_the_retrieval_sets_figures_reward_what_a_person_judged_relevant() -> None:
    """recall@10 and MRR of `npc-lab bench embed`: 1 for an embedder that knows the judged lines,
    less for the bag of words, and every judged line is one of the set's."""
    keys = list(MEMORIES)
    assert all(k in MEMORIES for _, relevant in QUERIES for k in relevant)

    def oracle(texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), len(keys)), dtype=np.float32)
        judged = dict(QUERIES)
        for row, text in enumerate(texts):
            for k in judged.get(text, [k for k in keys if MEMORIES[k] == text]):
                out[row, keys.index(k)] = 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    figures = retrieval_quality({"oracle": oracle})
    assert figures["oracle"] == {"recall_at_10": 1.0, "mrr": 1.0}
    assert 0.3 < figures["bag of words (tf-idf)"]["recall_at_10"] < 0.9


def test_check_names_a_store_of_another_embedder_without_opening_it(tmp_path: Path) -> None:
    """`npc-brain check` on a store of 64-number memories (an endpoint's) with the local MiniLM: the
    embeddings row says which made them, and the store is not opened with MiniLM's size (the engine
    said only 'config is incompatible with existing segments')."""
    EdgeMemoryStore(tmp_path / "qdrant", 64, sync_after_s=0).close()
    rows = dict(asyncio.run(checks(Settings(data_dir=tmp_path, embeddings_cache_mib=0))))
    assert rows["embeddings"].verdict == "wrong"
    assert "embedded by an earlier embedder (64 numbers each)" in rows["embeddings"].line
    assert "all-MiniLM-L6-v2-onnx-int8 (384)" in rows["embeddings"].line
    assert rows["store"].verdict == "ok" and not (tmp_path / "qdrant" / "embedder.json").exists()
