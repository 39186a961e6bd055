"""The brain ends with the process that started it (`npc-brain serve --parent-pid PID`).

A game that starts its own brain (the addon's NpcBrainLauncher) stops it when it quits, but a game
that crashes or is killed cannot: without this, its brain would keep the data folder locked and the
port bound, and the next launch would find both taken. Every platform polls whether the parent
still runs; on Linux, when the parent is the brain's own parent, the kernel also sends SIGTERM the
moment it dies (PR_SET_PDEATHSIG), so the brain need not wait for the next poll.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
import ctypes
import os
import signal
import sys
import threading
import time

POLL_S = 0.5  # how often the parent is looked for; a player will not notice half a second
_PR_SET_PDEATHSIG = 1
_SYNCHRONIZE = 0x00100000
_WAIT_TIMEOUT = 0x102


def alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie, dead but not yet reaped, counts as gone on Linux)."""
    if sys.platform == "win32":
        return _alive_windows(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it runs, as another user
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True  # no /proc (macOS): kill(0) said it exists


def _alive_windows(pid: int) -> bool:
    # os.kill(pid, 0) would terminate it on Windows: ask whether its handle is signalled instead.
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    handle = kernel32.OpenProcess(_SYNCHRONIZE, False, pid)
    if not handle:
        return False
    try:
        return bool(kernel32.WaitForSingleObject(handle, 0) == _WAIT_TIMEOUT)
    finally:
        kernel32.CloseHandle(handle)


def die_with_parent(pid: int) -> None:
    """On Linux, have the kernel send SIGTERM when `pid`, our parent, dies (no-op elsewhere, or when
    `pid` is not our parent: a launcher that went through a shell). The kernel sends it when the
    parent's thread that started us ends: the game's main thread (the launcher starts it from _ready)."""
    if not sys.platform.startswith("linux") or os.getppid() != pid:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != pid:  # it died before the call: the kernel will send nothing
        os.kill(os.getpid(), signal.SIGTERM)


async def watch(pid: int, on_gone: Callable[[], None], *, poll_s: float = POLL_S) -> None:
    """Call `on_gone` once process `pid` no longer runs (polled every `poll_s`), then return."""
    while alive(pid):
        await asyncio.sleep(poll_s)
    on_gone()


def end_with(pid: int, *, poll_s: float = POLL_S) -> threading.Thread:
    """For a process with no event loop of its own to watch from (the embedded LLM's server): a
    daemon thread that sends this process SIGTERM once process `pid` is gone. Polling only: the
    kernel's signal follows the thread that started the process, and the brain starts the model's
    server from a worker thread (asyncio.to_thread), which may end long before the brain."""
    def poll() -> None:
        while alive(pid):
            time.sleep(poll_s)
        os.kill(os.getpid(), signal.SIGTERM)

    thread = threading.Thread(target=poll, name="parent", daemon=True)
    thread.start()
    return thread
