"""A static embedder distilled from the MiniLM we ship (the model2vec recipe, in numpy): a vector per
WordPiece token, a text's vector the weighted mean of its tokens' vectors. Microseconds of CPU per
text where MiniLM takes ~10-15 ms (docs/benchmarks.md, issue 44).

The table is built once from the shipped model, not downloaded: MiniLM embeds every vocabulary
token on its own ([CLS] token [SEP], mean-pooled as a sentence), PCA (numpy SVD) keeps `dim`
components, and each token's row is scaled by its SIF weight a / (a + p), p its Zipf frequency
1 / (rank x H) with the WordPiece ids from "the" on standing for frequency ranks (frequent words,
"the", "is", and punctuation weigh least; model2vec's defaults, 256 dims and a = 1e-4, were also
the best of the weightings tried on our retrieval set, docs/benchmarks.md). The build runs in a
process of its own (onnxruntime stays out of the brain) and is cached under DATA_DIR/cache, named by
the hash of the model, the tokenizer and this recipe, so a new model or recipe builds a new table.
"""

from __future__ import annotations

from collections.abc import Sequence
import json
import os
from pathlib import Path
import re
import subprocess
import sys
import time
from typing import Any

import numpy as np
from prometheus_client import Counter
import structlog

from brain_server.llm.minilm import EmbedderUnavailable, files_digest, model_files, unit_rows
from brain_server.runtime import metrics

log = structlog.get_logger(__name__)
STATIC_DIM = 256  # PCA components kept (model2vec's default); not MiniLM's 384, so a store of one is not read with the other
RECIPE = "minilm-tokens-pca-sif-v1"  # part of the table's hash: a change here builds the table again
SIF = 1e-4  # a: how far the weight of a frequent token falls
BUILD_BATCH = 512  # one-token sentences per onnxruntime run while building
WORDS_KEPT = 50_000  # words whose token ids are kept (a town repeats its words); beyond, all are forgotten
# Chunks no WordPiece token crosses (the BERT pre-tokenizer splits at spaces and at each punctuation
# mark): a text's ids are its chunks' ids, each chunk tokenized once and then looked up.
_CHUNK = re.compile(r"\w+|[^\w\s]")
_SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
# The tables this process opened, shared by every later StaticModel of it and by its forks (the tests'
# brains are forks of one process that opened the tests' table, tests/zygote.py), by path, which
# names the model, tokenizer and recipe (`files_digest`).
_OPENED: dict[Path, tuple[np.ndarray, Any]] = {}
BUILDS = Counter("npc_brain_embedding_table_builds", "Static embedding tables distilled from MiniLM (once per "
                 "model, recipe and DATA_DIR: later starts load the cached table).", registry=metrics.PROCESS)


def table_path(cache_dir: Path, model_path: Path, tokenizer_path: Path, dim: int,
               token_ids: Sequence[int] | None = None) -> Path:
    """Where the table for this model, tokenizer, recipe and size lives (the hash names all four)."""
    ids = list(token_ids) if token_ids is not None else "all"
    digest = files_digest(f"{RECIPE}:{dim}:{ids}", (model_path, tokenizer_path))
    return cache_dir / f"static-minilm-{dim}-{digest[:16]}.npy"


def token_vectors(model_path: Path, tokenizer_path: Path, ids: np.ndarray) -> np.ndarray:
    """MiniLM's sentence vector of each token alone ([CLS] token [SEP], mean pooled), float32 rows."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    vocab = Tokenizer.from_file(str(tokenizer_path)).get_vocab()
    cls, sep = vocab["[CLS]"], vocab["[SEP]"]
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # beside a serving brain on 2 cores: one core, the other left to it
    options.log_severity_level = 3
    session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}
    out = np.zeros((len(ids), 384), dtype=np.float32)
    for start in range(0, len(ids), BUILD_BATCH):
        chunk = ids[start : start + BUILD_BATCH]
        feeds = {"input_ids": np.stack([np.full(len(chunk), cls), chunk, np.full(len(chunk), sep)], axis=1)
                 .astype(np.int64)}
        feeds["attention_mask"] = np.ones_like(feeds["input_ids"])
        if "token_type_ids" in names:
            feeds["token_type_ids"] = np.zeros_like(feeds["input_ids"])
        out[start : start + len(chunk)] = session.run(None, feeds)[0].mean(axis=1)
    return out


def sif_weights(first_word: int, size: int, ids: np.ndarray) -> np.ndarray:
    """a / (a + p(token)), p by Zipf's law from the token's rank: its id counted from the first word's
    (WordPiece lists its words by frequency; the ids before, characters and unused slots, rank first)."""
    rank = np.maximum(1, ids - first_word + 1).astype(np.float64)
    frequency = 1 / (rank * (np.log(size) + np.euler_gamma))
    weights: np.ndarray = SIF / (SIF + frequency)
    return weights


def distill(model_path: Path, tokenizer_path: Path, dim: int = STATIC_DIM,
            token_ids: Sequence[int] | None = None) -> np.ndarray:
    """The table: one float16 row per vocabulary id (zeros for special tokens and ids not distilled)."""
    from tokenizers import Tokenizer

    vocab = Tokenizer.from_file(str(tokenizer_path)).get_vocab()
    special = {vocab[t] for t in _SPECIAL if t in vocab}
    ids = np.array(sorted(set(range(len(vocab)) if token_ids is None else token_ids) - special), dtype=np.int64)
    vectors = token_vectors(model_path, tokenizer_path, ids)
    centred = vectors - vectors.mean(axis=0)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    kept = min(dim, components.shape[0])
    reduced = centred @ components[:kept].T
    table = np.zeros((len(vocab), dim), dtype=np.float32)
    table[ids, :kept] = reduced * sif_weights(vocab["the"], len(vocab), ids)[:, None]
    return table.astype(np.float16)


def build(path: Path, model_path: Path, tokenizer_path: Path, dim: int, token_ids: Sequence[int] | None) -> float:
    """Distil the table into `path` (written whole, then renamed: a reader never sees half of one);
    the seconds it took."""
    began = time.monotonic()
    table = distill(model_path, tokenizer_path, dim, token_ids)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.partial")
    with partial.open("wb") as f:
        np.save(f, table)
    partial.replace(path)
    return time.monotonic() - began


class StaticModel:
    """The distilled table and the tokenizer: a text's unit vector is the mean of its tokens' rows."""

    def __init__(self, cache_dir: Path, *, dim: int = STATIC_DIM, model_path: Path | None = None,
                 tokenizer_path: Path | None = None, token_ids: Sequence[int] | None = None) -> None:
        from tokenizers import Tokenizer

        model_path, tokenizer_path = model_files(model_path, tokenizer_path)
        self.path = table_path(cache_dir, model_path, tokenizer_path, dim, token_ids)
        self.built_s: float | None = None
        if not self.path.is_file():
            self.built_s = self._build(model_path, tokenizer_path, dim, token_ids)
        if (opened := _OPENED.get(self.path)) is None:
            table = np.load(self.path).astype(np.float32)  # 31 MB: summing float16 rows cost 2.5x the CPU
            table.flags.writeable = False  # shared (_OPENED)
            tokenizer = Tokenizer.from_file(str(tokenizer_path))
            tokenizer.no_truncation()
            tokenizer.no_padding()
            opened = _OPENED[self.path] = (table, tokenizer)
        self.table: np.ndarray = opened[0]
        self._tokenizer: Tokenizer = opened[1]
        self.dim = dim
        self._words: dict[str, list[int]] = {}

    def _build(self, model_path: Path, tokenizer_path: Path, dim: int, token_ids: Sequence[int] | None) -> float:
        """Built in a process of its own, so the brain never loads onnxruntime."""
        log.info("building the static embedding table from MiniLM, once (minutes on 2 cores)", path=str(self.path))
        BUILDS.inc()
        options = {"path": str(self.path), "model_path": str(model_path), "tokenizer_path": str(tokenizer_path),
                   "dim": dim, "token_ids": None if token_ids is None else list(token_ids)}
        done = subprocess.run([sys.executable, "-m", __name__, json.dumps(options)], capture_output=True, text=True,
                              check=False)
        if done.returncode != 0 or not self.path.is_file():
            raise EmbedderUnavailable(f"building the static embedding table failed: {done.stderr.strip()[-2000:]}")
        built_s = float(done.stdout.strip().splitlines()[-1])
        log.info("static embedding table built", path=str(self.path), seconds=round(built_s, 1))
        return built_s

    def token_ids(self, text: str) -> list[int]:
        """The text's WordPiece ids, as the tokenizer gives them for the whole text (without [CLS] and
        [SEP]), from its chunks' ids: tokenizing a text took ~100 us, looking its words up ~25."""
        ids: list[int] = []
        for chunk in _CHUNK.findall(text):
            found = self._words.get(chunk)
            if found is None:
                if len(self._words) >= WORDS_KEPT:
                    self._words.clear()
                found = self._words[chunk] = self._tokenizer.encode(chunk, add_special_tokens=False).ids
            ids += found
        return ids

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text (float32 rows); a text without a distilled token (empty, only
        special tokens) is the first axis, a unit vector like every other (the store's cosine needs one)."""
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = np.add.reduce(self.table.take(self.token_ids(text), axis=0))
        out[~out.any(axis=1), 0] = 1.0
        return unit_rows(out)


def main(options: dict[str, Any]) -> None:
    """The build process: the table written to options["path"], the seconds it took on stdout."""
    seconds = build(Path(options["path"]), Path(options["model_path"]), Path(options["tokenizer_path"]),
                    int(options["dim"]), options.get("token_ids"))
    print(f"{seconds:.3f}")


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
