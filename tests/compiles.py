"""Counting the regular expressions a piece of code makes: a pattern made from data (a name, a
place) per call overflows `re`'s cache of 512 in a town of a thousand, and every call compiles
again (issue 44)."""

from __future__ import annotations

import re
from typing import Any

import pytest


def patterns_made(monkeypatch: pytest.MonkeyPatch, holding: str) -> list[str]:
    """The patterns holding `holding` that `re` is asked to make from now on (its cache passed or
    not: `re._compile` is where `re.search`, `re.sub` and `re.compile` all get theirs)."""
    made: list[str] = []
    compile_ = re._compile  # type: ignore[attr-defined]

    def counted(pattern: Any, flags: Any) -> Any:
        if isinstance(pattern, str) and holding in pattern:
            made.append(pattern)
        return compile_(pattern, flags)

    monkeypatch.setattr(re, "_compile", counted)
    return made
