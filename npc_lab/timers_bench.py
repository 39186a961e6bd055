"""`npc-lab bench timers`: how long the brain's own waits take on this machine, against what each
is meant to be. The tests check these waits' behaviour with clocks they move (tests/test_no_clocks.py:
no test compares a time with a number); the real times are measured here, where a loaded machine
shows as a figure rather than a red test.

- strained:   a loop whose thread stays busy in 2 ms steps for a second: the share of a core its
              thread got, the share Vitals counted, whether it counted as strained; then a second idle
- spacing:    four deferrable completions while strained: the gaps between their starts
              (RETRY_STRAINED_S each, at least)
- retry_after: a 429 with Retry-After 1 s from the fake endpoint: the wait between the two attempts
- store_sync: a write to the embedded store with a 0.3 s sync window: the time to its WAL fsync; and
              close() with an hour's window pending (it must not wait the window out)
"""

from __future__ import annotations

import argparse
import asyncio
from datetime import UTC, datetime
import os
from pathlib import Path
import tempfile
import time
from typing import Any

from npc_lab.tables import markdown_table

SYNC_WINDOW_S = 0.3
RETRY_AFTER_S = 1


async def _strained(seconds: float) -> dict[str, Any]:
    from brain_server.runtime.vitals import STRAINED_CPU, Vitals

    vitals = Vitals()
    vitals.start()
    try:
        began, cpu = time.perf_counter(), time.thread_time()
        while time.perf_counter() < began + seconds:
            spin = time.thread_time() + 0.002
            while time.thread_time() < spin:
                pass
            await asyncio.sleep(0)
        share = (time.thread_time() - cpu) / (time.perf_counter() - began)
        busy = {"thread_share": round(share, 2), "counted_share": round(vitals._cpu, 2), "strained": vitals.strained()}
        await asyncio.sleep(seconds)
        return {**busy, "strained_after_idle": vitals.strained(), "threshold": STRAINED_CPU}
    finally:
        await vitals.stop()


async def _spacing() -> dict[str, Any]:
    from brain_server.llm.scheduler import RETRY_STRAINED_S, Priority, Scheduler, Work

    scheduler = Scheduler(4, player_reserve=0, strained=lambda: True)
    started: list[float] = []

    async def one(n: int) -> None:
        async with scheduler.slot(Work(Priority.BACKGROUND, f"npc{n}")):
            started.append(time.monotonic())

    await asyncio.gather(*(one(n) for n in range(4)))
    gaps = [round((b - a) * 1000) for a, b in zip(started, started[1:], strict=False)]
    return {"gaps_ms": gaps, "target_ms": round(RETRY_STRAINED_S * 1000)}


async def _retry_after() -> dict[str, Any]:
    from brain_server.llm.client import LLM
    from brain_server.llm.scheduler import Priority, Work
    from brain_server.model.trace import Trace
    from brain_server.prompts import PromptLibrary
    from brain_server.prompts.importance import PROMPT, Importance
    from npc_lab.fake_openai import FakeOpenAI

    with FakeOpenAI() as fake:
        fake.queue({"status": 429, "retry_after": RETRY_AFTER_S}, purpose="importance")
        llm = LLM(base_url=fake.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(), backoff_s=0.001)
        try:
            await llm.complete(PROMPT, {"npc_name": "Ada", "persona": "Name: Ada", "memory": "the cafe opened"},
                               npc_id="ada", work=Work(Priority.PLAN_NOW, "ada"), fallback=lambda: Importance(importance=3),
                               trace=Trace(npc_id="ada", kind="decide", game_time=datetime(2026, 2, 13, tzinfo=UTC)))
        finally:
            await llm.close()
        first, second = (r["at"] for r in fake.chat_requests("importance"))
    return {"waited_s": round(second - first, 2), "asked_s": RETRY_AFTER_S}


def _store_sync(folder: Path) -> dict[str, Any]:
    from brain_server.persistence.storage.edge import EdgeMemoryStore

    synced: list[float] = []
    real = os.fsync

    def recording(fd: int) -> None:
        real(fd)
        if os.readlink(f"/proc/self/fd/{fd}").endswith("records/wal"):
            synced.append(time.monotonic())

    os.fsync = recording
    try:
        store = EdgeMemoryStore(folder / "window", 8, sync_after_s=SYNC_WINDOW_S)
        written = time.monotonic()
        store.put_record("npc", "a", {"x": 1})
        while not synced and time.monotonic() < written + 60:
            time.sleep(0.01)
        store.close()
        pending = EdgeMemoryStore(folder / "hour", 8, sync_after_s=3600)
        pending.put_record("npc", "a", {"x": 1})
        time.sleep(SYNC_WINDOW_S)
        closing = time.monotonic()
        pending.close()
        closed = time.monotonic()
    finally:
        os.fsync = real
    return {"synced_after_s": round(synced[0] - written, 2) if synced else None, "window_s": SYNC_WINDOW_S,
            "close_s": round(closed - closing, 2)}


def bench_timers(args: argparse.Namespace) -> dict[str, Any]:
    result = {"strained": asyncio.run(_strained(1.0)), "spacing": asyncio.run(_spacing()),
              "retry_after": asyncio.run(_retry_after())}
    with tempfile.TemporaryDirectory() as folder:
        result["store_sync"] = _store_sync(Path(folder))
    s, g, r, w = result["strained"], result["spacing"], result["retry_after"], result["store_sync"]
    print(markdown_table(["wait", "meant", "measured"], [
        ["a busy loop's thread", f"strained over {s['threshold']:.0%} of a core",
         f"got {s['thread_share']:.0%}, counted {s['counted_share']:.0%}: "
         f"{'strained' if s['strained'] else 'not strained'}; idle after: "
         f"{'strained' if s['strained_after_idle'] else 'not strained'}"],
        ["deferrable work while strained", f"{g['target_ms']} ms apart at least", f"gaps {g['gaps_ms']} ms"],
        ["a 429's Retry-After", f"{r['asked_s']} s", f"{r['waited_s']} s"],
        ["a write's WAL fsync", f"within {w['window_s']} s", f"{w['synced_after_s']} s"],
        ["close() with an hour's window pending", "at once", f"{w['close_s']} s"],
    ]))
    return result
