"""A test's model clients are gone before the next test runs.

An `openai.AsyncOpenAI` that is not closed is closed by its finaliser when the collector reaches it.
A client caught in a reference cycle is reached late, perhaps while another test's event loop runs:
the finaliser then schedules the close on that loop, closing connections bound to a loop that is
gone fails, and asyncio logs "Task exception was never retrieved" among that test's log lines (one
such line failed `test_logs`). So after each test that leaves a client open, the collector runs at
once, with no event loop running, where the finaliser schedules nothing; a client still open after
it is held by something that outlives the test, and that test fails.
"""

from __future__ import annotations

from collections.abc import Iterator
import gc
from typing import Any
import weakref

import openai
import pytest

_OPENED: weakref.WeakSet[openai.AsyncOpenAI] = weakref.WeakSet()


def pytest_configure(config: pytest.Config) -> None:
    opened = openai.AsyncOpenAI.__init__

    def counted(self: openai.AsyncOpenAI, *args: Any, **kwargs: Any) -> None:
        opened(self, *args, **kwargs)
        _OPENED.add(self)

    openai.AsyncOpenAI.__init__ = counted  # type: ignore[method-assign]


def _open() -> set[int]:
    return {id(client) for client in list(_OPENED) if not client.is_closed()}


@pytest.fixture(autouse=True)
def clients_are_gone() -> Iterator[None]:
    before = _open()
    yield
    if _open() - before:
        gc.collect()
    if left := _open() - before:
        pytest.fail(f"{len(left)} model client(s) opened by this test outlive it, open: close each "
                    "(`await llm.close()`) or let it go with the test")
