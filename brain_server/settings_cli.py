"""The settings on the command line: a flag per Settings field with its description, the effective
settings printed with secrets masked, and a bad value as one line instead of a traceback.

Everything here is generated from `Settings.model_fields`, so a new setting appears on `--help`,
in `npc-brain config` and in docs/configuration.md (tools/config_doc.py) without another edit.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
import re
import sys
import types
from typing import Annotated, Any, Literal, NoReturn, Union, get_args, get_origin

from pydantic import SecretStr, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import NoDecode

from brain_server.config import Settings

ENV_PREFIX = "NPC_BRAIN_"
MASK = "**********"
# A URL's "user:password@" (or "token@") and JSON keys that name a credential: printed masked.
_URL_CREDENTIALS = re.compile(r"(?<=://)[^/@\s]+(?=@)")
_SECRET_KEY = re.compile(r"(^|[_-])(api_?key|key|token|secret|password|passwd|auth|authorization|credentials?|"
                         r"cookie)$", re.IGNORECASE)  # "api_key", "x-api-key", "access_token"; not "max_tokens"


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def env_name(name: str) -> str:
    return ENV_PREFIX + name.upper()


def _kinds(annotation: Any) -> list[Any]:
    """The types a field accepts, None and Annotated wrappers left out."""
    if get_origin(annotation) is Annotated:
        return _kinds(get_args(annotation)[0])
    if get_origin(annotation) in (Union, types.UnionType):
        return [kind for arg in get_args(annotation) for kind in _kinds(arg)]
    return [] if annotation is type(None) else [annotation]


def is_list(field: FieldInfo) -> bool:
    return any(get_origin(kind) in (list, set, frozenset) for kind in _kinds(field.annotation))


def _comma_separated(field: FieldInfo) -> bool:
    """Fields whose string form is a comma-separated list (NoDecode + Settings._comma_separated)."""
    return NoDecode in field.metadata


def is_secret(field: FieldInfo) -> bool:
    return SecretStr in _kinds(field.annotation)


def value_syntax(field: FieldInfo) -> str:
    """How a value is written on the command line and in the environment."""
    kinds = _kinds(field.annotation)
    if _comma_separated(field):
        return "A,B,..."
    if is_list(field):
        return "JSON_LIST"
    literal = next((kind for kind in kinds if get_origin(kind) is Literal), None)
    if literal is not None:
        return "|".join(get_args(literal))
    names = {bool: "true|false", int: "INT", float: "NUMBER", Path: "PATH", SecretStr: "SECRET"}
    return next((names[kind] for kind in kinds if kind in names), "TEXT")


def shown_default(field: FieldInfo) -> str:
    default = field.get_default(call_default_factory=True)
    if default is None:
        return "unset"
    if isinstance(default, SecretStr):
        return MASK
    if isinstance(default, frozenset | set):
        return ",".join(sorted(default)) or "empty"
    if isinstance(default, bool):
        return str(default).lower()
    return json.dumps(default) if isinstance(default, list) else str(default)


def describe(field: FieldInfo) -> str:
    """A field's description, from the one place it is written (config.py)."""
    return " ".join((field.description or "").split())


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """--config plus one flag per setting; a flag left out leaves the setting to the other sources."""
    parser.add_argument("--config", type=Path, help="TOML settings file (same keys as NPC_BRAIN_* without prefix)")
    group = parser.add_argument_group("settings", "each flag overrides its NPC_BRAIN_* variable, the .env file "
                                      "and the TOML file")
    for name, field in Settings.model_fields.items():
        syntax = ' (a JSON list, e.g. ["a","b"])' if value_syntax(field) == "JSON_LIST" else ""
        help_text = f"{describe(field)}{syntax} [{env_name(name)}; default {shown_default(field)}]".replace("%", "%%")
        if bool in _kinds(field.annotation):
            group.add_argument(flag(name), dest=name, action=argparse.BooleanOptionalAction, default=None,
                               help=help_text)
        else:
            group.add_argument(flag(name), dest=name, type=Path if Path in _kinds(field.annotation) else str,
                               metavar=value_syntax(field), help=help_text)
    return parser


def overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The settings given as flags, decoded as their environment variables are (JSON for lists)."""
    given: dict[str, Any] = {}
    for name, field in Settings.model_fields.items():
        value = getattr(args, name, None)
        if value is None:
            continue
        if isinstance(value, str) and is_list(field) and not _comma_separated(field):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                fail(f"{flag(name)} takes a JSON list, e.g. '[\"a\",\"b\"]', not {value!r}")
        given[name] = value
    return given


def load(args: argparse.Namespace, **extra: Any) -> Settings:
    """The effective settings, or exit with one line naming what is wrong and where it is set."""
    config = getattr(args, "config", None)
    if config:
        if not config.is_file():
            fail(f"config file {config} does not exist")
        os.environ["NPC_BRAIN_CONFIG"] = str(config)
    try:
        return Settings(**overrides(args), **extra)
    except ValidationError as exc:
        fail("invalid settings: " + "; ".join(_error_line(error) for error in exc.errors()))


def _error_line(error: Any) -> str:
    name = str(error["loc"][0]) if error["loc"] else ""
    if name not in Settings.model_fields:
        return f"{name}: unknown setting ({env_name(name)} or a TOML key {name}; see npc-brain serve --help)"
    value = error.get("input")
    shown = "" if is_secret(Settings.model_fields[name]) else f" (got {str(value)[:80]!r})"
    return f"{name} ({flag(name)} / {env_name(name)}): {error['msg']}{shown}"


def fail(message: str) -> NoReturn:
    sys.exit(f"npc-brain: {message}")


def render(settings: Settings) -> str:
    """The effective settings as a TOML file would set them, secrets masked; unset ones and defaults noted."""
    lines = []
    for name in Settings.model_fields:
        value = getattr(settings, name)
        note = "" if name in settings.model_fields_set else "  # default"
        lines.append(f"# {name} = (unset)" if value is None else f"{name} = {_toml(masked(value))}{note}")
    return "\n".join(lines)


def masked(value: Any) -> Any:
    """A setting's value with the credentials it may carry masked: a URL's user and password, and
    in a JSON object (LLM_EXTRA_BODY, headers) every value under a key that names a credential."""
    if isinstance(value, str):
        return _URL_CREDENTIALS.sub(MASK, value)
    if isinstance(value, dict):
        return {k: MASK if _SECRET_KEY.search(str(k)) and v not in (None, "") else masked(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [masked(item) for item in value]
    return value


def _toml(value: Any) -> str:
    if isinstance(value, SecretStr):
        return json.dumps(MASK if value.get_secret_value() else "")
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {_toml(v)}" for k, v in value.items()) + " }" if value \
            else "{}"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, frozenset | set):
        value = sorted(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if value is None:
        return '""'
    return json.dumps(str(value))
