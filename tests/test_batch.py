"""DecideBatch (brain_server/api/batch.py): each request answered or failed as its own Decide would be,
over both transports, on the lockstep path and on the real-time one (answered on the transports'
thread); only a batch over the cap fails as a whole.
The addon's side (gathering a frame's Decides, falling back to single ones) runs in the real
engine in tests/test_godot_web.py, whose stand-in brain answers DecideBatch as the brain does."""

from __future__ import annotations

import time
from typing import Any

import grpc
import pytest

from brain_server.model.validation import MAX_BATCH
from tests.clients import Clients
from tests.town import spawn_json, world_json

NINE = "2026-02-13T09:00:00Z"


def klaus() -> dict[str, Any]:
    body = spawn_json("klaus")
    body["persona"]["name"] = "Klaus Mueller"
    return body


def test_each_decide_of_a_batch_is_answered_or_failed_on_its_own_and_over_the_cap_none_is(clients: Clients) -> None:
    clients.grpc("SpawnNpc", klaus())
    alone = clients.connect("Decide", {"npcId": "nobody", "gameTime": NINE}).json()
    requests = [{"npcId": "isabella", "gameTime": NINE},
                {"npcId": "nobody", "gameTime": NINE},
                {"npcId": "klaus", "gameTime": "1000-01-01T07:00:00Z"},
                {"npcId": "maria", "gameTime": NINE, "perceptions": [{"description": "x" * 5000}]},
                {"npcId": "isabella", "gameTime": NINE}]
    results = clients.grpc("DecideBatch", {"requests": requests})["results"]

    assert [r["npcId"] for r in results] == [r["npcId"] for r in requests]  # in order, one each
    answered = results[0]["response"]
    assert answered["action"]["description"] and "code" not in results[0]
    trace = clients.connect("GetTrace", {"traceId": answered["traceId"]}).json()["trace"]
    assert trace["npcId"] == "isabella" and trace["llmCalls"]  # thought about, traced, as a Decide is
    # The failures are the single Decide's, word for word.
    assert (results[1]["code"], results[1]["message"]) == (alone["code"], alone["message"])
    assert results[2]["code"] == "invalid_argument" and "before 1900" in results[2]["message"]
    assert results[3]["code"] == "resource_exhausted" and "perceptions.description" in results[3]["message"], results[3]
    assert results[4]["code"] == "invalid_argument" and "requests[0]" in results[4]["message"]
    assert all("response" not in r for r in results[1:])
    # Klaus, refused twice, still decides; the batch's Decides are counted as Decides.
    again = clients.connect("DecideBatch", {"requests": [{"npcId": "klaus", "gameTime": NINE}]}).json()
    assert again["results"][0]["response"]["action"]["description"]
    decides = next(r for r in clients.grpc("GetUsage", {"npcId": "-"})["rpcs"] if r["name"] == "Decide")
    assert int(decides["count"]) == 6  # nobody alone, four of the five (not the duplicate), klaus again
    assert clients.connect("DecideBatch", {}).json() == {}  # nothing asked, nothing answered
    # Over the cap, the batch is refused whole, on both transports.
    body = {"requests": [{"npcId": f"npc{i}", "gameTime": NINE} for i in range(MAX_BATCH + 1)]}
    refused = clients.connect("DecideBatch", body)
    assert refused.status_code == 429 and refused.json()["code"] == "resource_exhausted"
    assert refused.json()["message"] == f"requests has {MAX_BATCH + 1} items; send at most {MAX_BATCH}"
    with pytest.raises(grpc.RpcError) as info:
        clients.grpc("DecideBatch", body)
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and str(MAX_BATCH) in info.value.details()


@pytest.mark.slow
def test_a_batch_on_the_real_time_path_answers_at_once_and_thinks_behind(brain_factory) -> None:
    clients = Clients(brain_factory(background_thinking=True))
    clients.grpc("RegisterWorld", world_json())
    for body in (spawn_json(), klaus()):
        clients.grpc("SpawnNpc", body)
    requests = [{"npcId": n, "gameTime": NINE} for n in ("isabella", "klaus")]
    first = clients.connect("DecideBatch", {"requests": requests}).json()["results"]
    assert [r["response"]["action"]["source"] for r in first] == ["ACTION_SOURCE_PROVISIONAL"] * 2
    assert all(r["response"]["thinking"] for r in first)
    for _ in range(100):  # the day plans land in the background (the fake answers at once)
        time.sleep(0.2)
        later = clients.grpc("DecideBatch", {"requests": requests})["results"]
        if not any(r["response"].get("thinking") for r in later):
            break
    assert all(r["response"]["action"]["source"] != "ACTION_SOURCE_PROVISIONAL" for r in later), later
    clients.close()
