"""Byte budgets for what grows with callers' text: every prompt (NPC_BRAIN_PROMPT_MAX_BYTES) and
every stored memory (MEMORY_MAX_BYTES). Past a model's context each call is a 4xx that is not
retried and the NPC falls back for good; a memory holding a whole dialogue of 4,000-character lines
fills the prompts it is retrieved into. A prompt over its budget first drops whole items of its
memory lists (`Bullets`), the lowest-scored and oldest first, renumbering numbered lists (a cut
list would lose its newest items, and the numbers an answer cites must be the ones it was shown);
what is still over is cut from the longest parts (the filled placeholders of a prompt, the lines
of a memory), each cut part ending in CUT_MARK, the NPCs' identities (`CUT_LAST`) only if the
rest cannot make room. The trace says what was dropped and cut."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from brain_server.model.memory import MemoryNode
from brain_server.model.trace import Trace

MEMORY_MAX_BYTES = 8000
CUT_MARK = " [...]"
_MARK_BYTES = len(CUT_MARK.encode())


EMPTY_LIST = "- (nothing comes to mind)"
# Placeholders cut only when cutting every other one is not enough: who the NPCs are.
CUT_LAST = frozenset({"persona", "partner_persona"})
# Placeholders holding the prompt's own instructions, chosen per call (`turn_rules.rules`): never cut, as the
# template's own words are not.
INSTRUCTIONS = frozenset({"telling", "answering"})


def size(text: str) -> int:
    return len(text.encode())


@dataclass(frozen=True)
class Item:
    """One line of a memory list: `rank` orders what the budget drops first (lowest first: the
    retrieval score or importance, then the creation time); `group` indexes the list's headers."""

    text: str
    rank: tuple[float, float]
    group: int = 0


class Bullets(str):
    """A prompt's memory list: text to the templates, whole items to the budget. With `headers`,
    each header is shown (even when its items are gone) followed by its group's items, which must
    come in group order. `kept` says which items (their indices) the prompt finally showed: with
    `numbered`, the number n shown is `items[kept[n - 1]]`."""

    items: tuple[Item, ...]
    numbered: bool
    headers: tuple[str, ...]
    kept: list[int]

    def __new__(cls, items: Sequence[Item], *, numbered: bool = False, headers: Sequence[str] = (),
                empty: str = EMPTY_LIST) -> Bullets:
        def line(n: int, item: Item) -> str:
            return f"{n}. {item.text}" if numbered else f"- {item.text}"

        if headers:
            lines, n = [], 1
            for g, header in enumerate(headers):
                lines.append(header)
                for item in (x for x in items if x.group == g):
                    lines.append(line(n, item))
                    n += 1
            text = "\n".join(lines)
        else:
            text = "\n".join(line(n, item) for n, item in enumerate(items, 1)) if items else empty
        made = super().__new__(cls, text)
        made.items, made.numbered, made.headers = tuple(items), numbered, tuple(headers)
        made.kept = list(range(len(items)))
        return made

    def keeping(self, indices: Sequence[int]) -> Bullets:
        """The list with only these items, renumbered; `kept` maps back to this list's items."""
        shown = sorted(indices)
        out = Bullets([self.items[i] for i in shown], numbered=self.numbered, headers=self.headers)
        out.kept = [self.kept[i] for i in shown]
        return out


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


@dataclass(frozen=True)
class CountOf:
    """A placeholder for how many items of the `Bullets` variable `name` the prompt shows, filled in
    by `fit_prompt` once the list is fitted: "the numbers (1 to 30) of the statements" stood where three
    were shown (48 of 140 captured reflections, blind34's writer)."""

    name: str


def _counted(render: Callable[[Mapping[str, Any]], list[dict[str, str]]]) -> Callable[[Mapping[str, Any]],
                                                                                      list[dict[str, str]]]:
    def counting(values: Mapping[str, Any]) -> list[dict[str, str]]:
        return render({k: str(len(values[v.name].kept)) if isinstance(v, CountOf) else v for k, v in values.items()})
    return counting


def fit_prompt(render: Callable[[Mapping[str, Any]], list[dict[str, str]]], variables: Mapping[str, Any],
               budget: int, purpose: str, trace: Trace | None,
               why: str = "budget (NPC_BRAIN_PROMPT_MAX_BYTES)") -> list[dict[str, str]]:
    """The rendered messages within `budget` bytes: whole memory list items dropped first (lowest
    rank first, each list keeps one), then the longest placeholders cut (`CUT_LAST` last). Each
    `Bullets` variable's `kept` is set to the items shown; `why` names the budget in the trace. A
    fit starts from every item: fitted again to a tighter budget (a context window's next round),
    the list said fewer than it held, and the brain's every background call with a 4,096-token
    window raised IndexError (blind33 as the README configures a thinking model: each NPC's day plan
    never made, its status revised some 240 times a run). A `CountOf` says how many items its list shows."""
    render = _counted(render)
    for value in variables.values():
        if isinstance(value, Bullets):
            value.kept[:] = range(len(value.items))
    messages = render(variables)
    total = sum(size(m["content"]) for m in messages)
    if total <= budget:
        return messages
    fitted = dict(variables)
    messages, dropped = _drop_items(render, fitted, budget)
    for name, value in variables.items():
        if isinstance(value, Bullets):
            value.kept[:] = fitted[name].kept
    names = [k for k, v in variables.items() if isinstance(v, str) and k not in INSTRUCTIONS]
    for rounds in ([n for n in names if n not in CUT_LAST], names):
        for _ in range(4):  # a placeholder used twice saves twice: a few rounds settle it
            over = sum(size(m["content"]) for m in messages) - budget
            if over <= 0 or not rounds:
                break
            for name, value in zip(rounds, cut_longest([fitted[n] for n in rounds], over), strict=True):
                fitted[name] = value
            messages = render(fitted)
    if trace is not None:
        cut = ", ".join(f"{n} {size(variables[n])} -> {size(fitted[n])}" for n in names
                        if fitted[n] != variables[n] and not isinstance(fitted[n], Bullets))
        trace.note(f"prompt {purpose}: {total} bytes over the {budget}-byte {why}: "
                   f"{dropped}" + (f"; the longest parts cut: {cut}" if cut else ""))
    return messages


def _drop_items(render: Callable[[Mapping[str, Any]], list[dict[str, str]]], fitted: dict[str, Any],
                budget: int) -> tuple[list[dict[str, str]], str]:
    """Drops whole items of the Bullets in `fitted` (in place), lowest rank first, until the
    rendered messages fit or every list is down to one item; the messages and what was dropped."""
    lists = {n: v for n, v in fitted.items() if isinstance(v, Bullets) and len(v.items) > 1}
    order = sorted(((v.items[i].rank, n, i) for n, v in lists.items() for i in range(len(v.items))),
                   key=lambda x: x[0])
    keep = {n: set(range(len(v.items))) for n, v in lists.items()}
    messages = render(fitted)
    over = sum(size(m["content"]) for m in messages) - budget
    at = 0
    while over > 0 and at < len(order):
        saved = 0
        while saved < over and at < len(order):  # an estimate: each item's line, once
            _, name, i = order[at]
            at += 1
            if len(keep[name]) > 1:
                keep[name].discard(i)
                saved += size(lists[name].items[i].text) + 3
        for name, v in lists.items():
            fitted[name] = v.keeping(sorted(keep[name]))
        messages = render(fitted)
        over = sum(size(m["content"]) for m in messages) - budget
    dropped = [f"{len(v.items) - len(keep[n])} of {len(v.items)} {n}" for n, v in lists.items()
               if len(keep[n]) < len(v.items)]
    return messages, ("dropped " + ", ".join(dropped) + " (lowest-scored and oldest first)") if dropped else \
        "no list to drop from"


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
