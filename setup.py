"""Build step that generates the protocol's Python code from proto/ (grpcio-tools + connectrpc).

The generated package `npc_brain.v1` is never edited by hand and never committed: every
install (editable or not) regenerates it from the .proto files before packages are collected.
"""

from pathlib import Path
import shutil
import subprocess
import sys

from setuptools import setup

ROOT = Path(__file__).resolve().parent


def generate_protocol_code() -> None:
    proto_root = ROOT / "proto"
    out = ROOT
    protos = sorted(str(p.relative_to(proto_root)) for p in proto_root.rglob("*.proto"))
    plugin = shutil.which("protoc-gen-connectrpc") or str(Path(sys.executable).parent / "protoc-gen-connectrpc")
    cmd = [
        sys.executable, "-m", "grpc_tools.protoc", f"-I{proto_root}",
        f"--python_out={out}", f"--pyi_out={out}", f"--grpc_python_out={out}",
        f"--plugin=protoc-gen-connectrpc={plugin}", f"--connectrpc_out={out}",
        "--connectrpc_opt=protobuf=google", *protos,
    ]
    subprocess.run(cmd, check=True)
    for package in {(out / p).parent for p in protos} | {out / "npc_brain"}:
        (package / "__init__.py").touch()


generate_protocol_code()
setup()
