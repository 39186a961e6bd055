"""Connect's JSON codec (transport/proto_json.py) against json_format, which it replaces for speed:
the same bytes written, the same messages read, the same errors, for real DecideBatch messages and
for every message of the API filled at random."""

from __future__ import annotations

import math
import random

from google.protobuf import descriptor, json_format
from google.protobuf.message import Message
import pytest

from brain_server.transport import proto_json
from brain_server.transport.connect_http import CompactJSON
from npc_brain.v1 import brain_pb2 as pb
from tools.connect_json_bench import batch

F = descriptor.FieldDescriptor


def reference(message: Message) -> bytes:
    return json_format.MessageToJson(message, indent=None).encode()


def parsed(data: bytes | str, message_class: type[Message]) -> Message | str:
    """json_format's reading, or its error."""
    try:
        return json_format.Parse(data, message_class(), ignore_unknown_fields=False)
    except Exception as exc:  # noqa: BLE001 - compared, whatever it is
        return f"{type(exc).__name__}: {exc}"


def ours(data: bytes | str, message_class: type[Message]) -> Message | str:
    try:
        return proto_json.decode(data.encode() if isinstance(data, str) else data, message_class)
    except Exception as exc:  # noqa: BLE001 - compared, whatever it is
        return f"{type(exc).__name__}: {exc}"


def test_a_decide_batch_is_written_and_read_as_json_format_does(monkeypatch: pytest.MonkeyPatch) -> None:
    request, response = batch()
    expected = {id(m): (reference(m), json_format.MessageToJson(m, indent=None, preserving_proto_field_name=True))
                for m in (request, response)}

    def slow(*args: object, **kwargs: object) -> None:
        raise AssertionError("a plain DecideBatch took json_format's way")

    monkeypatch.setattr(proto_json.json_format, "Parse", slow)
    monkeypatch.setattr(proto_json.json_format, "MessageToDict", slow)
    assert proto_json.encode(response) == expected[id(response)][0] == CompactJSON().encode(response)
    for written in expected[id(request)]:
        assert proto_json.decode(written.encode() if isinstance(written, str) else written, pb.DecideBatchRequest) == request


def filled(message_class: type[Message], rng: random.Random, depth: int = 0) -> Message:
    """A message with each field set at random (or left unset), its nested messages too."""
    message = message_class()
    for field in message.DESCRIPTOR.fields:
        if rng.random() < 0.25 or (field.cpp_type == F.CPPTYPE_MESSAGE and depth > 3):
            continue
        if field.containing_oneof is not None and message.WhichOneof(field.containing_oneof.name):
            continue
        values = [value(field, rng, depth) for _ in range(rng.randint(0, 3) if field.is_repeated else 1)]
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            getattr(message, field.name).update({entry.key: entry.value for entry in values})
        elif field.is_repeated:
            target = getattr(message, field.name)
            for item in values:
                target.add().CopyFrom(item) if field.cpp_type == F.CPPTYPE_MESSAGE else target.append(item)
        elif field.cpp_type == F.CPPTYPE_MESSAGE:
            getattr(message, field.name).CopyFrom(values[0])
        else:
            setattr(message, field.name, values[0])
    return message


def value(field: F, rng: random.Random, depth: int) -> object:  # noqa: PLR0911 - one case per kind
    kind = field.cpp_type
    if kind == F.CPPTYPE_MESSAGE:
        if field.message_type.full_name == "google.protobuf.Timestamp":
            return field.message_type._concrete_class(seconds=rng.randint(-10**10, 10**10),
                                                      nanos=rng.choice((0, 1000, 10**6, 123_456_789, 5 * 10**8)))
        return filled(field.message_type._concrete_class, rng, depth + 1)
    if kind == F.CPPTYPE_ENUM:
        return rng.choice([v.number for v in field.enum_type.values] + [99])
    if kind in (F.CPPTYPE_INT32, F.CPPTYPE_UINT32):
        return rng.choice((0, 1, 7, 2**31 - 1)) * (-1 if kind == F.CPPTYPE_INT32 and rng.random() < 0.3 else 1)
    if kind in (F.CPPTYPE_INT64, F.CPPTYPE_UINT64):
        return rng.choice((0, 1, 2**53 + 1, 2**63 - 1))
    if kind in (F.CPPTYPE_FLOAT, F.CPPTYPE_DOUBLE):
        return rng.choice((0.0, 0.1, -2.5, 1e-7, 3.4e38, 1 / 3, math.inf, -math.inf))
    if kind == F.CPPTYPE_BOOL:
        return rng.random() < 0.5
    if field.type == F.TYPE_BYTES:
        return bytes(rng.randrange(256) for _ in range(5))
    return rng.choice(("", "plain", "Müller ☕ 😴", 'quote " and \\ backslash', "\u2028"))


def api_messages() -> list[type[Message]]:
    return [pb.DESCRIPTOR.message_types_by_name[name]._concrete_class for name in pb.DESCRIPTOR.message_types_by_name]


@pytest.mark.parametrize("message_class", api_messages(), ids=lambda c: c.DESCRIPTOR.name)
def test_every_message_of_the_api_is_written_and_read_as_json_format_does(message_class: type[Message]) -> None:
    rng = random.Random(message_class.DESCRIPTOR.name)
    for _ in range(20):
        message = filled(message_class, rng)
        written = proto_json.encode(message)
        assert written == reference(message)
        assert reference(ours(written, message_class)) == written  # NaN is not equal to itself: compare the JSON
        assert ours(written, message_class) == parsed(written, message_class) or "NaN" in written.decode()


BAD = [
    '{"npcId": "a", "npcId": "b"}',  # a key given twice
    '{"npcId": "a", "npc_id": "b"}',  # a field named twice
    '{"npcid": "a"}',  # unknown
    '{"npcId": null, "attention": null}',
    '{"npcId": 5}',
    '{"tile": {"x": 1.5}}', '{"tile": {"x": "7"}}', '{"tile": {"x": 2147483648}}', '{"tile": {"x": true}}',
    '{"tile": {"x": 7.0}}', '{"tile": []}', '{"tile": {}}',
    '{"attention": "ATTENTION_NOPE"}', '{"attention": 2}', '{"attention": 42}', '{"attention": "2"}',
    '{"gameTime": "2026-02-13T09:00:00Z"}', '{"gameTime": "2026-02-13T09:00:00.5Z"}',
    '{"gameTime": "2026-02-13T09:00:00.123456789Z"}', '{"gameTime": "2026-02-13T09:00:00+01:00"}',
    '{"gameTime": "2026-02-30T09:00:00Z"}', '{"gameTime": "2026-2-13T9:00:00Z"}', '{"gameTime": "0000-01-01T00:00:00Z"}',
    '{"gameTime": "2026-02-13t09:00:00Z"}', '{"gameTime": 5}', '{"gameTime": "2026-02-13T09:00:00.1234567890Z"}',
    '{"perceptions": [{"distance": "NaN"}]}', '{"perceptions": [{"distance": 1e39}]}', '{"perceptions": [{"distance": 3}]}',
    '{"perceptions": [{"distance": "2.5"}]}', '{"perceptions": [null]}', '{"perceptions": {}}', '{"perceptions": [{}, 1]}',
    '{"address": "\\ud800"}', '{"address": "\\ud83d\\ude34 ok"}', '[]', '"text"', '{"npcId": "a"', '',
]


@pytest.mark.parametrize("body", [*BAD, '{"npcId": "a"}'.encode("utf-16"), b'{"npcId": "\xff"}',
                                  b'\xef\xbb\xbf{"npcId": "a"}'])
def test_what_json_format_refuses_or_reads_unusually_is_answered_as_it_does(body: str | bytes) -> None:
    assert ours(body, pb.DecideRequest) == parsed(body, pb.DecideRequest)
