"""Byte budgets for what grows with callers' text: every prompt (NPC_BRAIN_PROMPT_MAX_BYTES) and
every stored memory (MEMORY_MAX_BYTES). Past a model's context each call is a 4xx that is not
retried and the NPC falls back for good; a memory holding a whole dialogue of 4,000-character lines
fills the prompts it is retrieved into. What is over is cut from the longest parts first (the
filled placeholders of a prompt, the lines of a memory), each cut part ending in CUT_MARK, and the
trace says what was cut."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from brain_server.memory import MemoryNode
from brain_server.trace import Trace

MEMORY_MAX_BYTES = 8000
CUT_MARK = " [...]"
_MARK_BYTES = len(CUT_MARK.encode())


def size(text: str) -> int:
    return len(text.encode())


def cut_longest(parts: list[str], excess: int) -> list[str]:
    """`parts` with `excess` bytes taken from the longest first: every part longer than some
    length L is cut to L (its end replaced by CUT_MARK), the shorter ones are kept whole."""
    if excess <= 0:
        return parts
    sizes = [size(p) for p in parts]

    def saved(cap: int) -> int:
        return sum(s - cap - _MARK_BYTES for s in sizes if s > cap + _MARK_BYTES)

    low, high = 0, max(sizes, default=0)  # the largest cap that still saves enough
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if saved(middle) >= excess else (low, middle - 1)
    return [p if s <= low + _MARK_BYTES else p.encode()[:low].decode("utf-8", "ignore") + CUT_MARK
            for p, s in zip(parts, sizes, strict=True)]


def fit_prompt(render: Callable[[Mapping[str, Any]], list[dict[str, str]]], variables: Mapping[str, Any],
               budget: int, purpose: str, trace: Trace | None) -> list[dict[str, str]]:
    """The rendered messages within `budget` bytes, the longest placeholders cut first."""
    messages = render(variables)
    total = sum(size(m["content"]) for m in messages)
    if total <= budget:
        return messages
    names = [k for k, v in variables.items() if isinstance(v, str)]
    fitted = dict(variables)
    for _ in range(4):  # a placeholder used twice saves twice: a few rounds settle it
        over = sum(size(m["content"]) for m in messages) - budget
        if over <= 0:
            break
        for name, value in zip(names, cut_longest([fitted[n] for n in names], over), strict=True):
            fitted[name] = value
        messages = render(fitted)
    if trace is not None:
        cut = ", ".join(f"{n} {size(variables[n])} -> {size(fitted[n])}" for n in names if fitted[n] != variables[n])
        trace.note(f"prompt {purpose}: {total} bytes over the {budget}-byte budget (NPC_BRAIN_PROMPT_MAX_BYTES), "
                   f"the longest parts cut: {cut}")
    return messages


def fit_memory(node: MemoryNode, trace: Trace | None) -> MemoryNode:
    """The node with a description of at most MEMORY_MAX_BYTES, its longest lines cut first."""
    total = size(node.description)
    if total <= MEMORY_MAX_BYTES:
        return node
    lines = cut_longest(node.description.split("\n"), total - MEMORY_MAX_BYTES)
    description = "\n".join(lines)
    if size(description) > MEMORY_MAX_BYTES:  # more lines than the budget has room for
        description = description.encode()[:MEMORY_MAX_BYTES - _MARK_BYTES].decode("utf-8", "ignore") + CUT_MARK
    if trace is not None:
        trace.note(f"memory: a {node.kind.value} of {total} bytes cut to {size(description)} "
                   f"(MEMORY_MAX_BYTES {MEMORY_MAX_BYTES}, the longest lines first)")
    return node.model_copy(update={"description": description})
