"""What the brain showed its model, read from a run's recorded requests (`calls.jsonl`, written by
the started brain with NPC_BRAIN_LLM_RECORD): the measures the brain controls whatever model
answers (issue 42).

- exposure: of the prompts in which someone who knew the news speaks or decides whether to talk
  (a reaction, a conversation's turn or gist), the share that show the news (in a one-call
  conversation, in that speaker's own part). A teller shown its news in few of them passes it on
  rarely, however willing the model.
- leakage: in the prompts that show a speaker memories for a conversation (a reaction, a
  relationship, a turn, each part of a one-call conversation), the memory lines shown as one
  speaker's that are not its memories but another NPC's (each speaker may say only what it could
  know). About 0 normally; near 1 under the control that swaps the speakers' memories (the lines
  both hold, such as a sight both saw, count as the speaker's own).

Each prompt is placed by its mind (the system line names whose mind it is) and its game time (the
"It is <day>, <HH:MM>" of the prompt); a prompt with neither is not counted.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
import json
from pathlib import Path
import re
from typing import Any

from brain_server.model.budget import CUT_MARK

SOCIAL = ("react", "converse_turn", "conversation_summary", "group_turn", "group_summary")
SHOWN = (*SOCIAL, "relationship")  # the prompts that show a speaker its memories of the others
_MIND = re.compile(r"inner mind of ([^,.\n]+)")
_NOW = re.compile(r"\bIt is (?:\w+day )?(\w+) (\d{1,2}), (\d{1,2}):(\d\d)")
_REMEMBERS = re.compile(r"^What (.+?) remembers (?:that may come up|that bears on this|about .+):\s*$")
_NEWS = re.compile(r"^(?:- )?(.+?) has news (?:on their mind|to pass on)")
_ENDS = ("What ", "Places ", "It is ")  # a line starting so starts another part of the prompt
_STAMP = re.compile(r"^- (?:\[[^\]]*\] )?")
_MONTHS = {m: i for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                        "september", "october", "november", "december"), 1)}


def requests(run: Path) -> list[dict[str, Any]]:
    """The recorded requests of a run (none if it recorded nothing)."""
    path = run / "calls.jsonl"
    if not path.is_file():
        return []
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def _placed(call: dict[str, Any], year: int) -> tuple[str, datetime, str] | None:
    """(mind, game time, the prompt's text) of a recorded request, if both can be read."""
    messages = call.get("messages", [])
    system = next((m.get("content", "") for m in messages if m.get("role") == "system"), "")
    user = "\n".join(m.get("content", "") for m in messages if m.get("role") == "user")
    mind, now = _MIND.search(system), _NOW.search(user)
    if mind is None or now is None or now.group(1).lower() not in _MONTHS:
        return None
    when = datetime(year, _MONTHS[now.group(1).lower()], int(now.group(2)), int(now.group(3)), int(now.group(4)))
    return mind.group(1).strip(), when, user


def exposure(calls: Sequence[dict[str, Any]], first_known: Mapping[str, datetime], names: Mapping[str, str],
             host: str, mentions: Callable[[str], bool]) -> dict[str, Any] | None:
    """Per knower (npc id -> when it first held the news, naive game time) and for the host: how
    many of its social prompts from then on showed the news. None without recorded `calls`."""
    if not calls:
        return None
    by_name = {v: k for k, v in names.items()}
    year = min(first_known.values()).year if first_known else 2000
    shown: dict[str, list[bool]] = {}
    for call in calls:
        if call.get("purpose") not in SOCIAL or (placed := _placed(call, year)) is None:
            continue
        mind, when, text = placed
        # A one-call conversation shows each speaker its own memories: each is judged on its own part.
        parts = speakers_parts(text).items() if call["purpose"].endswith("_summary") else [(mind, text)]
        for who, part in parts:
            npc = by_name.get(who)
            if npc in first_known and when >= first_known[npc]:
                shown.setdefault(npc, []).append(mentions(part))
    pooled = [s for flags in shown.values() for s in flags]
    return {"prompts": len(pooled), "showed": sum(pooled), "share": sum(pooled) / len(pooled) if pooled else None,
            "host": _share(shown.get(host, [])),
            "by_npc": {npc: _share(flags) for npc, flags in sorted(shown.items())}}


def speakers_parts(text: str) -> dict[str, str]:
    """A social prompt, by speaker (a one-call conversation has several): the memories shown under
    "What <name> remembers ..." (to a blank line or the next part) and the line "<name> has news
    ...", which belongs to the part it stands in or leads into (a pair's news follows its memories,
    a group's precedes them), else to the one it names. By place, not by name: a speaker shown the
    other's news (the swapped-memories control) is shown it in its own part."""
    parts: dict[str, list[str]] = {}
    current = ""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if heading := _REMEMBERS.match(line):
            current = heading.group(1).strip()
            parts.setdefault(current, [])
        elif news := _NEWS.match(line):
            leads = _REMEMBERS.match(lines[i + 1]) if i + 1 < len(lines) else None
            who = leads.group(1).strip() if leads else current or news.group(1).strip()
            parts.setdefault(who, []).append(line)
        elif not line.strip() or line.startswith(_ENDS):
            current = ""
        elif current:
            parts[current].append(line)
    return {who: "\n".join(kept) for who, kept in parts.items()}


def _share(flags: list[bool]) -> dict[str, Any]:
    return {"prompts": len(flags), "showed": sum(flags), "share": sum(flags) / len(flags) if flags else None}


def leakage(calls: Sequence[dict[str, Any]], memories: Mapping[str, list[dict[str, Any]]],
            names: Mapping[str, str]) -> dict[str, Any] | None:
    """In the recorded prompts that show memories for a conversation (`SHOWN`): the memory lines
    shown under one speaker that are another NPC's memories and not its own. None without
    recorded `calls`."""
    if not calls:
        return None
    by_name = {v: k for k, v in names.items()}
    # Each memory's first line and whose it is, sorted: a line shown (perhaps cut short by the
    # prompt's budget) is theirs whose memories begin so.
    owned = sorted({(_first(x.get("description", "")), npc) for npc, mems in memories.items() for x in mems})
    lines = leaked = 0
    examples: list[str] = []
    for call in calls:
        if call.get("purpose") not in SHOWN:
            continue
        user = "\n".join(m.get("content", "") for m in call.get("messages", []) if m.get("role") == "user")
        for who, body in speakers_parts(user).items():
            npc = by_name.get(who)
            if npc is None:
                continue
            for line in body.splitlines():
                said = _first(_STAMP.sub("", line).removesuffix(CUT_MARK))
                if not line.startswith("- ") or not said or said.startswith("(") or _NEWS.match(line):
                    continue
                lines += 1
                whose = {owner for _, owner in owned[bisect_left(owned, (said,)):bisect_left(owned, (said + "\uffff",))]}
                if whose and npc not in whose:
                    leaked += 1
                    examples = [*examples, f"{names[npc]}: {said}"][:5]
    return {"lines": lines, "leaked": leaked, "share": leaked / lines if lines else None, "examples": examples}


def _first(text: str) -> str:
    """A memory's first line, cut as leakage compares them (a long line may be cut by the prompt's budget)."""
    return text.strip().split("\n", 1)[0].strip()[:60]
