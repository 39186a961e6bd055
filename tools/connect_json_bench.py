"""Connect's JSON codec on a real DecideBatch: CPU per batch to read a frame's request and write
the brain's answer, json_format's way and `brain_server/transport/proto_json.py`'s (what the
transports' thread spends per batch, whatever else the machine runs: CPU time, not wall time).

    .venv/bin/python -m tools.connect_json_bench --npcs 250 --perceptions 3
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
import time

from google.protobuf import json_format

from brain_server.transport import proto_json
from npc_brain.v1 import brain_pb2 as pb

NOW = datetime(2026, 2, 13, 9, 0, tzinfo=UTC)


def batch(n: int = 250, seen: int | None = None) -> tuple[pb.DecideBatchRequest, pb.DecideBatchResponse]:
    """A frame's DecideBatch as a game sends it and the brain answers it: `n` NPCs seeing `seen`
    others each (None: 0 to 3)."""
    request, response = pb.DecideBatchRequest(), pb.DecideBatchResponse()
    for i in range(n):
        item = request.requests.add(npc_id=f"npc-{i:05d}", address="the Ville:Hobbs Cafe:cafe",
                                    attention=(pb.ATTENTION_CROWD, pb.ATTENTION_IN_VIEW, pb.ATTENTION_UNSPECIFIED)[i % 3])
        item.game_time.FromDatetime(NOW + timedelta(microseconds=i * 1001))
        item.tile.x, item.tile.y = i, 0
        for k in range(i % 4 if seen is None else seen):
            item.perceptions.add(subject=f"Klaus Müller {k}", predicate="is", object="reading 📖",
                                 description=f"Klaus Müller {k} is reading", address="the Ville:Hobbs Cafe:cafe",
                                 distance=(0.1, 2.5, 1e-7, 0.0)[k % 4])
        if i % 50 == 0:
            item.verb_outcomes.add(name="buy", target="the Ville:Hobbs Cafe:cafe:counter", done=True, detail="a latte")
        result = response.results.add(npc_id=item.npc_id)
        if i % 97 == 3:
            result.code, result.message = "not_found", f"NPC {item.npc_id!r} is not spawned: SpawnNpc first"
            continue
        answer = result.response
        action = answer.action
        action.description, action.emoji, action.address = "Isabella is working", "☕", "the Ville:Hobbs Cafe:cafe"
        action.start_time.FromDatetime(NOW)
        action.duration_minutes = 60 - i % 60
        action.source = (pb.ACTION_SOURCE_PROVISIONAL, pb.ACTION_SOURCE_PLAN, pb.ACTION_SOURCE_UNSPECIFIED)[i % 3]
        action.event_subject, action.event_predicate, action.event_object = "Isabella", "is", "working"
        if i % 25 == 1:
            action.object_states.add(address="the Ville:Hobbs Cafe:cafe:stove", state="in use")
            action.dialogue.add(speaker_npc_id="klaus", speaker_name="Klaus", text="Morning! \u2014 \"quoted\"")
            action.chatting_with = "klaus"
            action.verb.name, action.verb.target = "buy", "the Ville:Hobbs Cafe:cafe:counter"
            action.verb.arguments.add(name="what", choice="latte")
            action.verb.arguments.add(name="count", integer=2**40)
            action.verb.arguments.add(name="price", number=3.5)
        answer.trace_id = f"{i:032x}"
        answer.ask_again_at.FromDatetime(NOW + timedelta(minutes=61, seconds=i, microseconds=(0, 500_000, 123)[i % 3]))
        answer.thinking = i % 2 == 0
    return request, response



def cpu_ms(work: Callable[[], object], repeat: int) -> float:
    work()
    began = time.process_time()
    for _ in range(repeat):
        work()
    return (time.process_time() - began) * 1000 / repeat


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--npcs", type=int, default=250, help="Decides in the batch")
    parser.add_argument("--perceptions", type=int, default=3, help="perceptions each Decide carries")
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args(argv)
    request, response = batch(args.npcs, args.perceptions)
    body = json_format.MessageToJson(request, indent=None).encode()
    figures = {
        "read json_format": cpu_ms(lambda: json_format.Parse(body, pb.DecideBatchRequest()), args.repeat),
        "read proto_json": cpu_ms(lambda: proto_json.decode(body, pb.DecideBatchRequest), args.repeat),
        "write json_format": cpu_ms(lambda: json_format.MessageToJson(response, indent=None).encode(), args.repeat),
        "write proto_json": cpu_ms(lambda: proto_json.encode(response), args.repeat),
    }
    print(f"DecideBatch of {args.npcs}, {args.perceptions} perceptions each ({len(body):,} bytes in, "
          f"{len(proto_json.encode(response)):,} out): CPU ms per batch")
    for name, ms in figures.items():
        print(f"  {name}: {ms:.2f}")
    return figures


if __name__ == "__main__":
    main()
