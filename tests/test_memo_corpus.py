"""Memos as models write them, read as the brain reads them, against corpora written by another hand
(npc_lab/corpora/: conversations in towns of its own, the memo an 8B-14B model would answer, and what the
listener's day should get from what was said)."""

from __future__ import annotations

import asyncio
import json

import pytest

from brain_server.cognition.memory_stream import MemoryStream
from npc_lab.memo_bench import CORPORA, read_one, summary

# slips the brain mends at stop 114 (each corpus read after the changes made on the ones before it)
MENDED = {"memos_a.jsonl": 7, "memos_b.jsonl": 5, "memos_c.jsonl": 7}


@pytest.mark.parametrize("corpus", sorted(MENDED))
def test_a_memo_is_booked_as_the_conversation_said_it(corpus: str, stream: MemoryStream) -> None:
    """Every memo without a slip books what was said (the day, the hour, the building) and nothing where
    nothing was agreed; of the memos with a slip (05:30 for "half five", today for "tomorrow", the place
    where they talked), at least as many as at stop 114 are mended by what the lines said."""
    items = [json.loads(line) for line in (CORPORA / corpus).read_text(encoding="utf-8").splitlines() if line.strip()]

    async def read_all() -> list[dict]:
        return [await read_one(item, n, stream) for n, item in enumerate(items)]

    rows = asyncio.run(read_all())
    s = summary(rows)
    assert [r["id"] for r in rows if not r["slip"] and r["missed"]] == []
    assert s["slips_mended"] >= MENDED[corpus], [(r["id"], r["slip"], r["missed"]) for r in rows if r["missed"]]
