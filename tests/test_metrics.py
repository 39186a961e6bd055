"""Operations on the HTTP port: /metrics in Prometheus' text format (parsed with prometheus-client's
own parser) after traffic on both transports, /healthz, and the standard library's log lines as JSON."""

from __future__ import annotations

import json
import socket

import grpc
import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.clients import Clients
from tests.town import spawn_json, world_json
from tests.waits import wait_until

DECIDE = {"npcId": "isabella", "gameTime": "2026-02-13T09:00:00Z"}


def scrape(http_url: str, **headers: str) -> dict[tuple[str, frozenset], float]:
    """Every sample by (name, labels)."""
    response = httpx.get(f"{http_url}/metrics", headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(response.text) for s in family.samples}


def value(samples: dict[tuple[str, frozenset], float], name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_metrics_after_traffic_show_rpcs_per_transport_llm_calls_and_the_store(brain_factory) -> None:
    brain = brain_factory()
    clients = Clients(brain)
    try:
        assert clients.connect("RegisterWorld", world_json()).status_code == 200
        assert clients.connect("SpawnNpc", spawn_json()).status_code == 200
        assert clients.connect("Decide", DECIDE).status_code == 200
        clients.grpc("Decide", {**DECIDE, "gameTime": "2026-02-13T09:05:00Z"})
        assert clients.connect("Decide", {**DECIDE, "npcId": "nobody"}).status_code == 404
        try:
            clients.grpc("Decide", {**DECIDE, "npcId": "nobody"})
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.NOT_FOUND
    finally:
        clients.close()
    samples = scrape(brain.http_url)
    for transport in ("grpc", "connect"):
        assert value(samples, "npc_brain_rpcs_total", transport=transport, method="Decide", code="ok") >= 1
        assert value(samples, "npc_brain_rpcs_total", transport=transport, method="Decide", code="not_found") == 1
        assert value(samples, "npc_brain_rpc_duration_seconds_count", transport=transport, method="Decide") >= 2
        assert value(samples, "npc_brain_rpc_duration_seconds_bucket", transport=transport, method="Decide",
                     le="+Inf") >= 2
    assert value(samples, "npc_brain_rpcs_total", transport="connect", method="SpawnNpc", code="ok") == 1
    # The NPC's first Decide thinks before answering here (a day plan at least): the model was asked.
    answered = sum(v for (name, labels), v in samples.items()
                   if name == "npc_brain_llm_calls_total" and ("outcome", "answered") in labels)
    assert answered >= 1
    assert value(samples, "npc_brain_llm_tokens_total", kind="prompt") > 0
    assert value(samples, "npc_brain_llm_tokens_total", kind="completion") > 0
    assert sum(v for (name, _), v in samples.items() if name == "npc_brain_llm_call_duration_seconds_count") >= answered
    assert value(samples, "npc_brain_store_duration_seconds_count", operation="put_record") >= 1
    assert value(samples, "npc_brain_npcs_cached") == 1
    assert value(samples, "npc_brain_llm_queue_wait_seconds_count", priority="plan_now") >= 1
    assert ("npc_brain_llm_queue_waiting", frozenset({("priority", "player")})) in samples
    assert value(samples, "process_resident_memory_bytes") > 10e6
    # The collector by generation (issue 44): the sweep's young collections, and no full one: start-up's
    # (settle_collector walks everything loaded, ~60 ms of CPU) came before the brain watched its pauses.
    assert value(samples, "npc_brain_gc_collections_total", generation="0") >= 1
    assert value(samples, "npc_brain_gc_generation_cpu_seconds_total", generation="0") > 0
    assert value(samples, "npc_brain_gc_collections_total", generation="2") == 0
    assert value(samples, "npc_brain_gc_generation_cpu_longest_seconds", generation="2") == 0


def test_healthz_is_open_and_metrics_need_the_token(brain_factory) -> None:
    brain = brain_factory(auth_token="metrics-token-1-abcdef")
    health = httpx.get(f"{brain.http_url}/healthz", timeout=30)
    assert health.status_code == 200 and health.json()["status"] == "serving"
    assert httpx.get(f"{brain.http_url}/metrics", timeout=30).status_code == 401
    samples = scrape(brain.http_url, authorization="Bearer metrics-token-1-abcdef")
    assert value(samples, "npc_brain_rpcs_total", transport="connect", method="unknown", code="unauthenticated") == 1


def test_standard_library_log_lines_are_json_too(brain_factory) -> None:
    brain = brain_factory(log_json=True)
    host, port = brain.http_url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as sock:  # not HTTP: uvicorn logs a warning
        sock.sendall(b"\x16\x03\x01 this is not HTTP\r\n\r\n")
        sock.recv(1000)
    wait_until(lambda: any("uvicorn" in line for line in brain.output), what="uvicorn logged the bad request",
               poll_s=0.1)
    logged = [line for line in brain.output if not line.startswith("npc-brain ready")]
    [uvicorn] = [json.loads(line) for line in logged if "uvicorn" in line]
    assert uvicorn["logger"] == "uvicorn.error" and uvicorn["level"] == "warning" and uvicorn["timestamp"]
    assert all(line.startswith("{") for line in logged), logged
