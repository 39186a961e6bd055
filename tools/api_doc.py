"""Writes docs/api.md, the API reference, from the proto files and their comments.

protoc (grpcio-tools) parses proto/ into descriptors with their source comments, so the reference
says exactly what the .proto says, and a test (tests/test_api_doc.py) fails when the two differ:

    .venv/bin/python -m tools.api_doc          # rewrite docs/api.md
    .venv/bin/python -m tools.api_doc --check  # exit status 1 if docs/api.md is out of date
"""

from __future__ import annotations

from pathlib import Path
import sys
import tempfile

from google.protobuf import descriptor_pb2
from google.protobuf.descriptor_pb2 import FieldDescriptorProto as Field
from grpc_tools import protoc

from tools.generated import ROOT, write_or_check

PROTO_ROOT = ROOT / "proto"
OUT = ROOT / "docs" / "api.md"
# Source-info paths: FileDescriptorProto field numbers (message_type 4, enum_type 5, service 6) and,
# inside them, DescriptorProto.field 2, nested_type 3, enum_type 4; EnumDescriptorProto.value 2;
# ServiceDescriptorProto.method 2.
_MESSAGE, _ENUM, _SERVICE, _FIELD, _NESTED, _NESTED_ENUM, _VALUE, _METHOD = 4, 5, 6, 2, 3, 4, 2, 2
_SCALARS = {
    Field.TYPE_DOUBLE: "double", Field.TYPE_FLOAT: "float", Field.TYPE_INT64: "int64", Field.TYPE_UINT64: "uint64",
    Field.TYPE_INT32: "int32", Field.TYPE_FIXED64: "fixed64", Field.TYPE_FIXED32: "fixed32", Field.TYPE_BOOL: "bool",
    Field.TYPE_STRING: "string", Field.TYPE_BYTES: "bytes", Field.TYPE_UINT32: "uint32", Field.TYPE_SFIXED32: "sfixed32",
    Field.TYPE_SFIXED64: "sfixed64", Field.TYPE_SINT32: "sint32", Field.TYPE_SINT64: "sint64",
}


def descriptors() -> descriptor_pb2.FileDescriptorSet:
    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in PROTO_ROOT.rglob("*.proto"))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.pb"
        include = Path(protoc.__file__).parent / "_proto"  # google/protobuf/*.proto shipped with grpcio-tools
        status = protoc.main(["protoc", f"-I{PROTO_ROOT}", f"-I{include}", "--include_source_info",
                              f"--descriptor_set_out={out}", *protos])
        if status:
            raise SystemExit(f"api_doc: protoc failed on {protos} (status {status})")
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


class Comments:
    def __init__(self, file: descriptor_pb2.FileDescriptorProto) -> None:
        # A comment above an element, or else after it on its line.
        self.by_path = {tuple(loc.path): loc.leading_comments or loc.trailing_comments
                        for loc in file.source_code_info.location}

    def __call__(self, *path: int, inline: bool = False) -> str:
        text = " ".join(line.strip() for line in self.by_path.get(path, "").strip().splitlines())
        return text.replace("|", "\\|") if inline else "\n".join(
            line.strip() for line in self.by_path.get(path, "").strip().splitlines())


def _type(field: descriptor_pb2.FieldDescriptorProto, package: str) -> str:
    name = _SCALARS.get(field.type) or field.type_name.lstrip(".").removeprefix(f"{package}.")
    if field.type in (Field.TYPE_MESSAGE, Field.TYPE_ENUM) and "." not in name:
        name = f"[{name}](#{name.lower()})"
    return f"repeated {name}" if field.label == Field.LABEL_REPEATED else name


def render(files: descriptor_pb2.FileDescriptorSet) -> str:
    lines = ["# API reference", "",
             "Generated from `proto/` by `python -m tools.api_doc` (do not edit by hand; `tests/test_api_doc.py` checks it).",
             "Every RPC is served over gRPC and over Connect on the HTTP port: `POST /<package>.<Service>/<Method>`",
             "with a JSON body whose fields are the messages' in lowerCamelCase (or proto names);",
             "a `google.protobuf.Timestamp` is an RFC 3339 string there, e.g. `\"2026-02-13T09:00:00Z\"`.", ""]
    for file in files.file:
        if file.name.startswith("google/"):
            continue
        comment, package = Comments(file), file.package
        lines += [f"## `{file.name}` (package `{package}`)", "", comment(12), ""]  # 12: the syntax statement
        for s, service in enumerate(file.service):
            lines += [f"### Service `{service.name}`", "", comment(_SERVICE, s), "",
                      "| RPC | Request | Response | Description |", "|---|---|---|---|"]
            for m, method in enumerate(service.method):
                request, response = (t.lstrip(".").removeprefix(f"{package}.") for t in
                                     (method.input_type, method.output_type))
                lines.append(f"| `{method.name}` | [{request}](#{request.lower()}) | [{response}](#{response.lower()}) "
                             f"| {comment(_SERVICE, s, _METHOD, m, inline=True)} |")
            lines.append("")
        lines += ["### Messages", ""]
        for i, message in enumerate(file.message_type):
            lines += _message(message, (_MESSAGE, i), comment, package)
        if file.enum_type:
            lines += ["### Enums", ""]
        for i, enum in enumerate(file.enum_type):
            lines += _enum(enum, (_ENUM, i), comment)
    return "\n".join(lines).replace("\n\n\n", "\n\n").rstrip() + "\n"


def _message(message: descriptor_pb2.DescriptorProto, path: tuple[int, ...], comment: Comments,
             package: str, prefix: str = "") -> list[str]:
    name = prefix + message.name
    lines = [f"#### {name}", ""]
    if text := comment(*path):
        lines += [text, ""]
    if message.field:
        lines += ["| Field | Type | Description |", "|---|---|---|"]
        lines += [f"| `{field.name}` | {_type(field, package)} | {comment(*path, _FIELD, f, inline=True)} |"
                  for f, field in enumerate(message.field)]
    else:
        lines.append("No fields.")
    lines.append("")
    for n, nested in enumerate(message.nested_type):
        if not nested.options.map_entry:
            lines += _message(nested, (*path, _NESTED, n), comment, package, f"{name}.")
    for e, enum in enumerate(message.enum_type):
        lines += _enum(enum, (*path, _NESTED_ENUM, e), comment, f"{name}.")
    return lines


def _enum(enum: descriptor_pb2.EnumDescriptorProto, path: tuple[int, ...], comment: Comments,
          prefix: str = "") -> list[str]:
    lines = [f"#### {prefix}{enum.name}", ""]
    if text := comment(*path):
        lines += [text, ""]
    lines += ["| Value | Number | Description |", "|---|---|---|"]
    lines += [f"| `{value.name}` | {value.number} | {comment(*path, _VALUE, v, inline=True)} |"
              for v, value in enumerate(enum.value)]
    return [*lines, ""]


def main() -> int:
    return write_or_check("tools.api_doc", __doc__.splitlines()[0], OUT, lambda: render(descriptors()))


if __name__ == "__main__":
    sys.exit(main())
