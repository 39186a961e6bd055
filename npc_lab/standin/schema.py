"""Any draft made valid for any JSON schema the brain asks for (enums, lengths, patterns, ranges,
item counts): where the draft cannot be, a value is built from the prompt."""

from __future__ import annotations

from datetime import date, datetime, time
import math
import re
from typing import Any, Protocol

from npc_lab.standin.reading import MONTHS, WEEKDAYS, Prompt, _day_of, _times, _unlead, best_match, importance, rarity


class Reader(Protocol):
    """What `conform` needs of the answer it completes: the prompt read."""

    p: Prompt


def _enum_at(schema: dict[str, Any], key: str) -> list[str]:
    """The enum of the first property named `key` anywhere in the schema."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if found or not isinstance(node, dict):
            return
        props = node.get("properties", {})
        if key in props and "enum" in _resolve(schema, props[key]):
            found.extend(_resolve(schema, props[key])["enum"])
            return
        for value in [*props.values(), *node.get("$defs", {}).values(), node.get("items"), *node.get("anyOf", [])]:
            walk(value)

    walk(schema)
    return found


def _resolve(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while isinstance(node, dict) and "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


ALIASES = {"day": ("date", "day"), "start": ("start", "time", "when"), "activity": ("activity", "what", "item", "event"),
           "minutes": ("minutes", "duration", "length")}


def _draft_value(draft: Any, key: str) -> Any:
    """The draft's value for a schema property: by its name, else by what the name means."""
    if not isinstance(draft, dict):
        return None
    if key in draft:
        return draft[key]
    low = key.lower()
    for meaning, cues in ALIASES.items():
        if any(c in low for c in cues):
            return draft.get(meaning)
    return None


def conform(value: Any, node: dict[str, Any], root: dict[str, Any], reader: Reader, name: str = "value") -> Any:
    """`value` made valid for `node`; where it cannot be, a value built from the prompt."""
    node = _resolve(root, node)
    if "anyOf" in node:
        for option in node["anyOf"]:
            if _valid(value, _resolve(root, option), root):
                return value
        return conform(value, node["anyOf"][0], root, reader, name)
    if "enum" in node:
        options = list(node["enum"])
        if isinstance(value, (date, time)):
            value = next((c for c in _formats(value) if c in options), "" if "" in options else str(value))
        elif value is None and "" in options:
            value = ""
        if value in options:
            return value
        text = value if isinstance(value, str) and value else reader.p.text
        labels = [str(o) for o in options]
        i, score = best_match(text, labels, rarity(labels)) if all(isinstance(o, str) for o in options) else (-1, 0)
        return options[i] if i >= 0 and score > 0 else options[0]
    kind = node.get("type", "object" if "properties" in node else "string")
    if kind == "object":
        props = node.get("properties", {})
        return {k: conform(_draft_value(value, k), sub, root, reader, k) for k, sub in props.items()}
    if kind == "array":
        items = node.get("items", {})
        values = list(value) if isinstance(value, list) else []
        if "enum" in _resolve(root, items) and node.get("maxItems") == len(_resolve(root, items)["enum"]):
            order = list(dict.fromkeys([v for v in values if v in _resolve(root, items)["enum"]]))
            values = order + [o for o in _resolve(root, items)["enum"] if o not in order]
        lo, hi = node.get("minItems", 0), node.get("maxItems", max(len(values), node.get("minItems", 0), 1))
        values = values[:hi]
        while len(values) < max(lo, 1 if not values and lo else lo):
            values.append(values[-1] if values else None)
        return [conform(v, items, root, reader, name) for v in values]
    if kind in ("integer", "number"):
        lo, hi = node.get("minimum", -math.inf), node.get("maximum", math.inf)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            value = importance(reader.p.text) if "importance" in name else (lo if lo > -math.inf else 0)
        value = min(max(value, lo), hi)
        return int(round(value)) if kind == "integer" else float(value)
    if kind == "boolean":
        return bool(value) if isinstance(value, bool) else False
    return _string(value, node, reader, name)


def _formats(value: date | time) -> list[str]:
    """A date's or a clock time's spellings, the most common first."""
    if isinstance(value, datetime):
        return [f"{value:%Y-%m-%d %H:%M}", f"{value:%Y-%m-%dT%H:%M}", f"{value:%Y-%m-%d}", f"{value:%H:%M}"]
    if isinstance(value, date):
        return [f"{value:%Y-%m-%d}", f"{MONTHS[value.month - 1].title()} {value.day}", f"{value:%m-%d}"]
    return [f"{value:%H:%M}", f"{value.hour}:{value.minute:02d}"]


def _string(value: Any, node: dict[str, Any], reader: Reader, name: str) -> str:
    if isinstance(value, (date, time)):
        candidates = _formats(value)
    elif isinstance(value, str):
        candidates = [value]
    elif value is None and "pattern" in node:
        candidates = [""]
    else:
        best = next((b for b in reader.p.bullets()), "") or reader.p.name or name
        candidates = [_unlead(best.replace("\n", " "))]
    candidates += _spellings(" ".join(c for c in candidates if c), reader.p.now)
    low, high = node.get("minLength", 0), node.get("maxLength", 10_000)
    for c in [*candidates, ""]:
        c = c[:high]
        if len(c) >= low and ("pattern" not in node or re.fullmatch(node["pattern"], c)):
            return c
    return (candidates[0] + " ." * low)[:high]


def _spellings(text: str, now: datetime | None) -> list[str]:
    """The date and time a text names (else the prompt's own), in the ways a pattern may want them."""
    day = _day_of(text, now) or (now.date() if now else None)
    times = _times(text) or ([now.time()] if now else [])
    out = []
    if day and times:
        moment = datetime.combine(day, times[0])
        out += [f"{moment:%Y-%m-%d %H:%M}", f"{moment:%Y-%m-%dT%H:%M}", f"{moment:%Y-%m-%dT%H:%M:%S}"]
    if times:
        out += [f"{times[0]:%H:%M}", f"{times[0].hour}:{times[0].minute:02d}"]
    if day:
        out += [f"{day:%Y-%m-%d}", f"{day:%m-%d}", f"{MONTHS[day.month - 1].title()} {day.day}",
                WEEKDAYS[day.weekday()].title()]
    return out


def _valid(value: Any, node: dict[str, Any], root: dict[str, Any]) -> bool:
    """Whether `value` fits `node` (the JSON Schema the brain's prompts use)."""
    node = _resolve(root, node)
    if "anyOf" in node:
        return any(_valid(value, o, root) for o in node["anyOf"])
    if "enum" in node:
        return value in node["enum"]
    kind = node.get("type", "object" if "properties" in node else None)
    if kind == "object":
        props = node.get("properties", {})
        return isinstance(value, dict) and all(k in value for k in node.get("required", [])) and \
            (node.get("additionalProperties", True) is not False or set(value) <= set(props)) and \
            all(_valid(v, props[k], root) for k, v in value.items() if k in props)
    if kind == "array":
        return isinstance(value, list) and node.get("minItems", 0) <= len(value) <= node.get("maxItems", 10**9) and \
            all(_valid(v, node.get("items", {}), root) for v in value)
    if kind == "string":
        return isinstance(value, str) and node.get("minLength", 0) <= len(value) <= node.get("maxLength", 10**9) and \
            ("pattern" not in node or re.fullmatch(node["pattern"], value) is not None)
    if kind in ("integer", "number"):
        return isinstance(value, (int, float)) and not isinstance(value, bool) and \
            node.get("minimum", -math.inf) <= value <= node.get("maximum", math.inf)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    return True
