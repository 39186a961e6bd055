"""Answers before thinking: background work steps aside while the game is being answered.

The brain answers Decides and thinks in one process, and Python runs one of them at a time. A
town asks in bursts (its NPCs start together; steps end on shared minutes), each Decide takes
about a millisecond, and the thinking each one starts (embedding what it saw, retrieval, building
a prompt) takes the interpreter for milliseconds at a time: started at once, it interleaves with
the rest of the burst and the last Decides of the burst wait for it. So background work starts
only once no Decide has been answered for QUIET_S, and never waits more than LONGEST_WAIT_S for
that (a town asking without pause still thinks). Thinking waits for the LLM for seconds anyway;
this adds milliseconds to it.

The same holds for the machine's cores: work that runs on threads of its own and wants all the CPU
it can get (embedding text) runs at a lower priority (`lower_priority`), so the threads that answer
the game are scheduled first and it takes what they leave.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time

QUIET_S = 0.01  # no answer for this long: the burst is over
LONGEST_WAIT_S = 0.25  # background work never waits longer than this for a quiet moment
BACKGROUND_NICENESS = 10  # a thread at +10 gets about a tenth of a core that the answering threads want


class Foreground:
    """When the game was last answered, and a wait for a quiet moment after it."""

    def __init__(self, *, enabled: bool = True, quiet_s: float = QUIET_S,
                 longest_wait_s: float = LONGEST_WAIT_S) -> None:
        self.enabled = enabled  # lockstep runs its thinking inside the Decide: nothing to step aside for
        self.quiet_s = quiet_s
        self.longest_wait_s = longest_wait_s
        self._answered = float("-inf")

    def answering(self) -> None:
        """A Decide is being answered now."""
        self._answered = time.monotonic()

    async def quiet(self) -> None:
        """Return once no Decide was answered for `quiet_s`, or after `longest_wait_s`."""
        if not self.enabled:
            return
        give_up = time.monotonic() + self.longest_wait_s
        while (now := time.monotonic()) < give_up and (left := self._answered + self.quiet_s - now) > 0:
            await asyncio.sleep(min(left, give_up - now))


def lower_priority() -> None:
    """The calling thread (and the threads it starts) yields the CPU to the process's other threads:
    nice +BACKGROUND_NICENESS on Linux, where niceness is per thread; elsewhere nothing changes."""
    if sys.platform == "linux":
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICENESS)
