"""Payload layout shared by both backends, so that Edge and a Qdrant server hold identical points.

A memory point's payload is the MemoryNode's fields with times as ISO-8601 UTC strings (exact
round trip, microseconds included) plus `<time>_ts` float epoch seconds that Qdrant indexes for
ordering and range filters. A record point's payload is {record_kind, key, json}: the record as
one JSON text, since a store only filters records by kind, and handing it a nested dict costs
several times the write itself (qdrant-edge converts it field by field, holding the interpreter).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
import json
import struct
from typing import Any, Generic, TypeVar
import uuid

from brain_server.model.memory import MemoryNode, ScoredNode, ScoreFormula

VECTOR = "v"
TENANT = "npc_id"
KIND = "kind"
CREATED_TS = "created_ts"
LAST_ACCESSED = "last_accessed"
LAST_ACCESSED_TS = "last_accessed_ts"
IMPORTANCE = "importance"
SCORE = "$score"  # a formula's name for the prefetch's score: here the cosine similarity
RECORD_KIND = "record_kind"
RECORD_JSON = "json"
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


def vector_of(vector: Any) -> Sequence[float]:
    """A point's memory embedding as the engine hands it back (named vectors: a dict)."""
    if isinstance(vector, dict):
        vector = vector[VECTOR]
    if not isinstance(vector, list | tuple):
        raise ValueError(f"a memory point came back without its {VECTOR!r} vector")
    return vector


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


TIE_SLACK = 8  # hits read past a query's limit, so that equal scores or times at the cut go by id


def ranked_ids(hits: Iterable[tuple[str, float]], limit: int) -> list[str]:
    """The ids of the `limit` best (id, score) hits, equal scores by id. Qdrant gives equal scores
    in the order its segments hold the points, which follows when each was written, and a memory
    made twice (both touched at one time) scores the same twice: a lockstep run must not depend on
    which of them a write's timing put first."""
    ordered = sorted(hits, key=lambda hit: (-hit[1], str(uuid.UUID(hit[0]))))
    return [hit_id for hit_id, _ in ordered[:limit]]


def newest(nodes: Iterable[MemoryNode], limit: int) -> list[MemoryNode]:
    """The `limit` newest nodes, newest first, those made at the same time by id (read TIE_SLACK
    past the limit): a minute's perceptions share their time, and which of them fell inside the
    retention window (the observations perception skips as seen) followed the order of writing."""
    return sorted(nodes, key=lambda n: (-n.created.timestamp(), str(uuid.UUID(n.id))))[:limit]


def order_scored(found: list[ScoredNode], ids: list[str]) -> list[ScoredNode]:
    """`found` in the order of `ids` (a formula's ranking), whatever order its query returned."""
    rank = {str(uuid.UUID(i)): n for n, i in enumerate(ids)}
    return sorted(found, key=lambda s: rank.get(str(uuid.UUID(s.node.id)), len(rank)))


def record_id(kind: str, key: str) -> str:
    """Deterministic point id, so that put_record replaces instead of duplicating."""
    return str(uuid.uuid5(_RECORDS_NS, f"{kind}\x00{key}"))


def record_payload(kind: str, key: str, data: dict[str, Any]) -> dict[str, Any]:
    return record_payload_text(kind, key, json.dumps(data, separators=(",", ":")))


def record_payload_text(kind: str, key: str, text: str) -> dict[str, Any]:
    """A record's point payload from its JSON text (a JSON object)."""
    return {RECORD_KIND: kind, "key": key, RECORD_JSON: text}


def record_data(payload: dict[str, Any] | None) -> dict[str, Any] | None:
    """A record's data from its point's payload; also reads records stored as a nested `data` dict
    (before records were stored as text)."""
    if not payload:
        return None
    if RECORD_JSON in payload:
        data: dict[str, Any] = json.loads(payload[RECORD_JSON])
        return data
    return payload.get("data")


E = TypeVar("E")


@dataclass(frozen=True)
class FormulaOps(Generic[E]):
    """How one client library spells the expressions of a Qdrant formula."""

    constant: Callable[[float], E]
    variable: Callable[[str], E]
    sum: Callable[[list[E]], E]
    mult: Callable[[list[E]], E]
    # exp(ln(midpoint) * |x - target| / scale)
    exp_decay: Callable[[E, E, float, float], E]


def score_expression(ops: FormulaOps[E], formula: ScoreFormula) -> E:
    """The retrieval score as a Qdrant formula: a weighted sum of the similarity, the importance
    and the recency decay, their offsets folded into one constant. Qdrant reads constants as f32
    (epoch seconds would be rounded to 128 s), so `now` is the sum of an f32 and its remainder,
    which Qdrant adds in double precision. Its decay takes |now - last access|: the caller scores
    in Python when a memory was accessed after `now` (the recency clips at 0 hours there)."""
    now = _utc(formula.now).timestamp()
    coarse = float(struct.unpack("f", struct.pack("f", now))[0])
    decay = ops.exp_decay(ops.variable(LAST_ACCESSED_TS), ops.sum([ops.constant(coarse), ops.constant(now - coarse)]),
                          formula.decay_per_hour, 3600.0)
    raw = {"recency": decay, "importance": ops.variable(IMPORTANCE), "relevance": ops.variable(SCORE)}
    terms, offset = [], 0.0
    for name, value in raw.items():
        weight, lo, hi = getattr(formula, name)
        if hi - lo < 1e-12:
            offset += 0.5 * weight
        elif weight:
            terms.append(ops.mult([ops.constant(weight / (hi - lo)), value]))
            offset -= weight * lo / (hi - lo)
    return ops.sum([*terms, ops.constant(offset)])
