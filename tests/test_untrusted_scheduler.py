"""A completion waiting for its slot can be cancelled at any moment (a player's conversation ends
and its relationship summary is dropped, open conversations are bounded, the brain stops): the
slot then goes to the next in line, and no one else's completion fails for it (issue 14's flood
found 'InvalidStateError: invalid state' in other calls' attempts, and each one leaked a slot)."""

from __future__ import annotations

import asyncio

from brain_server.llm.scheduler import Priority, Scheduler, Work


def test_a_waiter_cancelled_before_its_turn_neither_fails_the_giver_nor_leaks_its_slot() -> None:
    async def main() -> None:
        scheduler = Scheduler(1, player_reserve=0)
        release, served = asyncio.Event(), []

        async def completion(name: str, hold: asyncio.Event | None = None) -> None:
            async with scheduler.slot(Work(Priority.SOCIAL, name)):
                served.append(name)
                if hold is not None:
                    await hold.wait()

        first = asyncio.create_task(completion("first", release))
        await asyncio.sleep(0)
        doomed = asyncio.create_task(completion("doomed"))
        after = asyncio.create_task(completion("after"))
        await asyncio.sleep(0)
        release.set()  # the first completion hands its slot on at its next step...
        doomed.cancel()  # ...which comes before the cancelled waiter's own handler runs
        await asyncio.wait_for(asyncio.gather(first, after), 5)  # the giver did not fail
        assert served == ["first", "after"] and doomed.cancelled()
        assert [r.running for r in scheduler.report()] == [0] * len(Priority)
        assert scheduler._running == 0  # every slot is back
        await asyncio.wait_for(completion("later"), 5)

    asyncio.run(main())
