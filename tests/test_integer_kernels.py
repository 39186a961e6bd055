"""MiniLM's integer kernels (brain_server/llm/integer_kernels.py): built once from the shipped model
by onnxruntime's quantizer, really integer, giving MiniLM's vectors; where they cannot be built the
float kernels run and the log says why."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
import importlib.util
from pathlib import Path

import numpy as np
import onnx
import pytest
from structlog.testing import capture_logs

from brain_server.config import Settings
from brain_server.llm.embeddings import MiniLMEmbedder, make_embedder
from brain_server.llm.integer_kernels import integer_model, integer_model_path
from brain_server.llm.minilm import model_files
from brain_server.runtime import metrics

TEXTS = ["drinking coffee at the cafe", "having an espresso in a coffee shop", "repairing a car engine",
         "Isabella Rodriguez is planning a Valentine's Day party at Hobbs Cafe", "the stove is burning", "hi",
         "Klaus Mueller's plan for 09:00-12:00: reading at the library (30 min); writing notes (90 min)"]


def builds() -> float:
    return metrics.PROCESS.get_sample_value("npc_brain_embedding_integer_builds_total") or 0.0


@pytest.fixture(scope="module")
def kernels_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("kernels")


@pytest.fixture(scope="module")
def integer(kernels_dir: Path) -> Iterator[MiniLMEmbedder]:
    embedder = MiniLMEmbedder(cache_mib=0, kernels_dir=kernels_dir)
    yield embedder
    embedder.close()


def test_the_built_model_multiplies_in_integers_and_gives_minilm_s_vectors(integer: MiniLMEmbedder,
                                                                           kernels_dir: Path) -> None:
    assert integer.integer_kernels
    built = integer_model_path(model_files(None, None)[0], kernels_dir)
    ops = [node.op_type for node in onnx.load(str(built)).graph.node]
    assert ops.count("MatMulInteger") >= 36 and "MatMulInteger" not in {
        n.op_type for n in onnx.load(str(model_files(None, None)[0])).graph.node}
    assert [p.name for p in kernels_dir.iterdir()] == [built.name]  # no folded or partial file left
    float_kernels = MiniLMEmbedder(cache_mib=0)
    try:
        ours, shipped = (np.array(asyncio.run(e.embed(TEXTS))) for e in (integer, float_kernels))
    finally:
        float_kernels.close()
    cosines = (ours * shipped).sum(axis=1)
    assert cosines.min() > 0.8 and cosines.mean() > 0.9, cosines
    coffee, espresso, engine = ours[:3]
    assert coffee @ espresso > coffee @ engine + 0.3


def test_the_kernels_are_built_once_per_folder(integer: MiniLMEmbedder, kernels_dir: Path) -> None:
    before = builds()
    again = MiniLMEmbedder(cache_mib=0, kernels_dir=kernels_dir)
    try:
        assert again.integer_kernels and builds() == before
        assert np.allclose(asyncio.run(again.embed(TEXTS)), asyncio.run(integer.embed(TEXTS)), atol=1e-6)
    finally:
        again.close()


def test_where_they_cannot_be_built_the_float_kernels_run_and_the_log_says_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with capture_logs() as logs:
        assert integer_model(broken, tmp_path / "cache") is None
    assert any("building its integer kernels failed" in e["event"] and e["error"] for e in logs), logs
    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "onnx" else found(name, *a))
    with capture_logs() as logs:
        assert integer_model(model_files(None, None)[0], tmp_path / "other") is None
    assert any("needs the onnx package" in e["event"] for e in logs), logs
    assert not (tmp_path / "other").exists()


def test_the_brain_s_minilm_runs_integer_kernels_from_its_cache_unless_set_otherwise(
        kernels_dir: Path, integer: MiniLMEmbedder, tmp_path: Path) -> None:
    for settings, integer_kernels_run in ((Settings(data_dir=tmp_path, embeddings_table_dir=kernels_dir), True),
                                          (Settings(data_dir=tmp_path, embedder_integer_kernels=False), False)):
        embedder = make_embedder(settings)
        try:
            assert isinstance(embedder, MiniLMEmbedder) and embedder.integer_kernels is integer_kernels_run
            assert embedder.name == integer.name  # one vector space: a store keeps its embedder's name
        finally:
            embedder.close()
    assert not (tmp_path / "cache").exists()
