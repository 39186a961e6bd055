"""Writes locks/: universal (Linux, macOS, Windows; Python 3.11 and newer), hashed pins of every
third-party package each install of this project needs, resolved by uv from pyproject.toml's ranges.

Each lock is installed on its own, `pip install --require-hashes --no-deps -r locks/NAME.txt`, and then
our packages with `--no-deps` (tools/setup.sh, the Dockerfile, README "Install"): pip then downloads
nothing the lock does not name, with a hash it does not list. llama-cpp-python is published as source
only and built once per machine into a wheelhouse (tools/setup.sh): its sdist's hash is pinned on its
own, in locks/llama-cpp-python.txt, since the wheel built from it has no hash a lock could know.

After changing a dependency (or to take newer releases: `--upgrade`), with uv installed (`pip install uv`):

    .venv/bin/python tools/constraints.py          # re-resolve every lock (asks PyPI), keeping its pins
    tools/setup.sh                                 # install what they now say
    .venv/bin/pytest -n 0 -q tests/test_dependencies.py

`--check` (offline) says whether each lock was resolved from what pyproject.toml asks now, and
whether this environment has what locks/dev.txt pins (exit status 1 if not).
"""

from __future__ import annotations

import argparse
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
import re
import shutil
import subprocess
import sys
import tomllib

from packaging.markers import default_environment
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
LOCKS = ROOT / "locks"
LLAMA = "llama-cpp-python"
# What each lock installs, by the requirement groups `groups()` reads from the two pyproject files.
SETS = {
    "dev": ("build", "core", "embedded-llm", "bundle", "test", "lab", "lab[plots]"),  # tools/setup.sh
    "brain-embedded-llm": ("build", "core", "embedded-llm", "lab"),  # setup.sh --runtime; the image's extra
    "brain": ("build", "core"),  # the image; a game's install of the wheel
}
INPUT = "# requirement: "
HEADER = ("# Written by `.venv/bin/python tools/constraints.py` ({what}): do not edit by hand.\n"
          "# Install: pip install --require-hashes --no-deps -r {path}\n")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def groups() -> dict[str, list[str]]:
    """The requirements as the pyproject files state them, by group; the lab's own requirement of
    the brain is ours, not a third party's."""
    brain = tomllib.loads((ROOT / "pyproject.toml").read_text())
    lab = tomllib.loads((ROOT / "npc_lab" / "pyproject.toml").read_text())["project"]
    ours = {canonical(brain["project"]["name"]), canonical(lab["name"])}
    found = {"build": brain["build-system"]["requires"], "core": brain["project"]["dependencies"],
             **brain["project"]["optional-dependencies"],
             "lab": lab.get("dependencies", []),
             **{f"lab[{extra}]": specs for extra, specs in lab.get("optional-dependencies", {}).items()}}
    return {group: [s for s in specs if canonical(Requirement(s).name) not in ours] for group, specs in found.items()}


def inputs(name: str) -> list[str]:
    """What the lock `name` is resolved from, sorted (llama-cpp-python has a lock of its own)."""
    found = groups()
    specs = {spec for group in SETS[name] for spec in found[group]}
    return sorted(s for s in specs if canonical(Requirement(s).name) != LLAMA)


def llama_spec() -> str:
    [spec] = [s for s in groups()["embedded-llm"] if canonical(Requirement(s).name) == LLAMA]
    return spec


def _uv() -> str:
    found = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if not found:
        sys.exit("constraints: uv resolves the locks: `.venv/bin/pip install uv`, then run this again")
    return found


def compile_lock(path: Path, specs: list[str], what: str, *extra: str, upgrade: bool = False) -> None:
    """uv's universal resolution of `specs` with every file's hash, under our header and the inputs;
    the versions the lock already pins are kept where they still fit, unless `upgrade`."""
    requirements, resolved = path.with_suffix(".in"), path.with_suffix(".resolved")
    requirements.write_text("".join(f"{s}\n" for s in specs))
    if path.is_file() and not upgrade:  # uv prefers the pins of the file it writes
        shutil.copyfile(path, resolved)
    try:
        done = subprocess.run([_uv(), "pip", "compile", "--universal", "--generate-hashes", "--python-version",
                               "3.11", "--no-header", "--quiet", *extra, "--output-file",
                               resolved.relative_to(ROOT).as_posix(), requirements.relative_to(ROOT).as_posix()],
                              cwd=ROOT, capture_output=True, text=True, check=False)
        out = resolved.read_text() if resolved.is_file() else ""
    finally:
        requirements.unlink()
        resolved.unlink(missing_ok=True)
    if done.returncode:
        sys.exit(f"constraints: uv could not resolve {path.name}:\n{done.stderr}")
    header = HEADER.format(what=what, path=path.relative_to(ROOT).as_posix())
    body = out.replace(f"-r {requirements.relative_to(ROOT).as_posix()}", "pyproject.toml")
    path.write_text(header + "".join(f"{INPUT}{s}\n" for s in specs) + body)


def write(upgrade: bool = False) -> None:
    """dev first (the widest), then each smaller lock constrained to dev's versions: every lock
    installs the same release of a package. Pins kept where they still fit, unless `upgrade`."""
    LOCKS.mkdir(exist_ok=True)
    dev = LOCKS / "dev.txt"
    for name in SETS:
        extra = ["--no-emit-package", LLAMA] + (["--constraint", str(dev)] if name != "dev" else [])
        compile_lock(LOCKS / f"{name}.txt", inputs(name), " + ".join(SETS[name]), *extra, upgrade=upgrade)
    compile_lock(LOCKS / f"{LLAMA}.txt", [llama_spec()], "its sdist, built into the wheelhouse", "--no-deps",
                 upgrade=upgrade)


def pins(path: Path) -> list[Requirement]:
    """The lock's pins (each `name==version`, with its markers), hashes and comments left out."""
    found = []
    for line in path.read_text().splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            found.append(Requirement(line.rstrip(" \\")))
    return found


def recorded_inputs(path: Path) -> list[str]:
    return [line[len(INPUT):] for line in path.read_text().splitlines() if line.startswith(INPUT)]


def read(path: Path | None = None) -> dict[str, str]:
    """The versions a lock (locks/dev.txt and llama-cpp-python's by default) pins for this machine."""
    paths = [path] if path else [LOCKS / "dev.txt", LOCKS / f"{LLAMA}.txt"]
    here = default_environment() | {"extra": ""}
    return {canonical(r.name): next(iter(r.specifier)).version for p in paths for r in pins(p)
            if r.marker is None or r.marker.evaluate(here)}


def closure(requirements: list[Requirement]) -> set[str]:
    """The installed distributions these requirements bring, theirs included (markers for this
    platform; a requirement's extras bring their own requirements)."""
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [(r, frozenset[str]()) for r in requirements]  # with the extras asked of the one requiring it
    while todo:
        requirement, extras = todo.pop()
        name, own = canonical(requirement.name), frozenset(requirement.extras)
        if requirement.marker and not any(requirement.marker.evaluate({"extra": e}) for e in ("", *extras)):
            continue
        if (name, own) in seen:
            continue
        seen.add((name, own))
        try:
            specs = distribution(name).requires or []
        except PackageNotFoundError:
            continue  # not installed here: nothing to compare, --check reports it
        todo += [(Requirement(spec), own) for spec in specs]
    return {name for name, _ in seen} - {"pip"}


def problems() -> list[str]:
    """Why the locks are not what pyproject.toml asks now, or not what this environment has."""
    found = []
    for name in (*SETS, LLAMA):
        path = LOCKS / f"{name}.txt"
        wanted = [llama_spec()] if name == LLAMA else inputs(name)
        if not path.exists() or recorded_inputs(path) != wanted:
            found.append(f"{path.relative_to(ROOT)}: not resolved from pyproject.toml's requirements as they are now")
            continue
        locked = {canonical(r.name): next(iter(r.specifier)).version for r in pins(path)}
        for spec in map(Requirement, wanted):
            version = locked.get(canonical(spec.name))
            if version is None or not spec.specifier.contains(version, prereleases=True):
                found.append(f"{path.relative_to(ROOT)}: {spec} is locked at {version or 'nothing'}")
    if found:
        return found
    locked = read()
    needed = closure([Requirement(s) for s in [*inputs("dev"), llama_spec()]])
    for name in sorted(needed | locked.keys()):
        try:
            have = distribution(name).version
        except PackageNotFoundError:
            have = "nothing"
        if have != locked.get(name, "nothing"):
            found.append(f"{name}: installed {have}, locks {locked.get(name, 'nothing')}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of resolving (offline)")
    parser.add_argument("--upgrade", action="store_true", help="take the newest releases pyproject.toml allows "
                        "(default: keep what the locks pin where it still fits)")
    args = parser.parse_args()
    if not args.check:
        write(args.upgrade)
        print(f"constraints: {', '.join(f'{n}.txt' for n in (*SETS, LLAMA))} written to {LOCKS.relative_to(ROOT)}/")
        return 0
    found = problems()
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
