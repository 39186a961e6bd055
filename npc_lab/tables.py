"""The Markdown tables the benchmarks print (and docs/benchmarks.md quotes), in a module of their
own so that each benchmark imports it instead of the bench command that runs it."""

from __future__ import annotations

from typing import Any


def markdown_table(headers: list[str], rows: list[list[Any]]) -> str:
    cells = [[str(c) for c in r] for r in [headers, *rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)
