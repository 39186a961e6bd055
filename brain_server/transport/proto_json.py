"""Proto3 JSON (Connect's JSON codec), the same as json_format's, in a fraction of its time.
json_format looks each field up by name, checks and converts it one Python call at a time: a
DecideBatch of 250 Decides, three perceptions each, took 18 ms of CPU to read and 4.6 ms to
write, on the transports' thread, where every other call waits meanwhile. Here each message type
is compiled once into a table of converters (json names and proto names to fields, each field's
reading and writing), each message is built by its constructor in one call from the
fields read (nested messages as keyword dicts) and read with `ListFields`.

Exactly json_format's output: fields in number order, defaults omitted (`ListFields` holds what
json_format prints), enums as names, 64-bit integers as strings, floats as json_format writes them,
Timestamps by their own `ToJsonString`. Reading takes the plain forms of valid input (a string for
a string, an int in range for an int, a known enum name, a UTC timestamp "...Z", no null, no field
named twice); anything else, valid or not, is read by json_format itself, so its results and its
errors are unchanged. Types this does not compile (maps, bytes, other well-known types) are
json_format's throughout."""

from __future__ import annotations

import base64
from collections.abc import Callable
from datetime import datetime, timedelta
import functools
import json
import math
import re
from typing import Any, TypeAlias

from google.protobuf import descriptor, json_format
from google.protobuf.internal import type_checkers
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

F: TypeAlias = descriptor.FieldDescriptor
Read = Callable[[Any], Any]
Write = Callable[[Any], Any]
Convert = Callable[[Any], Any]
INT_RANGES = {F.CPPTYPE_INT32: (-(2**31), 2**31 - 1), F.CPPTYPE_UINT32: (0, 2**32 - 1),
              F.CPPTYPE_INT64: (-(2**63), 2**63 - 1), F.CPPTYPE_UINT64: (0, 2**64 - 1)}
INT64 = (F.CPPTYPE_INT64, F.CPPTYPE_UINT64)
FLOAT_MAX = 3.4028234663852886e38
TIMESTAMP = Timestamp.DESCRIPTOR.full_name
UTC_TIME = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z")
DIGITS = re.compile(r"-?\d+")
UNPAIRED_SURROGATE = re.compile("[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]")
EPOCH = datetime(1970, 1, 1)
SECONDS_MIN, SECONDS_MAX = -62_135_596_800, 253_402_300_799  # 0001-01-01 to 9999-12-31 (Timestamp's range)


class _Slow(Exception):
    """Not a plain form: json_format reads the whole message."""


def encode(message: Message) -> bytes:
    """json_format.MessageToJson(message, indent=None), as bytes."""
    try:
        written = _writer(message.DESCRIPTOR)(message)
    except (_Slow, KeyError, ValueError):  # an extension, a time out of range: json_format says what
        written = json_format.MessageToDict(message)
    return json.dumps(written, indent=None).encode()


def decode(data: bytes | bytearray, message_class: type[Message]) -> Message:
    """json_format.Parse(data, message_class(), ignore_unknown_fields=False)."""
    try:
        text = data.decode("utf-8")  # as json_format reads it (json.loads would take UTF-16 too)
        return message_class(**_reader(message_class.DESCRIPTOR)(json.loads(text, object_pairs_hook=_once_each)))
    except (_Slow, ValueError, TypeError, RecursionError):
        message = message_class()
        json_format.Parse(data, message, ignore_unknown_fields=False)
        return message


def what_to_send(error: str, data: bytes | bytearray) -> str:
    """json_format's complaint about `data` (`decode`'s ParseError), with what a hand-written client
    should send instead."""
    try:
        body = json.loads(data)
    except (ValueError, RecursionError):
        return error
    if not isinstance(body, dict):
        return f"the body is a JSON {type(body).__name__}: send a JSON object of the request's fields (docs/api.md)"
    if "time data" in error or "timestamp" in error.lower():
        return (f'{error.rstrip(".")}: a time is an RFC 3339 string in UTC, e.g. "2026-02-13T09:00:00Z" (Godot: '
                'Time.get_datetime_string_from_unix_time(t) + "Z")')
    return error


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object; a key given twice is json_format's to refuse."""
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Slow
    return out


def _slow(value: Any) -> Any:
    raise _Slow


# --- writing ---------------------------------------------------------------------------------------

@functools.cache  # each type compiled once; nested types at their first use (`_nested`)
def _writer(message_type: descriptor.Descriptor) -> Write:
    if message_type.full_name == TIMESTAMP:
        return _time
    try:
        fields = {field: (field.json_name, _field_writer(field)) for field in message_type.fields}
    except _Slow:
        return lambda message: json_format.MessageToDict(message)

    def write(message: Message) -> dict[str, Any]:
        out = {}
        for field, value in message.ListFields():
            name, convert = fields[field]
            out[name] = value if convert is None else convert(value)
        return out

    return write


def _field_writer(field: F) -> Write | None:
    """None: the value is written as it is."""
    one = _value_writer(field)
    if field.is_repeated:
        return list if one is None else lambda values: [one(v) for v in values]
    return one


def _value_writer(field: F) -> Write | None:  # noqa: PLR0911 - one case per kind of field
    kind = field.cpp_type
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        raise _Slow
    if kind == F.CPPTYPE_MESSAGE:
        return _nested(field.message_type, _writer)
    if kind == F.CPPTYPE_ENUM:
        names = {v.number: v.name for v in field.enum_type.values}
        if field.enum_type.is_closed or any(v.GetOptions().ListFields() for v in field.enum_type.values):
            raise _Slow
        return lambda value: names.get(value, value)
    if kind in INT64:
        return str
    if kind == F.CPPTYPE_FLOAT:
        return lambda value: _special(value) or type_checkers.ToShortestFloat(value)
    if kind == F.CPPTYPE_DOUBLE:
        return lambda value: _special(value) or value
    if field.type == F.TYPE_BYTES:
        return lambda value: base64.b64encode(value).decode("utf-8")
    return None


def _nested(message_type: descriptor.Descriptor, compiled: Callable[[descriptor.Descriptor], Convert]) -> Convert:
    """A message field's converter, compiled at its first use (a type may contain itself)."""
    found: list[Convert] = []

    def convert(value: Any) -> Any:
        if not found:
            found.append(compiled(message_type))
        return found[0](value)

    return convert


_times: dict[tuple[int, int], str] = {}
TIMES_KEPT = 4096  # a batch's answers share the game time they start at


def _time(value: Timestamp) -> str:
    """Timestamp.ToJsonString (3.4 us each), remembered for the times written lately."""
    key = value.seconds, value.nanos
    text = _times.get(key)
    if text is None:
        if len(_times) >= TIMES_KEPT:
            _times.clear()
        text = _times[key] = _time_text(*key, value)
    return text


def _time_text(seconds: int, nanos: int, value: Timestamp) -> str:
    if not (SECONDS_MIN <= seconds <= SECONDS_MAX and 0 <= nanos < 1_000_000_000):
        raised: str = value.ToJsonString()  # raises its ValueError
        return raised
    text = (EPOCH + timedelta(seconds=seconds)).isoformat()
    if nanos == 0:
        return text + "Z"
    if nanos % 1_000_000 == 0:
        return f"{text}.{nanos // 1_000_000:03d}Z"
    if nanos % 1_000 == 0:
        return f"{text}.{nanos // 1_000:06d}Z"
    return f"{text}.{nanos:09d}Z"


def _special(value: float) -> str | None:
    """JSON has no NaN or infinities: json_format writes them as strings."""
    if math.isfinite(value):
        return None
    return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"


# --- reading ---------------------------------------------------------------------------------------

@functools.cache  # as `_writer`
def _reader(message_type: descriptor.Descriptor) -> Read:
    if message_type.full_name == TIMESTAMP:
        return _timestamp
    if any(len(oneof.fields) > 1 for oneof in message_type.oneofs):  # json_format refuses two of one
        return _slow
    try:
        fields = {}
        for field in message_type.fields:
            fields[field.json_name] = fields[field.name] = (field.name, _field_reader(field))
    except _Slow:
        return _slow

    def read(value: Any) -> dict[str, Any]:
        if type(value) is not dict:
            raise _Slow
        given: dict[str, Any] = {}
        for key, item in value.items():
            name, convert = fields.get(key) or _slow(key)
            if item is None or name in given:
                raise _Slow
            given[name] = convert(item)
        return given

    return read


def _field_reader(field: F) -> Read:
    one = _value_reader(field)
    if field.is_repeated:
        return lambda values: [one(v) for v in values] if type(values) is list else _slow(values)
    return one


def _value_reader(field: F) -> Read:  # noqa: PLR0911 - one case per kind of field
    kind = field.cpp_type
    if kind == F.CPPTYPE_MESSAGE:
        if field.message_type.GetOptions().map_entry:
            raise _Slow
        return _nested(field.message_type, _reader)
    if kind == F.CPPTYPE_ENUM:
        numbers = {v.name: v.number for v in field.enum_type.values}
        known = set(numbers.values())
        return lambda value: (numbers[value] if type(value) is str and value in numbers
                              else value if type(value) is int and value in known else _slow(value))
    if kind in INT_RANGES:
        low, high = INT_RANGES[kind]
        text = kind in INT64

        def integer(value: Any) -> int:
            if type(value) is str and text and DIGITS.fullmatch(value):
                value = int(value)
            if type(value) is int and low <= value <= high:
                return value
            raise _Slow

        return integer
    if kind in (F.CPPTYPE_FLOAT, F.CPPTYPE_DOUBLE):
        limit = FLOAT_MAX if kind == F.CPPTYPE_FLOAT else math.inf
        return lambda value: (float(value) if type(value) in (int, float) and abs(value) <= limit
                              and math.isfinite(value) else _slow(value))
    if kind == F.CPPTYPE_BOOL:
        return lambda value: value if type(value) is bool else _slow(value)
    if field.type == F.TYPE_STRING:
        return lambda value: (value if type(value) is str and (value.isascii() or not UNPAIRED_SURROGATE.search(value))
                              else _slow(value))
    raise _Slow  # bytes


def _timestamp(value: Any) -> dict[str, int]:
    """A UTC time as json_format reads it (Timestamp.FromJsonString)."""
    match = UTC_TIME.fullmatch(value) if type(value) is str else None
    if match is None:
        raise _Slow
    year, month, day, hour, minute, second, fraction = match.groups()
    when = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second))  # out of range: ValueError
    delta = when - EPOCH
    nanos = round(float("0." + fraction) * 1e9) if fraction else 0
    return {"seconds": delta.seconds + delta.days * 86_400, "nanos": nanos}
