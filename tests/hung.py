"""A helper process that hangs (stopped) with a call in flight: what closing its owner must do."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
import contextlib
import os
from pathlib import Path
import signal
import threading
from typing import Any

import pytest


def assert_closes_while_hung(pid: int, call: Callable[[], Any], close: Callable[[], None],
                             error: type[Exception]) -> None:
    """Stops process `pid` and makes `call` in a thread (its reply never comes); then `close` must
    return, `call` fail with `error`, and the process be gone."""
    os.kill(pid, signal.SIGSTOP)
    pool = ThreadPoolExecutor(1)
    try:
        waiting = pool.submit(call)
        with pytest.raises(TimeoutError):
            waiting.result(timeout=0.5)  # in flight, never answered
        closing = threading.Thread(target=close, daemon=True)
        closing.start()
        closing.join(30)
        assert not closing.is_alive()
        with pytest.raises(error):
            waiting.result(timeout=5)
        assert not running(pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)  # a failed check leaves nothing stopped behind
        pool.shutdown(wait=False)


def running(pid: int) -> bool:
    """Alive and not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")
