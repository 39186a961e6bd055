"""`npc-lab bench memos`: conversations and memo answers written by another hand (npc_lab/corpora/) read by
the brain as it reads a memo after a conversation it watched (`converse.keep_conversation`, then
`said_yes.yes_unbooked` where the memo books nothing), each booking set against what was said: whether the
listener's day gets the event, on the day, at the hour and in the building said. No model is asked: the memo
is the corpus's."""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from datetime import UTC, datetime
import json
from pathlib import Path
import tempfile
from typing import Any

CORPORA = Path(__file__).parent / "corpora"
DEFAULT_CORPORA = ("memos_a.jsonl", "memos_b.jsonl", "memos_c.jsonl")


def bench_memos(args: argparse.Namespace) -> dict[str, Any]:
    paths = [Path(p) for p in args.corpus] if args.corpus else [CORPORA / name for name in DEFAULT_CORPORA]
    results = {}
    for path in paths:
        rows = replay(path)
        results[path.name] = {"summary": summary(rows), "items": rows}
        print_table(path.name, rows)
    return results


def replay(path: Path) -> list[dict[str, Any]]:
    """Each item of the corpus at `path` read by the brain: its booking and whether it is the one said."""
    from brain_server.cognition.memory_stream import MemoryStream
    from brain_server.cognition.retrieve import RetrievalWeights
    from brain_server.config import Settings
    from brain_server.llm.client import LLM
    from brain_server.llm.embeddings import MiniLMEmbedder
    from brain_server.persistence.storage import open_store
    from brain_server.prompts import PromptLibrary

    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    embedder = MiniLMEmbedder()
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(Settings(data_dir=Path(folder) / "store"), embedder.dim)
        # never asked: a memo read is the corpus's answer; nothing listens at this address
        llm = LLM(base_url="http://127.0.0.1:9/v1", model="none", api_key="none", prompts=PromptLibrary())
        stream = MemoryStream(store, embedder, llm, RetrievalWeights())
        try:
            return asyncio.run(_read_all(items, stream))
        finally:
            store.close()


async def _read_all(items: list[dict[str, Any]], stream: Any) -> list[dict[str, Any]]:
    return [await read_one(item, n, stream) for n, item in enumerate(items)]


async def read_one(item: dict[str, Any], n: int, stream: Any) -> dict[str, Any]:
    """One corpus item read as the brain reads a memo; its booking against `truth`."""
    from brain_server.cognition.converse import keep_conversation
    from brain_server.cognition.said_yes import yes_unbooked
    from brain_server.model.npc import DialogueLine, NpcState, Persona
    from brain_server.model.trace import Trace
    from brain_server.prompts.conversation_memo import ConversationMemo

    listener, places = item["listener"], item["places"]
    name, me = listener["name"], f"listener{n}"
    now = datetime.fromisoformat(item["now"]).replace(tzinfo=UTC)
    home = next((p for p in places if "bedroom" in p.lower()), places[0])
    npc = NpcState(npc_id=me, world_name="corpus", known_addresses=places, address=places[0],
                   persona=Persona(name=name, home=home, lifestyle=listener.get("lifestyle", "")))
    lines = [DialogueLine(speaker_npc_id=me if said["speaker"] == name else f"speaker{n}", speaker_name=said["speaker"],
                          text=said["text"]) for said in item["lines"]]
    trace = Trace(npc_id=me, kind="decide", game_time=now)
    _, change = await keep_conversation(npc, item["speaker"], lines, ConversationMemo.model_validate(item["memo"]), now,
                                        stream, trace)
    by = "memo" if change is not None else "a yes"
    change = change or yes_unbooked(name, lines, places, now, trace)
    booked = None if change is None else {"date": f"{change.start:%Y-%m-%d}", "start": f"{change.start:%H:%M}",
                                          "place": change.place, "activity": change.activity}
    return {"id": item["id"], "slip": item.get("slip", ""), "truth": item["truth"], "booked": booked, "by": by,
            "missed": missed(item["truth"], booked)}


def missed(truth: dict[str, Any], booked: dict[str, Any] | None) -> list[str]:
    """What the booking got wrong of what was said: booked nothing said, nothing booked, or its date,
    hour or building (the room is the memo's to choose)."""
    if not truth["books"]:
        return [] if booked is None else ["booked"]
    if booked is None:
        return ["nothing booked"]
    building = ":".join(truth["place"].split(":")[:2])
    return [what for what, wrong in (("date", booked["date"] != truth["date"]), ("hour", booked["start"] != truth["start"]),
                                     ("place", ":".join(booked["place"].split(":")[:2]) != building)) if wrong]


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    plain, slipped = [r for r in rows if not r["slip"]], [r for r in rows if r["slip"]]
    return {"items": len(rows), "right": sum(not r["missed"] for r in rows),
            "memos_without_a_slip": len(plain), "right_without_a_slip": sum(not r["missed"] for r in plain),
            "memos_with_a_slip": len(slipped), "slips_mended": sum(not r["missed"] for r in slipped),
            "missed": dict(Counter(m for r in rows for m in r["missed"]))}


def print_table(name: str, rows: list[dict[str, Any]]) -> None:
    s = summary(rows)
    print(f"\n{name}: booked as said {s['right']} of {s['items']}; memos without a slip {s['right_without_a_slip']} of "
          f"{s['memos_without_a_slip']}; slips mended {s['slips_mended']} of {s['memos_with_a_slip']}")
    print("| id | slip | missed | booked | said |\n| --- | --- | --- | --- | --- |")
    for r in rows:
        if r["missed"]:
            booked = r["booked"] and f"{r['booked']['date']} {r['booked']['start']} {r['booked']['place']}"
            said = r["truth"]["books"] and f"{r['truth']['date']} {r['truth']['start']} {r['truth']['place']}"
            print(f"| {r['id']} | {r['slip'] or '-'} | {', '.join(r['missed'])} | {booked or '-'} | {said or '-'} |")
