"""MiniLM with integer matrix products: the shipped model's weights are int8, but its graph casts
them to float32 and multiplies in float (`Cast` -> `Mul` -> `MatMul`). Folding those constants and
quantizing the products dynamically (onnxruntime's `quantize_dynamic`: int8 weights, activations
quantized per batch, `MatMulInteger`) costs about half the CPU a text, and kept retrieval on our set
(recall@10 0.908 against 0.897; a store holding vectors of both still 0.90: docs/benchmarks.md,
issue 44), so the vectors are taken as the same model's and a store keeps its embedder's name.

Built once per model and onnxruntime version (seconds), in a process of its own (onnxruntime's
quantizer stays out of the brain), into a cache folder (DATA_DIR/cache unless set), named by their
hash. Building needs the `onnx` package (the quantizer reads models with it); where it cannot be
built the shipped float kernels run, and the log says why.
"""

from __future__ import annotations

from importlib.metadata import version
import importlib.util
import json
import os
from pathlib import Path
import subprocess
import sys

from prometheus_client import Counter
import structlog

from brain_server.llm.minilm import files_digest
from brain_server.runtime import metrics

log = structlog.get_logger(__name__)
RECIPE = "ort-basic-fold+quantize-dynamic-qint8-v1"  # part of the file's hash: a change builds it again
BUILDS = Counter("npc_brain_embedding_integer_builds", "MiniLM models with integer kernels built (once per model, "
                 "onnxruntime version and cache folder: later starts load the cached file).", registry=metrics.PROCESS)


def integer_model_path(model_path: Path, cache_dir: Path) -> Path:
    """Where the integer-kernel model for `model_path` lives in `cache_dir` (the hash names the
    model's bytes, the recipe and onnxruntime's version; read once a process per model file)."""
    digest = files_digest(f"{RECIPE}:{version('onnxruntime')}", (model_path,))
    return cache_dir / f"minilm-integer-{digest[:16]}.onnx"


def integer_model(model_path: Path, cache_dir: Path) -> Path | None:
    """The integer-kernel model for `model_path`, built into `cache_dir` by a process of its own if
    it is not there; None (logged: the float kernels run) where it cannot be built."""
    target = integer_model_path(model_path, cache_dir)
    if target.is_file():
        return target
    if importlib.util.find_spec("onnx") is None:
        log.warning("MiniLM runs its float kernels: building its integer kernels needs the onnx package "
                    "(pip install onnx), or set NPC_BRAIN_EMBEDDER_INTEGER_KERNELS=false")
        return None
    log.info("building MiniLM's integer kernels, once", path=str(target))
    BUILDS.inc()
    done = subprocess.run([sys.executable, "-m", __name__, json.dumps([str(model_path), str(target)])],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0 or not target.is_file():
        log.warning("MiniLM runs its float kernels: building its integer kernels failed",
                    error=done.stderr.strip()[-2000:])
        return None
    return target


def build(model_path: Path, target: Path) -> None:
    """The integer-kernel model written to `target` (whole under another name, then renamed: a
    brain starting beside the build never reads half of one)."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target.parent.mkdir(parents=True, exist_ok=True)
    folded, partial = (target.with_suffix(f".{os.getpid()}.{part}") for part in ("folded", "partial"))
    try:
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC  # constants folded
        options.optimized_model_filepath = str(folded)
        options.log_severity_level = 3
        ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        quantize_dynamic(str(folded), str(partial), weight_type=QuantType.QInt8)
        partial.replace(target)
    finally:
        folded.unlink(missing_ok=True)
        partial.unlink(missing_ok=True)


if __name__ == "__main__":
    source, built = json.loads(sys.argv[1])
    build(Path(source), Path(built))
