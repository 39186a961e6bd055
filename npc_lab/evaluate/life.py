"""What the judge is told of a resident's life: the paper's evaluators ranked the interview answers
having watched the agent's life, so a judge that knows only the identity paragraph cannot tell an
answer drawn from what happened from one that makes it up.

The record is the resident's memory stream as the run left it, read as a timeline: what they did
(their own actions, a run of steps of one activity as one line with its span) and what they
thought (reflections and remembered conversations), oldest first, the latest `LINES` kept.
Objects' states and plans are left out: a replay shows what was done, not what was meant.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

LINES = 40
OWN = "MEMORY_KIND_OBSERVATION"
THOUGHT = "MEMORY_KIND_THOUGHT"
NO_RECORD = "(nothing is recorded of their days)"


def record(memories: Sequence[dict[str, Any]], name: str, lines: int = LINES) -> str:
    """The resident's timeline as dated lines, or a sentence saying there is none."""
    entries: list[tuple[datetime, datetime, str, str]] = []  # start, end, kind, text; in time order
    last = -1  # the latest "did" entry
    for m in sorted(memories, key=lambda m: m["created"]):
        when = datetime.fromisoformat(m["created"].replace("Z", "+00:00"))
        if m.get("kind") == THOUGHT:
            entries.append((when, when, "thought", m["description"]))
        elif m.get("kind") == OWN and m.get("subject") == name and m["description"].startswith(f"{name} is "):
            doing = m["description"].removeprefix(f"{name} is ").split(" (", 1)[0].strip()
            if last >= 0 and entries[last][3] == doing and entries[last][0].date() == when.date():
                entries[last] = (entries[last][0], when, "did", doing)
            else:
                last = len(entries)
                entries.append((when, when, "did", doing))
    if not entries:
        return NO_RECORD
    return "\n".join(_line(*e) for e in entries[-lines:])


def _line(start: datetime, end: datetime, kind: str, text: str) -> str:
    span = start.strftime("%A %H:%M") + (end.strftime("-%H:%M") if end > start else "")
    return f"- {span}: {'did: ' if kind == 'did' else 'thought: '}{text}"
