"""The suite's one hang guard: a test that waits for something to happen gives up after a generous
limit and says what did not happen. It bounds a hang; it measures nothing (tests/test_no_clocks.py:
no test checks a time against a number, and no other loop gives up at a deadline)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
import time
from typing import TypeVar

T = TypeVar("T")
POLL_S = 0.01


def _guard(what: str, limit_s: float) -> Callable[[], None]:
    """A check to call between looks: raises AssertionError naming `what` once `limit_s` has passed
    (a hang, not a slow machine: keep the limit generous)."""
    give_up = time.monotonic() + limit_s

    def check() -> None:
        if time.monotonic() > give_up:
            raise AssertionError(f"{what}: did not happen within {limit_s:g} s")

    return check


def wait_until(happened: Callable[[], T], *, what: str, limit_s: float = 60.0, poll_s: float = POLL_S) -> T:
    """Polls `happened` until it returns something true, and returns that."""
    check = _guard(what, limit_s)
    while not (result := happened()):
        check()
        time.sleep(poll_s)
    return result


async def wait_until_async(happened: Callable[[], T], *, what: str, limit_s: float = 60.0,
                           poll_s: float = POLL_S) -> T:
    """wait_until inside an event loop: the loop runs on between the looks."""
    check = _guard(what, limit_s)
    while not (result := happened()):
        check()
        await asyncio.sleep(poll_s)
    return result
