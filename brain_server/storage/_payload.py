"""Payload layout shared by both backends, so that Edge and a Qdrant server hold identical points.

A memory point's payload is the MemoryNode's fields with times as ISO-8601 UTC strings (exact
round trip, microseconds included) plus `<time>_ts` float epoch seconds that Qdrant indexes for
ordering and range filters. A record point's payload is {record_kind, key, data}.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any
import uuid

from brain_server.memory import MemoryNode

VECTOR = "v"
TENANT = "npc_id"
KIND = "kind"
CREATED_TS = "created_ts"
RECORD_KIND = "record_kind"
_TIMES = ("created", "last_accessed")
_RECORDS_NS = uuid.UUID("6f1c8a52-3d0e-4b7a-9a51-2f4e8c7d9b10")


def _utc(when: datetime) -> datetime:
    """Naive times are taken as UTC (game time has no local zone)."""
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def time_fields(name: str, when: datetime) -> dict[str, Any]:
    utc = _utc(when)
    return {name: utc.isoformat(), f"{name}_ts": utc.timestamp()}


def node_to_payload(node: MemoryNode) -> dict[str, Any]:
    payload = node.model_dump(mode="json", exclude=set(_TIMES))
    for name in _TIMES:
        payload.update(time_fields(name, getattr(node, name)))
    return payload


def node_from_payload(payload: dict[str, Any]) -> MemoryNode:
    fields = {k: v for k, v in payload.items() if not k.endswith("_ts")}
    for name in _TIMES:
        fields[name] = datetime.fromisoformat(fields[name])
    return MemoryNode.model_validate(fields)


def point_ids(ids: Iterable[str]) -> list[str]:
    """Ids that can be Qdrant point ids (UUIDs); anything else cannot be stored, so it is missing."""
    valid = []
    for raw in ids:
        try:
            valid.append(str(uuid.UUID(raw)))
        except (ValueError, TypeError, AttributeError):
            continue
    return valid


def ids_by_value(values: dict[str, int]) -> dict[int, list[str]]:
    """Point ids grouped by the value to set, so that one payload update serves each group."""
    groups: dict[int, list[str]] = {}
    for raw, value in values.items():
        groups.setdefault(value, []).extend(point_ids([raw]))
    return {value: ids for value, ids in groups.items() if ids}


def order_like(nodes: list[MemoryNode], ids: Iterable[str]) -> list[MemoryNode]:
    """Qdrant returns points in id order; callers expect the order they asked in."""
    rank = {str(uuid.UUID(i)): n for n, i in enumerate(point_ids(ids))}
    return sorted(nodes, key=lambda node: rank.get(str(uuid.UUID(node.id)), len(rank)))


def record_id(kind: str, key: str) -> str:
    """Deterministic point id, so that put_record replaces instead of duplicating."""
    return str(uuid.uuid5(_RECORDS_NS, f"{kind}\x00{key}"))


def record_payload(kind: str, key: str, data: dict[str, Any]) -> dict[str, Any]:
    return {RECORD_KIND: kind, "key": key, "data": data}
