"""The layers point one way: transports -> service -> mind/cognition -> storage/llm -> the ground
floor (paper, config, records of data). The brain never imports the lab or the developer tools,
and no module reaches into another package's private names. Checked on the imports as written
(parsed with ast, nothing imported), so a violation is found before anything runs it."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("brain_server", "npc_lab", "tools")


@dataclass(frozen=True)
class Import:
    importer: str  # dotted name of the importing module
    target: str  # the module imported (`from a.b import c` -> a.b.c when that is a module, else a.b)
    names: tuple[str, ...]  # what `from target import ...` takes from a module; () for a module itself
    line: int
    top_level: bool  # runs when the module is imported (not inside a function, not TYPE_CHECKING only)
    where: str

    def __str__(self) -> str:
        return f"{self.where}:{self.line}: {self.importer} imports {self.target}" + (
            f" ({', '.join(self.names)})" if self.names else "")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    """Every module of the packages: files in folders that are packages themselves (not a build/ copy)."""
    def in_packages(path: Path, top: Path) -> bool:
        return all((folder / "__init__.py").is_file() for folder in path.parents if folder.is_relative_to(top))
    return {module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))
            if in_packages(p, ROOT / package)}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.Module) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement, with whether it runs at import time."""
    def walk(node: ast.AST, top_level: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child, top_level
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                yield from walk(child, False)
            elif isinstance(child, ast.If) and _is_type_checking(child):
                yield from walk(child, False)
            else:
                yield from walk(child, top_level)
    return walk(tree, True)


def imports(known: dict[str, Path]) -> list[Import]:
    found = []
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        where = str(path.relative_to(ROOT))
        for node, top_level in _import_nodes(tree):
            if isinstance(node, ast.Import):
                found += [Import(name, alias.name, (), node.lineno, top_level, where) for alias in node.names]
                continue
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            taken = []
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    found.append(Import(name, f"{base}.{alias.name}", (), node.lineno, top_level, where))
                else:
                    taken.append(alias.name)
            if taken:
                found.append(Import(name, base, tuple(taken), node.lineno, top_level, where))
    return found


@cache
def found_imports() -> tuple[Import, ...]:
    """Every import of the packages: parsed once, when a test first asks (not at collection, which each
    xdist worker repeats), and the module's tests kept on one worker."""
    return tuple(imports(modules()))


pytestmark = pytest.mark.xdist_group("test_layers")


def _in(module: str, *layers: str) -> bool:
    return any(module == layer or module.startswith(layer + ".") for layer in layers)


def offenders(importers: tuple[str, ...], forbidden: tuple[str, ...], found: Sequence[Import] | None = None) -> list[str]:
    return [str(i) for i in (found_imports() if found is None else found) if _in(i.importer, *importers) and _in(i.target, *forbidden)]


# (who, what it must never import, why)
RULES = [
    (("brain_server",), ("npc_lab", "tools"),
     "the brain is what a game runs; the lab and the developer tools drive it from outside"),
    (("brain_server.cognition",), ("brain_server.transport", "brain_server.api.service", "brain_server.server",
                                   "brain_server.cli"),
     "cognition knows nothing of how it is served"),
    (("brain_server.persistence.storage", "brain_server.llm"), ("brain_server.cognition", "brain_server.transport",
                                                    "brain_server.api.service", "brain_server.server", "brain_server.cli"),
     "storage and the LLM layer sit below cognition"),
    (("brain_server.model.paper",), ("brain_server",), "the paper's constants are the ground floor"),
    (("brain_server.config",), ("brain_server.cognition", "brain_server.persistence.storage", "brain_server.llm",
                                "brain_server.transport", "brain_server.api.service", "brain_server.server"),
     "settings are read by every layer, so they import none of them"),
]


@pytest.mark.parametrize(("importers", "forbidden", "why"), RULES,
                         ids=[rule[0][-1] for rule in RULES])
def test_layers_import_downward_only(importers: tuple[str, ...], forbidden: tuple[str, ...], why: str) -> None:
    found = offenders(importers, forbidden)
    assert not found, f"{why}:\n" + "\n".join(found)


def _package_of_private(i: Import, known: dict[str, Path]) -> list[tuple[str, str]]:
    """(private name, the package it belongs to) for each private name this import takes."""
    out = []
    parts = i.target.split(".")
    for depth, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            out.append((".".join(parts[:depth + 1]), ".".join(parts[:depth])))
    if i.names:
        home = i.target if known.get(i.target, Path()).name == "__init__.py" else i.target.rpartition(".")[0]
        out += [(f"{i.target}.{n}", home) for n in i.names if n.startswith("_") and not n.startswith("__")]
    return out


def _package(module: str, known: dict[str, Path]) -> str:
    return module if known[module].name == "__init__.py" else module.rpartition(".")[0]


def private_imports_across_packages(found: Sequence[Import], known: dict[str, Path]) -> list[str]:
    return [f"{i}: {private} is private to {home}" for i in found for private, home in _package_of_private(i, known)
            if home != _package(i.importer, known)]


def test_no_private_names_imported_across_packages() -> None:
    """A leading underscore means "this package's business": another package that needs it wants a
    public name."""
    known = modules()
    found = private_imports_across_packages(found_imports(), known)
    assert not found, "\n".join(found)


def cycles(found: Sequence[Import], within: str, *, lazy_too: bool = False) -> list[list[str]]:
    """Import cycles among `within`'s modules, over imports that run when a module is imported (and
    those inside functions too with `lazy_too`). Tarjan's strongly connected components: each
    component of two or more modules is a cycle."""
    graph: dict[str, set[str]] = defaultdict(set)
    for i in found:
        if ((i.top_level or lazy_too) and _in(i.importer, within) and _in(i.target, within)
                and i.importer != i.target):
            graph[i.importer].add(i.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycles(package: str) -> None:
    """A cycle makes the import order matter and the modules in it one layer in all but name. The
    brain may import lazily to start faster; the lab's lazy imports hid a cycle (bench, realtime,
    embedded_bench over a table helper), so there every import counts."""
    found = cycles(found_imports(), package, lazy_too=package != "brain_server")
    assert not found, "\n".join(" <-> ".join(c) for c in found)


# The checks themselves, on imports made up for them: each rule can fail.

def _made_up(importer: str, target: str, names: tuple[str, ...] = (), top_level: bool = True) -> Import:
    return Import(importer, target, names, 1, top_level, "made-up.py")


def test_the_checks_catch_what_they_are_for() -> None:
    known = {"a": Path("a/__init__.py"), "a.x": Path("a/x.py"), "a._p": Path("a/_p.py"), "b": Path("b/__init__.py"),
             "b.y": Path("b/y.py")}
    made_up = [_made_up("a.x", "b.y")]
    assert offenders(("a",), ("b",), made_up) and not offenders(("b",), ("a",), made_up)
    assert private_imports_across_packages([_made_up("b.y", "a.x", ("_helper",))], known)
    assert private_imports_across_packages([_made_up("b.y", "a._p")], known)
    assert not private_imports_across_packages([_made_up("a.x", "a._p"), _made_up("a.x", "a", ("_p",))], known)
    assert cycles([_made_up("a.x", "a.y"), _made_up("a.y", "a.z"), _made_up("a.z", "a.x")], "a") == [
        ["a.x", "a.y", "a.z"]]
    # An import inside a function runs later, when both modules are loaded: no cycle at import time.
    lazy = [_made_up("a.x", "a.y"), _made_up("a.y", "a.x", top_level=False)]
    assert not cycles(lazy, "a") and cycles(lazy, "a", lazy_too=True) == [["a.x", "a.y"]]


def test_the_parser_tells_imports_that_run_at_import_time() -> None:
    source = ("from __future__ import annotations\nfrom typing import TYPE_CHECKING\nimport os\n"
              "if TYPE_CHECKING:\n    import json\n\ndef f():\n    from npc_lab import sim\n")
    tree = ast.parse(source)
    seen = [(n.names[0].name, top) for n, top in _import_nodes(tree)]
    assert seen == [("annotations", True), ("TYPE_CHECKING", True), ("os", True), ("json", False), ("sim", False)]
    assert any(i.importer == "brain_server.cli" for i in found_imports()) and any(
        not i.top_level for i in found_imports())


# Issue 41's packages: what each layer may import of the brain (its own modules, the root package's version and
# these). Bottom to top: model (data) and runtime (plumbing), persistence, the LLM layer and its prompts,
# cognition (its offline heuristics a leaf of it), the RPCs (api), the transports, and at the top the
# entry points (cli, server, check, bundle, settings_cli), which may import any. config is read by all.
_BASE = ("brain_server.model", "brain_server.runtime", "brain_server.config")
MAY_IMPORT = [
    ("brain_server.model", (), "the data every layer shares imports nothing of the brain"),
    ("brain_server.runtime", ("brain_server.model", "brain_server.config"),
     "process plumbing sits under everything that thinks, stores or serves"),
    ("brain_server.persistence", _BASE, "records and the store know nothing of thinking or serving"),
    ("brain_server.llm", (*_BASE, "brain_server.prompts"), "the LLM layer sits below cognition and the store"),
    ("brain_server.prompts", (*_BASE, "brain_server.llm"), "prompts are the LLM layer's text and schemas"),
    ("brain_server.cognition.offline", (*_BASE, "brain_server.llm", "brain_server.prompts"),
     "the offline text heuristics are leaves: the paper's loop calls them, never the other way"),
    ("brain_server.cognition", (*_BASE, "brain_server.persistence", "brain_server.llm", "brain_server.prompts"),
     "cognition knows nothing of how it is served"),
    ("brain_server.api", (*_BASE, "brain_server.persistence", "brain_server.llm", "brain_server.prompts",
                          "brain_server.cognition"), "the RPCs know nothing of the transports that carry them"),
    ("brain_server.transport", (*_BASE, "brain_server.api"),
     "the transports adapt framing and errors to the RPCs, nothing deeper"),
]
# Modules that reach up the layers, but only to name a type or inside a function (never when a module
# is imported), with why. The test fails if such a reach runs at import time, or is no longer needed.
UPWARD = [
    ("brain_server.runtime.metrics", "brain_server",
     "the metrics page reads each layer's own counters at scrape time: their types, and the store's interface"),
    ("brain_server.cognition.offline.offline_lines", "brain_server.cognition",
     "the conversation and the memory stream call it with themselves: their types only"),
]


def _excused(i: Import) -> bool:
    return not i.top_level and any(i.importer == who and _in(i.target, reach) for who, reach, _ in UPWARD)


def outside_layer(layer: str, allowed: tuple[str, ...], found: Sequence[Import] | None = None) -> list[Import]:
    """Imports from `layer` (not from a deeper layer listed on its own) of brain modules it may not import."""
    deeper = [other for other, _, _ in MAY_IMPORT if other != layer and _in(other, layer)]
    return [i for i in (found_imports() if found is None else found) if _in(i.importer, layer)
            and not _in(i.importer, *deeper)
            and _in(i.target, "brain_server") and i.target != "brain_server"
            and not _in(i.target, layer, *allowed)]


@pytest.mark.parametrize(("layer", "allowed", "why"), MAY_IMPORT, ids=[rule[0] for rule in MAY_IMPORT])
def test_each_layer_imports_only_what_it_may(layer: str, allowed: tuple[str, ...], why: str) -> None:
    found = [str(i) for i in outside_layer(layer, allowed) if not _excused(i)]
    assert not found, f"{why}:\n" + "\n".join(found)


def test_each_reach_up_listed_is_still_needed() -> None:
    for who, reach, why in UPWARD:
        layer, allowed, _ = max((rule for rule in MAY_IMPORT if _in(who, rule[0])), key=lambda rule: len(rule[0]))
        needed = [i for i in outside_layer(layer, allowed) if i.importer == who and _in(i.target, reach)]
        assert needed, f"{who} no longer reaches up into {reach}: take it off UPWARD ({why})"


def test_the_layer_check_catches_an_upward_import() -> None:
    made_up = [_made_up("brain_server.model.npc", "brain_server.persistence.records"),
               _made_up("brain_server.cognition.offline.heard", "brain_server.cognition.mind"),
               _made_up("brain_server.cognition.mind", "brain_server.cognition.offline.heard"),
               _made_up("brain_server.model.npc", "brain_server.model.verbs")]
    assert [i.target for i in outside_layer("brain_server.model", (), made_up)] == ["brain_server.persistence.records"]
    offline = outside_layer("brain_server.cognition.offline", (), made_up)
    assert [i.target for i in offline] == ["brain_server.cognition.mind"]
    assert not outside_layer("brain_server.cognition", (), made_up)
    lazy = _made_up("brain_server.runtime.metrics", "brain_server.api.service", top_level=False)
    assert _excused(lazy) and not _excused(_made_up("brain_server.runtime.metrics", "brain_server.api.service"))
    assert not _excused(_made_up("brain_server.runtime.logs", "brain_server.api.service", top_level=False))
