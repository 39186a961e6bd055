"""The tests' brains embed with the static table unless a test chooses (tests/static_table.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import static_table
from tests.static_table import brain_env


def test_a_test_brain_gets_the_static_table_unless_it_chose_its_embedder(monkeypatch: pytest.MonkeyPatch,
                                                                          tmp_path: Path) -> None:
    monkeypatch.setattr(static_table, "table_dir", lambda: tmp_path)
    monkeypatch.setattr(static_table, "EMBEDDER", "static")
    env = {"NPC_BRAIN_DATA_DIR": "d"}
    assert brain_env(env) is env  # in place: the test reads what its brain ran with
    assert env == {"NPC_BRAIN_DATA_DIR": "d", "NPC_BRAIN_EMBEDDER": "static",
                   "NPC_BRAIN_EMBEDDINGS_TABLE_DIR": str(tmp_path)}
    kernels = {"NPC_BRAIN_EMBEDDINGS_TABLE_DIR": str(static_table.TABLE_DIR)}  # MiniLM's integer kernels, built once
    assert brain_env({"NPC_BRAIN_EMBEDDER": "minilm"}) == {"NPC_BRAIN_EMBEDDER": "minilm", **kernels}
    assert brain_env({"NPC_BRAIN_EMBEDDINGS_BASE_URL": "http://127.0.0.1:1/v1"}) == {
        "NPC_BRAIN_EMBEDDINGS_BASE_URL": "http://127.0.0.1:1/v1"}
    monkeypatch.setattr(static_table, "EMBEDDER", "minilm")  # NPC_TESTS_EMBEDDER=minilm
    assert brain_env({}) == {"NPC_BRAIN_EMBEDDER": "minilm", **kernels}
