"""The trace book keeps the last traces of each NPC, and a bounded number in all."""

from __future__ import annotations

from datetime import UTC, datetime

from brain_server.model.trace import Trace, TraceBook

NOW = datetime(2026, 2, 13, 9, tzinfo=UTC)


def test_per_npc_and_total_bounds_drop_the_oldest_first() -> None:
    book = TraceBook(per_npc=3, total=5)
    made = [Trace(npc_id=npc, kind="decide", game_time=NOW) for npc in ["a", "b", "a", "a", "a", "b", "c"]]
    for trace in made:
        book.add(trace)
    kept = [t for t in made if book.get(t.trace_id) is not None]
    # a's first fell to the per-NPC bound (3), then the oldest in all (b's first) to the total (5).
    assert kept == made[2:]
    assert [book.latest(npc).trace_id for npc in "abc"] == [made[4].trace_id, made[5].trace_id, made[6].trace_id]
    for trace in made[2:]:
        book.add(trace.model_copy(update={"trace_id": trace.trace_id + "x"}))
    assert book.get(made[2].trace_id) is None and book.latest("a").trace_id == made[4].trace_id + "x"
